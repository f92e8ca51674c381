/* k_matfunc.c — matrix functions by Schur form (tf.linalg.sqrtm, logm), batched over [..., M, M]: LAPACK gees
 * reduces each matrix, the function is taken of the (quasi-)triangular factor, and the Schur vectors bring it back.
 * Computed in float64 / complex128 whatever the input's precision, then rounded to it. */
#include <cblas.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

typedef double complex zc;

static void *scratch(size_t bytes) {
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(p);
  return p;
}

/* ---- real: the quasi-triangular square root (Higham 1987), as Eigen's MatrixSquareRootQuasiTriangular ---- */

/* Solves r1 x + x r2 = rhs for the p x q block x (p, q <= 2; r1 p x p, r2 q x q, all row-major, leading dim n)
 * through its Kronecker form, at most 4 x 4. */
static void small_sylvester(const double *r1, const double *r2, int n, int p, int q, double *x) {
  double k[16] = {0}, v[4];
  lapack_int piv[4];
  int m = p * q;
  for (int r = 0; r < p; r++)
    for (int s = 0; s < q; s++) {
      int row = r * q + s;
      v[row] = x[r * n + s];
      for (int t = 0; t < p; t++) k[row * m + t * q + s] += r1[r * n + t];
      for (int t = 0; t < q; t++) k[row * m + r * q + t] += r2[t * n + s];
    }
  if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, m, 1, k, m, piv, v, 1) > 0) {
    for (int i = 0; i < m; i++) v[i] = NAN;   /* eigenvalues summing to zero: no square root in the principal branch */
  }
  for (int r = 0; r < p; r++)
    for (int s = 0; s < q; s++) x[r * n + s] = v[r * q + s];
}

/* r = sqrt(t) for quasi-upper-triangular t (n x n); 2 x 2 diagonal blocks hold complex conjugate eigenvalues;
 * start: room for n + 1 block starts. */
static void sqrt_quasi(const double *t, double *r, int n, int *start) {
  int nb = 0;
  for (int i = 0; i < n; i += (i + 1 < n && t[(i + 1) * n + i] != 0) ? 2 : 1) start[nb++] = i;
  start[nb] = n;
  memset(r, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int j = 0; j < nb; j++) {
    int c = start[j], q = start[j + 1] - c;
    if (q == 1) {
      r[c * n + c] = sqrt(t[c * n + c]);   /* a negative real eigenvalue: NaN, as Eigen */
    } else {
      /* eigenvalues theta +- i mu: sqrt = alpha I + (T - theta I) / (2 alpha), alpha the principal root's real part */
      double a = t[c * n + c], b = t[c * n + c + 1], cc = t[(c + 1) * n + c], d = t[(c + 1) * n + c + 1];
      double theta = (a + d) / 2, mu2 = -((a - d) * (a - d) / 4 + b * cc);
      double alpha = sqrt((sqrt(theta * theta + mu2) + theta) / 2);
      r[c * n + c] = alpha + (a - theta) / (2 * alpha);
      r[c * n + c + 1] = b / (2 * alpha);
      r[(c + 1) * n + c] = cc / (2 * alpha);
      r[(c + 1) * n + c + 1] = alpha + (d - theta) / (2 * alpha);
    }
    for (int i = j - 1; i >= 0; i--) {
      int ri = start[i], p = start[i + 1] - ri;
      double *x = &r[ri * n + c];
      for (int u = 0; u < p; u++)
        for (int v = 0; v < q; v++) {
          double s = t[(ri + u) * n + c + v];
          for (int k = start[i + 1]; k < c; k++) s -= r[(ri + u) * n + k] * r[k * n + c + v];
          x[u * n + v] = s;
        }
      small_sylvester(&r[ri * n + ri], &r[c * n + c], n, p, q, x);
    }
  }
}

/* ---- complex: the upper-triangular square root (Bjorck and Hammarling) and logarithm ---- */

static void sqrt_tri(const zc *t, zc *r, int n) {
  memset(r, 0, sizeof(zc) * (size_t)n * (size_t)n);
  for (int j = 0; j < n; j++) {
    r[j * n + j] = csqrt(t[j * n + j]);
    for (int i = j - 1; i >= 0; i--) {
      zc s = t[i * n + j];
      for (int k = i + 1; k < j; k++) s -= r[i * n + k] * r[k * n + j];
      r[i * n + j] = s / (r[i * n + i] + r[j * n + j]);
    }
  }
}

/* Gauss-Legendre nodes x[k] and weights w[k] on [0, 1] (Newton's iteration on P_m). */
static void gauss_legendre(int m, double *x, double *w) {
  for (int k = 0; k < m; k++) {
    double z = cos(M_PI * (k + 0.75) / (m + 0.5)), dp = 1;
    for (int it = 0; it < 100; it++) {
      double p0 = 1, p1 = z;
      for (int j = 2; j <= m; j++) {
        double p2 = ((2 * j - 1) * z * p1 - (j - 1) * p0) / j;
        p0 = p1;
        p1 = p2;
      }
      dp = m * (z * p1 - p0) / (z * z - 1);
      double dz = p1 / dp;
      z -= dz;
      if (fabs(dz) < 1e-16) break;
    }
    x[k] = (1 - z) / 2;
    w[k] = 1 / ((1 - z * z) * dp * dp);
  }
}

/* l = log(t) for upper-triangular t: square roots until t is near I, then log(I + X) = int_0^1 X (I + sX)^-1 ds by
 * 8-point Gauss-Legendre (the [8/8] Pade approximant: full double precision for ||X||_1 <= 0.36, Higham 2001),
 * times 2^s.  work: room for three n x n matrices. */
#define LOGM_NODES 8
static void log_tri(zc *t, zc *l, int n, zc *work) {
  size_t nn = (size_t)n * (size_t)n;
  zc *r = work, *a = work + nn, *y = work + 2 * nn;
  int s = 0;
  for (; s < 64; s++) {
    double norm = 0;
    for (int j = 0; j < n; j++) {
      double col = 0;
      for (int i = 0; i <= j; i++) col += cabs(t[i * n + j] - (i == j));
      if (col > norm || isnan(col)) norm = col;
    }
    if (!(norm > 0.25)) break;
    sqrt_tri(t, r, n);
    memcpy(t, r, sizeof(zc) * nn);
  }
  for (int i = 0; i < n; i++) t[i * n + i] -= 1;   /* t is X now */
  double xs[LOGM_NODES], ws[LOGM_NODES];
  gauss_legendre(LOGM_NODES, xs, ws);
  memset(l, 0, sizeof(zc) * nn);
  const zc one = 1;
  for (int k = 0; k < LOGM_NODES; k++) {
    for (size_t e = 0; e < nn; e++) a[e] = xs[k] * t[e], y[e] = t[e];
    for (int i = 0; i < n; i++) a[i * n + i] += 1;
    cblas_ztrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n, n, &one, a, n, y, n);
    for (size_t e = 0; e < nn; e++) l[e] += ws[k] * y[e];
  }
  double scale = ldexp(1.0, s);
  for (size_t e = 0; e < nn; e++) l[e] *= scale;
}

/* ---- the kernel ---- */

/* out = z f z^H (real: z f z^T) */
static void back_transform(bool cplx, const void *z, const void *f, void *tmp, void *out, int n) {
  if (cplx) {
    const zc one = 1, zero = 0;
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, z, n, f, n, &zero, tmp, n);
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasConjTrans, n, n, n, &one, tmp, n, z, n, &zero, out, n);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, z, n, f, n, 0, tmp, n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1, tmp, n, z, n, 0, out, n);
  }
}

/* f(a) into a for one n x n matrix (float64 or complex128): Schur form, f of the triangular factor, back. */
static void matfunc_one(OpCall *c, bool cplx, int n, void *a, void *z, void *f, void *tmp, void *w, double *wr, double *wi,
                        int *start) {
  lapack_int sdim = 0, info;
  if (cplx) info = LAPACKE_zgees(LAPACK_ROW_MAJOR, 'V', 'N', NULL, n, (lapack_complex_double *)a, n, &sdim,
                                 (lapack_complex_double *)w, (lapack_complex_double *)z, n);
  else info = LAPACKE_dgees(LAPACK_ROW_MAJOR, 'V', 'N', NULL, n, (double *)a, n, &sdim, wr, wi, (double *)z, n);
  if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Schur decomposition did not converge. The input might not be valid.");
  if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "gees", (int)info);
  if (c->op->id == OP_MATRIX_LOG) log_tri((zc *)a, (zc *)f, n, (zc *)tmp);
  else if (cplx) sqrt_tri((const zc *)a, (zc *)f, n);
  else sqrt_quasi((const double *)a, (double *)f, n, start);
  back_transform(cplx, z, f, tmp, a, n);
}

void k_matfunc(OpCall *c) {
  blas_ready();
  Tensor *in = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(in));
  DType dt = in->dtype;
  bool cplx = dtype_is_complex(dt), wide = dt == DT_FLOAT64 || dt == DT_COMPLEX128;
  int n = (int)in->shape[in->rank - 1];
  tfs_i64 nb = 1;
  for (int i = 0; i < in->rank - 2; i++) nb *= in->shape[i];
  size_t nn = (size_t)n * (size_t)n, es = cplx ? sizeof(zc) : sizeof(double), parts = cplx ? 2 : 1;
  char *a = scratch(es * nn), *z = scratch(es * nn), *f = scratch(es * nn), *tmp = scratch(es * nn * 3);
  int *start = scratch(sizeof(int) * (size_t)(n + 1));
  zc *w = scratch(sizeof(zc) * (size_t)(n + 1));
  double *wr = scratch(sizeof(double) * (size_t)(n + 1)), *wi = scratch(sizeof(double) * (size_t)(n + 1));
  for (tfs_i64 b = 0; b < nb && n > 0; b++) {
    size_t off = (size_t)b * nn * parts;
    for (size_t e = 0; e < nn * parts; e++)
      ((double *)a)[e] = wide ? ((const double *)tensor_data(in))[off + e] : ((const float *)tensor_data(in))[off + e];
    bool finite = true;
    for (size_t e = 0; e < nn * parts; e++) finite &= isfinite(((double *)a)[e]) != 0;
    if (finite) matfunc_one(c, cplx, n, a, z, f, tmp, w, wr, wi, start);
    else   /* no Schur form: NaN throughout, as Eigen's iteration leaves it */
      for (size_t e = 0; e < nn * parts; e++) ((double *)a)[e] = NAN;
    for (size_t e = 0; e < nn * parts; e++) {
      double v = ((double *)a)[e];
      if (wide) ((double *)tensor_data(c->out[0]))[off + e] = v;
      else ((float *)tensor_data(c->out[0]))[off + e] = (float)v;
    }
  }
  rt_unhold(mark);
  tensor_release(in);
  free(a), free(z), free(f), free(tmp), free(w), free(wr), free(wi), free(start);
}
