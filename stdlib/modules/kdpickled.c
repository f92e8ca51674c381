/* kdpickled.c — tf.keras.datasets cifar10, cifar100, imdb and reuters: Keras's pickled data sets read from its cache, never downloaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/iofile.h"
#include "formats/jsonread.h"
#include "formats/pklread.h"
#include "modules/kdatasets.h"
#include "modules/tfdata.h"
#include "object/object.h"

/* ---- cifar10 / cifar100: directories of pickled batches ---- */

/* dir/name in Keras's cache (datasets/dir, where get_file(dir, untar=True) leaves the extracted archive). */
static void cifar_path(const char *what, const char *dir, const char *archive, const char *name, char *out, size_t n) {
  char d[4096];
  keras_cache_file(NULL, "datasets", dir, d, sizeof d);
  struct stat st;
  if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
    rt_throw(ERR_IO, "%s: %s not found (tfs never downloads data sets; put the directory extracted from Keras's %s there)",
             what, d, archive);
  snprintf(out, n, "%s/%s", d, name);
  if (stat(out, &st) != 0) rt_throw(ERR_IO, "[Errno 2] No such file or directory: '%s'", out);
}

/* The value of key `name` in a batch dict whose keys are bytes (pickle.load(..., encoding='bytes')) or str;
 * borrowed by the dict; KeyError as Keras's d[name] after decoding the keys. */
static Val batch_get(Val d, const char *name) {
  Val keys = dict_keys_list(d);
  int mark = rt_hold_val(keys);
  List *l = (List *)keys.u.o;
  Val r = val_undef();
  for (tfs_i64 i = 0; i < l->len && val_is_undef(r); i++) {
    size_t n;
    const unsigned char *b = byteslike_data(l->items[i], &n);
    const char *s = b ? (const char *)b : val_is(l->items[i], &str_type) ? str_cstr(l->items[i]) : NULL;
    if (!b && s) n = strlen(s);
    if (s && n == strlen(name) && !memcmp(s, name, n)) r = dict_get(d, l->items[i]);
  }
  rt_unhold(mark);
  val_decref(keys);
  if (val_is_undef(r)) rt_throw(ERR_KEY, "'%s'", name);
  val_decref(r);   /* the dict holds it */
  return r;
}

/* A batch: its images (an (n, 3072) uint8 array, Keras's data.reshape(n, 3, 32, 32) source) and labels as int64. */
typedef struct Batch {
  Tensor *x;
  tfs_i64 *y, n;
} Batch;

static void batch_free(void *p) {
  Batch *b = p;
  if (b->x) tensor_release(b->x);
  free(b->y);
  b->x = NULL;
  b->y = NULL;
}

static void load_batch(const char *path, const char *label_key, const char *what, Batch *out) {
  tfs_i64 len;
  unsigned char *data = (unsigned char *)io_read_bytes(path, what, &len, false);
  int mark = rt_hold_mem(data);
  Val d = pkl_load(data, len, path, PKL_PY2_BYTES, NULL);   /* Keras: pickle.load(f, encoding='bytes') */
  rt_unhold(mark);
  free(data);
  mark = rt_hold_val(d);
  if (!val_is(d, &dict_type)) rt_throw(ERR_ATTRIBUTE, "'%s' object has no attribute 'items' (%s is no CIFAR batch)", val_type_name(d), path);
  Val x = batch_get(d, "data"), y = batch_get(d, label_key);
  Tensor *t = val_as_tensor(x);
  if (!t || dtype_info[t->dtype].is_float || t->dtype == DT_STRING || t->dtype == DT_BOOL || t->rank < 1)
    rt_throw(ERR_TYPE, "%s: 'data' is %s, not a uint8 array of images", path, t ? dtype_info[t->dtype].name : val_type_name(x));
  tfs_i64 size = t->size, rows = t->shape[0];
  if (size != rows * 3072)
    rt_throw(ERR_VALUE, "cannot reshape array of size %lld into shape (%lld,3,32,32)", (long long)size, (long long)rows);
  tfs_i64 shape[2] = {rows, 3072};
  out->x = tensor_new(DT_UINT8, 2, shape);
  out->n = rows;
  uint8_t *px = tensor_data(out->x);
  if (t->dtype == DT_UINT8 && tensor_is_contiguous(t)) memcpy(px, tensor_data(t), (size_t)size);
  else for (tfs_i64 i = 0; i < size; i++) px[i] = (uint8_t)tensor_get_i(t, i);   /* numpy's astype('uint8') wraps */
  out->y = malloc(sizeof(tfs_i64) * (size_t)(rows + 1));
  if (!out->y) rt_throw(ERR_MEMORY, "out of memory");
  Tensor *yt = val_as_tensor(y);
  tfs_i64 ny = yt ? yt->size : val_is(y, &list_type) ? ((List *)y.u.o)->len : val_is(y, &tuple_type) ? ((Tuple *)y.u.o)->len : -1;
  if (ny < 0) rt_throw(ERR_TYPE, "%s: '%s' is %s, not a list of labels", path, label_key, val_type_name(y));
  if (ny != rows) rt_throw(ERR_VALUE, "%s: %lld labels for %lld images", path, (long long)ny, (long long)rows);
  for (tfs_i64 i = 0; i < rows; i++) {
    if (yt) { out->y[i] = tensor_get_i(yt, i); continue; }
    Val e = val_is(y, &list_type) ? ((List *)y.u.o)->items[i] : ((Tuple *)y.u.o)->items[i];
    if (e.tag != VT_INT) rt_throw(ERR_TYPE, "%s: label %lld is %s, not an int", path, (long long)i, val_type_name(e));
    out->y[i] = e.u.i;
  }
  rt_unhold(mark);
  val_decref(d);
}

/* The batches' images as one (n, 32, 32, 3) uint8 ndarray (Keras's transpose(0, 2, 3, 1) of (n, 3, 32, 32))
 * and their labels as an (n, 1) ndarray of ydt (uint8 wraps, as numpy's astype). */
static Val cifar_join(Batch *b, int nb, DType ydt) {
  tfs_i64 n = 0;
  for (int i = 0; i < nb; i++) n += b[i].n;
  tfs_i64 xs[4] = {n, 32, 32, 3}, ys[2] = {n, 1};
  Tensor *x = tensor_new(DT_UINT8, 4, xs), *y = tensor_new(ydt, 2, ys);
  uint8_t *px = tensor_data(x);
  tfs_i64 r = 0;
  for (int i = 0; i < nb; i++)
    for (tfs_i64 k = 0; k < b[i].n; k++, r++) {
      const uint8_t *src = (const uint8_t *)tensor_data(b[i].x) + k * 3072;
      uint8_t *dst = px + r * 3072;
      for (int c = 0; c < 3; c++)
        for (int p = 0; p < 1024; p++) dst[p * 3 + c] = src[c * 1024 + p];
      if (ydt == DT_UINT8) ((uint8_t *)tensor_data(y))[r] = (uint8_t)b[i].y[k];
      else ((int64_t *)tensor_data(y))[r] = b[i].y[k];
    }
  return kd_pair(kd_ndarray(val_obj(x)), kd_ndarray(val_obj(y)));
}

static void batches_free(void *p) {
  Batch *b = p;
  for (int i = 0; i < 6; i++) batch_free(&b[i]);
}

//! tf.keras.datasets.cifar10.load_data()
//!   ((x_train, y_train), (x_test, y_test)): uint8 arrays of 32x32x3 images (channels-last) and (n, 1) labels from
//!   Keras's extracted cifar-10-batches-py/ in ~/.keras/datasets (KERAS_HOME when set): the pickled data_batch_1..5
//!   and test_batch; never downloads.
static Val cifar10_load_data(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.cifar10.load_data", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  Batch b[6];
  memset(b, 0, sizeof b);
  int mark = rt_hold_fn(batches_free, b);
  for (int i = 0; i < 6; i++) {
    char name[32], path[4200];
    if (i < 5) snprintf(name, sizeof name, "data_batch_%d", i + 1);
    else snprintf(name, sizeof name, "test_batch");
    cifar_path(spec.what, "cifar-10-batches-py", "cifar-10-python.tar.gz", name, path, sizeof path);
    load_batch(path, "labels", spec.what, &b[i]);
  }
  Val tr = cifar_join(b, 5, DT_UINT8);
  int tm = rt_hold_val(tr);
  Val te = cifar_join(b + 5, 1, DT_UINT8);
  rt_unhold(tm);
  rt_unhold(mark);
  batches_free(b);
  return kd_pair(tr, te);
}

//! tf.keras.datasets.cifar100.load_data(label_mode='fine')
//!   ((x_train, y_train), (x_test, y_test)): uint8 32x32x3 images (channels-last) and (n, 1) int64 labels, fine
//!   (100 classes) or coarse (20), from Keras's extracted cifar-100-python/ (train, test) in ~/.keras/datasets;
//!   never downloads.
static Val cifar100_load_data(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.cifar100.load_data", .sig = "label_mode='fine'"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  const char *mode = val_is(a[0], &str_type) ? str_cstr(a[0]) : "";
  if (strcmp(mode, "fine") && strcmp(mode, "coarse")) {
    Val s = str_of(a[0]);
    rt_hold_val(s);
    rt_throw(ERR_VALUE, "`label_mode` must be one of `\"fine\"`, `\"coarse\"`. Received: label_mode=%s.", str_cstr(s));
  }
  char key[32];
  snprintf(key, sizeof key, "%s_labels", mode);
  Batch b[6];
  memset(b, 0, sizeof b);
  int mark = rt_hold_fn(batches_free, b);
  for (int i = 0; i < 2; i++) {
    char path[4200];
    cifar_path(spec.what, "cifar-100-python", "cifar-100-python.tar.gz", i ? "test" : "train", path, sizeof path);
    load_batch(path, key, spec.what, &b[i]);
  }
  Val tr = cifar_join(b, 1, DT_INT64);   /* Keras: np.reshape of the label list, int64 */
  int tm = rt_hold_val(tr);
  Val te = cifar_join(b + 1, 1, DT_INT64);
  rt_unhold(tm);
  rt_unhold(mark);
  batches_free(b);
  return kd_pair(tr, te);
}

/* ---- imdb / reuters: .npz files of pickled word-index sequences ---- */

/* Sequences of word indices with the row of each one's label. */
typedef struct Seqs {
  tfs_i64 n, cap;
  tfs_i64 **w, *len, *row;
} Seqs;

static void seqs_free(void *p) {
  Seqs *s = p;
  for (tfs_i64 i = 0; i < s->n; i++) free(s->w[i]);
  free(s->w);
  free(s->len);
  free(s->row);
  memset(s, 0, sizeof *s);
}

static void seqs_add(Seqs *s, tfs_i64 *w, tfs_i64 len, tfs_i64 row) {   /* takes w */
  if (s->n == s->cap) {
    tfs_i64 cap = s->cap ? s->cap * 2 : 64;
    tfs_i64 **nw = realloc(s->w, sizeof(tfs_i64 *) * (size_t)cap);
    if (nw) s->w = nw;
    tfs_i64 *nl = nw ? realloc(s->len, sizeof(tfs_i64) * (size_t)cap) : NULL;
    if (nl) s->len = nl;
    tfs_i64 *nr = nl ? realloc(s->row, sizeof(tfs_i64) * (size_t)cap) : NULL;
    if (!nr) { free(w); rt_throw(ERR_MEMORY, "out of memory"); }
    s->row = nr;
    s->cap = cap;
  }
  s->w[s->n] = w;
  s->len[s->n] = len;
  s->row[s->n++] = row;
}

/* Keras's load options, already checked. */
typedef struct SeqOpts {
  bool has_num_words, has_start, has_oov, has_maxlen;
  tfs_i64 num_words, skip_top, maxlen, start_char, oov_char, index_from;
} SeqOpts;

/* The pickled sequences (a list of lists of ints: an object array as the reader gives it) of member `key`, in
 * the order perm gives, each as Keras makes it: [start_char] + [w + index_from ...] (or shifted, or as is). */
static void seqs_from(Seqs *out, Val xs, const tfs_i64 *perm, tfs_i64 n, const SeqOpts *o, const char *where) {
  for (tfs_i64 i = 0; i < n; i++) {
    Val x = ((List *)xs.u.o)->items[perm[i]];
    if (!val_is(x, &list_type) && !val_is(x, &tuple_type))
      rt_throw(ERR_TYPE, "%s: sequence %lld is %s, not a list of word indices", where, (long long)perm[i], val_type_name(x));
    tfs_i64 len = val_is(x, &list_type) ? ((List *)x.u.o)->len : ((Tuple *)x.u.o)->len;
    const Val *it = val_is(x, &list_type) ? ((List *)x.u.o)->items : ((Tuple *)x.u.o)->items;
    tfs_i64 *w = malloc(sizeof(tfs_i64) * (size_t)(len + 2)), k = 0;
    if (!w) rt_throw(ERR_MEMORY, "out of memory");
    if (o->has_start) w[k++] = o->start_char;
    for (tfs_i64 j = 0; j < len; j++) {
      int64_t v;
      if (!val_as_int(it[j], &v)) {
        free(w);
        rt_throw(ERR_TYPE, "%s: sequence %lld holds %s, not an int", where, (long long)perm[i], val_type_name(it[j]));
      }
      w[k++] = v + o->index_from;   /* Keras adds index_from whether or not start_char is given */
    }
    seqs_add(out, w, k, perm[i]);
  }
}

/* _remove_long_seq: only the sequences shorter than maxlen. */
static void drop_long(Seqs *s, tfs_i64 maxlen) {
  tfs_i64 k = 0;
  for (tfs_i64 i = 0; i < s->n; i++) {
    if (s->len[i] < maxlen) {
      s->w[k] = s->w[i];
      s->len[k] = s->len[i];
      s->row[k++] = s->row[i];
    } else {
      free(s->w[i]);
    }
  }
  s->n = k;
}

/* num_words (the largest index when not given), then skip_top/num_words/oov_char over every sequence. */
static void clip_words(Seqs *const *sets, int nsets, const SeqOpts *o) {
  tfs_i64 num = o->num_words;
  if (!o->has_num_words) {   /* Keras: max(max(x) for x in xs) */
    bool any = false;
    for (int s = 0; s < nsets; s++)
      for (tfs_i64 i = 0; i < sets[s]->n; i++) {
        if (!sets[s]->len[i]) rt_throw(ERR_VALUE, "max() arg is an empty sequence");
        for (tfs_i64 j = 0; j < sets[s]->len[i]; j++)
          if (!any || sets[s]->w[i][j] > num) { num = sets[s]->w[i][j]; any = true; }
      }
    if (!any) rt_throw(ERR_VALUE, "max() arg is an empty sequence");
  }
  for (int s = 0; s < nsets; s++)
    for (tfs_i64 i = 0; i < sets[s]->n; i++) {
      tfs_i64 k = 0;
      for (tfs_i64 j = 0; j < sets[s]->len[i]; j++) {
        tfs_i64 w = sets[s]->w[i][j];
        bool keep = o->skip_top <= w && w < num;
        if (keep) sets[s]->w[i][k++] = w;
        else if (o->has_oov) sets[s]->w[i][k++] = o->oov_char;
      }
      sets[s]->len[i] = k;
    }
}

/* Sequences [lo, hi) as Keras's np.array(xs, dtype="object"): 1-D of lists (2-D of ints when all have one length). */
static Val seqs_list(const Seqs *s, tfs_i64 lo, tfs_i64 hi) {
  Val l = list_new(hi - lo);
  int mark = rt_hold_val(l);
  for (tfs_i64 i = lo; i < hi; i++) {
    Val e = list_new(s->len[i]);
    for (tfs_i64 j = 0; j < s->len[i]; j++) list_append(e, val_int(s->w[i][j]));
    list_append(l, e);
    val_decref(e);
  }
  Val a = npobj_from_nested(l);
  rt_unhold(mark);
  val_decref(l);
  return a;
}

/* (x, y) of sequences [lo, hi): y the label rows they came from in yt. */
static Val seqs_xy(const Seqs *s, Tensor *yt, tfs_i64 lo, tfs_i64 hi) {
  Val x = seqs_list(s, lo, hi);
  int mark = rt_hold_val(x);
  Val y = kd_take_rows(yt, s->row, lo, hi);
  rt_unhold(mark);
  return kd_pair(x, y);
}

static bool opt_int(Val v, const char *name, const char *what, bool none_ok, tfs_i64 *out) {
  if (none_ok && v.tag == VT_NONE) return false;
  int64_t i;
  if (v.tag == VT_FLOAT || !val_as_int(v, &i))
    rt_throw(ERR_TYPE, "%s: %s must be an int%s, not %s", what, name, none_ok ? " or None" : "", val_type_name(v));
  *out = i;
  return true;
}

/* The keyword arguments args_parse knows, with Keras's legacy nb_words taken as num_words and any other one
 * refused as Keras's **kwargs check does. */
static void seq_kwargs(const Kw *kw, Kw *known, const char **names, Val *vals, Val *nb_words, const char *const *params,
                       bool dot) {
  known->n = 0;
  known->names = names;
  known->vals = vals;
  *nb_words = val_undef();
  Val extra = val_undef();
  for (int i = 0; kw && i < kw->n; i++) {
    bool ok = false;
    for (int p = 0; params[p]; p++) ok = ok || !strcmp(kw->names[i], params[p]);
    if (ok) { names[known->n] = kw->names[i]; vals[known->n++] = kw->vals[i]; }
    else if (!strcmp(kw->names[i], "nb_words")) *nb_words = kw->vals[i];
    else dict_set_str(&extra, kw->names[i], kw->vals[i]);
  }
  if (!val_is_undef(extra)) {
    rt_hold_val(extra);
    Val s = str_of(extra);
    rt_hold_val(s);
    rt_throw(ERR_TYPE, "Unrecognized keyword arguments: %s%s", str_cstr(s), dot ? "." : "");
  }
}

/* A .npz's member as the pickle reader gives it (an object member) or its ndarray; KeyError as numpy's. */
static Val npz_member(Val d, const char *name, const char *path) {
  Val v = dict_get_str(d, name);
  if (val_is_undef(v)) rt_throw(ERR_KEY, "%s is not a file in the archive", name);
  if (!val_is(v, &bytes_type)) return v;
  int mark = rt_hold_val(v);
  size_t n;
  const unsigned char *b = byteslike_data(v, &n);
  char where[4200];
  snprintf(where, sizeof where, "%s member '%s.npy'", path, name);
  Val r = npy_load_object(b, (tfs_i64)n, where, PKL_PY2_ASCII);   /* Keras: np.load(path, allow_pickle=True) */
  rt_unhold(mark);
  val_decref(v);
  return r;
}

static Val read_npz(const char *path, const char *what) {
  tfs_i64 len;
  unsigned char *data = (unsigned char *)io_read_bytes(path, what, &len, false);
  int mark = rt_hold_mem(data);
  Val d = npz_parse(data, len, path, true);
  rt_unhold(mark);
  free(data);
  return d;
}

static void parse_seq_opts(const Val *a, Val nb_words, const char *what, SeqOpts *o) {
  memset(o, 0, sizeof *o);
  Val nw = val_is_undef(nb_words) ? a[0] : nb_words;
  o->has_num_words = opt_int(nw, "num_words", what, true, &o->num_words) && o->num_words != 0;   /* Keras: `if not num_words` */
  opt_int(a[1], "skip_top", what, false, &o->skip_top);
  o->has_maxlen = opt_int(a[2], "maxlen", what, true, &o->maxlen) && o->maxlen != 0;   /* `if maxlen:` */
}

/* Keras's data set path: path under ~/.keras/datasets (or as given when it exists: a tfs addition). */
static const char *seq_file(const char *what, Val pathv, char *buf, size_t n) {
  if (!val_is(pathv, &str_type)) rt_throw(ERR_TYPE, "%s: path must be a str, not %s", what, val_type_name(pathv));
  const char *name = str_cstr(pathv);
  keras_cache_file(NULL, "datasets", name, buf, n);
  struct stat st;
  if (stat(buf, &st) == 0) return buf;
  if (name[0] != '/' && stat(name, &st) == 0) return name;
  rt_throw(ERR_IO, "%s: %s not found: looked in %s and in the current directory (tfs never downloads data sets; put the Keras file there)",
           what, name, buf);
}

static void seed_rng(MtState *st, Val seed, const char *what) {
  tfs_i64 s;
  opt_int(seed, "seed", what, false, &s);
  if (s < 0 || s > 0xffffffffLL) rt_throw(ERR_VALUE, "Seed must be between 0 and 2**32 - 1");
  mt_seed(st, (uint32_t)s);
}

static tfs_i64 *shuffled(MtState *st, tfs_i64 n) {
  tfs_i64 *idx = malloc(sizeof(tfs_i64) * (size_t)(n + 1));
  if (!idx) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < n; i++) idx[i] = i;
  kd_shuffle(st, idx, n);
  return idx;
}

static tfs_i64 seq_count(Val xs, Tensor *yt, const char *xname, const char *yname, const char *path) {
  if (!val_is(xs, &list_type)) rt_throw(ERR_TYPE, "%s: '%s' holds %s, not an object array of sequences", path, xname, val_type_name(xs));
  if (!yt || yt->rank < 1) rt_throw(ERR_TYPE, "%s: '%s' is not an array of labels", path, yname);
  tfs_i64 n = ((List *)xs.u.o)->len;
  if (yt->shape[0] != n) rt_throw(ERR_VALUE, "%s: '%s' has %lld sequences, '%s' %lld labels", path, xname, (long long)n, yname, (long long)yt->shape[0]);
  return n;
}

/* A loader's state, released at once on success or error: the .npz's dict, its sequence lists and label
 * arrays, the shuffled orders and the sequences made of them. */
typedef struct SeqWork {
  Val d, x1, x2;
  Tensor *y1, *y2;
  tfs_i64 *p1, *p2;
  Seqs a, b;
} SeqWork;

static void seqwork_free(void *p) {
  SeqWork *w = p;
  seqs_free(&w->a);
  seqs_free(&w->b);
  free(w->p1);
  free(w->p2);
  if (w->y1) tensor_release(w->y1);
  if (w->y2) tensor_release(w->y2);
  val_decref(w->d);
  val_decref(w->x1);
  val_decref(w->x2);
  memset(w, 0, sizeof *w);
}

/* Both loaders' arguments (Keras's **kwargs check, path, num_words, skip_top, maxlen, and start_char, oov_char,
 * index_from at a[k+1..k+3]) and the .npz they name, whose dict w->d holds. */
static const char *seq_setup(ArgSpec *spec, const char *const *params, bool dot, int n, const Val *args, const Kw *kw,
                             Val *a, int k, SeqOpts *o, SeqWork *w, char *buf, size_t bn) {
  const char *names[16];
  Val vals[16], nb;
  Kw known;
  seq_kwargs(kw, &known, names, vals, &nb, params, dot);
  args_parse(spec, n, args, known.n ? &known : NULL, a);
  parse_seq_opts(a + 1, nb, spec->what, o);
  o->has_start = opt_int(a[k + 1], "start_char", spec->what, true, &o->start_char);
  o->has_oov = opt_int(a[k + 2], "oov_char", spec->what, true, &o->oov_char);
  opt_int(a[k + 3], "index_from", spec->what, false, &o->index_from);
  const char *path = seq_file(spec->what, a[0], buf, bn);
  w->d = read_npz(path, spec->what);
  return path;
}

/* Members xname and yname of w->d: the sequences (into *x) and the labels (into *y); their count. */
static tfs_i64 seq_members(SeqWork *w, const char *xname, const char *yname, const char *path, Val *x, Tensor **y) {
  *x = npz_member(w->d, xname, path);
  if (val_is_npobj(*x) && ((NpObj *)x->u.o)->rank == 1) {   /* the object array's sequences */
    Val items = npobj_values(*x);
    val_decref(*x);
    *x = items;
  }
  Val yv = npz_member(w->d, yname, path);
  int mark = rt_hold_val(yv);
  tfs_i64 cnt = seq_count(*x, val_as_tensor(yv), xname, yname, path);
  *y = tensor_contiguous(val_as_tensor(yv));
  rt_unhold(mark);
  val_decref(yv);
  return cnt;
}

static const char *const imdb_params[] = {"path", "num_words", "skip_top", "maxlen", "seed", "start_char", "oov_char", "index_from", NULL};

//! tf.keras.datasets.imdb.load_data(path='imdb.npz', num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2, index_from=3)
//!   ((x_train, y_train), (x_test, y_test)) from Keras's imdb.npz in ~/.keras/datasets (KERAS_HOME when set): reviews as
//!   lists of word indices, shuffled by numpy's RandomState(seed) and filtered as Keras does; x_train and x_test are
//!   object ndarrays of lists (shape (n,), dtype object), y int64 arrays. Never downloads.
static Val imdb_load_data(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.imdb.load_data",
                         .sig = "path='imdb.npz', num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2, index_from=3"};
  Val a[8];
  SeqOpts o;
  SeqWork w;
  memset(&w, 0, sizeof w);
  int mark = rt_hold_fn(seqwork_free, &w);
  char buf[4096];
  const char *path = seq_setup(&spec, imdb_params, true, n, args, kw, a, 4, &o, &w, buf, sizeof buf);
  tfs_i64 ntr = seq_members(&w, "x_train", "y_train", path, &w.x1, &w.y1);
  tfs_i64 nte = seq_members(&w, "x_test", "y_test", path, &w.x2, &w.y2);
  MtState st;   /* one stream: the training rows are shuffled first, then the test rows */
  seed_rng(&st, a[4], spec.what);
  w.p1 = shuffled(&st, ntr);
  w.p2 = shuffled(&st, nte);
  seqs_from(&w.a, w.x1, w.p1, ntr, &o, path);
  seqs_from(&w.b, w.x2, w.p2, nte, &o, path);
  if (o.has_maxlen) {
    drop_long(&w.a, o.maxlen);
    drop_long(&w.b, o.maxlen);
    if (!w.a.n || !w.b.n)
      rt_throw(ERR_VALUE, "After filtering for sequences shorter than maxlen=%lld, no sequence was kept. Increase maxlen.", (long long)o.maxlen);
  }
  Seqs *sets[2] = {&w.a, &w.b};
  clip_words(sets, 2, &o);
  Val tr = seqs_xy(&w.a, w.y1, 0, w.a.n);
  rt_hold_val(tr);
  Val te = seqs_xy(&w.b, w.y2, 0, w.b.n);
  rt_unhold(mark);
  seqwork_free(&w);
  return kd_pair(tr, te);
}

static const char *const reuters_params[] = {"path", "num_words", "skip_top", "maxlen", "test_split", "seed", "start_char", "oov_char", "index_from", NULL};

//! tf.keras.datasets.reuters.load_data(path='reuters.npz', num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113, start_char=1, oov_char=2, index_from=3)
//!   ((x_train, y_train), (x_test, y_test)) from Keras's reuters.npz in ~/.keras/datasets: newswires as lists of word
//!   indices shuffled by numpy's RandomState(seed), filtered as Keras does, the first int(n * (1 - test_split)) for
//!   training; x as object ndarrays of lists (shape (n,), dtype object), y int64 arrays. Never downloads.
static Val reuters_load_data(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.reuters.load_data",
                         .sig = "path='reuters.npz', num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113, start_char=1, oov_char=2, index_from=3"};
  Val a[9];
  SeqOpts o;
  SeqWork w;
  memset(&w, 0, sizeof w);
  int mark = rt_hold_fn(seqwork_free, &w);
  char buf[4096];
  const char *path = seq_setup(&spec, reuters_params, false, n, args, kw, a, 5, &o, &w, buf, sizeof buf);
  double split;
  if (!val_as_float(a[4], &split)) rt_throw(ERR_TYPE, "%s: test_split must be a float, not %s", spec.what, val_type_name(a[4]));
  tfs_i64 cnt = seq_members(&w, "x", "y", path, &w.x1, &w.y1);
  MtState st;
  seed_rng(&st, a[5], spec.what);
  w.p1 = shuffled(&st, cnt);
  seqs_from(&w.a, w.x1, w.p1, cnt, &o, path);
  if (o.has_maxlen) drop_long(&w.a, o.maxlen);
  Seqs *sets[1] = {&w.a};
  clip_words(sets, 1, &o);
  tfs_i64 cut = (tfs_i64)((double)w.a.n * (1 - split));   /* Python's int() truncates toward zero */
  if (cut < 0) cut = w.a.n + cut < 0 ? 0 : w.a.n + cut;   /* xs[:negative] counts from the end */
  if (cut > w.a.n) cut = w.a.n;
  Val tr = seqs_xy(&w.a, w.y1, 0, cut);
  rt_hold_val(tr);
  Val te = seqs_xy(&w.a, w.y1, cut, w.a.n);
  rt_unhold(mark);
  seqwork_free(&w);
  return kd_pair(tr, te);
}

/* get_word_index(path): json.load of Keras's word index file. */
static Val word_index(const char *what, Val pathv) {
  char buf[4096];
  const char *path = seq_file(what, pathv, buf, sizeof buf);
  tfs_i64 len;
  char *text = io_read_bytes(path, what, &len, false);
  int mark = rt_hold_mem(text);
  Val v = json_read(text, len, path);
  rt_unhold(mark);
  free(text);
  return v;
}

//! tf.keras.datasets.imdb.get_word_index(path='imdb_word_index.json')
//!   The dict word -> index of Keras's imdb_word_index.json in ~/.keras/datasets (never downloaded).
static Val imdb_word_index(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.imdb.get_word_index", .sig = "path='imdb_word_index.json'"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return word_index(spec.what, a[0]);
}

//! tf.keras.datasets.reuters.get_word_index(path='reuters_word_index.json')
//!   The dict word -> index of Keras's reuters_word_index.json in ~/.keras/datasets (never downloaded).
static Val reuters_word_index(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.reuters.get_word_index", .sig = "path='reuters_word_index.json'"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return word_index(spec.what, a[0]);
}

//! tf.keras.datasets.reuters.get_label_names()
//!   The 46 topic names as a tuple of str, indexed by the labels load_data gives ('cocoa', 'grain', ...).
static Val reuters_label_names(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.keras.datasets.reuters.get_label_names", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  static const char *const topics[46] = {
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee", "sugar", "trade",
    "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum",
    "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi", "iron-steel", "rubber", "heat", "jobs", "lei",
    "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead"};
  Val t = tuple_new(46);
  for (int i = 0; i < 46; i++) ((Tuple *)t.u.o)->items[i] = str_from_cstr(topics[i]);
  return t;
}

static const struct { const char *qual, *name; BuiltinFn fn; } fns[] = {
  {"keras.datasets.cifar10.load_data", "tf.keras.datasets.cifar10.load_data", cifar10_load_data},
  {"keras.datasets.cifar100.load_data", "tf.keras.datasets.cifar100.load_data", cifar100_load_data},
  {"keras.datasets.imdb.load_data", "tf.keras.datasets.imdb.load_data", imdb_load_data},
  {"keras.datasets.imdb.get_word_index", "tf.keras.datasets.imdb.get_word_index", imdb_word_index},
  {"keras.datasets.reuters.load_data", "tf.keras.datasets.reuters.load_data", reuters_load_data},
  {"keras.datasets.reuters.get_word_index", "tf.keras.datasets.reuters.get_word_index", reuters_word_index},
  {"keras.datasets.reuters.get_label_names", "tf.keras.datasets.reuters.get_label_names", reuters_label_names},
};

/* One getattr per module: its functions are the table's entries under it. */
static Val mod_fn(const char *mod, const char *name) {
  char q[160];
  snprintf(q, sizeof q, "keras.datasets.%s.%s", mod, name);
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(fns[i].qual, q)) return tfmod_lookup(q);
  return val_undef();
}
static Val cifar10_getattr(const char *name) { return mod_fn("cifar10", name); }
static Val cifar100_getattr(const char *name) { return mod_fn("cifar100", name); }
static Val imdb_getattr(const char *name) { return mod_fn("imdb", name); }
static Val reuters_getattr(const char *name) { return mod_fn("reuters", name); }

//! tf.keras.datasets.cifar10
//!   CIFAR-10 from Keras's extracted cifar-10-batches-py/ in ~/.keras/datasets (never downloaded): load_data().
//! tf.keras.datasets.cifar100
//!   CIFAR-100 from Keras's extracted cifar-100-python/ in ~/.keras/datasets (never downloaded): load_data(label_mode).
//! tf.keras.datasets.imdb
//!   IMDB reviews from Keras's imdb.npz and imdb_word_index.json (never downloaded): load_data(...), get_word_index().
//! tf.keras.datasets.reuters
//!   Reuters newswires from Keras's reuters.npz and reuters_word_index.json (never downloaded): load_data(...),
//!   get_word_index(), get_label_names().
Val kdpickled_attr(const char *qual) {
  static const struct { const char *qual, *full; Val (*get)(const char *); } mods[] = {
    {"keras.datasets.cifar10", "keras.api._v2.keras.datasets.cifar10", cifar10_getattr},
    {"keras.datasets.cifar100", "keras.api._v2.keras.datasets.cifar100", cifar100_getattr},
    {"keras.datasets.imdb", "keras.api._v2.keras.datasets.imdb", imdb_getattr},
    {"keras.datasets.reuters", "keras.api._v2.keras.datasets.reuters", reuters_getattr},
  };
  for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++)
    if (!strcmp(qual, mods[i].qual)) {
      return module_native(mods[i].full, mods[i].get);
    }
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(qual, fns[i].qual)) return builtin_new(fns[i].name, fns[i].fn, val_undef(), NULL);
  return val_undef();
}
