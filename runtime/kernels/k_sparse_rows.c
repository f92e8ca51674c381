/* k_sparse_rows.c — a SparseTensor's entries taken row by row: TF's SparseSoftmax, SparseFillEmptyRows (+ its Grad op). */
#define _GNU_SOURCE   /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_sparse.h"

static bool rank_not(const TMeta *m, int r) { return m->rank >= 0 && m->rank != r; }

/* ---- SparseSoftmax(sp_indices, sp_values, sp_shape) -> values ---- */

/* shape: the values' */
void meta_sparse_softmax(OpCall *c) {
  const TMeta *m = c->inm;
  StrBuf msg;
  sb_init(&msg);
  if (rank_not(&m[0], 2)) {
    sb_puts(&msg, "Input sp_indices should be a matrix but received shape: ");
    op_shape_text(&msg, m[0].rank, m[0].shape);
  } else if (rank_not(&m[1], 1) || rank_not(&m[2], 1)) {
    sb_puts(&msg, "Inputs sp_values and sp_shape should be vectors but received shapes: ");
    op_shape_text(&msg, m[1].rank, m[1].shape);
    sb_puts(&msg, " and ");
    op_shape_text(&msg, m[2].rank, m[2].shape);
  }
  /* errindex: Input sp_indices should be a matrix but received shape: … */
  /* errindex: Inputs sp_values and sp_shape should be vectors but received shapes: … and … */
  if (msg.len) op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  sb_free(&msg);
  c->outm[0] = m[1];
}

typedef struct { const Tensor *ind; int r; } RowCtx;
static int row_cmp(const void *a, const void *b, void *ctx) {
  const RowCtx *x = ctx;
  tfs_i64 i = *(const tfs_i64 *)a, j = *(const tfs_i64 *)b;
  int s = sparse_row_cmp(x->ind, i, x->ind, j, x->r);
  return s ? s : (i < j ? -1 : i > j);
}

/* whether entries i and j of ind [n, r] share their first r - 1 coordinates (one softmax row) */
static bool same_row(const Tensor *ind, tfs_i64 i, tfs_i64 j, int r) {
  for (int d = 0; d < r - 1; d++)
    if (tensor_get_i(ind, i * r + d) != tensor_get_i(ind, j * r + d)) return false;
  return true;
}

#define SOFTMAX_GROUPS(T, EXP)                                                        \
  do {                                                                                \
    const T *v = tensor_data(val);                                                    \
    T *o = tensor_data(c->out[0]);                                                    \
    for (tfs_i64 s = 0; s < n;) {                                                     \
      tfs_i64 e = s + 1;                                                              \
      while (e < n && same_row(ind, perm[s], perm[e], r)) e++;           \
      T mx = v[perm[s]], sum = 0;                                                     \
      for (tfs_i64 k = s + 1; k < e; k++) mx = v[perm[k]] > mx ? v[perm[k]] : mx;     \
      for (tfs_i64 k = s; k < e; k++) sum += o[k] = EXP(v[perm[k]] - mx);             \
      T inv = (T)1 / sum;                                                             \
      for (tfs_i64 k = s; k < e; k++) o[k] *= inv;                                    \
      s = e;                                                                          \
    }                                                                                 \
  } while (0)

/* TF's kernel: the entries sorted row-major, each group sharing all but the last coordinate shifted by its max,
 * exponentiated and scaled by 1 / their sum; the result in that sorted order */
void k_sparse_softmax(OpCall *c) {
  Tensor *ind = c->in[0], *shp = c->in[2];
  tfs_i64 n = ind->shape[0];
  int r = (int)ind->shape[1];
  if (shp->size < 2) {
    StrBuf msg;
    sb_init(&msg);
    sb_puts(&msg, "Input should have rank >= 2, but received shape: ");
    sparse_summarize(&msg, shp);
    /* errindex: Input should have rank >= 2, but received shape: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  }
  if (c->in[1]->size != n)
    op_fail(c, ERR_INVALID_ARGUMENT, "Number of elements in indices (%lld) and values (%lld) do not match", (long long)n, (long long)c->in[1]->size);
  if (shp->size != r) op_fail(c, ERR_INVALID_ARGUMENT, "Index rank (%d) and shape rank (%lld) do not match", r, (long long)shp->size);
  tfs_i64 *perm = malloc(sizeof *perm * (size_t)(n + 1));
  if (!perm) op_fail(c, ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < n; i++) perm[i] = i;
  RowCtx ctx = {ind, r};
  qsort_r(perm, (size_t)n, sizeof *perm, row_cmp, &ctx);
  Tensor *val = tensor_contiguous(c->in[1]);
  if (val->dtype == DT_FLOAT32) SOFTMAX_GROUPS(float, expf);
  else SOFTMAX_GROUPS(double, exp);
  tensor_release(val);
  free(perm);
}

/* ---- SparseFillEmptyRows(indices, values, dense_shape, default_value)
 *        -> (output_indices, output_values, empty_row_indicator, reverse_index_map) ---- */

/* shape: indices [?, rank], values [?], one flag per row of dense_shape, one output position per input entry */
void meta_sparse_fill_empty_rows(OpCall *c) {
  const TMeta *m = c->inm;
  StrBuf msg;
  sb_init(&msg);
  if (rank_not(&m[2], 1)) sb_puts(&msg, "dense_shape must be a vector, saw: "), op_shape_text(&msg, m[2].rank, m[2].shape);
  else if (rank_not(&m[0], 2)) sb_puts(&msg, "indices must be a matrix, saw: "), op_shape_text(&msg, m[0].rank, m[0].shape);
  else if (rank_not(&m[1], 1)) sb_puts(&msg, "values must be a vector, saw: "), op_shape_text(&msg, m[1].rank, m[1].shape);
  else if (m[0].rank == 2 && m[1].rank == 1 && m[0].shape[0] >= 0 && m[1].shape[0] >= 0 && m[0].shape[0] != m[1].shape[0])
    sb_printf(&msg, "The length of `values` (%lld) must match the first dimension of `indices` (%lld).", (long long)m[1].shape[0], (long long)m[0].shape[0]);
  else if (rank_not(&m[3], 0)) sb_puts(&msg, "default_value must be a scalar, saw: "), op_shape_text(&msg, m[3].rank, m[3].shape);
  else if (m[2].rank == 1 && m[2].shape[0] == 0) sb_puts(&msg, "Dense shape cannot be empty.");
  /* errindex: dense_shape must be a vector, saw: … */
  /* errindex: indices must be a matrix, saw: … */
  /* errindex: values must be a vector, saw: … */
  /* errindex: The length of `values` (…) must match the first dimension of `indices` (…). */
  /* errindex: default_value must be a scalar, saw: … */
  /* errindex: Dense shape cannot be empty. */
  if (msg.len) op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  sb_free(&msg);
  tfs_i64 r = m[0].rank == 2 ? m[0].shape[1] : -1, s[2] = {-1, r}, rows = sparse_known_i(c, 2, 0);
  tfs_i64 n = m[0].rank == 2 ? m[0].shape[0] : -1;
  op_reserve_outputs(c, 4);
  meta_set(&c->outm[0], DT_INT64, 2, s);
  meta_set(&c->outm[1], m[1].dtype, 1, s);
  meta_set(&c->outm[2], DT_BOOL, 1, &rows);
  meta_set(&c->outm[3], DT_INT64, 1, &n);
}

/* TF's kernel: entries grouped by row (a row's entries keep their input order), an entry [row, 0, ...] holding
 * default_value in each empty row; reverse_index_map[i]: where input entry i went */
void k_sparse_fill_empty_rows(OpCall *c) {
  Tensor *ind = c->in[0], *shp = c->in[2];
  tfs_i64 n = ind->shape[0], rows = tensor_get_i(shp, 0);
  int r = (int)ind->shape[1];
  if (rows == 0 && n) op_fail(c, ERR_INVALID_ARGUMENT, "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = %lld", (long long)n);
  if (rows < 0) op_fail(c, ERR_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)rows);
  tfs_i64 *off = calloc((size_t)(2 * rows + 1), sizeof *off), *filled = off + rows;
  if (!off) op_fail(c, ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(off);
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 row = tensor_get_i(ind, i * r);
    if (row < 0 || row >= rows) op_fail(c, ERR_INVALID_ARGUMENT, "indices(%lld, 0) is invalid: %lld >= %lld", (long long)i, (long long)row, (long long)rows);
    off[row]++;
  }
  Tensor *empty = tensor_new(DT_BOOL, 1, &rows), *rev = tensor_new(DT_INT64, 1, &n);
  bool *ed = tensor_data(empty);
  for (tfs_i64 row = 0; row < rows; row++) {   /* off[row]: where row + 1 starts */
    ed[row] = off[row] == 0;
    off[row] = (off[row] ? off[row] : 1) + (row ? off[row - 1] : 0);
  }
  tfs_i64 full = rows ? off[rows - 1] : 0, is[2] = {full, r};
  Tensor *val = tensor_contiguous(c->in[1]), *dv = tensor_contiguous(c->in[3]);
  Tensor *oi = tensor_new(DT_INT64, 2, is), *ov = tensor_new(val->dtype, 1, is);
  size_t es = sparse_esize(val->dtype);
  int64_t *od = tensor_data(oi), *rd = tensor_data(rev);
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 row = tensor_get_i(ind, i * r), at = (row ? off[row - 1] : 0) + filled[row]++;
    for (int d = 0; d < r; d++) od[at * r + d] = tensor_get_i(ind, i * r + d);
    memcpy((char *)tensor_data(ov) + (size_t)at * es, (const char *)tensor_data(val) + (size_t)i * es, es);
    rd[i] = at;
  }
  for (tfs_i64 row = 0; row < rows; row++) {
    if (filled[row]) continue;
    tfs_i64 at = row ? off[row - 1] : 0;
    od[at * r] = row;
    for (int d = 1; d < r; d++) od[at * r + d] = 0;
    memcpy((char *)tensor_data(ov) + (size_t)at * es, tensor_data(dv), es);
  }
  sparse_own_strings(ov);
  tensor_release(val);
  tensor_release(dv);
  rt_unhold(mark);
  free(off);
  c->out[0] = oi;
  c->out[1] = ov;
  c->out[2] = empty;
  c->out[3] = rev;
}

/* ---- SparseFillEmptyRowsGrad(reverse_index_map, grad_values) -> (d_values, d_default_value) ---- */

/* shape: one gradient per input entry, a scalar */
void meta_sparse_fill_empty_rows_grad(OpCall *c) {
  const TMeta *m = c->inm;
  for (int k = 0; k < 2; k++) {
    if (!rank_not(&m[k], 1)) continue;
    StrBuf msg;
    sb_init(&msg);
    sb_puts(&msg, k ? "grad_values must be a vector, saw: " : "reverse_index_map must be a vector, saw: ");
    op_shape_text(&msg, m[k].rank, m[k].shape);
    /* errindex: reverse_index_map must be a vector, saw: … */
    /* errindex: grad_values must be a vector, saw: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  }
  op_reserve_outputs(c, 2);
  meta_set(&c->outm[0], m[1].dtype, 1, m[0].rank == 1 ? m[0].shape : (tfs_i64[]){-1});
  meta_set(&c->outm[1], m[1].dtype, 0, NULL);
}

#define FILL_GRAD(T)                                                   \
  do {                                                                 \
    const T *g = tensor_data(gv);                                      \
    T *dvals = tensor_data(c->out[0]), acc = 0;                        \
    for (tfs_i64 i = 0; i < n; i++) dvals[i] = g[tensor_get_i(rev, i)]; \
    for (tfs_i64 j = 0; j < full; j++)                                 \
      if (!seen[j]) acc += g[j];                                       \
    *(T *)tensor_data(c->out[1]) = acc;                                \
  } while (0)

/* d_values[i] = grad_values[reverse_index_map[i]]; d_default_value: the sum over the filled-in positions */
void k_sparse_fill_empty_rows_grad(OpCall *c) {
  Tensor *rev = c->in[0];
  tfs_i64 n = rev->size, full = c->in[1]->size;
  bool *seen = calloc((size_t)full + 1, 1);
  if (!seen) op_fail(c, ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 at = tensor_get_i(rev, i);
    if (at < 0 || at >= full) {
      free(seen);
      /* errindex: Elements in reverse index must be in [0, …) but got … */
      op_fail(c, ERR_INVALID_ARGUMENT, "Elements in reverse index must be in [0, %lld) but got %lld", (long long)full, (long long)at);
    }
    seen[at] = true;
  }
  Tensor *gv = tensor_contiguous(c->in[1]);
  switch (gv->dtype) {
    case DT_FLOAT32: FILL_GRAD(float); break;
    case DT_FLOAT64: FILL_GRAD(double); break;
    case DT_INT32: FILL_GRAD(int32_t); break;
    default: FILL_GRAD(int64_t); break;
  }
  tensor_release(gv);
  free(seen);
}
