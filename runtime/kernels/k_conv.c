/* k_conv.c — 2-D convolution and max pooling over NHWC tensors (Conv2D, MaxPool) and their gradient ops: shapes, and the pooling kernels (the convolutions run in k_conv_gemm.c). */
#pragma GCC optimize("O3")
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/conv.h"
#include "kernels/ops.h"

/* Scratch layout shared by every op here (meta -> kernel):
 * iscr[0..1] window (kh, kw), [2..3] strides, [4..5] top/left padding, [6..7] output (oh, ow), [8..9] dilations. */
enum { S_KH, S_KW, S_SH, S_SW, S_PT, S_PL, S_OH, S_OW, S_DH, S_DW, S_COUNT };
/* _FusedConv2D with a pooling: the pooling's geometry follows, in the same order (its dilations unused) */
enum { S_POOL = S_COUNT };

/* strides / ksize: an int, or a list of 1, 2 or 4 ints (N and C must then be 1). */
static void conv_pair(OpCall *c, int attr, const char *what, tfs_i64 *h, tfs_i64 *w) {
  Val v = op_attr(c, attr);
  tfs_i64 d[TFS_MAX_RANK];
  int r = val_to_dims(v, d, false, what);
  if (r == 1) *h = *w = d[0];
  else if (r == 2) *h = d[0], *w = d[1];
  else if (r == 4 && d[0] == 1 && d[3] == 1) *h = d[1], *w = d[2];
  else op_fail(c, ERR_INVALID_ARGUMENT, "%s must be an int or a list of 1, 2 or 4 ints (1 for the batch and channel dimensions)", what);
  if (*h < 1 || *w < 1) op_fail(c, ERR_INVALID_ARGUMENT, "%s must be positive, got [%lld, %lld]", what, (long long)*h, (long long)*w);
}

static bool conv_same(OpCall *c, int attr) {
  Val v = op_attr(c, attr);
  const char *s = val_is(v, &str_type) ? str_cstr(v) : "";
  if (!strcmp(s, "SAME")) return true;
  if (!strcmp(s, "VALID")) return false;
  op_fail(c, ERR_INVALID_ARGUMENT, "padding must be \"SAME\" or \"VALID\", got \"%s\"", s);
}

static void conv_channels_last(OpCall *c, int attr) {
  Val v = op_attr(c, attr);
  if (v.tag != VT_OBJ) return;
  if (!val_is(v, &str_type) || strcmp(str_cstr(v), "NHWC"))
    op_fail(c, ERR_UNIMPLEMENTED, "only the NHWC data_format is supported on CPU");
}

/* Output size and leading padding of one spatial dimension, as TF computes them. */
static void conv_dim(tfs_i64 in, tfs_i64 k, tfs_i64 s, bool same, tfs_i64 *out, tfs_i64 *pad) {
  if (in < 0) {
    *out = -1, *pad = 0;
    return;
  }
  *out = same ? (in + s - 1) / s : (in - k + s) / s;
  tfs_i64 total = (*out - 1) * s + k - in;
  *pad = same && total > 0 ? total / 2 : 0;
}

/* TF's rank check: "input must be 4-dimensional[28,28,1]". */
static void conv_need_4d(OpCall *c, const TMeta *m, const char *what) {
  if (m->rank < 0 || m->rank == 4) return;
  StrBuf s;
  sb_init(&s);
  sb_printf(&s, "%s must be 4-dimensional", what);
  op_shape_text(&s, m->rank, m->shape);
  /* errindex: … must be 4-dimensional… */
  op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
}

/* Window, strides, dilations (attribute dil_attr; -1: none, as pooling) padding and output dims for an NHWC input
 * meta; the 4-d check names the op's input.  A dilated window spans (k - 1) * d + 1 input cells. */
static void conv_geometry(OpCall *c, const TMeta *x, tfs_i64 kh, tfs_i64 kw, int strides_attr, int pad_attr, int dil_attr) {
  conv_need_4d(c, x, "input");
  tfs_i64 sh, sw, dh = 1, dw = 1;
  conv_pair(c, strides_attr, "strides", &sh, &sw);
  if (dil_attr >= 0 && op_attr(c, dil_attr).tag != VT_NONE && !val_is_undef(op_attr(c, dil_attr)))
    conv_pair(c, dil_attr, "dilations", &dh, &dw);
  bool same = conv_same(c, pad_attr);
  tfs_i64 ekh = (kh - 1) * dh + 1, ekw = (kw - 1) * dw + 1;
  tfs_i64 h = x->rank == 4 ? x->shape[1] : -1, w = x->rank == 4 ? x->shape[2] : -1;
  if (!same && ((h >= 0 && h < ekh) || (w >= 0 && w < ekw)))
    op_fail(c, ERR_INVALID_ARGUMENT, "Computed output size would be negative: the %lldx%lld input is smaller than the %lldx%lld window with padding VALID",
            (long long)h, (long long)w, (long long)ekh, (long long)ekw);
  c->iscr[S_KH] = kh, c->iscr[S_KW] = kw, c->iscr[S_SH] = sh, c->iscr[S_SW] = sw, c->iscr[S_DH] = dh, c->iscr[S_DW] = dw;
  conv_dim(h, ekh, sh, same, &c->iscr[S_OH], &c->iscr[S_PT]);
  conv_dim(w, ekw, sw, same, &c->iscr[S_OW], &c->iscr[S_PL]);
}

/* ---- Conv2D: input [N,H,W,C], filters [KH,KW,C,O] -> [N,OH,OW,O] ------------------------- */

/* shape: NHWC input [batch, height, width, in_channels] and HWIO filter [h, w, in_channels, out_channels] give [batch, out_height, out_width, out_channels], the spatial sizes set by strides and padding (SAME: ceil(in / stride); VALID: ceil((in - k + 1) / stride)). */
void meta_conv2d(OpCall *c) {
  const TMeta *x = &c->inm[0], *f = &c->inm[1];
  conv_channels_last(c, 2);
  conv_need_4d(c, f, "filter");
  if (f->rank < 0 || f->shape[0] < 0 || f->shape[1] < 0) op_fail(c, ERR_UNIMPLEMENTED, "conv2d needs a filter of known spatial size");
  conv_geometry(c, x, f->shape[0], f->shape[1], 0, 1, 3);
  if (x->rank == 4 && x->shape[3] >= 0 && f->shape[2] >= 0 && x->shape[3] != f->shape[2])
    op_fail(c, ERR_INVALID_ARGUMENT, "input depth must be evenly divisible by filter depth: %lld vs %lld", (long long)x->shape[3],
            (long long)f->shape[2]);
  tfs_i64 shape[4] = {x->rank == 4 ? x->shape[0] : -1, c->iscr[S_OH], c->iscr[S_OW], f->shape[3]};
  meta_set(&c->outm[0], x->dtype, 4, shape);
}

/* The op's geometry (meta scratch and shapes) for the GEMM kernels of k_conv_gemm.c. */
static ConvGeom conv_geom(const OpCall *c, const Tensor *x, const Tensor *f) {
  ConvGeom g = {x->dtype, x->shape[0], x->shape[1], x->shape[2], x->shape[3], f->shape[0], f->shape[1], f->shape[3],
                c->iscr[S_SH], c->iscr[S_SW], c->iscr[S_PT], c->iscr[S_PL], c->iscr[S_OH], c->iscr[S_OW], c->iscr[S_DH], c->iscr[S_DW]};
  return g;
}

/* Conv2D, or _FusedConv2D's (input, filters, bias) with the bias add and relu (activation == 1) applied to
 * each block of output rows while it is in cache. */
static bool fused_pooled(OpCall *c) { return c->op->id == OP_FUSED_CONV2D && op_attr(c, 5).tag != VT_NONE && !val_is_undef(op_attr(c, 5)); }

static void conv2d_run(OpCall *c, bool fused) {
  Tensor *x = tensor_contiguous(c->in[0]), *f = tensor_contiguous(c->in[1]);
  Tensor *b = fused ? tensor_contiguous(c->in[2]) : NULL;
  ConvGeom g = conv_geom(c, x, f);
  const tfs_i64 *ps = c->iscr + S_POOL;
  ConvPool pool = {ps[S_KH], ps[S_KW], ps[S_SH], ps[S_SW], ps[S_PT], ps[S_PL], ps[S_OH], ps[S_OW]};
  bool ok = conv_forward(&g, tensor_data(x), tensor_data(f), tensor_data(c->out[0]), b ? tensor_data(b) : NULL,
                         fused && op_attr_int(c, 4, 0) == 1, fused && fused_pooled(c) ? &pool : NULL);
  tensor_release(x);
  tensor_release(f);
  if (b) tensor_release(b);
  if (!ok) rt_throw(ERR_MEMORY, "out of memory");
}

void k_conv2d(OpCall *c) {
  if (op_run_half_as_f32(c, k_conv2d)) return;
  conv2d_run(c, false);
}

/* _FusedConv2D(input, filters, bias): the graph planner's Conv2D -> bias add [-> Relu], exactly the unfused
 * results (the same product, then one add and one max per element, as AddV2 and Relu compute them). */
/* shape: as tf.nn.conv2d, then as tf.nn.max_pool2d of that when pool_ksize is given; bias is a vector of the output channels. */
void meta_fused_conv2d(OpCall *c) {
  meta_conv2d(c);
  const TMeta *o = &c->outm[0], *bm = &c->inm[2];
  if (bm->rank != 1 || bm->dtype != o->dtype || (o->rank == 4 && o->shape[3] >= 0 && bm->shape[0] >= 0 && bm->shape[0] != o->shape[3]))
    op_fail(c, ERR_INVALID_ARGUMENT, "_FusedConv2D: bias must be a vector of the output channels");
  if (!fused_pooled(c)) return;
  /* the pooling's geometry over the convolution's output, kept after the convolution's own */
  TMeta conv_out = *o;
  tfs_i64 conv_scr[S_COUNT], kh, kw;
  memcpy(conv_scr, c->iscr, sizeof conv_scr);
  conv_pair(c, 5, "ksize", &kh, &kw);
  conv_geometry(c, &conv_out, kh, kw, 6, 7, -1);
  memcpy(c->iscr + S_POOL, c->iscr, sizeof conv_scr);
  memcpy(c->iscr, conv_scr, sizeof conv_scr);
  tfs_i64 shape[4] = {conv_out.shape[0], c->iscr[S_POOL + S_OH], c->iscr[S_POOL + S_OW], conv_out.shape[3]};
  meta_set(&c->outm[0], conv_out.dtype, 4, shape);
}

void k_fused_conv2d(OpCall *c) { conv2d_run(c, true); }

/* ---- the gradient ops: (input, filters, dy) -> d input / d filters --------------------------- */

/* The out_backprop of a gradient op must be the forward op's output, as TF's Conv2DCustomBackprop* check it
 * (conv2d_transpose reaches these ops with a user's tensors). */
static void conv_grad_check(OpCall *c, const TMeta *x, const TMeta *f, const TMeta *dy) {
  const char *op = c->op->id == OP_CONV2D_BP_INPUT ? "Conv2DCustomBackpropInput" : "Conv2DCustomBackpropFilter";
  if (f->rank >= 0 && f->rank != 4) op_fail(c, ERR_INVALID_ARGUMENT, "%s: filter must be 4-dimensional", op);
  if (dy->rank >= 0 && dy->rank != 4) op_fail(c, ERR_INVALID_ARGUMENT, "%s: out_backprop must be 4-dimensional", op);
  if (x->rank != 4 || f->rank != 4 || dy->rank != 4) return;
  if (x->shape[0] >= 0 && dy->shape[0] >= 0 && x->shape[0] != dy->shape[0])
    op_fail(c, ERR_INVALID_ARGUMENT, "%s: input and out_backprop must have the same batch size, input batch: %lld outbackprop batch: %lld",
            op, (long long)x->shape[0], (long long)dy->shape[0]);
  if (x->shape[3] >= 0 && f->shape[2] >= 0 && x->shape[3] != f->shape[2])
    op_fail(c, ERR_INVALID_ARGUMENT, "%s: input depth must be evenly divisible by filter depth", op);
  if (f->shape[3] >= 0 && dy->shape[3] >= 0 && f->shape[3] != dy->shape[3])
    op_fail(c, ERR_INVALID_ARGUMENT, "%s: filter and out_backprop must have the same out_depth", op);
  for (int d = 0; d < 2; d++) {
    tfs_i64 want = c->iscr[S_OH + d], got = dy->shape[1 + d];
    if (want >= 0 && got >= 0 && want != got)
      op_fail(c, ERR_INVALID_ARGUMENT, "%s: Size of out_backprop doesn't match computed: actual = %lld, computed = %lld spatial_dim: %d input: %lld filter: %lld output: %lld stride: %lld dilation: %lld",
              op, (long long)got, (long long)want, d + 1, (long long)x->shape[1 + d], (long long)f->shape[d], (long long)got,
              (long long)c->iscr[S_SH + d], (long long)c->iscr[S_DH + d]);
  }
}

/* shape: the shape of the input (or filter) the gradient is taken with respect to. */
void meta_conv2d_grad(OpCall *c) {
  const TMeta *x = &c->inm[0], *f = &c->inm[1];
  conv_geometry(c, x, f->rank == 4 ? f->shape[0] : 1, f->rank == 4 ? f->shape[1] : 1, 0, 1, 2);
  conv_grad_check(c, x, f, &c->inm[2]);
  c->outm[0] = c->op->id == OP_CONV2D_BP_INPUT ? *x : *f;
}

void k_conv2d_grad(OpCall *c) {
  if (op_run_half_as_f32(c, k_conv2d_grad)) return;
  Tensor *x = tensor_contiguous(c->in[0]), *f = tensor_contiguous(c->in[1]), *dy = tensor_contiguous(c->in[2]);
  ConvGeom g = conv_geom(c, x, f);
  void *out = tensor_data(c->out[0]);
  bool ok = c->op->id == OP_CONV2D_BP_INPUT ? conv_backward_input(&g, tensor_data(f), tensor_data(dy), out)
                                            : conv_backward_filter(&g, tensor_data(x), tensor_data(dy), out);
  tensor_release(x);
  tensor_release(f);
  tensor_release(dy);
  if (!ok) rt_throw(ERR_MEMORY, "out of memory");
}

/* ---- MaxPool: input [N,H,W,C] -> [N,OH,OW,C]; padded cells never win ------------------------------ */

/* shape: NHWC [batch, out_height, out_width, channels], the spatial sizes set by ksize, strides and padding as for tf.nn.conv2d. */
void meta_max_pool(OpCall *c) {
  const TMeta *x = &c->inm[0];
  conv_channels_last(c, 3);
  tfs_i64 kh, kw;
  conv_pair(c, 0, "ksize", &kh, &kw);
  conv_geometry(c, x, kh, kw, 1, 2, -1);
  tfs_i64 shape[4] = {x->rank == 4 ? x->shape[0] : -1, c->iscr[S_OH], c->iscr[S_OW], x->rank == 4 ? x->shape[3] : -1};
  meta_set(&c->outm[0], x->dtype, 4, shape);
}

/* The winner of each window: the first maximum in row-major window order (TF's CPU kernel).  Loops run
 * over the channels innermost (contiguous in NHWC, so they vectorise); parts own whole images. */
typedef struct {
  const OpCall *c;
  tfs_i64 N, H, W, C;
  const void *x, *dy;
  void *y, *dx;
  char *scratch;   /* per part, the gradient's winners: C values and C offsets */
} PoolJob;

#define POOL_T(T)                                                                                              \
  static void pool_part_##T(void *ctx, int part, int nparts) {                                                 \
    const PoolJob *p = ctx;                                                                                    \
    const tfs_i64 *s = p->c->iscr;                                                                             \
    tfs_i64 H = p->H, W = p->W, C = p->C, OH = s[S_OH], OW = s[S_OW], n0, n1;                                   \
    const T *x = p->x, *dy = p->dy;                                                                            \
    T *y = p->y, *dx = p->dx;                                                                                  \
    tfs_i64 *bi = (tfs_i64 *)(p->scratch + (size_t)part * (size_t)C * 16);   /* indexes first: 8-aligned */   \
    T *bv = (T *)(bi + C);                                                                                     \
    tp_slice(p->N, part, nparts, &n0, &n1);                                                                    \
    if (dx) memset(dx + n0 * H * W * C, 0, sizeof(T) * (size_t)((n1 - n0) * H * W * C));                        \
    for (tfs_i64 n = n0; n < n1; n++)                                                                          \
      for (tfs_i64 oy = 0; oy < OH; oy++)                                                                      \
        for (tfs_i64 ox = 0; ox < OW; ox++) {                                                                  \
          tfs_i64 o = ((n * OH + oy) * OW + ox) * C;                                                            \
          T *best = y ? y + o : bv;                                                                            \
          bool first = true;                                                                                   \
          for (tfs_i64 ky = 0; ky < s[S_KH]; ky++) {                                                            \
            tfs_i64 iy = oy * s[S_SH] + ky - s[S_PT];                                                           \
            if (iy < 0 || iy >= H) continue;                                                                    \
            for (tfs_i64 kx = 0; kx < s[S_KW]; kx++) {                                                          \
              tfs_i64 ix = ox * s[S_SW] + kx - s[S_PL];                                                         \
              if (ix < 0 || ix >= W) continue;                                                                  \
              tfs_i64 at = ((n * H + iy) * W + ix) * C;                                                         \
              const T *restrict v = x + at;                                                                     \
              T *restrict b = best;                                                                             \
              if (first) {                                                                                      \
                for (tfs_i64 ch = 0; ch < C; ch++) b[ch] = v[ch];                                               \
                if (dx)                                                                                         \
                  for (tfs_i64 ch = 0; ch < C; ch++) bi[ch] = at + ch;                                          \
                first = false;                                                                                  \
              } else if (!dx) {                                                                                 \
                for (tfs_i64 ch = 0; ch < C; ch++) b[ch] = v[ch] > b[ch] ? v[ch] : b[ch];                       \
              } else {                                                                                          \
                for (tfs_i64 ch = 0; ch < C; ch++)                                                              \
                  if (v[ch] > b[ch]) b[ch] = v[ch], bi[ch] = at + ch;                                           \
              }                                                                                                 \
            }                                                                                                   \
          }                                                                                                     \
          if (dx)                                                                                               \
            for (tfs_i64 ch = 0; ch < C; ch++) dx[bi[ch]] = dx[bi[ch]] + dy[o + ch];                            \
        }                                                                                                      \
  }
POOL_T(float)
POOL_T(double)

/* Either pass over an NHWC input: y = max pool (dy, dx NULL) or dx = its gradient for dy (y NULL). */
static void pool_run(const OpCall *c, const Tensor *x, void *y, const void *dy, void *dx) {
  PoolJob p = {c, x->shape[0], x->shape[1], x->shape[2], x->shape[3], tensor_data((Tensor *)x), dy, y, dx, NULL};
  tfs_i64 per_image = c->iscr[S_OH] * c->iscr[S_OW] * c->iscr[S_KH] * c->iscr[S_KW] * p.C;
  int nparts = tp_parts(p.N, ((tfs_i64)1 << 16) / (per_image > 0 ? per_image : 1) + 1);
  p.scratch = malloc((size_t)nparts * (size_t)(p.C > 0 ? p.C : 1) * 16);
  if (!p.scratch) rt_throw(ERR_MEMORY, "out of memory");
  tp_run(nparts, x->dtype == DT_FLOAT32 ? pool_part_float : pool_part_double, &p);
  free(p.scratch);
}

void k_max_pool(OpCall *c) {
  if (op_run_half_as_f32(c, k_max_pool)) return;
  Tensor *x = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(x));
  pool_run(c, x, tensor_data(c->out[0]), NULL, NULL);
  rt_unhold(mark);
  tensor_release(x);
}

/* MaxPoolGrad(orig_input, grad, ksize, strides, padding): grad flows to each window's winner. */
/* shape: the pooled input's shape. */
void meta_max_pool_grad(OpCall *c) {
  const TMeta *x = &c->inm[0];
  tfs_i64 kh, kw;
  conv_pair(c, 0, "ksize", &kh, &kw);
  conv_geometry(c, x, kh, kw, 1, 2, -1);
  c->outm[0] = *x;
}

void k_max_pool_grad(OpCall *c) {
  if (op_run_half_as_f32(c, k_max_pool_grad)) return;
  Tensor *x = tensor_contiguous(c->in[0]), *dy = tensor_contiguous(c->in[1]);
  int mark = rt_hold_val(val_obj(x));
  rt_hold_val(val_obj(dy));
  pool_run(c, x, NULL, tensor_data(dy), tensor_data(c->out[0]));
  rt_unhold(mark);
  tensor_release(x);
  tensor_release(dy);
}
