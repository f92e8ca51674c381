/* tffunction.h — tf.function objects, concrete functions and TensorSpec: what the rest of the system calls. */
#ifndef TFS_TFFUNCTION_H
#define TFS_TFFUNCTION_H

#include <stdbool.h>

#include "tensor/tensor.h"
#include "object/value.h"

/* Register tf.function, tf.TensorSpec and tf.autograph.* in the `tf` module
 * and install the tf.Variable creation hook.  Idempotent; also run by a
 * constructor in tffunction.c, but standalone executables should call it
 * from rt_main before the program starts. */
void tffn_init(void);

/* `tfs run --eager`: same as tf.config.run_functions_eagerly(b). */
void tffn_set_eager(bool on);
/* The Python function a tf.function wraps (borrowed), or VT_UNDEF when v is no tf.function. */
Val tffn_python_fn(Val v);
Val tffn_method_fn(Val fn, Val *cache);   /* rt_obj_hooks.method_fn: a @tf.function method's per-instance function object */

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

/* tfsc --onnx: the graph of a tf.function with an input_signature (traced
 * now if it was not called), borrowed from the function; NULL when v is not
 * such a function. */
struct Graph *tffn_signature_graph(Val v, const char **name);
/* Called after every call of a tf.function with an input_signature, with its
 * flattened tensor arguments and its result (tfsc --onnx --save-io). */
extern void (*tffn_sig_call_hook)(const char *name, int nin, struct Tensor **in, Val result);
/* tf.saved_model.save: whether v is a tf.function; the concrete functions it
 * saves for the object `self` (a method's, those traced for that instance;
 * the input_signature's one is traced now if it was not), as a new list; and
 * what a concrete function holds (borrowed). */
struct Graph;
bool tffn_is(Val v);
/* A composite value's (tf.RaggedTensor: a class with `_type_spec`) component tensors as its spec's
 * _to_components gives them (owned), or VT_UNDEF when v is not a composite. */
Val tffn_components(Val v);
Val tffn_saved_concretes(Val fn, Val self);
typedef struct TffnConcInfo {
  const char *name;
  struct Graph *g;
  int nparams;
  char *const *params;        /* parameter names, self included for a method */
  Val args_tmpl;              /* tuple of the bound arguments, tensor leaves as markers */
  Val out_tmpl;               /* result template; VT_UNDEF: the single output 0 */
  int varargs;                /* the index of the *args parameter, or -1 */
} TffnConcInfo;
bool tffn_conc_info(Val conc, TffnConcInfo *out);
/* What a call of concrete function conc returns, from its graph's output tensors (owned, consumed):
 * tf.data's parallel map runs the graph itself (graph/parexec.c). */
Val tffn_conc_result(Val conc, struct Tensor **outs);

/* tf.data functions traced inside a tf.function (dataset.c): set tffn_capture_outer before tracing one, and the
 * enclosing trace's tensors it reads become its last placeholders (TF's captured inputs).  take: those tensors
 * (a tuple of symbolic tensors, owned; VT_UNDEF none), once; ncaptures: how many; bind: a copy computing with
 * the values of one run of the enclosing graph (owned). */
extern bool tffn_capture_outer;
Val tffn_conc_take_captures(Val conc);
int tffn_conc_ncaptures(Val conc);
Val tffn_conc_bind_captures(Val conc, struct Tensor *const *vals);
/* A host dataset's function (called by .tfs code) computes with vals until called again with NULL (the run's end). */
void tffn_conc_run_captures(Val conc, struct Tensor *const *vals);

/* Start-up: tf.GradientTape's repr and methods on the graph layer's tape type (gradtape.c). */
void gradtape_register(void);

#endif
