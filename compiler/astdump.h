/* astdump.h — a compact, deterministic text form of an AST, like Python's ast.dump (tests, debugging). */
#ifndef TFS_ASTDUMP_H
#define TFS_ASTDUMP_H

#include "ast.h"

/* `Kind(field=value, ...)`: fields in a fixed order, NULL/empty/false ones
 * left out; names as `Name('x')`, constants as `Constant(1)`, operators by
 * Python's ast class names (Add, Lt, And, USub, ...).  Locations are not
 * shown.  Returns a malloc'd string (NULL node: "None"). */
char *ast_dump(const Ast *node);

#endif
