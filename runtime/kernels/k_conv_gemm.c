/* k_conv_gemm.c — NHWC convolution and its two gradients as im2col/col2im around the runtime's matrix products, split over the thread pool. */
#pragma GCC optimize("O3")

#include <stdlib.h>
#include <string.h>

#include "kernels/conv.h"

/* Why im2col + GEMM: measured on the MNIST CNN (docs/performance.md), im2col blocks feeding libxsmm ran
 * the training step within 10-30% of oneDNN's blocked kernels and ahead of them on the filter gradient,
 * with no layout conversions and with the products' ISA paths (TFS_ISA) and tests reused as they are.
 * The output rows (n, oy, ox) are cut into blocks whose im2col rows take about this many elements, so a
 * block stays in L2 between being written and being multiplied. */
#define CONV_BLOCK_ELEMS 32768
/* fewest output rows worth handing to another thread (each row costs KH*KW*C*O multiply-adds) */
#define CONV_MIN_PART_MACS ((tfs_i64)1 << 18)

typedef struct {
  const ConvGeom *g;
  size_t es;
  tfs_i64 kkc, blk, rows;          /* taps*channels, rows per block, output rows N*OH*OW */
  bool pointwise;                  /* 1x1 window, stride 1: the input is its own im2col matrix */
  const char *x, *f, *dy;          /* f: the filter as [KKC, O], or transposed [O, KKC] for the input gradient */
  const void *bias;                /* forward: [O] added to each output row, then relu if relu */
  bool relu;
  char *out;
  char *scratch;                   /* per part: part_bytes */
  size_t part_bytes;
} ConvJob;

static tfs_i64 conv_kkc(const ConvGeom *g) { return g->KH * g->KW * g->C; }

static bool conv_pointwise(const ConvGeom *g) {
  return g->KH == 1 && g->KW == 1 && g->SH == 1 && g->SW == 1 && g->PT == 0 && g->PL == 0;
}

static void conv_job(ConvJob *j, const ConvGeom *g) {
  memset(j, 0, sizeof *j);
  j->g = g;
  j->es = (size_t)dtype_info[g->dt].size;
  j->kkc = conv_kkc(g);
  j->rows = g->N * g->OH * g->OW;
  j->pointwise = conv_pointwise(g);
  tfs_i64 b = CONV_BLOCK_ELEMS / (j->kkc > 0 ? j->kkc : 1);
  j->blk = b < 16 ? 16 : b;
}

/* Rows [r0, r1) of the output as im2col rows: col[r - r0][(ky*KW + kx)*C + ci] = x[n, iy, ix, ci], 0 where
 * the tap falls in the padding.  Undilated, the KW taps of one (row, ky) are KW*C consecutive input elements. */
static void im2col(const ConvJob *j, char *col, tfs_i64 r0, tfs_i64 r1) {
  const ConvGeom *g = j->g;
  size_t es = j->es, cb = (size_t)g->C * es, rowb = (size_t)g->KW * cb;
  tfs_i64 plane = g->OH * g->OW;
  for (tfs_i64 r = r0; r < r1; r++) {
    tfs_i64 n = r / plane, rem = r % plane, oy = rem / g->OW, ox = rem % g->OW;
    tfs_i64 ix0 = ox * g->SW - g->PL;
    char *dst = col + (size_t)((r - r0) * j->kkc) * es;
    for (tfs_i64 ky = 0; ky < g->KH; ky++, dst += rowb) {
      tfs_i64 iy = oy * g->SH + ky * g->DH - g->PT;
      if (iy < 0 || iy >= g->H) {
        memset(dst, 0, rowb);
        continue;
      }
      const char *src = j->x + (size_t)((n * g->H + iy) * g->W) * cb;
      if (g->DW == 1 && ix0 >= 0 && ix0 + g->KW <= g->W) {
        memcpy(dst, src + (size_t)ix0 * cb, rowb);
        continue;
      }
      for (tfs_i64 kx = 0; kx < g->KW; kx++) {
        tfs_i64 ix = ix0 + kx * g->DW;
        if (ix < 0 || ix >= g->W) memset(dst + (size_t)kx * cb, 0, cb);
        else memcpy(dst + (size_t)kx * cb, src + (size_t)ix * cb, cb);
      }
    }
  }
}

/* The im2col matrix of rows [r0, r1): built in col, or the input itself for a pointwise convolution. */
static const char *rows_as_im2col(const ConvJob *j, char *col, tfs_i64 r0, tfs_i64 r1) {
  if (j->pointwise) return j->x + (size_t)(r0 * j->kkc) * j->es;
  im2col(j, col, r0, r1);
  return col;
}

static void add_into(bool f32, void *dst, const void *src, tfs_i64 n) {
  if (f32) {
    float *restrict d = dst;
    const float *restrict s = src;
    for (tfs_i64 i = 0; i < n; i++) d[i] = d[i] + s[i];
  } else {
    double *restrict d = dst;
    const double *restrict s = src;
    for (tfs_i64 i = 0; i < n; i++) d[i] = d[i] + s[i];
  }
}

/* The inverse scatter: dx[n, iy, ix, ci] += col[r - r0][(ky*KW + kx)*C + ci], rows and taps in order. */
static void col2im(const ConvJob *j, char *dx, const char *col, tfs_i64 r0, tfs_i64 r1) {
  const ConvGeom *g = j->g;
  bool f32 = g->dt == DT_FLOAT32;
  size_t es = j->es;
  tfs_i64 plane = g->OH * g->OW;
  for (tfs_i64 r = r0; r < r1; r++) {
    tfs_i64 n = r / plane, rem = r % plane, oy = rem / g->OW, ox = rem % g->OW;
    const char *src = col + (size_t)((r - r0) * j->kkc) * es;
    for (tfs_i64 ky = 0; ky < g->KH; ky++) {
      tfs_i64 iy = oy * g->SH + ky * g->DH - g->PT;
      if (iy < 0 || iy >= g->H) continue;
      for (tfs_i64 kx = 0; kx < g->KW; kx++) {
        tfs_i64 ix = ox * g->SW + kx * g->DW - g->PL;
        if (ix < 0 || ix >= g->W) continue;
        add_into(f32, dx + (size_t)(((n * g->H + iy) * g->W + ix) * g->C) * es,
                 src + (size_t)((ky * g->KW + kx) * g->C) * es, g->C);
      }
    }
  }
}

/* Runs fn over the job's parts, each with part_bytes of scratch; false when the scratch cannot be had. */
static bool conv_run(ConvJob *j, int nparts, TpFn fn) {
  j->scratch = j->part_bytes ? malloc(j->part_bytes * (size_t)nparts) : NULL;
  if (j->part_bytes && !j->scratch) return false;
  tp_run(nparts, fn, j);
  free(j->scratch);
  return true;
}

static int conv_parts(const ConvJob *j, tfs_i64 units, tfs_i64 macs_per_unit) {
  tfs_i64 min_units = CONV_MIN_PART_MACS / (macs_per_unit > 0 ? macs_per_unit : 1);
  return tp_parts(units, min_units > 0 ? min_units : 1);
}

/* ---- forward: y[rows, O] = im2col(x)[rows, KKC] f[KKC, O], any split of the rows ---------------------- */

static void fwd_part(void *ctx, int part, int nparts) {
  const ConvJob *j = ctx;
  const ConvGeom *g = j->g;
  char *col = j->scratch + j->part_bytes * (size_t)part;
  tfs_i64 lo, hi;
  tp_slice(j->rows, part, nparts, &lo, &hi);
  for (tfs_i64 r0 = lo; r0 < hi; r0 += j->blk) {
    tfs_i64 r1 = r0 + j->blk < hi ? r0 + j->blk : hi;
    const char *a = rows_as_im2col(j, col, r0, r1);
    char *y = j->out + (size_t)(r0 * g->O) * j->es;
    if (j->bias || j->relu) matmul_2d(g->dt, y, a, j->f, r1 - r0, g->O, j->kkc, j->bias, j->relu);
    else matmul_any(g->dt, y, a, j->f, r1 - r0, g->O, j->kkc, false, false);
  }
}

bool conv_forward(const ConvGeom *g, const void *x, const void *f, void *y, const void *bias, bool relu) {
  ConvJob j;
  conv_job(&j, g);
  if (j.rows == 0) return true;
  j.x = x, j.f = f, j.out = y, j.bias = bias, j.relu = relu;
  if (j.kkc == 0) {   /* no taps: the products are 0, the epilogue still applies */
    memset(y, 0, (size_t)(j.rows * g->O) * j.es);
    if (bias || relu) matmul_2d_epilogue(g->dt, y, bias, j.rows, g->O, relu);
    return true;
  }
  j.part_bytes = j.pointwise ? 0 : (size_t)(j.blk * j.kkc) * j.es;
  return conv_run(&j, conv_parts(&j, j.rows, j.kkc * g->O), fwd_part);
}

/* ---- input gradient: dcol[rows, KKC] = dy[rows, O] f^T[O, KKC], scattered back; parts own whole images -- */

static void bwd_input_part(void *ctx, int part, int nparts) {
  const ConvJob *j = ctx;
  const ConvGeom *g = j->g;
  char *col = j->scratch + j->part_bytes * (size_t)part;
  tfs_i64 n0, n1, plane = g->OH * g->OW;
  tp_slice(g->N, part, nparts, &n0, &n1);
  memset(j->out + (size_t)(n0 * g->H * g->W * g->C) * j->es, 0, (size_t)((n1 - n0) * g->H * g->W * g->C) * j->es);
  tfs_i64 lo = n0 * plane, hi = n1 * plane;
  for (tfs_i64 r0 = lo; r0 < hi; r0 += j->blk) {
    tfs_i64 r1 = r0 + j->blk < hi ? r0 + j->blk : hi;
    const char *dy = j->dy + (size_t)(r0 * g->O) * j->es;
    if (j->pointwise) {
      matmul_any(g->dt, j->out + (size_t)(r0 * j->kkc) * j->es, dy, j->f, r1 - r0, j->kkc, g->O, false, false);
      continue;
    }
    matmul_any(g->dt, col, dy, j->f, r1 - r0, j->kkc, g->O, false, false);
    col2im(j, j->out, col, r0, r1);
  }
}

/* f [KKC, O] -> ft [O, KKC] */
static void transpose_filter(size_t es, char *ft, const char *f, tfs_i64 kkc, tfs_i64 O) {
  for (tfs_i64 i = 0; i < kkc; i++)
    for (tfs_i64 o = 0; o < O; o++) memcpy(ft + (size_t)(o * kkc + i) * es, f + (size_t)(i * O + o) * es, es);
}

bool conv_backward_input(const ConvGeom *g, const void *f, const void *dy, void *dx) {
  ConvJob j;
  conv_job(&j, g);
  size_t xbytes = (size_t)(g->N * g->H * g->W * g->C) * j.es;
  if (j.rows == 0 || j.kkc == 0 || g->O == 0) {
    memset(dx, 0, xbytes);
    return true;
  }
  char *ft = malloc((size_t)(j.kkc * g->O) * j.es);
  if (!ft) return false;
  transpose_filter(j.es, ft, f, j.kkc, g->O);
  j.f = ft, j.dy = dy, j.out = dx;
  j.part_bytes = j.pointwise ? 0 : (size_t)(j.blk * j.kkc) * j.es;
  bool ok = conv_run(&j, conv_parts(&j, g->N, g->OH * g->OW * j.kkc * g->O), bwd_input_part);
  free(ft);
  return ok;
}

/* ---- filter gradient: df[KKC, O] = sum over blocks of im2col(x)^T dy; each part sums its blocks in order
 * into its own accumulator (part 0's is df), then the parts are added in order ---------------------------- */

static void bwd_filter_part(void *ctx, int part, int nparts) {
  const ConvJob *j = ctx;
  const ConvGeom *g = j->g;
  size_t fbytes = (size_t)(j->kkc * g->O) * j->es;
  char *mine = j->scratch + j->part_bytes * (size_t)part;
  char *acc = part == 0 ? j->out : mine, *tmp = mine + (part == 0 ? 0 : fbytes), *col = tmp + fbytes;
  tfs_i64 lo, hi;
  tp_slice(j->rows, part, nparts, &lo, &hi);
  if (lo == hi) memset(acc, 0, fbytes);
  for (tfs_i64 r0 = lo; r0 < hi; r0 += j->blk) {
    tfs_i64 r1 = r0 + j->blk < hi ? r0 + j->blk : hi;
    const char *a = rows_as_im2col(j, col, r0, r1);
    const char *dy = j->dy + (size_t)(r0 * g->O) * j->es;
    matmul_any(g->dt, r0 == lo ? acc : tmp, a, dy, j->kkc, g->O, r1 - r0, true, false);
    if (r0 != lo) add_into(g->dt == DT_FLOAT32, acc, tmp, j->kkc * g->O);
  }
}

bool conv_backward_filter(const ConvGeom *g, const void *x, const void *dy, void *df) {
  ConvJob j;
  conv_job(&j, g);
  size_t fbytes = (size_t)(j.kkc * g->O) * j.es;
  if (j.rows == 0 || j.kkc == 0 || g->O == 0) {
    memset(df, 0, fbytes);
    return true;
  }
  j.x = x, j.dy = dy, j.out = df;
  /* part 0 needs tmp + col, the others acc + tmp + col: every part gets the larger share */
  j.part_bytes = 2 * fbytes + (j.pointwise ? 0 : (size_t)(j.blk * j.kkc) * j.es);
  int nparts = conv_parts(&j, j.rows, j.kkc * g->O);
  j.scratch = malloc(j.part_bytes * (size_t)nparts);
  if (!j.scratch) return false;
  tp_run(nparts, bwd_filter_part, &j);
  for (int p = 1; p < nparts; p++) add_into(g->dt == DT_FLOAT32, df, j.scratch + j.part_bytes * (size_t)p, j.kkc * g->O);
  free(j.scratch);
  return true;
}
