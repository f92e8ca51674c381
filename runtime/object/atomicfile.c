/* atomicfile.c — files written whole or not at all: a temporary file beside the target, renamed into place. */
#include "object/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *af_temp_for(const char *path) {
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) {
    errno = ENOMEM;
    return NULL;
  }
  /* Same directory as the target, so the final rename never crosses file systems. */
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmp-XXXXXX", 12);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    errno = e;
    return NULL;
  }
  mode_t um = umask(0);
  umask(um);
  fchmod(fd, 0666 & ~um);   /* mkstemp's 0600 would outlive the rename */
  close(fd);
  return tmp;
}

int af_commit(char *tmp, const char *path) {
  int e = rename(tmp, path) == 0 ? 0 : errno;
  if (e) unlink(tmp);
  free(tmp);
  return e;
}

void af_abort(char *tmp) {
  if (!tmp) return;
  unlink(tmp);
  free(tmp);
}

int af_write(const char *path, const void *data, size_t n) {
  char *tmp = af_temp_for(path);
  if (!tmp) return errno;
  int fd = open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC);
  int e = fd < 0 ? errno : 0;
  const char *p = data;
  while (!e && n) {
    ssize_t k = write(fd, p, n);
    if (k < 0) {
      if (errno != EINTR) e = errno;
      continue;
    }
    p += k;
    n -= (size_t)k;
  }
  if (!e && fsync(fd) != 0 && errno != EINVAL) e = errno;   /* the data is on disk before the name moves */
  if (fd >= 0 && close(fd) != 0 && !e) e = errno;
  if (e) {
    af_abort(tmp);
    return e;
  }
  return af_commit(tmp, path);
}
