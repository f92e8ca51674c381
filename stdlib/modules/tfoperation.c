/* tfoperation.c — tf.Operation (a traced graph's node: name, type, inputs, outputs, control inputs, node_def, get_attr), symbolic tensors' name/op/graph, tf.no_op and tf.group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/graphdef.h"
#include "graph/exec.h"
#include "graph/trace.h"
#include "kernels/ops.h"
#include "modules/modules.h"
#include "modules/nodedefobj.h"
#include "modules/tfmod.h"
#include "modules/tfoperation.h"
#include "object/hooks.h"
#include "object/object.h"

/* append an owned item */
static void list_append_take(Val l, Val x) {
  list_append(l, x);
  val_decref(x);
}

/* node `node` of g */
typedef struct OpObj { Obj hdr; Graph *g; int node; } OpObj;

static const Type tfop_type;

static void tfop_free(Obj *o) {
  OpObj *op = (OpObj *)o;
  graph_release(op->g);
  free(o);
}

static OpObj *tfop_alloc(Graph *g, int node) {
  OpObj *o = obj_new(&tfop_type, sizeof(OpObj));
  o->g = graph_retain(g);
  o->node = node;
  return o;
}

Val tfop_new(Graph *g, int node) { return val_obj(tfop_alloc(g, node)); }

static const char *tfop_name(const OpObj *o) { return o->g->nodes[o->node].name; }

/* The NodeDef TF's GraphDef of the graph has for the node (built into a), or NULL. */
static Tensorflow__NodeDef *tfop_nodedef(PbArena *a, const OpObj *o) {
  Tensorflow__GraphDef *gd = graphdef_build(a, o->g);
  for (size_t i = 0; i < gd->n_node; i++)
    if (!strcmp(gd->node[i]->name, tfop_name(o))) return gd->node[i];
  return NULL;
}

static const char *tfop_type_name(const OpObj *o, PbArena *a) {
  const GraphNode *n = &o->g->nodes[o->node];
  switch (n->kind) {
  case GN_OP: return n->op->graph_name;
  case GN_PLACEHOLDER: return "Placeholder";
  case GN_CONST: return "Const";
  case GN_VARHANDLE: return "Placeholder";   /* TF's capture of the Variable's handle */
  default: {
    Tensorflow__NodeDef *nd = tfop_nodedef(a, o);   /* cond/while: If/StatelessIf/While... as the GraphDef names it */
    return nd ? nd->op : "";
  }
  }
}

static void tfop_repr(StrBuf *b, Val v) {
  const OpObj *o = (const OpObj *)v.u.o;
  PbArena a = {0};
  sb_printf(b, "<tf.Operation '%s' type=%s>", tfop_name(o), tfop_type_name(o, &a));
  pa_free(&a);
}

/* str(op) is its NodeDef's text, as TF's */
static void tfop_nodedef_text(StrBuf *b, const OpObj *o) {
  PbArena a = {0};
  Tensorflow__NodeDef *nd = tfop_nodedef(&a, o);
  if (nd) pb_text(b, &nd->base, 0);
  else sb_printf(b, "name: \"%s\"\nop: \"%s\"\n", tfop_name(o), tfop_type_name(o, &a));
  pa_free(&a);
}

static void tfop_str(StrBuf *b, Val v) { tfop_nodedef_text(b, (const OpObj *)v.u.o); }

static bool tfop_eq(Val a, Val b) {
  if (!val_is(b, &tfop_type)) return false;
  const OpObj *x = (const OpObj *)a.u.o, *y = (const OpObj *)b.u.o;
  return x->g == y->g && x->node == y->node;
}

static tfs_u64 tfop_hash(Val v) {
  const OpObj *o = (const OpObj *)v.u.o;
  return ((tfs_u64)(uintptr_t)o->g >> 4) * 31 + (tfs_u64)o->node;
}

//! Operation.get_attr(name)
//!   The value of the node's attribute name as TF's GraphDef has it (a tf.DType, int, float, bool, bytes,
//!   TensorShape or list); ValueError "Operation 'x' has no attr named 'y'." when it has none.
static Val tfop_get_attr_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "get_attr", .sig = "name"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  const OpObj *o = (const OpObj *)self.u.o;
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "get_attr: the attribute name must be a str, got %s", val_type_name(a[0]));
  const char *key = str_cstr(a[0]);
  PbArena ar = {0};
  Tensorflow__NodeDef *nd = tfop_nodedef(&ar, o);
  for (size_t i = 0; nd && i < nd->n_attr; i++)
    if (!strcmp(nd->attr[i]->key, key)) {
      Val r = attr_value(nd->attr[i]->value);
      pa_free(&ar);
      return r;
    }
  pa_free(&ar);
  rt_throw(ERR_VALUE, "Operation '%s' has no attr named '%s'.", tfop_name(o), key);
}

static Val tfop_node_def(const OpObj *o) {
  PbArena a = {0};
  Tensorflow__NodeDef *nd = tfop_nodedef(&a, o);
  Val r = nodedef_obj_new(nd, tfop_name(o), nd ? nd->op : tfop_type_name(o, &a));
  pa_free(&a);
  return r;
}

static Val tfop_inputs(const OpObj *o) {
  const GraphNode *n = &o->g->nodes[o->node];
  int k = 0;
  GraphRef refs[64];
  /* the data inputs that are graph values; a captured Variable's handle is its placeholder's resource tensor */
  for (int i = 0; i < n->nin && k < 64; i++)
    if (n->in[i].node >= 0 && (n->in[i].out < o->g->nodes[n->in[i].node].nout || o->g->nodes[n->in[i].node].kind == GN_VARHANDLE))
      refs[k++] = n->in[i];
  Val t = tuple_new(k);
  for (int i = 0; i < k; i++) ((Tuple *)t.u.o)->items[i] = trace_sym(o->g, refs[i]);
  return t;
}

static Val tfop_control_inputs(const OpObj *o) {
  const GraphNode *n = &o->g->nodes[o->node];
  Val l = list_new(n->nctrl);
  for (int i = 0; i < n->nctrl; i++) list_append_take(l, tfop_new(o->g, n->ctrl[i]));
  return l;
}

static Val tfop_getattr(Val self, const char *name) {
  const OpObj *o = (const OpObj *)self.u.o;
  if (!strcmp(name, "name")) return str_from_cstr(tfop_name(o));
  if (!strcmp(name, "type")) {
    PbArena a = {0};
    Val r = str_from_cstr(tfop_type_name(o, &a));
    pa_free(&a);
    return r;
  }
  if (!strcmp(name, "graph")) return funcgraph_new(o->g);
  if (!strcmp(name, "inputs")) return tfop_inputs(o);
  if (!strcmp(name, "outputs")) {
    int nout = o->g->nodes[o->node].kind == GN_VARHANDLE ? 1 : o->g->nodes[o->node].nout;   /* a handle: its resource */
    Val l = list_new(nout);
    for (int i = 0; i < nout; i++) list_append_take(l, trace_sym(o->g, (GraphRef){o->node, i}));
    return l;
  }
  if (!strcmp(name, "control_inputs")) return tfop_control_inputs(o);
  if (!strcmp(name, "device")) return str_from_cstr("");
  if (!strcmp(name, "node_def")) return tfop_node_def(o);
  if (!strcmp(name, "get_attr")) return builtin_new("Operation.get_attr", tfop_get_attr_m, self, NULL);
  return val_undef();
}

//! tf.Operation
//!   A node of a traced graph (t.op, concrete.graph.get_operations(), v.assign(..., read_value=False) while tracing,
//!   tf.no_op, tf.group): name (unique in the graph, under name scopes), type, inputs, outputs, control_inputs,
//!   device, graph, node_def, get_attr(name); repr <tf.Operation 'NAME' type=TYPE>, str its NodeDef's text.
static const Type tfop_type = {
  .name = "Operation", .free = tfop_free, .repr = tfop_repr, .str = tfop_str, .getattr = tfop_getattr,
  .eq = tfop_eq, .hash = tfop_hash,
};

/* ---- symbolic tensors: t.name 'AddV2:0', t.op, t.graph, t.value_index ---- */

static Val tfop_sym_attr(Val t, const char *name) {
  Graph *g;
  GraphRef r;
  if (!trace_sym_ref(val_tensor(t), &g, &r)) return val_undef();
  if (!strcmp(name, "name")) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s:%d", g->nodes[r.node].name, r.out);
    return str_from_cstr(buf);
  }
  if (!strcmp(name, "op")) return tfop_new(g, r.node);
  if (!strcmp(name, "graph")) return funcgraph_new(g);
  if (!strcmp(name, "value_index")) return val_int(r.out);
  return val_undef();
}

static Val tfop_traced(const OpDef *op) {
  TraceCtx *cx = trace_current();
  if (!cx || !cx->g || !cx->g->nnodes) return val_none();
  int last = cx->g->nnodes - 1;
  const GraphNode *n = &cx->g->nodes[last];
  return n->kind == GN_OP && n->op == op ? tfop_new(cx->g, last) : val_none();
}

/* ---- tf.no_op, tf.group, tf.control_dependencies: NoOp nodes and control edges while tracing (TF 2.15's ops.py,
 * control_flow_ops.py); eagerly no_op and group give None ---- */

/* The node ids of g among Operations ops (a list of tf.Operation); ops of other graphs are left out, as TF's
 * FuncGraph.control_dependencies keeps only elements of the graph: those of graphs enclosing g (a cond/while body)
 * become its control captures, which the cond/while node waits for.  *ids is malloc'd. */
static int ctrl_ids(Graph *g, Val ops, int **ids) {
  tfs_i64 n = 0;
  const Val *it = NULL;
  seq_items(ops, &n, &it);
  int *d = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!d) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(d), k = 0;
  for (tfs_i64 i = 0; i < n; i++) {
    const OpObj *o = (const OpObj *)it[i].u.o;
    if (o->g == g) d[k++] = o->node;
    else graph_ctrl_capture(g, o->g, o->node);
  }
  rt_unhold(mark);
  *ids = d;
  return k;
}

Graph *tfop_tracing_graph(void) {
  TraceCtx *cx = trace_current();
  if (!cx || !cx->g || !rt_obj_hooks.tracing || !rt_obj_hooks.tracing()) return NULL;
  return cx->g;
}

/* A NoOp node named name or dflt (TF: name_scope(name, dflt) entered, the NoOp takes its name) with control
 * inputs on the operations deps (TF's _GroupControlDeps: the NoOp made under control_dependencies(deps)). */
static Val tfop_noop(Val name, const char *dflt, Val deps) {
  Graph *g = tfop_tracing_graph();
  if (!g) return val_none();
  int *ids;
  int n = val_is_undef(deps) ? (ids = NULL, 0) : ctrl_ids(g, deps, &ids);
  int tok = graph_op_scope_enter(g, val_is(name, &str_type) ? str_cstr(name) : dflt, &op_defs[OP_NOOP]);
  int ct = graph_ctrl_push(g, ids, n, false);
  free(ids);
  val_decref(op_apply(&op_defs[OP_NOOP], 0, NULL, NULL));
  graph_ctrl_pop(ct);
  graph_op_scope_exit(tok);
  return tfop_new(g, g->nnodes - 1);
}

//! tf.no_op(name=None)
//!   Does nothing: None eagerly; inside a tf.function a NoOp node (a tf.Operation) named name or 'NoOp' (made
//!   unique in the graph: 'NoOp_1' ...), with the control inputs of the enclosing tf.control_dependencies blocks.
static Val tf_no_op(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "no_op", .sig = "name=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return tfop_noop(a[0], "NoOp", val_undef());
}

/* group's inputs flattened (lists, tuples, dict values) into the control inputs: Operations, a tensor's op */
static void group_flat(Val x, Val deps) {
  tfs_i64 n;
  const Val *it;
  if (seq_items(x, &n, &it)) {
    for (tfs_i64 i = 0; i < n; i++) group_flat(it[i], deps);
    return;
  }
  if (val_is(x, &dict_type)) {
    Dict *d = (Dict *)x.u.o;
    for (tfs_i64 i = 0; i < d->len; i++)
      if (!val_is_undef(d->keys[i])) group_flat(d->vals[i], deps);
    return;
  }
  if (val_is(x, &tfop_type)) {
    list_append(deps, x);
    return;
  }
  Tensor *t = val_as_tensor(x);
  if (t && t->sym) {
    list_append_take(deps, tfop_sym_attr(x, "op"));
    return;
  }
  if (val_is(x, &variable_type) && ((Variable *)x.u.o)->base && ((Variable *)x.u.o)->sym) {
    list_append(deps, val_obj((Obj *)((Variable *)x.u.o)->sym));   /* an _UnreadVariable: its assignment (TF: c.op) */
    return;
  }
  if (t || val_is(x, &variable_type)) return;   /* eager tensors and variables: nothing of this graph to wait for */
  StrBuf s;
  sb_init(&s);
  int mark = rt_hold_sb(&s);
  val_str(&s, x);
  rt_throw(ERR_TYPE, "'inputs' should be zero or more (nested) Tensors. Received '%s' with type '<class '%s'>'.",
           s.data ? s.data : "", val_type_name(x));
  rt_unhold(mark);
}

//! tf.group(*inputs, name=None)
//!   None eagerly; inside a tf.function a NoOp node (a tf.Operation) named name or 'group_deps' whose control
//!   inputs are the operations of inputs (tensors, operations, nested lists of them); running it runs them first.
static Val tf_group(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "group", .sig = "name=None"};   /* *inputs are the positional arguments */
  Val a[1];
  args_parse(&spec, 0, NULL, kw, a);
  Val deps = list_new(0);
  int mark = rt_hold_val(deps);
  for (int i = 0; i < n; i++) group_flat(args[i], deps);
  if (!rt_obj_hooks.tracing || !rt_obj_hooks.tracing()) {
    rt_unhold(mark);
    val_decref(deps);
    return val_none();
  }
  Val r = tfop_noop(a[0], "group_deps", deps);   /* TF: under name_scope(name, "group_deps") even with no inputs */
  rt_unhold(mark);
  val_decref(deps);
  return r;
}

/* _tfctl.push(control_inputs): opens a tf.control_dependencies block of the graph being traced (None: TF's
 * control_dependencies(None), clearing the enclosing ones); its token, or None when not tracing. */
static Val tf_ctrl_push(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  (void)kw;
  Graph *g = tfop_tracing_graph();
  if (n != 1 || !g) return val_none();
  Val deps = list_new(0);
  int mark = rt_hold_val(deps);
  if (args[0].tag != VT_NONE) group_flat(args[0], deps);
  int *ids;
  int k = ctrl_ids(g, deps, &ids);
  int tok = graph_ctrl_push(g, ids, k, args[0].tag == VT_NONE);
  free(ids);
  rt_unhold(mark);
  val_decref(deps);
  return val_int(tok);
}

/* _tfctl.pop(token): closes the block push opened (and any opened after it) */
static Val tf_ctrl_pop(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  (void)kw;
  if (n == 1 && args[0].tag == VT_INT) graph_ctrl_pop((int)args[0].u.i);
  return val_none();
}

/* _tfctl.initialized([was]): whether TF's eager context would be initialized by now (a tf op ran); with an
 * argument it is set back to that first (numpy.tfs's own probes at import are no op of the program's) */
static Val tf_ctrl_initialized(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  (void)kw;
  if (n == 1) __atomic_store_n(&op_eager_ran, args[0].tag == VT_BOOL && args[0].u.i, __ATOMIC_RELAXED);
  return val_bool(__atomic_load_n(&op_eager_ran, __ATOMIC_RELAXED));
}

/* _tfctl.threads(n): the intra-op pool's thread count (n <= 0: TFS_NUM_THREADS, else every core), which
 * tf.config.threading.set_intra_op_parallelism_threads sets before TF's context is initialized */
static Val tf_ctrl_threads(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  (void)kw;
  if (n == 1 && args[0].tag == VT_INT) tp_set_threads(args[0].u.i > 4096 ? 4096 : (int)args[0].u.i);
  return val_int(tp_threads());
}

/* _tfctl.inter_threads(n): the inter-op count (graph/exec.c: 1 runs independent products one after another,
 * else pairs of them as one pool job), which tf.config.threading.set_inter_op_parallelism_threads sets */
static Val tf_ctrl_inter_threads(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  (void)kw;
  if (n == 1 && args[0].tag == VT_INT) exec_inter_op = args[0].u.i < 0 ? 0 : args[0].u.i > 4096 ? 4096 : (int)args[0].u.i;
  return val_int(exec_inter_op);
}

#define CB(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_tfctl." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin ctl_fns[] = {CB("push", tf_ctrl_push), CB("pop", tf_ctrl_pop), CB("initialized", tf_ctrl_initialized),
                            CB("threads", tf_ctrl_threads), CB("inter_threads", tf_ctrl_inter_threads)};

static Val ctl_attr(const char *name) {
  for (size_t i = 0; i < sizeof ctl_fns / sizeof ctl_fns[0]; i++)
    if (!strcmp(ctl_fns[i].name + 7, name)) return val_obj(&ctl_fns[i]);
  return val_undef();
}

Val tfctl_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_tfctl", ctl_attr);
  return val_incref(mod);
}

void tfop_register(void) {
  op_sym_attr = tfop_sym_attr;
  op_traced_operation = tfop_traced;
  tfmod_register("Operation", typeobj_for(&tfop_type));
  Val b = builtin_new("tf.no_op", tf_no_op, val_undef(), NULL);
  tfmod_register("no_op", b);
  val_decref(b);
  b = builtin_new("tf.group", tf_group, val_undef(), NULL);
  tfmod_register("group", b);
  val_decref(b);

}
