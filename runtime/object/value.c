/* value.c — generic value machinery: allocation, StrBuf, repr/str, truth, equality, hashing, and vtable dispatch. */
#include "object/value.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/numfmt.h"
#include "object/bigrange.h"
#include "object/object.h"
#include "object/hooks.h"

/* ---- allocation -------------------------------------------------------------- */

void *obj_new(const Type *type, size_t size) {
  /* containers start zeroed: the collector may see one before its constructor fills it */
  Obj *o = type->traverse ? calloc(1, size) : malloc(size);
  if (!o) rt_throw(ERR_MEMORY, "out of memory");
  o->rc = 1;
  o->type = type;
  if (type->traverse) gc_track(o);
  return o;
}

/* Called when o's count drops to 0 (static objects start at TFS_IMMORTAL_RC and never get here).
 * Freeing a container releases its items, which may free containers in turn:
 * past a small depth the object is queued instead (linked through its dead
 * rc field, so no allocation), and the outermost call frees the queue in a
 * loop.  A list nested a million deep is freed without deep C recursion. */
enum { FREE_MAX_DEPTH = 32 };
static __thread int free_depth;      /* per thread: graph workers free tensors too */
static __thread Obj *free_queue;

void rt_free_obj(Obj *o) {
  if (o->type->traverse) gc_untrack(o);
  if (free_depth >= FREE_MAX_DEPTH) {
    o->rc = (tfs_i64)(intptr_t)free_queue;
    free_queue = o;
    return;
  }
  free_depth++;
  o->type->free(o);
  if (free_depth == 1) {
    while (free_queue) {
      Obj *q = free_queue;
      free_queue = (Obj *)(intptr_t)q->rc;
      q->type->free(q);
    }
  }
  free_depth--;
}

const char *val_type_name(Val v) {
  switch (v.tag) {
    case VT_NONE: return "NoneType";
    case VT_BOOL: return "bool";
    case VT_INT: return "int";
    case VT_FLOAT: return "float";
    case VT_OBJ:
      if (v.u.o->type == &inst_type) return ((Inst *)v.u.o)->klass->name;
      if (v.u.o->type == &exc_type) return ((Exc *)v.u.o)->cls;
      if (v.u.o->type->klass) {
        const TypeObj *k = (const TypeObj *)v.u.o->type->klass(v).u.o;
        return k->tp_name ? k->tp_name : k->name;
      }
      return v.u.o->type->name;
    default: return "<undefined>";
  }
}

/* ---- StrBuf -------------------------------------------------------------------- */

void sb_init(StrBuf *b) { b->data = NULL; b->len = b->cap = 0; }

void sb_free(StrBuf *b) {
  free(b->data);
  sb_init(b);
}

/* Make room for n more bytes plus the NUL terminator. */
static void sb_reserve(StrBuf *b, size_t n) {
  if (n < b->cap && b->len + n + 1 <= b->cap) return;
  if (n >= PTRDIFF_MAX - b->len - 1) rt_throw(ERR_MEMORY, "%s", "");
  size_t need = b->len + n + 1, cap = b->cap ? b->cap : 64;
  while (cap < need) cap = cap > PTRDIFF_MAX / 2 ? need : cap * 2;
  char *d = realloc(b->data, cap);
  if (!d) rt_throw(ERR_MEMORY, "%s", "");   /* Python's MemoryError has no message */
  b->data = d;
  b->cap = cap;
}

void sb_putn(StrBuf *b, const char *s, size_t n) {
  sb_reserve(b, n);
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void sb_putc(StrBuf *b, char c) { sb_putn(b, &c, 1); }

void sb_fill(StrBuf *b, const char *unit, size_t n, size_t count) {
  size_t total;
  if (!count || !n) return;
  if (__builtin_mul_overflow(n, count, &total)) rt_throw(ERR_MEMORY, "%s", "");
  sb_reserve(b, total);   /* the whole size at once: MemoryError now, not after seconds of growth */
  char *d = b->data + b->len;
  memcpy(d, unit, n);
  for (size_t done = n; done < total;) {   /* double the filled run: memcpy speed */
    size_t k = done < total - done ? done : total - done;
    memcpy(d + done, d, k);
    done += k;
  }
  b->len += total;
  b->data[b->len] = 0;
}
void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

/* Formatted into the room the buffer has (made at least 128 bytes): one
 * pass when it fits, which is nearly always (the C generator's lines). */
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) {
  sb_reserve(b, 128);
  va_list ap2;
  va_copy(ap2, ap);
  size_t room = b->cap - b->len;
  int n = vsnprintf(b->data + b->len, room, fmt, ap2);
  va_end(ap2);
  if (n <= 0) {
    b->data[b->len] = 0;
    return;
  }
  if ((size_t)n >= room) {
    sb_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  }
  b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(b, fmt, ap);
  va_end(ap);
}

char *sb_steal(StrBuf *b) {
  sb_reserve(b, 0);
  char *s = b->data;
  sb_init(b);
  return s;
}

/* ---- repr / str ------------------------------------------------------------------ */

void val_repr(StrBuf *b, Val v) {
  switch (v.tag) {
    case VT_NONE: sb_puts(b, "None"); break;
    case VT_BOOL: sb_puts(b, v.u.i ? "True" : "False"); break;
    case VT_INT: sb_printf(b, "%lld", (long long)v.u.i); break;
    case VT_FLOAT: numfmt_repr_double(b, v.u.f); break;
    case VT_OBJ:
      rt_rec_enter(" while getting the repr of an object");
      v.u.o->type->repr(b, v);
      rt_rec_leave();
      break;
    default: sb_puts(b, "<undefined>"); break;
  }
}

void val_str(StrBuf *b, Val v) {
  if (v.tag == VT_OBJ && v.u.o->type->str) {
    rt_rec_enter(" while getting the str of an object");
    v.u.o->type->str(b, v);
    rt_rec_leave();
  } else {
    val_repr(b, v);
  }
}

Val str_of(Val v) {
  if (val_is(v, &str_type)) return val_incref(v);
  StrBuf b;
  sb_init(&b);
  val_str(&b, v);
  size_t n = b.len;
  return str_take(sb_steal(&b), (tfs_i64)n);
}

Val repr_of(Val v) {
  StrBuf b;
  sb_init(&b);
  val_repr(&b, v);
  size_t n = b.len;
  return str_take(sb_steal(&b), (tfs_i64)n);
}

/* Containers being repr'd right now, so a list that contains itself prints
 * [...] (Python's Py_ReprEnter).  Each entry is one level of val_repr, so the
 * recursion guard bounds the depth by RT_RECURSION_LIMIT: the stack never
 * fills, and [...] means a true self-reference only. */
enum { REPR_MAX = RT_RECURSION_LIMIT + 1 };
static __thread Obj *repr_stack[REPR_MAX];
static __thread int repr_depth;

bool repr_enter(Obj *o) {
  for (int i = 0; i < repr_depth; i++)
    if (repr_stack[i] == o) return false;
  if (repr_depth >= REPR_MAX) rt_throw(ERR_RECURSION, "maximum recursion depth exceeded while getting the repr of an object");
  repr_stack[repr_depth++] = o;
  return true;
}

void repr_leave(Obj *o) {
  if (repr_depth > 0 && repr_stack[repr_depth - 1] == o) repr_depth--;
}

int repr_depth_get(void) { return repr_depth; }
void repr_depth_set(int depth) { repr_depth = depth; }

/* ---- immediates and literal constructors --------------------------------------------- */

Val rt_none(void) { return val_none(); }
Val rt_bool(int b) { return val_bool(b != 0); }
Val rt_int(tfs_i64 i) { return val_int(i); }
Val rt_float(double f) { return val_float(f); }
Val rt_str(const char *s, tfs_i64 len) { return str_new(s, len); }
Val rt_bytes(const char *s, tfs_i64 len) { return bytes_new(s, (size_t)len); }

Val rt_list(int n, const Val *items) {
  Val l = list_new(n);
  for (int i = 0; i < n; i++) list_append(l, items[i]);
  return l;
}

Val rt_tuple(int n, const Val *items) {
  Val t = tuple_new(n);
  Tuple *tp = (Tuple *)t.u.o;
  for (int i = 0; i < n; i++) tp->items[i] = val_incref(items[i]);
  return t;
}

/* A dict display; an undefined key marks `**m`, whose items are merged in order. */
Val rt_dict(int n, const Val *keys, const Val *vals) {
  Val d = dict_new();
  int mark = rt_hold_val(d);
  for (int i = 0; i < n; i++) {
    if (!val_is_undef(keys[i])) {
      dict_set(d, keys[i], vals[i]);
      continue;
    }
    Val m = inst_base(vals[i]);
    if (!val_is(m, &dict_type)) rt_throw(ERR_TYPE, "'%s' object is not a mapping", val_type_name(vals[i]));
    Dict *md = (Dict *)m.u.o;
    for (tfs_i64 j = 0; j < md->used; j++)
      if (!val_is_undef(md->keys[j])) dict_set(d, md->keys[j], md->vals[j]);
  }
  rt_unhold(mark);
  return d;
}

/* ---- truthiness, equality, hashing ------------------------------------------------- */

int rt_truthy(Val v) {
  RT_CHECK_INTERRUPT();   /* each while/if test is a safe point */
  switch (v.tag) {
    case VT_NONE: return 0;
    case VT_BOOL:
    case VT_INT: return v.u.i != 0;
    case VT_FLOAT: return v.u.f != 0.0;
    case VT_OBJ: {
      const Type *t = v.u.o->type;
      if (t->truthy) return t->truthy(v);
      if (t == &range_type && range_is_big((Range *)v.u.o)) return bigrange_nonempty((Range *)v.u.o);   /* len() may overflow */
      if (t->len) {
        tfs_i64 n = t->len(v);
        if (n >= 0) return n != 0;
      }
      return 1;
    }
    default: return 0;
  }
}

static bool val_is_num(Val v) { return v.tag == VT_BOOL || v.tag == VT_INT || v.tag == VT_FLOAT; }

/* Exact comparison of an int with a double: -1, 0, 1, or 2 when f is NaN. */
static int num_cmp_int_float(int64_t i, double f) {
  if (isnan(f)) return 2;
  if (f >= 9223372036854775808.0) return -1;
  if (f < -9223372036854775808.0) return 1;
  double fl = floor(f);
  int64_t fi = (int64_t)fl;   /* in range: exact */
  if (i < fi) return -1;
  if (i > fi) return 1;
  return fl == f ? 0 : -1;    /* i == floor(f) < f */
}

/* Numeric comparison of two host numbers: -1, 0, 1, or 2 (unordered: NaN). */
int num_cmp(Val a, Val b) {
  if (a.tag != VT_FLOAT && b.tag != VT_FLOAT) return a.u.i < b.u.i ? -1 : a.u.i > b.u.i;
  if (a.tag == VT_FLOAT && b.tag == VT_FLOAT) {
    if (isnan(a.u.f) || isnan(b.u.f)) return 2;
    return a.u.f < b.u.f ? -1 : a.u.f > b.u.f;
  }
  if (a.tag == VT_FLOAT) {
    int c = num_cmp_int_float(b.u.i, a.u.f);
    return c == 2 ? 2 : -c;
  }
  return num_cmp_int_float(a.u.i, b.u.f);
}

/* numpy's objects (scalars, dtypes) equal other types' values: np.float32(1.5) == 1.5, dtype == np.float32. */
static const Type *numpy_eq_type(Val v) {
  return v.tag == VT_OBJ && v.u.o->type->eq && !strncmp(v.u.o->type->name, "numpy.", 6) ? v.u.o->type : NULL;
}

bool val_eq(Val a, Val b) {
  if (val_is_num(a) && val_is_num(b)) return num_cmp(a, b) == 0;
  const Type *ne = numpy_eq_type(a) ? numpy_eq_type(a) : numpy_eq_type(b);
  if (ne && !(a.tag == VT_OBJ && b.tag == VT_OBJ && a.u.o == b.u.o)) return ne->eq(a, b);
  if (val_is(a, &complex_type) || val_is(b, &complex_type))   /* 1 == 1+0j */
    return (val_is_num(a) || val_is(a, &complex_type)) && (val_is_num(b) || val_is(b, &complex_type)) &&
           complex_type.eq(a, b);
  if (a.tag != b.tag && (inst_base(a).tag != a.tag || inst_base(b).tag != b.tag))
    return inst_type.eq(a, b);   /* class C(float) against a number: its __eq__, else its number's */
  if (a.tag != b.tag) return false;
  if (a.tag == VT_NONE) return true;
  if (a.tag != VT_OBJ) return false;
  if (a.u.o == b.u.o) return true;
  const Type *t = a.u.o->type;
  if (t != b.u.o->type && (inst_base(a).u.o != a.u.o || inst_base(b).u.o != b.u.o))
    t = &inst_type;   /* a dict/tuple subclass instance against a value: its __eq__, else its builtin value's */
  else if (t != b.u.o->type && !((t == &set_type || t == &frozenset_type) &&
                                  (b.u.o->type == &set_type || b.u.o->type == &frozenset_type)))
    return false;   /* a set equals the frozenset of its items */
  if (!t->eq) return false;
  rt_rec_enter(" in comparison");
  bool r = t->eq(a, b);
  rt_rec_leave();
  return r;
}

static tfs_u64 hash_mix(tfs_u64 x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

tfs_u64 obj_identity_hash(Val v) { return hash_mix((tfs_u64)(uintptr_t)v.u.o); }

tfs_u64 val_hash(Val v) {
  switch (v.tag) {
    case VT_NONE: return 0x9e3779b97f4a7c15ULL;
    case VT_BOOL:
    case VT_INT: return hash_mix((tfs_u64)v.u.i);
    case VT_FLOAT: {
      double f = v.u.f;
      /* equal numbers hash alike: 2.0 like 2 */
      if (f == floor(f) && f >= -9223372036854775808.0 && f < 9223372036854775808.0)
        return hash_mix((tfs_u64)(int64_t)f);
      uint64_t bits;
      memcpy(&bits, &f, sizeof bits);
      return hash_mix(bits ^ 0x5bd1e995ULL);
    }
    case VT_OBJ: {
      const Type *t = v.u.o->type;
      if (!t->hash) rt_throw(ERR_TYPE, "unhashable type: '%s'", t->name);
      rt_rec_enter("");
      tfs_u64 h = t->hash(v);
      rt_rec_leave();
      return h;
    }
    default: return 0;
  }
}

/* ---- conversions ------------------------------------------------------------------- */

RtObjHooks rt_obj_hooks;

/* The scalar of an eager 0-d tensor or variable (int(v), float(v)), if v is one (the tensor layer knows). */
static bool val_tensor_scalar(Val v, bool *is_int, int64_t *i, double *f) {
  return v.tag == VT_OBJ && rt_obj_hooks.tensor_scalar && rt_obj_hooks.tensor_scalar(v, is_int, i, f);
}

bool val_as_int(Val v, int64_t *out) {
  if (v.tag == VT_INT || v.tag == VT_BOOL) {
    *out = v.u.i;
    return true;
  }
  if (val_is(v, &inst_type) && inst_base(v).tag == VT_INT) return val_as_int(inst_base(v), out);   /* class C(int) */
  bool is_int;
  int64_t i;
  double f;
  if (val_tensor_scalar(v, &is_int, &i, &f) && is_int) {
    *out = i;
    return true;
  }
  return false;
}

bool val_as_float(Val v, double *out) {
  if (v.tag == VT_FLOAT) {
    *out = v.u.f;
    return true;
  }
  if (val_is(v, &inst_type) && (inst_base(v).tag == VT_FLOAT || inst_base(v).tag == VT_INT))
    return val_as_float(inst_base(v), out);   /* class C(float) */
  if (v.tag == VT_INT || v.tag == VT_BOOL) {
    *out = (double)v.u.i;
    return true;
  }
  bool is_int;
  int64_t i;
  double f;
  if (val_tensor_scalar(v, &is_int, &i, &f)) {
    *out = f;
    return true;
  }
  return false;
}

int64_t val_to_index(Val v, const char *what) {
  int64_t i;
  if (val_as_int(v, &i)) return i;
  if (val_is(v, &u64int_type) || val_is(v, &bigint_type))   /* an int beyond int64, as Python's index-sized ints */
    rt_throw(ERR_OVERFLOW, "cannot fit 'int' into an index-sized integer");
  if (what) rt_throw(ERR_TYPE, "%s must be integers or slices, not %s", what, val_type_name(v));
  rt_throw(ERR_TYPE, "'%s' object cannot be interpreted as an integer", val_type_name(v));
}

/* ---- attributes ---------------------------------------------------------------------- */

static _Noreturn void no_attribute(Val o, const char *name) {
  if (val_is(o, &module_type) && ((Module *)o.u.o)->as_class)
    rt_throw(ERR_ATTRIBUTE, "type object '%s' has no attribute '%s'", ((Module *)o.u.o)->as_class, name);
  if (val_is(o, &module_type))
    rt_throw(ERR_ATTRIBUTE, "module '%s' has no attribute '%s'", module_shown_name(o), name);
  if (val_is(o, &type_type))
    rt_throw(ERR_ATTRIBUTE, "type object '%s' has no attribute '%s'", ((TypeObj *)o.u.o)->name, name);
  rt_throw(ERR_ATTRIBUTE, "'%s' object has no attribute '%s'", val_type_name(o), name);
}

int rt_soft_miss;
bool rt_soft_missed;

Val rt_getattr(Val o, const char *name) {
  if (o.tag == VT_OBJ && o.u.o->type->getattr) {
    Val r = o.u.o->type->getattr(o, name);
    if (!val_is_undef(r)) return r;
  }
  if (o.tag == VT_INT || o.tag == VT_BOOL || o.tag == VT_FLOAT) {
    Val r = num_getattr(o, name);
    if (!val_is_undef(r)) return r;
  }
  if (rt_soft_miss) {
    rt_soft_missed = true;
    return val_none();
  }
  no_attribute(o, name);
}

void rt_setattr(Val o, const char *name, Val v) {
  if (o.tag == VT_OBJ && o.u.o->type->setattr) {
    o.u.o->type->setattr(o, name, v);
    return;
  }
  no_attribute(o, name);
}

/* del o.name: instances, exceptions, classes and functions keep attributes in a dict. */
void rt_delattr(Val o, const char *name) {
  Val *dict = NULL;
  if (val_is(o, &inst_type) || val_is(o, &exc_type)) {
    if (class_delattr_check(o, name)) return;
    dict = val_is(o, &inst_type) ? &((Inst *)o.u.o)->dict : &((Exc *)o.u.o)->dict;
  } else if (val_is(o, &type_type) && !val_is_undef(((TypeObj *)o.u.o)->dict)) {
    dict = &((TypeObj *)o.u.o)->dict;
  } else if (val_is(o, &func_type)) {
    dict = &((Func *)o.u.o)->dict;
  }
  if (dict && !val_is_undef(*dict)) {
    Val key = str_from_cstr(name);
    bool had = dict_del(*dict, key);
    val_decref(key);
    if (had) return;
  }
  no_attribute(o, name);
}

/* ---- items ----------------------------------------------------------------------------- */

Val rt_getitem(Val o, Val key) {
  if (o.tag == VT_OBJ && o.u.o->type->getitem) return o.u.o->type->getitem(o, key);
  rt_throw(ERR_TYPE, "'%s' object is not subscriptable", val_type_name(o));
}

void rt_setitem(Val o, Val key, Val v) {
  if (o.tag == VT_OBJ && o.u.o->type->setitem) {
    o.u.o->type->setitem(o, key, v);
    return;
  }
  rt_throw(ERR_TYPE, "'%s' object does not support item assignment", val_type_name(o));
}

void rt_delitem(Val o, Val key) {
  if (val_is(o, &list_type)) list_delitem(o, key);
  else if (val_is(o, &dict_type)) dict_delitem(o, key);
  else if (val_is(o, &bytearray_type)) bytearray_delitem(o, key);
  else if (!inst_delitem(o, key)) rt_throw(ERR_TYPE, "'%s' object doesn't support item deletion", val_type_name(o));
}

/* ---- calls ------------------------------------------------------------------------------ */

Val rt_call(Val f, int n, const Val *args, const Kw *kw) {
  if (f.tag == VT_OBJ && f.u.o->type->call) return f.u.o->type->call(f, n, args, kw);
  rt_throw(ERR_TYPE, "'%s' object is not callable", val_type_name(f));
}

/* A short name for f in "f() argument after * ..." messages. */
static void call_what(StrBuf *b, Val f) {
  if (val_is(f, &func_type)) {
    /* CPython names a function by module and name here: __main__.f() */
    const FuncInfo *info = ((Func *)f.u.o)->info;
    const char *mod = module_name(info->module);
    if (mod) sb_printf(b, "%s.", mod);
    sb_printf(b, "%s()", info->name);
  }
  else if (val_is(f, &builtin_type)) {
    const char *nm = ((Builtin *)f.u.o)->name;
    const char *dot = strrchr(nm, '.');
    sb_printf(b, "%s()", dot ? dot + 1 : nm);
  } else sb_printf(b, "%s object", val_type_name(f));
}

/* TypeError "<callee> <message>", the callee named as CPython names it. */
static _Noreturn void call_fail(Val f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void call_fail(Val f, const char *fmt, ...) {
  StrBuf b;
  sb_init(&b);
  call_what(&b, f);
  sb_putc(&b, ' ');
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&b, fmt, ap);
  va_end(ap);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", b.data);
  sb_free(&b);
  /* errindex: - (passes on a message indexed where it is made) */
  rt_throw(ERR_TYPE, "%s", msg);
}

static _Noreturn void star_not_iterable(Val f, Val args) {
  call_fail(f, "argument after * must be an iterable, not %s", val_type_name(args));
}

/* f(a, *it, ...): the positional arguments gathered in `list`. */
void rt_star_extend(Val f, Val list, Val it) {
  if (it.tag != VT_OBJ || !it.u.o->type->iter) star_not_iterable(f, it);
  list_extend(list, it);
}

Val rt_call_star(Val f, Val args, Val kwargs) {
  Val pos;   /* owned; released if the call raises */
  if (val_is_undef(args) || args.tag == VT_NONE) pos = tuple_new(0);
  else if (val_is(args, &tuple_type) || val_is(args, &list_type)) pos = val_incref(args);
  else if (args.tag == VT_OBJ && args.u.o->type->iter) pos = list_from_iterable(args);
  else star_not_iterable(f, args);
  tfs_i64 n;
  const Val *items;
  seq_items(pos, &n, &items);
  int mark = rt_hold_val(pos);
  Val r;
  if (val_is_undef(kwargs) || kwargs.tag == VT_NONE) {
    r = rt_call(f, (int)n, items, NULL);
  } else {
    kwargs = inst_base(kwargs);   /* a dict subclass */
    if (!val_is(kwargs, &dict_type)) {
      rt_unhold(mark);
      val_decref(pos);
      call_fail(f, "argument after ** must be a mapping, not %s", val_type_name(kwargs));
    }
    Dict *d = (Dict *)kwargs.u.o;
    int nk = 0;
    const char *names[d->len + 1];   /* on the stack: nothing to free if the call raises */
    Val vals[d->len + 1];
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      if (!val_is(d->keys[i], &str_type)) rt_throw(ERR_TYPE, "keywords must be strings");
      names[nk] = str_cstr(d->keys[i]);
      vals[nk++] = d->vals[i];
    }
    Kw kw = {nk, names, vals};
    r = rt_call(f, (int)n, items, &kw);
  }
  rt_unhold(mark);
  val_decref(pos);
  return r;
}

/* f(k=v, **m): add keyword k (a str) to the call's keyword dict d, or merge
 * the mapping m into it; a name given twice is Python's TypeError. */
static void kw_add(Val f, Val d, Val key, Val v) {
  if (!val_is(key, &str_type)) rt_throw(ERR_TYPE, "keywords must be strings");
  Val old = dict_get(d, key);
  if (!val_is_undef(old)) {
    val_decref(old);
    call_fail(f, "got multiple values for keyword argument '%s'", str_cstr(key));
  }
  dict_set(d, key, v);
}

void rt_kw_set(Val f, Val d, Val key, Val v) { kw_add(f, d, key, v); }

void rt_kw_merge(Val f, Val d, Val m) {
  m = inst_base(m);   /* a dict subclass */
  if (!val_is(m, &dict_type)) call_fail(f, "argument after ** must be a mapping, not %s", val_type_name(m));
  Dict *md = (Dict *)m.u.o;
  for (tfs_i64 i = 0; i < md->used; i++)
    if (!val_is_undef(md->keys[i])) kw_add(f, d, md->keys[i], md->vals[i]);
}

/* ---- iteration and unpacking ---------------------------------------------------------------- */

Val rt_iter(Val o) {
  if (o.tag == VT_OBJ && o.u.o->type->iter) return o.u.o->type->iter(o);
  rt_throw(ERR_TYPE, "'%s' object is not iterable", val_type_name(o));
}

int rt_next(Val it, Val *out) {
  RT_CHECK_INTERRUPT();   /* each for-loop step is a safe point */
  if (it.tag == VT_OBJ && it.u.o->type->next) return it.u.o->type->next(it, out) ? 1 : 0;
  rt_throw(ERR_TYPE, "'%s' object is not an iterator", val_type_name(it));
}

/* a, *rest, z = v: out[before] is a list of what the other targets leave, as CPython. */
void rt_unpack_star(Val v, int before, int after, Val *out) {
  tfs_i64 len;
  const Val *items;
  Val held = val_undef();
  if (!seq_items(v, &len, &items)) {
    if (v.tag != VT_OBJ || !v.u.o->type->iter)
      rt_throw(ERR_TYPE, "cannot unpack non-iterable %s object", val_type_name(v));
    held = list_from_iterable(v);
    seq_items(held, &len, &items);
  }
  if (len < before + after) {
    val_decref(held);
    rt_throw(ERR_VALUE, "not enough values to unpack (expected at least %d, got %lld)", before + after, (long long)len);
  }
  for (int i = 0; i < before; i++) out[i] = val_incref(items[i]);
  tfs_i64 mid = len - before - after;
  Val l = list_new(mid);
  for (tfs_i64 i = 0; i < mid; i++) list_append(l, items[before + i]);
  out[before] = l;
  for (int j = 0; j < after; j++) out[before + 1 + j] = val_incref(items[len - after + j]);
  val_decref(held);
}

void rt_unpack(Val v, int n, Val *out) {
  tfs_i64 len;
  const Val *items;
  if (seq_items(v, &len, &items)) {
    if (len < n) rt_throw(ERR_VALUE, "not enough values to unpack (expected %d, got %lld)", n, (long long)len);
    if (len > n) rt_throw(ERR_VALUE, "too many values to unpack (expected %d)", n);
    for (int i = 0; i < n; i++) out[i] = val_incref(items[i]);
    return;
  }
  if (v.tag != VT_OBJ || !v.u.o->type->iter)
    rt_throw(ERR_TYPE, "cannot unpack non-iterable %s object", val_type_name(v));
  Val it = rt_iter(v);
  int got = 0, mark = rt_hold_val(it);
  for (; got < n; got++) {
    if (!rt_next(it, &out[got])) {
      for (int i = 0; i < got; i++) val_decref(out[i]);
      rt_unhold(mark);
      val_decref(it);
      rt_throw(ERR_VALUE, "not enough values to unpack (expected %d, got %d)", n, got);
    }
  }
  Val extra;
  bool more = rt_next(it, &extra);
  rt_unhold(mark);
  val_decref(it);
  if (more) {
    val_decref(extra);
    for (int i = 0; i < n; i++) val_decref(out[i]);
    rt_throw(ERR_VALUE, "too many values to unpack (expected %d)", n);
  }
}
