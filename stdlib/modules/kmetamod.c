/* kmetamod.c — `_kmeta`: Keras 2's keras_metadata.pb (proto/keras_metadata.proto) encoded and decoded for the SavedModel form of stdlib/keras_saving.tfs. */
#include <stdlib.h>
#include <string.h>

#include "keras_metadata.pb-c.h"
#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

typedef ThirdParty__Py__Keras__Protobuf__SavedMetadata KMeta;
typedef ThirdParty__Py__Keras__Protobuf__SavedObject KObj;

/* _kmeta.encode([(node_id, node_path, identifier, metadata_json)]): the SavedMetadata message as bytes; every node
 * carries Keras's metadata version (producer 2, min_consumer 1). */
static Val kmeta_encode_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &list_type)) rt_throw(ERR_TYPE, "_kmeta.encode(nodes)");
  tfs_i64 count;
  const Val *items;
  seq_items(args[0], &count, &items);
  KObj *objs = calloc((size_t)count + 1, sizeof *objs);
  KObj **ptrs = calloc((size_t)count + 1, sizeof *ptrs);
  int mark = rt_hold_mem(objs);
  rt_hold_mem(ptrs);
  Tensorflow__VersionDef ver = TENSORFLOW__VERSION_DEF__INIT;
  ver.producer = 2;
  ver.min_consumer = 1;
  for (tfs_i64 i = 0; i < count; i++) {
    tfs_i64 k;
    const Val *f;
    int64_t id;
    if (!seq_items(items[i], &k, &f) || k != 4 || !val_as_int(f[0], &id) || !val_is(f[1], &str_type) ||
        !val_is(f[2], &str_type) || !val_is(f[3], &str_type))
      rt_throw(ERR_TYPE, "_kmeta.encode: each node is (node_id, node_path, identifier, metadata)");
    third_party__py__keras__protobuf__saved_object__init(&objs[i]);
    objs[i].version = &ver;
    objs[i].node_id = (int32_t)id;
    objs[i].node_path = (char *)str_cstr(f[1]);
    objs[i].identifier = (char *)str_cstr(f[2]);
    objs[i].metadata = (char *)str_cstr(f[3]);
    ptrs[i] = &objs[i];
  }
  KMeta m = THIRD_PARTY__PY__KERAS__PROTOBUF__SAVED_METADATA__INIT;
  m.n_nodes = (size_t)count;
  m.nodes = ptrs;
  size_t len = third_party__py__keras__protobuf__saved_metadata__get_packed_size(&m);
  uint8_t *buf = malloc(len + 1);
  if (!buf) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(buf);
  third_party__py__keras__protobuf__saved_metadata__pack(&m, buf);
  Val out = bytes_new(buf, len);
  rt_unhold(mark);
  free(buf), free(ptrs), free(objs);
  return out;
}

/* _kmeta.decode(bytes): [(node_id, node_path, identifier, metadata_json)]; ValueError when the bytes are not a
 * SavedMetadata message. */
static Val kmeta_decode_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1 || (kw && kw->n) || !val_is(args[0], &bytes_type)) rt_throw(ERR_TYPE, "_kmeta.decode(data)");
  size_t len;
  const void *d = bytes_data(args[0], &len);
  KMeta *m = third_party__py__keras__protobuf__saved_metadata__unpack(NULL, len, d);
  if (!m) rt_throw(ERR_VALUE, "keras_metadata.pb is not a Keras SavedMetadata message");
  Val out = list_new((tfs_i64)m->n_nodes);
  for (size_t i = 0; i < m->n_nodes; i++) {
    const KObj *o = m->nodes[i];
    Val t = tuple_new(4);
    Val *it = ((Tuple *)t.u.o)->items;
    it[0] = val_int(o->node_id);
    it[1] = str_from_cstr(o->node_path ? o->node_path : "");
    it[2] = str_from_cstr(o->identifier ? o->identifier : "");
    it[3] = str_from_cstr(o->metadata ? o->metadata : "");
    list_append(out, t);
    val_decref(t);
  }
  third_party__py__keras__protobuf__saved_metadata__free_unpacked(m, NULL);
  return out;
}

static Val kmeta_attr(const char *name) {
  if (!strcmp(name, "encode")) return builtin_new("_kmeta.encode", kmeta_encode_fn, val_undef(), NULL);
  if (!strcmp(name, "decode")) return builtin_new("_kmeta.decode", kmeta_decode_fn, val_undef(), NULL);
  return val_undef();
}

Val kmetamod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_kmeta", kmeta_attr);
  return val_incref(mod);
}
