/* mathmod.c — Python's `math` module: libm's functions with CPython 3.11's domain/range errors, integer functions, constants. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "modules/mathint.h"
#include "modules/modules.h"
#include "object/bigint.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"
#include "tensor/tensor.h"

void mm_count(const char *what, int n, const Kw *kw, int lo, int hi) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "math.%s() takes no keyword arguments", what);
  if (lo == hi && lo == 1 && n != 1) rt_throw(ERR_TYPE, "math.%s() takes exactly one argument (%d given)", what, n);
  if (n < lo || n > hi) {
    if (lo == hi) rt_throw(ERR_TYPE, "%s expected %d arguments, got %d", what, lo, n);
    if (n < lo) rt_throw(ERR_TYPE, "%s expected at least %d argument%s, got %d", what, lo, lo == 1 ? "" : "s", n);
    rt_throw(ERR_TYPE, "%s expected at most %d arguments, got %d", what, hi, n);
  }
}

/* A Python number math takes: an int or float (also of a subclass, class C(float)), a numpy scalar. */
static bool mm_number(Val v) { return v.tag != VT_OBJ || val_is_ndarray(v) || inst_base(v).tag != VT_OBJ; }

static double mm_real(Val v) {
  double d;
  if (!mm_number(v) || !val_as_float(v, &d)) rt_throw(ERR_TYPE, "must be real number, not %s", val_type_name(v));
  return d;
}

static int64_t mm_int(Val v) {
  int64_t i;
  if (v.tag == VT_FLOAT || !val_as_int(v, &i))
    rt_throw(ERR_TYPE, "'%s' object cannot be interpreted as an integer", val_type_name(v));
  return i;
}

/* CPython's math_1: a NaN from a non-NaN is a domain error; an infinity from
 * a finite argument is a range error (OverflowError) when the function can
 * overflow there, else a domain error. */
static Val mm_result(double x, double r, bool can_overflow) {
  if (isnan(r) && !isnan(x)) rt_throw(ERR_VALUE, "math domain error");
  if (isinf(r) && isfinite(x)) {
    if (can_overflow) rt_throw(ERR_OVERFLOW, "math range error");
    rt_throw(ERR_VALUE, "math domain error");
  }
  return val_float(r);
}

static double mm_degrees(double x) { return x * (180.0 / M_PI); }
static double mm_radians(double x) { return x * (M_PI / 180.0); }

typedef struct MmUnary {
  const char *name;
  double (*f)(double);
  bool overflow;
} MmUnary;
static const MmUnary mm_unary[] = {
  {"sqrt", sqrt, false},   {"exp", exp, true},       {"exp2", exp2, true},     {"expm1", expm1, true},
  {"log2", log2, false},   {"log10", log10, false},  {"log1p", log1p, false},  {"sin", sin, false},
  {"cos", cos, false},     {"tan", tan, false},      {"asin", asin, false},    {"acos", acos, false},
  {"atan", atan, false},   {"sinh", sinh, true},     {"cosh", cosh, true},     {"tanh", tanh, false},
  {"asinh", asinh, false}, {"acosh", acosh, false},  {"atanh", atanh, false},  {"erf", erf, false},
  {"erfc", erfc, false},   {"fabs", fabs, false},    {"cbrt", cbrt, false},    {"degrees", mm_degrees, true},
  {"radians", mm_radians, false},
};

static Val mm_unary_call(Val self, int n, const Val *args, const Kw *kw) {
  const MmUnary *u = &mm_unary[self.u.i];
  mm_count(u->name, n, kw, 1, 1);
  double x = mm_real(args[0]);
  if (!strcmp(u->name, "sqrt") && x < 0) rt_throw(ERR_VALUE, "math domain error");
  return mm_result(x, u->f(x), u->overflow);
}

/* gamma and lgamma: a pole (non-positive integer) is a domain error, a huge result a range error. */
static Val mm_gamma_common(const char *what, int n, const Val *args, const Kw *kw, bool lg) {
  mm_count(what, n, kw, 1, 1);
  double x = mm_real(args[0]);
  if (isfinite(x) && x <= 0 && x == floor(x)) rt_throw(ERR_VALUE, "math domain error");
  if (isinf(x) && x < 0 && !lg) rt_throw(ERR_VALUE, "math domain error");
  return mm_result(x, lg ? lgamma(x) : tgamma(x), true);
}
static Val mm_gamma(Val self, int n, const Val *args, const Kw *kw) { return mm_gamma_common("gamma", n, args, kw, false); }
static Val mm_lgamma(Val self, int n, const Val *args, const Kw *kw) { return mm_gamma_common("lgamma", n, args, kw, true); }

/* math.log(x[, base]) */
static double mm_log1(Val v) {
  double x = mm_real(v);
  if (isnan(x)) return x;
  if (x <= 0) rt_throw(ERR_VALUE, "math domain error");
  return log(x);
}
static Val mm_log(Val self, int n, const Val *args, const Kw *kw) {
  mm_count("log", n, kw, 1, 2);
  double num = mm_log1(args[0]);
  if (n == 1) return val_float(num);
  double den = mm_log1(args[1]);
  if (den == 0) rt_throw(ERR_ZERODIV, "float division by zero");
  return val_float(num / den);
}

static Val mm_rounding(const char *what, int n, const Val *args, const Kw *kw, double (*f)(double)) {
  mm_count(what, n, kw, 1, 1);
  if (args[0].tag == VT_INT || bigint_is_wide(args[0])) return val_incref(args[0]);
  if (args[0].tag == VT_BOOL) return val_int(args[0].u.i);
  return bigint_from_double(f(mm_real(args[0])));   /* the exact int of any size; NaN and infinities raise */
}
static Val mm_floor(Val self, int n, const Val *args, const Kw *kw) { return mm_rounding("floor", n, args, kw, floor); }
static Val mm_ceil(Val self, int n, const Val *args, const Kw *kw) { return mm_rounding("ceil", n, args, kw, ceil); }
static Val mm_trunc(Val self, int n, const Val *args, const Kw *kw) { return mm_rounding("trunc", n, args, kw, trunc); }

static Val mm_pow(Val self, int n, const Val *args, const Kw *kw) {
  mm_count("pow", n, kw, 2, 2);
  double x = mm_real(args[0]), y = mm_real(args[1]);
  if (isfinite(x) && isfinite(y)) {
    if (x == 0 && y < 0) rt_throw(ERR_VALUE, "math domain error");
    if (x < 0 && y != floor(y)) rt_throw(ERR_VALUE, "math domain error");
    double r = pow(x, y);
    if (isinf(r)) rt_throw(ERR_OVERFLOW, "math range error");
    return val_float(r);
  }
  return val_float(pow(x, y));
}

static Val mm_binary(const char *what, int n, const Val *args, const Kw *kw, double (*f)(double, double), bool domain_on_inf_x) {
  mm_count(what, n, kw, 2, 2);
  double x = mm_real(args[0]), y = mm_real(args[1]);
  if (domain_on_inf_x && isinf(x) && !isnan(y)) rt_throw(ERR_VALUE, "math domain error");
  double r = f(x, y);
  if (isnan(r) && !isnan(x) && !isnan(y)) rt_throw(ERR_VALUE, "math domain error");
  return val_float(r);
}
static Val mm_atan2(Val self, int n, const Val *args, const Kw *kw) { return mm_binary("atan2", n, args, kw, atan2, false); }
static Val mm_fmod(Val self, int n, const Val *args, const Kw *kw) { return mm_binary("fmod", n, args, kw, fmod, true); }
static Val mm_copysign(Val self, int n, const Val *args, const Kw *kw) { return mm_binary("copysign", n, args, kw, copysign, false); }
static Val mm_remainder(Val self, int n, const Val *args, const Kw *kw) { return mm_binary("remainder", n, args, kw, remainder, true); }
static Val mm_nextafter(Val self, int n, const Val *args, const Kw *kw) { return mm_binary("nextafter", n, args, kw, nextafter, false); }

static Val mm_ldexp(Val self, int n, const Val *args, const Kw *kw) {
  mm_count("ldexp", n, kw, 2, 2);
  double x = mm_real(args[0]);
  int64_t e = mm_int(args[1]);
  if (e > 100000) e = 100000;
  if (e < -100000) e = -100000;
  double r = ldexp(x, (int)e);
  if (isinf(r) && isfinite(x)) rt_throw(ERR_OVERFLOW, "math range error");
  return val_float(r);
}

static Val mm_hypot(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "hypot() takes no keyword arguments");
  double r = 0;
  for (int i = 0; i < n; i++) r = hypot(r, mm_real(args[i]));
  return val_float(r);
}

static Val mm_pred(const char *what, int n, const Val *args, const Kw *kw, int which) {
  mm_count(what, n, kw, 1, 1);
  double x = mm_real(args[0]);
  return val_bool(which == 0 ? isnan(x) : which == 1 ? isinf(x) : isfinite(x));
}
static Val mm_isnan(Val self, int n, const Val *args, const Kw *kw) { return mm_pred("isnan", n, args, kw, 0); }
static Val mm_isinf(Val self, int n, const Val *args, const Kw *kw) { return mm_pred("isinf", n, args, kw, 1); }
static Val mm_isfinite(Val self, int n, const Val *args, const Kw *kw) { return mm_pred("isfinite", n, args, kw, 2); }

static Val mm_isclose(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "isclose", .sig = "a, b, rel_tol=1e-09, abs_tol=0.0"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  double x = mm_real(a[0]), y = mm_real(a[1]), rt = mm_real(a[2]), at = mm_real(a[3]);
  if (rt < 0 || at < 0) rt_throw(ERR_VALUE, "tolerances must be non-negative");
  if (x == y) return val_bool(true);
  if (isinf(x) || isinf(y)) return val_bool(false);
  double d = fabs(y - x);
  return val_bool(d <= fabs(rt * y) || d <= fabs(rt * x) || d <= at);
}

static Val mm_modf(Val self, int n, const Val *args, const Kw *kw) {
  mm_count("modf", n, kw, 1, 1);
  double x = mm_real(args[0]), ip;
  double fp = isinf(x) ? copysign(0.0, x) : modf(x, &ip);
  if (isinf(x)) ip = x;
  return tuple_pack(2, val_float(fp), val_float(ip));
}

static Val mm_frexp(Val self, int n, const Val *args, const Kw *kw) {
  mm_count("frexp", n, kw, 1, 1);
  double x = mm_real(args[0]);
  int e = 0;
  double m = isfinite(x) ? frexp(x, &e) : x;
  return tuple_pack(2, val_float(m), val_int(e));
}

/* fsum: Shewchuk's exact partial sums, rounded once (as CPython's msum). */
static Val mm_fsum(Val self, int n, const Val *args, const Kw *kw) {
  mm_count("fsum", n, kw, 1, 1);
  Val l = list_from_iterable(args[0]);
  tfs_i64 len;
  const Val *it;
  seq_items(l, &len, &it);
  double p[64];
  int np = 0;
  double special = 0, inf_sum = 0;
  bool have_special = false;
  for (tfs_i64 i = 0; i < len; i++) {
    double x;
    if (!mm_number(it[i]) || !val_as_float(it[i], &x)) {   /* numpy scalars are numbers */
      const char *t = val_type_name(it[i]);
      val_decref(l);
      rt_throw(ERR_TYPE, "must be real number, not %s", t);
    }
    if (!isfinite(x)) {
      if (isinf(x)) inf_sum += x;
      special += x;
      have_special = true;
      continue;
    }
    int k = 0;
    for (int j = 0; j < np; j++) {
      double y = p[j];
      if (fabs(x) < fabs(y)) {
        double t = x;
        x = y;
        y = t;
      }
      double hi = x + y, lo = y - (hi - x);
      if (lo != 0.0) p[k++] = lo;
      x = hi;
    }
    if (k < 64) p[k++] = x;
    np = k;
  }
  val_decref(l);
  if (have_special) {
    if (isnan(inf_sum)) rt_throw(ERR_VALUE, "-inf + inf in fsum");
    return val_float(special);
  }
  double hi = 0;
  if (np > 0) {
    hi = p[--np];
    double lo = 0;
    while (np > 0) {
      double x = hi, y = p[--np];
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) break;
    }
    if (np > 0 && ((lo < 0.0 && p[np - 1] < 0.0) || (lo > 0.0 && p[np - 1] > 0.0))) {
      double y = lo * 2.0, x = hi + y, yr = x - hi;
      if (y == yr) hi = x;
    }
  }
  return val_float(hi);
}

/* math.prod(iterable, *, start=1): the product by the host's * (ints stay ints). */
static Val mm_prod(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "prod", .sig = "iterable, start=1"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Val l = list_from_iterable(a[0]);
  tfs_i64 len;
  const Val *it;
  seq_items(l, &len, &it);
  Val acc = val_incref(a[1]);
  int mark = rt_hold_val(l);
  rt_hold_ref(&acc);
  for (tfs_i64 i = 0; i < len; i++) {
    Val r = rt_binop(BIN_MUL, acc, it[i]);
    val_decref(acc);
    acc = r;
  }
  rt_unhold(mark);
  val_decref(l);
  return acc;
}

#define MB(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "math." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin mm_fns[] = {
  MB("gamma", mm_gamma),         MB("lgamma", mm_lgamma),     MB("log", mm_log),           MB("floor", mm_floor),
  MB("ceil", mm_ceil),           MB("trunc", mm_trunc),       MB("pow", mm_pow),           MB("atan2", mm_atan2),
  MB("fmod", mm_fmod),           MB("copysign", mm_copysign), MB("remainder", mm_remainder), MB("nextafter", mm_nextafter),
  MB("ldexp", mm_ldexp),         MB("hypot", mm_hypot),       MB("isnan", mm_isnan),       MB("isinf", mm_isinf),
  MB("isfinite", mm_isfinite),   MB("isclose", mm_isclose),   MB("modf", mm_modf),         MB("frexp", mm_frexp),
  MB("factorial", mi_factorial), MB("gcd", mi_gcd),           MB("lcm", mi_lcm),           MB("comb", mi_comb),
  MB("perm", mi_perm),           MB("isqrt", mi_isqrt),       MB("fsum", mm_fsum),         MB("prod", mm_prod),
};
#define NUNARY (sizeof mm_unary / sizeof mm_unary[0])
static Builtin mm_unary_fns[NUNARY];

static Val mm_attr(const char *name) {
  if (!strcmp(name, "pi")) return val_float(M_PI);
  if (!strcmp(name, "e")) return val_float(M_E);
  if (!strcmp(name, "tau")) return val_float(2 * M_PI);
  if (!strcmp(name, "inf")) return val_float(INFINITY);
  if (!strcmp(name, "nan")) return val_float(NAN);
  for (size_t i = 0; i < sizeof mm_fns / sizeof mm_fns[0]; i++)
    if (!strcmp(mm_fns[i].name + 5, name)) return val_obj(&mm_fns[i]);
  for (size_t i = 0; i < NUNARY; i++)
    if (!strcmp(mm_unary[i].name, name)) {
      Builtin *b = &mm_unary_fns[i];
      if (!b->fn) {
        static char names[NUNARY][24];
        snprintf(names[i], sizeof names[i], "math.%s", mm_unary[i].name);
        *b = (Builtin){{TFS_IMMORTAL_RC, &builtin_type}, names[i], mm_unary_call, val_int((int64_t)i), NULL};
      }
      return val_obj(b);
    }
  return val_undef();
}

Val mathmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("math", mm_attr);
  return val_incref(mod);
}
