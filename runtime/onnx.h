/* onnx.h — ONNX export of traced graphs (tfsc --onnx): the model writer and the export of a program's tf.function. */
#ifndef TFS_ONNX_H
#define TFS_ONNX_H

#include <stdbool.h>
#include <stddef.h>

#include "graph.h"

/* The serialized ModelProto (opset 17) of a concrete function's graph;
 * malloc'd, *len bytes.  Inputs are named in_names (NULL: the placeholders'
 * names), outputs out_names (NULL, or a NULL entry: output_0, output_1, ...).  An op with no ONNX form is an error (rt_throw) at
 * the op's source line naming it. */
unsigned char *onnx_model_pack(const Graph *g, const char *fname, const char *const *in_names, const char *const *out_names,
                               size_t *len);

/* tfsc --onnx prog.tfs --function NAME -o OUT [--save-io IO]: arm before the
 * program runs (records its first call of NAME when IO is set), then call
 * onnx_export_finish once its top level has run: it finds the global NAME,
 * exports its input_signature graph to OUT (atomically) and writes the
 * recorded call's inputs and outputs to IO as JSON.  Errors about the choice
 * of function or the output file are printed as "PATH: error: ...". */
void onnx_export_setup(const char *path, const char *function, const char *out, const char *io);
bool onnx_export_finish(void);   /* false: an error was printed */

/* tfsc --onnx SAVED_DIR --signature NAME -o OUT: load the SavedModel (no
 * source) and export the signature's function, Variables as initializers and
 * outputs named as the signature's.  Errors are printed as "DIR: error: ..."
 * (a missing or corrupt directory, an unknown signature, an op with no ONNX
 * form); returns the exit status. */
int onnx_export_saved(const char *dir, const char *sig, const char *out);

#endif
