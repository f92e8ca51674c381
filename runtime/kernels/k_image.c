/* k_image.c — image resizing over NHWC (ResizeBilinear/NearestNeighbor/Bicubic/Area) and its gradients, as TF's CPU kernels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"

/* Every method is separable: an output row (column) is a weighted sum of a few input rows (columns).  One
 * axis's taps: for output o, k taps (idx[o*k + j], w[o*k + j]); the forward pass applies the taps of the
 * height then the width, the gradient scatters through the same taps (their transpose). */
typedef struct Taps {
  int k;
  tfs_i64 *idx;
  double *w;
} Taps;

enum { RS_BILINEAR, RS_NEAREST, RS_BICUBIC, RS_AREA };

static int resize_method(OpId id) {
  switch (id) {
    case OP_RESIZE_NEAREST: case OP_RESIZE_NEAREST_GRAD: return RS_NEAREST;
    case OP_RESIZE_BICUBIC: case OP_RESIZE_BICUBIC_GRAD: return RS_BICUBIC;
    case OP_RESIZE_AREA: return RS_AREA;
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

/* The taps of one axis resized from `in` to `out` elements. */
static void taps_make(Taps *t, int method, tfs_i64 in, tfs_i64 out, bool align, bool half) {
  float scale = resize_scale(in, out, align);
  t->k = method == RS_NEAREST ? 1 : method == RS_BILINEAR ? 2 : method == RS_BICUBIC ? 4 : (int)ceil(scale) + 2;
  t->idx = calloc((size_t)(out * t->k) + 1, sizeof *t->idx);
  t->w = calloc((size_t)(out * t->k) + 1, sizeof *t->w);
  if (!t->idx || !t->w) {
    free(t->idx);
    free(t->w);
    rt_throw(ERR_MEMORY, "out of memory");
  }
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

/* The [height, width] of a size attribute: 2 positive ints. */
static void resize_size(OpCall *c, int attr, tfs_i64 *h, tfs_i64 *w) {
  tfs_i64 d[TFS_MAX_RANK];
  Val v = op_attr(c, attr);
  Tensor *t = val_as_tensor(v);
  if (t && t->sym) op_fail(c, ERR_UNIMPLEMENTED, "%s: the size must be known while tracing (a Python list or a constant)", c->op->graph_name);
  if (t && t->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "shape_t must be 1-dimensional%s", "");
  int r = val_to_dims(v, d, false, "size");
  if (r != 2) op_fail(c, ERR_INVALID_ARGUMENT, "shape_t must have two elements%s", "");
  *h = d[0];
  *w = d[1];
  if (*h <= 0 || *w <= 0) op_fail(c, ERR_INVALID_ARGUMENT, "output dimensions must be positive%s", "");
}

static void image4(OpCall *c, const TMeta *m) {
  if (m->rank != 4 && m->rank >= 0) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "input must be 4-dimensional");
    op_shape_text(&b, m->rank, m->shape);
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
}

/* shape: [batch, size[0], size[1], channels]; float32 (ResizeNearestNeighbor: the images' dtype). */
void meta_resize(OpCall *c) {
  const TMeta *x = &c->inm[0];
  image4(c, x);
  tfs_i64 h, w;
  resize_size(c, 0, &h, &w);
  if (x->rank == 4 && (x->shape[1] == 0 || x->shape[2] == 0))
    op_fail(c, ERR_INVALID_ARGUMENT, "input image must be of non-zero size%s", "");
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
  taps_make(&th, method, H, OH, align, half);
  taps_make(&tw, method, W, OW, align, half);
  Tensor *xd = as_f64(x);
  Tensor *mid = tensor_new(DT_FLOAT64, 4, (tfs_i64[4]){B, grad ? OH : OH, W, C});
  Tensor *yd = tensor_new(DT_FLOAT64, 4, y->shape);
  double *xs = tensor_data(xd), *ms = tensor_data(mid), *ys = tensor_data(yd);
  if (!grad) {
    taps_apply(&th, xs, ms, B, H, OH, W * C, false);           /* rows: [B, H, W*C] -> [B, OH, W*C] */
    for (tfs_i64 r = 0; r < B * OH; r++)                       /* columns of each output row: [W, C] -> [OW, C] */
      taps_apply(&tw, ms + r * W * C, ys + r * OW * C, 1, W, OW, C, false);
  } else {
    for (tfs_i64 r = 0; r < B * OH; r++)
      taps_apply(&tw, xs + r * OW * C, ms + r * W * C, 1, W, OW, C, true);
    taps_apply(&th, ms, ys, B, H, OH, W * C, true);
  }
  ew_cast(y, yd);
  tensor_release(xd);
  tensor_release(mid);
  tensor_release(yd);
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
  bool align = op_attr_bool(c, 1, false), half = c->op->id != OP_RESIZE_AREA && op_attr_bool(c, 2, false);
  if (align && half) op_fail(c, ERR_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.");
  if (c->op->id == OP_RESIZE_NEAREST) nearest_run(c, x, c->out[0], align, half);
  else resize_run(c, x, c->out[0], false, align, half);
  rt_unhold(mark);
  tensor_release(x);
}

void k_resize_grad(OpCall *c) {
  Tensor *dy = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(dy));
  bool align = op_attr_bool(c, 1, false), half = op_attr_bool(c, 2, false);
  if (align && half) op_fail(c, ERR_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.");
  resize_run(c, dy, c->out[0], true, align, half);
  rt_unhold(mark);
  tensor_release(dy);
}
