/* nameidx.h — string -> int hash index in an arena, so name lookups stay O(1) as programs grow. */
#ifndef TFS_NAMEIDX_H
#define TFS_NAMEIDX_H

#include "arena.h"

typedef struct NameIdx {
  const char **keys;   /* open addressing, power-of-two capacity; NULL = empty */
  int *vals;
  int n, cap;
} NameIdx;

/* Name comparisons made by lookups (here and in scope.c): the scaling test
 * checks they grow linearly with the program, not with its square. */
extern unsigned long name_probes;

int nameidx_get(const NameIdx *x, const char *name);               /* -1 when absent */
void nameidx_put(NameIdx *x, Arena *a, const char *name, int val);  /* name must outlive the index */

#endif
