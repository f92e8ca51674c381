/* activity.h — activity analysis for AutoGraph: the names each statement binds and reads, liveness, possible definitions. */
#ifndef TFS_ACTIVITY_H
#define TFS_ACTIVITY_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"

/* A set of identifiers, kept sorted by strcmp (so it lists in the order
 * AutoGraph sorts state variables).  Storage comes from an arena. */
typedef struct NameSet {
  const char **v;
  int n, cap;
} NameSet;

void activity_set_add(Arena *a, NameSet *s, const char *name);
bool activity_set_has(const NameSet *s, const char *name);
void activity_set_union(Arena *a, NameSet *dst, const NameSet *src);
NameSet activity_set_copy(Arena *a, const NameSet *s);

/* What the analysis knows about one statement of an analyzed function.
 * Like AutoGraph's annotations: live_in of a loop is taken at its head (so it
 * holds what a later iteration reads), live_out after the statement,
 * defined_in holds the names that some path defines before the statement
 * (a loop's own back edge excluded), modified the simple names bound inside
 * an if/while/for (a for's target included; nested function bodies and
 * subscript/attribute targets excluded). */
typedef struct ActStmt {
  NameSet modified;
  NameSet live_in, live_out;
  NameSet defined_in;
  /* private to the analysis */
  NameSet closure_in;          /* free variables of nested defs that reach here: always live */
  NameSet fwd_head, clo_head, bwd_head;  /* loops: the state at the head, grown to a fixpoint */
} ActStmt;

/* Names a function declares `global` / `nonlocal` in its own body. */
typedef struct ActFunc {
  NameSet globals, nonlocals;
} ActFunc;

typedef struct Activity Activity;

/* The extra loop test of a `for` (AutoGraph's EXTRA_LOOP_TEST, read before
 * each iteration), or NULL. */
typedef const Ast *(*ActExtraTest)(void *ud, const Ast *loop);

/* Analysis results live in `scratch` and stay valid until it is freed. */
Activity *activity_new(Arena *scratch, ActExtraTest extra_test, void *ud);
/* Analyze one A_FUNCDEF's own body (nested definitions count as statements
 * that bind their name and keep their free variables live; analyze them with
 * their own call). */
void activity_analyze(Activity *act, const Ast *fn);
/* NULL when the statement was not analyzed. */
const ActStmt *activity_stmt(const Activity *act, const Ast *stmt);
const ActFunc *activity_func(const Activity *act, const Ast *fn);

/* Simple names an expression reads (lambda parameters excluded). */
void activity_expr_reads(Arena *a, const Ast *e, NameSet *out);
/* Simple names a statement binds, nested blocks included, nested function
 * bodies excluded. */
void activity_stmt_binds(Arena *a, const Ast *s, NameSet *out);
/* Free variables a nested definition (def or lambda) reads from enclosing scopes. */
void activity_free_reads(Arena *a, const Ast *fn, NameSet *out);

#endif
