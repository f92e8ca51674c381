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

/* numpy's legacy RandomState distributions (k_nplegacy.c) */
void mt_seed_array(MtState *s, const uint32_t *key, int n);   /* init_by_array: a seed given as a list of words */
uint64_t mt_next64(MtState *s);
double mt_std_exponential(MtState *s);
double mt_std_gamma(MtState *s, double shape);
int64_t mt_poisson(MtState *s, double lam);
int64_t mt_binomial_legacy(MtState *s, double p, int64_t n);
void mt_multinomial(MtState *s, int64_t n, int64_t *out, const double *pv, int64_t d);
/* k_npextra.c */
double mt_vonmises(MtState *s, double mu, double kappa);
int64_t mt_zipf(MtState *s, double a);
int64_t mt_logseries(MtState *s, double p);
double mt_rayleigh(MtState *s, double mode);
double mt_noncentral_chisquare(MtState *s, double df, double nonc);
double mt_noncentral_f(MtState *s, double dfnum, double dfden, double nonc);
enum {
  MTD_UNIFORM, MTD_NORMAL, MTD_STD_EXPONENTIAL, MTD_EXPONENTIAL, MTD_STD_GAMMA, MTD_GAMMA, MTD_BETA, MTD_CHISQUARE,
  MTD_F, MTD_LAPLACE, MTD_LOGISTIC, MTD_GUMBEL, MTD_LOGNORMAL, MTD_TRIANGULAR, MTD_PARETO, MTD_WEIBULL, MTD_POWER,
  MTD_STD_CAUCHY, MTD_STD_T, MTD_WALD, MTD_VONMISES, MTD_RAYLEIGH, MTD_NC_CHISQUARE, MTD_NC_F,
  MTD_FIRST_INT, MTD_POISSON = MTD_FIRST_INT, MTD_GEOMETRIC, MTD_BINOMIAL, MTD_NEG_BINOMIAL, MTD_HYPERGEOMETRIC,
  MTD_ZIPF, MTD_LOGSERIES,
};
double mt_legacy_draw(MtState *s, int kind, double a, double b, double c, int64_t *iv);

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
