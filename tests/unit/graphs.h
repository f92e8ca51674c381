/* graphs.h — small hand-built graphs shared by the unit tests (a cond, a counting while loop) and their helpers. */
#ifndef TFS_TEST_GRAPHS_H
#define TFS_TEST_GRAPHS_H

#include <string.h>

#include "graph/graph.h"
#include "tensor/tensor.h"

static inline Tensor *scalar_i(int32_t v) {
  Tensor *t = tensor_scalar(DT_INT32);
  *(int32_t *)tensor_data(t) = v;
  return t;
}

static inline int add_const_i(Graph *g, int32_t v) {
  Tensor *t = scalar_i(v);
  int id = graph_add_const(g, t);
  tensor_release(t);
  return id;
}

/* An op node with tensor inputs and no attributes. */
static inline int add_op(Graph *g, OpId id, int nin, const GraphRef *in, const TMeta *outm) {
  int n = graph_add_node(g, GN_OP, &op_defs[id], op_defs[id].graph_name, 1, outm);
  graph_set_inputs(g, n, nin, in, NULL);
  return n;
}

/* f(p: bool, x: float32) = x + x if p else -x, as one cond node (its id in *cond). */
static inline Graph *cond_graph(int *cond) {
  TMeta mb = {DT_BOOL, 0, {0}}, mf = {DT_FLOAT32, 0, {0}};
  Graph *g = graph_new("f", "f", NULL);
  int p = graph_add_placeholder(g, "p", &mb);
  int x = graph_add_placeholder(g, "x", &mf);
  Graph *then = graph_new("then", "f", g), *els = graph_new("else", "f", g);
  int tx = graph_add_placeholder(then, "x", &mf);
  GraphRef txx[2] = {{tx, 0}, {tx, 0}};
  int tm = add_op(then, OP_ADD, 2, txx, &mf);
  graph_add_output(then, (GraphRef){tm, 0});
  int ex = graph_add_placeholder(els, "x", &mf);
  int en = add_op(els, OP_NEG, 1, &(GraphRef){ex, 0}, &mf);
  graph_add_output(els, (GraphRef){en, 0});
  int c = graph_add_node(g, GN_COND, NULL, "cond", 1, &mf);
  GraphRef cin[2] = {{p, 0}, {x, 0}};
  graph_set_inputs(g, c, 2, cin, NULL);
  graph_node(g, c)->sub[0] = then;
  graph_node(g, c)->sub[1] = els;
  graph_add_output(g, (GraphRef){c, 0});
  if (cond) *cond = c;
  return g;
}

/* f(n: int32) = sum of i for i < n, as a while node over (i, s) capturing n (its id in *loop). */
static inline Graph *sum_while_graph(int *loop) {
  TMeta mi = {DT_INT32, 0, {0}}, mb = {DT_BOOL, 0, {0}};
  Graph *g = graph_new("f", "f", NULL);
  int n = graph_add_placeholder(g, "n", &mi);
  int i0 = add_const_i(g, 0), s0 = add_const_i(g, 0);
  Graph *cg = graph_new("cond", "f", g), *bg = graph_new("body", "f", g);
  int ci = graph_add_placeholder(cg, "i", &mi);
  graph_add_placeholder(cg, "s", &mi);
  int cn = graph_add_placeholder(cg, "n", &mi);
  GraphRef lt[2] = {{ci, 0}, {cn, 0}};
  int less = add_op(cg, OP_LESS, 2, lt, &mb);
  graph_add_output(cg, (GraphRef){less, 0});
  int bi = graph_add_placeholder(bg, "i", &mi);
  int bs = graph_add_placeholder(bg, "s", &mi);
  graph_add_placeholder(bg, "n", &mi);
  int one = add_const_i(bg, 1);
  GraphRef inc[2] = {{bi, 0}, {one, 0}}, acc[2] = {{bs, 0}, {bi, 0}};
  int ni = add_op(bg, OP_ADD, 2, inc, &mi);
  int ns = add_op(bg, OP_ADD, 2, acc, &mi);
  graph_add_output(bg, (GraphRef){ni, 0});
  graph_add_output(bg, (GraphRef){ns, 0});
  TMeta outm[2] = {mi, mi};
  int w = graph_add_node(g, GN_WHILE, NULL, "while", 2, outm);
  GraphRef win[3] = {{i0, 0}, {s0, 0}, {n, 0}};
  graph_set_inputs(g, w, 3, win, NULL);
  graph_node(g, w)->sub[0] = cg;
  graph_node(g, w)->sub[1] = bg;
  graph_add_output(g, (GraphRef){w, 1});
  if (loop) *loop = w;
  return g;
}

#endif
