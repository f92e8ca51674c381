/* objcache.c — libtcc object files of generated C units kept on disk between runs, keyed by a hash of the text. */
#define _GNU_SOURCE
#include "objcache.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/sha.h>
#include <zlib.h>

#include "object/atomicfile.h"

/* Bump when the entry layout or what goes into the key changes. */
#define OC_MAGIC "TFSOBJ1"
enum { OC_HASH = 32, OC_TRAILER = 8 + 8 + OC_HASH + 8 };
/* What the cache may hold before the oldest entries go (TFS_CACHE_MAX_MB overrides). */
enum { OC_MAX_MB = 1024 };
/* A smaller unit (print(1): the ABI prelude and a few lines) compiles in less
 * than hashing it costs (libcrypto's set-up is ~5M instructions): no entry. */
enum { OC_MIN_TEXT = 32 * 1024 };

/* ---- the tfs executable's build id ------------------------------------------ */

/* The GNU build-id note of the object holding this code: any rebuild of tfs
 * (libtcc included, which it links statically) changes it. */
static unsigned char build_id[64];
static size_t build_id_len;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *self) {
  (void)size;
  bool mine = false;
  for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    mine = ph->p_type == PT_LOAD && (uintptr_t)self >= lo && (uintptr_t)self < lo + ph->p_memsz;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
      const char *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) && nh->n_descsz <= sizeof build_id &&
          desc + nh->n_descsz <= end) {
        memcpy(build_id, desc, nh->n_descsz);
        build_id_len = nh->n_descsz;
        return 1;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

/* ---- hashing and the directory ---------------------------------------------- */

/* SHA-256 of a, b and c in a row.  (The one-shot SHA256: EVP's provider set-up alone costs
 * more than hashing a small unit.) */
static bool sha256(const void *a, size_t na, const void *b, size_t nb, const void *c, size_t nc, unsigned char out[OC_HASH]) {
  if (!nb && !nc) return SHA256(a, na, out) != NULL;
  unsigned char *buf = malloc(na + nb + nc + 1);
  if (!buf) return false;
  memcpy(buf, a, na);
  memcpy(buf + na, b, nb);
  memcpy(buf + na + nb, c, nc);
  bool ok = SHA256(buf, na + nb + nc, out) != NULL;
  free(buf);
  return ok;
}

/* mkdir -p, the last component private to the user. */
static bool make_dirs(char *path) {
  for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
    *s = 0;
    bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
    *s = '/';
    if (!ok) return false;
  }
  struct stat st;
  return (mkdir(path, 0700) == 0 || errno == EEXIST) && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* $XDG_CACHE_HOME/tfs, or ~/.cache/tfs (the XDG rule: a relative XDG_CACHE_HOME is ignored). */
static char *cache_dir(void) {
  const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char *d = NULL;
  if (x && x[0] == '/') {
    if (asprintf(&d, "%s/tfs", x) < 0) d = NULL;
  } else if (home && home[0] == '/') {
    if (asprintf(&d, "%s/.cache/tfs", home) < 0) d = NULL;
  }
  if (d && !make_dirs(d)) {
    free(d);
    d = NULL;
  }
  return d;
}

static void hex(const unsigned char *h, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", h[i]);
}

/* The entry for text of at least `min` bytes. */
static char *entry_for(const char *text, const char *opts, size_t min) {
  const char *off = getenv("TFS_NO_CACHE");
  if ((off && *off && strcmp(off, "0") != 0) || strlen(text) < min) return NULL;
  if (!build_id_len) dl_iterate_phdr(find_build_id, (void *)entry_for);
  unsigned char key[OC_HASH];
  if (!build_id_len || !sha256(build_id, build_id_len, opts, strlen(opts) + 1, text, strlen(text), key)) return NULL;
  char *dir = cache_dir(), *path = NULL;
  if (!dir) return NULL;
  char h[2 * OC_HASH + 1];
  hex(key, OC_HASH, h);
  if (asprintf(&path, "%s/%s.o", dir, h) < 0) path = NULL;
  free(dir);
  return path;
}

char *objcache_entry(const char *text, const char *opts) { return entry_for(text, opts, OC_MIN_TEXT); }

/* ---- entries ------------------------------------------------------------------ */

/* The entry's key as its name spells it. */
static bool key_of(const char *entry, unsigned char key[OC_HASH]) {
  const char *b = strrchr(entry, '/');
  b = b ? b + 1 : entry;
  if (strlen(b) != 2 * OC_HASH + 2) return false;
  for (int i = 0; i < OC_HASH; i++)
    if (sscanf(b + 2 * i, "%2hhx", &key[i]) != 1) return false;
  return true;
}

static bool read_all(int fd, void *buf, size_t n, off_t at) {
  char *p = buf;
  while (n) {
    ssize_t k = pread(fd, p, n, at);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) continue;
      return false;
    }
    p += k;
    at += k;
    n -= (size_t)k;
  }
  return true;
}

/* The object's checksum: CRC-32 finds what damages a private cache (a torn
 * write, a truncation, a stray byte) at a fraction of SHA-256's cost on the
 * megabytes of an object; the key, which must not collide, is SHA-256. */
static uint64_t checksum(const unsigned char *obj, size_t n) { return crc32_z(crc32_z(0, NULL, 0), obj, n); }

/* Whether fd holds an object followed by the trailer naming `key` and the object's checksum. */
static bool entry_whole(int fd, const unsigned char key[OC_HASH]) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= OC_TRAILER) return false;
  size_t n = (size_t)st.st_size - OC_TRAILER;
  unsigned char tr[OC_TRAILER];
  uint64_t len, sum;
  if (!read_all(fd, tr, sizeof tr, (off_t)n)) return false;
  memcpy(&len, tr + 8, 8);
  memcpy(&sum, tr + 16 + OC_HASH, 8);
  if (memcmp(tr, OC_MAGIC, 8) != 0 || len != n || memcmp(tr + 16, key, OC_HASH) != 0) return false;
  /* Mapped, not read into a fresh buffer: the pages come straight from the
   * page cache (a Keras program's objects are tens of megabytes per run). */
  void *obj = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  if (obj == MAP_FAILED) return false;
  bool ok = checksum(obj, n) == sum;
  munmap(obj, n);
  return ok;
}

int objcache_open(const char *entry) {
  unsigned char key[OC_HASH];
  if (!key_of(entry, key)) return -1;
  int fd = open(entry, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (!entry_whole(fd, key)) {
    close(fd);
    unlink(entry);   /* damaged (a crash, a full disk, a stray write): rebuilt by the caller */
    return -1;
  }
  futimens(fd, NULL);   /* fails harmlessly on a read-only cache */
  return fd;
}

char *objcache_temp(const char *entry) { return af_temp_for(entry); }

void objcache_trace(const char *event, const char *what, const char *entry) {
  const char *t = getenv("TFS_CACHE_TRACE");
  if (!t || !*t || !strcmp(t, "0")) return;
  const char *b = strrchr(entry, '/');
  fprintf(stderr, "tfs-cache: %s %s %s\n", event, what, b ? b + 1 : entry);
}

/* ---- pruning ------------------------------------------------------------------- */

typedef struct { char *name; time_t mtime; off_t size; } Ent;

static int by_age(const void *a, const void *b) {
  const Ent *x = a, *y = b;
  return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* Entries beyond the size limit go, least recently used first, never the
 * one just written; temporaries over an hour old are a dead writer's and go too. */
static void prune(const char *entry) {
  const char *slash = strrchr(entry, '/');
  if (!slash) return;
  char *dir = strndup(entry, (size_t)(slash - entry));
  DIR *d = dir ? opendir(dir) : NULL;
  if (!d) {
    free(dir);
    return;
  }
  const char *mx = getenv("TFS_CACHE_MAX_MB");
  long long limit = (mx && *mx ? atoll(mx) : OC_MAX_MB) * 1024 * 1024, total = 0;
  Ent *es = NULL;
  size_t n = 0, cap = 0;
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d));) {
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (strstr(e->d_name, ".o.tmp-") || strstr(e->d_name, ".u.tmp-")) {
      if (now - st.st_mtime > 3600) unlinkat(dirfd(d), e->d_name, 0);
      continue;
    }
    if (strlen(e->d_name) != 2 * OC_HASH + 2 || (strcmp(e->d_name + 2 * OC_HASH, ".o") != 0 && strcmp(e->d_name + 2 * OC_HASH, ".u") != 0) ||
        !strcmp(e->d_name, slash + 1))
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      Ent *ne = realloc(es, cap * sizeof *es);
      if (!ne) break;
      es = ne;
    }
    es[n++] = (Ent){strdup(e->d_name), st.st_mtime, st.st_size};
    total += st.st_size;
  }
  if (total > limit) {
    qsort(es, n, sizeof *es, by_age);
    for (size_t i = 0; i < n && total > limit; i++)
      if (es[i].name && unlinkat(dirfd(d), es[i].name, 0) == 0) total -= es[i].size;
  }
  for (size_t i = 0; i < n; i++) free(es[i].name);
  free(es);
  closedir(d);
  free(dir);
}

int objcache_commit(char *tmp, const char *entry) {
  unsigned char tr[OC_TRAILER];
  int fd = open(tmp, O_RDWR | O_CLOEXEC);
  struct stat st;
  bool ok = fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 && key_of(entry, tr + 16);
  unsigned char *obj = ok ? malloc((size_t)st.st_size) : NULL;
  ok = obj && read_all(fd, obj, (size_t)st.st_size, 0);
  if (ok) {
    uint64_t len = (uint64_t)st.st_size, sum = checksum(obj, (size_t)st.st_size);
    memcpy(tr, OC_MAGIC, 8);
    memcpy(tr + 8, &len, 8);
    memcpy(tr + 16 + OC_HASH, &sum, 8);
    ok = pwrite(fd, tr, sizeof tr, st.st_size) == (ssize_t)sizeof tr;
  }
  free(obj);
  if (!ok || af_commit(tmp, entry) != 0) {   /* af_commit frees tmp */
    if (!ok) af_abort(tmp);
    if (fd >= 0) close(fd);
    return -1;
  }
  prune(entry);
  return fd;   /* still the file just written, whatever replaces the name meanwhile */
}

/* ---- a library module's unit by its source ------------------------------------ */

#define OC_UNIT_MAGIC "TFSUNIT1"

/* <key>.u for the module (malloc'd; NULL: no cache, or a module too small to be worth it). */
char *objcache_unit_path(const char *name, const char *path, const char *src, size_t len) {
  char *text = NULL;
  if (asprintf(&text, "unit\n%s\n%s\n%.*s", name, path, (int)len, src) < 0) return NULL;
  char *e = entry_for(text, "unit", 0);   /* a record saves parsing the module, whatever its size */
  free(text);
  if (e) e[strlen(e) - 1] = 'u';
  return e;
}

/* The next NUL-terminated field of [*p, end), or NULL. */
static const char *field(char **p, const char *end) {
  char *s = *p, *z = s < end ? memchr(s, 0, (size_t)(end - s)) : NULL;
  if (!z) return NULL;
  *p = z + 1;
  return s;
}

static bool parse_record(ObjcacheUnit *u, const char *dir, size_t n) {
  char *p = u->buf, *end = u->buf + n;
  const char *magic = field(&p, end), *obj = field(&p, end), *ni = field(&p, end);
  if (!magic || strcmp(magic, OC_UNIT_MAGIC) || !obj || strlen(obj) != 2 * OC_HASH + 2 || !ni) return false;
  u->nimports = atoi(ni);
  if (u->nimports < 0 || u->nimports > 100000) return false;
  u->import_names = calloc((size_t)u->nimports + 1, sizeof *u->import_names);
  u->import_paths = calloc((size_t)u->nimports + 1, sizeof *u->import_paths);
  if (!u->import_names || !u->import_paths) return false;
  for (int i = 0; i < u->nimports; i++) {
    const char *nm = field(&p, end), *pa = field(&p, end);
    if (!nm || !pa || (pa[0] != 'F' && pa[0] != 'N')) return false;
    u->import_names[i] = nm;
    u->import_paths[i] = pa[0] == 'F' ? pa + 1 : NULL;
  }
  const char *nu = field(&p, end);
  if (!nu) return false;
  u->nunit = atoi(nu);
  if (u->nunit < 0 || u->nunit > u->nimports) return false;
  u->unit_paths = calloc((size_t)u->nunit + 1, sizeof *u->unit_paths);
  if (!u->unit_paths) return false;
  for (int i = 0; i < u->nunit; i++)
    if (!(u->unit_paths[i] = field(&p, end))) return false;
  if (p != end || asprintf(&u->entry, "%s/%s", dir, obj) < 0) return false;
  return true;
}

void objcache_unit_release(ObjcacheUnit *u) {
  if (u->fd >= 0) close(u->fd);
  free(u->entry);
  free(u->import_names);
  free(u->import_paths);
  free(u->unit_paths);
  free(u->buf);
  memset(u, 0, sizeof *u);
  u->fd = -1;
}

bool objcache_unit_find(const char *name, const char *path, const char *src, size_t len, ObjcacheUnit *u) {
  memset(u, 0, sizeof *u);
  u->fd = -1;
  char *rec = objcache_unit_path(name, path, src, len);
  if (!rec) return false;
  int fd = open(rec, O_RDONLY | O_CLOEXEC);
  struct stat st;
  bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (1 << 24) &&
            (u->buf = malloc((size_t)st.st_size + 1)) && read_all(fd, u->buf, (size_t)st.st_size, 0);
  if (fd >= 0) close(fd);
  if (ok) {
    u->buf[st.st_size] = 1;   /* a last field without its NUL runs into this, not past the end */
    *strrchr(rec, '/') = 0;
    ok = parse_record(u, rec, (size_t)st.st_size);
    rec[strlen(rec)] = '/';
    if (!ok) unlink(rec);   /* damaged: rewritten by this run */
  }
  if (ok) ok = (u->fd = objcache_open(u->entry)) >= 0;
  objcache_trace(ok ? "source-hit" : "source-miss", name, rec);
  free(rec);
  if (!ok) objcache_unit_release(u);
  return ok;
}

char *objcache_unit_body(const char *const *import_names, const char *const *import_paths, int nimports,
                         const char *const *unit_paths, int nunit, size_t *n) {
  char *data = NULL;
  *n = 0;
  FILE *f = open_memstream(&data, n);
  if (!f) return NULL;
  fprintf(f, "%d%c", nimports, 0);
  for (int i = 0; i < nimports; i++)
    fprintf(f, "%s%c%s%s%c", import_names[i], 0, import_paths[i] ? "F" : "N", import_paths[i] ? import_paths[i] : "", 0);
  fprintf(f, "%d%c", nunit, 0);
  for (int i = 0; i < nunit; i++) fprintf(f, "%s%c", unit_paths[i], 0);
  if (fclose(f) != 0) {
    free(data);
    return NULL;
  }
  return data;
}

void objcache_unit_write(const char *rec, const char *entry, const char *body, size_t n) {
  const char *b = strrchr(entry, '/');
  b = b ? b + 1 : entry;
  size_t head = sizeof OC_UNIT_MAGIC + strlen(b) + 1;
  char *data = malloc(head + n);
  if (!data) return;
  memcpy(data, OC_UNIT_MAGIC, sizeof OC_UNIT_MAGIC);
  memcpy(data + sizeof OC_UNIT_MAGIC, b, strlen(b) + 1);
  memcpy(data + head, body, n);
  /* written beside and renamed into place, not synced (a cache: a record
   * torn by a crash fails its checks and is rewritten); a failure leaves no
   * record, and the module is parsed next time */
  char *tmp = af_temp_for(rec);
  int fd = tmp ? open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC) : -1;
  bool ok = fd >= 0 && write(fd, data, head + n) == (ssize_t)(head + n);
  if (fd >= 0 && close(fd) != 0) ok = false;
  if (ok) af_commit(tmp, rec);
  else af_abort(tmp);
  free(data);
}
