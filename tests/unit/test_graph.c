/* test_graph.c — the graph IR, tracing hook, planner (pruning, folding, CSE, lifetimes) and executor. */
#include <check.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "graph/exec.h"
#include "graph/parexec.h"
#include "formats/graphdef.h"
#include "formats/graphimport.h"
#include "graphs.h"
#include "isagate.h"
#include "object/object.h"
#include "graph/tape.h"
#include "tensor/tensor.h"
#include "graph/trace.h"

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
  ck_assert_str_eq(str_cstr(rep), "<tf.Tensor 'AddV2:0' shape=(None, 3) dtype=float32>");   /* TF's repr of a graph tensor */
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

/* tf.data's parallel map: jobs on worker threads give the main thread's results, an error stays with its job. */
static Val body_reshape_3x3(Val x) {
  Val shape = tuple_pack(2, val_int(3), val_int(3));
  OpAttrs at = {1, {shape}};
  Val r = op_apply(&op_defs[OP_RESHAPE], 1, &x, &at);
  val_decref(shape);
  return r;
}

START_TEST(test_parexec_runs_on_workers) {
  Graph *g = trace_graph(body_reshape_3x3, NULL);
  const char *why;
  ck_assert(parexec_graph_ok(g, &why));
  ParExec *x = parexec_new(g, 3);
  tfs_i64 rows[3] = {3, 2, 3};
  Tensor *in[3], **args[3], *out[3] = {0}, **outs[3];
  for (int j = 0; j < 3; j++) {
    tfs_i64 shape[2] = {rows[j], 3};
    in[j] = tensor_new(DT_FLOAT32, 2, shape);
    for (int i = 0; i < rows[j] * 3; i++) ((float *)tensor_data(in[j]))[i] = (float)(10 * j + i);
    args[j] = &in[j];
    outs[j] = &out[j];
  }
  ParErr errs[3];
  tfs_i64 before = parexec_offthread_runs();
  parexec_run(x, 3, args, outs, errs);
  ck_assert_int_eq(parexec_offthread_runs() - before, 2);   /* jobs 1 and 2 left this thread */
  ck_assert_ptr_null(errs[0].msg);
  ck_assert_ptr_null(errs[2].msg);
  ck_assert_ptr_nonnull(errs[1].msg);
  ck_assert_int_eq(errs[1].kind, ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(errs[1].msg, "Input to reshape is a tensor with 6 values"), "%s", errs[1].msg);
  free(errs[1].msg);
  for (int j = 0; j < 3; j += 2) {
    ck_assert_int_eq(out[j]->rank, 2);
    for (int i = 0; i < 9; i++) ck_assert(elem_f(out[j], i) == (float)(10 * j + i));
    tensor_release(out[j]);
  }
  for (int j = 0; j < 3; j++) tensor_release(in[j]);
  parexec_free(x);
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

/* cond_graph's results for both predicates. */
static void check_cond(Graph *g) {
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
}

START_TEST(test_exec_cond) {
  Graph *g = cond_graph(NULL);
  char *t = text_of(g);
  ck_assert_ptr_nonnull(strstr(t, "cond = If(p, x) -> float32 ()\n  then_branch {\n"));
  free(t);
  check_cond(g);
  graph_release(g);
}
END_TEST

/* A cond graph saved as a library (tf.saved_model's form) and imported back runs the same; damage is a ValueError. */
static Graph *saved_roundtrip(Graph *g, const char *damage_from, const char *damage_to, char **err) {
  PbArena a = {0};
  const Graph *gs[1] = {g};
  const char *names[1] = {"f_saved"};
  Tensorflow__FunctionDefLibrary *lib = graphdef_saved_library(&a, gs, names, 1, NULL, NULL);
  if (damage_from)
    for (size_t i = 0; i < lib->n_function; i++)
      for (size_t k = 0; k < lib->function[i]->n_node_def; k++)
        for (size_t j = 0; j < lib->function[i]->node_def[k]->n_input; j++)
          if (!strcmp(lib->function[i]->node_def[k]->input[j], damage_from))
            lib->function[i]->node_def[k]->input[j] = (char *)damage_to;
  size_t n;
  unsigned char *pb = pb_pack(&lib->base, &n);
  pa_free(&a);
  Tensorflow__FunctionDefLibrary *back = tensorflow__function_def_library__unpack(NULL, n, pb);
  free(pb);
  ck_assert_ptr_nonnull(back);
  Graph *r = NULL;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    r = graphimport_function(back, "f_saved", "f", "DIR", NULL, NULL);
    rt_try_pop(&t);
  } else {
    *err = strdup(t.msg);
    rt_try_clear(&t);
  }
  tensorflow__function_def_library__free_unpacked(back, NULL);
  return r;
}

START_TEST(test_saved_graph_roundtrip) {
  Graph *g = cond_graph(NULL);
  char *err = NULL;
  Graph *back = saved_roundtrip(g, NULL, NULL, &err);
  ck_assert_msg(back != NULL, "%s", err ? err : "");
  char *t1 = text_of(g), *t2 = text_of(back);
  ck_assert_str_eq(t1, t2);
  free(t1);
  free(t2);
  check_cond(back);
  graph_release(back);
  /* a node reading a value nobody defines */
  ck_assert_ptr_null(saved_roundtrip(g, "x", "nowhere", &err));
  ck_assert_ptr_nonnull(strstr(err, "tf.saved_model.load: 'DIR' is corrupt: node"));
  ck_assert_ptr_nonnull(strstr(err, "'nowhere', which is not defined before it"));
  free(err);
  graph_release(g);
  /* tensors: a content length that does not fit the shape is refused */
  Tensorflow__TensorProto tp = TENSORFLOW__TENSOR_PROTO__INIT;
  Tensorflow__TensorShapeProto sh = TENSORFLOW__TENSOR_SHAPE_PROTO__INIT;
  Tensorflow__TensorShapeProto__Dim d = TENSORFLOW__TENSOR_SHAPE_PROTO__DIM__INIT, *dp = &d;
  d.size = 3;
  sh.n_dim = 1;
  sh.dim = &dp;
  tp.dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT;
  tp.tensor_shape = &sh;
  float v[2] = {1, 2};
  tp.tensor_content.data = (uint8_t *)v;
  tp.tensor_content.len = sizeof v;
  const char *why = NULL;
  ck_assert_ptr_null(pb_untensor(&tp, &why));
  ck_assert_str_eq(why, "a tensor whose values do not fit its shape");
  tp.tensor_content.len = 0;
  tp.n_float_val = 1;
  tp.float_val = v;   /* one typed value fills the shape, as TF writes splats */
  Tensor *tt = pb_untensor(&tp, &why);
  ck_assert_ptr_nonnull(tt);
  ck_assert(elem_f(tt, 2) == 1.0f);
  tensor_release(tt);
}
END_TEST

START_TEST(test_exec_while) {
  int w;
  Graph *g = sum_while_graph(&w);
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

/* ---- scalar fast paths ------------------------------------------------------------------- */

/* Test values per dtype: zero, signs, extremes, and for floats NaN and inf. */
static int scalar_samples(DType dt, double *f, int64_t *iv) {
  static const double fs[] = {0.0, -0.0, 1.0, -1.0, 2.5, -7.25, 3.0, 1e30, -1e-30, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0};
  static const int64_t is[] = {0, 1, -1, 2, -7, 3, 100, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 31};
  int n = 0;
  switch (dt) {
    case DT_FLOAT32: case DT_FLOAT64:
      for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) f[n++] = fs[i];
      break;
    case DT_INT32:
      for (size_t i = 0; i < sizeof is / sizeof is[0]; i++) iv[n++] = (int32_t)is[i];
      break;
    case DT_INT64:
      for (size_t i = 0; i < sizeof is / sizeof is[0]; i++) iv[n++] = is[i];
      break;
    case DT_BOOL:
      iv[n++] = 0;
      iv[n++] = 1;
      break;
    default: break;
  }
  return n;
}

static Tensor *scalar_of(DType dt, double f, int64_t i) {
  Tensor *t = tensor_scalar(dt);
  void *p = tensor_data(t);
  switch (dt) {
    case DT_FLOAT32: *(float *)p = (float)f; break;
    case DT_FLOAT64: *(double *)p = f; break;
    case DT_INT32: *(int32_t *)p = (int32_t)i; break;
    case DT_INT64: *(int64_t *)p = i; break;
    case DT_BOOL: *(bool *)p = i != 0; break;
    default: break;
  }
  return t;
}

/* The same value: bit-identical, or both NaN. */
static bool same_scalar(DType dt, const void *a, const void *b) {
  if (dt == DT_FLOAT32 && *(const float *)a != *(const float *)a) return *(const float *)b != *(const float *)b;
  if (dt == DT_FLOAT64 && *(const double *)a != *(const double *)a) return *(const double *)b != *(const double *)b;
  return memcmp(a, b, (size_t)dtype_info[dt].size) == 0;
}

/* Run op generically on in[]; 1 with *res set, or 0 when it raised. */
static int generic_scalar(const OpDef *op, int nin, Tensor **in, const OpAttrs *at, Tensor **res) {
  Tensor **r = NULL;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    int nr = op_run(op, nin, in, NULL, at, &r);
    rt_try_pop(&t);
    ck_assert_int_eq(nr, 1);
    *res = r[0];
    free(r);
    return 1;
  }
  rt_try_clear(&t);
  return 0;
}

/* Every scalar kernel the op table offers gives what the generic kernel gives,
 * for every dtype it claims; when it declines, the generic kernel raises. */
START_TEST(test_scalar_kernels_match_generic) {
  int checked = 0, declined = 0;
  for (int id = 0; id < OP__COUNT; id++) {
    const OpDef *op = &op_defs[id];
    int nin = op_num_inputs(op);
    for (int din = 0; din < DT_STRING; din++)
      for (int dout = 0; dout < DT_STRING; dout++) {
        OpScalarFn f = op_scalar_kernel((OpId)id, (DType)din, (DType)dout);
        if (!f) continue;
        ck_assert_msg(nin == 1 || nin == 2, "%s: scalar kernel for an op with %d inputs", op->graph_name, nin);
        double fv[16];
        int64_t iv[16];
        int ns = scalar_samples((DType)din, fv, iv);
        OpAttrs at = {0};
        if (id == OP_CAST) at = (OpAttrs){1, {dtype_val((DType)dout)}};
        for (int x = 0; x < ns; x++)
          for (int y = 0; y < (nin == 2 ? ns : 1); y++) {
            Tensor *in[2] = {scalar_of((DType)din, fv[x], iv[x]), nin == 2 ? scalar_of((DType)din, fv[y], iv[y]) : NULL};
            unsigned char got[8] = {0};
            bool ok = f(got, tensor_data(in[0]), in[1] ? tensor_data(in[1]) : tensor_data(in[0]));
            Tensor *res;
            if (generic_scalar(op, nin, in, &at, &res)) {
              ck_assert_msg(ok, "%s %s: the scalar kernel declined what the generic kernel computes", op->graph_name,
                            dtype_info[din].name);
              ck_assert_int_eq(res->rank, 0);
              ck_assert_int_eq(res->dtype, dout);
              ck_assert_msg(same_scalar((DType)dout, got, tensor_data(res)), "%s %s -> %s: sample %d, %d differs",
                            op->graph_name, dtype_info[din].name, dtype_info[dout].name, x, y);
              tensor_release(res);
              checked++;
            } else {
              ck_assert_msg(!ok, "%s %s: the generic kernel failed where the scalar kernel did not", op->graph_name,
                            dtype_info[din].name);
              declined++;
            }
            tensor_release(in[0]);
            if (in[1]) tensor_release(in[1]);
          }
      }
  }
  ck_assert_int_gt(checked, 5000);
  ck_assert_int_gt(declined, 0);   /* integer division by zero, negative integer powers */
  /* none for what the fast path cannot express */
  ck_assert_ptr_null(op_scalar_kernel(OP_ADD, DT_STRING, DT_STRING));
  ck_assert_ptr_null(op_scalar_kernel(OP_ADD, DT_INT32, DT_FLOAT32));
  ck_assert_ptr_null(op_scalar_kernel(OP_LEAKY_RELU, DT_FLOAT32, DT_FLOAT32));
  ck_assert_ptr_null(op_scalar_kernel(OP_MATMUL, DT_FLOAT32, DT_FLOAT32));
  ck_assert_ptr_nonnull(op_scalar_kernel(OP_LESS, DT_INT32, DT_BOOL));
  ck_assert_ptr_null(op_scalar_kernel(OP_LESS, DT_INT32, DT_INT32));
}
END_TEST

/* 0-d steps take the scalar path, reuse dying operands, and give op_run's results. */
START_TEST(test_exec_scalar_steps) {
  TMeta mi = {DT_INT32, 0, {0}}, mb = {DT_BOOL, 0, {0}}, mv = {DT_INT32, 1, {2}};
  Graph *g = graph_new("f", "f", NULL);
  int x = graph_add_placeholder(g, "x", &mi);
  int y = graph_add_placeholder(g, "y", &mi);
  GraphRef xy[2] = {{x, 0}, {y, 0}};
  int a = add_op(g, OP_MUL, 2, xy, &mi);                        /* x * y */
  GraphRef ax[2] = {{a, 0}, {x, 0}};
  int b = add_op(g, OP_SUB, 2, ax, &mi);                        /* a - x: a dies here, b takes its tensor */
  GraphRef bb[2] = {{b, 0}, {y, 0}};
  int c = add_op(g, OP_LESS, 2, bb, &mb);                       /* bool result: no donor */
  int v = graph_add_placeholder(g, "v", &mv);
  GraphRef vb[2] = {{v, 0}, {b, 0}};
  int d = add_op(g, OP_ADD, 2, vb, &mv);                        /* a vector: generic */
  graph_add_output(g, (GraphRef){b, 0});
  graph_add_output(g, (GraphRef){c, 0});
  graph_add_output(g, (GraphRef){d, 0});
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.steps, 4);
  ck_assert_int_eq(st.scalar, 3);
  tfs_i64 two = 2;
  Tensor *vt = tensor_new(DT_INT32, 1, &two);
  ((int32_t *)tensor_data(vt))[0] = 10;
  ((int32_t *)tensor_data(vt))[1] = 20;
  for (int rep = 0; rep < 3; rep++) {
    Tensor *xt = scalar_i(6), *yt = scalar_i(7), *args[3] = {xt, yt, vt}, *out[3];
    exec_run(p, args, out);
    ck_assert_int_eq(tensor_get_i(out[0], 0), 36);
    ck_assert_int_eq(out[0]->hdr.rc, 1);
    ck_assert_int_eq(tensor_get_i(out[1], 0), 0);
    ck_assert_int_eq(out[1]->dtype, DT_BOOL);
    ck_assert_int_eq(tensor_get_i(out[2], 1), 56);
    for (int i = 0; i < 3; i++) tensor_release(out[i]);
    ck_assert_int_eq(xt->hdr.rc, 1);
    tensor_release(xt);
    tensor_release(yt);
  }
  /* operands that are not 0-d at run time (not what the plan saw): the generic path */
  Tensor *xv = tensor_new(DT_INT32, 1, &two), *yt = scalar_i(2), *args[3] = {xv, yt, vt}, *out[3];
  ((int32_t *)tensor_data(xv))[0] = 1;
  ((int32_t *)tensor_data(xv))[1] = 3;
  exec_run(p, args, out);
  ck_assert_int_eq(out[0]->rank, 1);
  ck_assert_int_eq(tensor_get_i(out[0], 1), 3);   /* 3 * 2 - 3 */
  for (int i = 0; i < 3; i++) tensor_release(out[i]);
  tensor_release(xv);
  tensor_release(yt);
  tensor_release(vt);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* Run a plan expected to fail; returns the error message (malloc'd). */
static char *run_failing(ExecPlan *p, Tensor **args, Tensor **out) {
  char *msg = NULL;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    exec_run(p, args, out);
    rt_try_pop(&t);
    ck_abort_msg("the plan must fail");
  } else {
    msg = strdup(t.msg ? t.msg : "");
    rt_try_clear(&t);
  }
  return msg;
}

/* A scalar step whose kernel declines raises the generic kernel's error at its node. */
START_TEST(test_exec_scalar_error) {
  TMeta mi = {DT_INT32, 0, {0}};
  Graph *g = graph_new("f", "divfn", NULL);
  int x = graph_add_placeholder(g, "x", &mi);
  int y = graph_add_placeholder(g, "y", &mi);
  GraphRef xy[2] = {{x, 0}, {y, 0}};
  int q = add_op(g, OP_FLOORDIV, 2, xy, &mi);
  graph_add_output(g, (GraphRef){q, 0});
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.scalar, 1);
  Tensor *xt = scalar_i(-7), *yt = scalar_i(2), *args[2] = {xt, yt}, *out;
  exec_run(p, args, &out);
  ck_assert_int_eq(tensor_get_i(out, 0), -4);   /* floor semantics */
  tensor_release(out);
  *(int32_t *)tensor_data(yt) = 0;
  char *msg = run_failing(p, args, &out);
  ck_assert_str_eq(msg, "Integer division by zero (node FloorDiv in tf.function 'divfn')");
  free(msg);
  ck_assert_int_eq(xt->hdr.rc, 1);
  tensor_release(xt);
  tensor_release(yt);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* while (i < n) { s = s + i; i = i + 1 } with an optional FloorDiv by (n - 1 - i) in the body. */
static Graph *count_loop_graph(bool with_div, int *while_node) {
  TMeta mi = {DT_INT32, 0, {0}}, mb = {DT_BOOL, 0, {0}};
  Graph *g = graph_new("f", "loopfn", NULL);
  int n = graph_add_placeholder(g, "n", &mi);
  int i0 = add_const_i(g, 0), s0 = add_const_i(g, 0);
  Graph *cg = graph_new("cond", "loopfn", g), *bg = graph_new("body", "loopfn", g);
  int ci = graph_add_placeholder(cg, "i", &mi);
  graph_add_placeholder(cg, "s", &mi);
  int cn = graph_add_placeholder(cg, "n", &mi);
  GraphRef lt[2] = {{ci, 0}, {cn, 0}};
  graph_add_output(cg, (GraphRef){add_op(cg, OP_LESS, 2, lt, &mb), 0});
  int bi = graph_add_placeholder(bg, "i", &mi);
  int bs = graph_add_placeholder(bg, "s", &mi);
  int bn = graph_add_placeholder(bg, "n", &mi);
  int one = add_const_i(bg, 1);
  GraphRef acc[2] = {{bs, 0}, {bi, 0}}, inc[2] = {{bi, 0}, {one, 0}};
  int ns = add_op(bg, OP_ADD, 2, acc, &mi);
  if (with_div) {
    GraphRef nm[2] = {{bn, 0}, {one, 0}};
    int last = add_op(bg, OP_SUB, 2, nm, &mi);
    GraphRef li[2] = {{last, 0}, {bi, 0}};
    int den = add_op(bg, OP_SUB, 2, li, &mi);
    GraphRef sd[2] = {{ns, 0}, {den, 0}};
    ns = add_op(bg, OP_FLOORDIV, 2, sd, &mi);
  }
  int ni = add_op(bg, OP_ADD, 2, inc, &mi);
  graph_add_output(bg, (GraphRef){ni, 0});
  graph_add_output(bg, (GraphRef){ns, 0});
  TMeta outm[2] = {mi, mi};
  int w = graph_add_node(g, GN_WHILE, NULL, "while", 2, outm);
  GraphRef win[3] = {{i0, 0}, {s0, 0}, {n, 0}};
  graph_set_inputs(g, w, 3, win, NULL);
  graph_node(g, w)->sub[0] = cg;
  graph_node(g, w)->sub[1] = bg;
  graph_add_output(g, (GraphRef){w, 1});
  graph_add_output(g, (GraphRef){w, 0});
  *while_node = w;
  return g;
}

/* The GraphDef writer in TF's vocabulary (graphdef.c): a loop's gradient
 * stack becomes a TensorList threaded through the While as one more loop
 * variable (EmptyTensorList before it, TensorListPushBack in the body, the
 * list out of the While's last output), the body returns every loop variable
 * (the captured n unchanged), and no node or op keeps a tfs '_' name. */
static const Tensorflow__NodeDef *gd_find(Tensorflow__NodeDef **nodes, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(nodes[i]->name, name)) return nodes[i];
  return NULL;
}

static const Tensorflow__AttrValue *gd_attr_of(const Tensorflow__NodeDef *nd, const char *key) {
  for (size_t i = 0; i < nd->n_attr; i++)
    if (!strcmp(nd->attr[i]->key, key)) return nd->attr[i]->value;
  return NULL;
}

START_TEST(test_graphdef_loop_stack_tensorlist) {
  int w;
  Graph *g = count_loop_graph(false, &w);
  Graph *bg = graph_node(g, w)->sub[1];
  TMeta mi = {DT_INT32, 0, {0}};
  Val stack = accstack_new(&mi);
  int push = graph_add_node(bg, GN_OP, &op_defs[OP_STACK_PUSH], op_defs[OP_STACK_PUSH].graph_name, 0, NULL);
  graph_set_inputs(bg, push, 1, &(GraphRef){bg->inputs[1], 0}, NULL);
  graph_node(bg, push)->attrs = (OpAttrs){1, {stack}};
  int size = graph_add_node(g, GN_OP, &op_defs[OP_STACK_SIZE], op_defs[OP_STACK_SIZE].graph_name, 1, &mi);
  graph_set_inputs(g, size, 0, NULL, NULL);
  graph_node(g, size)->attrs = (OpAttrs){1, {val_incref(stack)}};
  graph_add_output(g, (GraphRef){size, 0});
  PbArena a = {0};
  Tensorflow__GraphDef *gd = graphdef_build(&a, g);
  const Tensorflow__NodeDef *wn = gd_find(gd->node, gd->n_node, "while");
  ck_assert_ptr_nonnull(wn);
  ck_assert_str_eq(wn->op, "StatelessWhile");
  ck_assert_int_eq(wn->n_input, 4);
  const Tensorflow__NodeDef *el = gd_find(gd->node, gd->n_node, wn->input[3]);
  ck_assert_ptr_nonnull(el);
  ck_assert_str_eq(el->op, "EmptyTensorList");
  const Tensorflow__AttrValue *t = gd_attr_of(wn, "T");
  ck_assert_int_eq(t->list->n_type, 4);
  ck_assert_int_eq(t->list->type[3], TENSORFLOW__DATA_TYPE__DT_VARIANT);
  const Tensorflow__NodeDef *sz = gd_find(gd->node, gd->n_node, "StackSize");
  ck_assert_ptr_nonnull(sz);
  ck_assert_str_eq(sz->op, "TensorListLength");
  ck_assert_str_eq(sz->input[0], "while:3");
  const char *body = gd_attr_of(wn, "body")->func->name;
  const Tensorflow__FunctionDef *bf = NULL;
  for (size_t i = 0; i < gd->library->n_function; i++)
    if (!strcmp(gd->library->function[i]->signature->name, body)) bf = gd->library->function[i];
  ck_assert_ptr_nonnull(bf);
  ck_assert_int_eq(bf->signature->n_input_arg, 4);
  ck_assert_int_eq(bf->signature->n_output_arg, 4);
  /* the captured value, passed through: the output argument keeps its name, the input takes the next (TF's
   * GraphToFunctionDef); the loop's own values return through Identity nodes (automatic control dependencies) */
  ck_assert_str_eq(bf->signature->output_arg[2]->name, "n");
  ck_assert_str_eq(bf->ret[2]->value, "n_0");
  ck_assert_str_eq(bf->ret[0]->value, "Identity:output:0");
  const Tensorflow__NodeDef *pb = gd_find(bf->node_def, bf->n_node_def, "StackPush");
  ck_assert_ptr_nonnull(pb);
  ck_assert_str_eq(pb->op, "TensorListPushBack");
  ck_assert_str_eq(pb->input[0], bf->signature->input_arg[3]->name);
  ck_assert_str_eq(bf->ret[3]->value, "StackPush:output:0");
  for (size_t i = 0; i < gd->n_node; i++) ck_assert(gd->node[i]->name[0] != '_' && gd->node[i]->op[0] != '_');
  for (size_t i = 0; i < bf->n_node_def; i++) ck_assert(bf->node_def[i]->name[0] != '_' && bf->node_def[i]->op[0] != '_');
  pa_free(&a);
  graph_release(g);
}
END_TEST

/* A while over 0-d values runs as a register program: the same results as
 * the per-iteration plans, maximum_iterations, and the fallback to those
 * plans when the inputs are not what the program was compiled for. */
START_TEST(test_exec_while_compiled) {
  int w;
  Graph *g = count_loop_graph(false, &w);
  ExecPlan *pl = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(pl, &st);
  ck_assert_int_eq(st.loops, 1);
  int32_t ns_[4] = {0, 1, 10, 100000}, want[4] = {0, 0, 45, 704982704};   /* 4999950000 wraps in int32 */
  for (int k = 0; k < 4; k++) {
    Tensor *nt = scalar_i(ns_[k]), *out[2];
    exec_run(pl, &nt, out);
    ck_assert_int_eq(tensor_get_i(out[0], 0), want[k]);
    ck_assert_int_eq(tensor_get_i(out[1], 0), ns_[k] > 0 ? ns_[k] : 0);
    ck_assert_int_eq(out[0]->rank, 0);
    ck_assert_int_eq(out[0]->dtype, DT_INT32);
    tensor_release(out[0]);
    tensor_release(out[1]);
    tensor_release(nt);
  }
  /* n of shape (1,) is not the 0-d value the loop was compiled for: the plans run per iteration */
  tfs_i64 one = 1;
  Tensor *n1 = tensor_new(DT_INT32, 1, &one), *out[2];
  *(int32_t *)tensor_data(n1) = 10;
  exec_run(pl, &n1, out);
  ck_assert_int_eq(tensor_get_i(out[0], 0), 45);
  tensor_release(out[0]);
  tensor_release(out[1]);
  tensor_release(n1);
  exec_plan_free(pl);
  graph_node(g, w)->aux = val_int(3);   /* maximum_iterations */
  pl = exec_plan_new(g);
  exec_plan_stats(pl, &st);
  ck_assert_int_eq(st.loops, 1);
  Tensor *nt = scalar_i(10);
  exec_run(pl, &nt, out);
  ck_assert_int_eq(tensor_get_i(out[0], 0), 3);
  ck_assert_int_eq(tensor_get_i(out[1], 0), 3);
  tensor_release(out[0]);
  tensor_release(out[1]);
  tensor_release(nt);
  exec_plan_free(pl);
  graph_release(g);
}
END_TEST

/* An op failing inside a compiled loop raises its own error at its own node. */
START_TEST(test_exec_while_compiled_error) {
  int w;
  Graph *g = count_loop_graph(true, &w);
  ExecPlan *pl = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(pl, &st);
  ck_assert_int_eq(st.loops, 1);
  Tensor *nt = scalar_i(3), *out[2];
  char *msg = run_failing(pl, &nt, out);   /* the third iteration divides by n - 1 - i == 0 */
  ck_assert_str_eq(msg, "Integer division by zero (node FloorDiv in tf.function 'loopfn')");
  free(msg);
  ck_assert_int_eq(nt->hdr.rc, 1);
  tensor_release(nt);
  /* the same through the per-iteration plans (n of shape (1,)): the same error, nothing leaked (ASan) */
  tfs_i64 one = 1;
  Tensor *n1 = tensor_new(DT_INT32, 1, &one);
  *(int32_t *)tensor_data(n1) = 3;
  msg = run_failing(pl, &n1, out);
  ck_assert_str_eq(msg, "Integer division by zero (node FloorDiv in tf.function 'loopfn')");
  free(msg);
  ck_assert_int_eq(n1->hdr.rc, 1);
  tensor_release(n1);
  exec_plan_free(pl);
  graph_release(g);
}
END_TEST

/* while (i < n) { s = s + gather(xs, i); i = i + 1 }: element reads of a captured vector stay in the program. */
START_TEST(test_exec_while_compiled_gather) {
  TMeta mi = {DT_INT32, 0, {0}}, mb = {DT_BOOL, 0, {0}}, mv = {DT_INT32, 1, {-1}};
  Graph *g = graph_new("f", "gatherfn", NULL);
  int n = graph_add_placeholder(g, "n", &mi);
  int xs = graph_add_placeholder(g, "xs", &mv);
  int i0 = add_const_i(g, 0), s0 = add_const_i(g, 0);
  Graph *cg = graph_new("cond", "gatherfn", g), *bg = graph_new("body", "gatherfn", g);
  int ci = graph_add_placeholder(cg, "i", &mi);
  graph_add_placeholder(cg, "s", &mi);
  int cn = graph_add_placeholder(cg, "n", &mi);
  graph_add_placeholder(cg, "xs", &mv);
  GraphRef lt[2] = {{ci, 0}, {cn, 0}};
  graph_add_output(cg, (GraphRef){add_op(cg, OP_LESS, 2, lt, &mb), 0});
  int bi = graph_add_placeholder(bg, "i", &mi);
  int bs = graph_add_placeholder(bg, "s", &mi);
  graph_add_placeholder(bg, "n", &mi);
  int bx = graph_add_placeholder(bg, "xs", &mv);
  GraphRef xi[2] = {{bx, 0}, {bi, 0}};
  int ga = add_op(bg, OP_GATHER, 2, xi, &mi);
  GraphRef acc[2] = {{bs, 0}, {ga, 0}};
  int ns = add_op(bg, OP_ADD, 2, acc, &mi);
  int one = add_const_i(bg, 1);
  GraphRef inc[2] = {{bi, 0}, {one, 0}};
  int ni = add_op(bg, OP_ADD, 2, inc, &mi);
  graph_add_output(bg, (GraphRef){ni, 0});
  graph_add_output(bg, (GraphRef){ns, 0});
  TMeta outm[2] = {mi, mi};
  int w = graph_add_node(g, GN_WHILE, NULL, "while", 2, outm);
  GraphRef win[4] = {{i0, 0}, {s0, 0}, {n, 0}, {xs, 0}};
  graph_set_inputs(g, w, 4, win, NULL);
  graph_node(g, w)->sub[0] = cg;
  graph_node(g, w)->sub[1] = bg;
  graph_add_output(g, (GraphRef){w, 1});
  ExecPlan *pl = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(pl, &st);
  ck_assert_int_eq(st.loops, 1);
  tfs_i64 four = 4;
  Tensor *xt = tensor_new(DT_INT32, 1, &four);
  for (int k = 0; k < 4; k++) ((int32_t *)tensor_data(xt))[k] = 10 * (k + 1);
  /* a strided view: every other element of an 8-vector */
  tfs_i64 eight = 8, stride = 2;
  Tensor *big = tensor_new(DT_INT32, 1, &eight);
  for (int k = 0; k < 8; k++) ((int32_t *)tensor_data(big))[k] = k;
  Tensor *odd = tensor_view(big, 1, &four, &stride, 1);   /* 1 3 5 7 */
  Tensor *nt = scalar_i(4), *args[2] = {nt, xt}, *out;
  exec_run(pl, args, &out);
  ck_assert_int_eq(tensor_get_i(out, 0), 100);
  tensor_release(out);
  args[1] = odd;
  exec_run(pl, args, &out);
  ck_assert_int_eq(tensor_get_i(out, 0), 16);
  tensor_release(out);
  /* index 4 of a 4-vector: TF's error, at the GatherV2 node */
  *(int32_t *)tensor_data(nt) = 5;
  args[1] = xt;
  char *msg = run_failing(pl, args, &out);
  ck_assert_str_eq(msg, "indices = 4 is not in [0, 4) (node GatherV2 in tf.function 'gatherfn')");
  free(msg);
  ck_assert_int_eq(xt->hdr.rc, 1);
  ck_assert_int_eq(nt->hdr.rc, 1);
  tensor_release(nt);
  tensor_release(xt);
  tensor_release(odd);
  tensor_release(big);
  exec_plan_free(pl);
  graph_release(g);
}
END_TEST

/* ---- fusion ----------------------------------------------------------------------------------- */

static Tensor *ramp(DType dt, int rank, const tfs_i64 *shape, int seed) {
  Tensor *t = tensor_new(dt, rank, shape);
  for (tfs_i64 i = 0; i < t->size; i++) {
    int v = (int)((i * 7919 + (tfs_i64)seed * 104729) % 23) - 11;   /* small, signed, deterministic */
    switch (dt) {
      case DT_FLOAT32: ((float *)tensor_data(t))[i] = (float)v * 0.37f; break;
      case DT_FLOAT64: ((double *)tensor_data(t))[i] = (double)v * 0.37; break;
      case DT_INT32: ((int32_t *)tensor_data(t))[i] = v; break;
      case DT_INT64: ((int64_t *)tensor_data(t))[i] = v; break;
      default: break;
    }
  }
  return t;
}

static Tensor *run1(OpId id, int nin, Tensor *a, Tensor *b, const OpAttrs *at) {
  Tensor *in[2] = {a, b}, **r;
  int nr = op_run(&op_defs[id], nin, in, NULL, at, &r);
  ck_assert_int_eq(nr, 1);
  Tensor *t = r[0];
  free(r);
  return t;
}

/* relu?(matmul(x, w, transpose_b) + bias) as a graph; kind 0: AddV2(mm, b), 1: AddV2(b, mm), 2: BiasAdd. */
static Graph *fused_graph(DType dt, int ra, const tfs_i64 *xs, const tfs_i64 *ws, bool tb, int kind, bool relu,
                          bool mm_also_output) {
  tfs_i64 N = tb ? ws[0] : ws[1];
  TMeta mx = {dt, ra, {0}}, mw = {dt, 2, {ws[0], ws[1]}}, mb = {dt, 1, {N}}, mo = {dt, ra, {0}};
  for (int d = 0; d < ra; d++) mx.shape[d] = mo.shape[d] = xs[d];
  mo.shape[ra - 1] = N;
  Graph *g = graph_new("f", "densefn", NULL);
  int x = graph_add_placeholder(g, "x", &mx), w = graph_add_placeholder(g, "w", &mw), b = graph_add_placeholder(g, "b", &mb);
  GraphRef xw[2] = {{x, 0}, {w, 0}};
  int mm = add_op(g, OP_MATMUL, 2, xw, &mo);
  GraphNode *mn = graph_node(g, mm);
  mn->attrs.n = 4;
  for (int i = 0; i < 4; i++) mn->attrs.v[i] = val_bool(i == 1 && tb);
  GraphRef ab[2] = {{mm, 0}, {b, 0}}, ba[2] = {{b, 0}, {mm, 0}};
  int add = add_op(g, kind == 2 ? OP_BIAS_ADD : OP_ADD, 2, kind == 1 ? ba : ab, &mo);
  int last = relu ? add_op(g, OP_RELU, 1, &(GraphRef){add, 0}, &mo) : add;
  graph_add_output(g, (GraphRef){last, 0});
  if (mm_also_output) graph_add_output(g, (GraphRef){mm, 0});
  return g;
}

/* MatMul -> bias add -> Relu runs as one step whose results equal the unfused ops' bit for bit. */
START_TEST(test_exec_fused_matmul) {
  static const struct { DType dt; int ra; tfs_i64 xs[3], ws[2]; bool tb; int kind; bool relu; } cases[] = {
    {DT_FLOAT32, 3, {20, 28, 28}, {28, 64}, false, 0, true},    /* the dense benchmark's layer */
    {DT_FLOAT32, 2, {5, 300}, {300, 40}, false, 1, true},       /* bias first; K beyond one GEMM block */
    {DT_FLOAT32, 2, {3, 9}, {7, 9}, true, 2, false},            /* BiasAdd, transpose_b, no activation */
    {DT_FLOAT64, 3, {2, 7, 500}, {500, 9}, false, 0, true},
    {DT_FLOAT32, 2, {2, 2}, {2, 2}, false, 0, true},            /* below the BLAS threshold */
    {DT_INT32, 2, {4, 10}, {10, 10}, false, 0, true},
    {DT_INT64, 3, {3, 4, 5}, {5, 6}, false, 1, false},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    Graph *g = fused_graph(cases[c].dt, cases[c].ra, cases[c].xs, cases[c].ws, cases[c].tb, cases[c].kind,
                           cases[c].relu, false);
    ExecPlan *p = exec_plan_new(g);
    ExecStats st;
    exec_plan_stats(p, &st);
    ck_assert_msg(st.fused == 1 && st.steps == 1, "case %d: %d fused, %d steps", (int)c, st.fused, st.steps);
    /* 2-D (transposes too): a planned product (no op_run), else the generic path */
    bool planned = cases[c].ra == 2;
    ck_assert_int_eq(st.mm, planned);
    tfs_i64 N = cases[c].tb ? cases[c].ws[0] : cases[c].ws[1];
    Tensor *x = ramp(cases[c].dt, cases[c].ra, cases[c].xs, 1), *w = ramp(cases[c].dt, 2, cases[c].ws, 2);
    Tensor *b = ramp(cases[c].dt, 1, &N, 3), *args[3] = {x, w, b}, *out;
    tfs_i64 runs = exec_mm_count();
    exec_run(p, args, &out);
    ck_assert_int_eq(exec_mm_count() - runs, planned);
    OpAttrs at = {4, {val_bool(false), val_bool(cases[c].tb), val_bool(false), val_bool(false)}};
    Tensor *mm = run1(OP_MATMUL, 2, x, w, &at);
    Tensor *sum = cases[c].kind == 1 ? run1(OP_ADD, 2, b, mm, NULL) : run1(cases[c].kind == 2 ? OP_BIAS_ADD : OP_ADD, 2, mm, b, NULL);
    Tensor *want = cases[c].relu ? run1(OP_RELU, 1, sum, NULL, NULL) : tensor_retain(sum);
    ck_assert_int_eq(out->rank, want->rank);
    ck_assert_int_eq(out->size, want->size);
    ck_assert_msg(!memcmp(tensor_data(out), tensor_data(want), (size_t)out->size * (size_t)dtype_info[out->dtype].size),
                  "case %d: fused result differs from the unfused ops", (int)c);
    tensor_release(want);
    tensor_release(sum);
    tensor_release(mm);
    tensor_release(out);
    tensor_release(x);
    tensor_release(w);
    tensor_release(b);
    exec_plan_free(p);
    graph_release(g);
  }
  /* a product also used elsewhere stays a step of its own */
  tfs_i64 xs[2] = {3, 4}, ws[2] = {4, 5};
  Graph *g = fused_graph(DT_FLOAT32, 2, xs, ws, false, 0, true, true);
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.fused, 0);
  ck_assert_int_eq(st.steps, 3);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* Conv2D [-> bias add -> Relu] -> MaxPool as a graph; strides/dilations s, d; pool window k, stride ps. */
typedef struct {
  tfs_i64 xs[4], fs[4];
  int s, d;
  const char *pad;
  int k, ps;
  const char *ppad;
  bool relu, relu_also_output;
} ConvPoolCase;

static void conv_attrs(OpAttrs *a, const ConvPoolCase *c) {
  a->n = 4;
  a->v[0] = val_int(c->s);
  a->v[1] = str_from_cstr(c->pad);
  a->v[2] = str_from_cstr("NHWC");
  a->v[3] = val_int(c->d);
}

static void pool_attrs(OpAttrs *a, const ConvPoolCase *c) {
  a->n = 4;
  a->v[0] = val_int(c->k);
  a->v[1] = val_int(c->ps);
  a->v[2] = str_from_cstr(c->ppad);
  a->v[3] = str_from_cstr("NHWC");
}

static void attrs_release(OpAttrs *a) {
  for (int i = 0; i < a->n; i++) val_decref(a->v[i]);
}

static Graph *conv_pool_graph(const ConvPoolCase *c, TMeta *conv_m, TMeta *pool_m) {
  TMeta mx = {DT_FLOAT32, 4, {c->xs[0], c->xs[1], c->xs[2], c->xs[3]}}, mf = {DT_FLOAT32, 4, {c->fs[0], c->fs[1], c->fs[2], c->fs[3]}};
  TMeta mb = {DT_FLOAT32, 1, {c->fs[3]}};
  Graph *g = graph_new("f", "convpool", NULL);
  int x = graph_add_placeholder(g, "x", &mx), f = graph_add_placeholder(g, "f", &mf), b = graph_add_placeholder(g, "b", &mb);
  GraphRef xf[2] = {{x, 0}, {f, 0}};
  int conv = add_op(g, OP_CONV2D, 2, xf, conv_m);
  conv_attrs(&graph_node(g, conv)->attrs, c);
  GraphRef cb[2] = {{conv, 0}, {b, 0}};
  int add = add_op(g, OP_ADD, 2, cb, conv_m);
  int last = c->relu ? add_op(g, OP_RELU, 1, &(GraphRef){add, 0}, conv_m) : add;
  int pool = add_op(g, OP_MAX_POOL, 1, &(GraphRef){last, 0}, pool_m);
  pool_attrs(&graph_node(g, pool)->attrs, c);
  graph_add_output(g, (GraphRef){pool, 0});
  if (c->relu_also_output) graph_add_output(g, (GraphRef){last, 0});
  return g;
}

/* Conv2D -> bias add [-> Relu] -> MaxPool runs as one _FusedConv2D step (pooling rows in cache) whose results
 * equal the unfused ops' bit for bit, on whichever ISA path runs the suite (graph-baseline/avx2/avx512);
 * with the Relu's output read again (as training's MaxPoolGrad does) the pooling stays a step. */
START_TEST(test_exec_fused_conv_pool) {
  static const ConvPoolCase cases[] = {
    {{3, 28, 28, 1}, {3, 3, 1, 32}, 1, 1, "VALID", 2, 2, "VALID", true, false},   /* the MNIST CNN's layers */
    {{2, 13, 13, 32}, {3, 3, 32, 64}, 1, 1, "VALID", 2, 2, "VALID", true, false},
    {{2, 9, 11, 3}, {3, 2, 3, 5}, 2, 1, "SAME", 3, 2, "SAME", true, false},        /* odd shapes, padding both */
    {{1, 12, 10, 2}, {3, 3, 2, 7}, 1, 2, "SAME", 3, 1, "VALID", false, false},    /* dilated; overlapping windows */
    {{2, 7, 7, 4}, {1, 1, 4, 3}, 1, 1, "VALID", 2, 1, "SAME", true, false},       /* pointwise */
    {{2, 8, 8, 2}, {3, 3, 2, 4}, 1, 1, "VALID", 2, 2, "VALID", true, true},       /* Relu also read: not pooled */
  };
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    const ConvPoolCase *c = &cases[ci];
    Tensor *x = ramp(DT_FLOAT32, 4, c->xs, 1), *f = ramp(DT_FLOAT32, 4, c->fs, 2), *b = ramp(DT_FLOAT32, 1, &c->fs[3], 3);
    OpAttrs ca, pa;
    conv_attrs(&ca, c);
    pool_attrs(&pa, c);
    Tensor *conv = run1(OP_CONV2D, 2, x, f, &ca), *sum = run1(OP_ADD, 2, conv, b, NULL);
    Tensor *act = c->relu ? run1(OP_RELU, 1, sum, NULL, NULL) : tensor_retain(sum);
    Tensor *want = run1(OP_MAX_POOL, 1, act, NULL, &pa);
    TMeta cm = {DT_FLOAT32, 4, {0}}, pm = {DT_FLOAT32, 4, {0}};
    for (int d = 0; d < 4; d++) cm.shape[d] = conv->shape[d], pm.shape[d] = want->shape[d];
    Graph *g = conv_pool_graph(c, &cm, &pm);
    ExecPlan *p = exec_plan_new(g);
    ExecStats st;
    exec_plan_stats(p, &st);
    int steps = c->relu_also_output ? 2 : 1;
    ck_assert_msg(st.fused == 1 && st.steps == steps, "case %d: %d fused, %d steps", (int)ci, st.fused, st.steps);
    Tensor *args[3] = {x, f, b}, *out[2] = {NULL, NULL};
    exec_run(p, args, out);
    ck_assert_int_eq(out[0]->size, want->size);
    for (int d = 0; d < 4; d++) ck_assert_int_eq(out[0]->shape[d], want->shape[d]);
    ck_assert_msg(!memcmp(tensor_data(out[0]), tensor_data(want), (size_t)want->size * sizeof(float)),
                  "case %d: fused result differs from the unfused ops", (int)ci);
    for (int o = 0; o < 2; o++)
      if (out[o]) tensor_release(out[o]);
    exec_plan_free(p);
    graph_release(g);
    attrs_release(&ca);
    attrs_release(&pa);
    tensor_release(want);
    tensor_release(act);
    tensor_release(sum);
    tensor_release(conv);
    tensor_release(x);
    tensor_release(f);
    tensor_release(b);
  }
}
END_TEST

/* Chained 2-D products (the power benchmark) run as planned steps, each into an arena slot: bit for bit
 * the eager ops' results, over repeated calls, with the caller's earlier results never written over;
 * an argument that is a strided view takes the generic path for the steps that read it. */
START_TEST(test_exec_mm_planned) {
  static const DType dts[] = {DT_INT32, DT_FLOAT32, DT_FLOAT64, DT_INT64};
  enum { NMM = 9 };
  tfs_i64 sh[2] = {10, 10}, tst[2] = {1, 10};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
    TMeta m10 = {dts[d], 2, {10, 10}};
    Graph *g = graph_new("f", "powfn", NULL);
    int a = graph_add_placeholder(g, "a", &m10);
    GraphRef r = {a, 0};
    for (int i = 0; i < NMM; i++) {
      GraphRef ab[2] = {r, {a, 0}};
      r = (GraphRef){add_op(g, OP_MATMUL, 2, ab, &m10), 0};
    }
    graph_add_output(g, r);
    ExecPlan *p = exec_plan_new(g);
    ExecStats st;
    exec_plan_stats(p, &st);
    ck_assert_int_eq(st.mm, NMM);
    ck_assert_int_eq(st.steps, NMM);
    Tensor *big = ramp(dts[d], 2, sh, 4);
    for (int variant = 0; variant < 2; variant++) {
      /* variant 1: the argument is a transposed view, which no planned product takes */
      Tensor *x = variant ? tensor_view(big, 2, sh, tst, 0) : ramp(dts[d], 2, sh, 1);
      Tensor *want = tensor_retain(x);
      for (int i = 0; i < NMM; i++) {
        Tensor *nx = run1(OP_MATMUL, 2, want, x, NULL);
        tensor_release(want);
        want = nx;
      }
      Tensor *outs[3];
      for (int call = 0; call < 3; call++) {
        tfs_i64 runs = exec_mm_count();
        exec_run(p, &x, &outs[call]);
        ck_assert_int_eq(exec_mm_count() - runs, variant ? 0 : NMM);
      }
      for (int call = 0; call < 3; call++) {   /* kept results were not reused as buffers */
        ck_assert(outs[call] != outs[(call + 1) % 3]);
        ck_assert_msg(!memcmp(tensor_data(outs[call]), tensor_data(want), (size_t)want->size * (size_t)dtype_info[dts[d]].size),
                      "%s variant %d call %d: differs from the eager products", dtype_info[dts[d]].name, variant, call);
        tensor_release(outs[call]);
      }
      ck_assert_int_eq(x->hdr.rc, 1);
      tensor_release(want);
      tensor_release(x);
    }
    tensor_release(big);
    exec_plan_free(p);
    graph_release(g);
  }
}
END_TEST

/* A graph called again and again with the same shapes allocates nothing after its first calls: a
 * chain of small non-scalar adds, a fused dense layer (its 20x64 output is a pooled big buffer) and
 * a 10x10 int32 product.  Checked with the tensor allocator's counter, not a timer; and it creates
 * no tensor but its results (the tensor counter). */
START_TEST(test_exec_steady_state_allocs) {
  tfs_i64 xs[2] = {20, 784}, ws[2] = {784, 64};
  Graph *g = fused_graph(DT_FLOAT32, 2, xs, ws, false, 0, true, false);
  TMeta m10 = {DT_INT32, 2, {10, 10}};
  int a = graph_add_placeholder(g, "a", &m10);
  GraphRef r = {a, 0};
  for (int i = 0; i < 10; i++) {
    GraphRef ab[2] = {r, {a, 0}};
    r = (GraphRef){add_op(g, i % 2 ? OP_MATMUL : OP_ADD, 2, ab, &m10), 0};
  }
  graph_add_output(g, r);
  ExecPlan *p = exec_plan_new(g);
  Tensor *x = ramp(DT_FLOAT32, 2, xs, 1), *w = ramp(DT_FLOAT32, 2, ws, 2), *b = ramp(DT_FLOAT32, 1, &ws[1], 3);
  Tensor *ai = ramp(DT_INT32, 2, m10.shape, 1), *args[4] = {x, w, b, ai}, *outs[2];
  tfs_i64 counts[6], made[6];
  for (int call = 0; call < 6; call++) {
    counts[call] = tensor_alloc_count();
    made[call] = tensor_new_count();
    exec_run(p, args, outs);
    tensor_release(outs[0]);
    tensor_release(outs[1]);
  }
  tfs_i64 last = tensor_alloc_count() - counts[5];
  /* the products and adds take last call's result buffers from the plan's arena: only the two
   * results are new tensors (pooled or not, so this holds under ASan too) */
  ck_assert_msg(tensor_new_count() - made[5] == 2 && made[5] - made[4] == 2, "steady-state calls created %lld, %lld tensors",
                (long long)(made[5] - made[4]), (long long)(tensor_new_count() - made[5]));
  if (tensor_pools_on()) {
    ck_assert_msg(counts[5] == counts[3] && last == 0, "steady-state calls allocated %lld, %lld, %lld times",
                  (long long)(counts[4] - counts[3]), (long long)(counts[5] - counts[4]), (long long)last);
  } else {
    /* ASan build: no pools, so the counter sees each new tensor: the two results (the 20x64 one a
     * buffer and a tensor apart, the 10x10 one a single block); every step's buffer is the arena's */
    ck_assert_int_eq(last, 3);
  }
  tensor_release(x);
  tensor_release(w);
  tensor_release(b);
  tensor_release(ai);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* Elementwise steps on static shapes run as planned row loops, consecutive ones fused into chains,
 * results in place or in the arena: bit for bit what the ops give eagerly, also when an argument is
 * a strided view the plan did not expect (then each op runs through op_run). */
typedef struct EwNode { OpId op; int a, b; } EwNode;   /* operands: indices into the value list (-1: none) */

START_TEST(test_exec_ew_planned) {
  /* values 0..2: placeholders a [10,10] f32, b [10,10] f32, c [] f32; then one value per node */
  static const EwNode nodes[] = {
    {OP_ADD, 0, 1},      /* 3: a + b */
    {OP_MUL, 3, 2},      /* 4: * c (a 0-d operand, broadcast): fused with 3 */
    {OP_NEG, 4, -1},     /* 5: fused */
    {OP_SUB, 5, 0},      /* 6: fused; read by two steps below, so the chain ends here */
    {OP_LESS, 6, 1},     /* 7: bool result (an output) */
    {OP_MUL, 6, 6},      /* 8: 6 dies here: in place over it */
    {OP_ABS, 8, -1},     /* 9..12: fused with 8 */
    {OP_SQRT, 9, -1},
    {OP_DIV, 10, 1},
    {OP_MAXIMUM, 11, 2}, /* 12: an output */
  };
  enum { NN = sizeof nodes / sizeof nodes[0], NV = 3 + NN };
  tfs_i64 sh[2] = {10, 10};
  TMeta mf = {DT_FLOAT32, 2, {10, 10}}, ms = {DT_FLOAT32, 0, {0}}, mb = {DT_BOOL, 2, {10, 10}};
  Graph *g = graph_new("f", "ewfn", NULL);
  int id[NV];
  id[0] = graph_add_placeholder(g, "a", &mf);
  id[1] = graph_add_placeholder(g, "b", &mf);
  id[2] = graph_add_placeholder(g, "c", &ms);
  for (int i = 0; i < NN; i++) {
    GraphRef in[2] = {{id[nodes[i].a], 0}, {nodes[i].b >= 0 ? id[nodes[i].b] : 0, 0}};
    id[3 + i] = add_op(g, nodes[i].op, nodes[i].b >= 0 ? 2 : 1, in, nodes[i].op == OP_LESS ? &mb : &mf);
  }
  graph_add_output(g, (GraphRef){id[7], 0});
  graph_add_output(g, (GraphRef){id[12], 0});
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.ewfused, 7);        /* chains 3-6 and 8-12 */
  ck_assert_int_eq(st.ew, NN - 7);        /* every op is planned: the two chains and the Less */
  ck_assert_int_eq(st.steps, NN);
  Tensor *big = ramp(DT_FLOAT32, 2, sh, 5);
  tfs_i64 tst[2] = {1, 10};
  for (int variant = 0; variant < 2; variant++) {
    Tensor *v[NV];
    /* variant 1: `a` is a transposed view, which the planned steps do not take */
    v[0] = variant ? tensor_view(big, 2, sh, tst, 0) : ramp(DT_FLOAT32, 2, sh, 1);
    v[1] = ramp(DT_FLOAT32, 2, sh, 2);
    v[2] = scalar_f(-0.75f);
    for (int i = 0; i < NN; i++) v[3 + i] = run1(nodes[i].op, nodes[i].b >= 0 ? 2 : 1, v[nodes[i].a], nodes[i].b >= 0 ? v[nodes[i].b] : NULL, NULL);
    for (int call = 0; call < 3; call++) {   /* the later calls reuse the arena */
      Tensor *outs[2];
      exec_run(p, v, outs);
      ck_assert_int_eq(outs[0]->dtype, DT_BOOL);
      ck_assert(memcmp(tensor_data(outs[0]), tensor_data(v[7]), 100) == 0);
      ck_assert(memcmp(tensor_data(outs[1]), tensor_data(v[12]), 100 * sizeof(float)) == 0);
      tensor_release(outs[0]);
      tensor_release(outs[1]);
    }
    for (int i = 0; i < 3; i++) ck_assert_int_eq(v[i]->hdr.rc, 1);
    for (int i = 0; i < NV; i++) tensor_release(v[i]);
  }
  tensor_release(big);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* A long run of elementwise ops (an unrolled `x = x + c`) fuses into chains of at most 64 ops: every
 * fusion copies its chain, so one unbounded chain made planning quadratic in the run's length (a
 * 30,000-op retrace took 2.7 s).  The chains together give what the eager ops give. */
START_TEST(test_exec_ew_chain_bounded) {
  enum { N = 1000 };
  tfs_i64 sh[1] = {10};
  TMeta mf = {DT_FLOAT32, 1, {10}}, ms = {DT_FLOAT32, 0, {0}};
  Graph *g = graph_new("f", "ewchain", NULL);
  int x = graph_add_placeholder(g, "x", &mf), c = graph_add_placeholder(g, "c", &ms);
  for (int i = 0; i < N; i++) {
    GraphRef in[2] = {{x, 0}, {c, 0}};
    x = add_op(g, i % 3 == 2 ? OP_SUB : OP_ADD, 2, in, &mf);
  }
  graph_add_output(g, (GraphRef){x, 0});
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.ew, (N + 63) / 64);        /* 16 chains: 15 of 64 ops and one of 40 */
  ck_assert_int_eq(st.ewfused, N - (N + 63) / 64);
  Tensor *v[2] = {ramp(DT_FLOAT32, 1, sh, 1), scalar_f(0.5f)};
  Tensor *want = v[0];
  tensor_retain(want);
  for (int i = 0; i < N; i++) {
    Tensor *nx = run1(i % 3 == 2 ? OP_SUB : OP_ADD, 2, want, v[1], NULL);
    tensor_release(want);
    want = nx;
  }
  Tensor *out;
  exec_run(p, v, &out);
  ck_assert(memcmp(tensor_data(out), tensor_data(want), 10 * sizeof(float)) == 0);
  tensor_release(out);
  tensor_release(want);
  tensor_release(v[0]);
  tensor_release(v[1]);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* A stateful node reading or assigning a Variable (a host input), after `dep` in program order. */
static int var_op(Graph *g, OpId id, Val var, GraphRef value, const TMeta *m, int dep) {
  int n = graph_add_node(g, GN_OP, &op_defs[id], op_defs[id].graph_name, id == OP_READ_VARIABLE ? 1 : 0, m);
  GraphRef in[2] = {{-1, 0}, value};
  Val raw[2] = {var, val_undef()};
  graph_set_inputs(g, n, id == OP_READ_VARIABLE ? 1 : 2, in, raw);
  graph_node(g, n)->flags |= GNF_STATEFUL;
  if (dep >= 0) graph_add_ctrl(g, n, dep);
  return n;
}

/* An optimizer's updates in a graph: the elementwise chain feeding AssignAdd / AssignSub / Assign of a
 * Variable runs as one fused pass into the variable's buffer (counted, per call), bit for bit what the
 * eager ops and variable_assign give; when someone else holds the variable's value (the caller kept a
 * read) the update takes the unfused path and that value is not written over. */
START_TEST(test_exec_fused_updates) {
  tfs_i64 sh[2] = {50, 50};   /* 2,500 elements: two blocks of a fused pass */
  TMeta mf = {DT_FLOAT32, 2, {50, 50}}, ms = {DT_FLOAT32, 0, {0}};
  Tensor *w0 = ramp(DT_FLOAT32, 2, sh, 3), *m0 = ramp(DT_FLOAT32, 2, sh, 4), *s0 = ramp(DT_FLOAT32, 2, sh, 6);
  Val W = variable_new(val_obj(w0), val_none(), true, val_none());
  Val M = variable_new(val_obj(m0), val_none(), true, val_none());
  Val S = variable_new(val_obj(s0), val_none(), true, val_none());
  Val We = variable_new(val_obj(w0), val_none(), true, val_none());   /* the eager twins */
  Val Me = variable_new(val_obj(m0), val_none(), true, val_none());
  Val Se = variable_new(val_obj(s0), val_none(), true, val_none());
  Graph *g = graph_new("f", "updfn", NULL);
  int gr = graph_add_placeholder(g, "g", &mf), c = graph_add_placeholder(g, "c", &ms);
  /* m += (g - m) * c;  s = g * g - s (s read between the two ops, as Adam's trace has it);  w -= m * c;
   * and an output that reads s */
  int rm = var_op(g, OP_READ_VARIABLE, M, (GraphRef){0, 0}, &mf, -1);
  int d = add_op(g, OP_SUB, 2, (GraphRef[]){{gr, 0}, {rm, 0}}, &mf);
  int e = add_op(g, OP_MUL, 2, (GraphRef[]){{d, 0}, {c, 0}}, &mf);
  int a1 = var_op(g, OP_ASSIGN_ADD_VARIABLE, M, (GraphRef){e, 0}, NULL, rm);
  int sq = add_op(g, OP_MUL, 2, (GraphRef[]){{gr, 0}, {gr, 0}}, &mf);
  int rs0 = var_op(g, OP_READ_VARIABLE, S, (GraphRef){0, 0}, &mf, a1);
  int sd = add_op(g, OP_SUB, 2, (GraphRef[]){{sq, 0}, {rs0, 0}}, &mf);
  int a2 = var_op(g, OP_ASSIGN_VARIABLE, S, (GraphRef){sd, 0}, NULL, rs0);
  int rm2 = var_op(g, OP_READ_VARIABLE, M, (GraphRef){0, 0}, &mf, a2);
  int f = add_op(g, OP_MUL, 2, (GraphRef[]){{rm2, 0}, {c, 0}}, &mf);
  int a3 = var_op(g, OP_ASSIGN_SUB_VARIABLE, W, (GraphRef){f, 0}, NULL, rm2);
  int rs = var_op(g, OP_READ_VARIABLE, S, (GraphRef){0, 0}, &mf, a3);
  graph_add_output(g, (GraphRef){rs, 0});
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.update, 3);    /* the three assigns, each with the chain feeding it */
  ck_assert_int_eq(st.ewfused, 2);   /* Sub into Mul; Mul into Sub past the read of s */
  Tensor *gt = ramp(DT_FLOAT32, 2, sh, 5), *ct = tensor_scalar(DT_FLOAT32);
  *(float *)tensor_data(ct) = 0.1f;
  Tensor *args[2] = {gt, ct};
  Variable *vw = (Variable *)W.u.o, *vm = (Variable *)M.u.o, *vs = (Variable *)S.u.o;
  for (int call = 0; call < 4; call++) {
    Tensor *kept = call == 2 ? tensor_retain(vm->value) : NULL;   /* call 2: the caller holds m's value */
    Tensor *snap = kept ? tensor_copy(kept) : NULL;
    tfs_i64 before = exec_update_count();
    Tensor *out;
    exec_run(p, args, &out);
    ck_assert_int_eq(exec_update_count() - before, kept ? 2 : 3);
    /* eagerly: the same ops, then variable_assign as Variable.assign_add / assign / assign_sub */
    Tensor *rme = tensor_retain(((Variable *)Me.u.o)->value);
    Tensor *de = run1(OP_SUB, 2, gt, rme, NULL), *ee = run1(OP_MUL, 2, de, ct, NULL);
    tensor_release(rme);
    variable_assign((Variable *)Me.u.o, val_obj(ee), 1);
    Tensor *sqe = run1(OP_MUL, 2, gt, gt, NULL), *sde = run1(OP_SUB, 2, sqe, ((Variable *)Se.u.o)->value, NULL);
    variable_assign((Variable *)Se.u.o, val_obj(sde), 0);
    Tensor *fe = run1(OP_MUL, 2, ((Variable *)Me.u.o)->value, ct, NULL);
    variable_assign((Variable *)We.u.o, val_obj(fe), 2);
    size_t nb = 2500 * sizeof(float);
    ck_assert(memcmp(tensor_data(vm->value), tensor_data(((Variable *)Me.u.o)->value), nb) == 0);
    ck_assert(memcmp(tensor_data(vs->value), tensor_data(((Variable *)Se.u.o)->value), nb) == 0);
    ck_assert(memcmp(tensor_data(vw->value), tensor_data(((Variable *)We.u.o)->value), nb) == 0);
    ck_assert(memcmp(tensor_data(out), tensor_data(((Variable *)Se.u.o)->value), nb) == 0);
    if (kept) {
      ck_assert(kept != vm->value);   /* swapped, as variable_assign does, and the kept value unchanged */
      ck_assert(memcmp(tensor_data(kept), tensor_data(snap), nb) == 0);
      tensor_release(kept);
      tensor_release(snap);
    }
    tensor_release(out);
    tensor_release(de);
    tensor_release(ee);
    tensor_release(sqe);
    tensor_release(sde);
    tensor_release(fe);
  }
  tensor_release(gt);
  tensor_release(ct);
  tensor_release(w0);
  tensor_release(m0);
  tensor_release(s0);
  exec_plan_free(p);
  graph_release(g);
  TFS_DECREF(W);
  TFS_DECREF(M);
  TFS_DECREF(S);
  TFS_DECREF(We);
  TFS_DECREF(Me);
  TFS_DECREF(Se);
}
END_TEST

/* Adam's variable update, `w -= (m * alpha) / (sqrt(s) + eps)` after reads of m and s: `m * alpha` (a
 * single planned step, read only by the division) moves into the chain feeding AssignSub as its side
 * op, computed block by block beside it: one fused update, no arena tensor for it.  Bit for bit what the
 * eager ops and variable_assign give, over 2,500 elements (two blocks); with `m * alpha` also a graph
 * output it stays a step of its own (no side op) and the results are the same. */
START_TEST(test_exec_fused_update_side_op) {
  tfs_i64 sh[2] = {50, 50};
  TMeta mf = {DT_FLOAT32, 2, {50, 50}}, ms = {DT_FLOAT32, 0, {0}};
  for (int also_out = 0; also_out < 2; also_out++) {
    Tensor *w0 = ramp(DT_FLOAT32, 2, sh, 3), *m0 = ramp(DT_FLOAT32, 2, sh, 4), *r0 = ramp(DT_FLOAT32, 2, sh, 6);
    Tensor *s0 = run1(OP_MUL, 2, r0, r0, NULL);   /* s >= 0, as Adam's */
    Val W = variable_new(val_obj(w0), val_none(), true, val_none());
    Val M = variable_new(val_obj(m0), val_none(), true, val_none());
    Val S = variable_new(val_obj(s0), val_none(), true, val_none());
    Val We = variable_new(val_obj(w0), val_none(), true, val_none());
    Graph *g = graph_new("f", "adamfn", NULL);
    int alpha = graph_add_placeholder(g, "alpha", &ms), eps = graph_add_placeholder(g, "eps", &ms);
    int rm = var_op(g, OP_READ_VARIABLE, M, (GraphRef){0, 0}, &mf, -1);
    int f = add_op(g, OP_MUL, 2, (GraphRef[]){{rm, 0}, {alpha, 0}}, &mf);
    int rs = var_op(g, OP_READ_VARIABLE, S, (GraphRef){0, 0}, &mf, rm);
    int q = add_op(g, OP_SQRT, 1, (GraphRef[]){{rs, 0}}, &mf);
    int a = add_op(g, OP_ADD, 2, (GraphRef[]){{q, 0}, {eps, 0}}, &mf);
    int d = add_op(g, OP_DIV, 2, (GraphRef[]){{f, 0}, {a, 0}}, &mf);
    var_op(g, OP_ASSIGN_SUB_VARIABLE, W, (GraphRef){d, 0}, NULL, rs);
    if (also_out) graph_add_output(g, (GraphRef){f, 0});
    ExecPlan *p = exec_plan_new(g);
    ExecStats st;
    exec_plan_stats(p, &st);
    ck_assert_int_eq(st.update, 1);
    ck_assert_int_eq(st.ewside, also_out ? 0 : 1);   /* m * alpha inside the chain, unless the caller gets it */
    ck_assert_int_eq(st.ewfused, 2);                 /* sqrt into + eps, that into the division */
    Tensor *at = tensor_scalar(DT_FLOAT32), *et = tensor_scalar(DT_FLOAT32);
    *(float *)tensor_data(at) = 0.0123f;
    *(float *)tensor_data(et) = 1e-7f;
    Tensor *args[2] = {at, et};
    Variable *vw = (Variable *)W.u.o, *vm = (Variable *)M.u.o, *vs = (Variable *)S.u.o;
    for (int call = 0; call < 3; call++) {
      tfs_i64 before = exec_update_count();
      Tensor *out = NULL;
      exec_run(p, args, also_out ? &out : NULL);
      ck_assert_int_eq(exec_update_count() - before, 1);
      Tensor *fe = run1(OP_MUL, 2, vm->value, at, NULL), *qe = run1(OP_SQRT, 1, vs->value, NULL, NULL);
      Tensor *ae = run1(OP_ADD, 2, qe, et, NULL), *de = run1(OP_DIV, 2, fe, ae, NULL);
      variable_assign((Variable *)We.u.o, val_obj(de), 2);
      ck_assert(memcmp(tensor_data(vw->value), tensor_data(((Variable *)We.u.o)->value), 2500 * sizeof(float)) == 0);
      if (out) {
        ck_assert(memcmp(tensor_data(out), tensor_data(fe), 2500 * sizeof(float)) == 0);
        tensor_release(out);
      }
      tensor_release(fe);
      tensor_release(qe);
      tensor_release(ae);
      tensor_release(de);
    }
    tensor_release(at);
    tensor_release(et);
    tensor_release(w0);
    tensor_release(m0);
    tensor_release(r0);
    tensor_release(s0);
    exec_plan_free(p);
    graph_release(g);
    TFS_DECREF(W);
    TFS_DECREF(M);
    TFS_DECREF(S);
    TFS_DECREF(We);
  }
}
END_TEST

/* A steady-state call of a chain of small elementwise steps creates no tensor but its result: every
 * intermediate lives in place or in the plan's arena.  Counted (pooled or not, so also under ASan),
 * not timed. */
START_TEST(test_exec_ew_steady_state_no_tensors) {
  TMeta m = {DT_FLOAT32, 2, {10, 10}};
  Graph *g = graph_new("f", "chainfn", NULL);
  int a = graph_add_placeholder(g, "a", &m), b = graph_add_placeholder(g, "b", &m);
  GraphRef r = {a, 0};
  for (int i = 0; i < 20; i++) {   /* c = c + b; c = c * a; ... and a square every third step (two readers) */
    GraphRef in[2] = {r, {i % 2 ? a : b, 0}};
    if (i % 3 == 2) in[1] = r;
    r = (GraphRef){add_op(g, i % 2 ? OP_MUL : OP_ADD, 2, in, &m), 0};
  }
  graph_add_output(g, r);
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.ew + st.ewfused, 20);
  tfs_i64 sh[2] = {10, 10};
  Tensor *ta = ramp(DT_FLOAT32, 2, sh, 1), *tb = ramp(DT_FLOAT32, 2, sh, 2), *args[2] = {ta, tb}, *out;
  tfs_i64 made[5], allocs[5];
  for (int call = 0; call < 5; call++) {
    made[call] = tensor_new_count();
    allocs[call] = tensor_alloc_count();
    exec_run(p, args, &out);
    tensor_release(out);
  }
  for (int call = 1; call + 1 < 5; call++) {
    ck_assert_msg(made[call + 1] - made[call] == 1, "call %d created %lld tensors", call, (long long)(made[call + 1] - made[call]));
    if (tensor_pools_on()) ck_assert_int_eq(allocs[call + 1] - allocs[call], 0);
  }
  tensor_release(ta);
  tensor_release(tb);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* A fused product failing at run time reports the MatMul node, as unfused. */
START_TEST(test_exec_fused_matmul_error) {
  tfs_i64 xs[2] = {3, -1}, ws[2] = {4, 5};
  Graph *g = fused_graph(DT_FLOAT32, 2, xs, ws, false, 0, true, false);
  ExecPlan *p = exec_plan_new(g);
  ExecStats st;
  exec_plan_stats(p, &st);
  ck_assert_int_eq(st.fused, 1);
  tfs_i64 bad[2] = {3, 6}, n = 5;
  Tensor *x = ramp(DT_FLOAT32, 2, bad, 1), *w = ramp(DT_FLOAT32, 2, ws, 2), *b = ramp(DT_FLOAT32, 1, &n, 3);
  Tensor *args[3] = {x, w, b}, *out;
  char *msg = run_failing(p, args, &out);
  ck_assert_str_eq(msg, "Matrix size-incompatible: In[0]: [3,6], In[1]: [4,5] (node MatMul in tf.function 'densefn')");
  free(msg);
  ck_assert_int_eq(x->hdr.rc, 1);
  tensor_release(x);
  tensor_release(w);
  tensor_release(b);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* Inter-op pairs (plan_pairs): a Dense layer's gradient products dW = X^T dY and dX = dY W^T, independent and
 * both reading dY, run as one pool job; each result must be the bits the product has alone (op_run's MatMul,
 * eager) at that thread count, paired or not (exec_inter_op = 1), small (unsplit), large (split) or integer. */
START_TEST(test_exec_inter_op_pairs) {
  static const struct { DType dt; tfs_i64 M, K, N; } cases[] = {
    {DT_FLOAT32, 20, 30, 40},     /* too small to split: one after another */
    {DT_FLOAT32, 32, 40, 48},
    {DT_FLOAT32, 100, 100, 10},   /* the MLP bench's last layer */
    {DT_FLOAT32, 100, 100, 100},  /* both split: their slices in one job */
    {DT_FLOAT32, 16, 48, 64},     /* just below the split size */
    {DT_FLOAT64, 64, 48, 32},
    {DT_INT32, 40, 50, 60},       /* integer transpose_a: never sliced */
  };
  int was = exec_inter_op;
  for (int threads = 2; threads <= 3; threads++) {
    tp_set_threads(threads);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      DType dt = cases[c].dt;
      tfs_i64 M = cases[c].M, K = cases[c].K, N = cases[c].N;
      TMeta mx = {dt, 2, {M, K}}, mdy = {dt, 2, {M, N}}, mw = {dt, 2, {K, N}};
      Graph *g = graph_new("f", "dense_grad", NULL);
      int x = graph_add_placeholder(g, "x", &mx), dy = graph_add_placeholder(g, "dy", &mdy), w = graph_add_placeholder(g, "w", &mw);
      GraphRef xdy[2] = {{x, 0}, {dy, 0}}, dyw[2] = {{dy, 0}, {w, 0}};
      int dw = add_op(g, OP_MATMUL, 2, xdy, &mw), dx = add_op(g, OP_MATMUL, 2, dyw, &mx);
      GraphNode *n0 = graph_node(g, dw), *n1 = graph_node(g, dx);
      n0->attrs.n = n1->attrs.n = 4;
      for (int i = 0; i < 4; i++) n0->attrs.v[i] = val_bool(i == 0), n1->attrs.v[i] = val_bool(i == 1);
      graph_add_output(g, (GraphRef){dw, 0});
      graph_add_output(g, (GraphRef){dx, 0});
      ExecPlan *p = exec_plan_new(g);
      ExecStats st;
      exec_plan_stats(p, &st);
      ck_assert_int_eq(st.mm, 2);
      Tensor *tx = ramp(dt, 2, mx.shape, 1), *tdy = ramp(dt, 2, mdy.shape, 2), *tw = ramp(dt, 2, mw.shape, 3);
      Tensor *args[3] = {tx, tdy, tw};
      OpAttrs ata = {4, {val_bool(true), val_bool(false), val_bool(false), val_bool(false)}};
      OpAttrs atb = {4, {val_bool(false), val_bool(true), val_bool(false), val_bool(false)}};
      Tensor *want[2] = {run1(OP_MATMUL, 2, tx, tdy, &ata), run1(OP_MATMUL, 2, tdy, tw, &atb)};
      for (int inter = 0; inter <= 1; inter++) {
        exec_inter_op = inter;
        for (int call = 0; call < 2; call++) {
          Tensor *outs[2];
          tfs_i64 pairs = exec_pair_count();
          exec_run(p, args, outs);
          ck_assert_int_eq(exec_pair_count() - pairs, inter ? 0 : 1);
          for (int o = 0; o < 2; o++) {
            ck_assert_int_eq(outs[o]->size, want[o]->size);
            ck_assert_msg(!memcmp(tensor_data(outs[o]), tensor_data(want[o]), (size_t)want[o]->size * (size_t)dtype_info[dt].size),
                          "case %d, %d threads, inter %d, output %d: not the product's own bits", (int)c, threads, inter, o);
            tensor_release(outs[o]);
          }
        }
      }
      tensor_release(want[0]);
      tensor_release(want[1]);
      tensor_release(tx);
      tensor_release(tdy);
      tensor_release(tw);
      exec_plan_free(p);
      graph_release(g);
    }
  }
  exec_inter_op = was;
  tp_set_threads(0);
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
  tcase_add_test(tc, test_parexec_runs_on_workers);
  tcase_add_test(tc, test_prune_fold_cse);
  tcase_add_test(tc, test_nonstrict_and_error_location);
  tcase_add_test(tc, test_output_aliasing);
  tcase_add_test(tc, test_exec_cond);
  tcase_add_test(tc, test_exec_while);
  tcase_add_test(tc, test_saved_graph_roundtrip);
  tcase_add_test(tc, test_graphdef_loop_stack_tensorlist);
  tcase_add_test(tc, test_scalar_kernels_match_generic);
  tcase_add_test(tc, test_exec_scalar_steps);
  tcase_add_test(tc, test_exec_scalar_error);
  tcase_add_test(tc, test_exec_while_compiled);
  tcase_add_test(tc, test_exec_while_compiled_error);
  tcase_add_test(tc, test_exec_while_compiled_gather);
  tcase_add_test(tc, test_exec_fused_matmul);
  tcase_add_test(tc, test_exec_inter_op_pairs);
  tcase_add_test(tc, test_exec_steady_state_allocs);
  tcase_add_test(tc, test_exec_mm_planned);
  tcase_add_test(tc, test_exec_fused_matmul_error);
  tcase_add_test(tc, test_exec_ew_planned);
  tcase_add_test(tc, test_exec_ew_chain_bounded);
  tcase_add_test(tc, test_exec_ew_steady_state_no_tensors);
  tcase_add_test(tc, test_exec_fused_updates);
  tcase_add_test(tc, test_exec_fused_conv_pool);
  tcase_add_test(tc, test_exec_fused_update_side_op);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int gate = isa_gate();
  if (gate >= 0) return gate;
  SRunner *sr = srunner_create(graph_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
