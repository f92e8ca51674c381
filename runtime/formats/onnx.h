/* onnx.h — ONNX export of traced graphs: the ModelProto writer (tfsc --onnx drives it: stdlib/modules/onnxexport.c). */
#ifndef TFS_ONNX_H
#define TFS_ONNX_H

#include <stdbool.h>
#include <stddef.h>

#include "graph/graph.h"

/* The serialized ModelProto (opset 17) of a concrete function's graph;
 * malloc'd, *len bytes.  Inputs are named in_names (NULL: the placeholders'
 * names), outputs out_names (NULL, or a NULL entry: output_0, output_1, ...).  An op with no ONNX form is an error (rt_throw) at
 * the op's source line naming it. */
unsigned char *onnx_model_pack(const Graph *g, const char *fname, const char *const *in_names, const char *const *out_names,
                               size_t *len);

#endif
