/* gradtape.c — tf.GradientTape and its methods, tf.custom_gradient, tf.UnconnectedGradients, tf.test.compute_gradient. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "graph/tape.h"
#include "modules/tfmod.h"
#include "graph/trace.h"

static Tape *tape_of(Val self) { return (Tape *)self.u.o; }

/* ---- structures of sources: flatten, then rebuild with the gradients ---------------------- */

typedef struct Flat { Val *v; int n, cap; } Flat;

static void flat_push(Flat *f, Val v) {
  if (f->n == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 8;
    f->v = realloc(f->v, sizeof(Val) * (size_t)f->cap);
    if (!f->v) rt_throw(ERR_MEMORY, "out of memory");
  }
  f->v[f->n++] = v;
}

static void flatten(Flat *f, Val v, bool check) {
  tfs_i64 n;
  const Val *it;
  if (seq_items(v, &n, &it)) {
    for (tfs_i64 i = 0; i < n; i++) flatten(f, it[i], check);
  } else if (val_is(v, &dict_type)) {
    Dict *d = (Dict *)v.u.o;
    for (tfs_i64 i = 0; i < d->len; i++)
      if (d->keys[i].tag != VT_UNDEF) flatten(f, d->vals[i], check);
  } else {
    if (check && !val_is_tensor(v) && !val_is(v, &variable_type)) {
      free(f->v);
      rt_throw(ERR_TYPE, "GradientTape.gradient: sources must be tensors or Variables, got %s", val_type_name(v));
    }
    flat_push(f, v);
  }
}

/* Rebuild the structure of v with the flat values g[*pos...] (owned, consumed). */
static Val unflatten(Val v, const Val *g, int *pos) {
  tfs_i64 n;
  const Val *it;
  if (seq_items(v, &n, &it)) {
    bool is_list = val_is(v, &list_type);
    Val r = is_list ? list_new(n) : tuple_new(n);
    for (tfs_i64 i = 0; i < n; i++) {
      Val e = unflatten(it[i], g, pos);
      if (is_list) { list_append(r, e); TFS_DECREF(e); }
      else ((Tuple *)r.u.o)->items[i] = e;
    }
    return r;
  }
  if (val_is(v, &dict_type)) {
    Dict *d = (Dict *)v.u.o;
    Val r = dict_new();
    for (tfs_i64 i = 0; i < d->len; i++) {
      if (d->keys[i].tag == VT_UNDEF) continue;
      Val e = unflatten(d->vals[i], g, pos);
      dict_set(r, d->keys[i], e);
      TFS_DECREF(e);
    }
    return r;
  }
  return g[(*pos)++];
}

/* ---- methods ------------------------------------------------------------------------------ */

//! GradientTape.watch(tensor)
//!   Records operations on tensor (or each tensor of a list) so gradients can be taken with respect to it.
static Val m_watch(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "GradientTape.watch", .sig = "tensor"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  tape_watch_user(tape_of(self), a[0]);
  return val_none();
}

static Val m_enter(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  Tape *t = tape_of(self);
  if (t->active) rt_throw(ERR_VALUE, "Tape is still recording, This can happen if you try to re-enter an already-active tape.");
  tape_push(t);
  return val_incref(self);
}

static Val m_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  tape_pop(tape_of(self));
  return val_bool(false);
}

static bool want_zeros(Val u) {
  if (u.tag == VT_UNDEF || u.tag == VT_NONE) return false;
  if (val_is(u, &str_type)) {
    if (!strcmp(str_cstr(u), "zero")) return true;
    if (!strcmp(str_cstr(u), "none")) return false;
  }
  rt_throw(ERR_VALUE, "Unknown value for unconnected_gradients: %s", val_type_name(u));
}

/* The non-persistent rule: one set of gradients, then the tape is spent. */
static void use_once(Tape *t) {
  if (t->used) rt_throw(ERR_RUNTIME, "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)");
  if (!t->persistent) {
    t->used = true;
    tape_pop(t);   /* TF stops recording a non-persistent tape when its gradient is taken */
  }
}

//! GradientTape.gradient(target, sources, output_gradients=None, unconnected_gradients=None)
//!   The gradient of target (summed if not a scalar) with respect to each source, in the structure of sources;
//!   None for an unconnected source unless unconnected_gradients=tf.UnconnectedGradients.ZERO. A tape that is not
//!   persistent can compute one gradient only.
static Val m_gradient(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "GradientTape.gradient",
                         .sig = "target, sources, output_gradients=None, unconnected_gradients=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  Tape *t = tape_of(self);
  bool zeros = want_zeros(a[3]);
  use_once(t);
  Flat tg = {0}, src = {0}, og = {0};
  flatten(&src, a[1], true);
  flatten(&tg, a[0], false);
  if (a[2].tag != VT_NONE && a[2].tag != VT_UNDEF) {
    flatten(&og, a[2], false);
    if (og.n != tg.n) {
      int nt = tg.n, no = og.n;
      free(tg.v); free(src.v); free(og.v);
      rt_throw(ERR_VALUE, "output_gradients must have the structure of target: %d tensors given for %d targets", no, nt);
    }
  }
  Val *res = calloc((size_t)(src.n ? src.n : 1), sizeof(Val));
  if (!res) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(res);   /* a failing gradient frees the argument arrays */
  rt_hold_mem(tg.v);
  rt_hold_mem(src.v);
  rt_hold_mem(og.v);
  t->sync = true;   /* in replica context its all-reduce starts during the sweep */
  tape_gradient(t, tg.n, tg.v, og.n ? og.v : NULL, src.n, src.v, zeros, res);
  int pos = 0;
  Val r = unflatten(a[1], res, &pos);
  rt_unhold(mark);
  free(res); free(tg.v); free(src.v); free(og.v);
  return r;
}

/* ---- jacobians: one gradient per target element, seeded with a one-hot ---------------------- */

/* A seed of y's shape: ones at the flat positions k with k % period == i
 * (period y->size: the one-hot of element i). */
static Tensor *seed_like(Tensor *y, tfs_i64 period, tfs_i64 i) {
  Tensor *s = tensor_new(y->dtype, y->rank, y->shape);
  for (tfs_i64 k = 0; k < s->size; k++) {
    if (s->dtype == DT_FLOAT32) ((float *)tensor_data(s))[k] = k % period == i;
    else ((double *)tensor_data(s))[k] = k % period == i;
  }
  return s;
}

/* ---- jacobians inside tf.function: one backward pass per seed, stacked by graph ops ----
 * TF vectorizes the per-row gradients with pfor; with static shapes the rows
 * are unrolled instead: each seed's gradient is emitted into the graph. */

/* The result shape y.shape + x.shape[skip:], both known while tracing; returns its rank. */
static int static_result_shape(const Tensor *ty, const Tensor *tx, int skip, const char *what, tfs_i64 *shape) {
  const Tensor *ts[2] = {ty, tx};
  int r = 0;
  for (int k = 0; k < 2; k++) {
    bool ok = ts[k]->rank >= 0;
    for (int i = 0; ok && i < ts[k]->rank; i++) ok = ts[k]->shape[i] >= 0;
    if (!ok) rt_throw(ERR_UNIMPLEMENTED, "GradientTape.%s inside tf.function needs target and source shapes known while tracing", what);
    for (int i = k ? skip : 0; i < ts[k]->rank; i++) {
      if (r == TFS_MAX_RANK) rt_throw(ERR_UNIMPLEMENTED, "GradientTape.%s: the result's rank is too large", what);
      shape[r++] = ts[k]->shape[i];
    }
  }
  return r;
}

/* seeded_rows over n seeds seed_like(y, period, k), k < n. */
static Val periodic_rows(Tape *t, Val y, Val x, tfs_i64 n, tfs_i64 period, tfs_i64 rows, tfs_i64 cols, int axis, int rank,
                         const tfs_i64 *shape);

static Val reshape_to(Val v, int rank, const tfs_i64 *shape) {
  Val sh = tuple_new(rank);
  for (int i = 0; i < rank; i++) ((Tuple *)sh.u.o)->items[i] = val_int(shape[i]);
  OpAttrs at = {1, {sh}};
  Val r = op_apply(&op_defs[OP_RESHAPE], 1, &v, &at);
  TFS_DECREF(sh);
  return r;
}

/* The gradients of y seeded with each seeds[k] (eager tensors of y's shape),
 * each flattened to `cols` values, stacked along `axis`, reshaped to `shape`. */
static Val seeded_rows(Tape *t, Val y, Val x, int nseeds, Tensor **seeds, tfs_i64 rows, tfs_i64 cols, int axis,
                       int rank, const tfs_i64 *shape) {
  Val l = list_new(nseeds);
  for (int k = 0; k < nseeds; k++) {
    Val seed = val_obj(seeds[k]), g;
    tape_gradient(t, 1, &y, &seed, 1, &x, true, &g);
    TFS_DECREF(seed);
    tfs_i64 flat[2] = {rows, cols};
    Val r = reshape_to(g, rows < 0 ? 1 : 2, rows < 0 ? &cols : flat);
    TFS_DECREF(g);
    list_append(l, r);
    TFS_DECREF(r);
  }
  Val st;
  if (nseeds) {
    OpAttrs at = {1, {val_int(axis)}};
    st = op_apply(&op_defs[OP_STACK], 1, &l, &at);
  } else {
    st = val_obj(tensor_new(val_as_tensor(x)->dtype, rank, shape));
    memset(tensor_data(val_tensor(st)), 0, (size_t)val_tensor(st)->size * (size_t)dtype_info[val_tensor(st)->dtype].size);
  }
  TFS_DECREF(l);
  Val r = reshape_to(st, rank, shape);
  TFS_DECREF(st);
  return r;
}

static Val periodic_rows(Tape *t, Val y, Val x, tfs_i64 n, tfs_i64 period, tfs_i64 rows, tfs_i64 cols, int axis, int rank,
                         const tfs_i64 *shape) {
  Tensor **seeds = malloc(sizeof(Tensor *) * (size_t)(n + 1));
  if (!seeds) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 k = 0; k < n; k++) seeds[k] = seed_like(val_as_tensor(y), period, k);
  Val j = seeded_rows(t, y, x, (int)n, seeds, rows, cols, axis, rank, shape);
  free(seeds);
  return j;
}

static Val jacobian_graph(Tape *t, Val y, Val x) {
  Tensor *ty = val_as_tensor(y), *tx = val_as_tensor(x);
  tfs_i64 shape[TFS_MAX_RANK];
  int r = static_result_shape(ty, tx, 0, "jacobian", shape);
  return periodic_rows(t, y, x, ty->size, ty->size, -1, tx->size, 0, r, shape);
}

/* batch_jacobian in a graph: seed k selects output element k of every example
 * at once (examples are independent, as TF assumes); rows stack along axis 1. */
static Val batch_jacobian_graph(Tape *t, Val y, Val x) {
  Tensor *ty = val_as_tensor(y), *tx = val_as_tensor(x);
  tfs_i64 shape[TFS_MAX_RANK];
  int r = static_result_shape(ty, tx, 1, "batch_jacobian", shape);
  tfs_i64 b = ty->shape[0], ny = b ? ty->size / b : 0, nx = b ? tx->size / b : 0;
  return periodic_rows(t, y, x, ny, ny, b, nx, 1, r, shape);
}

/* d y / d x as a tensor of shape y.shape + x.shape (zeros where unconnected). */
static Val jacobian_of(Tape *t, Val y, Val x) {
  Tensor *ty = val_as_tensor(y), *tx = val_as_tensor(x);
  if (!ty || !tx) rt_throw(ERR_TYPE, "GradientTape.jacobian: expected tensors, got %s and %s", val_type_name(y), val_type_name(x));
  if (ty->sym || tx->sym) return jacobian_graph(t, y, x);
  tfs_i64 shape[2 * TFS_MAX_RANK];
  int r = 0;
  for (int i = 0; i < ty->rank; i++) shape[r++] = ty->shape[i];
  for (int i = 0; i < tx->rank; i++) shape[r++] = tx->shape[i];
  if (r > TFS_MAX_RANK) rt_throw(ERR_UNIMPLEMENTED, "GradientTape.jacobian: result rank %d is too large", r);
  Tensor *j = tensor_new(tx->dtype, r, shape);
  int mark = rt_hold_val(val_obj(j));
  for (tfs_i64 i = 0; i < ty->size; i++) {
    Val seed = val_obj(seed_like(ty, ty->size, i)), g;
    tape_gradient(t, 1, &y, &seed, 1, &x, true, &g);
    TFS_DECREF(seed);
    Tensor *tg = val_as_tensor(g);
    for (tfs_i64 k = 0; k < tx->size; k++) {
      double v = tg ? tensor_get_f(tg, k) : 0;
      if (j->dtype == DT_FLOAT32) ((float *)tensor_data(j))[i * tx->size + k] = (float)v;
      else ((double *)tensor_data(j))[i * tx->size + k] = v;
    }
    TFS_DECREF(g);
  }
  rt_unhold(mark);
  return val_obj(j);
}

//! GradientTape.jacobian(target, sources, unconnected_gradients=None, parallel_iterations=None, experimental_use_pfor=True)
//!   The full Jacobian: shape target.shape + source.shape for each source.
static Val m_jacobian(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "GradientTape.jacobian",
                         .sig = "target, sources, unconnected_gradients=None, parallel_iterations=None, experimental_use_pfor=True"};
  Val a[5];
  args_parse(&spec, n, args, kw, a);
  Tape *t = tape_of(self);
  bool zeros = want_zeros(a[2]);
  use_once(t);
  Flat src = {0};
  flatten(&src, a[1], true);
  Val *res = calloc((size_t)(src.n ? src.n : 1), sizeof(Val));
  if (!res) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < src.n; i++) {
    Val probe;   /* unconnected sources give None unless zeros are asked for */
    tape_gradient(t, 1, &a[0], NULL, 1, &src.v[i], false, &probe);
    bool none = probe.tag == VT_NONE;
    TFS_DECREF(probe);
    res[i] = none && !zeros ? val_none() : jacobian_of(t, a[0], src.v[i]);
  }
  int pos = 0;
  Val r = unflatten(a[1], res, &pos);
  free(res);
  free(src.v);
  return r;
}

//! GradientTape.batch_jacobian(target, source, unconnected_gradients=None, parallel_iterations=None, experimental_use_pfor=True)
//!   Per-example Jacobians of target [B, ...] with respect to source [B, ...]: shape [B] + target.shape[1:] + source.shape[1:].
static Val m_batch_jacobian(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "GradientTape.batch_jacobian",
                         .sig = "target, source, unconnected_gradients=None, parallel_iterations=None, experimental_use_pfor=True"};
  Val a[5];
  args_parse(&spec, n, args, kw, a);
  Tape *t = tape_of(self);
  use_once(t);
  Tensor *ty = val_as_tensor(a[0]), *tx = val_as_tensor(a[1]);
  if (!ty || !tx || ty->rank < 1 || tx->rank < 1)
    rt_throw(ERR_VALUE, "GradientTape.batch_jacobian: target and source must be tensors with a batch dimension");
  if (ty->shape[0] != tx->shape[0])
    rt_throw(ERR_VALUE, "Need first dimension of target shape (%lld) and source shape (%lld) to match.",
             (long long)ty->shape[0], (long long)tx->shape[0]);
  if (ty->sym || tx->sym) return batch_jacobian_graph(t, a[0], a[1]);
  Val full = jacobian_of(t, a[0], a[1]);
  Tensor *fj = val_tensor(full);
  tfs_i64 b = ty->shape[0], ny = ty->size / (b ? b : 1), nx = tx->size / (b ? b : 1);
  tfs_i64 shape[TFS_MAX_RANK];
  int r = 0;
  for (int i = 0; i < ty->rank; i++) shape[r++] = ty->shape[i];
  for (int i = 1; i < tx->rank && r < TFS_MAX_RANK; i++) shape[r++] = tx->shape[i];
  Tensor *j = tensor_new(fj->dtype, r, shape);
  /* the diagonal blocks: example i's outputs against example i's inputs */
  for (tfs_i64 i = 0; i < b; i++)
    for (tfs_i64 p = 0; p < ny; p++)
      for (tfs_i64 q = 0; q < nx; q++) {
        double v = tensor_get_f(fj, ((i * ny + p) * b + i) * nx + q);
        tfs_i64 o = (i * ny + p) * nx + q;
        if (j->dtype == DT_FLOAT32) ((float *)tensor_data(j))[o] = (float)v;
        else ((double *)tensor_data(j))[o] = v;
      }
  TFS_DECREF(full);
  return val_obj(j);
}

/* ---- stop_recording: a context manager pausing the tape ---------------------------------- */

typedef struct Pause { Obj hdr; Val tape; bool on; } Pause;
static void pause_free(Obj *o) {
  Pause *p = (Pause *)o;
  if (p->on) tape_of(p->tape)->paused--;
  TFS_DECREF(p->tape);
  free(p);
}
static void pause_repr(StrBuf *b, Val v) { sb_printf(b, "<contextlib._GeneratorContextManager object at %p>", (void *)v.u.o); }
static Val pause_enter(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  Pause *p = (Pause *)self.u.o;
  Tape *t = tape_of(p->tape);
  if (!t->active) rt_throw(ERR_VALUE, "Tape must be recording when stop_recording is called");
  if (!p->on) t->paused++;
  p->on = true;
  return val_none();
}
static Val pause_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  Pause *p = (Pause *)self.u.o;
  if (p->on) tape_of(p->tape)->paused--;
  p->on = false;
  return val_bool(false);
}
static Val pause_getattr(Val self, const char *name) {
  if (!strcmp(name, "__enter__")) return builtin_new("stop_recording.__enter__", pause_enter, self, NULL);
  if (!strcmp(name, "__exit__")) return builtin_new("stop_recording.__exit__", pause_exit, self, NULL);
  return val_undef();
}
static const Type pause_type = {.name = "_GeneratorContextManager", .free = pause_free, .repr = pause_repr, .getattr = pause_getattr};

//! GradientTape.stop_recording()
//!   A context manager inside which the tape records nothing.
static Val m_stop_recording(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "GradientTape.stop_recording", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  Pause *p = obj_new(&pause_type, sizeof(Pause));
  p->tape = val_incref(self);
  p->on = false;
  return val_obj(p);
}

//! GradientTape.reset()
//!   Forgets everything the tape recorded so far.
static Val m_reset(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  Tape *t = tape_of(self);
  bool persistent = t->persistent, watch = t->watch_vars, act = t->active;
  tape_pop(t);
  Val fresh = tape_new(persistent, watch);
  Tape *f = tape_of(fresh);
  /* swap the recorded state into the temporary and free it */
  Tape tmpt = *t;
  memcpy((char *)t + sizeof(Obj), (char *)f + sizeof(Obj), sizeof(Tape) - sizeof(Obj));
  memcpy((char *)f + sizeof(Obj), (char *)&tmpt + sizeof(Obj), sizeof(Tape) - sizeof(Obj));
  f->active = false;
  TFS_DECREF(fresh);
  if (act) tape_push(t);
  return val_none();
}

//! GradientTape.watched_variables()
//!   The tuple of variables the tape has watched, in the order it first saw them.
static Val m_watched_variables(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  Tape *t = tape_of(self);
  Val l = list_new(0);
  for (int i = 0; i < t->nwatched; i++)
    if (val_is(t->watched[i], &variable_type)) list_append(l, t->watched[i]);
  Val tu = tuple_new(((List *)l.u.o)->len);
  for (tfs_i64 i = 0; i < ((List *)l.u.o)->len; i++) ((Tuple *)tu.u.o)->items[i] = val_incref(((List *)l.u.o)->items[i]);
  TFS_DECREF(l);
  return tu;
}

static Val tape_getattr(Val self, const char *name) {
  /* qualified names are literals: a bound method fetched as a value (g = tape.gradient) owns nothing */
  static const struct { const char *name, *qual; BuiltinFn fn; } methods[] = {
    {"watch", "GradientTape.watch", m_watch}, {"gradient", "GradientTape.gradient", m_gradient},
    {"__enter__", "GradientTape.__enter__", m_enter}, {"__exit__", "GradientTape.__exit__", m_exit},
    {"stop_recording", "GradientTape.stop_recording", m_stop_recording}, {"reset", "GradientTape.reset", m_reset},
    {"watched_variables", "GradientTape.watched_variables", m_watched_variables},
    {"jacobian", "GradientTape.jacobian", m_jacobian}, {"batch_jacobian", "GradientTape.batch_jacobian", m_batch_jacobian},
  };
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    if (!strcmp(name, methods[i].name)) return builtin_new(methods[i].qual, methods[i].fn, self, NULL);
  if (!strcmp(name, "persistent")) return val_bool(tape_of(self)->persistent);
  return val_undef();
}

static void tape_repr(StrBuf *b, Val v) { sb_printf(b, "<tensorflow.python.eager.backprop.GradientTape object at %p>", (void *)v.u.o); }

/* The graph layer defines the tape's type and storage; its Python face is set here at start-up. */
void gradtape_register(void) {
  tape_type.repr = tape_repr;
  tape_type.getattr = tape_getattr;
}

/* ---- tf.* entry points ------------------------------------------------------------------- */

//! tf.GradientTape(persistent=False, watch_accessed_variables=True)
//!   Records operations run inside its with block so that tape.gradient can differentiate them. Trainable variables
//!   are watched automatically; tensors must be watched with tape.watch.
static Val tf_gradient_tape(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.GradientTape", .sig = "persistent=False, watch_accessed_variables=True"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return tape_new(rt_truthy(a[0]), rt_truthy(a[1]));
}

//! tf._tape_recording()
//!   True while a GradientTape records the ops that run (inside its with block, not paused by stop_recording): the Keras
//!   recurrent layers ask it whether a traced training call keeps its activations for a gradient (tfs's own, not TF's).
static Val tf_tape_recording(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf._tape_recording", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  for (int i = 0; i < tape_nactive_count(); i++)
    if (!tape_active_at(i)->paused) return val_bool(true);
  return val_bool(false);
}

/* A result of f as a tensor of its own, as TF's custom_gradient passes every
 * result through an Identity: f may return its input (or a Variable) as is,
 * and the entry must not be keyed on the input. */
static Val fresh_result(void *ctx, Val v) {
  (void)ctx;
  if (val_is_tensor(v) || val_is(v, &variable_type)) return op_apply1(OP_IDENTITY, v);
  return val_incref(v);
}

/* The (node, out) pairs of g that the tensors of tuple v are, or None when one is not g's: a node's aux names its
 * custom gradient's arguments and results so (tensors there would form a cycle through the graph). */
static Val custom_refs(Graph *g, Val v) {
  const Tuple *t = (const Tuple *)v.u.o;
  Val r = tuple_new(t->len);
  for (tfs_i64 i = 0; i < t->len; i++) {
    Graph *tg;
    GraphRef ref;
    Tensor *x = val_is_tensor(t->items[i]) ? val_as_tensor(t->items[i]) : NULL;
    if (!x || !trace_sym_ref(x, &tg, &ref) || tg != g) {
      val_decref(r);
      return val_none();
    }
    Val pair = tuple_new(2);
    ((Tuple *)pair.u.o)->items[0] = val_int(ref.node);
    ((Tuple *)pair.u.o)->items[1] = val_int(ref.out);
    ((Tuple *)r.u.o)->items[i] = pair;
  }
  return r;
}

/* Marks the graph node of a traced result (a symbolic tensor) as a custom
 * gradient's forward op, so a saved graph says its gradient is not the ops'.
 * ctx: (grad_fn, f's arguments) of a single result, kept in the node's aux for
 * tf.saved_model.save to trace (TF keeps it in its gradient registry). */
static Val mark_custom(void *ctx, Val v) {
  Graph *g;
  GraphRef r;
  Tensor *t = val_is_tensor(v) ? val_as_tensor(v) : NULL;
  if (t && trace_sym_ref(t, &g, &r) && g->nodes[r.node].kind == GN_OP && g->nodes[r.node].op->id == OP_IDENTITY) {
    GraphNode *nd = &g->nodes[r.node];
    nd->flags |= GNF_CUSTOM_GRAD;
    if (ctx) {
      const Tuple *st = (const Tuple *)((const Val *)ctx)->u.o;
      Val aux = tuple_new(2);
      ((Tuple *)aux.u.o)->items[0] = val_incref(st->items[0]);
      ((Tuple *)aux.u.o)->items[1] = custom_refs(g, st->items[1]);
      val_decref(nd->aux);
      nd->aux = aux;
    }
  }
  return val_incref(v);
}

/* Several results (each its own Identity node): the last one's node keeps (grad_fn, f's arguments, the results) for
 * a SavedModel, the others None (smgrad.c saves one gradient function of all the results' gradients). */
static void mark_custom_group(Val gf, Val st, Val y) {
  tfs_i64 m;
  const Val *it;
  if (!seq_items(y, &m, &it) || m == 0) return;
  Graph *g = NULL, *g0 = NULL;
  GraphRef r;
  int nodes[64];
  for (tfs_i64 i = 0; i < m; i++) {
    Tensor *t = val_is_tensor(it[i]) ? val_as_tensor(it[i]) : NULL;
    if (m > 64 || !t || !trace_sym_ref(t, &g, &r) || (g0 && g != g0) || !(g->nodes[r.node].flags & GNF_CUSTOM_GRAD)) return;
    g0 = g;
    nodes[i] = r.node;
  }
  Val aux = tuple_new(3);
  ((Tuple *)aux.u.o)->items[0] = val_incref(gf);
  ((Tuple *)aux.u.o)->items[1] = custom_refs(g0, ((Tuple *)st.u.o)->items[1]);
  Val rt = tuple_new(m);
  for (tfs_i64 i = 0; i < m; i++) ((Tuple *)rt.u.o)->items[i] = val_incref(it[i]);
  ((Tuple *)aux.u.o)->items[2] = custom_refs(g0, rt);
  val_decref(rt);
  for (tfs_i64 i = 0; i < m; i++) {
    GraphNode *nd = &g0->nodes[nodes[i]];
    val_decref(nd->aux);
    nd->aux = i == m - 1 ? aux : val_none();
  }
}

/* The gradient of a custom_gradient entry whose f read trainable Variables
 * (self: (grad_fn, nargs, variables)): TF's grad_fn(*dys, variables=...)
 * gives (input gradients, variable gradients), flattened for the entry's
 * inputs (the arguments, then the Variables). */
static Val custom_var_grads(Val self, int n, const Val *dy, const Kw *kw) {
  (void)kw;
  const Val *st = ((Tuple *)self.u.o)->items;
  Kw vk = {.n = 1, .names = (const char *[]){"variables"}, .vals = &st[2]};
  Val r = rt_call(st[0], n, dy, &vk);
  int mark = rt_hold_val(r);
  tfs_i64 m, nv, ni;
  int64_t na;
  const Val *it, *vg, *ig;
  if (!seq_items(r, &m, &it) || m != 2)
    rt_throw(ERR_VALUE, "custom_gradient: a grad_fn given variables must return (input gradients, variable gradients)");
  if (!seq_items(it[1], &nv, &vg) || nv != ((Tuple *)st[2].u.o)->len)
    rt_throw(ERR_VALUE, "Must return gradient for each variable from @custom_gradient grad_fn.");
  tfs_i64 nargs = val_as_int(st[1], &na) ? na : 0;
  bool one = !val_is(it[0], &list_type) && !val_is(it[0], &tuple_type);
  if (one) ig = &it[0], ni = 1;
  else seq_items(it[0], &ni, &ig);
  if (ni != nargs)
    /* errindex: custom_gradient function expected to return … gradients, but returned … instead. */
    rt_throw(ERR_VALUE, "custom_gradient function expected to return %d gradients, but returned %d instead.", (int)nargs, (int)ni);
  Val out = list_new(ni + nv);
  for (tfs_i64 i = 0; i < ni; i++) list_append(out, ig[i]);
  for (tfs_i64 i = 0; i < nv; i++) list_append(out, vg[i]);
  rt_unhold(mark);
  val_decref(r);
  return out;
}

/* The Variables the watcher tape saw f read, but for f's arguments (TF: those grad_fn gives gradients for as inputs). */
static Val custom_vars(Val watcher, int n, const Val *args) {
  Val all = m_watched_variables(watcher, 0, NULL, NULL);
  Tuple *at = (Tuple *)all.u.o;
  Val l = list_new(at->len);
  for (tfs_i64 i = 0; i < at->len; i++) {
    bool arg = false;
    for (int k = 0; k < n && !arg; k++) arg = args[k].tag == VT_OBJ && args[k].u.o == at->items[i].u.o;
    if (!arg) list_append(l, at->items[i]);
  }
  val_decref(all);
  List *ll = (List *)l.u.o;
  Val tu = tuple_new(ll->len);
  for (tfs_i64 i = 0; i < ll->len; i++) ((Tuple *)tu.u.o)->items[i] = val_incref(ll->items[i]);
  val_decref(l);
  return tu;
}

/* tf.custom_gradient(f): calling the result runs f with recording paused, then
 * records one entry whose gradient is the grad_fn f returned.  Under a tape, a
 * watcher tape (TF's VariableWatcher) sees the trainable Variables f reads:
 * they are inputs of the entry too, and grad_fn gets them as variables=. */
static Val custom_call(Val self, int n, const Val *args, const Kw *kw) {
  bool taped = op_tape_nactive > 0 && n < 60;
  for (int i = 0; i < tape_nactive_count(); i++) tape_active_at(i)->paused++;
  Val watcher = taped ? tape_new(false, true) : val_undef();
  int wmark = rt_hold_val(watcher);
  if (taped) tape_push(tape_of(watcher));
  RtTry tr;
  rt_try_push(&tr);
  Val y, gf;
  if (setjmp(tr.jb) == 0) {
    Val r = rt_call(self, n, args, kw);
    tfs_i64 m;
    const Val *it;
    if (!seq_items(r, &m, &it) || m != 2) {
      TFS_DECREF(r);
      rt_throw(ERR_VALUE, "tf.custom_gradient: the function must return (result, grad_fn)");
    }
    /* the results are made while recording is paused: only the custom entry records them */
    bool seq = val_is(it[0], &list_type) || val_is(it[0], &tuple_type);
    y = seq ? nest_map(it[0], fresh_result, NULL) : fresh_result(NULL, it[0]);
    gf = val_incref(it[1]);
    TFS_DECREF(r);
    rt_try_pop(&tr);
  } else {
    if (taped) tape_pop(tape_of(watcher));
    for (int i = 0; i < tape_nactive_count(); i++) tape_active_at(i)->paused--;
    rt_rethrow(&tr);
  }
  if (taped) tape_pop(tape_of(watcher));
  for (int i = 0; i < tape_nactive_count(); i++) tape_active_at(i)->paused--;
  Val vars = taped ? custom_vars(watcher, n, args) : val_undef();
  rt_hold_val(vars);
  Val in[64];
  int nin = n;
  for (int i = 0; i < n; i++) in[i] = args[i];
  bool wrap = taped && ((Tuple *)vars.u.o)->len > 0 && ((Tuple *)vars.u.o)->len + n <= 64;
  /* a saved graph keeps the grad_fn of a custom gradient without Variables (smgrad.c) */
  if (trace_active()) {
    /* (grad_fn, f's arguments): a saved graph's gradient goes to the arguments, as TF's IdentityN takes them */
    Val st = tuple_new(2);
    ((Tuple *)st.u.o)->items[0] = val_incref(gf);
    Val at = tuple_new(n);
    for (int i = 0; i < n; i++) ((Tuple *)at.u.o)->items[i] = val_incref(args[i]);
    ((Tuple *)st.u.o)->items[1] = at;
    int sm = rt_hold_val(st);
    bool seq = val_is(y, &list_type) || val_is(y, &tuple_type);
    val_decref(seq ? nest_map(y, mark_custom, NULL) : mark_custom(wrap ? NULL : &st, y));
    if (seq && !wrap) mark_custom_group(gf, st, y);
    rt_unhold(sm);
    val_decref(st);
  }
  if (wrap) {
    Val st = tuple_new(3);
    ((Tuple *)st.u.o)->items[0] = gf;
    ((Tuple *)st.u.o)->items[1] = val_int(n);
    ((Tuple *)st.u.o)->items[2] = val_incref(vars);
    gf = builtin_new("tf.custom_gradient.<locals>.actual_grad_fn", custom_var_grads, st, NULL);
    val_decref(st);
    for (tfs_i64 i = 0; i < ((Tuple *)vars.u.o)->len; i++) in[nin++] = ((Tuple *)vars.u.o)->items[i];
  }
  if (op_tape_nactive) tape_record_custom(nin, in, y, gf);
  TFS_DECREF(gf);
  rt_unhold(wmark);
  val_decref(vars);
  val_decref(watcher);
  return y;
}

//! tf.custom_gradient(f=None)
//!   Decorator: f returns (y, grad_fn) and grad_fn(dy) gives the gradients of f's inputs, used instead of differentiating f.
//!   When f reads trainable Variables (not its arguments) under a tape, grad_fn(dy, variables=[...]) returns (input
//!   gradients, one gradient per Variable), as TF.
static Val tf_custom_gradient(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.custom_gradient", .sig = "f=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return builtin_new("tf.custom_gradient.<locals>.decorated", custom_call, a[0], NULL);
}

//! tf.autodiff.GradientTape
//!   tf.GradientTape under TF's tf.autodiff name.
//! tf.autodiff.ForwardAccumulator(primals, tangents)
//!   Forward-mode autodiff (stdlib/tfcore_fwdacc.tfs): `with acc:` records the ops run on primals (a tensor, Variable
//!   or structure of them), each moved along its tangent (same structure, dtype and shape); acc.jvp(y) is then the
//!   Jacobian-vector product of y. Works inside tf.function, nested with GradientTape (Hessian-vector products
//!   forward-over-backward and backward-over-forward) and with other accumulators (higher-order JVPs).
//! ForwardAccumulator.jvp(primals, unconnected_gradients=tf.UnconnectedGradients.NONE)
//!   The JVP of each tensor of primals (a structure), computed by a double backward pass over what the accumulator
//!   recorded; None (zeros with ZERO) for a value the primals do not reach or of an integer dtype; a primal gives
//!   its tangent.
//! tf.IndexedSlices(values, indices, dense_shape=None)
//!   Slices of a tensor's first dimension (stdlib/tfcore_indexed.tfs): values[i] is row indices[i] of a tensor of
//!   dense_shape; values, indices, dense_shape, dtype, shape, -s; what Variable.scatter_add and its kin take (tfs's
//!   gradients stay dense).
//! tf.UnconnectedGradients
//!   Values for unconnected_gradients: NONE (the default, None gradients) or ZERO (zeros).
static Val unconnected_attr(const char *name) {
  if (!strcmp(name, "NONE")) return str_from_cstr("none");
  if (!strcmp(name, "ZERO")) return str_from_cstr("zero");
  return val_undef();
}

/* tf.test.compute_gradient(f, x): (theoretical, numerical) Jacobians per input, rows
 * over the flattened output, columns over the flattened input; central differences. */
static Val jac_numeric(Val f, Flat *xs, int which, Tensor *y0) {
  Tensor *x = val_as_tensor(xs->v[which]);
  double delta = x->dtype == DT_FLOAT32 ? 1.0 / 1024 : 1.0 / (1 << 20);
  tfs_i64 shape[2] = {y0->size, x->size};
  Tensor *j = tensor_new(x->dtype, 2, shape);
  int mark = rt_hold_val(val_obj(j));
  for (tfs_i64 k = 0; k < x->size; k++) {
    double side[2];
    Tensor *ys[2];
    for (int s = 0; s < 2; s++) {
      Tensor *xp = tensor_copy(x);
      double v = tensor_get_f(xp, k) + (s ? -delta : delta);
      if (xp->dtype == DT_FLOAT32) ((float *)tensor_data(xp))[k] = (float)v;
      else ((double *)tensor_data(xp))[k] = v;
      Val *argv = malloc(sizeof(Val) * (size_t)xs->n);
      if (!argv) rt_throw(ERR_MEMORY, "out of memory");
      for (int i = 0; i < xs->n; i++) argv[i] = i == which ? val_obj(xp) : xs->v[i];
      Val y = rt_call(f, xs->n, argv, NULL);
      free(argv);
      tensor_release(xp);
      Tensor *ty = val_as_tensor(y);
      if (!ty || ty->size != y0->size) rt_throw(ERR_VALUE, "tf.test.compute_gradient: f must return a tensor of a fixed shape");
      ys[s] = tensor_retain(ty);
      TFS_DECREF(y);
      (void)side;
    }
    for (tfs_i64 i = 0; i < y0->size; i++) {
      double d = (tensor_get_f(ys[0], i) - tensor_get_f(ys[1], i)) / (2 * delta);
      if (j->dtype == DT_FLOAT32) ((float *)tensor_data(j))[i * x->size + k] = (float)d;
      else ((double *)tensor_data(j))[i * x->size + k] = d;
    }
    tensor_release(ys[0]);
    tensor_release(ys[1]);
  }
  rt_unhold(mark);
  return val_obj(j);
}

//! tf.test.compute_gradient(f, x, delta=None)
//!   Returns (theoretical, numerical) Jacobians of f at the list of tensors x: the tape's result and central differences.
static Val tf_compute_gradient(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.test.compute_gradient", .sig = "f, x, delta=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  Flat xs = {0};
  flatten(&xs, a[1], false);
  for (int i = 0; i < xs.n; i++) {
    Tensor *t = val_as_tensor(xs.v[i]);
    if (!t || !dtype_info[t->dtype].is_float) {
      free(xs.v);
      rt_throw(ERR_TYPE, "tf.test.compute_gradient: x must hold floating-point tensors");
    }
  }
  Val theo = list_new(xs.n), num = list_new(xs.n);
  Val tp = tape_new(true, false);
  Tape *t = tape_of(tp);
  for (int i = 0; i < xs.n; i++) tape_watch(t, xs.v[i]);
  tape_push(t);
  Val y = rt_call(a[0], xs.n, xs.v, NULL);
  tape_pop(t);
  Tensor *ty = val_as_tensor(y);
  if (!ty) rt_throw(ERR_TYPE, "tf.test.compute_gradient: f must return a tensor, got %s", val_type_name(y));
  for (int i = 0; i < xs.n; i++) {
    Val jt = jacobian_of(t, y, xs.v[i]);
    Tensor *tj = val_tensor(jt);
    tfs_i64 shape[2] = {ty->size, val_as_tensor(xs.v[i])->size};
    OpAttrs at = {1, {val_undef()}};
    at.v[0] = tuple_pack(2, val_int(shape[0]), val_int(shape[1]));
    Val j2 = op_apply(&op_defs[OP_RESHAPE], 1, &jt, &at);
    TFS_DECREF(at.v[0]);
    (void)tj;
    TFS_DECREF(jt);
    Val nd = ndarray_new(val_tensor(j2));
    list_append(theo, nd);
    TFS_DECREF(nd);
    TFS_DECREF(j2);
    Val jn = jac_numeric(a[0], &xs, i, ty);
    nd = ndarray_new(val_tensor(jn));
    list_append(num, nd);
    TFS_DECREF(nd);
    TFS_DECREF(jn);
  }
  TFS_DECREF(y);
  TFS_DECREF(tp);
  free(xs.v);
  Val r = tuple_pack(2, theo, num);
  TFS_DECREF(theo);
  TFS_DECREF(num);
  return r;
}

//! tf.test.is_gpu_available(cuda_only=False, min_cuda_compute_capability=None)
//!   False: tfs runs on the CPU (tf.config.list_physical_devices("GPU") is []). Deprecated in TF; the first call
//!   logs TF's deprecation warning on stderr, naming the caller's file and line.
static Val tf_is_gpu_available(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.test.is_gpu_available", .sig = "cuda_only=False, min_cuda_compute_capability=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  static bool warned;   /* TF's @deprecated warns once per function */
  tfmod_deprecated(&warned,
                   "is_gpu_available (from tensorflow.python.framework.test_util) is deprecated and will be removed in "
                   "a future version.\nInstructions for updating:\nUse `tf.config.list_physical_devices('GPU')` "
                   "instead.\n");
  return val_bool(false);
}

//! tf.test.gpu_device_name()
//!   '' (no GPU: tfs runs on the CPU).
static Val tf_gpu_device_name(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.test.gpu_device_name", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  return str_from_cstr("");
}

//! tf.test
//!   Testing helpers: compute_gradient, is_gpu_available, gpu_device_name.
static Val test_attr(const char *name) {
  if (!strcmp(name, "compute_gradient")) return builtin_new("tf.test.compute_gradient", tf_compute_gradient, val_undef(), NULL);
  if (!strcmp(name, "is_gpu_available")) return builtin_new("tf.test.is_gpu_available", tf_is_gpu_available, val_undef(), NULL);
  if (!strcmp(name, "gpu_device_name")) return builtin_new("tf.test.gpu_device_name", tf_gpu_device_name, val_undef(), NULL);
  return val_undef();
}

void gradtape_init(void) {
  static bool done;
  if (done) return;
  done = true;
  Val b = builtin_new("tf.GradientTape", tf_gradient_tape, val_undef(), NULL);
  tfmod_register("GradientTape", b);
  TFS_DECREF(b);
  b = builtin_new("tf._tape_recording", tf_tape_recording, val_undef(), NULL);
  tfmod_register("_tape_recording", b);
  TFS_DECREF(b);
  b = builtin_new("tf.custom_gradient", tf_custom_gradient, val_undef(), NULL);
  tfmod_register("custom_gradient", b);
  TFS_DECREF(b);
  b = module_native("tf.UnconnectedGradients", unconnected_attr);
  tfmod_register("UnconnectedGradients", b);
  TFS_DECREF(b);
  graphgrad_init();
  b = module_native("tf.test", test_attr);
  tfmod_register("test", b);
  TFS_DECREF(b);
}

__attribute__((constructor)) static void gradtape_ctor(void) { gradtape_init(); }

/* ---- gradients through graph control flow --------------------------------------------------
 * A cond's gradient is a cond: each branch of the backward cond runs its
 * forward branch again under a fresh tape (inside the backward branch graph)
 * and takes the gradients of its outputs with respect to the outer values the
 * branch read.  Loops: loopgrad.c. */

static Val flat_tuple(Val v) {
  Flat f = {0};
  flatten(&f, v, false);
  Val r = rt_tuple(f.n, f.v);
  free(f.v);
  return r;
}

Val gradtape_rerun(Tape *t, Val fn, int n, const Val *args) { return gradtape_rerun_ex(t, fn, n, args, false); }

Val gradtape_rerun_ex(Tape *t, Val fn, int n, const Val *args, bool bound) {
  tape_push(t);
  trace_quiet++;
  RtTry tr;
  rt_try_push(&tr);
  Val r;
  if (setjmp(tr.jb) == 0) {
    r = bound ? func_call_bound(fn, (Val *)args) : rt_call(fn, n, args, NULL);
    rt_try_pop(&tr);
  } else {
    trace_quiet--;
    tape_pop(t);
    rt_rethrow(&tr);
  }
  trace_quiet--;
  tape_pop(t);
  return r;
}

static Val cond_branch_grad(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  const Val *s = ((Tuple *)self.u.o)->items;   /* (rerun, ext, dys, random-draw counters before the cond) */
  Val tp = tape_new(false, false);
  Tape *t = tape_of(tp);
  tape_watch(t, s[1]);
  Val live = op_apply1(OP_RNG_SWAP, s[3]);   /* the branch draws the forward pass's numbers again */
  Val r = gradtape_rerun(t, s[0], 0, NULL);
  Val back = op_apply1(OP_RNG_SWAP, live);
  TFS_DECREF(back);
  TFS_DECREF(live);
  Val outs = flat_tuple(r);
  TFS_DECREF(r);
  Tuple *ot = (Tuple *)outs.u.o, *dt = (Tuple *)s[2].u.o, *et = (Tuple *)s[1].u.o;
  if (ot->len != dt->len) rt_throw(ERR_UNIMPLEMENTED, "gradient of a cond whose branches give different structures");
  Val *res = calloc((size_t)et->len + 1, sizeof(Val));
  if (!res) rt_throw(ERR_MEMORY, "out of memory");
  tape_gradient(t, (int)ot->len, ot->items, dt->items, (int)et->len, et->items, true, res);
  Val g = rt_tuple((int)et->len, res);
  for (tfs_i64 i = 0; i < et->len; i++) TFS_DECREF(res[i]);
  free(res);
  TFS_DECREF(outs);
  TFS_DECREF(tp);
  return g;
}

static Val cond_grad(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  const Val *s = ((Tuple *)self.u.o)->items;   /* (pred, rerun_true, rerun_false, ext, rng) */
  Val dys = rt_tuple(n, args);
  Val st = tuple_pack(4, s[1], s[3], dys, s[4]), sf = tuple_pack(4, s[2], s[3], dys, s[4]);
  Val bt = builtin_new("cond_grad_true", cond_branch_grad, st, NULL);
  Val bf = builtin_new("cond_grad_false", cond_branch_grad, sf, NULL);
  Val tf = tf_module();
  Val cond = rt_getattr(tf, "cond");
  Val in[3] = {s[0], bt, bf};
  Val r = rt_call(cond, 3, in, NULL);
  TFS_DECREF(cond); TFS_DECREF(tf); TFS_DECREF(bt); TFS_DECREF(bf); TFS_DECREF(st); TFS_DECREF(sf); TFS_DECREF(dys);
  return r;
}

void gradtape_region_end(TapeRegion *r, Val pred, Val rerun_true, Val rerun_false, Val result, Val rng) {
  Val outs = flat_tuple(result);
  for (int i = 0; i < r->n; i++) {
    Val ext;
    tape_region_end(r, i, &ext);
    if (((Tuple *)ext.u.o)->len) {
      Val st = tuple_pack(5, pred, rerun_true, rerun_false, ext, rng);
      Val fn = builtin_new("cond_grad", cond_grad, st, NULL);
      TFS_DECREF(st);
      tape_record_on(r->t[i], ext, outs, fn);
      TFS_DECREF(fn);
    }
    TFS_DECREF(ext);
  }
  TFS_DECREF(outs);
}
