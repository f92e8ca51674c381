/* exepath.h — locating installed files relative to the running executable. */
#ifndef TFS_EXEPATH_H
#define TFS_EXEPATH_H
#include <stdbool.h>

/* The parent of the directory holding /proc/self/exe ("" if unknown); computed once. */
const char *rt_exe_prefix(void);
/* True when path exists and is a directory (dir) or a regular file (!dir). */
bool rt_path_is(const char *path, bool dir);

#endif
