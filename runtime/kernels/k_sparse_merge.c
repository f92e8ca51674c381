/* k_sparse_merge.c — two sorted SparseTensors merged entry by entry: TF's SparseAdd (+ SparseAddGrad), SparseSparseMaximum/Minimum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_sparse.h"

/* inputs a_indices, a_values, a_shape, b_indices, b_values, b_shape[, thresh] */
enum { A_IND, A_VAL, A_SHP, B_IND, B_VAL, B_SHP, THRESH };

static bool is_add(const OpCall *c) { return c->op->id == OP_SPARSE_ADD; }

/* "[2,3] and [4]": two inputs' shapes as TF's DebugString writes them */
static void two_shapes(StrBuf *b, const TMeta *x, const TMeta *y, const char *sep) {
  op_shape_text(b, x->rank, x->shape);
  sb_puts(b, sep);
  op_shape_text(b, y->rank, y->shape);
}

static bool rank_not(const TMeta *m, int r) { return m->rank >= 0 && m->rank != r; }

/* shape: indices [?, rank], values [?] (and the shape [rank] for SparseAdd); TF's rank checks where ranks are known */
void meta_sparse_merge(OpCall *c) {
  const TMeta *m = c->inm;
  bool add = is_add(c);
  StrBuf msg;
  sb_init(&msg);
  if (rank_not(&m[A_IND], 2) || rank_not(&m[B_IND], 2)) {
    sb_puts(&msg, add ? "Input indices should be matrices but received shapes: "
                      : "Inputs a_indices and b_indices should be matrices but received shapes: ");
    two_shapes(&msg, &m[A_IND], &m[B_IND], add ? " and " : ", ");
  } else if (rank_not(&m[A_VAL], 1) || rank_not(&m[B_VAL], 1)) {
    sb_puts(&msg, add ? "Input values should be vectors but received shapes: "
                      : "Inputs a_values and b_values should be vectors but received shapes: ");
    two_shapes(&msg, &m[A_VAL], &m[B_VAL], " and ");
  } else if (rank_not(&m[A_SHP], 1) || rank_not(&m[B_SHP], 1)) {
    sb_puts(&msg, "Input shapes should be a vector but received shapes ");
    two_shapes(&msg, &m[A_SHP], &m[B_SHP], " and ");
  } else if (add && rank_not(&m[THRESH], 0)) {
    sb_puts(&msg, "The magnitude threshold must be a scalar: got shape ");
    op_shape_text(&msg, m[THRESH].rank, m[THRESH].shape);
  }
  /* errindex: Input indices should be matrices but received shapes: … and … */
  /* errindex: Inputs a_indices and b_indices should be matrices but received shapes: …, … */
  /* errindex: Input values should be vectors but received shapes: … and … */
  /* errindex: Inputs a_values and b_values should be vectors but received shapes: … and … */
  /* errindex: Input shapes should be a vector but received shapes … and … */
  /* errindex: The magnitude threshold must be a scalar: got shape … */
  if (msg.len) op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  sb_free(&msg);
  if (add && dtype_real_part(m[A_VAL].dtype) != m[THRESH].dtype)
    op_fail(c, ERR_INVALID_ARGUMENT, "cannot compute SparseAdd as input #6(zero-based) was expected to be a %s tensor but is a %s tensor",
            dtype_short_name(dtype_real_part(m[A_VAL].dtype)), dtype_short_name(m[THRESH].dtype));
  tfs_i64 r = m[A_SHP].rank == 1 ? m[A_SHP].shape[0] : -1, s[2] = {-1, r};
  op_reserve_outputs(c, add ? 3 : 2);
  meta_set(&c->outm[0], DT_INT64, 2, s);
  meta_set(&c->outm[1], m[A_VAL].dtype, 1, s);
  if (add) meta_set(&c->outm[2], DT_INT64, 1, &s[1]);
}

/* TF's checks of the eager operands: counts, index columns, equal dense shapes */
static void merge_checks(const OpCall *c, Tensor *const *in) {
  tfs_i64 na = in[A_IND]->shape[0], nb = in[B_IND]->shape[0];
  StrBuf msg;
  sb_init(&msg);
  if (in[A_VAL]->size != na || in[B_VAL]->size != nb) {
    sb_printf(&msg, "Expected %lld and %lld non-empty input values, got %lld and %lld", (long long)na, (long long)nb,
              (long long)in[A_VAL]->size, (long long)in[B_VAL]->size);
  } else if (in[A_SHP]->size != in[B_SHP]->size) {
    sb_puts(&msg, "Operands do not have the same ranks; got shapes: ");
    sparse_summarize(&msg, in[A_SHP]);
    sb_puts(&msg, " and ");
    sparse_summarize(&msg, in[B_SHP]);
  } else {
    for (tfs_i64 d = 0; d < in[A_SHP]->size && !msg.len; d++) {
      tfs_i64 u = tensor_get_i(in[A_SHP], d), v = tensor_get_i(in[B_SHP], d);
      if (u != v) sb_printf(&msg, "Operands' shapes do not match: got %lld and %lld for dimension %lld", (long long)u, (long long)v, (long long)d);
    }
  }
  for (int k = A_IND; k <= B_IND && !msg.len; k += B_IND - A_IND)
    if (in[k]->shape[1] != in[k + 2]->size)
      sb_printf(&msg, "Index rank (%lld) and shape rank (%lld) do not match", (long long)in[k]->shape[1], (long long)in[k + 2]->size);
  /* errindex: Expected … and … non-empty input values, got … and … */
  /* errindex: Operands do not have the same ranks; got shapes: … and … */
  /* errindex: Operands' shapes do not match: got … and … for dimension … */
  /* errindex: Index rank (…) and shape rank (…) do not match */
  if (msg.len) op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  sb_free(&msg);
}

/* the merged value of a[i] and b[j] (either absent: NULL) into out; false when a sum is dropped (|sum| < thresh) */
#define MERGE_REAL(T)                                                                              \
  do {                                                                                             \
    T x = pa ? *(const T *)pa : (T)0, y = pb ? *(const T *)pb : (T)0, r;                           \
    if (id == OP_SPARSE_ADD) r = x + y;                                                            \
    else if (id == OP_SPARSE_MAXIMUM) r = x < y ? y : x;   /* Eigen's max: a NaN first operand wins */ \
    else r = y < x ? y : x;                                                                        \
    *(T *)out = r;                                                                                 \
    return id != OP_SPARSE_ADD || !pa || !pb || thresh <= fabs((double)r);                          \
  } while (0)
#define MERGE_CPLX(T, HYPOT)                                                                       \
  do {                                                                                             \
    const T *x = pa, *y = pb;                                                                      \
    T *o = out;                                                                                    \
    o[0] = (x ? x[0] : 0) + (y ? y[0] : 0), o[1] = (x ? x[1] : 0) + (y ? y[1] : 0);                \
    return !pa || !pb || thresh <= (double)HYPOT(o[0], o[1]);                                      \
  } while (0)
static bool merge_value(OpId id, DType dt, const void *pa, const void *pb, void *out, double thresh) {
  switch (dt) {
    case DT_FLOAT32: MERGE_REAL(float);
    case DT_FLOAT64: MERGE_REAL(double);
    case DT_INT32: MERGE_REAL(int32_t);
    case DT_COMPLEX64: MERGE_CPLX(float, hypotf);
    case DT_COMPLEX128: MERGE_CPLX(double, hypot);
    default: MERGE_REAL(int64_t);
  }
}

/* TF's merge of two row-major operands: the entry of the smaller index first, equal indices combined once */
void k_sparse_merge(OpCall *c) {
  Tensor *in[6];
  for (int k = 0; k < 6; k++) in[k] = tensor_contiguous(c->in[k]);
  int mark = -1;
  for (int k = 0; k < 6; k++) {
    int m = rt_hold_val(val_obj(in[k]));
    if (mark < 0) mark = m;
  }
  merge_checks(c, in);
  OpId id = c->op->id;
  DType dt = in[A_VAL]->dtype;
  double thresh = is_add(c) ? tensor_get_f(c->in[THRESH], 0) : 0;
  tfs_i64 na = in[A_IND]->shape[0], nb = in[B_IND]->shape[0], n = 0, i = 0, j = 0;
  int r = (int)in[A_SHP]->size;
  size_t es = sparse_esize(dt);
  const char *av = tensor_data(in[A_VAL]), *bv = tensor_data(in[B_VAL]);
  tfs_i64 *src = malloc(sizeof *src * (size_t)(na + nb + 1));   /* per entry: a's row i (>= 0) or b's row j (-1 - j) */
  char *vals = malloc(es * (size_t)(na + nb + 1));
  if (!src || !vals) {
    free(src);
    free(vals);
    op_fail(c, ERR_MEMORY, "out of memory");   /* the held inputs are released as the error unwinds */
  }
  while (i < na || j < nb) {
    int cmp = i == na ? 1 : j == nb ? -1 : sparse_row_cmp(in[A_IND], i, in[B_IND], j, r);
    const void *pa = cmp <= 0 ? av + (size_t)i * es : NULL, *pb = cmp >= 0 ? bv + (size_t)j * es : NULL;
    if (merge_value(id, dt, pa, pb, vals + (size_t)n * es, thresh)) src[n++] = cmp <= 0 ? i : -1 - j;
    i += cmp <= 0;
    j += cmp >= 0;
  }
  tfs_i64 is[2] = {n, r};
  Tensor *oi = tensor_new(DT_INT64, 2, is), *ov = tensor_new(dt, 1, is);
  int64_t *od = tensor_data(oi);
  for (tfs_i64 k = 0; k < n; k++) {
    const Tensor *from = src[k] >= 0 ? in[A_IND] : in[B_IND];
    tfs_i64 row = src[k] >= 0 ? src[k] : -1 - src[k];
    for (int d = 0; d < r; d++) od[k * r + d] = tensor_get_i(from, row * r + d);
  }
  memcpy(tensor_data(ov), vals, es * (size_t)n);
  free(src);
  free(vals);
  c->out[0] = oi;
  c->out[1] = ov;
  if (is_add(c)) c->out[2] = tensor_retain(c->in[A_SHP]);
  rt_unhold(mark);
  for (int k = 0; k < 6; k++) tensor_release(in[k]);
}

/* ---- SparseAddGrad(backprop_val_grad, a_indices, b_indices, sum_indices) -> (a_val_grad, b_val_grad) ---- */

/* shape: one gradient per entry of a and of b */
void meta_sparse_add_grad(OpCall *c) {
  const TMeta *g = &c->inm[0], *a = &c->inm[1], *b = &c->inm[2], *s = &c->inm[3];
  if (rank_not(a, 2) || rank_not(b, 2) || rank_not(s, 2)) {
    StrBuf msg;
    sb_init(&msg);
    sb_puts(&msg, "Input indices should be matrices but received shapes: ");
    two_shapes(&msg, a, b, " and ");
    sb_puts(&msg, " and ");
    op_shape_text(&msg, s->rank, s->shape);
    /* errindex: Input indices should be matrices but received shapes: … and … and … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  }
  if (rank_not(g, 1)) {
    StrBuf msg;
    sb_init(&msg);
    sb_puts(&msg, "Input backprop_val_grad should be a vector but received shape: ");
    op_shape_text(&msg, g->rank, g->shape);
    /* errindex: Input backprop_val_grad should be a vector but received shape: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &msg);
  }
  op_reserve_outputs(c, 2);
  meta_set(&c->outm[0], g->dtype, 1, a->rank == 2 ? a->shape : (tfs_i64[]){-1});
  meta_set(&c->outm[1], g->dtype, 1, b->rank == 2 ? b->shape : (tfs_i64[]){-1});
}

/* TF's walk: a's and b's entries in merged order, each taking the gradient of the sum entry at its index (0 when
 * that sum fell under the threshold and was dropped) */
void k_sparse_add_grad(OpCall *c) {
  Tensor *g = c->in[0], *a = c->in[1], *b = c->in[2], *s = c->in[3], *ga = c->out[0], *gb = c->out[1];
  if (a->shape[1] != b->shape[1] || b->shape[1] != s->shape[1])
    op_fail(c, ERR_INVALID_ARGUMENT, "The densified operands should have the same ndims; for A, B, sum got: %lld, %lld, %lld",
            (long long)a->shape[1], (long long)b->shape[1], (long long)s->shape[1]);
  if (g->size != s->shape[0])
    op_fail(c, ERR_INVALID_ARGUMENT, "# elements of backprop_val_grad and # rows of sum_indices should match (#nnz of sum): got %lld and %lld",
            (long long)g->size, (long long)s->shape[0]);
  int r = (int)a->shape[1];
  size_t es = sparse_esize(g->dtype);
  tfs_i64 na = a->shape[0], nb = b->shape[0], ns = s->shape[0], i = 0, j = 0, k = 0;
  memset(tensor_data(ga), 0, es * (size_t)na);
  memset(tensor_data(gb), 0, es * (size_t)nb);
  g = tensor_contiguous(g);
  const char *gd = tensor_data(g);
  while ((i < na || j < nb) && k < ns) {
    int cmp = i == na ? 1 : j == nb ? -1 : sparse_row_cmp(a, i, b, j, r);
    const Tensor *t = cmp <= 0 ? a : b;
    if (!sparse_row_cmp(t, cmp <= 0 ? i : j, s, k, r)) {
      if (cmp <= 0) memcpy((char *)tensor_data(ga) + (size_t)i * es, gd + (size_t)k * es, es);
      if (cmp >= 0) memcpy((char *)tensor_data(gb) + (size_t)j * es, gd + (size_t)k * es, es);
      k++;
    }
    i += cmp <= 0;
    j += cmp >= 0;
  }
  tensor_release(g);
}
