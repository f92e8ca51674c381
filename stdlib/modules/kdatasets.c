/* kdatasets.c — tf.keras.datasets: mnist, fashion_mnist and boston_housing from Keras's local cache (never downloaded), the bundled digits set, and tf.keras.utils.get_file over that cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/iofile.h"
#include "kernels/nprandom.h"
#include "object/exepath.h"
#include "object/object.h"
#include "modules/kdatasets.h"
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

Val kd_pair(Val a, Val b) {
  Val t = tuple_pack(2, a, b);
  TFS_DECREF(a);
  TFS_DECREF(b);
  return t;
}

/* Keras returns numpy arrays: an owned tensor Val becomes an ndarray. */
Val kd_ndarray(Val v) {
  if (!val_is_tensor(v)) return v;
  Val a = ndarray_new(val_tensor(v));
  TFS_DECREF(v);
  return a;
}

static Val nd_pair(Val a, Val b) { return kd_pair(kd_ndarray(a), kd_ndarray(b)); }

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
  return kd_pair(tr, te);
}

/* The file Keras's get_file keeps as cache_subdir/fname under KERAS_HOME (default ~/.keras); an absolute
 * fname is itself, as os.path.join makes it. */
void keras_cache_file(const char *cache_dir, const char *subdir, const char *fname, char *out, size_t n) {
  const char *kh = getenv("KERAS_HOME"), *home = getenv("HOME");
  if (fname[0] == '/') snprintf(out, n, "%s", fname);
  else if (cache_dir && *cache_dir) snprintf(out, n, "%s/%s/%s", cache_dir, subdir, fname);
  else if (kh && *kh) snprintf(out, n, "%s/%s/%s", kh, subdir, fname);
  else snprintf(out, n, "%s/.keras/%s/%s", home && *home ? home : "/tmp", subdir, fname);
}

/* A data set's local file: in the Keras cache (datasets/subdir), or as given when it exists there (a tfs
 * addition); never downloaded. */
static const char *dataset_file(const char *what, const char *subdir, const char *name, char *cache, size_t n) {
  char sub[256];
  snprintf(sub, sizeof sub, "datasets%s%s", *subdir ? "/" : "", subdir);
  keras_cache_file(NULL, sub, name, cache, n);
  const char *path = name[0] == '/' ? name : access(name, F_OK) == 0 ? name : cache;
  if (access(path, F_OK) != 0) {
    if (name[0] == '/') rt_throw(ERR_IO, "%s: %s does not exist (tfs never downloads data sets)", what, name);
    rt_throw(ERR_IO, "%s: %s not found: looked in %s and in the current directory "
             "(tfs never downloads data sets; put the Keras file there)", what, name, cache);
  }
  return path;
}

/* fashion_mnist.load_data(): Keras's four gzipped IDX files under ~/.keras/datasets/fashion-mnist. */
static Tensor *idx_gz(const char *path, size_t header, tfs_i64 rows, const char *what) {
  tfs_i64 len;
  char *buf = io_read_all(path, what, &len);   /* gunzipped: the names end in .gz */
  if ((size_t)len < header) {
    free(buf);
    rt_throw(ERR_IO, "%s: %s is shorter than an IDX header", what, path);
  }
  tfs_i64 n = len - (tfs_i64)header;
  if (rows >= 0 && n != rows * 28 * 28) {
    free(buf);
    rt_throw(ERR_VALUE, "cannot reshape array of size %lld into shape (%lld,28,28)", (long long)n, (long long)rows);
  }
  tfs_i64 shape[3] = {rows < 0 ? n : rows, 28, 28};
  Tensor *t = tensor_new(DT_UINT8, rows < 0 ? 1 : 3, shape);
  memcpy(tensor_data(t), buf + header, (size_t)n);
  free(buf);
  return t;
}

//! tf.keras.datasets.fashion_mnist.load_data()
//!   ((x_train, y_train), (x_test, y_test)): uint8 arrays (60,000 and 10,000 28x28 images) from Keras's gzipped IDX files in
//!   ~/.keras/datasets/fashion-mnist/ (KERAS_HOME when set); never downloads.
static Val fashion_load_data(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.fashion_mnist.load_data", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  static const char *const files[4] = {"train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
                                       "t10k-images-idx3-ubyte.gz"};
  Val v[4];
  for (int i = 0; i < 4; i++) {
    char cache[4096];
    const char *path = dataset_file(spec.what, "fashion-mnist", files[i], cache, sizeof cache);
    int mark = i ? rt_hold_val(v[i - 1]) : -1;
    v[i] = val_obj(idx_gz(path, i % 2 ? 16 : 8, i % 2 ? val_tensor(v[i - 1])->shape[0] : -1, spec.what));
    if (mark >= 0) rt_unhold(mark);
  }
  Val tr = nd_pair(v[1], v[0]), te = nd_pair(v[3], v[2]);
  return kd_pair(tr, te);
}

/* numpy's legacy RandomState(...).shuffle of a 1-D array (idx[0..n)), drawing from st. */
void kd_shuffle(MtState *st, tfs_i64 *idx, tfs_i64 n) {
  for (tfs_i64 i = n - 1; i > 0; i--) {
    tfs_i64 j = (tfs_i64)mt_interval(st, (uint64_t)i), t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
}

/* Rows idx[lo..hi) of a (contiguous copy of) t. */
Val kd_take_rows(Tensor *t, const tfs_i64 *idx, tfs_i64 lo, tfs_i64 hi) {
  tfs_i64 shape[TFS_MAX_RANK];
  memcpy(shape, t->shape, sizeof(tfs_i64) * (size_t)t->rank);
  shape[0] = hi - lo;
  Tensor *o = tensor_new(t->dtype, t->rank, shape);
  size_t row = (size_t)dtype_info[t->dtype].size;
  for (int d = 1; d < t->rank; d++) row *= (size_t)t->shape[d];
  for (tfs_i64 i = lo; i < hi; i++) memcpy((char *)tensor_data(o) + (size_t)(i - lo) * row, (char *)tensor_data(t) + (size_t)idx[i] * row, row);
  return kd_ndarray(val_obj(o));
}

//! tf.keras.datasets.boston_housing.load_data(path='boston_housing.npz', test_split=0.2, seed=113)
//!   ((x_train, y_train), (x_test, y_test)) from Keras's boston_housing.npz in ~/.keras/datasets/, its rows shuffled by
//!   numpy's RandomState(seed) as Keras does, the first int(n * (1 - test_split)) for training; never downloads.
static Val boston_load_data(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.boston_housing.load_data", .sig = "path='boston_housing.npz', test_split=0.2, seed=113"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "%s: path must be a str, not %s", spec.what, val_type_name(a[0]));
  double split = a[1].tag == VT_INT ? (double)a[1].u.i : a[1].tag == VT_FLOAT ? a[1].u.f : -1.0;
  if (!(split >= 0 && split < 1)) rt_throw(ERR_ASSERTION, "%s", "");   /* Keras: assert 0 <= test_split < 1 */
  if (a[2].tag != VT_INT) rt_throw(ERR_TYPE, "%s: seed must be an int, not %s", spec.what, val_type_name(a[2]));
  char cache[4096];
  const char *path = dataset_file(spec.what, "", str_cstr(a[0]), cache, sizeof cache);
  Val d = io_load_npz(path, spec.what);
  int mark = rt_hold_val(d);
  Val x = dict_get_str(d, "x"), y = dict_get_str(d, "y");
  if (val_is_undef(x) || val_is_undef(y)) rt_throw(ERR_KEY, "%s: %s has no array '%s'", spec.what, path, val_is_undef(x) ? "x" : "y");
  rt_hold_val(x);
  rt_hold_val(y);
  Tensor *xt = tensor_contiguous(val_as_tensor(x)), *yt = tensor_contiguous(val_as_tensor(y));
  tfs_i64 rows = xt->rank ? xt->shape[0] : 0;
  tfs_i64 *idx = malloc(sizeof(tfs_i64) * (size_t)(rows + 1));
  if (!idx) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < rows; i++) idx[i] = i;
  MtState st;
  mt_seed(&st, (uint32_t)a[2].u.i);
  kd_shuffle(&st, idx, rows);
  tfs_i64 cut = (tfs_i64)((double)rows * (1 - split));
  Val xtr = kd_take_rows(xt, idx, 0, cut), ytr = kd_take_rows(yt, idx, 0, cut);
  Val xte = kd_take_rows(xt, idx, cut, rows), yte = kd_take_rows(yt, idx, cut, rows);
  free(idx);
  tensor_release(xt);
  tensor_release(yt);
  val_decref(x);
  val_decref(y);
  rt_unhold(mark);
  TFS_DECREF(d);
  return kd_pair(kd_pair(xtr, ytr), kd_pair(xte, yte));
}

//! tf.keras.utils.get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir='datasets', hash_algorithm='auto', extract=False, archive_format='auto', cache_dir=None)
//!   The path of fname in Keras's cache (cache_dir or KERAS_HOME or ~/.keras, then cache_subdir; fname defaults to origin's
//!   last path component) when the file is there, as Keras returns it once downloaded; tfs never downloads, so a missing
//!   file is an error naming where it was looked for. untar returns the extracted directory when it exists; extraction
//!   itself is not done.
static Val get_file_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "get_file", .sig = "fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir='datasets', "
                                                     "hash_algorithm='auto', extract=False, archive_format='auto', cache_dir=None"};
  Val a[10];
  args_parse(&spec, n, args, kw, a);
  const char *origin = val_is(a[1], &str_type) ? str_cstr(a[1]) : NULL, *fname = val_is(a[0], &str_type) ? str_cstr(a[0]) : NULL;
  if (a[1].tag == VT_NONE) rt_throw(ERR_VALUE, "Please specify the \"origin\" argument (URL of the file to download).");
  if (!origin) rt_throw(ERR_TYPE, "get_file: origin must be a str, not %s", val_type_name(a[1]));
  char base[1024];
  if (!fname || !*fname) {   /* Keras: the last component of origin's path */
    const char *q = strpbrk(origin, "?#");
    size_t len = q ? (size_t)(q - origin) : strlen(origin);
    const char *b = origin;
    for (size_t i = 0; i < len; i++)
      if (origin[i] == '/') b = origin + i + 1;
    snprintf(base, sizeof base, "%.*s", (int)(len - (size_t)(b - origin)), b);
    if (!base[0]) rt_throw(ERR_VALUE, "Can't parse the file name from the origin provided: '%s'.Please specify the `fname` as the input param.", origin);
    fname = base;
  }
  const char *subdir = val_is(a[5], &str_type) ? str_cstr(a[5]) : "datasets";
  const char *cache_dir = val_is(a[9], &str_type) ? str_cstr(a[9]) : NULL;
  char path[4096];
  keras_cache_file(cache_dir, subdir, fname, path, sizeof path);
  if (rt_truthy(a[2])) {   /* untar: the directory beside the archive */
    size_t l = strlen(path);
    if (l > 7 && !strcmp(path + l - 7, ".tar.gz")) path[l - 7] = 0;
    if (access(path, F_OK) == 0) return str_from_cstr(path);
    rt_throw(ERR_UNIMPLEMENTED, "get_file: %s has not been extracted, and tfs does not download or extract archives (untar=True)", path);
  }
  if (access(path, F_OK) != 0)
    rt_throw(ERR_IO, "get_file: %s not found (tfs never downloads%s%s; put the file there)", path, origin ? " " : "", origin ? origin : "");
  if (rt_truthy(a[7])) rt_throw(ERR_UNIMPLEMENTED, "get_file: extract=True: tfs does not extract archives (%s)", path);
  return str_from_cstr(path);
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
  char cache[4096];
  const char *path = dataset_file(spec.what, "", str_cstr(a[0]), cache, sizeof cache);
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
  return kd_pair(tr, te);
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
static Val fashion_getattr(const char *name) {
  return !strcmp(name, "load_data") ? tfmod_lookup("keras.datasets.fashion_mnist.load_data") : val_undef();
}
/* tf.keras.utils in a program without the Keras library (stdlib/keras_utils.tfs, which holds the rest, takes its
 * place in one that has it): get_file alone */
static Val kutils_getattr(const char *name) {
  return !strcmp(name, "get_file") ? tfmod_lookup("keras.utils.get_file") : val_undef();
}
static Val boston_getattr(const char *name) {
  return !strcmp(name, "load_data") ? tfmod_lookup("keras.datasets.boston_housing.load_data") : val_undef();
}

//! tf.keras.datasets
//!   Data sets loaded from local files: digits (bundled); mnist, fashion_mnist, boston_housing, cifar10, cifar100, imdb
//!   and reuters from Keras's cache (~/.keras/datasets; never downloaded).
//! tf.keras.utils
//!   Keras's utilities: to_categorical, set_random_seed, get_file, pad_sequences, plot_model, the data set builders
//!   (image_dataset_from_directory, ...) and image helpers (array_to_img, ...); written in .tfs (stdlib/keras_utils.tfs),
//!   get_file in C beside the data sets.
//! tf.keras.datasets.fashion_mnist
//!   Fashion-MNIST from Keras's gzipped IDX files in ~/.keras/datasets/fashion-mnist (never downloaded): load_data().
//! tf.keras.datasets.boston_housing
//!   Boston housing from Keras's boston_housing.npz (never downloaded): load_data(path, test_split, seed).
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
  if (!strcmp(qual, "keras.datasets.fashion_mnist")) return module_native("keras.api._v2.keras.datasets.fashion_mnist", fashion_getattr);
  if (!strcmp(qual, "keras.datasets.boston_housing")) return module_native("keras.api._v2.keras.datasets.boston_housing", boston_getattr);
  if (!strcmp(qual, "keras.datasets.fashion_mnist.load_data"))
    return builtin_new(strdup("tf.keras.datasets.fashion_mnist.load_data"), fashion_load_data, val_undef(), NULL);
  if (!strcmp(qual, "keras.datasets.boston_housing.load_data"))
    return builtin_new(strdup("tf.keras.datasets.boston_housing.load_data"), boston_load_data, val_undef(), NULL);
  if (!strcmp(qual, "keras.utils")) return module_native("keras.api._v2.keras.utils", kutils_getattr);
  if (!strcmp(qual, "keras.utils.get_file")) return builtin_new("tf.keras.utils.get_file", get_file_fn, val_undef(), NULL);
  return kdpickled_attr(qual);
}
