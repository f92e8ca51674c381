/* paths.c — locate the stdlib and runtime archive relative to /proc/self/exe, so an installed prefix can live anywhere (DESTDIR, moved trees). */
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "object/exepath.h"

#ifndef TFS_LIBDIR_REL
#define TFS_LIBDIR_REL "lib"   /* the install libdir relative to the prefix */
#endif
#ifndef TFS_STDLIB_DIR
#define TFS_STDLIB_DIR "stdlib"
#endif

const char *paths_stdlib_dir(void) {
  static char dir[PATH_MAX + 32];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "%s/share/tfs/stdlib", rt_exe_prefix());
    if (!rt_path_is(dir, 1)) snprintf(dir, sizeof dir, "%s", TFS_STDLIB_DIR);
  }
  return dir;
}

const char *paths_runtime_archive(void) {
  const char *env = getenv("TFS_RTLIB");
  if (env && *env) return env;
  static char lib[PATH_MAX + 64];
  snprintf(lib, sizeof lib, "%s/%s/tfs/libtfsrt.a", rt_exe_prefix(), TFS_LIBDIR_REL);
  if (rt_path_is(lib, 0)) return lib;
  snprintf(lib, sizeof lib, "%s/libtfsrt.a", rt_exe_prefix());   /* build/compiler/tfs -> build/libtfsrt.a */
  if (rt_path_is(lib, 0)) return lib;
  return NULL;
}
