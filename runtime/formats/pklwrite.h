/* pklwrite.h — numpy's pickle of an object ndarray (what np.save writes after the .npy header). */
#ifndef TFS_PKLWRITE_H
#define TFS_PKLWRITE_H

#include "object/object.h"

/* Appends the protocol-3 pickle numpy writes for the object array a (tensor/npobj.c); elements may be None, bool,
 * int, float, str, bytes, and lists and tuples of them, else NotImplementedError naming `what` and the type. */
void pkl_dump_objarray(StrBuf *b, Val a, const char *what);

#endif
