/* ag_ifexp.c — AutoGraph pass: conditional expressions become ag.if_exp with lazy branches.
 *
 *     a if c else b   ->   ag.if_exp(c, lambda: a, lambda: b)
 *
 * The contract's three-argument form (AutoGraph adds the test's source text
 * as a fourth).  Inner expressions are converted first. */
#include "ag_int.h"

static Ast *ifexp(AgCtx *c, Ast *e) {
  if (e->kind != A_IFEXP) return e;
  return ag_rt(c, e, "if_exp", 3, e->test, ag_lambda(c, e->left, e->left), ag_lambda(c, e->right, e->right));
}

void ag_ifexp(AgCtx *c, Ast *fn) { ag_rewrite_exprs(c, fn, ifexp); }
