/* graphimport.c — a FunctionDef of a saved library back into the graph IR (tf.saved_model.load), the reverse of graphdef.c's saving form. */
#include "formats/graphimport.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/nest.h"

/* A reference the file may not be trusted to keep: every name, index and
 * count is checked, so a corrupt file is a located error, never a crash. */
typedef struct GiCtx {
  const Tensorflow__FunctionDefLibrary *lib;
  const char *path;
  GiVarFn var;
  void *vctx;
  int depth;
} GiCtx;

typedef struct GiName { const char *name; int id; } GiName;   /* file name -> node id */

_Noreturn void graphimport_corrupt_v(const char *path, const char *fmt, va_list ap) {
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  /* errindex: tf.saved_model.load: '…' is corrupt: … */
  rt_throw(ERR_VALUE, "tf.saved_model.load: '%s' is corrupt: %s", path, msg);
}

__attribute__((format(printf, 2, 3))) _Noreturn static void gi_fail(const GiCtx *cx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  graphimport_corrupt_v(cx->path, fmt, ap);
}

static const Tensorflow__AttrValue *gi_attr(const Tensorflow__NodeDef *nd, const char *key) {
  for (size_t i = 0; i < nd->n_attr; i++)
    if (nd->attr[i]->key && !strcmp(nd->attr[i]->key, key)) return nd->attr[i]->value;
  return NULL;
}

static const Tensorflow__FunctionDef *gi_find_fn(const GiCtx *cx, const char *name) {
  for (size_t i = 0; cx->lib && i < cx->lib->n_function; i++) {
    const Tensorflow__FunctionDef *f = cx->lib->function[i];
    if (f->signature && f->signature->name && !strcmp(f->signature->name, name)) return f;
  }
  return NULL;
}

static const OpDef *gi_op(const char *name) {
  if (!strcmp(name, "ComplexAbs")) return &op_defs[OP_ABS];   /* tf.abs of a complex tensor (graphdef.c's gd_r_complex) */
  for (int i = 0; i < OP__COUNT; i++)
    if (!strcmp(op_defs[i].graph_name, name)) return &op_defs[i];
  return NULL;
}

/* Output metas from _output_shapes and _tfs_Tout. */
static int gi_metas(const GiCtx *cx, const Tensorflow__NodeDef *nd, TMeta *m, int cap) {
  const Tensorflow__AttrValue *sh = gi_attr(nd, "_output_shapes"), *ty = gi_attr(nd, "_tfs_Tout");
  size_t n = ty && ty->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST ? ty->list->n_type : 0;
  if (!ty || ty->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || (int)n > cap ||
      (n && (!sh || sh->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || sh->list->n_shape != n)))
    gi_fail(cx, "node '%s' has no valid output types and shapes", nd->name);
  for (size_t i = 0; i < n; i++) {
    int dt = pb_undtype(ty->list->type[i]);
    if (dt < 0 || !pb_unshape(sh->list->shape[i], &m[i].rank, m[i].shape))
      gi_fail(cx, "node '%s' has an output tfs cannot represent", nd->name);
    m[i].dtype = (DType)dt;
  }
  return (int)n;
}

/* A host value (attribute or host input) from its AttrValue; VT_UNDEF when it has no tfs form. */
/* A list of str, dtypes, bools, shapes (lists of ints) or tensors (DT_INVALID: None), as graphdef.c writes them. */
static Val gi_typed_list(const GiCtx *cx, const Tensorflow__AttrValue__ListValue *l, const char *node) {
  size_t n = l->n_s + l->n_type + l->n_b + l->n_shape + l->n_tensor;
  Val r = list_new((tfs_i64)n);
  int mark = rt_hold_val(r);
  for (size_t i = 0; i < n; i++) {
    Val x;
    if (l->n_s) {
      x = str_new((const char *)l->s[i].data, (tfs_i64)l->s[i].len);
    } else if (l->n_type) {
      int dt = pb_undtype(l->type[i]);
      if (dt < 0) gi_fail(cx, "node '%s' has an attribute of an unsupported dtype", node);
      x = dtype_val((DType)dt);
    } else if (l->n_b) {
      x = val_bool(l->b[i]);
    } else if (l->n_shape) {
      int rank;
      tfs_i64 dims[TFS_MAX_RANK];
      if (!pb_unshape(l->shape[i], &rank, dims) || rank < 0) gi_fail(cx, "node '%s' holds a bad shape", node);
      x = list_new(rank ? rank : 1);
      for (int j = 0; j < rank; j++) list_append(x, val_int(dims[j]));
    } else if (l->tensor[i]->dtype == TENSORFLOW__DATA_TYPE__DT_INVALID) {
      x = val_none();
    } else {
      const char *err = NULL;
      Tensor *t = pb_untensor(l->tensor[i], &err);
      if (!t) gi_fail(cx, "node '%s' holds %s", node, err);
      x = val_obj(t);
    }
    list_append(r, x);
    val_decref(x);
  }
  rt_unhold(mark);
  return r;
}

/* One item of a slicing key as gd_key_item wrote it, from *pp (advanced past it); raises on anything else. */
static Val gi_key(const GiCtx *cx, const char **pp, const char *end, const char *node, int depth) {
  const char *p = *pp;
  if (p >= end || depth > 32) gi_fail(cx, "node '%s' holds a bad slicing key", node);
  if (*p == 'N') return *pp = p + 1, val_none();
  if (*p == 'E') return *pp = p + 1, rt_ellipsis();
  if (*p == 'L' || *p == '-' || (*p >= '0' && *p <= '9')) {
    bool leaf = *p == 'L', neg = false;
    p += leaf;
    if (p < end && *p == '-') neg = true, p++;
    const char *digits = p;
    uint64_t v = 0;   /* by hand: the attribute's bytes are not NUL-terminated, so no strtoll */
    while (p < end && *p >= '0' && *p <= '9' && v <= (uint64_t)INT64_MAX / 10) v = v * 10 + (uint64_t)(*p++ - '0');
    if (p == digits || (p < end && *p >= '0' && *p <= '9') || v > (uint64_t)INT64_MAX || (leaf && (neg || v > 1 << 20)))
      gi_fail(cx, "node '%s' holds a bad slicing key", node);
    *pp = p;
    return leaf ? nest_leaf((int)v) : val_int(neg ? -(int64_t)v : (int64_t)v);
  }
  bool slice = *p == 'S', tup = *p == 'T', lst = *p == '[';
  if (!slice && !tup && !lst) gi_fail(cx, "node '%s' holds a bad slicing key", node);
  p += lst ? 1 : 2;
  if (!lst && (p > end || p[-1] != '(')) gi_fail(cx, "node '%s' holds a bad slicing key", node);
  char close = lst ? ']' : ')';
  Val items = list_new(4);
  int mark = rt_hold_val(items);
  while (p < end && *p != close) {
    if (((List *)items.u.o)->len > 0) {
      if (*p != ',') gi_fail(cx, "node '%s' holds a bad slicing key", node);
      p++;
    }
    Val x = gi_key(cx, &p, end, node, depth + 1);
    list_append(items, x);
    val_decref(x);
  }
  if (p >= end) gi_fail(cx, "node '%s' holds a bad slicing key", node);
  *pp = p + 1;
  tfs_i64 n = ((List *)items.u.o)->len;
  const Val *it = ((List *)items.u.o)->items;
  Val r;
  if (slice) {
    if (n != 3) gi_fail(cx, "node '%s' holds a bad slicing key", node);
    r = rt_slice(it[0], it[1], it[2]);
  } else if (tup) {
    r = tuple_new(n);
    for (tfs_i64 i = 0; i < n; i++) ((Tuple *)r.u.o)->items[i] = val_incref(it[i]);
  } else {
    r = val_incref(items);
  }
  rt_unhold(mark);
  val_decref(items);   /* the list is the result only for a list key (incref'd above) */
  return r;
}

static Val gi_host(const GiCtx *cx, const Tensorflow__AttrValue *v, const char *node) {
  switch (v->value_case) {
    case TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER: return val_none();
    case TENSORFLOW__ATTR_VALUE__VALUE_B: return val_bool(v->b);
    case TENSORFLOW__ATTR_VALUE__VALUE_I: return val_int(v->i);
    case TENSORFLOW__ATTR_VALUE__VALUE_F: return val_float(v->f);
    case TENSORFLOW__ATTR_VALUE__VALUE_S: {
      size_t m = sizeof TFS_KEY_MARK - 1;
      if (v->s.len > m && !memcmp(v->s.data, TFS_KEY_MARK, m)) {   /* a slicing key (graphdef.c's gd_key_item) */
        const char *p = (const char *)v->s.data + m, *end = (const char *)v->s.data + v->s.len;
        Val k = gi_key(cx, &p, end, node, 0);
        if (p != end) {
          val_decref(k);
          gi_fail(cx, "node '%s' holds a bad slicing key", node);
        }
        return k;
      }
      return str_new((const char *)v->s.data, (tfs_i64)v->s.len);
    }
    case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: {
      int dt = pb_undtype(v->type);
      if (dt < 0) gi_fail(cx, "node '%s' has an attribute of an unsupported dtype", node);
      return dtype_val((DType)dt);
    }
    case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR: {
      const char *err = NULL;
      Tensor *t = pb_untensor(v->tensor, &err);
      if (!t) gi_fail(cx, "node '%s' holds %s", node, err);
      return val_obj(t);
    }
    case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE: {   /* EnsureShape's shape */
      int rank;
      tfs_i64 dims[TFS_MAX_RANK];
      if (!pb_unshape(v->shape, &rank, dims)) gi_fail(cx, "node '%s' has a shape attribute tfs cannot read", node);
      return tshape_new(rank, dims);
    }
    case TENSORFLOW__ATTR_VALUE__VALUE_LIST: {
      const Tensorflow__AttrValue__ListValue *l = v->list;
      if (l->n_s || l->n_type || l->n_b || l->n_shape || l->n_tensor) return gi_typed_list(cx, l, node);
      size_t n = l->n_f ? l->n_f : l->n_i;
      Val r = list_new((tfs_i64)n);
      for (size_t i = 0; i < n; i++) {
        Val x = l->n_f ? val_float(l->f[i]) : val_int(l->i[i]);
        list_append(r, x);
      }
      return r;
    }
    default: gi_fail(cx, "node '%s' has an attribute tfs cannot read", node);
  }
}

static const int64_t *gi_ints(const Tensorflow__AttrValue *v, size_t *n) {
  if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST) {
    *n = 0;
    return NULL;
  }
  *n = v->list->n_i;
  return v->list->i;
}

static Graph *gi_function(GiCtx *cx, const char *fname, const char *gname, const char *owner, Graph *parent);
static void gi_fill(GiCtx *cx, const Tensorflow__FunctionDef *f, const char *fname, Graph *g, GiName *names);

static Graph *gi_body(GiCtx *cx, const Tensorflow__NodeDef *nd, const char *key, Graph *g, bool need) {
  const Tensorflow__AttrValue *v = gi_attr(nd, key);
  if (!v && !need) return NULL;
  if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_FUNC || !v->func->name)
    gi_fail(cx, "node '%s' has no function '%s'", nd->name, key);
  return gi_function(cx, v->func->name, v->func->name, g->fname, g);
}

/* "x", "x:1" or "n:output:1" -> a value of g (names: the file's node names). */
static GraphRef gi_ref(const GiCtx *cx, const char *s, const GiName *names, int nnames, const Graph *g, const char *node) {
  char base[256];
  snprintf(base, sizeof base, "%s", s);
  int out = 0;
  char *c = strchr(base, ':');
  if (c) {
    *c = 0;
    const char *k = strrchr(s, ':') + 1;
    char *end;
    long v = strtol(k, &end, 10);
    if (*end || end == k || v < 0 || v > 1000000) gi_fail(cx, "node '%s' has a bad input '%s'", node, s);
    out = (int)v;
  }
  for (int i = nnames - 1; i >= 0; i--)
    if (!strcmp(names[i].name, base)) {
      const GraphNode *n = &g->nodes[names[i].id];
      if (out >= n->nout && !(n->kind == GN_VARHANDLE && out == 0)) gi_fail(cx, "node '%s' reads output %d of '%s', which has fewer", node, out, base);
      return (GraphRef){names[i].id, out};
    }
  gi_fail(cx, "node '%s' reads '%s', which is not defined before it", node, s);
}

static int gi_node_id(const GiCtx *cx, const char *name, const GiName *names, int nnames, const char *node) {
  for (int i = nnames - 1; i >= 0; i--)
    if (!strcmp(names[i].name, name)) return names[i].id;
  gi_fail(cx, "node '%s' waits for '%s', which is not defined before it", node, name);
}

static void gi_node(GiCtx *cx, Graph *g, const Tensorflow__NodeDef *nd, GiName *names, int nnames) {
  const char *op = nd->op ? nd->op : "";
  int nd_in = 0;
  GraphRef *in = malloc(sizeof(GraphRef) * (nd->n_input + 1));
  if (!in) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(in);
  for (size_t i = 0; i < nd->n_input; i++)
    if (nd->input[i][0] != '^') in[nd_in++] = gi_ref(cx, nd->input[i], names, nnames, g, nd->name);
  TMeta m[64];
  int id;
  if (!strcmp(op, "Const")) {
    const Tensorflow__AttrValue *v = gi_attr(nd, "value");
    if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TENSOR) gi_fail(cx, "constant '%s' has no value", nd->name);
    const char *err = NULL;
    Tensor *t = pb_untensor(v->tensor, &err);
    if (!t) gi_fail(cx, "constant '%s' holds %s", nd->name, err);
    int tm = rt_hold_val(val_obj(t));
    id = graph_add_const(g, t);
    rt_unhold(tm);
    tensor_release(t);   /* the node keeps its own reference */
  } else if (!strcmp(op, "VarHandleOp")) {
    const Tensorflow__AttrValue *v = gi_attr(nd, "shared_name");
    if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_S) gi_fail(cx, "variable handle '%s' has no name", nd->name);
    char key[256];
    snprintf(key, sizeof key, "%.*s", (int)v->s.len, (const char *)v->s.data);
    Variable *var = cx->var ? cx->var(cx->vctx, key) : NULL;
    if (!var) gi_fail(cx, "variable handle '%s' names '%s', which is not a saved variable", nd->name, key);
    id = graph_add_varhandle(g, var, NULL);
  } else if (!strcmp(op, "If") || !strcmp(op, "StatelessIf") || !strcmp(op, "While") || !strcmp(op, "StatelessWhile")) {
    bool cond = op[strlen(op) - 1] == 'f';
    int nout = gi_metas(cx, nd, m, 64);
    if (cond && nd_in < 1) gi_fail(cx, "cond '%s' has no predicate", nd->name);
    Graph *a = gi_body(cx, nd, cond ? "then_branch" : "cond", g, true);
    Graph *b = NULL;
    RtTry t;
    rt_try_push(&t);
    if (setjmp(t.jb) == 0) {
      b = gi_body(cx, nd, cond ? "else_branch" : "body", g, false);
      int want = cond ? nd_in - 1 : nd_in;
      if (a->ninputs != want || (b && b->ninputs != want) || (cond ? (a->noutputs != nout || (b && b->noutputs != nout))
                                                                  : (a->noutputs != 1 || !b || b->noutputs != nout)))
        gi_fail(cx, "the bodies of '%s' do not match its inputs and outputs", nd->name);
      rt_try_pop(&t);
    } else {
      graph_release(a);
      if (b) graph_release(b);
      rt_rethrow(&t);
    }
    id = graph_add_node(g, cond ? GN_COND : GN_WHILE, NULL, nd->name, nout, m);
    g->nodes[id].sub[0] = a;
    g->nodes[id].sub[1] = b;
    graph_set_inputs(g, id, nd_in, in, NULL);
    const Tensorflow__AttrValue *mi = gi_attr(nd, "_tfs_max_iter");
    if (mi && mi->value_case == TENSORFLOW__ATTR_VALUE__VALUE_I) g->nodes[id].aux = val_int(mi->i);
  } else {
    const OpDef *od = gi_op(op);
    if (!od) gi_fail(cx, "node '%s' has op '%s', which tfs does not have", nd->name, op);
    int nout = gi_metas(cx, nd, m, 64);
    size_t npos, ndyn;
    const int64_t *pos = gi_ints(gi_attr(nd, "_tfs_in"), &npos);
    const int64_t *dyn = gi_ints(gi_attr(nd, "_tfs_dyn"), &ndyn);
    if (!pos || npos != (size_t)nd_in + 1 || pos[0] < 0 || pos[0] > OP_MAX_ARGS * 64 || ndyn > OP_MAX_ATTRS)
      gi_fail(cx, "node '%s' has no valid input list", nd->name);
    int nin = (int)pos[0], total = nin + (int)ndyn;
    GraphRef *full = malloc(sizeof(GraphRef) * (size_t)(total + 1));
    Val *raw = malloc(sizeof(Val) * (size_t)(nin + 1));
    if (!full || !raw) rt_throw(ERR_MEMORY, "out of memory");
    rt_hold_mem(full);
    rt_hold_mem(raw);
    bool any_raw = false;
    for (int i = 0; i < total; i++) full[i] = (GraphRef){-1, 0};
    for (int i = 0; i < nin; i++) raw[i] = val_undef();
    for (int k = 0; k < nd_in; k++) {
      if (pos[k + 1] < 0 || pos[k + 1] >= total || full[pos[k + 1]].node >= 0)
        gi_fail(cx, "node '%s' has no valid input list", nd->name);
      full[pos[k + 1]] = in[k];
    }
    for (int i = 0; i < total; i++)
      if (i >= nin && full[i].node < 0) gi_fail(cx, "node '%s' has no valid input list", nd->name);
    int nat = op_num_attrs(od);
    OpAttrs at;
    at.n = nat;
    for (int i = 0; i < nat; i++) at.v[i] = val_undef();
    size_t nnone;
    const int64_t *none = gi_ints(gi_attr(nd, "_tfs_none"), &nnone);
    for (int i = 0; i < nat; i++) {
      const Tensorflow__AttrValue *v = gi_attr(nd, op_attr_name(od, i));
      if (v) at.v[i] = gi_host(cx, v, nd->name);
      for (size_t k = 0; k < nnone; k++)
        if (none[k] == i) at.v[i] = val_none();
      if (at.v[i].tag == VT_OBJ) rt_hold_val(at.v[i]);
    }
    for (int i = 0; i < nin; i++) {
      char key[32];
      snprintf(key, sizeof key, "_tfs_raw_%d", i);
      const Tensorflow__AttrValue *v = gi_attr(nd, key);
      if (!v) continue;
      raw[i] = gi_host(cx, v, nd->name);
      if (raw[i].tag == VT_OBJ) rt_hold_val(raw[i]);
      any_raw = true;
    }
    /* a required input (upper-case kind) must be a graph value or a host value */
    int nk = op_num_inputs(od);
    bool fixed = !(od->flags & OPF_VARIADIC) && !strchr(od->kinds, 'L');   /* a list input: its elements are the inputs */
    if (fixed && nin != nk) gi_fail(cx, "node '%s' has %d inputs, not %d", nd->name, nin, nk);
    for (int i = 0, k = 0; fixed && od->kinds[k] && i < nin; k++) {
      if (od->kinds[k] == '.') continue;
      char kind = od->kinds[k];
      if (full[i].node < 0 && val_is_undef(raw[i]) && kind >= 'A' && kind <= 'Z')
        gi_fail(cx, "node '%s' lacks its input %d", nd->name, i);
      i++;
    }
    id = graph_add_node(g, GN_OP, od, nd->name, nout, m);
    GraphNode *n = &g->nodes[id];
    n->attrs = at;
    for (int i = 0; i < nat; i++) val_incref(at.v[i]);
    graph_set_inputs(g, id, nin, full, any_raw ? raw : NULL);
    for (size_t k = 0; k < ndyn; k++) {
      if (dyn[k] < 0 || dyn[k] >= nat) gi_fail(cx, "node '%s' has a bad dynamic attribute", nd->name);
      graph_add_dyn_attr(g, id, (int)dyn[k], full[nin + (int)k]);
    }
    /* the node holds its own references now */
    rt_unhold(mark);
    for (int i = 0; i < nat; i++) val_decref(at.v[i]);
    for (int i = 0; i < nin; i++) val_decref(raw[i]);
    free(full);
    free(raw);
    mark = rt_hold_mem(in);
  }
  const Tensorflow__AttrValue *fl = gi_attr(nd, "_tfs_flags");
  if (fl && fl->value_case == TENSORFLOW__ATTR_VALUE__VALUE_I) g->nodes[id].flags = (unsigned)fl->i & (GNF_STATEFUL | GNF_LIST | GNF_CUSTOM_GRAD);
  /* a custom gradient's op type, which a saved gradient function (registered_gradients) replaces (savedmodel's smgrad.c) */
  const Tensorflow__AttrValue *got = gi_attr(nd, "_gradient_op_type");
  if ((g->nodes[id].flags & GNF_CUSTOM_GRAD) && got && got->value_case == TENSORFLOW__ATTR_VALUE__VALUE_S)
    g->nodes[id].aux = str_new((const char *)got->s.data, (tfs_i64)got->s.len);
  for (size_t i = 0; i < nd->n_input; i++)
    if (nd->input[i][0] == '^') graph_add_ctrl(g, id, gi_node_id(cx, nd->input[i] + 1, names, nnames, nd->name));
  rt_unhold(mark);
  free(in);
  names[nnames].name = nd->name;
  names[nnames].id = id;
}

static Graph *gi_function(GiCtx *cx, const char *fname, const char *gname, const char *owner, Graph *parent) {
  const Tensorflow__FunctionDef *f = gi_find_fn(cx, fname);
  if (!f) gi_fail(cx, "function '%s' is not in its library", fname);
  if (++cx->depth > 64) gi_fail(cx, "functions nest deeper than 64");
  if (!f->signature) gi_fail(cx, "function '%s' has no signature", fname);
  Graph *g = graph_new(gname, owner ? owner : gname, parent);
  GiName *names = malloc(sizeof(GiName) * (f->signature->n_input_arg + f->n_node_def + 1));
  if (!names) rt_throw(ERR_MEMORY, "out of memory");
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    gi_fill(cx, f, fname, g, names);
    rt_try_pop(&t);
  } else {
    free(names);
    graph_release(g);
    cx->depth--;
    rt_rethrow(&t);
  }
  free(names);
  cx->depth--;
  return g;
}

/* The arguments, nodes and outputs of f into g (names: room for all of them). */
static void gi_fill(GiCtx *cx, const Tensorflow__FunctionDef *f, const char *fname, Graph *g, GiName *names) {
  const Tensorflow__OpDef *sig = f->signature;
  int nn = 0;
  {
    for (size_t i = 0; i < sig->n_input_arg; i++) {
      TMeta m = {0};
      int dt = pb_undtype(sig->input_arg[i]->type);
      if (dt < 0 || !sig->input_arg[i]->name) gi_fail(cx, "function '%s' has an argument tfs cannot represent", fname);
      m.dtype = (DType)dt;
      m.rank = -1;
      for (size_t k = 0; k < f->n_arg_attr; k++) {
        if (f->arg_attr[k]->key != i || !f->arg_attr[k]->value) continue;
        const Tensorflow__FunctionDef__ArgAttrs *aa = f->arg_attr[k]->value;
        for (size_t j = 0; j < aa->n_attr; j++)
          if (!strcmp(aa->attr[j]->key, "_output_shapes") && aa->attr[j]->value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST &&
              aa->attr[j]->value->list->n_shape == 1 && !pb_unshape(aa->attr[j]->value->list->shape[0], &m.rank, m.shape))
            gi_fail(cx, "function '%s' has an argument tfs cannot represent", fname);
      }
      names[nn].name = sig->input_arg[i]->name;
      names[nn++].id = graph_add_placeholder(g, sig->input_arg[i]->name, &m);
    }
    for (size_t i = 0; i < f->n_node_def; i++) {
      if (!f->node_def[i]->name) gi_fail(cx, "function '%s' has a node without a name", fname);
      gi_node(cx, g, f->node_def[i], names, nn);
      nn++;
    }
    for (size_t i = 0; i < sig->n_output_arg; i++) {
      const char *ref = NULL;
      for (size_t k = 0; k < f->n_ret; k++)
        if (sig->output_arg[i]->name && !strcmp(f->ret[k]->key, sig->output_arg[i]->name)) ref = f->ret[k]->value;
      if (!ref) gi_fail(cx, "function '%s' does not say what its output %zu is", fname, i);
      /* "n:output:k" -> "n:k" */
      char buf[300];
      snprintf(buf, sizeof buf, "%s", ref);
      char *o = strstr(buf, ":output:");
      if (o) memmove(o, o + 7, strlen(o + 7) + 1);
      graph_add_output(g, gi_ref(cx, buf, names, nn, g, fname));
    }
  }
}

Graph *graphimport_function(const Tensorflow__FunctionDefLibrary *lib, const char *fname, const char *gname,
                            const char *path, GiVarFn var, void *vctx) {
  GiCtx cx = {.lib = lib, .path = path, .var = var, .vctx = vctx};
  int tok = graph_scope_reset();   /* node names as saved, whatever name_scope the loader runs in */
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Graph *g = gi_function(&cx, fname, gname, gname, NULL);
    rt_try_pop(&t);
    graph_scope_restore(tok);
    return g;
  }
  graph_scope_restore(tok);
  rt_rethrow(&t);
}
