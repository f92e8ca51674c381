/* objcache.h — libtcc object files of generated C units kept on disk between runs, keyed by a hash of the text. */
#ifndef TFS_OBJCACHE_H
#define TFS_OBJCACHE_H

#include <stdbool.h>
#include <stddef.h>

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

/* A library module's unit by its source (tfs run skips parsing a module
 * whose unit is cached): <key>.u, keyed by the build id, the module's name,
 * path and text, names the unit's object entry and records how the module's
 * imports resolved (path NULL: native) and the paths of the modules its
 * IM_[] names, in order.  Fields are NUL-separated; a damaged record is
 * removed and rewritten. */
typedef struct ObjcacheUnit {
  int fd;                     /* the object entry, open (objcache_open) */
  char *entry;
  const char **import_names, **import_paths;
  int nimports;
  const char **unit_paths;
  int nunit;
  char *buf;                  /* what the strings point into */
} ObjcacheUnit;
bool objcache_unit_find(const char *name, const char *path, const char *src, size_t len, ObjcacheUnit *u);
void objcache_unit_release(ObjcacheUnit *u);
/* The record's path for the module (malloc'd; NULL: no cache, or a module too small to be worth it). */
char *objcache_unit_path(const char *name, const char *path, const char *src, size_t len);
/* What the record says besides its object (malloc'd, *n bytes). */
char *objcache_unit_body(const char *const *import_names, const char *const *import_paths, int nimports,
                         const char *const *unit_paths, int nunit, size_t *n);
/* Write the record `rec` (atomically) naming the object entry `entry`. */
void objcache_unit_write(const char *rec, const char *entry, const char *body, size_t n);

#endif
