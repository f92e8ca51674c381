/* autograph.h — AutoGraph, compiler half: convert function definitions into code that calls the runtime's `ag` module.
 *
 * A converted function is ordinary .tfs in which `if`, `while`, `for`,
 * conditional expressions, `and`/`or`/`not` and `assert` became calls to
 * ag.if_stmt / ag.while_stmt / ag.for_stmt / ag.if_exp / ag.and_ / ag.or_ /
 * ag.not_ / ag.assert_stmt, with nested functions for branches, loop bodies
 * and state; `break`, `continue` and `return` are lowered to flag variables
 * first.  The rules and the exact layout are TensorFlow's AutoGraph
 * (docs/autograph.md lists them with one example per construct).
 *
 * Use:
 *     Ast *conv = ag_convert_function(arena, fn, path, source, &diags);
 *     char *text = unparse_function(conv, true);   // tf.autograph.to_code
 */
#ifndef TFS_AUTOGRAPH_H
#define TFS_AUTOGRAPH_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* Convert one function definition (A_FUNCDEF, nested definitions inside it
 * included: they are converted as part of it).  The result is a NEW
 * A_FUNCDEF (same name, parameters and decorators) allocated in `arena`,
 * strings included; the input is not modified.  A function that is already
 * converted (it calls ag.*) comes back as an unchanged copy.  Errors that
 * are known statically go to diags at the user's location; the result is
 * still a usable AST (NULL only when fn is NULL or not a function). */
Ast *ag_convert_function(Arena *arena, const Ast *fn, const char *path, const char *source, DiagList *diags);

/* Convert a whole module: every function definition at top level, in
 * classes (methods) and inside top-level compound statements is converted
 * under its own name; decorators and all other statements are kept. */
Ast *ag_convert_module(Arena *arena, const Ast *module, const char *path, const char *source, DiagList *diags);

/* The same, converting only the functions a tf.function can reach (a
 * conservative static closure from the decorated ones, those used as
 * values, methods...: ag_reach.c).  Every other top-level definition
 * becomes `name = None`, so converted code still resolves the name; at run
 * time the original function has no converted twin. */
Ast *ag_convert_module_reached(Arena *arena, const Ast *module, const char *path, const char *source,
                               DiagList *diags);

/* Whether fn is already in converted form (calls ag.*), i.e. converting it
 * changes nothing. */
bool ag_is_converted(const Ast *fn);

#endif
