/* nodedefobj.c — NodeDef values (op.node_def, the items of GraphDef.node): name, op, input, device, attr (AttrValue
 * messages), str its text. */
#include <stdlib.h>
#include <string.h>

#include "modules/nodedefobj.h"
#include "modules/modules.h"
#include "object/object.h"

/* append an owned item */
static void list_append_take(Val l, Val x) {
  list_append(l, x);
  val_decref(x);
}

/* An AttrValue as TF's Operation.get_attr gives it: a DType, int, float, bool, bytes, TensorShape, tensor, list */
Val attr_value(const Tensorflow__AttrValue *v) {
  switch (v->value_case) {
  case TENSORFLOW__ATTR_VALUE__VALUE_S: return bytes_new(v->s.data, v->s.len);
  case TENSORFLOW__ATTR_VALUE__VALUE_I: return val_int(v->i);
  case TENSORFLOW__ATTR_VALUE__VALUE_F: return val_float(v->f);
  case TENSORFLOW__ATTR_VALUE__VALUE_B: return val_bool(v->b);
  case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: {
    int dt = pb_undtype(v->type);
    return dt < 0 ? val_int(v->type) : dtype_val((DType)dt);
  }
  case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE: {
    int rank;
    tfs_i64 dims[TFS_MAX_RANK];
    return pb_unshape(v->shape, &rank, dims) ? tshape_new(rank, dims) : val_none();
  }
  case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR: {
    const char *err = NULL;
    Tensor *t = pb_untensor(v->tensor, &err);
    return t ? val_obj(t) : val_none();
  }
  case TENSORFLOW__ATTR_VALUE__VALUE_FUNC: return str_from_cstr(v->func->name);
  case TENSORFLOW__ATTR_VALUE__VALUE_LIST: {
    const Tensorflow__AttrValue__ListValue *l = v->list;
    Val r = list_new(0);
    for (size_t i = 0; i < l->n_s; i++) list_append_take(r, bytes_new(l->s[i].data, l->s[i].len));
    for (size_t i = 0; i < l->n_i; i++) list_append_take(r, val_int(l->i[i]));
    for (size_t i = 0; i < l->n_f; i++) list_append_take(r, val_float(l->f[i]));
    for (size_t i = 0; i < l->n_b; i++) list_append_take(r, val_bool(l->b[i]));
    for (size_t i = 0; i < l->n_type; i++) {
      int dt = pb_undtype(l->type[i]);
      list_append_take(r, dt < 0 ? val_int(l->type[i]) : dtype_val((DType)dt));
    }
    for (size_t i = 0; i < l->n_shape; i++) {
      int rank;
      tfs_i64 dims[TFS_MAX_RANK];
      list_append_take(r, pb_unshape(l->shape[i], &rank, dims) ? tshape_new(rank, dims) : val_none());
    }
    for (size_t i = 0; i < l->n_func; i++) list_append_take(r, str_from_cstr(l->func[i]->name));
    return r;
  }
  default: return list_new(0);   /* TF: an attr with no value is [] */
  }
}

/* ---- protobuf messages as TF's Python shows them (NodeDef.attr's AttrValues, summary_iterator's Events) ------------
 * A root owns a copy of the message (unpacked from its bytes, so it outlives the GraphDef read); a sub-message keeps
 * its root alive; an unset message field reads as an empty message of its type, as Python's protobuf gives it. */
typedef struct ProtoObj {
  Obj hdr;
  const ProtobufCMessage *m;
  Val root;                 /* a sub-message's root (owned), else VT_UNDEF */
  ProtobufCMessage *own;    /* a root's copy (protobuf-c's unpacked tree) or an empty message (plain malloc) */
  bool unpacked;
} ProtoObj;

static void po_free(Obj *o) {
  ProtoObj *p = (ProtoObj *)o;
  val_decref(p->root);
  if (p->own && p->unpacked) protobuf_c_message_free_unpacked(p->own, NULL);
  else free(p->own);
  free(o);
}

static void po_repr(StrBuf *b, Val v) { pb_text(b, ((ProtoObj *)v.u.o)->m, 0); }

static Val po_getattr(Val self, const char *name);

/* messages compare by their fields: their serialized bytes (protobuf-c writes fields in number order) */
static bool po_eq(Val a, Val b);

/* one Type a message class, for type(v).__name__ and errors: AttrValue, its ListValue, the messages they hold, an
 * event file's Event, Summary, Summary.Value */
#define PO_TYPE(nm) {.name = nm, .free = po_free, .repr = po_repr, .getattr = po_getattr, .eq = po_eq}
static const Type proto_types[] = {PO_TYPE("AttrValue"), PO_TYPE("ListValue"), PO_TYPE("TensorShapeProto"), PO_TYPE("Dim"),
                                   PO_TYPE("TensorProto"), PO_TYPE("NameAttrList"), PO_TYPE("Event"), PO_TYPE("Summary"),
                                   PO_TYPE("Value"), PO_TYPE("Message")};
#undef PO_TYPE
enum { PO_NTYPES = sizeof proto_types / sizeof *proto_types };

static const Type *po_type(const ProtobufCMessageDescriptor *d) {
  for (int i = 0; i < PO_NTYPES - 1; i++)
    if (!strcmp(proto_types[i].name, d->short_name)) return &proto_types[i];
  return &proto_types[PO_NTYPES - 1];
}

static bool po_is(Val v) { return v.tag == VT_OBJ && v.u.o->type->free == po_free; }

static bool po_eq(Val a, Val b) {
  if (!po_is(a) || !po_is(b)) return false;
  const ProtobufCMessage *x = ((ProtoObj *)a.u.o)->m, *y = ((ProtoObj *)b.u.o)->m;
  if (x->descriptor != y->descriptor) return false;
  size_t nx, ny;
  unsigned char *bx = pb_pack(x, &nx), *by = pb_pack(y, &ny);
  bool eq = nx == ny && (nx == 0 || !memcmp(bx, by, nx));
  free(bx);
  free(by);
  return eq;
}

static Val po_wrap(Val root, const ProtobufCMessage *m) {
  ProtoObj *p = obj_new(po_type(m->descriptor), sizeof(ProtoObj));
  p->m = m;
  p->root = val_incref(root);
  p->own = NULL;
  p->unpacked = false;
  return val_obj(p);
}

/* an empty message of descriptor d (an unset message field) */
static Val po_empty(const ProtobufCMessageDescriptor *d) {
  ProtobufCMessage *m = calloc(1, d->sizeof_message);
  if (!m) rt_throw(ERR_MEMORY, "out of memory");
  d->message_init(m);
  ProtoObj *p = obj_new(po_type(d), sizeof(ProtoObj));
  p->m = p->own = m;
  p->root = val_undef();
  p->unpacked = false;
  return val_obj(p);
}

Val proto_obj_take(ProtobufCMessage *unpacked) {
  ProtoObj *p = obj_new(po_type(unpacked->descriptor), sizeof(ProtoObj));
  p->m = p->own = unpacked;
  p->root = val_undef();
  p->unpacked = true;
  return val_obj(p);
}

Val proto_obj_new(const ProtobufCMessage *m) {
  size_t n;
  unsigned char *buf = pb_pack(m, &n);
  ProtobufCMessage *c = protobuf_c_message_unpack(m->descriptor, NULL, n, buf);
  free(buf);
  if (!c) rt_throw(ERR_MEMORY, "out of memory");
  return proto_obj_take(c);
}

const ProtobufCMessage *proto_obj_msg(Val v) { return po_is(v) ? ((ProtoObj *)v.u.o)->m : NULL; }

/* one value of field f at q, as Python's protobuf gives it: numbers and enums as int/float, bool, str, bytes,
 * messages wrapped (root: what keeps q alive) */
static Val po_value(Val root, const ProtobufCFieldDescriptor *f, const void *q) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_ENUM:
    return val_int(*(const int32_t *)q);
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: return val_int(*(const uint32_t *)q);
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: return val_int(*(const int64_t *)q);
  case PROTOBUF_C_TYPE_FLOAT: return val_float(*(const float *)q);
  case PROTOBUF_C_TYPE_DOUBLE: return val_float(*(const double *)q);
  case PROTOBUF_C_TYPE_BOOL: return val_bool(*(const protobuf_c_boolean *)q);
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)q;
    return str_from_cstr(s ? s : "");
  }
  case PROTOBUF_C_TYPE_BYTES: {
    const ProtobufCBinaryData *d = q;
    return bytes_new(d->data, d->len);
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *m = *(ProtobufCMessage *const *)q;
    return m ? po_wrap(root, m) : po_empty(f->descriptor);
  }
  }
  return val_none();
}

/* an unset singular field: its type's default */
static Val po_default(const ProtobufCFieldDescriptor *f) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_FLOAT: case PROTOBUF_C_TYPE_DOUBLE: return val_float(0);
  case PROTOBUF_C_TYPE_BOOL: return val_bool(false);
  case PROTOBUF_C_TYPE_STRING: return str_from_cstr("");
  case PROTOBUF_C_TYPE_BYTES: return bytes_new("", 0);
  case PROTOBUF_C_TYPE_MESSAGE: return po_empty(f->descriptor);
  default: return val_int(0);
  }
}

/* a set field: repeated ones non-empty, oneof members chosen, others not their default */
static bool po_has(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
  const char *base = (const char *)m;
  if (f->label == PROTOBUF_C_LABEL_REPEATED) return *(const size_t *)(base + f->quantifier_offset) > 0;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) return *(const uint32_t *)(base + f->quantifier_offset) == f->id;
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) return *(void *const *)(base + f->offset) != NULL;
  Val d = po_default(f), v = po_value(val_undef(), f, base + f->offset);
  bool set = !val_eq(d, v);
  val_decref(d);
  val_decref(v);
  return set;
}

static const ProtobufCFieldDescriptor *po_field(const ProtobufCMessage *m, Val name, const char *what) {
  if (!val_is(name, &str_type)) rt_throw(ERR_TYPE, "%s: a field name must be a str, not %s", what, val_type_name(name));
  return protobuf_c_message_descriptor_get_field_by_name(m->descriptor, str_cstr(name));
}

/* msg.WhichOneof(group): the name of the group's field that is set, or None */
static Val po_which_oneof(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  const ProtobufCMessage *m = ((ProtoObj *)self.u.o)->m;
  if (n != 1 || !val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "WhichOneof() takes exactly one str argument");
  const char *group = str_cstr(args[0]);
  const ProtobufCMessageDescriptor *d = m->descriptor;
  bool known = false;   /* protobuf-c keeps no group names: every oneof of these messages is 'value' */
  for (unsigned i = 0; i < d->n_fields && !known; i++) known = d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF;
  if (!known || strcmp(group, "value")) rt_throw(ERR_VALUE, "Protocol message has no oneof \"%s\" field.", group);
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(const uint32_t *)((const char *)m + f->quantifier_offset) == f->id)
      return str_from_cstr(f->name);
  }
  return val_none();
}

/* msg.HasField(name): a singular message or oneof field is set */
static Val po_has_field(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  const ProtobufCMessage *m = ((ProtoObj *)self.u.o)->m;
  if (n != 1) rt_throw(ERR_TYPE, "HasField() takes exactly one argument (%d given)", n);
  const ProtobufCFieldDescriptor *f = po_field(m, args[0], "HasField");
  if (!f && !strcmp(str_cstr(args[0]), "value")) {   /* the oneof group: is any member set */
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++)
      if ((d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && po_has(m, &d->fields[i])) return val_bool(true);
    for (unsigned i = 0; i < d->n_fields; i++)
      if (d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) return val_bool(false);
  }
  if (!f) rt_throw(ERR_VALUE, "Protocol message %s has no field %s.", m->descriptor->short_name, str_cstr(args[0]));
  if (f->label == PROTOBUF_C_LABEL_REPEATED || (f->type != PROTOBUF_C_TYPE_MESSAGE && !(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)))
    rt_throw(ERR_VALUE, "Field %s.%s does not have presence.", m->descriptor->name, f->name);
  return val_bool(po_has(m, f));
}

/* msg.SerializeToString(): its bytes */
static Val po_serialize(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  (void)kw;
  if (n) rt_throw(ERR_TYPE, "SerializeToString() takes no positional arguments");
  size_t len;
  unsigned char *buf = pb_pack(((ProtoObj *)self.u.o)->m, &len);
  Val r = bytes_new(buf, len);
  free(buf);
  return r;
}

static Val po_getattr(Val self, const char *name) {
  ProtoObj *p = (ProtoObj *)self.u.o;
  const ProtobufCMessage *m = p->m;
  if (!strcmp(name, "WhichOneof")) return builtin_new("WhichOneof", po_which_oneof, self, NULL);
  if (!strcmp(name, "HasField")) return builtin_new("HasField", po_has_field, self, NULL);
  if (!strcmp(name, "SerializeToString")) return builtin_new("SerializeToString", po_serialize, self, NULL);
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
  if (!f) rt_throw(ERR_ATTRIBUTE, "'%s' object has no attribute '%s'", m->descriptor->short_name, name);
  Val root = val_is_undef(p->root) ? self : p->root;
  const char *base = (const char *)m;
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    size_t n = *(const size_t *)(base + f->quantifier_offset);
    const char *arr = *(char *const *)(base + f->offset);
    Val l = list_new((tfs_i64)n);
    for (size_t k = 0; k < n; k++) list_append_take(l, po_value(root, f, arr + k * pb_field_size(f->type)));
    return l;
  }
  if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && !po_has(m, f)) return po_default(f);
  return po_value(root, f, base + f->offset);
}

/* A NodeDef: its text (str) with the fields name, op, input, device, attr */
typedef struct NodeDefObj { Obj hdr; Val text, name, op, input, attr; } NodeDefObj;

static void nd_free(Obj *o) {
  NodeDefObj *d = (NodeDefObj *)o;
  val_decref(d->text);
  val_decref(d->name);
  val_decref(d->op);
  val_decref(d->input);
  val_decref(d->attr);
  free(o);
}

static void nd_repr(StrBuf *b, Val v) { sb_puts(b, str_cstr(((NodeDefObj *)v.u.o)->text)); }

static Val nd_getattr(Val self, const char *name) {
  NodeDefObj *d = (NodeDefObj *)self.u.o;
  if (!strcmp(name, "name")) return val_incref(d->name);
  if (!strcmp(name, "op")) return val_incref(d->op);
  if (!strcmp(name, "input")) return val_incref(d->input);
  if (!strcmp(name, "device")) return str_from_cstr("");
  if (!strcmp(name, "attr")) return val_incref(d->attr);
  return val_undef();
}

static const Type nodedef_type = {.name = "NodeDef", .free = nd_free, .repr = nd_repr, .getattr = nd_getattr,
                                  .hash = obj_identity_hash};

Val nodedef_obj_new(const Tensorflow__NodeDef *nd, const char *name, const char *op) {
  NodeDefObj *d = obj_new(&nodedef_type, sizeof(NodeDefObj));
  d->text = d->name = d->op = d->input = d->attr = val_none();
  Val self = val_obj(d);
  int mark = rt_hold_val(self);   /* a failed conversion below frees it */
  StrBuf b;
  sb_init(&b);
  if (nd) pb_text(&b, &nd->base, 0);
  size_t len = b.len;
  d->text = str_take(sb_steal(&b), (tfs_i64)len);
  d->name = str_from_cstr(name);
  d->op = str_from_cstr(op);
  d->input = list_new(0);
  for (size_t i = 0; nd && i < nd->n_input; i++) list_append_take(d->input, str_from_cstr(nd->input[i]));
  d->attr = dict_new();
  for (size_t i = 0; nd && i < nd->n_attr; i++) {
    Val k = str_from_cstr(nd->attr[i]->key), v = proto_obj_new(&nd->attr[i]->value->base);   /* an AttrValue */
    dict_set(d->attr, k, v);
    val_decref(k);
    val_decref(v);
  }
  rt_unhold(mark);
  return self;
}
