/* trace.h — tracing: the active tracing contexts, symbolic tensors, the op_graph_hook that records ops, captures.
 *
 * While a tf.function is traced, a TraceCtx is active and every op_apply() is
 * recorded into its graph (op.c forwards to op_graph_hook): inputs become
 * graph edges, host values become Const nodes, eager tensors from outside are
 * captured as Const nodes, tf.Variables as VarHandleOp nodes read at run time.
 * Results are symbolic tensors (Tensor.sym != NULL) standing for graph values.
 * Contexts nest: a cond/while body is traced in a child context whose graph's
 * parent is the enclosing graph; symbolic tensors of enclosing graphs used in
 * a body are captured as extra placeholders of the body (TraceCtx.caps).
 */
#ifndef TFS_TRACE_H
#define TFS_TRACE_H

#include "graph/graph.h"
#include "kernels/nest.h"

/* True while a tf.function is being traced (the Func call path then prefers
 * FuncInfo.converted). */
bool trace_active(void);
int trace_op_scope_enter(const char *name, const OpDef *op);   /* op_scope_enter_hook: graph_op_scope_enter in the graph traced, or -1 */

/* Nonzero while a gradient runs a traced body again (a cond branch, a loop
 * body): ops with side effects and no outputs (print, asserts, Variable
 * assignments) are not staged a second time. */
extern int trace_quiet;

/* A capture of a body context: the value `outer` of the enclosing graph is
 * seen in the body as placeholder node `inner`. */
typedef struct TraceCap { GraphRef outer; int inner; } TraceCap;

typedef struct TraceScratch TraceScratch;

typedef struct TraceCtx {
  struct TraceCtx *outer;     /* the enclosing context (cond/while bodies) or the one active before */
  Graph *g;                   /* graph being recorded (borrowed) */
  bool allow_vars;            /* tf.Variable creation allowed (TF's variable-creation scope) */
  int nvars;                  /* tf.Variables created while this context (or one inside it) recorded */
  bool unliftable;            /* one of them has an initial value computed from the function's inputs */
  bool body;                  /* a cond/while body: captures enclosing graphs' values */
  bool fcap;                  /* a tf.data function traced inside another trace: the enclosing traces' tensors it
                               * reads become extra placeholders after its arguments (TF's captured inputs, a
                               * MapDataset's other_arguments), listed in caps */
  bool xla;                   /* a jit_compile=True function's trace (TF's XLA control-flow context): AutoGraph's
                               * for-loops in it and in the bodies and functions it traces get a maximum_iterations hint */
  int last_effect;            /* last stateful node, for automatic control dependencies; -1 */
  int neffects;               /* stateful nodes recorded */
  TraceCap *caps;             /* body contexts: captured enclosing values */
  int ncaps, capcap;
  struct TraceKey *keys;      /* eager tensors / variables already captured: Obj* -> node */
  int nkeys, keycap;
  int saved_loc;              /* rt_cur_loc at push, restored at pop */
  int saved_scope;            /* function graphs: the name-scope token to restore at pop */
  TraceScratch *scratch;      /* working memory of the ops being recorded (freed at pop) */
  struct Tape *shadow;        /* function graphs of a program that calls tf.gradients: a persistent tape
                               * recording the trace (owned; NULL otherwise), for gradients through control flow */
} TraceCtx;

/* The tape recording the innermost function trace for tf.gradients, or NULL. */
struct Tape *trace_shadow_tape(void);

/* Push a context recording into g (top level: outer = NULL context chain of
 * the caller; body: the enclosing context, and g->parent must be its graph).
 * trace_pop restores the previous context; trace_abort does the same after
 * an error unwound through the tracing code. */
TraceCtx *trace_push(Graph *g, bool allow_vars, bool body);
void trace_pop(TraceCtx *cx);
/* Called as a context's trace ends, with its graph (stdlib/modules/dataset.c: the datasets made in the trace drop
 * the graph's symbolic tensors they hold, which would hold the graph in a cycle through its dataset ops). */
extern void (*trace_pop_hook)(Graph *g);
void trace_abort(TraceCtx *cx);
TraceCtx *trace_current(void);
/* The name of the function graph being traced (a cond/while body's function), or NULL. */
const char *trace_graph_name(void);
/* Run code eagerly in the middle of a trace (executor, folding): suspend
 * returns the active context, resume reinstates it. */
TraceCtx *trace_suspend(void);
void trace_resume(TraceCtx *cx);

/* A new symbolic tensor for value r of graph g (owned). */
Val trace_sym(Graph *g, GraphRef r);
/* Placeholder named `name` in g with meta m, as a symbolic tensor (owned). */
Val trace_placeholder(Graph *g, const char *name, const TMeta *m);
/* The graph value a tensor-like value stands for in the current context:
 * symbolic tensors (capturing from enclosing graphs), eager tensors and
 * ndarrays (Const), Variables (a ReadVariableOp).  False when v is not
 * tensor-like.  Raises for symbolic tensors of unrelated graphs. */
bool trace_ref(TraceCtx *cx, Val v, GraphRef *out);
/* Foreign captures (TF's FuncGraph capturing a tensor of another function's graph, which save.py's
 * _trace_gradient_functions relies on): while set, a symbolic tensor of graph `from` used by a trace that is not
 * inside it becomes a new placeholder of that trace's graph instead of an error; each is noted once, in order
 * (refs[i] in `from`, placeholder node ids[i] in `into`, the first trace graph to capture). */
typedef struct TraceForeign {
  const Graph *from;
  Graph *into;
  int n, cap;
  GraphRef *refs;
  int *ids;
} TraceForeign;
void trace_set_foreign(TraceForeign *f);   /* NULL: off */
/* t, an eager tensor made by the function being traced (tf.constant), is a literal of its graph, not a capture a
 * recorded call differentiates: made by the user's code a Const now (named name, or 'Const'), by the library's when used. */
void trace_literal(Tensor *t, const char *name);
/* Record a ReadVariableOp of var in the current context. */
GraphRef trace_read_var(TraceCtx *cx, Variable *var);
/* The symbolic tensor's (graph, ref), or false when t is eager. */
bool trace_sym_ref(const Tensor *t, Graph **g, GraphRef *r);
bool trace_val_symbolic(Val v);               /* tensor/variable/list holding a symbolic tensor */
/* A list or tuple (nested) holding symbolic tensors as one tensor: Pack of
 * its elements, host numbers converted to `want` (or the first tensor's
 * dtype when want < 0), as TF's convert_to_tensor packs mixed lists. */
Val trace_pack(Val v, int want);

/* Structures of results (tuples, lists, dicts, leaves): flatten the tensor
 * leaves into graph refs of the current context, returning a template (owned)
 * whose tensor leaves are markers; unflatten rebuilds a value from a template
 * and leaf values (borrowed). */
typedef struct GraphRefVec { GraphRef *v; int n, cap; } GraphRefVec;
void trace_refvec_push(GraphRefVec *rv, GraphRef r);
Val trace_flatten(TraceCtx *cx, Val v, GraphRefVec *out);

/* The value of a graph value computable at trace time (constants and shapes
 * known statically), as an owned eager tensor, or NULL. */
Tensor *trace_static_value(Graph *g, GraphRef r);

/* tf.Variable creation (tensor.c's variable_new): enforces the singleton rule
 * (every enclosing function trace must allow creation), counts the creation in
 * those traces, and lifts a symbolic initial value out of the graph (TF's
 * init_scope).  Returns an opaque token for trace_leave_init_scope; *initial
 * may be replaced by an owned eager value that trace_leave_init_scope
 * releases.  An initial value computed from the function's inputs cannot be
 * lifted: the Variable starts as zeros of its shape and trace_init_variable
 * records the assignment of that value into the graph (TF's initialization
 * inside the first call's graph). */
void *trace_enter_init_scope(Val *initial);
void trace_init_variable(void *token, Val var);
void trace_leave_init_scope(void *token);

/* While a graph runs, host code (a tf.data host dataset's Python function) reading its symbolic tensor standing for
 * (g, r) computes with value (retained) instead (g only compared); drop: the entries added for owner. */
void trace_subst_add(const Graph *g, GraphRef r, Tensor *value, const void *owner);
void trace_subst_drop(const void *owner);

/* Install op_graph_hook, tensor_sym_free and tensor_sym_repr (idempotent). */
void trace_install(void);

/* The §5 misuse errors of symbolic tensors. */
_Noreturn void trace_error_symbolic_bool(void);

#endif
