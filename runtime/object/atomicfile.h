/* atomicfile.h — write a file whole or not at all (issue 12: no data loss): the previous file survives any failure. */
#ifndef TFS_ATOMICFILE_H
#define TFS_ATOMICFILE_H

#include <stddef.h>

/* Write n bytes to path through a temporary file in the same directory,
 * synced and renamed into place.  Returns 0, or an errno (nothing changed). */
int af_write(const char *path, const void *data, size_t n);

/* For files another program writes (the linker): an empty temporary file
 * beside path (malloc'd name; NULL with errno set), then af_commit renames it
 * into place (0 or errno; the name is freed, the file removed on failure) or
 * af_abort removes it. */
char *af_temp_for(const char *path);
int af_commit(char *tmp, const char *path);
void af_abort(char *tmp);

#endif
