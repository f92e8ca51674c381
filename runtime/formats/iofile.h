/* iofile.h — file loading shared by tf.io, tf.data and keras.datasets: whole files, .npy/.npz, CSV text. */
#ifndef TFS_IOFILE_H
#define TFS_IOFILE_H

#include "tensor/tensor.h"

/* The file name a tf.io function was given (a str or a 0-d string tensor); borrowed. */
const char *io_path_arg(Val v, const char *what);
/* The whole file, gunzipped when the name ends in .gz; malloc'd, NUL-terminated,
 * *len bytes before the NUL.  A missing file raises NotFoundError, a corrupt
 * gzip stream InvalidArgumentError, both naming `what` and the path. */
char *io_read_all(const char *path, const char *what, tfs_i64 *len);
/* The same, gunzipping a .gz name only when `gunzip` (TFRecord readers take the bytes as they are, as TF's do). */
char *io_read_bytes(const char *path, const char *what, tfs_i64 *len, bool gunzip);
/* The bytes a zlib (RFC 1950) or gzip stream data[0..n) holds, malloc'd with a NUL after *len;
 * damaged data raises DataLossError with zlib's words, as TF's ZlibInputStream does. */
char *io_inflate(const char *data, tfs_i64 n, bool gzip, const char *what, tfs_i64 *len);
/* Append b compressed whole as one gzip (or zlib) stream with zlib's defaults, as TF's writers do;
 * raises MemoryError naming `what` when zlib cannot start. */
void io_deflate(StrBuf *out, const char *data, size_t n, bool gzip, const char *what);
/* A 0-d string tensor holding s[0..n) (owned). */
Val io_string_scalar(const char *s, tfs_i64 n);

/* numpy's .npy format (versions 1-3): parse one array (owned tensor; errors name
 * `where`), or serialise a tensor as version 1 (malloc'd, *len bytes). */
Tensor *npy_parse(const unsigned char *data, tfs_i64 len, const char *where);
char *npy_format(Tensor *t, size_t *len);
/* The same for np.save/np.load: uwidth > 0 writes a string tensor as numpy's '<U uwidth'
 * (UTF-32LE); parsing sets *uwidth to a '<U n' file's n (0 otherwise; its tensor holds
 * UTF-8 strings) and returns NULL for an object ('|O', pickled) array. */
char *npy_format_ex(Tensor *t, int uwidth, size_t *len);
char *npy_format_object(Val a, size_t *len);   /* np.save of an object array (malloc'd): header and numpy's pickle */
Tensor *npy_parse_ex(const unsigned char *data, tfs_i64 len, const char *where, int *uwidth);
/* The array of a .npy header's descr, order and shape whose elements are body[0..blen) (owned; the pickle
 * reader's ndarrays too); exact: blen must be the elements' size, as ndarray.__setstate__ asks. */
Tensor *npy_from_raw(const char *descr, bool fortran, int rank, const tfs_i64 *shape, const unsigned char *body,
                     tfs_i64 blen, bool exact, const char *where, int *uwidth);
/* An object ('|O') .npy's array: the nested lists the pickle reader makes of it (formats/pklread.h); py2: its
 * PklPy2Str, how Python 2 str come back (np.load's encoding). */
Val npy_load_object(const unsigned char *data, tfs_i64 len, const char *where, int py2);
/* The offset of an object ('|O') .npy's pickled array, -1 when the file holds another dtype. */
tfs_i64 npy_object_pickle(const unsigned char *data, tfs_i64 len, const char *where);
/* A .npz archive (zip of .npy members, stored or deflated): a dict name -> tensor; nd: name ->
 * ndarray instead (text arrays keep their width; an object member is its .npy bytes, for npy_load_object). */
Val npz_parse(const unsigned char *data, tfs_i64 len, const char *where, bool nd);

#endif
