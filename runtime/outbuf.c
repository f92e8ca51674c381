/* outbuf.c — the program's stdout buffer: flushed when full, at exit, and before anything goes to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "object.h"

enum { OUT_CAP = 64 * 1024 };
static char out_buf[OUT_CAP];
static size_t out_len;
static int out_state;   /* 0: not set up; 1: file or pipe; 2: terminal (flush per line) */

void rt_flush(void) {
  if (out_len) fwrite(out_buf, 1, out_len, stdout);
  out_len = 0;
  fflush(stdout);
}

void rt_write_stdout(const char *s, size_t n) {
  if (!out_state) {
    atexit(rt_flush);
    out_state = isatty(1) ? 2 : 1;
  }
  if (out_len + n > OUT_CAP) {
    rt_flush();
    if (n > OUT_CAP) {
      fwrite(s, 1, n, stdout);
      fflush(stdout);
      return;
    }
  }
  memcpy(out_buf + out_len, s, n);
  out_len += n;
  if (out_state == 2 && memchr(s, '\n', n)) rt_flush();
}
