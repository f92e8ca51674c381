/* ckptgraph.c — TF's object graph of a checkpoint: which objects own which Variables, under TF's names, saved and matched back.
 *
 * TF walks the objects a checkpoint names breadth first from its root; each
 * object is a node (once, by identity) whose checkpoint key is the path of
 * local names that first reached it, each name escaped ('.' -> '..', '/' ->
 * '.S'), then /.ATTRIBUTES/VARIABLE_VALUE for a Variable's value.  The
 * children of an object are, as in TF: a tf.Module's attributes in
 * assignment order (Variables, modules, and lists / tuples / dicts holding
 * them, named by index or key); a Keras layer's weights by their short names
 * and its public attributes; a Sequential or functional model's layers as
 * layer_with_weights-N (layers with weights, counted apart) and layer-N; a
 * Keras optimizer's _iterations and _variables (the iteration count, then the
 * slots in creation order).  Restoring walks the saved graph from the root,
 * finding each saved child among the live object's children by name. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/ckptgraph.h"
#include "object/abi.h"
#include "modules/modules.h"
#include "object/hooks.h"
#include "object/hosttypes.h"
#include "tensor/tensor.h"

#define CG_GRAPH_KEY "_CHECKPOINTABLE_OBJECT_GRAPH"

static bool inst_has(Val v, const char *attr) {
  if (!val_is(v, &inst_type)) return false;
  Val x = dict_get_str(((Inst *)v.u.o)->dict, attr);
  bool has = !val_is_undef(x);
  val_decref(x);
  return has;
}

static bool is_keras_layer(Val v) { return tfmodule_is(v) && inst_has(v, "_own_weights"); }
static bool is_keras_optimizer(Val v) { return inst_has(v, "_slot_vars") && inst_has(v, "iterations"); }

static bool trackable(Val v, int depth) {
  if (v.tag != VT_OBJ || depth > 50) return false;
  if (val_is(v, &variable_type) || ckpt_is(v) || tfmodule_is(v) || is_keras_optimizer(v)) return true;
  /* TF wraps every list and dict an attribute (or a wrapped container) takes in a ListWrapper / _DictWrapper, itself
   * a node even when empty or holding only numbers; a tuple only when it holds one of those (_should_wrap_tuple) */
  if (val_is(v, &list_type) || val_is(v, &dict_type)) return true;
  tfs_i64 n;
  const Val *items;
  if (val_is(v, &tuple_type) && seq_items(v, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++)
      if (trackable(items[i], depth + 1)) return true;
  }
  return false;
}

/* A Variable's name without its scope and output index: 'dense/kernel:0' -> 'kernel'. */
static char *short_name(PbArena *a, const Variable *v) {
  const char *s = v->name ? v->name : "Variable:0";
  const char *slash = strrchr(s, '/');
  if (slash) s = slash + 1;
  char *r = pa_strdup(a, s);
  char *colon = strrchr(r, ':');
  if (colon) *colon = 0;
  return r;
}

/* The attributes of an instance in assignment order that hold trackable values (skip_private: Keras' own state). */
static void each_attr(Val obj, bool skip_private, CgEmit emit, void *ctx) {
  Val d = ((Inst *)obj.u.o)->dict;
  if (val_is_undef(d)) return;
  Val keys = dict_keys_list(d);
  int mark = rt_hold_val(keys);
  tfs_i64 n;
  const Val *ks;
  seq_items(keys, &n, &ks);
  for (tfs_i64 i = 0; i < n; i++) {
    if (!val_is(ks[i], &str_type)) continue;
    const char *name = str_cstr(ks[i]);
    if (skip_private && name[0] == '_') continue;
    Val v = dict_get(d, ks[i]);
    if (val_is_undef(v)) continue;
    int m = rt_hold_val(v);
    if (trackable(v, 0)) emit(ctx, name, v);
    rt_unhold(m);
    val_decref(v);
  }
  rt_unhold(mark);
  val_decref(keys);
}

static void each_child(Val obj, CgEmit emit, void *ctx, Val keep);

void cg_dict_key_error(Val dict) {
  Val r = repr_of(dict);
  rt_hold_val(r);
  rt_throw(ERR_VALUE,
           "Unable to save the object DictWrapper(%s) (a dictionary wrapper constructed automatically on attribute "
           "assignment). The wrapped dictionary contains a non-string key which maps to a trackable object or "
           "mutable data structure.\n\nIf you don't need this dictionary checkpointed, wrap it in a non-trackable "
           "object; it will be subsequently ignored.",
           str_cstr(r));
}

/* A Keras layer's children by name once: `self.kernel = self.add_weight("kernel", ...)` makes the weight a
 * dependency twice under one name, which TF records once (Trackable._track_trackable overwrites by name). */
typedef struct Once { CgEmit emit; void *ctx; PbArena *a; const char **names; int n; } Once;

static void once_emit(void *ctx, const char *name, Val child) {
  Once *o = ctx;
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->names[i], name)) return;
  const char **nn = pa_alloc(o->a, sizeof(char *) * (size_t)(o->n + 1));
  if (o->n) memcpy(nn, o->names, sizeof(char *) * (size_t)o->n);
  nn[o->n++] = pa_strdup(o->a, name);
  o->names = nn;
  o->emit(o->ctx, name, child);
}

/* Every child of obj in TF's order.  Keras properties run library code, which moves the current
 * location: errors raised afterwards still belong to the caller's line. */
void cg_each_child(Val obj, CgEmit emit, void *ctx, Val keep) {
  int loc = rt_cur_loc;
  each_child(obj, emit, ctx, keep);
  rt_cur_loc = loc;
}

static void each_child(Val obj, CgEmit emit, void *ctx, Val keep) {
  char num[32];
  if (ckpt_is(obj)) {
    ckpt_each(obj, emit, ctx, keep);
    return;
  }
  if (val_is(obj, &variable_type)) return;
  tfs_i64 n;
  const Val *items;
  if (seq_items(obj, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++)
      if (trackable(items[i], 0)) {
        snprintf(num, sizeof num, "%lld", (long long)i);
        emit(ctx, num, items[i]);
      }
    return;
  }
  if (val_is(obj, &dict_type)) {
    Val keys = dict_keys_list(obj);
    int mark = rt_hold_val(keys);
    seq_items(keys, &n, &items);
    for (tfs_i64 i = 0; i < n; i++) {
      Val v = dict_get(obj, items[i]);
      int m = rt_hold_val(v);
      if (trackable(v, 0) && !val_is(items[i], &str_type)) cg_dict_key_error(obj);   /* TF's _DictWrapper refuses it */
      if (trackable(v, 0)) emit(ctx, str_cstr(items[i]), v);
      rt_unhold(m);
      val_decref(v);
    }
    rt_unhold(mark);
    val_decref(keys);
    return;
  }
  if (is_keras_optimizer(obj)) {
    Val it = rt_getattr(obj, "iterations");
    int mark = rt_hold_val(it);
    emit(ctx, "_iterations", it);
    /* Keras keeps the learning rate in a float32 Variable; tfs in a number: saved through a Variable made for the
     * walk, linked to its optimizer (a (variable, optimizer) pair in keep) so a restore can set the number back */
    Val lr = rt_getattr(obj, "learning_rate"), name = val_undef(), var = val_undef();
    rt_hold_val(lr);
    double d;
    if (val_as_float(lr, &d)) {
      name = str_from_cstr("learning_rate");
      rt_hold_val(name);
      var = variable_new(val_float(d), name, false, dtype_val(DT_FLOAT32));
      rt_hold_val(var);
      Val link = tuple_pack(2, var, obj);
      list_append(keep, link);
      val_decref(link);
      emit(ctx, "_learning_rate", var);
    }
    Val slots = rt_getattr(obj, "_slot_vars");
    rt_hold_val(slots);
    Val all = list_new(0);
    list_append(keep, all);
    val_decref(all);
    list_append(all, it);
    list_extend(all, slots);
    emit(ctx, "_variables", all);
    rt_unhold(mark);
    val_decref(slots);
    val_decref(it);
    val_decref(lr);
    val_decref(name);
    val_decref(var);
    return;
  }
  if (is_keras_layer(obj)) {
    if (inst_has(obj, "_layers") || inst_has(obj, "_fn_order")) {   /* Sequential / functional: layers by position */
      Val layers = rt_getattr(obj, "layers");
      int mark = rt_hold_val(layers);
      int withw = 0;
      if (seq_items(layers, &n, &items))
        for (tfs_i64 i = 0; i < n; i++) {
          Val w = rt_getattr(items[i], "weights");
          tfs_i64 nw = 0;
          const Val *wi;
          bool has = seq_items(w, &nw, &wi) && nw > 0;
          val_decref(w);
          if (has) {
            snprintf(num, sizeof num, "layer_with_weights-%d", withw++);
            emit(ctx, num, items[i]);
          }
          snprintf(num, sizeof num, "layer-%lld", (long long)i);
          emit(ctx, num, items[i]);
        }
      rt_unhold(mark);
      val_decref(layers);
    }
    Val own = rt_getattr(obj, "_own_weights");
    int mark = rt_hold_val(own);
    PbArena a = {0};
    rt_hold_fn((void (*)(void *))pa_free, &a);
    Once once = {emit, ctx, &a, NULL, 0};
    if (seq_items(own, &n, &items))
      for (tfs_i64 i = 0; i < n; i++)
        if (val_is(items[i], &variable_type)) once_emit(&once, short_name(&a, (Variable *)items[i].u.o), items[i]);
    each_attr(obj, true, once_emit, &once);
    rt_unhold(mark);
    pa_free(&a);
    val_decref(own);
    return;
  }
  if (tfmodule_is(obj)) each_attr(obj, false, emit, ctx);
}

/* ---- the live graph ---- */

static char *escape(PbArena *a, const char *name) {
  size_t n = strlen(name), k = 0;
  char *s = pa_alloc(a, 2 * n + 1);
  for (size_t i = 0; i < n; i++) {
    if (name[i] == '.') s[k++] = '.', s[k++] = '.';
    else if (name[i] == '/') s[k++] = '.', s[k++] = 'S';
    else s[k++] = name[i];
  }
  s[k] = 0;
  return s;
}

static int cg_find(const CgGraph *g, Val v) {
  for (int i = 0; i < g->nn; i++)
    if (g->n[i].obj.u.o == v.u.o) return i;
  return -1;
}

static int cg_add(CgGraph *g, Val obj, int parent, const char *name, const char *path) {
  if (g->nn == g->cap) {
    int cap = g->cap ? 2 * g->cap : 16;
    CgNode *n = realloc(g->n, sizeof(CgNode) * (size_t)cap);
    if (!n) rt_throw(ERR_MEMORY, "out of memory");
    g->n = n;
    g->cap = cap;
  }
  CgNode *n = &g->n[g->nn];
  memset(n, 0, sizeof *n);
  n->obj = val_incref(obj);
  n->parent = parent;
  n->name = name;
  n->path = path;
  return g->nn++;
}

typedef struct Emit { CgGraph *g; int parent; } Emit;

void cg_link(CgGraph *g, int parent, int kid, const char *name) {
  CgNode *p = &g->n[parent];
  int *k = pa_alloc(&g->a, sizeof(int) * (size_t)(p->nkids + 1));
  const char **kn = pa_alloc(&g->a, sizeof(char *) * (size_t)(p->nkids + 1));
  if (p->nkids) {
    memcpy(k, p->kids, sizeof(int) * (size_t)p->nkids);
    memcpy(kn, p->kidnames, sizeof(char *) * (size_t)p->nkids);
  }
  k[p->nkids] = kid;
  kn[p->nkids] = pa_strdup(&g->a, name);
  p->kids = k;
  p->kidnames = kn;
  p->nkids++;
}

int cg_node(CgGraph *g, Val obj, const char *path) {
  if (!g->n) g->keep = list_new(0);
  return cg_add(g, obj, -1, "", pa_strdup(&g->a, path));
}

static void build_emit(void *ctx, const char *name, Val child) {
  Emit *e = ctx;
  CgGraph *g = e->g;
  int id = cg_find(g, child);
  if (id < 0) {
    const char *pp = g->n[e->parent].path;
    const char *path = *pp ? pa_printf(&g->a, "%s/%s", pp, escape(&g->a, name)) : escape(&g->a, name);
    id = cg_add(g, child, e->parent, pa_strdup(&g->a, name), path);
  }
  cg_link(g, e->parent, id, name);
}

void cg_build(CgGraph *g, Val root) {
  memset(g, 0, sizeof *g);
  g->keep = list_new(0);
  cg_add(g, root, -1, "", "");
  for (int i = 0; i < g->nn; i++) {
    Emit e = {g, i};
    cg_each_child(g->n[i].obj, build_emit, &e, g->keep);
  }
}

bool cg_is_stand_in(const CgGraph *g, Val v) {
  tfs_i64 n;
  const Val *kept;
  if (!seq_items(g->keep, &n, &kept)) return false;
  for (tfs_i64 i = 0; i < n; i++)
    if (val_is(kept[i], &tuple_type) && ((Tuple *)kept[i].u.o)->items[0].u.o == v.u.o) return true;
  return false;
}

void cg_free(void *p) {
  CgGraph *g = p;
  for (int i = 0; i < g->nn; i++) val_decref(g->n[i].obj);
  free(g->n);
  val_decref(g->keep);
  pa_free(&g->a);
  memset(g, 0, sizeof *g);
}

const char *cg_key(CgGraph *g, int node) { return pa_printf(&g->a, "%s/.ATTRIBUTES/VARIABLE_VALUE", g->n[node].path); }

/* ---- saving ---- */

static bool has_values(const CgGraph *g, int i, int depth) {
  if (val_is(g->n[i].obj, &variable_type)) return true;
  if (depth > g->nn) return false;
  for (int k = 0; k < g->n[i].nkids; k++)
    if (g->n[i].kids[k] != i && has_values(g, g->n[i].kids[k], depth + 1)) return true;
  return false;
}

void cg_save(const char *what, Val root, const char *prefix) {
  CgGraph g;
  cg_build(&g, root);
  int mark = rt_hold_fn(cg_free, &g);
  cg_write(what, &g, prefix);
  rt_unhold(mark);
  cg_free(&g);
}

void cg_write(const char *what, CgGraph *g, const char *prefix) {
  Tensorflow__TrackableObjectGraph og;
  tensorflow__trackable_object_graph__init(&og);
  og.n_nodes = (size_t)g->nn;
  og.nodes = pa_alloc(&g->a, sizeof(void *) * (size_t)g->nn);
  const char **keys = pa_alloc(&g->a, sizeof(char *) * (size_t)(g->nn + 1));
  Tensor **ts = pa_alloc(&g->a, sizeof(Tensor *) * (size_t)(g->nn + 1));
  int nt = 0;
  for (int i = 0; i < g->nn; i++) {
    Tensorflow__TrackableObjectGraph__TrackableObject *o = pa_alloc(&g->a, sizeof *o);
    tensorflow__trackable_object_graph__trackable_object__init(o);
    og.nodes[i] = o;
    o->n_children = (size_t)g->n[i].nkids;
    o->children = pa_alloc(&g->a, sizeof(void *) * (size_t)(g->n[i].nkids + 1));
    for (int k = 0; k < g->n[i].nkids; k++) {
      Tensorflow__TrackableObjectGraph__TrackableObject__ObjectReference *r = pa_alloc(&g->a, sizeof *r);
      tensorflow__trackable_object_graph__trackable_object__object_reference__init(r);
      r->node_id = g->n[i].kids[k];
      r->local_name = (char *)g->n[i].kidnames[k];
      o->children[k] = r;
    }
    o->has_checkpoint_values = pa_alloc(&g->a, sizeof *o->has_checkpoint_values);
    tensorflow__checkpoint_bool_value__init(o->has_checkpoint_values);
    o->has_checkpoint_values->value = has_values(g, i, 0);
    if (!val_is(g->n[i].obj, &variable_type)) continue;
    Variable *v = variable_storage(g->n[i].obj.u.o);
    Tensorflow__TrackableObjectGraph__TrackableObject__SerializedTensor *st = pa_alloc(&g->a, sizeof *st);
    tensorflow__trackable_object_graph__trackable_object__serialized_tensor__init(st);
    st->name = "VARIABLE_VALUE";
    const char *own = ((Variable *)g->n[i].obj.u.o)->name;   /* an _UnreadVariable's: 'UnreadVariable' */
    char *full = pa_strdup(&g->a, own ? own : "Variable:0");
    char *colon = strrchr(full, ':');
    if (colon) *colon = 0;
    st->full_name = full;
    st->checkpoint_key = (char *)cg_key(g, i);
    o->n_attributes = 1;
    o->attributes = pa_alloc(&g->a, sizeof(void *));
    o->attributes[0] = st;
    keys[nt] = st->checkpoint_key;
    ts[nt++] = v->value;
  }
  size_t len = protobuf_c_message_get_packed_size(&og.base);
  char *buf = pa_alloc(&g->a, len + 1);
  protobuf_c_message_pack(&og.base, (uint8_t *)buf);
  Tensor *graph = tensor_scalar(DT_STRING);
  ((Str **)graph->buf->data)[0] = (Str *)str_new(buf, (tfs_i64)len).u.o;
  keys[nt] = CG_GRAPH_KEY;
  ts[nt++] = graph;
  int mark = rt_hold_val(tensor_val(graph));
  tb_write(what, prefix, nt, keys, ts);
  rt_unhold(mark);
  tensor_release(graph);
}

/* ---- restoring ---- */

typedef struct Pick { const char *name; Val found; } Pick;

static void pick_emit(void *ctx, const char *name, Val child) {
  Pick *p = ctx;
  if (val_is_undef(p->found) && !strcmp(name, p->name)) p->found = val_incref(child);
}

Val cg_child(Val obj, const char *name, Val keep) {
  if (ckpt_is(obj) && !strcmp(name, "save_counter")) return val_incref(ckpt_counter(obj));
  Pick p = {name, val_undef()};
  cg_each_child(obj, pick_emit, &p, keep);
  return p.found;
}

void cg_restore_free(CgRestore *r) {
  if (!r) return;
  for (int i = 0; i < r->nsaved; i++) val_decref(r->live[i]);
  free(r->live);
  if (r->saved) tensorflow__trackable_object_graph__free_unpacked(r->saved, NULL);
  val_decref(r->root);
  free(r);
}

/* A saved value into a live Variable: TF's messages when the shape or dtype differs. */
static void assign_checked(Variable *v, Tensor *t) {
  Tensor *cur = variable_storage(&v->hdr)->value;
  bool same = cur->rank == t->rank;
  for (int d = 0; same && d < t->rank; d++) same = cur->shape[d] == t->shape[d];
  if (!same || cur->dtype != t->dtype) {
    StrBuf a, b;
    sb_init(&a);
    sb_init(&b);
    rt_hold_sb(&a);
    rt_hold_sb(&b);
    shape_format(&a, t->rank, t->shape);
    shape_format(&b, cur->rank, cur->shape);
    if (!same)
      rt_throw(ERR_VALUE, "Received incompatible tensor with shape %s when attempting to restore variable with shape %s and "
               "name %s.", a.data, b.data, v->name ? v->name : "Variable:0");
    rt_throw(ERR_VALUE, "Received tensor of dtype %s when attempting to restore variable of dtype %s and name %s.",
             dtype_info[t->dtype].name, dtype_info[cur->dtype].name, v->name ? v->name : "Variable:0");
  }
  variable_assign(v, tensor_val(t), 0);
}

static void restore_var(const char *what, TbReader *rd, Variable *v, const char *key) {
  int i = tb_find(rd, key);
  if (i < 0) rt_throw(ERR_NOT_FOUND, "Key %s not found in checkpoint", key);
  Tensor *t = tb_tensor(rd, i, what);
  int mark = rt_hold_val(tensor_val(t));
  assign_checked(v, t);
  rt_unhold(mark);
  tensor_release(t);
}

/* The dict of values a restore kept for owner's Variables not made yet (owned; VT_UNDEF: none, unless make): a
 * Checkpoint's own, else the object's _deferred attribute (which Keras' add_weight / add_slot read too). */
static Val pending_of(Val owner, bool make) {
  Val *slot = ckpt_is(owner) ? ckpt_pending(owner) : NULL;
  Val d = slot ? val_incref(*slot) : dict_get_str(((Inst *)owner.u.o)->dict, "_deferred");
  if (!val_is_undef(d) || !make) return d;
  d = dict_new();
  if (slot) *slot = val_incref(d);
  else dict_set_str(&((Inst *)owner.u.o)->dict, "_deferred", d);
  return d;
}

void cg_attach(Val obj, const char *name, Val v) {
  if (!val_is(v, &variable_type) || !(ckpt_is(obj) || val_is(obj, &inst_type))) return;
  Val pending = pending_of(obj, false);
  if (val_is_undef(pending)) return;
  int mark = rt_hold_val(pending);
  Val value = dict_get_str(pending, name);
  if (!val_is_undef(value)) {
    rt_hold_val(value);
    Val key = str_from_cstr(name);
    rt_hold_val(key);
    dict_del(pending, key);
    assign_checked((Variable *)v.u.o, val_as_tensor(value));
    rt_unhold(mark);
    val_decref(key);
    val_decref(value);
  }
  rt_unhold(mark);
  val_decref(pending);
}

TbReader *cg_open(const char *what, const char *prefix) {
  TbReader *rd = NULL;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    rd = tb_open(what, prefix);
    rt_try_pop(&t);
    return rd;
  }
  if (t.kind != ERR_NOT_FOUND) rt_rethrow(&t);
  /* TF names the path it was given and the usual mistake */
  Val msg = str_from_cstr(t.msg ? t.msg : "");
  rt_hold_val(msg);
  rt_try_clear(&t);
  rt_throw(ERR_NOT_FOUND, "Error when restoring from checkpoint or SavedModel at %s: %s\nPlease double-check that the path "
           "is correct. You may be missing the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').", prefix,
           str_cstr(msg));
}

/* A saved Variable whose object does not exist yet under a Keras layer or optimizer (a layer not built, slots not made):
 * its value waits in the owner's _deferred dict under its local name, for add_weight / add_slot to take (as TF's
 * deferred restoration).  True when kept. */
static bool defer_value(const char *what, TbReader *rd, Val owner, const Tensorflow__TrackableObjectGraph__TrackableObject *node,
                        const char *local) {
  if (!(tfmodule_is(owner) || ckpt_is(owner) || is_keras_optimizer(owner)) || node->n_attributes != 1 || !node->attributes[0]->name ||
      strcmp(node->attributes[0]->name, "VARIABLE_VALUE"))
    return false;
  int i = tb_find(rd, node->attributes[0]->checkpoint_key ? node->attributes[0]->checkpoint_key : "");
  if (i < 0) return false;
  Tensor *t = tb_tensor(rd, i, what);
  int mark = rt_hold_val(tensor_val(t));
  Val pending = pending_of(owner, true);
  rt_hold_val(pending);
  Val key = str_from_cstr(local);
  rt_hold_val(key);
  dict_set(pending, key, tensor_val(t));
  rt_obj_hooks.attr_set = cg_attach;
  rt_unhold(mark);
  val_decref(key);
  val_decref(pending);
  tensor_release(t);
  return true;
}

CgRestore *cg_restore(const char *what, Val root, const char *prefix) {
  TbReader *rd = cg_open(what, prefix);
  int mark = rt_hold_fn(tb_close, rd);
  int gi = tb_find(rd, CG_GRAPH_KEY);
  if (gi < 0)
    rt_throw(ERR_INVALID_ARGUMENT, "%s: the checkpoint %s has no object graph (%s): a name-based (TF1) checkpoint, which "
             "tfs does not restore", what, prefix, CG_GRAPH_KEY);
  Tensor *gt = tb_tensor(rd, gi, what);
  rt_hold_val(tensor_val(gt));
  if (gt->dtype != DT_STRING || gt->size != 1)
    rt_throw(ERR_DATA_LOSS, "%s: %s in %s is not a string scalar", what, CG_GRAPH_KEY, prefix);
  Str *s = ((Str **)gt->buf->data)[gt->offset];
  CgRestore *r = calloc(1, sizeof *r);
  if (!r) rt_throw(ERR_MEMORY, "out of memory");
  r->root = val_incref(root);
  rt_hold_fn((void (*)(void *))cg_restore_free, r);
  r->saved = tensorflow__trackable_object_graph__unpack(NULL, s ? (size_t)s->len : 0, (const uint8_t *)(s ? s->data : ""));
  if (!r->saved || r->saved->n_nodes == 0)
    rt_throw(ERR_DATA_LOSS, "%s: the object graph in %s cannot be parsed", what, prefix);
  r->nsaved = (int)r->saved->n_nodes;
  r->live = malloc(sizeof(Val) * (size_t)r->nsaved);
  if (!r->live) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < r->nsaved; i++) r->live[i] = val_undef();
  r->live[0] = val_incref(root);
  int *queue = malloc(sizeof(int) * (size_t)r->nsaved);
  Val *owner = calloc((size_t)r->nsaved, sizeof(Val));   /* per saved node: the Keras object it belongs to (borrowed) */
  if (!queue || !owner) {
    free(queue);
    free(owner);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  rt_hold_mem(queue);
  rt_hold_mem(owner);
  Val keep = list_new(0);
  rt_hold_val(keep);
  int qh = 0, qt = 0;
  queue[qt++] = 0;
  while (qh < qt) {
    int id = queue[qh++];
    const Tensorflow__TrackableObjectGraph__TrackableObject *node = r->saved->nodes[id];
    Val live = r->live[id];
    for (size_t a = 0; a < node->n_attributes; a++) {
      const char *key = node->attributes[a]->checkpoint_key;
      if (val_is(live, &variable_type) && node->attributes[a]->name && !strcmp(node->attributes[a]->name, "VARIABLE_VALUE"))
        restore_var(what, rd, (Variable *)live.u.o, key ? key : "");
    }
    for (size_t c = 0; c < node->n_children; c++) {
      int kid = node->children[c]->node_id;
      if (kid < 0 || kid >= r->nsaved)
        rt_throw(ERR_DATA_LOSS, "%s: the object graph in %s names node %d of %d", what, prefix, kid, r->nsaved);
      if (!val_is_undef(r->live[kid])) continue;
      const char *local = node->children[c]->local_name ? node->children[c]->local_name : "";
      Val child = cg_child(live, local, keep);
      Val own = is_keras_layer(live) || is_keras_optimizer(live) ? live : owner[id];
      if (val_is_undef(child)) {
        /* a plain tf.Module or a Checkpoint keeps the value itself, for the Variable it attaches later */
        Val at = (tfmodule_is(live) && !is_keras_layer(live)) || ckpt_is(live) ? live : own;
        if (at.tag == VT_OBJ) defer_value(what, rd, at, r->saved->nodes[kid], local);
        continue;
      }
      r->live[kid] = child;
      owner[kid] = own;
      queue[qt++] = kid;
    }
  }
  /* learning rates restored through their stand-in Variables go back to their optimizers */
  tfs_i64 nk;
  const Val *kept;
  seq_items(keep, &nk, &kept);
  for (tfs_i64 i = 0; i < nk; i++) {
    if (!val_is(kept[i], &tuple_type) || ((Tuple *)kept[i].u.o)->len != 2) continue;
    Val var = ((Tuple *)kept[i].u.o)->items[0];
    for (int k = 0; k < r->nsaved; k++)
      if (r->live[k].tag == VT_OBJ && r->live[k].u.o == var.u.o) {
        rt_setattr(((Tuple *)kept[i].u.o)->items[1], "learning_rate",
                   val_float(tensor_get_f(variable_storage(var.u.o)->value, 0)));
        break;
      }
  }
  rt_unhold(mark);
  free(queue);
  free(owner);
  val_decref(keep);
  tensor_release(gt);
  tb_close(rd);
  return r;
}
