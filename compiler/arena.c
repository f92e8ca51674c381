/* arena.c — bump allocator: big blocks, pointer bump, one free for all. */
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ASan builds poison the unused tail of AST nodes (ast.c): bytes are
 * unpoisoned whenever the arena serves them again or frees their block. */
#ifdef ARENA_ASAN
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct ArenaBlock {
  ArenaBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

void arena_init(Arena *a) { a->head = NULL; }

void arena_free(Arena *a) {
  for (ArenaBlock *b = a->head, *n; b; b = n) {
    n = b->next;
    UNPOISON(b->data, b->cap);
    free(b);
  }
  a->head = NULL;
}

/* Blocks grow from 64 KiB to 1 MiB: small arenas (the activity analysis's
 * scratch, freed after every pass) stay cheap, big programs take few blocks. */
enum { ARENA_MIN_BLOCK = 1 << 16, ARENA_MAX_BLOCK = 1 << 20 };

static ArenaBlock *new_block(size_t cap) {
  ArenaBlock *b = malloc(sizeof *b + cap);
  if (!b) {
    fputs("tfs: out of memory\n", stderr);
    exit(1);
  }
  b->next = NULL;
  b->used = 0;
  b->cap = cap;
  return b;
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  ArenaBlock *b = a->head;
  if (b && n > ARENA_MIN_BLOCK / 4 && b->used + n > b->cap) {
    /* a big allocation (a source file) gets a block of its own behind the
     * current one, which keeps serving small allocations */
    ArenaBlock *big = new_block(n);
    big->next = b->next;
    b->next = big;
    big->used = n;
    memset(big->data, 0, n);
    return big->data;
  }
  if (!b || b->used + n > b->cap) {
    size_t cap = b && b->cap < ARENA_MAX_BLOCK ? b->cap * 2 : b ? ARENA_MAX_BLOCK : ARENA_MIN_BLOCK;
    b = new_block(n > cap ? n : cap);
    b->next = a->head;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += n;
  UNPOISON(p, n);
  memset(p, 0, n);
  return p;
}

ArenaMark arena_mark(const Arena *a) { return (ArenaMark){a->head, a->head ? a->head->used : 0}; }

void arena_release(Arena *a, ArenaMark m) {
  while (a->head != m.block) {
    ArenaBlock *b = a->head;
    a->head = b->next;
    UNPOISON(b->data, b->cap);
    free(b);
  }
  if (a->head) {
    UNPOISON(a->head->data + m.used, a->head->used - m.used);
    a->head->used = m.used;
  }
}

size_t arena_bytes(const Arena *a) {
  size_t n = 0;
  for (const ArenaBlock *b = a->head; b; b = b->next) n += b->used;
  return n;
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
