/* mathint.c — exact integer functions on GMP for ints of any size: math's factorial comb perm isqrt gcd lcm, builtins' pow(a, b, m) and round(int, n). */
#include <math.h>

#include "modules/mathint.h"
#include "object/bigint.h"
#include "object/value.h"

#define MI_MAX_BITS 4294967296.0   /* results beyond 2**32 bits raise MemoryError, as bigint.c's arithmetic */

static void mi_bits(double bits) {
  if (bits > MI_MAX_BITS) rt_throw(ERR_MEMORY, "%s", "");
}

/* r = n! for 0 <= n < 2**63 */
static void mi_fac(mpz_t r, unsigned long n) {
  mi_bits(n > 2 ? (double)n * log2((double)n) : 1);
  mpz_fac_ui(r, n);
}

Val mi_factorial(Val self, int n, const Val *args, const Kw *kw) {
  mm_count("factorial", n, kw, 1, 1);
  BigTmp t;
  int mark = bigtmp_init(&t, 1);
  bigint_index(args[0], t.z[0]);
  if (mpz_sgn(t.z[0]) < 0) rt_throw(ERR_VALUE, "factorial() not defined for negative values");
  if (!mpz_fits_slong_p(t.z[0])) rt_throw(ERR_OVERFLOW, "factorial() argument should not exceed %ld", (long)INT64_MAX);
  mi_fac(t.z[0], mpz_get_ui(t.z[0]));
  Val r = bigint_from_mpz(t.z[0]);
  bigtmp_done(&t, mark);
  return r;
}

/* gcd and lcm of any number of ints: gcd() == 0, lcm() == 1 */
static Val mi_fold(int n, const Val *args, bool lcm) {
  BigTmp t;
  int mark = bigtmp_init(&t, 2);
  mpz_set_ui(t.z[0], lcm ? 1 : 0);
  for (int i = 0; i < n; i++) {
    bigint_index(args[i], t.z[1]);
    if (!lcm) mpz_gcd(t.z[0], t.z[0], t.z[1]);
    else {
      mi_bits((double)mpz_sizeinbase(t.z[0], 2) + (double)mpz_sizeinbase(t.z[1], 2));
      mpz_lcm(t.z[0], t.z[0], t.z[1]);
    }
  }
  Val r = bigint_from_mpz(t.z[0]);
  bigtmp_done(&t, mark);
  return r;
}
Val mi_gcd(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "gcd() takes no keyword arguments");
  return mi_fold(n, args, false);
}
Val mi_lcm(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "lcm() takes no keyword arguments");
  return mi_fold(n, args, true);
}

/* comb(n, k) and perm(n, k=None): n and k non-negative ints; k beyond n gives 0 */
static Val mi_combperm(const char *what, int n, const Val *args, const Kw *kw, bool comb) {
  mm_count(what, n, kw, comb ? 2 : 1, 2);
  if (!comb && (n == 1 || args[1].tag == VT_NONE)) return mi_factorial(val_undef(), 1, args, NULL);
  BigTmp t;
  int mark = bigtmp_init(&t, 3);
  mpz_t *nn = &t.z[0], *k = &t.z[1], *r = &t.z[2];
  bigint_index(args[0], *nn);
  bigint_index(args[1], *k);
  if (mpz_sgn(*nn) < 0) rt_throw(ERR_VALUE, "n must be a non-negative integer");
  if (mpz_sgn(*k) < 0) rt_throw(ERR_VALUE, "k must be a non-negative integer");
  if (mpz_cmp(*k, *nn) > 0) mpz_set_ui(*r, 0);
  else {
    if (comb) {
      mpz_sub(*r, *nn, *k);
      if (mpz_cmp(*r, *k) < 0) mpz_set(*k, *r);
    }
    if (!mpz_fits_slong_p(*k))
      rt_throw(ERR_OVERFLOW, comb ? "min(n - k, k) must not exceed %ld" : "k must not exceed %ld", (long)INT64_MAX);
    unsigned long kk = mpz_get_ui(*k);
    mi_bits((double)kk * (double)mpz_sizeinbase(*nn, 2));
    mpz_bin_ui(*r, *nn, kk);
    if (!comb) {   /* n! / (n-k)! == comb(n, k) * k! */
      mi_fac(*k, kk);
      mpz_mul(*r, *r, *k);
    }
  }
  Val res = bigint_from_mpz(*r);
  bigtmp_done(&t, mark);
  return res;
}
Val mi_comb(Val self, int n, const Val *args, const Kw *kw) { return mi_combperm("comb", n, args, kw, true); }
Val mi_perm(Val self, int n, const Val *args, const Kw *kw) { return mi_combperm("perm", n, args, kw, false); }

Val mi_isqrt(Val self, int n, const Val *args, const Kw *kw) {
  mm_count("isqrt", n, kw, 1, 1);
  BigTmp t;
  int mark = bigtmp_init(&t, 1);
  bigint_index(args[0], t.z[0]);
  if (mpz_sgn(t.z[0]) < 0) rt_throw(ERR_VALUE, "isqrt() argument must be nonnegative");
  mpz_sqrt(t.z[0], t.z[0]);
  Val r = bigint_from_mpz(t.z[0]);
  bigtmp_done(&t, mark);
  return r;
}

/* pow(base, exp, mod) of ints of any size: the result has mod's sign; a negative exp inverts base modulo mod */
Val mi_powmod(Val base, Val exp, Val mod) {
  BigTmp t;
  int mark = bigtmp_init(&t, 4);
  bigint_index(base, t.z[0]);
  bigint_index(exp, t.z[1]);
  bigint_index(mod, t.z[2]);
  if (mpz_sgn(t.z[2]) == 0) rt_throw(ERR_VALUE, "pow() 3rd argument cannot be 0");
  mpz_abs(t.z[3], t.z[2]);
  if (mpz_sgn(t.z[1]) < 0) {
    if (!mpz_invert(t.z[0], t.z[0], t.z[3])) rt_throw(ERR_VALUE, "base is not invertible for the given modulus");
    mpz_neg(t.z[1], t.z[1]);
  }
  mpz_powm(t.z[0], t.z[0], t.z[1], t.z[3]);
  if (mpz_sgn(t.z[2]) < 0 && mpz_sgn(t.z[0]) != 0) mpz_add(t.z[0], t.z[0], t.z[2]);
  Val r = bigint_from_mpz(t.z[0]);
  bigtmp_done(&t, mark);
  return r;
}

/* round(x, nd) of an int: nd >= 0 keeps x; else x rounded half to even to a multiple of 10**-nd */
Val mi_round_int(Val x, Val nd) {
  BigTmp t;
  int mark = bigtmp_init(&t, 4);
  bigint_index(nd, t.z[1]);
  bigint_get(x, t.z[0]);
  if (mpz_sgn(t.z[1]) >= 0) {
    bigtmp_done(&t, mark);
    return x.tag == VT_BOOL ? val_int(x.u.i) : val_incref(x);
  }
  mpz_neg(t.z[1], t.z[1]);
  if (mpz_cmp_ui(t.z[1], mpz_sizeinbase(t.z[0], 10) + 1) > 0) mpz_set_ui(t.z[0], 0);   /* 10**-nd beyond 2 * |x|: 0 */
  else {
    mpz_ui_pow_ui(t.z[1], 10, mpz_get_ui(t.z[1]));
    mpz_fdiv_qr(t.z[2], t.z[3], t.z[0], t.z[1]);   /* x == q * p + r, 0 <= r < p */
    mpz_mul_2exp(t.z[3], t.z[3], 1);
    int c = mpz_cmp(t.z[3], t.z[1]);
    if (c > 0 || (c == 0 && mpz_odd_p(t.z[2]))) mpz_add_ui(t.z[2], t.z[2], 1);
    mpz_mul(t.z[0], t.z[2], t.z[1]);
  }
  Val r = bigint_from_mpz(t.z[0]);
  bigtmp_done(&t, mark);
  return r;
}
