/* serialtensor.c — the SerializeTensor and ParseTensor ops (tf.io.serialize_tensor / parse_tensor): a tensor as TF's TensorProto bytes and back. */
#include <stdlib.h>
#include <string.h>

#include "formats/pbutil.h"
#include "kernels/ops.h"
#include "modules/upops.h"
#include "object/object.h"

/* shape: a scalar string (the TensorProto's bytes). */
void meta_serialize_tensor(OpCall *c) {
  if (c->inm[0].dtype == DT_VARIANT) op_fail(c, ERR_UNIMPLEMENTED, "tf.io.serialize_tensor: variant tensors are not supported");
  meta_set(&c->outm[0], DT_STRING, 0, NULL);
}

/* As TF's AsProtoTensorContent: dtype, shape, numbers in tensor_content, strings in string_val. */
void k_serialize_tensor(OpCall *c) {
  PbArena a = {0};
  Tensorflow__TensorProto *p = pb_tensor(&a, c->in[0]);
  size_t n;
  unsigned char *data = pb_pack(&p->base, &n);
  pa_free(&a);
  Val s = str_new((const char *)data, (tfs_i64)n);
  free(data);
  *(Str **)tensor_data(c->out[0]) = (Str *)s.u.o;
}

/* shape: unknown until it runs (the proto's own shape); dtype out_type. */
void meta_parse_tensor(OpCall *c) {
  DType dt;
  if (c->inm[0].dtype != DT_STRING || c->inm[0].rank != 0)
    op_fail(c, ERR_INVALID_ARGUMENT, "tf.io.parse_tensor: serialized must be a scalar string tensor");
  if (!val_as_dtype(op_attr(c, 0), &dt)) op_fail(c, ERR_TYPE, "tf.io.parse_tensor: out_type must be a dtype");
  meta_set(&c->outm[0], dt, -1, NULL);
}

/* TF's DataTypeString: its own names for float32, float64 and float16 */
static const char *tf_type_name(DType dt) {
  return dt == DT_FLOAT32 ? "float" : dt == DT_FLOAT64 ? "double" : dt == DT_FLOAT16 ? "half" : dtype_info[dt].name;
}

void k_parse_tensor(OpCall *c) {
  DType want;
  val_as_dtype(op_attr(c, 0), &want);
  Str *s = *(Str **)tensor_data(c->in[0]);
  Tensorflow__TensorProto *p =
      tensorflow__tensor_proto__unpack(NULL, s ? (size_t)s->len : 0, s ? (const uint8_t *)s->data : (const uint8_t *)"");
  const char *err = NULL;
  Tensor *t = p ? pb_untensor(p, &err) : NULL;
  if (p) tensorflow__tensor_proto__free_unpacked(p, NULL);
  if (!t) {
    StrBuf m;
    sb_init(&m);
    /* errindex: Could not parse `serialized` as TensorProto: '…' */
    sb_puts(&m, "Could not parse `serialized` as TensorProto: '");
    if (s) sb_putn(&m, s->data, (size_t)s->len);
    sb_putc(&m, '\'');
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &m);
  }
  if (t->dtype != want) {
    DType got = t->dtype;
    val_decref(val_obj(t));
    op_fail(c, ERR_INVALID_ARGUMENT, "Type mismatch between parsed tensor (%s) and dtype (%s)",
            tf_type_name(got), tf_type_name(want));
  }
  c->out[0] = t;
}
