/* complex.c — Python's complex numbers: literals (3j), complex(), .real .imag .conjugate(), arithmetic, abs, hash and repr as CPython 3.11. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/hooks.h"
#include "object/numfmt.h"
#include "object/object.h"
#include "object/value.h"

typedef struct Complex {
  Obj hdr;
  double re, im;
} Complex;

Val complex_new(double re, double im) {
  Complex *c = obj_new(&complex_type, sizeof(Complex));
  c->re = re;
  c->im = im;
  return val_obj(c);
}

Val rt_complex(double re, double im) { return complex_new(re, im); }

void complex_parts(Val v, double *re, double *im) {
  *re = ((Complex *)v.u.o)->re;
  *im = ((Complex *)v.u.o)->im;
}

/* int, bool, float or complex, as a complex (an int too large for a double: OverflowError, as CPython). */
static bool cx_as(Val v, double *re, double *im) {
  switch (v.tag) {
    case VT_BOOL:
    case VT_INT: *re = (double)v.u.i, *im = 0; return true;
    case VT_FLOAT: *re = v.u.f, *im = 0; return true;
    case VT_OBJ:
      if (v.u.o->type != &complex_type) return false;
      complex_parts(v, re, im);
      return true;
    default: return false;
  }
}

/* ---- CPython's algorithms (Objects/complexobject.c) --------------------------------------- */

typedef struct Cx { double re, im; } Cx;

static Cx cx_prod(Cx a, Cx b) { return (Cx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

/* _Py_c_quot: Smith's method; errno EDOM for a zero divisor */
static Cx cx_quot(Cx a, Cx b) {
  Cx r;
  const double abs_br = b.re < 0 ? -b.re : b.re, abs_bi = b.im < 0 ? -b.im : b.im;
  if (abs_br >= abs_bi) {
    if (abs_br == 0.0) {
      errno = EDOM;
      r.re = r.im = 0.0;
    } else {
      const double ratio = b.im / b.re, denom = b.re + b.im * ratio;
      r.re = (a.re + a.im * ratio) / denom;
      r.im = (a.im - a.re * ratio) / denom;
    }
  } else if (abs_bi >= abs_br) {
    const double ratio = b.re / b.im, denom = b.re * ratio + b.im;
    r.re = (a.re * ratio + a.im) / denom;
    r.im = (a.im * ratio - a.re) / denom;
  } else {
    r.re = r.im = NAN;   /* at least one of b's parts is a NaN */
  }
  return r;
}

static Cx cx_pow(Cx a, Cx b) {
  Cx r;
  if (b.re == 0. && b.im == 0.) {
    r.re = 1., r.im = 0.;
  } else if (a.re == 0. && a.im == 0.) {
    if (b.im != 0. || b.re < 0.) errno = EDOM;
    r.re = r.im = 0.;
  } else {
    double vabs = hypot(a.re, a.im), len = pow(vabs, b.re), at = atan2(a.im, a.re), phase = at * b.re;
    if (b.im != 0.0) {
      len /= exp(at * b.im);
      phase += b.im * log(vabs);
    }
    r.re = len * cos(phase);
    r.im = len * sin(phase);
  }
  return r;
}

static Cx cx_powu(Cx x, long n) {
  Cx r = {1., 0.}, p = x;
  long mask = 1;
  while (mask > 0 && n >= mask) {
    if (n & mask) r = cx_prod(r, p);
    mask <<= 1;
    p = cx_prod(p, p);
  }
  return r;
}

static Cx cx_powi(Cx x, long n) {
  if (n > 0) return cx_powu(x, n);
  return cx_quot((Cx){1., 0.}, cx_powu(x, -n));
}

/* complex_pow: small integral exponents by repeated multiplication, the rest in polar form */
static Val cx_power(Cx a, Cx b) {
  errno = 0;
  Cx p = b.im == 0.0 && b.re == floor(b.re) && fabs(b.re) <= 100.0 ? cx_powi(a, (long)b.re) : cx_pow(a, b);
  if (isinf(p.re) || isinf(p.im)) {
    if (errno == 0) errno = ERANGE;
  } else if (errno == ERANGE) {
    errno = 0;
  }
  if (errno == EDOM) rt_throw(ERR_ZERODIV, "0.0 to a negative or complex power");
  if (errno == ERANGE) rt_throw(ERR_OVERFLOW, "complex exponentiation");
  return complex_new(p.re, p.im);
}

/* float ** float with a negative base and a fractional exponent: complex, as Python 3 */
Val complex_float_pow(double a, double b) { return cx_power((Cx){a, 0}, (Cx){b, 0}); }

/* ---- the type ----------------------------------------------------------------------------- */

static Val cx_binop(int op, Val a, Val b) {
  Cx x, y;
  if (!cx_as(a, &x.re, &x.im) || !cx_as(b, &y.re, &y.im)) return val_undef();
  switch (op) {
    case BIN_ADD: return complex_new(x.re + y.re, x.im + y.im);
    case BIN_SUB: return complex_new(x.re - y.re, x.im - y.im);
    case BIN_MUL: {
      Cx r = cx_prod(x, y);
      return complex_new(r.re, r.im);
    }
    case BIN_DIV: {
      errno = 0;
      Cx r = cx_quot(x, y);
      if (errno == EDOM) rt_throw(ERR_ZERODIV, "complex division by zero");
      return complex_new(r.re, r.im);
    }
    case BIN_POW: return cx_power(x, y);
    default: return val_undef();   /* // % and the bitwise operators: TypeError */
  }
}

static Val cx_unop(int op, Val a) {
  Complex *c = (Complex *)a.u.o;
  if (op == UN_NEG) return complex_new(-c->re, -c->im);
  if (op == UN_POS) return complex_new(c->re, c->im);
  return val_undef();
}

/* == and != only; an int is compared as a double (exact for the ints tfs has in practice). */
static bool cx_eq(Val a, Val b) {
  Cx x, y;
  if (!cx_as(a, &x.re, &x.im) || !cx_as(b, &y.re, &y.im)) return false;
  return x.re == y.re && x.im == y.im;
}

static Val cx_compare(int op, Val a, Val b) {
  Cx x, y;
  if (!cx_as(a, &x.re, &x.im) || !cx_as(b, &y.re, &y.im)) return val_undef();
  if (op == CMP_EQ) return val_bool(x.re == y.re && x.im == y.im);
  if (op == CMP_NE) return val_bool(!(x.re == y.re && x.im == y.im));
  return val_undef();   /* < <= > >=: TypeError */
}

/* Equal numbers hash alike (3+0j as 3); hash() itself is CPython's (set.c's val_pyhash). */
static tfs_u64 cx_hash(Val v) {
  Complex *c = (Complex *)v.u.o;
  if (c->im == 0) return val_hash(val_float(c->re));
  return val_hash(val_float(c->re)) + 1000003ULL * val_hash(val_float(c->im));
}

static int cx_truthy(Val v) {
  Complex *c = (Complex *)v.u.o;
  return c->re != 0 || c->im != 0;
}

/* repr(float) without the ".0" Python adds to integral values ('r' format). */
static void cx_part(StrBuf *b, double x, bool sign) {
  StrBuf t;
  sb_init(&t);
  numfmt_repr_double(&t, x);
  size_t n = t.len;
  if (n >= 2 && t.data[n - 2] == '.' && t.data[n - 1] == '0') n -= 2;
  if (sign && t.data[0] != '-') sb_putc(b, '+');
  sb_putn(b, t.data, n);
  sb_free(&t);
}

static void cx_repr(StrBuf *b, Val v) {
  Complex *c = (Complex *)v.u.o;
  if (c->re == 0 && !signbit(c->re)) {
    cx_part(b, c->im, false);
    sb_putc(b, 'j');
    return;
  }
  sb_putc(b, '(');
  cx_part(b, c->re, false);
  cx_part(b, c->im, true);
  sb_puts(b, "j)");
}

//! complex.conjugate()
//!   The complex conjugate: (a+bj).conjugate() is (a-bj).
static Val cx_conjugate(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "complex.conjugate() takes no arguments (%d given)", n);
  Complex *c = (Complex *)self.u.o;
  return complex_new(c->re, -c->im);
}

//! complex.__abs__()
//!   abs(z): the modulus, hypot(z.real, z.imag).
static Val cx_abs(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "complex.__abs__() takes no arguments (%d given)", n);
  Complex *c = (Complex *)self.u.o;
  double r = hypot(c->re, c->im);
  if (isinf(r) && isfinite(c->re) && isfinite(c->im)) rt_throw(ERR_OVERFLOW, "absolute value too large");
  return val_float(r);
}

static Val cx_getattr(Val self, const char *name) {
  Complex *c = (Complex *)self.u.o;
  if (!strcmp(name, "real")) return val_float(c->re);
  if (!strcmp(name, "imag")) return val_float(c->im);
  if (!strcmp(name, "conjugate")) return builtin_new("complex.conjugate", cx_conjugate, self, NULL);
  if (!strcmp(name, "__abs__")) return builtin_new("complex.__abs__", cx_abs, self, NULL);
  return val_undef();
}

static void cx_free(Obj *o) { free(o); }

const Type complex_type = {
  .name = "complex",
  .free = cx_free,
  .repr = cx_repr,
  .getattr = cx_getattr,
  .binop = cx_binop,
  .unop = cx_unop,
  .compare = cx_compare,
  .truthy = cx_truthy,
  .eq = cx_eq,
  .hash = cx_hash,
};

/* ---- complex(...) ------------------------------------------------------------------------- */

/* complex('1+2j'), '(1-2j)', ' 3j ', '1e3', 'inf+nanj': CPython's grammar. */
static bool cx_parse(const char *s, double *re, double *im) {
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n')) n--;
  char buf[256];
  if (n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *p = buf;
  if (*p == '(') {
    if (n < 2 || buf[n - 1] != ')') return false;
    buf[n - 1] = 0;
    p++;
    while (*p == ' ') p++;
    size_t m = strlen(p);
    while (m && p[m - 1] == ' ') p[--m] = 0;
  }
  char *end;
  *re = 0, *im = 0;
  if ((*p == '+' || *p == '-') && (p[1] == 'j' || p[1] == 'J') && !p[2]) {   /* '+j' */
    *im = *p == '-' ? -1 : 1;
    return true;
  }
  if ((*p == 'j' || *p == 'J') && !p[1]) {
    *im = 1;
    return true;
  }
  double x = strtod(p, &end);
  if (end == p) return false;
  if (!*end) {
    *re = x;
    return true;
  }
  if ((*end == 'j' || *end == 'J') && !end[1]) {
    *im = x;
    return true;
  }
  if (*end != '+' && *end != '-') return false;
  *re = x;
  char *q = end;
  if ((q[1] == 'j' || q[1] == 'J') && !q[2]) {
    *im = *q == '-' ? -1 : 1;
    return true;
  }
  double y = strtod(q, &end);
  if (end == q || (*end != 'j' && *end != 'J') || end[1]) return false;
  *im = y;
  return true;
}

Val complex_construct(int n, const Val *args, const Kw *kw) {
  Val a = n > 0 ? args[0] : val_undef(), b = n > 1 ? args[1] : val_undef();
  if (n > 2) rt_throw(ERR_TYPE, "complex() takes at most 2 arguments (%d given)", n);
  for (int k = 0; kw && k < kw->n; k++) {
    Val *slot = !strcmp(kw->names[k], "real") ? &a : !strcmp(kw->names[k], "imag") ? &b : NULL;
    if (!slot) rt_throw(ERR_TYPE, "'%s' is an invalid keyword argument for complex()", kw->names[k]);
    if (!val_is_undef(*slot))
      rt_throw(ERR_TYPE, "argument for complex() given by name ('%s') and position (%d)", kw->names[k], slot == &a ? 1 : 2);
    *slot = kw->vals[k];
  }
  if (val_is_undef(a) && val_is_undef(b)) return complex_new(0, 0);
  double ar = 0, ai = 0, br = 0, bi = 0;
  if (val_is(a, &str_type)) {
    if (!val_is_undef(b)) rt_throw(ERR_TYPE, "complex() can't take second arg if first is a string");
    if (!cx_parse(str_cstr(a), &ar, &ai)) rt_throw(ERR_VALUE, "complex() arg is a malformed string");
    return complex_new(ar, ai);
  }
  bool a_cplx = val_is(a, &complex_type);
  if (!val_is_undef(a) && !cx_as(a, &ar, &ai)) {   /* numpy scalars and 0-d tensors: their __complex__ */
    if (!rt_obj_hooks.tensor_complex || !rt_obj_hooks.tensor_complex(a, &ar, &ai))
      rt_throw(ERR_TYPE, "complex() first argument must be a string or a number, not '%s'", val_type_name(a));
    a_cplx = true;
  }
  if (val_is(b, &str_type)) rt_throw(ERR_TYPE, "complex() second arg can't be a string");
  if (!val_is_undef(b) && !cx_as(b, &br, &bi))
    rt_throw(ERR_TYPE, "complex() second argument must be a number, not '%s'", val_type_name(b));
  /* complex(a, b) is a + b*1j, each part possibly complex (CPython's steps, signed zeros included) */
  double cr = ar, ci = val_is_undef(b) ? ai : br;
  if (val_is(b, &complex_type)) cr -= bi;
  if (a_cplx && !val_is_undef(b)) ci += ai;
  return complex_new(cr, ci);
}
