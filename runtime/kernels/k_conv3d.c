/* k_conv3d.c — 3-D convolution and pooling over NDHWC tensors (Conv3D, MaxPool3D, AvgPool3D) and their gradient ops: TF's shape and attribute checks, vol2col around the runtime's matrix products, direct pooling loops. */
#pragma GCC optimize("O3")
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/conv.h"
#include "kernels/ops.h"

/* Scratch shared by the ops here (meta -> kernel), three entries per spatial dim (depth, height, width):
 * window, stride, dilation, leading padding, output size. */
enum { S3_K = 0, S3_S = 3, S3_D = 6, S3_P = 9, S3_O = 12, S3_COUNT = 15 };

/* Why vol2col + GEMM: the same reasoning as Conv2D's im2col (docs/performance.md): the products reuse the
 * runtime's tuned matrix kernels and the copies stay in cache when taken a block of output rows at a time. */
#define C3_BLOCK_ELEMS 32768

/* strides / dilations: a list of 5 ints, 1 for the batch and channel dimensions, as TF's Conv3D kernel
 * requires them (its messages). */
static void c3_five(OpCall *c, int attr, bool dil, tfs_i64 out[3]) {
  out[0] = out[1] = out[2] = 1;
  Val v = op_attr(c, attr);
  if (dil && (v.tag == VT_NONE || val_is_undef(v))) return;
  tfs_i64 d[TFS_MAX_RANK];
  int r = val_is(v, &list_type) || val_is(v, &tuple_type) ? val_to_dims(v, d, false, dil ? "dilations" : "strides") : -1;
  if (r != 5) {
    if (dil) op_fail(c, ERR_INVALID_ARGUMENT, "Dilation rates field must specify 5 dimensions");
    op_fail(c, ERR_INVALID_ARGUMENT, "Sliding window strides field must specify 5 dimensions");
  }
  if (d[0] != 1 || d[4] != 1) {
    if (dil) op_fail(c, ERR_INVALID_ARGUMENT, "Current implementation does not yet support dilation rates in the batch and depth dimensions.");
    op_fail(c, ERR_INVALID_ARGUMENT, "Current implementation does not yet support strides in the batch and depth dimensions.");
  }
  if (d[1] <= 0 || d[2] <= 0 || d[3] <= 0) {
    if (dil) op_fail(c, ERR_INVALID_ARGUMENT, "Dilated rates should be larger than 0.");
    op_fail(c, ERR_INVALID_ARGUMENT, "Spatial strides should be larger than 0.");
  }
  out[0] = d[1], out[1] = d[2], out[2] = d[3];
}

/* TF's order: the filter's depth, then the input's against it, then the filter's size. */
static void c3_depths(OpCall *c, const TMeta *x, const TMeta *f, const char *who) {
  if (x->rank != 5 || f->rank != 5 || x->shape[4] < 0 || f->shape[3] < 0) return;
  tfs_i64 ci = x->shape[4], fc = f->shape[3];
  if (fc == 0) op_fail(c, ERR_INVALID_ARGUMENT, "%sfilter_depth must be non-zero", who);
  if (ci % fc) op_fail(c, ERR_INVALID_ARGUMENT, "%sInput depth must be evenly divisible by filter depth: %lld vs %lld", who, (long long)ci, (long long)fc);
  if (f->shape[0] == 0 || f->shape[1] == 0 || f->shape[2] == 0 || f->shape[4] == 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "%sfilter must not have zero elements (i.e. all dimensions must be non-zero)", who);
  if (ci != fc) op_fail(c, ERR_UNIMPLEMENTED, "%sgrouped 3-D convolutions (input depth %lld, filter depth %lld) are not supported on CPU", who, (long long)ci, (long long)fc);
}

/* The output size and leading padding of each spatial dim (window k, -1 unknown) as TF's
 * GetWindowedOutputSizeVerbose computes them (VALID: (in - k_eff + s) / s; SAME: ceil(in / s)), into the scratch. */
static void c3_sizes(OpCall *c, const TMeta *x, const tfs_i64 k[3], const tfs_i64 st[3], const tfs_i64 dl[3], bool same) {
  for (int d = 0; d < 3; d++) {
    tfs_i64 in = x->rank == 5 ? x->shape[1 + d] : -1;
    c->iscr[S3_K + d] = k[d], c->iscr[S3_S + d] = st[d], c->iscr[S3_D + d] = dl[d];
    c->iscr[S3_O + d] = -1, c->iscr[S3_P + d] = 0;
    if (k[d] < 0 || in < 0) continue;
    tfs_i64 ek = (k[d] - 1) * dl[d] + 1, s = st[d];
    tfs_i64 out = same ? (in + s - 1) / s : (in - ek + s) / s;
    if (out < 0)
      op_fail(c, ERR_INVALID_ARGUMENT, "Computed output size would be negative: %lld [input_size: %lld, effective_filter_size: %lld, stride: %lld]",
              (long long)out, (long long)in, (long long)ek, (long long)s);
    tfs_i64 total = (out - 1) * s + ek - in;
    c->iscr[S3_O + d] = out, c->iscr[S3_P + d] = same && total > 0 ? total / 2 : 0;
  }
}

static bool c3_same(OpCall *c, int attr) {
  Val pv = op_attr(c, attr);
  const char *ps = val_is(pv, &str_type) ? str_cstr(pv) : "";
  bool same = !strcmp(ps, "SAME");
  if (!same && strcmp(ps, "VALID")) op_fail(c, ERR_INVALID_ARGUMENT, "padding must be \"SAME\" or \"VALID\", got \"%s\"", ps);
  return same;
}

/* Conv3D's attributes and ranks in TF's order, then the output sizes (c3_sizes). */
static void c3_geometry(OpCall *c, const TMeta *x, const TMeta *f, int strides_attr, int pad_attr, int fmt_attr, int dil_attr,
                        const char *who) {
  if (fmt_attr >= 0) {
    Val v = op_attr(c, fmt_attr);
    const char *s = val_is(v, &str_type) ? str_cstr(v) : "NDHWC";
    if (!strcmp(s, "NCDHW"))
      op_fail(c, ERR_INVALID_ARGUMENT, "CPU implementation of Conv3D currently only supports the NHWC tensor format.");
    if (strcmp(s, "NDHWC")) op_fail(c, ERR_INVALID_ARGUMENT, "Invalid data format");
  }
  tfs_i64 st[3], dl[3];
  c3_five(c, strides_attr, false, st);
  c3_five(c, dil_attr, true, dl);
  bool same = c3_same(c, pad_attr);
  if (x->rank >= 0 && x->rank != 5) op_fail(c, ERR_INVALID_ARGUMENT, "input must be 5-dimensional");
  if (f->rank >= 0 && f->rank != 5) op_fail(c, ERR_INVALID_ARGUMENT, "filter must be 5-dimensional");
  c3_depths(c, x, f, who);
  tfs_i64 k[3] = {-1, -1, -1};
  if (f->rank == 5) k[0] = f->shape[0], k[1] = f->shape[1], k[2] = f->shape[2];
  c3_sizes(c, x, k, st, dl, same);
}

/* shape: NDHWC input [batch, depth, height, width, in_channels] and DHWIO filters [d, h, w, in_channels, out_channels] give [batch, out_depth, out_height, out_width, out_channels], each spatial size set by strides, dilations and padding (SAME: ceil(in / stride); VALID: ceil((in - (k - 1) * dilation) / stride)). */
void meta_conv3d(OpCall *c) {
  const TMeta *x = &c->inm[0], *f = &c->inm[1];
  c3_geometry(c, x, f, 0, 1, 2, 3, "");
  tfs_i64 shape[5] = {x->rank == 5 ? x->shape[0] : -1, c->iscr[S3_O], c->iscr[S3_O + 1], c->iscr[S3_O + 2], f->rank == 5 ? f->shape[4] : -1};
  meta_set(&c->outm[0], x->dtype, 5, shape);
}

/* One op's geometry, taken from the tensors and the meta scratch. */
typedef struct {
  DType dt;
  size_t es;
  tfs_i64 N, C, O, in[3], k[3], s[3], dl[3], p[3], out[3];
  tfs_i64 kkc, rows, blk;   /* taps * channels, output rows N*OD*OH*OW, rows per vol2col block */
} C3;

static C3 c3_of(const OpCall *c, const Tensor *x, const Tensor *f) {
  C3 g;
  g.dt = x->dtype, g.es = (size_t)dtype_info[x->dtype].size;
  g.N = x->shape[0], g.C = x->shape[4], g.O = f->shape[4];
  g.kkc = g.C, g.rows = g.N;
  for (int d = 0; d < 3; d++) {
    g.in[d] = x->shape[1 + d], g.k[d] = c->iscr[S3_K + d], g.s[d] = c->iscr[S3_S + d], g.dl[d] = c->iscr[S3_D + d];
    g.p[d] = c->iscr[S3_P + d], g.out[d] = c->iscr[S3_O + d];
    g.kkc *= g.k[d], g.rows *= g.out[d];
  }
  tfs_i64 b = C3_BLOCK_ELEMS / (g.kkc > 0 ? g.kkc : 1);
  g.blk = b < 16 ? 16 : b;
  return g;
}

/* Output row r's input origin: image n and the first tap's (z, y, x), possibly in the padding. */
static void c3_row(const C3 *g, tfs_i64 r, tfs_i64 *n, tfs_i64 o[3]) {
  tfs_i64 ox = r % g->out[2], t = r / g->out[2], oy = t % g->out[1];
  t /= g->out[1];
  tfs_i64 oz = t % g->out[0];
  *n = t / g->out[0];
  o[0] = oz * g->s[0] - g->p[0], o[1] = oy * g->s[1] - g->p[1], o[2] = ox * g->s[2] - g->p[2];
}

/* Rows [r0, r1) as vol2col rows: col[r - r0][((kz*KH + ky)*KW + kx)*C + ci] = x[n, iz, iy, ix, ci], 0 in the
 * padding (the filter's [KD, KH, KW, C, O] order, so the filter is the product's [KKC, O] right operand). */
static void vol2col(const C3 *g, const char *x, char *col, tfs_i64 r0, tfs_i64 r1) {
  size_t cb = (size_t)g->C * g->es;
  for (tfs_i64 r = r0; r < r1; r++) {
    tfs_i64 n, o[3];
    c3_row(g, r, &n, o);
    char *dst = col + (size_t)((r - r0) * g->kkc) * g->es;
    for (tfs_i64 kz = 0; kz < g->k[0]; kz++) {
      tfs_i64 iz = o[0] + kz * g->dl[0];
      for (tfs_i64 ky = 0; ky < g->k[1]; ky++) {
        tfs_i64 iy = o[1] + ky * g->dl[1];
        bool row_in = iz >= 0 && iz < g->in[0] && iy >= 0 && iy < g->in[1];
        const char *src = x + (size_t)(((n * g->in[0] + (row_in ? iz : 0)) * g->in[1] + (row_in ? iy : 0)) * g->in[2]) * cb;
        for (tfs_i64 kx = 0; kx < g->k[2]; kx++, dst += cb) {
          tfs_i64 ix = o[2] + kx * g->dl[2];
          if (!row_in || ix < 0 || ix >= g->in[2]) memset(dst, 0, cb);
          else memcpy(dst, src + (size_t)ix * cb, cb);
        }
      }
    }
  }
}

/* The inverse scatter: dx[n, iz, iy, ix, :] += col[r - r0][tap], rows and taps in order. */
static void col2vol(const C3 *g, char *dx, const char *col, tfs_i64 r0, tfs_i64 r1) {
  size_t cb = (size_t)g->C * g->es;
  for (tfs_i64 r = r0; r < r1; r++) {
    tfs_i64 n, o[3];
    c3_row(g, r, &n, o);
    const char *src = col + (size_t)((r - r0) * g->kkc) * g->es;
    for (tfs_i64 kz = 0; kz < g->k[0]; kz++) {
      tfs_i64 iz = o[0] + kz * g->dl[0];
      for (tfs_i64 ky = 0; ky < g->k[1]; ky++) {
        tfs_i64 iy = o[1] + ky * g->dl[1];
        bool row_in = iz >= 0 && iz < g->in[0] && iy >= 0 && iy < g->in[1];
        for (tfs_i64 kx = 0; kx < g->k[2]; kx++, src += cb) {
          tfs_i64 ix = o[2] + kx * g->dl[2];
          if (!row_in || ix < 0 || ix >= g->in[2]) continue;
          conv_add_into(g->dt == DT_FLOAT32, dx + (size_t)((((n * g->in[0] + iz) * g->in[1] + iy) * g->in[2] + ix) * g->C) * g->es, src, g->C);
        }
      }
    }
  }
}

/* The work of one op split over the thread pool: forward and input gradient by output rows (the input
 * gradient by whole images, as its scatter writes across rows of one image). */
typedef struct {
  const C3 *g;
  const char *x, *f, *dy;   /* f: [KKC, O] (forward) or its transpose [O, KKC] (input gradient) */
  char *out, *scratch;
  size_t part_bytes;
} C3Job;

static void c3_fwd_part(void *ctx, int part, int nparts) {
  const C3Job *j = ctx;
  const C3 *g = j->g;
  char *col = j->scratch + j->part_bytes * (size_t)part;
  tfs_i64 lo, hi;
  tp_slice(g->rows, part, nparts, &lo, &hi);
  for (tfs_i64 r0 = lo; r0 < hi; r0 += g->blk) {
    tfs_i64 r1 = r0 + g->blk < hi ? r0 + g->blk : hi;
    vol2col(g, j->x, col, r0, r1);
    matmul_any(g->dt, j->out + (size_t)(r0 * g->O) * g->es, col, j->f, r1 - r0, g->O, g->kkc, false, false);
  }
}

static void c3_bwd_input_part(void *ctx, int part, int nparts) {
  const C3Job *j = ctx;
  const C3 *g = j->g;
  char *col = j->scratch + j->part_bytes * (size_t)part;
  tfs_i64 n0, n1, per_image = g->out[0] * g->out[1] * g->out[2], vol = g->in[0] * g->in[1] * g->in[2] * g->C;
  tp_slice(g->N, part, nparts, &n0, &n1);
  memset(j->out + (size_t)(n0 * vol) * g->es, 0, (size_t)((n1 - n0) * vol) * g->es);
  for (tfs_i64 r0 = n0 * per_image, hi = n1 * per_image; r0 < hi; r0 += g->blk) {
    tfs_i64 r1 = r0 + g->blk < hi ? r0 + g->blk : hi;
    matmul_any(g->dt, col, j->dy + (size_t)(r0 * g->O) * g->es, j->f, r1 - r0, g->kkc, g->O, false, false);
    col2vol(g, j->out, col, r0, r1);
  }
}

static bool c3_run(C3Job *j, tfs_i64 units, tfs_i64 macs_per_unit, TpFn fn) {
  tfs_i64 min_units = ((tfs_i64)1 << 18) / (macs_per_unit > 0 ? macs_per_unit : 1);
  int nparts = tp_parts(units, min_units > 0 ? min_units : 1);
  j->part_bytes = (size_t)(j->g->blk * j->g->kkc) * j->g->es;
  j->scratch = malloc(j->part_bytes * (size_t)nparts);
  if (!j->scratch) return false;
  tp_run(nparts, fn, j);
  free(j->scratch);
  return true;
}

void k_conv3d(OpCall *c) {
  if (op_run_half_as_f32(c, k_conv3d)) return;
  Tensor *x = tensor_contiguous(c->in[0]), *f = tensor_contiguous(c->in[1]);
  C3 g = c3_of(c, x, f);
  bool ok = true;
  if (g.rows > 0 && g.O > 0) {
    if (g.kkc == 0) memset(tensor_data(c->out[0]), 0, (size_t)(g.rows * g.O) * g.es);
    else {
      C3Job j = {&g, tensor_data(x), tensor_data(f), NULL, tensor_data(c->out[0]), NULL, 0};
      ok = c3_run(&j, g.rows, g.kkc * g.O, c3_fwd_part);
    }
  }
  tensor_release(x);
  tensor_release(f);
  if (!ok) rt_throw(ERR_MEMORY, "out of memory");
}

/* ---- the gradient ops: (input, filters, out_backprop) -> d input / d filters; input and filters give shapes ---- */

/* shape: the shape of the input (Conv3DBackpropInputV2) or the filters (Conv3DBackpropFilterV2). */
void meta_conv3d_grad(OpCall *c) {
  const TMeta *x = &c->inm[0], *f = &c->inm[1], *dy = &c->inm[2];
  bool bi = c->op->id == OP_CONV3D_BP_INPUT;
  const char *who = bi ? "Conv3DBackpropInputOp: " : "Conv3DBackpropFilterOp: ";
  c3_geometry(c, x, f, 0, 1, -1, 2, who);
  if (dy->rank >= 0 && dy->rank != 5) op_fail(c, ERR_INVALID_ARGUMENT, "%sout_backprop must be 5-dimensional", who);
  if (x->rank == 5 && f->rank == 5 && dy->rank == 5) {
    if (x->shape[0] >= 0 && dy->shape[0] >= 0 && x->shape[0] != dy->shape[0])
      op_fail(c, ERR_INVALID_ARGUMENT, "%sinput and out_backprop must have the same batch size", who);
    if (f->shape[4] >= 0 && dy->shape[4] >= 0 && f->shape[4] != dy->shape[4])
      op_fail(c, ERR_INVALID_ARGUMENT, "%sfilter and out_backprop must have the same out_depth", who);
    for (int d = 0; d < 3; d++)
      if (c->iscr[S3_O + d] >= 0 && dy->shape[1 + d] >= 0 && c->iscr[S3_O + d] != dy->shape[1 + d])
        op_fail(c, ERR_INVALID_ARGUMENT, "%sSize of out_backprop doesn't match computed: actual = %lld, computed = %lld spatial_dim: %d input: %lld filter: %lld output: %lld stride: %lld dilation: %lld",
                who, (long long)dy->shape[1 + d], (long long)c->iscr[S3_O + d], d + 1, (long long)x->shape[1 + d], (long long)f->shape[d],
                (long long)dy->shape[1 + d], (long long)c->iscr[S3_S + d], (long long)c->iscr[S3_D + d]);
  }
  c->outm[0] = bi ? *x : *f;
  c->outm[0].dtype = dy->dtype;
}

void k_conv3d_grad(OpCall *c) {
  if (op_run_half_as_f32(c, k_conv3d_grad)) return;
  Tensor *x = tensor_contiguous(c->in[0]), *f = tensor_contiguous(c->in[1]), *dy = tensor_contiguous(c->in[2]);
  C3 g = c3_of(c, x, f);
  g.dt = dy->dtype, g.es = (size_t)dtype_info[dy->dtype].size;
  char *out = tensor_data(c->out[0]);
  bool ok = true;
  if (c->op->id == OP_CONV3D_BP_INPUT) {
    size_t xbytes = (size_t)(g.N * g.in[0] * g.in[1] * g.in[2] * g.C) * g.es;
    if (g.rows == 0 || g.kkc == 0 || g.O == 0) memset(out, 0, xbytes);
    else {
      /* dcol[rows, KKC] = dy[rows, O] f^T[O, KKC], scattered back */
      char *ft = malloc((size_t)(g.kkc * g.O) * g.es);
      const char *fd = tensor_data(f);
      if (!ft) ok = false;
      else {
        for (tfs_i64 i = 0; i < g.kkc; i++)
          for (tfs_i64 o = 0; o < g.O; o++) memcpy(ft + (size_t)(o * g.kkc + i) * g.es, fd + (size_t)(i * g.O + o) * g.es, g.es);
        C3Job j = {&g, NULL, ft, tensor_data(dy), out, NULL, 0};
        ok = c3_run(&j, g.N, g.out[0] * g.out[1] * g.out[2] * g.kkc * g.O, c3_bwd_input_part);
        free(ft);
      }
    }
  } else {
    /* df[KKC, O] = sum over blocks, in order, of vol2col(x)^T dy */
    size_t fbytes = (size_t)(g.kkc * g.O) * g.es;
    memset(out, 0, fbytes);
    if (g.rows > 0 && g.kkc > 0 && g.O > 0) {
      char *col = malloc((size_t)(g.blk * g.kkc) * g.es + fbytes);
      if (!col) ok = false;
      else {
        char *tmp = col + (size_t)(g.blk * g.kkc) * g.es;
        const char *xd = tensor_data(x), *dyd = tensor_data(dy);
        for (tfs_i64 r0 = 0; r0 < g.rows; r0 += g.blk) {
          tfs_i64 r1 = r0 + g.blk < g.rows ? r0 + g.blk : g.rows;
          vol2col(&g, xd, col, r0, r1);
          matmul_any(g.dt, tmp, col, dyd + (size_t)(r0 * g.O) * g.es, g.kkc, g.O, r1 - r0, true, false);
          conv_add_into(g.dt == DT_FLOAT32, out, tmp, g.kkc * g.O);
        }
        free(col);
      }
    }
  }
  tensor_release(x);
  tensor_release(f);
  tensor_release(dy);
  if (!ok) rt_throw(ERR_MEMORY, "out of memory");
}

/* ---- MaxPool3D / AvgPool3D over NDHWC and their gradient ops (input, dy): windows of real cells only -------- */

/* ksize / strides as tf.nn.max_pool3d / avg_pool3d take them (an int, or a list of 1, 3 or 5 ints, as
 * nn_ops._get_sequence expands them), then TF's Pooling3DOp checks of the 5. */
static void p3_five(OpCall *c, int attr, const char *what, tfs_i64 out[3]) {
  Val v = op_attr(c, attr);
  tfs_i64 d[TFS_MAX_RANK], f[5] = {1, 1, 1, 1, 1};
  int r = v.tag == VT_INT ? (d[0] = v.u.i, 1) : val_is(v, &list_type) || val_is(v, &tuple_type) ? val_to_dims(v, d, false, what) : -1;
  if (r == 1 || r == 3)
    for (int i = 0; i < 3; i++) f[1 + i] = d[r == 1 ? 0 : i];
  else if (r == 5) memcpy(f, d, sizeof f);
  else {
    StrBuf s;
    sb_init(&s);
    sb_printf(&s, "%s should be of length 1, 3 or 5. Received: %s=", what, what);
    /* _get_sequence shows the value after list() */
    if (r < 0) val_repr(&s, v);
    for (int i = 0; i < r; i++) sb_printf(&s, "%s%lld", i ? ", " : "[", (long long)d[i]);
    if (r >= 0) sb_printf(&s, r ? "]" : "[]");
    sb_printf(&s, " of length %d", r < 0 ? 1 : r);
    /* errindex: … should be of length 1, 3 or 5. Received: …=… of length … */
    op_fail_sb(c, ERR_VALUE, &s);
  }
  if (f[0] != 1) op_fail(c, ERR_UNIMPLEMENTED, "Pooling is not yet supported on the batch dimension.");
  if (f[4] != 1) op_fail(c, ERR_UNIMPLEMENTED, "Pooling is not yet supported on the depth dimension.");
  if (f[1] < 1 || f[2] < 1 || f[3] < 1)
    op_fail(c, ERR_INVALID_ARGUMENT, "%s must be positive, got [%lld, %lld, %lld]", what, (long long)f[1], (long long)f[2], (long long)f[3]);
  for (int i = 0; i < 3; i++) out[i] = f[1 + i];
}

/* (input, ksize, strides, padding[, data_format]) -> the scratch's window, strides, padding and output sizes. */
static void p3_geometry(OpCall *c, const TMeta *x, int fmt_attr) {
  if (fmt_attr >= 0) {
    Val v = op_attr(c, fmt_attr);
    const char *s = val_is(v, &str_type) ? str_cstr(v) : "NDHWC";
    if (!strcmp(s, "NCDHW")) op_fail(c, ERR_INVALID_ARGUMENT, "Default Pooling3DOp only supports NDHWC on device type CPU");
    if (strcmp(s, "NDHWC")) op_fail(c, ERR_INVALID_ARGUMENT, "Invalid data format");
  }
  tfs_i64 k[3], st[3], dl[3] = {1, 1, 1};
  p3_five(c, 0, "ksize", k);
  p3_five(c, 1, "strides", st);
  bool same = c3_same(c, 2);
  if (x->rank >= 0 && x->rank != 5) op_fail(c, ERR_INVALID_ARGUMENT, "tensor_in must be 5-dimensional");
  c3_sizes(c, x, k, st, dl, same);
}

/* shape: NDHWC [batch, out_depth, out_height, out_width, channels], each spatial size set by ksize, strides and padding as for tf.nn.conv3d. */
void meta_pool3d(OpCall *c) {
  const TMeta *x = &c->inm[0];
  p3_geometry(c, x, 3);
  tfs_i64 shape[5] = {x->rank == 5 ? x->shape[0] : -1, c->iscr[S3_O], c->iscr[S3_O + 1], c->iscr[S3_O + 2], x->rank == 5 ? x->shape[4] : -1};
  meta_set(&c->outm[0], x->dtype, 5, shape);
}

/* shape: the pooled input's shape. */
void meta_pool3d_grad(OpCall *c) {
  const TMeta *x = &c->inm[0], *dy = &c->inm[1];
  p3_geometry(c, x, -1);
  if (dy->rank >= 0 && dy->rank != 5) op_fail(c, ERR_INVALID_ARGUMENT, "out_backprop must be 5-dimensional");
  if (x->rank == 5 && dy->rank == 5)
    for (int d = 0; d < 5; d++) {
      tfs_i64 want = d == 0 ? x->shape[0] : d == 4 ? x->shape[4] : c->iscr[S3_O + d - 1];
      if (want >= 0 && dy->shape[d] >= 0 && want != dy->shape[d])
        op_fail(c, ERR_INVALID_ARGUMENT, "out_backprop's shape does not match the pooling's output: dimension %d is %lld, not %lld", d,
                (long long)dy->shape[d], (long long)want);
    }
  c->outm[0] = *x;
  c->outm[0].dtype = dy->dtype;
}

/* One pass over whole images [n0, n1): forward max or average (y), or the gradient (dx) of either.  A window's
 * real cells are its part inside the input (TF's GetBroadcastSize); the average divides by their count.  The
 * max gradient goes to every cell within 1e-5 of the window's maximum, as TF's CPU MaxPool3DGrad selects them
 * (not only the first maximum). */
typedef struct {
  const OpCall *c;
  bool avg;
  tfs_i64 N, in[3], C;
  const void *x, *y, *dy;   /* y: the forward output, for the max gradient */
  void *out;
} P3Job;

#define P3_T(T)                                                                                                  \
  static void p3_part_##T(void *ctx, int part, int nparts) {                                                     \
    const P3Job *j = ctx;                                                                                        \
    const tfs_i64 *s = j->c->iscr;                                                                               \
    tfs_i64 C = j->C, D = j->in[0], H = j->in[1], W = j->in[2], n0, n1;                                          \
    tfs_i64 OD = s[S3_O], OH = s[S3_O + 1], OW = s[S3_O + 2];                                                    \
    const T *x = j->x, *y = j->y, *dy = j->dy;                                                                   \
    T *out = j->out;                                                                                             \
    bool grad = dy != NULL;                                                                                      \
    tp_slice(j->N, part, nparts, &n0, &n1);                                                                      \
    if (grad) memset(out + n0 * D * H * W * C, 0, sizeof(T) * (size_t)((n1 - n0) * D * H * W * C));             \
    for (tfs_i64 n = n0; n < n1; n++)                                                                            \
      for (tfs_i64 oz = 0; oz < OD; oz++)                                                                        \
        for (tfs_i64 oy = 0; oy < OH; oy++)                                                                      \
          for (tfs_i64 ox = 0; ox < OW; ox++) {                                                                  \
            tfs_i64 lo[3] = {oz * s[S3_S] - s[S3_P], oy * s[S3_S + 1] - s[S3_P + 1], ox * s[S3_S + 2] - s[S3_P + 2]}; \
            tfs_i64 hi[3], dims[3] = {D, H, W};                                                                  \
            for (int d = 0; d < 3; d++) {                                                                        \
              hi[d] = lo[d] + s[S3_K + d] < dims[d] ? lo[d] + s[S3_K + d] : dims[d];                             \
              if (lo[d] < 0) lo[d] = 0;                                                                          \
            }                                                                                                    \
            tfs_i64 count = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);                                 \
            tfs_i64 o = (((n * OD + oz) * OH + oy) * OW + ox) * C;                                               \
            for (tfs_i64 ch = 0; ch < C; ch++) {                                                                 \
              T acc = 0, g = grad ? dy[o + ch] : 0, m = grad && !j->avg ? y[o + ch] : 0;                         \
              bool first = true;                                                                                 \
              if (grad && j->avg) g = g * (T)(1.0f / (float)count);   /* TF's float reciprocal */              \
              for (tfs_i64 iz = lo[0]; iz < hi[0]; iz++)                                                         \
                for (tfs_i64 iy = lo[1]; iy < hi[1]; iy++)                                                       \
                  for (tfs_i64 ix = lo[2]; ix < hi[2]; ix++) {                                                   \
                    tfs_i64 at = (((n * D + iz) * H + iy) * W + ix) * C + ch;                                    \
                    if (grad) {                                                                                  \
                      T dv = x[at] - m;                                                                          \
                      if (j->avg || (dv < 0 ? -dv : dv) < (T)1e-5) out[at] = out[at] + g;                        \
                    } else if (j->avg) acc = acc + x[at];                                                        \
                    else if (first || x[at] > acc) acc = x[at];                                                  \
                    first = false;                                                                               \
                  }                                                                                              \
              if (!grad) out[o + ch] = j->avg ? (count ? acc / (T)count : (T)0) : acc;                           \
            }                                                                                                    \
          }                                                                                                      \
  }
P3_T(float)
P3_T(double)

static void p3_run(const OpCall *c, P3Job *j, const Tensor *x) {
  j->c = c, j->N = x->shape[0], j->C = x->shape[4];
  for (int d = 0; d < 3; d++) j->in[d] = x->shape[1 + d];
  tfs_i64 per_image = c->iscr[S3_O] * c->iscr[S3_O + 1] * c->iscr[S3_O + 2] * c->iscr[S3_K] * c->iscr[S3_K + 1] * c->iscr[S3_K + 2] * j->C;
  int nparts = tp_parts(j->N, ((tfs_i64)1 << 16) / (per_image > 0 ? per_image : 1) + 1);
  tp_run(nparts, x->dtype == DT_FLOAT32 ? p3_part_float : p3_part_double, j);
}

void k_pool3d(OpCall *c) {
  if (op_run_half_as_f32(c, k_pool3d)) return;
  Tensor *x = tensor_contiguous(c->in[0]);
  P3Job j = {.avg = c->op->id == OP_AVG_POOL3D, .x = tensor_data(x), .out = tensor_data(c->out[0])};
  p3_run(c, &j, x);
  tensor_release(x);
}

/* MaxPool3DGrad runs the forward pooling again for the maxima it compares with (TF's op takes them as an input). */
void k_pool3d_grad(OpCall *c) {
  if (op_run_half_as_f32(c, k_pool3d_grad)) return;
  Tensor *x = tensor_contiguous(c->in[0]), *dy = tensor_contiguous(c->in[1]);
  bool avg = c->op->id == OP_AVG_POOL3D_GRAD;
  void *y = NULL;
  if (!avg) {
    y = malloc(sizeof(double) * (size_t)(dy->size > 0 ? dy->size : 1));
    if (!y) {
      tensor_release(x);
      tensor_release(dy);
      rt_throw(ERR_MEMORY, "out of memory");
    }
    P3Job f = {.avg = false, .x = tensor_data(x), .out = y};
    p3_run(c, &f, x);
  }
  P3Job j = {.avg = avg, .x = tensor_data(x), .y = y, .dy = tensor_data(dy), .out = tensor_data(c->out[0])};
  p3_run(c, &j, x);
  free(y);
  tensor_release(x);
  tensor_release(dy);
}
