/* bigint.c — Python ints beyond [INT64_MIN, 2**64) on GMP: what int64 arithmetic overflows into, big literals,
 * int(str); results are normalised back to an int64 (or u64int) value whenever they fit. */
#include <gmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/bigint.h"
#include "object/object.h"
#include "object/value.h"

typedef struct BigInt {
  Obj hdr;
  mpz_t z;
} BigInt;

#define MAX_STR_DIGITS 4300          /* Python 3.11's sys.get_int_max_str_digits() */
#define MAX_BITS ((tfs_i64)1 << 32)  /* results beyond 2**32 bits (512 MB) raise MemoryError instead of exhausting memory */

static void bi_free(Obj *o) {
  mpz_clear(((BigInt *)o)->z);
  free(o);
}

/* z's value as the int kind that holds it: int64, u64int in [2**63, 2**64), else a BigInt (z is left unchanged) */
Val bigint_from_mpz(const mpz_t z) {
  if (mpz_fits_slong_p(z)) return val_int(mpz_get_si(z));
  if (mpz_sgn(z) > 0 && mpz_sizeinbase(z, 2) <= 64) {
    tfs_u64 v = (tfs_u64)mpz_getlimbn(z, 0);
    return u64int_new(v);
  }
  BigInt *o = obj_new(&bigint_type, sizeof(BigInt));
  mpz_init_set(o->z, z);
  return val_obj(o);
}

/* Set z (initialised) to v when v is an int of any kind (bool too): false otherwise. */
bool bigint_get(Val v, mpz_t z) {
  tfs_u64 u;
  if (v.tag == VT_INT || v.tag == VT_BOOL) mpz_set_si(z, v.u.i);
  else if (u64int_value(v, &u)) mpz_set_ui(z, u);
  else if (val_is(v, &bigint_type)) mpz_set(z, ((BigInt *)v.u.o)->z);
  else return false;
  return true;
}

bool bigint_is_wide(Val v) { return val_is(v, &u64int_type) || val_is(v, &bigint_type); }

void bigint_index(Val v, mpz_t z) {
  int64_t i;
  if (bigint_get(v, z)) return;
  if (v.tag == VT_FLOAT || !val_as_int(v, &i)) rt_throw(ERR_TYPE, "'%s' object cannot be interpreted as an integer", val_type_name(v));
  mpz_set_si(z, i);
}

static void bigtmp_free(void *p) {
  BigTmp *t = p;
  for (int i = 0; i < t->n; i++) mpz_clear(t->z[i]);
  t->n = 0;
}
int bigtmp_init(BigTmp *t, int n) {
  for (int i = 0; i < n; i++) mpz_init(t->z[i]);
  t->n = n;
  return rt_hold_fn(bigtmp_free, t);
}
void bigtmp_done(BigTmp *t, int mark) {
  rt_unhold(mark);
  bigtmp_free(t);
}

static bool is_intlike(Val v) {
  return v.tag == VT_INT || v.tag == VT_BOOL || val_is(v, &u64int_type) || val_is(v, &bigint_type);
}

/* A big value whose result we own: freed by the error machinery if an operation throws. */
typedef struct Z2 { mpz_t a, b, r; } Z2;
static void z2_free(void *p) {
  Z2 *z = p;
  mpz_clears(z->a, z->b, z->r, NULL);
}

/* Python's correctly rounded float of m * 2**e (m > 0 an integer, sticky: nonzero bits below m were dropped);
 * too large: OverflowError with msg. */
static double round_ldexp(mpz_t m, bool sticky, tfs_i64 e, const char *msg) {
  size_t bits = mpz_sizeinbase(m, 2);
  if (bits > 53) {
    size_t drop = bits - 53;
    bool half = mpz_tstbit(m, drop - 1);
    bool below = sticky || (drop >= 2 && mpz_scan1(m, 0) < drop - 1);
    mpz_fdiv_q_2exp(m, m, drop);
    e += (tfs_i64)drop;
    if (half && (below || mpz_odd_p(m))) mpz_add_ui(m, m, 1);
  }
  double d = mpz_get_d(m);   /* exact: at most 54 bits, a power of two at 54 */
  /* errindex: int too large to convert to float */
  /* errindex: integer division result too large for a float */
  if (e > 2000) rt_throw(ERR_OVERFLOW, "%s", msg);
  if (e < -2200) return 0.0;
  d = ldexp(d, (int)e);
  /* errindex: - (the messages above) */
  if (isinf(d)) rt_throw(ERR_OVERFLOW, "%s", msg);
  return d;
}

double bigint_to_double(const mpz_t z) {
  if (mpz_sgn(z) == 0) return 0.0;
  mpz_t m;
  mpz_init(m);
  mpz_abs(m, z);
  int mark = rt_hold_fn((void (*)(void *))mpz_clear, m);
  double d = round_ldexp(m, false, 0, "int too large to convert to float");
  rt_unhold(mark);
  mpz_clear(m);
  return mpz_sgn(z) < 0 ? -d : d;
}

/* a / b for ints, correctly rounded as Python's true division */
static double true_div(const mpz_t a, const mpz_t b) {
  if (mpz_sgn(b) == 0) rt_throw(ERR_ZERODIV, "division by zero");
  if (mpz_sgn(a) == 0) return mpz_sgn(b) < 0 ? -0.0 : 0.0;
  Z2 z;
  mpz_inits(z.a, z.b, z.r, NULL);
  int mark = rt_hold_fn(z2_free, &z);
  mpz_abs(z.a, a);
  mpz_abs(z.b, b);
  tfs_i64 shift = (tfs_i64)mpz_sizeinbase(z.b, 2) - (tfs_i64)mpz_sizeinbase(z.a, 2) + 55;
  if (shift > 0) mpz_mul_2exp(z.a, z.a, (mp_bitcnt_t)shift);
  else mpz_mul_2exp(z.b, z.b, (mp_bitcnt_t)-shift);
  mpz_tdiv_qr(z.r, z.a, z.a, z.b);   /* r: the quotient (55 or 56 bits), a: the remainder */
  double d = round_ldexp(z.r, mpz_sgn(z.a) != 0, -shift, "integer division result too large for a float");
  bool neg = (mpz_sgn(a) < 0) != (mpz_sgn(b) < 0);
  rt_unhold(mark);
  z2_free(&z);
  return neg ? -d : d;
}

static void check_bits(double bits) {
  if (bits > (double)MAX_BITS) rt_throw(ERR_MEMORY, "%s", "");
}

/* r = a op b on ints; false when op is not an int operation */
static bool int_op(int op, mpz_t r, const mpz_t a, const mpz_t b) {
  switch (op) {
    case BIN_ADD: mpz_add(r, a, b); return true;
    case BIN_SUB: mpz_sub(r, a, b); return true;
    case BIN_MUL:
      check_bits((double)mpz_sizeinbase(a, 2) + (double)mpz_sizeinbase(b, 2));
      mpz_mul(r, a, b);
      return true;
    case BIN_FLOORDIV:
      if (mpz_sgn(b) == 0) rt_throw(ERR_ZERODIV, "integer division or modulo by zero");
      mpz_fdiv_q(r, a, b);
      return true;
    case BIN_MOD:
      if (mpz_sgn(b) == 0) rt_throw(ERR_ZERODIV, "integer modulo by zero");
      mpz_fdiv_r(r, a, b);
      return true;
    case BIN_POW: {
      /* a negative exponent was handled by the caller (a float result) */
      if (mpz_cmp_ui(a, 1) == 0 || mpz_sgn(a) == 0) {
        mpz_set_ui(r, mpz_sgn(b) == 0 ? 1 : mpz_get_ui(a));
        return true;
      }
      if (mpz_cmp_si(a, -1) == 0) {
        mpz_set_si(r, mpz_odd_p(b) ? -1 : 1);
        return true;
      }
      if (!mpz_fits_ulong_p(b)) rt_throw(ERR_MEMORY, "%s", "");
      unsigned long e = mpz_get_ui(b);
      check_bits((double)mpz_sizeinbase(a, 2) * (double)e);
      mpz_pow_ui(r, a, e);
      return true;
    }
    case BIN_LSHIFT:
    case BIN_RSHIFT: {
      if (mpz_sgn(b) < 0) rt_throw(ERR_VALUE, "negative shift count");
      bool fits = mpz_fits_ulong_p(b);
      if (op == BIN_RSHIFT) {
        if (!fits) mpz_set_si(r, mpz_sgn(a) < 0 ? -1 : 0);
        else mpz_fdiv_q_2exp(r, a, mpz_get_ui(b));
        return true;
      }
      if (mpz_sgn(a) == 0) {
        mpz_set_ui(r, 0);
        return true;
      }
      if (!fits) rt_throw(ERR_OVERFLOW, "too many digits in integer");
      check_bits((double)mpz_sizeinbase(a, 2) + (double)mpz_get_ui(b));
      mpz_mul_2exp(r, a, mpz_get_ui(b));
      return true;
    }
    case BIN_BITAND: mpz_and(r, a, b); return true;
    case BIN_BITOR: mpz_ior(r, a, b); return true;
    case BIN_BITXOR: mpz_xor(r, a, b); return true;
    default: return false;
  }
}

/* a op b with ints of any size (int64, u64int, BigInt) or one float operand; VT_UNDEF for other operands */
Val bigint_binop(int op, Val a, Val b) {
  bool fa = a.tag == VT_FLOAT, fb = b.tag == VT_FLOAT;
  if (!(is_intlike(a) || fa) || !(is_intlike(b) || fb) || (fa && fb) || op == BIN_MATMUL) return val_undef();
  Z2 z;
  mpz_inits(z.a, z.b, z.r, NULL);
  int mark = rt_hold_fn(z2_free, &z);
  Val res;
  if (fa || fb) {   /* int with float: the int as a float (OverflowError when too large), as Python */
    double x = fa ? a.u.f : (bigint_get(a, z.a), bigint_to_double(z.a));
    double y = fb ? b.u.f : (bigint_get(b, z.b), bigint_to_double(z.b));
    res = rt_binop(op, val_float(x), val_float(y));
  } else {
    bigint_get(a, z.a);
    bigint_get(b, z.b);
    if (op == BIN_DIV) res = val_float(true_div(z.a, z.b));
    else if (op == BIN_POW && mpz_sgn(z.b) < 0) {
      if (mpz_sgn(z.a) == 0) rt_throw(ERR_ZERODIV, "0.0 cannot be raised to a negative power");
      res = rt_binop(op, val_float(bigint_to_double(z.a)), val_float(bigint_to_double(z.b)));
    } else if (int_op(op, z.r, z.a, z.b)) res = bigint_from_mpz(z.r);
    else res = val_undef();
  }
  rt_unhold(mark);
  z2_free(&z);
  return res;
}

Val bigint_unop(int op, Val a) {
  if (op == UN_NOT) return val_bool(false);   /* a BigInt or u64int is never 0 */
  if (op == UN_POS) return val_incref(a);
  Z2 z;
  mpz_inits(z.a, z.b, z.r, NULL);
  int mark = rt_hold_fn(z2_free, &z);
  bigint_get(a, z.a);
  if (op == UN_NEG) mpz_neg(z.r, z.a);
  else mpz_com(z.r, z.a);
  Val r = bigint_from_mpz(z.r);
  rt_unhold(mark);
  z2_free(&z);
  return r;
}

/* abs(x) of an int of any kind */
Val bigint_abs(Val a) {
  Z2 z;
  mpz_inits(z.a, z.b, z.r, NULL);
  int mark = rt_hold_fn(z2_free, &z);
  bigint_get(a, z.a);
  mpz_abs(z.r, z.a);
  Val r = bigint_from_mpz(z.r);
  rt_unhold(mark);
  z2_free(&z);
  return r;
}

/* op's answer for an ordering r (-1, 0, 1) of two numbers; VT_UNDEF for no comparison operator */
Val int_cmp_result(int op, int r) {
  switch (op) {
    case CMP_LT: return val_bool(r < 0);
    case CMP_LE: return val_bool(r <= 0);
    case CMP_GT: return val_bool(r > 0);
    case CMP_GE: return val_bool(r >= 0);
    case CMP_EQ: return val_bool(r == 0);
    case CMP_NE: return val_bool(r != 0);
    default: return val_undef();
  }
}

/* -1, 0, 1 comparing a (a BigInt) with b; false when b is no int or float, or is NaN */
static bool bi_order(Val a, Val b, int *r) {
  const mpz_t *x = &((BigInt *)a.u.o)->z;
  if (b.tag == VT_FLOAT) {
    if (b.u.f != b.u.f) return false;
    if (isinf(b.u.f)) *r = b.u.f > 0 ? -1 : 1;
    else *r = mpz_cmp_d(*x, b.u.f);
  } else {
    if (!is_intlike(b)) return false;
    mpz_t y;
    mpz_init(y);
    bigint_get(b, y);
    *r = mpz_cmp(*x, y);
    mpz_clear(y);
  }
  *r = *r < 0 ? -1 : *r > 0;
  return true;
}

static Val bi_compare(int op, Val a, Val b) {
  bool swap = !val_is(a, &bigint_type);
  int r;
  if (!bi_order(swap ? b : a, swap ? a : b, &r)) {
    bool other_num = (swap ? a : b).tag == VT_FLOAT;   /* NaN: every comparison false but != */
    if (op == CMP_EQ) return val_bool(false);
    if (op == CMP_NE) return val_bool(true);
    return other_num ? val_bool(false) : val_undef();
  }
  return int_cmp_result(op, swap ? -r : r);
}

static bool bi_eq(Val a, Val b) {
  int r;
  return bi_order(a, b, &r) && r == 0;
}

/* CPython's hash of an int: sign * (|v| mod 2**61 - 1), -1 becoming -2 */
static tfs_u64 bi_hash(Val v) {
  const mpz_t *x = &((BigInt *)v.u.o)->z;
  tfs_i64 h = (tfs_i64)mpz_tdiv_ui(*x, ((unsigned long)1 << 61) - 1);
  if (mpz_sgn(*x) < 0) h = -h;
  if (h == -1) h = -2;
  return (tfs_u64)h;
}

static void bi_repr(StrBuf *b, Val v) {
  const mpz_t *x = &((BigInt *)v.u.o)->z;
  if (mpz_sizeinbase(*x, 10) > MAX_STR_DIGITS + 1)
    rt_throw(ERR_VALUE, "Exceeds the limit (%d digits) for integer string conversion; use "
             "sys.set_int_max_str_digits() to increase the limit", MAX_STR_DIGITS);
  char *s = mpz_get_str(NULL, 10, *x);
  size_t n = strlen(s);
  bool over = n - (s[0] == '-') > MAX_STR_DIGITS;
  if (!over) sb_puts(b, s);
  void (*gfree)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &gfree);
  gfree(s, n + 1);
  if (over)
    rt_throw(ERR_VALUE, "Exceeds the limit (%d digits) for integer string conversion; use "
             "sys.set_int_max_str_digits() to increase the limit", MAX_STR_DIGITS);
}

/* int(text, base) beyond 64 bits: s holds only digits of base (underscores removed), neg its sign */
Val bigint_parse(const char *s, int base, bool neg) {
  size_t n = strlen(s);
  if (base == 10 && n > MAX_STR_DIGITS)
    rt_throw(ERR_VALUE, "Exceeds the limit (%d digits) for integer string conversion: value has %zu digits; use "
             "sys.set_int_max_str_digits() to increase the limit", MAX_STR_DIGITS, n);
  Z2 z;
  mpz_inits(z.a, z.b, z.r, NULL);
  int mark = rt_hold_fn(z2_free, &z);
  if (mpz_set_str(z.r, s, base) != 0) rt_throw(ERR_VALUE, "invalid literal for int() with base %d: '%s'", base, s);
  if (neg) mpz_neg(z.r, z.r);
  Val r = bigint_from_mpz(z.r);
  rt_unhold(mark);
  z2_free(&z);
  return r;
}

/* rt_bigint_lit("digits"): a decimal literal beyond 2**64 - 1 in compiled code */
Val rt_bigint_lit(const char *digits) {
  bool neg = digits[0] == '-';
  mpz_t z;
  mpz_init_set_str(z, digits + neg, 10);
  if (neg) mpz_neg(z, z);
  Val r = bigint_from_mpz(z);
  mpz_clear(z);
  return r;
}

/* int(x) of a float beyond int64: the exact integer of its truncation */
Val bigint_from_double(double d) {
  if (isinf(d)) rt_throw(ERR_OVERFLOW, "cannot convert float infinity to integer");
  if (d != d) rt_throw(ERR_VALUE, "cannot convert float NaN to integer");
  mpz_t z;
  mpz_init_set_d(z, d);
  Val r = bigint_from_mpz(z);
  mpz_clear(z);
  return r;
}

/* float(x) of an int of any kind */
double bigint_float(Val v) {
  mpz_t z;
  mpz_init(z);
  bigint_get(v, z);
  int mark = rt_hold_fn((void (*)(void *))mpz_clear, z);
  double d = bigint_to_double(z);
  rt_unhold(mark);
  mpz_clear(z);
  return d;
}

const Type bigint_type = {
  .name = "int",
  .free = bi_free,
  .repr = bi_repr,
  .binop = bigint_binop,
  .unop = bigint_unop,
  .compare = bi_compare,
  .eq = bi_eq,
  .hash = bi_hash,
  .getattr = num_getattr,   /* bit_length, to_bytes, ... as small ints (nummethods.c) */
};
