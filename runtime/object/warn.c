/* warn.c — Python's warnings as its default filter shows them: "path:line: Category: message" and the stripped source line, at the user's line, once per location. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"

/* The (location, category, message) triples already shown: Python's __warningregistry__ for the "default" action. */
static char **warn_seen;
static size_t warn_nseen, warn_cap;

static bool warn_once(const char *key) {
  for (size_t i = 0; i < warn_nseen; i++)
    if (!strcmp(warn_seen[i], key)) return false;
  if (warn_nseen == warn_cap) {
    size_t cap = warn_cap ? 2 * warn_cap : 16;
    char **p = realloc(warn_seen, cap * sizeof *p);
    if (!p) return true;   /* shown again rather than lost */
    warn_seen = p;
    warn_cap = cap;
  }
  char *k = strdup(key);
  if (k) warn_seen[warn_nseen++] = k;
  return true;
}

void rt_warn(const char *category, const char *msg) {
  const RtLoc *l = rt_loc_get(rt_user_loc());
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  const char *path = f && f->path ? f->path : "<unknown>";
  int line = l ? l->line : 0;
  StrBuf b;
  sb_init(&b);
  sb_printf(&b, "%s:%d: %s: %s\n", path, line, category, msg);
  if (!warn_once(b.data)) {
    sb_free(&b);
    return;
  }
  const char *p = f ? f->source : NULL;
  for (int i = 1; p && i < line; i++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  if (p && *p) {   /* linecache's line, stripped as warnings.formatwarning does */
    while (*p == ' ' || *p == '\t') p++;
    size_t n = strcspn(p, "\n");
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r')) n--;
    if (n) {
      sb_puts(&b, "  ");
      sb_putn(&b, p, n);
      sb_putc(&b, '\n');
    }
  }
  rt_flush();
  fputs(b.data, stderr);
  fflush(stderr);
  sb_free(&b);
}
