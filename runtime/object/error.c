/* error.c — runtime errors: kind names, locations, try handlers, §11 reports, and generated code's error calls. */
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "object/object.h"
#include "object/value.h"
#include "object/hooks.h"
#include "object/hosttypes.h"

/* ORDER ErrKind */
static const char *const err_names[ERR__COUNT] = {
  "TypeError", "ValueError", "IndexError", "KeyError", "NameError", "AttributeError", "ZeroDivisionError",
  "OverflowError", "AssertionError", "RuntimeError", "StopIteration", "ImportError", "UnboundLocalError",
  "NotImplementedError", "RecursionError", "MemoryError", "OSError", "KeyboardInterrupt", "ModuleNotFoundError",
  "InvalidArgumentError", "UnimplementedError", "OutOfRangeError", "NotFoundError", "ResourceExhaustedError",
  "DataLossError", "AlreadyExistsError", "UnavailableError", "DeadlineExceededError", "InternalError", "SystemExit",
  "CancelledError", "UnknownError", "PermissionDeniedError", "UnauthenticatedError", "FailedPreconditionError",
  "AbortedError",
};

const char *err_kind_name(ErrKind k) { return k >= 0 && k < ERR__COUNT ? err_names[k] : "Error"; }


/* ---- the location table -------------------------------------------------------------- */

int rt_cur_loc;
static const RtFile *err_files;
static const RtLoc *err_locs;
static int err_nfiles, err_nlocs;

void rt_register_program(int nfiles, const RtFile *files, int nlocs, const RtLoc *locs) {
  err_files = files;
  err_nfiles = nfiles;
  err_locs = locs;
  err_nlocs = nlocs;
}

/* The interactive prompt compiles each input as a unit of its own, numbered
 * on from the previous ones: its files and locations extend the tables, so a
 * function defined at one prompt still reports its own lines when a later one
 * calls it. */
static RtFile *err_files_grown;
static RtLoc *err_locs_grown;

static void *err_grow(void *old, size_t have, size_t add, size_t size) {
  void *n = realloc(old, (have + add) * size);
  if (!n) {
    fputs("error: MemoryError\n", stderr);
    exit(1);
  }
  return n;
}

void rt_append_program(int nfiles, const RtFile *files, int nlocs, const RtLoc *locs) {
  err_files_grown = err_grow(err_files_grown, (size_t)err_nfiles, (size_t)nfiles, sizeof *files);
  memcpy(err_files_grown + err_nfiles, files, sizeof *files * (size_t)nfiles);
  err_locs_grown = err_grow(err_locs_grown, (size_t)err_nlocs, (size_t)nlocs, sizeof *locs);
  memcpy(err_locs_grown + err_nlocs, locs, sizeof *locs * (size_t)nlocs);
  err_files = err_files_grown;
  err_locs = err_locs_grown;
  err_nfiles += nfiles;
  err_nlocs += nlocs;
}

/* Tables the runtime owns (err_files may still be a unit's const array). */
static void err_own_tables(void) {
  if (err_files != err_files_grown) {
    err_files_grown = err_grow(err_files_grown, 0, (size_t)err_nfiles + 1, sizeof *err_files);
    if (err_nfiles) memcpy(err_files_grown, err_files, sizeof *err_files * (size_t)err_nfiles);
    err_files = err_files_grown;
  }
  if (err_locs != err_locs_grown) {
    err_locs_grown = err_grow(err_locs_grown, 0, (size_t)err_nlocs + 1, sizeof *err_locs);
    if (err_nlocs) memcpy(err_locs_grown, err_locs, sizeof *err_locs * (size_t)err_nlocs);
    err_locs = err_locs_grown;
  }
}

/* tfs run compiles each library module as a unit of its own, whose text
 * cannot know the module's index nor where its locations fall: it is file
 * `module`, and its locations (their file fields ignored) go at the end of
 * the table, numbered from the base returned, which the unit adds to its own. */
int rt_unit_register(int module, const RtFile *file, int nlocs, const RtLoc *locs) {
  err_own_tables();
  if (module >= err_nfiles) {
    err_files_grown = err_grow(err_files_grown, (size_t)err_nfiles, (size_t)(module + 1 - err_nfiles), sizeof *err_files);
    memset(err_files_grown + err_nfiles, 0, sizeof *err_files * (size_t)(module + 1 - err_nfiles));
    err_nfiles = module + 1;
  }
  err_files_grown[module] = *file;
  if (!err_nlocs) {   /* location 0 means unknown */
    err_locs_grown[0] = (RtLoc){0, 0, 0};
    err_nlocs = 1;
  }
  int base = err_nlocs;
  err_locs_grown = err_grow(err_locs_grown, (size_t)err_nlocs, (size_t)nlocs + 1, sizeof *err_locs);
  for (int i = 0; i < nlocs; i++) err_locs_grown[base + i] = (RtLoc){module, locs[i].line, locs[i].col};
  err_files = err_files_grown;
  err_locs = err_locs_grown;
  err_nlocs += nlocs;
  return base;
}

void rt_program_tables_free(void) {
  free(err_files_grown);
  free(err_locs_grown);
  err_files_grown = NULL;
  err_locs_grown = NULL;
  err_files = NULL;
  err_locs = NULL;
  err_nfiles = err_nlocs = 0;
}

void rt_set_loc(int loc) { rt_cur_loc = loc; }

const RtLoc *rt_loc_get(int loc) { return loc > 0 && loc < err_nlocs ? &err_locs[loc] : NULL; }
const RtFile *rt_file_get(int file) { return file >= 0 && file < err_nfiles ? &err_files[file] : NULL; }

/* ---- diagnostics --------------------------------------------------------------------------- */

void diag_format(StrBuf *out, const char *path, const char *source, int line, int col, const char *severity,
                 const char *msg) {
  sb_printf(out, "%s:%d:%d: %s: %s\n", path, line, col, severity, msg);
  if (!source || line < 1) return;
  const char *p = source;
  for (int l = 1; l < line; l++) {
    p = strchr(p, '\n');
    if (!p) return;
    p++;
  }
  const char *end = strchr(p, '\n');
  size_t len = end ? (size_t)(end - p) : strlen(p);
  if (len && p[len - 1] == '\r') len--;
  if (!*p && !end) return;   /* the line after the last one */
  /* A long line shows a window around the caret, as clang and rustc do. */
  enum { DIAG_LINE_MAX = 160, DIAG_BEFORE = 70 };
  size_t from = 0, to = len, at = col > 0 ? (size_t)col - 1 : 0;
  if (len > DIAG_LINE_MAX) {
    from = at > DIAG_BEFORE ? at - DIAG_BEFORE : 0;
    if (from > len) from = len > DIAG_LINE_MAX ? len - DIAG_LINE_MAX : 0;
    while (from > 0 && ((unsigned char)p[from] & 0xC0) == 0x80) from--;   /* whole UTF-8 characters */
    to = from + DIAG_LINE_MAX - 20 < len ? from + DIAG_LINE_MAX - 20 : len;
    while (to < len && ((unsigned char)p[to] & 0xC0) == 0x80) to++;
  }
  const char *lead = from ? "..." : "";
  sb_puts(out, lead);
  sb_putn(out, p + from, to - from);
  sb_puts(out, to < len ? "...\n" : "\n");
  sb_puts(out, from ? "   " : "");
  for (size_t i = from; i < at; i++) sb_putc(out, i < len && p[i] == '\t' ? '\t' : ' ');
  sb_puts(out, "^\n");
}

/* cls: the class name to print (NULL: the kind's). */
static void err_report(int loc, ErrKind kind, const char *cls, const char *msg) {
  StrBuf text, out;
  sb_init(&text);
  sb_init(&out);
  if (!cls) cls = err_kind_name(kind);
  /* every exception prints its class, tf.errors ones too (TF: `InvalidArgumentError: ...`) */
  if (!*msg) sb_puts(&text, cls);
  else sb_printf(&text, "%s: %s", cls, msg);
  const RtLoc *l = rt_loc_get(loc);
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  if (f && f->path) diag_format(&out, f->path, f->source, l->line, l->col, "error", text.data);
  else sb_printf(&out, "error: %s\n", text.data);
  rt_flush();
  fwrite(out.data, 1, out.len, stderr);
  fflush(stderr);
  sb_free(&text);
  sb_free(&out);
}

void rt_report(int loc, ErrKind kind, const char *msg) { err_report(loc, kind, NULL, msg); }

/* The class an uncaught exception prints, as CPython's traceback does: a
 * class of a module other than the program and builtins is qualified by it
 * (`json.decoder.JSONDecodeError`, `mymod.Error`).  NULL: the kind's name. */
static const char *err_class_name(Val exc, StrBuf *b) {
  if (!val_is(exc, &exc_type)) return NULL;
  const Exc *e = (const Exc *)exc.u.o;
  const char *mod = e->klass ? e->klass->module : NULL;
  /* a class whose __name__ was changed keeps its __qualname__ in tracebacks (numpy's _display_as_base) */
  Val qn = e->klass ? dict_get_str(e->klass->dict, "__qualname__") : val_undef();
  if (!val_is(qn, &str_type) && !mod) {
    val_decref(qn);
    return e->cls;
  }
  if (mod && strcmp(mod, "__main__") && strcmp(mod, "builtins")) sb_printf(b, "%s.", mod);
  sb_puts(b, val_is(qn, &str_type) ? str_cstr(qn) : e->cls);
  val_decref(qn);
  return b->data;
}

/* The error an AutoGraph-framed exception (rt_ag_reraise) was made from (borrowed), else exc. */
static Val err_ag_original(Val exc) {
  if (!val_is(exc, &exc_type)) return exc;
  Val md = dict_get_str(((Exc *)exc.u.o)->dict, "ag_error_metadata");
  Val orig = exc;
  tfs_i64 n;
  const Val *items;
  if (val_is(md, &tuple_type) && seq_items(md, &n, &items) && n == 3 && val_is(items[0], &exc_type)) orig = items[0];
  val_decref(md);   /* the exception's dict holds it */
  return orig;
}

static void err_report_exc(int loc, ErrKind kind, Val exc, const char *msg) {
  StrBuf b;
  sb_init(&b);
  /* An uncaught framed error reports as the original did: its class and message at its line (§11); the
   * frames are what the traceback above it shows. */
  Val orig = err_ag_original(exc);
  if (orig.u.o != exc.u.o) {
    kind = (ErrKind)((Exc *)orig.u.o)->kind;
    msg = str_cstr(((Exc *)orig.u.o)->msg);
  }
  err_report(loc, kind, err_class_name(orig, &b), msg);
  sb_free(&b);
}

/* ---- temporaries released on unwind -------------------------------------------------------------- */

typedef struct Held {
  int kind;                   /* HOLD_* */
  Val v;
  void *p;                    /* memory, StrBuf *, or Val *const * */
  const tfs_i64 *n;           /* HOLD_VALS: the live count */
  void (*fn)(void *);         /* HOLD_FN: releases p */
} Held;
enum { HOLD_VAL, HOLD_MEM, HOLD_SB, HOLD_VALS, HOLD_REF, HOLD_FRAME, HOLD_FN };

/* per thread: a tf.data worker running a graph (graph/parexec.c) throws and catches on its own stack */
static __thread Held *err_held;
static __thread int err_nheld, err_held_cap;

/* A thread that held anything (a tf.data worker, a C API caller's thread) frees its hold stack when it ends. */
static pthread_key_t err_held_key;
static pthread_once_t err_held_once = PTHREAD_ONCE_INIT;

static void err_held_free(void *unused) {
  (void)unused;
  free(err_held);
  err_held = NULL;
  err_nheld = err_held_cap = 0;
}

static void err_held_key_make(void) { pthread_key_create(&err_held_key, err_held_free); }

static int err_hold(Held h) {
  if (!err_held) {
    pthread_once(&err_held_once, err_held_key_make);
    pthread_setspecific(err_held_key, (void *)1);
  }
  if (err_nheld == err_held_cap) {
    int cap = err_held_cap ? err_held_cap * 2 : 64;
    Held *n = realloc(err_held, sizeof(Held) * (size_t)cap);
    if (!n) {
      fputs("error: MemoryError\n", stderr);
      exit(1);
    }
    err_held = n;
    err_held_cap = cap;
  }
  err_held[err_nheld] = h;
  return err_nheld++;
}

int rt_hold_val(Val v) { return err_hold((Held){HOLD_VAL, v, NULL, NULL, NULL}); }
int rt_hold_mem(void *p) { return err_hold((Held){HOLD_MEM, val_undef(), p, NULL, NULL}); }
int rt_hold_sb(StrBuf *b) { return err_hold((Held){HOLD_SB, val_undef(), b, NULL, NULL}); }
int rt_hold_vals(Val *const *items, const tfs_i64 *n) {
  return err_hold((Held){HOLD_VALS, val_undef(), (void *)items, n, NULL});
}

int rt_hold_ref(Val *slot) { return err_hold((Held){HOLD_REF, val_undef(), slot, NULL, NULL}); }
int rt_hold_fn(void (*release)(void *), void *p) { return err_hold((Held){HOLD_FN, val_undef(), p, NULL, release}); }

/* The temporaries of a generated function too big for the C stack (cgen.c
 * CG_STACK_TEMPS): on the heap, freed by an unwinding error after the frame
 * that clears them (it is pushed later, so it is released first). */
Val *rt_temps_new(int n, int *mark) {
  Val *t = malloc(sizeof(Val) * (size_t)n);
  if (!t) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < n; i++) t[i] = val_undef();
  *mark = rt_hold_mem(t);
  return t;
}

void rt_temps_free(Val *t, int mark) {
  rt_unhold(mark);
  free(t);
}

int rt_frame_push(RtFrame *f) {
  f->call_loc = rt_cur_loc;
  return err_hold((Held){HOLD_FRAME, val_undef(), f, NULL, NULL});
}

/* What a generated function's frame still owns when an error unwinds through it. */
static void err_release_frame(RtFrame *f) {
  for (int i = 0; i < f->ntemps; i++) TFS_CLEAR(f->temps[i]);
  for (int i = 0; i < f->nlocals; i++) TFS_CLEAR(*f->locals[i]);
  for (int i = 0; i < f->ncells; i++) val_decref(val_obj(f->cells[i]));
}

void rt_unhold(int mark) {
  if (mark >= 0 && mark < err_nheld) err_nheld = mark;
}

/* Release held temporaries down to `mark`, newest first. */
static void err_release_held(int mark) {
  while (err_nheld > mark) {
    Held h = err_held[--err_nheld];
    switch (h.kind) {
      case HOLD_VAL: val_decref(h.v); break;
      case HOLD_MEM: free(h.p); break;
      case HOLD_SB: sb_free((StrBuf *)h.p); break;
      case HOLD_REF: val_decref(*(Val *)h.p); break;
      case HOLD_FRAME: err_release_frame(h.p); break;
      case HOLD_FN: h.fn(h.p); break;
      default: {
        Val *items = *(Val *const *)h.p;
        for (tfs_i64 i = 0; items && i < *h.n; i++) val_decref(items[i]);
        free(items);
        break;
      }
    }
  }
}

/* ---- throwing and catching ---------------------------------------------------------------------- */

static __thread RtTry *err_try_top;

void rt_ctx_save(RtCtxState *s) {
  s->held = err_held;
  s->nheld = err_nheld;
  s->held_cap = err_held_cap;
  s->try_top = err_try_top;
  s->call_depth = rt_call_depth;
  s->repr_depth = repr_depth_get();
  s->cur_loc = rt_cur_loc;
  rt_stack_bounds(&s->stack_base, &s->stack_budget, false);
}

void rt_ctx_load(const RtCtxState *s) {
  err_held = s->held;
  err_nheld = s->nheld;
  err_held_cap = s->held_cap;
  err_try_top = s->try_top;
  rt_call_depth = s->call_depth;
  repr_depth_set(s->repr_depth);
  rt_cur_loc = s->cur_loc;
  uintptr_t base = s->stack_base;
  size_t budget = s->stack_budget;
  rt_stack_bounds(&base, &budget, true);
}

static void err_release_held(int mark);

void rt_ctx_release(RtCtxState *s) {
  RtCtxState cur;
  rt_ctx_save(&cur);
  rt_ctx_load(s);
  err_release_held(0);
  free(err_held);
  s->held = NULL;
  s->nheld = s->held_cap = 0;
  s->try_top = NULL;
  rt_ctx_load(&cur);
}

void rt_try_push(RtTry *t) {
  t->prev = err_try_top;
  t->depth = rt_call_depth;
  t->repr_depth = repr_depth_get();
  t->kind = ERR_RUNTIME;
  t->msg = NULL;
  t->loc = 0;
  t->exc = val_undef();
  t->hold_mark = err_nheld;
  t->toplevel = 0;
  t->ag = NULL;
  err_try_top = t;
}

void rt_try_pop(RtTry *t) {
  if (err_try_top == t) err_try_top = t->prev;
}

void rt_try_clear(RtTry *t) {
  free(t->msg);
  t->msg = NULL;
  val_decref(t->exc);
  t->exc = val_undef();
}

/* "Traceback (most recent call last):" with the live frames of generated
 * code, outermost first, when the error passed through a call (§12).  Frames
 * of the stdlib .tfs library (tf.keras) are left out, as Keras filters its own
 * frames from tracebacks: the user's calls remain. */
/* The frames of a traceback, outermost first: those of the stacks that
 * resumed the running generators (each one's line is where it resumed the
 * next), then the current stack's. */
typedef struct TbFrame { const char *name; int line_loc; } TbFrame;

static int err_frames(TbFrame **out, int loc) {
  int nseg = rt_gen_segments(NULL, 0), n = 0, cap = 16;
  const RtCtxState **segs = malloc(sizeof *segs * (size_t)(nseg + 1));
  nseg = segs ? rt_gen_segments(segs, nseg) : 0;
  TbFrame *v = malloc(sizeof *v * (size_t)cap);
  for (int s = 0; s <= nseg && v; s++) {
    const Held *held = s < nseg ? segs[s]->held : err_held;
    int nh = s < nseg ? segs[s]->nheld : err_nheld;
    int end = s < nseg ? segs[s]->cur_loc : loc;
    for (int i = 0; i < nh; i++) {
      if (held[i].kind != HOLD_FRAME) continue;
      const RtFrame *f = held[i].p;
      if (n && v[n - 1].line_loc == -1) v[n - 1].line_loc = f->call_loc;
      if (n == cap) {
        TbFrame *w = realloc(v, sizeof *v * (size_t)(cap *= 2));
        if (!w) break;
        v = w;
      }
      v[n++] = (TbFrame){f->name, -1};
    }
    if (n && v[n - 1].line_loc == -1) v[n - 1].line_loc = end;
  }
  free(segs);
  *out = v;
  return v ? n : 0;
}

static void err_traceback(int loc) {
  TbFrame *fr;
  int nframes = err_frames(&fr, loc);
  if (nframes < 2) {
    free(fr);
    return;
  }
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, "Traceback (most recent call last):\n");
  int shown = 0;
  /* Python's collapse of runaway recursion: a line repeated more than 3
   * times in a row prints 3 times, then "[Previous line repeated N more times]" */
  const RtFile *lastfile = NULL;
  int lastline = 0, repeats = 0;
  const char *lastname = NULL;
  for (int i = 0; i < nframes; i++) {
    const TbFrame *prev = &fr[i];
    const RtLoc *l = rt_loc_get(prev->line_loc);
    const RtFile *file = l ? rt_file_get(l->file) : NULL;
    /* a frame at the very location of its caller's call is a library frame an error re-raised from at the
     * user's line (a handler in the library caught it there): it is the library's, not shown */
    if (i > 0 && prev->line_loc == fr[i - 1].line_loc && strcmp(prev->name, fr[i - 1].name) != 0) continue;
    if (file && !file->library) {
      if (file == lastfile && l->line == lastline && strcmp(prev->name, lastname) == 0) {
        repeats++;
      } else {
        if (repeats > 3) sb_printf(&b, "  [Previous line repeated %d more time%s]\n", repeats - 3, repeats == 4 ? "" : "s");
        repeats = 1;
        lastfile = file, lastline = l->line, lastname = prev->name;
      }
      if (repeats <= 3) sb_printf(&b, "  %s:%d in %s\n", file->path, l->line, prev->name);
      shown++;
    }
  }
  free(fr);
  if (repeats > 3) sb_printf(&b, "  [Previous line repeated %d more time%s]\n", repeats - 3, repeats == 4 ? "" : "s");
  rt_flush();
  if (shown >= 2) fwrite(b.data, 1, b.len, stderr);
  sb_free(&b);
}

static bool err_in_library(int loc) {
  const RtLoc *l = rt_loc_get(loc);
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  return f && f->library;
}

/* An error raised inside the stdlib .tfs library (tf.keras) is reported at
 * the innermost user line that called into it; the traceback shows the rest. */
static int err_user_loc(int loc);

int rt_user_loc(void) { return err_user_loc(rt_cur_loc); }

static int err_user_loc(int loc) {
  for (int i = err_nheld - 1; i >= 0 && err_in_library(loc); i--)
    if (err_held[i].kind == HOLD_FRAME) {
      int at = ((const RtFrame *)err_held[i].p)->call_loc;
      if (at > 0) loc = at;
    }
  return loc;
}

/* ---- AutoGraph's frames ------------------------------------------------------------------------ */

void rt_try_ag(RtTry *t, RtAgFrames *frames) {
  frames->v = NULL;
  frames->n = 0;
  t->ag = frames;
}

void rt_ag_frames_free(RtAgFrames *frames) {
  free(frames->v);
  frames->v = NULL;
  frames->n = 0;
}

/* An error raised (not one a handler passes on: it keeps the frames of its raise, as a Python traceback
 * does) records, for the innermost trace's handler, the frames of generated code above it, loc the
 * innermost one's location. */
static void err_ag_capture(int loc) {
  RtTry *c = err_try_top;
  while (c && !c->ag) c = c->prev;
  if (!c) return;
  RtAgFrames *a = c->ag;
  int n = 0;
  for (int i = c->hold_mark; i < err_nheld; i++) n += err_held[i].kind == HOLD_FRAME;
  a->n = 0;
  if (!n) return;
  RtAgFrame *v = realloc(a->v, sizeof *v * (size_t)n);
  if (!v) return;
  a->v = v;
  for (int i = c->hold_mark; i < err_nheld; i++) {
    if (err_held[i].kind != HOLD_FRAME) continue;
    const RtFrame *f = err_held[i].p;
    if (a->n) v[a->n - 1].loc = f->call_loc;
    v[a->n++] = (RtAgFrame){f->name, loc, f->ag};
  }
}

/* Unwind with an owned, malloc'd message. */
static _Noreturn void err_unwind_as(int loc, ErrKind kind, char *msg, Val exc, bool fresh);
static _Noreturn void err_unwind(int loc, ErrKind kind, char *msg, Val exc) { err_unwind_as(loc, kind, msg, exc, true); }

static _Noreturn void err_unwind_as(int loc, ErrKind kind, char *msg, Val exc, bool fresh) {
  RtTry *t = err_try_top;
  if (fresh) err_ag_capture(loc);
  int user = err_user_loc(loc);   /* now: a handler in C releases the frames it passed */
  /* An error no handler of any stack will catch, raised in a generator:
   * reported now, while its frames and its consumers' are all alive (the
   * traceback shows them); StopIteration is excepted, the generator's
   * handler turns it into RuntimeError (PEP 479). */
  if (t && t->toplevel == 2 && kind != ERR_STOPITER && rt_gen_uncaught()) t = NULL;
  if (t) {
    err_try_top = t->prev;
    t->kind = kind;
    t->msg = msg;
    t->loc = user;
    t->exc = exc;
    if (t->toplevel == 1 && kind != ERR_SYSTEM_EXIT) err_traceback(loc);   /* the frames are still on the hold stack */
    rt_call_depth = t->depth;
    repr_depth_set(t->repr_depth);
    err_release_held(t->hold_mark);   /* the unwound frames are still alive here */
    longjmp(t->jb, 1);
  }
  if (kind == ERR_SYSTEM_EXIT) {   /* sys.exit(): no report, the status it carries */
    free(msg);
    int st = exc_exit_status(exc);
    rt_flush();
    fflush(stderr);
    if (st && rt_obj_hooks.uncaught) rt_obj_hooks.uncaught();
    if (!st && rt_obj_hooks.exit_ok) rt_obj_hooks.exit_ok();
    _exit(st);
  }
  err_traceback(loc);
  loc = user;
  err_report_exc(loc, kind, exc, msg);
  free(msg);
  /* An uncaught error ends the program at once.  Frames it unwound through
   * (generated code, tracing) still own values; running exit handlers would
   * only report those as leaks of a process that is going away. */
  rt_flush();
  fflush(stderr);
  if (rt_obj_hooks.uncaught) rt_obj_hooks.uncaught();   /* a rank of a distributed job stops the job */
  _exit(kind == ERR_KEYBOARD_INTERRUPT ? 130 : 1);   /* 128 + SIGINT, as a shell reports Ctrl-C */
}

void rt_report_caught(RtTry *t) {
  err_report_exc(t->loc, t->kind, t->exc, t->msg ? t->msg : "");
  rt_try_clear(t);
}

static char *err_strdup(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (!d) {
    fputs("error: MemoryError\n", stderr);
    exit(1);
  }
  memcpy(d, s, n + 1);
  return d;
}

_Noreturn void rt_throw_msg(int loc, ErrKind kind, const char *msg, Val exc) {
  err_unwind(loc, kind, err_strdup(msg), exc);
}

_Noreturn void rt_rethrow(RtTry *t) {
  char *msg = t->msg ? t->msg : err_strdup("");
  Val exc = t->exc;
  t->msg = NULL;
  t->exc = val_undef();
  err_unwind_as(t->loc, t->kind, msg, exc, false);
}

static _Noreturn void err_vthrow(int loc, ErrKind kind, const char *fmt, va_list ap) {
  char small[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap2);
  va_end(ap2);
  char *msg;
  if (n >= 0 && (size_t)n < sizeof small) {
    msg = err_strdup(small);
  } else {
    msg = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!msg) msg = err_strdup(small);
    else vsnprintf(msg, (size_t)n + 1, fmt, ap);
  }
  err_unwind(loc, kind, msg, val_undef());
}

_Noreturn void rt_throw(ErrKind kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  err_vthrow(rt_cur_loc, kind, fmt, ap);
}

_Noreturn void rt_throw_at(int loc, ErrKind kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  err_vthrow(loc, kind, fmt, ap);
}

/* ---- error entry points of generated code ----------------------------------------------------------- */

void rt_unbound_local(const char *name) {
  rt_throw(ERR_UNBOUND, "cannot access local variable '%s' where it is not associated with a value", name);
}

void rt_unbound_global(const char *name) { rt_throw(ERR_NAME, "name '%s' is not defined", name); }

void rt_assert_fail(Val msg) {
  if (val_is_undef(msg)) rt_throw(ERR_ASSERTION, "%s", "");
  Val s = str_of(msg);
  char *text = err_strdup(str_cstr(s));
  val_decref(s);
  err_unwind(rt_cur_loc, ERR_ASSERTION, text, val_undef());
}

/* The raise statement: an exception instance, or a class to instantiate. */
static Val err_instance(Val exc) {
  if (val_is(exc, &exc_type)) return val_incref(exc);
  if (exc_is_class(exc)) {
    Val inst = rt_call(exc, 0, NULL, NULL);
    if (val_is(inst, &exc_type)) return inst;
    val_decref(inst);
  }
  if (exc.tag == VT_NONE) rt_throw(ERR_RUNTIME, "No active exception to reraise");
  rt_throw(ERR_TYPE, "exceptions must derive from BaseException");
}

static _Noreturn void err_raise_exc_as(Val inst, int loc, bool fresh) {
  Exc *e = (Exc *)inst.u.o;
  e->loc = loc;
  err_unwind_as(loc, (ErrKind)e->kind, err_strdup(str_cstr(e->msg)), inst, fresh);
}

static _Noreturn void err_raise_exc(Val inst, int loc) { err_raise_exc_as(inst, loc, true); }

void rt_raise(Val exc) { err_raise_exc(err_instance(exc), rt_cur_loc); }

void rt_raise_from(Val exc, Val cause) {
  Val inst = err_instance(exc);
  int mark = rt_hold_val(inst);
  Val c = cause.tag == VT_NONE ? val_none() : err_instance(cause);
  rt_unhold(mark);
  Exc *e = (Exc *)inst.u.o;
  val_decref(e->cause);
  e->cause = c;
  err_raise_exc(inst, rt_cur_loc);
}

/* Bare `raise` and the end of a finally: the exception goes on from where it was raised. */
void rt_reraise(Val exc) {
  Val inst = err_instance(exc);
  err_raise_exc_as(inst, ((Exc *)inst.u.o)->loc ? ((Exc *)inst.u.o)->loc : rt_cur_loc, false);
}

/* ---- try and with in generated code ------------------------------------------------------- */

_Static_assert(sizeof(RtTry) <= sizeof(RtTryBuf), "RtTryBuf too small for RtTry");
_Static_assert(offsetof(RtTry, jb) == 0, "the jmp_buf must come first in RtTry");

void rt_try_enter(RtTryBuf *t) { rt_try_push((RtTry *)t); }
void rt_try_leave(RtTryBuf *t) { rt_try_pop((RtTry *)t); }

/* The caught error as an exception object (owned): a runtime error becomes
 * an instance of its kind's class, located where it was thrown. */
Val rt_try_caught(RtTryBuf *b) {
  RtTry *t = (RtTry *)b;
  Val e = t->exc;
  t->exc = val_undef();
  if (!val_is(e, &exc_type)) {
    val_decref(e);
    e = exc_of_kind(t->kind, t->msg ? t->msg : "");
    ((Exc *)e.u.o)->loc = t->loc;
  }
  rt_try_clear(t);
  return e;
}

static bool err_match1(Val exc, Val cls) {
  if (!exc_is_class(cls)) rt_throw(ERR_TYPE, "catching classes that do not inherit from BaseException is not allowed");
  return exc_class_sub(exc_class_of(exc), cls);
}

int rt_exc_match(Val exc, Val cls) {
  tfs_i64 n;
  const Val *items;
  if (val_is(cls, &tuple_type) && seq_items(cls, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++)
      if (err_match1(exc, items[i])) return 1;
    return 0;
  }
  return err_match1(exc, cls);
}

/* Python 3.11's lookup order and texts for the context-manager protocol. */
static Val err_cm_method(Val mgr, const char *name, const char *missed) {
  Val m = mgr.tag == VT_OBJ && mgr.u.o->type->getattr ? mgr.u.o->type->getattr(mgr, name) : val_undef();
  if (val_is_undef(m))
    rt_throw(ERR_TYPE, "'%s' object does not support the context manager protocol%s", val_type_name(mgr), missed);
  return m;
}

Val rt_with_enter(Val mgr) {
  Val enter = err_cm_method(mgr, "__enter__", "");
  val_decref(err_cm_method(mgr, "__exit__", " (missed __exit__ method)"));
  int mark = rt_hold_val(enter);
  Val r = rt_call(enter, 0, NULL, NULL);
  rt_unhold(mark);
  val_decref(enter);
  return r;
}

/* __exit__(type, value, None) for an exception (true: swallow it), or
 * __exit__(None, None, None) when exc is VT_UNDEF. */
int rt_with_exit(Val mgr, Val exc) {
  Val exit = err_cm_method(mgr, "__exit__", " (missed __exit__ method)");
  int mark = rt_hold_val(exit);
  Val a[3] = {val_none(), val_none(), val_none()};
  if (!val_is_undef(exc)) {
    a[0] = exc_class_of(exc);
    a[1] = exc;
  }
  Val r = rt_call(exit, 3, a, NULL);
  int mark2 = rt_hold_val(r);
  int swallow = !val_is_undef(exc) && rt_truthy(r);
  rt_unhold(mark);
  (void)mark2;
  val_decref(r);
  val_decref(exit);
  return swallow;
}

/* ---- AutoGraph's "in user code:" ------------------------------------------------------------------ */

/* One entry of the framing: a converted function (its innermost location, through the helpers AutoGraph
 * generated), or a frame of user code run as written. */
typedef struct AgEntry { const char *name; int loc; bool converted; } AgEntry;

/* `    File "prog.tfs", line 5, in f  *` and the source line, stripped (TF's ErrorMetadataBase.get_message). */
static void err_ag_entry(StrBuf *b, const AgEntry *e) {
  const RtLoc *l = rt_loc_get(e->loc);
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  sb_printf(b, "    File \"%s\", line %d, in %s%s\n        ", f && f->path ? f->path : "<unknown>", l ? l->line : 0,
            e->name, e->converted ? "  *" : "");
  const char *p = f ? f->source : NULL;
  for (int i = 1; p && l && i < l->line; i++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  if (!p || !l) {
    sb_puts(b, "<source unavailable>");
    return;
  }
  const char *end = strchr(p, '\n');
  if (!end) end = p + strlen(p);
  while (p < end && strchr(" \t\r\f\v", *p)) p++;
  while (end > p && strchr(" \t\r\f\v", end[-1])) end--;
  sb_putn(b, p, (size_t)(end - p));
}

_Noreturn void rt_ag_reraise(RtTry *t, int site, bool convert_plain) {
  RtAgFrames *a = t->ag;
  t->ag = NULL;
  Val orig = t->exc;
  bool made = !val_is(orig, &exc_type);
  if (made) {
    orig = exc_of_kind(t->kind, t->msg ? t->msg : "");
    ((Exc *)orig.u.o)->loc = t->loc;
  }
  /* the entries, outermost first: one per converted function; a frame run as written is listed only
   * below the innermost converted one (TF's translated stack keeps the converted frame of each
   * converted_call and, under the last, the frames it called) */
  AgEntry *ent = a && a->n ? malloc(sizeof *ent * (size_t)a->n) : NULL;
  int ne = 0, lastconv = -1;
  for (int i = 0; ent && i < a->n; i++) {
    RtAgFrame fr = a->v[i];
    const RtAgFrame *f = &fr;
    if (f->ag == RT_AG_LIBRARY || !rt_loc_get(f->loc)) continue;
    if (convert_plain && fr.ag == RT_AG_PLAIN) fr.ag = RT_AG_HEAD;   /* Keras converts the call it runs unconverted here */
    bool in_conv = ne && ent[ne - 1].converted;
    if (f->ag == RT_AG_HEAD || (f->ag != RT_AG_PLAIN && !in_conv)) {
      ent[ne++] = (AgEntry){f->name, f->loc, f->ag != RT_AG_PLAIN};
    } else if (f->ag == RT_AG_NESTED) {
      ent[ne - 1].name = f->name;   /* a def of the user's inside converted code: its own name */
      ent[ne - 1].loc = f->loc;
    } else if (f->ag == RT_AG_HELPER) {
      ent[ne - 1].loc = f->loc;
    } else {
      ent[ne++] = (AgEntry){f->name, f->loc, false};
    }
    if (ent[ne - 1].converted) lastconv = ne - 1;
  }
  if (a) rt_ag_frames_free(a);
  err_ag_capture(site);   /* for a trace around this one: its frames, the innermost at this trace's call */
  if (lastconv < 0) {   /* no converted code ran (autograph=False, tfs's own checks): as it was */
    free(ent);
    if (made) val_decref(orig);
    rt_rethrow(t);
  }
  /* an error framed by a tf.function traced inside this one: its entries follow this trace's converted ones */
  Val md = dict_get_str(((Exc *)orig.u.o)->dict, "ag_error_metadata");
  tfs_i64 nmd = 0;
  const Val *mdi = NULL;
  bool chained = val_is(md, &tuple_type) && seq_items(md, &nmd, &mdi) && nmd == 3 && val_is(mdi[1], &str_type) &&
                 val_is(mdi[2], &str_type);
  StrBuf frames, text;
  sb_init(&frames);
  sb_init(&text);
  /* str(orig) and the class's constructor run user code, which may raise: what is built so far is held */
  int mark = rt_hold_sb(&frames);
  rt_hold_sb(&text);
  rt_hold_val(md);
  rt_hold_val(orig);   /* t's own reference when t->exc: t is not released when an error leaves here */
  if (t->msg) rt_hold_mem(t->msg);
  for (int i = 0; i < ne; i++) {
    if (!ent[i].converted && (chained || i < lastconv)) continue;
    if (frames.len) sb_putc(&frames, '\n');
    err_ag_entry(&frames, &ent[i]);
  }
  free(ent);
  if (chained && str_len(mdi[2])) {
    if (frames.len) sb_putc(&frames, '\n');
    sb_puts(&frames, str_cstr(mdi[2]));
  }
  Val cause;
  if (chained) {
    cause = val_incref(mdi[1]);
  } else {
    StrBuf c;
    sb_init(&c);
    Val s = str_of(orig);
    sb_printf(&c, "%s: %s", ((Exc *)orig.u.o)->klass->name, str_cstr(s));
    val_decref(s);
    cause = str_new(c.data ? c.data : "", (tfs_i64)c.len);
    sb_free(&c);
  }
  /* in user code:, a blank line, the entries, a blank line, the cause's lines indented by 4, a final newline */
  sb_puts(&text, "in user code:\n\n");
  sb_putn(&text, frames.data ? frames.data : "", frames.len);
  sb_puts(&text, "\n\n    ");
  for (const char *p = str_cstr(cause); *p; p++) {
    sb_putc(&text, *p);
    if (*p == '\n') sb_puts(&text, "    ");
  }
  sb_putc(&text, '\n');
  Val tv = str_new(text.data, (tfs_i64)text.len);
  Val orig0 = chained && val_is(mdi[0], &exc_type) ? val_incref(mdi[0]) : val_incref(orig);
  Val entries = str_new(frames.data ? frames.data : "", (tfs_i64)frames.len);
  rt_unhold(mark);
  val_decref(md);
  sb_free(&frames);
  sb_free(&text);
  int loc = t->loc;
  mark = rt_hold_val(tv);
  rt_hold_val(cause);
  rt_hold_val(orig0);
  rt_hold_val(entries);
  rt_hold_val(orig);
  if (t->msg) rt_hold_mem(t->msg);
  Val ne_exc = exc_ag_recreate(orig, tv, cause);
  rt_unhold(mark);
  if (val_is_undef(ne_exc) || !val_is(ne_exc, &exc_type)) {
    val_decref(ne_exc);
    val_decref(tv);
    val_decref(cause);
    val_decref(orig0);
    val_decref(entries);
    if (made) val_decref(orig);
    rt_rethrow(t);
  }
  Val meta = tuple_pack(3, orig0, cause, entries);
  Exc *x = (Exc *)ne_exc.u.o;
  dict_set_str(&x->dict, "ag_error_metadata", meta);
  x->loc = loc;
  val_decref(meta);
  val_decref(orig0);
  val_decref(entries);
  val_decref(cause);
  val_decref(tv);
  if (made) val_decref(orig);
  rt_try_clear(t);
  char *m = err_strdup(str_cstr(x->msg));
  err_unwind_as(loc, (ErrKind)x->kind, m, ne_exc, false);
}
