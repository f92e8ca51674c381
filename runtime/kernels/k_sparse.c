/* k_sparse.c — kernels on a tf.SparseTensor's components (TF's SparseTensorDenseMatMul, SparseSegment*), linear in the nonzeros. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"

/* element i of an eager integer tensor given as input k, or -1 when it is absent or traced */
static tfs_i64 known_i(const OpCall *c, int k, tfs_i64 i) {
  const Tensor *t = c->in ? c->in[k] : NULL;
  return t && !t->sym && i < t->size ? tensor_get_i(t, i) : -1;
}

/* ---- SparseTensorDenseMatMul(a_indices [nnz, 2], a_values [nnz], a_shape [2], b) -> op(A) op(B) ---- */

/* shape: [rows of op(A), columns of op(B)]; b must be a matrix */
void meta_sparse_matmul(OpCall *c) {
  const TMeta *ind = &c->inm[0], *val = &c->inm[1], *shp = &c->inm[2], *b = &c->inm[3];
  bool adj_a = op_attr_bool(c, 0, false), adj_b = op_attr_bool(c, 1, false);
  if (b->rank >= 0 && b->rank != 2) op_fail(c, ERR_INVALID_ARGUMENT, "Tensor 'b' is not a matrix");
  if (shp->rank >= 0 && shp->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "Tensor 'a_shape' is not a vector");
  if (shp->rank == 1 && shp->shape[0] >= 0 && shp->shape[0] != 2)
    op_fail(c, ERR_INVALID_ARGUMENT, "Tensor 'a_shape' must have 2 elements");
  if (val->rank >= 0 && val->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "Tensor 'a_values' is not a vector");
  if (ind->rank >= 0 && ind->rank != 2) op_fail(c, ERR_INVALID_ARGUMENT, "Tensor 'a_indices' is not a matrix");
  if (ind->rank == 2 && val->rank == 1 && ind->shape[0] >= 0 && val->shape[0] >= 0 && ind->shape[0] != val->shape[0])
    op_fail(c, ERR_INVALID_ARGUMENT, "Number of rows of a_indices does not match number of entries in a_values");
  if (ind->rank == 2 && ind->shape[1] >= 0 && ind->shape[1] != 2)
    op_fail(c, ERR_INVALID_ARGUMENT, "Number of columns of a_indices does not match number of entries in a_shape");
  tfs_i64 s0 = known_i(c, 2, 0), s1 = known_i(c, 2, 1);
  tfs_i64 b0 = b->rank == 2 ? b->shape[0] : -1, b1 = b->rank == 2 ? b->shape[1] : -1;
  tfs_i64 inner_l = adj_a ? s0 : s1, inner_r = adj_b ? b1 : b0;
  if (inner_l >= 0 && inner_r >= 0 && inner_l != inner_r)
    op_fail(c, ERR_INVALID_ARGUMENT,
            "Cannot multiply A and B because inner dimension does not match: %lld vs. %lld.  Did you forget a transpose?  "
            "Dimensions of A: [%lld, %lld).  Dimensions of B: [%lld,%lld]", (long long)inner_l, (long long)inner_r,
            (long long)s0, (long long)s1, (long long)b0, (long long)b1);
  tfs_i64 shape[2] = {adj_a ? s1 : s0, adj_b ? b0 : b1};
  meta_set(&c->outm[0], val->dtype, 2, shape);
}

/* out[m, :] += a * op(B)[k, :] for each nonzero (m, k) of op(A), in the nonzeros' order as TF's CPU kernel */
#define SPMM_LOOP(T)                                                                          \
  do {                                                                                        \
    const T *bv = (const T *)tensor_data(b), *av = (const T *)tensor_data(val);               \
    T *ov = (T *)tensor_data(o);                                                              \
    for (tfs_i64 i = 0; i < nnz; i++) {                                                       \
      tfs_i64 m = tensor_get_i(ind, 2 * i + (adj_a ? 1 : 0)), k = tensor_get_i(ind, 2 * i + (adj_a ? 0 : 1)); \
      if (k < 0 || k >= inner) { bad_k = k, bad_i = i; break; }                               \
      if (m < 0 || m >= rows) { bad_m = m, bad_i = i; break; }                                \
      T a = av[i];                                                                            \
      T *orow = ov + m * cols;                                                                \
      if (adj_b) for (tfs_i64 n = 0; n < cols; n++) orow[n] += a * bv[n * inner + k];         \
      else for (tfs_i64 n = 0; n < cols; n++) orow[n] += a * bv[k * cols + n];                \
    }                                                                                         \
  } while (0)

void k_sparse_matmul(OpCall *c) {
  Tensor *ind = tensor_contiguous(c->in[0]), *val = tensor_contiguous(c->in[1]), *b = tensor_contiguous(c->in[3]);
  Tensor *o = c->out[0];
  bool adj_a = op_attr_bool(c, 0, false), adj_b = op_attr_bool(c, 1, false);
  tfs_i64 nnz = val->size, rows = o->shape[0], cols = o->shape[1], inner = adj_b ? b->shape[1] : b->shape[0];
  tfs_i64 bad_k = -1, bad_m = -1, bad_i = -1;
  memset(tensor_data(o), 0, (size_t)(o->size * dtype_info[o->dtype].size));
  if (o->size > 0) switch (o->dtype) {
    case DT_FLOAT32: SPMM_LOOP(float); break;
    case DT_FLOAT64: SPMM_LOOP(double); break;
    case DT_INT32: SPMM_LOOP(int32_t); break;
    default: SPMM_LOOP(int64_t); break;
  }
  tensor_release(ind);
  tensor_release(val);
  tensor_release(b);
  if (bad_i >= 0 && bad_m < 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "k (%lld) from index[%lld,%d] out of bounds (>=%lld)", (long long)bad_k,
            (long long)bad_i, adj_a ? 0 : 1, (long long)inner);
  if (bad_i >= 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "m (%lld) from index[%lld,%d] out of bounds (>=%lld)", (long long)bad_m,
            (long long)bad_i, adj_a ? 1 : 0, (long long)rows);
}

/* ---- SparseSegmentSum/Mean/SqrtN(data, indices, segment_ids[, num_segments]) ----
 * out[s] = reduce over j with segment_ids[j] == s of data[indices[j]]; segment ids sorted, an absent segment 0. */

static void segment_shape_checks(const OpCall *c, const TMeta *ind, const TMeta *seg) {
  if (ind->rank >= 0 && ind->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "indices should be a vector.");
  if (seg->rank >= 0 && seg->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "segment_ids should be a vector.");
  if (ind->rank == 1 && seg->rank == 1 && ind->shape[0] >= 0 && seg->shape[0] >= 0 && ind->shape[0] != seg->shape[0])
    op_fail(c, ERR_INVALID_ARGUMENT, "segment_ids and indices should have same size.");
}

/* shape: data's with dimension 0 the number of segments (num_segments, else the last segment id + 1) */
void meta_sparse_segment(OpCall *c) {
  const TMeta *x = &c->inm[0];
  segment_shape_checks(c, &c->inm[1], &c->inm[2]);
  if (x->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "Shape must be at least rank 1 but is rank 0");
  c->outm[0] = *x;
  if (x->rank < 1) return;
  tfs_i64 rows = -1;
  if (c->inm[3].rank != TMETA_ABSENT) rows = known_i(c, 3, 0);
  else if (c->in && c->in[2] && !c->in[2]->sym) rows = c->in[2]->size ? tensor_get_i(c->in[2], c->in[2]->size - 1) + 1 : 0;
  c->outm[0].shape[0] = rows;
}

/* the per-segment divisor of a mean (count) or sqrt_n (sqrt(count)) reduction */
static double seg_scale(OpId id, tfs_i64 count) {
  if (count == 0) return 1;
  if (id == OP_SPARSE_SEGMENT_MEAN || id == OP_SPARSE_SEGMENT_MEAN_GRAD) return (double)count;
  if (id == OP_SPARSE_SEGMENT_SQRTN || id == OP_SPARSE_SEGMENT_SQRTN_GRAD) return sqrt((double)count);
  return 1;
}

#define SEG_ROW(T)                                                                     \
  do {                                                                                 \
    const T *xv = (const T *)tensor_data(x);                                           \
    T *ov = (T *)tensor_data(o) + s * row;                                             \
    for (tfs_i64 j = start; j < end; j++) {                                            \
      const T *xr = xv + tensor_get_i(ind, j) * row;                                   \
      for (tfs_i64 e = 0; e < row; e++) ov[e] += xr[e];                                \
    }                                                                                  \
    if (scale != 1 && end - start < 10) { /* TF's: times 1 / scale below ten rows, over it after */ \
      T inv = (T)1 / (T)scale;                                                         \
      for (tfs_i64 e = 0; e < row; e++) ov[e] *= inv;                                  \
    } else if (scale != 1) for (tfs_i64 e = 0; e < row; e++) ov[e] /= (T)scale;        \
  } while (0)

void k_sparse_segment(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]), *ind = c->in[1], *seg = c->in[2], *o = c->out[0];
  tfs_i64 n = ind->size, nrows = o->shape[0], xrows = x->rank ? x->shape[0] : 0;
  tfs_i64 row = 1;
  for (int d = 1; d < x->rank; d++) row *= x->shape[d];
  memset(tensor_data(o), 0, (size_t)(o->size * dtype_info[o->dtype].size));
  const char *err = NULL;
  tfs_i64 e1 = 0, e2 = 0, e3 = 0;
  if (c->in[3] && n > 0 && tensor_get_i(seg, n - 1) + 1 > nrows) err = "ids";
  for (tfs_i64 start = 0; !err && start < n;) {
    tfs_i64 s = tensor_get_i(seg, start), end = start + 1;
    while (end < n && tensor_get_i(seg, end) == s) end++;
    if (end < n && tensor_get_i(seg, end) < s) { err = "order"; break; }
    if (s < 0 || s >= nrows) { err = "range", e1 = s; break; }
    for (tfs_i64 j = start; j < end; j++) {
      tfs_i64 k = tensor_get_i(ind, j);
      if (k < 0 || k >= xrows) { err = "index", e1 = j, e2 = k, e3 = xrows; break; }
    }
    if (err) break;
    double scale = seg_scale(c->op->id, end - start);
    switch (o->dtype) {
      case DT_FLOAT32: SEG_ROW(float); break;
      case DT_FLOAT64: SEG_ROW(double); break;
      case DT_INT32: SEG_ROW(int32_t); break;
      default: SEG_ROW(int64_t); break;
    }
    start = end;
  }
  tensor_release(x);
  if (!err) return;
  if (!strcmp(err, "ids")) op_fail(c, ERR_INVALID_ARGUMENT, "segment ids must be < num_segments");
  if (!strcmp(err, "order")) op_fail(c, ERR_INVALID_ARGUMENT, "segment ids are not increasing");
  if (!strcmp(err, "range"))
    op_fail(c, ERR_INVALID_ARGUMENT, "Segment id %lld out of range [0, %lld), possibly because 'segment_ids' input is not sorted.",
            (long long)e1, (long long)nrows);
  op_fail(c, ERR_INVALID_ARGUMENT, "Bad: indices[%lld] == %lld out of range [0, %lld)", (long long)e1, (long long)e2, (long long)e3);
}

/* ---- SparseSegmentSumGrad/MeanGrad/SqrtNGrad(grad, indices, segment_ids, output_dim0) ----
 * out[indices[j]] += grad[segment_ids[j]] / scale(segment): the forward reduction's rows scattered back. */

/* shape: grad's with dimension 0 output_dim0 */
void meta_sparse_segment_grad(OpCall *c) {
  const TMeta *g = &c->inm[0];
  segment_shape_checks(c, &c->inm[1], &c->inm[2]);
  if (c->inm[3].rank > 0) op_fail(c, ERR_INVALID_ARGUMENT, "output_dim0 should be a scalar.");
  c->outm[0] = *g;
  if (g->rank >= 1) c->outm[0].shape[0] = known_i(c, 3, 0);
}

#define SEG_GRAD(T)                                                                    \
  do {                                                                                 \
    const T *gv = (const T *)tensor_data(g);                                           \
    T *ov = (T *)tensor_data(o);                                                       \
    for (tfs_i64 j = 0; j < n; j++) {                                                  \
      tfs_i64 s = tensor_get_i(seg, j), k = tensor_get_i(ind, j);                      \
      T sc = (T)(1.0 / seg_scale(c->op->id, count[s]));                                \
      for (tfs_i64 e = 0; e < row; e++) ov[k * row + e] += gv[s * row + e] * sc;       \
    }                                                                                  \
  } while (0)

void k_sparse_segment_grad(OpCall *c) {
  Tensor *g = tensor_contiguous(c->in[0]), *ind = c->in[1], *seg = c->in[2], *o = c->out[0];
  tfs_i64 n = ind->size, m = o->rank ? o->shape[0] : 0, nseg = g->rank ? g->shape[0] : 0;
  tfs_i64 row = 1;
  for (int d = 1; d < g->rank; d++) row *= g->shape[d];
  memset(tensor_data(o), 0, (size_t)(o->size * dtype_info[o->dtype].size));
  if (n == 0 || m == 0) {
    tensor_release(g);
    return;
  }
  tfs_i64 *count = calloc((size_t)(nseg ? nseg : 1), sizeof *count);
  if (!count) {
    tensor_release(g);
    op_fail(c, ERR_MEMORY, "out of memory");
  }
  tfs_i64 bad_s = 0, bad_k = 0;
  bool too_many = tensor_get_i(seg, n - 1) + 1 > nseg, bs = false, bk = false;
  for (tfs_i64 j = 0; !too_many && j < n; j++) {   /* TF's order: every segment id first, then each index */
    tfs_i64 s = tensor_get_i(seg, j);
    if (s < 0 || s >= nseg) { bs = true, bad_s = s; break; }
    count[s]++;
  }
  for (tfs_i64 j = 0; !too_many && !bs && j < n; j++) {
    tfs_i64 k = tensor_get_i(ind, j);
    if (k < 0 || k >= m) { bk = true, bad_k = k; break; }
  }
  if (!too_many && !bs && !bk) switch (o->dtype) {
    case DT_FLOAT32: SEG_GRAD(float); break;
    case DT_FLOAT64: SEG_GRAD(double); break;
    case DT_INT32: SEG_GRAD(int32_t); break;
    default: SEG_GRAD(int64_t); break;
  }
  free(count);
  tensor_release(g);
  if (too_many) op_fail(c, ERR_INVALID_ARGUMENT, "Invalid number of segments");
  if (bs)
    op_fail(c, ERR_INVALID_ARGUMENT, "Segment id %lld out of range [0, %lld).", (long long)bad_s, (long long)nseg);
  if (bk) op_fail(c, ERR_INVALID_ARGUMENT, "Index %lld out of range [0, %lld).", (long long)bad_k, (long long)m);
}
