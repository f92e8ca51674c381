/* graph.h — the dataflow graph IR of a traced tf.function: typed nodes from the op table, text form, DOT.
 *
 * A Graph is what tracing records (trace.c) and what the executor runs
 * (exec.c).  Nodes live in one array and are only appended; a node's inputs
 * always refer to earlier nodes, so creation order is a topological order and
 * also the program order of side effects.  Graphs are immutable once traced:
 * optimization (pruning, constant folding, CSE) happens when the executor
 * plans a graph, so as_graph_def() shows what was traced, as TF does.
 *
 * Node kinds:
 *   GN_OP           an op of the op table (op_defs[]) with its attributes;
 *   GN_PLACEHOLDER  a graph input (a tensor argument, or a captured value of an
 *                   enclosing graph inside a cond/while body);
 *   GN_CONST        an eager tensor baked into the graph (host values met by
 *                   an op, eager tensors captured from outside);
 *   GN_VARHANDLE    a captured tf.Variable, by reference (read at run time);
 *   GN_COND         graph `cond` (phase 2): inputs pred + captures, two bodies;
 *   GN_WHILE        graph `while` (phase 2): loop vars + captures, cond/body.
 */
#ifndef TFS_GRAPH_H
#define TFS_GRAPH_H

#include <stdbool.h>

#include "kernels/ops.h"

typedef enum GraphNodeKind { GN_OP, GN_PLACEHOLDER, GN_CONST, GN_VARHANDLE, GN_COND, GN_WHILE } GraphNodeKind;

enum {
  GNF_STATEFUL = 1,           /* a side effect: never pruned, runs in program order */
  GNF_LIST = 2,               /* the op's one 'L' input was a list: inputs are its elements */
  GNF_CAPTURE = 4,            /* GN_CONST: a tensor captured from outside the traced function (a tape may watch it) */
  GNF_CUSTOM_GRAD = 8,        /* an Identity giving a tf.custom_gradient result: its gradient is the Python grad_fn's
                               * (TF's IdentityN with _gradient_op_type); aux: that grad_fn (traced), the
                               * _gradient_op_type (loaded) or the saved gradient function bound to it */
};

/* One value of the graph: output `out` of node `node` (node -1: none). */
typedef struct GraphRef { int node, out; } GraphRef;

struct Graph;

/* An operation of an enclosing graph a cond/while body asked to wait for (see Graph.ctrl_caps). */
typedef struct GraphCtrlCap { struct Graph *g; int node; } GraphCtrlCap;

typedef struct GraphNode {
  GraphNodeKind kind;
  const OpDef *op;            /* GN_OP */
  char *name;                 /* unique in its graph: 'x', 'AddV2', 'AddV2_1' */
  int nin;
  GraphRef *in;               /* nin data inputs (node -1: a host input kept in raw[i]), then ndyn more */
  int ndyn;                   /* dynamic attributes: attribute dyn_attr[k] is the graph value in[nin + k] */
  int *dyn_attr;
  Val *raw;                   /* nin host values (owned; VT_UNDEF: absent) or NULL */
  OpAttrs attrs;              /* owned references */
  int nout;
  TMeta *outm;                /* static dtype/shape of each output (-1 dims unknown) */
  int nctrl;
  int *ctrl;                  /* control dependencies: nodes that run first */
  int loc;                    /* rt_cur_loc when created: the user's .tfs line */
  unsigned flags;             /* GNF_* */
  Tensor *value;              /* GN_CONST: owned */
  Variable *var;              /* GN_VARHANDLE: owned reference */
  int param;                  /* GN_PLACEHOLDER: index in Graph.inputs */
  struct Graph *sub[2];       /* GN_COND: then/else; GN_WHILE: cond/body (owned) */
  Val aux;                    /* GN_COND/GN_WHILE: construct options; GNF_CUSTOM_GRAD: its gradient (owned, VT_UNDEF) */
} GraphNode;

typedef struct Graph {
  int rc;
  char *name;                 /* the function ('f') or body ('f/cond_true') */
  char *fname;                /* the tf.function the graph belongs to, for errors */
  GraphNode *nodes;
  int nnodes, cap;
  int *inputs;                /* placeholder node ids, in argument order */
  int ninputs;
  GraphRef *outputs;
  int noutputs;
  struct Graph *parent;       /* enclosing graph of a cond/while body (borrowed) */
  void *names;                /* name -> use count, for unique node names */
  int nsym;                   /* live symbolic tensors standing for values of this graph */
  bool dropped;               /* graph_release let go of its cyclic attribute values (only symbolic tensors held it) */
  int escaped_loc;            /* a loop body whose tensors outlived the loop: the loop's location (else 0) */
  char **reserved;            /* names taken by no node (graph_reserve_name), owned */
  int nreserved;
  GraphCtrlCap *ctrl_caps;    /* while tracing a body: tf.control_dependencies on operations of enclosing graphs
                               * (TF's FuncGraph control captures); the cond/while node made from the body waits
                               * for them (borrowed graphs, valid while the trace runs) */
  int nctrl_caps;
} Graph;

Graph *graph_new(const char *name, const char *fname, Graph *parent);
static inline Graph *graph_retain(Graph *g) { g->rc++; return g; }
void graph_release(Graph *g);
/* Set by stdlib/modules/dataset.c: an attribute value (a dataset) that may hold symbolic tensors of its graph, which
 * graph_release lets go of once only symbolic tensors hold the graph. */
extern bool (*graph_attr_cyclic)(Val v);

/* Append a node; returns its id.  `base` is the name it gets if free ('AddV2'),
 * else base_1, base_2 ...  nout metas are copied (may be NULL when nout is 0). */
int graph_add_node(Graph *g, GraphNodeKind kind, const OpDef *op, const char *base, int nout, const TMeta *outm);
/* A unique name for an operation that is not a node (tf.no_op, tf.group while tracing: 'NoOp', 'a/NoOp_1'),
 * under the current name scope; the graph owns it. */
const char *graph_reserve_name(Graph *g, const char *base);
/* tf.name_scope: the current prefix ("a/b/" or ""), entering a scope (returns
 * its full prefix; a name ending in '/' is absolute) and leaving it; a function
 * trace resets the stack and restores it after (reset returns the token). */
const char *graph_scope_prefix(void);
const char *graph_scope_push(const char *name);
void graph_scope_pop(void);
int graph_scope_reset(void);
void graph_scope_restore(int token);
/* TF's name_scope(name, default) of a Python op wrapper or operator in g ('mul', tf.add(..., name='z')): name made
 * unique ('mul_1'), entered as a scope; the first op node made directly in it takes that name, what else is made
 * in it lies under it ('mul/y').  exit(token) leaves it (and any entered after it). */
int graph_op_scope_enter(Graph *g, const char *name, const OpDef *op);   /* op: the one op to take the name (NULL any) */
void graph_op_scope_exit(int token);
bool graph_op_scope_open(const Graph *g);
/* The name scope of the op node of `op` about to be made in g, entered if it is not open yet (TF's op wrapper
 * name_scope, in which the op's inputs are converted): returns the token to exit, or -1 when none was entered. */
int graph_op_scope_own(Graph *g, const OpDef *op);   /* an op scope of g is the innermost scope */
int graph_add_placeholder(Graph *g, const char *name, const TMeta *m);
int graph_add_const(Graph *g, Tensor *value);          /* retains value */
int graph_add_const_named(Graph *g, Tensor *value, const char *base);   /* named base (under the scopes), not 'Const' */
/* A Variable's handle (retains var).  arg NULL: named after the variable ('Variable', as an imported graph's
 * VarHandleOp); else TF's capture placeholder of the handle, named arg under the current scope: a trace makes it
 * inside graph_op_scope_own of its first reader, so it is 'ReadVariableOp/resource' (func_graph's capture under
 * the op's name scope, named after the op's input). */
int graph_add_varhandle(Graph *g, Variable *var, const char *arg);
void graph_set_inputs(Graph *g, int node, int nin, const GraphRef *in, const Val *raw);   /* raw may be NULL */
/* Make attribute `attr` of a node a graph value (after graph_set_inputs). */
void graph_add_dyn_attr(Graph *g, int node, int attr, GraphRef r);
void graph_add_ctrl(Graph *g, int node, int dep);
void graph_add_output(Graph *g, GraphRef r);
/* tf.control_dependencies(deps) while tracing g (ctrldeps.c): push opens a block whose deps (node ids of g) become
 * control inputs of the nodes made in g until graph_ctrl_pop(its token); clear: control_dependencies(None), hiding
 * the enclosing blocks.  graph_ctrl_apply gives a new node its edges (TF's _control_dependencies_for_inputs). */
int graph_ctrl_push(Graph *g, const int *deps, int n, bool clear);
void graph_ctrl_pop(int token);
void graph_ctrl_apply(Graph *g, int node);
/* tf.control_dependencies in g on operation node of another graph owner: recorded as a control capture of g (see
 * Graph.ctrl_caps) when owner encloses g; false when it does not (nothing g's nodes can wait for). */
bool graph_ctrl_capture(Graph *g, Graph *owner, int node);
/* Before making the cond/while node of bodies in g: opens a block on the bodies' control captures of g (TF's
 * cond_v2/while_v2 make the If/While under control_dependencies(function_captures.control)); captures of graphs
 * enclosing g become g's own.  Its token for graph_ctrl_pop. */
int graph_ctrl_push_caps(Graph *g, Graph *const *bodies, int nb);
/* A copy of src (parent: its parent's copy, or NULL) reading Variable to[i] where src reads from[i]. */
Graph *graph_clone_vars(const Graph *src, Graph *parent, int n, Variable *const *from, Variable *const *to);
Graph *graph_clone_bind(const Graph *src, int keep, Tensor *const *vals);   /* inputs keep.. become constants vals */
static inline GraphNode *graph_node(const Graph *g, int id) { return &g->nodes[id]; }
static inline const TMeta *graph_meta(const Graph *g, GraphRef r) { return &g->nodes[r.node].outm[r.out]; }

/* Copy src's nodes into dst (a call of one traced function from another):
 * src's inputs are args (values of dst), its outputs come back in outs.
 * Side effects are chained after *last_effect (updated; -1: none). */
void graph_inline(Graph *dst, const Graph *src, const GraphRef *args, GraphRef *outs, int *last_effect, int *neffects);
/* The same, choosing per node of src: pre[id] NULL copies it; pre[id] an
 * array of its nout values in dst stands for it (a placeholder's argument, a
 * value computed elsewhere); graph_skip_node leaves it out (nothing copied
 * may read it).  map (src->nnodes ints) receives each copied node's id in
 * dst (-1: not copied); graph_inline_ref maps a value of src with it. */
extern const GraphRef graph_skip_node[1];
void graph_inline_sel(Graph *dst, const Graph *src, const GraphRef *const *pre, int *map, int *last_effect, int *neffects);
GraphRef graph_inline_ref(const int *map, const GraphRef *const *pre, GraphRef r);

/* Text forms.  graph_text: one node per line,
 *   name = Op(input, input:1, ^ctrl) -> dtype shape, ... attr=value ...
 * then `return a, b`; bodies of cond/while nodes follow, indented.
 * graph_dot: Graphviz digraph of the same. */
void graph_text(StrBuf *b, const Graph *g);
void graph_dot(StrBuf *b, const Graph *g);
/* "float32 (None, 3)" pieces used by the text forms and signatures. */
void graph_meta_text(StrBuf *b, const TMeta *m);
void graph_shape_text(StrBuf *b, int rank, const tfs_i64 *shape);   /* (None, 3) */

/* Called with every finished concrete function graph when set (tf.summary.trace_on records them). */
extern void (*graph_traced_hook)(Graph *g);

#endif
