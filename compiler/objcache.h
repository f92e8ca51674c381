/* objcache.h — libtcc object files of generated C units kept on disk between runs, keyed by a hash of the text. */
#ifndef TFS_OBJCACHE_H
#define TFS_OBJCACHE_H

#include <stdbool.h>

/* An entry of $XDG_CACHE_HOME/tfs (or ~/.cache/tfs): <sha-256 hex>.o, the
 * object file followed by a trailer (magic, length, key, CRC-32 of the
 * object) that a reader checks before use.  `opts` is the tcc options the
 * text is compiled with; the key also covers the tfs executable's build id.
 * NULL (no cache) under TFS_NO_CACHE=1, for a unit under 32 KiB, without a build id, or when the
 * directory cannot be made; the path is malloc'd. */
char *objcache_entry(const char *text, const char *opts);

/* An open descriptor of the entry when it is present and whole (its trailer
 * checks out); a damaged entry is removed, so the caller's rebuild replaces
 * it.  -1 when there is none.  The entry's mtime is refreshed (pruning keeps
 * what is used). */
int objcache_open(const char *entry);

/* A temporary file beside the entry for the compiler to write its object
 * into (malloc'd name, NULL when the directory is not writable). */
char *objcache_temp(const char *entry);
/* Append the trailer to tmp's object and rename it into place (taking tmp):
 * an open descriptor of the entry, or -1 (tmp removed) on any failure.  Then
 * the cache is pruned to its size limit, oldest first. */
int objcache_commit(char *tmp, const char *entry);

/* Under TFS_CACHE_TRACE=1, one line on stderr per cache look-up:
 * "tfs-cache: <event> <what> <entry's file name>" (tests/objcache.py). */
void objcache_trace(const char *event, const char *what, const char *entry);

#endif
