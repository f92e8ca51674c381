/* parse.h — the front end: .tfs text -> tree-sitter CST -> AST, with syntax diagnostics. */
#ifndef TFS_PARSE_H
#define TFS_PARSE_H

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* Parse `src` (len bytes) of file `path`.  Returns an A_MODULE, or NULL when
 * syntax errors were found; every error found is appended to `diags` (several
 * per file, each saying what was expected where).  All AST memory, including
 * copies of identifiers and strings, lives in `arena`; `path` and `src` must
 * outlive the diagnostics. */
Ast *parse_source(Arena *arena, const char *path, const char *src, size_t len, DiagList *diags);

#endif
