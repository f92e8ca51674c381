/* rtmain.c — process entry for compiled programs (JIT or standalone): argv, run, tear down, flush; the prompt's echo. */
#include <signal.h>
#include <sys/resource.h>

#include "isa.h"
#include "object.h"
#include "../stdlib/tffunction.h"

/* libtcc gives every block-local of a generated function its own stack slot
 * (it does not reuse closed blocks' space), so a function of 100,000
 * statements needs about 20 MB of frame: a soft stack limit under 64 MB is
 * raised to it (the hard limit permitting; Linux leaves at least 128 MB below
 * the stack for it to grow), before the recursion guard
 * (func.c rt_stack_low) reads it. */
static void rt_stack_raise(void) {
  struct rlimit rl;
  const rlim_t want = (rlim_t)64 << 20;
  if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want) return;
  rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
  setrlimit(RLIMIT_STACK, &rl);
}

void rt_start(int argc, char **argv) {
  rt_stack_raise();
  signal(SIGXFSZ, SIG_IGN);   /* as Python: a file size limit is an OSError (EFBIG), not a kill */
  rt_sigint_install();
  rt_set_argv(argc, argv);
  isa_init(); /* a bad TFS_ISA stops the program before it starts */
  tffn_init(); /* also pulls tf.function into archive-linked executables */
}

int rt_main(int argc, char **argv, void (*entry)(void), void (*leave)(void)) {
  rt_start(argc, argv);
  entry();
  leave();
  rt_gc_shutdown();   /* what only reference cycles kept alive */
  rt_flush();
  return 0;
}

/* An expression statement typed at the interactive prompt: its repr on a
 * line of its own unless it is None, as Python's sys.displayhook does. */
void rt_repl_echo(Val v) {
  if (v.tag == VT_NONE) return;
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  val_repr(&b, v);
  sb_putc(&b, '\n');
  rt_write_stdout(b.data, b.len);
  rt_unhold(mark);
  sb_free(&b);
}
