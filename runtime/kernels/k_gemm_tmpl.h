/* k_gemm_tmpl.h — the small-GEMM kernels' body, included by k_gemm.c once per ISA (GEMM_VB vector bytes, GEMM_SFX). */
/* No include guard: meant to be included several times. */

#define GEMM_CAT2(a, b) a##b
#define GEMM_CAT(a, b) GEMM_CAT2(a, b)

/* A row of a panel into C: whole vectors at once, a partial last panel element by element. */
#define GEMM_STORE(dst, src, NV, T, U)                                                                  \
  do {                                                                                               \
    if (nj == (NV) * L) memcpy((dst), (src), sizeof(src));                                           \
    else                                                                                             \
      for (tfs_i64 j = 0; j < nj; j++) (dst)[j] = (T)((const U *)(src))[j];                          \
  } while (0)

/* C[M,N] = op(A) op(B).  B is packed into zero-padded panels of NV vectors per k, then each group of
 * four rows of C keeps 4 x NV vector accumulators in registers across the whole K loop: no spills
 * (NV <= 2 fits AVX2's 16 registers), no tail loops.  Every element is summed over k in order with a
 * separate multiply and add (k_gemm.c turns contraction off), so all ISA paths give the same bits. */
#define GEMM_PANELS(NV, T, U, V, L)                                                                  \
  for (tfs_i64 p = 0; p < np; p++) {                                                                 \
    const V *bpp = bp + p * K * (NV);                                                                \
    tfs_i64 j0 = p * (NV) * L, nj = N - j0 < (NV) * L ? N - j0 : (NV) * L;                           \
    tfs_i64 i = 0;                                                                                   \
    for (; i + 4 <= M; i += 4) {                                                                     \
      V acc[4][NV], out[4][NV]; /* acc's address is never taken, so it lives in registers */       \
      for (int r = 0; r < 4; r++)                                                                    \
        for (int v = 0; v < (NV); v++) acc[r][v] = (V){0};                                           \
      const T *a0 = A + i * as_i;                                                                    \
      for (tfs_i64 k = 0; k < K; k++) {                                                              \
        for (int r = 0; r < 4; r++) {                                                                \
          U x = (U)a0[r * as_i + k * as_k];                                                          \
          for (int v = 0; v < (NV); v++) acc[r][v] += x * bpp[k * (NV) + v];                         \
        }                                                                                            \
      }                                                                                              \
      for (int r = 0; r < 4; r++)                                                                    \
        for (int v = 0; v < (NV); v++) out[r][v] = acc[r][v];                                        \
      for (int r = 0; r < 4; r++) GEMM_STORE(C + (i + r) * N + j0, out[r], NV, T, U);                     \
    }                                                                                                \
    for (; i < M; i++) {                                                                             \
      V acc[NV], out[NV];                                                                            \
      for (int v = 0; v < (NV); v++) acc[v] = (V){0};                                                \
      const T *a0 = A + i * as_i;                                                                    \
      for (tfs_i64 k = 0; k < K; k++) {                                                              \
        U x = (U)a0[k * as_k];                                                                       \
        for (int v = 0; v < (NV); v++) acc[v] += x * bpp[k * (NV) + v];                              \
      }                                                                                              \
      for (int v = 0; v < (NV); v++) out[v] = acc[v];                                                \
      GEMM_STORE(C + i * N + j0, out, NV, T, U);                                                         \
    }                                                                                                \
  }

#define GEMM_DEF(NAME, T, U)                                                                         \
  static void GEMM_CAT(NAME, GEMM_SFX)(void *Cv, const void *Av, const void *Bv, tfs_i64 M, tfs_i64 N, \
                                       tfs_i64 K, bool ta, bool tb) {                                \
    typedef U V __attribute__((vector_size(GEMM_VB)));                                               \
    enum { L = GEMM_VB / sizeof(U) };                                                                \
    T *restrict C = Cv;                                                                              \
    const T *restrict A = Av, *restrict B = Bv;                                                      \
    tfs_i64 as_i = ta ? 1 : K, as_k = ta ? M : 1; /* A(i,k) = A[i*as_i + k*as_k] */                  \
    tfs_i64 bs_k = tb ? 1 : N, bs_j = tb ? K : 1; /* B(k,j) likewise */                              \
    int nv = N <= L ? 1 : 2;                                                                         \
    tfs_i64 np = (N + nv * L - 1) / (nv * L);                                                        \
    size_t nvec = (size_t)(np * K * nv);                                                             \
    /* small products pack on the stack; big integer ones (no BLAS for them) on the heap */          \
    bool heap = nvec * sizeof(V) > 32768;                                                            \
    V sbuf[heap ? 1 : nvec + 1];                                                                     \
    V *bp = heap ? aligned_alloc(64, (nvec * sizeof(V) + 63) / 64 * 64) : sbuf;                      \
    if (!bp) rt_throw(ERR_MEMORY, "OOM when packing a matrix");                                                                  \
    memset(bp, 0, nvec * sizeof(V));                                                                 \
    U *bpu = (U *)bp; /* panel p, row k, column jj at [(p*K + k)*nv*L + jj] */                        \
    for (tfs_i64 p = 0; p < np; p++)                                                                 \
      for (tfs_i64 k = 0; k < K; k++)                                                                \
        for (tfs_i64 j = p * nv * L, jj = 0; j < N && jj < nv * L; j++, jj++)                        \
          bpu[(p * K + k) * nv * L + jj] = (U)B[k * bs_k + j * bs_j];                                \
    if (nv == 1) {                                                                                   \
      GEMM_PANELS(1, T, U, V, L)                                                                     \
    } else {                                                                                         \
      GEMM_PANELS(2, T, U, V, L)                                                                     \
    }                                                                                                \
    if (heap) free(bp);                                                                              \
  }

GEMM_DEF(gemm_f32, float, float)
GEMM_DEF(gemm_f64, double, double)
GEMM_DEF(gemm_i32, int32_t, uint32_t)
GEMM_DEF(gemm_i64, int64_t, uint64_t)

#undef GEMM_DEF
#undef GEMM_PANELS
#undef GEMM_STORE
