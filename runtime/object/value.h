/* value.h — runtime-internal view of values: type vtables, constructors, errors, string buffers. */
#ifndef TFS_VALUE_H
#define TFS_VALUE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object/abi.h"

typedef struct StrBuf StrBuf;

/* A type's behaviour.  Any slot may be NULL: the generic code in value.c then
 * raises the TypeError Python would ('list' object is not callable, ...).
 * Every function returning Val returns an owned reference; arguments are
 * borrowed.  getattr returns VT_UNDEF when the attribute does not exist. */
typedef struct Type {
  const char *name;                                   /* Python type name */
  void (*free)(Obj *o);                               /* release children, then the object */
  void (*repr)(StrBuf *b, Val v);                     /* repr(); required */
  void (*str)(StrBuf *b, Val v);                      /* str(); NULL: repr */
  Val (*getattr)(Val self, const char *name);
  void (*setattr)(Val self, const char *name, Val v);
  Val (*call)(Val self, int n, const Val *args, const Kw *kw);
  Val (*getitem)(Val self, Val key);
  void (*setitem)(Val self, Val key, Val v);
  Val (*iter)(Val self);
  bool (*next)(Val it, Val *out);                     /* iterators: false when exhausted */
  tfs_i64 (*len)(Val self);                           /* -1: no len() */
  /* Binary operator with self on either side; returns VT_UNDEF when it does
   * not handle the pair (Python's NotImplemented). */
  Val (*binop)(int op, Val a, Val b);
  Val (*unop)(int op, Val a);                         /* VT_UNDEF: unsupported */
  Val (*inplace)(int op, Val a, Val b);               /* a op= b in place (numpy arrays); NULL or VT_UNDEF: binop's result */
  /* a op b with self on either side (op as written, not reflected); CMP_LT..CMP_NE; VT_UNDEF: unsupported */
  Val (*compare)(int op, Val a, Val b);
  int (*truthy)(Val v);                               /* NULL: always true */
  bool (*eq)(Val a, Val b);                           /* host equality (for ==, in, dict keys) */
  tfs_u64 (*hash)(Val v);                             /* NULL: unhashable */
  /* Containers that can be part of a reference cycle (gc.c): traverse calls
   * visit on every reference the object holds (owned = counted in the
   * child's rc; a borrowed back-pointer only keeps its target reachable);
   * clear drops the owned references, leaving an object free can still free. */
  void (*traverse)(Obj *o, void (*visit)(Val child, bool owned, void *arg), void *arg);
  void (*clear)(Obj *o);
  /* The value's class when one Type serves several (a tensor is an EagerTensor or a SymbolicTensor):
   * a borrowed type object whose bases reach the Type's own; NULL: the Type's own class. */
  Val (*klass)(Val self);
} Type;
typedef void (*GcVisit)(Val child, bool owned, void *arg);

/* The cycle collector (gc.c).  obj_new tracks objects whose type has a
 * traverse slot; rt_free_obj untracks them. */
typedef struct RtGcStats { tfs_i64 collections, collected; } RtGcStats;
extern RtGcStats rt_gc_stats;
extern int rt_gc_pending;                           /* a collection is due at the next safe point */
void gc_track(Obj *o);
void gc_untrack(Obj *o);
size_t rt_gc_collect(void);                         /* objects freed */
void rt_gc_poll(void);
void rt_gc_enable(bool on);
bool rt_gc_is_enabled(void);
size_t rt_gc_tracked(void);
void rt_gc_shutdown(void);

/* ---- immediates ---------------------------------------------------------- */
static inline Val val_undef(void) { Val v; v.tag = VT_UNDEF; v.u.i = 0; return v; }
static inline Val val_none(void) { Val v; v.tag = VT_NONE; v.u.i = 0; return v; }
static inline Val val_bool(bool b) { Val v; v.tag = VT_BOOL; v.u.i = b; return v; }
static inline Val val_int(int64_t i) { Val v; v.tag = VT_INT; v.u.i = i; return v; }
static inline Val val_float(double f) { Val v; v.tag = VT_FLOAT; v.u.f = f; return v; }
static inline Val val_obj(void *o) { Val v; v.tag = VT_OBJ; v.u.o = (Obj *)o; return v; }
static inline Val val_incref(Val v) { TFS_INCREF(v); return v; }
static inline void val_decref(Val v) { TFS_DECREF(v); }
static inline bool val_is(Val v, const Type *t) { return v.tag == VT_OBJ && v.u.o->type == t; }
static inline bool val_is_undef(Val v) { return v.tag == VT_UNDEF; }

/* Allocate an object of `size` bytes with rc 1 (aborts cleanly on OOM). */
void *obj_new(const Type *type, size_t size);
const char *val_type_name(Val v);                     /* 'int', 'list', 'tf.Tensor', ... */

/* ---- growable byte strings ----------------------------------------------- */
struct StrBuf { char *data; size_t len, cap; };
void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
/* `count` copies of the n bytes at unit; the size is checked and reserved first (MemoryError). */
void sb_fill(StrBuf *b, const char *unit, size_t n, size_t count);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
char *sb_steal(StrBuf *b);                            /* NUL-terminated, caller frees */

void val_repr(StrBuf *b, Val v);                      /* repr(v) appended to b */
void val_str(StrBuf *b, Val v);                       /* str(v) appended to b */

/* ---- errors ---------------------------------------------------------------
 * Errors carry a Python-style class name (TypeError, ValueError,
 * InvalidArgumentError, ...) and a message, and are reported at rt_cur_loc as
 * docs/errors.md describes.  rt_throw does not return: it unwinds to the
 * innermost handler (try/except) or prints and exits with status 1. */
typedef enum ErrKind {
  ERR_TYPE, ERR_VALUE, ERR_INDEX, ERR_KEY, ERR_NAME, ERR_ATTRIBUTE, ERR_ZERODIV,
  ERR_OVERFLOW, ERR_ASSERTION, ERR_RUNTIME, ERR_STOPITER, ERR_IMPORT, ERR_UNBOUND,
  ERR_NOTIMPL, ERR_RECURSION, ERR_MEMORY, ERR_IO, ERR_KEYBOARD_INTERRUPT, ERR_MODULE_NOT_FOUND,
  ERR_INVALID_ARGUMENT, ERR_UNIMPLEMENTED, ERR_OUT_OF_RANGE, ERR_NOT_FOUND, ERR_RESOURCE_EXHAUSTED,
  ERR_DATA_LOSS, ERR_ALREADY_EXISTS, ERR_UNAVAILABLE, ERR_DEADLINE_EXCEEDED, ERR_INTERNAL, ERR_SYSTEM_EXIT,
  /* TF's other error classes, after the rest so that the numbers compiled into cached objects keep their meaning */
  ERR_CANCELLED, ERR_UNKNOWN, ERR_PERMISSION_DENIED, ERR_UNAUTHENTICATED, ERR_FAILED_PRECONDITION, ERR_ABORTED,
  ERR__COUNT
} ErrKind;
const char *err_kind_name(ErrKind k);                 /* 'TypeError', 'InvalidArgumentError' */
_Noreturn void rt_throw(ErrKind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void rt_throw_at(int loc, ErrKind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Catching runtime errors (try/except, the driver).  The setjmp must sit in
 * the catching frame itself, so the protocol is spelled out:
 *     RtTry t;
 *     rt_try_push(&t);
 *     if (setjmp(t.jb) == 0) { ...body...; rt_try_pop(&t); }
 *     else { ...t.kind, t.msg, t.exc...; rt_try_clear(&t); }
 * When an error unwinds to it, the handler is already popped, the call depth
 * is restored, and what the unwound frames owned is released: generated
 * functions through their RtFrame (abi.h), runtime C code through rt_hold_*. */
typedef struct RtTry {
  jmp_buf jb;                 /* first: generated code arms it through an RtTryBuf */
  struct RtTry *prev;
  int depth;                  /* call depth at push; restored on unwind */
  int repr_depth;             /* repr cycle-guard depth at push; restored on unwind */
  int hold_mark;              /* rt_hold stack height at push; entries above are released on unwind */
  ErrKind kind;               /* caught: error kind */
  char *msg;                  /* caught: malloc'd message (rt_try_clear frees) */
  int loc;                    /* caught: rt_cur_loc of the throw */
  Val exc;                    /* caught: owned exception object from raise, or VT_UNDEF */
  int toplevel;               /* 1: the interactive prompt's handler: print the traceback before unwinding;
                                 2: a generator's outermost handler (gen.c): the error goes on in its consumer */
  struct RtAgFrames *ag;      /* a tf.function trace's handler: the frames each error raised below it left
                               * (rt_try_ag; AutoGraph's "in user code:" framing) */
} RtTry;
/* The frames of generated code between a trace's handler and where an error was raised, outermost first:
 * name, the location each one was at, its RtFrame.ag. */
typedef struct RtAgFrame { const char *name; int loc; int ag; } RtAgFrame;
typedef struct RtAgFrames { RtAgFrame *v; int n; } RtAgFrames;
void rt_try_ag(RtTry *t, RtAgFrames *frames);         /* after rt_try_push: collect the frames of errors raised below */
void rt_ag_frames_free(RtAgFrames *frames);
/* Re-raise the error a trace's handler caught as AutoGraph does when a converted function fails while it is
 * traced: the frames of converted code listed after "in user code:" and the original message (docs/autograph.md);
 * unchanged when no converted code was running.  site: where the trace was called (the caller's frame's line). */
_Noreturn void rt_ag_reraise(RtTry *t, int site, bool convert_plain);   /* convert_plain: code run as written counts as converted */
void rt_try_push(RtTry *t);
void rt_try_pop(RtTry *t);                            /* body finished normally */
void rt_try_clear(RtTry *t);                          /* release what a catch received */
_Noreturn void rt_rethrow(RtTry *t);                  /* re-raise a caught error (consumes it) */
void rt_report_caught(RtTry *t);                      /* print a caught error as an uncaught one is printed (consumes it) */
/* Temporaries of runtime C code that an error must not leak: push them, then
 * rt_unhold(mark) once they are released normally.  When an error unwinds to
 * a handler, everything held since its rt_try_push is released (a Val is
 * decref'd, memory freed, a StrBuf emptied, an array of *n Vals decref'd and
 * freed, a variable's current Val decref'd, a structure released by its own
 * function).  Each push returns the mark to unhold back to. */
int rt_hold_val(Val v);
int rt_hold_mem(void *p);
int rt_hold_sb(StrBuf *b);
int rt_hold_vals(Val *const *items, const tfs_i64 *n);   /* *items may be realloc'd meanwhile */
int rt_hold_ref(Val *slot);                               /* decref *slot (a variable updated meanwhile) */
int rt_hold_fn(void (*release)(void *), void *p);         /* release(p): a structure owning several things */
void rt_unhold(int mark);

/* The error machinery's state for one stack: the hold stack, the innermost
 * handler, the call and repr depths, rt_cur_loc and the C stack's bounds.
 * A generator runs on a stack of its own (gen.c), with a state of its own
 * that a resume loads and a yield saves. */
typedef struct RtCtxState {
  void *held;                 /* the hold stack (error.c's entries) */
  int nheld, held_cap;
  RtTry *try_top;
  int call_depth, repr_depth, cur_loc;
  uintptr_t stack_base;
  size_t stack_budget;
} RtCtxState;
void rt_ctx_save(RtCtxState *s);                      /* the current state into s */
void rt_ctx_load(const RtCtxState *s);                /* s becomes the current state */
void rt_ctx_release(RtCtxState *s);                   /* release what a saved state still holds (an abandoned generator) */
void rt_stack_bounds(uintptr_t *base, size_t *budget, bool set);   /* func.c: the stack guard's bounds */

/* Raise with a prebuilt message and optional exception object (owned). */
_Noreturn void rt_throw_msg(int loc, ErrKind kind, const char *msg, Val exc);
/* Print "path:line:col: error: <Kind>: msg" (§11) for an error at loc, to stderr. */
void rt_report(int loc, ErrKind kind, const char *msg);
void rt_program_tables_free(void);                    /* the tables rt_append_program grew */
/* Program arguments for the `argv` builtin (argv[0] is the program path). */
void rt_set_argv(int argc, char **argv);
void rt_start(int argc, char **argv);                 /* what a program needs before its first line (rt_main, the prompt) */
void rt_repl_echo(Val v);

/* Print a diagnostic in the §11 format: "path:line:col: error: msg", the
 * source line, a caret.  Shared by the compiler and the runtime. */
void diag_format(StrBuf *out, const char *path, const char *source, int line, int col, const char *severity, const char *msg);

/* Location table of the running program (registered by generated code). */
const RtLoc *rt_loc_get(int loc);
int rt_user_loc(void);   /* rt_cur_loc, or the innermost user line that called into the stdlib library */
const RtFile *rt_file_get(int file);
/* A Python warning (category "RuntimeWarning"...) on stderr at the user's line, once per location (warn.c). */
void rt_warn(const char *category, const char *msg);

/* ---- recursion ----------------------------------------------------------------
 * One guard for calls and for every walk that recurses on data: Python's
 * recursion limit plus a check of the C stack.  rt_rec_enter raises
 * RecursionError "maximum recursion depth exceeded<where>" (where: "" for
 * calls, " in comparison", " while getting the repr of an object"); an error
 * unwinding to a handler restores the depth, so only normal exits call
 * rt_rec_leave.  The compiler bounds AST nesting by RT_COMPILE_NESTING_LIMIT
 * (Python: "maximum recursion depth exceeded during compilation"), so its
 * recursive passes stay far from the end of the stack. */
enum { RT_RECURSION_LIMIT = 5000, RT_COMPILE_NESTING_LIMIT = 3000 };
void rt_rec_enter(const char *where);
void rt_rec_leave(void);
bool rt_stack_low(void);                              /* the C stack is nearly used up */

/* ---- calls ------------------------------------------------------------------
 * Bind positional/keyword arguments to a parameter list, Python-style.
 * `params` names the parameters; `defaults` gives the last ndefaults defaults.
 * out[] receives nparams borrowed values.  `what` names the callee in errors. */
void args_bind(const char *what, int nparams, const char *const *params, int ndefaults, const Val *defaults,
               int n, const Val *args, const Kw *kw, Val *out);
/* The same for a compiled function whose signature has *args, keyword-only
 * parameters or **kwargs (info->nkwonly/varargs/varkw); args_unbind releases
 * the *args tuple and **kwargs dict it creates in out[]. */
void args_bind_ext(const FuncInfo *info, int ndefaults, const Val *defaults, int n, const Val *args, const Kw *kw,
                   Val *out);
void args_unbind(const FuncInfo *info, Val *out);

/* Parse a builtin's arguments against a signature string such as
 * "x, y, name=None" or "shape, dtype=float32"; defaults are parsed once and
 * cached by the caller's static ArgSpec.  Missing optional args without a
 * default become VT_UNDEF; such a parameter is written "name=" (empty default).
 * Defaults: None True False, ints, floats, 'quoted' strings, dtype names. */
typedef struct ArgSpec {
  const char *what;           /* 'tf.add' for error messages */
  const char *sig;            /* "x, y, name=None" */
  int nparams, ndefaults;
  const char *params[16];
  Val defaults[16];
  bool ready;
} ArgSpec;
void args_parse(ArgSpec *spec, int n, const Val *args, const Kw *kw, Val *out);

/* ---- host conversions used everywhere -------------------------------------- */
bool val_as_int(Val v, int64_t *out);                 /* int or bool (or 0-d int tensor) */
bool val_as_float(Val v, double *out);                /* float, int, bool (or 0-d tensor) */
/* Raises TypeError when not an int: "<what> must be integers or slices, not
 * float" ("list indices"), or with what == NULL "'float' object cannot be
 * interpreted as an integer". */
int64_t val_to_index(Val v, const char *what);
bool val_eq(Val a, Val b);                            /* host ==, for `in`, list.index, dict keys */
tfs_u64 val_hash(Val v);

#endif
