/* tfrwriter.c — tf.io.TFRecordWriter and tf.io.TFRecordOptions: records framed in memory, the file (plain, GZIP or ZLIB) written atomically at close. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "object/atomicfile.h"
#include "formats/iofile.h"
#include "modules/modules.h"
#include "object/object.h"
#include "formats/tfrecord.h"

/* compression: 0 none, 1 GZIP, 2 ZLIB (as TFRecordDataset's Dataset.a) */
static int tfw_compression(Val v) {
  if (v.tag == VT_NONE || val_is_undef(v)) return 0;
  if (!val_is(v, &str_type)) rt_throw(ERR_TYPE, "compression_type must be a str or None, not %s", val_type_name(v));
  const char *c = str_cstr(v);
  if (!*c) return 0;
  if (!strcmp(c, "GZIP")) return 1;
  if (!strcmp(c, "ZLIB")) return 2;
  rt_throw(ERR_INVALID_ARGUMENT, "Unsupported compression_type: %s.", c);
}

typedef struct TfrOptions { Obj hdr; int comp; } TfrOptions;
static const Type tfroptions_type;

static const char *const comp_names[] = {"", "GZIP", "ZLIB"};

static void tfo_repr(StrBuf *b, Val v) {
  sb_printf(b, "TFRecordOptions(compression_type='%s')", comp_names[((TfrOptions *)v.u.o)->comp]);
}

static Val tfo_getattr(Val self, const char *name) {
  if (!strcmp(name, "compression_type")) return str_from_cstr(comp_names[((TfrOptions *)self.u.o)->comp]);
  return val_undef();
}

static void tfo_free(Obj *o) { free(o); }

static const Type tfroptions_type = {
  .name = "TFRecordOptions", .free = tfo_free, .repr = tfo_repr, .getattr = tfo_getattr,
  .hash = obj_identity_hash,
};

//! tf.io.TFRecordOptions(compression_type=None)
//!   Options for tf.io.TFRecordWriter: compression_type "GZIP", "ZLIB" or ""/None (no compression).
static Val tfo_new(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.io.TFRecordOptions", .sig = "compression_type=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  int comp = tfw_compression(a[0]);
  TfrOptions *o = obj_new(&tfroptions_type, sizeof(TfrOptions));
  o->comp = comp;
  return val_obj(o);
}

typedef struct TfrWriter {
  Obj hdr;
  char *path;
  int comp;
  bool closed;
  StrBuf recs;                /* the framed records so far */
} TfrWriter;

static const Type tfrwriter_type;

static void tfw_free(Obj *o) {
  TfrWriter *w = (TfrWriter *)o;
  free(w->path);
  sb_free(&w->recs);
  free(o);
}

static void tfw_repr(StrBuf *b, Val v) { sb_printf(b, "<tf.io.TFRecordWriter '%s'>", ((TfrWriter *)v.u.o)->path); }

static void tfw_close_file(TfrWriter *w) {
  if (w->closed) return;
  w->closed = true;
  StrBuf z;
  sb_init(&z);
  const StrBuf *body = &w->recs;
  int mark = rt_hold_sb(&z);
  if (w->comp) {
    io_deflate(&z, w->recs.data ? w->recs.data : "", w->recs.len, w->comp == 1, "tf.io.TFRecordWriter");
    body = &z;
  }
  int e = af_write(w->path, body->data ? body->data : "", body->len);
  rt_unhold(mark);
  sb_free(&z);
  if (e) rt_throw(e == ENOENT ? ERR_NOT_FOUND : ERR_IO, "tf.io.TFRecordWriter: cannot write '%s': %s", w->path, strerror(e));
}

static TfrWriter *tfw_open(Val self, const char *what) {
  TfrWriter *w = (TfrWriter *)self.u.o;
  if (w->closed) rt_throw(ERR_VALUE, "%s: the writer is closed", what);
  return w;
}

//! TFRecordWriter.write(record)
//!   Appends one record (bytes, a str or a scalar string tensor).
static Val tfw_write(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "TFRecordWriter.write", .sig = "record"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  TfrWriter *w = tfw_open(self, "TFRecordWriter.write");
  size_t len;
  const void *data;
  if (val_is(a[0], &bytes_type)) data = bytes_data(a[0], &len);
  else if (val_is(a[0], &str_type)) data = str_cstr(a[0]), len = (size_t)str_len(a[0]);
  else {
    Tensor *t = val_as_tensor(a[0]);
    if (!t || t->sym || t->dtype != DT_STRING || t->rank != 0)
      rt_throw(ERR_TYPE, "TFRecordWriter.write: a record is bytes, a str or a scalar string tensor, not %s",
               val_type_name(a[0]));
    Str *s = *(Str **)tensor_data(t);
    data = s ? s->data : "";
    len = s ? (size_t)s->len : 0;
  }
  tfr_frame(&w->recs, data, len);
  return val_none();
}

//! TFRecordWriter.flush()
//!   Accepted for TF's API; the records reach the file at close().
static Val tfw_flush(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  tfw_open(self, "TFRecordWriter.flush");   /* the file is written whole at close() */
  return val_none();
}

//! TFRecordWriter.close()
//!   Writes the file (compressed as the options say) atomically; later calls do nothing.
static Val tfw_close(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  tfw_close_file((TfrWriter *)self.u.o);
  return val_none();
}

static Val tfw_enter(Val self, int n, const Val *args, const Kw *kw) {
  (void)args; (void)kw;
  if (n) rt_throw(ERR_TYPE, "__enter__() takes no arguments (%d given)", n);
  return val_incref(self);
}

static Val tfw_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)n; (void)args; (void)kw;
  tfw_close_file((TfrWriter *)self.u.o);
  return val_bool(false);
}

static Val tfw_getattr(Val self, const char *name) {
  if (!strcmp(name, "write")) return builtin_new("TFRecordWriter.write", tfw_write, self, NULL);
  if (!strcmp(name, "flush")) return builtin_new("TFRecordWriter.flush", tfw_flush, self, NULL);
  if (!strcmp(name, "close")) return builtin_new("TFRecordWriter.close", tfw_close, self, NULL);
  if (!strcmp(name, "__enter__")) return builtin_new("__enter__", tfw_enter, self, NULL);
  if (!strcmp(name, "__exit__")) return builtin_new("__exit__", tfw_exit, self, NULL);
  return val_undef();
}

static const Type tfrwriter_type = {
  .name = "TFRecordWriter", .free = tfw_free, .repr = tfw_repr, .getattr = tfw_getattr, .hash = obj_identity_hash,
};

//! tf.io.TFRecordWriter(path, options=None)
//!   Writes records (bytes, str or scalar string tensors) framed as TFRecords with masked CRC-32Cs; options is a
//!   tf.io.TFRecordOptions or a compression type ("GZIP", "ZLIB", ""). write(record), flush(), close(), and `with`.
//!   The file is written whole, atomically, at close() (or the end of the with block).
static Val tfw_new(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.io.TFRecordWriter", .sig = "path, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  const char *path = io_path_arg(a[0], "tf.io.TFRecordWriter");
  int comp = val_is(a[1], &tfroptions_type) ? ((TfrOptions *)a[1].u.o)->comp : tfw_compression(a[1]);
  TfrWriter *w = obj_new(&tfrwriter_type, sizeof(TfrWriter));
  w->path = strdup(path);
  w->comp = comp;
  w->closed = false;
  sb_init(&w->recs);
  return val_obj(w);
}

Val tfrwriter_lookup(const char *name) {
  if (!strcmp(name, "TFRecordWriter")) return builtin_new("tf.io.TFRecordWriter", tfw_new, val_undef(), NULL);
  if (!strcmp(name, "TFRecordOptions")) return builtin_new("tf.io.TFRecordOptions", tfo_new, val_undef(), NULL);
  return val_undef();
}
