/* halfconv.c — float16 <-> float32 array conversions: scalar on the baseline path, 8 lanes of F16C on AVX2, 16 on AVX-512. */
#include "kernels/halfconv.h"

#include <immintrin.h>

#include "object/half.h"

/* gcc takes the paths' targets from the pragmas below; clang (the fuzz build) ignores those pragmas and needs
 * the target on each function that uses the intrinsics */
#if defined(__clang__)
#define HC_V3 __attribute__((target("avx2,f16c,fma")))
#define HC_V4 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma")))
#else
#define HC_V3
#define HC_V4
#endif

/* Half-precision compute runs through float32 (as Eigen's half operators do), so every float16 op
 * converts its inputs and its result: per element that was about half of a float16 op's time. */

static void h2f_base(float *o, const uint16_t *a, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n; i++) o[i] = f16_to_f32(a[i]);
}
static void f2h_base(uint16_t *o, const float *a, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n; i++) o[i] = f32_to_f16(a[i]);
}

/* x86-64-v3 includes F16C.  A half block with an all-ones exponent (inf or NaN) goes scalar: vcvtph2ps
 * quiets a signalling NaN, the scalar conversion keeps its bits. */
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
HC_V3 static void h2f_avx2(float *o, const uint16_t *a, tfs_i64 n) {
  const __m128i ex = _mm_set1_epi16(0x7c00);
  tfs_i64 i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128((const __m128i *)(a + i));
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(h, ex), ex))) h2f_base(o + i, a + i, 8);
    else _mm256_storeu_ps(o + i, _mm256_cvtph_ps(h));
  }
  h2f_base(o + i, a + i, n - i);
}
HC_V3 static void f2h_avx2(uint16_t *o, const float *a, tfs_i64 n) {
  tfs_i64 i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(a + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q))) f2h_base(o + i, a + i, 8);
    else _mm_storeu_si128((__m128i *)(o + i), _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  f2h_base(o + i, a + i, n - i);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
HC_V4 static void h2f_avx512(float *o, const uint16_t *a, tfs_i64 n) {
  const __m256i ex = _mm256_set1_epi16(0x7c00);
  tfs_i64 i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256((const __m256i *)(a + i));
    if (_mm256_cmpeq_epi16_mask(_mm256_and_si256(h, ex), ex)) h2f_base(o + i, a + i, 16);
    else _mm512_storeu_ps(o + i, _mm512_cvtph_ps(h));
  }
  h2f_avx2(o + i, a + i, n - i);
}
HC_V4 static void f2h_avx512(uint16_t *o, const float *a, tfs_i64 n) {
  tfs_i64 i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 x = _mm512_loadu_ps(a + i);
    if (_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q)) f2h_base(o + i, a + i, 16);
    else _mm256_storeu_si256((__m256i *)(o + i), _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  f2h_avx2(o + i, a + i, n - i);
}
#pragma GCC pop_options

typedef void (*H2F)(float *, const uint16_t *, tfs_i64);
typedef void (*F2H)(uint16_t *, const float *, tfs_i64);
static const H2F h2f_table[ISA_COUNT] = {h2f_base, h2f_avx2, h2f_avx512};
static const F2H f2h_table[ISA_COUNT] = {f2h_base, f2h_avx2, f2h_avx512};

void hc_f16_to_f32_on(Isa isa, float *o, const uint16_t *a, tfs_i64 n) { h2f_table[isa](o, a, n); }
void hc_f32_to_f16_on(Isa isa, uint16_t *o, const float *a, tfs_i64 n) { f2h_table[isa](o, a, n); }
void hc_f16_to_f32(float *o, const uint16_t *a, tfs_i64 n) { h2f_table[isa_active()](o, a, n); }
void hc_f32_to_f16(uint16_t *o, const float *a, tfs_i64 n) { f2h_table[isa_active()](o, a, n); }
