/* tffunction.c — tf.function: function objects, the trace cache keyed by call signature, concrete functions, TensorSpec. */
#include "function/tffunction.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/graphdump.h"
#include "graph/exec.h"
#include "modules/modules.h"
#include "object/object.h"
#include "graph/tape.h"
#include "tensor/tensor.h"
#include "modules/tfdata.h"
#include "modules/tfmod.h"
#include "modules/tfoperation.h"
#include "graph/trace.h"

/* ---- TensorSpec ------------------------------------------------------------------------ */

static void tffn_spec_free(Obj *o) {
  val_decref(((TensorSpecObj *)o)->name);
  free(o);
}

static void tffn_spec_repr(StrBuf *b, Val v) {
  const TensorSpecObj *s = (const TensorSpecObj *)v.u.o;
  sb_puts(b, "TensorSpec(shape=");
  if (s->rank < 0) sb_puts(b, "<unknown>");
  else graph_shape_text(b, s->rank, s->dims);
  sb_printf(b, ", dtype=tf.%s, name=", dtype_info[s->dtype].name);
  val_repr(b, s->name);
  sb_putc(b, ')');
}

static bool tffn_spec_eq(Val a, Val b) {
  if (!val_is(a, &tffn_spec_type) || !val_is(b, &tffn_spec_type)) return false;
  const TensorSpecObj *x = (const TensorSpecObj *)a.u.o, *y = (const TensorSpecObj *)b.u.o;
  if (x->rank != y->rank || x->dtype != y->dtype || !val_eq(x->name, y->name)) return false;
  for (int i = 0; i < x->rank; i++)
    if (x->dims[i] != y->dims[i]) return false;
  return true;
}

static tfs_u64 tffn_spec_hash(Val v) {
  const TensorSpecObj *s = (const TensorSpecObj *)v.u.o;
  tfs_u64 h = (tfs_u64)s->dtype * 31 + (tfs_u64)(s->rank + 1);
  for (int i = 0; i < s->rank; i++) h = h * 1000003 + (tfs_u64)s->dims[i];
  return h;
}

static Val tffn_spec_compare(int op, Val a, Val b) {
  if (op != CMP_EQ && op != CMP_NE) return val_undef();
  bool eq = tffn_spec_eq(a, b);
  return val_bool(op == CMP_EQ ? eq : !eq);
}

/* spec.is_compatible_with(tensor or spec) */
static bool tffn_spec_accepts(const TensorSpecObj *s, int dtype, int rank, const tfs_i64 *dims) {
  if (dtype != s->dtype) return false;
  if (s->rank < 0) return true;
  if (rank != s->rank) return false;
  for (int i = 0; i < rank; i++)
    if (s->dims[i] >= 0 && dims[i] != s->dims[i]) return false;
  return true;
}

//! TensorSpec.is_compatible_with(spec_or_tensor)
//!   True when the dtypes match and every known dimension agrees.
static Val tffn_spec_compatible_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorSpec.is_compatible_with", .sig = "spec_or_tensor"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  const TensorSpecObj *s = (const TensorSpecObj *)self.u.o;
  if (val_is(a[0], &tffn_spec_type)) {
    const TensorSpecObj *o = (const TensorSpecObj *)a[0].u.o;
    if (o->rank < 0) return val_bool(s->rank < 0 && o->dtype == s->dtype);
    return val_bool(tffn_spec_accepts(s, o->dtype, o->rank, o->dims));
  }
  Tensor *t = val_as_tensor(a[0]);
  if (!t) return val_bool(false);
  return val_bool(tffn_spec_accepts(s, t->dtype, t->rank, t->shape));
}

static Val tffn_spec_getattr(Val self, const char *name) {
  const TensorSpecObj *s = (const TensorSpecObj *)self.u.o;
  if (!strcmp(name, "shape")) return tshape_new(s->rank, s->dims);
  if (!strcmp(name, "dtype")) return dtype_val((DType)s->dtype);
  if (!strcmp(name, "name")) return val_incref(s->name);
  if (!strcmp(name, "is_compatible_with"))
    return builtin_new("TensorSpec.is_compatible_with", tffn_spec_compatible_m, self, NULL);
  return val_undef();
}

const Type tffn_spec_type = {
  .name = "TensorSpec", .free = tffn_spec_free, .repr = tffn_spec_repr, .getattr = tffn_spec_getattr,
  .compare = tffn_spec_compare, .eq = tffn_spec_eq, .hash = tffn_spec_hash,
};

Val tffn_spec_new(int rank, const tfs_i64 *dims, int dtype, Val name) {
  TensorSpecObj *s = obj_new(&tffn_spec_type, sizeof(TensorSpecObj));
  s->rank = rank;
  for (int i = 0; i < rank; i++) s->dims[i] = dims[i] < 0 ? -1 : dims[i];
  s->dtype = dtype;
  s->name = val_incref(name);
  return val_obj(s);
}

//! tf.TensorSpec(shape, dtype=float32, name=None)
//!   Describes a tensor argument of a tf.function (shape with None for any size, and dtype): used in input_signature
//!   and get_concrete_function.
static Val tffn_tensorspec(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.TensorSpec", .sig = "shape, dtype=float32, name=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  if (a[0].tag == VT_INT) {
    rank = 1;
    dims[0] = a[0].u.i;
  } else if (!val_as_tshape(a[0], &rank, dims)) {
    rt_throw(ERR_TYPE, "tf.TensorSpec: shape must be a list of dimensions (int or None), a TensorShape or None, got %s",
             val_type_name(a[0]));
  }
  DType dt;
  if (!val_as_dtype(a[1], &dt)) rt_throw(ERR_TYPE, "tf.TensorSpec: dtype must be a tf.DType, got %s", val_type_name(a[1]));
  if (a[2].tag != VT_NONE && !val_is(a[2], &str_type))
    rt_throw(ERR_TYPE, "tf.TensorSpec: name must be a string or None, got %s", val_type_name(a[2]));
  return tffn_spec_new(rank, dims, dt, a[2]);
}

/* ---- signature keys ----------------------------------------------------------------------
 * A call's signature is serialized into bytes: equal bytes = same trace.  Atoms:
 *   'T' dtype rank dims...    tensor (rank 0xFF unknown; dims -1 unknown: relaxed)
 *   'N' None  'b' bool  'i' int  'f' float  's' len bytes  'O' ptr type serial (an instance's, else 0)
 *   'V' dtype rank dims... trainable alias   a Variable: TF's VariableSpec (dtype, shape,
 *                             trainable, and its alias id: the index of its first appearance in the call)
 *   'L'/'U'/'D' count items   list / tuple / dict (key, value pairs)
 *   'S' len bytes             a dataset (TF's DatasetSpec): its element_spec's key; one int64 leaf, the handle
 *   'I' len bytes             an iterator, iter(ds) (TF's IteratorSpec): the same, the handle naming the iterator
 *   'C' class 'U' n specs...  a composite tensor (TF's TypeSpec, a .tfs class: tf.RaggedTensorSpec): the spec's
 *                             class, then its component specs' tensor atoms, one leaf each
 * Host objects without value semantics are keyed by identity; the concrete
 * function keeps them alive through its argument template. */

typedef struct KeyBuf {
  unsigned char *p;
  size_t len, cap;
  unsigned char inl[192];
} KeyBuf;

static void kb_init(KeyBuf *k) {
  k->inl[0] = 0;
  k->p = k->inl;
  k->len = 0;
  k->cap = sizeof k->inl;
}

static void kb_free(KeyBuf *k) {
  if (k->p != k->inl) free(k->p);
}

static void kb_put(KeyBuf *k, const void *d, size_t n) {
  if (k->len + n > k->cap) {
    size_t cap = k->cap * 2;
    while (cap < k->len + n) cap *= 2;
    unsigned char *p = k->p == k->inl ? malloc(cap) : realloc(k->p, cap);
    if (!p) rt_throw(ERR_MEMORY, "out of memory");
    if (k->p == k->inl) memcpy(p, k->inl, k->len);
    k->p = p;
    k->cap = cap;
  }
  memcpy(k->p + k->len, d, n);
  k->len += n;
}

static inline void kb_byte(KeyBuf *k, unsigned char c) {
  if (k->len < k->cap) k->p[k->len++] = c;
  else kb_put(k, &c, 1);
}

static inline void kb_i64(KeyBuf *k, tfs_i64 v) { kb_put(k, &v, sizeof v); }

/* Tensor leaves of a call: the tensors (NULL for a TensorSpec leaf); and its
 * Variable arguments, each once, in order of first appearance (TF's alias ids). */
typedef struct Leaves {
  Tensor **t;
  int n, cap;
  Tensor *inl[16];
  Variable **v;
  int nv, capv;
  Variable *vinl[8];
} Leaves;

static void lv_init(Leaves *lv) {
  lv->t = lv->inl;
  lv->n = 0;
  lv->cap = 16;
  lv->v = lv->vinl;
  lv->nv = 0;
  lv->capv = 8;
}

static void lv_free(Leaves *lv) {
  if (lv->t != lv->inl) free(lv->t);
  if (lv->v != lv->vinl) free(lv->v);
}

/* The alias id of Variable var in the call (its index among the call's Variables). */
static int lv_alias(Leaves *lv, Variable *var) {
  for (int i = 0; i < lv->nv; i++)
    if (lv->v[i] == var) return i;
  if (lv->nv == lv->capv) {
    int cap = lv->capv * 2;
    Variable **p = lv->v == lv->vinl ? malloc(sizeof(Variable *) * (size_t)cap) : realloc(lv->v, sizeof(Variable *) * (size_t)cap);
    if (!p) rt_throw(ERR_MEMORY, "out of memory");
    if (lv->v == lv->vinl) memcpy(p, lv->vinl, sizeof lv->vinl);
    lv->v = p;
    lv->capv = cap;
  }
  lv->v[lv->nv] = var;
  return lv->nv++;
}

/* Room for cap tensor leaves (a repeated call knows its count from the last trace). */
static void lv_reserve(Leaves *lv, int cap) {
  Tensor **p = lv->t == lv->inl ? malloc(sizeof(Tensor *) * (size_t)cap) : realloc(lv->t, sizeof(Tensor *) * (size_t)cap);
  if (!p) rt_throw(ERR_MEMORY, "out of memory");
  if (lv->t == lv->inl) memcpy(p, lv->inl, sizeof(Tensor *) * (size_t)lv->n);
  lv->t = p;
  lv->cap = cap;
}

static void lv_push(Leaves *lv, Tensor *t) {
  if (lv->n == lv->cap) lv_reserve(lv, lv->cap * 2);
  lv->t[lv->n++] = t;
}

static void key_tensor(KeyBuf *k, int dtype, int rank, const tfs_i64 *dims) {
  kb_byte(k, 'T');
  kb_byte(k, (unsigned char)dtype);
  kb_byte(k, rank < 0 ? 0xFF : (unsigned char)rank);
  if (rank > 0) kb_put(k, dims, sizeof(tfs_i64) * (size_t)rank);
}

enum { KEY_SPECS = 1, KEY_SYMBOLIC = 2 };   /* key_arg flags: TensorSpec leaves; symbolic tensors (by meta) */

static void key_arg(KeyBuf *k, Val v, Leaves *lv, int flags);

/* A dataset argument is traced by its element_spec alone, as TF's DatasetSpec; an iterator too (atom 'I'), as
 * TF's IteratorSpec, so every iterator of one element_spec runs the same graph. */
static void key_ds(KeyBuf *k, Val elem, unsigned char atom) {
  KeyBuf sub;
  Leaves dummy;
  kb_init(&sub);
  lv_init(&dummy);
  key_arg(&sub, elem, &dummy, KEY_SPECS);
  lv_free(&dummy);
  kb_byte(k, atom);
  kb_i64(k, (tfs_i64)sub.len);
  kb_put(k, sub.p, sub.len);
  kb_free(&sub);
}

static void key_dataset(KeyBuf *k, Val elem) { key_ds(k, elem, 'S'); }

/* The key of spec (a DatasetSpec or an IteratorSpec). */
static void key_dspec(KeyBuf *k, Val spec) { key_ds(k, tfdata_spec_element(spec), tfdata_spec_is_iter(spec) ? 'I' : 'S'); }

/* ---- composite tensors (TF's CompositeTensor and TypeSpec, written in .tfs: tf.RaggedTensor) ----
 * A value whose class has a `_type_spec` property is one; its spec (an instance with `_component_specs`,
 * `_to_components(value)` and `_from_components(list)`) says what tf.function keys, feeds as placeholders
 * and returns: its component tensors, as TF's nest does with expand_composites. */
static bool inst_has(Val v, const char *name) {
  if (!val_is(v, &inst_type)) return false;
  Val f = class_find(((Inst *)v.u.o)->klass, name);
  if (val_is_undef(f)) return false;
  val_decref(f);
  return true;
}

static bool comp_is_value(Val v) { return inst_has(v, "_type_spec"); }
static bool comp_is_spec(Val v) { return inst_has(v, "_component_specs") && inst_has(v, "_from_components"); }

/* spec.name(args...) (owned). */
static Val comp_call(Val spec, const char *name, int n, const Val *args) {
  Val f = rt_getattr(spec, name);
  int mark = rt_hold_val(f);
  Val r = rt_call(f, n, args, NULL);
  rt_unhold(mark);
  val_decref(f);
  return r;
}

Val tffn_components(Val v) {
  if (!comp_is_value(v)) return val_undef();
  Val spec = rt_getattr(v, "_type_spec");
  int mark = rt_hold_val(spec);
  Val comps = comp_call(spec, "_to_components", 1, &v);
  rt_unhold(mark);
  val_decref(spec);
  return comps;
}

/* The items of a list the spec returned (borrowed from seq), checked. */
static void comp_items(Val seq, const char *what, tfs_i64 *n, const Val **items) {
  if (!seq_items(seq, n, items)) rt_throw(ERR_TYPE, "a TypeSpec's %s must be a list, got %s", what, val_type_name(seq));
}

/* A composite's key atom; its components' tensors (value given) or NULL leaves (a spec alone). */
static void key_composite(KeyBuf *k, Val spec, Val value, Leaves *lv, int flags) {
  Val cs = rt_getattr(spec, "_component_specs");
  int mark = rt_hold_val(cs);
  tfs_i64 n, nc = 0;
  const Val *items, *comps = NULL;
  comp_items(cs, "_component_specs", &n, &items);
  Val cv = val_undef();
  if (!val_is_undef(value)) {
    cv = comp_call(spec, "_to_components", 1, &value);
    rt_hold_val(cv);
    comp_items(cv, "_to_components", &nc, &comps);
    if (nc != n) rt_throw(ERR_VALUE, "a TypeSpec's _to_components gave %lld tensors for %lld component specs",
                          (long long)nc, (long long)n);
  }
  kb_byte(k, 'C');
  const void *cls = ((Inst *)spec.u.o)->klass;
  kb_put(k, &cls, sizeof cls);
  kb_byte(k, 'U');
  kb_i64(k, n);
  for (tfs_i64 i = 0; i < n; i++) {
    if (!val_is(items[i], &tffn_spec_type))
      rt_throw(ERR_TYPE, "a TypeSpec's %s must give %s, got %s", "_component_specs", "tf.TensorSpecs",
               val_type_name(items[i]));
    if (comps && val_is(comps[i], &variable_type)) {
      /* a Variable component (tf.random.Generator's state, TF's VariableSpec): keyed and fed as a Variable
       * argument is, by dtype, shape and aliasing; tffn_rebind runs the graph on the call's Variable */
      key_arg(k, comps[i], lv, flags);
      continue;
    }
    const TensorSpecObj *s = (const TensorSpecObj *)items[i].u.o;
    key_tensor(k, s->dtype, s->rank, s->dims);
    if (!comps) {
      lv_push(lv, NULL);
      continue;
    }
    if (!val_is(comps[i], &tensor_type))
      rt_throw(ERR_TYPE, "a TypeSpec's %s must give %s, got %s", "_to_components", "tensors", val_type_name(comps[i]));
    Tensor *t = val_tensor(comps[i]);   /* (held by the composite value itself) */
    if (t->sym && !(flags & KEY_SYMBOLIC))
      rt_throw(ERR_TYPE, "a symbolic tensor cannot be passed to a tf.function outside of tracing");
    lv_push(lv, t);
  }
  rt_unhold(mark);
  val_decref(cs);
  val_decref(cv);
}

/* An instance's serial (0 for other objects, which the argument template keeps alive): with the address it
 * names one object even after an earlier one at that address died, as TF's Weakref keys do. */
static tfs_u64 obj_serial(Val v) { return val_is(v, &inst_type) ? ((const Inst *)v.u.o)->serial : 0; }

/* Whether identity atom p ('O') names object v. */
static bool key_is_obj(const unsigned char *p, Val v) {
  if (*p != 'O' || v.tag != VT_OBJ) return false;
  const void *o = v.u.o;
  tfs_i64 serial = (tfs_i64)obj_serial(v);
  return !memcmp(p + 1, &o, sizeof o) && !memcmp(p + 1 + 2 * sizeof(void *), &serial, sizeof serial);
}

static void key_arg(KeyBuf *k, Val v, Leaves *lv, int flags) {
  switch (v.tag) {
    case VT_NONE: kb_byte(k, 'N'); return;
    case VT_BOOL: kb_byte(k, 'b'); kb_byte(k, (unsigned char)(v.u.i != 0)); return;
    case VT_INT: kb_byte(k, 'i'); kb_i64(k, v.u.i); return;
    case VT_FLOAT: {
      double f = v.u.f == 0 ? 0.0 : v.u.f;   /* -0.0 == 0.0 */
      kb_byte(k, 'f');
      kb_put(k, &f, sizeof f);
      return;
    }
    case VT_OBJ: break;
    default: kb_byte(k, '?'); return;
  }
  const Type *ty = v.u.o->type;
  if (ty == &tensor_type || val_is_ndarray(v)) {
    Tensor *t = val_as_tensor(v);
    if (t->sym && !(flags & KEY_SYMBOLIC))
      rt_throw(ERR_TYPE, "a symbolic tensor cannot be passed to a tf.function outside of tracing");
    key_tensor(k, t->dtype, t->rank, t->shape);
    lv_push(lv, t);
  } else if (ty == &str_type) {
    kb_byte(k, 's');
    kb_i64(k, str_len(v));
    kb_put(k, str_cstr(v), (size_t)str_len(v));
  } else if (ty == &list_type || ty == &tuple_type) {
    tfs_i64 n;
    const Val *items;
    seq_items(v, &n, &items);
    kb_byte(k, ty == &list_type ? 'L' : 'U');
    kb_i64(k, n);
    for (tfs_i64 i = 0; i < n; i++) key_arg(k, items[i], lv, flags);
  } else if (ty == &dict_type) {
    Dict *d = (Dict *)v.u.o;
    kb_byte(k, 'D');
    kb_i64(k, d->len);
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      key_arg(k, d->keys[i], lv, 0);
      key_arg(k, d->vals[i], lv, flags);
    }
  } else if (ty == &set_type) {
    /* TF: a set is neither weakly referable with a hash nor a hashable literal */
    StrBuf b;
    sb_init(&b);
    rt_hold_sb(&b);
    val_repr(&b, v);
    sb_putc(&b, '\0');
    rt_throw(ERR_TYPE,
             "Could not generate a generic TraceType for %s.Please verify that it is immutable/hashable. Otheriwse, "
             "consider implementing the Tracing Protocol for it.",
             b.data);
  } else if ((flags & KEY_SPECS) && ty == &tffn_spec_type) {
    const TensorSpecObj *s = (const TensorSpecObj *)v.u.o;
    key_tensor(k, s->dtype, s->rank, s->dims);
    lv_push(lv, NULL);
  } else if (tfdata_is_eiter(v)) {
    /* an eager iterator: its handle is the graph input, each run's next() reads the iterator itself */
    key_ds(k, tfdata_eiter_spec(v), 'I');
    lv_push(lv, tfdata_eiter_handle(v));
  } else if ((flags & KEY_SYMBOLIC) && tfdata_is_giter(v)) {
    /* an iterator of the trace passed on to a function it calls: the same handle */
    Val gds, gh;
    tfdata_giter_parts(v, &gds, &gh);
    key_ds(k, tfdata_element_spec(gds), 'I');
    lv_push(lv, val_tensor(gh));
  } else if (tfdata_is_dataset(v) && (!(flags & KEY_SYMBOLIC) || tfdata_is_arg(v))) {
    /* (a dataset captured while tracing and passed on keeps its identity: the inner graph holds it) */
    key_dataset(k, tfdata_element_spec(v));
    lv_push(lv, tfdata_handle(v));
  } else if ((flags & KEY_SPECS) && tfdata_is_spec(v)) {
    key_dspec(k, v);
    lv_push(lv, NULL);
  } else if (comp_is_value(v)) {
    Val spec = rt_getattr(v, "_type_spec");
    int mark = rt_hold_val(spec);
    key_composite(k, spec, v, lv, flags);
    rt_unhold(mark);
    val_decref(spec);
  } else if ((flags & KEY_SPECS) && comp_is_spec(v)) {
    key_composite(k, v, val_undef(), lv, flags);
  } else if (ty == &variable_type) {
    const Variable *var = variable_storage(v.u.o);   /* an _UnreadVariable aliases its parent, as TF's handle */
    const Tensor *t = var->value;
    kb_byte(k, 'V');
    kb_byte(k, (unsigned char)t->dtype);
    kb_byte(k, (unsigned char)t->rank);
    if (t->rank > 0) kb_put(k, t->shape, sizeof(tfs_i64) * (size_t)t->rank);
    kb_byte(k, ((const Variable *)v.u.o)->trainable ? 1 : 0);
    kb_i64(k, lv_alias(lv, (Variable *)var));
  } else {
    kb_byte(k, 'O');
    const void *o = v.u.o;
    kb_put(k, &o, sizeof o);
    kb_put(k, &ty, sizeof ty);
    kb_i64(k, (tfs_i64)obj_serial(v));
  }
}

static inline tfs_i64 key_i64(const unsigned char *p) {
  tfs_i64 v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The length of tensor t's key atom if the atom at p (not past the key's end) is it, else 0. */
static inline size_t key_match_tensor(const unsigned char *p, const Tensor *t) {
  if (t->sym || p[0] != 'T' || p[1] != (unsigned char)t->dtype) return 0;
  if (t->rank <= 0) return p[2] == (t->rank < 0 ? 0xFF : 0) ? 3 : 0;
  if (p[2] != (unsigned char)t->rank) return 0;
  for (int d = 0; d < t->rank; d++)
    if (key_i64(p + 3 + 8 * d) != t->shape[d]) return 0;
  return 3 + 8 * (size_t)t->rank;
}

/* Whether argument v (a call's, flags 0) writes exactly the key atom at *pp, which ends by e; advances *pp past
 * it and pushes v's leaves as key_arg does.  This is the repeated call's check against its last trace
 * without building a key (a tf.function taking 200 tensors paid ~200 instructions each for the key).  It
 * knows only tensors, host scalars, strings, lists, tuples and Variables: false for anything else (a dict,
 * whose key needs canonical order; a symbolic tensor, whose error key_arg raises) as at the first
 * difference, and the caller then builds the key as before. */
static bool key_match(const unsigned char **pp, const unsigned char *e, Val v, Leaves *lv) {
  const unsigned char *p = *pp;
  if (p >= e) return false;
  switch (v.tag) {
    case VT_NONE: *pp = p + 1; return *p == 'N';
    case VT_BOOL: *pp = p + 2; return p[0] == 'b' && p[1] == (v.u.i != 0);
    case VT_INT: *pp = p + 9; return p[0] == 'i' && key_i64(p + 1) == v.u.i;
    case VT_FLOAT: {
      double f = v.u.f == 0 ? 0.0 : v.u.f;   /* -0.0 == 0.0 */
      *pp = p + 9;
      return p[0] == 'f' && !memcmp(p + 1, &f, sizeof f);
    }
    case VT_OBJ: break;
    default: return false;
  }
  const Type *ty = v.u.o->type;
  if (ty == &tensor_type) {
    size_t len = key_match_tensor(p, val_tensor(v));
    if (!len) return false;
    *pp = p + len;
    lv_push(lv, val_tensor(v));
    return true;
  }
  if (ty == &list_type || ty == &tuple_type) {
    tfs_i64 n;
    const Val *items;
    seq_items(v, &n, &items);
    if (p[0] != (ty == &list_type ? 'L' : 'U') || key_i64(p + 1) != n) return false;
    p += 9;
    for (tfs_i64 i = 0; i < n; i++) {   /* a list of tensors (a model's weights) without a call per item */
      size_t len;
      if (val_is(items[i], &tensor_type) && p < e && (len = key_match_tensor(p, val_tensor(items[i])))) {
        p += len;
        lv_push(lv, val_tensor(items[i]));
        continue;
      }
      *pp = p;
      if (!key_match(pp, e, items[i], lv)) return false;
      p = *pp;
    }
    *pp = p;
    return true;
  }
  if (ty == &str_type) {
    tfs_i64 n = str_len(v);
    if (p[0] != 's' || key_i64(p + 1) != n || memcmp(p + 9, str_cstr(v), (size_t)n)) return false;
    *pp = p + 9 + n;
    return true;
  }
  if (ty == &variable_type) {
    Variable *var = variable_storage(v.u.o);
    const Tensor *t = var->value;
    if (p[0] != 'V' || p[1] != (unsigned char)t->dtype || p[2] != (unsigned char)t->rank) return false;
    size_t nd = t->rank > 0 ? sizeof(tfs_i64) * (size_t)t->rank : 0;
    if (nd && memcmp(p + 3, t->shape, nd)) return false;
    if (p[3 + nd] != (((const Variable *)v.u.o)->trainable ? 1 : 0)) return false;
    if (key_i64(p + 4 + nd) != lv_alias(lv, var)) return false;
    *pp = p + 12 + nd;
    return true;
  }
  return false;
}

/* Whether the nb bound arguments of a call match c's key (key_match); leaves in lv (reset when not). */
static bool key_match_args(const unsigned char *key, size_t keylen, int nb, const Val *bound, Leaves *lv) {
  const unsigned char *p = key, *e = key + keylen;
  for (int i = 0; i < nb; i++)
    if (!key_match(&p, e, bound[i], lv)) {
      lv->n = lv->nv = 0;
      return false;
    }
  if (p == e) return true;
  lv->n = lv->nv = 0;
  return false;
}

/* The end of the atom at p. */
static const unsigned char *key_skip(const unsigned char *p) {
  switch (*p++) {
    case 'T': {
      int rank = p[1] == 0xFF ? 0 : p[1];
      return p + 2 + 8 * (size_t)rank;
    }
    case 'N': return p;
    case 'b': return p + 1;
    case 'i': case 'f': return p + 8;
    case 's': case 'S': case 'I': return p + 8 + key_i64(p);
    case 'V': return p + 2 + 8 * (size_t)p[1] + 1 + 8;
    case 'O': return p + 2 * sizeof(void *) + 8;
    case 'C': return key_skip(p + sizeof(void *));
    case 'L': case 'U': {
      tfs_i64 n = key_i64(p);
      p += 8;
      for (tfs_i64 i = 0; i < n; i++) p = key_skip(p);
      return p;
    }
    case 'D': {
      tfs_i64 n = key_i64(p);
      p += 8;
      for (tfs_i64 i = 0; i < 2 * n; i++) p = key_skip(p);
      return p;
    }
    default: return p;
  }
}

/* Human text of one atom: float32[3], int32[], 2, 'a', [1, 2]. */
static const unsigned char *key_desc(StrBuf *b, const unsigned char *p) {
  const unsigned char *q = p + 1;
  switch (*p) {
    case 'T': {
      int rank = q[1] == 0xFF ? -1 : q[1];
      sb_printf(b, "%s[", dtype_info[q[0]].name);
      if (rank < 0) sb_puts(b, "...");
      for (int i = 0; i < rank; i++) {
        tfs_i64 d = key_i64(q + 2 + 8 * i);
        if (i) sb_putc(b, ',');
        if (d < 0) sb_puts(b, "None");
        else sb_printf(b, "%lld", (long long)d);
      }
      sb_putc(b, ']');
      break;
    }
    case 'N': sb_puts(b, "None"); break;
    case 'b': sb_puts(b, q[0] ? "True" : "False"); break;
    case 'i': sb_printf(b, "%lld", (long long)key_i64(q)); break;
    case 'f': {
      double f;
      memcpy(&f, q, sizeof f);
      val_repr(b, val_float(f));
      break;
    }
    case 's': str_repr_into(b, (const char *)q + 8, key_i64(q)); break;
    case 'S':
      sb_puts(b, "DatasetSpec(");
      key_desc(b, q + 8);
      sb_putc(b, ')');
      break;
    case 'I':
      sb_puts(b, "IteratorSpec(");
      key_desc(b, q + 8);
      sb_putc(b, ')');
      break;
    case 'V': {
      sb_printf(b, "<tf.Variable %s[", dtype_info[q[0]].name);
      for (int i = 0; i < q[1]; i++) {
        if (i) sb_putc(b, ',');
        sb_printf(b, "%lld", (long long)key_i64(q + 2 + 8 * i));
      }
      sb_puts(b, "]>");
      break;
    }
    case 'O': {
      const Type *ty;
      memcpy(&ty, q + sizeof(void *), sizeof ty);
      sb_printf(b, "<%s object>", ty->name);
      break;
    }
    case 'C': {
      const TypeObj *cls;
      memcpy(&cls, q, sizeof cls);
      sb_printf(b, "%s", cls->name);
      key_desc(b, q + sizeof cls);
      break;
    }
    case 'L': case 'U': case 'D': {
      tfs_i64 n = key_i64(q);
      const unsigned char *r = q + 8;
      sb_putc(b, *p == 'L' ? '[' : *p == 'U' ? '(' : '{');
      for (tfs_i64 i = 0; i < n; i++) {
        if (i) sb_puts(b, ", ");
        r = key_desc(b, r);
        if (*p == 'D') {
          sb_puts(b, ": ");
          r = key_desc(b, r);
        }
      }
      if (*p == 'U' && n == 1) sb_putc(b, ',');
      sb_putc(b, *p == 'L' ? ']' : *p == 'U' ? ')' : '}');
      break;
    }
    default: break;
  }
  return key_skip(p);
}

/* Does relaxed key c (dims -1, rank unknown) accept call key k? */
static bool key_accepts(const unsigned char *c, const unsigned char *k) {
  if (*c != *k) return false;
  switch (*c) {
    case 'T': {
      if (c[1] != k[1]) return false;
      if (c[2] == 0xFF) return true;
      if (c[2] != k[2]) return false;
      for (int i = 0; i < c[2]; i++) {
        tfs_i64 cd = key_i64(c + 3 + 8 * i), kd = key_i64(k + 3 + 8 * i);
        if (cd >= 0 && cd != kd) return false;
      }
      return true;
    }
    case 'C': return !memcmp(c, k, 1 + sizeof(void *)) && key_accepts(c + 1 + sizeof(void *), k + 1 + sizeof(void *));
    case 'L': case 'U': case 'D': {
      tfs_i64 n = key_i64(c + 1);
      if (n != key_i64(k + 1)) return false;
      if (*c == 'D') n *= 2;
      c += 9;
      k += 9;
      for (tfs_i64 i = 0; i < n; i++) {
        if (!key_accepts(c, k)) return false;
        c = key_skip(c);
        k = key_skip(k);
      }
      return true;
    }
    default: {
      const unsigned char *ce = key_skip(c), *ke = key_skip(k);
      return ce - c == ke - k && !memcmp(c, k, (size_t)(ce - c));
    }
  }
}

/* key_accepts over whole keys (one atom per bound argument): every atom must accept. */
static bool key_accepts_all(const unsigned char *c, size_t clen, const unsigned char *k, size_t klen) {
  const unsigned char *ce = c + clen, *ke = k + klen;
  while (c < ce && k < ke) {
    if (!key_accepts(c, k)) return false;
    c = key_skip(c);
    k = key_skip(k);
  }
  return c == ce && k == ke;
}

/* reduce_retracing: the most specific common supertype of atoms c and k (TF's
 * TraceType.most_specific_common_supertype): a tensor keeps its dtype, a dim
 * where they differ becomes unknown, a rank change gives an unknown rank;
 * containers relax item by item; anything else must be equal.  Appends to
 * out; false when they have no common supertype. */
static bool key_relax(const unsigned char *c, const unsigned char *k, KeyBuf *out) {
  if (*c != *k) return false;
  switch (*c) {
    case 'T': {
      if (c[1] != k[1]) return false;
      if (c[2] == 0xFF || k[2] == 0xFF || c[2] != k[2]) {
        unsigned char t[3] = {'T', c[1], 0xFF};
        kb_put(out, t, 3);
        return true;
      }
      int rank = c[2];
      kb_put(out, c, 3);
      for (int i = 0; i < rank; i++) {
        tfs_i64 cd = key_i64(c + 3 + 8 * i), kd = key_i64(k + 3 + 8 * i);
        kb_i64(out, cd == kd ? cd : -1);
      }
      return true;
    }
    case 'C':
      if (memcmp(c, k, 1 + sizeof(void *))) return false;
      kb_put(out, c, 1 + sizeof(void *));
      return key_relax(c + 1 + sizeof(void *), k + 1 + sizeof(void *), out);
    case 'L': case 'U': case 'D': {
      tfs_i64 n = key_i64(c + 1);
      if (n != key_i64(k + 1)) return false;
      kb_put(out, c, 9);
      if (*c == 'D') n *= 2;
      c += 9;
      k += 9;
      for (tfs_i64 i = 0; i < n; i++) {
        if (!key_relax(c, k, out)) return false;
        c = key_skip(c);
        k = key_skip(k);
      }
      return true;
    }
    default: {
      const unsigned char *ce = key_skip(c), *ke = key_skip(k);
      if (ce - c != ke - k || memcmp(c, k, (size_t)(ce - c))) return false;
      kb_put(out, c, (size_t)(ce - c));
      return true;
    }
  }
}

/* key_relax over whole keys (one atom per bound argument): false unless every atom relaxes. */
static bool key_relax_all(const unsigned char *c, size_t clen, const unsigned char *k, size_t klen, KeyBuf *out) {
  const unsigned char *ce = c + clen, *ke = k + klen;
  while (c < ce && k < ke) {
    if (!key_relax(c, k, out)) return false;
    c = key_skip(c);
    k = key_skip(k);
  }
  return c == ce && k == ke;
}

/* The metas of the tensor atoms of a key, in order. */
static void key_leaf_metas(const unsigned char *p, const unsigned char *end, TMeta *out, int *n) {
  while (p < end) {
    switch (*p) {
      case 'T': {
        TMeta *m = &out[(*n)++];
        m->dtype = (DType)p[1];
        m->rank = p[2] == 0xFF ? -1 : p[2];
        for (int i = 0; i < m->rank; i++) m->shape[i] = key_i64(p + 3 + 8 * i);
        p = key_skip(p);
        break;
      }
      case 'L': case 'U': case 'D': p += 9; break;   /* descend: items follow */
      case 'C': p += 1 + sizeof(void *); break;       /* a composite: its component specs follow */
      case 'S': case 'I': {                           /* a dataset or an iterator: its handle */
        TMeta *m = &out[(*n)++];
        m->dtype = DT_INT64;
        m->rank = 0;
        p = key_skip(p);
        break;
      }
      default: p = key_skip(p); break;
    }
  }
}

static tfs_u64 key_hash(const unsigned char *p, size_t n) {
  tfs_u64 h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

/* ---- canonical argument order -------------------------------------------------------------------
 * TF's trace types compare dicts (and so **kwargs) without regard to key
 * order, and its nest flattens them in sorted key order.  A call's arguments
 * get their dicts rebuilt in that order when they are not in it already, so
 * that keys, placeholders and leaves all follow one order. */

static int tffn_keycmp(Val a, Val b) {
  bool as = val_is(a, &str_type), bs = val_is(b, &str_type);
  if (as && bs) {
    tfs_i64 la = str_len(a), lb = str_len(b);
    int c = memcmp(str_cstr(a), str_cstr(b), (size_t)(la < lb ? la : lb));
    return c ? c : (la > lb) - (la < lb);
  }
  bool an = a.tag == VT_INT || a.tag == VT_FLOAT || a.tag == VT_BOOL;
  bool bn = b.tag == VT_INT || b.tag == VT_FLOAT || b.tag == VT_BOOL;
  if (an && bn) {
    double x = a.tag == VT_FLOAT ? a.u.f : (double)a.u.i, y = b.tag == VT_FLOAT ? b.u.f : (double)b.u.i;
    return (x > y) - (x < y);
  }
  return strcmp(val_type_name(a), val_type_name(b));
}

/* Whether v holds a dict whose keys are out of order (at any depth). */
static bool tffn_needs_canon(Val v) {
  tfs_i64 n;
  const Val *items;
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    seq_items(v, &n, &items);
    for (tfs_i64 i = 0; i < n; i++)
      if (tffn_needs_canon(items[i])) return true;
    return false;
  }
  if (!val_is(v, &dict_type)) return false;
  Dict *d = (Dict *)v.u.o;
  Val prev = val_undef();
  for (tfs_i64 i = 0; i < d->used; i++) {
    if (val_is_undef(d->keys[i])) continue;
    if (!val_is_undef(prev) && tffn_keycmp(prev, d->keys[i]) > 0) return true;
    if (tffn_needs_canon(d->vals[i])) return true;
    prev = d->keys[i];
  }
  return false;
}

static Dict *tffn_sort_dict;
static int tffn_idxcmp(const void *a, const void *b) {
  return tffn_keycmp(tffn_sort_dict->keys[*(const tfs_i64 *)a], tffn_sort_dict->keys[*(const tfs_i64 *)b]);
}

/* A new list (or tuple) of n elements elem(i, ctx) (owned each), for the structure rebuilds below; VT_UNDEF as soon
 * as an element is (the partial sequence dropped). */
static Val tffn_seq_rebuild(bool list, tfs_i64 n, Val (*elem)(tfs_i64 i, void *ctx), void *ctx) {
  Val r = list ? list_new(n) : tuple_new(n);
  int mark = rt_hold_val(r);
  for (tfs_i64 i = 0; i < n; i++) {
    Val e = elem(i, ctx);
    if (val_is_undef(e)) {
      rt_unhold(mark);
      val_decref(r);
      return e;
    }
    if (list) {
      list_append(r, e);
      val_decref(e);
    } else {
      ((Tuple *)r.u.o)->items[i] = e;
    }
  }
  rt_unhold(mark);
  return r;
}

static Val tffn_canon(Val v);
static Val tffn_canon_elem(tfs_i64 i, void *ctx) { return tffn_canon(((const Val *)ctx)[i]); }

/* v with its dicts in sorted key order (owned; v itself when already so). */
static Val tffn_canon(Val v) {
  if (!tffn_needs_canon(v)) return val_incref(v);
  tfs_i64 n;
  const Val *items;
  if (seq_items(v, &n, &items)) return tffn_seq_rebuild(val_is(v, &list_type), n, tffn_canon_elem, (void *)items);
  Dict *d = (Dict *)v.u.o;
  tfs_i64 *idx = malloc(sizeof(tfs_i64) * (size_t)(d->len + 1));
  if (!idx) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(idx);
  tfs_i64 k = 0;
  for (tfs_i64 i = 0; i < d->used; i++)
    if (!val_is_undef(d->keys[i])) idx[k++] = i;
  tffn_sort_dict = d;
  qsort(idx, (size_t)k, sizeof *idx, tffn_idxcmp);
  Val r = dict_new();
  rt_hold_val(r);
  for (tfs_i64 i = 0; i < k; i++) {
    Val e = tffn_canon(d->vals[idx[i]]);
    dict_set(r, d->keys[idx[i]], e);
    val_decref(e);
  }
  rt_unhold(mark);
  free(idx);
  return r;
}

/* The bound arguments in canonical order: NULL when they already are, else
 * an owned array (its count first: tffn_canon_release frees it). */
typedef struct CanonArgs { int n; Val v[]; } CanonArgs;

static void tffn_canon_release(void *p) {
  CanonArgs *ca = p;
  for (int i = 0; i < ca->n; i++) val_decref(ca->v[i]);
  free(ca);
}

static CanonArgs *tffn_canon_args(int nb, const Val *bound) {
  int i = 0;
  while (i < nb && !tffn_needs_canon(bound[i])) i++;
  if (i == nb) return NULL;
  CanonArgs *ca = malloc(sizeof(CanonArgs) + sizeof(Val) * (size_t)(nb + 1));
  if (!ca) rt_throw(ERR_MEMORY, "out of memory");
  ca->n = nb;
  for (int j = 0; j < nb; j++) ca->v[j] = val_incref(bound[j]);
  int mark = rt_hold_fn(tffn_canon_release, ca);
  for (; i < nb; i++) {
    Val e = tffn_canon(ca->v[i]);
    val_decref(ca->v[i]);
    ca->v[i] = e;
  }
  rt_unhold(mark);
  return ca;
}

/* ---- function objects and concrete functions ------------------------------------------------ */

typedef struct TfFunction TfFunction;

typedef struct Concrete {
  Obj hdr;
  Val fn;                     /* the Python function (owned), for calls while tracing */
  char *name;
  int nparams;
  char **params;              /* parameter names (owned copies) */
  Graph *g;
  ExecPlan *plan;
  unsigned char *key;
  size_t keylen;
  size_t *off;                /* nparams + 1 offsets of each argument in key */
  tfs_u64 hash;
  bool relaxed;               /* key has unknown dims: matched by key_accepts */
  int nleaves;
  TMeta *leafm;               /* the placeholders' metas, in leaf order */
  Val args_tmpl;              /* tuple: bound arguments, tensor leaves replaced by markers */
  Val out_tmpl;               /* result template; VT_UNDEF: the single output 0 */
  Val defaults;               /* tuple of the parameters' defaults (VT_UNDEF items: none) */
  Val vars;                   /* tuple of the trainable Variables the graph reads (VT_UNDEF: not collected yet) */
  Val caps;                   /* tuple of the float tensors it captures from outside (collected with vars) */
  /* Index w below: 1 for calls recorded while a tape tracks a captured
   * tensor (the entry's inputs end with caps), 0 for the others, whose
   * backward computes no gradient for captured tensors. */
  Val xs[2];                  /* the entry's inputs after the tensor leaves: vars, then (w 1) caps */
  Val bwd[2];                 /* the backward tf.function of calls recorded by a tape (VT_UNDEF: none yet) */
  struct FwdBwd *fb[2];       /* forward and backward graphs of recorded calls (NULL: none yet) */
  int fb_state[2];            /* 0: fb not tried yet, 1: built, -1: recorded calls use bwd */
  bool ext;                   /* fn is called with bound arguments (tffn_ext of its tf.function) */
  Val sig;                    /* the input_signature it was traced for (owned), or VT_UNDEF */
  int sig_self;               /* 1: the signature starts at parameter 1 (a method's self) */
  int scope;                  /* 0: traced with Variable creation allowed, 1: forbidden (TF's two tracing scopes) */
  int nvars;                  /* Variables its trace created */
  bool unliftable;            /* one of them is initialized from the inputs, by this graph */
  /* Variable arguments are keyed by dtype, shape and alias, not identity: the
   * trace reads argvars (in alias order); a call with other Variables runs a
   * copy of the graph that reads those (binds, made once per set of Variables). */
  Variable **argvars;         /* owned references */
  int nargvars;
  struct VarBind *binds;
  int nbinds;
  /* A tf.data function traced inside another trace (tffn_capture_outer): the enclosing trace's tensors it reads
   * are its last ncapt placeholders (TF's captured inputs); capt holds them as symbolic tensors of that trace
   * until the dataset takes them (tffn_conc_take_captures), VT_UNDEF after or without any. */
  int ncapt;
  Val capt;
  struct Tensor **runv;       /* a host dataset's function while a graph runs: that run's values of the ncapt captured
                               * tensors (owned references; NULL: none bound) */
} Concrete;

bool tffn_capture_outer;

typedef struct VarBind {
  Variable **vars;            /* owned references, nargvars of them */
  Concrete *c;                /* owned: the copy reading them */
} VarBind;

struct TfFunction {
  Obj hdr;
  Val fn;                     /* the Python function (owned) */
  char *name;
  Val sig;                    /* input_signature: tuple (owned) or VT_UNDEF */
  bool reduce_retracing;
  Val jit_compile;
  /* §8's Variable rules (TF's Function._call): 0 not called yet, 1 the first
   * call created no Variable (later traces may, and then fail), 2 it did
   * (later traces forbid creation, in their own cache scope) */
  int vstate;
  Concrete **conc;            /* in tracing order (owned references) */
  int nconc, capc;
  Concrete *last;             /* the concrete function of the previous call */
  int ntraces;
  bool has_relaxed;
  unsigned hist;              /* bit i: call i-back traced (most recent in bit 0) */
  int nhist;
  int nwarn;
  /* traces in progress (innermost last): a call with one of these keys from
   * inside the trace is a recursion that cannot end */
  const unsigned char *busy_key[8];
  size_t busy_len[8];
  int nbusy;
  /* signature of the previous call, for naming what changed */
  bool prev_is_last;          /* it equals last->key */
  KeyBuf prev;
  size_t *prevoff;
  int nprevoff;
};

static const Type tffn_type, tffn_conc_type;
static void tffn_fwdbwd_free(struct FwdBwd *fb);

static void tffn_conc_free(Obj *o) {
  Concrete *c = (Concrete *)o;
  val_decref(c->fn);
  free(c->name);
  for (int i = 0; i < c->nparams; i++) free(c->params[i]);
  free(c->params);
  exec_plan_free(c->plan);
  if (c->g && c->g->rc <= 1 + c->g->nsym)
    /* the last owner but its symbolic tensors: a custom gradient's grad_fn kept for tf.saved_model.save may hold
     * those tensors (its closure), a cycle through the graph that nothing could save or run any more */
    for (int i = 0; i < c->g->nnodes; i++)
      if ((c->g->nodes[i].flags & GNF_CUSTOM_GRAD) && !val_is_undef(c->g->nodes[i].aux)) {
        Val aux = c->g->nodes[i].aux;
        c->g->nodes[i].aux = val_undef();
        val_decref(aux);
      }
  graph_release(c->g);
  free(c->key);
  free(c->off);
  free(c->leafm);
  val_decref(c->args_tmpl);
  val_decref(c->out_tmpl);
  val_decref(c->defaults);
  val_decref(c->vars);
  val_decref(c->caps);
  val_decref(c->capt);
  tffn_conc_run_captures(val_obj(c), NULL);
  val_decref(c->sig);
  for (int w = 0; w < 2; w++) {
    val_decref(c->xs[w]);
    val_decref(c->bwd[w]);
    tffn_fwdbwd_free(c->fb[w]);
  }
  for (int i = 0; i < c->nargvars; i++) val_decref(val_obj(c->argvars[i]));
  free(c->argvars);
  for (int b = 0; b < c->nbinds; b++) {
    for (int i = 0; i < c->nargvars; i++) val_decref(val_obj(c->binds[b].vars[i]));
    free(c->binds[b].vars);
    val_decref(val_obj(c->binds[b].c));
  }
  free(c->binds);
  free(c);
}

enum { TFFN_MAX_BINDS = 8 };

/* A new concrete function with c's signature and templates calling fn; its graph, plan and Variable arguments are
 * the caller's to set (owned). */
static Concrete *tffn_conc_clone(const Concrete *c, Val fn) {
  Concrete *d = obj_new(&tffn_conc_type, sizeof(Concrete));
  memset((char *)d + sizeof(Obj), 0, sizeof(Concrete) - sizeof(Obj));
  int mark = rt_hold_val(val_obj(d));
  d->fn = val_incref(fn);
  d->args_tmpl = val_incref(c->args_tmpl);
  d->out_tmpl = val_incref(c->out_tmpl);
  d->defaults = val_incref(c->defaults);
  d->vars = d->caps = d->capt = d->sig = val_undef();
  for (int w = 0; w < 2; w++) d->xs[w] = d->bwd[w] = val_undef();
  d->ext = c->ext;
  d->scope = c->scope;
  d->relaxed = c->relaxed;
  d->hash = c->hash;
  d->name = strdup(c->name);
  d->params = calloc((size_t)c->nparams + 1, sizeof(char *));
  d->key = malloc(c->keylen + 1);
  d->off = malloc(sizeof(size_t) * (size_t)(c->nparams + 1));
  d->leafm = malloc(sizeof(TMeta) * (size_t)(c->nleaves + 1));
  if (!d->name || !d->params || !d->key || !d->off || !d->leafm) rt_throw(ERR_MEMORY, "out of memory");
  d->nparams = c->nparams;
  for (int i = 0; i < c->nparams; i++)
    if (!(d->params[i] = strdup(c->params[i]))) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(d->key, c->key, c->keylen);
  d->keylen = c->keylen;
  memcpy(d->off, c->off, sizeof(size_t) * (size_t)(c->nparams + 1));
  d->nleaves = c->nleaves;
  memcpy(d->leafm, c->leafm, sizeof(TMeta) * (size_t)c->nleaves);
  rt_unhold(mark);
  return d;
}

/* c for a call whose Variable arguments are vars (alias order): c itself when
 * they are the ones it was traced with, else its copy reading them (made on
 * first use, without tracing again, as TF feeds Variables to one graph). */
static Concrete *tffn_rebind(Concrete *c, Variable *const *vars, int nv) {
  if (nv != c->nargvars || !nv || !memcmp(vars, c->argvars, sizeof(Variable *) * (size_t)nv)) return c;
  for (int b = 0; b < c->nbinds; b++)
    if (!memcmp(vars, c->binds[b].vars, sizeof(Variable *) * (size_t)nv)) return c->binds[b].c;
  Concrete *d = tffn_conc_clone(c, c->fn);
  int mark = rt_hold_val(val_obj(d));
  d->argvars = malloc(sizeof(Variable *) * (size_t)nv);
  if (!d->argvars) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nv; i++) {
    d->argvars[i] = vars[i];
    vars[i]->hdr.rc++;
    d->nargvars = i + 1;
  }
  d->g = graph_clone_vars(c->g, NULL, nv, c->argvars, vars);
  d->plan = exec_plan_new(d->g);
  if (c->nbinds == TFFN_MAX_BINDS) {   /* forget the oldest copy */
    for (int i = 0; i < nv; i++) val_decref(val_obj(c->binds[0].vars[i]));
    free(c->binds[0].vars);
    val_decref(val_obj(c->binds[0].c));
    memmove(c->binds, c->binds + 1, sizeof(VarBind) * (size_t)(--c->nbinds));
  }
  if (!c->binds) {
    c->binds = malloc(sizeof(VarBind) * TFFN_MAX_BINDS);
    if (!c->binds) rt_throw(ERR_MEMORY, "out of memory");
  }
  VarBind *vb = &c->binds[c->nbinds];
  vb->vars = malloc(sizeof(Variable *) * (size_t)nv);
  if (!vb->vars) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nv; i++) {
    vb->vars[i] = vars[i];
    vars[i]->hdr.rc++;
  }
  vb->c = d;   /* the bind's reference (the one obj_new gave) */
  c->nbinds++;
  rt_unhold(mark);
  return d;
}

static void tffn_free(Obj *o) {
  TfFunction *f = (TfFunction *)o;
  val_decref(f->fn);
  free(f->name);
  val_decref(f->sig);
  val_decref(f->jit_compile);
  for (int i = 0; i < f->nconc; i++) val_decref(val_obj(f->conc[i]));
  free(f->conc);
  if (f->prev.p && f->prev.p != f->prev.inl) free(f->prev.p);
  free(f->prevoff);
  free(f);
}

/* The marker that ends the bound arguments of a built-in callable called
 * with keyword arguments (the item before it is their dict). */
static Val tffn_kw_marker(void) {
  static Val m = {VT_UNDEF, {0}};
  if (val_is_undef(m)) m = str_from_cstr("**kwargs");   /* (immortal) */
  return m;
}

static bool tffn_kw_bound(int nb, const Val *bound) {
  return nb >= 2 && bound[nb - 1].tag == VT_OBJ && bound[nb - 1].u.o == tffn_kw_marker().u.o &&
         val_is(bound[nb - 2], &dict_type);
}

static bool tffn_ext(const struct TfFunction *f);

/* The index of the wrapped function's *args parameter among its bound values, or -1. */
static int tffn_varargs_index(const struct TfFunction *f);

/* Call the wrapped function with its bound arguments. */
static Val tffn_invoke(const struct TfFunction *f, int nb, const Val *bound);

/* Whether the wrapped function has *args, keyword-only or positional-only parameters or **kwargs. */
static bool tffn_ext(const struct TfFunction *f) {
  if (!val_is(f->fn, &func_type)) return false;
  const FuncInfo *info = ((Func *)f->fn.u.o)->info;
  return info->nkwonly || info->varargs || info->varkw || info->nposonly;
}

static int tffn_varargs_index(const struct TfFunction *f) {
  if (!val_is(f->fn, &func_type)) return -1;
  const FuncInfo *info = ((Func *)f->fn.u.o)->info;
  return info->varargs ? info->nparams - info->nkwonly - 1 - info->varkw : -1;
}

/* The **kwargs parameter's index (the last), or -1. */
static int tffn_varkw_index(const struct TfFunction *f) {
  if (!val_is(f->fn, &func_type)) return -1;
  const FuncInfo *info = ((Func *)f->fn.u.o)->info;
  return info->varkw ? info->nparams - 1 : -1;
}

static Val tffn_invoke(const struct TfFunction *f, int nb, const Val *bound) {
  if (tffn_ext(f)) return func_call_bound(f->fn, (Val *)bound);
  if (!tffn_kw_bound(nb, bound)) return rt_call(f->fn, nb, bound, NULL);
  Dict *d = (Dict *)bound[nb - 2].u.o;
  const char **names = malloc(sizeof(char *) * (size_t)(d->len + 1));
  Val *vals = malloc(sizeof(Val) * (size_t)(d->len + 1));
  if (!names || !vals) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(names);
  rt_hold_mem(vals);
  int k = 0;
  for (tfs_i64 i = 0; i < d->used; i++) {
    if (val_is_undef(d->keys[i])) continue;
    names[k] = str_cstr(d->keys[i]);
    vals[k++] = d->vals[i];
  }
  Kw kw = {k, names, vals};
  Val r = rt_call(f->fn, nb - 2, bound, &kw);
  rt_unhold(mark);
  free(names);
  free(vals);
  return r;
}

/* Parameters of the wrapped callable: a compiled function's, else positional. */
static int tffn_params(Val fn, const char *const **params) {
  if (val_is(fn, &func_type)) {
    const FuncInfo *info = ((Func *)fn.u.o)->info;
    *params = info->params;
    return info->nparams;
  }
  *params = NULL;
  return -1;
}

/* A method's input_signature leaves out `self`, as TF's FunctionSpec does for
 * methods: 1 when the function has a signature and its first parameter is
 * `self`.  Its one concrete function is then per instance (self is keyed by
 * identity), so the graph captures that instance's Variables. */
/* Whether c was traced with `self` as its first argument (instances are keyed by identity, not kept). */
static bool tffn_conc_self(const Concrete *c, Val self) {
  return c->nparams > 0 && c->keylen >= c->off[0] + 1 + 2 * sizeof(void *) + 8 && key_is_obj(c->key + c->off[0], self);
}

static int tffn_self(const TfFunction *f) {
  const char *const *params;
  int np = tffn_params(f->fn, &params);
  return !val_is_undef(f->sig) && np > 0 && !strcmp(params[0], "self") ? 1 : 0;
}

/* ---- tracing ------------------------------------------------------------------------------------- */

/* Replace the tensor leaves of v by placeholders (in leaf order); the
 * template gets markers for them. */
/* Every leaf of a traced function's result becomes a tensor, as in TF's
 * function graphs: host numbers, bools and strings become constants; lists,
 * tuples and dicts keep their structure; None stays None. */
static Val tffn_result_leaf(void *ctx, Val v) {
  if (val_is(v, &list_type) || val_is(v, &tuple_type) || val_is(v, &dict_type))
    return nest_map(v, tffn_result_leaf, ctx);
  if (v.tag == VT_NONE || val_is(v, &tensor_type) || val_is(v, &variable_type) || val_is_ndarray(v))
    return val_incref(v);
  if (comp_is_value(v)) {   /* a composite: its components, rebuilt by its spec from the outputs (nest_unflatten) */
    Val spec = rt_getattr(v, "_type_spec");
    int mark = rt_hold_val(spec);
    Val comps = comp_call(spec, "_to_components", 1, &v);
    rt_hold_val(comps);
    tfs_i64 n;
    const Val *items;
    comp_items(comps, "_to_components", &n, &items);
    Val t = tuple_new(n);
    for (tfs_i64 i = 0; i < n; i++) ((Tuple *)t.u.o)->items[i] = val_incref(items[i]);
    Val r = nest_packed(spec, t);
    rt_unhold(mark);
    val_decref(t);
    val_decref(comps);
    val_decref(spec);
    return r;
  }
  if (v.tag == VT_BOOL || v.tag == VT_INT || v.tag == VT_FLOAT || val_is(v, &str_type))
    return val_obj(tensor_from_val(v, -1));
  rt_throw(ERR_TYPE,
           "To be compatible with tf.function, Python functions must return zero or more Tensors or ExtensionTypes or "
           "None values; in compilation of <function %s>, found return value of type <class '%s'>, which is not a "
           "Tensor or ExtensionType.",
           (const char *)ctx, val_type_name(v));
}

static Val tffn_result_tensors(Val v, const char *fname) { return tffn_result_leaf((void *)fname, v); }

static Val tffn_build_arg(Graph *g, Val v, const char *pname, const TMeta *leafm, int *leaf, Val *tmpl) {
  Val gds, gh;
  bool giter = tfdata_giter_parts(v, &gds, &gh);
  if (tfdata_is_eiter(v) || giter || (tfdata_is_spec(v) && tfdata_spec_is_iter(v))) {
    /* an iterator: the trace's next() and loops are graph ops on the handle placeholder, as TF's OwnedIterator
     * rebuilt from its resource component */
    Val elem = tfdata_is_spec(v) ? tfdata_spec_element(v) : giter ? tfdata_element_spec(gds) : tfdata_eiter_spec(v);
    Val ph = trace_placeholder(g, pname, &leafm[*leaf]);
    (*leaf)++;
    *tmpl = tfdata_is_spec(v) ? val_incref(v) : tfdata_ispec_new(elem);
    int mark = rt_hold_val(ph);
    Val ds = tfdata_arg_new(elem, val_none());   /* for the element_spec only: the iterator is the fed handle */
    rt_hold_val(ds);
    Val r = tfdata_giter_new(ds, ph);
    rt_unhold(mark);
    val_decref(ds);
    return r;
  }
  if (tfdata_is_dataset(v) || tfdata_is_spec(v)) {
    /* the trace iterates a stand-in on the handle placeholder */
    Val elem = tfdata_is_spec(v) ? tfdata_spec_element(v) : tfdata_element_spec(v);
    Val ph = trace_placeholder(g, pname, &leafm[*leaf]);
    (*leaf)++;
    *tmpl = tfdata_is_spec(v) ? val_incref(v) : tfdata_spec_of(v);
    Val r = tfdata_arg_new(elem, ph);
    val_decref(ph);
    return r;
  }
  if (comp_is_value(v) || comp_is_spec(v)) {
    /* a composite: rebuilt by its spec from placeholders of its components; the template packs their markers */
    Val spec = comp_is_spec(v) ? val_incref(v) : rt_getattr(v, "_type_spec");
    int mark = rt_hold_val(spec);
    Val cs = rt_getattr(spec, "_component_specs");
    rt_hold_val(cs);
    tfs_i64 n;
    const Val *items;
    comp_items(cs, "_component_specs", &n, &items);
    Val phs = list_new(n), marks = tuple_new(n);
    rt_hold_val(phs);
    rt_hold_val(marks);
    tfs_i64 nc = 0;
    const Val *comps = NULL;
    Val cv = val_undef();
    if (comp_is_value(v)) {
      cv = comp_call(spec, "_to_components", 1, &v);
      rt_hold_val(cv);
      comp_items(cv, "_to_components", &nc, &comps);
    }
    for (tfs_i64 i = 0; i < n; i++) {
      if (i < nc && val_is(comps[i], &variable_type)) {
        /* the Variable itself, as a Variable argument (key_composite); no tensor leaf */
        list_append(phs, comps[i]);
        ((Tuple *)marks.u.o)->items[i] = val_none();
        continue;
      }
      Val ph = trace_placeholder(g, pname, &leafm[*leaf]);
      list_append(phs, ph);
      val_decref(ph);
      ((Tuple *)marks.u.o)->items[i] = nest_leaf(*leaf);
      (*leaf)++;
    }
    Val r = comp_call(spec, "_from_components", 1, &phs);
    *tmpl = nest_packed(spec, marks);
    rt_unhold(mark);
    val_decref(cv);
    val_decref(phs);
    val_decref(marks);
    val_decref(cs);
    val_decref(spec);
    return r;
  }
  if (v.tag == VT_OBJ) {
    const Type *ty = v.u.o->type;
    if (ty == &tensor_type || val_is_ndarray(v) || ty == &tffn_spec_type) {
      const char *nm = pname;
      if (ty == &tffn_spec_type && val_is(((TensorSpecObj *)v.u.o)->name, &str_type))
        nm = str_cstr(((TensorSpecObj *)v.u.o)->name);
      Val ph = trace_placeholder(g, nm, &leafm[*leaf]);
      *tmpl = nest_leaf(*leaf);
      (*leaf)++;
      return ph;
    }
    if (ty == &list_type || ty == &tuple_type) {
      tfs_i64 n;
      const Val *items;
      seq_items(v, &n, &items);
      bool list = ty == &list_type;
      Val res = list ? list_new(n) : tuple_new(n);
      Val tm = list ? list_new(n) : tuple_new(n);
      for (tfs_i64 i = 0; i < n; i++) {
        Val t;
        Val e = tffn_build_arg(g, items[i], pname, leafm, leaf, &t);
        if (list) {
          list_append(res, e);
          list_append(tm, t);
          val_decref(e);
          val_decref(t);
        } else {
          ((Tuple *)res.u.o)->items[i] = e;
          ((Tuple *)tm.u.o)->items[i] = t;
        }
      }
      *tmpl = tm;
      return res;
    }
    if (ty == &dict_type) {
      Dict *d = (Dict *)v.u.o;
      Val res = dict_new(), tm = dict_new();
      for (tfs_i64 i = 0; i < d->used; i++) {
        if (val_is_undef(d->keys[i])) continue;
        Val t;
        Val e = tffn_build_arg(g, d->vals[i], pname, leafm, leaf, &t);
        dict_set(res, d->keys[i], e);
        dict_set(tm, d->keys[i], t);
        val_decref(e);
        val_decref(t);
      }
      *tmpl = tm;
      return res;
    }
    if (ty == &inst_type) {
      /* User objects are keyed by identity; the template does not keep them
       * (a method's instance would form a cycle: instance -> class ->
       * tf.function -> concrete function -> instance). */
      *tmpl = val_none();
      return val_incref(v);
    }
  }
  *tmpl = val_incref(v);
  return val_incref(v);
}

/* built (an argument made by tffn_build_arg from the sorted-key form of orig) with its dicts in orig's key order
 * (owned): TF's trace type keeps a dict's insertion order for the placeholders the function sees, while its
 * flattening (and so the placeholders' order and the cache key) sorts the keys. */
static Val tffn_reorder_like(Val built, Val orig, bool keep_top);
static Val tffn_reorder_elem(tfs_i64 i, void *ctx) {
  const Val *const *pair = ctx;
  return tffn_reorder_like(pair[0][i], pair[1][i], false);
}

static Val tffn_reorder_like(Val built, Val orig, bool keep_top) {
  if (val_is(orig, &dict_type) && val_is(built, &dict_type)) {
    /* keep_top (**kwargs: TF unbundles them into keyword parameters in sorted name order): the values only */
    Dict *d = (Dict *)(keep_top ? built : orig).u.o;
    Val r = dict_new();
    int mark = rt_hold_val(r);
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      Val b = dict_get(built, d->keys[i]), o = keep_top ? dict_get(orig, d->keys[i]) : val_incref(d->vals[i]);
      if (val_is_undef(b) || val_is_undef(o)) {
        val_decref(b);
        val_decref(o);
        continue;
      }
      int bmark = rt_hold_val(b);
      rt_hold_val(o);
      Val e = tffn_reorder_like(b, o, false);
      rt_unhold(bmark);
      val_decref(o);
      val_decref(b);
      dict_set(r, d->keys[i], e);
      val_decref(e);
    }
    rt_unhold(mark);
    return r;
  }
  tfs_i64 n, nb;
  const Val *items, *bitems;
  bool list = val_is(built, &list_type);
  if ((list || val_is(built, &tuple_type)) && seq_items(orig, &n, &items) && seq_items(built, &nb, &bitems) && n == nb) {
    const Val *pair[2] = {bitems, items};
    return tffn_seq_rebuild(list, n, tffn_reorder_elem, pair);
  }
  return val_incref(built);
}

/* After a trace: the dataset stand-ins among the arguments drop their placeholders. */
static void tffn_unbind_datasets(Val v) {
  tfs_i64 n;
  const Val *items;
  if (tfdata_is_arg(v)) tfdata_arg_unbind(v);
  else if (seq_items(v, &n, &items))
    for (tfs_i64 i = 0; i < n; i++) tffn_unbind_datasets(items[i]);
  else if (val_is(v, &dict_type)) {
    Dict *d = (Dict *)v.u.o;
    for (tfs_i64 i = 0; i < d->used; i++)
      if (!val_is_undef(d->keys[i])) tffn_unbind_datasets(d->vals[i]);
  }
}

/* Trace fn for bound arguments whose signature is key (leaf metas from the
 * key, so relaxed keys give relaxed placeholders). */
static Concrete *tffn_trace(TfFunction *f, int nb, const Val *bound, const Val *orig, const unsigned char *key,
                            size_t keylen, const size_t *off, int scope) {
  Concrete *c = obj_new(&tffn_conc_type, sizeof(Concrete));
  memset((char *)c + sizeof(Obj), 0, sizeof(Concrete) - sizeof(Obj));
  c->fn = val_incref(f->fn);
  c->ext = tffn_ext(f);
  c->args_tmpl = val_undef();
  c->out_tmpl = val_undef();
  c->defaults = val_undef();
  c->sig = val_undef();
  c->capt = val_undef();
  c->name = strdup(f->name);
  c->scope = scope;
  c->key = malloc(keylen ? keylen : 1);
  c->off = malloc(sizeof(size_t) * (size_t)(nb + 1));
  c->leafm = malloc(sizeof(TMeta) * (keylen / 3 + 1));
  c->params = calloc((size_t)nb + 1, sizeof(char *));
  if (!c->name || !c->key || !c->off || !c->leafm || !c->params) rt_throw(ERR_MEMORY, "out of memory");
  memcpy(c->key, key, keylen);
  c->keylen = keylen;
  memcpy(c->off, off, sizeof(size_t) * (size_t)(nb + 1));
  c->hash = key_hash(key, keylen);
  c->nparams = nb;
  const char *const *params;
  int np = tffn_params(f->fn, &params);
  for (int i = 0; i < nb; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "arg%d", i);
    c->params[i] = strdup(np == nb ? params[i] : buf);
    if (!c->params[i]) rt_throw(ERR_MEMORY, "out of memory");
  }
  c->defaults = tuple_new(nb);
  for (int i = 0; i < nb; i++) ((Tuple *)c->defaults.u.o)->items[i] = val_undef();
  if (val_is(f->fn, &func_type) && np == nb && !tffn_ext(f)) {
    Func *fn = (Func *)f->fn.u.o;
    for (int i = 0; i < fn->ndefaults; i++)
      ((Tuple *)c->defaults.u.o)->items[nb - fn->ndefaults + i] = val_incref(fn->defaults[i]);
  }
  key_leaf_metas(key, key + keylen, c->leafm, &c->nleaves);
  {
    /* the Variable arguments, in alias order */
    KeyBuf vk;
    Leaves vl;
    kb_init(&vk);
    lv_init(&vl);
    for (int i = 0; i < nb; i++) key_arg(&vk, bound[i], &vl, KEY_SPECS | KEY_SYMBOLIC);
    if (vl.nv) {
      c->argvars = malloc(sizeof(Variable *) * (size_t)vl.nv);
      if (!c->argvars) rt_throw(ERR_MEMORY, "out of memory");
      for (int i = 0; i < vl.nv; i++) {
        c->argvars[i] = vl.v[i];
        vl.v[i]->hdr.rc++;
        c->nargvars = i + 1;
      }
    }
    kb_free(&vk);
    lv_free(&vl);
  }
  for (size_t i = 0; i < keylen && !c->relaxed;) {
    /* relaxed when any tensor atom has an unknown rank or dim */
    const unsigned char *p = key + i;
    if (*p == 'T') {
      if (p[2] == 0xFF) c->relaxed = true;
      for (int d = 0; p[2] != 0xFF && d < p[2]; d++)
        if (key_i64(p + 3 + 8 * d) < 0) c->relaxed = true;
      i = (size_t)(key_skip(p) - key);
    } else if (*p == 'L' || *p == 'U' || *p == 'D') {
      i += 9;
    } else if (*p == 'C') {
      i += 1 + sizeof(void *);
    } else {
      i = (size_t)(key_skip(p) - key);
    }
  }

  Graph *g = graph_new(f->name, f->name, NULL);
  TraceCtx *cx = trace_push(g, scope == 0, false);
  cx->fcap = tffn_capture_outer && cx->outer;
  cx->xla = f->jit_compile.tag == VT_BOOL && f->jit_compile.u.i;
  tffn_capture_outer = false;   /* (functions the traced one calls capture as before) */
  int busy = f->nbusy;
  if (busy < 8) {
    f->busy_key[busy] = c->key;
    f->busy_len[busy] = c->keylen;
    f->nbusy = busy + 1;
  }
  Val *targs = calloc((size_t)nb + 1, sizeof(Val));
  if (!targs) rt_throw(ERR_MEMORY, "out of memory");
  int site = rt_cur_loc;   /* the call being traced: where an enclosing trace's framing shows this one */
  RtAgFrames agf;
  RtTry t;
  rt_try_push(&t);
  rt_try_ag(&t, &agf);   /* an error raised by converted code is re-raised framed, as AutoGraph does */
  if (setjmp(t.jb) == 0) {
    c->args_tmpl = tuple_new(nb);
    int leaf = 0;
    int va = tffn_varargs_index(f);
    for (int i = 0; i < nb; i++) {
      Val *tm = &((Tuple *)c->args_tmpl.u.o)->items[i];
      if (i == va && tffn_ext(f) && val_is(bound[i], &tuple_type)) {
        /* *args: element k's placeholders are named args_k, as TF names them */
        Tuple *t = (Tuple *)bound[i].u.o;
        targs[i] = tuple_new(t->len);
        *tm = tuple_new(t->len);
        for (tfs_i64 k = 0; k < t->len; k++) {
          char nm[180];
          snprintf(nm, sizeof nm, "%.140s_%lld", c->params[i], (long long)k);
          ((Tuple *)targs[i].u.o)->items[k] =
              tffn_build_arg(g, t->items[k], nm, c->leafm, &leaf, &((Tuple *)tm->u.o)->items[k]);
        }
      } else {
        targs[i] = tffn_build_arg(g, bound[i], c->params[i], c->leafm, &leaf, tm);
      }
      if (orig && orig[i].u.o != bound[i].u.o) {
        /* a dict argument: the function sees the caller's key order (the template keeps the sorted one) */
        Val o = targs[i];
        targs[i] = tffn_reorder_like(o, orig[i], i == tffn_varkw_index(f) && tffn_ext(f));
        val_decref(o);
      }
    }
    Val raw = tffn_invoke(f, nb, targs);
    int mark = rt_hold_val(raw);
    Val r = tffn_result_tensors(raw, f->name);
    rt_unhold(mark);
    val_decref(raw);
    GraphRefVec outs = {0};
    mark = rt_hold_val(r);   /* a result that cannot be an output (a loop body's tensor) fails in trace_flatten */
    Val tmpl = trace_flatten(cx, r, &outs);
    rt_unhold(mark);
    val_decref(r);
    for (int i = 0; i < outs.n; i++) graph_add_output(g, outs.v[i]);
    int idx;
    if (outs.n == 1 && nest_is_leaf(tmpl, &idx)) val_decref(tmpl);
    else c->out_tmpl = tmpl;
    free(outs.v);
    rt_try_pop(&t);
  } else {
    f->nbusy = busy;
    trace_abort(cx);
    for (int i = 0; i < nb; i++) tffn_unbind_datasets(targs[i]);
    graph_release(g);
    for (int i = 0; i < nb; i++) val_decref(targs[i]);
    free(targs);
    val_decref(val_obj(c));
    rt_ag_reraise(&t, site, false);
  }
  rt_ag_frames_free(&agf);
  f->nbusy = busy;
  c->nvars = cx->nvars;
  c->unliftable = cx->unliftable;
  if (cx->fcap && cx->ncaps) {
    c->ncapt = cx->ncaps;
    c->capt = tuple_new(cx->ncaps);
    for (int i = 0; i < cx->ncaps; i++) ((Tuple *)c->capt.u.o)->items[i] = trace_sym(cx->outer->g, cx->caps[i].outer);
  }
  trace_pop(cx);
  for (int i = 0; i < nb; i++) {
    tffn_unbind_datasets(targs[i]);
    val_decref(targs[i]);
  }
  free(targs);
  c->g = g;
  c->plan = exec_plan_new(g);
  graph_dump(g);
  if (graph_traced_hook) graph_traced_hook(g);
  f->ntraces++;
  if (f->nconc == f->capc) {
    int cap = f->capc ? f->capc * 2 : 4;
    Concrete **cc = realloc(f->conc, sizeof(Concrete *) * (size_t)cap);
    if (!cc) rt_throw(ERR_MEMORY, "out of memory");
    f->conc = cc;
    f->capc = cap;
  }
  f->conc[f->nconc++] = c;   /* the function's reference */
  if (c->relaxed) f->has_relaxed = true;
  return c;
}

/* ---- calling ---------------------------------------------------------------------------------------- */

/* The result of a call of c from its graph's output tensors (owned, consumed). */
static Val tffn_result(Concrete *c, Tensor **outs, int no) {
  if (val_is_undef(c->out_tmpl)) return val_obj(outs[0]);
  Val vb[8] = {0}, *vals = no <= 8 ? vb : malloc(sizeof(Val) * (size_t)no);   /* (initialized: gcc cannot see the loop fills them) */
  if (!vals) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < no; i++) vals[i] = val_obj(outs[i]);
  Val r = nest_unflatten(c->out_tmpl, vals);
  for (int i = 0; i < no; i++) tensor_release(outs[i]);
  if (vals != vb) free(vals);
  return r;
}

static Val tffn_run(Concrete *c, Tensor **leaves) {
  Tensor **all = NULL;
  int amark = 0;
  if (c->ncapt) {   /* (tf.data binds the values first: tffn_conc_bind_captures, tffn_conc_run_captures) */
    if (!c->runv)
      rt_throw(ERR_INVALID_ARGUMENT, "a tf.data function that reads tensors of its tf.function can only run inside it");
    int na = c->g->ninputs - c->ncapt;
    all = malloc(sizeof(Tensor *) * (size_t)(c->g->ninputs + 1));
    if (!all) rt_throw(ERR_MEMORY, "out of memory");
    amark = rt_hold_mem(all);
    memcpy(all, leaves, sizeof(Tensor *) * (size_t)na);
    memcpy(all + na, c->runv, sizeof(Tensor *) * (size_t)c->ncapt);
    leaves = all;
  }
  int no = c->g->noutputs;
  Tensor *ob[8], **outs = no <= 8 ? ob : malloc(sizeof(Tensor *) * (size_t)no);
  if (!outs) rt_throw(ERR_MEMORY, "out of memory");
  exec_run(c->plan, leaves, outs);
  if (all) {
    rt_unhold(amark);
    free(all);
  }
  Val r = tffn_result(c, outs, no);
  if (outs != ob) free(outs);
  return r;
}

/* ---- calls recorded by a gradient tape ------------------------------------------------------------
 * An eager call under a tape that watches one of its inputs (a tensor
 * argument, a trainable Variable the graph reads, or a float tensor it
 * captures from outside) is recorded as one tape
 * entry, as TF records a function call as one op.  Its gradient is usually
 * a backward graph fed with values the call kept (see "forward and backward
 * graphs" below).  Otherwise it is a second tf.function, traced once per
 * signature: it runs the function again under a fresh tape and emits the
 * backward ops into the same graph.  Being a tf.function itself, a call of it
 * is recorded by the tapes outside, which gives higher-order gradients.  That
 * rerun replays the forward call's random-draw counters, so dropout and
 * tf.random.* see the forward's numbers. */

static Val tffn_make(Val fn, Val sig, Val reduce, Val jit);
static Val tffn_run_record(Concrete *c, int nb, const Val *bound, const Leaves *lv, Tensor *rng);

static void tffn_list_add_once(Val list, Obj *o) {
  List *l = (List *)list.u.o;
  for (tfs_i64 j = 0; j < l->len; j++)
    if (l->items[j].u.o == o) return;
  list_append(list, val_obj(o));
}

/* The trainable Variables g reads and the float tensors it captures from
 * outside (not its literals: they are no tape's sources), bodies of conds and
 * loops included, each once. */
static void tffn_graph_vars(const Graph *g, Val vars, Val caps) {
  for (int i = 0; i < g->nnodes; i++) {
    const GraphNode *nd = &g->nodes[i];
    if (nd->kind == GN_VARHANDLE && nd->var->trainable) tffn_list_add_once(vars, &nd->var->hdr);
    if (nd->kind == GN_CONST && (nd->flags & GNF_CAPTURE) && dtype_has_grad(nd->value->dtype))
      tffn_list_add_once(caps, &nd->value->hdr);
    for (int k = 0; k < 2; k++)
      if (nd->sub[k]) tffn_graph_vars(nd->sub[k], vars, caps);
  }
}

/* Tensor leaves of a structure in tracing order (vars: Variables are leaves too). */
static void tffn_tensor_leaves(Val v, Val list, bool vars) {
  if (val_is(v, &tensor_type) || (vars && val_is(v, &variable_type))) {
    list_append(list, v);
  } else if (val_is(v, &nest_packed_type)) {
    tffn_tensor_leaves(nest_packed_comps(v), list, vars);
  } else if (comp_is_value(v)) {   /* a composite: its components, in the order its key feeds them */
    Val comps = tffn_components(v);
    int mark = rt_hold_val(comps);
    tffn_tensor_leaves(comps, list, vars);
    rt_unhold(mark);
    val_decref(comps);
  } else if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 n;
    const Val *items;
    seq_items(v, &n, &items);
    for (tfs_i64 i = 0; i < n; i++) tffn_tensor_leaves(items[i], list, vars);
  } else if (val_is(v, &dict_type)) {
    Dict *d = (Dict *)v.u.o;
    for (tfs_i64 i = 0; i < d->used; i++)
      if (!val_is_undef(d->keys[i])) tffn_tensor_leaves(d->vals[i], list, vars);
  }
}

/* The backward function's body.  self: (fn, Variables and captured tensors
 * (c->xs), bound-call flag, name); args: the call's bound arguments (tensors
 * are placeholders now) and the list of output gradients.  Returns one
 * gradient (or None) per tensor argument, then one per item of xs (a captured
 * tensor is watched as itself: the rerun's trace captures it again); fwd (unless NULL) receives the list of the forward
 * results' tensors. */
static Val tffn_bwd_trace(Val self, const Val *args, Val *fwd) {
  const Val *s = ((Tuple *)self.u.o)->items;
  Tuple *bt = (Tuple *)args[0].u.o;
  Val srcs = list_new(0), outs = list_new(0);
  int mark = rt_hold_val(srcs);
  rt_hold_val(outs);
  tffn_tensor_leaves(args[0], srcs, false);
  tfs_i64 nv;
  const Val *vs;
  seq_items(s[1], &nv, &vs);
  for (tfs_i64 i = 0; i < nv; i++) list_append(srcs, vs[i]);
  Val tp = tape_new(false, false);
  rt_hold_val(tp);
  Tape *t = (Tape *)tp.u.o;
  tape_watch(t, srcs);
  Val raw = gradtape_rerun_ex(t, s[0], (int)bt->len, bt->items, rt_truthy(s[2]));
  rt_hold_val(raw);
  Val r = tffn_result_tensors(raw, str_cstr(s[3]));
  rt_hold_val(r);
  tffn_tensor_leaves(r, outs, true);
  List *ol = (List *)outs.u.o, *dl = (List *)args[1].u.o, *sl = (List *)srcs.u.o;
  if (ol->len != dl->len)
    rt_throw(ERR_RUNTIME, "internal error: tf.function '%s' returned %d tensors in its gradient's trace, %d before",
             str_cstr(s[3]), (int)ol->len, (int)dl->len);
  Val res = list_new(sl->len);
  rt_hold_val(res);
  for (tfs_i64 i = 0; i < sl->len; i++) list_append(res, val_none());   /* slots tape_gradient overwrites */
  tape_gradient(t, (int)ol->len, ol->items, dl->items, (int)sl->len, sl->items, false, ((List *)res.u.o)->items);
  rt_unhold(mark);
  val_decref(srcs);
  if (fwd) *fwd = outs;
  else val_decref(outs);
  val_decref(tp);
  val_decref(raw);
  val_decref(r);
  return res;
}

static Val tffn_bwd_body(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)kw;
  return tffn_bwd_trace(self, args, NULL);
}

/* The entry's gradient function.  self: (backward tf.function, bound-argument
 * tuple, random-state snapshot); args: one gradient per output. */
static Val tffn_call_grad(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  const Val *s = ((Tuple *)self.u.o)->items;
  Val dys = rt_list(n, args);
  int mark = rt_hold_val(dys);
  Tensor *live = random_state_get();
  rt_hold_val(val_obj(live));
  random_state_set(val_tensor(s[2]));
  RtTry tr;
  rt_try_push(&tr);
  Val r;
  if (setjmp(tr.jb) == 0) {
    Val a[2] = {s[1], dys};
    r = rt_call(s[0], 2, a, NULL);
    rt_try_pop(&tr);
  } else {
    random_state_set(live);
    rt_rethrow(&tr);
  }
  random_state_set(live);
  rt_unhold(mark);
  val_decref(dys);
  val_decref(val_obj(live));
  return r;
}

/* The inputs a tape entry of a call of c has: its tensor leaves, then the
 * trainable Variables its graph reads, then, when a recording tape tracks
 * one of them, the tensors it captures, as TF's function call has them as
 * inputs (malloc'd; *nin receives the count, *w the variant of c->xs). */
static Val *tffn_tape_inputs(Concrete *c, const Leaves *lv, int *nin, int *w) {
  if (val_is_undef(c->vars)) {
    Val l = list_new(0), cl = list_new(0);
    tffn_graph_vars(c->g, l, cl);
    c->vars = rt_tuple((int)((List *)l.u.o)->len, ((List *)l.u.o)->items);
    c->caps = rt_tuple((int)((List *)cl.u.o)->len, ((List *)cl.u.o)->items);
    c->xs[0] = val_incref(c->vars);
    List *all = (List *)l.u.o;
    for (tfs_i64 i = 0; i < ((List *)cl.u.o)->len; i++) list_append(l, ((List *)cl.u.o)->items[i]);
    c->xs[1] = rt_tuple((int)all->len, all->items);
    val_decref(l);
    val_decref(cl);
  }
  tfs_i64 nv, nc;
  const Val *vs, *cs;
  seq_items(c->vars, &nv, &vs);
  seq_items(c->caps, &nc, &cs);
  *w = nc && tape_would_record((int)nc, cs);
  *nin = lv->n + (int)nv + (*w ? (int)nc : 0);
  Val *in = malloc(sizeof(Val) * (size_t)(*nin + 1));
  if (!in) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < lv->n; i++) in[i] = val_obj(lv->t[i]);
  for (tfs_i64 i = 0; i < nv; i++) in[lv->n + i] = vs[i];
  for (tfs_i64 i = 0; *w && i < nc; i++) in[lv->n + nv + i] = cs[i];
  return in;
}

/* c's backward tf.function (made on first use; traced when first called). */
static Val tffn_bwd_fn(Concrete *c, int w) {
  if (val_is_undef(c->bwd[w])) {
    Val cfg = tuple_pack(4, c->fn, c->xs[w], val_bool(c->ext), val_undef());
    Val nm = str_from_cstr(c->name);
    ((Tuple *)cfg.u.o)->items[3] = nm;
    Val body = builtin_new("tf.function.<gradient>", tffn_bwd_body, cfg, NULL);
    val_decref(cfg);
    c->bwd[w] = tffn_make(body, val_none(), val_bool(false), val_none());
    val_decref(body);
    free(((TfFunction *)c->bwd[w].u.o)->name);
    char buf[256];
    snprintf(buf, sizeof buf, "%s_grad", c->name);
    ((TfFunction *)c->bwd[w].u.o)->name = strdup(buf);
    if (!((TfFunction *)c->bwd[w].u.o)->name) rt_throw(ERR_MEMORY, "out of memory");
  }
  return c->bwd[w];
}

/* ---- forward and backward graphs of a recorded call -------------------------------------------
 * TF's _TapeGradientFunctions, built here from the backward function's trace:
 * the function and its gradient are traced together once per concrete
 * function (tffn_bwd_trace, which also returns the forward results), and the
 * joint graph is split where nodes start to depend on an output gradient.
 * The forward graph (the nodes that do not) runs at the call: its outputs are
 * the call's results, then the values the backward nodes read, which the
 * tape entry keeps.  The gradient runs only the backward graph, fed with
 * those values and the output gradients.  Not used (the gradient reruns the
 * function, as above) for graphs with loops (a loop gradient's per-iteration
 * stacks are released at the end of each graph run), side effects a rerun
 * does not stage (tf.print, result-less assignments), and a gradient a tape
 * records in turn (higher order: the backward tf.function is
 * differentiable, the backward graph run alone is not). */

typedef struct FwdBwd {
  ExecPlan *fp, *bp;      /* forward and backward plans (they hold their graphs) */
  int nout;               /* the call's results: the forward graph's first outputs */
  int nmid;               /* kept values: the forward graph's other outputs, the backward graph's first inputs */
  int nsrc;               /* the entry's inputs (tensor leaves, then Variables) */
  unsigned char *has;     /* per input: whether the backward graph gives its gradient (its outputs, in order) */
  TMeta *dym;             /* nout metas the output gradients must have */
} FwdBwd;

static void tffn_fwdbwd_free(FwdBwd *fb) {
  if (!fb) return;
  exec_plan_free(fb->fp);
  exec_plan_free(fb->bp);
  free(fb->has);
  free(fb->dym);
  free(fb);
}

/* rt_hold_fn's release functions */
static void fwdbwd_release(void *fb) { tffn_fwdbwd_free(fb); }
static void graph_release_any(void *g) { graph_release(g); }

/* Whether calls of graph g can keep their intermediates: no loop, and no side
 * effect that a rerun for the gradient does not stage (trace_quiet). */
static bool tffn_splittable(const Graph *g) {
  for (int i = 0; i < g->nnodes; i++) {
    const GraphNode *nd = &g->nodes[i];
    if (nd->kind == GN_WHILE) return false;
    if (nd->kind == GN_OP && (nd->op->flags & OPF_STATEFUL) && (nd->op->flags & OPF_NOOUT)) return false;
    for (int k = 0; k < 2; k++)
      if (nd->sub[k] && !tffn_splittable(nd->sub[k])) return false;
  }
  return true;
}

/* Body of the joint trace: tffn_bwd_trace's, self having a fifth item, a list
 * that receives per input whether its gradient is a tensor (and one item more
 * when a forward result is not a tensor, so that the split is not used).
 * Returns (input gradients, forward results). */
static Val tffn_fwdbwd_body(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)kw;
  Val fwd;
  Val res = tffn_bwd_trace(self, args, &fwd);
  Val has = ((Tuple *)self.u.o)->items[4];
  List *rl = (List *)res.u.o, *fl = (List *)fwd.u.o;
  bool ok = true;
  for (tfs_i64 i = 0; i < rl->len; i++) list_append(has, val_bool(rl->items[i].tag != VT_NONE));
  for (tfs_i64 i = 0; i < fl->len; i++) ok = ok && val_is(fl->items[i], &tensor_type);
  if (!ok) list_append(has, val_none());   /* (one more item than inputs: the split is not used) */
  Val r = tuple_pack(2, res, fwd);
  val_decref(res);
  val_decref(fwd);
  return r;
}

/* Split joint graph j (inputs: nargs argument leaves, then nout output
 * gradients; outputs: ng input gradients, then nout forward results) into c's
 * forward and backward graphs.  NULL when the forward results depend on the
 * output gradients (they never should). */
static FwdBwd *tffn_split(Concrete *c, const Graph *j, int nargs, int nout, int ng) {
  int nn = j->nnodes;
  unsigned char *dep = calloc((size_t)nn + 1, 1);     /* depends on an output gradient: backward */
  unsigned char *need = calloc((size_t)nn + 1, 1);    /* a forward node the backward reads */
  int *off = malloc(sizeof(int) * (size_t)(nn + 1));  /* each node's first value in mid */
  int *map = malloc(sizeof(int) * (size_t)(nn + 1));
  const GraphRef **pre = calloc((size_t)nn + 1, sizeof(GraphRef *));
  if (!dep || !need || !off || !map || !pre) rt_throw(ERR_MEMORY, "out of memory");
  int hm = rt_hold_mem(dep);
  rt_hold_mem(need);
  rt_hold_mem(off);
  rt_hold_mem(map);
  rt_hold_mem(pre);
  int nvals = 0;
  for (int id = 0; id < nn; id++) {
    const GraphNode *nd = &j->nodes[id];
    off[id] = nvals;
    nvals += nd->nout;
    bool d = nd->kind == GN_PLACEHOLDER && nd->param >= nargs;
    for (int i = 0; i < nd->nin + nd->ndyn && !d; i++) d = nd->in[i].node >= 0 && dep[nd->in[i].node];
    for (int i = 0; i < nd->nctrl && !d; i++) d = dep[nd->ctrl[i]];
    dep[id] = d;
  }
  int *mid = malloc(sizeof(int) * (size_t)(nvals + 1));   /* per value: its index among the kept values, or -1 */
  GraphRef *mref = malloc(sizeof(GraphRef) * (size_t)(nvals + nargs + nout + 1));
  if (!mid || !mref) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(mid);
  rt_hold_mem(mref);
  for (int i = 0; i < nvals; i++) mid[i] = -1;
  int nmid = 0;
  for (int id = 0; id <= nn; id++) {
    /* values the backward part reads: inputs of backward nodes, and input gradients */
    int nr = id < nn ? (dep[id] ? j->nodes[id].nin + j->nodes[id].ndyn : 0) : ng;
    const GraphRef *rs = id < nn ? j->nodes[id].in : j->outputs;
    for (int i = 0; i < nr; i++) {
      GraphRef r = rs[i];
      if (r.node < 0 || dep[r.node]) continue;
      GraphNodeKind k = j->nodes[r.node].kind;
      if (k == GN_CONST || k == GN_VARHANDLE) {
        need[r.node] = 1;   /* copied into the backward graph */
      } else if (mid[off[r.node] + r.out] < 0) {
        mid[off[r.node] + r.out] = nmid;
        mref[nmid++] = r;
      }
    }
  }
  bool ok = true;
  for (int i = 0; i < nout; i++) ok = ok && !dep[j->outputs[ng + i].node];
  FwdBwd *fb = NULL;
  if (ok) {
    fb = calloc(1, sizeof(FwdBwd));
    if (!fb) rt_throw(ERR_MEMORY, "out of memory");
    rt_hold_fn(fwdbwd_release, fb);
    fb->nout = nout;
    fb->nmid = nmid;
    int last = -1, neff = 0;
    /* forward: the argument placeholders, the nodes that do not depend on an output gradient */
    Graph *fg = graph_new(c->name, c->name, NULL);
    rt_hold_fn(graph_release_any, fg);
    GraphRef *aref = mref + nmid;
    for (int id = 0; id < nn; id++) {
      const GraphNode *nd = &j->nodes[id];
      pre[id] = dep[id] ? graph_skip_node : NULL;
      if (nd->kind == GN_PLACEHOLDER && !dep[id]) {
        aref[nd->param] = (GraphRef){graph_add_placeholder(fg, nd->name, &nd->outm[0]), 0};
        pre[id] = &aref[nd->param];
      }
    }
    graph_inline_sel(fg, j, pre, map, &last, &neff);
    for (int i = 0; i < nout; i++) graph_add_output(fg, graph_inline_ref(map, pre, j->outputs[ng + i]));
    for (int i = 0; i < nmid; i++) graph_add_output(fg, graph_inline_ref(map, pre, mref[i]));
    /* backward: placeholders for the kept values and the output gradients, the
     * nodes that depend on the latter, the constants and Variables they read */
    char bname[256];
    snprintf(bname, sizeof bname, "%s_grad", c->name);
    Graph *bg = graph_new(bname, bname, NULL);
    rt_hold_fn(graph_release_any, bg);
    GraphRef *vref = malloc(sizeof(GraphRef) * (size_t)(nvals + 1));   /* per value: its placeholder */
    if (!vref) rt_throw(ERR_MEMORY, "out of memory");
    rt_hold_mem(vref);
    for (int id = 0; id < nn; id++) {
      const GraphNode *nd = &j->nodes[id];
      pre[id] = dep[id] || need[id] ? NULL : graph_skip_node;
      for (int o = 0; o < nd->nout; o++) vref[off[id] + o] = (GraphRef){-1, 0};
    }
    for (int i = 0; i < nmid; i++) {
      GraphRef r = mref[i];
      char nm[32];
      snprintf(nm, sizeof nm, "kept_%d", i);
      vref[off[r.node] + r.out] = (GraphRef){graph_add_placeholder(bg, nm, graph_meta(j, r)), 0};
      pre[r.node] = &vref[off[r.node]];
    }
    fb->dym = malloc(sizeof(TMeta) * (size_t)(nout + 1));
    if (!fb->dym) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < nout; i++) {
      const GraphNode *nd = &j->nodes[j->inputs[nargs + i]];
      vref[off[j->inputs[nargs + i]]] = (GraphRef){graph_add_placeholder(bg, nd->name, &nd->outm[0]), 0};
      pre[j->inputs[nargs + i]] = &vref[off[j->inputs[nargs + i]]];
      fb->dym[i] = nd->outm[0];
    }
    last = -1;
    neff = 0;
    graph_inline_sel(bg, j, pre, map, &last, &neff);
    for (int i = 0; i < ng; i++) graph_add_output(bg, graph_inline_ref(map, pre, j->outputs[i]));
    fb->fp = exec_plan_new(fg);
    fb->bp = exec_plan_new(bg);
    graph_release(fg);   /* the plans hold them */
    graph_release(bg);
    free(vref);
  }
  rt_unhold(hm);
  free(dep);
  free(need);
  free(off);
  free(map);
  free(pre);
  free(mid);
  free(mref);
  return fb;
}

/* Bind call arguments to the wrapped function's parameters (borrowed). */
static int tffn_bind(TfFunction *f, int n, const Val *args, const Kw *kw, Val *buf, int bufn, Val **out) {
  const char *const *params;
  int np = tffn_params(f->fn, &params);
  if (np < 0) {
    if (!kw || !kw->n) {
      *out = (Val *)args;
      return n;
    }
    /* a built-in op or other callable: its keyword arguments are one dict
     * argument (keyed like any dict: by name, in any order), then the marker */
    Val *b = n + 2 <= bufn ? buf : malloc(sizeof(Val) * (size_t)(n + 2));
    if (!b) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < n; i++) b[i] = args[i];
    Val d = dict_new();
    for (int i = 0; i < kw->n; i++) dict_set_str(&d, kw->names[i], kw->vals[i]);
    b[n] = d;
    b[n + 1] = tffn_kw_marker();
    *out = b;
    return n + 2;
  }
  Func *fn = (Func *)f->fn.u.o;
  bool ext = tffn_ext(f);
  if (!ext && (!kw || !kw->n) && n == np) {
    *out = (Val *)args;
    return n;
  }
  Val *b = np <= bufn ? buf : malloc(sizeof(Val) * (size_t)(np ? np : 1));
  if (!b) rt_throw(ERR_MEMORY, "out of memory");
  /* *args become one tuple argument, **kwargs one dict: both are structures
   * whose tensors are graph inputs, as in TF's FunctionSpec. */
  if (ext) args_bind_ext(fn->info, fn->ndefaults, fn->defaults, n, args, kw, b);
  else args_bind(fn->info->name, np, params, fn->ndefaults, fn->defaults, n, args, kw, b);
  *out = b;
  return np;
}

/* Release what tffn_bind made. */
static void tffn_unbind(TfFunction *f, Val *bound, const Val *args, const Val *bbuf, int nb) {
  if (bound == args) return;
  if (tffn_ext(f)) args_unbind(((Func *)f->fn.u.o)->info, bound);
  else if (tffn_kw_bound(nb, bound)) val_decref(bound[nb - 2]);
  if (bound != bbuf) free(bound);
}

/* The cache scope calls use now (TF's variable-creation or no-variable-creation tracing options). */
static int tffn_scope(const TfFunction *f) { return f->vstate == 2 ? 1 : 0; }

/* The trace a call with key k runs (TF's TypeDispatchTable.dispatch): the one
 * with that key, else the most specific of the relaxed ones that accept it
 * (the earliest traced among equals); only traces of the current scope. */
static Concrete *tffn_find(TfFunction *f, const KeyBuf *k) {
  tfs_u64 h = key_hash(k->p, k->len);
  int scope = tffn_scope(f);
  for (int i = f->nconc - 1; i >= 0; i--) {
    Concrete *c = f->conc[i];
    if (c->scope == scope && c->hash == h && c->keylen == k->len && !memcmp(c->key, k->p, k->len)) return c;
  }
  Concrete *best = NULL;
  if (f->has_relaxed)
    for (int i = 0; i < f->nconc; i++) {
      Concrete *c = f->conc[i];
      if (c->scope != scope || !c->relaxed || !key_accepts_all(c->key, c->keylen, k->p, k->len)) continue;
      if (!best || key_accepts_all(best->key, best->keylen, c->key, c->keylen)) best = c;
    }
  return best;
}

/* reduce_retracing (TF's try_generalizing_function_type): the call's key
 * relaxed in turn against every trace of the current scope that it has a
 * common supertype with.  Leaves the result in rk; false when nothing relaxed. */
static bool tffn_generalize(TfFunction *f, const KeyBuf *k, KeyBuf *rk) {
  KeyBuf cur, tmp;
  kb_init(&cur);
  kb_init(&tmp);
  kb_put(&cur, k->p, k->len);
  bool changed = false;
  int scope = tffn_scope(f);
  for (int i = 0; i < f->nconc; i++) {
    const Concrete *c = f->conc[i];
    if (c->scope != scope) continue;
    tmp.len = 0;
    if (!key_relax_all(c->key, c->keylen, cur.p, cur.len, &tmp)) continue;
    if (tmp.len != cur.len || memcmp(tmp.p, cur.p, cur.len)) changed = true;
    cur.len = 0;
    kb_put(&cur, tmp.p, tmp.len);
  }
  rk->len = 0;
  kb_put(rk, cur.p, cur.len);
  kb_free(&cur);
  kb_free(&tmp);
  return changed;
}

/* The offsets of the nb argument atoms of key k. */
static void key_offsets(const KeyBuf *k, int nb, size_t *off) {
  const unsigned char *p = k->p;
  for (int i = 0; i < nb; i++) {
    off[i] = (size_t)(p - k->p);
    p = key_skip(p);
  }
  off[nb] = k->len;
}

/* Trace for key (already generalized) by §8's Variable rules, TF's
 * Function._call: the first call's trace may create Variables; if it did, they
 * are kept (initialized) and the function is traced again with creation
 * forbidden, and that trace runs (the first one when a Variable's initial
 * value comes from the inputs: its graph initializes it).  After a first call
 * that created none, a trace that creates one sets *late (the caller raises
 * after running it, as TF does); after one that did, creating fails in the trace. */
static Concrete *tffn_trace_rules(TfFunction *f, int nb, const Val *bound, const Val *orig, const unsigned char *key,
                                  size_t keylen, const size_t *off, bool *late) {
  if (f->vstate == 2) return tffn_trace(f, nb, bound, orig, key, keylen, off, 1);
  Concrete *a = tffn_trace(f, nb, bound, orig, key, keylen, off, 0);
  if (!a->nvars) {
    if (!f->vstate) f->vstate = 1;
    return a;
  }
  if (f->vstate == 1) {
    f->vstate = 2;
    *late = true;
    return a;
  }
  f->vstate = 2;
  Concrete *b = tffn_trace(f, nb, bound, orig, key, keylen, off, 1);
  return a->unliftable ? a : b;
}

static _Noreturn void tffn_late_vars(void) {
  rt_throw(ERR_VALUE, "Creating variables on a non-first call to a function decorated with tf.function.");
}

/* The concrete function for a call with key k (offsets off): found, or traced
 * (generalized first under reduce_retracing).  *traced: a trace happened. */
static Concrete *tffn_dispatch(TfFunction *f, int nb, const Val *bound, const Val *orig, const KeyBuf *k,
                               const size_t *off, bool *traced, bool *late) {
  Concrete *c = tffn_find(f, k);
  if (c) return c;
  *traced = true;
  KeyBuf rk;
  kb_init(&rk);
  if (f->reduce_retracing && tffn_generalize(f, k, &rk)) {
    size_t roffb[17], *roff = nb < 16 ? roffb : malloc(sizeof(size_t) * (size_t)(nb + 1));
    if (!roff) rt_throw(ERR_MEMORY, "out of memory");
    key_offsets(&rk, nb, roff);
    c = tffn_find(f, &rk);
    if (!c) {
      int mark = roff != roffb ? rt_hold_mem(roff) : -1;
      int m2 = rk.p != rk.inl ? rt_hold_mem(rk.p) : -1;
      c = tffn_trace_rules(f, nb, bound, orig, rk.p, rk.len, roff, late);
      if (m2 >= 0) rt_unhold(m2);
      if (mark >= 0) rt_unhold(mark);
    }
    if (roff != roffb) free(roff);
  } else {
    c = tffn_trace_rules(f, nb, bound, orig, k->p, k->len, off, late);
  }
  kb_free(&rk);
  return c;
}

static void tffn_remember_call(TfFunction *f, Concrete *c, bool exact_last, const KeyBuf *k, const size_t *off, int nb) {
  f->last = c;
  f->prev_is_last = exact_last;
  if (exact_last) return;
  if (!f->prev.p) kb_init(&f->prev);
  f->prev.len = 0;
  kb_put(&f->prev, k->p, k->len);
  if (f->nprevoff < nb + 1) {
    size_t *po = realloc(f->prevoff, sizeof(size_t) * (size_t)(nb + 1));
    if (!po) rt_throw(ERR_MEMORY, "out of memory");
    f->prevoff = po;
    f->nprevoff = nb + 1;
  }
  memcpy(f->prevoff, off, sizeof(size_t) * (size_t)(nb + 1));
}

/* §8: warn when 5 of the last 10 calls traced, naming what changed. */
static void tffn_history(TfFunction *f, bool traced, const KeyBuf *k, const size_t *off, int nb) {
  f->hist = (f->hist << 1) | (traced ? 1u : 0u);
  if (f->nhist < 10) f->nhist++;
  if (!traced) return;
  int count = __builtin_popcount(f->hist & ((1u << f->nhist) - 1));
  if (count < 5) return;
  StrBuf b;
  sb_init(&b);
  sb_printf(&b, "warning: %d out of the last %d calls to <tf.function %s> triggered retracing; ", count, f->nhist,
            f->name);
  /* the previous call's signature */
  const unsigned char *pk = NULL;
  const size_t *po = NULL;
  if (f->last && f->prev_is_last) {
    pk = f->last->key;
    po = f->last->off;
  } else if (f->prev.p && f->nprevoff == nb + 1) {
    pk = f->prev.p;
    po = f->prevoff;
  }
  bool named = false;
  if (pk && po) {
    for (int i = 0; i < nb; i++) {
      size_t la = po[i + 1] - po[i], lb = off[i + 1] - off[i];
      if (la == lb && !memcmp(pk + po[i], k->p + off[i], la)) continue;
      const char *const *params;
      int np = tffn_params(f->fn, &params);
      char pn[32];
      snprintf(pn, sizeof pn, "arg%d", i);
      sb_printf(&b, "the signature changed in argument '%s': ", np == nb ? params[i] : pn);
      key_desc(&b, pk + po[i]);
      sb_puts(&b, " -> ");
      key_desc(&b, k->p + off[i]);
      sb_puts(&b, ". ");
      named = true;
      break;
    }
  }
  if (!named) sb_puts(&b, "the call signature changed. ");
  sb_puts(&b, "Pass tensors of one shape, use input_signature, or reduce_retracing=True.\n");
  rt_flush();
  fwrite(b.data, 1, b.len, stderr);
  fflush(stderr);
  sb_free(&b);
  f->hist = 0;
  f->nhist = 0;
  f->nwarn++;
}

/* The one concrete function of an input_signature. */
/* The default of parameter i beyond the input_signature (VT_UNDEF: none). */
static Val tffn_default(TfFunction *f, int i) {
  if (!val_is(f->fn, &func_type)) return val_undef();
  Func *fn = (Func *)f->fn.u.o;
  int first = fn->info->nparams - fn->ndefaults;
  return i >= first && i < fn->info->nparams ? fn->defaults[i - first] : val_undef();
}

static Concrete *tffn_sig_concrete(TfFunction *f, int nb, Val self) {
  int so = tffn_self(f);
  if (so && (val_is_undef(self) || self.tag != VT_OBJ))
    rt_throw(ERR_TYPE, "tf.function '%s' is a method: get its concrete function from an instance ('obj.%s')", f->name,
             strrchr(f->name, '.') ? strrchr(f->name, '.') + 1 : f->name);
  for (int i = 0; i < f->nconc; i++)
    if (f->conc[i]->scope == tffn_scope(f) && (!so || tffn_conc_self(f->conc[i], self))) return f->conc[i];
  Tuple *sig = (Tuple *)f->sig.u.o;
  const char *const *params;
  int np = tffn_params(f->fn, &params);
  if (np > nb) nb = np;   /* parameters after the signature take their defaults */
  int va = tffn_varargs_index(f), vk = tffn_varkw_index(f);
  if (va >= 0) nb = np;   /* *args takes the signature's remaining items as one tuple */
  if (vk >= 0) nb = np;   /* **kwargs: empty under an input_signature */
  KeyBuf k;
  kb_init(&k);
  Leaves lv;
  lv_init(&lv);
  size_t offb[17], *off = nb < 16 ? offb : malloc(sizeof(size_t) * (size_t)(nb + 1));
  Val *args = malloc(sizeof(Val) * (size_t)(nb + 1));
  if (!off || !args) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(args);   /* a failing trace must not leak it */
  for (int i = 0; i < nb; i++) {
    if (i == va) {
      int first = i - so < sig->len ? i - so : (int)sig->len;
      args[i] = tuple_new(sig->len - first);
      rt_hold_val(args[i]);
      for (int j = first; j < sig->len; j++) ((Tuple *)args[i].u.o)->items[j - first] = val_incref(sig->items[j]);
    } else if (i == vk) {
      args[i] = dict_new();
      rt_hold_val(args[i]);
    } else {
      args[i] = i < so ? self : i - so < sig->len && (va < 0 || i < va) ? sig->items[i - so] : tffn_default(f, i);
    }
    off[i] = k.len;
    key_arg(&k, args[i], &lv, KEY_SPECS);
  }
  off[nb] = k.len;
  bool late = false;
  Concrete *c = tffn_trace_rules(f, nb, args, NULL, k.p, k.len, off, &late);
  c->sig = val_incref(f->sig);
  c->sig_self = so;
  if (late) tffn_late_vars();
  rt_unhold(mark);
  if (va >= 0) val_decref(args[va]);
  if (vk >= 0) val_decref(args[vk]);
  free(args);
  if (off != offb) free(off);
  lv_free(&lv);
  kb_free(&k);
  return c;
}

/* ---- trace types: a concrete function's signature as TF 2.15 prints it ----------------------------
 * Every argument has a trace type: a tensor its TensorSpec, a host value Literal[value], a list,
 * tuple or dict List[...], Tuple[...], Dict[[key, type], ...]; a FunctionType lists the parameters
 * with their kinds, the output type and the captures (core/function/polymorphism/function_type.py). */

enum { PK_POSITIONAL_ONLY, PK_POSITIONAL_OR_KEYWORD, PK_VAR_POSITIONAL, PK_KEYWORD_ONLY, PK_VAR_KEYWORD };
static const char *const tffn_pk_names[] = {"POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY",
                                            "VAR_KEYWORD"};

/* The trace type of a value (specs stand for tensors): repr of TF's TraceType. */
static void tt_repr(StrBuf *b, Val v) {
  if (val_is(v, &tffn_spec_type) || tfdata_is_spec(v) || comp_is_spec(v)) {
    val_repr(b, v);
    return;
  }
  if (comp_is_value(v)) {   /* a composite's trace type: its TypeSpec */
    Val spec = rt_getattr(v, "_type_spec");
    int mark = rt_hold_val(spec);
    val_repr(b, spec);
    rt_unhold(mark);
    val_decref(spec);
    return;
  }
  Tensor *t = val_is(v, &tensor_type) || val_is_ndarray(v) ? val_as_tensor(v) : NULL;
  if (t) {
    sb_puts(b, "TensorSpec(shape=");
    if (t->rank < 0) sb_puts(b, "<unknown>");
    else graph_shape_text(b, t->rank, t->shape);
    sb_printf(b, ", dtype=tf.%s, name=None)", dtype_info[t->dtype].name);
    return;
  }
  tfs_i64 n;
  const Val *items;
  if (seq_items(v, &n, &items)) {
    sb_puts(b, val_is(v, &list_type) ? "List[" : "Tuple[");
    for (tfs_i64 i = 0; i < n; i++) {
      if (i) sb_puts(b, ", ");
      tt_repr(b, items[i]);
    }
    sb_putc(b, ']');
    return;
  }
  if (val_is(v, &dict_type)) {
    Dict *d = (Dict *)v.u.o;
    sb_puts(b, "Dict[");
    bool first = true;
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      sb_puts(b, first ? "[" : ", [");
      first = false;
      val_repr(b, d->keys[i]);
      sb_puts(b, ", ");
      tt_repr(b, d->vals[i]);
      sb_putc(b, ']');
    }
    sb_putc(b, ']');
    return;
  }
  if (val_is(v, &variable_type)) {
    Tensor *vt = val_as_tensor(v);
    sb_puts(b, "VariableSpec(shape=");
    graph_shape_text(b, vt ? vt->rank : 0, vt ? vt->shape : NULL);
    sb_printf(b, ", dtype=tf.%s, trainable=%s, alias_id=None)", vt ? dtype_info[vt->dtype].name : "float32",
              ((Variable *)v.u.o)->trainable ? "True" : "False");
    return;
  }
  if (v.tag == VT_OBJ && v.u.o->type == &inst_type) {
    sb_printf(b, "Weakref[<weakref to '%s' object at 0x%llx>])", val_type_name(v), (unsigned long long)(uintptr_t)v.u.o);
    return;
  }
  sb_puts(b, "Literal[");
  val_repr(b, v);
  sb_putc(b, ']');
}

/* A template with its tensor markers replaced by TensorSpecs of c's placeholders (owned). */
static Val conc_tmpl_spec(const Concrete *c, Val tmpl) {
  int idx;
  if (nest_is_leaf(tmpl, &idx))
    return tffn_spec_new(c->leafm[idx].rank, c->leafm[idx].shape, c->leafm[idx].dtype, val_none());
  if (val_is(tmpl, &nest_packed_type)) return val_incref(nest_packed_spec(tmpl));   /* a composite: its TypeSpec */
  tfs_i64 n;
  const Val *items;
  if (seq_items(tmpl, &n, &items)) {
    bool list = val_is(tmpl, &list_type);
    Val r = list ? list_new(n) : tuple_new(n);
    for (tfs_i64 i = 0; i < n; i++) {
      Val e = conc_tmpl_spec(c, items[i]);
      if (list) {
        list_append(r, e);
        val_decref(e);
      } else {
        ((Tuple *)r.u.o)->items[i] = e;
      }
    }
    return r;
  }
  if (val_is(tmpl, &dict_type)) {
    Dict *d = (Dict *)tmpl.u.o;
    Val r = dict_new();
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      Val e = conc_tmpl_spec(c, d->vals[i]);
      dict_set(r, d->keys[i], e);
      val_decref(e);
    }
    return r;
  }
  return val_incref(tmpl);
}

/* One parameter of a concrete function's FunctionType (*args and **kwargs unbundled, as TF's
 * canonicalize_to_monomorphic does: args_0.. positional-only, each keyword its own keyword-only). */
typedef struct PParam {
  char name[64];
  int kind;
  int slot;                   /* index among the bound parameters */
  Val key;                    /* *args: the item's index; **kwargs: the key; VT_UNDEF: the whole slot */
  Val type;                   /* owned: the template with specs for tensors (or the input_signature's item) */
} PParam;

typedef struct PParams { PParam *p; int n; } PParams;

static void pparams_free(void *pp) {
  PParams *ps = pp;
  for (int i = 0; i < ps->n; i++) {
    val_decref(ps->p[i].type);
    val_decref(ps->p[i].key);
  }
  free(ps->p);
  ps->p = NULL;
  ps->n = 0;
}

static PParam *pparams_add(PParams *ps, int cap) {
  (void)cap;
  PParam *p = &ps->p[ps->n++];
  p->name[0] = 0;
  p->key = val_undef();
  p->type = val_undef();
  return p;
}

/* The FunctionType parameters of c (a method's self left out, as TF binds it).  Caller frees. */
static void conc_params(const Concrete *c, PParams *ps) {
  const FuncInfo *info = val_is(c->fn, &func_type) ? ((Func *)c->fn.u.o)->info : NULL;
  if (info && info->nparams != c->nparams) info = NULL;
  Tuple *tm = (Tuple *)c->args_tmpl.u.o;
  int cap = c->nparams + 1;
  for (int i = 0; i < c->nparams; i++) {
    tfs_i64 k;
    const Val *it;
    if (seq_items(tm->items[i], &k, &it)) cap += (int)k;
    else if (val_is(tm->items[i], &dict_type)) cap += (int)((Dict *)tm->items[i].u.o)->len;
  }
  ps->p = calloc((size_t)cap, sizeof(PParam));
  ps->n = 0;
  if (!ps->p) rt_throw(ERR_MEMORY, "out of memory");
  int np = c->nparams, nkw = info ? info->nkwonly : 0, va = info ? info->varargs : 0, vk = info ? info->varkw : 0;
  int npos = np - nkw - va - vk, first = np > 0 && !strcmp(c->params[0], "self") ? 1 : 0;
  int nsig = val_is_undef(c->sig) ? 0 : (int)((Tuple *)c->sig.u.o)->len;
  for (int i = first; i < npos; i++) {
    PParam *p = pparams_add(ps, cap);
    snprintf(p->name, sizeof p->name, "%s", c->params[i]);
    p->kind = (info && i < info->nposonly) || va ? PK_POSITIONAL_ONLY : PK_POSITIONAL_OR_KEYWORD;
    p->slot = i;
    p->type = i - c->sig_self >= 0 && i - c->sig_self < nsig ? val_incref(((Tuple *)c->sig.u.o)->items[i - c->sig_self])
                                                             : conc_tmpl_spec(c, tm->items[i]);
  }
  if (va) {
    tfs_i64 k;
    const Val *it;
    if (seq_items(tm->items[npos], &k, &it))
      for (tfs_i64 j = 0; j < k; j++) {
        PParam *p = pparams_add(ps, cap);
        snprintf(p->name, sizeof p->name, "%s_%lld", c->params[npos], (long long)j);
        p->kind = PK_POSITIONAL_ONLY;
        p->slot = npos;
        p->key = val_int(j);
        p->type = conc_tmpl_spec(c, it[j]);
      }
  }
  for (int i = npos + va; i < npos + va + nkw; i++) {
    PParam *p = pparams_add(ps, cap);
    snprintf(p->name, sizeof p->name, "%s", c->params[i]);
    p->kind = PK_KEYWORD_ONLY;
    p->slot = i;
    p->type = conc_tmpl_spec(c, tm->items[i]);
  }
  if (vk && val_is(tm->items[np - 1], &dict_type)) {
    /* each keyword its own parameter, by name */
    Dict *d = (Dict *)tm->items[np - 1].u.o;
    int start = ps->n;
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i]) || !val_is(d->keys[i], &str_type)) continue;
      PParam *p = pparams_add(ps, cap);
      snprintf(p->name, sizeof p->name, "%s", str_cstr(d->keys[i]));
      p->kind = PK_KEYWORD_ONLY;
      p->slot = np - 1;
      p->key = val_incref(d->keys[i]);
      p->type = conc_tmpl_spec(c, d->vals[i]);
    }
    for (int i = start + 1; i < ps->n; i++)   /* sorted by name */
      for (int j = i; j > start && strcmp(ps->p[j - 1].name, ps->p[j].name) > 0; j--) {
        PParam t = ps->p[j];
        ps->p[j] = ps->p[j - 1];
        ps->p[j - 1] = t;
      }
  }
}

/* The output type: the result's structure with TensorSpecs of the graph's outputs. */
static void conc_output_repr(StrBuf *b, const Concrete *c) {
  Val o = tffn_output_spec(val_obj((Obj *)c));
  int mark = rt_hold_val(o);
  tt_repr(b, o);
  rt_unhold(mark);
  val_decref(o);
}

/* str(FunctionType) (inspect.Signature's text): (x: TensorSpec(...), *, k: Literal[1]) -> TensorSpec(...) */
static void conc_sig_str(StrBuf *b, const Concrete *c) {
  PParams ps = {0};
  int mark = rt_hold_fn(pparams_free, &ps);
  conc_params(c, &ps);
  sb_putc(b, '(');
  bool posonly = false, kwsep = true, first = true;
  for (int i = 0; i < ps.n; i++) {
    const PParam *p = &ps.p[i];
    if (p->kind == PK_POSITIONAL_ONLY) {
      posonly = true;
    } else if (posonly) {
      sb_puts(b, first ? "/" : ", /");
      first = false;
      posonly = false;
    }
    if (p->kind == PK_KEYWORD_ONLY && kwsep) {
      sb_puts(b, first ? "*" : ", *");
      first = false;
      kwsep = false;
    }
    sb_printf(b, "%s%s: ", first ? "" : ", ", p->name);
    first = false;
    tt_repr(b, p->type);
  }
  if (posonly) sb_puts(b, first ? "/" : ", /");
  sb_puts(b, ") -> ");
  conc_output_repr(b, c);
  rt_unhold(mark);
  pparams_free(&ps);
}

/* The graph's captures (Variables as resource handles, tensors from outside), each once, with an id. */
static void conc_captures(StrBuf *b, const Graph *g, Val seen) {
  for (int i = 0; i < g->nnodes; i++) {
    const GraphNode *nd = &g->nodes[i];
    const Obj *o = nd->kind == GN_VARHANDLE ? &nd->var->hdr
                   : nd->kind == GN_CONST && (nd->flags & GNF_CAPTURE) ? &nd->value->hdr
                                                                      : NULL;
    if (o) {
      List *l = (List *)seen.u.o;
      bool dup = false;
      for (tfs_i64 j = 0; j < l->len && !dup; j++) dup = l->items[j].u.o == o;
      if (!dup) {
        list_append(seen, val_obj((Obj *)o));
        sb_printf(b, "\n  %llu: ", (unsigned long long)(uintptr_t)o);
        if (nd->kind == GN_VARHANDLE) sb_puts(b, "TensorSpec(shape=(), dtype=tf.resource, name=None)");
        else tt_repr(b, val_obj((Obj *)o));
      }
    }
    for (int k = 0; k < 2; k++)
      if (nd->sub[k]) conc_captures(b, nd->sub[k], seen);
  }
}

/* repr(FunctionType): TF 2.15's Input Parameters / Output Type / Captures block. */
static void tffn_pp_concrete(StrBuf *b, const Concrete *c) {
  PParams ps = {0};
  int mark = rt_hold_fn(pparams_free, &ps);
  conc_params(c, &ps);
  sb_puts(b, "Input Parameters:");
  for (int i = 0; i < ps.n; i++) {
    sb_printf(b, "\n  %s (%s): ", ps.p[i].name, tffn_pk_names[ps.p[i].kind]);
    tt_repr(b, ps.p[i].type);
  }
  sb_puts(b, "\nOutput Type:\n  ");
  conc_output_repr(b, c);
  sb_puts(b, "\nCaptures:");
  Val seen = list_new(0);
  rt_hold_val(seen);
  size_t before = b->len;
  conc_captures(b, c->g, seen);
  if (b->len == before) sb_puts(b, "\n  None");
  rt_unhold(mark);
  val_decref(seen);
  pparams_free(&ps);
}

/* ---- casting call arguments to trace types (TF's TraceType.cast) ---------------------------------
 * TF binds a call to the FunctionType, then casts each argument to its parameter's type: a
 * TensorSpec converts a Python value to its dtype and accepts a tensor whose spec is a subtype
 * (same dtype, every known dim equal), a Literal accepts an equal value, List/Tuple/Dict the same
 * structure.  A failure is TF's TypeError "Binding inputs to tf.function failed due to `...`". */

typedef struct Cast {
  Leaves *lv;
  Val owned;                  /* list: tensors converted from host values (kept until the call ends) */
  bool allow_specs;           /* get_concrete_function: a TensorSpec stands for a tensor of its type */
  StrBuf why;                 /* the reason of a failure */
} Cast;

/* TensorSpec(shape=..., dtype=tf.X, name=...) */
static void spec_text(StrBuf *b, int dtype, int rank, const tfs_i64 *dims, Val name) {
  sb_puts(b, "TensorSpec(shape=");
  if (rank < 0) sb_puts(b, "<unknown>");
  else graph_shape_text(b, rank, dims);
  sb_printf(b, ", dtype=tf.%s, name=", dtype_info[dtype].name);
  if (val_is_undef(name)) sb_puts(b, "None");
  else val_repr(b, name);
  sb_putc(b, ')');
}

/* TensorSpec.is_subtype_of: same dtype, and every dim the supertype knows equal. */
static bool spec_subtype(int adt, int arank, const tfs_i64 *adims, int bdt, int brank, const tfs_i64 *bdims) {
  if (adt != bdt) return false;
  if (brank < 0) return true;
  if (arank != brank) return false;
  for (int i = 0; i < brank; i++)
    if (bdims[i] >= 0 && adims[i] != bdims[i]) return false;
  return true;
}

/* Host value -> tensor of dtype dt; false with the converter's message in cx->why. */
static bool cast_convert(Cast *cx, Val v, int dt, Tensor **out) {
  Tensor *volatile t = NULL;
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb) == 0) {
    t = tensor_from_val(v, dt);
    rt_try_pop(&tr);
  } else {
    sb_puts(&cx->why, tr.msg ? tr.msg : "conversion failed");
    rt_try_clear(&tr);
    return false;
  }
  list_append(cx->owned, val_obj(t));
  tensor_release(t);
  *out = t;
  return true;
}

/* TensorSpec.cast: spec (dtype, rank, dims; specv its TensorSpec value for texts, or VT_UNDEF). */
static bool cast_spec(Cast *cx, int dt, int rank, const tfs_i64 *dims, Val specv, Val v) {
  Val name = val_is(specv, &tffn_spec_type) ? ((TensorSpecObj *)specv.u.o)->name : val_undef();
  if (cx->allow_specs && val_is(v, &tffn_spec_type)) {
    const TensorSpecObj *o = (const TensorSpecObj *)v.u.o;
    if (spec_subtype(o->dtype, o->rank, o->dims, dt, rank, dims)) {
      lv_push(cx->lv, NULL);
      return true;
    }
    sb_puts(&cx->why, "Can not cast ");
    val_repr(&cx->why, v);
    sb_puts(&cx->why, " to ");
    spec_text(&cx->why, dt, rank, dims, name);
    return false;
  }
  Tensor *t = val_is(v, &tensor_type) ? val_tensor(v) : NULL;
  if (!t && !cast_convert(cx, v, dt, &t)) return false;
  if (!spec_subtype(t->dtype, t->rank, t->shape, dt, rank, dims) &&
      !(t->dtype == (DType)dt && rank >= 0 && spec_subtype(dt, rank, dims, t->dtype, t->rank, t->shape))) {
    /* (the second: a symbolic tensor of unknown dims, which TF gives the spec's shape) */
    sb_puts(&cx->why, "Can not cast ");
    spec_text(&cx->why, t->dtype, t->rank, t->shape, name);
    sb_puts(&cx->why, " to ");
    spec_text(&cx->why, dt, rank, dims, name);
    return false;
  }
  lv_push(cx->lv, t);
  return true;
}

/* The structure checks of List/Tuple/Dict.cast; false with TF's assertion text. */
static bool cast_seq(Cast *cx, Val v, bool list, tfs_i64 n, tfs_i64 *nv, const Val **iv) {
  if (!val_is(v, list ? &list_type : &tuple_type)) {
    sb_puts(&cx->why, "Can not cast ");
    val_repr(&cx->why, v);
    sb_puts(&cx->why, list ? " to list type." : " to tuple type.");
    return false;
  }
  seq_items(v, nv, iv);
  if (*nv != n) {
    sb_puts(&cx->why, "Expected ");
    val_str(&cx->why, v);
    sb_printf(&cx->why, " to have length of %lld", (long long)n);
    return false;
  }
  return true;
}

static bool cast_dict(Cast *cx, Val v, Val tmpl) {
  if (!val_is(v, &dict_type)) {
    sb_puts(&cx->why, "Can not cast ");
    val_repr(&cx->why, v);
    sb_puts(&cx->why, " to a Dict type.");
    return false;
  }
  Dict *d = (Dict *)tmpl.u.o;
  bool same = ((Dict *)v.u.o)->len == d->len;
  for (tfs_i64 i = 0; i < d->used && same; i++) {
    if (val_is_undef(d->keys[i])) continue;
    Val e = dict_get(v, d->keys[i]);
    same = !val_is_undef(e);
    val_decref(e);
  }
  if (!same) {
    val_repr(&cx->why, v);
    sb_puts(&cx->why, " has different keys with the TraceType ");
    tt_repr(&cx->why, tmpl);
    sb_putc(&cx->why, '.');
  }
  return same;
}

/* Cast v to an input_signature item (a TensorSpec or a list, tuple or dict of them). */
/* Cast v to a composite's spec (tf.RaggedTensorSpec): a value of a compatible spec, whose components are fed. */
static bool cast_composite(Cast *cx, Val spec, Val v) {
  bool given_spec = cx->allow_specs && comp_is_spec(v);
  Val vs = given_spec ? val_incref(v) : comp_is_value(v) ? rt_getattr(v, "_type_spec") : val_undef();
  int mark = rt_hold_val(vs);
  bool ok = !val_is_undef(vs) && ((Inst *)vs.u.o)->klass == ((Inst *)spec.u.o)->klass;
  if (ok) {
    Val r = comp_call(spec, "is_compatible_with", 1, &vs);
    ok = rt_truthy(r);
    val_decref(r);
  }
  if (!ok) {
    sb_puts(&cx->why, "Can not cast ");
    val_repr(&cx->why, val_is_undef(vs) ? v : vs);
    sb_puts(&cx->why, " to ");
    val_repr(&cx->why, spec);
  } else if (given_spec) {
    KeyBuf k;
    kb_init(&k);
    key_composite(&k, spec, val_undef(), cx->lv, 0);
    kb_free(&k);
  } else {
    KeyBuf k;
    kb_init(&k);
    key_composite(&k, spec, v, cx->lv, KEY_SYMBOLIC);   /* (the spec's component shapes, the value's tensors) */
    kb_free(&k);
  }
  rt_unhold(mark);
  val_decref(vs);
  return ok;
}

/* v against a DatasetSpec or IteratorSpec tmpl: a dataset (an iterator) of the same element_spec, fed by its handle. */
static bool cast_dspec(Cast *cx, Val tmpl, Val v) {
  bool iter = tfdata_spec_is_iter(tmpl);
  bool ok = iter ? tfdata_is_eiter(v) : tfdata_is_dataset(v) && !tfdata_is_arg(v);
  if (ok) {
    KeyBuf a, b;
    kb_init(&a);
    kb_init(&b);
    key_dspec(&a, tmpl);
    if (iter) key_ds(&b, tfdata_eiter_spec(v), 'I');
    else key_dataset(&b, tfdata_element_spec(v));
    ok = a.len == b.len && !memcmp(a.p, b.p, a.len);
    kb_free(&a);
    kb_free(&b);
  }
  if (!ok) {
    sb_puts(&cx->why, "Can not cast ");
    val_repr(&cx->why, v);
    sb_puts(&cx->why, " to ");
    val_repr(&cx->why, tmpl);
    return false;
  }
  lv_push(cx->lv, iter ? tfdata_eiter_handle(v) : tfdata_handle(v));
  return true;
}

static bool cast_sig(Cast *cx, Val spec, Val v) {
  if (val_is(spec, &tffn_spec_type)) {
    const TensorSpecObj *s = (const TensorSpecObj *)spec.u.o;
    return cast_spec(cx, s->dtype, s->rank, s->dims, spec, v);
  }
  if (comp_is_spec(spec)) return cast_composite(cx, spec, v);
  if (tfdata_is_spec(spec)) return cast_dspec(cx, spec, v);
  tfs_i64 n, nv;
  const Val *items, *iv;
  if (seq_items(spec, &n, &items)) {
    if (!cast_seq(cx, v, val_is(spec, &list_type), n, &nv, &iv)) return false;
    for (tfs_i64 i = 0; i < n; i++)
      if (!cast_sig(cx, items[i], iv[i])) return false;
    return true;
  }
  if (val_is(spec, &dict_type)) {
    if (!cast_dict(cx, v, spec)) return false;
    Dict *d = (Dict *)spec.u.o;
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      Val e = dict_get(v, d->keys[i]);
      int mark = rt_hold_val(e);
      bool ok = cast_sig(cx, d->vals[i], e);
      rt_unhold(mark);
      val_decref(e);
      if (!ok) return false;
    }
    return true;
  }
  return true;
}

/* Literal.cast (and a Weakref's or Variable's identity): v against the traced host value h (key atom p). */
static bool cast_literal(Cast *cx, Val h, const unsigned char *p, Val v) {
  bool ok;
  if (*p == 'O') {
    ok = key_is_obj(p, v);
  } else if (*p == 'V') {
    /* any Variable of the traced VariableSpec (dtype, shape, trainable, aliasing): the call runs
     * the graph on it (tffn_rebind), as TF feeds a Variable's handle */
    ok = val_is(v, &variable_type);
    if (ok) {
      KeyBuf k;
      kb_init(&k);
      key_arg(&k, v, cx->lv, 0);
      ok = k.len == (size_t)(key_skip(p) - p) && !memcmp(k.p, p, k.len);
      kb_free(&k);
    }
  } else if (*p == 'N' || *p == 'b' || *p == 'i' || *p == 'f' || *p == 's') {
    ok = !val_is_tensor(v) && !val_is_ndarray(v) && val_eq(v, h);
  } else {
    KeyBuf k;
    Leaves dummy;
    kb_init(&k);
    lv_init(&dummy);
    key_arg(&k, v, &dummy, KEY_SYMBOLIC);
    const unsigned char *e = key_skip(p);
    ok = k.len == (size_t)(e - p) && !memcmp(k.p, p, k.len);
    lv_free(&dummy);
    kb_free(&k);
  }
  if (!ok) {
    sb_puts(&cx->why, "Can not cast ");
    val_repr(&cx->why, v);
    sb_puts(&cx->why, " to ");
    if (*p == 'O') sb_puts(&cx->why, "Weakref[<weakref to an object>])");
    else tt_repr(&cx->why, h);
  }
  return ok;
}

/* Cast v to the traced type of a concrete function's argument: template tmpl, key atom p. */
static bool cast_tmpl(Cast *cx, const Concrete *c, Val tmpl, const unsigned char *p, Val v) {
  int idx;
  if (tfdata_is_spec(tmpl)) return cast_dspec(cx, tmpl, v);
  if (nest_is_leaf(tmpl, &idx)) {
    const TMeta *m = &c->leafm[idx];
    return cast_spec(cx, m->dtype, m->rank, m->shape, val_undef(), v);
  }
  if (*p == 'C' && val_is(tmpl, &nest_packed_type)) {
    /* a composite: a value (or, for a concrete function's own specs, a spec) whose key the traced one accepts */
    bool ok = comp_is_value(v) || (cx->allow_specs && comp_is_spec(v));
    if (ok) {
      KeyBuf k;
      kb_init(&k);
      int n0 = cx->lv->n;
      key_arg(&k, v, cx->lv, KEY_SPECS | KEY_SYMBOLIC);
      ok = *k.p == 'C' && key_accepts(p, k.p);
      if (!ok) cx->lv->n = n0;
      kb_free(&k);
    }
    if (!ok) {
      sb_puts(&cx->why, "Can not cast ");
      val_repr(&cx->why, v);
      sb_puts(&cx->why, " to ");
      key_desc(&cx->why, p);
    }
    return ok;
  }
  tfs_i64 n, nv;
  const Val *items, *iv;
  if ((*p == 'L' || *p == 'U') && seq_items(tmpl, &n, &items)) {
    if (!cast_seq(cx, v, *p == 'L', n, &nv, &iv)) return false;
    const unsigned char *q = p + 9;
    for (tfs_i64 i = 0; i < n; i++, q = key_skip(q))
      if (!cast_tmpl(cx, c, items[i], q, iv[i])) return false;
    return true;
  }
  if (*p == 'D' && val_is(tmpl, &dict_type)) {
    if (!cast_dict(cx, v, tmpl)) return false;
    Dict *d = (Dict *)tmpl.u.o;
    const unsigned char *q = p + 9;
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      q = key_skip(q);   /* the key's atom */
      Val e = dict_get(v, d->keys[i]);
      int mark = rt_hold_val(e);
      bool ok = cast_tmpl(cx, c, d->vals[i], q, e);
      rt_unhold(mark);
      val_decref(e);
      if (!ok) return false;
      q = key_skip(q);
    }
    return true;
  }
  return cast_literal(cx, tmpl, p, v);
}

/* TF's binding error: the reason, the call's arguments and the signature (sig writes it). */
static _Noreturn void bind_fail(const char *why, int n, const Val *args, const Kw *kw, StrBuf *sig, const char *flat) {
  StrBuf b;
  sb_init(&b);
  rt_hold_sb(&b);
  sb_printf(&b, "Binding inputs to tf.function failed due to `%s`. Received args: ", why);
  Val t = tuple_new(n);
  for (int i = 0; i < n; i++) ((Tuple *)t.u.o)->items[i] = val_incref(args[i]);
  rt_hold_val(t);
  val_repr(&b, t);
  Val d = dict_new();
  rt_hold_val(d);
  for (int k = 0; kw && k < kw->n; k++) {
    Val key = str_from_cstr(kw->names[k]);
    dict_set(d, key, kw->vals[k]);
    val_decref(key);
  }
  sb_puts(&b, " and kwargs: ");
  val_repr(&b, d);
  sb_puts(&b, " for signature: ");
  sb_putn(&b, sig->data ? sig->data : "", sig->len);
  sb_putc(&b, '.');
  if (flat) sb_printf(&b, "\nFallback to flat signature also failed due to: %s", flat);
  /* errindex: Binding inputs to tf.function failed due to `…`. Received args: … and kwargs: … for signature: … */
  rt_throw(ERR_TYPE, "%s", b.data);
}

/* inspect.Signature.bind's reason for a call that does not fit the parameters (positional
 * parameters first (kinds POSITIONAL_*), then keyword-only), or NULL; required[i]: no default. */
static const char *bind_why(char *buf, size_t bn, int np, const char *const *names, const int *kinds, const bool *required,
                            int n, const Kw *kw, bool varkw, bool *set) {
  for (int i = 0; i < np; i++) set[i] = false;
  int npos = 0;
  while (npos < np && kinds[npos] <= PK_POSITIONAL_OR_KEYWORD) npos++;
  if (n > npos) return "too many positional arguments";
  for (int i = 0; i < n; i++) set[i] = true;
  for (int k = 0; kw && k < kw->n; k++) {
    int j = -1;
    for (int i = 0; i < np && j < 0; i++)
      if (kinds[i] != PK_POSITIONAL_ONLY && !strcmp(names[i], kw->names[k])) j = i;
    if (j < 0) {
      if (varkw) continue;
      snprintf(buf, bn, "got an unexpected keyword argument '%s'", kw->names[k]);
      return buf;
    }
    if (set[j]) {
      snprintf(buf, bn, "multiple values for argument '%s'", names[j]);
      return buf;
    }
    set[j] = true;
  }
  for (int i = 0; i < np; i++)
    if (!set[i] && required[i]) {
      snprintf(buf, bn, "missing a required argument: '%s'", names[i]);
      return buf;
    }
  return NULL;
}

/* str of a tf.function's FunctionType under an input_signature: (x: TensorSpec(...), k: Literal[1] = <captured_default_value>) */
static void tffn_poly_sig_str(StrBuf *b, TfFunction *f) {
  const FuncInfo *info = ((Func *)f->fn.u.o)->info;
  Tuple *sig = (Tuple *)f->sig.u.o;
  int so = tffn_self(f), np = info->nparams, nkw = info->nkwonly;
  int npos = np - nkw - info->varargs - info->varkw, j = 0;
  bool kwsep = !info->varargs, first = true, posonly = false;
  sb_putc(b, '(');
  for (int i = so; i < np; i++) {
    if (info->varkw && i == np - 1) break;   /* **kwargs: left out under an input_signature */
    bool va = info->varargs && i == npos;
    int kind = va || i < info->nposonly ? PK_POSITIONAL_ONLY : i > npos ? PK_KEYWORD_ONLY : PK_POSITIONAL_OR_KEYWORD;
    if (info->varargs && kind == PK_POSITIONAL_OR_KEYWORD) kind = PK_POSITIONAL_ONLY;
    int reps = va ? (int)sig->len - j : 1;
    for (int r = 0; r < reps; r++) {
      if (kind == PK_POSITIONAL_ONLY) posonly = true;
      else if (posonly) {
        sb_puts(b, first ? "/" : ", /");
        first = false;
        posonly = false;
      }
      if (kind == PK_KEYWORD_ONLY && kwsep) {
        sb_puts(b, first ? "*" : ", *");
        first = false;
        kwsep = false;
      }
      if (!first) sb_puts(b, ", ");
      first = false;
      if (va) sb_printf(b, "%s_%d: ", info->params[i], r);
      else sb_printf(b, "%s: ", info->params[i]);
      Val d = va ? val_undef() : tffn_default(f, i);
      if (j < sig->len) tt_repr(b, sig->items[j++]);
      else if (!val_is_undef(d)) tt_repr(b, d);
      if (!val_is_undef(d)) sb_puts(b, " = <captured_default_value>");
    }
  }
  if (posonly) sb_puts(b, first ? "/" : ", /");
  sb_putc(b, ')');
}

/* Bind and cast a call of a tf.function with an input_signature (TF's bind_with_defaults):
 * bound (nb values) from tffn_bind; the tensor leaves go to lv, in the order of the signature's
 * concrete function.  Raises TF's binding TypeError. */
static void tffn_sig_cast(TfFunction *f, int n, const Val *args, const Kw *kw, int nb, const Val *bound, Leaves *lv,
                          Val owned, bool specs) {
  Tuple *sig = (Tuple *)f->sig.u.o;
  int so = tffn_self(f);
  Cast cx = {.lv = lv, .owned = owned, .allow_specs = specs};
  sb_init(&cx.why);
  int mark = rt_hold_sb(&cx.why);
  bool ok = true;
  int va = tffn_varargs_index(f);
  for (int i = so; i < nb && ok; i++) {
    if (i == va && val_is(bound[i], &tuple_type)) {
      /* *args takes the signature's remaining items, one each (TF names them args_0, args_1, ...) */
      Tuple *t = (Tuple *)bound[i].u.o;
      int first = i - so;
      if (first + t->len != sig->len) {   /* inspect's words for the FunctionType's args_0, args_1, ... */
        if (first + t->len > sig->len) sb_puts(&cx.why, "too many positional arguments");
        else sb_printf(&cx.why, "missing a required argument: '%s_%lld'", ((Func *)f->fn.u.o)->info->params[i], (long long)t->len);
        ok = false;
      }
      for (tfs_i64 k = 0; k < t->len && ok; k++) ok = cast_sig(&cx, sig->items[first + k], t->items[k]);
    } else if (i - so < sig->len && (va < 0 || i < va)) {
      ok = cast_sig(&cx, sig->items[i - so], bound[i]);
    } else {
      Val d = tffn_default(f, i);   /* a parameter beyond the signature: Literal[default] */
      if (val_is_undef(d)) continue;
      bool same = d.tag != VT_OBJ || val_is(d, &str_type) ? !val_is_tensor(bound[i]) && val_eq(d, bound[i])
                                                          : d.u.o == bound[i].u.o;
      if (!same) {
        sb_puts(&cx.why, "Can not cast ");
        val_repr(&cx.why, bound[i]);
        sb_puts(&cx.why, " to ");
        tt_repr(&cx.why, d);
        ok = false;
      }
    }
  }
  if (!ok) {
    StrBuf s;
    sb_init(&s);
    rt_hold_sb(&s);
    tffn_poly_sig_str(&s, f);
    bind_fail(cx.why.data, n - so, args + so, kw, &s, NULL);
  }
  rt_unhold(mark);
  sb_free(&cx.why);
}

/* The arity check of a call under an input_signature (before tffn_bind, in inspect's words). */
static void tffn_sig_arity(TfFunction *f, int n, const Val *args, const Kw *kw) {
  if (!val_is(f->fn, &func_type)) return;
  const FuncInfo *info = ((Func *)f->fn.u.o)->info;
  if (info->varargs) return;
  Func *fn = (Func *)f->fn.u.o;
  int so = tffn_self(f), np = info->nparams - info->varkw;
  if (n < so) return;
  int nposdef = fn->ndefaults - info->nkwonly, npos = np - info->nkwonly;
  int kinds[64];
  bool req[64], set[64];
  const char *names[64];
  if (np - so > 64) return;
  for (int i = so; i < np; i++) {
    names[i - so] = info->params[i];
    kinds[i - so] = i < info->nposonly ? PK_POSITIONAL_ONLY : i < npos ? PK_POSITIONAL_OR_KEYWORD : PK_KEYWORD_ONLY;
    req[i - so] = i < npos ? i < npos - nposdef : val_is_undef(fn->defaults[nposdef + (i - npos)]);
  }
  char buf[160];
  const char *why = bind_why(buf, sizeof buf, np - so, names, kinds, req, n - so, kw, info->varkw, set);
  if (why) {
    StrBuf s;
    sb_init(&s);
    rt_hold_sb(&s);
    tffn_poly_sig_str(&s, f);
    bind_fail(why, n - so, args + so, kw, &s, NULL);
  }
}

/* A tf.function called while another is traced: it is traced on its own
 * (cached by signature, symbolic arguments by dtype and shape, as TF does)
 * and its graph is inlined into the caller's. */
static Val tffn_call_traced(TfFunction *f, int n, const Val *args, const Kw *kw) {
  TraceCtx *cx = trace_current();
  Val bbuf[8], *bound;
  if (!val_is_undef(f->sig)) tffn_sig_arity(f, n, args, kw);
  int nb = tffn_bind(f, n, args, kw, bbuf, 8, &bound);
  if (tape_any_recording()) {
    /* A tape records the call's ops one by one: the function is traced into
     * this graph instead of inlining its concrete graph (which the tape
     * would not see), so its gradient is the one of the same code inline. */
    if (!val_is_undef(f->sig)) {
      Leaves dummy;
      lv_init(&dummy);
      Val owned = list_new(0);
      int m = rt_hold_val(owned);
      tffn_sig_cast(f, n, args, kw, nb, bound, &dummy, owned, false);
      rt_unhold(m);
      val_decref(owned);
      lv_free(&dummy);
    }
    Val raw = tffn_invoke(f, nb, bound);
    int mark = rt_hold_val(raw);
    Val r = tffn_result_tensors(raw, f->name);
    rt_unhold(mark);
    val_decref(raw);
    tffn_unbind(f, bound, args, bbuf, nb);
    return r;
  }
  CanonArgs *canon = NULL;
  int cmark = -1;
  Leaves lv;
  lv_init(&lv);
  KeyBuf k;
  kb_init(&k);
  size_t offb[17], *off = nb < 16 ? offb : malloc(sizeof(size_t) * (size_t)(nb + 1));
  if (!off) rt_throw(ERR_MEMORY, "out of memory");
  Concrete *c;
  Val owned = list_new(0);   /* tensors converted from host values */
  int omark = rt_hold_val(owned);
  if (!val_is_undef(f->sig)) {
    int so = tffn_self(f);
    tffn_sig_cast(f, n, args, kw, nb, bound, &lv, owned, false);
    c = tffn_sig_concrete(f, nb, so ? bound[0] : val_undef());
  } else {
    canon = tffn_canon_args(nb, bound);   /* dicts in sorted key order */
    if (canon) cmark = rt_hold_fn(tffn_canon_release, canon);
    const Val *ub = canon ? canon->v : bound;
    for (int i = 0; i < nb; i++) {
      off[i] = k.len;
      key_arg(&k, ub[i], &lv, KEY_SYMBOLIC);
    }
    off[nb] = k.len;
    for (int i = 0; i < f->nbusy; i++)
      if (f->busy_len[i] == k.len && !memcmp(f->busy_key[i], k.p, k.len))
        rt_throw(ERR_RECURSION,
                 "tf.function '%s' calls itself with the same signature while it is being traced: recursion whose "
                 "depth depends on a tensor value is not supported (recursion depth must be decided by Python values)",
                 f->name);
    bool traced = false, late = false;
    c = tffn_dispatch(f, nb, ub, canon ? bound : NULL, &k, off, &traced, &late);
    if (late) tffn_late_vars();
    c = tffn_rebind(c, lv.v, lv.nv);
  }
  if (off != offb) free(off);
  kb_free(&k);
  if (lv.n != c->g->ninputs) rt_throw(ERR_RUNTIME, "tf.function '%s': internal: %d inputs for %d placeholders", f->name, lv.n, c->g->ninputs);
  GraphRef *in = malloc(sizeof(GraphRef) * (size_t)(lv.n + 1));
  GraphRef *outs = malloc(sizeof(GraphRef) * (size_t)(c->g->noutputs + 1));
  Val *vals = malloc(sizeof(Val) * (size_t)(c->g->noutputs + 1));
  if (!in || !outs || !vals) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < lv.n; i++) trace_ref(cx, val_obj(lv.t[i]), &in[i]);
  graph_inline(cx->g, c->g, in, outs, &cx->last_effect, &cx->neffects);
  for (int i = 0; i < c->g->noutputs; i++) vals[i] = trace_sym(cx->g, outs[i]);
  Val r = val_is_undef(c->out_tmpl) ? val_incref(vals[0]) : nest_unflatten(c->out_tmpl, vals);
  for (int i = 0; i < c->g->noutputs; i++) val_decref(vals[i]);
  free(vals);
  free(outs);
  free(in);
  if (canon) {
    rt_unhold(cmark);
    tffn_canon_release(canon);
  }
  lv_free(&lv);
  rt_unhold(omark);
  val_decref(owned);
  tffn_unbind(f, bound, args, bbuf, nb);
  return r;
}

void (*tffn_sig_call_hook)(const char *name, int nin, Tensor **in, Val result);

struct Graph *tffn_signature_graph(Val v, const char **name) {
  if (!val_is(v, &tffn_type)) return NULL;
  TfFunction *f = (TfFunction *)v.u.o;
  if (val_is_undef(f->sig)) return NULL;
  *name = f->name;
  return tffn_sig_concrete(f, (int)((Tuple *)f->sig.u.o)->len, val_undef())->g;
}

/* The bound arguments of a call (an ext function's *args tuple and **kwargs dict), released if the call raises. */
typedef struct BindHold {
  TfFunction *f;
  Val *bound;
  const Val *args, *bbuf;
  int nb;
} BindHold;

static void tffn_unbind_held(void *p) {
  BindHold *h = p;
  tffn_unbind(h->f, h->bound, h->args, h->bbuf, h->nb);
}

static Val tffn_call(Val self, int n, const Val *args, const Kw *kw) {
  TfFunction *f = (TfFunction *)self.u.o;
  if (tfmod_run_eagerly) return rt_call(f->fn, n, args, kw);
  if (trace_active()) return tffn_call_traced(f, n, args, kw);
  Val bbuf[8], *bound;
  if (!val_is_undef(f->sig)) tffn_sig_arity(f, n, args, kw);
  int nb = tffn_bind(f, n, args, kw, bbuf, 8, &bound);
  BindHold bh = {f, bound, args, bbuf, nb};
  int bmark = rt_hold_fn(tffn_unbind_held, &bh);
  Val sig_owned = val_undef();
  int smark = rt_hold_ref(&sig_owned);
  Leaves lv;
  lv_init(&lv);
  Tensor *rng = op_tape_nactive && tape_any_recording() ? random_state_get() : NULL;   /* a gradient replays the draws */
  int rmark = rng ? rt_hold_val(val_obj(rng)) : -1;
  Concrete *c;
  Val r;
  if (!val_is_undef(f->sig)) {
    int so = tffn_self(f);
    sig_owned = list_new(0);   /* tensors converted from host values */
    tffn_sig_cast(f, n, args, kw, nb, bound, &lv, sig_owned, false);
    c = tffn_sig_concrete(f, nb, so ? bound[0] : val_undef());
    r = rng ? tffn_run_record(c, nb, bound, &lv, rng) : tffn_run(c, lv.t);
    if (tffn_sig_call_hook) tffn_sig_call_hook(f->name, lv.n, lv.t, r);
  } else {
    /* the last trace again, checked argument by argument against its key (no dict: canonical already) */
    c = f->last;
    bool again = c && !c->relaxed && c->scope == tffn_scope(f);
    if (again && c->nleaves > lv.cap) lv_reserve(&lv, c->nleaves);
    again = again && key_match_args(c->key, c->keylen, nb, bound, &lv);
    CanonArgs *cb = again ? NULL : tffn_canon_args(nb, bound);   /* dicts in sorted key order */
    int cmark = cb ? rt_hold_fn(tffn_canon_release, cb) : -1;
    Val *ub = cb ? cb->v : bound;
    bool late = false;
    if (again) {
      tffn_history(f, false, NULL, NULL, nb);
      tffn_remember_call(f, c, true, NULL, NULL, nb);
    } else {
      KeyBuf k;
      kb_init(&k);
      size_t offb[17], *off = nb < 16 ? offb : malloc(sizeof(size_t) * (size_t)(nb + 1));
      if (!off) rt_throw(ERR_MEMORY, "out of memory");
      for (int i = 0; i < nb; i++) {
        off[i] = k.len;
        key_arg(&k, ub[i], &lv, 0);
      }
      off[nb] = k.len;
      c = f->last;
      bool fast = c && !c->relaxed && c->scope == tffn_scope(f) && c->keylen == k.len && !memcmp(c->key, k.p, k.len);
      bool traced = false;
      if (!fast) c = tffn_dispatch(f, nb, ub, cb ? bound : NULL, &k, off, &traced, &late);
      tffn_history(f, traced, &k, off, nb);
      tffn_remember_call(f, c, fast || (!c->relaxed && c->keylen == k.len && !memcmp(c->key, k.p, k.len)), &k, off, nb);
      if (off != offb) free(off);
      kb_free(&k);
    }
    val_incref(val_obj(c));   /* the call keeps it alive even if the program drops the function */
    int mark = rt_hold_val(val_obj(c));   /* an error out of the graph (caught by try) releases it */
    Concrete *rc = tffn_rebind(c, lv.v, lv.nv);
    r = rng ? tffn_run_record(rc, nb, ub, &lv, rng) : tffn_run(rc, lv.t);
    rt_unhold(mark);
    val_decref(val_obj(c));
    if (cb) {
      rt_unhold(cmark);
      tffn_canon_release(cb);
    }
    if (late) {
      val_decref(r);
      tffn_late_vars();
    }
  }
  if (rng) {
    rt_unhold(rmark);
    val_decref(val_obj(rng));
  }
  f->last = c;
  lv_free(&lv);
  rt_unhold(smark);
  val_decref(sig_owned);
  rt_unhold(bmark);
  tffn_unbind(f, bound, args, bbuf, nb);
  return r;
}

/* ---- concrete function objects -------------------------------------------------------------------- */

static bool tffn_has_leaf(Val tmpl) {
  int idx;
  if (nest_is_leaf(tmpl, &idx) || tfdata_is_spec(tmpl)) return true;
  tfs_i64 n;
  const Val *items;
  if (seq_items(tmpl, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++)
      if (tffn_has_leaf(items[i])) return true;
    return false;
  }
  if (val_is(tmpl, &dict_type)) {
    Dict *d = (Dict *)tmpl.u.o;
    for (tfs_i64 i = 0; i < d->used; i++)
      if (!val_is_undef(d->keys[i]) && tffn_has_leaf(d->vals[i])) return true;
  }
  return false;
}

static Val tffn_conc_leaves(Val tmpl, Val v, const Leaves *lv, int *k);
typedef struct ConcLeavesSeq { const Val *it, *iv; const Leaves *lv; int *k; } ConcLeavesSeq;
static Val tffn_conc_leaves_elem(tfs_i64 i, void *ctx) {
  ConcLeavesSeq *cx = ctx;
  return tffn_conc_leaves(cx->it[i], cx->iv[i], cx->lv, cx->k);
}

/* Argument v of a concrete call with each tensor leaf of its template tmpl replaced by the tensor the
 * call ran with (lv, from *k on): a host number given for a tensor parameter becomes the tensor it was
 * converted to, a constant for the gradient.  VT_UNDEF when a dataset argument leaves no tensor. */
static Val tffn_conc_leaves(Val tmpl, Val v, const Leaves *lv, int *k) {
  int idx;
  if (tfdata_is_spec(tmpl)) return val_undef();
  if (nest_is_leaf(tmpl, &idx)) return val_obj(tensor_retain(lv->t[(*k)++]));
  tfs_i64 nt, nv;
  const Val *it, *iv;
  if (seq_items(tmpl, &nt, &it) && seq_items(v, &nv, &iv)) {
    ConcLeavesSeq cx = {it, iv, lv, k};
    return tffn_seq_rebuild(val_is(v, &list_type), nt, tffn_conc_leaves_elem, &cx);
  }
  if (val_is(tmpl, &dict_type) && val_is(v, &dict_type)) {
    Dict *d = (Dict *)tmpl.u.o;
    Val r = dict_new();
    int mark = rt_hold_val(r);
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      Val ve = dict_get(v, d->keys[i]);
      rt_hold_val(ve);
      Val e = tffn_conc_leaves(d->vals[i], ve, lv, k);
      if (val_is_undef(e)) {
        rt_unhold(mark);
        val_decref(ve);
        val_decref(r);
        return e;
      }
      dict_set(r, d->keys[i], e);
      val_decref(e);
      val_decref(ve);
    }
    rt_unhold(mark);
    return r;
  }
  return val_incref(v);
}

/* Trace f, the joint function of c, on args (key k, offsets off) and split
 * its graph (nargs argument leaves, nout results, nsrc entry inputs whose
 * gradients the trace notes in has). */
static FwdBwd *tffn_fwdbwd_trace(Concrete *c, TfFunction *f, const Val *args, const KeyBuf *k, const size_t *off, Val has,
                                 int nargs, int nout, int nsrc) {
  Concrete *jc = tffn_trace(f, 2, args, NULL, k->p, k->len, off, 0);
  List *hl = (List *)has.u.o;
  int ng = 0;
  for (tfs_i64 i = 0; i < hl->len; i++) ng += rt_truthy(hl->items[i]);
  if (hl->len != nsrc || jc->g->ninputs != nargs + nout || jc->g->noutputs != ng + nout) return NULL;
  FwdBwd *fb = tffn_split(c, jc->g, nargs, nout, ng);
  if (!fb) return NULL;
  int mark = rt_hold_fn(fwdbwd_release, fb);
  fb->nsrc = nsrc;
  fb->has = malloc((size_t)nsrc + 1);
  if (!fb->has) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nsrc; i++) fb->has[i] = (unsigned char)rt_truthy(hl->items[i]);
  rt_unhold(mark);
  return fb;
}

/* The same, NULL when the trace fails: a gradient that cannot be traced is
 * then raised by the rerun, when it is asked for. */
static FwdBwd *tffn_fwdbwd_catch(Concrete *c, TfFunction *f, const Val *args, const KeyBuf *k, const size_t *off, Val has,
                                 int nargs, int nout, int nsrc) {
  FwdBwd *volatile fb = NULL;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    fb = tffn_fwdbwd_trace(c, f, args, k, off, has, nargs, nout, nsrc);
    rt_try_pop(&t);
  } else {
    rt_try_clear(&t);
  }
  return fb;
}

/* The tensor leaves of a call's arguments as specs of c's placeholders, in
 * leaf order (ctx: a LeafSpecs), so that the joint trace has c's shapes,
 * relaxed ones included. */
typedef struct LeafSpecs { const Concrete *c; int k; } LeafSpecs;

static Val tffn_leaf_spec(void *ctx, Val v) {
  LeafSpecs *ls = ctx;
  if (val_is(v, &list_type) || val_is(v, &tuple_type) || val_is(v, &dict_type)) return nest_map(v, tffn_leaf_spec, ctx);
  if ((val_is(v, &tensor_type) || val_is_ndarray(v)) && ls->k < ls->c->nleaves) {
    const TMeta *m = &ls->c->leafm[ls->k++];
    return tffn_spec_new(m->rank, m->shape, m->dtype, val_none());
  }
  return val_incref(v);
}

/* c's forward and backward graphs for a call with bound arguments bt (a
 * tuple) and leaves lv, nsrc entry inputs: traced and split on first use;
 * NULL when calls of c rerun the function for their gradient instead. */
static FwdBwd *tffn_fwdbwd(Concrete *c, int w, Val bt, const Leaves *lv, int nsrc) {
  if (c->fb_state[w]) return c->fb[w];
  c->fb_state[w] = -1;
  int nout = c->g->noutputs;
  if (!tffn_splittable(c->g)) return NULL;
  for (int i = 0; i < nout; i++)
    if (graph_meta(c->g, c->g->outputs[i])->rank < 0) return NULL;
  Val has = list_new(0);
  int mark = rt_hold_val(has);
  Val cfg = tuple_pack(5, c->fn, c->xs[w], val_bool(c->ext), val_undef(), has);
  rt_hold_val(cfg);
  ((Tuple *)cfg.u.o)->items[3] = str_from_cstr(c->name);
  Val body = builtin_new("tf.function.<forward-backward>", tffn_fwdbwd_body, cfg, NULL);
  rt_hold_val(body);
  Val sf = tffn_make(body, val_none(), val_bool(false), val_none());
  rt_hold_val(sf);
  TfFunction *f = (TfFunction *)sf.u.o;
  char jname[256];
  snprintf(jname, sizeof jname, "%s_grad", c->name);   /* the joint graph's name (--dump-graphs), as the rerun's */
  free(f->name);
  f->name = strdup(jname);
  if (!f->name) rt_throw(ERR_MEMORY, "out of memory");
  Val dys = list_new(nout);   /* the output gradients: specs of the results */
  rt_hold_val(dys);
  for (int i = 0; i < nout; i++) {
    const TMeta *m = graph_meta(c->g, c->g->outputs[i]);
    Val sp = tffn_spec_new(m->rank, m->shape, m->dtype, val_none());
    list_append(dys, sp);
    val_decref(sp);
  }
  LeafSpecs ls = {c, 0};
  Val specs = tffn_leaf_spec(&ls, bt);
  rt_hold_val(specs);
  Val args[2] = {specs, dys};
  KeyBuf k;
  kb_init(&k);
  Leaves jl;
  lv_init(&jl);
  size_t off[3];
  for (int i = 0; i < 2; i++) {
    off[i] = k.len;
    key_arg(&k, args[i], &jl, KEY_SPECS);
  }
  off[2] = k.len;
  bool same = ls.k == lv->n && jl.n == lv->n + nout;   /* every leaf a spec, in c's order */
  for (int i = 0; i < jl.n && same; i++) same = jl.t[i] == NULL;
  FwdBwd *fb = same ? tffn_fwdbwd_catch(c, f, args, &k, off, has, lv->n, nout, nsrc) : NULL;
  rt_unhold(mark);
  kb_free(&k);
  lv_free(&jl);
  val_decref(has);
  val_decref(cfg);
  val_decref(body);
  val_decref(sf);
  val_decref(dys);
  val_decref(specs);
  c->fb[w] = fb;
  c->fb_state[w] = fb ? 1 : -1;
  return fb;
}

/* The gradient of a call run by its forward graph.  self: (concrete function,
 * kept values, the rerun gradient's configuration, variant w); args: one gradient per
 * output.  Runs the backward graph, or the rerun when a tape records the
 * gradient (higher order) or a gradient's shape differs from its output's. */
static Val tffn_split_grad(Val self, int n, const Val *args, const Kw *kw) {
  const Val *s = ((Tuple *)self.u.o)->items;
  FwdBwd *fb = ((Concrete *)s[0].u.o)->fb[s[3].u.i];
  bool direct = n == fb->nout && !tape_any_recording();
  for (int i = 0; i < n && direct; i++) {
    const Tensor *t = val_is(args[i], &tensor_type) ? val_tensor(args[i]) : NULL;
    direct = t && !t->sym && t->dtype == fb->dym[i].dtype && t->rank == fb->dym[i].rank;
    for (int d = 0; direct && d < t->rank; d++) direct = fb->dym[i].shape[d] < 0 || t->shape[d] == fb->dym[i].shape[d];
  }
  if (!direct) return tffn_call_grad(s[2], n, args, kw);
  Tuple *mt = (Tuple *)s[1].u.o;
  int ng = 0;
  for (int i = 0; i < fb->nsrc; i++) ng += fb->has[i];
  Tensor **io = malloc(sizeof(Tensor *) * (size_t)(fb->nmid + n + ng + 1));
  if (!io) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(io);
  for (int i = 0; i < fb->nmid; i++) io[i] = val_tensor(mt->items[i]);
  for (int i = 0; i < n; i++) io[fb->nmid + i] = val_tensor(args[i]);
  Tensor **gs = io + fb->nmid + n;
  exec_run(fb->bp, io, gs);
  Val res = list_new(fb->nsrc);
  for (int i = 0, k = 0; i < fb->nsrc; i++) {
    list_append(res, fb->has[i] ? val_obj(gs[k]) : val_none());
    if (fb->has[i]) tensor_release(gs[k++]);
  }
  rt_unhold(mark);
  free(io);
  return res;
}

/* The results of a recorded call are new tensors, as TF's function outputs
 * are: one that is an argument, or an earlier result, becomes a view of it,
 * so that the tape entry's outputs differ from its inputs and each other (a
 * gradient would flow through the entry to itself, or twice). */
static void tffn_distinct_outputs(Tensor **outs, int no, const Leaves *lv) {
  for (int i = 0; i < no; i++) {
    Tensor *t = outs[i];
    bool dup = false;
    for (int j = 0; j < lv->n && !dup; j++) dup = t == lv->t[j];
    for (int j = 0; j < i && !dup; j++) dup = t == outs[j];
    if (!dup || dtype_holds_refs(t->dtype)) continue;
    outs[i] = tensor_view(t, t->rank, t->shape, t->strides, t->offset);
    tensor_release(t);
  }
}

/* Run c on the leaves lv of an eager call (bound: its nb bound arguments) and
 * record the call on the tapes that watch one of its inputs.  rng: the random
 * state before the call, which a rerun for the gradient draws from again. */
static Val tffn_run_record(Concrete *c, int nb, const Val *bound, const Leaves *lv, Tensor *rng) {
  int nin, w;
  Val *in = tffn_tape_inputs(c, lv, &nin, &w);
  int mark = rt_hold_mem(in);
  if (!tape_would_record(nin, in)) {
    rt_unhold(mark);
    free(in);
    return tffn_run(c, lv->t);
  }
  Val bt = rt_tuple(nb, bound);
  rt_hold_val(bt);
  Val rerun = tuple_pack(3, tffn_bwd_fn(c, w), bt, val_obj(rng));
  rt_hold_val(rerun);
  FwdBwd *fb = tffn_fwdbwd(c, w, bt, lv, nin);
  Val r, gf;
  int no = fb ? fb->nout + fb->nmid : c->g->noutputs;
  Tensor **outs = malloc(sizeof(Tensor *) * (size_t)(no + 1));
  if (!outs) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(outs);
  if (fb) {
    exec_run(fb->fp, lv->t, outs);
    tffn_distinct_outputs(outs, fb->nout, lv);
    Val mids = tuple_new(fb->nmid);   /* owns the kept values */
    for (int i = 0; i < fb->nmid; i++) ((Tuple *)mids.u.o)->items[i] = val_obj(outs[fb->nout + i]);
    Val cfg = tuple_pack(4, val_obj(c), mids, rerun, val_int(w));
    val_decref(mids);
    gf = builtin_new("tf.function.<call gradient>", tffn_split_grad, cfg, NULL);
    val_decref(cfg);
    rt_hold_val(gf);
    r = tffn_result(c, outs, fb->nout);
  } else {
    gf = builtin_new("tf.function.<call gradient>", tffn_call_grad, rerun, NULL);
    rt_hold_val(gf);
    exec_run(c->plan, lv->t, outs);
    tffn_distinct_outputs(outs, no, lv);
    r = tffn_result(c, outs, no);
  }
  rt_hold_val(r);
  Val ol = list_new(0);
  rt_hold_val(ol);
  tffn_tensor_leaves(r, ol, true);
  tape_record_custom(nin, in, ol, gf);
  rt_unhold(mark);
  free(in);
  free(outs);
  val_decref(bt);
  val_decref(rerun);
  val_decref(gf);
  val_decref(ol);
  return r;
}

/* A call of concrete function c under a recording tape is recorded as a call
 * of its tf.function: the arguments it was traced with, the tensor ones
 * replaced by the tensors the call ran with (np parameters, indices pi, values
 * vals; a host number given for a tensor parameter by the tensor it was
 * converted to): the backward reruns fn on them.  Returns the call's result. */
static Val tffn_conc_record(Concrete *c, int np, const int *pi, const Val *vals, const Leaves *lv, Tensor *rng) {
  Val bt = tuple_new(c->nparams);
  int mark = rt_hold_val(bt);
  Tuple *tm = (Tuple *)c->args_tmpl.u.o, *b = (Tuple *)bt.u.o;
  for (int i = 0; i < c->nparams; i++) b->items[i] = val_incref(tm->items[i]);
  int k = 0;
  bool ok = true;
  for (int i = 0; i < np && ok; i++) {
    Val e = tffn_conc_leaves(tm->items[pi[i]], vals[i], lv, &k);
    ok = !val_is_undef(e);
    TFS_DECREF(b->items[pi[i]]);
    b->items[pi[i]] = ok ? e : val_none();
  }
  Val r = ok && k == lv->n ? tffn_run_record(c, c->nparams, b->items, lv, rng) : tffn_run(c, lv->t);
  rt_unhold(mark);
  val_decref(bt);
  return r;
}

/* The flat signature of a concrete function (TF's _call_with_flat_signature): one tensor per
 * placeholder, by position or by the placeholder's name.  NULL when the call fits (leaves in lv),
 * else the reason (malloc'd). */
static char *conc_flat(const Concrete *c, int n, const Val *args, const Kw *kw, Leaves *lv, bool traced) {
  const Graph *g = c->g;
  int nl = g->ninputs;
  StrBuf sum, why;
  sb_init(&sum);
  sb_init(&why);
  sb_printf(&sum, "%s(", c->name);
  for (int i = 0; i < nl; i++) sb_printf(&sum, "%s%s", i ? ", " : "", g->nodes[g->inputs[i]].name);
  sb_putc(&sum, ')');
  Val *flat = calloc((size_t)nl + 1, sizeof(Val));
  if (!flat) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nl; i++) flat[i] = val_undef();
  if (n > nl) {
    sb_printf(&why, "%s takes %d positional arguments, got %d.", sum.data, nl, n);
    goto out;
  }
  for (int i = 0; i < n; i++) flat[i] = args[i];
  for (int k = 0; kw && k < kw->n; k++) {
    int j = -1;
    for (int i = 0; i < nl && j < 0; i++)
      if (!strcmp(g->nodes[g->inputs[i]].name, kw->names[k])) j = i;
    if (j >= 0 && j < n) {
      sb_printf(&why, "%s got two values for '%s'.", sum.data, kw->names[k]);
      goto out;
    }
    if (j < 0) {
      sb_printf(&why, "%s got unexpected keyword arguments: %s.", sum.data, kw->names[k]);
      goto out;
    }
    flat[j] = kw->vals[k];
  }
  for (int i = 0; i < nl; i++)
    if (val_is_undef(flat[i])) {
      sb_printf(&why, "%s missing required arguments: ", sum.data);
      bool first = true;
      for (int j = i; j < nl; j++)
        if (val_is_undef(flat[j])) {
          sb_printf(&why, "%s%s", first ? "" : ", ", g->nodes[g->inputs[j]].name);
          first = false;
        }
      sb_putc(&why, '.');
      goto out;
    }
  for (int i = 0; i < nl; i++) {
    Tensor *t = val_is(flat[i], &tensor_type) ? val_tensor(flat[i]) : NULL;
    if (!t) {
      sb_printf(&why, "%s: expected argument #%d(zero-based) to be a Tensor; got %s (", sum.data, i,
                val_type_name(flat[i]));
      val_str(&why, flat[i]);
      sb_puts(&why, ").");
      goto out;
    }
    const TMeta *m = &c->leafm[i];
    if (traced && !spec_subtype(t->dtype, t->rank, t->shape, t->dtype, m->rank, m->shape) &&
        !spec_subtype(t->dtype, m->rank, m->shape, t->dtype, t->rank, t->shape)) {
      sb_puts(&why, "Tensor ");
      val_str(&why, flat[i]);
      sb_puts(&why, " is not compatible with the shape this function was traced with. Expected shape ");
      graph_shape_text(&why, m->rank, m->shape);
      sb_puts(&why, ", but got shape ");
      graph_shape_text(&why, t->rank, t->shape);
      sb_puts(&why, ".\n\nIf you called get_concrete_function, you may need to pass a tf.TensorSpec(..., shape=...) "
                    "with a less specific shape, having None on axes which can vary.");
      goto out;
    }
  }
  for (int i = 0; i < nl; i++) lv_push(lv, val_tensor(flat[i]));
out:
  free(flat);
  sb_free(&sum);
  if (!why.len) {
    sb_free(&why);
    return NULL;
  }
  return sb_steal(&why);
}

static bool tffn_has_dataset(Val tmpl) {
  if (tfdata_is_spec(tmpl)) return true;
  tfs_i64 n;
  const Val *items;
  if (seq_items(tmpl, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++)
      if (tffn_has_dataset(items[i])) return true;
  } else if (val_is(tmpl, &dict_type)) {
    Dict *d = (Dict *)tmpl.u.o;
    for (tfs_i64 i = 0; i < d->used; i++)
      if (!val_is_undef(d->keys[i]) && tffn_has_dataset(d->vals[i])) return true;
  }
  return false;
}

/* c's graph inlined into the graph being traced, on the leaves lv. */
static Val tffn_conc_inline(Concrete *c, const Leaves *lv) {
  TraceCtx *cx = trace_current();
  GraphRef *in = malloc(sizeof(GraphRef) * (size_t)(lv->n + c->ncapt + 1));
  GraphRef *outs = malloc(sizeof(GraphRef) * (size_t)(c->g->noutputs + 1));
  Val *vals = malloc(sizeof(Val) * (size_t)(c->g->noutputs + 1));
  if (!in || !outs || !vals) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(in);
  rt_hold_mem(outs);
  rt_hold_mem(vals);
  for (int i = 0; i < lv->n; i++) trace_ref(cx, val_obj(lv->t[i]), &in[i]);
  /* the enclosing trace's tensors a tf.data function reads (Dataset.reduce's function inside a tf.function) */
  if (c->ncapt && val_is_undef(c->capt)) rt_throw(ERR_INTERNAL, "a tf.data function's captured tensors are gone");
  for (int i = 0; i < c->ncapt; i++) trace_ref(cx, ((Tuple *)c->capt.u.o)->items[i], &in[lv->n + i]);
  graph_inline(cx->g, c->g, in, outs, &cx->last_effect, &cx->neffects);
  for (int i = 0; i < c->g->noutputs; i++) vals[i] = trace_sym(cx->g, outs[i]);
  Val r = val_is_undef(c->out_tmpl) ? val_incref(vals[0]) : nest_unflatten(c->out_tmpl, vals);
  for (int i = 0; i < c->g->noutputs; i++) val_decref(vals[i]);
  rt_unhold(mark);
  free(vals);
  free(outs);
  free(in);
  return r;
}

/* Calling a concrete function, as TF's ConcreteFunction.__call__: the structured signature first
 * (the function's parameters; host arguments default to, and must equal, their traced values;
 * tensors must fit the traced specs, Python values are converted), else the flat one (a tensor per
 * placeholder).  Eagerly no shape is checked beyond the kernels; inside a trace shapes must fit. */
static Val tffn_conc_call(Val self, int n, const Val *args, const Kw *kw) {
  Concrete *c = (Concrete *)self.u.o;
  bool traced = trace_active();
  Tuple *tm = (Tuple *)c->args_tmpl.u.o;
  val_incref(self);
  int mark = rt_hold_val(self);
  PParams ps = {0};
  rt_hold_fn(pparams_free, &ps);
  conc_params(c, &ps);
  Val owned = list_new(0);
  rt_hold_val(owned);
  Leaves lv;
  lv_init(&lv);
  rt_hold_fn((void (*)(void *))lv_free, &lv);
  Val *pv = calloc((size_t)ps.n + 1, sizeof(Val)), *slot = calloc((size_t)c->nparams + 1, sizeof(Val));
  const char **names = calloc((size_t)ps.n + 1, sizeof(char *));
  int *kinds = calloc((size_t)ps.n + 1, sizeof(int));
  bool *req = calloc((size_t)ps.n + 1, sizeof(bool)), *set = calloc((size_t)ps.n + 1, sizeof(bool));
  if (!pv || !slot || !names || !kinds || !req || !set) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(pv);
  rt_hold_mem(slot);
  rt_hold_mem(names);
  rt_hold_mem(kinds);
  rt_hold_mem(req);
  rt_hold_mem(set);
  Cast cx = {.lv = &lv, .owned = owned};
  sb_init(&cx.why);
  rt_hold_sb(&cx.why);
  /* bind (inspect's rules; traced host values are the defaults) */
  for (int i = 0; i < ps.n; i++) {
    names[i] = ps.p[i].name;
    kinds[i] = ps.p[i].kind;
    req[i] = tffn_has_leaf(ps.p[i].type) || tffn_has_dataset(ps.p[i].type);
    if (!req[i]) {   /* a host value: has a TensorSpec nowhere */
      Val t = ps.p[i].type;
      req[i] = val_is(t, &tffn_spec_type);
    }
  }
  char buf[160];
  const char *why = bind_why(buf, sizeof buf, ps.n, names, kinds, req, n, kw, false, set);
  if (why) sb_puts(&cx.why, why);
  bool ok = !why;
  if (ok) {
    for (int i = 0; i < n; i++) pv[i] = args[i];
    for (int k = 0; kw && k < kw->n; k++)
      for (int i = 0; i < ps.n; i++)
        if (kinds[i] != PK_POSITIONAL_ONLY && !strcmp(names[i], kw->names[k])) pv[i] = kw->vals[k];
    /* the values of the function's parameters (*args a tuple, **kwargs a dict) */
    for (int s = 0; s < c->nparams; s++) slot[s] = val_undef();
    for (int i = 0; i < ps.n; i++) {
      const PParam *p = &ps.p[i];
      Val v = set[i] ? pv[i] : val_undef();
      Val t = tm->items[p->slot];
      if (val_is_undef(p->key)) {
        slot[p->slot] = val_is_undef(v) ? t : v;
      } else if (p->key.tag == VT_INT) {
        tfs_i64 k;
        const Val *it;
        seq_items(t, &k, &it);
        if (val_is_undef(slot[p->slot])) {
          slot[p->slot] = tuple_new(k);
          list_append(owned, slot[p->slot]);
          val_decref(slot[p->slot]);
        }
        ((Tuple *)slot[p->slot].u.o)->items[p->key.u.i] = val_incref(val_is_undef(v) ? it[p->key.u.i] : v);
      } else {
        if (val_is_undef(slot[p->slot])) {
          slot[p->slot] = dict_new();
          list_append(owned, slot[p->slot]);
          val_decref(slot[p->slot]);
        }
        Val e = val_is_undef(v) ? dict_get(t, p->key) : val_incref(v);
        dict_set(slot[p->slot], p->key, e);
        val_decref(e);
      }
    }
    for (int s = 0; s < c->nparams && ok; s++) {
      if (val_is_undef(slot[s])) continue;   /* a method's self */
      if (val_is(tm->items[s], &dict_type) && val_is(slot[s], &dict_type) && s == c->nparams - 1 && c->ext) {
        /* **kwargs: the dict in the template's key order */
        Dict *d = (Dict *)tm->items[s].u.o;
        Val od = dict_new();
        list_append(owned, od);
        val_decref(od);
        for (tfs_i64 i = 0; i < d->used; i++) {
          if (val_is_undef(d->keys[i])) continue;
          Val e = dict_get(slot[s], d->keys[i]);
          if (!val_is_undef(e)) {
            dict_set(od, d->keys[i], e);
            val_decref(e);
          }
        }
        slot[s] = od;
      }
      ok = cast_tmpl(&cx, c, tm->items[s], c->key + c->off[s], slot[s]);
    }
  }
  bool structured = ok;
  if (!ok) {
    lv.n = 0;
    char *flat = conc_flat(c, n, args, kw, &lv, traced);
    if (flat) {
      StrBuf s;
      sb_init(&s);
      rt_hold_sb(&s);
      rt_hold_mem(flat);
      conc_sig_str(&s, c);
      bind_fail(cx.why.data, n, args, kw, &s, flat);
    }
  }
  /* a tensor of another dtype (the flat signature): the kernel's error */
  for (int i = 0; i < lv.n && i < c->nleaves; i++)
    if (lv.t[i] && lv.t[i]->dtype != c->leafm[i].dtype)
      rt_throw(ERR_INVALID_ARGUMENT,
               "cannot compute %s as input #%d(zero-based) was expected to be a %s tensor but is a %s tensor", c->name, i,
               dtype_short_name(c->leafm[i].dtype), dtype_short_name(lv.t[i]->dtype));
  if (structured && lv.nv) c = tffn_rebind(c, lv.v, lv.nv);   /* other Variables of the traced specs */
  Val r;
  if (traced) {
    bool ds = false;
    for (int s = 0; s < c->nparams; s++) ds = ds || tffn_has_dataset(tm->items[s]);
    r = tape_any_recording() || ds ? rt_call(c->fn, n, args, kw) : tffn_conc_inline(c, &lv);
  } else {
    Tensor *rng = op_tape_nactive && tape_any_recording() ? random_state_get() : NULL;   /* a gradient replays the draws */
    if (rng) rt_hold_val(val_obj(rng));
    if (rng && structured) {
      int np = 0;
      int *pi = (int *)kinds;   /* reused: indices of the parameters that hold tensors */
      Val *vals = pv;
      for (int s = 0; s < c->nparams; s++)
        if (!val_is_undef(slot[s]) && tffn_has_leaf(tm->items[s])) {
          pi[np] = s;
          vals[np++] = slot[s];
        }
      r = tffn_conc_record(c, np, pi, vals, &lv, rng);
    } else {
      r = tffn_run(c, lv.t);
    }
    if (rng) val_decref(val_obj(rng));
  }
  rt_unhold(mark);
  sb_free(&cx.why);
  free(pv);
  free(slot);
  free(names);
  free(kinds);
  free(req);
  free(set);
  lv_free(&lv);
  val_decref(owned);
  pparams_free(&ps);
  val_decref(self);
  return r;
}

//! ConcreteFunction.pretty_printed_signature(verbose=True)
//!   The concrete function's inputs and outputs with their dtypes and shapes, as text.
static Val tffn_conc_pp_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "pretty_printed_signature", .sig = "verbose=True"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  if (rt_truthy(a[0])) tffn_pp_concrete(&b, (Concrete *)self.u.o);
  else conc_sig_str(&b, (Concrete *)self.u.o);
  Val r = str_new(b.data ? b.data : "", (tfs_i64)b.len);
  rt_unhold(mark);
  sb_free(&b);
  return r;
}

/* repr: <ConcreteFunction (x: TensorSpec(...)) -> TensorSpec(...) at 0x...>; str: ConcreteFunction and the block. */
static void tffn_conc_repr(StrBuf *b, Val v) {
  sb_puts(b, "<ConcreteFunction ");
  conc_sig_str(b, (const Concrete *)v.u.o);
  sb_printf(b, " at 0x%llX>", (unsigned long long)(uintptr_t)v.u.o);
}

static void tffn_conc_str(StrBuf *b, Val v) {
  sb_puts(b, "ConcreteFunction ");
  tffn_pp_concrete(b, (const Concrete *)v.u.o);
}

static Val tffn_conc_getattr(Val self, const char *name) {
  Concrete *c = (Concrete *)self.u.o;
  if (!strcmp(name, "graph")) return funcgraph_new(c->g);
  if (!strcmp(name, "pretty_printed_signature"))
    return builtin_new("ConcreteFunction.pretty_printed_signature", tffn_conc_pp_m, self, NULL);
  if (!strcmp(name, "name") || !strcmp(name, "__name__")) return str_from_cstr(c->name);
  if (!strcmp(name, "inputs")) return funcgraph_refs(c->g, c->g->ninputs, NULL, c->g->inputs);
  if (!strcmp(name, "outputs")) return funcgraph_refs(c->g, c->g->noutputs, c->g->outputs, NULL);
  return val_undef();
}

static const Type tffn_conc_type = {
  .name = "ConcreteFunction", .free = tffn_conc_free, .repr = tffn_conc_repr, .str = tffn_conc_str, .getattr = tffn_conc_getattr,
  .call = tffn_conc_call, .hash = obj_identity_hash,
};

/* ---- function object methods ---------------------------------------------------------------------- */

//! Function.get_concrete_function(*args, **kwargs)
//!   Traces the function (if not already traced) for the given arguments or tf.TensorSpecs and returns the concrete
//!   function, whose graph attribute is the traced graph.
static Val tffn_get_concrete_m(Val self, int n, const Val *args, const Kw *kw) {
  TfFunction *f = (TfFunction *)self.u.o;
  Val bbuf[8], *bound = (Val *)args;   /* args until tffn_bind binds */
  Concrete *c;
  int nb = 0;
  BindHold bh = {f, bound, args, bbuf, 0};
  int bmark = -1;
  if (!val_is_undef(f->sig)) {
    /* the signature's one concrete function; arguments, if any, must fit it */
    int so = tffn_self(f);
    nb = (int)((Tuple *)f->sig.u.o)->len + so;
    Val me = val_undef();
    if (so && n == 1 && (!kw || !kw->n)) {
      me = args[0];   /* obj.method.get_concrete_function(): the bound method passes self alone */
    } else if (n || (kw && kw->n)) {
      tffn_sig_arity(f, n, args, kw);
      nb = tffn_bind(f, n, args, kw, bbuf, 8, &bound);
      bh.bound = bound, bh.nb = nb;
      bmark = rt_hold_fn(tffn_unbind_held, &bh);   /* arguments that do not fit raise: release the bound ones */
      Leaves dummy;
      lv_init(&dummy);
      Val owned = list_new(0);
      int m = rt_hold_val(owned);
      tffn_sig_cast(f, n, args, kw, nb, bound, &dummy, owned, true);
      rt_unhold(m);
      val_decref(owned);
      lv_free(&dummy);
      if (so) me = bound[0];
    }
    c = tffn_sig_concrete(f, nb, me);
  } else {
    nb = tffn_bind(f, n, args, kw, bbuf, 8, &bound);
    bh.bound = bound, bh.nb = nb;
    bmark = rt_hold_fn(tffn_unbind_held, &bh);   /* a trace that raises releases the *args tuple */
    KeyBuf k;
    kb_init(&k);
    Leaves lv;
    lv_init(&lv);
    size_t offb[17], *off = nb < 16 ? offb : malloc(sizeof(size_t) * (size_t)(nb + 1));
    if (!off) rt_throw(ERR_MEMORY, "out of memory");
    CanonArgs *cb = tffn_canon_args(nb, bound);   /* dicts in sorted key order, as for a call */
    int cmark = cb ? rt_hold_fn(tffn_canon_release, cb) : -1;
    const Val *ub = cb ? cb->v : bound;
    for (int i = 0; i < nb; i++) {
      off[i] = k.len;
      key_arg(&k, ub[i], &lv, KEY_SPECS);
    }
    off[nb] = k.len;
    bool traced = false, late = false;
    c = tffn_dispatch(f, nb, ub, cb ? bound : NULL, &k, off, &traced, &late);
    if (cb) {
      rt_unhold(cmark);
      tffn_canon_release(cb);
    }
    if (late) tffn_late_vars();
    if (off != offb) free(off);
    lv_free(&lv);
    kb_free(&k);
  }
  if (bmark >= 0) rt_unhold(bmark);
  tffn_unbind(f, bound, args, bbuf, nb);
  return val_incref(val_obj(c));
}

//! Function.pretty_printed_concrete_signatures(verbose=True)
//!   The signatures of every concrete function traced so far, as text.
static Val tffn_pp_all_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "pretty_printed_concrete_signatures", .sig = "verbose=True"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  TfFunction *f = (TfFunction *)self.u.o;
  StrBuf b;
  sb_init(&b);
  for (int i = 0; i < f->nconc; i++) {
    if (i) sb_puts(&b, "\n\n");
    tffn_pp_concrete(&b, f->conc[i]);
  }
  size_t len = b.len;
  if (!b.data) return str_new("", 0);
  return str_take(sb_steal(&b), (tfs_i64)len);
}

//! Function.experimental_get_tracing_count()
//!   How many times the function has been traced (a retrace adds one).
static Val tffn_tracing_count_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "experimental_get_tracing_count", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  return val_int(((TfFunction *)self.u.o)->ntraces);
}

static Val tffn_getattr(Val self, const char *name) {
  TfFunction *f = (TfFunction *)self.u.o;
  if (!strcmp(name, "get_concrete_function"))
    return builtin_new("Function.get_concrete_function", tffn_get_concrete_m, self, NULL);
  if (!strcmp(name, "pretty_printed_concrete_signatures"))
    return builtin_new("Function.pretty_printed_concrete_signatures", tffn_pp_all_m, self, NULL);
  if (!strcmp(name, "experimental_get_tracing_count"))
    return builtin_new("Function.experimental_get_tracing_count", tffn_tracing_count_m, self, NULL);
  if (!strcmp(name, "python_function")) return val_incref(f->fn);
  if (!strcmp(name, "__name__") || !strcmp(name, "name")) return str_from_cstr(f->name);
  if (!strcmp(name, "input_signature")) return val_is_undef(f->sig) ? val_none() : val_incref(f->sig);
  /* the concrete function of the latest call (None before any): Keras's TensorBoard callback draws its graph */
  if (!strcmp(name, "_last_concrete_function")) return f->last ? val_incref(val_obj(f->last)) : val_none();
  return val_undef();
}

static void tffn_repr(StrBuf *b, Val v) { sb_printf(b, "<tf.function %s>", ((TfFunction *)v.u.o)->name); }

static const Type tffn_type;
Val tffn_python_fn(Val v) { return val_is(v, &tffn_type) ? ((TfFunction *)v.u.o)->fn : val_undef(); }

/* TF's Function.__get__: a @tf.function method seen through an instance is
 * that instance's own function object, made on first access and kept in the
 * instance (cache: its slot), so each instance has its own trace cache,
 * tracing count and first call (where its Variables are created). */
Val tffn_method_fn(Val fn, Val *cache) {
  if (!val_is(fn, &tffn_type)) return val_undef();
  if (val_is_undef(*cache)) *cache = dict_new();
  Val per = dict_get(*cache, fn);
  if (!val_is_undef(per)) return per;
  TfFunction *f = (TfFunction *)fn.u.o;
  per = tffn_make(f->fn, val_is_undef(f->sig) ? val_none() : f->sig, val_bool(f->reduce_retracing), f->jit_compile);
  int mark = rt_hold_val(per);
  TfFunction *pf = (TfFunction *)per.u.o;
  free(pf->name);
  pf->name = strdup(f->name);
  if (!pf->name) rt_throw(ERR_MEMORY, "out of memory");
  dict_set(*cache, fn, per);
  rt_unhold(mark);
  return per;
}

static const Type tffn_type = {
  .name = "Function", .free = tffn_free, .repr = tffn_repr, .getattr = tffn_getattr, .call = tffn_call,
  .hash = obj_identity_hash,
};

/* ---- tf.function ---------------------------------------------------------------------------------- */

static bool rt_truthy_lt(Val a, Val b) {
  Val r = rt_compare(CMP_LT, a, b);
  bool t = rt_truthy(r);
  val_decref(r);
  return t;
}

/* The leaves of an input_signature that are not TensorSpecs (nest.flatten order: dicts by sorted key). */
static void tffn_sig_bad(Val v, Val bad) {
  /* (a composite's TypeSpec: tf.RaggedTensorSpec; a tf.data.DatasetSpec or IteratorSpec) */
  if (val_is(v, &tffn_spec_type) || comp_is_spec(v) || tfdata_is_spec(v)) return;
  tfs_i64 n;
  const Val *items;
  if (seq_items(v, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++) tffn_sig_bad(items[i], bad);
  } else if (val_is(v, &dict_type)) {
    Val keys = list_new(0);
    int mark = rt_hold_val(keys);
    Dict *d = (Dict *)v.u.o;
    for (tfs_i64 i = 0; i < d->used; i++)
      if (!val_is_undef(d->keys[i])) list_append(keys, d->keys[i]);
    List *l = (List *)keys.u.o;
    for (tfs_i64 i = 1; i < l->len; i++)   /* sorted, as nest.flatten does */
      for (tfs_i64 j = i; j > 0 && rt_truthy_lt(l->items[j], l->items[j - 1]); j--) {
        Val t = l->items[j];
        l->items[j] = l->items[j - 1];
        l->items[j - 1] = t;
      }
    for (tfs_i64 i = 0; i < l->len; i++) {
      Val e = dict_get(v, l->items[i]);
      int m = rt_hold_val(e);
      tffn_sig_bad(e, bad);
      rt_unhold(m);
      val_decref(e);
    }
    rt_unhold(mark);
    val_decref(keys);
  } else {
    list_append(bad, v);
  }
}

/* TF's checks of an input_signature when the function is made (function_type_utils._validate_signature,
 * function_type.add_type_constraints): TensorSpecs only; every parameter covered or defaulted; a
 * keyword-only parameter needs a default; no extra entries. */
static void tffn_check_sig(Val fn, Val sig) {
  Val bad = list_new(0);
  int mark = rt_hold_val(bad);
  tffn_sig_bad(sig, bad);
  List *l = (List *)bad.u.o;
  if (l->len) {
    StrBuf b;
    sb_init(&b);
    rt_hold_sb(&b);
    val_repr(&b, bad);
    sb_puts(&b, " with types [");
    for (tfs_i64 i = 0; i < l->len; i++) sb_printf(&b, "%s<class '%s'>", i ? ", " : "", val_type_name(l->items[i]));
    sb_putc(&b, ']');
    rt_throw(ERR_TYPE, "input_signature must be a possibly nested sequence of TensorSpec objects, got invalid args %s.",
             b.data);
  }
  rt_unhold(mark);
  val_decref(bad);
  if (!val_is(fn, &func_type)) return;
  const FuncInfo *info = ((Func *)fn.u.o)->info;
  Func *f = (Func *)fn.u.o;
  tfs_i64 left = ((Tuple *)sig.u.o)->len;
  int np = info->nparams, nkw = info->nkwonly, npos = np - nkw - info->varargs - info->varkw;
  int nposdef = f->ndefaults - nkw;
  for (int i = 0; i < np; i++) {
    if (i == 0 && !strcmp(info->params[0], "self")) continue;
    if (info->varkw && i == np - 1) continue;
    if (info->varargs && i == npos) {
      left = 0;
      continue;
    }
    bool kwonly = i >= npos + info->varargs;
    bool hasdef = kwonly ? !val_is_undef(f->defaults[nposdef + (i - npos - info->varargs)]) : i >= npos - nposdef;
    if (kwonly && !hasdef)
      rt_throw(ERR_TYPE, "Since input_signature is defined, keyword-only parameter `%s` must have a default value",
               info->params[i]);
    if (left) left--;
    else if (!hasdef) rt_throw(ERR_TYPE, "input_signature missing type constraint for %s", info->params[i]);
  }
  if (left) rt_throw(ERR_TYPE, "input_signature contains %lld extra type constraints.", (long long)left);
}

static Val tffn_make(Val fn, Val sig, Val reduce, Val jit) {
  if (fn.tag != VT_OBJ || !fn.u.o->type->call) rt_throw(ERR_TYPE, "tf.function: expected a function, got %s", val_type_name(fn));
  TfFunction *f = obj_new(&tffn_type, sizeof(TfFunction));
  memset((char *)f + sizeof(Obj), 0, sizeof(TfFunction) - sizeof(Obj));
  f->fn = val_incref(fn);
  const char *nm = "function";
  if (val_is(fn, &func_type)) nm = ((Func *)fn.u.o)->info->name;
  else if (val_is(fn, &tffn_type)) nm = ((TfFunction *)fn.u.o)->name;
  else if (val_is(fn, &builtin_type)) nm = ((Builtin *)fn.u.o)->name;
  f->name = strdup(nm);
  if (!f->name) rt_throw(ERR_MEMORY, "out of memory");
  f->sig = val_undef();
  f->jit_compile = val_incref(jit);
  if (sig.tag != VT_NONE && sig.tag != VT_UNDEF) {
    tfs_i64 n;
    const Val *items;
    if (!seq_items(sig, &n, &items))
      rt_throw(ERR_TYPE, "input_signature must be either a tuple or a list, got <class '%s'>.", val_type_name(sig));
    f->sig = rt_tuple((int)n, items);
    int mark = rt_hold_val(val_obj(f));   /* a rejected signature releases it */
    tffn_check_sig(fn, f->sig);
    rt_unhold(mark);
  }
  f->reduce_retracing = rt_truthy(reduce);
  return val_obj(f);
}

static ArgSpec tffn_spec_fn = {
  .what = "tf.function",
  .sig = "func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False, "
         "experimental_relax_shapes=None, experimental_compile=None, name=None"};

static Val tffn_make_callable(Val fn, Val sig, Val reduce, Val jit);

/* @tf.function(input_signature=...): the decorator remembers its options. */
static Val tffn_decorator(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "tf.function decorator takes exactly one function");
  Tuple *o = (Tuple *)self.u.o;
  return tffn_make_callable(args[0], o->items[0], o->items[1], o->items[2]);
}

/* tf.function(obj) on an object with __call__, or on a bound method: the
 * method's function is traced with the receiver as its first (host) argument,
 * as a method decorated in its class is, so keyword arguments bind by the
 * method's signature and the receiver keys the trace cache by identity. */
static Val tffn_make_callable(Val fn, Val sig, Val reduce, Val jit) {
  Val recv = val_undef(), inner = val_undef();
  if (val_is(fn, &bound_type) && val_is(((Bound *)fn.u.o)->fn, &func_type)) {
    recv = ((Bound *)fn.u.o)->self;
    inner = val_incref(((Bound *)fn.u.o)->fn);
  } else if (val_is(fn, &inst_type)) {
    inner = class_find(((Inst *)fn.u.o)->klass, "__call__");
    if (val_is(inner, &func_type)) recv = fn;
  }
  if (val_is_undef(recv)) {
    val_decref(inner);
    return tffn_make(fn, sig, reduce, jit);
  }
  int mark = rt_hold_val(inner);
  Val f = tffn_make(inner, sig, reduce, jit);
  rt_unhold(mark);
  val_decref(inner);
  Val r = bound_new(f, recv);
  val_decref(f);
  return r;
}

//! tf.function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False, experimental_relax_shapes=None, experimental_compile=None, name=None)
//!   Compiles a Python function into graphs: AutoGraph converts its control flow, each new input signature traces
//!   a concrete function, and later calls with the same signature run the graph. Usable as @tf.function or
//!   @tf.function(input_signature=[...]). The signature keys tensors by dtype and shape, host values by value,
//!   Variables by dtype, shape and aliasing, dicts and keyword arguments in any order; a first call whose trace
//!   created Variables traces a second time with creation forbidden, and a @tf.function method has its own
//!   function object (cache, tracing count, first call) per instance.
static Val tffn_function(Val self, int n, const Val *args, const Kw *kw) {
  Val a[8];
  args_parse(&tffn_spec_fn, n, args, kw, a);
  Val reduce = a[4];
  if (!rt_truthy(reduce) && a[5].tag != VT_NONE && a[5].tag != VT_UNDEF) reduce = a[5];
  if (a[1].tag != VT_NONE && a[1].tag != VT_UNDEF && !seq_items(a[1], &(tfs_i64){0}, &(const Val *){0}))
    rt_throw(ERR_TYPE, "input_signature must be either a tuple or a list, got <class '%s'>.", val_type_name(a[1]));
  if (a[0].tag == VT_NONE || a[0].tag == VT_UNDEF) {
    Val opts = tuple_pack(3, a[1], reduce, a[3]);
    Val d = builtin_new("tf.function.<decorator>", tffn_decorator, opts, NULL);
    val_decref(opts);
    return d;
  }
  return tffn_make_callable(a[0], a[1], reduce, a[3]);
}

/* tf.autograph.to_code(f) */
//! tf.autograph.to_code(entity, recursive=True, experimental_optional_features=None)
//!   The AutoGraph-converted source of a function (or tf.function) as a string.
static Val tffn_to_code(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.autograph.to_code", .sig = "entity, recursive=True, experimental_optional_features=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  Val fn = a[0];
  if (val_is(fn, &bound_type)) fn = ((Bound *)fn.u.o)->fn;   /* a method: its function, as TF converts it */
  if (val_is(fn, &tffn_type)) fn = ((TfFunction *)fn.u.o)->fn;
  if (!val_is(fn, &func_type)) rt_throw(ERR_TYPE, "tf.autograph.to_code: expected a function, got %s", val_type_name(fn));
  const FuncInfo *info = ((Func *)fn.u.o)->info;
  const char *src = info->source ? info->source : info->converted ? info->converted->source : NULL;
  if (!src) rt_throw(ERR_VALUE, "tf.autograph.to_code: no converted code is available for '%s'", info->name);
  return str_from_cstr(src);
}

/* tf.autograph.experimental.set_loop_options: the converter reads its
 * arguments; at run time it does nothing, as in TF. */
//! tf.autograph.experimental.set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None)
//!   Called first in a loop body, gives options to the loop AutoGraph builds (e.g. maximum_iterations); does nothing at run time.
static Val tffn_set_loop_options(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.autograph.experimental.set_loop_options",
                         .sig = "parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  return val_none();
}

static Val tffn_ag_exp_attr(const char *name) {
  if (!strcmp(name, "set_loop_options"))
    return builtin_new("tf.autograph.experimental.set_loop_options", tffn_set_loop_options, val_undef(), NULL);
  return val_undef();
}

//! tf.autograph
//!   AutoGraph utilities: to_code and experimental.set_loop_options.
static Val tffn_ag_attr(const char *name) {
  if (!strcmp(name, "to_code")) return builtin_new("tf.autograph.to_code", tffn_to_code, val_undef(), NULL);
  if (!strcmp(name, "experimental")) return module_native("tf.autograph.experimental", tffn_ag_exp_attr);
  return val_undef();
}

/* ---- tf.Variable inside a trace -------------------------------------------------------------------- */

static Val tffn_variable_hook(Val initial, Val name, bool trainable, Val dtype) {
  if (!trace_active()) return val_undef();
  void *tok = trace_enter_init_scope(&initial);
  Val v = variable_new(initial, name, trainable, dtype);
  int mark = rt_hold_val(v);
  trace_init_variable(tok, v);
  rt_unhold(mark);
  trace_leave_init_scope(tok);
  return v;
}

/* ---- registration ------------------------------------------------------------------------------------ */

void tffn_set_eager(bool on) { tfmod_run_eagerly = on; }

void tffn_init(void) {
  static bool done;
  if (done) return;
  done = true;
  static const struct { const char *name; BuiltinFn fn; } fns[] = {
    {"function", tffn_function},
    {"TensorSpec", tffn_tensorspec},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    char q[64];
    snprintf(q, sizeof q, "tf.%s", fns[i].name);
    Val b = builtin_new(strdup(q), fns[i].fn, val_undef(), NULL);
    tfmod_register(fns[i].name, b);
    val_decref(b);
  }
  Val ag = module_native("tf.autograph", tffn_ag_attr);
  tfmod_register("autograph", ag);
  val_decref(ag);
  tfmod_variable_hook = tffn_variable_hook;
  tfop_register();
}

__attribute__((constructor)) static void tffn_ctor(void) { tffn_init(); }

/* The structure of TensorSpecs a concrete function returns (tf.data's map and
 * filter read their element_spec from it). */
/* nest_unflatten of output specs, a composite giving its own TypeSpec (not one rebuilt from specs). */
static Val spec_unflatten_elem(void *ctx, Val e);
static Val spec_unflatten(Val tmpl, const Val *specs) {
  int idx;
  if (nest_is_leaf(tmpl, &idx)) return val_incref(specs[idx]);
  if (val_is(tmpl, &nest_packed_type)) return val_incref(nest_packed_spec(tmpl));
  return nest_map(tmpl, spec_unflatten_elem, (void *)specs);
}
static Val spec_unflatten_elem(void *ctx, Val e) { return spec_unflatten(e, (const Val *)ctx); }

Val tffn_output_spec(Val conc) {
  const Concrete *c = (const Concrete *)conc.u.o;
  int no = c->g->noutputs;
  Val *specs = malloc(sizeof(Val) * (size_t)(no + 1));
  if (!specs) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < no; i++) {
    const TMeta *m = graph_meta(c->g, c->g->outputs[i]);
    specs[i] = tffn_spec_new(m->rank, m->shape, m->dtype, val_none());
  }
  Val r = val_is_undef(c->out_tmpl) ? (no ? val_incref(specs[0]) : val_none()) : spec_unflatten(c->out_tmpl, specs);
  for (int i = 0; i < no; i++) val_decref(specs[i]);
  free(specs);
  return r;
}

/* ---- tf.saved_model (savedmodel.c) ------------------------------------------------------------ */

bool tffn_is(Val v) { return val_is(v, &tffn_type); }

Val tffn_saved_concretes(Val fnv, Val self) {
  Val per = val_is(self, &inst_type) && !val_is_undef(((Inst *)self.u.o)->fncache)
                ? dict_get(((Inst *)self.u.o)->fncache, fnv) : val_undef();
  if (!val_is_undef(per)) {
    Val r = tffn_saved_concretes(per, self);   /* the instance's own function object */
    val_decref(per);
    return r;
  }
  TfFunction *f = (TfFunction *)fnv.u.o;
  int so = tffn_self(f);
  const char *const *params;
  int np = tffn_params(f->fn, &params);
  bool method = np > 0 && !strcmp(params[0], "self");
  if (!val_is_undef(f->sig)) tffn_sig_concrete(f, (int)((Tuple *)f->sig.u.o)->len + so, so ? self : val_undef());
  Val l = list_new(f->nconc);
  for (int i = 0; i < f->nconc; i++)
    if (!method || tffn_conc_self(f->conc[i], self)) list_append(l, val_obj(f->conc[i]));
  return l;
}

Val tffn_conc_result(Val conc, Tensor **outs) {
  Concrete *c = (Concrete *)conc.u.o;
  return tffn_result(c, outs, c->g->noutputs);
}

bool tffn_conc_info(Val conc, TffnConcInfo *out) {
  if (!val_is(conc, &tffn_conc_type)) return false;
  Concrete *c = (Concrete *)conc.u.o;
  out->name = c->name;
  out->g = c->g;
  out->nparams = c->nparams;
  out->params = c->params;
  out->args_tmpl = c->args_tmpl;
  out->out_tmpl = c->out_tmpl;
  const FuncInfo *info = val_is(c->fn, &func_type) ? ((Func *)c->fn.u.o)->info : NULL;
  out->varargs = info && info->nparams == c->nparams && info->varargs ? info->nparams - info->nkwonly - 1 - info->varkw : -1;
  return true;
}

/* ---- tf.data functions reading an enclosing trace's tensors ------------------------------------------ */

Val tffn_conc_take_captures(Val conc) {
  if (!val_is(conc, &tffn_conc_type)) return val_undef();
  Concrete *c = (Concrete *)conc.u.o;
  Val r = c->capt;
  c->capt = val_undef();
  return r;
}

void tffn_conc_run_captures(Val conc, Tensor *const *vals) {
  Concrete *c = (Concrete *)conc.u.o;
  if (c->runv) {
    for (int i = 0; i < c->ncapt; i++) tensor_release(c->runv[i]);
    free(c->runv);
    c->runv = NULL;
  }
  if (!vals || !c->ncapt) return;
  c->runv = malloc(sizeof(Tensor *) * (size_t)c->ncapt);
  if (!c->runv) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < c->ncapt; i++) c->runv[i] = tensor_retain(vals[i]);
}

int tffn_conc_ncaptures(Val conc) { return val_is(conc, &tffn_conc_type) ? ((Concrete *)conc.u.o)->ncapt : 0; }

/* conc's copy with the values vals (ncapt of them) in place of its captured placeholders, as constants (owned):
 * a run of the enclosing graph binds the dataset's functions to that run's values.  vals NULL: the same graph, the
 * captured placeholders kept, without the Python function (whose closure holds the enclosing trace's tensors,
 * which hold its graph: the copy the graph's dataset op keeps must not). */
Val tffn_conc_bind_captures(Val conc, Tensor *const *vals) {
  Concrete *c = (Concrete *)conc.u.o;
  Concrete *d = tffn_conc_clone(c, vals ? c->fn : val_none());
  int mark = rt_hold_val(val_obj(d));
  d->sig = val_incref(c->sig);
  d->g = vals ? graph_clone_bind(c->g, c->g->ninputs - c->ncapt, vals) : graph_retain(c->g);
  if (!vals) d->ncapt = c->ncapt;
  d->plan = exec_plan_new(d->g);
  rt_unhold(mark);
  return val_obj(d);
}
