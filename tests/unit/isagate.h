/* isagate.h — kernel test executables run once per ISA path (TFS_ISA): skip a path this CPU lacks, as meson expects. */
#ifndef TFS_ISAGATE_H
#define TFS_ISAGATE_H

#include <stdio.h>

#include "kernels/isa.h"

/* -1 to go on; otherwise the exit status: 77 (meson's skip) for a path the CPU lacks, 1 for a bad name. */
static inline int isa_gate(void) {
  Isa isa;
  char msg[200];
  int r = isa_from_env(&isa, msg, sizeof msg);
  if (r > 0) { printf("SKIP: %s\n", msg); return 77; }
  if (r < 0) { fprintf(stderr, "%s\n", msg); return 1; }
  printf("kernel ISA path: %s\n", isa_name(isa));
  return -1;
}

#endif
