/* activity.c — activity analysis for AutoGraph: binds/reads per statement, possible definitions (forward), liveness (backward).
 *
 * The code analyzed here is already lowered (no break/continue/return but
 * the last), so the control flow is structured and both dataflow problems
 * are solved on the tree: a block is walked statement by statement, an `if`
 * joins its branches, and a loop keeps its head state in its record.  The
 * head state only grows; a whole-function pass is repeated until no head
 * changed, so nested loops cost one pass each time something new reaches a
 * head instead of a nested fixpoint per loop.  The facts mirror AutoGraph's
 * annotations (DEFINED_VARS_IN, LIVE_VARS_IN/OUT, body scope `bound`),
 * including its rule that the free variables of a nested function are live
 * wherever that function's definition reaches. */
#include "activity.h"

#include <stdint.h>
#include <string.h>

/* --- name sets --- */

static int set_find(const NameSet *s, const char *name, bool *found) {
  int lo = 0, hi = s->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    int c = strcmp(s->v[mid], name);
    if (c == 0) {
      *found = true;
      return mid;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  *found = false;
  return lo;
}

void activity_set_add(Arena *a, NameSet *s, const char *name) {
  if (!name) return;
  bool found;
  int at = set_find(s, name, &found);
  if (found) return;
  if (s->n == s->cap) {
    int cap = s->cap ? s->cap * 2 : 8;
    const char **v = arena_alloc(a, sizeof *v * (size_t)cap);
    if (s->n) memcpy(v, s->v, sizeof *v * (size_t)s->n);
    s->v = v;
    s->cap = cap;
  }
  memmove(s->v + at + 1, s->v + at, sizeof *s->v * (size_t)(s->n - at));
  s->v[at] = name;
  s->n++;
}

bool activity_set_has(const NameSet *s, const char *name) {
  bool found;
  if (!name || !s->n) return false;
  set_find(s, name, &found);
  return found;
}

void activity_set_union(Arena *a, NameSet *dst, const NameSet *src) {
  for (int i = 0; i < src->n; i++) activity_set_add(a, dst, src->v[i]);
}

NameSet activity_set_copy(Arena *a, const NameSet *s) {
  NameSet c = {0};
  if (s->n) {
    c.cap = s->n;
    c.v = arena_alloc(a, sizeof *c.v * (size_t)c.cap);
    memcpy(c.v, s->v, sizeof *c.v * (size_t)s->n);
    c.n = s->n;
  }
  return c;
}

/* dst minus src, as a new set */
static NameSet set_minus(Arena *a, const NameSet *dst, const NameSet *src) {
  NameSet r = {0};
  for (int i = 0; i < dst->n; i++)
    if (!activity_set_has(src, dst->v[i])) activity_set_add(a, &r, dst->v[i]);
  return r;
}

/* --- reads and binds --- */

static bool is_expr_kind(AstKind k) { return k >= A_BOOLOP && k <= A_SLICE; }

static void list_reads(Arena *a, const AstList *l, NameSet *out) {
  for (int i = 0; i < l->n; i++) activity_expr_reads(a, l->items[i], out);
}

/* Reads of a def's parameter defaults (evaluated where the def runs). */
static void defaults_reads(Arena *a, const AstList *args, NameSet *out) {
  for (int i = 0; i < args->n; i++)
    if (args->items[i]) activity_expr_reads(a, args->items[i]->deflt, out);
}

void activity_expr_reads(Arena *a, const Ast *e, NameSet *out) {
  if (!e) return;
  switch (e->kind) {
  case A_NAME: activity_set_add(a, out, e->name); return;
  case A_LAMBDA:
    defaults_reads(a, &e->args, out);
    activity_free_reads(a, e, out);
    return;
  case A_ARG: activity_expr_reads(a, e->deflt, out); return;
  default: break;
  }
  /* every other expression: its children, whatever fields its kind uses */
  const Ast *kids[] = {e->value, e->left, e->right, e->test, e->func, e->slice, e->lower, e->upper, e->step,
                       e->operand, e->format_spec};
  for (size_t i = 0; i < sizeof kids / sizeof *kids; i++) activity_expr_reads(a, kids[i], out);
  list_reads(a, &e->args, out);
  list_reads(a, &e->keywords, out);
  list_reads(a, &e->values, out);
  list_reads(a, &e->keys, out);
  list_reads(a, &e->elts, out);
  list_reads(a, &e->comparators, out);
}

/* Names an assignment target binds: `x`, `(a, *b)`; not `l[i]` or `o.f`. */
static void target_binds(Arena *a, const Ast *t, NameSet *out) {
  if (!t) return;
  switch (t->kind) {
  case A_NAME: activity_set_add(a, out, t->name); break;
  case A_TUPLE:
  case A_LIST:
    for (int i = 0; i < t->elts.n; i++) target_binds(a, t->elts.items[i], out);
    break;
  case A_STARRED: target_binds(a, t->value, out); break;
  default: break;
  }
}

/* Names an assignment target reads: the object and index of `l[i] = v`. */
static void target_reads(Arena *a, const Ast *t, NameSet *out) {
  if (!t) return;
  switch (t->kind) {
  case A_NAME: break;
  case A_TUPLE:
  case A_LIST:
    for (int i = 0; i < t->elts.n; i++) target_reads(a, t->elts.items[i], out);
    break;
  case A_STARRED: target_reads(a, t->value, out); break;
  case A_SUBSCRIPT:
    activity_expr_reads(a, t->value, out);
    activity_expr_reads(a, t->slice, out);
    break;
  case A_ATTRIBUTE: activity_expr_reads(a, t->value, out); break;
  default: activity_expr_reads(a, t, out); break;
  }
}

/* The name `import a.b` binds: `a`. */
static const char *import_binding(Arena *a, const Ast *alias) {
  if (!alias) return NULL;
  if (alias->asname) return alias->asname;
  const char *n = alias->name;
  if (!n) return NULL;
  const char *dot = strchr(n, '.');
  return dot ? arena_strndup(a, n, (size_t)(dot - n)) : n;
}

static void block_binds(Arena *a, const AstList *l, NameSet *out) {
  for (int i = 0; i < l->n; i++) activity_stmt_binds(a, l->items[i], out);
}

void activity_stmt_binds(Arena *a, const Ast *s, NameSet *out) {
  if (!s) return;
  switch (s->kind) {
  case A_FUNCDEF:
  case A_CLASSDEF: activity_set_add(a, out, s->name); break;
  case A_ASSIGN:
    for (int i = 0; i < s->targets.n; i++) target_binds(a, s->targets.items[i], out);
    break;
  case A_AUGASSIGN: target_binds(a, s->target, out); break;
  case A_FOR:
    target_binds(a, s->target, out);
    block_binds(a, &s->body, out);
    block_binds(a, &s->orelse, out);
    break;
  case A_WHILE:
  case A_IF:
    block_binds(a, &s->body, out);
    block_binds(a, &s->orelse, out);
    break;
  case A_WITH:
    for (int i = 0; i < s->items.n; i++)
      if (s->items.items[i]) target_binds(a, s->items.items[i]->optional_vars, out);
    block_binds(a, &s->body, out);
    break;
  case A_TRY:
    block_binds(a, &s->body, out);
    for (int i = 0; i < s->handlers.n; i++) {
      const Ast *h = s->handlers.items[i];
      if (!h) continue;
      activity_set_add(a, out, h->name);
      block_binds(a, &h->body, out);
    }
    block_binds(a, &s->orelse, out);
    block_binds(a, &s->finalbody, out);
    break;
  case A_IMPORT:
  case A_IMPORTFROM:
    for (int i = 0; i < s->names.n; i++) activity_set_add(a, out, import_binding(a, s->names.items[i]));
    break;
  default: break;
  }
}

/* Reads of a simple statement (compound ones are handled by the passes). */
static void simple_reads(Arena *a, const Ast *s, NameSet *out) {
  switch (s->kind) {
  case A_ASSIGN:
    activity_expr_reads(a, s->value, out);
    for (int i = 0; i < s->targets.n; i++) target_reads(a, s->targets.items[i], out);
    break;
  case A_AUGASSIGN:
    activity_expr_reads(a, s->value, out);
    if (s->target && s->target->kind == A_NAME) activity_set_add(a, out, s->target->name);
    else target_reads(a, s->target, out);
    break;
  case A_DELETE:
    for (int i = 0; i < s->targets.n; i++) target_reads(a, s->targets.items[i], out);
    break;
  case A_FUNCDEF:
    list_reads(a, &s->decorators, out);
    defaults_reads(a, &s->args, out);
    break;
  case A_CLASSDEF:
    list_reads(a, &s->decorators, out);
    list_reads(a, &s->bases, out);
    list_reads(a, &s->keywords, out);
    activity_free_reads(a, s, out);
    break;
  case A_GLOBAL:
  case A_NONLOCAL:
  case A_IMPORT:
  case A_IMPORTFROM: break;
  default:
    if (is_expr_kind(s->kind)) {
      activity_expr_reads(a, s, out);
      break;
    }
    activity_expr_reads(a, s->value, out);
    activity_expr_reads(a, s->test, out);
    activity_expr_reads(a, s->msg, out);
    activity_expr_reads(a, s->exc, out);
    break;
  }
}

/* Every read inside a block, nested blocks and the free reads of nested definitions included. */
static void block_reads_all(Arena *a, const AstList *l, NameSet *out) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s) continue;
    switch (s->kind) {
    case A_FUNCDEF:
      simple_reads(a, s, out);
      activity_free_reads(a, s, out);
      break;
    case A_IF:
    case A_WHILE:
    case A_FOR:
      activity_expr_reads(a, s->test, out);
      activity_expr_reads(a, s->iter, out);
      target_reads(a, s->target, out);
      block_reads_all(a, &s->body, out);
      block_reads_all(a, &s->orelse, out);
      break;
    case A_WITH:
      for (int j = 0; j < s->items.n; j++)
        if (s->items.items[j]) {
          activity_expr_reads(a, s->items.items[j]->context_expr, out);
          target_reads(a, s->items.items[j]->optional_vars, out);
        }
      block_reads_all(a, &s->body, out);
      break;
    case A_TRY:
      block_reads_all(a, &s->body, out);
      for (int j = 0; j < s->handlers.n; j++)
        if (s->handlers.items[j]) {
          activity_expr_reads(a, s->handlers.items[j]->type, out);
          block_reads_all(a, &s->handlers.items[j]->body, out);
        }
      block_reads_all(a, &s->orelse, out);
      block_reads_all(a, &s->finalbody, out);
      break;
    default: simple_reads(a, s, out); break;
    }
  }
}

/* Names declared global/nonlocal directly in a function body (nested blocks, not nested defs). */
static void declared(Arena *a, const AstList *l, AstKind kind, NameSet *out) {
  for (int i = 0; i < l->n; i++) {
    const Ast *s = l->items[i];
    if (!s) continue;
    if (s->kind == kind)
      for (int j = 0; j < s->names.n; j++)
        if (s->names.items[j]) activity_set_add(a, out, s->names.items[j]->name);
    if (s->kind == A_FUNCDEF || s->kind == A_CLASSDEF) continue;
    declared(a, &s->body, kind, out);
    declared(a, &s->orelse, kind, out);
    declared(a, &s->finalbody, kind, out);
    for (int j = 0; j < s->handlers.n; j++)
      if (s->handlers.items[j]) declared(a, &s->handlers.items[j]->body, kind, out);
  }
}

void activity_free_reads(Arena *a, const Ast *fn, NameSet *out) {
  if (!fn) return;
  NameSet reads = {0}, locals = {0};
  if (fn->kind == A_LAMBDA) {
    activity_expr_reads(a, fn->value, &reads);
  } else {
    block_reads_all(a, &fn->body, &reads);
    block_binds(a, &fn->body, &locals);
    NameSet outer = {0};
    declared(a, &fn->body, A_GLOBAL, &outer);
    declared(a, &fn->body, A_NONLOCAL, &outer);
    locals = set_minus(a, &locals, &outer);
  }
  for (int i = 0; i < fn->args.n; i++)
    if (fn->args.items[i]) activity_set_add(a, &locals, fn->args.items[i]->name);
  for (int i = 0; i < reads.n; i++)
    if (!activity_set_has(&locals, reads.v[i])) activity_set_add(a, out, reads.v[i]);
}

/* --- the analysis --- */

typedef struct FuncRec {
  const Ast *fn;
  ActFunc info;
} FuncRec;

struct Activity {
  Arena *a;
  ActExtraTest extra_test;
  void *ud;
  const Ast **keys;      /* open-addressing map: statement -> record */
  ActStmt **vals;
  int cap, n;
  FuncRec *funcs;
  int nfuncs, capfuncs;
  bool changed;          /* a loop head grew during this pass */
};

Activity *activity_new(Arena *scratch, ActExtraTest extra_test, void *ud) {
  Activity *act = arena_alloc(scratch, sizeof *act);
  act->a = scratch;
  act->extra_test = extra_test;
  act->ud = ud;
  return act;
}

static size_t ptr_hash(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 29;
  return (size_t)x;
}

static ActStmt *rec_get(Activity *act, const Ast *s, bool create) {
  if (act->cap) {
    for (size_t i = ptr_hash(s) & (size_t)(act->cap - 1);; i = (i + 1) & (size_t)(act->cap - 1)) {
      if (act->keys[i] == s) return act->vals[i];
      if (!act->keys[i]) break;
    }
  }
  if (!create) return NULL;
  if ((act->n + 1) * 2 > act->cap) {
    int ocap = act->cap;
    const Ast **okeys = act->keys;
    ActStmt **ovals = act->vals;
    act->cap = ocap ? ocap * 2 : 64;
    act->keys = arena_alloc(act->a, sizeof *act->keys * (size_t)act->cap);
    act->vals = arena_alloc(act->a, sizeof *act->vals * (size_t)act->cap);
    for (int j = 0; j < ocap; j++) {
      if (!okeys[j]) continue;
      size_t i = ptr_hash(okeys[j]) & (size_t)(act->cap - 1);
      while (act->keys[i]) i = (i + 1) & (size_t)(act->cap - 1);
      act->keys[i] = okeys[j];
      act->vals[i] = ovals[j];
    }
  }
  size_t i = ptr_hash(s) & (size_t)(act->cap - 1);
  while (act->keys[i]) i = (i + 1) & (size_t)(act->cap - 1);
  ActStmt *r = arena_alloc(act->a, sizeof *r);
  act->keys[i] = s;
  act->vals[i] = r;
  act->n++;
  return r;
}

const ActStmt *activity_stmt(const Activity *act, const Ast *stmt) {
  return act && stmt ? rec_get((Activity *)act, stmt, false) : NULL;
}

const ActFunc *activity_func(const Activity *act, const Ast *fn) {
  if (!act) return NULL;
  for (int i = 0; i < act->nfuncs; i++)
    if (act->funcs[i].fn == fn) return &act->funcs[i].info;
  return NULL;
}

/* Forward state: names possibly defined, and free variables of the nested defs that reach. */
typedef struct Fwd {
  NameSet def, clo;
} Fwd;

static Fwd fwd_copy(Arena *a, const Fwd *f) { return (Fwd){activity_set_copy(a, &f->def), activity_set_copy(a, &f->clo)}; }

static void fwd_join(Arena *a, Fwd *dst, const Fwd *src) {
  activity_set_union(a, &dst->def, &src->def);
  activity_set_union(a, &dst->clo, &src->clo);
}

static Fwd fwd_stmt(Activity *act, const Ast *s, const Fwd *in);

static Fwd fwd_block(Activity *act, const AstList *l, const Fwd *in) {
  Fwd cur = fwd_copy(act->a, in);
  for (int i = 0; i < l->n; i++)
    if (l->items[i]) cur = fwd_stmt(act, l->items[i], &cur);
  return cur;
}

/* Grow a loop's stored head; note the change so the pass repeats. */
static void grow_head(Activity *act, NameSet *stored, const NameSet *now) {
  if (now->n != stored->n) {
    *stored = activity_set_copy(act->a, now);
    act->changed = true;
  }
}

static Fwd fwd_loop(Activity *act, ActStmt *r, const Ast *s, const Fwd *in) {
  Arena *a = act->a;
  Fwd head = fwd_copy(a, in);
  activity_set_union(a, &head.def, &r->fwd_head);
  activity_set_union(a, &head.clo, &r->clo_head);
  Fwd body_in = fwd_copy(a, &head);
  if (s->kind == A_FOR) target_binds(a, s->target, &body_in.def);
  Fwd body_out = fwd_block(act, &s->body, &body_in);
  fwd_join(a, &head, &body_out);
  grow_head(act, &r->fwd_head, &head.def);
  grow_head(act, &r->clo_head, &head.clo);
  return fwd_block(act, &s->orelse, &head);
}

static Fwd fwd_stmt(Activity *act, const Ast *s, const Fwd *in) {
  Arena *a = act->a;
  ActStmt *r = rec_get(act, s, true);
  r->defined_in = activity_set_copy(a, &in->def);
  r->closure_in = activity_set_copy(a, &in->clo);
  switch (s->kind) {
  case A_IF: {
    if (!r->modified.n) activity_stmt_binds(a, s, &r->modified);
    Fwd t = fwd_block(act, &s->body, in), e = fwd_block(act, &s->orelse, in);
    fwd_join(a, &t, &e);
    return t;
  }
  case A_WHILE:
  case A_FOR:
    if (!r->modified.n) {
      if (s->kind == A_FOR) target_binds(a, s->target, &r->modified);
      block_binds(a, &s->body, &r->modified);
    }
    return fwd_loop(act, r, s, in);
  case A_WITH: {
    Fwd x = fwd_copy(a, in);
    for (int i = 0; i < s->items.n; i++)
      if (s->items.items[i]) target_binds(a, s->items.items[i]->optional_vars, &x.def);
    return fwd_block(act, &s->body, &x);
  }
  case A_TRY: {
    Fwd b = fwd_block(act, &s->body, in);
    Fwd out = fwd_block(act, &s->orelse, &b);
    for (int i = 0; i < s->handlers.n; i++) {
      const Ast *h = s->handlers.items[i];
      if (!h) continue;
      Fwd hin = fwd_copy(a, &b); /* an exception may come after any part of the body */
      activity_set_add(a, &hin.def, h->name);
      Fwd hout = fwd_block(act, &h->body, &hin);
      fwd_join(a, &out, &hout);
    }
    return fwd_block(act, &s->finalbody, &out);
  }
  case A_FUNCDEF: {
    Fwd out = fwd_copy(a, in);
    activity_set_add(a, &out.def, s->name);
    activity_free_reads(a, s, &out.clo);
    return out;
  }
  case A_GLOBAL:
  case A_NONLOCAL: {
    Fwd out = fwd_copy(a, in);
    for (int i = 0; i < s->names.n; i++)
      if (s->names.items[i]) activity_set_add(a, &out.def, s->names.items[i]->name);
    return out;
  }
  default: {
    Fwd out = fwd_copy(a, in);
    activity_stmt_binds(a, s, &out.def);
    return out;
  }
  }
}

static NameSet bwd_stmt(Activity *act, const Ast *s, const NameSet *out);

static NameSet bwd_block(Activity *act, const AstList *l, const NameSet *out) {
  NameSet cur = activity_set_copy(act->a, out);
  for (int i = l->n - 1; i >= 0; i--)
    if (l->items[i]) cur = bwd_stmt(act, l->items[i], &cur);
  return cur;
}

static NameSet bwd_stmt(Activity *act, const Ast *s, const NameSet *out) {
  Arena *a = act->a;
  ActStmt *r = rec_get(act, s, true);
  r->live_out = activity_set_copy(a, out);
  NameSet in = {0};
  switch (s->kind) {
  case A_IF: {
    activity_expr_reads(a, s->test, &in);
    NameSet t = bwd_block(act, &s->body, out), e = bwd_block(act, &s->orelse, out);
    activity_set_union(a, &in, &t);
    activity_set_union(a, &in, &e);
    break;
  }
  case A_WHILE: {
    /* head = test reads | after | body(head) */
    NameSet head = bwd_block(act, &s->orelse, out);
    activity_set_union(a, &head, &r->bwd_head);
    activity_expr_reads(a, s->test, &head);
    NameSet b = bwd_block(act, &s->body, &head);
    activity_set_union(a, &head, &b);
    grow_head(act, &r->bwd_head, &head);
    in = head;
    break;
  }
  case A_FOR: {
    /* head = iter reads | extra test reads | ((body(head) | after) - target), as at AutoGraph's iterate node */
    NameSet head = activity_set_copy(a, &r->bwd_head);
    activity_expr_reads(a, s->iter, &head);
    if (act->extra_test) activity_expr_reads(a, act->extra_test(act->ud, s), &head);
    NameSet rest = bwd_block(act, &s->orelse, out);
    NameSet b = bwd_block(act, &s->body, &head);
    activity_set_union(a, &rest, &b);
    NameSet tgt = {0};
    target_binds(a, s->target, &tgt);
    rest = set_minus(a, &rest, &tgt);
    target_reads(a, s->target, &head);
    activity_set_union(a, &head, &rest);
    grow_head(act, &r->bwd_head, &head);
    in = head;
    break;
  }
  case A_WITH: {
    NameSet b = bwd_block(act, &s->body, out), tgt = {0};
    for (int i = 0; i < s->items.n; i++)
      if (s->items.items[i]) target_binds(a, s->items.items[i]->optional_vars, &tgt);
    in = set_minus(a, &b, &tgt);
    for (int i = 0; i < s->items.n; i++)
      if (s->items.items[i]) {
        activity_expr_reads(a, s->items.items[i]->context_expr, &in);
        target_reads(a, s->items.items[i]->optional_vars, &in);
      }
    break;
  }
  case A_TRY: {
    NameSet fin = bwd_block(act, &s->finalbody, out);
    NameSet body_out = bwd_block(act, &s->orelse, &fin), hs = {0};
    for (int i = 0; i < s->handlers.n; i++) {
      const Ast *h = s->handlers.items[i];
      if (!h) continue;
      NameSet hb = bwd_block(act, &h->body, &fin), nm = {0};
      activity_set_add(a, &nm, h->name);
      hb = set_minus(a, &hb, &nm);
      activity_set_union(a, &hs, &hb);
      activity_expr_reads(a, h->type, &hs);
    }
    activity_set_union(a, &body_out, &hs);
    in = bwd_block(act, &s->body, &body_out);
    activity_set_union(a, &in, &hs);
    break;
  }
  case A_RETURN: activity_expr_reads(a, s->value, &in); break;
  case A_RAISE: activity_expr_reads(a, s->exc, &in); break;
  case A_DELETE: {
    NameSet gone = {0};
    for (int i = 0; i < s->targets.n; i++) target_binds(a, s->targets.items[i], &gone);
    in = set_minus(a, out, &gone);
    simple_reads(a, s, &in);
    break;
  }
  default: {
    NameSet kill = {0};
    activity_stmt_binds(a, s, &kill);
    in = set_minus(a, out, &kill);
    simple_reads(a, s, &in);
    break;
  }
  }
  activity_set_union(a, &in, &r->closure_in);
  r->live_in = activity_set_copy(a, &in);
  return in;
}

/* Repeat whole-function passes until no loop head grows; the bound only
 * guards against a bug turning into a hang (heads grow at most once per
 * name and loop). */
#define MAX_PASSES 10000

void activity_analyze(Activity *act, const Ast *fn) {
  if (!act || !fn) return;
  Arena *a = act->a;
  if (act->nfuncs == act->capfuncs) {
    int cap = act->capfuncs ? act->capfuncs * 2 : 8;
    FuncRec *f = arena_alloc(a, sizeof *f * (size_t)cap);
    if (act->nfuncs) memcpy(f, act->funcs, sizeof *f * (size_t)act->nfuncs);
    act->funcs = f;
    act->capfuncs = cap;
  }
  FuncRec *fr = &act->funcs[act->nfuncs++];
  memset(fr, 0, sizeof *fr);
  fr->fn = fn;
  declared(a, &fn->body, A_GLOBAL, &fr->info.globals);
  declared(a, &fn->body, A_NONLOCAL, &fr->info.nonlocals);

  Fwd entry = {0};
  for (int i = 0; i < fn->args.n; i++)
    if (fn->args.items[i]) activity_set_add(a, &entry.def, fn->args.items[i]->name);
  for (int pass = 0; pass < MAX_PASSES; pass++) {
    act->changed = false;
    fwd_block(act, &fn->body, &entry);
    if (!act->changed) break;
  }
  NameSet none = {0};
  for (int pass = 0; pass < MAX_PASSES; pass++) {
    act->changed = false;
    bwd_block(act, &fn->body, &none);
    if (!act->changed) break;
  }
}
