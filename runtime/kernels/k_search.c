/* k_search.c — Unique/UniqueWithCounts (first-occurrence order) and LowerBound/UpperBound (tf.searchsorted) over rows. */
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"

/* shape: y [unique count] (known only when run), idx like x, count like y; x must be 1-D. */
void meta_unique(OpCall *c) {
  const TMeta *x = &c->inm[0];
  if (x->rank >= 0 && x->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "unique expects a 1D vector.");
  int it = op_attr_dtype(c, 0, DT_INT32);
  if (it != DT_INT32 && it != DT_INT64) op_fail(c, ERR_TYPE, "out_idx must be int32 or int64, got %s", dtype_info[it].name);
  int n = c->op->id == OP_UNIQUE_WITH_COUNTS ? 3 : 2;
  op_reserve_outputs(c, n);
  tfs_i64 unknown = -1;
  meta_set(&c->outm[0], x->dtype, 1, &unknown);
  c->outm[1] = *x;
  c->outm[1].dtype = (DType)it;
  if (n == 3) meta_set(&c->outm[2], (DType)it, 1, &unknown);
}

static void put_index(Tensor *t, tfs_i64 i, tfs_i64 v) {
  if (t->dtype == DT_INT32) ((int32_t *)tensor_data(t))[i] = (int32_t)v;
  else ((int64_t *)tensor_data(t))[i] = v;
}

void k_unique(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]);
  tfs_i64 n = x->size;
  size_t es = (size_t)dtype_info[x->dtype].size;
  const char *xd = tensor_data(x);
  DType it = c->outm[1].dtype;
  tfs_i64 *first = malloc(sizeof *first * (size_t)(n ? n : 1)), *count = calloc((size_t)(n ? n : 1), sizeof *count);
  Tensor *idx = tensor_new(it, 1, &n);
  if (!first || !count) {
    free(first);
    free(count);
    tensor_release(x);
    tensor_release(idx);
    op_fail(c, ERR_MEMORY, "out of memory");
  }
  /* quadratic in the number of distinct values: vocabularies of a few thousand, as the programs that call it */
  tfs_i64 nu = 0;
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 k = 0;
    while (k < nu && memcmp(xd + (size_t)first[k] * es, xd + (size_t)i * es, es)) k++;
    if (k == nu) first[nu++] = i;
    count[k]++;
    put_index(idx, i, k);
  }
  Tensor *y = tensor_new(x->dtype, 1, &nu);
  for (tfs_i64 k = 0; k < nu; k++) memcpy((char *)tensor_data(y) + (size_t)k * es, xd + (size_t)first[k] * es, es);
  c->out[0] = y;
  c->out[1] = idx;
  if (c->nout == 3) {
    Tensor *cn = tensor_new(it, 1, &nu);
    for (tfs_i64 k = 0; k < nu; k++) put_index(cn, k, count[k]);
    c->out[2] = cn;
  }
  free(first);
  free(count);
  tensor_release(x);
}

/* shape: the values' shape; sorted_sequence [..., N] and values [..., M] share their leading dimensions. */
void meta_bound(OpCall *c) {
  const TMeta *s = &c->inm[0], *v = &c->inm[1];
  if (s->rank == 0 || v->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "sorted_sequence and values must be at least 1-D");
  if (s->rank > 0 && v->rank > 0 && s->rank != v->rank)
    op_fail(c, ERR_INVALID_ARGUMENT, "Leading dim_size of both tensors must match. sorted_inputs rank %d vs. values rank %d", s->rank, v->rank);
  for (int i = 0; s->rank > 0 && i < s->rank - 1; i++)
    if (s->shape[i] >= 0 && v->shape[i] >= 0 && s->shape[i] != v->shape[i])
      op_fail(c, ERR_INVALID_ARGUMENT, "Leading dim_size of both tensors must match.");
  int ot = op_attr_dtype(c, 0, DT_INT32);
  if (ot != DT_INT32 && ot != DT_INT64) op_fail(c, ERR_TYPE, "out_type must be int32 or int64, got %s", dtype_info[ot].name);
  c->outm[0] = *v;
  c->outm[0].dtype = (DType)ot;
}

static double elem(const Tensor *t, const char *d, tfs_i64 i) {
  switch (t->dtype) {
    case DT_FLOAT32: return ((const float *)d)[i];
    case DT_FLOAT64: return ((const double *)d)[i];
    case DT_INT32: return ((const int32_t *)d)[i];
    default: return (double)((const int64_t *)d)[i];
  }
}

void k_bound(OpCall *c) {
  Tensor *s = tensor_contiguous(c->in[0]), *v = tensor_contiguous(c->in[1]), *o = c->out[0];
  tfs_i64 n = s->shape[s->rank - 1], m = v->shape[v->rank - 1], rows = m ? v->size / m : 0;
  bool upper = c->op->id == OP_UPPER_BOUND;
  const char *sd = tensor_data(s), *vd = tensor_data(v);
  for (tfs_i64 r = 0; r < rows; r++)
    for (tfs_i64 j = 0; j < m; j++) {
      double x = elem(v, vd, r * m + j);
      tfs_i64 lo = 0, hi = n;
      while (lo < hi) {   /* first position whose element is >= x (lower) or > x (upper) */
        tfs_i64 mid = lo + (hi - lo) / 2;
        double e = elem(s, sd, r * n + mid);
        if (upper ? e <= x : e < x) lo = mid + 1;
        else hi = mid;
      }
      put_index(o, r * m + j, lo);
    }
  tensor_release(s);
  tensor_release(v);
}
