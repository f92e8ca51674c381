/* nodedefobj.h — NodeDef values of op.node_def and GraphDef.node, AttrValues as Operation.get_attr gives them, protobuf
 * messages as Python shows them. */
#ifndef TFS_NODEDEFOBJ_H
#define TFS_NODEDEFOBJ_H

#include "formats/graphdef.h"
#include "object/object.h"

/* An AttrValue as TF's Operation.get_attr gives it: a DType, int, float, bool, bytes, TensorShape, tensor, list (owned). */
Val attr_value(const Tensorflow__AttrValue *v);
/* A protobuf message as TF's Python shows it (a copy of m): its fields as attributes, str/repr its text format,
 * WhichOneof, HasField, SerializeToString.  NodeDef.attr's values are AttrValues so. */
Val proto_obj_new(const ProtobufCMessage *m);
/* The same of a message protobuf-c unpacked (with the default allocator), which it takes. */
Val proto_obj_take(ProtobufCMessage *unpacked);
/* The message v shows (borrowed), or NULL when v is none of these. */
const ProtobufCMessage *proto_obj_msg(Val v);
/* A NodeDef value of nd (NULL: name and op only); name and op are its fields (owned). */
Val nodedef_obj_new(const Tensorflow__NodeDef *nd, const char *name, const char *op);

#endif
