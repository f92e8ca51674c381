/* prof.c — the profiler's recorder: the on flag the op paths test, and the event log a session fills. */
#include "kernels/prof.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "object/object.h"

#ifdef TFS_PROF_COMPILED_OUT
#undef prof_on
#endif
bool prof_on;

static ProfEvent *prof_ev;
static int prof_n, prof_cap;
static tfs_i64 prof_wall0, prof_mono0, prof_end;   /* the session's start (wall and monotonic) and end (wall) */
static bool prof_active;
static pthread_mutex_t prof_mu = PTHREAD_MUTEX_INITIALIZER;   /* tf.data workers run ops too */

tfs_i64 prof_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (tfs_i64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static tfs_i64 prof_wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (tfs_i64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Node and function names, interned: an event keeps a pointer, valid after the graph is freed. */
static char **prof_names;
static size_t prof_nnames, prof_capnames;   /* open addressing, power-of-two capacity */

static const char *prof_intern(const char *s) {
  if (!s) return NULL;
  if (2 * (prof_nnames + 1) > prof_capnames) {
    size_t cap = prof_capnames ? 2 * prof_capnames : 256;
    char **t = calloc(cap, sizeof(char *));
    if (!t) return NULL;
    for (size_t i = 0; i < prof_capnames; i++) {
      if (!prof_names[i]) continue;
      unsigned long h = 5381;
      for (const char *p = prof_names[i]; *p; p++) h = h * 33 + (unsigned char)*p;
      size_t j = h & (cap - 1);
      while (t[j]) j = (j + 1) & (cap - 1);
      t[j] = prof_names[i];
    }
    free(prof_names);
    prof_names = t;
    prof_capnames = cap;
  }
  unsigned long h = 5381;
  for (const char *p = s; *p; p++) h = h * 33 + (unsigned char)*p;
  size_t j = h & (prof_capnames - 1);
  for (; prof_names[j]; j = (j + 1) & (prof_capnames - 1))
    if (!strcmp(prof_names[j], s)) return prof_names[j];
  prof_names[j] = strdup(s);
  prof_nnames++;
  return prof_names[j];
}

void prof_clear(void) {
  for (size_t i = 0; i < prof_capnames; i++) free(prof_names[i]);
  free(prof_names);
  prof_names = NULL;
  prof_nnames = prof_capnames = 0;
  free(prof_ev);
  prof_ev = NULL;
  prof_n = prof_cap = 0;
}

void prof_start(void) {
  prof_clear();
  prof_wall0 = prof_wall();
  prof_mono0 = prof_clock();
  prof_end = prof_wall0;
  prof_active = prof_on = true;
}

void prof_stop(void) {
  if (prof_active) prof_end = prof_wall();
  prof_active = prof_on = false;
}

bool prof_session_active(void) { return prof_active; }

void prof_inputs(ProfInputs *pi, int n, Tensor *const *in) {
  pi->n = (unsigned char)(n > 255 ? 255 : n);
  for (int i = 0; i < n && i < PROF_MAXIN; i++) {
    const Tensor *t = in[i];
    pi->dtype[i] = t ? (signed char)t->dtype : -1;
    pi->rank[i] = t ? (unsigned char)t->rank : 0;
    for (int d = 0; t && d < t->rank && d < PROF_MAXDIM; d++) pi->dim[i][d] = t->shape[d];
  }
}

void prof_inputs_text(StrBuf *b, const ProfInputs *pi) {
  for (int i = 0; i < pi->n && i < PROF_MAXIN; i++) {
    if (i) sb_putc(b, ';');
    if (pi->dtype[i] < 0) continue;
    sb_printf(b, "%s[", dtype_info[pi->dtype[i]].name);
    for (int d = 0; d < pi->rank[i]; d++) {
      if (d == PROF_MAXDIM) {
        sb_puts(b, ",...");
        break;
      }
      sb_printf(b, d ? ",%lld" : "%lld", (long long)pi->dim[i][d]);
    }
    sb_putc(b, ']');
  }
  if (pi->n > PROF_MAXIN) sb_puts(b, ";...");
}

static __thread int prof_tid;

void prof_add(ProfKind kind, const char *type, const char *name, const char *fn, int loc, tfs_i64 t0, const ProfInputs *in,
              tfs_i64 step) {
  tfs_i64 t1 = prof_clock();
  if (!prof_tid) prof_tid = (int)syscall(SYS_gettid);
  pthread_mutex_lock(&prof_mu);
  if (prof_n == prof_cap) {   /* out of memory: the event is dropped, the program goes on */
    int cap = prof_cap ? 2 * prof_cap : 1024;
    ProfEvent *v = realloc(prof_ev, sizeof(ProfEvent) * (size_t)cap);
    if (!v) {
      pthread_mutex_unlock(&prof_mu);
      return;
    }
    prof_ev = v;
    prof_cap = cap;
  }
  ProfEvent *e = &prof_ev[prof_n++];
  e->kind = kind;
  e->type = type;
  e->name = prof_intern(name);
  e->fn = prof_intern(fn);
  e->loc = loc;
  e->tid = prof_tid;
  e->start_ns = prof_wall0 + (t0 - prof_mono0);
  e->dur_ns = t1 - t0;
  if (in) e->in = *in;
  else e->in.n = 0;
  e->step = step;
  pthread_mutex_unlock(&prof_mu);
}

const ProfEvent *prof_events(int *n) {
  *n = prof_n;
  return prof_ev;
}

void prof_span(tfs_i64 *start_ns, tfs_i64 *end_ns) {
  *start_ns = prof_wall0;
  *end_ns = prof_active ? prof_wall() : prof_end;
}
