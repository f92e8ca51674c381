/* tfoperation.h — tf.Operation values: a node of a traced graph (NoOps of tf.no_op / tf.group too). */
#ifndef TFS_TFOPERATION_H
#define TFS_TFOPERATION_H

#include "graph/graph.h"

/* The Operation of node `node` of g (owned). */
Val tfop_new(Graph *g, int node);
/* tf.Operation, tf.no_op, tf.group and the kernels' hooks for symbolic tensors' graph attributes (start-up). */
void tfop_register(void);

#endif
