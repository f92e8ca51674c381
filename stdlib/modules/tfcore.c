/* tfcore.c — tf names implemented in .tfs (stdlib/tfcore*.tfs): their lookup through the library's _API table, and their docs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ops.h"
#include "modules/modules.h"
#include "modules/tfdata.h"
#include "object/object.h"
#include "object/hosttypes.h"
#include "graph/trace.h"

//! tf.raw_ops
//!   The op table's ops by their GraphDef name (tf.raw_ops.TopKV2), called with the op table's signature: what the
//!   .tfs parts of the tf API (stdlib/tfcore*.tfs) build on; ops with a public name are better called by it.
static Val raw_ops_getattr(const char *name) {
  static Val made[OP__COUNT];   /* one builtin per op, kept: it owns its malloc'd name */
  for (int i = 0; i < OP__COUNT; i++)
    if (!strcmp(op_defs[i].graph_name, name) && name[0] != '_') {
      if (made[i].tag != VT_OBJ) {
        char *q = malloc(strlen(name) + 12);
        if (!q) rt_throw(ERR_MEMORY, "out of memory");
        strcpy(q, "tf.raw_ops.");
        strcat(q, name);
        made[i] = op_builtin((OpId)i, q);
      }
      return val_incref(made[i]);
    }
  return val_undef();
}

//! tf.executing_eagerly()
//!   True when ops run eagerly: False while a tf.function is being traced (True inside one run with
//!   tf.config.run_functions_eagerly(True)).
static Val tf_executing_eagerly(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.executing_eagerly", .sig = ""};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return val_bool(!trace_active());
}

//! tf.is_symbolic_tensor(tensor)
//!   True for a graph tensor of a tf.function being traced (its value is known only when the graph runs).
static Val tf_is_symbolic_tensor(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.is_symbolic_tensor", .sig = "tensor"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Tensor *t = val_is(a[0], &tensor_type) ? val_as_tensor(a[0]) : NULL;
  return val_bool(t && t->sym);
}

/* tf.py_function / tf.numpy_function: one EagerPyFunc op over the inputs (eager: the function sees tensors). */
static Val pyfunc_call(const char *what, bool eager, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec_py = {.what = "tf.py_function", .sig = "func=None, inp=None, Tout=None, name=None"};
  static ArgSpec spec_np = {.what = "tf.numpy_function", .sig = "func, inp, Tout, stateful=True, name=None"};
  Val a[5];
  args_parse(eager ? &spec_py : &spec_np, n, args, kw, a);
  if (a[0].tag != VT_OBJ || !a[0].u.o->type->call) rt_throw(ERR_TYPE, "%s: func must be callable", what);
  tfs_i64 nin = 0;
  const Val *items = NULL;
  if (a[1].tag != VT_NONE && a[1].tag != VT_UNDEF && !seq_items(a[1], &nin, &items))
    rt_throw(ERR_TYPE, "%s: inp must be a list of tensors", what);
  OpAttrs at = {3, {a[0], a[2], val_bool(eager)}};
  Val r = op_apply(&op_defs[OP_PY_FUNC], (int)nin, items, &at);
  DType d;
  if (val_as_dtype(a[2], &d)) {   /* a single dtype: the single tensor, not a list */
    Val one = val_incref(((List *)r.u.o)->items[0]);
    val_decref(r);
    return one;
  }
  return r;
}

//! tf.py_function(func=None, inp=None, Tout=None, name=None)
//!   Calls the host function func(*inp) with eager tensors each time the op runs: eagerly at once, inside tf.function
//!   at every call of the graph (an EagerPyFunc op); Tout is the result's dtype, or a list of dtypes for several.
//!   Differentiable: the gradient runs func again under a tape of its own (so func should not draw random numbers).
static Val tf_py_function(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return pyfunc_call("tf.py_function", true, n, args, kw);
}

//! tf.numpy_function(func, inp, Tout, stateful=True, name=None)
//!   As tf.py_function, but func receives numpy arrays and returns numpy arrays or Python values.
static Val tf_numpy_function(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return pyfunc_call("tf.numpy_function", false, n, args, kw);
}

/* The value of tf.<qual> from stdlib/tfcore.tfs's _API table, or VT_UNDEF (also when the program was
 * compiled without the library: it names none of its entries). */
/* ---- a tf function written in .tfs, as TF's @dispatch.add_dispatch_support wrapper makes it ----
 * Called with a KerasTensor anywhere in its arguments (nested in lists, tuples, dicts), it is the KerasTensor's
 * __tf_api_dispatch__(api, dispatchable, *args, **kwargs): the op layer Keras's KerasOpDispatcher builds
 * (keras_tfop.tfs), or, for a function TF gives no dispatch (tf.map_fn), Keras's TypeError.  Otherwise it is the
 * function itself; its attributes (__name__, __tfs_params__) and repr are the function's. */
typedef struct ApiFn {
  Obj hdr;
  char *qual;      /* "split", "math.reduce_std" */
  Val fn;
  bool dispatch;
} ApiFn;

static const Type apifn_type;

/* The first instance in v (at most a few levels down) whose class has __tf_api_dispatch__, or VT_UNDEF. Borrowed. */
static Val keras_tensor_in(Val v, int depth) {
  if (val_is(v, &inst_type)) {
    Val f = class_find(((Inst *)v.u.o)->klass, "__tf_api_dispatch__");
    if (val_is_undef(f)) return val_undef();
    val_decref(f);
    return v;
  }
  if (depth > 4) return val_undef();
  tfs_i64 m;
  const Val *items;
  if ((val_is(v, &list_type) || val_is(v, &tuple_type)) && seq_items(v, &m, &items)) {
    for (tfs_i64 i = 0; i < m; i++) {
      Val k = keras_tensor_in(items[i], depth + 1);
      if (!val_is_undef(k)) return k;
    }
  } else if (val_is(v, &dict_type)) {
    const Dict *d = (const Dict *)v.u.o;
    for (tfs_i64 i = 0; i < d->len; i++) {
      if (val_is_undef(d->keys[i])) continue;
      Val k = keras_tensor_in(d->vals[i], depth + 1);
      if (!val_is_undef(k)) return k;
    }
  }
  return val_undef();
}

static Val apifn_call(Val self, int n, const Val *args, const Kw *kw) {
  ApiFn *a = (ApiFn *)self.u.o;
  Val k = val_undef();
  for (int i = 0; i < n && val_is_undef(k); i++) k = keras_tensor_in(args[i], 0);
  for (int i = 0; kw && i < kw->n && val_is_undef(k); i++) k = keras_tensor_in(kw->vals[i], 0);
  if (val_is_undef(k)) return rt_call(a->fn, n, args, kw);
  Val f = rt_getattr(k, "__tf_api_dispatch__");
  int mark = rt_hold_val(f);
  Val *all = malloc(sizeof(Val) * (size_t)(n + 2));
  if (!all) rt_throw(ERR_MEMORY, "out of memory");
  int amark = rt_hold_mem(all);
  all[0] = str_from_cstr(a->qual);
  int smark = rt_hold_val(all[0]);
  all[1] = val_bool(a->dispatch);
  for (int i = 0; i < n; i++) all[i + 2] = args[i];
  Val r = rt_call(f, n + 2, all, kw);
  rt_unhold(smark);
  val_decref(all[0]);
  rt_unhold(amark);
  free(all);
  rt_unhold(mark);
  val_decref(f);
  return r;
}

static Val apifn_getattr(Val self, const char *name) {
  ApiFn *a = (ApiFn *)self.u.o;
  if (!strcmp(name, "__wrapped__")) return val_incref(a->fn);
  return a->fn.u.o->type->getattr(a->fn, name);
}

static void apifn_repr(StrBuf *b, Val v) {
  Val fn = ((ApiFn *)v.u.o)->fn;
  fn.u.o->type->repr(b, fn);
}

static void apifn_free(Obj *o) {
  ApiFn *a = (ApiFn *)o;
  val_decref(a->fn);
  free(a->qual);
  free(a);
}

static void apifn_traverse(Obj *o, GcVisit visit, void *arg) { visit(((ApiFn *)o)->fn, true, arg); }

static const Type apifn_type = {
  .name = "function",
  .free = apifn_free, .traverse = apifn_traverse,
  .repr = apifn_repr,
  .getattr = apifn_getattr,
  .call = apifn_call,
  .hash = obj_identity_hash,
};

static Val apifn_new(const char *qual, Val fn, bool dispatch) {
  char *q = strdup(qual);
  if (!q) rt_throw(ERR_MEMORY, "out of memory");
  ApiFn *a = obj_new(&apifn_type, sizeof(ApiFn));
  a->qual = q;
  a->fn = val_incref(fn);
  a->dispatch = dispatch;
  return val_obj(a);
}

/* A native tf function (tfmod.c) wrapped as TF's add_dispatch_support makes it: an op layer on a KerasTensor. */
Val tfcore_dispatching(const char *qual, Val fn) { return apifn_new(qual, fn, true); }

/* The .tfs function behind a tf name's wrapper, else v (borrowed either way): help() and the _API tables see it. */
Val tfcore_unwrap(Val v) { return val_is(v, &apifn_type) ? ((ApiFn *)v.u.o)->fn : v; }

/* "image.resize" not in the table itself: the attribute of the namespace's .tfs module ("image"), or VT_UNDEF.
 * tf.image, tf.strings, tf.sparse, tf.ragged are tf's own submodules (tfmod.c), so their functions come through
 * here with the dispatch wrapper (tf.image.resize on a KerasTensor is an op layer); tf.nest stays the .tfs module
 * itself: TF gives its functions no dispatch, they take structures of KerasTensors as they are. */
static Val namespace_attr(Val api, const char *qual) {
  const char *dot = strrchr(qual, '.');
  if (!dot || dot - qual >= 32) return val_undef();
  char prefix[32];
  snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - qual), qual);
  static const char *const spaces[] = {"image", "strings", "sparse", "ragged", "signal"};   /* tfmod.c's SUBMODULES */
  bool known = false;
  for (int i = 0; i < 5; i++) known |= !strcmp(prefix, spaces[i]);
  if (!known) return val_undef();
  Val m = dict_get_str(api, prefix);
  Val v = val_is(m, &module_type) ? module_type.getattr(m, dot + 1) : val_undef();
  val_decref(m);
  return v;
}

Val tfcore_attr(const char *qual) {
  if (!strcmp(qual, "raw_ops")) return module_native("tensorflow._api.v2.raw_ops", raw_ops_getattr);
  if (!strcmp(qual, "py_function")) return builtin_new("tf.py_function", tf_py_function, val_undef(), NULL);
  if (!strcmp(qual, "numpy_function")) return builtin_new("tf.numpy_function", tf_numpy_function, val_undef(), NULL);
  if (!strcmp(qual, "executing_eagerly")) return builtin_new("tf.executing_eagerly", tf_executing_eagerly, val_undef(), NULL);
  if (!strcmp(qual, "is_symbolic_tensor")) return builtin_new("tf.is_symbolic_tensor", tf_is_symbolic_tensor, val_undef(), NULL);
  static const char *const libs[] = {"tfcore", "tfextra", "tfgfile", "tfdatasave"};
  for (int i = 0; i < 4; i++) {
    Val lib = module_import_library(libs[i]);
    if (val_is_undef(lib)) continue;
    Val api = rt_getattr(lib, "_API");
    Val v = dict_get_str(api, qual);
    if (val_is_undef(v)) v = namespace_attr(api, qual);
    val_decref(api);
    if (!val_is_undef(v) && val_is(v, &func_type)) {
      /* a function: TF's dispatch wrapper over it, unless the table names it as one TF gives none */
      Val no = val_is(lib, &module_type) ? module_type.getattr(lib, "_NO_DISPATCH") : val_undef();
      Val key = str_from_cstr(qual);
      bool dispatch = val_is_undef(no) || !contains(no, key);
      val_decref(key);
      val_decref(no);
      Val w = apifn_new(qual, v, dispatch);
      val_decref(v);
      v = w;
    }
    val_decref(lib);
    if (!val_is_undef(v)) return v;
  }
  return val_undef();
}

/* Whether a and b are the same object, or functions made from the same definition. */
static bool same_obj(Val a, Val b) {
  a = tfcore_unwrap(a);
  b = tfcore_unwrap(b);
  if (a.tag != VT_OBJ || b.tag != VT_OBJ) return false;
  if (a.u.o == b.u.o) return true;
  return val_is(a, &func_type) && val_is(b, &func_type) && ((Func *)a.u.o)->info == ((Func *)b.u.o)->info;
}

/* The tf name of v in one library's _API table (see tfcore_name_of). */
static bool api_name_of(const char *libname, Val v, const char *fname, char *buf, size_t size) {
  Val lib = module_import_library(libname);
  if (val_is_undef(lib)) return false;
  Val api = rt_getattr(lib, "_API");
  val_decref(lib);
  Val keys = dict_keys_list(api);
  tfs_i64 n;
  const Val *items;
  bool found = false;
  if (seq_items(keys, &n, &items))
    for (tfs_i64 i = 0; i < n && !found; i++) {
      Val e = dict_get(api, items[i]);
      if (same_obj(e, v)) {
        snprintf(buf, size, "tf.%s", str_cstr(items[i]));
        found = true;
      } else if (fname && val_is(e, &module_type)) {
        const Module *m = (const Module *)e.u.o;
        bool same = false;
        for (int g = 0; g < m->nglobals && m->names && !same; g++)
          same = m->names[g] && !strcmp(m->names[g], fname) && same_obj(m->globals[g], v);
        if (same) {
          snprintf(buf, size, "tf.%s.%s", str_cstr(items[i]), fname);
          found = true;
        }
      }
      val_decref(e);
    }
  val_decref(keys);
  val_decref(api);
  return found;
}

/* The tf name ("tf.map_fn", "tf.nest.flatten") of a function or class of stdlib/tfcore*.tfs or tfextra.tfs, for
 * help(); false when v is none of their _API tables' values (or a function of a module there). */
bool tfcore_name_of(Val v, const char *fname, char *buf, size_t size) {
  if (v.tag != VT_OBJ) return false;
  return api_name_of("tfcore", v, fname, buf, size) || api_name_of("tfextra", v, fname, buf, size) ||
         api_name_of("tfdatasave", v, fname, buf, size);
}

//! tf.strings
//!   String tensors' ops (stdlib/tfcore_strings.tfs): TF's kernels' semantics on the bytes of each element. Each
//!   emits the raw ops TF's Python API emits (StringLength ... AsString, ReduceJoin, StringFormat, StringSplitV2,
//!   StringSplit, UnicodeDecode(WithOffsets), UnicodeEncode, StringToHashBucketFast/Strong, (Static)RegexReplace,
//!   UnsortedSegmentJoin), eagerly and inside tf.function, so a saved GraphDef/SavedModel runs them; only upper/lower
//!   with encoding='utf-8' run inside tf.function as a tf.py_function (EagerPyFunc).
//! tf.strings.length(input, name=None, unit='BYTE')
//!   The length of each string in bytes, or in UTF-8 characters with unit='UTF8_CHAR' (int32).
//! tf.strings.upper(input, encoding='', name=None)
//!   Each string with its ASCII letters upper-cased (every letter with encoding='utf-8').
//! tf.strings.lower(input, encoding='', name=None)
//!   Each string with its ASCII letters lower-cased (every letter with encoding='utf-8').
//! tf.strings.strip(input, name=None)
//!   Each string without its leading and trailing ASCII whitespace.
//! tf.strings.join(inputs, separator='', name=None)
//!   The element-wise concatenation of a list of string tensors of one shape (scalars broadcast), separator between;
//!   RaggedTensors of one row partition join value by value.
//! tf.strings.reduce_join(inputs, axis=None, keepdims=False, separator='', name=None)
//!   Concatenates the strings along axis (all axes when None), in order, separator between; a RaggedTensor joins
//!   each row (its last axis; TF's UnsortedSegmentJoin, which puts separator only after a non-empty part) or
//!   everything (axis=None). TF's ReduceJoin (reduction_indices, keep_dims, separator).
//! tf.strings.unsorted_segment_join(inputs, segment_ids, num_segments, separator='', name=None)
//!   Row k of the result joins, in order, the rows of inputs whose segment id is k (TF's UnsortedSegmentJoin:
//!   separator only after a non-empty part; "" for a segment no row names); 1-D segment_ids.
//! tf.strings.split(input, sep=None, maxsplit=-1, name=None)
//!   The pieces of each string: on runs of whitespace when sep is None, else on each sep; maxsplit limits the
//!   splits as TF's StringSplitV2 does (0 keeps each string whole). A scalar gives a 1-D tensor; a tensor of rank 1
//!   or more a tf.RaggedTensor with one more (ragged) dimension, made from the op's indices, values and dense_shape.
//! tf.strings.bytes_split(input, name=None)
//!   The bytes of each string (TF's StringSplit with delimiter ''): a 1-D string tensor for a scalar, a
//!   tf.RaggedTensor for rank 1 or more.
//! tf.strings.unicode_split(input, input_encoding, errors='replace', replacement_char=65533, name=None)
//!   The characters of each string, each one encoded in input_encoding: a 1-D string tensor for a scalar, a
//!   tf.RaggedTensor for rank 1 or more; as TF, UnicodeDecode then UnicodeEncode of each code point (ill-formed input
//!   becomes replacement_char), so input_encoding must be one UnicodeEncode writes.
//! tf.strings.unicode_split_with_offsets(input, input_encoding, errors='replace', replacement_char=65533, name=None)
//!   unicode_split's characters and each one's starting byte offset in its string (int64), as two tensors or
//!   tf.RaggedTensors of one shape.
//! tf.strings.unicode_decode(input, input_encoding, errors='replace', replacement_char=65533, replace_control_characters=False, name=None)
//!   The code points of each string (int32): 1-D for a scalar, a tf.RaggedTensor for rank 1 or more. input_encoding is
//!   any encoding ICU's converters name ('UTF-8', 'UTF-16-BE', 'UTF-32-BE', 'ISO-8859-1', ...), read as TF reads it,
//!   with ICU one character at a time. errors: 'replace' (each ill-formed sequence ICU delimits becomes
//!   replacement_char), 'ignore' or 'strict' (InvalidArgumentError); replace_control_characters replaces
//!   U+0000..U+001F too.
//! tf.strings.unicode_decode_with_offsets(input, input_encoding, errors='replace', replacement_char=65533, replace_control_characters=False, name=None)
//!   unicode_decode's code points and each one's starting byte offset in its string (int64), as two tensors or
//!   tf.RaggedTensors of one shape.
//! tf.strings.unicode_encode(input, output_encoding, errors='replace', replacement_char=65533, name=None)
//!   One string per innermost row of code points (a tf.RaggedTensor or a tensor of rank 1 or more) in output_encoding
//!   'UTF-8', 'UTF-16-BE' or 'UTF-32-BE'. A value that is no Unicode character (negative, past U+10FFFF, a surrogate
//!   or a noncharacter) is an error with 'strict', replacement_char with 'replace'; with 'ignore' it is kept as TF
//!   keeps it (a noncharacter as itself, a surrogate as a UTF-16 unit, U+FFFD in UTF-8 when unpaired, a value
//!   outside 0..U+10FFFF dropped).
//! tf.strings.unicode_transcode(input, input_encoding, output_encoding, errors='replace', replacement_char=65533, replace_control_characters=False, name=None)
//!   Each string re-encoded from input_encoding (as unicode_decode reads it) to 'UTF-8', 'UTF-16-BE' or 'UTF-32-BE',
//!   of the input's shape; 'strict' raises InvalidArgumentError after the whole tensor when any string had an
//!   ill-formed sequence (or a control character replace_control_characters replaced).
//! tf.strings.substr(input, pos, len, name=None, unit='BYTE')
//!   The substring of len bytes (or UTF-8 characters) from pos of each string; a negative pos counts from the end,
//!   a pos beyond the string raises InvalidArgumentError.
//! tf.strings.regex_replace(input, pattern, rewrite, replace_global=True, name=None)
//!   Each string with the matches of pattern replaced by rewrite (\1..\9 groups, \0 the match); PCRE2 where TF
//!   uses RE2 (RE2 refuses backreferences and lookaround in patterns). Python strings give TF's StaticRegexReplace,
//!   a tensor pattern or rewrite its RegexReplace (compiled when the op runs).
//! tf.strings.regex_full_match(input, pattern, name=None)
//!   Whether each whole string matches pattern (bool).
//! tf.strings.to_number(input, out_type=tf.float32, name=None)
//!   Each string parsed as a number of out_type; one that is not raises InvalidArgumentError.
//! tf.strings.as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill='', name=None)
//!   Each number or bool as a string, printf-formatted as TF: floats "%f" (precision digits, %e scientific, %g
//!   shortest), integers "%d", width and fill padding.
//! tf.strings.format(template, inputs, placeholder='{}', summarize=3, name=None)
//!   template with each placeholder replaced by the next input tensor as tf.print shows it (TF's StringFormat:
//!   summarize elements at each end of a dimension, strings quoted); a scalar string.
//! tf.strings.to_hash_bucket_fast(input, num_buckets, name=None)
//!   Each string's bucket: TF's Fingerprint64 (FarmHash) of its bytes modulo num_buckets (int64), the same buckets
//!   TF gives (StringToHashBucketFast).
//! tf.strings.to_hash_bucket_strong(input, num_buckets, key, name=None)
//!   Each string's bucket: SipHash-2-4 of its bytes keyed by key (a list of two ints, TF's StrongKeyedHash) modulo
//!   num_buckets (int64), the same buckets TF gives (StringToHashBucketStrong).
//! tf.RaggedTensor
//!   A tensor with ragged (variable-length) dimensions (stdlib/tfcore_ragged.tfs): flat `values` (a Tensor, or a
//!   RaggedTensor for ragged_rank > 1) cut into rows by int64 `row_splits`. Made by tf.ragged.constant or the
//!   from_* factories; has values, row_splits, flat_values, nested_row_splits, ragged_rank, dtype, shape ((2, None)),
//!   row_lengths(), value_rowids(), nrows(), bounding_shape(), to_tensor(default_value, shape), to_list(), numpy();
//!   indexing rt[i], rt[i, j], rt[1:], rt[:, :2]; operators and elementwise tf ops on its values (with a ragged of
//!   the same row partition, a scalar, or a dense [nrows, 1] tensor); tf.reduce_sum/mean/max/min/any/all over any
//!   axis (any ragged_rank), a list of axes or None, with keepdims; tf.concat and tf.stack on axis 0 or 1 (tf ops
//!   reach it through its __tf_dispatch__); tf.shape(rt) is a DynamicRaggedShape. Prints as TF: <tf.RaggedTensor
//!   [[1, 2], [3]]>. Inside a tf.function the factories, reductions, to_tensor and operators run as graph ops; as
//!   TF's composite tensors, an argument is keyed by its tf.RaggedTensorSpec (a new trace per row count, dtype or
//!   ragged_rank, not per value) and fed as its components, and a returned one is rebuilt from its components.
//!   tf.data.Dataset.from_tensor_slices(rt) gives its rows.
//! tf.RaggedTensorSpec(shape=None, dtype=tf.float32, ragged_rank=None, row_splits_dtype=tf.int64, flat_values_spec=None)
//!   The type of a RaggedTensor (rt._type_spec): shape [nrows, None, ...] with None for ragged dims, dtype,
//!   ragged_rank (default: rank - 1). In a tf.function's input_signature it accepts RaggedTensors of a compatible
//!   shape (one trace); get_concrete_function takes one. Prints as TF: RaggedTensorSpec(TensorShape([None, None]),
//!   tf.float32, 1, tf.int64).
//! tf.SparseTensor(indices, values, dense_shape)
//!   A sparse tensor (stdlib/tfcore_sparse.tfs), also tf.sparse.SparseTensor: entry indices[i] (int64 [N, rank],
//!   row-major sorted by convention) holds values[i] ([N]); every other entry is zero; dense_shape is int64 [rank].
//!   Has indices, values, dense_shape, shape (static when dense_shape is known), dtype, with_values(); * and / by a
//!   dense tensor broadcast to its shape (SparseDenseCwiseMul/Div). Prints as TF: SparseTensor(indices=tf.Tensor(...),
//!   values=tf.Tensor(...), dense_shape=tf.Tensor(...)). As TF's composite tensors, a tf.function argument is keyed by
//!   its tf.SparseTensorSpec (dtype and shape, not the number of values) and fed as its three components, and a
//!   returned one is rebuilt from them. The common tf.sparse ops run TF's sparse kernels on the components
//!   (SparseTensorDenseMatMul, SparseToDense, SparseReorder, SparseReduceSum/Max, SparseSegment*, SparseAdd,
//!   SparseReshape, SparseSlice, SparseConcat, SparseSoftmax, SparseSparseMaximum/Minimum, SparseFillEmptyRows:
//!   TF's op names in graphs, TF's errors, gradients where TF has them); from_dense, retain, transpose,
//!   expand_dims, eye, to_indicator and st * dense are short compositions of dense tf ops.
//! tf.SparseTensorSpec(shape=None, dtype=tf.float32)
//!   The type of a SparseTensor (st._type_spec): its dense shape and dtype; components indices int64 [None, rank],
//!   values [None], dense_shape int64 [rank]. Prints as TF: SparseTensorSpec(TensorShape([3, 4]), tf.int32).
//! tf.sparse
//!   The sparse-tensor ops of TF 2.15 over tf.SparseTensor (stdlib/tfcore_sparse_ns.tfs).
//! tf.sparse.to_dense(sp_input, default_value=None, validate_indices=True, name=None)
//!   The dense tensor (TF's SparseToDense kernel): default_value (zero) where no index is; validate_indices checks
//!   the indices (InvalidArgumentError: out of bounds, out of order, repeated), in graphs too. Differentiable in the
//!   values and the default value.
//! tf.sparse.from_dense(tensor, name=None)
//!   The SparseTensor of a dense tensor's non-zero entries, in row-major order.
//! tf.sparse.reorder(sp_input, name=None)
//!   The same SparseTensor with its entries in row-major order (SparseReorder; stable for repeated indices).
//! tf.sparse.reshape(sp_input, shape, name=None)
//!   The SparseTensor of the dense one reshaped (one -1 inferred), the values unchanged (TF's SparseReshape kernel
//!   and its InvalidArgumentErrors).
//! tf.sparse.add(a, b, threshold=0)
//!   Sparse + sparse (TF's SparseAdd kernel; both row-major sorted): a SparseTensor of the union of their indices in
//!   row-major order, a sum of two entries kept when threshold <= |sum|; differentiable in both values
//!   (SparseAddGrad). Sparse + dense: a dense tensor.
//! tf.sparse.maximum(sp_a, sp_b, name=None)
//!   The element-wise maximum of two sorted SparseTensors of one dense shape over the union of their entries, an
//!   absent entry counting as 0 (TF's SparseSparseMaximum; its gradient raises NotImplementedError, as TF's).
//! tf.sparse.minimum(sp_a, sp_b, name=None)
//!   The element-wise minimum, as tf.sparse.maximum (TF's SparseSparseMinimum).
//! tf.sparse.softmax(sp_input, name=None)
//!   The softmax of each innermost row of a SparseTensor of rank >= 2 over the entries present only (TF's
//!   SparseSoftmax: absent entries are not zeros but left out); differentiable in the values.
//! tf.sparse.sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None)
//!   The matrix product of a rank-2 SparseTensor and a dense matrix (either order), optionally adjointed; repeated
//!   indices add up. TF's SparseTensorDenseMatMul: one pass over the nonzeros, its errors (an index out of bounds,
//!   inner dimensions that differ). Differentiable in the values and in b. Also tf.sparse.matmul.
//! tf.sparse.matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None)
//!   tf.sparse.sparse_dense_matmul.
//! tf.sparse.reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None)
//!   The sum over axis (all when None) as a dense tensor (SparseReduceSum), or a SparseTensor with one entry per
//!   group of entries with output_is_sparse (SparseReduceSumSparse). Differentiable in the values.
//! tf.sparse.reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None)
//!   The max over axis of the entries present, 0 where none is (SparseReduceMax; SparseReduceMaxSparse with
//!   output_is_sparse).
//! tf.sparse.slice(sp_input, start, size, name=None)
//!   The entries in [start, start + size), shifted by -start, in their order; the shape is clipped to dense_shape
//!   (TF's SparseSlice kernel); differentiable in the values (SparseSliceGrad).
//! tf.sparse.concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None, concat_dim=None)
//!   The SparseTensors joined along axis, in row-major order; other dims must match unless expand_nonconcat_dims
//!   (TF's SparseConcat kernel; not differentiable, as in TF).
//! tf.sparse.retain(sp_input, to_retain)
//!   The entries whose to_retain flag (a bool vector of the count of values) is True.
//! tf.sparse.transpose(sp_input, perm=None, name=None)
//!   The SparseTensor with its dims permuted (reversed by default), in row-major order.
//! tf.sparse.expand_dims(sp_input, axis=None, name=None)
//!   The SparseTensor with a new dim of size 1 at axis.
//! tf.sparse.eye(num_rows, num_columns=None, dtype=tf.float32, name=None)
//!   The sparse identity matrix [num_rows, num_columns].
//! tf.sparse.to_indicator(sp_input, vocab_size, name=None)
//!   A dense bool tensor [..., vocab_size]: True at each id found in the last dimension's values.
//! tf.sparse.map_values(op, *args, **kwargs)
//!   op applied to the values of the SparseTensor arguments (the others passed as they are), with the first one's
//!   indices and dense shape.
//! tf.sparse.segment_sum(data, indices, segment_ids, num_segments=None, name=None)
//!   Row s: the sum of data[indices[j]] over the j whose segment_ids[j] (sorted) is s; rows up to the last id, or
//!   num_segments (TF's SparseSegmentSum / ...WithNumSegments). Differentiable in data (SparseSegmentSumGrad).
//! tf.sparse.segment_mean(data, indices, segment_ids, num_segments=None, name=None)
//!   As tf.sparse.segment_sum, each row divided by its count (SparseSegmentMean; 0 for an empty segment).
//! tf.sparse.segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None)
//!   As tf.sparse.segment_sum, each row divided by the square root of its count (SparseSegmentSqrtN).
//! tf.sparse.fill_empty_rows(sp_input, default_value, name=None)
//!   (the SparseTensor with an entry [row, 0, ...] = default_value added for each empty row, the entries grouped by
//!   row (a row's keep their order); a bool vector saying which rows were empty) (TF's SparseFillEmptyRows kernel;
//!   differentiable in the values and default_value through SparseFillEmptyRowsGrad).
//! tf.experimental.DynamicRaggedShape
//!   What tf.shape(rt, out_type=tf.int32) gives for a RaggedTensor: rank, num_row_partitions, dtype, inner_shape,
//!   static_lengths(), shape[i] (the row count, or a uniform inner dim; ValueError for a ragged one). Prints as TF:
//!   <DynamicRaggedShape lengths=[3, (2, 1, 0)] num_row_partitions=1> (row lengths None inside a tf.function).
//! tf.RaggedTensor.from_row_splits(values, row_splits, name=None, validate=True)
//!   The RaggedTensor whose row i is values[row_splits[i]:row_splits[i + 1]]; row_splits must start at 0, never
//!   decrease and end at len(values) (InvalidArgumentError as TF's validation otherwise).
//! tf.RaggedTensor.from_row_lengths(values, row_lengths, name=None, validate=True)
//!   The RaggedTensor whose rows have the given (non-negative) lengths.
//! tf.RaggedTensor.from_row_starts(values, row_starts, name=None, validate=True)
//!   The RaggedTensor whose rows start at row_starts (row_splits without its last element).
//! tf.RaggedTensor.from_row_limits(values, row_limits, name=None, validate=True)
//!   The RaggedTensor whose rows end at row_limits (row_splits without its first element).
//! tf.RaggedTensor.from_value_rowids(values, value_rowids, nrows=None, name=None, validate=True)
//!   The RaggedTensor that puts values[i] in row value_rowids[i] (sorted); nrows adds trailing empty rows.
//! tf.RaggedTensor.from_nested_row_splits(flat_values, nested_row_splits, name=None, validate=True)
//!   The RaggedTensor of ragged_rank len(nested_row_splits): from_row_splits applied from the innermost splits out.
//! tf.RaggedTensor.from_nested_row_lengths(flat_values, nested_row_lengths, name=None, validate=True)
//!   As from_nested_row_splits, from row lengths.
//! tf.RaggedTensor.from_tensor(tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=tf.int64)
//!   The RaggedTensor of a dense tensor's rows: all of each row, its first lengths[i] items, or the row without its
//!   trailing padding values; ragged_rank > 1 keeps the outer dimensions as uniform row splits.
//! tf.RaggedTensor.from_sparse(st_input, name=None, row_splits_dtype=tf.int64)
//!   The RaggedTensor of a rank-2 tf.SparseTensor (sorted indices): row i holds the values whose index starts with i.
//! tf.RaggedTensor.to_sparse(name=None)
//!   The tf.SparseTensor of a RaggedTensor: an entry per value at [row, position, ...], dense_shape its bounding shape.
//! tf.ragged
//!   Functions making and transforming tf.RaggedTensor values: constant, range, map_flat_values, boolean_mask,
//!   stack, concat.
//! tf.ragged.constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=tf.int64)
//!   The RaggedTensor of a nested list (a plain Tensor for ragged_rank 0); ragged_rank defaults to the nesting depth
//!   of the scalars minus one; scalars at different depths raise ValueError.
//! tf.ragged.range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=tf.int64)
//!   A RaggedTensor whose row i is range(starts[i], limits[i], deltas[i]) (scalars broadcast; one argument: limits).
//! tf.ragged.map_flat_values(op, *args, **kwargs)
//!   op applied to the flat_values of the RaggedTensor arguments (of one row partition), the partition kept.
//! tf.ragged.boolean_mask(data, mask, name=None)
//!   The items of data where mask is True: a ragged mask keeps values row by row; a 1-D mask keeps rows.
//! tf.boolean_mask(tensor, mask, name=None, axis=None)
//!   The items of tensor where mask (a bool tensor matching tensor's dimensions from axis) is True, those
//!   dimensions flattened into one (stdlib/tfcore_ragged.tfs); a RaggedTensor mask or tensor as tf.ragged.boolean_mask.
//! tf.ragged.stack(values, axis=0, name=None)
//!   Stacks RaggedTensors (or dense tensors of rank 2 or more) along a new axis 0 or 1.
//! tf.ragged.concat(values, axis, name=None)
//!   Concatenates RaggedTensors along axis 0 (the rows of each) or 1 (row i of each, joined).
//! tf.nest
//!   Nested structures (lists, tuples and dicts of values; dicts in sorted key order, anything else is an atom):
//!   flatten, pack_sequence_as, map_structure, assert_same_structure, is_nested.
//! tf.nest.flatten(structure, expand_composites=False)
//!   The atoms of a nested structure as a flat list, depth first; dict values in sorted key order; an atom gives [atom].
//! tf.nest.pack_sequence_as(structure, flat_sequence, expand_composites=False)
//!   The inverse of flatten: a copy of structure's nesting filled with flat_sequence's items in order (ValueError when
//!   the counts differ, TypeError when flat_sequence is not a sequence).
//! tf.nest.map_structure(func, *structure, check_types=True, expand_composites=False)
//!   func applied to the atoms at the same place of each structure (which must match, as assert_same_structure),
//!   packed into the first structure's nesting.
//! tf.nest.assert_same_structure(nest1, nest2, check_types=True, expand_composites=False)
//!   Raises ValueError when the two structures nest differently (or dicts have different keys), TypeError when
//!   check_types and the sequence types differ (list vs. tuple); atoms are not compared.
//! tf.nest.is_nested(seq)
//!   True for a list, tuple or dict (a structure tf.nest walks into), False for an atom.
//! tf.map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True, name=None, fn_output_signature=None)
//!   fn applied to each slice of elems along dimension 0 (elems may be a nested structure of tensors with the same
//!   first dimension), results stacked; fn_output_signature (a dtype, tf.TensorSpec or a structure of them) gives the
//!   results' structure and dtypes when they differ from elems'. A tf.while_loop over TensorArrays: a Python loop
//!   eagerly, one While op inside tf.function, differentiable.
//! tf.scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True, reverse=False, name=None)
//!   The running accumulation acc = fn(acc, x) over the slices x of elems along dimension 0, every acc stacked;
//!   without initializer the first slice starts it; reverse runs from the end (outputs stay aligned with elems).
//! tf.foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None)
//!   The final acc = fn(acc, x) over the slices of elems along dimension 0, first to last (the first slice starts
//!   it when initializer is None).
//! tf.foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None)
//!   As tf.foldl, from the last slice to the first.
//! tf.vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True)
//!   fn applied to each slice of elems along dimension 0, results stacked (the values of TF's vectorised pfor): a
//!   static batch runs fn once per slice, an unknown one as tf.map_fn's loop.
//! tf.case(pred_fn_pairs, default=None, exclusive=False, strict=False, name='case')
//!   The result of the fn of the first (pred, fn) pair whose pred is true, else default() (the last pair's fn when
//!   default is None); nested tf.cond in graphs. exclusive=True asserts at most one pred is true.
//! tf.switch_case(branch_index, branch_fns, default=None, name='switch_case')
//!   branch_fns[branch_index]() (a list of callables, or (index, fn) pairs / a dict with keys 0..n-1); an index out of
//!   range runs default (the last branch when None). branch_index is an int32/int64 scalar tensor.
//! tf.split(value, num_or_size_splits, axis=0, num=None, name='split')
//!   Splits value along axis into num_or_size_splits equal pieces (an int dividing the dimension) or pieces of the
//!   given sizes (a list; one size may be -1 for the rest); returns a list of tensors (slices: they differentiate).
//! tf.repeat(input, repeats, axis=None, name=None)
//!   Repeats each element (each slice along axis; of the flattened input when axis is None) repeats times, or
//!   repeats[i] times for a list; repeats must be known while tracing.
//! tf.clip_by_norm(t, clip_norm, axes=None, name=None)
//!   t scaled so that its L2 norm (over axes, all by default) is at most clip_norm: t * clip_norm / max(norm, clip_norm).
//! tf.clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None)
//!   Scales every tensor of t_list by clip_norm / max(global_norm, clip_norm); returns (clipped list, global norm).
//!   None entries stay None; an infinite norm gives NaN tensors, as TF.
//! tf.linalg.global_norm(t_list, name=None)
//!   sqrt(sum of the squares of every element of every tensor of t_list); None entries are skipped.
//! tf.nn.conv1d(input, filters, stride, padding, data_format='NWC', dilations=None, name=None)
//!   1-D convolution of an NWC input with [width, in, out] filters: conv2d over an inserted height of one, as TF.
//! tf.nn.conv2d_transpose(input, filters, output_shape, strides, padding='SAME', data_format='NHWC', dilations=None, name=None)
//!   The transpose (gradient with respect to its input) of conv2d: filters are [height, width, output_channels,
//!   in_channels] and output_shape the shape of the result, whose convolution must have input's shape.
//! tf.nn.conv1d_transpose(input, filters, output_shape, strides, padding='SAME', data_format='NWC', dilations=None, name=None)
//!   The transpose of conv1d (filters [width, output_channels, in_channels]).
//! tf.nn.conv3d_transpose(input, filters, output_shape, strides, padding='SAME', data_format='NDHWC', dilations=None, name=None)
//!   The transpose (gradient with respect to its input, TF's Conv3DBackpropInputV2) of conv3d: filters are [depth,
//!   height, width, output_channels, in_channels] and output_shape the shape of the result; strides and dilations an
//!   int or lists of 1, 3 or 5 ints.
//! tf.nn.depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None)
//!   Each input channel c convolved with its own filters filter[:, :, c, :] ([height, width, in, multiplier]); output
//!   channel c * multiplier + m (TF's DepthwiseConv2dNative). Strides [1, s, s, 1], equal in height and width;
//!   padding 'SAME', 'VALID' or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]; dilations with stride 1.
//! tf.nn.separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None, dilations=None, name=None)
//!   depthwise_conv2d, then a 1x1 conv2d with pointwise_filter [1, 1, in * multiplier, out].
//! tf.nn.avg_pool2d(input, ksize, strides, padding, data_format='NHWC', name=None)
//!   The mean over each ksize window of an NHWC input; with SAME padding a window averages its real cells only.
//! tf.nn.avg_pool1d(input, ksize, strides, padding, data_format='NWC', name=None)
//!   avg_pool2d over an NWC input.
//! tf.nn.avg_pool(input, ksize, strides, padding, data_format=None, name=None)
//!   avg_pool1d or avg_pool2d by the rank of input (3 or 4).
//! tf.nn.max_pool1d(input, ksize, strides, padding, data_format='NWC', name=None)
//!   max_pool2d over an NWC input.
//! tf.nn.max_pool(input, ksize, strides, padding, data_format=None, name=None)
//!   max_pool1d or max_pool2d by the rank of input (3 or 4).
//! tf.signal.fftshift(x, axes=None, name=None)
//!   x rolled by half of each axis in axes (all by default): the zero frequency moves to the center (np.fft.fftshift).
//! tf.signal.ifftshift(x, axes=None, name=None)
//!   The inverse of fftshift (they differ by one sample for odd lengths).
//! tf.signal.frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None)
//!   Frames of frame_length samples every frame_step along axis: [..., n, ...] -> [..., frames, frame_length, ...];
//!   pad_end pads the end with pad_value so that every sample starts or lies in a frame. The lengths, and the length
//!   of the framed axis, must be known while tracing.
//! tf.signal.hann_window(window_length, periodic=True, dtype=tf.float32, name=None)
//!   0.5 - 0.5 * cos(2 pi k / N), N = window_length (periodic, even length) or window_length - 1, as TF's formula.
//! tf.signal.hamming_window(window_length, periodic=True, dtype=tf.float32, name=None)
//!   0.54 - 0.46 * cos(2 pi k / N), N as hann_window's.
//! tf.signal.stft(signals, frame_length, frame_step, fft_length=None, window_fn=tf.signal.hann_window, pad_end=False, name=None)
//!   The short-time Fourier transform: frames of signals times the window, rfft'd to fft_length (default the
//!   smallest power of two >= frame_length): [..., frames, fft_length // 2 + 1] complex64 (float32 signals only).
//! tf.signal.inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=tf.signal.hann_window, name=None)
//!   irfft of each frame, cut or zero-padded to frame_length, times the window, overlapped and added at frame_step.
//! tf.linalg.pinv(a, rcond=None, validate_args=False, name=None)
//!   Moore-Penrose pseudo-inverse through the SVD, dropping singular values at or below rcond times the largest
//!   (rcond defaults to 10 * max(rows, cols) * eps of the dtype, as TF; numpy's default is 1e-15).
//! tf.linalg.matrix_rank(a, tol=None, validate_args=False, name=None)
//!   The number of singular values above tol (default eps * max(rows, cols) * the largest), int32.
//! tf.linalg.logdet(matrix, name=None)
//!   log(det(matrix)) of Hermitian positive definite matrices: 2 * sum(log(diag(cholesky(matrix)))).
//! tf.linalg.eigvalsh(tensor, name=None)
//!   The eigenvalues of self-adjoint matrices in ascending order (tf.linalg.eigh's first output).
//! tf.linalg.eig(tensor, name=None)
//!   The tuple (e, v) of eigenvalues and right eigenvectors (columns, unit norm, unique only up to a complex phase) of
//!   general square matrices [..., N, N], complex64 for float32/complex64 input and complex128 for float64/complex128;
//!   eigenvalues in ascending order of magnitude (TF's Eig op, on LAPACK geev).
//! tf.linalg.eigvals(tensor, name=None)
//!   The eigenvalues of general square matrices, as tf.linalg.eig's first output, without the eigenvectors.
//! tf.linalg.cholesky_solve(chol, rhs, name=None)
//!   Solves A X = rhs given chol = tf.linalg.cholesky(A): two triangular solves.
//! tf.linalg.lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None)
//!   Least-squares solutions of matrix X = rhs. fast=True solves the regularized normal equations by Cholesky (as TF's
//!   default); fast=False with no regularizer gives the minimum-norm solution (through the pseudo-inverse).
//! tf.linalg.matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None)
//!   The matrix-vector product a @ b over the batch dimensions.
//! tf.linalg.diag(diagonal, name='diag', k=0, num_rows=-1, num_cols=-1, padding_value=0, align='RIGHT_LEFT')
//!   Matrices with diagonal on diagonal k (or the band k=(lower, upper): one row of diagonal per diagonal, from upper
//!   down) and padding_value elsewhere, as TF's MatrixDiagV3: num_rows/num_cols inferred as TF does, shorter
//!   diagonals placed by align (its first word for super-diagonals, its second for sub-diagonals).
//! tf.linalg.set_diag(input, diagonal, name='set_diag', k=0, align='RIGHT_LEFT')
//!   input with diagonal k (or the band k=(lower, upper)) replaced by diagonal, laid out as in tf.linalg.diag.
//! tf.linalg.tensor_diag(diagonal, name=None)
//!   The tensor of rank 2k with diagonal's values on its diagonal: output[i..., i...] = diagonal[i...].
//! tf.linalg.cross(a, b, name=None)
//!   The cross product of 3-vectors along the last axis (equal shapes, inner dimension 3).
//! tf.linalg.normalize(tensor, ord='euclidean', axis=None, name=None)
//!   (tensor / norm, norm) with the norm of tf.norm kept as a dimension of size one.
//! tf.linalg.expm(input, name=None)
//!   The matrix exponential by scaling and squaring with Pade approximants (orders 3/5/7 in float32, up to 13 in
//!   float64, chosen by the 1-norm as TF).
//! tf.linalg.lu_reconstruct(lower_upper, perm, validate_args=False, name=None)
//!   The matrices tf.linalg.lu factored: L @ U from the packed factors, rows put back in the input's order by perm.
//! tf.linalg.lu_solve(lower_upper, perm, rhs, validate_args=False, name=None)
//!   Solves A X = rhs given (lower_upper, perm) = tf.linalg.lu(A): rhs's rows permuted by perm, then two triangular
//!   solves; the batch dimensions of rhs and perm broadcast.
//! tf.linalg.lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None)
//!   The inverse of A given (lower_upper, perm) = tf.linalg.lu(A): lu_solve with the identity.
//! tf.math.reduce_variance(input_tensor, axis=None, keepdims=False, name=None)
//!   The variance mean((x - mean(x))**2) over axis (all axes by default); float dtypes only (TypeError for ints, as TF).
//! tf.math.reduce_std(input_tensor, axis=None, keepdims=False, name=None)
//!   The standard deviation, sqrt(tf.math.reduce_variance) over axis.
//! tf.math.divide_no_nan(x, y, name=None)
//!   x / y, with 0 where y is 0 (also 0 / 0); its gradient is finite there too. Float dtypes.
//! tf.math.l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) | tf.nn.l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) | tf.linalg.l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None)
//!   x / sqrt(max(sum(x**2, axis), epsilon)): unit L2 norm along axis (all axes by default).
//! tf.nn.moments(x, axes, shift=None, keepdims=False, name=None)
//!   (mean, variance) of x over axes; as TF the variance does not propagate gradients through the mean.
//! tf.nn.batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None)
//!   (x - mean) * scale / sqrt(variance + variance_epsilon) + offset, broadcasting; offset and scale may be None.
//! tf.nn.sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None)
//!   Element-wise logistic loss of logits against labels in [0, 1], in TF's overflow-free form
//!   max(x, 0) - x * z + log(1 + exp(-|x|)); labels and logits must have the same shape.
//! tf.nn.compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None)
//!   sum(per_example_loss * sample_weight) / global_batch_size (0 when it is 0); the global batch defaults to the
//!   per-replica batch times the replicas in sync, so the replicas' summed gradients are the global batch's mean (§18.4).
//! tf.nn.scale_regularization_loss(regularization_loss)
//!   sum(regularization_loss) / the replicas in sync: added to compute_average_loss's loss in a strategy's replicas.
//! tf.nn.swish(features, beta=1.0) | tf.nn.silu(features, beta=1.0)
//!   features * sigmoid(beta * features).
//! tf.nn.embedding_lookup(params, ids, max_norm=None, name=None)
//!   The rows of params selected by ids (tf.gather along axis 0), shape ids.shape + params.shape[1:]; with max_norm
//!   each row is clipped to that L2 norm. params may be a one-element list.
//! tf.nn.embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None, allow_fast_lookup=False)
//!   Row r combines the params rows of the ids in row r of sp_ids (a SparseTensor): "sum", "mean" (default) or
//!   "sqrtn"; unweighted through SparseSegmentSum/Mean/SqrtN, weighted by sp_weights' values through segment sums.
//! tf.nn.safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean", default_id=None, max_norm=None, name=None, allow_fast_lookup=False)
//!   tf.nn.embedding_lookup_sparse over the ids >= 0 (and weights > 0 unless summing); an empty row gives
//!   params[default_id] or zeros; ids of higher rank are combined over their last dimension.
//! tf.math.top_k(input, k=1, sorted=True, index_type=tf.int32, name=None) | tf.nn.top_k(input, k=1, sorted=True, index_type=tf.int32, name=None)
//!   The k largest entries of each row along the last axis, largest first, and their indices (ties: the lower index
//!   first), as TF's TopKV2(values, indices) named tuple: unpack it or read .values and .indices (TopKV2 op).
//! tf.sort(values, axis=-1, direction='ASCENDING', name=None)
//!   values sorted along axis, 'ASCENDING' or 'DESCENDING' (TopKV2 over the axis, as TF); equal values keep their
//!   order. The axis' size must be known while tracing.
//! tf.argsort(values, axis=-1, direction='ASCENDING', stable=False, name=None)
//!   The int32 indices that sort values along axis (always stable: equal values keep their order).
//! tf.scatter_nd(indices, updates, shape, name=None)
//!   A zero tensor of shape with updates added at indices [..., D] (repeated indices add up).
//! tf.math.unsorted_segment_sum(data, segment_ids, num_segments, name=None) | tf.unsorted_segment_sum(data, segment_ids, num_segments, name=None)
//!   out[s] = sum of the data[i] with segment_ids[i] == s, for s < num_segments (segment_ids index data's first
//!   dimensions); empty segments are 0.
//! tf.math.unsorted_segment_mean(data, segment_ids, num_segments, name=None) | tf.unsorted_segment_mean(data, segment_ids, num_segments, name=None)
//!   The mean of each segment's rows (0 for an empty segment).
//! tf.math.unsorted_segment_max(data, segment_ids, num_segments, name=None) | tf.unsorted_segment_max(data, segment_ids, num_segments, name=None)
//!   The element-wise maximum of each segment's rows; an empty segment holds the dtype's lowest value, as TF.
//! tf.math.unsorted_segment_min(data, segment_ids, num_segments, name=None) | tf.unsorted_segment_min(data, segment_ids, num_segments, name=None)
//!   The element-wise minimum of each segment's rows; an empty segment holds the dtype's largest value.
//! tf.math.segment_sum(data, segment_ids, name=None)
//!   unsorted_segment_sum with sorted segment_ids and max(segment_ids) + 1 segments.
//! tf.math.segment_mean(data, segment_ids, name=None)
//!   unsorted_segment_mean with sorted segment_ids and max(segment_ids) + 1 segments.
//! tf.math.segment_max(data, segment_ids, name=None)
//!   unsorted_segment_max with sorted segment_ids and max(segment_ids) + 1 segments.
//! tf.math.segment_min(data, segment_ids, name=None)
//!   unsorted_segment_min with sorted segment_ids and max(segment_ids) + 1 segments.
//! tf.math.bincount(arr, weights=None, minlength=None, maxlength=None, dtype=tf.int32, name=None, axis=None, binary_output=False)
//!   How many times each value 0..max(arr) occurs in arr (or the sum of its weights), at least minlength and at most
//!   maxlength bins (larger values are dropped); arr must be non-negative.
//! tf.meshgrid(*args, indexing='xy', name=None)
//!   N-D coordinate grids from N 1-D tensors: each output has every input's length as a dimension ('xy', the default,
//!   swaps the first two, as numpy); differentiable.
//! tf.compat.v1.assert_negative(x, data=None, summarize=None, message=None, name=None) | tf.compat.v1.debugging.assert_negative | tf.compat.v1.assert_non_positive | tf.compat.v1.debugging.assert_non_positive | tf.compat.v1.assert_none_equal | tf.compat.v1.debugging.assert_none_equal
//!   TF 1 forms of tf.debugging.assert_negative / assert_non_positive / assert_none_equal (assert_none_equal takes
//!   x, y first): TF 1's argument order, data before summarize and message; a data list raises NotImplementedError.
//! tf.broadcast_dynamic_shape(shape_x, shape_y)
//!   The shape (a 1-D int tensor, in the inputs' dtype) of a broadcast between tensors of shapes shape_x and shape_y.
//! tf.reverse(tensor, axis, name=None) | tf.reverse_v2(tensor, axis, name=None)
//!   tensor with the order of its elements reversed along each axis of the list axis.
//! tf.roll(input, shift, axis, name=None)
//!   Elements shifted by shift positions along axis, wrapping around (shift and axis may be lists of the same length).
//! tf.strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, var=None, name=None)
//!   input_[begin[0]:end[0]:strides[0], ...] (strides default to 1): bit k of begin_mask/end_mask leaves entry k's
//!   begin/end open, of ellipsis_mask makes it `...`, of new_axis_mask a new axis, of shrink_axis_mask the index
//!   begin[k]; the StridedSlice of `x[...]`, so it traces and differentiates.
//! tf.einsum(equation, *inputs, **kwargs) | tf.linalg.einsum(equation, *inputs, **kwargs)
//!   Einstein summation: 'ij,jk->ik' is a matmul, 'ij->ji' a transpose, 'ii' a trace, 'bij,bjk->bik' a batched
//!   matmul; '...' stands for broadcast dimensions, and without '->' the output is the labels used once, sorted. Lowered
//!   to diag_part, reduce_sum, transpose, reshape and matmul, so it traces and differentiates.
//! tf.random.Generator(copy_from=None, state=None, alg=None)
//!   A random number generator whose state ([seed, counter], a tf.Variable) advances with each draw, eagerly and
//!   inside tf.function: Generator.from_seed(seed), from_non_deterministic_state(), from_state(state); methods normal,
//!   uniform (int dtypes need maxval), truncated_normal, make_seeds, split(count), and reset(state) / reset_from_seed(seed)
//!   (the state set in place: the draws start again as from a new generator). The numbers are tfs's own
//!   (counter-based splitmix64), not TF's Philox stream: the same seed gives the same numbers on every run.
//! tf.random.get_global_generator()
//!   The global tf.random.Generator (made from a non-deterministic state on first use).
//! tf.random.set_global_generator(generator)
//!   Replaces the global tf.random.Generator.
//! tf.random.stateless_uniform(shape, seed, minval=0, maxval=None, dtype=tf.float32, name=None, alg='auto_select')
//!   Uniform numbers in [minval, maxval) that depend only on seed (an int tensor of shape [2]): the same seed, the same
//!   numbers, eagerly and in graphs. Integer dtypes need maxval.
//! tf.random.stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=tf.float32, name=None, alg='auto_select')
//!   Normal numbers that depend only on seed (shape [2]).
//! tf.random.stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=tf.float32, name=None, alg='auto_select')
//!   Normal numbers within two standard deviations of the mean (others redrawn) that depend only on seed.
//! tf.random.stateless_categorical(logits, num_samples, seed, dtype=tf.int64, name=None)
//!   num_samples class indices per row of logits [batch, classes], drawn from softmax(logits), depending only on seed.
//! tf.random.categorical(logits, num_samples, dtype=None, seed=None, name=None)
//!   num_samples class indices per row of logits [batch, classes] drawn from softmax(logits) (int64 by default);
//!   -inf logits are never drawn.
//! tf.random.shuffle(value, seed=None, name=None)
//!   value with its slices along dimension 0 in a random order.
//! tf.random.gamma(shape, alpha, beta=None, dtype=tf.float32, seed=None, name=None)
//!   shape draws from each Gamma(alpha, beta) distribution (beta the rate, 1 by default; alpha and beta broadcast):
//!   output shape + broadcast shape, float16/32/64. Differentiable in alpha (RandomGammaGrad, the implicit
//!   reparameterization of TF's random_grad.py) and beta. tfs's numbers, not TF's Philox stream.
//! tf.random.stateless_gamma(shape, seed, alpha, beta=None, dtype=tf.float32, name=None)
//!   As tf.random.gamma, a function of the [2] seed alone; shape is the whole output and must end with alpha's
//!   (broadcast) shape.
//! tf.random.poisson(shape, lam, dtype=tf.float32, seed=None, name=None)
//!   shape draws from each Poisson(lam): output shape + lam's shape, in dtype (float16/32/64, int32, int64); a rate of
//!   0 draws 0, a negative one NaN. Not differentiable (as TF).
//! tf.random.stateless_poisson(shape, seed, lam, dtype=tf.int32, name=None)
//!   As tf.random.poisson, a function of the [2] seed alone; shape is the whole output and must end with lam's shape.
//! tf.random_normal_initializer(mean=0.0, stddev=0.05, seed=None)
//!   An initializer: called with (shape, dtype=tf.float32) it returns tf.random.normal numbers.
//! tf.random_uniform_initializer(minval=-0.05, maxval=0.05, seed=None)
//!   An initializer: called with (shape, dtype=tf.float32) it returns tf.random.uniform numbers in [minval, maxval).
//! tf.zeros_initializer()
//!   An initializer: called with (shape, dtype=tf.float32) it returns zeros.
//! tf.ones_initializer()
//!   An initializer: called with (shape, dtype=tf.float32) it returns ones.
//! tf.constant_initializer(value=0)
//!   An initializer: called with (shape, dtype=tf.float32) it returns value, filled (a scalar) or reshaped (a list).
//! tf.control_dependencies(control_inputs)
//!   A context manager; eagerly it calls the callables among control_inputs first. Inside a tf.function each input
//!   must be an Operation or a Tensor, and the ops made in the block get control inputs on them (op.control_inputs,
//!   '^name' in the GraphDef; none on their own data inputs or when an input was made in the block); None clears.
//! tf.config.list_physical_devices(device_type=None) | tf.config.experimental.list_physical_devices(device_type=None)
//!   [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]: tfs runs on the CPU; 'GPU' gives [].
//! tf.config.list_logical_devices(device_type=None) | tf.config.experimental.list_logical_devices(device_type=None)
//!   [LogicalDevice(name='/device:CPU:0', device_type='CPU')] (CPU:0..N-1 once the CPU is split in N); 'GPU' gives [].
//!   Initializes TF's eager context, as making a tensor or calling a tf op does.
//! tf.config.set_logical_device_configuration(device, logical_devices) | tf.config.experimental.set_virtual_device_configuration(device, logical_devices)
//!   Splits the physical CPU into len(logical_devices) logical CPUs (each a tf.config.LogicalDeviceConfiguration()
//!   without memory_limit or experimental_priority); RuntimeError "Virtual devices cannot be modified after being
//!   initialized" for another configuration once TF's context is initialized. tfs's numpy functions count as tf ops.
//! tf.config.get_logical_device_configuration(device) | tf.config.experimental.get_virtual_device_configuration(device)
//!   The list last set for device, or None.
//! tf.config.LogicalDeviceConfiguration(memory_limit=None, experimental_priority=None, experimental_device_ordinal=None) | tf.config.experimental.VirtualDeviceConfiguration(memory_limit=None, experimental_priority=None, experimental_device_ordinal=None)
//!   The namedtuple TF configures a logical device with.
//! tf.config.PhysicalDevice(name, device_type)
//!   A physical device, as list_physical_devices gives.
//! tf.config.LogicalDevice(name, device_type)
//!   A logical device, as list_logical_devices gives.
//! tf.keras.mixed_precision.set_global_policy(policy) | tf.keras.mixed_precision.global_policy()
//!   The global dtype policy of Keras layers made afterwards (stdlib/keras_mixed_precision.tfs): 'mixed_float16' or
//!   'mixed_bfloat16' compute in the half type and keep float32 variables, 'float32' (the default) or any float dtype
//!   name; a Policy object is taken as is. compile wraps a mixed_float16 model's optimizer in a LossScaleOptimizer
//!   (docs/keras.md, "Mixed precision").
//! tf.keras.mixed_precision.Policy(name)
//!   A dtype policy: name, compute_dtype, variable_dtype, get_config/from_config; as a layer's dtype= argument it sets
//!   that layer's policy.
//! tf.config.threading
//!   set_intra_op_parallelism_threads, set_inter_op_parallelism_threads and their get_ forms (0: the runtime's
//!   choice). As in TF, a new value is taken only before the first op runs (RuntimeError "Intra op parallelism
//!   cannot be modified after initialization." after it); the intra-op count sizes the kernel thread pool (0:
//!   TFS_NUM_THREADS, else every core); an inter-op count of 1 runs a graph's independent matrix products one after
//!   another, any other lets two of them share one pool job (both reading the same inputs, as a Dense layer's
//!   gradient products; each result is the bits it has alone).
//! tf.config.experimental
//!   enable_op_determinism, disable_op_determinism, is_op_determinism_enabled (tfs's ops are deterministic already),
//!   list_physical_devices, list_logical_devices.
//! tf.debugging.assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None)
//!   Raises InvalidArgumentError unless |x - y| <= atol + rtol * |y| everywhere (default tolerances 10 * the dtype's
//!   epsilon); an op inside tf.function, checked at each call.
//! tf.debugging.assert_rank(x, rank, message=None, name=None)
//!   None when x has rank `rank`; ValueError "Tensor  must have rank R.  Received rank r, shape S" when both ranks
//!   are known (TF checks them statically), else an assert of tf.rank(x) == rank checked when the function runs.
//! tf.debugging.assert_rank_at_least(x, rank, message=None, name=None)
//!   None when x has rank >= `rank`; ValueError "Tensor  must have rank at least R.  Received rank r, shape S" when
//!   both ranks are known, else an assert of tf.rank(x) >= rank checked when the function runs.
//! tf.debugging.assert_rank_in(x, ranks, message=None, name=None)
//!   None when the rank of x is one of `ranks`; ValueError "Tensor  must have rank in (2, 3).  Received rank r,
//!   shape S" when the ranks are known (traced, TF shows the ranks as `array(2, dtype=int32)`).
//! tf.debugging.assert_integer(x, message=None, name=None)
//!   None for an integer tensor; TypeError 'Expected "x" to be integer type.  Found: tensor of dtype <dtype: ...>'.
//! tf.debugging.assert_type(tensor, tf_type, message=None, name=None)
//!   None when tensor has dtype tf_type; TypeError "tensor must be of type tf.int32; got tf.float32" otherwise.
//! tf.debugging.assert_shapes(shapes, data=None, summarize=None, message=None, name=None)
//!   Checks the static shapes of (tensor, spec) pairs: a spec entry is a size, a symbol naming one size across the
//!   tensors ('N'), or '.'/None for any; ValueError naming the tensor and dimension otherwise.
//! tf.image
//!   Image resizing, crops and pads, flips, colour conversions and adjustments, dtype conversion, random augmentation and
//!   the PNG/JPEG codecs: written in .tfs (stdlib/tfcore_image.tfs) over the Resize* ops and libpng/libjpeg-turbo.
//! tf.image.resize(images, size, method='bilinear', preserve_aspect_ratio=False, antialias=False, name=None)
//!   Resizes [H, W, C] or [N, H, W, C] images to size [new_height, new_width] as TF 2.15 does: bilinear, nearest, bicubic
//!   (Keys a = -0.5) with half-pixel centers, area, lanczos3/5 and mitchellcubic; antialias widens the kernel when
//!   reducing. float32 results (nearest keeps the dtype); bilinear, nearest, bicubic and antialiased ones have gradients.
//! tf.image.ResizeMethod
//!   The method names of tf.image.resize: BILINEAR, NEAREST_NEIGHBOR, BICUBIC, AREA, LANCZOS3, LANCZOS5,
//!   GAUSSIAN (not implemented), MITCHELLCUBIC.
//! tf.image.resize_with_pad(image, target_height, target_width, method='bilinear', antialias=False)
//!   Resizes keeping the aspect ratio, then pads with zeros to target_height x target_width (centred).
//! tf.image.crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width)
//!   The target_height x target_width window at (offset_height, offset_width); ValueError when it leaves the image.
//! tf.image.pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width)
//!   Pads with zeros so the image sits at (offset_height, offset_width) of a target_height x target_width image.
//! tf.image.resize_with_crop_or_pad(image, target_height, target_width)
//!   Centre-crops or zero-pads each of height and width to the target.
//! tf.image.central_crop(image, central_fraction)
//!   The centred central_fraction of the height and width (in (0, 1]).
//! tf.image.flip_left_right(image)
//!   Reverses the width axis.
//! tf.image.flip_up_down(image)
//!   Reverses the height axis.
//! tf.image.transpose(image, name=None)
//!   Swaps height and width.
//! tf.image.rot90(image, k=1, name=None)
//!   Rotates by k quarter turns counter-clockwise.
//! tf.image.convert_image_dtype(image, dtype, saturate=False, name=None)
//!   Converts between image dtypes with TF's scaling: integers span [0, MAX], floats [0, 1]; float to integer multiplies
//!   by MAX + 0.5 and truncates (saturate clamps first); integer to integer shifts by the bit widths.
//! tf.image.rgb_to_grayscale(images, name=None)
//!   Gray = 0.2989 R + 0.5870 G + 0.1140 B, with a last axis of 1 (integer images converted and back).
//! tf.image.grayscale_to_rgb(images, name=None)
//!   Repeats the one channel three times.
//! tf.image.rgb_to_hsv(images, name=None)
//!   Float RGB in [0, 1] to hue, saturation, value (hue in [0, 1)), as TF's RGBToHSV kernel.
//! tf.image.hsv_to_rgb(images, name=None)
//!   The inverse of rgb_to_hsv.
//! tf.image.adjust_brightness(image, delta)
//!   Adds delta in the float domain (integer images converted and back, saturating).
//! tf.image.adjust_contrast(images, contrast_factor)
//!   (x - mean) * contrast_factor + mean, the mean per channel over each image. No gradient, as TF's AdjustContrastv2:
//!   a GradientTape through it raises LookupError.
//! tf.image.adjust_gamma(image, gamma=1, gain=1)
//!   gain * image ** gamma in the float domain.
//! tf.image.adjust_saturation(image, saturation_factor, name=None)
//!   Scales the HSV saturation (clamped to [0, 1]). No gradient (TF's AdjustSaturation: LookupError on a tape).
//! tf.image.adjust_hue(image, delta, name=None)
//!   Rotates the HSV hue by delta (in [-1, 1]). No gradient (TF's AdjustHue: LookupError on a tape).
//! tf.image.per_image_standardization(image)
//!   (x - mean) / max(stddev, 1 / sqrt(pixels)) per image, float32.
//! tf.image.random_flip_left_right(image, seed=None) | tf.image.random_flip_up_down(image, seed=None)
//!   Flips each image with probability 1/2 (tfs's random numbers: the same seed repeats, but TF's Philox draws differ).
//! tf.image.stateless_random_flip_left_right(image, seed) | tf.image.stateless_random_flip_up_down(image, seed)
//!   As random_flip_*, a function of the [2] seed alone (deterministic; not TF's numbers).
//! tf.image.random_crop(value, size, seed=None, name=None) | tf.image.stateless_random_crop(value, size, seed, name=None)
//!   A window of size at a uniformly drawn offset (stateless: from the [2] seed).
//! tf.image.random_brightness(image, max_delta, seed=None) | tf.image.stateless_random_brightness(image, max_delta, seed)
//!   adjust_brightness by a delta drawn from [-max_delta, max_delta).
//! tf.image.random_contrast(image, lower, upper, seed=None) | tf.image.stateless_random_contrast(image, lower, upper, seed)
//!   adjust_contrast by a factor drawn from [lower, upper).
//! tf.image.random_saturation(image, lower, upper, seed=None)
//!   adjust_saturation by a factor drawn from [lower, upper).
//! tf.image.random_hue(image, max_delta, seed=None)
//!   adjust_hue by a delta drawn from [-max_delta, max_delta) (max_delta <= 0.5).
//! tf.image.extract_patches(images, sizes, strides, rates, padding, name=None)
//!   The sizes [1, kh, kw, 1] patches of [N, H, W, C] images at strides and dilation rates, each flattened into the last axis
//!   (kh * kw * C values in row, column, channel order); padding 'VALID' or 'SAME'.
//! tf.image.psnr(a, b, max_val, name=None)
//!   Peak signal-to-noise ratio per image: 20 log10(max_val) - 10 log10(mean squared error).
//! tf.image.ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False)
//!   Structural similarity per image (TF's: Gaussian window, VALID, per channel then averaged); images at least
//!   filter_size in height and width.
//! tf.image.decode_png | tf.image.decode_jpeg | tf.image.decode_image | tf.image.encode_png | tf.image.encode_jpeg
//!   The tf.io image codecs under their tf.image names.
//! tf.unique(x, out_idx=tf.int32, name=None)
//!   The distinct values of the 1-D x in order of first occurrence and, for each element, the index of its value
//!   there: TF's Unique(y, idx) named tuple (Unique op; y's size is known only when it runs).
//! tf.unique_with_counts(x, out_idx=tf.int32, name=None)
//!   As tf.unique, with how many times each value occurs: UniqueWithCounts(y, idx, count).
//! tf.io.decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None)
//!   Each string's bytes reinterpreted as elements of out_type: the result has one more dimension, of length
//!   len(string) / element size (every string the same length), or fixed_length / element size with fixed_length,
//!   short strings padded with zeros (DecodeRaw / DecodePaddedRaw).
//! tf.searchsorted(sorted_sequence, values, side='left', out_type=tf.int32, name=None)
//!   For each of values [..., M], the position in the sorted last axis of sorted_sequence [..., N] where it would be
//!   inserted: before equal elements ('left', LowerBound) or after them ('right', UpperBound).
