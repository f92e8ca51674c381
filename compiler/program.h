/* program.h — a whole program: the main file and every .tfs module it imports, parsed and analysed. */
#ifndef TFS_PROGRAM_H
#define TFS_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "scope.h"

typedef struct ProgModule {
  int index;                  /* 0 is the main module */
  const char *name;           /* '__main__' or the import name */
  const char *path;           /* file path as resolved */
  char *source;               /* file text (arena) */
  size_t len;
  Ast *ast;
  ScopeInfo scopes;
  Ast *conv;                  /* AutoGraph-converted module (NULL when not converted) */
  ScopeInfo conv_scopes;      /* its scopes; GLOBAL slots are the original module's */
  bool library;               /* found in stdlib/: host code TF would not convert (tf.keras) */
  bool unit;                  /* tfs run: compiled as a C unit of its own (cgen_program_units) */
  /* Its imports as resolved, in order: name and module path (NULL: native),
   * what a cached unit records and a later run checks (objcache.h). */
  const char **imp_names, **imp_paths;
  int nimp, cimp;
  /* A library module whose cached unit serves (program_load_run): not
   * parsed (ast NULL); the unit's object, open, and its IM_[] modules' paths. */
  int obj_fd;
  const char *obj_entry;
  const char **unit_imports;
  int nunit_imports;
  bool input;                 /* one input of the interactive prompt: shares the prompt's namespace */
} ProgModule;

typedef struct Program {
  Arena arena;
  ProgModule **mods;
  int nmods, cap;
  DiagList diags;
  const char *stdlib_dir;     /* installed/source stdlib directory for imports */
  bool autograph;             /* convert functions (the program uses tf.function) */
  bool main_imported;
  bool prebuilt_ok;           /* program_load_run */         /* some module imports the main one: convert all of it */
  const char *const *repl_globals;  /* the prompt's namespace: slot names so far, in slot order */
  int repl_nglobals;
} Program;

/* Convert the modules with AutoGraph and analyse the result (program_load
 * does this when any module mentions tf.function): the main module's
 * functions a tf.function can reach, every function of the others. */
bool program_convert(Program *p);

/* The path under which a program read from standard input is loaded and reported, as Python names it. */
#define PROGRAM_STDIN "<stdin>"
/* A source naming this word gets the Keras library loaded (load_libraries), ~50 MB of cached code. */
#define PROGRAM_KERAS_WORD "keras"
/* Load `path` and, transitively, every module it imports (search order of
 * docs/language.md, import).  Returns false with diagnostics in p->diags on any error. */
bool program_load(Program *p, const char *path);
/* The same for tfs run: a library module whose unit is in the object cache
 * (objcache_unit_*) is not parsed; its recorded imports are loaded instead. */
bool program_load_run(Program *p, const char *path);
/* The same from a source string (tests, `-c`). */
bool program_load_source(Program *p, const char *path, const char *src, size_t len);
void program_free(Program *p);

/* The interactive prompt's program starts empty; each input becomes one more
 * module named __main__ whose globals continue the previous inputs' slots,
 * with what it imports first after it.  Converted with AutoGraph, as any
 * input may define a tf.function.  On error (diagnostics in p->diags) the
 * program is left as it was. */
void program_repl_init(Program *p);
bool program_add_input(Program *p, const char *src, size_t len);

/* Module index for an import of `name` from module `from`; -1 when the name
 * is a native stdlib module (time, timeit), -2 when not found. */
int program_find_module(Program *p, const ProgModule *from, const char *name);

#endif
