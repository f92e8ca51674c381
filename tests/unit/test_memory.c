/* test_memory.c — Check tests for the compiler's bulk memory: arena blocks, huge-page mappings, tree-sitter's parse region. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <tree_sitter/api.h>
#include <unistd.h>

#include "arena.h"
#include "hugemem.h"
#include "tsmem.h"

const TSLanguage *tree_sitter_tfs(void);

static bool all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return false;
  return true;
}

START_TEST(hugemem_map_aligned_zeroed) {
  unsigned char *p = hm_map(HM_PAGE + 1);   /* rounded up to two huge pages */
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq((uintptr_t)p % HM_PAGE, 0);
  ck_assert(all_zero(p, 2 * HM_PAGE));
  memset(p, 0xab, 2 * HM_PAGE);   /* all of it is ours to write */
  hm_unmap(p, HM_PAGE + 1);
  ck_assert_ptr_null(hm_map(0));
}
END_TEST

/* Memory the arena hands out is zeroed, also when arena_release gave it
 * back dirty and a later allocation reuses it, in small and mapped blocks. */
START_TEST(arena_zeroed_after_release) {
  Arena a;
  arena_init(&a);
  for (size_t size = 64; size <= ((size_t)1 << 20); size *= 16) {
    ArenaMark m = arena_mark(&a);
    size_t total = 0;
    while (total < 3 * HM_PAGE) {   /* past the 1 MiB blocks, into mapped ones */
      unsigned char *p = arena_alloc(&a, size);
      ck_assert(all_zero(p, size));
      memset(p, 0x5a, size);
      total += size;
    }
    arena_release(&a, m);
    for (size_t again = 0; again < total; again += size) {
      unsigned char *p = arena_alloc(&a, size);
      ck_assert_msg(all_zero(p, size), "reused bytes not cleared (size %zu)", size);
      memset(p, 0x5a, size);
    }
  }
  ck_assert_uint_ge(arena_bytes(&a), 3 * HM_PAGE);
  arena_free(&a);
}
END_TEST

/* Scratch use marks and releases around every statement: a block made past
 * the mark is kept as the spare and serves the next round (made once). */
START_TEST(arena_release_keeps_a_spare) {
  Arena a;
  arena_init(&a);
  arena_alloc(&a, 1000);
  ArenaMark m = arena_mark(&a);
  unsigned char *first = NULL;
  for (int round = 0; round < 100; round++) {
    arena_alloc(&a, 60000);   /* fills the 64 KiB head: the rest goes to a new block */
    unsigned char *p = arena_alloc(&a, 5000);
    if (!first) first = p;
    ck_assert_ptr_eq(p, first);
    ck_assert(all_zero(p, 5000));
    ck_assert_ptr_null(a.spare);   /* the spare is in use */
    memset(p, 1, 5000);
    arena_release(&a, m);
    ck_assert_ptr_nonnull(a.spare);   /* kept, not freed */
  }
  arena_free(&a);
}
END_TEST

START_TEST(tsmem_small_source_uses_malloc) {
  TsMem m;
  tsmem_begin(&m, HM_BIG_SOURCE - 1);
  void *p = tsmem_malloc(100);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(tsmem_used(&m), 0);
  tsmem_free(p);   /* malloc's block: really freed (ASan would report a leak) */
  tsmem_end(&m);
}
END_TEST

START_TEST(tsmem_region_semantics) {
  TsMem m;
  tsmem_begin(&m, HM_BIG_SOURCE);
  void *before = malloc(32);   /* a block from outside the region, freed inside it */
  size_t used0 = tsmem_used(&m);
  unsigned char *p = tsmem_malloc(88);
  ck_assert_uint_eq((uintptr_t)p % 16, 0);
  ck_assert_uint_gt(tsmem_used(&m), used0);
  memset(p, 7, 88);
  unsigned char *z = tsmem_calloc(10, 30);
  ck_assert(all_zero(z, 300));
  unsigned char *q = tsmem_realloc(p, 1000);   /* grows: the old 88 bytes come along */
  for (int i = 0; i < 88; i++) ck_assert_int_eq(q[i], 7);
  unsigned char *r = tsmem_realloc(q, 10);     /* shrinks: the first 10 */
  for (int i = 0; i < 10; i++) ck_assert_int_eq(r[i], 7);
  tsmem_free(r);
  tsmem_free(z);
  tsmem_free(before);
  /* fill the region: further blocks come from malloc and are really freed */
  void *ptrs[64];
  int n = 0;
  size_t chunk = HM_BIG_SOURCE * 8;
  while (n < 64) {
    size_t used = tsmem_used(&m);
    ptrs[n++] = tsmem_malloc(chunk);
    if (tsmem_used(&m) == used) break;   /* this one came from malloc */
  }
  ck_assert_int_lt(n, 64);
  ck_assert_uint_le(tsmem_used(&m), HM_BIG_SOURCE * 128);
  void *grown = tsmem_realloc(ptrs[0], 2 * chunk);   /* a region block moved to malloc's */
  ck_assert_ptr_nonnull(grown);
  ptrs[0] = grown;
  for (int i = 0; i < n; i++) tsmem_free(ptrs[i]);
  tsmem_end(&m);
  ck_assert_uint_eq(tsmem_used(&m), 0);
}
END_TEST

/* A real parse of a big source inside a region: the tree is right, its
 * nodes came from the region, and nothing is left once it is deleted. */
START_TEST(tsmem_parse_in_region) {
  const char *line = "x = x + 1.0\n";
  size_t n = HM_BIG_SOURCE / strlen(line) + 1, len = n * strlen(line);
  char *src = malloc(len + 1);
  for (size_t i = 0; i < n; i++) memcpy(src + i * strlen(line), line, strlen(line));
  src[len] = 0;
  TsMem m;
  tsmem_begin(&m, len);
  TSParser *ts = ts_parser_new();
  ck_assert(ts_parser_set_language(ts, tree_sitter_tfs()));
  TSTree *tree = ts_parser_parse_string(ts, NULL, src, (uint32_t)len);
  TSNode root = ts_tree_root_node(tree);
  ck_assert(!ts_node_has_error(root));
  ck_assert_uint_eq(ts_node_named_child_count(root), n);
  ck_assert_uint_gt(tsmem_used(&m), 40 * len);   /* the tree lives in the region */
  /* sealed: a walk's cursors come from malloc, the region stops growing */
  tsmem_seal(&m);
  size_t used = tsmem_used(&m);
  for (uint32_t i = 0; i < ts_node_named_child_count(root); i += 97) {
    TSTreeCursor c = ts_tree_cursor_new(ts_node_named_child(root, i));
    ck_assert(ts_tree_cursor_goto_first_child(&c));
    ts_tree_cursor_delete(&c);
  }
  ck_assert_uint_eq(tsmem_used(&m), used);
  ts_tree_delete(tree);
  ts_parser_delete(ts);
  tsmem_end(&m);
  free(src);
}
END_TEST

/* hm_huge_pages_for re-executes /proc/self/exe, which is this test program:
 * started as `test_memory --tunables` it prints what it was given. */
static char *tunables_after(const char *path, const char *word, const char *preset) {
  int fd[2];
  ck_assert_int_eq(pipe(fd), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    if (preset) setenv("GLIBC_TUNABLES", preset, 1);
    else unsetenv("GLIBC_TUNABLES");
    char *argv[] = {"test_memory", "--tunables", NULL};
    hm_huge_pages_for(path, word, argv);
    fputs("not re-executed", stdout);
    fflush(stdout);
    _exit(0);
  }
  close(fd[1]);
  static char buf[256];
  ssize_t k = 0, r;
  while (k < (ssize_t)sizeof buf - 1 && (r = read(fd[0], buf + k, sizeof buf - 1 - (size_t)k)) > 0) k += r;
  buf[k] = 0;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return buf;
}

START_TEST(huge_pages_for_big_sources_and_keras) {
  bool huge = hm_thp_offered() && hm_malloc_reads_tunables();
  char small[] = "/tmp/tfs_memXXXXXX", big[] = "/tmp/tfs_memXXXXXX";
  int fs = mkstemp(small), fb = mkstemp(big);
  ck_assert(fs >= 0 && fb >= 0);
  ck_assert_int_eq(ftruncate(fs, 1000), 0);
  ck_assert_int_eq(ftruncate(fb, (off_t)HM_BIG_SOURCE), 0);
  close(fs);
  close(fb);
  ck_assert_str_eq(tunables_after(small, NULL, NULL), "not re-executed");
  ck_assert_str_eq(tunables_after(small, "keras", NULL), "not re-executed");
  ck_assert_str_eq(tunables_after("/nonexistent/prog.tfs", "keras", NULL), "not re-executed");
  ck_assert_str_eq(tunables_after(big, NULL, ""), "not re-executed");   /* the user's setting stands */
  ck_assert_str_eq(tunables_after(big, NULL, NULL), huge ? HM_TUNABLES : "not re-executed");
  /* a small source naming the big library counts as big */
  char named[] = "/tmp/tfs_memXXXXXX";
  int fn = mkstemp(named);
  ck_assert(fn >= 0);
  const char text[] = "import tensorflow as tf\nm = tf.keras.Sequential()\n";
  ck_assert_int_eq(write(fn, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
  close(fn);
  ck_assert_str_eq(tunables_after(named, "keras", NULL), huge ? HM_TUNABLES : "not re-executed");
  ck_assert_str_eq(tunables_after(named, "keras", ""), "not re-executed");
  ck_assert_str_eq(tunables_after(named, "applications", NULL), "not re-executed");
  unlink(named);
  unlink(small);
  unlink(big);
}
END_TEST

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--tunables") == 0) {
    /* the re-executed program keeps its name (ps, killall): not "exe" */
    char comm[64] = "";
    FILE *f = fopen("/proc/self/comm", "r");
    if (!f || !fgets(comm, sizeof comm, f) || strcmp(comm, "test_memory\n") != 0) return 3;
    fclose(f);
    const char *t = getenv("GLIBC_TUNABLES");
    fputs(t ? t : "(unset)", stdout);
    return 0;
  }
  Suite *s = suite_create("memory");
  TCase *tc = tcase_create("memory");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, hugemem_map_aligned_zeroed);
  tcase_add_test(tc, arena_zeroed_after_release);
  tcase_add_test(tc, arena_release_keeps_a_spare);
  tcase_add_test(tc, tsmem_small_source_uses_malloc);
  tcase_add_test(tc, tsmem_region_semantics);
  tcase_add_test(tc, tsmem_parse_in_region);
  tcase_add_test(tc, huge_pages_for_big_sources_and_keras);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
