/* nameidx.c — string -> int hash index in an arena (FNV-1a, linear probing). */
#include "nameidx.h"

#include <stdint.h>
#include <string.h>

static size_t hash_name(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return (size_t)(h ^ h >> 29);
}

unsigned long name_probes;

int nameidx_get(const NameIdx *x, const char *name) {
  if (!x->cap) return -1;
  size_t mask = (size_t)x->cap - 1;
  for (size_t i = hash_name(name) & mask;; i = (i + 1) & mask) {
    if (!x->keys[i]) return -1;
    name_probes++;
    if (strcmp(x->keys[i], name) == 0) return x->vals[i];
  }
}

static void insert(NameIdx *x, const char *name, int val) {
  size_t mask = (size_t)x->cap - 1, i = hash_name(name) & mask;
  while (x->keys[i] && strcmp(x->keys[i], name) != 0) i = (i + 1) & mask;
  if (!x->keys[i]) x->n++;
  x->keys[i] = name;
  x->vals[i] = val;
}

/* The arena keeps outgrown tables; doubling bounds them by the final size. */
void nameidx_put(NameIdx *x, Arena *a, const char *name, int val) {
  if ((x->n + 1) * 2 > x->cap) {
    NameIdx old = *x;
    x->cap = old.cap ? old.cap * 2 : 16;
    x->n = 0;
    x->keys = arena_alloc(a, sizeof *x->keys * (size_t)x->cap);
    x->vals = arena_alloc(a, sizeof *x->vals * (size_t)x->cap);
    for (int i = 0; i < old.cap; i++)
      if (old.keys[i]) insert(x, old.keys[i], old.vals[i]);
  }
  insert(x, name, val);
}
