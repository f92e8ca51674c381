/* ag_util.c — shared machinery of the AutoGraph passes: namer, loop annotations, AST builders, copy and rewrite walkers. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ag_int.h"

/* --- names, loops, errors --- */

const char *ag_new_symbol(AgCtx *c, const char *root) {
  /* `name_3` continues counting from 3, as AutoGraph's namer does */
  size_t len = strlen(root);
  const char *us = strrchr(root, '_');
  int n = 0;
  size_t base_len = len;
  if (us && us[1]) {
    const char *d = us + 1;
    while (*d >= '0' && *d <= '9') d++;
    if (!*d && d - (us + 1) < 9) {
      n = atoi(us + 1);
      base_len = (size_t)(us - root);
    }
  }
  const char *base = arena_strndup(c->arena, root, base_len);
  /* Names taken only accumulate, so the smallest free number is past the
   * last one handed out for this base: resume there (same result, linear). */
  struct AgRoot *hint = NULL;
  for (int i = 0; i < c->nroots && !hint; i++)
    if (strcmp(c->roots[i].base, base) == 0) hint = &c->roots[i];
  if (!hint) {
    if (c->nroots == c->caproots) {
      int cap = c->caproots ? c->caproots * 2 : 16;
      struct AgRoot *r = arena_alloc(&c->scratch, sizeof *r * (size_t)cap);
      if (c->nroots) memcpy(r, c->roots, sizeof *r * (size_t)c->nroots);
      c->roots = r;
      c->caproots = cap;
    }
    hint = &c->roots[c->nroots++];
    hint->base = base;
  }
  const char *name = base;
  if (hint->used || activity_set_has(&c->reserved, base) || activity_set_has(&c->generated, base)) {
    if (n < hint->last) n = hint->last;
    do name = arena_printf(c->arena, "%s_%d", base, ++n);
    while (activity_set_has(&c->reserved, name) || activity_set_has(&c->generated, name));
    hint->last = n;
  }
  hint->used = true;
  activity_set_add(&c->scratch, &c->generated, name);
  return name;
}

AgLoop *ag_loop(AgCtx *c, const Ast *loop, bool create) {
  for (int i = 0; i < c->nloops; i++)
    if (c->loops[i].loop == loop) return &c->loops[i];
  if (!create) return NULL;
  if (c->nloops == c->caploops) {
    int cap = c->caploops ? c->caploops * 2 : 8;
    AgLoop *l = arena_alloc(&c->scratch, sizeof *l * (size_t)cap);
    if (c->nloops) memcpy(l, c->loops, sizeof *l * (size_t)c->nloops);
    c->loops = l;
    c->caploops = cap;
  }
  AgLoop *l = &c->loops[c->nloops++];
  memset(l, 0, sizeof *l);
  l->loop = loop;
  return l;
}

void ag_error(AgCtx *c, const Ast *at, const char *fmt, ...) {
  if (!c->diags) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  /* errindex: - (passes on a message indexed where it is made) */
  diag_add(c->diags, c->path, c->source, at ? at->line : 0, at ? at->col : 0, "%s", buf);
}

/* --- lists and builders --- */

void ag_push(AgCtx *c, AstList *l, Ast *n) {
  if (n) ast_list_push(c->arena, l, n);
}

void ag_push_all(AgCtx *c, AstList *l, const AstList *src) {
  for (int i = 0; i < src->n; i++) ag_push(c, l, src->items[i]);
}

static Ast *mk(AgCtx *c, AstKind kind, const Ast *at) {
  Ast *n = ast_new(c->arena, kind, at ? at->line : 0, at ? at->col : 0);
  if (at) {
    n->end_line = at->end_line;
    n->end_col = at->end_col;
  }
  return n;
}

Ast *ag_node(AgCtx *c, AstKind kind, const Ast *at) { return mk(c, kind, at); }

Ast *ag_name(AgCtx *c, const Ast *at, const char *id) {
  Ast *n = mk(c, A_NAME, at);
  n->name = arena_strdup(c->arena, id);
  return n;
}

Ast *ag_str(AgCtx *c, const Ast *at, const char *s) {
  Ast *n = mk(c, A_CONSTANT, at);
  n->const_kind = C_STR;
  n->slen = strlen(s);
  n->str = arena_strndup(c->arena, s, n->slen);
  return n;
}

Ast *ag_int(AgCtx *c, const Ast *at, int64_t v) {
  Ast *n = mk(c, A_CONSTANT, at);
  n->const_kind = C_INT;
  n->ival = v;
  return n;
}

Ast *ag_const(AgCtx *c, const Ast *at, ConstKind k) {
  Ast *n = mk(c, A_CONSTANT, at);
  n->const_kind = k;
  return n;
}

static Ast *call_v(AgCtx *c, const Ast *at, Ast *func, int nargs, va_list ap) {
  Ast *n = mk(c, A_CALL, at);
  n->func = func;
  for (int i = 0; i < nargs; i++) ag_push(c, &n->args, va_arg(ap, Ast *));
  return n;
}

Ast *ag_call(AgCtx *c, const Ast *at, Ast *func, int nargs, ...) {
  va_list ap;
  va_start(ap, nargs);
  Ast *n = call_v(c, at, func, nargs, ap);
  va_end(ap);
  return n;
}

Ast *ag_rt(AgCtx *c, const Ast *at, const char *fname, int nargs, ...) {
  Ast *f = mk(c, A_ATTRIBUTE, at);
  f->value = ag_name(c, at, "ag__");
  f->name = arena_strdup(c->arena, fname);
  va_list ap;
  va_start(ap, nargs);
  Ast *n = call_v(c, at, f, nargs, ap);
  va_end(ap);
  return n;
}

Ast *ag_assign(AgCtx *c, const Ast *at, Ast *target, Ast *value) {
  Ast *n = mk(c, A_ASSIGN, at);
  ag_push(c, &n->targets, target);
  n->value = value;
  return n;
}

Ast *ag_expr_stmt(AgCtx *c, const Ast *at, Ast *value) {
  Ast *n = mk(c, A_EXPR, at);
  n->value = value;
  return n;
}

Ast *ag_not(AgCtx *c, const Ast *at, Ast *operand) {
  Ast *n = mk(c, A_UNARYOP, at);
  n->op = UN_NOT;
  n->operand = operand;
  return n;
}

Ast *ag_and(AgCtx *c, const Ast *at, Ast *left, Ast *right) {
  Ast *n = mk(c, A_BOOLOP, at);
  n->op = BOOL_AND;
  ag_push(c, &n->values, left);
  ag_push(c, &n->values, right);
  return n;
}

Ast *ag_lambda(AgCtx *c, const Ast *at, Ast *body) {
  Ast *n = mk(c, A_LAMBDA, at);
  n->value = body;
  return n;
}

Ast *ag_if(AgCtx *c, const Ast *at, Ast *test) {
  Ast *n = mk(c, A_IF, at);
  n->test = test;
  return n;
}

Ast *ag_def(AgCtx *c, const Ast *at, const char *name, const char *param) {
  Ast *n = mk(c, A_FUNCDEF, at);
  n->name = arena_strdup(c->arena, name);
  if (param) {
    Ast *p = mk(c, A_ARG, at);
    p->name = arena_strdup(c->arena, param);
    ag_push(c, &n->args, p);
  }
  return n;
}

Ast *ag_return_stmt(AgCtx *c, const Ast *at, Ast *value) {
  Ast *n = mk(c, A_RETURN, at);
  n->value = value;
  return n;
}

Ast *ag_tuple(AgCtx *c, const Ast *at) {
  Ast *n = mk(c, A_TUPLE, at);
  n->parenthesized = true;
  return n;
}

bool ag_is_rt_call(const Ast *e, const char *fname) {
  if (!e || e->kind != A_CALL || !e->func || e->func->kind != A_ATTRIBUTE) return false;
  const Ast *v = e->func->value;
  if (!v || v->kind != A_NAME || !v->name || (strcmp(v->name, "ag") != 0 && strcmp(v->name, "ag__") != 0) || !e->func->name)
    return false;
  return !fname || strcmp(e->func->name, fname) == 0;
}

/* --- walkers --- */


static void copy_list(Arena *a, AstList *l) {
  if (!l->n) {
    *l = (AstList){0};
    return;
  }
  Ast **items = arena_alloc(a, sizeof *items * (size_t)l->n);
  for (int i = 0; i < l->n; i++) items[i] = ag_copy(a, l->items[i]);
  l->items = items;
  l->cap = l->n;
}

Ast *ag_copy(Arena *a, const Ast *n) {
  if (!n) return NULL;
  Ast *c = ast_clone(a, n);
  if (ast_has(n, AF_str) && n->str) c->str = arena_strndup(a, n->str, n->const_kind == C_STR || n->const_kind == C_BYTES ? n->slen : strlen(n->str));
  if (ast_has(n, AF_name) && n->name) c->name = arena_strdup(a, n->name);
  if (ast_has(n, AF_asname) && n->asname) c->asname = arena_strdup(a, n->asname);
  if (ast_has(n, AF_ops) && n->ops && n->comparators.n) {
    int *ops = arena_alloc(a, sizeof *ops * (size_t)n->comparators.n);
    memcpy(ops, n->ops, sizeof *ops * (size_t)n->comparators.n);
    c->ops = ops;
  }
  AST_FOR_FIELDS(f, n, AF_PTR_MASK) *ast_ptr_field(c, f) = ag_copy(a, *ast_ptr_field(n, f));
  AST_FOR_FIELDS(f, n, AF_LIST_MASK) copy_list(a, ast_list_field(c, f));
  return c;
}

static bool is_expr(const Ast *n) { return n && n->kind >= A_BOOLOP && n->kind <= A_YIELDFROM; }

static Ast *rewrite(AgCtx *c, Ast *n, AgExprFn fn);

static void rewrite_list(AgCtx *c, AstList *l, AgExprFn fn) {
  for (int i = 0; i < l->n; i++) l->items[i] = rewrite(c, l->items[i], fn);
}

static Ast *rewrite(AgCtx *c, Ast *n, AgExprFn fn) {
  if (!n) return NULL;
  AST_FOR_FIELDS(f, n, AF_PTR_MASK) {
    Ast **p = ast_ptr_field(n, f);
    *p = rewrite(c, *p, fn);
  }
  AST_FOR_FIELDS(f, n, AF_LIST_MASK & ~AF_BIT(decorators)) rewrite_list(c, ast_list_field(n, f), fn);
  return is_expr(n) ? fn(c, n) : n;
}

void ag_rewrite_exprs(AgCtx *c, Ast *node, AgExprFn fn) { rewrite(c, node, fn); }

static void visit_list(const AstList *l, AgVisitFn fn, void *ud) {
  for (int i = 0; i < l->n; i++) ag_visit(l->items[i], fn, ud);
}

void ag_visit(const Ast *n, AgVisitFn fn, void *ud) {
  if (!n) return;
  fn(n, ud);
  AST_FOR_FIELDS(f, n, AF_PTR_MASK) ag_visit(*ast_ptr_field(n, f), fn, ud);
  AST_FOR_FIELDS(f, n, AF_LIST_MASK) visit_list(ast_list_field(n, f), fn, ud);
}

/* --- a set of node pointers (open addressing) --- */

bool ag_ptr_has(const AgPtrSet *s, const void *p) {
  if (!s->cap) return false;
  for (size_t i = ((uintptr_t)p >> 4) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (s->v[i] == p) return true;
    if (!s->v[i]) return false;
  }
}

void ag_ptr_add(Arena *a, AgPtrSet *s, const void *p) {
  if (ag_ptr_has(s, p)) return;
  if ((s->n + 1) * 2 > s->cap) {
    AgPtrSet t = {arena_alloc(a, sizeof(void *) * (s->cap ? s->cap * 2 : 64)), 0, s->cap ? s->cap * 2 : 64};
    memset(t.v, 0, sizeof(void *) * t.cap);
    for (size_t i = 0; i < s->cap; i++)
      if (s->v[i]) ag_ptr_add(a, &t, s->v[i]);
    *s = t;
  }
  size_t i = ((uintptr_t)p >> 4) & (s->cap - 1);
  while (s->v[i]) i = (i + 1) & (s->cap - 1);
  s->v[i] = p;
  s->n++;
}
