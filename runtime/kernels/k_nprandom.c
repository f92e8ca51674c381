/* k_nprandom.c — numpy's legacy MT19937 stream (seed, random_sample, gauss, masked bounded integers) and a stable argsort. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/nprandom.h"
#include "object/value.h"

void mt_seed(MtState *s, uint32_t seed) {
  for (int i = 0; i < 624; i++) {
    s->key[i] = seed;
    seed = 1812433253u * (seed ^ (seed >> 30)) + (uint32_t)i + 1u;
  }
  s->pos = 624;
  s->has_gauss = false;
  s->gauss = 0;
}

static void mt_gen(MtState *s) {
  const uint32_t upper = 0x80000000u, lower = 0x7fffffffu, mag = 0x9908b0dfu;
  int i;
  uint32_t y;
  for (i = 0; i < 624 - 397; i++) {
    y = (s->key[i] & upper) | (s->key[i + 1] & lower);
    s->key[i] = s->key[i + 397] ^ (y >> 1) ^ (-(y & 1) & mag);
  }
  for (; i < 623; i++) {
    y = (s->key[i] & upper) | (s->key[i + 1] & lower);
    s->key[i] = s->key[i + 397 - 624] ^ (y >> 1) ^ (-(y & 1) & mag);
  }
  y = (s->key[623] & upper) | (s->key[0] & lower);
  s->key[623] = s->key[396] ^ (y >> 1) ^ (-(y & 1) & mag);
  s->pos = 0;
}

uint32_t mt_next32(MtState *s) {
  if (s->pos == 624) mt_gen(s);
  uint32_t y = s->key[s->pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

double mt_double(MtState *s) {
  int32_t a = (int32_t)(mt_next32(s) >> 5), b = (int32_t)(mt_next32(s) >> 6);
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

double mt_gauss(MtState *s) {
  if (s->has_gauss) {
    s->has_gauss = false;
    return s->gauss;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * mt_double(s) - 1.0;
    x2 = 2.0 * mt_double(s) - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  double f = sqrt(-2.0 * log(r2) / r2);
  s->gauss = f * x1;
  s->has_gauss = true;
  return f * x2;
}

uint64_t mt_interval(MtState *s, uint64_t max) {
  if (max == 0) return 0;
  uint64_t mask = max;
  for (int sh = 1; sh < 64; sh <<= 1) mask |= mask >> sh;
  uint64_t v;
  if (max <= 0xffffffffu) {
    while ((v = (mt_next32(s) & mask)) > max) {
    }
  } else {
    while ((v = ((((uint64_t)mt_next32(s)) << 32 | mt_next32(s)) & mask)) > max) {
    }
  }
  return v;
}

/* ---- stable argsort (merge sort on indices) ---- */

static bool lt(double a, double b) { return a < b || (isnan(b) && !isnan(a)); }

static void msort(const double *v, int64_t *idx, int64_t *tmp, int64_t n) {
  if (n < 2) return;
  int64_t h = n / 2;
  msort(v, idx, tmp, h);
  msort(v, idx + h, tmp, n - h);
  int64_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = lt(v[idx[j]], v[idx[i]]) ? idx[j++] : idx[i++];
  while (i < h) tmp[k++] = idx[i++];
  while (j < n) tmp[k++] = idx[j++];
  memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
}

void np_argsort_f64(const double *v, int64_t n, int64_t *idx) {
  for (int64_t i = 0; i < n; i++) idx[i] = i;
  int64_t *tmp = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!tmp) rt_throw(ERR_MEMORY, "out of memory");
  msort(v, idx, tmp, n);
  free(tmp);
}
