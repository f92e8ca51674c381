/* checkpoint.c — tf.train.Checkpoint (save, write, restore, read, save_counter, attributes) and the status a restore returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/iofile.h"
#include "dist/dist.h"
#include "modules/ckptgraph.h"
#include "modules/ckptstate.h"
#include "modules/modules.h"
#include "object/hosttypes.h"
#include "tensor/tensor.h"

/* ---- tf.train.Checkpoint ---- */

typedef struct Ckpt {
  Obj hdr;
  Val names;                  /* list of str: the constructor's sorted, then those assigned later */
  Val objs;                   /* list, parallel */
  Val counter;                /* the save_counter Variable, VT_UNDEF until first needed */
  Val root;                   /* root=: the object whose children are the checkpoint's (VT_UNDEF: none) */
  Val pending;                /* dict: values a restore kept for Variables attached later (VT_UNDEF: none) */
} Ckpt;

static const Type ckpt_type;

bool ckpt_is(Val v) { return val_is(v, &ckpt_type); }

Val *ckpt_pending(Val v) { return &((Ckpt *)v.u.o)->pending; }

void ckpt_each(Val v, CgEmit emit, void *ctx, Val keep) {
  Ckpt *c = (Ckpt *)v.u.o;
  if (!val_is_undef(c->root)) cg_each_child(c->root, emit, ctx, keep);
  tfs_i64 n;
  const Val *names, *objs;
  seq_items(c->names, &n, &names);
  seq_items(c->objs, &n, &objs);
  for (tfs_i64 i = 0; i < n; i++) emit(ctx, str_cstr(names[i]), objs[i]);
  if (!val_is_undef(c->counter)) emit(ctx, "save_counter", c->counter);
}

Val ckpt_counter(Val v) {
  Ckpt *c = (Ckpt *)v.u.o;
  if (val_is_undef(c->counter)) {
    Val zero = val_int(0), name = str_from_cstr("save_counter");
    int mark = rt_hold_val(name);
    c->counter = variable_new(zero, name, false, dtype_val(DT_INT64));
    rt_unhold(mark);
    val_decref(name);
  }
  return c->counter;
}

static void ckpt_free(Obj *o) {
  Ckpt *c = (Ckpt *)o;
  val_decref(c->names);
  val_decref(c->objs);
  val_decref(c->counter);
  val_decref(c->root);
  val_decref(c->pending);
  free(o);
}

static void ckpt_traverse(Obj *o, GcVisit visit, void *arg) {
  Ckpt *c = (Ckpt *)o;
  visit(c->names, true, arg);
  visit(c->objs, true, arg);
  if (!val_is_undef(c->counter)) visit(c->counter, true, arg);
  if (!val_is_undef(c->root)) visit(c->root, true, arg);
}

static void ckpt_clear(Obj *o) {
  Ckpt *c = (Ckpt *)o;
  Val a = c->objs, b = c->counter, r = c->root, p = c->pending;
  c->objs = list_new(0);
  c->counter = val_undef();
  c->root = val_undef();
  c->pending = val_undef();
  val_decref(p);
  val_decref(a);
  val_decref(b);
  val_decref(r);
}

static void ckpt_repr(StrBuf *b, Val v) { sb_printf(b, "<tensorflow.python.checkpoint.checkpoint.Checkpoint object at %p>", v.u.o); }

static Val ckpt_int(Val v) {
  int64_t n = 0;
  Tensor *t = val_as_tensor(v);
  if (t) n = tensor_get_i(t, 0);
  return val_int(n);
}

/* Save to exactly PREFIX (write) and return it as a str. */
Val ckpt_write_to(Val self, const char *prefix, const char *what) {
  char *dir = cstate_dir_of(prefix);
  int mark = rt_hold_mem(dir);
  /* with N > 1 the chief writes (§18.7; not a collective); another rank makes the directory only, as TF's save
   * would, so TF's multi-worker pattern (save to a worker's temp directory, then rmtree it) works */
  cstate_mkdirs(what, dir);
  if (dist_writes()) cg_save(what, self, prefix);
  rt_unhold(mark);
  free(dir);
  return str_from_cstr(prefix);
}

Val ckpt_bump(Val self) {
  Val c = ckpt_counter(self);
  Val one = val_int(1);
  variable_assign((Variable *)c.u.o, one, 1);
  return ckpt_int(c);
}

//! Checkpoint.save(file_prefix)
//!   Adds 1 to save_counter, writes FILE_PREFIX-N (.index + .data-00000-of-00001) and records it in the directory's
//!   `checkpoint` file; returns the path written. Under mpirun with N > 1 only the chief (rank 0) writes: another rank
//!   creates the directory only, as TF's save does, and returns the same path.
static Val ck_save(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Checkpoint.save", .sig = "file_prefix, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  const char *prefix = io_path_arg(a[0], "Checkpoint.save");
  Val num = ckpt_bump(self);
  char *path = malloc(strlen(prefix) + 32);
  if (!path) rt_throw(ERR_MEMORY, "out of memory");
  sprintf(path, "%s-%lld", prefix, (long long)num.u.i);
  int mark = rt_hold_mem(path);
  Val r = ckpt_write_to(self, path, "Checkpoint.save");
  rt_hold_val(r);
  char *dir = cstate_dir_of(prefix);
  rt_hold_mem(dir);
  cstate_write("Checkpoint.save", dir, path, 1, &path, NULL, 0);
  rt_unhold(mark);
  free(dir);
  free(path);
  return r;
}

//! Checkpoint.write(file_prefix)
//!   Writes the objects' Variables to exactly FILE_PREFIX (no counter, no `checkpoint` file); returns the path. Under
//!   mpirun with N > 1 only the chief writes; another rank creates the directory only.
static Val ck_write(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Checkpoint.write", .sig = "file_prefix, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return ckpt_write_to(self, io_path_arg(a[0], "Checkpoint.write"), "Checkpoint.write");
}

/* ---- the restore status ---- */

typedef struct CkStatus { Obj hdr; CgRestore *r; } CkStatus;
static const Type ckstatus_type;

static void cks_free(Obj *o) {
  cg_restore_free(((CkStatus *)o)->r);
  free(o);
}

static void cks_repr(StrBuf *b, Val v) {
  sb_printf(b, "<tensorflow.python.checkpoint.checkpoint.%s object at %p>",
            ((CkStatus *)v.u.o)->r ? "CheckpointLoadStatus" : "InitializationOnlyStatus", v.u.o);
}

/* "(root).a.b": a saved node's name as TF's pretty printer gives it (breadth first, first path). */
static char *saved_name(const Tensorflow__TrackableObjectGraph *g, int target) {
  int n = (int)g->n_nodes;
  int *parent = malloc(sizeof(int) * (size_t)n);
  const char **local = malloc(sizeof(char *) * (size_t)n);
  int *queue = malloc(sizeof(int) * (size_t)n);
  if (!parent || !local || !queue) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < n; i++) parent[i] = -2;
  parent[0] = -1;
  int qh = 0, qt = 0;
  queue[qt++] = 0;
  while (qh < qt) {
    int id = queue[qh++];
    for (size_t c = 0; c < g->nodes[id]->n_children; c++) {
      int k = g->nodes[id]->children[c]->node_id;
      if (k < 0 || k >= n || parent[k] != -2) continue;
      parent[k] = id;
      local[k] = g->nodes[id]->children[c]->local_name;
      queue[qt++] = k;
    }
  }
  StrBuf b;
  sb_init(&b);
  const char *parts[256];
  int np = 0;
  for (int k = target; k > 0 && parent[k] >= 0 && np < 256; k = parent[k]) parts[np++] = local[k];
  sb_puts(&b, "(root)");
  while (np) sb_printf(&b, ".%s", parts[--np]);
  free(parent);
  free(local);
  free(queue);
  return sb_steal(&b);
}

/* Live Variables reachable from the root that the restore did not match: a list. */
static Val unmatched_live(CgRestore *r) {
  CgGraph g;
  cg_build(&g, r->root);
  int mark = rt_hold_fn(cg_free, &g);
  Val out = list_new(0);
  for (int i = 0; i < g.nn; i++) {
    if (!val_is(g.n[i].obj, &variable_type) || cg_is_stand_in(&g, g.n[i].obj)) continue;
    bool found = false;
    for (int k = 0; k < r->nsaved && !found; k++) found = r->live[k].tag == VT_OBJ && r->live[k].u.o == g.n[i].obj.u.o;
    if (!found) list_append(out, g.n[i].obj);
  }
  rt_unhold(mark);
  cg_free(&g);
  return out;
}

static void assert_matched(CgRestore *r) {
  Val un = unmatched_live(r);
  int mark = rt_hold_val(un);
  tfs_i64 n;
  const Val *items;
  seq_items(un, &n, &items);
  if (n) {
    tfs_i64 show = n < 10 ? n : 10;
    Val part = list_new(show);
    rt_hold_val(part);
    for (tfs_i64 i = 0; i < show; i++) list_append(part, items[i]);
    Val rep = repr_of(part);
    rt_hold_val(rep);
    rt_throw(ERR_ASSERTION, "Found %lld Python objects that were not bound to checkpointed values, likely due to changes in "
             "the Python program. Showing %lld of %lld unmatched objects: %s", (long long)n, (long long)show, (long long)n,
             str_cstr(rep));
  }
  rt_unhold(mark);
  val_decref(un);
}

//! CheckpointLoadStatus.assert_consumed()
//!   Raises AssertionError unless every value in the checkpoint found its object and every Variable reachable from the
//!   Checkpoint was restored; returns the status.
static Val cks_assert_consumed(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "assert_consumed", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  CgRestore *r = ((CkStatus *)self.u.o)->r;
  if (!r) rt_throw(ERR_ASSERTION, "No checkpoint specified (save_path=None); nothing is being restored.");
  assert_matched(r);
  for (int i = 0; i < r->nsaved; i++) {
    const Tensorflow__TrackableObjectGraph__TrackableObject *node = r->saved->nodes[i];
    if (!node->n_attributes || !val_is_undef(r->live[i])) continue;
    char *name = saved_name(r->saved, i);
    rt_hold_mem(name);
    StrBuf b;
    sb_init(&b);
    rt_hold_sb(&b);
    pb_text(&b, &node->base, 0);
    rt_throw(ERR_ASSERTION, "Unresolved object in checkpoint %s: %s", name, b.data ? b.data : "");
  }
  return val_incref(self);
}

//! CheckpointLoadStatus.assert_existing_objects_matched()
//!   Raises AssertionError when a Variable reachable from the Checkpoint now got no value from the checkpoint
//!   (checkpoint values without an object are allowed); returns the status.
static Val cks_assert_existing(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "assert_existing_objects_matched", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  CgRestore *r = ((CkStatus *)self.u.o)->r;
  if (!r) rt_throw(ERR_ASSERTION, "No checkpoint specified (save_path=None); nothing is being restored.");
  assert_matched(r);
  return val_incref(self);
}

//! CheckpointLoadStatus.assert_nontrivial_match()
//!   Raises AssertionError when nothing but the root (and its save_counter) matched; returns the status.
static Val cks_assert_nontrivial(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "assert_nontrivial_match", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  CgRestore *r = ((CkStatus *)self.u.o)->r;
  int matched = 0;
  for (int i = 1; r && i < r->nsaved; i++)
    if (!val_is_undef(r->live[i]) && !ckpt_is(r->root)) matched++;
    else if (!val_is_undef(r->live[i]) && r->live[i].u.o != ((Ckpt *)r->root.u.o)->counter.u.o) matched++;
  if (!matched)
    rt_throw(ERR_ASSERTION, "Nothing except the root object matched a checkpointed value. Typically this means that the "
             "checkpoint does not match the Python program.");
  return val_incref(self);
}

//! CheckpointLoadStatus.expect_partial()
//!   Marks the restore as allowed to leave checkpoint values unused (TF then prints no warnings); returns the status.
//! CheckpointLoadStatus.run_restore_ops(session=None)
//!   Nothing to do eagerly: values are restored when restore() returns.
static Val cks_self(Val self, int n, const Val *args, const Kw *kw) {
  (void)n;
  (void)args;
  (void)kw;
  return val_incref(self);
}

static Val cks_getattr(Val self, const char *name) {
  if (!strcmp(name, "assert_consumed")) return builtin_new("assert_consumed", cks_assert_consumed, self, NULL);
  if (!strcmp(name, "assert_existing_objects_matched"))
    return builtin_new("assert_existing_objects_matched", cks_assert_existing, self, NULL);
  if (!strcmp(name, "assert_nontrivial_match")) return builtin_new("assert_nontrivial_match", cks_assert_nontrivial, self, NULL);
  if (!strcmp(name, "expect_partial")) return builtin_new("expect_partial", cks_self, self, NULL);
  if (!strcmp(name, "run_restore_ops")) return builtin_new("run_restore_ops", cks_self, self, NULL);
  return val_undef();
}

static const Type ckstatus_type = {
  .name = "CheckpointLoadStatus", .free = cks_free, .repr = cks_repr, .getattr = cks_getattr, .hash = obj_identity_hash,
};

Val ckpt_restore_from(Val self, Val path, const char *what) {
  CkStatus *s = obj_new(&ckstatus_type, sizeof(CkStatus));
  s->r = NULL;
  if (path.tag == VT_NONE || val_is_undef(path)) return val_obj(s);
  int mark = rt_hold_val(val_obj(s));
  s->r = cg_restore(what, self, io_path_arg(path, what));
  rt_unhold(mark);
  return val_obj(s);
}

//! Checkpoint.restore(save_path)
//!   Restores the Variables of the objects from SAVE_PATH (a prefix as save returned it) by matching TF's object
//!   graph, and returns a status (assert_consumed, assert_existing_objects_matched, expect_partial). save_path=None
//!   restores nothing. A missing checkpoint raises NotFoundError, a damaged one DataLossError.
static Val ck_restore(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Checkpoint.restore", .sig = "save_path, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return ckpt_restore_from(self, a[0], "Checkpoint.restore");
}

//! Checkpoint.read(save_path)
//!   Restores from exactly SAVE_PATH (as write wrote it); returns the status, as restore.
static Val ck_read(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Checkpoint.read", .sig = "save_path, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return ckpt_restore_from(self, a[0], "Checkpoint.read");
}

//! Checkpoint.save_counter
//!   The int64 Variable counting save() calls (made on first use; saved in the checkpoint as save_counter).
static Val ckpt_getattr(Val self, const char *name) {
  Ckpt *c = (Ckpt *)self.u.o;
  if (!strcmp(name, "save")) return builtin_new("Checkpoint.save", ck_save, self, NULL);
  if (!strcmp(name, "write")) return builtin_new("Checkpoint.write", ck_write, self, NULL);
  if (!strcmp(name, "restore")) return builtin_new("Checkpoint.restore", ck_restore, self, NULL);
  if (!strcmp(name, "read")) return builtin_new("Checkpoint.read", ck_read, self, NULL);
  if (!strcmp(name, "save_counter")) return val_incref(ckpt_counter(self));
  tfs_i64 n;
  const Val *names, *objs;
  seq_items(c->names, &n, &names);
  seq_items(c->objs, &n, &objs);
  for (tfs_i64 i = 0; i < n; i++)
    if (!strcmp(str_cstr(names[i]), name)) return val_incref(objs[i]);
  return val_undef();
}

/* TF's Checkpoint takes trackable objects only. */
static void ckpt_check_trackable(const char *name, Val v) {
  bool ok = v.tag == VT_OBJ && (val_is(v, &variable_type) || ckpt_is(v) || tfmodule_is(v) || val_is(v, &inst_type) ||
                                val_is(v, &list_type) || val_is(v, &dict_type));
  if (ok) return;
  Val r = repr_of(v);
  rt_hold_val(r);
  rt_throw(ERR_VALUE, "`Checkpoint` was expecting %s to be a trackable object (an object derived from `Trackable`), got "
           "%s. If you believe this object should be trackable (i.e. it is part of the TensorFlow Python API and "
           "manages state), please open an issue.", name, str_cstr(r));
}

/* ckpt.name = obj adds a dependency after those made so far (TF sorts only the constructor's keywords), or replaces
 * the one of that name in place, as TF's Checkpoint.__setattr__ tracks it. */
static void ckpt_setattr(Val self, const char *name, Val v) {
  Ckpt *c = (Ckpt *)self.u.o;
  static const char *const fixed[] = {"save", "write", "restore", "read", "save_counter"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (!strcmp(name, fixed[i])) rt_throw(ERR_ATTRIBUTE, "attribute '%s' of 'Checkpoint' objects is not writable", name);
  ckpt_check_trackable(name, v);
  List *nl = (List *)c->names.u.o, *ol = (List *)c->objs.u.o;
  for (tfs_i64 i = 0; i < nl->len; i++)
    if (!strcmp(str_cstr(nl->items[i]), name)) {
      Val old = ol->items[i];
      ol->items[i] = val_incref(v);
      val_decref(old);
      return;
    }
  Val key = str_from_cstr(name);
  list_append(c->names, key);
  val_decref(key);
  list_append(c->objs, v);
  cg_attach(self, name, v);   /* a Variable a restore is waiting for (TF's delayed restoration) */
}

static const Type ckpt_type = {
  .name = "Checkpoint", .free = ckpt_free, .repr = ckpt_repr, .getattr = ckpt_getattr, .setattr = ckpt_setattr,
  .hash = obj_identity_hash,
  .traverse = ckpt_traverse, .clear = ckpt_clear,
};

static int kw_cmp(const void *a, const void *b) { return strcmp(**(const char *const *const *)a, **(const char *const *const *)b); }

//! tf.train.Checkpoint(root=None, **objects)
//!   Groups trackable objects (Variables, tf.Modules, Keras models and optimizers, and other Checkpoints) under
//!   keyword names to save and restore together in TF's checkpoint format: keys name the path from the checkpoint
//!   ('model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE'); with root=, the root object's own children
//!   come first, unprefixed ('layer_with_weights-0/kernel/...'). Methods save, restore, write, read.
Val ckpt_new(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  (void)args;
  if (n > 1) rt_throw(ERR_TYPE, "Checkpoint.__init__() takes from 1 to 2 positional arguments but %d were given", n + 1);
  int nk = kw ? kw->n : 0;
  const char *const **order = malloc(sizeof(void *) * (size_t)(nk ? nk : 1));
  if (!order) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(order);
  for (int i = 0; i < nk; i++) order[i] = &kw->names[i];
  qsort(order, (size_t)nk, sizeof(void *), kw_cmp);
  Ckpt *c = obj_new(&ckpt_type, sizeof(Ckpt));
  c->names = list_new(nk);
  c->objs = list_new(nk);
  c->counter = val_undef();
  c->pending = val_undef();
  c->root = n == 1 ? val_incref(args[0]) : val_undef();
  rt_hold_val(val_obj(c));
  for (int k = 0; k < nk; k++) {
    int i = (int)(order[k] - kw->names);
    Val v = kw->vals[i];
    if (!strcmp(kw->names[i], "root")) {
      if (!val_is_undef(c->root)) rt_throw(ERR_TYPE, "Checkpoint.__init__() got multiple values for argument 'root'");
      c->root = val_incref(v);
      continue;
    }
    ckpt_check_trackable(kw->names[i], v);
    if (!strcmp(kw->names[i], "save_counter"))
      rt_throw(ERR_VALUE, "Checkpoint: 'save_counter' is the checkpoint's own counter and cannot name an object");
    Val s = str_from_cstr(kw->names[i]);
    list_append(c->names, s);
    val_decref(s);
    list_append(c->objs, v);
  }
  rt_unhold(mark);
  free(order);
  return val_obj(c);
}
