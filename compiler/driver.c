/* driver.c — run the pipeline for tfs/tfsc: program_load -> cgen_program -> libtcc -> rt_main. */
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dist/dist.h"
#include "object/atomicfile.h"

#include "autograph.h"
#include "cgen.h"
#include "formats/graphdump.h"
#include "graph/graph.h"
#include "function/tffunction.h"
#include "jit.h"
#include "objcache.h"
#include "modules/onnxexport.h"
#include "program.h"
#include "unparse.h"

int rt_main(int argc, char **argv, void (*entry)(void), void (*leave)(void));

/* Load and generate one unit; prints diagnostics and returns false on error. */
static void report(Program *p) {
  if (dist_launch_rank() == 0) {   /* under mpirun rank 0 alone reports; every rank exits 1 */
    fflush(stdout);
    diag_print(&p->diags, stderr);
  }
}

static bool build_c(Program *p, const char *path, StrBuf *c, bool with_main) {
  bool ok = program_load(p, path) && cgen_program(p, c, with_main);
  if (!ok) report(p);
  return ok;
}

static void internal_error(const char *what, StrBuf *err) {
  fprintf(stderr, "tfs: internal error: %s\n%.*s", what, (int)err->len, err->data ? err->data : "");
}

/* Code generation runs too (it reports what it cannot translate), keeping
 * none of the C. */
int driver_check(const char *path) {
  Program p;
  bool ok = program_load(&p, path) && cgen_check(&p);
  if (!ok) {
    fflush(stdout);
    diag_print(&p.diags, stderr);
  }
  program_free(&p);
  return ok ? 0 : 1;
}

static int cannot_write(const char *path, int err) {
  fprintf(stderr, "tfsc: error: cannot write '%s': %s\n", path, strerror(err));
  return 1;
}

/* gcc refuses to overwrite a source with its output; so do we, for the main
 * file and every module it imports. */
static bool output_is_input(const Program *p, const char *out_path) {
  struct stat so, si;
  if (stat(out_path, &so) != 0) return false;
  for (int i = 0; i < p->nmods; i++) {
    if (stat(p->mods[i]->path, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
      fprintf(stderr, "tfsc: error: output file '%s' is the same as input file '%s'\n", out_path, p->mods[i]->path);
      return true;
    }
  }
  return false;
}

/* The linker reports a full disk or file size limit in its own words: find
 * the system's text for them, so the user gets one line with the reason. */
static int write_errno_in(const StrBuf *err) {
  static const int errs[] = {ENOSPC, EFBIG, EDQUOT, EROFS, EACCES, EIO};
  for (size_t i = 0; i < sizeof errs / sizeof *errs; i++)
    if (err->data && strstr(err->data, strerror(errs[i]))) return errs[i];
  return 0;
}

int driver_emit_c(const char *path, const char *out_path) {
  Program p;
  StrBuf c;
  sb_init(&c);
  int rc = 1;
  if (build_c(&p, path, &c, true)) {
    if (!out_path) {
      size_t n = fwrite(c.data, 1, c.len, stdout);
      rc = n == c.len && fflush(stdout) == 0 ? 0 : (errno == EPIPE ? 1 : cannot_write("<stdout>", errno));
    } else if (!output_is_input(&p, out_path)) {
      int e = af_write(out_path, c.data, c.len);
      rc = e ? cannot_write(out_path, e) : 0;
    }
  }
  sb_free(&c);
  program_free(&p);
  return rc;
}

/* A library module whose object is now cached need not be parsed next time. */
static void record_units(const CgUnit *units, int n) {
  for (int i = 0; i < n; i++)
    if (units[i].record && units[i].entry && units[i].body) objcache_unit_write(units[i].record, units[i].entry, units[i].body, units[i].nbody);
}

/* Linked into a temporary file beside the output and renamed into place: a
 * failed build leaves the previous executable intact.  The library modules
 * are units of their own, from the object cache as tfs run has them. */
int driver_build_exe(const char *path, const char *out_path) {
  Program p;
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  int rc = 1;
  CgUnit *units = NULL;
  int nunits = 0;
  bool ok = program_load_run(&p, path) && cgen_program_units_exe(&p, &c, &units, &nunits);
  if (!ok) report(&p);
  if (ok && !output_is_input(&p, out_path)) {
    char *tmp = af_temp_for(out_path);
    if (!tmp) {
      rc = cannot_write(out_path, errno);
    } else if (!jit_output_exe_units(c.data, units, nunits, tmp, &err)) {
      af_abort(tmp);
      int e = write_errno_in(&err);
      if (e) cannot_write(out_path, e);
      else internal_error("linking the executable failed", &err);
    } else {
      record_units(units, nunits);
      int e = af_commit(tmp, out_path);
      rc = e ? cannot_write(out_path, e) : 0;
    }
  }
  cgen_units_free(units, nunits);
  sb_free(&c);
  sb_free(&err);
  program_free(&p);
  return rc;
}

int driver_run(const char *path, int argc, char **argv, const DriverOpts *opts) {
  Program p;
  StrBuf c, lazy, err;
  sb_init(&c);
  sb_init(&lazy);
  sb_init(&err);
  int rc = 1;
  CgUnit *units = NULL;
  int nunits = 0;
  bool ok = program_load_run(&p, path) && cgen_program_units(&p, &c, &lazy, &units, &nunits);
  if (!ok) report(&p);
  /* the C units hold all the program needs: the ASTs go before libtcc's
   * memory is added to them */
  program_free(&p);
  if (ok) {
    Jit *j = jit_compile_units(c.data, &lazy, units, nunits, &err);
    sb_free(&c);
    if (j) record_units(units, nunits);
    cgen_units_free(units, nunits);
    units = NULL;
    nunits = 0;
    if (!j) {
      internal_error("generated C did not compile", &err);
    } else {
      void (*entry)(void) = (void (*)(void))jit_symbol(j, "tfs_program_main");
      void (*leave)(void) = (void (*)(void))jit_symbol(j, "tfs_program_exit");
      if (opts && opts->eager) tffn_set_eager(true);
      if (opts && opts->dump_graphs) graph_set_dump_dir(opts->dump_graphs);
      rc = rt_main(argc, argv, entry, leave);
      jit_free(j);
    }
  }
  cgen_units_free(units, nunits);
  sb_free(&c);
  sb_free(&lazy);
  sb_free(&err);
  return rc;
}

static void (*onnx_real_entry)(void);
static bool onnx_ok;

/* The program's top level, then the export of the function it defined. */
static void onnx_entry(void) {
  onnx_real_entry();
  onnx_ok = onnx_export_finish();
}

/* Run the program with its standard output discarded (its top level defines
 * the function and may call it), then export. */
int driver_onnx(const char *path, const char *function, const char *out_path, const char *io_path) {
  Program p;
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  int rc = 1;
  if (build_c(&p, path, &c, false) && !output_is_input(&p, out_path)) {
    Jit *j = jit_compile(c.data, &err);
    if (!j) {
      internal_error("generated C did not compile", &err);
    } else {
      onnx_real_entry = (void (*)(void))jit_symbol(j, "tfs_program_main");
      void (*leave)(void) = (void (*)(void))jit_symbol(j, "tfs_program_exit");
      fflush(stdout);
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) {
        dup2(null, 1);
        close(null);
      }
      onnx_export_setup(path, function, out_path, io_path);
      char *argv[] = {(char *)path, NULL};
      rc = rt_main(1, argv, onnx_entry, leave);
      if (rc == 0 && !onnx_ok) rc = 1;
      jit_free(j);
    }
  }
  sb_free(&c);
  sb_free(&err);
  program_free(&p);
  return rc;
}

/* A directory is a SavedModel: it has signatures, not functions, and no
 * program to record a call of. */
int driver_onnx_any(const char *in, const char *function, const char *signature, const char *out_path, const char *io_path) {
  struct stat st;
  bool exists = stat(in, &st) == 0, dir = exists && S_ISDIR(st.st_mode);
  if (dir || (!exists && signature && !function)) {   /* a missing path with --signature: the loader says what is missing */
    if (function) {
      fprintf(stderr, "tfsc: error: --function is for a .tfs program; '%s' is a SavedModel directory: use --signature NAME\n", in);
      return 1;
    }
    if (io_path) {
      fprintf(stderr, "tfsc: error: --save-io is for a .tfs program; '%s' is a SavedModel directory\n", in);
      return 1;
    }
    if (!signature) {
      fprintf(stderr, "tfsc: error: '%s' is a SavedModel directory: name the signature to export with --signature NAME\n", in);
      return 1;
    }
    /* as for a program: never replace the model being read */
    size_t n = strlen(in) + sizeof "/saved_model.pb";
    char *pb = malloc(n);
    struct stat so, si;
    bool same = pb && (snprintf(pb, n, "%s/saved_model.pb", in), stat(pb, &si) == 0) && stat(out_path, &so) == 0 &&
                si.st_dev == so.st_dev && si.st_ino == so.st_ino;
    if (same) fprintf(stderr, "tfsc: error: output file '%s' is the same as input file '%s'\n", out_path, pb);
    free(pb);
    return same ? 1 : onnx_export_saved(in, signature, out_path);
  }
  if (signature) {
    fprintf(stderr, "tfsc: error: --signature is for a SavedModel directory; '%s' is a program: use --function NAME\n", in);
    return 1;
  }
  if (!function) {
    fprintf(stderr, "tfsc: error: name the tf.function of '%s' to export with --function NAME\n", in);
    return 1;
  }
  return driver_onnx(in, function, out_path, io_path);
}

/* The first definition of `name`: top level first, then nested (breadth-first). */
static Ast *find_function(const AstList *body, const char *name) {
  for (int i = 0; i < body->n; i++) {
    Ast *st = body->items[i];
    if (st->kind == A_FUNCDEF && strcmp(st->name, name) == 0) return st;
  }
  for (int i = 0; i < body->n; i++) {
    Ast *st = body->items[i];
    for (AstBlocks b = ast_blocks(st); ast_blocks_next(&b);) {
      Ast *f = find_function(b.cur, name);
      if (f) return f;
    }
  }
  return NULL;
}

int driver_to_code(const char *path, const char *function) {
  Program p;
  int rc = 1;
  if (!program_load(&p, path)) {
    fflush(stdout);
    diag_print(&p.diags, stderr);
    program_free(&p);
    return 1;
  }
  ProgModule *m = p.mods[0];
  char *text = NULL;
  if (function) {
    Ast *fn = find_function(&m->ast->body, function);
    if (!fn) {
      fprintf(stderr, "%s: error: no function named '%s'\n", path, function);
    } else {
      Ast *conv = ag_convert_function(&p.arena, fn, m->path, m->source, &p.diags);
      if (conv && p.diags.n == 0) text = unparse_function(conv, true);
    }
  } else {
    /* every function, as tf.autograph.to_code would show it, not just what the program traces */
    Ast *conv = ag_convert_module(&p.arena, m->ast, m->path, m->source, &p.diags);
    if (conv && p.diags.n == 0) text = unparse_module(conv);
  }
  if (p.diags.n) diag_print(&p.diags, stderr);
  if (text) {
    fputs(text, stdout);
    rc = fflush(stdout) == 0 ? 0 : 1;
    free(text);
  }
  program_free(&p);
  return rc;
}
