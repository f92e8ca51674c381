/* tprint.h — text of tensor values: numpy 1.24 str() and tf.print's format (docs/printing.md). */
#ifndef TFS_TPRINT_H
#define TFS_TPRINT_H

#include "tensor/tensor.h"

/* numpy's print options (np.set_printoptions), which tf.Tensor printing follows too, as in TF. */
typedef struct NpPrintOpts { int precision; tfs_i64 threshold; int linewidth; bool suppress; } NpPrintOpts;
extern NpPrintOpts np_print_opts;

/* Append numpy's str() of t's values with the print options: "[[12.]]",
 * "[ 1.5  -2.25  3.  ]", "[]" when empty; a 0-d tensor prints as its scalar.
 * Multi-line results contain '\n' and no trailing newline. */
void tprint_numpy(StrBuf *b, const Tensor *t);
/* The shown elements' words of tprint_numpy, in order and padded (no brackets, no "..."): for repr(). */
void tprint_numpy_words(const Tensor *t, void (*push)(void *ctx, const char *w, size_t n), void *ctx);

/* Append numpy's str() of one scalar of dtype dt stored at elem (the element
 * layout of a tensor buffer): "12.0", "1e-05", "-3", "True", "b'a'". */
void tprint_numpy_scalar(StrBuf *b, DType dt, const void *elem);

/* Append tf.print's text of t (TF's SummarizeValue with summarize=3):
 * "[4 4]", "1.5", "[0 1 2 ... 7 8 9]", "[[1 2]\n [3 4]]", bools as 1/0,
 * strings double-quoted and C-escaped. */
void tprint_tfprint(StrBuf *b, const Tensor *t);
/* The same with tf.print's `summarize` edge count (-1: everything). */
void tprint_tfprint_n(StrBuf *b, const Tensor *t, tfs_i64 summarize);

#endif
