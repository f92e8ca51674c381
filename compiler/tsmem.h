/* tsmem.h — tree-sitter's memory during one big parse: bumped from a huge-page mapping, given back at once. */
#ifndef TFS_TSMEM_H
#define TFS_TSMEM_H

#include <stdbool.h>
#include <stddef.h>

typedef struct TsMem {
  char *base, *cur, *end;   /* base == NULL: no region (malloc) */
  struct TsMem *prev;       /* the region this one interrupts, on this thread */
  bool sealed;              /* no more bumping: see tsmem_seal */
} TsMem;

/* From begin to end, the calling thread's tree-sitter allocations come from
 * the region; everything allocated in it must be freed on that thread
 * (ts_tree_delete, ts_parser_delete, cursors) before end, which unmaps it.  A 100,000-line
 * function's parse tree is 1.2 million 100-byte nodes: malloc's 4 KiB page
 * faults on them were a quarter of the parse. */
void tsmem_begin(TsMem *m, size_t source_len);   /* a region for sources from HM_BIG_SOURCE on */
void tsmem_end(TsMem *m);
/* The parse is done: from now on allocations go to malloc (a tree walk's
 * cursors are made and freed by the thousand, and a freed region block is
 * never reused); frees of region blocks still do nothing until tsmem_end. */
void tsmem_seal(TsMem *m);
/* The allocator tsmem_begin installs with ts_set_allocator: the region's
 * bytes on this thread while one is open (free of them does nothing), else
 * (or once the region is full) malloc's. */
void *tsmem_malloc(size_t n);
void *tsmem_calloc(size_t k, size_t n);
void *tsmem_realloc(void *p, size_t n);
void tsmem_free(void *p);
/* Bytes of the region handed out (tests). */
size_t tsmem_used(const TsMem *m);

#endif
