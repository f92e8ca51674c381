/* checkpoint.c — tf.train: Checkpoint, CheckpointManager, the restore status, list_variables / load_variable / load_checkpoint / latest_checkpoint, in TF's checkpoint format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "object/atomicfile.h"
#include "formats/iofile.h"
#include "modules/ckptgraph.h"
#include "modules/modules.h"
#include "object/hosttypes.h"
#include "tensor/tensor.h"

/* ---- paths and the `checkpoint` state file ---- */

static char *dir_of(const char *prefix) {
  const char *slash = strrchr(prefix, '/');
  if (!slash) return strdup(".");
  if (slash == prefix) return strdup("/");
  return strndup(prefix, (size_t)(slash - prefix));
}

static void mkdirs(const char *what, const char *dir) {
  char *p = strdup(dir);
  int mark = rt_hold_mem(p);
  for (char *s = p + 1; ; s++) {
    bool end = !*s;
    if (*s == '/' || end) {
      *s = 0;
      if (mkdir(p, 0777) && errno != EEXIST) rt_throw(ERR_IO, "%s: cannot create the directory %s: %s", what, p, strerror(errno));
      if (end) break;
      *s = '/';
    }
  }
  rt_unhold(mark);
  free(p);
}

static bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Python's repr of a float (the shortest text that reads back), as text_format prints a double. */
static void put_double(StrBuf *b, double v) {
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  sb_puts(b, buf);
}

/* The name in the state file: relative to the directory when inside it (save_relative_paths). */
static const char *rel_to(const char *dir, const char *path) {
  size_t n = strlen(dir);
  if (!strcmp(dir, ".") && !strchr(path, '/')) return path;
  if (!strncmp(path, dir, n) && path[n] == '/') return path + n + 1;
  return path;
}

/* Write DIR/checkpoint as TF's update_checkpoint_state does (a CheckpointState in text format). */
static void write_state(const char *what, const char *dir, const char *latest, int n, char *const *all, const double *stamps,
                        double preserved) {
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  sb_puts(&b, "model_checkpoint_path: ");
  const char *l = rel_to(dir, latest);
  str_repr_into(&b, l, (tfs_i64)strlen(l));
  sb_putc(&b, '\n');
  for (int i = 0; i < n; i++) {
    const char *a = rel_to(dir, all[i]);
    sb_puts(&b, "all_model_checkpoint_paths: ");
    str_repr_into(&b, a, (tfs_i64)strlen(a));
    sb_putc(&b, '\n');
  }
  for (int i = 0; stamps && i < n; i++) {
    sb_puts(&b, "all_model_checkpoint_timestamps: ");
    put_double(&b, stamps[i]);
    sb_putc(&b, '\n');
  }
  if (preserved > 0) {
    sb_puts(&b, "last_preserved_timestamp: ");
    put_double(&b, preserved);
    sb_putc(&b, '\n');
  }
  /* text_format quotes with double quotes; str_repr_into picked single ones */
  for (size_t i = 0; i < b.len; i++)
    if (b.data[i] == '\'') b.data[i] = '"';
  char *path = malloc(strlen(dir) + 16);
  if (!path) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(path);
  sprintf(path, "%s/checkpoint", dir);
  int e = af_write(path, b.data, b.len);
  if (e) rt_throw(ERR_IO, "%s: cannot write %s: %s", what, path, strerror(e));
  rt_unhold(mark);
  free(path);
  sb_free(&b);
}

/* The quoted values of `field:` lines in DIR/checkpoint (a list of str), or VT_UNDEF when there is no state file. */
static Val read_state(const char *dir, const char *field) {
  char *path = malloc(strlen(dir) + 16);
  if (!path) rt_throw(ERR_MEMORY, "out of memory");
  sprintf(path, "%s/checkpoint", dir);
  int mark = rt_hold_mem(path);
  if (!file_exists(path)) {
    rt_unhold(mark);
    free(path);
    return val_undef();
  }
  tfs_i64 len;
  char *text = io_read_bytes(path, "tf.train.latest_checkpoint", &len, false);
  rt_hold_mem(text);
  Val out = list_new(0);
  rt_hold_val(out);
  size_t fl = strlen(field);
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    while (*line == ' ') line++;
    if (!strncmp(line, field, fl) && line[fl] == ':') {
      char *q = strchr(line + fl, '"');
      char *e = q ? strrchr(q + 1, '"') : NULL;
      if (q && e) {
        Val s = str_new(q + 1, (tfs_i64)(e - q - 1));
        list_append(out, s);
        val_decref(s);
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  rt_unhold(mark);
  free(text);
  free(path);
  return out;
}

/* DIR joined with a state-file path unless that is absolute. */
static Val join_dir(const char *dir, const char *p) {
  if (p[0] == '/') return str_from_cstr(p);
  StrBuf b;
  sb_init(&b);
  sb_printf(&b, "%s/%s", dir, p);
  Val r = str_new(b.data, (tfs_i64)b.len);
  sb_free(&b);
  return r;
}

/* tf.train.latest_checkpoint's answer: DIR/<model_checkpoint_path> when its .index exists, else None. */
static Val latest_in(const char *dir) {
  Val l = read_state(dir, "model_checkpoint_path");
  if (val_is_undef(l)) return val_none();
  int mark = rt_hold_val(l);
  tfs_i64 n;
  const Val *items;
  seq_items(l, &n, &items);
  Val r = val_none();
  if (n > 0) {
    Val p = join_dir(dir, str_cstr(items[n - 1]));
    char *idx = malloc((size_t)str_len(p) + 8);
    if (!idx) rt_throw(ERR_MEMORY, "out of memory");
    sprintf(idx, "%s.index", str_cstr(p));
    if (file_exists(idx)) r = p;
    else val_decref(p);
    free(idx);
  }
  rt_unhold(mark);
  val_decref(l);
  return r;
}

static const char *path_arg(Val v, const char *what) { return io_path_arg(v, what); }

/* ---- tf.train.Checkpoint ---- */

typedef struct Ckpt {
  Obj hdr;
  Val names;                  /* list of str: the constructor's sorted, then those assigned later */
  Val objs;                   /* list, parallel */
  Val counter;                /* the save_counter Variable, VT_UNDEF until first needed */
  Val root;                   /* root=: the object whose children are the checkpoint's (VT_UNDEF: none) */
} Ckpt;

static const Type ckpt_type;

bool ckpt_is(Val v) { return val_is(v, &ckpt_type); }

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
  Val a = c->objs, b = c->counter, r = c->root;
  c->objs = list_new(0);
  c->counter = val_undef();
  c->root = val_undef();
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
static Val ckpt_write_to(Val self, const char *prefix, const char *what) {
  char *dir = dir_of(prefix);
  int mark = rt_hold_mem(dir);
  mkdirs(what, dir);
  cg_save(what, self, prefix);
  rt_unhold(mark);
  free(dir);
  return str_from_cstr(prefix);
}

static Val ckpt_bump(Val self) {
  Val c = ckpt_counter(self);
  Val one = val_int(1);
  variable_assign((Variable *)c.u.o, one, 1);
  return ckpt_int(c);
}

//! Checkpoint.save(file_prefix)
//!   Adds 1 to save_counter, writes FILE_PREFIX-N (.index + .data-00000-of-00001) and records it in the directory's
//!   `checkpoint` file; returns the path written.
static Val ck_save(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Checkpoint.save", .sig = "file_prefix, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  const char *prefix = path_arg(a[0], "Checkpoint.save");
  Val num = ckpt_bump(self);
  char *path = malloc(strlen(prefix) + 32);
  if (!path) rt_throw(ERR_MEMORY, "out of memory");
  sprintf(path, "%s-%lld", prefix, (long long)num.u.i);
  int mark = rt_hold_mem(path);
  Val r = ckpt_write_to(self, path, "Checkpoint.save");
  rt_hold_val(r);
  char *dir = dir_of(prefix);
  rt_hold_mem(dir);
  write_state("Checkpoint.save", dir, path, 1, &path, NULL, 0);
  rt_unhold(mark);
  free(dir);
  free(path);
  return r;
}

//! Checkpoint.write(file_prefix)
//!   Writes the objects' Variables to exactly FILE_PREFIX (no counter, no `checkpoint` file); returns the path.
static Val ck_write(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "Checkpoint.write", .sig = "file_prefix, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return ckpt_write_to(self, path_arg(a[0], "Checkpoint.write"), "Checkpoint.write");
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

static Val ckpt_restore_from(Val self, Val path, const char *what) {
  CkStatus *s = obj_new(&ckstatus_type, sizeof(CkStatus));
  s->r = NULL;
  if (path.tag == VT_NONE || val_is_undef(path)) return val_obj(s);
  int mark = rt_hold_val(val_obj(s));
  s->r = cg_restore(what, self, path_arg(path, what));
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
static Val ckpt_new(Val self, int n, const Val *args, const Kw *kw) {
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

/* ---- tf.train.CheckpointManager ---- */

typedef struct CkManager {
  Obj hdr;
  Val ckpt;
  char *dir, *prefix;
  int max_to_keep;            /* -1: None (keep all) */
  Val kept;                   /* list of str, oldest first */
  double *stamps;             /* parallel to kept */
  Val latest;                 /* str or None */
  double preserved;
  Val init_fn;                /* init_fn= (None: none) */
} CkManager;

static const Type ckmanager_type;

static void ckm_free(Obj *o) {
  CkManager *m = (CkManager *)o;
  val_decref(m->ckpt);
  val_decref(m->kept);
  val_decref(m->latest);
  val_decref(m->init_fn);
  free(m->dir);
  free(m->prefix);
  free(m->stamps);
  free(o);
}

static void ckm_traverse(Obj *o, GcVisit visit, void *arg) {
  CkManager *m = (CkManager *)o;
  visit(m->ckpt, true, arg);
  visit(m->kept, true, arg);
  visit(m->init_fn, true, arg);
}

static void ckm_clear(Obj *o) {
  CkManager *m = (CkManager *)o;
  Val c = m->ckpt, f = m->init_fn;
  m->ckpt = val_none();
  m->init_fn = val_none();
  val_decref(c);
  val_decref(f);
}

static void ckm_repr(StrBuf *b, Val v) {
  sb_printf(b, "<tensorflow.python.checkpoint.checkpoint_management.CheckpointManager object at %p>", v.u.o);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void ckm_record(CkManager *m) {
  tfs_i64 n;
  const Val *items;
  seq_items(m->kept, &n, &items);
  char **paths = malloc(sizeof(char *) * (size_t)(n ? n : 1));
  if (!paths) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(paths);
  for (tfs_i64 i = 0; i < n; i++) paths[i] = (char *)str_cstr(items[i]);
  write_state("CheckpointManager.save", m->dir, str_cstr(m->latest), (int)n, paths, m->stamps, m->preserved);
  rt_unhold(mark);
  free(paths);
}

static void remove_bundle(const char *prefix) {
  size_t n = strlen(prefix) + 32;
  char *p = malloc(n);
  if (!p) rt_throw(ERR_MEMORY, "out of memory");
  snprintf(p, n, "%s.index", prefix);
  unlink(p);
  snprintf(p, n, "%s.data-00000-of-00001", prefix);
  unlink(p);
  free(p);
}

//! CheckpointManager.save(checkpoint_number=None)
//!   Adds 1 to the checkpoint's save_counter, writes DIRECTORY/ckpt-N (N: checkpoint_number, else the counter),
//!   deletes the oldest checkpoints beyond max_to_keep and rewrites DIRECTORY/checkpoint; returns the path.
static Val ckm_save(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "CheckpointManager.save", .sig = "checkpoint_number=None, check_interval=True, options=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  CkManager *m = (CkManager *)self.u.o;
  Val num = ckpt_bump(m->ckpt);
  if (a[0].tag != VT_NONE && !val_is_undef(a[0])) {
    Tensor *t = val_as_tensor(a[0]);
    int64_t k;
    if (t) k = tensor_get_i(t, 0);
    else if (!val_as_int(a[0], &k)) rt_throw(ERR_TYPE, "CheckpointManager.save: checkpoint_number must be an integer");
    num = val_int(k);
  }
  char *path = malloc(strlen(m->prefix) + 32);
  if (!path) rt_throw(ERR_MEMORY, "out of memory");
  sprintf(path, "%s-%lld", m->prefix, (long long)num.u.i);
  int mark = rt_hold_mem(path);
  Val r = ckpt_write_to(m->ckpt, path, "CheckpointManager.save");
  rt_hold_val(r);
  /* a path saved again moves to the end of the queue */
  tfs_i64 nk;
  const Val *items;
  seq_items(m->kept, &nk, &items);
  Val kept = list_new(nk + 1);
  rt_hold_val(kept);
  double *stamps = malloc(sizeof(double) * (size_t)(nk + 1));
  if (!stamps) rt_throw(ERR_MEMORY, "out of memory");
  int k = 0;
  for (tfs_i64 i = 0; i < nk; i++)
    if (strcmp(str_cstr(items[i]), path)) {
      list_append(kept, items[i]);
      stamps[k++] = m->stamps[i];
    }
  list_append(kept, r);
  stamps[k++] = now_seconds();
  /* the oldest beyond max_to_keep go */
  int drop = m->max_to_keep >= 0 && k > m->max_to_keep ? k - m->max_to_keep : 0;
  seq_items(kept, &nk, &items);
  for (int i = 0; i < drop; i++) remove_bundle(str_cstr(items[i]));
  Val left = list_new(k - drop);
  for (int i = drop; i < k; i++) list_append(left, items[i]);
  memmove(stamps, stamps + drop, sizeof(double) * (size_t)(k - drop));
  val_decref(m->kept);
  m->kept = left;
  free(m->stamps);
  m->stamps = stamps;
  val_decref(m->latest);
  m->latest = val_incref(r);
  ckm_record(m);
  rt_unhold(mark);
  val_decref(kept);
  free(path);
  return r;
}

//! CheckpointManager.restore_or_initialize()
//!   Restores the latest checkpoint and returns its path; without one, calls init_fn (if given) and returns None.
static Val ckm_restore_or_init(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "CheckpointManager.restore_or_initialize", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  CkManager *m = (CkManager *)self.u.o;
  if (m->latest.tag != VT_NONE) {
    val_decref(ckpt_restore_from(m->ckpt, m->latest, "CheckpointManager.restore_or_initialize"));
    return val_incref(m->latest);
  }
  if (m->init_fn.tag != VT_NONE) val_decref(rt_call(m->init_fn, 0, NULL, NULL));
  return val_none();
}

static Val ckm_getattr(Val self, const char *name) {
  CkManager *m = (CkManager *)self.u.o;
  if (!strcmp(name, "save")) return builtin_new("CheckpointManager.save", ckm_save, self, NULL);
  if (!strcmp(name, "restore_or_initialize"))
    return builtin_new("CheckpointManager.restore_or_initialize", ckm_restore_or_init, self, NULL);
  if (!strcmp(name, "latest_checkpoint")) return val_incref(m->latest);
  if (!strcmp(name, "checkpoints")) return list_from_iterable(m->kept);
  if (!strcmp(name, "directory")) return str_from_cstr(m->dir);
  if (!strcmp(name, "checkpoint")) return val_incref(m->ckpt);
  if (!strcmp(name, "max_to_keep")) return m->max_to_keep < 0 ? val_none() : val_int(m->max_to_keep);
  return val_undef();
}

//! CheckpointManager.latest_checkpoint | CheckpointManager.checkpoints | CheckpointManager.directory
//!   The newest checkpoint's path (None before the first save), the kept paths oldest first, the directory.
static const Type ckmanager_type = {
  .name = "CheckpointManager", .free = ckm_free, .repr = ckm_repr, .getattr = ckm_getattr, .hash = obj_identity_hash,
  .traverse = ckm_traverse, .clear = ckm_clear,
};

//! tf.train.CheckpointManager(checkpoint, directory, max_to_keep, checkpoint_name='ckpt', init_fn=None)
//!   Saves `checkpoint` as DIRECTORY/ckpt-N keeping the newest max_to_keep (None: all), and picks up the checkpoints
//!   an earlier manager recorded in DIRECTORY/checkpoint. Attributes latest_checkpoint, checkpoints, directory;
//!   restore_or_initialize() restores the latest or calls init_fn.
static Val ckm_new(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.train.CheckpointManager",
                         .sig = "checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None, "
                                "checkpoint_name='ckpt', step_counter=None, checkpoint_interval=None, init_fn=None"};
  Val a[8];
  args_parse(&spec, n, args, kw, a);
  if (!ckpt_is(a[0]))
    rt_throw(ERR_TYPE, "CheckpointManager: checkpoint must be a tf.train.Checkpoint, not %s", val_type_name(a[0]));
  int64_t keep = -1;
  if (a[2].tag != VT_NONE && !val_as_int(a[2], &keep)) rt_throw(ERR_TYPE, "max_to_keep must be an integer or None");
  if (a[2].tag != VT_NONE && keep <= 0)
    rt_throw(ERR_VALUE, "Expected a positive integer or `None` for `max_to_keep`, got %lld.", (long long)keep);
  const char *dir = path_arg(a[1], "tf.train.CheckpointManager");
  const char *cname = val_is(a[4], &str_type) ? str_cstr(a[4]) : "ckpt";
  CkManager *m = obj_new(&ckmanager_type, sizeof(CkManager));
  m->ckpt = val_incref(a[0]);
  m->dir = strdup(dir);
  m->max_to_keep = (int)keep;
  m->kept = list_new(0);
  m->latest = val_none();
  m->preserved = now_seconds();
  m->init_fn = val_incref(val_is_undef(a[7]) ? val_none() : a[7]);
  int mark = rt_hold_val(val_obj(m));
  m->prefix = malloc(strlen(dir) + strlen(cname) + 2);
  if (!m->prefix) rt_throw(ERR_MEMORY, "out of memory");
  sprintf(m->prefix, "%s/%s", dir, cname);
  Val old = read_state(dir, "all_model_checkpoint_paths");
  if (!val_is_undef(old)) {   /* recover what an earlier run kept */
    rt_hold_val(old);
    tfs_i64 k;
    const Val *items;
    seq_items(old, &k, &items);
    m->stamps = malloc(sizeof(double) * (size_t)(k ? k : 1));
    if (!m->stamps) rt_throw(ERR_MEMORY, "out of memory");
    for (tfs_i64 i = 0; i < k; i++) {
      Val p = join_dir(dir, str_cstr(items[i]));
      list_append(m->kept, p);
      val_decref(p);
      m->stamps[i] = m->preserved;
    }
    val_decref(m->latest);
    m->latest = latest_in(dir);
  }
  rt_unhold(mark);
  if (!val_is_undef(old)) val_decref(old);
  return val_obj(m);
}

/* ---- reading checkpoints without objects ---- */

/* A checkpoint argument: a prefix, or a directory whose latest checkpoint is meant (owned str). */
static Val resolve(Val arg, const char *what) {
  const char *p = path_arg(arg, what);
  struct stat st;
  if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
    Val l = latest_in(p);
    if (l.tag == VT_NONE) rt_throw(ERR_VALUE, "Couldn't find 'checkpoint' file or checkpoints in given directory %s", p);
    return l;
  }
  return str_from_cstr(p);
}

//! tf.train.latest_checkpoint(checkpoint_dir)
//!   The path of the newest checkpoint recorded in CHECKPOINT_DIR/checkpoint, or None when there is none.
static Val tr_latest(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.train.latest_checkpoint", .sig = "checkpoint_dir, latest_filename=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return latest_in(path_arg(a[0], "tf.train.latest_checkpoint"));
}

//! tf.train.list_variables(ckpt_dir_or_file)
//!   The (key, shape) pairs a checkpoint holds, sorted by key (shape as a list), the object graph included.
static Val tr_list(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.train.list_variables", .sig = "ckpt_dir_or_file"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Val p = resolve(a[0], "tf.train.list_variables");
  int mark = rt_hold_val(p);
  TbReader *r = tb_open("tf.train.list_variables", str_cstr(p));
  rt_hold_fn(tb_close, r);
  Val out = list_new(r->n);
  rt_hold_val(out);
  for (int i = 0; i < r->n; i++) {
    const Tensorflow__BundleEntryProto *e = r->entries[i];
    Val shape = list_new(0);
    for (size_t d = 0; e->shape && d < e->shape->n_dim; d++) {
      Val x = val_int(e->shape->dim[d]->size);
      list_append(shape, x);
    }
    Val name = str_from_cstr(r->keys[i]);
    Val t = tuple_pack(2, name, shape);
    list_append(out, t);
    val_decref(t);
    val_decref(name);
    val_decref(shape);
  }
  rt_unhold(mark);
  tb_close(r);
  val_decref(p);
  return out;
}

static Val numpy_of(Tensor *t) {
  Val tv = tensor_val(t);
  int mark = rt_hold_val(tv);
  Val f = rt_getattr(tv, "numpy");
  rt_hold_val(f);
  Val r = rt_call(f, 0, NULL, NULL);
  rt_unhold(mark);
  val_decref(f);
  val_decref(tv);
  return r;
}

static Val load_key(const char *what, const char *prefix, const char *key) {
  TbReader *r = tb_open(what, prefix);
  int mark = rt_hold_fn(tb_close, r);
  char *k = strdup(key);
  rt_hold_mem(k);
  size_t kl = strlen(k);
  if (kl > 2 && !strcmp(k + kl - 2, ":0")) k[kl - 2] = 0;
  int i = tb_find(r, k);
  if (i < 0) rt_throw(ERR_NOT_FOUND, "Key %s not found in checkpoint", k);
  Tensor *t = tb_tensor(r, i, what);
  rt_unhold(mark);
  free(k);
  tb_close(r);
  return numpy_of(t);
}

//! tf.train.load_variable(ckpt_dir_or_file, name)
//!   The value stored under NAME (a checkpoint key) as a NumPy array.
static Val tr_load_variable(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.train.load_variable", .sig = "ckpt_dir_or_file, name"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[1], &str_type)) rt_throw(ERR_TYPE, "tf.train.load_variable: name must be a str");
  Val p = resolve(a[0], "tf.train.load_variable");
  int mark = rt_hold_val(p);
  Val r = load_key("tf.train.load_variable", str_cstr(p), str_cstr(a[1]));
  rt_unhold(mark);
  val_decref(p);
  return r;
}

/* tf.train.load_checkpoint's reader: get_tensor, has_tensor, get_variable_to_shape_map. */
typedef struct CkReader { Obj hdr; char *prefix; } CkReader;
static const Type ckreader_type;

static void ckr_free(Obj *o) {
  free(((CkReader *)o)->prefix);
  free(o);
}

static void ckr_repr(StrBuf *b, Val v) {
  sb_printf(b, "<tensorflow.python.training.py_checkpoint_reader.CheckpointReader object at %p>", v.u.o);
}

//! CheckpointReader.get_tensor(name) | CheckpointReader.has_tensor(name) | CheckpointReader.get_variable_to_shape_map()
//!   A key's value as a NumPy array; whether the checkpoint holds a key; a dict key -> shape (list).
static Val ckr_get_tensor(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "get_tensor", .sig = "tensor_str"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "get_tensor: the key must be a str");
  return load_key("get_tensor", ((CkReader *)self.u.o)->prefix, str_cstr(a[0]));
}

static Val ckr_has_tensor(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "has_tensor", .sig = "tensor_str"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "has_tensor: the key must be a str");
  TbReader *r = tb_open("has_tensor", ((CkReader *)self.u.o)->prefix);
  bool has = tb_find(r, str_cstr(a[0])) >= 0;
  tb_close(r);
  return val_bool(has);
}

static Val ckr_shape_map(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  if (n) rt_throw(ERR_TYPE, "get_variable_to_shape_map() takes no arguments");
  Val p = str_from_cstr(((CkReader *)self.u.o)->prefix);
  int mark = rt_hold_val(p);
  Val l = tr_list(val_undef(), 1, &p, NULL);
  rt_hold_val(l);
  Val d = dict_new();
  tfs_i64 k;
  const Val *items;
  seq_items(l, &k, &items);
  for (tfs_i64 i = 0; i < k; i++) dict_set(d, ((Tuple *)items[i].u.o)->items[0], ((Tuple *)items[i].u.o)->items[1]);
  rt_unhold(mark);
  val_decref(l);
  val_decref(p);
  return d;
}

static Val ckr_getattr(Val self, const char *name) {
  if (!strcmp(name, "get_tensor")) return builtin_new("get_tensor", ckr_get_tensor, self, NULL);
  if (!strcmp(name, "has_tensor")) return builtin_new("has_tensor", ckr_has_tensor, self, NULL);
  if (!strcmp(name, "get_variable_to_shape_map")) return builtin_new("get_variable_to_shape_map", ckr_shape_map, self, NULL);
  return val_undef();
}

static const Type ckreader_type = {
  .name = "CheckpointReader", .free = ckr_free, .repr = ckr_repr, .getattr = ckr_getattr, .hash = obj_identity_hash,
};

//! tf.train.load_checkpoint(ckpt_dir_or_file)
//!   A CheckpointReader over a checkpoint (a prefix or a directory's latest): get_tensor, has_tensor,
//!   get_variable_to_shape_map.
static Val tr_load_checkpoint(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.train.load_checkpoint", .sig = "ckpt_dir_or_file"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Val p = resolve(a[0], "tf.train.load_checkpoint");
  int mark = rt_hold_val(p);
  tb_close(tb_open("tf.train.load_checkpoint", str_cstr(p)));   /* TF's reader opens the file at once */
  CkReader *r = obj_new(&ckreader_type, sizeof(CkReader));
  r->prefix = strdup(str_cstr(p));
  rt_unhold(mark);
  val_decref(p);
  return val_obj(r);
}

Val checkpoint_lookup(const char *name) {
  static const struct { const char *name, *qual; BuiltinFn fn; } fns[] = {
    {"Checkpoint", "tf.train.Checkpoint", ckpt_new},
    {"CheckpointManager", "tf.train.CheckpointManager", ckm_new},
    {"latest_checkpoint", "tf.train.latest_checkpoint", tr_latest},
    {"list_variables", "tf.train.list_variables", tr_list},
    {"load_variable", "tf.train.load_variable", tr_load_variable},
    {"load_checkpoint", "tf.train.load_checkpoint", tr_load_checkpoint},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(name, fns[i].name)) return builtin_new(fns[i].qual, fns[i].fn, val_undef(), NULL);
  return val_undef();
}
