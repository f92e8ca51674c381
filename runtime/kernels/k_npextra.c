/* k_npextra.c — more numpy 1.24 legacy RandomState distributions: vonmises, zipf, logseries, rayleigh, noncentral. */
#include <math.h>
#include <stdint.h>

#include "kernels/nprandom.h"

/* numpy's legacy_vonmises: Best and Fisher's rejection, a uniform angle for kappa < 1e-8, no normal fallback for
   huge kappa (that fallback is the Generator's); the result folded into [-pi, pi] */
double mt_vonmises(MtState *s, double mu, double kappa) {
  if (isnan(kappa)) return NAN;
  if (kappa < 1e-8) return M_PI * (2 * mt_double(s) - 1);
  double sv;
  if (kappa < 1e-5) {
    sv = 1. / kappa + kappa;   /* the second-order expansion: rho is 0 in double precision below ~1.4e-8 */
  } else {
    double r = 1 + sqrt(1 + 4 * kappa * kappa), rho = (r - sqrt(2 * r)) / (2 * kappa);
    sv = (1 + rho * rho) / (2 * rho);
  }
  double w;
  for (;;) {
    double u = mt_double(s), z = cos(M_PI * u);
    w = (1 + sv * z) / (sv + z);
    double y = kappa * (sv - w), v = mt_double(s);
    if ((y * (2 - y) - v >= 0) || (log(y / v) + 1 - y >= 0)) break;
  }
  double u = mt_double(s), result = acos(w);
  if (u < 0.5) result = -result;
  result += mu;
  int neg = result < 0;
  double mod = fmod(fabs(result) + M_PI, 2 * M_PI) - M_PI;
  return neg ? -mod : mod;
}

/* numpy's random_zipf: rejection from a Pareto-like proposal; values past int64 are rejected (a truncated Zipf) */
int64_t mt_zipf(MtState *s, double a) {
  /* numpy 1.24 loops forever from here on (2**(a-1) overflows); later numpy returns 1 without a draw, as here: a
     value above 1 has a probability below 3e-309 */
  if (a >= 1025) return 1;
  double am1 = a - 1.0, b = pow(2.0, am1);
  for (;;) {
    double u = 1.0 - mt_double(s), v = mt_double(s), x = floor(pow(u, -1.0 / am1));
    if (x > (double)INT64_MAX || x < 1.0) continue;
    double t = pow(1.0 + 1.0 / x, am1);
    if (v * x * (t - 1.0) / (b - 1.0) <= t / b) return (int64_t)x;
  }
}

/* numpy's legacy_logseries: Kemp's second accelerated generator with log(1 - p) and 1 - exp (not log1p/expm1) */
int64_t mt_logseries(MtState *s, double p) {
  double r = log(1.0 - p);
  for (;;) {
    double v = mt_double(s);
    if (v >= p) return 1;
    double u = mt_double(s), q = 1.0 - exp(r * u);
    if (v <= q * q) {
      int64_t result = (int64_t)floor(1 + log(v) / log(q));
      if (result < 1 || v == 0.0) continue;
      return result;
    }
    return v >= q ? 1 : 2;
  }
}

double mt_rayleigh(MtState *s, double mode) { return mode * sqrt(-2.0 * log(1.0 - mt_double(s))); }

static double chisquare(MtState *s, double df) { return 2.0 * mt_std_gamma(s, df / 2.0); }

/* numpy's legacy_noncentral_chisquare: chi-square(df - 1) plus a shifted normal squared, or for df <= 1 a
   Poisson mixture of chi-squares (NaN nonc checked after the draws, so the stream does not change) */
double mt_noncentral_chisquare(MtState *s, double df, double nonc) {
  if (nonc == 0) return chisquare(s, df);
  if (1 < df) {
    double chi2 = chisquare(s, df - 1), n = mt_gauss(s) + sqrt(nonc);
    return chi2 + n * n;
  }
  int64_t i = mt_poisson(s, nonc / 2.0);
  double out = chisquare(s, df + 2 * (double)i);
  return isnan(nonc) ? NAN : out;
}

double mt_noncentral_f(MtState *s, double dfnum, double dfden, double nonc) {
  double t = mt_noncentral_chisquare(s, dfnum, nonc) * dfden;
  return t / (chisquare(s, dfden) * dfnum);
}
