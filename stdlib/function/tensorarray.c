/* tensorarray.c — tf.TensorArray: a list of tensors kept in a variant TensorList, eagerly and as a loop-carried value in graphs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "function/tensorarray.h"
#include "modules/tfmod.h"
#include "graph/trace.h"

/* Every operation goes through the TensorList ops of the op table, so in a
 * tf.function they become graph nodes and the array's one tensor, its flow,
 * is what a tensor loop carries.  Eagerly, write() updates the array in place
 * and returns it (TF's _EagerTensorArray); in a graph it returns a new array
 * around the new flow (_GraphTensorArrayV2), which is why `ta = ta.write(...)`
 * is the idiom.  The eager checks and their texts are _EagerTensorArray's; in
 * graphs the kernels raise TensorList's. */

/* The inferred element shape is shared by every array derived from one
 * another (as TF's one-element list `_element_shape`), so a shape learned by
 * a write inside a loop body holds for the array the loop returns. */
typedef struct TAShape {
  tfs_i64 rc;
  int rank;                   /* -1 unknown */
  tfs_i64 dims[TFS_MAX_RANK];
} TAShape;

typedef struct TArr {
  Obj hdr;
  DType dt;
  bool dynamic_size, clear_after_read, infer_shape;
  TAShape *es;
  Val flow;                   /* the variant tensor (or a trace template leaf) */
  unsigned char *cleared;     /* eager clear_after_read: index read and not written since */
  tfs_i64 ncleared;
} TArr;

static TArr *ta_of(Val v) { return (TArr *)v.u.o; }

static void ta_free(Obj *o) {
  TArr *a = (TArr *)o;
  val_decref(a->flow);
  if (!--a->es->rc) free(a->es);
  free(a->cleared);
  free(a);
}

static void ta_repr(StrBuf *b, Val v) {
  sb_printf(b, "<tensorflow.python.ops.tensor_array_ops.TensorArray object at %p>", (void *)v.u.o);
}

static Val ta_getattr(Val self, const char *name);

const Type tensorarray_type = {.name = "TensorArray", .free = ta_free, .repr = ta_repr, .getattr = ta_getattr};

static TArr *ta_alloc(const TArr *like, Val flow) {
  TArr *a = obj_new(&tensorarray_type, sizeof(TArr));
  a->dt = like->dt;
  a->dynamic_size = like->dynamic_size;
  a->clear_after_read = like->clear_after_read;
  a->infer_shape = like->infer_shape;
  a->es = like->es;
  a->es->rc++;
  a->flow = val_incref(flow);
  a->cleared = NULL;
  a->ncleared = 0;
  return a;
}

Val tensorarray_with_flow(Val ta, Val flow) { return val_obj(ta_alloc(ta_of(ta), flow)); }
Val tensorarray_flow(Val ta) { return ta_of(ta)->flow; }

static bool ta_graph(const TArr *a) {
  Tensor *t = val_as_tensor(a->flow);
  return t && t->sym;
}

static Val ta_shape_val(const TArr *a) { return a->es->rank < 0 ? val_none() : tshape_new(a->es->rank, a->es->dims); }

/* op_apply with attributes v[0..na) (borrowed). */
static Val ta_op(OpId id, int nin, const Val *in, int na, const Val *av) {
  OpAttrs at = {.n = na};
  for (int i = 0; i < na; i++) at.v[i] = av[i];
  return op_apply(&op_defs[id], nin, in, &at);
}

static void ta_set_flow(TArr *a, Val flow) {
  val_decref(a->flow);
  a->flow = flow;
}

/* The index as a host int when it is known now (eager), else false. */
static bool ta_host_index(Val v, tfs_i64 *out) {
  Tensor *t = val_as_tensor(v);
  if (t) {
    if (t->sym || t->size != 1 || !dtype_info[t->dtype].is_int) return false;
    *out = tensor_get_i(t, 0);
    return true;
  }
  if (v.tag == VT_INT) { *out = v.u.i; return true; }
  return false;
}

static tfs_i64 ta_eager_size(const TArr *a) {
  TList *l = tlist_of(val_as_tensor(a->flow));
  return l ? l->n : 0;
}

static void ta_shape_str(StrBuf *b, int rank, const tfs_i64 *dims) {
  Val s = rank < 0 ? val_none() : tshape_new(rank, dims);
  if (rank < 0) sb_puts(b, "<unknown>");
  else val_str(b, s);
  val_decref(s);
}

/* The value to write as a tensor of the array's dtype (host values convert to it, as TF's preferred_dtype). */
static Val ta_value(TArr *a, Val v) {
  Tensor *t = val_as_tensor(v);
  Val tv = t ? val_incref(val_obj(t)) : val_obj(tensor_from_val(v, a->dt));
  t = val_tensor(tv);
  if (t->dtype != a->dt) {
    val_decref(tv);
    rt_throw(ERR_INVALID_ARGUMENT, "TensorArray dtype is %s but Op is trying to write dtype %s ", dtype_info[a->dt].name,
             dtype_info[t->dtype].name);
  }
  return tv;
}

/* infer_shape: the element shape merges with every written value's. */
static void ta_merge_shape(TArr *a, const Tensor *t, bool eager) {
  TAShape *es = a->es;
  bool ok = es->rank < 0 || es->rank == t->rank;
  for (int d = 0; ok && d < es->rank; d++) ok = es->dims[d] < 0 || t->shape[d] < 0 || es->dims[d] == t->shape[d];
  if (!ok) {
    StrBuf b = {0};
    sb_puts(&b, eager ? "Incompatible shape for value (" : "Inconsistent shapes: saw ");
    ta_shape_str(&b, t->rank, t->shape);
    sb_puts(&b, eager ? "), expected (" : " but expected ");
    ta_shape_str(&b, es->rank, es->dims);
    sb_puts(&b, eager ? ")" : " ");
    char *m = sb_steal(&b);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", m);
    free(m);
    /* errindex: Incompatible shape for value (…), expected (…) */
    /* errindex: Inconsistent shapes: saw … but expected … */
    rt_throw(ERR_VALUE, "%s", msg);
  }
  if (!a->infer_shape) return;
  if (es->rank < 0) {
    es->rank = t->rank;
    memcpy(es->dims, t->shape, (size_t)t->rank * sizeof(tfs_i64));
  } else {
    for (int d = 0; d < es->rank; d++)
      if (es->dims[d] < 0) es->dims[d] = t->shape[d];
  }
}

static void ta_uncleared(TArr *a, tfs_i64 i) {
  if (i < a->ncleared) a->cleared[i] = 0;
}

/* Write one element: eagerly in place, in a graph into a new array.  Owned result: the array written. */
static Val ta_write(Val self, Val index, Val value) {
  TArr *a = ta_of(self);
  tfs_i64 i = 0;
  bool eager = !ta_graph(a) && ta_host_index(index, &i);
  Val tv;
  if (eager) {
    if (i < 0) rt_throw(ERR_OUT_OF_RANGE, "Writing to negative indices (index %lld) is not allowed.", (long long)i);
    tfs_i64 n = ta_eager_size(a);
    if (i >= n && !a->dynamic_size)
      rt_throw(ERR_OUT_OF_RANGE, "Tried to write to index %lld but array is not resizeable and size is: %lld ",
               (long long)i, (long long)n);
  }
  tv = ta_value(a, value);
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb)) {
    val_decref(tv);
    rt_rethrow(&tr);
  }
  ta_merge_shape(a, val_tensor(tv), eager);
  Val in[3] = {a->flow, index, tv};
  Val at[1] = {val_bool(a->dynamic_size)};
  Val nf = ta_op(OP_TL_SET_ITEM, 3, in, 1, at);
  rt_try_pop(&tr);
  val_decref(tv);
  if (eager) {
    ta_set_flow(a, nf);
    ta_uncleared(a, i);
    return val_incref(self);
  }
  Val r = val_obj(ta_alloc(a, nf));
  val_decref(nf);
  return r;
}

//! TensorArray.write(index, value, name=None)
//!   Writes value at index and returns the array (a new one in a graph: write `ta = ta.write(i, x)`).
static Val m_write(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.write", .sig = "index, value, name=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  return ta_write(self, a[0], a[1]);
}

static Val ta_read(Val self, Val index) {
  TArr *a = ta_of(self);
  tfs_i64 i = 0;
  bool eager = !ta_graph(a) && ta_host_index(index, &i);
  if (eager) {
    tfs_i64 n = ta_eager_size(a);
    if (i < 0) rt_throw(ERR_OUT_OF_RANGE, "Reading from negative indices (index %lld) is not allowed.", (long long)i);
    if (i >= n)
      rt_throw(ERR_OUT_OF_RANGE, "Tried to read from index %lld but array size is: %lld ", (long long)i, (long long)n);
    if (i < a->ncleared && a->cleared[i])
      rt_throw(ERR_INVALID_ARGUMENT,
               "Could not read index %lld twice because it was cleared after a previous read (perhaps try setting "
               "clear_after_read = false?)",
               (long long)i);
  }
  Val sh = ta_shape_val(a);
  Val in[2] = {a->flow, index};
  Val at[2] = {sh, dtype_val(a->dt)};
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb)) {
    val_decref(sh);
    rt_rethrow(&tr);
  }
  Val r = ta_op(OP_TL_GET_ITEM, 2, in, 2, at);
  rt_try_pop(&tr);
  val_decref(sh);
  if (eager && a->clear_after_read) {
    TList *l = tlist_of(val_as_tensor(a->flow));
    if (l->items[i]) { tensor_release(l->items[i]); l->items[i] = NULL; }
    if (i >= a->ncleared) {
      tfs_i64 m = i + 1 > 2 * a->ncleared ? i + 1 : 2 * a->ncleared;
      unsigned char *p = realloc(a->cleared, (size_t)m);
      if (!p) rt_throw(ERR_RESOURCE_EXHAUSTED, "out of memory");
      memset(p + a->ncleared, 0, (size_t)(m - a->ncleared));
      a->cleared = p;
      a->ncleared = m;
    }
    a->cleared[i] = 1;
  }
  return r;
}

//! TensorArray.read(index, name=None)
//!   The element at index (zeros of the element shape if it was never written).
static Val m_read(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.read", .sig = "index, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return ta_read(self, a[0]);
}

/* Stack / gather / concat: one op reading the list with the element shape and dtype. */
static Val ta_collect(Val self, OpId id, Val indices) {
  TArr *a = ta_of(self);
  Val sh = ta_shape_val(a);
  Val in[2] = {a->flow, indices};
  int nin = id == OP_TL_GATHER ? 2 : 1;
  Val at[3] = {sh, dtype_val(a->dt), val_int(-1)};
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb)) {
    val_decref(sh);
    rt_rethrow(&tr);
  }
  Val r = ta_op(id, nin, in, id == OP_TL_STACK ? 3 : 2, at);
  rt_try_pop(&tr);
  val_decref(sh);
  return r;
}

//! TensorArray.stack(name=None)
//!   The elements stacked along a new first axis.
static Val m_stack(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.stack", .sig = "name=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  TArr *ta = ta_of(self);
  bool known = ta->es->rank >= 0;
  for (int d = 0; known && d < ta->es->rank; d++) known = ta->es->dims[d] >= 0;
  if (!ta_graph(ta) && !known && ta_eager_size(ta) == 0) {   /* TF's eager arrays: convert_to_tensor([]) */
    tfs_i64 zero = 0;
    return val_obj(tensor_new(ta->dt, 1, &zero));
  }
  return ta_collect(self, OP_TL_STACK, val_none());
}

//! TensorArray.gather(indices, name=None)
//!   The elements at indices, stacked along a new first axis.
static Val m_gather(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.gather", .sig = "indices, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return ta_collect(self, OP_TL_GATHER, a[0]);
}

//! TensorArray.concat(name=None)
//!   The elements concatenated along their first axis.
static Val m_concat(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.concat", .sig = "name=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return ta_collect(self, OP_TL_CONCAT, val_none());
}

/* A graph op gives a new array; eagerly the array itself changes. */
static Val ta_result(Val self, Val nf) {
  TArr *a = ta_of(self);
  if (!ta_graph(a) && !(val_as_tensor(nf) && val_as_tensor(nf)->sym)) {
    ta_set_flow(a, nf);
    a->ncleared = 0;
    return val_incref(self);
  }
  Val r = val_obj(ta_alloc(a, nf));
  val_decref(nf);
  return r;
}

//! TensorArray.unstack(value, name=None)
//!   Writes value[i] at index i for every i along value's first axis; returns the array.
static Val m_unstack(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.unstack", .sig = "value, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  TArr *ta = ta_of(self);
  Val tv = ta_value(ta, a[0]);
  Tensor *t = val_tensor(tv);
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb)) {
    val_decref(tv);
    rt_rethrow(&tr);
  }
  if (t->rank == 0) rt_throw(ERR_VALUE, "Cannot unstack a scalar TensorArray value");
  if (!ta_graph(ta) && !t->sym && !ta->dynamic_size && t->shape[0] > ta_eager_size(ta))
    rt_throw(ERR_VALUE, "Cannot unstack %lld tensors into a TensorArray of static size %lld ", (long long)t->shape[0],
             (long long)ta_eager_size(ta));
  Tensor el = *t;   /* the element shape: value's without its first axis */
  el.rank = t->rank - 1;
  memmove(el.shape, t->shape + 1, (size_t)el.rank * sizeof(tfs_i64));
  ta_merge_shape(ta, &el, !t->sym);
  Val sh = ta_shape_val(ta);
  Val in[1] = {tv};
  Val at[1] = {sh};
  Val nf = ta_op(OP_TL_FROM_TENSOR, 1, in, 1, at);
  val_decref(sh);
  rt_try_pop(&tr);
  val_decref(tv);
  return ta_result(self, nf);
}

//! TensorArray.scatter(indices, value, name=None)
//!   Writes value[k] at index indices[k]; returns the array.
static Val m_scatter(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.scatter", .sig = "indices, value, name=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  TArr *ta = ta_of(self);
  Val tv = ta_value(ta, a[1]);
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb)) {
    val_decref(tv);
    rt_rethrow(&tr);
  }
  Tensor *t = val_tensor(tv);
  if (t->rank == 0) rt_throw(ERR_VALUE, "Cannot scatter a scalar TensorArray value");
  if (!ta_graph(ta) && !t->sym && !ta->dynamic_size) {
    Tensor *it = val_as_tensor(a[0]);
    tfs_i64 n = ta_eager_size(ta), cnt = 0, i;
    Val iv = it ? val_undef() : val_obj(tensor_from_val(a[0], DT_INT32));
    if (!it) it = val_tensor(iv);
    cnt = it->size;
    for (tfs_i64 k = 0; k < cnt; k++)
      if ((i = tensor_get_i(it, k)) >= n || i < 0) {
        val_decref(iv);
        if (i < 0) rt_throw(ERR_OUT_OF_RANGE, "Writing to negative indices (index %lld) is not allowed.", (long long)i);
        rt_throw(ERR_OUT_OF_RANGE, "Tried to write to index %lld but array is not resizeable and size is: %lld ",
                 (long long)i, (long long)n);
      }
    val_decref(iv);
  }
  Tensor el = *t;
  el.rank = t->rank - 1;
  memmove(el.shape, t->shape + 1, (size_t)el.rank * sizeof(tfs_i64));
  ta_merge_shape(ta, &el, !t->sym);
  Val in[3] = {ta->flow, tv, a[0]};
  Val nf = ta_op(OP_TL_SCATTER, 3, in, 0, NULL);
  rt_try_pop(&tr);
  val_decref(tv);
  return ta_result(self, nf);
}

//! TensorArray.size(name=None)
//!   The number of elements, as a scalar int32 tensor.
static Val m_size(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.size", .sig = "name=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Val in[1] = {ta_of(self)->flow};
  return ta_op(OP_TL_LENGTH, 1, in, 0, NULL);
}

//! TensorArray.close(name=None)
//!   Empties the array (eagerly); a no-op in graphs, as in TF 2.
static Val m_close(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TensorArray.close", .sig = "name=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  TArr *ta = ta_of(self);
  TList *l = tlist_of(val_as_tensor(ta->flow));
  if (l && !ta_graph(ta)) {
    Val sh = ta_shape_val(ta);
    Val in[1] = {val_int(0)};
    Val at[2] = {sh, dtype_val(ta->dt)};
    Val nf = ta_op(OP_TL_RESERVE, 1, in, 2, at);
    val_decref(sh);
    ta_set_flow(ta, nf);
  }
  return val_none();
}

//! TensorArray.identity()
//!   The array itself (TF: a new array with the same flow).
static Val m_identity(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  return val_obj(ta_alloc(ta_of(self), ta_of(self)->flow));
}

static Val ta_getattr(Val self, const char *name) {
  static const struct { const char *name, *qual; BuiltinFn fn; } methods[] = {
    {"write", "TensorArray.write", m_write},       {"read", "TensorArray.read", m_read},
    {"stack", "TensorArray.stack", m_stack},       {"unstack", "TensorArray.unstack", m_unstack},
    {"gather", "TensorArray.gather", m_gather},    {"scatter", "TensorArray.scatter", m_scatter},
    {"concat", "TensorArray.concat", m_concat},    {"size", "TensorArray.size", m_size},
    {"close", "TensorArray.close", m_close},       {"identity", "TensorArray.identity", m_identity},
  };
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    if (!strcmp(name, methods[i].name)) return builtin_new(methods[i].qual, methods[i].fn, self, NULL);
  TArr *a = ta_of(self);
  if (!strcmp(name, "dtype")) return dtype_val(a->dt);
  if (!strcmp(name, "element_shape")) return tshape_new(a->es->rank, a->es->dims);
  if (!strcmp(name, "dynamic_size")) return val_bool(a->dynamic_size);
  if (!strcmp(name, "flow")) return val_incref(a->flow);
  return val_undef();
}

//! tf.TensorArray(dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None, handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True, name=None)
//!   A list of tensors of one dtype that a tensor loop can carry: write, read, stack, unstack, gather, scatter,
//!   concat, size. In a tf.function it is a TensorList variant and every method is a graph op.
static Val tf_tensor_array(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.TensorArray",
                         .sig = "dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None, "
                                "handle=None, flow=None, infer_shape=True, element_shape=None, "
                                "colocate_with_first_write_call=True, name=None"};
  Val a[11];
  args_parse(&spec, n, args, kw, a);
  DType dt;
  if (!val_as_dtype_arg(a[0], &dt)) dtype_fail(a[0]);
  if (dt == DT_VARIANT) rt_throw(ERR_TYPE, "tf.TensorArray: a TensorArray of variants is not supported");
  if (a[5].tag != VT_NONE) rt_throw(ERR_VALUE, "TensorArray handles are not supported when eager execution is enabled.");
  if (a[6].tag != VT_NONE) rt_throw(ERR_VALUE, "tf.TensorArray: flow= is not supported; use the array a method returned");
  bool tracing = trace_current() != NULL;
  if (a[1].tag == VT_NONE && !tracing)
    rt_throw(ERR_VALUE, "Size must be declared for TensorArrays when eager execution is enabled.");
  TAShape es = {.rc = 1, .rank = -1};
  if (a[8].tag != VT_NONE && !val_as_tshape(a[8], &es.rank, es.dims))
    es.rank = val_to_dims(a[8], es.dims, true, "element_shape");
  TArr proto = {.dt = dt, .dynamic_size = a[2].tag != VT_NONE && rt_truthy(a[2]),
                .clear_after_read = a[3].tag == VT_NONE || rt_truthy(a[3]), .infer_shape = rt_truthy(a[7]), .es = &es};
  Val sh = ta_shape_val(&proto);
  Val in[1] = {a[1].tag == VT_NONE ? val_int(0) : a[1]};
  Val at[2] = {sh, dtype_val(dt)};
  RtTry tr;
  rt_try_push(&tr);
  if (setjmp(tr.jb)) {
    val_decref(sh);
    rt_rethrow(&tr);
  }
  Val flow = ta_op(OP_TL_RESERVE, 1, in, 2, at);
  rt_try_pop(&tr);
  val_decref(sh);
  TAShape *shared = malloc(sizeof *shared);
  if (!shared) {
    val_decref(flow);
    rt_throw(ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  *shared = es;
  shared->rc = 0;
  proto.es = shared;
  Val r = val_obj(ta_alloc(&proto, flow));
  val_decref(flow);
  return r;
}

/* tf.TensorArray is the class itself: calling it makes an array, isinstance(x, tf.TensorArray) tests for one. */
__attribute__((constructor)) static void tensorarray_ctor(void) {
  Val t = typeobj_for(&tensorarray_type);
  ((TypeObj *)t.u.o)->ctor = tf_tensor_array;
  tfmod_register("TensorArray", t);
}
