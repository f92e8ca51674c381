/* nummethods.c — the attributes of int, bool and float values: bit_length, real, imag, conjugate, is_integer, hex, fromhex. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/hosttypes.h"
#include "object/bigint.h"
#include "object/object.h"
#include "object/value.h"

static void nm_noargs(const char *what, int n, const Kw *kw) {
  if ((kw && kw->n) || n) rt_throw(ERR_TYPE, "%s() takes no arguments (%d given)", what, n + (kw ? kw->n : 0));
}

static Val nm_bit_length(Val self, int n, const Val *args, const Kw *kw) {
  nm_noargs("int.bit_length", n, kw);
  mpz_t z;
  mpz_init(z);
  bigint_get(self, z);
  tfs_i64 bits = mpz_sgn(z) ? (tfs_i64)mpz_sizeinbase(z, 2) : 0;
  mpz_clear(z);
  return val_int(bits);
}

static Val nm_conjugate(Val self, int n, const Val *args, const Kw *kw) {
  nm_noargs(self.tag == VT_FLOAT ? "float.conjugate" : "int.conjugate", n, kw);
  return self.tag == VT_BOOL ? val_int(self.u.i) : val_incref(self);
}

static Val nm_is_integer(Val self, int n, const Val *args, const Kw *kw) {
  nm_noargs("float.is_integer", n, kw);
  return val_bool(isfinite(self.u.f) && self.u.f == floor(self.u.f));
}

/* float.hex(): CPython's form, [-]0x1.<13 hex digits>p<signed exponent>; subnormals as 0x0.<digits>p-1022. */
static Val nm_hex(Val self, int n, const Val *args, const Kw *kw) {
  nm_noargs("float.hex", n, kw);
  double x = self.u.f;
  if (isnan(x)) return str_from_cstr("nan");
  if (isinf(x)) return str_from_cstr(x < 0 ? "-inf" : "inf");
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  const char *sign = bits >> 63 ? "-" : "";
  uint64_t mant = bits & ((1ULL << 52) - 1);
  int ef = (int)((bits >> 52) & 0x7ff);
  char buf[48];
  if (ef == 0 && mant == 0) snprintf(buf, sizeof buf, "%s0x0.0p+0", sign);
  else snprintf(buf, sizeof buf, "%s0x%d.%013llxp%+d", sign, ef != 0, (unsigned long long)mant, ef ? ef - 1023 : -1022);
  return str_from_cstr(buf);
}

/* float.fromhex(s): CPython's grammar checked here ([sign] inf|infinity|nan, or [sign] [0x] digits [. digits]
 * [p [sign] decimal digits], blanks around), the value then read by strtod of the canonical 0x form, which
 * rounds half to even to 53 bits as CPython does. */
static Val nm_fromhex(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if ((kw && kw->n) || n != 1) rt_throw(ERR_TYPE, "float.fromhex() takes exactly one argument (%d given)", n + (kw ? kw->n : 0));
  if (!val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "bad argument type for built-in operation");
  const char *s = str_cstr(args[0]);
  while (isspace((unsigned char)*s)) s++;
  const char *end = s + strlen(s);
  while (end > s && isspace((unsigned char)end[-1])) end--;
  bool neg = *s == '-';
  if (*s == '-' || *s == '+') s++;
  size_t len = (size_t)(end - s);
  if ((len == 3 && !strncasecmp(s, "inf", 3)) || (len == 8 && !strncasecmp(s, "infinity", 8))) return val_float(neg ? -INFINITY : INFINITY);
  if (len == 3 && !strncasecmp(s, "nan", 3)) return val_float(neg ? -NAN : NAN);
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
  const char *digits = s;
  int nd = 0;
  while (s < end && isxdigit((unsigned char)*s)) s++, nd++;
  if (s < end && *s == '.') {
    s++;
    while (s < end && isxdigit((unsigned char)*s)) s++, nd++;
  }
  const char *mant_end = s;
  const char *exp = "0";
  size_t explen = 1;
  if (nd > 0 && s < end && (*s == 'p' || *s == 'P')) {
    exp = ++s;
    if (s < end && (*s == '+' || *s == '-')) s++;
    int ed = 0;
    while (s < end && isdigit((unsigned char)*s)) s++, ed++;
    if (!ed) nd = 0;
    explen = (size_t)(s - exp);
  }
  if (nd == 0 || s != end) rt_throw(ERR_VALUE, "invalid hexadecimal floating-point string");
  size_t ml = (size_t)(mant_end - digits);
  char *canon = malloc(ml + explen + 5);
  if (!canon) rt_throw(ERR_MEMORY, "out of memory");
  snprintf(canon, ml + explen + 5, "0x%.*sp%.*s", (int)ml, digits, (int)explen, exp);
  double v = strtod(canon, NULL);
  free(canon);
  if (isinf(v)) rt_throw(ERR_OVERFLOW, "hexadecimal value too large to represent as a float");
  return val_float(neg ? -v : v);
}

/* float.fromhex as the type's attribute (a class method: no float bound). */
Val num_fromhex_builtin(void) { return builtin_new("float.fromhex", nm_fromhex, val_undef(), NULL); }

/* VT_UNDEF when v has no such attribute. */
Val num_getattr(Val v, const char *name) {
  bool fl = v.tag == VT_FLOAT;
  if (!strcmp(name, "real")) return v.tag == VT_BOOL ? val_int(v.u.i) : val_incref(v);
  if (!strcmp(name, "imag")) return fl ? val_float(0.0) : val_int(0);
  if (!strcmp(name, "conjugate")) return builtin_new(fl ? "float.conjugate" : "int.conjugate", nm_conjugate, v, NULL);
  if (fl && !strcmp(name, "hex")) return builtin_new("float.hex", nm_hex, v, NULL);
  if (fl && !strcmp(name, "fromhex")) return num_fromhex_builtin();
  if (fl && !strcmp(name, "is_integer")) return builtin_new("float.is_integer", nm_is_integer, v, NULL);
  if (!fl && !strcmp(name, "bit_length")) return builtin_new("int.bit_length", nm_bit_length, v, NULL);
  if (!fl && (!strcmp(name, "numerator"))) return v.tag == VT_OBJ ? val_incref(v) : val_int(v.u.i);
  if (!fl && (!strcmp(name, "denominator"))) return val_int(1);
  return numextra_get(v, name);
}
