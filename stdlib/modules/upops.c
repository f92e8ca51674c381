/* upops.c — binds the meta functions and kernels of the ops that live in stdlib/ (tf.data, tf.io, tf.summary) into the op table. */
#include "modules/upops.h"

void upops_bind(void) {
#define OP(...)
#define OP_UP(id, gname, api, sig, kinds, dtypes, flags, meta, kernel, ...) op_bind(OP_##id, meta, kernel);
#include "kernels/ops.def"
#undef OP_UP
#undef OP
}
