/* dsnapmod.c — `_dsnap`: the two protos of a tf.data save/snapshot directory (dataset_spec.pb, a StructuredValue; snapshot.metadata, a SnapshotMetadataRecord) encoded and decoded for stdlib/tfdatasave.tfs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>

#include "formats/iofile.h"
#include "formats/pbutil.h"
#include "formats/snappyblk.h"
#include "object/atomicfile.h"
#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"
#include "saved_model.pb-c.h"
#include "tensor/tensor.h"
#include "snapshot.pb-c.h"

typedef Tensorflow__StructuredValue SV;
typedef Tensorflow__Data__Experimental__SnapshotMetadataRecord SnapMeta;

/* The element spec travels between the .tfs side and here as a tree of tuples:
 * ("none",)  ("spec", shape, dtype, name)  ("tuple", [nodes])  ("list", [nodes])  ("dict", [(key, node)]),
 * ("ragged", shape, dtype, ragged_rank, row_splits_dtype)  ("sparse", shape, dtype),
 * shape None (unknown rank) or a list of ints (-1: unknown dim), name a str or None. */

static const char *tree_err;   /* why a tree did not convert (the builders return NULL) */

static bool node_parts(Val v, const char **kind, tfs_i64 *n, const Val **f) {
  if (!val_is(v, &tuple_type) || !seq_items(v, n, f) || *n < 1 || !val_is((*f)[0], &str_type)) return false;
  *kind = str_cstr((*f)[0]);
  return true;
}

static SV *sv_of(PbArena *a, Val v);

static SV *sv_seq(PbArena *a, Val items, bool tuple) {
  tfs_i64 n;
  const Val *it;
  if (!val_is(items, &list_type) || !seq_items(items, &n, &it)) return tree_err = "a sequence node holds a list", NULL;
  SV **vals = pa_alloc(a, sizeof(SV *) * (size_t)(n + 1));
  for (tfs_i64 i = 0; i < n; i++)
    if (!(vals[i] = sv_of(a, it[i]))) return NULL;
  SV *s = pa_alloc(a, sizeof *s);
  tensorflow__structured_value__init(s);
  if (tuple) {
    s->kind_case = TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE;
    s->tuple_value = pa_alloc(a, sizeof *s->tuple_value);
    tensorflow__tuple_value__init(s->tuple_value);
    s->tuple_value->n_values = (size_t)n, s->tuple_value->values = vals;
  } else {
    s->kind_case = TENSORFLOW__STRUCTURED_VALUE__KIND_LIST_VALUE;
    s->list_value = pa_alloc(a, sizeof *s->list_value);
    tensorflow__list_value__init(s->list_value);
    s->list_value->n_values = (size_t)n, s->list_value->values = vals;
  }
  return s;
}

static SV *sv_dict(PbArena *a, Val items) {
  tfs_i64 n;
  const Val *it;
  if (!val_is(items, &list_type) || !seq_items(items, &n, &it)) return tree_err = "a dict node holds a list", NULL;
  Tensorflow__DictValue__FieldsEntry **ents = pa_alloc(a, sizeof(void *) * (size_t)(n + 1));
  for (tfs_i64 i = 0; i < n; i++) {
    tfs_i64 k;
    const Val *kv;
    if (!seq_items(it[i], &k, &kv) || k != 2 || !val_is(kv[0], &str_type)) return tree_err = "dict keys are str", NULL;
    ents[i] = pa_alloc(a, sizeof *ents[i]);
    tensorflow__dict_value__fields_entry__init(ents[i]);
    ents[i]->key = pa_strdup(a, str_cstr(kv[0]));
    if (!(ents[i]->value = sv_of(a, kv[1]))) return NULL;
  }
  SV *s = pa_alloc(a, sizeof *s);
  tensorflow__structured_value__init(s);
  s->kind_case = TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE;
  s->dict_value = pa_alloc(a, sizeof *s->dict_value);
  tensorflow__dict_value__init(s->dict_value);
  s->dict_value->n_fields = (size_t)n, s->dict_value->fields = ents;
  return s;
}

static SV *sv_spec(PbArena *a, const Val *f) {
  DType dt;
  if (!val_as_dtype(f[2], &dt)) return tree_err = "a spec node's dtype", NULL;
  tfs_i64 dims[TFS_MAX_RANK];
  int rank = -1;
  if (f[1].tag != VT_NONE) {
    tfs_i64 n;
    const Val *d;
    if (!seq_items(f[1], &n, &d) || n > TFS_MAX_RANK) return tree_err = "a spec node's shape", NULL;
    for (tfs_i64 i = 0; i < n; i++) {
      int64_t x;
      if (!val_as_int(d[i], &x)) return tree_err = "a spec node's shape", NULL;
      dims[i] = x;
    }
    rank = (int)n;
  }
  SV *s = pa_alloc(a, sizeof *s);
  tensorflow__structured_value__init(s);
  s->kind_case = TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE;
  s->tensor_spec_value = pa_alloc(a, sizeof *s->tensor_spec_value);
  tensorflow__tensor_spec_proto__init(s->tensor_spec_value);
  s->tensor_spec_value->name = pa_strdup(a, val_is(f[3], &str_type) ? str_cstr(f[3]) : "");
  s->tensor_spec_value->shape = pb_shape(a, rank, dims);
  s->tensor_spec_value->dtype = pb_dtype(dt);
  return s;
}

static SV *sv_new(PbArena *a, int kind) {
  SV *s = pa_alloc(a, sizeof *s);
  tensorflow__structured_value__init(s);
  s->kind_case = kind;
  return s;
}

static bool tree_shape(Val v, int *rank, tfs_i64 *dims) {
  *rank = -1;
  if (v.tag == VT_NONE) return true;
  tfs_i64 n;
  const Val *d;
  if (!seq_items(v, &n, &d) || n > TFS_MAX_RANK) return false;
  for (tfs_i64 i = 0; i < n; i++) {
    int64_t x;
    if (!val_as_int(d[i], &x)) return false;
    dims[i] = x;
  }
  *rank = (int)n;
  return true;
}

/* A RaggedTensorSpec or SparseTensorSpec as TF's nested_structure_coder writes it: a TypeSpecProto of the class
 * (RAGGED_TENSOR_SPEC 3, SPARSE_TENSOR_SPEC 1), its _serialize() tuple as type_state ((shape, dtype, ragged_rank,
 * row_splits_dtype) / (shape, dtype)), its class name and its count of expanded components. */
static SV *sv_typespec(PbArena *a, bool ragged, const Val *f) {
  DType dt, sdt = DT_INT64;
  int64_t rr = 0;
  int rank;
  tfs_i64 dims[TFS_MAX_RANK];
  if (!tree_shape(f[1], &rank, dims) || !val_as_dtype(f[2], &dt)) return tree_err = "a type spec node's shape or dtype", NULL;
  if (ragged && (!val_as_int(f[3], &rr) || !val_as_dtype(f[4], &sdt))) return tree_err = "a ragged spec node", NULL;
  int n = ragged ? 4 : 2;
  SV **vals = pa_alloc(a, sizeof(SV *) * (size_t)n);
  vals[0] = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SHAPE_VALUE);
  vals[0]->tensor_shape_value = pb_shape(a, rank, dims);
  vals[1] = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_DTYPE_VALUE);
  vals[1]->tensor_dtype_value = pb_dtype(dt);
  if (ragged) {
    vals[2] = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_INT64_VALUE);
    vals[2]->int64_value = rr;
    vals[3] = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_DTYPE_VALUE);
    vals[3]->tensor_dtype_value = pb_dtype(sdt);
  }
  SV *state = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE);
  state->tuple_value = pa_alloc(a, sizeof *state->tuple_value);
  tensorflow__tuple_value__init(state->tuple_value);
  state->tuple_value->n_values = (size_t)n, state->tuple_value->values = vals;
  SV *s = sv_new(a, TENSORFLOW__STRUCTURED_VALUE__KIND_TYPE_SPEC_VALUE);
  s->type_spec_value = pa_alloc(a, sizeof *s->type_spec_value);
  tensorflow__type_spec_proto__init(s->type_spec_value);
  s->type_spec_value->type_spec_class = ragged ? 3 : 1;
  s->type_spec_value->type_state = state;
  s->type_spec_value->type_spec_class_name = ragged ? "RaggedTensorSpec" : "SparseTensorSpec";
  /* _component_specs: flat_values and one row_splits a ragged dimension; indices, values, dense_shape */
  s->type_spec_value->num_flat_components = ragged ? (int32_t)(1 + rr) : 3;
  return s;
}

static SV *sv_of(PbArena *a, Val v) {
  const char *kind;
  tfs_i64 n;
  const Val *f;
  if (!node_parts(v, &kind, &n, &f)) return tree_err = "a node is a (kind, ...) tuple", NULL;
  if (!strcmp(kind, "none")) {
    SV *s = pa_alloc(a, sizeof *s);
    tensorflow__structured_value__init(s);
    s->kind_case = TENSORFLOW__STRUCTURED_VALUE__KIND_NONE_VALUE;
    s->none_value = pa_alloc(a, sizeof *s->none_value);
    tensorflow__none_value__init(s->none_value);
    return s;
  }
  if (!strcmp(kind, "spec") && n == 4) return sv_spec(a, f);
  if ((!strcmp(kind, "tuple") || !strcmp(kind, "list")) && n == 2) return sv_seq(a, f[1], kind[0] == 't');
  if (!strcmp(kind, "dict") && n == 2) return sv_dict(a, f[1]);
  if (!strcmp(kind, "ragged") && n == 5) return sv_typespec(a, true, f);
  if (!strcmp(kind, "sparse") && n == 3) return sv_typespec(a, false, f);
  return tree_err = "unknown node kind", NULL;
}

/* _dsnap.encode_spec(tree): the StructuredValue bytes TF's nested_structure_coder writes for it. */
static Val encode_spec_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "_dsnap.encode_spec(tree)");
  PbArena a = {0};
  SV *s = sv_of(&a, args[0]);
  if (!s) {
    pa_free(&a);
    rt_throw(ERR_TYPE, "_dsnap.encode_spec: %s", tree_err);
  }
  size_t len;
  unsigned char *buf = pb_pack(&s->base, &len);
  pa_free(&a);
  Val out = bytes_new(buf, len);
  free(buf);
  return out;
}

static Val pair(Val a, Val b) {
  Val t = tuple_new(2);
  ((Tuple *)t.u.o)->items[0] = a;
  ((Tuple *)t.u.o)->items[1] = b;
  return t;
}

/* The tree of a decoded StructuredValue; VT_UNDEF for a kind an element spec does not hold. */
static Val tree_of(const SV *s, int depth) {
  if (!s || depth > 100) return val_undef();
  switch (s->kind_case) {
  case TENSORFLOW__STRUCTURED_VALUE__KIND_NONE_VALUE: {
    Val t = tuple_new(1);
    ((Tuple *)t.u.o)->items[0] = str_from_cstr("none");
    return t;
  }
  case TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SPEC_VALUE: {
    const Tensorflow__TensorSpecProto *p = s->tensor_spec_value;
    int dt = pb_undtype(p->dtype), rank;
    tfs_i64 dims[TFS_MAX_RANK];
    if (dt < 0 || !pb_unshape(p->shape, &rank, dims)) return val_undef();
    Val shape = val_none();
    if (rank >= 0) {
      shape = list_new(rank);
      for (int i = 0; i < rank; i++) {
        Val d = val_int(dims[i]);
        list_append(shape, d);
      }
    }
    Val t = tuple_new(4);
    Val *it = ((Tuple *)t.u.o)->items;
    it[0] = str_from_cstr("spec");
    it[1] = shape;
    it[2] = dtype_val((DType)dt);
    it[3] = p->name && *p->name ? str_from_cstr(p->name) : val_none();
    return t;
  }
  case TENSORFLOW__STRUCTURED_VALUE__KIND_TYPE_SPEC_VALUE: {
    const Tensorflow__TypeSpecProto *p = s->type_spec_value;
    bool ragged = p->type_spec_class == 3;
    size_t want = ragged ? 4 : 2;
    if ((!ragged && p->type_spec_class != 1) || !p->type_state ||
        p->type_state->kind_case != TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE)
      return val_undef();
    const Tensorflow__TupleValue *tv = p->type_state->tuple_value;
    /* a RaggedTensorSpec with a flat_values_spec has a fifth member: not one tfs makes */
    if (tv->n_values != want || tv->values[0]->kind_case != TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_SHAPE_VALUE ||
        tv->values[1]->kind_case != TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_DTYPE_VALUE)
      return val_undef();
    int rank, dt = pb_undtype(tv->values[1]->tensor_dtype_value), sdt = 0;
    tfs_i64 dims[TFS_MAX_RANK];
    if (dt < 0 || !pb_unshape(tv->values[0]->tensor_shape_value, &rank, dims)) return val_undef();
    if (ragged && (tv->values[2]->kind_case != TENSORFLOW__STRUCTURED_VALUE__KIND_INT64_VALUE ||
                   tv->values[3]->kind_case != TENSORFLOW__STRUCTURED_VALUE__KIND_TENSOR_DTYPE_VALUE ||
                   (sdt = pb_undtype(tv->values[3]->tensor_dtype_value)) < 0))
      return val_undef();
    Val shape = val_none();
    if (rank >= 0) {
      shape = list_new(rank);
      for (int i = 0; i < rank; i++) list_append(shape, val_int(dims[i]));
    }
    Val t = tuple_new(ragged ? 5 : 3);
    Val *it = ((Tuple *)t.u.o)->items;
    it[0] = str_from_cstr(ragged ? "ragged" : "sparse");
    it[1] = shape;
    it[2] = dtype_val((DType)dt);
    if (ragged) {
      it[3] = val_int(tv->values[2]->int64_value);
      it[4] = dtype_val((DType)sdt);
    }
    return t;
  }
  case TENSORFLOW__STRUCTURED_VALUE__KIND_LIST_VALUE:
  case TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE: {
    bool tup = s->kind_case == TENSORFLOW__STRUCTURED_VALUE__KIND_TUPLE_VALUE;
    size_t n = tup ? s->tuple_value->n_values : s->list_value->n_values;
    SV **vals = tup ? s->tuple_value->values : s->list_value->values;
    Val items = list_new((tfs_i64)n);
    for (size_t i = 0; i < n; i++) {
      Val c = tree_of(vals[i], depth + 1);
      if (val_is_undef(c)) return val_decref(items), val_undef();
      list_append(items, c);
      val_decref(c);
    }
    return pair(str_from_cstr(tup ? "tuple" : "list"), items);
  }
  case TENSORFLOW__STRUCTURED_VALUE__KIND_DICT_VALUE: {
    Val items = list_new((tfs_i64)s->dict_value->n_fields);
    for (size_t i = 0; i < s->dict_value->n_fields; i++) {
      const Tensorflow__DictValue__FieldsEntry *e = s->dict_value->fields[i];
      Val c = tree_of(e->value, depth + 1);
      if (val_is_undef(c)) return val_decref(items), val_undef();
      Val kv = pair(str_from_cstr(e->key ? e->key : ""), c);
      list_append(items, kv);
      val_decref(kv);
    }
    return pair(str_from_cstr("dict"), items);
  }
  default:
    return val_undef();
  }
}

/* _dsnap.decode_spec(data): the tree of a StructuredValue; None when the bytes are not one an element spec makes. */
static Val decode_spec_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &bytes_type)) rt_throw(ERR_TYPE, "_dsnap.decode_spec(data)");
  size_t len;
  const void *d = bytes_data(args[0], &len);
  SV *s = tensorflow__structured_value__unpack(NULL, len, d);
  Val t = tree_of(s, 0);
  if (s) tensorflow__structured_value__free_unpacked(s, NULL);
  return val_is_undef(t) ? val_none() : t;
}

/* _dsnap.encode_meta(run_id, graph_hash, version, dtypes, num_elements, finalized): a SnapshotMetadataRecord
 * stamped with the current time, as TF's save and snapshot write it. */
static Val encode_meta_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  int64_t version, count;
  tfs_i64 nd;
  const Val *dts;
  if (n != 6 || (kw && kw->n) || !val_is(args[0], &str_type) || !val_is(args[1], &str_type) ||
      !val_as_int(args[2], &version) || !seq_items(args[3], &nd, &dts) || !val_as_int(args[4], &count))
    rt_throw(ERR_TYPE, "_dsnap.encode_meta(run_id, graph_hash, version, dtypes, num_elements, finalized)");
  int32_t *codes = calloc((size_t)nd + 1, sizeof *codes);
  if (!codes) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < nd; i++) {
    DType dt;
    if (!val_as_dtype(dts[i], &dt)) {
      free(codes);
      rt_throw(ERR_TYPE, "_dsnap.encode_meta: dtypes must be tf.DTypes");
    }
    codes[i] = (int32_t)pb_dtype(dt);
  }
  struct timeval tv;
  gettimeofday(&tv, NULL);
  SnapMeta m = TENSORFLOW__DATA__EXPERIMENTAL__SNAPSHOT_METADATA_RECORD__INIT;
  m.run_id = (char *)str_cstr(args[0]);
  m.graph_hash = (char *)str_cstr(args[1]);
  m.creation_timestamp = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
  m.version = version;
  m.n_dtype = (size_t)nd, m.dtype = codes;
  m.num_elements = count;
  m.finalized = rt_truthy(args[5]);
  size_t len = tensorflow__data__experimental__snapshot_metadata_record__get_packed_size(&m);
  uint8_t *buf = malloc(len + 1);
  if (!buf) {
    free(codes);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  tensorflow__data__experimental__snapshot_metadata_record__pack(&m, buf);
  free(codes);
  Val out = bytes_new(buf, len);
  free(buf);
  return out;
}

/* _dsnap.decode_meta(data, filename): (run_id, graph_hash, version, dtypes, num_elements, finalized); a
 * DataLossError naming the file, as TF's ReadBinaryProto, when the bytes are not the record. */
static Val decode_meta_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 2 || (kw && kw->n) || !val_is(args[0], &bytes_type) || !val_is(args[1], &str_type))
    rt_throw(ERR_TYPE, "_dsnap.decode_meta(data, filename)");
  size_t len;
  const void *d = bytes_data(args[0], &len);
  SnapMeta *m = tensorflow__data__experimental__snapshot_metadata_record__unpack(NULL, len, d);
  /* errindex: Can't parse … as binary proto */
  if (!m) rt_throw(ERR_DATA_LOSS, "Can't parse %s as binary proto", str_cstr(args[1]));
  Val dts = list_new((tfs_i64)m->n_dtype);
  for (size_t i = 0; i < m->n_dtype; i++) {
    int dt = pb_undtype((Tensorflow__DataType)m->dtype[i]);
    if (dt < 0) {
      tensorflow__data__experimental__snapshot_metadata_record__free_unpacked(m, NULL);
      val_decref(dts);
      rt_throw(ERR_DATA_LOSS, "Can't parse %s as binary proto", str_cstr(args[1]));
    }
    Val v = dtype_val((DType)dt);
    list_append(dts, v);
    val_decref(v);
  }
  Val t = tuple_new(6);
  Val *it = ((Tuple *)t.u.o)->items;
  it[0] = str_from_cstr(m->run_id ? m->run_id : "");
  it[1] = str_from_cstr(m->graph_hash ? m->graph_hash : "");
  it[2] = val_int(m->version);
  it[3] = dts;
  it[4] = val_int(m->num_elements);
  it[5] = val_bool(m->finalized);
  tensorflow__data__experimental__snapshot_metadata_record__free_unpacked(m, NULL);
  return t;
}

/* _dsnap.run_id(): a fresh random 64-bit id as TF prints it (%llu), naming a run directory. */
static Val run_id_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self, (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "_dsnap.run_id()");
  unsigned long long id = 0;
  if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    id = ((unsigned long long)tv.tv_sec * 1000003u) ^ (unsigned long long)tv.tv_usec ^ (unsigned long long)(uintptr_t)&id;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%llu", id);
  return str_from_cstr(buf);
}

/* _dsnap.fingerprint(data): FNV-1a 64 of the bytes as %llu, the name of a snapshot's hash directory. */
static Val fingerprint_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &bytes_type)) rt_throw(ERR_TYPE, "_dsnap.fingerprint(data)");
  size_t len;
  const unsigned char *d = bytes_data(args[0], &len);
  unsigned long long h = 14695981039346656037ull;
  for (size_t i = 0; i < len; i++) h = (h ^ d[i]) * 1099511628211ull;
  char buf[32];
  snprintf(buf, sizeof buf, "%llu", h);
  return str_from_cstr(buf);
}

/* _dsnap.snappy_file(path): rewrite the plain TFRecord file at path (tf.io.TFRecordWriter's, complete) as
 * TF's SNAPPY record file, atomically.  tf.io.TFRecordWriter itself takes no "SNAPPY", as TF's
 * TFRecordOptions; TF's save and snapshot write it through the C++ RecordWriter. */
static Val snappy_file_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "_dsnap.snappy_file(path)");
  const char *path = str_cstr(args[0]);
  tfs_i64 len;
  char *plain = io_read_bytes(path, "tf.data save", &len, false);
  int mark = rt_hold_mem(plain);
  StrBuf z;
  sb_init(&z);
  rt_hold_sb(&z);
  snb_compress_records(&z, plain, (size_t)len);
  int e = af_write(path, z.data ? z.data : "", z.len);
  if (e) rt_throw(ERR_IO, "tf.data save: cannot write '%s': %s", path, strerror(e));
  rt_unhold(mark);
  free(plain);
  sb_free(&z);
  return val_none();
}

/* ---- DT_VARIANT components (tf.data's ragged and sparse elements) ----
 * TF's snapshot writer stores a component with Tensor::AsProtoTensorContent; for a variant tensor that is
 * tensor_content = the varint32 length of every element's encoding, then the encodings (EncodeVariantList
 * through a StringListEncoder), each a VariantTensorDataProto {type_name, tensors in AsProtoField form}.
 * A RaggedTensorSpec's component is one scalar "RaggedTensorVariant" (row_splits..., flat_values); a
 * SparseTensorSpec's is SerializeSparse's [3] vector of "tensorflow::Tensor" (indices, values, dense_shape). */

static void put_varint(StrBuf *b, uint64_t v) {
  do {
    char c = (char)(v & 0x7f);
    v >>= 7;
    if (v) c = (char)(c | 0x80);
    sb_putc(b, c);
  } while (v);
}

/* _dsnap.encode_variant(shape, parts): the TensorProto bytes of a DT_VARIANT tensor of that shape whose elements
 * are parts, each (type_name, [eager tensors]). */
static Val encode_variant_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  int rank;
  tfs_i64 dims[TFS_MAX_RANK], np;
  const Val *parts;
  if (n != 2 || (kw && kw->n) || !tree_shape(args[0], &rank, dims) || rank < 0 || !seq_items(args[1], &np, &parts))
    rt_throw(ERR_TYPE, "_dsnap.encode_variant(shape, parts)");
  PbArena a = {0};
  StrBuf lens, body;
  sb_init(&lens), sb_init(&body);
  for (tfs_i64 i = 0; i < np; i++) {
    tfs_i64 k, nt;
    const Val *f, *ts;
    if (!seq_items(parts[i], &k, &f) || k != 2 || !val_is(f[0], &str_type) || !seq_items(f[1], &nt, &ts)) goto bad;
    Tensorflow__VariantTensorDataProto vp = TENSORFLOW__VARIANT_TENSOR_DATA_PROTO__INIT;
    vp.type_name = (char *)str_cstr(f[0]);
    vp.n_tensors = (size_t)nt;
    vp.tensors = pa_alloc(&a, sizeof(void *) * (size_t)(nt + 1));
    for (tfs_i64 j = 0; j < nt; j++) {
      if (!val_is(ts[j], &tensor_type) || val_tensor(ts[j])->sym || val_tensor(ts[j])->dtype == DT_VARIANT) goto bad;
      vp.tensors[j] = pb_field_tensor(&a, val_tensor(ts[j]));
    }
    size_t len;
    unsigned char *buf = pb_pack(&vp.base, &len);
    put_varint(&lens, len);
    sb_putn(&body, (const char *)buf, len);
    free(buf);
  }
  Tensorflow__TensorProto tp = TENSORFLOW__TENSOR_PROTO__INIT;
  tp.dtype = TENSORFLOW__DATA_TYPE__DT_VARIANT;
  tp.tensor_shape = pb_shape(&a, rank, dims);
  sb_putn(&lens, body.data ? body.data : "", body.len);
  tp.tensor_content.data = (uint8_t *)lens.data;
  tp.tensor_content.len = lens.len;
  size_t len;
  unsigned char *buf = pb_pack(&tp.base, &len);
  pa_free(&a);
  sb_free(&lens), sb_free(&body);
  Val out = bytes_new(buf, len);
  free(buf);
  return out;
bad:
  pa_free(&a);
  sb_free(&lens), sb_free(&body);
  rt_throw(ERR_TYPE, "_dsnap.encode_variant: parts are (type_name, [eager tensors])");
}

/* _dsnap.encode_tensor(t): t's TensorProto as TF's snapshot writer stores a component
 * (Tensor::AsProtoTensorContent): numbers in tensor_content, and strings there too (port::EncodeStringList:
 * every element's varint32 length, then their bytes), not in string_val as tf.io.serialize_tensor writes them. */
static Val encode_tensor_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &tensor_type) || val_tensor(args[0])->sym ||
      val_tensor(args[0])->dtype == DT_VARIANT)
    rt_throw(ERR_TYPE, "_dsnap.encode_tensor(eager tensor)");
  Tensor *t = val_tensor(args[0]);
  PbArena a = {0};
  Tensorflow__TensorProto *p = pb_tensor(&a, t);
  StrBuf c;
  sb_init(&c);
  if (t->dtype == DT_STRING) {
    Str **el = t->buf->data;
    for (tfs_i64 i = 0; i < t->size; i++) {
      Str *s = el[tensor_elem_offset(t, i)];
      put_varint(&c, s ? (uint64_t)s->len : 0);
    }
    for (tfs_i64 i = 0; i < t->size; i++) {
      Str *s = el[tensor_elem_offset(t, i)];
      if (s) sb_putn(&c, s->data, (size_t)s->len);
    }
    p->n_string_val = 0, p->string_val = NULL;
    p->tensor_content.data = (uint8_t *)c.data;
    p->tensor_content.len = c.len;
  }
  size_t len;
  unsigned char *buf = pb_pack(&p->base, &len);
  pa_free(&a);
  sb_free(&c);
  Val out = bytes_new(buf, len);
  free(buf);
  return out;
}

static bool get_varint32(const uint8_t *d, size_t len, size_t *i, uint32_t *out) {
  uint32_t v = 0;
  for (int shift = 0; shift <= 28 && *i < len; shift += 7) {
    uint8_t b = d[(*i)++];
    v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return *out = v, true;
  }
  return false;
}

/* _dsnap.decode_variant(data): (shape, [(type_name, [tensors])]) of a DT_VARIANT TensorProto in
 * AsProtoTensorContent form; None when the bytes are not one (the caller raises TF's DataLossError). */
static Val decode_variant_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &bytes_type)) rt_throw(ERR_TYPE, "_dsnap.decode_variant(data)");
  size_t len;
  const void *d = bytes_data(args[0], &len);
  Tensorflow__TensorProto *tp = tensorflow__tensor_proto__unpack(NULL, len, d);
  int rank;
  tfs_i64 dims[TFS_MAX_RANK], count = 1;
  if (!tp || tp->dtype != TENSORFLOW__DATA_TYPE__DT_VARIANT || !pb_unshape(tp->tensor_shape, &rank, dims) || rank < 0)
    goto fail;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0 || dims[i] > (tfs_i64)tp->tensor_content.len) goto fail;
    count *= dims[i];
    if (count > (tfs_i64)tp->tensor_content.len + 1) goto fail;   /* every element takes a length byte at least */
  }
  const uint8_t *c = tp->tensor_content.data;
  size_t clen = tp->tensor_content.len, pos = 0;
  uint32_t *sizes = calloc((size_t)count + 1, sizeof *sizes);
  if (!sizes) goto fail;
  size_t total = 0;
  for (tfs_i64 i = 0; i < count; i++) {
    if (!get_varint32(c, clen, &pos, &sizes[i])) goto fail_sizes;
    total += sizes[i];
  }
  if (total != clen - pos) goto fail_sizes;
  Val parts = list_new(count);
  for (tfs_i64 i = 0; i < count; i++) {
    Tensorflow__VariantTensorDataProto *vp = tensorflow__variant_tensor_data_proto__unpack(NULL, sizes[i], c + pos);
    pos += sizes[i];
    if (!vp) goto fail_parts;
    Val ts = list_new((tfs_i64)vp->n_tensors);
    for (size_t j = 0; j < vp->n_tensors; j++) {
      const char *err = NULL;
      Tensor *t = pb_untensor(vp->tensors[j], &err);
      if (!t || t->dtype == DT_VARIANT) {
        if (t) val_decref(val_obj(t));
        val_decref(ts);
        tensorflow__variant_tensor_data_proto__free_unpacked(vp, NULL);
        goto fail_parts;
      }
      Val tv = val_obj(t);
      list_append(ts, tv);
      val_decref(tv);
    }
    Val p = pair(str_from_cstr(vp->type_name ? vp->type_name : ""), ts);
    tensorflow__variant_tensor_data_proto__free_unpacked(vp, NULL);
    list_append(parts, p);
    val_decref(p);
  }
  free(sizes);
  Val shape = list_new(rank);
  for (int i = 0; i < rank; i++) list_append(shape, val_int(dims[i]));
  tensorflow__tensor_proto__free_unpacked(tp, NULL);
  return pair(shape, parts);
fail_parts:
  val_decref(parts);
fail_sizes:
  free(sizes);
fail:
  if (tp) tensorflow__tensor_proto__free_unpacked(tp, NULL);
  return val_none();
}

//! Dataset.save(path, compression=None, shard_func=None, checkpoint_args=None) | tf.data.Dataset.save | tf.data.experimental.save
//!   Writes every element under path in TF 2.15's layout (dataset_spec.pb, snapshot.metadata, RUN/%08d.shard/
//!   00000000.snapshot TFRecords of TensorProtos), so TF's load reads it; compression None, "GZIP", "ZLIB" or
//!   "SNAPPY" (TF's snappy block files); shard_func (a scalar int64 per element) picks the shard, else round-robin over the CPU count. Tensor,
//!   RaggedTensor and SparseTensor components (the composite ones as TF's DT_VARIANT records) in dicts, tuples
//!   and lists; checkpoint_args is not supported.
//! tf.data.Dataset.load(path, element_spec=None, compression=None, reader_func=None) | tf.data.experimental.load
//!   The dataset a save (TF's or tfs's) wrote at path: element_spec from dataset_spec.pb when not given,
//!   cardinality from the metadata; reader_func gets the dataset of per-shard datasets (default: an interleave
//!   over the CPU count, which gives back the saved order). Missing files raise TF's NotFoundErrors, damaged
//!   records DataLossError.
//! Dataset.snapshot(path, compression="AUTO", reader_func=None, shard_func=None, name=None) | tf.data.Dataset.snapshot
//!   The same elements, written under path/FINGERPRINT/ (save's layout, each element stored with its index)
//!   while the first pass reads them, finalized when it ends, and read back on later passes. The fingerprint
//!   is tfs's own (of the element spec, cardinality and compression, not TF's graph hash); AUTO is SNAPPY, as TF.
static Val dsnap_attr(const char *name) {
  if (!strcmp(name, "run_id")) return builtin_new("_dsnap.run_id", run_id_fn, val_undef(), NULL);
  if (!strcmp(name, "fingerprint")) return builtin_new("_dsnap.fingerprint", fingerprint_fn, val_undef(), NULL);
  if (!strcmp(name, "encode_spec")) return builtin_new("_dsnap.encode_spec", encode_spec_fn, val_undef(), NULL);
  if (!strcmp(name, "decode_spec")) return builtin_new("_dsnap.decode_spec", decode_spec_fn, val_undef(), NULL);
  if (!strcmp(name, "encode_meta")) return builtin_new("_dsnap.encode_meta", encode_meta_fn, val_undef(), NULL);
  if (!strcmp(name, "snappy_file")) return builtin_new("_dsnap.snappy_file", snappy_file_fn, val_undef(), NULL);
  if (!strcmp(name, "encode_tensor")) return builtin_new("_dsnap.encode_tensor", encode_tensor_fn, val_undef(), NULL);
  if (!strcmp(name, "encode_variant")) return builtin_new("_dsnap.encode_variant", encode_variant_fn, val_undef(), NULL);
  if (!strcmp(name, "decode_variant")) return builtin_new("_dsnap.decode_variant", decode_variant_fn, val_undef(), NULL);
  if (!strcmp(name, "decode_meta")) return builtin_new("_dsnap.decode_meta", decode_meta_fn, val_undef(), NULL);
  return val_undef();
}

Val dsnapmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_dsnap", dsnap_attr);
  return val_incref(mod);
}
