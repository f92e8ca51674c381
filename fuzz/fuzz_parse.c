/* fuzz_parse.c — libFuzzer harness for the front end: bytes -> tree-sitter -> AST plus diagnostics, printed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arena.h"
#include "diag.h"
#include "parse.h"

/* Any bytes are a possible source file: the parser must return an AST or
 * located diagnostics, and printing them (caret windows, UTF-8 checks) must
 * stay in bounds. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* parse_source reads up to len, but the diagnostic printer scans lines as C
   * strings: give it the NUL the loader gives every file. */
  char *src = malloc(size + 1);
  if (!src) return 0;
  for (size_t i = 0; i < size; i++) src[i] = (char)data[i];
  src[size] = 0;
  Arena arena;
  arena_init(&arena);
  DiagList diags;
  diag_init(&diags);
  Ast *m = parse_source(&arena, "fuzz.tfs", src, size, &diags);
  if (!m && diags.n == 0) abort();   /* a rejected source must say why */
  FILE *null = fopen("/dev/null", "w");
  if (null) {
    diag_print(&diags, null);
    fclose(null);
  }
  diag_free(&diags);
  arena_free(&arena);
  free(src);
  return 0;
}
