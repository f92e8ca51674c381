/* tensorlist.h — the TensorList value a DT_VARIANT tensor holds (k_list.c's kernels build and read it). */
#ifndef TFS_TENSORLIST_H
#define TFS_TENSORLIST_H

#include "tensor/tensor.h"

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

#endif
