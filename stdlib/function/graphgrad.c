/* graphgrad.c — tf.gradients(ys, xs): the backward pass built by walking the traced graph (graph mode only), with the tape's per-op gradients. */
#include <stdint.h>
#include <stdlib.h>

#include "object/object.h"
#include "graph/tape.h"
#include "modules/tfmod.h"
#include "graph/trace.h"

/* A graph value as a map key (never NULL). */
static void *ref_key(GraphRef r) { return (void *)(uintptr_t)(((uintptr_t)(r.node + 1) << 8) | (uintptr_t)r.out); }

static void flat_seq(Val v, Val **items, int *n) {
  tfs_i64 m;
  const Val *it;
  if (seq_items(v, &m, &it)) {
    *n = (int)m;
    *items = malloc(sizeof(Val) * (size_t)(m ? m : 1));
    if (!*items) rt_throw(ERR_MEMORY, "out of memory");
    for (tfs_i64 i = 0; i < m; i++) (*items)[i] = it[i];
  } else {
    *n = 1;
    *items = malloc(sizeof(Val));
    if (!*items) rt_throw(ERR_MEMORY, "out of memory");
    (*items)[0] = v;
  }
}

/* The current graph's value of x (a symbolic tensor, or the handle of a Variable). */
static bool value_ref(TraceCtx *cx, Val x, GraphRef *r) {
  Tensor *t = val_is_tensor(x) ? val_tensor(x) : NULL;
  if (t && t->sym) return trace_ref(cx, x, r);
  if (val_is(x, &variable_type)) {
    /* a Variable stands for its handle node: reads of it are ReadVariableOp nodes on that handle */
    for (int i = 0; i < cx->g->nnodes; i++)
      if (cx->g->nodes[i].kind == GN_VARHANDLE && cx->g->nodes[i].var == variable_storage(x.u.o)) {
        *r = (GraphRef){i, 0};
        return true;
      }
  }
  return false;
}

//! tf.gradients(ys, xs, grad_ys=None, name='gradients', gate_gradients=False, aggregation_method=None, stop_gradients=None, unconnected_gradients=None)
//!   Symbolic gradients of the sum of ys with respect to each of xs; only inside tf.function (graph mode).
static Val tf_gradients(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.gradients",
                         .sig = "ys, xs, grad_ys=None, name='gradients', gate_gradients=False, aggregation_method=None, "
                                "stop_gradients=None, unconnected_gradients=None"};
  Val a[8];
  args_parse(&spec, n, args, kw, a);
  if (!trace_active())
    rt_throw(ERR_RUNTIME, "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead.");
  TraceCtx *cx = trace_current();
  Graph *g = cx->g;
  Val *ys, *xs, *gys = NULL;
  int ny, nx, ng = 0;
  flat_seq(a[0], &ys, &ny);
  flat_seq(a[1], &xs, &nx);
  if (a[2].tag != VT_NONE && a[2].tag != VT_UNDEF) flat_seq(a[2], &gys, &ng);
  bool zeros = a[7].tag == VT_OBJ && val_is(a[7], &str_type) && str_cstr(a[7])[0] == 'z';
  PtrMap reach = {0}, grads = {0};
  for (int i = 0; i < nx; i++) {
    GraphRef r;
    if (!value_ref(cx, xs[i], &r)) rt_throw(ERR_TYPE, "tf.gradients: xs must be tensors of this graph or Variables, got %s", val_type_name(xs[i]));
    ptrmap_put(&reach, ref_key(r), val_undef());
  }
  for (int id = 0; id < g->nnodes; id++) {
    GraphNode *nd = &g->nodes[id];
    bool any = false;
    for (int j = 0; j < nd->nin && !any; j++) any = nd->in[j].node >= 0 && ptrmap_find(&reach, ref_key(nd->in[j])) >= 0;
    if (any)
      for (int k = 0; k < nd->nout; k++) ptrmap_put(&reach, ref_key((GraphRef){id, k}), val_undef());
  }
  int top = -1;
  for (int i = 0; i < ny; i++) {
    GraphRef r;
    if (!value_ref(cx, ys[i], &r)) continue;
    Tensor *t = val_as_tensor(ys[i]);
    if (!t || !dtype_has_grad(t->dtype) || ptrmap_find(&reach, ref_key(r)) < 0) continue;
    Val seed = i < ng && gys[i].tag != VT_NONE ? val_incref(gys[i]) : op_apply1(OP_ONES_LIKE, ys[i]);
    int s = ptrmap_find(&grads, ref_key(r));
    if (s >= 0) {
      Val sum = op_apply2(OP_ADD, grads.v[s], seed);
      TFS_DECREF(seed);
      seed = sum;
    }
    ptrmap_put(&grads, ref_key(r), seed);
    if (r.node > top) top = r.node;
  }
  bool through_cf = false;
  for (int id = top; id >= 0 && !through_cf; id--) {
    GraphNode nd = g->nodes[id];   /* a copy: the backward ops append to g->nodes */
    Val dy[8];
    bool any = false;
    if (nd.nout > 8) continue;
    for (int k = 0; k < nd.nout; k++) {
      int s = ptrmap_find(&grads, ref_key((GraphRef){id, k}));
      dy[k] = s >= 0 ? val_incref(grads.v[s]) : val_undef();
      any |= s >= 0;
    }
    if (!any) continue;
    if (nd.kind != GN_OP) {
      for (int k = 0; k < nd.nout; k++) TFS_DECREF(dy[k]);
      if (nd.kind == GN_COND || nd.kind == GN_WHILE) through_cf = true;
      continue;
    }
    GradFn fn = grad_fn_of(nd.op->id);
    if (!fn || nd.ndyn) {
      for (int k = 0; k < nd.nout; k++) TFS_DECREF(dy[k]);
      if (!fn) rt_throw(ERR_RUNTIME, "No gradient defined for operation '%s' (op type: %s)", nd.name, nd.op->graph_name);
      rt_throw(ERR_UNIMPLEMENTED, "tf.gradients: gradient of '%s' with traced attributes is not supported", nd.name);
    }
    Val *in = malloc(sizeof(Val) * (size_t)(nd.nin + 1)), *dx = malloc(sizeof(Val) * (size_t)(nd.nin + 1));
    Val out[8];
    if (!in || !dx) rt_throw(ERR_MEMORY, "out of memory");
    for (int j = 0; j < nd.nin; j++) {
      const GraphNode *src = nd.in[j].node >= 0 ? &g->nodes[nd.in[j].node] : NULL;
      if (src && src->kind == GN_VARHANDLE) in[j] = val_incref(val_obj(src->var));   /* a resource input */
      else in[j] = src ? trace_sym(g, nd.in[j]) : nd.raw ? val_incref(nd.raw[j]) : val_none();
      dx[j] = val_undef();
    }
    for (int k = 0; k < nd.nout; k++) {
      out[k] = trace_sym(g, (GraphRef){id, k});
      if (dy[k].tag == VT_UNDEF) dy[k] = op_apply1(OP_ZEROS_LIKE, out[k]);
    }
    OpAttrs at = nd.attrs;
    GradCall gc = {nd.op, nd.nin, nd.nout, in, out, dy, &at};
    grad_run(fn, &gc, dx);
    for (int j = 0; j < nd.nin; j++) {
      if (dx[j].tag != VT_UNDEF && dx[j].tag != VT_NONE && nd.in[j].node >= 0 && ptrmap_find(&reach, ref_key(nd.in[j])) >= 0) {
        void *key = ref_key(nd.in[j]);
        int s = ptrmap_find(&grads, key);
        if (s >= 0) {
          Val sum = op_apply2(OP_ADD, grads.v[s], dx[j]);
          TFS_DECREF(dx[j]);
          dx[j] = sum;
        }
        ptrmap_put(&grads, key, dx[j]);
      } else {
        TFS_DECREF(dx[j]);
      }
      TFS_DECREF(in[j]);
    }
    for (int k = 0; k < nd.nout; k++) {
      TFS_DECREF(out[k]);
      TFS_DECREF(dy[k]);
    }
    free(in);
    free(dx);
  }
  if (through_cf) {
    /* a graph cond or while on the way: the trace's own tape recorded their gradients (trace.c) */
    ptrmap_free(&reach);
    ptrmap_free(&grads);
    Tape *sh = trace_shadow_tape();
    if (!sh) {
      free(ys); free(xs); free(gys);
      rt_throw(ERR_UNIMPLEMENTED, "tf.gradients through graph control flow is not supported; use tf.GradientTape");
    }
    Val *outs = calloc((size_t)nx + 1, sizeof(Val));
    Val *seeds = NULL;
    if (!outs) rt_throw(ERR_MEMORY, "out of memory");
    int mark = rt_hold_mem(outs);
    rt_hold_mem(ys);
    rt_hold_mem(xs);
    rt_hold_mem(gys);
    if (ng) {
      seeds = calloc((size_t)ny + 1, sizeof(Val));
      if (!seeds) rt_throw(ERR_MEMORY, "out of memory");
      rt_hold_mem(seeds);
      for (int i = 0; i < ny; i++) seeds[i] = i < ng ? gys[i] : val_none();
    }
    tape_gradient(sh, ny, ys, seeds, nx, xs, zeros, outs);
    rt_unhold(mark);
    Val res = list_new(nx);
    for (int i = 0; i < nx; i++) {
      list_append(res, outs[i]);
      TFS_DECREF(outs[i]);
    }
    free(outs); free(seeds); free(ys); free(xs); free(gys);
    return res;
  }
  Val res = list_new(nx);
  for (int i = 0; i < nx; i++) {
    GraphRef r;
    value_ref(cx, xs[i], &r);
    int s = ptrmap_find(&grads, ref_key(r));
    Val gv = s >= 0 ? val_incref(grads.v[s]) : zeros ? op_apply1(OP_ZEROS_LIKE, xs[i]) : val_none();
    list_append(res, gv);
    TFS_DECREF(gv);
  }
  ptrmap_free(&reach);
  ptrmap_free(&grads);
  free(ys);
  free(xs);
  free(gys);
  return res;
}

void graphgrad_init(void) {
  Val b = builtin_new("tf.gradients", tf_gradients, val_undef(), NULL);
  tfmod_register("gradients", b);
  TFS_DECREF(b);
}
