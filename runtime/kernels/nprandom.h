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

#endif
