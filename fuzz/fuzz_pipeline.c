/* fuzz_pipeline.c — libFuzzer harness for the whole compile pipeline: load and analyse, AutoGraph, C generation, libtcc compile. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgen.h"
#include "jit.h"
#include "program.h"

/* Everything `tfs run` does before the program's first statement: an input
 * must end in a program ready to run or in diagnostics, and the generated C
 * must always compile (a tcc error is a compiler bug).  The program is not
 * run: fuzzed code would loop and write files at will.  libFuzzer's
 * -rss_limit_mb bounds memory (fuzz/run.sh). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Program p;
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  if (program_load_source(&p, "fuzz.tfs", (const char *)data, size) && cgen_program(&p, &c, false)) {
    Jit *j = jit_compile(c.data, &err);
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
  sb_free(&err);
  program_free(&p);
  return 0;
}
