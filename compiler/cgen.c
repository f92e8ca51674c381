/* cgen.c — AST -> C glue: every expression becomes runtime calls on owned temporaries, with #line mapping.
 *
 * Conventions of the emitted code (see runtime/object/abi.h for the ABI):
 *  - every temporary `tN` holds an OWNED reference, released right after use;
 *  - locals `L_x` own their value; captured locals live in cells `C_x`;
 *    free variables are cells `F_x` fetched from the function object;
 *  - module globals are slots `G<m>[i]`; constants, builtins and cached
 *    builtin-module attributes are slots `K[i]`, filled once at start-up;
 *  - `rt_cur_loc = N` precedes each operation that may fail, so runtime
 *    errors point at the user's line and column.
 */
#include "cgen.h"

#include "objcache.h"
#include "unparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The number in a module's C names (G<n>, F<n>_<id>, ...): a unit of its own
 * (tfs run's library modules) says 0, so its text is the same in every
 * program that imports it. */
#define CN(m) ((m)->unit ? 0 : (m)->index)

/* A constant slot: strings, builtins, attributes of builtin modules. */
typedef struct Const {
  int kind;                   /* 0 str, 1 builtin, 2 attribute of another const, 3 bytes */
  const char *s;              /* str or bytes data / builtin name / attribute name */
  size_t len;
  int base;                   /* kind 2: const index of the object */
} Const;

/* A converted (AutoGraph) function, found again from its original by position. */
typedef struct ConvFn {
  int module, line, col;
  const char *name;
  Scope *scope;               /* in the converted module's ScopeInfo */
} ConvFn;

typedef struct Cg {
  Program *p;
  ConvFn *conv;
  int nconv, cconv;
  StrBuf decls, funcs;
  Const *consts;
  int nconsts, cconsts;
  RtLoc *locs;
  int nlocs, clocs;
  int loc_base;               /* an input of the prompt: locations number on from the previous units' */
  bool ok;
  bool method_next;           /* the next function generated is a method (super() works in it) */
  const char *method_class;   /* ... of this class */
  bool discard;               /* tfsc --check: diagnostics only; each function's C is dropped once made */
  /* tfs run: the original (eager) bodies of @tf.function definitions go to
   * a second unit, compiled only if one runs (compiler/jit.c); a program
   * whose tf.functions only run as graphs never pays libtcc for them. */
  StrBuf *lazy;               /* that unit's text (NULL: one unit) */
  StrBuf lazy_decls, lazy_funcs;
  StrBuf lazy_refs;           /* unit 1's tfs_lazy_refs entries */
  int lazy_gmod;              /* the last module whose G array the lazy unit imports (-1: none) */
  /* Functions whose C is made, per ScopeInfo by scope id: a def in a
   * `finally` block is emitted once per way out of its `try`, its C once. */
  struct Made { const ScopeInfo *si; unsigned char *done; } *made;
  int nmade;
  /* A unit of one module (m->unit): its locations number from the LB_ the
   * runtime gives it at start-up, its imports go through IM_[], the modules'
   * indices in this program, and its FuncInfos are fixed up to both. */
  const char *lb;             /* "" or "LB_ + ", before every location number */
  int *imports, nimports;     /* IM_[j]: the index of the module imported j-th */
  StrBuf fixups;              /* "&FI0_<id>, " of each FuncInfo */
} Cg;

/* Is this the first time s's C is asked for?  (Marks it made.) */
static bool first_make(Cg *cg, const ScopeInfo *si, const Scope *s) {
  struct Made *m = NULL;
  for (int i = 0; i < cg->nmade && !m; i++)
    if (cg->made[i].si == si) m = &cg->made[i];
  if (!m) {
    cg->made = realloc(cg->made, sizeof *cg->made * (size_t)(cg->nmade + 1));
    if (!cg->made) abort();
    m = &cg->made[cg->nmade++];
    *m = (struct Made){si, calloc((size_t)si->n + 1, 1)};
    if (!m->done) abort();
  }
  if (s->id < 0 || s->id >= si->n) return true;
  if (m->done[s->id]) return false;
  m->done[s->id] = 1;
  return true;
}

/* The C of a finished function joins the unit (`to`), or (checking only) is
 * dropped, so `tfsc --check` holds no more C than one function's. */
static void add_function_text(Cg *cg, StrBuf *to, StrBuf *head, StrBuf *body, StrBuf *foot) {
  if (cg->discard) {
    cg->funcs.len = cg->decls.len = 0;
    return;
  }
  sb_putn(to, head->data, head->len);
  sb_putn(to, body->data, body->len);
  sb_putn(to, foot->data, foot->len);
}

/* An object of unit 1 the lazy unit uses: declared extern there, and bound
 * by name to its address from unit 1's table (its own is static). */
__attribute__((format(printf, 3, 4))) static void lazy_import(Cg *cg, const char *type, const char *fmt, ...) {
  char name[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  sb_printf(&cg->lazy_decls, "extern %s %s;\n", type, name);
  sb_printf(&cg->lazy_refs, "  {\"%.*s\", (void *)&%.*s, 0},\n", (int)strcspn(name, "["), name, (int)strcspn(name, "["), name);
}

/* What leaving a try/with/except block early (return, break, continue) must
 * do first, innermost first: disarm the handler, run the finally body or
 * __exit__, release the exception being handled. */
typedef struct Cleanup {
  int kind;                   /* CU_* */
  int buf;                    /* the RtTryBuf x<buf> to disarm (-1: none) */
  int temp;                   /* CU_WITH: the manager; CU_HANDLER: the exception */
  AstList *finalbody;         /* CU_FINALLY */
  struct Cleanup *up;
} Cleanup;
enum { CU_TRY, CU_FINALLY, CU_WITH, CU_HANDLER };

typedef struct Loop { int id; struct Loop *up; Cleanup *cleanup; } Loop;

/* Per-C-function state. */
typedef struct Fg {
  Cg *cg;
  ProgModule *m;
  ScopeInfo *si;              /* the original or the converted module's scopes */
  const char *tag;            /* "" for original code, "C" for converted code */
  Scope *scope;
  StrBuf body;
  int ntemps, nlabels, ntries;   /* ntemps: the highest temp slot used (T_ has ntemps + 1) */
  int cur;                    /* the temp last allocated: temps are a stack, reset per statement */
  int peak;                   /* the highest temp allocated since the innermost open try (see try_mark) */
  int *its, nits;             /* temps holding for-loop iterators (released at exit) */
  unsigned char *imm;         /* imm[t]: temp t holds a constant None/bool/int/float (no reference) */
  int cimm;
  Loop *loop;
  Cleanup *cleanup;
  int handled;                /* temp of the exception the innermost except clause handles (0: none) */
  Ast *fn;                    /* the function being generated (NULL: module code) */
  bool method;                /* fn is defined directly in a class body */
  Ast *cls;                   /* class body being executed: its names read from the namespace */
  int cls_ns;                 /* temp holding that namespace dict */
  int depth;                  /* indentation */
  int line;                   /* of the last #line in body (0: none yet) */
  int loc_set;                /* what rt_cur_loc holds at the end of body (-1: not known) */
  bool lazy;                  /* the body goes to the lazy unit: what it names of unit 1 is imported */
} Fg;

/* ---- small emit helpers ---------------------------------------------------- */

static void ind(Fg *g) {
  for (int i = 0; i < g->depth + 1; i++) sb_puts(&g->body, "  ");
}

__attribute__((format(printf, 2, 3))) static void emit(Fg *g, const char *fmt, ...) {
  g->loc_set = -1;
  if (g->cg->discard) return;   /* tfsc --check: the function's C would be dropped unread */
  ind(g);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&g->body, fmt, ap);
  va_end(ap);
  sb_putc(&g->body, '\n');
}

/* The next emit leaves rt_cur_loc as it was: it cannot fail or call out. */
static void keep_loc(Fg *g, int loc) { g->loc_set = loc; }

/* Temporaries are statement-local: stmt() gives back every slot its
 * statement took, so T_ grows with the deepest statement and nesting, not
 * with the function's length (a 100,000-statement function had a
 * million-slot T_).  A slot is not reused within its statement, so a temp
 * released early (boolop's result) may still be written again. */
static int tmp(Fg *g) {
  int t = ++g->cur;
  if (t > g->ntemps) g->ntemps = t;
  if (t > g->peak) g->peak = t;
  if (t < g->cimm) g->imm[t] = 0;
  return t;
}
/* A temp that got a constant immediate still holds it when released (a slot
 * is reused only after its statement): no reference to drop.  (Constants
 * were two in five releases of small functions' C.) */
static void mark_imm(Fg *g, int t) {
  if (t >= g->cimm) {
    int cap = g->cimm ? g->cimm : 64;
    while (cap <= t) cap *= 2;
    g->imm = realloc(g->imm, (size_t)cap);
    if (!g->imm) abort();
    memset(g->imm + g->cimm, 0, (size_t)(cap - g->cimm));
    g->cimm = cap;
  }
  g->imm[t] = 1;
}

/* A temp holding an immediate owns nothing: it is left as it is (its slot is
 * written afresh when reused; releasing an immediate drops no reference). */
static void release(Fg *g, int t) {
  if (t < g->cimm && g->imm[t]) return;
  emit(g, "TFS_CLEAR(T_[%d]);", t);
}

/* #line for tcc's diagnostics: the file is named once per function body (its
 * text is contiguous in the unit), a repeated line is not said again. */
static void line_directive(Fg *g, int line) {
  if (line == g->line || g->cg->discard) return;   /* as emit: --check drops the text */
  if (g->line) sb_printf(&g->body, "#line %d\n", line);
  else sb_printf(&g->body, "#line %d \"%s\"\n", line, g->m->path);
  g->line = line;
}

static void error_at(Cg *cg, ProgModule *m, Ast *n, const char *msg) {
  /* errindex: - (passes on a message indexed where it is made) */
  diag_add(&cg->p->diags, m->path, m->source, n->line, n->col, "%s", msg);
  cg->ok = false;
}

static int add_loc(Cg *cg, ProgModule *m, int line, int col) {
  int file = m->unit ? 0 : m->index;
  if (cg->nlocs && cg->locs[cg->nlocs - 1].file == file && cg->locs[cg->nlocs - 1].line == line &&
      cg->locs[cg->nlocs - 1].col == col)
    return cg->loc_base + cg->nlocs - 1;
  if (cg->nlocs == cg->clocs) {
    cg->clocs = cg->clocs ? cg->clocs * 2 : 256;
    cg->locs = realloc(cg->locs, sizeof *cg->locs * (size_t)cg->clocs);
    if (!cg->locs) abort();
  }
  cg->locs[cg->nlocs] = (RtLoc){file, line, col};
  return cg->loc_base + cg->nlocs++;
}

/* rt_cur_loc = N, unless the straight-line code just before set it to N. */
static void set_loc(Fg *g, Ast *n) {
  int loc = add_loc(g->cg, g->m, n->line, n->col);
  if (loc == g->loc_set) return;
  emit(g, "rt_cur_loc = %s%d;", g->cg->lb, loc);
  g->loc_set = loc;
}

static int add_const(Cg *cg, Const c) {
  for (int i = 0; i < cg->nconsts; i++) {
    Const *k = &cg->consts[i];
    if (k->kind == c.kind && k->len == c.len && k->base == c.base && memcmp(k->s, c.s, c.len) == 0) return i;
  }
  if (cg->nconsts == cg->cconsts) {
    cg->cconsts = cg->cconsts ? cg->cconsts * 2 : 64;
    cg->consts = realloc(cg->consts, sizeof *cg->consts * (size_t)cg->cconsts);
    if (!cg->consts) abort();
  }
  cg->consts[cg->nconsts] = c;
  return cg->nconsts++;
}

/* Write a C string literal for arbitrary bytes. */
static void c_string(StrBuf *b, const char *s, size_t n) {
  sb_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') {
      sb_putc(b, '\\');
      sb_putc(b, (char)ch);
    } else if (ch == '\n') {
      sb_puts(b, "\\n\"\n\"");
    } else if (ch < 32 || ch >= 127 || ch == '?') {
      sb_printf(b, "\\%03o", ch); /* octal escapes never swallow following digits beyond 3 */
    } else {
      sb_putc(b, (char)ch);
    }
  }
  sb_putc(b, '"');
}

/* ---- names ------------------------------------------------------------------ */

static Sym *sym_of(Fg *g, const char *name) {
  Sym *y = scope_lookup(g->scope, name);
  if (!y) {
    /* Names introduced by the compiler itself resolve as builtins. */
    return NULL;
  }
  return y;
}

static bool class_binds(Ast *cls, const char *name) {
  for (int i = 0; cls && i < cls->body.n; i++) {
    Ast *b = cls->body.items[i];
    if ((b->kind == A_FUNCDEF || b->kind == A_CLASSDEF) && !strcmp(b->name, name)) return true;
    if (b->kind == A_ASSIGN)
      for (int j = 0; j < b->targets.n; j++)
        if (b->targets.items[j]->kind == A_NAME && !strcmp(b->targets.items[j]->name, name)) return true;
  }
  return false;
}

/* A local read raises while unbound.  A parameter is bound on entry and
 * stays bound unless deleted: no check (it was a tenth of the C of a program
 * of small functions). */
static void local_check(Fg *g, Sym *y, Ast *n) {
  if (!y->param || y->unbinds)
    emit(g, "if (L_%s.tag == VT_UNDEF) { rt_cur_loc = %s%d; rt_unbound_local(\"%s\"); }", n->name, g->cg->lb,
         add_loc(g->cg, g->m, n->line, n->col), n->name);
}

static int load_name(Fg *g, Ast *n) {
  int t = tmp(g);
  if (g->cls && class_binds(g->cls, n->name)) {
    /* Python's LOAD_NAME: the class namespace, and while the body has not bound the name yet,
     * the scopes around the class (`A = A` copies the global A) */
    int k = add_const(g->cg, (Const){0, n->name, strlen(n->name), -1});
    set_loc(g, n);
    emit(g, "T_[%d] = dict_get(T_[%d], K[%d]);", t, g->cls_ns, k);
    emit(g, "if (T_[%d].tag == VT_UNDEF) {", t);
    Ast *cls = g->cls;
    g->cls = NULL;
    int t2 = load_name(g, n);
    g->cls = cls;
    emit(g, "TFS_COPY(T_[%d], T_[%d]); TFS_INCREF(T_[%d]);", t, t2, t);
    release(g, t2);
    emit(g, "}");
    return t;
  }
  Sym *y = sym_of(g, n->name);
  if (y && y->kind == SYM_BUILTIN && y->index == -1) {
    /* an unknown name read by a class body (the only place scope analysis leaves them, as the
     * body may bind it first): Python's NameError when the line runs */
    set_loc(g, n);
    emit(g, "rt_unbound_global(\"%s\"); T_[%d].tag = VT_NONE;", n->name, t);
    return t;
  }
  if ((!y || y->kind == SYM_BUILTIN) && !strcmp(n->name, "__name__")) {
    /* a module's __name__ it does not set: '__main__' for the program, as `if __name__ == "__main__":` expects */
    const char *mod = g->m->index == 0 ? "__main__" : g->m->name;
    int k = add_const(g->cg, (Const){0, mod, strlen(mod), -1});
    emit(g, "TFS_COPY(T_[%d], K[%d]); TFS_INCREF(T_[%d]);", t, k, t);
    return t;
  }
  if (!y || y->kind == SYM_BUILTIN) {
    int k = add_const(g->cg, (Const){1, n->name, strlen(n->name), -1});
    emit(g, "TFS_COPY(T_[%d], K[%d]); TFS_INCREF(T_[%d]);", t, k, t);
    return t;
  }
  switch (y->kind) {
  case SYM_LOCAL:
    local_check(g, y, n);
    emit(g, "TFS_COPY(T_[%d], L_%s); TFS_INCREF(T_[%d]);", t, n->name, t);
    break;
  case SYM_CELL:
    set_loc(g, n);
    emit(g, "T_[%d] = rt_cell_get(C_%s, \"%s\");", t, n->name, n->name);
    break;
  case SYM_FREE:
    set_loc(g, n);
    emit(g, "T_[%d] = rt_cell_get(F_%s, \"%s\");", t, n->name, n->name);
    break;
  case SYM_GLOBAL:
    emit(g, "if (G%d[%d].tag == VT_UNDEF) { rt_cur_loc = %s%d; rt_unbound_global(\"%s\"); }", CN(g->m), y->index, g->cg->lb,
         add_loc(g->cg, g->m, n->line, n->col), n->name);
    emit(g, "TFS_COPY(T_[%d], G%d[%d]); TFS_INCREF(T_[%d]);", t, CN(g->m), y->index, t);
    break;
  default: break;
  }
  return t;
}

/* Store borrowed temp `t` into a name (the store takes its own reference). */
static void store_name(Fg *g, const char *name, int t) {
  Sym *y = sym_of(g, name);
  if (!y) return;
  switch (y->kind) {
  case SYM_LOCAL:
    emit(g, "{ Val o_; TFS_COPY(o_, L_%s); TFS_COPY(L_%s, T_[%d]); TFS_INCREF(L_%s); TFS_DECREF(o_); }", name, name, t, name);
    break;
  case SYM_CELL: emit(g, "rt_cell_set(C_%s, T_[%d]);", name, t); break;
  case SYM_FREE: emit(g, "rt_cell_set(F_%s, T_[%d]);", name, t); break;
  case SYM_GLOBAL:
    emit(g, "{ Val o_; TFS_COPY(o_, G%d[%d]); TFS_COPY(G%d[%d], T_[%d]); TFS_INCREF(G%d[%d]); TFS_DECREF(o_); }", CN(g->m), y->index,
         CN(g->m), y->index, t, CN(g->m), y->index);
    break;
  default: break;
  }
}

/* T_[t] = the compiled module `module`; a unit of its own names it by its
 * place in IM_[], which its start-up fills with this program's indices. */
static void emit_import(Fg *g, int t, int module) {
  if (!g->m->unit) {
    emit(g, "T_[%d] = rt_import(%d);", t, module);
    return;
  }
  Cg *cg = g->cg;
  int j = 0;
  while (j < cg->nimports && cg->imports[j] != module) j++;
  if (j == cg->nimports) {
    cg->imports = realloc(cg->imports, sizeof *cg->imports * (size_t)(j + 1));
    if (!cg->imports) abort();
    cg->imports[cg->nimports++] = module;
  }
  emit(g, "T_[%d] = rt_import(IM_[%d]);", t, j);
}

/* T_[t] = T_[t].a.b for the dotted rest ".a.b" of an import of a .tfs module's submodule. */
static void import_walk(Fg *g, int t, const char *rest) {
  while (rest && *rest == '.') {
    const char *e = strchr(rest + 1, '.');
    int n = e ? (int)(e - rest - 1) : (int)strlen(rest + 1);
    emit(g, "{ Val m_ = rt_module_attr(T_[%d], \"%.*s\"); TFS_DECREF(T_[%d]); TFS_COPY(T_[%d], m_); }", t, n, rest + 1, t, t);
    rest = e;
  }
}

/* `x = value`, the value's temp t released by the store: its reference moves
 * to the local or global (no incref, no release). */
static bool move_to_name(Fg *g, Ast *target, int t) {
  if (target->kind != A_NAME) return false;
  Sym *y = sym_of(g, target->name);
  if (!y) return false;
  if (y->kind == SYM_LOCAL) emit(g, "TFS_MOVE(L_%s, T_[%d]);", target->name, t);
  else if (y->kind == SYM_GLOBAL) emit(g, "TFS_MOVE(G%d[%d], T_[%d]);", CN(g->m), y->index, t);
  else return false;
  return true;
}

static void unbind_name(Fg *g, const char *name) {
  Sym *y = sym_of(g, name);
  if (!y) return;
  switch (y->kind) {
  case SYM_LOCAL: emit(g, "TFS_CLEAR(L_%s);", name); break;
  case SYM_GLOBAL: emit(g, "TFS_CLEAR(G%d[%d]);", CN(g->m), y->index); break;
  default: emit(g, "rt_cell_set(%s_%s, (Val){VT_UNDEF, {0}});", y->kind == SYM_CELL ? "C" : "F", name); break;
  }
}

static void del_name(Fg *g, Ast *n) {
  if (!sym_of(g, n->name)) return;
  int t = load_name(g, n); /* raises if unbound, as Python does */
  release(g, t);
  unbind_name(g, n->name);
}

/* ---- expressions ----------------------------------------------------------- */

/* Deep expressions recurse through expr() (up to the 3,000 levels the nesting
 * check allows), so its frame must stay small: the bulky cases live in
 * functions that are never inlined into it (ASan's redzones would multiply
 * their locals on every level). */
#define CG_OUTLINE __attribute__((noinline))
static int expr(Fg *g, Ast *e);
static void stmts(Fg *g, AstList *l);
CG_OUTLINE static int function_value(Fg *g, Ast *fn);
CG_OUTLINE static int comprehension_value(Fg *g, Ast *e);


static int constant(Fg *g, Ast *e) {
  int t = tmp(g), loc = g->loc_set;
  bool obj = e->const_kind == C_STR || e->const_kind == C_BYTES || e->const_kind == C_ELLIPSIS || e->const_kind == C_IMAG ||
             e->const_kind == C_BIGINT;
  if (!obj) mark_imm(g, t);
  switch (e->const_kind) {
  case C_NONE: emit(g, "TFS_SET(T_[%d], VT_NONE, 0);", t); break;
  case C_TRUE: emit(g, "TFS_SET(T_[%d], VT_BOOL, 1);", t); break;
  case C_FALSE: emit(g, "TFS_SET(T_[%d], VT_BOOL, 0);", t); break;
  case C_INT:
    if (e->ival == INT64_MIN) emit(g, "TFS_SET(T_[%d], VT_INT, -9223372036854775807LL - 1);", t);
    else emit(g, "TFS_SET(T_[%d], VT_INT, %lldLL);", t, (long long)e->ival);
    break;
  case C_BIGINT:
    if (e->str) emit(g, "T_[%d] = rt_bigint_lit(\"%s\");", t, e->str);   /* beyond 2**64 - 1: decimal digits */
    else emit(g, "T_[%d] = rt_u64int(%lluULL);", t, (unsigned long long)ast_bigint(e));
    break;
  case C_FLOAT: {
    /* Exact bits: tcc's decimal float parser is not guaranteed correctly rounded. */
    union { double d; long long i; } u;
    u.d = e->fval;
    emit(g, "TFS_SET(T_[%d], VT_FLOAT, %lldLL); /* %.17g */", t, u.i, e->fval);
    break;
  }
  case C_STR: case C_BYTES: {
    int k = add_const(g->cg, (Const){e->const_kind == C_BYTES ? 3 : 0, e->str, e->slen, -1});
    emit(g, "TFS_COPY(T_[%d], K[%d]); TFS_INCREF(T_[%d]);", t, k, t);
    break;
  }
  case C_ELLIPSIS: emit(g, "T_[%d] = rt_ellipsis();", t); break;
  case C_IMAG: {
    union { double d; long long i; } u;
    u.d = e->fval;
    emit(g, "{ union { double d; long long i; } u_; u_.i = %lldLL; T_[%d] = rt_complex(0.0, u_.d); } /* %.17gj */", u.i, t, e->fval);
    break;
  }
  }
  if (!obj) keep_loc(g, loc);
  return t;
}

/* Emit `Val av[n] = {...}` items as temps; returns first temp id. */
static void seq_items(Fg *g, AstList *l, int *ts) {
  for (int i = 0; i < l->n; i++) ts[i] = expr(g, l->items[i]);
}

static void emit_array(Fg *g, const char *name, int n, const int *ts) {
  ind(g);
  sb_printf(&g->body, "Val %s[%d];", name, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) sb_printf(&g->body, " TFS_COPY(%s[%d], T_[%d]);", name, i, ts[i]);
  sb_putc(&g->body, '\n');
}

static bool has_star(AstList *l) {
  for (int i = 0; i < l->n; i++)
    if (l->items[i]->kind == A_STARRED) return true;
  return false;
}

CG_OUTLINE static int build_seq(Fg *g, Ast *e, const char *ctor) {
  int n = e->elts.n;
  int *ts = calloc((size_t)n + 1, sizeof(int));
  seq_items(g, &e->elts, ts);
  int t = tmp(g);
  emit(g, "{");
  g->depth++;
  emit_array(g, "a_", n, ts);
  set_loc(g, e);   /* a set element may be unhashable */
  emit(g, "T_[%d] = %s(%d, a_);", t, ctor, n);
  g->depth--;
  emit(g, "}");
  for (int i = 0; i < n; i++) release(g, ts[i]);
  free(ts);
  return t;
}

/* Lists/tuples/sets with *x: build a list by extension, then convert with
 * the builtin `conv` (NULL: keep the list).  For the arguments of a call
 * to t`callee` (> 0), a bad *x gets the call's error text. */
CG_OUTLINE static int build_starred(Fg *g, Ast *e, const char *conv, int callee) {
  int t = tmp(g);
  emit(g, "T_[%d] = rt_list(0, 0);", t);
  for (int i = 0; i < e->elts.n; i++) {
    Ast *it = e->elts.items[i];
    if (it->kind == A_STARRED && callee > 0) {
      int v = expr(g, it->value);
      set_loc(g, e);
      emit(g, "rt_star_extend(T_[%d], T_[%d], T_[%d]);", callee, t, v);
      release(g, v);
    } else if (it->kind == A_STARRED) {
      int v = expr(g, it->value);
      int ext = tmp(g);
      set_loc(g, it);
      emit(g, "T_[%d] = rt_getattr(T_[%d], \"extend\");", ext, t);
      int r = tmp(g);
      emit(g, "T_[%d] = rt_call(T_[%d], 1, &T_[%d], 0);", r, ext, v);
      release(g, r);
      release(g, ext);
      release(g, v);
    } else {
      int v = expr(g, it);
      int ap = tmp(g);
      emit(g, "T_[%d] = rt_getattr(T_[%d], \"append\");", ap, t);
      int r = tmp(g);
      emit(g, "T_[%d] = rt_call(T_[%d], 1, &T_[%d], 0);", r, ap, v);
      release(g, r);
      release(g, ap);
      release(g, v);
    }
  }
  if (conv) {
    int tt = tmp(g);
    int k = add_const(g->cg, (Const){1, conv, strlen(conv), -1});
    emit(g, "T_[%d] = rt_call(K[%d], 1, &T_[%d], 0);", tt, k, t);
    release(g, t);
    return tt;
  }
  return t;
}

/* `ag__.ld(v)` with `ag__` the AutoGraph module (converted code reads every
 * name through it): called directly, rt_ag_ld does what the generic call of
 * ag.ld does.  A local is passed as it is, without a copy to a temp. */
static bool is_ag_ld(Fg *g, Ast *e) {
  Ast *f = e->func;
  if (f->kind != A_ATTRIBUTE || strcmp(f->name, "ld") != 0 || f->value->kind != A_NAME ||
      strcmp(f->value->name, "ag__") != 0 || e->args.n != 1 || e->keywords.n || e->args.items[0]->kind == A_STARRED)
    return false;
  Sym *y = sym_of(g, "ag__");
  return !y || y->kind == SYM_BUILTIN;
}

static int ag_ld_value(Fg *g, Ast *e) {
  Ast *a = e->args.items[0];
  Sym *y = a->kind == A_NAME && !(g->cls && class_binds(g->cls, a->name)) ? sym_of(g, a->name) : NULL;
  if (y && y->kind == SYM_LOCAL) {
    local_check(g, y, a);
    int r = tmp(g);
    set_loc(g, e);
    emit(g, "T_[%d] = rt_ag_ld(L_%s);", r, a->name);
    return r;
  }
  int v = expr(g, a), r = tmp(g);
  set_loc(g, e);
  emit(g, "T_[%d] = rt_ag_ld(T_[%d]);", r, v);
  release(g, v);
  return r;
}

/* An operand of a runtime entry that borrows its arguments: a local of this
 * function (or ag__.ld of one) is passed as it is, L_x, with no copy to a
 * temp and no release (nothing inside an expression can rebind a local:
 * a name a nested function assigns is a cell); anything else is a temp. */
typedef struct Opnd { int t; char text[48]; } Opnd;

static Opnd operand(Fg *g, Ast *e) {
  Opnd o = {0, ""};
  bool ld = e->kind == A_CALL && is_ag_ld(g, e);
  Ast *n = ld ? e->args.items[0] : e;
  Sym *y = n->kind == A_NAME && strlen(n->name) < 40 && !(g->cls && class_binds(g->cls, n->name)) ? sym_of(g, n->name)
                                                                                                   : NULL;
  if (!y || y->kind != SYM_LOCAL) {
    o.t = expr(g, e);
    snprintf(o.text, sizeof o.text, "T_[%d]", o.t);
    return o;
  }
  local_check(g, y, n);
  if (ld) {
    set_loc(g, e);
    int loc = g->loc_set;
    emit(g, "rt_ag_check(L_%s);", n->name);
    keep_loc(g, loc);   /* it raises or returns: rt_cur_loc is unchanged */
  }
  snprintf(o.text, sizeof o.text, "L_%s", n->name);
  return o;
}

static void release_operand(Fg *g, Opnd o) {
  if (o.t) release(g, o.t);
}

CG_OUTLINE static int call_expr(Fg *g, Ast *e) {
  if (g->method && e->func->kind == A_NAME && !strcmp(e->func->name, "super") && !e->args.n && !e->keywords.n &&
      g->fn->args.n && (!sym_of(g, "super") || sym_of(g, "super")->kind == SYM_BUILTIN)) {
    /* zero-argument super(): the method's class and first argument */
    Ast self_name = ast_whole(e->func);
    self_name.name = g->fn->args.items[0]->name;
    int s = load_name(g, &self_name);
    int r = tmp(g);
    set_loc(g, e);
    emit(g, "T_[%d] = rt_super(self, T_[%d]);", r, s);
    release(g, s);
    return r;
  }
  if (is_ag_ld(g, e)) return ag_ld_value(g, e);
  int f = expr(g, e->func);
  bool star = has_star(&e->args);
  bool kwstar = false;
  for (int i = 0; i < e->keywords.n; i++)
    if (!e->keywords.items[i]->name) kwstar = true;
  int r = tmp(g);
  if (star || kwstar) {
    /* f(*a, k=v, **kw): positional list -> tuple, keywords -> dict. */
    Ast fake = ast_whole(e);
    fake.kind = A_TUPLE;
    fake.elts = e->args;
    int pos = build_starred(g, &fake, "tuple", f);
    int d = tmp(g);
    emit(g, "T_[%d] = rt_dict(0, 0, 0);", d);
    for (int i = 0; i < e->keywords.n; i++) {
      Ast *kw = e->keywords.items[i];
      int v = expr(g, kw->value);
      set_loc(g, e);
      if (kw->name) {
        int k = add_const(g->cg, (Const){0, kw->name, strlen(kw->name), -1});
        emit(g, "rt_kw_set(T_[%d], T_[%d], K[%d], T_[%d]);", f, d, k, v);
      } else {
        emit(g, "rt_kw_merge(T_[%d], T_[%d], T_[%d]);", f, d, v);
      }
      release(g, v);
    }
    set_loc(g, e);
    emit(g, "T_[%d] = rt_call_star(T_[%d], T_[%d], T_[%d]);", r, f, pos, d);
    release(g, pos);
    release(g, d);
    release(g, f);
    return r;
  }
  int n = e->args.n, nk = e->keywords.n;
  int *ts = calloc((size_t)(n + nk) + 1, sizeof(int));
  seq_items(g, &e->args, ts);
  for (int i = 0; i < nk; i++) ts[n + i] = expr(g, e->keywords.items[i]->value);
  emit(g, "{");
  g->depth++;
  emit_array(g, "a_", n, ts);
  if (nk) {
    ind(g);
    sb_printf(&g->body, "static const char *const kn_[%d] = {", nk);
    for (int i = 0; i < nk; i++) sb_printf(&g->body, "%s\"%s\"", i ? ", " : "", e->keywords.items[i]->name);
    sb_puts(&g->body, "};\n");
    emit_array(g, "kv_", nk, ts + n);
    emit(g, "Kw kw_ = {%d, kn_, kv_};", nk);
  }
  set_loc(g, e);
  emit(g, "T_[%d] = rt_call(T_[%d], %d, a_, %s);", r, f, n, nk ? "&kw_" : "0");
  g->depth--;
  emit(g, "}");
  for (int i = 0; i < n + nk; i++) release(g, ts[i]);
  release(g, f);
  free(ts);
  return r;
}

/* `tf.a.b` on the builtin `tf`/`ag` module resolves once, at start-up. */
static int const_attr_chain(Fg *g, Ast *e) {
  if (e->kind == A_NAME) {
    Sym *y = sym_of(g, e->name);
    if ((!y || y->kind == SYM_BUILTIN) && (strcmp(e->name, "tf") == 0 || strcmp(e->name, "ag") == 0 || strcmp(e->name, "ag__") == 0))
      return add_const(g->cg, (Const){1, e->name, strlen(e->name), -1});
    return -1;
  }
  if (e->kind != A_ATTRIBUTE) return -1;
  int base = const_attr_chain(g, e->value);
  if (base < 0) return -1;
  return add_const(g->cg, (Const){2, e->name, strlen(e->name), base});
}

/* Attributes of builtin modules are looked up once, at their first use (so a
 * missing one fails where it is used, and untaken code costs nothing). */
static void ensure_const(Fg *g, int k, Ast *at) {
  Const *c = &g->cg->consts[k];
  if (c->kind != 2) return;
  int base = c->base;
  const char *name = c->s;
  ensure_const(g, base, at);
  emit(g, "if (K[%d].tag == VT_UNDEF) { rt_cur_loc = %s%d; K[%d] = rt_getattr(K[%d], \"%s\"); }", k, g->cg->lb,
       add_loc(g->cg, g->m, at->line, at->col), k, base, name);
}

/* a and b and c: flat code, one test and a jump to the end per operand, so
 * the C grows linearly with the chain (nested blocks would indent, and nest
 * tcc's parser, once per operand). */
CG_OUTLINE static int boolop(Fg *g, Ast *e) {
  int r = tmp(g);
  int first = expr(g, e->values.items[0]);
  int end = ++g->nlabels;
  emit(g, "TFS_COPY(T_[%d], T_[%d]); T_[%d].tag = VT_UNDEF;", r, first, first);
  for (int i = 1; i < e->values.n; i++) {
    set_loc(g, e->values.items[i - 1]);
    emit(g, "if (%srt_truthy(T_[%d])) goto bend_%d;", e->op == BOOL_AND ? "!" : "", r, end);
    release(g, r);
    int v = expr(g, e->values.items[i]);
    emit(g, "TFS_COPY(T_[%d], T_[%d]); T_[%d].tag = VT_UNDEF;", r, v, v);
  }
  emit(g, "bend_%d:;", end);
  return r;
}

/* a < b < c: each right operand is evaluated once, later ones only while the
 * chain holds; every operand is released on both paths.  Flat code, as for
 * boolop: a failed link jumps to the end. */
CG_OUTLINE static int compare(Fg *g, Ast *e) {
  int r = tmp(g);
  int n = e->comparators.n;
  int end = ++g->nlabels;
  int left = expr(g, e->left);
  for (int i = 0; i < n; i++) {
    int right = expr(g, e->comparators.items[i]);
    set_loc(g, e);
    emit(g, "T_[%d] = rt_compare(%d, T_[%d], T_[%d]);", r, e->ops[i], left, right);
    release(g, left);
    left = right;
    if (i + 1 < n) {
      emit(g, "if (!rt_truthy(T_[%d])) { TFS_CLEAR(T_[%d]); goto cend_%d; }", r, right, end);
      release(g, r);
    }
  }
  release(g, left);
  if (n > 1) emit(g, "cend_%d:;", end);
  return r;
}

static int subscript_key(Fg *g, Ast *s);

CG_OUTLINE static int slice_value(Fg *g, Ast *s) {
  int parts[3];
  Ast *ps[3] = {s->lower, s->upper, s->step};
  for (int i = 0; i < 3; i++) {
    if (ps[i]) parts[i] = expr(g, ps[i]);
    else {
      parts[i] = tmp(g);
      emit(g, "TFS_SET(T_[%d], VT_NONE, 0);", parts[i]);
    }
  }
  int t = tmp(g);
  emit(g, "T_[%d] = rt_slice(T_[%d], T_[%d], T_[%d]);", t, parts[0], parts[1], parts[2]);
  for (int i = 0; i < 3; i++) release(g, parts[i]);
  return t;
}

static int subscript_key(Fg *g, Ast *s) {
  if (s->kind == A_SLICE) return slice_value(g, s);
  if (s->kind == A_TUPLE && !s->parenthesized) {
    int n = s->elts.n;
    int *ts = calloc((size_t)n + 1, sizeof(int));
    for (int i = 0; i < n; i++) ts[i] = subscript_key(g, s->elts.items[i]);
    int t = tmp(g);
    emit(g, "{");
    g->depth++;
    emit_array(g, "a_", n, ts);
    emit(g, "T_[%d] = rt_tuple(%d, a_);", t, n);
    g->depth--;
    emit(g, "}");
    for (int i = 0; i < n; i++) release(g, ts[i]);
    free(ts);
    return t;
  }
  return expr(g, s);
}

CG_OUTLINE static int joinedstr(Fg *g, Ast *e) {
  int n = e->values.n;
  int *ts = calloc((size_t)n + 1, sizeof(int));
  for (int i = 0; i < n; i++) {
    Ast *p = e->values.items[i];
    if (p->kind == A_FORMATTEDVALUE) {
      int v = expr(g, p->value);
      int spec;
      if (p->format_spec) spec = expr(g, p->format_spec);
      else {
        spec = tmp(g);
        emit(g, "TFS_SET(T_[%d], VT_NONE, 0);", spec);
      }
      ts[i] = tmp(g);
      set_loc(g, p);
      char conv[2] = {(char)p->op, 0};
      emit(g, "T_[%d] = rt_format(T_[%d], \"%s\", T_[%d]);", ts[i], v, p->op ? conv : "", spec);
      release(g, v);
      release(g, spec);
    } else {
      ts[i] = expr(g, p);
    }
  }
  int t = tmp(g);
  emit(g, "{");
  g->depth++;
  emit_array(g, "a_", n, ts);
  emit(g, "T_[%d] = rt_fstring(%d, a_);", t, n);
  g->depth--;
  emit(g, "}");
  for (int i = 0; i < n; i++) release(g, ts[i]);
  free(ts);
  return t;
}

static int expr(Fg *g, Ast *e) {
  switch (e->kind) {
  case A_LISTCOMP:
  case A_SETCOMP:
  case A_GENEXP:
  case A_DICTCOMP: return comprehension_value(g, e);
  case A_YIELD:
  case A_YIELDFROM: {
    /* the body runs on its own stack (runtime/object/gen.c): yield is a call that returns what is sent */
    int v;
    if (e->value) {
      v = expr(g, e->value);
    } else {
      v = tmp(g);
      mark_imm(g, v);
      emit(g, "TFS_SET(T_[%d], VT_NONE, 0);", v);
    }
    int t = tmp(g);
    set_loc(g, e);
    emit(g, "T_[%d] = %s(T_[%d]);", t, e->kind == A_YIELD ? "rt_yield" : "rt_yield_from", v);
    release(g, v);
    return t;
  }
  case A_CONSTANT: return constant(g, e);
  case A_NAME: return load_name(g, e);
  case A_BINOP: {
    Opnd a = operand(g, e->left), b = operand(g, e->right);
    int t = tmp(g);
    set_loc(g, e);
    emit(g, "T_[%d] = rt_binop(%d, %s, %s);", t, e->op, a.text, b.text);
    release_operand(g, a);
    release_operand(g, b);
    return t;
  }
  case A_UNARYOP: {
    Opnd a = operand(g, e->operand);
    int t = tmp(g);
    set_loc(g, e);
    if (e->op == UN_NOT) emit(g, "TFS_SET(T_[%d], VT_BOOL, !rt_truthy(%s));", t, a.text);
    else emit(g, "T_[%d] = rt_unop(%d, %s);", t, e->op, a.text);
    release_operand(g, a);
    return t;
  }
  case A_BOOLOP: return boolop(g, e);
  case A_COMPARE: return compare(g, e);
  case A_IFEXP: {
    int r = tmp(g);
    int c = expr(g, e->test);
    set_loc(g, e->test);
    emit(g, "{ int c_ = rt_truthy(T_[%d]); TFS_CLEAR(T_[%d]); if (c_) {", c, c);
    g->depth++;
    int a = expr(g, e->left);
    emit(g, "TFS_COPY(T_[%d], T_[%d]); T_[%d].tag = VT_UNDEF;", r, a, a);
    g->depth--;
    emit(g, "} else {");
    g->depth++;
    int b = expr(g, e->right);
    emit(g, "TFS_COPY(T_[%d], T_[%d]); T_[%d].tag = VT_UNDEF;", r, b, b);
    g->depth--;
    emit(g, "} }");
    return r;
  }
  case A_CALL: return call_expr(g, e);
  case A_ATTRIBUTE: {
    int k = const_attr_chain(g, e);
    int t = tmp(g);
    if (k >= 0) {
      ensure_const(g, k, e);
      emit(g, "TFS_COPY(T_[%d], K[%d]); TFS_INCREF(T_[%d]);", t, k, t);
      return t;
    }
    Opnd o = operand(g, e->value);
    set_loc(g, e);
    emit(g, "T_[%d] = rt_getattr(%s, \"%s\");", t, o.text, e->name);
    release_operand(g, o);
    return t;
  }
  case A_SUBSCRIPT: {
    Opnd o = operand(g, e->value);
    int k = subscript_key(g, e->slice);
    int t = tmp(g);
    set_loc(g, e);
    emit(g, "T_[%d] = rt_getitem(%s, T_[%d]);", t, o.text, k);
    release_operand(g, o);
    release(g, k);
    return t;
  }
  case A_LIST: return has_star(&e->elts) ? build_starred(g, e, NULL, 0) : build_seq(g, e, "rt_list");
  case A_TUPLE: return has_star(&e->elts) ? build_starred(g, e, "tuple", 0) : build_seq(g, e, "rt_tuple");
  case A_SET: return has_star(&e->elts) ? build_starred(g, e, "set", 0) : build_seq(g, e, "rt_set");
  case A_DICT: {
    int n = e->keys.n;
    int *ks = calloc((size_t)(2 * n) + 1, sizeof(int));
    for (int i = 0; i < n; i++) {
      if (e->keys.items[i]) {
        ks[i] = expr(g, e->keys.items[i]);
      } else {   /* {**m}: an undefined key tells rt_dict to merge the mapping */
        ks[i] = tmp(g);
        emit(g, "T_[%d] = (Val){VT_UNDEF, {0}};", ks[i]);
      }
      ks[n + i] = expr(g, e->values.items[i]);
    }
    int t = tmp(g);
    emit(g, "{");
    g->depth++;
    emit_array(g, "k_", n, ks);
    emit_array(g, "v_", n, ks + n);
    set_loc(g, e);
    emit(g, "T_[%d] = rt_dict(%d, k_, v_);", t, n);
    g->depth--;
    emit(g, "}");
    for (int i = 0; i < 2 * n; i++) release(g, ks[i]);
    free(ks);
    return t;
  }
  case A_SLICE: return slice_value(g, e);
  case A_JOINEDSTR: return joinedstr(g, e);
  case A_LAMBDA: return function_value(g, e);
  case A_STARRED:
    error_at(g->cg, g->m, e, "can't use starred expression here");
    return constant(g, &(Ast){.kind = A_CONSTANT, .const_kind = C_NONE});
  default:
    error_at(g->cg, g->m, e, "unsupported expression");
    return constant(g, &(Ast){.kind = A_CONSTANT, .const_kind = C_NONE});
  }
}

/* ---- assignment ---------------------------------------------------------- */

static void assign(Fg *g, Ast *target, int t) {
  switch (target->kind) {
  case A_NAME: store_name(g, target->name, t); break;
  case A_TUPLE:
  case A_LIST: {
    int n = target->elts.n, star = -1;
    for (int i = 0; i < n; i++)
      if (target->elts.items[i]->kind == A_STARRED) star = i;   /* the parser allows one */
    int base = g->cur + 1;
    for (int i = 0; i < n; i++) tmp(g);
    emit(g, "{");
    g->depth++;
    emit(g, "Val u_[%d];", n ? n : 1);
    set_loc(g, target);
    if (star >= 0) emit(g, "rt_unpack_star(T_[%d], %d, %d, u_);", t, star, n - star - 1);
    else emit(g, "rt_unpack(T_[%d], %d, u_);", t, n);
    for (int i = 0; i < n; i++) emit(g, "TFS_COPY(T_[%d], u_[%d]);", base + i, i);
    g->depth--;
    emit(g, "}");
    for (int i = 0; i < n; i++) {
      Ast *el = target->elts.items[i];
      assign(g, el->kind == A_STARRED ? el->value : el, base + i);
      release(g, base + i);
    }
    break;
  }
  case A_SUBSCRIPT: {
    int o = expr(g, target->value);
    int k = subscript_key(g, target->slice);
    set_loc(g, target);
    emit(g, "rt_setitem(T_[%d], T_[%d], T_[%d]);", o, k, t);
    release(g, o);
    release(g, k);
    break;
  }
  case A_ATTRIBUTE: {
    int o = expr(g, target->value);
    set_loc(g, target);
    emit(g, "rt_setattr(T_[%d], \"%s\", T_[%d]);", o, target->name, t);
    release(g, o);
    break;
  }
  default: error_at(g->cg, g->m, target, "cannot assign to expression"); break;
  }
}

static void augassign(Fg *g, Ast *st) {
  Ast *tg = st->target;
  if (tg->kind == A_NAME) {
    int cur = load_name(g, tg);
    int v = expr(g, st->value);
    int r = tmp(g);
    set_loc(g, st);
    emit(g, "T_[%d] = rt_inplace(%d, T_[%d], T_[%d]);", r, st->op, cur, v);
    release(g, cur);
    release(g, v);
    store_name(g, tg->name, r);
    release(g, r);
  } else if (tg->kind == A_SUBSCRIPT || tg->kind == A_ATTRIBUTE) {
    int o = expr(g, tg->value);
    int k = tg->kind == A_SUBSCRIPT ? subscript_key(g, tg->slice) : -1;
    int cur = tmp(g);
    set_loc(g, tg);
    if (k >= 0) emit(g, "T_[%d] = rt_getitem(T_[%d], T_[%d]);", cur, o, k);
    else emit(g, "T_[%d] = rt_getattr(T_[%d], \"%s\");", cur, o, tg->name);
    int v = expr(g, st->value);
    int r = tmp(g);
    set_loc(g, st);
    emit(g, "T_[%d] = rt_inplace(%d, T_[%d], T_[%d]);", r, st->op, cur, v);
    if (k >= 0) emit(g, "rt_setitem(T_[%d], T_[%d], T_[%d]);", o, k, r);
    else emit(g, "rt_setattr(T_[%d], \"%s\", T_[%d]);", o, tg->name, r);
    release(g, cur);
    release(g, v);
    release(g, r);
    release(g, o);
    if (k >= 0) release(g, k);
  } else {
    error_at(g->cg, g->m, tg, "illegal expression for augmented assignment");
  }
}

/* ---- functions ------------------------------------------------------------- */

static void gen_function(Cg *cg, ProgModule *m, ScopeInfo *si, const char *tag, Ast *fn, Scope *s);

/* The parameters of a def/lambda without the bare `*` separator, in the
 * order FuncInfo wants: [positional..., *args, keyword-only..., **kwargs]
 * (the order Python's grammar already imposes). */
typedef struct Params {
  Ast **p;
  int n, nkwonly, varargs, varkw, nposonly;
} Params;

static Params params_of(Ast *fn) {
  Params ps = {calloc((size_t)fn->args.n + 1, sizeof(Ast *)), 0, 0, 0, 0, 0};
  if (!ps.p) abort();
  bool after_star = false;
  for (int i = 0; i < fn->args.n; i++) {
    Ast *a = fn->args.items[i];
    if (a->is_kwstar) ps.varkw = 1;
    else if (a->is_star) {
      after_star = true;
      if (a->name) ps.varargs = 1;
    } else if (after_star) ps.nkwonly++;
    if (a->is_posonly) ps.nposonly++;
    if (a->name) ps.p[ps.n++] = a;
  }
  return ps;
}

/* Open a C loop over iterator I`it` that binds each item to target (errors at `at`). */
/* A temporary that holds a for-loop iterator: released at the function's
 * exit too, since a return or an error may leave the loop early. */
static int iter_tmp(Fg *g) {
  int it = tmp(g);
  for (int i = 0; i < g->nits; i++)
    if (g->its[i] == it) return it;   /* slots are reused: one release at exit each */
  g->its = realloc(g->its, sizeof(int) * (size_t)(g->nits + 1));
  if (!g->its) abort();
  g->its[g->nits++] = it;
  return it;
}

static void loop_head(Fg *g, int it, Ast *target, Ast *at) {
  int x = tmp(g);
  emit(g, "for (;;) {");
  g->depth++;
  set_loc(g, at);
  emit(g, "if (!rt_next(T_[%d], &T_[%d])) break;", it, x);
  assign(g, target, x);
  release(g, x);
}

/* The function object of scope s, closing over its free variables, with nd
 * defaults in temporaries ds. */
static int closure(Fg *g, Scope *s, int nd, const int *ds) {
  int t = tmp(g);
  emit(g, "{");
  g->depth++;
  emit_array(g, "d_", nd, ds);
  ind(g);
  sb_printf(&g->body, "Obj *c_[%d] = {", s->nfrees ? s->nfrees : 1);
  for (int i = 0; i < s->nfrees; i++) {
    Sym *here = scope_lookup(g->scope, s->frees[i]->name);
    sb_printf(&g->body, "%s%s_%s", i ? ", " : "", here && here->kind == SYM_CELL ? "C" : "F", s->frees[i]->name);
  }
  if (!s->nfrees) sb_puts(&g->body, "0");
  sb_puts(&g->body, "};\n");
  emit(g, "T_[%d] = rt_func_new(&FI%s%d_%d, %d, d_, %d, c_);", t, g->tag, CN(g->m), s->id, nd, s->nfrees);
  if (g->lazy) lazy_import(g->cg, "const FuncInfo", "FI%s%d_%d", g->tag, CN(g->m), s->id);
  g->depth--;
  emit(g, "}");
  return t;
}

/* A comprehension runs as a function of its own (Python 3 scoping) called
 * with the iterator of its first iterable, which the enclosing scope
 * evaluates.  A generator expression's function is a generator function:
 * the call makes the generator, which runs the loops lazily. */
CG_OUTLINE static int comprehension_value(Fg *g, Ast *e) {
  Scope *s = scope_of(g->si, e);
  gen_function(g->cg, g->m, g->si, g->tag, e, s);
  Ast *first = e->generators.items[0]->iter;
  int src = expr(g, first), it = tmp(g);
  set_loc(g, e);   /* Python points at the whole comprehension */
  emit(g, "T_[%d] = rt_iter(T_[%d]);", it, src);
  release(g, src);
  int f = closure(g, s, 0, NULL), r = tmp(g);
  set_loc(g, e);
  emit(g, "T_[%d] = rt_call(T_[%d], 1, &T_[%d], 0);", r, f, it);
  release(g, f);
  release(g, it);
  return r;
}

/* The loops of a comprehension's function: clause i, then the next, then the
 * element added to the result t`acc`. */
static void comprehension_loop(Fg *g, Ast *e, int i, int acc) {
  Ast *gen = e->generators.items[i];
  int it = iter_tmp(g);
  if (i == 0) {
    emit(g, "TFS_COPY(T_[%d], args[0]); TFS_INCREF(T_[%d]);", it, it);
  } else {
    int src = expr(g, gen->iter);
    set_loc(g, e);
    emit(g, "T_[%d] = rt_iter(T_[%d]);", it, src);
    release(g, src);
  }
  loop_head(g, it, gen->target, gen->iter);
  for (int k = 0; k < gen->ifs.n; k++) {
    Ast *c = gen->ifs.items[k];
    int t = expr(g, c);
    set_loc(g, c);
    emit(g, "{ int ok_ = rt_truthy(T_[%d]); TFS_CLEAR(T_[%d]); if (!ok_) continue; }", t, t);
  }
  if (i + 1 < e->generators.n) {
    comprehension_loop(g, e, i + 1, acc);
  } else if (e->kind == A_DICTCOMP) {
    int k = expr(g, e->key), v = expr(g, e->value);
    set_loc(g, e->key);
    emit(g, "rt_setitem(T_[%d], T_[%d], T_[%d]);", acc, k, v);
    release(g, k);
    release(g, v);
  } else if (e->kind == A_GENEXP) {
    int v = expr(g, e->value), s = tmp(g);
    set_loc(g, e->value);
    emit(g, "T_[%d] = rt_yield(T_[%d]);", s, v);
    release(g, v);
    release(g, s);
  } else {
    int v = expr(g, e->value);
    set_loc(g, e->value);
    emit(g, "rt_comp_add(T_[%d], T_[%d]);", acc, v);
    release(g, v);
  }
  g->depth--;
  emit(g, "}");
  release(g, it);
}

/* A generator expression's function is a generator (its scope says so):
 * it yields each element as the consumer asks for it. */
static void comprehension_body(Fg *g, Ast *e) {
  if (e->kind == A_GENEXP) {
    comprehension_loop(g, e, 0, -1);
    return;
  }
  int acc = tmp(g);
  if (e->kind == A_DICTCOMP) emit(g, "T_[%d] = rt_dict(0, 0, 0);", acc);
  else if (e->kind == A_SETCOMP) emit(g, "T_[%d] = rt_set(0, 0);", acc);
  else emit(g, "T_[%d] = rt_list(0, 0);", acc);
  comprehension_loop(g, e, 0, acc);
  emit(g, "TFS_COPY(R, T_[%d]); T_[%d].tag = VT_UNDEF;", acc, acc);
}

/* Create the function object for a def/lambda in the current scope. */
CG_OUTLINE static int function_value(Fg *g, Ast *fn) {
  Scope *s = scope_of(g->si, fn);
  gen_function(g->cg, g->m, g->si, g->tag, fn, s);
  /* The positional defaults, then (with keyword-only parameters) one slot per
   * keyword-only parameter, VT_UNDEF where it has no default. */
  Params ps = params_of(fn);
  int npos = ps.n - ps.nkwonly - ps.varargs - ps.varkw, nd = 0;
  for (int i = 0; i < npos; i++)
    if (ps.p[i]->deflt) nd++;
  nd += ps.nkwonly;
  int *ds = calloc((size_t)nd + 1, sizeof(int));
  for (int i = 0, j = 0; i < ps.n; i++) {
    Ast *a = ps.p[i];
    if (i >= npos + ps.varargs && i < npos + ps.varargs + ps.nkwonly && !a->deflt) {
      ds[j] = tmp(g);
      emit(g, "TFS_SET(T_[%d], VT_UNDEF, 0);", ds[j++]);
    } else if (a->deflt) {
      ds[j++] = expr(g, a->deflt);
    }
  }
  free(ps.p);
  int t = closure(g, s, nd, ds);
  for (int i = 0; i < nd; i++) release(g, ds[i]);
  free(ds);
  return t;
}

static void declare_locals(Fg *g, StrBuf *head, Scope *s) {
  for (int i = 0; i < s->nsyms; i++) {
    Sym *y = s->syms[i];
    if (y->kind == SYM_LOCAL) sb_printf(head, "  Val L_%s = {VT_UNDEF, {0}};\n", y->name);
    else if (y->kind == SYM_CELL) sb_printf(head, "  Obj *C_%s = rt_cell_new((Val){VT_UNDEF, {0}});\n", y->name);
  }
  for (int i = 0; i < s->nfrees; i++)
    sb_printf(head, "  Obj *F_%s = rt_func_cell(self, %d);\n", s->frees[i]->name, i);
}

static void release_locals(StrBuf *tail, Scope *s) {
  for (int i = 0; i < s->nsyms; i++) {
    Sym *y = s->syms[i];
    if (y->kind == SYM_LOCAL) sb_printf(tail, "  TFS_DECREF(L_%s);\n", y->name);
    else if (y->kind == SYM_CELL) sb_printf(tail, "  { Val c_ = {VT_OBJ, {.o = C_%s}}; TFS_DECREF(c_); }\n", y->name);
  }
}

/* Declarations, the frame an unwinding error releases, the body, the exit. */
/* Temporaries past this many live on the heap: a function of 100,000
 * statements has about 10 each, and 16 bytes apiece would overrun the C
 * stack in one frame, before the recursion guard can see it. */
enum { CG_STACK_TEMPS = 4096 };

/* The frame's RtFrame.ag: what AutoGraph's error framing makes of it (abi.h RT_AG_*). */
static int frame_ag(const Fg *g, const Scope *s) {
  if (g->m->library) return RT_AG_LIBRARY;
  if (!g->tag || !*g->tag || !g->fn || !s) return RT_AG_PLAIN;
  if (s->parent && s->parent->is_module) return RT_AG_HEAD;
  /* TF's origin info names a lambda's (or a comprehension's) lines by the def around it; only a def has decorators
   * (the other nodes are allocated without them) */
  if (g->fn->kind != A_FUNCDEF) return RT_AG_HELPER;
  /* a def of the user's own inside converted code carries @ag__.autograph_artifact (ag_calls.c);
   * AutoGraph's helpers (if_body, loop_body, get_state...) do not */
  for (int i = 0; i < g->fn->decorators.n; i++) {
    const Ast *d = g->fn->decorators.items[i];
    if (d && d->kind == A_ATTRIBUTE && d->name && strcmp(d->name, "autograph_artifact") == 0) return RT_AG_NESTED;
  }
  return RT_AG_HELPER;
}

static void finish_function(Fg *g, Scope *s, StrBuf *head, StrBuf *tail, StrBuf *foot, const char *name, bool has_r) {
  bool heap = g->ntemps + 1 > CG_STACK_TEMPS;
  if (heap) {
    sb_printf(head, "  int TM_;\n  Val *T_ = rt_temps_new(%d, &TM_);\n", g->ntemps + 1);
  } else {
    sb_printf(head, "  Val T_[%d];\n", g->ntemps + 1);
    sb_printf(head, "  for (int i_ = 0; i_ <= %d; i_++) T_[i_].tag = VT_UNDEF;\n", g->ntemps);
  }
  int nl = 0, nc = 0;
  StrBuf locs, cells;
  sb_init(&locs);
  sb_init(&cells);
  if (has_r) sb_printf(&locs, "&R%s", "");
  nl += has_r;
  for (int i = 0; s && i < s->nsyms; i++) {
    Sym *y = s->syms[i];
    if (y->kind == SYM_LOCAL) sb_printf(&locs, "%s&L_%s", nl++ ? ", " : "", y->name);
    else if (y->kind == SYM_CELL) sb_printf(&cells, "%sC_%s", nc++ ? ", " : "", y->name);
  }
  sb_printf(head, "  Val *const FL_[%d] = {%s};\n", nl ? nl : 1, nl ? locs.data : "0");
  sb_printf(head, "  Obj *const FC_[%d] = {%s};\n", nc ? nc : 1, nc ? cells.data : "0");
  sb_printf(head, "  RtFrame FR_ = {T_, %d, %d, FL_, FC_, %d, \"%s\", 0, %d};\n", g->ntemps + 1, nl, nc, name, frame_ag(g, s));
  sb_puts(head, "  int FM_ = rt_frame_push(&FR_);\n");
  sb_free(&locs);
  sb_free(&cells);
  /* the body (often most of the text) is not copied: it joins the unit between head and foot */
  sb_puts(foot, "out_:\n");
  sb_puts(foot, "  rt_unhold(FM_);\n");
  sb_putn(foot, tail->data, tail->len);
  for (int i = 0; i < g->nits; i++) sb_printf(foot, "  TFS_CLEAR(T_[%d]);\n", g->its[i]);
  if (heap) sb_puts(foot, "  rt_temps_free(T_, TM_);\n");
  free(g->its);
  free(g->imm);
}

static ConvFn *find_conv(Cg *cg, ProgModule *m, Ast *fn) {
  if (fn->kind != A_FUNCDEF) return NULL;
  for (int i = 0; i < cg->nconv; i++) {
    ConvFn *c = &cg->conv[i];
    if (c->module == m->index && c->line == fn->line && c->col == fn->col && strcmp(c->name, fn->name) == 0) return c;
  }
  return NULL;
}

static void record_conv(Cg *cg, ProgModule *m, Ast *fn, Scope *s) {
  if (fn->kind != A_FUNCDEF) return;
  if (cg->nconv == cg->cconv) {
    cg->cconv = cg->cconv ? cg->cconv * 2 : 16;
    cg->conv = realloc(cg->conv, sizeof *cg->conv * (size_t)cg->cconv);
    if (!cg->conv) abort();
  }
  cg->conv[cg->nconv++] = (ConvFn){m->index, fn->line, fn->col, fn->name, s};
}

/* FuncInfo tail for an original function: its to_code text, its converted
 * twin and the map from the twin's free variables to this function's cells. */
static void conv_link(Cg *cg, ProgModule *m, Ast *fn, Scope *s, StrBuf *out) {
  ConvFn *c = find_conv(cg, m, fn);
  if (!c) {
    sb_puts(out, "0, 0, 0, 0");
    return;
  }
  const Ast *conv_fn = c->scope->node;
  char *text = unparse_function(conv_fn, true);
  sb_printf(&cg->decls, "static const int CM%d_%d[%d] = {", CN(m), s->id, c->scope->nfrees ? c->scope->nfrees : 1);
  for (int i = 0; i < c->scope->nfrees; i++) {
    int j = -1;
    for (int k = 0; k < s->nfrees; k++)
      if (strcmp(s->frees[k]->name, c->scope->frees[i]->name) == 0) j = k;
    sb_printf(&cg->decls, "%s%d", i ? ", " : "", j);
  }
  sb_puts(&cg->decls, c->scope->nfrees ? "};\n" : "0};\n");
  c_string(out, text, strlen(text));
  sb_printf(out, ", &FIC%d_%d, CM%d_%d, %d", CN(m), c->scope->id, CN(m), s->id, c->scope->nfrees);
  free(text);
}

/* `@tf.function` or `@tf.function(...)` among fn's decorators, by spelling:
 * a wrong guess only moves a body between units. */
static bool tf_function_decorated(const Ast *fn) {
  for (int i = 0; i < fn->decorators.n; i++) {
    const Ast *d = fn->decorators.items[i];
    if (d->kind == A_CALL) d = d->func;
    if (d->kind == A_ATTRIBUTE && strcmp(d->name, "function") == 0 && d->value->kind == A_NAME &&
        strcmp(d->value->name, "tf") == 0)
      return true;
  }
  return false;
}

/* The original of a decorated function with a converted twin runs only when
 * the tf.function is called eagerly: its body goes to the lazy unit (the
 * twin is what tracing runs; without one the original is traced). */
static bool lazy_body(Cg *cg, ProgModule *m, const char *tag, Ast *fn) {
  return cg->lazy && !*tag && fn->kind == A_FUNCDEF && tf_function_decorated(fn) && find_conv(cg, m, fn);
}

/* The lazy unit reaches K and the module's globals.  Unit 1's F<m>_<id> becomes
 * a stub that has that unit compiled at the first call (tfs_lazy_load, under
 * the JIT's lock) and then always calls the body through LZ<m>_<id>. */
static void lazy_begin(Cg *cg, ProgModule *m) {
  if (cg->lazy_gmod < 0) lazy_import(cg, "Val", "K[]");
  if (cg->lazy_gmod != CN(m)) lazy_import(cg, "Val", "G%d[]", CN(m));   /* modules are generated one by one */
  cg->lazy_gmod = CN(m);
}

static void lazy_stub(Cg *cg, ProgModule *m, Scope *s, const char *name) {
  sb_printf(&cg->lazy_refs, "  {\"FL%d_%d\", (void *)&LZ%d_%d, 1},\n", CN(m), s->id, CN(m), s->id);
  sb_printf(&cg->funcs,
            "static Val (*LZ%d_%d)(struct Func *self, Val *args);\n"
            "static Val F%d_%d(struct Func *self, Val *args) { /* %s: the body is compiled at the first eager call */\n"
            "  if (!LZ%d_%d) tfs_lazy_load(tfs_lazy_refs);\n"
            "  return LZ%d_%d(self, args);\n}\n\n",
            CN(m), s->id, CN(m), s->id, name, CN(m), s->id, CN(m), s->id);
}

static void gen_function(Cg *cg, ProgModule *m, ScopeInfo *si, const char *tag, Ast *fn, Scope *s) {
  if (!first_make(cg, si, s)) return;
  Params ps = params_of(fn);
  Fg g = {.cg = cg, .m = m, .si = si, .tag = tag, .scope = s, .fn = fn, .method = cg->method_next, .loc_set = -1,
          .lazy = lazy_body(cg, m, tag, fn)};
  if (g.lazy) lazy_begin(cg, m);
  cg->method_next = false;
  sb_init(&g.body);
  bool comp = fn->kind == A_LISTCOMP || fn->kind == A_SETCOMP || fn->kind == A_GENEXP || fn->kind == A_DICTCOMP;
  const char *name = fn->kind == A_LAMBDA     ? "<lambda>"
                     : fn->kind == A_LISTCOMP ? "<listcomp>"
                     : fn->kind == A_SETCOMP  ? "<setcomp>"
                     : fn->kind == A_DICTCOMP ? "<dictcomp>"
                     : fn->kind == A_GENEXP   ? "<genexpr>"
                                              : fn->name;
  /* static description */
  sb_printf(&cg->decls, "static Val F%s%d_%d(struct Func *self, Val *args); /* %s */\n", tag, CN(m), s->id, name);
  sb_printf(&cg->decls, "static const char *const P%s%d_%d[%d] = {", tag, CN(m), s->id, ps.n ? ps.n : 1);
  for (int i = 0; i < ps.n; i++) sb_printf(&cg->decls, "%s\"%s\"", i ? ", " : "", ps.p[i]->name);
  if (comp) sb_puts(&cg->decls, "\".0\"");   /* Python's name for the iterator argument */
  else if (!ps.n) sb_puts(&cg->decls, "0");
  sb_puts(&cg->decls, "};\n");
  StrBuf tail_info;
  sb_init(&tail_info);
  /* A comprehension has no AutoGraph twin: it runs as written, also while tracing. */
  if (comp) sb_puts(&tail_info, "0, 0, 0, 0");
  else if (*tag) record_conv(cg, m, fn, s);
  else conv_link(cg, m, fn, s, &tail_info);
  /* a method's name is its qualified name (Python's error texts use it) */
  if (m->unit) sb_printf(&cg->fixups, "&FI%s%d_%d, ", tag, CN(m), s->id);
  sb_printf(&cg->decls, "static %sFuncInfo FI%s%d_%d = {", m->unit ? "" : "const ", tag, CN(m), s->id);
  sb_printf(&cg->decls, "\"%s%s%s\", %d, P%s%d_%d, F%s%d_%d, %d, %d, %s, %d, %d, %d, %d, %d};\n",
            g.method ? cg->method_class : "", g.method ? "." : "", name, comp ? 1 : ps.n, tag,
            CN(m), s->id, tag, CN(m), s->id, add_loc(cg, m, fn->line, fn->col), CN(m),
            *tag && !comp ? "0, 0, 0, 0" : tail_info.data, ps.nkwonly, ps.varargs, ps.varkw, ps.nposonly, s->generator ? 1 : 0);
  sb_free(&tail_info);
  /* body */
  for (int i = 0; i < ps.n; i++) {
    Sym *y = scope_lookup(s, ps.p[i]->name);
    if (y->kind == SYM_CELL) emit(&g, "rt_cell_set(C_%s, args[%d]);", y->name, i);
    else emit(&g, "TFS_COPY(L_%s, args[%d]); TFS_INCREF(L_%s);", y->name, i, y->name);
  }
  free(ps.p);
  if (comp) {
    comprehension_body(&g, fn);
  } else if (fn->kind == A_LAMBDA) {
    int t = expr(&g, fn->value);
    emit(&g, "TFS_COPY(R, T_[%d]); T_[%d].tag = VT_UNDEF;", t, t);
  } else {
    stmts(&g, &fn->body);
  }
  emit(&g, "goto out_;");
  StrBuf head, tail, foot;
  sb_init(&head);
  sb_init(&tail);
  sb_init(&foot);
  if (g.lazy) sb_printf(&head, "Val FL%d_%d(struct Func *self, Val *args) { /* %s */\n", CN(m), s->id, name);
  else sb_printf(&head, "static Val F%s%d_%d(struct Func *self, Val *args) { /* %s */\n", tag, CN(m), s->id, name);
  declare_locals(&g, &head, s);
  sb_puts(&head, "  Val R = {VT_NONE, {0}};\n");
  release_locals(&tail, s);
  finish_function(&g, s, &head, &tail, &foot, name, true);
  sb_puts(&foot, "  return R;\n}\n\n");
  add_function_text(cg, g.lazy ? &cg->lazy_funcs : &cg->funcs, &head, &g.body, &foot);
  if (g.lazy) lazy_stub(cg, m, s, name);
  sb_free(&head);
  sb_free(&tail);
  sb_free(&foot);
  sb_free(&g.body);
}

/* ---- statements -------------------------------------------------------------- */

static void cond_jump(Fg *g, Ast *test, const char *fmt_open) {
  int c = expr(g, test);
  set_loc(g, test);
  emit(g, "{ int c_ = rt_truthy(T_[%d]); TFS_CLEAR(T_[%d]); %s", c, c, fmt_open);
}

/* ---- try and with ------------------------------------------------------------
 * A handler is an RtTryBuf armed by _setjmp in the generated frame itself:
 *     rt_try_enter(&x1); if (_setjmp(&x1) == 0) { body; rt_try_leave(&x1); }
 *     else { ...the error unwound to here... }
 * Temporaries are statement-local, so on the catching side every temporary
 * the protected statements used is released; what deeper frames owned was
 * released by the unwinding (their RtFrame).  Locals live in memory (tcc
 * keeps no variable in a register across calls), so they survive longjmp. */

static void stmt(Fg *g, Ast *st);

/* Leave blocks down to `upto` (a loop's mark, NULL: all) before a jump. */
static void run_cleanups(Fg *g, Cleanup *upto) {
  Cleanup *saved = g->cleanup;
  int saved_handled = g->handled;
  for (Cleanup *c = saved; c && c != upto; c = c->up) {
    if (c->buf >= 0) emit(g, "rt_try_leave(&x%d);", c->buf);
    g->cleanup = c->up;   /* a finally body runs outside its own handler */
    switch (c->kind) {
    case CU_FINALLY: stmts(g, c->finalbody); break;
    case CU_WITH:
      emit(g, "rt_with_exit(T_[%d], (Val){VT_UNDEF, {0}});", c->temp);
      release(g, c->temp);
      break;
    case CU_HANDLER: release(g, c->temp); break;
    default: break;
    }
  }
  g->cleanup = saved;
  g->handled = saved_handled;
}

/* Arm handler x<id>; returns id.  The caller emits the protected code, then
 * catch_begin, the catching code, and "} }". */
static int try_begin(Fg *g) {
  int id = ++g->ntries;
  emit(g, "{ RtTryBuf x%d;", id);
  emit(g, "rt_try_enter(&x%d);", id);
  emit(g, "if (_setjmp(&x%d) == 0) {", id);
  g->depth++;
  return id;
}

/* The temporaries a protected part may leave owned when an error unwinds to
 * its handler: from `first` to the highest taken inside it (slots are reused,
 * so the range ends at the part's own peak, not at the function's). */
typedef struct TryMark { int first, outer_peak; } TryMark;

static TryMark try_mark(Fg *g) {
  TryMark k = {g->cur + 1, g->peak};
  g->peak = g->cur;
  return k;
}

/* Close the protected part (whose temporaries start at k.first) and bind
 * the caught exception to a new temporary, which is returned. */
static int catch_begin(Fg *g, int id, TryMark k) {
  int first_temp = k.first, last = g->peak;
  if (k.outer_peak > g->peak) g->peak = k.outer_peak;   /* an enclosing try's range covers this one */
  g->depth--;
  emit(g, "} else {");
  g->depth++;
  if (last >= first_temp) emit(g, "for (int i_ = %d; i_ <= %d; i_++) TFS_CLEAR(T_[i_]);", first_temp, last);
  int e = tmp(g);
  emit(g, "T_[%d] = rt_try_caught(&x%d);", e, id);
  return e;
}

static void push_cleanup(Fg *g, Cleanup *c, int kind, int buf, int temp, AstList *fin) {
  *c = (Cleanup){kind, buf, temp, fin, g->cleanup};
  g->cleanup = c;
}

/* try / except / else, without finally. */
static void try_except(Fg *g, Ast *st) {
  TryMark first = try_mark(g);
  int id = try_begin(g);
  Cleanup cu;
  push_cleanup(g, &cu, CU_TRY, id, 0, NULL);
  stmts(g, &st->body);
  g->cleanup = cu.up;
  /* else: after the handler is disarmed, still on the no-error path */
  emit(g, "rt_try_leave(&x%d);", id);
  stmts(g, &st->orelse);
  int e = catch_begin(g, id, first);
  int opens = 0;
  bool bare = false;
  for (int i = 0; i < st->handlers.n; i++) {
    Ast *h = st->handlers.items[i];
    if (h->type) {
      int ty = expr(g, h->type);
      set_loc(g, h->type);
      emit(g, "{ int m_ = rt_exc_match(T_[%d], T_[%d]); TFS_CLEAR(T_[%d]); if (m_) {", e, ty, ty);
      opens++;
    } else {
      bare = true;
      emit(g, "{ if (1) {"); /* closed like a typed clause's */
      opens++;
    }
    g->depth++;
    if (h->name) store_name(g, h->name, e);
    Cleanup hc;
    push_cleanup(g, &hc, CU_HANDLER, -1, e, NULL);
    int saved = g->handled;
    g->handled = e;
    stmts(g, &h->body);
    g->handled = saved;
    g->cleanup = hc.up;
    if (h->name) unbind_name(g, h->name);   /* as Python does at the end of the clause */
    g->depth--;
    /* a braced else: the next clause's type expression may take several statements */
    emit(g, "} else {");
    opens++;
    if (bare) break;
  }
  emit(g, "rt_reraise(T_[%d]);", e);
  for (int i = 0; i < opens; i++) emit(g, "}");
  release(g, e);
  g->depth--;
  emit(g, "} }");
}

static void try_stmt(Fg *g, Ast *st) {
  if (!st->finalbody.n) {
    try_except(g, st);
    return;
  }
  TryMark first = try_mark(g);
  int id = try_begin(g);
  Cleanup cu;
  push_cleanup(g, &cu, CU_FINALLY, id, 0, &st->finalbody);
  if (st->handlers.n) try_except(g, st);
  else stmts(g, &st->body);
  g->cleanup = cu.up;
  emit(g, "rt_try_leave(&x%d);", id);
  stmts(g, &st->finalbody);
  int e = catch_begin(g, id, first);
  Cleanup hc;
  push_cleanup(g, &hc, CU_HANDLER, -1, e, NULL);
  stmts(g, &st->finalbody);
  g->cleanup = hc.up;
  emit(g, "rt_reraise(T_[%d]);", e);
  g->depth--;
  emit(g, "} }");
}

/* with a as x, b as y: body  ==  with a as x: with b as y: body */
static void with_stmt(Fg *g, Ast *st, int item) {
  if (item == st->items.n) {
    stmts(g, &st->body);
    return;
  }
  Ast *it = st->items.items[item];
  int mgr = expr(g, it->context_expr);
  TryMark first = try_mark(g);
  int v = tmp(g);
  set_loc(g, it->context_expr);
  emit(g, "T_[%d] = rt_with_enter(T_[%d]);", v, mgr);
  int id = try_begin(g);
  Cleanup cu;
  push_cleanup(g, &cu, CU_WITH, id, mgr, NULL);
  if (it->optional_vars) assign(g, it->optional_vars, v);
  release(g, v);
  with_stmt(g, st, item + 1);
  g->cleanup = cu.up;
  emit(g, "rt_try_leave(&x%d);", id);
  set_loc(g, it->context_expr);
  emit(g, "rt_with_exit(T_[%d], (Val){VT_UNDEF, {0}});", mgr);
  int e = catch_begin(g, id, first);
  set_loc(g, it->context_expr);
  emit(g, "if (!rt_with_exit(T_[%d], T_[%d])) rt_reraise(T_[%d]);", mgr, e, e);
  release(g, e);
  g->depth--;
  emit(g, "} }");
  release(g, mgr);
}

/* Apply st's decorators, innermost first, to temp f (consumed); returns the result's temp. */
static int decorate(Fg *g, Ast *st, int f) {
  for (int i = st->decorators.n - 1; i >= 0; i--) {
    Ast *d = st->decorators.items[i];
    int dv = expr(g, d);
    int r = tmp(g);
    set_loc(g, d);
    emit(g, "T_[%d] = rt_call(T_[%d], 1, &T_[%d], 0);", r, dv, f);
    release(g, dv);
    release(g, f);
    f = r;
  }
  return f;
}

/* class Name(Base): body -- the body runs here, filling a namespace dict
 * (methods, assignments to names, nested classes), then the class is made. */
static int class_value(Fg *g, Ast *st) {
  int nb = st->bases.n;
  int *bs = calloc((size_t)nb + 1, sizeof(int));
  for (int i = 0; i < nb; i++) bs[i] = expr(g, st->bases.items[i]);
  int ns = tmp(g);
  emit(g, "T_[%d] = rt_dict(0, 0, 0);", ns);
  int anns = -1;   /* __annotations__: the annotated names, in order, with their annotations' text */
  for (int i = 0; i < st->body.n; i++) {
    Ast *b = st->body.items[i];
    if ((b->kind != A_ASSIGN && b->kind != A_PASS) || !b->name) continue;
    if (anns < 0) {
      anns = tmp(g);
      emit(g, "T_[%d] = rt_dict(0, 0, 0);", anns);
    }
    const char *colon = strchr(b->name, ':');   /* "x:T" (parse.c) */
    int kn = add_const(g->cg, (Const){0, b->name, (size_t)(colon - b->name), -1});
    int kt = add_const(g->cg, (Const){0, colon + 1, strlen(colon + 1), -1});
    emit(g, "rt_setitem(T_[%d], K[%d], K[%d]);", anns, kn, kt);
  }
  if (anns >= 0) {
    int k = add_const(g->cg, (Const){0, "__annotations__", strlen("__annotations__"), -1});
    emit(g, "rt_setitem(T_[%d], K[%d], T_[%d]);", ns, k, anns);
    release(g, anns);
  }
  Ast *saved_cls = g->cls;
  int saved_ns = g->cls_ns;
  for (int i = 0; i < st->body.n; i++) {
    Ast *b = st->body.items[i];
    line_directive(g, b->line);
    int v = -1;
    const char *name = NULL;
    switch (b->kind) {
    case A_FUNCDEF:
      g->cg->method_next = true;
      g->cg->method_class = st->name;
      v = function_value(g, b);
      g->cls = st;   /* decorators may name class attributes (@x.setter) */
      g->cls_ns = ns;
      v = decorate(g, b, v);
      name = b->name;
      break;
    case A_CLASSDEF:
      g->cls = st;
      g->cls_ns = ns;
      v = class_value(g, b);
      name = b->name;
      break;
    case A_ASSIGN:
      g->cls = st;
      g->cls_ns = ns;
      v = expr(g, b->value);
      for (int j = 0; j < b->targets.n; j++) {
        Ast *tg = b->targets.items[j];
        if (tg->kind != A_NAME) {
          error_at(g->cg, g->m, tg, "only simple names can be assigned in a class body");
          continue;
        }
        int k = add_const(g->cg, (Const){0, tg->name, strlen(tg->name), -1});
        emit(g, "rt_setitem(T_[%d], K[%d], T_[%d]);", ns, k, v);
      }
      release(g, v);
      v = -1;
      break;
    case A_EXPR:
      g->cls = st;
      g->cls_ns = ns;
      release(g, expr(g, b->value));
      break;
    case A_PASS: break;
    default: error_at(g->cg, g->m, b, "only methods and assignments are supported in a class body"); break;
    }
    g->cls = saved_cls;
    g->cls_ns = saved_ns;
    if (name) {
      int k = add_const(g->cg, (Const){0, name, strlen(name), -1});
      emit(g, "rt_setitem(T_[%d], K[%d], T_[%d]);", ns, k, v);
      release(g, v);
    }
  }
  int c = tmp(g);
  emit(g, "{");
  g->depth++;
  emit_array(g, "b_", nb, bs);
  set_loc(g, st);
  const char *mod = g->m->index == 0 ? "__main__" : g->m->name;
  emit(g, "T_[%d] = rt_class_new(\"%s\", %d, b_, T_[%d], \"%s\");", c, st->name, nb, ns, mod);
  g->depth--;
  emit(g, "}");
  for (int i = 0; i < nb; i++) release(g, bs[i]);
  release(g, ns);
  free(bs);
  return decorate(g, st, c);
}

static void stmt_kind(Fg *g, Ast *st);

/* A statement's temporaries are all released by its end: their slots go back. */
static void stmt(Fg *g, Ast *st) {
  int saved = g->cur;
  stmt_kind(g, st);
  g->cur = saved;
}

static void stmt_kind(Fg *g, Ast *st) {
  line_directive(g, st->line);
  switch (st->kind) {
  case A_EXPR: {
    int t = expr(g, st->value);
    if (g->m->input && !g->fn) {   /* typed at the prompt: echoed, as Python's interactive mode does */
      set_loc(g, st);
      emit(g, "rt_repl_echo(T_[%d]);", t);
    }
    release(g, t);
    break;
  }
  case A_ASSIGN: {
    int t = expr(g, st->value);
    if (st->targets.n == 1 && move_to_name(g, st->targets.items[0], t)) break;
    for (int i = 0; i < st->targets.n; i++) assign(g, st->targets.items[i], t);
    release(g, t);
    break;
  }
  case A_AUGASSIGN: augassign(g, st); break;
  case A_PASS: break;
  case A_RETURN: {
    if (g->scope->is_module) {
      error_at(g->cg, g->m, st, "'return' outside function");
      break;
    }
    int t;
    if (st->value) t = expr(g, st->value);
    else {
      t = tmp(g);
      emit(g, "TFS_SET(T_[%d], VT_NONE, 0);", t);
    }
    emit(g, "TFS_DECREF(R); TFS_COPY(R, T_[%d]); T_[%d].tag = VT_UNDEF;", t, t);
    run_cleanups(g, NULL);
    emit(g, "goto out_;");
    break;
  }
  case A_IF: {
    cond_jump(g, st->test, "if (c_) {");
    g->depth++;
    stmts(g, &st->body);
    g->depth--;
    if (st->orelse.n) {
      emit(g, "} else {");
      g->depth++;
      stmts(g, &st->orelse);
      g->depth--;
    }
    emit(g, "} }");
    break;
  }
  case A_WHILE: {
    Loop lp = {++g->nlabels, g->loop, g->cleanup};
    g->loop = &lp;
    emit(g, "for (;;) {");
    g->depth++;
    cond_jump(g, st->test, "if (!c_) break; }");
    stmts(g, &st->body);
    emit(g, "cont_%d:;", lp.id);
    g->depth--;
    emit(g, "}");
    g->loop = lp.up;
    stmts(g, &st->orelse);
    emit(g, "brk_%d:;", lp.id);
    break;
  }
  case A_FOR: {
    Loop lp = {++g->nlabels, g->loop, g->cleanup};
    int it = iter_tmp(g);
    int src = expr(g, st->iter);
    set_loc(g, st->iter);
    emit(g, "T_[%d] = rt_iter(T_[%d]);", it, src);
    release(g, src);
    g->loop = &lp;
    loop_head(g, it, st->target, st->iter);
    stmts(g, &st->body);
    emit(g, "cont_%d:;", lp.id);
    g->depth--;
    emit(g, "}");
    g->loop = lp.up;
    stmts(g, &st->orelse);
    emit(g, "brk_%d:;", lp.id);
    release(g, it);
    break;
  }
  case A_BREAK:
  case A_CONTINUE:
    if (!g->loop) {
      error_at(g->cg, g->m, st, st->kind == A_BREAK ? "'break' outside loop" : "'continue' not properly in loop");
      break;
    }
    run_cleanups(g, g->loop->cleanup);
    emit(g, "goto %s_%d;", st->kind == A_BREAK ? "brk" : "cont", g->loop->id);
    break;
  case A_FUNCDEF: {
    int f = decorate(g, st, function_value(g, st));
    store_name(g, st->name, f);
    release(g, f);
    break;
  }
  case A_ASSERT: {
    cond_jump(g, st->test, "if (!c_) {");
    g->depth++;
    int m;
    if (st->msg) m = expr(g, st->msg);
    else {
      m = tmp(g);
      emit(g, "TFS_SET(T_[%d], VT_UNDEF, 0);", m);
    }
    set_loc(g, st);
    emit(g, "rt_assert_fail(T_[%d]);", m);
    g->depth--;
    emit(g, "} }");
    break;
  }
  case A_IMPORT:
    for (int i = 0; i < st->names.n; i++) {
      Ast *al = st->names.items[i];
      int t = tmp(g);
      set_loc(g, st);   /* Python's traceback marks the whole statement */
      if (al->id > 0) emit_import(g, t, al->id - 1);
      else emit(g, "T_[%d] = rt_native_module(\"%s\");", t, al->name);
      const char *dot = strchr(al->name, '.');
      if (al->id > 0 && dot) {   /* a .tfs module's submodule: `import os.path` binds os, `as p` the submodule */
        if (al->asname) import_walk(g, t, dot);
        char top[256];
        snprintf(top, sizeof top, "%.*s", (int)(dot - al->name), al->name);
        store_name(g, al->asname ? al->asname : top, t);
      } else if (!al->asname && dot) {   /* `import a.b` (checked above) binds the package a */
        char top[256];
        snprintf(top, sizeof top, "%.*s", (int)(dot - al->name), al->name);
        release(g, t);
        t = tmp(g);
        emit(g, "T_[%d] = rt_native_module(\"%s\");", t, top);
        store_name(g, top, t);
      } else {
        store_name(g, al->asname ? al->asname : al->name, t);
      }
      release(g, t);
    }
    break;
  case A_IMPORTFROM: {
    int t = tmp(g);
    set_loc(g, st);
    if (st->id > 0) emit_import(g, t, st->id - 1);
    else emit(g, "T_[%d] = rt_native_module(\"%s\");", t, st->name);
    if (st->id > 0 && strchr(st->name, '.')) import_walk(g, t, strchr(st->name, '.'));
    for (int i = 0; i < st->names.n; i++) {
      Ast *al = st->names.items[i];
      int v = tmp(g);
      set_loc(g, al);
      emit(g, "T_[%d] = rt_module_attr(T_[%d], \"%s\");", v, t, al->name);
      store_name(g, al->asname ? al->asname : al->name, v);
      release(g, v);
    }
    release(g, t);
    break;
  }
  case A_GLOBAL:
  case A_NONLOCAL: break;
  case A_DELETE:
    for (int i = 0; i < st->targets.n; i++) {
      Ast *tg = st->targets.items[i];
      if (tg->kind == A_NAME) {
        del_name(g, tg);
      } else if (tg->kind == A_SUBSCRIPT) {
        int o = expr(g, tg->value), k = subscript_key(g, tg->slice);
        set_loc(g, tg);
        emit(g, "rt_delitem(T_[%d], T_[%d]);", o, k);
        release(g, o);
        release(g, k);
      } else if (tg->kind == A_ATTRIBUTE) {
        int o = expr(g, tg->value);
        set_loc(g, tg);
        emit(g, "rt_delattr(T_[%d], \"%s\");", o, tg->name);
        release(g, o);
      } else {
        error_at(g->cg, g->m, tg, "cannot delete this expression");
      }
    }
    break;
  case A_RAISE: {
    if (!st->exc) {
      set_loc(g, st);
      if (g->handled) emit(g, "rt_reraise(T_[%d]);", g->handled);
      else emit(g, "rt_raise((Val){VT_NONE, {0}});");
      break;
    }
    int t = expr(g, st->exc);
    if (st->value) {
      int c = expr(g, st->value);
      set_loc(g, st);
      emit(g, "rt_raise_from(T_[%d], T_[%d]);", t, c);
    } else {
      set_loc(g, st);
      emit(g, "rt_raise(T_[%d]);", t);
    }
    break;
  }
  case A_CLASSDEF: {
    int c = class_value(g, st);
    store_name(g, st->name, c);
    release(g, c);
    break;
  }
  case A_TRY: try_stmt(g, st); break;
  case A_WITH: with_stmt(g, st, 0); break;
  default: error_at(g->cg, g->m, st, "unsupported statement"); break;
  }
}

static void stmts(Fg *g, AstList *l) {
  for (int i = 0; i < l->n; i++) stmt(g, l->items[i]);
}

/* ---- modules and the program ------------------------------------------------- */

/* Converted code: only the C functions of converted user functions (found at
 * any statement depth outside function bodies); nested ones follow. */
static void gen_converted(Cg *cg, ProgModule *m, const AstList *body) {
  for (int i = 0; i < body->n; i++) {
    Ast *st = body->items[i];
    if (st->kind == A_FUNCDEF) {
      gen_function(cg, m, &m->conv_scopes, "C", st, scope_of(&m->conv_scopes, st));
      continue;
    }
    if (st->kind == A_CLASSDEF) {
      for (int k = 0; k < st->body.n; k++)
        if (st->body.items[k]->kind == A_FUNCDEF) {
          cg->method_next = true;
          cg->method_class = st->name;
          gen_function(cg, m, &m->conv_scopes, "C", st->body.items[k], scope_of(&m->conv_scopes, st->body.items[k]));
        }
      for (int k = 0; k < st->body.n; k++)
        if (st->body.items[k]->kind == A_CLASSDEF) {
          AstList one = {&st->body.items[k], 1, 1};
          gen_converted(cg, m, &one);
        }
      continue;
    }
    for (AstBlocks b = ast_blocks(st); ast_blocks_next(&b);) gen_converted(cg, m, b.cur);
  }
}

static void gen_module(Cg *cg, ProgModule *m) {
  Scope *s = m->scopes.module;
  Fg g = {.cg = cg, .m = m, .si = &m->scopes, .tag = "", .scope = s, .loc_set = -1};
  sb_init(&g.body);
  int ng = m->scopes.nglobals;
  if (m->input) sb_printf(&cg->decls, "#define G%d tfs_repl_globals   /* the prompt's namespace */\n", CN(m));
  else sb_printf(&cg->decls, "static Val G%d[%d];\n", CN(m), ng ? ng : 1);
  sb_printf(&cg->decls, "static const char *const GN%d[%d] = {", CN(m), ng ? ng : 1);
  for (int i = 0; i < ng; i++) sb_printf(&cg->decls, "%s\"%s\"", i ? ", " : "", m->scopes.globals[i]);
  if (!ng) sb_puts(&cg->decls, "0");
  sb_puts(&cg->decls, "};\n");
  stmts(&g, &m->ast->body);
  StrBuf head, tail, foot;
  sb_init(&head);
  sb_init(&tail);
  sb_init(&foot);
  sb_printf(&head, "static void M%d_init(Val module) { /* %s */\n", CN(m), m->path);
  emit(&g, "goto out_;");
  finish_function(&g, NULL, &head, &tail, &foot, "<module>", false);
  sb_puts(&foot, "}\n\n");
  add_function_text(cg, &cg->funcs, &head, &g.body, &foot);
  sb_free(&head);
  sb_free(&tail);
  sb_free(&foot);
  sb_free(&g.body);
}

static void write_unit(Program *p, Cg *cg, StrBuf *out, bool with_main, int first);

/* Every unit opens with the ABI (runtime/object/abi.h). */
static void prelude(StrBuf *out, const char *what) {
  sb_printf(out, "/* generated by tfsc: %s */\n", what);
  sb_puts(out, tfs_abi_text);
  sb_puts(out, "\nint _setjmp(void *env); /* arms an RtTryBuf in the frame that catches */\n");
}

/* The second unit of tfs run: the eager bodies of tf.functions, with extern
 * declarations of what they use of unit 1 (unit 1's tfs_lazy_refs gives the
 * JIT each one's address). */
static void write_lazy_unit(Cg *cg) {
  prelude(cg->lazy, "the eager bodies of tf.functions, compiled at the first eager call");
  sb_putn(cg->lazy, cg->lazy_decls.data, cg->lazy_decls.len);
  sb_putn(cg->lazy, "\n", 1);
  sb_putn(cg->lazy, cg->lazy_funcs.data, cg->lazy_funcs.len);
}

/* Modules first..p->nmods-1 as one unit; their locations start at *nlocs,
 * which is advanced past them.  Without `out`, only the diagnostics. */
static bool gen_unit(Program *p, StrBuf *out, StrBuf *lazy, bool with_main, int first, int *nlocs) {
  Cg cg = {p, NULL, 0, 0, {0}, {0}, NULL, 0, 0, NULL, 0, 0, *nlocs, true, .discard = !out, .lazy = lazy, .lazy_gmod = -1, .lb = ""};
  sb_init(&cg.decls);
  sb_init(&cg.funcs);
  sb_init(&cg.lazy_decls);
  sb_init(&cg.lazy_funcs);
  sb_init(&cg.lazy_refs);
  if (!cg.loc_base) add_loc(&cg, p->mods[first], 0, 0); /* loc 0: unknown */
  for (int i = first; i < p->nmods; i++)
    if (p->mods[i]->conv && !p->mods[i]->unit) gen_converted(&cg, p->mods[i], &p->mods[i]->conv->body);
  for (int i = first; i < p->nmods; i++)
    if (!p->mods[i]->unit) gen_module(&cg, p->mods[i]);
  if (out) write_unit(p, &cg, out, with_main, first);
  if (out && cg.lazy && cg.lazy_funcs.len) write_lazy_unit(&cg);
  *nlocs = cg.loc_base + cg.nlocs;
  free(cg.consts);
  free(cg.locs);
  free(cg.conv);
  for (int i = 0; i < cg.nmade; i++) free(cg.made[i].done);
  free(cg.made);
  sb_free(&cg.decls);
  sb_free(&cg.funcs);
  sb_free(&cg.lazy_decls);
  sb_free(&cg.lazy_funcs);
  sb_free(&cg.lazy_refs);
  return cg.ok;
}

/* The unit's table of locations. */
static void write_locs(StrBuf *out, const Cg *cg) {
  sb_printf(out, "static const RtLoc LOCS[%d] = {\n", cg->nlocs ? cg->nlocs : 1);
  for (int i = 0; i < cg->nlocs; i++)
    sb_printf(out, "  {%d, %d, %d},\n", cg->locs[i].file, cg->locs[i].line, cg->locs[i].col);
  if (!cg->nlocs) sb_puts(out, "  {0, 0, 0},\n");
  sb_puts(out, "};\n\n");
}

/* Start-up's filling of the unit's constants. */
static void write_consts(StrBuf *out, const Cg *cg) {
  for (int i = 0; i < cg->nconsts; i++) {
    Const *k = &cg->consts[i];
    sb_printf(out, "  K[%d] = ", i);
    if (k->kind == 0 || k->kind == 3) {
      sb_puts(out, k->kind ? "rt_bytes(" : "rt_str(");
      c_string(out, k->s, k->len);
      sb_printf(out, ", %zu);\n", k->len);
    } else if (k->kind == 1) {
      sb_printf(out, "rt_builtin(\"%s\");\n", k->s);
    } else {
      sb_puts(out, "(Val){VT_UNDEF, {0}}; /* resolved at first use */\n");
    }
  }
}

/* The shown path of module m: library frames print as <stdlib>/keras.tfs, the same on every machine and checkout. */
static const char *shown_path(Program *p, const ProgModule *m) {
  const char *slash = strrchr(m->path, '/');
  return m->library && slash ? arena_printf(&p->arena, "<stdlib>%s", slash) : m->path;
}

/* The unit's text: the ABI prelude, declarations, functions and the tables. */
static void write_unit(Program *p, Cg *cgp, StrBuf *out, bool with_main, int first) {
  Cg cg = *cgp;   /* read only: a copy keeps the generator's `cg.` spelling */
  bool unit = first > 0 || p->mods[0]->input;
  prelude(out, "C glue for the tfs runtime");
  sb_printf(out, "static Val K[%d];\n", cg.nconsts ? cg.nconsts : 1);
  if (unit) sb_puts(out, "extern Val tfs_repl_globals[];\n");
  if (cg.lazy_funcs.len) sb_puts(out, "extern const RtLazyRef tfs_lazy_refs[];\nvoid tfs_lazy_load(const RtLazyRef *refs);\n");
  bool units = false;
  for (int i = first; i < p->nmods; i++) units |= p->mods[i]->unit;
  if (units) sb_puts(out, "void tfs_units_main(void); /* the modules compiled apart (compiler/jit.c) */\nvoid tfs_units_exit(void);\n");
  sb_putn(out, cg.decls.data, cg.decls.len);
  sb_putn(out, "\n", 1);
  sb_putn(out, cg.funcs.data, cg.funcs.len);

  sb_printf(out, "static const RtFile FILES[%d] = {\n", p->nmods - first);
  for (int i = first; i < p->nmods; i++) {
    if (p->mods[i]->unit) {   /* its own unit fills the entry in */
      sb_puts(out, "  {0, 0, 0},\n");
      continue;
    }
    sb_puts(out, "  {");
    const char *shown = shown_path(p, p->mods[i]);
    c_string(out, shown, strlen(shown));
    sb_puts(out, ", ");
    c_string(out, p->mods[i]->source, p->mods[i]->len);
    sb_printf(out, ", %d},\n", p->mods[i]->library);
  }
  sb_puts(out, "};\n");
  write_locs(out, &cg);
  if (cg.lazy_funcs.len) {
    sb_puts(out, "const RtLazyRef tfs_lazy_refs[] = {\n");
    sb_putn(out, cg.lazy_refs.data, cg.lazy_refs.len);
    sb_puts(out, "  {0, 0, 0}\n};\n\n");
  }

  sb_puts(out, "void tfs_program_main(void) {\n");
  if (unit) sb_printf(out, "  rt_append_program(%d, FILES, %d, LOCS);\n", p->nmods - first, cg.nlocs);
  else sb_printf(out, "  rt_register_program(%d, FILES, %d, LOCS);\n", p->nmods, cg.nlocs);
  if (units) sb_puts(out, "  tfs_units_main();\n");
  for (int i = first; i < p->nmods; i++) {
    ProgModule *m = p->mods[i];
    if (m->unit) continue;
    sb_printf(out, "  rt_register_module(%d, ", i);
    c_string(out, m->name, strlen(m->name));
    sb_printf(out, ", M%d_init, %d, GN%d, G%d);\n", i, m->scopes.nglobals, i, i);
  }
  write_consts(out, &cg);
  sb_printf(out, "  Val m = rt_import(%d);\n  TFS_DECREF(m);\n}\n\n", first);
  sb_puts(out, "void tfs_program_exit(void) {\n");
  for (int i = first; i < p->nmods; i++) {
    int ng = p->mods[i]->input || p->mods[i]->unit ? 0 : p->mods[i]->scopes.nglobals;   /* the prompt clears its namespace itself */
    if (ng) sb_printf(out, "  for (int i = 0; i < %d; i++) { Val v = G%d[i]; G%d[i].tag = VT_UNDEF; TFS_DECREF(v); }\n", ng, i, i);
  }
  if (cg.nconsts)
    sb_printf(out, "  for (int i = 0; i < %d; i++) { Val v = K[i]; K[i].tag = VT_UNDEF; TFS_DECREF(v); }\n", cg.nconsts);
  if (units) sb_puts(out, "  tfs_units_exit();\n");
  sb_puts(out, "}\n");
  if (with_main) {
    sb_puts(out, "\nint rt_main(int argc, char **argv, void (*entry)(void), void (*leave)(void));\n");
    sb_puts(out, "int main(int argc, char **argv) { return rt_main(argc, argv, tfs_program_main, tfs_program_exit); }\n");
  }
}

/* Module m (m->unit) as a unit of its own: `tfs_unit_main_<module>(module, imports)`
 * registers its file and locations (rt_unit_register gives their base), its
 * imports' indices, and the module; `tfs_unit_exit_<module>` releases what it holds.
 * Nothing in the text depends on the rest of the program. */
static bool gen_solo(Program *p, ProgModule *m, CgUnit *u) {
  Cg cg = {p, NULL, 0, 0, {0}, {0}, NULL, 0, 0, NULL, 0, 0, 0, true, .lazy_gmod = -1, .lb = "LB_ + "};
  sb_init(&cg.decls);
  sb_init(&cg.funcs);
  sb_init(&cg.fixups);
  gen_module(&cg, m);
  StrBuf *out = &u->text;
  sb_init(out);
  prelude(out, "one module of the tfs runtime's C glue, compiled and cached apart");
  sb_printf(out, "static Val K[%d];\nstatic int LB_;\nstatic int IM_[%d];\n", cg.nconsts ? cg.nconsts : 1, cg.nimports ? cg.nimports : 1);
  sb_putn(out, cg.decls.data, cg.decls.len);
  sb_putn(out, "\n", 1);
  sb_putn(out, cg.funcs.data, cg.funcs.len);
  sb_puts(out, "static const RtFile FILE_ = {");
  const char *shown = shown_path(p, m);
  c_string(out, shown, strlen(shown));
  sb_puts(out, ", ");
  c_string(out, m->source, m->len);
  sb_printf(out, ", %d};\n", m->library);
  write_locs(out, &cg);
  sb_printf(out, "static FuncInfo *const FIX_[] = {%s0};\n\n", cg.fixups.len ? cg.fixups.data : "");
  sb_puts(out, "void ");
  cgen_unit_symbol(out, "main", m->name);
  sb_puts(out, "(int mod, const int *im) {\n");
  sb_printf(out, "  LB_ = rt_unit_register(mod, &FILE_, %d, LOCS);\n", cg.nlocs);
  sb_printf(out, "  for (int i = 0; i < %d; i++) IM_[i] = im[i];\n", cg.nimports);
  sb_puts(out, "  for (FuncInfo *const *f = FIX_; *f; f++) { (*f)->loc += LB_; (*f)->module = mod; }\n");
  sb_puts(out, "  rt_register_module(mod, ");
  c_string(out, m->name, strlen(m->name));
  sb_printf(out, ", M0_init, %d, GN0, G0);\n", m->scopes.nglobals);
  write_consts(out, &cg);
  sb_puts(out, "}\n\nvoid ");
  cgen_unit_symbol(out, "exit", m->name);
  sb_puts(out, "(void) {\n");
  if (m->scopes.nglobals)
    sb_printf(out, "  for (int i = 0; i < %d; i++) { Val v = G0[i]; G0[i].tag = VT_UNDEF; TFS_DECREF(v); }\n", m->scopes.nglobals);
  if (cg.nconsts)
    sb_printf(out, "  for (int i = 0; i < %d; i++) { Val v = K[i]; K[i].tag = VT_UNDEF; TFS_DECREF(v); }\n", cg.nconsts);
  sb_puts(out, "}\n");
  u->module = m->index;
  u->name = strdup(m->name);
  if (!u->name) abort();
  u->imports = cg.imports;
  u->nimports = cg.nimports;
  free(cg.consts);
  free(cg.locs);
  for (int i = 0; i < cg.nmade; i++) free(cg.made[i].done);
  free(cg.made);
  sb_free(&cg.decls);
  sb_free(&cg.funcs);
  sb_free(&cg.fixups);
  return cg.ok;
}

/* The index of the module at `path`. */
static int module_at(Program *p, const char *path) {
  for (int i = 0; i < p->nmods; i++)
    if (!strcmp(p->mods[i]->path, path)) return i;
  return -1;
}

/* A cached unit (not parsed): its object and IM_[] from the record. */
static bool cached_unit(Program *p, ProgModule *m, CgUnit *u) {
  sb_init(&u->text);
  u->module = m->index;
  u->name = strdup(m->name);
  u->fd = m->obj_fd;
  m->obj_fd = -1;
  u->entry = strdup(m->obj_entry);
  u->imports = malloc(sizeof *u->imports * (size_t)(m->nunit_imports + 1));
  if (!u->name || !u->imports || !u->entry) abort();
  u->nimports = m->nunit_imports;
  bool ok = true;
  for (int i = 0; i < m->nunit_imports; i++) ok &= (u->imports[i] = module_at(p, m->unit_imports[i])) >= 0;
  if (!ok) {
    diag_add(&p->diags, m->path, NULL, 0, 0, "internal error: the cached unit of '%s' imports a module the program lacks", m->name);
  }
  return ok;
}

/* What the module's record will say (written once its object is cached). */
static void unit_record(Program *p, ProgModule *m, CgUnit *u) {
  u->record = objcache_unit_path(m->name, m->path, m->source, m->len);
  if (!u->record) return;
  const char **paths = malloc(sizeof *paths * (size_t)(u->nimports + 1));
  if (!paths) abort();
  for (int i = 0; i < u->nimports; i++) paths[i] = p->mods[u->imports[i]]->path;
  u->body = objcache_unit_body(m->imp_names, m->imp_paths, m->nimp, paths, u->nimports, &u->nbody);
  free(paths);
}

static bool program_units(Program *p, StrBuf *out, StrBuf *lazy, bool with_main, CgUnit **units, int *nunits) {
  *units = NULL;
  *nunits = 0;
  bool ok = true;
  for (int i = 1; i < p->nmods; i++) {
    ProgModule *m = p->mods[i];
    if (!m->library || m->conv) continue;
    m->unit = true;
    *units = realloc(*units, sizeof **units * (size_t)(*nunits + 1));
    if (!*units) abort();
    CgUnit *u = &(*units)[(*nunits)++];
    memset(u, 0, sizeof *u);
    u->fd = -1;
    if (!m->ast) {
      ok &= cached_unit(p, m, u);
      continue;
    }
    ok &= gen_solo(p, m, u);
    unit_record(p, m, u);
  }
  int nlocs = 0;
  return gen_unit(p, out, lazy, with_main, 0, &nlocs) && ok;
}

bool cgen_program_units(Program *p, StrBuf *out, StrBuf *lazy, CgUnit **units, int *nunits) {
  return program_units(p, out, lazy, false, units, nunits);
}

bool cgen_program_units_exe(Program *p, StrBuf *out, CgUnit **units, int *nunits) {
  return program_units(p, out, NULL, true, units, nunits);
}

void cgen_unit_symbol(StrBuf *out, const char *fn, const char *module) {
  sb_printf(out, "tfs_unit_%s_", fn);
  /* letters and digits as they are, every other byte (also '_') as _XX: distinct names stay distinct */
  for (const unsigned char *c = (const unsigned char *)module; *c; c++)
    if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')) sb_putc(out, (char)*c);
    else sb_printf(out, "_%02x", *c);
}

void cgen_units_free(CgUnit *units, int n) {
  for (int i = 0; i < n; i++) {
    sb_free(&units[i].text);
    free(units[i].imports);
    free(units[i].name);
    free(units[i].record);
    free(units[i].body);
    free(units[i].entry);
    if (units[i].fd >= 0) close(units[i].fd);
  }
  free(units);
}

bool cgen_program(Program *p, StrBuf *out, bool with_main) {
  int nlocs = 0;
  return gen_unit(p, out, NULL, with_main, 0, &nlocs);
}

bool cgen_program_lazy(Program *p, StrBuf *out, StrBuf *lazy) {
  int nlocs = 0;
  return gen_unit(p, out, lazy, false, 0, &nlocs);
}

bool cgen_check(Program *p) {
  int nlocs = 0;
  return gen_unit(p, NULL, NULL, false, 0, &nlocs);
}

bool cgen_input(Program *p, StrBuf *out, int first, int *nlocs) { return gen_unit(p, out, NULL, false, first, nlocs); }
