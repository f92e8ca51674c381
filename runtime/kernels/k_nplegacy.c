/* k_nplegacy.c — numpy's legacy RandomState distributions (gamma, beta, binomial, poisson, ...) over the MT19937 stream. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernels/nprandom.h"

/* numpy's init_by_array: the reference MT19937 seeding from a key of 32-bit words */
void mt_seed_array(MtState *s, const uint32_t *key, int n) {
  mt_seed(s, 19650218u);
  uint32_t *mt = s->key;
  int i = 1, j = 0;
  for (int k = n > 624 ? n : 624; k; k--) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
    i++;
    j++;
    if (i >= 624) {
      mt[0] = mt[623];
      i = 1;
    }
    if (j >= n) j = 0;
  }
  for (int k = 623; k; k--) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
    i++;
    if (i >= 624) {
      mt[0] = mt[623];
      i = 1;
    }
  }
  mt[0] = 0x80000000u;
  s->pos = 624;
  s->has_gauss = false;
  s->gauss = 0;
}

/* numpy's next_uint64 of MT19937: the first draw is the high half */
uint64_t mt_next64(MtState *s) {
  uint64_t hi = mt_next32(s);
  return hi << 32 | mt_next32(s);
}

double mt_std_exponential(MtState *s) { return -log(1.0 - mt_double(s)); }

double mt_std_gamma(MtState *s, double shape) {
  if (shape == 1.0) return mt_std_exponential(s);
  if (shape == 0.0) return 0.0;
  if (shape < 1.0) {
    for (;;) {
      double u = mt_double(s), v = mt_std_exponential(s);
      if (u <= 1.0 - shape) {
        double x = pow(u, 1. / shape);
        if (x <= v) return x;
      } else {
        double y = -log((1 - u) / shape);
        double x = pow(1.0 - shape + shape * y, 1. / shape);
        if (x <= v + y) return x;
      }
    }
  }
  double b = shape - 1. / 3., c = 1. / sqrt(9 * b);
  for (;;) {
    double x, v;
    do {
      x = mt_gauss(s);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    double u = mt_double(s);
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return b * v;
    if (log(u) < 0.5 * x * x + b * (1. - v + log(v))) return b * v;
  }
}

static double mt_beta(MtState *s, double a, double b) {
  if (a <= 1.0 && b <= 1.0) {
    for (;;) {   /* Johnk's algorithm, as the legacy stream (no rejection of X + Y == 0 before the test) */
      double u = mt_double(s), v = mt_double(s);
      double x = pow(u, 1.0 / a), y = pow(v, 1.0 / b);
      if (x + y <= 1.0) {
        if (x + y > 0) return x / (x + y);
        double lx = log(u) / a, ly = log(v) / b, lm = lx > ly ? lx : ly;
        lx -= lm;
        ly -= lm;
        return exp(lx - log(exp(lx) + exp(ly)));
      }
    }
  }
  double ga = mt_std_gamma(s, a), gb = mt_std_gamma(s, b);
  return ga / (ga + gb);
}

static double mt_chisquare(MtState *s, double df) { return 2.0 * mt_std_gamma(s, df / 2.0); }

/* SPECFUN's log-gamma, as numpy's random_loggam */
static double loggam(double x) {
  static const double a[10] = {8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
                               -5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03,
                               6.410256410256410e-03, -2.955065359477124e-02, 1.796443723688307e-01,
                               -1.39243221690590e+00};
  if (x == 1.0 || x == 2.0) return 0.0;
  double x0 = x;
  int64_t n = 0;
  if (x <= 7.0) {
    n = (int64_t)(7 - x);
    x0 = x + (double)n;
  }
  double x2 = 1.0 / (x0 * x0), gl0 = a[9];
  for (int k = 8; k >= 0; k--) gl0 = gl0 * x2 + a[k];
  double gl = gl0 / x0 + 0.5 * log(2 * M_PI) + (x0 - 0.5) * log(x0) - x0;
  if (x <= 7.0)
    for (int64_t k = 1; k <= n; k++) {
      gl -= log(x0 - 1.0);
      x0 -= 1.0;
    }
  return gl;
}

static int64_t poisson_mult(MtState *s, double lam) {
  double enlam = exp(-lam), prod = 1.0;
  int64_t x = 0;
  for (;;) {
    prod *= mt_double(s);
    if (!(prod > enlam)) return x;   /* as numpy's test: a NaN lam (noncentral_chisquare's) stops at once */
    x++;
  }
}

/* Hoermann's transformed rejection (PTRS) for lam >= 10 */
static int64_t poisson_ptrs(MtState *s, double lam) {
  double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    double u = mt_double(s) - 0.5, v = mt_double(s), us = 0.5 - fabs(u);
    int64_t k = (int64_t)floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lam + (double)k * loglam - loggam((double)k + 1)) return k;
  }
}

int64_t mt_poisson(MtState *s, double lam) {
  if (lam >= 10) return poisson_ptrs(s, lam);
  if (lam == 0) return 0;
  return poisson_mult(s, lam);
}

static int64_t binomial_inversion(MtState *s, int64_t n, double p) {
  double q = 1.0 - p, qn = exp((double)n * log(q)), np = (double)n * p;
  double bb = np + 10.0 * sqrt(np * q + 1);
  int64_t bound = (double)n < bb ? n : (int64_t)bb;
  int64_t x = 0;
  double px = qn, u = mt_double(s);
  while (u > px) {
    x++;
    if (x > bound) {
      x = 0;
      px = qn;
      u = mt_double(s);
    } else {
      u -= px;
      px = ((double)(n - x + 1) * p * px) / ((double)x * q);
    }
  }
  return x;
}

/* Kachitvichyanukul and Schmeiser's BTPE, step for step as numpy's random_binomial_btpe */
static int64_t binomial_btpe(MtState *s, int64_t n, double p) {
  double r = p < 1.0 - p ? p : 1.0 - p, q = 1.0 - r, fm = (double)n * r + r;
  int64_t m = (int64_t)floor(fm);
  double p1 = floor(2.195 * sqrt((double)n * r * q) - 4.6 * q) + 0.5;
  double xm = (double)m + 0.5, xl = xm - p1, xr = xm + p1, c = 0.134 + 20.5 / (15.3 + (double)m);
  double a = (fm - xl) / (fm - xl * r), laml = a * (1.0 + a / 2.0);
  a = (xr - fm) / (xr * q);
  double lamr = a * (1.0 + a / 2.0), p2 = p1 * (1.0 + 2.0 * c), p3 = p2 + c / laml, p4 = p3 + c / lamr;
  double nrq = (double)n * r * q;
  int64_t y;
  for (;;) {
    double u = mt_double(s) * p4, v = mt_double(s);
    if (u <= p1) {
      y = (int64_t)floor(xm - p1 * v + u);
      break;
    }
    if (u <= p2) {
      double x = xl + (u - p1) / c;
      v = v * c + 1.0 - fabs((double)m - x + 0.5) / p1;
      if (v > 1.0) continue;
      y = (int64_t)floor(x);
    } else if (u <= p3) {
      y = (int64_t)floor(xl + log(v) / laml);
      if (y < 0 || v == 0.0) continue;
      v = v * (u - p2) * laml;
    } else {
      y = (int64_t)floor(xr - log(v) / lamr);
      if (y > n || v == 0.0) continue;
      v = v * (u - p3) * lamr;
    }
    int64_t k = llabs(y - m);
    if (!(k > 20 && (double)k < nrq / 2.0 - 1)) {
      double sr = r / q, aa = sr * (double)(n + 1), f = 1.0;
      if (m < y)
        for (int64_t i = m + 1; i <= y; i++) f *= aa / (double)i - sr;
      else if (m > y)
        for (int64_t i = y + 1; i <= m; i++) f /= aa / (double)i - sr;
      if (v > f) continue;
      break;
    }
    double dk = (double)k, rho = (dk / nrq) * ((dk * (dk / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
    double t = -dk * dk / (2 * nrq), A = log(v);
    if (A < t - rho) break;
    if (A > t + rho) continue;
    double x1 = (double)(y + 1), f1 = (double)(m + 1), z = (double)(n + 1 - m), w = (double)(n - y + 1);
    double x2 = x1 * x1, f2 = f1 * f1, z2 = z * z, w2 = w * w;
    double bound = xm * log(f1 / x1) + ((double)(n - m) + 0.5) * log(z / w) + (double)(y - m) * log(w * r / (x1 * q)) +
                   (13680. - (462. - (132. - (99. - 140. / f2) / f2) / f2) / f2) / f1 / 166320. +
                   (13680. - (462. - (132. - (99. - 140. / z2) / z2) / z2) / z2) / z / 166320. +
                   (13680. - (462. - (132. - (99. - 140. / x2) / x2) / x2) / x2) / x1 / 166320. +
                   (13680. - (462. - (132. - (99. - 140. / w2) / w2) / w2) / w2) / w / 166320.;
    if (A > bound) continue;
    break;
  }
  if (p > 0.5) y = n - y;
  return y;
}

/* the legacy binomial: no shortcut for n == 0 or p == 0 (those still draw), as RandomState.binomial */
int64_t mt_binomial_legacy(MtState *s, double p, int64_t n) {
  if (p <= 0.5) return p * (double)n <= 30.0 ? binomial_inversion(s, n, p) : binomial_btpe(s, n, p);
  double q = 1.0 - p;
  return q * (double)n <= 30.0 ? n - binomial_inversion(s, n, q) : n - binomial_btpe(s, n, q);
}

/* numpy's random_binomial, which multinomial uses: n == 0 or p == 0 draw nothing */
static int64_t mt_binomial(MtState *s, double p, int64_t n) {
  if (n == 0 || p == 0.0) return 0;
  return mt_binomial_legacy(s, p, n);
}

void mt_multinomial(MtState *s, int64_t n, int64_t *out, const double *pv, int64_t d) {
  double remaining = 1.0;
  int64_t dn = n;
  for (int64_t j = 0; j < d; j++) out[j] = 0;
  for (int64_t j = 0; j < d - 1; j++) {
    out[j] = mt_binomial(s, pv[j] / remaining, dn);
    dn -= out[j];
    if (dn <= 0) break;
    remaining -= pv[j];
  }
  if (dn > 0 && d > 0) out[d - 1] = dn;
}

static int64_t mt_geometric(MtState *s, double p) {
  if (p >= 0.333333333333333333333333) {
    double u = mt_double(s), sum = p, prod = p, q = 1.0 - p;
    int64_t x = 1;
    while (u > sum) {
      prod *= q;
      sum += prod;
      x++;
    }
    return x;
  }
  return (int64_t)ceil(log(1.0 - mt_double(s)) / log(1.0 - p));
}

static int64_t hyper_hyp(MtState *s, int64_t good, int64_t bad, int64_t sample) {
  int64_t d1 = bad + good - sample;
  double d2 = (double)(good < bad ? good : bad), y = d2;
  int64_t k = sample;
  while (y > 0.0) {
    double u = mt_double(s);
    y -= (double)(int64_t)floor(u + y / (double)(d1 + k));
    k--;
    if (k == 0) break;
  }
  int64_t z = (int64_t)(d2 - y);
  return good > bad ? sample - z : z;
}

static int64_t hyper_hrua(MtState *s, int64_t good, int64_t bad, int64_t sample) {
  const double D1 = 1.7155277699214135, D2 = 0.8989161620588988;
  int64_t mingb = good < bad ? good : bad, maxgb = good > bad ? good : bad, pop = good + bad;
  int64_t m = sample < pop - sample ? sample : pop - sample;
  double d4 = (double)mingb / (double)pop, d5 = 1.0 - d4, d6 = (double)m * d4 + 0.5;
  double d7 = sqrt((double)(pop - m) * (double)sample * d4 * d5 / (double)(pop - 1) + 0.5), d8 = D1 * d7 + D2;
  int64_t d9 = (int64_t)floor((double)(m + 1) * (double)(mingb + 1) / (double)(pop + 2));
  double d10 = loggam((double)(d9 + 1)) + loggam((double)(mingb - d9 + 1)) + loggam((double)(m - d9 + 1)) +
               loggam((double)(maxgb - m + d9 + 1));
  double lim = (double)(m < mingb ? m : mingb) + 1.0, d11 = floor(d6 + 16 * d7);
  if (lim < d11) d11 = lim;
  int64_t z;
  for (;;) {
    double x = mt_double(s), yy = mt_double(s), w = d6 + d8 * (yy - 0.5) / x;
    if (w < 0.0 || w >= d11) continue;
    z = (int64_t)floor(w);
    double t = d10 - (loggam((double)(z + 1)) + loggam((double)(mingb - z + 1)) + loggam((double)(m - z + 1)) +
                      loggam((double)(maxgb - m + z + 1)));
    if (x * (4.0 - x) - 3.0 <= t) break;
    if (x * (x - t) >= 1) continue;
    if (2.0 * log(x) <= t) break;
  }
  if (good > bad) z = m - z;
  if (m < sample) z = good - z;
  return z;
}

static int64_t mt_hypergeometric(MtState *s, int64_t good, int64_t bad, int64_t sample) {
  if (sample > 10) return hyper_hrua(s, good, bad, sample);
  if (sample > 0) return hyper_hyp(s, good, bad, sample);
  return 0;
}

static double mt_laplace(MtState *s, double loc, double scale) {
  for (;;) {
    double u = mt_double(s);
    if (u >= 0.5) return loc - scale * log(2.0 - u - u);
    if (u > 0.0) return loc + scale * log(u + u);
  }
}

static double mt_logistic(MtState *s, double loc, double scale) {
  for (;;) {
    double u = mt_double(s);
    if (u > 0.0) return loc + scale * log(u / (1.0 - u));
  }
}

static double mt_gumbel(MtState *s, double loc, double scale) {
  for (;;) {
    double u = 1.0 - mt_double(s);
    if (u < 1.0) return loc - scale * log(-log(u));
  }
}

static double mt_triangular(MtState *s, double left, double mode, double right) {
  double base = right - left, leftbase = mode - left, ratio = leftbase / base;
  double leftprod = leftbase * base, rightprod = (right - mode) * base, u = mt_double(s);
  if (u <= ratio) return left + sqrt(u * leftprod);
  return right - sqrt((1.0 - u) * rightprod);
}

static double mt_wald(MtState *s, double mean, double scale) {
  double mu_2l = mean / (2 * scale), y = mt_gauss(s);
  y = mean * y * y;
  double x = mean + mu_2l * (y - sqrt(4 * scale * y + y * y)), u = mt_double(s);
  return u <= mean / (mean + x) ? x : mean * mean / x;
}

static double mt_standard_t(MtState *s, double df) {
  double num = mt_gauss(s), denom = mt_std_gamma(s, df / 2);
  return sqrt(df / 2) * num / sqrt(denom);
}

/* One draw of distribution kind with parameters a, b, c: a double, or for the integer kinds the value in *iv. */
double mt_legacy_draw(MtState *s, int kind, double a, double b, double c, int64_t *iv) {
  switch (kind) {
    case MTD_UNIFORM: return a + b * mt_double(s);   /* a = low, b = high - low */
    case MTD_NORMAL: return a + b * mt_gauss(s);
    case MTD_STD_EXPONENTIAL: return mt_std_exponential(s);
    case MTD_EXPONENTIAL: return a * mt_std_exponential(s);
    case MTD_STD_GAMMA: return mt_std_gamma(s, a);
    case MTD_GAMMA: return b * mt_std_gamma(s, a);
    case MTD_BETA: return mt_beta(s, a, b);
    case MTD_CHISQUARE: return mt_chisquare(s, a);
    case MTD_F: return (mt_chisquare(s, a) * b) / (mt_chisquare(s, b) * a);
    case MTD_LAPLACE: return mt_laplace(s, a, b);
    case MTD_LOGISTIC: return mt_logistic(s, a, b);
    case MTD_GUMBEL: return mt_gumbel(s, a, b);
    case MTD_LOGNORMAL: return exp(a + b * mt_gauss(s));
    case MTD_TRIANGULAR: return mt_triangular(s, a, b, c);
    case MTD_PARETO: return exp(mt_std_exponential(s) / a) - 1;
    case MTD_WEIBULL: return a == 0.0 ? 0.0 : pow(mt_std_exponential(s), 1. / a);
    case MTD_POWER: return pow(1 - exp(-mt_std_exponential(s)), 1. / a);
    case MTD_STD_CAUCHY: {
      double n1 = mt_gauss(s);
      return n1 / mt_gauss(s);
    }
    case MTD_STD_T: return mt_standard_t(s, a);
    case MTD_WALD: return mt_wald(s, a, b);
    case MTD_VONMISES: return mt_vonmises(s, a, b);
    case MTD_RAYLEIGH: return mt_rayleigh(s, a);
    case MTD_NC_CHISQUARE: return mt_noncentral_chisquare(s, a, b);
    case MTD_NC_F: return mt_noncentral_f(s, a, b, c);
    case MTD_POISSON: *iv = mt_poisson(s, a); return 0;
    case MTD_GEOMETRIC: *iv = mt_geometric(s, a); return 0;
    case MTD_BINOMIAL: *iv = mt_binomial_legacy(s, b, (int64_t)a); return 0;   /* a = n, b = p */
    case MTD_NEG_BINOMIAL: *iv = mt_poisson(s, ((1 - b) / b) * mt_std_gamma(s, a)); return 0;
    case MTD_HYPERGEOMETRIC: *iv = mt_hypergeometric(s, (int64_t)a, (int64_t)b, (int64_t)c); return 0;
    case MTD_ZIPF: *iv = mt_zipf(s, a); return 0;
    case MTD_LOGSERIES: *iv = mt_logseries(s, a); return 0;
    default: return 0;
  }
}
