/* tfmod.c — the `tf` module and its submodules (math, nn, random, dtypes, linalg, config, debugging) as native modules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "modules/modules.h"
#include "object/object.h"
#include "kernels/ops.h"
#include "modules/tfdata.h"
#include "modules/tfmod.h"
#include "modules/tfoperation.h"
#include "graph/trace.h"

/* ---- attribute cache: qualified name ("math.add") -> value ----------------------
 * Attribute lookups run on every `tf.add` the program evaluates, so they are a
 * hash probe; values are built on first use and live for the whole run. */

#define TF_HT_SIZE 1024
typedef struct TfEntry { char *name; Val v; } TfEntry;
static TfEntry tf_ht[TF_HT_SIZE];

static unsigned tf_hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static TfEntry *tf_slot(const char *name) {
  unsigned i = tf_hash(name) & (TF_HT_SIZE - 1);
  while (tf_ht[i].name && strcmp(tf_ht[i].name, name)) i = (i + 1) & (TF_HT_SIZE - 1);
  return &tf_ht[i];
}

void tfmod_register(const char *qualname, Val v) {
  TfEntry *e = tf_slot(qualname);
  if (e->name) {
    TFS_DECREF(e->v);
  } else {
    e->name = strdup(qualname);
    if (!e->name) rt_throw(ERR_MEMORY, "out of memory");
  }
  e->v = val_incref(v);
}

/* ---- functions that are not table ops ------------------------------------------- */

/* tf.constant(t, shape=shape): a scalar broadcast, another value reshaped; t is released. */
static Val tfmod_constant_shaped(Tensor *t, Val shape) {
  tfs_i64 dims[TFS_MAX_RANK];
  int r = val_to_dims(shape, dims, false, "tf.constant");
  tfs_i64 size = 1;
  for (int i = 0; i < r; i++) size *= dims[i];
  Val tv = val_obj(t);
  Val res;
  if (t->size == 1 && size != 1) {
    OpAttrs at = {1, {shape}};
    res = op_apply(&op_defs[OP_BROADCAST_TO], 1, &tv, &at);
  } else if (t->size == size) {
    OpAttrs at = {1, {shape}};
    res = op_apply(&op_defs[OP_RESHAPE], 1, &tv, &at);
  } else {
    StrBuf b1, b2;
    sb_init(&b1);
    sb_init(&b2);
    shape_format(&b1, t->rank, t->shape);
    shape_format(&b2, r, dims);
    static char m1[256], m2[256];
    snprintf(m1, sizeof m1, "%.*s", (int)b1.len, b1.data);
    snprintf(m2, sizeof m2, "%.*s", (int)b2.len, b2.data);
    sb_free(&b1);
    sb_free(&b2);
    tensor_release(t);
    rt_throw(ERR_TYPE, "Eager execution of tf.constant with unsupported shape. Tried to convert tensor of shape %s to tensor of shape %s.", m1, m2);
  }
  tensor_release(t);
  return res;
}

//! tf.constant(value, dtype=None, shape=None, name=None)
//!   Creates a tensor from a Python scalar, nested list, numpy array or tensor. Python ints become int32 and floats
//!   float32 unless dtype says otherwise; with shape, a scalar is broadcast and other values are reshaped. In a traced
//!   function it is a Const node where it is written, named name (default 'Const'), made unique: Const_1...
static Val tf_constant(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.constant", .sig = "value, dtype=None, shape=None, name=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  op_eager_note();   /* TF initializes its eager context to make a tensor */
  int want = -1;
  DType dt;
  if (a[1].tag != VT_NONE && a[1].tag != VT_UNDEF) {
    if (!val_as_dtype_arg(a[1], &dt)) dtype_fail(a[1]);
    want = dt;
  }
  Tensor *src = val_as_tensor(a[0]);
  Tensor *t;
  if (src && src->sym) {
    if (want >= 0 && (int)src->dtype != want)
      rt_throw(ERR_TYPE, "Expected tensor with dtype %s, but got dtype %s", dtype_info[want].name, dtype_info[src->dtype].name);
    t = tensor_retain(src);
  } else if (val_is_ndarray(a[0]) && want >= 0 && (int)src->dtype != want) {
    /* numpy arrays convert with a cast, as np.asarray(v, dtype) does */
    Val dv = dtype_val((DType)want);
    OpAttrs at = {1, {dv}};
    int host = op_host_begin();   /* TF converts on the host: one Const of the cast value, no Cast node */
    Val c = op_apply(&op_defs[OP_CAST], 1, &a[0], &at);
    op_host_end(host);
    t = val_tensor(c);
  } else {
    t = tensor_from_val(a[0], want);
  }
  const char *name = val_is(a[3], &str_type) ? str_cstr(a[3]) : NULL;
  if (a[2].tag == VT_NONE || a[2].tag == VT_UNDEF) {
    if (t != src) trace_literal(t, name);   /* made by a function being traced: its literal, not a capture */
    return val_obj(t);
  }
  /* shape=: TF folds the value into one Const, so a value of the traced function is reshaped on the host */
  int host = t != src ? op_host_begin() : -1;
  Val res = tfmod_constant_shaped(t, a[2]);
  if (host >= 0) {
    op_host_end(host);
    trace_literal(val_as_tensor(res), name);
  }
  return res;
}

//! tf.convert_to_tensor(value, dtype=None, dtype_hint=None, name=None)
//!   Returns value as a tensor: tensors pass through (dtype must match), Variables are read, Python values are converted;
//!   dtype_hint is used only when the value converts to it without loss.
static Val tf_convert_to_tensor(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.convert_to_tensor", .sig = "value, dtype=None, dtype_hint=None, name=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  op_eager_note();   /* TF initializes its eager context to make a tensor */
  Tensor *t = val_as_tensor(a[0]);
  DType dt;
  int want = -1;
  if (a[1].tag != VT_NONE && a[1].tag != VT_UNDEF) {
    if (!val_as_dtype_arg(a[1], &dt)) dtype_fail(a[1]);
    want = dt;
  }
  if (t && val_is_tensor(a[0])) {
    if (want >= 0 && (int)t->dtype != want) {
      Val r = repr_of(a[0]);   /* TF's text ends with the tensor's repr */
      rt_hold_val(r);
      rt_throw(ERR_VALUE, "Tensor conversion requested dtype %s for Tensor with dtype %s: %s", dtype_info[want].name,
               dtype_info[t->dtype].name, str_cstr(r));
    }
    return val_incref(a[0]);
  }
  if (want < 0 && a[2].tag != VT_NONE && a[2].tag != VT_UNDEF && val_as_dtype(a[2], &dt)) {
    /* dtype_hint: used only when the default conversion allows it */
    if (!(a[0].tag == VT_FLOAT && !dtype_info[dt].is_float)) want = dt;
  }
  if (t && val_is(a[0], &variable_type)) return op_apply1(OP_READ_VARIABLE, a[0]);
  if (!t && trace_active() && trace_val_symbolic(a[0])) return trace_pack(a[0], want);
  Tensor *r = tensor_from_val(a[0], want);
  trace_literal(r, val_is(a[3], &str_type) ? str_cstr(a[3]) : NULL);   /* TF's constant_op: a Const of the graph */
  return val_obj(r);
}

/* tf.Variable(shape=...): the shape later values must be compatible with (TensorShape(None): any), checked
 * against the initial value as TF does. */
static void tfmod_declare_shape(Variable *v, Val shape) {
  tfs_i64 dims[TFS_MAX_RANK];
  int rank = val_shape_like(shape, dims, "tf.Variable");
  const Tensor *t = v->value;
  if (!shape_compatible(rank, dims, t->rank, t->shape)) {
    StrBuf a, b;
    sb_init(&a);
    sb_init(&b);
    shape_format(&a, t->rank, t->shape);
    val_str(&b, shape);
    char ta[256], tb[256];
    snprintf(ta, sizeof ta, "%s", a.data ? a.data : "");
    snprintf(tb, sizeof tb, "%s", b.data ? b.data : "");
    sb_free(&a);
    sb_free(&b);
    rt_throw(ERR_VALUE, "In this `tf.Variable` creation, the initial value's shape (%s) is not compatible with the explicitly "
             "supplied `shape` argument (%s).", ta, tb);
  }
  v->decl_rank = rank;
  if (rank > 0) memcpy(v->decl_shape, dims, sizeof(tfs_i64) * (size_t)rank);
}

//! tf.Variable(initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None, variable_def=None, dtype=None, import_scope=None, constraint=None, synchronization=None, aggregation=None, shape=None)
//!   A mutable tensor: read it like a tensor, change it with assign, assign_add and assign_sub. Trainable variables
//!   are watched by tf.GradientTape automatically. Inside tf.function Variables are created on the first call only:
//!   a first call whose trace created one traces again with creation forbidden (so an unconditional tf.Variable fails
//!   there); create them outside, or behind a guard such as `if self.v is None:`.
static Val tf_variable(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.Variable",
                         .sig = "initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None, "
                                "variable_def=None, dtype=None, import_scope=None, constraint=None, "
                                "synchronization=None, aggregation=None, shape=None"};
  Val a[12];
  args_parse(&spec, n, args, kw, a);
  if (a[0].tag == VT_NONE || a[0].tag == VT_UNDEF) rt_throw(ERR_VALUE, "initial_value must be specified.");
  bool trainable = !(a[1].tag == VT_BOOL && !a[1].u.i);
  Val init = a[0];
  int mark = -1;
  if (init.tag == VT_OBJ && init.u.o->type->call && !val_is(init, &tensor_type)) {
    /* a callable initial value runs eagerly even while tracing (TF's init_scope):
     * tf.keras' initializers draw random numbers this way */
    Val none = val_none();
    void *tok = trace_enter_init_scope(&none);
    init = rt_call(a[0], 0, NULL, NULL);
    trace_leave_init_scope(tok);
    mark = rt_hold_val(init);
  }
  /* tf.function tracing may create variables through this hook */
  Val r = tfmod_variable_hook ? tfmod_variable_hook(init, a[4], trainable, a[6]) : val_undef();
  if (r.tag == VT_UNDEF) r = variable_new(init, a[4], trainable, a[6]);
  if (a[11].tag != VT_NONE && a[11].tag != VT_UNDEF && val_is(r, &variable_type)) {
    int m = rt_hold_val(r);   /* released if the shape does not fit */
    tfmod_declare_shape((Variable *)r.u.o, a[11]);
    rt_unhold(m);
  }
  if (dist_mirroring() && val_is(r, &variable_type) && !((Variable *)r.u.o)->sym &&
      ((Variable *)r.u.o)->value && !((Variable *)r.u.o)->value->sym) {
    /* under a strategy's scope every rank starts from the chief's value (§18.4) */
    int m2 = rt_hold_val(r);
    Tensor *b = dist_broadcast(((Variable *)r.u.o)->value, 0);
    Val bv = val_obj(b);
    rt_hold_val(bv);
    variable_assign((Variable *)r.u.o, bv, 0);
    rt_unhold(m2);
    val_decref(bv);
  }
  if (mark >= 0) {
    rt_unhold(mark);
    val_decref(init);
  }
  return r;
}
Val (*tfmod_variable_hook)(Val initial, Val name, bool trainable, Val dtype);

//! tf.is_tensor(x)
//!   True for a tensor (eager or symbolic) or a tf.Variable.
static Val tf_is_tensor(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.is_tensor", .sig = "x"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return val_bool(val_is_tensor(a[0]) || val_is(a[0], &variable_type));
}

//! tf.TensorShape(dims)
//!   A static shape: a list of dimensions, None for unknown ones; as_list() returns them as a list.
static Val tf_tensorshape(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.TensorShape", .sig = "dims"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  if (a[0].tag == VT_INT) {
    dims[0] = a[0].u.i;
    return tshape_new(1, dims);
  }
  if (!val_as_tshape(a[0], &rank, dims)) {
    Tensor *t = val_as_tensor(a[0]);
    if (t) return tshape_new(t->rank, t->shape);
    rt_throw(ERR_TYPE, "tf.TensorShape: expected a list of dimensions, got %s", val_type_name(a[0]));
  }
  return tshape_new(rank, dims);
}

//! tf.print(*inputs, output_stream='stdout', sep=' ', end='\n', summarize=3, name=None)
//!   Prints tensors and Python values; inside tf.function it is an op, so it prints on every call, not once per trace.
//!   Tensors print as TF prints them (no dtype or shape); output_stream may be 'stdout' or 'stderr'.  Returns None
//!   eagerly; while tracing its PrintV2 operation (a tf.Operation, e.g. for tf.control_dependencies).
static Val tf_print(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  Val sep = str_from_cstr(" "), end = str_from_cstr("\n"), stream = str_from_cstr("stdout"), summarize = val_int(3);
  for (int i = 0; kw && i < kw->n; i++) {
    const char *k = kw->names[i];
    Val v = kw->vals[i];
    Val *dst = !strcmp(k, "sep") ? &sep : !strcmp(k, "end") ? &end : !strcmp(k, "output_stream") ? &stream
             : !strcmp(k, "summarize") ? &summarize : NULL;
    if (!strcmp(k, "name")) continue;
    if (!dst) {
      TFS_DECREF(sep); TFS_DECREF(end); TFS_DECREF(stream);
      rt_throw(ERR_TYPE, "tf.print() got an unexpected keyword argument '%s'", k);
    }
    TFS_DECREF(*dst);
    *dst = val_incref(v);
  }
  OpAttrs at = {4, {stream, sep, end, summarize}};
  Graph *g = tfop_tracing_graph();
  int before = g ? g->nnodes : 0;
  Val r = op_apply(&op_defs[OP_PRINT], n, args, &at);
  if (g && g->nnodes > before && g->nodes[g->nnodes - 1].op == &op_defs[OP_PRINT]) {   /* TF: the PrintV2 op */
    TFS_DECREF(r);
    r = tfop_new(g, g->nnodes - 1);
  }
  TFS_DECREF(sep);
  TFS_DECREF(end);
  TFS_DECREF(stream);
  TFS_DECREF(summarize);
  return r;
}

//! tf.random.set_seed(seed)
//!   Sets the global random seed, making the following tf.random ops and dropout repeatable.
static Val tf_set_seed(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.random.set_seed", .sig = "seed"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (a[0].tag == VT_NONE) random_set_seed(false, 0);
  else random_set_seed(true, val_to_index(a[0], "seed"));
  return val_none();
}

bool tfmod_run_eagerly;

//! tf.config.run_functions_eagerly(run_eagerly)
//!   When true, tf.function runs its Python body eagerly instead of tracing a graph (for debugging).
static Val tf_run_eagerly(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.config.run_functions_eagerly", .sig = "run_eagerly"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  tfmod_run_eagerly = rt_truthy(a[0]);
  return val_none();
}

//! tf.debugging.enable_check_numerics(stack_height_limit=30, path_length_limit=50)
//!   From now on every floating output of an op (eager, and in functions traced afterwards) holding an Inf or NaN
//!   raises InvalidArgumentError naming the op, the output, its dtype and shape, the counts of -Inf, +Inf and NaN
//!   (eagerly) and the op's inputs, as TF's check_numerics callback; the error's location is the op's line (TF's
//!   graph form prints the creation stack instead). Ops that only move values (reshape, concat, gather, ...) are
//!   not checked, as in TF.
static Val tf_enable_check_numerics(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.debugging.enable_check_numerics", .sig = "stack_height_limit=30, path_length_limit=50"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  op_check_numerics = true;
  return val_none();
}

//! tf.debugging.disable_check_numerics()
//!   Turns tf.debugging.enable_check_numerics off (functions traced while it was on keep their checks).
static Val tf_disable_check_numerics(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.debugging.disable_check_numerics", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  op_check_numerics = false;
  return val_none();
}

/* The deprecated alias TF 2 still exports: it warns once on stderr, as TF's
 * deprecation decorator logs, naming the caller's file and line. */
//! tf.config.experimental_run_functions_eagerly(run_eagerly)
//!   Deprecated alias of tf.config.run_functions_eagerly; warns once on stderr.
/* TF's @deprecated log line, once per function (*warned), naming the caller's file and line; `text` follows
 * "From file:line: " (the function, its module, the instructions). */
void tfmod_deprecated(bool *warned, const char *text) {
  if (*warned) return;
  *warned = true;
  const RtLoc *l = rt_loc_get(rt_cur_loc);
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  rt_flush();
  fprintf(stderr, "WARNING:tensorflow:From %s:%d: %s", f ? f->path : "<unknown>", l ? l->line : 0, text);
}

static Val tf_run_eagerly_experimental(Val self, int n, const Val *args, const Kw *kw) {
  static bool warned;
  tfmod_deprecated(&warned,
                   "experimental_run_functions_eagerly (from "
                   "tensorflow.python.eager.polymorphic_function.polymorphic_function) is deprecated and will be removed "
                   "in a future version.\nInstructions for updating:\nUse `tf.config.run_functions_eagerly` instead of "
                   "the experimental version.\n");
  return tf_run_eagerly(self, n, args, kw);
}

//! tf.config.functions_run_eagerly()
//!   Whether tf.function currently runs eagerly (see tf.config.run_functions_eagerly).
static Val tf_functions_run_eagerly(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.config.functions_run_eagerly", .sig = ""};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return val_bool(tfmod_run_eagerly);
}

//! tf.dtypes.as_dtype(type_value) | tf.as_dtype(type_value)
//!   Returns the tf.DType for a dtype or a dtype name such as 'float32'.
static Val tf_as_dtype(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.dtypes.as_dtype", .sig = "type_value"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  DType dt;
  if (!val_as_dtype_arg(a[0], &dt)) dtype_fail(a[0]);
  return dtype_val(dt);
}

//! tf.name_scope(name) | tf.device(device_name)
//!   Context managers accepted for compatibility: names and devices do not change what tfs computes.
/* ---- tensordot: composed of transpose, reshape and matmul (as TF composes it), so it traces and differentiates ---- */

/* One side's contraction axes from `axes` (an int list/tuple or a single int), normalised against rank. */
static int td_axes(Val v, int rank, int *ax) {
  tfs_i64 d[TFS_MAX_RANK + 1];
  int64_t one;
  int n;
  if (val_as_int(v, &one)) n = 1, d[0] = one;
  else n = val_to_dims(v, d, false, "tf.tensordot axes");
  if (n > rank) rt_throw(ERR_VALUE, "tf.tensordot: %d contraction axes for a tensor of rank %d", n, rank);
  for (int i = 0; i < n; i++) {
    if (d[i] < -rank || d[i] >= rank) rt_throw(ERR_VALUE, "tf.tensordot: axis %lld is out of range for rank %d", (long long)d[i], rank);
    ax[i] = (int)(d[i] < 0 ? d[i] + rank : d[i]);
    for (int j = 0; j < i; j++)
      if (ax[j] == ax[i]) rt_throw(ERR_VALUE, "tf.tensordot: repeated axis %d", ax[i]);
  }
  return n;
}

static Val td_int_tuple(int n, const tfs_i64 *v) {
  Val t = tuple_new(n);
  for (int i = 0; i < n; i++) ((Tuple *)t.u.o)->items[i] = val_int(v[i]);
  return t;
}

/* x transposed to `perm` and reshaped to [rows, cols] (owned). */
static Val td_matrix(Val x, const tfs_i64 *perm, int rank, tfs_i64 rows, tfs_i64 cols) {
  OpAttrs at = {.n = 1};
  at.v[0] = td_int_tuple(rank, perm);
  int mark = rt_hold_val(at.v[0]);
  Val t = op_apply(&op_defs[OP_TRANSPOSE], 1, &x, &at);
  rt_hold_val(t);
  tfs_i64 mat[2] = {rows, cols};
  OpAttrs rs = {.n = 1};
  rs.v[0] = td_int_tuple(2, mat);
  rt_hold_val(rs.v[0]);
  Val m = op_apply(&op_defs[OP_RESHAPE], 1, &t, &rs);
  rt_unhold(mark);
  val_decref(at.v[0]);
  val_decref(t);
  val_decref(rs.v[0]);
  return m;
}

/* mm reshaped to x's free dimensions fa then y's fb, taken from their run-time shapes (tf.shape, gather, concat),
 * with the static shape `out` (-1 unknown) set on it as TF's tensordot sets it (owned). */
static Val td_dynamic_shape(Val mm, Val x, const tfs_i64 *fa, int nfa, Val y, const tfs_i64 *fb, int nfb, int nout, const tfs_i64 *out) {
  Val own[16];   /* every temporary: held against an error, released at the end */
  int n = 0, mark = -1;
#define TD_OWN(v) (own[n] = (v), mark < 0 ? (void)(mark = rt_hold_val(own[n])) : (void)rt_hold_val(own[n]), own[n++])
  const char *fns[] = {"shape", "gather", "concat", "reshape"};
  Val f[4];
  for (int i = 0; i < 4; i++) f[i] = TD_OWN(tfmod_lookup(fns[i]));
  Val parts = TD_OWN(list_new(2));
  Val src[2] = {x, y};
  const tfs_i64 *idx[2] = {fa, fb};
  int nidx[2] = {nfa, nfb};
  for (int s = 0; s < 2; s++) {
    Val ga[2] = {TD_OWN(rt_call(f[0], 1, &src[s], NULL)), TD_OWN(td_int_tuple(nidx[s], idx[s]))};
    list_append(parts, TD_OWN(rt_call(f[1], 2, ga, NULL)));
  }
  Val ca[2] = {parts, val_int(0)};
  Val ra[2] = {mm, TD_OWN(rt_call(f[2], 2, ca, NULL))};
  Val r = TD_OWN(rt_call(f[3], 2, ra, NULL));
  OpAttrs at = {1, {TD_OWN(tshape_new(nout, out))}};
  Val e = op_apply(&op_defs[OP_ENSURE_SHAPE], 1, &r, &at);
#undef TD_OWN
  rt_unhold(mark);
  for (int i = 0; i < n; i++) val_decref(own[i]);
  return e;
}

//! tf.tensordot(a, b, axes, name=None) | tf.linalg.tensordot(a, b, axes, name=None)
//!   Sums the products of a's and b's elements over the given axes: an int n (the last n of a with the first n of b)
//!   or a pair [axes_a, axes_b]; the result has a's free dimensions, then b's.
static Val tf_tensordot(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.tensordot", .sig = "a, b, axes, name=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  Val x = op_apply(&op_defs[OP_IDENTITY], 1, &a[0], NULL);   /* host values become tensors (or graph nodes) */
  int mark = rt_hold_val(x);
  Val y = op_apply(&op_defs[OP_IDENTITY], 1, &a[1], NULL);
  rt_hold_val(y);
  Tensor *tx = val_as_tensor(x), *ty = val_as_tensor(y);
  int rx = tx->rank, ry = ty->rank;
  if (rx < 0 || ry < 0) rt_throw(ERR_UNIMPLEMENTED, "tf.tensordot needs tensors of known rank");
  int ax[TFS_MAX_RANK], bx[TFS_MAX_RANK], na, nb;
  int64_t k;
  if (val_as_int(a[2], &k)) {
    if (k < 0) rt_throw(ERR_VALUE, "'axes' must be at least 0.");
    if (k > rx || k > ry)
      rt_throw(ERR_VALUE, "`axes` must not be larger than the number of dimensions of tensor a or b. Received %lld, vs tensor dimensions %d and %d.",
               (long long)k, rx, ry);
    na = nb = (int)k;
    for (int i = 0; i < na; i++) ax[i] = rx - na + i, bx[i] = i;
  } else {
    bool pair = (val_is(a[2], &list_type) && ((List *)a[2].u.o)->len == 2) || (val_is(a[2], &tuple_type) && ((Tuple *)a[2].u.o)->len == 2);
    if (!pair) rt_throw(ERR_VALUE, "'axes' must be an integer or have length 2.");
    const Val *items = val_is(a[2], &list_type) ? ((List *)a[2].u.o)->items : ((Tuple *)a[2].u.o)->items;
    na = td_axes(items[0], rx, ax);
    nb = td_axes(items[1], ry, bx);
    if (na != nb) rt_throw(ERR_VALUE, "Different number of contraction axes 'a' and 'b', %d != %d.", na, nb);
  }
  for (int i = 0; i < na; i++) {
    if (tx->shape[ax[i]] < 0 || ty->shape[bx[i]] < 0) rt_throw(ERR_UNIMPLEMENTED, "tf.tensordot needs contracted dimensions of known size");
    if (tx->shape[ax[i]] != ty->shape[bx[i]])
      rt_throw(ERR_INVALID_ARGUMENT, "tf.tensordot: contracted dimensions differ: a.shape[%d] = %lld vs. b.shape[%d] = %lld", ax[i],
               (long long)tx->shape[ax[i]], bx[i], (long long)ty->shape[bx[i]]);
  }
  /* a -> [free_a..., axes_a...] as [M, K]; b -> [axes_b..., free_b...] as [K, N]; a free dimension of unknown size
   * (a KerasTensor's batch) makes M or N -1 and the result's shape dynamic, as TF's tensordot does */
  tfs_i64 pa[TFS_MAX_RANK], pb[TFS_MAX_RANK], out[2 * TFS_MAX_RANK], fa[TFS_MAX_RANK], fb[TFS_MAX_RANK], M = 1, K = 1, N = 1;
  int npa = 0, npb = 0, nout = 0, nfa = 0, nfb = 0;
  for (int d = 0; d < rx; d++) {
    bool c = false;
    for (int i = 0; i < na; i++) c |= ax[i] == d;
    if (!c) pa[npa++] = d, fa[nfa++] = d, M = M < 0 || tx->shape[d] < 0 ? -1 : M * tx->shape[d], out[nout++] = tx->shape[d];
  }
  for (int i = 0; i < na; i++) pa[npa++] = ax[i], K *= tx->shape[ax[i]];
  for (int i = 0; i < nb; i++) pb[npb++] = bx[i];
  for (int d = 0; d < ry; d++) {
    bool c = false;
    for (int i = 0; i < nb; i++) c |= bx[i] == d;
    if (!c) pb[npb++] = d, fb[nfb++] = d, N = N < 0 || ty->shape[d] < 0 ? -1 : N * ty->shape[d], out[nout++] = ty->shape[d];
  }
  if (nout > TFS_MAX_RANK) rt_throw(ERR_INVALID_ARGUMENT, "tf.tensordot: result rank %d exceeds %d", nout, TFS_MAX_RANK);
  Val mx = td_matrix(x, pa, rx, M, K);
  rt_hold_val(mx);
  Val my = td_matrix(y, pb, ry, K, N);
  rt_hold_val(my);
  Val mm = op_apply2(OP_MATMUL, mx, my);
  rt_hold_val(mm);
  Val r;
  if (M >= 0 && N >= 0) {
    OpAttrs rs = {.n = 1};
    rs.v[0] = td_int_tuple(nout, out);
    rt_hold_val(rs.v[0]);
    r = op_apply(&op_defs[OP_RESHAPE], 1, &mm, &rs);
    val_decref(rs.v[0]);
  } else {
    r = td_dynamic_shape(mm, x, fa, nfa, y, fb, nfb, nout, out);
  }
  rt_unhold(mark);
  Val drop[] = {x, y, mx, my, mm};
  for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) val_decref(drop[i]);
  return r;
}

//! tf.linalg.trace(x, name=None)
//!   The sum of the main diagonal of each matrix of x [..., M, N]: shape [...] (TF's reduce_sum of diag_part).
static Val tf_linalg_trace(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.linalg.trace", .sig = "x, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Val d = op_apply(&op_defs[OP_DIAG_PART], 1, &a[0], NULL);
  int mark = rt_hold_val(d);
  OpAttrs at = {.n = 2};
  at.v[0] = val_int(-1);
  at.v[1] = val_bool(false);
  Val r = op_apply(&op_defs[OP_SUM], 1, &d, &at);
  rt_unhold(mark);
  val_decref(d);
  return r;
}

//! tf.linalg.matrix_transpose(a, name='matrix_transpose', conjugate=False) | tf.linalg.adjoint(matrix, name=None)
//!   Transposes the last two dimensions of a [..., M, N] to [..., N, M]; conjugate=True (adjoint) also conjugates a
//!   complex tensor (real dtypes: conjugate changes nothing).
static Val tf_matrix_transpose(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.linalg.matrix_transpose", .sig = "a, name='matrix_transpose', conjugate=False"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  Val x = op_apply(&op_defs[OP_IDENTITY], 1, &a[0], NULL);
  int mark = rt_hold_val(x);
  int r = val_as_tensor(x)->rank;
  if (r < 0) rt_throw(ERR_UNIMPLEMENTED, "tf.linalg.matrix_transpose needs a tensor of known rank");
  if (r < 2) {
    if (r == 0) rt_throw(ERR_VALUE, "Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` with shape: ()");
    rt_throw(ERR_VALUE, "Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` with shape: (%lld,)",
             (long long)val_as_tensor(x)->shape[0]);
  }
  tfs_i64 perm[TFS_MAX_RANK];
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[r - 2] = r - 1, perm[r - 1] = r - 2;
  /* conjugate: Transpose's own attribute (TF's ConjugateTranspose for a complex tensor, a no-op for a real one) */
  OpAttrs at = {.n = 2};
  at.v[0] = td_int_tuple(r, perm);
  at.v[1] = val_bool(rt_truthy(a[2]));
  rt_hold_val(at.v[0]);
  Val t = op_apply(&op_defs[OP_TRANSPOSE], 1, &x, &at);
  rt_unhold(mark);
  val_decref(x);
  val_decref(at.v[0]);
  return t;
}

static Val tf_adjoint(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.linalg.adjoint", .sig = "matrix, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Val b[3] = {a[0], val_none(), val_bool(true)};   /* TF: matrix_transpose(matrix, conjugate=True) */
  return tf_matrix_transpose(val_none(), 3, b, NULL);
}

/* dispatch: TF decorates the function with add_dispatch_support, so on a KerasTensor it is a Keras op layer
 * (tfcore.c's wrapper) */
typedef struct TfFunc { const char *name; BuiltinFn fn; bool dispatch; } TfFunc;
static const TfFunc tf_funcs[] = {
  {"constant", tf_constant},
  {"tensordot", tf_tensordot, true},
  {"linalg.tensordot", tf_tensordot, true},
  {"linalg.trace", tf_linalg_trace, true},
  {"linalg.matrix_transpose", tf_matrix_transpose, true},
  {"linalg.adjoint", tf_adjoint, true},
  {"convert_to_tensor", tf_convert_to_tensor, true},
  {"Variable", tf_variable},
  {"is_tensor", tf_is_tensor},
  {"TensorShape", tf_tensorshape},
  {"print", tf_print},
  {"random.set_seed", tf_set_seed},
  {"config.run_functions_eagerly", tf_run_eagerly},
  {"debugging.enable_check_numerics", tf_enable_check_numerics},
  {"debugging.disable_check_numerics", tf_disable_check_numerics},
  {"config.experimental_run_functions_eagerly", tf_run_eagerly_experimental},
  {"config.functions_run_eagerly", tf_functions_run_eagerly},
  {"dtypes.as_dtype", tf_as_dtype},
  {"as_dtype", tf_as_dtype},
  {"name_scope", tf_name_scope},
  {"device", tf_device},
  {"init_scope", tf_init_scope},
};

/* ---- module objects --------------------------------------------------------------- */

static Val tf_lookup(const char *qual);
static Val keras_native_getattr(const char *name);

//! tf.math | tf.nn | tf.random | tf.linalg | tf.debugging
//!   Namespaces of tf: each holds the ops whose api names start with it (tf.math.add is tf.add).
//! tf.bitwise
//!   Bitwise ops of integer tensors: bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift.
//! tf.autodiff
//!   Automatic differentiation: ForwardAccumulator (forward mode) and GradientTape (reverse mode, as tf.GradientTape).
//! tf.signal
//!   Fourier transforms over the innermost axis (fft, ifft, rfft, irfft: complex64/float32, kissfft), fftshift,
//!   ifftshift, frame, hann_window, hamming_window, stft and inverse_stft.
//! tf.experimental
//!   TF's experimental names tfs has: DynamicRaggedShape (what tf.shape gives for a RaggedTensor).
/* tf.image, tf.strings, tf.sparse, tf.ragged hold functions written in .tfs (tfcore_attr finds them through the .tfs
 * module of the _API tables): looked up by their tf name, so that they come with TF's dispatch (tfcore.c) */
#define SUBMODULES(X) X(math) X(nn) X(random) X(dtypes) X(linalg) X(config) X(debugging) X(errors) X(summary) X(io) X(saved_model) X(profiler) X(train) X(experimental) X(bitwise) X(image) X(strings) X(sparse) X(ragged) X(autodiff) X(signal)
#define SUB_GETATTR(m)                                     \
  static Val sub_##m(const char *name) {                   \
    char q[128];                                           \
    snprintf(q, sizeof q, "%s.%s", #m, name);              \
    return tf_lookup(q);                                   \
  }
SUBMODULES(SUB_GETATTR)

//! tf.summary
//!   TensorBoard event files: create_file_writer, scalar, histogram, text, trace_on/trace_export, flush.
//! tf.summary.experimental
//!   set_step and get_step: the default step of summary writes.
static Val sub_summary_experimental(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "summary.experimental.%s", name);
  return tf_lookup(q);
}

//! tf.profiler
//!   The profiler: tf.profiler.experimental.
//! tf.profiler.experimental
//!   start/stop, Trace and Profile: record every op run and save TF's profile layout (xplane.pb, trace.json.gz).
static Val sub_profiler_experimental(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "profiler.experimental.%s", name);
  return tf_lookup(q);
}

//! tf.train
//!   Checkpoints in TF's format: Checkpoint, CheckpointManager, latest_checkpoint, list_variables, load_variable,
//!   load_checkpoint.
//! tf.saved_model
//!   SavedModel directories: save an object's tf.functions and Variables, load them back without the source.
//! tf.config
//!   Run-time configuration: run_functions_eagerly, functions_run_eagerly.
//! tf.dtypes
//!   The dtypes (tf.dtypes.float32 is tf.float32), tf.dtypes.DType, as_dtype and cast.
//! tf.errors
//!   TF's exception classes: OpError and its subclasses InvalidArgumentError, UnimplementedError,
//!   OutOfRangeError, NotFoundError, ResourceExhaustedError, DataLossError, AlreadyExistsError, UnavailableError,
//!   DeadlineExceededError, InternalError, CancelledError, UnknownError, PermissionDeniedError, UnauthenticatedError,
//!   FailedPreconditionError, AbortedError; catch them with try/except.
//! tf.errors.OpError | tf.errors.InvalidArgumentError | tf.errors.UnimplementedError | tf.errors.OutOfRangeError | tf.errors.NotFoundError | tf.errors.ResourceExhaustedError | tf.errors.DataLossError | tf.errors.AlreadyExistsError | tf.errors.UnavailableError | tf.errors.DeadlineExceededError | tf.errors.InternalError | tf.errors.CancelledError | tf.errors.UnknownError | tf.errors.PermissionDeniedError | tf.errors.UnauthenticatedError | tf.errors.FailedPreconditionError | tf.errors.AbortedError
//!   Exceptions raised by ops; InvalidArgumentError (bad shapes, failed tf.debugging asserts, out-of-range indices)
//!   is the common one. All derive from tf.errors.OpError.
//! tf.float32 | tf.float64 | tf.double | tf.int32 | tf.int64 | tf.bool | tf.string | tf.uint8 | tf.variant | tf.int8 | tf.int16 | tf.uint16 | tf.uint32 | tf.uint64 | tf.float16 | tf.half | tf.bfloat16 | tf.complex64 | tf.complex128 | tf.resource
//!   The dtypes tfs implements (also under tf.dtypes). tf.double is tf.float64, tf.half tf.float16. A dtype prints as
//!   <dtype: 'float32'> and has the attributes name, size, min, max, is_floating, is_integer, is_bool, is_complex and
//!   real_dtype. tf.variant is the dtype of a TensorArray's flow (a TensorList); only the TensorArray methods take it.
//!   tf.resource is the dtype of a captured Variable's handle in a traced graph (op.inputs); no tensor holds one.
//!   The small dtypes (int8 ... bfloat16) cast, print and compute as TF: halves in float32, rounded per op
//!   (docs/reference/tf-notes.md). complex64 and complex128 hold float32 and float64 pairs (tf.complex, tf.math.real,
//!   imag, conj, angle, abs; arithmetic, sum, mean, matmul, casts and gradients as TF).
//! tf.Tensor | tf.DType | tf.dtypes.DType
//!   The classes of tensors and dtypes, for isinstance(x, tf.Tensor).
//! tf.newaxis
//!   None: in an index, t[tf.newaxis, :] inserts a dimension of size 1.
//! tf.__version__
//!   "2.15.0": the TensorFlow API level tfs follows (also tf.version.VERSION).
//! tf.version
//!   Version information: tf.version.VERSION is "2.15.0".
//! tf.version.VERSION
//!   "2.15.0", as tf.__version__.
static Val tf_version_attr(const char *name) {
  return !strcmp(name, "VERSION") ? str_from_cstr("2.15.0") : val_undef();
}

static Val make_attr(const char *qual) {
  if (!strcmp(qual, "__version__") || !strcmp(qual, "version.VERSION")) return str_from_cstr("2.15.0");
  if (!strcmp(qual, "version")) return module_native("tensorflow._api.v2.version", tf_version_attr);
#define SUB_MAKE(m) if (!strcmp(qual, #m)) return module_native("tensorflow._api.v2." #m, sub_##m);
  SUBMODULES(SUB_MAKE)
#undef SUB_MAKE
  if (!strcmp(qual, "summary.experimental")) return module_native("tensorflow._api.v2.summary.experimental", sub_summary_experimental);
  if (!strncmp(qual, "summary.", 8)) return summary_lookup(qual + 8);
  if (!strcmp(qual, "profiler.experimental")) return module_native("tensorflow._api.v2.profiler.experimental", sub_profiler_experimental);
  if (!strncmp(qual, "profiler.experimental.", 22)) return profiler_lookup(qual + 22);
  if (!strncmp(qual, "saved_model.", 12)) {   /* save/load here, the option records in stdlib/tfcore_options.tfs */
    Val v = savedmodel_lookup(qual + 12);
    if (!val_is_undef(v)) return v;
  }
  if (!strncmp(qual, "train.", 6)) {
    Val v = checkpoint_lookup(qual + 6);
    if (!val_is_undef(v)) return v;
  }
  if (!strncmp(qual, "io.", 3)) {   /* tf.io: GraphDef writing (graphdefobj.c), then files (tfio.c) */
    Val v = tfio_lookup(qual + 3);
    if (val_is_undef(v)) v = tfrwriter_lookup(qual + 3);
    if (!val_is_undef(v)) return v;
  }
  const char *base = qual;
  if (!strncmp(qual, "dtypes.", 7)) base = qual + 7;
  for (int d = 0; d < DT__COUNT; d++)
    if (!strcmp(base, dtype_info[d].name)) return dtype_val((DType)d);
  if (!strcmp(base, "double")) return dtype_val(DT_FLOAT64);
  if (!strcmp(base, "half")) return dtype_val(DT_FLOAT16);
  if (!strcmp(qual, "newaxis")) return val_none();
  if (!strcmp(qual, "keras")) {   /* stdlib/keras.tfs, compiled into every program that names keras */
    Val k = module_import_library("keras");
    return val_is_undef(k) ? module_native("keras.api._v2.keras", keras_native_getattr) : k;
  }
//! tf.keras.applications
//!   Keras 2.15's pretrained-model architectures (ResNet, ResNetV2, VGG, ...) with their preprocess_input and
//!   decode_predictions; weights from Keras's local cache, never downloaded (stdlib/keras_applications.tfs, docs/keras.md).
  /* compiled in only when the program names applications: its models are large code every other Keras
   * program would pay for */
  if (!strcmp(qual, "keras.applications")) return module_import_library("keras_applications");
//! tf.distribute
//!   Data-parallel training across the processes of an MPI job (mpirun): MirroredStrategy,
//!   MultiWorkerMirroredStrategy, scope/run/reduce/gather, distributed datasets; written in .tfs
//!   (stdlib/distribute.tfs) over the runtime's collectives (docs/distributed.md).
  if (!strcmp(qual, "distribute")) return module_import_library("distribute");
  if (!strncmp(qual, "errors.", 7)) return exc_lookup(qual + 7, true);
  if (!strcmp(qual, "compat") || !strcmp(qual, "make_ndarray")) return eventread_lookup(qual);
  /* type objects, for isinstance(x, tf.Tensor) */
  if (!strcmp(qual, "Tensor")) return typeobj_for(&tensor_type);
  if (!strcmp(qual, "Variable")) {   /* a class, as in TF: isinstance(v, tf.Variable), and callable to make one */
    Val t = typeobj_for(&variable_type);
    ((TypeObj *)t.u.o)->ctor = tf_variable;
    return t;
  }
  if (!strcmp(qual, "Module")) return tfmodule_class();
  if (!strcmp(qual, "DType") || !strcmp(qual, "dtypes.DType")) return typeobj_for(&dtype_type);
  for (size_t i = 0; i < sizeof tf_funcs / sizeof tf_funcs[0]; i++)
    if (!strcmp(qual, tf_funcs[i].name)) {
      char q[96];
      snprintf(q, sizeof q, "tf.%s", qual);
      Val b = builtin_new(strdup(q), tf_funcs[i].fn, val_undef(), NULL);
      if (!tf_funcs[i].dispatch) return b;
      Val w = tfcore_dispatching(qual, b);
      val_decref(b);
      return w;
    }
  OpId id = op_lookup_api(qual);
  if (id != OP__COUNT) {
    char q[96];
    snprintf(q, sizeof q, "tf.%s", qual);
    return op_builtin(id, strdup(q));
  }
  /* tf.io, tf.data, tf.keras.datasets live in their own files */
  Val v = tfio_attr(qual);
  if (val_is_undef(v)) v = tfdata_attr(qual);
  if (val_is_undef(v)) v = kdatasets_attr(qual);
  if (val_is_undef(v)) v = tfcore_attr(qual);
  return v;
}

static Val tf_lookup(const char *qual) {
  TfEntry *e = tf_slot(qual);
  if (e->name) return val_incref(e->v);
  Val v = make_attr(qual);
  if (v.tag == VT_UNDEF) return v;
  tfmod_register(qual, v);
  return v;   /* the table took its own reference */
}

static Val tf_getattr(const char *name) { return tf_lookup(name); }

Val tfmod_lookup(const char *qual) { return tf_lookup(qual); }

//! tf.keras
//!   The Keras 2 subset (layers, Model, Sequential, optimizers, losses, metrics, fit), written
//!   in .tfs under stdlib/ and compiled into every program that names keras (docs/keras.md).
/* tf.keras without the stdlib .tfs library compiled in (a program that never
 * names it, reaching it through getattr): only the native parts. */
static Val keras_native_getattr(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "keras.%s", name);
  return tf_lookup(q);
}

//! tf
//!   The TensorFlow module: tensors, ops, tf.function, GradientTape and the namespaces math, nn, random,
//!   linalg, dtypes, config, debugging, errors, autograph and test.
Val tf_module(void) { return module_native("tensorflow", tf_getattr); }
