/* dataset.c — tf.data.Dataset: sources, transformations, element_spec/cardinality, reprs and eager iteration.
 *
 * A dataset is an immutable node over its input(s); iterating creates a chain
 * of iterator states, one per node.  Elements are structures (a tensor, or
 * tuples/dicts of them) described by element_spec, a structure of TensorSpecs.
 * map/filter/reduce functions are wrapped in tf.function and traced once, on
 * the element_spec, when the transformation is created (as TF does).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "object/object.h"
#include "object/hosttypes.h"
#include "kernels/ops.h"
#include "modules/upops.h"
#include "function/tffunction.h"
#include "modules/tfdata.h"
#include "formats/graphdef.h"
#include "formats/iofile.h"
#include "formats/snappyblk.h"
#include "modules/tfmod.h"
#include "formats/tfrecord.h"
#include "graph/exec.h"
#include "graph/trace.h"
#include "kernels/nest.h"
#include "modules/modules.h"
#include "modules/dsparmap.h"
#include "graph/exec.h"
#include "graph/parexec.h"

#define CARD_INFINITE (-1)
#define CARD_UNKNOWN (-2)

typedef enum DsKind {     /* ORDER DSKIND: ds_class[] follows it */
  DS_SLICES, DS_TENSORS, DS_RANGE, DS_ZIP, DS_MAP, DS_FILTER, DS_BATCH, DS_SHUFFLE, DS_TAKE, DS_SKIP,
  DS_REPEAT, DS_PREFETCH, DS_CACHE, DS_PMAP, DS_TFRECORD, DS_ARG, DS_SHARD, DS_HOST, DS_RANDOM,
  DS_TEXTLINE,
} DsKind;
static const char *const ds_class[] = {
  "_TensorSliceDataset", "_TensorDataset", "_RangeDataset", "_ZipDataset", "_MapDataset", "_FilterDataset",
  "_BatchDataset", "_ShuffleDataset", "_TakeDataset", "_SkipDataset", "_RepeatDataset", "_PrefetchDataset",
  "_CacheDataset", "_ParallelMapDataset", "TFRecordDatasetV2", "_VariantDataset", "_ShardDataset", "_HostDataset", "_RandomDataset",
  "TextLineDatasetV2",
};

typedef struct Dataset {
  Obj hdr;
  DsKind kind;
  Val spec;                   /* element_spec (owned) */
  Val src;                    /* the input dataset, a tuple of them (zip), or the sliced structure (owned) */
  Val fn;                     /* map/filter: the traced ConcreteFunction (owned) or VT_UNDEF */
  tfs_i64 a, b, c;            /* range start/stop/step; batch size; buffer size; take/skip/repeat count */
  bool flag;                  /* batch drop_remainder; shuffle reshuffle_each_iteration */
  bool seeded;                /* shuffle: a seed (op or global) was given */
  tfs_i64 seed, epoch;        /* shuffle: seed and the iterations begun so far */
  tfs_i64 card;
  bool traced;                /* created while tracing: the graph rebuilds it on every run */
  Val cached;                 /* cache(): list of the elements once one pass finished (VT_UNDEF before) */
  Tensor *handle;             /* a real dataset fed to a graph: its int64 handle (lazily made, owned) */
  Val cls;                    /* DS_HOST (and with_options' pass-through): TF's class name for the repr, a str (owned) */
  Val opts;                   /* tf.data.Options set by with_options here or on an input (owned), or VT_UNDEF */
  Val attrs;                  /* attributes a program sets (Keras's class_names, file_paths): a dict, or VT_UNDEF */
  Val reshard;                /* DS_HOST of an interleave/flat_map whose function reads files: reshard(num, index)
                               * rebuilds it over Dataset._shard_input(input, num, index) (FILE auto-sharding) */
  Val walk;                   /* DS_HOST the auto-shard walk passes through: walk(num, index) rebuilds it over its
                               * inputs' file shards; hin: those inputs (a dataset or a tuple of them) */
  Val hin;
  Val hsrc;                   /* DS_HOST: the input dataset(s) its factory iterates (a dataset, a list or tuple of
                               * them, or None) */
  Val bound;                  /* DS_ARG under a DS_HOST: the dataset the running graph fed for it (VT_UNDEF: none) */
  Val ofn;                    /* a node under a DS_HOST whose fn reads traced tensors: the traced fn while the running
                               * graph's bound copy is fn (VT_UNDEF: none) */
  Graph *capg;                /* a host dataset's capv as keys once the trace ended: their graph (only compared) */
  GraphRef *capr;             /* and their values in it (owned; ncapr of them) */
  int ncapr;
  Val capv;                   /* map/filter made while tracing: the traced tensors its function reads (a tuple of
                               * symbolic tensors, TF's other_arguments), fed to the ops that iterate it; else VT_UNDEF */
} Dataset;

static const Type ds_type;
static bool is_ds(Val v) { return val_is(v, &ds_type); }

static void handle_drop(Dataset *d);
static void sy_register(Dataset *d, Val t);

static void ds_free(Obj *o) {
  Dataset *d = (Dataset *)o;
  handle_drop(d);
  val_decref(d->spec);
  val_decref(d->src);
  val_decref(d->fn);
  val_decref(d->cached);
  val_decref(d->cls);
  val_decref(d->opts);
  val_decref(d->attrs);
  val_decref(d->reshard);
  val_decref(d->walk);
  val_decref(d->hin);
  val_decref(d->capv);
  free(d->capr);
  val_decref(d->hsrc);
  val_decref(d->bound);
  val_decref(d->ofn);
  free(d);
}

/* The options a transformation carries over from input v (TF merges its inputs' options, the later ones
 * winning: Options.merge of stdlib/tfcore_data.tfs). */
static void ds_inherit_opts(Dataset *d, Val v) {
  if (!is_ds(v) || val_is_undef(((Dataset *)v.u.o)->opts)) return;
  Val o = ((Dataset *)v.u.o)->opts;
  if (val_is_undef(d->opts)) { d->opts = val_incref(o); return; }
  Val m = rt_getattr(d->opts, "merge");
  int mark = rt_hold_val(m);
  Val r = rt_call(m, 1, &o, NULL);
  rt_unhold(mark);
  val_decref(m);
  val_decref(d->opts);
  d->opts = r;
}

static Dataset *ds_new(DsKind kind, Val spec, Val src, tfs_i64 card) {
  Dataset *d = obj_new(&ds_type, sizeof(Dataset));
  memset((char *)d + sizeof(Obj), 0, sizeof(Dataset) - sizeof(Obj));
  d->kind = kind;
  d->spec = spec;             /* adopted */
  d->src = val_incref(src);
  d->fn = val_undef();
  d->cached = val_undef();
  d->cls = val_undef();
  d->opts = val_undef();
  d->attrs = val_undef();
  d->reshard = val_undef();
  d->walk = val_undef();
  d->hin = val_undef();
  d->capv = val_undef();
  d->hsrc = val_undef();
  d->bound = val_undef();
  d->ofn = val_undef();
  d->card = card;
  d->traced = trace_active();
  if (is_ds(src)) ds_inherit_opts(d, src);
  else if (kind == DS_ZIP)
    for (tfs_i64 i = 0; i < ((Tuple *)src.u.o)->len; i++) ds_inherit_opts(d, ((Tuple *)src.u.o)->items[i]);
  return d;
}

/* A dataset built inside a tf.function is rebuilt on each call in TF: its
 * shuffles start again from their first order (a seeded one repeats it). */
static void ds_rebuild(Dataset *d) {
  d->epoch = 0;
  if (d->kind == DS_CACHE) { val_decref(d->cached); d->cached = val_undef(); }
  if (is_ds(d->src)) ds_rebuild((Dataset *)d->src.u.o);
  else if (d->kind == DS_ZIP)
    for (tfs_i64 i = 0; i < ((Tuple *)d->src.u.o)->len; i++) ds_rebuild((Dataset *)((Tuple *)d->src.u.o)->items[i].u.o);
}

/* ---- structures ------------------------------------------------------------------
 * Elements and specs are a leaf, or tuples/dicts of structures (lists become
 * tensors, as TF converts them). */


typedef Val (*LeafFn)(void *ctx, Val leaf);

static Val st_map(Val v, LeafFn f, void *ctx) {
  if (val_is(v, &tuple_type)) {
    Tuple *t = (Tuple *)v.u.o;
    Val r = tuple_new(t->len);
    int mark = rt_hold_val(r);
    for (tfs_i64 i = 0; i < t->len; i++) ((Tuple *)r.u.o)->items[i] = st_map(t->items[i], f, ctx);
    rt_unhold(mark);
    return r;
  }
  if (val_is(v, &dict_type)) {
    Val keys = dict_keys_list(v), r = dict_new();
    int mark = rt_hold_val(keys);
    rt_hold_val(r);
    List *kl = (List *)keys.u.o;
    for (tfs_i64 i = 0; i < kl->len; i++) {
      Val x = dict_get(v, kl->items[i]);
      int m2 = rt_hold_val(x);
      Val y = st_map(x, f, ctx);
      rt_unhold(m2);
      val_decref(x);
      dict_set(r, kl->items[i], y);
      val_decref(y);
    }
    rt_unhold(mark);
    val_decref(keys);
    return r;
  }
  return f(ctx, v);
}

/* n structures of one shape, leaf by leaf: f gets the n leaves at one position. */
typedef Val (*LeavesFn)(void *ctx, Val *leaves, int n);
static Val st_zipmap(Val *vs, int n, LeavesFn f, void *ctx) {
  Val v = vs[0];
  if (val_is(v, &tuple_type)) {
    Tuple *t = (Tuple *)v.u.o;
    Val r = tuple_new(t->len);
    int mark = rt_hold_val(r);
    Val *sub = malloc(sizeof(Val) * (size_t)n);
    if (!sub) rt_throw(ERR_MEMORY, "out of memory");
    rt_hold_mem(sub);
    for (tfs_i64 i = 0; i < t->len; i++) {
      for (int k = 0; k < n; k++) sub[k] = ((Tuple *)vs[k].u.o)->items[i];
      ((Tuple *)r.u.o)->items[i] = st_zipmap(sub, n, f, ctx);
    }
    rt_unhold(mark);
    free(sub);
    return r;
  }
  if (val_is(v, &dict_type)) {
    Val keys = dict_keys_list(v), r = dict_new();
    int mark = rt_hold_val(keys);
    rt_hold_val(r);
    Val *sub = calloc((size_t)n, sizeof(Val));
    if (!sub) rt_throw(ERR_MEMORY, "out of memory");
    tfs_i64 nn = n;
    rt_hold_vals(&sub, &nn);
    List *kl = (List *)keys.u.o;
    for (tfs_i64 i = 0; i < kl->len; i++) {
      for (int k = 0; k < n; k++) { val_decref(sub[k]); sub[k] = dict_get(vs[k], kl->items[i]); }
      Val y = st_zipmap(sub, n, f, ctx);
      dict_set(r, kl->items[i], y);
      val_decref(y);
    }
    rt_unhold(mark);
    for (int k = 0; k < n; k++) val_decref(sub[k]);
    free(sub);
    val_decref(keys);
    return r;
  }
  return f(ctx, vs, n);
}

/* A leaf as an eager tensor (owned). */
static Tensor *leaf_tensor(Val v, const char *what) {
  Tensor *t = val_as_tensor(v);
  if (t && t->sym) rt_throw(ERR_TYPE, "%s: a symbolic tensor cannot feed a dataset built outside a tf.function", what);
  if (t && val_is(v, &variable_type)) return val_tensor(op_apply1(OP_READ_VARIABLE, v));
  if (t) return tensor_retain(t);
  return tensor_from_val(v, -1);
}

/* Whether v is an instance of a .tfs class that defines `name`. */
static bool class_defines(Val v, const char *name) {
  if (!val_is(v, &inst_type)) return false;
  Val f = class_find(((Inst *)v.u.o)->klass, name);
  if (val_is_undef(f)) return false;
  val_decref(f);
  return true;
}

/* Whether v is a composite tensor written in .tfs (a tf.RaggedTensor: a class with __tf_dispatch__). */
static bool is_composite(Val v) { return class_defines(v, "__tf_dispatch__"); }

/* A leaf as an element's component: a tensor, or a composite (a map's RaggedTensor) as it is. */
static Val to_tensor_leaf(void *ctx, Val leaf) {
  if (is_composite(leaf)) return val_incref(leaf);
  return val_obj(leaf_tensor(leaf, (const char *)ctx));
}

/* The first leaf of a spec structure (tuples, lists, dicts) that is not a TensorSpec (a tf.RaggedTensorSpec), or
 * VT_UNDEF. Borrowed. */
static Val composite_spec_in(Val spec) {
  tfs_i64 m;
  const Val *items;
  if ((val_is(spec, &tuple_type) || val_is(spec, &list_type)) && seq_items(spec, &m, &items)) {
    for (tfs_i64 i = 0; i < m; i++) {
      Val c = composite_spec_in(items[i]);
      if (!val_is_undef(c)) return c;
    }
    return val_undef();
  }
  if (val_is(spec, &dict_type)) {
    const Dict *d = (const Dict *)spec.u.o;
    for (tfs_i64 i = 0; i < d->len; i++) {
      if (val_is_undef(d->keys[i])) continue;
      Val c = composite_spec_in(d->vals[i]);
      if (!val_is_undef(c)) return c;
    }
    return val_undef();
  }
  return val_is(spec, &tffn_spec_type) ? val_undef() : spec;
}

static Val spec_of_leaf(void *ctx, Val leaf) {
  int drop = ctx ? *(int *)ctx : 0;   /* leading dims dropped (slices) */
  if (!drop && is_composite(leaf)) return rt_getattr(leaf, "_type_spec");   /* from_tensors(ragged/sparse) */
  Tensor *t = val_tensor(leaf);
  return tffn_spec_new(t->rank - drop, t->shape + drop, t->dtype, val_none());
}

static TensorSpecObj *spec_obj(Val s) { return (TensorSpecObj *)s.u.o; }

/* ---- sources ------------------------------------------------------------------------ */

static Val ds_val(Dataset *d) { return val_obj(d); }

/* st_map callback of from_tensor_slices: the leaves' leading dimensions agree (ctx: rows so far). */
static Val check_rows(void *ctx, Val leaf) {
  tfs_i64 *rows = ctx;
  /* a composite (RaggedTensor, SparseTensor) slices itself only as the whole structure (_tf_dataset_slices) */
  if (is_composite(leaf))
    rt_throw(ERR_NOTIMPL, "tfs's tf.data.Dataset.from_tensor_slices does not slice a %s inside a structure or "
             "without its own slicing", val_type_name(leaf));
  Tensor *t = val_tensor(leaf);
  if (t->rank == 0) rt_throw(ERR_VALUE, "Unbatching a tensor is only supported for rank >= 1");
  if (*rows >= 0 && t->shape[0] != *rows)
    rt_throw(ERR_VALUE, "Dimensions %lld and %lld are not compatible", (long long)*rows, (long long)t->shape[0]);
  *rows = t->shape[0];
  return val_none();
}

//! tf.data.Dataset.from_tensor_slices(tensors, name=None)
//!   A dataset of the slices of a tensor (or of a tuple or dict of tensors) along their first dimension; a
//!   tf.RaggedTensor gives its rows (tensors, or RaggedTensors of one ragged_rank less).
static Val ds_source_traced(OpId op, Val structure, int drop);
static bool st_symbolic(Val v);

static Val ds_from_tensor_slices(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.data.Dataset.from_tensor_slices", .sig = "tensors, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (val_is(a[0], &inst_type)) {   /* a composite written in .tfs (tf.RaggedTensor) slices itself */
    Val f = class_find(((Inst *)a[0].u.o)->klass, "_tf_dataset_slices");
    if (!val_is_undef(f)) {
      int mark = rt_hold_val(f);
      Val r = rt_call(f, 1, &a[0], NULL);
      rt_unhold(mark);
      val_decref(f);
      return r;
    }
  }
  if (trace_active() && st_symbolic(a[0])) return ds_source_traced(OP_DATASET_SLICES, a[0], 1);
  Val st = st_map(a[0], to_tensor_leaf, "tf.data.Dataset.from_tensor_slices");
  int mark = rt_hold_val(st);
  /* every leaf must have the same leading dimension */
  tfs_i64 rows = -1;
  val_decref(st_map(st, check_rows, &rows));
  int one = 1;
  Val sp = st_map(st, spec_of_leaf, &one);
  rt_unhold(mark);
  Dataset *d = ds_new(DS_SLICES, sp, st, rows < 0 ? 0 : rows);
  val_decref(st);
  return ds_val(d);
}

//! tf.data.Dataset.from_tensors(tensors, name=None)
//!   A dataset with one element: the given tensor or structure.
static Val ds_from_tensors(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.data.Dataset.from_tensors", .sig = "tensors, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (trace_active() && st_symbolic(a[0])) return ds_source_traced(OP_DATASET_TENSORS, a[0], 0);
  Val st = st_map(a[0], to_tensor_leaf, "tf.data.Dataset.from_tensors");
  int mark = rt_hold_val(st);
  Val sp = st_map(st, spec_of_leaf, NULL);
  rt_unhold(mark);
  Dataset *d = ds_new(DS_TENSORS, sp, st, 1);
  val_decref(st);
  return ds_val(d);
}

static Val ds_range_make(tfs_i64 start, tfs_i64 stop, tfs_i64 step, DType odt);

static tfs_i64 int_arg(Val v, const char *what) {
  Tensor *t = val_as_tensor(v);
  if (t && !t->sym && t->size == 1 && dtype_info[t->dtype].is_int) return tensor_get_i(t, 0);
  return val_to_index(v, what);
}

//! tf.data.Dataset.range(start, stop=None, step=1, output_type=tf.int64)
//!   A dataset of the int64 scalars start, start + step, ... below stop, as Python range.
static Val ds_range(Val self, int n, const Val *args, const Kw *kw) {
  tfs_i64 v[3] = {0, 0, 1};
  int np = 0;
  Val dt = val_undef();
  for (int i = 0; kw && i < kw->n; i++) {
    if (!strcmp(kw->names[i], "output_type")) dt = kw->vals[i];
    else if (strcmp(kw->names[i], "name")) rt_throw(ERR_TYPE, "range() got an unexpected keyword argument '%s'", kw->names[i]);
  }
  if (n < 1 || n > 3) rt_throw(ERR_TYPE, "tf.data.Dataset.range takes 1 to 3 positional arguments (%d given)", n);
  DType odt = DT_INT64;
  if (!val_is_undef(dt) && !val_as_dtype(dt, &odt)) dtype_fail(dt);
  bool sym = false;
  for (int i = 0; i < n; i++) sym |= trace_val_symbolic(args[i]);
  if (trace_active() && sym) {   /* bounds computed in the graph: a RangeDataset op, as TF */
    Val in[3];
    int mark = -1;
    for (int i = 0; i < 3; i++) {
      Val x = n == 1 ? (i == 1 ? args[0] : val_int(i == 2 ? 1 : 0)) : i < n ? args[i] : val_int(1);
      Tensor *t = val_as_tensor(x);
      if (t && !dtype_info[t->dtype].is_int)
        rt_throw(ERR_TYPE, "tf.data.Dataset.range: arguments must be integers, got a %s tensor", dtype_info[t->dtype].name);
      OpAttrs ca = {1, {dtype_val(DT_INT64)}};
      in[i] = t ? op_apply(&op_defs[OP_CAST], 1, &x, &ca) : val_obj(tensor_from_val(x, DT_INT64));
      int m = rt_hold_val(in[i]);
      if (mark < 0) mark = m;
    }
    OpAttrs at = {1, {dtype_val(odt)}};
    Val h = op_apply(&op_defs[OP_DATASET_RANGE], 3, in, &at);
    rt_unhold(mark);
    for (int i = 0; i < 3; i++) val_decref(in[i]);
    Dataset *d = ds_new(DS_ARG, tffn_spec_new(0, NULL, odt, val_none()), h, CARD_UNKNOWN);
    val_decref(h);
    d->flag = true;
    sy_register(d, d->src);
    return ds_val(d);
  }
  for (int i = 0; i < n; i++) v[i] = int_arg(args[i], "tf.data.Dataset.range");
  np = n;
  tfs_i64 start = np == 1 ? 0 : v[0], stop = np == 1 ? v[0] : v[1], step = np == 3 ? v[2] : 1;
  if (step == 0) rt_throw(ERR_INVALID_ARGUMENT, "step must be a non-zero integer.");
  return ds_range_make(start, stop, step, odt);
}

static Val ds_range_make(tfs_i64 start, tfs_i64 stop, tfs_i64 step, DType odt) {
  tfs_i64 card = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                          : (start > stop ? (start - stop + (-step) - 1) / (-step) : 0);
  Dataset *d = ds_new(DS_RANGE, tffn_spec_new(0, NULL, odt, val_none()), val_undef(), card);
  d->a = start;
  d->b = stop;
  d->c = step;
  return ds_val(d);
}

//! tf.data.Dataset.zip(datasets)
//!   A dataset of tuples of the elements of several datasets, ending with the shortest.
static Val ds_zip(Val self, int n, const Val *args, const Kw *kw) {
  /* zip((a, b)) or zip(a, b): a structure of datasets */
  Val srcs;
  if (n == 1 && val_is(args[0], &tuple_type)) srcs = val_incref(args[0]);
  else if (n == 1 && is_ds(args[0])) srcs = val_incref(args[0]);
  else {
    srcs = tuple_new(n);
    for (int i = 0; i < n; i++) ((Tuple *)srcs.u.o)->items[i] = val_incref(args[i]);
  }
  (void)kw;
  int mark = rt_hold_val(srcs);
  if (!val_is(srcs, &tuple_type)) rt_throw(ERR_TYPE, "tf.data.Dataset.zip expects a tuple of datasets");
  Tuple *t = (Tuple *)srcs.u.o;
  Val sp = tuple_new(t->len);
  rt_hold_val(sp);
  tfs_i64 card = CARD_INFINITE;
  for (tfs_i64 i = 0; i < t->len; i++) {
    if (!is_ds(t->items[i]))
      rt_throw(ERR_TYPE, "The argument to `Dataset.zip()` must be a (nested) structure of `Dataset` objects, not %s",
               val_type_name(t->items[i]));
    Dataset *c = (Dataset *)t->items[i].u.o;
    ((Tuple *)sp.u.o)->items[i] = val_incref(c->spec);
    if (c->card == CARD_UNKNOWN) card = card == CARD_INFINITE ? CARD_UNKNOWN : card;
    else if (c->card >= 0 && (card < 0 || c->card < card)) card = c->card;
  }
  if (t->len == 0) card = 0;
  rt_unhold(mark);
  Dataset *d = ds_new(DS_ZIP, sp, srcs, card);
  val_decref(srcs);
  return ds_val(d);
}

/* ---- transformations -------------------------------------------------------------- */

/* Datasets made while tracing that hold the trace's symbolic tensors (a source's stand-in its op's output, a
 * function's captured tensors): when that trace ends they drop them (trace_pop_hook), since a dataset op of the
 * graph may keep the dataset (a host dataset is kept as it is) and the tensors hold the graph.  A host dataset
 * keeps its captured tensors' keys (capg, capr) for the runs' values (bind_inplace). */
static Dataset **sy_node;
static Graph **sy_graph;
static int sy_n, sy_cap;

static void sy_trace_ended(Graph *g) {
  int k = 0;
  for (int i = 0; i < sy_n; i++) {
    if (sy_graph[i] != g) { sy_node[k] = sy_node[i]; sy_graph[k++] = sy_graph[i]; continue; }
    Dataset *d = sy_node[i];
    if (d->kind == DS_ARG && d->flag) {
      Val v = d->src;
      d->src = val_none();
      val_decref(v);
    }
    Val c = d->capv;
    d->capv = val_undef();
    val_decref(c);
    val_decref(ds_val(d));
  }
  sy_n = k;
}

/* d holds tensors of the graph of symbolic tensor t (its captures' keys too when it is a host dataset) */
static void sy_register(Dataset *d, Val t) {
  Graph *g;
  GraphRef r;
  if (!val_is(t, &tensor_type) || !trace_sym_ref(val_tensor(t), &g, &r)) return;
  if (sy_n == sy_cap) {
    int cap = sy_cap ? sy_cap * 2 : 16;
    Dataset **nn = realloc(sy_node, sizeof(Dataset *) * (size_t)cap);
    if (!nn) rt_throw(ERR_MEMORY, "out of memory");
    sy_node = nn;
    Graph **ng = realloc(sy_graph, sizeof(Graph *) * (size_t)cap);
    if (!ng) rt_throw(ERR_MEMORY, "out of memory");
    sy_graph = ng;
    sy_cap = cap;
  }
  trace_pop_hook = sy_trace_ended;
  graph_attr_cyclic = is_ds;
  d->hdr.rc++;
  sy_node[sy_n] = d;
  sy_graph[sy_n++] = g;
  if (d->kind == DS_HOST && !val_is_undef(d->capv)) {
    Tuple *cv = (Tuple *)d->capv.u.o;
    d->capr = malloc(sizeof(GraphRef) * (size_t)(cv->len + 1));
    if (!d->capr) rt_throw(ERR_MEMORY, "out of memory");
    d->capg = g;
    d->ncapr = 0;
    for (tfs_i64 j = 0; j < cv->len; j++) {   /* (captures come from the one trace the dataset is made in) */
      Graph *gj;
      if (!trace_sym_ref(val_tensor(cv->items[j]), &gj, &d->capr[j]) || gj != g) {
        d->ncapr = 0;
        break;
      }
      d->ncapr++;
    }
  }
}

static void sy_register_caps(Dataset *d) {
  if (!val_is_undef(d->capv) && ((Tuple *)d->capv.u.o)->len) sy_register(d, ((Tuple *)d->capv.u.o)->items[0]);
}

/* f as a tf.function traced on the args (get_concrete_function): inside a tf.function the function's tensors f
 * reads become captured inputs.  Returns the ConcreteFunction. */
static Val concrete_of(Val f, int na, const Val *args) {
  Val tffn = tfmod_lookup("function");
  int mark = rt_hold_val(tffn);
  Val w = rt_call(tffn, 1, &f, NULL);
  rt_hold_val(w);
  Val gcf = rt_getattr(w, "get_concrete_function");
  rt_hold_val(gcf);
  tffn_capture_outer = trace_active();
  Val c = rt_call(gcf, na, args, NULL);
  tffn_capture_outer = false;
  rt_unhold(mark);
  val_decref(gcf);
  val_decref(w);
  val_decref(tffn);
  return c;
}

/* Wrap f in tf.function and trace it on the element spec (a tuple spec is passed as
 * separate arguments, as TF unpacks it); returns the ConcreteFunction. */
static Val trace_fn(Val f, Val spec, Val extra_first) {
  Val args[64];
  int na = 0;
  if (!val_is_undef(extra_first)) args[na++] = extra_first;
  if (val_is(spec, &tuple_type) && val_is_undef(extra_first)) {
    Tuple *t = (Tuple *)spec.u.o;
    if (t->len > 63) rt_throw(ERR_VALUE, "tf.data: elements with more than 63 components are not supported");
    for (tfs_i64 i = 0; i < t->len; i++) args[na++] = t->items[i];
  } else {
    args[na++] = spec;
  }
  return concrete_of(f, na, args);
}

static Val call_fn(Val c, Val elem) {
  if (val_is(elem, &tuple_type)) {
    Tuple *t = (Tuple *)elem.u.o;
    return rt_call(c, (int)t->len, t->items, NULL);
  }
  return rt_call(c, 1, &elem, NULL);
}

static Dataset *self_ds(Val self) { return (Dataset *)self.u.o; }

static Dataset *derive(Val self, DsKind kind, Val spec, tfs_i64 card) {
  return ds_new(kind, spec, self, card);
}

/* trace_fn on the dataset's element spec, and what the traced function returns (*out: owned spec). */
static Val trace_elem_fn(Val f, Dataset *s, Val *out) {
  Val c = trace_fn(f, s->spec, val_undef());
  int mark = rt_hold_val(c);
  *out = tffn_output_spec(c);
  rt_unhold(mark);
  return c;
}

//! Dataset.map(map_func, num_parallel_calls=None, deterministic=None, name=None)
//!   Applies map_func to every element; the function is traced into a graph once, when map() is called.
//!   num_parallel_calls (a count or tf.data.AUTOTUNE) runs the graph for that many elements at once on worker
//!   threads (within the pipeline's tf.data.Options), results in input order; deterministic=False (or the options'
//!   deterministic=False) hands them out as they finish. Without num_parallel_calls a stateless function runs as
//!   an AUTOTUNE map in order (TF 2.15's default map_parallelization); docs/data.md says when it stays sequential.
static Val ds_map(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.map", .sig = "map_func, num_parallel_calls=None, deterministic=None, name=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  Dataset *s = self_ds(self);
  Val sp;
  Val c = trace_elem_fn(a[0], s, &sp);
  bool par = !(a[1].tag == VT_NONE || a[1].tag == VT_UNDEF);
  Dataset *d = derive(self, par ? DS_PMAP : DS_MAP, sp, s->card);
  d->fn = c;
  d->capv = tffn_conc_take_captures(c);
  sy_register_caps(d);
  /* deterministic (TF's "default"/"true"/"false" attr) in b: 0 the options decide, 1 in order, -1 as finished */
  d->b = a[2].tag == VT_NONE || val_is_undef(a[2]) ? 0 : rt_truthy(a[2]) ? 1 : -1;
  /* num_parallel_calls: AUTOTUNE (-1) or a count; a tensor counts by its value */
  if (par) {
    int64_t np = -1;
    Val nv = a[1];
    if (val_is(nv, &tensor_type) && val_tensor(nv)->size == 1) np = (int64_t)tensor_get_f(val_tensor(nv), 0);
    else if (!val_as_int(nv, &np)) np = -1;
    d->a = np;
  }
  return ds_val(d);
}

//! Dataset.filter(predicate, name=None)
//!   Keeps the elements for which predicate returns true (a traced graph function, as map).
static Val ds_filter(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.filter", .sig = "predicate, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Dataset *s = self_ds(self);
  Val sp;
  Val c = trace_elem_fn(a[0], s, &sp);
  int mark = rt_hold_val(c);
  rt_hold_val(sp);
  if (!val_is(sp, &tffn_spec_type) || spec_obj(sp)->dtype != DT_BOOL || spec_obj(sp)->rank != 0) {
    StrBuf b;
    sb_init(&b);
    rt_hold_sb(&b);
    val_repr(&b, sp);
    sb_putc(&b, '\0');
    rt_throw(ERR_VALUE, "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is %s.", b.data);
  }
  rt_unhold(mark);
  val_decref(sp);
  Dataset *d = derive(self, DS_FILTER, val_incref(s->spec), s->card == CARD_INFINITE ? CARD_INFINITE : CARD_UNKNOWN);
  d->fn = c;
  d->capv = tffn_conc_take_captures(c);
  sy_register_caps(d);
  return ds_val(d);
}

static Val batch_spec(void *ctx, Val leaf) {
  tfs_i64 bdim = *(tfs_i64 *)ctx;
  TensorSpecObj *s = spec_obj(leaf);
  tfs_i64 dims[TFS_MAX_RANK];
  if (s->rank + 1 > TFS_MAX_RANK) rt_throw(ERR_VALUE, "Dataset.batch: elements of rank %d cannot be batched", s->rank);
  dims[0] = bdim;
  for (int i = 0; i < s->rank; i++) dims[i + 1] = s->dims[i];
  return tffn_spec_new(s->rank < 0 ? -1 : s->rank + 1, dims, s->dtype, val_none());
}

//! Dataset.batch(batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None)
//!   Stacks consecutive elements into batches; the last one may be smaller unless drop_remainder. A tf.RaggedTensor
//!   component (a ragged TextVectorization mapped over a dataset) is batched as TF batches one: a RaggedTensor with one
//!   more ragged dimension, element_spec RaggedTensorSpec(shape [batch] + shape, ragged_rank + 1).
static Val ds_batch(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.batch",
                         .sig = "batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None"};
  Val a[5];
  args_parse(&spec, n, args, kw, a);
  Dataset *s = self_ds(self);
  Val comp = composite_spec_in(s->spec);
  if (!val_is_undef(comp)) {
    /* elements with a RaggedTensor component: batched by the spec's class, as TF's RaggedTensorSpec._batch
     * (stdlib/tfcore_data.tfs composite_batch) */
    Val f = rt_getattr(comp, "_dataset_batch");
    int mark = rt_hold_val(f);
    Val ca[3] = {self, a[0], a[1]};
    Val r = rt_call(f, 3, ca, NULL);
    rt_unhold(mark);
    val_decref(f);
    return r;
  }
  tfs_i64 bs = int_arg(a[0], "batch_size");
  if (bs <= 0) rt_throw(ERR_INVALID_ARGUMENT, "Batch size must be greater than zero.");
  bool drop = rt_truthy(a[1]);
  tfs_i64 bdim = drop ? bs : -1;
  Val sp = st_map(s->spec, batch_spec, &bdim);
  tfs_i64 card = s->card < 0 ? s->card : drop ? s->card / bs : (s->card + bs - 1) / bs;
  Dataset *d = derive(self, DS_BATCH, sp, card);
  d->a = bs;
  d->flag = drop;
  return ds_val(d);
}

//! Dataset.shuffle(buffer_size, seed=None, reshuffle_each_iteration=None, name=None)
//!   Shuffles through a buffer of buffer_size elements; reproducible with a seed or tf.random.set_seed.
static Val ds_shuffle(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.shuffle", .sig = "buffer_size, seed=None, reshuffle_each_iteration=None, name=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  Dataset *s = self_ds(self);
  tfs_i64 bs = int_arg(a[0], "buffer_size");
  if (bs <= 0) rt_throw(ERR_INVALID_ARGUMENT, "buffer_size must be greater than zero.");
  Dataset *d = derive(self, DS_SHUFFLE, val_incref(s->spec), s->card);
  d->a = bs;
  d->flag = a[2].tag == VT_NONE || a[2].tag == VT_UNDEF || rt_truthy(a[2]);
  tfs_i64 g;
  bool has_g = random_global_seed(&g);
  if (a[1].tag != VT_NONE && a[1].tag != VT_UNDEF) {
    d->seeded = true;
    d->seed = int_arg(a[1], "seed") * 1000003 + (has_g ? g : 87654321);
  } else if (has_g) {
    d->seeded = true;
    d->seed = g * 7919 + random_op_seed_index();   /* as TF derives op seeds: reset by set_seed */
  } else {
    d->seeded = false;
    d->seed = (tfs_i64)time(NULL) ^ (tfs_i64)(uintptr_t)d;
  }
  return ds_val(d);
}

static Val count_ds(Val self, int n, const Val *args, const Kw *kw, DsKind kind, const char *what) {
  static ArgSpec specs[3] = {{.what = "Dataset.take", .sig = "count, name=None"},
                             {.what = "Dataset.skip", .sig = "count, name=None"},
                             {.what = "Dataset.repeat", .sig = "count=None, name=None"}};
  ArgSpec *sp = &specs[kind == DS_TAKE ? 0 : kind == DS_SKIP ? 1 : 2];
  Val a[2];
  args_parse(sp, n, args, kw, a);
  (void)what;
  Dataset *s = self_ds(self);
  tfs_i64 cnt = a[0].tag == VT_NONE || a[0].tag == VT_UNDEF ? -1 : int_arg(a[0], "count");
  tfs_i64 c = s->card, card;
  if (kind == DS_TAKE) {
    card = cnt < 0 ? c : c == CARD_INFINITE ? cnt : c == CARD_UNKNOWN ? CARD_UNKNOWN : (cnt < c ? cnt : c);
  } else if (kind == DS_SKIP) {
    card = c < 0 ? c : cnt < 0 ? 0 : (c > cnt ? c - cnt : 0);
  } else {
    card = c == 0 ? 0 : cnt < 0 ? CARD_INFINITE : c < 0 ? c : c * cnt;
    if (cnt == 0) card = 0;
  }
  Dataset *d = derive(self, kind, val_incref(s->spec), card);
  d->a = cnt;
  return ds_val(d);
}
//! Dataset.take(count, name=None) | Dataset.skip(count, name=None) | Dataset.repeat(count=None, name=None)
//!   The first count elements; all but the first count; the dataset repeated count times (forever with None).
static Val ds_take(Val self, int n, const Val *args, const Kw *kw) { return count_ds(self, n, args, kw, DS_TAKE, "take"); }
static Val ds_skip(Val self, int n, const Val *args, const Kw *kw) { return count_ds(self, n, args, kw, DS_SKIP, "skip"); }
static Val ds_repeat(Val self, int n, const Val *args, const Kw *kw) { return count_ds(self, n, args, kw, DS_REPEAT, "repeat"); }

/* self.shard(num, idx), the arguments checked */
static Dataset *shard_make(Val self, tfs_i64 num, tfs_i64 idx) {
  Dataset *s = self_ds(self);
  tfs_i64 c = s->card;
  tfs_i64 card = c < 0 ? c : c / num + (idx < c % num ? 1 : 0);
  Dataset *d = derive(self, DS_SHARD, val_incref(s->spec), card);
  d->a = num;
  d->b = idx;
  return d;
}

//! Dataset.shard(num_shards, index, name=None)
//!   The elements whose position i has i % num_shards == index (one shard per worker, as tf.distribute's input
//!   pipelines use it).
static Val ds_shard(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.shard", .sig = "num_shards, index, name=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  tfs_i64 num = int_arg(a[0], "num_shards"), idx = int_arg(a[1], "index");
  if (num <= 0)
    rt_throw(ERR_INVALID_ARGUMENT, "Number of shards must be greater than zero (currently num_shards = %lld).", (long long)num);
  if (idx < 0 || idx >= num)
    rt_throw(ERR_INVALID_ARGUMENT, "Index must be between 0 and %lld (currently index = %lld).", (long long)(num - 1),
             (long long)idx);
  return ds_val(shard_make(self, num, idx));
}

//! Dataset.prefetch(buffer_size, name=None) | Dataset.cache(filename='', name=None)
//!   Accepted for compatibility: elements are produced on demand, so both return an equivalent dataset.
static Val ds_prefetch(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.prefetch", .sig = "buffer_size, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Dataset *s = self_ds(self);
  int_arg(a[0], "buffer_size");
  return ds_val(derive(self, DS_PREFETCH, val_incref(s->spec), s->card));
}

static Val ds_cache(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.cache", .sig = "filename='', name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (val_is(a[0], &str_type) && str_len(a[0]) > 0) rt_throw(ERR_UNIMPLEMENTED, "Dataset.cache: caching to a file is not supported; use cache()");
  Dataset *s = self_ds(self);
  return ds_val(derive(self, DS_CACHE, val_incref(s->spec), s->card));
}

//! Dataset.enumerate(start=0, name=None)
//!   Pairs each element with its int64 index: (i, element).
static Val ds_enumerate(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.enumerate", .sig = "start=0, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  tfs_i64 start = int_arg(a[0], "start");
  /* TF: zip((range(start, inf), self)) */
  Dataset *r = ds_new(DS_RANGE, tffn_spec_new(0, NULL, DT_INT64, val_none()), val_undef(), CARD_INFINITE);
  r->a = start;
  r->b = INT64_MAX;
  r->c = 1;
  Val rv = ds_val(r);
  Val zargs[2] = {rv, self};
  Val z = ds_zip(val_undef(), 2, zargs, NULL);
  val_decref(rv);
  return z;
}

/* ---- iteration --------------------------------------------------------------------
 * One state per dataset node; ds_next returns false at the end. */

/* What the iterated dataset's tf.data.Options change in its pipeline (docs/data.md "Options and determinism"),
 * read once when the outermost iterator is made and handed to every iterator under it, as TF applies the final
 * dataset's options to the whole graph. */
typedef struct DsPolicy {
  int pool;                   /* threading.private_threadpool_size > 0: the threads parallel map/interleave may use */
  int intra;                  /* threading.max_intra_op_parallelism: the threads a kernel's job may use (1: the
                               * pipeline's own), or 0 */
  bool autotune;              /* autotune.enabled is not False */
  int cpu_budget;             /* autotune.cpu_budget > 0, or 0 */
  bool map_par;               /* map_parallelization not False (TF's default rewrite) and autotune on: sequential
                               * maps of stateless functions run as AUTOTUNE ones */
  tfs_i64 ram_budget;         /* autotune.ram_budget > 0: the bytes a parallel map's fill may hold, or 0 */
  bool nondet;                /* deterministic is False: parallel maps without deterministic=True hand results out
                               * as they finish */
} DsPolicy;

typedef struct DsIt {
  Obj hdr;
  DsPolicy pol;               /* the pipeline's options, as the outermost iterator read them */
  Dataset *ds;                /* owned reference */
  struct DsIt **kids;         /* inputs' iterators (zip: several) */
  int nkids;
  tfs_i64 i, j;               /* position; repeat: epochs done; batch/shuffle: bookkeeping; TFRecord: file, offset */
  bool done;
  bool started;               /* next() was called on it (Python's view; not the inputs' iterators) */
  Val buf;                    /* shuffle buffer / cache recording: a list; TFRecord: the file's bytes, a str (owned) or VT_UNDEF */
  tfs_u64 rng;                /* shuffle: splitmix64 state */
  ParMap *pm;                 /* parallel map: its buffer and workers (NULL: maps in order here) */
  bool pm_tried;
  /* parallel interleave (ds_pull_blocks) */
  struct ExecPlan *wplan;     /* map on top: the worker's private plan of the function's graph */
  signed char wk;             /* 0 not checked, 1 its pulls may run on a worker, -1 main thread only */
  bool pend;                  /* a pull failed: raised by the next next() */
  RtTry perr;                 /* that error (kind, msg, loc, exc) */
  Tensor *handle;             /* passed to a tf.function: the int64 handle its graph reads it by (eit_handle), or NULL */
} DsIt;

static const Type dsit_type;
static void eit_drop(DsIt *it);

static void dsit_free(Obj *o) {
  DsIt *it = (DsIt *)o;
  eit_drop(it);
  for (int k = 0; k < it->nkids; k++)
    if (it->kids[k]) { Val v = val_obj(it->kids[k]); val_decref(v); }
  free(it->kids);
  parmap_free(it->pm);
  if (it->wplan) exec_plan_free(it->wplan);
  if (it->pend) rt_try_clear(&it->perr);
  val_decref(it->buf);
  Val d = val_obj(it->ds);
  val_decref(d);
  free(it);
}

/* The policy of the iterator whose next() is running on this thread: an iterator made meanwhile (a .tfs
 * dataset's inputs, an interleave's inner datasets) belongs to that pipeline and takes it (TF's nested
 * iterators share their parent's context). */
static _Thread_local const DsPolicy *ds_ambient;

/* options o's group.name (group NULL: o.name) as an int, *isset false when it is None */
static tfs_i64 opt_int(Val o, const char *group, const char *name, bool *isset) {
  Val g = group ? rt_getattr(o, group) : val_incref(o);
  int mark = rt_hold_val(g);
  Val v = rt_getattr(g, name);
  rt_unhold(mark);
  val_decref(g);
  int64_t n = 0;
  *isset = v.tag != VT_NONE && !val_is_undef(v);
  if (v.tag == VT_BOOL) n = v.u.i;
  else if (*isset && !val_as_int(v, &n)) n = 0;
  val_decref(v);
  return n;
}

/* The policy of options o (VT_UNDEF: none set), as TF's FinalizeDataset and map_parallelization read them. */
static DsPolicy pol_of(Val o) {
  DsPolicy p = {.autotune = true, .map_par = true};
  if (val_is_undef(o)) return p;
  bool set;
  tfs_i64 v = opt_int(o, "threading", "private_threadpool_size", &set);
  p.pool = set && v > 0 ? (int)(v > 64 ? 64 : v) : 0;
  v = opt_int(o, "threading", "max_intra_op_parallelism", &set);
  p.intra = set && v > 0 ? (int)(v > 64 ? 64 : v) : 0;
  v = opt_int(o, "autotune", "enabled", &set);
  p.autotune = !set || v;
  v = opt_int(o, "autotune", "ram_budget", &set);
  p.ram_budget = set && v > 0 ? v : 0;
  v = opt_int(o, "autotune", "cpu_budget", &set);
  p.cpu_budget = set && v > 0 ? (int)(v > 64 ? 64 : v) : 0;
  /* TF 2.15 applies map_parallelization by default (unset, apply_default_optimizations not False) and skips
   * it when autotune is off (dataset_utils.cc, map_parallelization.cc) */
  v = opt_int(o, "experimental_optimization", "apply_default_optimizations", &set);
  bool dflt = !set || v;
  v = opt_int(o, "experimental_optimization", "map_parallelization", &set);
  p.map_par = (set ? v != 0 : dflt) && p.autotune;
  v = opt_int(o, NULL, "deterministic", &set);
  p.nondet = set && !v;
  return p;
}

/* The threads a parallel map or interleave of the pipeline uses for num_parallel_calls npc (-1: AUTOTUNE).
 * TF runs the calls on the runner's pool (the private one when private_threadpool_size is set, else one thread
 * per core) and starts AUTOTUNE at min(16, pool); the autotuner may raise it up to the pool within cpu_budget,
 * tfs takes the pool within cpu_budget at once (it does not tune). */
static int pol_lanes(const DsPolicy *p, tfs_i64 npc) {
  int pool = p->pool > 0 ? p->pool : tp_threads();
  tfs_i64 n = npc;
  if (npc < 0) {
    n = p->autotune ? pool : pool < 16 ? pool : 16;
    if (p->autotune && p->cpu_budget > 0 && n > p->cpu_budget) n = p->cpu_budget;
  }
  if (n > pool && p->pool > 0) n = pool;
  return n > 64 ? 64 : (int)n;
}

static DsIt *dsit_new_in(Dataset *d, const DsPolicy *pol);
static DsIt *dsit_new(Dataset *d) {
  if (ds_ambient) return dsit_new_in(d, ds_ambient);
  DsPolicy p = pol_of(d->opts);
  return dsit_new_in(d, &p);
}

static void dsit_set_kid(DsIt *it, int k, Dataset *d) {
  if (it->kids[k]) { Val v = val_obj(it->kids[k]); val_decref(v); }
  it->kids[k] = NULL;
  it->kids[k] = dsit_new_in(d, &it->pol);
}

static DsIt *dsit_new_in(Dataset *d, const DsPolicy *pol) {
  DsIt *it = obj_new(&dsit_type, sizeof(DsIt));
  memset((char *)it + sizeof(Obj), 0, sizeof(DsIt) - sizeof(Obj));
  it->pol = *pol;
  d->hdr.rc++;
  it->ds = d;
  it->buf = val_undef();
  Val itv = val_obj(it);
  int mark = rt_hold_val(itv);
  if (d->kind == DS_ZIP) {
    Tuple *t = (Tuple *)d->src.u.o;
    it->kids = calloc((size_t)t->len + 1, sizeof(DsIt *));
    if (!it->kids) rt_throw(ERR_MEMORY, "out of memory");
    it->nkids = (int)t->len;
    for (int k = 0; k < it->nkids; k++) dsit_set_kid(it, k, (Dataset *)t->items[k].u.o);
  } else if (is_ds(d->src)) {
    it->kids = calloc(1, sizeof(DsIt *));
    if (!it->kids) rt_throw(ERR_MEMORY, "out of memory");
    it->nkids = 1;
    if (!(d->kind == DS_CACHE && !val_is_undef(d->cached))) dsit_set_kid(it, 0, (Dataset *)d->src.u.o);
  } else if (d->kind == DS_ARG && is_ds(d->bound)) {
    /* a stand-in a host dataset's factory iterates while its graph runs: the fed dataset */
    it->kids = calloc(1, sizeof(DsIt *));
    if (!it->kids) rt_throw(ERR_MEMORY, "out of memory");
    it->nkids = 1;
    dsit_set_kid(it, 0, (Dataset *)d->bound.u.o);
  }
  if (d->kind == DS_RANGE) it->i = d->a;
  if (d->kind == DS_SHUFFLE) {
    tfs_i64 ep = d->flag ? d->epoch++ : 0;
    it->rng = (tfs_u64)d->seed * 0x9e3779b97f4a7c15ULL + (tfs_u64)ep * 0xbf58476d1ce4e5b9ULL + 1;
    it->buf = list_new(0);
  }
  if (d->kind == DS_CACHE && val_is_undef(d->cached)) it->buf = list_new(0);
  if (d->kind == DS_RANDOM) {
    tfs_i64 ep = d->flag ? d->epoch++ : 0;
    it->rng = (tfs_u64)d->seed * 0x9e3779b97f4a7c15ULL + (tfs_u64)ep * 0xbf58476d1ce4e5b9ULL + 7;
  }
  rt_unhold(mark);
  return it;
}

static tfs_u64 splitmix(tfs_u64 *s) {
  tfs_u64 z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static Val slice_leaf(void *ctx, Val leaf) {
  tfs_i64 i = *(tfs_i64 *)ctx;
  Tensor *t = val_tensor(leaf);
  return val_obj(tensor_view(t, t->rank - 1, t->shape + 1, t->strides + 1, t->offset + i * t->strides[0]));
}

/* The leaves of an element in nest.flatten's order (dicts by sorted key), borrowed: at most cap stored, all counted. */
static void flatten_sorted(Val e, Val *out, int *n, int cap) {
  if (val_is(e, &tuple_type)) {
    Tuple *t = (Tuple *)e.u.o;
    for (tfs_i64 i = 0; i < t->len; i++) flatten_sorted(t->items[i], out, n, cap);
  } else if (val_is(e, &dict_type)) {
    Val keys = dict_keys_list(e);
    int mark = rt_hold_val(keys);
    list_sort(keys, val_none(), false);
    List *kl = (List *)keys.u.o;
    for (tfs_i64 i = 0; i < kl->len; i++) {
      Val v = dict_get(e, kl->items[i]);
      val_decref(v);   /* the dict keeps it alive */
      flatten_sorted(v, out, n, cap);
    }
    rt_unhold(mark);
    val_decref(keys);
  } else {
    if (*n < cap) out[*n] = e;
    (*n)++;
  }
}

#define BATCH_CHECK_LEAVES 64

/* TF's CopyBatch: each component of every element of a batch must have the first element's shape; the error names
 * the first component (in nest.flatten's order) with a mismatch and its first differing element. */
static void batch_check_shapes(const Val *els, tfs_i64 n) {
  Val first[BATCH_CHECK_LEAVES], cur[BATCH_CHECK_LEAVES];
  int nf = 0, bad_comp = BATCH_CHECK_LEAVES;
  tfs_i64 bad_el = 0;
  flatten_sorted(els[0], first, &nf, BATCH_CHECK_LEAVES);
  if (nf > BATCH_CHECK_LEAVES) nf = BATCH_CHECK_LEAVES;
  for (tfs_i64 i = 1; i < n; i++) {
    int nc = 0;
    flatten_sorted(els[i], cur, &nc, BATCH_CHECK_LEAVES);
    for (int c = 0; c < nf && c < nc && c < bad_comp; c++) {
      if (!val_is_tensor(first[c]) || !val_is_tensor(cur[c])) continue;
      Tensor *a = val_tensor(first[c]), *b = val_tensor(cur[c]);
      if (a->rank == b->rank && !memcmp(a->shape, b->shape, sizeof(tfs_i64) * (size_t)a->rank)) continue;
      bad_comp = c, bad_el = i;
    }
  }
  if (bad_comp == BATCH_CHECK_LEAVES) return;
  Tensor *a = val_tensor(first[bad_comp]);
  int nc = 0;
  flatten_sorted(els[bad_el], cur, &nc, BATCH_CHECK_LEAVES);
  Tensor *b = val_tensor(cur[bad_comp]);
  StrBuf sa, sb;
  sb_init(&sa);
  rt_hold_sb(&sa);
  sb_init(&sb);
  rt_hold_sb(&sb);
  op_shape_text(&sa, a->rank, a->shape);
  op_shape_text(&sb, b->rank, b->shape);
  sb_putc(&sa, '\0');
  sb_putc(&sb, '\0');
  rt_throw(ERR_INVALID_ARGUMENT, "Cannot batch tensors with different shapes in component %d. First element had shape %s "
           "and element %lld had shape %s.", bad_comp, sa.data, (long long)bad_el, sb.data);
}

static Val stack_leaves(void *ctx, Val *leaves, int n) {
  (void)ctx;
  Val stack = tfmod_lookup("stack");
  int mark = rt_hold_val(stack);
  Val l = list_new(n);
  rt_hold_val(l);
  for (int k = 0; k < n; k++) list_append(l, leaves[k]);
  Val r = rt_call(stack, 1, &l, NULL);
  rt_unhold(mark);
  val_decref(l);
  val_decref(stack);
  return r;
}

/* A map function's result as an element: host values become tensors, lists tuples. */
static Val as_element(Val v) {
  if (val_is(v, &list_type)) {
    List *l = (List *)v.u.o;
    Val t = tuple_new(l->len);
    for (tfs_i64 i = 0; i < l->len; i++) ((Tuple *)t.u.o)->items[i] = val_incref(l->items[i]);
    val_decref(v);
    v = t;
  }
  int mark = rt_hold_val(v);
  Val r = st_map(v, to_tensor_leaf, "Dataset.map");
  rt_unhold(mark);
  val_decref(v);
  return r;
}

static bool ds_next(DsIt *it, Val *out);

/* The file a TFRecordDataset or TextLineDataset reached, read whole into it->buf (inflated for GZIP/ZLIB);
 * false after the last one. */
static bool file_load(DsIt *it, const char *what) {
  Tuple *files = (Tuple *)it->ds->src.u.o;
  if (it->i >= files->len) return false;
  tfs_i64 len;
  char *data = io_read_bytes(str_cstr(files->items[it->i]), what, &len, false);
  it->buf = str_new(data, len);
  free(data);
  if (it->ds->a == 3) {   /* SNAPPY (TFRecords only): TF's block stream */
    size_t ulen;
    data = snb_decompress(str_cstr(it->buf), (size_t)str_len(it->buf), what, &ulen);
    TFS_CLEAR(it->buf);
    it->buf = str_new(data, (tfs_i64)ulen);
    free(data);
  } else if (it->ds->a) {   /* GZIP or ZLIB: the records are inside the stream (it->buf frees the file if it is bad) */
    data = io_inflate(str_cstr(it->buf), str_len(it->buf), it->ds->a == 1, what, &len);
    TFS_CLEAR(it->buf);
    it->buf = str_new(data, len);
    free(data);
  }
  it->j = 0;
  return true;
}

/* The next record of a TFRecordDataset: files are read whole when reached;
 * each record's length and data are checked against their masked CRC-32C,
 * and a bad or cut record raises DataLossError with TF's text and offset.
 * A TextLineDataset's next line: without its "\n" or "\r\n", the last one also without them (TF's ReadLine). */
static bool file_next(DsIt *it, Val *out) {
  bool lines = it->ds->kind == DS_TEXTLINE;
  for (;;) {
    if (val_is_undef(it->buf) && !file_load(it, lines ? "tf.data.TextLineDataset" : "tf.data.TFRecordDataset"))
      return false;
    const unsigned char *p = (const unsigned char *)str_cstr(it->buf);
    tfs_i64 len = str_len(it->buf), at = it->j;
    if (at == len) {
      TFS_CLEAR(it->buf);
      it->i++;
      continue;
    }
    if (lines) {
      const unsigned char *nl = memchr(p + at, '\n', (size_t)(len - at));
      tfs_i64 end = nl ? nl - p : len, n = end - at;
      if (n > 0 && p[end - 1] == '\r') n--;
      *out = io_string_scalar((const char *)p + at, n);
      it->j = nl ? end + 1 : len;
      return true;
    }
    const unsigned char *rec;
    tfs_i64 n;
    tfr_next(p, len, &at, &rec, &n);
    *out = io_string_scalar((const char *)rec, n);
    it->j = at;
    return true;
  }
}

static bool kid_next(DsIt *it, Val *out) { return ds_next(it->kids[0], out); }
static bool pull_kid(void *it, Val *out) { return kid_next(it, out); }

/* One element mapped the ordinary way (the parallel map's fallback); e is consumed. */
static Val map_one(void *it, Val e) {
  int mark = rt_hold_val(e);
  Val r = call_fn(((DsIt *)it)->ds->fn, e);
  rt_unhold(mark);
  val_decref(e);
  return as_element(r);
}

/* TF's ShardDataset with require_non_empty (the shard the FILE auto-shard inserts): a worker left without files */
static _Noreturn void file_shard_short(tfs_i64 nfiles, tfs_i64 nshards) {
  rt_throw(ERR_INVALID_ARGUMENT, "Could not apply FILE based sharding: the dataset only has %lld file(s), which is not "
           "enough for the required %lld shards/workers. If you are using datasets with distribution strategy, consider "
           "setting the auto sharding policy to either DATA or OFF using the `experimental_distribute.auto_shard_policy` "
           "option of `tf.data.Options()`. Or, split your input files into a larger number of small files such that "
           "number of files is greater than number of shards/workers.", (long long)nfiles, (long long)nshards);
}

static bool ds_next(DsIt *it, Val *out) {
  Dataset *d = it->ds;
  if (it->done) return false;
  switch (d->kind) {
  case DS_SLICES:
    if (it->i >= d->card) break;
    *out = st_map(d->src, slice_leaf, &it->i);
    it->i++;
    return true;
  case DS_TENSORS:
    it->done = true;
    *out = val_incref(d->src);
    return true;
  case DS_RANGE: {
    if (d->c > 0 ? it->i >= d->b : it->i <= d->b) break;
    Tensor *t = tensor_scalar(DT_INT64);
    *(int64_t *)tensor_data(t) = it->i;
    it->i += d->c;
    Val v = val_obj(t);
    DType odt = (DType)spec_obj(d->spec)->dtype;
    if (odt != DT_INT64) {
      Val dv = dtype_val(odt);
      OpAttrs at = {1, {dv}};
      Val c = op_apply(&op_defs[OP_CAST], 1, &v, &at);
      val_decref(v);
      v = c;
    }
    *out = v;
    return true;
  }
  case DS_ZIP: {
    Val t = tuple_new(it->nkids);
    int mark = rt_hold_val(t);
    for (int k = 0; k < it->nkids; k++) {
      Val e;
      if (!ds_next(it->kids[k], &e)) { rt_unhold(mark); val_decref(t); it->done = true; return false; }
      ((Tuple *)t.u.o)->items[k] = e;
    }
    rt_unhold(mark);
    *out = t;
    return true;
  }
  case DS_PMAP:
  case DS_MAP: {
    /* a sequential map runs as an AUTOTUNE one under map_parallelization (TF's rewrite, for stateless
     * functions: parmap_new keeps a graph that cannot leave the main thread here) */
    if (!it->pm_tried) {
      it->pm_tried = true;
      /* composite elements (RaggedTensors) are built by host code: they stay on the ordinary map */
      bool plain = val_is_undef(composite_spec_in(d->spec)) && val_is_undef(composite_spec_in(((Dataset *)d->src.u.o)->spec));
      /* the rewrite's map is deterministic="true"; a parallel map's own deterministic overrides the options' */
      bool sloppy = d->kind == DS_PMAP && (d->b < 0 || (d->b == 0 && it->pol.nondet));
      if (plain && (d->kind == DS_PMAP || it->pol.map_par))
        it->pm = parmap_new(d->fn, ((Dataset *)d->src.u.o)->spec, pol_lanes(&it->pol, d->kind == DS_PMAP ? d->a : -1), sloppy,
                           it->pol.ram_budget);
    }
    if (it->pm) {
      if (parmap_next(it->pm, pull_kid, it, as_element, map_one, out)) return true;
      break;
    }
    /* the ordinary map, in order */
    Val e;
    if (!kid_next(it, &e)) break;
    int mark = rt_hold_val(e);
    Val r = call_fn(d->fn, e);
    rt_unhold(mark);
    val_decref(e);
    *out = as_element(r);
    return true;
  }
  case DS_FILTER:
    for (;;) {
      Val e;
      if (!kid_next(it, &e)) { it->done = true; return false; }
      int mark = rt_hold_val(e);
      Val r = call_fn(d->fn, e);
      bool keep = rt_truthy(r);
      val_decref(r);
      rt_unhold(mark);
      if (keep) { *out = e; return true; }
      val_decref(e);
    }
  case DS_BATCH: {
    Val *els = malloc(sizeof(Val) * (size_t)(d->a < 1024 ? d->a : 1024));
    tfs_i64 cap = d->a < 1024 ? d->a : 1024, n = 0;
    if (!els) rt_throw(ERR_MEMORY, "out of memory");
    int mark = rt_hold_vals(&els, &n);
    while (n < d->a) {
      Val e;
      if (!kid_next(it, &e)) break;
      if (n == cap) {
        cap *= 2;
        Val *ne = realloc(els, sizeof(Val) * (size_t)cap);
        if (!ne) { val_decref(e); rt_throw(ERR_MEMORY, "out of memory"); }
        els = ne;
      }
      els[n++] = e;
    }
    if (n == 0 || (n < d->a && d->flag)) {
      rt_unhold(mark);
      for (tfs_i64 k = 0; k < n; k++) val_decref(els[k]);
      free(els);
      it->done = true;
      return false;
    }
    batch_check_shapes(els, n);
    Val r = st_zipmap(els, (int)n, stack_leaves, NULL);
    rt_unhold(mark);
    for (tfs_i64 k = 0; k < n; k++) val_decref(els[k]);
    free(els);
    *out = r;
    return true;
  }
  case DS_SHUFFLE: {
    List *b = (List *)it->buf.u.o;
    while (!it->j && b->len < d->a) {
      Val e;
      if (!kid_next(it, &e)) { it->j = 1; break; }
      list_append(it->buf, e);
      val_decref(e);
    }
    if (b->len == 0) break;
    tfs_i64 k = (tfs_i64)(splitmix(&it->rng) % (tfs_u64)b->len);
    *out = b->items[k];
    b->items[k] = b->items[--b->len];
    return true;
  }
  case DS_SHARD:
    for (;;) {
      if (!kid_next(it, out)) {
        it->done = true;
        if (d->flag && it->i <= d->b) file_shard_short(it->i, d->a);
        return false;
      }
      if (it->i++ % d->a == d->b) return true;
      val_decref(*out);
    }
  case DS_TAKE:
    if (d->a >= 0 && it->i >= d->a) break;
    if (!kid_next(it, out)) break;
    it->i++;
    return true;
  case DS_SKIP:
    while (it->i < d->a || d->a < 0) {
      Val e;
      if (!kid_next(it, &e)) { it->done = true; return false; }
      val_decref(e);
      it->i++;
    }
    if (!kid_next(it, out)) break;
    return true;
  case DS_REPEAT:
    for (;;) {
      if (d->a >= 0 && it->j >= d->a) { it->done = true; return false; }
      if (kid_next(it, out)) { it->i++; return true; }
      /* an epoch ended: start the input again, unless it yielded nothing */
      it->j++;
      if (it->i == 0) { it->done = true; return false; }
      it->i = 0;
      if (d->a >= 0 && it->j >= d->a) { it->done = true; return false; }
      dsit_set_kid(it, 0, (Dataset *)d->src.u.o);
    }
  case DS_PREFETCH:
    if (!kid_next(it, out)) break;
    return true;
  case DS_RANDOM: {
    Tensor *t = tensor_scalar(DT_INT64);
    *(int64_t *)tensor_data(t) = (int64_t)splitmix(&it->rng);
    *out = val_obj(t);
    return true;
  }
  case DS_HOST: {
    /* src() is called when iteration starts: its iterator (a host generator) yields finished elements */
    if (val_is_undef(it->buf)) {
      Val g = rt_call(d->src, 0, NULL, NULL);
      int mark = rt_hold_val(g);
      it->buf = rt_iter(g);
      rt_unhold(mark);
      val_decref(g);
    }
    if (rt_next(it->buf, out)) return true;
    break;
  }
  case DS_TFRECORD:
  case DS_TEXTLINE:
    if (file_next(it, out)) return true;
    break;
  case DS_ARG:
    if (it->nkids && it->kids[0]) {
      if (kid_next(it, out)) return true;
      break;
    }
    /* the stand-in for a dataset argument escaped its tf.function */
    rt_throw(ERR_INVALID_ARGUMENT, "a dataset received as a tf.function argument can only be iterated inside that function");
  case DS_CACHE:
    if (!it->kids[0]) {
      List *c = (List *)d->cached.u.o;
      if (it->i >= c->len) break;
      *out = val_incref(c->items[it->i++]);
      return true;
    }
    if (!kid_next(it, out)) {
      /* a whole pass: later iterators read the cache */
      if (val_is_undef(d->cached)) { d->cached = it->buf; it->buf = val_undef(); }
      break;
    }
    list_append(it->buf, *out);
    return true;
  }
  it->done = true;
  return false;
}

/* ---- parallel interleave: pulling inputs' iterators on worker threads ------------------------------
 * The interleave's cycle (stdlib/tfcore_data.tfs) asks for up to n elements of each open input iterator at
 * once.  An iterator whose pipeline touches nothing shared (dsit_wk: file records and text lines, int64 ranges, tensors,
 * take/skip/shard/prefetch of them, and a graph-only map on top) is pulled on its own pool thread; the
 * others are pulled here, in order.  The main thread waits for the batch (graph/parexec.h), builds the
 * map's results from the graph outputs, and an error is kept on its iterator for the next next(). */

/* A pull that failed ahead of the consumer raises here, as ds_next would have; the iterator then ends. */
static _Noreturn void dsit_raise_pending(DsIt *it) {
  RtTry t = it->perr;
  it->pend = false;
  it->done = true;
  rt_hold_mem(t.msg);
  rt_throw_msg(t.loc, t.kind, t.msg ? t.msg : "", t.exc);
}

static bool plain_struct(Val v) {
  if (val_is(v, &tuple_type)) {
    Tuple *t = (Tuple *)v.u.o;
    for (tfs_i64 i = 0; i < t->len; i++)
      if (!plain_struct(t->items[i])) return false;
    return true;
  }
  return val_is(v, &tensor_type) && !val_tensor(v)->sym && val_tensor(v)->dtype != DT_VARIANT;
}

/* Whether the pulls of it's dataset touch only what the iterator owns (no shared count, no host code);
 * a from_tensors element is copied (wk_next), so only where it is pulled directly. */
static bool wk_tree(DsIt *it, bool direct) {
  Dataset *d = it->ds;
  switch (d->kind) {
  case DS_TFRECORD: case DS_TEXTLINE: return true;
  case DS_RANGE: return spec_obj(d->spec)->dtype == DT_INT64;
  case DS_TENSORS: return direct && plain_struct(d->src);
  case DS_TAKE: case DS_SKIP: case DS_SHARD: case DS_PREFETCH:
    return it->nkids == 1 && it->kids[0] && wk_tree(it->kids[0], false);
  default: return false;
  }
}

static bool dsit_wk(DsIt *it, TffnConcInfo *ci) {
  if (it->wk) return it->wk > 0;
  it->wk = -1;
  if (it->started || it->done || it->pend) return false;
  Dataset *d = it->ds;
  if (d->kind == DS_MAP || d->kind == DS_PMAP) {
    const char *why;
    if (it->nkids != 1 || !it->kids[0] || !wk_tree(it->kids[0], true) || !tffn_conc_info(d->fn, ci) ||
        !parexec_graph_ok(ci->g, &why))
      return false;
    it->wplan = exec_plan_new_private(ci->g);
  } else if (!wk_tree(it, true)) {
    return false;
  }
  it->wk = 1;
  return true;
}

/* a worker's copy of a from_tensors element: the program shares the original */
static Val wk_copy(Val v) {
  if (val_is(v, &tuple_type)) {
    Tuple *t = (Tuple *)v.u.o;
    Val r = tuple_new(t->len);
    for (tfs_i64 i = 0; i < t->len; i++) ((Tuple *)r.u.o)->items[i] = wk_copy(t->items[i]);
    return r;
  }
  return val_obj(tensor_copy_own(val_tensor(v)));
}

static bool wk_next(DsIt *it, Val *out) {
  if (it->ds->kind != DS_TENSORS || it->wk < 0) return ds_next(it, out);
  if (it->done) return false;
  it->done = true;
  *out = wk_copy(it->ds->src);
  return true;
}

typedef struct WkJob {
  DsIt *it;
  int want, got;              /* elements asked, pulled */
  Val *els;                   /* got elements (owned) */
  Tensor ***outs;             /* map on top: per element, the graph's outputs (owned), or NULL */
  bool end;                   /* the iterator ended or failed */
  Val conc;                   /* map on top: its function (borrowed) */
  Graph *g;
} WkJob;

typedef struct WkBatch {
  WkJob *jobs;
  int njobs, *wk, nwk, lanes;
  int *order;                 /* order[k]: the k-th job to finish (a sloppy interleave hands blocks out so) */
  _Atomic int ndone;
} WkBatch;

/* job j finished: the next place in b's completion order */
static void job_done(WkBatch *b, int j) { b->order[atomic_fetch_add(&b->ndone, 1)] = j; }

static void leaves_of(Val v, Tensor **args, int *k, int max) {
  if (val_is(v, &tuple_type)) {
    Tuple *t = (Tuple *)v.u.o;
    for (tfs_i64 i = 0; i < t->len; i++) leaves_of(t->items[i], args, k, max);
    return;
  }
  if (!val_is(v, &tensor_type) || *k >= max) rt_throw(ERR_INVALID_ARGUMENT, "an interleave input element does not fit its map function");
  args[(*k)++] = val_tensor(v);
}

/* One element of a map on top: the graph run on the kid's next element (what DS_MAP's call runs). */
static bool job_map_one(WkJob *jb) {
  DsIt *it = jb->it;
  Val e;
  if (!wk_next(it->kids[0], &e)) return false;
  int mark = rt_hold_val(e);
  Graph *g = jb->g;
  Tensor **args = calloc((size_t)g->ninputs + 1, sizeof(Tensor *));
  rt_hold_mem(args);
  Tensor **outs = calloc((size_t)g->noutputs + 1, sizeof(Tensor *));
  rt_hold_mem(outs);
  if (!args || !outs) rt_throw(ERR_MEMORY, "out of memory");
  int k = 0;
  leaves_of(e, args, &k, g->ninputs);
  bool fits = k == g->ninputs;
  for (int i = 0; fits && i < k; i++) fits = parmap_leaf_fits(&g->nodes[g->inputs[i]].outm[0], args[i]);
  if (!fits) rt_throw(ERR_INVALID_ARGUMENT, "an interleave input element does not fit its map function");
  exec_run(it->wplan, args, outs);
  rt_unhold(mark);
  val_decref(e);
  free(args);
  jb->outs[jb->got] = outs;
  return true;
}

/* Pull job jb's elements (on whichever thread runs it); an error ends the job and stays on the iterator. */
static void job_pull(WkJob *jb) {
  DsIt *it = jb->it;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) != 0) {
    it->pend = true;
    it->perr = t;
    jb->end = true;
    return;
  }
  while (jb->got < jb->want) {
    if (jb->outs) {
      if (!job_map_one(jb)) { jb->end = true; it->done = true; break; }
    } else {
      Val e;
      if (!wk_next(it, &e)) { jb->end = true; break; }
      jb->els[jb->got] = e;
    }
    jb->got++;
  }
  rt_try_pop(&t);
}

static void lane_pull(void *ctx, int lane) {
  WkBatch *b = ctx;
  for (int j = lane; j < b->nwk; j += b->lanes) {
    job_pull(&b->jobs[b->wk[j]]);
    job_done(b, b->wk[j]);
  }
}

static void wkbatch_free(WkBatch *b) {
  for (int j = 0; b->jobs && j < b->njobs; j++) {
    WkJob *jb = &b->jobs[j];
    for (int i = 0; i < jb->got; i++) {
      if (jb->outs && jb->outs[i]) {
        for (int o = 0; o < jb->g->noutputs; o++)
          if (jb->outs[i][o]) tensor_release(jb->outs[i][o]);
        free(jb->outs[i]);
      } else if (!jb->outs && jb->els && !val_is_undef(jb->els[i])) {
        val_decref(jb->els[i]);
      }
    }
    free(jb->els);
    free(jb->outs);
  }
  free(b->jobs);
  free(b->wk);
  free(b->order);
  free(b);
}

/* The job's elements as a list, the map's results built here from the graph outputs. */
static Val job_list(WkJob *jb) {
  Val l = list_new(jb->got);
  int mark = rt_hold_val(l);
  for (int i = 0; i < jb->got; i++) {
    Val e;
    if (jb->outs) {
      Tensor **outs = jb->outs[i];
      jb->outs[i] = NULL;
      int m = rt_hold_mem(outs);
      e = as_element(tffn_conc_result(jb->conc, outs));
      rt_unhold(m);
      free(outs);
    } else {
      e = jb->els[i];
      jb->els[i] = val_undef();
    }
    list_append(l, e);
    val_decref(e);
  }
  rt_unhold(mark);
  return l;
}

/* tf.data.Dataset._nondet(): the iterated pipeline's options say deterministic=False (a .tfs parallel interleave
 * without its own deterministic then goes sloppy, as TF's ParallelInterleaveDatasetV4 with "default") */
static Val ds_nondet(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._nondet", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  return val_bool(ds_ambient && ds_ambient->nondet);
}

/* tf.data.Dataset._pull_blocks(iterators, n, num_parallel_calls, sloppy=False): the parallel interleave's read-ahead
 * (not a TF name): up to n next elements of each iterator, as a list of (elements, ended) pairs; the iterators
 * whose pipelines allow it are pulled at once on worker threads.  sloppy: (that list, the iterators' indices in
 * the order their pulls finished). */
static Val ds_pull_blocks(Val self, int nargs, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._pull_blocks", .sig = "iterators, n, num_parallel_calls, sloppy=False"};
  Val a[4];
  args_parse(&spec, nargs, args, kw, a);
  if (!val_is(a[0], &list_type)) rt_throw(ERR_TYPE, "tf.data.Dataset._pull_blocks: iterators must be a list");
  List *l = (List *)a[0].u.o;
  tfs_i64 n = int_arg(a[1], "n"), npc = int_arg(a[2], "num_parallel_calls");
  if (n < 1) n = 1;
  if (n > 1 << 20) n = 1 << 20;
  WkBatch *b = calloc(1, sizeof(WkBatch));
  if (!b) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_fn((void (*)(void *))wkbatch_free, b);
  b->njobs = (int)l->len;
  b->jobs = calloc((size_t)b->njobs + 1, sizeof(WkJob));
  b->wk = calloc((size_t)b->njobs + 1, sizeof(int));
  b->order = calloc((size_t)b->njobs + 1, sizeof(int));
  if (!b->jobs || !b->wk || !b->order) rt_throw(ERR_MEMORY, "out of memory");
  bool here = op_tape_nactive || trace_active();
  for (int j = 0; j < b->njobs; j++) {
    if (!val_is(l->items[j], &dsit_type)) rt_throw(ERR_TYPE, "tf.data.Dataset._pull_blocks: iterators must be dataset iterators");
    WkJob *jb = &b->jobs[j];
    jb->it = (DsIt *)l->items[j].u.o;
    jb->want = (int)n;
    jb->els = calloc((size_t)n, sizeof(Val));
    if (!jb->els) rt_throw(ERR_MEMORY, "out of memory");
    TffnConcInfo ci;
    if (here || jb->it->pend || !dsit_wk(jb->it, &ci)) continue;
    if (jb->it->wplan) {
      if (!tffn_conc_info(jb->it->ds->fn, &ci)) continue;
      jb->conc = jb->it->ds->fn;
      jb->g = ci.g;
      jb->outs = calloc((size_t)n, sizeof(Tensor **));
      if (!jb->outs) rt_throw(ERR_MEMORY, "out of memory");
    }
    b->wk[b->nwk++] = j;
  }
  /* the others first, here and in order (host code, shared objects) */
  for (int j = 0, w = 0; j < b->njobs; j++) {
    if (w < b->nwk && b->wk[w] == j) { w++; continue; }
    if (!b->jobs[j].it->pend) job_pull(&b->jobs[j]);
    else b->jobs[j].end = true;
    job_done(b, j);
  }
  DsPolicy dp = pol_of(val_undef());
  int lanes = pol_lanes(ds_ambient ? ds_ambient : &dp, npc);   /* the interleave's pipeline (ds_ambient) */
  b->lanes = lanes < b->nwk ? lanes : b->nwk;
  if (b->lanes >= 2) parexec_run_fn(b->lanes, lane_pull, b);
  else
    for (int w = 0; w < b->nwk; w++) {
      job_pull(&b->jobs[b->wk[w]]);
      job_done(b, b->wk[w]);
    }
  Val r = list_new(b->njobs);
  rt_hold_val(r);
  for (int j = 0; j < b->njobs; j++) {
    Val els = job_list(&b->jobs[j]);
    Val pair = tuple_new(2);
    ((Tuple *)pair.u.o)->items[0] = els;
    ((Tuple *)pair.u.o)->items[1] = val_bool(b->jobs[j].end);
    list_append(r, pair);
    val_decref(pair);
  }
  if (a[3].tag != VT_NONE && a[3].tag != VT_UNDEF && rt_truthy(a[3])) {
    Val ord = list_new(b->njobs);
    rt_hold_val(ord);
    for (int k = 0; k < b->njobs; k++) list_append(ord, val_int(b->order[k]));
    Val both = tuple_new(2);
    ((Tuple *)both.u.o)->items[0] = r;
    ((Tuple *)both.u.o)->items[1] = ord;
    r = both;
  }
  rt_unhold(mark);
  wkbatch_free(b);
  return r;
}

/* ---- Python-facing iterator ---------------------------------------------------------- */

static void dsit_repr(StrBuf *b, Val v) { sb_printf(b, "<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at %p>", (void *)v.u.o); }
static Val dsit_self(Val v) { return val_incref(v); }
/* What dsit_next changed for the pipeline's run, put back when it returns or raises. */
typedef struct DsScope { const DsPolicy *ambient; int intra; } DsScope;
static void scope_end(void *p) {
  DsScope *sc = p;
  ds_ambient = sc->ambient;
  tp_local_limit(sc->intra);
}

static bool dsit_next(Val v, Val *out) {
  DsIt *it = (DsIt *)v.u.o;
  it->started = true;
  if (it->pend) dsit_raise_pending(it);
  /* the pipeline runs under its options: iterators made meanwhile join it, and with max_intra_op_parallelism
   * n its kernels' jobs use at most n of the intra-op pool's threads, 1 this one (TF's
   * MaxIntraOpParallelismDataset) */
  DsScope sc = {ds_ambient, tp_local_limit(it->pol.intra)};
  ds_ambient = &it->pol;
  int mark = rt_hold_fn(scope_end, &sc);
  bool got = ds_next(it, out);
  rt_unhold(mark);
  scope_end(&sc);
  return got;
}

Val tfdata_fresh_iter_dataset(Val v) {
  if (!val_is(v, &dsit_type) || ((DsIt *)v.u.o)->started) return val_undef();
  ((DsIt *)v.u.o)->started = true;   /* the loop consumes it */
  return val_obj(((DsIt *)v.u.o)->ds);
}
static Val dsit_get_next(Val self, int n, const Val *args, const Kw *kw) {
  (void)args, (void)kw;
  if (n) rt_throw(ERR_TYPE, "get_next() takes 1 positional argument but %d were given", n + 1);
  Val e;
  if (!dsit_next(self, &e)) rt_throw(ERR_OUT_OF_RANGE, "End of sequence");
  return e;
}

static Val dsit_get_next_as_optional(Val self, int n, const Val *args, const Kw *kw) {
  (void)args, (void)kw;
  if (n) rt_throw(ERR_TYPE, "get_next_as_optional() takes 1 positional argument but %d were given", n + 1);
  Val e;
  bool got = dsit_next(self, &e);
  if (!got) e = val_none();
  int mark = rt_hold_val(e);
  Val has = val_obj(tensor_from_val(val_bool(got), DT_BOOL));
  rt_hold_val(has);
  Val r = tfdata_optional(has, e, ((DsIt *)self.u.o)->ds->spec);
  rt_unhold(mark);
  val_decref(has);
  val_decref(e);
  return r;
}

static Val dsit_getattr(Val self, const char *name) {
  if (!strcmp(name, "element_spec")) return val_incref(((DsIt *)self.u.o)->ds->spec);
  if (!strcmp(name, "get_next")) return builtin_new("OwnedIterator.get_next", dsit_get_next, self, NULL);
  if (!strcmp(name, "get_next_as_optional"))
    return builtin_new("OwnedIterator.get_next_as_optional", dsit_get_next_as_optional, self, NULL);
  return val_undef();
}
static const Type dsit_type = {
  .name = "OwnedIterator", .free = dsit_free, .repr = dsit_repr, .iter = dsit_self, .next = dsit_next,
  .getattr = dsit_getattr, .hash = obj_identity_hash,
};

Val tfdata_iter(Val ds) { return val_obj(dsit_new((Dataset *)ds.u.o)); }

/* ---- weak handle tables: an object a graph is fed by an int64 handle (a dataset or an iterator argument) ----
 * The handle is tag | generation << 32 | slot; the table keeps the object without a reference (its free drops
 * the entry) and each slot's handle, so a stale handle is refused rather than naming a later object. */
typedef struct WeakTab {
  void **obj;
  tfs_i64 *val;
  tfs_i64 n, gen;
} WeakTab;

/* A new handle tensor (owned by the object) naming obj. */
static Tensor *wt_add(WeakTab *w, void *obj, tfs_i64 tag) {
  tfs_i64 slot = 0;
  while (slot < w->n && w->obj[slot]) slot++;
  if (slot == w->n) {
    tfs_i64 n = w->n * 2 + 4;
    void **no = realloc(w->obj, sizeof(void *) * (size_t)n);
    if (!no) rt_throw(ERR_MEMORY, "out of memory");
    w->obj = no;
    tfs_i64 *nv = realloc(w->val, sizeof(tfs_i64) * (size_t)n);
    if (!nv) rt_throw(ERR_MEMORY, "out of memory");
    w->val = nv;
    for (tfs_i64 i = w->n; i < n; i++) w->obj[i] = NULL, w->val[i] = -1;
    w->n = n;
  }
  w->gen = (w->gen + 1) & 0x3FFFFFFF;
  Tensor *h = tensor_scalar(DT_INT64);
  *(int64_t *)tensor_data(h) = tag | slot | (w->gen << 32);
  w->obj[slot] = obj;
  w->val[slot] = *(int64_t *)tensor_data(h);
  return h;
}

/* obj is freed: its entry and handle *h (if any) go. */
static void wt_drop(WeakTab *w, void *obj, Tensor **h) {
  if (!*h) return;
  tfs_i64 slot = *(int64_t *)tensor_data(*h) & 0xFFFFFFFF;
  if (slot < w->n && w->obj[slot] == obj) w->obj[slot] = NULL, w->val[slot] = -1;
  tensor_release(*h);
  *h = NULL;
}

/* The object handle v names, or NULL (stale or never made). */
static void *wt_find(const WeakTab *w, tfs_i64 v) {
  tfs_i64 slot = v & 0xFFFFFFFF;
  return v >= 0 && slot < w->n && w->obj[slot] && w->val[slot] == v ? w->obj[slot] : NULL;
}

/* ---- an eager iterator passed to a tf.function (TF's OwnedIterator, whose resource is the function's input) ----
 * The call feeds an int64 handle naming the iterator in a table of weak references (the caller holds the iterator
 * for the call): EIT_BIT | generation << 32 | slot, so the graph ops (_DatasetGetNext, _DatasetNext) tell it from
 * the slot of an iterator a run made, and a stale handle is refused rather than naming a later iterator. */
#define EIT_BIT ((tfs_i64)1 << 62)
static WeakTab eit_reg;

static void eit_drop(DsIt *it) { wt_drop(&eit_reg, it, &it->handle); }

bool tfdata_is_eiter(Val v) { return val_is(v, &dsit_type); }

Tensor *tfdata_eiter_handle(Val v) {
  DsIt *it = (DsIt *)v.u.o;
  if (!it->handle) it->handle = wt_add(&eit_reg, it, EIT_BIT);
  return it->handle;
}

Val tfdata_eiter_spec(Val v) { return ((DsIt *)v.u.o)->ds->spec; }

/* The eager iterator handle h names, or NULL when h is not such a handle; a stale one fails c. */
static DsIt *eit_lookup(OpCall *c, tfs_i64 h) {
  if (h < 0 || !(h & EIT_BIT)) return NULL;
  DsIt *it = wt_find(&eit_reg, h);
  if (!it) op_fail(c, ERR_INVALID_ARGUMENT, "the iterator fed to this graph no longer exists");
  return it;
}
/* inside a tf.function, iter(ds) is TF's iterator in the graph (made each time the graph runs) */
static Val ds_iter(Val v) { return trace_active() ? tfdata_graph_iterator(v) : tfdata_iter(v); }

/* ---- methods, attributes, repr -------------------------------------------------------- */

static void ds_repr(StrBuf *b, Val v) {
  Dataset *d = (Dataset *)v.u.o;
  sb_printf(b, "<%s element_spec=", !val_is_undef(d->cls) ? str_cstr(d->cls) : ds_class[d->kind]);
  val_repr(b, d->spec);
  sb_putc(b, '>');
}

//! Dataset.cardinality()
//!   The number of elements as an int64 tensor, or INFINITE_CARDINALITY (-1) / UNKNOWN_CARDINALITY (-2).
static Val ds_cardinality(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.cardinality", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  Tensor *t = tensor_scalar(DT_INT64);
  *(int64_t *)tensor_data(t) = self_ds(self)->card;
  return val_obj(t);
}

//! tf.data.experimental.cardinality(dataset)
//!   dataset.cardinality(): the number of elements as an int64 tensor (-1 infinite, -2 unknown).
static Val ds_exp_cardinality(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.experimental.cardinality", .sig = "dataset"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (!is_ds(a[0]))
    rt_throw(ERR_ATTRIBUTE, "'%s' object has no attribute '_variant_tensor'", val_type_name(a[0]));
  return ds_cardinality(a[0], 0, NULL, NULL);
}

static tfs_i64 ds_len(Val self) {
  tfs_i64 c = self_ds(self)->card;
  if (c == CARD_INFINITE) rt_throw(ERR_TYPE, "The dataset is infinite.");
  if (c == CARD_UNKNOWN) rt_throw(ERR_TYPE, "The dataset length is unknown.");
  return c;
}

#define DS_MAX_LEAVES 64
static void flatten_elem(Val e, Val *out, int *n, int cap);
static Val unflatten_leaf(void *ctx, Val leaf);

/* ---- Dataset.reduce while tracing: TF's ReduceDataset as AutoGraph's dataset loop (a While over the graph
 * iterator ops), the state threaded through it as loop variables ---- */

/* A state leaf as a graph value: tensors (symbolic too) and composites as they are, Variables read, numbers converted. */
static Val graph_state_leaf(void *ctx, Val leaf) {
  (void)ctx;
  if (val_is(leaf, &variable_type)) return op_apply1(OP_READ_VARIABLE, leaf);
  if (val_as_tensor(leaf) || is_composite(leaf)) return val_incref(leaf);
  if (trace_val_symbolic(leaf)) return trace_pack(leaf, -1);
  return val_obj(tensor_from_val(leaf, -1));
}

/* The loop's closures share one list: [state, concrete reduce function]. */
static Val rg_get(Val self, int n, const Val *args, const Kw *kw) {
  (void)n, (void)args, (void)kw;
  Val lv[DS_MAX_LEAVES];
  int k = 0;
  flatten_elem(((List *)self.u.o)->items[0], lv, &k, DS_MAX_LEAVES);
  if (k > DS_MAX_LEAVES) rt_throw(ERR_UNIMPLEMENTED, "Dataset.reduce: a state of more than %d tensors inside a tf.function", DS_MAX_LEAVES);
  return rt_tuple(k, lv);
}

static void rg_put(Val holder, Val state) {
  List *h = (List *)holder.u.o;
  Val old = h->items[0];
  h->items[0] = state;
  val_decref(old);
}

static Val rg_set(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  tfs_i64 k;
  const Val *items;
  if (n != 1 || !seq_items(args[0], &k, &items)) rt_throw(ERR_TYPE, "Dataset.reduce: set_state takes the state's tensors");
  const Val *p = items;
  rg_put(self, st_map(((List *)self.u.o)->items[0], unflatten_leaf, &p));
  return val_none();
}

static Val rg_body(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  if (n != 1) rt_throw(ERR_TYPE, "Dataset.reduce: the loop body takes the element");
  List *h = (List *)self.u.o;
  Val cargs[2] = {h->items[0], args[0]};
  Val r = rt_call(h->items[1], 2, cargs, NULL);
  if (val_is(r, &list_type)) {
    Val t = rt_tuple((int)((List *)r.u.o)->len, ((List *)r.u.o)->items);
    val_decref(r);
    r = t;
  }
  int mark = rt_hold_val(r);
  Val st = st_map(r, graph_state_leaf, NULL);
  rt_unhold(mark);
  val_decref(r);
  rg_put(self, st);
  return val_none();
}

static Val ds_reduce_graph(Val self, Val initial, Val fn) {
  Val state = st_map(initial, graph_state_leaf, NULL);
  int mark = rt_hold_val(state);
  Val sspec = st_map(state, spec_of_leaf, NULL);
  rt_hold_val(sspec);
  Val c = trace_fn(fn, self_ds(self)->spec, sspec);
  rt_hold_val(c);
  Val holder = list_new(2);
  rt_hold_val(holder);
  list_append(holder, state);
  list_append(holder, c);
  Val body = builtin_new("Dataset.reduce.body", rg_body, holder, NULL);
  rt_hold_val(body);
  Val get = builtin_new("Dataset.reduce.get_state", rg_get, holder, NULL);
  rt_hold_val(get);
  Val set = builtin_new("Dataset.reduce.set_state", rg_set, holder, NULL);
  rt_hold_val(set);
  Val names = rt_tuple(0, NULL);
  rt_hold_val(names);
  Val a[7] = {self, val_none(), body, get, set, names, val_none()};
  val_decref(ag_for_stmt_call(7, a));
  Val r = val_incref(((List *)holder.u.o)->items[0]);
  rt_unhold(mark);
  val_decref(names);
  val_decref(set);
  val_decref(get);
  val_decref(body);
  val_decref(holder);
  val_decref(c);
  val_decref(sspec);
  val_decref(state);
  return r;
}

//! Dataset.reduce(initial_state, reduce_func, name=None)
//!   Folds the elements into a state: state = reduce_func(state, element), starting from initial_state; inside a
//!   tf.function the fold is a graph loop, run at each call.
static Val ds_reduce(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.reduce", .sig = "initial_state, reduce_func, name=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  if (trace_active()) return ds_reduce_graph(self, a[0], a[1]);
  Dataset *s = self_ds(self);
  Val state = st_map(a[0], to_tensor_leaf, "Dataset.reduce");
  int mark = rt_hold_ref(&state);
  Val sspec = st_map(state, spec_of_leaf, NULL);
  rt_hold_val(sspec);
  Val c = trace_fn(a[1], s->spec, sspec);
  rt_hold_val(c);
  Val it = tfdata_iter(self);
  rt_hold_val(it);
  Val e;
  while (ds_next((DsIt *)it.u.o, &e)) {
    int m2 = rt_hold_val(e);
    Val cargs[2] = {state, e};
    Val r = rt_call(c, 2, cargs, NULL);
    rt_unhold(m2);
    val_decref(e);
    Val prev = state;
    state = val_none();   /* held by reference: a throw in as_element must not release prev a second time */
    val_decref(prev);
    state = as_element(r);
  }
  rt_unhold(mark);
  val_decref(it);
  val_decref(c);
  val_decref(sspec);
  return state;
}

static Val ds_as_numpy_iterator(Val self, int n, const Val *args, const Kw *kw);

typedef struct DsMethod { const char *name; BuiltinFn fn; const char *qual; } DsMethod;
#define DSM(m) {#m, ds_##m, "Dataset." #m}
static const DsMethod ds_methods[] = {
  DSM(map), DSM(filter), DSM(batch), DSM(shuffle), DSM(take), DSM(skip), DSM(shard), DSM(repeat), DSM(prefetch), DSM(cache),
  DSM(enumerate), DSM(cardinality), DSM(reduce), DSM(as_numpy_iterator),
};

static Val ds_getattr(Val self, const char *name) {
  if (!strcmp(name, "element_spec")) return val_incref(self_ds(self)->spec);
  Val own = dict_get_str(self_ds(self)->attrs, name);
  if (!val_is_undef(own)) return own;
  for (size_t i = 0; i < sizeof ds_methods / sizeof ds_methods[0]; i++)
    if (!strcmp(name, ds_methods[i].name)) return builtin_new(ds_methods[i].qual, ds_methods[i].fn, self, NULL);
  /* the transformations written in .tfs (stdlib/tfcore_data.tfs), bound to the dataset */
  char q[128];
  snprintf(q, sizeof q, "data.Dataset.%s", name);
  Val f = name[0] != '_' ? tfmod_lookup(q) : val_undef();
  if (val_is_undef(f) || val_is(f, &builtin_type)) { val_decref(f); return val_undef(); }
  Val m = bound_new(f, self);
  val_decref(f);
  return m;
}

static Val numpy_leaf(void *ctx, Val leaf) {
  (void)ctx;
  Val m = rt_getattr(leaf, "numpy");
  int mark = rt_hold_val(m);
  Val r = rt_call(m, 0, NULL, NULL);
  rt_unhold(mark);
  val_decref(m);
  return r;
}

static bool numpy_step(Iter *it, Val *out) {
  Val e;
  if (!ds_next((DsIt *)it->src.u.o, &e)) return false;
  int mark = rt_hold_val(e);
  *out = st_map(e, numpy_leaf, NULL);
  rt_unhold(mark);
  val_decref(e);
  return true;
}

static Val ds_as_numpy_iterator(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Dataset.as_numpy_iterator", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  Val it = tfdata_iter(self);
  Val r = iter_new("NumpyIterator", numpy_step, it, val_undef(), 0, 0);
  val_decref(it);
  return r;
}

/* A Python Dataset takes any attribute (Keras sets class_names and file_paths on the datasets it returns). */
static void ds_setattr(Val self, const char *name, Val v) { dict_set_str(&self_ds(self)->attrs, name, v); }

static const Type ds_type = {
  .name = "DatasetV2", .free = ds_free, .repr = ds_repr, .getattr = ds_getattr, .setattr = ds_setattr, .iter = ds_iter,
  .len = ds_len,
  .hash = obj_identity_hash,
};

bool tfdata_is_dataset(Val v) { return is_ds(v); }
Val tfdata_element_spec(Val ds) { return self_ds(ds)->spec; }

/* ---- the tf.data module ------------------------------------------------------------------ */

/* Append the file names of a TFRecordDataset/TextLineDataset: a str, a string tensor (0-d or 1-D) or a list/tuple
 * of them. */
static void file_names(Val v, Val list, const char *what) {
  if (val_is(v, &str_type)) {
    list_append(list, v);
    return;
  }
  Tensor *t = val_as_tensor(v);
  if (t && !t->sym && t->dtype == DT_STRING && t->rank <= 1) {
    tfs_i64 n = t->rank ? t->shape[0] : 1;
    for (tfs_i64 i = 0; i < n; i++) {
      Str *s = *(Str **)((char *)tensor_data(t) + (size_t)(i * (t->rank ? t->strides[0] : 0)) * sizeof(Str *));
      if (s) list_append(list, val_obj(s));
    }
    return;
  }
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 n;
    const Val *items;
    seq_items(v, &n, &items);
    for (tfs_i64 i = 0; i < n; i++) {
      if (val_is(items[i], &list_type) || val_is(items[i], &tuple_type)) break;
      file_names(items[i], list, what);
    }
    if (((List *)list.u.o)->len == n) return;
  }
  rt_throw(ERR_TYPE, "%s: filenames must be a str, a string tensor or a list of str, not %s", what, val_type_name(v));
}

/* A dataset of files' records or lines (kind DS_TFRECORD or DS_TEXTLINE), read on iteration (file_next). */
static Val ds_files(DsKind kind, const char *what, int n, const Val *args, const Kw *kw) {
  static ArgSpec specs[2] = {
    {.what = "tf.data.TFRecordDataset", .sig = "filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None"},
    {.what = "tf.data.TextLineDataset", .sig = "filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None"},
  };
  Val a[5];
  args_parse(&specs[kind == DS_TEXTLINE], n, args, kw, a);
  Val ct = a[1];
  if (ct.tag != VT_NONE && ct.tag != VT_UNDEF && !val_is(ct, &str_type))
    rt_throw(ERR_TYPE, "%s: compression_type must be a str or None", what);
  int comp = 0;   /* 0 none, 1 GZIP, 2 ZLIB, 3 SNAPPY (Dataset.a; TF's record reader takes SNAPPY, its text reader not) */
  if (val_is(ct, &str_type) && str_len(ct)) {
    const char *c = str_cstr(ct);
    comp = !strcmp(c, "GZIP") ? 1 : !strcmp(c, "ZLIB") ? 2 : !strcmp(c, "SNAPPY") && kind == DS_TFRECORD ? 3 : 0;
    if (!comp) rt_throw(ERR_INVALID_ARGUMENT, "Unsupported compression_type: %s.", c);
  }
  Val names = list_new(0);
  int mark = rt_hold_val(names);
  file_names(a[0], names, what);
  List *l = (List *)names.u.o;
  Val files = tuple_new(l->len);
  for (tfs_i64 i = 0; i < l->len; i++) ((Tuple *)files.u.o)->items[i] = val_incref(l->items[i]);
  rt_unhold(mark);
  val_decref(names);
  mark = rt_hold_val(files);
  Dataset *d = ds_new(kind, tffn_spec_new(0, NULL, DT_STRING, val_none()), files, CARD_UNKNOWN);
  d->a = comp;
  rt_unhold(mark);
  val_decref(files);   /* ds_new took its own reference */
  return ds_val(d);
}

//! tf.data.TFRecordDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None)
//!   The records of TFRecord files (event files are TFRecord files) as 0-d string tensors, file by file; each
//!   record's masked CRC-32C is checked and a damaged file raises tf.errors.DataLossError. compression_type "GZIP"
//!   or "ZLIB" reads files written compressed (tf.io.TFRecordOptions), "SNAPPY" TF's snappy block files (as
//!   tf.data save/snapshot write them); "" or None reads them as they are.
static Val ds_tfrecord(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return ds_files(DS_TFRECORD, "tf.data.TFRecordDataset", n, args, kw);
}

//! tf.data.TextLineDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None)
//!   The lines of text files (without "\n" or "\r\n") as string scalars, file by file, read in C when iteration
//!   reaches each file; "GZIP"/"ZLIB" read compressed files. A missing file raises NotFoundError when reached.
static Val ds_textline(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return ds_files(DS_TEXTLINE, "tf.data.TextLineDataset", n, args, kw);
}

//! tf.data.Dataset.from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None, name=None)
//!   A dataset of what generator(*args) yields, converted to output_signature's TensorSpecs (or the deprecated
//!   output_types/output_shapes, unknown shapes when omitted); a value of the wrong structure, dtype or shape raises
//!   InvalidArgumentError when reached, as TF's py_func does. Cardinality unknown.
//! Dataset.padded_batch(batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None) | tf.data.Dataset.padded_batch
//!   As batch, for elements of different shapes: each component is padded (with padding_values, 0 or "" by
//!   default) to padded_shapes, whose None or -1 dimensions take the batch's longest.
//! Dataset.ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=tf.int64, name=None) | tf.data.Dataset.ragged_batch
//!   As batch, for elements of different shapes: a component whose static shape has unknown dimensions becomes a
//!   tf.RaggedTensor ragged up to the last of them (tf.range(x) elements: RaggedTensorSpec([None, None], ragged_rank 1));
//!   fully known components stack as batch does, RaggedTensor components gain a ragged dimension.
//! Dataset.window(size, shift=None, stride=1, drop_remainder=False, name=None) | tf.data.Dataset.window
//!   A dataset of windows, each a dataset (a structure of them for structured elements) of size elements stride
//!   apart, window i starting at element i*shift; the last windows are shorter unless drop_remainder.
//! Dataset.flat_map(map_func, name=None) | tf.data.Dataset.flat_map
//!   map_func returns a dataset for each element; their elements one after another (map_func is traced once on
//!   the element spec for the element_spec, then called on each element).
//! Dataset.interleave(map_func, cycle_length=None, block_length=None, num_parallel_calls=None, deterministic=None, name=None) | tf.data.Dataset.interleave
//!   The datasets map_func returns, cycle_length of them open at once, block_length elements from each in turn (TF's
//!   order); with num_parallel_calls > 1 the open inputs read ahead together on worker threads, and
//!   deterministic=False (or the options' False) hands each read-ahead's blocks out in the order they finished.
//! Dataset.scan(initial_state, scan_func, name=None) | tf.data.Dataset.scan
//!   Threads a state through the elements: (state, output) = scan_func(state, element), yielding the outputs;
//!   scan_func is traced once (again with relaxed shapes when the new state's shapes differ).
//! Dataset.take_while(predicate, name=None) | tf.data.Dataset.take_while
//!   The elements up to the first one for which predicate (a traced function returning a bool scalar) is false.
//! Dataset.unique(name=None) | tf.data.Dataset.unique
//!   The elements without repeats, in first-seen order; int32, int64 or string scalars.
//! Dataset.group_by_window(key_func, reduce_func=None, window_size=None, window_size_func=None, name=None) | tf.data.Dataset.group_by_window
//!   Groups the elements by key_func (an int64 scalar); each window of window_size (or window_size_func(key))
//!   elements of a key becomes reduce_func(key, window_dataset)'s elements; partial windows end it, by key.
//! Dataset.bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False, no_padding=False, drop_remainder=False, name=None) | tf.data.Dataset.bucket_by_sequence_length
//!   Batches elements of similar length together: the bucket of an element is where element_length_func(x) falls
//!   among bucket_boundaries, each bucket padded_batch-ed (batch with no_padding) by its bucket_batch_sizes entry.
//! Dataset.unbatch(name=None) | tf.data.Dataset.unbatch
//!   The rows of each element (its components split along their first dimension, which must agree); cardinality
//!   n * batch when the batch dimension is static, else unknown.
//! Dataset.apply(transformation_func) | tf.data.Dataset.apply
//!   transformation_func(dataset), which must return a dataset: how the tf.data.experimental transformations apply.
//! tf.data.Dataset.counter(start=0, step=1, dtype=tf.int64, name=None)
//!   An infinite dataset start, start + step, ... (TF's: a scan over from_tensors(0).repeat()).
//! Dataset.get_single_element(name=None) | tf.data.Dataset.get_single_element
//!   The one element of the dataset; InvalidArgumentError when it is empty or has more than one. In a tf.function it
//!   reads a dataset made outside the function when the graph runs (dense elements).
//! Dataset.ignore_errors(log_warning=False, name=None) | tf.data.Dataset.ignore_errors
//!   The elements whose computation did not raise a tf.errors error (the failing ones are dropped).
//! tf.data.Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True)
//!   Each element from datasets[i] for the next int64 scalar i of choice_dataset; an exhausted input ends the result
//!   (stop_on_empty_dataset) or is skipped.
//! tf.data.Dataset.sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False, rerandomize_each_iteration=None)
//!   Elements drawn from the datasets at random with the given weights (a list, tensor or dataset of them), as TF
//!   builds it: stateless categorical draws seeded by Dataset.random(seed); exhausted inputs are skipped.
//! Dataset.rejection_resample(class_func, target_dist, initial_dist=None, seed=None, name=None) | tf.data.Dataset.rejection_resample
//!   (class_func(x), x) pairs resampled so the classes approach target_dist, as TF builds it: elements accepted
//!   with probability (r - min r) / (max r - min r), r = target / initial (initial_dist, or estimated from
//!   the class counts seen), mixed with the input itself with probability min r.
//! tf.data.experimental.rejection_resample(class_func, target_dist, initial_dist=None, seed=None)
//!   A transformation: Dataset.rejection_resample.
//! Dataset.sparse_batch(batch_size, row_shape, name=None) | tf.data.Dataset.sparse_batch
//!   batch_size elements (one dense component each) as one tf.SparseTensor holding all their entries: dense_shape
//!   [n] + row_shape, whose -1 dimensions take the batch's largest; DataLossError for an element larger than row_shape.
//! tf.data.experimental.dense_to_sparse_batch(batch_size, row_shape)
//!   A transformation: Dataset.sparse_batch.
//! tf.data.experimental.assert_cardinality(expected_cardinality)
//!   A transformation (for Dataset.apply) giving the dataset that cardinality, raising FailedPreconditionError at
//!   iteration when the count differs.
//! tf.data.experimental.dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=tf.int64)
//!   A transformation: Dataset.ragged_batch.
//! tf.data.experimental.group_by_window(key_func, reduce_func, window_size=None, window_size_func=None) | tf.data.experimental.bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False, no_padding=False, drop_remainder=False) | tf.data.experimental.scan(initial_state, scan_func) | tf.data.experimental.take_while(predicate) | tf.data.experimental.unique() | tf.data.experimental.unbatch() | tf.data.experimental.ignore_errors(log_warning=False) | tf.data.experimental.enumerate_dataset(start=0)
//!   Transformations for Dataset.apply: the Dataset methods of the same names (enumerate_dataset: enumerate).
//! tf.data.experimental.get_single_element(dataset) | tf.data.experimental.sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False) | tf.data.experimental.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True) | tf.data.experimental.Counter(start=0, step=1, dtype=tf.int64)
//!   The deprecated names of Dataset.get_single_element, sample_from_datasets, choose_from_datasets and counter.
//! tf.data.experimental.shuffle_and_repeat(buffer_size, count=None, seed=None) | tf.data.experimental.map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None) | tf.data.experimental.parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None, prefetch_input_elements=None)
//!   Transformations for Dataset.apply: shuffle then repeat; map (num_parallel_calls, default batch_size) then
//!   batch; interleave with cycle_length parallel calls (sloppy: deterministic=False).
//! tf.data.experimental.get_structure(dataset_or_iterator)
//!   The element_spec of a dataset or iterator.
//! Dataset.rebatch(batch_size, drop_remainder=False, name=None) | tf.data.Dataset.rebatch
//!   unbatch().batch(N) in one step, N cycling through batch_size when it is a list; the static batch dimension
//!   as TF computes it (known with drop_remainder, or when it divides the input's static batch).
//! Dataset.concatenate(dataset, name=None) | tf.data.Dataset.concatenate
//!   The elements of this dataset, then those of dataset; the element_spec is both specs' most specific common
//!   one (same structure and dtypes, else TypeError "Incompatible dataset elements"), the cardinality their sum.
//! tf.data.Dataset.list_files(file_pattern, shuffle=None, seed=None, name=None)
//!   The files matching the pattern(s), sorted, as string scalars; shuffled (over all of them, with seed) unless
//!   shuffle=False. No match raises InvalidArgumentError with TF's Assert text.
//! Dataset.with_options(options, name=None) | tf.data.Dataset.with_options
//!   The same elements (an _OptionsDataset) carrying options merged over the input's; later transformations keep them.
//! Dataset.options() | tf.data.Dataset.options
//!   The dataset's tf.data.Options: those set by with_options on it or its inputs, merged as TF does; read-only.
//! tf.data.Options()
//!   Options of a dataset: deterministic (alias experimental_deterministic), threading, experimental_optimization,
//!   experimental_distribute, autotune, experimental_slack, ...; unset ones read None; merge(other). The iterated
//!   dataset's options apply to its whole pipeline; deterministic=False lets a parallel map or interleave hand
//!   results out as they finish.
//! tf.data.ThreadingOptions() | tf.data.experimental.ThreadingOptions
//!   Options.threading: private_threadpool_size (N > 0: parallel map and interleave use at most N threads),
//!   max_intra_op_parallelism (N > 0: each kernel the pipeline runs, its map functions' included, uses at most N
//!   threads of the intra-op pool; 1: the thread that runs it).
//! tf.data.experimental.OptimizationOptions()
//!   Options.experimental_optimization: map_parallelization (default on, as TF 2.15; False or
//!   apply_default_optimizations=False turns it off) runs sequential maps of stateless functions as AUTOTUNE
//!   parallel maps in order; the other rewrites are recorded (docs/data.md says why).
//! tf.data.experimental.DistributeOptions()
//!   Options.experimental_distribute: auto_shard_policy (tf.data.experimental.AutoShardPolicy: how
//!   experimental_distribute_dataset shards across workers, docs/data.md), num_devices (recorded).
//! tf.data.experimental.AutoShardPolicy
//!   The values of DistributeOptions.auto_shard_policy, TF's numbers: OFF (-1), AUTO (0: FILE when the pipeline
//!   reads files, else DATA with TF's warning), FILE (1: each worker reads its share of the files), DATA (2:
//!   each worker keeps its share of every global batch), HINT (3: as OFF, tfs has no SHARD_HINT).
//! tf.data.experimental.AutotuneOptions()
//!   Options.autotune: enabled=False keeps AUTOTUNE at min(16, pool) and skips map_parallelization; cpu_budget
//!   bounds AUTOTUNE; ram_budget bounds the input bytes a parallel map buffers; autotune_algorithm is recorded.
//! tf.data.experimental.CsvDataset(filenames, record_defaults, compression_type=None, buffer_size=None, header=False, field_delim=',', use_quote_delim=True, na_value='', select_cols=None, exclude_cols=None, name=None)
//!   The records of CSV files as tuples of scalars, one per record_defaults entry: a dtype (a required field) or a
//!   default value; header skips each file's first line; select_cols/exclude_cols pick the columns.
//! tf.data.experimental.make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None, select_columns=None, field_delim=',', use_quote_delim=True, na_value='', header=True, num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None, prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100, compression_type=None, ignore_errors=False, encoding='utf-8')
//!   Batches of ({column: tensor}, label) from CSV files: column names from the header, dtypes inferred from the
//!   first rows as TF does (int32, int64, float32, float64, string), shuffled and repeated num_epochs times (None:
//!   forever, full batches only). Features come as a dict (TF: an OrderedDict with the same order).
/* tf.data.Dataset._host(factory, element_spec, cls, cardinality, inputs=None): the dataset of the .tfs
 * transformations (stdlib/tfcore_data.tfs); factory() returns an iterator of finished elements, called when
 * iteration starts; inputs (a dataset or a list of them) pass their options on. */
static Val ds_host(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._host",
                         .sig = "factory, element_spec, cls, cardinality, inputs=None, reshard=None, walk=None, fns=None"};
  Val a[8];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[2], &str_type)) rt_throw(ERR_TYPE, "tf.data.Dataset._host: cls must be a str");
  Dataset *d = ds_new(DS_HOST, val_incref(a[1]), a[0], int_arg(a[3], "cardinality"));
  Val dv = ds_val(d);
  int mark = rt_hold_val(dv);
  d->cls = val_incref(a[2]);
  d->hsrc = val_incref(a[4]);
  if (a[7].tag != VT_NONE && a[7].tag != VT_UNDEF) {
    /* the concrete functions its factory calls (made by Dataset._concrete): the traced tensors they read */
    tfs_i64 k;
    const Val *items;
    if (!seq_items(a[7], &k, &items)) rt_throw(ERR_TYPE, "tf.data.Dataset._host: fns must be a list");
    d->fn = rt_tuple((int)k, items);
    Val caps = list_new(0);
    int cmark = rt_hold_val(caps);
    for (tfs_i64 i = 0; i < k; i++) {
      Val t = tffn_conc_take_captures(items[i]);
      if (val_is_undef(t)) continue;
      for (tfs_i64 j = 0; j < ((Tuple *)t.u.o)->len; j++) list_append(caps, ((Tuple *)t.u.o)->items[j]);
      val_decref(t);
    }
    if (((List *)caps.u.o)->len) d->capv = rt_tuple((int)((List *)caps.u.o)->len, ((List *)caps.u.o)->items);
    sy_register_caps(d);
    rt_unhold(cmark);
    val_decref(caps);
  }
  if (a[5].tag != VT_NONE && a[5].tag != VT_UNDEF) d->reshard = val_incref(a[5]);
  if (a[6].tag != VT_NONE && a[6].tag != VT_UNDEF) {
    d->walk = val_incref(a[6]);
    d->hin = val_incref(a[4]);
  }
  if (val_is(a[4], &list_type) || val_is(a[4], &tuple_type)) {
    tfs_i64 k;
    const Val *items;
    seq_items(a[4], &k, &items);
    for (tfs_i64 i = 0; i < k; i++) ds_inherit_opts(d, items[i]);
  } else {
    ds_inherit_opts(d, a[4]);
  }
  rt_unhold(mark);
  return dv;
}

/* Dataset._opts(ds): the options ds carries (stdlib/tfcore_data.tfs's Options), or None. */
static Val ds_opts(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._opts", .sig = "ds"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (!is_ds(a[0])) rt_throw(ERR_TYPE, "tf.data.Dataset._opts: not a dataset");
  Val o = ((Dataset *)a[0].u.o)->opts;
  return val_is_undef(o) ? val_none() : val_incref(o);
}

/* Dataset._with_opts(ds, options): with_options' dataset, ds's elements as they are (a pass-through the parallel
 * interleave sees through, as prefetch) carrying the merged options. */
static Val ds_with_opts(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._with_opts", .sig = "ds, options"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (!is_ds(a[0])) rt_throw(ERR_TYPE, "tf.data.Dataset._with_opts: not a dataset");
  Dataset *in = (Dataset *)a[0].u.o;
  Dataset *d = ds_new(DS_PREFETCH, val_incref(in->spec), a[0], in->card);
  d->a = -1;
  d->cls = str_from_cstr("_OptionsDataset");
  val_decref(d->opts);
  d->opts = val_incref(a[1]);
  return ds_val(d);
}

/* ---- FILE auto-sharding (tf.distribute's AutoShardPolicy.FILE) ------------------------------------------------
 * As TF's auto_shard rewrite (grappler/optimizers/data/auto_shard.cc): from the sink up through one-input
 * transformations, into every input of a zip, to the readers (TFRecordDataset, TextLineDataset), whose file names
 * are sharded, or to an interleave/flat_map whose function reads files, whose input is sharded (its nearest
 * shuffle moved below the shard so that each worker shuffles its own files).  Sources that read no files raise
 * NotFound, which AUTO turns into DATA sharding (stdlib/distribute.tfs). */

static bool shard_pass_through(DsKind k) {
  return k == DS_MAP || k == DS_FILTER || k == DS_BATCH || k == DS_SHUFFLE || k == DS_TAKE || k == DS_SKIP ||
         k == DS_REPEAT || k == DS_PREFETCH || k == DS_CACHE || k == DS_PMAP || k == DS_SHARD;
}

/* s's node again over the input src (the rewritten chain keeps every node's parameters and options) */
static Dataset *ds_clone(Dataset *s, Val src, tfs_i64 card) {
  Dataset *d = ds_new(s->kind, val_incref(s->spec), src, card);
  d->fn = val_incref(s->fn);
  d->a = s->a, d->b = s->b, d->c = s->c;
  d->flag = s->flag, d->seeded = s->seeded, d->seed = s->seed;
  d->cls = val_incref(s->cls);
  val_decref(d->opts);
  d->opts = val_incref(s->opts);
  d->attrs = val_incref(s->attrs);
  d->reshard = val_incref(s->reshard);
  d->walk = val_incref(s->walk);
  d->hin = val_incref(s->hin);
  d->capv = val_incref(s->capv);
  d->hsrc = val_incref(s->hsrc);
  return d;
}

/* TF's op name of a node that ends the walk, for its NotFound text */
static const char *shard_op_name(Dataset *d) {
  switch (d->kind) {
  case DS_SLICES: return "TensorSliceDataset";
  case DS_TENSORS: return "TensorDataset";
  case DS_RANGE: return "RangeDataset";
  case DS_RANDOM: return "RandomDataset";
  case DS_HOST: return val_is(d->cls, &str_type) ? str_cstr(d->cls) + (str_cstr(d->cls)[0] == '_') : "Dataset";
  default: return ds_class[d->kind] + (ds_class[d->kind][0] == '_');
  }
}

static Val file_shard(Dataset *d, tfs_i64 num, tfs_i64 idx) {
  if (d->kind == DS_TFRECORD || d->kind == DS_TEXTLINE) {
    Tuple *f = (Tuple *)d->src.u.o;
    if (f->len <= idx) file_shard_short(f->len, num);
    tfs_i64 k = (f->len - idx + num - 1) / num;
    Val files = tuple_new(k);
    for (tfs_i64 i = 0; i < k; i++) ((Tuple *)files.u.o)->items[i] = val_incref(f->items[idx + i * num]);
    int mark = rt_hold_val(files);
    Dataset *c = ds_clone(d, files, d->card);
    rt_unhold(mark);
    val_decref(files);
    return ds_val(c);
  }
  if (d->kind == DS_HOST && (!val_is_undef(d->reshard) || !val_is_undef(d->walk))) {
    Val args[2] = {val_int(num), val_int(idx)};
    return rt_call(val_is_undef(d->reshard) ? d->walk : d->reshard, 2, args, NULL);
  }
  if (d->kind == DS_ZIP) {
    Tuple *t = (Tuple *)d->src.u.o;
    Val nt = tuple_new(t->len);
    int mark = rt_hold_val(nt);
    for (tfs_i64 i = 0; i < t->len; i++) {
      ((Tuple *)nt.u.o)->items[i] = val_none();
      ((Tuple *)nt.u.o)->items[i] = file_shard((Dataset *)t->items[i].u.o, num, idx);
    }
    Dataset *c = ds_clone(d, nt, CARD_UNKNOWN);
    rt_unhold(mark);
    val_decref(nt);
    return ds_val(c);
  }
  if (shard_pass_through(d->kind) && is_ds(d->src)) {
    Val in = file_shard((Dataset *)d->src.u.o, num, idx);
    int mark = rt_hold_val(in);
    Dataset *c = ds_clone(d, in, ((Dataset *)in.u.o)->card < 0 ? ((Dataset *)in.u.o)->card : d->card);
    rt_unhold(mark);
    val_decref(in);
    return ds_val(c);
  }
  const char *op = shard_op_name(d);
  if (d->kind == DS_SLICES || d->kind == DS_TENSORS || d->kind == DS_RANGE ||
      (d->kind == DS_HOST && !strcmp(op, "GeneratorDataset")))
    rt_throw(ERR_NOT_FOUND, "Found an unshardable source dataset: name: \"%s/_0\"\nop: \"%s\"", op, op);
  rt_throw(ERR_NOT_FOUND, "Did not find a shardable source, walked to a node which is not a dataset: name: \"%s/_0\"\n"
           "op: \"%s\"\n. Consider either turning off auto-sharding or switching the auto_shard_policy to DATA to shard "
           "this dataset. You can do this by creating a new `tf.data.Options()` object then setting "
           "`options.experimental_distribute.auto_shard_policy = AutoShardPolicy.DATA` before applying the options "
           "object to the dataset via `dataset.with_options(options)`.", op, op);
}

/* Dataset._file_shard(ds, num_workers, index): ds with its files sharded, or NotFoundError */
static Val ds_file_shard(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._file_shard", .sig = "ds, num_workers, index"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  if (!is_ds(a[0])) rt_throw(ERR_TYPE, "tf.data.Dataset._file_shard: not a dataset");
  return file_shard((Dataset *)a[0].u.o, int_arg(a[1], "num_workers"), int_arg(a[2], "index"));
}

/* d without its nearest shuffle above (through one-input transformations), *shuf set to it; d itself when none */
static Val strip_shuffle(Dataset *d, Dataset **shuf) {
  if (d->kind == DS_SHUFFLE && is_ds(d->src)) {
    *shuf = d;
    return val_incref(d->src);
  }
  if (!shard_pass_through(d->kind) || !is_ds(d->src)) return val_incref(ds_val(d));
  Val in = strip_shuffle((Dataset *)d->src.u.o, shuf);
  if (!*shuf) {
    val_decref(in);
    return val_incref(ds_val(d));
  }
  int mark = rt_hold_val(in);
  Dataset *c = ds_clone(d, in, d->card);
  rt_unhold(mark);
  val_decref(in);
  return ds_val(c);
}

/* Dataset._shard_input(ds, num_workers, index): the input of a file-reading interleave sharded as TF's
 * ProcessDatasetSourceNode does: ds.shard(num, index) (each worker needs a file), then ds's nearest shuffle */
static Val ds_shard_input(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._shard_input", .sig = "ds, num_workers, index"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  if (!is_ds(a[0])) rt_throw(ERR_TYPE, "tf.data.Dataset._shard_input: not a dataset");
  Dataset *shuf = NULL;
  Val in = strip_shuffle((Dataset *)a[0].u.o, &shuf);
  int mark = rt_hold_val(in);
  Dataset *sh = shard_make(in, int_arg(a[1], "num_workers"), int_arg(a[2], "index"));
  sh->flag = true;   /* TF's require_non_empty */
  Val out = ds_val(sh);
  rt_hold_val(out);
  if (shuf) out = ds_val(ds_clone(shuf, out, sh->card));
  rt_unhold(mark);
  val_decref(in);
  if (shuf) val_decref(ds_val(sh));
  return out;
}

/* whether v reads files: a reader up its chain of one-input transformations, zip inputs and the inputs of .tfs
 * transformations the walk passes through included (TF's ReaderOpInFunction looks at every node of the function) */
static bool has_reader(Val v) {
  while (is_ds(v)) {
    Dataset *d = (Dataset *)v.u.o;
    if (d->kind == DS_TFRECORD || d->kind == DS_TEXTLINE || (d->kind == DS_HOST && !val_is_undef(d->reshard)))
      return true;
    bool walked = d->kind == DS_HOST && !val_is_undef(d->walk);
    Val many = d->kind == DS_ZIP ? d->src : walked ? d->hin : val_undef();
    if (val_is(many, &tuple_type) || val_is(many, &list_type)) {
      tfs_i64 k;
      const Val *items;
      seq_items(many, &k, &items);
      for (tfs_i64 i = 0; i < k; i++)
        if (has_reader(items[i])) return true;
      return false;
    }
    if (!walked && !shard_pass_through(d->kind)) return false;
    v = walked ? d->hin : d->src;
  }
  return false;
}

/* Dataset._has_reader(ds): ds reads files (TF's ReaderOpInFunction) */
static Val ds_has_reader(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._has_reader", .sig = "ds"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return val_bool(has_reader(a[0]));
}

/* Dataset._batch_size(ds): the batch size of ds's last batch (TF's ComputeBatchSize), -1 when not found */
static Val ds_batch_size(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset._batch_size", .sig = "ds"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  for (Val v = a[0]; is_ds(v); v = ((Dataset *)v.u.o)->src) {
    Dataset *d = (Dataset *)v.u.o;
    if (d->kind == DS_BATCH) return val_int(d->a);
    if (d->kind != DS_PREFETCH && d->kind != DS_MAP && d->kind != DS_PMAP && d->kind != DS_REPEAT &&
        d->kind != DS_CACHE)
      break;
  }
  return val_int(-1);
}

//! tf.data.Dataset.random(seed=None, rerandomize_each_iteration=None, name=None)
//!   An infinite dataset of int64 scalars; a seed (or tf.random.set_seed) repeats them, and each iteration starts
//!   them again unless rerandomize_each_iteration. tfs's own stream (splitmix64), not TF's Philox numbers.
static Val ds_random(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.data.Dataset.random", .sig = "seed=None, rerandomize_each_iteration=None, name=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  Dataset *d = ds_new(DS_RANDOM, tffn_spec_new(0, NULL, DT_INT64, val_none()), val_undef(), CARD_INFINITE);
  d->flag = a[1].tag != VT_NONE && a[1].tag != VT_UNDEF && rt_truthy(a[1]);
  tfs_i64 g;
  bool has_g = random_global_seed(&g);
  if (a[0].tag != VT_NONE && a[0].tag != VT_UNDEF) d->seed = int_arg(a[0], "seed") * 1000003 + (has_g ? g : 87654321);
  else if (has_g) d->seed = g * 7919 + random_op_seed_index();
  else d->seed = (tfs_i64)time(NULL) ^ (tfs_i64)(uintptr_t)d;
  return ds_val(d);
}

/* tf.data.Dataset._concrete(fn, *specs) (stdlib's): fn as a tf.function traced on the specs, as tf.data traces its
 * functions: inside a tf.function the function's tensors fn reads become captured inputs (the host datasets pass it
 * to _host's fns). */
static Val ds_concrete(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)kw;
  if (n < 1) rt_throw(ERR_TYPE, "tf.data.Dataset._concrete needs a function");
  return concrete_of(args[0], n - 1, args + 1);
}

static const DsMethod ds_ctors[] = {
  {"_concrete", ds_concrete, NULL},
  {"_host", ds_host, NULL}, {"_pull_blocks", ds_pull_blocks, NULL}, {"_nondet", ds_nondet, NULL}, {"random", ds_random, NULL},
  {"_opts", ds_opts, NULL}, {"_with_opts", ds_with_opts, NULL}, {"_file_shard", ds_file_shard, NULL},
  {"_shard_input", ds_shard_input, NULL}, {"_has_reader", ds_has_reader, NULL}, {"_batch_size", ds_batch_size, NULL},
  {"from_tensor_slices", ds_from_tensor_slices, NULL}, {"from_tensors", ds_from_tensors, NULL}, {"range", ds_range, NULL},
  {"zip", ds_zip, NULL}, {"_graph_single", tfdata_graph_single, NULL},
};

static Val data_getattr(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "data.%s", name);
  return tfmod_lookup(q);
}
static Val data_exp_getattr(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "data.experimental.%s", name);
  return tfmod_lookup(q);
}
static Val dataset_cls_getattr(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "data.Dataset.%s", name);
  return tfmod_lookup(q);
}

static Val ds_spec_ctor(Val self, int n, const Val *args, const Kw *kw);
static Val ds_ispec_ctor(Val self, int n, const Val *args, const Kw *kw);

//! tf.data
//!   Input pipelines: tf.data.Dataset, AUTOTUNE and the cardinality constants (docs/data.md).
//! tf.data.experimental
//!   The experimental names of tf.data kept by TF 2: AUTOTUNE and the cardinality constants.
//! tf.data.Dataset
//!   The dataset class: build one with from_tensor_slices, from_tensors, range or zip, then transform it.
//! tf.data.AUTOTUNE | tf.data.experimental.AUTOTUNE
//!   -1: lets the runtime pick num_parallel_calls (map: one per core) or a prefetch size.
//! tf.data.experimental.INFINITE_CARDINALITY | tf.data.INFINITE_CARDINALITY
//!   -1, the cardinality() of an infinite dataset.
//! tf.data.experimental.UNKNOWN_CARDINALITY | tf.data.UNKNOWN_CARDINALITY
//!   -2, the cardinality() of a dataset whose length is not known before iterating (after filter).
Val tfdata_attr(const char *qual) {
  if (!strcmp(qual, "data")) return module_native("tensorflow._api.v2.data", data_getattr);
  if (!strcmp(qual, "data.Dataset")) {   /* TF's tf.data.Dataset is the class DatasetV2 */
    Val m = module_native("tf.data.Dataset", dataset_cls_getattr);
    ((Module *)m.u.o)->as_class = "DatasetV2";
    return m;
  }
  if (!strcmp(qual, "data.TFRecordDataset")) return builtin_new("tf.data.TFRecordDataset", ds_tfrecord, val_undef(), NULL);
  if (!strcmp(qual, "data.TextLineDataset")) return builtin_new("tf.data.TextLineDataset", ds_textline, val_undef(), NULL);
  if (!strcmp(qual, "data.DatasetSpec")) return builtin_new("tf.data.DatasetSpec", ds_spec_ctor, val_undef(), NULL);
  if (!strcmp(qual, "data.IteratorSpec")) return builtin_new("tf.data.IteratorSpec", ds_ispec_ctor, val_undef(), NULL);
  /* tf.data.experimental.AUTOTUNE is reached attribute by attribute */
  if (!strcmp(qual, "data.experimental")) return module_native("tensorflow._api.v2.data.experimental", data_exp_getattr);
  if (!strcmp(qual, "data.experimental.cardinality"))
    return builtin_new("tf.data.experimental.cardinality", ds_exp_cardinality, val_undef(), NULL);
  if (!strcmp(qual, "data.AUTOTUNE") || !strcmp(qual, "data.experimental.AUTOTUNE")) return val_int(-1);
  if (!strcmp(qual, "data.INFINITE_CARDINALITY") || !strcmp(qual, "data.experimental.INFINITE_CARDINALITY")) return val_int(-1);
  if (!strcmp(qual, "data.UNKNOWN_CARDINALITY") || !strcmp(qual, "data.experimental.UNKNOWN_CARDINALITY")) return val_int(-2);
  if (!strncmp(qual, "data.Dataset.", 13))
    for (size_t i = 0; i < sizeof ds_ctors / sizeof ds_ctors[0]; i++)
      if (!strcmp(qual + 13, ds_ctors[i].name)) {
        char q[96];
        snprintf(q, sizeof q, "tf.%s", qual);
        return builtin_new(strdup(q), ds_ctors[i].fn, val_undef(), NULL);
      }
  return val_undef();
}

/* ---- in-graph iteration -------------------------------------------------------------------
 * `for x in ds` inside a tf.function becomes a While over three stateful ops:
 * _DatasetIterator (a fresh iterator each time the graph runs; its output is a
 * handle into the table below), _DatasetNext (has_value, then the element's
 * leaves; zeros once the end is reached) and _DatasetRelease after the loop. */

static Val *it_slots;             /* VT_UNDEF: free */
static int *it_depth;             /* the depth of the graph run that made each (exec_run_depth) */
static tfs_i64 it_nslots;

/* The leaves of an element or spec structure, depth first (borrowed; at most cap stored, all counted). */
static void flatten_elem(Val e, Val *out, int *n, int cap) {
  if (val_is(e, &tuple_type)) {
    Tuple *t = (Tuple *)e.u.o;
    for (tfs_i64 i = 0; i < t->len; i++) flatten_elem(t->items[i], out, n, cap);
  } else if (val_is(e, &dict_type)) {
    Val vals = dict_view_new(e, 1), vl = list_from_iterable(vals);
    val_decref(vals);
    List *l = (List *)vl.u.o;
    for (tfs_i64 i = 0; i < l->len; i++) flatten_elem(l->items[i], out, n, cap);
    val_decref(vl);
  } else {
    if (*n < cap) out[*n] = e;
    (*n)++;
  }
}

/* ---- ragged and sparse elements in graphs ----
 * A spec leaf that is a .tfs TypeSpec (tf.RaggedTensorSpec, tf.SparseTensorSpec) stands, in the graph ops'
 * outputs, for its component tensors (_component_specs; a value's _to_components, rebuilt by _from_components),
 * as tf.function feeds and returns composites. */
static bool comp_spec(Val v) { return class_defines(v, "_component_specs"); }

static Val comp_method(Val spec, const char *name, Val arg) {
  Val m = rt_getattr(spec, name);
  int mark = rt_hold_val(m);
  Val r = rt_call(m, 1, &arg, NULL);
  rt_unhold(mark);
  val_decref(m);
  return r;
}

/* The graph leaves of element_spec spec (e VT_UNDEF: the specs) or of its element e (the tensors): flatten_elem's
 * leaves with each composite's components in its place, as a list (owned). */
static Val graph_leaves(Val spec, Val e) {
  Val sl[DS_MAX_LEAVES], el[DS_MAX_LEAVES];
  int n = 0, m = 0;
  flatten_elem(spec, sl, &n, DS_MAX_LEAVES);
  if (n > DS_MAX_LEAVES) rt_throw(ERR_UNIMPLEMENTED, "dataset elements with more than %d tensors cannot be iterated in a graph", DS_MAX_LEAVES);
  bool specs = val_is_undef(e);
  if (!specs) flatten_elem(e, el, &m, DS_MAX_LEAVES);
  if (!specs && m != n) rt_throw(ERR_INVALID_ARGUMENT, "a dataset element has %d components, its element_spec %d", m, n);
  Val out = list_new(n);
  int mark = rt_hold_val(out);
  for (int i = 0; i < n; i++) {
    if (!comp_spec(sl[i])) {
      list_append(out, specs ? sl[i] : el[i]);
      continue;
    }
    Val cs = specs ? rt_getattr(sl[i], "_component_specs") : comp_method(sl[i], "_to_components", el[i]);
    int m2 = rt_hold_val(cs);
    Val cl = list_from_iterable(cs);
    rt_hold_val(cl);
    for (tfs_i64 k = 0; k < ((List *)cl.u.o)->len; k++) list_append(out, ((List *)cl.u.o)->items[k]);
    rt_unhold(m2);
    val_decref(cl);
    val_decref(cs);
  }
  rt_unhold(mark);
  return out;
}

static Val unflatten_leaf(void *ctx, Val leaf) {
  const Val **p = ctx;
  if (!comp_spec(leaf)) return val_incref(*(*p)++);
  /* a composite: its components, rebuilt by its spec */
  Val cs = rt_getattr(leaf, "_component_specs");
  int mark = rt_hold_val(cs);
  Val cl = list_from_iterable(cs);
  rt_hold_val(cl);
  tfs_i64 k = ((List *)cl.u.o)->len;
  Val comps = list_new(k);
  rt_hold_val(comps);
  for (tfs_i64 i = 0; i < k; i++) list_append(comps, *(*p)++);
  Val r = comp_method(leaf, "_from_components", comps);
  rt_unhold(mark);
  val_decref(comps);
  val_decref(cl);
  val_decref(cs);
  return r;
}

Val tfdata_unflatten(Val ds, const Val *leaves) {
  const Val *p = leaves;
  return st_map(self_ds(ds)->spec, unflatten_leaf, &p);
}


/* ---- datasets as graph inputs ------------------------------------------------------------
 * A dataset passed to a tf.function is a graph input, as TF's variant tensor:
 * the call feeds an int64 handle naming the dataset in a table of weak
 * references (the caller holds the dataset for the call); the trace sees a
 * _VariantDataset standing for it, and _DatasetIterator takes the handles of
 * the stand-ins its dataset is built on as inputs.  A handle is slot | generation << 32,
 * so a stale one is refused rather than naming a later dataset. */

static WeakTab ds_reg;

static void handle_drop(Dataset *d) {
  wt_drop(&ds_reg, d, &d->handle);
}

Tensor *tfdata_handle(Val ds) {
  Dataset *d = self_ds(ds);
  if (d->kind == DS_ARG) {
    /* a stand-in passed on while its function traces: its placeholder */
    if (!val_is_tensor(d->src))
      rt_throw(ERR_INVALID_ARGUMENT, "a dataset received as a tf.function argument can only be iterated inside that function");
    return val_tensor(d->src);
  }
  if (!d->handle) d->handle = wt_add(&ds_reg, d, 0);
  return d->handle;
}

static Dataset *handle_lookup(OpCall *c, Tensor *h) {
  Dataset *d = wt_find(&ds_reg, tensor_get_i(h, 0));
  if (!d) op_fail(c, ERR_INVALID_ARGUMENT, "the dataset fed to this graph no longer exists");
  return d;
}

bool tfdata_is_arg(Val v) { return is_ds(v) && self_ds(v)->kind == DS_ARG; }

static bool ds_graphdef_info(Val v, GdDataset *o);

Val tfdata_arg_new(Val spec, Val handle) {
  graphdef_dataset_info = ds_graphdef_info;   /* (an iterator argument's next() may be the only dataset op) */
  Dataset *d = ds_new(DS_ARG, val_incref(spec), handle, CARD_UNKNOWN);
  d->traced = true;
  return ds_val(d);
}

/* After its trace a stand-in drops its placeholder: the graph keeps the
 * stand-in (in _DatasetIterator's attribute) and the placeholder keeps the graph. */
void tfdata_arg_unbind(Val ds) {
  Dataset *d = self_ds(ds);
  val_decref(d->src);
  d->src = val_none();
}

/* d's input datasets (borrowed): a zip's, the one of a transformation, a host dataset's inputs. */
static int ds_kids(Dataset *d, const Val **kids, Val *one) {
  if (d->kind == DS_ZIP) {
    *kids = ((Tuple *)d->src.u.o)->items;
    return (int)((Tuple *)d->src.u.o)->len;
  }
  Val in = d->kind == DS_HOST ? d->hsrc : d->src;
  tfs_i64 n;
  const Val *items;
  if (d->kind == DS_HOST && (val_is(in, &list_type) || val_is(in, &tuple_type)) && seq_items(in, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++)
      if (!is_ds(items[i])) return 0;
    *kids = items;
    return (int)n;
  }
  if (!is_ds(in)) return 0;
  *one = in;
  *kids = one;
  return 1;
}

/* d's traced functions (borrowed): a host dataset's tuple of them (_host's fns), or the one of a map/filter. */
static int fn_items(Dataset *d, const Val **items) {
  Val f = val_is_undef(d->ofn) ? d->fn : d->ofn;
  if (val_is(f, &tuple_type)) {
    *items = ((Tuple *)f.u.o)->items;
    return (int)((Tuple *)f.u.o)->len;
  }
  *items = val_is_undef(d->ofn) ? &d->fn : &d->ofn;
  return val_is_undef(f) ? 0 : 1;
}

/* How many traced tensors d's own functions read. */
static int node_ncaps(Dataset *d) {
  const Val *f;
  int nf = fn_items(d, &f), n = 0;
  for (int i = 0; i < nf; i++) n += tffn_conc_ncaptures(f[i]);
  return n;
}

/* How many traced tensors the functions of d's chain read (their captured inputs, fed after the stand-ins). */
static void cap_count(Dataset *d, int *n) {
  *n += node_ncaps(d);
  const Val *kids;
  Val one;
  int nk = ds_kids(d, &kids, &one);
  for (int i = 0; i < nk; i++) cap_count((Dataset *)kids[i].u.o, n);
}

/* Those tensors, in bind_args order (inputs first, then the node's own), appended to list. */
static void cap_values(Dataset *d, Val list) {
  const Val *kids;
  Val one;
  int nk = ds_kids(d, &kids, &one);
  for (int i = 0; i < nk; i++) cap_values((Dataset *)kids[i].u.o, list);
  if (node_ncaps(d) && val_is_undef(d->capv))
    rt_throw(ERR_INVALID_ARGUMENT, "a dataset whose function reads tensors of a tf.function can only be iterated inside it");
  if (!val_is_undef(d->capv))
    for (tfs_i64 i = 0; i < ((Tuple *)d->capv.u.o)->len; i++) list_append(list, ((Tuple *)d->capv.u.o)->items[i]);
}

/* The stand-ins a dataset is built on, depth first (borrowed; at most cap stored, all counted). */
static void arg_nodes(Dataset *d, Dataset **out, int *n, int cap) {
  if (d->kind == DS_ARG) {
    if (*n < cap) out[*n] = d;
    (*n)++;
    return;
  }
  const Val *kids;
  Val one;
  int nk = ds_kids(d, &kids, &one);
  for (int i = 0; i < nk; i++) arg_nodes((Dataset *)kids[i].u.o, out, n, cap);
}

/* ---- binding in place under host datasets ----
 * A host dataset's factory (stdlib .tfs code) iterates the very datasets it was made on, so the nodes under it
 * cannot be copied as bind_args copies the others: for the run, its stand-ins read the fed datasets (bound) and
 * its functions that read traced tensors are their bound copies (fn, the traced one kept in ofn); the run's end
 * undoes both (ds_run_ended). */
static Dataset **rb_node;
static int *rb_depth;
static int rb_n, rb_cap;

static void rb_add(Dataset *d) {
  if (rb_n == rb_cap) {
    int cap = rb_cap ? rb_cap * 2 : 8;
    Dataset **nn = realloc(rb_node, sizeof(Dataset *) * (size_t)cap);
    if (!nn) rt_throw(ERR_MEMORY, "out of memory");
    rb_node = nn;
    int *nd = realloc(rb_depth, sizeof(int) * (size_t)cap);
    if (!nd) rt_throw(ERR_MEMORY, "out of memory");
    rb_depth = nd;
    rb_cap = cap;
  }
  d->hdr.rc++;
  rb_node[rb_n] = d;
  rb_depth[rb_n++] = exec_run_depth();
}

static void rb_undo(Dataset *d) {
  if (d->kind == DS_HOST) {
    const Val *f;
    int nf = fn_items(d, &f);
    for (int i = 0; i < nf; i++)
      if (tffn_conc_ncaptures(f[i])) tffn_conc_run_captures(f[i], NULL);
    trace_subst_drop(d);
    return;
  }
  Val b = d->bound;
  d->bound = val_undef();
  val_decref(b);
  if (!val_is_undef(d->ofn)) {
    Val f = d->fn;
    d->fn = d->ofn;
    d->ofn = val_undef();
    val_decref(f);
  }
}

static void bind_inplace(Dataset *d, Dataset **real, int *k, Tensor *const *caps, int *ci) {
  if (d->kind == DS_ARG) {
    rb_undo(d);
    d->bound = val_incref(ds_val(real[(*k)++]));
    rb_add(d);
    return;
  }
  const Val *kids;
  Val one;
  int nk = ds_kids(d, &kids, &one);
  for (int i = 0; i < nk; i++) bind_inplace((Dataset *)kids[i].u.o, real, k, caps, ci);
  if (d->kind == DS_HOST) {
    /* its factory calls these very functions: they take the run's values */
    const Val *f;
    int nf = fn_items(d, &f);
    bool any = false;
    /* and the Python functions it calls (flat_map's) read the traced tensors as the run's values */
    for (int j = 0; j < d->ncapr; j++) trace_subst_add(d->capg, d->capr[j], caps[*ci + j], d);
    for (int i = 0; i < nf; i++) {
      int nc = tffn_conc_ncaptures(f[i]);
      if (!nc) continue;
      tffn_conc_run_captures(f[i], caps + *ci);
      *ci += nc;
      any = true;
    }
    if (any) rb_add(d);
    return;
  }
  Val tf = val_is_undef(d->ofn) ? d->fn : d->ofn;
  int nc = tffn_conc_ncaptures(tf);
  if (!nc) return;
  Val fn = tffn_conc_bind_captures(tf, caps + *ci);
  *ci += nc;
  rb_undo(d);
  d->ofn = d->fn;
  d->fn = fn;
  rb_add(d);
}

/* d with its stand-ins replaced by the fed datasets, in arg_nodes order (owned).
 * Nodes over a stand-in are copied; the copies start afresh, as TF rebuilds
 * a dataset made inside a function on every call. */
static Val bind_args(Dataset *d, Dataset **real, int *k, Tensor *const *caps, int *ci) {
  if (d->kind == DS_ARG) { Val v = ds_val(real[(*k)++]); return val_incref(v); }
  if (d->kind == DS_HOST) {
    bind_inplace(d, real, k, caps, ci);
    return val_incref(ds_val(d));
  }
  int dummy = 0, ncap = 0;
  arg_nodes(d, NULL, &dummy, 0);
  cap_count(d, &ncap);
  if (!dummy && !ncap) return val_incref(ds_val(d));
  Val src;
  if (d->kind == DS_ZIP) {
    Tuple *t = (Tuple *)d->src.u.o;
    src = tuple_new(t->len);
    int mark = rt_hold_val(src);
    for (tfs_i64 i = 0; i < t->len; i++) ((Tuple *)src.u.o)->items[i] = bind_args((Dataset *)t->items[i].u.o, real, k, caps, ci);
    rt_unhold(mark);
  } else if (is_ds(d->src)) {
    src = bind_args((Dataset *)d->src.u.o, real, k, caps, ci);
  } else {
    src = val_incref(d->src);
  }
  int smark = rt_hold_val(src);
  /* a function reading the trace's tensors computes with this run's values (TF's other_arguments) */
  int nc = tffn_conc_ncaptures(d->fn);
  Val fn = nc ? tffn_conc_bind_captures(d->fn, caps + *ci) : val_incref(d->fn);
  *ci += nc;
  rt_unhold(smark);
  Dataset *n = ds_new(d->kind, val_incref(d->spec), src, d->card);
  val_decref(src);
  n->fn = fn;
  n->a = d->a;
  n->b = d->b;
  n->c = d->c;
  n->flag = d->flag;
  n->seeded = d->seeded;
  n->seed = d->seed;
  n->traced = true;
  return ds_val(n);
}

/* ---- tf.data.DatasetSpec ------------------------------------------------------------------- */

typedef struct DsSpec {
  Obj hdr;
  Val elem;                   /* element_spec (owned) */
} DsSpec;

static void dspec_free(Obj *o) {
  val_decref(((DsSpec *)o)->elem);
  free(o);
}

static void dspec_repr(StrBuf *b, Val v) {
  sb_puts(b, "DatasetSpec(");
  val_repr(b, ((DsSpec *)v.u.o)->elem);
  sb_puts(b, ", TensorShape([]))");
}

static Val dspec_getattr(Val self, const char *name) {
  if (!strcmp(name, "element_spec")) return val_incref(((DsSpec *)self.u.o)->elem);
  return val_undef();
}

static const Type dspec_type = {
  .name = "DatasetSpec", .free = dspec_free, .repr = dspec_repr, .getattr = dspec_getattr, .hash = obj_identity_hash,
};

/* TF's TypeSpec repr: the class name and its _serialize() tuple, (element_spec,) for an IteratorSpec */
static void ispec_repr(StrBuf *b, Val v) {
  sb_puts(b, "IteratorSpec((");
  val_repr(b, ((DsSpec *)v.u.o)->elem);
  sb_puts(b, ",))");
}

/* tf.data.IteratorSpec: the same record as a DatasetSpec, the signature entry of an iterator argument */
static const Type ispec_type = {
  .name = "IteratorSpec", .free = dspec_free, .repr = ispec_repr, .getattr = dspec_getattr, .hash = obj_identity_hash,
};

bool tfdata_is_spec(Val v) { return val_is(v, &dspec_type) || val_is(v, &ispec_type); }
bool tfdata_spec_is_iter(Val v) { return val_is(v, &ispec_type); }
Val tfdata_spec_element(Val spec) { return ((DsSpec *)spec.u.o)->elem; }

static Val dspec_new(Val elem, bool iter) {
  DsSpec *s = obj_new(iter ? &ispec_type : &dspec_type, sizeof(DsSpec));
  s->elem = val_incref(elem);
  return val_obj(s);
}

Val tfdata_spec_of(Val ds) { return dspec_new(self_ds(ds)->spec, false); }
Val tfdata_ispec_new(Val elem) { return dspec_new(elem, true); }

static void spec_elem_check(Val e, const char *what) {
  const char *tn = val_type_name(e);
  /* a RaggedTensorSpec or SparseTensorSpec too (a loaded ragged or sparse dataset's shards) */
  bool composite = !strcmp(tn, "RaggedTensorSpec") || !strcmp(tn, "SparseTensorSpec");
  if (!val_is(e, &tffn_spec_type) && !val_is(e, &tuple_type) && !val_is(e, &dict_type) && !composite)
    rt_throw(ERR_TYPE, "%s: element_spec must be a tf.TensorSpec or a tuple or dict of them, not %s", what, val_type_name(e));
}

//! tf.data.DatasetSpec(element_spec, dataset_shape=None)
//!   The type of a dataset argument of a tf.function: its element_spec (get_concrete_function accepts one).
static Val ds_spec_ctor(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.data.DatasetSpec", .sig = "element_spec, dataset_shape=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  spec_elem_check(a[0], "tf.data.DatasetSpec");
  return dspec_new(a[0], false);
}

//! tf.data.IteratorSpec(element_spec)
//!   The type of an iterator argument of a tf.function (iter(ds)): its element_spec (input_signature and
//!   get_concrete_function accept one).
static Val ds_ispec_ctor(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.data.IteratorSpec", .sig = "element_spec"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  spec_elem_check(a[0], "tf.data.IteratorSpec");
  return dspec_new(a[0], true);
}

#define DS_MAX_ARGS 16

/* ---- datasets made inside a tf.function from traced tensors ------------------------------------
 * Dataset.from_tensor_slices(x), from_tensors(x) and range(n) with traced values become graph ops
 * (TensorSliceDataset, TensorDataset, RangeDataset, as in TF) whose output is a variant scalar holding
 * the dataset built from the run's values; the trace sees a stand-in (DS_ARG, flag set) fed by that
 * output, as a dataset argument is fed by its handle, so transformations and loops over it work alike. */

static bool st_symbolic(Val v) {
  if (val_is(v, &tuple_type)) {
    for (tfs_i64 i = 0; i < ((Tuple *)v.u.o)->len; i++)
      if (st_symbolic(((Tuple *)v.u.o)->items[i])) return true;
    return false;
  }
  if (val_is(v, &dict_type)) {
    Dict *d = (Dict *)v.u.o;
    for (tfs_i64 i = 0; i < d->len; i++)
      if (d->keys[i].tag != VT_UNDEF && st_symbolic(d->vals[i])) return true;
    return false;
  }
  return trace_val_symbolic(v);
}

typedef struct SrcLeaves { Val list; } SrcLeaves;

/* st_map callback: the leaf as a graph-ready tensor appended to the list; its marker in the template. */
static Val src_leaf(void *ctx, Val leaf) {
  SrcLeaves *sl = ctx;
  Val t;
  if (val_is(leaf, &variable_type)) t = op_apply1(OP_READ_VARIABLE, leaf);
  else if (val_as_tensor(leaf)) t = val_incref(leaf);
  else if (trace_val_symbolic(leaf)) t = trace_pack(leaf, -1);
  else t = val_obj(tensor_from_val(leaf, -1));
  int idx = (int)((List *)sl->list.u.o)->len;
  list_append(sl->list, t);
  val_decref(t);
  return nest_leaf(idx);
}

typedef struct SrcSpec { Val list; int drop; } SrcSpec;

static Val src_spec(void *ctx, Val marker) {
  SrcSpec *ss = ctx;
  int idx = 0;
  nest_is_leaf(marker, &idx);
  Tensor *t = val_tensor(((List *)ss->list.u.o)->items[idx]);
  if (ss->drop && t->rank == 0) rt_throw(ERR_VALUE, "Unbatching a tensor is only supported for rank >= 1");
  return tffn_spec_new(t->rank < 0 ? 0 : t->rank - ss->drop, t->shape + ss->drop, t->dtype, val_none());
}

static Val ds_source_traced(OpId op, Val structure, int drop) {
  SrcLeaves sl = {list_new(4)};
  int mark = rt_hold_val(sl.list);
  Val tmpl = st_map(structure, src_leaf, &sl);
  rt_hold_val(tmpl);
  SrcSpec ss = {sl.list, drop};
  Val spec = st_map(tmpl, src_spec, &ss);
  rt_hold_val(spec);
  List *l = (List *)sl.list.u.o;
  OpAttrs at = {1, {tmpl}};
  Val h = op_apply(&op_defs[op], (int)l->len, l->items, &at);
  rt_unhold(mark);
  Dataset *d = ds_new(DS_ARG, spec, h, CARD_UNKNOWN);
  val_decref(h);
  val_decref(tmpl);
  val_decref(sl.list);
  d->flag = true;
  sy_register(d, d->src);
  return ds_val(d);
}

/* shape: a variant scalar (the dataset). */
void meta_ds_source(OpCall *c) { meta_set(&c->outm[0], DT_VARIANT, 0, NULL); }

static Val src_fill(void *ctx, Val marker) {
  OpCall *c = ctx;
  int idx = 0;
  if (!nest_is_leaf(marker, &idx) || idx < 0 || idx >= c->nin) op_fail(c, ERR_INVALID_ARGUMENT, "%s: bad template", c->op->graph_name);
  return val_obj(tensor_retain(c->in[idx]));
}

void k_ds_source(OpCall *c) {
  Val ds;
  if (c->op->id == OP_DATASET_RANGE) {
    tfs_i64 v[3];
    for (int i = 0; i < 3; i++) v[i] = tensor_get_i(c->in[i], 0);
    if (v[2] == 0) op_fail(c, ERR_INVALID_ARGUMENT, "step must be a non-zero integer.");
    DType odt = DT_INT64;
    val_as_dtype(op_attr(c, 0), &odt);
    ds = ds_range_make(v[0], v[1], v[2], odt);
  } else {
    Val st = st_map(op_attr(c, 0), src_fill, c);
    int mark = rt_hold_val(st);
    ds = c->op->id == OP_DATASET_SLICES ? ds_from_tensor_slices(val_undef(), 1, &st, NULL)
                                        : ds_from_tensors(val_undef(), 1, &st, NULL);
    rt_unhold(mark);
    val_decref(st);
  }
  ((Obj **)tensor_data(c->out[0]))[0] = ds.u.o;   /* the variant owns it */
}

/* The dataset a graph attribute keeps: stand-ins fed by a source op lose their traced value (the graph
 * would otherwise hold itself through it); the iterator's inputs say where each one comes from. */
static Val unbound_copy(Dataset *d) {
  if (d->kind == DS_ARG && d->flag) {
    Dataset *n = ds_new(DS_ARG, val_incref(d->spec), val_none(), CARD_UNKNOWN);
    n->flag = true;
    n->traced = true;
    return ds_val(n);
  }
  bool any = false;
  Dataset *st[DS_MAX_ARGS];
  int cnt = 0;
  arg_nodes(d, st, &cnt, DS_MAX_ARGS);
  for (int i = 0; i < cnt && i < DS_MAX_ARGS; i++) any |= st[i]->flag;
  int ncap = 0;
  cap_count(d, &ncap);   /* (the copy drops the captured tensors: the iterator's inputs feed them) */
  if (!any && !ncap) return val_incref(ds_val(d));
  if (!is_ds(d->src) && d->kind != DS_ZIP) return val_incref(ds_val(d));
  Val src;
  if (d->kind == DS_ZIP) {
    Tuple *t = (Tuple *)d->src.u.o;
    src = tuple_new(t->len);
    int mark = rt_hold_val(src);
    for (tfs_i64 i = 0; i < t->len; i++) ((Tuple *)src.u.o)->items[i] = unbound_copy((Dataset *)t->items[i].u.o);
    rt_unhold(mark);
  } else if (is_ds(d->src)) {
    src = unbound_copy((Dataset *)d->src.u.o);
  } else {
    src = val_incref(d->src);
  }
  Dataset *n = ds_new(d->kind, val_incref(d->spec), src, d->card);
  val_decref(src);
  /* (a function reading traced tensors: its copy without the Python function, see tffn_conc_bind_captures) */
  n->fn = tffn_conc_ncaptures(d->fn) ? tffn_conc_bind_captures(d->fn, NULL) : val_incref(d->fn);
  n->a = d->a;
  n->b = d->b;
  n->c = d->c;
  n->flag = d->flag;
  n->seeded = d->seeded;
  n->seed = d->seed;
  n->traced = true;
  val_decref(n->cls);
  n->cls = val_incref(d->cls);
  val_decref(n->opts);
  n->opts = val_incref(d->opts);
  return ds_val(n);
}

void meta_ds_iter(OpCall *c) {
  graph_attr_cyclic = is_ds;   /* (see graph_release) */
  if (!is_ds(op_attr(c, 0))) op_fail(c, ERR_TYPE, "_DatasetIterator needs a dataset");
  meta_set(&c->outm[0], DT_INT64, 0, NULL);
}

static void ds_run_ended(int depth);

void k_ds_iter(OpCall *c) {
  tfs_i64 slot = 0;
  while (slot < it_nslots && !val_is_undef(it_slots[slot])) slot++;
  if (slot == it_nslots) {
    Val *ns = realloc(it_slots, sizeof(Val) * (size_t)(it_nslots * 2 + 4));
    if (!ns) rt_throw(ERR_MEMORY, "out of memory");
    it_slots = ns;
    int *nd = realloc(it_depth, sizeof(int) * (size_t)(it_nslots * 2 + 4));
    if (!nd) rt_throw(ERR_MEMORY, "out of memory");
    it_depth = nd;
    exec_end_hook = ds_run_ended;
    for (tfs_i64 i = it_nslots; i < it_nslots * 2 + 4; i++) it_slots[i] = val_undef();
    it_nslots = it_nslots * 2 + 4;
  }
  Dataset *d = (Dataset *)op_attr(c, 0).u.o;
  if (c->nin) {
    /* built on dataset arguments: bind the fed ones; then the traced tensors its functions read */
    Dataset *real[DS_MAX_ARGS];
    int nargs = 0;
    arg_nodes(d, NULL, &nargs, 0);
    if (nargs > c->nin) op_fail(c, ERR_INVALID_ARGUMENT, "_DatasetIterator: missing inputs");
    for (int i = 0; i < nargs && i < DS_MAX_ARGS; i++) {
      Obj *o = c->in[i]->dtype == DT_VARIANT ? ((Obj **)tensor_data(c->in[i]))[0] : NULL;
      if (c->in[i]->dtype == DT_VARIANT && (!o || o->type != &ds_type)) op_fail(c, ERR_INVALID_ARGUMENT, "_DatasetIterator: not a dataset");
      real[i] = o ? (Dataset *)o : handle_lookup(c, c->in[i]);
    }
    if (d->traced) ds_rebuild(d);
    int k = 0, ci = 0;
    Val b = bind_args(d, real, &k, c->in + nargs, &ci);
    int mark = rt_hold_val(b);
    it_slots[slot] = tfdata_iter(b);
    rt_unhold(mark);
    val_decref(b);
  } else {
    if (d->traced) ds_rebuild(d);
    it_slots[slot] = tfdata_iter(op_attr(c, 0));
  }
  it_depth[slot] = exec_run_depth();
  *(int64_t *)tensor_data(c->out[0]) = slot;
}

static DsIt *slot_iter(OpCall *c) {
  tfs_i64 h = tensor_get_i(c->in[0], 0);
  DsIt *eit = eit_lookup(c, h);
  if (eit) return eit;
  if (h < 0 || h >= it_nslots || val_is_undef(it_slots[h])) op_fail(c, ERR_INVALID_ARGUMENT, "the dataset iterator is no longer valid");
  return (DsIt *)it_slots[h].u.o;
}

/* The element's leaf metas as outputs first.. (first 1: after _DatasetNext's has_value). */
static void ds_leaf_metas(OpCall *c, int first, const char *opname) {
  Val ds = op_attr(c, 0);
  if (!is_ds(ds)) op_fail(c, ERR_TYPE, "%s needs a dataset", opname);
  Val gl = graph_leaves(self_ds(ds)->spec, val_undef());   /* ragged/sparse leaves: their components */
  int mark = rt_hold_val(gl);
  List *l = (List *)gl.u.o;
  if (l->len > DS_MAX_LEAVES) op_fail(c, ERR_UNIMPLEMENTED, "dataset elements with more than %d tensors cannot be iterated in a graph", DS_MAX_LEAVES);
  for (tfs_i64 i = 0; i < l->len; i++)
    if (!val_is(l->items[i], &tffn_spec_type))
      op_fail(c, ERR_UNIMPLEMENTED, "a dataset whose elements hold a %s cannot be iterated inside a tf.function "
              "(its graph iteration takes tensors, ragged and sparse tensors)",
              val_is(l->items[i], &inst_type) ? ((Inst *)l->items[i].u.o)->klass->name : "composite value");
  int n = (int)l->len;
  op_reserve_outputs(c, n + first);
  for (int i = 0; i < n; i++) {
    TensorSpecObj *o = spec_obj(l->items[i]);
    meta_set(&c->outm[i + first], (DType)o->dtype, o->rank, o->dims);
  }
  rt_unhold(mark);
  val_decref(gl);
}

/* e's graph leaves as the op's outputs from first on (e consumed). */
static void ds_put_leaves(OpCall *c, Val e, int first) {
  int mark = rt_hold_val(e);
  Val gl = graph_leaves(self_ds(op_attr(c, 0))->spec, e);
  rt_hold_val(gl);
  List *l = (List *)gl.u.o;
  if (l->len + first != c->nout)
    op_fail(c, ERR_INVALID_ARGUMENT, "a dataset element has %d tensors, its element_spec %d", (int)l->len, c->nout - first);
  for (tfs_i64 i = 0; i < l->len; i++) {
    Tensor *t = val_as_tensor(l->items[i]);
    if (!t) op_fail(c, ERR_INVALID_ARGUMENT, "a dataset element's component is a %s, not a tensor", val_type_name(l->items[i]));
    c->out[i + first] = tensor_retain(t);
  }
  rt_unhold(mark);
  val_decref(gl);
  val_decref(e);
}

void meta_ds_next(OpCall *c) {
  ds_leaf_metas(c, 1, "_DatasetNext");
  meta_set(&c->outm[0], DT_BOOL, 0, NULL);
}

/* The iterator's next element: an eager iterator fed to the graph goes on as its own next() does (its options, a
 * pending error of a parallel pull), one a run made as the loop's dataset iterator. */
static bool slot_next(DsIt *it, Val *e) { return it->handle ? dsit_next(val_obj(it), e) : ds_next(it, e); }

void k_ds_next(OpCall *c) {
  DsIt *it = slot_iter(c);
  Val e;
  bool has = slot_next(it, &e);
  Tensor *h = tensor_scalar(DT_BOOL);
  *(bool *)tensor_data(h) = has;
  c->out[0] = h;
  if (has) {
    ds_put_leaves(c, e, 1);
    return;
  }
  /* the end: zeros of the element's shapes (unknown dims 0); has_value stops the loop */
  for (int i = 1; i < c->nout; i++) {
    TMeta *m = &c->outm[i];
    tfs_i64 shape[TFS_MAX_RANK];
    for (int k = 0; k < m->rank; k++) shape[k] = m->shape[k] < 0 ? 0 : m->shape[k];
    Tensor *z = tensor_new(m->dtype, m->rank < 0 ? 0 : m->rank, shape);
    if (m->dtype != DT_STRING) memset(tensor_data(z), 0, (size_t)z->size * (size_t)dtype_info[m->dtype].size);
    c->out[i] = z;
  }
}

/* _DatasetGetNext: TF's IteratorGetNext, the element's leaves; the end is an error, as next() on an iterator in a graph. */
void meta_ds_getnext(OpCall *c) { ds_leaf_metas(c, 0, "_DatasetGetNext"); }


void meta_ds_single(OpCall *c) { ds_leaf_metas(c, 0, "_DatasetSingle"); }

/* _DatasetSingle: the only element of the iterator's dataset (TF's DatasetToSingleElement errors otherwise) */
void k_ds_single(OpCall *c) {
  DsIt *it = slot_iter(c);
  Val e, more;
  if (!slot_next(it, &e)) op_fail(c, ERR_INVALID_ARGUMENT, "Dataset was empty.");
  int mark = rt_hold_val(e);
  if (slot_next(it, &more)) {
    val_decref(more);
    op_fail(c, ERR_INVALID_ARGUMENT, "Dataset had more than one element.");
  }
  rt_unhold(mark);
  ds_put_leaves(c, e, 0);
}

void k_ds_getnext(OpCall *c) {
  DsIt *it = slot_iter(c);
  Val e;
  if (!slot_next(it, &e)) op_fail(c, ERR_OUT_OF_RANGE, "End of sequence");
  ds_put_leaves(c, e, 0);
}

static void slot_release(tfs_i64 h) {
  if (h >= 0 && h < it_nslots && !val_is_undef(it_slots[h])) {
    Val v = it_slots[h];
    it_slots[h] = val_undef();
    val_decref(v);
  }
}

void k_ds_release(OpCall *c) { slot_release(tensor_get_i(c->in[0], 0)); }

/* exec_end_hook: a run at `depth` ended (finished or failed), so the iterators it (or a run it started) made are
 * released, as TF deletes a function's anonymous iterators when its run ends (iter(ds) inside a tf.function has
 * no release op; a from_generator iterator would otherwise keep its generator's suspended frames). */
static void ds_run_ended(int depth) {
  for (tfs_i64 h = 0; h < it_nslots; h++)
    if (!val_is_undef(it_slots[h]) && it_depth[h] >= depth) slot_release(h);
  while (rb_n && rb_depth[rb_n - 1] >= depth) {
    Dataset *d = rb_node[--rb_n];
    rb_undo(d);
    val_decref(ds_val(d));
  }
}

/* graphdef.c's view of d (graphdef.h): TF's dataset op for it and its inputs. */
static bool ds_graphdef_info(Val v, GdDataset *o) {
  if (!is_ds(v)) return false;
  Dataset *d = self_ds(v);
  memset(o, 0, sizeof *o);
  Val lv[DS_MAX_LEAVES];
  int n = 0;
  flatten_elem(d->spec, lv, &n, DS_MAX_LEAVES);
  if (n > GD_DS_MAX || n > DS_MAX_LEAVES) return false;
  o->nleaves = n;
  for (int i = 0; i < n; i++) {
    if (!val_is(lv[i], &tffn_spec_type)) return false;   /* ragged/sparse components: no GraphDef form */
    TensorSpecObj *s = spec_obj(lv[i]);
    o->leaf[i].dtype = (DType)s->dtype;
    o->leaf[i].rank = s->rank;
    for (int k = 0; k < s->rank && k < TFS_MAX_RANK; k++) o->leaf[i].shape[k] = s->dims[k];
  }
#define I64(nm, x) (o->c[o->nconst++] = (GdDsConst){.name = nm, .dtype = DT_INT64, .i = (x)})
  if (is_ds(d->src)) o->in[o->nin++] = d->src;
  TffnConcInfo ci;
  switch (d->kind) {
    case DS_SLICES: case DS_TENSORS: {
      o->op = d->kind == DS_SLICES ? "TensorSliceDataset" : "TensorDataset";
      int k = 0;
      flatten_elem(d->src, lv, &k, DS_MAX_LEAVES);
      if (k > GD_DS_MAX || k > DS_MAX_LEAVES) return false;
      for (int i = 0; i < k; i++) {
        Tensor *t = val_as_tensor(lv[i]);
        if (!t || t->sym) return false;
        o->c[o->nconst++] = (GdDsConst){.name = "components", .dtype = DT_VARIANT, .tensor = t};
      }
      return true;
    }
    case DS_RANGE: o->op = "RangeDataset"; I64("start", d->a); I64("stop", d->b); I64("step", d->c); return true;
    case DS_ZIP:
      o->op = "ZipDataset";
      for (tfs_i64 i = 0; i < ((Tuple *)d->src.u.o)->len && o->nin < GD_DS_MAX; i++) o->in[o->nin++] = ((Tuple *)d->src.u.o)->items[i];
      return true;
    case DS_MAP: case DS_PMAP: case DS_FILTER:
      o->op = d->kind == DS_MAP ? "MapDataset" : d->kind == DS_PMAP ? "ParallelMapDatasetV2" : "FilterDataset";
      o->fn_attr = d->kind == DS_FILTER ? "predicate" : "f";
      if (!tffn_conc_info(d->fn, &ci)) return false;
      o->fn = ci.g;
      o->ncap = tffn_conc_ncaptures(d->fn);
      if (d->kind == DS_PMAP) I64("num_parallel_calls", -1);   /* AUTOTUNE (dsparmap.c maps d->a at once) */
      return true;
    case DS_BATCH:
      o->op = "BatchDatasetV2";
      I64("batch_size", d->a);
      o->c[o->nconst++] = (GdDsConst){.name = "drop_remainder", .dtype = DT_BOOL, .i = d->flag};
      return true;
    case DS_SHUFFLE:
      o->op = "ShuffleDataset";
      I64("buffer_size", d->a);
      I64("seed", d->seeded ? d->seed : 0);
      I64("seed2", 0);
      o->flag_attr = "reshuffle_each_iteration";
      o->flag = d->flag;
      return true;
    case DS_TAKE: o->op = "TakeDataset"; I64("count", d->a); return true;
    case DS_SKIP: o->op = "SkipDataset"; I64("count", d->a); return true;
    case DS_SHARD: o->op = "ShardDataset"; I64("num_shards", d->a); I64("index", d->b); return true;
    case DS_REPEAT: o->op = "RepeatDataset"; I64("count", d->a); return true;
    case DS_PREFETCH: o->op = "PrefetchDataset"; I64("buffer_size", d->a); return true;
    case DS_CACHE:
      o->op = "CacheDataset";
      o->c[o->nconst++] = (GdDsConst){.name = "filename", .dtype = DT_STRING, .s = ""};   /* in memory */
      return true;
    case DS_TFRECORD:
    case DS_TEXTLINE: {
      Tuple *f = (Tuple *)d->src.u.o;
      for (tfs_i64 i = 0; i < f->len; i++)
        if (!val_is(f->items[i], &str_type)) return false;
      o->op = d->kind == DS_TEXTLINE ? "TextLineDataset" : "TFRecordDataset";
      o->c[o->nconst++] = (GdDsConst){.name = "filenames", .dtype = DT_STRING, .strs = f->items, .nstrs = (int)f->len};
      o->c[o->nconst++] = (GdDsConst){.name = "compression_type", .dtype = DT_STRING, .s = d->a == 1 ? "GZIP" : d->a == 2 ? "ZLIB" : d->a == 3 ? "SNAPPY" : ""};
      I64("buffer_size", 262144);   /* TF's default read buffer: tfs reads the files whole */
      return true;
    }
    case DS_ARG: return true;   /* op NULL: the fed dataset (an iterator input) */
    default: return false;
  }
#undef I64
}

Val tfdata_unbound(Val ds) { return unbound_copy(self_ds(ds)); }

/* The ops as AutoGraph's dataset loop applies them (recorded while tracing). */
Val tfdata_graph_iter(Val ds) {
  Val keep = unbound_copy(self_ds(ds));
  int kmark = rt_hold_val(keep);
  OpAttrs at = {1, {keep}};
  graphdef_dataset_info = ds_graphdef_info;
  Dataset *args[DS_MAX_ARGS];
  int n = 0;
  arg_nodes(self_ds(ds), args, &n, DS_MAX_ARGS);
  if (n > DS_MAX_ARGS) rt_throw(ERR_UNIMPLEMENTED, "a dataset built on more than %d dataset arguments cannot be iterated in a graph", DS_MAX_ARGS);
  Val in = list_new(n);
  rt_hold_val(in);
  for (int i = 0; i < n; i++) {
    if (!val_is_tensor(args[i]->src))
      rt_throw(ERR_INVALID_ARGUMENT, "a dataset received as a tf.function argument can only be iterated inside that function");
    list_append(in, args[i]->src);
  }
  cap_values(self_ds(ds), in);
  Val r = op_apply(&op_defs[OP_DATASET_ITER], (int)((List *)in.u.o)->len, ((List *)in.u.o)->items, &at);
  rt_unhold(kmark);
  val_decref(in);
  val_decref(keep);
  return r;
}

Val tfdata_graph_next(Val ds, Val handle) {
  Val keep = unbound_copy(self_ds(ds));   /* the graph must not hold a stand-in's traced value */
  int kmark = rt_hold_val(keep);
  OpAttrs at = {1, {keep}};
  Val r = op_apply(&op_defs[OP_DATASET_NEXT], 1, &handle, &at);
  rt_unhold(kmark);
  val_decref(keep);
  if (val_is(r, &list_type)) {
    List *l = (List *)r.u.o;
    Val t = tuple_new(l->len);
    for (tfs_i64 i = 0; i < l->len; i++) ((Tuple *)t.u.o)->items[i] = val_incref(l->items[i]);
    val_decref(r);
    return t;
  }
  return r;
}

void tfdata_graph_release(Val handle) {
  val_decref(op_apply(&op_defs[OP_DATASET_RELEASE], 1, &handle, NULL));
}
