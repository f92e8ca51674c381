/* pbutil.h — helpers around protobuf-c messages: an arena for building nested messages, text format, tensors as TensorProto. */
#ifndef TFS_PBUTIL_H
#define TFS_PBUTIL_H

#include <protobuf-c/protobuf-c.h>

#include "tensor/tensor.h"
#include "object/value.h"
#include "tensorflow.pb-c.h"

/* Every piece of a message tree being built comes from one arena, freed at
 * once: protobuf-c's own free functions expect its allocator throughout. */
typedef struct PbArena { struct PbChunk *head; } PbArena;
void *pa_alloc(PbArena *a, size_t n);              /* zeroed; raises MemoryError */
char *pa_strdup(PbArena *a, const char *s);
char *pa_printf(PbArena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pa_free(PbArena *a);

/* Append the protobuf text format of msg (fields in number order, as
 * TensorFlow's Python prints it), each line indented by `indent`. */
void pb_text(StrBuf *b, const ProtobufCMessage *msg, int indent);
/* The bytes one value of a field of type t takes in a protobuf-c message (a repeated field's element stride). */
size_t pb_field_size(ProtobufCType t);
/* Serialize msg into a fresh malloc'd buffer (*n bytes). */
unsigned char *pb_pack(const ProtobufCMessage *msg, size_t *n);

/* TF's DataType for a tfs dtype; shapes and tensors as TF writes them
 * (numbers in tensor_content, strings in string_val). Rank -1: unknown rank. */
Tensorflow__DataType pb_dtype(DType dt);
Tensorflow__TensorShapeProto *pb_shape(PbArena *a, int rank, const tfs_i64 *shape);
Tensorflow__TensorProto *pb_tensor(PbArena *a, Tensor *t);
/* A graph constant as TF's Python writes it: a one-element tensor in its
 * typed field (float_val, int_val, ...), larger ones in tensor_content. */
Tensorflow__TensorProto *pb_const_tensor(PbArena *a, Tensor *t);
/* As TF's AsProtoField (a Variant's tensors, VariantTensorData::ToProto): every value in its typed field. */
Tensorflow__TensorProto *pb_field_tensor(PbArena *a, Tensor *t);

/* The reverse, for reading saved graphs: tfs dtype of a DataType (-1: none),
 * a shape (false: more dims than tfs has), a tensor (NULL with *err set when
 * the proto is inconsistent; never trusts its sizes). */
int pb_undtype(Tensorflow__DataType t);
bool pb_unshape(const Tensorflow__TensorShapeProto *p, int *rank, tfs_i64 *shape);
Tensor *pb_untensor(const Tensorflow__TensorProto *p, const char **err);

#endif
