/* ag_continue.c — AutoGraph pass: `continue` becomes a flag variable that guards the rest of the iteration.
 *
 *     for c in items:                   for c in items:
 *         if c % 2 > 0:                     continue_ = False
 *             continue         ->           if c % 2 > 0:
 *         s += c                                continue_ = True
 *                                           if not continue_:
 *                                               s += c
 *
 * After a statement that may continue, the following statements of every
 * enclosing block up to the loop body move under `if not continue_:`.
 * Runs after the break pass, whose `continue`s it lowers as well.  The flag
 * is named once per loop that continues, in source order: continue_,
 * continue__1, ... */
#include "ag_int.h"

typedef struct Cont {
  const char *var;   /* this loop's flag */
  bool used;         /* a continue was seen: later statements may need guards */
} Cont;

typedef struct Blk {
  struct Blk *parent;
  bool is_loop;          /* a loop body: a continue's guards stop here */
  bool guard_current;    /* wrap the next statement of this block */
  bool guard_next;       /* set by a continue inside the statement being visited */
} Blk;

static bool has_own_continue(const AstList *l) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s) continue;
    switch (s->kind) {
    case A_CONTINUE: return true;
    case A_IF:
    case A_WITH:
    case A_TRY:
      for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);)
        if (has_own_continue(b.cur)) return true;
      break;
    case A_WHILE:
    case A_FOR: /* an else block continues this loop */
      if (has_own_continue(&s->orelse)) return true;
      break;
    default: break;
    }
  }
  return false;
}

static void visit_block(AgCtx *c, AstList *l, Cont *cur, Blk *parent, bool is_loop);

static void visit_stmt(AgCtx *c, Ast *s, Cont *cur, Blk *blk, AstList *out) {
  switch (s->kind) {
  case A_CONTINUE:
    if (!cur || !cur->var) {
      ag_push(c, out, s);
      return;
    }
    cur->used = true;
    for (Blk *k = blk; k; k = k->parent) {
      k->guard_next = true;
      if (k->is_loop) break;
    }
    ag_push(c, out, ag_assign(c, s, ag_name(c, s, cur->var), ag_const(c, s, C_TRUE)));
    return;
  case A_WHILE:
  case A_FOR: {
    Cont n = {0};
    if (has_own_continue(&s->body)) n.var = ag_new_symbol(c, "continue_");
    visit_block(c, &s->body, &n, NULL, true);
    if (n.used) {
      AstList body = {0};
      ag_push(c, &body, ag_assign(c, s, ag_name(c, s, n.var), ag_const(c, s, C_FALSE)));
      ag_push_all(c, &body, &s->body);
      s->body = body;
    }
    visit_block(c, &s->orelse, cur, blk, false); /* an else block continues the enclosing loop */
    break;
  }
  case A_FUNCDEF:
  case A_CLASSDEF: visit_block(c, &s->body, NULL, NULL, false); break;
  default:
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) visit_block(c, b.cur, cur, blk, false);
    break;
  }
  ag_push(c, out, s);
}

static void visit_block(AgCtx *c, AstList *l, Cont *cur, Blk *parent, bool is_loop) {
  Blk b = {parent, is_loop, false, false};
  AstList out = {0}, *dest = &out;
  for (int i = 0; i < l->n; i++) {
    Ast *s = l->items[i];
    if (!s) continue;
    AstList repl = {0};
    visit_stmt(c, s, cur, &b, &repl);
    if (cur && cur->used) {
      bool wrap = b.guard_current;
      b.guard_current = b.guard_next;
      b.guard_next = false;
      if (wrap) {
        /* this statement and everything after it in the block */
        Ast *g = ag_if(c, s, ag_not(c, s, ag_name(c, s, cur->var)));
        g->body = repl;
        ag_push(c, dest, g);
        dest = &g->body;
        continue;
      }
    }
    ag_push_all(c, dest, &repl);
  }
  *l = out;
}

void ag_continue(AgCtx *c, Ast *fn) { visit_block(c, &fn->body, NULL, NULL, false); }
