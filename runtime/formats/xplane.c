/* xplane.c — the profiler's events written as TF's XSpace protocol buffer and as a gzipped Chrome trace-event file. */
#include "formats/xplane.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/iofile.h"
#include "formats/pbutil.h"
#include "kernels/prof.h"
#include "object/atomicfile.h"
#include "object/object.h"
#include "xplane.pb-c.h"

/* The stats every event may carry, by XStatMetadata id. */
enum { XS_TF_OP = 1, XS_SOURCE, XS_SHAPES, XS_FUNCTION, XS_EAGER, XS_STEP, XS__COUNT };
static const char *const xs_names[XS__COUNT] = {
  [XS_TF_OP] = "tf_op", [XS_SOURCE] = "source", [XS_SHAPES] = "input_shapes",
  [XS_FUNCTION] = "tf_function", [XS_EAGER] = "is_eager", [XS_STEP] = "step_num",
};

/* "file.tfs:12" for a location index ("" when none). */
static const char *xp_source(PbArena *a, int loc) {
  const RtLoc *l = rt_loc_get(loc);
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  return f && f->path ? pa_printf(a, "%s:%d", f->path, l->line) : "";
}

/* The event's inputs as text, in the arena. */
static const char *xp_inputs(PbArena *a, const ProfEvent *e) {
  StrBuf b;
  sb_init(&b);
  prof_inputs_text(&b, &e->in);
  char *s = pa_strdup(a, b.data ? b.data : "");
  sb_free(&b);
  return s;
}

/* A range's recorded name is in TF's TraceMe form "name#k=v,k2=v2#" when it has metadata: the name part. */
static const char *xp_trace_name(PbArena *a, const char *enc) {
  const char *h = strchr(enc, '#');
  return h ? pa_printf(a, "%.*s", (int)(h - enc), enc) : enc;
}

/* The next "k=v" of an encoded range name, from *p (NULL: start): false at the end. As TF's parser,
 * the metadata is split at every ',' and each item at its first '='; items without one are dropped. */
static bool xp_trace_kv(PbArena *a, const char *enc, const char **p, const char **k, const char **v) {
  if (!*p) {
    const char *h = strchr(enc, '#');
    if (!h) return false;
    *p = h + 1;
  }
  const char *end = strrchr(enc, '#');
  while (*p < end) {
    const char *q = *p, *c = memchr(q, ',', (size_t)(end - q));
    if (!c) c = end;
    *p = c < end ? c + 1 : end;
    const char *eq = memchr(q, '=', (size_t)(c - q));
    if (!eq || eq == q) continue;
    *k = pa_printf(a, "%.*s", (int)(eq - q), q);
    *v = pa_printf(a, "%.*s", (int)(c - eq - 1), eq + 1);
    return true;
  }
  return false;
}

/* The event's metadata name: "node:Type" for graph ops (TF's tf_op form), the op type eagerly, a range's name. */
static const char *xp_event_name(PbArena *a, const ProfEvent *e) {
  if (e->kind == PROF_GRAPH) return pa_printf(a, "%s:%s", e->name, e->type);
  return e->kind == PROF_TRACE ? xp_trace_name(a, e->name) : e->type;
}

static int xp_by_start(const void *x, const void *y) {
  const ProfEvent *a = *(const ProfEvent *const *)x, *b = *(const ProfEvent *const *)y;
  if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
  if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
  return a->dur_ns > b->dur_ns ? -1 : a->dur_ns < b->dur_ns;   /* the enclosing event first */
}

static Tensorflow__Profiler__XStat *xp_stat_str(PbArena *a, int id, const char *s) {
  Tensorflow__Profiler__XStat *st = pa_alloc(a, sizeof *st);
  tensorflow__profiler__xstat__init(st);
  st->metadata_id = id;
  st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
  st->str_value = pa_strdup(a, s);
  return st;
}

static Tensorflow__Profiler__XStat *xp_stat_int(PbArena *a, int id, tfs_i64 v) {
  Tensorflow__Profiler__XStat *st = pa_alloc(a, sizeof *st);
  tensorflow__profiler__xstat__init(st);
  st->metadata_id = id;
  st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
  st->int64_value = v;
  return st;
}

/* A range's metadata value as TF's converter types it: an integer, else a number, else the text. */
static Tensorflow__Profiler__XStat *xp_stat_parsed(PbArena *a, int id, const char *v) {
  char *end;
  errno = 0;
  long long i = strtoll(v, &end, 10);
  if (*v && !*end && !errno) return xp_stat_int(a, id, i);
  double d = strtod(v, &end);
  if (*v && !*end) {
    Tensorflow__Profiler__XStat *st = xp_stat_int(a, id, 0);
    st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE;
    st->double_value = d;
    return st;
  }
  return xp_stat_str(a, id, v);
}

/* A small string -> id table for event metadata (linear probing on a power-of-two table). */
typedef struct XpNames { const char **key; int *id; int cap, n; } XpNames;

static int xp_name_id(XpNames *t, const char *k, bool *fresh) {
  unsigned long h = 5381;
  for (const char *p = k; *p; p++) h = h * 33 + (unsigned char)*p;
  for (size_t i = h & (size_t)(t->cap - 1);; i = (i + 1) & (size_t)(t->cap - 1)) {
    if (!t->key[i]) {
      t->key[i] = k;
      t->id[i] = ++t->n;
      *fresh = true;
      return t->id[i];
    }
    if (!strcmp(t->key[i], k)) {
      *fresh = false;
      return t->id[i];
    }
  }
}

static Tensorflow__Profiler__XSpace *xp_space(PbArena *a, const char *host, const ProfEvent **ev, int n) {
  tfs_i64 t0, t1;
  prof_span(&t0, &t1);
  Tensorflow__Profiler__XSpace *sp = pa_alloc(a, sizeof *sp);
  tensorflow__profiler__xspace__init(sp);
  sp->n_hostnames = 1;
  sp->hostnames = pa_alloc(a, sizeof(char *));
  sp->hostnames[0] = pa_strdup(a, host);
  Tensorflow__Profiler__XPlane *pl = pa_alloc(a, sizeof *pl);
  tensorflow__profiler__xplane__init(pl);
  sp->n_planes = 1;
  sp->planes = pa_alloc(a, sizeof pl);
  sp->planes[0] = pl;
  pl->name = "/host:CPU";
  /* stat metadata: the fixed ones, then one per distinct key of the ranges' metadata (ids after them) */
  XpNames keys = {0};
  int nkv = 0;
  for (int i = 0; i < n; i++)
    if (ev[i]->kind == PROF_TRACE) {
      const char *p = NULL, *k, *v;
      while (xp_trace_kv(a, ev[i]->name, &p, &k, &v)) nkv++;
    }
  for (keys.cap = 16; keys.cap < 2 * nkv + 2; keys.cap *= 2) {}
  keys.key = pa_alloc(a, sizeof(char *) * (size_t)keys.cap);
  keys.id = pa_alloc(a, sizeof(int) * (size_t)keys.cap);
  pl->stat_metadata = pa_alloc(a, sizeof(void *) * (size_t)(XS__COUNT - 1 + nkv));
  for (int i = 1; i < XS__COUNT; i++) {
    bool fresh;
    xp_name_id(&keys, xs_names[i], &fresh);   /* takes id i: inserted first, in order */
  }
  for (int i = 0; i < n; i++)
    if (ev[i]->kind == PROF_TRACE) {
      const char *p = NULL, *k, *v;
      bool fresh;
      while (xp_trace_kv(a, ev[i]->name, &p, &k, &v)) xp_name_id(&keys, k, &fresh);
    }
  for (int i = 0; i < keys.cap; i++) {
    if (!keys.key[i]) continue;
    Tensorflow__Profiler__XPlane__StatMetadataEntry *me = pa_alloc(a, sizeof *me);
    tensorflow__profiler__xplane__stat_metadata_entry__init(me);
    Tensorflow__Profiler__XStatMetadata *m = pa_alloc(a, sizeof *m);
    tensorflow__profiler__xstat_metadata__init(m);
    m->id = keys.id[i];
    m->name = (char *)keys.key[i];
    me->key = m->id;
    me->value = m;
    pl->stat_metadata[pl->n_stat_metadata++] = me;
  }
  /* event metadata: one per distinct name, carrying the op's type and function */
  XpNames names = {0};
  for (names.cap = 16; names.cap < 2 * n + 2; names.cap *= 2) {}
  names.key = pa_alloc(a, sizeof(char *) * (size_t)names.cap);
  names.id = pa_alloc(a, sizeof(int) * (size_t)names.cap);
  pl->event_metadata = pa_alloc(a, sizeof(void *) * (size_t)(n + 1));
  /* lines: one per thread, in the sorted order's runs */
  int nlines = 0;
  for (int i = 0; i < n; i++) nlines += i == 0 || ev[i]->tid != ev[i - 1]->tid;
  pl->n_lines = (size_t)nlines;
  pl->lines = pa_alloc(a, sizeof(void *) * (size_t)(nlines + 1));
  Tensorflow__Profiler__XLine *ln = NULL;
  int li = 0, main_tid = (int)getpid();
  for (int i = 0; i < n; i++) {
    const ProfEvent *e = ev[i];
    if (!ln || ln->id != e->tid) {
      ln = pa_alloc(a, sizeof *ln);
      tensorflow__profiler__xline__init(ln);
      ln->id = ln->display_id = e->tid;
      ln->name = e->tid == main_tid ? "tfs main" : pa_printf(a, "tfs thread %d", e->tid);
      ln->timestamp_ns = t0;
      ln->duration_ps = (t1 - t0) * 1000;
      int cnt = 0;
      while (i + cnt < n && ev[i + cnt]->tid == e->tid) cnt++;
      ln->events = pa_alloc(a, sizeof(void *) * (size_t)cnt);
      pl->lines[li++] = ln;
    }
    const char *nm = xp_event_name(a, e);
    bool fresh;
    int id = xp_name_id(&names, nm, &fresh);
    if (fresh) {
      Tensorflow__Profiler__XPlane__EventMetadataEntry *me = pa_alloc(a, sizeof *me);
      tensorflow__profiler__xplane__event_metadata_entry__init(me);
      Tensorflow__Profiler__XEventMetadata *m = pa_alloc(a, sizeof *m);
      tensorflow__profiler__xevent_metadata__init(m);
      m->id = id;
      m->name = (char *)nm;
      m->display_name = (char *)e->type;
      if (e->kind != PROF_TRACE) {
        m->stats = pa_alloc(a, sizeof(void *) * 2);
        m->stats[m->n_stats++] = xp_stat_str(a, XS_TF_OP, e->kind == PROF_GRAPH ? nm : pa_printf(a, "%s:%s", e->type, e->type));
        if (e->fn) m->stats[m->n_stats++] = xp_stat_str(a, XS_FUNCTION, e->fn);
      }
      me->key = id;
      me->value = m;
      pl->event_metadata[pl->n_event_metadata++] = me;
    }
    Tensorflow__Profiler__XEvent *x = pa_alloc(a, sizeof *x);
    tensorflow__profiler__xevent__init(x);
    x->metadata_id = id;
    x->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
    x->offset_ps = (e->start_ns - t0) * 1000;
    x->duration_ps = e->dur_ns * 1000;
    int nmeta = 0;
    if (e->kind == PROF_TRACE) {
      const char *p = NULL, *k, *v;
      while (xp_trace_kv(a, e->name, &p, &k, &v)) nmeta++;
    }
    x->stats = pa_alloc(a, sizeof(void *) * (size_t)(4 + nmeta));
    if (nmeta) {
      const char *p = NULL, *k, *v;
      bool fresh;
      while (xp_trace_kv(a, e->name, &p, &k, &v)) x->stats[x->n_stats++] = xp_stat_parsed(a, xp_name_id(&keys, k, &fresh), v);
    }
    if (e->loc > 0) x->stats[x->n_stats++] = xp_stat_str(a, XS_SOURCE, xp_source(a, e->loc));
    if (e->in.n) x->stats[x->n_stats++] = xp_stat_str(a, XS_SHAPES, xp_inputs(a, e));
    if (e->kind != PROF_TRACE) x->stats[x->n_stats++] = xp_stat_int(a, XS_EAGER, e->kind == PROF_EAGER);
    if (e->step >= 0) x->stats[x->n_stats++] = xp_stat_int(a, XS_STEP, e->step);
    ln->events[ln->n_events++] = x;
  }
  return sp;
}

/* s as a JSON string literal. */
static void xp_json_str(StrBuf *b, const char *s) {
  sb_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      sb_putc(b, '\\');
      sb_putc(b, (char)*p);
    } else if (*p < 0x20) {
      sb_printf(b, "\\u%04x", *p);
    } else {
      sb_putc(b, (char)*p);
    }
  }
  sb_putc(b, '"');
}

/* The Chrome trace-event form: metadata naming the process and threads, then one
 * complete ("X") event per recorded event, times in microseconds from the session's start. */
static void xp_trace_json(StrBuf *b, PbArena *a, const ProfEvent **ev, int n) {
  tfs_i64 t0, t1;
  prof_span(&t0, &t1);
  int main_tid = (int)getpid();
  sb_puts(b, "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":[\n");
  sb_printf(b, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}}", main_tid);
  for (int i = 0; i < n; i++) {
    const ProfEvent *e = ev[i];
    if (i == 0 || e->tid != ev[i - 1]->tid) {
      sb_printf(b, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":", main_tid, e->tid);
      xp_json_str(b, e->tid == main_tid ? "tfs main" : pa_printf(a, "tfs thread %d", e->tid));
      sb_puts(b, "}}");
    }
    sb_printf(b, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"name\":",
              e->kind == PROF_EAGER ? "eager" : e->kind == PROF_GRAPH ? "graph" : "trace", main_tid, e->tid,
              (double)(e->start_ns - t0) / 1e3, (double)e->dur_ns / 1e3);
    xp_json_str(b, e->kind == PROF_TRACE ? xp_trace_name(a, e->name) : e->type);
    sb_puts(b, ",\"args\":{\"long_name\":");
    xp_json_str(b, xp_event_name(a, e));
    if (e->fn) {
      sb_puts(b, ",\"tf_function\":");
      xp_json_str(b, e->fn);
    }
    if (e->loc > 0) {
      sb_puts(b, ",\"source\":");
      xp_json_str(b, xp_source(a, e->loc));
    }
    if (e->in.n) {
      sb_puts(b, ",\"input_shapes\":");
      xp_json_str(b, xp_inputs(a, e));
    }
    if (e->step >= 0) sb_printf(b, ",\"step_num\":%lld", (long long)e->step);
    if (e->kind == PROF_TRACE) {
      const char *p = NULL, *k, *v;
      while (xp_trace_kv(a, e->name, &p, &k, &v)) {
        sb_putc(b, ',');
        xp_json_str(b, k);
        sb_putc(b, ':');
        xp_json_str(b, v);
      }
    }
    sb_puts(b, "}}");
  }
  sb_puts(b, "\n]}\n");
}

int xplane_write(const char *base, const char *host) {
  int n;
  const ProfEvent *all = prof_events(&n);
  const ProfEvent **ev = malloc(sizeof(ProfEvent *) * (size_t)(n + 1));
  if (!ev) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(ev);
  for (int i = 0; i < n; i++) ev[i] = &all[i];
  qsort(ev, (size_t)n, sizeof *ev, xp_by_start);
  PbArena a = {0};
  Tensorflow__Profiler__XSpace *sp = xp_space(&a, host, ev, n);
  size_t len;
  unsigned char *bin = pb_pack(&sp->base, &len);
  char *path = pa_printf(&a, "%s.xplane.pb", base);
  int e = af_write(path, bin, len);
  free(bin);
  if (!e) {
    StrBuf js, gz;
    sb_init(&js);
    sb_init(&gz);
    xp_trace_json(&js, &a, ev, n);
    io_deflate(&gz, js.data, js.len, true, "tf.profiler");
    e = af_write(pa_printf(&a, "%s.trace.json.gz", base), gz.data ? gz.data : "", gz.len);
    sb_free(&js);
    sb_free(&gz);
  }
  pa_free(&a);
  rt_unhold(mark);
  free(ev);
  return e;
}
