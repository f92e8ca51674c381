/* k_linalg_cplx.c — tf.linalg.inv, det, slogdet, solve, triangular_solve, cholesky, eigh, qr, svd and lu of
 * complex64/complex128 matrices through LAPACKE's c and z routines (BLAS trsm for the triangular solve), batched over
 * leading dimensions as k_linalg.c's real ones. */
#include <complex.h>
#undef I
#undef complex
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

#define ROW LAPACK_ROW_MAJOR

static void *hold_buf_at(size_t bytes, int *mark) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) rt_throw(ERR_MEMORY, "out of memory");
  int m = rt_hold_mem(p);
  if (mark) *mark = m;
  return p;
}
static void *hold_buf(size_t bytes) { return hold_buf_at(bytes, NULL); }

static tfs_i64 batches(const Tensor *t) {
  tfs_i64 n = 1;
  for (int i = 0; i < t->rank - 2; i++) n *= t->shape[i];
  return n;
}

static int getrf(bool f, tfs_i64 n, void *w, lapack_int *ipiv) {
  return f ? LAPACKE_cgetrf(ROW, n, n, w, n, ipiv) : LAPACKE_zgetrf(ROW, n, n, w, n, ipiv);
}

/* Conjugate-transpose an n x n matrix in place (the adjoint that TF's adjoint=True means for complex). */
static void adjoint_sq(void *p, bool f, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n; i++)
    for (tfs_i64 j = i; j < n; j++) {
      if (f) {
        float _Complex *q = p, x = q[i * n + j];
        q[i * n + j] = conjf(q[j * n + i]);
        q[j * n + i] = conjf(x);
      } else {
        double _Complex *q = p, x = q[i * n + j];
        q[i * n + j] = conj(q[j * n + i]);
        q[j * n + i] = conj(x);
      }
    }
}

static inline double _Complex cld(const void *p, bool f, tfs_i64 i) {
  return f ? (double _Complex)((const float _Complex *)p)[i] : ((const double _Complex *)p)[i];
}
static inline void cst(void *p, bool f, tfs_i64 i, double _Complex v) {
  if (f) ((float _Complex *)p)[i] = (float _Complex)v;
  else ((double _Complex *)p)[i] = v;
}
static inline void rst(void *p, bool f, tfs_i64 i, double v) {
  if (f) ((float *)p)[i] = (float)v;
  else ((double *)p)[i] = v;
}

/* slogdet: sign the unit-modulus phase of det (0 for a singular matrix), log|det| as a complex with no imaginary part */
static void slogdet_one(OpCall *c, bool f, void *w, tfs_i64 n, lapack_int *ipiv, tfs_i64 b) {
  double _Complex sign = 1;
  double logabs = 0;
  if (n > 0) {
    int info = getrf(f, n, w, ipiv);
    if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "getrf", info);
    for (tfs_i64 i = 0; i < n; i++) {
      double _Complex d = cld(w, f, i * n + i);
      double m = cabs(d);
      if (ipiv[i] != i + 1) sign = -sign;
      sign = m == 0 ? 0 : sign * (d / m);
      logabs += log(m);
    }
  }
  cst(tensor_data(c->out[0]), f, b, sign);
  cst(tensor_data(c->out[1]), f, b, sign == 0 ? -INFINITY : logabs);
}

/* lu: packed factors and TF's permutation (getrf's swaps applied in order to 0..n-1); a zero pivot fails as TF */
static void lu_one(OpCall *c, bool f, void *w, tfs_i64 n, lapack_int *ipiv, tfs_i64 b, size_t es) {
  if (n == 0) return;
  int info = f ? LAPACKE_cgetrf_work(ROW, n, n, w, n, ipiv) : LAPACKE_zgetrf_work(ROW, n, n, w, n, ipiv);
  if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Input is not invertible.");
  if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "getrf", info);
  memcpy((char *)tensor_data(c->out[0]) + (size_t)(b * n * n) * es, w, (size_t)(n * n) * es);
  bool i32 = c->out[1]->dtype == DT_INT32;
  int mk;
  tfs_i64 *perm = hold_buf_at(sizeof(tfs_i64) * (size_t)n, &mk);
  for (tfs_i64 i = 0; i < n; i++) perm[i] = i;
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 j = ipiv[i] - 1, p = perm[i];
    perm[i] = perm[j], perm[j] = p;
  }
  for (tfs_i64 i = 0; i < n; i++) {
    if (i32) ((int32_t *)tensor_data(c->out[1]))[b * n + i] = (int32_t)perm[i];
    else ((int64_t *)tensor_data(c->out[1]))[b * n + i] = perm[i];
  }
  rt_unhold(mk);
  free(perm);
}

/* cholesky (Hermitian positive definite, lower triangle read) and eigh (heevd: real eigenvalues stored complex) */
static void herm_one(OpCall *c, bool f, void *w, tfs_i64 n, tfs_i64 b, size_t es) {
  if (n == 0) return;
  if (c->op->id == OP_CHOLESKY) {
    int info = f ? LAPACKE_cpotrf(ROW, 'L', n, w, n) : LAPACKE_zpotrf(ROW, 'L', n, w, n);
    if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Cholesky decomposition was not successful. The input might not be valid.");
    if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "potrf", info);
    for (tfs_i64 i = 0; i < n; i++)
      for (tfs_i64 j = i + 1; j < n; j++) cst(w, f, i * n + j, 0);
    memcpy((char *)tensor_data(c->out[0]) + (size_t)(b * n * n) * es, w, (size_t)(n * n) * es);
    return;
  }
  int mk;
  double *ev = hold_buf_at(sizeof(double) * (size_t)n, &mk);
  int info = f ? LAPACKE_cheevd(ROW, 'V', 'L', n, w, n, (float *)ev) : LAPACKE_zheevd(ROW, 'V', 'L', n, w, n, ev);
  if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Self-adjoint eigen decomposition was not successful. The input might not be valid.");
  if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "heevd", info);
  for (tfs_i64 i = 0; i < n; i++) cst(tensor_data(c->out[0]), f, b * n + i, f ? ((float *)ev)[i] : ev[i]);
  memcpy((char *)tensor_data(c->out[1]) + (size_t)(b * n * n) * es, w, (size_t)(n * n) * es);
  rt_unhold(mk);
  free(ev);
}

/* qr: geqrf then ungqr, r the upper triangle (q [m, qc], r [rr, n]) */
static void qr_one(OpCall *c, bool f, void *w, tfs_i64 m, tfs_i64 n, tfs_i64 b) {
  tfs_i64 p = m < n ? m : n;
  bool full = op_attr_bool(c, 0, false);
  tfs_i64 qc = full ? m : p, rr = full ? m : p;
  size_t es = f ? 8 : 16;
  char *q = (char *)tensor_data(c->out[0]) + (size_t)(b * m * qc) * es, *r = (char *)tensor_data(c->out[1]) + (size_t)(b * rr * n) * es;
  int mk;
  void *tau = hold_buf_at((size_t)(p + 1) * es, &mk);
  if (p > 0) {
    int info = f ? LAPACKE_cgeqrf(ROW, m, n, w, n, tau) : LAPACKE_zgeqrf(ROW, m, n, w, n, tau);
    if (info) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "geqrf", info);
  }
  for (tfs_i64 i = 0; i < rr; i++)
    for (tfs_i64 j = 0; j < n; j++) cst(r, f, i * n + j, j >= i && i < p ? cld(w, f, i * n + j) : 0);
  for (tfs_i64 i = 0; i < m; i++)
    for (tfs_i64 j = 0; j < qc; j++) cst(q, f, i * qc + j, j < n && j < p ? cld(w, f, i * n + j) : i == j && p == 0);
  if (p > 0 && qc > 0) {
    int info = f ? LAPACKE_cungqr(ROW, m, qc, p, (float _Complex *)q, qc, tau) : LAPACKE_zungqr(ROW, m, qc, p, (double _Complex *)q, qc, tau);
    if (info) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "ungqr", info);
  } else {
    for (tfs_i64 i = 0; i < m * qc; i++) cst(q, f, i, i / qc == i % qc);
  }
  rt_unhold(mk);
  free(tau);
}

/* svd: gesdd; s real (TF's tf.linalg.svd takes the real part of the op's complex s), v = vt^H */
static void svd_one(OpCall *c, bool f, void *w, tfs_i64 m, tfs_i64 n, tfs_i64 b) {
  tfs_i64 p = m < n ? m : n;
  bool full = op_attr_bool(c, 0, false), uv = c->nout == 3;
  tfs_i64 uc = full ? m : p, vc = full ? n : p;
  size_t es = f ? 8 : 16;
  char *s = (char *)tensor_data(c->out[0]) + (size_t)(b * p) * es / 2;
  char *u = uv ? (char *)tensor_data(c->out[1]) + (size_t)(b * m * uc) * es : NULL;
  char *v = uv ? (char *)tensor_data(c->out[2]) + (size_t)(b * n * vc) * es : NULL;
  if (p == 0) {
    for (tfs_i64 i = 0; uv && i < m * uc; i++) cst(u, f, i, i / uc == i % uc);
    for (tfs_i64 i = 0; uv && i < n * vc; i++) cst(v, f, i, i / vc == i % vc);
    return;
  }
  int mk;
  void *vt = hold_buf_at((size_t)(n * n + 1) * es, &mk), *dummy = hold_buf(es);
  char jobz = !uv ? 'N' : full ? 'A' : 'S';
  void *ub = uv ? (void *)u : dummy;
  bool finite = true;
  for (tfs_i64 i = 0; i < m * n; i++) finite &= isfinite(creal(cld(w, f, i))) && isfinite(cimag(cld(w, f, i)));
  int info = !finite ? 1 : f ? LAPACKE_cgesdd(ROW, jobz, m, n, w, n, (float *)s, ub, uv ? uc : 1, vt, n)
                             : LAPACKE_zgesdd(ROW, jobz, m, n, w, n, (double *)s, ub, uv ? uc : 1, vt, n);
  if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "gesdd", info);
  if (info > 0) {   /* NaN or inf (LAPACKE refuses them), or no convergence: no error, TF's SvdOp fills its outputs with
                     * numeric_limits<complex>::quiet_NaN(), which for std::complex (not specialised) is 0 */
    for (tfs_i64 i = 0; i < p; i++) rst(s, f, i, 0);
    for (tfs_i64 i = 0; uv && i < m * uc; i++) cst(u, f, i, 0);
    for (tfs_i64 i = 0; uv && i < n * vc; i++) cst(v, f, i, 0);
  }
  for (tfs_i64 i = 0; uv && !info && i < n; i++)
    for (tfs_i64 j = 0; j < vc; j++) cst(v, f, i * vc + j, conj(cld(vt, f, j * n + i)));
  rt_unhold(mk);
  free(vt);
  free(dummy);
}

/* the factorizations over each matrix of the batch */
static void k_linalg_cplx_fact(OpCall *c, Tensor *a, bool f) {
  size_t es = f ? 8 : 16;
  tfs_i64 m = a->shape[a->rank - 2], n = a->shape[a->rank - 1], nb = batches(a);
  int mk;
  void *w = hold_buf_at((size_t)(m * n) * es, &mk);
  lapack_int *ipiv = hold_buf(sizeof(lapack_int) * (size_t)(n + 1));
  for (tfs_i64 b = 0; b < nb; b++) {
    memcpy(w, (const char *)tensor_data(a) + (size_t)(b * m * n) * es, (size_t)(m * n) * es);
    switch (c->op->id) {
      case OP_LOG_MATRIX_DETERMINANT: slogdet_one(c, f, w, n, ipiv, b); break;
      case OP_LU: lu_one(c, f, w, n, ipiv, b, es); break;
      case OP_QR: qr_one(c, f, w, m, n, b); break;
      case OP_SVD: svd_one(c, f, w, m, n, b); break;
      default: herm_one(c, f, w, n, b, es); break;
    }
  }
  rt_unhold(mk);
  free(w);
  free(ipiv);
}

/* inv (adjoint: inv(A^H) = inv(A)^H) and det (the LU diagonal's product, negated per row swap) */
void k_linalg_cplx(OpCall *c) {
  Tensor *a = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(a));
  bool f = a->dtype == DT_COMPLEX64;
  if (c->op->id != OP_MATRIX_INVERSE && c->op->id != OP_MATRIX_DETERMINANT) {
    k_linalg_cplx_fact(c, a, f);
    rt_unhold(mark);
    tensor_release(a);
    return;
  }
  size_t es = f ? 8 : 16;
  tfs_i64 n = a->shape[a->rank - 1], nb = batches(a);
  void *w = hold_buf((size_t)(n * n) * es);
  lapack_int *ipiv = hold_buf(sizeof(lapack_int) * (size_t)n + 1);
  for (tfs_i64 b = 0; b < nb; b++) {
    memcpy(w, (const char *)tensor_data(a) + (size_t)(b * n * n) * es, (size_t)(n * n) * es);
    if (c->op->id == OP_MATRIX_INVERSE) {
      if (n == 0) continue;
      int info = getrf(f, n, w, ipiv);
      if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Input is not invertible.");
      if (info == 0) info = f ? LAPACKE_cgetri(ROW, n, w, n, ipiv) : LAPACKE_zgetri(ROW, n, w, n, ipiv);
      if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Input is not invertible.");
      if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "getrf/getri", info);
      if (op_attr_bool(c, 0, false)) adjoint_sq(w, f, n);
      memcpy((char *)tensor_data(c->out[0]) + (size_t)(b * n * n) * es, w, (size_t)(n * n) * es);
      continue;
    }
    double _Complex det = 1;   /* a zero pivot (info > 0) leaves a zero on the diagonal: det 0 */
    if (n > 0) {
      int info = getrf(f, n, w, ipiv);
      if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "getrf", info);
      for (tfs_i64 i = 0; i < n; i++) {
        double _Complex d = f ? (double _Complex)((float _Complex *)w)[i * n + i] : ((double _Complex *)w)[i * n + i];
        det = ipiv[i] != i + 1 ? -det * d : det * d;
      }
    }
    if (f) ((float _Complex *)tensor_data(c->out[0]))[b] = (float _Complex)det;
    else ((double _Complex *)tensor_data(c->out[0]))[b] = det;
  }
  rt_unhold(mark);
  tensor_release(a);
  free(w);
  free(ipiv);
}

/* one solve A X = B in place of x (adjoint: A^H X = B, getrs 'C'), for k_linalg_solve's batch loop; w holds
 * n x n elements, ipiv n */
void k_linalg_solve_cplx(OpCall *c, const void *ap, void *x, tfs_i64 n, tfs_i64 k, bool adj, void *w, void *ipiv) {
  bool f = c->in[0]->dtype == DT_COMPLEX64;
  memcpy(w, ap, (size_t)(n * n) * (f ? 8 : 16));
  int info = getrf(f, n, w, ipiv);
  if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Input matrix is not invertible.");
  if (info == 0)
    info = f ? LAPACKE_cgetrs(ROW, adj ? 'C' : 'N', n, k, w, n, ipiv, (float _Complex *)x, k)
             : LAPACKE_zgetrs(ROW, adj ? 'C' : 'N', n, k, w, n, ipiv, (double _Complex *)x, k);
  if (info) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "getrf/getrs", info);
}

/* one triangular solve in place of x (BLAS trsm; adjoint: A^H X = B) */
void k_trisolve_cplx(bool f, const void *ap, void *x, tfs_i64 n, tfs_i64 k, bool lower, bool adj) {
  CBLAS_UPLO up = lower ? CblasLower : CblasUpper;
  CBLAS_TRANSPOSE tr = adj ? CblasConjTrans : CblasNoTrans;
  if (f) {
    float _Complex one = 1;
    cblas_ctrsm(CblasRowMajor, CblasLeft, up, tr, CblasNonUnit, n, k, &one, ap, n, x, k);
  } else {
    double _Complex one = 1;
    cblas_ztrsm(CblasRowMajor, CblasLeft, up, tr, CblasNonUnit, n, k, &one, ap, n, x, k);
  }
}
