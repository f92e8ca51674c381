/* k_xsmm.c — small float32/float64 products (transposed operands too) through libxsmm's JIT, generating code for the active ISA path. */
#include <libxsmm.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kernels/ops.h"

/* Measured on the development machine (docs/performance.md): libxsmm's JIT kernels, dispatch
 * included, beat both OpenBLAS and our own register kernels from 4x4x4 up to 256x256x256; above
 * that OpenBLAS's cache blocking (and optional threads) takes over. */
#define XSMM_MAX_FLOPS ((tfs_i64)1 << 24)

/* libxsmm targets the path isa.c picked, so TFS_ISA reaches its JIT as well; the baseline path has no
 * JIT (dispatch returns NULL) and falls back to the caller's kernels. */
static _Atomic int xsmm_isa = -1;
static pthread_mutex_t xsmm_mu = PTHREAD_MUTEX_INITIALIZER;   /* products run on the thread pool's workers too */

static void xsmm_target(Isa isa) {
  static const int arch[ISA_COUNT] = {LIBXSMM_X86_GENERIC, LIBXSMM_X86_AVX2, LIBXSMM_X86_AVX512_CORE};
  pthread_mutex_lock(&xsmm_mu);
  if (atomic_load(&xsmm_isa) != (int)isa) {
    libxsmm_set_target_archid(arch[isa]);
    atomic_store(&xsmm_isa, (int)isa);
  }
  pthread_mutex_unlock(&xsmm_mu);
}

/* libxsmm's JIT kernels return with the upper halves of the vector registers dirty (no
 * vzeroupper).  The runtime's kernels are mostly SSE code, and every legacy-SSE instruction
 * after such a kernel then pays a state-merge penalty: perf showed the fused MatMul+Relu
 * epilogue's SSE loop at ~1 ns per element (42% of the dense stack).  The JIT only runs on the
 * AVX2/AVX-512 paths, so the instruction is always there when this runs. */
static inline void xsmm_clear_upper(void) { __asm__ volatile("vzeroupper" ::: "memory"); }

/* B^T of a row-major [rows, cols] float/double matrix into dst [cols, rows], in 32x32 tiles so that
 * both sides stay in cache lines. */
static void transpose_tiles(size_t esz, void *dst, const void *src, tfs_i64 rows, tfs_i64 cols) {
  enum { T = 32 };
  for (tfs_i64 i0 = 0; i0 < rows; i0 += T)
    for (tfs_i64 j0 = 0; j0 < cols; j0 += T) {
      tfs_i64 i1 = i0 + T < rows ? i0 + T : rows, j1 = j0 + T < cols ? j0 + T : cols;
      if (esz == 4) {
        const float *s = src;
        float *d = dst;
        for (tfs_i64 i = i0; i < i1; i++)
          for (tfs_i64 j = j0; j < j1; j++) d[j * rows + i] = s[i * cols + j];
      } else {
        const double *s = src;
        double *d = dst;
        for (tfs_i64 i = i0; i < i1; i++)
          for (tfs_i64 j = j0; j < j1; j++) d[j * rows + i] = s[i * cols + j];
      }
    }
}

/* transpose_b through a transposed copy of B: libxsmm 1.17's JIT has no kernel for it (dispatch
 * returns NULL), and copying B (K*N elements) then running the plain kernel beat OpenBLAS's
 * transposed sgemm 3x at 100x100x100 (docs/performance.md), as long as the product reuses each
 * element of the copy M times.  The copy lives in a per-thread buffer kept for the next call. */
#define XSMM_TB_MAX_ELEMS ((tfs_i64)1 << 18)
#define XSMM_TB_MIN_M 8
static __thread void *tb_buf;
static __thread size_t tb_cap;

static void *tb_scratch(size_t bytes) {
  if (bytes > tb_cap) {
    void *p = realloc(tb_buf, bytes);
    if (!p) return NULL;
    tb_buf = p;
    tb_cap = bytes;
  }
  return tb_buf;
}

bool xsmm_takes_size(tfs_i64 macs) { return macs > 0 && macs <= XSMM_MAX_FLOPS && isa_active() != ISA_BASELINE; }

bool xsmm_gemm(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb) {
  return xsmm_gemm_lda(dt, C, A, B, M, N, K, ta, tb, ta ? M : K);
}

/* The last few kernels this thread dispatched, by shape: a graph's chain of products runs the same shapes in
 * turn (the 100-layer bench: one 784-deep link and 99 64-deep ones per thread and call), and libxsmm's
 * dispatch (descriptor, hash, lookup) cost ~25 ns a product there, paid by every thread for its slice: the
 * part of a product's time that does not shrink with more threads.  Per thread, so no lock; a kernel's code
 * lives as long as the process (libxsmm never frees it), and the ISA path is part of the key. */
typedef struct {
  int dt, isa, flags;
  libxsmm_blasint m, n, k, ldb;   /* lda = m and ldc = m always */
} XsmmKey;
typedef struct {
  XsmmKey key;
  bool used;
  libxsmm_smmfunction fs;
  libxsmm_dmmfunction fd;
} XsmmKernel;
#define XSMM_CACHED 4
static __thread XsmmKernel xsmm_cache[XSMM_CACHED];
static __thread unsigned xsmm_cache_next;

static XsmmKernel *kernel_cached(const XsmmKey *key) {
  for (int i = 0; i < XSMM_CACHED; i++) {
    const XsmmKey *c = &xsmm_cache[i].key;
    if (xsmm_cache[i].used && c->m == key->m && c->n == key->n && c->k == key->k && c->ldb == key->ldb &&
        c->dt == key->dt && c->isa == key->isa && c->flags == key->flags)
      return &xsmm_cache[i];
  }
  return NULL;
}

static void kernel_remember(const XsmmKey *key, libxsmm_smmfunction fs, libxsmm_dmmfunction fd) {
  XsmmKernel *e = &xsmm_cache[xsmm_cache_next++ % XSMM_CACHED];
  e->key = *key, e->used = true, e->fs = fs, e->fd = fd;
}

bool xsmm_gemm_lda(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb,
                   tfs_i64 ldA) {
  if ((dt != DT_FLOAT32 && dt != DT_FLOAT64) || M * N * K > XSMM_MAX_FLOPS || M * N * K == 0) return false;
  if (tb && (K * N > XSMM_TB_MAX_ELEMS || M < XSMM_TB_MIN_M)) return false;
  Isa isa = isa_active();
  if (isa == ISA_BASELINE) return false;
  if (atomic_load(&xsmm_isa) != (int)isa) xsmm_target(isa);
  /* libxsmm is column-major: C^T[N,M] = B^T[N,K] A^T[K,M], i.e. row-major C = A B with A and B swapped.
   * transpose_a is its TRANS_B on the stored A (leading dimension M, or ldA for a slice of a wider A). */
  const libxsmm_blasint m = (libxsmm_blasint)N, n = (libxsmm_blasint)M, k = (libxsmm_blasint)K;
  const libxsmm_blasint lda = (libxsmm_blasint)N, ldb = (libxsmm_blasint)ldA, ldc = (libxsmm_blasint)N;
  const int flags = ta ? LIBXSMM_GEMM_FLAG_TRANS_B : LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_PREFETCH_NONE;
  libxsmm_smmfunction fs = NULL;
  libxsmm_dmmfunction fd = NULL;
  XsmmKey key = {(int)dt, (int)isa, flags, m, n, k, ldb};
  XsmmKernel *hit = kernel_cached(&key);
  if (hit) {
    fs = hit->fs, fd = hit->fd;
  } else {
    const float salpha = 1, sbeta = 0;
    const double dalpha = 1, dbeta = 0;
    if (dt == DT_FLOAT32)
      fs = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &salpha, &sbeta, &flags, &prefetch);
    else
      fd = libxsmm_dmmdispatch(m, n, k, &lda, &ldb, &ldc, &dalpha, &dbeta, &flags, &prefetch);
    kernel_remember(&key, fs, fd);
  }
  if (!fs && !fd) return false;
  if (tb) {   /* B is [N, K]: its transpose [K, N] is the plain kernel's operand */
    size_t esz = (size_t)dtype_info[dt].size;
    void *bt = tb_scratch((size_t)(K * N) * esz);
    if (!bt) return false;
    transpose_tiles(esz, bt, B, N, K);
    B = bt;
  }
  if (fs)
    fs(B, A, C);
  else
    fd(B, A, C);
  xsmm_clear_upper();
  return true;
}

bool xsmm_br_get(XsmmBr *h, DType dt, tfs_i64 M, tfs_i64 N, tfs_i64 K, tfs_i64 lda) {
  h->fn = NULL, h->dt = dt;
  if ((dt != DT_FLOAT32 && dt != DT_FLOAT64) || M <= 0 || N <= 0 || K <= 0) return false;
  Isa isa = isa_active();
  if (isa == ISA_BASELINE) return false;
  if (atomic_load(&xsmm_isa) != (int)isa) xsmm_target(isa);
  /* column-major as in xsmm_gemm: C^T[N,M] = sum B_i^T[N,K] A_i^T[K,M] */
  const libxsmm_blasint m = (libxsmm_blasint)N, n = (libxsmm_blasint)M, k = (libxsmm_blasint)K;
  const libxsmm_blasint la = (libxsmm_blasint)N, lb = (libxsmm_blasint)lda, lc = (libxsmm_blasint)N;
  const int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_PREFETCH_NONE;
  const float salpha = 1, sbeta = 0;
  const double dalpha = 1, dbeta = 0;
  if (dt == DT_FLOAT32)
    h->fn = (void *)libxsmm_smmdispatch_reducebatch_addr(m, n, k, &la, &lb, &lc, &salpha, &sbeta, &flags, &prefetch);
  else
    h->fn = (void *)libxsmm_dmmdispatch_reducebatch_addr(m, n, k, &la, &lb, &lc, &dalpha, &dbeta, &flags, &prefetch);
  return h->fn != NULL;
}

void xsmm_br_run(const XsmmBr *h, void *C, const void **A, const void **B, tfs_i64 count) {
  unsigned long long cnt = (unsigned long long)count;
  if (h->dt == DT_FLOAT32)
    ((libxsmm_smmfunction_reducebatch_addr)h->fn)((const float **)B, (const float **)A, C, &cnt);
  else
    ((libxsmm_dmmfunction_reducebatch_addr)h->fn)((const double **)B, (const double **)A, C, &cnt);
  xsmm_clear_upper();
}
