/* k_scatter.c — TensorScatterUpdate/Add/Sub/Max/Min: a copy of a tensor with slices at n-d indices updated. */
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

void k_tensor_scatter(OpCall *c) {
  Tensor *t = c->in[0], *o = c->out[0];
  Tensor *ix = tensor_contiguous(c->in[1]), *u = tensor_contiguous(c->in[2]);
  tensor_copy_into(o, t);
  int depth = (int)ix->shape[ix->rank - 1];
  tfs_i64 slice = 1, nidx = 1;
  for (int d = depth; d < o->rank; d++) slice *= o->shape[d];
  for (int d = 0; d < ix->rank - 1; d++) nidx *= ix->shape[d];
  size_t es = (size_t)dtype_info[o->dtype].size;
  OpId id = c->op->id;
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
