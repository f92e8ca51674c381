/* smgrad.h — custom gradients in SavedModels: traced into the function library at save, bound to loaded functions. */
#ifndef TFS_SMGRAD_H
#define TFS_SMGRAD_H

#include "formats/graphimport.h"
#include "graph/graph.h"
#include "object/value.h"
#include "tensorflow.pb-c.h"

/* The gradient functions tf.saved_model.save adds to the library: graphs g[i] named names[i], and the
 * RegisteredGradient entries naming them. */
typedef struct SmGrads {
  int n;
  const Graph **g;
  char **names;
  Tensorflow__RegisteredGradient **regs;
  char ***caps;   /* the forward tensors each grad_fn captured (its arguments after dy), as smgrad_bind finds them */
  int *ncaps;
} SmGrads;

/* The FunctionDef attribute naming a gradient function's captured forward tensors (tfs's own: TF keeps them as
 * captured_tensor nodes of the object graph). */
#define SMG_CAPTURES_ATTR "_tfs_forward_captures"

/* Writes each gradient function's captures into its FunctionDef of lib (after graphdef_saved_library). */
void smgrad_note_captures(PbArena *a, Tensorflow__FunctionDefLibrary *lib, const SmGrads *sg);

/* TF's save.py _trace_gradient_functions: the grad_fn of every custom-gradient node of gs[0..n) traced as a
 * tf.function of the node's output gradient (none when options says experimental_custom_gradients=False).
 * Library names count on from *seq.  Returns the list holding the traced concrete functions (owned). */
Val smgrad_trace(PbArena *a, const Graph *const *gs, int n, Val options, int *seq, SmGrads *out);

/* load.py: each registered gradient of lib imported and made the gradient of the custom-gradient nodes of
 * gs[0..n) carrying its op type (the others keep raising TF's LookupError). */
void smgrad_bind(const Tensorflow__FunctionDefLibrary *lib, Graph *const *gs, int n, const char *path, GiVarFn var,
                 void *vctx);

#endif
