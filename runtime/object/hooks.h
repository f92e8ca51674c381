/* hooks.h — what the object layer asks of the layers above it, as function pointers they fill at start-up. */
#ifndef TFS_HOOKS_H
#define TFS_HOOKS_H

#include "object/value.h"

/* The object layer knows values, not tensors, graphs or the tf module; where
 * Python's semantics reach those (int() of a 0-d tensor, `range(t)` while
 * tracing, the name `tf`), it calls through these slots, as CPython's
 * Objects/ call type slots filled by the modules above them.  The upper
 * layers set them in rt_layers_init (stdlib/modules/rtmain.c), which runs
 * before main and again at rt_start; a NULL slot means "no such thing". */
typedef struct RtObjHooks {
  Val (*builtin)(const char *name);      /* a builtin name (print, tf, ag): owned, or VT_UNDEF */
  Val (*tf_lookup)(const char *qual);    /* tf.<qual> ("keras.datasets"), or VT_UNDEF */
  /* The number in an eager 0-d tensor or variable (int(v), float(v), indexes); false if v is none. */
  bool (*tensor_scalar)(Val v, bool *is_int, int64_t *i, double *f);
  bool (*tensor_complex)(Val v, double *re, double *im);   /* the same, as a complex (complex(np.complex64(1j))) */
  bool (*tensor_u64)(Val v, tfs_u64 *u);  /* a 0-d uint64 value above int64 (int() gives it as a u64int) */
  bool (*is_tensor)(Val v);              /* an eager tf.Tensor (not a variable): its format spec applies */
  Val (*dtype_named)(const char *name);  /* "float32" -> tf.float32 (ArgSpec defaults), or VT_UNDEF */
  bool (*tracing)(void);                 /* a tf.function is being traced */
  Val (*range_tensor)(int n, const Val *args);   /* range(t) with a traced t: tf.range, or VT_UNDEF */
  Val (*python_fn)(Val v);               /* the Python function a @tf.function wraps, or VT_UNDEF */
  Val (*tensor_numpy)(Val v);            /* a tf.Tensor's numpy value (owned; VT_UNDEF when symbolic): what EagerTensor.__format__ formats */
  /* A @tf.function method seen through an instance: that instance's own
   * function object (TF's per-instance bound Function: its own trace cache,
   * tracing count and first call), kept in *cache (the instance's slot, a dict
   * the hook makes); owned, or VT_UNDEF when fn is not a tf.function. */
  Val (*method_fn)(Val fn, Val *cache);
  /* An uncaught error was reported and the process is about to exit 1: a rank
   * of an MPI job stops the whole job (runtime/dist). */
  void (*uncaught)(void);
  /* sys.exit(0) (or None) is about to end the process: a rank of an MPI job leaves it as at the program's end
   * (runtime/dist), else Open MPI reports the rank as exiting improperly and mpirun fails. */
  void (*exit_ok)(void);
  /* self.name = v stored in an instance's dict: a checkpoint restore that kept a value for a Variable not made yet
   * assigns it when the Variable is attached (TF's deferred restoration).  NULL until such a value is kept. */
  void (*attr_set)(Val self, const char *name, Val v);
} RtObjHooks;
extern RtObjHooks rt_obj_hooks;

#endif
