/* diag.h — compile-time diagnostics as data: collected, sorted, printed in the §11 format. */
#ifndef TFS_DIAG_H
#define TFS_DIAG_H

#include <stdio.h>

typedef struct Diag {
  const char *path;          /* file the location refers to */
  const char *source;        /* that file's text, for the caret line */
  int line, col;             /* 1-based */
  char *msg;                 /* malloc'd */
} Diag;

typedef struct DiagList { Diag *items; int n, cap; } DiagList;

void diag_init(DiagList *d);
void diag_free(DiagList *d);
void diag_add(DiagList *d, const char *path, const char *source, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Print every diagnostic (sorted by position, duplicates dropped) to `out`. */
void diag_print(DiagList *d, FILE *out);

#endif
