/* fuzz_pipeline.c — libFuzzer harness for the whole compile pipeline: load and analyse, AutoGraph, C generation, libtcc compile. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgen.h"
#include "jit.h"
#include "parsecache.h"
#include "program.h"

/* Everything `tfs run` does before the program's first statement: an input
 * must end in a program ready to run or in diagnostics, and the generated C
 * must always compile (a tcc error is a compiler bug).  The program is not
 * run: fuzzed code would loop and write files at will.  libFuzzer's
 * -rss_limit_mb bounds memory (fuzz/run.sh). */
/* The stdlib modules an input imports (tf.keras: 1.8 s under ASan) are parsed
 * once per process; each input still gets its own copy of their trees. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  parsecache_enable();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Program p;
  StrBuf c, lazy, err;
  sb_init(&c);
  sb_init(&lazy);
  sb_init(&err);
  /* as tfs run: two units, the second (tf.functions' eager bodies) compiled
   * here at once rather than at a first eager call */
  if (program_load_source(&p, "fuzz.tfs", (const char *)data, size) && cgen_program_lazy(&p, &c, &lazy)) {
    Jit *j = jit_compile_lazy(c.data, &lazy, &err);
    if (j && !jit_load_lazy(j, &err)) {
      jit_free(j);
      j = NULL;
    }
    if (!j) {
      fprintf(stderr, "fuzz_pipeline: the generated C did not compile:\n%.*s", (int)err.len, err.data);
      abort();
    }
    jit_free(j);
  } else {
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      diag_print(&p.diags, null);
      fclose(null);
    }
  }
  sb_free(&c);
  sb_free(&lazy);
  sb_free(&err);
  program_free(&p);
  return 0;
}
