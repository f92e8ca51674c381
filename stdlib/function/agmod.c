/* agmod.c — the AutoGraph runtime `ag` (and tf.cond / tf.while_loop): Python semantics, or graph cond/while nodes.
 *
 * Converted code calls these with its control flow turned into functions:
 *   ag.if_stmt(cond, if_body, else_body, get_state, set_state, names, nouts)
 *   ag.while_stmt(test, body, get_state, set_state, names, opts)
 *   ag.for_stmt(iter, extra_test, body, get_state, set_state, names, opts)
 * With a host condition (or outside tracing) they run the Python statement.
 * With a symbolic tensor they trace the branches / the loop body into
 * subgraphs (child tracing contexts whose graphs have the current graph as
 * parent) and record one GN_COND / GN_WHILE node.  Values of the enclosing
 * graphs used in a body are captured (TraceCtx.caps) and become extra inputs
 * of the node; the bodies' placeholders are ordered to match.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/modules.h"
#include "object/object.h"
#include "tensor/tensor.h"
#include "modules/tfmod.h"
#include "graph/tape.h"
#include "modules/tfdata.h"
#include "graph/trace.h"
#include "function/tensorarray.h"

/* AutoGraph staging errors print their text alone (§11's example), at the
 * construct's location. */
/* A staging error, with the class TF's AutoGraph raises it with (operators/control_flow.py: TypeError for
 * dtypes and structures, ValueError for undefined values, shapes and conditions). */
static _Noreturn void ag_fail(int loc, ErrKind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static _Noreturn void ag_fail(int loc, ErrKind kind, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* errindex: - (passes on a message indexed where it is made) */
  rt_throw_at(loc, kind, "%s", msg);
}

/* > 0 while a loop iteration is staged only to learn the types of variables
 * first bound inside the loop: conds then accept a branch that has not
 * returned (that graph is discarded); a name one branch leaves unset still
 * fails, as in TF. */
static int ag_probe_depth;

static Val ag_call0(Val f) { return rt_call(f, 0, NULL, NULL); }
static Val ag_call1(Val f, Val a) { return rt_call(f, 1, &a, NULL); }
static void ag_call0_void(Val f) { val_decref(ag_call0(f)); }

/* ---- Undefined and UndefinedReturnValue ------------------------------------------------ */

typedef struct AgUndef { Obj hdr; Val name; } AgUndef;

static void ag_undef_free(Obj *o) {
  val_decref(((AgUndef *)o)->name);
  free(o);
}

/* Any use of a name no path assigned: AutoGraph's Undefined.read(). */
static _Noreturn void ag_undef_use(Val v) {
  Val n = ((AgUndef *)v.u.o)->name;
  rt_throw(ERR_UNBOUND, "'%s' is used before assignment", val_is(n, &str_type) ? str_cstr(n) : "?");
}
static void ag_undef_print(StrBuf *b, Val v) {
  (void)b;
  ag_undef_use(v);
}

static int ag_undef_truthy(Val v) { ag_undef_use(v); }
static Val ag_undef_getattr(Val v, const char *name) { (void)name; ag_undef_use(v); }
static const Type ag_undef_type;
static Val ag_undef_binop(int op, Val a, Val b) {
  (void)op;
  ag_undef_use(val_is(a, &ag_undef_type) ? a : b);
}
static Val ag_undef_unop(int op, Val a) { (void)op; ag_undef_use(a); }
static Val ag_undef_iter(Val v) { ag_undef_use(v); }
static Val ag_undef_call(Val v, int n, const Val *args, const Kw *kw) { (void)n; (void)args; (void)kw; ag_undef_use(v); }

static const Type ag_undef_type = {
  .name = "Undefined", .free = ag_undef_free, .repr = ag_undef_print, .getattr = ag_undef_getattr,
  .call = ag_undef_call, .iter = ag_undef_iter, .binop = ag_undef_binop, .unop = ag_undef_unop,
  .truthy = ag_undef_truthy, .hash = obj_identity_hash,
};

static void ag_retval_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "ag.UndefinedReturnValue()"); }
static void ag_static_free(Obj *o) { (void)o; }
static const Type ag_retval_type = {.name = "UndefinedReturnValue", .free = ag_static_free, .repr = ag_retval_repr,
                                    .hash = obj_identity_hash};
static Obj ag_retval_obj = {TFS_IMMORTAL_RC, &ag_retval_type};

static bool ag_is_undef(Val v) { return val_is(v, &ag_undef_type); }

/* ag.ld's check: reading a name a `del` (or no path) left undefined raises, as TF's Undefined.read(). */
void ag_check_defined(Val v) {
  if (ag_is_undef(v)) ag_undef_use(v);
}
static bool ag_is_retval(Val v) { return val_is(v, &ag_retval_type); }

static Val ag_undef_new(Val name) {
  AgUndef *u = obj_new(&ag_undef_type, sizeof(AgUndef));
  u->name = val_incref(name);
  return val_obj(u);
}

static Val ag_Undefined(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.Undefined", .sig = "symbol_name"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return ag_undef_new(a[0]);
}

/* ag.ldu(load, name): load() (a composite such as x['k'] or o.a), or
 * Undefined(name) when the item or attribute does not exist yet. */
static Val ag_ldu(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.ldu", .sig = "load_v, name"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  /* a missing key or attribute does not raise (see rt_soft_miss); an unbound
   * name does, before the load holds anything */
  int saved = rt_soft_miss;
  bool was = rt_soft_missed;
  rt_soft_missed = false;
  rt_soft_miss = 1;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val r = ag_call0(a[0]);
    rt_try_pop(&t);
    bool missed = rt_soft_missed;
    rt_soft_miss = saved;
    rt_soft_missed = was;
    if (!missed) return r;
    val_decref(r);
    return ag_undef_new(a[1]);
  }
  rt_soft_miss = saved;
  rt_soft_missed = was;
  if (t.kind != ERR_NAME && t.kind != ERR_UNBOUND) rt_rethrow(&t);
  rt_try_clear(&t);
  return ag_undef_new(a[1]);
}

static Val ag_UndefinedReturnValue(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.UndefinedReturnValue", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  return val_obj(&ag_retval_obj);
}

Val ag_ret(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.ret", .sig = "retval_, do_return=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (ag_is_retval(a[0])) return val_none();
  if (ag_is_undef(a[0])) ag_undef_use(a[0]);
  return val_incref(a[0]);
}

/* ---- conditions ------------------------------------------------------------------------------ */

/* A value to stage as a graph condition: a symbolic tensor (or a Variable,
 * read) while tracing.  Host values and eager tensors decide in Python. */
static bool ag_staged(Val v) {
  if (!trace_active()) return false;
  if (val_is(v, &tensor_type)) return val_tensor(v)->sym != NULL;
  return val_is(v, &variable_type);
}

/* The condition as a scalar bool graph value of the current graph. */
static GraphRef ag_condition(TraceCtx *cx, Val cond, const char *what, int loc) {
  Val owned = val_undef();
  if (val_is(cond, &variable_type)) cond = owned = op_apply1(OP_READ_VARIABLE, cond);
  Tensor *t = val_as_tensor(cond);
  if (!t || t->dtype != DT_BOOL) {
    StrBuf b;
    sb_init(&b);
    val_repr(&b, cond);
    char msg[512];
    snprintf(msg, sizeof msg, "%.400s", b.data);
    sb_free(&b);
    ag_fail(loc, ERR_VALUE, "condition of %s expected to be `tf.bool` scalar, got %s; to use as boolean Tensor, use `tf.cast`",
            what, msg);
  }
  tfs_i64 known = 1;
  for (int i = 0; i < t->rank; i++)
    if (t->shape[i] >= 0) known *= t->shape[i];
  if (t->rank != 0) {
    if (t->rank > 0 && known > 1) {
      StrBuf b;
      sb_init(&b);
      val_repr(&b, cond);
      char msg[512];
      snprintf(msg, sizeof msg, "%.400s", b.data);
      sb_free(&b);
      ag_fail(loc, ERR_VALUE, "condition of %s expected to be `tf.bool` scalar, got %s", what, msg);
    }
    Val shape = list_new(0);
    OpAttrs at = {1, {shape}};
    Val r = op_apply(&op_defs[OP_RESHAPE], 1, &cond, &at);
    val_decref(shape);
    val_decref(owned);
    owned = r;
    cond = r;
  }
  GraphRef ref;
  trace_ref(cx, cond, &ref);
  val_decref(owned);
  return ref;
}

/* ---- tracing bodies -------------------------------------------------------------------------- */

/* One traced body (a cond branch, a loop cond or body). */
typedef struct AgBody {
  Graph *g;                   /* owned until handed to the node */
  Val tmpl;                   /* result template (owned); markers index refs */
  GraphRefVec refs;           /* result tensor leaves in g */
  TraceCap *caps;             /* captured enclosing values (copied) */
  int ncaps;
  int neffects;
} AgBody;

static void ag_body_free(AgBody *b) {
  if (b->g) graph_release(b->g);
  val_decref(b->tmpl);
  free(b->refs.v);
  free(b->caps);
  memset(b, 0, sizeof *b);
  b->tmpl = val_undef();
}

typedef Val (*AgRunFn)(void *ud, TraceCtx *bx);

/* Trace run(ud) into a new child graph of cx's; its result is flattened
 * with host leaves kept (ag_merge / the loop code decide about them). */
enum { AG_MAX_NESTING = 64 };

static void ag_trace_body(TraceCtx *cx, const char *name, AgRunFn run, void *ud, AgBody *out) {
  memset(out, 0, sizeof *out);
  out->tmpl = val_undef();
  int depth = 0;
  for (TraceCtx *c = cx; c && c->body; c = c->outer) depth++;
  if (depth >= AG_MAX_NESTING)
    ag_fail(rt_cur_loc, ERR_INVALID_ARGUMENT,
            "graph control flow nested more than %d levels deep while tracing tf.function '%s': recursion whose depth "
            "depends on a tensor value is not supported (recursion depth must be decided by Python values)",
            AG_MAX_NESTING, cx->g->fname);
  Graph *g = graph_new(name, cx->g->fname, cx->g);
  TraceCtx *bx = trace_push(g, cx->allow_vars, true);
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val r = run(ud, bx);
    out->tmpl = trace_flatten(bx, r, &out->refs);
    val_decref(r);
    rt_try_pop(&t);
  } else {
    trace_abort(bx);
    graph_release(g);
    rt_rethrow(&t);
  }
  out->g = g;
  out->neffects = bx->neffects;
  out->ncaps = bx->ncaps;
  out->caps = malloc(sizeof(TraceCap) * (size_t)(bx->ncaps + 1));
  if (!out->caps) rt_throw(ERR_MEMORY, "out of memory");
  if (bx->ncaps) memcpy(out->caps, bx->caps, sizeof(TraceCap) * (size_t)bx->ncaps);
  trace_pop(bx);
}

/* The union of the bodies' captures, and each body's inputs reordered to
 * [its first nfixed placeholders, then one per union entry]. */
static int ag_union_caps(AgBody **bodies, int nb, GraphRef **out) {
  int n = 0, cap = 8;
  GraphRef *u = malloc(sizeof(GraphRef) * (size_t)cap);
  if (!u) rt_throw(ERR_MEMORY, "out of memory");
  for (int k = 0; k < nb; k++)
    for (int i = 0; i < bodies[k]->ncaps; i++) {
      GraphRef o = bodies[k]->caps[i].outer;
      bool seen = false;
      for (int j = 0; j < n && !seen; j++) seen = u[j].node == o.node && u[j].out == o.out;
      if (seen) continue;
      if (n == cap) {
        cap *= 2;
        GraphRef *nu = realloc(u, sizeof(GraphRef) * (size_t)cap);
        if (!nu) rt_throw(ERR_MEMORY, "out of memory");
        u = nu;
      }
      u[n++] = o;
    }
  *out = u;
  return n;
}

/* unused: the name of the unused inputs made for the other body's captures (NULL: the captured node's) */
static void ag_align_inputs(AgBody *b, int nfixed, const GraphRef *u, int nu, Graph *outer, const char *unused) {
  Graph *g = b->g;
  int *inputs = malloc(sizeof(int) * (size_t)(nfixed + nu + 1));
  if (!inputs) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nfixed; i++) inputs[i] = g->inputs[i];
  for (int j = 0; j < nu; j++) {
    int node = -1;
    for (int i = 0; i < b->ncaps && node < 0; i++)
      if (b->caps[i].outer.node == u[j].node && b->caps[i].outer.out == u[j].out) node = b->caps[i].inner;
    if (node < 0) {   /* the other body's capture: an unused input here */
      node = graph_add_placeholder(g, unused ? unused : outer->nodes[u[j].node].name, graph_meta(outer, u[j]));
    }
    inputs[nfixed + j] = node;
  }
  free(g->inputs);
  g->inputs = inputs;
  g->ninputs = nfixed + nu;
  for (int i = 0; i < g->ninputs; i++) g->nodes[inputs[i]].param = i;
}

/* Record the control-flow node in cx's graph, with control inputs as TF's If/While get them, and make it a side
 * effect when a body has some. */
static int ag_add_node(TraceCtx *cx, GraphNodeKind kind, const char *base, int nout, const TMeta *outm, int nin,
                       const GraphRef *in, AgBody *a, AgBody *b, Val aux) {
  Graph *g = cx->g;
  Graph *bodies[2] = {a->g, b->g};
  int ct = graph_ctrl_push_caps(g, bodies, 2);
  int id = graph_add_node(g, kind, NULL, base, nout, outm);
  graph_set_inputs(g, id, nin, in, NULL);
  graph_ctrl_apply(g, id);   /* the enclosing tf.control_dependencies blocks' and the bodies' control captures */
  graph_ctrl_pop(ct);
  GraphNode *n = &g->nodes[id];
  n->sub[0] = a->g;
  n->sub[1] = b->g;
  a->g = b->g = NULL;
  n->aux = val_incref(aux);
  if (a->neffects || b->neffects) {
    n->flags |= GNF_STATEFUL;
    if (cx->last_effect >= 0) graph_add_ctrl(g, id, cx->last_effect);
    cx->last_effect = id;
    cx->neffects++;
  }
  return id;
}

/* ---- merging the two branches of a cond ---------------------------------------------------- */

typedef struct AgMerge {
  AgBody *a, *b;
  GraphRefVec oa, ob;         /* output pairs */
  int loc;
  bool stmt;                  /* if statement (names) vs tf.cond / if_exp */
} AgMerge;

static bool ag_is_struct(Val v) { return val_is(v, &list_type) || val_is(v, &tuple_type) || val_is(v, &dict_type); }

static bool ag_same_host(Val x, Val y) {
  if (x.tag != y.tag) return false;
  if (x.tag != VT_OBJ) return val_eq(x, y);
  if (x.u.o == y.u.o) return true;
  if (val_is(x, &str_type) && val_is(y, &str_type)) return val_eq(x, y);
  return false;
}

static bool ag_convertible(Val v) {
  return v.tag == VT_BOOL || v.tag == VT_INT || v.tag == VT_FLOAT || val_is(v, &str_type);
}

static _Noreturn void ag_fail_structure(AgMerge *m, const char *noun) {
  if (m->stmt) ag_fail(m->loc, ERR_TYPE, "%s must have the same nested structure in the main and else branches", noun);
  ag_fail(m->loc, ERR_VALUE, "%s must have the same nested structure in true_fn and false_fn", noun);
}

static GraphRef ag_leaf_ref(AgMerge *m, AgBody *b, Val t, const char *noun) {
  int idx;
  if (nest_is_leaf(t, &idx)) return b->refs.v[idx];
  if (!ag_convertible(t)) ag_fail_structure(m, noun);
  Tensor *c = tensor_from_val(t, -1);
  int id = graph_add_const(b->g, c);
  tensor_release(c);
  return (GraphRef){id, 0};
}

static Val ag_merge_val(AgMerge *m, Val ta, Val tb, const char *noun) {
  if (val_is(ta, &tensorarray_type) || val_is(tb, &tensorarray_type)) {   /* merge the flows */
    if (!val_is(ta, &tensorarray_type) || !val_is(tb, &tensorarray_type)) ag_fail_structure(m, noun);
    Val f = ag_merge_val(m, tensorarray_flow(ta), tensorarray_flow(tb), noun);
    Val r = tensorarray_with_flow(ta, f);
    val_decref(f);
    return r;
  }
  if (ag_is_struct(ta) || ag_is_struct(tb)) {
    if (ta.tag != VT_OBJ || tb.tag != VT_OBJ || ta.u.o->type != tb.u.o->type) ag_fail_structure(m, noun);
    if (val_is(ta, &dict_type)) {
      Dict *da = (Dict *)ta.u.o, *db = (Dict *)tb.u.o;
      if (da->len != db->len) ag_fail_structure(m, noun);
      Val r = dict_new();
      for (tfs_i64 i = 0; i < da->used; i++) {
        if (val_is_undef(da->keys[i])) continue;
        Val eb = dict_get(tb, da->keys[i]);
        if (val_is_undef(eb)) ag_fail_structure(m, noun);
        Val e = ag_merge_val(m, da->vals[i], eb, noun);
        val_decref(eb);
        dict_set(r, da->keys[i], e);
        val_decref(e);
      }
      return r;
    }
    tfs_i64 na, nb;
    const Val *ia, *ib;
    seq_items(ta, &na, &ia);
    seq_items(tb, &nb, &ib);
    if (na != nb) ag_fail_structure(m, noun);
    bool list = val_is(ta, &list_type);
    Val r = list ? list_new(na) : tuple_new(na);
    for (tfs_i64 i = 0; i < na; i++) {
      Val e = ag_merge_val(m, ia[i], ib[i], noun);
      if (list) {
        list_append(r, e);
        val_decref(e);
      } else {
        ((Tuple *)r.u.o)->items[i] = e;
      }
    }
    return r;
  }
  int ia, ib;
  bool la = nest_is_leaf(ta, &ia), lb = nest_is_leaf(tb, &ib);
  /* the same object in both stays a host value; numbers, bools and strings
   * become cond outputs even when equal, as TF's cond makes every output a
   * tensor (so a flag set in both branches still turns into a tensor) */
  if (!la && !lb && ag_same_host(ta, tb) && !ag_convertible(ta)) return val_incref(ta);
  if (ag_probe_depth && (ag_is_retval(ta) || ag_is_retval(tb))) {
    /* probing: the returning side gives the type; the other side gets zeros */
    bool a_undef = ag_is_retval(ta);
    if (a_undef && ag_is_retval(tb)) return val_incref(ta);
    AgBody *def = a_undef ? m->b : m->a, *und = a_undef ? m->a : m->b;
    GraphRef rd = ag_leaf_ref(m, def, a_undef ? tb : ta, noun);
    const TMeta *dm = graph_meta(def->g, rd);
    tfs_i64 dims[TFS_MAX_RANK];
    int rank = dm->rank < 0 ? 0 : dm->rank;
    for (int d = 0; d < rank; d++) dims[d] = dm->shape[d] < 0 ? 0 : dm->shape[d];
    Tensor *z = tensor_new(dm->dtype, rank, dims);
    ew_fill(z, 0, 0);
    GraphRef ru = {graph_add_const(und->g, z), 0};
    tensor_release(z);
    trace_refvec_push(&m->oa, a_undef ? ru : rd);
    trace_refvec_push(&m->ob, a_undef ? rd : ru);
    return nest_leaf(m->oa.n - 1);
  }
  GraphRef ra = ag_leaf_ref(m, m->a, ta, noun), rb = ag_leaf_ref(m, m->b, tb, noun);
  DType da = graph_meta(m->a->g, ra)->dtype, db = graph_meta(m->b->g, rb)->dtype;
  if (da != db) {
    if (m->stmt)
      ag_fail(m->loc, ERR_TYPE, "%s has dtype %s in the main branch, but dtype %s in the else branch", noun, dtype_info[da].name,
              dtype_info[db].name);
    ag_fail(m->loc, ERR_TYPE, "%s has dtype %s in true_fn, but dtype %s in false_fn", noun, dtype_info[da].name,
            dtype_info[db].name);
  }
  trace_refvec_push(&m->oa, ra);
  trace_refvec_push(&m->ob, rb);
  return nest_leaf(m->oa.n - 1);
}

/* The most specific shape both branches satisfy. */
static void ag_meta_join(TMeta *out, const TMeta *a, const TMeta *b) {
  *out = *a;
  if (a->rank != b->rank) {
    out->rank = -1;
    return;
  }
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) out->shape[i] = -1;
}

/* Build the cond node from two traced branches whose templates are merged
 * element by element (names[i] names element i of a tuple template, or NULL
 * for a single result); returns the merged value with symbolic outputs. */
static Val ag_build_cond(TraceCtx *cx, GraphRef pred, AgBody *a, AgBody *b, Val names, int loc, const char *base) {
  AgMerge m = {a, b, {0}, {0}, loc, !val_is_undef(names)};
  Val tmpl;
  if (m.stmt) {
    tfs_i64 n, nn;
    const Val *ia, *ib, *in;
    seq_items(a->tmpl, &n, &ia);
    seq_items(b->tmpl, &n, &ib);
    seq_items(names, &nn, &in);
    tmpl = tuple_new(n);
    for (tfs_i64 i = 0; i < n; i++) {
      char noun[160];
      snprintf(noun, sizeof noun, "'%s'", i < nn && val_is(in[i], &str_type) ? str_cstr(in[i]) : "?");
      ((Tuple *)tmpl.u.o)->items[i] = ag_merge_val(&m, ia[i], ib[i], noun);
    }
  } else {
    tmpl = ag_merge_val(&m, a->tmpl, b->tmpl, "the result");
  }
  int nout = m.oa.n;
  TMeta *outm = malloc(sizeof(TMeta) * (size_t)(nout + 1));
  if (!outm) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nout; i++) {
    ag_meta_join(&outm[i], graph_meta(a->g, m.oa.v[i]), graph_meta(b->g, m.ob.v[i]));
    graph_add_output(a->g, m.oa.v[i]);
    graph_add_output(b->g, m.ob.v[i]);
  }
  AgBody *bodies[2] = {a, b};
  GraphRef *u;
  int nu = ag_union_caps(bodies, 2, &u);
  ag_align_inputs(a, 0, u, nu, cx->g, NULL);
  ag_align_inputs(b, 0, u, nu, cx->g, NULL);
  GraphRef *in = malloc(sizeof(GraphRef) * (size_t)(nu + 1));
  if (!in) rt_throw(ERR_MEMORY, "out of memory");
  in[0] = pred;
  if (nu) memcpy(in + 1, u, sizeof(GraphRef) * (size_t)nu);
  int id = ag_add_node(cx, GN_COND, base, nout, outm, nu + 1, in, a, b, val_undef());
  free(in);
  free(u);
  free(outm);
  free(m.oa.v);
  free(m.ob.v);
  Val *outs = malloc(sizeof(Val) * (size_t)(nout + 1));
  if (!outs) rt_throw(ERR_MEMORY, "out of memory");
  /* TF's cond_v2 returns an identity of each If output, made in the cond's scope: 'cond/Identity', 'cond/Identity_1' */
  char scope[300];
  snprintf(scope, sizeof scope, "%s/", cx->g->nodes[id].name);
  graph_scope_push(scope);
  for (int i = 0; i < nout; i++) {
    Val o = trace_sym(cx->g, (GraphRef){id, i});
    int mark = rt_hold_val(o);   /* released when a throw unwinds */
    outs[i] = op_apply1(OP_IDENTITY, o);
    rt_unhold(mark);
    val_decref(o);
  }
  graph_scope_pop();
  Val r = nest_unflatten(tmpl, outs);
  for (int i = 0; i < nout; i++) val_decref(outs[i]);
  free(outs);
  val_decref(tmpl);
  return r;
}

/* ---- if statements ------------------------------------------------------------------------------ */

typedef struct AgIf {
  Val fn, get_state, set_state, init, names;
  int nouts, loc;
  const char *branch;         /* 'main' / 'else' */
} AgIf;

static Val ag_if_run(void *ud, TraceCtx *bx) {
  (void)bx;
  AgIf *s = ud;
  val_decref(ag_call1(s->set_state, s->init));
  ag_call0_void(s->fn);
  Val st = ag_call0(s->get_state);
  tfs_i64 n, nn;
  const Val *items, *names;
  if (!seq_items(st, &n, &items)) rt_throw(ERR_TYPE, "ag.if_stmt: get_state must return a tuple");
  seq_items(s->names, &nn, &names);
  int nouts = s->nouts < n ? s->nouts : (int)n;
  for (int i = 0; i < nouts; i++) {
    const char *nm = i < nn && val_is(names[i], &str_type) ? str_cstr(names[i]) : "?";
    /* the state holds the branch's symbolic tensors (and so the graph): drop it before failing */
    if (ag_is_undef(items[i])) {
      val_decref(st);
      ag_fail(s->loc, ERR_VALUE, "'%s' must also be initialized in the %s branch", nm, s->branch);
    }
    if (ag_probe_depth) continue;   /* a return inside a loop: the other branch's value comes from a later iteration */
    if (ag_is_retval(items[i])) {
      val_decref(st);
      ag_fail(s->loc, ERR_VALUE, "the %s branch must also have a return statement", s->branch);
    }
  }
  Val r = rt_tuple(nouts, items);
  val_decref(st);
  /* A Variable as a branch's output is read inside the branch, as cond_v2
   * does: under a tape the read is recorded there, so the cond's gradient
   * reaches the Variable (`result = v0` in one branch). */
  Tuple *rt = (Tuple *)r.u.o;
  for (int i = 0; i < nouts && op_tape_nactive; i++)
    if (val_is(rt->items[i], &variable_type)) {
      Val rd = op_apply1(OP_READ_VARIABLE, rt->items[i]);
      val_decref(rt->items[i]);
      rt->items[i] = rd;
    }
  return r;
}

/* Both branches of a staged if traced and merged into one cond node; a branch
 * that fails to trace releases the other's graph (the state is the caller's hold). */
static Val ag_if_branches(TraceCtx *cx, GraphRef pred, AgIf *s, Val fn_else, Val names, AgBody *ba, AgBody *bb) {
  memset(ba, 0, sizeof *ba);
  memset(bb, 0, sizeof *bb);
  ba->tmpl = bb->tmpl = val_undef();
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    ag_trace_body(cx, "cond_true", ag_if_run, s, ba);
    s->fn = fn_else;
    s->branch = "else";
    ag_trace_body(cx, "cond_false", ag_if_run, s, bb);
    Val merged = ag_build_cond(cx, pred, ba, bb, names, s->loc, "cond");
    rt_try_pop(&t);
    return merged;
  }
  ag_body_free(ba);
  ag_body_free(bb);
  rt_rethrow(&t);
}

/* A branch of an if statement run again for its gradient (gradtape.c): the
 * branch's outputs from the state before the if; the caller's state is kept. */
static Val ag_if_rerun(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  const Val *s = ((Tuple *)self.u.o)->items;   /* (fn, get_state, set_state, init, nouts) */
  Val saved = ag_call0(s[1]);
  val_decref(ag_call1(s[2], s[3]));
  ag_call0_void(s[0]);
  Val st = ag_call0(s[1]);
  val_decref(ag_call1(s[2], saved));
  val_decref(saved);
  tfs_i64 n2;
  const Val *items;
  seq_items(st, &n2, &items);
  Val r = rt_tuple(s[4].u.i < n2 ? (int)s[4].u.i : (int)n2, items);
  val_decref(st);
  return r;
}
static Val ag_if_rerun_new(Val fn, Val get_state, Val set_state, Val init, int nouts) {
  Val st = tuple_pack(5, fn, get_state, set_state, init, val_int(nouts));
  Val b = builtin_new("if_stmt.rerun", ag_if_rerun, st, NULL);
  val_decref(st);
  return b;
}

static Val ag_if_stmt(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.if_stmt", .sig = "cond, body, orelse, get_state, set_state, symbol_names, nouts"};
  Val a[7];
  args_parse(&spec, n, args, kw, a);
  if (!ag_staged(a[0])) {
    ag_call0_void(rt_truthy(a[0]) ? a[1] : a[2]);
    return val_none();
  }
  int loc = rt_cur_loc;
  TraceCtx *cx = trace_current();
  GraphRef pred = ag_condition(cx, a[0], "if statement", loc);
  int64_t nouts = 0;
  if (!val_as_int(a[6], &nouts)) rt_throw(ERR_TYPE, "ag.if_stmt: nouts must be an int");
  Val init = ag_call0(a[3]);
  int imark = rt_hold_val(init);   /* an error unwinding through the if releases the state (and rng below) */
  tfs_i64 ninit;
  const Val *iitems;
  if (!seq_items(init, &ninit, &iitems)) rt_throw(ERR_TYPE, "ag.if_stmt: get_state must return a tuple");
  AgIf s = {a[1], a[3], a[4], init, a[5], (int)nouts, loc, "main"};
  TapeRegion tr = {0};   /* gradient tapes: the branches' entries are replaced by one for the cond */
  if (op_tape_nactive) tape_region_begin(&tr);
  Val rng = tr.n ? op_apply(&op_defs[OP_RNG_STATE], 0, NULL, NULL) : val_none();   /* replayed by the gradient */
  int rmark = rt_hold_val(rng);
  AgBody ba, bb;
  Val merged = ag_if_branches(cx, pred, &s, a[2], a[5], &ba, &bb);
  if (tr.n) {
    Val rt = ag_if_rerun_new(a[1], a[3], a[4], init, (int)nouts), rf = ag_if_rerun_new(a[2], a[3], a[4], init, (int)nouts);
    gradtape_region_end(&tr, a[0], rt, rf, merged, rng);
    val_decref(rt);
    val_decref(rf);
  }
  rt_unhold(rmark);
  val_decref(rng);
  ag_body_free(&ba);
  ag_body_free(&bb);
  /* the state after the if: merged outputs, then the input-only variables */
  tfs_i64 nm;
  const Val *mitems;
  seq_items(merged, &nm, &mitems);
  Val fin = tuple_new(ninit);
  for (tfs_i64 i = 0; i < ninit; i++) ((Tuple *)fin.u.o)->items[i] = val_incref(i < nm ? mitems[i] : iitems[i]);
  val_decref(ag_call1(a[4], fin));
  val_decref(fin);
  val_decref(merged);
  rt_unhold(imark);
  val_decref(init);
  rt_cur_loc = loc;
  return val_none();
}

/* tf.cond / ag.if_exp / lazy and/or: branches are thunks returning values. */
typedef struct AgThunk { Val fn; Val value; } AgThunk;

static Val ag_thunk_run(void *ud, TraceCtx *bx) {
  (void)bx;
  AgThunk *t = ud;
  if (!val_is_undef(t->fn)) return ag_call0(t->fn);
  return val_incref(t->value);
}

/* A cond branch run again for its gradient: the thunk called again, or its value. */
static Val ag_thunk_rerun(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  const Val *s = ((Tuple *)self.u.o)->items;   /* (fn or None, value) */
  return s[0].tag != VT_NONE ? ag_call0(s[0]) : val_incref(s[1]);
}
static Val ag_thunk_rerun_new(const AgThunk *t) {
  Val st = tuple_pack(2, val_is_undef(t->fn) ? val_none() : t->fn, val_is_undef(t->value) ? val_none() : t->value);
  Val b = builtin_new("cond.rerun", ag_thunk_rerun, st, NULL);
  val_decref(st);
  return b;
}

/* cond(pred, a, b) where each side is a thunk (fn) or a value (fn undefined). */
static Val ag_cond_thunks(Val pred, AgThunk *ta, AgThunk *tb, const char *what, const char *base) {
  int loc = rt_cur_loc;
  TraceCtx *cx = trace_current();
  GraphRef p = ag_condition(cx, pred, what, loc);
  TapeRegion tr = {0};
  if (op_tape_nactive) tape_region_begin(&tr);
  Val rng = tr.n ? op_apply(&op_defs[OP_RNG_STATE], 0, NULL, NULL) : val_none();   /* replayed by the gradient */
  int rmark = rt_hold_val(rng);
  AgBody ba, bb;
  ag_trace_body(cx, "cond_true", ag_thunk_run, ta, &ba);
  ag_trace_body(cx, "cond_false", ag_thunk_run, tb, &bb);
  Val r = ag_build_cond(cx, p, &ba, &bb, val_undef(), loc, base);
  if (tr.n) {
    Val rt = ag_thunk_rerun_new(ta), rf = ag_thunk_rerun_new(tb);
    gradtape_region_end(&tr, pred, rt, rf, r, rng);
    val_decref(rt);
    val_decref(rf);
  }
  rt_unhold(rmark);
  val_decref(rng);
  ag_body_free(&ba);
  ag_body_free(&bb);
  rt_cur_loc = loc;
  return r;
}

static Val ag_if_exp(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.if_exp", .sig = "cond, if_true, if_false, expr_repr=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  if (!ag_staged(a[0])) return ag_call0(rt_truthy(a[0]) ? a[1] : a[2]);
  AgThunk ta = {a[1], val_undef()}, tb = {a[2], val_undef()};
  return ag_cond_thunks(a[0], &ta, &tb, "if expression", "cond");
}

//! tf.cond(pred, true_fn=None, false_fn=None, name=None)
//!   Calls true_fn() if pred is true, else false_fn(). With a Python bool only that branch runs; with a bool tensor
//!   inside tf.function both branches are traced into one If op, and they must return the same structure.
static Val tf_cond_fn(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.cond", .sig = "pred, true_fn=None, false_fn=None, name=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  if (a[1].tag == VT_NONE || a[2].tag == VT_NONE) rt_throw(ERR_TYPE, "tf.cond: true_fn and false_fn are required");
  if (!ag_staged(a[0])) {
    Tensor *t = val_as_tensor(a[0]);
    if (t && t->size != 1) rt_throw(ERR_INVALID_ARGUMENT, "tf.cond: the predicate must be a scalar");
    return ag_call0(rt_truthy(a[0]) ? a[1] : a[2]);
  }
  AgThunk ta = {a[1], val_undef()}, tb = {a[2], val_undef()};
  /* name=: the If node's name (TF's cond_v2 scope), its outputs' identities under it ('pick/Identity') */
  return ag_cond_thunks(a[0], &ta, &tb, "tf.cond", val_is(a[3], &str_type) && str_len(a[3]) ? str_cstr(a[3]) : "cond");
}

/* and_/or_: the first operand decides lazily; on tensors, a graph cond. */
static Val ag_and_or(const char *what, bool is_and, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec_and = {.what = "ag.and_", .sig = "a, b"}, spec_or = {.what = "ag.or_", .sig = "a, b"};
  Val a[2];
  args_parse(is_and ? &spec_and : &spec_or, n, args, kw, a);
  Val x = ag_call0(a[0]);
  if (!ag_staged(x)) {
    if (rt_truthy(x) == is_and) {
      val_decref(x);
      return ag_call0(a[1]);
    }
    return x;
  }
  AgThunk other = {a[1], val_undef()}, self = {val_undef(), x};
  Val r = is_and ? ag_cond_thunks(x, &other, &self, what, "cond") : ag_cond_thunks(x, &self, &other, what, "cond");
  val_decref(x);
  return r;
}

static Val ag_and(Val self, int n, const Val *args, const Kw *kw) { return ag_and_or("and", true, n, args, kw); }
static Val ag_or(Val self, int n, const Val *args, const Kw *kw) { return ag_and_or("or", false, n, args, kw); }

static Val ag_not(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.not_", .sig = "a"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  /* TF's not_: a tensor (eager or traced) gives a tensor */
  if (val_is_tensor(a[0]) || val_is(a[0], &variable_type)) return op_apply1(OP_LOGICAL_NOT, a[0]);
  return val_bool(!rt_truthy(a[0]));
}

static Val ag_assert_stmt(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.assert_stmt", .sig = "expression1, expression2=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (!ag_staged(a[0])) {
    if (rt_truthy(a[0])) return val_none();
    Val msg = a[1].tag == VT_NONE || a[1].tag == VT_UNDEF ? val_undef() : ag_call0(a[1]);
    rt_assert_fail(msg);
  }
  /* a graph assert: fails when the graph runs */
  Val msg = a[1].tag == VT_NONE || a[1].tag == VT_UNDEF ? str_from_cstr("Assertion error") : ag_call0(a[1]);
  Val smsg = str_of(msg);
  val_decref(msg);
  Val in[2] = {a[0], val_bool(true)};
  OpAttrs at = {2, {smsg, val_none()}};
  Val r = op_apply(&op_defs[OP_ASSERT_EQUAL], 2, in, &at);
  val_decref(smsg);
  val_decref(r);
  return val_none();
}

/* ---- loops ------------------------------------------------------------------------------------------ */

/* A loop, abstracted over where its state lives (ag's get/set_state, or
 * tf.while_loop's loop_vars) and what it iterates. */
typedef struct AgLoop {
  Val (*get)(struct AgLoop *l);               /* the state: a tuple (owned) */
  void (*set)(struct AgLoop *l, Val state);   /* borrowed */
  Val (*test)(struct AgLoop *l);              /* while: the condition (owned); NULL for for-loops */
  Val (*extra)(struct AgLoop *l);             /* for: the extra test (owned) or NULL */
  void (*body)(struct AgLoop *l, Val elem);   /* elem: the for element (VT_UNDEF for while) */
  Val fget, fset, ftest, fextra, fbody;       /* the Python functions behind them */
  Val box;                                    /* tf.while_loop: a list holding the loop vars */
  Val names;                                  /* tuple of state names (for errors), or VT_UNDEF */
  Val opts;                                   /* dict of loop options, or VT_UNDEF */
  Val shape_invariants;                       /* tf.while_loop: per loop var (positional), or VT_UNDEF */
  Val iter;                                   /* for over a tensor: the tensor */
  int loc;
} AgLoop;

/* The name of state variable i, for errors. */
static const char *ag_loop_name(AgLoop *l, int i, char *buf, size_t n) {
  tfs_i64 nn;
  const Val *names;
  if (!val_is_undef(l->names) && seq_items(l->names, &nn, &names) && i < nn && val_is(names[i], &str_type))
    return str_cstr(names[i]);
  snprintf(buf, n, "loop_vars[%d]", i);
  return buf;
}

/* One leaf of the loop state: a tensor carried by the loop, or a host value
 * that must stay the same. */
typedef struct AgLeaf {
  GraphRef init;              /* in the enclosing graph */
  TMeta m;                    /* the invariant meta */
  int var;                    /* state variable it belongs to */
  Val orig;                   /* the initial value (borrowed from the initial state) */
} AgLeaf;

typedef struct AgLeaves { AgLeaf *v; int n, cap; } AgLeaves;

static void ag_leaves_push(AgLeaves *lv, AgLeaf x) {
  if (lv->n == lv->cap) {
    int cap = lv->cap ? lv->cap * 2 : 8;
    AgLeaf *v = realloc(lv->v, sizeof(AgLeaf) * (size_t)cap);
    if (!v) rt_throw(ERR_MEMORY, "out of memory");
    lv->v = v;
    lv->cap = cap;
  }
  lv->v[lv->n++] = x;
}

/* Flatten the initial state: tensors and host numbers become carried
 * tensors (numbers converted, as TF's while_loop does); other host values
 * stay in the template and must not change. */
static Val ag_loop_flatten_init(TraceCtx *cx, AgLoop *l, Val v, int var, AgLeaves *lv);

struct LoopFlattenCtx { TraceCtx *cx; AgLoop *l; int var; AgLeaves *lv; };
static Val loop_flatten_elem(void *ctx, Val e) {
  struct LoopFlattenCtx *fc = ctx;
  return ag_loop_flatten_init(fc->cx, fc->l, e, fc->var, fc->lv);
}

static Val ag_loop_flatten_init(TraceCtx *cx, AgLoop *l, Val v, int var, AgLeaves *lv) {
  char nb[32];
  if (ag_is_undef(v) || ag_is_retval(v))
    ag_fail(l->loc, ERR_VALUE, "'%s' must be defined before the loop", ag_loop_name(l, var, nb, sizeof nb));
  GraphRef r;
  bool t = trace_ref(cx, v, &r);
  if (!t && ag_convertible(v)) {
    Tensor *c = tensor_from_val(v, -1);
    r = (GraphRef){graph_add_const(cx->g, c), 0};
    tensor_release(c);
    t = true;
  }
  if (t) {
    AgLeaf leaf = {r, *graph_meta(cx->g, r), var, v};
    ag_leaves_push(lv, leaf);
    return nest_leaf(lv->n - 1);
  }
  struct LoopFlattenCtx fc = {cx, l, var, lv};
  return nest_map(v, loop_flatten_elem, &fc);
}

/* Shape invariants: set_loop_options(shape_invariants=[(v, shape)]) names
 * values by identity; tf.while_loop gives them by position. */
static void ag_apply_invariant(AgLoop *l, AgLeaf *leaf, Val shape) {
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  if (!val_as_tshape(shape, &rank, dims))
    rt_throw(ERR_TYPE, "shape_invariants: expected a TensorShape or a list of dimensions, got %s", val_type_name(shape));
  bool ok = rank < 0 || rank == leaf->m.rank;
  for (int i = 0; ok && rank >= 0 && i < rank; i++) ok = dims[i] < 0 || dims[i] == leaf->m.shape[i];
  if (!ok) {
    char nb[32];
    StrBuf a, b;
    sb_init(&a);
    sb_init(&b);
    graph_shape_text(&a, leaf->m.rank, leaf->m.shape);
    graph_shape_text(&b, rank, dims);
    char msg[512];
    snprintf(msg, sizeof msg, "'%s' has shape %s before the loop, which is not compatible with the shape invariant %s",
             ag_loop_name(l, leaf->var, nb, sizeof nb), a.data, b.data);
    sb_free(&a);
    sb_free(&b);
    ag_fail(l->loc, ERR_VALUE, "%s", msg);
  }
  leaf->m.rank = rank;
  for (int i = 0; i < rank; i++) leaf->m.shape[i] = dims[i];
}

static void ag_loop_invariants(AgLoop *l, AgLeaves *lv) {
  if (!val_is_undef(l->shape_invariants) && l->shape_invariants.tag != VT_NONE) {
    tfs_i64 n;
    const Val *items;
    if (!seq_items(l->shape_invariants, &n, &items)) items = &l->shape_invariants, n = 1;
    for (int i = 0; i < lv->n && i < n; i++)
      if (items[i].tag != VT_NONE) ag_apply_invariant(l, &lv->v[i], items[i]);
  }
  if (val_is_undef(l->opts) || !val_is(l->opts, &dict_type)) return;
  Val key = str_from_cstr("shape_invariants");
  Val inv = dict_get(l->opts, key);
  val_decref(key);
  if (val_is_undef(inv)) return;
  tfs_i64 n;
  const Val *pairs;
  if (seq_items(inv, &n, &pairs))
    for (tfs_i64 i = 0; i < n; i++) {
      tfs_i64 np;
      const Val *pv;
      if (!seq_items(pairs[i], &np, &pv) || np != 2)
        rt_throw(ERR_TYPE, "shape_invariants must be a list of (variable, shape) pairs");
      for (int k = 0; k < lv->n; k++)
        if (pv[0].tag == VT_OBJ && lv->v[k].orig.tag == VT_OBJ && pv[0].u.o == lv->v[k].orig.u.o)
          ag_apply_invariant(l, &lv->v[k], pv[1]);
    }
  val_decref(inv);
}

static tfs_i64 ag_loop_max_iter(AgLoop *l, Val given) {
  Val v = given;
  bool owned = false;
  if ((v.tag == VT_UNDEF || v.tag == VT_NONE) && val_is(l->opts, &dict_type)) {
    Val key = str_from_cstr("maximum_iterations");
    v = dict_get(l->opts, key);
    val_decref(key);
    owned = true;
  }
  int64_t mi = -1;
  if (v.tag != VT_UNDEF && v.tag != VT_NONE) {
    Tensor *t = val_as_tensor(v);
    if (t && t->sym) {
      Graph *g;
      GraphRef r;
      trace_sym_ref(t, &g, &r);
      Tensor *st = trace_static_value(g, r);
      if (!st) ag_fail(l->loc, ERR_VALUE, "maximum_iterations must be known while tracing");
      mi = tensor_get_i(st, 0);
      tensor_release(st);
    } else if (!val_as_int(v, &mi)) {
      rt_throw(ERR_TYPE, "maximum_iterations must be an int, got %s", val_type_name(v));
    }
  }
  if (owned) val_decref(v);
  return mi;
}

/* ---- enumerate / zip over traced tensors ----------------------------------------------------- */

/* enumerate(t) or zip(t1, t2, ...) while tracing, with a traced tensor among
 * the sources: a staged iterable that ag.for_stmt turns into a graph loop
 * over dim 0 (the shortest source for zip); iterating it in Python fails as
 * iterating the traced tensor would. */
typedef struct AgStaged {
  Obj hdr;
  bool is_zip;
  Val start;                  /* enumerate: the first index (host int or tensor) */
  int n;
  Val srcs[];                 /* tensors (eager or traced) or staged iterables */
} AgStaged;

static void ag_staged_free(Obj *o) {
  AgStaged *z = (AgStaged *)o;
  val_decref(z->start);
  for (int i = 0; i < z->n; i++) val_decref(z->srcs[i]);
  free(z);
}
static void ag_staged_repr(StrBuf *b, Val v) {
  sb_puts(b, ((AgStaged *)v.u.o)->is_zip ? "<zip object>" : "<enumerate object>");
}
static Val ag_staged_iter_py(Val self) {
  (void)self;
  rt_throw(ERR_TYPE, "Iterating over a symbolic tensor is not allowed");
}
static const Type ag_staged_type = {.name = "staged iterable", .free = ag_staged_free, .repr = ag_staged_repr,
                                    .iter = ag_staged_iter_py};

Val ag_staged_iter(bool is_zip, int n, const Val *args, Val start) {
  if (!trace_active() || n < 1 || (!is_zip && n != 1)) return val_undef();
  bool staged = false;
  for (int i = 0; i < n; i++) {
    Val v = args[i];
    if (val_is(v, &ag_staged_type) || trace_val_symbolic(v)) staged = true;
    if (!(val_is(v, &ag_staged_type) || val_is(v, &tensor_type) || val_is(v, &variable_type))) return val_undef();
  }
  if (!staged) return val_undef();
  AgStaged *z = obj_new(&ag_staged_type, sizeof(AgStaged) + sizeof(Val) * (size_t)n);
  z->is_zip = is_zip;
  z->start = val_incref(start);
  z->n = 0;
  Val res = val_obj(z);
  int mark = rt_hold_val(res);
  for (int i = 0; i < n; i++) {
    z->srcs[i] = val_is(args[i], &variable_type) ? op_apply1(OP_READ_VARIABLE, args[i]) : val_incref(args[i]);
    z->n++;
  }
  rt_unhold(mark);
  return res;
}

/* The iteration count of a for-loop source (owned: an int32 tensor). */
static Val ag_iter_count(Val iter, int loc) {
  if (val_is(iter, &ag_staged_type)) {
    AgStaged *z = (AgStaged *)iter.u.o;
    Val n = ag_iter_count(z->srcs[0], loc);
    for (int i = 1; i < z->n; i++) {
      Val m = ag_iter_count(z->srcs[i], loc);
      Val both = op_apply2(OP_MINIMUM, n, m);
      val_decref(n);
      val_decref(m);
      n = both;
    }
    return n;
  }
  Tensor *it = val_as_tensor(iter);
  if (!it || it->rank < 1) ag_fail(loc, ERR_TYPE, "cannot iterate over a scalar tensor");
  if (it->shape[0] >= 0) return val_obj(tensor_from_val(val_int(it->shape[0]), DT_INT32));
  Val shp = op_apply1(OP_SHAPE, iter);
  Val key = val_int(0);
  OpAttrs at = {1, {key}};
  Val n = op_apply(&op_defs[OP_STRIDED_SLICE], 1, &shp, &at);
  val_decref(shp);
  return n;
}

/* The element of a for-loop source at an int32 scalar index (owned). */
static Val ag_iter_elem(Val iter, Val index) {
  if (val_is(iter, &ag_staged_type)) {
    AgStaged *z = (AgStaged *)iter.u.o;
    Val t = tuple_new(z->is_zip ? z->n : 2);
    int mark = rt_hold_val(t);
    if (z->is_zip) {
      for (int i = 0; i < z->n; i++) ((Tuple *)t.u.o)->items[i] = ag_iter_elem(z->srcs[i], index);
    } else {
      bool zero = z->start.tag == VT_INT && z->start.u.i == 0;
      ((Tuple *)t.u.o)->items[0] = zero ? val_incref(index) : op_apply2(OP_ADD, index, z->start);
      ((Tuple *)t.u.o)->items[1] = ag_iter_elem(z->srcs[0], index);
    }
    rt_unhold(mark);
    return t;
  }
  Val in[2] = {iter, index};
  OpAttrs ga = {3, {val_none(), val_none(), val_int(0)}};
  return op_apply(&op_defs[OP_GATHER], 2, in, &ga);
}

typedef struct AgLoopTrace {
  AgLoop *l;
  Val tmpl;                   /* initial state template (markers: leaf indexes) */
  AgLeaves *lv;
  bool is_for;                /* iterating a tensor: index < n is the test */
  bool has_index;             /* a for-loop's iteration index is the bodies' third input (after TF's two) */
  bool capped;                /* maximum_iterations given: the condition also tests loop_counter < maximum */
  char scope[240];            /* the While's name ('while', 'while_1') */
  const char *ctr_names[2];   /* its loop counter's and maximum_iterations' names ('while/loop_counter'): the
                               * bodies' placeholders for them are named so (TensorSpec.from_tensor) */
  int nfixed;                 /* placeholders: index (for) + leaves */
  GraphRef n_iter;            /* for: the iteration count, in the enclosing graph */
  Val *stacks;                /* under a gradient tape: one stack per leaf, pushed each iteration (loopgrad.c),
                               * then one for the random-draw counters at the iteration's start */
} AgLoopTrace;

/* The bodies' placeholders and the state they stand for.  TF's while_v2 gives both bodies the loop counter and
 * maximum_iterations first (placeholders named after the While's constants: 'while/loop_counter'), then the loop
 * variables (unnamed TensorSpecs: 'Placeholder', 'Placeholder_1', ...). */
static Val ag_loop_enter(AgLoopTrace *lt, TraceCtx *bx, Val *counters, Val *index, bool push) {
  AgLeaves *lv = lt->lv;
  Val *ph = malloc(sizeof(Val) * (size_t)(lv->n + 1));
  if (!ph) rt_throw(ERR_MEMORY, "out of memory");
  TMeta cm = {DT_INT32, 0, {0}};
  for (int i = 0; i < 2; i++) counters[i] = trace_placeholder(bx->g, lt->ctr_names[i], &cm);
  if (lt->has_index) {
    TMeta im = {DT_INT32, 0, {0}};
    *index = trace_placeholder(bx->g, "Placeholder", &im);
  }
  for (int i = 0; i < lv->n; i++) ph[i] = trace_placeholder(bx->g, "Placeholder", &lv->v[i].m);
  for (int i = 0; push && lt->stacks && i < lv->n; i++) {   /* the iteration's state, for the backward loop */
    OpAttrs at = {1, {lt->stacks[i]}};
    val_decref(op_apply(&op_defs[OP_STACK_PUSH], 1, &ph[i], &at));
  }
  if (push && lt->stacks) {   /* the backward iteration draws the forward's random numbers again */
    OpAttrs at = {1, {lt->stacks[lv->n]}};
    Val st = op_apply(&op_defs[OP_RNG_STATE], 0, NULL, NULL);
    val_decref(op_apply(&op_defs[OP_STACK_PUSH], 1, &st, &at));
    val_decref(st);
  }
  Val state = nest_unflatten(lt->tmpl, ph);
  for (int i = 0; i < lv->n; i++) val_decref(ph[i]);
  free(ph);
  return state;
}

static Val ag_loop_cond_run(void *ud, TraceCtx *bx) {
  AgLoopTrace *lt = ud;
  AgLoop *l = lt->l;
  Val index = val_undef(), cnt[2] = {val_undef(), val_undef()};
  Val state = ag_loop_enter(lt, bx, cnt, &index, false);
  l->set(l, state);
  val_decref(state);
  Val c = val_undef();
  int mark = rt_hold_ref(&index);   /* a condition that fails to stage drops them */
  rt_hold_ref(&cnt[0]);
  rt_hold_ref(&cnt[1]);
  rt_hold_ref(&c);
  if (lt->is_for) {
    /* index < n (n captured from the enclosing graph) */
    Graph *og = bx->g->parent;
    Val nv = trace_sym(og, lt->n_iter);
    c = op_apply2(OP_LESS, index, nv);
    val_decref(nv);
    if (l->extra) {
      Val e = l->extra(l);
      if (ag_staged(e) || val_is_tensor(e)) {
        Val both = op_apply2(OP_LOGICAL_AND, c, e);
        val_decref(c);
        c = both;
      } else if (!rt_truthy(e)) {
        val_decref(c);
        c = val_obj(tensor_from_val(val_bool(false), DT_BOOL));
      }
      val_decref(e);
    }
  } else {
    c = l->test(l);
    if (!val_is_tensor(c) && !val_is(c, &variable_type)) {
      Tensor *t = tensor_from_val(val_bool(rt_truthy(c)), DT_BOOL);
      val_decref(c);
      c = val_obj(t);
    }
  }
  GraphRef r = ag_condition(bx, c, "while loop", l->loc);
  Val res = trace_sym(bx->g, r);
  if (lt->capped) {   /* while_v2's wrapped_cond: logical_and(loop_counter < maximum_iterations, pred) */
    Val less = op_apply2(OP_LESS, cnt[0], cnt[1]);
    Val both = op_apply2(OP_LOGICAL_AND, less, res);
    val_decref(less);
    val_decref(res);
    res = both;
  }
  rt_unhold(mark);
  val_decref(c);
  val_decref(index);
  val_decref(cnt[0]);
  val_decref(cnt[1]);
  return res;
}

static Val ag_loop_body_run(void *ud, TraceCtx *bx) {
  AgLoopTrace *lt = ud;
  AgLoop *l = lt->l;
  Val index = val_undef(), cnt[2] = {val_undef(), val_undef()};
  Val state = ag_loop_enter(lt, bx, cnt, &index, true);
  l->set(l, state);
  val_decref(state);
  Val elem = val_undef();
  int mark = rt_hold_ref(&index);   /* a body that fails to stage drops them */
  rt_hold_ref(&cnt[0]);
  rt_hold_ref(&cnt[1]);
  rt_hold_ref(&elem);
  if (lt->is_for) elem = ag_iter_elem(l->iter, index);
  l->body(l, elem);
  val_decref(elem);
  elem = val_undef();
  Val st = l->get(l);
  Val next = val_undef();
  if (lt->has_index) next = op_apply2(OP_ADD, index, val_int(1));
  /* while_v2's wrapped_body returns loop_counter + 1 and maximum_iterations (made after the user's body) */
  Val cnext = rt_binop(BIN_ADD, cnt[0], val_int(1));   /* the operator: "add", "add/y" */
  rt_unhold(mark);
  Val res = tuple_pack(4, st, next, cnext, cnt[1]);
  val_decref(st);
  val_decref(next);
  val_decref(cnext);
  val_decref(index);
  val_decref(cnt[0]);
  val_decref(cnt[1]);
  return res;
}

/* Check one carried value after an iteration against its invariant. */
static void ag_check_leaf(AgLoop *l, const AgLeaf *leaf, const TMeta *exit) {
  char nb[32];
  const char *nm = ag_loop_name(l, leaf->var, nb, sizeof nb);
  if (exit->dtype != leaf->m.dtype)
    ag_fail(l->loc, ERR_TYPE, "'%s' has dtype %s before the loop, but dtype %s after one iteration", nm,
            dtype_info[leaf->m.dtype].name, dtype_info[exit->dtype].name);
  bool ok = leaf->m.rank < 0 || leaf->m.rank == exit->rank;
  for (int i = 0; ok && leaf->m.rank >= 0 && i < leaf->m.rank; i++)
    ok = leaf->m.shape[i] < 0 || leaf->m.shape[i] == exit->shape[i];
  if (!ok) {
    StrBuf a, b;
    sb_init(&a);
    sb_init(&b);
    graph_shape_text(&a, leaf->m.rank, leaf->m.shape);
    graph_shape_text(&b, exit->rank, exit->shape);
    char msg[600];
    snprintf(msg, sizeof msg,
             "'%s' has shape %s before the loop, but shape %s after one iteration; use "
             "tf.autograph.experimental.set_loop_options to set shape invariants",
             nm, a.data, b.data);
    sb_free(&a);
    sb_free(&b);
    ag_fail(l->loc, ERR_VALUE, "%s", msg);
  }
}

/* Match the state after an iteration (template `after`, leaves in body
 * refs) against the initial template; returns the body's output refs. */
static void ag_match_state(AgLoop *l, AgBody *body, Val init, Val after, int var, AgLeaves *lv, GraphRef *outs) {
  char nb[32];
  int idx, ia;
  if (nest_is_leaf(init, &idx)) {
    GraphRef r;
    if (nest_is_leaf(after, &ia)) r = body->refs.v[ia];
    else if (ag_convertible(after)) {
      Tensor *c = tensor_from_val(after, -1);
      r = (GraphRef){graph_add_const(body->g, c), 0};
      tensor_release(c);
    } else {
      ag_fail(l->loc, ERR_TYPE, "'%s' must have the same nested structure before the loop and after one iteration",
              ag_loop_name(l, var, nb, sizeof nb));
    }
    ag_check_leaf(l, &lv->v[idx], graph_meta(body->g, r));
    outs[idx] = r;
    return;
  }
  if (val_is(init, &tensorarray_type)) {   /* a composite: its flow is carried */
    if (!val_is(after, &tensorarray_type))
      ag_fail(l->loc, ERR_TYPE, "'%s' must have the same nested structure before the loop and after one iteration",
              ag_loop_name(l, var, nb, sizeof nb));
    ag_match_state(l, body, tensorarray_flow(init), tensorarray_flow(after), var, lv, outs);
    return;
  }
  if (ag_is_struct(init)) {
    tfs_i64 n0, n1;
    const Val *i0, *i1;
    if (val_is(init, &list_type) && val_is(after, &list_type) && seq_items(init, &n0, &i0) && seq_items(after, &n1, &i1) &&
        n0 != n1)
      ag_fail(l->loc, ERR_TYPE, "'%s' is a Python list appended to inside a TensorFlow loop; use tf.TensorArray or tf.concat to "
              "accumulate values", ag_loop_name(l, var, nb, sizeof nb));
    if (after.tag != VT_OBJ || after.u.o->type != init.u.o->type)
      ag_fail(l->loc, ERR_TYPE, "'%s' must have the same nested structure before the loop and after one iteration",
              ag_loop_name(l, var, nb, sizeof nb));
    if (val_is(init, &dict_type)) {
      Dict *d = (Dict *)init.u.o;
      if (((Dict *)after.u.o)->len != d->len)
        ag_fail(l->loc, ERR_TYPE, "'%s' must have the same nested structure before the loop and after one iteration",
                ag_loop_name(l, var, nb, sizeof nb));
      for (tfs_i64 i = 0; i < d->used; i++) {
        if (val_is_undef(d->keys[i])) continue;
        Val e = dict_get(after, d->keys[i]);
        if (val_is_undef(e))
          ag_fail(l->loc, ERR_TYPE, "'%s' must have the same nested structure before the loop and after one iteration",
                  ag_loop_name(l, var, nb, sizeof nb));
        ag_match_state(l, body, d->vals[i], e, var, lv, outs);
        val_decref(e);
      }
      return;
    }
    seq_items(init, &n0, &i0);
    seq_items(after, &n1, &i1);
    if (n0 != n1)
      ag_fail(l->loc, ERR_TYPE, "'%s' must have the same nested structure before the loop and after one iteration",
              ag_loop_name(l, var, nb, sizeof nb));
    for (tfs_i64 i = 0; i < n0; i++) ag_match_state(l, body, i0[i], i1[i], var, lv, outs);
    return;
  }
  if (!(after.tag == init.tag && (after.tag != VT_OBJ ? val_eq(after, init) : after.u.o == init.u.o)))
    ag_fail(l->loc, ERR_TYPE, "'%s' is a Python value that changes inside a TensorFlow loop; make it a tensor before the loop",
            ag_loop_name(l, var, nb, sizeof nb));
}

/* One iteration staged apart, to learn what the variables first bound in
 * the loop become (TF's _try_handling_undefineds). */
typedef struct AgProbeRun { AgLoop *l; Val init; } AgProbeRun;

/* Python numbers entering the probe become placeholders of their dtype, as
 * TF's autocast_to_tensor does: the loop will carry them as tensors, so what
 * the body computes from them (tf.range(i)) must not fold to one value. */
static Val ag_probe_autocast(void *ud, Val v) {
  if (val_is(v, &list_type) || val_is(v, &tuple_type) || val_is(v, &dict_type))
    return nest_map(v, ag_probe_autocast, ud);
  if (v.tag != VT_INT && v.tag != VT_FLOAT && v.tag != VT_BOOL) return val_incref(v);
  Tensor *c = tensor_from_val(v, -1);
  TMeta m = {c->dtype, 0, {0}};
  tensor_release(c);
  return trace_placeholder(((TraceCtx *)ud)->g, "probe_in", &m);
}

static Val ag_loop_probe_run(void *ud, TraceCtx *bx) {
  AgProbeRun *p = ud;
  AgLoop *l = p->l;
  Val cast = ag_probe_autocast(bx, p->init);
  int mark = rt_hold_val(cast);
  l->set(l, cast);
  rt_unhold(mark);
  val_decref(cast);
  Val elem = val_undef();
  if (l->test == NULL) {
    Val zero = val_obj(tensor_from_val(val_int(0), DT_INT32));
    elem = ag_iter_elem(l->iter, zero);
    val_decref(zero);
  }
  int emark = rt_hold_val(elem);   /* a body that fails to stage drops it */
  l->body(l, elem);
  rt_unhold(emark);
  val_decref(elem);
  return l->get(l);
}

/* Placeholder initial values made from the probe (TF's _placeholder_value):
 * each zero tensor remembers the meta its leaf carries through the loop. */
typedef struct AgInv { const Obj *o; TMeta m; } AgInv;
typedef struct AgInvs { AgInv *v; int n, cap; AgBody *pb; bool ok; } AgInvs;

static Val ag_probe_zeros(void *ud, Val t) {
  AgInvs *iv = ud;
  int idx;
  if (nest_is_leaf(t, &idx)) {
    /* zeros of its dtype; unknown dims start at 0 and stay unknown */
    const TMeta *m = graph_meta(iv->pb->g, iv->pb->refs.v[idx]);
    tfs_i64 dims[TFS_MAX_RANK];
    int rank = m->rank < 0 ? 0 : m->rank;
    for (int d = 0; d < rank; d++) dims[d] = m->shape[d] < 0 ? 0 : m->shape[d];
    Tensor *z = tensor_new(m->dtype, rank, dims);
    ew_fill(z, 0, 0);
    if (iv->n == iv->cap) {
      int cap = iv->cap ? iv->cap * 2 : 8;
      AgInv *v = realloc(iv->v, sizeof(AgInv) * (size_t)cap);
      if (!v) {
        tensor_release(z);
        rt_throw(ERR_MEMORY, "out of memory");
      }
      iv->v = v;
      iv->cap = cap;
    }
    iv->v[iv->n++] = (AgInv){(const Obj *)z, *m};
    return val_obj(z);
  }
  if (t.tag == VT_INT) return val_int(0);
  if (t.tag == VT_BOOL) return val_bool(false);
  if (t.tag == VT_FLOAT) return val_float(0);
  if (val_is(t, &list_type) || val_is(t, &tuple_type) || val_is(t, &dict_type)) return nest_map(t, ag_probe_zeros, ud);
  iv->ok = false;
  return val_none();
}

static Val ag_loop_fill_undefined(TraceCtx *cx, AgLoop *l, Val init, AgInvs *invs, char *msg, size_t msgn) {
  AgProbeRun p = {l, init};
  AgBody pb;
  ag_probe_depth++;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    ag_trace_body(cx, "probe", ag_loop_probe_run, &p, &pb);
    rt_try_pop(&t);
  } else {
    ag_probe_depth--;
    if (t.kind == ERR_UNBOUND) {   /* a variable read before the loop binds it */
      tfs_i64 n0;
      const Val *v0;
      seq_items(init, &n0, &v0);
      for (tfs_i64 i = 0; i < n0; i++) {
        Val nm = ag_is_undef(v0[i]) ? ((AgUndef *)v0[i].u.o)->name : val_undef();
        if (val_is(nm, &str_type) && t.msg && strstr(t.msg, str_cstr(nm))) {
          char msg[300];
          snprintf(msg, sizeof msg, "'%s' must be defined before the loop", str_cstr(nm));
          rt_try_clear(&t);
          l->set(l, init);
          ag_fail(l->loc, ERR_VALUE, "%s", msg);
        }
      }
    }
    rt_rethrow(&t);
  }
  ag_probe_depth--;
  tfs_i64 n, na;
  const Val *iv, *av;
  seq_items(init, &n, &iv);
  seq_items(pb.tmpl, &na, &av);
  Val out = tuple_new(n);
  size_t used = 0;
  for (tfs_i64 i = 0; i < n; i++) {
    Val v = iv[i], r;
    char nb[32];
    const char *nm = ag_loop_name(l, (int)i, nb, sizeof nb);
    bool null = ag_is_undef(v) || ag_is_retval(v) || v.tag == VT_NONE;
    if (!null || i >= na) {
      r = val_incref(v);
    } else if (v.tag == VT_NONE && av[i].tag == VT_NONE) {
      r = val_none();
      null = false;
    } else {
      invs->pb = &pb;
      invs->ok = true;
      r = ag_probe_zeros(invs, av[i]);
      if (!invs->ok) {
        val_decref(r);
        val_decref(out);
        ag_body_free(&pb);
        free(invs->v);
        invs->v = NULL;
        invs->n = invs->cap = 0;
        ag_fail(l->loc, ERR_VALUE, "'%s' must be defined before the loop", nm);
      }
    }
    if (null)
      used += (size_t)snprintf(msg + used, used < msgn ? msgn - used : 0, "%s%s", used ? ", " : "loop must iterate at least once to initialize ",
                               ag_is_retval(v) ? "the function return value" : nm);
    ((Tuple *)out.u.o)->items[i] = r;
  }
  ag_body_free(&pb);
  l->set(l, out);
  return out;
}

/* ---- the body run again for the loop's gradient (loopgrad.c) ---- */

typedef struct AgRerun { Obj hdr; AgLoop l; Val tmpl; bool is_for; } AgRerun;

/* Take (inc) or drop the references the loop's Python values hold. */
static void ag_loop_refs(AgLoop *l, bool inc) {
  Val *f[] = {&l->fget, &l->fset, &l->ftest, &l->fextra, &l->fbody, &l->box, &l->names, &l->opts, &l->shape_invariants, &l->iter};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    if (inc) val_incref(*f[i]);
    else val_decref(*f[i]);
  }
}

static void ag_rerun_free(Obj *o) {
  AgRerun *r = (AgRerun *)o;
  ag_loop_refs(&r->l, false);
  val_decref(r->tmpl);
  free(r);
}
static void ag_rerun_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "<loop body>"); }
static const Type ag_rerun_type = {.name = "loop body", .free = ag_rerun_free, .repr = ag_rerun_repr};

/* The leaves of state v at the template's markers (host values as tensors of the leaf's dtype). */
static void ag_state_leaves(Val tmpl, Val v, Val *out, const Val *like) {
  int k;
  if (nest_is_leaf(tmpl, &k)) {
    Tensor *lt = val_as_tensor(like[k]);
    out[k] = val_is_tensor(v) || val_is(v, &variable_type) || !lt ? val_incref(v) : val_obj(tensor_from_val(v, lt->dtype));
    return;
  }
  tfs_i64 n, m;
  const Val *ti, *vi;
  if (val_is(tmpl, &tensorarray_type)) {
    if (val_is(v, &tensorarray_type)) ag_state_leaves(tensorarray_flow(tmpl), tensorarray_flow(v), out, like);
  } else if (val_is(tmpl, &dict_type)) {
    Dict *d = (Dict *)tmpl.u.o;
    for (tfs_i64 i = 0; i < d->used; i++) {
      if (val_is_undef(d->keys[i])) continue;
      Val e = dict_get(v, d->keys[i]);
      ag_state_leaves(d->vals[i], e, out, like);
      val_decref(e);
    }
  } else if (seq_items(tmpl, &n, &ti) && seq_items(v, &m, &vi)) {
    for (tfs_i64 i = 0; i < n && i < m; i++) ag_state_leaves(ti[i], vi[i], out, like);
  }
}

/* rerun(index, leaves): the body once from the state with these leaves
 * (element `index` for a for-loop); returns the leaves after it.  The
 * caller's state is kept. */
static Val ag_loop_rerun(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  AgRerun *r = (AgRerun *)self.u.o;
  AgLoop *l = &r->l;
  if (n != 2) rt_throw(ERR_TYPE, "loop rerun: expected (index, leaves)");
  tfs_i64 nl;
  const Val *lv;
  seq_items(args[1], &nl, &lv);
  Val saved = l->get(l);
  Val state = nest_unflatten(r->tmpl, lv);
  l->set(l, state);
  val_decref(state);
  Val elem = r->is_for ? ag_iter_elem(l->iter, args[0]) : val_undef();
  int emark = rt_hold_val(elem);
  l->body(l, elem);
  rt_unhold(emark);
  val_decref(elem);
  Val after = l->get(l);
  l->set(l, saved);
  val_decref(saved);
  Val res = tuple_new(nl);
  for (tfs_i64 i = 0; i < nl; i++) ((Tuple *)res.u.o)->items[i] = val_none();
  Val *out = ((Tuple *)res.u.o)->items;
  tfs_i64 na;
  const Val *ai;
  seq_items(after, &na, &ai);
  Val *tmp = calloc((size_t)nl + 1, sizeof(Val));
  if (!tmp) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < nl; i++) tmp[i] = val_undef();
  ag_state_leaves(r->tmpl, after, tmp, lv);
  for (tfs_i64 i = 0; i < nl; i++) out[i] = val_is_undef(tmp[i]) ? val_incref(lv[i]) : tmp[i];
  free(tmp);
  val_decref(after);
  return res;
}

static Val ag_loop_rerun_new(AgLoop *l, Val tmpl, bool is_for) {
  AgRerun *r = obj_new(&ag_rerun_type, sizeof(AgRerun));
  r->l = *l;
  ag_loop_refs(&r->l, true);
  r->tmpl = val_incref(tmpl);
  r->is_for = is_for;
  Val o = val_obj(r);
  Val b = builtin_new("while.rerun", ag_loop_rerun, o, NULL);
  val_decref(o);
  return b;
}

/* Releasers for the error hold stack: a loop body that fails to stage
 * unwinds through ag_tf_loop, which must not leak what it built so far. */
static void ag_body_release(void *b) { ag_body_free(b); }
static void ag_leaves_release(void *lv) {
  free(((AgLeaves *)lv)->v);
  ((AgLeaves *)lv)->v = NULL;
}
static void ag_invs_release(void *iv) {
  free(((AgInvs *)iv)->v);
  ((AgInvs *)iv)->v = NULL;
}

/* Stage the loop as a graph while.  Everything it owns rides the error hold
 * stack until the end, so a body that fails to stage leaks nothing. */
/* TF 2.15's _add_max_iterations_hint: in an XLA context (a jit_compile=True function or one traced inside it) a
 * for-loop over a tensor or tf.range gets maximum_iterations = its length, over the user's set_loop_options value;
 * elsewhere none (-1 here).  The length must be static here (TF passes a tensor when it is not: tfs then gives no hint;
 * over tf.range TF computes it with Sub/FloorDiv/... ops, here the While's Const holds it). */
static tfs_i64 ag_xla_len_hint(TraceCtx *cx, Val iter) {
  bool xla = false;
  for (TraceCtx *c = cx; c && !xla; c = c->outer) xla = c->xla;
  if (!xla) return -1;
  if (val_is(iter, &ag_staged_type)) {   /* zip: the shortest source */
    AgStaged *z = (AgStaged *)iter.u.o;
    tfs_i64 n = -1;
    for (int i = 0; i < z->n; i++) {
      tfs_i64 m = ag_xla_len_hint(cx, z->srcs[i]);
      if (m < 0) return -1;
      if (n < 0 || m < n) n = m;
    }
    return n;
  }
  Tensor *it = val_as_tensor(iter);
  return it && it->rank >= 1 ? it->shape[0] : -1;
}

static void ag_tf_loop(AgLoop *l, Val max_iter) {
  TraceCtx *cx = trace_current();
  int loc = l->loc;
  TapeRegion tr = {0};   /* gradient tapes: the body's entries are replaced by one for the loop */
  bool taped = false;    /* the loop's entry will be differentiated: keep each iteration's state */
  if (op_tape_nactive) {
    taped = tape_outermost_recording();
    tape_region_begin(&tr);
  }
  Val init = l->get(l), tmpl = val_undef(), stacks = val_undef(), base = val_none();
  AgInvs invs = {0};
  AgLeaves lv = {0};
  AgBody bc, bb;
  memset(&bc, 0, sizeof bc);
  memset(&bb, 0, sizeof bb);
  bc.tmpl = bb.tmpl = val_undef();
  int hmark = rt_hold_ref(&init);
  rt_hold_ref(&tmpl);
  rt_hold_ref(&stacks);
  rt_hold_ref(&base);
  rt_hold_fn(ag_invs_release, &invs);
  rt_hold_fn(ag_leaves_release, &lv);
  rt_hold_fn(ag_body_release, &bc);
  rt_hold_fn(ag_body_release, &bb);
  tfs_i64 nvars;
  const Val *vars;
  if (!seq_items(init, &nvars, &vars)) rt_throw(ERR_TYPE, "ag: get_state must return a tuple");
  /* variables first bound inside the loop get a placeholder initial value,
   * and the loop must then run at least once (TF's rule) */
  char once_msg[256] = "";
  bool require_one = false;
  for (tfs_i64 i = 0; i < nvars; i++)
    if (ag_is_undef(vars[i]) || ag_is_retval(vars[i]) || vars[i].tag == VT_NONE) require_one = true;
  if (require_one) {
    Val filled = ag_loop_fill_undefined(cx, l, init, &invs, once_msg, sizeof once_msg);
    val_decref(init);
    init = filled;
    seq_items(init, &nvars, &vars);
    require_one = once_msg[0] != 0;
  }
  tmpl = tuple_new(nvars);
  for (tfs_i64 i = 0; i < nvars; i++) ((Tuple *)tmpl.u.o)->items[i] = ag_loop_flatten_init(cx, l, vars[i], (int)i, &lv);
  for (int i = 0; i < lv.n; i++)
    for (int j = 0; j < invs.n; j++)
      if (lv.v[i].orig.tag == VT_OBJ && lv.v[i].orig.u.o == invs.v[j].o) lv.v[i].m = invs.v[j].m;
  ag_invs_release(&invs);
  ag_loop_invariants(l, &lv);
  tfs_i64 mi = ag_loop_max_iter(l, max_iter), hint = l->test == NULL ? ag_xla_len_hint(cx, l->iter) : -1;
  if (hint >= 0) mi = hint;
  AgLoopTrace lt = {.l = l, .tmpl = tmpl, .lv = &lv, .is_for = l->test == NULL, .has_index = l->test == NULL,
                    .capped = mi >= 0, .n_iter = {-1, 0}};
  if (taped && lv.n) {   /* every leaf's stack grows alike: one size says where this run's iterations start */
    stacks = tuple_new(lv.n + 1);
    for (int i = 0; i < lv.n; i++) ((Tuple *)stacks.u.o)->items[i] = accstack_new(&lv.v[i].m);
    TMeta rm;
    tfs_i64 rn = random_state_size();
    meta_set(&rm, DT_INT64, 1, &rn);
    ((Tuple *)stacks.u.o)->items[lv.n] = accstack_new(&rm);
    lt.stacks = ((Tuple *)stacks.u.o)->items;
    OpAttrs at = {1, {lt.stacks[0]}};
    base = op_apply(&op_defs[OP_STACK_SIZE], 0, NULL, &at);
  }
  /* while_v2: the While's name scope ('while', 'while_1'), and in it the first two loop variables, made
   * maximum_iterations (-1: none) first, then the loop counter (0), both int32 */
  int wtok = graph_op_scope_enter(cx->g, "while", NULL);
  snprintf(lt.scope, sizeof lt.scope, "%s", graph_scope_prefix());
  if (*lt.scope) lt.scope[strlen(lt.scope) - 1] = 0;
  GraphRef ctr0[2];
  for (int i = 1; i >= 0; i--) {
    Tensor *z = tensor_from_val(val_int(i ? (mi >= 0 ? mi : -1) : 0), DT_INT32);
    ctr0[i] = (GraphRef){graph_add_const_named(cx->g, z, i ? "maximum_iterations" : "loop_counter"), 0};
    tensor_release(z);
    /* made in an enclosing control_dependencies block, they wait for it (and, made in it, dominate the While) */
    graph_ctrl_apply(cx->g, ctr0[i].node);
    lt.ctr_names[i] = cx->g->nodes[ctr0[i].node].name;
  }
  graph_op_scope_exit(wtok);
  GraphRef idx0 = {-1, 0};
  if (lt.has_index) {
    Tensor *z = tensor_from_val(val_int(0), DT_INT32);
    idx0 = (GraphRef){graph_add_const(cx->g, z), 0};
    tensor_release(z);
  }
  if (lt.is_for) {
    /* iterations: dim 0 of the tensor (the shortest one for zip), static when known */
    Val n = ag_iter_count(l->iter, loc);
    trace_ref(cx, n, &lt.n_iter);
    val_decref(n);
  }
  ag_trace_body(cx, "while_cond", ag_loop_cond_run, &lt, &bc);
  graph_add_output(bc.g, bc.refs.v[0]);
  ag_trace_body(cx, "while_body", ag_loop_body_run, &lt, &bb);
  /* body result: (state, index) */
  const Val *pair;
  tfs_i64 np;
  seq_items(bb.tmpl, &np, &pair);
  GraphRef *outs = malloc(sizeof(GraphRef) * (size_t)(lv.n + 1));
  if (!outs) rt_throw(ERR_MEMORY, "out of memory");
  int omark = rt_hold_mem(outs);   /* a state that does not match its start fails here */
  tfs_i64 na;
  const Val *after;
  if (!seq_items(pair[0], &na, &after) || na != nvars) rt_throw(ERR_TYPE, "ag: get_state changed its length");
  for (tfs_i64 i = 0; i < nvars; i++) ag_match_state(l, &bb, ((Tuple *)tmpl.u.o)->items[i], after[i], (int)i, &lv, outs);
  for (int c = 2; c < 4; c++) {   /* loop_counter + 1, maximum_iterations */
    int k;
    nest_is_leaf(pair[c], &k);
    graph_add_output(bb.g, bb.refs.v[k]);
  }
  if (lt.has_index) {   /* the next index */
    int k;
    nest_is_leaf(pair[1], &k);
    graph_add_output(bb.g, bb.refs.v[k]);
  }
  for (int i = 0; i < lv.n; i++) graph_add_output(bb.g, outs[i]);
  rt_unhold(omark);
  free(outs);
  /* inputs: loop counter, maximum_iterations, [index], carried leaves, then the captures of both bodies */
  int noff = 2 + (lt.has_index ? 1 : 0), nfixed = lv.n + noff;
  AgBody *bodies[2] = {&bc, &bb};
  GraphRef *u;
  int nu = ag_union_caps(bodies, 2, &u);
  /* while_v2's _duplicate_body_captures_in_cond: the cond's inputs for what only the body captured are
   * placeholders named '<cond function>___redundant_placeholder0', '...1' (graphdef.c completes the names) */
  ag_align_inputs(&bc, nfixed, u, nu, cx->g, "___redundant_placeholder");
  ag_align_inputs(&bb, nfixed, u, nu, cx->g, NULL);
  GraphRef *in = malloc(sizeof(GraphRef) * (size_t)(nfixed + nu + 1));
  TMeta *outm = malloc(sizeof(TMeta) * (size_t)(nfixed + 1));
  if (!in || !outm) rt_throw(ERR_MEMORY, "out of memory");
  int k = 0;
  for (int i = 0; i < 2; i++) {
    in[k] = ctr0[i];
    outm[k++] = (TMeta){DT_INT32, 0, {0}};
  }
  if (lt.has_index) {
    in[k] = idx0;
    outm[k++] = (TMeta){DT_INT32, 0, {0}};
  }
  for (int i = 0; i < lv.n; i++) {
    in[k] = lv.v[i].init;
    outm[k++] = lv.v[i].m;
  }
  if (nu) memcpy(in + nfixed, u, sizeof(GraphRef) * (size_t)nu);
  Val aux = mi >= 0 ? val_int(mi) : val_undef();
  Graph *bodies_g[2] = {graph_retain(bc.g), graph_retain(bb.g)};
  char wscope[256];
  snprintf(wscope, sizeof wscope, "%s/", lt.scope);
  wtok = graph_op_scope_enter(cx->g, wscope, NULL);   /* the While takes its scope's name */
  int id = ag_add_node(cx, GN_WHILE, "while", nfixed, outm, nfixed + nu, in, &bc, &bb, aux);
  graph_op_scope_exit(wtok);
  free(in);
  free(outm);
  free(u);
  ag_body_free(&bc);
  ag_body_free(&bb);
  /* the state after the loop */
  Val *leaves = malloc(sizeof(Val) * (size_t)(lv.n + 1));
  if (!leaves) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < lv.n; i++) leaves[i] = trace_sym(cx->g, (GraphRef){id, i + noff});
  Val fin = nest_unflatten(tmpl, leaves);
  if (tr.n) {   /* one tape entry for the loop: initial leaves and outer values read -> final leaves */
    Val *origs = malloc(sizeof(Val) * (size_t)(lv.n + 1));
    if (!origs) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < lv.n; i++) origs[i] = val_is_tensor(lv.v[i].orig) || val_is(lv.v[i].orig, &variable_type) ? lv.v[i].orig : val_none();
    Val ins = rt_tuple(lv.n, origs), outs = rt_tuple(lv.n, leaves);
    free(origs);
    Val count = trace_sym(cx->g, (GraphRef){id, 0});   /* the loop counter: the iterations run */
    Val rerun = lt.stacks ? ag_loop_rerun_new(l, tmpl, lt.is_for) : val_none();
    loopgrad_region_end(&tr, ins, outs, rerun, stacks, base, count);
    val_decref(rerun);
    val_decref(count);
    val_decref(ins);
    val_decref(outs);
  }
  TFS_CLEAR(stacks);
  TFS_CLEAR(base);
  for (int i = 0; i < lv.n; i++) val_decref(leaves[i]);
  free(leaves);
  if (require_one) {   /* the placeholder initial values must never be seen */
    Val iters = trace_sym(cx->g, (GraphRef){id, 0});
    Val msg = str_from_cstr(once_msg);
    Val in2[2] = {iters, val_int(0)};
    OpAttrs at = {2, {msg, val_none()}};
    int saved = rt_cur_loc;
    rt_cur_loc = loc;
    val_decref(op_apply(&op_defs[OP_ASSERT_GREATER], 2, in2, &at));
    rt_cur_loc = saved;
    val_decref(msg);
    val_decref(iters);
  }
  l->set(l, fin);
  val_decref(fin);
  rt_unhold(hmark);
  val_decref(tmpl);
  val_decref(init);
  free(lv.v);
  rt_cur_loc = loc;
  /* A body tensor still referenced now was kept in a Python value: a list
   * appended to in the loop, or a variable local to the body (AutoGraph
   * leaves those bound after the loop, as TF does).  As in TF, that is an
   * error only when such a tensor is used (trace.c reports it at this loop). */
  for (int i = 0; i < 2; i++) {
    if (bodies_g[i]->nsym > 0) bodies_g[i]->escaped_loc = loc;
    graph_release(bodies_g[i]);
  }
}

/* ---- ag.while_stmt / ag.for_stmt / tf.while_loop ------------------------------------------------- */

static Val ag_py_get(AgLoop *l) { return ag_call0(l->fget); }
static void ag_py_set(AgLoop *l, Val s) { val_decref(ag_call1(l->fset, s)); }
static Val ag_py_test(AgLoop *l) { return ag_call0(l->ftest); }
static Val ag_py_extra(AgLoop *l) { return ag_call0(l->fextra); }
static void ag_py_body(AgLoop *l, Val elem) {
  if (val_is_undef(elem)) ag_call0_void(l->fbody);
  else val_decref(ag_call1(l->fbody, elem));
}

/* Evaluate a loop test in a throwaway graph: does it stage a tensor loop?
 * (TF evaluates the first test apart, so the test's ops do not linger.) */
static Val ag_probe(Val (*fn)(AgLoop *), AgLoop *l, bool *staged) {
  TraceCtx *cx = trace_current();
  Graph *g = graph_new("probe", cx->g->fname, cx->g);
  TraceCtx *bx = trace_push(g, cx->allow_vars, true);
  Val r = val_undef();
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    r = fn(l);
    rt_try_pop(&t);
  } else {
    trace_abort(bx);
    graph_release(g);
    rt_rethrow(&t);
  }
  trace_pop(bx);
  *staged = val_is_tensor(r) || val_is(r, &variable_type);
  if (*staged) {   /* the value belongs to the discarded graph */
    val_decref(r);
    r = val_undef();
  }
  graph_release(g);
  return r;
}

/* The loop kind is fixed at entry (TF's guarded_test / guarded_extra_test):
 * a Python loop whose test turns into a tensor cannot become a graph loop. */
#define AG_WHILE_BECAME_TENSOR                                                                                   \
  "The condition of while loop started as non-Tensor, then changed to Tensor. This may happen either because " \
  "variables changed type, or when a break or return statement inside the loop depends on a Tensor condition. " \
  "In both cases, changing to a TF loop should remove the error."
#define AG_FOR_BECAME_TENSOR                                                                                   \
  "break and return statements which depend on a TF condition are not supported in Python for loops. Did you " \
  "intend to make it a TF loop?"

static bool ag_py_truthy(Val v, const char *msg, int loc) {
  /* while tracing every tensor is a graph tensor, as in TF (constants included) */
  if (trace_active() && (val_is_tensor(v) || val_is(v, &variable_type))) {
    val_decref(v);
    /* errindex: The condition of while loop started as non-Tensor, then changed to Tensor. This may happen either because variables changed type, or when a break or return statement inside the loop depends on a Tensor condition. In both cases, changing to a TF loop should remove the error. */
    /* errindex: break and return statements which depend on a TF condition are not supported in Python for loops. Did you intend to make it a TF loop? */
    rt_throw_at(loc, ERR_NOTIMPL, "%s", msg);
  }
  bool b = rt_truthy(v);
  val_decref(v);
  return b;
}

static Val ag_while_stmt(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.while_stmt", .sig = "test, body, get_state, set_state, symbol_names, opts=None"};
  Val a[6];
  args_parse(&spec, n, args, kw, a);
  AgLoop l = {ag_py_get, ag_py_set, ag_py_test, NULL, ag_py_body, a[2], a[3], a[0], val_undef(), a[1], val_undef(),
              a[4], a[5], val_undef(), val_undef(), rt_cur_loc};
  if (!trace_active()) {
    while (ag_py_truthy(ag_call0(a[0]), AG_WHILE_BECAME_TENSOR, l.loc)) ag_call0_void(a[1]);
    return val_none();
  }
  bool staged;
  Val first = ag_probe(ag_py_test, &l, &staged);
  if (staged) {
    ag_tf_loop(&l, val_undef());
    return val_none();
  }
  /* a Python loop, unrolled while tracing (the first test is consumed) */
  if (!ag_py_truthy(first, AG_WHILE_BECAME_TENSOR, l.loc)) return val_none();
  ag_call0_void(a[1]);
  while (ag_py_truthy(ag_call0(a[0]), AG_WHILE_BECAME_TENSOR, l.loc)) ag_call0_void(a[1]);
  return val_none();
}

/* `for x in dataset` while tracing (TF's _dataset_for_stmt): a While whose
 * state is the loop's variables plus the iterator's has_value and element
 * leaves; the body runs the loop body on the element, then fetches the next. */
typedef struct AgDsLoop {
  AgLoop l;                   /* first: the callbacks receive &l */
  Val ds, handle;             /* the dataset; the iterator handle in the enclosing graph */
  Val cur;                    /* tuple (has_value, leaves...) (owned) */
  tfs_i64 nuser;              /* the loop's own state variables */
} AgDsLoop;

static void ag_ds_advance(AgDsLoop *d) {
  Val r = tfdata_graph_next(d->ds, d->handle);
  val_decref(d->cur);
  d->cur = r;
}

static Val ag_ds_get(AgLoop *l) {
  AgDsLoop *d = (AgDsLoop *)l;
  Val u = ag_call0(l->fget);
  tfs_i64 n;
  const Val *items;
  if (!seq_items(u, &n, &items)) { val_decref(u); rt_throw(ERR_TYPE, "ag: get_state must return a tuple"); }
  d->nuser = n;
  Tuple *c = (Tuple *)d->cur.u.o;
  Val t = tuple_new(n + c->len);
  for (tfs_i64 i = 0; i < n; i++) ((Tuple *)t.u.o)->items[i] = val_incref(items[i]);
  for (tfs_i64 i = 0; i < c->len; i++) ((Tuple *)t.u.o)->items[n + i] = val_incref(c->items[i]);
  val_decref(u);
  return t;
}

static void ag_ds_set(AgLoop *l, Val s) {
  AgDsLoop *d = (AgDsLoop *)l;
  tfs_i64 n;
  const Val *items;
  seq_items(s, &n, &items);
  Val u = rt_tuple((int)d->nuser, items);
  int mark = rt_hold_val(u);
  val_decref(ag_call1(l->fset, u));
  rt_unhold(mark);
  val_decref(u);
  Val c = rt_tuple((int)(n - d->nuser), items + d->nuser);
  val_decref(d->cur);
  d->cur = c;
}

static Val ag_ds_test(AgLoop *l) {
  AgDsLoop *d = (AgDsLoop *)l;
  Val has = val_incref(((Tuple *)d->cur.u.o)->items[0]);
  if (!l->extra) return has;
  Val e = ag_call0(l->fextra);
  if (val_is_tensor(e) || val_is(e, &variable_type)) {
    Val r = op_apply2(OP_LOGICAL_AND, has, e);
    val_decref(has);
    val_decref(e);
    return r;
  }
  bool go = rt_truthy(e);
  val_decref(e);
  if (go) return has;
  val_decref(has);
  return val_obj(tensor_from_val(val_bool(false), DT_BOOL));
}

static void ag_ds_body(AgLoop *l, Val unused) {
  (void)unused;
  AgDsLoop *d = (AgDsLoop *)l;
  Val elem = tfdata_unflatten(d->ds, ((Tuple *)d->cur.u.o)->items + 1);
  int mark = rt_hold_val(elem);
  val_decref(ag_call1(l->fbody, elem));
  rt_unhold(mark);
  val_decref(elem);
  ag_ds_advance(d);
}

/* handle: an iterator's own (for e in iter(ds): the loop takes what is left, and the iterator stays open), or
 * VT_UNDEF for a fresh one released after the loop */
static void ag_dataset_loop(const Val *a, int loc, Val handle) {
  bool has_extra = a[1].tag != VT_NONE && a[1].tag != VT_UNDEF;
  AgDsLoop d = {{ag_ds_get, ag_ds_set, ag_ds_test, has_extra ? ag_py_extra : NULL, ag_ds_body, a[3], a[4], val_undef(),
                 a[1], a[2], val_undef(), a[5], a[6], val_undef(), val_undef(), loc},
                a[0], val_undef(), val_undef(), 0};
  bool own = val_is_undef(handle);
  d.handle = own ? tfdata_graph_iter(d.ds) : val_incref(handle);
  int mark = rt_hold_ref(&d.handle);
  rt_hold_ref(&d.cur);
  ag_ds_advance(&d);
  ag_tf_loop(&d.l, val_undef());
  if (own) tfdata_graph_release(d.handle);
  rt_unhold(mark);
  val_decref(d.cur);
  val_decref(d.handle);
}

/* The first value of a traced tf.range (owned), or VT_UNDEF when iter is not one. */
static Val ag_range_start(Val iter) {
  Tensor *t = val_as_tensor(iter);
  Graph *g;
  GraphRef r;
  if (!t || !trace_sym_ref(t, &g, &r)) return val_undef();
  GraphNode *nd = graph_node(g, r.node);
  if (nd->kind != GN_OP || nd->op != &op_defs[OP_RANGE] || nd->nout < 1) return val_undef();
  DType dt = nd->outm[0].dtype;
  bool has_limit = nd->attrs.n > 1 && nd->attrs.v[1].tag != VT_NONE && nd->attrs.v[1].tag != VT_UNDEF;
  for (int k = 0; k < nd->ndyn; k++) has_limit |= nd->dyn_attr[k] == 1;
  if (!has_limit) return val_obj(tensor_from_val(val_int(0), dt));   /* tf.range(n): from 0 */
  for (int k = 0; k < nd->ndyn; k++)
    if (nd->dyn_attr[k] == 0) {
      Val s = trace_sym(g, nd->in[nd->nin + k]);
      if (val_as_tensor(s)->dtype == dt) return s;
      int mark = rt_hold_val(s);
      OpAttrs ca = {1, {dtype_val(dt)}};
      Val c = op_apply(&op_defs[OP_CAST], 1, &s, &ca);
      rt_unhold(mark);
      val_decref(s);
      return c;
    }
  Val s0 = nd->attrs.n > 0 ? nd->attrs.v[0] : val_int(0);
  if (val_as_tensor(s0)) {
    OpAttrs ca = {1, {dtype_val(dt)}};
    return op_apply(&op_defs[OP_CAST], 1, &s0, &ca);
  }
  return val_obj(tensor_from_val(s0, dt));
}

/* TF's _tf_range_for_stmt: an iterate variable not bound before a tf.range loop starts as the range's
 * start, so it is defined after a loop that ran zero times (TF deviates from Python here; its test
 * loop_scoping_test.test_for_defines_iterate_tf_range). */
static void ag_range_iterate_default(Val iter, Val fget, Val fset, Val names, Val opts) {
  if (!val_is(opts, &dict_type)) return;
  Val in = dict_get_str(opts, "iterate_names");
  if (!val_is(in, &str_type)) {
    val_decref(in);
    return;
  }
  int hin = rt_hold_val(in);
  tfs_i64 nn, ns;
  const Val *nv, *sv;
  Val st = ag_call0(fget);
  int hst = rt_hold_val(st);
  if (seq_items(names, &nn, &nv) && seq_items(st, &ns, &sv)) {
    for (tfs_i64 i = 0; i < nn && i < ns; i++) {
      if (!val_is(nv[i], &str_type) || strcmp(str_cstr(nv[i]), str_cstr(in)) || !ag_is_undef(sv[i])) continue;
      Val start = ag_range_start(iter);
      if (val_is_undef(start)) break;
      Val ns2 = tuple_new((int)ns);
      for (tfs_i64 j = 0; j < ns; j++) ((Tuple *)ns2.u.o)->items[j] = j == i ? start : val_incref(sv[j]);
      int h2 = rt_hold_val(ns2);
      val_decref(ag_call1(fset, ns2));
      rt_unhold(h2);
      val_decref(ns2);
      break;
    }
  }
  rt_unhold(hst);
  val_decref(st);
  rt_unhold(hin);
  val_decref(in);
}

static Val ag_for_stmt(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ag.for_stmt",
                         .sig = "iter_, extra_test, body, get_state, set_state, symbol_names, opts=None"};
  Val a[7];
  args_parse(&spec, n, args, kw, a);
  bool has_extra = a[1].tag != VT_NONE && a[1].tag != VT_UNDEF;
  int loc = rt_cur_loc;
  Val iter = a[0];
  if (trace_active() && (val_is_tensor(iter) || val_is(iter, &variable_type) || val_is(iter, &ag_staged_type))) {
    Val owned = val_undef();
    if (val_is(iter, &variable_type)) iter = owned = op_apply1(OP_READ_VARIABLE, iter);
    ag_range_iterate_default(iter, a[3], a[4], a[5], a[6]);
    AgLoop l = {ag_py_get, ag_py_set, NULL, has_extra ? ag_py_extra : NULL, ag_py_body, a[3], a[4], val_undef(), a[1],
                a[2], val_undef(), a[5], a[6], val_undef(), iter, loc};
    ag_tf_loop(&l, val_undef());
    val_decref(owned);
    return val_none();
  }
  if (trace_active() && tfdata_is_dataset(iter)) {
    ag_dataset_loop(a, loc, val_undef());
    return val_none();
  }
  Val gds, gh;
  if (trace_active() && tfdata_giter_parts(iter, &gds, &gh)) {   /* for e in iter(ds): TF's _tf_iterator_for_stmt,
                                                                  * a graph loop over what is left */
    Val b[7] = {gds, a[1], a[2], a[3], a[4], a[5], a[6]};
    ag_dataset_loop(b, loc, gh);
    return val_none();
  }
  if (trace_active()) {   /* an eager iter(ds) made before the trace: a loop over a fresh one */
    Val ds = tfdata_fresh_iter_dataset(iter);
    if (!val_is_undef(ds)) {
      Val b[7] = {ds, a[1], a[2], a[3], a[4], a[5], a[6]};
      ag_dataset_loop(b, loc, val_undef());
      return val_none();
    }
  }
  /* Python iteration (unrolled while tracing) */
  if (has_extra && !ag_py_truthy(ag_call0(a[1]), AG_FOR_BECAME_TENSOR, loc)) return val_none();
  Val it = rt_iter(iter);
  int mark = rt_hold_val(it);   /* a body that fails to stage must not leak the iterator or its item */
  Val x = val_undef();
  rt_hold_ref(&x);
  while (rt_next(it, &x)) {
    Val r = ag_call1(a[2], x);
    val_decref(r);
    val_decref(x);
    x = val_undef();
    if (has_extra && !ag_py_truthy(ag_call0(a[1]), AG_FOR_BECAME_TENSOR, loc)) break;
  }
  rt_unhold(mark);
  val_decref(it);
  return val_none();
}

Val ag_for_stmt_call(int n, const Val *args) { return ag_for_stmt(val_undef(), n, args, NULL); }

/* tf.while_loop(cond, body, loop_vars): the state is the loop_vars list. */
static Val ag_box_get(AgLoop *l) {
  tfs_i64 n;
  const Val *items;
  seq_items(l->box, &n, &items);
  return rt_tuple((int)n, items);
}

static void ag_box_set(AgLoop *l, Val s) {
  tfs_i64 n;
  const Val *items;
  seq_items(s, &n, &items);
  List *b = (List *)l->box.u.o;
  for (tfs_i64 i = 0; i < n && i < b->len; i++) {
    Val old = b->items[i];
    b->items[i] = val_incref(items[i]);
    val_decref(old);
  }
}

static Val ag_box_test(AgLoop *l) {
  List *b = (List *)l->box.u.o;
  return rt_call(l->ftest, (int)b->len, b->items, NULL);
}

static void ag_box_body(AgLoop *l, Val elem) {
  (void)elem;
  List *b = (List *)l->box.u.o;
  Val r = rt_call(l->fbody, (int)b->len, b->items, NULL);
  tfs_i64 n;
  const Val *items;
  if (b->len == 1 && !(val_is(r, &list_type) || val_is(r, &tuple_type))) {
    Val old = b->items[0];
    b->items[0] = r;
    val_decref(old);
    return;
  }
  if (!seq_items(r, &n, &items) || n != b->len)
    rt_throw(ERR_VALUE, "tf.while_loop: body must return as many values as loop_vars (%lld)", (long long)b->len);
  ag_box_set(l, r);
  val_decref(r);
}

//! tf.while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True, swap_memory=False, maximum_iterations=None, name=None)
//!   Repeats loop_vars = body(*loop_vars) while cond(*loop_vars) is true and returns the final loop_vars;
//!   inside tf.function with a tensor condition it becomes one While op.
static Val tf_while_loop_fn(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.while_loop",
                         .sig = "cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True, "
                                "swap_memory=False, maximum_iterations=None, name=None"};
  Val a[9];
  args_parse(&spec, n, args, kw, a);
  tfs_i64 nv;
  const Val *items;
  bool seq = seq_items(a[2], &nv, &items);
  if (!seq) {
    items = &a[2];
    nv = 1;
  }
  Val box = list_new(nv);
  for (tfs_i64 i = 0; i < nv; i++) list_append(box, items[i]);
  AgLoop l = {ag_box_get, ag_box_set, ag_box_test, NULL, ag_box_body, val_undef(), val_undef(), a[0], val_undef(), a[1],
              box, val_undef(), val_undef(), a[3], val_undef(), rt_cur_loc};
  /* while tracing, always one While (TF's while_loop calls while_v2 whenever it is not executing eagerly: loop
   * variables given as Python numbers are converted, cond and body are traced once each) */
  Val first = val_undef();
  if (trace_active()) {
    ag_tf_loop(&l, a[7]);
  } else {
    int64_t mi = -1;
    if (a[7].tag != VT_NONE && !val_as_int(a[7], &mi)) rt_throw(ERR_TYPE, "tf.while_loop: maximum_iterations must be an int");
    bool go = val_is_undef(first) ? ag_py_truthy(ag_box_test(&l), "while loop condition", l.loc)
                                  : ag_py_truthy(first, "while loop condition", l.loc);
    for (int64_t it = 0; go && (mi < 0 || it < mi); it++) {
      ag_box_body(&l, val_undef());
      Val t = ag_box_test(&l);
      if (ag_staged(t) && mi < 0) {   /* the loop variables became tensors: the rest is a graph loop */
        val_decref(t);
        ag_tf_loop(&l, val_undef());
        break;
      }
      go = ag_py_truthy(t, "while loop condition", l.loc);
    }
  }
  Val r;
  if (!seq) r = val_incref(((List *)box.u.o)->items[0]);
  else if (val_is(a[2], &tuple_type)) r = rt_tuple((int)nv, ((List *)box.u.o)->items);
  else r = val_incref(box);
  val_decref(box);
  return r;
}

/* range(t) with a traced t: tf.range (builtins' range calls this first). */
Val ag_range_tensor(int n, const Val *args) {
  bool sym = false;
  for (int i = 0; i < n; i++)
    if (val_is(args[i], &tensor_type) && val_tensor(args[i])->sym) sym = true;
  if (!sym || n < 1 || n > 3) return val_undef();
  OpAttrs at = {4, {args[0], n > 1 ? args[1] : val_none(), n > 2 ? args[2] : val_int(1), val_none()}};
  return op_apply(&op_defs[OP_RANGE], 0, NULL, &at);
}

/* ---- the module ---------------------------------------------------------------------------------- */

typedef struct AgEntry { const char *name; BuiltinFn fn; } AgEntry;
static const AgEntry ag_entries[] = {
  {"if_stmt", ag_if_stmt}, {"while_stmt", ag_while_stmt}, {"for_stmt", ag_for_stmt}, {"if_exp", ag_if_exp},
  {"and_", ag_and}, {"or_", ag_or}, {"not_", ag_not}, {"Undefined", ag_Undefined}, {"ldu", ag_ldu},
  {"UndefinedReturnValue", ag_UndefinedReturnValue}, {"ret", ag_ret}, {"assert_stmt", ag_assert_stmt},
  {"FunctionScope", ag_FunctionScope}, {"ConversionOptions", ag_ConversionOptions}, {"ld", ag_ld},
  {"converted_call", ag_converted_call}, {"autograph_artifact", ag_autograph_artifact},
};
#define AG_N (sizeof ag_entries / sizeof ag_entries[0])
static Val ag_cache[AG_N];

static Val ag_getattr(const char *name) {
  for (size_t i = 0; i < AG_N; i++)
    if (!strcmp(name, ag_entries[i].name)) {
      if (val_is_undef(ag_cache[i])) {
        char q[64];
        snprintf(q, sizeof q, "ag.%s", name);
        ag_cache[i] = builtin_new(strdup(q), ag_entries[i].fn, val_undef(), NULL);
      }
      return val_incref(ag_cache[i]);
    }
  return val_undef();
}

Val ag_module(void) {
  static bool registered;
  if (!registered) {
    registered = true;
    Val c = builtin_new("tf.cond", tf_cond_fn, val_undef(), NULL);
    tfmod_register("cond", c);
    val_decref(c);
    Val w = builtin_new("tf.while_loop", tf_while_loop_fn, val_undef(), NULL);
    tfmod_register("while_loop", w);
    val_decref(w);
  }
  return module_native("ag", ag_getattr);
}

__attribute__((constructor)) static void ag_ctor(void) { val_decref(ag_module()); }
