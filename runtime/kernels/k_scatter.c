/* k_scatter.c — TensorScatterUpdate/Add/Sub/Max/Min: a copy of a tensor with slices at n-d indices updated; ResourceScatterNd*: the same, stored in a variable. */
#include <string.h>

#include "kernels/ops.h"

/* shape: the tensor's; indices [..., D] with D <= rank, updates indices.shape[:-1] + tensor.shape[D:]. */
void meta_tensor_scatter(OpCall *c) {
  const TMeta *t = &c->inm[0], *ix = &c->inm[1], *u = &c->inm[2];
  c->outm[0] = *t;
  if (ix->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Indices shape must have rank at least one. Found:[]");
  if (t->rank < 0 || ix->rank < 0 || u->rank < 0) return;
  tfs_i64 depth = ix->shape[ix->rank - 1];
  if (depth < 0) return;
  if (depth > t->rank)
    op_fail(c, ERR_INVALID_ARGUMENT, "Index innermost dimension length must be <= tensor rank; saw: %lld vs. %d", (long long)depth, t->rank);
  int want = ix->rank - 1 + t->rank - (int)depth;
  bool ok = u->rank == want;
  for (int i = 0; ok && i < ix->rank - 1; i++) ok = u->shape[i] < 0 || ix->shape[i] < 0 || u->shape[i] == ix->shape[i];
  for (int i = (int)depth; ok && i < t->rank; i++) {
    tfs_i64 a = u->shape[ix->rank - 1 + i - (int)depth], b = t->shape[i];
    ok = a < 0 || b < 0 || a == b;
  }
  if (!ok) {
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "Inner dimensions of output shape must match inner dimensions of updates shape. Output: ");
    op_shape_text(&s, t->rank, t->shape);
    sb_puts(&s, " updates: ");
    op_shape_text(&s, u->rank, u->shape);
    /* errindex: Inner dimensions of output shape must match inner dimensions of updates shape. Output: … updates: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
  }
}

/* integer add/sub wrap as TF's kernels do, through the unsigned type U (floats: U is T) */
#define APPLY(T, U)                                                                      \
  for (tfs_i64 e = 0; e < slice; e++) {                                                  \
    T *d = (T *)dst + e;                                                                 \
    T v = ((const T *)src)[e];                                                           \
    switch (id) {                                                                        \
      case OP_TENSOR_SCATTER_ADD: *d = (T)((U)*d + (U)v); break;                         \
      case OP_TENSOR_SCATTER_SUB: *d = (T)((U)*d - (U)v); break;                         \
      case OP_TENSOR_SCATTER_MAX: if (v > *d) *d = v; break;                             \
      case OP_TENSOR_SCATTER_MIN: if (v < *d) *d = v; break;                             \
      default: *d = v; break;                                                            \
    }                                                                                    \
  }

/* The TensorScatter op a ResourceScatterNd op computes (its own id for the TensorScatter ops). */
static OpId scatter_kind(OpId id) {
  switch (id) {
    case OP_RESOURCE_SCATTER_ND_UPDATE: return OP_TENSOR_SCATTER_UPDATE;
    case OP_RESOURCE_SCATTER_ND_ADD: return OP_TENSOR_SCATTER_ADD;
    case OP_RESOURCE_SCATTER_ND_SUB: return OP_TENSOR_SCATTER_SUB;
    case OP_RESOURCE_SCATTER_ND_MAX: return OP_TENSOR_SCATTER_MAX;
    case OP_RESOURCE_SCATTER_ND_MIN: return OP_TENSOR_SCATTER_MIN;
    default: return id;
  }
}

/* The variable's value as the TensorScatter's `tensor` input: its meta (a declared shape's open dims stay open). */
static void rscatter_nd_var_meta(const OpCall *c, TMeta *m) {
  Variable *var = variable_storage(c->args[0].u.o);
  tfs_i64 dims[TFS_MAX_RANK];
  int rank = variable_shape(var, dims);
  meta_set(m, var->value->dtype, rank, dims);
}

/* ResourceScatterNd*: TF's ScatterNdUpdateShape checks the updates against the variable's shape; no output.  The
 * updates' dtype is the variable's (Variable.scatter_nd_* converts host values to it). */
void meta_resource_scatter_nd(OpCall *c) {
  TMeta m[3], out;
  rscatter_nd_var_meta(c, &m[0]);
  m[1] = c->inm[1];
  m[2] = c->inm[2];
  if (m[2].dtype != m[0].dtype)
    op_fail(c, ERR_INVALID_ARGUMENT, "Cannot update variable with dtype %s using a tensor with dtype %s",
            dtype_info[m[0].dtype].name, dtype_info[m[2].dtype].name);
  TMeta *inm = c->inm, *outm = c->outm;
  c->inm = m;
  c->outm = &out;
  meta_tensor_scatter(c);
  c->inm = inm;
  c->outm = outm;
  c->nout = 0;
}

void k_resource_scatter_nd(OpCall *c) {
  Variable *var = variable_storage(c->args[0].u.o);
  Tensor *o = tensor_new(var->value->dtype, var->value->rank, var->value->shape);
  int mark = rt_hold_val(val_obj(o));
  Tensor *in[3] = {var->value, c->in[1], c->in[2]}, **cin = c->in, **cout = c->out;
  c->in = in;
  c->out = &o;
  k_tensor_scatter(c);
  c->in = cin;
  c->out = cout;
  variable_assign(var, val_obj(o), 0);
  rt_unhold(mark);
  tensor_release(o);
}

void k_tensor_scatter(OpCall *c) {
  Tensor *t = c->in[0], *o = c->out[0];
  Tensor *ix = tensor_contiguous(c->in[1]), *u = tensor_contiguous(c->in[2]);
  tensor_copy_into(o, t);
  int depth = (int)ix->shape[ix->rank - 1];
  tfs_i64 slice = 1, nidx = 1;
  for (int d = depth; d < o->rank; d++) slice *= o->shape[d];
  for (int d = 0; d < ix->rank - 1; d++) nidx *= ix->shape[d];
  size_t es = (size_t)dtype_info[o->dtype].size;
  OpId id = scatter_kind(c->op->id);
  for (tfs_i64 r = 0; r < nidx; r++) {
    tfs_i64 off = 0;
    for (int j = 0; j < depth; j++) {
      tfs_i64 v = ix->dtype == DT_INT32 ? ((int32_t *)tensor_data(ix))[r * depth + j] : ((int64_t *)tensor_data(ix))[r * depth + j];
      if (v < 0 || v >= o->shape[j]) {
        StrBuf s;
        sb_init(&s);
        sb_printf(&s, "indices[%lld] = [", (long long)r);
        for (int q = 0; q < depth; q++) {
          tfs_i64 w = ix->dtype == DT_INT32 ? ((int32_t *)tensor_data(ix))[r * depth + q] : ((int64_t *)tensor_data(ix))[r * depth + q];
          sb_printf(&s, "%s%lld", q ? ", " : "", (long long)w);
        }
        sb_puts(&s, "] does not index into shape ");
        op_shape_text(&s, o->rank, o->shape);
        tensor_release(ix);
        tensor_release(u);
        /* errindex: indices[…] = […] does not index into shape … */
        op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
      }
      off = off * o->shape[j] + v;
    }
    char *dst = (char *)tensor_data(o) + (size_t)(off * slice) * es;
    const char *src = (const char *)tensor_data(u) + (size_t)(r * slice) * es;
    switch (o->dtype) {
      case DT_FLOAT32: APPLY(float, float); break;
      case DT_FLOAT64: APPLY(double, double); break;
      case DT_INT32: APPLY(int32_t, uint32_t); break;
      default: APPLY(int64_t, uint64_t); break;
    }
  }
  tensor_release(ix);
  tensor_release(u);
}
