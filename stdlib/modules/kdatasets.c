/* kdatasets.c — tf.keras.datasets: mnist.load_data (a local Keras mnist.npz, never downloaded) and the bundled digits set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "object/exepath.h"
#include "object/object.h"
#include "modules/tfdata.h"

#ifndef TFS_DATA_DIR
#define TFS_DATA_DIR "stdlib/data"
#endif

/* Where bundled data files live: $TFS_DATA_DIR, else an installed prefix's share/tfs/stdlib/data beside the
 * running executable, else the build's source tree. */
static const char *data_dir(void) {
  const char *d = getenv("TFS_DATA_DIR");
  if (d && *d) return d;
  static char inst[3072];
  if (!inst[0]) snprintf(inst, sizeof inst, "%s/share/tfs/stdlib/data", rt_exe_prefix());
  return rt_path_is(inst, true) ? inst : TFS_DATA_DIR;
}

static Val pair(Val a, Val b) {
  Val t = tuple_pack(2, a, b);
  TFS_DECREF(a);
  TFS_DECREF(b);
  return t;
}

/* Keras returns numpy arrays: an owned tensor Val becomes an ndarray. */
static Val as_ndarray(Val v) {
  if (!val_is_tensor(v)) return v;
  Val a = ndarray_new(val_tensor(v));
  TFS_DECREF(v);
  return a;
}

static Val nd_pair(Val a, Val b) { return pair(as_ndarray(a), as_ndarray(b)); }

/* digits.load_data(): 1,797 8x8 images (uint8, 0-16) and labels (uint8); row i is a test row when i % 6 == 5. */
//! tf.keras.datasets.digits.load_data(path=None)
//!   ((x_train, y_train), (x_test, y_test)): numpy uint8 arrays of 8x8 images and labels, as Keras; row i is a test row when i % 6 == 5.
static Val digits_load_data(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.keras.datasets.digits.load_data", .sig = "path=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  char path[4096];
  if (val_is(a[0], &str_type)) snprintf(path, sizeof path, "%s", str_cstr(a[0]));
  else snprintf(path, sizeof path, "%s/digits.csv.gz", data_dir());
  Val m = io_csv_matrix(path, DT_INT32, 0, "tf.keras.datasets.digits.load_data");
  Tensor *t = val_tensor(m);
  if (t->shape[1] != 65) {
    TFS_DECREF(m);
    rt_throw(ERR_INVALID_ARGUMENT, "tf.keras.datasets.digits.load_data: %s has %lld columns per row, expected 65 (64 pixels and a label)",
             path, (long long)t->shape[1]);
  }
  tfs_i64 rows = t->shape[0], ntest = rows / 6, ntrain = rows - ntest;
  tfs_i64 xs_tr[3] = {ntrain, 8, 8}, xs_te[3] = {ntest, 8, 8};
  Tensor *xtr = tensor_new(DT_UINT8, 3, xs_tr), *xte = tensor_new(DT_UINT8, 3, xs_te);
  Tensor *ytr = tensor_new(DT_UINT8, 1, &ntrain), *yte = tensor_new(DT_UINT8, 1, &ntest);
  const int32_t *src = tensor_data(t);
  uint8_t *px[2] = {tensor_data(xtr), tensor_data(xte)}, *py[2] = {tensor_data(ytr), tensor_data(yte)};
  tfs_i64 k[2] = {0, 0};
  for (tfs_i64 r = 0; r < rows; r++) {
    int s = r % 6 == 5;
    for (int c = 0; c < 64; c++) px[s][k[s] * 64 + c] = (uint8_t)src[r * 65 + c];
    py[s][k[s]++] = (uint8_t)src[r * 65 + 64];
  }
  TFS_DECREF(m);
  Val tr = nd_pair(val_obj(xtr), val_obj(ytr)), te = nd_pair(val_obj(xte), val_obj(yte));
  return pair(tr, te);
}

/* mnist.load_data(path='mnist.npz'): Keras resolves the name under ~/.keras/datasets
 * (KERAS_HOME when set); tfs also accepts a path that exists as given. */
//! tf.keras.datasets.mnist.load_data(path='mnist.npz')
//!   ((x_train, y_train), (x_test, y_test)) as numpy arrays from a local mnist.npz (~/.keras/datasets/ or the path); never downloads.
static Val mnist_load_data(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.keras.datasets.mnist.load_data", .sig = "path='mnist.npz'"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "tf.keras.datasets.mnist.load_data: path must be a str, not %s", val_type_name(a[0]));
  const char *name = str_cstr(a[0]);
  char cache[4096];
  const char *kh = getenv("KERAS_HOME"), *home = getenv("HOME");
  if (kh && *kh) snprintf(cache, sizeof cache, "%s/datasets/%s", kh, name);
  else snprintf(cache, sizeof cache, "%s/.keras/datasets/%s", home && *home ? home : "/tmp", name);
  const char *path = name[0] == '/' ? name : access(name, F_OK) == 0 ? name : cache;
  if (access(path, F_OK) != 0) {
    if (name[0] == '/')
      rt_throw(ERR_IO, "tf.keras.datasets.mnist.load_data: %s does not exist (tfs never downloads data sets)", name);
    rt_throw(ERR_IO, "tf.keras.datasets.mnist.load_data: %s not found: looked in %s and in the current directory "
             "(tfs never downloads data sets; put the Keras mnist.npz there)", name, cache);
  }
  Val d = io_load_npz(path, "tf.keras.datasets.mnist.load_data");
  int mark = rt_hold_val(d);
  static const char *const keys[4] = {"x_train", "y_train", "x_test", "y_test"};
  Val v[4];
  for (int i = 0; i < 4; i++) {
    v[i] = dict_get_str(d, keys[i]);
    if (val_is_undef(v[i])) {
      for (int j = 0; j < i; j++) TFS_DECREF(v[j]);
      rt_throw(ERR_KEY, "tf.keras.datasets.mnist.load_data: %s has no array '%s'", path, keys[i]);
    }
  }
  rt_unhold(mark);
  TFS_DECREF(d);
  Val tr = nd_pair(v[0], v[1]), te = nd_pair(v[2], v[3]);
  return pair(tr, te);
}

static Val ds_getattr(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "keras.datasets.%s", name);
  return tfmod_lookup(q);
}
static Val digits_getattr(const char *name) {
  return !strcmp(name, "load_data") ? tfmod_lookup("keras.datasets.digits.load_data") : val_undef();
}
static Val mnist_getattr(const char *name) {
  return !strcmp(name, "load_data") ? tfmod_lookup("keras.datasets.mnist.load_data") : val_undef();
}

//! tf.keras.datasets
//!   Small data sets loaded from local files: digits (bundled) and mnist (a local mnist.npz).
//! tf.keras.datasets.digits
//!   The bundled 8x8 handwritten digits (1,797 images): load_data().
//! tf.keras.datasets.mnist
//!   MNIST from a local Keras mnist.npz (never downloaded): load_data(path).
Val kdatasets_attr(const char *qual) {
  if (!strcmp(qual, "keras.datasets")) return module_native("keras.api._v2.keras.datasets", ds_getattr);
  if (!strcmp(qual, "keras.datasets.digits")) return module_native("keras.api._v2.keras.datasets.digits", digits_getattr);
  if (!strcmp(qual, "keras.datasets.mnist")) return module_native("keras.api._v2.keras.datasets.mnist", mnist_getattr);
  if (!strcmp(qual, "keras.datasets.digits.load_data"))
    return builtin_new(strdup("tf.keras.datasets.digits.load_data"), digits_load_data, val_undef(), NULL);
  if (!strcmp(qual, "keras.datasets.mnist.load_data"))
    return builtin_new(strdup("tf.keras.datasets.mnist.load_data"), mnist_load_data, val_undef(), NULL);
  return val_undef();
}
