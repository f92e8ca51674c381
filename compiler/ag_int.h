/* ag_int.h — private interface of the AutoGraph converter passes (ag_*.c): the context, AST builders and walkers. */
#ifndef TFS_AG_INT_H
#define TFS_AG_INT_H

#include <stdint.h>

#include "object/abi.h" /* operator enums (UN_NOT, ...) */
#include "activity.h"
#include "autograph.h"

/* What earlier passes attach to a loop for the control-flow pass. */
typedef struct AgLoop {
  const Ast *loop;
  Ast *opts;          /* set_loop_options arguments as an A_DICT, or NULL */
  Ast *extra_test;    /* `for`: the test break/return lowering added (AutoGraph's EXTRA_LOOP_TEST), or NULL */
} AgLoop;

struct AgRoot {
  const char *base;
  bool used;          /* base itself was handed out */
  int last;           /* the last number handed out (0: none) */
};

/* A set of node pointers (capacity a power of two). */
typedef struct AgPtrSet {
  const void **v;
  size_t n, cap;
} AgPtrSet;
bool ag_ptr_has(const AgPtrSet *s, const void *p);
void ag_ptr_add(Arena *a, AgPtrSet *s, const void *p);

/* One conversion: one top-level function with everything nested in it. */
typedef struct AgCtx {
  Arena *arena;       /* the output: every node and string the passes make */
  Arena scratch;      /* analysis data, freed when the conversion ends */
  const char *path, *source;
  DiagList *diags;    /* may be NULL */
  NameSet reserved;   /* identifiers the user's code uses: generated names avoid them */
  NameSet generated;  /* names handed out so far (AutoGraph's namer is per converted entity) */
  struct AgRoot *roots; /* per root, the last number handed out: the search resumes there */
  int nroots, caproots;
  AgLoop *loops;
  int nloops, caploops;
  AgPtrSet user;      /* the user's names and calls, before any pass ran (ag_calls_mark) */
  AgPtrSet stores;    /* the user's names that are assignment targets */
} AgCtx;

/* The passes, in the order ag_convert_function runs them.  Each rewrites
 * the whole tree under fn in place (nested definitions included). */
void ag_directives(AgCtx *c, Ast *fn);
void ag_break(AgCtx *c, Ast *fn);
void ag_assert(AgCtx *c, Ast *fn);
void ag_continue(AgCtx *c, Ast *fn);
void ag_return(AgCtx *c, Ast *fn);
void ag_control(AgCtx *c, Ast *fn);
void ag_ifexp(AgCtx *c, Ast *fn);
void ag_logical(AgCtx *c, Ast *fn);
void ag_calls_mark(AgCtx *c, const Ast *fn); /* before the first pass */
void ag_calls(AgCtx *c, Ast *fn);            /* after the last */

/* Add to `out` the top-level function definitions of module (nodes of
 * module itself) that a tf.function can reach (ag_reach.c says how);
 * storage from scratch. */
void ag_reach(Arena *scratch, const Ast *module, AgPtrSet *out);

/* A fresh name: root, else root_1, root_2, ... (AutoGraph's Namer.new_symbol). */
const char *ag_new_symbol(AgCtx *c, const char *root);
/* The annotations of a loop (created on demand when create). */
AgLoop *ag_loop(AgCtx *c, const Ast *loop, bool create);
void ag_error(AgCtx *c, const Ast *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Statement lists. */
void ag_push(AgCtx *c, AstList *l, Ast *n);
void ag_push_all(AgCtx *c, AstList *l, const AstList *src);

/* Builders: every node takes the location of `at` (so runtime errors point
 * at the user's construct) and lives in c->arena. */
Ast *ag_copy(Arena *a, const Ast *n);                   /* deep copy, strings included */
Ast *ag_node(AgCtx *c, AstKind kind, const Ast *at);    /* an empty node of that kind */
Ast *ag_name(AgCtx *c, const Ast *at, const char *id);
Ast *ag_str(AgCtx *c, const Ast *at, const char *s);
Ast *ag_int(AgCtx *c, const Ast *at, int64_t v);
Ast *ag_const(AgCtx *c, const Ast *at, ConstKind k);
Ast *ag_call(AgCtx *c, const Ast *at, Ast *func, int nargs, ...);
Ast *ag_rt(AgCtx *c, const Ast *at, const char *fname, int nargs, ...); /* ag.fname(args...) */
Ast *ag_assign(AgCtx *c, const Ast *at, Ast *target, Ast *value);
Ast *ag_expr_stmt(AgCtx *c, const Ast *at, Ast *value);
Ast *ag_not(AgCtx *c, const Ast *at, Ast *operand);    /* `not operand` (logical pass converts it) */
Ast *ag_and(AgCtx *c, const Ast *at, Ast *left, Ast *right);
Ast *ag_lambda(AgCtx *c, const Ast *at, Ast *body);
Ast *ag_if(AgCtx *c, const Ast *at, Ast *test);        /* body and orelse empty */
Ast *ag_def(AgCtx *c, const Ast *at, const char *name, const char *param); /* param may be NULL */
Ast *ag_return_stmt(AgCtx *c, const Ast *at, Ast *value);
Ast *ag_tuple(AgCtx *c, const Ast *at);                 /* elements pushed by the caller */

/* Whether e is a call of ag.<fname> (any runtime function when fname is NULL). */
bool ag_is_rt_call(const Ast *e, const char *fname);

/* Replace every expression under node (statements, nested definitions and
 * expressions alike, decorators excepted) by fn(expression), children
 * first. */
typedef Ast *(*AgExprFn)(AgCtx *c, Ast *e);
void ag_rewrite_exprs(AgCtx *c, Ast *node, AgExprFn fn);
/* Call fn on every node under n (n included), parents first. */
typedef void (*AgVisitFn)(const Ast *n, void *ud);
void ag_visit(const Ast *n, AgVisitFn fn, void *ud);

#endif
