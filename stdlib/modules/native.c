/* native.c — `import time` and friends: stdlib modules implemented in C rather than .tfs. */
#include "modules/modules.h"

Val rt_native_module(const char *name) {
  Val m = stdlib_native_module(name);
  if (val_is_undef(m)) rt_throw(ERR_IMPORT, "No module named '%s'", name);
  return m;
}
