/* k_sparse.c — kernels on a tf.SparseTensor's components (TF's SparseTensorDenseMatMul, SparseSegment*), linear in the nonzeros. */
#define _GNU_SOURCE   /* qsort_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_sparse.h"

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
  tfs_i64 s0 = sparse_known_i(c, 2, 0), s1 = sparse_known_i(c, 2, 1);
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
  if (c->inm[3].rank != TMETA_ABSENT) rows = sparse_known_i(c, 3, 0);
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
  if (g->rank >= 1) c->outm[0].shape[0] = sparse_known_i(c, 3, 0);
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

/* ---- SparseToDense(sparse_indices, output_shape, sparse_values, default_value) ---- */

/* TF's SparseTensor::IndicesValid: row i of ind [n, r] inside shape, after row i - 1, not equal to it.  Returns
 * 0 when all are, else 1 (out of bounds), 2 (out of order) or 3 (repeated) with the row's number and text. */
static int indices_valid(const Tensor *ind, const tfs_i64 *shape, int r, tfs_i64 *row, StrBuf *text) {
  tfs_i64 n = ind->rank == 2 ? ind->shape[0] : ind->size;
  for (tfs_i64 i = 0; i < n; i++) {
    int state = 0;
    bool decided = i == 0;
    for (int d = 0; d < r; d++) {
      tfs_i64 v = tensor_get_i(ind, i * r + d);
      if (v < 0 || v >= shape[d]) { state = 1; break; }
      if (!decided) {
        tfs_i64 p = tensor_get_i(ind, (i - 1) * r + d);
        if (v != p) decided = true, state = v < p ? 2 : 0;
      }
    }
    if (!state && !decided) state = 3;
    if (!state) continue;
    *row = i;
    for (int d = 0; d < r; d++) sb_printf(text, d ? ",%lld" : "%lld", (long long)tensor_get_i(ind, i * r + d));
    return state;
  }
  return 0;
}

/* shape: output_shape's values (their count when traced); values a scalar or one per index row */
void meta_sparse_to_dense(OpCall *c) {
  const TMeta *ind = &c->inm[0], *shp = &c->inm[1], *val = &c->inm[2], *dv = &c->inm[3];
  if (ind->rank > 2) op_fail(c, ERR_INVALID_ARGUMENT, "sparse_indices should be a scalar, vector, or matrix, got rank %d", ind->rank);
  if (shp->rank >= 0 && shp->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "output_shape must be rank 1, got rank %d", shp->rank);
  if (dv->rank > 0) op_fail(c, ERR_INVALID_ARGUMENT, "default_value should be a scalar.");
  if (val->rank > 1) op_fail(c, ERR_INVALID_ARGUMENT, "sparse_values should be a scalar or a vector, got rank %d", val->rank);
  int r = shp->rank == 1 ? (int)shp->shape[0] : -1;
  if (r > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "output_shape has more than %d dimensions", TFS_MAX_RANK);
  tfs_i64 shape[TFS_MAX_RANK];
  for (int d = 0; d < r; d++) shape[d] = sparse_known_i(c, 1, d);
  meta_set(&c->outm[0], val->dtype, r, shape);
}

void k_sparse_to_dense(OpCall *c) {
  Tensor *ind = c->in[0], *val = c->in[2], *dv = c->in[3], *o = c->out[0];
  int r = o->rank;
  tfs_i64 n = ind->rank == 0 ? 1 : ind->shape[0], cols = ind->rank == 2 ? ind->shape[1] : 1;
  if (ind->rank == 2 && cols != r)
    op_fail(c, ERR_INVALID_ARGUMENT, "sparse_indices is a matrix with %lld columns but output_shape has %d dimensions", (long long)cols, r);
  if (val->rank == 1 && val->shape[0] != n)
    op_fail(c, ERR_INVALID_ARGUMENT, "sparse_values has incorrect shape [%lld], should be [] or [%lld]", (long long)val->shape[0], (long long)n);
  for (tfs_i64 i = 0; i < n; i++)
    for (int d = 0; d < r; d++) {
      tfs_i64 v = tensor_get_i(ind, i * cols + d);
      if ((v < 0 || v >= o->shape[d]) && !op_attr_bool(c, 0, true)) {
        StrBuf s;
        sb_init(&s);
        op_shape_text(&s, r, o->shape);
        char shape[256];
        snprintf(shape, sizeof shape, "%s", s.len ? s.data : "");
        sb_free(&s);
        op_fail(c, ERR_INVALID_ARGUMENT, "Indices are not valid (out of bounds).  Shape: %s", shape);
      }
    }
  if (op_attr_bool(c, 0, true) && ind->rank == 2) {
    StrBuf s;
    sb_init(&s);
    tfs_i64 row = 0;
    int state = indices_valid(ind, o->shape, r, &row, &s);
    if (state) {
      char text[512], shape[256];
      snprintf(text, sizeof text, "%s", s.len ? s.data : "");
      sb_free(&s);
      sb_init(&s);
      op_shape_text(&s, r, o->shape);
      snprintf(shape, sizeof shape, "%s", s.len ? s.data : "");
      sb_free(&s);
      if (state == 1)
        op_fail(c, ERR_INVALID_ARGUMENT, "indices[%lld] = [%s] is out of bounds: need 0 <= index < %s", (long long)row, text, shape);
      if (state == 2)
        op_fail(c, ERR_INVALID_ARGUMENT, "indices[%lld] = [%s] is out of order. Many sparse ops require sorted indices.\n"
                "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n", (long long)row, text);
      op_fail(c, ERR_INVALID_ARGUMENT, "indices[%lld] = [%s] is repeated", (long long)row, text);
    }
    sb_free(&s);
  }
  size_t es = (size_t)dtype_info[o->dtype].size;
  char *od = tensor_data(o);
  Tensor *vc = tensor_contiguous(val);
  const char *vd = tensor_data(vc), *dd = tensor_data(dv);
  for (tfs_i64 i = 0; i < o->size; i++) memcpy(od + (size_t)i * es, dd, es);
  for (tfs_i64 i = 0; i < n; i++) {   /* repeated indices unchecked: the last one's value, as TF's ToDense */
    tfs_i64 off = 0;
    for (int d = 0; d < r; d++) off = off * o->shape[d] + tensor_get_i(ind, i * cols + d);
    memcpy(od + (size_t)off * es, vd + (vc->rank ? (size_t)i * es : 0), es);
  }
  tensor_release(vc);
  sparse_own_strings(o);
}

/* ---- SparseReorder(input_indices, input_values, input_shape): the entries in row-major order ---- */

typedef struct { const Tensor *ind; int r; } ReorderCtx;
static int reorder_cmp(const void *a, const void *b, void *ctx) {
  const ReorderCtx *x = ctx;
  tfs_i64 i = *(const tfs_i64 *)a, j = *(const tfs_i64 *)b;
  for (int d = 0; d < x->r; d++) {
    tfs_i64 u = tensor_get_i(x->ind, i * x->r + d), v = tensor_get_i(x->ind, j * x->r + d);
    if (u != v) return u < v ? -1 : 1;
  }
  return i < j ? -1 : i > j;   /* stable: repeated indices keep their order */
}

/* shape: the indices' and values' shapes */
void meta_sparse_reorder(OpCall *c) {
  if (c->inm[0].rank >= 0 && c->inm[0].rank != 2)
    op_fail(c, ERR_INVALID_ARGUMENT, "Input indices should be a matrix but received shape of rank %d", c->inm[0].rank);
  if (c->inm[1].rank >= 0 && c->inm[1].rank != 1)
    op_fail(c, ERR_INVALID_ARGUMENT, "Input values should be a vector but received shape of rank %d", c->inm[1].rank);
  op_reserve_outputs(c, 2);
  c->outm[0] = c->inm[0];
  c->outm[1] = c->inm[1];
}

void k_sparse_reorder(OpCall *c) {
  Tensor *ind = tensor_contiguous(c->in[0]), *val = tensor_contiguous(c->in[1]);
  tfs_i64 n = ind->shape[0];
  int r = (int)ind->shape[1];
  tfs_i64 *perm = malloc(sizeof *perm * (size_t)(n ? n : 1));
  if (!perm) {
    tensor_release(ind);
    tensor_release(val);
    op_fail(c, ERR_MEMORY, "out of memory");
  }
  for (tfs_i64 i = 0; i < n; i++) perm[i] = i;
  ReorderCtx ctx = {ind, r};
  qsort_r(perm, (size_t)n, sizeof *perm, reorder_cmp, &ctx);
  Tensor *oi = tensor_new(ind->dtype, 2, ind->shape), *ov = tensor_new(val->dtype, 1, val->shape);
  size_t ies = (size_t)dtype_info[ind->dtype].size * (size_t)r, ves = (size_t)dtype_info[val->dtype].size;
  for (tfs_i64 i = 0; i < n; i++) {
    memcpy((char *)tensor_data(oi) + (size_t)i * ies, (const char *)tensor_data(ind) + (size_t)perm[i] * ies, ies);
    memcpy((char *)tensor_data(ov) + (size_t)i * ves, (const char *)tensor_data(val) + (size_t)perm[i] * ves, ves);
  }
  sparse_own_strings(ov);
  free(perm);
  tensor_release(ind);
  tensor_release(val);
  c->out[0] = oi;
  c->out[1] = ov;
}

/* ---- SparseReduceSum/Max(input_indices, input_values, input_shape, reduction_axes, keep_dims) and their *Sparse
 * forms: the entries grouped by their kept coordinates (sorted as TF's Reorder: kept dims, then reduced ones), each
 * group reduced in that order; a dense result (0 where no entry falls) or a SparseTensor of the groups ---- */

typedef struct { const Tensor *ind; int r, nk; int order[TFS_MAX_RANK]; } ReduceCtx;   /* order: kept dims first */
static int reduce_cmp(const void *a, const void *b, void *ctx) {
  const ReduceCtx *x = ctx;
  tfs_i64 i = *(const tfs_i64 *)a, j = *(const tfs_i64 *)b;
  for (int d = 0; d < x->r; d++) {
    tfs_i64 u = tensor_get_i(x->ind, i * x->r + x->order[d]), v = tensor_get_i(x->ind, j * x->r + x->order[d]);
    if (u != v) return u < v ? -1 : 1;
  }
  return i < j ? -1 : i > j;
}

static bool same_group(const ReduceCtx *x, tfs_i64 i, tfs_i64 j) {
  for (int d = 0; d < x->nk; d++)
    if (tensor_get_i(x->ind, i * x->r + x->order[d]) != tensor_get_i(x->ind, j * x->r + x->order[d])) return false;
  return true;
}

static bool sparse_out(const OpCall *c) { return c->op->id == OP_SPARSE_REDUCE_SUM_SPARSE || c->op->id == OP_SPARSE_REDUCE_MAX_SPARSE; }
static bool reduce_max(const OpCall *c) { return c->op->id == OP_SPARSE_REDUCE_MAX || c->op->id == OP_SPARSE_REDUCE_MAX_SPARSE; }

/* the reduced axes (eager axes only): red[d] for d < r; false when they are not known yet */
static bool reduce_axes(const OpCall *c, int r, bool *red) {
  const Tensor *ax = c->in ? c->in[3] : NULL;
  if (!ax || ax->sym || r < 0) return false;
  if (ax->rank > 1) op_fail(c, ERR_INVALID_ARGUMENT, "Expected reduction_axes to be a scalar or a vector; got shape: [%lld,...]", (long long)ax->shape[0]);
  for (int d = 0; d < r; d++) red[d] = false;
  for (tfs_i64 i = 0; i < ax->size; i++) {
    tfs_i64 a = tensor_get_i(ax, i);
    if (a < -r || a >= r) op_fail(c, ERR_INVALID_ARGUMENT, "Invalid reduction dimension %lld, for input with %d dimensions.", (long long)a, r);
    red[a < 0 ? a + r : a] = true;
  }
  return true;
}

/* shape: the input shape without the reduced axes (1 there with keep_dims); *Sparse: indices [N, rank], values [N], shape [rank] */
void meta_sparse_reduce(OpCall *c) {
  const TMeta *shp = &c->inm[2];
  if (shp->rank >= 0 && shp->rank != 1) op_fail(c, ERR_INVALID_ARGUMENT, "Expected input_shape to be a vector; got rank %d", shp->rank);
  int r = shp->rank == 1 ? (int)shp->shape[0] : -1;
  bool keep = op_attr_bool(c, 0, false), red[TFS_MAX_RANK];
  int orank = -1;
  tfs_i64 oshape[TFS_MAX_RANK];
  if (r > TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "input_shape has more than %d dimensions", TFS_MAX_RANK);
  if (reduce_axes(c, r, red)) {
    orank = 0;
    for (int d = 0; d < r; d++)
      if (!red[d]) oshape[orank++] = sparse_known_i(c, 2, d);
      else if (keep) oshape[orank++] = 1;
  } else if (keep) {
    orank = r;
    for (int d = 0; d < r; d++) oshape[d] = -1;
  }
  if (!sparse_out(c)) {
    meta_set(&c->outm[0], c->inm[1].dtype, orank, oshape);
    return;
  }
  op_reserve_outputs(c, 3);
  tfs_i64 s[2] = {-1, orank};
  meta_set(&c->outm[0], DT_INT64, 2, s);
  meta_set(&c->outm[1], c->inm[1].dtype, 1, s);
  meta_set(&c->outm[2], DT_INT64, 1, &s[1]);
}

#define RED_GROUPS(T)                                                                                   \
  do {                                                                                                  \
    const T *v = (const T *)tensor_data(val);                                                           \
    for (tfs_i64 s = 0; s < n;) {                                                                       \
      tfs_i64 e = s + 1;                                                                                \
      while (e < n && same_group(&ctx, perm[s], perm[e])) e++;                                          \
      T acc = v[perm[s]];                                                                               \
      for (tfs_i64 j = s + 1; j < e; j++) acc = mx ? (v[perm[j]] > acc ? v[perm[j]] : acc) : acc + v[perm[j]]; \
      tfs_i64 off = 0;                                                                                  \
      for (int d = 0; d < ctx.nk; d++) off = off * kshape[d] + tensor_get_i(ind, perm[s] * r + ctx.order[d]); \
      if (dense) ((T *)tensor_data(dense))[off] = acc;                                                  \
      else {                                                                                            \
        ((T *)tensor_data(ov))[ng] = acc;                                                               \
        int64_t *oi = (int64_t *)tensor_data(oind) + ng * orank;                                        \
        for (int d = 0, k = 0; d < r; d++)                                                              \
          if (!red[d]) oi[keep ? d : k++] = tensor_get_i(ind, perm[s] * r + d);                         \
      }                                                                                                 \
      ng++;                                                                                             \
      s = e;                                                                                            \
    }                                                                                                   \
  } while (0)

void k_sparse_reduce(OpCall *c) {
  Tensor *ind = tensor_contiguous(c->in[0]), *val = tensor_contiguous(c->in[1]), *shp = c->in[2];
  int r = (int)shp->size;
  bool red[TFS_MAX_RANK], keep = op_attr_bool(c, 0, false), mx = reduce_max(c);
  reduce_axes(c, r, red);
  tfs_i64 n = val->size, kshape[TFS_MAX_RANK], *perm = malloc(sizeof *perm * (size_t)(n ? n : 1));
  ReduceCtx ctx = {ind, r, 0, {0}};
  for (int d = 0; d < r; d++)
    if (!red[d]) kshape[ctx.nk] = tensor_get_i(shp, d), ctx.order[ctx.nk++] = d;
  for (int d = 0, k = ctx.nk; d < r; d++)
    if (red[d]) ctx.order[k++] = d;
  if (!perm) {
    tensor_release(ind);
    tensor_release(val);
    op_fail(c, ERR_MEMORY, "out of memory");
  }
  for (tfs_i64 i = 0; i < n; i++) perm[i] = i;
  qsort_r(perm, (size_t)n, sizeof *perm, reduce_cmp, &ctx);
  int orank = keep ? r : ctx.nk;
  Tensor *dense = NULL, *oind = NULL, *ov = NULL;
  if (!sparse_out(c)) {
    dense = c->out[0];
    memset(tensor_data(dense), 0, (size_t)(dense->size * dtype_info[dense->dtype].size));
  } else {
    tfs_i64 groups = 0;
    for (tfs_i64 i = 0; i < n; i++) groups += i == 0 || !same_group(&ctx, perm[i - 1], perm[i]);
    tfs_i64 is[2] = {groups, orank};
    oind = tensor_new(DT_INT64, 2, is);
    ov = tensor_new(val->dtype, 1, is);
    memset(tensor_data(oind), 0, (size_t)(groups * orank) * sizeof(int64_t));
  }
  tfs_i64 ng = 0;
  switch (val->dtype) {
    case DT_FLOAT32: RED_GROUPS(float); break;
    case DT_FLOAT64: RED_GROUPS(double); break;
    case DT_INT32: RED_GROUPS(int32_t); break;
    default: RED_GROUPS(int64_t); break;
  }
  free(perm);
  tensor_release(ind);
  tensor_release(val);
  if (dense) return;
  tfs_i64 ns = orank;
  Tensor *os = tensor_new(DT_INT64, 1, &ns);
  for (int d = 0, k = 0; d < r; d++)
    if (!red[d] || keep) ((int64_t *)tensor_data(os))[k++] = red[d] ? 1 : tensor_get_i(shp, d);
  c->out[0] = oind;
  c->out[1] = ov;
  c->out[2] = os;
}
