/* k_pcg64.c — numpy's Generator stream: SeedSequence's entropy mixing, PCG64 (XSL-RR 128/64), bounded integers (Lemire, masked). */
#include "kernels/nprandom.h"

/* SeedSequence's hash constants (numpy/random/bit_generator.pyx) */
enum { POOL = 4 };
static const uint32_t INIT_A = 0x43b0d7e5u, MULT_A = 0x931e8875u, INIT_B = 0x8b51f9ddu, MULT_B = 0x58f38dedu;
static const uint32_t MIX_L = 0xca01f9ddu, MIX_R = 0x4973f715u;

static uint32_t hashmix(uint32_t v, uint32_t *h) {
  v ^= *h;
  *h *= MULT_A;
  v *= *h;
  return v ^ (v >> 16);
}

static uint32_t mix(uint32_t x, uint32_t y) {
  uint32_t r = MIX_L * x - MIX_R * y;
  return r ^ (r >> 16);
}

static void seed_pool(uint32_t pool[POOL], const uint32_t *e, int n) {
  uint32_t h = INIT_A;
  for (int i = 0; i < POOL; i++) pool[i] = hashmix(i < n ? e[i] : 0, &h);
  for (int s = 0; s < POOL; s++)
    for (int d = 0; d < POOL; d++)
      if (s != d) pool[d] = mix(pool[d], hashmix(pool[s], &h));
  for (int s = POOL; s < n; s++)
    for (int d = 0; d < POOL; d++) pool[d] = mix(pool[d], hashmix(e[s], &h));
}

static const unsigned __int128 PCG_MULT = ((unsigned __int128)2549297995355413924ULL << 64) + 4865540595714422341ULL;

static void pcg_step(PcgState *s) { s->state = s->state * PCG_MULT + s->inc; }

void pcg_seed_sequence(PcgState *s, const uint32_t *entropy, int n) {
  uint32_t pool[POOL], w[8], h = INIT_B;
  seed_pool(pool, entropy, n);
  for (int i = 0; i < 8; i++) {   /* generate_state(4, uint64): eight words cycling through the pool */
    uint32_t v = pool[i % POOL] ^ h;
    h *= MULT_B;
    v *= h;
    w[i] = v ^ (v >> 16);
  }
  uint64_t v64[4];
  for (int i = 0; i < 4; i++) v64[i] = (uint64_t)w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
  unsigned __int128 init = (unsigned __int128)v64[0] << 64 | v64[1], seq = (unsigned __int128)v64[2] << 64 | v64[3];
  s->state = 0;
  s->inc = seq << 1 | 1;
  pcg_step(s);
  s->state += init;
  pcg_step(s);
  s->has_u32 = false;
  s->u32 = 0;
}

uint64_t pcg_next64(PcgState *s) {
  pcg_step(s);
  uint64_t x = (uint64_t)(s->state >> 64) ^ (uint64_t)s->state;
  unsigned rot = (unsigned)(s->state >> 122);
  return (x >> rot) | (x << ((64 - rot) & 63));
}

uint32_t pcg_next32(PcgState *s) {
  if (s->has_u32) {
    s->has_u32 = false;
    return s->u32;
  }
  uint64_t v = pcg_next64(s);
  s->has_u32 = true;
  s->u32 = (uint32_t)(v >> 32);
  return (uint32_t)v;
}

double pcg_double(PcgState *s) { return (double)(pcg_next64(s) >> 11) * (1.0 / 9007199254740992.0); }

uint64_t pcg_bounded(PcgState *s, uint64_t rng) {
  if (rng == 0) return 0;
  if (rng <= 0xffffffffu) {
    if (rng == 0xffffffffu) return pcg_next32(s);
    uint32_t excl = (uint32_t)rng + 1;
    uint64_t m = (uint64_t)pcg_next32(s) * excl;
    uint32_t left = (uint32_t)m;
    if (left < excl) {
      uint32_t thr = (uint32_t)(0xffffffffu - (uint32_t)rng) % excl;
      while (left < thr) {
        m = (uint64_t)pcg_next32(s) * excl;
        left = (uint32_t)m;
      }
    }
    return m >> 32;
  }
  if (rng == UINT64_MAX) return pcg_next64(s);
  uint64_t excl = rng + 1;
  unsigned __int128 m = (unsigned __int128)pcg_next64(s) * excl;
  uint64_t left = (uint64_t)m;
  if (left < excl) {
    uint64_t thr = (UINT64_MAX - rng) % excl;
    while (left < thr) {
      m = (unsigned __int128)pcg_next64(s) * excl;
      left = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

uint64_t pcg_interval(PcgState *s, uint64_t max) {
  if (max == 0) return 0;
  uint64_t mask = max, v;
  for (int sh = 1; sh < 64; sh <<= 1) mask |= mask >> sh;
  if (max <= 0xffffffffu) {
    while ((v = (pcg_next32(s) & mask)) > max) {
    }
  } else {
    while ((v = (pcg_next64(s) & mask)) > max) {
    }
  }
  return v;
}

/* ---- Generator.standard_normal: numpy's own ziggurat (libnpyrandom, Debian python3-numpy) over this stream ---- */

#include <numpy/random/bitgen.h>

double random_standard_normal(bitgen_t *bitgen_state);   /* numpy/random/distributions.h (which needs Python.h) */

static uint64_t bg_next64(void *st) { return pcg_next64(st); }
static uint32_t bg_next32(void *st) { return pcg_next32(st); }
static double bg_double(void *st) { return pcg_double(st); }

double pcg_standard_normal(PcgState *s) {
  bitgen_t bg = {s, bg_next64, bg_next32, bg_double, bg_next64};
  return random_standard_normal(&bg);
}
