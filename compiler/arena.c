/* arena.c — bump allocator: big blocks, pointer bump, one free for all. */
#include "arena.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hugemem.h"

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
  size_t fresh;   /* bytes from here on are zero (never handed out since mapped) */
  _Alignas(16) unsigned char data[];
};

void arena_init(Arena *a) { a->head = a->spare = NULL; }

/* Blocks of a huge page or more are mappings (their cap fills them), smaller ones malloc's. */
static bool mapped_size(size_t bytes) { return bytes >= HM_PAGE; }

static void free_block(ArenaBlock *b) {
  UNPOISON(b->data, b->cap);
  if (mapped_size(sizeof *b + b->cap)) hm_unmap(b, sizeof *b + b->cap);
  else free(b);
}

void arena_free(Arena *a) {
  for (ArenaBlock *b = a->head, *n; b; b = n) {
    n = b->next;
    free_block(b);
  }
  if (a->spare) free_block(a->spare);
  a->head = a->spare = NULL;
}

/* Blocks grow from 64 KiB to 8 MiB: small arenas (the activity analysis's
 * scratch, freed after every pass) stay cheap; big programs take few blocks,
 * and those of 2 MiB and more are mapped on huge pages (hugemem.h). */
enum { ARENA_MIN_BLOCK = 1 << 16, ARENA_MAX_BLOCK = 1 << 23 };

static ArenaBlock *new_block(Arena *a, size_t cap) {
  ArenaBlock *b = a->spare;
  if (b && b->cap >= cap) {
    a->spare = NULL;   /* its bytes up to `fresh` are dirty: take() clears them */
    b->next = NULL;
    b->used = 0;
    return b;
  }
  bool mapped = mapped_size(sizeof *b + cap);
  if (mapped) cap = hm_round(sizeof *b + cap) - sizeof *b;   /* use the whole mapping */
  b = mapped ? hm_map(sizeof *b + cap) : malloc(sizeof *b + cap);
  if (!b) {
    fputs("tfs: out of memory\n", stderr);
    exit(1);
  }
  b->next = NULL;
  b->used = 0;
  b->cap = cap;
  b->fresh = mapped ? 0 : cap;   /* a mapping is zero; malloc's bytes are all to be cleared */
  return b;
}

/* n bytes at the block's end, zeroed: only bytes handed out before (and
 * given back by arena_release) need clearing. */
static void *take(ArenaBlock *b, size_t n) {
  void *p = b->data + b->used;
  UNPOISON(p, n);
  if (b->used < b->fresh) memset(p, 0, (b->fresh < b->used + n ? b->fresh : b->used + n) - b->used);
  b->used += n;
  if (b->used > b->fresh) b->fresh = b->used;
  return p;
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  ArenaBlock *b = a->head;
  if (b && n > ARENA_MIN_BLOCK / 4 && b->used + n > b->cap) {
    /* a big allocation (a source file) gets a block of its own behind the
     * current one, which keeps serving small allocations */
    ArenaBlock *big = new_block(a, n);
    big->next = b->next;
    b->next = big;
    return take(big, n);
  }
  if (!b || b->used + n > b->cap) {
    size_t cap = b && b->cap < ARENA_MAX_BLOCK ? b->cap * 2 : b ? ARENA_MAX_BLOCK : ARENA_MIN_BLOCK;
    b = new_block(a, n > cap ? n : cap);
    b->next = a->head;
    a->head = b;
  }
  return take(b, n);
}

ArenaMark arena_mark(const Arena *a) { return (ArenaMark){a->head, a->head ? a->head->used : 0}; }

void arena_release(Arena *a, ArenaMark m) {
  while (a->head != m.block) {
    ArenaBlock *b = a->head;
    a->head = b->next;
    /* the biggest block given back stays as a spare: scratch use marks and
     * releases around every statement, and a block made and freed each time
     * cost a clear of all of it (a 2 MiB mapping each) */
    if (!a->spare || b->cap > a->spare->cap) {
      if (a->spare) free_block(a->spare);
      a->spare = b;
    } else {
      free_block(b);
    }
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
