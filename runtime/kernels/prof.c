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

void prof_clear(void) {
  for (int i = 0; i < prof_n; i++) {
    free(prof_ev[i].name);
    free(prof_ev[i].fn);
    free(prof_ev[i].shapes);
  }
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

char *prof_shapes(int n, Tensor *const *in) {
  if (n <= 0) return NULL;
  StrBuf b;
  sb_init(&b);
  for (int i = 0; i < n; i++) {
    if (i) sb_putc(&b, ';');
    const Tensor *t = in[i];
    if (!t) continue;
    sb_printf(&b, "%s[", dtype_info[t->dtype].name);
    for (int d = 0; d < t->rank; d++) sb_printf(&b, d ? ",%lld" : "%lld", (long long)t->shape[d]);
    sb_putc(&b, ']');
  }
  return sb_steal(&b);
}

static char *prof_dup(const char *s) { return s ? strdup(s) : NULL; }

static __thread int prof_tid;

void prof_add(ProfKind kind, const char *type, const char *name, const char *fn, int loc, tfs_i64 t0, char *shapes,
              tfs_i64 step) {
  tfs_i64 t1 = prof_clock();
  if (!prof_tid) prof_tid = (int)syscall(SYS_gettid);
  pthread_mutex_lock(&prof_mu);
  if (prof_n == prof_cap) {   /* out of memory: the event is dropped, the program goes on */
    int cap = prof_cap ? 2 * prof_cap : 1024;
    ProfEvent *v = realloc(prof_ev, sizeof(ProfEvent) * (size_t)cap);
    if (!v) {
      pthread_mutex_unlock(&prof_mu);
      free(shapes);
      return;
    }
    prof_ev = v;
    prof_cap = cap;
  }
  ProfEvent *e = &prof_ev[prof_n++];
  e->kind = kind;
  e->type = type;
  e->name = prof_dup(name);
  e->fn = prof_dup(fn);
  e->loc = loc;
  e->tid = prof_tid;
  e->start_ns = prof_wall0 + (t0 - prof_mono0);
  e->dur_ns = t1 - t0;
  e->shapes = shapes;
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
