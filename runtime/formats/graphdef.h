/* graphdef.h — a traced Graph as TensorFlow's GraphDef protocol buffer (TF op names and attributes, a function library for cond/while bodies). */
#ifndef TFS_GRAPHDEF_H
#define TFS_GRAPHDEF_H

#include "graph/graph.h"
#include "formats/pbutil.h"

/* The GraphDef of g, built in arena a.  Each graph `cond`/`while` becomes
 * StatelessIf/If or StatelessWhile/While (the stateful form when a body has
 * side effects), its bodies functions of the library; each function output
 * becomes an Identity node, as TF's function graphs have. */
Tensorflow__GraphDef *graphdef_build(PbArena *a, const Graph *g);
/* Several graphs in one GraphDef (trace_export of more than one traced
 * function): each graph's nodes under the name scope of its function. */
Tensorflow__GraphDef *graphdef_build_many(PbArena *a, const Graph *const *gs, int n);

/* The _gradient_op_type of custom-gradient node id of g (GNF_CUSTOM_GRAD): the op type its saved gradient function
 * is registered under (FunctionDefLibrary.registered_gradients). */
char *graphdef_grad_op_type(PbArena *a, const Graph *g, int id);
/* tf.saved_model.save: a library holding each graph gs[i] as function
 * names[i] (with the bodies of its conds and loops), every node with the
 * extra attributes graphimport.c reads back; varkey names each Variable's
 * VarHandleOp (its key in the saved variables). */
Tensorflow__FunctionDefLibrary *graphdef_saved_library(PbArena *a, const Graph *const *gs, const char *const *names, int n,
                                                       const char *(*varkey)(void *ctx, const Variable *v), void *ctx);

/* What the GraphDef writer needs of a tf.data dataset that a graph's dataset
 * loop iterates (stdlib/modules/dataset.c fills it), so the loop exports as TF's
 * dataset ops: the dataset op with its input datasets and constant inputs, an
 * iterator, and optionals for the elements. */
#define GD_DS_MAX 64
typedef struct GdDsConst {
  const char *name;           /* the input's name in TF's op ("start", "count", ...) */
  DType dtype;                /* DT_INT64, DT_BOOL or DT_STRING scalar; else `tensor` */
  tfs_i64 i;
  const char *s;
  Tensor *tensor;             /* borrowed */
  const Val *strs;            /* DT_STRING vector: nstrs str values (borrowed) */
  int nstrs;
} GdDsConst;
typedef struct GdDataset {
  const char *op;             /* TF's op ("RangeDataset", ...); NULL: a dataset argument (input `arg` of the iterator) */
  int arg;
  int nin;
  Val in[GD_DS_MAX];          /* input datasets (borrowed) */
  int nconst;
  GdDsConst c[GD_DS_MAX];
  const Graph *fn;            /* MapDataset/FilterDataset: the traced function (borrowed) */
  const char *fn_attr;        /* "f" or "predicate" */
  int ncap;                   /* the traced tensors fn reads (TF's other_arguments): iterator inputs after the
                               * dataset arguments, in the order the dataset's nodes are visited (inputs first) */
  const char *flag_attr;      /* a bool attribute (reshuffle_each_iteration) or NULL */
  bool flag;
  int nleaves;                /* the element: its tensors' dtypes and shapes */
  TMeta leaf[GD_DS_MAX];
} GdDataset;
/* Set by stdlib/modules/dataset.c when a graph first iterates a dataset; false: v is no dataset it can describe. */
extern bool (*graphdef_dataset_info)(Val v, GdDataset *out);

/* Text format and binary of g's GraphDef (malloc'd / appended). */
void graphdef_text(StrBuf *b, const Graph *g);
unsigned char *graphdef_pack(const Graph *g, size_t *n);

#endif
