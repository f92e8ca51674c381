/* types.c — type objects (int, str, ... as constructors and isinstance targets), type(), exception classes. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/bigrange.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "object/hooks.h"
#include "object/value.h"

/* ---- constructors ------------------------------------------------------------------------ */

static void ty_no_kw(const char *what, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", what);
}

static void ty_max_args(const char *what, int n, int max) {
  if (n > max) rt_throw(ERR_TYPE, "%s expected at most %d argument%s, got %d", what, max, max == 1 ? "" : "s", n);
}

/* Parse an int literal in `base` (0: from the prefix), Python's int(str) rules. */
static bool ty_parse_int(const char *s, size_t n, int base, int64_t *out, Val *big) {
  size_t i = 0;
  while (i < n && isspace((unsigned char)s[i])) i++;
  while (n > i && isspace((unsigned char)s[n - 1])) n--;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i + 1 < n && s[i] == '0') {
    char p = (char)tolower((unsigned char)s[i + 1]);
    int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
    if (pb && (base == 0 || base == pb)) {
      base = pb;
      i += 2;
      if (i < n && s[i] == '_') i++;
    }
  }
  if (base == 0) {
    base = 10;
    /* base 0 forbids leading zeros in a nonzero decimal ("010") */
    if (i + 1 < n && s[i] == '0') {
      for (size_t k = i; k < n; k++)
        if (s[k] != '0' && s[k] != '_') return false;
    }
  }
  if (i >= n) return false;
  uint64_t acc = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  bool prev_digit = false, over = false;
  size_t start = i;
  for (; i < n; i++) {
    char c = s[i];
    if (c == '_') {
      if (!prev_digit || i + 1 >= n || s[i + 1] == '_') return false;
      prev_digit = false;
      continue;
    }
    int d = isdigit((unsigned char)c) ? c - '0' : isalpha((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10 : 99;
    if (d >= base) return false;
    if (!over && acc > (lim - (uint64_t)d) / (uint64_t)base) over = true;
    acc = acc * (uint64_t)base + (uint64_t)d;
    prev_digit = true;
  }
  if (!prev_digit) return false;
  if (over) {   /* beyond int64: Python's unbounded int (bigint.c), from the digits without underscores */
    char *dig = malloc(i - start + 1);
    if (!dig) rt_throw(ERR_MEMORY, "out of memory");
    size_t m = 0;
    for (size_t k = start; k < i; k++)
      if (s[k] != '_') dig[m++] = s[k];
    dig[m] = 0;
    int mark = rt_hold_mem(dig);
    *big = bigint_parse(dig, base, neg);
    rt_unhold(mark);
    free(dig);
    return true;
  }
  *out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
  return true;
}

static Val ty_float_to_int(double d) {
  if (isnan(d)) rt_throw(ERR_VALUE, "cannot convert float NaN to integer");
  if (isinf(d)) rt_throw(ERR_OVERFLOW, "cannot convert float infinity to integer");
  d = trunc(d);
  if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) return bigint_from_double(d);
  return val_int((int64_t)d);
}

/* The text int() and float() parse: a str's, or a bytes' (int(b'12') is 12, as CPython). */
static bool ty_text(Val v, const char **s, size_t *n) {
  v = inst_base(v);   /* int(s) of a str subclass (numpy.str_) parses its text */
  if (val_is(v, &str_type)) {
    *s = str_cstr(v);
    *n = (size_t)str_len(v);
    return true;
  }
  if (!val_is(v, &bytes_type)) return false;
  *s = bytes_data(v, n);
  return true;
}

static Val ty_int(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "int", .sig = "x=, base="};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (val_is_undef(a[0])) {
    if (!val_is_undef(a[1])) rt_throw(ERR_TYPE, "int() missing string argument");
    return val_int(0);
  }
  Val x = a[0];
  const char *txt;
  size_t tlen;
  if (!val_is_undef(a[1])) {
    if (!ty_text(x, &txt, &tlen)) rt_throw(ERR_TYPE, "int() can't convert non-string with explicit base");
    int64_t base = val_to_index(a[1], NULL);
    if (base != 0 && (base < 2 || base > 36)) rt_throw(ERR_VALUE, "int() base must be >= 2 and <= 36, or 0");
    int64_t r;
    Val big = val_undef();
    if (!ty_parse_int(txt, tlen, (int)base, &r, &big)) {
      Val rep = repr_of(x);
      char msg[300];
      snprintf(msg, sizeof msg, "invalid literal for int() with base %d: %.200s", (int)base, str_cstr(rep));
      val_decref(rep);
      rt_throw(ERR_VALUE, "%s", msg);
    }
    return val_is_undef(big) ? val_int(r) : big;
  }
  int64_t i;
  double d;
  tfs_u64 u;
  if (x.tag == VT_OBJ && rt_obj_hooks.tensor_u64 && rt_obj_hooks.tensor_u64(x, &u)) return u64int_new(u);
  if (val_is(x, &u64int_type) || val_is(x, &bigint_type)) return val_incref(x);
  if (val_as_int(x, &i)) return val_int(i);
  if (val_as_float(x, &d)) return ty_float_to_int(d);
  if (ty_text(x, &txt, &tlen)) {
    Val big = val_undef();
    if (!ty_parse_int(txt, tlen, 10, &i, &big)) {
      Val rep = repr_of(x);
      char msg[300];
      snprintf(msg, sizeof msg, "invalid literal for int() with base 10: %.200s", str_cstr(rep));
      val_decref(rep);
      rt_throw(ERR_VALUE, "%s", msg);
    }
    return val_is_undef(big) ? val_int(i) : big;
  }
  rt_throw(ERR_TYPE, "int() argument must be a string, a bytes-like object or a real number, not '%s'",
           val_type_name(x));
}

/* Python's float(str): optional sign, digits with single underscores between them, inf/nan words. */
static bool ty_parse_float(const char *s, size_t n, double *out) {
  size_t i = 0;
  while (i < n && isspace((unsigned char)s[i])) i++;
  while (n > i && isspace((unsigned char)s[n - 1])) n--;
  if (i >= n || n - i > 1000) return false;
  char buf[1024];
  size_t k = 0;
  size_t j = i;
  if (s[j] == '+' || s[j] == '-') buf[k++] = s[j++];
  size_t wl = n - j;
  const char *w = s + j;
  if ((wl == 3 && !strncasecmp(w, "inf", 3)) || (wl == 8 && !strncasecmp(w, "infinity", 8))) {
    *out = k && buf[0] == '-' ? -INFINITY : INFINITY;
    return true;
  }
  if (wl == 3 && !strncasecmp(w, "nan", 3)) {
    *out = k && buf[0] == '-' ? -NAN : NAN;
    return true;
  }
  bool digits = false;
  for (; j < n; j++) {
    char c = s[j];
    if (c == '_') {   /* only between two digits */
      if (j == 0 || !isdigit((unsigned char)s[j - 1]) || j + 1 >= n || !isdigit((unsigned char)s[j + 1])) return false;
      continue;
    }
    if (!(isdigit((unsigned char)c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return false;
    if (isdigit((unsigned char)c)) digits = true;
    buf[k++] = c;
  }
  buf[k] = 0;
  if (!digits) return false;
  char *end;
  errno = 0;
  double d = strtod(buf, &end);
  if (*end) return false;
  *out = d;
  return true;
}

static Val ty_float(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("float", kw);
  ty_max_args("float", n, 1);
  if (n == 0) return val_float(0.0);
  double d;
  if (val_is(args[0], &u64int_type) || val_is(args[0], &bigint_type)) return val_float(bigint_float(args[0]));
  if (val_as_float(args[0], &d)) return val_float(d);
  const char *txt;
  size_t tlen;
  if (ty_text(args[0], &txt, &tlen)) {
    if (!ty_parse_float(txt, tlen, &d)) {
      Val rep = repr_of(args[0]);
      char msg[300];
      snprintf(msg, sizeof msg, "could not convert string to float: %.200s", str_cstr(rep));
      val_decref(rep);
      rt_throw(ERR_VALUE, "%s", msg);
    }
    return val_float(d);
  }
  rt_throw(ERR_TYPE, "float() argument must be a string or a real number, not '%s'", val_type_name(args[0]));
}

static Val ty_complex(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return complex_construct(n, args, kw);
}

static Val ty_bool(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("bool", kw);
  ty_max_args("bool", n, 1);
  return val_bool(n && rt_truthy(args[0]));
}

static Val ty_str(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "str", .sig = "object=''"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return str_of(a[0]);
}

static Val ty_bytes(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return bytes_construct(n, args, kw);
}

static Val ty_bytearray(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return bytes_build(n, args, kw, true);
}

static Val ty_list(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("list", kw);
  ty_max_args("list", n, 1);
  return n ? list_from_iterable(args[0]) : list_new(0);
}

static Val ty_set(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("set", kw);
  ty_max_args("set", n, 1);
  return n ? set_from_iterable(args[0]) : set_new();
}

//! frozenset(iterable=())
//!   An immutable, hashable set of the iterable's items: set's non-mutating methods and operators, usable
//!   as a dict key or set element; equal to the set of the same items.
static Val ty_frozenset(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("frozenset", kw);
  ty_max_args("frozenset", n, 1);
  return frozenset_from_iterable(n ? args[0] : val_undef());
}

static Val ty_tuple(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("tuple", kw);
  ty_max_args("tuple", n, 1);
  if (n == 0) return tuple_new(0);
  if (val_is(args[0], &tuple_type)) return val_incref(args[0]);
  Val l = list_from_iterable(args[0]);   /* raises before owning anything */
  List *lp = (List *)l.u.o;
  Val t = rt_tuple((int)lp->len, lp->items);
  val_decref(l);
  return t;
}

/* d.update(x) / dict(x): a dict, or an iterable of key/value pairs. */
void types_dict_merge(Val d, Val src) {
  src = inst_base(src);   /* a dict subclass merges as its dict */
  if (val_is(src, &dict_type)) {
    Dict *s = (Dict *)src.u.o;
    for (tfs_i64 i = 0; i < s->used; i++)
      if (!val_is_undef(s->keys[i])) dict_set(d, s->keys[i], s->vals[i]);
    return;
  }
  Val it = rt_iter(src), item;
  int mark = rt_hold_val(it);
  for (tfs_i64 k = 0; rt_next(it, &item); k++) {
    tfs_i64 n;
    const Val *kv;
    if (!seq_items(item, &n, &kv) || n != 2) {
      tfs_i64 len = seq_items(item, &n, &kv) ? n : -1;
      val_decref(item);
      if (len < 0) rt_throw(ERR_TYPE, "cannot convert dictionary update sequence element #%lld to a sequence", (long long)k);
      rt_throw(ERR_VALUE, "dictionary update sequence element #%lld has length %lld; 2 is required", (long long)k,
               (long long)len);
    }
    int im = rt_hold_val(item);
    dict_set(d, kv[0], kv[1]);
    rt_unhold(im);
    val_decref(item);
  }
  rt_unhold(mark);
  val_decref(it);
}

static Val ty_dict(Val self, int n, const Val *args, const Kw *kw) {
  ty_max_args("dict", n, 1);
  Val d = dict_new();
  int mark = rt_hold_val(d);
  if (n) types_dict_merge(d, args[0]);
  rt_unhold(mark);
  for (int i = 0; kw && i < kw->n; i++) {
    Val k = str_from_cstr(kw->names[i]);
    dict_set(d, k, kw->vals[i]);
    val_decref(k);
  }
  return d;
}

static Val ty_range(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("range", kw);
  if (n == 0) rt_throw(ERR_TYPE, "range expected at least 1 argument, got 0");
  ty_max_args("range", n, 3);
  Val tr = rt_obj_hooks.range_tensor ? rt_obj_hooks.range_tensor(n, args) : val_undef();   /* range(t) while tracing: tf.range */
  if (!val_is_undef(tr)) return tr;
  return range_from_args(n, args);
}

static Val ty_slice(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("slice", kw);
  if (n == 0) rt_throw(ERR_TYPE, "slice expected at least 1 argument, got 0");
  ty_max_args("slice", n, 3);
  if (n == 1) return rt_slice(val_none(), args[0], val_none());
  return rt_slice(args[0], args[1], n == 3 ? args[2] : val_none());
}

static Val ty_type(Val self, int n, const Val *args, const Kw *kw) {
  ty_no_kw("type", kw);
  if (n != 1) rt_throw(ERR_TYPE, "type() takes 1 argument");
  return val_incref(typeobj_of(args[0]));   /* user classes are reference counted */
}

/* ---- type objects -------------------------------------------------------------------------- */

static void ty_free(Obj *o) {   /* only dynamically made ones reach here */
  class_free((TypeObj *)o);
  free(o);
}

static void ty_repr(StrBuf *b, Val v) {
  TypeObj *t = (TypeObj *)v.u.o;
  if (t->module) sb_printf(b, "<class '%s.%s'>", t->module, t->name);
  else sb_printf(b, "<class '%s'>", t->name);
}

static Val ty_call(Val self, int n, const Val *args, const Kw *kw) {
  TypeObj *t = (TypeObj *)self.u.o;
  if (!val_is_undef(t->dict)) return class_instantiate(t, n, args, kw);
  if (t->errkind >= 0) return exc_construct(self, n, args, kw);
  if (!t->ctor) rt_throw(ERR_TYPE, "cannot create '%s' instances", t->name);
  return t->ctor(val_undef(), n, args, kw);
}

static TypeObj ty_o_int, ty_o_object;   /* defined with the other builtin type objects below */

/* The superclass (borrowed): NULL for object; int for bool; object when none is recorded. */
static TypeObj *ty_base(TypeObj *t) {
  if (t->tag == -1) return NULL;
  if (t->tag == VT_BOOL) return &ty_o_int;
  return t->base ? t->base : &ty_o_object;
}

/* C.__mro__ / C.mro(): C and its superclasses up to object (single inheritance: the chain itself). */
static Val ty_mro(TypeObj *t, bool as_list) {
  Val r = as_list ? list_new(4) : val_undef();
  int n = 0;
  for (TypeObj *c = t; c; c = ty_base(c)) n++;
  if (!as_list) r = tuple_new(n);
  n = 0;
  for (TypeObj *c = t; c; c = ty_base(c), n++)
    if (as_list) list_append(r, val_obj(c));
    else ((Tuple *)r.u.o)->items[n] = val_incref(val_obj(c));
  return r;
}

static Val ty_mro_call(Val self, int n, const Val *args, const Kw *kw) {
  const char *c = ((TypeObj *)self.u.o)->name;
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s.mro() takes no keyword arguments", c);
  if (n) rt_throw(ERR_TYPE, "%s.mro() takes no arguments (%d given)", c, n);
  return ty_mro((TypeObj *)self.u.o, true);
}

static Val ty_getattr(Val self, const char *name) {
  TypeObj *t = (TypeObj *)self.u.o;
  if (!strcmp(name, "__name__")) return str_from_cstr(t->name);
  if (!strcmp(name, "__module__")) return str_from_cstr(t->module ? t->module : "builtins");
  if (!strcmp(name, "__base__")) return ty_base(t) ? val_incref(val_obj(ty_base(t))) : val_none();
  if (!strcmp(name, "__bases__")) {   /* (base,), or two for class E(ValueError, IndexError) */
    if (t->base2 && t->base && t->base->base2 != t->base2) return tuple_pack(2, val_obj(t->base), val_obj(t->base2));
    return ty_base(t) ? tuple_pack(1, val_obj(ty_base(t))) : tuple_new(0);
  }
  if (!strcmp(name, "__mro__")) return ty_mro(t, false);
  if (!strcmp(name, "mro")) return builtin_new("type.mro", ty_mro_call, self, NULL);
  if (t->type == &str_type && val_is_undef(t->dict) && !strcmp(name, "maketrans")) return str_maketrans_fn();
  if (t->type == &dict_type && !strcmp(name, "fromkeys")) return dict_fromkeys_fn();
  if ((t->tag == VT_INT || t->tag == VT_BOOL) && !strcmp(name, "from_bytes")) return int_from_bytes_fn(t->tag == VT_BOOL);
  if ((t->type == &bytes_type || t->type == &bytearray_type) && val_is_undef(t->dict)) {
    if (!strcmp(name, "fromhex")) return bytes_fromhex_fn(t->type == &bytearray_type);
    if (!strcmp(name, "maketrans")) return bytes_maketrans_fn();
  }
  Val d = descr_get(t, name);
  if (!val_is_undef(d)) return d;
  Val a = class_getattr(t, name);
  return val_is_undef(a) && val_is_undef(t->dict) ? class_builtin_attr(t, name) : a;
}

static void ty_setattr(Val self, const char *name, Val v) {
  TypeObj *t = (TypeObj *)self.u.o;
  if (val_is_undef(t->dict)) rt_throw(ERR_TYPE, "cannot set '%s' attribute of immutable type '%s'", name, t->name);
  if (!strcmp(name, "__name__")) {   /* a user class's name is its own malloc'd copy (class_free frees it) */
    if (!val_is(v, &str_type))
      rt_throw(ERR_TYPE, "can only assign string to %s.__name__, not '%s'", t->name, val_type_name(v));
    char *nm = strdup(str_cstr(v));
    if (!nm) rt_throw(ERR_MEMORY, "out of memory");
    free((char *)t->name);
    t->name = nm;
    return;
  }
  if (!strcmp(name, "__module__") && val_is(v, &str_type)) t->module = class_module_intern(str_cstr(v));
  dict_set_str(&t->dict, name, v);
}

/* The cycle collector's view (gc.c): a user class holds its namespace and base. */
static void ty_traverse(Obj *o, GcVisit visit, void *arg) {
  TypeObj *t = (TypeObj *)o;
  visit(t->dict, true, arg);
  if (t->base) visit(val_obj(&t->base->hdr), true, arg);
}

const Type type_type = {
  .name = "type",
  .free = ty_free, .traverse = ty_traverse,
  .repr = ty_repr,
  .getattr = ty_getattr,
  .setattr = ty_setattr,
  .call = ty_call,
  .hash = obj_identity_hash,
};

#define TY(var, nm, typ, tag, ctor) \
  static TypeObj var = {{TFS_IMMORTAL_RC, &type_type}, nm, typ, tag, ctor, -1}
TY(ty_o_int, "int", NULL, VT_INT, ty_int);
TY(ty_o_float, "float", NULL, VT_FLOAT, ty_float);
TY(ty_o_bool, "bool", NULL, VT_BOOL, ty_bool);
TY(ty_o_none, "NoneType", NULL, VT_NONE, NULL);
TY(ty_o_object, "object", NULL, -1, NULL);
TY(ty_o_str, "str", &str_type, VT_OBJ, ty_str);
TY(ty_o_list, "list", &list_type, VT_OBJ, ty_list);
TY(ty_o_tuple, "tuple", &tuple_type, VT_OBJ, ty_tuple);
TY(ty_o_dict, "dict", &dict_type, VT_OBJ, ty_dict);
TY(ty_o_set, "set", &set_type, VT_OBJ, ty_set);
TY(ty_o_frozenset, "frozenset", &frozenset_type, VT_OBJ, ty_frozenset);
TY(ty_o_memoryview, "memoryview", &memoryview_type, VT_OBJ, memoryview_of);
TY(ty_o_range, "range", &range_type, VT_OBJ, ty_range);
TY(ty_o_slice, "slice", &slice_type, VT_OBJ, ty_slice);
TY(ty_o_type, "type", &type_type, VT_OBJ, ty_type);
TY(ty_o_complex, "complex", &complex_type, VT_OBJ, ty_complex);
TY(ty_o_bytes, "bytes", &bytes_type, VT_OBJ, ty_bytes);
TY(ty_o_bytearray, "bytearray", &bytearray_type, VT_OBJ, ty_bytearray);

static TypeObj *const ty_named[] = {
  &ty_o_int, &ty_o_float, &ty_o_bool, &ty_o_object, &ty_o_str, &ty_o_list, &ty_o_tuple, &ty_o_dict, &ty_o_set, &ty_o_range,
  &ty_o_slice, &ty_o_type, &ty_o_complex, &ty_o_bytes, &ty_o_bytearray, &ty_o_frozenset,
  &ty_o_memoryview,
};

Val types_lookup(const char *name) {
  for (size_t i = 0; i < sizeof ty_named / sizeof ty_named[0]; i++)
    if (!strcmp(ty_named[i]->name, name)) return val_obj(ty_named[i]);   /* immortal: no incref needed */
  return exc_lookup(name, false);
}

/* Type objects made on demand for other object types (tf.Tensor, function, ...),
 * kept forever so type(a) is type(b) holds. */
static TypeObj **ty_dyn;
static int ty_ndyn;

Val typeobj_for(const Type *t) {
  for (size_t i = 0; i < sizeof ty_named / sizeof ty_named[0]; i++)
    if (ty_named[i]->type == t) return val_obj(ty_named[i]);
  for (int i = 0; i < ty_ndyn; i++)
    if (ty_dyn[i]->type == t) return val_obj(ty_dyn[i]);
  TypeObj **d = realloc(ty_dyn, sizeof(TypeObj *) * (size_t)(ty_ndyn + 1));
  if (!d) rt_throw(ERR_MEMORY, "out of memory");
  ty_dyn = d;
  TypeObj *o = obj_new(&type_type, sizeof(TypeObj));
  memset((char *)o + sizeof(Obj), 0, sizeof(TypeObj) - sizeof(Obj));   /* no base, dict VT_UNDEF */
  o->hdr.rc = TFS_IMMORTAL_RC;
  /* a Python module path names the module: numpy.ndarray's __name__ is 'ndarray', __module__ 'numpy' */
  const char *dot = strncmp(t->name, "numpy.", 6) && strncmp(t->name, "tensorflow.", 11) ? NULL : strrchr(t->name, '.');
  o->name = dot ? dot + 1 : t->name;
  if (dot) o->module = strndup(t->name, (size_t)(dot - t->name));
  o->type = t;
  o->tag = VT_OBJ;
  o->ctor = NULL;
  o->errkind = -1;
  ty_dyn[ty_ndyn++] = o;
  return val_obj(o);
}

Val typeobj_of(Val v) {
  switch (v.tag) {
    case VT_NONE: return val_obj(&ty_o_none);
    case VT_BOOL: return val_obj(&ty_o_bool);
    case VT_INT: return val_obj(&ty_o_int);
    case VT_FLOAT: return val_obj(&ty_o_float);
    case VT_OBJ:
      if (val_is(v, &exc_type)) return exc_class_of(v);
      if (val_is(v, &inst_type)) return val_obj(((Inst *)v.u.o)->klass);
      if (v.u.o->type->klass) return v.u.o->type->klass(v);
      return typeobj_for(v.u.o->type);
    default: return val_obj(&ty_o_none);
  }
}

/* isinstance(x, cls) for one class. */
bool types_issubclass(Val sub, Val cls) {
  if (!val_is(sub, &type_type)) rt_throw(ERR_TYPE, "issubclass() arg 1 must be a class");
  if (!val_is(cls, &type_type)) rt_throw(ERR_TYPE, "issubclass() arg 2 must be a class, a tuple of classes, or a union");
  TypeObj *s = (TypeObj *)sub.u.o, *c = (TypeObj *)cls.u.o;
  if (c->tag == -1 || s == c) return true;   /* everything derives from object */
  bool s_class = s->errkind >= 0 || !val_is_undef(s->dict), c_class = c->errkind >= 0 || !val_is_undef(c->dict);
  if (s_class) return exc_class_sub(sub, cls);   /* a user class may extend dict, tuple, ... */
  if (c_class) return false;
  for (const TypeObj *t = s; t; t = t->base)   /* numpy's scalar classes: numpy.float32 < floating < ... */
    if (t == c) return true;
  return c->tag == VT_INT && s->tag == VT_BOOL;   /* bool is the one built-in subclass here */
}

bool types_isinstance(Val x, Val cls) {
  if (!val_is(cls, &type_type)) rt_throw(ERR_TYPE, "isinstance() arg 2 must be a type, a tuple of types, or a union");
  TypeObj *c = (TypeObj *)cls.u.o;
  if (c->tag == -1) return true;   /* object */
  if (c->errkind >= 0 || !val_is_undef(c->dict)) {
    if (!val_is(x, &exc_type) && !val_is(x, &inst_type)) return false;
    return exc_class_sub(typeobj_of(x), cls);
  }
  if (val_is(x, &inst_type) && !val_is_undef(((Inst *)x.u.o)->base))
    return exc_class_sub(typeobj_of(x), cls);   /* an instance of an int/float/dict/tuple/... subclass */
  if (c->tag == VT_INT) return x.tag == VT_INT || x.tag == VT_BOOL || val_is(x, &u64int_type) || val_is(x, &bigint_type);
  if (c->tag == VT_FLOAT && x.tag == VT_OBJ && !strcmp(x.u.o->type->name, "numpy.float64")) return true;   /* numpy.float64 subclasses float */
  if (c->tag != VT_OBJ) return x.tag == (unsigned)c->tag;
  if (x.tag != VT_OBJ) return false;
  if (x.u.o->type == c->type) return true;
  for (const TypeObj *t = (TypeObj *)typeobj_of(x).u.o; t; t = t->base)   /* builtin bases (numpy.generic, tf.Tensor ...) */
    if (t == c) return true;
  return false;
}

