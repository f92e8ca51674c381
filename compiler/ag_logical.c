/* ag_logical.c — AutoGraph pass: `and`, `or`, `not` become lazy ag.and_ / ag.or_ / ag.not_ calls.
 *
 *     a and b and c   ->   ag.and_(lambda: a, lambda: ag.and_(lambda: b, lambda: c))
 *     a or b          ->   ag.or_(lambda: a, lambda: b)
 *     not a           ->   ag.not_(a)
 *
 * Operands after the first are lambdas so that they run only when needed,
 * as Python's short-circuit does; the first one is a lambda too, as in
 * AutoGraph.  Comparisons are left alone (AutoGraph's equality feature is
 * off by default). */
#include "ag_int.h"

static Ast *logical(AgCtx *c, Ast *e) {
  if (e->kind == A_UNARYOP && e->op == UN_NOT) return ag_rt(c, e, "not_", 1, e->operand);
  if (e->kind != A_BOOLOP || e->values.n == 0) return e;
  const char *fname = e->op == BOOL_OR ? "or_" : "and_";
  Ast *right = e->values.items[e->values.n - 1];
  for (int i = e->values.n - 2; i >= 0; i--) {
    Ast *left = e->values.items[i];
    right = ag_rt(c, i == 0 ? e : left, fname, 2, ag_lambda(c, left, left), ag_lambda(c, right, right));
  }
  return right;
}

void ag_logical(AgCtx *c, Ast *fn) { ag_rewrite_exprs(c, fn, logical); }
