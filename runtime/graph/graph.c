/* graph.c — the graph IR: node storage, unique names, text form (as_graph_def), Graphviz DOT, dumps. */
#include "graph/graph.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "object/atomicfile.h"
#include "object/object.h"

/* ---- unique names: open-addressing set of the names in use ----------------- */

typedef struct NameCount { char *base; int next; } NameCount;

typedef struct NameSet {
  char **slot;                /* owned copies; NULL empty */
  int cap, n;
  NameCount *cnt;             /* per base name, the next suffix to try (TF's names_in_use counts): O(1) naming */
  int ccap, cn;
} NameSet;

/* Names compare without case, as TF's Graph.unique_name keys them (name.lower()): 'Mul' then 'mul' gives 'mul_1'. */
static tfs_u64 graph_strhash(const char *s) {
  tfs_u64 h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)tolower((unsigned char)*s)) * 1099511628211ULL;
  return h;
}

static bool names_has(const NameSet *ns, const char *s) {
  if (!ns->cap) return false;
  for (tfs_u64 i = graph_strhash(s) & (tfs_u64)(ns->cap - 1);; i = (i + 1) & (tfs_u64)(ns->cap - 1)) {
    if (!ns->slot[i]) return false;
    if (!strcasecmp(ns->slot[i], s)) return true;
  }
}

static void names_put(NameSet *ns, char *s) {
  if ((ns->n + 1) * 2 > ns->cap) {
    int cap = ns->cap ? ns->cap * 2 : 32;
    char **slot = calloc((size_t)cap, sizeof(char *));
    if (!slot) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < ns->cap; i++) {
      if (!ns->slot[i]) continue;
      tfs_u64 j = graph_strhash(ns->slot[i]) & (tfs_u64)(cap - 1);
      while (slot[j]) j = (j + 1) & (tfs_u64)(cap - 1);
      slot[j] = ns->slot[i];
    }
    free(ns->slot);
    ns->slot = slot;
    ns->cap = cap;
  }
  tfs_u64 j = graph_strhash(s) & (tfs_u64)(ns->cap - 1);
  while (ns->slot[j]) j = (j + 1) & (tfs_u64)(ns->cap - 1);
  ns->slot[j] = s;
  ns->n++;
}

/* The counter slot of base (created with next = 1). */
static NameCount *names_counter(NameSet *ns, const char *base) {
  if ((ns->cn + 1) * 2 > ns->ccap) {
    int cap = ns->ccap ? ns->ccap * 2 : 16;
    NameCount *c = calloc((size_t)cap, sizeof *c);
    if (!c) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < ns->ccap; i++) {
      if (!ns->cnt[i].base) continue;
      tfs_u64 j = graph_strhash(ns->cnt[i].base) & (tfs_u64)(cap - 1);
      while (c[j].base) j = (j + 1) & (tfs_u64)(cap - 1);
      c[j] = ns->cnt[i];
    }
    free(ns->cnt);
    ns->cnt = c;
    ns->ccap = cap;
  }
  tfs_u64 j = graph_strhash(base) & (tfs_u64)(ns->ccap - 1);
  while (ns->cnt[j].base && strcasecmp(ns->cnt[j].base, base)) j = (j + 1) & (tfs_u64)(ns->ccap - 1);
  if (!ns->cnt[j].base) {
    ns->cnt[j].base = strdup(base);
    if (!ns->cnt[j].base) rt_throw(ERR_MEMORY, "out of memory");
    ns->cnt[j].next = 1;
    ns->cn++;
  }
  return &ns->cnt[j];
}

static void names_free(NameSet *ns) {
  if (!ns) return;
  free(ns->slot);   /* the strings are the nodes' names, freed with the nodes */
  for (int i = 0; i < ns->ccap; i++) free(ns->cnt[i].base);
  free(ns->cnt);
  free(ns);
}

/* A free name: base, else base_1, base_2, ... (TF's scheme). */
static char *graph_unique_name(Graph *g, const char *base) {
  NameSet *ns = g->names;
  char *s;
  if (!names_has(ns, base)) {
    s = strdup(base);
  } else {
    size_t n = strlen(base) + 24;
    s = malloc(n);
    if (!s) rt_throw(ERR_MEMORY, "out of memory");
    NameCount *c = names_counter(ns, base);   /* resume where the last base_k left off: no rescan from _1 */
    for (;; c->next++) {
      snprintf(s, n, "%s_%d", base, c->next);
      if (!names_has(ns, s)) break;
    }
    c->next++;
  }
  if (!s) rt_throw(ERR_MEMORY, "out of memory");
  names_put(ns, s);
  return s;
}

/* ---- tf.name_scope ------------------------------------------------------------
 * The active scopes, each stored as its full prefix ("a/b/"); a function
 * graph starts a fresh stack above `gs_base`, as TF's FuncGraph does. */

static char **gs_stack;
static int gs_n, gs_cap, gs_base;

const char *graph_scope_prefix(void) { return gs_n > gs_base ? gs_stack[gs_n - 1] : ""; }

const char *graph_scope_push(const char *name) {
  const char *cur = graph_scope_prefix();
  size_t n = strlen(name);
  bool absolute = n && name[n - 1] == '/';
  size_t len = (absolute ? 0 : strlen(cur)) + n + 2;
  char *full = malloc(len);
  if (!full) rt_throw(ERR_MEMORY, "out of memory");
  if (absolute) snprintf(full, len, "%s", name);
  else snprintf(full, len, "%s%s%s", cur, name, n ? "/" : "");
  if (gs_n == gs_cap) {
    int cap = gs_cap ? gs_cap * 2 : 8;
    char **st = realloc(gs_stack, sizeof(char *) * (size_t)cap);
    if (!st) {
      free(full);
      rt_throw(ERR_MEMORY, "out of memory");
    }
    gs_stack = st;
    gs_cap = cap;
  }
  gs_stack[gs_n++] = full;
  return full;
}

void graph_scope_pop(void) {
  if (gs_n > gs_base) free(gs_stack[--gs_n]);
  if (!gs_n) {
    free(gs_stack);
    gs_stack = NULL;
    gs_cap = 0;
  }
}

int graph_scope_reset(void) {
  int old = gs_base;
  gs_base = gs_n;
  return old;
}

void graph_scope_restore(int base) {
  while (gs_n > gs_base) graph_scope_pop();
  gs_base = base;
}

/* ---- graphs and nodes -------------------------------------------------------- */

static char *graph_strdup(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d) rt_throw(ERR_MEMORY, "out of memory");
  return d;
}

Graph *graph_new(const char *name, const char *fname, Graph *parent) {
  Graph *g = calloc(1, sizeof(Graph));
  NameSet *ns = calloc(1, sizeof(NameSet));
  if (!g || !ns) rt_throw(ERR_MEMORY, "out of memory");
  g->rc = 1;
  g->name = graph_strdup(name);
  g->fname = graph_strdup(fname);
  g->parent = parent;
  g->names = ns;
  return g;
}

static void node_clear(GraphNode *n) {
  free(n->name);
  free(n->in);
  free(n->dyn_attr);
  if (n->raw) {
    for (int i = 0; i < n->nin; i++) val_decref(n->raw[i]);
    free(n->raw);
  }
  for (int i = 0; i < n->attrs.n; i++) val_decref(n->attrs.v[i]);
  free(n->outm);
  free(n->ctrl);
  if (n->value) tensor_release(n->value);
  if (n->var) val_decref(val_obj(n->var));
  for (int i = 0; i < 2; i++)
    if (n->sub[i]) graph_release(n->sub[i]);
  val_decref(n->aux);
}

bool (*graph_attr_cyclic)(Val v);

/* g and its bodies let go of the attribute values that may hold symbolic tensors of g (graph_attr_cyclic's). */
static void graph_drop_cyclic_attrs(Graph *g) {
  if (g->dropped) return;
  g->dropped = true;
  g->rc++;   /* (releasing a value may release g's last symbolic tensor) */
  for (int i = 0; i < g->nnodes; i++) {
    GraphNode *n = &g->nodes[i];
    for (int k = 0; k < n->attrs.n; k++)
      if (graph_attr_cyclic(n->attrs.v[k])) {
        Val v = n->attrs.v[k];
        n->attrs.v[k] = val_none();
        val_decref(v);
      }
    for (int k = 0; k < 2; k++)
      if (n->sub[k]) graph_drop_cyclic_attrs(n->sub[k]);
  }
  graph_release(g);
}

void graph_release(Graph *g) {
  if (!g) return;
  if (--g->rc > 0) {
    /* only its symbolic tensors hold it now (its function is gone): no run will read the attributes, and one
     * holding such a tensor (a dataset whose Python functions close over the trace's tensors) would keep the
     * graph in a cycle */
    if (g->rc == g->nsym && graph_attr_cyclic) graph_drop_cyclic_attrs(g);
    return;
  }
  for (int i = 0; i < g->nnodes; i++) node_clear(&g->nodes[i]);
  free(g->nodes);
  free(g->inputs);
  free(g->outputs);
  names_free(g->names);
  for (int i = 0; i < g->nreserved; i++) free(g->reserved[i]);
  free(g->reserved);
  free(g->ctrl_caps);
  free(g->name);
  free(g->fname);
  free(g);
}

/* A free name for base under the name-scope prefix (owned by the caller until a node or the reserved list takes it). */
static char *graph_scoped_name(Graph *g, const char *prefix, const char *base) {
  if (!*prefix) return graph_unique_name(g, base);
  size_t len = strlen(prefix) + strlen(base) + 1;
  char *full = malloc(len);
  if (!full) rt_throw(ERR_MEMORY, "out of memory");
  snprintf(full, len, "%s%s", prefix, base);
  int mark = rt_hold_mem(full);
  char *name = graph_unique_name(g, full);
  rt_unhold(mark);
  free(full);
  return name;
}

const char *graph_reserve_name(Graph *g, const char *base) {
  char **r = realloc(g->reserved, sizeof(char *) * (size_t)(g->nreserved + 1));
  if (!r) rt_throw(ERR_MEMORY, "out of memory");
  g->reserved = r;
  char *name = graph_scoped_name(g, graph_scope_prefix(), base);
  g->reserved[g->nreserved++] = name;
  return name;
}

/* ---- op name scopes ---------------------------------------------------------
 * TF's Python op wrappers and operators open name_scope(name, default) around
 * the op they make: the scope's unique name ('mul', 'mul_1', 'z') becomes the
 * op's own name, and what is made inside it ('mul/y', 'mul/ReadVariableOp')
 * lies under it.  An entry is the scope's name (reserved in g), its depth in
 * the scope stack, and whether an op took the name already. */

typedef struct OpScope { Graph *g; const OpDef *op; char name[256]; int depth; bool taken; } OpScope;
static OpScope os_stack[32];
static int os_n;

int graph_op_scope_enter(Graph *g, const char *name, const OpDef *op) {
  size_t n = strlen(name);
  char full[256];
  if (n && name[n - 1] == '/') snprintf(full, sizeof full, "%.*s", (int)(n - 1), name);   /* a scope made before: as it is */
  else snprintf(full, sizeof full, "%s", graph_reserve_name(g, name));
  char scope[260];
  snprintf(scope, sizeof scope, "%s/", full);
  graph_scope_push(scope);
  if (os_n < (int)(sizeof os_stack / sizeof *os_stack)) {
    OpScope *s = &os_stack[os_n];
    s->g = g;
    s->op = op;
    memcpy(s->name, full, sizeof full);
    s->depth = gs_n;
    s->taken = false;
  }
  return os_n++;
}

void graph_op_scope_exit(int tok) {
  while (os_n > tok) {
    os_n--;
    graph_scope_pop();
  }
}

/* The open op scope of g an op made now belongs to (scope stack at its depth), or NULL. */
static OpScope *graph_op_scope_top(const Graph *g) {
  if (!os_n || os_n > (int)(sizeof os_stack / sizeof *os_stack)) return NULL;
  OpScope *s = &os_stack[os_n - 1];
  return s->g == g && s->depth == gs_n ? s : NULL;
}

bool graph_op_scope_open(const Graph *g) { return graph_op_scope_top(g) != NULL; }

int graph_op_scope_own(Graph *g, const OpDef *op) {
  OpScope *s = graph_op_scope_top(g);
  if (s && !s->taken && (!s->op || s->op == op)) return -1;   /* op takes this scope's name already */
  return graph_op_scope_enter(g, op->graph_name, op);
}

int graph_add_node(Graph *g, GraphNodeKind kind, const OpDef *op, const char *base, int nout, const TMeta *outm) {
  if (g->nnodes == g->cap) {
    int cap = g->cap ? g->cap * 2 : 16;
    GraphNode *nodes = realloc(g->nodes, sizeof(GraphNode) * (size_t)cap);
    if (!nodes) rt_throw(ERR_MEMORY, "out of memory");
    g->nodes = nodes;
    g->cap = cap;
  }
  /* a While takes the name of the scope its loop counter was made in (while_v2: name_scope('while') around both) */
  OpScope *os = kind == GN_OP || kind == GN_WHILE ? graph_op_scope_top(g) : NULL;
  char *name;
  if (os && !os->taken && (!os->op || os->op == op)) {   /* the op of a TF name scope: the scope's own name */
    os->taken = true;
    name = graph_strdup(os->name);
  } else {
    /* an input is named for itself; a variable's handle (TF's captured resource placeholder) in the scope of the
     * op that first uses it (trace.c), as TF captures it while converting that op's inputs */
    name = graph_scoped_name(g, kind == GN_PLACEHOLDER ? "" : graph_scope_prefix(), base);
  }
  TMeta *m = NULL;
  if (nout > 0) {
    m = malloc(sizeof(TMeta) * (size_t)nout);
    if (!m) rt_throw(ERR_MEMORY, "out of memory");
    if (outm) memcpy(m, outm, sizeof(TMeta) * (size_t)nout);
  }
  int id = g->nnodes++;
  GraphNode *n = &g->nodes[id];
  memset(n, 0, sizeof *n);
  n->kind = kind;
  n->op = op;
  n->name = name;
  n->nout = nout;
  n->outm = m;
  n->loc = rt_user_loc();   /* a node traced inside the stdlib library fails at the user line that called it */
  n->param = -1;
  n->aux = val_undef();
  return id;
}

int graph_add_placeholder(Graph *g, const char *name, const TMeta *m) {
  int id = graph_add_node(g, GN_PLACEHOLDER, NULL, name, 1, m);
  int *in = realloc(g->inputs, sizeof(int) * (size_t)(g->ninputs + 1));
  if (!in) rt_throw(ERR_MEMORY, "out of memory");
  g->inputs = in;
  g->nodes[id].param = g->ninputs;
  g->inputs[g->ninputs++] = id;
  return id;
}

int graph_add_const(Graph *g, Tensor *value) { return graph_add_const_named(g, value, "Const"); }

int graph_add_const_named(Graph *g, Tensor *value, const char *base) {
  TMeta m;
  meta_set(&m, value->dtype, value->rank, value->shape);
  int id = graph_add_node(g, GN_CONST, NULL, base, 1, &m);
  g->nodes[id].value = tensor_retain(value);
  return id;
}

int graph_add_varhandle(Graph *g, Variable *var, const char *arg) {
  /* 'Variable:0' names the handle 'Variable' (an imported graph); a trace names it after its first reader */
  char base[128];
  snprintf(base, sizeof base, "%s", arg ? arg : var->name);
  char *colon = arg ? NULL : strrchr(base, ':');
  if (colon) *colon = 0;
  int id = graph_add_node(g, GN_VARHANDLE, NULL, base, 0, NULL);
  g->nodes[id].var = var;
  var->hdr.rc++;
  return id;
}

void graph_set_inputs(Graph *g, int node, int nin, const GraphRef *in, const Val *raw) {
  GraphNode *n = &g->nodes[node];
  n->nin = nin;
  n->in = malloc(sizeof(GraphRef) * (size_t)(nin ? nin : 1));
  if (!n->in) rt_throw(ERR_MEMORY, "out of memory");
  if (nin) memcpy(n->in, in, sizeof(GraphRef) * (size_t)nin);
  if (raw) {
    n->raw = malloc(sizeof(Val) * (size_t)(nin ? nin : 1));
    if (!n->raw) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < nin; i++) n->raw[i] = val_incref(raw[i]);
  }
}

void graph_add_dyn_attr(Graph *g, int node, int attr, GraphRef r) {
  GraphNode *n = &g->nodes[node];
  GraphRef *in = realloc(n->in, sizeof(GraphRef) * (size_t)(n->nin + n->ndyn + 1));
  int *da = realloc(n->dyn_attr, sizeof(int) * (size_t)(n->ndyn + 1));
  if (!in || !da) rt_throw(ERR_MEMORY, "out of memory");
  n->in = in;
  n->dyn_attr = da;
  n->in[n->nin + n->ndyn] = r;
  n->dyn_attr[n->ndyn++] = attr;
}

void graph_add_ctrl(Graph *g, int node, int dep) {
  GraphNode *n = &g->nodes[node];
  for (int i = 0; i < n->nctrl; i++)
    if (n->ctrl[i] == dep) return;
  int *c = realloc(n->ctrl, sizeof(int) * (size_t)(n->nctrl + 1));
  if (!c) rt_throw(ERR_MEMORY, "out of memory");
  n->ctrl = c;
  n->ctrl[n->nctrl++] = dep;
}

void graph_add_output(Graph *g, GraphRef r) {
  GraphRef *o = realloc(g->outputs, sizeof(GraphRef) * (size_t)(g->noutputs + 1));
  if (!o) rt_throw(ERR_MEMORY, "out of memory");
  g->outputs = o;
  g->outputs[g->noutputs++] = r;
}

const GraphRef graph_skip_node[1] = {{-1, 0}};

/* A value of the source graph in dst after graph_inline_sel (map: its node map). */
GraphRef graph_inline_ref(const int *map, const GraphRef *const *pre, GraphRef r) {
  if (r.node < 0) return r;
  return map[r.node] >= 0 ? (GraphRef){map[r.node], r.out} : pre[r.node][r.out];
}

void graph_inline_sel(Graph *dst, const Graph *src, const GraphRef *const *pre, int *map, int *last_effect, int *neffects) {
  for (int id = 0; id < src->nnodes; id++) {
    const GraphNode *n = &src->nodes[id];
    map[id] = -1;
    if (pre[id]) continue;   /* given (or skipped): not copied */
    /* the base name: src's name without a _N suffix TF-style uniquing added */
    char base[128];
    snprintf(base, sizeof base, "%s", n->name);
    int nid = graph_add_node(dst, n->kind, n->op, base, n->nout, n->outm);
    GraphNode *d = &dst->nodes[nid];
    d->loc = n->loc;
    d->flags = n->flags;
    d->param = -1;
    int ntot = n->nin + n->ndyn;
    d->nin = n->nin;
    d->ndyn = n->ndyn;
    d->in = malloc(sizeof(GraphRef) * (size_t)(ntot + 1));
    if (!d->in) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < ntot; i++) d->in[i] = graph_inline_ref(map, pre, n->in[i]);
    if (n->ndyn) {
      d->dyn_attr = malloc(sizeof(int) * (size_t)n->ndyn);
      if (!d->dyn_attr) rt_throw(ERR_MEMORY, "out of memory");
      memcpy(d->dyn_attr, n->dyn_attr, sizeof(int) * (size_t)n->ndyn);
    }
    if (n->raw) {
      d->raw = malloc(sizeof(Val) * (size_t)(n->nin ? n->nin : 1));
      if (!d->raw) rt_throw(ERR_MEMORY, "out of memory");
      for (int i = 0; i < n->nin; i++) d->raw[i] = val_incref(n->raw[i]);
    }
    d->attrs = n->attrs;
    for (int i = 0; i < n->attrs.n; i++) val_incref(n->attrs.v[i]);
    for (int i = 0; i < n->nctrl; i++)
      if (map[n->ctrl[i]] >= 0) graph_add_ctrl(dst, nid, map[n->ctrl[i]]);
    if (n->value) d->value = tensor_retain(n->value);
    if (n->var) {
      d->var = n->var;
      n->var->hdr.rc++;
    }
    for (int k = 0; k < 2; k++)
      if (n->sub[k]) d->sub[k] = graph_retain(n->sub[k]);
    d->aux = val_incref(n->aux);
    if (n->flags & GNF_STATEFUL) {
      if (*last_effect >= 0) graph_add_ctrl(dst, nid, *last_effect);
      *last_effect = nid;
      (*neffects)++;
    }
    map[id] = nid;
  }
}

void graph_inline(Graph *dst, const Graph *src, const GraphRef *args, GraphRef *outs, int *last_effect, int *neffects) {
  int *map = malloc(sizeof(int) * (size_t)(src->nnodes + 1));
  const GraphRef **pre = calloc((size_t)src->nnodes + 1, sizeof(GraphRef *));
  if (!map || !pre) rt_throw(ERR_MEMORY, "out of memory");
  /* a placeholder maps to its argument */
  for (int id = 0; id < src->nnodes; id++)
    if (src->nodes[id].kind == GN_PLACEHOLDER) pre[id] = &args[src->nodes[id].param];
  graph_inline_sel(dst, src, pre, map, last_effect, neffects);
  for (int i = 0; i < src->noutputs; i++) outs[i] = graph_inline_ref(map, pre, src->outputs[i]);
  free(map);
  free(pre);
}

/* A copy of src whose handles of Variable from[i] read to[i] instead, cond and
 * loop bodies included (a tf.function trace run for other Variables of the
 * same dtype and shape). */
/* A copy of src (in parent); its inputs from keep on become the constants vals. */
static Graph *graph_clone_inputs(const Graph *src, Graph *parent, int keep, Tensor *const *vals) {
  Graph *g = graph_new(src->name, src->fname, parent);
  g->escaped_loc = src->escaped_loc;
  int *map = malloc(sizeof(int) * (size_t)(src->nnodes + 1));
  const GraphRef **pre = calloc((size_t)src->nnodes + 1, sizeof(GraphRef *));
  GraphRef *args = malloc(sizeof(GraphRef) * (size_t)(src->ninputs + 1));
  if (!map || !pre || !args) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < src->ninputs; i++) {
    const GraphNode *ph = &src->nodes[src->inputs[i]];
    args[i] = (GraphRef){i < keep ? graph_add_placeholder(g, ph->name, &ph->outm[0]) : graph_add_const(g, vals[i - keep]), 0};
    pre[src->inputs[i]] = &args[i];
  }
  int last = -1, neff = 0;
  graph_inline_sel(g, src, pre, map, &last, &neff);
  for (int i = 0; i < src->noutputs; i++) graph_add_output(g, graph_inline_ref(map, pre, src->outputs[i]));
  free(map);
  free(pre);
  free(args);
  return g;
}

Graph *graph_clone_vars(const Graph *src, Graph *parent, int n, Variable *const *from, Variable *const *to) {
  Graph *g = graph_clone_inputs(src, parent, src->ninputs, NULL);
  for (int id = 0; id < g->nnodes; id++) {
    GraphNode *d = &g->nodes[id];
    if (d->kind == GN_VARHANDLE)
      for (int i = 0; i < n; i++)
        if (d->var == from[i]) {
          to[i]->hdr.rc++;
          val_decref(val_obj(d->var));
          d->var = to[i];
          break;
        }
    for (int k = 0; k < 2; k++)
      if (d->sub[k]) {
        Graph *cl = graph_clone_vars(d->sub[k], g, n, from, to);
        graph_release(d->sub[k]);
        d->sub[k] = cl;
      }
  }
  return g;
}

/* A copy of src whose inputs from keep on are the constants vals (a tf.data function's captured tensors, bound to
 * one run's values). */
Graph *graph_clone_bind(const Graph *src, int keep, Tensor *const *vals) { return graph_clone_inputs(src, NULL, keep, vals); }

/* ---- text form ------------------------------------------------------------------ */

void graph_shape_text(StrBuf *b, int rank, const tfs_i64 *shape) {
  if (rank < 0) {
    sb_puts(b, "<unknown>");
    return;
  }
  sb_putc(b, '(');
  for (int i = 0; i < rank; i++) {
    if (i) sb_puts(b, ", ");
    if (shape[i] < 0) sb_puts(b, "None");
    else sb_printf(b, "%lld", (long long)shape[i]);
  }
  if (rank == 1) sb_putc(b, ',');
  sb_putc(b, ')');
}

void graph_meta_text(StrBuf *b, const TMeta *m) {
  sb_puts(b, dtype_info[m->dtype].name);
  sb_putc(b, ' ');
  graph_shape_text(b, m->rank, m->shape);
}

static void graph_ref_text(StrBuf *b, const Graph *g, GraphRef r) {
  sb_puts(b, g->nodes[r.node].name);
  if (r.out) sb_printf(b, ":%d", r.out);
}

/* An attribute or host input: dtypes by name, tensors by value when small. */
static void graph_val_text(StrBuf *b, Val v) {
  DType dt;
  if (val_is(v, &dtype_type) && val_as_dtype(v, &dt)) {
    sb_printf(b, "tf.%s", dtype_info[dt].name);
    return;
  }
  Tensor *t = val_as_tensor(v);
  if (t && !t->sym && t->size <= 16) {
    StrBuf s;
    sb_init(&s);
    tprint_numpy(&s, t);
    for (size_t i = 0; i < s.len; i++)
      if (s.data[i] == '\n') s.data[i] = ' ';
    sb_putn(b, s.data, s.len);
    sb_free(&s);
    return;
  }
  if (t) {
    sb_printf(b, "<%s ", dtype_info[t->dtype].name);
    graph_shape_text(b, t->rank, t->shape);
    sb_putc(b, '>');
    return;
  }
  val_repr(b, v);
}

static const char *graph_op_name(const GraphNode *n) {
  switch (n->kind) {
    case GN_OP: return n->op->graph_name;
    case GN_PLACEHOLDER: return "Placeholder";
    case GN_CONST: return "Const";
    case GN_VARHANDLE: return "Placeholder";   /* a captured Variable's handle, as TF's FuncGraph has it */
    case GN_COND: return "If";
    case GN_WHILE: return "While";
  }
  return "?";
}

static void graph_text_indent(StrBuf *b, const Graph *g, int indent) {
  for (int id = 0; id < g->nnodes; id++) {
    const GraphNode *n = &g->nodes[id];
    sb_printf(b, "%*s%s = %s(", indent, "", n->name, graph_op_name(n));
    bool first = true;
    for (int i = 0; i < n->nin; i++) {
      if (!first) sb_puts(b, ", ");
      first = false;
      if (n->in[i].node >= 0) graph_ref_text(b, g, n->in[i]);
      else if (n->raw && !val_is_undef(n->raw[i])) graph_val_text(b, n->raw[i]);
      else sb_puts(b, "None");
    }
    for (int i = 0; i < n->nctrl; i++) {
      if (!first) sb_puts(b, ", ");
      first = false;
      sb_printf(b, "^%s", g->nodes[n->ctrl[i]].name);
    }
    sb_putc(b, ')');
    if (n->kind == GN_VARHANDLE) sb_puts(b, " -> resource ()");
    for (int i = 0; i < n->nout; i++) {
      sb_puts(b, i ? ", " : " -> ");
      graph_meta_text(b, &n->outm[i]);
    }
    if (n->kind == GN_CONST) {
      sb_puts(b, " value=");
      graph_val_text(b, val_obj(n->value));
    }
    if (n->kind == GN_OP) {
      for (int i = 0; i < n->attrs.n; i++) {
        int dyn = -1;
        for (int k = 0; k < n->ndyn; k++)
          if (n->dyn_attr[k] == i) dyn = k;
        if (dyn < 0 && val_is_undef(n->attrs.v[i])) continue;
        sb_printf(b, " %s=", op_attr_name(n->op, i));
        if (dyn >= 0) graph_ref_text(b, g, n->in[n->nin + dyn]);
        else graph_val_text(b, n->attrs.v[i]);
      }
    }
    if (n->kind == GN_COND || n->kind == GN_WHILE) {
      sb_putc(b, '\n');
      for (int k = 0; k < 2; k++) {
        if (!n->sub[k]) continue;
        sb_printf(b, "%*s  %s {\n", indent, "",
                  n->kind == GN_COND ? (k ? "else_branch" : "then_branch") : (k ? "body" : "cond"));
        graph_text_indent(b, n->sub[k], indent + 4);
        sb_printf(b, "%*s  }\n", indent, "");
      }
      continue;
    }
    sb_putc(b, '\n');
  }
  sb_printf(b, "%*sreturn", indent, "");
  for (int i = 0; i < g->noutputs; i++) {
    sb_puts(b, i ? ", " : " ");
    graph_ref_text(b, g, g->outputs[i]);
  }
  sb_putc(b, '\n');
}

void graph_text(StrBuf *b, const Graph *g) { graph_text_indent(b, g, 0); }

/* ---- Graphviz ------------------------------------------------------------------- */

static void dot_escape(StrBuf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') sb_putc(b, '\\');
    if (*s == '\n') { sb_puts(b, "\\n"); continue; }
    sb_putc(b, *s);
  }
}

static void graph_dot_body(StrBuf *b, const Graph *g, const char *prefix) {
  for (int id = 0; id < g->nnodes; id++) {
    const GraphNode *n = &g->nodes[id];
    StrBuf label;
    sb_init(&label);
    sb_printf(&label, "%s\n%s", n->name, graph_op_name(n));
    for (int i = 0; i < n->nout; i++) {
      sb_putc(&label, '\n');
      graph_meta_text(&label, &n->outm[i]);
    }
    const char *shape = n->kind == GN_PLACEHOLDER ? "invhouse" : n->kind == GN_CONST ? "note"
                        : n->kind == GN_VARHANDLE ? "cylinder" : (n->flags & GNF_STATEFUL) ? "box3d" : "box";
    sb_printf(b, "  \"%s%d\" [shape=%s, label=\"", prefix, id, shape);
    dot_escape(b, label.data ? label.data : "");
    sb_puts(b, "\"");
    const RtLoc *l = rt_loc_get(n->loc);
    const RtFile *f = l ? rt_file_get(l->file) : NULL;
    if (f && f->path) {
      sb_puts(b, ", tooltip=\"");
      dot_escape(b, f->path);
      sb_printf(b, ":%d:%d\"", l->line, l->col);
    }
    sb_puts(b, "];\n");
    sb_free(&label);
    for (int i = 0; i < n->nin + n->ndyn; i++)
      if (n->in[i].node >= 0) {
        sb_printf(b, "  \"%s%d\" -> \"%s%d\"", prefix, n->in[i].node, prefix, id);
        if (n->in[i].out) sb_printf(b, " [label=\"%d\"]", n->in[i].out);
        sb_puts(b, ";\n");
      }
    for (int i = 0; i < n->nctrl; i++)
      sb_printf(b, "  \"%s%d\" -> \"%s%d\" [style=dashed];\n", prefix, n->ctrl[i], prefix, id);
    for (int k = 0; k < 2; k++) {
      if (!n->sub[k]) continue;
      char sub[256];
      snprintf(sub, sizeof sub, "%s%d_%d_", prefix, id, k);
      sb_printf(b, "  subgraph \"cluster_%s\" {\n  label=\"", sub);
      dot_escape(b, n->sub[k]->name);
      sb_puts(b, "\";\n");
      graph_dot_body(b, n->sub[k], sub);
      sb_puts(b, "  }\n");
    }
  }
  sb_printf(b, "  \"%sreturn\" [shape=oval, label=\"return\"];\n", prefix);
  for (int i = 0; i < g->noutputs; i++)
    sb_printf(b, "  \"%s%d\" -> \"%sreturn\";\n", prefix, g->outputs[i].node, prefix);
}

void graph_dot(StrBuf *b, const Graph *g) {
  sb_puts(b, "digraph \"");
  dot_escape(b, g->name);
  sb_puts(b, "\" {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n");
  graph_dot_body(b, g, "n");
  sb_puts(b, "}\n");
}

/* ---- finished graphs ------------------------------------------------------------- */

void (*graph_traced_hook)(Graph *g);
