/* ag_control.c — AutoGraph pass: if/while/for become ag.if_stmt / ag.while_stmt / ag.for_stmt over nested functions.
 *
 *     if x > 0:                      def get_state():
 *         y = x                          return (y,)
 *     else:              ->
 *         y = -x                     def set_state(vars_):
 *                                        nonlocal y
 *                                        (y,) = vars_
 *
 *                                    def if_body():
 *                                        nonlocal y
 *                                        y = x
 *
 *                                    def else_body():
 *                                        nonlocal y
 *                                        y = -x
 *                                    y = ag.Undefined('y')
 *                                    ag.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('y',), 1)
 *
 *     while n > 1:        ->   get_state/set_state, def loop_body(): ..., def loop_test(): return n > 1,
 *         n = n - 1            ag.while_stmt(loop_test, loop_body, get_state, set_state, ('n',), {})
 *
 *     for i in r:         ->   get_state/set_state, def loop_body(itr): ... i = itr ...,
 *         s = s + i            [def extra_test(): ...], undefined assigns,
 *                              ag.for_stmt(r, None, loop_body, get_state, set_state, ('s',), {'iterate_names': 'i'})
 *
 * The state variables of a construct are the simple names it binds that are
 * live into it (read by the construct, or by a later iteration) or out of it,
 * or that the function declares nonlocal/global; those live out come first
 * (an if's nouts counts them), each group sorted by name.  Names the
 * construct binds that no path defines before it start as ag.Undefined.
 * Inner constructs are converted first, so they take the first helper
 * names (get_state, then get_state_1 for the construct around them), as in
 * AutoGraph.  The analysis runs once on the lowered code before any
 * rewrite; the records stay attached to the original statements. */
#include <stdlib.h>
#include <string.h>

#include "ag_int.h"
#include "unparse.h"

/* AutoGraph's parameter names for set_state (with and without state). */
#define STATE_PARAM "vars_"
#define EMPTY_STATE_PARAM "block_vars"

typedef struct Vars {
  const char **v;     /* state variables in output order: live-out first, then input-only */
  const Ast **expr;   /* per variable: the composite's expression (x[1], o.a), NULL for a simple name */
  int n, nouts;
  NameSet undefined;  /* sorted */
} Vars;

/* Composite names (AutoGraph's qual_names): items and attributes assigned in
 * a construct, named by their source text (`x[1]`, `d['k']`, `o.a`). */
typedef struct Composites {
  NameSet names;      /* sorted */
  const Ast **expr;   /* parallel to the order found, with found[] */
  const char **found;
  int n, cap;
} Composites;

/* x, x.a, x[1], x['k'], x[i], x[i].a[j]: chains over simple names and literals. */
static bool is_qual_name(const Ast *e) {
  if (!e) return false;
  switch (e->kind) {
  case A_NAME: return true;
  case A_ATTRIBUTE: return is_qual_name(e->value);
  case A_SUBSCRIPT:
    return is_qual_name(e->value) && e->slice &&
           ((e->slice->kind == A_CONSTANT && e->slice->const_kind != C_ELLIPSIS) || is_qual_name(e->slice));
  default: return false;
  }
}

/* The simple names a qualified name depends on (x and i for x[i]). */
static void qual_support(AgCtx *c, const Ast *e, NameSet *out) {
  if (!e) return;
  if (e->kind == A_NAME) activity_set_add(&c->scratch, out, e->name);
  else if (e->kind == A_ATTRIBUTE) qual_support(c, e->value, out);
  else if (e->kind == A_SUBSCRIPT) {
    qual_support(c, e->value, out);
    qual_support(c, e->slice, out);
  }
}

static void composite_target(AgCtx *c, const Ast *t, Composites *k) {
  if (!t) return;
  if (t->kind == A_TUPLE || t->kind == A_LIST) {
    for (int i = 0; i < t->elts.n; i++) composite_target(c, t->elts.items[i], k);
    return;
  }
  if (t->kind == A_STARRED) {
    composite_target(c, t->value, k);
    return;
  }
  if (t->kind == A_NAME || !is_qual_name(t)) return;
  char *text = unparse_expr(t);
  const char *name = arena_strdup(&c->scratch, text);
  free(text);
  if (activity_set_has(&k->names, name)) return;
  activity_set_add(&c->scratch, &k->names, name);
  if (k->n == k->cap) {
    int cap = k->cap ? k->cap * 2 : 8;
    const Ast **e = arena_alloc(&c->scratch, sizeof *e * (size_t)cap);
    const char **f = arena_alloc(&c->scratch, sizeof *f * (size_t)cap);
    if (k->n) {
      memcpy(e, k->expr, sizeof *e * (size_t)k->n);
      memcpy(f, k->found, sizeof *f * (size_t)k->n);
    }
    k->expr = e;
    k->found = f;
    k->cap = cap;
  }
  k->expr[k->n] = t;
  k->found[k->n++] = name;
}

/* Composite targets assigned anywhere in a block (nested definitions excluded). */
static void block_composites(AgCtx *c, const AstList *l, Composites *k) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s || s->kind == A_FUNCDEF || s->kind == A_CLASSDEF) continue;
    if (s->kind == A_ASSIGN)
      for (int j = 0; j < s->targets.n; j++) composite_target(c, s->targets.items[j], k);
    if (s->kind == A_AUGASSIGN) composite_target(c, s->target, k);
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) block_composites(c, b.cur, k);
  }
}

/* The composites a construct modifies, before its body is rewritten. */
static Composites construct_composites(AgCtx *c, const Ast *s) {
  Composites k = {0};
  block_composites(c, &s->body, &k);
  block_composites(c, &s->orelse, &k);
  return k;
}

static const Ast *composite_expr(const Composites *k, const char *name) {
  for (int i = 0; i < k->n; i++)
    if (!strcmp(k->found[i], name)) return k->expr[i];
  return NULL;
}

static const Ast *extra_test_of(void *ud, const Ast *loop) {
  AgLoop *l = ag_loop(ud, loop, false);
  return l ? l->extra_test : NULL;
}

/* AutoGraph's _get_block_vars. */
static Vars block_vars(AgCtx *c, const ActFunc *scope, const ActStmt *r, const Composites *k) {
  Arena *a = &c->scratch;
  Vars v = {0};
  NameSet modified = activity_names(a, r, ACT_MODIFIED), outs = {0}, ins = {0};
  /* a composite is state when the names it depends on are live into the
   * construct (an object created inside it is not); always an output */
  for (int i = 0; i < k->names.n; i++) {
    NameSet sup = {0};
    qual_support(c, composite_expr(k, k->names.v[i]), &sup);
    bool live = true;
    for (int j = 0; j < sup.n; j++)
      if (activity_tracks(r, sup.v[j]) && !activity_has(r, ACT_LIVE_IN, sup.v[j])) live = false;
    if (live) activity_set_add(a, &outs, k->names.v[i]);
  }
  for (int i = 0; i < modified.n; i++) {
    const char *s = modified.v[i];
    bool declared = activity_set_has(&scope->nonlocals, s) || activity_set_has(&scope->globals, s);
    bool in = activity_has(r, ACT_LIVE_IN, s), out = activity_has(r, ACT_LIVE_OUT, s);
    /* every name bound here that no path defines before starts as ag.Undefined, state or not */
    if (!activity_has(r, ACT_DEFINED_IN, s) && !declared) activity_set_add(a, &v.undefined, s);
    if (!in && !out && !declared) continue; /* local to the construct */
    if (in && !out) activity_set_add(a, &ins, s);
    else activity_set_add(a, &outs, s);
  }
  v.n = outs.n + ins.n;
  v.nouts = outs.n;
  v.v = arena_alloc(a, sizeof *v.v * (size_t)(v.n + 1));
  v.expr = arena_alloc(a, sizeof *v.expr * (size_t)(v.n + 1));
  for (int i = 0; i < outs.n; i++) v.v[i] = outs.v[i];
  for (int i = 0; i < ins.n; i++) v.v[outs.n + i] = ins.v[i];
  for (int i = 0; i < v.n; i++) v.expr[i] = composite_expr(k, v.v[i]);
  return v;
}

/* `global g` / `nonlocal a, b` for the state variables (fresh nodes for each helper). */
static void push_decls(AgCtx *c, const Ast *at, const ActFunc *scope, const Vars *v, AstList *out) {
  Ast *g = ast_new(c->arena, A_GLOBAL, at->line, at->col), *nl = ast_new(c->arena, A_NONLOCAL, at->line, at->col);
  for (int i = 0; i < v->n; i++)
    if (!v->expr[i])
      ag_push(c, activity_set_has(&scope->globals, v->v[i]) ? &g->names : &nl->names, ag_name(c, at, v->v[i]));
  if (g->names.n) ag_push(c, out, g);
  if (nl->names.n) ag_push(c, out, nl);
}

typedef enum TupleUse { NAMES_STR, NAMES_LOAD, NAMES_STORE } TupleUse;

/* ('x', 'y[1]') / (x, ag.ldu(lambda: y[1], 'y[1]')) / (x, y[1]): a composite
 * may not exist yet when the state is read (a key set in one branch). */
static Ast *names_tuple(AgCtx *c, const Ast *at, const Vars *v, TupleUse use) {
  Ast *t = ag_tuple(c, at);
  for (int i = 0; i < v->n; i++) {
    Ast *e;
    if (use == NAMES_STR) e = ag_str(c, at, v->v[i]);
    else if (!v->expr[i]) e = ag_name(c, at, v->v[i]);
    else if (use == NAMES_STORE) e = ag_copy(c->arena, v->expr[i]);
    else e = ag_rt(c, at, "ldu", 2, ag_lambda(c, at, ag_copy(c->arena, v->expr[i])), ag_str(c, at, v->v[i]));
    ag_push(c, &t->elts, e);
  }
  return t;
}

/* def get_state(): return (a, b)    def set_state(vars_): nonlocal a, b; (a, b) = vars_ */
static void push_state_functions(AgCtx *c, const Ast *at, const ActFunc *scope, const Vars *v, const char *getter,
                                 const char *setter, AstList *out) {
  Ast *get = ag_def(c, at, getter, NULL);
  ag_push(c, &get->body, ag_return_stmt(c, at, names_tuple(c, at, v, NAMES_LOAD)));
  ag_push(c, out, get);
  /* a user variable called vars_ would clash with the parameter (AutoGraph does not guard this) */
  const char *param = !v->n ? EMPTY_STATE_PARAM
                      : activity_set_has(&c->reserved, STATE_PARAM) ? ag_new_symbol(c, STATE_PARAM)
                                                                     : STATE_PARAM;
  Ast *set = ag_def(c, at, setter, param);
  if (v->n) {
    push_decls(c, at, scope, v, &set->body);
    ag_push(c, &set->body, ag_assign(c, at, names_tuple(c, at, v, NAMES_STORE), ag_name(c, at, param)));
  } else {
    ag_push(c, &set->body, ast_new(c->arena, A_PASS, at->line, at->col));
  }
  ag_push(c, out, set);
}

/* def name(param): <declarations> <prefix> <body or pass> */
static Ast *helper(AgCtx *c, const Ast *at, const char *name, const char *param, const ActFunc *scope, const Vars *v,
                   Ast *prefix, const AstList *body) {
  Ast *d = ag_def(c, at, name, param);
  push_decls(c, at, scope, v, &d->body);
  ag_push(c, &d->body, prefix);
  ag_push_all(c, &d->body, body);
  if (!prefix && !body->n) ag_push(c, &d->body, ast_new(c->arena, A_PASS, at->line, at->col));
  return d;
}

static void push_undefined(AgCtx *c, const Ast *at, const Vars *v, AstList *out) {
  for (int i = 0; i < v->undefined.n; i++) {
    const char *s = v->undefined.v[i];
    ag_push(c, out, ag_assign(c, at, ag_name(c, at, s), ag_rt(c, at, "Undefined", 1, ag_str(c, at, s))));
  }
}

static void emit_if(AgCtx *c, const ActFunc *scope, const ActStmt *r, const Composites *k, Ast *s, AstList *out) {
  Vars v = block_vars(c, scope, r, k);
  const char *getter = ag_new_symbol(c, "get_state"), *setter = ag_new_symbol(c, "set_state");
  push_state_functions(c, s, scope, &v, getter, setter, out);
  const char *body_name = ag_new_symbol(c, "if_body"), *else_name = ag_new_symbol(c, "else_body");
  ag_push(c, out, helper(c, s, body_name, NULL, scope, &v, NULL, &s->body));
  ag_push(c, out, helper(c, s, else_name, NULL, scope, &v, NULL, &s->orelse));
  push_undefined(c, s, &v, out);
  Ast *call = ag_rt(c, s, "if_stmt", 7, s->test, ag_name(c, s, body_name), ag_name(c, s, else_name),
                    ag_name(c, s, getter), ag_name(c, s, setter), names_tuple(c, s, &v, NAMES_STR), ag_int(c, s, v.nouts));
  ag_push(c, out, ag_expr_stmt(c, s, call));
}

/* The loop's options: its set_loop_options arguments, plus more keys for `for`. */
static Ast *loop_opts(AgCtx *c, const Ast *s) {
  AgLoop *info = ag_loop(c, s, false);
  if (info && info->opts) return info->opts;
  return ast_new(c->arena, A_DICT, s->line, s->col);
}

static void emit_while(AgCtx *c, const ActFunc *scope, const ActStmt *r, const Composites *k, Ast *s, AstList *out) {
  Vars v = block_vars(c, scope, r, k);
  const char *getter = ag_new_symbol(c, "get_state"), *setter = ag_new_symbol(c, "set_state");
  push_state_functions(c, s, scope, &v, getter, setter, out);
  const char *body_name = ag_new_symbol(c, "loop_body"), *test_name = ag_new_symbol(c, "loop_test");
  ag_push(c, out, helper(c, s, body_name, NULL, scope, &v, NULL, &s->body));
  Ast *test = ag_def(c, s, test_name, NULL);
  ag_push(c, &test->body, ag_return_stmt(c, s->test, s->test));
  ag_push(c, out, test);
  push_undefined(c, s, &v, out);
  Ast *call = ag_rt(c, s, "while_stmt", 6, ag_name(c, s, test_name), ag_name(c, s, body_name), ag_name(c, s, getter),
                    ag_name(c, s, setter), names_tuple(c, s, &v, NAMES_STR), loop_opts(c, s));
  ag_push(c, out, ag_expr_stmt(c, s, call));
}

static void emit_for(AgCtx *c, const ActFunc *scope, const ActStmt *r, const Composites *k, Ast *s, AstList *out) {
  Vars v = block_vars(c, scope, r, k);
  const char *getter = ag_new_symbol(c, "get_state"), *setter = ag_new_symbol(c, "set_state");
  push_state_functions(c, s, scope, &v, getter, setter, out);
  Ast *opts = loop_opts(c, s);
  char *iterates = unparse_expr(s->target);
  ag_push(c, &opts->keys, ag_str(c, s, "iterate_names"));
  ag_push(c, &opts->values, ag_str(c, s->target, iterates));
  free(iterates);
  AgLoop *info = ag_loop(c, s, false);
  Ast *extra_def = NULL, *extra_arg;
  if (info && info->extra_test) {
    const char *extra_name = ag_new_symbol(c, "extra_test");
    AstList ret = {0};
    ag_push(c, &ret, ag_return_stmt(c, s, info->extra_test));
    extra_def = helper(c, s, extra_name, NULL, scope, &v, NULL, &ret);
    extra_arg = ag_name(c, s, extra_name);
  } else {
    extra_arg = ag_const(c, s, C_NONE);
  }
  const char *itr = ag_new_symbol(c, "itr");
  const char *body_name = ag_new_symbol(c, "loop_body");
  Ast *unpack = ag_assign(c, s->target, s->target, ag_name(c, s->target, itr));
  ag_push(c, out, helper(c, s, body_name, itr, scope, &v, unpack, &s->body));
  ag_push(c, out, extra_def);
  push_undefined(c, s, &v, out);
  Ast *call = ag_rt(c, s, "for_stmt", 7, s->iter, extra_arg, ag_name(c, s, body_name), ag_name(c, s, getter),
                    ag_name(c, s, setter), names_tuple(c, s, &v, NAMES_STR), opts);
  ag_push(c, out, ag_expr_stmt(c, s, call));
}

static void convert_function(AgCtx *c, const Activity *act, Ast *fn);

static void convert_block(AgCtx *c, const Activity *act, const ActFunc *scope, AstList *l) {
  AstList out = {0};
  for (int i = 0; i < l->n; i++) {
    Ast *s = l->items[i];
    if (!s) continue;
    const ActStmt *r = activity_stmt(act, s);
    switch (s->kind) {
    case A_FUNCDEF: convert_function(c, act, s); break;
    case A_CLASSDEF: /* methods only: a class body is not a function scope */
      for (int j = 0; j < s->body.n; j++)
        if (s->body.items[j] && s->body.items[j]->kind == A_FUNCDEF) convert_function(c, act, s->body.items[j]);
      break;
    case A_IF: {
      Composites k = construct_composites(c, s);
      convert_block(c, act, scope, &s->body);
      convert_block(c, act, scope, &s->orelse);
      if (r) {
        emit_if(c, scope, r, &k, s, &out);
        continue;
      }
      break;
    }
    case A_WHILE:
    case A_FOR: {
      Composites k = construct_composites(c, s);
      convert_block(c, act, scope, &s->body);
      convert_block(c, act, scope, &s->orelse);
      if (r) {
        AstList lowered = {0};
        if (s->kind == A_WHILE) emit_while(c, scope, r, &k, s, &lowered);
        else emit_for(c, scope, r, &k, s, &lowered);
        ag_push_all(c, &out, &lowered);
        ag_push_all(c, &out, &s->orelse); /* only when break lowering did not run: it moves else blocks */
        continue;
      }
      break;
    }
    default:
      for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) convert_block(c, act, scope, b.cur);
      break;
    }
    ag_push(c, &out, s);
  }
  *l = out;
}

static void convert_function(AgCtx *c, const Activity *act, Ast *fn) {
  const ActFunc *scope = activity_func(act, fn);
  if (scope) convert_block(c, act, scope, &fn->body);
}

/* Analyze every function of the tree before rewriting any of it. */
static void analyze_all(Activity *act, const Ast *fn);

static void analyze_defs_in(Activity *act, const AstList *l) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s) continue;
    if (s->kind == A_FUNCDEF) {
      analyze_all(act, s);
      continue;
    }
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) analyze_defs_in(act, b.cur);
  }
}

static void analyze_all(Activity *act, const Ast *fn) {
  activity_analyze(act, fn);
  analyze_defs_in(act, &fn->body);
}

void ag_control(AgCtx *c, Ast *fn) {
  Activity *act = activity_new(&c->scratch, extra_test_of, c);
  analyze_all(act, fn);
  convert_function(c, act, fn);
}
