/* k_grad.c — kernels used only by gradients: scattering a slice's or gather's gradient back, and the stacks of a loop's per-iteration state. */
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

/* _ScatterGrad(x, dy, indices; op, a0..a3): the gradient of an op that selects
 * elements of x (StridedSlice, Slice, GatherV2, GatherNd, PadV2).  The op is run again on a
 * tensor holding each element's own flat index, which says where every
 * element of dy came from; repeated indices (gather, mirrored pads) accumulate,
 * index -1 (a constant pad's fill) came from no element. */
/* shape: the shape of the gathered params. */
void meta_scatter_grad(OpCall *c) {
  c->outm[0] = c->inm[0];
  c->outm[0].dtype = c->inm[1].dtype;
}

void k_scatter_grad(OpCall *c) {
  Tensor *x = c->in[0], *dy = c->in[1], *out = c->out[0];
  OpId fop = (OpId)op_attr_int(c, 0, OP_STRIDED_SLICE);
  Tensor *idx = tensor_new(DT_INT64, x->rank, x->shape);
  int64_t *ip = tensor_data(idx);
  for (tfs_i64 i = 0; i < idx->size; i++) ip[i] = i;
  int mark = rt_hold_val(val_obj(idx));
  OpAttrs fa;
  fa.n = c->attrs->n - 1;
  for (int i = 0; i < fa.n; i++) fa.v[i] = c->attrs->v[i + 1];
  Tensor *in[2] = {idx, c->in[2]};
  Val raw[2] = {val_obj(idx), c->in[2] ? val_obj(c->in[2]) : val_none()};
  Tensor **res;
  int nres = op_run(&op_defs[fop], c->in[2] ? 2 : 1, in, raw, &fa, &res);
  Tensor *sel = res[0];
  for (int i = 1; i < nres; i++) tensor_release(res[i]);
  free(res);
  rt_hold_val(val_obj(sel));
  if (sel->size != dy->size)
    op_fail(c, ERR_INVALID_ARGUMENT, "gradient of %s: %lld gradient values for %lld selected elements",
            op_defs[fop].graph_name, (long long)dy->size, (long long)sel->size);
  memset(tensor_data(out), 0, (size_t)out->size * (size_t)dtype_info[out->dtype].size);
  if (out->dtype == DT_FLOAT32 && sel->dtype == DT_INT64 && dy->dtype == DT_FLOAT32 && tensor_is_contiguous(sel) &&
      tensor_is_contiguous(dy)) {
    /* the common case without the per-element accessors (the Embedding's gradient: 5% of an LSTM step);
     * the same additions in the same order */
    float *o = tensor_data(out);
    const int64_t *s = tensor_data(sel);
    const float *d = tensor_data(dy);
    for (tfs_i64 i = 0; i < sel->size; i++)
      if (s[i] >= 0) o[s[i]] += d[i];
  } else if (dtype_is_complex(out->dtype)) {   /* (re, im) pairs: both parts go where the element came from */
    Tensor *dc = tensor_contiguous(dy);
    bool f = out->dtype == DT_COMPLEX64;
    for (tfs_i64 i = 0; i < sel->size; i++) {
      tfs_i64 k = tensor_get_i(sel, i);
      if (k < 0) continue;
      for (int h = 0; h < 2; h++) {
        if (f) ((float *)tensor_data(out))[2 * k + h] += ((const float *)tensor_data(dc))[2 * i + h];
        else ((double *)tensor_data(out))[2 * k + h] += ((const double *)tensor_data(dc))[2 * i + h];
      }
    }
    tensor_release(dc);
  } else if (out->dtype == DT_FLOAT32) {
    float *o = tensor_data(out);
    for (tfs_i64 i = 0; i < sel->size; i++)
      if (tensor_get_i(sel, i) >= 0) o[tensor_get_i(sel, i)] += (float)tensor_get_f(dy, i);
  } else {
    double *o = tensor_data(out);
    for (tfs_i64 i = 0; i < sel->size; i++)
      if (tensor_get_i(sel, i) >= 0) o[tensor_get_i(sel, i)] += tensor_get_f(dy, i);
  }
  rt_unhold(mark);
  tensor_release(sel);
  tensor_release(idx);
}

/* ---- stacks of per-iteration loop state ------------------------------------------------------
 * A graph while loop under a gradient tape pushes its carried values at the
 * start of every iteration (_StackPush), after noting the stack's size
 * (_StackSize); a backward loop reads iteration k's values at that base + k
 * (_StackGet), so several gradients of one forward pass (a persistent tape, a
 * jacobian's rows) each find them.  A stack is a host object held as an
 * attribute by those nodes.  Every live stack is on one list: what a run
 * pushed is released when the outermost graph run ends. */
typedef struct AccStack {
  Obj hdr;
  TMeta m;                    /* what _StackGet produces */
  Tensor **v;
  int n, cap;
  struct AccStack *prev, *next;
} AccStack;

static AccStack *acc_live;
static tfs_i64 acc_nlive, acc_held, acc_peak;   /* for accstack_stats */

static void acc_drop(AccStack *s) {
  acc_held -= s->n;
  while (s->n) tensor_release(s->v[--s->n]);
}

void accstack_stats(tfs_i64 *stacks, tfs_i64 *held, tfs_i64 *peak) {
  *stacks = acc_nlive;
  *held = acc_held;
  *peak = acc_peak;
  acc_peak = acc_held;
}

static void acc_free(Obj *o) {
  AccStack *s = (AccStack *)o;
  acc_drop(s);
  free(s->v);
  acc_nlive--;
  if (s->prev) s->prev->next = s->next;
  else acc_live = s->next;
  if (s->next) s->next->prev = s->prev;
  free(s);
}

static void acc_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "<stack>"); }

static const Type acc_type = {.name = "stack", .free = acc_free, .repr = acc_repr};

Val accstack_new(const TMeta *m) {
  AccStack *s = obj_new(&acc_type, sizeof(AccStack));
  s->m = *m;
  s->v = NULL;
  s->n = s->cap = 0;
  s->prev = NULL;
  s->next = acc_live;
  if (acc_live) acc_live->prev = s;
  acc_live = s;
  acc_nlive++;
  return val_obj(s);
}

void accstack_clear_all(void) {
  for (AccStack *s = acc_live; s; s = s->next) acc_drop(s);
}

static AccStack *acc_of(OpCall *c, int ai) {
  Val v = ai < c->attrs->n ? c->attrs->v[ai] : val_undef();
  if (!val_is(v, &acc_type)) op_fail(c, ERR_INVALID_ARGUMENT, "%s: not a stack", c->op->graph_name);
  return (AccStack *)v.u.o;
}

void k_stack_push(OpCall *c) {
  AccStack *s = acc_of(c, 0);
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    Tensor **v = realloc(s->v, sizeof(Tensor *) * (size_t)cap);
    if (!v) op_fail(c, ERR_MEMORY, "out of memory");
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = tensor_retain(c->in[0]);
  if (++acc_held > acc_peak) acc_peak = acc_held;
}

/* shape: a scalar int32. */
void meta_stack_size(OpCall *c) { meta_set(&c->outm[0], DT_INT32, 0, NULL); }

void k_stack_size(OpCall *c) { *(int32_t *)tensor_data(c->out[0]) = acc_of(c, 0)->n; }

/* shape: the shape of the pushed value. */
void meta_stack_get(OpCall *c) { c->outm[0] = acc_of(c, 0)->m; }

void k_stack_get(OpCall *c) {
  AccStack *s = acc_of(c, 0);
  tfs_i64 i = tensor_get_i(c->in[0], 0);
  if (i < 0 || i >= s->n) op_fail(c, ERR_RUNTIME, "_StackGet: index %lld outside a stack of %d", (long long)i, s->n);
  c->out[0] = tensor_retain(s->v[i]);
}

/* _SumTo(dy, x): dy summed to x's shape, over dy's leading axes and the axes where x has size 1 (the
 * gradient of a broadcasting op when the graph knows the shapes only at run time; grad.c's unbroadcast
 * reduces statically otherwise). */
/* shape: x's shape, dy's dtype. */
void meta_sum_to(OpCall *c) {
  c->outm[0] = c->inm[1];
  c->outm[0].dtype = c->inm[0].dtype;
}

void k_sum_to(OpCall *c) {
  Tensor *dy = c->in[0], *x = c->in[1];
  int lead = dy->rank - x->rank, n = 0;
  tfs_i64 axes[TFS_MAX_RANK];
  for (int i = 0; i < dy->rank && lead >= 0; i++) {
    if (i < lead) {
      axes[n++] = i;
      continue;
    }
    tfs_i64 xd = x->shape[i - lead];
    if (xd == 1 && dy->shape[i] != 1) axes[n++] = i;
    else if (xd != dy->shape[i]) lead = -1;
  }
  if (lead < 0) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "gradient of a broadcast: a gradient of shape ");
    op_shape_text(&b, dy->rank, dy->shape);
    sb_puts(&b, " does not reduce to the input's shape ");
    op_shape_text(&b, x->rank, x->shape);
    /* errindex: gradient of a broadcast: a gradient of shape … does not reduce to the input's shape … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  if (!n) {   /* nothing was broadcast (the common case: equal unknown dims): dy itself, as a view */
    c->out[0] = tensor_view(dy, dy->rank, dy->shape, dy->strides, dy->offset);
    return;
  }
  Val ax = tuple_new(n);
  for (int i = 0; i < n; i++) ((Tuple *)ax.u.o)->items[i] = val_int(axes[i]);
  int mark = rt_hold_val(ax);
  OpAttrs sa = {2, {ax, val_bool(false)}};
  Tensor **res;
  Val raw = val_obj(dy);
  int nres = op_run(&op_defs[OP_SUM], 1, &dy, &raw, &sa, &res);
  for (int i = 1; i < nres; i++) tensor_release(res[i]);
  Tensor *out = tensor_new(dy->dtype, x->rank, x->shape);
  tensor_copy_into(out, res[0]);   /* the sum is contiguous, with out's elements in out's order */
  tensor_release(res[0]);
  free(res);
  c->out[0] = out;
  rt_unhold(mark);
  val_decref(ax);
}
