/* modules.h — the native modules the runtime provides: tf, ag, and stdlib modules such as time/timeit. */
#ifndef TFS_MODULES_H
#define TFS_MODULES_H

#include "../runtime/value.h"

Val tf_module(void);                          /* the `tf` module (owned reference) */
Val ag_module(void);                          /* the AutoGraph runtime `ag` (owned reference) */
/* A native stdlib module by import name ('time', 'timeit'), or VT_UNDEF. */
Val stdlib_native_module(const char *name);

#endif
