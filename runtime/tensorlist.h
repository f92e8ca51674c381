/* tensorlist.h — the TensorList value a DT_VARIANT tensor holds, and the tf.TensorArray host object built on it. */
#ifndef TFS_TENSORLIST_H
#define TFS_TENSORLIST_H

#include "tensor.h"

/* A list of tensors of one dtype; an element never written is NULL (read as zeros of the element shape). */
typedef struct TList {
  Obj hdr;
  DType edt;
  int erank;                  /* element shape: rank -1 unknown, dims -1 unknown */
  tfs_i64 eshape[TFS_MAX_RANK];
  tfs_i64 n, cap;
  Tensor **items;
} TList;

extern const Type tlist_type;
/* The list an eager variant tensor holds, or NULL. */
TList *tlist_of(Tensor *t);
/* ZerosLike of a list: into the variant scalar `out`, a list of as many unset elements. */
void tlist_zeros_like(Tensor *list, Tensor *out);

/* tf.TensorArray (stdlib/tensorarray.c).  In a graph it is a composite value
 * whose one tensor is its flow (the variant list), so loops carry it and
 * trace_nest_map rebuilds it around a new flow. */
extern const Type tensorarray_type;
Val tensorarray_with_flow(Val ta, Val flow);     /* a copy of ta around flow (owned) */
Val tensorarray_flow(Val ta);                    /* borrowed */
#endif
