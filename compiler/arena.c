/* arena.c — bump allocator: big blocks, pointer bump, one free for all. */
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaBlock {
  ArenaBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

void arena_init(Arena *a) { a->head = NULL; }

void arena_free(Arena *a) {
  for (ArenaBlock *b = a->head, *n; b; b = n) {
    n = b->next;
    free(b);
  }
  a->head = NULL;
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  ArenaBlock *b = a->head;
  if (!b || b->used + n > b->cap) {
    size_t cap = n > 65536 ? n : 65536;
    b = malloc(sizeof *b + cap);
    if (!b) {
      fputs("tfs: out of memory\n", stderr);
      exit(1);
    }
    b->next = a->head;
    b->used = 0;
    b->cap = cap;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += n;
  memset(p, 0, n);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}
