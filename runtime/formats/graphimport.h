/* graphimport.h — read a function of a saved GraphDef library back into a Graph (tf.saved_model.load). */
#ifndef TFS_GRAPHIMPORT_H
#define TFS_GRAPHIMPORT_H

#include "graph/graph.h"
#include "formats/pbutil.h"

/* The Variable a VarHandleOp's shared_name stands for (borrowed), or NULL. */
typedef Variable *(*GiVarFn)(void *ctx, const char *key);

/* Function `fname` of lib (written by graphdef_saved_library) as a graph named
 * gname, its conds and loops rebuilt from the library's bodies.  Anything
 * inconsistent raises ValueError "tf.saved_model.load: 'path' is corrupt: …". */
Graph *graphimport_function(const Tensorflow__FunctionDefLibrary *lib, const char *fname, const char *gname,
                            const char *path, GiVarFn var, void *vctx);

/* A string attribute starting with this is a slicing key in tfs's own text (graphdef.c's gd_key_item writes it,
 * gi_key reads it): TF's AttrValue has no form for slices, Ellipsis or a tuple as such. */
#define TFS_KEY_MARK "\001tfs-key:"

/* Raise that ValueError for the directory `path` (also for what savedmodel.c finds wrong). */
#include <stdarg.h>
_Noreturn void graphimport_corrupt_v(const char *path, const char *fmt, va_list ap);

#endif
