/* k_depthwise.c — depthwise 2-D convolution over NHWC (DepthwiseConv2dNative) and its two gradient ops: TF's shape checks, and loops over the channels compiled once per ISA path. */
#pragma GCC optimize("O3")
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/conv.h"
#include "kernels/isa.h"
#include "kernels/ops.h"

/* Attributes (every op here): strides, padding, explicit_paddings, data_format, dilations.  Scratch (meta ->
 * kernel): iscr[0..1] window, [2..3] strides, [4..5] top/left padding, [6..7] output size, [8..9] dilations. */
enum { A_STRIDES, A_PADDING, A_EXPLICIT, A_FORMAT, A_DILATIONS };
enum { S_KH, S_KW, S_SH, S_SW, S_PT, S_PL, S_OH, S_OW, S_DH, S_DW };

/* strides / dilations: an int, or 1, 2 or 4 ints (the batch and depth entries 1). */
static void dw_pair(OpCall *c, int attr, const char *what, tfs_i64 *h, tfs_i64 *w) {
  *h = *w = 1;
  if (!op_attr_given(c, attr)) return;
  tfs_i64 d[TFS_MAX_RANK];
  int r = val_to_dims(op_attr(c, attr), d, false, what);
  if (r == 0 || r == 1) *h = *w = d[0];
  else if (r == 2) *h = d[0], *w = d[1];
  else if (r == 4 && d[0] == 1 && d[3] == 1) *h = d[1], *w = d[2];
  else if (r == 4)
    op_fail(c, ERR_INVALID_ARGUMENT, "Current implementation does not yet support %s in the batch and depth dimensions.", what);
  else op_fail(c, ERR_INVALID_ARGUMENT, "Sliding window %s field must specify 4 dimensions", what);
  if (*h < 1 || *w < 1) op_fail(c, ERR_INVALID_ARGUMENT, "%s must be positive, got [%lld, %lld]", what, (long long)*h, (long long)*w);
}

/* padding "SAME" / "VALID" / "EXPLICIT" (then explicit_paddings: 8 ints, nonzero only for H and W). */
static int dw_padding(OpCall *c, tfs_i64 pads[4]) {
  Val v = op_attr(c, A_PADDING);
  const char *s = val_is(v, &str_type) ? str_cstr(v) : "";
  int mode = !strcmp(s, "VALID") ? 0 : !strcmp(s, "SAME") ? 1 : !strcmp(s, "EXPLICIT") ? 2 : -1;
  if (mode < 0) op_fail(c, ERR_INVALID_ARGUMENT, "padding must be \"SAME\", \"VALID\" or \"EXPLICIT\", got \"%s\"", s);
  /* a list of ints, read here (not as dims) so a negative entry gets TF's message below */
  int64_t e[8];
  tfs_i64 n = 0;
  const Val *items = NULL;
  if (op_attr_given(c, A_EXPLICIT) && !seq_items(op_attr(c, A_EXPLICIT), &n, &items))
    op_fail(c, ERR_INVALID_ARGUMENT, "explicit_paddings must be a list of ints");
  for (tfs_i64 i = 0; i < n && i < 8; i++)
    if (!val_as_int(items[i], &e[i])) op_fail(c, ERR_INVALID_ARGUMENT, "explicit_paddings must be a list of ints");
  if (mode != 2) {
    if (n != 0)
      op_fail(c, ERR_INVALID_ARGUMENT, "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    return mode;
  }
  if (n != 8) op_fail(c, ERR_INVALID_ARGUMENT, "explicit_paddings attribute must contain 8 values, but got: %lld", (long long)n);
  for (int i = 0; i < 8; i++)
    if (e[i] < 0) op_fail(c, ERR_INVALID_ARGUMENT, "All elements of explicit_paddings must be nonnegative, but element %d was %lld", i, (long long)e[i]);
  if (e[0] || e[1] || e[6] || e[7]) op_fail(c, ERR_INVALID_ARGUMENT, "Nonzero explicit padding in the batch or depth dimensions is not supported");
  for (int i = 0; i < 4; i++) pads[i] = e[2 + i];
  return mode;
}

/* TF's GetWindowedOutputSizeVerbose for one dimension: output size and leading padding. */
static void dw_dim(OpCall *c, tfs_i64 in, tfs_i64 ek, tfs_i64 s, int mode, const tfs_i64 *pad, tfs_i64 *out, tfs_i64 *lead) {
  if (in < 0) {
    *out = -1, *lead = mode == 2 ? pad[0] : 0;
    return;
  }
  if (mode == 1) {
    *out = (in + s - 1) / s;
    tfs_i64 total = (*out - 1) * s + ek - in;
    *lead = total > 0 ? total / 2 : 0;
    return;
  }
  tfs_i64 padded = mode == 2 ? in + pad[0] + pad[1] : in;
  *out = (padded - ek + s) / s;
  *lead = mode == 2 ? pad[0] : 0;
  if (*out < 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "Computed output size would be negative: %lld [input_size: %lld, effective_filter_size: %lld, stride: %lld]",
            (long long)*out, (long long)in, (long long)ek, (long long)s);
}

/* Window, strides, dilations, padding and output size of an NHWC input meta and [KH, KW, C, M] filter meta. */
static void dw_geometry(OpCall *c, const TMeta *x, const TMeta *f) {
  Val df = op_attr(c, A_FORMAT);
  if (df.tag == VT_OBJ && (!val_is(df, &str_type) || strcmp(str_cstr(df), "NHWC")))
    op_fail(c, ERR_UNIMPLEMENTED, "only the NHWC data_format is supported on CPU");
  tfs_i64 sh, sw, dh, dw, pads[4] = {0, 0, 0, 0};
  dw_pair(c, A_STRIDES, "strides", &sh, &sw);
  if (sh != sw) op_fail(c, ERR_INVALID_ARGUMENT, "Current implementation only supports equal length strides in the row and column dimensions.");
  dw_pair(c, A_DILATIONS, "dilations", &dh, &dw);
  int mode = dw_padding(c, pads);
  tfs_i64 kh = f->rank == 4 ? f->shape[0] : -1, kw = f->rank == 4 ? f->shape[1] : -1;
  /* an unknown input or filter size (a graph traced on None dims): an unknown output size */
  tfs_i64 h = x->rank == 4 && kh >= 0 ? x->shape[1] : -1, w = x->rank == 4 && kw >= 0 ? x->shape[2] : -1;
  c->iscr[S_KH] = kh, c->iscr[S_KW] = kw, c->iscr[S_SH] = sh, c->iscr[S_SW] = sw, c->iscr[S_DH] = dh, c->iscr[S_DW] = dw;
  dw_dim(c, h, (kh - 1) * dh + 1, sh, mode, pads, &c->iscr[S_OH], &c->iscr[S_PT]);
  dw_dim(c, w, (kw - 1) * dw + 1, sw, mode, pads + 2, &c->iscr[S_OW], &c->iscr[S_PL]);
}

static void dw_need_4d(OpCall *c, const TMeta *m, const char *what) {
  if (m->rank < 0 || m->rank == 4) return;
  StrBuf s;
  sb_init(&s);
  sb_printf(&s, "%s must be 4-dimensional%s", what, what[0] == 'f' ? ": " : "");
  op_shape_text(&s, m->rank, m->shape);
  /* errindex: … must be 4-dimensional… */
  op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
}

/* shape: NHWC input [batch, height, width, in_channels] and filter [h, w, in_channels, multiplier] give [batch, out_height, out_width, in_channels * multiplier], the spatial sizes set by strides, dilations and padding as for tf.nn.conv2d. */
void meta_depthwise(OpCall *c) {
  const TMeta *x = &c->inm[0], *f = &c->inm[1];
  dw_need_4d(c, x, "input");
  dw_need_4d(c, f, "filter");
  tfs_i64 cin = x->rank == 4 ? x->shape[3] : -1;
  if (cin >= 0 && f->rank == 4 && f->shape[2] >= 0 && cin != f->shape[2])
    op_fail(c, ERR_INVALID_ARGUMENT, "input and filter must have the same depth: %lld vs %lld", (long long)cin, (long long)f->shape[2]);
  dw_geometry(c, x, f);
  tfs_i64 m = f->rank == 4 ? f->shape[3] : -1;
  tfs_i64 shape[4] = {x->rank == 4 ? x->shape[0] : -1, c->iscr[S_OH], c->iscr[S_OW], cin >= 0 && m >= 0 ? cin * m : -1};
  meta_set(&c->outm[0], x->dtype, 4, shape);
}

/* shape: the shape of the input (or filter) the gradient is taken with respect to. */
void meta_depthwise_grad(OpCall *c) {
  const char *op = c->op->id == OP_DEPTHWISE_BP_INPUT ? "DepthwiseConv2DBackpropInput" : "DepthwiseConv2DBackpropFilter";
  const TMeta *x = &c->inm[0], *f = &c->inm[1], *dy = &c->inm[2];
  const char *names[3] = {"input", "filter", "out_backprop"};
  for (int i = 0; i < 3; i++)
    if (c->inm[i].rank >= 0 && c->inm[i].rank != 4) op_fail(c, ERR_INVALID_ARGUMENT, "%s: %s must be 4-dimensional", op, names[i]);
  dw_geometry(c, x, f);
  if (x->rank == 4 && dy->rank == 4) {
    if (x->shape[0] >= 0 && dy->shape[0] >= 0 && x->shape[0] != dy->shape[0])
      op_fail(c, ERR_INVALID_ARGUMENT, "%s: input and out_backprop must have the same batch size", op);
    if (x->shape[3] >= 0 && f->shape[2] >= 0 && x->shape[3] != f->shape[2])
      op_fail(c, ERR_INVALID_ARGUMENT, "%s: input and filter must have the same in_depth", op);
    if (x->shape[3] >= 0 && f->shape[3] >= 0 && dy->shape[3] >= 0 && x->shape[3] * f->shape[3] != dy->shape[3])
      op_fail(c, ERR_INVALID_ARGUMENT, "%s: depth_multiplier * in_depth not equal to out_depth", op);
    const char *dim[2] = {"rows", "cols"};
    for (int d = 0; d < 2; d++)
      if (c->iscr[S_OH + d] >= 0 && dy->shape[1 + d] >= 0 && c->iscr[S_OH + d] != dy->shape[1 + d])
        op_fail(c, ERR_INVALID_ARGUMENT, "%s: Number of %s of out_backprop doesn't match computed: actual = %lld, computed = %lld", op,
                dim[d], (long long)dy->shape[1 + d], (long long)c->iscr[S_OH + d]);
  }
  c->outm[0] = c->op->id == OP_DEPTHWISE_BP_INPUT ? *x : *f;
}

/* ---- the loops ----------------------------------------------------------------------------------------
 * Every output element is one sum, its terms added in a fixed order (taps row-major, then multiplier, then
 * the filter gradient's fixed row chunks in order), one multiply and one add each: fp-contract is off, so no
 * path fuses them and the innermost loops (over channels, contiguous in NHWC) vectorise without changing a
 * bit.  Threads split whole outputs, never a sum. */
typedef struct {
  const ConvGeom *g;
  tfs_i64 M;                    /* channel multiplier: O = C * M */
  const void *x, *f, *dy;
  void *out;
  tfs_i64 rows_per_chunk, nchunks;
  void *partial;                /* filter gradient: nchunks sums of [KH * KW * O] */
} DwJob;

/* acc[k] += a[k] * b[k] over the O = C * M channels, a read per input channel when M > 1. */
#define DW_LOOPS(T, SFX)                                                                                        \
  static inline void dw_madd_##T##SFX(T *restrict acc, const T *restrict a, const T *restrict b, tfs_i64 C, tfs_i64 M) { \
    if (M == 1)                                                                                                 \
      for (tfs_i64 k = 0; k < C; k++) acc[k] = acc[k] + a[k] * b[k];                                            \
    else                                                                                                        \
      for (tfs_i64 ch = 0; ch < C; ch++)                                                                        \
        for (tfs_i64 m = 0; m < M; m++) acc[ch * M + m] = acc[ch * M + m] + a[ch] * b[ch * M + m];              \
  }                                                                                                             \
  /* acc[c] += sum over m of a[c * M + m] * b[c * M + m], m in order */                                        \
  static inline void dw_mdot_##T##SFX(T *restrict acc, const T *restrict a, const T *restrict b, tfs_i64 C, tfs_i64 M) { \
    if (M == 1)                                                                                                 \
      for (tfs_i64 k = 0; k < C; k++) acc[k] = acc[k] + a[k] * b[k];                                            \
    else                                                                                                        \
      for (tfs_i64 ch = 0; ch < C; ch++)                                                                        \
        for (tfs_i64 m = 0; m < M; m++) acc[ch] = acc[ch] + a[ch * M + m] * b[ch * M + m];                      \
  }                                                                                                             \
  static void dw_fwd_##T##SFX(void *ctx, int part, int nparts) {                                                \
    const DwJob *j = ctx;                                                                                       \
    const ConvGeom *g = j->g;                                                                                   \
    const T *x = j->x, *f = j->f;                                                                               \
    T *y = j->out;                                                                                              \
    tfs_i64 r0, r1;                                                                                             \
    tp_slice(g->N * g->OH, part, nparts, &r0, &r1);                                                             \
    for (tfs_i64 r = r0; r < r1; r++) {                                                                         \
      tfs_i64 n = r / g->OH, oy = r % g->OH;                                                                    \
      for (tfs_i64 ox = 0; ox < g->OW; ox++) {                                                                  \
        T *yo = y + (r * g->OW + ox) * g->O;                                                                    \
        memset(yo, 0, sizeof(T) * (size_t)g->O);                                                                \
        for (tfs_i64 ky = 0; ky < g->KH; ky++) {                                                                \
          tfs_i64 iy = oy * g->SH + ky * g->DH - g->PT;                                                         \
          if (iy < 0 || iy >= g->H) continue;                                                                   \
          for (tfs_i64 kx = 0; kx < g->KW; kx++) {                                                              \
            tfs_i64 ix = ox * g->SW + kx * g->DW - g->PL;                                                       \
            if (ix < 0 || ix >= g->W) continue;                                                                 \
            dw_madd_##T##SFX(yo, x + ((n * g->H + iy) * g->W + ix) * g->C, f + (ky * g->KW + kx) * g->O, g->C, j->M); \
          }                                                                                                     \
        }                                                                                                       \
      }                                                                                                         \
    }                                                                                                           \
  }                                                                                                             \
  /* dx gathers the outputs each input cell fed: per cell the taps in order, then the multiplier */           \
  static void dw_bpi_##T##SFX(void *ctx, int part, int nparts) {                                                \
    const DwJob *j = ctx;                                                                                       \
    const ConvGeom *g = j->g;                                                                                   \
    const T *dy = j->dy, *f = j->f;                                                                             \
    T *dx = j->out;                                                                                             \
    tfs_i64 r0, r1, M = j->M;                                                                                   \
    tp_slice(g->N * g->H, part, nparts, &r0, &r1);                                                              \
    for (tfs_i64 r = r0; r < r1; r++) {                                                                         \
      tfs_i64 n = r / g->H, iy = r % g->H;                                                                      \
      for (tfs_i64 ix = 0; ix < g->W; ix++) {                                                                   \
        T *d = dx + (r * g->W + ix) * g->C;                                                                     \
        memset(d, 0, sizeof(T) * (size_t)g->C);                                                                 \
        for (tfs_i64 ky = 0; ky < g->KH; ky++) {                                                                \
          tfs_i64 ty = iy + g->PT - ky * g->DH, oy = ty / g->SH;                                                \
          if (ty < 0 || ty % g->SH || oy >= g->OH) continue;                                                    \
          for (tfs_i64 kx = 0; kx < g->KW; kx++) {                                                              \
            tfs_i64 tx = ix + g->PL - kx * g->DW, ox = tx / g->SW;                                              \
            if (tx < 0 || tx % g->SW || ox >= g->OW) continue;                                                  \
            dw_mdot_##T##SFX(d, dy + ((n * g->OH + oy) * g->OW + ox) * g->O, f + (ky * g->KW + kx) * g->O, g->C, M); \
          }                                                                                                     \
        }                                                                                                       \
      }                                                                                                         \
    }                                                                                                           \
  }                                                                                                             \
  /* the filter gradient of one fixed chunk of output rows, for every tap (its own partial sum) */             \
  static void dw_bpf_##T##SFX(void *ctx, int part, int nparts) {                                                \
    const DwJob *j = ctx;                                                                                       \
    const ConvGeom *g = j->g;                                                                                   \
    const T *x = j->x, *dy = j->dy;                                                                             \
    tfs_i64 taps = g->KH * g->KW, rows = g->N * g->OH, c0, c1;                                                  \
    tp_slice(j->nchunks, part, nparts, &c0, &c1);                                                               \
    for (tfs_i64 ck = c0; ck < c1; ck++) {                                                                      \
      T *acc = (T *)j->partial + ck * taps * g->O;                                                              \
      memset(acc, 0, sizeof(T) * (size_t)(taps * g->O));                                                        \
      tfs_i64 rend = (ck + 1) * j->rows_per_chunk < rows ? (ck + 1) * j->rows_per_chunk : rows;                 \
      for (tfs_i64 r = ck * j->rows_per_chunk; r < rend; r++) {                                                 \
        tfs_i64 n = r / g->OH, oy = r % g->OH;                                                                  \
        for (tfs_i64 ox = 0; ox < g->OW; ox++) {                                                                \
          const T *gy = dy + (r * g->OW + ox) * g->O;                                                           \
          for (tfs_i64 ky = 0; ky < g->KH; ky++) {                                                              \
            tfs_i64 iy = oy * g->SH + ky * g->DH - g->PT;                                                       \
            if (iy < 0 || iy >= g->H) continue;                                                                 \
            for (tfs_i64 kx = 0; kx < g->KW; kx++) {                                                            \
              tfs_i64 ix = ox * g->SW + kx * g->DW - g->PL;                                                     \
              if (ix < 0 || ix >= g->W) continue;                                                               \
              dw_madd_##T##SFX(acc + (ky * g->KW + kx) * g->O, x + ((n * g->H + iy) * g->W + ix) * g->C, gy, g->C, j->M); \
            }                                                                                                   \
          }                                                                                                     \
        }                                                                                                       \
      }                                                                                                         \
    }                                                                                                           \
  }                                                                                                             \
  /* df = the chunks' partial sums added in chunk order */                                                     \
  static void dw_bpf_sum_##T##SFX(void *ctx, int part, int nparts) {                                            \
    const DwJob *j = ctx;                                                                                       \
    tfs_i64 len = j->g->KH * j->g->KW * j->g->O, k0, k1;                                                        \
    tp_slice(len, part, nparts, &k0, &k1);                                                                      \
    T *restrict df = j->out;                                                                                    \
    const T *p = j->partial;                                                                                    \
    memcpy(df + k0, p + k0, sizeof(T) * (size_t)(k1 - k0));                                                     \
    for (tfs_i64 ck = 1; ck < j->nchunks; ck++) {                                                               \
      const T *restrict q = p + ck * len;                                                                       \
      for (tfs_i64 k = k0; k < k1; k++) df[k] = df[k] + q[k];                                                   \
    }                                                                                                           \
  }

#define DW_PATH(SFX) DW_LOOPS(float, SFX) DW_LOOPS(double, SFX)

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
DW_PATH(_base)
#pragma GCC target("arch=x86-64-v3")
DW_PATH(_avx2)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("arch=x86-64-v4")
DW_PATH(_avx512)
#pragma GCC pop_options

/* [isa][dtype (0 float, 1 double)][forward, backprop input, backprop filter, filter sum] */
static const TpFn dw_table[ISA_COUNT][2][4] = {
  {{dw_fwd_float_base, dw_bpi_float_base, dw_bpf_float_base, dw_bpf_sum_float_base},
   {dw_fwd_double_base, dw_bpi_double_base, dw_bpf_double_base, dw_bpf_sum_double_base}},
  {{dw_fwd_float_avx2, dw_bpi_float_avx2, dw_bpf_float_avx2, dw_bpf_sum_float_avx2},
   {dw_fwd_double_avx2, dw_bpi_double_avx2, dw_bpf_double_avx2, dw_bpf_sum_double_avx2}},
  {{dw_fwd_float_avx512, dw_bpi_float_avx512, dw_bpf_float_avx512, dw_bpf_sum_float_avx512},
   {dw_fwd_double_avx512, dw_bpi_double_avx512, dw_bpf_double_avx512, dw_bpf_sum_double_avx512}},
};

/* The filter gradient's row chunks: fixed by the shapes alone (never by the thread count), so the order of
 * the additions, and the bits, are the same on any machine: about 2^16 multiply-adds each, at most 256. */
static void dw_chunks(DwJob *j) {
  const ConvGeom *g = j->g;
  tfs_i64 rows = g->N * g->OH, per_row = g->OW * g->KH * g->KW * g->O;
  tfs_i64 rpc = ((tfs_i64)1 << 16) / (per_row > 0 ? per_row : 1);
  if (rpc < 1) rpc = 1;
  if (rows / rpc > 256) rpc = (rows + 255) / 256;
  j->rows_per_chunk = rpc;
  j->nchunks = rows > 0 ? (rows + rpc - 1) / rpc : 0;
}

static void dw_run(OpCall *c, int which) {
  Tensor *x = tensor_contiguous(c->in[0]), *f = tensor_contiguous(c->in[1]);
  Tensor *dy = which ? tensor_contiguous(c->in[2]) : NULL;
  const tfs_i64 *s = c->iscr;
  ConvGeom g = {x->dtype, x->shape[0], x->shape[1], x->shape[2], x->shape[3], f->shape[0], f->shape[1], x->shape[3] * f->shape[3],
                s[S_SH], s[S_SW], s[S_PT], s[S_PL], s[S_OH], s[S_OW], s[S_DH], s[S_DW]};
  DwJob j = {&g, f->shape[3], tensor_data(x), tensor_data(f), dy ? tensor_data(dy) : NULL, tensor_data(c->out[0]), 0, 0, NULL};
  const TpFn *fn = dw_table[isa_active()][x->dtype == DT_FLOAT64];
  size_t esz = x->dtype == DT_FLOAT64 ? 8 : 4;
  tfs_i64 taps = g.KH * g.KW, out_elems = which == 2 ? taps * g.O : which == 1 ? g.N * g.H * g.W * g.C : g.N * g.OH * g.OW * g.O;
  bool ok = true;
  if (out_elems == 0) {   /* nothing to write */
  } else if (which == 2 && g.N * g.OH * g.OW == 0) {   /* no output cell: a zero filter gradient */
    memset(j.out, 0, esz * (size_t)out_elems);
  } else if (which == 2) {
    dw_chunks(&j);
    j.partial = malloc(esz * (size_t)(j.nchunks * taps * g.O));
    ok = j.partial != NULL;
    if (ok) {
      tp_run(tp_parts(j.nchunks, 1), fn[2], &j);
      tp_run(tp_parts(taps * g.O, TP_EW_MIN_PART), fn[3], &j);
    }
    free(j.partial);
  } else {
    tfs_i64 rows = which ? g.N * g.H : g.N * g.OH, per_row = (which ? g.W : g.OW) * taps * g.O;
    tp_run(tp_parts(rows, ((tfs_i64)1 << 16) / (per_row > 0 ? per_row : 1) + 1), fn[which], &j);
  }
  tensor_release(x);
  tensor_release(f);
  if (dy) tensor_release(dy);
  if (!ok) rt_throw(ERR_MEMORY, "out of memory");
}

void k_depthwise(OpCall *c) {
  if (op_run_half_as_f32(c, k_depthwise)) return;
  dw_run(c, 0);
}

void k_depthwise_grad(OpCall *c) {
  if (op_run_half_as_f32(c, k_depthwise_grad)) return;
  dw_run(c, c->op->id == OP_DEPTHWISE_BP_INPUT ? 1 : 2);
}
