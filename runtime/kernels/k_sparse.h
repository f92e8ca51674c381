/* k_sparse.h — helpers the sparse kernels (k_sparse*.c) share: eager index reads, string references, row order. */
#ifndef TFS_K_SPARSE_H
#define TFS_K_SPARSE_H

#include "object/object.h"
#include "kernels/ops.h"

/* element i of an eager integer tensor given as input k, or -1 when it is absent or traced */
static inline tfs_i64 sparse_known_i(const OpCall *c, int k, tfs_i64 i) {
  const Tensor *t = c->in ? c->in[k] : NULL;
  return t && !t->sym && i < t->size ? tensor_get_i(t, i) : -1;
}

/* after a byte copy of string elements the copy holds references of its own */
static inline void sparse_own_strings(Tensor *t) {
  if (t->dtype != DT_STRING) return;
  Str **s = tensor_data(t);
  for (tfs_i64 i = 0; i < t->size; i++)
    if (s[i]) s[i]->hdr.rc++;
}

/* row-major order of row i of a [n, r] against row j of b [m, r] (TF's DimComparator): -1, 0 or 1 */
static inline int sparse_row_cmp(const Tensor *a, tfs_i64 i, const Tensor *b, tfs_i64 j, int r) {
  for (int d = 0; d < r; d++) {
    tfs_i64 u = tensor_get_i(a, i * r + d), v = tensor_get_i(b, j * r + d);
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

/* a shape vector's values as TF's Tensor::SummarizeValue writes them: "2 3" */
static inline void sparse_summarize(StrBuf *b, const Tensor *t) {
  for (tfs_i64 i = 0; i < t->size && i < 10; i++) sb_printf(b, i ? " %lld" : "%lld", (long long)tensor_get_i(t, i));
  if (t->size > 10) sb_puts(b, "...");
}

/* the byte size of one element of dtype dt */
static inline size_t sparse_esize(DType dt) { return (size_t)dtype_info[dt].size; }

#endif
