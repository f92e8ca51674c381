/* gen.c — generators: each body runs on a stack of its own (a coroutine), with its own error state; yield, yield from, send, throw, close.
 *
 * A call of a generator function (FuncInfo.generator) makes a Gen holding
 * the function and its bound arguments.  The first resume gives it a stack
 * (mmap'd, with a guard page; a few are kept for reuse) and switches to it;
 * the body is the ordinary compiled function, so every construct of the
 * language works inside it unchanged.  `yield v` (rt_yield) switches back to
 * the resumer and returns what the next resume sends.
 *
 * The runtime's error machinery is per stack: the hold stack (frames and
 * temporaries an unwinding error releases), the innermost RtTry handler,
 * the call and repr depths, rt_cur_loc and the stack guard's bounds
 * (RtCtxState, error.c).  A resume saves the resumer's and loads the
 * generator's; the switch back does the reverse.  The body runs under a
 * handler of its own (RtTry.toplevel 2): an exception that leaves the body
 * ends the generator and is raised again in the resumer, at the location it
 * was raised at, so `try` around a `for` over a generator catches it where
 * Python would.  An error no stack will catch is reported at once, with the
 * traceback through every stack (error.c).
 *
 * A generator dropped while suspended is closed as CPython closes it:
 * GeneratorExit is raised at its yield, so `finally` blocks and `with`
 * exits run; one that yields again is abandoned (its frames released
 * through its hold stack without running more code) after the message
 * CPython prints.  The stack switch is a few instructions of x86-64
 * assembly (callee-saved registers, the FPU and SSE control words: no
 * system call, unlike swapcontext); AddressSanitizer is told of every
 * switch. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

#if defined(__SANITIZE_ADDRESS__)
#define GEN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GEN_ASAN 1
#endif
#endif
#ifdef GEN_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#define GEN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GEN_TSAN 1
#endif
#endif
#ifdef GEN_TSAN
#include <sanitizer/tsan_interface.h>   /* a body runs as a ThreadSanitizer fiber: its stack and longjmps are its own */
#endif

/* ---- the stack switch --------------------------------------------------------------------- */

#if defined(__x86_64__)
/* gen_switch(&save_sp, to_sp): push the callee-saved registers and the
 * control words, store the stack pointer, load the other one, pop, return
 * into the other stack.  A new stack starts in gen_boot, which calls
 * r13(r12). */
void gen_switch(void **save_sp, void *to_sp);
void gen_boot(void);
__asm__(".text\n"
        ".p2align 4\n"
        ".globl gen_switch\n"
        ".hidden gen_switch\n"
        ".type gen_switch, @function\n"
        "gen_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $16, %rsp\n  stmxcsr 8(%rsp)\n  fnstcw (%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  fldcw (%rsp)\n  ldmxcsr 8(%rsp)\n  addq $16, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size gen_switch, .-gen_switch\n"
        ".globl gen_boot\n"
        ".hidden gen_boot\n"
        ".type gen_boot, @function\n"
        "gen_boot:\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        ".size gen_boot, .-gen_boot\n");

static void *gen_stack_init(char *top, void (*entry)(void *), void *arg) {
  uint64_t *sp = (uint64_t *)(((uintptr_t)top & ~(uintptr_t)15) - 88);
  sp[0] = 0x037F;                 /* x87 control word */
  sp[1] = 0x1F80;                 /* MXCSR */
  sp[2] = sp[3] = 0;              /* r15 r14 */
  sp[4] = (uint64_t)(uintptr_t)entry;   /* r13 */
  sp[5] = (uint64_t)(uintptr_t)arg;     /* r12 */
  sp[6] = sp[7] = 0;              /* rbx rbp */
  sp[8] = (uint64_t)(uintptr_t)gen_boot;
  return sp;
}
#else
#error "generators need the x86-64 stack switch of gen.c (tfs runs on x86-64)"
#endif

/* ---- stacks ------------------------------------------------------------------------------------ */

enum { GEN_STACK = 4 << 20, GEN_GUARD = 4096, GEN_POOL = 8 };
static char *gen_pool[GEN_POOL];
static int gen_npool;

static char *gen_stack_get(void) {
  if (gen_npool) {
    char *s = gen_pool[--gen_npool];
#ifdef GEN_ASAN
    ASAN_UNPOISON_MEMORY_REGION(s + GEN_GUARD, GEN_STACK - GEN_GUARD);   /* frames an abandoned body left */
#endif
    return s;
  }
  char *s = mmap(NULL, GEN_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (s == MAP_FAILED) rt_throw(ERR_MEMORY, "out of memory (a generator's stack)");
  mprotect(s, GEN_GUARD, PROT_NONE);
  return s;
}

static void gen_stack_put(char *s) {
  if (gen_npool < GEN_POOL) gen_pool[gen_npool++] = s;
  else munmap(s, GEN_STACK);
}

/* ---- the object ------------------------------------------------------------------------------- */

enum { GEN_CREATED, GEN_SUSPENDED, GEN_RUNNING, GEN_DONE };
enum { GEN_YIELDED, GEN_RETURNED, GEN_RAISED };

typedef struct Gen {
  Obj hdr;
  Val func;                   /* the generator function (owned) */
  Val *args;                  /* its bound arguments (owned) */
  int nargs;
  int state;                  /* GEN_* */
  char *stack;                /* while started and not finished */
  void *sp;                   /* the body's stack pointer while it is not running */
  void *caller_sp;            /* the resumer's while the body runs */
  RtCtxState own;             /* the body's error state while it is not running */
  RtCtxState caller;          /* the resumer's while the body runs */
  struct Gen *caller_gen;     /* the generator that resumed it (NULL: the main stack) */
  Val xfer;                   /* the value yielded, returned or sent (owned while in transit) */
  Val throw_in;               /* an exception to raise at the yield (send side) */
  int outcome;                /* GEN_YIELDED / GEN_RETURNED / GEN_RAISED, after a switch back */
  ErrKind ekind;              /* GEN_RAISED: the error, to raise again in the resumer */
  char *emsg;
  int eloc;
  Val eexc;
  bool closing;               /* GeneratorExit was thrown in by close() */
#ifdef GEN_ASAN
  void *fake;                 /* ASan's fake stack of the body while switched out */
  const void *caller_bottom;  /* the resumer's stack, as ASan reported it */
  size_t caller_size;
#endif
#ifdef GEN_TSAN
  void *fiber;                /* the body's ThreadSanitizer fiber, and the resumer's while it runs */
  void *caller_fiber;
#endif
} Gen;

static Gen *gen_cur;          /* the generator whose body is running (NULL: the main stack) */

static const char *gen_name(const Gen *g) { return ((Func *)g->func.u.o)->info->name; }

Val gen_new(Val func, const Val *argv, int nargs) {
  Gen *g = obj_new(&gen_type, sizeof(Gen));
  memset((char *)g + sizeof(Obj), 0, sizeof(Gen) - sizeof(Obj));
  g->func = val_incref(func);
  g->nargs = nargs;
  g->args = malloc(sizeof(Val) * (size_t)(nargs ? nargs : 1));
  if (!g->args) abort();
  for (int i = 0; i < nargs; i++) g->args[i] = val_incref(argv[i]);
  g->state = GEN_CREATED;
  g->xfer = g->throw_in = g->eexc = val_undef();
  return val_obj(g);
}

static void gen_release_frame_args(Gen *g) {
  for (int i = 0; i < g->nargs; i++) val_decref(g->args[i]);
  g->nargs = 0;
}

/* ---- the body's side ------------------------------------------------------------------------- */

static void gen_switch_out(Gen *g, bool final) {
#ifdef GEN_ASAN
  __sanitizer_start_switch_fiber(final ? NULL : &g->fake, g->caller_bottom, g->caller_size);
#else
  (void)final;
#endif
#ifdef GEN_TSAN
  __tsan_switch_to_fiber(g->caller_fiber, 0);
#endif
  gen_switch(&g->sp, g->caller_sp);
#ifdef GEN_ASAN
  __sanitizer_finish_switch_fiber(g->fake, &g->caller_bottom, &g->caller_size);
#endif
}

static _Noreturn void gen_main(void *arg) {
  Gen *g = arg;
#ifdef GEN_ASAN
  __sanitizer_finish_switch_fiber(NULL, &g->caller_bottom, &g->caller_size);
#endif
  RtTry t;
  rt_try_push(&t);
  t.toplevel = 2;
  if (setjmp(t.jb) == 0) {
    Func *f = (Func *)g->func.u.o;
    rt_rec_enter("");
    Val r = f->info->code(f, g->args);
    rt_rec_leave();
    rt_try_pop(&t);
    g->xfer = r;
    g->outcome = GEN_RETURNED;
  } else {
    g->outcome = GEN_RAISED;
    g->ekind = t.kind;
    g->emsg = t.msg;
    g->eloc = t.loc;
    g->eexc = t.exc;
    t.msg = NULL;
    t.exc = val_undef();
  }
  gen_switch_out(g, true);
  abort();   /* a finished body is never resumed */
}

/* Raise exc (owned): the hold gives the reference back when the error unwinds. */
static _Noreturn void gen_raise_in(Val exc) {
  rt_hold_val(exc);
  rt_raise(exc);
  __builtin_unreachable();
}

Val rt_yield(Val v) {
  Gen *g = gen_cur;
  if (!g) rt_throw(ERR_RUNTIME, "internal error: 'yield' outside a generator");
  g->xfer = val_incref(v);
  g->outcome = GEN_YIELDED;
  int loc = rt_cur_loc;
  gen_switch_out(g, false);
  rt_cur_loc = loc;
  if (!val_is_undef(g->throw_in)) {
    Val e = g->throw_in;
    g->throw_in = val_undef();
    gen_raise_in(e);
  }
  Val s = g->xfer;
  g->xfer = val_undef();
  return s;
}

/* ---- the resumer's side ------------------------------------------------------------------------ */

/* Raise the error a body ended with, in the resumer: where it was raised. */
static _Noreturn void gen_reraise(ErrKind kind, char *msg, int loc, Val exc) {
  if (msg) rt_hold_mem(msg);   /* freed when the error reaches its handler */
  rt_throw_msg(loc, kind, msg ? msg : "", exc);
}

static void gen_finish(Gen *g) {
  g->state = GEN_DONE;
#ifdef GEN_TSAN
  if (g->fiber) __tsan_destroy_fiber(g->fiber);
  g->fiber = NULL;
#endif
  if (g->stack) gen_stack_put(g->stack);
  g->stack = NULL;
  rt_ctx_release(&g->own);
  gen_release_frame_args(g);
}

static Val gen_stopiteration_class(void) { return exc_lookup("StopIteration", false); }

/* Run the body until it yields (returns GEN_YIELDED, *out the value),
 * returns (GEN_RETURNED, *out the return value) or raises (raised here, in
 * the resumer).  `send` is what the pending yield returns; `exc`, when not
 * VT_UNDEF, is raised at it instead (both borrowed). */
static int gen_resume(Gen *g, Val send, Val exc, Val *out) {
  if (g->state == GEN_RUNNING) rt_throw(ERR_VALUE, "generator already executing");
  if (g->state == GEN_DONE) {
    if (!val_is_undef(exc)) gen_raise_in(val_incref(exc));
    *out = val_none();
    return GEN_RETURNED;
  }
  if (g->state == GEN_CREATED) {
    if (!val_is_undef(exc)) {   /* thrown into a generator that never ran: it ends, the exception goes on */
      gen_finish(g);
      gen_raise_in(val_incref(exc));
    }
    if (send.tag != VT_NONE && !val_is_undef(send))
      rt_throw(ERR_TYPE, "can't send non-None value to a just-started generator");
    g->stack = gen_stack_get();
    g->sp = gen_stack_init(g->stack + GEN_STACK, gen_main, g);
    memset(&g->own, 0, sizeof g->own);
    g->own.call_depth = rt_call_depth;
    g->own.cur_loc = rt_cur_loc;
    g->own.stack_base = (uintptr_t)(g->stack + GEN_STACK);
    g->own.stack_budget = GEN_STACK - GEN_STACK / 4 - (256u << 10);
  }
  g->xfer = val_incref(val_is_undef(send) ? val_none() : send);
  g->throw_in = val_is_undef(exc) ? val_undef() : val_incref(exc);
  g->hdr.rc++;   /* alive while it runs, whatever the body does to its references */
  rt_ctx_save(&g->caller);
  rt_ctx_load(&g->own);
  g->caller_gen = gen_cur;
  gen_cur = g;
  g->state = GEN_RUNNING;
#ifdef GEN_ASAN
  void *fake = NULL;
  __sanitizer_start_switch_fiber(&fake, g->stack + GEN_GUARD, GEN_STACK - GEN_GUARD);
#endif
#ifdef GEN_TSAN
  if (!g->fiber) g->fiber = __tsan_create_fiber(0);
  g->caller_fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(g->fiber, 0);
#endif
  gen_switch(&g->caller_sp, g->sp);
#ifdef GEN_ASAN
  __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
  gen_cur = g->caller_gen;
  g->caller_gen = NULL;
  rt_ctx_save(&g->own);
  rt_ctx_load(&g->caller);
  int outcome = g->outcome;
  Val v = g->xfer;
  g->xfer = val_undef();
  if (outcome == GEN_YIELDED) {
    g->state = GEN_SUSPENDED;
    *out = v;
    val_decref(val_obj(g));
    return outcome;
  }
  gen_finish(g);
  if (outcome == GEN_RETURNED) {
    *out = v;
    val_decref(val_obj(g));
    return outcome;
  }
  ErrKind kind = g->ekind;
  char *msg = g->emsg;
  int loc = g->eloc;
  Val e = g->eexc;
  g->emsg = NULL;
  g->eexc = val_undef();
  val_decref(val_obj(g));
  /* PEP 479: StopIteration leaving a generator's body is a RuntimeError,
   * raised in the resumer (where Python's traceback points) */
  bool stop = val_is(e, &exc_type) ? exc_class_sub(exc_class_of(e), gen_stopiteration_class()) : kind == ERR_STOPITER;
  if (stop) {
    free(msg);
    loc = rt_cur_loc;
    Val re = exc_of_kind(ERR_RUNTIME, "generator raised StopIteration");
    Exc *x = (Exc *)re.u.o;
    x->cause = val_is_undef(e) ? exc_of_kind(ERR_STOPITER, "") : e;
    x->loc = loc;
    rt_throw_msg(loc, ERR_RUNTIME, "generator raised StopIteration", re);
  }
  gen_reraise(kind, msg, loc, e);
}

/* The value a finished body returned, as StopIteration raises it. */
static _Noreturn void gen_stop(Val value) {
  Val cls = gen_stopiteration_class();
  Val e = value.tag == VT_NONE ? rt_call(cls, 0, NULL, NULL) : rt_call(cls, 1, &value, NULL);
  val_decref(value);
  gen_raise_in(e);
}

static bool gen_next(Val it, Val *out) {
  Gen *g = (Gen *)it.u.o;
  if (g->state == GEN_DONE) return false;
  Val v;
  if (gen_resume(g, val_none(), val_undef(), &v) == GEN_YIELDED) {
    *out = v;
    return true;
  }
  val_decref(v);
  return false;
}

/* A return value rides on StopIteration once, when the body returns it. */
Val gen_next_builtin(Val gv, Val dflt) {
  Gen *g = (Gen *)gv.u.o;
  Val v = val_none();
  if (g->state != GEN_DONE && gen_resume(g, val_none(), val_undef(), &v) == GEN_YIELDED) return v;
  if (!val_is_undef(dflt)) {
    val_decref(v);
    return val_incref(dflt);
  }
  gen_stop(v);
}

/* g.close(): GeneratorExit at the yield; ignoring it is a RuntimeError. */
static void gen_close(Gen *g) {
  if (g->state == GEN_CREATED) {
    gen_finish(g);
    return;
  }
  if (g->state != GEN_SUSPENDED) return;
  Val ge = rt_call(exc_lookup("GeneratorExit", false), 0, NULL, NULL);
  int mark = rt_hold_val(ge);
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val v;
    int r = gen_resume(g, val_none(), ge, &v);
    rt_try_pop(&t);
    rt_unhold(mark);
    val_decref(ge);
    val_decref(v);
    if (r == GEN_YIELDED) rt_throw(ERR_RUNTIME, "generator ignored GeneratorExit");
    return;
  }
  rt_unhold(mark);
  val_decref(ge);
  Val e = t.exc;
  Val gecls = exc_lookup("GeneratorExit", false);
  bool ok = val_is(e, &exc_type) && (exc_class_sub(exc_class_of(e), gecls) ||
                                     exc_class_sub(exc_class_of(e), gen_stopiteration_class()));
  if (!ok) rt_rethrow(&t);
  rt_try_clear(&t);
}

/* yield from: delegate to a generator (send, throw and close go through),
 * or yield each item of any other iterable; the value is the generator's
 * return value (None for other iterables). */
Val rt_yield_from(Val iterable) {
  Gen *me = gen_cur;
  if (!me) rt_throw(ERR_RUNTIME, "internal error: 'yield from' outside a generator");
  Val it = rt_iter(iterable);
  int mark = rt_hold_val(it);
  Val result = val_none();
  if (val_is(it, &gen_type)) {
    Gen *sub = (Gen *)it.u.o;
    Val send = val_none(), exc = val_undef();
    rt_hold_ref(&send);   /* an error unwinding from the delegate releases what they hold then */
    rt_hold_ref(&exc);
    for (;;) {
      Val v;
      int r = gen_resume(sub, send, exc, &v);
      TFS_CLEAR(send);
      TFS_CLEAR(exc);
      if (r != GEN_YIELDED) {
        result = v;
        break;
      }
      /* pass the value out; what comes back goes in */
      me->xfer = v;
      me->outcome = GEN_YIELDED;
      int loc = rt_cur_loc;
      gen_switch_out(me, false);
      rt_cur_loc = loc;
      send = me->xfer;
      me->xfer = val_undef();
      if (!val_is_undef(me->throw_in)) {
        exc = me->throw_in;
        me->throw_in = val_undef();
        Val gecls = exc_lookup("GeneratorExit", false);
        if (val_is(exc, &exc_type) && exc_class_sub(exc_class_of(exc), gecls)) {
          /* close the delegate, then GeneratorExit goes on here */
          gen_close(sub);
          rt_raise(exc);   /* the held slots release exc and the iterator */
        }
      }
    }
  } else {
    Val v;
    while (rt_next(it, &v)) {
      Val s = rt_yield(v);
      val_decref(v);
      val_decref(s);
    }
  }
  rt_unhold(mark);
  val_decref(it);
  return result;
}

/* ---- methods ---------------------------------------------------------------------------------------------- */

static Gen *gen_self(Val self, const char *what) {
  if (!val_is(self, &gen_type)) rt_throw(ERR_TYPE, "descriptor '%s' requires a 'generator' object", what);
  return (Gen *)self.u.o;
}

//! generator.send(value)
//!   Resumes the generator, the pending yield returning value; returns the next value it yields
//!   (StopIteration when it returns).
static Val gen_m_send(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "generator.send() takes exactly one argument (%d given)", n);
  Gen *g = gen_self(self, "send");
  Val v;
  if (gen_resume(g, args[0], val_undef(), &v) == GEN_YIELDED) return v;
  gen_stop(v);
}

//! generator.throw(exc)
//!   Raises exc (an exception class or instance) at the pending yield; returns the next value yielded.
static Val gen_m_throw(Val self, int n, const Val *args, const Kw *kw) {
  if (n < 1 || n > 3 || (kw && kw->n)) rt_throw(ERR_TYPE, "throw expected at least 1 argument, got %d", n);
  Gen *g = gen_self(self, "throw");
  Val e = args[0];
  if (!val_is(e, &exc_type)) {
    if (!exc_is_class(e)) rt_throw(ERR_TYPE, "exceptions must be classes or instances deriving from BaseException, not %s", val_type_name(e));
    e = rt_call(e, n >= 2 && args[1].tag != VT_NONE ? 1 : 0, n >= 2 ? &args[1] : NULL, NULL);
  } else {
    val_incref(e);
  }
  int mark = rt_hold_val(e);
  Val v;
  int r = gen_resume(g, val_none(), e, &v);
  rt_unhold(mark);
  val_decref(e);
  if (r == GEN_YIELDED) return v;
  gen_stop(v);
}

//! generator.close()
//!   Raises GeneratorExit at the pending yield, so finally blocks run; the generator is then finished.
static Val gen_m_close(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "generator.close() takes no arguments (%d given)", n);
  gen_close(gen_self(self, "close"));
  return val_none();
}

static Val gen_m_next(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "expected 0 arguments, got %d", n);
  return gen_next_builtin(self, val_undef());
}

static Val gen_m_iter(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "expected 0 arguments, got %d", n);
  return val_incref(self);
}

static Val gen_getattr(Val self, const char *name) {
  Gen *g = (Gen *)self.u.o;
  static const struct { const char *name, *qual; BuiltinFn fn; } methods[] = {
    {"send", "generator.send", gen_m_send}, {"throw", "generator.throw", gen_m_throw},
    {"close", "generator.close", gen_m_close}, {"__next__", "generator.__next__", gen_m_next},
    {"__iter__", "generator.__iter__", gen_m_iter},
  };
  for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
    if (!strcmp(name, methods[i].name)) return builtin_new(methods[i].qual, methods[i].fn, self, NULL);
  if (!strcmp(name, "__name__") || !strcmp(name, "__qualname__")) {
    const char *nm = gen_name(g), *dot = strrchr(nm, '.');
    return str_from_cstr(!strcmp(name, "__name__") && dot ? dot + 1 : nm);
  }
  if (!strcmp(name, "gi_running")) return val_bool(g->state == GEN_RUNNING);
  return val_undef();
}

static Val gen_iter(Val self) { return val_incref(self); }

static void gen_repr(StrBuf *b, Val v) {
  sb_printf(b, "<generator object %s at %p>", gen_name((Gen *)v.u.o), (void *)v.u.o);
}

/* Dropped: a suspended body is closed (CPython's finalizer); an error from
 * that is printed as CPython prints an exception it ignores. */
static void gen_free(Obj *o) {
  Gen *g = (Gen *)o;
  if (g->state == GEN_SUSPENDED) {
    g->hdr.rc = 1;   /* alive while it closes */
    RtTry t;
    rt_try_push(&t);
    if (setjmp(t.jb) == 0) {
      gen_close(g);
      rt_try_pop(&t);
    } else {
      rt_flush();
      fprintf(stderr, "Exception ignored in: <generator object %s at %p>\n", gen_name(g), (void *)g);
      const char *cls = val_is(t.exc, &exc_type) ? ((Exc *)t.exc.u.o)->cls : err_kind_name(t.kind);
      if (t.msg && *t.msg) fprintf(stderr, "%s: %s\n", cls, t.msg);
      else fprintf(stderr, "%s\n", cls);
      rt_try_clear(&t);
    }
    if (g->state == GEN_SUSPENDED) gen_finish(g);   /* it yielded again: abandoned, its frames released */
  }
  if (g->state != GEN_DONE && g->stack) gen_finish(g);
  rt_ctx_release(&g->own);
  gen_release_frame_args(g);
  free(g->args);
  free(g->emsg);
  val_decref(g->eexc);
  val_decref(g->xfer);
  val_decref(g->throw_in);
  val_decref(g->func);
  free(g);
}

const Type gen_type = {
  .name = "generator",
  .free = gen_free,
  .repr = gen_repr,
  .getattr = gen_getattr,
  .iter = gen_iter,
  .next = gen_next,
  .hash = obj_identity_hash,
};

/* ---- for the error machinery ---------------------------------------------------------------------- */

int rt_gen_segments(const RtCtxState **out, int max) {
  int n = 0;
  for (Gen *g = gen_cur; g; g = g->caller_gen) n++;
  if (!out) return n;
  if (n > max) n = max;
  int i = n;
  for (Gen *g = gen_cur; g && i > 0; g = g->caller_gen) out[--i] = &g->caller;
  return n;
}

bool rt_gen_uncaught(void) {
  for (Gen *g = gen_cur; g; g = g->caller_gen) {
    RtTry *top = g->caller.try_top;
    if (!top) return true;
    if (top->toplevel != 2) return false;
  }
  return true;
}
