/* driver.h — the pipeline behind the command-line tools: load, analyse, generate C, JIT or link, run. */
#ifndef TFS_DRIVER_H
#define TFS_DRIVER_H

#include <stdbool.h>

typedef struct DriverOpts {
  bool eager;                 /* tfs run --eager: tf.config.run_functions_eagerly(True) at start */
  const char *dump_graphs;    /* tfs run --dump-graphs DIR */
} DriverOpts;

/* Each returns the process exit status (0 ok, 1 compile/runtime error). */
int driver_run(const char *path, int argc, char **argv, const DriverOpts *opts);
int driver_check(const char *path);
int driver_emit_c(const char *path, const char *out_path);   /* out_path NULL: stdout */
int driver_build_exe(const char *path, const char *out_path);
/* tfsc --to-code: the whole module converted, or one function as tf__NAME. */
int driver_to_code(const char *path, const char *function);

/* tfsc --onnx prog.tfs --function NAME -o OUT [--save-io IO]: run the
 * program (its output discarded), export NAME's input_signature graph. */
int driver_onnx(const char *path, const char *function, const char *out_path, const char *io_path);
/* tfsc --onnx IN ... -o OUT: a directory IN is a SavedModel exported by
 * signature (--signature NAME), a file a program by function (--function
 * NAME); the wrong flag for the input is an error naming both. */
int driver_onnx_any(const char *in, const char *function, const char *signature, const char *out_path, const char *io_path);

#endif
