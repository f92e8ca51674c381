/* tfmod.h — the `tf` module: constructor, registration of attributes owned by other modules, eager/graph flags. */
#ifndef TFS_TFMOD_H
#define TFS_TFMOD_H

#include "object/value.h"

/* The native module `tf` (owned). */
Val tf_module(void);

/* Add or replace `tf.<qualname>` ("function", "autograph.to_code", "TensorSpec",
 * "cond", ...): modules outside tfmod.c (graph building, AutoGraph) register
 * their entry points here at start-up.  Borrows v. */
void tfmod_register(const char *qualname, Val v);

/* tf.config.run_functions_eagerly(b) state, read by the tf.function machinery. */
extern bool tfmod_run_eagerly;

/* Optional hook for tf.Variable creation (graph tracing); returns VT_UNDEF to
 * fall back to eager creation. */
extern Val (*tfmod_variable_hook)(Val initial, Val name, bool trainable, Val dtype);

/* The context managers tf.name_scope(name) and tf.device(name) (ctxmgr.c). */
Val tf_name_scope(Val self, int n, const Val *args, const Kw *kw);
Val tf_device(Val self, int n, const Val *args, const Kw *kw);
Val tf_init_scope(Val self, int n, const Val *args, const Kw *kw);
void tfmod_deprecated(bool *warned, const char *text);   /* TF's @deprecated log line, once (tfmod.c) */

#endif
