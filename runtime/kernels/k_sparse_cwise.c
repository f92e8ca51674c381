/* k_sparse_cwise.c — TF's SparseDenseCwiseMul/Div/Add: a SparseTensor's values with the dense operand read at its indices. */
#include <stdint.h>
#include <string.h>

#include "kernels/k_sparse.h"

/* ---- SparseDenseCwise{Mul,Div,Add}(sp_indices, sp_values, sp_shape, dense) -> values [nnz] ---- */

/* shape: the values' (TF's SparseDenseCwiseShapeFn); the component checks and their texts are SparseSoftmax's */
void meta_sparse_cwise(OpCall *c) { meta_sparse_softmax(c); }

/* TF's check: the dense shape no longer than the sparse one and, aligned from the right, each dense dimension
 * 1 or the sparse one's (the dense side broadcasts to the sparse side only) */
static void check_broadcast(OpCall *c, const Tensor *shp, const Tensor *d) {
  int r = (int)shp->size;
  bool ok = d->rank <= r;
  for (int i = 0; ok && i < d->rank; i++) {
    tfs_i64 s = tensor_get_i(shp, r - 1 - i), t = d->shape[d->rank - 1 - i];
    ok = t == s || (t == 1 && s >= 1);
  }
  if (ok) return;
  StrBuf msg;
  sb_init(&msg);
  sb_puts(&msg, "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: [");
  for (int i = 0; i < r; i++) sb_printf(&msg, i ? ",%lld" : "%lld", (long long)tensor_get_i(shp, i));
  sb_puts(&msg, "] vs. [");
  for (int i = 0; i < d->rank; i++) sb_printf(&msg, i ? ",%lld" : "%lld", (long long)d->shape[i]);
  sb_puts(&msg, "]");
  /* errindex: SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: [...] vs. [...] */
  op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
}

#define CWISE(T)                                                                         \
  do {                                                                                   \
    const T *v = tensor_data(val), *g = tensor_data(gat);                                \
    T *o = tensor_data(out);                                                             \
    if (id == OP_SPARSE_DENSE_MUL) for (tfs_i64 i = 0; i < n; i++) o[i] = (T)(v[i] * g[i]); \
    else if (id == OP_SPARSE_DENSE_DIV) for (tfs_i64 i = 0; i < n; i++) o[i] = (T)(v[i] / g[i]); \
    else for (tfs_i64 i = 0; i < n; i++) o[i] = (T)(v[i] + g[i]);                        \
  } while (0)

/* out = val <op> gat, elementwise over n values of one dtype (halves through float32, as Eigen computes them) */
static void cwise_apply(OpId id, Tensor *out, Tensor *val, Tensor *gat) {
  tfs_i64 n = out->size;
  switch (out->dtype) {
  case DT_FLOAT32: CWISE(float); break;
  case DT_FLOAT64: CWISE(double); break;
  case DT_INT32: CWISE(int32_t); break;
  case DT_INT64: CWISE(int64_t); break;
  case DT_UINT8: CWISE(uint8_t); break;
  case DT_INT8: CWISE(int8_t); break;
  case DT_INT16: CWISE(int16_t); break;
  case DT_UINT16: CWISE(uint16_t); break;
  case DT_UINT32: CWISE(uint32_t); break;
  case DT_UINT64: CWISE(uint64_t); break;
  default: {   /* float16, bfloat16 */
    Tensor *a = tensor_new(DT_FLOAT32, 1, &n), *b = tensor_new(DT_FLOAT32, 1, &n), *o = tensor_new(DT_FLOAT32, 1, &n);
    ew_cast(a, val);
    ew_cast(b, gat);
    cwise_apply(id, o, a, b);
    ew_cast(out, o);
    tensor_release(a), tensor_release(b), tensor_release(o);
  }
  }
}

/* TF's kernel: checks the components, gathers the dense value at each entry's index (a dense dimension of 1
 * read at 0), raises on an index outside the sparse shape and, for Div, on a zero divisor; the values' order kept */
void k_sparse_cwise(OpCall *c) {
  Tensor *ind = c->in[0], *shp = c->in[2];
  tfs_i64 n = ind->shape[0];
  int r = (int)ind->shape[1];
  OpId id = c->op->id;
  if (c->in[1]->size != n)
    op_fail(c, ERR_INVALID_ARGUMENT, "The first dimension of values and indices should match. (%lld vs. %lld)",
            (long long)c->in[1]->size, (long long)n);
  if (shp->size != r) {
    StrBuf msg;
    sb_init(&msg);
    sb_printf(&msg, "Number of dimensions must match second dimension of indices. Got %lld dimensions, indices shape: ",
              (long long)shp->size);
    op_shape_text(&msg, ind->rank, ind->shape);
    /* errindex: Number of dimensions must match second dimension of indices. Got … dimensions, indices shape: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  }
  if (r == 0) op_fail(c, ERR_INVALID_ARGUMENT, "The shape argument requires at least one element.");
  for (int d = 0; d < r; d++)
    if (tensor_get_i(shp, d) < 0)
      op_fail(c, ERR_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)tensor_get_i(shp, d));
  Tensor *dense = tensor_contiguous(c->in[3]);
  int mark = rt_hold_val(val_obj(dense));
  check_broadcast(c, shp, dense);
  if (r > 5)
    op_fail(c, ERR_INVALID_ARGUMENT, "Only tensors with ranks between 1 and 5 are currently supported.  Tensor rank: %d", r);
  /* the dense element each entry reads: its sparse coordinate on each dense dimension, 0 on a broadcast one */
  tfs_i64 stride[TFS_MAX_RANK], st = 1;
  int off = r - dense->rank;
  for (int d = dense->rank - 1; d >= 0; d--) stride[d] = dense->shape[d] == 1 ? 0 : st, st *= dense->shape[d];
  size_t es = sparse_esize(dense->dtype);
  Tensor *gat = tensor_new(dense->dtype, 1, &n);
  rt_hold_val(val_obj(gat));
  const char *src = tensor_data(dense);
  char *dst = tensor_data(gat);
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 at = 0;
    for (int d = 0; d < r; d++) {
      tfs_i64 k = tensor_get_i(ind, i * r + d);
      if (k < 0 || k >= tensor_get_i(shp, d))
        op_fail(c, ERR_INVALID_ARGUMENT, "Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape");
      if (d >= off) at += k * stride[d - off];
    }
    memcpy(dst + (size_t)i * es, src + (size_t)at * es, es);
    if (id == OP_SPARSE_DENSE_DIV && tensor_get_f(gat, i) == 0) {
      StrBuf msg;   /* TF's text ends in a space */
      sb_init(&msg);
      sb_puts(&msg, "SparseDenseCwiseDiv cannot divide by zero,but input dense tensor contains zero ");
      /* errindex: SparseDenseCwiseDiv cannot divide by zero,but input dense tensor contains zero */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
    }
  }
  Tensor *val = tensor_contiguous(c->in[1]);
  rt_hold_val(val_obj(val));
  cwise_apply(id, c->out[0], val, gat);
  rt_unhold(mark);
  tensor_release(val);
  tensor_release(gat);
  tensor_release(dense);
}
