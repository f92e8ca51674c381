/* rtmain.c — process entry for compiled programs (JIT or standalone): argv, run, tear down, flush. */
#include "object.h"

void rt_set_argv(int argc, char **argv);

int rt_main(int argc, char **argv, void (*entry)(void), void (*leave)(void)) {
  rt_set_argv(argc, argv);
  entry();
  leave();
  rt_flush();
  return 0;
}
