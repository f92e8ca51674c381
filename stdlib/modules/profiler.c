/* profiler.c — tf.profiler.experimental (start, stop, Trace, Profile) and saving a session in TF's profile layout.
 *
 * The recorder (runtime/kernels/prof.c) logs every op run while a session is
 * on; saving writes LOGDIR/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb
 * (an XSpace, formats/xplane.c) and <host>.trace.json.gz, the directory layout
 * TensorBoard's profile plugin lists. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/xplane.h"
#include "kernels/prof.h"
#include "modules/modules.h"
#include "modules/summary.h"
#include "object/object.h"

static char *pf_logdir;   /* tf.profiler.experimental.start's logdir, for stop() */

void profiler_begin(void) {
  if (prof_session_active()) rt_throw(ERR_ALREADY_EXISTS, "Another profiler is running.");
  prof_start();
}

void profiler_end(void) {
  if (!prof_session_active()) rt_throw(ERR_UNAVAILABLE, "Cannot export profiling results. No profiler is running.");
  prof_stop();
}

void profiler_save(const char *logdir, const char *what) {
  char host[256];
  if (gethostname(host, sizeof host) != 0) strcpy(host, "localhost");
  host[sizeof host - 1] = 0;
  char run[64];
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(run, sizeof run, "%Y_%m_%d_%H_%M_%S", &tm);
  StrBuf dir;
  sb_init(&dir);
  int mark = rt_hold_sb(&dir);
  sb_printf(&dir, "%s/plugins/profile/%s", logdir, run);
  int e = summary_mkdirs(dir.data);
  if (e) rt_throw(ERR_IO, "%s: cannot create profile directory '%s': %s", what, dir.data, strerror(e));
  sb_printf(&dir, "/%s", host);
  e = xplane_write(dir.data, host);
  if (e) rt_throw(ERR_IO, "%s: cannot write the profile '%s': %s", what, dir.data, strerror(e));
  rt_unhold(mark);
  sb_free(&dir);
  prof_clear();
}

static const char *pf_logdir_arg(Val v, const char *what) {
  if (!val_is(v, &str_type)) rt_throw(ERR_TYPE, "%s: logdir must be a string, not %s", what, val_type_name(v));
  return str_cstr(v);
}

//! tf.profiler.experimental.start(logdir, options=None)
//!   Starts recording every op run (eagerly and in tf.functions: type, name, time, thread, .tfs line, input
//!   shapes); stop() saves them under logdir/plugins/profile/<run>/ as TensorBoard's profile plugin reads.
static Val pf_start(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.profiler.experimental.start", .sig = "logdir, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  const char *dir = pf_logdir_arg(a[0], spec.what);
  profiler_begin();
  free(pf_logdir);
  pf_logdir = strdup(dir);
  return val_none();
}

//! tf.profiler.experimental.stop(save=True)
//!   Stops the profiler started by start() and writes <host>.xplane.pb and <host>.trace.json.gz.
static Val pf_stop(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.profiler.experimental.stop", .sig = "save=True"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  profiler_end();
  if (pf_logdir && rt_truthy(a[0])) profiler_save(pf_logdir, spec.what);
  prof_clear();
  return val_none();
}

/* ---- Trace and Profile: context managers ------------------------------------------------- */

typedef struct PfCtx {
  Obj hdr;
  bool profile;               /* Profile(logdir): a session; else Trace(name): a named range */
  Val name;                   /* owned str: the range's name or the logdir */
  tfs_i64 step;               /* Trace's step_num (-1: none) */
  StrBuf meta;                /* Trace's other keywords as TF's TraceMe encodes them: "k=v,k2=v2" */
  tfs_i64 t0;                 /* prof_clock() at __enter__ (0: not recording) */
  int loc;                    /* the with statement's line */
} PfCtx;

static const Type pfctx_type;

static Val pf_enter(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  (void)kw;
  if (n) rt_throw(ERR_TYPE, "__enter__() takes no arguments (%d given)", n);
  PfCtx *c = (PfCtx *)self.u.o;
  if (c->profile) {
    profiler_begin();
  } else {
    c->loc = rt_cur_loc;
    c->t0 = prof_on ? prof_clock() : 0;   /* a Trace outside a session costs nothing, as TF's TraceMe */
  }
  return val_incref(self);
}

static Val pf_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  (void)kw;
  if (n != 3) rt_throw(ERR_TYPE, "__exit__() takes 3 arguments (%d given)", n);
  PfCtx *c = (PfCtx *)self.u.o;
  if (c->profile) {
    profiler_end();
    profiler_save(str_cstr(c->name), "tf.profiler.experimental.Profile");
  } else if (c->t0 && prof_on) {
    /* TF's TraceMe name form "name#k=v,...#": formats/xplane.c splits it into the event's name and stats */
    StrBuf nm;
    sb_init(&nm);
    sb_puts(&nm, str_cstr(c->name));
    if (c->meta.len) sb_printf(&nm, "#%s#", c->meta.data);
    prof_add(PROF_TRACE, "Trace", nm.data, NULL, c->loc, c->t0, NULL, c->step);
    sb_free(&nm);
    c->t0 = 0;
  }
  return val_bool(false);
}

/* Trace's keywords other than step_num, appended as "k=str(v)" (TF converts both to strings). */
static void pf_meta_add(PfCtx *c, const Kw *kw) {
  for (int i = 0; kw && i < kw->n; i++) {
    if (!strcmp(kw->names[i], "step_num")) {
      c->step = val_to_index(kw->vals[i], "step_num");
      continue;
    }
    if (c->meta.len) sb_putc(&c->meta, ',');
    sb_printf(&c->meta, "%s=", kw->names[i]);
    val_str(&c->meta, kw->vals[i]);
  }
}

static Val pf_set_metadata(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  if (n) rt_throw(ERR_TYPE, "Trace.set_metadata() takes 1 positional argument but %d were given", n + 1);
  PfCtx *c = (PfCtx *)self.u.o;
  if (c->t0) pf_meta_add(c, kw);   /* as TF: metadata of a range that is not recorded is dropped */
  return val_none();
}

static Val pf_getattr(Val self, const char *name) {
  if (!strcmp(name, "__enter__")) return builtin_new("__enter__", pf_enter, self, NULL);
  if (!strcmp(name, "set_metadata") && !((PfCtx *)self.u.o)->profile)
    return builtin_new("set_metadata", pf_set_metadata, self, NULL);
  if (!strcmp(name, "__exit__")) return builtin_new("__exit__", pf_exit, self, NULL);
  return val_undef();
}

static void pf_free(Obj *o) {
  val_decref(((PfCtx *)o)->name);
  sb_free(&((PfCtx *)o)->meta);
  free(o);
}

static void pf_repr(StrBuf *b, Val v) {
  sb_printf(b, "<tensorflow.python.profiler.profiler_v2.%s object at %p>", ((PfCtx *)v.u.o)->profile ? "Profile" : "Trace",
            (void *)v.u.o);
}

static const Type pfctx_type = {
  .name = "Trace",
  .free = pf_free,
  .repr = pf_repr,
  .getattr = pf_getattr,
};

static Val pf_ctx_new(bool profile, Val name) {
  PfCtx *c = obj_new(&pfctx_type, sizeof(PfCtx));
  c->profile = profile;
  c->name = val_incref(name);
  c->step = -1;
  sb_init(&c->meta);
  c->t0 = 0;
  c->loc = 0;
  return val_obj(c);
}

//! tf.profiler.experimental.Trace(name, **kwargs)
//!   A context manager naming a range of the profile (a "Trace" event with the ops inside it); each
//!   keyword (step_num=, and any other, as TF's TraceMe) becomes a stat of the event, and
//!   .set_metadata(**kwargs) adds more inside the range. Outside a profiling session it does nothing.
static Val pf_trace(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 1) rt_throw(ERR_TYPE, "Trace.__init__() takes 1 positional argument (name), %d given", n);
  if (!val_is(args[0], &str_type))
    rt_throw(ERR_TYPE, "tf.profiler.experimental.Trace: name must be a string, not %s", val_type_name(args[0]));
  Val c = pf_ctx_new(false, args[0]);
  int mark = rt_hold_val(c);   /* a keyword's str() may raise */
  pf_meta_add((PfCtx *)c.u.o, kw);
  rt_unhold(mark);
  return c;
}

//! tf.profiler.experimental.Profile(logdir, options=None)
//!   A context manager profiling its body: start(logdir) on entry, stop() (saving the profile) on exit.
static Val pf_profile(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.profiler.experimental.Profile", .sig = "logdir, options=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  pf_logdir_arg(a[0], spec.what);
  return pf_ctx_new(true, a[0]);
}

typedef struct PfFunc { const char *name; BuiltinFn fn; } PfFunc;
static const PfFunc pf_funcs[] = {
  {"start", pf_start},
  {"stop", pf_stop},
  {"Trace", pf_trace},
  {"Profile", pf_profile},
};

Val profiler_lookup(const char *name) {
  for (size_t i = 0; i < sizeof pf_funcs / sizeof pf_funcs[0]; i++)
    if (!strcmp(name, pf_funcs[i].name)) {
      char q[96];
      snprintf(q, sizeof q, "tf.profiler.experimental.%s", name);
      return builtin_new(strdup(q), pf_funcs[i].fn, val_undef(), NULL);
    }
  return val_undef();
}
