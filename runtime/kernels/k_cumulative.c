/* k_cumulative.c — Cumsum and Cumprod along one axis (exclusive, reverse), TF's kernels for the core API (issue 31). */
#include <string.h>

#include "kernels/ops.h"

/* shape: the input's shape and dtype; the axis must be in [-rank, rank). */
void meta_cumulative(OpCall *c) {
  const TMeta *a = &c->inm[0];
  c->outm[0] = *a;
  if (a->rank == 0) op_fail(c, ERR_INVALID_ARGUMENT, "ScanOp: Expected scan axis to be within [-0, 0) but got 0");
  tfs_i64 axis = op_attr_int(c, 0, 0);
  if (a->rank > 0 && (axis < -a->rank || axis >= a->rank))
    op_fail(c, ERR_INVALID_ARGUMENT, "ScanOp: Expected scan axis to be within [-%d, %d) but got %lld", a->rank, a->rank, (long long)axis);
  c->iscr[0] = axis < 0 && a->rank > 0 ? axis + a->rank : axis;
}

/* One scan of n elements at stride `inner`: o[k] = x[0] op ... op x[k] (exclusive: up to x[k-1]; reverse: from the end). */
#define SCAN(name, T, F, ID)                                                                                     \
  static void name(T *o, const T *x, tfs_i64 n, tfs_i64 inner, bool excl, bool rev) {                           \
    T acc = ID;                                                                                                   \
    for (tfs_i64 j = 0; j < n; j++) {                                                                             \
      tfs_i64 k = (rev ? n - 1 - j : j) * inner;                                                                  \
      if (excl) { o[k] = acc; acc = F(acc, x[k]); }                                                                    \
      else { acc = F(acc, x[k]); o[k] = acc; }                                                                         \
    }                                                                                                             \
  }
/* integers wrap on overflow, as TF's kernels (two's complement, without C's undefined behaviour) */
#define ADD(a, b) ((a) + (b))
#define MUL(a, b) ((a) * (b))
#define ADD32(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define MUL32(a, b) ((int32_t)((uint32_t)(a) * (uint32_t)(b)))
#define ADD64(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define MUL64(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))
SCAN(sum_f32, float, ADD, 0)
SCAN(sum_f64, double, ADD, 0)
SCAN(sum_i32, int32_t, ADD32, 0)
SCAN(sum_i64, int64_t, ADD64, 0)
SCAN(prod_f32, float, MUL, 1)
SCAN(prod_f64, double, MUL, 1)
SCAN(prod_i32, int32_t, MUL32, 1)
SCAN(prod_i64, int64_t, MUL64, 1)

void k_cumulative(OpCall *c) {
  Tensor *x = tensor_contiguous(c->in[0]), *o = c->out[0];
  int ax = (int)c->iscr[0];
  bool excl = op_attr_bool(c, 1, false), rev = op_attr_bool(c, 2, false), prod = c->op->id == OP_CUMPROD;
  tfs_i64 outer = 1, inner = 1, n = x->shape[ax];
  for (int d = 0; d < ax; d++) outer *= x->shape[d];
  for (int d = ax + 1; d < x->rank; d++) inner *= x->shape[d];
  char *od = tensor_data(o);
  const char *xd = tensor_data(x);
  size_t es = (size_t)dtype_info[x->dtype].size;
  for (tfs_i64 i = 0; i < outer; i++)
    for (tfs_i64 j = 0; j < inner; j++) {
      size_t off = (size_t)(i * n * inner + j) * es;
      void *op = od + off;
      const void *xp = xd + off;
      switch (x->dtype) {
        case DT_FLOAT32: (prod ? prod_f32 : sum_f32)(op, xp, n, inner, excl, rev); break;
        case DT_FLOAT64: (prod ? prod_f64 : sum_f64)(op, xp, n, inner, excl, rev); break;
        case DT_INT32: (prod ? prod_i32 : sum_i32)(op, xp, n, inner, excl, rev); break;
        default: (prod ? prod_i64 : sum_i64)(op, xp, n, inner, excl, rev); break;
      }
    }
  tensor_release(x);
}
