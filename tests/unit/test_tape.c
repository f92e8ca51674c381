/* test_tape.c — gradient tapes from C: recording at op dispatch, the reverse sweep, and gradient coverage of the op table. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/exec.h"
#include "graph/graph.h"
#include "graph/tape.h"
#include "modules/tfmod.h"
#include "graph/trace.h"
#include "valtest.h"

static Val vec(int n, const float *v) {
  tfs_i64 shape[1] = {n};
  Tensor *t = tensor_new(DT_FLOAT32, 1, shape);
  memcpy(tensor_data(t), v, sizeof(float) * (size_t)n);
  return val_obj(t);
}

static float at(Val v, int i) { return (float)tensor_get_f(val_as_tensor(v), i); }

START_TEST(test_polynomial) {
  /* y = sum(x * x + 3 x): dy/dx = 2 x + 3 */
  const float xs[3] = {1, -2, 0.5f};
  Val x = vec(3, xs);
  Val tp = tape_new(false, true);
  Tape *t = (Tape *)tp.u.o;
  tape_watch(t, x);
  tape_push(t);
  ck_assert_int_eq(op_tape_nactive, 1);
  Val sq = op_apply2(OP_MUL, x, x);
  Val lin = op_apply2(OP_MUL, x, val_float(3.0));
  Val s = op_apply2(OP_ADD, sq, lin);
  Val y = op_apply1(OP_SUM, s);
  tape_pop(t);
  ck_assert_int_eq(op_tape_nactive, 0);
  ck_assert_int_eq(t->n, 4);   /* mul, mul, add, sum */
  Val g;
  tape_gradient(t, 1, &y, NULL, 1, &x, false, &g);
  for (int i = 0; i < 3; i++) ck_assert_float_eq(at(g, i), 2 * xs[i] + 3);
  val_decref(g);
  val_decref(sq); val_decref(lin); val_decref(s); val_decref(y); val_decref(x); val_decref(tp);
}
END_TEST

START_TEST(test_unwatched_not_recorded) {
  const float xs[2] = {1, 2};
  Val x = vec(2, xs), tp = tape_new(false, true);
  Tape *t = (Tape *)tp.u.o;
  tape_push(t);
  Val y = op_apply2(OP_MUL, x, x);
  Val z = op_apply1(OP_STOP_GRADIENT, x);
  tape_pop(t);
  ck_assert_int_eq(t->n, 0);
  Val g;
  tape_gradient(t, 1, &y, NULL, 1, &x, false, &g);
  ck_assert_int_eq(g.tag, VT_NONE);
  tape_gradient(t, 1, &y, NULL, 1, &x, true, &g);   /* UnconnectedGradients.ZERO */
  ck_assert_float_eq(at(g, 1), 0);
  val_decref(g); val_decref(y); val_decref(z); val_decref(x); val_decref(tp);
}
END_TEST

START_TEST(test_stop_gradient_and_pause) {
  const float xs[2] = {3, 4};
  Val x = vec(2, xs), tp = tape_new(true, true);
  Tape *t = (Tape *)tp.u.o;
  tape_watch(t, x);
  tape_push(t);
  Val c = op_apply1(OP_STOP_GRADIENT, x);
  Val y = op_apply2(OP_MUL, c, x);   /* d/dx = stop_gradient(x) = x */
  t->paused++;
  Val q = op_apply2(OP_MUL, x, x);   /* not recorded */
  t->paused--;
  tape_pop(t);
  Val g;
  tape_gradient(t, 1, &y, NULL, 1, &x, false, &g);
  ck_assert_float_eq(at(g, 0), 3);
  ck_assert_float_eq(at(g, 1), 4);
  val_decref(g);
  tape_gradient(t, 1, &q, NULL, 1, &x, false, &g);
  ck_assert_int_eq(g.tag, VT_NONE);
  val_decref(c); val_decref(y); val_decref(q); val_decref(x); val_decref(tp);
}
END_TEST

START_TEST(test_broadcast_reduced_back) {
  const float xs[3] = {1, 2, 3};
  Val x = vec(3, xs);
  tfs_i64 shape[2] = {2, 3};
  Tensor *mt = tensor_new(DT_FLOAT32, 2, shape);
  for (int i = 0; i < 6; i++) ((float *)tensor_data(mt))[i] = (float)i;
  Val m = val_obj(mt), tp = tape_new(false, true);
  Tape *t = (Tape *)tp.u.o;
  tape_watch(t, x);
  tape_push(t);
  Val y = op_apply2(OP_MUL, m, x);   /* [2,3] * [3] */
  tape_pop(t);
  Val g;
  tape_gradient(t, 1, &y, NULL, 1, &x, false, &g);
  ck_assert_int_eq(val_as_tensor(g)->rank, 1);
  for (int i = 0; i < 3; i++) ck_assert_float_eq(at(g, i), (float)(i + (i + 3)));   /* column sums of m */
  val_decref(g); val_decref(y); val_decref(m); val_decref(x); val_decref(tp);
}
END_TEST

/* Every op that can produce a float result from float inputs has a gradient
 * entry (possibly grad_none), except the ones listed here on purpose. */
START_TEST(test_long_tape_chunks) {
  /* 3,000 recorded adds span several of the tape's storage chunks: d(x + x + ... + x)/dx = 3001 */
  const float xs[2] = {1, -2};
  Val x = vec(2, xs);
  Val tp = tape_new(false, true);
  Tape *t = (Tape *)tp.u.o;
  tape_watch(t, x);
  tape_push(t);
  Val s = val_incref(x);
  for (int i = 0; i < 3000; i++) {
    Val n = op_apply2(OP_ADD, s, x);
    val_decref(s);
    s = n;
  }
  tape_pop(t);
  ck_assert_int_eq(t->n, 3000);
  Val g;
  tape_gradient(t, 1, &s, NULL, 1, &x, false, &g);
  ck_assert_float_eq(at(g, 0), 3001);
  ck_assert_float_eq(at(g, 1), 3001);
  val_decref(g); val_decref(s); val_decref(x); val_decref(tp);
}
END_TEST

static Val stack_op(OpId id, Val stack, Val in) {
  OpAttrs at = {1, {stack}};
  return op_apply(&op_defs[id], id == OP_STACK_SIZE ? 0 : 1, &in, &at);
}

START_TEST(test_loop_state_stack) {
  /* a loop's per-iteration state: pushed, read back by index (any number of times), released by clear */
  TMeta m = {DT_FLOAT32, 1, {2}};
  Val st = accstack_new(&m);
  const float a[2] = {1, 2}, b[2] = {3, 4};
  Val va = vec(2, a), vb = vec(2, b);
  EQ(stack_op(OP_STACK_SIZE, st, val_none()), "<tf.Tensor: shape=(), dtype=int32, numpy=0>");
  val_decref(stack_op(OP_STACK_PUSH, st, va));
  val_decref(stack_op(OP_STACK_PUSH, st, vb));
  ck_assert_int_eq((int)va.u.o->rc, 2);   /* the stack holds the value itself */
  EQ(stack_op(OP_STACK_SIZE, st, val_none()), "<tf.Tensor: shape=(), dtype=int32, numpy=2>");
  for (int k = 0; k < 2; k++) {
    Val g = stack_op(OP_STACK_GET, st, val_int(1));
    ck_assert_float_eq(at(g, 0), 3);
    ck_assert_float_eq(at(g, 1), 4);
    val_decref(g);
  }
  ERR(ERR_RUNTIME, "_StackGet: index 2 outside a stack of 2", stack_op(OP_STACK_GET, st, val_int(2)));
  accstack_clear_all();
  ck_assert_int_eq((int)va.u.o->rc, 1);
  EQ(stack_op(OP_STACK_SIZE, st, val_none()), "<tf.Tensor: shape=(), dtype=int32, numpy=0>");
  val_decref(va); val_decref(vb); val_decref(st);
}
END_TEST

START_TEST(test_gradient_coverage) {
  static const OpId exempt[] = {
    OP_FUSED_MATMUL, OP_FUSED_CONV2D,   /* created by the graph planner after tracing, never recorded */
    OP_CONV2D_BP_INPUT, OP_CONV2D_BP_FILTER, OP_CONV3D_BP_INPUT, OP_CONV3D_BP_FILTER, OP_MAX_POOL3D_GRAD, OP_AVG_POOL3D_GRAD, OP_DEPTHWISE_BP_INPUT, OP_DEPTHWISE_BP_FILTER, OP_MAX_POOL_GRAD, OP_TRIGAMMA, OP_TOP_K_GRAD,   /* gradient-only (no second order) */
    OP_RESIZE_BILINEAR_GRAD, OP_RESIZE_NEAREST_GRAD, OP_RESIZE_BICUBIC_GRAD, OP_SCALE_TRANSLATE_GRAD, OP_LSTM_SEQ_GRAD, OP_GRU_SEQ_GRAD, OP_SRNN_SEQ_GRAD, OP_BNORM_TRAIN_GRAD,   /* gradient-only too */
    OP_RESIZE_AREA, OP_SPARSE_REDUCE_MAX, OP_SPARSE_REDUCE_MAX_SPARSE, OP_SPARSE_REDUCE_SUM_SPARSE,   /* TF registers no gradient for ResizeArea, SparseReduceMax(Sparse), SparseReduceSumSparse */
    OP_SPARSE_DENSE_ADD,   /* TF's sparse_grad.py registers SparseDenseCwiseMul/Div only */
    OP_ZEROS, OP_ONES, OP_FILL, OP_EYE, OP_RANGE, OP_LINSPACE, OP_RANDOM_UNIFORM, OP_RANDOM_NORMAL,
    OP_TRUNC_NORMAL, OP_TIMESTAMP, OP_ONE_HOT, OP_STATELESS_UNIFORM, OP_STATELESS_NORMAL, OP_STATELESS_TRUNC_NORMAL,   /* no float tensor inputs to differentiate */
    OP_RANDOM_POISSON, OP_STATELESS_POISSON,   /* TF registers no gradient for RandomPoissonV2 / StatelessRandomPoisson */
    OP_RANDOM_GAMMA_GRAD,   /* gradient-only (TF: not differentiable) */
    OP_BITWISE_AND, OP_BITWISE_OR, OP_BITWISE_XOR, OP_LEFT_SHIFT, OP_RIGHT_SHIFT, OP_INVERT,   /* TF: not differentiable (integer-only anyway) */
    OP_IS_NAN, OP_IS_INF, OP_IS_FINITE, OP_ARGMAX, OP_ARGMIN, OP_SHAPE, OP_SIZE, OP_RANK,   /* non-float results */
    OP_COLL_GRAD_START, OP_COLL_GRAD_WAIT,   /* staged by the backward pass itself (gradient all-reduce overlap), never differentiated */
    OP_AS_STRING, OP_STRING_FORMAT,   /* TF: NotDifferentiable (a string result) */
    OP_PRINT, OP_READ_VARIABLE, OP_PY_FUNC,   /* py_function: TF differentiates the host function with its own tape; tfs does not */
    OP_SERIALIZE_TENSOR,   /* a string result: TF registers no gradient */
    OP_BITCAST,   /* TF: Bitcast has no gradient (array_grad.py marks it NotDifferentiable) */
    OP_DATASET_ITER,   /* a dataset's elements (float captures are its function's inputs): TF's IteratorGetNext has no gradient */
  };
  for (int id = 0; id < OP__COUNT; id++) {
    const OpDef *op = &op_defs[id];
    if (!(op->dtypes & DTM_FLOAT) || (op->flags & OPF_NOOUT)) continue;
    bool skip = false;
    for (size_t k = 0; k < sizeof exempt / sizeof exempt[0]; k++) skip |= (int)exempt[k] == id;
    if (skip || op->id == OP_EQUAL || op->id == OP_NOT_EQUAL || (op->id >= OP_LESS && op->id <= OP_GREATER_EQUAL)) continue;
    ck_assert_msg(grad_fn_of((OpId)id) != NULL, "op %s has no gradient entry", op->graph_name);
  }
  ck_assert_ptr_nonnull(grad_fn_of(OP_READ_VARIABLE));
}
END_TEST

/* Tracing a graph f(x) with x a float32 [3] placeholder, under a tape watching x (pushed). */
static Tape *traced_tape(Graph **g, TraceCtx **cx, Val *x, Val *tp) {
  *g = graph_new("f", "f", NULL);
  *cx = trace_push(*g, true, false);
  TMeta m = {DT_FLOAT32, 1, {3}};
  *x = trace_placeholder(*g, "x", &m);
  *tp = tape_new(false, true);
  Tape *t = (Tape *)tp->u.o;
  tape_watch(t, *x);
  tape_push(t);
  return t;
}

START_TEST(test_traced_gradient_is_symbolic) {
  /* while tracing, the backward ops are graph nodes too */
  Graph *g;
  TraceCtx *cx;
  Val x, tp;
  Tape *t = traced_tape(&g, &cx, &x, &tp);
  Val y = op_apply1(OP_EXP, x);
  tape_pop(t);
  int before = g->nnodes;
  Val d;
  tape_gradient(t, 1, &y, NULL, 1, &x, false, &d);
  ck_assert_ptr_nonnull(val_as_tensor(d)->sym);
  ck_assert_int_gt(g->nnodes, before);
  val_decref(d); val_decref(y); val_decref(tp); val_decref(x);
  trace_pop(cx);
  graph_release(g);
}
END_TEST


/* while i < 5: (i + 1, s * x), differentiated inside the graph: the body reads x */
static Val pow_cond(Val self, int n, const Val *a, const Kw *kw) {
  (void)self; (void)n; (void)kw;
  return op_apply2(OP_LESS, a[0], val_int(5));
}

static Val pow_body(Val self, int n, const Val *a, const Kw *kw) {
  (void)n; (void)kw;
  Val i1 = op_apply2(OP_ADD, a[0], val_int(1)), s1 = op_apply2(OP_MUL, a[1], self);
  Val r = tuple_pack(2, i1, s1);
  val_decref(i1);
  val_decref(s1);
  return r;
}

START_TEST(test_loop_state_bounded) {
  /* A differentiated graph while loop called many times: what its iterations push for the backward loop is
   * released when each run ends, so memory does not grow with the number of calls.  Counted (the stacks'
   * entries, live stacks, tensor allocations per call), not timed. */
  Graph *g;
  TraceCtx *cx;
  Val x, tp;
  Tape *t = traced_tape(&g, &cx, &x, &tp);
  Val tf = tf_module(), wl = rt_getattr(tf, "while_loop");
  Val cond = builtin_new("cond", pow_cond, val_undef(), NULL), body = builtin_new("body", pow_body, x, NULL);
  Val i0 = val_obj(tensor_from_val(val_int(0), DT_INT32));
  Val init = tuple_pack(2, i0, x);
  Val a3[3] = {cond, body, init};
  Val r = rt_call(wl, 3, a3, NULL);
  tape_pop(t);
  Val y = ((Tuple *)r.u.o)->items[1], d;
  tape_gradient(t, 1, &y, NULL, 1, &x, false, &d);
  GraphRef dr;
  ck_assert(trace_ref(cx, d, &dr));
  graph_add_output(g, dr);
  val_decref(d); val_decref(r); val_decref(init); val_decref(i0); val_decref(body); val_decref(cond);
  val_decref(wl); val_decref(tf); val_decref(tp); val_decref(x);
  trace_pop(cx);
  ExecPlan *p = exec_plan_new(g);
  const float xv[3] = {1, 2, -0.5f};
  Val xin = vec(3, xv);
  Tensor *in[1] = {val_as_tensor(xin)}, *out;
  tfs_i64 nst0 = 0, allocs[40];
  for (int call = 0; call < 40; call++) {
    allocs[call] = tensor_alloc_count();
    exec_run(p, in, &out);
    for (int i = 0; i < 3; i++)   /* s = x^6: d/dx = 6 x^5 */
      ck_assert_float_eq_tol(tensor_get_f(out, i), 6 * xv[i] * xv[i] * xv[i] * xv[i] * xv[i], 1e-4);
    tensor_release(out);
    tfs_i64 nst, held, peak;
    accstack_stats(&nst, &held, &peak);
    ck_assert_msg(held == 0, "call %d: the loop's stacks still hold %lld values", call, (long long)held);
    ck_assert_msg(peak == 5 * 3, "call %d: %lld values pushed (5 iterations x (2 leaves + random state))", call, (long long)peak);
    if (call == 0) nst0 = nst;
    ck_assert_int_eq(nst, nst0);
  }
  for (int call = 3; call < 39; call++)
    ck_assert_msg(allocs[call + 1] - allocs[call] == allocs[4] - allocs[3], "call %d allocated %lld times, call 3 %lld",
                  call, (long long)(allocs[call + 1] - allocs[call]), (long long)(allocs[4] - allocs[3]));
  val_decref(xin);
  exec_plan_free(p);
  graph_release(g);
}
END_TEST

/* ---- calls of a tf.function recorded by an eager tape -------------------------------------- */

/* sum(exp(tanh(x @ w))): a small layer whose forward ops (Tanh, Exp) its gradient does not use */
static Val layer_body(Val self, int n, const Val *a, const Kw *kw) {
  (void)self; (void)n; (void)kw;
  Val m = op_apply2(OP_MATMUL, a[0], a[1]);
  Val h = op_apply1(OP_TANH, m);
  Val e = op_apply1(OP_EXP, h);
  Val y = op_apply1(OP_SUM, e);
  val_decref(m); val_decref(h); val_decref(e);
  return y;
}

static int forward_steps, all_steps;

static void count_steps(const GraphNode *nd) {
  all_steps++;
  if (nd && nd->kind == GN_OP && (nd->op->id == OP_TANH || nd->op->id == OP_EXP)) forward_steps++;
}

static Val mat(int r, int c, float base) {
  tfs_i64 shape[2] = {r, c};
  Tensor *t = tensor_new(DT_FLOAT32, 2, shape);
  for (int i = 0; i < r * c; i++) ((float *)tensor_data(t))[i] = base + 0.1f * (float)((i * 7) % 11) - 0.4f;
  return val_obj(t);
}

/* Gradients of the layer for x, w, counting the steps tape.gradient runs; with
 * an outer tape recording (higher order) while the gradient is taken. */
static void layer_grads(Val fn, Val x, Val w, bool outer, Val *g) {
  Val tp = tape_new(false, false), op = tape_new(false, false);
  Tape *t = (Tape *)tp.u.o, *o = (Tape *)op.u.o;
  Val src[2] = {x, w};
  tape_watch(o, x);
  tape_watch(o, w);
  if (outer) tape_push(o);
  tape_watch(t, x);
  tape_watch(t, w);
  tape_push(t);
  forward_steps = all_steps = 0;
  exec_step_hook = count_steps;
  Val a[2] = {x, w};
  Val y = rt_call(fn, 2, a, NULL);
  exec_step_hook = NULL;
  if (!val_is(fn, &builtin_type)) ck_assert_int_ge(forward_steps, 2);   /* the call ran Tanh and Exp once */
  tape_pop(t);
  forward_steps = all_steps = 0;
  exec_step_hook = count_steps;
  tape_gradient(t, 1, &y, NULL, 2, src, false, g);
  exec_step_hook = NULL;
  if (outer) tape_pop(o);
  val_decref(y);
  val_decref(tp);
  val_decref(op);
}

START_TEST(test_call_gradient_keeps_forward) {
  /* The gradient of a recorded tf.function call runs only the backward graph,
   * fed with the values the forward graph kept at the call: no Tanh or Exp
   * step runs in tape.gradient (the rerun this replaced ran both again). */
  Val tf = tf_module(), tff = rt_getattr(tf, "function");
  Val body = builtin_new("layer", layer_body, val_undef(), NULL);
  Val fn = rt_call(tff, 1, &body, NULL);
  for (int call = 0; call < 3; call++) {   /* the first call traces and splits, the others reuse it */
    Val x = mat(4, 3, 0.1f * (float)call), w = mat(3, 5, -0.2f), ref[2], g[2];
    layer_grads(body, x, w, false, ref);   /* the same code run eagerly */
    layer_grads(fn, x, w, false, g);
    ck_assert_int_eq(forward_steps, 0);
    ck_assert_int_gt(all_steps, 0);        /* the backward graph ran */
    for (int k = 0; k < 2; k++) {
      Tensor *a = val_as_tensor(g[k]), *b = val_as_tensor(ref[k]);
      ck_assert_int_eq(a->size, b->size);
      for (tfs_i64 i = 0; i < a->size; i++) ck_assert_float_eq_tol(tensor_get_f(a, i), tensor_get_f(b, i), 1e-5);
      val_decref(g[k]);
    }
    /* an outer tape recording the gradient (higher order) makes it rerun the function: the counter sees that */
    layer_grads(fn, x, w, true, g);
    ck_assert_int_ge(forward_steps, 2);
    for (int k = 0; k < 2; k++) {
      Tensor *a = val_as_tensor(g[k]), *b = val_as_tensor(ref[k]);
      for (tfs_i64 i = 0; i < a->size; i++) ck_assert_float_eq_tol(tensor_get_f(a, i), tensor_get_f(b, i), 1e-5);
      val_decref(g[k]);
      val_decref(ref[k]);
    }
    val_decref(x);
    val_decref(w);
  }
  val_decref(fn); val_decref(body); val_decref(tff); val_decref(tf);
}
END_TEST

/* Record n products a * b on tape t; the results are released (the tape keeps them). */
static void record_products(Tape *t, Val a, Val b, int n, Val *last) {
  tape_push(t);
  for (int i = 0; i < n; i++) {
    Val c = op_apply2(OP_MUL, a, b);
    if (i == n - 1) *last = c;
    else val_decref(c);
  }
  tape_pop(t);
}

/* Record 3000 products on a tape and free it: its entry array and chunks go to the pools. */
static void warm_pools(Val a, Val b) {
  Val warm = tape_new(false, true), last;
  tape_watch((Tape *)warm.u.o, a);
  record_products((Tape *)warm.u.o, a, b, 3000, &last);
  val_decref(last);
  val_decref(warm);
}

START_TEST(test_record_no_lookup_no_alloc) {
  /* Recording an op tests a slot bit in its inputs and outputs (no identity-map lookup), and a tape
   * recorded after another was freed reuses its entry array and chunks (no allocator call).  Counted
   * with tape_stats, not timed: the property bench/backward.tfs's tape overhead rests on. */
  const float av[4] = {1, 2, 3, 4}, bv[4] = {0.5f, 0.25f, 2, 1};
  Val a = vec(4, av), b = vec(4, bv), last;
  warm_pools(a, b);

  Val tp = tape_new(false, true), outer = tape_new(false, true);
  Tape *t = (Tape *)tp.u.o, *o = (Tape *)outer.u.o;
  tape_watch(t, a);
  tape_push(o);       /* an enclosing tape that watches nothing: records nothing, looks nothing up */
  tfs_i64 probes0, allocs0, probes1, allocs1;
  tape_stats(&probes0, &allocs0);
  record_products(t, a, b, 3000, &last);
  Val unwatched = op_apply2(OP_MUL, b, b);   /* t is outside its block now, o is inside: neither records */
  tape_stats(&probes1, &allocs1);
  tape_pop(o);
  ck_assert_int_eq(t->n, 3000);
  ck_assert_int_eq(o->n, 0);
  ck_assert_msg(probes1 == probes0, "recording 3000 ops made %lld identity-map probes", (long long)(probes1 - probes0));
  ck_assert_msg(allocs1 == allocs0, "recording 3000 ops called the allocator %lld times", (long long)(allocs1 - allocs0));
  ck_assert(tape_tracks(t, last));
  ck_assert(!tape_tracks(t, unwatched) && !tape_tracks(o, last));
  Val g;   /* d(a * b)/da = b */
  tape_gradient(t, 1, &last, NULL, 1, &a, false, &g);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(at(g, i), bv[i]);
  val_decref(g);
  val_decref(tp);     /* freeing the tape clears its bit: a later tape in the same slot does not see `last` */
  Val tp2 = tape_new(false, true);
  tape_push((Tape *)tp2.u.o);
  ck_assert(!tape_tracks((Tape *)tp2.u.o, last) && !tape_tracks((Tape *)tp2.u.o, a));
  tape_pop((Tape *)tp2.u.o);
  val_decref(tp2); val_decref(outer); val_decref(unwatched); val_decref(last); val_decref(a); val_decref(b);
}
END_TEST

/* Tape references taken while f runs n times (f releases what it makes). */
static tfs_i64 retained_by(int n, Val (*f)(Val, Val), Val a, Val b) {
  tfs_i64 r0 = tape_retained();
  for (int i = 0; i < n; i++) val_decref(f(a, b));
  return tape_retained() - r0;
}
static Val do_add(Val a, Val b) { return op_apply2(OP_ADD, a, b); }
static Val do_mul(Val a, Val b) { return op_apply2(OP_MUL, a, b); }
static Val do_exp(Val a, Val b) { (void)b; return op_apply1(OP_EXP, a); }

static Val do_sum0(Val a, Val b) {   /* an op with an attribute: reduce_sum(a, axis=0) */
  (void)b;
  OpAttrs at = {1, {val_int(0)}};
  return op_apply(&op_defs[OP_SUM], 1, &a, &at);
}

START_TEST(test_record_straight_line) {
  /* The guard on the tape's cost per recorded op, counted rather than timed: with one tape, an eager op
   * on tensors (Mul, Add, Exp, and Sum with an attribute) takes the straight-line recording path every
   * time, makes no identity-map probe and no allocator call (warm pools), takes only the references
   * its gradient needs, and its entry takes 32 bytes plus one block: 80 bytes for a Mul (inputs, weak
   * output, three ids).  Any of these growing shows in bench/backward.tfs's taped/untaped ratio. */
  const float av[4] = {0.5f, -1, 0.25f, 2}, bv[4] = {1, 0.5f, -0.5f, 0.75f};
  Val a = vec(4, av), b = vec(4, bv);
  warm_pools(a, b);

  Val tp = tape_new(false, true);
  Tape *t = (Tape *)tp.u.o;
  tape_watch(t, a);
  tape_push(t);
  ck_assert_int_eq(sizeof(TapeEntry), 32);
  Val (*fns[4])(Val, Val) = {do_mul, do_add, do_exp, do_sum0};
  const tfs_i64 refs[4] = {2, 0, 1, 0};   /* Mul: its inputs; Add: shapes; Exp: its output; Sum: a shape */
  for (int k = 0; k < 4; k++) {
    tfs_i64 probes0, allocs0, probes1, allocs1, fast0 = tape_fast_entries();
    int n0 = t->n;
    size_t bytes0 = tape_bytes(t);
    tape_stats(&probes0, &allocs0);
    tfs_i64 r = retained_by(1000, fns[k], a, b);
    tape_stats(&probes1, &allocs1);
    ck_assert_int_eq(t->n - n0, 1000);
    ck_assert_msg(tape_fast_entries() - fast0 == 1000, "op %d: %lld of 1000 entries took the straight-line path", k,
                  (long long)(tape_fast_entries() - fast0));
    ck_assert_int_eq(probes1 - probes0, 0);
    ck_assert_int_eq(allocs1 - allocs0, 0);
    ck_assert_int_eq(r, 1000 * refs[k]);
    if (k == 0) ck_assert_int_eq(tape_bytes(t) - bytes0, 1000 * (32 + 80));
  }
  /* the entries give the right gradients: d/da of reduce_sum(a * b, axis=0) is b */
  Val p = op_apply2(OP_MUL, a, b), s = do_sum0(p, p);
  tape_pop(t);
  Val g;
  tape_gradient(t, 1, &s, NULL, 1, &a, false, &g);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(at(g, i), bv[i]);
  val_decref(g); val_decref(s); val_decref(p); val_decref(tp); val_decref(a); val_decref(b);
}
END_TEST

START_TEST(test_kept_values_per_gradient) {
  /* An eager entry keeps only what its op's gradient reads (grad_drops_of, TF's unused
   * inputs/outputs lists): an Add keeps shapes, no tensor; a Mul its two inputs, not its output;
   * an Exp its output, not its input.  Counted with tape_retained, not timed. */
  const float av[4] = {0.5f, -1, 0.25f, 2}, bv[4] = {1, 0.5f, -0.5f, 0.75f};
  Val a = vec(4, av), b = vec(4, bv), tp = tape_new(true, true);
  Tape *t = (Tape *)tp.u.o;
  tape_watch(t, a);
  tape_push(t);
  ck_assert_int_eq(retained_by(100, do_add, a, b), 0);
  ck_assert_int_eq(retained_by(100, do_mul, a, b), 200);
  ck_assert_int_eq(retained_by(100, do_exp, a, b), 100);
  ck_assert_int_eq(t->n, 300);
  /* q = exp((a + b) * a) + 1 with every intermediate released before the gradient: dq/da = exp(p) (2a + b) */
  Val s = op_apply2(OP_ADD, a, b);
  Val p = op_apply2(OP_MUL, s, a);
  Val e = op_apply1(OP_EXP, p);
  Val q = op_apply2(OP_ADD, e, val_float(1.0));
  val_decref(s);
  val_decref(e);
  /* new tensors recorded after those were freed, likely at their addresses: identities are ids, not addresses */
  Val z[4];
  for (int i = 0; i < 4; i++) z[i] = op_apply2(OP_MUL, a, val_float(3.0));
  /* broadcasting through an Add kept as shapes: m [2, 4] + a [4] gives a's gradient 2 */
  tfs_i64 sh[2] = {2, 4};
  Tensor *mt = tensor_new(DT_FLOAT32, 2, sh);
  memset(tensor_data(mt), 0, sizeof(float) * 8);
  Val m = val_obj(mt), y = op_apply2(OP_ADD, m, a);
  tape_pop(t);
  Val gq;
  tape_gradient(t, 1, &q, NULL, 1, &a, false, &gq);
  for (int i = 0; i < 4; i++) {
    double pv = (av[i] + bv[i]) * av[i];
    ck_assert_double_eq_tol(at(gq, i), exp(pv) * (2 * av[i] + bv[i]), 1e-4 * (1 + exp(pv)));
  }
  Val gy;
  tape_gradient(t, 1, &y, NULL, 1, &a, false, &gy);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(at(gy, i), 2);
  /* p is held weakly and outlives the tape: freeing the tape clears its bit, a later tape does not see it */
  ck_assert(tape_tracks(t, p));
  val_decref(tp);
  Val tp2 = tape_new(false, true);
  tape_push((Tape *)tp2.u.o);
  ck_assert(!tape_tracks((Tape *)tp2.u.o, p));
  Val p2 = op_apply2(OP_MUL, p, p);   /* not recorded: p is no longer tracked */
  ck_assert_int_eq(((Tape *)tp2.u.o)->n, 0);
  tape_pop((Tape *)tp2.u.o);
  val_decref(tp2);
  for (int i = 0; i < 4; i++) val_decref(z[i]);
  val_decref(gq); val_decref(gy); val_decref(p); val_decref(p2); val_decref(q); val_decref(y); val_decref(m);
  val_decref(a); val_decref(b);
}
END_TEST

START_TEST(test_slots_reused) {
  /* 70 tapes alive at once, each used in turn: past 64 a tape entering takes the slot of one outside
   * its block, whose membership then comes from its map; every tape still gives its own gradient. */
  enum { N = 70 };
  const float xv[2] = {1, -2};
  Val x = vec(2, xv), tps[N], ys[N];
  for (int i = 0; i < N; i++) {
    tps[i] = tape_new(true, true);
    Tape *t = (Tape *)tps[i].u.o;
    tape_watch(t, x);
    tape_push(t);
    ys[i] = op_apply2(OP_MUL, x, val_float((double)(i + 1)));
    tape_pop(t);
    ck_assert_int_eq(t->n, 1);
  }
  for (int i = 0; i < N; i++) {
    Tape *t = (Tape *)tps[i].u.o;
    ck_assert(tape_tracks(t, ys[i]) && tape_tracks(t, x));
    ck_assert(!tape_tracks(t, ys[(i + 1) % N]));
    Val g;
    tape_gradient(t, 1, &ys[i], NULL, 1, &x, false, &g);
    ck_assert_float_eq(at(g, 1), (float)(i + 1));
    val_decref(g);
  }
  for (int i = 0; i < N; i++) { val_decref(ys[i]); val_decref(tps[i]); }
  val_decref(x);
}
END_TEST

static Suite *tape_suite(void) {
  Suite *s = suite_create("tape");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_polynomial);
  tcase_add_test(tc, test_unwatched_not_recorded);
  tcase_add_test(tc, test_stop_gradient_and_pause);
  tcase_add_test(tc, test_broadcast_reduced_back);
  tcase_add_test(tc, test_gradient_coverage);
  tcase_add_test(tc, test_long_tape_chunks);
  tcase_add_test(tc, test_loop_state_stack);
  tcase_add_test(tc, test_traced_gradient_is_symbolic);
  tcase_add_test(tc, test_loop_state_bounded);
  tcase_add_test(tc, test_record_no_lookup_no_alloc);
  tcase_add_test(tc, test_slots_reused);
  tcase_add_test(tc, test_kept_values_per_gradient);
  tcase_add_test(tc, test_record_straight_line);
  tcase_add_test(tc, test_call_gradient_keeps_forward);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(tape_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
