/* kdatasets.h — what the tf.keras.datasets loaders share: Keras's cache paths, numpy's shuffle, result pairs. */
#ifndef TFS_KDATASETS_H
#define TFS_KDATASETS_H

#include "kernels/nprandom.h"
#include "object/object.h"
#include "tensor/tensor.h"

/* The file Keras's get_file keeps as cache_subdir/fname under cache_dir, else KERAS_HOME, else ~/.keras. */
void keras_cache_file(const char *cache_dir, const char *subdir, const char *fname, char *out, size_t n);
/* (a, b), taking both. */
Val kd_pair(Val a, Val b);
/* An owned tensor Val as the ndarray Keras returns (other values unchanged; taken). */
Val kd_ndarray(Val v);
/* numpy's legacy RandomState.shuffle of idx[0..n), drawing from st. */
void kd_shuffle(MtState *st, tfs_i64 *idx, tfs_i64 n);
/* An ndarray of rows idx[lo..hi) of t. */
Val kd_take_rows(Tensor *t, const tfs_i64 *idx, tfs_i64 lo, tfs_i64 hi);
/* cifar10, cifar100, imdb, reuters (kdpickled.c): the module or function named qual, or VT_UNDEF. */
Val kdpickled_attr(const char *qual);

#endif
