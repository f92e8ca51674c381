/* upops.h — the meta functions and kernels of the ops whose code lives in stdlib/ (OP_UP rows of ops.def). */
#ifndef TFS_UPOPS_H
#define TFS_UPOPS_H

#include "kernels/ops.h"

#define OP(...)
#define OP_UP(id, gname, api, sig, kinds, dtypes, flags, meta, kernel, ...) void meta(OpCall *c); void kernel(OpCall *c);
#include "kernels/ops.def"
#undef OP_UP
#undef OP

/* Bind them into the op table (rt_layers_init). */
void upops_bind(void);

#endif
