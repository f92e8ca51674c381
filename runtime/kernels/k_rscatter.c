/* k_rscatter.c — ResourceScatterAdd/Sub/Mul/Div/Min/Max/Update: a variable's rows at indices combined with updates. */
#include "kernels/ops.h"

/* One row (slice elements) of the variable combined with one of the updates (step 0: a scalar update for every
 * element); integer add/sub/mul wrap through the unsigned type U, integer division truncates as TF's kernels. */
#define COMBINE(T, U)                                                                    \
  for (tfs_i64 e = 0; e < slice; e++) {                                                  \
    T *d = (T *)dst + e;                                                                 \
    T v = ((const T *)src)[e * step];                                                    \
    switch (id) {                                                                        \
      case OP_RESOURCE_SCATTER_ADD: *d = (T)((U)*d + (U)v); break;                       \
      case OP_RESOURCE_SCATTER_SUB: *d = (T)((U)*d - (U)v); break;                       \
      case OP_RESOURCE_SCATTER_MUL: *d = (T)((U)*d * (U)v); break;                       \
      case OP_RESOURCE_SCATTER_DIV: *d = v == 0 && (T)0.5 == 0 ? *d : (T)(*d / v); break;\
      case OP_RESOURCE_SCATTER_MIN: if (v < *d) *d = v; break;                           \
      case OP_RESOURCE_SCATTER_MAX: if (v > *d) *d = v; break;                           \
      default: *d = v; break;                                                            \
    }                                                                                    \
  }

static void shape_fail(OpCall *c, const Tensor *u, const Tensor *ix, const Tensor *p) {
  StrBuf s;
  sb_init(&s);
  sb_puts(&s, "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape ");
  op_shape_text(&s, u->rank, u->shape);
  sb_puts(&s, ", indices.shape ");
  op_shape_text(&s, ix->rank, ix->shape);
  sb_puts(&s, ", params.shape ");
  op_shape_text(&s, p->rank, p->shape);
  /* errindex: Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape …, indices.shape …, params.shape … */
  op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
}

/* The new value is a copy (reads taken before keep theirs), stored with variable_assign. */
void k_resource_scatter(OpCall *c) {
  Variable *var = variable_storage(c->args[0].u.o);
  Tensor *p = var->value, *ix = c->in[1], *u = c->in[2];
  if (u->dtype != p->dtype)
    op_fail(c, ERR_INVALID_ARGUMENT, "Cannot update variable with dtype %s using a tensor with dtype %s",
            dtype_info[p->dtype].name, dtype_info[u->dtype].name);
  if (p->rank < 1) op_fail(c, ERR_INVALID_ARGUMENT, "params must be at least 1 dimensional");
  bool scalar = u->rank == 0;
  bool ok = scalar || u->rank == ix->rank + p->rank - 1;
  for (int i = 0; ok && !scalar && i < ix->rank; i++) ok = u->shape[i] == ix->shape[i];
  for (int i = 1; ok && !scalar && i < p->rank; i++) ok = u->shape[ix->rank + i - 1] == p->shape[i];
  if (!ok) shape_fail(c, u, ix, p);
  DType dt = p->dtype;
  if (dt != DT_FLOAT32 && dt != DT_FLOAT64 && dt != DT_INT32 && dt != DT_INT64)
    op_fail(c, ERR_UNIMPLEMENTED, "%s of a %s variable is not implemented", c->op->graph_name, dtype_info[dt].name);
  ix = tensor_contiguous(ix);
  u = tensor_contiguous(u);
  Tensor *o = tensor_copy(p);
  tfs_i64 slice = p->size / (p->shape[0] ? p->shape[0] : 1), step = scalar ? 0 : 1;
  size_t es = (size_t)dtype_info[dt].size;
  OpId id = c->op->id;
  for (tfs_i64 r = 0; r < ix->size; r++) {
    tfs_i64 k = ix->dtype == DT_INT32 ? ((int32_t *)tensor_data(ix))[r] : ((int64_t *)tensor_data(ix))[r];
    if (k < 0 || k >= p->shape[0]) {
      tfs_i64 n0 = p->shape[0];
      tensor_release(ix);
      tensor_release(u);
      tensor_release(o);
      op_fail(c, ERR_INVALID_ARGUMENT, "indices[%lld] = %lld is not in [0, %lld)", (long long)r, (long long)k, (long long)n0);
    }
    char *dst = (char *)tensor_data(o) + (size_t)(k * slice) * es;
    const char *src = (const char *)tensor_data(u) + (size_t)(r * slice * step) * es;
    switch (dt) {
      case DT_FLOAT32: COMBINE(float, float); break;
      case DT_FLOAT64: COMBINE(double, double); break;
      case DT_INT32: COMBINE(int32_t, uint32_t); break;
      default: COMBINE(int64_t, uint64_t); break;
    }
  }
  tensor_release(ix);
  tensor_release(u);
  int mark = rt_hold_val(val_obj(o));
  variable_assign(var, val_obj(o), 0);
  rt_unhold(mark);
  tensor_release(o);
}
