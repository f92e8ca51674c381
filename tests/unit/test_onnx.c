/* test_onnx.c — the ONNX model writer: graphs in, ModelProtos out (decoded again with protobuf-c), refusals as located errors. */
#include <check.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "graphs.h"
#include "object/object.h"
#include "formats/onnx.h"
#include "onnx.pb-c.h"
#include "tensor/tensor.h"
#include "graph/trace.h"

static Onnx__ModelProto *export(const Graph *g) {
  size_t n;
  unsigned char *b = onnx_model_pack(g, "f", NULL, NULL, &n);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, n, b);
  free(b);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(m->ir_version, 8);
  ck_assert_int_eq(m->n_opset_import, 1);
  ck_assert_str_eq(m->opset_import[0]->domain, "");
  ck_assert_int_eq(m->opset_import[0]->version, 17);
  return m;
}

/* The node of graph gp whose op is `op` (the first), or NULL. */
static Onnx__NodeProto *find(const Onnx__GraphProto *gp, const char *op) {
  for (size_t i = 0; i < gp->n_node; i++)
    if (!strcmp(gp->node[i]->op_type, op)) return gp->node[i];
  return NULL;
}

static Onnx__GraphProto *graph_attr(const Onnx__NodeProto *nd, const char *name) {
  for (size_t i = 0; i < nd->n_attribute; i++)
    if (!strcmp(nd->attribute[i]->name, name)) return nd->attribute[i]->g;
  return NULL;
}

/* x * x + 1 over a (None, 3) input: symbolic dim, constant folded into a Constant, output_0. */
START_TEST(test_symbolic_dims_and_ops) {
  Graph *g = graph_new("f", "f", NULL);
  TraceCtx *cx = trace_push(g, true, false);
  TMeta m = {DT_FLOAT32, 2, {-1, 3}};
  Val x = trace_placeholder(g, "x", &m);
  Val sq = op_apply2(OP_MUL, x, x);
  Val r = op_apply2(OP_ADD, sq, val_float(1.0));
  GraphRef ref;
  ck_assert(trace_ref(cx, r, &ref));
  graph_add_output(g, ref);
  val_decref(r);
  val_decref(sq);
  val_decref(x);
  trace_pop(cx);
  Onnx__ModelProto *mp = export(g);
  Onnx__GraphProto *gp = mp->graph;
  ck_assert_int_eq(gp->n_input, 1);
  ck_assert_str_eq(gp->input[0]->name, "x");
  Onnx__TypeProto__Tensor *tt = gp->input[0]->type->tensor_type;
  ck_assert_int_eq(tt->elem_type, 1);   /* FLOAT */
  ck_assert_int_eq(tt->shape->n_dim, 2);
  ck_assert_str_eq(tt->shape->dim[0]->dim_param, "x_dim0");
  ck_assert_int_eq(tt->shape->dim[1]->dim_value, 3);
  ck_assert_int_eq(gp->n_output, 1);
  ck_assert_str_eq(gp->output[0]->name, "output_0");
  ck_assert_ptr_nonnull(find(gp, "Mul"));
  ck_assert_ptr_nonnull(find(gp, "Add"));
  ck_assert_ptr_nonnull(find(gp, "Constant"));
  onnx__model_proto__free_unpacked(mp, NULL);
  graph_release(g);
}
END_TEST

/* A SavedModel signature's names: inputs and outputs as given, a NULL output name falls back to output_i. */
START_TEST(test_given_names) {
  Graph *g = cond_graph(NULL);
  ck_assert_int_ge(g->noutputs, 1);
  const char *in[] = {"sig_p", "sig_x"};
  const char *out[] = {NULL, NULL};
  const char *named[] = {"result", "result_b"};
  for (int round = 0; round < 2; round++) {
    size_t n;
    unsigned char *b = onnx_model_pack(g, "serving_default", in, round ? named : out, &n);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, n, b);
    free(b);
    ck_assert_ptr_nonnull(mp);
    ck_assert_str_eq(mp->graph->name, "serving_default");
    ck_assert_int_eq((int)mp->graph->n_input, g->ninputs);
    for (int i = 0; i < g->ninputs; i++) ck_assert_str_eq(mp->graph->input[i]->name, in[i]);
    ck_assert_str_eq(mp->graph->output[0]->name, round ? "result" : "output_0");
    Onnx__NodeProto *nd = find(mp->graph, "If");
    ck_assert_ptr_nonnull(nd);
    ck_assert_str_eq(nd->input[0], "sig_p");   /* the If reads the renamed input */
    onnx__model_proto__free_unpacked(mp, NULL);
  }
  graph_release(g);
}
END_TEST

/* A cond becomes If: branches without inputs, reading x from the enclosing graph. */
START_TEST(test_cond_becomes_if) {
  Graph *g = cond_graph(NULL);
  Onnx__ModelProto *mp = export(g);
  Onnx__NodeProto *nd = find(mp->graph, "If");
  ck_assert_ptr_nonnull(nd);
  ck_assert_str_eq(nd->input[0], "p");
  Onnx__GraphProto *tb = graph_attr(nd, "then_branch"), *eb = graph_attr(nd, "else_branch");
  ck_assert_ptr_nonnull(tb);
  ck_assert_ptr_nonnull(eb);
  ck_assert_int_eq(tb->n_input, 0);
  Onnx__NodeProto *add = find(tb, "Add");
  ck_assert_ptr_nonnull(add);
  ck_assert_str_eq(add->input[0], "x");   /* the outer value, by name */
  ck_assert_ptr_nonnull(find(eb, "Neg"));
  ck_assert_int_eq(tb->n_output, 1);
  onnx__model_proto__free_unpacked(mp, NULL);
  graph_release(g);
}
END_TEST

/* A while becomes Loop: cond evaluated before the loop and at the end of the body; maximum_iterations is M. */
START_TEST(test_while_becomes_loop) {
  int w;
  Graph *g = sum_while_graph(&w);
  graph_node(g, w)->aux = val_int(7);
  Onnx__ModelProto *mp = export(g);
  Onnx__GraphProto *gp = mp->graph;
  Onnx__NodeProto *loop = find(gp, "Loop");
  ck_assert_ptr_nonnull(loop);
  ck_assert_int_eq(loop->n_input, 4);    /* M, cond, i, s */
  ck_assert_int_eq(loop->n_output, 2);
  ck_assert_ptr_nonnull(find(gp, "Less"));   /* the initial cond, outside the loop */
  Onnx__GraphProto *body = graph_attr(loop, "body");
  ck_assert_ptr_nonnull(body);
  ck_assert_int_eq(body->n_input, 4);    /* iteration, cond, i, s */
  ck_assert_int_eq(body->n_output, 3);   /* cond, i, s */
  ck_assert_ptr_nonnull(find(body, "Less"));
  /* n is read from the enclosing graph inside the body */
  bool reads_n = false;
  for (size_t i = 0; i < body->n_node; i++)
    for (size_t k = 0; k < body->node[i]->n_input; k++) reads_n |= !strcmp(body->node[i]->input[k], "n");
  ck_assert(reads_n);
  /* M is the int64 constant 7 */
  Onnx__NodeProto *mc = NULL;
  for (size_t i = 0; i < gp->n_node; i++)
    if (gp->node[i]->n_output == 1 && !strcmp(gp->node[i]->output[0], loop->input[0])) mc = gp->node[i];
  ck_assert_ptr_nonnull(mc);
  Onnx__TensorProto *t = mc->attribute[0]->t;
  ck_assert_int_eq(t->data_type, 7);
  ck_assert_int_eq(*(int64_t *)t->raw_data.data, 7);
  onnx__model_proto__free_unpacked(mp, NULL);
  graph_release(g);
}
END_TEST

/* An op with side effects has no ONNX form: an UnimplementedError at the node's location, naming the op. */
START_TEST(test_refuses_stateful_op) {
  Graph *g = graph_new("f", "f", NULL);
  TMeta md = {DT_FLOAT64, 0, {0}};
  int ts = graph_add_node(g, GN_OP, &op_defs[OP_TIMESTAMP], "Timestamp", 1, &md);
  graph_set_inputs(g, ts, 0, NULL, NULL);
  graph_node(g, ts)->flags |= GNF_STATEFUL;
  graph_add_output(g, (GraphRef){ts, 0});
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    size_t n;
    unsigned char *b = onnx_model_pack(g, "f", NULL, NULL, &n);
    free(b);
    rt_try_pop(&t);
    ck_abort_msg("Timestamp must be refused");
  } else {
    ck_assert_int_eq(t.kind, ERR_UNIMPLEMENTED);
    ck_assert_str_eq(t.msg, "tf.function 'f': op Timestamp has no ONNX form (it has side effects)");
    rt_try_clear(&t);
  }
  graph_release(g);
}
END_TEST

static Suite *onnx_suite(void) {
  Suite *s = suite_create("onnx");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_symbolic_dims_and_ops);
  tcase_add_test(tc, test_given_names);
  tcase_add_test(tc, test_cond_becomes_if);
  tcase_add_test(tc, test_while_becomes_loop);
  tcase_add_test(tc, test_refuses_stateful_op);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(onnx_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
