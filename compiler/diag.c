/* diag.c — collect compile-time diagnostics and print them through the runtime's §11 formatter. */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "object/value.h"

void diag_init(DiagList *d) { memset(d, 0, sizeof *d); }

void diag_free(DiagList *d) {
  for (int i = 0; i < d->n; i++) free(d->items[i].msg);
  free(d->items);
  memset(d, 0, sizeof *d);
}

void diag_add(DiagList *d, const char *path, const char *source, int line, int col, const char *fmt, ...) {
  if (d->n == d->cap) {
    d->cap = d->cap ? d->cap * 2 : 8;
    d->items = realloc(d->items, sizeof *d->items * (size_t)d->cap);
    if (!d->items) abort();
  }
  StrBuf b;
  sb_init(&b);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&b, fmt, ap);
  va_end(ap);
  d->items[d->n++] = (Diag){path, source, line, col, sb_steal(&b)};
}

static int diag_cmp(const void *x, const void *y) {
  const Diag *a = x, *b = y;
  int c = strcmp(a->path, b->path);
  if (c) return c;
  if (a->line != b->line) return a->line - b->line;
  return a->col - b->col;
}

void diag_print(DiagList *d, FILE *out) {
  if (d->n > 1) qsort(d->items, (size_t)d->n, sizeof *d->items, diag_cmp);   /* qsort(NULL, 0) is UB */
  StrBuf b;
  sb_init(&b);
  for (int i = 0; i < d->n; i++) {
    const Diag *g = &d->items[i];
    if (i > 0 && diag_cmp(g, g - 1) == 0 && strcmp(g->msg, g[-1].msg) == 0) continue;
    if (g->line <= 0)
      sb_printf(&b, "%s: error: %s\n", g->path, g->msg); /* no position: e.g. a file that cannot be read */
    else
      diag_format(&b, g->path, g->source, g->line, g->col, "error", g->msg);
  }
  if (b.len) fwrite(b.data, 1, b.len, out);   /* an empty buffer has no data pointer */
  sb_free(&b);
}
