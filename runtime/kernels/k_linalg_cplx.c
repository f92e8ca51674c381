/* k_linalg_cplx.c — tf.linalg.inv, det and solve of complex64/complex128 matrices through LAPACKE's c and z
 * routines (getrf, getri, getrs), batched over leading dimensions as k_linalg.c's real ones. */
#include <complex.h>
#undef I
#undef complex
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

#define ROW LAPACK_ROW_MAJOR

static void *hold_buf(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(p);
  return p;
}

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

/* inv (adjoint: inv(A^H) = inv(A)^H) and det (the LU diagonal's product, negated per row swap) */
void k_linalg_cplx(OpCall *c) {
  Tensor *a = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(a));
  bool f = a->dtype == DT_COMPLEX64;
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
