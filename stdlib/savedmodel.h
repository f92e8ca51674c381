/* savedmodel.h — a loaded SavedModel as the C API (capi/tfs.c) sees it: read a directory, find a function by library name. */
#ifndef TFS_SAVEDMODEL_H
#define TFS_SAVEDMODEL_H

#include "value.h"

typedef struct SmModel SmModel;
typedef struct SmConc SmConc;

/* Read export_dir (raises the errors of tf.saved_model.load); an owned object (val_obj(m)). */
SmModel *smodel_read(const char *dir);
/* A concrete function by its library name, or NULL (borrowed from m). */
SmConc *smodel_conc(SmModel *m, const char *name);

#endif
