/* native.c — `import time` and friends: stdlib modules implemented in C rather than .tfs; the TensorFlow and Keras import names. */
#include <stdio.h>
#include <string.h>

#include "modules/modules.h"

/* `import tensorflow as tf`, `from tensorflow.keras import layers`,
 * `import keras` (Keras 2: tf.keras): the names of TensorFlow's packages
 * are paths into the built-in tf module. */
static bool native_tf_path(const char *name) {
  return !strcmp(name, "tensorflow") || !strncmp(name, "tensorflow.", 11) || !strcmp(name, "keras") ||
         !strncmp(name, "keras.", 6);
}

static _Noreturn void native_not_found(const char *name, size_t len) {
  rt_throw(ERR_MODULE_NOT_FOUND, "No module named '%.*s'", (int)(len < 200 ? len : 200), name);
}

static Val native_tf_module(const char *name) {
  bool keras = !strncmp(name, "keras", 5);
  Val m = rt_builtin("tf");
  if (keras) {
    Val k = rt_module_attr(m, "keras");
    val_decref(m);
    m = k;
  }
  const char *p = name + (keras ? 5 : 10);
  while (*p == '.') {
    const char *c = p + 1, *e = strchr(c, '.');
    size_t n = e ? (size_t)(e - c) : strlen(c);
    char part[128];
    if (n == 0 || n >= sizeof part) {
      val_decref(m);
      native_not_found(name, (size_t)(c + n - name));
    }
    memcpy(part, c, n);
    part[n] = 0;
    Val v = val_is(m, &module_type) ? m.u.o->type->getattr(m, part) : val_undef();
    val_decref(m);
    if (!val_is(v, &module_type)) {
      val_decref(v);
      native_not_found(name, (size_t)(c + n - name));
    }
    m = v;
    p = c + n;
  }
  return m;
}

/* `import horovod.tensorflow as hvd` (and .keras): Horovod's API over the same job as
 * tf.distribute (stdlib/horovod.tfs), compiled into programs that name horovod. */
static bool native_horovod_path(const char *name) {
  return !strcmp(name, "horovod.tensorflow") || !strcmp(name, "horovod.tensorflow.keras");
}

Val rt_native_module(const char *name) {
  if (native_tf_path(name)) return native_tf_module(name);
  if (native_horovod_path(name)) {
    Val m = module_import_library("horovod");
    if (!val_is_undef(m)) return m;
  }
  Val m = stdlib_native_module(name);
  if (val_is_undef(m)) {
    const char *dot = strchr(name, '.');
    native_not_found(name, dot ? (size_t)(dot - name) : strlen(name));
  }
  return m;
}
