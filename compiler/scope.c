/* scope.c — Python's scoping rules over the AST: collect bindings per scope, then resolve every name. */
#include "scope.h"

#include <string.h>

typedef struct Ctx {
  ScopeInfo *si;
  const char *path, *source;
  DiagList *diags;
  bool (*is_builtin)(const char *name);
  bool ok;
} Ctx;

/* Small scopes are scanned; a scope past SCOPE_SCAN names gets a hash index
 * (a module of 20,000 functions made every lookup a 20,000-name scan). */
enum { SCOPE_SCAN = 16 };

Sym *scope_lookup(Scope *s, const char *name) {
  if (s->idx.cap) {
    int i = nameidx_get(&s->idx, name);
    return i < 0 ? NULL : s->syms[i];
  }
  name_probes += (unsigned long)s->nsyms;   /* at most SCOPE_SCAN */
  for (int i = 0; i < s->nsyms; i++)
    if (strcmp(s->syms[i]->name, name) == 0) return s->syms[i];
  return NULL;
}

int scope_global_slot(const ScopeInfo *si, const char *name) { return nameidx_get(&si->gidx, name); }

static Sym *sym_get(Ctx *c, Scope *s, const char *name) {
  Sym *y = scope_lookup(s, name);
  if (y) return y;
  if (s->nsyms == s->cap) {
    int cap = s->cap ? s->cap * 2 : 8;
    Sym **n = arena_alloc(c->si->arena, sizeof *n * (size_t)cap);
    if (s->nsyms) memcpy(n, s->syms, sizeof *n * (size_t)s->nsyms);
    s->syms = n;
    s->cap = cap;
  }
  y = arena_alloc(c->si->arena, sizeof *y);
  s->syms[s->nsyms++] = y;
  y->name = name;
  y->kind = SYM_LOCAL;
  if (s->idx.cap) {
    nameidx_put(&s->idx, c->si->arena, name, s->nsyms - 1);
  } else if (s->nsyms > SCOPE_SCAN) {
    for (int i = 0; i < s->nsyms; i++) nameidx_put(&s->idx, c->si->arena, s->syms[i]->name, i);
  }
  return y;
}

static Scope *scope_new(Ctx *c, Ast *node, Scope *parent) {
  ScopeInfo *si = c->si;
  Scope *s = arena_alloc(si->arena, sizeof *s);
  s->node = node;
  s->parent = parent;
  s->is_module = node->kind == A_MODULE;
  s->id = si->n;
  if (si->n == si->cap) {
    int cap = si->cap ? si->cap * 2 : 8;
    Scope **n = arena_alloc(si->arena, sizeof *n * (size_t)cap);
    if (si->n) memcpy(n, si->all, sizeof *n * (size_t)si->n);
    si->all = n;
    si->cap = cap;
  }
  si->all[si->n++] = s;
  node->id = s->id + 1;
  return s;
}

Scope *scope_of(ScopeInfo *si, const Ast *node) {
  return node->id > 0 && node->id <= si->n ? si->all[node->id - 1] : NULL;
}

/* ---- pass 1: bindings and uses ------------------------------------------- */

static void collect_expr(Ctx *c, Scope *s, Ast *e);
static void collect_stmts(Ctx *c, Scope *s, AstList *l);
static void collect_function(Ctx *c, Scope *s, Ast *fn);

static void bind(Ctx *c, Scope *s, const char *name) { sym_get(c, s, name)->bound = true; }

static void use(Ctx *c, Scope *s, const char *name) { sym_get(c, s, name); }

/* A name `del` (or the end of an `except ... as` handler) unbinds. */
static void unbind_target(Ctx *c, Scope *s, Ast *t) {
  if (t->kind == A_NAME) sym_get(c, s, t->name)->unbinds = true;
  if (t->kind == A_TUPLE || t->kind == A_LIST)
    for (int i = 0; i < t->elts.n; i++) unbind_target(c, s, t->elts.items[i]);
}

static void bind_target(Ctx *c, Scope *s, Ast *t) {
  switch (t->kind) {
  case A_NAME: bind(c, s, t->name); break;
  case A_TUPLE:
  case A_LIST:
    for (int i = 0; i < t->elts.n; i++) bind_target(c, s, t->elts.items[i]);
    break;
  case A_STARRED: bind_target(c, s, t->value); break;
  default: collect_expr(c, s, t); break; /* subscript/attribute: their parts are reads */
  }
}

static void collect_list(Ctx *c, Scope *s, AstList *l) {
  for (int i = 0; i < l->n; i++) collect_expr(c, s, l->items[i]);
}

/* A def or lambda: defaults and decorators belong to the enclosing scope. */
static void collect_function(Ctx *c, Scope *s, Ast *fn) {
  for (int i = 0; i < fn->args.n; i++)
    if (fn->args.items[i]->deflt) collect_expr(c, s, fn->args.items[i]->deflt);
  if (fn->kind == A_FUNCDEF) collect_list(c, s, &fn->decorators);
  Scope *inner = scope_new(c, fn, s);
  for (int i = 0; i < fn->args.n; i++) {
    if (!fn->args.items[i]->name) continue; /* a bare `*` separator */
    Sym *y = sym_get(c, inner, fn->args.items[i]->name);
    y->bound = y->param = true;
  }
  if (fn->kind == A_LAMBDA)
    collect_expr(c, inner, fn->value);
  else
    collect_stmts(c, inner, &fn->body);
}

static bool is_comprehension(const Ast *e) {
  return e->kind == A_LISTCOMP || e->kind == A_SETCOMP || e->kind == A_GENEXP || e->kind == A_DICTCOMP;
}

/* A comprehension is a scope of its own, as a function called with the first
 * iterable: that iterable is read in the enclosing scope, the rest inside. */
static void collect_comprehension(Ctx *c, Scope *s, Ast *e) {
  collect_expr(c, s, e->generators.items[0]->iter);
  Scope *inner = scope_new(c, e, s);
  inner->generator = e->kind == A_GENEXP;   /* lazy: it yields its elements */
  for (int i = 0; i < e->generators.n; i++) {
    Ast *g = e->generators.items[i];
    if (i > 0) collect_expr(c, inner, g->iter);
    bind_target(c, inner, g->target);
    collect_list(c, inner, &g->ifs);
  }
  collect_expr(c, inner, ast_child(e, AF_key));
  collect_expr(c, inner, e->value);
}

static void collect_expr(Ctx *c, Scope *s, Ast *e) {
  if (!e) return;
  if (is_comprehension(e)) {
    collect_comprehension(c, s, e);
    return;
  }
  switch (e->kind) {
  case A_NAME: use(c, s, e->name); break;
  case A_LAMBDA: collect_function(c, s, e); break;
  case A_BOOLOP: collect_list(c, s, &e->values); break;
  case A_BINOP: collect_expr(c, s, e->left); collect_expr(c, s, e->right); break;
  case A_UNARYOP: collect_expr(c, s, e->operand); break;
  case A_IFEXP: collect_expr(c, s, e->test); collect_expr(c, s, e->left); collect_expr(c, s, e->right); break;
  case A_DICT: collect_list(c, s, &e->keys); collect_list(c, s, &e->values); break;
  case A_COMPARE: collect_expr(c, s, e->left); collect_list(c, s, &e->comparators); break;
  case A_CALL:
    collect_expr(c, s, e->func);
    collect_list(c, s, &e->args);
    for (int i = 0; i < e->keywords.n; i++) collect_expr(c, s, e->keywords.items[i]->value);
    break;
  case A_JOINEDSTR: collect_list(c, s, &e->values); break;
  case A_FORMATTEDVALUE: collect_expr(c, s, e->value); collect_expr(c, s, e->format_spec); break;
  case A_ATTRIBUTE: collect_expr(c, s, e->value); break;
  case A_SUBSCRIPT: collect_expr(c, s, e->value); collect_expr(c, s, e->slice); break;
  case A_STARRED: collect_expr(c, s, e->value); break;
  case A_LIST:
  case A_SET:
  case A_TUPLE: collect_list(c, s, &e->elts); break;
  case A_SLICE: collect_expr(c, s, e->lower); collect_expr(c, s, e->upper); collect_expr(c, s, e->step); break;
  case A_YIELD:
  case A_YIELDFROM:
    if (!s->is_module) s->generator = true;
    collect_expr(c, s, e->value);
    break;
  default: break;
  }
}

static void declare(Ctx *c, Scope *s, Ast *st, bool global) {
  for (int i = 0; i < st->names.n; i++) {
    Ast *n = st->names.items[i];
    Sym *y = sym_get(c, s, n->name);
    if (global) y->is_global_decl = true;
    else y->is_nonlocal_decl = true;
    y->decl_line = n->line;
    y->decl_col = n->col;
    if (!global && s->is_module) {
      diag_add(c->diags, c->path, c->source, st->line, st->col, "nonlocal declaration not allowed at module level");
      c->ok = false;
    }
  }
}

/* `import a.b` binds a (the package); `import a.b as c` binds c. */
static const char *import_binding(Arena *a, Ast *alias) {
  if (alias->asname) return alias->asname;
  const char *dot = strchr(alias->name, '.');
  return dot ? arena_strndup(a, alias->name, (size_t)(dot - alias->name)) : alias->name;
}

/* A class body binds nothing in the enclosing scope (its names become class
 * attributes); its methods are functions of the enclosing scope, which they
 * see past the class, as in Python. */
static void collect_class(Ctx *c, Scope *s, Ast *st) {
  collect_list(c, s, &st->bases);
  collect_list(c, s, &st->decorators);
  for (int i = 0; i < st->body.n; i++) {
    Ast *b = st->body.items[i];
    switch (b->kind) {
    case A_FUNCDEF: collect_function(c, s, b); break;
    case A_CLASSDEF: collect_class(c, s, b); break;
    case A_ASSIGN: collect_expr(c, s, b->value); break;
    case A_EXPR: collect_expr(c, s, b->value); break;
    default: break;
    }
  }
}

static void collect_stmt(Ctx *c, Scope *s, Ast *st) {
  switch (st->kind) {
  case A_FUNCDEF:
    collect_function(c, s, st);
    bind(c, s, st->name);
    break;
  case A_CLASSDEF:
    collect_class(c, s, st);
    bind(c, s, st->name);
    break;
  case A_RETURN: collect_expr(c, s, st->value); break;
  case A_DELETE:
    for (int i = 0; i < st->targets.n; i++) {
      bind_target(c, s, st->targets.items[i]);
      unbind_target(c, s, st->targets.items[i]);
    }
    break;
  case A_ASSIGN:
    collect_expr(c, s, st->value);
    for (int i = 0; i < st->targets.n; i++) bind_target(c, s, st->targets.items[i]);
    break;
  case A_AUGASSIGN:
    collect_expr(c, s, st->value);
    collect_expr(c, s, st->target);
    bind_target(c, s, st->target);
    break;
  case A_FOR:
    collect_expr(c, s, st->iter);
    bind_target(c, s, st->target);
    collect_stmts(c, s, &st->body);
    collect_stmts(c, s, &st->orelse);
    break;
  case A_WHILE:
  case A_IF:
    collect_expr(c, s, st->test);
    collect_stmts(c, s, &st->body);
    collect_stmts(c, s, &st->orelse);
    break;
  case A_WITH:
    for (int i = 0; i < st->items.n; i++) {
      Ast *it = st->items.items[i];
      collect_expr(c, s, it->context_expr);
      if (it->optional_vars) bind_target(c, s, it->optional_vars);
    }
    collect_stmts(c, s, &st->body);
    break;
  case A_RAISE: collect_expr(c, s, st->exc); collect_expr(c, s, st->value); break;
  case A_TRY:
    collect_stmts(c, s, &st->body);
    for (int i = 0; i < st->handlers.n; i++) {
      Ast *h = st->handlers.items[i];
      collect_expr(c, s, h->type);
      if (h->name) {
        bind(c, s, h->name);
        sym_get(c, s, h->name)->unbinds = true;
      }
      collect_stmts(c, s, &h->body);
    }
    collect_stmts(c, s, &st->orelse);
    collect_stmts(c, s, &st->finalbody);
    break;
  case A_ASSERT: collect_expr(c, s, st->test); collect_expr(c, s, st->msg); break;
  case A_IMPORT:
  case A_IMPORTFROM:
    for (int i = 0; i < st->names.n; i++) bind(c, s, import_binding(c->si->arena, st->names.items[i]));
    break;
  case A_GLOBAL: declare(c, s, st, true); break;
  case A_NONLOCAL: declare(c, s, st, false); break;
  case A_EXPR: collect_expr(c, s, st->value); break;
  default: break;
  }
}

static void collect_stmts(Ctx *c, Scope *s, AstList *l) {
  for (int i = 0; i < l->n; i++) collect_stmt(c, s, l->items[i]);
}

/* ---- pass 2: resolution --------------------------------------------------- */

/* The slot array grows by doubling (it was copied for every new global:
 * quadratic time and arena memory in the number of module names). */
static int add_global(ScopeInfo *si, const char *name) {
  if (si->nglobals == si->gcap) {
    si->gcap = si->gcap ? si->gcap * 2 : 16;
    const char **n = arena_alloc(si->arena, sizeof *n * (size_t)si->gcap);
    if (si->nglobals) memcpy(n, si->globals, sizeof *n * (size_t)si->nglobals);
    si->globals = n;
  }
  si->globals[si->nglobals] = name;
  nameidx_put(&si->gidx, si->arena, name, si->nglobals);
  return si->nglobals++;
}

static int global_slot(Ctx *c, const char *name) {
  int i = scope_global_slot(c->si, name);
  return i >= 0 ? i : add_global(c->si, name);
}

static bool module_binds(Ctx *c, const char *name) { return scope_global_slot(c->si, name) >= 0; }

static void add_free(Ctx *c, Scope *s, Sym *y) {
  if (y->kind == SYM_FREE) return;
  y->kind = SYM_FREE;
  Sym **n = arena_alloc(c->si->arena, sizeof *n * (size_t)(s->nfrees + 1));
  if (s->nfrees) memcpy(n, s->frees, sizeof *n * (size_t)s->nfrees);
  n[s->nfrees] = y;
  y->index = s->nfrees;
  s->frees = n;
  s->nfrees++;
}

/* Find `name` bound as a local in an enclosing function; mark the path. */
static bool capture(Ctx *c, Scope *s, Sym *y) {
  Scope *p = s->parent;
  if (!p || p->is_module) return false;
  Sym *py = scope_lookup(p, y->name);
  if (py && py->is_global_decl) return false;
  if (py && py->bound && !py->is_nonlocal_decl) {
    if (py->kind == SYM_LOCAL) py->kind = SYM_CELL;
    add_free(c, s, y);
    return true;
  }
  if (!py) py = sym_get(c, p, y->name);
  if (capture(c, p, py)) {
    add_free(c, s, y);
    return true;
  }
  return false;
}

static void resolve_scope(Ctx *c, Scope *s) {
  for (int i = 0; i < s->nsyms; i++) {
    Sym *y = s->syms[i];
    if (s->is_module || y->is_global_decl) {
      if (y->bound || y->is_global_decl) {
        y->kind = SYM_GLOBAL;
        y->index = global_slot(c, y->name);
      }
    }
  }
}

static void resolve_refs(Ctx *c, Scope *s) {
  /* Iterate by index: capture() may append symbols to enclosing scopes only. */
  for (int i = 0; i < s->nsyms; i++) {
    Sym *y = s->syms[i];
    if (y->kind == SYM_GLOBAL || y->kind == SYM_FREE || y->kind == SYM_CELL) continue;
    if (y->is_nonlocal_decl) {
      y->bound = false; /* the binding belongs to the enclosing function */
      if (!capture(c, s, y)) {
        diag_add(c->diags, c->path, c->source, y->decl_line, y->decl_col, "no binding for nonlocal '%s' found", y->name);
        c->ok = false;
      }
      continue;
    }
    if (y->bound && !s->is_module) continue; /* plain local */
    if (!s->is_module && capture(c, s, y)) continue;
    if (module_binds(c, y->name)) {
      y->kind = SYM_GLOBAL;
      y->index = global_slot(c, y->name);
    } else if (c->is_builtin(y->name)) {
      y->kind = SYM_BUILTIN;
    } else {
      y->kind = SYM_BUILTIN; /* reported below, at each use */
      y->index = -1;
    }
  }
}

/* A name the class body assigns or defines (read from its namespace). */
static bool class_names_has(Ast *cls, const char *name) {
  for (int i = 0; i < cls->body.n; i++) {
    Ast *b = cls->body.items[i];
    if ((b->kind == A_FUNCDEF || b->kind == A_CLASSDEF) && !strcmp(b->name, name)) return true;
    for (int j = 0; b->kind == A_ASSIGN && j < b->targets.n; j++)
      if (b->targets.items[j]->kind == A_NAME && !strcmp(b->targets.items[j]->name, name)) return true;
  }
  return false;
}

/* Report each use of an unknown name at its own location. */
static void report_unknown(Ctx *c, Scope *s, Ast *e);
static void report_list(Ctx *c, Scope *s, AstList *l) {
  for (int i = 0; i < l->n; i++) report_unknown(c, s, l->items[i]);
}
static void report_unknown(Ctx *c, Scope *s, Ast *e) {
  if (!e) return;
  if (e->kind == A_NAME) {
    Sym *y = scope_lookup(s, e->name);
    if (y && y->kind == SYM_BUILTIN && y->index == -1) {
      diag_add(c->diags, c->path, c->source, e->line, e->col, "name '%s' is not defined", e->name);
      c->ok = false;
    }
    return;
  }
  if (e->kind == A_CLASSDEF) {
    /* Methods are checked; class-level expressions may read the class's own
     * names, which only code generation knows. */
    report_list(c, s, &e->bases);
    report_list(c, s, &e->decorators);
    for (int i = 0; i < e->body.n; i++) {
      Ast *b = e->body.items[i];
      if (b->kind == A_CLASSDEF) report_unknown(c, s, b);
      if (b->kind != A_FUNCDEF) continue;
      for (int j = 0; j < b->args.n; j++) report_unknown(c, s, b->args.items[j]->deflt);
      for (int j = 0; j < b->decorators.n; j++) {
        Ast *d = b->decorators.items[j];
        while (d->kind == A_ATTRIBUTE) d = d->value;
        if (d->kind != A_NAME || !class_names_has(e, d->name)) report_unknown(c, s, b->decorators.items[j]);
      }
      report_list(c, scope_of(c->si, b), &b->body);
    }
    return;
  }
  if (e->kind == A_FUNCDEF || e->kind == A_LAMBDA) {
    for (int i = 0; i < e->args.n; i++) report_unknown(c, s, e->args.items[i]->deflt);
    if (e->kind == A_FUNCDEF) report_list(c, s, &e->decorators);
    Scope *inner = scope_of(c->si, e);
    if (e->kind == A_LAMBDA) report_unknown(c, inner, e->value);
    else report_list(c, inner, &e->body);
    return;
  }
  if (is_comprehension(e)) {
    report_unknown(c, s, e->generators.items[0]->iter);
    Scope *inner = scope_of(c->si, e);
    for (int i = 0; i < e->generators.n; i++) {
      Ast *g = e->generators.items[i];
      if (i > 0) report_unknown(c, inner, g->iter);
      report_unknown(c, inner, g->target);
      report_list(c, inner, &g->ifs);
    }
    report_unknown(c, inner, ast_child(e, AF_key));
    report_unknown(c, inner, e->value);
    return;
  }
  /* every child but the names of global/import statements (not uses) */
  AST_FOR_FIELDS(f, e, AF_PTR_MASK) report_unknown(c, s, *ast_ptr_field(e, f));
  AST_FOR_FIELDS(f, e, AF_LIST_MASK & ~(AF_BIT(names) | AF_BIT(generators) | AF_BIT(ifs)))
    report_list(c, s, ast_list_field(e, f));
}

bool scope_analyze(ScopeInfo *si, Arena *arena, Ast *module, const char *path, const char *source, DiagList *diags,
                   bool (*is_builtin)(const char *name)) {
  return scope_analyze_seeded(si, arena, module, path, source, diags, is_builtin, NULL, 0);
}

bool scope_analyze_seeded(ScopeInfo *si, Arena *arena, Ast *module, const char *path, const char *source,
                          DiagList *diags, bool (*is_builtin)(const char *name), const char *const *globals,
                          int nglobals) {
  memset(si, 0, sizeof *si);
  si->arena = arena;
  for (int i = 0; i < nglobals; i++) add_global(si, globals[i]);
  Ctx c = {si, path, source, diags, is_builtin, true};
  si->module = scope_new(&c, module, NULL);
  collect_stmts(&c, si->module, &module->body);
  /* Module slots first (so `global x` in a function finds them), then refs. */
  for (int i = 0; i < si->n; i++) resolve_scope(&c, si->all[i]);
  for (int i = 0; i < si->n; i++) resolve_refs(&c, si->all[i]);
  report_list(&c, si->module, &module->body);
  return c.ok;
}
