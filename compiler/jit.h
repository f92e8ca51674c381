/* jit.h — compile generated C with libtcc: in memory (tfs run) or to a standalone executable (tfsc -o). */
#ifndef TFS_JIT_H
#define TFS_JIT_H

#include <stdbool.h>

#include "cgen.h"
#include "object/value.h"

typedef struct Jit Jit;

/* Compile `csrc` in memory with every runtime symbol bound.  On failure
 * returns NULL and appends tcc's messages to `err`. */
Jit *jit_compile(const char *csrc, StrBuf *err);
/* The same for a unit from cgen_program_lazy: `lazy` (taken, left empty;
 * possibly empty) is compiled at the first call of one of its bodies. */
Jit *jit_compile_lazy(const char *csrc, StrBuf *lazy, StrBuf *err);
/* Compile j's second unit now, if it has one not compiled yet (the fuzz
 * harness: every generated C must compile); false with tcc's messages in
 * `err` when it does not. */
bool jit_load_lazy(Jit *j, StrBuf *err);
/* The same, with the module units of cgen_program_units, each compiled
 * (and cached) apart, or loaded from its open entry (fd), and bound to the
 * program's tfs_units_main/exit; each compiled one's entry is set. */
Jit *jit_compile_units(const char *csrc, StrBuf *lazy, CgUnit *units, int n, StrBuf *err);
/* How many such second units have been compiled in this process. */
int jit_lazy_compiles(void);
void *jit_symbol(Jit *j, const char *name);
/* One more symbol every later jit_compile binds (the prompt's namespace array). */
void jit_bind_extra(const char *name, void *addr);
void jit_free(Jit *j);

/* Compile and link `csrc` (which must define main) with the runtime archive
 * into the executable `out_path`. */
bool jit_output_exe(const char *csrc, const char *out_path, StrBuf *err);
/* The same with the module units of cgen_program_units_exe, their objects
 * taken from (and put into) the object cache as tfs run does; each unit
 * compiled here has its entry set. */
bool jit_output_exe_units(const char *csrc, CgUnit *units, int n, const char *out_path, StrBuf *err);

#endif
