/* tffunction.h — tf.function objects, concrete functions and TensorSpec: what the rest of the system calls. */
#ifndef TFS_TFFUNCTION_H
#define TFS_TFFUNCTION_H

#include <stdbool.h>

#include "value.h"

/* Register tf.function, tf.TensorSpec and tf.autograph.* in the `tf` module
 * and install the tf.Variable creation hook.  Idempotent; also run by a
 * constructor in tffunction.c, but standalone executables should call it
 * from rt_main before the program starts. */
void tffn_init(void);

/* `tfs run --eager`: same as tf.config.run_functions_eagerly(b). */
void tffn_set_eager(bool on);
/* The Python function a tf.function wraps (borrowed), or VT_UNDEF when v is no tf.function. */
Val tffn_python_fn(Val v);

/* TensorSpec host values (tf.TensorSpec(shape, dtype, name)). */
typedef struct TensorSpecObj {
  Obj hdr;
  int rank;                   /* -1: unknown rank */
  tfs_i64 dims[8];            /* -1: unknown dim (TFS_MAX_RANK) */
  int dtype;                  /* DType */
  Val name;                   /* str or None (owned) */
} TensorSpecObj;
extern const Type tffn_spec_type;
Val tffn_spec_new(int rank, const tfs_i64 *dims, int dtype, Val name);
/* What a ConcreteFunction returns, as the same structure of TensorSpecs. */
Val tffn_output_spec(Val conc);

#endif
