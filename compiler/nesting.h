/* nesting.h — the compile-time nesting bound (Python: RecursionError during compilation). */
#ifndef TFS_NESTING_H
#define TFS_NESTING_H

#include <stdbool.h>

#include "ast.h"
#include "diag.h"

/* False, with a located RecursionError diagnostic, when `root` nests deeper
 * than RT_COMPILE_NESTING_LIMIT (runtime/object/value.h, the shared recursion guard). */
bool nest_check(Ast *root, const char *path, const char *source, DiagList *diags);

#endif
