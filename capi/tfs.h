/* tfs.h — the C API of libtfs: load a SavedModel written by tf.saved_model.save, run its signatures on C arrays.
 *
 * Usage:
 *   TfsStatus *st = tfs_status_new();
 *   TfsModel *m = tfs_model_load("export_dir", st);             // NULL on error: tfs_status_message(st)
 *   TfsSession *s = tfs_session_new(m, "serving_default", st);  // one per thread
 *   int64_t dims[2] = {1, 784};
 *   tfs_session_set_input(s, 0, TFS_FLOAT32, 2, dims, pixels, st);
 *   tfs_session_run(s, st);
 *   const float *y = tfs_session_output(s, 0, NULL, &rank, &shape, st);   // valid until the next run
 *   tfs_session_free(s); tfs_model_free(m); tfs_status_free(st);
 *
 * Every call that can fail takes a TfsStatus, sets its code and message and
 * returns an error value (NULL or a non-zero code); nothing aborts the
 * process.  A model may be shared by several threads, each with its own
 * session; the runtime is not reentrant, so their runs take turns on one
 * process-wide lock (docs/deployment.md). */
#ifndef TFS_H
#define TFS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TfsCode {
  TFS_OK = 0,
  TFS_INVALID_ARGUMENT = 1,   /* bad input: dtype, shape, index, name, a NULL pointer */
  TFS_NOT_FOUND = 2,          /* no such signature or input */
  TFS_IO_ERROR = 3,           /* the directory or a file cannot be read */
  TFS_CORRUPT = 4,            /* saved_model.pb or variables/variables.* is damaged */
  TFS_RUNTIME_ERROR = 5,      /* an op failed while running (the message is TF's) */
} TfsCode;

typedef enum TfsDType { TFS_FLOAT32 = 0, TFS_FLOAT64 = 1, TFS_INT32 = 2, TFS_INT64 = 3, TFS_BOOL = 4 } TfsDType;

typedef struct TfsStatus TfsStatus;
typedef struct TfsModel TfsModel;
typedef struct TfsSession TfsSession;

TfsStatus *tfs_status_new(void);
void tfs_status_free(TfsStatus *st);
TfsCode tfs_status_code(const TfsStatus *st);
const char *tfs_status_message(const TfsStatus *st);   /* "" when TFS_OK */

TfsModel *tfs_model_load(const char *export_dir, TfsStatus *st);
void tfs_model_free(TfsModel *m);                      /* after its sessions are freed */
int tfs_model_num_signatures(const TfsModel *m);
const char *tfs_model_signature_name(const TfsModel *m, int i);

TfsSession *tfs_session_new(TfsModel *m, const char *signature, TfsStatus *st);
void tfs_session_free(TfsSession *s);
/* The signature's inputs (keyword names, dtypes, shapes with -1 for None) and outputs ("output_0", ...). */
int tfs_session_num_inputs(const TfsSession *s);
const char *tfs_session_input_name(const TfsSession *s, int i);
int tfs_session_input_index(const TfsSession *s, const char *name);   /* -1: none */
TfsDType tfs_session_input_dtype(const TfsSession *s, int i);
int tfs_session_input_shape(const TfsSession *s, int i, const int64_t **dims);   /* rank (-1 unknown) */
int tfs_session_num_outputs(const TfsSession *s);
const char *tfs_session_output_name(const TfsSession *s, int i);
/* Copy a C array (row-major, rank dims) into input i. */
TfsCode tfs_session_set_input(TfsSession *s, int i, TfsDType dtype, int rank, const int64_t *dims, const void *data,
                              TfsStatus *st);
TfsCode tfs_session_run(TfsSession *s, TfsStatus *st);
/* Output i of the last run: its data (row-major), dtype, rank and dims; valid until the next run or free. */
const void *tfs_session_output(TfsSession *s, int i, TfsDType *dtype, int *rank, const int64_t **dims, TfsStatus *st);

#ifdef __cplusplus
}
#endif
#endif
