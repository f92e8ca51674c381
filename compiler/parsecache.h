/* parsecache.h — a per-process cache of parsed library modules for callers that load many programs (the fuzz harnesses). */
#ifndef TFS_PARSECACHE_H
#define TFS_PARSECACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "ast.h"

/* Off until enabled: tfs and tfsc load one program per process. */
void parsecache_enable(void);
/* A deep copy, in `a`, of the tree cached for this path and exact text; NULL when none. */
Ast *parsecache_get(Arena *a, const char *path, const char *src, size_t len);
/* Cache the tree of a module that loaded cleanly (copied: `ast` stays the caller's). */
void parsecache_put(const char *path, const char *src, size_t len, const Ast *ast);

#endif
