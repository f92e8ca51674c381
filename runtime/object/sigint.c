/* sigint.c — Ctrl-C: the handler only sets a flag; the interpreter raises KeyboardInterrupt at its next safe point. */
#include <signal.h>
#include <string.h>

#include "object/object.h"
#include "object/value.h"

volatile sig_atomic_t rt_sigint_pending;

static void sigint_handler(int sig) {
  (void)sig;
  rt_sigint_pending = 1;
}

void rt_sigint_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = sigint_handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, NULL);
}

/* Safe points (rt_next, rt_truthy, calls) call this when the flag is up: an
 * ordinary error, so held temporaries are released; uncaught, it exits 130. */
void rt_sigint_raise(void) {
  rt_sigint_pending = 0;
  rt_throw(ERR_KEYBOARD_INTERRUPT, "%s", "");
}
