/* tensorarray.h — tf.TensorArray, the host object over a TensorList, as a composite value of graphs. */
#ifndef TFS_TENSORARRAY_H
#define TFS_TENSORARRAY_H

#include "kernels/tensorlist.h"

/* tf.TensorArray (stdlib/function/tensorarray.c).  In a graph it is a composite value
 * whose one tensor is its flow (the variant list), so loops carry it and
 * nest_map rebuilds it around a new flow. */
extern const Type tensorarray_type;
Val tensorarray_with_flow(Val ta, Val flow);     /* a copy of ta around flow (owned) */
Val tensorarray_flow(Val ta);                    /* borrowed */
#endif
