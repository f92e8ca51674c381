/* ag_return.c — AutoGraph passes: every function body runs in an ag__.FunctionScope; every `return` becomes two flag assignments and the function returns once, at the end.
 *
 *     def f(x):                          def f(x):
 *         if x > 0:                          with ag__.FunctionScope('f', 'fscope', ag__.ConversionOptions(...)) as fscope:
 *             return x                           do_return = False
 *         y = -x               ->                retval_ = ag__.UndefinedReturnValue()
 *         return y                               if x > 0:
 *                                                    try:
 *                                                        do_return = True
 *                                                        retval_ = x
 *                                                    except:
 *                                                        do_return = False
 *                                                        raise
 *                                                else:
 *                                                    ... (the same for `return y`)
 *                                                return fscope.ret(retval_, do_return)
 *
 * Two steps, as in AutoGraph.  First, statements after an `if` one of whose
 * branches always returns move into the other branch (so both branches
 * assign the return value).  Then each `return v` becomes
 * `do_return = True; retval_ = v` in TF's try/except (a failing `v` leaves
 * do_return False); the statements after it in every enclosing block move
 * under `if not do_return:`; loops that may return get `not do_return` in
 * their test (`while`) or extra test (`for`).  Every user function (not the
 * helpers later passes create) gets its scope, as TF's function_scopes
 * converter does first: `fscope` with the user's options for the converted
 * function, `fscope_1`, ... with the call options (user_requested=False) for
 * the ones nested in it.  Each function definition takes fresh names
 * (do_return, retval_, then do_return_1, retval__1 for the next one). */
#include "ag_int.h"

/* --- step 1: conditional returns --- */

static void rw_block(AgCtx *c, AstList *l, bool *returns);

/* Visit s; report whether it makes its block return (block_dr), and for an
 * `if`, whether its body or its else always returns. */
static void rw_stmt(AgCtx *c, Ast *s, bool *block_dr, bool *body_dr, bool *orelse_dr) {
  bool ignore;
  switch (s->kind) {
  case A_RETURN: *block_dr = true; break;
  case A_IF:
    rw_block(c, &s->body, body_dr);
    rw_block(c, &s->orelse, orelse_dr);
    if (*body_dr && *orelse_dr) *block_dr = true;
    break;
  case A_WITH: {
    bool d = false;
    rw_block(c, &s->body, &d);
    if (d) *block_dr = true;
    break;
  }
  default:
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) rw_block(c, b.cur, &ignore);
    break;
  }
}

static void rw_block(AgCtx *c, AstList *l, bool *returns) {
  bool dr = false, moved = false;
  AstList out = {0}, *dest = &out;
  for (int i = 0; i < l->n; i++) {
    Ast *s = l->items[i];
    if (!s) continue;
    bool body_dr = false, orelse_dr = false;
    if (dest == &out) rw_stmt(c, s, &dr, &body_dr, &orelse_dr);
    else moved = true;
    ag_push(c, dest, s);
    /* the rest of the block runs only on the path that did not return */
    if (dest == &out && s->kind == A_IF && body_dr) dest = &s->orelse;
    else if (dest == &out && s->kind == A_IF && orelse_dr) dest = &s->body;
  }
  *l = out;
  /* Statements moved into a branch were not analysed there: an `elif` (an
   * `if` at the end of that branch) must in turn move them into its own else.
   * Each pass moves statements deeper, so this ends. */
  if (moved) {
    rw_block(c, l, returns);
    return;
  }
  *returns = dr;
}

/* --- step 2: lowering --- */

typedef struct RFn {
  const char *fscope, *do_return, *retval;
  const Ast **last;    /* the last return in source order: the final ag.ret reports there */
} RFn;

typedef struct RBlk {
  struct RBlk *parent;
  bool is_function;    /* the function's own block: a return's effects stop here */
  bool return_used;    /* a return was seen in this block or below */
  bool guard_next;     /* the statement being visited returns: guard what follows */
  bool guard_now;      /* guard the next statement */
} RBlk;

static void ret_function(AgCtx *c, Ast *fn, bool top);
static void ret_block(AgCtx *c, AstList *l, const RFn *f, RBlk *parent);

static Ast *not_returned(AgCtx *c, const Ast *at, const RFn *f) { return ag_not(c, at, ag_name(c, at, f->do_return)); }

/* try: do_return = True; retval_ = v / except: do_return = False; raise */
static Ast *guarded_return(AgCtx *c, const Ast *s, const RFn *f) {
  Ast *t = ag_node(c, A_TRY, s);
  ag_push(c, &t->body, ag_assign(c, s, ag_name(c, s, f->do_return), ag_const(c, s, C_TRUE)));
  ag_push(c, &t->body, ag_assign(c, s, ag_name(c, s, f->retval), s->value ? s->value : ag_const(c, s, C_NONE)));
  Ast *h = ag_node(c, A_EXCEPTHANDLER, s);
  ag_push(c, &h->body, ag_assign(c, s, ag_name(c, s, f->do_return), ag_const(c, s, C_FALSE)));
  ag_push(c, &h->body, ag_node(c, A_RAISE, s));
  ag_push(c, &t->handlers, h);
  return t;
}

static void ret_stmt(AgCtx *c, Ast *s, const RFn *f, RBlk *blk, AstList *out) {
  switch (s->kind) {
  case A_RETURN:
    if (!f) break; /* outside a function: the parser has reported it */
    for (RBlk *k = blk; k; k = k->parent) {
      k->return_used = true;
      k->guard_next = true;
      if (k->is_function) break;
    }
    *f->last = s;
    ag_push(c, out, guarded_return(c, s, f));
    return;
  case A_WHILE:
    ret_block(c, &s->body, f, blk);
    if (blk->return_used) s->test = ag_and(c, s->test, not_returned(c, s, f), s->test);
    ret_block(c, &s->orelse, f, blk);
    break;
  case A_FOR:
    ret_block(c, &s->body, f, blk);
    if (blk->return_used) {
      AgLoop *info = ag_loop(c, s, true);
      info->extra_test = info->extra_test ? ag_and(c, s, not_returned(c, s, f), info->extra_test) : not_returned(c, s, f);
    }
    ret_block(c, &s->orelse, f, blk);
    break;
  case A_FUNCDEF: ret_function(c, s, false); break;
  case A_CLASSDEF: ret_block(c, &s->body, NULL, NULL); break;
  default:
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) ret_block(c, b.cur, f, blk);
    break;
  }
  ag_push(c, out, s);
}

static void ret_block(AgCtx *c, AstList *l, const RFn *f, RBlk *parent) {
  RBlk b = {parent, false, false, false, false};
  AstList out = {0}, *dest = &out;
  for (int i = 0; i < l->n; i++) {
    Ast *s = l->items[i];
    if (!s) continue;
    AstList repl = {0};
    ret_stmt(c, s, f, &b, &repl);
    if (!b.return_used) {
      ag_push_all(c, dest, &repl);
      continue;
    }
    if (b.guard_now) {
      Ast *g = ag_if(c, s, not_returned(c, s, f));
      g->body = repl;
      ag_push(c, dest, g);
      dest = &g->body;
    } else {
      ag_push_all(c, dest, &repl);
    }
    b.guard_now = b.guard_next;
    b.guard_next = false;
  }
  *l = out;
}

static bool is_docstring(const Ast *s) {
  return s && s->kind == A_EXPR && s->value && s->value->kind == A_CONSTANT && s->value->const_kind == C_STR;
}

static Ast *kw(AgCtx *c, const Ast *at, const char *name, Ast *value) {
  Ast *k = ag_node(c, A_KEYWORD, at);
  k->name = arena_strdup(c->arena, name);
  k->value = value;
  return k;
}

/* with ag__.FunctionScope('NAME', 'fscope', ag__.ConversionOptions(...)) as fscope: (body empty) */
static Ast *function_scope(AgCtx *c, const Ast *fn, const char *fscope, bool top) {
  Ast *opts = ag_rt(c, fn, "ConversionOptions", 0);
  ag_push(c, &opts->keywords, kw(c, fn, "recursive", ag_const(c, fn, C_TRUE)));
  ag_push(c, &opts->keywords, kw(c, fn, "user_requested", ag_const(c, fn, top ? C_TRUE : C_FALSE)));
  ag_push(c, &opts->keywords, kw(c, fn, "optional_features", ag_tuple(c, fn)));
  ag_push(c, &opts->keywords, kw(c, fn, "internal_convert_user_code", ag_const(c, fn, C_TRUE)));
  Ast *item = ag_node(c, A_WITHITEM, fn);
  item->context_expr = ag_rt(c, fn, "FunctionScope", 3, ag_str(c, fn, fn->name ? fn->name : ""), ag_str(c, fn, fscope), opts);
  item->optional_vars = ag_name(c, fn, fscope);
  Ast *w = ag_node(c, A_WITH, fn);
  ag_push(c, &w->items, item);
  return w;
}

static void ret_function(AgCtx *c, Ast *fn, bool top) {
  const Ast *last = fn;
  const char *fscope = ag_new_symbol(c, "fscope");
  RFn f = {fscope, ag_new_symbol(c, "do_return"), ag_new_symbol(c, "retval_"), &last};
  RBlk fb = {NULL, true, false, false, false};
  ret_block(c, &fn->body, &f, &fb);
  AstList body = {0};
  int first = 0;
  if (fn->body.n && is_docstring(fn->body.items[0])) ag_push(c, &body, fn->body.items[first++]);
  Ast *w = function_scope(c, fn, fscope, top);
  ag_push(c, &body, w);
  if (fb.return_used) {
    ag_push(c, &w->body, ag_assign(c, fn, ag_name(c, fn, f.do_return), ag_const(c, fn, C_FALSE)));
    ag_push(c, &w->body, ag_assign(c, fn, ag_name(c, fn, f.retval), ag_rt(c, fn, "UndefinedReturnValue", 0)));
  }
  for (int i = first; i < fn->body.n; i++) ag_push(c, &w->body, fn->body.items[i]);
  /* located at the last user return: reading an undefined result fails there */
  if (fb.return_used) {
    Ast *ret = ag_node(c, A_ATTRIBUTE, last);
    ret->value = ag_name(c, last, fscope);
    ret->name = arena_strdup(c->arena, "ret");
    ag_push(c, &w->body, ag_return_stmt(c, last, ag_call(c, last, ret, 2, ag_name(c, last, f.retval),
                                                         ag_name(c, last, f.do_return))));
  }
  if (!w->body.n) ag_push(c, &w->body, ag_node(c, A_PASS, fn));
  fn->body = body;
}

void ag_return(AgCtx *c, Ast *fn) {
  bool ignore;
  rw_block(c, &fn->body, &ignore);
  ret_function(c, fn, true);
}
