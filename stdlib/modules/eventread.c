/* eventread.c — tf.compat.v1.train.summary_iterator (event files read back as Event messages) and tf.make_ndarray. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/iofile.h"
#include "modules/modules.h"
#include "modules/tfdata.h"
#include "object/object.h"
#include "formats/pbutil.h"
#include "formats/tfrecord.h"

/* A read-only view of one protobuf message: attribute access by field name
 * through protobuf-c's descriptors (as Python's generated classes give), repr
 * in text format.  `owner` keeps the unpacked Event alive; the root view owns
 * the message itself (owner VT_UNDEF). */
typedef struct PbView {
  Obj hdr;
  Val owner;
  ProtobufCMessage *m;
} PbView;

static const Type pbview_type;

static void pv_free(Obj *o) {
  PbView *v = (PbView *)o;
  if (val_is_undef(v->owner)) protobuf_c_message_free_unpacked(v->m, NULL);
  else val_decref(v->owner);
  free(o);
}

static void pv_text(StrBuf *b, Val self) { pb_text(b, ((PbView *)self.u.o)->m, 0); }

static Val pv_new(Val owner, const ProtobufCMessage *m) {
  PbView *v = obj_new(&pbview_type, sizeof(PbView));
  v->owner = val_incref(owner);
  v->m = (ProtobufCMessage *)m;
  return val_obj(v);
}

/* One value of a field's type at p (a scalar, a string or a sub-message). */
static Val pv_value(Val self, const ProtobufCFieldDescriptor *f, const void *p) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_ENUM:
      return val_int(*(const int32_t *)p);
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: return val_int(*(const uint32_t *)p);
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
      return val_int(*(const int64_t *)p);
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: return val_int((int64_t) * (const uint64_t *)p);
    case PROTOBUF_C_TYPE_FLOAT: return val_float(*(const float *)p);
    case PROTOBUF_C_TYPE_DOUBLE: return val_float(*(const double *)p);
    case PROTOBUF_C_TYPE_BOOL: return val_bool(*(const protobuf_c_boolean *)p != 0);
    case PROTOBUF_C_TYPE_STRING: {
      const char *s = *(char *const *)p;
      return str_from_cstr(s ? s : "");
    }
    case PROTOBUF_C_TYPE_BYTES: {
      const ProtobufCBinaryData *d = p;
      return bytes_new(d->data ? d->data : (const uint8_t *)"", d->len);
    }
    case PROTOBUF_C_TYPE_MESSAGE: {
      const ProtobufCMessage *m = *(ProtobufCMessage *const *)p;
      if (m) return pv_new(self, m);
      /* unset: an empty message of the field's type, as Python reads it (the view owns it) */
      const ProtobufCMessageDescriptor *d = f->descriptor;
      ProtobufCMessage *e = calloc(1, d->sizeof_message);
      if (!e) rt_throw(ERR_MEMORY, "out of memory");
      d->message_init(e);
      return pv_new(val_undef(), e);
    }
  }
  return val_none();
}

static size_t pv_size(const ProtobufCFieldDescriptor *f) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE: return 8;
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    default: return 4;
  }
}

/* A field by name: repeated ones as a list; a member of a oneof that is not
 * the one set reads as its default (0, "", an empty message), as in Python. */
static Val pv_getattr(Val self, const char *name) {
  PbView *v = (PbView *)self.u.o;
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(v->m->descriptor, name);
  if (!f) return val_undef();
  const char *base = (const char *)v->m;
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    size_t n = *(const size_t *)(base + f->quantifier_offset);
    const char *items = *(char *const *)(base + f->offset);
    Val l = list_new((tfs_i64)n);
    for (size_t i = 0; i < n; i++) {
      Val x = pv_value(self, f, items + i * pv_size(f));
      list_append(l, x);
      val_decref(x);
    }
    return l;
  }
  if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(const uint32_t *)(base + f->quantifier_offset) != f->id) {
    static const char zero[sizeof(ProtobufCBinaryData)];   /* a NULL message pointer too */
    if (f->type == PROTOBUF_C_TYPE_STRING) return str_from_cstr("");
    return pv_value(self, f, zero);
  }
  return pv_value(self, f, base + f->offset);
}

static const Type pbview_type = {
  .name = "Message", .free = pv_free, .repr = pv_text, .str = pv_text, .getattr = pv_getattr,
  .hash = obj_identity_hash,
};

/* The lazy iterator summary_iterator returns: the file is read whole, records
 * are checked (CRCs, lengths) and decoded one by one as iteration reaches them. */
typedef struct EventIter {
  Obj hdr;
  Val data;                   /* the file (a str of its bytes) */
  tfs_i64 at;
} EventIter;

static const Type eventiter_type;

static void ei_free(Obj *o) {
  val_decref(((EventIter *)o)->data);
  free(o);
}

static void ei_repr(StrBuf *b, Val v) {
  (void)v;
  sb_puts(b, "<generator object summary_iterator>");
}

static Val ei_iter(Val self) { return val_incref(self); }

static bool ei_next(Val self, Val *out) {
  EventIter *it = (EventIter *)self.u.o;
  const unsigned char *rec;
  tfs_i64 n, at = it->at;
  if (!tfr_next((const unsigned char *)str_cstr(it->data), str_len(it->data), &it->at, &rec, &n)) return false;
  Tensorflow__Event *ev = tensorflow__event__unpack(NULL, (size_t)n, rec);
  if (!ev) rt_throw(ERR_DATA_LOSS, "summary_iterator: the record at %lld is not an Event", (long long)at);
  PbView *v = obj_new(&pbview_type, sizeof(PbView));
  v->owner = val_undef();
  v->m = &ev->base;
  *out = val_obj(v);
  return true;
}

static const Type eventiter_type = {
  .name = "generator", .free = ei_free, .repr = ei_repr, .iter = ei_iter, .next = ei_next,
  .hash = obj_identity_hash,
};

//! tf.compat.v1.train.summary_iterator(path)
//!   Iterates over the Event messages of an event file (TF's name for reading tf.summary output back): each has
//!   step, wall_time, file_version, graph_def and summary.value (each value with tag, simple_value, tensor and
//!   metadata; tf.make_ndarray(value.tensor) gives the array). Every record's CRCs are checked as iteration
//!   reaches it: a damaged or cut file raises tf.errors.DataLossError after the events before it.
static Val ev_summary_iterator(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.compat.v1.train.summary_iterator", .sig = "path"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  const char *path = io_path_arg(a[0], "tf.compat.v1.train.summary_iterator");
  tfs_i64 len;
  char *data = io_read_bytes(path, "tf.compat.v1.train.summary_iterator", &len, false);
  EventIter *it = obj_new(&eventiter_type, sizeof(EventIter));
  it->data = str_new(data, len);
  free(data);
  it->at = 0;
  return val_obj(it);
}

//! tf.make_ndarray(tensor)
//!   The array a TensorProto holds (e.g. an event's summary value.tensor), as Tensor.numpy() gives it.
static Val ev_make_ndarray(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.make_ndarray", .sig = "tensor"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &pbview_type) || ((PbView *)a[0].u.o)->m->descriptor != &tensorflow__tensor_proto__descriptor)
    rt_throw(ERR_TYPE, "tf.make_ndarray: expected a TensorProto (e.g. an event's summary value.tensor), got %s",
             val_type_name(a[0]));
  const char *err = NULL;
  Tensor *t = pb_untensor((const Tensorflow__TensorProto *)((PbView *)a[0].u.o)->m, &err);
  if (!t) rt_throw(ERR_VALUE, "tf.make_ndarray: the TensorProto is inconsistent: %s", err ? err : "bad contents");
  Val tv = val_obj(t);
  int mark = rt_hold_val(tv);
  Val r = t->rank == 0 && t->dtype != DT_STRING ? ndarray_new_0d(t) : ndarray_new(t);   /* make_ndarray: 0-d is an array */
  rt_unhold(mark);
  val_decref(tv);
  return r;
}

//! tf.compat | tf.compat.v1 | tf.compat.v1.train
//!   TF 1 names kept for compatibility; tfs has tf.compat.v1.train.summary_iterator and tf.compat.v1.get_default_graph.
static Val compat_train(const char *name) {
  if (!strcmp(name, "summary_iterator"))
    return builtin_new("tf.compat.v1.train.summary_iterator", ev_summary_iterator, val_undef(), NULL);
  return val_undef();
}
/* the other tf.compat.v1 names tfs has are written in .tfs (stdlib/tfcore.tfs's _API, "compat.v1.<name>") */
static Val compat_v1_tfcore(const char *prefix, const char *name) {
  char q[128];
  snprintf(q, sizeof q, "%s%s", prefix, name);
  return tfcore_attr(q);
}
static Val compat_v1_debugging(const char *name) { return compat_v1_tfcore("compat.v1.debugging.", name); }
static Val compat_v1(const char *name) {
  if (!strcmp(name, "train")) return module_native("tensorflow._api.v2.compat.v1.train", compat_train);
  if (!strcmp(name, "get_default_graph")) return builtin_new("tf.compat.v1.get_default_graph", tfop_default_graph, val_undef(), NULL);
  if (!strcmp(name, "debugging")) return module_native("tensorflow._api.v2.compat.v1.debugging", compat_v1_debugging);
  return compat_v1_tfcore("compat.v1.", name);
}
static Val compat(const char *name) {
  if (!strcmp(name, "v1")) return module_native("tensorflow._api.v2.compat.v1", compat_v1);
  return val_undef();
}

Val eventread_lookup(const char *qual) {
  if (!strcmp(qual, "compat")) return module_native("tensorflow._api.v2.compat", compat);
  if (!strcmp(qual, "make_ndarray")) return builtin_new("tf.make_ndarray", ev_make_ndarray, val_undef(), NULL);
  return val_undef();
}
