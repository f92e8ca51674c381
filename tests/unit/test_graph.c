/* test_graph.c — the graph IR, tracing hook, planner (pruning, folding, CSE, lifetimes) and executor. */
#include <check.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "object.h"
#include "tensor.h"
#include "trace.h"

/* ---- helpers ------------------------------------------------------------------------ */

static Tensor *vec_f(int n, const float *v) {
  tfs_i64 shape[1] = {n};
  Tensor *t = tensor_new(DT_FLOAT32, 1, shape);
  memcpy(tensor_data(t), v, sizeof(float) * (size_t)n);
  return t;
}

static Tensor *scalar_f(float v) {
  Tensor *t = tensor_scalar(DT_FLOAT32);
  *(float *)tensor_data(t) = v;
  return t;
}

static float elem_f(const Tensor *t, int i) { return (float)tensor_get_f(t, i); }

static char *text_of(const Graph *g) {
  StrBuf b;
  sb_init(&b);
  graph_text(&b, g);
  return sb_steal(&b);
}

/* An op node with tensor inputs and no attributes. */
static int add_op(Graph *g, OpId id, int nin, const GraphRef *in, const TMeta *outm) {
  int n = graph_add_node(g, GN_OP, &op_defs[id], op_defs[id].graph_name, 1, outm);
  graph_set_inputs(g, n, nin, in, NULL);
  return n;
}

/* Trace `body` with one float32 placeholder of shape (None, 3). */
static Graph *trace_graph(Val (*body)(Val x), Val *out_repr) {
  Graph *g = graph_new("f", "f", NULL);
  TraceCtx *cx = trace_push(g, true, false);
  TMeta m = {DT_FLOAT32, 2, {-1, 3}};
  Val x = trace_placeholder(g, "x", &m);
  Val r = body(x);
  if (out_repr) *out_repr = repr_of(r);
  GraphRef ref;
  ck_assert(trace_ref(cx, r, &ref));
  graph_add_output(g, ref);
  val_decref(r);
  val_decref(x);
  trace_pop(cx);
  return g;
}

static Val body_square_plus_one(Val x) {
  Val sq = op_apply2(OP_MUL, x, x);
  Val r = op_apply2(OP_ADD, sq, val_float(1.0));
  val_decref(sq);
  return r;
}

/* ---- graph IR -------------------------------------------------------------------------- */

START_TEST(test_names_and_text) {
  Graph *g = graph_new("f", "f", NULL);
  TMeta m = {DT_FLOAT32, 1, {-1}};
  int x = graph_add_placeholder(g, "x", &m);
  Tensor *c = scalar_f(2.0f);
  int k = graph_add_const(g, c);
  tensor_release(c);
  GraphRef in[2] = {{x, 0}, {k, 0}};
  int a = add_op(g, OP_MUL, 2, in, &m);
  GraphRef in2[2] = {{a, 0}, {a, 0}};
  int b = add_op(g, OP_MUL, 2, in2, &m);
  ck_assert_str_eq(graph_node(g, a)->name, "Mul");
  ck_assert_str_eq(graph_node(g, b)->name, "Mul_1");
  graph_add_output(g, (GraphRef){b, 0});
  char *t = text_of(g);
  ck_assert_str_eq(t,
                   "x = Placeholder() -> float32 (None,)\n"
                   "Const = Const() -> float32 () value=2.0\n"
                   "Mul = Mul(x, Const) -> float32 (None,)\n"
                   "Mul_1 = Mul(Mul, Mul) -> float32 (None,)\n"
                   "return Mul_1\n");
  free(t);
  StrBuf d;
  sb_init(&d);
  graph_dot(&d, g);
  ck_assert_ptr_nonnull(strstr(d.data, "digraph \"f\""));
  ck_assert_ptr_nonnull(strstr(d.data, "\"n0\" -> \"n2\""));
  sb_free(&d);
  graph_release(g);
}
END_TEST

/* ---- tracing ----------------------------------------------------------------------------- */

START_TEST(test_trace_records_ops) {
  Val rep;
  Graph *g = trace_graph(body_square_plus_one, &rep);
  ck_assert_str_eq(str_cstr(rep), "Tensor(\"AddV2:0\", shape=(None, 3), dtype=float32)");
  val_decref(rep);
  ck_assert_int_eq(g->ninputs, 1);
  ck_assert_int_eq(g->nnodes, 4);   /* x, Mul, Const, AddV2 */
  const GraphNode *n = graph_node(g, 3);
  ck_assert_int_eq(n->kind, GN_OP);
  ck_assert_str_eq(n->op->graph_name, "AddV2");
  ck_assert_int_eq(n->outm[0].rank, 2);
  ck_assert_int_eq(n->outm[0].shape[0], -1);
  ck_assert_int_eq(n->outm[0].shape[1], 3);
  ck_assert(!trace_active());
  graph_release(g);
}
END_TEST

START_TEST(test_trace_dtype_error) {
  Graph *g = graph_new("f", "f", NULL);
  TraceCtx *cx = trace_push(g, true, false);
  TMeta m = {DT_INT32, 0, {0}};
  Val x = trace_placeholder(g, "x", &m);
  Val y = val_obj(scalar_f(1.5f));
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val r = op_apply2(OP_ADD, x, y);
    val_decref(r);
    rt_try_pop(&t);
    ck_abort_msg("int32 + float32 must fail");
  } else {
    ck_assert_ptr_nonnull(strstr(t.msg, "expected to be a int32 tensor but is a float tensor"));
    rt_try_clear(&t);
  }
  val_decref(y);
  val_decref(x);
  trace_pop(cx);
  graph_release(g);
}
END_TEST

static Val body_shape_reshape(Val x) {
  /* tf.reshape(x, tf.shape(x)) needs the static value of tf.shape(x); here
   * the shape has an unknown dim, so the static value does not exist */
  (void)x;
  TMeta m = {DT_FLOAT32, 1, {4}};
  Graph *g = trace_current()->g;
  Val p = trace_placeholder(g, "p", &m);
  Val s = op_apply1(OP_SHAPE, p);
  Graph *sg;
  GraphRef sr;
  ck_assert(trace_sym_ref(val_tensor(s), &sg, &sr));
  Tensor *st = trace_static_value(sg, sr);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(st->size, 1);
  ck_assert_int_eq(tensor_get_i(st, 0), 4);
  tensor_release(st);
  val_decref(s);
  return p;
}

START_TEST(test_static_value_of_shape) {
  Graph *g = trace_graph(body_shape_reshape, NULL);
  graph_release(g);
}
END_TEST

/* ---- planning and execution -------------------------------------------------------------------- */

START_TEST(test_exec_runs_and_releases) {
  Graph *g = trace_graph(body_square_plus_one, NULL);
  ExecPlan *p = exec_plan_new(g);
  float xv[6] = {1, 2, 3, 4, 5, 6};
  tfs_i64 shape[2] = {2, 3};
  Tensor *x = tensor_new(DT_FLOAT32, 2, shape);
  memcpy(tensor_data(x), xv, sizeof xv);
  for (int rep = 0; rep < 3; rep++) {
    Tensor *out;
    exec_run(p, &x, &out);
    ck_assert_int_eq(out->rank, 2);
    ck_assert_int_eq(out->shape[0], 2);
    for (int i = 0; i < 6; i++) ck_assert(elem_f(out, i) == xv[i] * xv[i] + 1);
    ck_assert_int_eq(out->hdr.rc, 1);   /* handed over, nothing else holds it */
    tensor_release(out);
  }
  ck_assert_int_eq(x->hdr.rc, 1);       /* inputs are borrowed */
  tensor_release(x);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

START_TEST(test_prune_fold_cse) {
  Graph *g = graph_new("f", "f", NULL);
  TMeta m1 = {DT_FLOAT32, 1, {2}}, m0 = {DT_FLOAT32, 0, {0}};
  int x = graph_add_placeholder(g, "x", &m1);
  Tensor *c1 = scalar_f(3.0f), *c2 = scalar_f(4.0f);
  int k1 = graph_add_const(g, c1), k2 = graph_add_const(g, c2);
  tensor_release(c1);
  tensor_release(c2);
  GraphRef kk[2] = {{k1, 0}, {k2, 0}};
  int folded = add_op(g, OP_MUL, 2, kk, &m0);                /* 12: folded */
  GraphRef xf[2] = {{x, 0}, {folded, 0}};
  int m_a = add_op(g, OP_MUL, 2, xf, &m1);
  int m_b = add_op(g, OP_MUL, 2, xf, &m1);                    /* same as m_a: CSE */
  GraphRef ab[2] = {{m_a, 0}, {m_b, 0}};
  int sum = add_op(g, OP_ADD, 2, ab, &m1);
  int dead = add_op(g, OP_SUB, 2, ab, &m1);                   /* unused: pruned */
  (void)dead;
  graph_add_output(g, (GraphRef){sum, 0});
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.folded, 1);
  ck_assert_int_eq(st.cse, 1);
  ck_assert_int_eq(st.pruned, 1);
  ck_assert_int_eq(st.steps, 2);   /* Mul, AddV2 */
  ck_assert(!exec_plan_runs(p, folded));
  ck_assert(!exec_plan_runs(p, m_b));
  ck_assert(exec_plan_runs(p, m_a));
  float xv[2] = {1, 2};
  Tensor *xt = vec_f(2, xv), *out;
  exec_run(p, &xt, &out);
  ck_assert(elem_f(out, 0) == 24 && elem_f(out, 1) == 48);
  tensor_release(out);
  tensor_release(xt);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* A failing op that nothing needs never runs; a needed one fails at its node. */
START_TEST(test_nonstrict_and_error_location) {
  Graph *g = graph_new("f", "myfn", NULL);
  TMeta m1 = {DT_FLOAT32, 1, {1}};
  int x = graph_add_placeholder(g, "x", &m1);
  tfs_i64 one = 1;
  Tensor *idx = tensor_new(DT_INT32, 1, &one);
  *(int32_t *)tensor_data(idx) = 5;
  int k = graph_add_const(g, idx);
  tensor_release(idx);
  GraphRef in[2] = {{x, 0}, {k, 0}};
  int gather = graph_add_node(g, GN_OP, &op_defs[OP_GATHER], "GatherV2", 1, &m1);
  graph_set_inputs(g, gather, 2, in, NULL);
  graph_add_output(g, (GraphRef){x, 0});
  ExecPlan *p = exec_plan_new(g);
  float xv[1] = {7};
  Tensor *xt = vec_f(1, xv), *out;
  exec_run(p, &xt, &out);   /* the gather is pruned: no error */
  ck_assert(out == xt);
  tensor_release(out);
  exec_plan_free(p);

  g->outputs[0] = (GraphRef){gather, 0};
  p = exec_plan_new(g);
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    exec_run(p, &xt, &out);
    rt_try_pop(&t);
    ck_abort_msg("gather out of range must fail");
  } else {
    ck_assert_ptr_nonnull(strstr(t.msg, "(node GatherV2 in tf.function 'myfn')"));
    rt_try_clear(&t);
  }
  ck_assert_int_eq(xt->hdr.rc, 1);
  tensor_release(xt);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* Outputs that are inputs, constants or repeated values are retained, not moved. */
START_TEST(test_output_aliasing) {
  Graph *g = graph_new("f", "f", NULL);
  TMeta m1 = {DT_FLOAT32, 1, {2}};
  int x = graph_add_placeholder(g, "x", &m1);
  GraphRef xx[2] = {{x, 0}, {x, 0}};
  int a = add_op(g, OP_ADD, 2, xx, &m1);
  int id = graph_add_node(g, GN_OP, &op_defs[OP_IDENTITY], "Identity", 1, &m1);
  graph_set_inputs(g, id, 1, &(GraphRef){a, 0}, NULL);
  graph_add_output(g, (GraphRef){a, 0});
  graph_add_output(g, (GraphRef){id, 0});
  graph_add_output(g, (GraphRef){x, 0});
  ExecPlan *p = exec_plan_new(g);
  float xv[2] = {1, 2};
  Tensor *xt = vec_f(2, xv), *out[3];
  exec_run(p, &xt, out);
  ck_assert(out[0] == out[1]);
  ck_assert_int_eq(out[0]->hdr.rc, 2);
  ck_assert(out[2] == xt);
  ck_assert(elem_f(out[0], 1) == 4);
  for (int i = 0; i < 3; i++) tensor_release(out[i]);
  ck_assert_int_eq(xt->hdr.rc, 1);
  tensor_release(xt);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST


/* Graph cond and while nodes run their bodies' plans. */
static Tensor *scalar_i(int32_t v) {
  Tensor *t = tensor_scalar(DT_INT32);
  *(int32_t *)tensor_data(t) = v;
  return t;
}

static int add_const_i(Graph *g, int32_t v) {
  Tensor *t = scalar_i(v);
  int id = graph_add_const(g, t);
  tensor_release(t);
  return id;
}

START_TEST(test_exec_cond) {
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
  char *t = text_of(g);
  ck_assert_ptr_nonnull(strstr(t, "cond = If(p, x) -> float32 ()\n  then_branch {\n"));
  free(t);
  ExecPlan *pl = exec_plan_new(g);
  for (int b = 0; b < 2; b++) {
    Tensor *pt = tensor_scalar(DT_BOOL);
    *(bool *)tensor_data(pt) = b;
    Tensor *xt = scalar_f(3.0f), *args[2] = {pt, xt}, *out;
    exec_run(pl, args, &out);
    ck_assert(elem_f(out, 0) == (b ? 6.0f : -3.0f));
    tensor_release(out);
    tensor_release(pt);
    tensor_release(xt);
  }
  exec_plan_free(pl);
  graph_release(g);
}
END_TEST

START_TEST(test_exec_while) {
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
  ExecPlan *pl = exec_plan_new(g);
  int32_t ns_[3] = {0, 1, 10}, want[3] = {0, 0, 45};
  for (int k = 0; k < 3; k++) {
    Tensor *nt = scalar_i(ns_[k]), *out;
    exec_run(pl, &nt, &out);
    ck_assert_int_eq(tensor_get_i(out, 0), want[k]);
    tensor_release(out);
    tensor_release(nt);
  }
  /* maximum_iterations */
  exec_plan_free(pl);
  graph_node(g, w)->aux = val_int(3);
  pl = exec_plan_new(g);
  Tensor *nt = scalar_i(10), *out;
  exec_run(pl, &nt, &out);
  ck_assert_int_eq(tensor_get_i(out, 0), 3);
  tensor_release(out);
  tensor_release(nt);
  exec_plan_free(pl);
  graph_release(g);
}
END_TEST

static Suite *graph_suite(void) {
  Suite *s = suite_create("graph");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_names_and_text);
  tcase_add_test(tc, test_trace_records_ops);
  tcase_add_test(tc, test_trace_dtype_error);
  tcase_add_test(tc, test_static_value_of_shape);
  tcase_add_test(tc, test_exec_runs_and_releases);
  tcase_add_test(tc, test_prune_fold_cse);
  tcase_add_test(tc, test_nonstrict_and_error_location);
  tcase_add_test(tc, test_output_aliasing);
  tcase_add_test(tc, test_exec_cond);
  tcase_add_test(tc, test_exec_while);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(graph_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
