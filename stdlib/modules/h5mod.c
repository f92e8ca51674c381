/* h5mod.c — `_h5`: HDF5 files (runtime/formats/h5file.c over libhdf5) for the Keras saving code in stdlib/keras_saving.tfs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/h5file.h"
#include "modules/modules.h"
#include "object/atomicfile.h"
#include "object/object.h"
#include "object/value.h"

/* A file being written: closed and its temporary removed if an error unwinds. */
typedef struct {
  H5File f;
  char *tmp;
} Job;

static void job_release(void *p) {
  Job *j = p;
  if (j->f >= 0) h5_close(j->f);
  j->f = -1;
  if (j->tmp) af_abort(j->tmp);
  j->tmp = NULL;
}

static const char *item_str(Val item, int k, const char *what) {
  tfs_i64 n;
  const Val *items;
  seq_items(item, &n, &items);
  if (k >= n || !val_is(items[k], &str_type)) rt_throw(ERR_TYPE, "_h5.write: %s must be a str", what);
  return str_cstr(items[k]);
}

/* One entry: ("g", path) | ("a", obj, name, str | bytes | [str] | array) | ("d", path, array); 0 or -1 with err.
 * A str is stored as h5py stores a str (variable-length UTF-8), bytes and lists as it stores bytes (fixed-length). */
static int write_item(H5File f, Val item, char *err, size_t errn) {
  tfs_i64 len;
  const Val *items;
  if (!seq_items(item, &len, &items)) rt_throw(ERR_TYPE, "_h5.write: each entry is a tuple");
  const char *kind = item_str(item, 0, "the entry kind");
  if (!strcmp(kind, "g")) return h5_group(f, item_str(item, 1, "a group path"), err, errn);
  if (!strcmp(kind, "d")) {
    if (len != 3) rt_throw(ERR_TYPE, "_h5.write: ('d', path, array)");
    Tensor *t = val_as_tensor(items[2]);
    if (!t || t->sym) rt_throw(ERR_TYPE, "_h5.write: the dataset '%s' is not a concrete array", item_str(item, 1, "path"));
    Tensor *c = tensor_contiguous(t);
    int rc = h5_dataset(f, item_str(item, 1, "a dataset path"), c, err, errn);
    tensor_release(c);
    return rc;
  }
  if (strcmp(kind, "a") || len != 4) rt_throw(ERR_TYPE, "_h5.write: entries are ('g', path), ('a', obj, name, value), ('d', path, array)");
  const char *obj = item_str(item, 1, "an object path"), *name = item_str(item, 2, "an attribute name");
  Val v = items[3];
  if (val_is(v, &str_type)) {
    const char *s = str_cstr(v);
    return h5_attr_strings(f, obj, name, &s, 1, true, true, err, errn);
  }
  if (val_is(v, &bytes_type)) {
    size_t len;
    const char *d = bytes_data(v, &len);
    char *s = strndup(d, len);
    int mark = rt_hold_mem(s);
    int rc = h5_attr_strings(f, obj, name, (const char *const *)&s, 1, true, false, err, errn);
    rt_unhold(mark);
    free(s);
    return rc;
  }
  if (val_is(v, &list_type)) {
    const List *vs = (const List *)v.u.o;
    const char **ss = malloc(sizeof *ss * (size_t)(vs->len ? vs->len : 1));
    int mark = rt_hold_mem(ss);
    for (tfs_i64 i = 0; i < vs->len; i++) {
      if (!val_is(vs->items[i], &str_type)) rt_throw(ERR_TYPE, "_h5.write: the attribute '%s' must hold strings", name);
      ss[i] = str_cstr(vs->items[i]);
    }
    int rc = h5_attr_strings(f, obj, name, ss, (int)vs->len, false, false, err, errn);
    rt_unhold(mark);
    free(ss);
    return rc;
  }
  Tensor *t = val_as_tensor(v);
  if (!t || t->sym) rt_throw(ERR_TYPE, "_h5.write: the attribute '%s' must be a str, a list of str or an array", name);
  Tensor *c = tensor_contiguous(t);
  int rc = h5_attr_tensor(f, obj, name, c, err, errn);
  tensor_release(c);
  return rc;
}

static void write_entries(Job *job, Val entries, const char *path) {
  tfs_i64 n;
  const Val *items;
  seq_items(entries, &n, &items);
  char err[512];
  for (tfs_i64 i = 0; i < n; i++)
    if (write_item(job->f, items[i], err, sizeof err) < 0) rt_throw(ERR_IO, "Unable to write '%s': %s", path, err);
}

/* _h5.write(path, entries): the whole file written beside path and renamed into place (all or nothing);
 * with path None, the file's bytes (an in-memory file, for a .keras archive). */
static Val h5_write(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 2 || (kw && kw->n) || !(val_is(args[0], &str_type) || (args[0].tag == VT_NONE)) || !val_is(args[1], &list_type))
    rt_throw(ERR_TYPE, "_h5.write(path, entries)");
  if ((args[0].tag == VT_NONE)) {
    Job job = {h5_create_mem(), NULL};
    if (job.f < 0) rt_throw(ERR_IO, "Unable to create an in-memory HDF5 file");
    int mark = rt_hold_fn(job_release, &job);
    write_entries(&job, args[1], "model.weights.h5");
    size_t len = 0;
    void *img = h5_image(job.f, &len);
    rt_unhold(mark);
    job_release(&job);
    if (!img) rt_throw(ERR_IO, "Unable to write 'model.weights.h5'");
    Val out = bytes_new(img, len);
    free(img);
    return out;
  }
  const char *path = str_cstr(args[0]);
  Job job = {-1, af_temp_for(path)};
  if (!job.tmp) exc_os_error(errno, path);
  int mark = rt_hold_fn(job_release, &job);
  job.f = h5_create(job.tmp);
  if (job.f < 0) exc_os_error(errno ? errno : EIO, path);
  write_entries(&job, args[1], path);
  int closed = h5_close(job.f);
  job.f = -1;
  if (closed < 0) rt_throw(ERR_IO, "Unable to write '%s'", path);
  char *tmp = job.tmp;
  job.tmp = NULL;
  rt_unhold(mark);
  int e = af_commit(tmp, path);
  if (e) exc_os_error(e, path);
  return val_none();
}

/* ---- reading: the file as the same entries ------------------------------------------------- */

static void add(Val out, Val entry) {
  list_append(out, entry);
  val_decref(entry);
}

static void on_group(void *ctx, const char *path) {
  Val k = str_from_cstr("g"), p = str_from_cstr(path);
  add(*(Val *)ctx, tuple_pack(2, k, p));
  val_decref(k), val_decref(p);
}

static void on_entry(Val out, const char *kind, const char *obj, const char *name, Val v) {
  Val k = str_from_cstr(kind), o = str_from_cstr(obj);
  if (name) {
    Val nm = str_from_cstr(name);
    add(out, tuple_pack(4, k, o, nm, v));
    val_decref(nm);
  } else {
    add(out, tuple_pack(3, k, o, v));
  }
  val_decref(k), val_decref(o), val_decref(v);
}

static void on_strings(void *ctx, const char *obj, const char *name, char **v, int n, bool scalar) {
  Val val;
  if (scalar) {
    val = str_from_cstr(v[0]);
  } else {
    val = list_new(n);
    for (int i = 0; i < n; i++) {
      Val s = str_from_cstr(v[i]);
      list_append(val, s);
      val_decref(s);
    }
  }
  on_entry(*(Val *)ctx, "a", obj, name, val);
}

static void on_attr_tensor(void *ctx, const char *obj, const char *name, Tensor *t) {
  /* an empty numeric attribute is how h5py stores an empty list (Keras's weight_names of a layer without weights) */
  on_entry(*(Val *)ctx, "a", obj, name, t->rank == 1 && t->shape[0] == 0 ? list_new(0) : ndarray_new(t));
}

static void on_dataset(void *ctx, const char *path, Tensor *t) { on_entry(*(Val *)ctx, "d", path, NULL, ndarray_new_0d(t)); }

static void close_file(void *p) { h5_close(*(H5File *)p); }

static Val walk_file(H5File f, const char *path);

/* _h5.read(path | bytes): [("g", path) | ("a", obj, name, value) | ("d", path, array)], objects in name order. */
static Val h5_read(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !(val_is(args[0], &str_type) || val_is(args[0], &bytes_type))) rt_throw(ERR_TYPE, "_h5.read(path)");
  H5File f;
  const char *path = "model.weights.h5";
  if (val_is(args[0], &bytes_type)) {
    size_t len;
    const void *data = bytes_data(args[0], &len);
    f = h5_open_mem(data, len);
    if (f < 0) exc_raise_class(builtins_lookup("OSError"), ERR_IO, "Unable to synchronously open file (file signature not found)");
    return walk_file(f, path);
  }
  path = str_cstr(args[0]);
  /* h5py's messages for a file that is missing or not HDF5 (Keras passes them on) */
  char msg[1200];
  FILE *probe = fopen(path, "rb");
  if (!probe) {
    int e = errno;
    snprintf(msg, sizeof msg,
             "[Errno %d] Unable to synchronously open file (unable to open file: name = '%s', errno = %d, error message = "
             "'%s', flags = 0, o_flags = 0)", e, path, e, strerror(e));
    exc_raise_class(builtins_lookup(e == ENOENT ? "FileNotFoundError" : "OSError"), ERR_IO, msg);
  }
  fclose(probe);
  f = h5_open(path);
  if (f < 0) exc_raise_class(builtins_lookup("OSError"), ERR_IO, "Unable to synchronously open file (file signature not found)");
  return walk_file(f, path);
}

/* Every entry of an open file, which is closed after (also when an error unwinds). */
static Val walk_file(H5File f, const char *path) {
  Val out = list_new(0);
  int mark = rt_hold_val(out);
  rt_hold_fn(close_file, &f);
  static const H5Visitor v = {on_group, on_strings, on_attr_tensor, on_dataset};
  char err[512];
  int rc = h5_walk(f, &v, &out, err, sizeof err);
  if (rc < 0) rt_throw(ERR_IO, "Unable to read '%s': %s", path, err);
  rt_unhold(mark);
  h5_close(f);
  return out;
}

static Val h5_attr(const char *name) {
  if (!strcmp(name, "write")) return builtin_new("_h5.write", h5_write, val_undef(), NULL);
  if (!strcmp(name, "read")) return builtin_new("_h5.read", h5_read, val_undef(), NULL);
  return val_undef();
}

Val h5mod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_h5", h5_attr);
  return val_incref(mod);
}
