/* nprandom.h — numpy's legacy RandomState stream (MT19937) and numpy's sort orders, for the numpy module. */
#ifndef TFS_NPRANDOM_H
#define TFS_NPRANDOM_H

#include <stdbool.h>
#include <stdint.h>

typedef struct MtState {
  uint32_t key[624];
  int pos;
  bool has_gauss;
  double gauss;
} MtState;

void mt_seed(MtState *s, uint32_t seed);          /* numpy's RandomState.seed(int) */
uint32_t mt_next32(MtState *s);
double mt_double(MtState *s);                     /* random_sample: 53 bits from two draws */
double mt_gauss(MtState *s);                      /* legacy polar Box-Muller, second value cached */
uint64_t mt_interval(MtState *s, uint64_t max);   /* uniform in [0, max] by masked rejection */

/* Stable ascending order of n doubles (NaN last, as numpy sorts): idx receives the permutation. */
void np_argsort_f64(const double *v, int64_t n, int64_t *idx);



/* numpy's Generator stream: PCG64 (XSL-RR 128/64) seeded through SeedSequence. */
typedef struct PcgState {
  unsigned __int128 state, inc;
  bool has_u32;
  uint32_t u32;
} PcgState;

void pcg_seed_sequence(PcgState *s, const uint32_t *entropy, int n);   /* default_rng(seed): words of the seed, low first */
uint64_t pcg_next64(PcgState *s);
uint32_t pcg_next32(PcgState *s);                  /* the halves of a 64-bit draw, low half first */
double pcg_double(PcgState *s);
uint64_t pcg_bounded(PcgState *s, uint64_t rng);   /* uniform in [0, rng]: Lemire's method, as Generator.integers */
uint64_t pcg_interval(PcgState *s, uint64_t max);  /* uniform in [0, max]: masked rejection, as Generator.shuffle */
double pcg_standard_normal(PcgState *s);           /* Generator.standard_normal: numpy's ziggurat (libnpyrandom) */
#endif
