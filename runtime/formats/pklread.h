/* pklread.h — a reader of Python pickles (protocols 0-5) restricted to data: containers, numbers, text, numpy arrays. */
#ifndef TFS_PKLREAD_H
#define TFS_PKLREAD_H

#include "object/object.h"

/* How Python 2 str values (STRING, BINSTRING, SHORT_BINSTRING) come back: pickle.load's encoding argument
 * 'bytes' (PKL_PY2_BYTES, what Keras's cifar loader asks for), 'ASCII' (its default, numpy's np.load) or
 * 'latin1'. */
typedef enum { PKL_PY2_ASCII, PKL_PY2_BYTES, PKL_PY2_LATIN1 } PklPy2Str;

/* The object the pickle data[0..len) holds (owned): None, bool, int (64-bit), float, str, bytes, bytearray,
 * list, tuple, dict, set, frozenset, and numpy's ndarrays, dtypes' arrays and scalars
 * (numpy.core.multiarray._reconstruct with ndarray.__setstate__, numpy.dtype, numpy.core.multiarray.scalar,
 * numpy.core.numeric._frombuffer); an object (dtype 'O') array comes back as an object ndarray
 * (tensor/npobj.c). Any other global raises NotImplementedError naming
 * it; a damaged or truncated stream raises ValueError naming `where` and the byte offset. *used (when not
 * NULL) is set to the bytes the pickle took, up to and including its STOP. */
Val pkl_load(const unsigned char *data, tfs_i64 len, const char *where, PklPy2Str py2, tfs_i64 *used);

#endif
