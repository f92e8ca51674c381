/* rngstream.h — the counter-based splitmix64 stream the random kernels draw from (k_random.c, k_random_dist.c). */
#ifndef TFS_RNGSTREAM_H
#define TFS_RNGSTREAM_H
#include <math.h>

#include "kernels/ops.h"

static inline tfs_u64 sm64(tfs_u64 *state) {
  tfs_u64 z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline tfs_u64 mix3(tfs_u64 a, tfs_u64 b, tfs_u64 c) {
  tfs_u64 s = a;
  tfs_u64 h = sm64(&s);
  s = h ^ b;
  h = sm64(&s);
  s = h ^ c;
  return sm64(&s);
}

static inline double u01(tfs_u64 *st) { return (double)(sm64(st) >> 11) * 0x1p-53; }
static inline float u01f(tfs_u64 *st) { return (float)(sm64(st) >> 40) * 0x1p-24f; }

static inline double normal01(tfs_u64 *st) {
  /* Box-Muller, one value per pair of draws */
  double u1 = ((double)(sm64(st) >> 11) + 1.0) * 0x1p-53, u2 = u01(st);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* The stream of a stateful random op call: keyed by (global seed, the op's seed attribute `seed_attr`, its call
 * count), so seeded programs repeat and two calls with the same op seed differ, as in TF. */
tfs_u64 random_stream_key(OpCall *c, int seed_attr);

/* The stream of a stateless op: a function of its [2] seed tensor (and the op) alone. */
static inline tfs_u64 random_seed_stream(const Tensor *seed, tfs_u64 salt) {
  return mix3((tfs_u64)tensor_get_i(seed, 0), (tfs_u64)tensor_get_i(seed, 1), 0x5EEDull + salt);
}

/* A stateless op's seed input must have shape [2] (TF's InvalidArgumentError otherwise). */
void random_check_seed_meta(OpCall *c, const TMeta *seed);

#endif
