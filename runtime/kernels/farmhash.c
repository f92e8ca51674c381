/* farmhash.c — TF's Fingerprint64 (FarmHash's farmhashna Hash64, the fingerprint TF pins) for StringToHashBucketFast,
 * written from FarmHash's published algorithm (Debian ships no FarmHash). */
#include <stdint.h>
#include <string.h>

#include "kernels/kstr.h"

static const uint64_t K0 = 0xc3a5c85c97cb3127ULL, K1 = 0xb492b66fbe98f273ULL, K2 = 0x9ae16a3b2f90404fULL;

static uint64_t f64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);   /* little-endian hosts, as TF's x86/ARM builds */
  return v;
}
static uint32_t f32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t rot(uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
static uint64_t smix(uint64_t v) { return v ^ (v >> 47); }

static uint64_t len16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

static uint64_t len0to16(const unsigned char *s, size_t len) {
  if (len >= 8) {
    uint64_t mul = K2 + len * 2, a = f64(s) + K2, b = f64(s + len - 8);
    return len16(rot(b, 37) * mul + a, (rot(a, 25) + b) * mul, mul);
  }
  if (len >= 4) {
    uint64_t mul = K2 + len * 2;
    return len16(len + ((uint64_t)f32(s) << 3), f32(s + len - 4), mul);
  }
  if (len > 0) {
    uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8), z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
    return smix(y * K2 ^ z * K0) * K2;
  }
  return K2;
}

static uint64_t len17to32(const unsigned char *s, size_t len) {
  uint64_t mul = K2 + len * 2, a = f64(s) * K1, b = f64(s + 8), c = f64(s + len - 8) * mul, d = f64(s + len - 16) * K2;
  return len16(rot(a + b, 43) + rot(c, 30) + d, a + rot(b + K2, 18) + c, mul);
}

static uint64_t len33to64(const unsigned char *s, size_t len) {
  uint64_t mul = K2 + len * 2, a = f64(s) * K2, b = f64(s + 8), c = f64(s + len - 8) * mul, d = f64(s + len - 16) * K2;
  uint64_t y = rot(a + b, 43) + rot(c, 30) + d, z = len16(y, a + rot(b + K2, 18) + c, mul);
  uint64_t e = f64(s + 16) * mul, f = f64(s + 24), g = (y + f64(s + len - 32)) * mul, h = (z + f64(s + len - 24)) * mul;
  return len16(rot(e + f, 43) + rot(g, 30) + h, e + rot(f + a, 18) + g, mul);
}

/* (a, b) of the 32 bytes at s with seeds a, b */
static void weak32(const unsigned char *s, uint64_t a, uint64_t b, uint64_t *o1, uint64_t *o2) {
  uint64_t w = f64(s), x = f64(s + 8), y = f64(s + 16), z = f64(s + 24);
  a += w;
  b = rot(b + a + z, 21);
  uint64_t c = a;
  a += x;
  a += y;
  b += rot(a, 44);
  *o1 = a + z;
  *o2 = b + c;
}

uint64_t fingerprint64(const unsigned char *s, size_t len) {
  if (len <= 16) return len0to16(s, len);
  if (len <= 32) return len17to32(s, len);
  if (len <= 64) return len33to64(s, len);
  const uint64_t seed = 81;
  uint64_t x = seed, y = seed * K1 + 113, z = smix(y * K2 + 113) * K2, v1 = 0, v2 = 0, w1 = 0, w2 = 0, t;
  x = x * K2 + f64(s);
  const unsigned char *end = s + ((len - 1) / 64) * 64, *last64 = end + ((len - 1) & 63) - 63;
  do {
    x = rot(x + y + v1 + f64(s + 8), 37) * K1;
    y = rot(y + v2 + f64(s + 48), 42) * K1;
    x ^= w2;
    y += v1 + f64(s + 40);
    z = rot(z + w1, 33) * K1;
    weak32(s, v2 * K1, x + w1, &v1, &v2);
    weak32(s + 32, z + w2, y + f64(s + 16), &w1, &w2);
    t = z; z = x; x = t;
    s += 64;
  } while (s != end);
  uint64_t mul = K1 + ((z & 0xff) << 1);
  s = last64;
  w1 += ((len - 1) & 63);
  v1 += w1;
  w1 += v1;
  x = rot(x + y + v1 + f64(s + 8), 37) * mul;
  y = rot(y + v2 + f64(s + 48), 42) * mul;
  x ^= w2 * 9;
  y += v1 * 9 + f64(s + 40);
  z = rot(z + w1, 33) * mul;
  weak32(s, v2 * mul, x + w1, &v1, &v2);
  weak32(s + 32, z + w2, y + f64(s + 16), &w1, &w2);
  t = z; z = x; x = t;
  return len16(len16(v1, w1, mul) + smix(y) * K0 + z, len16(v2, w2, mul) + x, mul);
}
