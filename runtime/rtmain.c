/* rtmain.c — process entry for compiled programs (JIT or standalone): argv, run, tear down, flush; the prompt's echo. */
#include <signal.h>

#include "isa.h"
#include "object.h"
#include "../stdlib/tffunction.h"

void rt_start(int argc, char **argv) {
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
