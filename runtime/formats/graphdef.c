/* graphdef.c — convert the graph IR to TensorFlow's GraphDef: NodeDefs with TF op names, inputs "node:k", "^ctrl", typed attrs. */
#include "formats/graphdef.h"
#include "formats/graphimport.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/object.h"
#include "graph/trace.h"
#include "dist/dist.h"

/* TF's GraphDef version of the producer TF 2 releases write. */
#define GD_PRODUCER 1205

typedef struct GdBuild {
  PbArena *a;
  Tensorflow__FunctionDef **fns;
  size_t nfns, cap;
  int seq;                    /* unique suffix for function names */
  /* saving (tf.saved_model.save): every node also carries what importing it
   * back needs (graphimport.c), and Variables are named by their saved keys */
  bool full;
  const char *(*varkey)(void *ctx, const Variable *v);
  void *vctx;
  /* helper nodes a composite export (gd_tf_op) made for the node being
   * converted: they go into the GraphDef just before it */
  Tensorflow__NodeDef **pend;
  size_t npend, cappend;
  bool fn;                    /* converting a function body: refs are "node:output:k" */
  int coll_keys;              /* instance keys given to collectives so far (the same order on every rank) */
  /* gd_tf_op on a stand-in node (a gradient's rerun of a forward op): its first input */
  const char *ovx;
  const TMeta *ovxm;
  /* a differentiated loop's per-iteration stacks (_StackPush/_StackGet/_StackSize)
   * become TensorLists threaded through the loops and conds that use them, as
   * while_v2 threads its gradient accumulators: stk[i] is stack i's object,
   * stkdt its element dtype, cur its current list in the graph being converted
   * (NULL: none yet there) */
  const void **stk;
  DType *stkdt;
  int nstk, capstk;
  const char **cur;
  /* a dataset loop's iterator handle and a dataset argument (int64 handles in
   * tfs's graph) are a resource and a variant in TF's: the placeholders that
   * hold them (a body's, when they are passed into it), with that dtype */
  const GraphNode **resph;
  Tensorflow__DataType *resdt;
  int nresph, capresph;
  bool idret;                 /* the next gd_function_t is a While's cond or body (see gd_identity_returns) */
} GdBuild;

bool (*graphdef_dataset_info)(Val v, GdDataset *out);

typedef struct AttrList {     /* attributes of one node before they become map entries */
  Tensorflow__NodeDef__AttrEntry **e;
  size_t n, cap;
} AttrList;

static Tensorflow__AttrValue *gd_attr(GdBuild *b) {
  Tensorflow__AttrValue *v = pa_alloc(b->a, sizeof *v);
  tensorflow__attr_value__init(v);
  return v;
}

static void gd_attr_add(GdBuild *b, AttrList *l, const char *key, Tensorflow__AttrValue *v) {
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->e[i]->key, key)) {
      l->e[i]->value = v;
      return;
    }
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 8;
    Tensorflow__NodeDef__AttrEntry **e = pa_alloc(b->a, sizeof(void *) * cap);
    if (l->n) memcpy(e, l->e, sizeof(void *) * l->n);
    l->e = e;
    l->cap = cap;
  }
  Tensorflow__NodeDef__AttrEntry *en = pa_alloc(b->a, sizeof *en);
  tensorflow__node_def__attr_entry__init(en);
  en->key = pa_strdup(b->a, key);
  en->value = v;
  l->e[l->n++] = en;
}

static Tensorflow__AttrValue *gd_pbtype(GdBuild *b, Tensorflow__DataType t) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  v->type = t;
  return v;
}

static Tensorflow__AttrValue *gd_bool(GdBuild *b, bool x) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
  v->b = x;
  return v;
}

static Tensorflow__AttrValue *gd_type(GdBuild *b, DType dt) { return gd_pbtype(b, pb_dtype(dt)); }

static Tensorflow__AttrValue *gd_shape(GdBuild *b, int rank, const tfs_i64 *shape) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
  v->shape = pb_shape(b->a, rank, shape);
  return v;
}

static Tensorflow__AttrValue *gd_str(GdBuild *b, const char *s) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  v->s.data = (uint8_t *)pa_strdup(b->a, s);
  v->s.len = strlen(s);
  return v;
}

static Tensorflow__AttrValue *gd_func(GdBuild *b, const char *name) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_FUNC;
  v->func = pa_alloc(b->a, sizeof *v->func);
  tensorflow__name_attr_list__init(v->func);
  v->func->name = pa_strdup(b->a, name);
  return v;
}

/* list(type) of n metas */
static Tensorflow__AttrValue *gd_types(GdBuild *b, int n, const TMeta *const *m) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = pa_alloc(b->a, sizeof *v->list);
  tensorflow__attr_value__list_value__init(v->list);
  v->list->n_type = (size_t)n;
  v->list->type = pa_alloc(b->a, sizeof(Tensorflow__DataType) * (size_t)n);
  for (int i = 0; i < n; i++) v->list->type[i] = pb_dtype(m[i]->dtype);
  return v;
}

/* list(type) of n TF dtypes */
static Tensorflow__AttrValue *gd_pbtypes(GdBuild *b, int n, const Tensorflow__DataType *t) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = pa_alloc(b->a, sizeof *v->list);
  tensorflow__attr_value__list_value__init(v->list);
  v->list->n_type = (size_t)n;
  v->list->type = pa_alloc(b->a, sizeof(Tensorflow__DataType) * (size_t)(n + 1));
  memcpy(v->list->type, t, sizeof(Tensorflow__DataType) * (size_t)n);
  return v;
}

static Tensorflow__AttrValue *gd_list(GdBuild *b) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = pa_alloc(b->a, sizeof *v->list);
  tensorflow__attr_value__list_value__init(v->list);
  return v;
}

static Tensorflow__AttrValue *gd_ints(GdBuild *b, int n, const int *x) {
  Tensorflow__AttrValue *v = gd_list(b);
  v->list->n_i = (size_t)n;
  v->list->i = pa_alloc(b->a, sizeof(int64_t) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) v->list->i[i] = x[i];
  return v;
}

static Tensorflow__AttrValue *gd_int(GdBuild *b, tfs_i64 x) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
  v->i = x;
  return v;
}

/* _output_shapes (TF's attribute) of n metas. */
static Tensorflow__AttrValue *gd_shapes(GdBuild *b, int n, const TMeta *m) {
  Tensorflow__AttrValue *v = gd_list(b);
  v->list->n_shape = (size_t)n;
  v->list->shape = pa_alloc(b->a, sizeof(void *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) v->list->shape[i] = pb_shape(b->a, m[i].rank, m[i].shape);
  return v;
}

/* A list whose items are all str, all dtypes, all bools, all lists of ints (kept as shapes) or all tensors or None
 * (None: a DT_INVALID TensorProto), as the matching AttrValue list (graphimport.c reads them back); NULL: none of those. */
static Tensorflow__AttrValue *gd_typed_list(GdBuild *b, tfs_i64 n, const Val *it) {
  bool strs = true, types = true, bools = true, shapes = true, tensors = true;
  DType dt;
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 k;
    const Val *d;
    strs &= val_is(it[i], &str_type);
    types &= val_is(it[i], &dtype_type) && val_as_dtype(it[i], &dt);
    bools &= it[i].tag == VT_BOOL;
    bool ints = seq_items(it[i], &k, &d) && k <= TFS_MAX_RANK;
    for (tfs_i64 j = 0; ints && j < k; j++) ints = d[j].tag == VT_INT;
    shapes &= ints;
    Tensor *t = val_as_tensor(it[i]);
    tensors &= it[i].tag == VT_NONE || (t && !t->sym && val_is(it[i], &tensor_type));
  }
  if (!(strs || types || bools || shapes || tensors)) return NULL;
  Tensorflow__AttrValue *v = gd_list(b);
  Tensorflow__AttrValue__ListValue *l = v->list;
  size_t m = (size_t)n;
  if (strs) l->n_s = m, l->s = pa_alloc(b->a, sizeof *l->s * m);
  else if (types) l->n_type = m, l->type = pa_alloc(b->a, sizeof *l->type * m);
  else if (bools) l->n_b = m, l->b = pa_alloc(b->a, sizeof *l->b * m);
  else if (shapes) l->n_shape = m, l->shape = pa_alloc(b->a, sizeof *l->shape * m);
  else l->n_tensor = m, l->tensor = pa_alloc(b->a, sizeof *l->tensor * m);
  for (tfs_i64 i = 0; i < n; i++) {
    if (strs) {
      l->s[i].data = (uint8_t *)pa_strdup(b->a, str_cstr(it[i]));
      l->s[i].len = (size_t)str_len(it[i]);
    } else if (types) {
      val_as_dtype(it[i], &dt);
      l->type[i] = pb_dtype(dt);
    } else if (bools) {
      l->b[i] = it[i].u.i != 0;
    } else if (shapes) {
      tfs_i64 k, dims[TFS_MAX_RANK];
      const Val *d;
      seq_items(it[i], &k, &d);
      for (tfs_i64 j = 0; j < k; j++) dims[j] = d[j].u.i;
      l->shape[i] = pb_shape(b->a, (int)k, dims);
    } else if (it[i].tag == VT_NONE) {
      l->tensor[i] = pa_alloc(b->a, sizeof(Tensorflow__TensorProto));
      tensorflow__tensor_proto__init(l->tensor[i]);
    } else {
      l->tensor[i] = pb_const_tensor(b->a, val_as_tensor(it[i]));
    }
  }
  return v;
}

/* A slicing key in a saved graph (StridedSlice's `key`, and the copy _ScatterGrad keeps for its gradient): TF's
 * AttrValue has no form for a slice, an Ellipsis or a traced bound, and a tuple of ints would come back a list,
 * which indexes as a gather.  So the key is written as tfs's own text after TFS_KEY_MARK, which graphimport.c
 * (gi_key) reads back: N None, E Ellipsis, L<k> traced bound k, S(lo,hi,step), T(...) a tuple, [...] a list, an
 * integer in decimal (a constant scalar integer tensor too).  NULL: a part with no such form. */
static const char *gd_key_item(GdBuild *b, Val x) {
  int leaf;
  if (x.tag == VT_NONE) return "N";
  if (x.tag == VT_INT) return pa_printf(b->a, "%lld", (long long)x.u.i);
  if (x.tag != VT_OBJ) return NULL;
  if (nest_is_leaf(x, &leaf)) return pa_printf(b->a, "L%d", leaf);
  if (val_is(x, &ellipsis_type)) return "E";
  if (val_is(x, &slice_type)) {
    const Slice *sl = (const Slice *)x.u.o;
    const char *lo = gd_key_item(b, sl->lo), *hi = gd_key_item(b, sl->hi), *st = gd_key_item(b, sl->step);
    return lo && hi && st ? pa_printf(b->a, "S(%s,%s,%s)", lo, hi, st) : NULL;
  }
  tfs_i64 n;
  const Val *it;
  if ((val_is(x, &tuple_type) || val_is(x, &list_type)) && seq_items(x, &n, &it)) {
    bool tup = val_is(x, &tuple_type);
    const char *acc = tup ? "T(" : "[";
    for (tfs_i64 i = 0; i < n; i++) {
      const char *e = gd_key_item(b, it[i]);
      if (!e) return NULL;
      acc = pa_printf(b->a, "%s%s%s", acc, i ? "," : "", e);
    }
    return pa_printf(b->a, "%s%s", acc, tup ? ")" : "]");
  }
  const Tensor *t = val_as_tensor(x);
  if (t && !t->sym && t->rank == 0 && dtype_info[t->dtype].is_int) return pa_printf(b->a, "%lld", (long long)tensor_get_i(t, 0));
  return NULL;
}

/* Whether attribute i of n is a slicing key written by gd_key_item (a plain int index keeps its int form). */
static bool gd_is_key(const GraphNode *n, int i) {
  Val v = n->attrs.v[i];
  if (v.tag != VT_OBJ) return false;
  if (n->op->id == OP_STRIDED_SLICE) return i == 0;
  return n->op->id == OP_SCATTER_GRAD && (val_is(v, &tuple_type) || val_is(v, &slice_type) || val_is(v, &ellipsis_type));
}

/* An op attribute (a host value) as an AttrValue; NULL when it has no TF form. */
static Tensorflow__AttrValue *gd_host(GdBuild *b, Val x) {
  DType dt;
  Tensorflow__AttrValue *v;
  if (val_is(x, &dtype_type) && val_as_dtype(x, &dt)) return gd_type(b, dt);
  switch (x.tag) {
    case VT_BOOL: return gd_bool(b, x.u.i != 0);
    case VT_INT: return gd_int(b, x.u.i);
    case VT_FLOAT:
      v = gd_attr(b);
      v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
      v->f = (float)x.u.f;
      return v;
    default: break;
  }
  if (val_is(x, &str_type)) return gd_str(b, str_cstr(x));
  if (val_is(x, &list_type) || val_is(x, &tuple_type)) {
    tfs_i64 n = val_is(x, &list_type) ? ((List *)x.u.o)->len : ((Tuple *)x.u.o)->len;
    const Val *it = val_is(x, &list_type) ? ((List *)x.u.o)->items : ((Tuple *)x.u.o)->items;
    bool flt = n > 0 && b->full;   /* float lists: saved graphs only (TensorBoard's GraphDefs stay as they were) */
    for (tfs_i64 i = 0; i < n; i++)
      if (it[i].tag != VT_FLOAT && it[i].tag != VT_INT) flt = false;
    for (tfs_i64 i = 0; i < n && flt; i++) flt = it[i].tag == VT_FLOAT;
    if (flt) {
      v = gd_list(b);
      v->list->n_f = (size_t)n;
      v->list->f = pa_alloc(b->a, sizeof(float) * (size_t)n);
      for (tfs_i64 i = 0; i < n; i++) v->list->f[i] = (float)it[i].u.f;
      return v;
    }
    if (n > 0 && b->full) {   /* saved graphs only: lists of str, dtypes, bools, int lists (as shapes), tensors or None */
      v = gd_typed_list(b, n, it);
      if (v) return v;
    }
    for (tfs_i64 i = 0; i < n; i++)
      if (it[i].tag != VT_INT) return NULL;
    v = gd_attr(b);
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
    v->list = pa_alloc(b->a, sizeof *v->list);
    tensorflow__attr_value__list_value__init(v->list);
    v->list->n_i = (size_t)n;
    v->list->i = pa_alloc(b->a, sizeof(int64_t) * (size_t)(n ? n : 1));
    for (tfs_i64 i = 0; i < n; i++) v->list->i[i] = it[i].u.i;
    return v;
  }
  Tensor *t = val_as_tensor(x);
  if (t && !t->sym) {
    v = gd_attr(b);
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
    v->tensor = pb_const_tensor(b->a, t);
    return v;
  }
  return NULL;
}

/* "node", "node:1" — or, inside a function body, "node:output:1" and bare argument names. */
static char *gd_ref(GdBuild *b, const Graph *g, GraphRef r, bool fn) {
  const GraphNode *n = &g->nodes[r.node];
  if (fn && n->kind == GN_PLACEHOLDER) return pa_strdup(b->a, n->name);
  GdDataset dd;
  if (!b->full && n->kind == GN_OP && n->op->id == OP_DATASET_NEXT && graphdef_dataset_info && n->attrs.n &&
      graphdef_dataset_info(n->attrs.v[0], &dd)) {
    /* TF's form has OptionalHasValue for output 0 and OptionalGetValue (the node) for the elements */
    if (!r.out) return fn ? pa_printf(b->a, "%s/OptionalHasValue:output:0", n->name) : pa_printf(b->a, "%s/OptionalHasValue", n->name);
    r.out--;
  }
  if (fn) return pa_printf(b->a, "%s:output:%d", n->name, r.out);
  return r.out ? pa_printf(b->a, "%s:%d", n->name, r.out) : pa_strdup(b->a, n->name);
}

/* The TF dtype a placeholder was marked with (DT_INVALID: none). */
static Tensorflow__DataType gd_ph_dtype(const GdBuild *b, const GraphNode *p) {
  for (int i = 0; i < b->nresph; i++)
    if (b->resph[i] == p) return b->resdt[i];
  return TENSORFLOW__DATA_TYPE__DT_INVALID;
}

/* The TF dtype of value r: a dataset iterator's handle is a resource, a dataset argument a variant. */
static Tensorflow__DataType gd_pbdt(GdBuild *b, const Graph *g, GraphRef r) {
  const GraphNode *p = &g->nodes[r.node];
  if (!b->full && graphdef_dataset_info) {
    if (p->kind == GN_OP && p->op->id == OP_DATASET_ITER) return TENSORFLOW__DATA_TYPE__DT_RESOURCE;
    if (p->kind == GN_PLACEHOLDER && gd_ph_dtype(b, p) != TENSORFLOW__DATA_TYPE__DT_INVALID) return gd_ph_dtype(b, p);
    if (p->kind == GN_WHILE)   /* a loop variable comes out as it went in */
      for (int i = 0, k = 0; i < p->nin; i++)
        if (p->in[i].node >= 0 && k++ == r.out) return gd_pbdt(b, g, p->in[i]);
  }
  return pb_dtype(graph_meta(g, r)->dtype);
}

static void gd_mark_ph(GdBuild *b, const GraphNode *p, Tensorflow__DataType dt) {
  if (p->kind != GN_PLACEHOLDER || gd_ph_dtype(b, p) != TENSORFLOW__DATA_TYPE__DT_INVALID) return;
  if (b->nresph == b->capresph) {
    int cap = b->capresph ? 2 * b->capresph : 8;
    const GraphNode **v = pa_alloc(b->a, sizeof(void *) * (size_t)cap);
    Tensorflow__DataType *d = pa_alloc(b->a, sizeof(Tensorflow__DataType) * (size_t)cap);
    if (b->nresph) memcpy(v, b->resph, sizeof(void *) * (size_t)b->nresph), memcpy(d, b->resdt, sizeof *d * (size_t)b->nresph);
    b->resph = v;
    b->resdt = d;
    b->capresph = cap;
  }
  b->resdt[b->nresph] = dt;
  b->resph[b->nresph++] = p;
}

/* Marks the placeholders that feed a dataset loop's iterator (dataset arguments) as variants, and those read as
 * iterators (iterator arguments) as resources, in g and its bodies. */
static void gd_mark_datasets(GdBuild *b, const Graph *g) {
  for (int id = 0; id < g->nnodes; id++) {
    const GraphNode *n = &g->nodes[id];
    if (n->kind == GN_COND || n->kind == GN_WHILE)
      for (int s = 0; s < 2; s++)
        if (n->sub[s]) gd_mark_datasets(b, n->sub[s]);
    if (n->kind == GN_OP && n->op->id == OP_DATASET_ITER)
      for (int i = 0; i < n->nin; i++)
        if (n->in[i].node >= 0) gd_mark_ph(b, &g->nodes[n->in[i].node], TENSORFLOW__DATA_TYPE__DT_VARIANT);
    /* an iterator argument (TF's OwnedIterator): its handle is a resource */
    if (n->kind == GN_OP && (n->op->id == OP_DATASET_GETNEXT || n->op->id == OP_DATASET_NEXT) && n->nin > 0 &&
        n->in[0].node >= 0)
      gd_mark_ph(b, &g->nodes[n->in[0].node], TENSORFLOW__DATA_TYPE__DT_RESOURCE);
  }
}

static bool gd_has_effects(const Graph *g) {
  for (int i = 0; i < g->nnodes; i++)
    if ((g->nodes[i].flags & GNF_STATEFUL) || g->nodes[i].kind == GN_VARHANDLE) return true;
  return false;
}

static const char *gd_function(GdBuild *b, const Graph *g, const char *fixed);
static const char *gd_function_t(GdBuild *b, const Graph *g, const char *fixed, const int *th, int nth, bool ret_th,
                                 bool pass);

static const TMeta **om_of(GdBuild *b, const GraphNode *n) {
  const TMeta **om = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(n->nout + 1));
  for (int i = 0; i < n->nout; i++) om[i] = &n->outm[i];
  return om;
}

/* What an op node needs to come back exactly (graphimport.c): which of its
 * inputs the NodeDef lists (_tfs_in: nin, then their positions), its host
 * inputs (_tfs_raw_K), the attributes that are graph values (_tfs_dyn), the
 * ones that are None (_tfs_none) and its output dtypes (_tfs_Tout). */
static void gd_full_op(GdBuild *b, AttrList *at, const Graph *g, const GraphNode *n) {
  int *pos = pa_alloc(b->a, sizeof(int) * (size_t)(n->nin + n->ndyn + 2));
  int k = 0;
  pos[k++] = n->nin;
  for (int i = 0; i < n->nin + n->ndyn; i++)
    if (n->in[i].node >= 0) pos[k++] = i;
  gd_attr_add(b, at, "_tfs_in", gd_ints(b, k, pos));
  for (int i = 0; i < n->nin && n->raw; i++) {
    if (n->in[i].node >= 0 || val_is_undef(n->raw[i])) continue;
    Tensorflow__AttrValue *v = n->raw[i].tag == VT_NONE ? gd_str(b, "") : gd_host(b, n->raw[i]);
    if (n->raw[i].tag == VT_NONE) {
      v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER;   /* our mark for None */
      v->placeholder = "None";
    }
    if (!v)
      rt_throw(ERR_VALUE, "tf.saved_model.save: input %d of op %s in '%s' is a %s, which a saved graph cannot hold", i,
               n->op->graph_name, g->fname ? g->fname : g->name, val_type_name(n->raw[i]));
    gd_attr_add(b, at, pa_printf(b->a, "_tfs_raw_%d", i), v);
  }
  if (n->ndyn) gd_attr_add(b, at, "_tfs_dyn", gd_ints(b, n->ndyn, n->dyn_attr));
  int none[OP_MAX_ATTRS], nn = 0;
  for (int i = 0; i < n->attrs.n; i++)
    if (n->attrs.v[i].tag == VT_NONE) none[nn++] = i;
  if (nn) gd_attr_add(b, at, "_tfs_none", gd_ints(b, nn, none));
  gd_attr_add(b, at, "_tfs_Tout", gd_types(b, n->nout, om_of(b, n)));
}

/* tf.zeros / tf.ones with a static shape: TF's Python writes them as a Const
 * holding the one value and the shape (our table's Zeros/Ones are no TF op). */
static Tensorflow__TensorProto *gd_splat(GdBuild *b, const TMeta *m, double value) {
  Tensor *t = tensor_scalar(m->dtype);
  switch (m->dtype) {
    case DT_FLOAT32: *(float *)tensor_data(t) = (float)value; break;
    case DT_FLOAT64: *(double *)tensor_data(t) = value; break;
    case DT_INT32: *(int32_t *)tensor_data(t) = (int32_t)value; break;
    case DT_INT64: *(int64_t *)tensor_data(t) = (int64_t)value; break;
    case DT_UINT8: *(uint8_t *)tensor_data(t) = (uint8_t)value; break;
    default: *(bool *)tensor_data(t) = value != 0; break;
  }
  Tensorflow__TensorProto *p = pb_const_tensor(b->a, t);
  p->tensor_shape = pb_shape(b->a, m->rank, m->shape);
  Val v = val_obj(t);
  val_decref(v);
  return p;
}

/* TF prints map entries sorted by key */
static void gd_set_attrs(Tensorflow__NodeDef *nd, AttrList *at) {
  for (size_t i = 1; i < at->n; i++)
    for (size_t j = i; j > 0 && strcmp(at->e[j - 1]->key, at->e[j]->key) > 0; j--) {
      Tensorflow__NodeDef__AttrEntry *t = at->e[j];
      at->e[j] = at->e[j - 1];
      at->e[j - 1] = t;
    }
  nd->attr = at->e;
  nd->n_attr = at->n;
}

/* ---- TensorFlow's form of the ops tfs runs as one kernel ----
 * TensorBoard, Netron and TF's tools know only TF's registered ops, and take
 * axes, shapes and perms as int32 tensor inputs, not attributes.  An op with
 * no TF counterpart (tf.eye, tf.norm, gelu, ...) becomes the nodes TF's
 * Python builds for it.  Each converted op is a chain of helper nodes named
 * "<node>/<Op>" (b->pend); the last of them becomes the node itself, so the
 * node keeps its name and what reads it is unchanged. */

static bool gd_pend_taken(GdBuild *b, const char *name) {
  for (size_t i = 0; i < b->npend; i++)
    if (!strcmp(b->pend[i]->name, name)) return true;
  return false;
}

/* Appends nd to the growable node array *v (n used, cap allocated). */
static void gd_push(GdBuild *b, Tensorflow__NodeDef ***v, size_t *n, size_t *cap, Tensorflow__NodeDef *nd) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 16;
    Tensorflow__NodeDef **p = pa_alloc(b->a, sizeof(void *) * c);
    if (*n) memcpy(p, *v, sizeof(void *) * *n);
    *v = p;
    *cap = c;
  }
  (*v)[(*n)++] = nd;
}

/* A helper node "base/label" (made unique) running op on in[0..nin) with the
 * attributes in *at; the reference to its output 0. */
static const char *gd_aux_named(GdBuild *b, const char *base, const char *label, const char *op, AttrList *at, int nin,
                                const char *const *in) {
  Tensorflow__NodeDef *nd = pa_alloc(b->a, sizeof *nd);
  tensorflow__node_def__init(nd);
  char *name = pa_printf(b->a, "%s/%s", base, label);
  for (int k = 1; gd_pend_taken(b, name); k++) name = pa_printf(b->a, "%s/%s_%d", base, label, k);
  nd->name = name;
  nd->op = (char *)op;
  nd->n_input = (size_t)nin;
  nd->input = pa_alloc(b->a, sizeof(char *) * (size_t)(nin + 1));
  for (int i = 0; i < nin; i++) nd->input[i] = (char *)in[i];
  if (at) gd_set_attrs(nd, at);
  gd_push(b, &b->pend, &b->npend, &b->cappend, nd);
  return b->fn ? pa_printf(b->a, "%s:output:0", name) : name;
}

static const char *gd_aux(GdBuild *b, const char *base, const char *op, AttrList *at, int nin, const char *const *in) {
  return gd_aux_named(b, base, op, op, at, nin, in);
}

/* An op of one dtype attribute T (unary and binary math). */
static const char *gd_opT(GdBuild *b, const char *base, const char *op, DType t, const char *x, const char *y) {
  AttrList at = {0};
  gd_attr_add(b, &at, "T", gd_type(b, t));
  const char *in[2] = {x, y};
  return gd_aux(b, base, op, &at, y ? 2 : 1, in);
}

/* A Const named for what it holds, as TF's Python names them. */
static const char *gd_constp(GdBuild *b, const char *base, const char *what, Tensorflow__TensorProto *p) {
  AttrList at = {0};
  gd_attr_add(b, &at, "dtype", gd_pbtype(b, p->dtype));
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
  v->tensor = p;
  gd_attr_add(b, &at, "value", v);
  return gd_aux_named(b, base, what, "Const", &at, 0, NULL);
}

/* A Const of dtype t: a scalar, or `shape` filled with the value. */
static const char *gd_fill(GdBuild *b, const char *base, const char *what, DType t, double value, int rank,
                           const tfs_i64 *shape) {
  TMeta m = {.dtype = t, .rank = rank};
  for (int i = 0; i < rank; i++) m.shape[i] = shape[i];
  return gd_constp(b, base, what, gd_splat(b, &m, value));
}

/* An int32 Const: a vector of n values, or the scalar v[0]. */
static const char *gd_i32(GdBuild *b, const char *base, const char *what, int n, const tfs_i64 *v, bool vector) {
  Tensorflow__TensorProto *p = pa_alloc(b->a, sizeof *p);
  tensorflow__tensor_proto__init(p);
  p->dtype = TENSORFLOW__DATA_TYPE__DT_INT32;
  tfs_i64 dim = n;
  p->tensor_shape = pb_shape(b->a, vector ? 1 : 0, &dim);
  p->n_int_val = (size_t)n;
  p->int_val = pa_alloc(b->a, sizeof(int32_t) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) p->int_val[i] = (int32_t)v[i];
  return gd_constp(b, base, what, p);
}

static const char *gd_strconst(GdBuild *b, const char *base, const char *what, const char *s) {
  Tensorflow__TensorProto *p = pa_alloc(b->a, sizeof *p);
  tensorflow__tensor_proto__init(p);
  p->dtype = TENSORFLOW__DATA_TYPE__DT_STRING;
  p->tensor_shape = pb_shape(b->a, 0, NULL);
  p->n_string_val = 1;
  p->string_val = pa_alloc(b->a, sizeof *p->string_val);
  p->string_val[0].data = (uint8_t *)pa_strdup(b->a, s);
  p->string_val[0].len = strlen(s);
  return gd_constp(b, base, what, p);
}

/* The ints of a host value (int, list or tuple of ints, or a constant tensor of rank <= 1); -1 when it has none. */
static int gd_ints_of(Val v, tfs_i64 *out, int max, bool *vector) {
  int64_t x;
  *vector = false;
  if (val_as_int(v, &x)) {
    out[0] = x;
    return 1;
  }
  *vector = true;
  if (val_is(v, &tshape_type)) {   /* a TensorShape of known rank: its dims, -1 where unknown */
    const TShape *ts = (const TShape *)v.u.o;
    if (ts->rank < 0 || ts->rank > max) return -1;
    for (int i = 0; i < ts->rank; i++) out[i] = ts->dims[i] < 0 ? -1 : ts->dims[i];
    return ts->rank;
  }
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 n = val_is(v, &list_type) ? ((List *)v.u.o)->len : ((Tuple *)v.u.o)->len;
    const Val *it = val_is(v, &list_type) ? ((List *)v.u.o)->items : ((Tuple *)v.u.o)->items;
    if (n > max) return -1;
    for (tfs_i64 i = 0; i < n; i++)
      if (!val_as_int(it[i], &x)) return -1;
      else out[i] = x;
    return (int)n;
  }
  Tensor *t = val_as_tensor(v);
  if (!t || t->sym || t->rank > 1 || t->size > max || (t->dtype != DT_INT32 && t->dtype != DT_INT64)) return -1;
  *vector = t->rank == 1;
  for (tfs_i64 i = 0; i < t->size; i++) out[i] = tensor_get_i(t, i);
  return (int)t->size;
}

/* Attribute i of n as an int32 tensor input: the graph value when the attribute
 * is one, else a Const of its ints (None: `dflt`, n_dflt of them, when given).
 * *tidx: the index dtype for the op's Tidx-like attribute.  NULL: no static form. */
static const char *gd_attr_input(GdBuild *b, const Graph *g, const GraphNode *n, int i, const char *what,
                                 const tfs_i64 *dflt, int n_dflt, bool dflt_vector, Tensorflow__DataType *tidx) {
  *tidx = TENSORFLOW__DATA_TYPE__DT_INT32;
  for (int k = 0; k < n->ndyn; k++)
    if (n->dyn_attr[k] == i) {
      *tidx = pb_dtype(graph_meta(g, n->in[n->nin + k])->dtype);
      return gd_ref(b, g, n->in[n->nin + k], b->fn);
    }
  Val v = i < n->attrs.n ? n->attrs.v[i] : val_none();
  tfs_i64 xs[TFS_MAX_RANK * 4];
  bool vec = dflt_vector;
  int cnt;
  if (v.tag == VT_NONE || val_is_undef(v)) {
    if (n_dflt < 0) return NULL;
    cnt = n_dflt;
    for (int j = 0; j < cnt; j++) xs[j] = dflt[j];
  } else if ((cnt = gd_ints_of(v, xs, TFS_MAX_RANK * 4, &vec)) < 0)
    return NULL;
  return gd_i32(b, n->name, what, cnt, xs, vec);
}

/* A reduction node (Sum, Max, All, ...) with TF's attributes; T is omitted for Any/All. */
static const char *gd_reduce(GdBuild *b, const char *base, const char *op, DType t, const char *x, const char *axes,
                             Tensorflow__DataType tidx, bool keep) {
  AttrList at = {0};
  if (strcmp(op, "Any") && strcmp(op, "All")) gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "Tidx", gd_pbtype(b, tidx));
  gd_attr_add(b, &at, "keep_dims", gd_bool(b, keep));
  const char *in[2] = {x, axes};
  return gd_aux(b, base, op, &at, 2, in);
}

static bool gd_attr_bool(const GraphNode *n, int i) {
  int64_t x;
  return i < n->attrs.n && val_as_int(n->attrs.v[i], &x) && x;
}

/* Attribute i of n as a scalar input of dtype t: its graph value, or a Const of its number (None: dflt). */
static const char *gd_num_input(GdBuild *b, const Graph *g, const GraphNode *n, int i, const char *what, DType t, double dflt) {
  for (int k = 0; k < n->ndyn; k++)
    if (n->dyn_attr[k] == i) return gd_ref(b, g, n->in[n->nin + k], b->fn);
  double v = dflt;
  if (i < n->attrs.n && n->attrs.v[i].tag != VT_NONE && !val_is_undef(n->attrs.v[i]) && !val_as_float(n->attrs.v[i], &v))
    return NULL;
  return gd_fill(b, n->name, what, t, v, 0, NULL);
}

/* ---- loop-gradient stacks as TensorLists ---- */

static bool gd_is_stack_op(const GraphNode *n) {
  return n->kind == GN_OP && n->attrs.n > 0 && n->attrs.v[0].tag == VT_OBJ &&
         (n->op->id == OP_STACK_PUSH || n->op->id == OP_STACK_GET || n->op->id == OP_STACK_SIZE);
}

static int gd_stack_id(const GdBuild *b, const void *s) {
  for (int i = 0; i < b->nstk; i++)
    if (b->stk[i] == s) return i;
  return -1;
}

/* Numbers every stack g and its bodies use, with the dtype pushed (or read). */
static void gd_stack_scan(GdBuild *b, const Graph *g) {
  for (int id = 0; id < g->nnodes; id++) {
    const GraphNode *n = &g->nodes[id];
    for (int k = 0; k < 2; k++)
      if ((n->kind == GN_COND || n->kind == GN_WHILE) && n->sub[k]) gd_stack_scan(b, n->sub[k]);
    if (!gd_is_stack_op(n)) continue;
    int i = gd_stack_id(b, n->attrs.v[0].u.o);
    if (i < 0) {
      if (b->nstk == b->capstk) {
        int cap = b->capstk ? 2 * b->capstk : 8;
        const void **v = pa_alloc(b->a, sizeof(void *) * (size_t)cap);
        DType *d = pa_alloc(b->a, sizeof(DType) * (size_t)cap);
        if (b->nstk) memcpy(v, b->stk, sizeof(void *) * (size_t)b->nstk), memcpy(d, b->stkdt, sizeof(DType) * (size_t)b->nstk);
        b->stk = v;
        b->stkdt = d;
        b->capstk = cap;
      }
      i = b->nstk++;
      b->stk[i] = n->attrs.v[0].u.o;
      b->stkdt[i] = DT_FLOAT32;
    }
    if (n->op->id == OP_STACK_PUSH && n->nin > 0 && n->in[0].node >= 0) b->stkdt[i] = graph_meta(g, n->in[0])->dtype;
    else if (n->op->id == OP_STACK_GET && n->nout) b->stkdt[i] = n->outm[0].dtype;
  }
}

/* Marks in use[] the stacks g or its bodies touch. */
static void gd_stack_uses(const GdBuild *b, const Graph *g, bool *use) {
  if (!g) return;
  for (int id = 0; id < g->nnodes; id++) {
    const GraphNode *n = &g->nodes[id];
    if (n->kind == GN_COND || n->kind == GN_WHILE) gd_stack_uses(b, n->sub[0], use), gd_stack_uses(b, n->sub[1], use);
    int i = gd_is_stack_op(n) ? gd_stack_id(b, n->attrs.v[0].u.o) : -1;
    if (i >= 0) use[i] = true;
  }
}

/* The stacks a cond's or loop's bodies touch: their numbers in th (returned count). */
static int gd_threaded(GdBuild *b, const GraphNode *n, int **th) {
  if (b->full || !b->nstk) return 0;
  bool *use = pa_alloc(b->a, sizeof(bool) * (size_t)b->nstk);
  memset(use, 0, sizeof(bool) * (size_t)b->nstk);
  gd_stack_uses(b, n->sub[0], use);
  gd_stack_uses(b, n->sub[1], use);
  int k = 0;
  *th = pa_alloc(b->a, sizeof(int) * (size_t)b->nstk);
  for (int i = 0; i < b->nstk; i++)
    if (use[i]) (*th)[k++] = i;
  return k;
}

/* Stack i's list where the graph being converted is: an EmptyTensorList (made
 * under `base`) when it has none yet. */
static const char *gd_stack_list(GdBuild *b, const char *base, int i) {
  if (b->cur[i]) return b->cur[i];
  tfs_i64 m1 = -1;
  AttrList at = {0};
  gd_attr_add(b, &at, "element_dtype", gd_type(b, b->stkdt[i]));
  gd_attr_add(b, &at, "shape_type", gd_type(b, DT_INT32));
  const char *in[2] = {gd_i32(b, base, "element_shape", 1, &m1, false), gd_i32(b, base, "max_num_elements", 1, &m1, false)};
  return b->cur[i] = gd_aux_named(b, base, pa_printf(b->a, "accumulator_%d", i), "EmptyTensorList", &at, 2, in);
}

/* A reference to output k of the node named `name` in the graph being converted. */
static const char *gd_out(GdBuild *b, const char *name, int k) {
  if (b->fn) return pa_printf(b->a, "%s:output:%d", name, k);
  return k ? pa_printf(b->a, "%s:%d", name, k) : name;
}

/* _StackPush is TensorListPushBack onto the stack's list (the node's output is
 * the list from then on), _StackGet TensorListGetItem, _StackSize TensorListLength. */
static bool gd_stack_op(GdBuild *b, const Graph *g, const GraphNode *n) {
  int i = gd_is_stack_op(n) ? gd_stack_id(b, n->attrs.v[0].u.o) : -1;
  if (i < 0 || !b->cur || (n->op->id != OP_STACK_SIZE && (n->nin < 1 || n->in[0].node < 0))) return false;
  const char *l = gd_stack_list(b, n->name, i);
  AttrList at = {0};
  switch (n->op->id) {
    case OP_STACK_PUSH: {
      const char *in[2] = {l, gd_ref(b, g, n->in[0], b->fn)};
      gd_attr_add(b, &at, "element_dtype", gd_type(b, b->stkdt[i]));
      gd_aux(b, n->name, "TensorListPushBack", &at, 2, in);
      b->cur[i] = gd_out(b, n->name, 0);   /* the node takes n's name */
      return true;
    }
    case OP_STACK_GET: {
      tfs_i64 m1 = -1;
      const char *in[3] = {l, gd_ref(b, g, n->in[0], b->fn), gd_i32(b, n->name, "element_shape", 1, &m1, false)};
      gd_attr_add(b, &at, "element_dtype", gd_type(b, b->stkdt[i]));
      gd_aux(b, n->name, "TensorListGetItem", &at, 3, in);
      return true;
    }
    default:
      gd_aux(b, n->name, "TensorListLength", NULL, 1, &l);
      return true;
  }
}

static bool gd_tf_op(GdBuild *b, const Graph *g, const GraphNode *n);

/* The name a control input "^name" uses for the helper node made last. */
static const char *gd_last_name(GdBuild *b) { return pa_printf(b->a, "^%s", b->pend[b->npend - 1]->name); }

/* The random-draw counters as TF keeps a generator's state: an int64 resource
 * variable (`tf.random.Generator`'s state), read, and written back where a
 * gradient replays a forward pass's draws.  Returns the read (for _RngSwap:
 * the value before the write). */
static void gd_rng(GdBuild *b, const GraphNode *n, const char *state) {
  const char *base = n->name;
  AttrList ha = {0}, ra = {0};
  gd_attr_add(b, &ha, "container", gd_str(b, ""));
  gd_attr_add(b, &ha, "dtype", gd_type(b, DT_INT64));
  gd_attr_add(b, &ha, "shape", gd_shape(b, n->outm[0].rank, n->outm[0].shape));
  gd_attr_add(b, &ha, "shared_name", gd_str(b, "random_generator_state"));
  const char *h = gd_aux(b, base, "VarHandleOp", &ha, 0, NULL);
  gd_attr_add(b, &ra, "dtype", gd_type(b, DT_INT64));
  const char *rd = gd_aux(b, base, "ReadVariableOp", &ra, 1, &h);
  if (!state) return;
  AttrList aa = {0}, ia = {0};
  gd_attr_add(b, &aa, "dtype", gd_type(b, DT_INT64));
  const char *ain[3] = {h, state, gd_last_name(b)};
  gd_aux(b, base, "AssignVariableOp", &aa, 3, ain);
  gd_attr_add(b, &ia, "T", gd_type(b, DT_INT64));
  const char *iin[2] = {rd, gd_last_name(b)};
  gd_aux(b, base, "Identity", &ia, 2, iin);
}

/* The gradient of a selecting op (StridedSlice, Slice, GatherV2, GatherNd,
 * PadV2) as tfs computes it, in TF's ops: the forward op again on the element
 * numbers of x (Range reshaped to Shape(x)) says where each gradient value
 * goes, and UnsortedSegmentSum adds them up there (a padded element's -1 is
 * dropped, as UnsortedSegmentSum drops negative ids). */
static bool gd_scatter_grad(GdBuild *b, const Graph *g, const GraphNode *n) {
  const char *base = n->name;
  int64_t fop;
  if (n->nin < 2 || n->in[0].node < 0 || n->in[1].node < 0 || !n->attrs.n || !val_as_int(n->attrs.v[0], &fop) ||
      fop < 0 || fop >= OP__COUNT)
    return false;
  const char *x = gd_ref(b, g, n->in[0], b->fn), *dy = gd_ref(b, g, n->in[1], b->fn);
  const TMeta *xm = graph_meta(g, n->in[0]);
  DType t = n->outm[0].dtype;
  AttrList sa = {0}, za = {0}, ga = {0}, ra = {0};
  gd_attr_add(b, &sa, "T", gd_type(b, xm->dtype));
  gd_attr_add(b, &sa, "out_type", gd_type(b, DT_INT32));
  const char *shp = gd_aux(b, base, "Shape", &sa, 1, &x);
  gd_attr_add(b, &za, "T", gd_type(b, xm->dtype));
  gd_attr_add(b, &za, "out_type", gd_type(b, DT_INT32));
  const char *sz = gd_aux(b, base, "Size", &za, 1, &x);
  gd_attr_add(b, &ga, "Tidx", gd_type(b, DT_INT32));
  const char *rin[3] = {gd_fill(b, base, "start", DT_INT32, 0, 0, NULL), sz, gd_fill(b, base, "delta", DT_INT32, 1, 0, NULL)};
  const char *rng = gd_aux(b, base, "Range", &ga, 3, rin);
  gd_attr_add(b, &ra, "T", gd_type(b, DT_INT32));
  gd_attr_add(b, &ra, "Tshape", gd_type(b, DT_INT32));
  const char *iin[2] = {rng, shp};
  const char *idx = gd_aux_named(b, base, "element_ids", "Reshape", &ra, 2, iin);
  /* the forward op on the ids: n's inputs and attributes less the op number */
  GraphNode fk = *n;
  fk.op = &op_defs[fop];
  fk.attrs.n = n->attrs.n - 1;
  for (int i = 0; i < fk.attrs.n; i++) fk.attrs.v[i] = n->attrs.v[i + 1];
  bool has_ix = n->nin > 2 && n->in[2].node >= 0;
  fk.nin = has_ix ? 2 : 1;
  fk.in = pa_alloc(b->a, sizeof(GraphRef) * (size_t)(fk.nin + n->ndyn + 1));
  fk.in[0] = n->in[0];
  if (has_ix) fk.in[1] = n->in[2];
  fk.dyn_attr = pa_alloc(b->a, sizeof(int) * (size_t)(n->ndyn + 1));
  for (int k = 0; k < n->ndyn; k++) {
    fk.in[fk.nin + k] = n->in[n->nin + k];
    fk.dyn_attr[k] = n->dyn_attr[k] - 1;
  }
  fk.raw = NULL;
  fk.nctrl = 0;
  TMeta im = *xm;
  im.dtype = DT_INT32;
  fk.outm = &im;
  fk.nout = 1;
  const char *sel;
  b->ovx = idx;
  b->ovxm = &im;
  bool done = gd_tf_op(b, g, &fk);
  b->ovx = NULL;
  b->ovxm = NULL;
  if (done) {
    sel = b->fn ? pa_printf(b->a, "%s:output:0", b->pend[b->npend - 1]->name) : b->pend[b->npend - 1]->name;
  } else {   /* an op still in tfs's attribute form (see gd_tf_op): its attributes as they are */
    AttrList fa = {0};
    gd_attr_add(b, &fa, "T", gd_type(b, DT_INT32));
    for (int i = 0; i < fk.attrs.n; i++) {
      Tensorflow__AttrValue *v = gd_host(b, fk.attrs.v[i]);
      if (v) gd_attr_add(b, &fa, op_attr_name(fk.op, i), v);
    }
    const char **fin = pa_alloc(b->a, sizeof(char *) * (size_t)(fk.nin + fk.ndyn + 1));
    int k = 0;
    fin[k++] = idx;
    for (int i = 1; i < fk.nin + fk.ndyn; i++) fin[k++] = gd_ref(b, g, fk.in[i], b->fn);
    sel = gd_aux(b, base, fk.op->graph_name, &fa, k, fin);
  }
  tfs_i64 m1 = -1;
  const char *flat = gd_i32(b, base, "flat", 1, &m1, true);
  const char *fs[2] = {sel, flat}, *fd[2] = {dy, flat};
  AttrList f1 = {0}, f2 = {0}, ua = {0}, oa = {0};
  gd_attr_add(b, &f1, "T", gd_type(b, DT_INT32));
  gd_attr_add(b, &f1, "Tshape", gd_type(b, DT_INT32));
  gd_attr_add(b, &f2, "T", gd_type(b, t));
  gd_attr_add(b, &f2, "Tshape", gd_type(b, DT_INT32));
  const char *uin[3] = {gd_aux(b, base, "Reshape", &f2, 2, fd), gd_aux(b, base, "Reshape", &f1, 2, fs), sz};
  gd_attr_add(b, &ua, "T", gd_type(b, t));
  gd_attr_add(b, &ua, "Tindices", gd_type(b, DT_INT32));
  gd_attr_add(b, &ua, "Tnumsegments", gd_type(b, DT_INT32));
  const char *sum = gd_aux(b, base, "UnsortedSegmentSum", &ua, 3, uin);
  gd_attr_add(b, &oa, "T", gd_type(b, t));
  gd_attr_add(b, &oa, "Tshape", gd_type(b, DT_INT32));
  const char *oin[2] = {sum, shp};
  gd_aux(b, base, "Reshape", &oa, 2, oin);
  return true;
}

/* ---- tf.data: a graph's dataset loop as TF's dataset, iterator and optional ops ---- */

/* output_types and output_shapes of an element. */
static void gd_ds_spec(GdBuild *b, AttrList *at, const GdDataset *d, const char *types_key) {
  Tensorflow__AttrValue *sh = gd_shapes(b, d->nleaves, d->leaf);
  const TMeta **m = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(d->nleaves + 1));
  for (int i = 0; i < d->nleaves; i++) m[i] = &d->leaf[i];
  gd_attr_add(b, at, types_key, gd_types(b, d->nleaves, m));
  gd_attr_add(b, at, "output_shapes", sh);
}

/* The dataset v as TF's dataset ops under `base` (its inputs first); a dataset
 * argument is iterator input (*argk)++ of n.  NULL: no TF form. */
/* How many dataset arguments v is built on (the iterator inputs before the captured tensors). */
static int gd_ds_nargs(Val v) {
  GdDataset d;
  if (!graphdef_dataset_info(v, &d)) return 0;
  if (!d.op) return 1;
  int n = 0;
  for (int i = 0; i < d.nin; i++) n += gd_ds_nargs(d.in[i]);
  return n;
}

/* (*capk: the iterator input of the next captured tensor, or -1 when n has none) */
static const char *gd_dataset(GdBuild *b, const Graph *g, const GraphNode *n, Val v, int *argk, int *capk) {
  GdDataset d;
  if (!graphdef_dataset_info(v, &d)) return NULL;
  if (!d.op) {
    int k = (*argk)++;
    return k < n->nin && n->in[k].node >= 0 ? gd_ref(b, g, n->in[k], b->fn) : NULL;
  }
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(d.nin + d.ncap + d.nconst + 1));
  const TMeta **capm = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(d.ncap + 1));
  int k = 0;
  for (int i = 0; i < d.nin; i++)
    if (!(in[k++] = gd_dataset(b, g, n, d.in[i], argk, capk))) return NULL;
  for (int i = 0; i < d.ncap; i++) {   /* other_arguments: the captured tensors, after the input dataset */
    int ck = *capk < 0 ? -1 : (*capk)++;
    if (ck < 0 || ck >= n->nin || n->in[ck].node < 0) return NULL;
    in[k++] = gd_ref(b, g, n->in[ck], b->fn);
    capm[i] = graph_meta(g, n->in[ck]);
  }
  for (int i = 0; i < d.nconst; i++) {
    GdDsConst *c = &d.c[i];
    if (c->tensor) in[k++] = gd_constp(b, n->name, c->name, pb_const_tensor(b->a, c->tensor));
    else if (c->strs) {   /* a vector of strings */
      Tensorflow__TensorProto *p = pa_alloc(b->a, sizeof *p);
      tensorflow__tensor_proto__init(p);
      tfs_i64 len = c->nstrs;
      p->dtype = TENSORFLOW__DATA_TYPE__DT_STRING;
      p->tensor_shape = pb_shape(b->a, 1, &len);
      p->n_string_val = (size_t)c->nstrs;
      p->string_val = pa_alloc(b->a, sizeof *p->string_val * (size_t)(c->nstrs + 1));
      for (int j = 0; j < c->nstrs; j++) {
        p->string_val[j].data = (uint8_t *)pa_strdup(b->a, str_cstr(c->strs[j]));
        p->string_val[j].len = strlen((const char *)p->string_val[j].data);
      }
      in[k++] = gd_constp(b, n->name, c->name, p);
    }
    else if (c->dtype == DT_STRING) in[k++] = gd_strconst(b, n->name, c->name, c->s);
    else in[k++] = gd_fill(b, n->name, c->name, c->dtype, (double)c->i, 0, NULL);
  }
  AttrList at = {0};
  bool comps = !strcmp(d.op, "TensorSliceDataset") || !strcmp(d.op, "TensorDataset");
  if (comps) {   /* Toutput_types: the components' dtypes */
    const TMeta **m = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(d.nconst + 1));
    TMeta *cm = pa_alloc(b->a, sizeof(TMeta) * (size_t)(d.nconst + 1));
    for (int i = 0; i < d.nconst; i++) cm[i].dtype = d.c[i].tensor->dtype, m[i] = &cm[i];
    gd_attr_add(b, &at, "Toutput_types", gd_types(b, d.nconst, m));
    gd_attr_add(b, &at, "output_shapes", gd_shapes(b, d.nleaves, d.leaf));
  } else {
    gd_ds_spec(b, &at, &d, "output_types");
  }
  if (!strcmp(d.op, "ZipDataset")) gd_attr_add(b, &at, "N", gd_int(b, d.nin));
  if (d.fn) {
    gd_attr_add(b, &at, d.fn_attr, gd_func(b, gd_function(b, d.fn, NULL)));
    gd_attr_add(b, &at, "Targuments", gd_types(b, d.ncap, capm));
  }
  if (d.flag_attr) gd_attr_add(b, &at, d.flag_attr, gd_bool(b, d.flag));
  return gd_aux(b, n->name, d.op, &at, k, in);
}

/* _DatasetIterator: the dataset, AnonymousIteratorV3 and MakeIterator; the node
 * is the iterator (an Identity after MakeIterator).  _DatasetNext:
 * IteratorGetNextAsOptional, OptionalHasValue (output 0, see gd_ref) and
 * OptionalGetValue (the node).  _DatasetRelease: a NoOp after the handle (TF's
 * V3 iterator is freed with its last reference).  _DatasetGetNext: IteratorGetNext.  _DatasetSingle:
 * DatasetToSingleElement of the dataset. */
static bool gd_dataset_op(GdBuild *b, const Graph *g, const GraphNode *n) {
  if (!graphdef_dataset_info || (!n->attrs.n && n->op->id != OP_DATASET_RELEASE)) return false;
  const char *base = n->name;
  if (n->op->id == OP_DATASET_RELEASE) {
    if (n->nin < 1 || n->in[0].node < 0) return false;
    const GraphNode *p = &g->nodes[n->in[0].node];
    const char *ctl = p->kind == GN_PLACEHOLDER ? NULL : pa_printf(b->a, "^%s", p->name);
    gd_aux(b, base, "NoOp", NULL, ctl ? 1 : 0, &ctl);
    return true;
  }
  GdDataset d;
  if (!graphdef_dataset_info(n->attrs.v[0], &d)) return false;
  AttrList at = {0};
  gd_ds_spec(b, &at, &d, "output_types");
  if (n->op->id == OP_DATASET_SINGLE) {   /* get_single_element: TF's op reads the dataset itself */
    int argk = 0, capk = -1;
    const char *ds = gd_dataset(b, g, n, n->attrs.v[0], &argk, &capk);
    if (!ds) return false;
    gd_aux(b, base, "DatasetToSingleElement", &at, 1, &ds);
    return true;
  }
  if (n->op->id == OP_DATASET_ITER) {
    int argk = 0, capk = gd_ds_nargs(n->attrs.v[0]);
    const char *ds = gd_dataset(b, g, n, n->attrs.v[0], &argk, &capk);
    if (!ds) return false;
    const char *it = gd_aux(b, base, "AnonymousIteratorV3", &at, 0, NULL);
    const char *min[2] = {ds, it};
    gd_aux(b, base, "MakeIterator", NULL, 2, min);
    AttrList ia = {0};
    gd_attr_add(b, &ia, "T", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_RESOURCE));
    const char *iin[2] = {it, gd_last_name(b)};
    gd_aux(b, base, "Identity", &ia, 2, iin);
    return true;
  }
  if (n->nin < 1 || n->in[0].node < 0) return false;
  const char *h = gd_ref(b, g, n->in[0], b->fn);
  if (n->op->id == OP_DATASET_GETNEXT) {   /* next(it) on an iterator made in the function: the node itself */
    gd_aux(b, base, "IteratorGetNext", &at, 1, &h);
    return true;
  }
  const char *opt = gd_aux(b, base, "IteratorGetNextAsOptional", &at, 1, &h);
  gd_aux(b, base, "OptionalHasValue", NULL, 1, &opt);
  gd_aux(b, base, "OptionalGetValue", &at, 1, &opt);
  return true;
}

/* ---- TF's attribute and input forms of indexing, padding, one_hot, softmax, convolution and pooling ---- */

/* A list of 4 ints (TF's strides/ksize/dilations over NHWC) from an int or a list of 1, 2 or 4 ints; false: none. */
static bool gd_nhwc4(Val v, tfs_i64 dflt, int out[4]) {
  tfs_i64 x[8];
  bool vec;
  int n = v.tag == VT_NONE || val_is_undef(v) ? 0 : gd_ints_of(v, x, 8, &vec);
  out[0] = out[3] = 1;
  if (n == 0 && (v.tag == VT_NONE || val_is_undef(v))) out[1] = out[2] = (int)dflt;
  else if (n == 1) out[1] = out[2] = (int)x[0];
  else if (n == 2) out[1] = (int)x[0], out[2] = (int)x[1];
  else if (n == 4) for (int i = 0; i < 4; i++) out[i] = (int)x[i];
  else return false;
  return true;
}

/* TF's convolution/pooling attributes: strides (and ksize or dilations), padding, data_format. */
static bool gd_window_attrs(GdBuild *b, AttrList *at, const GraphNode *n, int ksize_at, int strides_at, int padding_at,
                            int dilations_at, bool conv) {
  int st[4], ks[4], dl[4];
  if (!gd_nhwc4(n->attrs.v[strides_at], 1, st)) return false;
  if (ksize_at >= 0 && !gd_nhwc4(n->attrs.v[ksize_at], 1, ks)) return false;
  Val pad = padding_at < n->attrs.n ? n->attrs.v[padding_at] : val_none();
  if (!val_is(pad, &str_type)) return false;
  gd_attr_add(b, at, "strides", gd_ints(b, 4, st));
  if (ksize_at >= 0) gd_attr_add(b, at, "ksize", gd_ints(b, 4, ks));
  gd_attr_add(b, at, "padding", gd_str(b, str_cstr(pad)));
  gd_attr_add(b, at, "data_format", gd_str(b, "NHWC"));
  if (conv) {
    if (!gd_nhwc4(dilations_at >= 0 && dilations_at < n->attrs.n ? n->attrs.v[dilations_at] : val_none(), 1, dl)) return false;
    gd_attr_add(b, at, "dilations", gd_ints(b, 4, dl));
    gd_attr_add(b, at, "explicit_paddings", gd_ints(b, 0, NULL));
    gd_attr_add(b, at, "use_cudnn_on_gpu", gd_bool(b, true));
  }
  return true;
}

/* tf.pad's paddings as TF's [rank, 2] integer input (*tp: its dtype). */
static const char *gd_paddings(GdBuild *b, const Graph *g, const GraphNode *n, Tensorflow__DataType *tp) {
  *tp = TENSORFLOW__DATA_TYPE__DT_INT32;
  for (int k = 0; k < n->ndyn; k++)
    if (n->dyn_attr[k] == 0) {
      *tp = pb_dtype(graph_meta(g, n->in[n->nin + k])->dtype);
      return gd_ref(b, g, n->in[n->nin + k], b->fn);
    }
  Val v = n->attrs.v[0];
  Tensor *t = val_as_tensor(v);
  if (t && !t->sym && t->rank == 2 && (t->dtype == DT_INT32 || t->dtype == DT_INT64)) {
    *tp = pb_dtype(t->dtype);
    return gd_constp(b, n->name, "paddings", pb_const_tensor(b->a, t));
  }
  if (!val_is(v, &list_type) && !val_is(v, &tuple_type)) return NULL;
  tfs_i64 len = val_is(v, &list_type) ? ((List *)v.u.o)->len : ((Tuple *)v.u.o)->len;
  const Val *it = val_is(v, &list_type) ? ((List *)v.u.o)->items : ((Tuple *)v.u.o)->items;
  if (len > TFS_MAX_RANK) return NULL;
  tfs_i64 x[2 * TFS_MAX_RANK], shape[2] = {len, 2};
  for (tfs_i64 i = 0; i < len; i++) {
    bool vec;
    if (gd_ints_of(it[i], x + 2 * i, 2, &vec) != 2) return NULL;
  }
  Tensorflow__TensorProto *p = pa_alloc(b->a, sizeof *p);
  tensorflow__tensor_proto__init(p);
  p->dtype = TENSORFLOW__DATA_TYPE__DT_INT32;
  p->tensor_shape = pb_shape(b->a, 2, shape);
  p->n_int_val = (size_t)(2 * len);
  p->int_val = pa_alloc(b->a, sizeof(int32_t) * (size_t)(2 * len + 1));
  for (tfs_i64 i = 0; i < 2 * len; i++) p->int_val[i] = (int32_t)x[i];
  return gd_constp(b, n->name, "paddings", p);
}

/* The attributes of a StridedSlice taking one index of the dims in shrink (shrunk away), whole dims where mask has bits. */
static void gd_ss_attrs(GdBuild *b, AttrList *sa, DType t, int mask, int shrink) {
  gd_attr_add(b, sa, "T", gd_type(b, t));
  gd_attr_add(b, sa, "Index", gd_type(b, DT_INT32));
  gd_attr_add(b, sa, "begin_mask", gd_int(b, mask));
  gd_attr_add(b, sa, "end_mask", gd_int(b, mask));
  gd_attr_add(b, sa, "ellipsis_mask", gd_int(b, 0));
  gd_attr_add(b, sa, "new_axis_mask", gd_int(b, 0));
  gd_attr_add(b, sa, "shrink_axis_mask", gd_int(b, shrink));
}

/* t[key] as TF's StridedSlice: begin/end/strides inputs and the five masks, as
 * TF's Python builds them from the key's items (a traced bound is element k
 * of the `bounds` input, cut out by a StridedSlice of its own). */
static bool gd_strided_slice(GdBuild *b, const Graph *g, const GraphNode *n, const char *x, DType t) {
  const char *base = n->name;
  Val key = n->attrs.n > 0 ? n->attrs.v[0] : val_none();
  const Val *items = &key;
  tfs_i64 nitems = 1;
  if (val_is(key, &tuple_type)) nitems = ((Tuple *)key.u.o)->len, items = ((Tuple *)key.u.o)->items;
  if (nitems > 32) return false;
  const char *bounds = NULL;
  DType bt = DT_INT32;
  for (int k = 0; k < n->ndyn; k++)
    if (n->dyn_attr[k] == 1) {
      bounds = gd_ref(b, g, n->in[n->nin + k], b->fn);
      bt = graph_meta(g, n->in[n->nin + k])->dtype;
    }
  Tensor *hb = bounds || n->attrs.n < 2 ? NULL : val_as_tensor(n->attrs.v[1]);
  if (hb && hb->sym) hb = NULL;
  if (hb) bt = hb->dtype;
  /* each of begin/end/strides: nitems scalars, a number or a bound's reference */
  const char **sv[3];
  tfs_i64 num[3][32];
  bool dyn = false;
  for (int j = 0; j < 3; j++) sv[j] = pa_alloc(b->a, sizeof(char *) * (size_t)(nitems + 1));
  int bm = 0, em = 0, elm = 0, nam = 0, sam = 0;
  for (tfs_i64 k = 0; k < nitems; k++) {
    Val itv[3] = {items[k], val_none(), val_none()};
    int parts = 1;
    num[0][k] = 0, num[1][k] = 0, num[2][k] = 1;
    sv[0][k] = sv[1][k] = sv[2][k] = NULL;
    if (items[k].tag == VT_NONE) { nam |= 1 << k; continue; }
    if (val_is(items[k], &ellipsis_type)) { elm |= 1 << k; continue; }
    bool is_slice = val_is(items[k], &slice_type);
    if (is_slice) {
      Slice *sl = (Slice *)items[k].u.o;
      itv[0] = sl->lo, itv[1] = sl->hi, itv[2] = sl->step;
      parts = 3;
      if (sl->lo.tag == VT_NONE) bm |= 1 << k;
      if (sl->hi.tag == VT_NONE) em |= 1 << k;
    } else {
      sam |= 1 << k;
    }
    for (int j = 0; j < parts; j++) {
      int leaf;
      int64_t iv;
      if (itv[j].tag == VT_NONE) continue;
      if (nest_is_leaf(itv[j], &leaf)) {
        if (hb) {
          if (leaf >= hb->size) return false;
          num[j][k] = tensor_get_i(hb, leaf);
          continue;
        }
        if (!bounds) return false;
        tfs_i64 lb = leaf, le = leaf + 1, one = 1;
        AttrList sa = {0};
        gd_ss_attrs(b, &sa, bt, 0, 1);
        const char *in[4] = {bounds, gd_i32(b, base, "bound_begin", 1, &lb, true), gd_i32(b, base, "bound_end", 1, &le, true),
                             gd_i32(b, base, "bound_strides", 1, &one, true)};
        sv[j][k] = gd_aux_named(b, base, pa_printf(b->a, "bound_%d", leaf), "StridedSlice", &sa, 4, in);
        dyn = true;
        if (!is_slice) {   /* an index: end = begin + 1 */
          sv[1][k] = gd_opT(b, base, "AddV2", bt, sv[j][k], gd_fill(b, base, "one", bt, 1, 0, NULL));
          sv[2][k] = NULL;
        }
        continue;
      }
      if (!val_as_int(itv[j], &iv)) {
        Tensor *it = val_as_tensor(itv[j]);
        if (!it || it->sym || it->rank != 0 || !dtype_info[it->dtype].is_int) return false;
        iv = tensor_get_i(it, 0);
      }
      num[j][k] = iv;
      if (!is_slice) num[1][k] = iv + 1;
    }
  }
  static const char *const what[3] = {"stack", "stack_1", "stack_2"};   /* _slice_helper stack()s them in its scope */
  const char *bes[3];
  for (int j = 0; j < 3; j++) {
    if (!dyn) {
      bes[j] = gd_i32(b, base, what[j], (int)nitems, num[j], true);
      continue;
    }
    for (tfs_i64 k = 0; k < nitems; k++)   /* the numbers among traced bounds: scalars of the bounds' dtype */
      if (!sv[j][k]) sv[j][k] = gd_fill(b, base, pa_printf(b->a, "%s_%d", what[j], (int)k), bt, (double)num[j][k], 0, NULL);
    AttrList pa = {0};
    gd_attr_add(b, &pa, "N", gd_int(b, nitems));
    gd_attr_add(b, &pa, "T", gd_type(b, bt));
    gd_attr_add(b, &pa, "axis", gd_int(b, 0));
    bes[j] = gd_aux_named(b, base, what[j], "Pack", &pa, (int)nitems, sv[j]);
  }
  AttrList at = {0};
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "Index", gd_type(b, dyn ? bt : DT_INT32));
  gd_attr_add(b, &at, "begin_mask", gd_int(b, bm));
  gd_attr_add(b, &at, "end_mask", gd_int(b, em));
  gd_attr_add(b, &at, "ellipsis_mask", gd_int(b, elm));
  gd_attr_add(b, &at, "new_axis_mask", gd_int(b, nam));
  gd_attr_add(b, &at, "shrink_axis_mask", gd_int(b, sam));
  const char *in[4] = {x, bes[0], bes[1], bes[2]};
  gd_aux(b, base, "StridedSlice", &at, 4, in);
  return true;
}

/* Squeeze of x over the axes in axv (None: every size-1 dimension); negative axes count from `rank` when it is >= 0. */
static bool gd_squeeze(GdBuild *b, const char *base, DType t, const char *x, Val axv, int rank) {
  tfs_i64 sq[TFS_MAX_RANK * 4];
  int dims[TFS_MAX_RANK * 4], ns = 0;
  bool vec;
  if (axv.tag != VT_NONE && !val_is_undef(axv) && (ns = gd_ints_of(axv, sq, TFS_MAX_RANK * 4, &vec)) < 0) return false;
  for (int i = 0; i < ns; i++) dims[i] = (int)(sq[i] < 0 && rank >= 0 ? sq[i] + rank : sq[i]);
  AttrList at = {0};
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "squeeze_dims", gd_ints(b, ns, dims));
  gd_aux(b, base, "Squeeze", &at, 1, &x);
  return true;
}

/* TensorListConcatV2's leading_dims when the elements have none: an empty int64 vector. */
static const char *gd_no_leading_dims(GdBuild *b, const char *base) {
  tfs_i64 zero = 0;
  Tensorflow__TensorProto *p = pa_alloc(b->a, sizeof *p);
  tensorflow__tensor_proto__init(p);
  p->dtype = TENSORFLOW__DATA_TYPE__DT_INT64;
  p->tensor_shape = pb_shape(b->a, 1, &zero);
  return gd_constp(b, base, "leading_dims", p);
}

/* ---- the export rule of each op that TF's form needs more than the op's TF name for ----
 * One rule per op (or family of ops), found through gd_rules[] by the op's id:
 * an op whose ops.def graph name is already TF's op, with T and its
 * attributes, needs no entry; one that TF takes differently (arguments as
 * tensor inputs, other attribute names, several TF nodes) gets a rule here.
 * A rule makes TF's nodes for n (helper nodes in b->pend, the last one the
 * node's own form) and returns true, or returns false to leave n to the
 * generic conversion.  x/xm: n's first tensor input and its meta; t: its dtype
 * (the output's when it has none); all: 0..rank-1. */
#define GD_RULE_ARGS                                                                                                  \
  GdBuild *b, const Graph *g, const GraphNode *n, const char *base, const char *x, const TMeta *xm, DType t, int rank, \
      tfs_i64 *all
#define GD_RULE_LOCALS     \
  Tensorflow__DataType tidx; \
  AttrList at = {0};       \
  (void)tidx;              \
  (void)at

static bool gd_r_sum(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || rank < 0) return false;
  const char *axes = gd_attr_input(b, g, n, 0, "reduction_indices", all, rank, true, &tidx);
  if (!axes) return false;
  gd_reduce(b, base, n->op->graph_name, t, x, axes, tidx, gd_attr_bool(n, 1));
  return true;
}

/* TF's reduce_logsumexp: max-shifted, the shift finite and without gradient */
static bool gd_r_logsumexp(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || rank < 0) return false;
  bool keep = gd_attr_bool(n, 1);
  const char *axes = gd_attr_input(b, g, n, 0, "reduction_indices", all, rank, true, &tidx);
  if (!axes) return false;
  const char *mx = gd_reduce(b, base, "Max", t, x, axes, tidx, true);
  const char *fin = gd_opT(b, base, "IsFinite", t, mx, NULL);
  const char *zl = gd_opT(b, base, "ZerosLike", t, mx, NULL);
  const char *sin[3] = {fin, mx, zl};
  gd_attr_add(b, &at, "T", gd_type(b, t));
  const char *sel = gd_aux(b, base, "SelectV2", &at, 3, sin);
  const char *sg = gd_opT(b, base, "StopGradient", t, sel, NULL);
  const char *ex = gd_opT(b, base, "Exp", t, gd_opT(b, base, "Sub", t, x, sg), NULL);
  const char *lg = gd_opT(b, base, "Log", t, gd_reduce(b, base, "Sum", t, ex, axes, tidx, keep), NULL);
  if (!keep) {
    AttrList sa = {0}, ra = {0};
    gd_attr_add(b, &sa, "T", gd_type(b, t));
    gd_attr_add(b, &sa, "out_type", gd_type(b, DT_INT32));
    const char *shp = gd_aux(b, base, "Shape", &sa, 1, &lg);
    gd_attr_add(b, &ra, "T", gd_type(b, t));
    gd_attr_add(b, &ra, "Tshape", gd_type(b, DT_INT32));
    const char *rin[2] = {sg, shp};
    sg = gd_aux(b, base, "Reshape", &ra, 2, rin);
  }
  gd_opT(b, base, "AddV2", t, lg, sg);
  return true;
}

/* TF's vector norm: sqrt(sum(x * x)), sum(|x|), max(|x|) or sum(|x|^p)^(1/p), kept dims squeezed */
/* |x| as TF writes it: Abs, or ComplexAbs (T, Tout) of a complex x */
static const char *gd_abs_of(GdBuild *b, const char *base, DType t, const char *x) {
  if (!dtype_is_complex(t)) return gd_opT(b, base, "Abs", t, x, NULL);
  AttrList at = {0};
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "Tout", gd_type(b, dtype_real_part(t)));
  return gd_aux(b, base, "ComplexAbs", &at, 1, &x);
}

static bool gd_r_norm(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || rank < 0) return false;
  DType rt = dtype_real_part(t);   /* a complex x: abs(x) first (real), or sqrt(sum(x * conj(x))) (complex) */
  double p = 2;
  Val ord = n->attrs.v[0];
  if (ord.tag != VT_NONE && !val_is_undef(ord) && !val_is(ord, &str_type) && !val_as_float(ord, &p)) return false;
  Val axv = n->attrs.n > 1 ? n->attrs.v[1] : val_none();
  bool vec;
  tfs_i64 ma[TFS_MAX_RANK];
  bool matrix = (val_is(axv, &list_type) || val_is(axv, &tuple_type)) && gd_ints_of(axv, ma, TFS_MAX_RANK, &vec) == 2;
  if (matrix && ord.tag != VT_NONE && !val_is_undef(ord) && !val_is(ord, &str_type)) {
    /* TF's matrix norms: ord 1 Max(Sum(|x|, rows), columns), inf Max(Sum(|x|, columns), rows), 2 the largest
     * singular value (Svd of x with the two axes moved last) */
    for (int k = 0; k < 2; k++)
      if (ma[k] < 0) ma[k] += rank;
    const char *ab = gd_abs_of(b, base, t, x), *r;
    if (p == 1 || p > 1e308) {
      tfs_i64 first = p == 1 ? ma[0] : ma[1], second = p == 1 ? ma[1] : ma[0];
      const char *s1 = gd_reduce(b, base, "Sum", rt, ab, gd_i32(b, base, "reduction_indices", 1, &first, true), TENSORFLOW__DATA_TYPE__DT_INT32, true);
      r = gd_reduce(b, base, "Max", rt, s1, gd_i32(b, base, "reduction_indices", 1, &second, true), TENSORFLOW__DATA_TYPE__DT_INT32, true);
      return gd_attr_bool(n, 2) || gd_squeeze(b, base, rt, r, axv, rank);
    }
    if (p != 2 || n->outm[0].rank < 0) return false;
    for (int i = 0; i < n->outm[0].rank; i++)
      if (n->outm[0].shape[i] < 0) return false;
    tfs_i64 perm[TFS_MAX_RANK], m1 = -1;
    int k = 0;
    for (int d = 0; d < rank; d++)
      if (d != ma[0] && d != ma[1]) perm[k++] = d;
    perm[k++] = ma[0], perm[k++] = ma[1];
    AttrList ta = {0}, sa = {0};
    gd_attr_add(b, &ta, "T", gd_type(b, t));
    gd_attr_add(b, &ta, "Tperm", gd_type(b, DT_INT32));
    const char *tin[2] = {x, gd_i32(b, base, "perm", rank, perm, true)};
    const char *xt = gd_aux(b, base, "Transpose", &ta, 2, tin);
    gd_attr_add(b, &sa, "T", gd_type(b, t));
    gd_attr_add(b, &sa, "compute_uv", gd_bool(b, false));
    gd_attr_add(b, &sa, "full_matrices", gd_bool(b, false));
    const char *sv = gd_aux(b, base, "Svd", &sa, 1, &xt);
    if (rt != t) sv = gd_abs_of(b, base, t, sv);   /* TF's abs of the op's complex s */
    r = gd_reduce(b, base, "Max", rt, sv, gd_i32(b, base, "reduction_indices", 1, &m1, true), TENSORFLOW__DATA_TYPE__DT_INT32, false);
    if (gd_attr_bool(n, 2)) {
      AttrList ra = {0};
      gd_attr_add(b, &ra, "T", gd_type(b, rt));
      gd_attr_add(b, &ra, "Tshape", gd_type(b, DT_INT32));
      const char *rin[2] = {r, gd_i32(b, base, "shape", n->outm[0].rank, n->outm[0].shape, true)};
      gd_aux(b, base, "Reshape", &ra, 2, rin);
    }
    return true;
  }
  const char *axes = gd_attr_input(b, g, n, 1, "reduction_indices", all, rank, true, &tidx);
  if (!axes) return false;
  const char *r;
  if (p == 2) {
    const char *xc = rt != t ? gd_opT(b, base, "Conj", t, x, NULL) : x;
    r = gd_opT(b, base, "Sqrt", t, gd_reduce(b, base, "Sum", t, gd_opT(b, base, "Mul", t, x, xc), axes, tidx, true), NULL);
  } else {
    const char *ab = gd_abs_of(b, base, t, x);
    t = rt;
    if (p == 1) r = gd_reduce(b, base, "Sum", t, ab, axes, tidx, true);
    else if (p > 1e308) r = gd_reduce(b, base, "Max", t, ab, axes, tidx, true);
    else {
      const char *pw = gd_opT(b, base, "Pow", t, ab, gd_fill(b, base, "ord", t, p, 0, NULL));
      r = gd_opT(b, base, "Pow", t, gd_reduce(b, base, "Sum", t, pw, axes, tidx, true),
                 gd_fill(b, base, "inv_ord", t, 1 / p, 0, NULL));
    }
  }
  return gd_attr_bool(n, 2) || gd_squeeze(b, base, t, r, n->attrs.v[1], rank);
}

/* tf.linalg.band_part: MatrixBandPart with num_lower/num_upper as index inputs; diag_part: MatrixDiagPartV3 with
 * k (a scalar, or [lo, hi]), padding_value and align */
static bool gd_r_band_part(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  if (n->op->id == OP_DIAG_PART) {
    tfs_i64 k[2] = {0, 0};
    int nk = 1;
    tfs_i64 cnt;
    const Val *items;
    Val kv = n->attrs.n > 0 ? n->attrs.v[0] : val_undef();
    int64_t v0 = 0, v1 = 0;
    if (seq_items(kv, &cnt, &items) && cnt >= 1 && cnt <= 2) {
      if (!val_as_int(items[0], &v0) || !val_as_int(items[cnt - 1], &v1)) return false;
      k[0] = v0, k[1] = v1, nk = 2;
    } else if (!val_is_undef(kv) && kv.tag != VT_NONE) {
      if (!val_as_int(kv, &v0)) return false;
      k[0] = v0;
    }
    const char *pad = gd_num_input(b, g, n, 1, "padding_value", t, 0);
    if (!pad) return false;
    const char *in[3] = {x, gd_i32(b, base, "k", nk, k, nk == 2), pad};
    Val al = n->attrs.n > 2 ? n->attrs.v[2] : val_undef();
    gd_attr_add(b, &at, "align", gd_str(b, val_is(al, &str_type) ? str_cstr(al) : "RIGHT_LEFT"));
    gd_aux(b, base, "MatrixDiagPartV3", &at, 3, in);
    return true;
  }
  Tensorflow__DataType tup;
  const char *lo = gd_attr_input(b, g, n, 0, "num_lower", NULL, -1, false, &tidx);
  const char *up = gd_attr_input(b, g, n, 1, "num_upper", NULL, -1, false, &tup);
  if (!lo || !up || tidx != tup) return false;
  gd_attr_add(b, &at, "Tindex", gd_pbtype(b, tidx));
  const char *in[3] = {x, lo, up};
  gd_aux(b, base, "MatrixBandPart", &at, 3, in);
  return true;
}

/* TF's linalg eye: MatrixDiagV3 of ones, or MatrixSetDiagV3 of ones into zeros when not square */
static bool gd_r_eye(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const TMeta *m = &n->outm[0];
  if (m->rank < 2) return false;
  for (int i = 0; i < m->rank; i++)
    if (m->shape[i] < 0) return false;
  tfs_i64 rows = m->shape[m->rank - 2], cols = m->shape[m->rank - 1], dshape[TFS_MAX_RANK], zero = 0, minus1 = -1;
  for (int i = 0; i < m->rank - 2; i++) dshape[i] = m->shape[i];
  dshape[m->rank - 2] = rows < cols ? rows : cols;
  const char *ones = gd_fill(b, base, "ones", m->dtype, 1, m->rank - 1, dshape);
  gd_attr_add(b, &at, "T", gd_type(b, m->dtype));
  gd_attr_add(b, &at, "align", gd_str(b, "RIGHT_LEFT"));
  if (rows == cols) {
    const char *in[5] = {ones, gd_i32(b, base, "k", 1, &zero, false), gd_i32(b, base, "num_rows", 1, &minus1, false),
                         gd_i32(b, base, "num_cols", 1, &minus1, false),
                         gd_fill(b, base, "padding_value", m->dtype, 0, 0, NULL)};
    gd_aux(b, base, "MatrixDiagV3", &at, 5, in);
  } else {
    const char *in[3] = {gd_fill(b, base, "zeros", m->dtype, 0, m->rank, m->shape), ones,
                         gd_i32(b, base, "k", 1, &zero, false)};
    gd_aux(b, base, "MatrixSetDiagV3", &at, 3, in);
  }
  return true;
}

/* TF's nn.gelu: 0.5x(1 + erf(x / sqrt 2)), or the tanh form */
static bool gd_r_gelu(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  const char *inner;
  if (gd_attr_bool(n, 0)) {
    const char *c = gd_opT(b, base, "Mul", t, gd_fill(b, base, "coeff", t, 0.044715, 0, NULL),
                           gd_opT(b, base, "Pow", t, x, gd_fill(b, base, "three", t, 3, 0, NULL)));
    const char *s = gd_opT(b, base, "Mul", t, gd_fill(b, base, "sqrt_2_over_pi", t, 0.7978845608028654, 0, NULL),
                           gd_opT(b, base, "AddV2", t, x, c));
    inner = gd_opT(b, base, "Tanh", t, s, NULL);
  } else {
    inner = gd_opT(b, base, "Erf", t, gd_opT(b, base, "RealDiv", t, x, gd_fill(b, base, "sqrt_2", t, 1.4142135623730951, 0, NULL)),
                   NULL);
  }
  const char *half = gd_opT(b, base, "Mul", t, gd_fill(b, base, "half", t, 0.5, 0, NULL), x);
  gd_opT(b, base, "Mul", t, half, gd_opT(b, base, "AddV2", t, gd_fill(b, base, "one", t, 1, 0, NULL), inner));
  return true;
}

/* TF's nn.dropout: keep where uniform noise >= rate, scaled by 1 / (1 - rate) */
static bool gd_r_dropout(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || rank < 0) return false;
  const char *rate = NULL;
  double r;
  for (int k = 0; k < n->ndyn; k++)
    if (n->dyn_attr[k] == 0) rate = gd_ref(b, g, n->in[n->nin + k], b->fn);
  if (!rate) {
    if (!val_as_float(n->attrs.v[0], &r)) return false;
    rate = gd_fill(b, base, "rate", t, r, 0, NULL);
  }
  const char *one = gd_fill(b, base, "one", t, 1, 0, NULL);
  const char *xs = gd_opT(b, base, "Mul", t, x, gd_opT(b, base, "RealDiv", t, one, gd_opT(b, base, "Sub", t, one, rate)));
  const char *shape;
  if (n->attrs.v[1].tag == VT_NONE || val_is_undef(n->attrs.v[1])) {
    AttrList sa = {0};
    gd_attr_add(b, &sa, "T", gd_type(b, t));
    gd_attr_add(b, &sa, "out_type", gd_type(b, DT_INT32));
    shape = gd_aux(b, base, "Shape", &sa, 1, &x);
  } else if (!(shape = gd_attr_input(b, g, n, 1, "noise_shape", NULL, -1, true, &tidx)))
    return false;
  int64_t seed = 0;
  if (n->attrs.n > 2) val_as_int(n->attrs.v[2], &seed);
  AttrList ra = {0};
  gd_attr_add(b, &ra, "T", gd_type(b, DT_INT32));
  gd_attr_add(b, &ra, "dtype", gd_type(b, t));
  gd_attr_add(b, &ra, "seed", gd_int(b, seed));
  gd_attr_add(b, &ra, "seed2", gd_int(b, 0));
  const char *noise = gd_aux(b, base, "RandomUniform", &ra, 1, &shape);
  const char *in[3] = {gd_opT(b, base, "GreaterEqual", t, noise, rate), xs, gd_fill(b, base, "zero", t, 0, 0, NULL)};
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_aux(b, base, "SelectV2", &at, 3, in);
  return true;
}

static bool gd_r_assert_equal(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  /* TF's debugging asserts: Assert(All(x OP y), data) */
  OpId id = n->op->id;
  bool unary = id == OP_ASSERT_NON_NEGATIVE || id == OP_ASSERT_POSITIVE || id == OP_ASSERT_NON_POSITIVE ||
               id == OP_ASSERT_NEGATIVE;
  const char *y = NULL;
  const TMeta *ym = NULL;
  if (!x) return false;
  if (!unary) {
    if (n->nin < 2 || n->in[1].node < 0) return false;
    y = gd_ref(b, g, n->in[1], b->fn);
    ym = graph_meta(g, n->in[1]);
    if (ym->rank < 0) return false;
    if (ym->rank > rank) {
      rank = ym->rank;
      for (int i = 0; i < rank; i++) all[i] = i;
    }
  }
  if (rank < 0) return false;
  /* by op id from ASSERT_EQUAL (ops.def keeps the asserts together in this order) */
  static const char *const cmp[] = {"Equal", "Greater", "GreaterEqual", "Less", "LessEqual", "LessEqual", "Less",
                                    "LessEqual", "Less", "NotEqual"};
  static const char *const says[] = {"x == y", "x > y", "x >= y", "x < y", "x <= y", "x >= 0", "x > 0",
                                     "x <= 0", "x < 0", "x != y"};
  int k = id - OP_ASSERT_EQUAL;
  const char *l = x, *rr = y;
  if (unary) {   /* 0 <= x, 0 < x; x <= 0, x < 0 */
    const char *zero = gd_fill(b, base, "zero", t, 0, 0, NULL);
    bool zero_left = id == OP_ASSERT_NON_NEGATIVE || id == OP_ASSERT_POSITIVE;
    l = zero_left ? zero : x;
    rr = zero_left ? x : zero;
  }
  AttrList ca = {0};
  gd_attr_add(b, &ca, "T", gd_type(b, t));
  if (id == OP_ASSERT_EQUAL || id == OP_ASSERT_NONE_EQUAL) gd_attr_add(b, &ca, "incompatible_shape_error", gd_bool(b, true));
  const char *cin[2] = {l, rr};
  const char *cond = gd_aux(b, base, cmp[k], &ca, 2, cin);
  const char *ok = gd_reduce(b, base, "All", DT_BOOL, cond, gd_i32(b, base, "Const", rank, all, true),
                             TENSORFLOW__DATA_TYPE__DT_INT32, false);
  const char *in[5];
  const TMeta *dm[4];
  static const TMeta str = {.dtype = DT_STRING};
  int nin = 0, nd = 0;
  in[nin++] = ok;
  int ma = id == OP_ASSERT_NONE_EQUAL ? 1 : 0;   /* its v2 signature takes summarize before message */
  if (n->attrs.n > ma && val_is(n->attrs.v[ma], &str_type)) {
    in[nin++] = gd_strconst(b, base, "message", str_cstr(n->attrs.v[ma]));
    dm[nd++] = &str;
  }
  in[nin++] = gd_strconst(b, base, "condition", pa_printf(b->a, "Condition %s did not hold element-wise:", says[k]));
  dm[nd++] = &str;
  in[nin++] = x;
  dm[nd++] = xm;
  if (y) in[nin++] = y, dm[nd++] = ym;
  int64_t summarize = 3;
  if (n->attrs.n > 1 - ma) val_as_int(n->attrs.v[1 - ma], &summarize);
  gd_attr_add(b, &at, "T", gd_types(b, nd, dm));
  gd_attr_add(b, &at, "summarize", gd_int(b, summarize));
  gd_aux(b, base, "Assert", &at, nin, in);
  return true;
}

/* tfs's TfsAssert (data[0] the condition) is TF's Assert(condition, data, summarize); host strings and ints among the
 * data become constants, as TF converts them */
static bool gd_r_tfs_assert(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  (void)x, (void)xm, (void)t, (void)rank, (void)all;
  if (n->nin < 1) return false;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + 1));
  const TMeta **dm = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(n->nin + 1));
  static const TMeta str = {.dtype = DT_STRING}, i32 = {.dtype = DT_INT32};
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node >= 0) {
      in[i] = gd_ref(b, g, n->in[i], b->fn);
      dm[i] = graph_meta(g, n->in[i]);
      continue;
    }
    Val v = n->raw ? n->raw[i] : val_undef();
    int64_t k;
    if (val_is(v, &str_type)) {
      in[i] = gd_strconst(b, base, "Const", str_cstr(v));
      dm[i] = &str;
    } else if (v.tag == VT_INT && val_as_int(v, &k)) {
      tfs_i64 kv = k;
      in[i] = gd_i32(b, base, "Const", 1, &kv, false);
      dm[i] = &i32;
    } else {
      return false;
    }
  }
  if (dm[0]->dtype != DT_BOOL) return false;
  int64_t summarize = 3;
  if (n->attrs.n > 0) val_as_int(n->attrs.v[0], &summarize);
  gd_attr_add(b, &at, "T", gd_types(b, n->nin - 1, dm + 1));
  gd_attr_add(b, &at, "summarize", gd_int(b, summarize));
  gd_aux(b, base, "Assert", &at, n->nin, in);
  return true;
}

/* TF's debugging.assert_all_finite is CheckNumerics */
static bool gd_r_assert_finite(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || !val_is(n->attrs.v[0], &str_type)) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "message", gd_str(b, str_cstr(n->attrs.v[0])));
  gd_aux(b, base, "CheckNumerics", &at, 1, &x);
  return true;
}

/* TF's math.logical_xor: (x or y) and not (x and y) */
static bool gd_r_logical_xor(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 2 || n->in[1].node < 0) return false;
  const char *in[2] = {x, gd_ref(b, g, n->in[1], b->fn)};
  const char *both = gd_aux(b, base, "LogicalAnd", NULL, 2, in);
  const char *either = gd_aux(b, base, "LogicalOr", NULL, 2, in);
  const char *fin[2] = {either, gd_aux(b, base, "LogicalNot", NULL, 1, &both)};
  gd_aux(b, base, "LogicalAnd", NULL, 2, fin);
  return true;
}

static bool gd_r_random_uniform(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  /* TF's random ops draw the standard distribution from an int32 shape, then scale and shift it;
   * integer uniforms are RandomUniformInt over [minval, maxval) */
  DType dt = n->outm[0].dtype;
  const char *shape = gd_attr_input(b, g, n, 0, "shape", NULL, -1, true, &tidx);
  bool uni = n->op->id == OP_RANDOM_UNIFORM, isint = dt == DT_INT32 || dt == DT_INT64;
  const char *lo = gd_num_input(b, g, n, 1, uni ? "min" : "mean", dt, 0);
  const char *hi = gd_num_input(b, g, n, 2, uni ? "max" : "stddev", dt, 1);
  if (!shape || !lo || !hi) return false;
  int64_t seed = 0;
  if (n->attrs.n > 4) val_as_int(n->attrs.v[4], &seed);
  gd_attr_add(b, &at, "T", gd_pbtype(b, tidx));
  gd_attr_add(b, &at, "seed", gd_int(b, seed));
  gd_attr_add(b, &at, "seed2", gd_int(b, 0));
  if (isint) {
    gd_attr_add(b, &at, "Tout", gd_type(b, dt));
    const char *in[3] = {shape, lo, hi};
    gd_aux(b, base, "RandomUniformInt", &at, 3, in);
    return true;
  }
  gd_attr_add(b, &at, "dtype", gd_type(b, dt));
  const char *rnd = gd_aux(b, base, uni ? "RandomUniform" : n->op->graph_name, &at, 1, &shape);
  if (uni) gd_opT(b, base, "AddV2", dt, gd_opT(b, base, "Mul", dt, rnd, gd_opT(b, base, "Sub", dt, hi, lo)), lo);
  else gd_opT(b, base, "AddV2", dt, gd_opT(b, base, "Mul", dt, rnd, hi), lo);
  return true;
}

static bool gd_r_read_variable(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  /* resource ops name the variable's dtype `dtype` */
  bool rd = n->op->id == OP_READ_VARIABLE;
  if (!x || (!rd && n->nin < 2)) return false;
  const char *in[2] = {x, NULL};
  DType vt = rd ? n->outm[0].dtype : DT_FLOAT32;
  if (!rd && n->in[1].node >= 0) {
    in[1] = gd_ref(b, g, n->in[1], b->fn);
    vt = graph_meta(g, n->in[1])->dtype;
  } else if (!rd) {   /* a Python number assigned: a Const of the variable's dtype */
    const GraphNode *h = &g->nodes[n->in[0].node];
    double v;
    if (h->kind != GN_VARHANDLE || !n->raw || !val_as_float(n->raw[1], &v)) return false;
    vt = h->var->value->dtype;
    in[1] = gd_fill(b, base, "value", vt, v, 0, NULL);
  }
  gd_attr_add(b, &at, "dtype", gd_type(b, vt));
  gd_aux(b, base, n->op->graph_name, &at, rd ? 1 : 2, in);
  return true;
}

static bool gd_r_add_n(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + 1));
  int k = 0;
  for (int i = 0; i < n->nin; i++)
    if (n->in[i].node >= 0) in[k++] = gd_ref(b, g, n->in[i], b->fn);
  if (!k || k != n->nin) return false;
  gd_attr_add(b, &at, "N", gd_int(b, k));
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_aux(b, base, "AddN", &at, k, in);
  return true;
}

static bool gd_r_squeeze(GD_RULE_ARGS) {
  return x && !n->ndyn && gd_squeeze(b, base, t, x, n->attrs.v[0], -1);
}

/* StringJoin(inputs: N strings) with N and separator */
static bool gd_r_string_join(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + 1));
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node < 0) return false;
    in[i] = gd_ref(b, g, n->in[i], b->fn);
  }
  gd_attr_add(b, &at, "N", gd_int(b, n->nin));
  Val sep = n->attrs.n > 0 ? n->attrs.v[0] : val_undef();
  gd_attr_add(b, &at, "separator", gd_str(b, val_is(sep, &str_type) ? str_cstr(sep) : ""));
  gd_aux(b, base, "StringJoin", &at, n->nin, in);
  return true;
}

/* Substr(input, pos, len) with T (pos's dtype) and unit */
static bool gd_r_substr(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 3 || n->in[1].node < 0 || n->in[2].node < 0) return false;
  const TMeta *pm = graph_meta(g, n->in[1]);
  if (pm->dtype != graph_meta(g, n->in[2])->dtype) return false;   /* TF's one T for both */
  const char *in[3] = {x, gd_ref(b, g, n->in[1], b->fn), gd_ref(b, g, n->in[2], b->fn)};
  Val u = n->attrs.n > 0 ? n->attrs.v[0] : val_undef();
  gd_attr_add(b, &at, "T", gd_type(b, pm->dtype));
  gd_attr_add(b, &at, "unit", gd_str(b, val_is(u, &str_type) ? str_cstr(u) : "BYTE"));
  gd_aux(b, base, "Substr", &at, 3, in);
  return true;
}

/* The string ops with several inputs (StringSplitV2, StringSplit, RegexReplace, UnicodeEncode, StringFormat,
 * UnsortedSegmentJoin): every tensor input, the attributes under their names, and the type attributes TF infers from
 * the inputs (StringFormat's T list, UnicodeEncode's Tsplits, UnsortedSegmentJoin's Tindices and Tnumsegments) */
static bool gd_r_string_ops(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + 1));
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node < 0) return false;
    in[i] = gd_ref(b, g, n->in[i], b->fn);
  }
  int nat = op_num_attrs(n->op);
  for (int i = 0; i < nat && i < n->attrs.n; i++) {
    const char *name = op_attr_name(n->op, i);
    Val v = n->attrs.v[i];
    if (!strcmp(name, "name") || v.tag == VT_NONE || val_is_undef(v)) continue;
    Tensorflow__AttrValue *av = gd_host(b, v);
    if (av) gd_attr_add(b, &at, name, av);
  }
  if (n->op->id == OP_STRING_FORMAT) {
    Tensorflow__DataType *ts = pa_alloc(b->a, sizeof(Tensorflow__DataType) * (size_t)(n->nin + 1));
    for (int i = 0; i < n->nin; i++) ts[i] = pb_dtype(graph_meta(g, n->in[i])->dtype);
    gd_attr_add(b, &at, "T", gd_pbtypes(b, n->nin, ts));
  }
  if (n->op->id == OP_UNICODE_ENCODE) gd_attr_add(b, &at, "Tsplits", gd_type(b, graph_meta(g, n->in[1])->dtype));
  if (n->op->id == OP_UNSORTED_SEGMENT_JOIN) {
    gd_attr_add(b, &at, "Tindices", gd_type(b, graph_meta(g, n->in[1])->dtype));
    gd_attr_add(b, &at, "Tnumsegments", gd_type(b, graph_meta(g, n->in[2])->dtype));
  }
  gd_aux(b, base, n->op->graph_name, &at, n->nin, in);
  return true;
}

/* ReduceJoin(inputs, reduction_indices: int32) with keep_dims and separator */
static bool gd_r_reduce_join(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || rank < 0) return false;
  const char *axes = gd_attr_input(b, g, n, 0, "reduction_indices", all, rank, true, &tidx);
  if (!axes || tidx != TENSORFLOW__DATA_TYPE__DT_INT32) return false;
  const char *in[2] = {x, axes};
  Val sep = n->attrs.n > 2 ? n->attrs.v[2] : val_undef();
  gd_attr_add(b, &at, "keep_dims", gd_bool(b, gd_attr_bool(n, 1)));
  gd_attr_add(b, &at, "separator", gd_str(b, val_is(sep, &str_type) ? str_cstr(sep) : ""));
  gd_aux(b, base, "ReduceJoin", &at, 2, in);
  return true;
}

/* N tensors; ConcatV2's axis is an int32 input, Pack's an attribute */
static bool gd_r_concat(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + 2));
  for (int i = 0; i < n->nin; i++)
    if (n->in[i].node < 0) return false;
    else in[i] = gd_ref(b, g, n->in[i], b->fn);
  if (!n->nin) return false;
  gd_attr_add(b, &at, "N", gd_int(b, n->nin));
  gd_attr_add(b, &at, "T", gd_type(b, t));
  if (n->op->id == OP_STACK) {
    int64_t axis = 0;
    if (n->attrs.n > 0 && n->attrs.v[0].tag != VT_NONE && !val_as_int(n->attrs.v[0], &axis)) return false;
    gd_attr_add(b, &at, "axis", gd_int(b, axis));
    gd_aux(b, base, "Pack", &at, n->nin, in);
    return true;
  }
  if (!(in[n->nin] = gd_attr_input(b, g, n, 0, "axis", NULL, -1, false, &tidx))) return false;
  gd_attr_add(b, &at, "Tidx", gd_pbtype(b, tidx));
  gd_aux(b, base, "ConcatV2", &at, n->nin + 1, in);
  return true;
}

static bool gd_r_unstack(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int64_t axis = 0;
  if (!x || (n->attrs.n > 1 && n->attrs.v[1].tag != VT_NONE && !val_as_int(n->attrs.v[1], &axis))) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "num", gd_int(b, n->nout));
  gd_attr_add(b, &at, "axis", gd_int(b, axis));
  gd_aux(b, base, "Unpack", &at, 1, &x);
  return true;
}

/* MatMul(a, b) of float32, either side transposed */
static const char *gd_matmul_t(GdBuild *b, const char *base, const char *x, const char *y, bool ta, bool tb) {
  AttrList ma = {0};
  gd_attr_add(b, &ma, "T", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &ma, "transpose_a", gd_bool(b, ta));
  gd_attr_add(b, &ma, "transpose_b", gd_bool(b, tb));
  const char *mi[2] = {x, y};
  return gd_aux(b, base, "MatMul", &ma, 2, mi);
}
static const char *gd_matmul(GdBuild *b, const char *base, const char *x, const char *y) {
  return gd_matmul_t(b, base, x, y, false, false);
}

/* Pack(parts) of float32 along axis */
static const char *gd_pack(GdBuild *b, const char *base, int num, const char *const *parts, int axis) {
  AttrList ka = {0};
  gd_attr_add(b, &ka, "N", gd_int(b, num));
  gd_attr_add(b, &ka, "T", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &ka, "axis", gd_int(b, axis));
  return gd_aux(b, base, "Pack", &ka, num, parts);
}

/* ConcatV2(parts, axis) of dtype dt named base/label; axis is an int32 Const node */
static const char *gd_concat_as(GdBuild *b, const char *base, const char *label, DType dt, int num,
                                const char *const *parts, const char *axis) {
  AttrList ca = {0};
  gd_attr_add(b, &ca, "N", gd_int(b, num));
  gd_attr_add(b, &ca, "T", gd_type(b, dt));
  gd_attr_add(b, &ca, "Tidx", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(num + 1));
  memcpy(in, parts, sizeof(char *) * (size_t)num);
  in[num] = axis;
  return gd_aux_named(b, base, label, "ConcatV2", &ca, num + 1, in);
}

/* ConcatV2(parts, axis) of float32 */
static const char *gd_concat(GdBuild *b, const char *base, int num, const char *const *parts, const char *axis) {
  return gd_concat_as(b, base, "ConcatV2", DT_FLOAT32, num, parts, axis);
}

/* Split(axis, x) in num float32 parts: the node's name, whose outputs gd_out names */
static const char *gd_split(GdBuild *b, const char *base, const char *axis, const char *x, int num) {
  AttrList pa = {0};
  gd_attr_add(b, &pa, "T", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &pa, "num_split", gd_int(b, num));
  const char *spi[2] = {axis, x};
  gd_aux(b, base, "Split", &pa, 2, spi);
  return b->pend[b->npend - 1]->name;
}

/* Step t of a [T, B, F] (ax 0, time-major) or [B, T, F] (ax 1) sequence of dtype dt: StridedSlice [t:t+1] on that
 * axis, shrunk */
static const char *gd_step_dt(GdBuild *b, const char *base, const char *x, const char *strides, tfs_i64 t, int ax, DType dt) {
  tfs_i64 lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  lo[ax] = t, hi[ax] = t + 1;
  AttrList sa = {0};
  gd_ss_attrs(b, &sa, dt, 7 & ~(1 << ax), 1 << ax);
  const char *si[4] = {x, gd_i32(b, base, "begin", 3, lo, true), gd_i32(b, base, "end", 3, hi, true), strides};
  return gd_aux(b, base, "StridedSlice", &sa, 4, si);
}
static const char *gd_step_on(GdBuild *b, const char *base, const char *x, const char *strides, tfs_i64 t, int ax) {
  return gd_step_dt(b, base, x, strides, t, ax, DT_FLOAT32);
}
static const char *gd_step(GdBuild *b, const char *base, const char *x, const char *strides, tfs_i64 t) {
  return gd_step_on(b, base, x, strides, t, 0);
}

/* IdentityN of num float32 tensors: a fused op's several outputs as one node */
static void gd_identity_n(GdBuild *b, const char *base, int num, const char *const *in) {
  AttrList ia = {0};
  Tensorflow__DataType *ts = pa_alloc(b->a, sizeof(Tensorflow__DataType) * (size_t)num);
  for (int k = 0; k < num; k++) ts[k] = TENSORFLOW__DATA_TYPE__DT_FLOAT;
  gd_attr_add(b, &ia, "T", gd_pbtypes(b, num, ts));
  gd_aux(b, base, "IdentityN", &ia, num, in);
}

/* A GRU's recurrent kernel [H, 3H] without reset_after as its two blocks: U[:, :2H] (z, r) and U[:, 2H:] (h) */
static void gd_gru_split_u(GdBuild *b, const char *base, const char *u, tfs_i64 H, const char **uzr, const char **uh) {
  tfs_i64 lo2[2] = {0, 0}, s1[2] = {-1, 2 * H}, b2[2] = {0, 2 * H}, s2[2] = {-1, H};
  AttrList la = {0}, lb = {0};
  gd_attr_add(b, &la, "T", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &la, "Index", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  const char *ai[3] = {u, gd_i32(b, base, "begin", 2, lo2, true), gd_i32(b, base, "size", 2, s1, true)};
  *uzr = gd_aux(b, base, "Slice", &la, 3, ai);
  gd_attr_add(b, &lb, "T", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &lb, "Index", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  const char *bi[3] = {u, gd_i32(b, base, "begin", 2, b2, true), gd_i32(b, base, "size", 2, s2, true)};
  *uh = gd_aux(b, base, "Slice", &lb, 3, bi);
}

/* A fused recurrent op's outputs: IdentityN(hs, h[, c], [cs,] act) with hs Pack'ed in step order; saved (training,
 * save=True) the cells [T, B, H] (LSTM) and activations [T, B, acts*H] Pack'ed from each step's (cl, al), else
 * as 0-step empty slices of h ([0, B, H], [0, B, acts*H]). */
static void gd_rnn_outputs(GdBuild *b, const char *base, tfs_i64 T, const char **hs, const char *h, const char *c, int acts,
                           const char **cl, const char **al) {
  AttrList ea = {0}, la = {0}, ta = {0};
  tfs_i64 zero = 0;
  const char *seq = gd_pack(b, base, (int)T, hs, 1), *cs, *act;
  if (al) {
    cs = c ? gd_pack(b, base, (int)T, cl, 0) : NULL;
    act = gd_pack(b, base, (int)T, al, 0);
  } else {
    gd_attr_add(b, &ea, "T", gd_type(b, DT_FLOAT32));
    gd_attr_add(b, &ea, "Tdim", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
    const char *ei[2] = {h, gd_i32(b, base, "dim", 1, &zero, false)};
    tfs_i64 z3[3] = {0, 0, 0}, sz[3] = {0, -1, -1}, rep[3] = {1, 1, acts};
    gd_attr_add(b, &la, "T", gd_type(b, DT_FLOAT32));
    gd_attr_add(b, &la, "Index", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
    const char *li[3] = {gd_aux(b, base, "ExpandDims", &ea, 2, ei), gd_i32(b, base, "begin", 3, z3, true), gd_i32(b, base, "size", 3, sz, true)};
    cs = gd_aux(b, base, "Slice", &la, 3, li);
    gd_attr_add(b, &ta, "T", gd_type(b, DT_FLOAT32));
    gd_attr_add(b, &ta, "Tmultiples", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
    const char *ti[2] = {cs, gd_i32(b, base, "multiples", 3, rep, true)};
    act = gd_aux(b, base, "Tile", &ta, 2, ti);
  }
  const char *lstm[5] = {seq, h, c, cs, act}, *gru[3] = {seq, h, act};
  gd_identity_n(b, base, c ? 5 : 3, c ? lstm : gru);
}

/* input i of a fused recurrent op node, NULL when absent (an optional mask, bias or gradient left out) */
static const char *gd_rnn_in(GdBuild *b, const Graph *g, const GraphNode *n, int i) {
  return i < n->nin && n->in[i].node >= 0 ? gd_ref(b, g, n->in[i], b->fn) : NULL;
}

/* A masked recurrent op's steps, as Keras 2.15's backend.rnn runs a mask: the mask [T, B] once as bool [T, B, 1]
 * (Cast of ExpandDims: nonzero is a step that runs), whose step slices [B, 1] choose per batch row in SelectV2
 * between a step's new value and the one kept. */
typedef struct {
  const char *m3, *strides, *m;   /* m: the current step's condition */
} GdMask;

static void gd_mask_init(GdBuild *b, const char *base, GdMask *mk, const char *mask, const char *strides) {
  mk->m3 = mk->m = NULL, mk->strides = strides;
  if (!mask) return;
  AttrList ea = {0}, ca = {0};
  tfs_i64 last = -1;
  gd_attr_add(b, &ea, "T", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &ea, "Tdim", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  const char *ei[2] = {mask, gd_i32(b, base, "dim", 1, &last, false)};
  const char *e = gd_aux(b, base, "ExpandDims", &ea, 2, ei);
  gd_attr_add(b, &ca, "SrcT", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &ca, "DstT", gd_type(b, DT_BOOL));
  gd_attr_add(b, &ca, "Truncate", gd_bool(b, false));
  mk->m3 = gd_aux(b, base, "Cast", &ca, 1, &e);
}

/* the condition of the step reading time index t */
static void gd_mask_step(GdBuild *b, const char *base, GdMask *mk, tfs_i64 t) {
  if (mk->m3) mk->m = gd_step_dt(b, base, mk->m3, mk->strides, t, 0, DT_BOOL);
}

/* SelectV2(step condition, x, y): x in the rows whose step runs, y in the others; x without a mask */
static const char *gd_mask_sel(GdBuild *b, const char *base, const GdMask *mk, const char *x, const char *y) {
  if (!mk->m) return x;
  AttrList at = {0};
  gd_attr_add(b, &at, "T", gd_type(b, DT_FLOAT32));
  const char *in[3] = {mk->m, x, y};
  return gd_aux(b, base, "SelectV2", &at, 3, in);
}

/* A step's new state hn kept where the step runs (into *h) and its output (the previous output, or zeros with
 * zero_output_for_mask, where it is skipped; into *prev, returned) */
static const char *gd_rnn_step_out(GdBuild *b, const char *base, const GdMask *mk, const char *hn, const char **h,
                                   const char **prev, bool zero, const char *zeros) {
  *h = gd_mask_sel(b, base, mk, hn, *h);
  return *prev = gd_mask_sel(b, base, mk, hn, zero ? zeros : *prev);
}

/* The gradient reaching a step's output: dhs_t (absent: zeros) + dh, plus with a mask dout, the gradient of the
 * output a later skipped step repeated; *dhs_s: dhs_t */
static const char *gd_rnn_dh_in(GdBuild *b, const char *base, const char *dhs, const char *dh, const char *dout,
                                const char *strides, tfs_i64 s, const char **dhs_s) {
  *dhs_s = dhs ? gd_step_on(b, base, dhs, strides, s, 1) : NULL;
  const char *dhv = dhs ? gd_opT(b, base, "AddV2", DT_FLOAT32, *dhs_s, dh) : dh;
  return dout ? gd_opT(b, base, "AddV2", DT_FLOAT32, dhv, dout) : dhv;
}

/* dout before the step (with a mask): zeros where it ran or with zero_output_for_mask, else dhs_t + dout carried back */
static const char *gd_rnn_dout(GdBuild *b, const char *base, const GdMask *mk, const char *zh, bool zero, const char *dhs_s,
                               const char *dout) {
  return gd_mask_sel(b, base, mk, zh, zero ? zh : dhs_s ? gd_opT(b, base, "AddV2", DT_FLOAT32, dhs_s, dout) : dout);
}

/* The end of the LSTM's and SimpleRNN's gradient: dxp = Pack of its steps in time order, dU ONE MatMul of the steps'
 * product inputs hp and gradients dz (ConcatV2 over the steps, transpose_a), d bias Sum of dxp over steps and batch;
 * outs[0], outs[k - 2], outs[k - 1] (the caller's states' gradients between) */
static void gd_rnn_grad_tail(GdBuild *b, const char *base, tfs_i64 T, const char **dxp, const char **hp, const char **dz,
                             int k, const char **outs) {
  tfs_i64 ax01[2] = {0, 1};
  const char *axis0 = gd_i32(b, base, "concat_dim", 1, &ax01[0], false);
  outs[0] = gd_pack(b, base, (int)T, dxp, 0);
  outs[k - 2] = gd_matmul_t(b, base, gd_concat(b, base, (int)T, hp, axis0), gd_concat(b, base, (int)T, dz, axis0), true, false);
  outs[k - 1] = gd_reduce(b, base, "Sum", DT_FLOAT32, outs[0], gd_i32(b, base, "reduction_indices", 2, ax01, true),
                          TENSORFLOW__DATA_TYPE__DT_INT32, false);
}

/* TF's gelu (nn_ops.py, approximate=False): 0.5 * x * (1 + Erf(x / sqrt 2)), the first product first */
static const char *gd_gelu(GdBuild *b, const char *base, const char *x) {
  const char *e = gd_opT(b, base, "Erf", DT_FLOAT32, gd_opT(b, base, "RealDiv", DT_FLOAT32, x,
                         gd_fill(b, base, "truediv/y", DT_FLOAT32, 1.4142135623730951, 0, NULL)), NULL);
  const char *hx = gd_opT(b, base, "Mul", DT_FLOAT32, gd_fill(b, base, "mul/x", DT_FLOAT32, 0.5, 0, NULL), x);
  return gd_opT(b, base, "Mul", DT_FLOAT32, hx, gd_opT(b, base, "AddV2", DT_FLOAT32, gd_fill(b, base, "add/x", DT_FLOAT32, 1.0, 0, NULL), e));
}

/* a fused recurrent op's activation (k_rnn_act.c) on x as TF's ops: Tanh, Sigmoid, Relu, Elu, Selu, Softsign,
 * Softplus, swish as x * Sigmoid(x), gelu as TF graphs it (gd_gelu), none for linear; hard_sigmoid as Keras 2.15
 * writes it: Minimum(Maximum(0.2 * x + 0.5, 0), 1) in clip_by_value's order */
static const char *gd_rnn_act(GdBuild *b, const char *base, const char *act, const char *x) {
  static const char *const one_op[][2] = {{"tanh", "Tanh"}, {"sigmoid", "Sigmoid"}, {"relu", "Relu"}, {"elu", "Elu"},
                                          {"selu", "Selu"}, {"softsign", "Softsign"}, {"softplus", "Softplus"}};
  for (size_t k = 0; k < sizeof one_op / sizeof one_op[0]; k++)
    if (!strcmp(act, one_op[k][0])) return gd_opT(b, base, one_op[k][1], DT_FLOAT32, x, NULL);
  if (!strcmp(act, "linear")) return x;
  if (!strcmp(act, "swish")) return gd_opT(b, base, "Mul", DT_FLOAT32, x, gd_opT(b, base, "Sigmoid", DT_FLOAT32, x, NULL));
  if (!strcmp(act, "gelu")) return gd_gelu(b, base, x);
  const char *v = gd_opT(b, base, "AddV2", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, x, gd_fill(b, base, "mul/y", DT_FLOAT32, 0.2, 0, NULL)),
                         gd_fill(b, base, "add/y", DT_FLOAT32, 0.5, 0, NULL));
  v = gd_opT(b, base, "Minimum", DT_FLOAT32, v, gd_fill(b, base, "clip/max", DT_FLOAT32, 1.0, 0, NULL));
  return gd_opT(b, base, "Maximum", DT_FLOAT32, v, gd_fill(b, base, "clip/min", DT_FLOAT32, 0.0, 0, NULL));
}

/* dy times the activation's derivative from its output y (as k_rnn_act.h: TanhGrad's and SigmoidGrad's formulas,
 * ReluGrad, EluGrad, SeluGrad, softsign (1 - |y|)², softplus -Expm1(-y), hard_sigmoid 0.2 where 0 < y < 1) */
static const char *gd_rnn_act_dy(GdBuild *b, const char *base, const char *act, const char *y, const char *dy) {
  if (!strcmp(act, "elu")) return gd_opT(b, base, "EluGrad", DT_FLOAT32, dy, y);
  if (!strcmp(act, "selu")) return gd_opT(b, base, "SeluGrad", DT_FLOAT32, dy, y);
  const char *one = gd_fill(b, base, "sub/x", DT_FLOAT32, 1.0, 0, NULL);
  if (!strcmp(act, "softsign")) {
    const char *m = gd_opT(b, base, "Sub", DT_FLOAT32, one, gd_opT(b, base, "Abs", DT_FLOAT32, y, NULL));
    return gd_opT(b, base, "Mul", DT_FLOAT32, dy, gd_opT(b, base, "Square", DT_FLOAT32, m, NULL));
  }
  if (!strcmp(act, "softplus")) {
    const char *e = gd_opT(b, base, "Expm1", DT_FLOAT32, gd_opT(b, base, "Neg", DT_FLOAT32, y, NULL), NULL);
    return gd_opT(b, base, "Mul", DT_FLOAT32, dy, gd_opT(b, base, "Neg", DT_FLOAT32, e, NULL));
  }
  if (!strcmp(act, "tanh"))
    return gd_opT(b, base, "Mul", DT_FLOAT32, dy, gd_opT(b, base, "Sub", DT_FLOAT32, one, gd_opT(b, base, "Mul", DT_FLOAT32, y, y)));
  if (!strcmp(act, "sigmoid"))
    return gd_opT(b, base, "Mul", DT_FLOAT32, dy, gd_opT(b, base, "Mul", DT_FLOAT32, y, gd_opT(b, base, "Sub", DT_FLOAT32, one, y)));
  if (!strcmp(act, "relu")) return gd_opT(b, base, "ReluGrad", DT_FLOAT32, dy, y);
  if (!strcmp(act, "linear")) return dy;
  AttrList la = {0}, ca = {0};
  const char *in[2] = {gd_opT(b, base, "Greater", DT_FLOAT32, y, gd_fill(b, base, "clip/min", DT_FLOAT32, 0.0, 0, NULL)),
                       gd_opT(b, base, "Less", DT_FLOAT32, y, one)};
  const char *inside = gd_aux(b, base, "LogicalAnd", &la, 2, in);
  gd_attr_add(b, &ca, "SrcT", gd_type(b, DT_BOOL));
  gd_attr_add(b, &ca, "DstT", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &ca, "Truncate", gd_bool(b, false));
  const char *k = gd_opT(b, base, "Mul", DT_FLOAT32, gd_aux(b, base, "Cast", &ca, 1, &inside), gd_fill(b, base, "mul/y", DT_FLOAT32, 0.2, 0, NULL));
  return gd_opT(b, base, "Mul", DT_FLOAT32, dy, k);
}

/* whether the fused LSTM and GRU keep an activation's pre-activation in place of its output (swish, gelu:
 * k_rnn_act.h's rnn_act_pre) */
static bool gd_rnn_act_pre(const char *act) { return !strcmp(act, "swish") || !strcmp(act, "gelu"); }

/* d times swish's or gelu's derivative at the pre-activation x, as k_rnn_act.c: s * (1 + x * (1 - s)) with
 * s = Sigmoid(x); 0.5 * (1 + Erf(x / sqrt 2)) + x * 0.3989422804014327 * Exp(-0.5 * x²) */
static const char *gd_rnn_act_dx(GdBuild *b, const char *base, const char *act, const char *x, const char *d) {
  const char *one = gd_fill(b, base, "sub/x", DT_FLOAT32, 1.0, 0, NULL), *k;
  if (!strcmp(act, "swish")) {
    const char *sg = gd_opT(b, base, "Sigmoid", DT_FLOAT32, x, NULL);
    const char *t = gd_opT(b, base, "Mul", DT_FLOAT32, x, gd_opT(b, base, "Sub", DT_FLOAT32, one, sg));
    k = gd_opT(b, base, "Mul", DT_FLOAT32, sg, gd_opT(b, base, "AddV2", DT_FLOAT32, one, t));
  } else {
    const char *e = gd_opT(b, base, "Erf", DT_FLOAT32, gd_opT(b, base, "RealDiv", DT_FLOAT32, x,
                           gd_fill(b, base, "truediv/y", DT_FLOAT32, 1.4142135623730951, 0, NULL)), NULL);
    const char *cdf = gd_opT(b, base, "Mul", DT_FLOAT32, gd_fill(b, base, "mul/x", DT_FLOAT32, 0.5, 0, NULL),
                             gd_opT(b, base, "AddV2", DT_FLOAT32, one, e));
    const char *x2 = gd_opT(b, base, "Mul", DT_FLOAT32, gd_fill(b, base, "mul/y", DT_FLOAT32, -0.5, 0, NULL),
                            gd_opT(b, base, "Square", DT_FLOAT32, x, NULL));
    const char *pdf = gd_opT(b, base, "Mul", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, x,
                             gd_fill(b, base, "mul/y", DT_FLOAT32, 0.3989422804014327, 0, NULL)), gd_opT(b, base, "Exp", DT_FLOAT32, x2, NULL));
    k = gd_opT(b, base, "AddV2", DT_FLOAT32, cdf, pdf);
  }
  return gd_opT(b, base, "Mul", DT_FLOAT32, d, k);
}

/* a kept activation block v of the gradient op: its output *y and pre-activation *x (v for both unless swish or
 * gelu, whose output is recomputed from the kept pre-activation) */
static void gd_rnn_act_at(GdBuild *b, const char *base, const char *act, const char *v, const char **y, const char **x) {
  *x = v;
  *y = gd_rnn_act_pre(act) ? gd_rnn_act(b, base, act, v) : v;
}

/* the LSTM's and GRU's gate gradients: d times the derivative from y (or from the pre-activation x: swish, gelu),
 * the sigmoid's and tanh's as k_rnn.c orders them ((d * y) * (1 - y), d * (1 - y²)) */
static const char *gd_rnn_act_grad(GdBuild *b, const char *base, const char *act, const char *y, const char *x, const char *d) {
  if (gd_rnn_act_pre(act)) return gd_rnn_act_dx(b, base, act, x, d);
  if (!strcmp(act, "sigmoid")) {
    const char *dy = gd_opT(b, base, "Mul", DT_FLOAT32, d, y);
    return gd_opT(b, base, "Mul", DT_FLOAT32, dy, gd_opT(b, base, "Sub", DT_FLOAT32, gd_fill(b, base, "sub/x", DT_FLOAT32, 1.0, 0, NULL), y));
  }
  return gd_rnn_act_dy(b, base, act, y, d);
}

/* attribute i of node n, an activation's name (dflt when not given) */
static const char *gd_rnn_act_name(const GraphNode *n, int i, const char *dflt) {
  return n->attrs.n > i && val_is(n->attrs.v[i], &str_type) ? str_cstr(n->attrs.v[i]) : dflt;
}

/* TfsLSTMSequence as TF's ops, unrolled over its static steps: per step StridedSlice of xp, z = (xp_t + h @ U) +
 * bias, Split into Keras' gates i, f, g, o (the recurrent activation on i, f, o, the activation on g: sigmoid and tanh
 * by default; gd_rnn_act), then c = f*c + i*g and h = o * act(c); the node itself is
 * IdentityN(hs, h, c, cs, act) with hs Pack'ed in step order; saved (training) cs Packs each step's c and act
 * each step's ConcatV2(i, f, g, o, tanh c), as k_rnn.c keeps them for the gradient op (gd_r_lstm_grad).  With a
 * mask a step's states and output are chosen per row (GdMask) and a skipped step's activations are zeros; with a
 * mask or recurrent dropout (h * recurrent_mask entering the product) act also keeps that product's input. */
static bool gd_r_lstm_seq(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || rank != 3 || xm->shape[0] < 1 || n->nin < 4) return false;
  tfs_i64 T = xm->shape[0];
  bool back = n->attrs.n > 0 && rt_truthy(n->attrs.v[0]), save = n->attrs.n < 2 || rt_truthy(n->attrs.v[1]);
  bool zero = n->attrs.n > 2 && rt_truthy(n->attrs.v[2]);
  const char *fn = gd_rnn_act_name(n, 3, "tanh"), *rfn = gd_rnn_act_name(n, 4, "sigmoid");
  const char *h = gd_ref(b, g, n->in[1], b->fn), *c = gd_ref(b, g, n->in[2], b->fn), *u = gd_ref(b, g, n->in[3], b->fn);
  const char *bias = gd_rnn_in(b, g, n, 4), *mask = gd_rnn_in(b, g, n, 5), *rk = gd_rnn_in(b, g, n, 6);
  tfs_i64 one[3] = {1, 1, 1};
  /* the gates are the columns of z [B, 4H]: split along axis 1 */
  const char *strides = gd_i32(b, base, "strides", 3, one, true), *axis = gd_i32(b, base, "split_dim", 1, &one[0], false);
  const char **hs = pa_alloc(b->a, sizeof(char *) * (size_t)(3 * T + 1)), **cl = hs + T, **al = save ? hs + 2 * T : NULL;
  GdMask mk;
  gd_mask_init(b, base, &mk, mask, strides);
  /* a skipped step's output: the previous output, zeros before the first and with zero_output_for_mask */
  const char *zeros = mask ? gd_opT(b, base, "ZerosLike", DT_FLOAT32, h, NULL) : NULL, *prev = zeros, *z5 = NULL;
  for (tfs_i64 s = 0; s < T; s++) {
    const char *xt = gd_step(b, base, x, strides, back ? T - 1 - s : s);
    gd_mask_step(b, base, &mk, back ? T - 1 - s : s);
    /* recurrent dropout multiplies the state entering the product (Keras' h_tm1 * rec_dp_mask) */
    const char *hin = rk ? gd_opT(b, base, "Mul", DT_FLOAT32, h, rk) : h;
    const char *z = gd_opT(b, base, "AddV2", DT_FLOAT32, xt, gd_matmul(b, base, hin, u));
    if (bias) z = gd_opT(b, base, "AddV2", DT_FLOAT32, z, bias);
    const char *spn = gd_split(b, base, axis, z, 4);
    const char *zi = gd_out(b, spn, 0), *zf = gd_out(b, spn, 1), *zg = gd_out(b, spn, 2), *zo = gd_out(b, spn, 3);
    const char *i = gd_rnn_act(b, base, rfn, zi), *f = gd_rnn_act(b, base, rfn, zf);
    const char *gg = gd_rnn_act(b, base, fn, zg);
    const char *o = gd_rnn_act(b, base, rfn, zo);
    const char *cn = gd_opT(b, base, "AddV2", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, f, c), gd_opT(b, base, "Mul", DT_FLOAT32, i, gg));
    const char *tc = gd_rnn_act(b, base, fn, cn);
    const char *hn = gd_opT(b, base, "Mul", DT_FLOAT32, o, tc);
    c = cl[s] = gd_mask_sel(b, base, &mk, cn, c);
    hs[s] = gd_rnn_step_out(b, base, &mk, hn, &h, &prev, zero, zeros);
    if (al) {
      /* a skipped step's activations are zeros; with a mask or recurrent dropout the product's input follows;
       * swish's and gelu's gates keep their pre-activations */
      bool rp = gd_rnn_act_pre(rfn);
      const char *parts[5] = {rp ? zi : i, rp ? zf : f, gd_rnn_act_pre(fn) ? zg : gg, rp ? zo : o, tc};
      const char *a5 = gd_concat(b, base, 5, parts, axis);
      if (mask && !z5) z5 = gd_opT(b, base, "ZerosLike", DT_FLOAT32, a5, NULL);
      const char *a6[2] = {gd_mask_sel(b, base, &mk, a5, z5), hin};
      al[s] = mask || rk ? gd_concat(b, base, 2, a6, axis) : a5;
    }
  }
  gd_rnn_outputs(b, base, T, hs, h, c, mask || rk ? 6 : 5, cl, al);
  return true;
}

/* TfsGRUSequence as TF's ops, unrolled as GRUCell.step computes: per step the input gates xp_t + b0 (Split in z, r,
 * h); reset_after: rec = h @ U + b1 (Split), z = sigmoid(xz + rz), r = sigmoid(xr + rr), hh = tanh(xh + r * rh)
 * (sigmoid: the recurrent activation, tanh: the activation, gd_rnn_act);
 * reset_after=False: rec = h @ U[:, :2H] (Split in two), z and r as before, hh = tanh(xh + (r * h) @ U[:, 2H:]);
 * then h = z * h + (1 - z) * hh.  IdentityN(hs, h, act); saved (training) act Packs each step's
 * ConcatV2(z, r, hh, q), q being rh (reset_after) or r * h, as k_rnn.c keeps them (gd_r_gru_grad). */
static bool gd_r_gru_seq(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || rank != 3 || xm->shape[0] < 1 || n->nin < 3) return false;
  const TMeta *um = graph_meta(g, n->in[2]);
  if (um->rank != 2 || um->shape[0] < 0) return false;
  tfs_i64 T = xm->shape[0], H = um->shape[0];
  bool back = n->attrs.n > 0 && rt_truthy(n->attrs.v[0]), after = n->attrs.n < 2 || rt_truthy(n->attrs.v[1]);
  bool save = n->attrs.n < 3 || rt_truthy(n->attrs.v[2]), zero = n->attrs.n > 3 && rt_truthy(n->attrs.v[3]);
  const char *fn = gd_rnn_act_name(n, 4, "tanh"), *rfn = gd_rnn_act_name(n, 5, "sigmoid");
  const char *h = gd_ref(b, g, n->in[1], b->fn), *u = gd_ref(b, g, n->in[2], b->fn);
  const char *b0 = gd_rnn_in(b, g, n, 3), *b1 = NULL, *uh = NULL, *mask = gd_rnn_in(b, g, n, 4), *rk = gd_rnn_in(b, g, n, 5);
  tfs_i64 one[3] = {1, 1, 1};
  const char *strides = gd_i32(b, base, "strides", 3, one, true), *axis = gd_i32(b, base, "split_dim", 1, &one[0], false);
  GdMask mk;
  gd_mask_init(b, base, &mk, mask, strides);
  const char *zeros = mask ? gd_opT(b, base, "ZerosLike", DT_FLOAT32, h, NULL) : NULL, *prev = zeros;
  if (b0 && after) {
    /* the bias's rows: input (b0) and recurrent (b1) */
    AttrList ua = {0};
    gd_attr_add(b, &ua, "T", gd_type(b, DT_FLOAT32));
    gd_attr_add(b, &ua, "num", gd_int(b, 2));
    gd_attr_add(b, &ua, "axis", gd_int(b, 0));
    gd_aux(b, base, "Unpack", &ua, 1, &b0);
    const char *un = b->pend[b->npend - 1]->name;
    b0 = gd_out(b, un, 0);
    b1 = gd_out(b, un, 1);
  }
  if (!after) gd_gru_split_u(b, base, u, H, &u, &uh);
  const char *onef = gd_fill(b, base, "sub/x", DT_FLOAT32, 1.0, 0, NULL);
  const char **hs = pa_alloc(b->a, sizeof(char *) * (size_t)(2 * T + 1)), **al = save ? hs + T : NULL;
  for (tfs_i64 s = 0; s < T; s++) {
    const char *xt = gd_step(b, base, x, strides, back ? T - 1 - s : s);
    gd_mask_step(b, base, &mk, back ? T - 1 - s : s);
    if (b0) xt = gd_opT(b, base, "AddV2", DT_FLOAT32, xt, b0);
    const char *xs = gd_split(b, base, axis, xt, 3);
    /* recurrent dropout multiplies the state entering the step: the products, r * h and z * h (Keras' h_tm1) */
    const char *hin = rk ? gd_opT(b, base, "Mul", DT_FLOAT32, h, rk) : h;
    const char *rec = gd_matmul(b, base, hin, u);
    if (b1) rec = gd_opT(b, base, "AddV2", DT_FLOAT32, rec, b1);
    const char *rs = gd_split(b, base, axis, rec, after ? 3 : 2);
    const char *pz = gd_opT(b, base, "AddV2", DT_FLOAT32, gd_out(b, xs, 0), gd_out(b, rs, 0)), *z = gd_rnn_act(b, base, rfn, pz);
    const char *pr = gd_opT(b, base, "AddV2", DT_FLOAT32, gd_out(b, xs, 1), gd_out(b, rs, 1)), *r = gd_rnn_act(b, base, rfn, pr);
    const char *rh = after ? gd_out(b, rs, 2) : gd_opT(b, base, "Mul", DT_FLOAT32, r, hin);
    const char *q = after ? gd_opT(b, base, "Mul", DT_FLOAT32, r, rh) : gd_matmul(b, base, rh, uh);
    const char *ph = gd_opT(b, base, "AddV2", DT_FLOAT32, gd_out(b, xs, 2), q), *hh = gd_rnn_act(b, base, fn, ph);
    const char *zh = gd_opT(b, base, "Mul", DT_FLOAT32, z, hin);
    const char *oh = gd_opT(b, base, "Mul", DT_FLOAT32, gd_opT(b, base, "Sub", DT_FLOAT32, onef, z), hh);
    const char *hn = gd_opT(b, base, "AddV2", DT_FLOAT32, zh, oh);
    hs[s] = gd_rnn_step_out(b, base, &mk, hn, &h, &prev, zero, zeros);
    if (al) {
      /* a skipped step keeps its activations; with a mask or recurrent dropout the step's input state follows;
       * swish's and gelu's gates keep their pre-activations */
      bool rp = gd_rnn_act_pre(rfn);
      const char *parts[5] = {rp ? pz : z, rp ? pr : r, gd_rnn_act_pre(fn) ? ph : hh, rh, hin};
      al[s] = gd_concat(b, base, mask || rk ? 5 : 4, parts, axis);
    }
  }
  gd_rnn_outputs(b, base, T, hs, h, NULL, mask || rk ? 5 : 4, NULL, al);
  return true;
}

/* TfsLSTMSequenceGrad as TF's ops: backpropagation through time unrolled from the last step, as k_rnn.c's
 * lstm_backward computes it from the saved activations (i, f, g, o, tanh c of act's step, the previous cell from
 * cs or c0, the previous h from hs or h0): dh = dhs_t + dh, dc = dc + dh*o*act'(tc) (1 - tc² for tanh; each
 * derivative from the activation's output, gd_rnn_act_grad), the gate gradients dz
 * (ConcatV2 of i's, f's, g's, o's), dc = dc*f, dh = dz @ Uᵀ; then dxp = Pack of dz in time order, dU as ONE
 * MatMul of every step's previous h and dz (ConcatV2 over the steps, transpose_a) and d bias = Sum of dxp over
 * steps and batch.  The node is IdentityN(dxp, dh0, dc0, dU, d bias). */
static bool gd_r_lstm_grad(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const TMeta *hm = n->nin >= 9 ? graph_meta(g, n->in[3]) : NULL;
  if (!hm || hm->rank != 3 || hm->shape[1] < 1) return false;
  const char *in[9];
  for (int k = 0; k < 9; k++)
    if (n->in[k].node < 0) return false;
    else in[k] = gd_ref(b, g, n->in[k], b->fn);
  tfs_i64 T = hm->shape[1], one[3] = {1, 1, 1};
  bool back = n->attrs.n > 0 && rt_truthy(n->attrs.v[0]), zero = n->attrs.n > 1 && rt_truthy(n->attrs.v[1]);
  const char *fn = gd_rnn_act_name(n, 2, "tanh"), *rfn = gd_rnn_act_name(n, 3, "sigmoid");
  const char *h0 = in[0], *c0 = in[1], *u = in[2], *hs = in[3], *cs = in[4], *act = in[5], *dhs = in[6], *dh = in[7], *dc = in[8];
  const char *mask = gd_rnn_in(b, g, n, 9), *rk = gd_rnn_in(b, g, n, 10);
  const char *strides = gd_i32(b, base, "strides", 3, one, true), *axis = gd_i32(b, base, "split_dim", 1, &one[0], false);
  const char **dz = pa_alloc(b->a, sizeof(char *) * (size_t)(3 * T + 1)), **hp = dz + T, **dxp = dz + 2 * T;
  GdMask mk;
  gd_mask_init(b, base, &mk, mask, strides);
  /* with a mask: dout is the gradient of the output a skipped step repeated, carried back to the step that made it */
  const char *zh = mask ? gd_opT(b, base, "ZerosLike", DT_FLOAT32, dh, NULL) : NULL, *dout = zh, *zg = NULL;
#define M_(p, q) gd_opT(b, base, "Mul", DT_FLOAT32, p, q)
#define A_(p, q) gd_opT(b, base, "AddV2", DT_FLOAT32, p, q)
  for (tfs_i64 s = T - 1; s >= 0; s--) {
    gd_mask_step(b, base, &mk, back ? T - 1 - s : s);
    /* the activations' blocks i, f, g, o, tanh c and, with a mask or recurrent dropout, the product's input */
    const char *spn = gd_split(b, base, axis, gd_step(b, base, act, strides, s), mask || rk ? 6 : 5);
    const char *i, *f, *gg, *o, *xi, *xf, *xg, *xo, *tc = gd_out(b, spn, 4);
    /* the cell's own pre-activation: its step of cs (swish, gelu) */
    const char *xc = gd_rnn_act_pre(fn) ? gd_step(b, base, cs, strides, s) : tc;
    gd_rnn_act_at(b, base, rfn, gd_out(b, spn, 0), &i, &xi);
    gd_rnn_act_at(b, base, rfn, gd_out(b, spn, 1), &f, &xf);
    gd_rnn_act_at(b, base, fn, gd_out(b, spn, 2), &gg, &xg);
    gd_rnn_act_at(b, base, rfn, gd_out(b, spn, 3), &o, &xo);
    const char *cp = s ? gd_step(b, base, cs, strides, s - 1) : c0, *dhs_s;
    hp[s] = mask || rk ? gd_out(b, spn, 5) : s ? gd_step_on(b, base, hs, strides, s - 1, 1) : h0;
    const char *dhv = gd_rnn_dh_in(b, base, dhs, dh, dout, strides, s, &dhs_s);
    const char *dcv = A_(dc, gd_rnn_act_grad(b, base, fn, tc, xc, M_(dhv, o)));
    const char *parts[4] = {gd_rnn_act_grad(b, base, rfn, i, xi, M_(dcv, gg)), gd_rnn_act_grad(b, base, rfn, f, xf, M_(dcv, cp)),
                            gd_rnn_act_grad(b, base, fn, gg, xg, M_(dcv, i)), gd_rnn_act_grad(b, base, rfn, o, xo, M_(dhv, tc))};
    const char *dzs = gd_concat(b, base, 4, parts, axis);
    if (mask && !zg) zg = gd_opT(b, base, "ZerosLike", DT_FLOAT32, dzs, NULL);
    /* a skipped step: no gate gradient, the states' gradients pass through */
    dz[s] = dxp[back ? T - 1 - s : s] = gd_mask_sel(b, base, &mk, dzs, zg);
    dc = gd_mask_sel(b, base, &mk, M_(dcv, f), dc);
    const char *e = gd_matmul_t(b, base, dz[s], u, false, true);
    dh = gd_mask_sel(b, base, &mk, rk ? M_(e, rk) : e, dh);
    if (mask) dout = gd_rnn_dout(b, base, &mk, zh, zero, dhs_s, dout);
  }
  const char *outs[5] = {NULL, dh, dc, NULL, NULL};
  gd_rnn_grad_tail(b, base, T, dxp, hp, dz, 5, outs);
  gd_identity_n(b, base, 5, outs);
  return true;
}

/* TfsGRUSequenceGrad as TF's ops, unrolled from the last step as k_rnn.c's gru_backward computes it from the saved
 * activations (z, r, hh, q of act's step, the previous h from hs or h0; an absent dhs or dh_last is zeros):
 * dh = dhs_t + dh, dz = dh*(h_prev - hh)*z*(1-z), dn = dh*(1-z)*(1-hh²) (the sigmoid's and tanh's derivatives, or
 * the activations' the node names: gd_rnn_act_grad), then dh = dh*z plus the recurrent
 * gradients: reset_after through U of ConcatV2(dz, dn*q*r*(1-r), dn*r); reset_after=False through U[:, 2H:] of dn
 * (e, whose e*h_prev*r*(1-r) is r's gradient and e*r a part of h's) and through U[:, :2H] of (dz, dr).  dxp is
 * Pack of ConcatV2(dz, dr, dn) in time order; dU ONE MatMul per block of U over every step (ConcatV2 over the
 * steps, transpose_a), d bias Sum of dxp (and with reset_after of the recurrent part) over steps and batch.
 * The node is IdentityN(dxp, dh0, dU, d bias). */
static bool gd_r_gru_grad(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const TMeta *hm = n->nin >= 4 ? graph_meta(g, n->in[2]) : NULL, *um = hm ? graph_meta(g, n->in[1]) : NULL;
  if (!hm || hm->rank != 3 || hm->shape[1] < 1 || um->rank != 2 || um->shape[0] < 0) return false;
  for (int k = 0; k < 4; k++)
    if (n->in[k].node < 0) return false;
  tfs_i64 T = hm->shape[1], H = um->shape[0], one[3] = {1, 1, 1}, ax01[2] = {0, 1};
  bool back = n->attrs.n > 0 && rt_truthy(n->attrs.v[0]), after = n->attrs.n < 2 || rt_truthy(n->attrs.v[1]);
  bool zero = n->attrs.n > 2 && rt_truthy(n->attrs.v[2]);
  const char *fn = gd_rnn_act_name(n, 3, "tanh"), *rfn = gd_rnn_act_name(n, 4, "sigmoid");
  const char *h0 = gd_ref(b, g, n->in[0], b->fn), *u = gd_ref(b, g, n->in[1], b->fn), *hs = gd_ref(b, g, n->in[2], b->fn);
  const char *act = gd_ref(b, g, n->in[3], b->fn), *uzr = u, *uh = NULL, *dhs = gd_rnn_in(b, g, n, 4);
  const char *dh = n->nin > 5 && n->in[5].node >= 0 ? gd_ref(b, g, n->in[5], b->fn) : gd_opT(b, base, "ZerosLike", DT_FLOAT32, h0, NULL);
  const char *mask = gd_rnn_in(b, g, n, 6), *rk = gd_rnn_in(b, g, n, 7);
  const char *strides = gd_i32(b, base, "strides", 3, one, true), *axis = gd_i32(b, base, "split_dim", 1, &one[0], false);
  const char *axis0 = gd_i32(b, base, "concat_dim", 1, &ax01[0], false), *onef = gd_fill(b, base, "sub/x", DT_FLOAT32, 1.0, 0, NULL);
#define OM_(p) gd_opT(b, base, "Sub", DT_FLOAT32, onef, p)
  if (!after) gd_gru_split_u(b, base, u, H, &uzr, &uh);
  /* per step: the recurrent products' output gradients dg, the previous h, dxp's block; without reset_after also
   * dn and q (= r * h_prev) for U[:, 2H:]'s gradient */
  const char **dg = pa_alloc(b->a, sizeof(char *) * (size_t)(5 * T + 1)), **hp = dg + T, **dxp = dg + 2 * T, **dns = dg + 3 * T;
  const char **qs = dg + 4 * T;
  GdMask mk;
  gd_mask_init(b, base, &mk, mask, strides);
  /* with a mask: dout is the gradient of the output a skipped step repeated (as the LSTM's); a skipped step's
   * gradients into the gates and products are zeros */
  const char *zh = mask ? gd_opT(b, base, "ZerosLike", DT_FLOAT32, h0, NULL) : NULL, *dout = zh, *zg = NULL, *zx = NULL;
  for (tfs_i64 s = T - 1; s >= 0; s--) {
    gd_mask_step(b, base, &mk, back ? T - 1 - s : s);
    /* the activations' blocks z, r, hh, q and, with a mask or recurrent dropout, the step's input state */
    const char *spn = gd_split(b, base, axis, gd_step(b, base, act, strides, s), mask || rk ? 5 : 4);
    const char *z, *r, *hh, *xz, *xr, *xh, *q = gd_out(b, spn, 3);
    gd_rnn_act_at(b, base, rfn, gd_out(b, spn, 0), &z, &xz);
    gd_rnn_act_at(b, base, rfn, gd_out(b, spn, 1), &r, &xr);
    gd_rnn_act_at(b, base, fn, gd_out(b, spn, 2), &hh, &xh);
    const char *hpv = hp[s] = mask || rk ? gd_out(b, spn, 4) : s ? gd_step_on(b, base, hs, strides, s - 1, 1) : h0;
    const char *dhs_s, *dh_in = dh, *dhv = gd_rnn_dh_in(b, base, dhs, dh, dout, strides, s, &dhs_s);
    const char *dzv = M_(dhv, gd_opT(b, base, "Sub", DT_FLOAT32, hpv, hh)), *dn = gd_rnn_act_grad(b, base, fn, hh, xh, M_(dhv, OM_(z)));
    const char *gz = gd_rnn_act_grad(b, base, rfn, z, xz, dzv), *dgs, *dxs;
    dh = M_(dhv, z);
    if (after) {
      const char *gr = gd_rnn_act_grad(b, base, rfn, r, xr, M_(dn, q)), *pg[3] = {gz, gr, M_(dn, r)}, *px[3] = {gz, gr, dn};
      dgs = gd_concat(b, base, 3, pg, axis);
      dxs = gd_concat(b, base, 3, px, axis);
      if (mask && !zg) zg = zx = gd_opT(b, base, "ZerosLike", DT_FLOAT32, dgs, NULL);
      dg[s] = gd_mask_sel(b, base, &mk, dgs, zg);
      dh = A_(dh, gd_matmul_t(b, base, dg[s], u, false, true));
    } else {
      const char *e = gd_matmul_t(b, base, dn, uh, false, true);
      const char *gr = gd_rnn_act_grad(b, base, rfn, r, xr, M_(e, hpv)), *pg[2] = {gz, gr}, *px[3] = {gz, gr, dn};
      dh = A_(dh, M_(e, r));
      dgs = gd_concat(b, base, 2, pg, axis);
      dxs = gd_concat(b, base, 3, px, axis);
      if (mask && !zg) {
        zg = gd_opT(b, base, "ZerosLike", DT_FLOAT32, dgs, NULL);
        zx = gd_opT(b, base, "ZerosLike", DT_FLOAT32, dxs, NULL);
      }
      dg[s] = gd_mask_sel(b, base, &mk, dgs, zg);
      dh = A_(dh, gd_matmul_t(b, base, dg[s], uzr, false, true));
      dns[s] = gd_mask_sel(b, base, &mk, dn, zh);
      qs[s] = gd_mask_sel(b, base, &mk, q, zh);
    }
    dxp[back ? T - 1 - s : s] = gd_mask_sel(b, base, &mk, dxs, zx);
    /* the gradient of the step's input h * recurrent_mask back to h; a skipped step's state gradient passes */
    if (rk) dh = M_(dh, rk);
    dh = gd_mask_sel(b, base, &mk, dh, dh_in);
    if (mask) dout = gd_rnn_dout(b, base, &mk, zh, zero, dhs_s, dout);
  }
#undef M_
#undef OM_
#undef A_
  const char *dxs = gd_pack(b, base, (int)T, dxp, 0), *dga = gd_concat(b, base, (int)T, dg, axis0);
  const char *hpa = gd_concat(b, base, (int)T, hp, axis0), *i32ax = gd_i32(b, base, "reduction_indices", 2, ax01, true);
  const char *du = gd_matmul_t(b, base, hpa, dga, true, false);
  if (!after) {
    const char *blocks[2] = {du, gd_matmul_t(b, base, gd_concat(b, base, (int)T, qs, axis0), gd_concat(b, base, (int)T, dns, axis0), true, false)};
    du = gd_concat(b, base, 2, blocks, axis);
  }
  const char *db = gd_reduce(b, base, "Sum", DT_FLOAT32, dxs, i32ax, TENSORFLOW__DATA_TYPE__DT_INT32, false);
  if (after) {
    const char *rows[2] = {db, gd_reduce(b, base, "Sum", DT_FLOAT32, dga, axis0, TENSORFLOW__DATA_TYPE__DT_INT32, false)};
    db = gd_pack(b, base, 2, rows, 0);
  }
  const char *outs[4] = {dxs, dh, du, db};
  gd_identity_n(b, base, 4, outs);
  return true;
}
/* x [B, H] cut to [B, 0]: a step's part of a SimpleRNN's act output when it keeps nothing */
static const char *gd_srnn_empty(GdBuild *b, const char *base, const char *x) {
  AttrList la = {0};
  tfs_i64 z2[2] = {0, 0}, sz[2] = {-1, 0};
  gd_attr_add(b, &la, "T", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &la, "Index", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  const char *li[3] = {x, gd_i32(b, base, "begin", 2, z2, true), gd_i32(b, base, "size", 2, sz, true)};
  return gd_aux(b, base, "Slice", &la, 3, li);
}

/* numpy's log10/log2/exp2/cbrt (tfs ops of their own) in TF's ops, as tf.experimental.numpy composes them:
 * Log(x) / ln(10), Log(x) / ln(2), Pow(2, x), Sign(x) * Pow(|x|, 1/3) */
static bool gd_r_np_libm(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  OpId id = n->op->id;
  if (id == OP_NP_LOG10 || id == OP_NP_LOG2) {
    const char *lg = gd_opT(b, base, "Log", t, x, NULL);
    const char *k = gd_fill(b, base, "Const", t, id == OP_NP_LOG10 ? 2.302585092994045684 : 0.693147180559945309, 0, NULL);
    gd_opT(b, base, "RealDiv", t, lg, k);
  } else if (id == OP_NP_EXP2) {
    gd_opT(b, base, "Pow", t, gd_fill(b, base, "Const", t, 2.0, 0, NULL), x);
  } else {
    const char *sg = gd_opT(b, base, "Sign", t, x, NULL);
    const char *p = gd_opT(b, base, "Pow", t, gd_opT(b, base, "Abs", t, x, NULL), gd_fill(b, base, "Const", t, 1.0 / 3.0, 0, NULL));
    gd_opT(b, base, "Mul", t, sg, p);
  }
  return true;
}

/* TfsSimpleRNNSequence as TF's ops, unrolled as SimpleRNNCell.step computes: per step h = act((xp_t + h @ U) + bias),
 * a mask choosing per row (GdMask) between the new and the kept state/output; IdentityN(hs, h, act), act Packing
 * each step's product input h (times the recurrent mask) when masked or with recurrent dropout, else [T, B, 0] */
static bool gd_r_srnn_seq(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || rank != 3 || xm->shape[0] < 1 || n->nin < 3) return false;
  tfs_i64 T = xm->shape[0];
  bool back = n->attrs.n > 0 && rt_truthy(n->attrs.v[0]), save = n->attrs.n < 2 || rt_truthy(n->attrs.v[1]);
  bool zero = n->attrs.n > 2 && rt_truthy(n->attrs.v[2]);
  const char *fn = gd_rnn_act_name(n, 3, "tanh");
  const char *h = gd_ref(b, g, n->in[1], b->fn), *u = gd_ref(b, g, n->in[2], b->fn);
  const char *bias = gd_rnn_in(b, g, n, 3), *mask = gd_rnn_in(b, g, n, 4), *rk = gd_rnn_in(b, g, n, 5);
  tfs_i64 one[3] = {1, 1, 1};
  const char *strides = gd_i32(b, base, "strides", 3, one, true);
  const char **hs = pa_alloc(b->a, sizeof(char *) * (size_t)(2 * T + 1)), **al = save ? hs + T : NULL;
  GdMask mk;
  gd_mask_init(b, base, &mk, mask, strides);
  const char *zeros = mask ? gd_opT(b, base, "ZerosLike", DT_FLOAT32, h, NULL) : NULL, *prev = zeros;
  for (tfs_i64 s = 0; s < T; s++) {
    const char *xt = gd_step(b, base, x, strides, back ? T - 1 - s : s);
    gd_mask_step(b, base, &mk, back ? T - 1 - s : s);
    const char *hin = rk ? gd_opT(b, base, "Mul", DT_FLOAT32, h, rk) : h;
    const char *z = gd_opT(b, base, "AddV2", DT_FLOAT32, xt, gd_matmul(b, base, hin, u));
    if (bias) z = gd_opT(b, base, "AddV2", DT_FLOAT32, z, bias);
    hs[s] = gd_rnn_step_out(b, base, &mk, gd_rnn_act(b, base, fn, z), &h, &prev, zero, zeros);
    if (al) al[s] = mask || rk ? hin : gd_srnn_empty(b, base, hin);
  }
  gd_rnn_outputs(b, base, T, hs, h, NULL, mask || rk ? 1 : 0, NULL, al);
  return true;
}

/* TfsSimpleRNNSequenceGrad as TF's ops, unrolled from the last step as k_rnn_simple.c's srnn_backward: dz =
 * (dhs_t + dh) * act'(h_t), dh = (dz @ U^T) * recurrent_mask (a skipped step: dz zeros, dh passes, the output's
 * gradient carried back as the LSTM's dout); dxp Pack of dz in time order, dU ONE MatMul of the steps' inputs and
 * dz (ConcatV2 over the steps, transpose_a), d bias Sum of dxp.  IdentityN(dxp, dh0, dU, d bias). */
static bool gd_r_srnn_grad(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const TMeta *hm = n->nin >= 4 ? graph_meta(g, n->in[2]) : NULL;
  if (!hm || hm->rank != 3 || hm->shape[1] < 1) return false;
  for (int k = 0; k < 4; k++)
    if (n->in[k].node < 0) return false;
  tfs_i64 T = hm->shape[1], one[3] = {1, 1, 1};
  bool back = n->attrs.n > 0 && rt_truthy(n->attrs.v[0]), zero = n->attrs.n > 1 && rt_truthy(n->attrs.v[1]);
  const char *fn = gd_rnn_act_name(n, 2, "tanh");
  const char *h0 = gd_ref(b, g, n->in[0], b->fn), *u = gd_ref(b, g, n->in[1], b->fn), *hs = gd_ref(b, g, n->in[2], b->fn);
  const char *act = gd_ref(b, g, n->in[3], b->fn), *dhs = gd_rnn_in(b, g, n, 4);
  const char *dh = n->nin > 5 && n->in[5].node >= 0 ? gd_ref(b, g, n->in[5], b->fn) : gd_opT(b, base, "ZerosLike", DT_FLOAT32, h0, NULL);
  const char *mask = gd_rnn_in(b, g, n, 6), *rk = gd_rnn_in(b, g, n, 7);
  const char *strides = gd_i32(b, base, "strides", 3, one, true);
  const char **dz = pa_alloc(b->a, sizeof(char *) * (size_t)(3 * T + 1)), **hp = dz + T, **dxp = dz + 2 * T;
  GdMask mk;
  gd_mask_init(b, base, &mk, mask, strides);
  const char *zh = mask ? gd_opT(b, base, "ZerosLike", DT_FLOAT32, h0, NULL) : NULL, *dout = zh;
  for (tfs_i64 s = T - 1; s >= 0; s--) {
    gd_mask_step(b, base, &mk, back ? T - 1 - s : s);
    hp[s] = mask || rk ? gd_step(b, base, act, strides, s) : s ? gd_step_on(b, base, hs, strides, s - 1, 1) : h0;
    const char *dhs_s, *dh_in = dh, *dhv = gd_rnn_dh_in(b, base, dhs, dh, dout, strides, s, &dhs_s);
    const char *g_ = gd_rnn_act_dy(b, base, fn, gd_step_on(b, base, hs, strides, s, 1), dhv);
    dz[s] = dxp[back ? T - 1 - s : s] = gd_mask_sel(b, base, &mk, g_, zh);
    const char *e = gd_matmul_t(b, base, dz[s], u, false, true);
    dh = gd_mask_sel(b, base, &mk, rk ? gd_opT(b, base, "Mul", DT_FLOAT32, e, rk) : e, dh_in);
    if (mask) dout = gd_rnn_dout(b, base, &mk, zh, zero, dhs_s, dout);
  }
  const char *outs[4] = {NULL, dh, NULL, NULL};
  gd_rnn_grad_tail(b, base, T, dxp, hp, dz, 4, outs);
  gd_identity_n(b, base, 4, outs);
  return true;
}

/* The batch rows M of x [..., C] as a float32 scalar: Cast(Size(x)) / C, so that an unknown batch size works */
static const char *gd_bn_rows(GdBuild *b, const char *base, const char *x, tfs_i64 C) {
  AttrList za = {0}, ca = {0};
  gd_attr_add(b, &za, "T", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &za, "out_type", gd_type(b, DT_INT32));
  const char *sz = gd_aux(b, base, "Size", &za, 1, &x);
  gd_attr_add(b, &ca, "SrcT", gd_type(b, DT_INT32));
  gd_attr_add(b, &ca, "DstT", gd_type(b, DT_FLOAT32));
  gd_attr_add(b, &ca, "Truncate", gd_bool(b, false));
  return gd_opT(b, base, "RealDiv", DT_FLOAT32, gd_aux(b, base, "Cast", &ca, 1, &sz), gd_fill(b, base, "channels", DT_FLOAT32, (double)C, 0, NULL));
}

/* TfsBatchNormTrain as the ops Keras' layer runs (tf.nn.moments, tf.nn.batch_normalization): Mean over every axis
 * but the last, Mean of SquaredDifference, Rsqrt(var + epsilon), scale and offset, x * scale + offset; the node is
 * IdentityN(y, mean, var, inv).  Its gradient op likewise as Sum, Sub, Mul and RealDiv (k_bnorm.c's closed form). */
static bool gd_r_bnorm(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  bool fwd = n->op->id == OP_BNORM_TRAIN;
  const TMeta *m = fwd ? xm : graph_meta(g, n->in[1]);
  if (!x || m->rank < 1 || m->shape[m->rank - 1] < 0) return false;
  tfs_i64 C = m->shape[m->rank - 1], ax[TFS_MAX_RANK];
  for (int i = 0; i + 1 < m->rank; i++) ax[i] = i;
  const char *axes = gd_i32(b, base, "reduction_indices", m->rank - 1, ax, true);
  Tensorflow__DataType i32 = TENSORFLOW__DATA_TYPE__DT_INT32;
  const char *gamma = n->nin > (fwd ? 1 : 4) && n->in[fwd ? 1 : 4].node >= 0 ? gd_ref(b, g, n->in[fwd ? 1 : 4], b->fn) : NULL;
  Tensorflow__DataType f4[4] = {TENSORFLOW__DATA_TYPE__DT_FLOAT, TENSORFLOW__DATA_TYPE__DT_FLOAT, TENSORFLOW__DATA_TYPE__DT_FLOAT,
                                TENSORFLOW__DATA_TYPE__DT_FLOAT};
  AttrList ia = {0};
  if (fwd) {
    const char *beta = n->nin > 2 && n->in[2].node >= 0 ? gd_ref(b, g, n->in[2], b->fn) : NULL;
    double eps = 0.001;
    if (n->attrs.n > 0 && n->attrs.v[0].tag != VT_NONE && !val_as_float(n->attrs.v[0], &eps)) return false;
    const char *mean = gd_reduce(b, base, "Mean", DT_FLOAT32, x, axes, i32, false);
    const char *var = gd_reduce(b, base, "Mean", DT_FLOAT32, gd_opT(b, base, "SquaredDifference", DT_FLOAT32, x, mean), axes, i32, false);
    const char *inv = gd_opT(b, base, "Rsqrt", DT_FLOAT32, gd_opT(b, base, "AddV2", DT_FLOAT32, var, gd_fill(b, base, "epsilon", DT_FLOAT32, eps, 0, NULL)), NULL);
    const char *scale = gamma ? gd_opT(b, base, "Mul", DT_FLOAT32, inv, gamma) : inv;
    const char *off = gd_opT(b, base, "Mul", DT_FLOAT32, gd_opT(b, base, "Neg", DT_FLOAT32, mean, NULL), scale);
    if (beta) off = gd_opT(b, base, "AddV2", DT_FLOAT32, off, beta);
    const char *y = gd_opT(b, base, "AddV2", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, x, scale), off);
    const char *ii[4] = {y, mean, var, inv};
    gd_attr_add(b, &ia, "T", gd_pbtypes(b, 4, f4));
    gd_aux(b, base, "IdentityN", &ia, 4, ii);
    return true;
  }
  /* dy, x, mean, inv, gamma, dmean, dvariance */
  const char *dy = x, *xx = gd_ref(b, g, n->in[1], b->fn), *mean = gd_ref(b, g, n->in[2], b->fn), *inv = gd_ref(b, g, n->in[3], b->fn);
  const char *dmean = gd_ref(b, g, n->in[5], b->fn), *dvar = gd_ref(b, g, n->in[6], b->fn);
  const char *fm = gd_bn_rows(b, base, xx, C);
  const char *xc = gd_opT(b, base, "Sub", DT_FLOAT32, xx, mean);
  const char *db = gd_reduce(b, base, "Sum", DT_FLOAT32, dy, axes, i32, false);
  const char *dgs = gd_reduce(b, base, "Sum", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, dy, xc), axes, i32, false);
  const char *k = gamma ? gd_opT(b, base, "Mul", DT_FLOAT32, gamma, inv) : inv;
  const char *k3 = gd_opT(b, base, "Mul", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, k, inv), inv), dgs);
  const char *two = gd_fill(b, base, "two", DT_FLOAT32, 2.0, 0, NULL);
  const char *q = gd_opT(b, base, "AddV2", DT_FLOAT32, gd_opT(b, base, "RealDiv", DT_FLOAT32, gd_opT(b, base, "Neg", DT_FLOAT32, k3, NULL), fm),
                         gd_opT(b, base, "RealDiv", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, two, dvar), fm));
  const char *pp = gd_opT(b, base, "AddV2", DT_FLOAT32,
                          gd_opT(b, base, "RealDiv", DT_FLOAT32, gd_opT(b, base, "Neg", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, k, db), NULL), fm),
                          gd_opT(b, base, "RealDiv", DT_FLOAT32, dmean, fm));
  const char *dx = gd_opT(b, base, "AddV2", DT_FLOAT32,
                          gd_opT(b, base, "AddV2", DT_FLOAT32, gd_opT(b, base, "Mul", DT_FLOAT32, dy, k), gd_opT(b, base, "Mul", DT_FLOAT32, xc, q)), pp);
  const char *ii[3] = {dx, gd_opT(b, base, "Mul", DT_FLOAT32, inv, dgs), db};
  gd_attr_add(b, &ia, "T", gd_pbtypes(b, 3, f4));
  gd_aux(b, base, "IdentityN", &ia, 3, ii);
  return true;
}

/* GatherV2(params, indices, axis) */
static bool gd_r_gather(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  tfs_i64 zero = 0;
  int64_t bd = 0;
  if (!x || n->nin < 2 || n->in[1].node < 0) return false;
  if (n->attrs.n > 2 && n->attrs.v[2].tag != VT_NONE && !val_as_int(n->attrs.v[2], &bd)) return false;
  const char *in[3] = {x, gd_ref(b, g, n->in[1], b->fn), gd_attr_input(b, g, n, 1, "axis", &zero, 1, false, &tidx)};
  if (!in[2]) return false;
  gd_attr_add(b, &at, "Tparams", gd_type(b, t));
  gd_attr_add(b, &at, "Tindices", gd_type(b, graph_meta(g, n->in[1])->dtype));
  gd_attr_add(b, &at, "Taxis", gd_pbtype(b, tidx));
  gd_attr_add(b, &at, "batch_dims", gd_int(b, bd));
  gd_aux(b, base, "GatherV2", &at, 3, in);
  return true;
}

/* Reshape(x, shape) with an int32 Const shape */
static const char *gd_reshape_to(GdBuild *b, const char *base, DType t, const char *x, int rank, const tfs_i64 *shape) {
  AttrList ra = {0};
  gd_attr_add(b, &ra, "T", gd_type(b, t));
  gd_attr_add(b, &ra, "Tshape", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  const char *in[2] = {x, gd_i32(b, base, "shape", rank, shape, true)};
  return gd_aux(b, base, "Reshape", &ra, 2, in);
}

/* The label under base that gd_aux_named would give the next node of that label (label, label_1, ...): the
 * name its own Consts are put under, as TF's name scopes do ('strided_slice_1/stack') */
static const char *gd_free_label(GdBuild *b, const char *base, const char *label) {
  if (!gd_pend_taken(b, pa_printf(b->a, "%s/%s", base, label))) return label;
  for (int k = 1;; k++) {
    const char *l = pa_printf(b->a, "%s_%d", label, k);
    if (!gd_pend_taken(b, pa_printf(b->a, "%s/%s", base, l))) return l;
  }
}

/* A StridedSlice [begin:end] of an int32 vector (masks as TF's Python sets them for omitted bounds) */
static const char *gd_vec_slice(GdBuild *b, const char *base, const char *x, tfs_i64 begin, tfs_i64 end, int bmask,
                                int emask, int shrink) {
  AttrList sa = {0};
  gd_attr_add(b, &sa, "T", gd_type(b, DT_INT32));
  gd_attr_add(b, &sa, "Index", gd_type(b, DT_INT32));
  gd_attr_add(b, &sa, "begin_mask", gd_int(b, bmask));
  gd_attr_add(b, &sa, "end_mask", gd_int(b, emask));
  gd_attr_add(b, &sa, "ellipsis_mask", gd_int(b, 0));
  gd_attr_add(b, &sa, "new_axis_mask", gd_int(b, 0));
  gd_attr_add(b, &sa, "shrink_axis_mask", gd_int(b, shrink));
  tfs_i64 one = 1;
  const char *ss = gd_free_label(b, base, "strided_slice");
  const char *in[4] = {x, gd_i32(b, base, pa_printf(b->a, "%s/stack", ss), 1, &begin, true),
                       gd_i32(b, base, pa_printf(b->a, "%s/stack_1", ss), 1, &end, true),
                       gd_i32(b, base, pa_printf(b->a, "%s/stack_2", ss), 1, &one, true)};
  return gd_aux_named(b, base, ss, "StridedSlice", &sa, 4, in);
}

/* An op of attributes T (dt) and Tidx/Tshape-like `ia` (int32) on two inputs */
static const char *gd_op2i(GdBuild *b, const char *base, const char *label, const char *op, DType dt, const char *ia,
                           const char *x, const char *y) {
  AttrList a = {0};
  gd_attr_add(b, &a, "T", gd_type(b, dt));
  if (ia) gd_attr_add(b, &a, ia, gd_type(b, DT_INT32));
  const char *in[2] = {x, y};
  return gd_aux_named(b, base, label, op, &a, 2, in);
}

/* ConcatV2 'concat' (TF's Python name) of `dt` parts along axis (its Const 'concat/axis' made here) */
static const char *gd_concat_dt(GdBuild *b, const char *base, DType dt, int num, const char *const *parts, tfs_i64 axis) {
  const char *cc = gd_free_label(b, base, "concat");
  return gd_concat_as(b, base, cc, dt, num, parts, gd_i32(b, base, pa_printf(b->a, "%s/axis", cc), 1, &axis, false));
}

/* Shape(x) as int32 */
static const char *gd_shape_i32(GdBuild *b, const char *base, DType t, const char *x) {
  AttrList sa = {0};
  gd_attr_add(b, &sa, "T", gd_type(b, t));
  gd_attr_add(b, &sa, "out_type", gd_type(b, DT_INT32));
  return gd_aux(b, base, "Shape", &sa, 1, &x);
}

/* Cast of x from one dtype to another */
static const char *gd_cast_to(GdBuild *b, const char *base, const char *x, DType from, DType to) {
  AttrList ca = {0};
  gd_attr_add(b, &ca, "SrcT", gd_type(b, from));
  gd_attr_add(b, &ca, "DstT", gd_type(b, to));
  gd_attr_add(b, &ca, "Truncate", gd_bool(b, false));
  return gd_aux(b, base, "Cast", &ca, 1, &x);
}

/* tf.gather_nd(batch_dims > 0) with dims unknown while tracing, as TF's array_ops.batch_gather_nd builds it from the
 * shapes at run time: Shape/StridedSlice for the batch shape, Prod for its size, per batch dim Cast/Range/Cast,
 * meshgrid (Reshape, Size, Pack, Fill, Mul), the flattened grids stacked and transposed, Reshape/Tile to every index
 * row, ConcatV2 with the flattened indices, GatherNd, Reshape to the batch shape.  The ranks are known. */
static bool gd_gather_nd_dyn(GdBuild *b, const char *base, DType t, const char *x, const TMeta *xm, const char *ix,
                             DType it, int irank, int bd, AttrList *gat_attrs) {
  if (bd < 1 || bd >= irank || bd >= xm->rank) return false;
  const char *pshape = gd_shape_i32(b, base, t, x), *ishape = gd_shape_i32(b, base, it, ix);
  const char *bshape = gd_vec_slice(b, base, pshape, 0, bd, 1, 0, 0);
  AttrList pa = {0};
  gd_attr_add(b, &pa, "T", gd_type(b, DT_INT32));
  gd_attr_add(b, &pa, "Tidx", gd_type(b, DT_INT32));
  gd_attr_add(b, &pa, "keep_dims", gd_bool(b, false));
  tfs_i64 zero = 0, one = 1, m1 = -1;
  const char *pin[2] = {bshape, gd_i32(b, base, "Prod/reduction_indices", 1, &zero, true)};
  const char *bsize = gd_aux(b, base, "Prod", &pa, 2, pin);
  const char *iinner = gd_vec_slice(b, base, ishape, bd, -1, 0, 0, 0);
  AttrList ua = {0};
  gd_attr_add(b, &ua, "T", gd_type(b, DT_INT32));
  gd_attr_add(b, &ua, "num", gd_int(b, bd));
  gd_attr_add(b, &ua, "axis", gd_int(b, 0));
  gd_aux_named(b, base, "unstack", "Unpack", &ua, 1, &bshape);
  const char *unst = b->pend[b->npend - 1]->name;
  const char *rng[TFS_MAX_RANK], *sz[TFS_MAX_RANK];
  for (int d = 0; d < bd; d++) {   /* cast(range(0, cast(dim, int32), 1), indices.dtype) */
    const char *dim = gd_cast_to(b, base, gd_out(b, unst, d), DT_INT32, DT_INT32);
    AttrList ra = {0};
    gd_attr_add(b, &ra, "Tidx", gd_type(b, DT_INT32));
    const char *rin[3] = {gd_i32(b, base, "Range/start", 1, &zero, false), dim,
                          gd_i32(b, base, "Range/delta", 1, &one, false)};
    rng[d] = gd_cast_to(b, base, gd_aux(b, base, "Range", &ra, 3, rin), DT_INT32, it);
  }
  /* meshgrid(indexing='ij'): each range reshaped to -1 on its own axis, times ones of all the sizes */
  tfs_i64 s0[TFS_MAX_RANK];
  for (int d = 0; d < bd; d++) {
    for (int k = 0; k < bd; k++) s0[k] = k == d ? -1 : 1;
    const char *sh = gd_i32(b, base, "meshgrid/Reshape/shape", bd, s0, true);
    rng[d] = gd_op2i(b, base, "meshgrid/Reshape", "Reshape", it, "Tshape", rng[d], sh);
    AttrList za = {0};
    gd_attr_add(b, &za, "T", gd_type(b, it));
    gd_attr_add(b, &za, "out_type", gd_type(b, DT_INT32));
    sz[d] = gd_aux_named(b, base, "meshgrid/Size", "Size", &za, 1, &rng[d]);
  }
  AttrList ka = {0};
  gd_attr_add(b, &ka, "N", gd_int(b, bd));
  gd_attr_add(b, &ka, "T", gd_type(b, DT_INT32));
  gd_attr_add(b, &ka, "axis", gd_int(b, 0));
  const char *sizes = gd_aux_named(b, base, "meshgrid/ones/packed", "Pack", &ka, bd, sz);
  AttrList fa = {0};
  gd_attr_add(b, &fa, "T", gd_type(b, it));
  gd_attr_add(b, &fa, "index_type", gd_type(b, DT_INT32));
  const char *fin[2] = {sizes, gd_constp(b, base, "meshgrid/ones/Const", gd_splat(b, &(TMeta){.dtype = it}, 1))};
  const char *ones = gd_aux_named(b, base, "meshgrid/ones", "Fill", &fa, 2, fin);
  const char *flat[TFS_MAX_RANK];
  for (int d = 0; d < bd; d++) {
    const char *mesh = gd_op2i(b, base, "meshgrid/mul", "Mul", it, NULL, rng[d], ones);
    const char *rs = gd_free_label(b, base, "Reshape");
    flat[d] = gd_op2i(b, base, rs, "Reshape", it, "Tshape", mesh, gd_i32(b, base, pa_printf(b->a, "%s/shape", rs), 1, &m1, true));
  }
  AttrList sa = {0};
  gd_attr_add(b, &sa, "N", gd_int(b, bd));
  gd_attr_add(b, &sa, "T", gd_type(b, it));
  gd_attr_add(b, &sa, "axis", gd_int(b, 0));
  const char *stk = gd_aux_named(b, base, "stack", "Pack", &sa, bd, flat);
  tfs_i64 perm[2] = {1, 0};
  const char *grid = gd_op2i(b, base, "transpose", "Transpose", it, "Tperm", stk, gd_i32(b, base, "transpose/perm", 2, perm, true));
  const char *gshape = gd_shape_i32(b, base, it, grid);
  int inner = irank - bd - 1;
  tfs_i64 ones_v[TFS_MAX_RANK];
  for (int d = 0; d < inner; d++) ones_v[d] = 1;
  const char *gparts[3] = {gd_vec_slice(b, base, gshape, 0, 1, 1, 0, 0), gd_i32(b, base, "ones", inner, ones_v, true),
                           gd_vec_slice(b, base, gshape, 1, 0, 0, 1, 0)};
  grid = gd_op2i(b, base, "Reshape", "Reshape", it, "Tshape", grid, gd_concat_dt(b, base, DT_INT32, 3, gparts, 0));
  const char *tc = gd_free_label(b, base, "concat");
  const char *tparts[3] = {gd_i32(b, base, pa_printf(b->a, "%s/values_0", tc), 1, &one, true), iinner,
                           gd_i32(b, base, pa_printf(b->a, "%s/values_2", tc), 1, &one, true)};
  grid = gd_op2i(b, base, "Tile", "Tile", it, "Tmultiples", grid, gd_concat_dt(b, base, DT_INT32, 3, tparts, 0));
  AttrList ba = {0};
  gd_attr_add(b, &ba, "N", gd_int(b, 1));
  gd_attr_add(b, &ba, "T", gd_type(b, DT_INT32));
  gd_attr_add(b, &ba, "axis", gd_int(b, 0));
  const char *fc = gd_free_label(b, base, "concat");
  const char *fparts[2] = {gd_aux_named(b, base, pa_printf(b->a, "%s/values_0", fc), "Pack", &ba, 1, &bsize),
                           gd_vec_slice(b, base, ishape, bd, 0, 0, 1, 0)};
  const char *fidx = gd_op2i(b, base, "Reshape", "Reshape", it, "Tshape", ix, gd_concat_dt(b, base, DT_INT32, 2, fparts, 0));
  const char *cparts[2] = {grid, fidx};
  const char *full = gd_concat_dt(b, base, it, 2, cparts, -1);
  const char *gin[2] = {x, full};
  const char *out = gd_aux(b, base, "GatherNd", gat_attrs, 2, gin);
  const char *oparts[2] = {bshape, gd_vec_slice(b, base, gd_shape_i32(b, base, t, out), 1, 0, 0, 1, 0)};
  gd_op2i(b, base, "Reshape", "Reshape", t, "Tshape", out, gd_concat_dt(b, base, DT_INT32, 2, oparts, 0));
  return true;
}

/* GatherNd(params, indices) has no batch_dims in TF: TF's batch_gather_nd prepends each row's batch
 * coordinates to indices (params' batch dims flattened to one of nb elements) and reshapes the result to
 * params' batch dims.  With static shapes the coordinates are one Const here; with dims unknown while tracing
 * they are computed from the shapes as TF does (gd_gather_nd_dyn). */
static bool gd_r_gather_nd(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int64_t bd = 0;
  if (!x || n->nin < 2 || n->in[1].node < 0) return false;
  if (n->attrs.n > 0 && n->attrs.v[0].tag != VT_NONE && !val_as_int(n->attrs.v[0], &bd)) return false;
  const char *ix = gd_ref(b, g, n->in[1], b->fn);
  const TMeta *im = graph_meta(g, n->in[1]), *om = &n->outm[0];
  gd_attr_add(b, &at, "Tparams", gd_type(b, t));
  gd_attr_add(b, &at, "Tindices", gd_type(b, im->dtype));
  if (bd == 0) {
    const char *in[2] = {x, ix};
    gd_aux(b, base, "GatherNd", &at, 2, in);
    return true;
  }
  if (!xm || xm->rank < 0 || im->rank < 0 || om->rank < 0) return false;
  bool known = true;
  for (int d = 0; d < xm->rank; d++)
    if (xm->shape[d] < 0) known = false;
  for (int d = 0; d < im->rank; d++)
    if (im->shape[d] < 0) known = false;
  if (!known) return gd_gather_nd_dyn(b, base, t, x, xm, ix, im->dtype, im->rank, (int)bd, &at);
  int r = im->rank - (int)bd + 1;   /* [nb, i..., k] */
  tfs_i64 nb = 1, inner = 1, fs[TFS_MAX_RANK], gs[TFS_MAX_RANK];
  for (int d = 0; d < bd; d++) nb *= xm->shape[d];
  fs[0] = gs[0] = nb;
  for (int d = 1; d < r; d++) fs[d] = gs[d] = im->shape[bd + d - 1];
  for (int d = 1; d < r - 1; d++) inner *= fs[d];
  gs[r - 1] = bd;
  Tensorflow__TensorProto *p = pa_alloc(b->a, sizeof *p);   /* the batch coordinates of every index row */
  tensorflow__tensor_proto__init(p);
  bool i64 = im->dtype == DT_INT64;
  p->dtype = i64 ? TENSORFLOW__DATA_TYPE__DT_INT64 : TENSORFLOW__DATA_TYPE__DT_INT32;
  p->tensor_shape = pb_shape(b->a, r, gs);
  size_t cnt = (size_t)(nb * inner * bd);
  if (i64) { p->n_int64_val = cnt; p->int64_val = pa_alloc(b->a, sizeof(int64_t) * (cnt + 1)); }
  else { p->n_int_val = cnt; p->int_val = pa_alloc(b->a, sizeof(int32_t) * (cnt + 1)); }
  size_t k = 0;
  for (tfs_i64 q = 0; q < nb; q++)
    for (tfs_i64 j = 0; j < inner; j++) {
      tfs_i64 c[TFS_MAX_RANK], qq = q;
      for (int d = (int)bd - 1; d >= 0; d--) { c[d] = qq % xm->shape[d]; qq /= xm->shape[d]; }
      for (int d = 0; d < bd; d++, k++) {
        if (i64) p->int64_val[k] = c[d];
        else p->int_val[k] = (int32_t)c[d];
      }
    }
  const char *grid = gd_constp(b, base, "index_grid", p);
  const char *flat = gd_reshape_to(b, base, im->dtype, ix, r, fs);
  AttrList ca = {0};
  gd_attr_add(b, &ca, "N", gd_int(b, 2));
  gd_attr_add(b, &ca, "T", gd_type(b, im->dtype));
  gd_attr_add(b, &ca, "Tidx", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  tfs_i64 minus1 = -1;
  const char *cin[3] = {grid, flat, gd_i32(b, base, "axis", 1, &minus1, false)};
  const char *full = gd_aux(b, base, "ConcatV2", &ca, 3, cin);
  const char *gin[2] = {x, full};
  const char *gat = gd_aux(b, base, "GatherNd", &at, 2, gin);
  gd_reshape_to(b, base, t, gat, om->rank, om->shape);
  return true;
}

/* TF 2.15's tf.linspace is linspace_nd, no LinSpace node: start and stop broadcast and expanded at axis,
 * start + (stop - start) / steps * [1 .. num-2], ConcatV2 of start, those and stop along axis, Slice of num.
 * TF computes the shapes and the range with Shape/Range/... ops; with static shapes they are Consts here. */
static bool gd_r_linspace(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const TMeta *om = &n->outm[0];
  if (!x || n->nin < 2 || n->in[1].node < 0 || om->rank < 1 || (t != DT_FLOAT32 && t != DT_FLOAT64)) return false;
  for (int d = 0; d < om->rank; d++)
    if (om->shape[d] < 0) return false;
  int64_t axis = 0;
  if (n->attrs.n > 1 && n->attrs.v[1].tag != VT_NONE && !val_as_int(n->attrs.v[1], &axis)) return false;
  int r = om->rank, ax = (int)(axis < 0 ? axis + r : axis);
  tfs_i64 num = om->shape[ax], steps = num - 1 > 1 ? num - 1 : 1, es[TFS_MAX_RANK], bs[TFS_MAX_RANK], zero[TFS_MAX_RANK];
  for (int d = 0, j = 0; d < r; d++) {
    es[d] = d == ax ? 1 : om->shape[d];
    if (d != ax) bs[j++] = om->shape[d];
    zero[d] = 0;
  }
  const char *ends[2];
  for (int i = 0; i < 2; i++) {   /* BroadcastTo the common shape, then the axis of 1 (ExpandDims in TF) */
    const char *v = i == 0 ? x : gd_ref(b, g, n->in[1], b->fn);
    AttrList ba = {0};
    gd_attr_add(b, &ba, "T", gd_type(b, t));
    gd_attr_add(b, &ba, "Tidx", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
    const char *bin[2] = {v, gd_i32(b, base, "shape", r - 1, bs, true)};
    ends[i] = gd_reshape_to(b, base, t, gd_aux(b, base, "BroadcastTo", &ba, 2, bin), r, es);
  }
  const char *delta = gd_opT(b, base, "RealDiv", t, gd_opT(b, base, "Sub", t, ends[1], ends[0]),
                             gd_fill(b, base, "num_steps", t, (double)steps, 0, NULL));
  tfs_i64 rs[TFS_MAX_RANK];
  for (int d = 0; d < r; d++) rs[d] = d == ax ? (num > 2 ? num - 2 : 0) : 1;
  Tensor *rt = tensor_new(t, r, rs);   /* 1 .. num-2 along axis */
  for (tfs_i64 i = 0; i < rt->size; i++) {
    if (t == DT_FLOAT32) ((float *)tensor_data(rt))[i] = (float)(i + 1);
    else ((double *)tensor_data(rt))[i] = (double)(i + 1);
  }
  Tensorflow__TensorProto *rp = pb_const_tensor(b->a, rt);
  val_decref(val_obj(rt));
  const char *res = gd_opT(b, base, "AddV2", t, ends[0], gd_opT(b, base, "Mul", t, delta, gd_constp(b, base, "range", rp)));
  AttrList ca = {0};
  gd_attr_add(b, &ca, "N", gd_int(b, 3));
  gd_attr_add(b, &ca, "T", gd_type(b, t));
  gd_attr_add(b, &ca, "Tidx", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  tfs_i64 axv = ax;
  const char *cin[4] = {ends[0], res, ends[1], gd_i32(b, base, "axis", 1, &axv, false)};
  const char *cat = gd_aux(b, base, "ConcatV2", &ca, 4, cin);
  AttrList sa = {0};
  gd_attr_add(b, &sa, "T", gd_type(b, t));
  gd_attr_add(b, &sa, "Index", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  const char *sin[3] = {cat, gd_i32(b, base, "begin", r, zero, true), gd_i32(b, base, "size", r, om->shape, true)};
  gd_aux(b, base, "Slice", &sa, 3, sin);
  return true;
}

/* the multiples or shape is an int32 input */
static bool gd_r_tile(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  bool tile = n->op->id == OP_TILE;
  if (!x) return false;
  const char *in[2] = {x, gd_attr_input(b, g, n, 0, tile ? "multiples" : "shape", NULL, -1, true, &tidx)};
  if (!in[1]) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, tile ? "Tmultiples" : "Tidx", gd_pbtype(b, tidx));
  gd_aux(b, base, n->op->graph_name, &at, 2, in);
  return true;
}

/* Fill(dims, value) */
static bool gd_r_fill(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  const char *in[2] = {gd_attr_input(b, g, n, 0, "dims", NULL, -1, true, &tidx), x};
  if (!in[0]) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "index_type", gd_pbtype(b, tidx));
  gd_aux(b, base, "Fill", &at, 2, in);
  return true;
}

/* Range(start, limit, delta) of the output dtype; range(n) starts at 0 */
static bool gd_r_range(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  DType dt = n->outm[0].dtype;
  bool one = n->attrs.n > 1 && (n->attrs.v[1].tag == VT_NONE || val_is_undef(n->attrs.v[1]));
  for (int k = 0; k < n->ndyn; k++)
    if (n->dyn_attr[k] == 1) one = false;
  const char *in[3] = {one ? gd_fill(b, base, "start", dt, 0, 0, NULL) : gd_num_input(b, g, n, 0, "start", dt, 0),
                       gd_num_input(b, g, n, one ? 0 : 1, "limit", dt, 0), gd_num_input(b, g, n, 2, "delta", dt, 1)};
  if (!in[0] || !in[1] || !in[2]) return false;
  gd_attr_add(b, &at, "Tidx", gd_type(b, dt));
  gd_aux(b, base, "Range", &at, 3, in);
  return true;
}

static bool gd_r_cast(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  gd_attr_add(b, &at, "SrcT", gd_type(b, t));
  gd_attr_add(b, &at, "DstT", gd_type(b, n->outm[0].dtype));
  gd_attr_add(b, &at, "Truncate", gd_bool(b, false));
  gd_aux(b, base, "Cast", &at, 1, &x);
  return true;
}

/* Complex, Real, Imag, Angle and ComplexAbs (tf.abs of a complex tensor) carry Tout, the part or complex dtype;
 * real and conj of a real tensor are the tensor (Identity), imag of one its zeros (ZerosLike), as TF's wrappers. */
static bool gd_r_complex(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  OpId id = n->op->id;
  if (!x) return false;
  bool cx = dtype_is_complex(t);
  if (id == OP_ABS && !cx) return false;
  if (!cx && id != OP_COMPLEX && id != OP_ANGLE) {
    gd_attr_add(b, &at, "T", gd_type(b, t));
    gd_aux(b, base, id == OP_IMAG ? "ZerosLike" : "Identity", &at, 1, &x);
    return true;
  }
  gd_attr_add(b, &at, "T", gd_type(b, t));
  if (id != OP_CONJ) gd_attr_add(b, &at, "Tout", gd_type(b, n->outm[0].dtype));
  if (id == OP_COMPLEX) {
    if (n->nin < 2 || n->in[1].node < 0) return false;
    const char *in[2] = {x, gd_ref(b, g, n->in[1], b->fn)};
    gd_aux(b, base, "Complex", &at, 2, in);
    return true;
  }
  gd_aux(b, base, id == OP_ABS ? "ComplexAbs" : n->op->graph_name, &at, 1, &x);
  return true;
}

static bool gd_r_argmax(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  tfs_i64 zero = 0;
  if (!x) return false;
  const char *in[2] = {x, gd_attr_input(b, g, n, 0, "dimension", &zero, 1, false, &tidx)};
  if (!in[1]) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "Tidx", gd_pbtype(b, tidx));
  gd_attr_add(b, &at, "output_type", gd_type(b, n->outm[0].dtype));
  gd_aux(b, base, n->op->graph_name, &at, 2, in);
  return true;
}

static bool gd_r_reshape(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  /* the shape, axis or perm is an int32 input; Transpose's default perm reverses the dimensions */
  tfs_i64 rev[TFS_MAX_RANK];
  for (int i = 0; i < rank; i++) rev[i] = rank - 1 - i;
  bool tr = n->op->id == OP_TRANSPOSE;
  if (!x || (tr && rank < 0)) return false;
  const char *in[2] = {x, gd_attr_input(b, g, n, 0, tr ? "perm" : n->op->id == OP_RESHAPE ? "shape" : "dim", rev,
                                         tr ? rank : -1, true, &tidx)};
  if (!in[1]) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, tr ? "Tperm" : n->op->id == OP_RESHAPE ? "Tshape" : "Tdim", gd_pbtype(b, tidx));
  /* tf.transpose(conjugate=True) of a complex tensor is TF's ConjugateTranspose node */
  bool conj = tr && dtype_is_complex(t) && gd_attr_bool(n, 1);
  gd_aux(b, base, conj ? "ConjugateTranspose" : n->op->graph_name, &at, 2, in);
  return true;
}

static bool gd_r_strided_slice(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  return x && gd_strided_slice(b, g, n, x, t);
}

/* Slice(input, begin, size) */
static bool gd_r_slice(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  Tensorflow__DataType t2;
  if (!x) return false;
  const char *in[3] = {x, gd_attr_input(b, g, n, 0, "begin", NULL, -1, true, &tidx),
                       gd_attr_input(b, g, n, 1, "size", NULL, -1, true, &t2)};
  if (!in[1] || !in[2] || tidx != t2) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "Index", gd_pbtype(b, tidx));
  gd_aux(b, base, "Slice", &at, 3, in);
  return true;
}

/* PadV2(input, paddings, constant_values), or MirrorPad with its mode */
static bool gd_r_pad(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  Tensorflow__DataType tp;
  if (!x) return false;
  const char *pads = gd_paddings(b, g, n, &tp);
  Val mode = n->attrs.n > 1 ? n->attrs.v[1] : val_none();
  const char *ms = val_is(mode, &str_type) ? str_cstr(mode) : "CONSTANT";
  if (!pads) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "Tpaddings", gd_pbtype(b, tp));
  if (strcasecmp(ms, "CONSTANT")) {
    gd_attr_add(b, &at, "mode", gd_str(b, !strcasecmp(ms, "REFLECT") ? "REFLECT" : "SYMMETRIC"));
    const char *in[2] = {x, pads};
    gd_aux(b, base, "MirrorPad", &at, 2, in);
    return true;
  }
  const char *in[3] = {x, pads, gd_num_input(b, g, n, 2, "constant_values", t, 0)};
  if (!in[2]) return false;
  gd_aux(b, base, "PadV2", &at, 3, in);
  return true;
}

/* OneHot(indices, depth, on_value, off_value) with axis */
static bool gd_r_one_hot(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  DType ot = n->outm[0].dtype;
  int64_t axis = -1;
  if (!x || (n->attrs.n > 3 && n->attrs.v[3].tag != VT_NONE && !val_is_undef(n->attrs.v[3]) && !val_as_int(n->attrs.v[3], &axis)))
    return false;
  const char *in[4] = {x, gd_num_input(b, g, n, 0, "depth", DT_INT32, 0), gd_num_input(b, g, n, 1, "on_value", ot, 1),
                       gd_num_input(b, g, n, 2, "off_value", ot, 0)};
  if (!in[1] || !in[2] || !in[3]) return false;
  gd_attr_add(b, &at, "T", gd_type(b, ot));
  gd_attr_add(b, &at, "TI", gd_type(b, t));
  gd_attr_add(b, &at, "axis", gd_int(b, axis));
  gd_aux(b, base, "OneHot", &at, 4, in);
  return true;
}

/* on the last axis; another axis is moved there and back, as TF does */
static bool gd_r_softmax(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int64_t axis = -1;
  if (!x || n->ndyn || (n->attrs.n > 0 && n->attrs.v[0].tag != VT_NONE && !val_is_undef(n->attrs.v[0]) &&
                        !val_as_int(n->attrs.v[0], &axis)))
    return false;
  if (rank < 0 && axis != -1) return false;
  if (axis < 0) axis += rank;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  if (rank <= 0 || axis == rank - 1) {
    gd_aux(b, base, n->op->graph_name, &at, 1, &x);
    return true;
  }
  if (axis < 0 || axis >= rank) return false;
  tfs_i64 perm[TFS_MAX_RANK];
  for (int i = 0; i < rank; i++) perm[i] = i;
  perm[axis] = rank - 1, perm[rank - 1] = axis;
  const char *pc = gd_i32(b, base, "perm", rank, perm, true);
  AttrList ta = {0}, tb = {0};
  gd_attr_add(b, &ta, "T", gd_type(b, t));
  gd_attr_add(b, &ta, "Tperm", gd_type(b, DT_INT32));
  const char *tin[2] = {x, pc};
  const char *tx = gd_aux(b, base, "Transpose", &ta, 2, tin);
  const char *sm = gd_aux(b, base, n->op->graph_name, &at, 1, &tx);
  gd_attr_add(b, &tb, "T", gd_type(b, t));
  gd_attr_add(b, &tb, "Tperm", gd_type(b, DT_INT32));
  const char *bin[2] = {sm, pc};
  gd_aux_named(b, base, "Transpose_1", "Transpose", &tb, 2, bin);
  return true;
}

/* TF's gradient ops take the shape of what they compute (input_sizes / filter_sizes / orig_input_shape) in its
 * place: Shape (int32) of the tensor src under that name. */
static const char *gd_sizes_of(GdBuild *b, const char *base, const char *name, DType t, const char *src) {
  AttrList sa = {0};
  gd_attr_add(b, &sa, "T", gd_type(b, t));
  gd_attr_add(b, &sa, "out_type", gd_type(b, DT_INT32));
  return gd_aux_named(b, base, name, "Shape", &sa, 1, &src);
}

static bool gd_r_conv2d(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 2 || n->in[1].node < 0) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  if (!gd_window_attrs(b, &at, n, -1, 0, 1, 3, true)) return false;
  const char *in[2] = {x, gd_ref(b, g, n->in[1], b->fn)};
  gd_aux(b, base, "Conv2D", &at, 2, in);
  return true;
}

static bool gd_r_conv2d_bp_input(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  /* TF's gradients take the shape of what they compute (input_sizes / filter_sizes) in its place */
  bool bi = n->op->id == OP_CONV2D_BP_INPUT;
  if (!x || n->nin < 3 || n->in[1].node < 0 || n->in[2].node < 0) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  if (!gd_window_attrs(b, &at, n, -1, 0, 1, 2, true)) return false;
  const char *f = gd_ref(b, g, n->in[1], b->fn), *dy = gd_ref(b, g, n->in[2], b->fn);
  const char *shp = gd_sizes_of(b, base, bi ? "input_sizes" : "filter_sizes", t, bi ? x : f);
  const char *in[3] = {bi ? shp : x, bi ? f : shp, dy};
  gd_aux(b, base, n->op->graph_name, &at, 3, in);
  return true;
}

/* Conv3D and its gradients: strides and dilations as TF's 5 ints (tfs keeps them so), NDHWC; the gradients take
 * the shape of what they compute (input_sizes / filter_sizes, int32) in its place, as Conv2D's. */
static bool gd_five(Val v, int out[5]) {
  tfs_i64 x[8];
  bool vec;
  for (int i = 0; i < 5; i++) out[i] = 1;
  if (v.tag == VT_NONE || val_is_undef(v)) return true;
  if (gd_ints_of(v, x, 8, &vec) != 5) return false;
  for (int i = 0; i < 5; i++) out[i] = (int)x[i];
  return true;
}

static bool gd_r_conv3d(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  bool fwd = n->op->id == OP_CONV3D;
  int nin = fwd ? 2 : 3, dil_at = fwd ? 3 : 2;
  if (!x || n->nin < nin) return false;
  for (int i = 1; i < nin; i++)
    if (n->in[i].node < 0) return false;
  int st[5], dl[5];
  Val pad = n->attrs.n > 1 ? n->attrs.v[1] : val_none();
  if (!val_is(pad, &str_type) || !gd_five(n->attrs.v[0], st) || !gd_five(n->attrs.n > dil_at ? n->attrs.v[dil_at] : val_none(), dl))
    return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "strides", gd_ints(b, 5, st));
  gd_attr_add(b, &at, "padding", gd_str(b, str_cstr(pad)));
  gd_attr_add(b, &at, "data_format", gd_str(b, "NDHWC"));
  gd_attr_add(b, &at, "dilations", gd_ints(b, 5, dl));
  const char *in[3] = {x, gd_ref(b, g, n->in[1], b->fn), fwd ? NULL : gd_ref(b, g, n->in[2], b->fn)};
  if (!fwd) {
    bool bi = n->op->id == OP_CONV3D_BP_INPUT;
    if (bi) gd_attr_add(b, &at, "Tshape", gd_type(b, DT_INT32));
    in[bi ? 0 : 1] = gd_sizes_of(b, base, bi ? "input_sizes" : "filter_sizes", t, in[bi ? 0 : 1]);
  }
  gd_aux(b, base, n->op->graph_name, &at, nin, in);
  return true;
}

/* MaxPool3D / AvgPool3D and their gradients: ksize and strides as TF's 5 ints (tfs also takes 1 or 3, as
 * tf.nn.max_pool3d does); MaxPool3DGrad takes the pooled output too (MaxPool3D again), AvgPool3DGrad the input's
 * shape (int32). */
static bool gd_pool5(Val v, int out[5]) {
  tfs_i64 x[8];
  bool vec;
  int n = v.tag == VT_NONE || val_is_undef(v) ? -1 : gd_ints_of(v, x, 8, &vec);
  out[0] = out[4] = 1;
  if (n == 1) out[1] = out[2] = out[3] = (int)x[0];
  else if (n == 3) for (int i = 0; i < 3; i++) out[1 + i] = (int)x[i];
  else if (n == 5) for (int i = 0; i < 5; i++) out[i] = (int)x[i];
  else return false;
  return true;
}

static bool gd_r_pool3d(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int id = n->op->id;
  bool grad = id == OP_MAX_POOL3D_GRAD || id == OP_AVG_POOL3D_GRAD, max = id == OP_MAX_POOL3D || id == OP_MAX_POOL3D_GRAD;
  if (!x || (grad && (n->nin < 2 || n->in[1].node < 0)) || n->attrs.n < 3) return false;
  int ks[5], st[5];
  Val pad = n->attrs.v[2];
  if (!val_is(pad, &str_type) || !gd_pool5(n->attrs.v[0], ks) || !gd_pool5(n->attrs.v[1], st)) return false;
  /* each node gets its own list (a node keeps the list it is given) */
  AttrList pa[2] = {{0}, {0}};
  for (int k = 0; k < 2; k++) {
    AttrList *l = k ? &pa[1] : &at;
    gd_attr_add(b, l, "T", gd_type(b, t));
    gd_attr_add(b, l, "ksize", gd_ints(b, 5, ks));
    gd_attr_add(b, l, "strides", gd_ints(b, 5, st));
    gd_attr_add(b, l, "padding", gd_str(b, str_cstr(pad)));
    gd_attr_add(b, l, "data_format", gd_str(b, "NDHWC"));
  }
  if (!grad) {
    gd_aux(b, base, n->op->graph_name, &at, 1, &x);
    return true;
  }
  const char *dy = gd_ref(b, g, n->in[1], b->fn);
  if (max) {
    const char *pooled = gd_aux(b, base, "MaxPool3D", &pa[1], 1, &x);
    gd_attr_add(b, &at, "TInput", gd_type(b, t));
    const char *in[3] = {x, pooled, dy};
    gd_aux(b, base, "MaxPool3DGrad", &at, 3, in);
    return true;
  }
  const char *in[2] = {gd_sizes_of(b, base, "orig_input_shape", t, x), dy};
  gd_aux(b, base, "AvgPool3DGrad", &at, 2, in);
  return true;
}

/* DepthwiseConv2dNative and its gradients: TF's attributes (explicit_paddings the 8 ints of EXPLICIT padding); the
 * gradients take the shape of what they compute (input_sizes / filter_sizes) in its place, as Conv2D's. */
static bool gd_r_depthwise(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int nin = n->op->id == OP_DEPTHWISE ? 2 : 3;
  if (!x || n->nin < nin) return false;
  for (int i = 1; i < nin; i++)
    if (n->in[i].node < 0) return false;
  int st[4], dl[4];
  tfs_i64 e[8];
  bool vec;
  Val pad = n->attrs.n > 1 ? n->attrs.v[1] : val_none(), ex = n->attrs.n > 2 ? n->attrs.v[2] : val_none();
  int ne = ex.tag == VT_NONE || val_is_undef(ex) ? 0 : gd_ints_of(ex, e, 8, &vec);
  if (!val_is(pad, &str_type) || ne < 0 || !gd_nhwc4(n->attrs.v[0], 1, st) ||
      !gd_nhwc4(n->attrs.n > 4 ? n->attrs.v[4] : val_none(), 1, dl))
    return false;
  int ei[8];
  for (int i = 0; i < ne; i++) ei[i] = (int)e[i];
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "strides", gd_ints(b, 4, st));
  gd_attr_add(b, &at, "padding", gd_str(b, str_cstr(pad)));
  gd_attr_add(b, &at, "explicit_paddings", gd_ints(b, ne, ei));
  gd_attr_add(b, &at, "data_format", gd_str(b, "NHWC"));
  gd_attr_add(b, &at, "dilations", gd_ints(b, 4, dl));
  const char *in[3] = {x, gd_ref(b, g, n->in[1], b->fn), nin > 2 ? gd_ref(b, g, n->in[2], b->fn) : NULL};
  if (nin > 2) {
    bool bi = n->op->id == OP_DEPTHWISE_BP_INPUT;
    in[bi ? 0 : 1] = gd_sizes_of(b, base, bi ? "input_sizes" : "filter_sizes", t, in[bi ? 0 : 1]);
  }
  gd_aux(b, base, n->op->graph_name, &at, nin, in);
  return true;
}

static bool gd_r_max_pool(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  if (!gd_window_attrs(b, &at, n, 0, 1, 2, -1, false)) return false;
  gd_aux(b, base, "MaxPool", &at, 1, &x);
  return true;
}

/* TF's MaxPoolGrad also takes the pooled output: MaxPool again */
static bool gd_r_max_pool_grad(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 2 || n->in[1].node < 0) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  if (!gd_window_attrs(b, &at, n, 0, 1, 2, -1, false)) return false;
  const char *pooled = gd_aux(b, base, "MaxPool", &at, 1, &x);
  const char *in[3] = {x, pooled, gd_ref(b, g, n->in[1], b->fn)};
  gd_aux(b, base, "MaxPoolGrad", &at, 3, in);
  return true;
}

static bool gd_r_stack_push(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  return gd_stack_op(b, g, n);
}

static bool gd_r_rng_state(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  gd_rng(b, n, NULL);
  return true;
}

static bool gd_r_rng_swap(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  gd_rng(b, n, x);
  return true;
}

static bool gd_r_scatter_grad(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  return gd_scatter_grad(b, g, n);
}

/* _SumTo(dy, x): as TF's broadcasting gradients, BroadcastGradientArgs of the two shapes, Sum of dy over x's
 * reduction indices (r0), Reshape to x's shape. */
static bool gd_r_sum_to(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (n->nin < 2 || n->in[0].node < 0 || n->in[1].node < 0) return false;
  const char *dy = gd_ref(b, g, n->in[0], b->fn), *xi = gd_ref(b, g, n->in[1], b->fn);
  AttrList ya = {0}, xa = {0}, ba = {0}, ra = {0};
  gd_attr_add(b, &ya, "T", gd_type(b, graph_meta(g, n->in[0])->dtype));
  gd_attr_add(b, &ya, "out_type", gd_type(b, DT_INT32));
  const char *sy = gd_aux(b, base, "Shape", &ya, 1, &dy);
  gd_attr_add(b, &xa, "T", gd_type(b, graph_meta(g, n->in[1])->dtype));
  gd_attr_add(b, &xa, "out_type", gd_type(b, DT_INT32));
  const char *sx = gd_aux(b, base, "Shape", &xa, 1, &xi);
  gd_attr_add(b, &ba, "T", gd_type(b, DT_INT32));
  const char *bin[2] = {sx, sy};
  const char *bga = gd_aux(b, base, "BroadcastGradientArgs", &ba, 2, bin);
  const char *r0 = b->fn ? pa_printf(b->a, "%.*s:r0:0", (int)(strlen(bga) - strlen(":output:0")), bga) : bga;
  const char *sum = gd_reduce(b, base, "Sum", t, dy, r0, TENSORFLOW__DATA_TYPE__DT_INT32, false);
  gd_attr_add(b, &ra, "T", gd_type(b, t));
  gd_attr_add(b, &ra, "Tshape", gd_type(b, DT_INT32));
  const char *rin[2] = {sum, sx};
  gd_aux(b, base, "Reshape", &ra, 2, rin);
  return true;
}

static bool gd_r_dataset_iter(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  return gd_dataset_op(b, g, n);
}

/* A dataset made from traced tensors: TensorSliceDataset / TensorDataset over the components (TF's
 * Toutput_types and output_shapes; slices drop the leading dimension), RangeDataset(start, stop, step). */
static bool gd_r_ds_source(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + 1));
  const TMeta **m = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(n->nin + 1));
  TMeta *sh = pa_alloc(b->a, sizeof(TMeta) * (size_t)(n->nin + 1));
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node < 0) return false;
    in[i] = gd_ref(b, g, n->in[i], b->fn);
    m[i] = graph_meta(g, n->in[i]);
    sh[i] = *m[i];
  }
  if (n->op->id == OP_DATASET_RANGE) {
    DType odt = DT_INT64;
    if (n->attrs.n > 0) val_as_dtype(n->attrs.v[0], &odt);
    TMeta om;
    meta_set(&om, odt, 0, NULL);
    const TMeta *omp = &om;
    gd_attr_add(b, &at, "output_types", gd_types(b, 1, &omp));
    gd_attr_add(b, &at, "output_shapes", gd_shapes(b, 1, &om));
    gd_aux(b, base, "RangeDataset", &at, n->nin, in);
    return true;
  }
  bool slices = n->op->id == OP_DATASET_SLICES;
  for (int i = 0; slices && i < n->nin; i++) {
    if (sh[i].rank < 1) return false;
    sh[i].rank--;
    memmove(sh[i].shape, sh[i].shape + 1, sizeof(tfs_i64) * (size_t)sh[i].rank);
  }
  gd_attr_add(b, &at, "Toutput_types", gd_types(b, n->nin, m));
  gd_attr_add(b, &at, "output_shapes", gd_shapes(b, n->nin, sh));
  gd_aux(b, base, slices ? "TensorSliceDataset" : "TensorDataset", &at, n->nin, in);
  return true;
}

/* TF adds two lists' gradients as variants with AddN */
static bool gd_r_tl_add(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 2 || n->in[1].node < 0) return false;
  const char *in[2] = {x, gd_ref(b, g, n->in[1], b->fn)};
  gd_attr_add(b, &at, "N", gd_int(b, 2));
  gd_attr_add(b, &at, "T", gd_type(b, DT_VARIANT));
  gd_aux(b, base, "AddN", &at, 2, in);
  return true;
}

static bool gd_r_tl_concat_grad(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  /* TF's gradient of TensorListConcatV2: TensorListSplit of dy at the lengths the concatenation reports */
  if (!x || n->nin < 2 || n->in[1].node < 0) return false;
  const char *dy = gd_ref(b, g, n->in[1], b->fn);
  DType et = graph_meta(g, n->in[1])->dtype;
  tfs_i64 m1 = -1;
  const char *es = gd_i32(b, base, "element_shape", 1, &m1, false);
  AttrList ca = {0};
  gd_attr_add(b, &ca, "element_dtype", gd_type(b, et));
  gd_attr_add(b, &ca, "shape_type", gd_type(b, DT_INT32));
  const char *cin[3] = {x, es, gd_no_leading_dims(b, base)};
  gd_aux(b, base, "TensorListConcatV2", &ca, 3, cin);
  const char *cn = b->pend[b->npend - 1]->name;
  gd_attr_add(b, &at, "element_dtype", gd_type(b, et));
  gd_attr_add(b, &at, "shape_type", gd_type(b, DT_INT32));
  const char *sin[3] = {dy, es, b->fn ? pa_printf(b->a, "%s:output:1", cn) : pa_printf(b->a, "%s:1", cn)};
  gd_aux(b, base, "TensorListSplit", &at, 3, sin);
  return true;
}

/* tf.zeros / tf.ones of a static shape: TF's Python writes a Const of the value and shape (Zeros/Ones are no TF op) */
static bool gd_r_zeros(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!n->nout || n->outm[0].dtype == DT_STRING) return false;
  gd_constp(b, base, "Const", gd_splat(b, &n->outm[0], n->op->id == OP_ONES));
  return true;
}

/* TF's logical ops have no T */
static bool gd_r_logical(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char *in[2];
  for (int i = 0; i < n->nin; i++)
    if (i >= 2 || n->in[i].node < 0) return false;
    else in[i] = gd_ref(b, g, n->in[i], b->fn);
  gd_aux(b, base, n->op->graph_name, NULL, n->nin, in);
  return true;
}

/* tf.matmul: MatMul with transpose_a/b (adjoint_a/b are the same for real dtypes); batched products BatchMatMulV2 with adj_x/adj_y */
static bool gd_r_matmul(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 2 || n->in[1].node < 0 || n->ndyn) return false;
  const char *in[2] = {x, gd_ref(b, g, n->in[1], b->fn)};
  bool batch = rank > 2 || graph_meta(g, n->in[1])->rank > 2;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, batch ? "adj_x" : "transpose_a", gd_bool(b, gd_attr_bool(n, 0) || gd_attr_bool(n, 2)));
  gd_attr_add(b, &at, batch ? "adj_y" : "transpose_b", gd_bool(b, gd_attr_bool(n, 1) || gd_attr_bool(n, 3)));
  gd_aux(b, base, batch ? "BatchMatMulV2" : "MatMul", &at, 2, in);
  return true;
}

/* TF's TensorList ops (tf.TensorArray in graphs) take element_shape as an int32
 * input (-1: unknown) and say element_dtype (and shape_type where TF has it);
 * no T. */
static bool gd_r_tensorlist(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char *in[3];
  int nin = 0, es = -1, ed = -1;   /* attribute positions of element_shape and element_dtype */
  DType et = DT_FLOAT32;
  bool have_et = false, shape_type = false;
  switch (n->op->id) {
    case OP_TL_RESERVE: case OP_TL_CONCAT: es = 0, ed = 1, shape_type = true; break;
    case OP_TL_FROM_TENSOR:
      es = 0, shape_type = true;
      if (xm) et = xm->dtype, have_et = true;
      break;
    case OP_TL_SET_ITEM: case OP_TL_SCATTER:   /* the dtype of the item or tensor written */
      if (n->nin > 2) et = graph_meta(g, n->in[n->op->id == OP_TL_SET_ITEM ? 2 : 1])->dtype, have_et = true;
      break;
    case OP_TL_GET_ITEM: case OP_TL_GATHER: case OP_TL_STACK: es = 0, ed = 1; break;
    default: break;   /* TensorListResize, TensorListLength: no attributes */
  }
  for (int i = 0; i < n->nin; i++)
    if (n->in[i].node < 0) return false;
  tfs_i64 m1 = -1;
  Val esv = es >= 0 && es < n->attrs.n ? n->attrs.v[es] : val_none();
  const char *shape = es < 0 ? NULL
                      : val_is(esv, &tshape_type) && ((const TShape *)esv.u.o)->rank < 0   /* unknown rank: -1 */
                          ? gd_i32(b, base, "element_shape", 1, &m1, false)
                          : gd_attr_input(b, g, n, es, "element_shape", &m1, 1, false, &tidx);
  if (es >= 0 && val_is(esv, &tshape_type) && ((const TShape *)esv.u.o)->rank < 0) tidx = TENSORFLOW__DATA_TYPE__DT_INT32;
  if (es >= 0 && !shape) return false;
  if (ed >= 0) {
    if (ed >= n->attrs.n || !val_as_dtype(n->attrs.v[ed], &et)) return false;
    have_et = true;
  }
  bool need_dt = n->op->id != OP_TL_RESIZE && n->op->id != OP_TL_LENGTH;
  if (need_dt && !have_et) return false;
  /* TF's inputs in order: element_shape first for Reserve; after the list (and index/indices) otherwise */
  if (n->op->id == OP_TL_RESERVE) {
    in[nin++] = shape;
    in[nin++] = x;
  } else {
    for (int i = 0; i < n->nin && nin < 2; i++) in[nin++] = gd_ref(b, g, n->in[i], b->fn);
    if (n->op->id == OP_TL_SET_ITEM || n->op->id == OP_TL_SCATTER) in[nin++] = gd_ref(b, g, n->in[2], b->fn);
    else if (shape) in[nin++] = shape;
  }
  if (n->op->id == OP_TL_CONCAT) {   /* no leading dims: an empty int64 vector */
    const char *cin[3] = {in[0], in[1], gd_no_leading_dims(b, base)};
    gd_attr_add(b, &at, "element_dtype", gd_type(b, et));
    gd_attr_add(b, &at, "shape_type", gd_pbtype(b, tidx));
    gd_aux(b, base, "TensorListConcatV2", &at, 3, cin);
    return true;
  }
  if (need_dt) gd_attr_add(b, &at, "element_dtype", gd_type(b, et));
  if (shape_type) gd_attr_add(b, &at, "shape_type", gd_pbtype(b, tidx));
  if (n->op->id == OP_TL_SET_ITEM) gd_attr_add(b, &at, "resize_if_index_out_of_bounds", gd_bool(b, gd_attr_bool(n, 0)));
  if (n->op->id == OP_TL_STACK) {
    int64_t ne = -1;
    if (n->attrs.n > 2) val_as_int(n->attrs.v[2], &ne);
    gd_attr_add(b, &at, "num_elements", gd_int(b, ne));
  }
  gd_aux(b, base, n->op->graph_name, &at, nin, in);
  return true;
}

typedef bool (*GdRule)(GD_RULE_ARGS);
/* ---- core API additions (issue 31) ---- */
/* Cumsum/Cumprod(x, axis) with exclusive and reverse attributes */
static bool gd_r_cumulative(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  tfs_i64 zero = 0;
  if (!x) return false;
  const char *in[2] = {x, gd_attr_input(b, g, n, 0, "axis", &zero, 1, false, &tidx)};
  if (!in[1]) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "Tidx", gd_pbtype(b, tidx));
  gd_attr_add(b, &at, "exclusive", gd_bool(b, n->attrs.n > 1 && rt_truthy(n->attrs.v[1])));
  gd_attr_add(b, &at, "reverse", gd_bool(b, n->attrs.n > 2 && rt_truthy(n->attrs.v[2])));
  gd_aux(b, base, n->op->graph_name, &at, 2, in);
  return true;
}

/* TopKV2(input, k) with sorted and the indices' dtype */
static bool gd_r_top_k(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  tfs_i64 one = 1;
  if (!x) return false;
  const char *in[2] = {x, gd_attr_input(b, g, n, 0, "k", &one, 1, false, &tidx)};
  if (!in[1]) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "sorted", gd_bool(b, !(n->attrs.n > 1 && n->attrs.v[1].tag == VT_BOOL && !n->attrs.v[1].u.i)));
  gd_attr_add(b, &at, "Tk", gd_pbtype(b, tidx));
  gd_attr_add(b, &at, "index_type", gd_type(b, n->nout > 1 ? n->outm[1].dtype : DT_INT32));
  gd_aux(b, base, n->op->graph_name, &at, 2, in);
  return true;
}

/* ResizeBilinear/NearestNeighbor/Bicubic/Area(images, size) with TF's attributes (ResizeArea has no half_pixel_centers) */
static bool gd_r_resize(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  const char *in[2] = {x, gd_attr_input(b, g, n, 0, "size", NULL, 0, true, &tidx)};
  if (!in[1]) return false;
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "align_corners", gd_bool(b, n->attrs.n > 1 && rt_truthy(n->attrs.v[1])));
  if (n->op->id != OP_RESIZE_AREA)
    gd_attr_add(b, &at, "half_pixel_centers", gd_bool(b, n->attrs.n > 2 && rt_truthy(n->attrs.v[2])));
  gd_aux(b, base, n->op->graph_name, &at, 2, in);
  return true;
}

/* ScaleAndTranslate(images, size, scale, translation) with kernel_type and antialias */
static bool gd_r_scale_translate(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  const char *in[4] = {x, gd_attr_input(b, g, n, 0, "size", NULL, 0, true, &tidx), NULL, NULL};
  if (!in[1]) return false;
  for (int a = 0; a < 2; a++) {   /* scale and translation: float32 [2] Consts */
    Tensor *v = tensor_from_val(n->attrs.v[1 + a], DT_FLOAT32);
    if (!v) return false;
    Tensorflow__TensorProto *p = pb_const_tensor(b->a, v);
    tensor_release(v);
    in[2 + a] = gd_constp(b, base, a ? "translation" : "scale", p);
  }
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "kernel_type", gd_str(b, n->attrs.n > 3 && val_is(n->attrs.v[3], &str_type) ? str_cstr(n->attrs.v[3]) : "lanczos3"));
  gd_attr_add(b, &at, "antialias", gd_bool(b, !(n->attrs.n > 4 && n->attrs.v[4].tag == VT_BOOL && !n->attrs.v[4].u.i)));
  gd_aux(b, base, n->op->graph_name, &at, 4, in);
  return true;
}

/* ImageProjectiveTransformV3(images, transforms, output_shape, fill_value): TF has the last two as inputs (an
 * int32 [2] and a float32 scalar Const here), interpolation and fill_mode as attributes */
static bool gd_r_proj_transform(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 2 || n->in[1].node < 0) return false;
  const char *in[4] = {x, gd_ref(b, g, n->in[1], b->fn), gd_attr_input(b, g, n, 0, "output_shape", NULL, 0, true, &tidx),
                       NULL};
  if (!in[2]) return false;
  Tensor *fv = tensor_from_val(n->attrs.n > 1 ? n->attrs.v[1] : val_float(0.0), DT_FLOAT32);
  if (!fv) return false;
  Tensorflow__TensorProto *p = pb_const_tensor(b->a, fv);
  tensor_release(fv);
  in[3] = gd_constp(b, base, "fill_value", p);
  gd_attr_add(b, &at, "dtype", gd_type(b, t));
  gd_attr_add(b, &at, "interpolation", gd_str(b, n->attrs.n > 2 && val_is(n->attrs.v[2], &str_type) ? str_cstr(n->attrs.v[2]) : "NEAREST"));
  gd_attr_add(b, &at, "fill_mode", gd_str(b, n->attrs.n > 3 && val_is(n->attrs.v[3], &str_type) ? str_cstr(n->attrs.v[3]) : "CONSTANT"));
  gd_aux(b, base, n->op->graph_name, &at, 4, in);
  return true;
}

/* DecodePng/DecodeJpeg/DecodeGif/DecodeBmp/DecodeImage(contents), EncodeJpeg(image) and the string ops (StringUpper ...,
 * whose only input is a string): their attributes under their names, with no T
 * (EncodePng's generic form, with T, is TF's already); unset ones take TF's defaults */
static bool gd_r_codec(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  int nat = op_num_attrs(n->op);
  for (int i = 0; i < nat && i < n->attrs.n; i++) {
    const char *name = op_attr_name(n->op, i);
    Val v = n->attrs.v[i];
    if (!strcmp(name, "name")) continue;
    if (!strcmp(name, "dtype")) {
      DType dt = DT_UINT8;
      if (v.tag != VT_NONE && !val_is_undef(v)) val_as_dtype(v, &dt);
      gd_attr_add(b, &at, name, gd_type(b, dt));
      continue;
    }
    if (!strcmp(name, "channels") && (v.tag == VT_NONE || val_is_undef(v))) v = val_int(0);
    Tensorflow__AttrValue *av = gd_host(b, v);
    if (av) gd_attr_add(b, &at, name, av);
  }
  gd_aux(b, base, n->op->graph_name, &at, 1, &x);
  return true;
}

/* DecodeRaw(bytes) and DecodePaddedRaw(input_bytes, fixed_length): out_type and little_endian, no T */
static bool gd_r_decode_raw(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  bool padded = n->op->id == OP_DECODE_PADDED_RAW;
  if (!x || (padded && (n->nin < 2 || n->in[1].node < 0))) return false;
  DType dt = DT_UINT8;
  if (n->attrs.n > 0) val_as_dtype(n->attrs.v[0], &dt);
  gd_attr_add(b, &at, "out_type", gd_type(b, dt));
  gd_attr_add(b, &at, "little_endian", gd_bool(b, !(n->attrs.n > 1 && n->attrs.v[1].tag == VT_BOOL && !n->attrs.v[1].u.i)));
  const char *in[2] = {x, padded ? gd_ref(b, g, n->in[1], b->fn) : NULL};
  gd_aux(b, base, n->op->graph_name, &at, padded ? 2 : 1, in);
  return true;
}

/* TensorScatter*(tensor, indices, updates) with the indices' dtype */
static bool gd_r_tensor_scatter(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 3 || n->in[1].node < 0 || n->in[2].node < 0) return false;
  const char *in[3] = {x, gd_ref(b, g, n->in[1], b->fn), gd_ref(b, g, n->in[2], b->fn)};
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_attr_add(b, &at, "Tindices", gd_type(b, graph_meta(g, n->in[1])->dtype));
  gd_aux(b, base, n->op->graph_name, &at, 3, in);
  return true;
}

/* ResourceScatter*(resource, indices, updates) (Variable.scatter_add...): the variable's dtype and the indices' */
/* ResourceScatter*: attrs dtype and Tindices; ResourceScatterNd*: T, Tindices and use_locking (Variable.scatter_nd_*'s
 * default, true) */
static bool gd_r_resource_scatter(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x || n->nin < 3 || n->in[1].node < 0 || n->in[2].node < 0) return false;
  bool nd = n->op->id >= OP_RESOURCE_SCATTER_ND_UPDATE && n->op->id <= OP_RESOURCE_SCATTER_ND_MIN;
  const char *in[3] = {x, gd_ref(b, g, n->in[1], b->fn), gd_ref(b, g, n->in[2], b->fn)};
  gd_attr_add(b, &at, nd ? "T" : "dtype", gd_type(b, graph_meta(g, n->in[2])->dtype));
  gd_attr_add(b, &at, "Tindices", gd_type(b, graph_meta(g, n->in[1])->dtype));
  if (nd) gd_attr_add(b, &at, "use_locking", gd_bool(b, true));
  gd_aux(b, base, n->op->graph_name, &at, 3, in);
  return true;
}

/* _Trigamma(x) is TF's Polygamma(1, x) */
static bool gd_r_trigamma(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  Tensor *one = tensor_new(t, 0, NULL);
  if (t == DT_FLOAT32) *(float *)tensor_data(one) = 1;
  else *(double *)tensor_data(one) = 1;
  Tensorflow__TensorProto *p = pb_const_tensor(b->a, one);
  tensor_release(one);
  const char *in[2] = {gd_constp(b, base, "a", p), x};
  gd_attr_add(b, &at, "T", gd_type(b, t));
  gd_aux(b, base, "Polygamma", &at, 2, in);
  return true;
}

/* Stateless*(shape, seed) with dtype, T (the shape's) and Tseed */
static bool gd_r_stateless(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (n->nin < 1 || n->in[0].node < 0) return false;
  const char *in[2] = {gd_attr_input(b, g, n, 0, "shape", NULL, -1, true, &tidx), gd_ref(b, g, n->in[0], b->fn)};
  if (!in[0]) return false;
  gd_attr_add(b, &at, "dtype", gd_type(b, n->outm[0].dtype));
  gd_attr_add(b, &at, "T", gd_pbtype(b, tidx));
  gd_attr_add(b, &at, "Tseed", gd_type(b, graph_meta(g, n->in[0])->dtype));
  gd_aux(b, base, n->op->graph_name, &at, 2, in);
  return true;
}

/* RandomGamma(shape, alpha) and RandomPoissonV2(shape, rate) with seed, seed2, S and T (R and dtype);
 * StatelessRandomGammaV2(shape, seed, alpha) with dtype, T, Tseed; StatelessRandomPoisson(shape, seed, lam) with
 * Rtype, dtype, T, Tseed */
static bool gd_r_random_dist(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  OpId id = n->op->id;
  bool sl = id == OP_STATELESS_GAMMA || id == OP_STATELESS_POISSON, gam = id == OP_RANDOM_GAMMA || id == OP_STATELESS_GAMMA;
  int pi = sl ? 1 : 0;
  const char *shape = gd_attr_input(b, g, n, 0, "shape", NULL, -1, true, &tidx);
  if (!shape || n->nin <= pi || n->in[pi].node < 0 || (sl && n->in[0].node < 0)) return false;
  const char *param = gd_ref(b, g, n->in[pi], b->fn);
  DType pt = graph_meta(g, n->in[pi])->dtype, ot = n->outm[0].dtype;
  if (sl) {
    if (!gam) gd_attr_add(b, &at, "Rtype", gd_type(b, pt));
    gd_attr_add(b, &at, "dtype", gd_type(b, ot));
    gd_attr_add(b, &at, "T", gd_pbtype(b, tidx));
    gd_attr_add(b, &at, "Tseed", gd_type(b, graph_meta(g, n->in[0])->dtype));
    const char *in[3] = {shape, gd_ref(b, g, n->in[0], b->fn), param};
    gd_aux(b, base, n->op->graph_name, &at, 3, in);
    return true;
  }
  int64_t seed = 0;
  int sa = gam ? 1 : 2;
  if (n->attrs.n > sa) val_as_int(n->attrs.v[sa], &seed);
  gd_attr_add(b, &at, "seed", gd_int(b, seed));
  gd_attr_add(b, &at, "seed2", gd_int(b, 0));
  gd_attr_add(b, &at, "S", gd_pbtype(b, tidx));
  if (gam) {
    gd_attr_add(b, &at, "T", gd_type(b, pt));
  } else {
    gd_attr_add(b, &at, "R", gd_type(b, pt));
    gd_attr_add(b, &at, "dtype", gd_type(b, ot));
  }
  const char *in[2] = {shape, param};
  gd_aux(b, base, n->op->graph_name, &at, 2, in);
  return true;
}

/* ---- collectives (k_collective.c) as TF's V2 collective ops: inputs group_size (the job's ranks), group_key 1 (one
 * group, as MultiWorkerMirroredStrategy's) and an instance key counted per collective in export order, which is
 * program order and the same on every rank; no ordering tokens ---- */
static void gd_coll_keys(GdBuild *b, const char *base, const char **in) {
  tfs_i64 k[3] = {dist_size(), 1, ++b->coll_keys};
  in[0] = gd_i32(b, base, "group_size", 1, &k[0], false);
  in[1] = gd_i32(b, base, "group_key", 1, &k[1], false);
  in[2] = gd_i32(b, base, "instance_key", 1, &k[2], false);
}

/* T, communication_hint, timeout_seconds; the reduce and gather ops also is_stateless and Nordering_token. */
static void gd_coll_attrs(GdBuild *b, AttrList *at, DType t, bool tokens) {
  gd_attr_add(b, at, "T", gd_type(b, t));
  gd_attr_add(b, at, "communication_hint", gd_str(b, "auto"));
  Tensorflow__AttrValue *f = gd_attr(b);
  f->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
  f->f = 0;
  gd_attr_add(b, at, "timeout_seconds", f);
  if (tokens) {
    gd_attr_add(b, at, "is_stateless", gd_bool(b, false));
    gd_attr_add(b, at, "Nordering_token", gd_int(b, 0));
  }
}

/* One CollectiveReduceV2 of x (dtype t) with TF's attributes, after control input ctl when given. */
static const char *gd_coll_reduce_one(GdBuild *b, const char *base, const char *x, DType t, const char *merge,
                                      bool mean, const char *ctl) {
  const char *in[5] = {x, NULL, NULL, NULL, ctl};
  gd_coll_keys(b, base, in + 1);
  AttrList a = {0};
  gd_coll_attrs(b, &a, t, true);
  gd_attr_add(b, &a, "merge_op", gd_str(b, merge));
  gd_attr_add(b, &a, "final_op", gd_str(b, mean ? "Div" : "Id"));
  gd_attr_add(b, &a, "max_subdivs_per_device", gd_int(b, -1));
  return gd_aux(b, base, "CollectiveReduceV2", &a, ctl ? 5 : 4, in);
}

/* _CollectiveAllReduce (a fused all-reduce of several tensors): one CollectiveReduceV2 per tensor (merge_op from
 * the DistOp; MEAN is TF's Add then Div), several joined by an IdentityN so the node's outputs keep their indices. */
static bool gd_r_coll_reduce(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  static const char *const merge[] = {"Add", "Add", "Min", "Max", "Mul"};   /* DIST_SUM, MEAN, MIN, MAX, PROD */
  int64_t op = DIST_SUM;
  if (n->attrs.n && !val_as_int(n->attrs.v[0], &op)) return false;
  if (op < DIST_SUM || op > DIST_PROD || n->nin < 1) return false;
  const char **outs = pa_alloc(b->a, sizeof(char *) * (size_t)n->nin);
  const TMeta **ms = pa_alloc(b->a, sizeof(TMeta *) * (size_t)n->nin);
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node < 0) return false;
    ms[i] = graph_meta(g, n->in[i]);
    outs[i] = gd_coll_reduce_one(b, base, gd_ref(b, g, n->in[i], b->fn), ms[i]->dtype, merge[op], op == DIST_MEAN, NULL);
  }
  if (n->nin > 1) {
    gd_attr_add(b, &at, "T", gd_types(b, n->nin, ms));
    gd_aux(b, base, "IdentityN", &at, n->nin, outs);
  }
  return true;
}

/* The overlapped gradient all-reduce: each _CollectiveGradStart (a bucket handed to MPI) becomes an int64 Const of
 * its bucket index that runs after the bucket's gradients (control inputs), and _CollectiveGradWait a
 * CollectiveReduceV2 per gradient after the last bucket, joined by an IdentityN: TF's ops, the same sums. */
static bool gd_r_coll_grad(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int64_t k = 0;
  if (n->attrs.n && !val_as_int(n->attrs.v[0], &k)) return false;
  int ctl = 0;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + 4));
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node < 0) return false;
    if (n->op->id == OP_COLL_GRAD_START || i == 0) in[ctl++] = pa_printf(b->a, "^%s", g->nodes[n->in[i].node].name);
  }
  if (n->op->id == OP_COLL_GRAD_START) {
    Tensorflow__TensorProto *p = pa_alloc(b->a, sizeof *p);
    tensorflow__tensor_proto__init(p);
    p->dtype = TENSORFLOW__DATA_TYPE__DT_INT64;
    p->tensor_shape = pb_shape(b->a, 0, NULL);
    p->n_int64_val = 1;
    p->int64_val = pa_alloc(b->a, sizeof(int64_t));
    p->int64_val[0] = k;
    gd_attr_add(b, &at, "dtype", gd_pbtype(b, p->dtype));
    Tensorflow__AttrValue *v = gd_attr(b);
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
    v->tensor = p;
    gd_attr_add(b, &at, "value", v);
    gd_aux(b, base, "Const", &at, ctl, in);
    return true;
  }
  int m = n->nin - 1;
  if (m < 1 || k < DIST_SUM || k > DIST_MEAN) return false;
  const char **outs = pa_alloc(b->a, sizeof(char *) * (size_t)m);
  const TMeta **ms = pa_alloc(b->a, sizeof(TMeta *) * (size_t)m);
  for (int i = 0; i < m; i++) {
    ms[i] = graph_meta(g, n->in[i + 1]);
    outs[i] = gd_coll_reduce_one(b, base, gd_ref(b, g, n->in[i + 1], b->fn), ms[i]->dtype, "Add", k == DIST_MEAN, in[0]);
  }
  gd_attr_add(b, &at, "T", gd_types(b, m, ms));
  gd_aux(b, base, "IdentityN", &at, m, outs);
  return true;
}

/* CollectiveGatherV2 gathers along axis 0: another axis is moved to the front and back, as TF's all_gather does. */
static bool gd_r_coll_gather(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int64_t axis = 0;
  if (!x || rank < 1 || (n->attrs.n && !val_as_int(n->attrs.v[0], &axis))) return false;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  tfs_i64 pre[TFS_MAX_RANK], post[TFS_MAX_RANK];
  for (int i = 0; i < rank; i++) pre[i] = i == 0 ? axis : i - 1 < axis ? i - 1 : i;
  for (int i = 0; i < rank; i++) post[i] = i < axis ? i + 1 : i == axis ? 0 : i;
  AttrList ta = {0}, tb = {0};
  const char *in[4] = {x};
  if (axis) {
    gd_attr_add(b, &ta, "T", gd_type(b, t));
    gd_attr_add(b, &ta, "Tperm", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
    const char *ti[2] = {x, gd_i32(b, base, "perm", rank, pre, true)};
    in[0] = gd_aux(b, base, "Transpose", &ta, 2, ti);
  }
  gd_coll_keys(b, base, in + 1);
  gd_coll_attrs(b, &at, t, true);
  const char *r = gd_aux(b, base, "CollectiveGatherV2", &at, 4, in);
  if (axis) {
    gd_attr_add(b, &tb, "T", gd_type(b, t));
    gd_attr_add(b, &tb, "Tperm", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
    const char *ti[2] = {r, gd_i32(b, base, "perm", rank, post, true)};
    gd_aux(b, base, "Transpose", &tb, 2, ti);
  }
  return true;
}

/* _CollectiveBroadcast: CollectiveBcastSendV2 on the root rank, CollectiveBcastRecvV2 of the value's shape elsewhere
 * (each rank exports its own graph, as each TF worker builds its own). */
static bool gd_r_coll_bcast(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int64_t root = 0;
  if (!x || (n->attrs.n && !val_as_int(n->attrs.v[0], &root))) return false;
  const char *in[4];
  gd_coll_attrs(b, &at, t, false);
  if (root == dist_rank()) {
    in[0] = x;
    gd_coll_keys(b, base, in + 1);
    gd_aux(b, base, "CollectiveBcastSendV2", &at, 4, in);
    return true;
  }
  AttrList sa = {0};
  gd_attr_add(b, &sa, "T", gd_type(b, t));
  gd_attr_add(b, &sa, "out_type", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  gd_coll_keys(b, base, in);
  in[3] = gd_aux(b, base, "Shape", &sa, 1, &x);
  gd_attr_add(b, &at, "Tshape", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_INT32));
  gd_aux(b, base, "CollectiveBcastRecvV2", &at, 4, in);
  return true;
}

/* EagerPyFunc (py_function) / PyFunc (numpy_function): the host function is named by a token, as TF registers it */
static bool gd_r_py_func(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  int nin = n->nin + n->ndyn;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(nin + 1));
  const TMeta **ins = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(nin + 1));
  const TMeta **outs = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(n->nout + 1));
  for (int i = 0; i < nin; i++) {
    if (n->in[i].node < 0) return false;
    in[i] = gd_ref(b, g, n->in[i], b->fn);
    ins[i] = graph_meta(g, n->in[i]);
  }
  for (int i = 0; i < n->nout; i++) outs[i] = &n->outm[i];
  bool eager = !(n->attrs.n > 2 && n->attrs.v[2].tag == VT_BOOL && !n->attrs.v[2].u.i);
  gd_attr_add(b, &at, "token", gd_str(b, pa_printf(b->a, "pyfunc_%s", base)));
  gd_attr_add(b, &at, "Tin", gd_types(b, nin, ins));
  gd_attr_add(b, &at, "Tout", gd_types(b, n->nout, outs));
  gd_aux(b, base, eager ? "EagerPyFunc" : "PyFunc", &at, nin, in);
  return true;
}

/* The sparse-component ops (k_sparse.c) with TF's attributes: SparseTensorDenseMatMul's T, Tindices, adjoint_a/b;
 * SparseSegment*'s T, Tidx, Tsegmentids (and the WithNumSegments form with Tnumsegments when num_segments is given) */
static bool gd_r_sparse(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char *in[4];
  int nin = 0;
  for (int i = 0; i < n->nin && i < 4; i++)
    if (n->in[i].node >= 0) in[nin++] = gd_ref(b, g, n->in[i], b->fn);
    else if (i < 3) return false;
  const char *name = n->op->graph_name;
  if (n->op->id == OP_SPARSE_TO_DENSE) {
    gd_attr_add(b, &at, "T", gd_type(b, graph_meta(g, n->in[2])->dtype));
    gd_attr_add(b, &at, "Tindices", gd_type(b, graph_meta(g, n->in[0])->dtype));
    gd_attr_add(b, &at, "validate_indices", gd_bool(b, !(n->attrs.n > 0 && n->attrs.v[0].tag == VT_BOOL && !n->attrs.v[0].u.i)));
  } else if (n->op->id == OP_SPARSE_REDUCE_SUM || n->op->id == OP_SPARSE_REDUCE_MAX ||
             n->op->id == OP_SPARSE_REDUCE_SUM_SPARSE || n->op->id == OP_SPARSE_REDUCE_MAX_SPARSE) {
    gd_attr_add(b, &at, "T", gd_type(b, graph_meta(g, n->in[1])->dtype));
    gd_attr_add(b, &at, "keep_dims", gd_bool(b, gd_attr_bool(n, 0)));
  } else if (n->op->id == OP_SPARSE_REORDER) {
    gd_attr_add(b, &at, "T", gd_type(b, graph_meta(g, n->in[1])->dtype));
  } else if (n->op->id == OP_SPARSE_DENSE_MATMUL) {
    gd_attr_add(b, &at, "T", gd_type(b, graph_meta(g, n->in[1])->dtype));
    gd_attr_add(b, &at, "Tindices", gd_type(b, graph_meta(g, n->in[0])->dtype));
    gd_attr_add(b, &at, "adjoint_a", gd_bool(b, gd_attr_bool(n, 0)));
    gd_attr_add(b, &at, "adjoint_b", gd_bool(b, gd_attr_bool(n, 1)));
  } else {
    gd_attr_add(b, &at, "T", gd_type(b, t));
    gd_attr_add(b, &at, "Tidx", gd_type(b, graph_meta(g, n->in[1])->dtype));
    gd_attr_add(b, &at, "Tsegmentids", gd_type(b, graph_meta(g, n->in[2])->dtype));
    bool grad = n->op->id == OP_SPARSE_SEGMENT_SUM_GRAD || n->op->id == OP_SPARSE_SEGMENT_MEAN_GRAD ||
                n->op->id == OP_SPARSE_SEGMENT_SQRTN_GRAD;
    if (!grad && nin == 4) {
      name = pa_printf(b->a, "%sWithNumSegments", name);
      gd_attr_add(b, &at, "Tnumsegments", gd_type(b, graph_meta(g, n->in[3])->dtype));
    }
  }
  gd_aux(b, base, name, &at, nin, in);
  return true;
}

/* SparseAdd, SparseSlice, SparseConcat, SparseSoftmax, SparseSparseMaximum/Minimum, SparseFillEmptyRows, SparseReshape,
 * SparseDenseCwiseMul/Div/Add
 * and the Grad ops: every input in order, T the values' dtype (SparseConcat: N and concat_dim, SparseAdd: Treal) */
static bool gd_r_sparse_struct(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  const char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + 1));
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node < 0) return false;
    in[i] = gd_ref(b, g, n->in[i], b->fn);
  }
  OpId id = n->op->id;
  int tv = id == OP_SPARSE_ADD_GRAD || id == OP_SPARSE_SLICE_GRAD ? 0 : id == OP_SPARSE_CONCAT ? n->nin / 3 : 1;
  if (id != OP_SPARSE_RESHAPE) gd_attr_add(b, &at, "T", gd_type(b, graph_meta(g, n->in[tv])->dtype));
  if (id == OP_SPARSE_ADD) gd_attr_add(b, &at, "Treal", gd_type(b, graph_meta(g, n->in[6])->dtype));
  if (id == OP_SPARSE_CONCAT) {
    gd_attr_add(b, &at, "N", gd_int(b, n->nin / 3));
    gd_attr_add(b, &at, "concat_dim", gd_int(b, n->attrs.n > 0 && n->attrs.v[0].tag == VT_INT ? n->attrs.v[0].u.i : 0));
  }
  gd_aux(b, base, n->op->graph_name, &at, n->nin, in);
  return true;
}

/* FFT/IFFT carry Tcomplex; RFFT/IRFFT take fft_length as an int32 input (the length the op used) and Treal/Tcomplex */
static bool gd_r_fft(GD_RULE_ARGS) {
  GD_RULE_LOCALS;
  if (!x) return false;
  OpId id = n->op->id;
  if (id == OP_FFT || id == OP_IFFT) {
    gd_attr_add(b, &at, "Tcomplex", gd_type(b, t));
    gd_aux(b, base, n->op->graph_name, &at, 1, &x);
    return true;
  }
  tfs_i64 len = id == OP_RFFT ? xm->shape[rank - 1] : n->outm[0].shape[n->outm[0].rank - 1];
  if (rank < 1 || len < 0) return false;
  const char *in[2] = {x, gd_attr_input(b, g, n, 0, "fft_length", &len, 1, true, &tidx)};
  if (!in[1]) return false;
  bool fwd = id == OP_RFFT;
  gd_attr_add(b, &at, "Treal", gd_type(b, fwd ? t : n->outm[0].dtype));
  gd_attr_add(b, &at, "Tcomplex", gd_type(b, fwd ? n->outm[0].dtype : t));
  gd_aux(b, base, n->op->graph_name, &at, 2, in);
  return true;
}

static const GdRule gd_rules[OP__COUNT] = {
  [OP_PY_FUNC] = gd_r_py_func,
  [OP_FFT] = gd_r_fft, [OP_IFFT] = gd_r_fft, [OP_RFFT] = gd_r_fft, [OP_IRFFT] = gd_r_fft,
  [OP_SPARSE_DENSE_MATMUL] = gd_r_sparse, [OP_SPARSE_TO_DENSE] = gd_r_sparse, [OP_SPARSE_REORDER] = gd_r_sparse,
  [OP_SPARSE_REDUCE_SUM] = gd_r_sparse, [OP_SPARSE_REDUCE_MAX] = gd_r_sparse, [OP_SPARSE_REDUCE_SUM_SPARSE] = gd_r_sparse,
  [OP_SPARSE_REDUCE_MAX_SPARSE] = gd_r_sparse, [OP_SPARSE_SEGMENT_SUM] = gd_r_sparse, [OP_SPARSE_SEGMENT_MEAN] = gd_r_sparse,
  [OP_SPARSE_SEGMENT_SQRTN] = gd_r_sparse, [OP_SPARSE_SEGMENT_SUM_GRAD] = gd_r_sparse,
  [OP_SPARSE_SEGMENT_MEAN_GRAD] = gd_r_sparse, [OP_SPARSE_SEGMENT_SQRTN_GRAD] = gd_r_sparse,
  [OP_SPARSE_ADD] = gd_r_sparse_struct, [OP_SPARSE_ADD_GRAD] = gd_r_sparse_struct, [OP_SPARSE_MAXIMUM] = gd_r_sparse_struct,
  [OP_SPARSE_MINIMUM] = gd_r_sparse_struct, [OP_SPARSE_RESHAPE] = gd_r_sparse_struct, [OP_SPARSE_SLICE] = gd_r_sparse_struct,
  [OP_SPARSE_SLICE_GRAD] = gd_r_sparse_struct, [OP_SPARSE_CONCAT] = gd_r_sparse_struct, [OP_SPARSE_SOFTMAX] = gd_r_sparse_struct,
  [OP_SPARSE_FILL_EMPTY_ROWS] = gd_r_sparse_struct, [OP_SPARSE_FILL_EMPTY_ROWS_GRAD] = gd_r_sparse_struct,
  [OP_SPARSE_DENSE_MUL] = gd_r_sparse_struct, [OP_SPARSE_DENSE_DIV] = gd_r_sparse_struct, [OP_SPARSE_DENSE_ADD] = gd_r_sparse_struct,
  [OP_RANDOM_GAMMA] = gd_r_random_dist, [OP_RANDOM_POISSON] = gd_r_random_dist, [OP_STATELESS_GAMMA] = gd_r_random_dist,
  [OP_STATELESS_POISSON] = gd_r_random_dist,
  [OP_COLL_REDUCE] = gd_r_coll_reduce, [OP_COLL_GATHER] = gd_r_coll_gather, [OP_COLL_BCAST] = gd_r_coll_bcast,
  [OP_COLL_GRAD_START] = gd_r_coll_grad, [OP_COLL_GRAD_WAIT] = gd_r_coll_grad,
  [OP_STATELESS_UNIFORM] = gd_r_stateless, [OP_STATELESS_NORMAL] = gd_r_stateless, [OP_STATELESS_TRUNC_NORMAL] = gd_r_stateless,
  [OP_CUMSUM] = gd_r_cumulative, [OP_CUMPROD] = gd_r_cumulative, [OP_TOP_K] = gd_r_top_k, [OP_TRIGAMMA] = gd_r_trigamma,
  [OP_TENSOR_SCATTER_UPDATE] = gd_r_tensor_scatter, [OP_TENSOR_SCATTER_ADD] = gd_r_tensor_scatter,
  [OP_TENSOR_SCATTER_SUB] = gd_r_tensor_scatter, [OP_TENSOR_SCATTER_MAX] = gd_r_tensor_scatter,
  [OP_TENSOR_SCATTER_MIN] = gd_r_tensor_scatter,
  [OP_RESOURCE_SCATTER_ND_UPDATE] = gd_r_resource_scatter, [OP_RESOURCE_SCATTER_ND_ADD] = gd_r_resource_scatter,
  [OP_RESOURCE_SCATTER_ND_SUB] = gd_r_resource_scatter, [OP_RESOURCE_SCATTER_ND_MAX] = gd_r_resource_scatter,
  [OP_RESOURCE_SCATTER_ND_MIN] = gd_r_resource_scatter,
  [OP_RESOURCE_SCATTER_ADD] = gd_r_resource_scatter, [OP_RESOURCE_SCATTER_SUB] = gd_r_resource_scatter,
  [OP_RESOURCE_SCATTER_MUL] = gd_r_resource_scatter, [OP_RESOURCE_SCATTER_DIV] = gd_r_resource_scatter,
  [OP_RESOURCE_SCATTER_MIN] = gd_r_resource_scatter, [OP_RESOURCE_SCATTER_MAX] = gd_r_resource_scatter,
  [OP_RESOURCE_SCATTER_UPDATE] = gd_r_resource_scatter,
  [OP_RESIZE_BILINEAR] = gd_r_resize, [OP_RESIZE_NEAREST] = gd_r_resize, [OP_RESIZE_BICUBIC] = gd_r_resize,
  [OP_RESIZE_AREA] = gd_r_resize, [OP_RESIZE_NEAREST_GRAD] = gd_r_resize, [OP_SCALE_TRANSLATE] = gd_r_scale_translate,
  [OP_PROJ_TRANSFORM] = gd_r_proj_transform,
  [OP_DECODE_PNG] = gd_r_codec, [OP_DECODE_JPEG] = gd_r_codec, [OP_DECODE_IMAGE] = gd_r_codec, [OP_DECODE_GIF] = gd_r_codec,
  [OP_DECODE_BMP] = gd_r_codec, [OP_ENCODE_JPEG] = gd_r_codec,
  [OP_STRING_LENGTH] = gd_r_codec, [OP_STRING_UPPER] = gd_r_codec, [OP_STRING_LOWER] = gd_r_codec,
  [OP_STRING_STRIP] = gd_r_codec, [OP_STRING_TO_NUMBER] = gd_r_codec, [OP_REGEX_FULL_MATCH] = gd_r_codec,
  [OP_REGEX_REPLACE] = gd_r_codec, [OP_STRING_JOIN] = gd_r_string_join, [OP_SUBSTR] = gd_r_substr,
  [OP_DECODE_RAW] = gd_r_decode_raw, [OP_DECODE_PADDED_RAW] = gd_r_decode_raw, [OP_STRING_TO_HASH_BUCKET_FAST] = gd_r_codec, [OP_STRING_TO_HASH_BUCKET_STRONG] = gd_r_codec, [OP_UNICODE_DECODE] = gd_r_codec, [OP_UNICODE_DECODE_OFFSETS] = gd_r_codec,
  [OP_UNICODE_TRANSCODE] = gd_r_codec,
  [OP_STRING_SPLIT_V2] = gd_r_string_ops, [OP_STRING_SPLIT] = gd_r_string_ops, [OP_REGEX_REPLACE_T] = gd_r_string_ops,
  [OP_UNICODE_ENCODE] = gd_r_string_ops, [OP_STRING_FORMAT] = gd_r_string_ops, [OP_REDUCE_JOIN] = gd_r_reduce_join,
  [OP_UNSORTED_SEGMENT_JOIN] = gd_r_string_ops,
  [OP_TL_RESERVE] = gd_r_tensorlist,
  [OP_TL_FROM_TENSOR] = gd_r_tensorlist,
  [OP_TL_SET_ITEM] = gd_r_tensorlist,
  [OP_TL_GET_ITEM] = gd_r_tensorlist,
  [OP_TL_STACK] = gd_r_tensorlist,
  [OP_TL_GATHER] = gd_r_tensorlist,
  [OP_TL_SCATTER] = gd_r_tensorlist,
  [OP_TL_CONCAT] = gd_r_tensorlist,
  [OP_TL_RESIZE] = gd_r_tensorlist,
  [OP_TL_LENGTH] = gd_r_tensorlist,
  [OP_ZEROS] = gd_r_zeros,
  [OP_ONES] = gd_r_zeros,
  [OP_LOGICAL_AND] = gd_r_logical,
  [OP_LOGICAL_OR] = gd_r_logical,
  [OP_LOGICAL_NOT] = gd_r_logical,
  [OP_MATMUL] = gd_r_matmul,
  [OP_SUM] = gd_r_sum,
  [OP_MEAN] = gd_r_sum,
  [OP_MAX] = gd_r_sum,
  [OP_MIN] = gd_r_sum,
  [OP_PROD] = gd_r_sum,
  [OP_ANY] = gd_r_sum,
  [OP_ALL] = gd_r_sum,
  [OP_LOGSUMEXP] = gd_r_logsumexp,
  [OP_NORM] = gd_r_norm,
  [OP_BAND_PART] = gd_r_band_part,
  [OP_DIAG_PART] = gd_r_band_part,
  [OP_EYE] = gd_r_eye,
  [OP_GELU] = gd_r_gelu,
  [OP_DROPOUT] = gd_r_dropout,
  [OP_ASSERT_EQUAL] = gd_r_assert_equal,
  [OP_ASSERT_GREATER] = gd_r_assert_equal,
  [OP_ASSERT_GREATER_EQUAL] = gd_r_assert_equal,
  [OP_ASSERT_LESS] = gd_r_assert_equal,
  [OP_ASSERT_LESS_EQUAL] = gd_r_assert_equal,
  [OP_ASSERT_NON_NEGATIVE] = gd_r_assert_equal,
  [OP_ASSERT_POSITIVE] = gd_r_assert_equal,
  [OP_ASSERT_NON_POSITIVE] = gd_r_assert_equal,
  [OP_ASSERT_NEGATIVE] = gd_r_assert_equal,
  [OP_ASSERT_NONE_EQUAL] = gd_r_assert_equal,
  [OP_ASSERT_FINITE] = gd_r_assert_finite,
  [OP_TFS_ASSERT] = gd_r_tfs_assert,
  [OP_LOGICAL_XOR] = gd_r_logical_xor,
  [OP_RANDOM_UNIFORM] = gd_r_random_uniform,
  [OP_RANDOM_NORMAL] = gd_r_random_uniform,
  [OP_TRUNC_NORMAL] = gd_r_random_uniform,
  [OP_READ_VARIABLE] = gd_r_read_variable,
  [OP_ASSIGN_VARIABLE] = gd_r_read_variable,
  [OP_ASSIGN_ADD_VARIABLE] = gd_r_read_variable,
  [OP_ASSIGN_SUB_VARIABLE] = gd_r_read_variable,
  [OP_ADD_N] = gd_r_add_n,
  [OP_SQUEEZE] = gd_r_squeeze,
  [OP_CONCAT] = gd_r_concat,
  [OP_STACK] = gd_r_concat,
  [OP_UNSTACK] = gd_r_unstack,
  [OP_LSTM_SEQ] = gd_r_lstm_seq,
  [OP_GRU_SEQ] = gd_r_gru_seq,
  [OP_LSTM_SEQ_GRAD] = gd_r_lstm_grad,
  [OP_GRU_SEQ_GRAD] = gd_r_gru_grad,
  [OP_SRNN_SEQ] = gd_r_srnn_seq,
  [OP_NP_LOG10] = gd_r_np_libm, [OP_NP_LOG2] = gd_r_np_libm, [OP_NP_EXP2] = gd_r_np_libm, [OP_NP_CBRT] = gd_r_np_libm,
  [OP_SRNN_SEQ_GRAD] = gd_r_srnn_grad,
  [OP_BNORM_TRAIN] = gd_r_bnorm,
  [OP_BNORM_TRAIN_GRAD] = gd_r_bnorm,
  [OP_GATHER] = gd_r_gather,
  [OP_GATHER_ND] = gd_r_gather_nd,
  [OP_LINSPACE] = gd_r_linspace,
  [OP_TILE] = gd_r_tile,
  [OP_BROADCAST_TO] = gd_r_tile,
  [OP_FILL] = gd_r_fill,
  [OP_RANGE] = gd_r_range,
  [OP_CAST] = gd_r_cast,
  [OP_COMPLEX] = gd_r_complex,
  [OP_REAL] = gd_r_complex,
  [OP_IMAG] = gd_r_complex,
  [OP_CONJ] = gd_r_complex,
  [OP_ANGLE] = gd_r_complex,
  [OP_ABS] = gd_r_complex,
  [OP_ARGMAX] = gd_r_argmax,
  [OP_ARGMIN] = gd_r_argmax,
  [OP_RESHAPE] = gd_r_reshape,
  [OP_EXPAND_DIMS] = gd_r_reshape,
  [OP_TRANSPOSE] = gd_r_reshape,
  [OP_STRIDED_SLICE] = gd_r_strided_slice,
  [OP_SLICE] = gd_r_slice,
  [OP_PAD] = gd_r_pad,
  [OP_ONE_HOT] = gd_r_one_hot,
  [OP_SOFTMAX] = gd_r_softmax,
  [OP_LOG_SOFTMAX] = gd_r_softmax,
  [OP_CONV2D] = gd_r_conv2d,
  [OP_CONV2D_BP_INPUT] = gd_r_conv2d_bp_input,
  [OP_CONV2D_BP_FILTER] = gd_r_conv2d_bp_input,
  [OP_CONV3D] = gd_r_conv3d,
  [OP_CONV3D_BP_INPUT] = gd_r_conv3d,
  [OP_CONV3D_BP_FILTER] = gd_r_conv3d,
  [OP_MAX_POOL3D] = gd_r_pool3d,
  [OP_AVG_POOL3D] = gd_r_pool3d,
  [OP_MAX_POOL3D_GRAD] = gd_r_pool3d,
  [OP_AVG_POOL3D_GRAD] = gd_r_pool3d,
  [OP_DEPTHWISE] = gd_r_depthwise,
  [OP_DEPTHWISE_BP_INPUT] = gd_r_depthwise,
  [OP_DEPTHWISE_BP_FILTER] = gd_r_depthwise,
  [OP_MAX_POOL] = gd_r_max_pool,
  [OP_MAX_POOL_GRAD] = gd_r_max_pool_grad,
  [OP_STACK_PUSH] = gd_r_stack_push,
  [OP_STACK_GET] = gd_r_stack_push,
  [OP_STACK_SIZE] = gd_r_stack_push,
  [OP_RNG_STATE] = gd_r_rng_state,
  [OP_RNG_SWAP] = gd_r_rng_swap,
  [OP_SCATTER_GRAD] = gd_r_scatter_grad, [OP_SUM_TO] = gd_r_sum_to,
  [OP_DATASET_ITER] = gd_r_dataset_iter,
  [OP_DATASET_NEXT] = gd_r_dataset_iter,
  [OP_DATASET_GETNEXT] = gd_r_dataset_iter,
  [OP_DATASET_RELEASE] = gd_r_dataset_iter,
  [OP_DATASET_SINGLE] = gd_r_dataset_iter,
  [OP_DATASET_SLICES] = gd_r_ds_source,
  [OP_DATASET_TENSORS] = gd_r_ds_source,
  [OP_DATASET_RANGE] = gd_r_ds_source,
  [OP_TL_ADD] = gd_r_tl_add,
  [OP_TL_CONCAT_GRAD] = gd_r_tl_concat_grad,
};

/* Converts op node n into TF's ops by its rule; false leaves it to the generic conversion. */
static bool gd_tf_op(GdBuild *b, const Graph *g, const GraphNode *n) {
  const char *base = n->name;
  const char *x = b->ovx ? b->ovx : n->nin > 0 && n->in[0].node >= 0 ? gd_ref(b, g, n->in[0], b->fn) : NULL;
  const TMeta *xm = b->ovx ? b->ovxm : x ? graph_meta(g, n->in[0]) : NULL;
  DType t = xm ? xm->dtype : n->nout ? n->outm[0].dtype : DT_FLOAT32;
  tfs_i64 all[TFS_MAX_RANK];
  int rank = xm ? xm->rank : 0;
  for (int i = 0; i < rank && i < TFS_MAX_RANK; i++) all[i] = i;
  GdRule r = gd_rules[n->op->id];
  return r && r(b, g, n, base, x, xm, t, rank, all);
}

static int gd_cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* n's control inputs as '^name' into dst, sorted by name as TF's Graph::ToGraphDef writes them */
static void gd_ctrl_inputs(GdBuild *b, const Graph *g, const GraphNode *n, char **dst) {
  for (int i = 0; i < n->nctrl; i++) dst[i] = pa_printf(b->a, "^%s", g->nodes[n->ctrl[i]].name);
  qsort(dst, (size_t)n->nctrl, sizeof(char *), gd_cmp_str);
}

/* Is placeholder `ph` of body g only read (TF's acd get_read_only_resource_input_indices_graph: every op consuming it
 * is a ReadVariableOp; returning it unchanged is no use)? */
static bool gd_read_only(const Graph *g, int ph) {
  for (int id = 0; id < g->nnodes; id++) {
    const GraphNode *c = &g->nodes[id];
    for (int i = 0; i < c->nin + c->ndyn; i++)
      if (c->in[i].node == ph && !(c->kind == GN_OP && c->op->id == OP_READ_VARIABLE)) return false;
  }
  return true;
}

/* The While attributes while_v2 sets besides T/cond/body/parallel_iterations: output_shapes (the loop variables'
 * shape invariants, then the captured values' shapes, the threaded lists' scalars), _num_original_outputs (every
 * output: a differentiated loop's accumulators count, as _WhileGrad resets it), _lower_using_switch_merge
 * (util.maybe_set_lowering_attr outside XLA) and _read_only_resource_inputs (the resource inputs both bodies only
 * read).  m: the k data inputs' dtypes. */
static void gd_while_attrs(GdBuild *b, const Graph *g, const GraphNode *n, const Tensorflow__DataType *m, int k, int nth,
                           AttrList *at) {
  TMeta *sh = pa_alloc(b->a, sizeof(TMeta) * (size_t)(k + nth + 1));
  int *ro = pa_alloc(b->a, sizeof(int) * (size_t)(k + 1));
  int j = 0, nro = 0;
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node < 0) continue;
    sh[j] = i < n->nout ? n->outm[i] : *graph_meta(g, n->in[i]);
    if (sh[j].dtype == DT_VARIANT || m[j] == TENSORFLOW__DATA_TYPE__DT_RESOURCE) sh[j].rank = 0;
    bool only_read = m[j] == TENSORFLOW__DATA_TYPE__DT_RESOURCE;
    for (int s = 0; s < 2 && only_read; s++)
      if (n->sub[s] && j < n->sub[s]->ninputs) only_read = gd_read_only(n->sub[s], n->sub[s]->inputs[j]);
    if (only_read) ro[nro++] = j;
    j++;
  }
  for (int t = 0; t < nth; t++) sh[k + t] = (TMeta){DT_VARIANT, 0, {0}};
  gd_attr_add(b, at, "output_shapes", gd_shapes(b, k + nth, sh));
  gd_attr_add(b, at, "_num_original_outputs", gd_int(b, k + nth));
  gd_attr_add(b, at, "_lower_using_switch_merge", gd_bool(b, true));
  gd_attr_add(b, at, "_read_only_resource_inputs", gd_ints(b, nro, ro));
}

static Tensorflow__NodeDef *gd_node(GdBuild *b, const Graph *g, int id, bool fn) {
  const GraphNode *n = &g->nodes[id];
  Tensorflow__NodeDef *nd = pa_alloc(b->a, sizeof *nd);
  tensorflow__node_def__init(nd);
  nd->name = pa_strdup(b->a, n->name);
  AttrList at = {0};
  int nin = 0;
  char **in = pa_alloc(b->a, sizeof(char *) * (size_t)(n->nin + n->ndyn + n->nctrl + 1));
  for (int i = 0; i < n->nin + n->ndyn; i++)
    if (n->in[i].node >= 0) in[nin++] = gd_ref(b, g, n->in[i], fn);
  gd_ctrl_inputs(b, g, n, in + nin);
  nin += n->nctrl;
  nd->input = in;
  nd->n_input = (size_t)nin;
  switch (n->kind) {
    case GN_PLACEHOLDER:
      nd->op = "Placeholder";
      gd_attr_add(b, &at, "dtype", gd_pbtype(b, gd_pbdt(b, g, (GraphRef){id, 0})));
      gd_attr_add(b, &at, "shape", gd_shape(b, n->outm[0].rank, n->outm[0].shape));
      break;
    case GN_CONST: {
      nd->op = "Const";
      gd_attr_add(b, &at, "dtype", gd_type(b, n->value->dtype));
      Tensorflow__AttrValue *v = gd_attr(b);
      v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
      v->tensor = pb_const_tensor(b->a, n->value);
      gd_attr_add(b, &at, "value", v);
      break;
    }
    case GN_VARHANDLE: {
      if (!b->full && !fn) {   /* a traced graph's view (TF's FuncGraph): the captured handle, a resource placeholder */
        const char *slash = strrchr(n->name, '/');
        nd->op = "Placeholder";
        gd_attr_add(b, &at, "_user_specified_name", gd_str(b, slash ? slash + 1 : n->name));
        gd_attr_add(b, &at, "dtype", gd_pbtype(b, TENSORFLOW__DATA_TYPE__DT_RESOURCE));
        gd_attr_add(b, &at, "shape", gd_shape(b, 0, NULL));
        break;
      }
      nd->op = "VarHandleOp";
      char *shared = pa_strdup(b->a, b->varkey ? b->varkey(b->vctx, n->var) : n->var->name ? n->var->name : "Variable");
      char *colon = b->varkey ? NULL : strrchr(shared, ':');
      if (colon) *colon = 0;   /* 'v:0' names the handle's output, the resource is 'v' */
      gd_attr_add(b, &at, "container", gd_str(b, ""));
      gd_attr_add(b, &at, "dtype", gd_type(b, n->var->value->dtype));
      gd_attr_add(b, &at, "shape", gd_shape(b, n->var->value->rank, n->var->value->shape));
      gd_attr_add(b, &at, "shared_name", gd_str(b, shared));
      break;
    }
    case GN_COND:
    case GN_WHILE: {
      bool effects = gd_has_effects(n->sub[0]) || (n->sub[1] && gd_has_effects(n->sub[1]));
      int *th = NULL, nth = gd_threaded(b, n, &th);
      Tensorflow__DataType *m = pa_alloc(b->a, sizeof(Tensorflow__DataType) * (size_t)(n->nin + n->nout + nth + 1));
      int k = 0;
      for (int i = 0; i < n->nin; i++)
        if (n->in[i].node >= 0) {
          m[k] = gd_pbdt(b, g, n->in[i]);
          if (m[k] == TENSORFLOW__DATA_TYPE__DT_RESOURCE || (m[k] == TENSORFLOW__DATA_TYPE__DT_VARIANT && !b->full))
            for (int s = 0; s < 2; s++) {   /* the bodies' placeholder for it is one too */
              int pi = n->kind == GN_COND ? k - 1 : k;
              if (n->sub[s] && pi >= 0 && pi < n->sub[s]->ninputs) gd_mark_ph(b, &n->sub[s]->nodes[n->sub[s]->inputs[pi]], m[k]);
            }
          k++;
        }
      for (int j = 0; j < nth; j++) m[k + j] = TENSORFLOW__DATA_TYPE__DT_VARIANT;
      if (n->kind == GN_COND) {
        nd->op = effects ? "If" : "StatelessIf";
        Tensorflow__DataType *om = pa_alloc(b->a, sizeof(Tensorflow__DataType) * (size_t)(n->nout + nth + 1));
        for (int i = 0; i < n->nout; i++) om[i] = pb_dtype(n->outm[i].dtype);
        for (int j = 0; j < nth; j++) om[n->nout + j] = TENSORFLOW__DATA_TYPE__DT_VARIANT;
        if (k) gd_attr_add(b, &at, "Tcond", gd_pbtype(b, m[0]));
        gd_attr_add(b, &at, "Tin", gd_pbtypes(b, k ? k - 1 + nth : 0, m + (k ? 1 : 0)));
        gd_attr_add(b, &at, "Tout", gd_pbtypes(b, n->nout + nth, om));
        gd_attr_add(b, &at, "then_branch", gd_func(b, gd_function_t(b, n->sub[0], NULL, th, nth, true, false)));
        if (n->sub[1]) gd_attr_add(b, &at, "else_branch", gd_func(b, gd_function_t(b, n->sub[1], NULL, th, nth, true, false)));
      } else {
        nd->op = effects ? "While" : "StatelessWhile";
        gd_attr_add(b, &at, "T", gd_pbtypes(b, k + nth, m));
        b->idret = !b->full;
        gd_attr_add(b, &at, "cond", gd_func(b, gd_function_t(b, n->sub[0], NULL, th, nth, false, false)));
        b->idret = !b->full;
        if (n->sub[1]) gd_attr_add(b, &at, "body", gd_func(b, gd_function_t(b, n->sub[1], NULL, th, nth, true, !b->full)));
        b->idret = false;
        gd_attr_add(b, &at, "parallel_iterations", gd_int(b, 10));
        gd_while_attrs(b, g, n, m, k, nth, &at);
        int64_t mi;
        if (b->full && val_as_int(n->aux, &mi)) gd_attr_add(b, &at, "_tfs_max_iter", gd_int(b, mi));
      }
      if (nth) {   /* the lists go in after the data inputs and come out after the outputs */
        bool was = b->fn;
        b->fn = fn;
        char **in2 = pa_alloc(b->a, sizeof(char *) * (size_t)(nin + nth + 1));
        int nd_in = nin - n->nctrl;
        memcpy(in2, in, sizeof(char *) * (size_t)nd_in);
        for (int j = 0; j < nth; j++) in2[nd_in + j] = (char *)gd_stack_list(b, n->name, th[j]);
        memcpy(in2 + nd_in + nth, in + nd_in, sizeof(char *) * (size_t)n->nctrl);
        nd->input = in2;
        nd->n_input = (size_t)(nin + nth);
        int first = n->kind == GN_COND ? n->nout : k;
        for (int j = 0; j < nth; j++) b->cur[th[j]] = gd_out(b, n->name, first + j);
        b->fn = was;
      }
      if (b->full) gd_attr_add(b, &at, "_tfs_Tout", gd_types(b, n->nout, om_of(b, n)));
      break;
    }
    case GN_OP: {
      if (!b->full) {
        bool was = b->fn;
        b->fn = fn;
        size_t np = b->npend;
        bool done = gd_tf_op(b, g, n);
        b->fn = was;
        if (!done) b->npend = np;   /* a rule that gave up leaves no helper nodes behind */
        if (done) {   /* the chain's last node becomes this one, under its name, with its control inputs */
          Tensorflow__NodeDef *last = b->pend[--b->npend];
          nd->op = last->op;
          char **li = pa_alloc(b->a, sizeof(char *) * (last->n_input + (size_t)n->nctrl + 1));
          memcpy(li, last->input, sizeof(char *) * last->n_input);
          gd_ctrl_inputs(b, g, n, li + last->n_input);
          nd->input = li;
          nd->n_input = last->n_input + (size_t)n->nctrl;
          nd->attr = last->attr;
          nd->n_attr = last->n_attr;
          return nd;
        }
      }
      /* the generic form (and a saved graph's, b->full: tfs's own ops and
       * attributes, which graphimport.c reads back): the op's graph name, T and
       * the op's attributes under their names */
      nd->op = (char *)n->op->graph_name;
      /* T: the dtype of the op's first tensor input (its output's when it has none) */
      const TMeta *tm = NULL;
      for (int i = 0; i < n->nin && !tm; i++)
        if (n->in[i].node >= 0) tm = graph_meta(g, n->in[i]);
      if (!tm && n->nout) tm = &n->outm[0];
      if (tm) gd_attr_add(b, &at, "T", gd_type(b, tm->dtype));
      for (int i = 0; i < n->attrs.n; i++) {
        int rank;
        tfs_i64 dims[TFS_MAX_RANK];
        /* an attribute TF names `shape` is a shape (EnsureShape's), given as a list with None, a TensorShape or None */
        bool is_shape = !strcmp(op_attr_name(n->op, i), "shape") && !val_is_undef(n->attrs.v[i]) && val_as_tshape(n->attrs.v[i], &rank, dims);
        const char *key = b->full && gd_is_key(n, i) ? gd_key_item(b, n->attrs.v[i]) : NULL;
        Tensorflow__AttrValue *v = is_shape ? gd_shape(b, rank, dims)
                                   : key ? gd_str(b, pa_printf(b->a, "%s%s", TFS_KEY_MARK, key)) : gd_host(b, n->attrs.v[i]);
        if (v) gd_attr_add(b, &at, op_attr_name(n->op, i), v);
        else if (b->full && !val_is_undef(n->attrs.v[i]) && n->attrs.v[i].tag != VT_NONE)
          rt_throw(ERR_VALUE, "tf.saved_model.save: attribute '%s' of op %s in '%s' is a %s, which a saved graph cannot hold",
                   op_attr_name(n->op, i), n->op->graph_name, g->fname ? g->fname : g->name, val_type_name(n->attrs.v[i]));
      }
      if (b->full) gd_full_op(b, &at, g, n);
      break;
    }
  }
  if (b->full && n->kind != GN_PLACEHOLDER) {
    if (n->nout) gd_attr_add(b, &at, "_output_shapes", gd_shapes(b, n->nout, n->outm));
    unsigned fl = n->flags & ~(unsigned)GNF_CAPTURE;   /* (only tape entries of eager calls read it) */
    if (fl) gd_attr_add(b, &at, "_tfs_flags", gd_int(b, (tfs_i64)fl));
    /* TF marks a custom gradient's forward op so (its op type, here one per node) */
    if (fl & GNF_CUSTOM_GRAD)
      gd_attr_add(b, &at, "_gradient_op_type", gd_str(b, graphdef_grad_op_type(b->a, g, id)));
  }
  gd_set_attrs(nd, &at);
  return nd;
}

/* Appends a converted node after the helper nodes its conversion made. */
static void gd_emit(GdBuild *b, Tensorflow__NodeDef ***v, size_t *n, size_t *cap, Tensorflow__NodeDef *nd) {
  size_t np = b->npend;
  b->npend = 0;   /* gd_node is done with them: the list is reused by the next node */
  for (size_t i = 0; i < np; i++) gd_push(b, v, n, cap, b->pend[i]);
  gd_push(b, v, n, cap, nd);
}

/* TF reserves node names starting with '_' (tfs's own ops name their nodes so:
 * "_StackPush"): such names in nodes[0..n) lose the '_' (made unique), and the
 * inputs and function returns that name them follow. */
static bool gd_scope_taken(Tensorflow__NodeDef **nodes, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(nodes[i]->name, name)) return true;
  return false;
}

static char *gd_renamed(PbArena *a, const char *ref, char **from, char **to, size_t nmap) {
  const char *p = ref[0] == '^' ? ref + 1 : ref;
  size_t len = strcspn(p, ":");
  for (size_t i = 0; i < nmap; i++)
    if (strlen(from[i]) == len && !strncmp(from[i], p, len))
      return pa_printf(a, "%s%s%s", ref[0] == '^' ? "^" : "", to[i], p + len);
  return (char *)ref;
}

static void gd_tf_names(PbArena *a, Tensorflow__NodeDef **nodes, size_t n, Tensorflow__FunctionDef__RetEntry **ret,
                        size_t nret) {
  size_t nmap = 0;
  for (size_t i = 0; i < n; i++) nmap += nodes[i]->name[0] == '_';
  if (!nmap) return;
  char **from = pa_alloc(a, sizeof(char *) * nmap), **to = pa_alloc(a, sizeof(char *) * nmap);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (nodes[i]->name[0] != '_') continue;
    char *nm = pa_strdup(a, nodes[i]->name + strspn(nodes[i]->name, "_"));
    for (int j = 1; !*nm || gd_scope_taken(nodes, n, nm); j++)
      nm = pa_printf(a, "%s_%d", nodes[i]->name + strspn(nodes[i]->name, "_"), j);
    from[k] = nodes[i]->name;
    to[k++] = nodes[i]->name = nm;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < nodes[i]->n_input; j++) nodes[i]->input[j] = gd_renamed(a, nodes[i]->input[j], from, to, nmap);
  for (size_t i = 0; i < nret; i++) ret[i]->value = gd_renamed(a, ret[i]->value, from, to, nmap);
}

/* A node or argument name as a TF argument name: lower case, '_' for other characters, from the first letter. */
static char *gd_arg_norm(PbArena *a, const char *old) {
  char *nm = pa_strdup(a, old + strspn(old, "_0123456789"));
  for (char *p = nm; *p; p++) *p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
  size_t len = strlen(nm);
  while (len && nm[len - 1] == '_') nm[--len] = 0;
  return *nm ? nm : "arg";
}

/* TF's argument names are [a-z][a-z0-9_]* ("loop_vars[0]" and a captured
 * "_StackSize" are not): f's arguments get such names (made unique), and the
 * inputs and returns that read them follow.  An output argument keeps its name: an input that has it takes the
 * next free name_0, name_1 (GraphToFunctionDef names the outputs first: a While body's returned capture 'x' and
 * its argument 'x_0'). */
static void gd_arg_names(PbArena *a, Tensorflow__FunctionDef *f) {
  Tensorflow__OpDef *sig = f->signature;
  size_t n = sig->n_input_arg, nmap = 0;
  char **from = pa_alloc(a, sizeof(char *) * (n + 1)), **to = pa_alloc(a, sizeof(char *) * (n + 1));
  for (size_t i = 0; i < n; i++) {
    const char *old = sig->input_arg[i]->name;
    char *nm = gd_arg_norm(a, old);
    bool out_taken = false;
    for (size_t j = 0; j < sig->n_output_arg && !out_taken; j++) out_taken = !strcmp(sig->output_arg[j]->name, nm);
    if (!strcmp(nm, old) && !out_taken) continue;
    char *cand = nm;
    for (int k = out_taken ? 0 : 1;; k++) {
      bool taken = false;
      for (size_t j = 0; j < n && !taken; j++) taken = j != i && !strcmp(sig->input_arg[j]->name, cand);
      for (size_t j = 0; j < sig->n_output_arg && !taken; j++) taken = !strcmp(sig->output_arg[j]->name, cand);
      if (!taken) break;
      cand = pa_printf(a, "%s_%d", nm, k);
    }
    from[nmap] = sig->input_arg[i]->name;
    to[nmap++] = sig->input_arg[i]->name = cand;
  }
  if (!nmap) return;
  for (size_t i = 0; i < f->n_node_def; i++)
    for (size_t j = 0; j < f->node_def[i]->n_input; j++) {
      char *in = f->node_def[i]->input[j];
      if (!strchr(in, ':')) f->node_def[i]->input[j] = gd_renamed(a, in, from, to, nmap);   /* arguments are bare names */
    }
  for (size_t i = 0; i < f->n_ret; i++)
    if (!strchr(f->ret[i]->value, ':')) f->ret[i]->value = gd_renamed(a, f->ret[i]->value, from, to, nmap);
}

/* Is a node of f named nm (TF's names compare without case)? */
static bool gd_fn_has_node(const Tensorflow__FunctionDef *f, const char *nm) {
  for (size_t i = 0; i < f->n_node_def; i++)
    if (!strcasecmp(f->node_def[i]->name, nm)) return true;
  return false;
}

/* Output argument i of a While function that returns value (an argument, or 'node:output:k') unwrapped: the
 * returned node's name as an argument name, made unique among the outputs before it (GraphToFunctionDef). */
static char *gd_out_name(PbArena *a, const Tensorflow__OpDef *sig, int i, const char *value) {
  size_t len = strcspn(value, ":");
  char *base = gd_arg_norm(a, pa_printf(a, "%.*s", (int)len, value)), *nm = base;
  for (int k = 0;; k++) {
    bool taken = false;
    for (int j = 0; j < i && !taken; j++) taken = !strcmp(sig->output_arg[j]->name, nm);
    if (!taken) return nm;
    nm = pa_printf(a, "%s_%d", base, k);
  }
}

/* A While's cond and body are traced by func_graph_from_py_func with automatic control dependencies, whose
 * mark_as_return passes each returned value through an Identity ('Identity', 'Identity_1', ... after the body's
 * nodes); the output arguments are named after them ('identity', 'identity_1').  Captured values while_v2 appends
 * to the body's outputs afterwards return unwrapped (gd_out_name). */
static void gd_identity_return(GdBuild *b, Tensorflow__FunctionDef *f, size_t *cap, Tensorflow__OpDef__ArgDef *ad,
                               Tensorflow__FunctionDef__RetEntry *r) {
  char *nm = "Identity";
  for (int k = 1; gd_fn_has_node(f, nm); k++) nm = pa_printf(b->a, "Identity_%d", k);
  Tensorflow__NodeDef *nd = pa_alloc(b->a, sizeof *nd);
  tensorflow__node_def__init(nd);
  nd->name = nm;
  nd->op = "Identity";
  nd->n_input = 1;
  nd->input = pa_alloc(b->a, sizeof(char *) * 2);
  nd->input[0] = r->value;
  AttrList at = {0};
  gd_attr_add(b, &at, "T", gd_pbtype(b, ad->type));
  gd_set_attrs(nd, &at);
  gd_push(b, &f->node_def, &f->n_node_def, cap, nd);
  r->value = pa_printf(b->a, "%s:output:0", nm);
  ad->name = gd_arg_norm(b->a, nm);
}

/* A function name free in the library: the body's name with '/' as '_', plus a
 * sequence number.  The stacks th[0..nth) are threaded through it: one more
 * variant argument each, returned (ret_th) as the body leaves them; `pass`
 * also returns the arguments beyond g's outputs unchanged (a loop body's
 * captured values: TF's While body returns every loop variable). */
static const char *gd_function_t(GdBuild *b, const Graph *g, const char *fixed, const int *th, int nth, bool ret_th,
                                 bool pass) {
  bool idret = b->idret;   /* (nested functions made below are not the While's) */
  b->idret = false;
  char *name = fixed ? pa_strdup(b->a, fixed) : pa_printf(b->a, "%s_%d", g->name, b->seq++);
  for (char *p = name; *p; p++)   /* TF's function names: letters, digits, '_', '.', '-' ("<lambda>" too) */
    if (!fixed ? !(isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-') : *p == '/' || *p == ':' || *p == ' ') *p = '_';
  if (!fixed)
    while (name[0] == '_' && name[1]) name++;
  /* the enclosing node's helper nodes and lists wait until this body is done */
  Tensorflow__NodeDef **spend = b->pend;
  size_t snpend = b->npend, scappend = b->cappend;
  const char **scur = b->cur;
  b->pend = NULL;
  b->npend = b->cappend = 0;
  if (b->nstk) {
    b->cur = pa_alloc(b->a, sizeof(char *) * (size_t)b->nstk);
    memset(b->cur, 0, sizeof(char *) * (size_t)b->nstk);
  }
  Tensorflow__FunctionDef *f = pa_alloc(b->a, sizeof *f);
  tensorflow__function_def__init(f);
  Tensorflow__OpDef *sig = pa_alloc(b->a, sizeof *sig);
  tensorflow__op_def__init(sig);
  sig->name = name;
  sig->is_stateful = gd_has_effects(g);
  sig->n_input_arg = (size_t)(g->ninputs + nth);
  sig->input_arg = pa_alloc(b->a, sizeof(void *) * (size_t)(g->ninputs + nth + 1));
  for (int i = 0; i < g->ninputs + nth; i++) {
    Tensorflow__OpDef__ArgDef *ad = pa_alloc(b->a, sizeof *ad);
    tensorflow__op_def__arg_def__init(ad);
    if (i < g->ninputs) {
      const GraphNode *p = &g->nodes[g->inputs[i]];
      ad->name = pa_strdup(b->a, p->name);
      if (idret && !strncmp(p->name, "___redundant_placeholder", 24)) {   /* agmod.c: k-th such input, '' or '_k' */
        const char *k = p->name + 24;
        ad->name = pa_printf(b->a, "%s___redundant_placeholder%d", name, *k == '_' ? atoi(k + 1) : 0);
      }
      ad->type = gd_pbdt(b, g, (GraphRef){g->inputs[i], 0});
    } else {
      ad->name = pa_printf(b->a, "accumulator_%d", th[i - g->ninputs]);
      ad->type = TENSORFLOW__DATA_TYPE__DT_VARIANT;
      b->cur[th[i - g->ninputs]] = ad->name;
    }
    sig->input_arg[i] = ad;
  }
  if (b->full && g->ninputs) {   /* each argument's shape, in arg_attr as TF keeps it */
    f->n_arg_attr = (size_t)g->ninputs;
    f->arg_attr = pa_alloc(b->a, sizeof(void *) * (size_t)g->ninputs);
    for (int i = 0; i < g->ninputs; i++) {
      Tensorflow__FunctionDef__ArgAttrEntry *e = pa_alloc(b->a, sizeof *e);
      tensorflow__function_def__arg_attr_entry__init(e);
      e->key = (uint32_t)i;
      e->value = pa_alloc(b->a, sizeof *e->value);
      tensorflow__function_def__arg_attrs__init(e->value);
      Tensorflow__FunctionDef__ArgAttrs__AttrEntry *a = pa_alloc(b->a, sizeof *a);
      tensorflow__function_def__arg_attrs__attr_entry__init(a);
      a->key = "_output_shapes";
      a->value = gd_shapes(b, 1, g->nodes[g->inputs[i]].outm);
      e->value->n_attr = 1;
      e->value->attr = pa_alloc(b->a, sizeof(void *));
      e->value->attr[0] = a;
      f->arg_attr[i] = e;
    }
  }
  f->signature = sig;
  size_t cap = 0;
  for (int id = 0; id < g->nnodes; id++)
    if (g->nodes[id].kind != GN_PLACEHOLDER) gd_emit(b, &f->node_def, &f->n_node_def, &cap, gd_node(b, g, id, true));
  int npass = pass && g->ninputs > g->noutputs ? g->ninputs - g->noutputs : 0;
  int nret = g->noutputs + npass + (ret_th ? nth : 0);
  sig->n_output_arg = (size_t)nret;
  sig->output_arg = pa_alloc(b->a, sizeof(void *) * (size_t)(nret + 1));
  f->n_ret = (size_t)nret;
  f->ret = pa_alloc(b->a, sizeof(void *) * (size_t)(nret + 1));
  for (int i = 0; i < nret; i++) {
    Tensorflow__OpDef__ArgDef *ad = pa_alloc(b->a, sizeof *ad);
    tensorflow__op_def__arg_def__init(ad);
    ad->name = pa_printf(b->a, "output_%d", i);
    Tensorflow__FunctionDef__RetEntry *r = pa_alloc(b->a, sizeof *r);
    tensorflow__function_def__ret_entry__init(r);
    r->key = ad->name;
    if (i < g->noutputs) {
      ad->type = gd_pbdt(b, g, g->outputs[i]);
      r->value = gd_ref(b, g, g->outputs[i], true);
      if (idret) gd_identity_return(b, f, &cap, ad, r);
    } else if (i < g->noutputs + npass) {
      ad->type = sig->input_arg[i]->type;
      r->value = sig->input_arg[i]->name;
    } else {
      int k = th[i - g->noutputs - npass];
      ad->type = TENSORFLOW__DATA_TYPE__DT_VARIANT;
      r->value = (char *)b->cur[k];
    }
    if (idret && i >= g->noutputs) ad->name = gd_out_name(b->a, sig, i, r->value);
    r->key = ad->name;
    sig->output_arg[i] = ad;
    f->ret[i] = r;
  }
  if (b->nfns == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 8;
    Tensorflow__FunctionDef **fns = pa_alloc(b->a, sizeof(void *) * cap);
    if (b->nfns) memcpy(fns, b->fns, sizeof(void *) * b->nfns);
    b->fns = fns;
    b->cap = cap;
  }
  if (!b->full) {
    gd_tf_names(b->a, f->node_def, f->n_node_def, f->ret, f->n_ret);
    gd_arg_names(b->a, f);
  }
  b->fns[b->nfns++] = f;
  b->pend = spend;
  b->npend = snpend;
  b->cappend = scappend;
  b->cur = scur;
  return name;
}

static const char *gd_function(GdBuild *b, const Graph *g, const char *fixed) {
  return gd_function_t(b, g, fixed, NULL, 0, false, false);
}

static bool gd_name_taken(const Graph *g, const char *name) {
  for (int i = 0; i < g->nnodes; i++)
    if (!strcmp(g->nodes[i].name, name)) return true;
  return false;
}

/* Append g's nodes (under `scope`, "" for none) and one Identity per output. */
static void gd_graph_nodes(GdBuild *b, const Graph *g, const char *scope, Tensorflow__NodeDef ***nodes, size_t *n,
                           size_t *cap) {
  size_t first = *n;
  if (b->nstk) {
    b->cur = pa_alloc(b->a, sizeof(char *) * (size_t)b->nstk);
    memset(b->cur, 0, sizeof(char *) * (size_t)b->nstk);
  }
  for (int id = 0; id < g->nnodes; id++) gd_emit(b, nodes, n, cap, gd_node(b, g, id, false));
  int k = 0;
  for (int i = 0; i < g->noutputs; i++) {
    char *name;
    do name = k ? pa_printf(b->a, "Identity_%d", k) : pa_strdup(b->a, "Identity"), k++;
    while (gd_name_taken(g, name));
    Tensorflow__NodeDef *nd = pa_alloc(b->a, sizeof *nd);
    tensorflow__node_def__init(nd);
    nd->name = name;
    nd->op = "Identity";
    nd->n_input = 1;
    nd->input = pa_alloc(b->a, sizeof(char *));
    nd->input[0] = gd_ref(b, g, g->outputs[i], false);
    AttrList at = {0};
    gd_attr_add(b, &at, "T", gd_type(b, graph_meta(g, g->outputs[i])->dtype));
    nd->attr = at.e;
    nd->n_attr = at.n;
    gd_push(b, nodes, n, cap, nd);
  }
  if (!*scope) return;
  for (size_t i = first; i < *n; i++) {
    Tensorflow__NodeDef *nd = (*nodes)[i];
    nd->name = pa_printf(b->a, "%s/%s", scope, nd->name);
    for (size_t j = 0; j < nd->n_input; j++)
      nd->input[j] = nd->input[j][0] == '^' ? pa_printf(b->a, "^%s/%s", scope, nd->input[j] + 1)
                                            : pa_printf(b->a, "%s/%s", scope, nd->input[j]);
  }
}

Tensorflow__GraphDef *graphdef_build_many(PbArena *a, const Graph *const *gs, int ng) {
  GdBuild b = {.a = a};
  Tensorflow__GraphDef *gd = pa_alloc(a, sizeof *gd);
  tensorflow__graph_def__init(gd);
  size_t cap = 0;
  for (int i = 0; i < ng; i++) gd_stack_scan(&b, gs[i]);
  for (int i = 0; i < ng && graphdef_dataset_info; i++) gd_mark_datasets(&b, gs[i]);
  for (int i = 0; i < ng; i++) gd_graph_nodes(&b, gs[i], ng > 1 ? gs[i]->name : "", &gd->node, &gd->n_node, &cap);
  gd_tf_names(a, gd->node, gd->n_node, NULL, 0);
  gd->versions = pa_alloc(a, sizeof *gd->versions);
  tensorflow__version_def__init(gd->versions);
  gd->versions->producer = GD_PRODUCER;
  if (b.nfns) {
    gd->library = pa_alloc(a, sizeof *gd->library);
    tensorflow__function_def_library__init(gd->library);
    gd->library->function = b.fns;
    gd->library->n_function = b.nfns;
  }
  return gd;
}

Tensorflow__GraphDef *graphdef_build(PbArena *a, const Graph *g) { return graphdef_build_many(a, &g, 1); }

char *graphdef_grad_op_type(PbArena *a, const Graph *g, int id) {
  return pa_printf(a, "CustomGradient-%s/%s", g->name, g->nodes[id].name);
}

Tensorflow__FunctionDefLibrary *graphdef_saved_library(PbArena *a, const Graph *const *gs, const char *const *names, int n,
                                                       const char *(*varkey)(void *ctx, const Variable *v), void *ctx) {
  GdBuild b = {.a = a, .full = true, .varkey = varkey, .vctx = ctx};
  for (int i = 0; i < n; i++) gd_function(&b, gs[i], names[i]);
  Tensorflow__FunctionDefLibrary *lib = pa_alloc(a, sizeof *lib);
  tensorflow__function_def_library__init(lib);
  lib->function = b.fns;
  lib->n_function = b.nfns;
  return lib;
}

void graphdef_text(StrBuf *b, const Graph *g) {
  PbArena a = {0};
  pb_text(b, &graphdef_build(&a, g)->base, 0);
  pa_free(&a);
}

unsigned char *graphdef_pack(const Graph *g, size_t *n) {
  PbArena a = {0};
  unsigned char *r = pb_pack(&graphdef_build(&a, g)->base, n);
  pa_free(&a);
  return r;
}
