/* activity.c — activity analysis for AutoGraph: binds/reads per statement, possible definitions (forward), liveness (backward).
 *
 * The code analyzed here is already lowered (no break/continue/return but
 * the last), so the control flow is structured and both dataflow problems
 * are solved on the tree: a block is walked statement by statement, an `if`
 * joins its branches, and a loop keeps its head state in its record.  The
 * head state only grows; a whole-function pass is repeated until no head
 * changed, so nested loops cost one pass each time something new reaches a
 * head instead of a nested fixpoint per loop.  Sets are bit vectors over
 * the names the function binds (the only ones that can be state), so a
 * statement costs a few word operations however large the function.  The
 * facts mirror AutoGraph's annotations (DEFINED_VARS_IN, LIVE_VARS_IN/OUT,
 * body scope `bound`), including its rule that the free variables of a
 * nested function are live wherever that function's definition reaches. */
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

static bool is_expr_kind(AstKind k) { return k >= A_BOOLOP && k <= A_YIELDFROM; }

static void list_reads(Arena *a, const AstList *l, NameSet *out) {
  for (int i = 0; i < l->n; i++) activity_expr_reads(a, l->items[i], out);
}

/* Reads of a def's parameter defaults (evaluated where the def runs). */
static void defaults_reads(Arena *a, const AstList *args, NameSet *out) {
  for (int i = 0; i < args->n; i++)
    if (args->items[i]) activity_expr_reads(a, args->items[i]->deflt, out);
}

static void target_binds(Arena *a, const Ast *t, NameSet *out);

void activity_expr_reads(Arena *a, const Ast *e, NameSet *out) {
  if (!e) return;
  switch (e->kind) {
  case A_NAME: activity_set_add(a, out, e->name); return;
  case A_LAMBDA:
    defaults_reads(a, &e->args, out);
    activity_free_reads(a, e, out);
    return;
  case A_ARG: activity_expr_reads(a, e->deflt, out); return;
  case A_LISTCOMP:
  case A_SETCOMP:
  case A_GENEXP:
  case A_DICTCOMP: {
    /* its own scope: the first iterable is read outside, the rest reads
     * what the `for` targets do not bind (and binds nothing outside) */
    NameSet reads = {0}, locals = {0};
    for (int i = 0; i < e->generators.n; i++) {
      const Ast *g = e->generators.items[i];
      activity_expr_reads(a, g->iter, i ? &reads : out);
      target_binds(a, g->target, &locals);
      list_reads(a, &g->ifs, &reads);
    }
    activity_expr_reads(a, ast_child(e, AF_key), &reads);
    activity_expr_reads(a, e->value, &reads);
    for (int i = 0; i < reads.n; i++)
      if (!activity_set_has(&locals, reads.v[i])) activity_set_add(a, out, reads.v[i]);
    return;
  }
  default: break;
  }
  /* every other expression: its children, whatever fields its kind uses */
  static const AstField kids[] = {AF_value, AF_left,  AF_right, AF_test,    AF_func,        AF_slice,
                                  AF_lower, AF_upper, AF_step,  AF_operand, AF_format_spec};
  for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
    activity_expr_reads(a, ast_child(e, kids[i]), out);
  static const AstField lists[] = {AF_args, AF_keywords, AF_values, AF_keys, AF_elts, AF_comparators};
  for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
    if (ast_has(e, lists[i])) list_reads(a, ast_list_field(e, lists[i]), out);
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
  case A_DELETE: /* `del x` binds x (Python's rule), so a branch's or body's del is part of its state */
    for (int i = 0; i < s->targets.n; i++) target_binds(a, s->targets.items[i], out);
    break;
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
    activity_expr_reads(a, ast_child(s, AF_value), out);
    activity_expr_reads(a, ast_child(s, AF_test), out);
    activity_expr_reads(a, ast_child(s, AF_msg), out);
    activity_expr_reads(a, ast_child(s, AF_exc), out);
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
    for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) declared(a, b.cur, kind, out);
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

/* Sets of the names a function binds, as bit vectors over its sorted
 * "universe" of such names: unions and differences cost a few words even
 * for functions with thousands of names. */
typedef uint64_t Word;

typedef struct FnRec {
  const Ast *fn;
  ActFunc info;
  const char **names;  /* the universe, sorted: bit i is names[i] */
  int n, w;            /* names, words per set */
} FnRec;

struct ActStmt {
  const FnRec *f;
  Word *sets[4];          /* ActSet order: modified, live_in, live_out, defined_in */
  /* what the statement itself does, computed once */
  Word *gen;              /* names read (for a loop: read at its head; `for`: iterable and extra test) */
  Word *kill;             /* names bound (for a `for`: its target) */
  Word *clo;              /* a def's free variables */
  Word *decl;             /* global/nonlocal: the names declared (they count as defined) */
  /* dataflow state */
  Word *closure_in;       /* free variables of nested defs that reach here: always live */
  Word *fwd_head, *clo_head, *bwd_head;  /* loops: head states, grown to a fixpoint */
};

typedef struct FuncSlot {
  const Ast *fn;
  FnRec *rec;
} FuncSlot;

struct Activity {
  Arena *a;               /* records and results */
  Arena tmp;              /* one pass's temporaries */
  ActExtraTest extra_test;
  void *ud;
  const Ast **keys;       /* open-addressing map: statement -> record */
  ActStmt **vals;
  int cap, n;
  FuncSlot *funcs;
  int nfuncs, capfuncs;
  const FnRec *cur;       /* the function being analyzed */
  bool changed;           /* a loop head grew during this pass */
};

Activity *activity_new(Arena *scratch, ActExtraTest extra_test, void *ud) {
  Activity *act = arena_alloc(scratch, sizeof *act);
  act->a = scratch;
  arena_init(&act->tmp);
  act->extra_test = extra_test;
  act->ud = ud;
  return act;
}

/* bit vectors */

static Word *bs_new(Activity *act, Arena *a) { return arena_alloc(a, sizeof(Word) * (size_t)(act->cur->w ? act->cur->w : 1)); }
static Word *bs_tmp(Activity *act) { return bs_new(act, &act->tmp); }

static Word *bs_dup(Activity *act, const Word *s) {
  Word *d = bs_tmp(act);
  memcpy(d, s, sizeof(Word) * (size_t)act->cur->w);
  return d;
}

static void bs_or(const Activity *act, Word *d, const Word *s) {
  for (int i = 0; i < act->cur->w; i++) d[i] |= s[i];
}

static void bs_andnot(const Activity *act, Word *d, const Word *s) {
  for (int i = 0; i < act->cur->w; i++) d[i] &= ~s[i];
}

static bool bs_subset(const Activity *act, const Word *a, const Word *b) {
  for (int i = 0; i < act->cur->w; i++)
    if (a[i] & ~b[i]) return false;
  return true;
}

/* Store s into a record field, allocating it the first time. */
static void bs_store(Activity *act, Word **field, const Word *s) {
  if (!*field) *field = bs_new(act, act->a);
  memcpy(*field, s, sizeof(Word) * (size_t)act->cur->w);
}

static int name_index(const FnRec *f, const char *name) {
  if (!name) return -1; /* a bare `*` parameter */
  int lo = 0, hi = f->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    int c = strcmp(f->names[mid], name);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/* The names of ns that are in the universe, as bits (a fresh record-lifetime vector). */
static Word *bs_of(Activity *act, const NameSet *ns) {
  Word *d = bs_new(act, act->a);
  for (int i = 0; i < ns->n; i++) {
    int k = name_index(act->cur, ns->v[i]);
    if (k >= 0) d[k / 64] |= (Word)1 << (k % 64);
  }
  return d;
}

bool activity_has(const ActStmt *r, ActSet set, const char *name) {
  if (!r || !name || set < 0 || set > ACT_DEFINED_IN || !r->sets[set]) return false;
  int k = name_index(r->f, name);
  return k >= 0 && (r->sets[set][k / 64] >> (k % 64) & 1);
}

bool activity_tracks(const ActStmt *r, const char *name) { return r && name_index(r->f, name) >= 0; }

NameSet activity_names(Arena *a, const ActStmt *r, ActSet set) {
  NameSet ns = {0};
  if (!r || set < 0 || set > ACT_DEFINED_IN || !r->sets[set]) return ns;
  for (int k = 0; k < r->f->n; k++)
    if (r->sets[set][k / 64] >> (k % 64) & 1) activity_set_add(a, &ns, r->f->names[k]);
  return ns;
}

/* the statement map */

static size_t ptr_hash(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 29;
  return (size_t)x;
}

static ActStmt *rec_find(const Activity *act, const Ast *s) {
  if (!act->cap) return NULL;
  for (size_t i = ptr_hash(s) & (size_t)(act->cap - 1);; i = (i + 1) & (size_t)(act->cap - 1)) {
    if (act->keys[i] == s) return act->vals[i];
    if (!act->keys[i]) return NULL;
  }
}

static void rec_insert(Activity *act, const Ast *s, ActStmt *r) {
  if ((act->n + 1) * 2 > act->cap) {
    int ocap = act->cap;
    const Ast **okeys = act->keys;
    ActStmt **ovals = act->vals;
    act->cap = ocap ? ocap * 2 : 64;
    act->keys = arena_alloc(act->a, sizeof *act->keys * (size_t)act->cap);
    act->vals = arena_alloc(act->a, sizeof *act->vals * (size_t)act->cap);
    act->n = 0;
    for (int j = 0; j < ocap; j++)
      if (okeys[j]) rec_insert(act, okeys[j], ovals[j]);
  }
  size_t i = ptr_hash(s) & (size_t)(act->cap - 1);
  while (act->keys[i]) i = (i + 1) & (size_t)(act->cap - 1);
  act->keys[i] = s;
  act->vals[i] = r;
  act->n++;
}

const ActStmt *activity_stmt(const Activity *act, const Ast *stmt) { return act && stmt ? rec_find(act, stmt) : NULL; }

const ActFunc *activity_func(const Activity *act, const Ast *fn) {
  if (!act) return NULL;
  for (int i = 0; i < act->nfuncs; i++)
    if (act->funcs[i].fn == fn) return &act->funcs[i].rec->info;
  return NULL;
}

/* The record of s, with what s itself reads and binds (computed on first sight). */
static ActStmt *rec_get(Activity *act, const Ast *s) {
  ActStmt *r = rec_find(act, s);
  if (r) return r;
  r = arena_alloc(act->a, sizeof *r);
  r->f = act->cur;
  Arena *a = act->a;
  NameSet gen = {0}, kill = {0}, clo = {0}, decl = {0}, mod = {0};
  switch (s->kind) {
  case A_IF:
  case A_WHILE:
    activity_expr_reads(a, s->test, &gen);
    activity_stmt_binds(a, s, &mod);
    break;
  case A_FOR:
    activity_expr_reads(a, s->iter, &gen);
    if (act->extra_test) activity_expr_reads(a, act->extra_test(act->ud, s), &gen);
    target_reads(a, s->target, &gen);
    target_binds(a, s->target, &kill);
    activity_set_union(a, &mod, &kill);
    block_binds(a, &s->body, &mod);
    break;
  case A_WITH:
    for (int i = 0; i < s->items.n; i++)
      if (s->items.items[i]) {
        activity_expr_reads(a, s->items.items[i]->context_expr, &gen);
        target_reads(a, s->items.items[i]->optional_vars, &gen);
        target_binds(a, s->items.items[i]->optional_vars, &kill);
      }
    break;
  case A_TRY:
    for (int i = 0; i < s->handlers.n; i++)
      if (s->handlers.items[i]) activity_expr_reads(a, s->handlers.items[i]->type, &gen);
    break;
  case A_RETURN: activity_expr_reads(a, s->value, &gen); break;
  case A_RAISE:
    activity_expr_reads(a, s->exc, &gen);
    activity_expr_reads(a, s->value, &gen);
    break;
  case A_DELETE:
    for (int i = 0; i < s->targets.n; i++) target_binds(a, s->targets.items[i], &kill);
    simple_reads(a, s, &gen);
    break;
  case A_GLOBAL:
  case A_NONLOCAL: /* no effect on liveness; they define their names (forward) */
    for (int i = 0; i < s->names.n; i++)
      if (s->names.items[i]) activity_set_add(a, &decl, s->names.items[i]->name);
    break;
  case A_FUNCDEF:
    simple_reads(a, s, &gen);
    activity_set_add(a, &kill, s->name);
    activity_free_reads(a, s, &clo);
    break;
  default:
    simple_reads(a, s, &gen);
    activity_stmt_binds(a, s, &kill);
    break;
  }
  r->gen = bs_of(act, &gen);
  r->kill = bs_of(act, &kill);
  r->clo = bs_of(act, &clo);
  r->decl = bs_of(act, &decl);
  r->sets[ACT_MODIFIED] = bs_of(act, &mod);
  rec_insert(act, s, r);
  return r;
}

/* Grow a loop's stored head to now; note the change so the pass repeats. */
static void grow_head(Activity *act, Word **stored, const Word *now) {
  if (*stored && bs_subset(act, now, *stored)) return;
  bs_store(act, stored, now);
  act->changed = true;
}

/* Forward state: names possibly defined, and free variables of the nested defs that reach. */
typedef struct Fwd {
  Word *def, *clo;
} Fwd;

static Fwd fwd_dup(Activity *act, const Fwd *f) { return (Fwd){bs_dup(act, f->def), bs_dup(act, f->clo)}; }

static void fwd_join(Activity *act, Fwd *dst, const Fwd *src) {
  bs_or(act, dst->def, src->def);
  bs_or(act, dst->clo, src->clo);
}

static Fwd fwd_stmt(Activity *act, const Ast *s, const Fwd *in);

static Fwd fwd_block(Activity *act, const AstList *l, const Fwd *in) {
  Fwd cur = fwd_dup(act, in);
  for (int i = 0; i < l->n; i++)
    if (l->items[i]) cur = fwd_stmt(act, l->items[i], &cur);
  return cur;
}

static Fwd fwd_loop(Activity *act, ActStmt *r, const Ast *s, const Fwd *in) {
  Fwd head = fwd_dup(act, in);
  if (r->fwd_head) bs_or(act, head.def, r->fwd_head);
  if (r->clo_head) bs_or(act, head.clo, r->clo_head);
  Fwd body_in = fwd_dup(act, &head);
  bs_or(act, body_in.def, r->kill); /* a for's target */
  Fwd body_out = fwd_block(act, &s->body, &body_in);
  fwd_join(act, &head, &body_out);
  grow_head(act, &r->fwd_head, head.def);
  grow_head(act, &r->clo_head, head.clo);
  return fwd_block(act, &s->orelse, &head);
}

static Fwd fwd_stmt(Activity *act, const Ast *s, const Fwd *in) {
  ActStmt *r = rec_get(act, s);
  bs_store(act, &r->sets[ACT_DEFINED_IN], in->def);
  bs_store(act, &r->closure_in, in->clo);
  switch (s->kind) {
  case A_IF: {
    Fwd t = fwd_block(act, &s->body, in), e = fwd_block(act, &s->orelse, in);
    fwd_join(act, &t, &e);
    return t;
  }
  case A_WHILE:
  case A_FOR: return fwd_loop(act, r, s, in);
  case A_WITH: {
    Fwd x = fwd_dup(act, in);
    bs_or(act, x.def, r->kill);
    return fwd_block(act, &s->body, &x);
  }
  case A_TRY: {
    Fwd b = fwd_block(act, &s->body, in);
    Fwd out = fwd_block(act, &s->orelse, &b);
    for (int i = 0; i < s->handlers.n; i++) {
      const Ast *h = s->handlers.items[i];
      if (!h) continue;
      Fwd hin = fwd_dup(act, &b); /* an exception may come after any part of the body */
      NameSet nm = {0};
      activity_set_add(act->a, &nm, h->name);
      bs_or(act, hin.def, bs_of(act, &nm));
      Fwd hout = fwd_block(act, &h->body, &hin);
      fwd_join(act, &out, &hout);
    }
    return fwd_block(act, &s->finalbody, &out);
  }
  case A_GLOBAL:
  case A_NONLOCAL: {
    Fwd out = fwd_dup(act, in);
    bs_or(act, out.def, r->decl);
    return out;
  }
  case A_FUNCDEF: {
    Fwd out = fwd_dup(act, in);
    bs_or(act, out.def, r->kill);
    bs_or(act, out.clo, r->clo);
    return out;
  }
  default: {
    Fwd out = fwd_dup(act, in);
    if (s->kind != A_DELETE) bs_or(act, out.def, r->kill);
    return out;
  }
  }
}

static Word *bwd_stmt(Activity *act, const Ast *s, const Word *out);

static Word *bwd_block(Activity *act, const AstList *l, const Word *out) {
  Word *cur = bs_dup(act, out);
  for (int i = l->n - 1; i >= 0; i--)
    if (l->items[i]) cur = bwd_stmt(act, l->items[i], cur);
  return cur;
}

static Word *bwd_stmt(Activity *act, const Ast *s, const Word *out) {
  ActStmt *r = rec_get(act, s);
  bs_store(act, &r->sets[ACT_LIVE_OUT], out);
  Word *in;
  switch (s->kind) {
  case A_IF:
    in = bwd_block(act, &s->body, out);
    bs_or(act, in, bwd_block(act, &s->orelse, out));
    bs_or(act, in, r->gen);
    break;
  case A_WHILE: {
    /* head = test reads | after | body(head) */
    Word *head = bwd_block(act, &s->orelse, out);
    if (r->bwd_head) bs_or(act, head, r->bwd_head);
    bs_or(act, head, r->gen);
    bs_or(act, head, bwd_block(act, &s->body, head));
    grow_head(act, &r->bwd_head, head);
    in = head;
    break;
  }
  case A_FOR: {
    /* head = iterable and extra-test reads | ((body(head) | after) - target), as at AutoGraph's iterate node */
    Word *head = bs_dup(act, r->gen);
    if (r->bwd_head) bs_or(act, head, r->bwd_head);
    Word *rest = bwd_block(act, &s->orelse, out);
    bs_or(act, rest, bwd_block(act, &s->body, head));
    bs_andnot(act, rest, r->kill);
    bs_or(act, head, rest);
    grow_head(act, &r->bwd_head, head);
    in = head;
    break;
  }
  case A_WITH:
    in = bwd_block(act, &s->body, out);
    bs_andnot(act, in, r->kill);
    bs_or(act, in, r->gen);
    break;
  case A_TRY: {
    Word *fin = bwd_block(act, &s->finalbody, out);
    Word *body_out = bwd_block(act, &s->orelse, fin), *hs = bs_tmp(act);
    for (int i = 0; i < s->handlers.n; i++) {
      const Ast *h = s->handlers.items[i];
      if (!h) continue;
      Word *hb = bwd_block(act, &h->body, fin);
      NameSet nm = {0};
      activity_set_add(act->a, &nm, h->name);
      bs_andnot(act, hb, bs_of(act, &nm));
      bs_or(act, hs, hb);
    }
    bs_or(act, hs, r->gen);
    bs_or(act, body_out, hs);
    in = bwd_block(act, &s->body, body_out);
    bs_or(act, in, hs);
    break;
  }
  case A_RETURN:
  case A_RAISE: /* nothing after it runs */
    in = bs_dup(act, r->gen);
    break;
  default:
    in = bs_dup(act, out);
    bs_andnot(act, in, r->kill);
    bs_or(act, in, r->gen);
    break;
  }
  bs_or(act, in, r->closure_in);
  bs_store(act, &r->sets[ACT_LIVE_IN], in);
  return in;
}

/* The universe of fn: every name it binds (parameters, assignments and
 * other bindings in nested blocks, global/nonlocal declarations). */
static void universe(Activity *act, FnRec *f) {
  NameSet all = {0};
  for (int i = 0; i < f->fn->args.n; i++)
    if (f->fn->args.items[i]) activity_set_add(act->a, &all, f->fn->args.items[i]->name);
  block_binds(act->a, &f->fn->body, &all);
  activity_set_union(act->a, &all, &f->info.globals);
  activity_set_union(act->a, &all, &f->info.nonlocals);
  f->names = all.v;
  f->n = all.n;
  f->w = (all.n + 63) / 64;
}

/* Repeat whole-function passes until no loop head grows; the bound only
 * guards against a bug turning into a hang (heads only grow). */
#define MAX_PASSES 10000

void activity_analyze(Activity *act, const Ast *fn) {
  if (!act || !fn) return;
  Arena *a = act->a;
  if (act->nfuncs == act->capfuncs) {
    int cap = act->capfuncs ? act->capfuncs * 2 : 8;
    FuncSlot *f = arena_alloc(a, sizeof *f * (size_t)cap);
    if (act->nfuncs) memcpy(f, act->funcs, sizeof *f * (size_t)act->nfuncs);
    act->funcs = f;
    act->capfuncs = cap;
  }
  FnRec *f = arena_alloc(a, sizeof *f);
  f->fn = fn;
  declared(a, &fn->body, A_GLOBAL, &f->info.globals);
  declared(a, &fn->body, A_NONLOCAL, &f->info.nonlocals);
  act->funcs[act->nfuncs++] = (FuncSlot){fn, f};
  universe(act, f);
  act->cur = f;

  Fwd entry = {bs_new(act, a), bs_new(act, a)};
  for (int i = 0; i < fn->args.n; i++)
    if (fn->args.items[i]) {
      int k = name_index(f, fn->args.items[i]->name);
      if (k >= 0) entry.def[k / 64] |= (Word)1 << (k % 64);
    }
  for (int pass = 0; pass < MAX_PASSES; pass++) {
    act->changed = false;
    fwd_block(act, &fn->body, &entry);
    arena_free(&act->tmp);
    if (!act->changed) break;
  }
  Word *none = bs_new(act, a);
  for (int pass = 0; pass < MAX_PASSES; pass++) {
    act->changed = false;
    bwd_block(act, &fn->body, none);
    arena_free(&act->tmp);
    if (!act->changed) break;
  }
  act->cur = NULL;
}
