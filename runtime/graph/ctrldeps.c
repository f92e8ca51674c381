/* ctrldeps.c — tf.control_dependencies while tracing: the open blocks' control inputs given to the nodes made in them. */
#include <stdlib.h>

#include "graph/graph.h"

/* One open `with tf.control_dependencies(...)` block of graph g (TF 2.15 ops.py _ControlDependenciesController):
 * start is the first node id made in it (nodes are only appended, so "made in the block" is id >= start while it is
 * open); clear: control_dependencies(None), which hides the blocks under it. */
typedef struct CtrlBlock { Graph *g; int start; int *deps; int ndeps; bool clear; } CtrlBlock;

static CtrlBlock *cd_stack;
static int cd_n, cd_cap;

static bool cd_has(const int *a, int n, int x) {
  for (int i = 0; i < n; i++)
    if (a[i] == x) return true;
  return false;
}

/* a node already a control input of an open block of g (TF's Graph.control_dependencies skips those: `current`) */
static bool cd_current(const Graph *g, int dep) {
  for (int i = cd_n - 1; i >= 0; i--) {
    if (cd_stack[i].g != g) continue;
    if (cd_has(cd_stack[i].deps, cd_stack[i].ndeps, dep)) return true;
    if (cd_stack[i].clear) break;
  }
  return false;
}

/* node made in a block opened at start, as TF's controller sees ops: captures (placeholders, variables' handles,
 * captured tensors) TF makes under control_dependencies(None), unseen */
static bool cd_seen(const Graph *g, int node, int start) {
  if (node < start) return false;
  const GraphNode *n = &g->nodes[node];
  return n->kind != GN_PLACEHOLDER && n->kind != GN_VARHANDLE && !(n->kind == GN_CONST && (n->flags & GNF_CAPTURE));
}

int graph_ctrl_push(Graph *g, const int *deps, int n, bool clear) {
  if (cd_n == cd_cap) {
    int cap = cd_cap ? cd_cap * 2 : 8;
    CtrlBlock *s = realloc(cd_stack, sizeof(CtrlBlock) * (size_t)cap);
    if (!s) rt_throw(ERR_MEMORY, "out of memory");
    cd_stack = s;
    cd_cap = cap;
  }
  int *d = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!d) rt_throw(ERR_MEMORY, "out of memory");
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!cd_has(d, k, deps[i]) && (clear || !cd_current(g, deps[i]))) d[k++] = deps[i];
  cd_stack[cd_n] = (CtrlBlock){g, g->nnodes, d, k, clear};
  return cd_n++;
}

void graph_ctrl_pop(int token) {
  while (cd_n > token) {
    cd_n--;
    free(cd_stack[cd_n].deps);
  }
}

/* TF's Graph._control_dependencies_for_inputs: a block whose nodes feed the node dominates it (no edges from that
 * block); else the node waits for the block's control inputs that are not already its data inputs.  Outer blocks'
 * edges come first, as TF walks its controller stack bottom-up. */
void graph_ctrl_apply(Graph *g, int node) {
  int lo = cd_n;
  while (lo > 0 && !(cd_stack[lo - 1].g == g && cd_stack[lo - 1].clear)) lo--;
  if (lo > 0) lo--;   /* from the innermost clearing block of g (it may list inputs again) */
  const GraphNode *n = &g->nodes[node];
  for (int b = lo; b < cd_n; b++) {
    const CtrlBlock *c = &cd_stack[b];
    if (c->g != g || node < c->start) continue;
    bool dominated = false;
    for (int i = 0; i < n->nin + n->ndyn && !dominated; i++) dominated = cd_seen(g, n->in[i].node, c->start);
    if (dominated) continue;
    for (int k = 0; k < c->ndeps; k++) {
      bool data = false;
      for (int i = 0; i < n->nin + n->ndyn && !data; i++) data = n->in[i].node == c->deps[k];
      if (!data && c->deps[k] != node) graph_add_ctrl(g, node, c->deps[k]);
      n = &g->nodes[node];
    }
  }
}

bool graph_ctrl_capture(Graph *g, Graph *owner, int node) {
  const Graph *p = g->parent;
  while (p && p != owner) p = p->parent;
  if (!p) return false;
  for (int i = 0; i < g->nctrl_caps; i++)
    if (g->ctrl_caps[i].g == owner && g->ctrl_caps[i].node == node) return true;
  GraphCtrlCap *c = realloc(g->ctrl_caps, sizeof(GraphCtrlCap) * (size_t)(g->nctrl_caps + 1));
  if (!c) rt_throw(ERR_MEMORY, "out of memory");
  g->ctrl_caps = c;
  c[g->nctrl_caps++] = (GraphCtrlCap){owner, node};
  return true;
}

int graph_ctrl_push_caps(Graph *g, Graph *const *bodies, int nb) {
  int n = 0;
  for (int b = 0; b < nb; b++) n += bodies[b] ? bodies[b]->nctrl_caps : 0;
  int *ids = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!ids) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(ids), k = 0;   /* freed when a throw unwinds */
  for (int b = 0; b < nb; b++)
    for (int i = 0; bodies[b] && i < bodies[b]->nctrl_caps; i++) {
      const GraphCtrlCap *c = &bodies[b]->ctrl_caps[i];
      if (c->g == g) ids[k++] = c->node;
      else graph_ctrl_capture(g, c->g, c->node);   /* a graph enclosing g: the node made from g waits for it */
    }
  int tok = graph_ctrl_push(g, ids, k, false);
  rt_unhold(mark);
  free(ids);
  return tok;
}
