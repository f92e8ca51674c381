/* k_topk.c — TopKV2: the k largest entries of each last-axis row and their indices (stable: ties keep index order). */
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"

/* shape: values and indices [..., k]; k must be in [0, last dimension]. */
void meta_top_k(OpCall *c) {
  const TMeta *a = &c->inm[0];
  tfs_i64 k = op_attr_int(c, 0, 1);
  if (k < 0) op_fail(c, ERR_INVALID_ARGUMENT, "Need k >= 0, got %lld", (long long)k);
  if (a->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "input must be >= 1-D, got shape []");
  if (a->rank > 0 && a->shape[a->rank - 1] >= 0 && a->shape[a->rank - 1] < k)
    op_fail(c, ERR_INVALID_ARGUMENT, "input must have at least k columns. Had %lld, needed %lld", (long long)a->shape[a->rank - 1], (long long)k);
  int it = op_attr_dtype(c, 2, DT_INT32);
  if (it != DT_INT32 && it != DT_INT64) op_fail(c, ERR_TYPE, "index_type must be int32 or int64, got %s", dtype_info[it].name);
  op_reserve_outputs(c, 2);
  c->outm[0] = *a;
  if (a->rank > 0) c->outm[0].shape[a->rank - 1] = k;
  c->outm[1] = c->outm[0];
  c->outm[1].dtype = (DType)it;
}

typedef struct TopKRow { const char *base; DType dt; } TopKRow;
static __thread TopKRow topk_row;   /* the row qsort compares in (per thread: tf.data graph workers run kernels too) */

static double topk_at(tfs_i64 i) {
  switch (topk_row.dt) {
    case DT_FLOAT32: return ((const float *)topk_row.base)[i];
    case DT_FLOAT64: return ((const double *)topk_row.base)[i];
    case DT_INT32: return ((const int32_t *)topk_row.base)[i];
    default: return 0;
  }
}

/* larger first; NaN above everything (TF's TopK orders NaN first); equal values by index */
static int topk_cmp(const void *pa, const void *pb) {
  tfs_i64 ia = *(const tfs_i64 *)pa, ib = *(const tfs_i64 *)pb;
  if (topk_row.dt == DT_INT64) {
    int64_t a = ((const int64_t *)topk_row.base)[ia], b = ((const int64_t *)topk_row.base)[ib];
    if (a != b) return a > b ? -1 : 1;
  } else {
    double a = topk_at(ia), b = topk_at(ib);
    bool na = a != a, nb = b != b;
    if (na != nb) return na ? -1 : 1;
    if (!na && a != b) return a > b ? -1 : 1;
  }
  return ia < ib ? -1 : ia > ib;
}

void k_top_k(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]);
  Tensor *vals = c->out[0], *idx = c->out[1];
  tfs_i64 n = x->shape[x->rank - 1], k = vals->shape[vals->rank - 1], rows = n ? x->size / n : 0;
  size_t es = (size_t)dtype_info[x->dtype].size;
  tfs_i64 *order = malloc(sizeof *order * (size_t)(n ? n : 1));
  if (!order) {
    tensor_release(x);
    op_fail(c, ERR_MEMORY, "out of memory");
  }
  for (tfs_i64 r = 0; r < rows; r++) {
    topk_row.base = (const char *)tensor_data(x) + (size_t)(r * n) * es;
    topk_row.dt = x->dtype;
    for (tfs_i64 i = 0; i < n; i++) order[i] = i;
    qsort(order, (size_t)n, sizeof *order, topk_cmp);
    for (tfs_i64 j = 0; j < k; j++) {
      memcpy((char *)tensor_data(vals) + (size_t)(r * k + j) * es, topk_row.base + (size_t)order[j] * es, es);
      if (idx->dtype == DT_INT32) ((int32_t *)tensor_data(idx))[r * k + j] = (int32_t)order[j];
      else ((int64_t *)tensor_data(idx))[r * k + j] = order[j];
    }
  }
  free(order);
  tensor_release(x);
}

/* shape: the forward input's (x [..., n]): dy [..., k] added at the indices [..., k] of each row. */
void meta_top_k_grad(OpCall *c) {
  c->outm[0] = c->inm[0];
  c->outm[0].dtype = c->inm[2].dtype;
}

void k_top_k_grad(OpCall *c) {
  Tensor *idx = tensor_contiguous(c->in[1]), *dy = tensor_contiguous(c->in[2]), *o = c->out[0];
  tfs_i64 n = o->rank ? o->shape[o->rank - 1] : 1, k = dy->rank ? dy->shape[dy->rank - 1] : 1, rows = n ? o->size / n : 0;
  size_t es = (size_t)dtype_info[o->dtype].size;
  memset(tensor_data(o), 0, (size_t)o->size * es);
  for (tfs_i64 r = 0; r < rows; r++)
    for (tfs_i64 j = 0; j < k; j++) {
      tfs_i64 i = idx->dtype == DT_INT32 ? ((int32_t *)tensor_data(idx))[r * k + j] : ((int64_t *)tensor_data(idx))[r * k + j];
      if (o->dtype == DT_FLOAT32) ((float *)tensor_data(o))[r * n + i] += ((float *)tensor_data(dy))[r * k + j];
      else ((double *)tensor_data(o))[r * n + i] += ((double *)tensor_data(dy))[r * k + j];
    }
  tensor_release(idx);
  tensor_release(dy);
}
