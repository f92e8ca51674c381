/* parsecache.c — a per-process cache of parsed library modules for callers that load many programs (the fuzz harnesses). */
#include "parsecache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One entry: the module's path and text, and its AST as loaded (parsed,
 * nesting checked, `import tensorflow as tf` dropped), all in the cache's
 * own arena.  The entry is never handed out: a load gets a deep copy in its
 * program's arena, so the passes that write into the tree (the import and
 * scope `id`s, cgen) never see another program's writes. */
typedef struct Entry {
  const char *path, *src;
  size_t len;
  const Ast *ast;
} Entry;

static bool on;
static Arena arena;
static Entry *entries;
static int nentries, centries;

void parsecache_enable(void) {
  if (!on) arena_init(&arena);
  on = true;
}

/* Every pointer of the tree is copied into `a` (strings and COMPARE's
 * operators too), so the copy outlives the arena of the original. */
static Ast *deep_clone(Arena *a, const Ast *n);

static const char *copy_str(Arena *a, const char *s, size_t slen) {
  if (!s) return NULL;
  size_t n = strlen(s);
  if (slen > n) n = slen;   /* a C_STR may hold NULs: slen counts them */
  char *c = arena_alloc(a, n + 1);
  memcpy(c, s, n);
  return c;
}

static void clone_list(Arena *a, AstList *l) {
  if (!l->n) {
    *l = (AstList){0};
    return;
  }
  Ast **items = arena_alloc(a, sizeof *items * (size_t)l->n);
  for (int i = 0; i < l->n; i++) items[i] = l->items[i] ? deep_clone(a, l->items[i]) : NULL;
  l->items = items;
  l->cap = l->n;
}

static Ast *deep_clone(Arena *a, const Ast *n) {
  Ast *c = ast_clone(a, n);
  for (int f = 0; f < AF__COUNT; f++) {
    if (!ast_has(c, (AstField)f)) continue;
    if ((AF_PTR_MASK >> f) & 1) {
      Ast **p = ast_ptr_field(c, f);
      if (*p) *p = deep_clone(a, *p);
    } else if ((AF_LIST_MASK >> f) & 1) {
      clone_list(a, ast_list_field(c, f));
    }
  }
  if (ast_has(c, AF_name)) c->name = copy_str(a, c->name, 0);
  if (ast_has(c, AF_asname)) c->asname = copy_str(a, c->asname, 0);
  if (ast_has(c, AF_str)) c->str = copy_str(a, c->str, ast_has(c, AF_slen) ? c->slen : 0);
  if (ast_has(c, AF_ops) && c->ops) {
    int k = ast_has(c, AF_comparators) ? c->comparators.n : 0;
    int *ops = arena_alloc(a, sizeof *ops * (size_t)(k ? k : 1));
    memcpy(ops, c->ops, sizeof *ops * (size_t)k);
    c->ops = ops;
  }
  return c;
}

static const Entry *find(const char *path, const char *src, size_t len) {
  for (int i = 0; i < nentries; i++)
    if (entries[i].len == len && !strcmp(entries[i].path, path) && !memcmp(entries[i].src, src, len)) return &entries[i];
  return NULL;
}

Ast *parsecache_get(Arena *a, const char *path, const char *src, size_t len) {
  if (!on) return NULL;
  const Entry *e = find(path, src, len);
  return e ? deep_clone(a, e->ast) : NULL;
}

void parsecache_put(const char *path, const char *src, size_t len, const Ast *ast) {
  if (!on || find(path, src, len)) return;
  if (nentries == centries) {
    int cap = centries ? centries * 2 : 16;
    Entry *n = realloc(entries, sizeof *n * (size_t)cap);
    if (!n) return;   /* no room: the module is parsed again next time */
    entries = n;
    centries = cap;
  }
  entries[nentries++] = (Entry){arena_strdup(&arena, path), copy_str(&arena, src, len), len, deep_clone(&arena, ast)};
}
