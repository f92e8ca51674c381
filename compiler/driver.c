/* driver.c — run the pipeline for tfs/tfsc: program_load -> cgen_program -> libtcc -> rt_main. */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgen.h"
#include "jit.h"
#include "program.h"

int rt_main(int argc, char **argv, void (*entry)(void), void (*leave)(void));

/* Load and generate; prints diagnostics and returns false on error. */
static bool build_c(Program *p, const char *path, StrBuf *c, bool with_main) {
  bool ok = program_load(p, path) && cgen_program(p, c, with_main);
  if (!ok) {
    fflush(stdout);
    diag_print(&p->diags, stderr);
  }
  return ok;
}

static void internal_error(const char *what, StrBuf *err) {
  fprintf(stderr, "tfs: internal error: %s\n%.*s", what, (int)err->len, err->data ? err->data : "");
}

int driver_check(const char *path) {
  Program p;
  StrBuf c;
  sb_init(&c);
  bool ok = build_c(&p, path, &c, false);
  sb_free(&c);
  program_free(&p);
  return ok ? 0 : 1;
}

int driver_emit_c(const char *path, const char *out_path) {
  Program p;
  StrBuf c;
  sb_init(&c);
  int rc = 1;
  if (build_c(&p, path, &c, true)) {
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) {
      fprintf(stderr, "tfsc: error: cannot write '%s'\n", out_path);
    } else {
      fwrite(c.data, 1, c.len, f);
      rc = (out_path ? fclose(f) : fflush(f)) == 0 ? 0 : 1;
    }
  }
  sb_free(&c);
  program_free(&p);
  return rc;
}

int driver_build_exe(const char *path, const char *out_path) {
  Program p;
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  int rc = 1;
  if (build_c(&p, path, &c, true)) {
    if (jit_output_exe(c.data, out_path, &err)) rc = 0;
    else internal_error("linking the executable failed", &err);
  }
  sb_free(&c);
  sb_free(&err);
  program_free(&p);
  return rc;
}

int driver_run(const char *path, int argc, char **argv, const DriverOpts *opts) {
  Program p;
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  int rc = 1;
  if (build_c(&p, path, &c, false)) {
    Jit *j = jit_compile(c.data, &err);
    if (!j) {
      internal_error("generated C did not compile", &err);
    } else {
      void (*entry)(void) = (void (*)(void))jit_symbol(j, "tfs_program_main");
      void (*leave)(void) = (void (*)(void))jit_symbol(j, "tfs_program_exit");
      (void)opts;
      rc = rt_main(argc, argv, entry, leave);
      jit_free(j);
    }
  }
  sb_free(&c);
  sb_free(&err);
  program_free(&p);
  return rc;
}
