/* ndassign.c — numpy's writes through arrays and their views: a[key] = v, a += b, values broadcast and cast into the destination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"
#include "tensor/tensor.h"

static void shape_text(StrBuf *b, int rank, const tfs_i64 *shape) {
  sb_putc(b, '(');
  for (int i = 0; i < rank; i++) sb_printf(b, i ? ",%lld" : "%lld", (long long)shape[i]);
  if (rank == 1) sb_putc(b, ',');
  sb_putc(b, ')');
}

/* A Python float, or a list/tuple holding one at any depth. */
static bool holds_float(Val v) {
  if (v.tag == VT_FLOAT) return true;
  if (!val_is(v, &list_type) && !val_is(v, &tuple_type)) return false;
  tfs_i64 n;
  const Val *items;
  seq_items(v, &n, &items);
  for (tfs_i64 i = 0; i < n; i++)
    if (holds_float(items[i])) return true;
  return false;
}

/* v as a tensor of dtype dt (owned): numpy casts what it stores unsafely (2.7 into an int array is 2). */
static Tensor *value_as(Val v, DType dt) {
  Tensor *t = val_as_tensor(v);
  Val tv;
  if (t) tv = val_incref(v);
  else {
    /* floats (also inside lists) stored into an int or bool array: their own dtype first, then numpy's cast */
    bool via_default = dt == DT_BOOL || (!dtype_info[dt].is_float && holds_float(v));
    tv = val_obj(tensor_from_val(v, via_default ? -1 : (int)dt));
  }
  int hm = rt_hold_val(tv);
  t = val_as_tensor(tv);
  if (t->dtype != dt) {
    if (dtype_holds_refs(dt) != dtype_holds_refs(t->dtype))
      rt_throw(ERR_VALUE, "could not convert %s to %s", dtype_info[t->dtype].name, dtype_info[dt].name);
    Val dv = dtype_val(dt);
    OpAttrs at = {1, {dv}};
    Val c = op_apply(&op_defs[OP_CAST], 1, &tv, &at);
    rt_unhold(hm);
    TFS_DECREF(tv);
    return val_tensor(c);
  }
  rt_unhold(hm);
  Tensor *r = tensor_retain(t);
  TFS_DECREF(tv);
  return r;
}

/* dst[...] = src, src broadcast to dst's shape (numpy's rules and error); dst is a strided view. */
void nd_assign(Tensor *dst, Tensor *src) {
  tfs_i64 st[TFS_MAX_RANK];
  int lead = src->rank - dst->rank;
  bool ok = true;
  for (int k = 0; k < lead && ok; k++) ok = src->shape[k] == 1;   /* numpy drops leading 1s of the value */
  for (int d = 0; d < dst->rank && ok; d++) {
    int s = d + lead;
    if (s < 0) st[d] = 0;
    else if (src->shape[s] == dst->shape[d]) st[d] = src->strides[s];
    else if (src->shape[s] == 1) st[d] = 0;
    else ok = false;
  }
  if (!ok) {
    if (dst->rank == 0) rt_throw(ERR_VALUE, "setting an array element with a sequence.");
    StrBuf b;
    sb_init(&b);
    rt_hold_sb(&b);
    /* errindex: could not broadcast input array from shape … into shape … */
    sb_puts(&b, "could not broadcast input array from shape ");
    shape_text(&b, src->rank, src->shape);
    sb_puts(&b, " into shape ");
    shape_text(&b, dst->rank, dst->shape);
    sb_putc(&b, 0);
    rt_throw(ERR_VALUE, "%s", b.data);
  }
  Tensor *own = NULL;
  if (src->buf == dst->buf) src = own = tensor_copy(src);   /* overlapping (a[1:] = a[:-1]): read a snapshot */
  if (own) {
    lead = 0;   /* tensor_copy is packed: recompute the broadcast strides over it */
    tfs_i64 s = 1;
    for (int d = dst->rank - 1; d >= 0; d--) {
      int k = d - (dst->rank - own->rank);
      st[d] = k < 0 || own->shape[k] == 1 ? 0 : s;
      if (k >= 0) s *= own->shape[k];
    }
  }
  size_t es = (size_t)dtype_info[dst->dtype].size;
  char *db = dst->buf->data, *sb = src->buf->data;
  bool refs = dtype_holds_refs(dst->dtype);
  tfs_i64 idx[TFS_MAX_RANK] = {0}, so = src->offset, dof = dst->offset;
  for (tfs_i64 i = 0; i < dst->size; i++) {
    if (refs) {
      Obj **d = (Obj **)(db + (size_t)dof * es), *o = ((Obj **)(sb + (size_t)so * es))[0];
      if (o) TFS_INCREF(val_obj(o));
      if (*d) TFS_DECREF(val_obj(*d));
      *d = o;
    } else {
      memcpy(db + (size_t)dof * es, sb + (size_t)so * es, es);
    }
    for (int d = dst->rank - 1; d >= 0; d--) {   /* odometer over dst's index */
      dof += dst->strides[d];
      so += st[d];
      if (++idx[d] < dst->shape[d]) break;
      dof -= dst->strides[d] * dst->shape[d];
      so -= st[d] * dst->shape[d];
      idx[d] = 0;
    }
  }
  if (own) tensor_release(own);
}

/* a[key] = v for a basic key (ints, slices, None, ...): written in place, through every view of a's memory. */
void nd_setitem_basic(Val self, Val key, Val v) {
  NdArray *a = (NdArray *)self.u.o;
  Tensor *src = value_as(v, a->t->dtype);
  int hm = rt_hold_val(val_obj(src));
  ndarray_prepare_write(a);
  OpAttrs at = {1, {key}};
  Val r = op_apply(&op_defs[OP_STRIDED_SLICE], 1, &self, &at);   /* a view on a's buffer */
  rt_hold_val(r);
  nd_assign(val_tensor(r), src);
  rt_unhold(hm);
  TFS_DECREF(r);
  tensor_release(src);
}

/* a op= b: numpy computes into a (same_kind casting), so every view of a sees the result. */
Val nd_inplace(int op, Val a, Val b, Val (*binop)(int, Val, Val)) {
  static const char *const ufunc[BIN__COUNT] = {
    [BIN_ADD] = "add", [BIN_SUB] = "subtract", [BIN_MUL] = "multiply", [BIN_DIV] = "divide",
    [BIN_FLOORDIV] = "floor_divide", [BIN_MOD] = "remainder", [BIN_POW] = "power", [BIN_MATMUL] = "matmul",
    [BIN_LSHIFT] = "left_shift", [BIN_RSHIFT] = "right_shift", [BIN_BITAND] = "bitwise_and",
    [BIN_BITOR] = "bitwise_or", [BIN_BITXOR] = "bitwise_xor",
  };
  if (!val_is(a, &ndarray_type)) return val_undef();   /* numpy scalars rebind, as immutable numbers */
  NdArray *na = (NdArray *)a.u.o;
  Val r = binop(op, a, b);
  if (val_is_undef(r)) return r;
  int hm = rt_hold_val(r);
  Tensor *rt = val_as_tensor(r);
  if (!rt) { rt_unhold(hm); return r; }
  DType ad = na->t->dtype, rd = rt->dtype;
  bool narrows = (dtype_info[rd].is_float && !dtype_info[ad].is_float) || (ad == DT_BOOL && rd != DT_BOOL);
  if (narrows) {
    char msg[200];
    snprintf(msg, sizeof msg, "Cannot cast ufunc '%s' output from dtype('%s') to dtype('%s') with casting rule 'same_kind'",
             ufunc[op], dtype_info[rd].name, dtype_info[ad].name);
    ndarray_raise_cast_error(msg);
  }
  bool same = rt->rank == na->t->rank;
  for (int d = 0; same && d < rt->rank; d++) same = rt->shape[d] == na->t->shape[d];
  if (!same) {
    StrBuf s;
    sb_init(&s);
    rt_hold_sb(&s);
    /* errindex: non-broadcastable output operand with shape … doesn't match the broadcast shape … */
    sb_puts(&s, "non-broadcastable output operand with shape ");
    shape_text(&s, na->t->rank, na->t->shape);
    sb_puts(&s, " doesn't match the broadcast shape ");
    shape_text(&s, rt->rank, rt->shape);
    sb_putc(&s, 0);
    rt_throw(ERR_VALUE, "%s", s.data);
  }
  Tensor *src = value_as(r, ad);
  rt_hold_val(val_obj(src));
  ndarray_prepare_write(na);
  nd_assign(na->t, src);
  rt_unhold(hm);
  tensor_release(src);
  TFS_DECREF(r);
  return val_incref(a);
}
