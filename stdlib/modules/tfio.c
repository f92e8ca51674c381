/* tfio.c — the tf.io module: read_file/write_file, decode_csv, read_csv, .npy/.npz; host-level (runs when called). */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/atomicfile.h"
#include "formats/iofile.h"
#include "object/object.h"
#include "kernels/ops.h"
#include "modules/upops.h"
#include "modules/tfdata.h"
#include "modules/tfmod.h"

static bool given(Val v) { return v.tag != VT_NONE && v.tag != VT_UNDEF; }

/* ---- graph ops -------------------------------------------------------------------------
 * read_file, write_file, write_npy and decode_csv are ops of the op table
 * (ReadFile, WriteFile, _WriteNpy, DecodeCSV): eagerly they run at once;
 * inside a tf.function they are graph nodes (the file ones stateful), so
 * the file is read or written each time the graph runs, not while tracing. */

/* A file name argument: a str or a 0-d string tensor (symbolic ones too). */
static void path_check(Val v, const char *what) {
  if (val_is(v, &str_type)) return;
  Tensor *t = val_as_tensor(v);
  if (t && t->dtype == DT_STRING && t->rank == 0) return;
  rt_throw(ERR_TYPE, "%s: the file name must be a str or a string tensor, not %s", what, val_type_name(v));
}

static const char *str_in(OpCall *c, int i) {
  Str *s = *(Str **)tensor_data(c->in[i]);
  return s ? s->data : "";
}

static void meta_scalar_string(OpCall *c, int i, const char *what) {
  if (c->inm[i].dtype != DT_STRING || c->inm[i].rank != 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "%s: %s must be a scalar string tensor", c->op->graph_name, what);
}

void meta_read_file(OpCall *c) {
  meta_scalar_string(c, 0, "filename");
  meta_set(&c->outm[0], DT_STRING, 0, NULL);
}

void k_read_file(OpCall *c) {
  tfs_i64 len;
  char *data = io_read_all(str_in(c, 0), "tf.io.read_file", &len);
  Val v = str_new(data, len);
  free(data);
  *(Str **)tensor_data(c->out[0]) = (Str *)v.u.o;
}

void meta_write_file(OpCall *c) {
  meta_scalar_string(c, 0, "filename");
  meta_scalar_string(c, 1, "contents");
  c->nout = 0;
}

static void write_bytes(const char *path, const void *data, size_t n, const char *what) {
  int e = af_write(path, data, n);
  if (e) rt_throw(e == ENOENT ? ERR_NOT_FOUND : ERR_IO, "%s: %s; %s", what, path, strerror(e));
}

void k_write_file(OpCall *c) {
  Str *s = *(Str **)tensor_data(c->in[1]);
  write_bytes(str_in(c, 0), s ? s->data : "", s ? (size_t)s->len : 0, "tf.io.write_file");
}

void meta_write_npy(OpCall *c) {
  meta_scalar_string(c, 0, "filename");
  c->nout = 0;
}

void k_write_npy(OpCall *c) {
  size_t len;
  char *buf = npy_format(c->in[1], &len);
  int mark = rt_hold_mem(buf);
  write_bytes(str_in(c, 0), buf, len, "tf.io.write_npy");
  rt_unhold(mark);
  free(buf);
}

//! tf.io.read_file(filename, name=None)
//!   The whole contents of a file as a scalar string tensor (op ReadFile: inside a tf.function, read on every call).
static Val io_read_file(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.io.read_file", .sig = "filename, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  path_check(a[0], "tf.io.read_file");
  return op_apply(&op_defs[OP_READ_FILE], 1, a, NULL);
}

//! tf.io.write_file(filename, contents, name=None)
//!   Writes a scalar string tensor to a file, replacing it atomically (op WriteFile: inside a tf.function, on every call).
static Val io_write_file(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.io.write_file", .sig = "filename, contents, name=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  path_check(a[0], "tf.io.write_file");
  Tensor *t = val_as_tensor(a[1]);
  if (!val_is(a[1], &str_type) && !(t && t->dtype == DT_STRING && t->rank == 0))
    rt_throw(ERR_TYPE, "%s: contents must be a str or a 0-d string tensor, not %s", "tf.io.write_file", val_type_name(a[1]));
  return op_apply(&op_defs[OP_WRITE_FILE], 2, a, NULL);
}

//! tf.io.read_npy(path)
//!   Reads a NumPy .npy file (optionally .npy.gz) into a tensor of its dtype and shape.
static Val io_read_npy(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.io.read_npy", .sig = "path"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  const char *path = io_path_arg(a[0], "tf.io.read_npy");
  tfs_i64 len;
  char *data = io_read_all(path, "tf.io.read_npy", &len);
  int mark = rt_hold_mem(data);
  Tensor *t = npy_parse((const unsigned char *)data, len, path);
  rt_unhold(mark);
  free(data);
  return val_obj(t);
}

//! tf.io.read_npz(path)
//!   Reads a NumPy .npz archive (stored or deflate-compressed) into a dict of tensors by array name.
static Val io_read_npz(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.io.read_npz", .sig = "path"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  const char *path = io_path_arg(a[0], "tf.io.read_npz");
  return io_load_npz(path, "tf.io.read_npz");
}

Val io_load_npz(const char *path, const char *what) {
  tfs_i64 len;
  char *data = io_read_all(path, what, &len);
  int mark = rt_hold_mem(data);
  Val d = npz_parse((const unsigned char *)data, len, path, false);
  rt_unhold(mark);
  free(data);
  return d;
}

//! tf.io.write_npy(path, tensor)
//!   Writes a tensor as a NumPy .npy file (version 1.0), atomically (op _WriteNpy: inside a tf.function, on every call).
static Val io_write_npy(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.io.write_npy", .sig = "path, tensor"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  path_check(a[0], "tf.io.write_npy");
  return op_apply(&op_defs[OP_WRITE_NPY], 2, a, NULL);
}

/* ---- CSV ----------------------------------------------------------------------------
 * One record splits into fields at `delim`; with quoting, a field in double
 * quotes may hold the delimiter and "" stands for one quote (RFC 4180, as TF). */

/* def: the default as a 0/1-element tensor, owned (made from a host value) or borrowed from the op's attributes
 * (owned false): a graph worker runs this kernel too (graph/parexec.c), so attribute values are only read. */
typedef struct CsvCol { DType dt; bool has_default, owned; Val def; } CsvCol;

/* Split rec[0..n) into fields; returns the field count (fields stored in f[] up to max,
 * as malloc'd strings only when unquoting changed them), or -1 for a bad quote. */
typedef struct Field { const char *s; tfs_i64 n; char *own; } Field;

static int csv_split(const char *rec, tfs_i64 n, char delim, bool quotes, Field *f, int max) {
  int k = 0;
  tfs_i64 i = 0;
  for (;;) {
    Field fd = {rec + i, 0, NULL};
    if (quotes && i < n && rec[i] == '"') {
      StrBuf b;
      sb_init(&b);
      i++;
      for (;;) {
        if (i >= n) { sb_free(&b); goto bad; }
        if (rec[i] == '"') {
          if (i + 1 < n && rec[i + 1] == '"') { sb_putc(&b, '"'); i += 2; continue; }
          i++;
          break;
        }
        sb_putc(&b, rec[i++]);
      }
      if (i < n && rec[i] != delim) { sb_free(&b); goto bad; }
      fd.n = (tfs_i64)b.len;
      sb_putc(&b, '\0');
      fd.own = sb_steal(&b);
      fd.s = fd.own;
    } else {
      tfs_i64 j = i;
      while (j < n && rec[j] != delim) j++;
      fd.n = j - i;
      i = j;
    }
    if (k < max) f[k] = fd;
    else free(fd.own);
    k++;
    if (i >= n) break;
    i++;   /* the delimiter */
  }
  return k;
bad:
  for (int j = 0; j < k && j < max; j++) free(f[j].own);
  return -1;
}

static void free_fields(Field *f, int k) {
  for (int j = 0; j < k; j++) free(f[j].own);
}

/* Parse one field as dt into dst; false when it is not a valid number. */
static bool csv_value(const Field *fd, DType dt, void *dst) {
  char buf[64];
  if (dt == DT_STRING) {
    Val s = str_new(fd->s, fd->n);
    *(Str **)dst = (Str *)s.u.o;
    return true;
  }
  if (fd->n >= (tfs_i64)sizeof buf) return false;
  memcpy(buf, fd->s, (size_t)fd->n);
  buf[fd->n] = '\0';
  char *end;
  errno = 0;
  if (dtype_info[dt].is_float) {
    double x = strtod(buf, &end);
    if (end == buf || *end) return false;
    if (dt == DT_FLOAT32) *(float *)dst = (float)x;
    else *(double *)dst = x;
    return true;
  }
  long long x = strtoll(buf, &end, 10);
  if (end == buf || *end || errno) return false;
  switch (dt) {
  case DT_INT32: if (x < INT32_MIN || x > INT32_MAX) return false; *(int32_t *)dst = (int32_t)x; return true;
  case DT_INT64: *(int64_t *)dst = x; return true;
  case DT_UINT8: if (x < 0 || x > 255) return false; *(uint8_t *)dst = (uint8_t)x; return true;
  default: return false;
  }
}

static const char *csv_type_word(DType dt) {
  return dt == DT_FLOAT32 ? "float" : dt == DT_FLOAT64 ? "double" : dtype_info[dt].name;
}

/* record_defaults[i]: a dtype (required column), a host value or a 0/1-element tensor/list. */
static void csv_column(Val d, CsvCol *c, int i) {
  DType dt;
  c->def = val_undef();
  c->owned = false;
  if (val_as_dtype(d, &dt) && !val_is(d, &str_type)) { c->dt = dt; c->has_default = false; return; }
  Tensor *t = val_as_tensor(d);
  Val owned = val_undef();
  if (!t) { owned = val_obj(tensor_from_val(d, -1)); t = val_tensor(owned); }
  if (t->size > 1 || t->rank > 1 || t->sym) {
    TFS_DECREF(owned);
    rt_throw(ERR_INVALID_ARGUMENT, "tf.io.decode_csv: record_defaults[%d] must have at most one element", i);
  }
  c->dt = t->dtype;
  c->has_default = t->size == 1;
  if (c->dt == DT_BOOL) {
    TFS_DECREF(owned);
    rt_throw(ERR_INVALID_ARGUMENT, "tf.io.decode_csv: record_defaults[%d] has dtype bool; use int32, int64, float32, float64 or string", i);
  }
  if (!c->has_default) { TFS_DECREF(owned); return; }
  c->owned = !val_is_undef(owned);
  c->def = c->owned ? owned : val_obj(t);   /* borrowed: the attribute holds it */
}

static void csv_fill_record(const char *rec, tfs_i64 rn, tfs_i64 r, int ncols, CsvCol *cols, Tensor **outs, char delim,
                            bool quotes, const char *na) {
  Field f[256];
  int k = csv_split(rec, rn, delim, quotes, f, 256);
  if (k < 0) rt_throw(ERR_INVALID_ARGUMENT, "Quoted field has to end with quote followed by delim or end in record %lld", (long long)r);
  if (k != ncols) {
    free_fields(f, k < 256 ? k : 256);
    rt_throw(ERR_INVALID_ARGUMENT, "Expect %d fields but have %d in record %lld", ncols, k, (long long)r);
  }
  for (int i = 0; i < ncols; i++) {
    Tensor *o = outs[i];
    void *dst = (char *)tensor_data(o) + r * dtype_info[o->dtype].size;
    bool empty = f[i].n == 0 || (na && f[i].n == (tfs_i64)strlen(na) && !memcmp(f[i].s, na, f[i].n));
    if (empty) {
      if (!cols[i].has_default) {
        free_fields(f, k);
        rt_throw(ERR_INVALID_ARGUMENT, "Field %d is required but missing in record %lld!", i, (long long)r);
      }
      Tensor *d = val_tensor(cols[i].def);
      if (o->dtype == DT_STRING) {   /* a new string: the default may be the op's, shared with other threads */
        Str *s = *(Str **)tensor_data(d);
        *(Str **)dst = s ? (Str *)str_new(s->data, s->len).u.o : NULL;
      } else {
        memcpy(dst, tensor_data(d), (size_t)dtype_info[o->dtype].size);
      }
      continue;
    }
    if (!csv_value(&f[i], o->dtype, dst)) {
      char shown[80];
      snprintf(shown, sizeof shown, "%.*s", (int)(f[i].n < 60 ? f[i].n : 60), f[i].s);
      free_fields(f, k);
      rt_throw(ERR_INVALID_ARGUMENT, "Field %d in record %lld is not a valid %s: %s", i, (long long)r,
               csv_type_word(o->dtype), shown);
    }
  }
  free_fields(f, k);
}

/* DecodeCSV's attributes: record_defaults, field_delim, use_quote_delim, na_value.
 * The columns (dtype, default) of record_defaults; *nc: their count. */
static void csv_columns(OpCall *c, CsvCol *cols, int *nc, int *mark) {
  Val defs = op_attr(c, 0);   /* a list (io_decode_csv makes one): read in place, no count touched */
  if (!val_is(defs, &list_type) && !val_is(defs, &tuple_type))
    rt_throw(ERR_TYPE, "tf.io.decode_csv: record_defaults must be a list");
  tfs_i64 n;
  const Val *items;
  seq_items(defs, &n, &items);
  int ncols = (int)n;
  if (ncols == 0 || ncols > 256) rt_throw(ERR_INVALID_ARGUMENT, "tf.io.decode_csv: record_defaults must name 1 to 256 columns");
  for (int i = 0; i < ncols; i++) cols[i].def = val_undef(), cols[i].owned = false;
  *mark = -1;
  for (int i = 0; i < ncols; i++) {
    csv_column(items[i], &cols[i], i);
    if (cols[i].owned) {
      int m = rt_hold_val(cols[i].def);
      if (*mark < 0) *mark = m;
    }
  }
  *nc = ncols;
}

/* Release the defaults csv_columns made (held on the error hold stack from mark on). */
static void csv_columns_free(CsvCol *cols, int ncols, int mark) {
  if (mark >= 0) rt_unhold(mark);
  for (int i = 0; i < ncols; i++)
    if (cols[i].owned) val_decref(cols[i].def);
}

void meta_decode_csv(OpCall *c) {
  if (c->inm[0].dtype != DT_STRING)
    op_fail(c, ERR_TYPE, "tf.io.decode_csv: records must be strings, not %s", dtype_info[c->inm[0].dtype].name);
  CsvCol cols[256];
  int ncols, mark;
  csv_columns(c, cols, &ncols, &mark);
  DType dts[256];
  for (int i = 0; i < ncols; i++) dts[i] = cols[i].dt;
  csv_columns_free(cols, ncols, mark);   /* first: its unhold must not drop the reserved outputs' hold */
  op_reserve_outputs(c, ncols);
  for (int i = 0; i < ncols; i++) meta_set(&c->outm[i], dts[i], c->inm[0].rank, c->inm[0].shape);
}

void k_decode_csv(OpCall *c) {
  CsvCol cols[256];
  int ncols, mark;
  csv_columns(c, cols, &ncols, &mark);
  Tensor *rt = c->in[0];
  const char *na = val_is(op_attr(c, 3), &str_type) && str_len(op_attr(c, 3)) > 0 ? str_cstr(op_attr(c, 3)) : NULL;
  for (tfs_i64 r = 0; r < rt->size; r++) {
    Str *s = ((Str **)rt->buf->data)[tensor_elem_offset(rt, r)];
    csv_fill_record(s ? s->data : "", s ? s->len : 0, r, ncols, cols, c->out, str_cstr(op_attr(c, 1))[0],
                    rt_truthy(op_attr(c, 2)), na);
  }
  csv_columns_free(cols, ncols, mark);
}

//! tf.io.decode_csv(records, record_defaults, field_delim=',', use_quote_delim=True, na_value='', select_cols=None, name=None)
//!   Parses CSV lines into one tensor per column, typed and defaulted by record_defaults (op DecodeCSV).
static Val io_decode_csv(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.io.decode_csv",
                         .sig = "records, record_defaults, field_delim=',', use_quote_delim=True, na_value='', "
                                "select_cols=None, name=None"};
  Val a[7];
  args_parse(&spec, n, args, kw, a);
  if (given(a[5])) rt_throw(ERR_UNIMPLEMENTED, "tf.io.decode_csv: select_cols is not supported");
  if (!val_is(a[2], &str_type) || str_len(a[2]) != 1) rt_throw(ERR_INVALID_ARGUMENT, "field_delim should be only 1 char");
  Val rec = val_is_tensor(a[0]) ? val_incref(a[0]) : val_obj(tensor_from_val(a[0], DT_STRING));
  int mark = rt_hold_val(rec);
  Val defs = list_from_iterable(a[1]);
  rt_hold_val(defs);
  OpAttrs at = {4, {defs, a[2], val_bool(rt_truthy(a[3])), a[4]}};
  Val r = op_apply(&op_defs[OP_DECODE_CSV], 1, &rec, &at);
  rt_unhold(mark);
  val_decref(defs);
  val_decref(rec);
  return r;
}

/* tf.io.read_csv(path, dtype, skip_header): a whole numeric file as one 2-D tensor. */
//! tf.io.read_csv(path, dtype=float32, skip_header=0)
//!   A tfs addition: reads a numeric CSV file (or .csv.gz) into a 2-D tensor of dtype.
static Val io_read_csv(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.io.read_csv", .sig = "path, dtype=float32, skip_header=0"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  const char *path = io_path_arg(a[0], "tf.io.read_csv");
  DType dt;
  if (!val_as_dtype_arg(a[1], &dt)) dtype_fail(a[1]);
  if (dt == DT_BOOL || dt == DT_STRING) rt_throw(ERR_TYPE, "tf.io.read_csv: dtype must be numeric, not %s", dtype_info[dt].name);
  tfs_i64 skip = val_to_index(a[2], "skip_header");
  return io_csv_matrix(path, dt, skip, "tf.io.read_csv");
}

Val io_csv_matrix(const char *path, DType dt, tfs_i64 skip, const char *what) {
  tfs_i64 len;
  char *data = io_read_all(path, what, &len);
  int mark = rt_hold_mem(data);
  /* count the data lines and the fields of the first one */
  const char *p = data, *end = data + len;
  tfs_i64 line = 0, rows = 0, ncols = -1;
  for (const char *q = p; q < end; line++) {
    const char *e = memchr(q, '\n', (size_t)(end - q));
    if (!e) e = end;
    tfs_i64 ln = e - q;
    if (ln > 0 && q[ln - 1] == '\r') ln--;
    if (line >= skip && ln > 0) {
      tfs_i64 k = 1;
      for (tfs_i64 i = 0; i < ln; i++) k += q[i] == ',';
      if (ncols < 0) ncols = k;
      else if (k != ncols)
        rt_throw(ERR_INVALID_ARGUMENT, "%s: %s:%lld: expected %lld fields, found %lld", what, path, (long long)line + 1,
                 (long long)ncols, (long long)k);
      rows++;
    }
    q = e + 1;
  }
  if (ncols < 0) ncols = 0;
  tfs_i64 shape[2] = {rows, ncols};
  Tensor *t = tensor_new(dt, 2, shape);
  rt_hold_val(val_obj(t));
  char *out = tensor_data(t);
  size_t esz = (size_t)dtype_info[dt].size;
  tfs_i64 r = 0;
  line = 0;
  for (const char *q = p; q < end; line++) {
    const char *e = memchr(q, '\n', (size_t)(end - q));
    if (!e) e = end;
    tfs_i64 ln = e - q;
    if (ln > 0 && q[ln - 1] == '\r') ln--;
    if (line >= skip && ln > 0) {
      const char *f = q, *le = q + ln;
      for (tfs_i64 c = 0; c < ncols; c++) {
        const char *fe = memchr(f, ',', (size_t)(le - f));
        if (!fe) fe = le;
        Field fd = {f, fe - f, NULL};
        while (fd.n > 0 && (*fd.s == ' ' || *fd.s == '\t')) { fd.s++; fd.n--; }
        while (fd.n > 0 && (fd.s[fd.n - 1] == ' ' || fd.s[fd.n - 1] == '\t')) fd.n--;
        if (!csv_value(&fd, dt, out + (size_t)(r * ncols + c) * esz))
          rt_throw(ERR_INVALID_ARGUMENT, "%s: %s:%lld: field %lld is not a valid %s: %.*s", what, path, (long long)line + 1,
                   (long long)c + 1, csv_type_word(dt), (int)(fd.n < 60 ? fd.n : 60), fd.s);
        f = fe + 1;
      }
      r++;
    }
    q = e + 1;
  }
  rt_unhold(mark);
  free(data);
  return val_obj(t);
}

//! tf.io.gfile.glob(pattern)
//!   The sorted list of paths matching a shell pattern (*, ?, [...]), e.g. a log directory's event files;
//!   [] when none match.
static Val io_glob(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "tf.io.gfile.glob", .sig = "pattern"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  const char *pat = io_path_arg(a[0], "tf.io.gfile.glob");
  glob_t g;
  int rc = glob(pat, 0, NULL, &g);
  if (rc != 0 && rc != GLOB_NOMATCH) {
    globfree(&g);
    rt_throw(rc == GLOB_NOSPACE ? ERR_MEMORY : ERR_IO, "tf.io.gfile.glob: cannot read the directories of '%s'", pat);
  }
  Val list = list_new(0);
  int mark = rt_hold_val(list);
  for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {   /* glob sorts them */
    Val s = str_from_cstr(g.gl_pathv[i]);
    list_append(list, s);
    val_decref(s);
  }
  rt_unhold(mark);
  globfree(&g);
  return list;
}

/* ---- the module ------------------------------------------------------------------- */

typedef struct IoFunc { const char *name; BuiltinFn fn; } IoFunc;
static const IoFunc io_funcs[] = {
  {"read_file", io_read_file},   {"write_file", io_write_file}, {"decode_csv", io_decode_csv},
  {"read_csv", io_read_csv},     {"read_npy", io_read_npy},     {"write_npy", io_write_npy},
  {"read_npz", io_read_npz},
};

static Val io_getattr(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "io.%s", name);
  return tfmod_lookup(q);
}

static Val gfile_getattr(const char *name) {
  char q[128];
  snprintf(q, sizeof q, "io.gfile.%s", name);
  return tfmod_lookup(q);
}

//! tf.io
//!   File input and output: read_file, write_file, decode_csv, read_csv, NumPy .npy/.npz files, gfile.glob.
//! tf.io.gfile
//!   File system helpers: glob (native); exists, isdir, makedirs, mkdir, listdir, rmtree, remove, rename, copy, walk
//!   and GFile, written in .tfs (stdlib/tfgfile.tfs, compiled into a program that names gfile), with TF's errors.
//! tf.io.gfile.exists(path)
//!   True when the file or directory exists.
//! tf.io.gfile.isdir(path)
//!   True when path is a directory.
//! tf.io.gfile.makedirs(path)
//!   Creates the directory and its missing parents; an existing directory is fine.
//! tf.io.gfile.mkdir(path)
//!   Creates one directory: AlreadyExistsError when it exists, NotFoundError when its parent does not.
//! tf.io.gfile.listdir(path)
//!   The names of the directory's entries, in the file system's order; NotFoundError for a missing directory.
//! tf.io.gfile.rmtree(path)
//!   Deletes the directory and everything under it; NotFoundError when it does not exist.
//! tf.io.gfile.remove(path)
//!   Deletes a file; NotFoundError when it does not exist.
//! tf.io.gfile.rename(src, dst, overwrite=False) | tf.io.gfile.copy(src, dst, overwrite=False)
//!   Renames (copies) the file src to dst; an existing dst raises AlreadyExistsError unless overwrite=True.
//! tf.io.gfile.walk(top, topdown=True, onerror=None)
//!   (dirname, subdirectories, files) for top and each directory under it; nothing for a missing top.
//! tf.io.gfile.GFile(name, mode='r')
//!   A file opened on first use: read, readline, readlines, iteration, write, flush, size, close, `with`;
//!   'r'/'w'/'a' text, with 'b' bytes. Reading a missing file raises NotFoundError.
Val tfio_attr(const char *qual) {
  if (!strcmp(qual, "io")) return module_native("tensorflow._api.v2.io", io_getattr);
  if (!strcmp(qual, "io.gfile")) return module_native("tensorflow._api.v2.io.gfile", gfile_getattr);
  if (!strcmp(qual, "io.gfile.glob")) return builtin_new("tf.io.gfile.glob", io_glob, val_undef(), NULL);
  if (!strncmp(qual, "io.", 3)) {
    for (size_t i = 0; i < sizeof io_funcs / sizeof io_funcs[0]; i++)
      if (!strcmp(qual + 3, io_funcs[i].name)) {
        char q[96];
        snprintf(q, sizeof q, "tf.%s", qual);
        return builtin_new(strdup(q), io_funcs[i].fn, val_undef(), NULL);
      }
  }
  return val_undef();
}
