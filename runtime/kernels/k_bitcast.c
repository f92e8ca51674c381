/* k_bitcast.c — tf.bitcast (TF's Bitcast): a tensor's bytes read as another dtype, with TF's shape rule and messages. */
#include <string.h>

#include "kernels/ops.h"
#include "object/object.h"

/* TF's CPU kernel (tensorflow/c/kernels/bitcast_op.cc) names dtypes by number; while a function is traced its
 * shape function speaks instead, in words, and only about the last dimension. */
/* shape: the input's; [..., size(T) / size(type)] for a smaller type; [...] without the last dim for a larger one. */
void meta_bitcast(OpCall *c) {
  const TMeta *a = &c->inm[0];
  int dt = op_attr_dtype(c, 0, -1);
  if (dt < 0) op_fail(c, ERR_TYPE, "tf.bitcast: type is required");
  unsigned ok = c->op->dtypes;
  if (!(ok & DTM(dt))) op_fail_attr(c->op, "type", (DType)dt, ok);
  int in = dtype_info[a->dtype].size, out = dtype_info[dt].size;
  bool tracing = op_trace_graph_name && op_trace_graph_name();
  int big = in > out ? in : out, small = in > out ? out : in;
  if (big % small)
    op_fail(c, ERR_INVALID_ARGUMENT, "cannot convert between datatype %d and %d", dtype_tf_enum(a->dtype),
            dtype_tf_enum(dt));
  TMeta *o = &c->outm[0];
  *o = *a;
  o->dtype = (DType)dt;
  if (in == out || a->rank < 0) {
    if (in != out) o->rank = -1;
    return;
  }
  if (in > out) {
    if (a->rank >= TFS_MAX_RANK) op_fail(c, ERR_INVALID_ARGUMENT, "tf.bitcast: a result of rank %d is more than tfs's %d",
                                         a->rank + 1, TFS_MAX_RANK);
    o->shape[o->rank++] = in / out;
    return;
  }
  tfs_i64 last = a->rank > 0 ? a->shape[a->rank - 1] : 0;
  if (a->rank == 0 || (last >= 0 && last != out / in)) {
    if (!tracing) op_fail(c, ERR_INVALID_ARGUMENT, "Cannot bitcast from %d to %d", dtype_tf_enum(a->dtype), dtype_tf_enum(dt));
    if (a->rank == 0) op_fail(c, ERR_VALUE, "Shape must be at least rank 1 but is rank 0");
    op_fail(c, ERR_VALUE, "Cannot bitcast due to shape. %lld does not match %d", (long long)last, out / in);
  }
  o->rank--;
}

void k_bitcast(OpCall *c) {
  Tensor *a = tensor_contiguous(c->in[0]);
  memcpy(tensor_data(c->out[0]), tensor_data(a), (size_t)a->size * (size_t)dtype_info[a->dtype].size);
  tensor_release(a);
}
