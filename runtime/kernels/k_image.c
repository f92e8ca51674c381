/* k_image.c — image resizing over NHWC (ResizeBilinear/NearestNeighbor/Bicubic/Area) and its gradients, and ImageProjectiveTransformV3, as TF's CPU kernels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

/* Every method is separable: an output row (column) is a weighted sum of a few input rows (columns).  One
 * axis's taps: for output o, k taps (idx[o*k + j], w[o*k + j]); the forward pass applies the taps of the
 * height then the width, the gradient scatters through the same taps (their transpose). */
typedef struct Taps {
  int k;
  tfs_i64 *idx;
  double *w;
} Taps;

enum { RS_BILINEAR, RS_NEAREST, RS_BICUBIC, RS_AREA, RS_SCALE };

static int resize_method(OpId id) {
  switch (id) {
    case OP_RESIZE_NEAREST: case OP_RESIZE_NEAREST_GRAD: return RS_NEAREST;
    case OP_RESIZE_BICUBIC: case OP_RESIZE_BICUBIC_GRAD: return RS_BICUBIC;
    case OP_RESIZE_AREA: return RS_AREA;
    case OP_SCALE_TRANSLATE: case OP_SCALE_TRANSLATE_GRAD: return RS_SCALE;
    default: return RS_BILINEAR;
  }
}

/* TF's CalculateResizeScale, in float as TF computes it. */
static float resize_scale(tfs_i64 in, tfs_i64 out, bool align) {
  return (align && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
}

/* Keys' cubic kernel sampled at 1/1024 steps as TF's table: [i*2] for |x| = i/1024, [i*2+1] for |x| = 1 + i/1024. */
#define CUBIC_TABLE 1024
static void cubic_table(float *t, double a) {
  for (int i = 0; i <= CUBIC_TABLE; i++) {
    float x = (float)(i * 1.0 / CUBIC_TABLE);
    t[i * 2] = (float)(((a + 2) * x - (a + 3)) * x * x + 1);
    x += 1.0f;
    t[i * 2 + 1] = (float)(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
}

static tfs_i64 bound(tfs_i64 v, tfs_i64 n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

/* Room for out * t->k taps (indices and weights, zeroed). */
static void taps_alloc(Taps *t, tfs_i64 out) {
  t->idx = calloc((size_t)(out * t->k) + 1, sizeof *t->idx);
  t->w = calloc((size_t)(out * t->k) + 1, sizeof *t->w);
  if (!t->idx || !t->w) {
    free(t->idx);
    free(t->w);
    rt_throw(ERR_MEMORY, "out of memory");
  }
}

/* The taps of one axis resized from `in` to `out` elements. */
static void taps_make(Taps *t, int method, tfs_i64 in, tfs_i64 out, bool align, bool half) {
  float scale = resize_scale(in, out, align);
  t->k = method == RS_NEAREST ? 1 : method == RS_BILINEAR ? 2 : method == RS_BICUBIC ? 4 : (int)ceil(scale) + 2;
  taps_alloc(t, out);
  static float table[2][(CUBIC_TABLE + 1) * 2];
  static bool made;
  if (method == RS_BICUBIC && !made) {
    cubic_table(table[0], -0.5);    /* half-pixel centers: Keys' a = -0.5 */
    cubic_table(table[1], -0.75);   /* legacy */
    made = true;
  }
  for (tfs_i64 o = 0; o < out; o++) {
    tfs_i64 *ix = t->idx + o * t->k;
    double *w = t->w + o * t->k;
    if (method == RS_NEAREST) {
      float s = half ? ((float)o + 0.5f) * scale : (float)o * scale;
      tfs_i64 i = align ? (tfs_i64)roundf(s) : (tfs_i64)floorf(s);
      ix[0] = bound(i, in);
      w[0] = 1;
    } else if (method == RS_BILINEAR) {
      float s = half ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
      float f = floorf(s);
      ix[0] = f < 0 ? 0 : (tfs_i64)f;
      ix[1] = (tfs_i64)ceilf(s) < in - 1 ? (tfs_i64)ceilf(s) : in - 1;
      if (ix[1] < 0) ix[1] = 0;
      w[1] = s - f;
      w[0] = 1 - w[1];
    } else if (method == RS_BICUBIC) {
      float s = half ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
      tfs_i64 il = (tfs_i64)floorf(s);
      long off = lrintf((s - (float)il) * CUBIC_TABLE);
      const float *tb = table[half ? 0 : 1];
      float ws[4] = {tb[off * 2 + 1], tb[off * 2], tb[(CUBIC_TABLE - off) * 2], tb[(CUBIC_TABLE - off) * 2 + 1]};
      float sum = 0;
      for (int j = 0; j < 4; j++) {
        ix[j] = bound(il - 1 + j, in);
        if (half && ix[j] != il - 1 + j) ws[j] = 0;   /* samples outside the image weigh nothing, the rest renormalised */
        sum += ws[j];
      }
      for (int j = 0; j < 4; j++) w[j] = half && fabsf(sum) >= 1000.0f * 1.17549435e-38f ? ws[j] * (1.0f / sum) : ws[j];
    } else {
      /* area: each input cell weighs its overlap with [o, o + 1) * scale, over the scale */
      float lo = (float)o * scale, hi = (float)(o + 1) * scale;
      tfs_i64 a = (tfs_i64)floorf(lo), b = (tfs_i64)ceilf(hi);
      int j = 0;
      for (tfs_i64 i = a; i < b && j < t->k; i++, j++) {
        float l = (float)i > lo ? (float)i : lo, h = (float)(i + 1) < hi ? (float)(i + 1) : hi;
        ix[j] = i < in - 1 ? i : in - 1;
        w[j] = (double)(h - l) / scale;
      }
    }
  }
}

/* ScaleAndTranslate's sampling kernels (TF's sampling_kernels.h), by name: the value at |x| and the radius. */
enum { SK_LANCZOS1, SK_LANCZOS3, SK_LANCZOS5, SK_TRIANGLE, SK_KEYS, SK_MITCHELL, SK_BOX, SK_GAUSSIAN, SK__N };
static const char *const sk_names[SK__N] = {"lanczos1", "lanczos3", "lanczos5", "triangle", "keyscubic", "mitchellcubic", "box",
                                            "gaussian"};
static const float sk_radius[SK__N] = {1, 3, 5, 1, 2, 2, 1, 1.5f};

static float sk_value(int k, float x) {
  x = fabsf(x);
  switch (k) {
    case SK_LANCZOS1: case SK_LANCZOS3: case SK_LANCZOS5: {
      float r = sk_radius[k];
      if (x > r) return 0;
      if (x <= 1e-3f) return 1;
      const float pi = 3.14159265358979323846f;
      return r * sinf(pi * x) * sinf(pi * x / r) / (pi * pi * x * x);
    }
    case SK_TRIANGLE: return x < 1 ? 1 - x : 0;
    case SK_GAUSSIAN: {   /* radius 1.5, sigma = radius / 3; the exponent in double as TF computes it */
      const float sigma = 1.5f / 3.0f;
      return x >= 1.5f ? 0 : (float)exp(-x * x / (2.0 * sigma * sigma));
    }
    case SK_KEYS:
      if (x >= 2) return 0;
      if (x >= 1) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case SK_MITCHELL:
      if (x >= 2) return 0;
      if (x >= 1) return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x + 16.0f / 9.0f;
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
    default:   /* box */
      if (x < 0.5f) return 1;
      return x == 0.5f ? 0.5f : 0;
  }
}

/* The taps of ScaleAndTranslate along one axis: output o samples the input at (o + 0.5) / scale - translate / scale,
 * with the kernel widened by 1 / scale when antialiasing a reduction; weights renormalised to sum 1. */
static void taps_scaled(Taps *t, int kernel, tfs_i64 in, tfs_i64 out, float scale, float translate, bool antialias) {
  float inv = 1.0f / scale, inv_t = -inv * translate, ks = antialias && inv > 1 ? inv : 1.0f, r = sk_radius[kernel];
  tfs_i64 span = 2 * (tfs_i64)ceilf(r * ks) + 1;
  t->k = (int)(span < in ? span : in);
  taps_alloc(t, out);
  for (tfs_i64 o = 0; o < out; o++) {
    float at = ((float)o + 0.5f) * inv + inv_t;
    if (at < 0 || at > (float)in) continue;   /* outside the image: all weights zero */
    tfs_i64 a = (tfs_i64)ceilf(at - r * ks - 0.5f), b = (tfs_i64)floorf(at + r * ks - 0.5f);
    a = bound(a, in);
    b = bound(b, in) + 1;
    double *w = t->w + o * t->k, sum = 0;
    int n = 0;
    for (tfs_i64 i = a; i < b && n < t->k; i++, n++) {
      t->idx[o * t->k + n] = i;
      w[n] = sk_value(kernel, ((float)i + 0.5f - at) / ks);
      sum += (float)w[n];
    }
    if (fabs(sum) >= 1000.0 * 1.17549435e-38)
      for (int j = 0; j < n; j++) w[j] = (float)w[j] * (1.0f / (float)sum);
  }
}

static void taps_free(Taps *t) {
  free(t->idx);
  free(t->w);
}

/* dst[b, o, r, c] = sum_j w[o, j] * src[b, idx[o, j], r, c]  over a [B, n, R*C] layout (forward), or
 * dst[b, idx[o, j], r] += w[o, j] * src[b, o, r] (transpose: the gradient).  rc = R*C contiguous values. */
static void taps_apply(const Taps *t, const double *src, double *dst, tfs_i64 B, tfs_i64 nin, tfs_i64 nout, tfs_i64 rc,
                       bool transpose) {
  if (transpose) memset(dst, 0, sizeof *dst * (size_t)(B * nin * rc));
  for (tfs_i64 b = 0; b < B; b++)
    for (tfs_i64 o = 0; o < nout; o++) {
      for (int j = 0; j < t->k; j++) {
        double w = t->w[o * t->k + j];
        tfs_i64 i = t->idx[o * t->k + j];
        if (transpose) {
          const double *restrict s = src + (b * nout + o) * rc;
          double *restrict d = dst + (b * nin + i) * rc;
          if (w != 0)
            for (tfs_i64 r = 0; r < rc; r++) d[r] += w * s[r];
        } else {
          const double *restrict s = src + (b * nin + i) * rc;
          double *restrict d = dst + (b * nout + o) * rc;
          if (j == 0)
            for (tfs_i64 r = 0; r < rc; r++) d[r] = w * s[r];
          else if (w != 0)
            for (tfs_i64 r = 0; r < rc; r++) d[r] += w * s[r];
        }
      }
    }
}

/* The forward pass over a slice of the output rows: each row of the height pass ([W, C] from its taps' input
 * rows), then that row's columns through the width taps.  Parts own whole output rows (threads.c). */
typedef struct RowJob {
  const Taps *th, *tw;
  const double *x;
  double *mid;   /* per part, one [W, C] row */
  float *y;      /* the float32 output */
  tfs_i64 B, H, W, C, OH, OW;
} RowJob;

static void rows_part(void *ctx, int part, int nparts) {
  const RowJob *j = ctx;
  tfs_i64 r0, r1, W = j->W, C = j->C, rc = W * C, kh = j->th->k, kw = j->tw->k;
  tp_slice(j->B * j->OH, part, nparts, &r0, &r1);
  double *restrict m = j->mid + part * rc;
  for (tfs_i64 r = r0; r < r1; r++) {
    tfs_i64 b = r / j->OH, o = r % j->OH;
    for (int t = 0; t < kh; t++) {
      double w = j->th->w[o * kh + t];
      const double *restrict s = j->x + (b * j->H + j->th->idx[o * kh + t]) * rc;
      if (t == 0)
        for (tfs_i64 i = 0; i < rc; i++) m[i] = w * s[i];
      else
        for (tfs_i64 i = 0; i < rc; i++) m[i] += w * s[i];
    }
    float *restrict d = j->y + r * j->OW * C;
    for (tfs_i64 ox = 0; ox < j->OW; ox++) {
      const tfs_i64 *ix = j->tw->idx + ox * kw;
      const double *wt = j->tw->w + ox * kw;
      for (tfs_i64 c = 0; c < C; c++) {
        double acc = 0;
        for (int t = 0; t < kw; t++) acc += wt[t] * m[ix[t] * C + c];
        d[ox * C + c] = (float)acc;
      }
    }
  }
}

/* The [height, width] of a size attribute: 2 positive ints. */
static void resize_size(OpCall *c, int attr, tfs_i64 *h, tfs_i64 *w) {
  tfs_i64 d[TFS_MAX_RANK];
  Val v = op_attr(c, attr);
  Tensor *t = val_as_tensor(v);
  if (t && t->sym) op_fail(c, ERR_UNIMPLEMENTED, "%s: the size must be known while tracing (a Python list or a constant)", c->op->graph_name);
  if (t && t->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "shape_t must be 1-dimensional");
  int r = val_to_dims(v, d, false, "size");
  if (r != 2) op_fail(c, ERR_INVALID_ARGUMENT, "shape_t must have two elements");
  *h = d[0];
  *w = d[1];
  if (*h <= 0 || *w <= 0) op_fail(c, ERR_INVALID_ARGUMENT, "output dimensions must be positive");
}

static void image4(OpCall *c, const TMeta *m) {
  if (m->rank != 4 && m->rank >= 0) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "input must be 4-dimensional");
    op_shape_text(&b, m->rank, m->shape);
    /* errindex: input must be 4-dimensional… */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
}

/* ScaleAndTranslate's scale and translation (2 floats each, scale > 0) and kernel_type, from attribute `first` on. */
static int scale_attrs(OpCall *c, int first, double *sc, double *tr) {
  for (int a = 0; a < 2; a++) {
    Val v = op_attr(c, first + a);
    Tensor *t = val_as_tensor(v);
    double *d = a ? tr : sc;
    if (t && t->rank == 1 && t->size == 2 && t->dtype != DT_STRING && !t->sym) {
      d[0] = tensor_get_f(t, 0);
      d[1] = tensor_get_f(t, 1);
    } else if ((val_is(v, &list_type) && ((List *)v.u.o)->len == 2) || (val_is(v, &tuple_type) && ((Tuple *)v.u.o)->len == 2)) {
      Val *it = val_is(v, &list_type) ? ((List *)v.u.o)->items : ((Tuple *)v.u.o)->items;
      for (int i = 0; i < 2; i++) {
        if (it[i].tag == VT_FLOAT) d[i] = it[i].u.f;
        else if (it[i].tag == VT_INT) d[i] = (double)it[i].u.i;
        else op_fail(c, ERR_INVALID_ARGUMENT, "%s must be 2 floats", a ? "translation" : "scale");
      }
    } else {
      op_fail(c, ERR_INVALID_ARGUMENT, "%s must be a 1-D tensor of 2 floats", a ? "translation" : "scale");
    }
  }
  if (!(sc[0] > 0 && sc[1] > 0))
    op_fail(c, ERR_INVALID_ARGUMENT, "Scale must be greater than zero.");
  Val k = op_attr(c, first + 2);
  const char *name = val_is(k, &str_type) ? str_cstr(k) : k.tag == VT_UNDEF ? "lanczos3" : "";
  for (int i = 0; i < SK__N; i++)
    if (!strcmp(name, sk_names[i])) return i;
  op_fail(c, ERR_INVALID_ARGUMENT, "Unrecognized kernel type: %s", name);
}

/* shape: [batch, size[0], size[1], channels]; float32 (ResizeNearestNeighbor: the images' dtype). */
void meta_resize(OpCall *c) {
  const TMeta *x = &c->inm[0];
  image4(c, x);
  tfs_i64 h, w;
  resize_size(c, 0, &h, &w);
  if (x->rank == 4 && (x->shape[1] == 0 || x->shape[2] == 0))
    op_fail(c, ERR_INVALID_ARGUMENT, "input image must be of non-zero size");
  tfs_i64 shape[4] = {x->rank == 4 ? x->shape[0] : -1, h, w, x->rank == 4 ? x->shape[3] : -1};
  meta_set(&c->outm[0], c->op->id == OP_RESIZE_NEAREST ? x->dtype : DT_FLOAT32, 4, shape);
}

/* shape: the original image's [batch, height, width, channels] (ResizeNearestNeighborGrad: [batch, size, channels]). */
void meta_resize_grad(OpCall *c) {
  const TMeta *dy = &c->inm[0];
  image4(c, dy);
  if (c->op->id == OP_RESIZE_NEAREST_GRAD) {
    tfs_i64 h, w;
    resize_size(c, 0, &h, &w);
    tfs_i64 shape[4] = {dy->rank == 4 ? dy->shape[0] : -1, h, w, dy->rank == 4 ? dy->shape[3] : -1};
    meta_set(&c->outm[0], dy->dtype, 4, shape);
  } else {
    image4(c, &c->inm[1]);
    c->outm[0] = c->inm[1];
  }
}

static Tensor *as_f64(Tensor *t) {
  Tensor *d = tensor_new(DT_FLOAT64, t->rank, t->shape);
  ew_cast(d, t);
  return d;
}

/* Resize (forward) or its transpose (gradient): x [B, H, W, C] -> y [B, OH, OW, C] through the taps of both axes. */
static void resize_run(OpCall *c, Tensor *x, Tensor *y, bool grad, bool align, bool half) {
  int method = resize_method(c->op->id);
  Tensor *big = grad ? y : x, *small = grad ? x : y;   /* small: the resized side */
  tfs_i64 B = big->shape[0], H = big->shape[1], W = big->shape[2], C = big->shape[3];
  tfs_i64 OH = small->shape[1], OW = small->shape[2];
  if (B * C == 0 || H * W == 0 || OH * OW == 0) {
    if (y->size) ew_fill(y, 0, 0);
    return;
  }
  Taps th, tw;
  if (method == RS_SCALE) {
    int first = grad ? 0 : 1;   /* ScaleAndTranslate's attributes start with size; its gradient's do not */
    double sc[2], tr[2];
    int kernel = scale_attrs(c, first, sc, tr);
    bool aa = op_attr_bool(c, first + 3, true);
    taps_scaled(&th, kernel, H, OH, (float)sc[0], (float)tr[0], aa);
    taps_scaled(&tw, kernel, W, OW, (float)sc[1], (float)tr[1], aa);
  } else {
    taps_make(&th, method, H, OH, align, half);
    taps_make(&tw, method, W, OW, align, half);
  }
  Tensor *xd = as_f64(x);
  double *xs = tensor_data(xd);
  if (!grad) {
    /* rows straight into the float32 output (as TF's kernels write float); each part its own [W, C] row */
    int nparts = tp_parts(B * OH * OW * C, TP_EW_MIN_PART);
    double *scratch = malloc(sizeof(double) * (size_t)(nparts * W * C));
    if (!scratch) {
      tensor_release(xd);
      taps_free(&th);
      taps_free(&tw);
      rt_throw(ERR_MEMORY, "out of memory");
    }
    RowJob rj = {&th, &tw, xs, scratch, tensor_data(y), B, H, W, C, OH, OW};
    tp_run(nparts, rows_part, &rj);
    free(scratch);
  } else {
    Tensor *mid = tensor_new(DT_FLOAT64, 4, (tfs_i64[4]){B, OH, W, C});
    Tensor *yd = tensor_new(DT_FLOAT64, 4, y->shape);
    double *ms = tensor_data(mid), *ys = tensor_data(yd);
    for (tfs_i64 r = 0; r < B * OH; r++)
      taps_apply(&tw, xs + r * OW * C, ms + r * W * C, 1, W, OW, C, true);
    taps_apply(&th, ms, ys, B, H, OH, W * C, true);
    ew_cast(y, yd);
    tensor_release(mid);
    tensor_release(yd);
  }
  tensor_release(xd);
  taps_free(&th);
  taps_free(&tw);
}

/* Nearest neighbour forward: a gather that keeps the dtype (and int64 values exactly). */
static void nearest_run(OpCall *c, Tensor *x, Tensor *y, bool align, bool half) {
  tfs_i64 B = x->shape[0], H = x->shape[1], W = x->shape[2], C = x->shape[3], OH = y->shape[1], OW = y->shape[2];
  if (!y->size) return;
  Taps th, tw;
  taps_make(&th, RS_NEAREST, H, OH, align, half);
  taps_make(&tw, RS_NEAREST, W, OW, align, half);
  size_t es = (size_t)dtype_info[x->dtype].size;
  const char *xs = tensor_data(x);
  char *ys = tensor_data(y);
  for (tfs_i64 b = 0; b < B; b++)
    for (tfs_i64 oy = 0; oy < OH; oy++)
      for (tfs_i64 ox = 0; ox < OW; ox++)
        memcpy(ys + (size_t)(((b * OH + oy) * OW + ox) * C) * es,
               xs + (size_t)(((b * H + th.idx[oy]) * W + tw.idx[ox]) * C) * es, es * (size_t)C);
  (void)c;
  taps_free(&th);
  taps_free(&tw);
}

void k_resize(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(x));
  bool scaled = c->op->id == OP_SCALE_TRANSLATE;
  bool align = !scaled && op_attr_bool(c, 1, false), half = !scaled && c->op->id != OP_RESIZE_AREA && op_attr_bool(c, 2, false);
  if (align && half) op_fail(c, ERR_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.");
  if (c->op->id == OP_RESIZE_NEAREST) nearest_run(c, x, c->out[0], align, half);
  else resize_run(c, x, c->out[0], false, align, half);
  rt_unhold(mark);
  tensor_release(x);
}

void k_resize_grad(OpCall *c) {
  Tensor *dy = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(dy));
  bool scaled = c->op->id == OP_SCALE_TRANSLATE_GRAD;
  int first = c->op->id == OP_RESIZE_NEAREST_GRAD ? 1 : 0;
  bool align = !scaled && op_attr_bool(c, first, false), half = !scaled && op_attr_bool(c, first + 1, false);
  if (align && half) op_fail(c, ERR_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.");
  resize_run(c, dy, c->out[0], true, align, half);
  rt_unhold(mark);
  tensor_release(dy);
}

/* ---- ImageProjectiveTransformV3 (TF's image_ops.h ProjectiveGenerator) ------------------------------------------
 * Output pixel (x, y) of image b samples the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x +
 * c1 y + 1, with the 8 numbers of transforms[b] (or transforms[0] for all); a coordinate outside the image is mapped
 * by the fill mode, then read by nearest (std::round) or bilinear interpolation, a read outside giving fill_value.
 * float32 arithmetic throughout as TF's kernel (float64 images: the reads and sums in double).  TF truncates with
 * int casts; truncf here gives the same values without the overflow a huge coordinate would make of the cast. */
enum { FM_REFLECT, FM_WRAP, FM_CONSTANT, FM_NEAREST };

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

static float map_coord(float c, tfs_i64 n, int mode) {
  float len = (float)n;
  if (mode == FM_REFLECT) {
    if (c < 0) {
      if (n <= 1) c = 0;
      else {
        float sz2 = 2 * len;
        if (c < sz2) c = sz2 * truncf(-c / sz2) + c;
        c = c < -len ? c + sz2 : -c - 1;
      }
    } else if (c > len - 1) {
      if (n <= 1) c = 0;
      else {
        float sz2 = 2 * len;
        c -= sz2 * truncf(c / sz2);
        if (c >= len) c = sz2 - c - 1;
      }
    }
    return clampf(c, 0.0f, len - 1);
  }
  if (mode == FM_WRAP) {
    if (c < 0) {
      if (n <= 1) c = 0;
      else {
        float sz = len - 1;
        c += len * (truncf(-c / sz) + 1);
      }
    } else if (c > len - 1) {
      if (n <= 1) c = 0;
      else {
        float sz = len - 1;
        c -= len * truncf(c / sz);
      }
    }
    return clampf(c, 0.0f, len - 1);
  }
  if (mode == FM_NEAREST) return clampf(c, 0.0f, len - 1);
  return c;   /* constant: reads outside give fill_value */
}

typedef struct Proj {
  const Tensor *x;
  tfs_i64 H, W, C;
  double fill;
} Proj;

static double proj_read(const Proj *p, tfs_i64 b, float yf, float xf, tfs_i64 ch) {
  /* TF casts the float coordinate to an index (toward zero): inside the image exactly when -1 < v < n */
  if (!(yf > -1.0f && yf < (float)p->H && xf > -1.0f && xf < (float)p->W)) return p->fill;
  tfs_i64 y = (tfs_i64)yf, x = (tfs_i64)xf;
  return tensor_get_f(p->x, ((b * p->H + y) * p->W + x) * p->C + ch);
}

static double proj_bilinear(const Proj *p, tfs_i64 b, float y, float x, tfs_i64 ch, bool f64) {
  float y0 = floorf(y), x0 = floorf(x), y1 = y0 + 1, x1 = x0 + 1;
  if (f64) {
    double top = (double)(x1 - x) * proj_read(p, b, y0, x0, ch) + (double)(x - x0) * proj_read(p, b, y0, x1, ch);
    double bot = (double)(x1 - x) * proj_read(p, b, y1, x0, ch) + (double)(x - x0) * proj_read(p, b, y1, x1, ch);
    return (double)(y1 - y) * top + (double)(y - y0) * bot;
  }
  float top = (x1 - x) * (float)proj_read(p, b, y0, x0, ch) + (x - x0) * (float)proj_read(p, b, y0, x1, ch);
  float bot = (x1 - x) * (float)proj_read(p, b, y1, x0, ch) + (x - x0) * (float)proj_read(p, b, y1, x1, ch);
  return (double)((y1 - y) * top + (y - y0) * bot);
}

static int proj_choice(OpCall *c, int attr, const char *const *names, int n, const char *what) {
  Val v = op_attr(c, attr);
  const char *s = val_is(v, &str_type) ? str_cstr(v) : NULL;
  if (!s && (v.tag == VT_UNDEF || v.tag == VT_NONE) && attr == 3) return FM_CONSTANT;
  for (int i = 0; s && i < n; i++)
    if (!strcmp(s, names[i])) return i;
  op_fail(c, ERR_INVALID_ARGUMENT, "ImageProjectiveTransformV3: %s must be one of %s, got '%s'", what,
          attr == 3 ? "REFLECT, WRAP, CONSTANT, NEAREST" : "NEAREST, BILINEAR", s ? s : "(not a string)");
}

/* shape: [batch, output_shape[0], output_shape[1], channels], the images' dtype; transforms [1 or batch, 8]. */
void meta_proj_transform(OpCall *c) {
  const TMeta *x = &c->inm[0], *t = &c->inm[1];
  image4(c, x);
  if (t->rank >= 0 && (t->rank != 2 || (t->shape[1] >= 0 && t->shape[1] != 8)))
    op_fail(c, ERR_INVALID_ARGUMENT, "Input transform should be num_images x 8");
  if (t->dtype != DT_FLOAT32) op_fail(c, ERR_INVALID_ARGUMENT, "transforms must be float32");
  tfs_i64 h, w;
  resize_size(c, 0, &h, &w);
  tfs_i64 shape[4] = {x->rank == 4 ? x->shape[0] : -1, h, w, x->rank == 4 ? x->shape[3] : -1};
  meta_set(&c->outm[0], x->dtype, 4, shape);
}

void k_proj_transform(OpCall *c) {
  static const char *const modes[] = {"REFLECT", "WRAP", "CONSTANT", "NEAREST"};
  static const char *const interps[] = {"NEAREST", "BILINEAR"};
  Tensor *x = tensor_contiguous(c->in[0]), *tr = tensor_contiguous(c->in[1]);
  int mark = rt_hold_val(val_obj(x));
  rt_hold_val(val_obj(tr));
  int interp = proj_choice(c, 2, interps, 2, "interpolation");
  int mode = proj_choice(c, 3, modes, 4, "fill_mode");
  Tensor *y = c->out[0];
  tfs_i64 B = x->shape[0], OH = y->shape[1], OW = y->shape[2];
  Proj p = {x, x->shape[1], x->shape[2], x->shape[3], 0};
  if (tr->shape[0] != 1 && tr->shape[0] != B)
    op_fail(c, ERR_INVALID_ARGUMENT, "Input transform should be num_images x 8");
  /* TF casts fill_value to the image dtype before any read */
  double fill = op_attr_float(c, 1, 0.0);
  Tensor *fv = tensor_new(x->dtype, 0, NULL);
  ew_fill(fv, fill, (tfs_i64)fill);
  p.fill = tensor_get_f(fv, 0);
  tensor_release(fv);
  bool f64 = x->dtype == DT_FLOAT64;
  const float *T = tensor_data(tr);
  Tensor *yd = tensor_new(DT_FLOAT64, 4, y->shape);   /* the values as computed; cast to the dtype as TF's T(v) */
  double *out = tensor_data(yd);
  for (tfs_i64 b = 0; b < B; b++) {
    const float *t = T + (tr->shape[0] == 1 ? 0 : b * 8);
    for (tfs_i64 oy = 0; oy < OH; oy++)
      for (tfs_i64 ox = 0; ox < OW; ox++) {
        float fx = (float)ox, fy = (float)oy;
        float k = t[6] * fx + t[7] * fy + 1.f;
        tfs_i64 at = ((b * OH + oy) * OW + ox) * p.C;
        if (k == 0) {
          for (tfs_i64 ch = 0; ch < p.C; ch++) out[at + ch] = p.fill;
          continue;
        }
        float ix = (t[0] * fx + t[1] * fy + t[2]) / k, iy = (t[3] * fx + t[4] * fy + t[5]) / k;
        float mx = map_coord(ix, p.W, mode), my = map_coord(iy, p.H, mode);
        for (tfs_i64 ch = 0; ch < p.C; ch++) {
          out[at + ch] = interp == 0 ? proj_read(&p, b, roundf(my), roundf(mx), ch) : proj_bilinear(&p, b, my, mx, ch, f64);
        }
      }
  }
  ew_cast(y, yd);
  tensor_release(yd);
  rt_unhold(mark);
  tensor_release(x);
  tensor_release(tr);
}
