/* examplemod.c — `_example`: the wire form of tf.train.Example and its parts (stdlib/tfcore_example.tfs), checked values, text escapes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example.pb-c.h"
#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

/* The .tfs classes hand their contents over as plain values:
 *   Feature: None (no kind set) or (kind, values) with kind 1 bytes_list, 2 float_list, 3 int64_list;
 *   Features: a list of (key, Feature); FeatureList: a list of Feature; FeatureLists: a list of (key, FeatureList);
 *   Example: None (features unset) or a Features; SequenceExample: (context or None, feature_lists or None).
 * Map entries go out in the order given (the classes sort them: what protobuf's deterministic form does). */

enum { M_BYTES = 1, M_FLOAT, M_INT64, M_FEATURE, M_FEATURES, M_FLIST, M_FLISTS, M_EXAMPLE, M_SEQ };
static const char *const msg_names[] = {"", "BytesList", "FloatList", "Int64List", "Feature", "Features",
                                        "FeatureList", "FeatureLists", "Example", "SequenceExample"};

/* misuse of the private module (only tfcore_example.tfs calls it) */
static _Noreturn void ex_misuse(const char *what) { rt_throw(ERR_TYPE, "_example: %s", what); }

static int msg_kind(Val v) {
  if (val_is(v, &str_type))
    for (int i = 1; i <= M_SEQ; i++)
      if (!strcmp(str_cstr(v), msg_names[i])) return i;
  ex_misuse("unknown message type");
}

static void put_varint(StrBuf *b, uint64_t x) {
  char c[10];
  size_t n = 0;
  do {
    c[n] = (char)(x & 0x7f);
    x >>= 7;
    if (x) c[n] = (char)(c[n] | 0x80);
    n++;
  } while (x);
  sb_putn(b, c, n);
}

/* field `num` of wire type 2 holding sub[0..len) */
static void put_len(StrBuf *b, int num, const char *data, size_t len) {
  put_varint(b, (uint64_t)num << 3 | 2);
  put_varint(b, len);
  if (len) sb_putn(b, data, len);
}

static const Val *items_of(Val v, tfs_i64 *n, const char *what) {
  const Val *it;
  if (!seq_items(v, n, &it)) ex_misuse(what);
  return it;
}

static void enc_message(StrBuf *b, int kind, Val v);

/* a sub-message as field num of b */
static void enc_sub(StrBuf *b, int num, int kind, Val v) {
  StrBuf s;
  sb_init(&s);
  int mark = rt_hold_sb(&s);
  enc_message(&s, kind, v);
  put_len(b, num, s.data, s.len);
  rt_unhold(mark);
  sb_free(&s);
}

static void enc_list(StrBuf *b, int kind, Val v) {
  tfs_i64 n;
  const Val *it = items_of(v, &n, "value");
  if (kind == M_BYTES) {
    for (tfs_i64 i = 0; i < n; i++) {
      size_t len;
      if (!val_is(it[i], &bytes_type)) ex_misuse("a bytes_list value must be bytes");
      const void *d = bytes_data(it[i], &len);
      put_len(b, 1, d, len);
    }
    return;
  }
  if (!n) return;
  StrBuf s;
  sb_init(&s);
  int mark = rt_hold_sb(&s);
  for (tfs_i64 i = 0; i < n; i++) {
    if (kind == M_FLOAT) {
      double d;
      if (!val_as_float(it[i], &d)) ex_misuse("a float_list value must be a number");
      float f = (float)d;
      unsigned char c[4];
      memcpy(c, &f, 4);   /* little-endian hosts only (x86-64, as the rest of tfs) */
      sb_putn(&s, (const char *)c, 4);
    } else {
      int64_t x;
      if (!val_as_int(it[i], &x)) ex_misuse("an int64_list value must be an int");
      put_varint(&s, (uint64_t)x);
    }
  }
  put_len(b, 1, s.data, s.len);
  rt_unhold(mark);
  sb_free(&s);
}

/* entries (key, value) of a map field 1 whose values are of kind vkind */
static void enc_map(StrBuf *b, int vkind, Val v) {
  tfs_i64 n;
  const Val *it = items_of(v, &n, "a feature map");
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 k;
    const Val *kv = items_of(it[i], &k, "a map entry");
    if (k != 2 || !val_is(kv[0], &str_type)) ex_misuse("a map entry is (str, value)");
    StrBuf s;
    sb_init(&s);
    int mark = rt_hold_sb(&s);
    put_len(&s, 1, str_cstr(kv[0]), (size_t)str_len(kv[0]));   /* map entries always carry key and value */
    enc_sub(&s, 2, vkind, kv[1]);
    put_len(b, 1, s.data, s.len);
    rt_unhold(mark);
    sb_free(&s);
  }
}

static void enc_message(StrBuf *b, int kind, Val v) {
  switch (kind) {
    case M_BYTES: case M_FLOAT: case M_INT64: enc_list(b, kind, v); return;
    case M_FEATURE: {
      if (v.tag == VT_NONE) return;
      tfs_i64 n;
      const Val *kv = items_of(v, &n, "a Feature");
      int64_t k;
      if (n != 2 || !val_as_int(kv[0], &k) || k < 1 || k > 3) ex_misuse("a Feature is (kind, values)");
      enc_sub(b, (int)k, (int)k, kv[1]);
      return;
    }
    case M_FEATURES: enc_map(b, M_FEATURE, v); return;
    case M_FLISTS: enc_map(b, M_FLIST, v); return;
    case M_FLIST: {
      tfs_i64 n;
      const Val *it = items_of(v, &n, "a FeatureList");
      for (tfs_i64 i = 0; i < n; i++) enc_sub(b, 1, M_FEATURE, it[i]);
      return;
    }
    case M_EXAMPLE:
      if (v.tag != VT_NONE) enc_sub(b, 1, M_FEATURES, v);
      return;
    default: {   /* SequenceExample */
      tfs_i64 n;
      const Val *cf = items_of(v, &n, "a SequenceExample");
      if (n != 2) ex_misuse("a SequenceExample is (context, feature_lists)");
      if (cf[0].tag != VT_NONE) enc_sub(b, 1, M_FEATURES, cf[0]);
      if (cf[1].tag != VT_NONE) enc_sub(b, 2, M_FLISTS, cf[1]);
      return;
    }
  }
}

/* _example.encode(type_name, contents): the serialized message, as bytes */
static Val ex_encode(Val self, int n, const Val *args, const Kw *kw) {
  (void)self; (void)kw;
  if (n != 2) ex_misuse("encode(type_name, contents)");
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  enc_message(&b, msg_kind(args[0]), args[1]);
  Val r = bytes_new(b.data ? b.data : "", b.len);
  rt_unhold(mark);
  sb_free(&b);
  return r;
}

/* ---- decoding: protobuf-c parses, the trees are built from its messages ---- */

static Val list_of(tfs_i64 n) { return list_new(n ? n : 1); }

static Val pair(Val a, Val b) {   /* steals a and b */
  Val t = tuple_new(2);
  ((Tuple *)t.u.o)->items[0] = a;
  ((Tuple *)t.u.o)->items[1] = b;
  return t;
}

static void append_owned(Val list, Val item) {
  list_append(list, item);
  val_decref(item);
}

static Val dec_bytes(const Tensorflow__BytesList *m) {
  Val l = list_of(m ? (tfs_i64)m->n_value : 0);
  for (size_t i = 0; m && i < m->n_value; i++) append_owned(l, bytes_new(m->value[i].data ? (const char *)m->value[i].data : "", m->value[i].len));
  return l;
}

static Val dec_floats(const Tensorflow__FloatList *m) {
  Val l = list_of(m ? (tfs_i64)m->n_value : 0);
  for (size_t i = 0; m && i < m->n_value; i++) list_append(l, val_float(m->value[i]));
  return l;
}

static Val dec_ints(const Tensorflow__Int64List *m) {
  Val l = list_of(m ? (tfs_i64)m->n_value : 0);
  for (size_t i = 0; m && i < m->n_value; i++) list_append(l, val_int(m->value[i]));
  return l;
}

static Val dec_feature(const Tensorflow__Feature *f) {
  if (!f) return val_none();
  switch (f->kind_case) {
    case TENSORFLOW__FEATURE__KIND_BYTES_LIST: return pair(val_int(1), dec_bytes(f->bytes_list));
    case TENSORFLOW__FEATURE__KIND_FLOAT_LIST: return pair(val_int(2), dec_floats(f->float_list));
    case TENSORFLOW__FEATURE__KIND_INT64_LIST: return pair(val_int(3), dec_ints(f->int64_list));
    default: return val_none();
  }
}

static Val dec_features(const Tensorflow__Features *m) {
  Val l = list_of(m ? (tfs_i64)m->n_feature : 0);
  for (size_t i = 0; m && i < m->n_feature; i++) {
    const Tensorflow__FeatureEntry *e = m->feature[i];
    append_owned(l, pair(str_from_cstr(e->key ? e->key : ""), dec_feature(e->value)));
  }
  return l;
}

static Val dec_flist(const Tensorflow__FeatureList *m) {
  Val l = list_of(m ? (tfs_i64)m->n_feature : 0);
  for (size_t i = 0; m && i < m->n_feature; i++) append_owned(l, dec_feature(m->feature[i]));
  return l;
}

static Val dec_flists(const Tensorflow__FeatureLists *m) {
  Val l = list_of(m ? (tfs_i64)m->n_feature_list : 0);
  for (size_t i = 0; m && i < m->n_feature_list; i++) {
    const Tensorflow__FeatureListEntry *e = m->feature_list[i];
    append_owned(l, pair(str_from_cstr(e->key ? e->key : ""), dec_flist(e->value)));
  }
  return l;
}

/* _example.decode(type_name, data): the contents of the serialized message, or None when data is no such message */
static Val ex_decode(Val self, int n, const Val *args, const Kw *kw) {
  (void)self; (void)kw;
  if (n != 2 || !val_is(args[1], &bytes_type)) ex_misuse("decode(type_name, data: bytes)");
  int kind = msg_kind(args[0]);
  size_t len;
  const uint8_t *d = bytes_data(args[1], &len);
  Val r = val_none();
  switch (kind) {
#define DEC(K, T, t, conv)                                      \
    case K: {                                                   \
      Tensorflow__##T *m = tensorflow__##t##__unpack(NULL, len, d); \
      if (!m) return val_none();                                \
      r = conv;                                                 \
      tensorflow__##t##__free_unpacked(m, NULL);                \
      break;                                                    \
    }
    DEC(M_BYTES, BytesList, bytes_list, dec_bytes(m))
    DEC(M_FLOAT, FloatList, float_list, dec_floats(m))
    DEC(M_INT64, Int64List, int64_list, dec_ints(m))
    DEC(M_FEATURE, Feature, feature, dec_feature(m))
    DEC(M_FEATURES, Features, features, dec_features(m))
    DEC(M_FLIST, FeatureList, feature_list, dec_flist(m))
    DEC(M_FLISTS, FeatureLists, feature_lists, dec_flists(m))
    DEC(M_EXAMPLE, Example, example, m->features ? dec_features(m->features) : val_none())
    DEC(M_SEQ, SequenceExample, sequence_example,
        pair(m->context ? dec_features(m->context) : val_none(), m->feature_lists ? dec_flists(m->feature_lists) : val_none()))
#undef DEC
  }
  return pair(val_bool(true), r);   /* (True, contents): a parsed message may itself be None */
}

/* ---- values as protobuf's Python checks them ---- */

static _Noreturn void bad_value(Val v, const char *expected) {
  StrBuf b;
  sb_init(&b);
  rt_hold_sb(&b);
  val_repr(&b, v);
  rt_throw(ERR_TYPE, "%s has type %s, but expected one of: %s", b.data, val_type_name(v), expected);
}

/* _example.values(kind, iterable): the list a *List's value holds: bytes as they are, floats rounded to float32
 * (as protobuf stores them), ints in int64's range; TypeError/ValueError with protobuf's words otherwise. */
static Val ex_values(Val self, int n, const Val *args, const Kw *kw) {
  (void)self; (void)kw;
  int64_t kind;
  if (n != 2 || !val_as_int(args[0], &kind)) ex_misuse("values(kind, iterable)");
  Val src = list_from_iterable(args[1]);
  int mark = rt_hold_val(src);
  List *in = (List *)src.u.o;
  Val out = list_of(in->len);
  rt_hold_val(out);
  for (tfs_i64 i = 0; i < in->len; i++) {
    Val v = in->items[i];
    if (kind == 1) {
      if (!val_is(v, &bytes_type)) bad_value(v, "bytes");
      list_append(out, v);
    } else if (kind == 2) {
      double d;
      if (val_is(v, &str_type) || val_is(v, &bytes_type) || !val_as_float(v, &d)) bad_value(v, "int, float");
      list_append(out, val_float((double)(float)d));
    } else {
      int64_t x;
      if (v.tag == VT_FLOAT || val_is(v, &str_type) || val_is(v, &bytes_type) || !val_as_int(v, &x)) bad_value(v, "int");
      list_append(out, val_int(x));
    }
  }
  rt_unhold(mark);
  val_decref(src);
  return out;
}

/* _example.cescape(b): protobuf's text-format escape of bytes (octal for bytes outside printable ASCII) */
static Val ex_cescape(Val self, int n, const Val *args, const Kw *kw) {
  (void)self; (void)kw;
  if (n != 1 || !val_is(args[0], &bytes_type)) ex_misuse("cescape(data: bytes)");
  size_t len;
  const unsigned char *d = bytes_data(args[0], &len);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = d[i];
    switch (c) {
      case '\t': sb_puts(&b, "\\t"); break;
      case '\n': sb_puts(&b, "\\n"); break;
      case '\r': sb_puts(&b, "\\r"); break;
      case '"': sb_puts(&b, "\\\""); break;
      case '\'': sb_puts(&b, "\\'"); break;
      case '\\': sb_puts(&b, "\\\\"); break;
      default:
        if (c < 32 || c >= 127) sb_printf(&b, "\\%03o", c);
        else sb_putc(&b, (char)c);
    }
  }
  Val r = str_new(b.data ? b.data : "", (tfs_i64)b.len);
  rt_unhold(mark);
  sb_free(&b);
  return r;
}

//! tf.train.Example(features=None)
//!   One record of named features (stdlib/tfcore_example.tfs), as TF's protobuf message: SerializeToString() gives
//!   TF's bytes (map entries sorted by key), Example.FromString(b) / ParseFromString(b) read them back, str() is
//!   protobuf's text form, example.features.feature['x'].int64_list.value reads a list. TFRecord files hold them.
//! tf.train.Features | tf.train.Feature | tf.train.BytesList | tf.train.FloatList | tf.train.Int64List
//!   The parts of a tf.train.Example: Features(feature={name: Feature}), Feature(bytes_list= | float_list= |
//!   int64_list=) holding one list, BytesList(value=[b"..."]), FloatList(value=[...]) (stored as float32),
//!   Int64List(value=[...]); values checked as protobuf checks them. Each serializes and parses on its own.
//! tf.train.SequenceExample | tf.train.FeatureList | tf.train.FeatureLists
//!   A record with context Features and named sequences: SequenceExample(context=Features(...),
//!   feature_lists=FeatureLists(feature_list={name: FeatureList(feature=[Feature, ...])})); TF's bytes and text.
//! tf.io.parse_single_example(serialized, features, example_names=None, name=None)
//!   One serialized tf.train.Example (a scalar string) to a dict of dense tensors, one per spec of features
//!   (tf.io.FixedLenFeature, tf.io.FixedLenSequenceFeature); the ParseExampleV2 op, so it runs inside tf.function
//!   and Dataset.map. Missing, mistyped or mis-sized features raise TF's InvalidArgumentError texts.
//! tf.io.parse_example(serialized, features, example_names=None, name=None)
//!   A batch (1-D string tensor) of serialized Examples to a dict of tensors with a leading batch dimension;
//!   FixedLenSequenceFeature values are padded to the longest record with the default (or zeros).
//! tf.io.FixedLenFeature | tf.io.FixedLenSequenceFeature | tf.io.VarLenFeature
//!   Feature specs for tf.io.parse_example: FixedLenFeature(shape, dtype, default_value=None) (no default: the
//!   feature is required), FixedLenSequenceFeature(shape, dtype, allow_missing=True, default_value=None) (rows of
//!   shape, any number). VarLenFeature(dtype) parses to a tf.SparseTensor: indices [row, j] (just [j] for
//!   parse_single_example), the values in order, dense_shape [batch, longest row] ([count]).
#define EB(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_example." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin ex_fns[] = {EB("encode", ex_encode), EB("decode", ex_decode), EB("values", ex_values),
                           EB("cescape", ex_cescape)};

static Val ex_attr(const char *name) {
  for (size_t i = 0; i < sizeof ex_fns / sizeof ex_fns[0]; i++)
    if (!strcmp(ex_fns[i].name + 9, name)) return val_obj(&ex_fns[i]);
  return val_undef();
}

Val examplemod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_example", ex_attr);
  return val_incref(mod);
}
