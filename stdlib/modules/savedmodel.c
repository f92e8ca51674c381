/* savedmodel.c — tf.saved_model.save / load: an object's tf.functions and Variables as TF's SavedModel directory, run back without the source.
 *
 * The directory is TF's layout: saved_model.pb is a SavedModel message (one
 * MetaGraphDef tagged "serve": a GraphDef whose library holds every saved
 * concrete function and the bodies of its conds and loops, the signature
 * defs, and the SavedObjectGraph naming functions and Variables), and
 * variables/variables.index + .data-00000-of-00001 hold the Variable values
 * as a TF checkpoint (runtime/formats/tensorbundle.c) keyed by each
 * Variable's path (PATH/.ATTRIBUTES/VARIABLE_VALUE), with an object graph
 * that mirrors the SavedObjectGraph node for node, as TF writes it.  Loading rebuilds each function's graph from the library
 * (runtime/formats/graphimport.c): nothing of the program that saved it is needed. */
#define _GNU_SOURCE   /* nftw, mkdtemp */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "object/atomicfile.h"
#include "graph/exec.h"
#include "formats/graphdef.h"
#include "formats/graphimport.h"
#include "modules/ckptgraph.h"
#include "dist/dist.h"
#include "modules/modules.h"
#include "object/object.h"
#include "saved_model.pb-c.h"
#include "modules/savedmodel.h"
#include "modules/smgrad.h"
#include "tensor/tensor.h"
#include "function/tffunction.h"
#include "graph/trace.h"
#include "graph/replay.h"
#include "graph/tape.h"

/* ==== saving ==================================================================================== */

/* SM_LIST / SM_TUPLE / SM_DICT: a list, tuple or dict attribute holding trackables (TF's ListWrapper, _TupleWrapper,
 * _DictWrapper) */
enum { SM_USER, SM_FUNCTION, SM_VARIABLE, SM_LIST, SM_TUPLE, SM_DICT };

typedef struct SmRef { int node; const char *name; } SmRef;

typedef struct SmNode {
  int kind;
  Val v;                      /* borrowed: the object, function or Variable */
  char *key;                  /* Variables: their key in the graphs (path or _captured_N) */
  SmRef *kids;
  int nkids;
  Val concs;                  /* functions: list of concrete functions (owned) */
  char **fnames;              /* their names in the library */
} SmNode;

typedef struct SmSave {
  PbArena a;
  SmNode *n;
  int nn, cap;
  int ncaptured;
  Val *concs;                 /* every saved concrete function (borrowed from the nodes) */
  Val *cfns;                  /* the tf.function each came from (borrowed), undef for a concrete function given */
  char **cnames;
  int nc, ccap;
  int seq;
} SmSave;

static int sm_find(const SmSave *s, Val v) {
  for (int i = 0; i < s->nn; i++)
    if (s->n[i].v.tag == VT_OBJ && v.tag == VT_OBJ && s->n[i].v.u.o == v.u.o) return i;
  return -1;
}

static int sm_add(SmSave *s, int kind, Val v) {
  if (s->nn == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    SmNode *n = pa_alloc(&s->a, sizeof(SmNode) * (size_t)cap);
    if (s->nn) memcpy(n, s->n, sizeof(SmNode) * (size_t)s->nn);
    s->n = n;
    s->cap = cap;
  }
  SmNode *n = &s->n[s->nn];
  memset(n, 0, sizeof *n);
  n->kind = kind;
  n->v = v;
  n->concs = val_undef();
  return s->nn++;
}

static void sm_kid(SmSave *s, int parent, int node, const char *name) {
  SmNode *p = &s->n[parent];
  SmRef *k = pa_alloc(&s->a, sizeof(SmRef) * (size_t)(p->nkids + 1));
  if (p->nkids) memcpy(k, p->kids, sizeof(SmRef) * (size_t)p->nkids);
  k[p->nkids].node = node;
  k[p->nkids].name = pa_strdup(&s->a, name);
  p->kids = k;
  p->nkids++;
}

static void sm_add_conc(SmSave *s, Val c, const char *base, Val fn) {
  if (s->nc == s->ccap) {
    int cap = s->ccap ? 2 * s->ccap : 8;
    Val *cv = pa_alloc(&s->a, sizeof(Val) * (size_t)cap);
    Val *fv = pa_alloc(&s->a, sizeof(Val) * (size_t)cap);
    char **cn = pa_alloc(&s->a, sizeof(char *) * (size_t)cap);
    if (s->nc) {
      memcpy(cv, s->concs, sizeof(Val) * (size_t)s->nc);
      memcpy(fv, s->cfns, sizeof(Val) * (size_t)s->nc);
      memcpy(cn, s->cnames, sizeof(char *) * (size_t)s->nc);
    }
    s->concs = cv;
    s->cfns = fv;
    s->cnames = cn;
    s->ccap = cap;
  }
  char *name = pa_printf(&s->a, "__inference_%s_%d", base, s->seq++);
  for (char *p = name; *p; p++)
    if (*p == '/' || *p == '.') *p = '_';
  s->concs[s->nc] = c;
  s->cfns[s->nc] = fn;
  s->cnames[s->nc++] = name;
}

static int sm_conc_index(const SmSave *s, Val c) {
  for (int i = 0; i < s->nc; i++)
    if (s->concs[i].u.o == c.u.o) return i;
  return -1;
}

static void sm_walk(SmSave *s, int node, const char *path);

/* Whether a list, tuple or dict holds something saved (a Variable, tf.function or module), at any depth. */
static bool sm_has_trackable(Val v, int depth) {
  tfs_i64 k;
  const Val *it;
  if (depth > 32) return false;
  if (val_is(v, &dict_type)) {
    Val vals = dict_view_new(v, 1);
    Val l = list_from_iterable(vals);
    val_decref(vals);
    int mark = rt_hold_val(l);
    bool any = false;
    seq_items(l, &k, &it);
    for (tfs_i64 i = 0; i < k && !any; i++)
      any = val_is(it[i], &variable_type) || tffn_is(it[i]) || tfmodule_is(it[i]) || sm_has_trackable(it[i], depth + 1);
    rt_unhold(mark);
    val_decref(l);
    return any;
  }
  if (!(val_is(v, &list_type) || val_is(v, &tuple_type)) || !seq_items(v, &k, &it)) return false;
  for (tfs_i64 i = 0; i < k; i++)
    if (val_is(it[i], &variable_type) || tffn_is(it[i]) || tfmodule_is(it[i]) || sm_has_trackable(it[i], depth + 1))
      return true;
  return false;
}

/* One attribute of a user object: a Variable, a tf.function (or a method bound to an object), or a module. */
static void sm_attr(SmSave *s, int parent, const char *path, const char *name, Val v, Val self) {
  char *sub = *path ? pa_printf(&s->a, "%s/%s", path, name) : pa_strdup(&s->a, name);
  int id = sm_find(s, v);
  if (id >= 0 && s->n[id].kind != SM_FUNCTION) {
    sm_kid(s, parent, id, name);
    return;
  }
  if (val_is(v, &variable_type)) {
    id = sm_add(s, SM_VARIABLE, v);
    s->n[id].key = sub;
    sm_kid(s, parent, id, name);
  } else if (val_is(v, &bound_type) && tffn_is(((Bound *)v.u.o)->fn)) {
    sm_attr(s, parent, path, name, ((Bound *)v.u.o)->fn, ((Bound *)v.u.o)->self);
  } else if (tffn_is(v)) {
    Val l = tffn_saved_concretes(v, self);
    if (((List *)l.u.o)->len == 0) {   /* never called and no input_signature: nothing to save, as TF */
      val_decref(l);
      return;
    }
    id = sm_add(s, SM_FUNCTION, v);
    s->n[id].concs = l;
    List *cl = (List *)l.u.o;
    s->n[id].fnames = pa_alloc(&s->a, sizeof(char *) * (size_t)cl->len);
    for (tfs_i64 i = 0; i < cl->len; i++) {
      sm_add_conc(s, cl->items[i], sub, v);
      s->n[id].fnames[i] = s->cnames[s->nc - 1];
    }
    sm_kid(s, parent, id, name);
  } else if (sm_has_trackable(v, 0) && val_is(v, &dict_type)) {
    /* a dict of trackables: a node whose children are its values by key ("layers/a"), as TF's _DictWrapper */
    id = sm_add(s, SM_DICT, v);
    sm_kid(s, parent, id, name);
    Val keys = dict_keys_list(v);
    int mark = rt_hold_val(keys);
    tfs_i64 k;
    const Val *ks;
    seq_items(keys, &k, &ks);
    for (tfs_i64 i = 0; i < k; i++) {
      Val x = dict_get(v, ks[i]);
      int m = rt_hold_val(x);
      if (!val_is(ks[i], &str_type) && (val_is(x, &variable_type) || tfmodule_is(x) || sm_has_trackable(x, 0)))
        cg_dict_key_error(v);
      if (val_is(ks[i], &str_type)) sm_attr(s, id, sub, str_cstr(ks[i]), x, self);
      rt_unhold(m);
      val_decref(x);
    }
    rt_unhold(mark);
    val_decref(keys);
  } else if (sm_has_trackable(v, 0)) {
    /* a list (tuple) of trackables: a node whose children are its items by index ("vs/0"), as TF's ListWrapper
     * (_TupleWrapper) */
    id = sm_add(s, val_is(v, &tuple_type) ? SM_TUPLE : SM_LIST, v);
    sm_kid(s, parent, id, name);
    tfs_i64 k;
    const Val *it;
    seq_items(v, &k, &it);
    for (tfs_i64 i = 0; i < k; i++) sm_attr(s, id, sub, pa_printf(&s->a, "%lld", (long long)i), it[i], self);
  } else if (tfmodule_is(v) || (val_is(v, &inst_type) && id < 0 && false)) {
    id = sm_add(s, SM_USER, v);
    sm_kid(s, parent, id, name);
    sm_walk(s, id, sub);
  }
}

static int sm_strcmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The attributes of a user object, in sorted name order: its own, then
 * tf.functions of its class (methods) it does not shadow. */
static void sm_walk(SmSave *s, int node, const char *path) {
  Val obj = s->n[node].v;
  if (!val_is(obj, &inst_type)) return;
  Inst *in = (Inst *)obj.u.o;
  const char **names = NULL;
  int nnames = 0, cap = 0;
  Val sources[16];
  int nsrc = 0;
  if (!val_is_undef(in->dict)) sources[nsrc++] = in->dict;
  for (TypeObj *c = in->klass; c && nsrc < 16; c = c->base)
    if (!val_is_undef(c->dict)) sources[nsrc++] = c->dict;
  for (int k = 0; k < nsrc; k++) {
    Val keys = dict_keys_list(sources[k]);
    List *kl = (List *)keys.u.o;
    for (tfs_i64 i = 0; i < kl->len; i++) {
      if (!val_is(kl->items[i], &str_type)) continue;
      const char *nm = str_cstr(kl->items[i]);
      bool dup = false;
      for (int j = 0; j < nnames && !dup; j++) dup = !strcmp(names[j], nm);
      if (dup) continue;
      if (k > 0) {   /* class attributes: only tf.functions */
        Val v = dict_get_str(sources[k], nm);
        bool f = tffn_is(v);
        val_decref(v);
        if (!f) continue;
      }
      if (nnames == cap) {
        cap = cap ? 2 * cap : 16;
        const char **nn = pa_alloc(&s->a, sizeof(char *) * (size_t)cap);
        if (nnames) memcpy(nn, names, sizeof(char *) * (size_t)nnames);
        names = nn;
      }
      names[nnames++] = pa_strdup(&s->a, nm);
    }
    val_decref(keys);
  }
  if (nnames) qsort(names, (size_t)nnames, sizeof(char *), sm_strcmp);
  for (int i = 0; i < nnames; i++) {
    Val v = val_undef();
    for (int k = 0; k < nsrc && val_is_undef(v); k++) v = dict_get_str(sources[k], names[i]);
    int mark = rt_hold_val(v);
    sm_attr(s, node, path, names[i], v, obj);
    rt_unhold(mark);
    val_decref(v);
  }
}

static const char *sm_varkey(void *ctx, const Variable *v) {
  SmSave *s = ctx;
  int id = sm_find(s, val_obj((void *)v));
  if (id < 0) {   /* captured by a function but not an attribute: saved under a name of its own */
    id = sm_add(s, SM_VARIABLE, val_obj((void *)v));
    s->n[id].key = pa_printf(&s->a, "_captured_%d", s->ncaptured++);
  }
  return s->n[id].key;
}

/* ---- messages ---- */

static Tensorflow__StructuredValue *sv_new(PbArena *a, Tensorflow__StructuredValue__KindCase k) {
  Tensorflow__StructuredValue *v = pa_alloc(a, sizeof *v);
  tensorflow__structured_value__init(v);
  v->kind_case = k;
  return v;
}

static Tensorflow__StructuredValue *sv_spec(PbArena *a, const char *name, const TMeta *m) {
  Tensorflow__StructuredValue *v = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE);
  v->tensor_spec_value = pa_alloc(a, sizeof *v->tensor_spec_value);
  tensorflow__tensor_spec_proto__init(v->tensor_spec_value);
  v->tensor_spec_value->name = pa_strdup(a, name ? name : "");
  v->tensor_spec_value->shape = pb_shape(a, m->rank, m->shape);
  v->tensor_spec_value->dtype = pb_dtype(m->dtype);
  return v;
}

static Tensorflow__StructuredValue *sv_seq(PbArena *a, bool tuple, int n, Tensorflow__StructuredValue **items) {
  Tensorflow__StructuredValue *v = sv_new(a, tuple ? TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE
                                                   : TENSORFLOW__STRUCTURED_VALUE__KIND_LIST_VALUE);
  if (tuple) {
    v->tuple_value = pa_alloc(a, sizeof *v->tuple_value);
    tensorflow__tuple_value__init(v->tuple_value);
    v->tuple_value->n_values = (size_t)n;
    v->tuple_value->values = items;
  } else {
    v->list_value = pa_alloc(a, sizeof *v->list_value);
    tensorflow__list_value__init(v->list_value);
    v->list_value->n_values = (size_t)n;
    v->list_value->values = items;
  }
  return v;
}

/* A concrete function's result template as a StructuredValue. */
static Tensorflow__StructuredValue *sv_out(PbArena *a, const Graph *g, Val t, const char *fname) {
  int idx;
  if (nest_is_leaf(t, &idx)) return sv_spec(a, "", graph_meta(g, g->outputs[idx]));
  if (t.tag == VT_NONE) {
    Tensorflow__StructuredValue *v = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_NONE_VALUE);
    v->none_value = pa_alloc(a, sizeof *v->none_value);
    tensorflow__none_value__init(v->none_value);
    return v;
  }
  if (val_is(t, &tuple_type) || val_is(t, &list_type)) {
    tfs_i64 n;
    const Val *it;
    seq_items(t, &n, &it);
    Tensorflow__StructuredValue **items = pa_alloc(a, sizeof(void *) * (size_t)(n + 1));
    for (tfs_i64 i = 0; i < n; i++) items[i] = sv_out(a, g, it[i], fname);
    return sv_seq(a, val_is(t, &tuple_type), (int)n, items);
  }
  if (val_is(t, &dict_type)) {
    Val keys = dict_keys_list(t);
    int mark = rt_hold_val(keys);
    List *kl = (List *)keys.u.o;
    Tensorflow__StructuredValue *v = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE);
    v->dict_value = pa_alloc(a, sizeof *v->dict_value);
    tensorflow__dict_value__init(v->dict_value);
    v->dict_value->fields = pa_alloc(a, sizeof(void *) * (size_t)(kl->len + 1));
    for (tfs_i64 i = 0; i < kl->len; i++) {
      if (!val_is(kl->items[i], &str_type))
        rt_throw(ERR_VALUE, "tf.saved_model.save: function '%s' returns a dict with a key that is not a string", fname);
      Tensorflow__DictValue__FieldsEntry *e = pa_alloc(a, sizeof *e);
      tensorflow__dict_value__fields_entry__init(e);
      e->key = pa_strdup(a, str_cstr(kl->items[i]));
      Val x = dict_get(t, kl->items[i]);
      e->value = sv_out(a, g, x, fname);
      val_decref(x);
      v->dict_value->fields[v->dict_value->n_fields++] = e;
    }
    rt_unhold(mark);
    val_decref(keys);
    return v;
  }
  rt_throw(ERR_VALUE, "tf.saved_model.save: function '%s' returns a %s, which a saved function cannot return", fname,
           val_type_name(t));
}

/* The name TF gives a saved function's input i (in its input signature and as a signature key): its TensorSpec's name in the function's input_signature when it has
 * one (tf.TensorSpec(..., name='x')), else NULL (the parameter's name is used). */
static const char *sm_spec_name(PbArena *a, Val fn, int i) {
  if (val_is_undef(fn) || !tffn_is(fn)) return NULL;
  Val sg = rt_getattr(fn, "input_signature");
  int mark = rt_hold_val(sg);
  tfs_i64 n;
  const Val *items;
  const char *name = NULL;
  if (sg.tag != VT_NONE && seq_items(sg, &n, &items) && i < n && val_is(items[i], &tffn_spec_type)) {
    Val nm = ((TensorSpecObj *)items[i].u.o)->name;
    if (val_is(nm, &str_type) && str_len(nm) > 0) name = pa_strdup(a, str_cstr(nm));
  }
  rt_unhold(mark);
  val_decref(sg);
  return name;
}

/* One structured argument (a list, tuple or dict of tensors, nested) as its StructuredValue: each tensor a TensorSpec
 * named by its path ("xs/0", "d/a"), as TF keeps a function's structured input signature
 * (function_deserialization.py matches a loaded function's arguments against it).  The tensors must come in the
 * graph's input order (*n counts them); a dict's fields are written in its key order, the order its tensors were
 * traced in. */
static Tensorflow__StructuredValue *sv_arg(PbArena *a, const TffnConcInfo *ci, Val t, const char *path, int *n,
                                           const char *pname, int depth) {
  int idx;
  if (nest_is_leaf(t, &idx)) {
    if (idx != *n || *n >= ci->g->ninputs)
      rt_throw(ERR_VALUE,
               "tf.saved_model.save: function '%s' takes '%s', which is not a tensor: saved functions take tensor arguments only",
               ci->name, pname);
    return sv_spec(a, path, graph_meta(ci->g, (GraphRef){ci->g->inputs[(*n)++], 0}));
  }
  /* a Python number, bool, string or None inside the structure: a constant of the trace (TF's Literal), kept by
   * value; a loaded function matches it by equality */
  Tensorflow__StructuredValue *lit = NULL;
  if (t.tag == VT_NONE) {
    lit = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_NONE_VALUE);
    lit->none_value = pa_alloc(a, sizeof *lit->none_value);
    tensorflow__none_value__init(lit->none_value);
  } else if (t.tag == VT_BOOL) {
    lit = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_BOOL_VALUE);
    lit->bool_value = t.u.i != 0;
  } else if (t.tag == VT_INT) {
    lit = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_INT64_VALUE);
    lit->int64_value = t.u.i;
  } else if (t.tag == VT_FLOAT) {
    lit = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_FLOAT64_VALUE);
    lit->float64_value = t.u.f;
  } else if (val_is(t, &str_type)) {
    lit = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_STRING_VALUE);
    lit->string_value = pa_strdup(a, str_cstr(t));
  }
  if (lit) return lit;
  tfs_i64 k;
  const Val *items;
  if (depth < 32 && (val_is(t, &list_type) || val_is(t, &tuple_type)) && seq_items(t, &k, &items)) {
    Tensorflow__StructuredValue **vs = pa_alloc(a, sizeof(void *) * (size_t)(k + 1));
    for (tfs_i64 i = 0; i < k; i++)
      vs[i] = sv_arg(a, ci, items[i], pa_printf(a, "%s/%lld", path, (long long)i), n, pname, depth + 1);
    return sv_seq(a, val_is(t, &tuple_type), (int)k, vs);
  }
  if (depth < 32 && val_is(t, &dict_type)) {
    Val keys = dict_keys_list(t);
    int mark = rt_hold_val(keys);
    seq_items(keys, &k, &items);
    Tensorflow__StructuredValue *v = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE);
    v->dict_value = pa_alloc(a, sizeof *v->dict_value);
    tensorflow__dict_value__init(v->dict_value);
    v->dict_value->fields = pa_alloc(a, sizeof(void *) * (size_t)(k + 1));
    for (tfs_i64 i = 0; i < k; i++) {
      if (!val_is(items[i], &str_type))
        rt_throw(ERR_VALUE, "tf.saved_model.save: function '%s' takes '%s', a dict with a key that is not a string",
                 ci->name, pname);
      Tensorflow__DictValue__FieldsEntry *e = pa_alloc(a, sizeof *e);
      tensorflow__dict_value__fields_entry__init(e);
      e->key = pa_strdup(a, str_cstr(items[i]));
      Val x = dict_get(t, items[i]);
      int m = rt_hold_val(x);
      e->value = sv_arg(a, ci, x, pa_printf(a, "%s/%s", path, e->key), n, pname, depth + 1);
      rt_unhold(m);
      val_decref(x);
      v->dict_value->fields[v->dict_value->n_fields++] = e;
    }
    rt_unhold(mark);
    val_decref(keys);
    return v;
  }
  rt_throw(ERR_VALUE,
           "tf.saved_model.save: function '%s' takes '%s', which is not a tensor: saved functions take tensor arguments only",
           ci->name, pname);
}

/* (args tuple, kwargs dict): each parameter but self one TensorSpec named after it (its input_signature's name
 * first), or a list / tuple / dict of them (sv_arg); a *args parameter one TensorSpec per tensor it took, as TF
 * flattens varargs into positional arguments. */
static Tensorflow__StructuredValue *sv_in(PbArena *a, const TffnConcInfo *ci, int *self_out, Val fn) {
  const Tuple *at = (const Tuple *)ci->args_tmpl.u.o;
  int idx, so = ci->nparams > 0 && !nest_is_leaf(at->items[0], &idx) && !strcmp(ci->params[0], "self") ? 1 : 0;
  int nin = ci->g->ninputs, n = 0, np = 0;
  Tensorflow__StructuredValue **items = pa_alloc(a, sizeof(void *) * (size_t)(nin + ci->nparams + 1));
  Val sg = rt_getattr(fn, "input_signature");
  bool has_sig = sg.tag != VT_NONE && !val_is_undef(sg);
  val_decref(sg);
  for (int p = so; p < ci->nparams; p++) {
    Val t = at->items[p];
    if (val_is(t, &dict_type) && ((Dict *)t.u.o)->len == 0) continue;   /* **kwargs left empty by an input_signature */
    /* a parameter beyond an input_signature keeps its default: bound in the graph, not an input (TF's Literal) */
    if (has_sig && !nest_is_leaf(t, &idx) && p - so >= 0 && !val_is(t, &tuple_type) && !val_is(t, &list_type) &&
        !val_is(t, &dict_type))
      continue;
    tfs_i64 nv = 1;
    const Val *vs = &t;
    bool var = p == ci->varargs && seq_items(t, &nv, &vs);
    const char *pname = ci->params[p];
    if (!var && !nest_is_leaf(t, &idx) &&
        (val_is(t, &list_type) || val_is(t, &tuple_type) || val_is(t, &dict_type) || t.tag == VT_NONE ||
         t.tag == VT_BOOL || t.tag == VT_INT || t.tag == VT_FLOAT || val_is(t, &str_type))) {
      items[np++] = sv_arg(a, ci, t, pname, &n, pname, 0);
      continue;
    }
    for (tfs_i64 k = 0; k < nv; k++) {
      if (n >= nin || !nest_is_leaf(vs[k], &idx) || idx != n)
        rt_throw(ERR_VALUE,
                 "tf.saved_model.save: function '%s' takes '%s', which is not a tensor: saved functions take tensor arguments only",
                 ci->name, ci->params[p]);
      const char *spec = sm_spec_name(a, fn, n);
      char *dflt = pa_alloc(a, strlen(pname) + 24);
      if (var && k > 0) sprintf(dflt, "%s_%d", pname, (int)k);
      else strcpy(dflt, pname);
      items[np++] = sv_spec(a, spec ? spec : dflt, graph_meta(ci->g, (GraphRef){ci->g->inputs[n], 0}));
      n++;
    }
  }
  if (n != ci->g->ninputs)
    rt_throw(ERR_VALUE, "tf.saved_model.save: function '%s' has inputs that are not its arguments", ci->name);
  Tensorflow__StructuredValue **pair = pa_alloc(a, sizeof(void *) * 2);
  pair[0] = sv_seq(a, true, np, items);
  pair[1] = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE);
  pair[1]->dict_value = pa_alloc(a, sizeof *pair[1]->dict_value);
  tensorflow__dict_value__init(pair[1]->dict_value);
  *self_out = so;
  return sv_seq(a, true, 2, pair);
}

static Tensorflow__StructuredValue *sv_str(PbArena *a, const char *str) {
  Tensorflow__StructuredValue *v = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_STRING_VALUE);
  v->string_value = pa_strdup(a, str);
  return v;
}

static Tensorflow__StructuredValue *sv_none(PbArena *a) {
  Tensorflow__StructuredValue *v = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_NONE_VALUE);
  v->none_value = pa_alloc(a, sizeof *v->none_value);
  tensorflow__none_value__init(v->none_value);
  return v;
}

/* A function's FunctionSpec.fullargspec as TF writes it (a FullArgSpec named tuple): its parameter names, *args
 * name, and the defaults that are constants (numbers, bools, strings, None) — so a loaded function binds
 * arguments by name and fills left-out ones with their defaults. */
static Tensorflow__StructuredValue *sm_argspec(PbArena *a, const TffnConcInfo *ci, Val fn) {
  static const char *const fields[] = {"args", "varargs", "varkw", "defaults", "kwonlyargs", "kwonlydefaults",
                                       "annotations"};
  Tensorflow__StructuredValue *v = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_NAMED_TUPLE_VALUE);
  v->named_tuple_value = pa_alloc(a, sizeof *v->named_tuple_value);
  tensorflow__named_tuple_value__init(v->named_tuple_value);
  v->named_tuple_value->name = "FullArgSpec";
  v->named_tuple_value->values = pa_alloc(a, sizeof(void *) * 7);
  Tensorflow__StructuredValue **names = pa_alloc(a, sizeof(void *) * (size_t)(ci->nparams + 1));
  int nn = 0;
  for (int p = 0; p < ci->nparams; p++)
    if (p != ci->varargs) names[nn++] = sv_str(a, ci->params[p]);
  Tensorflow__StructuredValue *dflt = sv_none(a);
  Val py = tffn_is(fn) ? rt_getattr(fn, "python_function") : val_undef();
  int mark = rt_hold_val(py);
  Val d = val_is_undef(py) ? val_undef() : rt_getattr(py, "__defaults__");
  rt_hold_val(d);
  tfs_i64 nd;
  const Val *ds;
  if (val_is(d, &tuple_type) && seq_items(d, &nd, &ds) && nd > 0) {
    Tensorflow__StructuredValue **dv = pa_alloc(a, sizeof(void *) * (size_t)nd);
    bool all = true;
    for (tfs_i64 i = 0; i < nd && all; i++) {
      Val x = ds[i];
      if (x.tag == VT_NONE) dv[i] = sv_none(a);
      else if (x.tag == VT_BOOL) {
        dv[i] = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_BOOL_VALUE);
        dv[i]->bool_value = x.u.i != 0;
      } else if (x.tag == VT_INT) {
        dv[i] = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_INT64_VALUE);
        dv[i]->int64_value = x.u.i;
      } else if (x.tag == VT_FLOAT) {
        dv[i] = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_FLOAT64_VALUE);
        dv[i]->float64_value = x.u.f;
      } else if (val_is(x, &str_type)) dv[i] = sv_str(a, str_cstr(x));
      else all = false;
    }
    if (all) dflt = sv_seq(a, true, (int)nd, dv);
  }
  rt_unhold(mark);
  val_decref(d);
  val_decref(py);
  Tensorflow__StructuredValue *vals[7] = {
    sv_seq(a, false, nn, names), ci->varargs >= 0 ? sv_str(a, ci->params[ci->varargs]) : sv_none(a), sv_none(a), dflt,
    sv_seq(a, false, 0, NULL), sv_none(a), sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE)};
  vals[6]->dict_value = pa_alloc(a, sizeof *vals[6]->dict_value);
  tensorflow__dict_value__init(vals[6]->dict_value);
  for (int i = 0; i < 7; i++) {
    Tensorflow__PairValue *pv = pa_alloc(a, sizeof *pv);
    tensorflow__pair_value__init(pv);
    pv->key = (char *)fields[i];
    pv->value = vals[i];
    v->named_tuple_value->values[v->named_tuple_value->n_values++] = pv;
  }
  return v;
}

static Tensorflow__AttrValue *sm_attrv(PbArena *a, Tensorflow__AttrValue__ValueCase k) {
  Tensorflow__AttrValue *v = pa_alloc(a, sizeof *v);
  tensorflow__attr_value__init(v);
  v->value_case = k;
  return v;
}

static Tensorflow__NodeDef__AttrEntry *sm_entry(PbArena *a, const char *key, Tensorflow__AttrValue *v) {
  Tensorflow__NodeDef__AttrEntry *e = pa_alloc(a, sizeof *e);
  tensorflow__node_def__attr_entry__init(e);
  e->key = pa_strdup(a, key);
  e->value = v;
  return e;
}

static Tensorflow__AttrValue *sm_types(PbArena *a, const Graph *g, bool out) {
  int n = out ? g->noutputs : g->ninputs;
  Tensorflow__AttrValue *v = sm_attrv(a, TENSORFLOW__ATTR_VALUE__VALUE_LIST);
  v->list = pa_alloc(a, sizeof *v->list);
  tensorflow__attr_value__list_value__init(v->list);
  v->list->n_type = (size_t)n;
  v->list->type = pa_alloc(a, sizeof(Tensorflow__DataType) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    v->list->type[i] = pb_dtype(out ? graph_meta(g, g->outputs[i])->dtype : g->nodes[g->inputs[i]].outm[0].dtype);
  return v;
}

static Tensorflow__TensorInfo *sm_tinfo(PbArena *a, const char *name, const TMeta *m) {
  Tensorflow__TensorInfo *t = pa_alloc(a, sizeof *t);
  tensorflow__tensor_info__init(t);
  t->name = pa_strdup(a, name);
  t->dtype = pb_dtype(m->dtype);
  t->tensor_shape = pb_shape(a, m->rank, m->shape);
  return t;
}

typedef struct SmSig { const char *name; int conc; Val fn; } SmSig;   /* fn: the tf.function (borrowed) or undef */

/* A signature def and, in the graph, what calls it: one Placeholder per
 * argument ('serving_default_x') and a StatefulPartitionedCall of the
 * function, as TF writes them. */
/* A signature's output names, as TF gives them: a function returning a flat dict of tensors names its outputs by
 * the dict's keys (Keras models' signatures return {output layer name: tensor}); otherwise output_0, output_1, ... (NULL). */
static const char **sm_output_keys(PbArena *a, const TffnConcInfo *ci, int n) {
  const char **keys = pa_alloc(a, sizeof(char *) * (size_t)(n + 1));
  memset(keys, 0, sizeof(char *) * (size_t)(n + 1));
  if (val_is_undef(ci->out_tmpl) || !val_is(ci->out_tmpl, &dict_type)) return keys;
  Val kl = dict_keys_list(ci->out_tmpl);
  int mark = rt_hold_val(kl);
  List *l = (List *)kl.u.o;
  for (tfs_i64 i = 0; i < l->len; i++) {
    Val x = dict_get(ci->out_tmpl, l->items[i]);
    int idx;
    if (val_is(l->items[i], &str_type) && nest_is_leaf(x, &idx) && idx >= 0 && idx < n)
      keys[idx] = pa_strdup(a, str_cstr(l->items[i]));
    val_decref(x);
  }
  rt_unhold(mark);
  val_decref(kl);
  return keys;
}

static Tensorflow__MetaGraphDef__SignatureDefEntry *sm_signature(SmSave *s, Tensorflow__GraphDef *gd, const SmSig *sig, int k,
                                                                  const char *const *params) {
  PbArena *a = &s->a;
  TffnConcInfo ci;
  tffn_conc_info(s->concs[sig->conc], &ci);
  const Graph *g = ci.g;
  Tensorflow__SignatureDef *sd = pa_alloc(a, sizeof *sd);
  tensorflow__signature_def__init(sd);
  sd->method_name = "tensorflow/serving/predict";
  char *call = k ? pa_printf(a, "StatefulPartitionedCall_%d", k) : "StatefulPartitionedCall";
  Tensorflow__NodeDef **nodes = pa_alloc(a, sizeof(void *) * (gd->n_node + (size_t)g->ninputs + 2));
  if (gd->n_node) memcpy(nodes, gd->node, sizeof(void *) * gd->n_node);
  Tensorflow__NodeDef *cn = pa_alloc(a, sizeof *cn);
  tensorflow__node_def__init(cn);
  cn->name = call;
  cn->op = "StatefulPartitionedCall";
  cn->input = pa_alloc(a, sizeof(char *) * (size_t)(g->ninputs + 1));
  sd->inputs = pa_alloc(a, sizeof(void *) * (size_t)(g->ninputs + 1));
  for (int i = 0; i < g->ninputs; i++) {
    const TMeta *m = g->nodes[g->inputs[i]].outm;
    const char *spec = sm_spec_name(a, sig->fn, i);
    const char *key = spec ? spec : params[i];
    char *ph = pa_printf(a, "%s_%s", sig->name, key);
    Tensorflow__NodeDef *pn = pa_alloc(a, sizeof *pn);
    tensorflow__node_def__init(pn);
    pn->name = ph;
    pn->op = "Placeholder";
    pn->attr = pa_alloc(a, sizeof(void *) * 2);
    Tensorflow__AttrValue *dt = sm_attrv(a, TENSORFLOW__ATTR_VALUE__VALUE_TYPE);
    dt->type = pb_dtype(m->dtype);
    Tensorflow__AttrValue *sh = sm_attrv(a, TENSORFLOW__ATTR_VALUE__VALUE_SHAPE);
    sh->shape = pb_shape(a, m->rank, m->shape);
    pn->attr[pn->n_attr++] = sm_entry(a, "dtype", dt);
    pn->attr[pn->n_attr++] = sm_entry(a, "shape", sh);
    nodes[gd->n_node++] = pn;
    cn->input[cn->n_input++] = ph;
    Tensorflow__SignatureDef__InputsEntry *e = pa_alloc(a, sizeof *e);
    tensorflow__signature_def__inputs_entry__init(e);
    e->key = pa_strdup(a, key);
    e->value = sm_tinfo(a, pa_printf(a, "%s:0", ph), m);
    sd->inputs[sd->n_inputs++] = e;
  }
  Tensorflow__AttrValue *f = sm_attrv(a, TENSORFLOW__ATTR_VALUE__VALUE_FUNC);
  f->func = pa_alloc(a, sizeof *f->func);
  tensorflow__name_attr_list__init(f->func);
  f->func->name = s->cnames[sig->conc];
  cn->attr = pa_alloc(a, sizeof(void *) * 3);
  cn->attr[cn->n_attr++] = sm_entry(a, "Tin", sm_types(a, g, false));
  cn->attr[cn->n_attr++] = sm_entry(a, "Tout", sm_types(a, g, true));
  cn->attr[cn->n_attr++] = sm_entry(a, "f", f);
  nodes[gd->n_node++] = cn;
  gd->node = nodes;
  sd->outputs = pa_alloc(a, sizeof(void *) * (size_t)(g->noutputs + 1));
  const char **keys = sm_output_keys(a, &ci, g->noutputs);
  for (int i = 0; i < g->noutputs; i++) {
    Tensorflow__SignatureDef__OutputsEntry *e = pa_alloc(a, sizeof *e);
    tensorflow__signature_def__outputs_entry__init(e);
    e->key = keys[i] ? (char *)keys[i] : pa_printf(a, "output_%d", i);
    e->value = sm_tinfo(a, pa_printf(a, "%s:%d", call, i), graph_meta(g, g->outputs[i]));
    sd->outputs[sd->n_outputs++] = e;
  }
  Tensorflow__MetaGraphDef__SignatureDefEntry *se = pa_alloc(a, sizeof *se);
  tensorflow__meta_graph_def__signature_def_entry__init(se);
  se->key = pa_strdup(a, sig->name);
  se->value = sd;
  return se;
}

/* The concrete function a signatures= value names (a tf.function with its
 * saved concrete function, a method, a ConcreteFunction). */
static int sm_sig_conc(SmSave *s, Val v, Val root, const char *name) {
  Val self = root;
  if (val_is(v, &bound_type)) {
    self = ((Bound *)v.u.o)->self;
    v = ((Bound *)v.u.o)->fn;
  }
  TffnConcInfo ci;
  if (tffn_conc_info(v, &ci)) {
    int k = sm_conc_index(s, v);
    if (k < 0) {
      sm_add_conc(s, v, name, val_undef());
      k = s->nc - 1;
    }
    return k;
  }
  if (!tffn_is(v))
    rt_throw(ERR_VALUE, "tf.saved_model.save: signature '%s' must be a tf.function or a concrete function, not %s", name,
             val_type_name(v));
  Val l = tffn_saved_concretes(v, self);
  int mark = rt_hold_val(l);
  List *cl = (List *)l.u.o;
  if (cl->len != 1)
    rt_throw(ERR_VALUE,
             "tf.saved_model.save: signature '%s' is a tf.function with %lld concrete functions; give it an input_signature "
             "or pass one concrete function",
             name, (long long)cl->len);
  int k = sm_conc_index(s, cl->items[0]);
  if (k < 0) {
    sm_add_conc(s, cl->items[0], name, v);
    k = s->nc - 1;
    val_incref(cl->items[0]);   /* kept by the save's list of extra references */
    s->n[0].concs = val_is_undef(s->n[0].concs) ? list_new(1) : s->n[0].concs;
    list_append(s->n[0].concs, cl->items[0]);
    val_decref(cl->items[0]);
  }
  rt_unhold(mark);
  val_decref(l);
  return k;
}

/* The tf.function a signatures= value is (a method's function), or undef for a concrete function. */
static Val sm_sig_fn(Val v) {
  if (val_is(v, &bound_type)) v = ((Bound *)v.u.o)->fn;
  return tffn_is(v) ? v : val_undef();
}

static int sm_rm(const char *p, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(p);
}

static void sm_write(const char *path, const void *data, size_t n, const char *export_dir) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
    int e = errno;
    if (f) fclose(f);
    rt_throw(ERR_IO, "tf.saved_model.save: cannot write '%s': %s", export_dir, strerror(e));
  }
}

static void sm_save_free(SmSave *s) {
  for (int i = 0; i < s->nn; i++) val_decref(s->n[i].concs);
  pa_free(&s->a);
}

/* Each Variable's key is its shortest path from the root, breadth first with children in order, as TF names
 * checkpoint keys (and as the loader finds them), whatever path the walk reached it by first. */
static void sm_bfs_keys(SmSave *s) {
  int *q = pa_alloc(&s->a, sizeof(int) * (size_t)(s->nn + 1));
  char **path = pa_alloc(&s->a, sizeof(char *) * (size_t)(s->nn + 1));
  memset(path, 0, sizeof(char *) * (size_t)(s->nn + 1));
  int head = 0, tail = 0;
  q[tail++] = 0;
  path[0] = "";
  while (head < tail) {
    int i = q[head++];
    for (int k = 0; k < s->n[i].nkids; k++) {
      int c = s->n[i].kids[k].node;
      if (path[c]) continue;
      path[c] = *path[i] ? pa_printf(&s->a, "%s/%s", path[i], s->n[i].kids[k].name) : pa_strdup(&s->a, s->n[i].kids[k].name);
      if (s->n[c].kind == SM_VARIABLE) s->n[c].key = path[c];
      q[tail++] = c;
    }
  }
}

/* SaveOptions.function_aliases ({alias: tf.function or concrete function}): MetaInfoDef.function_aliases maps
 * each saved concrete function of the aliased function to the alias, as TF's save.py. */
static void sm_function_aliases(SmSave *s, Val options, Tensorflow__MetaGraphDef__MetaInfoDef *mi) {
  if (options.tag == VT_NONE) return;
  Val fa = rt_getattr(options, "function_aliases");
  int mark = rt_hold_val(fa);
  Val keys = val_is(fa, &dict_type) ? dict_keys_list(fa) : list_new(0);
  rt_hold_val(keys);
  List *kl = (List *)keys.u.o;
  mi->function_aliases = pa_alloc(&s->a, sizeof(void *) * (size_t)(kl->len * s->nc + 1));
  for (tfs_i64 k = 0; k < kl->len; k++) {
    Val f = dict_get(fa, kl->items[k]), orig = f;
    int mf = rt_hold_val(orig);
    if (val_is(f, &bound_type) && tffn_is(((Bound *)f.u.o)->fn)) f = ((Bound *)f.u.o)->fn;
    const char *alias = val_is(kl->items[k], &str_type) ? str_cstr(kl->items[k]) : NULL;
    int found = 0;
    for (int i = 0; alias && i < s->nc; i++) {
      /* a method's tf.function seen through the instance is the instance's own function object: the same Python
       * function as the class's, which the walk saved */
      bool same = f.tag == VT_OBJ && (s->cfns[i].u.o == f.u.o || s->concs[i].u.o == f.u.o ||
                                      (tffn_is(f) && !val_is_undef(s->cfns[i]) && tffn_is(s->cfns[i]) &&
                                       tffn_python_fn(f).u.o == tffn_python_fn(s->cfns[i]).u.o));
      if (!same) continue;
      Tensorflow__MetaGraphDef__MetaInfoDef__FunctionAliasesEntry *e = pa_alloc(&s->a, sizeof *e);
      tensorflow__meta_graph_def__meta_info_def__function_aliases_entry__init(e);
      e->key = s->cnames[i];
      e->value = pa_strdup(&s->a, alias);
      mi->function_aliases[mi->n_function_aliases++] = e;
      found++;
    }
    if (!found) {
      Val r = repr_of(kl->items[k]);
      rt_hold_val(r);
      rt_throw(ERR_VALUE, "tf.saved_model.save: function_aliases[%s] is not a tf.function (or concrete function) that "
               "the saved object holds", str_cstr(r));
    }
    rt_unhold(mf);
    val_decref(orig);
  }
  rt_unhold(mark);
  val_decref(keys);
  val_decref(fa);
}

static void sm_save(Val obj, const char *dir, Val signatures, Val options) {
  SmSave s = {0};
  RtTry t;
  char *tmp = NULL;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    sm_add(&s, SM_USER, obj);
    sm_walk(&s, 0, "");
    sm_bfs_keys(&s);
    /* signatures */
    SmSig sigs[16];
    int nsig = 0;
    if (signatures.tag == VT_NONE) {
      for (int i = 0; i < s.n[0].nkids; i++) {
        SmNode *k = &s.n[s.n[0].kids[i].node];
        if (strcmp(s.n[0].kids[i].name, "__call__") || k->kind != SM_FUNCTION) continue;
        Val sg = rt_getattr(k->v, "input_signature");
        bool has = sg.tag != VT_NONE;
        val_decref(sg);
        if (has) sigs[nsig++] = (SmSig){"serving_default", sm_conc_index(&s, ((List *)k->concs.u.o)->items[0]), k->v};
      }
    } else if (val_is(signatures, &dict_type)) {
      Val keys = dict_keys_list(signatures);
      int mk = rt_hold_val(keys);
      List *kl = (List *)keys.u.o;
      for (tfs_i64 i = 0; i < kl->len && nsig < 16; i++) {
        if (!val_is(kl->items[i], &str_type))
          rt_throw(ERR_VALUE, "tf.saved_model.save: signature names must be strings, not %s", val_type_name(kl->items[i]));
        Val v = dict_get(signatures, kl->items[i]);
        int mv = rt_hold_val(v);
        const char *nm = pa_strdup(&s.a, str_cstr(kl->items[i]));
        sigs[nsig++] = (SmSig){nm, sm_sig_conc(&s, v, obj, nm), sm_sig_fn(v)};
        rt_unhold(mv);
        val_decref(v);
      }
      rt_unhold(mk);
      val_decref(keys);
    } else {
      sigs[nsig++] = (SmSig){"serving_default", sm_sig_conc(&s, signatures, obj, "serving_default"), sm_sig_fn(signatures)};
    }
    if (s.nc == 0)
      rt_throw(ERR_VALUE,
               "tf.saved_model.save: %s has no tf.function to save (give its tf.functions an input_signature or call "
               "them first)",
               val_type_name(obj));
    /* the library: every concrete function (Variables captured along the way get nodes) */
    const Graph **gs = pa_alloc(&s.a, sizeof(void *) * (size_t)s.nc);
    Tensorflow__StructuredValue **insig = pa_alloc(&s.a, sizeof(void *) * (size_t)s.nc);
    Tensorflow__StructuredValue **outsig = pa_alloc(&s.a, sizeof(void *) * (size_t)s.nc);
    const char ***params = pa_alloc(&s.a, sizeof(void *) * (size_t)s.nc);
    for (int i = 0; i < s.nc; i++) {
      TffnConcInfo ci;
      tffn_conc_info(s.concs[i], &ci);
      gs[i] = ci.g;
      int so;
      insig[i] = sv_in(&s.a, &ci, &so, s.cfns[i]);
      params[i] = (const char **)(ci.params + so);
      outsig[i] = val_is_undef(ci.out_tmpl) ? sv_spec(&s.a, "", graph_meta(ci.g, ci.g->outputs[0]))
                                            : sv_out(&s.a, ci.g, ci.out_tmpl, ci.name);
    }
    Tensorflow__GraphDef *gd = pa_alloc(&s.a, sizeof *gd);
    tensorflow__graph_def__init(gd);
    /* the custom gradients' functions follow the concrete functions in the library */
    SmGrads sg;
    Val ghold = smgrad_trace(&s.a, gs, s.nc, options, &s.seq, &sg);
    int mgh = rt_hold_val(ghold);
    const Graph **lg = pa_alloc(&s.a, sizeof(void *) * (size_t)(s.nc + sg.n));
    const char **ln = pa_alloc(&s.a, sizeof(char *) * (size_t)(s.nc + sg.n));
    memcpy(lg, gs, sizeof(void *) * (size_t)s.nc);
    memcpy(ln, s.cnames, sizeof(char *) * (size_t)s.nc);
    if (sg.n) memcpy(lg + s.nc, sg.g, sizeof(void *) * (size_t)sg.n);
    if (sg.n) memcpy(ln + s.nc, sg.names, sizeof(char *) * (size_t)sg.n);
    gd->library = graphdef_saved_library(&s.a, lg, ln, s.nc + sg.n, sm_varkey, &s);
    gd->library->n_registered_gradients = (size_t)sg.n;
    gd->library->registered_gradients = sg.regs;
    smgrad_note_captures(&s.a, gd->library, &sg);
    rt_unhold(mgh);
    val_decref(ghold);
    gd->versions = pa_alloc(&s.a, sizeof *gd->versions);
    tensorflow__version_def__init(gd->versions);
    gd->versions->producer = 1205;
    Tensorflow__MetaGraphDef *mg = pa_alloc(&s.a, sizeof *mg);
    tensorflow__meta_graph_def__init(mg);
    mg->graph_def = gd;
    mg->meta_info_def = pa_alloc(&s.a, sizeof *mg->meta_info_def);
    tensorflow__meta_graph_def__meta_info_def__init(mg->meta_info_def);
    mg->meta_info_def->n_tags = 1;
    mg->meta_info_def->tags = pa_alloc(&s.a, sizeof(char *));
    mg->meta_info_def->tags[0] = "serve";
    mg->meta_info_def->tensorflow_version = "tfs";
    sm_function_aliases(&s, options, mg->meta_info_def);
    mg->signature_def = pa_alloc(&s.a, sizeof(void *) * (size_t)(nsig + 1));
    for (int i = 0; i < nsig; i++) {
      mg->signature_def[mg->n_signature_def++] = sm_signature(&s, gd, &sigs[i], i, params[sigs[i].conc]);
    }
    /* the object graph */
    Tensorflow__SavedObjectGraph *og = pa_alloc(&s.a, sizeof *og);
    tensorflow__saved_object_graph__init(og);
    og->nodes = pa_alloc(&s.a, sizeof(void *) * (size_t)s.nn);
    for (int i = 0; i < s.nn; i++) {
      SmNode *n = &s.n[i];
      Tensorflow__SavedObject *so = pa_alloc(&s.a, sizeof *so);
      tensorflow__saved_object__init(so);
      so->children = pa_alloc(&s.a, sizeof(void *) * (size_t)(n->nkids + 1));
      for (int k = 0; k < n->nkids; k++) {
        Tensorflow__ObjectReference *r = pa_alloc(&s.a, sizeof *r);
        tensorflow__object_reference__init(r);
        r->node_id = n->kids[k].node;
        r->local_name = (char *)n->kids[k].name;
        so->children[so->n_children++] = r;
      }
      if (n->kind == SM_USER || n->kind == SM_LIST || n->kind == SM_TUPLE || n->kind == SM_DICT) {
        so->kind_case = TENSORFLOW__SAVED_OBJECT__KIND_USER_OBJECT;
        so->user_object = pa_alloc(&s.a, sizeof *so->user_object);
        tensorflow__saved_user_object__init(so->user_object);
        so->user_object->identifier = n->kind == SM_LIST    ? "trackable_list_wrapper"
                                      : n->kind == SM_TUPLE ? "trackable_tuple_wrapper"
                                      : n->kind == SM_DICT  ? "trackable_dict_wrapper"
                                                            : "_generic_user_object";
      } else if (n->kind == SM_VARIABLE) {
        Variable *v = variable_storage(n->v.u.o);
        so->kind_case = TENSORFLOW__SAVED_OBJECT__KIND_VARIABLE;
        so->variable = pa_alloc(&s.a, sizeof *so->variable);
        tensorflow__saved_variable__init(so->variable);
        so->variable->dtype = pb_dtype(v->value->dtype);
        so->variable->shape = pb_shape(&s.a, v->value->rank, v->value->shape);
        so->variable->trainable = v->trainable;
        char *nm = pa_strdup(&s.a, v->name ? v->name : "Variable");
        char *colon = strrchr(nm, ':');
        if (colon) *colon = 0;
        so->variable->name = nm;
      } else {
        List *cl = (List *)n->concs.u.o;
        so->kind_case = TENSORFLOW__SAVED_OBJECT__KIND_FUNCTION;
        so->function = pa_alloc(&s.a, sizeof *so->function);
        tensorflow__saved_function__init(so->function);
        so->function->n_concrete_functions = (size_t)cl->len;
        so->function->concrete_functions = n->fnames;
        so->function->function_spec = pa_alloc(&s.a, sizeof *so->function->function_spec);
        tensorflow__function_spec__init(so->function->function_spec);
        TffnConcInfo ci;
        tffn_conc_info(cl->items[0], &ci);
        so->function->function_spec->is_method = ci.nparams > 0 && !strcmp(ci.params[0], "self");
        so->function->function_spec->fullargspec = sm_argspec(&s.a, &ci, n->v);
      }
      og->nodes[og->n_nodes++] = so;
    }
    og->concrete_functions = pa_alloc(&s.a, sizeof(void *) * (size_t)s.nc);
    for (int i = 0; i < s.nc; i++) {
      Tensorflow__SavedObjectGraph__ConcreteFunctionsEntry *e = pa_alloc(&s.a, sizeof *e);
      tensorflow__saved_object_graph__concrete_functions_entry__init(e);
      e->key = s.cnames[i];
      e->value = pa_alloc(&s.a, sizeof *e->value);
      tensorflow__saved_concrete_function__init(e->value);
      e->value->canonicalized_input_signature = insig[i];
      e->value->output_signature = outsig[i];
      og->concrete_functions[og->n_concrete_functions++] = e;
    }
    mg->object_graph_def = og;
    Tensorflow__SavedModel *sm = pa_alloc(&s.a, sizeof *sm);
    tensorflow__saved_model__init(sm);
    sm->saved_model_schema_version = 1;
    sm->n_meta_graphs = 1;
    sm->meta_graphs = pa_alloc(&s.a, sizeof(void *));
    sm->meta_graphs[0] = mg;
    /* write a sibling temp directory, then swap it in; missing parents are made first, as TF's
     * recursive_create_dir of the export directory */
    for (char *p = pa_strdup(&s.a, dir), *q = strchr(p + 1, '/'); q; q = strchr(q + 1, '/')) {
      *q = 0;
      if (mkdir(p, 0777) && errno != EEXIST)
        rt_throw(ERR_IO, "tf.saved_model.save: cannot write '%s': %s", dir, strerror(errno));
      *q = '/';
    }
    tmp = pa_printf(&s.a, "%s.tmp-XXXXXX", dir);
    if (!mkdtemp(tmp)) {
      int e = errno;
      tmp = NULL;
      rt_throw(ERR_IO, "tf.saved_model.save: cannot write '%s': %s", dir, strerror(e));
    }
    size_t len;
    unsigned char *pb = pb_pack(&sm->base, &len);
    int mk = rt_hold_mem(pb);
    sm_write(pa_printf(&s.a, "%s/saved_model.pb", tmp), pb, len, dir);
    rt_unhold(mk);
    free(pb);
    if (mkdir(pa_printf(&s.a, "%s/variables", tmp), 0777) || mkdir(pa_printf(&s.a, "%s/assets", tmp), 0777))
      rt_throw(ERR_IO, "tf.saved_model.save: cannot write '%s': %s", dir, strerror(errno));
    /* the Variables as a TF checkpoint whose object graph mirrors the SavedObjectGraph node for node */
    CgGraph g;
    memset(&g, 0, sizeof g);
    int mv = rt_hold_fn(cg_free, &g);
    for (int i = 0; i < s.nn; i++) cg_node(&g, s.n[i].v, s.n[i].kind == SM_VARIABLE ? s.n[i].key : "");
    for (int i = 0; i < s.nn; i++)
      for (int k = 0; k < s.n[i].nkids; k++) cg_link(&g, i, s.n[i].kids[k].node, s.n[i].kids[k].name);
    cg_write("tf.saved_model.save", &g, pa_printf(&s.a, "%s/variables/variables", tmp));
    rt_unhold(mv);
    cg_free(&g);
    struct stat st;
    char *old = NULL;
    if (stat(dir, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) rt_throw(ERR_IO, "tf.saved_model.save: '%s' exists and is not a directory", dir);
      old = pa_printf(&s.a, "%s.old-XXXXXX", dir);
      if (!mkdtemp(old) || rmdir(old) || rename(dir, old))
        rt_throw(ERR_IO, "tf.saved_model.save: cannot replace '%s': %s", dir, strerror(errno));
    }
    if (rename(tmp, dir)) {
      int e = errno;
      if (old) rename(old, dir);
      rt_throw(ERR_IO, "tf.saved_model.save: cannot write '%s': %s", dir, strerror(e));
    }
    tmp = NULL;
    if (old) nftw(old, sm_rm, 16, FTW_DEPTH | FTW_PHYS);
    rt_try_pop(&t);
  } else {
    if (tmp) nftw(tmp, sm_rm, 16, FTW_DEPTH | FTW_PHYS);
    sm_save_free(&s);
    rt_rethrow(&t);
  }
  sm_save_free(&s);
}

//! tf.saved_model.SaveOptions(namespace_whitelist=None, save_debug_info=False, function_aliases=None, experimental_io_device=None, experimental_variable_policy=None, experimental_custom_gradients=True, experimental_image_format=False, experimental_skip_saver=False, experimental_sharding_callback=None)
//!   The options= of tf.saved_model.save and Model.save, with TF 2.15's defaults and checks (stdlib/tfcore_options.tfs):
//!   namespace_whitelist a list of strings, experimental_variable_policy None or a VariablePolicy name in any case,
//!   experimental_image_format=True and a sharding callback refused as in pip TF. function_aliases ({alias:
//!   tf.function}) is written to the MetaGraphDef (meta_info_def.function_aliases: concrete function -> alias) and must
//!   name functions the saved object holds. experimental_custom_gradients=True (the default) saves each
//!   tf.custom_gradient's grad_fn traced as a function of the library (registered_gradients), False leaves it out. The
//!   others are kept without effect.
//! tf.saved_model.LoadOptions(allow_partial_checkpoint=False, experimental_io_device=None, experimental_skip_checkpoint=False, experimental_variable_policy=None, experimental_load_function_aliases=False)
//!   The options= of tf.saved_model.load and tf.keras.models.load_model, with TF 2.15's defaults.
//!   experimental_load_function_aliases=True gives the loaded object function_aliases, {alias: loaded function}
//!   from SaveOptions.function_aliases; the others are kept without effect in tfs.
//! tf.train.CheckpointOptions(experimental_io_device=None, experimental_enable_async_checkpoint=False, experimental_write_callbacks=None, enable_async=False, experimental_skip_slot_variables=False, experimental_sharding_callback=None)
//!   The options= of Checkpoint.save / write / read / restore, with TF 2.15's defaults (enable_async is either
//!   async flag); kept, without effect in tfs (writes are synchronous, one shard).
//! tf.saved_model.save(obj, export_dir, signatures=None, options=None)
//!   Writes obj's tf.functions (those with an input_signature or already traced) and Variables as a SavedModel
//!   directory (saved_model.pb in TF's schema, variables/variables.index + .data-00000-of-00001 in TF's checkpoint
//!   format), atomically. serving_default is obj.__call__
//!   when it has an input_signature, or what signatures= names; a signature's inputs are named by the
//!   input_signature's TensorSpec names (else the parameters'). A Keras model saves its layers' weights and its
//!   call (inputs by input layer name, outputs {output layer name: tensor}). Arguments may be lists, tuples and dicts
//!   of tensors and Python constants (kept in each concrete function's structured input signature); list, tuple and
//!   dict attributes holding Variables, modules or functions are TF's ListWrapper/_TupleWrapper/_DictWrapper nodes.
//!   A tf.custom_gradient inside a saved
//!   function is marked in the graph (_gradient_op_type) and its grad_fn (of a single result) traced into the library
//!   and named in registered_gradients, so a loaded function's gradient is the custom one; saved with
//!   experimental_custom_gradients=False, that gradient raises TF's LookupError rather than differentiate the forward
//!   ops.
static Val sm_save_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.saved_model.save", .sig = "obj, export_dir, signatures=None, options=None"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[1], &str_type))
    rt_throw(ERR_TYPE, "tf.saved_model.save: export_dir must be a string, not %s", val_type_name(a[1]));
  if (val_is(a[0], &inst_type)) {
    /* a Keras model (stdlib/keras_models.tfs) saves itself: its layers' weights and its call as serving_default */
    Val d = ((Inst *)a[0].u.o)->dict, k = dict_get_str(d, "_is_compiled");
    bool keras = !val_is_undef(k);
    val_decref(k);
    if (keras) {
      Val hook = rt_getattr(a[0], "_save_as_saved_model");
      int mark = rt_hold_val(hook);
      Val r = rt_call(hook, 2, (Val[]){a[1], a[2]}, NULL);
      rt_unhold(mark);
      val_decref(hook);
      val_decref(r);
      return val_none();
    }
  }
  if (dist_writes()) sm_save(a[0], str_cstr(a[1]), a[2], a[3]);   /* with N > 1 the chief writes (§18.7) */
  return val_none();
}

/* ==== loading =================================================================================== */

/* A loaded SavedModel: the message (kept for the output structures), its
 * Variables, and every concrete function as a graph with its plan. */
typedef struct SmConc {
  const char *name;           /* library name */
  Graph *g;
  ExecPlan *plan;
  int nargs;
  const char **args;          /* parameter names */
  const Tensorflow__StructuredValue *out;
  const Tensorflow__StructuredValue *in;   /* the positional arguments' structure (a tuple), or NULL */
  bool structured;            /* some argument is a list, tuple or dict of tensors, or a constant of the trace */
} SmConc;

struct SmModel {
  Obj hdr;
  char *path;
  Tensorflow__SavedModel *msg;
  int nvars;
  Val *vars;                  /* Variables (owned), in node order */
  char **varkeys;
  int nconc;
  SmConc *conc;
  size_t nnodes;
  char **paths;               /* each object's attribute path from the root ("" root, NULL unreachable) */
};

static void sm_model_free(Obj *o) {
  SmModel *m = (SmModel *)o;
  for (int i = 0; i < m->nconc; i++) {
    if (m->conc[i].plan) exec_plan_free(m->conc[i].plan);
    if (m->conc[i].g) graph_release(m->conc[i].g);
    free(m->conc[i].args);
  }
  free(m->conc);
  for (int i = 0; i < m->nvars; i++) {
    val_decref(m->vars[i]);
    free(m->varkeys[i]);
  }
  free(m->vars);
  free(m->varkeys);
  for (size_t i = 0; m->paths && i < m->nnodes; i++) free(m->paths[i]);
  free(m->paths);
  if (m->msg) tensorflow__saved_model__free_unpacked(m->msg, NULL);
  free(m->path);
  free(m);
}

static void sm_model_repr(StrBuf *b, Val v) { sb_printf(b, "<SavedModel '%s'>", ((SmModel *)v.u.o)->path); }

static const Type sm_model_type = {.name = "SavedModel", .free = sm_model_free, .repr = sm_model_repr};

__attribute__((format(printf, 2, 3))) _Noreturn static void sm_corrupt(const SmModel *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  graphimport_corrupt_v(m->path, fmt, ap);
}

static Variable *sm_var(void *ctx, const char *key) {
  SmModel *m = ctx;
  for (int i = 0; i < m->nvars; i++)
    if (!strcmp(m->varkeys[i], key)) return (Variable *)m->vars[i].u.o;
  return NULL;
}

SmConc *smodel_conc(SmModel *m, const char *name) {
  for (int i = 0; i < m->nconc; i++)
    if (!strcmp(m->conc[i].name, name)) return &m->conc[i];
  return NULL;
}

/* The tensor for argument i of c from a value (tensors must have its dtype and a compatible shape; host values convert). */
static Tensor *sm_arg(const SmConc *c, int i, Val v, const char *fname) {
  const TMeta *m = c->g->nodes[c->g->inputs[i]].outm;
  Tensor *t = val_as_tensor(v);
  if (t && !val_is(v, &variable_type)) {
    tensor_retain(t);
  } else {
    t = tensor_from_val(v, (int)m->dtype);
  }
  bool ok = t->dtype == m->dtype && (m->rank < 0 || t->rank == m->rank);
  for (int d = 0; ok && m->rank >= 0 && d < m->rank; d++) ok = m->shape[d] < 0 || m->shape[d] == t->shape[d];
  if (!ok) {
    StrBuf b, want;
    sb_init(&b);
    sb_init(&want);
    graph_shape_text(&b, t->rank, t->shape);
    graph_meta_text(&want, m);
    char msg[512];
    snprintf(msg, sizeof msg,
             "loaded function '%s': argument '%s' must be a %s tensor, but received a %s tensor of shape %s", fname,
             c->args[i], want.data, dtype_info[t->dtype].name, b.data);
    sb_free(&b);
    sb_free(&want);
    tensor_release(t);
    /* errindex: loaded function '…': argument '…' must be a … tensor, but received a … tensor of shape … */
    rt_throw(ERR_TYPE, "%s", msg);
  }
  return t;
}

/* Rebuild the saved result structure from the flat outputs. */
static Val sm_unflatten(const Tensorflow__StructuredValue *sv, Tensor **outs, int nout, int *k) {
  switch (sv ? sv->kind_case : TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE) {
    case TENSORFLOW__STRUCTURED_VALUE__KIND_NONE_VALUE: return val_none();
    case TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE:
    case TENSORFLOW__STRUCTURED_VALUE__KIND_LIST_VALUE: {
      bool tup = sv->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE;
      size_t n = tup ? sv->tuple_value->n_values : sv->list_value->n_values;
      Tensorflow__StructuredValue **it = tup ? sv->tuple_value->values : sv->list_value->values;
      Val r = tup ? tuple_new((tfs_i64)n) : list_new((tfs_i64)n);
      for (size_t i = 0; i < n; i++) {
        Val x = sm_unflatten(it[i], outs, nout, k);
        if (tup) ((Tuple *)r.u.o)->items[i] = x;
        else {
          list_append(r, x);
          val_decref(x);
        }
      }
      return r;
    }
    case TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE: {
      Val d = dict_new();
      for (size_t i = 0; i < sv->dict_value->n_fields; i++) {
        Val x = sm_unflatten(sv->dict_value->fields[i]->value, outs, nout, k);
        Val key = str_from_cstr(sv->dict_value->fields[i]->key);
        dict_set(d, key, x);
        val_decref(key);
        val_decref(x);
      }
      return d;
    }
    default:
      if (*k >= nout) return val_none();
      return val_obj(tensor_retain(outs[(*k)++]));
  }
}

/* Run c on argument tensors; outs receives its outputs (owned). */
static void sm_run(const SmConc *c, Tensor **in, Tensor **outs) { exec_run(c->plan, in, outs); }

/* ---- loaded functions: m.f(x) ---- */

typedef struct SmFn {
  Obj hdr;
  SmModel *model;             /* a reference */
  char *name;                 /* attribute name */
  int nconc;
  SmConc **conc;              /* borrowed from the model */
  bool signature;             /* a signature: keyword arguments in, dict {'output_0': ...} out */
  const char **keys;          /* a signature's argument names: its SignatureDef input keys (borrowed), or NULL */
  const Tensorflow__FunctionSpec *spec;   /* its FunctionSpec (borrowed from the model), or NULL */
} SmFn;

static void sm_fn_free(Obj *o) {
  SmFn *f = (SmFn *)o;
  val_decref(val_obj(f->model));
  free(f->name);
  free(f->conc);
  free(f->keys);
  free(f);
}

static void sm_fn_repr(StrBuf *b, Val v) {
  const SmFn *f = (const SmFn *)v.u.o;
  sb_printf(b, f->signature ? "<ConcreteFunction signature_wrapper(*, %s) at saved '%s'>" : "<tf.function %s at saved '%s'>",
            f->name, f->model->path);
}

/* The argument names f binds for c: a signature's input keys, else c's parameter names. */
static const char *const *sm_fn_names(const SmFn *f, const SmConc *c) {
  return f->keys ? f->keys : (const char *const *)c->args;
}

/* Whether c accepts these arguments (dtype and shape); binds them into in[]. */
static bool sm_match(const SmConc *c, const char *const *names, int n, const Val *args, const Kw *kw, Val *bound) {
  if (n > c->nargs) return false;
  for (int i = 0; i < c->nargs; i++) bound[i] = i < n ? args[i] : val_undef();
  for (int k = 0; kw && k < kw->n; k++) {
    int i = 0;
    while (i < c->nargs && strcmp(names[i], kw->names[k])) i++;
    if (i == c->nargs || !val_is_undef(bound[i])) return false;
    bound[i] = kw->vals[k];
  }
  for (int i = 0; i < c->nargs; i++) {
    if (val_is_undef(bound[i])) return false;
    const TMeta *m = c->g->nodes[c->g->inputs[i]].outm;
    Tensor *t = val_as_tensor(bound[i]);
    if (!t) continue;   /* host values convert */
    if (t->dtype != m->dtype || (m->rank >= 0 && t->rank != m->rank)) return false;
    for (int d = 0; m->rank >= 0 && d < m->rank; d++)
      if (m->shape[d] >= 0 && m->shape[d] != t->shape[d]) return false;
  }
  return true;
}

static void sm_leaves(const Tensorflow__StructuredValue *sv, const Tensorflow__StructuredValue **out, int *k, int max,
                      int depth);

/* The name a structured argument is called by: its first tensor's path up to the first '/' ("xs" of "xs/0"). */
static const char *sm_top_name(PbArena *a, const Tensorflow__StructuredValue *sv) {
  const Tensorflow__StructuredValue *l[1] = {NULL};
  int k = 0;
  sm_leaves(sv, l, &k, 1, 0);
  if (!l[0] || !l[0]->tensor_spec_value->name) return "";
  const char *nm = l[0]->tensor_spec_value->name, *sl = strchr(nm, '/');
  return sl ? pa_printf(a, "%.*s", (int)(sl - nm), nm) : nm;
}

/* v flattened along the saved structure sv into flat[*k ...] (at most max): false when v has another structure
 * (a list for a list, a tuple for a tuple, a dict with the same keys), as a loaded function matches its arguments. */
static bool sm_flat(const Tensorflow__StructuredValue *sv, Val v, Val *flat, int *k, int max, int depth) {
  if (depth > 32) return false;
  tfs_i64 n;
  const Val *items;
  switch (sv->kind_case) {
    case TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE:
      if (*k >= max || val_is(v, &list_type) || val_is(v, &tuple_type) || val_is(v, &dict_type)) return false;
      flat[(*k)++] = v;
      return true;
    case TENSORFLOW__STRUCTURED_VALUE__KIND_LIST_VALUE:
    case TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE: {
      bool tup = sv->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE;
      size_t want = tup ? sv->tuple_value->n_values : sv->list_value->n_values;
      if (!val_is(v, tup ? &tuple_type : &list_type) || !seq_items(v, &n, &items) || (size_t)n != want) return false;
      for (tfs_i64 i = 0; i < n; i++)
        if (!sm_flat(tup ? sv->tuple_value->values[i] : sv->list_value->values[i], items[i], flat, k, max, depth + 1))
          return false;
      return true;
    }
    /* a constant of the trace: the same value */
    case TENSORFLOW__STRUCTURED_VALUE__KIND_NONE_VALUE: return v.tag == VT_NONE;
    case TENSORFLOW__STRUCTURED_VALUE__KIND_BOOL_VALUE: return v.tag == VT_BOOL && (v.u.i != 0) == (sv->bool_value != 0);
    case TENSORFLOW__STRUCTURED_VALUE__KIND_INT64_VALUE: return v.tag == VT_INT && v.u.i == sv->int64_value;
    case TENSORFLOW__STRUCTURED_VALUE__KIND_FLOAT64_VALUE:
      return (v.tag == VT_FLOAT && v.u.f == sv->float64_value) || (v.tag == VT_INT && (double)v.u.i == sv->float64_value);
    case TENSORFLOW__STRUCTURED_VALUE__KIND_STRING_VALUE:
      return val_is(v, &str_type) && sv->string_value && !strcmp(str_cstr(v), sv->string_value);
    case TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE: {
      if (!val_is(v, &dict_type) || (size_t)((Dict *)v.u.o)->len != sv->dict_value->n_fields) return false;
      for (size_t i = 0; i < sv->dict_value->n_fields; i++) {
        Val x = dict_get_str(v, sv->dict_value->fields[i]->key ? sv->dict_value->fields[i]->key : "");
        if (val_is_undef(x)) return false;
        bool ok = sm_flat(sv->dict_value->fields[i]->value, x, flat, k, max, depth + 1);
        val_decref(x);   /* the dict still holds it */
        if (!ok) return false;
      }
      return true;
    }
    default: return false;
  }
}

/* A FullArgSpec field (the named tuple TF writes as FunctionSpec.fullargspec), or NULL. */
static const Tensorflow__StructuredValue *sm_argspec_field(const Tensorflow__FunctionSpec *fs, const char *key) {
  const Tensorflow__StructuredValue *v = fs ? fs->fullargspec : NULL;
  if (!v || v->kind_case != TENSORFLOW__STRUCTURED_VALUE__KIND_NAMED_TUPLE_VALUE) return NULL;
  for (size_t i = 0; i < v->named_tuple_value->n_values; i++)
    if (v->named_tuple_value->values[i]->key && !strcmp(v->named_tuple_value->values[i]->key, key))
      return v->named_tuple_value->values[i]->value;
  return NULL;
}

/* A constant default as a value (owned), or undef. */
static Val sm_const(const Tensorflow__StructuredValue *sv) {
  switch (sv->kind_case) {
    case TENSORFLOW__STRUCTURED_VALUE__KIND_NONE_VALUE: return val_none();
    case TENSORFLOW__STRUCTURED_VALUE__KIND_BOOL_VALUE: return val_bool(sv->bool_value);
    case TENSORFLOW__STRUCTURED_VALUE__KIND_INT64_VALUE: return val_int(sv->int64_value);
    case TENSORFLOW__STRUCTURED_VALUE__KIND_FLOAT64_VALUE: return val_float(sv->float64_value);
    case TENSORFLOW__STRUCTURED_VALUE__KIND_STRING_VALUE: return str_from_cstr(sv->string_value ? sv->string_value : "");
    default: return val_undef();
  }
}

/* Whether c (with structured arguments) accepts these arguments: bound[] gets its graph inputs' values.  Arguments
 * bind by position, or by the names in f's FullArgSpec (else a structure's path prefix); one left out takes the
 * FullArgSpec's default, as function_deserialization.py's canonicalization. */
static bool sm_match_structured(const SmFn *f, const SmConc *c, int n, const Val *args, const Kw *kw, Val *bound) {
  const Tensorflow__TupleValue *tv = c->in->tuple_value;
  int np = (int)tv->n_values;
  if (n > np || np > 16) return false;
  Val top[16];
  for (int i = 0; i < np; i++) top[i] = i < n ? args[i] : val_undef();
  const Tensorflow__StructuredValue *names = sm_argspec_field(f->spec, "args"), *dflt = sm_argspec_field(f->spec, "defaults");
  int skip = f->spec && f->spec->is_method ? 1 : 0;
  bool named = names && names->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_LIST_VALUE &&
               (int)names->list_value->n_values == np + skip;
  PbArena a = {0};
  bool ok = true;
  for (int q = 0; ok && kw && q < kw->n; q++) {
    int i = 0;
    for (; i < np; i++) {
      const Tensorflow__StructuredValue *nm = named ? names->list_value->values[i + skip] : NULL;
      const char *s = nm && nm->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_STRING_VALUE ? nm->string_value
                                                                                           : sm_top_name(&a, tv->values[i]);
      if (s && !strcmp(s, kw->names[q])) break;
    }
    ok = i < np && val_is_undef(top[i]);
    if (ok) top[i] = kw->vals[q];
  }
  pa_free(&a);
  Val held[16];
  int nheld = 0;
  if (ok && named && dflt && dflt->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE) {
    int nd = (int)dflt->tuple_value->n_values;
    for (int i = 0; i < np; i++) {
      int d = i + skip - (np + skip - nd);
      /* a string default stays a constant: it is freed before the call, so it may not stand for a tensor */
      if (val_is_undef(top[i]) && d >= 0 && d < nd &&
          !(dflt->tuple_value->values[d]->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_STRING_VALUE &&
            tv->values[i]->kind_case != TENSORFLOW__STRUCTURED_VALUE__KIND_STRING_VALUE))
        top[i] = held[nheld++] = sm_const(dflt->tuple_value->values[d]);
    }
  }
  Val flat[16];
  int k = 0;
  for (int i = 0; ok && i < np; i++) {
    Tensorflow__StructuredValue__KindCase kc = tv->values[i]->kind_case;
    /* no FullArgSpec defaults (a SavedModel without them): a constant of the trace left out matches */
    if (val_is_undef(top[i]) && !named && kc != TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE &&
        kc != TENSORFLOW__STRUCTURED_VALUE__KIND_LIST_VALUE && kc != TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE &&
        kc != TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE)
      continue;
    ok = !val_is_undef(top[i]) && sm_flat(tv->values[i], top[i], flat, &k, 16, 0);
  }
  ok = ok && k == c->nargs && sm_match(c, (const char *const *)c->args, k, flat, NULL, bound);
  for (int i = 0; i < nheld; i++) val_decref(held[i]);   /* constants only: nothing bound refers to them */
  return ok;
}

static Val sm_fn_call(Val self, int n, const Val *args, const Kw *kw) {
  SmFn *f = (SmFn *)self.u.o;
  if (f->signature && n)
    rt_throw(ERR_TYPE, "signature '%s' of a loaded SavedModel takes keyword arguments only (%s=...)", f->name,
             f->conc[0]->nargs ? f->conc[0]->args[0] : "x");
  Val bb[16];
  const SmConc *c = NULL;
  int ci = 0;
  for (; ci < f->nconc && !c; ci++)
    if (f->conc[ci]->nargs <= 16 &&
        (f->conc[ci]->structured && !f->signature ? sm_match_structured(f, f->conc[ci], n, args, kw, bb)
                                                  : sm_match(f->conc[ci], sm_fn_names(f, f->conc[ci]), n, args, kw, bb)))
      c = f->conc[ci];
  if (!c && !f->signature && f->conc[0]->structured) {
    /* TF's words (function_deserialization.py), then what was given against what the saved functions take */
    StrBuf b;
    sb_init(&b);
    rt_hold_fn((void (*)(void *))sb_free, &b);
    sb_printf(&b, "Could not find matching concrete function to call loaded from the SavedModel. Got:\n  Positional arguments (%d total):", n);
    for (int i = 0; i < n; i++) {
      Val r = repr_of(args[i]);
      sb_printf(&b, "\n    * %s", str_cstr(r));
      val_decref(r);
    }
    sb_printf(&b, "\n  Keyword arguments: {");
    for (int q = 0; kw && q < kw->n; q++) {
      Val r = repr_of(kw->vals[q]);
      sb_printf(&b, "%s'%s': %s", q ? ", " : "", kw->names[q], str_cstr(r));
      val_decref(r);
    }
    sb_printf(&b, "}");
    /* errindex: Could not find matching concrete function to call loaded from the SavedModel. Got: … */
    rt_throw(ERR_VALUE, "%s", b.data);
  }
  if (!c) {
    /* the first concrete function names the problem */
    c = f->conc[0];
    if (c->nargs > 16) rt_throw(ERR_TYPE, "loaded function '%s' takes more than 16 arguments", f->name);
    if (n > c->nargs)
      rt_throw(ERR_TYPE, "loaded function '%s' takes %d argument%s but %d were given", f->name, c->nargs,
               c->nargs == 1 ? "" : "s", n);
    for (int i = 0; i < c->nargs; i++) bb[i] = i < n ? args[i] : val_undef();
    for (int k = 0; kw && k < kw->n; k++) {
      int i = 0;
      while (i < c->nargs && strcmp(sm_fn_names(f, c)[i], kw->names[k])) i++;
      if (i == c->nargs) rt_throw(ERR_TYPE, "loaded function '%s' got an unexpected keyword argument '%s'", f->name, kw->names[k]);
      bb[i] = kw->vals[k];
    }
    for (int i = 0; i < c->nargs; i++)
      if (val_is_undef(bb[i])) rt_throw(ERR_TYPE, "loaded function '%s' is missing its argument '%s'", f->name, sm_fn_names(f, c)[i]);
  }
  Tensor *in[16], *ob[16];
  int nin = 0;
  Val hold = list_new(c->nargs);
  int mark = rt_hold_val(hold);
  for (; nin < c->nargs; nin++) {
    in[nin] = sm_arg(c, nin, bb[nin], f->name);
    list_append(hold, val_obj(in[nin]));
    tensor_release(in[nin]);
  }
  int no = c->g->noutputs;
  Tensor **outs = no <= 16 ? ob : malloc(sizeof(Tensor *) * (size_t)no);
  if (!outs) rt_throw(ERR_MEMORY, "out of memory");
  if (outs != ob) rt_hold_mem(outs);
  if (trace_active() || (tape_any_recording() && graph_replayable(c->g))) {
    /* as TF's loaded functions: differentiable, and callable inside tf.function (runtime/graph/replay.c); a
     * graph replay does not run yet (a cond or loop) runs whole under a tape, its gradient None as before */
    Val av[16];
    /* a Variable argument stays one, so a tape sees the ops read it (its value tensor is no tape's source) */
    for (int i = 0; i < nin; i++) av[i] = val_is(bb[i], &variable_type) ? bb[i] : val_obj(in[i]);
    Val rt = graph_replay(c->g, av);
    for (int i = 0; i < no; i++) {
      Tensor *t = val_as_tensor(((Tuple *)rt.u.o)->items[i]);
      outs[i] = t ? tensor_retain(t) : tensor_from_val(((Tuple *)rt.u.o)->items[i], -1);
    }
    val_decref(rt);
  } else {
    sm_run(c, in, outs);
  }
  Val r;
  if (f->signature) {
    r = dict_new();
    for (int i = 0; i < no; i++) {
      char key[32];
      snprintf(key, sizeof key, "output_%d", i);
      const char *named = smodel_signature_output(f->model, f->name, i);   /* the signature's own output names */
      dict_set_str(&r, named ? named : key, val_obj(outs[i]));
      tensor_release(outs[i]);
    }
  } else {
    int k = 0;
    r = sm_unflatten(c->out, outs, no, &k);
    for (int i = 0; i < no; i++) tensor_release(outs[i]);
  }
  rt_unhold(mark);
  if (outs != ob) free(outs);
  val_decref(hold);
  return r;
}

static Val sm_fn_getattr(Val self, const char *name) {
  SmFn *f = (SmFn *)self.u.o;
  if (!strcmp(name, "__name__") || !strcmp(name, "name")) return str_from_cstr(f->name);
  if (!strcmp(name, "structured_input_signature") || !strcmp(name, "input_signature")) {
    const SmConc *c = f->conc[0];
    Val t = tuple_new(c->nargs);
    for (int i = 0; i < c->nargs; i++) {
      const TMeta *m = c->g->nodes[c->g->inputs[i]].outm;
      Val nm = str_from_cstr(sm_fn_names(f, c)[i]);
      ((Tuple *)t.u.o)->items[i] = tffn_spec_new(m->rank, m->shape, m->dtype, nm);
      val_decref(nm);
    }
    return t;
  }
  return val_undef();
}

static const Type sm_fn_type = {
  .name = "Function", .free = sm_fn_free, .repr = sm_fn_repr, .getattr = sm_fn_getattr, .call = sm_fn_call,
  .hash = obj_identity_hash,
};

/* ---- loaded objects ---- */

typedef struct SmUser {
  Obj hdr;
  SmModel *model;             /* a reference */
  Val dict;                   /* attributes (owned dict) */
  int node;
} SmUser;

static void sm_user_free(Obj *o) {
  SmUser *u = (SmUser *)o;
  val_decref(val_obj(u->model));
  val_decref(u->dict);
  free(u);
}

static const Type sm_user_type;

static void sm_user_repr(StrBuf *b, Val v) { sb_printf(b, "<_UserObject of '%s'>", ((SmUser *)v.u.o)->model->path); }

/* The Variables reachable from a loaded object, each once, in its attributes' order: through other loaded objects
 * and the lists, tuples and dicts TF's ListWrapper/_TupleWrapper/_DictWrapper nodes come back as (a Keras model's
 * layers sit in such a list), not through its signatures. */
static void sm_collect_vars(Val obj, Val out, bool trainable_only, int depth) {
  if (depth > 32) return;
  if (val_is(obj, &variable_type)) {
    bool seen = false;
    for (tfs_i64 k = 0; k < ((List *)out.u.o)->len && !seen; k++) seen = ((List *)out.u.o)->items[k].u.o == obj.u.o;
    if (!seen && (!trainable_only || ((Variable *)obj.u.o)->trainable)) list_append(out, obj);
    return;
  }
  tfs_i64 n;
  const Val *it;
  if (val_is(obj, &list_type) || val_is(obj, &tuple_type)) {
    if (seq_items(obj, &n, &it))
      for (tfs_i64 i = 0; i < n; i++) sm_collect_vars(it[i], out, trainable_only, depth + 1);
    return;
  }
  bool user = val_is(obj, &sm_user_type);
  if (!user && !val_is(obj, &dict_type)) return;
  Val d = user ? ((const SmUser *)obj.u.o)->dict : obj;
  Val keys = dict_keys_list(d);
  int mark = rt_hold_val(keys);
  List *kl = (List *)keys.u.o;
  for (tfs_i64 i = 0; i < kl->len; i++) {
    if (user && val_is(kl->items[i], &str_type) && !strcmp(str_cstr(kl->items[i]), "signatures")) continue;
    Val v = dict_get(d, kl->items[i]);
    int m = rt_hold_val(v);
    sm_collect_vars(v, out, trainable_only, depth + 1);
    rt_unhold(m);
    val_decref(v);
  }
  rt_unhold(mark);
  val_decref(keys);
}

static Val sm_user_getattr(Val self, const char *name) {
  SmUser *u = (SmUser *)self.u.o;
  Val v = dict_get_str(u->dict, name);
  if (!val_is_undef(v)) return v;
  if (!strcmp(name, "variables") || !strcmp(name, "trainable_variables")) {
    Val l = list_new(4);
    sm_collect_vars(self, l, name[0] == 't', 0);
    Val t = rt_tuple((int)((List *)l.u.o)->len, ((List *)l.u.o)->items);
    val_decref(l);
    return t;
  }
  return val_undef();
}

static void sm_user_setattr(Val self, const char *name, Val v) { dict_set_str(&((SmUser *)self.u.o)->dict, name, v); }

static Val sm_user_call(Val self, int n, const Val *args, const Kw *kw) {
  Val f = dict_get_str(((SmUser *)self.u.o)->dict, "__call__");
  if (val_is_undef(f)) rt_throw(ERR_TYPE, "'_UserObject' object is not callable");
  int mark = rt_hold_val(f);
  Val r = rt_call(f, n, args, kw);
  rt_unhold(mark);
  val_decref(f);
  return r;
}

static const Type sm_user_type = {
  .name = "_UserObject", .free = sm_user_free, .repr = sm_user_repr, .getattr = sm_user_getattr,
  .setattr = sm_user_setattr, .call = sm_user_call, .hash = obj_identity_hash,
};

static Val sm_fn_new(SmModel *m, const char *name, bool signature) {
  SmFn *f = obj_new(&sm_fn_type, sizeof(SmFn));
  f->model = m;
  m->hdr.rc++;
  f->name = strdup(name);
  f->nconc = 0;
  f->conc = NULL;
  f->keys = NULL;
  f->spec = NULL;
  f->signature = signature;
  if (!f->name) rt_throw(ERR_MEMORY, "out of memory");
  return val_obj(f);
}

static void sm_fn_add(SmFn *f, SmConc *c) {
  SmConc **cc = realloc(f->conc, sizeof(SmConc *) * (size_t)(f->nconc + 1));
  if (!cc) rt_throw(ERR_MEMORY, "out of memory");
  f->conc = cc;
  f->conc[f->nconc++] = c;
}

/* A signature's argument names in c's parameter order: the SignatureDef input whose tensor is the placeholder its
 * StatefulPartitionedCall node takes as input i ("serving_default_x:0" for input "x"); c's own names where the
 * graph does not say. */
static const char **sm_sig_keys(SmModel *m, const Tensorflow__SignatureDef *sd, const SmConc *c) {
  const Tensorflow__GraphDef *gd = m->msg->meta_graphs[0]->graph_def;
  const Tensorflow__NodeDef *call = NULL;
  const char *node = sd && sd->n_outputs && sd->outputs[0]->value ? sd->outputs[0]->value->name : NULL;
  size_t len = node && strrchr(node, ':') ? (size_t)(strrchr(node, ':') - node) : 0;
  for (size_t k = 0; len && gd && k < gd->n_node && !call; k++)
    if (gd->node[k]->name && strlen(gd->node[k]->name) == len && !strncmp(gd->node[k]->name, node, len)) call = gd->node[k];
  const char **keys = calloc((size_t)c->nargs + 1, sizeof(char *));
  if (!keys) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < c->nargs; i++) {
    keys[i] = c->args[i];
    if (!call || (size_t)i >= call->n_input) continue;
    for (size_t j = 0; j < sd->n_inputs; j++) {
      const char *t = sd->inputs[j]->value ? sd->inputs[j]->value->name : NULL;
      size_t tl = strlen(call->input[i]);
      if (t && sd->inputs[j]->key && !strncmp(t, call->input[i], tl) && !strcmp(t + tl, ":0")) keys[i] = sd->inputs[j]->key;
    }
  }
  return keys;
}

/* The TensorSpec leaves of a structured argument in order (lists, tuples, dict fields as stored), at most max. */
static void sm_leaves(const Tensorflow__StructuredValue *sv, const Tensorflow__StructuredValue **out, int *k, int max,
                      int depth) {
  if (!sv || depth > 32) return;
  switch (sv->kind_case) {
    case TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE:
      if (*k < max) out[*k] = sv;
      (*k)++;
      break;
    case TENSORFLOW__STRUCTURED_VALUE__KIND_LIST_VALUE:
      for (size_t i = 0; i < sv->list_value->n_values; i++) sm_leaves(sv->list_value->values[i], out, k, max, depth + 1);
      break;
    case TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE:
      for (size_t i = 0; i < sv->tuple_value->n_values; i++) sm_leaves(sv->tuple_value->values[i], out, k, max, depth + 1);
      break;
    case TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE:
      for (size_t i = 0; i < sv->dict_value->n_fields; i++) sm_leaves(sv->dict_value->fields[i]->value, out, k, max, depth + 1);
      break;
    default: break;
  }
}

/* Parameter names of a concrete function from its canonicalized_input_signature: one per graph input (a structured
 * argument's tensors by their TensorSpec names, "xs/0"), and the structure when an argument is a list, tuple or
 * dict of tensors. */
static void sm_conc_args(SmModel *m, SmConc *c, const Tensorflow__SavedConcreteFunction *sc) {
  const Tensorflow__StructuredValue *in = sc ? sc->canonicalized_input_signature : NULL;
  const Tensorflow__StructuredValue *args = NULL;
  if (in && in->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE && in->tuple_value->n_values == 2 &&
      in->tuple_value->values[0]->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE)
    args = in->tuple_value->values[0];
  c->nargs = c->g->ninputs;
  c->args = calloc((size_t)c->nargs + 1, sizeof(char *));
  const Tensorflow__StructuredValue **leaf = calloc((size_t)c->nargs + 1, sizeof(void *));
  if (!c->args || !leaf) {
    free(leaf);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  int nleaf = 0;
  c->in = NULL;
  c->structured = false;
  for (size_t i = 0; args && i < args->tuple_value->n_values; i++) {
    const Tensorflow__StructuredValue *a = args->tuple_value->values[i];
    if (a->kind_case != TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE) c->structured = true;
    sm_leaves(a, leaf, &nleaf, c->nargs, 0);
  }
  /* a structure whose tensors are not the graph's inputs one for one is not used (the flat names stay) */
  if (c->structured && nleaf == c->nargs) c->in = args;
  else c->structured = false;
  for (int i = 0; i < c->nargs; i++) {
    const Tensorflow__StructuredValue *a = i < nleaf ? leaf[i] : NULL;
    if (a && a->tensor_spec_value->name && *a->tensor_spec_value->name)
      c->args[i] = a->tensor_spec_value->name;
    else
      c->args[i] = c->g->nodes[c->g->inputs[i]].name;
  }
  free(leaf);
  c->out = sc ? sc->output_signature : NULL;
  (void)m;
}

static SmModel *sm_read(const char *dir) {
  SmModel *m = obj_new(&sm_model_type, sizeof(SmModel));
  memset((char *)m + sizeof(Obj), 0, sizeof(SmModel) - sizeof(Obj));
  int mark = rt_hold_val(val_obj(m));
  m->path = strdup(dir);
  if (!m->path) rt_throw(ERR_MEMORY, "out of memory");
  char *pbp = malloc(strlen(dir) + 32);
  if (!pbp) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(pbp);
  sprintf(pbp, "%s/saved_model.pb", dir);
  FILE *f = fopen(pbp, "rb");
  if (!f)
    rt_throw(ERR_IO, "tf.saved_model.load: SavedModel file does not exist at: '%s' (%s)", pbp, strerror(errno));
  StrBuf b;
  sb_init(&b);
  rt_hold_sb(&b);
  char chunk[65536];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) sb_putn(&b, chunk, k);
  fclose(f);
  m->msg = tensorflow__saved_model__unpack(NULL, b.len, (const uint8_t *)(b.data ? b.data : ""));
  if (!m->msg) sm_corrupt(m, "saved_model.pb is not a SavedModel protocol buffer");
  if (m->msg->n_meta_graphs < 1 || !m->msg->meta_graphs[0]->object_graph_def ||
      m->msg->meta_graphs[0]->object_graph_def->n_nodes < 1 || !m->msg->meta_graphs[0]->graph_def)
    sm_corrupt(m, "saved_model.pb holds no object graph");
  const Tensorflow__MetaGraphDef *mg = m->msg->meta_graphs[0];
  const Tensorflow__SavedObjectGraph *og = mg->object_graph_def;
  /* Variables: keys from their paths (captured ones numbered as saved) */
  size_t nn = og->n_nodes;
  m->paths = calloc(nn, sizeof(char *));
  size_t *queue = malloc(sizeof(size_t) * nn), qh = 0, qt = 0;
  if (!m->paths || !queue) rt_throw(ERR_MEMORY, "out of memory");
  m->nnodes = nn;
  char **paths = m->paths;
  rt_hold_mem(queue);
  paths[0] = strdup("");
  if (!paths[0]) rt_throw(ERR_MEMORY, "out of memory");
  /* breadth first from the root: a node's path is its first parent's path and its name */
  queue[qt++] = 0;
  while (qh < qt) {
    size_t i = queue[qh++];
    const Tensorflow__SavedObject *o = og->nodes[i];
    for (size_t c = 0; c < o->n_children; c++) {
      int id = o->children[c]->node_id;
      if (id < 0 || (size_t)id >= nn || !o->children[c]->local_name) sm_corrupt(m, "object %zu has a bad child", i);
      if (paths[id]) continue;
      size_t len = strlen(paths[i]) + strlen(o->children[c]->local_name) + 2;
      paths[id] = malloc(len);
      if (!paths[id]) rt_throw(ERR_MEMORY, "out of memory");
      snprintf(paths[id], len, "%s%s%s", paths[i], *paths[i] ? "/" : "", o->children[c]->local_name);
      queue[qt++] = (size_t)id;
    }
  }
  int nv = 0, ncap = 0;
  for (size_t i = 0; i < nn; i++)
    if (og->nodes[i]->kind_case == TENSORFLOW__SAVED_OBJECT__KIND_VARIABLE) nv++;
  m->vars = calloc((size_t)nv + 1, sizeof(Val));
  m->varkeys = calloc((size_t)nv + 1, sizeof(char *));
  if (!m->vars || !m->varkeys) rt_throw(ERR_MEMORY, "out of memory");
  TbReader *rd = NULL;
  if (nv) {
    char *vp = malloc(strlen(dir) + 40);
    if (!vp) rt_throw(ERR_MEMORY, "out of memory");
    int mp = rt_hold_mem(vp);
    sprintf(vp, "%s/variables/variables", dir);
    rd = cg_open("tf.saved_model.load", vp);
    rt_unhold(mp);
    free(vp);
    rt_hold_fn(tb_close, rd);
  }
  for (size_t i = 0; i < nn; i++) {
    const Tensorflow__SavedObject *o = og->nodes[i];
    if (o->kind_case != TENSORFLOW__SAVED_OBJECT__KIND_VARIABLE) continue;
    const Tensorflow__SavedVariable *sv = o->variable;
    char key[64];
    if (paths[i]) m->varkeys[m->nvars] = strdup(paths[i]);
    else {
      snprintf(key, sizeof key, "_captured_%d", ncap++);
      m->varkeys[m->nvars] = strdup(key);
    }
    if (!m->varkeys[m->nvars]) rt_throw(ERR_MEMORY, "out of memory");
    StrBuf kb;
    sb_init(&kb);
    int mk = rt_hold_sb(&kb);
    sb_printf(&kb, "%s/.ATTRIBUTES/VARIABLE_VALUE", m->varkeys[m->nvars]);
    int at = tb_find(rd, kb.data);
    if (at < 0) sm_corrupt(m, "variables/variables.index has no value for variable '%s'", m->varkeys[m->nvars]);
    Tensor *t = tb_tensor(rd, at, "tf.saved_model.load");
    rt_unhold(mk);
    sb_free(&kb);
    int mv = rt_hold_val(val_obj(t));
    int rank;
    tfs_i64 shape[TFS_MAX_RANK];
    bool ok = pb_undtype(sv->dtype) == (int)t->dtype && pb_unshape(sv->shape, &rank, shape) && rank == t->rank;
    for (int d = 0; ok && d < rank; d++) ok = shape[d] == t->shape[d];
    if (!ok) sm_corrupt(m, "variable '%s' does not match its saved value", paths[i] ? paths[i] : sv->name);
    Val nm = str_from_cstr(sv->name && *sv->name ? sv->name : "Variable");
    rt_hold_val(nm);
    m->vars[m->nvars] = variable_new(val_obj(t), nm, sv->trainable, val_none());
    rt_unhold(mv);
    val_decref(nm);
    tensor_release(t);
    m->nvars++;
  }
  /* functions: every concrete function of the library the object graph names */
  const Tensorflow__FunctionDefLibrary *lib = mg->graph_def->library;
  m->conc = calloc(og->n_concrete_functions + 1, sizeof(SmConc));
  if (!m->conc) rt_throw(ERR_MEMORY, "out of memory");
  for (size_t i = 0; i < og->n_concrete_functions; i++) {
    const char *name = og->concrete_functions[i]->key;
    if (!name) sm_corrupt(m, "a concrete function has no name");
    SmConc *c = &m->conc[m->nconc];
    c->name = name;
    /* the graph is named after the attribute that holds it, for error messages */
    const char *gname = name;
    for (size_t j = 0; j < nn; j++) {
      const Tensorflow__SavedObject *o = og->nodes[j];
      if (o->kind_case != TENSORFLOW__SAVED_OBJECT__KIND_FUNCTION || !paths[j]) continue;
      for (size_t q = 0; q < o->function->n_concrete_functions; q++)
        if (!strcmp(o->function->concrete_functions[q], name)) gname = paths[j];
    }
    c->g = graphimport_function(lib, name, gname, m->path, sm_var, m);
    m->nconc++;
    c->plan = exec_plan_new(c->g);
    sm_conc_args(m, c, og->concrete_functions[i]->value);
  }
  Graph **cg = calloc((size_t)m->nconc + 1, sizeof(Graph *));
  if (!cg) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(cg);
  for (int i = 0; i < m->nconc; i++) cg[i] = m->conc[i].g;
  smgrad_bind(lib, cg, m->nconc, m->path, sm_var, m);
  rt_unhold(mark);
  if (rd) tb_close(rd);
  sb_free(&b);
  free(pbp);
  free(cg);
  free(queue);
  return m;
}

/* TF revives a ListWrapper and a _TupleWrapper as a list, a _DictWrapper as a dict (data_structures.py's revived types). */
static bool sm_is_list(const Tensorflow__SavedObject *o) {
  return o->user_object && o->user_object->identifier && (!strcmp(o->user_object->identifier, "trackable_list_wrapper") ||
                                                          !strcmp(o->user_object->identifier, "trackable_tuple_wrapper"));
}

static bool sm_is_dict(const Tensorflow__SavedObject *o) {
  return o->user_object && o->user_object->identifier && !strcmp(o->user_object->identifier, "trackable_dict_wrapper");
}

/* A revived list's item at its index name, None-filled up to it (TF's _set_list_item); a namedtuple's field names
 * (not numbers) are skipped, as _set_tuple_item does. */
static void sm_set_item(Val list, const char *name, Val v) {
  char *end;
  long i = strtol(name, &end, 10);
  if (!*name || *end || i < 0 || i > 1 << 24) return;
  List *l = (List *)list.u.o;
  while (l->len <= i) list_append(list, val_none());
  val_decref(l->items[i]);
  l->items[i] = val_incref(v);
}

/* The objects of the graph: user objects with their functions, Variables and sub-objects as attributes. */
/* LoadOptions.experimental_load_function_aliases: {alias: the loaded function} for each saved function whose
 * concrete functions all carry that alias (MetaInfoDef.function_aliases), as TF's load.py; other aliased concrete
 * functions come as a list of one-concrete functions. */
static Val sm_aliases(SmModel *m, const Val *objs) {
  const Tensorflow__MetaGraphDef *mg = m->msg->meta_graphs[0];
  const Tensorflow__MetaGraphDef__MetaInfoDef *mi = mg->meta_info_def;
  const Tensorflow__SavedObjectGraph *og = mg->object_graph_def;
  Val d = dict_new();
  int mark = rt_hold_val(d);
  for (size_t e = 0; mi && e < mi->n_function_aliases; e++) {
    const char *cname = mi->function_aliases[e]->key, *alias = mi->function_aliases[e]->value;
    if (!cname || !alias) continue;
    for (size_t i = 0; i < og->n_nodes; i++) {
      const Tensorflow__SavedObject *o = og->nodes[i];
      if (o->kind_case != TENSORFLOW__SAVED_OBJECT__KIND_FUNCTION) continue;
      bool has = false, all = true;
      for (size_t q = 0; q < o->function->n_concrete_functions; q++) {
        const char *cq = o->function->concrete_functions[q];
        bool mine = !strcmp(cq, cname);
        has |= mine;
        bool aliased = false;
        for (size_t k = 0; k < mi->n_function_aliases && !aliased; k++)
          aliased = mi->function_aliases[k]->key && !strcmp(mi->function_aliases[k]->key, cq) &&
                    mi->function_aliases[k]->value && !strcmp(mi->function_aliases[k]->value, alias);
        all &= aliased;
      }
      if (!has) continue;
      Val key = str_from_cstr(alias);
      rt_hold_val(key);
      if (all) {
        dict_set(d, key, objs[i]);
      } else {
        Val cur = dict_get(d, key);
        if (!val_is(cur, &list_type)) {
          val_decref(cur);
          cur = list_new(0);
          dict_set(d, key, cur);
        }
        Val f = sm_fn_new(m, cname, false);
        sm_fn_add((SmFn *)f.u.o, smodel_conc(m, cname));
        list_append(cur, f);
        val_decref(f);
        val_decref(cur);
      }
      val_decref(key);
    }
  }
  rt_unhold(mark);
  return d;
}

static Val sm_objects(SmModel *m, bool aliases) {
  const Tensorflow__MetaGraphDef *mg = m->msg->meta_graphs[0];
  const Tensorflow__SavedObjectGraph *og = mg->object_graph_def;
  size_t nn = og->n_nodes;
  Val *objs = calloc(nn, sizeof(Val));
  if (!objs) rt_throw(ERR_MEMORY, "out of memory");
  Val *const objsp = objs;
  tfs_i64 nobjs = (tfs_i64)nn;
  int mark = rt_hold_vals((Val *const *)&objsp, &nobjs);
  int vi = 0;
  for (size_t i = 0; i < nn; i++) {
    const Tensorflow__SavedObject *o = og->nodes[i];
    switch (o->kind_case) {
      case TENSORFLOW__SAVED_OBJECT__KIND_USER_OBJECT: {
        if (sm_is_list(o)) {   /* a ListWrapper comes back as a list of its children */
          objs[i] = list_new(0);
          break;
        }
        if (sm_is_dict(o)) {   /* a _DictWrapper as a dict of them */
          objs[i] = dict_new();
          break;
        }
        SmUser *u = obj_new(&sm_user_type, sizeof(SmUser));
        u->model = m;
        m->hdr.rc++;
        u->dict = dict_new();
        u->node = (int)i;
        objs[i] = val_obj(u);
        break;
      }
      case TENSORFLOW__SAVED_OBJECT__KIND_VARIABLE: objs[i] = val_incref(m->vars[vi++]); break;
      case TENSORFLOW__SAVED_OBJECT__KIND_FUNCTION: {
        const char *p = m->paths[i] ? strrchr(m->paths[i], '/') : NULL;
        objs[i] = sm_fn_new(m, p ? p + 1 : m->paths[i] ? m->paths[i] : "function", false);
        ((SmFn *)objs[i].u.o)->spec = o->function->function_spec;
        for (size_t q = 0; q < o->function->n_concrete_functions; q++) {
          SmConc *c = smodel_conc(m, o->function->concrete_functions[q]);
          if (!c) sm_corrupt(m, "function '%s' is not in the object graph", o->function->concrete_functions[q]);
          sm_fn_add((SmFn *)objs[i].u.o, c);
        }
        if (!((SmFn *)objs[i].u.o)->nconc) sm_corrupt(m, "a saved function has no concrete function");
        break;
      }
      default: objs[i] = val_none(); break;
    }
  }
  if (og->nodes[0]->kind_case != TENSORFLOW__SAVED_OBJECT__KIND_USER_OBJECT) sm_corrupt(m, "the root is not an object");
  for (size_t i = 0; i < nn; i++) {
    const Tensorflow__SavedObject *o = og->nodes[i];
    if (o->kind_case != TENSORFLOW__SAVED_OBJECT__KIND_USER_OBJECT) continue;
    for (size_t c = 0; c < o->n_children; c++) {
      if (o->children[c]->node_id < 0 || (size_t)o->children[c]->node_id >= nn) sm_corrupt(m, "a child refers to node %d of %zu", (int)o->children[c]->node_id, nn);
      if (!o->children[c]->local_name) sm_corrupt(m, "a child has no name");
      if (sm_is_list(o)) sm_set_item(objs[i], o->children[c]->local_name, objs[o->children[c]->node_id]);
      else if (sm_is_dict(o)) {
        Val key = str_from_cstr(o->children[c]->local_name);
        dict_set(objs[i], key, objs[o->children[c]->node_id]);
        val_decref(key);
      } else dict_set_str(&((SmUser *)objs[i].u.o)->dict, o->children[c]->local_name, objs[o->children[c]->node_id]);
    }
  }
  /* signatures: name -> the function its StatefulPartitionedCall node calls */
  Val sigs = dict_new();
  rt_hold_val(sigs);
  for (size_t i = 0; i < mg->n_signature_def; i++) {
    SmConc *c = smodel_signature(m, mg->signature_def[i]->key);
    if (!c) sm_corrupt(m, "signature '%s' calls no saved function", mg->signature_def[i]->key);
    Val f = sm_fn_new(m, mg->signature_def[i]->key, true);
    sm_fn_add((SmFn *)f.u.o, c);
    ((SmFn *)f.u.o)->keys = sm_sig_keys(m, mg->signature_def[i]->value, c);
    Val key = str_from_cstr(mg->signature_def[i]->key);
    dict_set(sigs, key, f);
    val_decref(key);
    val_decref(f);
  }
  dict_set_str(&((SmUser *)objs[0].u.o)->dict, "signatures", sigs);
  if (aliases) {
    Val al = sm_aliases(m, objs);
    dict_set_str(&((SmUser *)objs[0].u.o)->dict, "function_aliases", al);
    val_decref(al);
  }
  Val root = val_incref(objs[0]);
  rt_unhold(mark);
  val_decref(sigs);
  for (size_t i = 0; i < nn; i++) val_decref(objs[i]);
  free(objs);
  return root;
}

//! tf.saved_model.load(export_dir, tags=None, options=None)
//!   Loads a SavedModel directory written by tf.saved_model.save: its functions are callable by attribute name, its
//!   Variables restored, and signatures['serving_default'](x=...) returns {'output_0': tensor} (or the saved
//!   function's own keys when it returned a flat dict). A function saved with structured arguments matches a call
//!   against each concrete function's saved structure (else TF's "Could not find matching concrete function"
//!   ValueError). No source is needed.
static Val sm_load_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.saved_model.load", .sig = "export_dir, tags=None, options=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type))
    rt_throw(ERR_TYPE, "tf.saved_model.load: export_dir must be a string, not %s", val_type_name(a[0]));
  SmModel *m = smodel_read(str_cstr(a[0]));
  int mark = rt_hold_val(val_obj(m));
  bool aliases = false;
  if (a[2].tag != VT_NONE) {
    Val fl = rt_getattr(a[2], "experimental_load_function_aliases");
    aliases = rt_truthy(fl);
    val_decref(fl);
  }
  Val r = sm_objects(m, aliases);
  rt_unhold(mark);
  val_decref(val_obj(m));
  return r;
}

Val savedmodel_lookup(const char *name) {
  if (!strcmp(name, "save")) return builtin_new("tf.saved_model.save", sm_save_fn, val_undef(), NULL);
  if (!strcmp(name, "load")) return builtin_new("tf.saved_model.load", sm_load_fn, val_undef(), NULL);
  return val_undef();
}

/* ---- the C API's view (capi/) ---- */

SmModel *smodel_read(const char *dir) { return sm_read(dir); }

int smodel_num_signatures(const SmModel *m) { return (int)m->msg->meta_graphs[0]->n_signature_def; }

const char *smodel_signature_name(const SmModel *m, int i) {
  return i >= 0 && i < smodel_num_signatures(m) ? m->msg->meta_graphs[0]->signature_def[i]->key : NULL;
}

/* The function a signature's StatefulPartitionedCall node calls (its first output names the node). */
SmConc *smodel_signature(SmModel *m, const char *name) {
  const Tensorflow__MetaGraphDef *mg = m->msg->meta_graphs[0];
  for (size_t i = 0; i < mg->n_signature_def; i++) {
    if (!mg->signature_def[i]->key || strcmp(mg->signature_def[i]->key, name)) continue;
    const Tensorflow__SignatureDef *sd = mg->signature_def[i]->value;
    if (!sd || !sd->n_outputs || !sd->outputs[0]->value || !sd->outputs[0]->value->name) return NULL;
    char node[256];
    snprintf(node, sizeof node, "%s", sd->outputs[0]->value->name);
    char *colon = strrchr(node, ':');
    if (colon) *colon = 0;
    const Tensorflow__GraphDef *gd = mg->graph_def;
    for (size_t k = 0; k < gd->n_node; k++) {
      if (!gd->node[k]->name || strcmp(gd->node[k]->name, node)) continue;
      for (size_t a = 0; a < gd->node[k]->n_attr; a++)
        if (!strcmp(gd->node[k]->attr[a]->key, "f") && gd->node[k]->attr[a]->value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC)
          return smodel_conc(m, gd->node[k]->attr[a]->value->func->name);
    }
  }
  return NULL;
}

/* The key of signature `name`'s output i: the output whose tensor is "StatefulPartitionedCall...:i" (NULL if none). */
const char *smodel_signature_output(const SmModel *m, const char *name, int i) {
  const Tensorflow__MetaGraphDef *mg = m->msg->meta_graphs[0];
  for (size_t k = 0; k < mg->n_signature_def; k++) {
    if (!mg->signature_def[k]->key || strcmp(mg->signature_def[k]->key, name) || !mg->signature_def[k]->value) continue;
    const Tensorflow__SignatureDef *sd = mg->signature_def[k]->value;
    for (size_t j = 0; j < sd->n_outputs; j++) {
      const char *t = sd->outputs[j]->value ? sd->outputs[j]->value->name : NULL;
      const char *colon = t ? strrchr(t, ':') : NULL;
      if (colon && sd->outputs[j]->key && atoi(colon + 1) == i) return sd->outputs[j]->key;
    }
  }
  return NULL;
}

Graph *smodel_conc_graph(const SmConc *c) { return c->g; }
const char *smodel_conc_arg(const SmConc *c, int i) { return i >= 0 && i < c->nargs ? c->args[i] : NULL; }
