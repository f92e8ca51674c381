/* ndarrayobj.c — numpy.ndarray as a Python object: tolist, item, shape, numpy's promotion in arithmetic, comparison, indexing, iteration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "tensor/tensor.h"

/* Wrap an op result (owned tensor Val) as an ndarray value. */
static Val wrap(Val r) {
  if (!val_is_tensor(r)) return r;
  Val a = ndarray_new(val_tensor(r));   /* 0-d: a numpy scalar, as numpy's ufuncs and reductions give */
  TFS_DECREF(r);
  return a;
}

/* Element i as a Python value: a text array's elements are str, not bytes. */
static Val elem_item(const Tensor *t, tfs_i64 i, bool uni) {
  if (!uni) return tensor_item(t, i);
  const Str *e = ((Str **)t->buf->data)[tensor_elem_offset(t, i)];
  return str_new(e ? e->data : "", e ? e->len : 0);
}

static Val tolist_rec(const Tensor *t, int axis, tfs_i64 *flat, bool uni) {
  if (axis == t->rank) return elem_item(t, (*flat)++, uni);
  Val l = list_new(t->shape[axis]);
  for (tfs_i64 i = 0; i < t->shape[axis]; i++) {
    Val e = tolist_rec(t, axis + 1, flat, uni);
    list_append(l, e);
    TFS_DECREF(e);
  }
  return l;
}

static Val nd_tolist(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  tfs_i64 flat = 0;
  return tolist_rec(val_as_tensor(self), 0, &flat, ndarray_uwidth(self) > 0);
}

//! ndarray.tobytes(order='C')
//!   The array's elements as bytes in C order (numbers and bool; a text array's as UTF-32LE code points is not provided).
static Val nd_tobytes(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tobytes", .sig = "order='C'"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (val_is(a[0], &str_type) && strcmp(str_cstr(a[0]), "C"))
    rt_throw(ERR_VALUE, "ndarray.tobytes: only order='C' is provided");
  Tensor *t = val_as_tensor(self);
  if (t->dtype == DT_STRING) rt_throw(ERR_TYPE, "ndarray.tobytes of a text or bytes array is not provided");
  Tensor *c = tensor_contiguous(t);
  Val r = bytes_new(tensor_data(c), (size_t)(c->size * dtype_info[c->dtype].size));
  tensor_release(c);
  return r;
}

static Val nd_item(Val self, int n, const Val *args, const Kw *kw) {
  (void)args; (void)kw;
  Tensor *t = val_as_tensor(self);
  if (n == 1 && (args[0].tag == VT_INT || args[0].tag == VT_BOOL)) {   /* a.item(i): the i-th element in C order */
    tfs_i64 i = val_to_index(args[0], "item");
    if (i < -t->size || i >= t->size) {
      if (t->rank == 1) rt_throw(ERR_INDEX, "index %lld is out of bounds for axis 0 with size %lld", (long long)i, (long long)t->size);
      rt_throw(ERR_INDEX, "index %lld is out of bounds for size %lld", (long long)i, (long long)t->size);
    }
    return elem_item(t, i < 0 ? i + t->size : i, ndarray_uwidth(self) > 0);
  }
  if (n != 0 || t->size != 1) rt_throw(ERR_VALUE, "can only convert an array of size 1 to a Python scalar");
  return elem_item(t, 0, ndarray_uwidth(self) > 0);
}

static Val nd_abs(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  return wrap(op_apply1(OP_ABS, self));
}

/* The numpy module (stdlib/numpy.tfs) supplies the other methods (sum,
 * reshape, astype ...) and item assignment, written over the op table. */
static Val nd_methods = {VT_UNDEF, {0}};

void ndarray_set_methods(Val methods) {
  val_decref(nd_methods);
  nd_methods = val_incref(methods);
}

/* numpy's exception for an in-place result its array's dtype cannot hold (its class, from the numpy module). */
_Noreturn void ndarray_raise_cast_error(const char *msg) {
  Val cls = dict_get_str(nd_methods, "__cast_error__");
  /* errindex: Cannot cast ufunc '…' output from dtype('…') to dtype('…') with casting rule 'same_kind' */
  if (val_is_undef(cls)) rt_throw(ERR_TYPE, "%s", msg);
  val_decref(cls);   /* a class of the numpy module, which keeps it */
  exc_raise_class(cls, ERR_TYPE, msg);
}

static Val ndarray_getattr(Val self, const char *name) {
  Tensor *t = ((NdArray *)self.u.o)->t;
  if (!strcmp(name, "shape")) {
    Val tu = tuple_new(t->rank);
    for (int i = 0; i < t->rank; i++) ((Tuple *)tu.u.o)->items[i] = val_int(t->shape[i]);
    return tu;
  }
  if (!strcmp(name, "dtype") && ((NdArray *)self.u.o)->uwidth) return npdtype_unicode(((NdArray *)self.u.o)->uwidth);
  if (!strcmp(name, "dtype")) return val_obj(&npdtypes[t->dtype]);
  if (!strcmp(name, "itemsize") && ((NdArray *)self.u.o)->uwidth) return val_int(4 * (tfs_i64)((NdArray *)self.u.o)->uwidth);
  if (!strcmp(name, "nbytes") && ((NdArray *)self.u.o)->uwidth) return val_int(4 * (tfs_i64)((NdArray *)self.u.o)->uwidth * t->size);
  if (!strcmp(name, "ndim")) return val_int(t->rank);
  if (!strcmp(name, "base")) {   /* the array owning a view's memory; None for an owner */
    NdArray *b = ((NdArray *)self.u.o)->base;
    return b ? val_incref(val_obj(b)) : val_none();
  }
  if (!strcmp(name, "strides")) {   /* in bytes, as numpy (a text array's items: 4 bytes a code point) */
    int uw = ((NdArray *)self.u.o)->uwidth;
    Val tu = tuple_new(t->rank);
    for (int i = 0; i < t->rank; i++) ((Tuple *)tu.u.o)->items[i] = val_int(t->strides[i] * (uw ? 4 * uw : dtype_info[t->dtype].size));
    return tu;
  }
  if (!strcmp(name, "size")) return val_int(t->size);
  if (!strcmp(name, "tolist")) return builtin_new("ndarray.tolist", nd_tolist, self, NULL);
  if (!strcmp(name, "item")) return builtin_new("ndarray.item", nd_item, self, NULL);
  if (!strcmp(name, "tobytes")) return builtin_new("ndarray.tobytes", nd_tobytes, self, NULL);
  if (!strcmp(name, "__abs__")) return builtin_new("ndarray.__abs__", nd_abs, self, NULL);   /* abs(a) */
  Val f = dict_get_str(nd_methods, name);
  if (val_is_undef(f) && !strcmp(name, "T")) return wrap(op_apply1(OP_TRANSPOSE, self));   /* without the numpy module */
  if (val_is_undef(f)) return f;
  if (!strcmp(name, "T") || !strcmp(name, "itemsize") || !strcmp(name, "nbytes") || !strcmp(name, "flat") || !strcmp(name, "flags") ||
      !strcmp(name, "real") || !strcmp(name, "imag")) {
    Val r = rt_call(f, 1, &self, NULL);   /* properties */
    val_decref(f);
    return r;
  }
  return ndarray_bind(f, self, name);
}

/* numpy's promotion for two array dtypes: the smallest type holding both (a signed int twice an unsigned
 * one's size, float16 for 8-bit ints, float32 for 16-bit ones, float64 past those and for uint64 with a signed). */
static bool np_unsigned(DType d) { return d == DT_UINT8 || d == DT_UINT16 || d == DT_UINT32 || d == DT_UINT64; }
static DType np_promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DT_BOOL) return b;
  if (b == DT_BOOL) return a;
  int sa = dtype_info[a].size, sb = dtype_info[b].size;
  if (dtype_is_complex(a) || dtype_is_complex(b)) {   /* complex parts wide enough for the other: complex64 or complex128 */
    DType c = dtype_is_complex(a) ? a : b, x = c == a ? b : a;
    int part = dtype_info[c].size / 2, sx = dtype_info[x].size;
    int need = dtype_is_complex(x) ? sx / 2 : dtype_info[x].is_float ? sx : sx <= 2 ? 4 : 8;
    return (part > need ? part : need) == 4 ? DT_COMPLEX64 : DT_COMPLEX128;
  }
  bool fa = dtype_info[a].is_float, fb = dtype_info[b].is_float;
  if (fa && fb) return sa >= sb ? a : b;
  if (fa || fb) {
    int si = fa ? sb : sa, need = si == 1 ? 2 : si == 2 ? 4 : 8, sf = fa ? sa : sb;
    int sz = sf > need ? sf : need;
    return sz == 2 ? DT_FLOAT16 : sz == 4 ? DT_FLOAT32 : DT_FLOAT64;
  }
  bool ua = np_unsigned(a), ub = np_unsigned(b);
  if (ua == ub) return sa >= sb ? a : b;
  DType u = ua ? a : b, sg = ua ? b : a;
  if (dtype_info[sg].size > dtype_info[u].size) return sg;
  switch (dtype_info[u].size) {
  case 1: return DT_INT16;
  case 2: return DT_INT32;
  case 4: return DT_INT64;
  default: return DT_FLOAT64;
  }
}

static Val cast_to(Val v, DType dt) {
  if (!val_as_tensor(v)) {   /* a Python number: converted exactly (0.2 as float64, not through float32) */
    Tensor *t = tensor_from_val(v, dt);
    return val_obj(t);
  }
  Val dv = dtype_val(dt);
  OpAttrs at = {1, {dv}};
  return op_apply(&op_defs[OP_CAST], 1, &v, &at);
}

/* uint8 operands (images): the kernels take uint8 through int32, and numpy's uint8 results wrap as
 * a cast back does. A Python int outside 0..255 widens the array to int64 (numpy: int16/uint16, same
 * values). *ca and *cb are owned and may be replaced; VT_UNDEF when no operand is uint8. */
static Val np_apply_u8(OpId id, Val *ca, Val *cb) {
  Tensor *ta = val_as_tensor(*ca), *tb = val_as_tensor(*cb);
  bool ua = ta && ta->dtype == DT_UINT8, ub = tb && tb->dtype == DT_UINT8;
  if (!ua && !ub) return val_undef();
  if ((ua && tb && !ub) || (ub && ta && !ua)) return val_undef();   /* promoted already: not both uint8 */
  Val host = ua ? *cb : *ca;
  bool wide = !(ua && ub) && host.tag == VT_INT && (host.u.i < 0 || host.u.i > 255);
  DType via = wide ? DT_INT64 : DT_INT32;
  Val xa = ta ? cast_to(*ca, via) : val_incref(*ca), xb = tb ? cast_to(*cb, via) : val_incref(*cb);
  Val r = op_apply2(id, xa, xb);
  TFS_DECREF(xa);
  TFS_DECREF(xb);
  if (!wide && val_is_tensor(r) && val_tensor(r)->dtype == DT_INT32) {
    Val c = cast_to(r, DT_UINT8);
    TFS_DECREF(r);
    r = c;
  }
  return r;
}

/* numpy's text for shapes that do not broadcast: "(2,3) (4,) ". */
static bool np_broadcasts(const Tensor *a, const Tensor *b) {
  int n = a->rank > b->rank ? a->rank : b->rank;
  for (int i = 0; i < n; i++) {
    tfs_i64 da = i < n - a->rank ? 1 : a->shape[i - (n - a->rank)], db = i < n - b->rank ? 1 : b->shape[i - (n - b->rank)];
    if (da != db && da != 1 && db != 1) return false;
  }
  return true;
}

static void np_check_broadcast(const Tensor *a, const Tensor *b) {
  if (!np_broadcasts(a, b)) {
    StrBuf m;
    sb_init(&m);
    const Tensor *ts[2] = {a, b};
    for (int k = 0; k < 2; k++) {
      sb_putc(&m, '(');
      for (int j = 0; j < ts[k]->rank; j++) sb_printf(&m, j ? ",%lld" : "%lld", (long long)ts[k]->shape[j]);
      sb_puts(&m, ts[k]->rank == 1 ? ",) " : ") ");
    }
    char text[300];
    snprintf(text, sizeof text, "%.*s", (int)m.len, m.data);
    sb_free(&m);
    rt_throw(ERR_VALUE, "operands could not be broadcast together with shapes %s", text);
  }
}

/* An operand's numpy reading: its dtype, whether it is a scalar (Python number, numpy scalar,
 * 0-d array) and its kind (0 bool, 1 int, 2 float, 3 complex); false for other values. */
typedef struct NpOperand { DType dt; bool scalar; int kind; } NpOperand;

static bool np_operand(Val v, NpOperand *o) {
  Tensor *t = val_as_tensor(v);
  if (t) o->dt = t->dtype;
  else if (v.tag == VT_BOOL) o->dt = DT_BOOL;
  else if (v.tag == VT_INT) o->dt = DT_INT64;   /* a Python int is numpy's long */
  else if (v.tag == VT_FLOAT) o->dt = DT_FLOAT64;
  else if (val_is(v, &complex_type)) o->dt = DT_COMPLEX128;
  else return false;
  o->scalar = !t || t->rank == 0;
  o->kind = o->dt == DT_BOOL ? 0 : dtype_info[o->dt].is_float ? 2 : dtype_is_complex(o->dt) ? 3 : 1;
  return true;
}

/* numpy 1.24's result_type for two operands: value-based casting -- a scalar whose kind is not
 * above the array's takes the array's dtype (an int outside the array's range widens it). */
static DType np_result_dtype(Val a, const NpOperand *oa, Val b, const NpOperand *ob) {
  if (oa->scalar == ob->scalar) return np_promote(oa->dt, ob->dt);
  const NpOperand *s = oa->scalar ? oa : ob, *r = oa->scalar ? ob : oa;
  Val sv = oa->scalar ? a : b;
  if (s->kind == 3 && r->kind < 3) {   /* a complex scalar counts as complex64 when its parts fit float32 (min_scalar_type) */
    Tensor *st = val_as_tensor(sv);
    if (!st && r->kind < 2) return DT_COMPLEX128;   /* numpy 1.24: a Python complex with bool or int arrays */
    double re = 0, im = 0;
    if (st) tensor_get_c(st, 0, &re, &im);
    else complex_parts(sv, &re, &im);
    bool fits = (fabs(re) <= 3.4028234663852886e38 || !isfinite(re)) && (fabs(im) <= 3.4028234663852886e38 || !isfinite(im));
    return np_promote(r->dt, fits ? DT_COMPLEX64 : DT_COMPLEX128);
  }
  if (s->kind > r->kind) return np_promote(r->dt, s->dt);
  if (s->kind == 1 && r->kind == 1) {   /* min_scalar_type of the int against the array's integer type */
    int64_t i = 0;
    if (!val_as_int(sv, &i)) return r->dt;
    if (r->dt == DT_UINT8 && (i < 0 || i > 255)) return DT_INT64;   /* numpy: int16/uint16, the same values */
    if (r->dt == DT_INT32 && (i < INT32_MIN || i > INT32_MAX)) return DT_INT64;
    static const int64_t lo[] = {-128, -32768, 0, 0}, hi[] = {127, 32767, 65535, 4294967295};
    int k = r->dt == DT_INT8 ? 0 : r->dt == DT_INT16 ? 1 : r->dt == DT_UINT16 ? 2 : r->dt == DT_UINT32 ? 3 : -1;
    if (k >= 0 && (i < lo[k] || i > hi[k])) {   /* an int the array's type cannot hold: with its min_scalar_type */
      /* a positive int against a signed array counts as the smallest signed type holding it (numpy's small-unsigned rule) */
      if (i >= 0 && !np_unsigned(r->dt)) i = -i - 1;
      DType m = i >= 0 ? (i <= 255 ? DT_UINT8 : i <= 65535 ? DT_UINT16 : i <= 4294967295 ? DT_UINT32 : DT_UINT64)
                       : (i >= -128 ? DT_INT8 : i >= -32768 ? DT_INT16 : i >= INT32_MIN ? DT_INT32 : DT_INT64);
      return np_promote(r->dt, m);
    }
  }
  return r->dt;
}

/* numpy 1.24's result dtype of a binary ufunc (value-based casting included); false when a or b is no number or array. */
bool ndarray_result_dtype(Val a, Val b, DType *out) {
  NpOperand oa, ob;
  if (!np_operand(a, &oa) || !np_operand(b, &ob)) return false;
  *out = np_result_dtype(a, &oa, b, &ob);
  return true;
}

static Val np_apply_host(OpId id, Val a, Val b);

/* Apply a binary op with numpy's dtype rules; results are ndarrays (0-d: numpy scalars).  Numpy's arithmetic
 * is host code: inside a traced function it runs now, as numpy does under TF's tracing -- a host section,
 * since the operands' casts give plain tensors that trace.c's rule for ops on numpy arrays would not cover. */
static Val np_apply(OpId id, Val a, Val b) {
  Tensor *ta = val_as_tensor(a), *tb = val_as_tensor(b);
  if ((ta && !val_is_ndarray(a)) || (tb && !val_is_ndarray(b)))
    return op_apply2(id, a, b);   /* a tf tensor wins: TF result */
  int mark = op_host_begin();
  Val r = np_apply_host(id, a, b);
  op_host_end(mark);
  return r;
}

static Val np_apply_host(OpId id, Val a, Val b) {
  Tensor *ta = val_as_tensor(a), *tb = val_as_tensor(b);
  if (ta && tb) np_check_broadcast(ta, tb);
  NpOperand oa, ob;
  Val ca = val_incref(a), cb = val_incref(b);
  if (np_operand(a, &oa) && np_operand(b, &ob)) {
    double e = b.tag == VT_INT ? (double)b.u.i : b.tag == VT_FLOAT ? b.u.f : 3.0;
    if (id == OP_POW && val_is(a, &ndarray_type) && (e == 2 || e == 0.5 || e == 1 || e == -1 || e == 0))
      oa.scalar = false;   /* ndarray ** 2 is numpy's square (fast_scalar_power): a 0-d array keeps its dtype */
    DType d = np_result_dtype(a, &oa, b, &ob);
    /* host numbers convert to d, except into uint8 and int64, which np_apply_u8 and the ops do */
    bool host_ok = d == DT_UINT8 || d == DT_INT64;
    if (ta ? oa.dt != d : !host_ok) { TFS_DECREF(ca); ca = cast_to(a, d); }
    if (tb ? ob.dt != d : !host_ok) { TFS_DECREF(cb); cb = cast_to(b, d); }
  }
  Val r = np_apply_u8(id, &ca, &cb);
  if (val_is_undef(r)) r = op_apply2(id, ca, cb);
  TFS_DECREF(ca);
  TFS_DECREF(cb);
  if (id == OP_MOD && val_is_tensor(r) && dtype_info[val_tensor(r)->dtype].is_float) {
    Val z = op_apply2(OP_ADD, r, val_float(0.0));   /* numpy's remainder: a zero is +0 for a positive divisor */
    TFS_DECREF(r);
    r = z;
  }
  return wrap(r);
}

/* Does v hold integers or bools only (what numpy's bitwise ufuncs take)? */
static bool np_integral(Val v) {
  Tensor *t = val_as_tensor(v);
  if (t) return dtype_info[t->dtype].is_int || t->dtype == DT_BOOL;
  return v.tag == VT_INT || v.tag == VT_BOOL;
}

static _Noreturn void np_refuse_ufunc(const char *name) {
  rt_throw(ERR_TYPE, "ufunc '%s' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''", name);
}

static tfs_i64 utf8_chars(const char *p, tfs_i64 n) {
  tfs_i64 c = 0;
  for (tfs_i64 i = 0; i < n; i++) c += ((unsigned char)p[i] & 0xC0) != 0x80;
  return c;
}

/* An operand's dtype as numpy's ufunc errors write it: dtype('<U3'), dtype('int64'). */
static void np_dtype_text(StrBuf *b, Val v) {
  int uw = ndarray_uwidth(v);
  Tensor *t = val_as_tensor(v);
  if (uw) sb_printf(b, "dtype('<U%d')", uw);
  else if (val_is(v, &str_type)) sb_printf(b, "dtype('<U%lld')", (long long)utf8_chars(((Str *)v.u.o)->data, ((Str *)v.u.o)->len));
  else if (t) val_repr(b, val_obj(&npdtypes[t->dtype]));
  else sb_printf(b, "dtype('%s')", v.tag == VT_BOOL ? "bool" : v.tag == VT_INT ? "int64" : v.tag == VT_FLOAT ? "float64" :
                                   val_is(v, &complex_type) ? "complex128" : "O");
}

/* numpy 1.24 has no arithmetic loops for text arrays: its UFuncTypeError (the numpy module's _UFuncNoLoopError). */
static _Noreturn void np_no_loop(const char *ufunc, Val a, Val b) {
  StrBuf m;
  sb_init(&m);
  sb_printf(&m, "ufunc '%s' did not contain a loop with signature matching types (", ufunc);
  np_dtype_text(&m, a);
  sb_puts(&m, ", ");
  np_dtype_text(&m, b);
  sb_puts(&m, ") -> None");
  char msg[400];
  snprintf(msg, sizeof msg, "%s", m.data);
  sb_free(&m);
  Val cls = dict_get_str(nd_methods, "__no_loop_error__");
  /* errindex: ufunc '…' did not contain a loop with signature matching types (dtype('…'), dtype('…')) -> None */
  if (val_is_undef(cls)) rt_throw(ERR_TYPE, "%s", msg);
  val_decref(cls);   /* a class of the numpy module, which keeps it */
  exc_raise_class(cls, ERR_TYPE, msg);
}

static Val ndarray_binop(int op, Val a, Val b) {
  if (val_is_npobj(a) || val_is_npobj(b)) return val_undef();   /* an object array's operator: per element */
  static const int ops[BIN__COUNT] = {
    [BIN_ADD] = OP_ADD, [BIN_SUB] = OP_SUB, [BIN_MUL] = OP_MUL, [BIN_DIV] = OP_DIV,
    [BIN_FLOORDIV] = OP_FLOORDIV, [BIN_MOD] = OP_MOD, [BIN_POW] = OP_POW, [BIN_MATMUL] = OP_MATMUL,
    [BIN_LSHIFT] = -1, [BIN_RSHIFT] = -1,
    [BIN_BITAND] = OP_LOGICAL_AND, [BIN_BITOR] = OP_LOGICAL_OR, [BIN_BITXOR] = OP_LOGICAL_XOR,
  };
  if (ndarray_uwidth(a) || ndarray_uwidth(b)) {
    static const char *const names[BIN__COUNT] = {
      [BIN_ADD] = "add", [BIN_SUB] = "subtract", [BIN_MUL] = "multiply", [BIN_DIV] = "divide", [BIN_FLOORDIV] = "floor_divide",
      [BIN_MOD] = "remainder", [BIN_POW] = "power", [BIN_MATMUL] = "matmul", [BIN_LSHIFT] = "left_shift",
      [BIN_RSHIFT] = "right_shift", [BIN_BITAND] = "bitwise_and", [BIN_BITOR] = "bitwise_or", [BIN_BITXOR] = "bitwise_xor",
    };
    if (op >= 0 && op < BIN__COUNT && names[op]) np_no_loop(names[op], a, b);
  }
  if (val_is(a, &str_type) || val_is(b, &str_type)) return val_undef();   /* '%.2f' % x: str's own operator */
  if (op == BIN_LSHIFT || op == BIN_RSHIFT) {   /* numpy's shifts (counts past the width, bools): the numpy module's */
    Val f = dict_get_str(nd_methods, op == BIN_LSHIFT ? "__lshift__" : "__rshift__");
    if (val_is_undef(f)) return val_undef();
    Val args[2] = {a, b};
    int mark = rt_hold_val(f);
    Val r = rt_call(f, 2, args, NULL);
    rt_unhold(mark);
    val_decref(f);
    return r;
  }
  if (op < 0 || op >= BIN__COUNT || ops[op] < 0) return val_undef();
  Tensor *ta = val_as_tensor(a), *tb = val_as_tensor(b);
  bool ba = ta ? ta->dtype == DT_BOOL : a.tag == VT_BOOL, bb = tb ? tb->dtype == DT_BOOL : b.tag == VT_BOOL;
  if (ba && bb) {   /* numpy's bool arithmetic: + is or, * is and, - is refused */
    if (op == BIN_ADD) return np_apply(OP_LOGICAL_OR, a, b);
    if (op == BIN_MUL) return np_apply(OP_LOGICAL_AND, a, b);
    if (op == BIN_SUB)
      rt_throw(ERR_TYPE, "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.");
  }
  if ((op == BIN_BITAND || op == BIN_BITOR || op == BIN_BITXOR) && !(ba && bb)) {   /* numpy's bitwise ufuncs */
    static const char *const names[] = {[BIN_BITAND] = "bitwise_and", [BIN_BITOR] = "bitwise_or", [BIN_BITXOR] = "bitwise_xor"};
    if (!np_integral(a) || !np_integral(b)) np_refuse_ufunc(names[op]);
    return np_apply(op == BIN_BITAND ? OP_BITWISE_AND : op == BIN_BITOR ? OP_BITWISE_OR : OP_BITWISE_XOR, a, b);
  }
  if (op == BIN_MATMUL) {   /* numpy's matmul (1-D operands, its errors): the numpy module's */
    Val f = dict_get_str(nd_methods, "__matmul__");
    if (!val_is_undef(f)) {
      Val args[2] = {a, b};
      Val r = rt_call(f, 2, args, NULL);
      val_decref(f);
      return r;
    }
  }
  return np_apply((OpId)ops[op], a, b);
}

/* A text operand's element i (a str, or a text array broadcast by numpy's rules). */
static const Str *text_elem(Val v, const Tensor *t, const tfs_i64 *shape, int rank, tfs_i64 i) {
  if (!t) return (const Str *)v.u.o;
  tfs_i64 off = t->offset;
  for (int d = rank - 1, k = t->rank - 1; d >= 0; d--, k--) {
    tfs_i64 c = i % shape[d];
    i /= shape[d];
    if (k >= 0 && t->shape[k] > 1) off += c * t->strides[k];
  }
  return ((Str **)t->buf->data)[off];
}

/* Comparison of text arrays (with each other or a str): elementwise, by code points (UTF-8's byte order). */
static Val text_compare(int op, Val a, Val b) {
  bool ta_ok = ndarray_uwidth(a) || val_is(a, &str_type), tb_ok = ndarray_uwidth(b) || val_is(b, &str_type);
  if (!ta_ok || !tb_ok) return val_undef();   /* numpy 1.24 declines: == is False, < a TypeError */
  Tensor *ta = ndarray_uwidth(a) ? val_as_tensor(a) : NULL, *tb = ndarray_uwidth(b) ? val_as_tensor(b) : NULL;
  if (ta && tb && !np_broadcasts(ta, tb)) {   /* numpy 1.24: == is False, an order a TypeError */
    if (op == CMP_EQ || op == CMP_NE) return val_bool(op == CMP_NE);
    static const char *const sym[] = {"<", "<=", ">", ">="};
    rt_throw(ERR_TYPE, "'%s' not supported between instances of 'numpy.ndarray' and 'numpy.ndarray'", sym[op - CMP_LT]);
  }
  int rank = ta && tb ? (ta->rank > tb->rank ? ta->rank : tb->rank) : ta ? ta->rank : tb->rank;
  tfs_i64 sh[TFS_MAX_RANK];
  for (int d = 0; d < rank; d++) sh[d] = 1;
  for (int s = 0; s < 2; s++) {
    Tensor *t = s ? tb : ta;
    for (int k = 0; t && k < t->rank; k++)
      if (t->shape[k] != 1) sh[rank - t->rank + k] = t->shape[k];
  }
  Tensor *r = tensor_new(DT_BOOL, rank, sh);
  bool *out = tensor_data(r);
  for (tfs_i64 i = 0; i < r->size; i++) {
    const Str *x = text_elem(a, ta, sh, rank, i), *y = text_elem(b, tb, sh, rank, i);
    tfs_i64 xl = x ? x->len : 0, yl = y ? y->len : 0;
    int c = memcmp(x ? x->data : "", y ? y->data : "", (size_t)(xl < yl ? xl : yl));
    if (!c) c = xl < yl ? -1 : xl > yl;
    out[i] = op == CMP_LT ? c < 0 : op == CMP_LE ? c <= 0 : op == CMP_GT ? c > 0 : op == CMP_GE ? c >= 0 : op == CMP_EQ ? !c : c != 0;
  }
  Val v = ndarray_new(r);
  tensor_release(r);
  return v;
}

static Val ndarray_compare(int op, Val a, Val b) {
  static const int ops[] = {OP_LESS, OP_LESS_EQUAL, OP_GREATER, OP_GREATER_EQUAL, OP_EQUAL, OP_NOT_EQUAL};
  if (op < CMP_LT || op > CMP_NE || val_is_npobj(a) || val_is_npobj(b)) return val_undef();
  a = inst_base(a);   /* a numpy.str_ (a str subclass) compares as its text */
  b = inst_base(b);
  if (ndarray_uwidth(a) || ndarray_uwidth(b)) {
    Val r = text_compare(op, a, b);
    if (!val_is_undef(r) || (op != CMP_EQ && op != CMP_NE)) return r;
    return val_bool(op == CMP_NE);   /* numpy 1.24: text == number is False (with a FutureWarning) */
  }
  if (op == CMP_EQ || op == CMP_NE) {
    bool ok = val_as_tensor(a) && val_as_tensor(b);
    if (ok && !np_broadcasts(val_as_tensor(a), val_as_tensor(b)))
      return val_bool(op == CMP_NE);   /* numpy 1.24: elementwise == of unbroadcastable shapes is False */
    Val other = val_as_tensor(a) ? b : a;
    if (!ok && !(other.tag == VT_INT || other.tag == VT_FLOAT || other.tag == VT_BOOL || val_is(other, &list_type) ||
                 val_is(other, &tuple_type) || val_is(other, &str_type)))
      return val_bool(op == CMP_NE);
  }
  Tensor *ta = val_as_tensor(a), *tb = val_as_tensor(b);
  if (op != CMP_EQ && op != CMP_NE && (ta ? ta->dtype == DT_BOOL : a.tag == VT_BOOL) &&
      (tb ? tb->dtype == DT_BOOL : b.tag == VT_BOOL)) {   /* numpy orders False < True */
    Val ca = ta ? wrap(cast_to(a, DT_INT32)) : val_int(a.u.i), cb = tb ? wrap(cast_to(b, DT_INT32)) : val_int(b.u.i);
    Val r = np_apply((OpId)ops[op], ca, cb);
    TFS_DECREF(ca);
    TFS_DECREF(cb);
    return r;
  }
  return np_apply((OpId)ops[op], a, b);
}

static Val ndarray_inplace(int op, Val a, Val b) { return nd_inplace(op, a, b, ndarray_binop); }

static Val ndarray_unop(int op, Val a) {
  if (op == UN_NEG && val_as_tensor(a)->dtype == DT_UINT8) {   /* wraps, as numpy's uint8 negative */
    Val z = val_int(0);
    return np_apply(OP_SUB, z, a);
  }
  OpId un = op == UN_NEG ? OP_NEG : op == UN_POS ? OP_IDENTITY   /* +a: a new array (0-d: a scalar) */
            : op == UN_INVERT && val_as_tensor(a)->dtype == DT_BOOL ? OP_LOGICAL_NOT : op == UN_INVERT ? OP_INVERT : OP__COUNT;
  if (un == OP_INVERT && !np_integral(a)) np_refuse_ufunc("invert");
  /* inside a trace an op on the array alone runs now (trace.c's host rule for numpy arrays) */
  return un != OP__COUNT ? wrap(op_apply1(un, a)) : val_undef();
}

/* numpy's IndexError for integer indices out of range (checked before the
 * shared strided-slice op, whose error text is TF's). */
static void np_check_index(const Tensor *t, Val key) {
  const Val *items = &key;
  tfs_i64 n = 1;
  if (val_is(key, &tuple_type)) seq_items(key, &n, &items);
  int axis = 0;
  for (tfs_i64 k = 0; k < n; k++) {
    Val it = items[k];
    if (val_is(it, &ellipsis_type)) return;   /* positions after ... are not simple */
    if (it.tag == VT_NONE) continue;
    if (axis >= t->rank)
      rt_throw(ERR_INDEX, "too many indices for array: array is %d-dimensional, but %lld were indexed", t->rank, (long long)n);
    if (it.tag == VT_INT) {
      tfs_i64 d = t->shape[axis];
      if (it.u.i < -d || it.u.i >= d)
        rt_throw(ERR_INDEX, "index %lld is out of bounds for axis %d with size %lld", (long long)it.u.i, axis, (long long)d);
    }
    axis++;
  }
}

/* An index holding arrays or lists (integer or boolean), or a bool (a 0-d mask), is numpy's
 * advanced indexing: the numpy module's __getitem__ does it. */
static bool nd_advanced(Val key) {
  const Val *items = &key;
  tfs_i64 n = 1;
  if (val_is(key, &tuple_type)) seq_items(key, &n, &items);
  for (tfs_i64 k = 0; k < n; k++)
    if (val_is_ndarray(items[k]) || val_is(items[k], &list_type) || val_is_tensor(items[k]) ||
        items[k].tag == VT_BOOL)
      return true;
  return false;
}

static bool nd_has_ellipsis(Val key) {
  const Val *items = &key;
  tfs_i64 n = 1;
  if (val_is(key, &tuple_type)) seq_items(key, &n, &items);
  for (tfs_i64 k = 0; k < n; k++)
    if (val_is(items[k], &ellipsis_type)) return true;
  return false;
}

/* A text array's width carried to a new array of its elements (fancy indexing, copies). */
static Val text_keep(Val self, Val r) {
  int uw = ndarray_uwidth(self);
  if (!uw) return r;
  if (val_is(r, &ndarray_type) && ((NdArray *)r.u.o)->t->dtype == DT_STRING) {
    if (!((NdArray *)r.u.o)->uwidth) ((NdArray *)r.u.o)->uwidth = uw;
    return r;
  }
  if (val_is(r, &bytes_type)) {   /* a 0-d element: numpy's str_ scalar */
    size_t n;
    const void *d = bytes_data(r, &n);
    int mark = rt_hold_val(r);
    Val s = ndarray_str_scalar(d, (tfs_i64)n);
    rt_unhold(mark);
    TFS_DECREF(r);
    return s;
  }
  return r;
}

static Val ndarray_getitem(Val self, Val key) {
  if (nd_advanced(key)) {
    Val f = dict_get_str(nd_methods, "__getitem__");
    if (!val_is_undef(f)) {
      Val args[2] = {self, key};
      Val r = rt_call(f, 2, args, NULL);
      val_decref(f);
      return text_keep(self, r);
    }
  }
  Tensor *at_ = ((NdArray *)self.u.o)->t;
  np_check_index(at_, key);
  OpAttrs at = {1, {key}};
  Val r = op_apply(&op_defs[OP_STRIDED_SLICE], 1, &self, &at);
  if (!val_is_tensor(r)) return r;
  Tensor *rt = val_tensor(r);
  if (rt->rank == 0 && !nd_has_ellipsis(key)) {   /* a[1, 2]: a numpy scalar holding a copy */
    Tensor *c = tensor_copy(rt);
    TFS_DECREF(r);
    Val v = ndarray_new(c);
    tensor_release(c);
    return text_keep(self, v);
  }
  if (rt->buf != at_->buf) return text_keep(self, wrap(r));
  Val v = ndarray_view_new(self, rt);   /* basic indexing gives a view, a[...] of a 0-d array too */
  TFS_DECREF(r);
  return v;
}

static void ndarray_setitem(Val self, Val key, Val v) {
  if (!nd_advanced(key)) {
    np_check_index(((NdArray *)self.u.o)->t, key);
    Val f = ndarray_uwidth(self) ? dict_get_str(nd_methods, "__text_value__") : val_undef();
    if (!val_is_undef(f)) {   /* text stored into a text array is cut to its width (the numpy module's rule) */
      Val args[2] = {v, val_int(ndarray_uwidth(self))};
      int mark = rt_hold_val(f);
      Val c = rt_call(f, 2, args, NULL);
      rt_unhold(mark);
      val_decref(f);
      mark = rt_hold_val(c);
      nd_setitem_basic(self, key, c);
      rt_unhold(mark);
      val_decref(c);
      return;
    }
    nd_setitem_basic(self, key, v);
    return;
  }
  Val f = dict_get_str(nd_methods, "__setitem__");
  if (val_is_undef(f)) rt_throw(ERR_TYPE, "'numpy.ndarray' object does not support item assignment without 'import numpy'");
  Val args[3] = {self, key, v};
  val_decref(rt_call(f, 3, args, NULL));
  val_decref(f);
}

static tfs_i64 ndarray_len(Val self) {
  const Tensor *t = ((NdArray *)self.u.o)->t;
  if (t->rank == 0) rt_throw(ERR_TYPE, "len() of unsized object");   /* numpy's text: a 0-d array has no length */
  return t->shape[0];
}

static int ndarray_truthy(Val v) {
  Tensor *t = ((NdArray *)v.u.o)->t;
  if (t->size != 1)
    rt_throw(ERR_VALUE, "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  if (((NdArray *)v.u.o)->uwidth) {   /* text: true when not empty */
    const Str *e = ((Str **)t->buf->data)[tensor_elem_offset(t, 0)];
    return e && e->len > 0;
  }
  return tensor_get_f(t, 0) != 0;
}

typedef struct NdIter { Obj hdr; Val a; tfs_i64 i; } NdIter;
static void nditer_free(Obj *o) { TFS_DECREF(((NdIter *)o)->a); free(o); }
static void nditer_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "<iterator>"); }
static bool nditer_next(Val it, Val *out) {
  NdIter *ni = (NdIter *)it.u.o;
  if (ni->i >= ((NdArray *)ni->a.u.o)->t->shape[0]) return false;
  *out = ndarray_getitem(ni->a, val_int(ni->i++));
  return true;
}
static Val nditer_iter(Val self) { return val_incref(self); }
static const Type nditer_type = {
  .name = "iterator", .free = nditer_free, .repr = nditer_repr, .iter = nditer_iter, .next = nditer_next,
};
static Val ndarray_iter(Val self) {
  if (((NdArray *)self.u.o)->t->rank == 0) rt_throw(ERR_TYPE, "iteration over a 0-d array");
  NdIter *it = obj_new(&nditer_type, sizeof(NdIter));
  it->a = val_incref(self);
  it->i = 0;
  return val_obj(it);
}

static bool ndarray_eq(Val a, Val b) {
  if (a.tag == VT_OBJ && b.tag == VT_OBJ && a.u.o == b.u.o) return true;
  Val r = ndarray_compare(CMP_EQ, a, b);
  bool res = rt_truthy(r);
  TFS_DECREF(r);
  return res;
}


/* ---- numpy scalars: 0-d values of numpy.float32, numpy.int64 ... ---- */

static void npscalar_repr(StrBuf *b, Val v) { ndarray_scalar_repr(b, ((NdArray *)v.u.o)->t); }

static tfs_i64 npscalar_len(Val self) { rt_throw(ERR_TYPE, "object of type '%s' has no len()", self.u.o->type->name); }

static Val npscalar_iter(Val self) { rt_throw(ERR_TYPE, "'%s' object is not iterable", self.u.o->type->name); }

static Val npscalar_getitem(Val self, Val key) {
  if (val_is(key, &tuple_type) && !((Tuple *)key.u.o)->len) return val_incref(self);   /* x[()] */
  if (val_is(key, &ellipsis_type)) return ndarray_new_0d(((NdArray *)self.u.o)->t);   /* x[...]: a 0-d array */
  rt_throw(ERR_INDEX, "invalid index to scalar variable.");
}

static void npscalar_setitem(Val self, Val key, Val v) {
  (void)key; (void)v;
  rt_throw(ERR_TYPE, "'%s' object does not support item assignment", self.u.o->type->name);
}

static tfs_u64 npscalar_hash(Val v) {   /* hashes as the Python number it equals */
  Val x = tensor_item(((NdArray *)v.u.o)->t, 0);
  tfs_u64 h = val_hash(x);
  TFS_DECREF(x);
  return h;
}

static void npscalars_register(void) {
  static const char *names[DT__COUNT] = {
    [DT_FLOAT32] = "numpy.float32", [DT_FLOAT64] = "numpy.float64", [DT_INT32] = "numpy.int32",
    [DT_INT64] = "numpy.int64", [DT_BOOL] = "numpy.bool_", [DT_UINT8] = "numpy.uint8",
    [DT_INT8] = "numpy.int8", [DT_INT16] = "numpy.int16", [DT_UINT16] = "numpy.uint16", [DT_UINT32] = "numpy.uint32",
    [DT_UINT64] = "numpy.uint64", [DT_FLOAT16] = "numpy.float16", [DT_BFLOAT16] = "bfloat16",
    [DT_COMPLEX64] = "numpy.complex64", [DT_COMPLEX128] = "numpy.complex128",
  };
  for (int d = 0; d < DT__COUNT; d++) {
    Type *t = &npscalar_types[d];
    *t = ndarray_type;
    t->name = names[d] ? names[d] : "numpy.object_";
    t->repr = t->str = npscalar_repr;
    t->len = npscalar_len;
    t->iter = npscalar_iter;
    t->getitem = npscalar_getitem;
    t->setitem = npscalar_setitem;
    t->hash = npscalar_hash;
  }
}

/* numpy.ndarray's operators and methods compute through the op table: set at start-up. */
void ndarrayobj_register(void) {
  ndarray_type.getattr = ndarray_getattr;
  ndarray_type.getitem = ndarray_getitem;
  ndarray_type.setitem = ndarray_setitem;
  ndarray_type.iter = ndarray_iter;
  ndarray_type.len = ndarray_len;
  ndarray_type.binop = ndarray_binop;
  ndarray_type.unop = ndarray_unop;
  ndarray_type.inplace = ndarray_inplace;
  ndarray_type.compare = ndarray_compare;
  ndarray_type.truthy = ndarray_truthy;
  ndarray_type.eq = ndarray_eq;
  npscalars_register();
}
