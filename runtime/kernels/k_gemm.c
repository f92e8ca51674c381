/* k_gemm.c — small matrix products in registers, compiled once per ISA path (baseline, AVX2, AVX-512) and picked by isa.c. */
#pragma GCC optimize("O3")
/* Multiply and add stay separate operations: FMA exists only on the AVX2/AVX-512 paths, and
 * contracting there would make the same product round differently per CPU. */
#pragma GCC optimize("fp-contract=off")
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF   /* clang ignores the GCC pragma above */
#endif

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/isa.h"
#include "kernels/ops.h"

#define GEMM_VB 16
#define GEMM_SFX _baseline
#include "kernels/k_gemm_tmpl.h"
#undef GEMM_VB
#undef GEMM_SFX

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define GEMM_VB 32
#define GEMM_SFX _avx2
#include "kernels/k_gemm_tmpl.h"
#undef GEMM_VB
#undef GEMM_SFX
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define GEMM_VB 64
#define GEMM_SFX _avx512
#include "kernels/k_gemm_tmpl.h"
#undef GEMM_VB
#undef GEMM_SFX
#pragma GCC pop_options

/* ---- narrow products: N fits the vectors and B is not transposed -------------------------------
 * B's rows load straight from memory under a lane mask and C's rows store the same way, so nothing
 * is packed: for 10x10 products the packing loop and the element-by-element partial stores cost
 * more than the arithmetic.  Same order of operations as GEMM_PANELS (k in order, multiply then
 * add), so the bits match every other path. */
typedef void (*NarrowFn)(void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta);

/* ROW(r) accumulates row i+r of C in NV vectors acc##r##_0.. over all k. */
#define NARROW_DEF(NAME, T, U, VB, NV, LOAD, STORE, MASKS, TGT)                                         \
  __attribute__((target(TGT))) static void NAME(void *Cv, const void *Av, const void *Bv, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta) { \
    typedef U V __attribute__((vector_size(VB)));                                                    \
    T *restrict C = Cv;                                                                              \
    const T *restrict A = Av, *restrict B = Bv;                                                      \
    tfs_i64 as_i = ta ? 1 : K, as_k = ta ? M : 1;                                                    \
    enum { L = VB / sizeof(U) };                                                                     \
    MASKS                                                                                            \
    tfs_i64 i = 0;                                                                                   \
    for (; i + 4 <= M; i += 4) {                                                                     \
      V acc[4][NV];                                                                                  \
      for (int r = 0; r < 4; r++)                                                                    \
        for (int v = 0; v < NV; v++) acc[r][v] = (V){0};                                             \
      const T *a = A + i * as_i;                                                                     \
      for (tfs_i64 k = 0; k < K; k++) {                                                              \
        V b[NV];                                                                                     \
        for (int v = 0; v < NV; v++) b[v] = (V)LOAD(v, B + k * N + v * L);                           \
        for (int r = 0; r < 4; r++) {                                                                \
          U x = (U)a[r * as_i + k * as_k];                                                           \
          for (int v = 0; v < NV; v++) acc[r][v] += x * b[v];                                        \
        }                                                                                            \
      }                                                                                              \
      for (int r = 0; r < 4; r++)                                                                    \
        for (int v = 0; v < NV; v++) STORE(v, C + (i + r) * N + v * L, acc[r][v]);                  \
    }                                                                                                \
    for (; i < M; i++) {                                                                             \
      V acc[NV];                                                                                     \
      for (int v = 0; v < NV; v++) acc[v] = (V){0};                                                  \
      const T *a = A + i * as_i;                                                                     \
      for (tfs_i64 k = 0; k < K; k++) {                                                              \
        U x = (U)a[k * as_k];                                                                        \
        for (int v = 0; v < NV; v++) acc[v] += x * (V)LOAD(v, B + k * N + v * L);                    \
      }                                                                                              \
      for (int v = 0; v < NV; v++) STORE(v, C + i * N + v * L, acc[v]);                              \
    }                                                                                                \
  }

/* The target attributes, not only the pragmas, so clang (the fuzzing build) compiles the intrinsics too. */
#define TGT_V3 "avx2,fma,bmi,bmi2"
#define TGT_V4 "avx2,fma,bmi,bmi2,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
/* AVX2: 32-bit types, N <= 16 in one or two 8-lane vectors; lane j of vector v is live if v*8+j < N */
#define MASKS_AVX2                                                                                   \
  __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);                                        \
  __m256i mk[2] = {_mm256_cmpgt_epi32(_mm256_set1_epi32((int)N), lanes),                            \
                   _mm256_cmpgt_epi32(_mm256_set1_epi32((int)N - 8), lanes)};
#define LD_I32_AVX2(v, p) _mm256_maskload_epi32((const int *)(p), mk[v])
#define ST_I32_AVX2(v, p, x) _mm256_maskstore_epi32((int *)(p), mk[v], (__m256i)(x))
#define LD_F32_AVX2(v, p) _mm256_maskload_ps((const float *)(p), mk[v])
#define ST_F32_AVX2(v, p, x) _mm256_maskstore_ps((float *)(p), mk[v], (__m256)(x))
NARROW_DEF(narrow_i32_avx2_1, int32_t, uint32_t, 32, 1, LD_I32_AVX2, ST_I32_AVX2, MASKS_AVX2, TGT_V3)
NARROW_DEF(narrow_i32_avx2_2, int32_t, uint32_t, 32, 2, LD_I32_AVX2, ST_I32_AVX2, MASKS_AVX2, TGT_V3)
NARROW_DEF(narrow_f32_avx2_1, float, float, 32, 1, LD_F32_AVX2, ST_F32_AVX2, MASKS_AVX2, TGT_V3)
NARROW_DEF(narrow_f32_avx2_2, float, float, 32, 2, LD_F32_AVX2, ST_F32_AVX2, MASKS_AVX2, TGT_V3)
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
/* AVX-512: N <= 16 32-bit or N <= 8 64-bit lanes in one vector, with a k-mask */
#define MASKS_512 __mmask16 m = (__mmask16)((1u << N) - 1);
#define LD_I32_512(v, p) _mm512_maskz_loadu_epi32(m, (p))
#define ST_I32_512(v, p, x) _mm512_mask_storeu_epi32((p), m, (__m512i)(x))
#define LD_F32_512(v, p) _mm512_maskz_loadu_ps(m, (p))
#define ST_F32_512(v, p, x) _mm512_mask_storeu_ps((p), m, (__m512)(x))
#define LD_I64_512(v, p) _mm512_maskz_loadu_epi64((__mmask8)m, (p))
#define ST_I64_512(v, p, x) _mm512_mask_storeu_epi64((p), (__mmask8)m, (__m512i)(x))
#define LD_F64_512(v, p) _mm512_maskz_loadu_pd((__mmask8)m, (p))
#define ST_F64_512(v, p, x) _mm512_mask_storeu_pd((p), (__mmask8)m, (__m512d)(x))
NARROW_DEF(narrow_i32_avx512, int32_t, uint32_t, 64, 1, LD_I32_512, ST_I32_512, MASKS_512, TGT_V4)
NARROW_DEF(narrow_f32_avx512, float, float, 64, 1, LD_F32_512, ST_F32_512, MASKS_512, TGT_V4)
NARROW_DEF(narrow_i64_avx512, int64_t, uint64_t, 64, 1, LD_I64_512, ST_I64_512, MASKS_512, TGT_V4)
NARROW_DEF(narrow_f64_avx512, double, double, 64, 1, LD_F64_512, ST_F64_512, MASKS_512, TGT_V4)
#pragma GCC pop_options

/* The narrow kernel for a product, or NULL: [float32, float64, int32, int64] per ISA, by N. */
static NarrowFn narrow_for(Isa isa, int d, tfs_i64 N) {
  if (N < 1) return NULL;
  if (isa == ISA_AVX512) {
    static const NarrowFn t[4] = {narrow_f32_avx512, narrow_f64_avx512, narrow_i32_avx512, narrow_i64_avx512};
    return N <= 64 / (d == 1 || d == 3 ? 8 : 4) ? t[d] : NULL;
  }
  if (isa == ISA_AVX2 && (d == 0 || d == 2) && N <= 16) {
    if (d == 0) return N <= 8 ? narrow_f32_avx2_1 : narrow_f32_avx2_2;
    return N <= 8 ? narrow_i32_avx2_1 : narrow_i32_avx2_2;
  }
  return NULL;
}

typedef void (*GemmFn)(void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb);

/* [isa][float32, float64, int32, int64] */
static const GemmFn gemm_table[ISA_COUNT][4] = {
    {gemm_f32_baseline, gemm_f64_baseline, gemm_i32_baseline, gemm_i64_baseline},
    {gemm_f32_avx2, gemm_f64_avx2, gemm_i32_avx2, gemm_i64_avx2},
    {gemm_f32_avx512, gemm_f64_avx512, gemm_i32_avx512, gemm_i64_avx512},
};

static int gemm_dtype_index(DType dt) {
  switch (dt) {
  case DT_FLOAT32: return 0;
  case DT_FLOAT64: return 1;
  case DT_INT32: return 2;
  case DT_INT64: return 3;
  default: return -1;
  }
}

bool gemm_small_on(Isa isa, DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta,
                   bool tb) {
  int d = gemm_dtype_index(dt);
  if (d < 0 || (unsigned)isa >= ISA_COUNT) return false;
  /* Zen 4 runs each 512-bit operation as two 256-bit halves, so the AVX-512 kernels do no more work per
   * cycle than the AVX2 ones, and from 32x32x32 up they measured 1.2-1.5x slower (bench/run_gemm.sh,
   * docs/performance.md); past 16x16x16 the AVX-512 path takes the AVX2 kernels.  Same summation order on
   * every path, so the same bits. */
  if (isa == ISA_AVX512 && M * N * K > 16 * 16 * 16) isa = ISA_AVX2;
  NarrowFn nf = tb ? NULL : narrow_for(isa, d, N);
  if (nf) nf(C, A, B, M, N, K, ta);
  else gemm_table[isa][d](C, A, B, M, N, K, ta, tb);
  return true;
}

bool gemm_small(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb) {
  return gemm_small_on(isa_active(), dt, C, A, B, M, N, K, ta, tb);
}
