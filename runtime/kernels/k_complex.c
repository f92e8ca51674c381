/* k_complex.c — tf.complex and the complex part ops (real, imag, conj, angle): dtype rules, and their meaning on real tensors. */
#include <math.h>

#include "object/object.h"
#include "kernels/ops.h"

/* shape: the broadcast of real and imag, which share float32 (complex64) or float64 (complex128). */
void meta_complex(OpCall *c) {
  DType a = c->inm[0].dtype, b = c->inm[1].dtype;
  if (a != b || (a != DT_FLOAT32 && a != DT_FLOAT64))
    op_fail(c, ERR_TYPE, "The `real` and `imag` components have incorrect types: %s %s", dtype_info[a].name, dtype_info[b].name);
  op_broadcast_meta(c, &c->inm[0], &c->inm[1], &c->outm[0]);
  c->outm[0].dtype = a == DT_FLOAT32 ? DT_COMPLEX64 : DT_COMPLEX128;
}

/* shape: the input's; real, imag and angle give a complex input's part dtype, conj keeps the dtype. */
void meta_complex_part(OpCall *c) {
  c->outm[0] = c->inm[0];
  if (c->op->id != OP_CONJ) c->outm[0].dtype = dtype_real_part(c->inm[0].dtype);
}

/* A real input means what TF's Python wrappers make of it: real and conj return it, imag zeros,
 * angle pi where it is negative (else 0, NaN too: where(x < 0, pi, 0)). */
void k_complex_part(OpCall *c) {
  Tensor *a = c->in[0], *o = c->out[0];
  if (dtype_is_complex(a->dtype)) { ew_unary(c->op->id, o, a); return; }
  switch (c->op->id) {
  case OP_IMAG: ew_fill(o, 0, 0); break;
  case OP_ANGLE: {
    char *p = tensor_data(o);
    size_t esz = (size_t)dtype_info[o->dtype].size;
    for (tfs_i64 i = 0; i < o->size; i++) dtype_store_f(o->dtype, p + (size_t)i * esz, tensor_get_f(a, i) < 0 ? M_PI : 0.0);
    break;
  }
  default: ew_cast(o, a); break;
  }
}
