/* scope.h — name resolution: which names are locals, cells, free variables, globals or builtins. */
#ifndef TFS_SCOPE_H
#define TFS_SCOPE_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "nameidx.h"

typedef enum SymKind {
  SYM_LOCAL,    /* plain C local of the function */
  SYM_CELL,     /* local captured by a nested function: lives in a heap cell */
  SYM_FREE,     /* captured from an enclosing function: self->cells[index] */
  SYM_GLOBAL,   /* module slot G[index] */
  SYM_BUILTIN,  /* resolved once from the builtins scope */
} SymKind;

typedef struct Sym {
  const char *name;
  SymKind kind;
  int index;                  /* FREE: cell index; GLOBAL: module slot */
  bool bound;                 /* assigned/defined in this scope */
  bool param;                 /* a parameter of this function */
  bool unbinds;               /* `del` or `except ... as` may leave it unbound */
  bool is_global_decl, is_nonlocal_decl;
  int decl_line, decl_col;    /* where a global/nonlocal was declared */
} Sym;

typedef struct Scope Scope;
struct Scope {
  Ast *node;                  /* A_MODULE, A_FUNCDEF or A_LAMBDA */
  Scope *parent;
  bool is_module;
  Sym **syms;                 /* stable pointers: frees[] refers to them */
  int nsyms, cap;
  NameIdx idx;                /* name -> syms[] index, built once a scope has many names */
  Sym **frees;                /* FREE symbols in cell-index order */
  int nfrees;
  int id;                     /* unique per module (C function names) */
  bool generator;             /* the function's body yields (a generator expression too): calling it makes a generator */
};

typedef struct ScopeInfo {
  Arena *arena;
  Scope *module;
  Scope **all;                /* every scope, module first */
  int n, cap;
  const char **globals;       /* module slot names, in slot order */
  int nglobals, gcap;
  NameIdx gidx;               /* slot name -> slot */
} ScopeInfo;

/* Analyse a parsed module.  Unknown names (bound nowhere, not builtins) and
 * misplaced nonlocal/global declarations become diagnostics.  Returns false on
 * error.  `is_builtin` says whether a name exists in the builtins scope. */
bool scope_analyze(ScopeInfo *si, Arena *arena, Ast *module, const char *path, const char *source, DiagList *diags,
                   bool (*is_builtin)(const char *name));

/* The same for a module that continues another's namespace (each input of
 * the interactive prompt): `globals` keep their slots and are known names. */
bool scope_analyze_seeded(ScopeInfo *si, Arena *arena, Ast *module, const char *path, const char *source,
                          DiagList *diags, bool (*is_builtin)(const char *name), const char *const *globals,
                          int nglobals);

Scope *scope_of(ScopeInfo *si, const Ast *node);     /* the scope a def/lambda/module opens */
Sym *scope_lookup(Scope *s, const char *name);       /* NULL when the scope does not know it */
int scope_global_slot(const ScopeInfo *si, const char *name);   /* -1 when the module has no such slot */

#endif
