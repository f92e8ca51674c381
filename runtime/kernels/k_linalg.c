/* k_linalg.c — LAPACK-backed linear algebra (tf.linalg.inv, det, slogdet, solve, cholesky, qr, svd, eigh, lu,
 * triangular_solve) and the matrix helpers band_part and diag_part, batched over leading dimensions [..., M, N]
 * as TF's LinearAlgebraOp.  The factorizations are LAPACKE's (Debian liblapacke-dev), triangular solves BLAS trsm;
 * float32 uses the s routines and float64 the d ones, as TF computes in the input's dtype (complex inv, det and solve:
 * k_linalg_cplx.c). */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

#define ROW LAPACK_ROW_MAJOR

static inline double ld(const void *p, bool f, tfs_i64 i) { return f ? ((const float *)p)[i] : ((const double *)p)[i]; }
static inline void st(void *p, bool f, tfs_i64 i, double v) {
  if (f) ((float *)p)[i] = (float)v;
  else ((double *)p)[i] = v;
}

/* ---- shape rules ------------------------------------------------------------------------------------------ */

static void need_matrix(OpCall *c, int i) {
  const TMeta *a = &c->inm[i];
  if (a->rank >= 0 && a->rank < 2) op_fail(c, ERR_INVALID_ARGUMENT, "Input tensor %d must have rank >= 2, got %d", i, a->rank);
}
static bool known(tfs_i64 d) { return d >= 0; }

/* out = the batch dims of a, then up to two more dims */
static void batch_plus(TMeta *o, const TMeta *a, DType dt, int nextra, tfs_i64 d0, tfs_i64 d1) {
  o->dtype = dt;
  if (a->rank < 0) { o->rank = -1; return; }
  int nb = a->rank - 2;
  for (int i = 0; i < nb; i++) o->shape[i] = a->shape[i];
  if (nextra > 0) o->shape[nb] = d0;
  if (nextra > 1) o->shape[nb + 1] = d1;
  o->rank = nb + nextra;
}

static tfs_i64 dmin(tfs_i64 a, tfs_i64 b) { return !known(a) || !known(b) ? (a == 0 || b == 0 ? 0 : -1) : a < b ? a : b; }

/* shape: inv, cholesky [..., M, M]; det [...]; slogdet two [...]; eigh [..., M] and [..., M, M]; qr [..., M, P] and [..., P, N] (P = min(M, N), M with full_matrices); svd s [..., P], u [..., M, P], v [..., N, P] (u [..., M, M], v [..., N, N] with full_matrices). */
void meta_linalg(OpCall *c) {
  const TMeta *a = &c->inm[0];
  OpId id = c->op->id;
  /* Lu is TF's own kernel, not a LinearAlgebraOp: its rank message names no input */
  if (id == OP_LU && a->rank >= 0 && a->rank < 2) op_fail(c, ERR_INVALID_ARGUMENT, "Input tensor must have rank >= 2, got %d", a->rank);
  need_matrix(c, 0);
  tfs_i64 m = a->rank >= 2 ? a->shape[a->rank - 2] : -1, n = a->rank >= 2 ? a->shape[a->rank - 1] : -1;
  bool square = id != OP_QR && id != OP_SVD;
  if (square && known(m) && known(n) && m != n) op_fail(c, ERR_INVALID_ARGUMENT, "Input matrix must be square.");
  if (square && !known(m)) m = n;
  DType dt = a->dtype;
  switch (id) {
    case OP_MATRIX_DETERMINANT:
      batch_plus(&c->outm[0], a, dt, 0, 0, 0);
      break;
    case OP_LOG_MATRIX_DETERMINANT:
      op_reserve_outputs(c, 2);
      batch_plus(&c->outm[0], a, dt, 0, 0, 0);
      batch_plus(&c->outm[1], a, dt, 0, 0, 0);
      break;
    case OP_LU: {
      int it = op_attr_dtype(c, 0, DT_INT32);
      if (it != DT_INT32 && it != DT_INT64)
        op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'output_idx_type' of %s is not in the list of allowed values: int32, int64 ; NodeDef: {{node Lu}}",
                dtype_short_name((DType)it));
      op_reserve_outputs(c, 2);
      batch_plus(&c->outm[0], a, dt, 2, m, m);
      batch_plus(&c->outm[1], a, (DType)it, 1, m, 0);
      break;
    }
    case OP_SELF_ADJOINT_EIG:
      op_reserve_outputs(c, 2);
      batch_plus(&c->outm[0], a, dt, 1, m, 0);
      batch_plus(&c->outm[1], a, dt, 2, m, m);
      break;
    case OP_QR: {
      bool full = op_attr_bool(c, 0, false);
      tfs_i64 p = dmin(m, n);
      op_reserve_outputs(c, 2);
      batch_plus(&c->outm[0], a, dt, 2, m, full ? m : p);
      batch_plus(&c->outm[1], a, dt, 2, full ? m : p, n);
      break;
    }
    case OP_SVD: {
      bool full = op_attr_bool(c, 0, false), uv = op_attr_bool(c, 1, true);
      tfs_i64 p = dmin(m, n);
      op_reserve_outputs(c, uv ? 3 : 1);
      /* complex input: s real, as tf.linalg.svd takes the real part of the op's output */
      batch_plus(&c->outm[0], a, dt == DT_COMPLEX64 ? DT_FLOAT32 : dt == DT_COMPLEX128 ? DT_FLOAT64 : dt, 1, p, 0);
      if (uv) {
        batch_plus(&c->outm[1], a, dt, 2, m, full ? m : p);
        batch_plus(&c->outm[2], a, dt, 2, n, full ? n : p);
      }
      break;
    }
    default:   /* MatrixInverse, Cholesky */
      batch_plus(&c->outm[0], a, dt, 2, m, m);
  }
}

/* shape: rhs's [..., M, K] for matrix [..., M, M]; solve needs equal batch dims, triangular_solve broadcasts them. */
void meta_linalg_solve(OpCall *c) {
  need_matrix(c, 0);
  need_matrix(c, 1);
  const TMeta *a = &c->inm[0], *b = &c->inm[1];
  TMeta *o = &c->outm[0];
  o->dtype = a->dtype;
  if (a->rank < 0 || b->rank < 0) { o->rank = -1; return; }
  tfs_i64 m = a->shape[a->rank - 2], n = a->shape[a->rank - 1], bm = b->shape[b->rank - 2], k = b->shape[b->rank - 1];
  bool tri = c->op->id == OP_TRIANGULAR_SOLVE;
  if (known(m) && known(n) && m != n)
    op_fail(c, ERR_INVALID_ARGUMENT, tri ? "Input matrix must be square." : "First input (lhs) must be a square matrix.");
  if (!known(m)) m = n;
  if (known(m) && known(bm) && m != bm)
    op_fail(c, ERR_INVALID_ARGUMENT, "Input matrix and rhs are incompatible.");
  if (!tri) {
    if (a->rank != b->rank) op_fail(c, ERR_INVALID_ARGUMENT, "All input tensors must have the same rank.");
    for (int i = 0; i < a->rank - 2; i++)
      if (known(a->shape[i]) && known(b->shape[i]) && a->shape[i] != b->shape[i])
        op_fail(c, ERR_INVALID_ARGUMENT, "All input tensors must have the same outer dimensions.");
    *o = *b;
    for (int i = 0; i < a->rank - 2; i++)
      if (!known(o->shape[i])) o->shape[i] = a->shape[i];
    o->shape[o->rank - 2] = known(bm) ? bm : m;
    return;
  }
  TMeta ab = *a, bb = *b;
  ab.rank -= 2;
  bb.rank -= 2;
  op_broadcast_meta(c, &ab, &bb, o);
  o->dtype = a->dtype;
  o->shape[o->rank] = known(bm) ? bm : m;
  o->shape[o->rank + 1] = k;
  o->rank += 2;
}

/* diag_part's k: one diagonal or a (lo, hi) band (TF's MatrixDiagPartV3 checks). */
static void diag_band(OpCall *c, tfs_i64 m, tfs_i64 n, tfs_i64 *lo, tfs_i64 *hi) {
  Val k = op_attr(c, 0);
  tfs_i64 cnt;
  const Val *items;
  if (seq_items(k, &cnt, &items)) {
    if (cnt < 1 || cnt > 2)
      op_fail(c, ERR_INVALID_ARGUMENT, "diag_index must have only one or two elements, received %lld elements.",
              (long long)cnt);
    int64_t l = 0, h = 0;
    if (!val_as_int(items[0], &l) || !val_as_int(items[cnt - 1], &h))
      op_fail(c, ERR_INVALID_ARGUMENT, "diag_index must be integers");
    *lo = l;
    *hi = h;
  } else {
    *lo = *hi = op_attr_int(c, 0, 0);
  }
  for (int e = 0; e < 2 && known(m) && known(n); e++) {
    tfs_i64 v = e ? *hi : *lo;
    if (v != 0 && !(-m < v && v < n))
      op_fail(c, ERR_INVALID_ARGUMENT, "%s_diag_index is out of bound: %lld. It must be between %lld and %lld",
              e ? "upper" : "lower", (long long)v, (long long)-m, (long long)n);
  }
  if (*lo > *hi)
    op_fail(c, ERR_INVALID_ARGUMENT, "lower_diag_index must not be larger than upper_diag_index: %lld > %lld",
            (long long)*lo, (long long)*hi);
}

/* The longest diagonal's length in band lo..hi of an m x n matrix (-1: unknown). */
static tfs_i64 diag_max_len(tfs_i64 m, tfs_i64 n, tfs_i64 lo, tfs_i64 hi) {
  if (!known(m) || !known(n)) return -1;
  tfs_i64 a = m + (hi < 0 ? hi : 0), b = n - (lo > 0 ? lo : 0);
  return a < b ? a : b;
}

void linalg_diag_layout(Val k, Val align, tfs_i64 m, tfs_i64 n, DiagLayout *l) {
  tfs_i64 cnt;
  const Val *items;
  int64_t lo = 0, hi = 0;
  if (seq_items(k, &cnt, &items) && cnt >= 1) {
    val_as_int(items[0], &lo);
    val_as_int(items[cnt - 1], &hi);
  } else if (val_as_int(k, &lo)) {
    hi = lo;
  }
  const char *a = val_is(align, &str_type) ? str_cstr(align) : "RIGHT_LEFT";
  const char *sub = strchr(a, '_');
  *l = (DiagLayout){.m = m, .n = n, .lo = lo, .hi = hi, .len = diag_max_len(m, n, lo, hi),
                    .sup_left = !strncmp(a, "LEFT", 4), .sub_left = sub && !strcmp(sub + 1, "LEFT")};
}

tfs_i64 linalg_diag_offset(const DiagLayout *l, tfs_i64 d) {
  /* the main diagonal is left-aligned when either side is (TF's ComputeDiagLenAndContentOffset) */
  bool left = (d >= 0 && l->sup_left) || (d <= 0 && l->sub_left);
  return left ? 0 : l->len - diag_max_len(l->m, l->n, d, d);
}

tfs_i64 linalg_diag_pos(const DiagLayout *l, tfs_i64 i, tfs_i64 j) {
  tfs_i64 d = j - i;
  if (d < l->lo || d > l->hi) return -1;
  return (l->hi - d) * l->len + (i < j ? i : j) + linalg_diag_offset(l, d);
}

/* shape: band_part the input's [..., M, N]; diag_part [..., L] or [..., hi - lo + 1, L]. */
void meta_band_part(OpCall *c) {
  need_matrix(c, 0);
  const TMeta *a = &c->inm[0];
  if (c->op->id == OP_DIAG_PART) {
    tfs_i64 m = a->rank >= 2 ? a->shape[a->rank - 2] : -1, n = a->rank >= 2 ? a->shape[a->rank - 1] : -1, lo, hi;
    diag_band(c, m, n, &lo, &hi);
    if (lo == hi) batch_plus(&c->outm[0], a, a->dtype, 1, lo == 0 ? dmin(m, n) : diag_max_len(m, n, lo, hi), 0);
    else batch_plus(&c->outm[0], a, a->dtype, 2, hi - lo + 1, diag_max_len(m, n, lo, hi));
    return;
  }
  c->outm[0] = *a;
}

/* ---- kernels ---------------------------------------------------------------------------------------------- */

static tfs_i64 nbatch(const Tensor *t, int keep) {
  tfs_i64 n = 1;
  for (int i = 0; i < t->rank - keep; i++) n *= t->shape[i];
  return n;
}

static void la_fail_internal(OpCall *c, const char *what, int info) {
  op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", what, info);
}

/* Transpose an n x n matrix in place. */
static void transpose_sq(void *p, bool f, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n; i++)
    for (tfs_i64 j = i + 1; j < n; j++) {
      double x = ld(p, f, i * n + j);
      st(p, f, i * n + j, ld(p, f, j * n + i));
      st(p, f, j * n + i, x);
    }
}

static void *hold_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(p);
  return p;
}

/* LU with partial pivoting of the n x n matrix w in place; a zero pivot is TF's "not invertible" (inv, lu). */
static void lu_or_fail(OpCall *c, bool f, void *w, tfs_i64 n, lapack_int *ipiv) {
  /* the _work form skips LAPACKE's NaN check: NaN and inf propagate into the factors, as Eigen's LU lets them */
  int info = f ? LAPACKE_sgetrf_work(ROW, n, n, w, n, ipiv) : LAPACKE_dgetrf_work(ROW, n, n, w, n, ipiv);
  if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Input is not invertible.");
  if (info < 0) la_fail_internal(c, "getrf", info);
}

void k_linalg(OpCall *c) {
  blas_ready();
  if (dtype_is_complex(c->in[0]->dtype)) {   /* inv and det (k_linalg_cplx.c) */
    k_linalg_cplx(c);
    return;
  }
  Tensor *a = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(a));
  OpId id = c->op->id;
  bool f = a->dtype == DT_FLOAT32;
  size_t es = f ? 4 : 8;
  tfs_i64 m = a->shape[a->rank - 2], n = a->shape[a->rank - 1], nb = nbatch(a, 2), p = m < n ? m : n;
  const char *src = tensor_data(a);
  void *w = hold_alloc((size_t)(m * n) * es);
  lapack_int *ipiv = hold_alloc(sizeof(lapack_int) * (size_t)(m > n ? m : n) + 1);
  void *tau = hold_alloc((size_t)(p + 1) * es), *vt = hold_alloc((size_t)(n * n + 1) * es), *dummy = hold_alloc(es);
  tfs_i64 *perm = hold_alloc(sizeof(tfs_i64) * (size_t)(n + 1));
  for (tfs_i64 b = 0; b < nb; b++) {
    memcpy(w, src + (size_t)(b * m * n) * es, (size_t)(m * n) * es);
    switch (id) {
      case OP_MATRIX_INVERSE: {
        char *o = (char *)tensor_data(c->out[0]) + (size_t)(b * n * n) * es;
        if (n == 0) break;
        lu_or_fail(c, f, w, n, ipiv);
        int info = f ? LAPACKE_sgetri(ROW, n, w, n, ipiv) : LAPACKE_dgetri(ROW, n, w, n, ipiv);
        if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Input is not invertible.");
        if (info < 0) la_fail_internal(c, "getri", info);
        if (op_attr_bool(c, 0, false)) transpose_sq(w, f, n);   /* adjoint: inv(A^T) = inv(A)^T */
        memcpy(o, w, (size_t)(n * n) * es);
        break;
      }
      case OP_MATRIX_DETERMINANT:
      case OP_LOG_MATRIX_DETERMINANT: {
        /* LU with partial pivoting; a zero pivot (info > 0) is a singular matrix: det 0, log|det| -inf */
        double sign = 1, logabs = 0, det = 1;
        if (n > 0) {
          int info = f ? LAPACKE_sgetrf(ROW, n, n, w, n, ipiv) : LAPACKE_dgetrf(ROW, n, n, w, n, ipiv);
          if (info < 0) la_fail_internal(c, "getrf", info);
          for (tfs_i64 i = 0; i < n; i++) {
            double d = ld(w, f, i * n + i);
            if (ipiv[i] != i + 1) sign = -sign, det = -det;
            det *= d;
            if (d < 0) sign = -sign;
            else if (d == 0) sign = 0;
            logabs += log(fabs(d));
          }
        }
        if (id == OP_MATRIX_DETERMINANT) {
          st(tensor_data(c->out[0]), f, b, det);
        } else {
          st(tensor_data(c->out[0]), f, b, sign);
          st(tensor_data(c->out[1]), f, b, sign == 0 ? -INFINITY : logabs);
        }
        break;
      }
      case OP_LU: {
        /* P @ A = L @ U with P's rows the input rows perm lists: getrf's row swaps applied in order to 0..n-1 */
        char *o = (char *)tensor_data(c->out[0]) + (size_t)(b * n * n) * es;
        if (n == 0) break;
        lu_or_fail(c, f, w, n, ipiv);
        memcpy(o, w, (size_t)(n * n) * es);
        for (tfs_i64 i = 0; i < n; i++) perm[i] = i;
        for (tfs_i64 i = 0; i < n; i++) {
          tfs_i64 j = ipiv[i] - 1, pi = perm[i];
          perm[i] = perm[j];
          perm[j] = pi;
        }
        bool i32 = c->out[1]->dtype == DT_INT32;
        for (tfs_i64 i = 0; i < n; i++) {
          if (i32) ((int32_t *)tensor_data(c->out[1]))[b * n + i] = (int32_t)perm[i];
          else ((int64_t *)tensor_data(c->out[1]))[b * n + i] = perm[i];
        }
        break;
      }
      case OP_CHOLESKY: {
        char *o = (char *)tensor_data(c->out[0]) + (size_t)(b * n * n) * es;
        if (n == 0) break;
        int info = f ? LAPACKE_spotrf(ROW, 'L', n, w, n) : LAPACKE_dpotrf(ROW, 'L', n, w, n);
        if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Cholesky decomposition was not successful. The input might not be valid.");
        if (info < 0) la_fail_internal(c, "potrf", info);
        for (tfs_i64 i = 0; i < n; i++)
          for (tfs_i64 j = i + 1; j < n; j++) st(w, f, i * n + j, 0);
        memcpy(o, w, (size_t)(n * n) * es);
        break;
      }
      case OP_SELF_ADJOINT_EIG: {
        char *e = (char *)tensor_data(c->out[0]) + (size_t)(b * n) * es, *v = (char *)tensor_data(c->out[1]) + (size_t)(b * n * n) * es;
        if (n == 0) break;
        int info = f ? LAPACKE_ssyevd(ROW, 'V', 'L', n, w, n, (float *)e) : LAPACKE_dsyevd(ROW, 'V', 'L', n, w, n, (double *)e);
        if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Self-adjoint eigen decomposition was not successful. The input might not be valid.");
        if (info < 0) la_fail_internal(c, "syevd", info);
        memcpy(v, w, (size_t)(n * n) * es);
        break;
      }
      case OP_QR: {
        bool full = op_attr_bool(c, 0, false);
        tfs_i64 qc = full ? m : p, rr = full ? m : p;
        char *q = (char *)tensor_data(c->out[0]) + (size_t)(b * m * qc) * es, *r = (char *)tensor_data(c->out[1]) + (size_t)(b * rr * n) * es;
        if (p > 0) {
          int info = f ? LAPACKE_sgeqrf(ROW, m, n, w, n, tau) : LAPACKE_dgeqrf(ROW, m, n, w, n, tau);
          if (info) la_fail_internal(c, "geqrf", info);
        }
        for (tfs_i64 i = 0; i < rr; i++)
          for (tfs_i64 j = 0; j < n; j++) st(r, f, i * n + j, j >= i && i < p ? ld(w, f, i * n + j) : 0);
        for (tfs_i64 i = 0; i < m; i++)
          for (tfs_i64 j = 0; j < qc; j++) st(q, f, i * qc + j, j < n && j < p ? ld(w, f, i * n + j) : i == j && p == 0);
        if (p > 0 && qc > 0) {
          int info = f ? LAPACKE_sorgqr(ROW, m, qc, p, (float *)q, qc, tau) : LAPACKE_dorgqr(ROW, m, qc, p, (double *)q, qc, tau);
          if (info) la_fail_internal(c, "orgqr", info);
        } else {
          for (tfs_i64 i = 0; i < m; i++)
            for (tfs_i64 j = 0; j < qc; j++) st(q, f, i * qc + j, i == j);
        }
        break;
      }
      case OP_SVD: {
        bool full = op_attr_bool(c, 0, false), uv = c->nout == 3;
        tfs_i64 uc = full ? m : p, vc = full ? n : p;
        char *s = (char *)tensor_data(c->out[0]) + (size_t)(b * p) * es;
        char *u = uv ? (char *)tensor_data(c->out[1]) + (size_t)(b * m * uc) * es : NULL;
        char *v = uv ? (char *)tensor_data(c->out[2]) + (size_t)(b * n * vc) * es : NULL;
        if (p == 0) {   /* empty: identity singular vectors (full), nothing else */
          for (tfs_i64 i = 0; uv && i < m * uc; i++) st(u, f, i, i / uc == i % uc);
          for (tfs_i64 i = 0; uv && i < n * vc; i++) st(v, f, i, i / vc == i % vc);
          break;
        }
        char jobz = !uv ? 'N' : full ? 'A' : 'S';
        void *ub = uv ? (void *)u : dummy;
        bool finite = true;
        for (tfs_i64 i = 0; i < m * n; i++) finite &= isfinite(ld(w, f, i));
        int info = !finite ? 1 : f ? LAPACKE_sgesdd(ROW, jobz, m, n, w, n, (float *)s, ub, uv ? uc : 1, vt, n > 0 ? n : 1)
                                   : LAPACKE_dgesdd(ROW, jobz, m, n, w, n, (double *)s, ub, uv ? uc : 1, vt, n > 0 ? n : 1);
        if (info < 0) la_fail_internal(c, "gesdd", info);
        if (info > 0) {   /* NaN or inf (LAPACKE refuses them), or no convergence: TF's SvdOp fills NaN, no error */
          for (tfs_i64 i = 0; i < p; i++) st(s, f, i, NAN);
          for (tfs_i64 i = 0; uv && i < m * uc; i++) st(u, f, i, NAN);
          for (tfs_i64 i = 0; uv && i < n * vc; i++) st(v, f, i, NAN);
          break;
        }
        for (tfs_i64 i = 0; uv && i < n; i++)   /* v = vt^T */
          for (tfs_i64 j = 0; j < vc; j++) st(v, f, i * vc + j, ld(vt, f, j * n + i));
        break;
      }
      default: break;
    }
  }
  rt_unhold(mark);
  tensor_release(a);
  free(w);
  free(ipiv);
  free(tau);
  free(vt);
  free(dummy);
  free(perm);
}

/* Index into an input's batch dims (right-aligned, size-1 dims broadcast) of output batch index q. */
static tfs_i64 bcast_index(tfs_i64 q, int onb, const tfs_i64 *ob, int inb, const tfs_i64 *ib) {
  tfs_i64 idx = 0, stride = 1;
  for (int d = onb - 1; d >= 0; d--) {
    tfs_i64 co = q % ob[d];
    q /= ob[d];
    int di = d - (onb - inb);
    if (di < 0) continue;
    if (ib[di] != 1) idx += co * stride;
    stride *= ib[di];
  }
  return idx;
}

void k_linalg_solve(OpCall *c) {
  blas_ready();   /* getrf/getrs and trsm may be the program's first BLAS call (blas.c) */
  Tensor *a = tensor_contiguous(c->in[0]), *rhs = tensor_contiguous(c->in[1]);
  int mark = rt_hold_val(val_obj(a));
  rt_hold_val(val_obj(rhs));
  Tensor *o = c->out[0];
  bool f = a->dtype == DT_FLOAT32, tri = c->op->id == OP_TRIANGULAR_SOLVE, cplx = dtype_is_complex(a->dtype);
  size_t es = (size_t)dtype_info[a->dtype].size;
  tfs_i64 n = a->shape[a->rank - 1], k = rhs->shape[rhs->rank - 1], nb = nbatch(o, 2);
  bool lower = tri ? op_attr_bool(c, 0, true) : false, adj = op_attr_bool(c, tri ? 1 : 0, false);
  void *w = hold_alloc((size_t)(n * n) * es);
  lapack_int *ipiv = hold_alloc(sizeof(lapack_int) * (size_t)n + 1);
  for (tfs_i64 b = 0; b < nb; b++) {
    tfs_i64 ia = bcast_index(b, o->rank - 2, o->shape, a->rank - 2, a->shape);
    tfs_i64 ib = bcast_index(b, o->rank - 2, o->shape, rhs->rank - 2, rhs->shape);
    char *x = (char *)tensor_data(o) + (size_t)(b * n * k) * es;
    memcpy(x, (const char *)tensor_data(rhs) + (size_t)(ib * n * k) * es, (size_t)(n * k) * es);
    if (n == 0 || k == 0) continue;
    const char *ap = (const char *)tensor_data(a) + (size_t)(ia * n * n) * es;
    if (tri && cplx) {
      k_trisolve_cplx(a->dtype == DT_COMPLEX64, ap, x, n, k, lower, adj);
      continue;
    }
    if (tri) {   /* BLAS trsm: no singularity check, a zero diagonal gives inf/nan as TF */
      CBLAS_UPLO up = lower ? CblasLower : CblasUpper;
      CBLAS_TRANSPOSE tr = adj ? CblasTrans : CblasNoTrans;
      if (f) cblas_strsm(CblasRowMajor, CblasLeft, up, tr, CblasNonUnit, n, k, 1.0f, (const float *)ap, n, (float *)x, k);
      else cblas_dtrsm(CblasRowMajor, CblasLeft, up, tr, CblasNonUnit, n, k, 1.0, (const double *)ap, n, (double *)x, k);
      continue;
    }
    if (cplx) {
      k_linalg_solve_cplx(c, ap, x, n, k, adj, w, ipiv);
      continue;
    }
    memcpy(w, ap, (size_t)(n * n) * es);
    int info = f ? LAPACKE_sgetrf(ROW, n, n, w, n, ipiv) : LAPACKE_dgetrf(ROW, n, n, w, n, ipiv);
    if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Input matrix is not invertible.");
    if (info < 0) la_fail_internal(c, "getrf", info);
    info = f ? LAPACKE_sgetrs(ROW, adj ? 'T' : 'N', n, k, w, n, ipiv, (float *)x, k)
             : LAPACKE_dgetrs(ROW, adj ? 'T' : 'N', n, k, w, n, ipiv, (double *)x, k);
    if (info) la_fail_internal(c, "getrs", info);
  }
  rt_unhold(mark);
  tensor_release(a);
  tensor_release(rhs);
  free(w);
  free(ipiv);
}

/* band_part(input, num_lower, num_upper): keeps element (i, j) when (num_lower < 0 || i - j <= num_lower) and
 * (num_upper < 0 || j - i <= num_upper), zero elsewhere; diag_part: the main diagonal. */
void k_band_part(OpCall *c) {
  Tensor *a = tensor_contiguous(c->in[0]);
  Tensor *o = c->out[0];
  size_t es = (size_t)dtype_info[a->dtype].size;
  tfs_i64 m = a->shape[a->rank - 2], n = a->shape[a->rank - 1], nb = nbatch(a, 2);
  const char *s = tensor_data(a);
  char *d = tensor_data(o);
  if (c->op->id == OP_DIAG_PART) {
    tfs_i64 lo, hi;
    diag_band(c, m, n, &lo, &hi);
    Val al = op_attr(c, 2);
    const char *align = val_is(al, &str_type) ? str_cstr(al) : "RIGHT_LEFT";
    if (strcmp(align, "RIGHT_LEFT") && strcmp(align, "LEFT_RIGHT") && strcmp(align, "LEFT_LEFT") && strcmp(align, "RIGHT_RIGHT"))
      op_fail(c, ERR_INVALID_ARGUMENT, "Unknown align: %s", align);
    DiagLayout l;
    linalg_diag_layout(op_attr(c, 0), al, m, n, &l);
    char pad[16];
    dtype_store_f(a->dtype, pad, op_attr_float(c, 1, 0));
    tfs_i64 nd = hi - lo + 1;
    for (tfs_i64 b = 0; b < nb; b++)
      for (tfs_i64 r = 0; r < nd; r++) {
        tfs_i64 dg = hi - r, dlen = diag_max_len(m, n, dg, dg), off = linalg_diag_offset(&l, dg);
        tfs_i64 i0 = dg < 0 ? -dg : 0, j0 = dg > 0 ? dg : 0;
        for (tfs_i64 p = 0; p < l.len; p++) {
          tfs_i64 q = p - off;
          char *to = d + (size_t)((b * nd + r) * l.len + p) * es;
          if (q >= 0 && q < dlen) memcpy(to, s + (size_t)(b * m * n + (i0 + q) * n + j0 + q) * es, es);
          else memcpy(to, pad, es);
        }
      }
    tensor_release(a);
    return;
  }
  tfs_i64 lo = op_attr_int(c, 0, -1), up = op_attr_int(c, 1, -1);
  for (tfs_i64 b = 0; b < nb; b++)
    for (tfs_i64 i = 0; i < m; i++)
      for (tfs_i64 j = 0; j < n; j++) {
        size_t off = (size_t)(b * m * n + i * n + j) * es;
        if ((lo < 0 || i - j <= lo) && (up < 0 || j - i <= up)) memcpy(d + off, s + off, es);
        else memset(d + off, 0, es);
      }
  tensor_release(a);
}

/* tf.norm's matrix norms ord 1 (max column abs sum), inf (max row abs sum) and 2 (largest singular value, LAPACK
 * gesdd, zgesdd for a complex matrix: real either way) over rows axis a0 and columns axis a1: the input permuted to
 * [others..., a0, a1] and packed, so the results come in the order of the kept axes, which is the output's (with or
 * without keepdims). */
void linalg_matrix_norm(OpCall *c, int mode, int a0, int a1) {
  blas_ready();   /* ord=2's gesdd may be the program's first BLAS call (blas.c) */
  Tensor *x = c->in[0];
  int r = x->rank, k = 0;
  tfs_i64 shape[TFS_MAX_RANK], strides[TFS_MAX_RANK];
  for (int d = 0; d < r; d++)
    if (d != a0 && d != a1) shape[k] = x->shape[d], strides[k++] = x->strides[d];
  shape[k] = x->shape[a0], strides[k++] = x->strides[a0];
  shape[k] = x->shape[a1], strides[k++] = x->strides[a1];
  Tensor *v = tensor_view(x, r, shape, strides, x->offset);
  Tensor *a = tensor_contiguous(v);
  tensor_release(v);
  int mark = rt_hold_val(val_obj(a));
  bool f = a->dtype == DT_FLOAT32 || a->dtype == DT_COMPLEX64, cx = dtype_is_complex(a->dtype);   /* complex: ord 2 only */
  tfs_i64 m = shape[r - 2], n = shape[r - 1], nb = nbatch(a, 2), p = m < n ? m : n, ne = m * n * (cx ? 2 : 1);
  const char *src = tensor_data(a);
  /* float32 (complex64) is decomposed in double and rounded once: sgesdd's last bit depends on which OpenBLAS kernels
   * run (OPENBLAS_CORETYPE, the CPU), and no printed value may depend on the machine */
  void *w = hold_alloc((size_t)(ne + 1) * 8), *s = hold_alloc((size_t)(p + 1) * 8), *dummy = hold_alloc(32);
  for (tfs_i64 b = 0; b < nb; b++) {
    const char *mat = src + (size_t)(b * ne) * (f ? 4 : 8);
    double best = 0;
    if (mode == NORM_TWO) {
      if (p > 0) {
        bool finite = true;
        for (tfs_i64 i = 0; i < ne; i++) finite &= isfinite(((double *)w)[i] = ld(mat, f, i));
        int info = !finite ? 1 : cx ? LAPACKE_zgesdd(ROW, 'N', m, n, w, n, s, dummy, 1, dummy, n)
                                    : LAPACKE_dgesdd(ROW, 'N', m, n, w, n, s, dummy, 1, dummy, n);
        if (info < 0) la_fail_internal(c, "gesdd", info);
        /* NaN or inf, or no convergence: TF's svd fills NaN (0 for complex, k_linalg_cplx.c's svd_one says why) */
        best = info > 0 ? (cx ? 0 : NAN) : ((double *)s)[0];
      }
    } else {
      bool cols = mode == NORM_ONE;   /* sum over rows within each column */
      tfs_i64 outer = cols ? n : m, inner = cols ? m : n;
      for (tfs_i64 i = 0; i < outer; i++) {
        double sum = 0;
        for (tfs_i64 j = 0; j < inner; j++) sum += fabs(ld(mat, f, cols ? j * n + i : i * n + j));
        if (i == 0 || sum > best || isnan(sum)) best = sum;
      }
    }
    st(tensor_data(c->out[0]), f, b, best);
  }
  rt_unhold(mark);
  tensor_release(a);
  free(w);
  free(s);
  free(dummy);
}
