/* eventread.c — tf.compat.v1.train.summary_iterator (event files read back as Event messages) and tf.make_ndarray. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/iofile.h"
#include "modules/modules.h"
#include "modules/nodedefobj.h"
#include "modules/tfdata.h"
#include "object/object.h"
#include "formats/pbutil.h"
#include "formats/tfrecord.h"

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
  *out = proto_obj_take(&ev->base);   /* its fields as attributes, text as repr (nodedefobj.c) */
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
  const ProtobufCMessage *m = proto_obj_msg(a[0]);
  if (!m || m->descriptor != &tensorflow__tensor_proto__descriptor)
    rt_throw(ERR_TYPE, "tf.make_ndarray: expected a TensorProto (e.g. an event's summary value.tensor), got %s",
             val_type_name(a[0]));
  const char *err = NULL;
  Tensor *t = pb_untensor((const Tensorflow__TensorProto *)m, &err);
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
