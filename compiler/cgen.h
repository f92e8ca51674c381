/* cgen.h — C code generation: a loaded program (modules + scopes) -> one C translation unit of runtime glue. */
#ifndef TFS_CGEN_H
#define TFS_CGEN_H

#include "program.h"
#include "object/value.h"

/* Emit the whole program as C.  The unit defines `void tfs_program_main(void)`
 * (registers files/locations/modules, runs the main module) and
 * `void tfs_program_exit(void)` (releases module globals and constants).  With
 * `with_main`, it also defines `int main(int, char **)` for standalone
 * executables.  Returns false (with diagnostics) on unsupported constructs. */
bool cgen_program(Program *p, StrBuf *out, bool with_main);

/* As cgen_program without main (tfs run): the original bodies of functions
 * decorated with @tf.function that have a converted twin go to `lazy`, a
 * second unit the JIT compiles only when one of them is first called
 * (eagerly); in `out` each becomes a stub calling it through a pointer, and
 * `tfs_lazy_refs` lists what the second unit uses of the first.  `lazy` stays
 * empty when there is no such function. */
bool cgen_program_lazy(Program *p, StrBuf *out, StrBuf *lazy);

/* tfs run: as cgen_program_lazy, with each library module a unit of its own
 * (`units`, freed with cgen_units_free) whose text depends on that module
 * alone, so its cached object serves every program that imports it; `out`
 * calls tfs_units_main() and tfs_units_exit(), which the JIT binds to its
 * units' tfs_unit_main_<module>(module, imports) and tfs_unit_exit_<module>(). */
typedef struct CgUnit {
  int module;                 /* its index in the program */
  char *name;                 /* the module's name (malloc'd: the units outlive the program's arena) */
  StrBuf text;
  int *imports, nimports;     /* the indices its IM_[] receives */
  int fd;                     /* a cached unit (ProgModule.obj_fd): its object, open; text empty */
  char *record;               /* generated: where to record it by its source (objcache_unit_path), or NULL */
  char *body;                 /* ... what to record (objcache_unit_body) */
  size_t nbody;
  char *entry;                /* set by the JIT: its object's cache entry, or NULL */
} CgUnit;
bool cgen_program_units(Program *p, StrBuf *out, StrBuf *lazy, CgUnit **units, int *nunits);
/* The same for an executable (tfsc -o): the program's unit has main() and
 * no second unit; jit_output_exe_units links the module units with it. */
bool cgen_program_units_exe(Program *p, StrBuf *out, CgUnit **units, int *nunits);
void cgen_units_free(CgUnit *units, int n);
/* Appends the name of a unit's entry `fn` ("main" or "exit"): tfs_unit_main_<module>,
 * the module's name escaped into a C identifier.  Names of their own let an
 * executable link every cached unit object as it is, with no renaming. */
void cgen_unit_symbol(StrBuf *out, const char *fn, const char *module);

/* The same generation for its diagnostics only (tfsc --check): no C is kept. */
bool cgen_check(Program *p);

/* One input of the interactive prompt: modules `first`.. (the input and what
 * it imported first) as a unit of their own, which appends its files and
 * locations (numbered from *nlocs, advanced past them) to the runtime's
 * tables and keeps the input's globals in `tfs_repl_globals[]`, an array the
 * JIT binds.  tfs_program_exit releases its constants and imported modules. */
bool cgen_input(Program *p, StrBuf *out, int first, int *nlocs);

extern const char tfs_abi_text[];   /* runtime/object/abi.h, embedded by the build */

#endif
