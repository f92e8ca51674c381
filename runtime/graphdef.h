/* graphdef.h — a traced Graph as TensorFlow's GraphDef protocol buffer (TF op names and attributes, a function library for cond/while bodies). */
#ifndef TFS_GRAPHDEF_H
#define TFS_GRAPHDEF_H

#include "graph.h"
#include "pbutil.h"

/* The GraphDef of g, built in arena a.  Each graph `cond`/`while` becomes
 * StatelessIf/If or StatelessWhile/While (the stateful form when a body has
 * side effects), its bodies functions of the library; each function output
 * becomes an Identity node, as TF's function graphs have. */
Tensorflow__GraphDef *graphdef_build(PbArena *a, const Graph *g);
/* Several graphs in one GraphDef (trace_export of more than one traced
 * function): each graph's nodes under the name scope of its function. */
Tensorflow__GraphDef *graphdef_build_many(PbArena *a, const Graph *const *gs, int n);

/* tf.saved_model.save: a library holding each graph gs[i] as function
 * names[i] (with the bodies of its conds and loops), every node with the
 * extra attributes graphimport.c reads back; varkey names each Variable's
 * VarHandleOp (its key in the saved variables). */
Tensorflow__FunctionDefLibrary *graphdef_saved_library(PbArena *a, const Graph *const *gs, const char *const *names, int n,
                                                       const char *(*varkey)(void *ctx, const Variable *v), void *ctx);

/* Text format and binary of g's GraphDef (malloc'd / appended). */
void graphdef_text(StrBuf *b, const Graph *g);
unsigned char *graphdef_pack(const Graph *g, size_t *n);

#endif
