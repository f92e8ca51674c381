/* zipfile.h — zip archives through Debian's libzip: the members of a Keras v3 `.keras` file, written and read whole. */
#ifndef TFS_ZIPFILE_H
#define TFS_ZIPFILE_H

#include <stddef.h>

/* Write n members (stored, as Python's zipfile.ZipFile(path, "w") writes them) to path, which libzip replaces
 * only once the archive is complete. 0, or -1 with the reason in err. */
int zf_write(const char *path, int n, const char *const *names, const void *const *data, const size_t *lens, char *err,
             size_t errn);

/* A member's bytes (malloc'd, *len set); NULL with the reason in err (*missing set when the archive has no such member). */
void *zf_read(const char *path, const char *member, size_t *len, int *missing, char *err, size_t errn);

#endif
