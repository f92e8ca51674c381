/* fuzz_autograph.c — libFuzzer harness for AutoGraph and the to-code printer: convert, print, re-parse, convert again; the text must not change. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograph.h"
#include "parsecache.h"
#include "program.h"
#include "unparse.h"

/* What `tfsc --to-code` prints for the source (driver_to_code's steps: the
 * loader's checks -- UTF-8, nesting, scopes, imports -- then the converter
 * and the printer), or NULL when the source is rejected; *loaded says
 * whether the loader accepted it. */
static char *convert_text(const char *src, size_t len, bool *loaded) {
  Program p;
  char *text = NULL;
  *loaded = program_load_source(&p, "fuzz.tfs", src, len);
  if (*loaded) {
    ProgModule *m = p.mods[0];
    /* every function, as --to-code (m->conv holds only what a tf.function reaches) */
    Ast *conv = ag_convert_module(&p.arena, m->ast, m->path, m->source, &p.diags);
    if (conv && p.diags.n == 0) text = unparse_module(conv);
  }
  program_free(&p);
  return text;
}

/* The round trip of tests/roundtrip.py on every input that converts: what
 * to-code prints parses, and converting it again is the identity (converted
 * functions come back unchanged). */
/* The stdlib modules an input imports (tf.keras: 1.8 s under ASan) are parsed
 * once per process; each input still gets its own copy of their trees. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  parsecache_enable();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = 0;
  bool loaded;
  char *once = convert_text(src, size, &loaded);
  if (once) {
    char *twice = convert_text(once, strlen(once), &loaded);
    if (!loaded) {
      fprintf(stderr, "fuzz_autograph: the converted code does not load:\n%s", once);
      abort();
    }
    if (twice && strcmp(once, twice) != 0) {
      fprintf(stderr, "fuzz_autograph: converting the converted code changed it:\n--- once\n%s--- twice\n%s", once, twice);
      abort();
    }
    free(twice);
  }
  free(once);
  free(src);
  return 0;
}
