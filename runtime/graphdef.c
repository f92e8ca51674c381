/* graphdef.c — convert the graph IR to TensorFlow's GraphDef: NodeDefs with TF op names, inputs "node:k", "^ctrl", typed attrs. */
#include "graphdef.h"

#include <stdlib.h>
#include <string.h>

#include "object.h"

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
} GdBuild;

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

static Tensorflow__AttrValue *gd_type(GdBuild *b, DType dt) {
  Tensorflow__AttrValue *v = gd_attr(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  v->type = pb_dtype(dt);
  return v;
}

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

/* An op attribute (a host value) as an AttrValue; NULL when it has no TF form. */
static Tensorflow__AttrValue *gd_host(GdBuild *b, Val x) {
  DType dt;
  Tensorflow__AttrValue *v;
  if (val_is(x, &dtype_type) && val_as_dtype(x, &dt)) return gd_type(b, dt);
  switch (x.tag) {
    case VT_BOOL:
      v = gd_attr(b);
      v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
      v->b = x.u.i != 0;
      return v;
    case VT_INT:
      v = gd_attr(b);
      v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
      v->i = x.u.i;
      return v;
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
  if (fn) return pa_printf(b->a, "%s:output:%d", n->name, r.out);
  return r.out ? pa_printf(b->a, "%s:%d", n->name, r.out) : pa_strdup(b->a, n->name);
}

static bool gd_has_effects(const Graph *g) {
  for (int i = 0; i < g->nnodes; i++)
    if ((g->nodes[i].flags & GNF_STATEFUL) || g->nodes[i].kind == GN_VARHANDLE) return true;
  return false;
}

static const char *gd_function(GdBuild *b, const Graph *g, const char *fixed);

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
  for (int i = 0; i < n->nctrl; i++) in[nin++] = pa_printf(b->a, "^%s", g->nodes[n->ctrl[i]].name);
  nd->input = in;
  nd->n_input = (size_t)nin;
  switch (n->kind) {
    case GN_PLACEHOLDER:
      nd->op = "Placeholder";
      gd_attr_add(b, &at, "dtype", gd_type(b, n->outm[0].dtype));
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
      const TMeta **m = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(n->nin + n->nout + 1));
      int k = 0;
      for (int i = 0; i < n->nin; i++)
        if (n->in[i].node >= 0) m[k++] = graph_meta(g, n->in[i]);
      if (n->kind == GN_COND) {
        nd->op = effects ? "If" : "StatelessIf";
        const TMeta **om = pa_alloc(b->a, sizeof(TMeta *) * (size_t)(n->nout + 1));
        for (int i = 0; i < n->nout; i++) om[i] = &n->outm[i];
        if (k) gd_attr_add(b, &at, "Tcond", gd_type(b, m[0]->dtype));
        gd_attr_add(b, &at, "Tin", gd_types(b, k ? k - 1 : 0, m + (k ? 1 : 0)));
        gd_attr_add(b, &at, "Tout", gd_types(b, n->nout, om));
        gd_attr_add(b, &at, "then_branch", gd_func(b, gd_function(b, n->sub[0], NULL)));
        if (n->sub[1]) gd_attr_add(b, &at, "else_branch", gd_func(b, gd_function(b, n->sub[1], NULL)));
      } else {
        nd->op = effects ? "While" : "StatelessWhile";
        gd_attr_add(b, &at, "T", gd_types(b, k, m));
        gd_attr_add(b, &at, "cond", gd_func(b, gd_function(b, n->sub[0], NULL)));
        if (n->sub[1]) gd_attr_add(b, &at, "body", gd_func(b, gd_function(b, n->sub[1], NULL)));
        gd_attr_add(b, &at, "parallel_iterations", gd_int(b, 10));
        int64_t mi;
        if (b->full && val_as_int(n->aux, &mi)) gd_attr_add(b, &at, "_tfs_max_iter", gd_int(b, mi));
      }
      if (b->full) gd_attr_add(b, &at, "_tfs_Tout", gd_types(b, n->nout, om_of(b, n)));
      break;
    }
    case GN_OP: {
      /* a saved graph (b->full) keeps tfs's own ops and attributes, which graphimport.c reads back */
      if (!b->full && (n->op == &op_defs[OP_ZEROS] || n->op == &op_defs[OP_ONES]) && n->outm[0].dtype != DT_STRING) {
        nd->op = "Const";
        gd_attr_add(b, &at, "dtype", gd_type(b, n->outm[0].dtype));
        Tensorflow__AttrValue *v = gd_attr(b);
        v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
        v->tensor = gd_splat(b, &n->outm[0], n->op == &op_defs[OP_ONES]);
        gd_attr_add(b, &at, "value", v);
        break;
      }
      nd->op = (char *)n->op->graph_name;
      /* T: the dtype of the op's first tensor input (its output's when it has none) */
      const TMeta *tm = NULL;
      for (int i = 0; i < n->nin && !tm; i++)
        if (n->in[i].node >= 0) tm = graph_meta(g, n->in[i]);
      if (!tm && n->nout) tm = &n->outm[0];
      if (tm) gd_attr_add(b, &at, "T", gd_type(b, tm->dtype));
      /* tf.matmul's adjoint_a/b are no attributes of TF's MatMul: for real
       * dtypes they are transpose_a/b; batched products are BatchMatMulV2 (adj_x/adj_y) */
      bool mm = !b->full && n->op == &op_defs[OP_MATMUL];
      bool batch = false;
      for (int i = 0; mm && i < n->nin; i++)
        if (n->in[i].node >= 0 && graph_meta(g, n->in[i])->rank > 2) batch = true;
      if (batch) nd->op = "BatchMatMulV2";
      for (int i = 0; i < n->attrs.n; i++) {
        Val av = n->attrs.v[i];
        const char *an = op_attr_name(n->op, i);
        if (mm && i >= 2) continue;
        if (mm && i + 2 < n->attrs.n && n->attrs.v[i + 2].tag == VT_BOOL && n->attrs.v[i + 2].u.i) av = val_bool(true);
        if (batch) an = i == 0 ? "adj_x" : "adj_y";
        Tensorflow__AttrValue *v = gd_host(b, av);
        if (v) gd_attr_add(b, &at, an, v);
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
    if (n->flags) gd_attr_add(b, &at, "_tfs_flags", gd_int(b, (tfs_i64)n->flags));
  }
  /* TF prints map entries sorted by key */
  for (size_t i = 1; i < at.n; i++)
    for (size_t j = i; j > 0 && strcmp(at.e[j - 1]->key, at.e[j]->key) > 0; j--) {
      Tensorflow__NodeDef__AttrEntry *t = at.e[j];
      at.e[j] = at.e[j - 1];
      at.e[j - 1] = t;
    }
  nd->attr = at.e;
  nd->n_attr = at.n;
  return nd;
}

/* A function name free in the library: the body's name with '/' as '_', plus a sequence number. */
static const char *gd_function(GdBuild *b, const Graph *g, const char *fixed) {
  char *name = fixed ? pa_strdup(b->a, fixed) : pa_printf(b->a, "%s_%d", g->name, b->seq++);
  for (char *p = name; *p; p++)
    if (*p == '/' || *p == ':' || *p == ' ') *p = '_';
  Tensorflow__FunctionDef *f = pa_alloc(b->a, sizeof *f);
  tensorflow__function_def__init(f);
  Tensorflow__OpDef *sig = pa_alloc(b->a, sizeof *sig);
  tensorflow__op_def__init(sig);
  sig->name = name;
  sig->is_stateful = gd_has_effects(g);
  sig->n_input_arg = (size_t)g->ninputs;
  sig->input_arg = pa_alloc(b->a, sizeof(void *) * (size_t)(g->ninputs + 1));
  for (int i = 0; i < g->ninputs; i++) {
    Tensorflow__OpDef__ArgDef *ad = pa_alloc(b->a, sizeof *ad);
    tensorflow__op_def__arg_def__init(ad);
    const GraphNode *p = &g->nodes[g->inputs[i]];
    ad->name = pa_strdup(b->a, p->name);
    ad->type = pb_dtype(p->outm[0].dtype);
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
  sig->n_output_arg = (size_t)g->noutputs;
  sig->output_arg = pa_alloc(b->a, sizeof(void *) * (size_t)(g->noutputs + 1));
  f->n_ret = (size_t)g->noutputs;
  f->ret = pa_alloc(b->a, sizeof(void *) * (size_t)(g->noutputs + 1));
  for (int i = 0; i < g->noutputs; i++) {
    Tensorflow__OpDef__ArgDef *ad = pa_alloc(b->a, sizeof *ad);
    tensorflow__op_def__arg_def__init(ad);
    ad->name = pa_printf(b->a, "output_%d", i);
    ad->type = pb_dtype(graph_meta(g, g->outputs[i])->dtype);
    sig->output_arg[i] = ad;
    Tensorflow__FunctionDef__RetEntry *r = pa_alloc(b->a, sizeof *r);
    tensorflow__function_def__ret_entry__init(r);
    r->key = ad->name;
    r->value = gd_ref(b, g, g->outputs[i], true);
    f->ret[i] = r;
  }
  f->signature = sig;
  f->node_def = pa_alloc(b->a, sizeof(void *) * (size_t)(g->nnodes + 1));
  for (int id = 0; id < g->nnodes; id++)
    if (g->nodes[id].kind != GN_PLACEHOLDER) f->node_def[f->n_node_def++] = gd_node(b, g, id, true);
  if (b->nfns == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 8;
    Tensorflow__FunctionDef **fns = pa_alloc(b->a, sizeof(void *) * cap);
    if (b->nfns) memcpy(fns, b->fns, sizeof(void *) * b->nfns);
    b->fns = fns;
    b->cap = cap;
  }
  b->fns[b->nfns++] = f;
  return name;
}

static bool gd_name_taken(const Graph *g, const char *name) {
  for (int i = 0; i < g->nnodes; i++)
    if (!strcmp(g->nodes[i].name, name)) return true;
  return false;
}

/* Append g's nodes (under `scope`, "" for none) and one Identity per output. */
static void gd_graph_nodes(GdBuild *b, const Graph *g, const char *scope, Tensorflow__NodeDef ***nodes, size_t *n,
                           size_t *cap) {
  size_t need = *n + (size_t)g->nnodes + (size_t)g->noutputs;
  if (need > *cap) {
    Tensorflow__NodeDef **nn = pa_alloc(b->a, sizeof(void *) * (need + 1));
    if (*n) memcpy(nn, *nodes, sizeof(void *) * *n);
    *nodes = nn;
    *cap = need;
  }
  size_t first = *n;
  for (int id = 0; id < g->nnodes; id++) (*nodes)[(*n)++] = gd_node(b, g, id, false);
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
    (*nodes)[(*n)++] = nd;
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
  for (int i = 0; i < ng; i++) gd_graph_nodes(&b, gs[i], ng > 1 ? gs[i]->name : "", &gd->node, &gd->n_node, &cap);
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
