/* nodedefobj.c — NodeDef values (op.node_def, the items of GraphDef.node): name, op, input, device, attr, str its text. */
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
    Val k = str_from_cstr(nd->attr[i]->key), v = attr_value(nd->attr[i]->value);
    dict_set(d->attr, k, v);
    val_decref(k);
    val_decref(v);
  }
  rt_unhold(mark);
  return self;
}
