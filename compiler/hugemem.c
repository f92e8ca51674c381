/* hugemem.c — big zeroed mappings on transparent huge pages, for the compiler's bulk memory. */
#define _GNU_SOURCE   /* memmem */
#include "hugemem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void *hm_map(size_t size) {
  size = hm_round(size);
  if (!size) return NULL;
  /* map one huge page more than asked, then cut the ends to align */
  char *raw = mmap(NULL, size + HM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  char *p = (char *)(uintptr_t)hm_round((uintptr_t)raw);
  if (p > raw) munmap(raw, (size_t)(p - raw));
  if (p + size < raw + size + HM_PAGE) munmap(p + size, (size_t)(raw + size + HM_PAGE - (p + size)));
#ifdef MADV_HUGEPAGE
  madvise(p, size, MADV_HUGEPAGE);   /* advice only: without THP these are ordinary pages */
#endif
  return p;
}

void hm_unmap(void *p, size_t size) {
  if (p) munmap(p, hm_round(size));
}

/* "[madvise]" or "[always]" selected: huge pages can be had on request. */
bool hm_thp_offered(void) {
  char buf[128] = "";
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return false;
  bool ok = fgets(buf, sizeof buf, f) && (strstr(buf, "[madvise]") || strstr(buf, "[always]"));
  fclose(f);
  return ok;
}

bool hm_malloc_reads_tunables(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return false;   /* the sanitizer's allocator replaces glibc's */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return false;
#else
  return true;
#endif
#else
  return true;
#endif
}

/* Does the (small) file name `word`? */
static bool file_names(const char *path, size_t size, const char *word) {
  FILE *f = word ? fopen(path, "rb") : NULL;
  char *buf = f ? malloc(size ? size : 1) : NULL;
  bool found = buf && fread(buf, 1, size, f) == size && memmem(buf, size, word, strlen(word)) != NULL;
  free(buf);
  if (f) fclose(f);
  return found;
}

void hm_huge_pages_for(const char *source_path, const char *big_word, char **argv) {
  struct stat st;
  if (!hm_malloc_reads_tunables() || getenv("GLIBC_TUNABLES") || stat(source_path, &st) != 0 || !S_ISREG(st.st_mode) ||
      ((size_t)st.st_size < HM_BIG_SOURCE && !file_names(source_path, (size_t)st.st_size, big_word)) ||
      !hm_thp_offered())
    return;
  /* the file itself, not /proc/self/exe: the process keeps its name (ps, killall) */
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || (size_t)n >= sizeof exe - 1) return;
  exe[n] = 0;
  if (setenv("GLIBC_TUNABLES", HM_TUNABLES, 1) != 0) return;
  execv(exe, argv);
  unsetenv("GLIBC_TUNABLES");   /* could not re-execute: go on with malloc's defaults */
}
