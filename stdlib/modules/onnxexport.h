/* onnxexport.h — tfsc --onnx: export a program's tf.function or a SavedModel's signature as an ONNX model. */
#ifndef TFS_ONNXEXPORT_H
#define TFS_ONNXEXPORT_H

#include <stdbool.h>

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
