/* half.h — float16 (IEEE binary16) and bfloat16 bit conversions, round-to-nearest-even as Eigen's half/bfloat16 do. */
#ifndef TFS_HALF_H
#define TFS_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t half_f32_bits(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }
static inline float half_bits_f32(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }

/* float -> binary16, nearest even; NaN becomes the quiet 0x7e00 (Eigen's float_to_half_rtne). */
static inline uint16_t f32_to_f16(float f) {
  uint32_t x = half_f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (x >= 0x477ff000u) return sign | 0x7c00;          /* >= 65520 rounds to inf */
  if (x < 0x38800000u) {                                /* below 2^-14: a subnormal half (or 0); the FPU's add rounds */
    float a = half_bits_f32(x) + 0.5f;
    return sign | (uint16_t)(half_f32_bits(a) - 0x3f000000u);
  }
  x += 0xc8000fffu + ((x >> 13) & 1);                   /* rebias 127 -> 15 and round the 13 dropped bits to even */
  return sign | (uint16_t)(x >> 13);
}

static inline float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return half_bits_f32(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    float f = (float)m * 0x1p-24f;
    return sign ? -f : f;
  }
  return half_bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

/* float -> bfloat16 (the top 16 bits), nearest even; NaN keeps its sign, quiet (Eigen's float_to_bfloat16_rtne). */
static inline uint16_t f32_to_bf16(float f) {
  uint32_t x = half_f32_bits(f);
  if (f != f) return (x & 0x80000000u) ? 0xffc0 : 0x7fc0;
  x += 0x7fffu + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

static inline float bf16_to_f32(uint16_t h) { return half_bits_f32((uint32_t)h << 16); }

/* double -> binary16 in one rounding (numpy's npy_double_to_half), unlike Eigen's via float. */
static inline uint16_t f64_to_f16(double d) {
  uint64_t x;
  memcpy(&x, &d, 8);
  uint16_t sign = (uint16_t)((x >> 48) & 0x8000);
  x &= 0x7fffffffffffffffull;
  if (x >= 0x7ff0000000000000ull) return sign | (x > 0x7ff0000000000000ull ? 0x7e00 : 0x7c00);
  if (x >= 0x40effe0000000000ull) return sign | 0x7c00;     /* >= 65520 */
  if (x < 0x3f10000000000000ull) {                          /* below 2^-14 */
    double a;
    memcpy(&a, &x, 8);
    a += 0x1p28;                                             /* its ulp is 2^-24, the subnormal half's unit */
    memcpy(&x, &a, 8);
    return sign | (uint16_t)(x - 0x41b0000000000000ull);
  }
  x += 0xc100000000000000ull + 0x1ffffffffffull + ((x >> 42) & 1);   /* rebias 1023 -> 15, round 42 bits to even */
  return sign | (uint16_t)(x >> 42);
}

#endif
