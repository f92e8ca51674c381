/* k_conv_gemm.c — NHWC convolution and its two gradients as im2col/col2im around the runtime's matrix products, split over the thread pool. */
#pragma GCC optimize("O3")

#include <stdlib.h>
#include <string.h>

#include "kernels/conv.h"
#include "kernels/isa.h"

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
  /* the direct forward pass: libxsmm batch-reduce kernels for a row's interior run of pixels [ox_lo, ox_hi)
   * (every tap inside the input's width) and for one pixel */
  XsmmBr br_mid, br_one;
  tfs_i64 ox_lo, ox_hi;
  bool direct;
  const ConvPool *pool;            /* forward: pool the output (rows computed into a ring of pool->KH rows) */
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

void conv_add_into(bool f32, void *dst, const void *src, tfs_i64 n) {
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
        conv_add_into(f32, dx + (size_t)(((n * g->H + iy) * g->W + ix) * g->C) * es,
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

/* ---- forward, direct: each output row (n, oy) is a batch-reduce product over its taps, C channels at a time,
 * reading the input where it lies (no im2col copy).  The sums run over (tap, channel) in im2col's order; taps
 * in the padding are left out instead of adding zeros.  For geometries whose kernels libxsmm can give. ----- */

static bool direct_ready(ConvJob *j) {
  const ConvGeom *g = j->g;
  if (j->pointwise || j->kkc == 0 || g->O == 0) return false;
  tfs_i64 lo = (g->PL + g->SW - 1) / g->SW, last = g->W - 1 + g->PL - (g->KW - 1) * g->DW;
  tfs_i64 hi = last < 0 ? 0 : last / g->SW + 1;
  j->ox_lo = lo < g->OW ? lo : g->OW;
  j->ox_hi = hi < g->OW ? hi : g->OW;
  if (j->ox_hi < j->ox_lo) j->ox_hi = j->ox_lo;
  if (!xsmm_br_get(&j->br_one, g->dt, 1, g->O, g->C, g->C)) return false;
  return j->ox_hi == j->ox_lo || xsmm_br_get(&j->br_mid, g->dt, j->ox_hi - j->ox_lo, g->O, g->C, g->SW * g->C);
}

/* One output row y[OW, O] of image n: the interior run in one call, the edge pixels one by one. */
static void direct_row(const ConvJob *j, char *y, tfs_i64 n, tfs_i64 oy, const void **A, const void **B) {
  const ConvGeom *g = j->g;
  size_t es = j->es, cb = (size_t)g->C * es, ob = (size_t)g->O * es;
  const char *rows[g->KH];
  for (tfs_i64 ky = 0; ky < g->KH; ky++) {
    tfs_i64 iy = oy * g->SH + ky * g->DH - g->PT;
    rows[ky] = iy < 0 || iy >= g->H ? NULL : j->x + (size_t)((n * g->H + iy) * g->W) * cb;
  }
  for (tfs_i64 ox = 0; ox < g->OW; ox++) {
    bool mid = ox == j->ox_lo && j->ox_hi > j->ox_lo;
    tfs_i64 ix0 = ox * g->SW - g->PL, cnt = 0;
    for (tfs_i64 ky = 0; ky < g->KH; ky++) {
      if (!rows[ky]) continue;
      for (tfs_i64 kx = 0; kx < g->KW; kx++) {
        tfs_i64 ix = ix0 + kx * g->DW;
        if (!mid && (ix < 0 || ix >= g->W)) continue;
        A[cnt] = rows[ky] + (size_t)ix * cb;
        B[cnt++] = j->f + (size_t)((ky * g->KW + kx) * g->C) * ob;
      }
    }
    tfs_i64 npix = mid ? j->ox_hi - j->ox_lo : 1;
    if (cnt) xsmm_br_run(mid ? &j->br_mid : &j->br_one, y + (size_t)ox * ob, A, B, cnt);
    else memset(y + (size_t)ox * ob, 0, (size_t)npix * ob);
    ox += npix - 1;
  }
}

/* Output row oy of image n into y[OW, O] by the direct kernels (scr: 2*KH*KW pointers), with the epilogue
 * unless the row is to be pooled. */
static void conv_row(const ConvJob *j, char *y, tfs_i64 n, tfs_i64 oy, char *scr) {
  const ConvGeom *g = j->g;
  const void **A = (const void **)scr, **B = A + g->KH * g->KW;
  direct_row(j, y, n, oy, A, B);
  if ((j->bias || j->relu) && !j->pool) matmul_2d_epilogue(g->dt, y, j->bias, g->OW, g->O, j->relu);
}

static size_t conv_row_scratch(const ConvJob *j) { return 2 * sizeof(void *) * (size_t)(j->g->KH * j->g->KW); }

static void fwd_direct_part(void *ctx, int part, int nparts) {
  const ConvJob *j = ctx;
  const ConvGeom *g = j->g;
  tfs_i64 lo, hi;
  tp_slice(g->N * g->OH, part, nparts, &lo, &hi);
  for (tfs_i64 r = lo; r < hi; r++)
    conv_row(j, j->out + (size_t)(r * g->OW * g->O) * j->es, r / g->OH, r % g->OH, j->scratch + j->part_bytes * (size_t)part);
}

/* ---- forward, pooled: parts own pooled rows (n, py); the convolution rows a window needs are computed into a
 * ring of pool->KH rows (overlapping windows reuse them), then pooled as MaxPool does: the first valid cell
 * of the window in row-major order, then v > best ? v : best per channel.  The epilogue (bias add, relu)
 * runs on the pooled row: v -> relu(v + bias) is monotone (rounding is) and maps NaN to NaN, so the maximum
 * of the epilogue's values is the epilogue of the maximum, bit for bit, at a quarter of the work for 2x2. - */

/* One pooled row dst[POW, O] from the convolution rows of its windows (NULL: a row in the padding); with epi,
 * the epilogue on each pooled pixel as it is done (the expressions of k_matmul.c's, one rounding each).  Max,
 * add and relu are exact or singly rounded, so every ISA path gives the same bits. */
#define POOL_ROW_T(T, SFX)                                                                                     \
  static void pool_row_##T##SFX(const ConvJob *j, T *dst, T *const *rows, bool epi) {                          \
    const ConvPool *p = j->pool;                                                                               \
    const T *restrict bias = j->bias;                                                                          \
    tfs_i64 O = j->g->O, OW = j->g->OW;                                                                        \
    T acc[O <= 1024 ? O : 1];   /* the maximum builds up in L1, the (cold) output is written once */            \
    for (tfs_i64 px = 0; px < p->OW; px++, dst += O) {                                                         \
      bool first = true;                                                                                       \
      T *restrict b = O <= 1024 ? acc : dst;                                                                   \
      for (tfs_i64 ky = 0; ky < p->KH; ky++) {                                                                 \
        if (!rows[ky]) continue;                                                                               \
        for (tfs_i64 kx = 0; kx < p->KW; kx++) {                                                               \
          tfs_i64 cx = px * p->SW + kx - p->PL;                                                                \
          if (cx < 0 || cx >= OW) continue;                                                                    \
          const T *restrict v = rows[ky] + cx * O;                                                             \
          if (first)                                                                                           \
            for (tfs_i64 ch = 0; ch < O; ch++) b[ch] = v[ch];                                                  \
          else                                                                                                 \
            for (tfs_i64 ch = 0; ch < O; ch++) b[ch] = v[ch] > b[ch] ? v[ch] : b[ch];                          \
          first = false;                                                                                       \
        }                                                                                                      \
      }                                                                                                        \
      if (epi && bias)                                                                                         \
        for (tfs_i64 ch = 0; ch < O; ch++) b[ch] = b[ch] + bias[ch];                                           \
      if (epi && j->relu)                                                                                      \
        for (tfs_i64 ch = 0; ch < O; ch++) {                                                                   \
          T x = b[ch];                                                                                         \
          b[ch] = x > 0 ? x : (x != x ? x : (T)0);                                                             \
        }                                                                                                      \
      if (b != dst) memcpy(dst, b, sizeof(T) * (size_t)O);                                                     \
    }                                                                                                          \
  }
#define POOL_ROW_PATH(SFX) POOL_ROW_T(float, SFX) POOL_ROW_T(double, SFX)
POOL_ROW_PATH(_base)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("arch=x86-64-v3")
POOL_ROW_PATH(_avx2)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("arch=x86-64-v4")
POOL_ROW_PATH(_avx512)
#pragma GCC pop_options

typedef void (*PoolRowFn)(const ConvJob *j, void *dst, void *const *rows, bool epi);
static const PoolRowFn pool_rows[ISA_COUNT][2] = {
  {(PoolRowFn)pool_row_float_base, (PoolRowFn)pool_row_double_base},
  {(PoolRowFn)pool_row_float_avx2, (PoolRowFn)pool_row_double_avx2},
  {(PoolRowFn)pool_row_float_avx512, (PoolRowFn)pool_row_double_avx512},
};

static void pool_row(const ConvJob *j, char *dst, void *const *rows, bool epi) {
  pool_rows[isa_active()][j->g->dt == DT_FLOAT64](j, dst, rows, epi);
}

static void fwd_pool_part(void *ctx, int part, int nparts) {
  const ConvJob *j = ctx;
  const ConvGeom *g = j->g;
  const ConvPool *p = j->pool;
  size_t rowb = (size_t)(g->OW * g->O) * j->es;
  /* 8-byte items first: which conv row (n*OH + oy) each ring slot holds, the kernels' pointers; then the ring */
  tfs_i64 *tag = (tfs_i64 *)(j->scratch + j->part_bytes * (size_t)part);
  char *scr = (char *)(tag + p->KH), *ring = scr + conv_row_scratch(j);
  void *rows[p->KH];
  for (tfs_i64 k = 0; k < p->KH; k++) tag[k] = -1;
  tfs_i64 lo, hi;
  tp_slice(g->N * p->OH, part, nparts, &lo, &hi);
  for (tfs_i64 u = lo; u < hi; u++) {
    tfs_i64 n = u / p->OH, py = u % p->OH;
    for (tfs_i64 ky = 0; ky < p->KH; ky++) {
      tfs_i64 oy = py * p->SH + ky - p->PT;
      rows[ky] = NULL;
      if (oy < 0 || oy >= g->OH) continue;
      char *slot = ring + rowb * (size_t)(oy % p->KH);
      if (tag[oy % p->KH] != n * g->OH + oy) {
        conv_row(j, slot, n, oy, scr);
        tag[oy % p->KH] = n * g->OH + oy;
      }
      rows[ky] = slot;
    }
    pool_row(j, j->out + (size_t)(u * p->OW * g->O) * j->es, rows, true);
  }
}

/* conv_forward with a pooling: the convolution unpooled into a temporary, then pooled (rare shapes: no taps) */
static bool conv_forward_then_pool(const ConvGeom *g, const void *x, const void *f, void *y, const void *bias, bool relu,
                                   const ConvPool *pool) {
  size_t es = (size_t)dtype_info[g->dt].size;
  char *t = malloc((size_t)(g->N * g->OH * g->OW * g->O) * es + 1);
  if (!t || !conv_forward(g, x, f, t, bias, relu, NULL)) {
    free(t);
    return false;
  }
  ConvJob j;
  conv_job(&j, g);
  j.pool = pool, j.out = y;
  size_t rowb = (size_t)(g->OW * g->O) * es;
  for (tfs_i64 u = 0; u < g->N * pool->OH; u++) {
    tfs_i64 n = u / pool->OH, py = u % pool->OH;
    void *rows[pool->KH];
    for (tfs_i64 ky = 0; ky < pool->KH; ky++) {
      tfs_i64 oy = py * pool->SH + ky - pool->PT;
      rows[ky] = oy < 0 || oy >= g->OH ? NULL : t + rowb * (size_t)(n * g->OH + oy);
    }
    pool_row(&j, (char *)y + (size_t)(u * pool->OW * g->O) * es, rows, false);
  }
  free(t);
  return true;
}

bool conv_forward(const ConvGeom *g, const void *x, const void *f, void *y, const void *bias, bool relu, const ConvPool *pool) {
  ConvJob j;
  conv_job(&j, g);
  if (pool && (j.rows == 0 || pool->OH * pool->OW == 0 || g->O == 0)) return true;
  if (j.rows == 0) return true;
  j.x = x, j.f = f, j.out = y, j.bias = bias, j.relu = relu, j.pool = pool;
  j.direct = direct_ready(&j);
  /* pooled without the direct kernels (no taps, the baseline path): unpooled blocks, then the pooling, so
   * the sums are the unfused ones (the blocked products' summation order may depend on the block size) */
  if (pool && !j.direct) return conv_forward_then_pool(g, x, f, y, bias, relu, pool);
  if (j.kkc == 0) {   /* no taps: the products are 0, the epilogue still applies */
    memset(y, 0, (size_t)(j.rows * g->O) * j.es);
    if (bias || relu) matmul_2d_epilogue(g->dt, y, bias, j.rows, g->O, relu);
    return true;
  }
  if (pool) {
    j.part_bytes = (size_t)(pool->KH * g->OW * g->O) * j.es + conv_row_scratch(&j) + sizeof(tfs_i64) * (size_t)pool->KH;
    j.part_bytes = (j.part_bytes + 63) & ~(size_t)63;
    return conv_run(&j, conv_parts(&j, g->N * pool->OH, pool->SH * g->OW * j.kkc * g->O), fwd_pool_part);
  }
  if (j.direct) {
    j.part_bytes = conv_row_scratch(&j);
    return conv_run(&j, conv_parts(&j, g->N * g->OH, g->OW * j.kkc * g->O), fwd_direct_part);
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
    if (r0 != lo) conv_add_into(g->dt == DT_FLOAT32, acc, tmp, j->kkc * g->O);
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
  for (int p = 1; p < nparts; p++) conv_add_into(g->dt == DT_FLOAT32, df, j.scratch + j.part_bytes * (size_t)p, j.kkc * g->O);
  free(j.scratch);
  return true;
}
