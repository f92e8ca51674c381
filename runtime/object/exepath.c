/* exepath.c — the prefix a program runs from (the parent of its executable's directory), for finding installed files. */
#include "object/exepath.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *rt_exe_prefix(void) {
  static char prefix[PATH_MAX];
  static int done;
  if (done) return prefix;
  done = 1;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return prefix;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return prefix;
  *slash = 0;   /* the bin directory */
  slash = strrchr(exe, '/');
  if (!slash) return prefix;
  *slash = 0;
  snprintf(prefix, sizeof prefix, "%s", exe);
  return prefix;
}

bool rt_path_is(const char *path, bool dir) {
  struct stat st;
  return stat(path, &st) == 0 && (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}
