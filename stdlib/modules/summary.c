/* summary.c — tf.summary: event-file writers, the default-writer stack, scalar/histogram/text, graph tracing to TensorBoard.
 *
 * A writer owns one event file, `events.out.tfevents.<seconds>.<host>` in its
 * log directory (created with its parents), opened at creation and starting
 * with the file_version event, as TF's writer does.  Summary calls resolve the
 * default writer when they run (eagerly) or when they are traced: a traced
 * write becomes a WriteSummary node, a side effect run on every execution,
 * like tf.print. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "graph/graph.h"
#include "formats/graphdef.h"
#include "modules/modules.h"
#include "object/object.h"
#include "kernels/ops.h"
#include "modules/summary.h"
#include "formats/tfrecord.h"
#include "graph/trace.h"
#include "kernels/prof.h"

typedef struct Writer {
  Obj hdr;
  char *logdir;
  char *path;                 /* the event file */
  FILE *f;                    /* NULL once closed */
  int err;                    /* first write error (errno), reported by flush/close */
} Writer;

static const Type writer_type;

static double sm_now(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void sm_write_event(Writer *w, double wall, tfs_i64 step, Tensorflow__Event *ev) {
  if (!w->f) return;
  ev->wall_time = wall;
  ev->step = step;
  size_t n;
  unsigned char *data = pb_pack(&ev->base, &n);
  StrBuf b;
  sb_init(&b);
  tfr_frame(&b, data, n);
  free(data);
  if (fwrite(b.data, 1, b.len, w->f) != b.len && !w->err) w->err = errno ? errno : EIO;
  sb_free(&b);
}

void summary_emit(Val writer, tfs_i64 step, Tensorflow__Event *ev) {
  if (!val_is(writer, &writer_type)) return;
  sm_write_event((Writer *)writer.u.o, sm_now(), step, ev);
}

int summary_mkdirs(const char *dir) {
  char *p = strdup(dir);
  if (!p) return ENOMEM;
  int e = 0;
  for (char *s = p + 1;; s++) {
    if (*s == '/' || !*s) {
      char c = *s;
      *s = 0;
      struct stat st;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) e = errno;
      else if (stat(p, &st) != 0) e = errno;
      else if (!S_ISDIR(st.st_mode)) e = ENOTDIR;
      *s = c;
      if (e || !c) break;
    }
  }
  free(p);
  return e;
}

static Val sm_writer_new(const char *logdir) {
  int e = summary_mkdirs(logdir);
  if (e) rt_throw(ERR_IO, "tf.summary.create_file_writer: cannot create log directory '%s': %s", logdir, strerror(e));
  char host[256];
  if (gethostname(host, sizeof host) != 0) strcpy(host, "localhost");
  host[sizeof host - 1] = 0;
  size_t n = strlen(logdir) + strlen(host) + 96;
  char *path = malloc(n);
  if (!path) rt_throw(ERR_MEMORY, "out of memory");
  long secs = (long)sm_now();
  snprintf(path, n, "%s/events.out.tfevents.%ld.%s", logdir, secs, host);
  /* a second writer in the same second gets TF's pid.counter suffix instead of sharing the file */
  FILE *f = fopen(path, "wx");
  for (int k = 1; !f && errno == EEXIST && k < 1000; k++) {
    snprintf(path, n, "%s/events.out.tfevents.%ld.%s.%ld.%d.v2", logdir, secs, host, (long)getpid(), k);
    f = fopen(path, "wx");
  }
  if (!f) {
    e = errno;
    free(path);
    rt_throw(ERR_IO, "tf.summary.create_file_writer: cannot create an event file in '%s': %s", logdir, strerror(e));
  }
  Writer *w = obj_new(&writer_type, sizeof(Writer));
  w->logdir = strdup(logdir);
  w->path = path;
  w->f = f;
  w->err = 0;
  Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
  ev.what_case = TENSORFLOW__EVENT__WHAT_FILE_VERSION;
  ev.file_version = "brain.Event:2";
  sm_write_event(w, sm_now(), 0, &ev);
  return val_obj(w);
}

static void sm_check(Writer *w, const char *what) {
  if (w->f && fflush(w->f) != 0 && !w->err) w->err = errno;
  if (w->err) {
    int e = w->err;
    w->err = 0;
    rt_throw(ERR_IO, "%s: cannot write event file '%s': %s", what, w->path, strerror(e));
  }
}

static void sm_close(Writer *w) {
  if (!w->f) return;
  if (fclose(w->f) != 0 && !w->err) w->err = errno;
  w->f = NULL;
}

static void writer_free(Obj *o) {
  Writer *w = (Writer *)o;
  sm_close(w);
  free(w->logdir);
  free(w->path);
  free(w);
}

static void writer_repr(StrBuf *b, Val v) {
  sb_printf(b, "<tensorflow.python.ops.summary_ops_v2._ResourceSummaryWriter object at %p>", (void *)v.u.o);
}

/* ---- the default writer and step --------------------------------------------------------- */

#define SM_MAX_DEPTH 64
static Val sm_stack[SM_MAX_DEPTH];     /* owned writers (VT_NONE: a None writer) */
static Val sm_steps[SM_MAX_DEPTH];     /* step given to as_default, VT_UNDEF: none */
static int sm_depth;
static Val sm_global_step = {.tag = VT_UNDEF};   /* tf.summary.experimental.set_step */
static Val sm_base_writer = {.tag = VT_UNDEF};   /* writer.set_as_default() */

static Val sm_default_writer(void) {
  if (sm_depth) return sm_stack[sm_depth - 1];
  return val_is_undef(sm_base_writer) ? val_none() : sm_base_writer;
}

static Val sm_default_step(void) {
  for (int i = sm_depth - 1; i >= 0; i--)
    if (!val_is_undef(sm_steps[i])) return sm_steps[i];
  return sm_global_step;
}

/* The step of a write: the argument, else the default; TF's ValueError when there is none. */
static Val sm_step(Val arg) {
  Val step = arg.tag == VT_NONE || val_is_undef(arg) ? sm_default_step() : arg;
  if (val_is_undef(step) || step.tag == VT_NONE)
    rt_throw(ERR_VALUE, "No step set. Please specify one either through the `step` argument or through "
                        "tf.summary.experimental.set_step()");
  return step;
}

static void sm_set(Val *slot, Val v) {
  Val old = *slot;
  *slot = val_incref(v);
  if (!val_is_undef(old)) val_decref(old);
}

/* `with writer.as_default(step=None):` */
typedef struct WriterCtx { Obj hdr; Val writer; Val step; int depth; } WriterCtx;

static Val wctx_enter(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  (void)kw;
  if (n) rt_throw(ERR_TYPE, "__enter__() takes no arguments (%d given)", n);
  WriterCtx *c = (WriterCtx *)self.u.o;
  if (sm_depth == SM_MAX_DEPTH) rt_throw(ERR_RECURSION, "too many nested summary writer contexts");
  sm_stack[sm_depth] = val_incref(c->writer);
  sm_steps[sm_depth] = val_is_undef(c->step) || c->step.tag == VT_NONE ? val_undef() : val_incref(c->step);
  c->depth = ++sm_depth;
  return val_incref(c->writer);
}

static Val wctx_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  (void)kw;
  if (n != 3) rt_throw(ERR_TYPE, "__exit__() takes 3 arguments (%d given)", n);
  WriterCtx *c = (WriterCtx *)self.u.o;
  if (c->depth && c->depth == sm_depth) {
    sm_depth--;
    val_decref(sm_stack[sm_depth]);
    if (!val_is_undef(sm_steps[sm_depth])) val_decref(sm_steps[sm_depth]);
    c->depth = 0;
    if (val_is(c->writer, &writer_type)) {   /* TF flushes when the context ends */
      Writer *w = (Writer *)c->writer.u.o;
      if (w->f && fflush(w->f) != 0 && !w->err) w->err = errno;
    }
  }
  return val_bool(false);
}

static Val wctx_getattr(Val self, const char *name) {
  if (!strcmp(name, "__enter__")) return builtin_new("__enter__", wctx_enter, self, NULL);
  if (!strcmp(name, "__exit__")) return builtin_new("__exit__", wctx_exit, self, NULL);
  return val_undef();
}

static void wctx_free(Obj *o) {
  WriterCtx *c = (WriterCtx *)o;
  val_decref(c->writer);
  if (!val_is_undef(c->step)) val_decref(c->step);
  free(o);
}

static void wctx_repr(StrBuf *b, Val v) { sb_printf(b, "<contextlib._GeneratorContextManager object at %p>", (void *)v.u.o); }

static const Type wctx_type = {.name = "_GeneratorContextManager", .free = wctx_free, .repr = wctx_repr, .getattr = wctx_getattr};

/* ---- writer methods ---------------------------------------------------------------------- */

static Val wr_as_default(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "as_default", .sig = "step=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  WriterCtx *c = obj_new(&wctx_type, sizeof(WriterCtx));
  c->writer = val_incref(self);
  c->step = a[0].tag == VT_NONE || val_is_undef(a[0]) ? val_undef() : val_incref(a[0]);
  c->depth = 0;
  return val_obj(c);
}

static Val wr_set_as_default(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "set_as_default", .sig = "step=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  sm_set(&sm_base_writer, self);
  if (a[0].tag != VT_NONE && !val_is_undef(a[0])) sm_set(&sm_global_step, a[0]);
  return val_none();
}

static Val wr_flush(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "flush", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  sm_check((Writer *)self.u.o, "flush");
  return val_none();
}

static Val wr_close(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "close", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  Writer *w = (Writer *)self.u.o;
  sm_close(w);
  sm_check(w, "close");
  return val_none();
}

static Val writer_getattr(Val self, const char *name) {
  if (!strcmp(name, "as_default")) return builtin_new("as_default", wr_as_default, self, NULL);
  if (!strcmp(name, "set_as_default")) return builtin_new("set_as_default", wr_set_as_default, self, NULL);
  if (!strcmp(name, "flush")) return builtin_new("flush", wr_flush, self, NULL);
  if (!strcmp(name, "close")) return builtin_new("close", wr_close, self, NULL);
  return val_undef();
}

static const Type writer_type = {
  .name = "SummaryWriter", .free = writer_free, .repr = writer_repr, .getattr = writer_getattr,
  .hash = obj_identity_hash,
};

/* ---- tf.summary functions ---------------------------------------------------------------- */

//! tf.summary.create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None)
//!   A writer of TensorBoard event files in logdir; use it with `with writer.as_default():`.
static Val sm_create_file_writer(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.create_file_writer",
                         .sig = "logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None, "
                                "experimental_trackable=False, experimental_mesh=None"};
  Val a[7];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type))
    rt_throw(ERR_TYPE, "tf.summary.create_file_writer: logdir must be a string, not %s", val_type_name(a[0]));
  if (!str_len(a[0])) rt_throw(ERR_VALUE, "tf.summary.create_file_writer: logdir cannot be empty");
  return sm_writer_new(str_cstr(a[0]));
}

/* The one write path of scalar/histogram/text (and the Keras model and trace_export summaries): args parsed by
 * spec ("name, data, step=None, description=None", with buckets before description for histograms), writer and
 * step resolved, then the op (eager or traced). */
static const char SM_SIG[] = "name, data, step=None, description=None";

static Val sm_write(ArgSpec *spec, const char *plugin, int n, const Val *args, const Kw *kw) {
  bool has_buckets = !strcmp(plugin, "histograms");
  const char *what = spec->what;
  Val a[5];
  args_parse(spec, n, args, kw, a);
  Val desc = a[has_buckets ? 4 : 3], buckets = has_buckets ? a[3] : val_none();
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "%s: name must be a string, not %s", what, val_type_name(a[0]));
  Val writer = sm_default_writer();
  if (!val_is(writer, &writer_type)) return val_obj(tensor_from_val(val_bool(false), DT_BOOL));
  Val step = sm_step(a[2]);
  /* inside tf.name_scope the scope prefixes the tag, as in TF */
  const char *scope = graph_scope_prefix();
  Val tag;
  if (scope && *scope) {
    StrBuf b;
    sb_init(&b);
    sb_printf(&b, "%s%s", scope, str_cstr(a[0]));
    size_t len = b.len;
    tag = str_take(sb_steal(&b), (tfs_i64)len);
  } else {
    tag = val_incref(a[0]);
  }
  Val pl = str_from_cstr(plugin);
  Val in[2] = {step, a[1]};
  OpAttrs at = {5, {writer, tag, pl, buckets.tag == VT_UNDEF ? val_none() : buckets, val_is_undef(desc) ? val_none() : desc}};
  int mark = rt_hold_val(tag);
  rt_hold_val(pl);
  Val r = op_apply(&op_defs[OP_WRITE_SUMMARY], 2, in, &at);
  rt_unhold(mark);
  val_decref(r);
  val_decref(tag);
  val_decref(pl);
  return val_obj(tensor_from_val(val_bool(true), DT_BOOL));
}

//! tf.summary.scalar(name, data, step=None, description=None)
//!   Writes a scalar to the default writer at step (or the default step), as TF 2 does (scalars plugin).
static Val sm_scalar(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.scalar", .sig = SM_SIG};
  return sm_write(&spec, "scalars", n, args, kw);
}

//! tf.summary.histogram(name, data, step=None, buckets=None, description=None)
//!   Writes a histogram of the values of data (30 buckets by default) for the histograms plugin.
static Val sm_histogram(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.histogram", .sig = "name, data, step=None, buckets=None, description=None"};
  return sm_write(&spec, "histograms", n, args, kw);
}

//! tf.summary.text(name, data, step=None, description=None)
//!   Writes a string tensor for the text plugin.
static Val sm_text(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.text", .sig = SM_SIG};
  return sm_write(&spec, "text", n, args, kw);
}

/* tf.summary._keras_model(name, json, step): Keras's TensorBoard callback's model summary (the model's to_json() for
 * TensorBoard's graph plugin, as summary_ops_v2.keras_model writes it); internal to stdlib/keras_callbacks.tfs */
static Val sm_keras_model(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "keras_model_summary", .sig = SM_SIG};
  return sm_write(&spec, "graph_keras_model", n, args, kw);
}

//! tf.summary.graph(graph_data)
//!   Writes a graph (a concrete function's .graph, or a GraphDef from as_graph_def()) to the default writer at step 0
//!   for TensorBoard's graph dashboard; returns a bool tensor: False when there is no default writer. Eager only.
static Val sm_graph(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.graph", .sig = "graph_data"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (trace_active())
    rt_throw(ERR_VALUE, "graph() cannot be invoked inside a graph context.");
  Val writer = sm_default_writer();
  if (!val_is(writer, &writer_type)) return val_obj(tensor_from_val(val_bool(false), DT_BOOL));
  Graph *g = funcgraph_of(a[0]);
  if (!g) g = graphdef_obj_graph(a[0]);
  if (!g) {
    StrBuf b;
    sb_init(&b);
    val_repr(&b, a[0]);
    char rb[256];
    snprintf(rb, sizeof rb, "%s", b.data ? b.data : "");
    sb_free(&b);
    rt_throw(ERR_VALUE, "Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. Received graph_data=%s of type %s.",
             rb, val_type_name(a[0]));
  }
  size_t len;
  unsigned char *bin = graphdef_pack(g, &len);
  Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
  ev.what_case = TENSORFLOW__EVENT__WHAT_GRAPH_DEF;
  ev.graph_def.data = bin;
  ev.graph_def.len = len;
  sm_write_event((Writer *)writer.u.o, sm_now(), 0, &ev);
  free(bin);
  return val_obj(tensor_from_val(val_bool(true), DT_BOOL));
}

//! tf.summary.flush(writer=None, name=None)
//!   Flushes the given or default writer to disk.
static Val sm_flush(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.flush", .sig = "writer=None, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Val w = a[0].tag == VT_NONE || val_is_undef(a[0]) ? sm_default_writer() : a[0];
  if (val_is(w, &writer_type)) sm_check((Writer *)w.u.o, "tf.summary.flush");
  return val_none();
}

//! tf.summary.experimental.set_step(step) | tf.summary.experimental.get_step()
//!   Sets or reads the default step used by writes that give none.
static Val sm_set_step(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.experimental.set_step", .sig = "step"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (a[0].tag == VT_NONE) {
    if (!val_is_undef(sm_global_step)) val_decref(sm_global_step);
    sm_global_step = val_undef();
  } else {
    sm_set(&sm_global_step, a[0]);
  }
  return val_none();
}

static Val sm_get_step(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.experimental.get_step", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  Val s = sm_default_step();
  return val_is_undef(s) ? val_none() : val_incref(s);
}

/* ---- graph tracing: trace_on / trace_export ---------------------------------------------- */

static bool sm_tracing;
static bool sm_profiling;        /* trace_on(profiler=True) started the profiler */
static char *sm_prof_outdir;     /* trace_on's profiler_outdir, or NULL */
static Graph **sm_traced;
static int sm_ntraced, sm_captraced;

static void sm_trace_clear(void) {
  for (int i = 0; i < sm_ntraced; i++) graph_release(sm_traced[i]);
  free(sm_traced);
  sm_traced = NULL;
  sm_ntraced = sm_captraced = 0;
}

static void sm_on_traced(Graph *g) {
  if (!sm_tracing) return;
  if (sm_ntraced == sm_captraced) {
    int cap = sm_captraced ? 2 * sm_captraced : 4;
    Graph **v = realloc(sm_traced, sizeof(Graph *) * (size_t)cap);
    if (!v) rt_throw(ERR_MEMORY, "out of memory");
    sm_traced = v;
    sm_captraced = cap;
  }
  sm_traced[sm_ntraced++] = graph_retain(g);
}

//! tf.summary.trace_on(graph=True, profiler=False, profiler_outdir=None) | tf.summary.trace_off()
//!   Starts (stops) recording the graphs of tf.function calls, for trace_export; profiler=True also starts the
//!   profiler (tf.profiler.experimental), whose ops trace_export saves under profiler_outdir.
static Val sm_trace_on(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.trace_on", .sig = "graph=True, profiler=False, profiler_outdir=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  if (a[2].tag != VT_NONE && !val_is(a[2], &str_type))
    rt_throw(ERR_TYPE, "tf.summary.trace_on: profiler_outdir must be a string, not %s", val_type_name(a[2]));
  if (rt_truthy(a[1])) {
    profiler_begin();
    sm_profiling = true;
    free(sm_prof_outdir);
    sm_prof_outdir = val_is(a[2], &str_type) ? strdup(str_cstr(a[2])) : NULL;
  }
  sm_trace_clear();
  sm_tracing = rt_truthy(a[0]);
  graph_traced_hook = sm_on_traced;
  return val_none();
}

static Val sm_trace_off(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.trace_off", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  sm_tracing = false;
  sm_trace_clear();
  if (sm_profiling) {   /* stopped, nothing saved */
    sm_profiling = false;
    profiler_end();
    prof_clear();
  }
  return val_none();
}

//! tf.summary.trace_export(name, step=None, profiler_outdir=None)
//!   Writes the recorded graphs to the default writer as TF does (a summary named name whose tensor is a RunMetadata
//!   holding each traced function's GraphDef, which TensorBoard draws), and stops tracing;
//!   after trace_on(profiler=True) also saves the profile under profiler_outdir (default: the writer's logdir).
static Val sm_trace_export(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.summary.trace_export", .sig = "name, step=None, profiler_outdir=None"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "tf.summary.trace_export: name must be a string, not %s", val_type_name(a[0]));
  if (a[2].tag != VT_NONE && !val_is(a[2], &str_type))
    rt_throw(ERR_TYPE, "tf.summary.trace_export: profiler_outdir must be a string, not %s", val_type_name(a[2]));
  Val writer = sm_default_writer();
  if (val_is(writer, &writer_type)) {
    /* TF 2.15 writes a summary, not Event.graph_def: tag name, a string scalar holding a serialized RunMetadata with one
     * FunctionGraphs per traced function (TensorBoard draws their pre_optimization_graph); plugin
     * graph_run_metadata_graph when only graphs were traced, graph_run_metadata when the profiler ran too. tfs runs no
     * graph optimizer, so each function's graph after optimization is its graph before. */
    Val stv = sm_step(a[1]);   /* TF's ValueError when there is no step, before anything is built */
    PbArena ar = {0};
    Tensorflow__RunMetadata rm = TENSORFLOW__RUN_METADATA__INIT;
    rm.n_function_graphs = (size_t)sm_ntraced;
    rm.function_graphs = pa_alloc(&ar, sizeof(Tensorflow__RunMetadata__FunctionGraphs *) * (size_t)(sm_ntraced ? sm_ntraced : 1));
    for (int i = 0; i < sm_ntraced; i++) {
      Tensorflow__RunMetadata__FunctionGraphs *fg = pa_alloc(&ar, sizeof *fg);
      tensorflow__run_metadata__function_graphs__init(fg);
      fg->pre_optimization_graph = fg->post_optimization_graph = graphdef_build(&ar, sm_traced[i]);
      rm.function_graphs[i] = fg;
    }
    size_t len;
    unsigned char *bin = pb_pack(&rm.base, &len);
    pa_free(&ar);
    Tensor *t = tensor_new(DT_STRING, 0, NULL);
    Val str = str_new((const char *)bin, (tfs_i64)len);
    free(bin);
    *(Str **)tensor_data(t) = (Str *)str.u.o;   /* the tensor owns the string */
    Val dt = val_obj(t);
    int mark = rt_hold_val(dt);
    Val wa[3] = {a[0], dt, stv};
    static ArgSpec wspec = {.what = "tf.summary.trace_export", .sig = SM_SIG};
    val_decref(sm_write(&wspec, sm_profiling ? "graph_run_metadata" : "graph_run_metadata_graph", 3, wa, NULL));
    rt_unhold(mark);
    val_decref(dt);
  }
  sm_tracing = false;
  sm_trace_clear();
  if (sm_profiling) {   /* TF: the outdir given here, else trace_on's, else the default writer's logdir */
    const char *dir = val_is(a[2], &str_type) ? str_cstr(a[2])
                      : sm_prof_outdir          ? sm_prof_outdir
                      : val_is(writer, &writer_type) ? ((Writer *)writer.u.o)->logdir : NULL;
    sm_profiling = false;
    profiler_end();
    if (!dir) {
      prof_clear();
      rt_throw(ERR_VALUE, "Must set profiler_outdir or enable summary writer with logdir.");
    }
    profiler_save(dir, "tf.summary.trace_export");
  }
  return val_none();
}

typedef struct SmFunc { const char *name; BuiltinFn fn; } SmFunc;
static const SmFunc sm_funcs[] = {
  {"create_file_writer", sm_create_file_writer},
  {"scalar", sm_scalar},
  {"histogram", sm_histogram},
  {"text", sm_text},
  {"flush", sm_flush},
  {"trace_on", sm_trace_on},
  {"trace_off", sm_trace_off},
  {"trace_export", sm_trace_export},
  {"graph", sm_graph},
  {"_keras_model", sm_keras_model},
  {"experimental.set_step", sm_set_step},
  {"experimental.get_step", sm_get_step},
};

Val summary_lookup(const char *name) {
  for (size_t i = 0; i < sizeof sm_funcs / sizeof sm_funcs[0]; i++)
    if (!strcmp(name, sm_funcs[i].name)) {
      char q[96];
      snprintf(q, sizeof q, "tf.summary.%s", name);
      return builtin_new(strdup(q), sm_funcs[i].fn, val_undef(), NULL);
    }
  if (!strcmp(name, "SummaryWriter")) return typeobj_for(&writer_type);
  return val_undef();
}
