/* ag_reach.c — which functions of a module AutoGraph must convert: those a tf.function can reach, found statically.
 *
 * TF converts a function when a traced call reaches it.  Converting every
 * function of a program that mentions tf.function costs some 17 KB of
 * compiler memory per line (issue 12), so the main module converts only
 * what a traced call can reach, over-approximated:
 *
 *   A unit is a function defined outside any function or class, with
 *   everything nested in it (it is converted as one: nested definitions
 *   get their converted twins from it).  Roots are the units that are
 *   decorated (the decorator may be tf.function or hand the function to
 *   it), whose name is read other than as the callee of a direct call
 *   anywhere in the module (it may be passed to tf.function, tf.data,
 *   Keras, tf.cond, stored...), or which define inside them a decorated
 *   function, a class, or a function whose name is read that way.
 *   Methods are always converted (method calls are dynamic), and every
 *   name read in a class or in a lambda counts as called from converted
 *   code (a lambda is never converted on its own but may run traced).
 *   Then the closure: a unit named anywhere in a converted unit is
 *   converted too, and so is a unit that defines a function of that name
 *   inside it (`global f` then `def f` binds a module name there).
 *
 * Names are matched by spelling only, so shadowing and rebinding can only
 * make more functions converted, never fewer. */
#include <string.h>

#include "ag_int.h"
#include "nameidx.h"

typedef struct Names {
  const char **v;
  int n, cap;
} Names;

typedef struct Unit {
  const Ast *def;
  bool root, done;
  Names refs;         /* every name read in it */
  Names inner;        /* names of the functions defined in it */
} Unit;

typedef struct Reach {
  Arena *a;
  Unit *u;
  int nu, capu;
  struct Link { int unit, next; } *links;  /* units by the names they define */
  int nlinks, caplinks;
  NameIdx byname;     /* name -> its last link (the others follow `next`) */
  NameIdx valued;     /* names read other than as a direct call's callee */
  Names seeds;        /* names read where the code may run traced unconverted (classes, lambdas) */
  int *work;
  int nwork;
} Reach;

enum { CTX_MODULE = -1, CTX_ROOT = -2 };  /* else: the unit the code is in */

static void push(Arena *a, Names *l, const char *name) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 4;
    const char **v = arena_alloc(a, sizeof *v * (size_t)cap);
    if (l->n) memcpy(v, l->v, sizeof *v * (size_t)l->n);
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = name;
}

/* Unit k defines `name` (itself, or a function nested in it). */
static void add_link(Reach *r, const char *name, int k) {
  if (r->nlinks == r->caplinks) {
    int cap = r->caplinks ? r->caplinks * 2 : 64;
    struct Link *l = arena_alloc(r->a, sizeof *l * (size_t)cap);
    if (r->nlinks) memcpy(l, r->links, sizeof *l * (size_t)r->nlinks);
    r->links = l;
    r->caplinks = cap;
  }
  r->links[r->nlinks] = (struct Link){k, nameidx_get(&r->byname, name)};
  nameidx_put(&r->byname, r->a, name, r->nlinks++);
}

static int add_unit(Reach *r, const Ast *def) {
  if (r->nu == r->capu) {
    int cap = r->capu ? r->capu * 2 : 64;
    Unit *u = arena_alloc(r->a, sizeof *u * (size_t)cap);
    if (r->nu) memcpy(u, r->u, sizeof *u * (size_t)r->nu);
    r->u = u;
    r->capu = cap;
  }
  int k = r->nu++;
  r->u[k] = (Unit){def, def->decorators.n > 0, false, {0}, {0}};
  add_link(r, def->name, k);
  return k;
}

static void walk(Reach *r, const Ast *n, int ctx, bool callee);

static void walk_list(Reach *r, const AstList *l, int ctx) {
  for (int i = 0; i < l->n; i++) walk(r, l->items[i], ctx, false);
}

static void walk_children(Reach *r, const Ast *n, int ctx) {
  AST_FOR_FIELDS(f, n, AF_PTR_MASK) walk(r, *ast_ptr_field(n, f), ctx, n->kind == A_CALL && f == AF_func);
  AST_FOR_FIELDS(f, n, AF_LIST_MASK) walk_list(r, ast_list_field(n, f), ctx);
}

static void walk(Reach *r, const Ast *n, int ctx, bool callee) {
  if (!n) return;
  switch (n->kind) {
  case A_NAME:
    if (!n->name) return;
    if (!callee) nameidx_put(&r->valued, r->a, n->name, 1);
    if (ctx == CTX_ROOT) push(r->a, &r->seeds, n->name);
    else if (ctx >= 0) push(r->a, &r->u[ctx].refs, n->name);
    return;
  case A_FUNCDEF:
    if (!n->name) break;
    if (ctx == CTX_MODULE) {
      walk_list(r, &n->decorators, CTX_MODULE);
      int k = add_unit(r, n);
      walk_list(r, &n->args, k);
      walk_list(r, &n->body, k);
      return;
    }
    if (ctx >= 0) {
      r->u[ctx].root |= n->decorators.n > 0;
      push(r->a, &r->u[ctx].inner, n->name);
      add_link(r, n->name, ctx);   /* `global f; def f` inside it binds a module name */
    }
    break;
  case A_CLASSDEF:
    if (ctx >= 0) r->u[ctx].root = true;
    walk_children(r, n, ctx >= 0 ? ctx : CTX_ROOT);
    return;
  case A_LAMBDA: walk_children(r, n, CTX_ROOT); return;
  default: break;
  }
  walk_children(r, n, ctx);
}

static void reach_name(Reach *r, const char *name) {
  for (int l = nameidx_get(&r->byname, name); l >= 0; l = r->links[l].next) {
    int k = r->links[l].unit;
    if (!r->u[k].done) {
      r->u[k].done = true;
      r->work[r->nwork++] = k;
    }
  }
}

void ag_reach(Arena *scratch, const Ast *module, AgPtrSet *out) {
  Reach r = {.a = scratch};
  walk_list(&r, &module->body, CTX_MODULE);
  r.work = arena_alloc(scratch, sizeof *r.work * (size_t)(r.nu ? r.nu : 1));
  for (int k = 0; k < r.nu; k++) {
    Unit *u = &r.u[k];
    u->root |= nameidx_get(&r.valued, u->def->name) >= 0;
    for (int i = 0; i < u->inner.n && !u->root; i++) u->root = nameidx_get(&r.valued, u->inner.v[i]) >= 0;
    if (u->root && !u->done) {
      u->done = true;
      r.work[r.nwork++] = k;
    }
  }
  for (int i = 0; i < r.seeds.n; i++) reach_name(&r, r.seeds.v[i]);
  while (r.nwork) {
    Unit *u = &r.u[r.work[--r.nwork]];
    ag_ptr_add(scratch, out, u->def);
    for (int i = 0; i < u->refs.n; i++) reach_name(&r, u->refs.v[i]);
  }
}
