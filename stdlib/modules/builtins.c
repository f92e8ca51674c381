/* builtins.c — the builtin functions of docs/language.md (print, len, min, sorted, ...), argv, builtins_lookup. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modules/docs.h"
#include "modules/mathint.h"
#include "modules/modules.h"
#include "modules/tfdata.h"
#include "object/bigint.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"
#include "tensor/tensor.h"

/* ---- argument helpers ------------------------------------------------------------------- */

static void bi_no_kw(const char *what, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", what);
}

static void bi_exactly(const char *what, int n, const Kw *kw, int want) {
  bi_no_kw(what, kw);
  if (n == want) return;
  if (want == 1) rt_throw(ERR_TYPE, "%s() takes exactly one argument (%d given)", what, n);
  rt_throw(ERR_TYPE, "%s expected %d arguments, got %d", what, want, n);
}

static void bi_range(const char *what, int n, const Kw *kw, int lo, int hi) {
  bi_no_kw(what, kw);
  if (n < lo) rt_throw(ERR_TYPE, "%s expected at least %d argument%s, got %d", what, lo, lo == 1 ? "" : "s", n);
  if (n > hi) rt_throw(ERR_TYPE, "%s expected at most %d argument%s, got %d", what, hi, hi == 1 ? "" : "s", n);
}

/* Keyword arguments picked by name: each name in `names` fills out[i] (VT_UNDEF if absent). */
static void bi_kwargs(const char *what, const Kw *kw, int nn, const char *const *names, Val *out) {
  for (int i = 0; i < nn; i++) out[i] = val_undef();
  for (int k = 0; kw && k < kw->n; k++) {
    int i = 0;
    while (i < nn && strcmp(names[i], kw->names[k])) i++;
    if (i == nn) rt_throw(ERR_TYPE, "'%s' is an invalid keyword argument for %s()", kw->names[k], what);
    out[i] = kw->vals[k];
  }
}

/* ---- print / repr / len ------------------------------------------------------------------- */

static Val bi_print(Val self, int n, const Val *args, const Kw *kw) {
  static const char *const names[] = {"sep", "end", "file", "flush"};
  Val kv[4];
  bi_kwargs("print", kw, 4, names, kv);
  for (int i = 0; i < 2; i++)
    if (!val_is_undef(kv[i]) && kv[i].tag != VT_NONE && !val_is(kv[i], &str_type))
      rt_throw(ERR_TYPE, "%s must be None or a string, not %s", names[i], val_type_name(kv[i]));
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (int i = 0; i < n; i++) {
    if (i) {
      if (val_is(kv[0], &str_type)) sb_putn(&b, str_cstr(kv[0]), (size_t)str_len(kv[0]));
      else sb_putc(&b, ' ');
    }
    val_str(&b, args[i]);
  }
  if (val_is(kv[1], &str_type)) sb_putn(&b, str_cstr(kv[1]), (size_t)str_len(kv[1]));
  else sb_putc(&b, '\n');
  rt_unhold(mark);
  if (!val_is_undef(kv[2]) && kv[2].tag != VT_NONE) {   /* file=f: f.write(text) */
    Val text = str_new(b.data ? b.data : "", (tfs_i64)b.len);
    sb_free(&b);
    int m2 = rt_hold_val(text);
    Val w = rt_getattr(kv[2], "write");
    rt_hold_val(w);
    val_decref(rt_call(w, 1, &text, NULL));
    rt_unhold(m2);
    val_decref(w);
    val_decref(text);
    if (!val_is_undef(kv[3]) && rt_truthy(kv[3])) rt_flush();
    return val_none();
  }
  rt_write_stdout(b.data, b.len);
  sb_free(&b);
  if (!val_is_undef(kv[3]) && rt_truthy(kv[3])) rt_flush();
  return val_none();
}

/* open(): io.open of stdlib/io.tfs, which the compiler links into a program that names open. */
static Val bi_open(Val self, int n, const Val *args, const Kw *kw) {
  Val io = module_import_library("io");
  if (val_is_undef(io)) rt_throw(ERR_IMPORT, "open() needs the io library, which this program was compiled without");
  Val f = rt_module_attr(io, "open");
  val_decref(io);
  int mark = rt_hold_val(f);
  Val r = rt_call(f, n, args, kw);
  rt_unhold(mark);
  val_decref(f);
  return r;
}

static Val bi_repr(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("repr", n, kw, 1);
  return repr_of(args[0]);
}

static Val bi_ascii(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("ascii", n, kw, 1);
  return ascii_of(args[0]);
}

static Val bi_len(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("len", n, kw, 1);
  Val x = args[0];
  if (val_is(x, &str_type)) return val_int(str_nchars(x));
  if (x.tag == VT_OBJ && x.u.o->type->len) {
    tfs_i64 len = x.u.o->type->len(x);
    if (len >= 0) return val_int(len);
  }
  rt_throw(ERR_TYPE, "object of type '%s' has no len()", val_type_name(x));
}

/* ---- numbers -------------------------------------------------------------------------------- */

/* Call x.<name>() if x's type provides it (tensors' __abs__, __round__). */
static Val bi_dunder(Val x, const char *name, int n, const Val *args) {
  if (x.tag != VT_OBJ || !x.u.o->type->getattr) return val_undef();
  Val m = x.u.o->type->getattr(x, name);
  if (val_is_undef(m)) return m;
  Val r = rt_call(m, n, args, NULL);
  val_decref(m);
  return r;
}

/* The int or float an instance of `class C(float)` extends, else x itself. */
static Val bi_num_base(Val x) {
  Val b = inst_base(x);
  return b.tag == VT_INT || b.tag == VT_FLOAT ? b : x;
}

static Val bi_abs(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("abs", n, kw, 1);
  Val x = args[0];
  if (x.tag == VT_INT || x.tag == VT_BOOL) {
    if (x.u.i == INT64_MIN) return bigint_abs(x);
    return val_int(x.u.i < 0 ? -x.u.i : x.u.i);
  }
  if (val_is(x, &u64int_type) || val_is(x, &bigint_type)) return bigint_abs(x);
  if (x.tag == VT_FLOAT) return val_float(fabs(x.u.f));
  Val r = bi_dunder(x, "__abs__", 0, NULL);
  if (!val_is_undef(r)) return r;
  Val b = bi_num_base(x);
  if (b.tag != x.tag) return bi_abs(self, 1, &b, NULL);
  rt_throw(ERR_TYPE, "bad operand type for abs(): '%s'", val_type_name(x));
}


/* round(x, nd) for floats: the correctly rounded decimal (printf rounds half-even on exact ties). */
static double bi_round_float(double x, int64_t nd) {
  if (!isfinite(x) || x == 0) return x;
  if (nd > 323) return x;
  if (nd < -308) return copysign(0.0, x);
  if (nd >= 0) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%.*f", (int)nd, x);
    double r = strtod(b.data, NULL);
    sb_free(&b);
    return r;
  }
  double p = pow(10.0, (double)-nd), y = nearbyint(x / p) * p;
  if (isinf(y)) rt_throw(ERR_OVERFLOW, "rounded value too large to represent");
  return copysign(y, x);
}

static Val bi_round(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "round", .sig = "number, ndigits=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Val x = a[0], nd = a[1];
  if (val_is(x, &inst_type)) {   /* a float subclass without its own __round__ rounds its float */
    Val own = class_find(((Inst *)x.u.o)->klass, "__round__");
    if (val_is_undef(own)) x = bi_num_base(x);
    val_decref(own);
  }
  if (x.tag == VT_INT || x.tag == VT_BOOL || bigint_is_wide(x)) {
    if (nd.tag == VT_NONE) return x.tag == VT_BOOL ? val_int(x.u.i) : val_incref(x);
    return mi_round_int(x, nd);
  }
  if (x.tag == VT_FLOAT) {
    if (nd.tag == VT_NONE) return bigint_from_double(nearbyint(x.u.f));   /* exact, of any size */
    return val_float(bi_round_float(x.u.f, val_to_index(nd, NULL)));
  }
  bool sc_int;
  int64_t sc_i;
  double sc_f;
  if (x.tag == VT_OBJ && val_is_npscalar(x) &&
      tensor_scalar_of(x, &sc_int, &sc_i, &sc_f)) {
    Val px = sc_int ? val_int(sc_i) : val_float(sc_f);   /* numpy scalars round as the Python number they hold */
    Val a2[2] = {px, nd};
    return bi_round(self, nd.tag == VT_NONE ? 1 : 2, a2, NULL);
  }
  Val r = bi_dunder(x, "__round__", nd.tag == VT_NONE ? 0 : 1, &nd);
  if (!val_is_undef(r)) return r;
  rt_throw(ERR_TYPE, "type %s doesn't define __round__ method", val_type_name(x));
}

static Val bi_divmod(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("divmod", n, kw, 2);
  /* host values that are not numbers have no divmod (tensors go through // and %) */
  for (int i = 0; i < 2; i++)
    if (args[i].tag == VT_NONE || (args[i].tag == VT_OBJ && (!args[i].u.o->type->binop || args[i].u.o->type == &complex_type)))
      rt_throw(ERR_TYPE, "unsupported operand type(s) for divmod(): '%s' and '%s'", val_type_name(args[0]),
               val_type_name(args[1]));
  Val q = rt_binop(BIN_FLOORDIV, args[0], args[1]);
  Val r = rt_binop(BIN_MOD, args[0], args[1]);
  Val t = tuple_pack(2, q, r);
  val_decref(q);
  val_decref(r);
  return t;
}

static Val bi_pow(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "pow", .sig = "base, exp, mod=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  if (a[2].tag == VT_NONE) return rt_binop(BIN_POW, a[0], a[1]);
  int64_t i;
  for (int k = 0; k < 3; k++)
    if (!bigint_is_wide(a[k]) && (a[k].tag == VT_FLOAT || !val_as_int(a[k], &i)))
      rt_throw(ERR_TYPE, "pow() 3rd argument not allowed unless all arguments are integers");
  return mi_powmod(a[0], a[1], a[2]);
}

/* ---- iteration -------------------------------------------------------------------------------- */

/* min()/max(): one iterable argument or several values; key= and default=. */
static Val bi_minmax(const char *what, int op, int n, const Val *args, const Kw *kw) {
  static const char *const names[] = {"key", "default"};
  Val kv[2];
  bi_kwargs(what, kw, 2, names, kv);
  if (n == 0) rt_throw(ERR_TYPE, "%s expected at least 1 argument, got 0", what);
  if (n > 1 && !val_is_undef(kv[1]))
    rt_throw(ERR_TYPE, "Cannot specify a default for %s() with multiple positional arguments", what);
  Val it;
  if (n == 1) {
    it = rt_iter(args[0]);
  } else {
    Val tup = rt_tuple(n, args);
    it = rt_iter(tup);   /* the iterator keeps the tuple alive */
    val_decref(tup);
  }
  bool has_key = !val_is_undef(kv[0]) && kv[0].tag != VT_NONE;
  Val best = val_undef(), best_key = val_undef(), item = val_undef(), k = val_undef();
  int mark = rt_hold_val(it);
  rt_hold_ref(&best);
  rt_hold_ref(&best_key);
  rt_hold_ref(&item);
  rt_hold_ref(&k);
  while (rt_next(it, &item)) {
    k = has_key ? rt_call(kv[0], 1, &item, NULL) : val_incref(item);
    if (val_is_undef(best)) {
      best = item;
      best_key = k;
      item = k = val_undef();
      continue;
    }
    Val c = rt_compare(op, k, best_key);
    bool better = rt_truthy(c);
    val_decref(c);
    if (better) {
      val_decref(best);
      val_decref(best_key);
      best = item;
      best_key = k;
    } else {
      val_decref(item);
      val_decref(k);
    }
    item = k = val_undef();
  }
  rt_unhold(mark);
  val_decref(it);
  val_decref(best_key);
  if (val_is_undef(best)) {
    if (!val_is_undef(kv[1])) return val_incref(kv[1]);
    rt_throw(ERR_VALUE, "%s() arg is an empty sequence", what);
  }
  return best;
}

static Val bi_min(Val self, int n, const Val *args, const Kw *kw) { return bi_minmax("min", CMP_LT, n, args, kw); }
static Val bi_max(Val self, int n, const Val *args, const Kw *kw) { return bi_minmax("max", CMP_GT, n, args, kw); }

static Val bi_sum(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "sum", .sig = "iterable, start=0"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (val_is(a[1], &str_type)) rt_throw(ERR_TYPE, "sum() can't sum strings [use ''.join(seq) instead]");
  Val acc = val_incref(a[1]), it = rt_iter(a[0]), item = val_undef();
  int mark = rt_hold_val(it);
  rt_hold_ref(&acc);
  rt_hold_ref(&item);
  while (rt_next(it, &item)) {
    Val next = rt_binop(BIN_ADD, acc, item);
    val_decref(acc);
    val_decref(item);
    acc = next;
    item = val_undef();
  }
  rt_unhold(mark);
  val_decref(it);
  return acc;
}

static bool bi_any_all(Val x, bool want) {
  Val it = rt_iter(x), item;
  int mark = rt_hold_val(it);
  bool hit = false;
  while (!hit && rt_next(it, &item)) {
    hit = (rt_truthy(item) != 0) == want;
    val_decref(item);
  }
  rt_unhold(mark);
  val_decref(it);
  return hit;
}

static Val bi_any(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("any", n, kw, 1);
  return val_bool(bi_any_all(args[0], true));
}

static Val bi_all(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("all", n, kw, 1);
  return val_bool(!bi_any_all(args[0], false));
}

static bool bi_enumerate_step(Iter *it, Val *out) {
  Val item;
  if (!rt_next(it->src, &item)) return false;
  int64_t i = it->i;
  if (__builtin_add_overflow(i, 1, &it->i)) rt_throw(ERR_OVERFLOW, "integer overflow");
  *out = tuple_pack(2, val_int(i), item);
  val_decref(item);
  return true;
}

static Val bi_enumerate(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "enumerate", .sig = "iterable, start=0"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  int64_t start = val_to_index(a[1], NULL);
  Val staged = ag_staged_iter(false, 1, a, val_int(start));   /* enumerate(t) while tracing: a graph loop source */
  if (!val_is_undef(staged)) return staged;
  Val src = rt_iter(a[0]);
  Val it = iter_new("enumerate", bi_enumerate_step, src, val_undef(), start, 0);
  val_decref(src);
  return it;
}

/* zip / map: src is a tuple of iterators; map's function is aux. */
static bool bi_zip_step(Iter *it, Val *out) {
  Tuple *its = (Tuple *)it->src.u.o;
  if (its->len == 0) return false;
  Val items[its->len];
  for (tfs_i64 i = 0; i < its->len; i++) {
    if (!rt_next(its->items[i], &items[i])) {
      for (tfs_i64 k = 0; k < i; k++) val_decref(items[k]);
      return false;
    }
  }
  if (val_is_undef(it->aux)) {
    Val t = tuple_new(its->len);
    for (tfs_i64 i = 0; i < its->len; i++) ((Tuple *)t.u.o)->items[i] = items[i];
    *out = t;
    return true;
  }
  Val r = rt_call(it->aux, (int)its->len, items, NULL);
  for (tfs_i64 i = 0; i < its->len; i++) val_decref(items[i]);
  *out = r;
  return true;
}

static Val bi_iters(int n, const Val *args) {
  Val t = tuple_new(n);
  int mark = rt_hold_val(t);
  for (int i = 0; i < n; i++) ((Tuple *)t.u.o)->items[i] = rt_iter(args[i]);
  rt_unhold(mark);
  return t;
}

static Val bi_zip(Val self, int n, const Val *args, const Kw *kw) {
  static const char *const names[] = {"strict"};
  Val kv[1];
  bi_kwargs("zip", kw, 1, names, kv);
  Val staged = ag_staged_iter(true, n, args, val_int(0));   /* zip(t1, t2) while tracing: a graph loop source */
  if (!val_is_undef(staged)) return staged;
  Val its = bi_iters(n, args);
  Val it = iter_new("zip", bi_zip_step, its, val_undef(), 0, 0);
  val_decref(its);
  return it;
}

static Val bi_map(Val self, int n, const Val *args, const Kw *kw) {
  bi_no_kw("map", kw);
  if (n < 2) rt_throw(ERR_TYPE, "map() must have at least two arguments.");
  Val its = bi_iters(n - 1, args + 1);
  Val it = iter_new("map", bi_zip_step, its, args[0], 0, 0);
  val_decref(its);
  return it;
}

static bool bi_filter_step(Iter *it, Val *out) {
  Val item;
  while (rt_next(it->src, &item)) {
    bool keep;
    if (it->aux.tag == VT_NONE) {
      keep = rt_truthy(item);
    } else {
      Val r = rt_call(it->aux, 1, &item, NULL);
      keep = rt_truthy(r);
      val_decref(r);
    }
    if (keep) {
      *out = item;
      return true;
    }
    val_decref(item);
  }
  return false;
}

static Val bi_filter(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("filter", n, kw, 2);
  Val src = rt_iter(args[1]);
  Val it = iter_new("filter", bi_filter_step, src, args[0], 0, 0);
  val_decref(src);
  return it;
}

/* reversed(): walks a list (live) or a snapshot of any other sequence from the end. */
static bool bi_reversed_step(Iter *it, Val *out) {
  tfs_i64 n;
  const Val *items;
  seq_items(it->src, &n, &items);
  if (it->i >= n) it->i = n;   /* the list shrank */
  if (it->i <= 0) return false;
  *out = val_incref(items[--it->i]);
  return true;
}

static Val bi_reversed(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("reversed", n, kw, 1);
  Val x = args[0];
  if (!(x.tag == VT_OBJ && x.u.o->type->len && x.u.o->type->getitem) && !val_is(x, &list_type))
    rt_throw(ERR_TYPE, "'%s' object is not reversible", val_type_name(x));
  Val src = val_is(x, &list_type) || val_is(x, &tuple_type) ? val_incref(x) : list_from_iterable(x);
  tfs_i64 len;
  const Val *items;
  seq_items(src, &len, &items);
  Val it = iter_new("reversed", bi_reversed_step, src, val_undef(), len, 0);
  val_decref(src);
  return it;
}

static Val bi_iter(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("iter", n, kw, 1);
  return rt_iter(args[0]);
}

static Val bi_next(Val self, int n, const Val *args, const Kw *kw) {
  bi_range("next", n, kw, 1, 2);
  if (val_is(args[0], &gen_type)) return gen_next_builtin(args[0], n == 2 ? args[1] : val_undef());
  if (n == 2 && tfdata_is_giter(args[0])) return tfdata_giter_next_default(args[0], args[1]);
  Val out;
  if (rt_next(args[0], &out)) return out;
  if (n == 2) return val_incref(args[1]);
  rt_throw(ERR_STOPITER, "%s", "");
}

static Val bi_sorted(Val self, int n, const Val *args, const Kw *kw) {
  static const char *const names[] = {"key", "reverse"};
  Val kv[2];
  for (int k = 0; kw && k < kw->n; k++)
    if (strcmp(kw->names[k], "key") && strcmp(kw->names[k], "reverse"))
      rt_throw(ERR_TYPE, "'%s' is an invalid keyword argument for sort()", kw->names[k]);
  bi_kwargs("sorted", kw, 2, names, kv);
  if (n != 1) rt_throw(ERR_TYPE, "sorted expected 1 argument, got %d", n);
  Val l = list_from_iterable(args[0]);
  int mark = rt_hold_val(l);
  list_sort(l, val_is_undef(kv[0]) ? val_none() : kv[0], !val_is_undef(kv[1]) && rt_truthy(kv[1]));
  rt_unhold(mark);
  return l;
}

/* ---- types and objects -------------------------------------------------------------------------- */

static Val bi_isinstance(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("isinstance", n, kw, 2);
  tfs_i64 nc;
  const Val *cls;
  if (val_is(args[1], &tuple_type)) {
    seq_items(args[1], &nc, &cls);
    for (tfs_i64 i = 0; i < nc; i++)
      if (types_isinstance(args[0], cls[i])) return val_bool(true);
    return val_bool(false);
  }
  return val_bool(types_isinstance(args[0], args[1]));
}

static Val bi_issubclass(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("issubclass", n, kw, 2);
  if (val_is(args[1], &tuple_type)) {
    tfs_i64 nc;
    const Val *cls;
    seq_items(args[1], &nc, &cls);
    for (tfs_i64 i = 0; i < nc; i++)
      if (types_issubclass(args[0], cls[i])) return val_bool(true);
    return val_bool(false);
  }
  return val_bool(types_issubclass(args[0], args[1]));
}

static Val bi_callable(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("callable", n, kw, 1);
  return val_bool(args[0].tag == VT_OBJ && args[0].u.o->type->call);
}

static const char *bi_attr_name(const char *what, Val name) {
  if (!val_is(name, &str_type))
    rt_throw(ERR_TYPE, "%s(): attribute name must be string, not '%s'", what, val_type_name(name));
  return str_cstr(name);
}

/* o.name (owned), or VT_UNDEF when o has none -- an AttributeError raised on the way
 * (a class's __getattr__, a property) counts as none, as hasattr/getattr(o, n, d) do in Python. */
static Val bi_attr_or_undef(Val o, const char *name) {
  bool num = o.tag == VT_INT || o.tag == VT_BOOL || o.tag == VT_FLOAT;   /* 7 .bit_length: rt_getattr's number methods */
  if (!num && (o.tag != VT_OBJ || !o.u.o->type->getattr)) return val_undef();
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val r = num ? rt_getattr(o, name) : o.u.o->type->getattr(o, name);
    rt_try_pop(&t);
    return r;
  }
  Val e = val_is(t.exc, &exc_type) ? t.exc : val_undef();
  bool attr = val_is_undef(e) ? t.kind == ERR_ATTRIBUTE : exc_class_sub(exc_class_of(e), exc_lookup("AttributeError", false));
  if (!attr) rt_rethrow(&t);
  rt_try_clear(&t);
  return val_undef();
}

static Val bi_getattr(Val self, int n, const Val *args, const Kw *kw) {
  bi_range("getattr", n, kw, 2, 3);
  const char *name = bi_attr_name("getattr", args[1]);
  if (n == 3) {
    Val r = bi_attr_or_undef(args[0], name);
    return val_is_undef(r) ? val_incref(args[2]) : r;
  }
  return rt_getattr(args[0], name);
}

static Val bi_hasattr(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("hasattr", n, kw, 2);
  const char *name = bi_attr_name("hasattr", args[1]);
  Val r = bi_attr_or_undef(args[0], name);
  bool has = !val_is_undef(r);
  val_decref(r);
  return val_bool(has);
}

/* input(prompt): the prompt on stdout (flushed), then one line of standard input without its newline.  Read a byte at
 * a time so that nothing past the line is taken from sys.stdin's own reads. */
static Val bi_input(Val self, int n, const Val *args, const Kw *kw) {
  bi_no_kw("input", kw);
  if (n > 1) rt_throw(ERR_TYPE, "input expected at most 1 argument, got %d", n);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  if (n == 1) {
    val_str(&b, args[0]);
    rt_write_stdout(b.data ? b.data : "", b.len);
    b.len = 0;
  }
  rt_flush();
  bool got = false;
  for (;;) {
    char c;
    ssize_t r = read(0, &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got = true;
    if (c == '\n') break;
    sb_putc(&b, c);
  }
  if (!got) {
    rt_unhold(mark);
    sb_free(&b);
    exc_raise_class(exc_lookup("EOFError", false), ERR_RUNTIME, "EOF when reading a line");
  }
  Val line = str_new(b.data ? b.data : "", (tfs_i64)b.len);
  rt_unhold(mark);
  sb_free(&b);
  return line;
}

/* vars(obj): obj.__dict__; a compiled program has no locals() dict to give for vars() */
static Val bi_vars(Val self, int n, const Val *args, const Kw *kw) {
  if (n == 0 && !kw) rt_throw(ERR_NOTIMPL, "vars() without an argument (the local namespace) is not provided by tfs");
  bi_exactly("vars", n, kw, 1);
  Val r = bi_attr_or_undef(args[0], "__dict__");
  if (val_is_undef(r)) rt_throw(ERR_TYPE, "vars() argument must have __dict__ attribute");
  return r;
}

static Val bi_setattr(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("setattr", n, kw, 3);
  rt_setattr(args[0], bi_attr_name("setattr", args[1]), args[2]);
  return val_none();
}

static Val bi_delattr(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("delattr", n, kw, 2);
  rt_delattr(args[0], bi_attr_name("delattr", args[1]));
  return val_none();
}

static Val bi_hash(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("hash", n, kw, 1);
  Val x = args[0];
  if (x.tag == VT_OBJ && !x.u.o->type->hash) rt_throw(ERR_TYPE, "unhashable type: '%s'", val_type_name(x));
  return val_int(val_pyhash(x));
}

static Val bi_id(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("id", n, kw, 1);
  Val x = args[0];
  return val_int(x.tag == VT_OBJ ? (int64_t)(uintptr_t)x.u.o : (int64_t)(x.u.i ^ (int64_t)x.tag << 56));
}

/* exit(code=None) / quit(code=None): site's Quitter, SystemExit(code). */
static Val bi_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  Val code = n ? args[0] : val_none();
  if (kw && kw->n == 1 && !n && !strcmp(kw->names[0], "code")) code = kw->vals[0];
  else bi_range("exit", n, kw, 0, 1);
  Val e = rt_call(exc_lookup("SystemExit", false), 1, &code, NULL);
  rt_hold_val(e);   /* rt_raise takes its own reference: the unwinding releases this one */
  rt_raise(e);
  return val_none();   /* not reached: rt_raise unwinds (its ABI declaration cannot say _Noreturn) */
}

static Val bi_format(Val self, int n, const Val *args, const Kw *kw) {
  bi_range("format", n, kw, 1, 2);
  return rt_format(args[0], NULL, n == 2 ? args[1] : val_undef());
}

static Val bi_chr(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("chr", n, kw, 1);
  int64_t c = val_to_index(args[0], NULL);
  if (c < 0 || c > 0x10FFFF) rt_throw(ERR_VALUE, "chr() arg not in range(0x110000)");
  Val spec = str_from_cstr("c"), r = rt_format(val_int(c), NULL, spec);
  val_decref(spec);
  return r;
}

static Val bi_ord(Val self, int n, const Val *args, const Kw *kw) {
  bi_exactly("ord", n, kw, 1);
  Val s = args[0];
  if (!val_is(s, &str_type))
    rt_throw(ERR_TYPE, "ord() expected string of length 1, but %s found", val_type_name(s));
  tfs_i64 nc = str_nchars(s);
  if (nc != 1) rt_throw(ERR_TYPE, "ord() expected a character, but string of length %lld found", (long long)nc);
  const unsigned char *p = (const unsigned char *)str_cstr(s);
  int len = (int)str_len(s);
  uint32_t c = len == 1 ? p[0] : (uint32_t)(p[0] & (0x3F >> (len - 1)));
  for (int i = 1; i < len; i++) c = (c << 6) | (p[i] & 0x3F);
  return val_int(c);
}

static Val bi_radix(const char *what, const char *spec, int n, const Val *args, const Kw *kw) {
  bi_exactly(what, n, kw, 1);
  int64_t i;
  bool wide = bigint_is_wide(args[0]);
  if (!wide && !val_as_int(args[0], &i))
    rt_throw(ERR_TYPE, "'%s' object cannot be interpreted as an integer", val_type_name(args[0]));
  Val s = str_from_cstr(spec), r = rt_format(wide ? args[0] : val_int(i), NULL, s);
  val_decref(s);
  return r;
}

static Val bi_hex(Val self, int n, const Val *args, const Kw *kw) { return bi_radix("hex", "#x", n, args, kw); }
static Val bi_oct(Val self, int n, const Val *args, const Kw *kw) { return bi_radix("oct", "#o", n, args, kw); }
static Val bi_bin(Val self, int n, const Val *args, const Kw *kw) { return bi_radix("bin", "#b", n, args, kw); }

/* ---- argv ------------------------------------------------------------------------------------------ */

static Val bi_argv = {VT_UNDEF, {0}};

void rt_set_argv(int argc, char **argv) {
  Val l = list_new(argc);
  for (int i = 0; i < argc; i++) {
    Val s = str_from_cstr(argv[i]);
    list_append(l, s);
    val_decref(s);
  }
  val_decref(bi_argv);
  bi_argv = l;
}

/* ---- the table --------------------------------------------------------------------------------------- */

//! abs(x)
//!   The absolute value of a number or tensor.
//! all(iterable)
//!   True when every element is true (or the iterable is empty).
//! any(iterable)
//!   True when some element is true.
//! bin(x)
//!   The binary text of an int, as '0b101'.
//! ascii(obj)
//!   repr(obj) with every non-ASCII character escaped as \x, \u or \U.
//! callable(obj)
//!   True for functions, builtins, classes and objects with __call__.
//! chr(i)
//!   The one-character string of a Unicode code point.
//! classmethod(function)
//!   Decorator: the method receives the class as its first argument.
//! delattr(obj, name)
//!   Deletes the attribute name of obj (del obj.name with a computed name).
//! divmod(a, b)
//!   The pair (a // b, a % b).
//! enumerate(iterable, start=0)
//!   Pairs (index, element), counting from start.
//! exit(code=None)
//!   Raises SystemExit(code): the program ends with status code (0 for None; a string is printed, status 1).
//! filter(function, iterable)
//!   The elements for which function(element) is true (all true elements when function is None).
//! format(value, format_spec='')
//!   value formatted with a format spec, as in f-strings.
//! getattr(obj, name, default)
//!   The attribute name of obj, or default when it has none (AttributeError without default).
//! hasattr(obj, name)
//!   True when obj has the attribute name.
//! hash(obj)
//!   The hash of a hashable value.
//! hex(x)
//!   The hexadecimal text of an int, as '0xff'.
//! id(obj)
//!   An int identifying obj while it lives.
//! isinstance(obj, classinfo)
//!   True when obj is an instance of the class (or one of a tuple of classes), subclasses included.
//! issubclass(cls, classinfo)
//!   True when cls is the class classinfo (or one of a tuple of classes) or derives from it.
//! iter(obj)
//!   An iterator over obj.
//! len(obj)
//!   The number of items of a container (the first dimension of a tensor).
//! map(function, *iterables)
//!   function applied to the elements of the iterables in parallel.
//! max(*args, key=None, default=None)
//!   The largest of the arguments or of one iterable's elements.
//! min(*args, key=None, default=None)
//!   The smallest of the arguments or of one iterable's elements.
//! next(iterator, default)
//!   The iterator's next element, or default when it is exhausted (StopIteration without default).
//! oct(x)
//!   The octal text of an int, as '0o17'.
//! ord(c)
//!   The code point of a one-character string.
//! open(file, mode='r', encoding=None, newline=None)
//!   A file object (read, readline, readlines, write, iteration by lines, with-statement) of stdlib/io.tfs.
//! pow(base, exp, mod=None)
//!   base ** exp, modulo mod when given.
//! print(*objects, sep=' ', end='\n', file=None, flush=False)
//!   Writes the objects' str() to stdout; in tf.function it runs at trace time only (use tf.print for every call).
//! property(fget=None, fset=None)
//!   Decorator: a computed attribute; .setter adds the assignment function.
//! quit(code=None)
//!   The same as exit(code).
//! repr(obj)
//!   The printable representation of obj.
//! reversed(seq)
//!   An iterator over a sequence from last to first.
//! round(number, ndigits=None)
//!   number rounded to ndigits decimals (to an int when ndigits is None), halves to even.
//! setattr(obj, name, value)
//!   Sets the attribute name of obj.
//! sorted(iterable, key=None, reverse=False)
//!   A new sorted list of the elements (stable).
//! staticmethod(function)
//!   Decorator: the method receives no implicit first argument.
//! sum(iterable, start=0)
//!   start plus the sum of the elements.
//! super()
//!   In a method, the parent classes' view of self (super().__init__(...)).
//! input(prompt='')
//!   One line of standard input without its newline, after writing the prompt; EOFError at the end of input.
//! vars(obj)
//!   The attribute dict of obj (its __dict__).
//! zip(*iterables, strict=False)
//!   Tuples of the iterables' elements in parallel, stopping at the shortest.
#define BI(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin bi_table[] = {
  BI("abs", bi_abs),         BI("all", bi_all),           BI("any", bi_any),         BI("ascii", bi_ascii),
  BI("bin", bi_bin),         BI("callable", bi_callable), BI("chr", bi_chr),
  BI("classmethod", class_classmethod), BI("delattr", bi_delattr),
  BI("divmod", bi_divmod),   BI("enumerate", bi_enumerate), BI("exit", bi_exit),     BI("filter", bi_filter),
  BI("format", bi_format),   BI("getattr", bi_getattr),   BI("hasattr", bi_hasattr),
  BI("hash", bi_hash),       BI("help", bi_help),         BI("hex", bi_hex),           BI("id", bi_id),           BI("input", bi_input),
  BI("isinstance", bi_isinstance), BI("issubclass", bi_issubclass), BI("iter", bi_iter),   BI("len", bi_len),
  BI("map", bi_map),         BI("max", bi_max),           BI("min", bi_min),
  BI("next", bi_next),       BI("oct", bi_oct),           BI("open", bi_open),         BI("ord", bi_ord),
  BI("pow", bi_pow),         BI("print", bi_print),       BI("property", class_property),
  BI("quit", bi_exit),       BI("repr", bi_repr),
  BI("reversed", bi_reversed), BI("round", bi_round),     BI("setattr", bi_setattr),
  BI("sorted", bi_sorted),   BI("staticmethod", class_staticmethod), BI("sum", bi_sum),
  BI("super", class_super),  BI("vars", bi_vars),         BI("zip", bi_zip),
};   /* sorted by name: builtins_lookup bisects */

Val builtins_lookup(const char *name) {
  int lo = 0, hi = (int)(sizeof bi_table / sizeof bi_table[0]) - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strcmp(name, bi_table[mid].name);
    if (c == 0) return val_obj(&bi_table[mid]);   /* immortal */
    if (c < 0) hi = mid - 1;
    else lo = mid + 1;
  }
  if (!strcmp(name, "argv")) {
    if (val_is_undef(bi_argv)) bi_argv = list_new(0);
    return val_incref(bi_argv);
  }
  if (!strcmp(name, "Ellipsis")) return rt_ellipsis();   /* the `...` singleton, immortal */
  if (!strcmp(name, "NotImplemented")) return rt_notimplemented();   /* immortal */
  return types_lookup(name);
}
