/* tensorobj.c — tf.Tensor and tf.Variable as Python objects: attributes, operators, indexing, iteration, assignment, all dispatched to the op table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "kernels/ops.h"
#include "object/object.h"
#include "tensor/tensor.h"

static Tensor *self_tensor(Val self) {
  Tensor *t = val_as_tensor(self);
  if (!t) rt_throw(ERR_TYPE, "expected a tensor");
  return t;
}

//! Tensor.numpy() | Variable.numpy()
//!   The value as a numpy array (a Python scalar for a 0-d tensor); eager tensors only.
static Val tensor_numpy_m(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  Tensor *t = self_tensor(self);
  if (t->sym) rt_throw(ERR_ATTRIBUTE, "'SymbolicTensor' object has no attribute 'numpy'");
  return ndarray_new(t);
}

//! Tensor.get_shape() | Variable.get_shape()
//!   The static shape as a tf.TensorShape (same as the shape attribute).
static Val tensor_get_shape_m(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  Tensor *t = self_tensor(self);
  return tshape_new(t->rank, t->shape);
}

/* abs(t): Python's abs() calls __abs__, which is tf.abs. */
static Val tensor_abs_m(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  return op_apply1(OP_ABS, self);
}

/* ---- t.ref(): TF's object_identity.Reference, a hashable stand-in for the tensor or variable itself ---- */

typedef struct Ref { Obj hdr; Val obj; } Ref;
static void ref_free(Obj *o) { val_decref(((Ref *)o)->obj); free(o); }
static void ref_traverse(Obj *o, GcVisit visit, void *arg) { visit(((Ref *)o)->obj, true, arg); }
static void ref_clear(Obj *o) {
  Ref *r = (Ref *)o;
  Val v = r->obj;
  r->obj = val_none();
  val_decref(v);
}
static void ref_repr(StrBuf *b, Val v) {
  sb_puts(b, "<Reference wrapping ");
  val_repr(b, ((Ref *)v.u.o)->obj);
  sb_putc(b, '>');
}
static Val ref_getattr(Val self, const char *name);
static bool ref_eq(Val a, Val b);
static tfs_u64 ref_hash(Val v) { return (tfs_u64)(uintptr_t)((Ref *)v.u.o)->obj.u.o * 0x9e3779b97f4a7c15ULL; }
static const Type ref_type = {
  .name = "tensorflow.python.util.object_identity.Reference", .free = ref_free, .repr = ref_repr,
  .getattr = ref_getattr, .eq = ref_eq, .hash = ref_hash, .traverse = ref_traverse, .clear = ref_clear,
};
/* Two references are equal when they wrap the same object (not equal values). */
static bool ref_eq(Val a, Val b) {
  return val_is(a, &ref_type) && val_is(b, &ref_type) && ((Ref *)a.u.o)->obj.u.o == ((Ref *)b.u.o)->obj.u.o;
}
//! Reference.deref()
//!   The tensor or variable the reference (t.ref()) wraps.
static Val ref_deref_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "deref", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  return val_incref(((Ref *)self.u.o)->obj);
}
static Val ref_getattr(Val self, const char *name) {
  if (!strcmp(name, "deref")) return builtin_new("Reference.deref", ref_deref_m, self, NULL);
  return val_undef();
}
//! Tensor.ref() | Variable.ref() | Tensor.experimental_ref() | Variable.experimental_ref()
//!   A hashable reference to this tensor or variable (equal only to references to the same object), to use as a
//!   set element or dict key where the tensor itself is unhashable; deref() gives the object back.
static Val tensor_ref_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ref", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  Ref *r = obj_new(&ref_type, sizeof(Ref));
  r->obj = val_incref(self);
  return val_obj(r);
}

/* hash(t): TF's tensors and variables are unhashable (they compare element-wise). */
static tfs_u64 tensor_hash(Val v) {
  (void)v;
  rt_throw(ERR_TYPE, "Tensor is unhashable. Instead, use tensor.ref() as the key.");
}
static tfs_u64 variable_hash(Val v) {
  StrBuf b;
  sb_init(&b);
  val_repr(&b, v);
  char text[1024];
  snprintf(text, sizeof text, "%s", b.data ? b.data : "");
  sb_free(&b);
  rt_throw(ERR_TYPE, "Variable is unhashable. Instead, use variable.ref() as the key. (Variable: %s)", text);
}

//! Tensor.set_shape(shape)
//!   Eagerly, checks that shape (a list, tuple or TensorShape; None for unknown parts) is compatible with the
//!   tensor's shape. Inside tf.function, merges shape into the tensor's static shape (ValueError when the two
//!   conflict); unlike TF, tfs also checks it when the graph runs, since its executor plans by static shapes.
static Val tensor_set_shape_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "set_shape", .sig = "shape"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Tensor *t = val_tensor(self);
  tfs_i64 e[TFS_MAX_RANK];
  int er = val_shape_like(a[0], e, "set_shape");
  if (!t->sym) {
    if (!shape_compatible(er, e, t->rank, t->shape)) {
      StrBuf b;
      sb_init(&b);
      shape_format(&b, t->rank, t->shape);
      sb_puts(&b, " is not compatible with supplied shape ");
      val_str(&b, a[0]);
      char text[1024];
      snprintf(text, sizeof text, "%s", b.data ? b.data : "");
      sb_free(&b);
      rt_throw(ERR_VALUE, "Tensor's shape %s.", text);
    }
    return val_none();
  }
  bool adds = t->rank < 0 && er >= 0;
  for (int d = 0; !adds && er >= 0 && d < er && d < t->rank; d++) adds = t->shape[d] < 0 && e[d] >= 0;
  if (!adds && shape_compatible(er, e, t->rank, t->shape)) return val_none();   /* nothing new, and the two agree */
  /* the tensor now stands for an EnsureShape node of its old value: the merge (and its errors) is that op's
   * shape rule, and the run-time check keeps the executor's static shapes true */
  OpAttrs at = {1, {tshape_new(er, e)}};
  int mark = rt_hold_val(at.v[0]);   /* released if the shape rule raises */
  Val r = op_apply(&op_defs[OP_ENSURE_SHAPE], 1, &self, &at);
  rt_unhold(mark);
  val_decref(at.v[0]);
  Tensor *nt = val_tensor(r);
  void *sym = t->sym;
  t->sym = nt->sym;
  nt->sym = sym;
  t->rank = nt->rank;
  t->size = nt->size;
  memcpy(t->shape, nt->shape, sizeof(tfs_i64) * (size_t)nt->rank);
  val_decref(r);
  return val_none();
}

static const char *const eager_undefined[] = {"op", "graph", "value_index"};

//! Tensor.consumers()
//!   Raises NotImplementedError, as TF does for an eager tensor (traced tensors do not have it in tfs).
static Val tensor_consumers_m(Val self, int n, const Val *args, const Kw *kw) {
  (void)self; (void)n; (void)args; (void)kw;
  rt_throw(ERR_NOTIMPL, "Tensor.consumers is undefined when eager execution is enabled.");
}

//! Tensor.cpu()
//!   The tensor itself, on the CPU (where every tfs tensor is).
static Val tensor_cpu_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "cpu", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  return op_apply1(OP_IDENTITY, self);
}

/* The attributes every tensor has (VT_UNDEF: none of them). */
static Val tensor_own_attr(Val self, const char *name) {
  Tensor *t = val_tensor(self);
  switch (name[0]) {
  case '_':
    if (!strcmp(name, "__abs__")) return builtin_new("Tensor.__abs__", tensor_abs_m, self, NULL);
    break;
  case 's':
    if (!strcmp(name, "shape")) return tshape_new(t->rank, t->shape);
    if (!strcmp(name, "set_shape")) return builtin_new("Tensor.set_shape", tensor_set_shape_m, self, NULL);
    break;
  case 'r':
    if (!strcmp(name, "ref")) return builtin_new("Tensor.ref", tensor_ref_m, self, NULL);
    break;
  case 'e':
    if (!strcmp(name, "experimental_ref")) return builtin_new("Tensor.experimental_ref", tensor_ref_m, self, NULL);
    break;
  case 'b':
    if (!strcmp(name, "backing_device") && !t->sym) return str_from_cstr(dist_device());
    break;
  case 'c':
    if (!strcmp(name, "cpu") && !t->sym) return builtin_new("Tensor.cpu", tensor_cpu_m, self, NULL);
    if (!strcmp(name, "consumers") && !t->sym) return builtin_new("Tensor.consumers", tensor_consumers_m, self, NULL);
    break;
  case 'o': case 'g': case 'v':
    if (t->sym && op_sym_attr) {
      Val a = op_sym_attr(self, name);
      if (!val_is_undef(a)) return a;
    }
    for (size_t i = 0; !t->sym && i < sizeof eager_undefined / sizeof *eager_undefined; i++)
      if (!strcmp(name, eager_undefined[i]))
        /* errindex: Tensor.… is undefined when eager execution is enabled. */
        rt_throw(ERR_ATTRIBUTE, "Tensor.%s is undefined when eager execution is enabled.", name);
    break;
  case 'd':
    if (!strcmp(name, "dtype")) return dtype_val(t->dtype);
    if (!strcmp(name, "device")) return str_from_cstr(t->sym ? "" : dist_device());
    break;
  case 'n':
    if (!strcmp(name, "ndim")) return val_int(t->rank);
    if (!strcmp(name, "numpy")) return builtin_new("Tensor.numpy", tensor_numpy_m, self, NULL);
    if (!strcmp(name, "name") && !t->sym)
      rt_throw(ERR_ATTRIBUTE, "Tensor.name is undefined when eager execution is enabled.");
    if (!strcmp(name, "name") && op_sym_attr) return op_sym_attr(self, name);
    break;
  }
  if (!strcmp(name, "get_shape")) return builtin_new("Tensor.get_shape", tensor_get_shape_m, self, NULL);
  return val_undef();
}

static Val tensor_getattr(Val self, const char *name) {
  Val v = tensor_own_attr(self, name);
  Tensor *t = val_tensor(self);
  return val_is_undef(v) && t->attrs ? dict_get_str(val_obj(t->attrs), name) : v;
}

/* t.attr = v: TF's tensors take attributes a program sets (Keras attaches _keras_mask to a layer's
 * output), kept in a per-tensor dict; the built-in attributes are read-only properties, as in TF. */
static void tensor_setattr(Val self, const char *name, Val v) {
  Tensor *t = val_tensor(self);
  Val own = !strcmp(name, "name") ? val_none() : tensor_own_attr(self, name);
  bool builtin = !val_is_undef(own);
  val_decref(own);
  if (builtin)
    rt_throw(ERR_ATTRIBUTE, "property '%s' of 'EagerTensor' object has no setter", name);
  bool first = !t->attrs;
  Val d = first ? val_undef() : val_obj(t->attrs);
  dict_set_str(&d, name, v);
  t->attrs = d.u.o;
  /* a pooled tensor joins the cycle collector with its first attribute (symbolic ones are tracked from birth) */
  if (first && !t->sym) gc_track(&t->hdr);
}

/* Operators: the op each Python operator maps to (ORDER BINOP). */
static const int binop_ops[BIN__COUNT] = {
  [BIN_ADD] = OP_ADD, [BIN_SUB] = OP_SUB, [BIN_MUL] = OP_MUL, [BIN_DIV] = OP_DIV,
  [BIN_FLOORDIV] = OP_FLOORDIV, [BIN_MOD] = OP_MOD, [BIN_POW] = OP_POW, [BIN_MATMUL] = OP_MATMUL,
  [BIN_LSHIFT] = -1, [BIN_RSHIFT] = -1,
  [BIN_BITAND] = OP_LOGICAL_AND, [BIN_BITOR] = OP_LOGICAL_OR, [BIN_BITXOR] = OP_LOGICAL_XOR,
};

/* The name scope TF's operator wrapper opens (math_ops' override_binary_operator_helper op_name): x * y is 'mul'. */
static const char *const binop_scopes[BIN__COUNT] = {
  [BIN_ADD] = "add", [BIN_SUB] = "sub", [BIN_MUL] = "mul", [BIN_DIV] = "truediv", [BIN_FLOORDIV] = "floordiv",
  [BIN_MOD] = "mod", [BIN_POW] = "pow", [BIN_MATMUL] = "matmul", [BIN_BITAND] = "and", [BIN_BITOR] = "or",
  [BIN_BITXOR] = "xor",
};

/* A variable receiver while tracing: its value read before the operator's scope opens, as TF's variable operators
 * read value() and then apply the tensor's operator (v * x reads 'ReadVariableOp', not 'mul/ReadVariableOp'). */
static Val binop_operand(Val v, bool tracing) {
  return tracing && val_is(v, &variable_type) ? op_apply1(OP_READ_VARIABLE, v) : val_incref(v);
}

/* x op y while tracing, in TF's name scope `scope` of the operator: a variable receiver (x, or y when b_recv) is read
 * before it opens; the other operand is converted inside it, as _apply_op_helper does ('mul/y', 'mul/ReadVariableOp'). */
static Val traced_operator(OpId id, const char *scope, Val a, Val b, bool b_recv) {
  Val x = b_recv ? val_incref(a) : binop_operand(a, true);
  int mark = rt_hold_val(x);
  Val y = b_recv ? binop_operand(b, true) : val_incref(b);
  rt_hold_val(y);
  OpScopeMark m = op_scope_enter(scope, &op_defs[id]);
  Val r = op_apply2(id, x, y);
  op_scope_exit(m);
  rt_unhold(mark);
  val_decref(x);
  val_decref(y);
  return r;
}

static Val tensor_binop(int op, Val a, Val b) {
  if (op < 0 || op >= BIN__COUNT || binop_ops[op] < 0) return val_undef();
  OpId id = (OpId)binop_ops[op];
  /* & | ^: logical ops of bool tensors, bitwise ops of the others (TF's and_/or_/xor_ pick by x's dtype) */
  Tensor *t = val_as_tensor(a) ? val_as_tensor(a) : val_as_tensor(b);
  if (t && t->dtype != DT_BOOL)
    id = id == OP_LOGICAL_AND ? OP_BITWISE_AND : id == OP_LOGICAL_OR ? OP_BITWISE_OR : id == OP_LOGICAL_XOR ? OP_BITWISE_XOR : id;
  if (!op_tracing()) return op_apply2(id, a, b);
  /* the receiver is a, or b when a is a host value (Python asks b's reflected operator) */
  return traced_operator(id, binop_scopes[op], a, b, !(val_as_tensor(a) || val_is(a, &variable_type)));
}

/* Can host value v be converted to dtype dt without error? (== and != answer
 * False instead of raising for such values, as TF does.) */
static bool host_convertible(Val v, DType dt) {
  switch (v.tag) {
  case VT_INT: return dt == DT_FLOAT32 || dt == DT_FLOAT64 || dt == DT_INT64 || dtype_is_complex(dt) ||
                     (dt == DT_INT32 && v.u.i >= INT32_MIN && v.u.i <= INT32_MAX);
  case VT_FLOAT: return dtype_info[dt].is_float || dtype_is_complex(dt);
  case VT_BOOL: return dt != DT_STRING;
  case VT_OBJ:
    if (val_is(v, &str_type) || val_is(v, &bytes_type)) return dt == DT_STRING;
    if (val_is(v, &complex_type)) return dtype_is_complex(dt);
    if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
      tfs_i64 n;
      const Val *items;
      seq_items(v, &n, &items);
      for (tfs_i64 i = 0; i < n; i++)
        if (!host_convertible(items[i], dt)) return false;
      return true;
    }
    return false;
  default: return false;
  }
}

static Val tensor_compare(int op, Val a, Val b) {
  static const int cmp_ops[] = {OP_LESS, OP_LESS_EQUAL, OP_GREATER, OP_GREATER_EQUAL, OP_EQUAL, OP_NOT_EQUAL};
  if (op < CMP_LT || op > CMP_NE) return val_undef();
  if (op == CMP_EQ || op == CMP_NE) {
    Tensor *ta = val_as_tensor(a), *tb = val_as_tensor(b);
    Tensor *t = ta ? ta : tb;
    Val other = ta ? b : a;
    if (!(ta && tb) && !(t->sym) && !host_convertible(other, t->dtype)) return val_bool(op == CMP_NE);
    if (ta && tb && !ta->sym && !tb->sym) {
      /* incompatible shapes compare unequal instead of raising */
      int r = ta->rank > tb->rank ? ta->rank : tb->rank;
      for (int i = 0; i < r; i++) {
        int ia = i - (r - ta->rank), ib = i - (r - tb->rank);
        tfs_i64 da = ia >= 0 ? ta->shape[ia] : 1, db = ib >= 0 ? tb->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) {
          Tensor *res = tensor_scalar(DT_BOOL);
          *(bool *)tensor_data(res) = op == CMP_NE;
          return val_obj(res);
        }
      }
    }
  }
  OpId id = (OpId)cmp_ops[op];
  if (!op_tracing()) return op_apply2(id, a, b);
  /* TF's comparison operators are the generated ops themselves (gen_math_ops.greater): _apply_op_helper converts
   * the other operand inside the op's scope, so 0.0 of x > 0.0 is 'Greater/y' and a variable there is read as
   * 'Greater/ReadVariableOp'; a variable receiver reads value() first.  A host left operand: Python asks the right
   * one's reflected operator (0.0 < x is x > 0.0). */
  if (!val_as_tensor(a) && !val_is(a, &variable_type)) {
    static const int mirror[] = {CMP_GT, CMP_GE, CMP_LT, CMP_LE, CMP_EQ, CMP_NE};
    id = (OpId)cmp_ops[mirror[op - CMP_LT]];
    Val t = a;
    a = b;
    b = t;
  }
  return traced_operator(id, op_default_scope(&op_defs[id]), a, b, false);
}

static Val tensor_unop(int op, Val a) {
  Tensor *t = val_as_tensor(a);
  switch (op) {
  case UN_NEG: return op_apply1(OP_NEG, a);
  case UN_POS: return op_apply1(OP_IDENTITY, a);
  case UN_INVERT:
    /* TF's invert_: logical_not of bool, else Invert (whose dtype check refuses floats) */
    return op_apply1(t && t->dtype == DT_BOOL ? OP_LOGICAL_NOT : OP_INVERT, a);
  default: return val_undef();
  }
}

static int tensor_truthy(Val v) {
  Tensor *t = val_as_tensor(v);
  if (t->sym) rt_throw(ERR_TYPE, "using a symbolic tensor as a Python bool is not allowed");
  if (t->size != 1)
    rt_throw(ERR_VALUE, "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  if (t->dtype == DT_STRING) {
    Str *s = ((Str **)t->buf->data)[t->offset];
    return s && s->len;
  }
  return tensor_get_f(t, 0) != 0;
}

static tfs_i64 tensor_len(Val v) {
  Tensor *t = val_as_tensor(v);
  if (t->rank == 0) rt_throw(ERR_TYPE, "Scalar tensor has no `len()`");
  if (t->shape[0] < 0) rt_throw(ERR_TYPE, "len is not well defined for a symbolic tensor of unknown length");
  return t->shape[0];
}

/* t[key]: while tracing in TF's _slice_helper scope 'strided_slice' (its begin/end/strides 'strided_slice/stack') */
static Val tensor_getitem(Val self, Val key) {
  OpAttrs at = {1, {key}};
  if (!op_tracing()) return op_apply(&op_defs[OP_STRIDED_SLICE], 1, &self, &at);
  Val x = binop_operand(self, true);
  int mark = rt_hold_val(x);
  OpScopeMark m = op_scope_enter("strided_slice", &op_defs[OP_STRIDED_SLICE]);
  Val r = op_apply(&op_defs[OP_STRIDED_SLICE], 1, &x, &at);
  op_scope_exit(m);
  rt_unhold(mark);
  val_decref(x);
  return r;
}

/* Iteration over dim 0 (views). */
typedef struct TIter { Obj hdr; Val t; tfs_i64 i; } TIter;
static void titer_free(Obj *o) { TFS_DECREF(((TIter *)o)->t); free(o); }
static void titer_repr(StrBuf *b, Val v) { (void)v; sb_puts(b, "<tensor_iterator>"); }
static bool titer_next(Val it, Val *out) {
  TIter *ti = (TIter *)it.u.o;
  Tensor *t = val_as_tensor(ti->t);
  if (ti->i >= t->shape[0]) return false;
  Val k = val_int(ti->i++);
  *out = tensor_getitem(ti->t, k);
  return true;
}
static Val titer_iter(Val self) { return val_incref(self); }
static const Type titer_type = {
  .name = "tensor_iterator", .free = titer_free, .repr = titer_repr, .iter = titer_iter, .next = titer_next,
};

static Val tensor_iter(Val self) {
  Tensor *t = val_as_tensor(self);
  if (t->rank == 0) rt_throw(ERR_TYPE, "Cannot iterate over a scalar tensor.");
  if (t->sym) rt_throw(ERR_TYPE, "Iterating over a symbolic tensor is not allowed");
  TIter *it = obj_new(&titer_type, sizeof(TIter));
  it->t = val_incref(self);
  it->i = 0;
  return val_obj(it);
}

static bool tensor_eq(Val a, Val b) {
  if (a.tag == VT_OBJ && b.tag == VT_OBJ && a.u.o == b.u.o) return true;
  Val r = tensor_compare(CMP_EQ, a, b);
  bool res = rt_truthy(r);
  TFS_DECREF(r);
  return res;
}

void variable_assign(Variable *recv, Val v, int mode) {
  Variable *var = variable_storage(&recv->hdr);   /* through an _UnreadVariable: its parent; messages name recv */
  Tensor *cur = var->value;
  Tensor *nv = tensor_from_val(v, cur->dtype);
  if (mode) {
    Val sum = op_apply2(mode == 1 ? OP_ADD : OP_SUB, val_obj(cur), val_obj(nv));
    tensor_release(nv);
    nv = val_tensor(sum);
  }
  tfs_i64 vdims[TFS_MAX_RANK];
  int vrank = variable_shape(var, vdims);   /* a declared shape (tf.Variable(shape=...)) may leave dims open */
  if (!shape_compatible(vrank, vdims, nv->rank, nv->shape)) {
    StrBuf a, b2;
    sb_init(&a);
    sb_init(&b2);
    shape_format(&a, vrank, vdims);
    shape_format(&b2, nv->rank, nv->shape);
    char *sa = sb_steal(&a), *sb2 = sb_steal(&b2);
    static char m1[128], m2[128];
    snprintf(m1, sizeof m1, "%s", sa);
    snprintf(m2, sizeof m2, "%s", sb2);
    free(sa);
    free(sb2);
    tensor_release(nv);
    rt_throw(ERR_VALUE, "Cannot assign value to variable ' %s': Shape mismatch.The variable shape %s, and the assigned value shape %s are incompatible.",
             recv->name, m1, m2);
  }
  /* Write in place when nobody else sees the current value (and it keeps its shape); else swap. */
  bool same_shape = nv->rank == cur->rank;
  for (int i = 0; same_shape && i < cur->rank; i++) same_shape = nv->shape[i] == cur->shape[i];
  if (same_shape && cur->hdr.rc == 1 && cur->buf->rc == 1 && tensor_is_contiguous(cur) && !dtype_holds_refs(cur->dtype)) {
    tensor_copy_into(cur, nv);
    tensor_release(nv);
  } else {
    Tensor *c = tensor_is_contiguous(nv) && nv->buf->rc == 1 && nv->hdr.rc == 1 ? nv : tensor_copy(nv);
    if (c != nv) tensor_release(nv);
    var->value = c;
    tensor_release(cur);
  }
}

Val variable_new(Val initial, Val name, bool trainable, Val dtype) {
  op_eager_note();
  int want = -1;
  DType dt;
  if (dtype.tag != VT_NONE && dtype.tag != VT_UNDEF) {
    if (!val_as_dtype_arg(dtype, &dt)) dtype_fail(dtype);
    want = dt;
  }
  Tensor *src = val_as_tensor(initial);
  Tensor *init;
  if (src && want >= 0 && (int)src->dtype != want) {
    Val dv = dtype_val((DType)want);
    OpAttrs at = {1, {dv}};
    Val c = op_apply(&op_defs[OP_CAST], 1, &initial, &at);
    init = val_tensor(c);
  } else {
    init = tensor_from_val(initial, want);
  }
  if (init->sym) rt_throw(ERR_VALUE, "tf.Variable: the initial value must be an eager tensor here");
  Variable *v = obj_new(&variable_type, sizeof(Variable));
  v->tape_bits = 0;
  v->dist_synced = false;
  v->value = tensor_copy(init);  /* own storage, so assignments never alias the initial value */
  tensor_release(init);
  const char *nm = "Variable";
  if (name.tag == VT_OBJ && val_is(name, &str_type)) nm = str_cstr(name);
  /* as TF: the active name scopes prefix the name (`with tf.name_scope('a1')` gives 'a1/w:0') */
  const char *scope = op_scope_prefix ? op_scope_prefix() : "";
  size_t len = strlen(scope) + strlen(nm) + 3;
  v->name = malloc(len);
  if (!v->name) rt_throw(ERR_MEMORY, "out of memory");
  snprintf(v->name, len, "%s%s:0", scope, nm);
  v->trainable = trainable;
  v->sym = NULL;
  v->decl_rank = -2;
  v->base = NULL;
  return val_obj(v);
}

Val variable_unread(Variable *v) {
  Variable *p = variable_storage(&v->hdr);
  Variable *u = obj_new(&variable_type, sizeof(Variable));
  memset((char *)u + sizeof(Obj), 0, sizeof(Variable) - sizeof(Obj));
  u->base = p;
  TFS_INCREF(val_obj(p));
  u->name = (char *)"UnreadVariable";   /* TF's name for it outside TF1 graphs, in tf.function too (not freed) */
  u->trainable = true;   /* TF builds it with trainable=None, which means True */
  u->decl_rank = -2;
  return val_obj(u);
}

Val (*op_sym_attr)(Val t, const char *name);
Val (*op_traced_operation)(const OpDef *op);

static Val var_method(Val self, int n, const Val *args, const Kw *kw, int mode) {
  /* TF names the operand `value` for assign, `delta` for assign_add / assign_sub */
  static ArgSpec specs[3] = {{.what = "assign", .sig = "value, use_locking=None, name=None, read_value=True"},
                             {.what = "assign_add", .sig = "delta, use_locking=None, name=None, read_value=True"},
                             {.what = "assign_sub", .sig = "delta, use_locking=None, name=None, read_value=True"}};
  Val a[4];
  args_parse(&specs[mode], n, args, kw, a);
  Variable *v = variable_storage(self.u.o);
  /* read_value=False: TF returns the assign op (a tf.Operation while tracing), None eagerly */
  bool read = !(a[3].tag == VT_BOOL && !a[3].u.i);
  bool done = false;
  static const OpId ids[3] = {OP_ASSIGN_VARIABLE, OP_ASSIGN_ADD_VARIABLE, OP_ASSIGN_SUB_VARIABLE};
  if (op_graph_hook) {   /* tracing: recorded as a graph op (VT_UNDEF: assign now) */
    Val in[2] = {self, a[0]};
    Val r = op_graph_hook(&op_defs[ids[mode]], 2, in, NULL);
    done = !val_is_undef(r);
    TFS_DECREF(r);
  }
  if (!done) variable_assign((Variable *)self.u.o, a[0], mode);
  /* the recorded node as a tf.Operation: what read_value=False returns and an _UnreadVariable's .op */
  Val op = done && op_traced_operation ? op_traced_operation(&op_defs[ids[mode]]) : val_none();
  if (!read) return op;
  /* TF's _lazy_read: the variable counts as accessed now; the result reads its storage when used */
  if (op_tape_nactive && op_tape_var_accessed) op_tape_var_accessed(val_obj(v));
  Val u = variable_unread(v);
  if (op.tag == VT_OBJ) ((Variable *)u.u.o)->sym = op.u.o;   /* owned by the _UnreadVariable */
  return u;
}
//! Variable.assign(value, use_locking=None, name=None, read_value=True)
//!   Stores value (same dtype and shape) in the variable. With read_value=True returns an _UnreadVariable
//!   ('UnreadVariable', reading the variable's current value when used; its assign* write the variable), else None.
static Val var_assign_m(Val self, int n, const Val *args, const Kw *kw) { return var_method(self, n, args, kw, 0); }
//! Variable.assign_add(delta, use_locking=None, name=None, read_value=True)
//!   Adds delta to the variable in place; returns an _UnreadVariable of it (None with read_value=False).
static Val var_assign_add_m(Val self, int n, const Val *args, const Kw *kw) { return var_method(self, n, args, kw, 1); }
//! Variable.assign_sub(delta, use_locking=None, name=None, read_value=True)
//!   Subtracts delta from the variable in place; returns an _UnreadVariable of it (None with read_value=False).
static Val var_assign_sub_m(Val self, int n, const Val *args, const Kw *kw) { return var_method(self, n, args, kw, 2); }
//! Variable.read_value()
//!   The variable's current value as a tensor.
static Val var_read_m(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  return op_apply1(OP_READ_VARIABLE, self);
}

//! Variable.sparse_read(indices, name=None)
//!   The rows of the variable's value at indices (tf.gather on its first axis).
static Val var_sparse_read_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "sparse_read", .sig = "indices, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Val in[2] = {self, a[0]};
  return op_apply(&op_defs[OP_GATHER], 2, in, NULL);
}
//! Variable.gather_nd(indices, name=None)
//!   tf.gather_nd of the variable's value.
static Val var_gather_nd_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "gather_nd", .sig = "indices, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Val in[2] = {self, a[0]};
  return op_apply(&op_defs[OP_GATHER_ND], 2, in, NULL);
}
static const char *const var_scatter_names[5] = {"scatter_nd_update", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_max", "scatter_nd_min"};
static const OpId var_scatter_ops[5] = {OP_RESOURCE_SCATTER_ND_UPDATE, OP_RESOURCE_SCATTER_ND_ADD, OP_RESOURCE_SCATTER_ND_SUB,
                                        OP_RESOURCE_SCATTER_ND_MAX, OP_RESOURCE_SCATTER_ND_MIN};
static Val var_resource_update(Val self, OpId id, Val indices, Val updates);
//! Variable.scatter_nd_update(indices, updates, name=None) | Variable.scatter_nd_add(indices, updates, name=None) | Variable.scatter_nd_sub(indices, updates, name=None) | Variable.scatter_nd_max(indices, updates, name=None) | Variable.scatter_nd_min(indices, updates, name=None)
//!   Writes updates into the variable at indices (as tf.tensor_scatter_nd_update/add/sub/max/min; TF's
//!   ResourceScatterNdUpdate/Add/Sub/Max/Min op); returns an _UnreadVariable of it.
static Val var_scatter_nd(Val self, int n, const Val *args, const Kw *kw, int k) {
  /* static: args_parse keeps the parsed signature in the spec */
  static ArgSpec specs[5] = {{.what = "scatter_nd_update", .sig = "indices, updates, name=None"},
                             {.what = "scatter_nd_add", .sig = "indices, updates, name=None"},
                             {.what = "scatter_nd_sub", .sig = "indices, updates, name=None"},
                             {.what = "scatter_nd_max", .sig = "indices, updates, name=None"},
                             {.what = "scatter_nd_min", .sig = "indices, updates, name=None"}};
  Val a[3];
  args_parse(&specs[k], n, args, kw, a);
  /* TF: indices converted as given, updates to the variable's dtype (convert_to_tensor(updates, self.dtype)); while
   * tracing the graph builder converts them so (a list may hold symbolic tensors) */
  bool conv = !op_tracing();
  Val ix = val_is_tensor(a[0]) || !conv ? val_incref(a[0]) : val_obj(tensor_from_val(a[0], -1));
  int mark = rt_hold_val(ix);
  Val upd = val_is_tensor(a[1]) || !conv ? val_incref(a[1])
                                         : val_obj(tensor_from_val(a[1], variable_storage(self.u.o)->value->dtype));
  rt_hold_val(upd);
  Val res = var_resource_update(self, var_scatter_ops[k], ix, upd);
  rt_unhold(mark);
  val_decref(ix);
  val_decref(upd);
  return res;
}
#define VAR_SCATTER(k) \
  static Val var_scatter_nd_##k(Val self, int n, const Val *args, const Kw *kw) { return var_scatter_nd(self, n, args, kw, k); }
VAR_SCATTER(0) VAR_SCATTER(1) VAR_SCATTER(2) VAR_SCATTER(3) VAR_SCATTER(4)
static const BuiltinFn var_scatter_fns[5] = {var_scatter_nd_0, var_scatter_nd_1, var_scatter_nd_2, var_scatter_nd_3, var_scatter_nd_4};

/* ---- Variable.scatter_add/sub/mul/div/min/max/update(sparse_delta): a tf.IndexedSlices on the first axis ---- */

static const char *const var_rscatter_names[7] = {"scatter_add", "scatter_sub", "scatter_mul", "scatter_div",
                                                  "scatter_min", "scatter_max", "scatter_update"};
static const OpId var_rscatter_ops[7] = {OP_RESOURCE_SCATTER_ADD, OP_RESOURCE_SCATTER_SUB, OP_RESOURCE_SCATTER_MUL,
                                         OP_RESOURCE_SCATTER_DIV, OP_RESOURCE_SCATTER_MIN, OP_RESOURCE_SCATTER_MAX,
                                         OP_RESOURCE_SCATTER_UPDATE};

/* sparse_delta's indices and values (owned) when it is a tf.IndexedSlices (stdlib/tfcore_indexed.tfs: the class is
 * found by name, the kernels layer cannot see the tf module), else TF's TypeError. */
static void indexed_slices_parts(Val sd, Val *indices, Val *values) {
  bool ok = false;
  if (val_is(sd, &inst_type))
    for (TypeObj *k = ((Inst *)sd.u.o)->klass; k && !ok; k = k->base) ok = !strcmp(k->name, "IndexedSlices");
  if (!ok) {
    Val s = str_of(sd);
    rt_hold_val(s);
    rt_throw(ERR_TYPE, "Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: %s", str_cstr(s));
  }
  *indices = rt_getattr(sd, "indices");
  int mark = rt_hold_val(*indices);
  *values = rt_getattr(sd, "values");
  rt_unhold(mark);
}

/* The op applied (recorded while tracing), then TF's _lazy_read of the variable, as var_method. */
static Val var_resource_update(Val self, OpId id, Val indices, Val updates) {
  Variable *v = variable_storage(self.u.o);
  Val in[3] = {val_obj(v), indices, updates};
  bool done = false;
  if (op_graph_hook) {
    Val r = op_graph_hook(&op_defs[id], 3, in, NULL);
    done = !val_is_undef(r);
    TFS_DECREF(r);
  }
  if (!done) {
    Val r = op_apply(&op_defs[id], 3, in, NULL);
    TFS_DECREF(r);
  }
  Val op = done && op_traced_operation ? op_traced_operation(&op_defs[id]) : val_none();
  if (op_tape_nactive && op_tape_var_accessed) op_tape_var_accessed(val_obj(v));
  Val u = variable_unread(v);
  if (op.tag == VT_OBJ) ((Variable *)u.u.o)->sym = op.u.o;
  return u;
}

//! Variable.scatter_add(sparse_delta, use_locking=False, name=None) | Variable.scatter_sub(sparse_delta, use_locking=False, name=None) | Variable.scatter_mul(sparse_delta, use_locking=False, name=None) | Variable.scatter_div(sparse_delta, use_locking=False, name=None) | Variable.scatter_min(sparse_delta, use_locking=False, name=None) | Variable.scatter_max(sparse_delta, use_locking=False, name=None) | Variable.scatter_update(sparse_delta, use_locking=False, name=None)
//!   Combines the variable's rows at sparse_delta.indices (a tf.IndexedSlices; repeated indices apply one by one) with
//!   its values (shape indices.shape + var.shape[1:], or a scalar); TF's ResourceScatter* op; returns an
//!   _UnreadVariable of it.
static Val var_rscatter(Val self, int n, const Val *args, const Kw *kw, int k) {
  static ArgSpec specs[7];
  if (!specs[k].what) specs[k] = (ArgSpec){.what = var_rscatter_names[k], .sig = "sparse_delta, use_locking=False, name=None"};
  Val a[3];
  args_parse(&specs[k], n, args, kw, a);
  Val ix0, vals;
  indexed_slices_parts(a[0], &ix0, &vals);
  int mark = rt_hold_val(ix0);
  Val ix = val_is_tensor(ix0) ? val_incref(ix0) : val_obj(tensor_from_val(ix0, -1));
  rt_hold_val(ix);
  rt_hold_val(vals);
  /* TF converts host values to the variable's dtype (convert_to_tensor; a tensor keeps its own, checked by the kernel) */
  Val upd = val_is_tensor(vals) ? val_incref(vals) : val_obj(tensor_from_val(vals, variable_storage(self.u.o)->value->dtype));
  rt_hold_val(upd);
  Val r = var_resource_update(self, var_rscatter_ops[k], ix, upd);
  rt_unhold(mark);
  val_decref(ix0); val_decref(ix); val_decref(vals); val_decref(upd);
  return r;
}
#define VAR_RSCATTER(k) \
  static Val var_rscatter_##k(Val self, int n, const Val *args, const Kw *kw) { return var_rscatter(self, n, args, kw, k); }
VAR_RSCATTER(0) VAR_RSCATTER(1) VAR_RSCATTER(2) VAR_RSCATTER(3) VAR_RSCATTER(4) VAR_RSCATTER(5) VAR_RSCATTER(6)
static const BuiltinFn var_rscatter_fns[7] = {var_rscatter_0, var_rscatter_1, var_rscatter_2, var_rscatter_3,
                                              var_rscatter_4, var_rscatter_5, var_rscatter_6};

//! Variable.batch_scatter_update(sparse_delta, use_locking=True, name=None)
//!   For indices of rank r (a tf.IndexedSlices), var[i_1, ..., i_{r-1}, indices[i_1, ..., i_{r-1}, j]] = values[i_1, ...,
//!   i_{r-1}, j]: scatter_update along the last index dimension, batched over the leading ones (TF's n-d form).
static Val var_batch_scatter_update_m(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "batch_scatter_update", .sig = "sparse_delta, use_locking=True, name=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  Val ix0, vals, tmp[12];
  int nt = 0;
  indexed_slices_parts(a[0], &ix0, &vals);
  int mark = rt_hold_val(ix0);
  tmp[nt++] = ix0;
#define BSU_HOLD(v) (rt_hold_val(v), tmp[nt++] = (v))
  BSU_HOLD(vals);
  Val ix = val_is_tensor(ix0) ? val_incref(ix0) : val_obj(tensor_from_val(ix0, -1));
  BSU_HOLD(ix);
  Tensor *t = val_as_tensor(ix);
  if (t->rank < 0) rt_throw(ERR_VALUE, "batch_gather does not allow indices with unknown shape.");
  for (int d = 0; d < t->rank - 1; d++)
    if (t->shape[d] < 0) rt_throw(ERR_UNIMPLEMENTED, "batch_scatter_update needs the indices' leading dimensions known");
  /* TF's n-d indices: the leading coordinates (known from the shape: a constant) then the index itself */
  Val nd = ix;
  if (t->rank > 1) {
    tfs_i64 shp[TFS_MAX_RANK];
    for (int d = 0; d < t->rank; d++) shp[d] = t->shape[d];
    int lead = t->rank - 1;
    shp[lead] = lead;
    tfs_i64 rows = 1;
    for (int d = 0; d < lead; d++) rows *= t->shape[d];
    Tensor *pre = tensor_new(t->dtype, t->rank, shp);   /* [d_0, ..., d_{r-2}, r-1]: repeated over the last axis below */
    for (tfs_i64 q = 0; q < rows; q++) {
      tfs_i64 rem = q;
      for (int d = lead - 1; d >= 0; d--) {
        tfs_i64 c = rem % t->shape[d];
        rem /= t->shape[d];
        if (t->dtype == DT_INT32) ((int32_t *)tensor_data(pre))[q * lead + d] = (int32_t)c;
        else ((int64_t *)tensor_data(pre))[q * lead + d] = c;
      }
    }
    Val prev = val_obj(pre);
    BSU_HOLD(prev);
    /* [d_0, ..., d_{r-2}, 1, r-1] tiled to [..., n, r-1] by adding zeros of the index's shape */
    Val m1 = val_int(-1), m2 = val_int(-2);
    OpAttrs ax2 = {1, {m2}}, ax1 = {1, {m1}};
    Val pe = op_apply(&op_defs[OP_EXPAND_DIMS], 1, &prev, &ax2);
    BSU_HOLD(pe);
    Val ie = op_apply(&op_defs[OP_EXPAND_DIMS], 1, &ix, &ax1);
    BSU_HOLD(ie);
    Val z = op_apply(&op_defs[OP_MUL], 2, (Val[]){ie, val_int(0)}, NULL);
    BSU_HOLD(z);
    Val pt = op_apply(&op_defs[OP_ADD], 2, (Val[]){pe, z}, NULL);
    BSU_HOLD(pt);
    Val lst = list_new(2);
    BSU_HOLD(lst);
    list_append(lst, pt);
    list_append(lst, ie);
    nd = op_apply(&op_defs[OP_CONCAT], 1, &lst, &ax1);
    BSU_HOLD(nd);
  } else {
    Val m1 = val_int(-1);
    OpAttrs ax1 = {1, {m1}};
    nd = op_apply(&op_defs[OP_EXPAND_DIMS], 1, &ix, &ax1);
    BSU_HOLD(nd);
  }
  Val in[2] = {nd, vals};
  Val r = var_scatter_nd(self, 2, in, NULL, 0);
  rt_unhold(mark);
  for (int q = 0; q < nt; q++) val_decref(tmp[q]);
  return r;
#undef BSU_HOLD
}

static Val var_get_shape_m(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  tfs_i64 dims[TFS_MAX_RANK];
  return tshape_new(variable_shape((Variable *)self.u.o, dims), dims);
}

static Val variable_getattr(Val self, const char *name) {
  Variable *v = (Variable *)self.u.o;   /* its name and trainable; the rest is its storage's */
  Tensor *t = variable_storage(self.u.o)->value;
  tfs_i64 dims[TFS_MAX_RANK];
  if (!strcmp(name, "shape")) return tshape_new(variable_shape(v, dims), dims);
  if (!strcmp(name, "dtype")) return dtype_val(t->dtype);
  if (!strcmp(name, "ndim")) return variable_shape(v, dims) < 0 ? val_none() : val_int(t->rank);
  if (!strcmp(name, "name")) return str_from_cstr(v->name);
  if (!strcmp(name, "trainable")) return val_bool(v->trainable);
  /* an _UnreadVariable's op is the assignment's, which executing eagerly is None */
  if (v->base && !strcmp(name, "op")) return v->sym ? val_incref(val_obj((Obj *)v->sym)) : val_none();
  if (!strcmp(name, "numpy")) return builtin_new("Variable.numpy", tensor_numpy_m, self, NULL);
  if (!strcmp(name, "get_shape")) return builtin_new("Variable.get_shape", var_get_shape_m, self, NULL);
  if (!strcmp(name, "assign")) return builtin_new("Variable.assign", var_assign_m, self, NULL);
  if (!strcmp(name, "assign_add")) return builtin_new("Variable.assign_add", var_assign_add_m, self, NULL);
  if (!strcmp(name, "assign_sub")) return builtin_new("Variable.assign_sub", var_assign_sub_m, self, NULL);
  if (!strcmp(name, "read_value") || !strcmp(name, "value"))
    return builtin_new("Variable.read_value", var_read_m, self, NULL);
  if (!strcmp(name, "__abs__")) return builtin_new("Variable.__abs__", tensor_abs_m, self, NULL);
  if (!strcmp(name, "ref")) return builtin_new("Variable.ref", tensor_ref_m, self, NULL);
  if (!strcmp(name, "experimental_ref")) return builtin_new("Variable.experimental_ref", tensor_ref_m, self, NULL);
  if (!strcmp(name, "device")) return str_from_cstr(dist_device());
  if (!strcmp(name, "sparse_read")) return builtin_new("Variable.sparse_read", var_sparse_read_m, self, NULL);
  if (!strcmp(name, "gather_nd")) return builtin_new("Variable.gather_nd", var_gather_nd_m, self, NULL);
  for (int k = 0; k < 5; k++)
    if (!strcmp(name, var_scatter_names[k])) return builtin_new(var_scatter_names[k], var_scatter_fns[k], self, NULL);
  if (!strcmp(name, "batch_scatter_update")) return builtin_new("batch_scatter_update", var_batch_scatter_update_m, self, NULL);
  for (int k = 0; k < 7; k++)
    if (!strcmp(name, var_rscatter_names[k])) return builtin_new(var_rscatter_names[k], var_rscatter_fns[k], self, NULL);
  return val_undef();
}


/* The tensor layer defines tf.Tensor and tf.Variable with their storage and
 * printing; their operators and methods dispatch to the op table, so they are
 * set here, by the layer that owns the table, at start-up. */
void tensorobj_register(void) {
  tensor_type.getattr = tensor_getattr;
  tensor_type.setattr = tensor_setattr;
  tensor_type.getitem = tensor_getitem;
  tensor_type.iter = tensor_iter;
  tensor_type.len = tensor_len;
  tensor_type.binop = tensor_binop;
  tensor_type.unop = tensor_unop;
  tensor_type.compare = tensor_compare;
  tensor_type.truthy = tensor_truthy;
  tensor_type.eq = tensor_eq;
  tensor_type.hash = tensor_hash;
  variable_type.hash = variable_hash;
  variable_type.getattr = variable_getattr;
  variable_type.getitem = tensor_getitem;
  variable_type.iter = tensor_iter;
  variable_type.binop = tensor_binop;
  variable_type.unop = tensor_unop;
  variable_type.compare = tensor_compare;
  variable_type.truthy = tensor_truthy;
}
