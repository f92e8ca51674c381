/* outbuf.c — the program's stdout buffer: flushed when full, at exit, and before anything goes to stderr; every write checked. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "object/object.h"

enum { OUT_CAP = 64 * 1024 };
static char out_buf[OUT_CAP];
static size_t out_len;
static int out_state;   /* 0: not set up; 1: file or pipe; 2: terminal (flush per line) */
static int out_failed;  /* errno of the first failed write; later output is dropped */

/* All of s to fd 1 (write(2) directly: stdio would hide a short write): 0 or errno. */
static int out_write_all(const char *s, size_t n) {
  while (n) {
    ssize_t k = write(1, s, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    s += k;
    n -= (size_t)k;
  }
  return 0;
}

/* A failed write ends the program: a closed pipe quietly, as cat and grep end
 * (by SIGPIPE); anything else as Python's OSError, at the failing print when
 * there is one (may_throw), else unlocated (at exit), with status 1. */
static void out_fail(int err, bool may_throw) {
  out_len = 0;
  out_failed = err;
  if (err == EPIPE) {
    signal(SIGPIPE, SIG_DFL);
    raise(SIGPIPE);
    _exit(128 + SIGPIPE);
  }
  if (may_throw) rt_throw(ERR_IO, "[Errno %d] %s", err, strerror(err));
  fprintf(stderr, "error: OSError: [Errno %d] %s\n", err, strerror(err));
  _exit(1);
}

static void out_flush(bool may_throw) {
  if (out_failed) {
    out_len = 0;
    return;
  }
  size_t n = out_len;
  out_len = 0;
  int err = n ? out_write_all(out_buf, n) : 0;
  if (err) out_fail(err, may_throw);
}

void rt_flush(void) { out_flush(false); }

/* From a signal handler: write(2) only, and whatever the write gives (the process is ending). */
void rt_flush_at_crash(void) {
  if (out_failed || !out_len) return;
  size_t n = out_len;
  out_len = 0;
  (void)out_write_all(out_buf, n);
}

void rt_write_stdout(const char *s, size_t n) {
  if (!out_state) {
    atexit(rt_flush);
    out_state = isatty(1) ? 2 : 1;
  }
  if (out_failed) return;
  if (out_len + n > OUT_CAP) {
    out_flush(true);
    if (n > OUT_CAP) {
      int err = out_write_all(s, n);
      if (err) out_fail(err, true);
      return;
    }
  }
  memcpy(out_buf + out_len, s, n);
  out_len += n;
  if (out_state == 2 && memchr(s, '\n', n)) out_flush(true);
}
