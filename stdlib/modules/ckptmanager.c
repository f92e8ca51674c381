/* ckptmanager.c — tf.train.CheckpointManager, and reading checkpoints without objects: latest_checkpoint, list_variables, load_variable, load_checkpoint; the tf.train namespace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/iofile.h"
#include "formats/tensorbundle.h"
#include "modules/ckptgraph.h"
#include "modules/ckptstate.h"
#include "modules/modules.h"
#include "object/hosttypes.h"
#include "tensor/tensor.h"

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

static void ckm_record(CkManager *m) {
  tfs_i64 n;
  const Val *items;
  seq_items(m->kept, &n, &items);
  char **paths = malloc(sizeof(char *) * (size_t)(n ? n : 1));
  if (!paths) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(paths);
  for (tfs_i64 i = 0; i < n; i++) paths[i] = (char *)str_cstr(items[i]);
  cstate_write("CheckpointManager.save", m->dir, str_cstr(m->latest), (int)n, paths, m->stamps, m->preserved);
  rt_unhold(mark);
  free(paths);
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
  stamps[k++] = cstate_now();
  /* the oldest beyond max_to_keep go */
  int drop = m->max_to_keep >= 0 && k > m->max_to_keep ? k - m->max_to_keep : 0;
  seq_items(kept, &nk, &items);
  for (int i = 0; i < drop; i++) cstate_remove(str_cstr(items[i]));
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
  const char *dir = io_path_arg(a[1], "tf.train.CheckpointManager");
  const char *cname = val_is(a[4], &str_type) ? str_cstr(a[4]) : "ckpt";
  CkManager *m = obj_new(&ckmanager_type, sizeof(CkManager));
  m->ckpt = val_incref(a[0]);
  m->dir = strdup(dir);
  m->max_to_keep = (int)keep;
  m->kept = list_new(0);
  m->latest = val_none();
  m->preserved = cstate_now();
  m->init_fn = val_incref(val_is_undef(a[7]) ? val_none() : a[7]);
  int mark = rt_hold_val(val_obj(m));
  m->prefix = malloc(strlen(dir) + strlen(cname) + 2);
  if (!m->prefix) rt_throw(ERR_MEMORY, "out of memory");
  sprintf(m->prefix, "%s/%s", dir, cname);
  Val old = cstate_read(dir, "all_model_checkpoint_paths");
  if (!val_is_undef(old)) {   /* recover what an earlier run kept */
    rt_hold_val(old);
    tfs_i64 k;
    const Val *items;
    seq_items(old, &k, &items);
    m->stamps = malloc(sizeof(double) * (size_t)(k ? k : 1));
    if (!m->stamps) rt_throw(ERR_MEMORY, "out of memory");
    for (tfs_i64 i = 0; i < k; i++) {
      Val p = cstate_join(dir, str_cstr(items[i]));
      list_append(m->kept, p);
      val_decref(p);
      m->stamps[i] = m->preserved;
    }
    val_decref(m->latest);
    m->latest = cstate_latest(dir);
  }
  rt_unhold(mark);
  if (!val_is_undef(old)) val_decref(old);
  return val_obj(m);
}

/* ---- reading checkpoints without objects ---- */

/* A checkpoint argument: a prefix, or a directory whose latest checkpoint is meant (owned str). */
static Val resolve(Val arg, const char *what) {
  const char *p = io_path_arg(arg, what);
  struct stat st;
  if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
    Val l = cstate_latest(p);
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
  return cstate_latest(io_path_arg(a[0], "tf.train.latest_checkpoint"));
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

//! CheckpointReader.get_variable_to_dtype_map()
//!   A dict key -> tf.DType of each tensor the checkpoint holds (the object graph's is tf.string).
static Val ckr_dtype_map(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  (void)args;
  if (n) rt_throw(ERR_TYPE, "get_variable_to_dtype_map() takes no arguments");
  TbReader *r = tb_open("get_variable_to_dtype_map", ((CkReader *)self.u.o)->prefix);
  int mark = rt_hold_fn(tb_close, r);
  Val d = dict_new();
  rt_hold_val(d);
  for (int i = 0; i < r->n; i++) {
    int dt = tb_entry_dtype(r, i);
    if (dt < 0) rt_throw(ERR_UNIMPLEMENTED, "get_variable_to_dtype_map: '%s' has a dtype tfs does not have", r->keys[i]);
    Val name = str_from_cstr(r->keys[i]), v = dtype_val((DType)dt);
    dict_set(d, name, v);
    val_decref(name);
    val_decref(v);
  }
  val_incref(d);
  rt_unhold(mark);
  val_decref(d);
  tb_close(r);
  return d;
}

static Val ckr_getattr(Val self, const char *name) {
  if (!strcmp(name, "get_variable_to_dtype_map")) return builtin_new("get_variable_to_dtype_map", ckr_dtype_map, self, NULL);
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
