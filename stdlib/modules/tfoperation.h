/* tfoperation.h — tf.Operation values: a node of a traced graph (NoOps of tf.no_op / tf.group too). */
#ifndef TFS_TFOPERATION_H
#define TFS_TFOPERATION_H

#include "graph/graph.h"

/* The Operation of node `node` of g (owned). */
Val tfop_new(Graph *g, int node);
/* The graph being traced (a body's inside cond/while), or NULL when ops run eagerly. */
Graph *tfop_tracing_graph(void);
/* tf.Operation, tf.no_op, tf.group and the kernels' hooks for symbolic tensors' graph attributes (start-up). */
void tfop_register(void);

#endif
