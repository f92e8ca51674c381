/* repl.h — the interactive prompt of `tfs`. */
#ifndef TFS_REPL_H
#define TFS_REPL_H

/* Read statements from standard input (with libedit on a terminal), run
 * each as it is complete, echo expression values; returns the exit status. */
int repl_main(void);

#endif
