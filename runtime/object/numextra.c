/* numextra.c — int.to_bytes, int.from_bytes, int.bit_count and int/float.as_integer_ratio (ints of any size, on GMP). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/bigint.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* byteorder and signed of to_bytes/from_bytes: a str 'little'/'big' and any truth value. */
static bool nx_little(const char *what, Val order) {
  if (!val_is(order, &str_type)) rt_throw(ERR_TYPE, "%s() argument 'byteorder' must be str, not %s", what, val_type_name(order));
  if (!strcmp(str_cstr(order), "little")) return true;
  if (!strcmp(str_cstr(order), "big")) return false;
  rt_throw(ERR_VALUE, "byteorder must be either 'little' or 'big'");
}

/* Positional-or-keyword parameters names[0..np) then keyword-only ones, CPython's messages for misuse. */
static void nx_args(const char *what, int n, const Val *args, const Kw *kw, const char *const *names, int np, int nall, Val *out) {
  if (n > np) rt_throw(ERR_TYPE, "%s() takes at most %d positional argument%s (%d given)", what, np, np == 1 ? "" : "s", n);
  for (int i = 0; i < n; i++) out[i] = args[i];
  for (int k = 0; kw && k < kw->n; k++) {
    int j = 0;
    while (j < nall && strcmp(names[j], kw->names[k])) j++;
    if (j == nall) rt_throw(ERR_TYPE, "'%s' is an invalid keyword argument for %s()", kw->names[k], what);
    if (j < n) rt_throw(ERR_TYPE, "argument for %s() given by name ('%s') and position (%d)", what, names[j], j + 1);
    out[j] = kw->vals[k];
  }
}

static Val nx_to_bytes(Val self, int n, const Val *args, const Kw *kw) {
  static const char *const names[] = {"length", "byteorder", "signed"};
  Val a[3] = {val_int(1), val_undef(), val_bool(false)};
  nx_args("to_bytes", n, args, kw, names, 2, 3, a);
  tfs_i64 len = val_to_index(a[0], NULL);
  if (len < 0) rt_throw(ERR_VALUE, "length argument must be non-negative");
  bool little = val_is_undef(a[1]) ? false : nx_little("to_bytes", a[1]), sgn = rt_truthy(a[2]);
  BigTmp t;
  int mark = bigtmp_init(&t, 1);
  mpz_t *v = &t.z[0];
  bigint_get(self, *v);
  if (mpz_sgn(*v) < 0 && !sgn) rt_throw(ERR_OVERFLOW, "can't convert negative int to unsigned");
  /* fits when the magnitude needs at most 8*len bits (8*len - 1 and the sign bit when signed; -2**(8*len-1) fits too) */
  if (mpz_sgn(*v) < 0) mpz_add_ui(*v, *v, 1), mpz_neg(*v, *v);   /* -v - 1: the bits a two's complement form keeps */
  size_t need = mpz_sgn(*v) ? mpz_sizeinbase(*v, 2) + sgn : 0;
  if ((double)need > 8.0 * (double)len) rt_throw(ERR_OVERFLOW, "int too big to convert");   /* also (-1).to_bytes(0, signed=True) == b'' */
  bool neg = false;
  bigint_get(self, *v);
  if (mpz_sgn(*v) < 0) {   /* two's complement in len bytes: v + 256**len */
    neg = true;
    mpz_neg(*v, *v);
    mpz_sub_ui(*v, *v, 1);
  }
  unsigned char *d;
  Val r = bytes_alloc((size_t)len, &d);
  memset(d, 0, (size_t)len);
  size_t cnt = 0;
  if (len) mpz_export(d, &cnt, -1, 1, 0, 0, *v);   /* least significant byte first, fits in len bytes */
  for (tfs_i64 i = 0; i < len; i++) d[i] = neg ? (unsigned char)~d[i] : d[i];
  if (!little)
    for (tfs_i64 i = 0; i < len / 2; i++) {
      unsigned char c = d[i];
      d[i] = d[len - 1 - i], d[len - 1 - i] = c;
    }
  bigtmp_done(&t, mark);
  return r;
}

static Val nx_from_bytes(Val self, int n, const Val *args, const Kw *kw) {
  static const char *const names[] = {"bytes", "byteorder", "signed"};
  Val a[3] = {val_undef(), val_undef(), val_bool(false)};
  nx_args("from_bytes", n, args, kw, names, 2, 3, a);
  if (val_is_undef(a[0])) rt_throw(ERR_TYPE, "from_bytes() missing required argument 'bytes' (pos 1)");
  bool little = val_is_undef(a[1]) ? false : nx_little("from_bytes", a[1]), sgn = rt_truthy(a[2]);
  Val b = a[0];
  int mark = -1;
  if (!val_is(b, &bytes_type)) {
    if (val_is(b, &str_type) || (b.tag != VT_OBJ) || !b.u.o->type->iter)
      rt_throw(ERR_TYPE, "cannot convert '%s' object to bytes", val_type_name(b));
    b = bytes_construct(1, &a[0], NULL);   /* a bytearray, an iterable of ints in range(256) */
    mark = rt_hold_val(b);
  }
  size_t len;
  const unsigned char *d = bytes_data(b, &len);
  mpz_t z;
  mpz_init(z);
  if (len) mpz_import(z, len, little ? -1 : 1, 1, 0, 0, d);
  if (sgn && len && (d[little ? len - 1 : 0] & 0x80)) {   /* negative: minus 256**len */
    mpz_t p;
    mpz_init(p);
    mpz_ui_pow_ui(p, 256, len);
    mpz_sub(z, z, p);
    mpz_clear(p);
  }
  if (mark >= 0) {
    rt_unhold(mark);
    val_decref(b);
  }
  bool nonzero = mpz_sgn(z) != 0;
  Val v = self.tag == VT_BOOL ? val_bool(nonzero) : bigint_from_mpz(z);   /* bool.from_bytes gives a bool */
  mpz_clear(z);
  return v;
}

static void nx_noargs(const char *what, int n, const Kw *kw) {
  if ((kw && kw->n) || n) rt_throw(ERR_TYPE, "%s() takes no arguments (%d given)", what, n + (kw ? kw->n : 0));
}

static Val nx_bit_count(Val self, int n, const Val *args, const Kw *kw) {
  nx_noargs("int.bit_count", n, kw);
  mpz_t z;
  mpz_init(z);
  bigint_get(self, z);
  mpz_abs(z, z);
  tfs_i64 c = (tfs_i64)mpz_popcount(z);
  mpz_clear(z);
  return val_int(c);
}

static Val nx_ratio(Val self, int n, const Val *args, const Kw *kw) {
  if (self.tag != VT_FLOAT) {
    nx_noargs("int.as_integer_ratio", n, kw);
    Val me = self.tag == VT_BOOL ? val_int(self.u.i) : val_incref(self), t = tuple_pack(2, me, val_int(1));
    val_decref(me);
    return t;
  }
  nx_noargs("float.as_integer_ratio", n, kw);
  double f = self.u.f;
  if (isinf(f)) rt_throw(ERR_OVERFLOW, "cannot convert Infinity to integer ratio");
  if (isnan(f)) rt_throw(ERR_VALUE, "cannot convert NaN to integer ratio");
  int e;
  double m = frexp(f, &e);
  for (int i = 0; i < 300 && m != floor(m); i++) m *= 2.0, e--;   /* an integral mantissa: f = m * 2**e */
  mpz_t num, den;   /* f == m * 2**e exactly: (m * 2**e, 1) or (m, 2**-e) */
  mpz_init_set_d(num, m);
  mpz_init_set_ui(den, 1);
  if (e > 0) mpz_mul_2exp(num, num, (mp_bitcnt_t)e);
  else mpz_mul_2exp(den, den, (mp_bitcnt_t)-e);
  Val a = bigint_from_mpz(num), b = bigint_from_mpz(den), t = tuple_pack(2, a, b);
  mpz_clears(num, den, NULL);
  val_decref(a);
  val_decref(b);
  return t;
}

Val numextra_get(Val v, const char *name) {
  bool fl = v.tag == VT_FLOAT;
  if (!strcmp(name, "as_integer_ratio")) return builtin_new(fl ? "float.as_integer_ratio" : "int.as_integer_ratio", nx_ratio, v, NULL);
  if (fl) return val_undef();
  if (!strcmp(name, "to_bytes")) return builtin_new("int.to_bytes", nx_to_bytes, v, NULL);
  if (!strcmp(name, "from_bytes")) return int_from_bytes_fn(v.tag == VT_BOOL);
  if (!strcmp(name, "bit_count")) return builtin_new("int.bit_count", nx_bit_count, v, NULL);
  return val_undef();
}

Val int_from_bytes_fn(bool as_bool) { return builtin_new("int.from_bytes", nx_from_bytes, as_bool ? val_bool(false) : val_int(0), NULL); }
