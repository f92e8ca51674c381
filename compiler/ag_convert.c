/* ag_convert.c — AutoGraph entry points: copy a function, check it, run the passes in AutoGraph's order; whole modules.
 *
 * Pass order (AutoGraph's): directives, break, assert, continue, return,
 * control flow, conditional expressions, logical expressions, then call trees
 * and variables on the user's own nodes (function scopes come with return).  Lowering
 * break/continue/return first leaves only if/while/for for the control-flow
 * pass; the expression passes run last, so they also convert the tests
 * the lowering introduced (`not do_return` -> `ag.not_(do_return)`). */
#include <string.h>

#include "ag_int.h"

/* --- already converted? --- */

static void find_rt_call(const Ast *n, void *ud) {
  if (ag_is_rt_call(n, NULL)) *(bool *)ud = true;
}

bool ag_is_converted(const Ast *fn) {
  bool found = false;
  ag_visit(fn, find_rt_call, &found);
  return found;
}

/* --- generators --- */

/* Does n yield, outside the functions and classes nested in it? */
static bool yields_in(const Ast *n) {
  if (!n) return false;
  if (n->kind == A_YIELD || n->kind == A_YIELDFROM) return true;
  if (n->kind == A_FUNCDEF || n->kind == A_LAMBDA || n->kind == A_CLASSDEF) return false;
  AST_FOR_FIELDS(f, n, AF_PTR_MASK) {
    if (yields_in(*ast_ptr_field(n, f))) return true;
  }
  AST_FOR_FIELDS(f, n, AF_LIST_MASK) {
    const AstList *l = ast_list_field(n, f);
    for (int i = 0; i < l->n; i++)
      if (yields_in(l->items[i])) return true;
  }
  return false;
}

/* A generator function is not converted: its body runs as written, also
 * while a tf.function traces (a Python loop over a generator unrolls at
 * trace time, as in TF), so its yields stay in its own body. */
static bool is_generator(const Ast *fn) {
  if (!fn || fn->kind != A_FUNCDEF) return false;
  for (int i = 0; i < fn->body.n; i++)
    if (yields_in(fn->body.items[i])) return true;
  return false;
}

/* Generator functions nested in a function being converted stay as they
 * are: each is set aside behind a placeholder statement while the passes
 * run, then put back where the placeholder ended up. */
typedef struct Aside { Arena *out; Ast **holder, **orig; int n, cap; } Aside;

static void set_aside(Arena *a, AstList *l, Aside *as) {
  for (int i = 0; i < l->n; i++) {
    Ast *s = l->items[i];
    if (!s) continue;
    if (s->kind == A_FUNCDEF && is_generator(s)) {
      if (as->n == as->cap) {
        int cap = as->cap ? as->cap * 2 : 4;
        Ast **h = arena_alloc(a, sizeof *h * (size_t)cap), **o = arena_alloc(a, sizeof *o * (size_t)cap);
        if (as->n) {
          memcpy(h, as->holder, sizeof *h * (size_t)as->n);
          memcpy(o, as->orig, sizeof *o * (size_t)as->n);
        }
        as->holder = h, as->orig = o, as->cap = cap;
      }
      Ast *pass = ast_new(as->out, A_PASS, s->line, s->col);   /* in the output's arena: it could outlive the passes */
      as->holder[as->n] = pass;
      as->orig[as->n++] = s;
      l->items[i] = pass;
      continue;
    }
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) set_aside(a, b.cur, as);
  }
}

static void put_back(Ast *n, const Aside *as) {
  if (!n) return;
  AST_FOR_FIELDS(f, n, AF_PTR_MASK) { put_back(*ast_ptr_field(n, f), as); }
  AST_FOR_FIELDS(f, n, AF_LIST_MASK) {
    AstList *l = ast_list_field(n, f);
    for (int i = 0; i < l->n; i++) {
      int k = 0;
      while (k < as->n && as->holder[k] != l->items[i]) k++;
      if (k < as->n) l->items[i] = as->orig[k];
      else put_back(l->items[i], as);
    }
  }
}

/* --- static checks --- */

/* The binding scopes of the functions around the one being checked. */
typedef struct Scope {
  const struct Scope *up;
  NameSet locals, nonlocals;
} Scope;

static void nonlocal_stmts(AgCtx *c, const AstList *l, const Scope *up);
static void check_function(AgCtx *c, const Ast *fn, const Scope *up);

/* Names a function body declares global (into outer) or nonlocal (into both). */
static void declarations(AgCtx *c, const AstList *l, NameSet *outer, NameSet *nonlocals) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s || s->kind == A_FUNCDEF || s->kind == A_CLASSDEF) continue;
    if (s->kind == A_GLOBAL || s->kind == A_NONLOCAL)
      for (int j = 0; j < s->names.n; j++) {
        if (!s->names.items[j]) continue;
        activity_set_add(&c->scratch, outer, s->names.items[j]->name);
        if (s->kind == A_NONLOCAL) activity_set_add(&c->scratch, nonlocals, s->names.items[j]->name);
      }
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) declarations(c, b.cur, outer, nonlocals);
  }
}

/* Check the definitions nested in a block (methods of classes included: a class body is not a scope for them). */
static void check_nested(AgCtx *c, const AstList *l, const Scope *me) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s) continue;
    if (s->kind == A_FUNCDEF) {
      check_function(c, s, me);
      continue;
    }
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) check_nested(c, b.cur, me);
  }
}

static void check_function(AgCtx *c, const Ast *fn, const Scope *up) {
  Arena *a = &c->scratch;
  Scope me = {up, {0}, {0}};
  NameSet bound = {0}, outer = {0};
  for (int i = 0; i < fn->body.n; i++) activity_stmt_binds(a, fn->body.items[i], &bound);
  for (int i = 0; i < fn->args.n; i++)
    if (fn->args.items[i]) activity_set_add(a, &bound, fn->args.items[i]->name);
  declarations(c, &fn->body, &outer, &me.nonlocals);
  for (int i = 0; i < bound.n; i++)
    if (!activity_set_has(&outer, bound.v[i])) activity_set_add(a, &me.locals, bound.v[i]);
  /* this function's own `nonlocal`s resolve in the functions around it */
  nonlocal_stmts(c, &fn->body, up);
  check_nested(c, &fn->body, &me);
}

/* Report `nonlocal x` statements of one function body whose x no enclosing function binds. */
static void nonlocal_stmts(AgCtx *c, const AstList *l, const Scope *up) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s || s->kind == A_FUNCDEF || s->kind == A_CLASSDEF) continue;
    if (s->kind == A_NONLOCAL)
      for (int j = 0; j < s->names.n; j++) {
        const Ast *n = s->names.items[j];
        if (!n || !n->name) continue;
        bool found = false;
        for (const Scope *k = up; k && !found; k = k->up)
          found = activity_set_has(&k->locals, n->name) || activity_set_has(&k->nonlocals, n->name);
        if (!found) ag_error(c, s, "no binding for nonlocal '%s' found", n->name);
      }
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) nonlocal_stmts(c, b.cur, up);
  }
}

/* --- conversion --- */

static void reserve_names(const Ast *n, void *ud) {
  AgCtx *c = ud;
  if (ast_has(n, AF_name) && n->name) activity_set_add(&c->scratch, &c->reserved, n->name);
  if (ast_has(n, AF_asname) && n->asname) activity_set_add(&c->scratch, &c->reserved, n->asname);
}

/* unknown_outside: fn may be nested in functions we do not see, so its `nonlocal`s cannot be checked. */
static Ast *convert(Arena *arena, const Ast *fn, const char *path, const char *source, DiagList *diags,
                    bool unknown_outside) {
  if (!fn || fn->kind != A_FUNCDEF) return NULL;
  Ast *out = ag_copy(arena, fn);
  if (ag_is_converted(fn)) return out;
  AgCtx c = {0};
  c.arena = arena;
  arena_init(&c.scratch);
  c.path = path;
  c.source = source;
  c.diags = diags;
  ag_visit(out, reserve_names, &c);
  Aside aside = {arena, NULL, NULL, 0, 0};
  set_aside(&c.scratch, &out->body, &aside);
  if (!unknown_outside) check_function(&c, out, NULL);
  ag_calls_mark(&c, out);
  ag_directives(&c, out);
  ag_break(&c, out);
  ag_assert(&c, out);
  ag_continue(&c, out);
  ag_return(&c, out);
  ag_control(&c, out);
  ag_ifexp(&c, out);
  ag_logical(&c, out);
  ag_calls(&c, out);
  if (aside.n) put_back(out, &aside);
  arena_free(&c.scratch);
  return out;
}

Ast *ag_convert_function(Arena *arena, const Ast *fn, const char *path, const char *source, DiagList *diags) {
  return convert(arena, fn, path, source, diags, true);
}

/* A function left unconverted: `name = None` keeps the name bound in the
 * converted module (its scopes resolve converted code's globals), and the
 * code generator makes no twin for it. */
static Ast *unconverted(Arena *arena, const Ast *fn) {
  Ast *name = ast_new(arena, A_NAME, fn->line, fn->col);
  name->name = arena_strdup(arena, fn->name);
  Ast *none = ast_new(arena, A_CONSTANT, fn->line, fn->col);
  none->const_kind = C_NONE;
  Ast *as = ast_new(arena, A_ASSIGN, fn->line, fn->col);
  ast_list_push(arena, &as->targets, name);
  as->value = none;
  return as;
}

/* Replace, in a copy of module statements, every function definition by its
 * conversion (only those in `only`, methods always, when only is not NULL). */
static void convert_defs(Arena *arena, const AstList *orig, AstList *copy, const char *path, const char *source,
                         DiagList *diags, const AgPtrSet *only, bool in_class) {
  for (int i = 0; i < orig->n && i < copy->n; i++) {
    const Ast *s = orig->items[i];
    Ast *t = copy->items[i];
    if (!s || !t) continue;
    if (s->kind == A_FUNCDEF) {
      bool wanted = in_class || !only || ag_ptr_has(only, s);
      /* a generator function's twin is its own copy, unconverted */
      copy->items[i] = !wanted ? unconverted(arena, s) : is_generator(s) ? ag_copy(arena, s)
                                                                       : convert(arena, s, path, source, diags, false);
      continue;
    }
    bool cls = in_class || s->kind == A_CLASSDEF;
    if (s->kind != t->kind) continue;
    for (AstBlocks bs = ast_blocks(s), bt = ast_blocks(t); ast_blocks_next(&bs) && ast_blocks_next(&bt);)
      convert_defs(arena, bs.cur, bt.cur, path, source, diags, only, cls);
  }
}

/* Top-level definitions are not copied first: each becomes its conversion or a stub. */
static Ast *convert_module(Arena *arena, const Ast *module, const char *path, const char *source, DiagList *diags,
                           const AgPtrSet *only) {
  if (!module) return NULL;
  Ast *out = ast_clone(arena, module);
  out->body = (AstList){0};
  for (int i = 0; i < module->body.n; i++) {
    const Ast *s = module->body.items[i];
    ast_list_push(arena, &out->body, s && s->kind == A_FUNCDEF ? (Ast *)s : ag_copy(arena, s));
  }
  convert_defs(arena, &module->body, &out->body, path, source, diags, only, false);
  return out;
}

Ast *ag_convert_module(Arena *arena, const Ast *module, const char *path, const char *source, DiagList *diags) {
  return convert_module(arena, module, path, source, diags, NULL);
}

Ast *ag_convert_module_reached(Arena *arena, const Ast *module, const char *path, const char *source,
                               DiagList *diags) {
  if (!module) return NULL;
  Arena scratch;
  arena_init(&scratch);
  AgPtrSet only = {0};
  ag_reach(&scratch, module, &only);
  Ast *out = convert_module(arena, module, path, source, diags, &only);
  arena_free(&scratch);
  return out;
}
