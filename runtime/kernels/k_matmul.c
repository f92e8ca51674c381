/* k_matmul.c — matrix products (libxsmm or register kernels for small shapes, OpenBLAS above, batched with broadcasting), transpose, bias_add. */
#pragma GCC optimize("O3")

#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernels/ops.h"

/* Float products go to OpenBLAS except for tiny ones: measured on the
 * target (OpenBLAS 0.3.21, AVX-512), its small-matrix path costs 17 ns at
 * 2x2x2 and 96 ns at 16x16x16, below our own loops from about 4x4x4 on. */
#define MATMUL_BLAS_MIN_FLOPS 65

static inline bool mm_uses_blas(DType dt, tfs_i64 M, tfs_i64 N, tfs_i64 K) {
  return M * N * K >= MATMUL_BLAS_MIN_FLOPS && (dt == DT_FLOAT32 || dt == DT_FLOAT64);
}

/* C = op(A) op(B) on the calling thread; A's rows are ldA apart (K, or M when ta, for a whole matrix). */
static void matmul_one(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb,
                       tfs_i64 ldA) {
  if (xsmm_gemm_lda(dt, C, A, B, M, N, K, ta, tb, ldA)) return;
  if (mm_uses_blas(dt, M, N, K)) {
    blas_ready();
    enum CBLAS_TRANSPOSE tA = ta ? CblasTrans : CblasNoTrans, tB = tb ? CblasTrans : CblasNoTrans;
    blasint ldb = (blasint)(tb ? K : N);
    if (dt == DT_FLOAT32)
      cblas_sgemm(CblasRowMajor, tA, tB, (blasint)M, (blasint)N, (blasint)K, 1.0f, A, (blasint)ldA, B, ldb, 0.0f, C, (blasint)N);
    else
      cblas_dgemm(CblasRowMajor, tA, tB, (blasint)M, (blasint)N, (blasint)K, 1.0, A, (blasint)ldA, B, ldb, 0.0, C, (blasint)N);
    return;
  }
  gemm_small(dt, C, A, B, M, N, K, ta, tb);   /* whole matrices only: matmul_any slices float products alone */
}

/* ---- fused epilogue (graph _FusedMatMul): bias add and activation on a block in cache ---------
 * Each element gets exactly what the unfused AddV2 and Relu kernels compute
 * (the same expressions, one rounding each), so graph results equal eager ones. */
#define MM_EPI(T, U, RELU)                                                                         \
  static void epi_##T(T *C, const T *bias, tfs_i64 M, tfs_i64 N, bool add, bool act) {             \
    for (tfs_i64 i = 0; i < M; i++) {                                                              \
      T *restrict row = C + i * N;                                                                 \
      if (add && act)                                                                              \
        for (tfs_i64 j = 0; j < N; j++) { T x = (T)((U)row[j] + (U)bias[j]); row[j] = RELU; }      \
      else if (add)                                                                                \
        for (tfs_i64 j = 0; j < N; j++) row[j] = (T)((U)row[j] + (U)bias[j]);                      \
      else                                                                                         \
        for (tfs_i64 j = 0; j < N; j++) { T x = row[j]; row[j] = RELU; }                           \
    }                                                                                              \
  }
MM_EPI(float, float, x > 0 ? x : (x != x ? x : 0.0f))
MM_EPI(double, double, x > 0 ? x : (x != x ? x : 0.0))
MM_EPI(int32_t, uint32_t, x > 0 ? x : 0)
MM_EPI(int64_t, uint64_t, x > 0 ? x : 0)

static void mm_epilogue(DType dt, void *C, const void *bias, tfs_i64 M, tfs_i64 N, bool add, bool act) {
  switch (dt) {
  case DT_FLOAT32: epi_float(C, bias, M, N, add, act); break;
  case DT_FLOAT64: epi_double(C, bias, M, N, add, act); break;
  case DT_INT32: epi_int32_t(C, bias, M, N, add, act); break;
  case DT_INT64: epi_int64_t(C, bias, M, N, add, act); break;
  default: break;
  }
}

/* Products of at least this many multiply-adds per part go to the thread pool, cut into slices of C's rows
 * (op(A)'s rows: with transpose_a, columns of the stored A, read with its full row stride), each with its
 * bias and relu while the slice is in cache.  Every element's sum runs over k in one kernel call, and the
 * slices follow from the shape and the thread count alone, so results are bit-identical for a given count
 * (a slice may take another kernel than the whole product, by size: counts differ within float rounding).
 * 2^15 splits the 100-layer bench's 20x64x64 products in two (docs/performance.md, "Two threads on small
 * graphs").  How many slices, by shape:
 * - one per thread below MM_GRAIN_MACS per thread: a short product is rarely preempted midway (a worker not
 *   yet running costs nothing, as parts are claimed), while each extra slice re-reads all of B and gives the
 *   kernel fewer rows (the LSTM's 64x256x64 step products ran slower cut in 8 than in 4);
 * - several per thread (the pool's grain) above it, so a preempted thread holds back a small part only;
 * - at least MM_MIN_ROWS rows each where the product has them: the JIT kernels block rows by 4 to 8.
 * Products inside a recurrent layer's step do not come here split: the LSTM op runs each thread's batch
 * rows through every step as one job (k_rnn.c). */
#define MM_MIN_PART_MACS ((tfs_i64)1 << 15)
#define MM_GRAIN_MACS ((tfs_i64)1 << 21)
#define MM_MIN_ROWS 8

/* How many row slices to cut an M x N x K product into (1: none). */
static int mm_parts(tfs_i64 M, tfs_i64 N, tfs_i64 K) {
  tfs_i64 macs = M * N * K;
  int np = tp_parts(macs, MM_MIN_PART_MACS), nt = tp_threads();
  if (np > nt && macs / nt < MM_GRAIN_MACS) np = nt;
  tfs_i64 rows = M >= 2 * MM_MIN_ROWS ? M / MM_MIN_ROWS : M >= 2 ? 2 : 1;
  if (np > rows) np = (int)rows;
  if (np > nt) np -= np % nt;   /* whole rounds: 7 parts on 2 threads leave one thread a part behind */
  return np;
}

typedef struct {
  DType dt;
  char *C;
  const char *A, *B;
  const void *bias;
  tfs_i64 M, N, K;
  bool ta, tb, act;
  size_t es;
} MmJob;

static void mm_part(void *v, int part, int nparts) {
  const MmJob *j = v;
  tfs_i64 lo, hi;
  tp_slice(j->M, part, nparts, &lo, &hi);
  if (hi <= lo) return;
  char *c = j->C + (size_t)(lo * j->N) * j->es;
  const char *a = j->A + (size_t)(j->ta ? lo : lo * j->K) * j->es;
  matmul_one(j->dt, c, a, j->B, hi - lo, j->N, j->K, j->ta, j->tb, j->ta ? j->M : j->K);
  if (j->bias || j->act) mm_epilogue(j->dt, c, j->bias, hi - lo, j->N, j->bias != NULL, j->act);
}

/* C = op(A) op(B) [+ bias] [relu], over the pool when large enough. */
static void mm_block(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb,
                     const void *bias, bool act) {
  /* a slice of a transposed A needs a row stride: libxsmm and OpenBLAS take one, the integer kernels not */
  bool sliceable = !ta || dt == DT_FLOAT32 || dt == DT_FLOAT64;
  int np = sliceable ? mm_parts(M, N, K) : 1;
  if (np <= 1) {
    matmul_one(dt, C, A, B, M, N, K, ta, tb, ta ? M : K);
    if (bias || act) mm_epilogue(dt, C, bias, M, N, bias != NULL, act);
    return;
  }
  MmJob j = {dt, C, A, B, bias, M, N, K, ta, tb, act, (size_t)dtype_info[dt].size};
  tp_run(np, mm_part, &j);
}

/* A chain of products each reading the previous one's result (the first reads A), as a graph's stack of
 * Dense layers: row r of every link depends only on row r of the link before, so each thread takes a slice
 * of the rows through the whole chain as one pool job, with no hand-off or barrier per link (the 100-layer
 * bench handed the pool 100 jobs of ~1 us per call; docs/performance.md, "One pool job per chain of
 * products").  One slice per thread (at least MM_MIN_ROWS rows each where there are 16), fixed by M, the
 * chain's work and the thread count alone, so the bits are too; each slice of a link runs the kernel
 * mm_part would run on those rows.
 * A link whose C is NULL (one before the last, its result wanted by the next link only) keeps each slice
 * in a scratch region of its own thread's, pages apart from the other slices': written side by side into
 * one result, the slices of two threads shared their boundary pages, and each core's prefetchers, streaming
 * over its own rows, pulled in lines of the other's, so every link missed on lines the other core had just
 * taken (a thread's slice ran ~10% slower than the same work alone; docs/performance.md, "Chain slices in
 * memory of their own"). */
typedef struct {
  DType dt;
  const char *A;
  tfs_i64 M;
  const MmLink *links;
  int n;
  size_t es;
  char *scratch;       /* part p's two buffers at p * stride (NULL: every link has its C) */
  size_t half, stride;
} MmChainJob;

static void mm_chain_part(void *v, int part, int nparts) {
  const MmChainJob *j = v;
  tfs_i64 lo, hi;
  tp_slice(j->M, part, nparts, &lo, &hi);
  if (hi <= lo) return;
  char *own = j->scratch ? j->scratch + (size_t)part * j->stride : NULL;
  tfs_i64 K = j->links[0].K, lda = K;
  const char *a = j->A + (size_t)(lo * K) * j->es;
  for (int l = 0; l < j->n; l++) {
    const MmLink *q = &j->links[l];
    bool mine = !q->C;   /* only before the last link (ops.h) */
    char *c = mine ? own + (size_t)(l & 1) * j->half : (char *)q->C + (size_t)(lo * q->N) * j->es;
    matmul_one(j->dt, c, a, q->B, hi - lo, q->N, K, false, false, lda);
    if (q->bias || q->act) mm_epilogue(j->dt, c, q->bias, hi - lo, q->N, q->bias != NULL, q->act);
    a = c;
    K = lda = q->N;
  }
}

/* The chain's scratch, kept by the calling thread for its next chain (the graph's next call). */
static __thread char *chain_buf;
static __thread size_t chain_cap;

void matmul_chain(DType dt, const void *A, tfs_i64 M, const MmLink *links, int n) {
  tfs_i64 macs = 0, widest = 0;
  for (int l = 0; l < n; l++) {
    macs += M * links[l].N * links[l].K;
    if (!links[l].C && l + 1 < n && links[l].N > widest) widest = links[l].N;
  }
  int np = tp_parts(macs, MM_MIN_PART_MACS), nt = tp_threads();
  tfs_i64 rows = M >= 2 * MM_MIN_ROWS ? M / MM_MIN_ROWS : M >= 2 ? 2 : 1;
  if (np > nt) np = nt;
  if (np > rows) np = (int)rows;
  if (np < 1) np = 1;
  MmChainJob j = {dt, A, M, links, n, (size_t)dtype_info[dt].size, NULL, 0, 0};
  if (widest) {
    tfs_i64 most = (M + np - 1) / np;   /* tp_slice's longest slice */
    j.half = ((size_t)(most * widest) * j.es + 63) & ~(size_t)63;
    j.stride = (2 * j.half + 4095) & ~(size_t)4095;
    size_t bytes = j.stride * (size_t)np;
    if (bytes > chain_cap) {
      char *b = aligned_alloc(4096, bytes);
      if (!b) rt_throw(ERR_MEMORY, "out of memory");
      free(chain_buf);
      chain_buf = b, chain_cap = bytes;
    }
    j.scratch = chain_buf;
  }
  if (np > 1) tp_run(np, mm_chain_part, &j);
  else mm_chain_part(&j, 0, 1);
}

/* A product whose left operand is gathered rows of a table E [V, K] (an Embedding feeding a layer's input
 * projection: the LSTM bench projects 20,480 gathered rows of a 2,000-row table) is the gather of E's own
 * product: V rows are multiplied instead of B*T, and the gathered copy of the inputs is never made.  Each
 * row's sums are the same bits either way where both run OpenBLAS: its kernels sum every element over k in
 * order, whatever the number of rows (the register kernels and libxsmm's JIT block rows by size, so sizes
 * they would take are left to the unfused steps).  docs/performance.md, "Embedding into the projection". */
typedef struct {
  DType dt;
  char *P;
  const char *E, *W;
  const void *bias, *ids;
  char *C;
  tfs_i64 V, N, K, B, T;
  bool act, ids64, tmajor;
  size_t es;
} MmGather;

/* Fewest multiply-adds per slice of the table's product: far above OpenBLAS's small-matrix path (10^6), whose
 * kernels are not the ones its regular path runs. */
#define MM_TABLE_MACS ((tfs_i64)1 << 22)
/* OpenBLAS's kernels take C's rows (its column-major N) in blocks of up to 16 (Haswell: 4 or 8, with tails
 * of 2 and 1), and a row in a tail block can take other sums than one in a full block (measured: the avx2
 * and baseline paths' table rows differed in the last bits).  So every slice of the unfused product must be
 * whole blocks of 16 rows, and the table's product runs on whole blocks too, its last one padded. */
#define MM_TABLE_ROWS 16

static void mm_gather_table(void *v, int part, int nparts) {
  const MmGather *j = v;
  tfs_i64 lo, hi;
  tp_slice(j->V / MM_TABLE_ROWS, part, nparts, &lo, &hi);   /* whole blocks of rows (V is padded to them) */
  lo *= MM_TABLE_ROWS, hi *= MM_TABLE_ROWS;
  if (hi <= lo) return;
  char *p = j->P + (size_t)(lo * j->N) * j->es;
  blas_ready();
  if (j->dt == DT_FLOAT32)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)(hi - lo), (blasint)j->N, (blasint)j->K, 1.0f,
                (const float *)j->E + lo * j->K, (blasint)j->K, (const float *)j->W, (blasint)j->N, 0.0f, (float *)p, (blasint)j->N);
  else
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)(hi - lo), (blasint)j->N, (blasint)j->K, 1.0,
                (const double *)j->E + lo * j->K, (blasint)j->K, (const double *)j->W, (blasint)j->N, 0.0, (double *)p, (blasint)j->N);
  if (j->bias || j->act) mm_epilogue(j->dt, p, j->bias, hi - lo, j->N, j->bias != NULL, j->act);
}

static void mm_gather_rows(void *v, int part, int nparts) {
  const MmGather *j = v;
  tfs_i64 M = j->B * j->T, lo, hi;
  tp_slice(M, part, nparts, &lo, &hi);
  size_t row = (size_t)j->N * j->es;
  for (tfs_i64 r = lo; r < hi; r++) {
    tfs_i64 i = j->tmajor ? (r % j->B) * j->T + r / j->B : r;   /* row t*B + b reads ids[b, t] */
    tfs_i64 id = j->ids64 ? ((const int64_t *)j->ids)[i] : ((const int32_t *)j->ids)[i];
    memcpy(j->C + (size_t)r * row, j->P + (size_t)id * row, row);
  }
}

bool matmul_gather(DType dt, void *C, const void *E, tfs_i64 V, const void *ids, bool ids64, tfs_i64 B, tfs_i64 T,
                   bool tmajor, const void *W, tfs_i64 N, tfs_i64 K, const void *bias, bool act) {
  tfs_i64 M = B * T;
  if ((dt != DT_FLOAT32 && dt != DT_FLOAT64) || V <= 0 || N <= 0 || K <= 0 || M < 2 * V || V * N * K < MM_TABLE_MACS)
    return false;
  /* the kernel each slice of the unfused product would take (mm_block): OpenBLAS only */
  int np = mm_parts(M, N, K);
  for (int part = 0; part < np; part++) {
    tfs_i64 lo, hi;
    tp_slice(M, part, np, &lo, &hi);
    if (xsmm_takes_size((hi - lo) * N * K) || !mm_uses_blas(dt, hi - lo, N, K) || (hi - lo) % MM_TABLE_ROWS) return false;
  }
  /* the OpenBLAS cores whose rows were checked to sum alike in any block (golden keras_embedding_lstm on the
   * baseline and avx512 paths); Haswell's (the avx2 path) did not, for reasons not found */
  blas_ready();
  const char *core = blas_core();
  if (strcasecmp(core, "SkylakeX") && strcasecmp(core, "Cooperlake") && strcasecmp(core, "Prescott")) return false;
  for (tfs_i64 i = 0; i < M; i++) {
    tfs_i64 id = ids64 ? ((const int64_t *)ids)[i] : ((const int32_t *)ids)[i];
    if (id < 0 || id >= V) return false;
  }
  size_t es = (size_t)dtype_info[dt].size;
  tfs_i64 Vp = (V + MM_TABLE_ROWS - 1) / MM_TABLE_ROWS * MM_TABLE_ROWS;
  /* the table's product (2 MB for the bench), then, when V is not whole blocks, the table padded with zero
   * rows; kept for the next call */
  static __thread void *pbuf;
  static __thread size_t pcap;
  size_t need = (size_t)(Vp * N) * es + (Vp > V ? (size_t)(Vp * K) * es : 0);
  if (need > pcap) {
    void *q = realloc(pbuf, need);
    if (!q) return false;
    pbuf = q;
    pcap = need;
  }
  if (Vp > V) {
    char *pad = (char *)pbuf + (size_t)(Vp * N) * es;
    memcpy(pad, E, (size_t)(V * K) * es);
    memset(pad + (size_t)(V * K) * es, 0, (size_t)((Vp - V) * K) * es);
    E = pad;
  }
  MmGather j = {dt, pbuf, E, W, bias, ids, C, Vp, N, K, B, T, act, ids64, tmajor, es};
  int nt = tp_parts(Vp * N * K, MM_TABLE_MACS);
  if (nt > 1) tp_run(nt, mm_gather_table, &j);
  else mm_gather_table(&j, 0, 1);
  int ng = tp_parts(M * N, TP_EW_MIN_PART);
  if (ng > 1) tp_run(ng, mm_gather_rows, &j);
  else mm_gather_rows(&j, 0, 1);
  return true;
}

void matmul_any(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb) {
  mm_block(dt, C, A, B, M, N, K, ta, tb, NULL, false);
}

void matmul_2d_epilogue(DType dt, void *C, const void *bias, tfs_i64 M, tfs_i64 N, bool act) {
  mm_epilogue(dt, C, bias, M, N, bias != NULL, act);
}
/* Complex products through OpenBLAS's cgemm/zgemm; adjoint_a/b are its conjugate transposes (ca, cb). */
static void mm_complex(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb,
                       bool ca, bool cb) {
  blas_ready();
  enum CBLAS_TRANSPOSE tA = ca ? CblasConjTrans : ta ? CblasTrans : CblasNoTrans;
  enum CBLAS_TRANSPOSE tB = cb ? CblasConjTrans : tb ? CblasTrans : CblasNoTrans;
  blasint lda = (blasint)(ta ? M : K), ldb = (blasint)(tb ? K : N);
  static const float one_f[2] = {1, 0}, zero_f[2] = {0, 0};
  static const double one_d[2] = {1, 0}, zero_d[2] = {0, 0};
  if (dt == DT_COMPLEX64)
    cblas_cgemm(CblasRowMajor, tA, tB, (blasint)M, (blasint)N, (blasint)K, one_f, A, lda, B, ldb, zero_f, C, (blasint)N);
  else
    cblas_zgemm(CblasRowMajor, tA, tB, (blasint)M, (blasint)N, (blasint)K, one_d, A, lda, B, ldb, zero_d, C, (blasint)N);
}

void matmul_2d(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, const void *bias,
               bool act) {
  mm_block(dt, C, A, B, M, N, K, false, false, bias, act);
}

/* Independent products as one pool job (the graph executor's inter-op pairs: a Dense layer's dW = X^T dY and
 * dX = dY W^T).  Each product is cut into exactly the slices mm_block would cut it into alone and each slice
 * runs the kernel mm_part would run, so every result has the bits it has alone for a given thread count; one
 * hand-off and one wait serve them all, and a thread done with its slices of one product goes on with the
 * other's.  Only when every product splits: two unsplit products run at once on two threads measured no faster
 * (8x64x64) or 1.8x slower (32x32x32) than one after another on the caller (docs/performance.md, "Inter-op
 * pairs"), so those run one after another, each as alone. */
enum { MM_PRODS_MAX = 4 };
typedef struct {
  DType dt;
  const MmProd *p;
  int n;
  int first[MM_PRODS_MAX + 1];   /* product i owns parts [first[i], first[i + 1]) */
  size_t es;
} MmProdsJob;

static void mm_prods_part(void *v, int part, int nparts) {
  (void)nparts;
  const MmProdsJob *j = v;
  int i = 0;
  while (part >= j->first[i + 1]) i++;
  const MmProd *q = &j->p[i];
  MmJob one = {j->dt, q->C, q->A, q->B, q->bias, q->M, q->N, q->K, q->ta, q->tb, q->act, j->es};
  mm_part(&one, part - j->first[i], j->first[i + 1] - j->first[i]);
}

static int mm_prod_parts(DType dt, const MmProd *q) {
  return !q->ta || dt == DT_FLOAT32 || dt == DT_FLOAT64 ? mm_parts(q->M, q->N, q->K) : 1;
}

void matmul_prods(DType dt, const MmProd *p, int n) {
  MmProdsJob j = {dt, p, n, {0}, (size_t)dtype_info[dt].size};
  bool all_split = n >= 2 && n <= MM_PRODS_MAX;
  for (int i = 0; i < n && all_split; i++) {
    int np = mm_prod_parts(dt, &p[i]);
    j.first[i + 1] = j.first[i] + np;
    all_split = np > 1;
  }
  if (!all_split) {
    for (int i = 0; i < n; i++) mm_block(dt, p[i].C, p[i].A, p[i].B, p[i].M, p[i].N, p[i].K, p[i].ta, p[i].tb, p[i].bias, p[i].act);
    return;
  }
  tp_run(j.first[n], mm_prods_part, &j);
}

static inline bool mm_attr_flag(const OpCall *c, int i) {
  Val v = op_attr(c, i);
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return false;
  if (v.tag == VT_BOOL || v.tag == VT_INT) return v.u.i != 0;
  return op_attr_bool(c, i, false);
}

static void mm_flags(OpCall *c, bool *ta, bool *tb) {
  *ta = mm_attr_flag(c, 0) || mm_attr_flag(c, 2);
  *tb = mm_attr_flag(c, 1) || mm_attr_flag(c, 3);
  c->iscr[2] = mm_attr_flag(c, 2);   /* adjoint: a conjugate transpose, for complex products */
  c->iscr[3] = mm_attr_flag(c, 3);
}

/* shape: [..., m, n] from a [..., m, k] and b [..., k, n] (after transpose_a / transpose_b); both at least rank 2, batch dimensions broadcast. */
void meta_matmul(OpCall *c) {
  const TMeta *a = &c->inm[0], *b = &c->inm[1];
  TMeta *o = &c->outm[0];
  o->dtype = a->dtype;
  if (a->rank < 0 || b->rank < 0) { o->rank = -1; return; }
  if (a->rank < 2 || b->rank < 2) {
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "In[0] and In[1] has different ndims or ndims < 2: ");
    op_shape_text(&s, a->rank, a->shape);
    sb_puts(&s, " vs. ");
    op_shape_text(&s, b->rank, b->shape);
    /* errindex: In[0] and In[1] has different ndims or ndims < 2: … vs. … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
  }
  bool ta, tb;
  mm_flags(c, &ta, &tb);
  c->iscr[0] = ta;   /* for the kernel of this call */
  c->iscr[1] = tb;
  tfs_i64 M = a->shape[a->rank - (ta ? 1 : 2)], K = a->shape[a->rank - (ta ? 2 : 1)];
  tfs_i64 Kb = b->shape[b->rank - (tb ? 1 : 2)], N = b->shape[b->rank - (tb ? 2 : 1)];
  /* batch dims broadcast (BatchMatMulV2) */
  TMeta ba = *a, bb = *b;
  ba.rank -= 2;
  bb.rank -= 2;
  bool batch_ok = true;
  int r = ba.rank > bb.rank ? ba.rank : bb.rank;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - ba.rank), ib = i - (r - bb.rank);
    tfs_i64 da = ia >= 0 ? ba.shape[ia] : 1, db = ib >= 0 ? bb.shape[ib] : 1;
    if (da != db && da != 1 && db != 1 && da >= 0 && db >= 0) batch_ok = false;
  }
  if (!batch_ok || (K >= 0 && Kb >= 0 && K != Kb)) {
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, batch_ok ? "Matrix size-incompatible: In[0]: " : "In[0] and In[1] must have compatible batch dimensions: ");
    op_shape_text(&s, a->rank, a->shape);
    sb_puts(&s, batch_ok ? ", In[1]: " : " vs. ");
    op_shape_text(&s, b->rank, b->shape);
    /* errindex: Matrix size-incompatible: In[0]: …, In[1]: … */
    /* errindex: In[0] and In[1] must have compatible batch dimensions: … vs. … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
  }
  op_broadcast_meta(c, &ba, &bb, o);
  o->shape[o->rank++] = M;
  o->shape[o->rank++] = N;
  o->dtype = a->dtype;
}

/* The (batched, broadcasting) product of c->in[0] and c->in[1] into c->out[0],
 * each matrix followed by the fused epilogue when bias/act are given. */
static void mm_batched(OpCall *c, const void *bias, bool act) {
  Tensor *a = tensor_contiguous(c->in[0]), *b = tensor_contiguous(c->in[1]), *o = c->out[0];
  bool ta = c->iscr[0] != 0, tb = c->iscr[1] != 0, cplx = dtype_is_complex(o->dtype), ca = cplx && c->iscr[2], cb = cplx && c->iscr[3];
  int ra = a->rank, rb = b->rank, ro = o->rank;
  tfs_i64 M = o->shape[ro - 2], N = o->shape[ro - 1];
  tfs_i64 K = a->shape[ra - (ta ? 2 : 1)];
  size_t esz = (size_t)dtype_info[o->dtype].size;
  tfs_i64 amat = a->shape[ra - 1] * a->shape[ra - 2], bmat = b->shape[rb - 1] * b->shape[rb - 2];
  tfs_i64 nbatch = o->size / (M * N > 0 ? M * N : 1);
  if (M * N == 0) nbatch = 0;
  if (K == 0) {
    memset(tensor_data(o), 0, (size_t)o->size * esz);
    if (bias || act)
      for (tfs_i64 bi = 0; bi < nbatch; bi++)
        mm_epilogue(o->dtype, (char *)tensor_data(o) + (size_t)(bi * M * N) * esz, bias, M, N, bias != NULL, act);
  } else if (ro == 2 && cplx) {
    mm_complex(o->dtype, tensor_data(o), tensor_data(a), tensor_data(b), M, N, K, ta, tb, ca, cb);
  } else if (ro == 2) {
    mm_block(o->dtype, tensor_data(o), tensor_data(a), tensor_data(b), M, N, K, ta, tb, bias, act);
  } else {
    /* batch index -> matrix index of a and b, with broadcasting */
    int nb = ro - 2;
    tfs_i64 idx[TFS_MAX_RANK] = {0};
    for (tfs_i64 bi = 0; bi < nbatch; bi++) {
      tfs_i64 ia = 0, ib = 0, sa = 1, sb = 1;
      for (int d = nb - 1; d >= 0; d--) {
        int da = d - (nb - (ra - 2)), db = d - (nb - (rb - 2));
        if (da >= 0) {
          tfs_i64 n = a->shape[da];
          ia += (n == 1 ? 0 : idx[d]) * sa;
          sa *= n;
        }
        if (db >= 0) {
          tfs_i64 n = b->shape[db];
          ib += (n == 1 ? 0 : idx[d]) * sb;
          sb *= n;
        }
      }
      char *po = (char *)tensor_data(o) + (size_t)(bi * M * N) * esz, *pa = (char *)tensor_data(a) + (size_t)(ia * amat) * esz,
           *pb = (char *)tensor_data(b) + (size_t)(ib * bmat) * esz;
      if (cplx) mm_complex(o->dtype, po, pa, pb, M, N, K, ta, tb, ca, cb);
      else mm_block(o->dtype, po, pa, pb, M, N, K, ta, tb, bias, act);
      for (int d = nb - 1; d >= 0; d--) {
        if (++idx[d] < o->shape[d]) break;
        idx[d] = 0;
      }
    }
  }
  tensor_release(a);
  tensor_release(b);
}

void k_matmul(OpCall *c) {
  if (ew_wide(c->in[0]->dtype) >= 0) { ew_run_wide(c, (DType)ew_wide(c->in[0]->dtype), k_matmul); return; }   /* halves: float32 products and sums, rounded once */
  mm_batched(c, NULL, false);
}

/* _FusedMatMul(a, b, bias): the planner only fuses a [N] bias of the product's
 * dtype whose size it knows to match, but the checks stay for direct callers. */
/* shape: as tf.matmul: [..., m, n] from [..., m, k] and [..., k, n]. */
void meta_fused_matmul(OpCall *c) {
  meta_matmul(c);
  const TMeta *o = &c->outm[0], *bm = &c->inm[2];
  if (bm->rank != 1 || bm->dtype != o->dtype || (o->rank >= 0 && bm->shape[0] >= 0 && o->shape[o->rank - 1] >= 0 &&
                                                  bm->shape[0] != o->shape[o->rank - 1])) {
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "_FusedMatMul: bias must be a vector of the product's last dimension: ");
    op_shape_text(&s, bm->rank, bm->shape);
    /* errindex: _FusedMatMul: bias must be a vector of the product's last dimension: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
  }
}

void k_fused_matmul(OpCall *c) {
  Tensor *bias = tensor_contiguous(c->in[2]);
  int mark = rt_hold_val(val_obj(bias));
  mm_batched(c, tensor_data(bias), op_attr_int(c, 4, 0) == 1);
  rt_unhold(mark);
  tensor_release(bias);
}

/* ---- transpose ------------------------------------------------------------------------------ */

/* shape: the input's dimensions permuted by perm (reversed by default). */
void meta_transpose(OpCall *c) {
  const TMeta *a = &c->inm[0];
  TMeta *o = &c->outm[0];
  o->dtype = a->dtype;
  o->rank = a->rank;
  if (a->rank < 0) return;
  int r = a->rank;
  tfs_i64 *perm = c->iscr;
  Val pv = op_attr(c, 0);
  if (pv.tag == VT_NONE || pv.tag == VT_UNDEF) {
    for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
  } else {
    tfs_i64 p[TFS_MAX_RANK];
    int n = val_to_dims(pv, p, false, "tf.transpose perm");
    if (n != r) op_fail(c, ERR_INVALID_ARGUMENT, "transpose expects a vector of size %d. But input(1) is a vector of size %d", r, n);
    bool seen[TFS_MAX_RANK] = {0};
    for (int i = 0; i < r; i++) {
      tfs_i64 q = p[i] < 0 ? p[i] + r : p[i];
      if (q < 0 || q >= r || seen[q]) op_fail(c, ERR_INVALID_ARGUMENT, "%lld is missing from 'perm' argument.", (long long)i);
      seen[q] = true;
      perm[i] = q;
    }
  }
  for (int i = 0; i < r; i++) o->shape[i] = a->shape[perm[i]];
}

void k_transpose(OpCall *c) {
  Tensor *a = c->in[0];
  tfs_i64 shape[TFS_MAX_RANK], strides[TFS_MAX_RANK];
  for (int i = 0; i < a->rank; i++) {
    shape[i] = a->shape[c->iscr[i]];
    strides[i] = a->strides[c->iscr[i]];
  }
  Tensor *v = tensor_view(a, a->rank, shape, strides, a->offset);
  ew_cast(c->out[0], v);
  tensor_release(v);
  /* conjugate=True: TF's ConjugateTranspose (a real tensor is left as it is) */
  if (dtype_is_complex(a->dtype) && op_attr_bool(c, 1, false)) ew_unary(OP_CONJ, c->out[0], c->out[0]);
}

/* ---- bias_add ------------------------------------------------------------------------------- */

/* shape: value's shape; bias is 1-D and its length equals value's last dimension. */
void meta_bias_add(OpCall *c) {
  const TMeta *v = &c->inm[0], *b = &c->inm[1];
  Val fmt = op_attr(c, 0);
  if (fmt.tag == VT_OBJ) {
    StrBuf s;
    sb_init(&s);
    val_str(&s, fmt);
    bool nhwc = s.len == 0 || s.data[s.len - 1] == 'C';
    sb_free(&s);
    if (!nhwc) op_fail(c, ERR_UNIMPLEMENTED, "bias_add: only channels-last data_format is supported");
  }
  if (b->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "Biases must be 1D: %s", "");
  if (v->rank >= 0 && v->rank < 2) op_fail(c, ERR_INVALID_ARGUMENT, "Input tensor must be at least 2D: %s", "");
  if (v->rank > 0 && v->shape[v->rank - 1] >= 0 && b->shape[0] >= 0 && v->shape[v->rank - 1] != b->shape[0]) {
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "Must provide as many biases as the last dimension of the input tensor: ");
    op_shape_text(&s, b->rank, b->shape);
    sb_puts(&s, " vs. ");
    op_shape_text(&s, v->rank, v->shape);
    /* errindex: Must provide as many biases as the last dimension of the input tensor: … vs. … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
  }
  c->outm[0] = *v;
}

void k_bias_add(OpCall *c) {
  DType dt = c->in[0]->dtype;
  /* float16/bfloat16 (mixed precision Dense layers): added in float32 and rounded, as k_binary does */
  if ((dt == DT_FLOAT16 || dt == DT_BFLOAT16) && ew_wide(dt) >= 0) { ew_run_wide(c, (DType)ew_wide(dt), k_bias_add); return; }
  ew_binary(OP_ADD, c->out[0], c->in[0], c->in[1]);
}
