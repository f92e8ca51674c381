/* savedmodel.h — a loaded SavedModel as the C API (capi/tfs.c) sees it: read a directory, find a function by library name. */
#ifndef TFS_SAVEDMODEL_H
#define TFS_SAVEDMODEL_H

#include "object/value.h"

typedef struct SmModel SmModel;
typedef struct SmConc SmConc;

/* Read export_dir (raises the errors of tf.saved_model.load); an owned object (val_obj(m)). */
SmModel *smodel_read(const char *dir);
/* A concrete function by its library name, or NULL (borrowed from m). */
SmConc *smodel_conc(SmModel *m, const char *name);
/* The signatures of m: count, name i, and the function signature `name` runs (NULL: none). */
int smodel_num_signatures(const SmModel *m);
const char *smodel_signature_name(const SmModel *m, int i);
SmConc *smodel_signature(SmModel *m, const char *name);
/* The SignatureDef's key for output i of signature `name` (NULL when it has none). */
const char *smodel_signature_output(const SmModel *m, const char *name, int i);
/* What a concrete function runs: its graph (borrowed) and argument names. */
struct Graph *smodel_conc_graph(const SmConc *c);
const char *smodel_conc_arg(const SmConc *c, int i);

#endif
