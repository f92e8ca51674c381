/* ag_assert.c — AutoGraph pass: `assert` becomes a call the runtime can stage as a graph assert.
 *
 *     assert x > 0, 'x must be positive'   ->   ag.assert_stmt(x > 0, lambda: 'x must be positive')
 *     assert x > 0                         ->   ag.assert_stmt(x > 0, lambda: 'Assertion error')
 *
 * The message is a lambda so that it is only evaluated when the assertion
 * fails (AutoGraph's default message when there is none). */
#include "ag_int.h"

static void visit_block(AgCtx *c, AstList *l) {
  for (int i = 0; i < l->n; i++) {
    Ast *s = l->items[i];
    if (!s) continue;
    if (s->kind == A_ASSERT) {
      Ast *msg = s->msg ? s->msg : ag_str(c, s, "Assertion error");
      l->items[i] = ag_expr_stmt(c, s, ag_rt(c, s, "assert_stmt", 2, s->test, ag_lambda(c, msg, msg)));
      continue;
    }
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) visit_block(c, b.cur);
  }
}

void ag_assert(AgCtx *c, Ast *fn) { visit_block(c, &fn->body); }
