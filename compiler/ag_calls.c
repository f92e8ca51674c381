/* ag_calls.c — AutoGraph passes call_trees and variables: user calls become ag__.converted_call, user name reads ag__.ld.
 *
 * As in TF, these apply to the user's own code only, not to what the other
 * passes generate (get_state's tuple, fscope.ret(...), the ag__ calls): the
 * nodes are recorded before any pass runs (ag_calls_mark) and rewritten
 * after the last (ag_calls).  As TF's call_trees: a call of `print`, of
 * `super` or of the ag/ag__ module stays a plain call; every other call,
 * builtins included, becomes `ag__.converted_call(f, args, {kwargs} or None,
 * fscope)` with the innermost user function's scope, where `*a` arguments
 * join the positional tuple as `tuple(a)` and `**k` makes the keywords
 * `dict(..., **k)`, as TF prints them.  Every name read becomes
 * `ag__.ld(name)`; names in assignment, `for`, `del`, `with ... as` and
 * comprehension targets are left alone.  As TF's variables converter,
 * `del x` becomes `x = ag__.Undefined('x')` (a composite such as `del
 * x[0]` stays a del); as its functions converter, a function or lambda
 * defined inside the converted one is marked converted already:
 * `@ag__.autograph_artifact` / `ag__.autograph_artifact(lambda ...)`. */
#include <string.h>

#include "ag_int.h"
#include "object/object.h"

/* --- marking the user's nodes --- */

static void mark_store(const Ast *n, void *ud) {
  AgCtx *c = ud;
  if (n->kind == A_NAME) ag_ptr_add(&c->scratch, &c->stores, n);
}

static void store_target(AgCtx *c, const Ast *t) { ag_visit(t, mark_store, c); }

static void mark(const Ast *n, void *ud) {
  AgCtx *c = ud;
  switch (n->kind) {
  case A_NAME:
  case A_CALL:
  case A_FUNCDEF:
  case A_LAMBDA: ag_ptr_add(&c->scratch, &c->user, n); break;
  case A_DELETE: ag_ptr_add(&c->scratch, &c->user, n); /* fall through */
  case A_ASSIGN:
    for (int i = 0; i < n->targets.n; i++) store_target(c, n->targets.items[i]);
    break;
  case A_AUGASSIGN:
  case A_FOR:
  case A_COMPREHENSION: store_target(c, n->target); break;
  case A_WITHITEM: store_target(c, n->optional_vars); break;
  case A_GLOBAL:
  case A_NONLOCAL:
    for (int i = 0; i < n->names.n; i++) store_target(c, n->names.items[i]);
    break;
  default: break;
  }
}

void ag_calls_mark(AgCtx *c, const Ast *fn) { ag_visit(fn, mark, c); }

/* --- the rewrite --- */

static bool is_ag_module(const Ast *e) {
  return e && e->kind == A_NAME && e->name && (!strcmp(e->name, "ag") || !strcmp(e->name, "ag__"));
}

/* Calls that stay plain: print, as TF leaves it unless the BUILTIN_FUNCTIONS
 * optional feature is on (ConversionOptions here has none), and super(),
 * whose zero-argument form needs the calling method's class. */
static bool stays_plain(const Ast *f) {
  return f && f->kind == A_NAME && f->name && (!strcmp(f->name, "print") || !strcmp(f->name, "super"));
}

/* A call to a builtin function by name (the callee, as TF, is read with ag__.ld but not for super). */
static bool is_builtin_name(const Ast *f) {
  if (!f || f->kind != A_NAME || !f->name || !strcmp(f->name, "tf")) return false;
  Val v = builtins_lookup(f->name);
  bool ok = !val_is_undef(v);
  val_decref(v);
  return ok;
}

/* TF's positional argument tuple: runs of plain arguments as tuples and each
 * `*a` as tuple(a), added together: f(x, *a) -> ((x,) + tuple(a)). */
static Ast *join(AgCtx *c, Ast *call, Ast *acc, Ast *part) {
  if (!acc) return part;
  Ast *b = ag_node(c, A_BINOP, call);
  b->op = BIN_ADD;
  b->left = acc;
  b->right = part;
  return b;
}

static Ast *args_tuple(AgCtx *c, Ast *call) {
  Ast *acc = NULL, *run = NULL;
  for (int i = 0; i <= call->args.n; i++) {
    Ast *a = i < call->args.n ? call->args.items[i] : NULL;
    if (a && a->kind != A_STARRED) {
      if (!run) run = ag_tuple(c, call);
      ag_push(c, &run->elts, a);
      continue;
    }
    if (run) acc = join(c, call, acc, run);
    run = NULL;
    if (a) acc = join(c, call, acc, ag_call(c, a, ag_name(c, a, "tuple"), 1, a->value));
  }
  return acc ? acc : ag_tuple(c, call);
}

/* Keyword arguments: {'k': v} (as TF's to_code prints them), or TF's dict(k=v, **m) when a `**m` is present. */
static Ast *kwargs_of(AgCtx *c, Ast *call) {
  if (!call->keywords.n) return ag_const(c, call, C_NONE);
  bool star = false;
  for (int i = 0; i < call->keywords.n; i++)
    if (!call->keywords.items[i]->name) star = true;
  if (star) {
    Ast *d = ag_call(c, call, ag_name(c, call, "dict"), 0);
    d->keywords = call->keywords;
    return d;
  }
  Ast *kwargs = ag_node(c, A_DICT, call);
  for (int i = 0; i < call->keywords.n; i++) {
    ag_push(c, &kwargs->keys, ag_str(c, call->keywords.items[i], call->keywords.items[i]->name));
    ag_push(c, &kwargs->values, call->keywords.items[i]->value);
  }
  return kwargs;
}

/* The scope name of a function the return pass wrapped (NULL: a generated helper). */
static const char *scope_of(const Ast *fn) {
  for (int i = 0; i < fn->body.n && i < 2; i++) {
    const Ast *w = fn->body.items[i];
    if (w && w->kind == A_WITH && w->items.n == 1 && w->items.items[0] &&
        ag_is_rt_call(w->items.items[0]->context_expr, "FunctionScope") && w->items.items[0]->optional_vars)
      return w->items.items[0]->optional_vars->name;
  }
  return NULL;
}

static Ast *xf(AgCtx *c, Ast *n, const char *fscope);
static const Ast *xf_top;      /* the function being converted (its own definition is not an artifact) */

/* del of names: one `x = ag__.Undefined('x')` per name, then a del of what remains. */
static void expand_del(AgCtx *c, AstList *out, Ast *d) {
  Ast *rest = NULL;
  for (int j = 0; j < d->targets.n; j++) {
    Ast *t = d->targets.items[j];
    if (t && t->kind == A_NAME) {
      ag_push(c, out, ag_assign(c, d, t, ag_rt(c, d, "Undefined", 1, ag_str(c, t, t->name))));
      continue;
    }
    if (!rest) rest = ag_node(c, A_DELETE, d);
    ag_push(c, &rest->targets, t);
  }
  if (rest) ag_push(c, out, rest);
}

static void xf_list(AgCtx *c, AstList *l, const char *fscope) {
  bool dels = false;
  for (int i = 0; i < l->n; i++) {
    l->items[i] = xf(c, l->items[i], fscope);
    if (l->items[i] && l->items[i]->kind == A_DELETE && fscope && ag_ptr_has(&c->user, l->items[i])) dels = true;
  }
  if (!dels) return;
  AstList out = {0};
  for (int i = 0; i < l->n; i++) {
    Ast *s = l->items[i];
    if (s && s->kind == A_DELETE && ag_ptr_has(&c->user, s)) expand_del(c, &out, s);
    else ag_push(c, &out, s);
  }
  *l = out;
}

static Ast *xf(AgCtx *c, Ast *n, const char *fscope) {
  if (!n) return NULL;
  if (n->kind == A_NAME) {
    if (!ag_ptr_has(&c->user, n) || ag_ptr_has(&c->stores, n) || is_ag_module(n)) return n;
    return ag_rt(c, n, "ld", 1, n);
  }
  bool artifact = (n->kind == A_FUNCDEF || n->kind == A_LAMBDA) && n != xf_top && fscope && ag_ptr_has(&c->user, n);
  if (n->kind == A_FUNCDEF) {
    const char *own = scope_of(n);
    if (own) fscope = own;
  }
  bool convert = n->kind == A_CALL && fscope && ag_ptr_has(&c->user, n) && !stays_plain(n->func) &&
                 !(n->func && n->func->kind == A_ATTRIBUTE && is_ag_module(n->func->value));
  /* outside a converted function's scope a builtin's name stays bare; super is never read through ld */
  bool plain_func = n->kind == A_CALL && !convert && is_builtin_name(n->func) && (!fscope || !strcmp(n->func->name, "super"));
  if (n->kind == A_CALL && !plain_func) n->func = xf(c, n->func, fscope);
  AST_FOR_FIELDS(f, n, AF_PTR_MASK & ~AF_BIT(func)) {
    Ast **p = ast_ptr_field(n, f);
    *p = xf(c, *p, fscope);
  }
  AST_FOR_FIELDS(f, n, AF_LIST_MASK & ~AF_BIT(decorators)) xf_list(c, ast_list_field(n, f), fscope);
  if (artifact && n->kind == A_LAMBDA) return ag_rt(c, n, "autograph_artifact", 1, n);
  if (artifact) {
    Ast *d = ag_node(c, A_ATTRIBUTE, n);
    d->value = ag_name(c, n, "ag__");
    d->name = arena_strdup(c->arena, "autograph_artifact");
    ag_push(c, &n->decorators, d);
  }
  if (!convert) return n;
  return ag_rt(c, n, "converted_call", 4, n->func, args_tuple(c, n), kwargs_of(c, n), ag_name(c, n, fscope));
}

void ag_calls(AgCtx *c, Ast *fn) {
  xf_top = fn;
  xf(c, fn, NULL);
  xf_top = NULL;
}
