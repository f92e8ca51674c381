/* ag_break.c — AutoGraph pass: `break` becomes a flag variable plus a `continue`.
 *
 *     while x > 0:                      break_ = False
 *         if x > 5:                     while not break_ and x > 0:
 *             break            ->           if x > 5:
 *         x = x - 1                             break_ = True
 *     else:                                     continue
 *         y = 1                             x = x - 1
 *                                       if not break_:
 *                                           y = 1
 *
 * A `for` loop keeps its test and gets `not break_` as its extra test
 * (ag.for_stmt's second argument).  The `continue` left behind is lowered by
 * the continue pass.  A loop's `else` block moves after the loop, guarded
 * when the loop can break.  The flag is named once per loop that breaks, in
 * source order: break_, break__1, ... */
#include "ag_int.h"

typedef struct Brk {
  const char *var;   /* this loop's flag */
  bool used;
} Brk;

/* Whether a loop body breaks out of this loop (not out of a nested one). */
static bool has_own_break(const AstList *l) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s) continue;
    switch (s->kind) {
    case A_BREAK: return true;
    case A_IF:
    case A_WITH:
    case A_TRY:
      for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);)
        if (has_own_break(b.cur)) return true;
      break;
    case A_WHILE:
    case A_FOR: /* their bodies own their breaks, but an else block breaks out of this loop */
      if (has_own_break(&s->orelse)) return true;
      break;
    default: break; /* definitions own their breaks */
    }
  }
  return false;
}

static void visit_block(AgCtx *c, AstList *l, Brk *cur);

static void visit_stmt(AgCtx *c, Ast *s, Brk *cur, AstList *out) {
  switch (s->kind) {
  case A_BREAK:
    if (!cur || !cur->var) { /* outside a loop: the parser has reported it */
      ag_push(c, out, s);
      return;
    }
    cur->used = true;
    ag_push(c, out, ag_assign(c, s, ag_name(c, s, cur->var), ag_const(c, s, C_TRUE)));
    ag_push(c, out, ast_new(c->arena, A_CONTINUE, s->line, s->col));
    return;
  case A_WHILE:
  case A_FOR: {
    Brk b = {0};
    if (has_own_break(&s->body)) b.var = ag_new_symbol(c, "break_");
    visit_block(c, &s->body, &b);
    /* a break in the else block leaves the enclosing loop */
    AstList orelse = s->orelse;
    s->orelse = (AstList){0};
    visit_block(c, &orelse, cur);
    if (!b.used) {
      ag_push(c, out, s);
      ag_push_all(c, out, &orelse);
      return;
    }
    ag_push(c, out, ag_assign(c, s, ag_name(c, s, b.var), ag_const(c, s, C_FALSE)));
    Ast *not_broken = ag_not(c, s, ag_name(c, s, b.var));
    if (s->kind == A_WHILE) s->test = ag_and(c, s->test, not_broken, s->test);
    else ag_loop(c, s, true)->extra_test = not_broken;
    ag_push(c, out, s);
    if (orelse.n) {
      Ast *guard = ag_if(c, s, ag_not(c, s, ag_name(c, s, b.var)));
      guard->body = orelse;
      ag_push(c, out, guard);
    }
    return;
  }
  case A_FUNCDEF:
  case A_CLASSDEF:
    visit_block(c, &s->body, NULL);
    break;
  default:
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) visit_block(c, b.cur, cur);
    break;
  }
  ag_push(c, out, s);
}

static void visit_block(AgCtx *c, AstList *l, Brk *cur) {
  AstList out = {0};
  for (int i = 0; i < l->n; i++)
    if (l->items[i]) visit_stmt(c, l->items[i], cur, &out);
  *l = out;
}

void ag_break(AgCtx *c, Ast *fn) { visit_block(c, &fn->body, NULL); }
