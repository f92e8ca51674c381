/* trace.c — tracing contexts, symbolic tensors, the op_graph_hook recording ops into graphs, captures, init scope. */
#include "graph/trace.h"
#include "kernels/tensorlist.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "graph/tape.h"

/* tensor.c's printing hook for symbolic tensors (declared here until tensor.h has it). */
extern void (*tensor_sym_repr)(StrBuf *b, const Tensor *t, bool repr);

/* What a symbolic tensor's `sym` points at: one value of one graph.  The
 * graph is retained, so a symbolic tensor that escapes its function (stored
 * in a global list) stays printable and is detected when used. */
typedef struct TraceSym {
  Graph *g;
  GraphRef r;
} TraceSym;

/* Eager objects already captured in a context: Obj* -> node. */
typedef struct TraceKey { const void *obj; int node; } TraceKey;
/* Key node of a tensor the stdlib library made while tracing (no node until used); the key holds the tensor, so
 * another made at its address later is not taken for it. */
enum { TRACE_KEY_LITERAL = -2 };

static __thread TraceCtx *trace_cur;   /* per thread: tf.data graph workers trace nothing (parexec.c) */

bool trace_active(void) { return trace_cur != NULL; }
TraceCtx *trace_current(void) { return trace_cur; }

int trace_op_scope_enter(const char *name, const OpDef *op) {
  return trace_cur && trace_cur->g ? graph_op_scope_enter(trace_cur->g, name, op) : -1;
}

const char *trace_graph_name(void) {
  TraceCtx *cx = trace_cur;
  while (cx && cx->body && cx->outer) cx = cx->outer;   /* a cond/while body: its function's graph */
  return cx && cx->g ? cx->g->name : NULL;
}

/* The nearest function trace's tape for tf.gradients (body contexts belong to their function). */
static Tape *trace_shadow_in(TraceCtx *cx) {
  for (; cx; cx = cx->outer)
    if (!cx->body) return cx->shadow;
  return NULL;
}

Tape *trace_shadow_tape(void) { return trace_shadow_in(trace_cur); }

TraceCtx *trace_suspend(void) {
  TraceCtx *cx = trace_cur;
  Tape *sh = trace_shadow_in(cx);
  if (sh) sh->paused++;   /* eager work in the middle of a trace is no part of the function */
  trace_cur = NULL;
  return cx;
}

void trace_resume(TraceCtx *cx) {
  trace_cur = cx;
  Tape *sh = trace_shadow_in(cx);
  if (sh) sh->paused--;
}

/* tf.gradients differentiates a graph after it was traced; through a graph cond or while it needs what
 * a tape records while they are staged (the branch and body functions, the loop's state stacks).  A
 * program whose source calls tf.gradients therefore traces each function under a persistent tape that
 * watches the function's inputs and trainable Variables (graphgrad.c uses it).  Other programs pay nothing. */
static bool trace_wants_shadow(void) {
  static int nfiles_seen = -1;
  static bool wanted;
  int n = 0;
  while (rt_file_get(n)) n++;
  if (n != nfiles_seen) {   /* the prompt appends units */
    nfiles_seen = n;
    wanted = false;
    for (int i = 0; i < n && !wanted; i++) {
      const RtFile *f = rt_file_get(i);
      wanted = f->source && strstr(f->source, "tf.gradients") != NULL;
    }
  }
  return wanted;
}

/* ---- symbolic tensors ---------------------------------------------------------- */

static void trace_sym_free(void *p) {
  TraceSym *s = p;
  s->g->nsym--;
  graph_release(s->g);
  free(s);
}

/* TF's str of a graph tensor, or its repr (repr=true: <tf.Tensor 'x:0' shape=() dtype=float32>). */
static void trace_sym_text(StrBuf *b, const Tensor *t, bool repr) {
  const TraceSym *s = t->sym;
  const GraphNode *n = &s->g->nodes[s->r.node];
  sb_printf(b, repr ? "<tf.Tensor '%s:%d' shape=" : "Tensor(\"%s:%d\", shape=", n->name, s->r.out);
  graph_shape_text(b, t->rank, t->shape);
  sb_printf(b, repr ? " dtype=%s>" : ", dtype=%s)", dtype_info[t->dtype].name);
}

static void trace_sym_repr(StrBuf *b, const Tensor *t) { trace_sym_text(b, t, false); }

Val trace_sym(Graph *g, GraphRef r) {
  static const TMeta resource = {DT_RESOURCE, 0, {0}};   /* a Variable handle's capture placeholder's output */
  const TMeta *m = g->nodes[r.node].kind == GN_VARHANDLE ? &resource : graph_meta(g, r);
  TraceSym *s = malloc(sizeof *s);
  if (!s) rt_throw(ERR_MEMORY, "out of memory");
  Tensor *t = obj_new(&tensor_type, sizeof(Tensor));
  s->g = graph_retain(g);
  s->r = r;
  g->nsym++;
  t->dtype = m->dtype;
  t->rank = m->rank;
  t->size = m->rank < 0 ? -1 : 1;
  for (int i = 0; i < m->rank; i++) {
    t->shape[i] = m->shape[i];
    t->strides[i] = 0;
    if (m->shape[i] < 0) t->size = -1;
    else if (t->size >= 0) t->size *= m->shape[i];
  }
  t->offset = 0;
  t->buf = NULL;
  t->sym = s;
  t->tape_bits = 0;
  t->tape_id = 0;
  t->tape_loose = NULL;
  t->attrs = NULL;
  return val_obj(t);
}

Val trace_placeholder(Graph *g, const char *name, const TMeta *m) {
  int id = graph_add_placeholder(g, name, m);
  Val v = trace_sym(g, (GraphRef){id, 0});
  if (trace_cur && !trace_cur->body && trace_cur->g == g && trace_cur->shadow && dtype_has_grad(m->dtype))
    tape_watch(trace_cur->shadow, v);   /* a function input: tf.gradients may differentiate with respect to it */
  return v;
}

bool trace_sym_ref(const Tensor *t, Graph **g, GraphRef *r) {
  if (!t->sym) return false;
  const TraceSym *s = t->sym;
  *g = s->g;
  *r = s->r;
  return true;
}

bool trace_val_symbolic(Val v) {
  if (v.tag != VT_OBJ) return false;
  const Type *ty = v.u.o->type;
  if (ty == &tensor_type) return ((Tensor *)v.u.o)->sym != NULL;
  if (ty == &variable_type) return variable_storage(v.u.o)->sym != NULL;
  if (ty == &list_type || ty == &tuple_type) {
    tfs_i64 n;
    const Val *items;
    seq_items(v, &n, &items);
    for (tfs_i64 i = 0; i < n; i++)
      if (trace_val_symbolic(items[i])) return true;
  }
  return false;
}

/* The dtype of the first tensor in a nested list (-1: none). */
static int trace_pack_dtype(Val v) {
  Tensor *t = val_as_tensor(v);
  if (t) return t->dtype;
  tfs_i64 n;
  const Val *items;
  if (!seq_items(v, &n, &items)) return -1;
  for (tfs_i64 i = 0; i < n; i++) {
    int d = trace_pack_dtype(items[i]);
    if (d >= 0) return d;
  }
  return -1;
}

Val trace_pack(Val v, int want) {
  tfs_i64 n;
  const Val *items;
  if (!seq_items(v, &n, &items) || n == 0) rt_throw(ERR_TYPE, "internal: trace_pack needs a non-empty list");
  if (want < 0) want = trace_pack_dtype(v);
  Val elems = list_new(n);
  int mark = rt_hold_val(elems);
  for (tfs_i64 i = 0; i < n; i++) {
    Val e;
    if (trace_val_symbolic(items[i]) && !val_as_tensor(items[i])) e = trace_pack(items[i], want);
    else if (val_as_tensor(items[i])) e = val_incref(items[i]);
    else e = val_obj(tensor_from_val(items[i], want));
    list_append(elems, e);
    val_decref(e);
  }
  Val r = op_apply1(OP_STACK, elems);
  rt_unhold(mark);
  val_decref(elems);
  return r;
}

_Noreturn void trace_error_symbolic_bool(void) {
  rt_throw(ERR_TYPE, "using a symbolic tensor as a Python bool is not allowed");
}

/* A symbolic tensor used where its graph is not being built. */
static _Noreturn void trace_error_foreign(const Tensor *t) {
  const TraceSym *es = t->sym;
  if (es->g->escaped_loc)
    rt_throw_at(es->g->escaped_loc, ERR_INVALID_ARGUMENT,
                "a tensor computed inside this TensorFlow loop was kept in a Python value (such as a list appended "
                "to in the loop); use tf.TensorArray or tf.concat to accumulate values across iterations");
  StrBuf b;
  sb_init(&b);
  trace_sym_repr(&b, t);
  const TraceSym *s = t->sym;
  char msg[640];
  snprintf(msg, sizeof msg,
           "%s is a symbolic tensor of tf.function '%s' and cannot be used outside of it; return it from the "
           "function instead",
           b.data, s->g->fname);
  sb_free(&b);
  rt_throw(ERR_TYPE, "%s", msg);
}

/* ---- contexts ------------------------------------------------------------------- */

TraceCtx *trace_push(Graph *g, bool allow_vars, bool body) {
  trace_install();
  TraceCtx *cx = calloc(1, sizeof *cx);
  if (!cx) rt_throw(ERR_MEMORY, "out of memory");
  cx->outer = trace_cur;
  cx->g = g;
  cx->allow_vars = allow_vars;
  cx->body = body;
  cx->last_effect = -1;
  cx->saved_loc = rt_cur_loc;
  cx->saved_scope = graph_scope_reset();   /* a body too: TF's FuncGraph has its own name stack */
  trace_cur = cx;
  if (!body && trace_wants_shadow()) {
    Val t = tape_new(true, true);
    cx->shadow = (Tape *)t.u.o;
    tape_push(cx->shadow);
  }
  return cx;
}

static void trace_scratch_free(TraceCtx *cx, TraceScratch *sc);

static void trace_ctx_free(TraceCtx *cx) {
  while (cx->scratch) trace_scratch_free(cx, cx->scratch);
  free(cx->caps);
  for (int i = 0; i < cx->nkeys; i++)
    if (cx->keys[i].node == TRACE_KEY_LITERAL) tensor_release((Tensor *)cx->keys[i].obj);
  free(cx->keys);
  free(cx);
}

void (*trace_pop_hook)(Graph *g);

void trace_pop(TraceCtx *cx) {
  if (cx->shadow) {
    tape_pop(cx->shadow);
    Val t = val_obj(cx->shadow);
    cx->shadow = NULL;
    val_decref(t);
  }
  graph_scope_restore(cx->saved_scope);
  trace_cur = cx->outer;
  if (trace_pop_hook) trace_pop_hook(cx->g);
  rt_cur_loc = cx->saved_loc;
  trace_ctx_free(cx);
}

void trace_abort(TraceCtx *cx) { trace_pop(cx); }

static int trace_key_find(const TraceCtx *cx, const void *obj) {
  for (int i = cx->nkeys - 1; i >= 0; i--)
    if (cx->keys[i].obj == obj) return cx->keys[i].node;
  return -1;
}

static void trace_key_add(TraceCtx *cx, const void *obj, int node) {
  if (cx->nkeys == cx->keycap) {
    int cap = cx->keycap ? cx->keycap * 2 : 8;
    TraceKey *k = realloc(cx->keys, sizeof(TraceKey) * (size_t)cap);
    if (!k) rt_throw(ERR_MEMORY, "out of memory");
    cx->keys = k;
    cx->keycap = cap;
  }
  cx->keys[cx->nkeys++] = (TraceKey){obj, node};
}

void trace_refvec_push(GraphRefVec *rv, GraphRef r) {
  if (rv->n == rv->cap) {
    int cap = rv->cap ? rv->cap * 2 : 8;
    GraphRef *v = realloc(rv->v, sizeof(GraphRef) * (size_t)cap);
    if (!v) rt_throw(ERR_MEMORY, "out of memory");
    rv->v = v;
    rv->cap = cap;
  }
  rv->v[rv->n++] = r;
}

/* ---- references to values in the current graph ------------------------------------ */

/* Is the running line the stdlib .tfs library's (np.array, Keras)? */
static bool trace_in_library(void) {
  const RtLoc *l = rt_loc_get(rt_cur_loc);
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  return f && f->library;
}

/* A tensor the user's traced function made (tf.constant, tf.convert_to_tensor) is its Const node now, named then as
 * TF's constant_op names it ('Const', 'Const_1', name=), not later inside the scope of the op that uses it.  The
 * library's (np.array inside a trace is host data in TF) stays a literal made Const where it is used. */
void trace_literal(Tensor *t, const char *name) {
  TraceCtx *cx = trace_current();
  if (!cx || t->sym || trace_key_find(cx, t) != -1) return;
  if (trace_in_library()) {
    trace_key_add(cx, tensor_retain(t), TRACE_KEY_LITERAL);
    return;
  }
  int id = graph_add_const_named(cx->g, t, name && *name ? name : "Const");
  graph_ctrl_apply(cx->g, id);   /* made inside a control_dependencies block: TF's Const waits for it too */
  trace_key_add(cx, t, id);
}

/* cap: t is a tensor from outside, which a tape may watch (not a NumPy array's) */
static GraphRef trace_const_capture(TraceCtx *cx, Tensor *t, bool cap) {
  int id = trace_key_find(cx, t);
  if (id < 0) {
    cap = cap && id != TRACE_KEY_LITERAL;
    id = graph_add_const(cx->g, t);
    if (cap) cx->g->nodes[id].flags |= GNF_CAPTURE;   /* not a literal of the trace: recorded calls differentiate it */
    trace_key_add(cx, t, id);
  }
  return (GraphRef){id, 0};
}

/* The first parameter's name in op's TF signature ("resource", "ref"): TF names the capture of a Variable's handle
 * after the op input that converted it. */
static void trace_arg_name(const OpDef *op, char *buf, size_t n) {
  const char *s = op->sig ? op->sig : "resource";
  size_t k = strcspn(s, ",=) ");
  snprintf(buf, n, "%.*s", (int)k, s);
}

/* The handle of var in cx's graph: made on its first use by `op`, whose node the caller adds next (with the scope
 * this opened, *tok, still entered: TF captures the handle while converting the op's inputs in its name scope). */
static int trace_varhandle(TraceCtx *cx, Variable *var, const OpDef *op, int *tok) {
  int id = trace_key_find(cx, var);
  *tok = -1;
  if (id < 0) {
    char arg[64];
    trace_arg_name(op, arg, sizeof arg);
    *tok = graph_op_scope_own(cx->g, op);
    id = graph_add_varhandle(cx->g, var, arg);
    trace_key_add(cx, var, id);
  }
  return id;
}

GraphRef trace_read_var(TraceCtx *cx, Variable *var) {
  TMeta m;
  tfs_i64 dims[TFS_MAX_RANK];
  int rank = variable_shape(var, dims);   /* a declared shape's open dims stay open in the graph */
  meta_set(&m, var->value->dtype, rank, dims);
  int tok;
  int h = trace_varhandle(cx, var, &op_defs[OP_READ_VARIABLE], &tok);
  int id = graph_add_node(cx->g, GN_OP, &op_defs[OP_READ_VARIABLE], "ReadVariableOp", 1, &m);
  if (tok >= 0) graph_op_scope_exit(tok);
  GraphRef in = {h, 0};
  graph_set_inputs(cx->g, id, 1, &in, NULL);
  graph_ctrl_apply(cx->g, id);
  return (GraphRef){id, 0};
}

static TraceForeign *trace_foreign;

void trace_set_foreign(TraceForeign *f) { trace_foreign = f; }

/* A tensor of trace_foreign->from used by cx (a function trace, not a body): its placeholder in cx's graph. */
static GraphRef trace_foreign_capture(TraceCtx *cx, const TraceSym *s) {
  TraceForeign *f = trace_foreign;
  if (!f->into) f->into = cx->g;
  for (int i = 0; i < f->n; i++)
    if (f->refs[i].node == s->r.node && f->refs[i].out == s->r.out) return (GraphRef){f->ids[i], 0};
  if (f->n == f->cap) {
    int cap = f->cap ? f->cap * 2 : 4;
    GraphRef *r = realloc(f->refs, sizeof(GraphRef) * (size_t)cap);
    if (!r) rt_throw(ERR_MEMORY, "out of memory");
    f->refs = r;
    int *ids = realloc(f->ids, sizeof(int) * (size_t)cap);
    if (!ids) rt_throw(ERR_MEMORY, "out of memory");
    f->ids = ids;
    f->cap = cap;
  }
  int id = graph_add_placeholder(cx->g, s->g->nodes[s->r.node].name, graph_meta(s->g, s->r));
  f->refs[f->n] = s->r;
  f->ids[f->n++] = id;
  return (GraphRef){id, 0};
}

/* ---- values of a running graph's tensors for host code ----
 * A tf.data host dataset's Python function (flat_map's, made while tracing) runs when the graph runs, and its
 * closure still holds the trace's symbolic tensors: while the run lasts they stand for that run's values. */
typedef struct TraceSubst { const Graph *g; GraphRef r; Tensor *value; const void *owner; } TraceSubst;
static TraceSubst *subst;
static int nsubst, subst_cap;

void trace_subst_add(const Graph *g, GraphRef r, Tensor *value, const void *owner) {
  if (nsubst == subst_cap) {
    int cap = subst_cap ? subst_cap * 2 : 8;
    TraceSubst *n = realloc(subst, sizeof(TraceSubst) * (size_t)cap);
    if (!n) rt_throw(ERR_MEMORY, "out of memory");
    subst = n;
    subst_cap = cap;
  }
  subst[nsubst++] = (TraceSubst){g, r, tensor_retain(value), owner};
}

void trace_subst_drop(const void *owner) {
  int k = 0;
  for (int i = 0; i < nsubst; i++) {
    if (subst[i].owner == owner) tensor_release(subst[i].value);
    else subst[k++] = subst[i];
  }
  nsubst = k;
}

static Tensor *trace_subst_find(const Tensor *t) {
  const TraceSym *ts = t->sym;
  if (!ts) return NULL;
  for (int i = nsubst - 1; i >= 0; i--)
    if (subst[i].g == ts->g && subst[i].r.node == ts->r.node && subst[i].r.out == ts->r.out) return subst[i].value;
  return NULL;
}

static GraphRef trace_const_capture(TraceCtx *cx, Tensor *t, bool cap);

/* The value s stands for, seen from context cx (capturing through bodies). */
static GraphRef trace_sym_in(TraceCtx *cx, const Tensor *t) {
  const TraceSym *s = t->sym;
  if (s->g == cx->g) return s->r;
  Tensor *sv = nsubst ? trace_subst_find(t) : NULL;
  if (sv) return trace_const_capture(cx, sv, true);   /* (a running graph's value, see trace_subst_add) */
  bool ancestor = false;
  if (cx->body)
    for (Graph *p = cx->g->parent; p; p = p->parent)
      if (p == s->g) ancestor = true;
  if (cx->fcap && cx->outer) ancestor = true;   /* (the enclosing trace raises if s is not one of its values) */
  bool foreign = trace_foreign && s->g == trace_foreign->from;
  if (!ancestor && foreign && !cx->body && (!trace_foreign->into || trace_foreign->into == cx->g))
    return trace_foreign_capture(cx, s);
  if ((!ancestor && !(foreign && cx->body)) || !cx->outer) trace_error_foreign(t);   /* a body: through its function */
  GraphRef o = trace_sym_in(cx->outer, t);
  for (int i = 0; i < cx->ncaps; i++)
    if (cx->caps[i].outer.node == o.node && cx->caps[i].outer.out == o.out) return (GraphRef){cx->caps[i].inner, 0};
  Graph *pg = cx->outer->g;
  int id = graph_add_placeholder(cx->g, pg->nodes[o.node].name, graph_meta(pg, o));
  if (cx->ncaps == cx->capcap) {
    int cap = cx->capcap ? cx->capcap * 2 : 8;
    TraceCap *c = realloc(cx->caps, sizeof(TraceCap) * (size_t)cap);
    if (!c) rt_throw(ERR_MEMORY, "out of memory");
    cx->caps = c;
    cx->capcap = cap;
  }
  cx->caps[cx->ncaps++] = (TraceCap){o, id};
  return (GraphRef){id, 0};
}

bool trace_ref(TraceCtx *cx, Val v, GraphRef *out) {
  if (v.tag != VT_OBJ) return false;
  const Type *ty = v.u.o->type;
  if (ty == &tensor_type) {
    Tensor *t = (Tensor *)v.u.o;
    if (t->dtype == DT_RESOURCE)   /* tfs reads a handle through its Variable only */
      rt_throw(ERR_UNIMPLEMENTED, "a Variable's resource handle tensor cannot be an op's input in tfs; use the Variable");
    *out = t->sym ? trace_sym_in(cx, t) : trace_const_capture(cx, t, true);
    return true;
  }
  if (ty == &variable_type) {
    *out = trace_read_var(cx, variable_storage(v.u.o));
    return true;
  }
  if (val_is_ndarray(v)) {
    *out = trace_const_capture(cx, ((NdArray *)v.u.o)->t, false);
    return true;
  }
  return false;
}

/* ---- static values (constant subgraphs, known shapes) ------------------------------ */

/* The shape ops answer from metas when the input's shape is fully known. */
static Tensor *trace_static_shape_op(const Graph *g, const GraphNode *n) {
  if (n->nin < 1 || n->in[0].node < 0) return NULL;
  const TMeta *im = graph_meta(g, n->in[0]);
  DType odt = n->outm[0].dtype;
  if (im->rank < 0) return NULL;
  if (n->op->id == OP_RANK) {
    Tensor *t = tensor_scalar(DT_INT32);
    *(int32_t *)tensor_data(t) = im->rank;
    return t;
  }
  tfs_i64 size = 1;
  for (int i = 0; i < im->rank; i++) {
    if (im->shape[i] < 0) return NULL;
    size *= im->shape[i];
  }
  Tensor *t;
  if (n->op->id == OP_SIZE) {
    t = tensor_scalar(odt);
    if (odt == DT_INT64) *(int64_t *)tensor_data(t) = size;
    else *(int32_t *)tensor_data(t) = (int32_t)size;
    return t;
  }
  tfs_i64 r = im->rank;
  t = tensor_new(odt, 1, &r);
  for (int i = 0; i < im->rank; i++) {
    if (odt == DT_INT64) ((int64_t *)tensor_data(t))[i] = im->shape[i];
    else ((int32_t *)tensor_data(t))[i] = (int32_t)im->shape[i];
  }
  return t;
}

/* Run one pure op on static inputs; NULL when it fails (the error then
 * happens, if ever, when the graph runs). */
static Tensor **trace_static_run(const GraphNode *n, Tensor **in, const OpAttrs *attrs, int *nres) {
  Val rawbuf[16], *raw = n->nin <= 16 ? rawbuf : malloc(sizeof(Val) * (size_t)n->nin);
  if (!raw) return NULL;
  for (int i = 0; i < n->nin; i++)
    raw[i] = in[i] ? val_obj(in[i]) : n->raw ? n->raw[i] : val_undef();
  Tensor **volatile res = NULL;
  volatile int nr = 0;
  TraceCtx *saved = trace_cur;
  trace_cur = NULL;   /* a kernel applying ops itself must not record them */
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Tensor **r;
    nr = op_run(n->op, n->nin, in, raw, attrs, &r);
    res = r;
    rt_try_pop(&t);
  } else {
    rt_try_clear(&t);
    res = NULL;
  }
  trace_cur = saved;
  if (raw != rawbuf) free(raw);
  *nres = nr;
  return res;
}

Tensor *trace_static_value(Graph *g, GraphRef target) {
  int n = target.node + 1;
  unsigned char *need = calloc((size_t)n, 1);
  Tensor ***vals = calloc((size_t)n, sizeof(Tensor **));
  int *nvals = calloc((size_t)n, sizeof(int));
  int *stack = malloc(sizeof(int) * (size_t)n);
  if (!need || !vals || !nvals || !stack) rt_throw(ERR_MEMORY, "out of memory");
  /* the ancestors of target, then a forward pass over them */
  int sp = 0;
  stack[sp++] = target.node;
  need[target.node] = 1;
  while (sp) {
    const GraphNode *nd = &g->nodes[stack[--sp]];
    if (nd->kind == GN_OP && (nd->op->id == OP_SHAPE || nd->op->id == OP_SIZE || nd->op->id == OP_RANK)) continue;
    for (int i = 0; i < nd->nin + nd->ndyn; i++) {
      int k = nd->in[i].node;
      if (k >= 0 && !need[k]) { need[k] = 1; stack[sp++] = k; }
    }
  }
  bool ok = true;
  for (int id = 0; id < n && ok; id++) {
    if (!need[id]) continue;
    const GraphNode *nd = &g->nodes[id];
    if (nd->kind == GN_CONST) {
      vals[id] = malloc(sizeof(Tensor *));
      if (!vals[id]) { ok = false; break; }
      vals[id][0] = tensor_retain(nd->value);
      nvals[id] = 1;
      continue;
    }
    if (nd->kind != GN_OP || (nd->op->flags & OPF_STATEFUL)) { ok = false; break; }
    if (nd->op->id == OP_SHAPE || nd->op->id == OP_SIZE || nd->op->id == OP_RANK) {
      Tensor *t = trace_static_shape_op(g, nd);
      if (!t) { ok = false; break; }
      vals[id] = malloc(sizeof(Tensor *));
      if (!vals[id]) { tensor_release(t); ok = false; break; }
      vals[id][0] = t;
      nvals[id] = 1;
      continue;
    }
    Tensor *inbuf[16], **in = nd->nin <= 16 ? inbuf : malloc(sizeof(Tensor *) * (size_t)nd->nin);
    if (!in) { ok = false; break; }
    for (int i = 0; i < nd->nin; i++) {
      GraphRef r = nd->in[i];
      in[i] = r.node >= 0 && r.out < nvals[r.node] ? vals[r.node][r.out] : NULL;
      if (r.node >= 0 && !in[i]) ok = false;
    }
    OpAttrs at = nd->attrs;
    for (int k = 0; k < nd->ndyn && ok; k++) {
      GraphRef r = nd->in[nd->nin + k];
      if (r.out >= nvals[r.node]) ok = false;
      else at.v[nd->dyn_attr[k]] = val_obj(vals[r.node][r.out]);
    }
    if (ok) {
      int nr;
      vals[id] = trace_static_run(nd, in, &at, &nr);
      nvals[id] = nr;
      if (!vals[id]) ok = false;
    }
    if (in != inbuf) free(in);
  }
  Tensor *res = NULL;
  if (ok && target.out < nvals[target.node]) res = tensor_retain(vals[target.node][target.out]);
  for (int id = 0; id < n; id++) {
    for (int k = 0; k < nvals[id]; k++) tensor_release(vals[id][k]);
    free(vals[id]);
  }
  free(need);
  free(vals);
  free(nvals);
  free(stack);
  return res;
}

/* ---- recording ops (the op_graph_hook) ----------------------------------------------- */

/* The working arrays of one trace_record call.  The context owns them until
 * the call returns, so an error unwinding through it leaks nothing: trace_pop
 * frees what is left. */
struct TraceScratch {
  struct TraceScratch *next;
  int ntemps;
  GraphRef *ref;
  Val *raw;
  Tensor **tin;
  TMeta *inm;
  Val *temps;                 /* owned references, released with the scratch */
};

static TraceScratch *trace_scratch_new(TraceCtx *cx, int cap) {
  size_t n = (size_t)cap;
  TraceScratch *sc = malloc(sizeof(TraceScratch) + n * (sizeof(GraphRef) + sizeof(Val) + sizeof(Tensor *) + sizeof(TMeta)) +
                            (n + OP_MAX_ATTRS) * sizeof(Val));
  if (!sc) rt_throw(ERR_MEMORY, "out of memory");
  char *p = (char *)(sc + 1);
  sc->inm = (TMeta *)p;
  p += n * sizeof(TMeta);
  sc->raw = (Val *)p;
  p += n * sizeof(Val);
  sc->temps = (Val *)p;
  p += (n + OP_MAX_ATTRS) * sizeof(Val);
  sc->ref = (GraphRef *)p;
  p += n * sizeof(GraphRef);
  sc->tin = (Tensor **)p;
  sc->ntemps = 0;
  sc->next = cx->scratch;
  cx->scratch = sc;
  return sc;
}

static void trace_scratch_free(TraceCtx *cx, TraceScratch *sc) {
  for (TraceScratch **pp = &cx->scratch; *pp; pp = &(*pp)->next)
    if (*pp == sc) {
      *pp = sc->next;
      break;
    }
  for (int i = 0; i < sc->ntemps; i++) val_decref(sc->temps[i]);
  free(sc);
}

/* The input kinds of an op: its kinds string without the attributes ('.'). */
static const char *trace_input_kinds(const OpDef *op) {
  static char kinds[OP__COUNT][OP_MAX_ARGS + 1];
  static bool ready[OP__COUNT];
  if (!ready[op->id]) {
    int k = 0;
    for (const char *s = op->kinds; *s && k < OP_MAX_ARGS; s++)
      if (*s != '.') kinds[op->id][k++] = *s;
    kinds[op->id][k] = 0;
    ready[op->id] = true;
  }
  return kinds[op->id];
}

static const char *trace_op_what(const OpDef *op, char *buf, size_t n) {
  const char *api = op->api;
  int len = 0;
  while (api[len] && api[len] != ' ') len++;
  if (len) snprintf(buf, n, "tf.%.*s", len, api);
  else snprintf(buf, n, "%s", op->graph_name);
  return buf;
}

static _Noreturn void trace_fail_dtype(const OpDef *op, int i, DType want, DType got) {
  rt_throw(ERR_INVALID_ARGUMENT,
           "cannot compute %s as input #%d(zero-based) was expected to be a %s tensor but is a %s tensor",
           op->graph_name, i, dtype_short_name(want), dtype_short_name(got));
}

static _Noreturn void trace_fail_attr(const OpDef *op, const char *attr, DType got, unsigned mask) {
  char buf[128];
  size_t len = 0;
  buf[0] = 0;
  for (int d = 0; d < DT__COUNT; d++)
    if (mask & DTM(d)) len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", len ? ", " : "", dtype_short_name(d));
  rt_throw(ERR_INVALID_ARGUMENT,
           "Value for attr '%s' of %s is not in the list of allowed values: %s ; NodeDef: {{node %s}}", attr,
           dtype_short_name(got), buf, op->graph_name);
}

/* Attributes an op can also take as graph values (shapes, range bounds): the
 * executor substitutes the run-time tensor before calling the kernel. */
static bool trace_dyn_allowed(const OpDef *op, int ai) {
  switch (op->id) {
    case OP_RANGE: return ai <= 2;
    case OP_PAD: return ai == 2;                 /* constant_values: an input of PadV2 in TF */
    case OP_STRIDED_SLICE: return ai == 1;
    case OP_SLICE: return ai <= 1;               /* begin: a random offset (tf.image.random_crop); size: tf.shape(x) (concat's gradient) */
    case OP_SCATTER_GRAD: return ai == 1;        /* a0: that Slice's begin, in its gradient */
    case OP_RANDOM_UNIFORM: return ai <= 2;      /* shape, minval, maxval: graph inputs in TF */
    case OP_RANDOM_NORMAL: case OP_TRUNC_NORMAL: return ai <= 2;   /* shape, mean, stddev */
    case OP_ZEROS: case OP_ONES: case OP_FILL: case OP_RESHAPE: case OP_BROADCAST_TO: case OP_TILE:
    case OP_ONE_HOT:                             /* depth: an input of OneHot in TF */
      return ai == 0;
    case OP_RESIZE_BILINEAR: case OP_RESIZE_NEAREST: case OP_RESIZE_BICUBIC: case OP_RESIZE_AREA:
      return ai == 0;                            /* size: an input in TF (Keras's RandomHeight computes it) */
    default: return false;
  }
}

static _Noreturn void trace_fail_not_static(TraceCtx *cx, const OpDef *op, int ai, const Tensor *t) {
  char what[64];
  StrBuf b;
  sb_init(&b);
  trace_sym_repr(&b, t);
  char msg[512];
  snprintf(msg, sizeof msg,
           "%s: argument '%s' must be known while tracing, but %s is computed from the inputs of tf.function '%s'",
           trace_op_what(op, what, sizeof what), op_attr_name(op, ai), b.data, cx->g->fname);
  sb_free(&b);
  rt_throw(ERR_VALUE, "%s", msg);
}

/* The value of attribute ai (owned): symbolic tensors are replaced by their
 * static values.  When there is none and the op accepts a graph value there,
 * returns VT_UNDEF with *dyn set (lists holding symbolic scalars are packed
 * into one tensor first, as TF does). */
static Val trace_attr_value(TraceCtx *cx, const OpDef *op, int ai, Val v, GraphRef *dyn) {
  dyn->node = -1;
  if (v.tag != VT_OBJ) return v;
  if (val_is(v, &tensor_type) && val_tensor(v)->sym) {
    Tensor *t = val_tensor(v);
    GraphRef r = trace_sym_in(cx, t);
    Tensor *st = trace_static_value(cx->g, r);
    if (st) return val_obj(st);
    if (!trace_dyn_allowed(op, ai)) trace_fail_not_static(cx, op, ai, t);
    *dyn = r;
    return val_undef();
  }
  if ((val_is(v, &list_type) || val_is(v, &tuple_type)) && trace_val_symbolic(v)) {
    tfs_i64 n;
    const Val *items;
    seq_items(v, &n, &items);
    bool list = val_is(v, &list_type);
    Val out = list ? list_new(n) : tuple_new(n);
    const Tensor *missing = NULL;
    for (tfs_i64 i = 0; i < n && !missing; i++) {
      Val e;
      if (val_is(items[i], &tensor_type) && val_tensor(items[i])->sym) {
        Tensor *st = trace_static_value(cx->g, trace_sym_in(cx, val_tensor(items[i])));
        if (!st) {
          missing = val_tensor(items[i]);
          break;
        }
        e = val_obj(st);
      } else {
        e = val_incref(items[i]);
      }
      if (list) {
        list_append(out, e);
        val_decref(e);
      } else {
        ((Tuple *)out.u.o)->items[i] = e;
      }
    }
    if (!missing) return out;
    val_decref(out);
    if (!trace_dyn_allowed(op, ai)) trace_fail_not_static(cx, op, ai, missing);
    Val packed = op_apply1(OP_STACK, v);   /* recorded: [n, -1] becomes Pack(n, -1) */
    *dyn = trace_sym_in(cx, val_tensor(packed));
    val_decref(packed);
    return val_undef();
  }
  return val_incref(v);
}

static bool trace_tensorlike(Val v) {
  return val_is(v, &tensor_type) || val_is(v, &variable_type) || val_is_ndarray(v);
}

/* The output meta of an op whose attributes include graph values: the op's
 * own rule needs their values, so the dims it would compute are unknown. */
/* The value of a shape tensor as far as tracing knows it (TF's ShapeRefiner::ConstantPartialShape): the dims of
 * tf.shape(t), a slice of one with constant bounds (tf.shape(x)[1:]), a concat of such pieces or constants; -1
 * for an unknown element.  Returns the value's length, or -1 when not even that is known. */
static int partial_shape_value(Graph *g, GraphRef r, tfs_i64 *dims, int depth) {
  if (r.node < 0 || depth > 8) return -1;
  const GraphNode *sn = graph_node(g, r.node);
  const TMeta *me = graph_meta(g, r);
  if (me->rank != 1 || me->shape[0] < 0 || me->shape[0] > TFS_MAX_RANK) return -1;
  int n = (int)me->shape[0];
  if (sn->kind == GN_OP && sn->op->id == OP_SHAPE && sn->nin == 1 && sn->in[0].node >= 0) {
    const TMeta *m = graph_meta(g, sn->in[0]);
    if (m->rank != n) return -1;
    for (int i = 0; i < n; i++) dims[i] = m->shape[i];
    return n;
  }
  if (sn->kind == GN_OP && sn->op->id == OP_STRIDED_SLICE && sn->nin >= 1 && sn->ndyn == 0 && sn->attrs.n >= 1 &&
      val_is(sn->attrs.v[0], &slice_type)) {
    /* a slice with constant bounds (as PartialStridedSliceShape: no new axis, no shrinking) */
    const Slice *sl = (const Slice *)sn->attrs.v[0].u.o;
    if ((sl->lo.tag != VT_NONE && sl->lo.tag != VT_INT) || (sl->hi.tag != VT_NONE && sl->hi.tag != VT_INT) ||
        (sl->step.tag != VT_NONE && sl->step.tag != VT_INT))
      return -1;
    tfs_i64 src[TFS_MAX_RANK];
    int len = partial_shape_value(g, sn->in[0], src, depth + 1);
    if (len < 0) return -1;
    tfs_i64 st, sp, step;
    tfs_i64 cnt = slice_indices(sn->attrs.v[0], len, &st, &sp, &step);
    if (cnt != n) return -1;
    for (int i = 0; i < n; i++) dims[i] = src[st + i * step];
    return n;
  }
  if (sn->kind == GN_OP && sn->op->id == OP_CONCAT) {
    int at = 0;
    for (int k = 0; k < sn->nin; k++) {
      tfs_i64 part[TFS_MAX_RANK];
      int len = partial_shape_value(g, sn->in[k], part, depth + 1);
      if (len < 0 || at + len > n) return -1;
      for (int i = 0; i < len; i++) dims[at + i] = part[i];
      at += len;
    }
    return at == n ? n : -1;
  }
  Tensor *t = trace_static_value(g, r);
  if (!t) return -1;
  int ok = t->rank == 1 && t->size == n && (t->dtype == DT_INT32 || t->dtype == DT_INT64);
  for (int i = 0; ok && i < n; i++) {
    dims[i] = tensor_get_i(t, i);
    if (dims[i] < 0) dims[i] = -1;
  }
  val_decref(val_obj(t));
  return ok ? n : -1;
}

static void trace_dyn_meta(const OpDef *op, const OpAttrs *at, const bool *isdyn, const GraphRef *dref, Graph *g,
                           Tensor **tin, TMeta *out) {
  if (op->id == OP_RESIZE_BILINEAR || op->id == OP_RESIZE_NEAREST || op->id == OP_RESIZE_BICUBIC ||
      op->id == OP_RESIZE_AREA) {
    /* [batch, ?, ?, channels]; float32 but for ResizeNearestNeighbor (the images' dtype), as meta_resize */
    out->dtype = op->id == OP_RESIZE_NEAREST ? tin[0]->dtype : DT_FLOAT32;
    out->rank = 4;
    for (int i = 0; i < 4; i++) out->shape[i] = (i == 0 || i == 3) && tin[0]->rank == 4 ? tin[0]->shape[i] : -1;
    return;
  }
  if (op->id == OP_SLICE && isdyn[1]) {
    /* size is a graph value: tf.shape(t) gives t's static dims, anything else unknown dims of input's rank */
    const GraphNode *sn = graph_node(g, dref[isdyn[0] ? 1 : 0].node);
    const TMeta *m = sn->kind == GN_OP && sn->op->id == OP_SHAPE && sn->nin == 1 && sn->in[0].node >= 0
                         ? graph_meta(g, sn->in[0]) : NULL;
    out->dtype = tin[0]->dtype;
    out->rank = tin[0]->rank;
    for (int i = 0; i < out->rank; i++) out->shape[i] = m && m->rank == out->rank ? m->shape[i] : -1;
    return;
  }
  if (op->id == OP_SLICE) {
    /* begin is a graph value: size's known entries are the result's dims (-1, to the end, is not known) */
    tfs_i64 size[TFS_MAX_RANK];
    int ns = val_to_dims(at->v[1], size, true, "tf.slice size");
    const TMeta *m = graph_meta(g, dref[0]);
    if (m->rank != 1 || (m->shape[0] >= 0 && m->shape[0] != ns) || (tin[0]->rank >= 0 && tin[0]->rank != ns))
      rt_throw(ERR_INVALID_ARGUMENT,
               "Expected begin and size arguments to be 1-D tensors of size %d, but got shapes [%lld] and [%d] instead.",
               tin[0]->rank >= 0 ? tin[0]->rank : ns, (long long)(m->rank == 1 ? m->shape[0] : m->rank), ns);
    if (!dtype_info[m->dtype].is_int)
      rt_throw(ERR_INVALID_ARGUMENT, "Value for attr 'Index' of %s is not in the list of allowed values: int32, int64 ; NodeDef: {{node Slice}}",
               dtype_short_name(m->dtype));
    out->dtype = tin[0]->dtype;
    out->rank = ns;
    for (int i = 0; i < ns; i++) {
      if (tin[0]->rank >= 0 && tin[0]->shape[i] >= 0 && size[i] > tin[0]->shape[i])
        rt_throw(ERR_INVALID_ARGUMENT, "Expected size[%d] in [0, %lld], but got %lld", i, (long long)tin[0]->shape[i], (long long)size[i]);
      out->shape[i] = size[i] >= 0 ? size[i] : -1;
    }
    return;
  }
  int rank = -1;
  if (isdyn[0]) {
    const TMeta *m = graph_meta(g, dref[0]);
    if (m->rank == 1 && m->shape[0] >= 0) rank = (int)m->shape[0];
    else if (m->rank == 0) rank = 1;
  } else {
    tfs_i64 dims[TFS_MAX_RANK];
    rank = val_to_dims(at->v[0], dims, true, op->graph_name);
  }
  DType dt = DT_FLOAT32, d;
  /* a shape computed by tf.shape(t): t's static dims, known or not (TF's constant_value_as_shape) */
  const TMeta *from_shape = NULL;
  if (isdyn[0] && op->id != OP_TILE && op->id != OP_RANGE) {
    const GraphNode *sn = graph_node(g, dref[0].node);
    if (sn->kind == GN_OP && sn->op->id == OP_SHAPE && sn->nin == 1 && sn->in[0].node >= 0) {
      const TMeta *m = graph_meta(g, sn->in[0]);
      if (m->rank >= 0 && m->rank == rank) from_shape = m;
    }
  }
  /* a shape packed from a list ([tf.shape(x)[0], 2, 2, 8]): its constant elements are known dims, as TF's
   * MakeShapeFromShapeTensor reads a Pack (Keras's Reshape keeps (None, 2, 2, 8) so) */
  tfs_i64 packed[TFS_MAX_RANK];
  bool from_pack = false;
  if (isdyn[0] && !from_shape && op->id != OP_TILE && op->id != OP_RANGE && rank > 0 && rank <= TFS_MAX_RANK) {
    const GraphNode *sn = graph_node(g, dref[0].node);
    if (sn->kind == GN_OP && sn->op->id == OP_STACK && sn->nin == rank) {
      from_pack = true;
      for (int i = 0; i < rank; i++) {
        Tensor *st = sn->in[i].node >= 0 ? trace_static_value(g, sn->in[i]) : NULL;
        packed[i] = st && st->rank == 0 && (st->dtype == DT_INT32 || st->dtype == DT_INT64) ? tensor_get_i(st, 0) : -1;
        if (packed[i] < 0) packed[i] = -1;   /* unknown, or -1: to infer (left unknown) */
        if (st) val_decref(val_obj(st));
      }
    }
  }
  /* a slice or concat of shapes (tf.shape(x)[1:], tf.concat([tf.shape(x)[:1], [4]], 0)): its known elements */
  tfs_i64 parts[TFS_MAX_RANK];
  bool from_parts = isdyn[0] && !from_shape && !from_pack && op->id != OP_TILE && op->id != OP_RANGE && rank > 0 &&
                    partial_shape_value(g, dref[0], parts, 0) == rank;
  switch (op->id) {
    case OP_RANGE: {
      int k = 0;   /* int32 < float32 < float64, int64 */
      for (int i = 0; i < 3 && i < at->n; i++) {
        int q = 0;
        DType idt = DT_INT32;
        bool known = false;
        Val v = at->v[i];   /* graph-valued ones are VT_UNDEF here: counted below */
        Tensor *t = val_as_tensor(v);
        if (t) { idt = t->dtype; known = true; }
        else if (v.tag == VT_FLOAT) { idt = DT_FLOAT32; known = true; }
        else if (v.tag == VT_INT) { idt = DT_INT32; known = true; }
        if (known) q = idt == DT_FLOAT32 ? 2 : idt == DT_FLOAT64 ? 3 : idt == DT_INT64 ? 4 : 1;
        if (q > k) k = q;
      }
      int nd = 0;
      for (int i = 0; i < 3 && i < at->n; i++)
        if (isdyn[i]) {
          DType idt = graph_meta(g, dref[nd++])->dtype;
          int q = idt == DT_FLOAT32 ? 2 : idt == DT_FLOAT64 ? 3 : idt == DT_INT64 ? 4 : 1;
          if (q > k) k = q;
        }
      dt = k == 2 ? DT_FLOAT32 : k == 3 ? DT_FLOAT64 : k == 4 ? DT_INT64 : DT_INT32;
      if (at->n > 3 && val_as_dtype(at->v[3], &d)) dt = d;
      rank = 1;
      break;
    }
    case OP_ZEROS: case OP_ONES:
      if (at->n > 1 && val_as_dtype(at->v[1], &d)) dt = d;
      break;
    case OP_RANDOM_UNIFORM: case OP_RANDOM_NORMAL: case OP_TRUNC_NORMAL:
      if (at->n > 3 && val_as_dtype(at->v[3], &d)) dt = d;
      break;
    case OP_TILE:
      dt = tin[0]->dtype;
      rank = tin[0]->rank;
      break;
    default:   /* FILL, RESHAPE, BROADCAST_TO: the data input's dtype */
      dt = tin[0]->dtype;
      break;
  }
  out->dtype = dt;
  out->rank = rank;
  for (int i = 0; i < rank && i < TFS_MAX_RANK; i++)
    out->shape[i] = from_shape ? from_shape->shape[i] : from_pack && op->id != OP_TILE ? packed[i] : from_parts ? parts[i] : -1;
}

static Val trace_record(TraceCtx *cx, const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs);
static bool trace_tensorlike(Val v);

struct PrintFlat { TraceCtx *cx; Val leaves; int base; };

/* One element of a printed structure: symbolic tensors become leaf markers
 * numbering PrintV2 inputs (base + k), anything else stays as it is. */
static Val trace_print_flat(void *ctx, Val e) {
  struct PrintFlat *pf = ctx;
  if ((val_is(e, &tensor_type) && val_tensor(e)->sym) || (val_is(e, &variable_type) && trace_val_symbolic(e))) {
    list_append(pf->leaves, e);
    return nest_leaf(pf->base + (int)((List *)pf->leaves.u.o)->len - 1);
  }
  if (val_is(e, &list_type) || val_is(e, &tuple_type) || val_is(e, &dict_type)) return nest_map(e, trace_print_flat, ctx);
  return val_incref(e);
}

/* tf.print([x, 2 * x], (x,)) while tracing: each structure holding symbolic
 * tensors is passed as a host template whose leaf markers stand for extra
 * inputs after the printed arguments; attribute `nargs` says where those
 * start, and k_print rebuilds the structures from the run-time values. */
static Val trace_print_nested(TraceCtx *cx, int nin, const Val *inputs, const OpAttrs *attrs) {
  struct PrintFlat pf = {cx, list_new(4), nin};
  Val args = list_new(nin);
  for (int i = 0; i < nin; i++) {
    Val e = trace_tensorlike(inputs[i]) ? val_incref(inputs[i]) : trace_print_flat(&pf, inputs[i]);
    list_append(args, e);
    val_decref(e);
  }
  List *l = (List *)pf.leaves.u.o;
  for (tfs_i64 k = 0; k < l->len; k++) list_append(args, l->items[k]);
  OpAttrs at = *attrs;
  at.n = 5;
  at.v[4] = val_int(nin);
  List *al = (List *)args.u.o;
  Val r = trace_record(cx, &op_defs[OP_PRINT], (int)al->len, al->items, &at);
  val_decref(args);
  val_decref(pf.leaves);
  return r;
}

/* A bound of an indexing key that is a traced integer scalar. */
static bool trace_key_sym_scalar(Val v) {
  return val_is(v, &tensor_type) && val_tensor(v)->sym && val_tensor(v)->rank == 0 &&
         dtype_info[val_tensor(v)->dtype].is_int;
}

/* Whether an indexing key holds traced bounds in a slice, or a traced index
 * in a tuple (a lone traced index is a gather instead). */
static bool trace_key_dynamic(Val key) {
  const Val *items = &key;
  tfs_i64 n = 1;
  bool tuple = val_is(key, &tuple_type);
  if (tuple) seq_items(key, &n, &items);
  for (tfs_i64 i = 0; i < n; i++) {
    Val it = items[i];
    if (tuple && trace_key_sym_scalar(it)) return true;
    if (val_is(it, &slice_type)) {
      Slice *s = (Slice *)it.u.o;
      if (trace_key_sym_scalar(s->lo) || trace_key_sym_scalar(s->hi) || trace_key_sym_scalar(s->step)) return true;
    }
  }
  return false;
}

/* One bound of a key (owned): a traced scalar with a value known while
 * tracing becomes that value; any other traced scalar is appended to syms
 * and replaced by a leaf marker; other values stay. */
static Val trace_key_bound(TraceCtx *cx, Val v, Val syms) {
  if (!trace_key_sym_scalar(v)) return val_incref(v);
  Tensor *st = trace_static_value(cx->g, trace_sym_in(cx, val_tensor(v)));
  if (st) return val_obj(st);
  list_append(syms, v);
  return nest_leaf((int)((List *)syms.u.o)->len - 1);
}

static Val trace_key_item(TraceCtx *cx, Val it, Val syms) {
  if (!val_is(it, &slice_type)) return trace_key_bound(cx, it, syms);
  Slice *s = (Slice *)it.u.o;
  Val lo = trace_key_bound(cx, s->lo, syms), hi = trace_key_bound(cx, s->hi, syms), st = trace_key_bound(cx, s->step, syms);
  Val r = rt_slice(lo, hi, st);
  val_decref(lo);
  val_decref(hi);
  val_decref(st);
  return r;
}

/* x[key] with traced bounds: the traced scalars are packed into one 1-D
 * graph value, StridedSlice's dynamic attribute `bounds`, and the key keeps
 * leaf markers in their places (meta_strided_slice reads them from bounds;
 * while tracing the dims they decide are unknown). */
static Val trace_strided_slice_dyn(TraceCtx *cx, Val input, Val key) {
  Val syms = list_new(4);
  Val nkey;
  if (val_is(key, &tuple_type)) {
    tfs_i64 n;
    const Val *items;
    seq_items(key, &n, &items);
    nkey = tuple_new(n);
    for (tfs_i64 i = 0; i < n; i++) ((Tuple *)nkey.u.o)->items[i] = trace_key_item(cx, items[i], syms);
  } else {
    nkey = trace_key_item(cx, key, syms);
  }
  List *l = (List *)syms.u.o;
  Val res;
  if (l->len == 0) {
    OpAttrs at = {1, {nkey}};
    res = trace_record(cx, &op_defs[OP_STRIDED_SLICE], 1, &input, &at);
  } else {
    bool mixed = false;
    for (tfs_i64 i = 1; i < l->len; i++) mixed |= val_tensor(l->items[i])->dtype != val_tensor(l->items[0])->dtype;
    for (tfs_i64 i = 0; mixed && i < l->len; i++) {
      OpAttrs ca = {1, {dtype_val(DT_INT64)}};
      Val c = val_tensor(l->items[i])->dtype == DT_INT64 ? val_incref(l->items[i])
                                                         : op_apply(&op_defs[OP_CAST], 1, &l->items[i], &ca);
      val_decref(l->items[i]);
      l->items[i] = c;
    }
    Val packed = op_apply1(OP_STACK, syms);
    OpAttrs at = {2, {nkey, packed}};
    res = trace_record(cx, &op_defs[OP_STRIDED_SLICE], 1, &input, &at);
    val_decref(packed);
  }
  val_decref(nkey);
  val_decref(syms);
  return res;
}

/* Record one op application into the current graph; the result is like
 * op_apply's, with symbolic tensors. */

/* A host input of op made a Const: inside the op's TF name scope it is named after its parameter ('mul/y',
 * 'concat/values_1'), as _apply_op_helper converts it with name=input_arg.name; else 'Const'. */
static int trace_input_const(Graph *g, const OpDef *op, bool is_list, int i, Tensor *t) {
  const char *p = graph_op_scope_open(g) ? op_input_name(op, is_list ? 0 : i) : NULL;
  char base[64];
  if (is_list) snprintf(base, sizeof base, "%s_%d", p ? p : "", i);
  else snprintf(base, sizeof base, "%s", p ? p : "");
  int id = p ? graph_add_const_named(g, t, base) : graph_add_const(g, t);
  graph_ctrl_apply(g, id);   /* TF's converted input is an op made in the control_dependencies block too */
  return id;
}

static Val trace_record(TraceCtx *cx, const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs) {
  static const OpAttrs no_attrs;
  if (!attrs) attrs = &no_attrs;
  const char *kinds = trace_input_kinds(op);
  int nk = (int)strlen(kinds);
  char what[64];
  Graph *g = cx->g;

  /* tf.print of lists/tuples holding symbolic tensors */
  if (op->id == OP_PRINT && attrs->n == 4) {
    for (int i = 0; i < nin; i++)
      if (!trace_tensorlike(inputs[i]) && trace_val_symbolic(inputs[i])) return trace_print_nested(cx, nin, inputs, attrs);
  }

  /* x[a:b:c] (alone or in a tuple key) with traced bounds: StridedSlice with tensor bounds */
  if (op->id == OP_STRIDED_SLICE && attrs->n == 1 && trace_key_dynamic(attrs->v[0]))
    return trace_strided_slice_dyn(cx, inputs[0], attrs->v[0]);

  /* x[i] with a traced scalar i: a gather along axis 0 */
  if (op->id == OP_STRIDED_SLICE && attrs && attrs->n >= 1 && val_is(attrs->v[0], &tensor_type) &&
      val_tensor(attrs->v[0])->sym && val_tensor(attrs->v[0])->rank == 0 &&
      dtype_info[val_tensor(attrs->v[0])->dtype].is_int) {
    Tensor *st = trace_static_value(g, trace_sym_in(cx, val_tensor(attrs->v[0])));
    if (st) {
      tensor_release(st);
    } else {
      Val in2[2] = {inputs[0], attrs->v[0]};
      OpAttrs ga = {3, {val_none(), val_none(), val_int(0)}};
      return trace_record(cx, &op_defs[OP_GATHER], 2, in2, &ga);
    }
  }

  if (op->id == OP_READ_VARIABLE) {
    if (nin != 1 || !val_is(inputs[0], &variable_type))
      rt_throw(ERR_TYPE, "%s: expected a tf.Variable, got %s", op->graph_name, val_type_name(inputs[0]));
    return trace_sym(g, trace_read_var(cx, variable_storage(inputs[0].u.o)));
  }

  /* A list input (concat, stack, add_n) expands into its elements. */
  const Val *vin = inputs;
  bool is_list = false;
  if (nk == 1 && kinds[0] == 'L') {
    Val l = inputs[0];
    if (val_is(l, &list_type) || val_is(l, &tuple_type)) {
      tfs_i64 n;
      seq_items(l, &n, &vin);
      nin = (int)n;
      is_list = true;
    } else if (trace_tensorlike(l) && val_as_tensor(l)->rank > 0 && op->id != OP_CONCAT) {
      Val rows = op_apply1(OP_UNSTACK, l);
      Val r = trace_record(cx, op, 1, &rows, attrs);
      val_decref(rows);
      return r;
    } else {
      rt_throw(ERR_TYPE, "%s: expected a list of tensors, got %s", trace_op_what(op, what, sizeof what),
               val_type_name(l));
    }
    if (nin == 0) rt_throw(ERR_INVALID_ARGUMENT, "%s: expected a non-empty list of tensors", trace_op_what(op, what, sizeof what));
  } else if (!(op->flags & OPF_VARIADIC) && nin != nk) {
    rt_throw(ERR_RUNTIME, "%s: internal: %d inputs given, %d expected", op->graph_name, nin, nk);
  }

  int cap = nin > 0 ? nin : 1;
  TraceScratch *sc = trace_scratch_new(cx, cap);
  GraphRef *ref = sc->ref;
  Val *raw = sc->raw;
  Tensor **tin = sc->tin;
  TMeta *inm = sc->inm;
  Val *temps = sc->temps;   /* owned: tensors made here (reads, conversions), attribute copies */
  bool any_raw = false;

  /* Pass 1: inputs that are tensors already; the group dtype. */
  int gdt = -1, vardt = -1;
  Variable *newvar = NULL;   /* an 'R' input whose handle this graph does not hold yet */
  int newvar_i = -1;
  const char *varname = NULL;   /* the receiver's: an _UnreadVariable's is 'UnreadVariable' */
  for (int i = 0; i < nin; i++) {
    char k = is_list ? (op->flags & OPF_VARIADIC ? 'A' : 'T') : op->flags & OPF_VARIADIC ? kinds[0] : kinds[i];
    Val v = vin[i];
    ref[i] = (GraphRef){-1, 0};
    raw[i] = val_undef();
    tin[i] = NULL;
    if (k == 'R') {
      if (!val_is(v, &variable_type))
        rt_throw(ERR_TYPE, "%s: expected a tf.Variable, got %s", op->graph_name, val_type_name(v));
      ref[i] = (GraphRef){trace_key_find(cx, variable_storage(v.u.o)), 0};   /* a new handle: made with the node */
      if (ref[i].node < 0) newvar = variable_storage(v.u.o), newvar_i = i;
      vardt = (int)variable_storage(v.u.o)->value->dtype;   /* the assigned value converts to it */
      varname = ((Variable *)v.u.o)->name;
      continue;
    }
    if (k >= 'a' && k <= 'z' && (v.tag == VT_NONE || v.tag == VT_UNDEF)) continue;   /* absent optional */
    if (!trace_tensorlike(v)) {
      if (k == 'H') {
        if (trace_val_symbolic(v))
          rt_throw(ERR_TYPE, "%s: a list holding symbolic tensors cannot be passed here; pass the tensors directly",
                   trace_op_what(op, what, sizeof what));
        raw[i] = v;
        any_raw = true;
      }
      continue;
    }
    trace_ref(cx, v, &ref[i]);
    if (val_is(v, &tensor_type) && val_tensor(v)->sym && ((const TraceSym *)val_tensor(v)->sym)->g == g) {
      tin[i] = val_tensor(v);
    } else {
      temps[sc->ntemps] = trace_sym(g, ref[i]);
      tin[i] = val_tensor(temps[sc->ntemps++]);
    }
    if (gdt < 0 && (k == 'T' || k == 't' || k == 'F' || k == 'f')) gdt = tin[i]->dtype;
  }

  /* Pass 2: host values become Const nodes. */
  for (int i = 0; i < nin; i++) {
    if (ref[i].node >= 0 || !val_is_undef(raw[i])) continue;
    char k = is_list ? (op->flags & OPF_VARIADIC ? 'A' : 'T') : op->flags & OPF_VARIADIC ? kinds[0] : kinds[i];
    Val v = vin[i];
    if (k == 'R' || k == 'H' || ((k >= 'a' && k <= 'z') && (v.tag == VT_NONE || v.tag == VT_UNDEF))) continue;
    int want = -1;
    if (k == 'T' || k == 't' || k == 'F' || k == 'f') {
      if (gdt >= 0) want = gdt;
      else if ((k == 'F' || k == 'f') && v.tag == VT_INT) want = DT_FLOAT32;
    } else if (k == 'A' && vardt >= 0) {
      want = vardt;   /* v.assign(host value): the variable's dtype */
    }
    if ((val_is(v, &list_type) || val_is(v, &tuple_type)) && trace_val_symbolic(v)) {
      /* [i, 2] with a traced i: packed in the graph, as TF's convert_to_tensor does */
      Val p = trace_pack(v, want);
      temps[sc->ntemps++] = p;
      tin[i] = val_tensor(p);
      ref[i] = trace_sym_in(cx, tin[i]);
      if ((k == 'T' || k == 't' || k == 'F' || k == 'f') && gdt < 0) gdt = tin[i]->dtype;
      continue;
    }
    Tensor *t = tensor_from_val(v, want);
    temps[sc->ntemps++] = val_obj(t);
    if ((k == 'T' || k == 't' || k == 'F' || k == 'f') && gdt < 0) gdt = t->dtype;
    ref[i] = (GraphRef){trace_input_const(g, op, is_list, i, t), 0};
    tin[i] = t;
  }

  /* Pass 3: dtype checks (op_apply's texts). */
  for (int i = 0; i < nin; i++) {
    Tensor *t = tin[i];
    if (!t) {
      inm[i].rank = TMETA_ABSENT;   /* absent optional, or a host value passed through (H/R), as op_apply */
      inm[i].dtype = DT_FLOAT32;
      continue;
    }
    char k = is_list ? (op->flags & OPF_VARIADIC ? 'A' : 'T') : op->flags & OPF_VARIADIC ? kinds[0] : kinds[i];
    switch (k) {
      case 'T': case 't': case 'F': case 'f':
        if ((int)t->dtype != gdt) trace_fail_dtype(op, i, (DType)gdt, t->dtype);
        if (!(op->dtypes & DTM(t->dtype))) trace_fail_attr(op, "T", t->dtype, op->dtypes);
        break;
      case 'A':
        if (vardt >= 0 && (int)t->dtype != vardt) trace_fail_dtype(op, i, (DType)vardt, t->dtype);
        if (!(op->dtypes & DTM(t->dtype))) trace_fail_attr(op, "T", t->dtype, op->dtypes);
        break;
      case 'B': case 'b':
        if (t->dtype != DT_BOOL && !op_cond_any_dtype(op, i, nin, tin)) trace_fail_dtype(op, i, DT_BOOL, t->dtype);
        break;
      case 'I': case 'i': {
        const char *attr, *allowed;
        unsigned ok = op_index_dtypes(op, &attr, &allowed);
        if (!(DTM(t->dtype) & ok)) op_fail_attr_text(op, attr, t->dtype, allowed);
        break;
      }
      default:
        break;
    }
    meta_set(&inm[i], t->dtype, t->rank, t->shape);
  }

  /* v.assign(x): a statically wrong shape fails now, as it would eagerly. */
  if (vardt >= 0 && nin == 2 && tin[1] && (ref[0].node >= 0 || newvar_i == 0)) {
    Variable *var = ref[0].node >= 0 ? g->nodes[ref[0].node].var : newvar;
    const Tensor *nv = tin[1];
    tfs_i64 vdims[TFS_MAX_RANK];
    int vrank = variable_shape(var, vdims);   /* a declared shape (tf.Variable(shape=...)) may leave dims open */
    if (!shape_compatible(vrank, vdims, nv->rank, nv->shape)) {
      StrBuf a, b2;
      sb_init(&a);
      sb_init(&b2);
      graph_shape_text(&a, vrank, vdims);
      graph_shape_text(&b2, nv->rank, nv->shape);
      char msg[512];
      snprintf(msg, sizeof msg,
               "Cannot assign value to variable ' %s': Shape mismatch.The variable shape %s, and the assigned value "
               "shape %s are incompatible.",
               varname ? varname : var->name, a.data, b2.data);
      sb_free(&a);
      sb_free(&b2);
      rt_throw(ERR_VALUE, "%s", msg);
    }
  }

  /* Attributes: owned copies; symbolic ones get their static values or
   * become graph inputs (dynamic attributes). */
  OpAttrs at;
  at.n = attrs->n;
  int ndyn = 0, dyn_attr[OP_MAX_ATTRS];
  bool isdyn[OP_MAX_ATTRS] = {0};
  GraphRef dyn_ref[OP_MAX_ATTRS];
  for (int i = 0; i < attrs->n; i++) {
    GraphRef d;
    at.v[i] = trace_attr_value(cx, op, i, attrs->v[i], &d);
    temps[sc->ntemps++] = at.v[i];
    if (d.node >= 0) {
      isdyn[i] = true;
      dyn_attr[ndyn] = i;
      dyn_ref[ndyn++] = d;
    }
  }

  /* Shape/dtype rule. */
  OpCall c;
  memset(&c, 0, sizeof c);
  c.op = op;
  c.nin = nin;
  c.args = vin;
  c.in = tin;
  c.inm = inm;
  c.attrs = &at;
  c.outm = c.outm_buf;
  c.out = c.out_buf;
  c.nout = 1;
  if (op->id == OP_PAD && ndyn && graph_meta(g, dyn_ref[0])->dtype != tin[0]->dtype)   /* PadV2's T: one dtype */
    trace_fail_dtype(op, 2, tin[0]->dtype, graph_meta(g, dyn_ref[0])->dtype);
  if (ndyn && op->id == OP_ONE_HOT) {
    /* a graph-valued depth: the static rule with depth 0, then the new axis unknown */
    Val depth = at.v[0];
    at.v[0] = val_int(0);
    op->meta(&c);
    at.v[0] = depth;
    if (c.outm[0].rank > 0) c.outm[0].shape[c.iscr[0]] = -1;
  } else if (ndyn && op->id != OP_STRIDED_SLICE && op->id != OP_PAD && op->id != OP_SCATTER_GRAD) {
    trace_dyn_meta(op, &at, isdyn, dyn_ref, g, tin, &c.outm[0]);
  } else {
    op->meta(&c);
  }
  int nout = (op->flags & OPF_NOOUT) ? 0 : c.nout;

  int vtok = -1;
  if (newvar) ref[newvar_i] = (GraphRef){trace_varhandle(cx, newvar, op, &vtok), 0};
  int id = graph_add_node(g, GN_OP, op, op->graph_name, nout, c.outm);
  if (vtok >= 0) graph_op_scope_exit(vtok);
  op_release_outputs(&c);
  GraphNode *node = &g->nodes[id];
  node->attrs = at;
  for (int i = 0; i < at.n; i++) val_incref(at.v[i]);
  graph_set_inputs(g, id, nin, ref, any_raw ? raw : NULL);
  for (int k = 0; k < ndyn; k++) graph_add_dyn_attr(g, id, dyn_attr[k], dyn_ref[k]);
  if (is_list) g->nodes[id].flags |= GNF_LIST;
  graph_ctrl_apply(g, id);
  if (op->flags & OPF_STATEFUL) {
    g->nodes[id].flags |= GNF_STATEFUL;
    if (cx->last_effect >= 0) graph_add_ctrl(g, id, cx->last_effect);
    cx->last_effect = id;
    cx->neffects++;
  }
  trace_scratch_free(cx, sc);

  if (op->flags & OPF_NOOUT) return val_none();
  if ((op->flags & OPF_TUPLE) && nout == 1) return trace_sym(g, (GraphRef){id, 0});
  if (op->flags & OPF_TUPLE) {
    Val l = tuple_new(nout);
    for (int i = 0; i < nout; i++) ((Tuple *)l.u.o)->items[i] = trace_sym(g, (GraphRef){id, i});
    return l;
  }
  if (op->flags & OPF_MULTI) {
    Val l = list_new(nout);
    for (int i = 0; i < nout; i++) {
      Val t = trace_sym(g, (GraphRef){id, i});
      list_append(l, t);
      val_decref(t);
    }
    return l;
  }
  return trace_sym(g, (GraphRef){id, 0});
}

int trace_quiet;

/* Whether the op being applied comes from numpy's own library code (numpy.tfs, numpy_linalg.tfs): host code,
 * whose ops run when the function is traced, as numpy runs in Python under TF's tracing. */
static bool trace_in_numpy(void) {
  static int last_file = -1;
  static bool last;
  const RtLoc *l = rt_loc_get(rt_cur_loc);
  if (!l) return false;
  if (l->file != last_file) {
    const RtFile *f = rt_file_get(l->file);
    const char *base = f && f->path ? strrchr(f->path, '/') : NULL;
    base = base ? base + 1 : f && f->path ? f->path : "";
    last = f && f->library && (!strcmp(base, "numpy.tfs") || !strcmp(base, "numpy_linalg.tfs"));
    last_file = l->file;
  }
  return last;
}

/* A graph tensor among an op's inputs (in sequences too), or NULL. */
static Tensor *trace_first_symbolic(int nin, const Val *inputs) {
  for (int i = 0; i < nin; i++) {
    Tensor *t = val_as_tensor(inputs[i]);
    if (t && t->sym) return t;
    tfs_i64 n;
    const Val *items;
    if (!t && seq_items(inputs[i], &n, &items)) {
      Tensor *u = trace_first_symbolic((int)n, items);
      if (u) return u;
    }
  }
  return NULL;
}

/* Whether an input is a numpy array (or scalar) and none is symbolic (a graph tensor or Variable, in sequences
 * too): an op of numpy's own methods and operators on host arrays. */
static bool trace_host_ndarray_op(int nin, const Val *inputs) {
  bool nd = false;
  for (int i = 0; i < nin; i++) {
    if (trace_val_symbolic(inputs[i])) return false;
    nd |= val_is_ndarray(inputs[i]);
  }
  return nd;
}

static Val trace_hook(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs) {
  TraceCtx *cx = trace_cur;
  /* numpy is host code: its library code and pure ops on its arrays are computed now (a constant to the graph);
   * a graph tensor cannot reach numpy's code (TF's error) */
  if (cx && trace_in_numpy()) {
    Tensor *s = trace_first_symbolic(nin, inputs);
    if (s) ndarray_symbolic_error(s);
    return val_undef();
  }
  if (cx && !(op->flags & OPF_STATEFUL) && trace_host_ndarray_op(nin, inputs))
    return val_undef();
  if (cx && trace_quiet && (op->flags & OPF_NOOUT) && (op->flags & OPF_STATEFUL) && op->id != OP_STACK_PUSH)
    return val_none();
  if (!cx && nsubst && trace_first_symbolic(nin, inputs)) {
    /* host code of a running graph's dataset: its symbolic tensors stand for the run's values */
    Val *in = malloc(sizeof(Val) * (size_t)(nin + 1));
    if (!in) rt_throw(ERR_MEMORY, "out of memory");
    int mark = rt_hold_mem(in);
    bool all = true;
    for (int i = 0; i < nin; i++) {
      Tensor *t = val_as_tensor(inputs[i]);
      Tensor *v = t && t->sym ? trace_subst_find(t) : NULL;
      if (t && t->sym && !v) all = false;
      in[i] = v ? val_obj(v) : inputs[i];
    }
    if (all && !trace_first_symbolic(nin, in)) {
      Val r = op_apply(op, nin, in, attrs);
      rt_unhold(mark);
      free(in);
      return r;
    }
    rt_unhold(mark);
    free(in);
  }
  if (!cx) {
    /* not tracing: eager, unless a symbolic tensor escaped its function */
    for (int i = 0; i < nin; i++) {
      Val v = inputs[i];
      if (!trace_val_symbolic(v)) continue;
      if (val_is(v, &tensor_type)) trace_error_foreign(val_tensor(v));
      tfs_i64 n;
      const Val *items;
      if (seq_items(v, &n, &items))
        for (tfs_i64 k = 0; k < n; k++)
          if (val_is(items[k], &tensor_type) && val_tensor(items[k])->sym) trace_error_foreign(val_tensor(items[k]));
      rt_throw(ERR_TYPE, "a symbolic tensor cannot be used outside of its tf.function");
    }
    if (attrs)
      for (int i = 0; i < attrs->n; i++)
        if (val_is(attrs->v[i], &tensor_type) && val_tensor(attrs->v[i])->sym) trace_error_foreign(val_tensor(attrs->v[i]));
    return val_undef();
  }
  return trace_record(cx, op, nin, inputs, attrs);
}

/* ---- structures of values -------------------------------------------------------- */

struct FlattenCtx { TraceCtx *cx; GraphRefVec *out; };
static Val flatten_elem(void *ctx, Val e) {
  struct FlattenCtx *fc = ctx;
  return trace_flatten(fc->cx, e, fc->out);
}

Val trace_flatten(TraceCtx *cx, Val v, GraphRefVec *out) {
  GraphRef r;
  if (trace_ref(cx, v, &r)) {
    trace_refvec_push(out, r);
    return nest_leaf(out->n - 1);
  }
  struct FlattenCtx fc = {cx, out};
  return nest_map(v, flatten_elem, &fc);
}


/* ---- tf.Variable creation inside a trace (init scope) ------------------------------- */

static Val trace_lifted = {VT_UNDEF, {0}};   /* owned lifted initial value of the creation in progress */
static Val trace_deferred = {VT_UNDEF, {0}};  /* owned symbolic initial value that cannot be lifted */

void *trace_enter_init_scope(Val *initial) {
  TraceCtx *cx = trace_cur;
  if (!cx) return NULL;
  for (TraceCtx *o = cx; o; o = o->outer)
    if (!o->allow_vars)
      /* (one literal: docs/errors.md quotes it) */
      rt_throw(ERR_VALUE,
               "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function.");
  for (TraceCtx *o = cx; o; o = o->outer) o->nvars++;
  if (val_is(*initial, &tensor_type) && val_tensor(*initial)->sym) {
    Tensor *t = val_tensor(*initial);
    Graph *sg;
    GraphRef r;
    trace_sym_ref(t, &sg, &r);
    Tensor *st = sg == cx->g ? trace_static_value(sg, r) : NULL;
    if (!st) {
      /* computed from the inputs: zeros now, the value assigned by the graph */
      const TMeta *m = graph_meta(sg, r);
      bool known = m->rank >= 0;
      for (int i = 0; known && i < m->rank; i++) known = m->shape[i] >= 0;
      if (sg != cx->g || !known)
        rt_throw(ERR_VALUE,
                 "tf.Variable: the initial value is computed inside tf.function '%s'%s; create the variable from "
                 "a value of known shape, or outside the function",
                 cx->g->fname, known ? " in a control-flow branch" : " and its shape is not fully known");
      for (TraceCtx *o = cx; o; o = o->outer) o->unliftable = true;
      val_decref(trace_deferred);
      trace_deferred = val_incref(*initial);
      st = tensor_new(m->dtype, m->rank, m->shape);
      if (!dtype_holds_refs(m->dtype)) memset(tensor_data(st), 0, (size_t)st->size * dtype_info[m->dtype].size);
    }
    val_decref(trace_lifted);
    trace_lifted = val_obj(st);
    *initial = trace_lifted;
  } else if (trace_val_symbolic(*initial)) {
    rt_throw(ERR_VALUE, "tf.Variable: the initial value depends on the inputs of tf.function '%s'", cx->g->fname);
  }
  trace_cur = NULL;   /* the creation runs eagerly, as under TF's init_scope */
  return cx;
}

void trace_init_variable(void *token, Val var) {
  if (!token || val_is_undef(trace_deferred)) return;
  Val init = trace_deferred;
  trace_deferred = val_undef();
  int mark = rt_hold_val(init);
  TraceCtx *saved = trace_cur;
  trace_cur = token;
  Val in[2] = {var, init};
  Tensor *t = val_tensor(init);
  const Variable *v = (const Variable *)var.u.o;
  Val cast = val_undef();
  if (t->dtype != v->value->dtype) {   /* tf.Variable(x, dtype=...): the graph converts */
    Val dv = dtype_val(v->value->dtype);
    OpAttrs at = {1, {dv}};
    cast = op_apply(&op_defs[OP_CAST], 1, &init, &at);
    rt_hold_val(cast);
    in[1] = cast;
  }
  Val r = trace_hook(&op_defs[OP_ASSIGN_VARIABLE], 2, in, NULL);
  val_decref(r);
  trace_cur = saved;
  rt_unhold(mark);
  val_decref(init);
  val_decref(cast);
}

void trace_leave_init_scope(void *token) {
  if (!token) return;
  trace_cur = token;
  val_decref(trace_lifted);
  trace_lifted = val_undef();
  val_decref(trace_deferred);
  trace_deferred = val_undef();
}

/* ---- installation -------------------------------------------------------------------- */

void trace_install(void) {
  op_graph_hook = trace_hook;
  tensor_sym_free = trace_sym_free;
  tensor_sym_repr = trace_sym_text;
}
