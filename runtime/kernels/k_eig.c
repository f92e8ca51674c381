/* k_eig.c — tf.linalg.eig and eigvals (TF's Eig op): eigenvalues and right eigenvectors of general square matrices
 * [..., N, N] through LAPACKE's cgeev/zgeev on the input made complex, ordered and normalized as TF's Eigen
 * ComplexEigenSolver leaves them (ascending |e|, unit-norm columns). */
#include <complex.h>
#undef I
#undef complex
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

/* shape: e [..., N] and v [..., N, N] ([..., 0, 0] without compute_v), both Tout: complex64 for float32 and
 * complex64 input, complex128 for float64 and complex128 (a Tout of the other precision is TF's error too). */
void meta_eig(OpCall *c) {
  const TMeta *a = &c->inm[0];
  if (a->rank >= 0 && a->rank < 2) op_fail(c, ERR_INVALID_ARGUMENT, "Input tensor %d must have rank >= 2, got %d", 0, a->rank);
  tfs_i64 m = a->rank >= 2 ? a->shape[a->rank - 2] : -1, n = a->rank >= 2 ? a->shape[a->rank - 1] : -1;
  if (m >= 0 && n >= 0 && m != n) op_fail(c, ERR_INVALID_ARGUMENT, "Input matrix must be square.");
  if (n < 0) n = m;
  bool single = a->dtype == DT_FLOAT32 || a->dtype == DT_COMPLEX64;
  DType want = single ? DT_COMPLEX64 : DT_COMPLEX128;
  int tout = op_attr_dtype(c, 1, want);
  if (tout != DT_COMPLEX64 && tout != DT_COMPLEX128)
    op_fail(c, ERR_INVALID_ARGUMENT, "Value for attr 'Tout' of %s is not in the list of allowed values: complex64, complex128 ; NodeDef: {{node Eig}}",
            dtype_short_name((DType)tout));
  bool vecs = op_attr_bool(c, 0, true);
  op_reserve_outputs(c, 2);
  for (int o = 0; o < 2; o++) {
    TMeta *t = &c->outm[o];
    t->dtype = (DType)tout;
    if (a->rank < 0) { t->rank = -1; continue; }
    int nb = a->rank - 2;
    for (int i = 0; i < nb; i++) t->shape[i] = a->shape[i];
    t->shape[nb] = o == 0 ? n : vecs ? n : 0;
    if (o == 1) t->shape[nb + 1] = vecs ? n : 0;
    t->rank = nb + 1 + o;
  }
}

/* element i of a real or complex matrix as a double complex */
static double _Complex elem(const void *p, DType dt, tfs_i64 i) {
  switch (dt) {
    case DT_FLOAT32: return ((const float *)p)[i];
    case DT_FLOAT64: return ((const double *)p)[i];
    case DT_COMPLEX64: return ((const float _Complex *)p)[i];
    default: return ((const double _Complex *)p)[i];
  }
}

static void *hold_buf(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(p);
  return p;
}

void k_eig(OpCall *c) {
  blas_ready();   /* OpenBLAS's core and thread count are set before its first call (blas.c) */
  Tensor *a = tensor_contiguous(c->in[0]);
  int mark = rt_hold_val(val_obj(a));
  tfs_i64 n = a->shape[a->rank - 1], nb = 1;
  for (int i = 0; i < a->rank - 2; i++) nb *= a->shape[i];
  bool vecs = op_attr_bool(c, 0, true);
  bool f = c->out[0]->dtype == DT_COMPLEX64;   /* the precision LAPACK works in: Tout's */
  size_t es = f ? 8 : 16;
  void *w = hold_buf((size_t)(n * n) * es), *e = hold_buf((size_t)n * es), *v = hold_buf((size_t)(n * n) * es);
  double _Complex *ev = hold_buf(sizeof(double _Complex) * (size_t)(n * n + n) + 1);
  for (tfs_i64 b = 0; b < nb; b++) {
    if (n == 0) break;
    const char *src = (const char *)tensor_data(a) + (size_t)(b * n * n) * (size_t)dtype_info[a->dtype].size;
    for (tfs_i64 i = 0; i < n * n; i++) {
      double _Complex x = elem(src, a->dtype, i);
      if (f) ((float _Complex *)w)[i] = (float _Complex)x;
      else ((double _Complex *)w)[i] = x;
    }
    char jobv = vecs ? 'V' : 'N';
    bool nan = false;   /* LAPACKE refuses NaN input; Eigen's solver gives NaN results, as here */
    for (tfs_i64 i = 0; i < n * n; i++) nan |= elem(w, f ? DT_COMPLEX64 : DT_COMPLEX128, i) != elem(w, f ? DT_COMPLEX64 : DT_COMPLEX128, i);
    for (tfs_i64 i = 0; nan && i < n; i++) ev[i] = NAN;
    int info = nan ? 0
               : f ? LAPACKE_cgeev(LAPACK_ROW_MAJOR, 'N', jobv, n, w, n, e, NULL, 1, v, n)
                   : LAPACKE_zgeev(LAPACK_ROW_MAJOR, 'N', jobv, n, w, n, e, NULL, 1, v, n);
    if (info > 0) op_fail(c, ERR_INVALID_ARGUMENT, "Eigen decomposition was not successful. The input might not be valid.");
    if (info < 0) op_fail(c, ERR_RUNTIME, "%s: LAPACK returned %d", "geev", info);
    double _Complex *vals = ev, *vv = ev + n;
    for (tfs_i64 i = 0; i < n && !nan; i++) vals[i] = f ? ((float _Complex *)e)[i] : ((double _Complex *)e)[i];
    for (tfs_i64 i = 0; vecs && i < n * n; i++) vv[i] = nan ? NAN : f ? ((float _Complex *)v)[i] : ((double _Complex *)v)[i];
    /* Eigen's order: position i takes the first smallest |e| among i..n-1 (a swap, so ties keep no stable order) */
    for (tfs_i64 i = 0; i < n; i++) {
      tfs_i64 k = i;
      for (tfs_i64 j = i + 1; j < n; j++)
        if (cabs(vals[j]) < cabs(vals[k])) k = j;
      if (k == i) continue;
      double _Complex t = vals[i];
      vals[i] = vals[k], vals[k] = t;
      for (tfs_i64 r = 0; vecs && r < n; r++) t = vv[r * n + i], vv[r * n + i] = vv[r * n + k], vv[r * n + k] = t;
    }
    char *oe = (char *)tensor_data(c->out[0]) + (size_t)(b * n) * es;
    char *ov = vecs ? (char *)tensor_data(c->out[1]) + (size_t)(b * n * n) * es : NULL;
    for (tfs_i64 i = 0; i < n; i++) {
      if (f) ((float _Complex *)oe)[i] = (float _Complex)vals[i];
      else ((double _Complex *)oe)[i] = vals[i];
    }
    for (tfs_i64 i = 0; vecs && i < n * n; i++) {   /* geev's columns already have unit 2-norm */
      if (f) ((float _Complex *)ov)[i] = (float _Complex)vv[i];
      else ((double _Complex *)ov)[i] = vv[i];
    }
  }
  rt_unhold(mark);
  tensor_release(a);
  free(w);
  free(e);
  free(v);
  free(ev);
}
