/* ag_directives.c — AutoGraph pass: loop directives become loop options.
 *
 *     while n > 0:                                       while n > 0:
 *         tf.autograph.experimental.set_loop_options(     ->      n = n - 1
 *             maximum_iterations=10)                     (and the loop gets the options
 *         n = n - 1                                       {'maximum_iterations': 10})
 *
 * The directive must be the first statement of a loop body; anywhere else
 * it is an error, as in AutoGraph.  A body left empty gets `pass`. */
#include <string.h>

#include "ag_int.h"

/* set_loop_options' parameters, in order (positional arguments map to them). */
static const char *const loop_params[] = {"parallel_iterations", "swap_memory", "maximum_iterations", "shape_invariants"};
#define NPARAMS (int)(sizeof loop_params / sizeof *loop_params)

/* Whether e spells tf.autograph.experimental.set_loop_options. */
static bool is_set_loop_options(const Ast *e) {
  static const char *const path[] = {"set_loop_options", "experimental", "autograph"};
  for (int i = 0; i < 3; i++) {
    if (!e || e->kind != A_ATTRIBUTE || !e->name || strcmp(e->name, path[i]) != 0) return false;
    e = e->value;
  }
  return e && e->kind == A_NAME && e->name && strcmp(e->name, "tf") == 0;
}

static bool is_directive(const Ast *s) {
  return s && s->kind == A_EXPR && s->value && s->value->kind == A_CALL && is_set_loop_options(s->value->func);
}

/* The directive's arguments as {'name': value, ...}: positional ones first, then keywords as written. */
static Ast *options_dict(AgCtx *c, const Ast *call) {
  Ast *d = ast_new(c->arena, A_DICT, call->line, call->col);
  bool given[NPARAMS] = {0};
  for (int i = 0; i < call->args.n; i++) {
    const Ast *v = call->args.items[i];
    if (i >= NPARAMS || (v && v->kind == A_STARRED)) {
      ag_error(c, v ? v : call, "set_loop_options() takes at most %d positional arguments", NPARAMS);
      break;
    }
    given[i] = true;
    ag_push(c, &d->keys, ag_str(c, v, loop_params[i]));
    ag_push(c, &d->values, (Ast *)v);
  }
  for (int i = 0; i < call->keywords.n; i++) {
    const Ast *k = call->keywords.items[i];
    if (!k) continue;
    int p = -1;
    for (int j = 0; j < NPARAMS && k->name; j++)
      if (strcmp(k->name, loop_params[j]) == 0) p = j;
    if (p < 0) {
      ag_error(c, k, k->name ? "set_loop_options() got an unexpected keyword argument '%s'"
                             : "set_loop_options() does not take **kwargs%s", k->name ? k->name : "");
      continue;
    }
    if (given[p]) {
      ag_error(c, k, "set_loop_options() got multiple values for argument '%s'", k->name);
      continue;
    }
    given[p] = true;
    ag_push(c, &d->keys, ag_str(c, k, k->name));
    ag_push(c, &d->values, k->value);
  }
  return d;
}

static void visit_block(AgCtx *c, AstList *l, bool in_loop);

static void visit_stmt(AgCtx *c, Ast *s, bool in_loop) {
  switch (s->kind) {
  case A_WHILE:
  case A_FOR:
    if (s->body.n && is_directive(s->body.items[0])) {
      AgLoop *info = ag_loop(c, s, true);
      info->opts = options_dict(c, s->body.items[0]->value);
      memmove(s->body.items, s->body.items + 1, sizeof *s->body.items * (size_t)(s->body.n - 1));
      s->body.n--;
      if (!s->body.n) ag_push(c, &s->body, ast_new(c->arena, A_PASS, s->line, s->col));
    }
    visit_block(c, &s->body, true);
    visit_block(c, &s->orelse, in_loop);
    break;
  case A_FUNCDEF:
  case A_CLASSDEF: visit_block(c, &s->body, false); break;
  default:
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) visit_block(c, b.cur, in_loop);
    break;
  }
}

static void visit_block(AgCtx *c, AstList *l, bool in_loop) {
  for (int i = 0; i < l->n; i++) {
    Ast *s = l->items[i];
    if (!s) continue;
    if (is_directive(s))
      ag_error(c, s,
               in_loop ? "\"set_loop_options\" must be the first statement in the loop block"
                       : "\"set_loop_options\" must be used inside a statement");
    visit_stmt(c, s, in_loop);
  }
}

void ag_directives(AgCtx *c, Ast *fn) { visit_block(c, &fn->body, false); }
