/* k_conv.c — 2-D convolution and max pooling over NHWC tensors (Conv2D, MaxPool) and their gradient ops. */
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"

/* Scratch layout shared by every op here (meta -> kernel):
 * iscr[0..1] window (kh, kw), [2..3] strides, [4..5] top/left padding, [6..7] output (oh, ow). */
enum { S_KH, S_KW, S_SH, S_SW, S_PT, S_PL, S_OH, S_OW };

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

/* Window, strides, padding and output dims for an NHWC input meta; the 4-d check names the op's input. */
static void conv_geometry(OpCall *c, const TMeta *x, tfs_i64 kh, tfs_i64 kw, int strides_attr, int pad_attr) {
  conv_need_4d(c, x, "input");
  tfs_i64 sh, sw;
  conv_pair(c, strides_attr, "strides", &sh, &sw);
  bool same = conv_same(c, pad_attr);
  tfs_i64 h = x->rank == 4 ? x->shape[1] : -1, w = x->rank == 4 ? x->shape[2] : -1;
  if (!same && ((h >= 0 && h < kh) || (w >= 0 && w < kw)))
    op_fail(c, ERR_INVALID_ARGUMENT, "Computed output size would be negative: the %lldx%lld input is smaller than the %lldx%lld window with padding VALID",
            (long long)h, (long long)w, (long long)kh, (long long)kw);
  c->iscr[S_KH] = kh, c->iscr[S_KW] = kw, c->iscr[S_SH] = sh, c->iscr[S_SW] = sw;
  conv_dim(h, kh, sh, same, &c->iscr[S_OH], &c->iscr[S_PT]);
  conv_dim(w, kw, sw, same, &c->iscr[S_OW], &c->iscr[S_PL]);
}

/* ---- Conv2D: input [N,H,W,C], filters [KH,KW,C,O] -> [N,OH,OW,O] ------------------------- */

/* shape: NHWC input [batch, height, width, in_channels] and HWIO filter [h, w, in_channels, out_channels] give [batch, out_height, out_width, out_channels], the spatial sizes set by strides and padding (SAME: ceil(in / stride); VALID: ceil((in - k + 1) / stride)). */
void meta_conv2d(OpCall *c) {
  const TMeta *x = &c->inm[0], *f = &c->inm[1];
  conv_channels_last(c, 2);
  conv_need_4d(c, f, "filter");
  if (f->rank < 0 || f->shape[0] < 0 || f->shape[1] < 0) op_fail(c, ERR_UNIMPLEMENTED, "conv2d needs a filter of known spatial size");
  conv_geometry(c, x, f->shape[0], f->shape[1], 0, 1);
  if (x->rank == 4 && x->shape[3] >= 0 && f->shape[2] >= 0 && x->shape[3] != f->shape[2])
    op_fail(c, ERR_INVALID_ARGUMENT, "input depth must be evenly divisible by filter depth: %lld vs %lld", (long long)x->shape[3],
            (long long)f->shape[2]);
  tfs_i64 shape[4] = {x->rank == 4 ? x->shape[0] : -1, c->iscr[S_OH], c->iscr[S_OW], f->shape[3]};
  meta_set(&c->outm[0], x->dtype, 4, shape);
}

/* Runs BODY for every (output cell, window tap) pair whose input cell (iy, ix)
 * lies inside the image: padded cells contribute nothing. */
#define CONV_TAPS(c, N, H, W, BODY)                                                                            \
  for (tfs_i64 n = 0; n < (N); n++)                                                                            \
    for (tfs_i64 oy = 0; oy < (c)->iscr[S_OH]; oy++)                                                           \
      for (tfs_i64 ox = 0; ox < (c)->iscr[S_OW]; ox++)                                                         \
        for (tfs_i64 ky = 0; ky < (c)->iscr[S_KH]; ky++) {                                                     \
          tfs_i64 iy = oy * (c)->iscr[S_SH] + ky - (c)->iscr[S_PT];                                            \
          if (iy < 0 || iy >= (H)) continue;                                                                   \
          for (tfs_i64 kx = 0; kx < (c)->iscr[S_KW]; kx++) {                                                   \
            tfs_i64 ix = ox * (c)->iscr[S_SW] + kx - (c)->iscr[S_PL];                                          \
            if (ix < 0 || ix >= (W)) continue;                                                                 \
            tfs_i64 yo = ((n * (c)->iscr[S_OH] + oy) * (c)->iscr[S_OW] + ox) * O;                              \
            tfs_i64 xo = ((n * (H) + iy) * (W) + ix) * C, fo = (ky * (c)->iscr[S_KW] + kx) * C * O;            \
            BODY                                                                                               \
          }                                                                                                    \
        }

/* Each output sums over (ky, kx, ci) in that order, one multiply and one add per
 * term: the same bits on every machine.  The backward pass:
 * dx[n,iy,ix,ci] += dy[n,oy,ox,o] * f[ky,kx,ci,o]; df[ky,kx,ci,o] += x[n,iy,ix,ci] * dy[n,oy,ox,o]. */
#define CONV_T(T)                                                                                              \
  static void conv_fwd_##T(const OpCall *c, const T *x, const T *f, T *y, const tfs_i64 *xs, tfs_i64 O) {      \
    tfs_i64 N = xs[0], H = xs[1], W = xs[2], C = xs[3];                                                        \
    memset(y, 0, sizeof(T) * (size_t)(N * c->iscr[S_OH] * c->iscr[S_OW] * O));                                 \
    CONV_TAPS(c, N, H, W, {                                                                                    \
      for (tfs_i64 ci = 0; ci < C; ci++)                                                                       \
        for (tfs_i64 o = 0; o < O; o++) {                                                                      \
          T p = x[xo + ci] * f[fo + ci * O + o];                                                               \
          y[yo + o] = y[yo + o] + p;                                                                           \
        }                                                                                                      \
    })                                                                                                         \
  }                                                                                                            \
  static void conv_bwd_##T(const OpCall *c, const T *x, const T *f, const T *dy, T *dx, T *df, const tfs_i64 *xs, \
                           tfs_i64 O) {                                                                         \
    tfs_i64 N = xs[0], H = xs[1], W = xs[2], C = xs[3];                                                        \
    if (dx) memset(dx, 0, sizeof(T) * (size_t)(N * H * W * C));                                                 \
    if (df) memset(df, 0, sizeof(T) * (size_t)(c->iscr[S_KH] * c->iscr[S_KW] * C * O));                        \
    CONV_TAPS(c, N, H, W, {                                                                                    \
      for (tfs_i64 ci = 0; ci < C; ci++)                                                                       \
        for (tfs_i64 o = 0; o < O; o++) {                                                                      \
          if (dx) {                                                                                            \
            T p = dy[yo + o] * f[fo + ci * O + o];                                                             \
            dx[xo + ci] = dx[xo + ci] + p;                                                                     \
          }                                                                                                    \
          if (df) {                                                                                            \
            T p = x[xo + ci] * dy[yo + o];                                                                     \
            df[fo + ci * O + o] = df[fo + ci * O + o] + p;                                                     \
          }                                                                                                    \
        }                                                                                                      \
    })                                                                                                         \
  }
CONV_T(float)
CONV_T(double)

void k_conv2d(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]), *f = tensor_contiguous(c->in[1]);
  if (x->dtype == DT_FLOAT32) conv_fwd_float(c, tensor_data(x), tensor_data(f), tensor_data(c->out[0]), x->shape, f->shape[3]);
  else conv_fwd_double(c, tensor_data(x), tensor_data(f), tensor_data(c->out[0]), x->shape, f->shape[3]);
  tensor_release(x);
  tensor_release(f);
}

/* ---- the gradient ops: (input, filters, dy) -> d input / d filters --------------------------- */

/* shape: the shape of the input (or filter) the gradient is taken with respect to. */
void meta_conv2d_grad(OpCall *c) {
  const TMeta *x = &c->inm[0], *f = &c->inm[1];
  conv_geometry(c, x, f->shape[0], f->shape[1], 0, 1);
  c->outm[0] = c->op->id == OP_CONV2D_BP_INPUT ? *x : *f;
}

void k_conv2d_grad(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]), *f = tensor_contiguous(c->in[1]), *dy = tensor_contiguous(c->in[2]);
  bool want_x = c->op->id == OP_CONV2D_BP_INPUT;
  void *out = tensor_data(c->out[0]);
  if (x->dtype == DT_FLOAT32)
    conv_bwd_float(c, tensor_data(x), tensor_data(f), tensor_data(dy), want_x ? out : NULL, want_x ? NULL : out, x->shape, f->shape[3]);
  else
    conv_bwd_double(c, tensor_data(x), tensor_data(f), tensor_data(dy), want_x ? out : NULL, want_x ? NULL : out, x->shape, f->shape[3]);
  tensor_release(x);
  tensor_release(f);
  tensor_release(dy);
}

/* ---- MaxPool: input [N,H,W,C] -> [N,OH,OW,C]; padded cells never win ------------------------------ */

/* shape: NHWC [batch, out_height, out_width, channels], the spatial sizes set by ksize, strides and padding as for tf.nn.conv2d. */
void meta_max_pool(OpCall *c) {
  const TMeta *x = &c->inm[0];
  conv_channels_last(c, 3);
  tfs_i64 kh, kw;
  conv_pair(c, 0, "ksize", &kh, &kw);
  conv_geometry(c, x, kh, kw, 1, 2);
  tfs_i64 shape[4] = {x->rank == 4 ? x->shape[0] : -1, c->iscr[S_OH], c->iscr[S_OW], x->rank == 4 ? x->shape[3] : -1};
  meta_set(&c->outm[0], x->dtype, 4, shape);
}

/* The winner of each window: the first maximum in row-major window order (TF's CPU kernel). */
#define POOL_T(T)                                                                                              \
  static void pool_##T(const OpCall *c, const T *x, const tfs_i64 *xs, T *y, const T *dy, T *dx) {             \
    tfs_i64 N = xs[0], H = xs[1], W = xs[2], C = xs[3], OH = c->iscr[S_OH], OW = c->iscr[S_OW];                \
    if (dx) memset(dx, 0, sizeof(T) * (size_t)(N * H * W * C));                                                 \
    for (tfs_i64 n = 0; n < N; n++)                                                                            \
      for (tfs_i64 oy = 0; oy < OH; oy++)                                                                      \
        for (tfs_i64 ox = 0; ox < OW; ox++)                                                                    \
          for (tfs_i64 ch = 0; ch < C; ch++) {                                                                 \
            tfs_i64 best = -1;                                                                                  \
            for (tfs_i64 ky = 0; ky < c->iscr[S_KH]; ky++) {                                                    \
              tfs_i64 iy = oy * c->iscr[S_SH] + ky - c->iscr[S_PT];                                             \
              if (iy < 0 || iy >= H) continue;                                                                  \
              for (tfs_i64 kx = 0; kx < c->iscr[S_KW]; kx++) {                                                  \
                tfs_i64 ix = ox * c->iscr[S_SW] + kx - c->iscr[S_PL];                                           \
                if (ix < 0 || ix >= W) continue;                                                                \
                tfs_i64 at = ((n * H + iy) * W + ix) * C + ch;                                                  \
                if (best < 0 || x[at] > x[best]) best = at;                                                     \
              }                                                                                                 \
            }                                                                                                   \
            tfs_i64 o = ((n * OH + oy) * OW + ox) * C + ch;                                                     \
            if (y) y[o] = x[best];                                                                              \
            if (dx) dx[best] = dx[best] + dy[o];                                                                \
          }                                                                                                    \
  }
POOL_T(float)
POOL_T(double)

void k_max_pool(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]);
  if (x->dtype == DT_FLOAT32) pool_float(c, tensor_data(x), x->shape, tensor_data(c->out[0]), NULL, NULL);
  else pool_double(c, tensor_data(x), x->shape, tensor_data(c->out[0]), NULL, NULL);
  tensor_release(x);
}

/* MaxPoolGrad(orig_input, grad, ksize, strides, padding): grad flows to each window's winner. */
/* shape: the pooled input's shape. */
void meta_max_pool_grad(OpCall *c) {
  const TMeta *x = &c->inm[0];
  tfs_i64 kh, kw;
  conv_pair(c, 0, "ksize", &kh, &kw);
  conv_geometry(c, x, kh, kw, 1, 2);
  c->outm[0] = *x;
}

void k_max_pool_grad(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]), *dy = tensor_contiguous(c->in[1]);
  if (x->dtype == DT_FLOAT32) pool_float(c, tensor_data(x), x->shape, NULL, tensor_data(dy), tensor_data(c->out[0]));
  else pool_double(c, tensor_data(x), x->shape, NULL, tensor_data(dy), tensor_data(c->out[0]));
  tensor_release(x);
  tensor_release(dy);
}
