/* npobjview.c — views of numpy object arrays: an offset and strides into the list the base array owns, and its elements in C order. */
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "tensor/tensor.h"

tfs_i64 npobj_pos(const NpObj *a, tfs_i64 i) {
  tfs_i64 p = a->offset;
  for (int d = a->rank - 1; d >= 0; d--) {
    p += (i % a->shape[d]) * a->strides[d];
    i /= a->shape[d];
  }
  return p;
}

/* The elements are the whole list in C order (a fresh array, or a view that is all of it). */
static bool contiguous_whole(const NpObj *a) {
  tfs_i64 k = 1;
  for (int d = a->rank - 1; d >= 0; d--) {
    if (a->shape[d] != 1 && a->strides[d] != k) return false;
    k *= a->shape[d];
  }
  return (a->offset == 0 || k == 0) && k == ((List *)a->items.u.o)->len;
}

Val npobj_values(Val v) {
  const NpObj *a = (const NpObj *)v.u.o;
  if (contiguous_whole(a)) return val_incref(a->items);
  tfs_i64 n = 1;
  for (int d = 0; d < a->rank; d++) n *= a->shape[d];
  const List *l = (const List *)a->items.u.o;
  Val out = list_new(n);
  for (tfs_i64 i = 0; i < n; i++) list_append(out, l->items[npobj_pos(a, i)]);   /* npobj_view checked the reach */
  return out;
}

Val npobj_view(Val base, tfs_i64 offset, int rank, const tfs_i64 *shape, const tfs_i64 *strides) {
  const NpObj *b = (const NpObj *)base.u.o;
  tfs_i64 len = ((List *)b->items.u.o)->len, lo = offset, hi = offset, n = 1;
  for (int d = 0; d < rank; d++) {   /* every element the view can reach is in the list */
    n *= shape[d];
    if (shape[d] > 0) {
      tfs_i64 e = (shape[d] - 1) * strides[d];
      if (e < 0) lo += e; else hi += e;
    }
  }
  if (n > 0 && (lo < 0 || hi >= len)) rt_throw(ERR_VALUE, "an object array view of %lld elements reaches past its base's %lld", (long long)n, (long long)len);
  NpObj *a = obj_new(&npobj_type, sizeof(NpObj));
  a->items = val_incref(b->items);
  a->rank = rank;
  memcpy(a->shape, shape, sizeof(tfs_i64) * (size_t)rank);
  memcpy(a->strides, strides, sizeof(tfs_i64) * (size_t)rank);
  a->offset = offset;
  a->base = val_incref(val_is_undef(b->base) ? base : b->base);   /* numpy's .base is the array owning the data */
  return val_obj(a);
}
