/* dsgraphit.c — iter(ds) inside a tf.function: TF's OwnedIterator in a graph, whose next(), get_next() and get_next_as_optional() are graph ops run each time the graph runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "object/hosttypes.h"
#include "kernels/ops.h"
#include "modules/tfdata.h"
#include "graph/trace.h"
#include "graph/graph.h"

/* The iterator: the dataset (for its element_spec) and the int64 handle its _DatasetIterator op made (symbolic,
 * or, for an eager iterator passed as a tf.function argument, the placeholder standing for its handle). */
typedef struct GIter {
  Obj hdr;
  Val ds, handle;
  bool used;                  /* next() was staged: `for x in it` loops over what is left, on the same handle */
} GIter;

static const Type giter_type;

static void giter_free(Obj *o) {
  GIter *g = (GIter *)o;
  val_decref(g->ds);
  val_decref(g->handle);
  free(g);
}

Val tfdata_giter_new(Val ds, Val handle) {
  GIter *g = obj_new(&giter_type, sizeof(GIter));
  g->ds = val_incref(ds);
  g->handle = handle;   /* adopted */
  g->used = false;
  return val_obj(g);
}

Val tfdata_graph_iterator(Val ds) { return tfdata_giter_new(ds, tfdata_graph_iter(ds)); }

bool tfdata_is_giter(Val v) { return val_is(v, &giter_type); }

bool tfdata_giter_parts(Val v, Val *ds, Val *handle) {
  if (!tfdata_is_giter(v)) return false;
  *ds = ((GIter *)v.u.o)->ds;
  *handle = ((GIter *)v.u.o)->handle;
  return true;
}

static void scope_exit(void *p) { graph_op_scope_exit(*(int *)p); }

/* the element as op's outputs (_DatasetGetNext, _DatasetSingle) packed into element_spec's structure (owned) */
static Val giter_apply(GIter *g, OpId op) {
  Val keep = tfdata_unbound(g->ds);
  int kmark = rt_hold_val(keep);
  OpAttrs at = {1, {keep}};
  /* the node takes TF's name (IteratorGetNext, IteratorGetNext_1, ...), as gen_dataset_ops.iterator_get_next
   * names it; errors at the end of the sequence name it so */
  int tok = op == OP_DATASET_GETNEXT ? trace_op_scope_enter("IteratorGetNext", &op_defs[op]) : -1;
  if (tok >= 0) rt_hold_fn(scope_exit, &tok);   /* (closed also when the op fails to stage) */
  Val r = op_apply(&op_defs[op], 1, &g->handle, &at);
  rt_unhold(kmark);
  if (tok >= 0) graph_op_scope_exit(tok);
  val_decref(keep);
  int mark = rt_hold_val(r);
  Val e;
  if (val_is(r, &list_type)) e = tfdata_unflatten(g->ds, ((List *)r.u.o)->items);
  else e = tfdata_unflatten(g->ds, &r);
  rt_unhold(mark);
  val_decref(r);
  return e;
}

static Val giter_get(GIter *g) {
  g->used = true;
  return giter_apply(g, OP_DATASET_GETNEXT);
}

/* ds.get_single_element() while tracing: a fresh iterator and _DatasetSingle on it (owned) */
Val tfdata_graph_single(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)kw;
  if (n != 1 || !tfdata_is_dataset(args[0])) rt_throw(ERR_TYPE, "Dataset._graph_single(dataset)");
  GIter g = {.ds = args[0], .handle = tfdata_graph_iter(args[0])};
  int mark = rt_hold_val(g.handle);
  Val e = giter_apply(&g, OP_DATASET_SINGLE);
  rt_unhold(mark);
  val_decref(g.handle);
  return e;
}

static bool giter_next(Val v, Val *out) {
  *out = giter_get((GIter *)v.u.o);
  return true;
}

//! OwnedIterator.get_next()
//!   The iterator's next element; at the end OutOfRangeError: End of sequence (inside a tf.function, when the graph runs).
static Val gi_get_next(Val self, int n, const Val *args, const Kw *kw) {
  (void)args, (void)kw;
  if (n) rt_throw(ERR_TYPE, "get_next() takes 1 positional argument but %d were given", n + 1);
  return giter_get((GIter *)self.u.o);
}

/* (has_value, element) from _DatasetNext: the element is zeros once the end is reached (owned tuple) */
static Val giter_opt(GIter *g) {
  g->used = true;
  Val r = tfdata_graph_next(g->ds, g->handle);
  int mark = rt_hold_val(r);
  Tuple *t = (Tuple *)r.u.o;
  Val e = tfdata_unflatten(g->ds, t->items + 1);
  Val pair = tuple_new(2);
  ((Tuple *)pair.u.o)->items[0] = val_incref(t->items[0]);
  ((Tuple *)pair.u.o)->items[1] = e;
  rt_unhold(mark);
  val_decref(r);
  return pair;
}

//! tf.experimental.Optional | tf.data.experimental.Optional
//!   A value that may be absent (Iterator.get_next_as_optional): has_value(), get_value() (InvalidArgumentError "The
//!   optional variant does not have a value." when empty), element_spec; made by Optional.from_value(value) and
//!   Optional.empty(element_spec).
//! tf.OptionalSpec(element_spec)
//!   The type spec of an Optional whose value has element_spec.
/* tf.experimental.Optional of stdlib/tfcore_optional.tfs over (has_value, value) */
Val tfdata_optional(Val has, Val value, Val spec) {
  Val cls = tfmod_lookup("experimental.Optional");
  if (val_is_undef(cls)) rt_throw(ERR_UNIMPLEMENTED, "tf.experimental.Optional is not available");
  int mark = rt_hold_val(cls);
  Val make = rt_getattr(cls, "_of");
  rt_hold_val(make);
  Val a[3] = {has, value, spec};
  Val r = rt_call(make, 3, a, NULL);
  rt_unhold(mark);
  val_decref(make);
  val_decref(cls);
  return r;
}

//! OwnedIterator.get_next_as_optional() | tf.data.experimental.get_next_as_optional(iterator)
//!   The next element as a tf.experimental.Optional: has_value() is False at the end instead of an error.
static Val gi_get_next_as_optional(Val self, int n, const Val *args, const Kw *kw) {
  (void)args, (void)kw;
  if (n) rt_throw(ERR_TYPE, "get_next_as_optional() takes 1 positional argument but %d were given", n + 1);
  GIter *g = (GIter *)self.u.o;
  Val p = giter_opt(g);
  int mark = rt_hold_val(p);
  Tuple *t = (Tuple *)p.u.o;
  Val r = tfdata_optional(t->items[0], t->items[1], tfdata_element_spec(g->ds));
  rt_unhold(mark);
  val_decref(p);
  return r;
}

static Val sel_leaf(Val has, Val x, Val d) {
  Val dv = val_is_tensor(d) ? val_incref(d) : val_obj(tensor_from_val(d, val_tensor(x)->dtype));
  int mark = rt_hold_val(dv);
  Val in[3] = {has, x, dv};
  Val r = op_apply(&op_defs[OP_SELECT], 3, in, NULL);
  rt_unhold(mark);
  val_decref(dv);
  return r;
}

/* the element, or `default` where the iterator is exhausted: TF's next_tf_iterator (a cond on has_value) */
static Val sel_struct(Val has, Val x, Val d) {
  tfs_i64 nx, nd;
  const Val *ix, *id;
  if (val_is(x, &tuple_type) && seq_items(d, &nd, &id) && seq_items(x, &nx, &ix) && nx == nd) {
    Val t = tuple_new(nx);
    int mark = rt_hold_val(t);
    for (tfs_i64 i = 0; i < nx; i++) ((Tuple *)t.u.o)->items[i] = sel_struct(has, ix[i], id[i]);
    rt_unhold(mark);
    return t;
  }
  if (val_is(x, &dict_type) && val_is(d, &dict_type)) {
    Val r = dict_new();
    int mark = rt_hold_val(r);
    Dict *dx = (Dict *)x.u.o;
    for (tfs_i64 i = 0; i < dx->used; i++) {
      if (val_is_undef(dx->keys[i])) continue;
      Val dv = dict_get(d, dx->keys[i]);
      if (val_is_undef(dv)) rt_throw(ERR_VALUE, "the default argument must have the same nested structure as the iterate");
      Val s = sel_struct(has, dx->vals[i], dv);
      val_decref(dv);
      dict_set(r, dx->keys[i], s);
      val_decref(s);
    }
    rt_unhold(mark);
    return r;
  }
  if (!val_is_tensor(x) || val_is(d, &tuple_type) || val_is(d, &dict_type) || val_is(d, &list_type))
    rt_throw(ERR_VALUE, "the default argument must have the same nested structure as the iterate");
  return sel_leaf(has, x, d);
}

Val tfdata_giter_next_default(Val it, Val dflt) {
  Val p = giter_opt((GIter *)it.u.o);
  int mark = rt_hold_val(p);
  Tuple *t = (Tuple *)p.u.o;
  Val r = sel_struct(t->items[0], t->items[1], dflt);
  rt_unhold(mark);
  val_decref(p);
  return r;
}

static void giter_repr(StrBuf *b, Val v) {
  sb_printf(b, "<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at %p>", (void *)v.u.o);
}

static Val giter_self(Val v) { return val_incref(v); }

static Val giter_getattr(Val self, const char *name) {
  if (!strcmp(name, "element_spec")) return val_incref(tfdata_element_spec(((GIter *)self.u.o)->ds));
  if (!strcmp(name, "get_next")) return builtin_new("OwnedIterator.get_next", gi_get_next, self, NULL);
  if (!strcmp(name, "get_next_as_optional"))
    return builtin_new("OwnedIterator.get_next_as_optional", gi_get_next_as_optional, self, NULL);
  return val_undef();
}

static const Type giter_type = {
  .name = "OwnedIterator", .free = giter_free, .repr = giter_repr, .iter = giter_self, .next = giter_next,
  .getattr = giter_getattr, .hash = obj_identity_hash,
};
