/* tsmem.c — tree-sitter's memory during one big parse: bumped from a huge-page mapping, given back at once. */
#include "tsmem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "hugemem.h"

/* Regions are per thread: parses on other threads keep their own. */
static _Thread_local TsMem *current;

/* The parse tree of a clean source takes about 80 bytes per source byte;
 * past this many, allocations go to malloc (error recovery can take more). */
enum { TSMEM_BYTES_PER_SOURCE_BYTE = 128 };

/* Each block: an 8-byte size header, then the caller's bytes, 16-aligned
 * (cur stays at 8 mod 16). */
static void *bump(TsMem *m, size_t n) {
  if (m->sealed || n > (size_t)(m->end - m->cur)) return NULL;
  size_t step = (n + 8 + 15) & ~(size_t)15;
  if (step > (size_t)(m->end - m->cur)) return NULL;
  char *h = m->cur;
  m->cur += step;
  memcpy(h, &n, sizeof n);
  return h + 8;
}

static const TsMem *owner(const void *p) {
  for (const TsMem *m = current; m; m = m->prev)
    if ((const char *)p >= m->base && (const char *)p < m->end) return m;
  return NULL;
}

void *tsmem_malloc(size_t n) {
  void *p = current ? bump(current, n) : NULL;
  return p ? p : malloc(n);
}

void *tsmem_calloc(size_t k, size_t n) {
  /* a bumped block is fresh mapping memory: zero already */
  void *p = current && n && k <= SIZE_MAX / n ? bump(current, k * n) : NULL;
  return p ? p : calloc(k, n);
}

void *tsmem_realloc(void *p, size_t n) {
  if (!p) return tsmem_malloc(n);
  if (!owner(p)) return realloc(p, n);
  size_t old;
  memcpy(&old, (char *)p - 8, sizeof old);
  void *q = tsmem_malloc(n);
  if (q) memcpy(q, p, old < n ? old : n);
  return q;
}

void tsmem_free(void *p) {
  if (p && !owner(p)) free(p);
}

static pthread_once_t installed = PTHREAD_ONCE_INIT;
static void install(void) { ts_set_allocator(tsmem_malloc, tsmem_calloc, tsmem_realloc, tsmem_free); }

void tsmem_begin(TsMem *m, size_t source_len) {
  pthread_once(&installed, install);
  *m = (TsMem){0};
  if (source_len < HM_BIG_SOURCE || source_len > SIZE_MAX / TSMEM_BYTES_PER_SOURCE_BYTE) return;
  size_t size = hm_round(source_len * TSMEM_BYTES_PER_SOURCE_BYTE);
  if (!(m->base = hm_map(size))) return;   /* no address space: malloc it is */
  m->cur = m->base + 8;
  m->end = m->base + size;
  m->prev = current;
  current = m;
}

void tsmem_end(TsMem *m) {
  if (!m->base) return;
  current = m->prev;
  hm_unmap(m->base, (size_t)(m->end - m->base));
  *m = (TsMem){0};
}

void tsmem_seal(TsMem *m) { m->sealed = true; }

size_t tsmem_used(const TsMem *m) { return m->base ? (size_t)(m->cur - m->base) : 0; }
