/* npyfile.h — .npy members and .npz archives (np.savez's layout), read and written atomically. */
#ifndef TFS_NPYFILE_H
#define TFS_NPYFILE_H

#include "object/object.h"

/* .npz files of stored .npy members arr_0.npy ... (np.savez's layout): write a
 * list of arrays atomically, read one back as a list of ndarrays; `what`
 * starts error messages ('load_weights'). */
void npz_write(const char *what, const char *path, Val list);
/* The same with member names (a list of str, VT_UNDEF for arr_0 ...) and deflate (np.savez_compressed). */
void npz_write_ex(const char *what, const char *path, Val names, Val list, bool compress);
Val npz_read(const char *what, const char *path);
#endif
