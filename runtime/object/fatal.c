/* fatal.c — a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) still shows the program's buffered output and the .tfs line it was running, as Python's faulthandler does. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "object/object.h"

/* Only async-signal-safe calls below: write(2), no stdio, no allocation. */
static void fatal_put(const char *s) {
  size_t n = strlen(s);
  while (n) {
    ssize_t k = write(2, s, n);
    if (k <= 0) return;
    s += k;
    n -= (size_t)k;
  }
}

static void fatal_put_int(long v) {
  char b[24], *p = b + sizeof b - 1;
  *p = 0;
  bool neg = v < 0;
  unsigned long u = neg ? 0UL - (unsigned long)v : (unsigned long)v;
  do *--p = (char)('0' + u % 10); while ((u /= 10) && p > b + 1);
  if (neg) *--p = '-';
  fatal_put(p);
}

static void fatal_handler(int sig) {
  rt_flush_at_crash();
  const char *what = sig == SIGSEGV ? "Segmentation fault" : sig == SIGBUS ? "Bus error"
                   : sig == SIGFPE ? "Floating-point exception" : "Illegal instruction";
  fatal_put("Fatal error: ");
  fatal_put(what);
  /* the last located step: another thread's kernel may be the one that failed */
  const RtLoc *l = rt_loc_get(rt_cur_loc);
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  if (f && f->path) {
    fatal_put(" (last at ");
    fatal_put(f->path);
    fatal_put(":");
    fatal_put_int(l->line);
    fatal_put(":");
    fatal_put_int(l->col);
    fatal_put(")");
  }
  fatal_put("\n");
  signal(sig, SIG_DFL);   /* the same signal again ends the process as it would have (status, core) */
  raise(sig);
}

void rt_fatal_install(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return;   /* the sanitizers' own reports say more */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
  return;
#endif
#endif
  /* an overflowed stack has no room for the handler: it runs on one of its own */
  static char alt[64 * 1024];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fatal_handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
}
