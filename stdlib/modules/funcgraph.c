/* funcgraph.c — concrete.graph (FuncGraph): its text forms, inputs/outputs, get_operations and the lookups by name, tf.compat.v1.get_default_graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/trace.h"
#include "modules/modules.h"
#include "modules/tfoperation.h"
#include "object/object.h"

typedef struct GraphObj { Obj hdr; Graph *g; } GraphObj;

static const Type funcgraph_type;

static void fg_free(Obj *o) {
  graph_release(((GraphObj *)o)->g);
  free(o);
}

static void fg_repr(StrBuf *b, Val v) { sb_printf(b, "<FuncGraph name=%s>", ((GraphObj *)v.u.o)->g->name); }

/* one graph, however many FuncGraph values stand for it (t.graph == concrete.graph) */
static bool fg_eq(Val a, Val b) { return val_is(b, &funcgraph_type) && ((GraphObj *)a.u.o)->g == ((GraphObj *)b.u.o)->g; }
static tfs_u64 fg_hash(Val v) { return (tfs_u64)(uintptr_t)((GraphObj *)v.u.o)->g >> 4; }

//! FuncGraph.as_graph_def(add_shapes=False)
//!   The graph as a GraphDef protocol buffer with TensorFlow's op names: str() gives the text format,
//!   SerializeToString() the binary, .node the list of NodeDefs (.name, .op, .input, .attr: a dict of the
//!   attributes as Operation.get_attr gives them, keyed as TF's map).
static Val fg_graph_def_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "as_graph_def", .sig = "add_shapes=False"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return graphdef_obj_new(((GraphObj *)self.u.o)->g);
}

//! FuncGraph.as_text()
//!   tfs's own listing of the graph, one node per line (inputs, dtypes, shapes, attributes).
static Val fg_text_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "as_text", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  StrBuf b;
  sb_init(&b);
  graph_text(&b, ((GraphObj *)self.u.o)->g);
  size_t len = b.len;
  return str_take(sb_steal(&b), (tfs_i64)len);
}

//! FuncGraph.as_dot()
//!   The graph in Graphviz DOT format.
static Val fg_dot_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "as_dot", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  StrBuf b;
  sb_init(&b);
  graph_dot(&b, ((GraphObj *)self.u.o)->g);
  size_t len = b.len;
  return str_take(sb_steal(&b), (tfs_i64)len);
}

//! FuncGraph.get_operations()
//!   The graph's operations (tf.Operation) in the order they were traced.
static Val fg_get_operations_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "get_operations", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  Graph *g = ((GraphObj *)self.u.o)->g;
  Val l = list_new(g->nnodes);
  for (int i = 0; i < g->nnodes; i++) {
    Val o = tfop_new(g, i);
    list_append(l, o);
    val_decref(o);
  }
  return l;
}

/* the node named by the first len bytes of name, or -1 */
static int fg_find(const Graph *g, const char *name, size_t len) {
  for (int i = 0; i < g->nnodes; i++)
    if (strlen(g->nodes[i].name) == len && !strncmp(g->nodes[i].name, name, len)) return i;
  return -1;
}

/* TF's Graph.as_graph_element for a name: an Operation ('x') or a Tensor ('x:0'), with its messages */
static Val fg_element(Graph *g, Val namev, bool tensor) {
  const char *what = tensor ? "Tensor" : "Operation";
  if (!val_is(namev, &str_type)) rt_throw(ERR_TYPE, "%s names are strings (or similar), not %s.", what, val_type_name(namev));
  const char *name = str_cstr(namev);
  const char *colon = strchr(name, ':');
  size_t oplen = colon ? (size_t)(colon - name) : strlen(name);
  StrBuf q, oq;   /* the name's repr, its operation part's */
  sb_init(&q);
  sb_init(&oq);
  int mark = rt_hold_sb(&q);
  rt_hold_sb(&oq);
  str_repr_into(&q, name, (tfs_i64)strlen(name));
  str_repr_into(&oq, name, (tfs_i64)oplen);
  int id = fg_find(g, name, oplen);
  long k = 0;
  char msg[1024] = "";
  if (colon && tensor) {
    char *end;
    k = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || strchr(colon + 1, ':'))
      rt_throw(ERR_VALUE, "The name %s looks a like a Tensor name, but is not a valid one. Tensor names must be of the "
                          "form \"<op_name>:<output_index>\".", q.data);
    int nout = id >= 0 ? g->nodes[id].nout : 0;
    if (k < 0) k += nout;   /* op.outputs[out_n]: a Python index */
    if (id < 0)
      snprintf(msg, sizeof msg, "The name %s refers to a Tensor which does not exist. The operation, %s, does not exist "
                                "in the graph.", q.data, oq.data);
    else if (k < 0 || k >= nout)
      snprintf(msg, sizeof msg, "The name %s refers to a Tensor which does not exist. The operation, %s, exists but only "
                                "has %d outputs.", q.data, oq.data, nout);
  } else if (colon) {
    rt_throw(ERR_VALUE, "Name %s appears to refer to a Tensor, not a %s.", q.data, what);
  } else if (tensor) {
    rt_throw(ERR_VALUE, "The name %s %s, not a %s. Tensor names must be of the form \"<op_name>:<output_index>\".", q.data,
             id >= 0 ? "refers to an Operation" : "looks like an (invalid) Operation name", what);
  } else if (id < 0) {
    snprintf(msg, sizeof msg, "The name %s refers to an Operation not in the graph.", q.data);
  }
  if (msg[0]) exc_key_error(str_from_cstr(msg));
  rt_unhold(mark);
  sb_free(&q);
  sb_free(&oq);
  return tensor ? trace_sym(g, (GraphRef){id, (int)k}) : tfop_new(g, id);
}

//! FuncGraph.get_operation_by_name(name)
//!   The tf.Operation named name; KeyError when the graph has none, as TF.
static Val fg_get_operation_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "get_operation_by_name", .sig = "name"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return fg_element(((GraphObj *)self.u.o)->g, a[0], false);
}

//! FuncGraph.get_tensor_by_name(name)
//!   The graph tensor named name ('op_name:output_index'); TF's KeyError / ValueError otherwise.
static Val fg_get_tensor_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "get_tensor_by_name", .sig = "name"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return fg_element(((GraphObj *)self.u.o)->g, a[0], true);
}

Val funcgraph_refs(Graph *g, int n, const GraphRef *refs, const int *ids) {
  Val l = list_new(n);
  for (int i = 0; i < n; i++) {
    Val t = trace_sym(g, refs ? refs[i] : (GraphRef){ids[i], 0});
    list_append(l, t);
    val_decref(t);
  }
  return l;
}

/* The graph of a FuncGraph value, or NULL (tf.io.write_graph takes a graph as well as a GraphDef). */
Graph *funcgraph_of(Val v) { return val_is(v, &funcgraph_type) ? ((GraphObj *)v.u.o)->g : NULL; }

static Val fg_getattr(Val self, const char *name) {
  Graph *g = ((GraphObj *)self.u.o)->g;
  static const struct { const char *name; BuiltinFn fn; } meths[] = {
    {"as_graph_def", fg_graph_def_m}, {"as_text", fg_text_m}, {"as_dot", fg_dot_m},
    {"get_operations", fg_get_operations_m}, {"get_operation_by_name", fg_get_operation_m},
    {"get_tensor_by_name", fg_get_tensor_m},
  };
  for (size_t i = 0; i < sizeof meths / sizeof *meths; i++)
    if (!strcmp(name, meths[i].name)) return builtin_new(meths[i].name, meths[i].fn, self, NULL);
  if (!strcmp(name, "name")) return str_from_cstr(g->name);
  if (!strcmp(name, "inputs")) return funcgraph_refs(g, g->ninputs, NULL, g->inputs);
  if (!strcmp(name, "outputs")) return funcgraph_refs(g, g->noutputs, g->outputs, NULL);
  return val_undef();
}

static const Type funcgraph_type = {
  .name = "FuncGraph", .free = fg_free, .repr = fg_repr, .getattr = fg_getattr, .eq = fg_eq, .hash = fg_hash,
};

Val funcgraph_new(Graph *g) {
  GraphObj *go = obj_new(&funcgraph_type, sizeof(GraphObj));
  go->g = graph_retain(g);
  return val_obj(go);
}

//! tf.compat.v1.get_default_graph()
//!   Inside a tf.function trace the FuncGraph being traced (its operations so far); eagerly an empty global graph.
Val tfop_default_graph(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "get_default_graph", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  static Graph *global;
  TraceCtx *cx = trace_current();
  if (cx && cx->g) return funcgraph_new(cx->g);
  if (!global) global = graph_new("", "", NULL);
  return funcgraph_new(global);
}
