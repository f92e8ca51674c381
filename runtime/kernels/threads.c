/* threads.c — the runtime's intra-op thread pool: a kernel splits its work into parts, part 0 runs on the caller and the others on persistent workers. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernels/ops.h"

/* Why a pool of its own: OpenBLAS (pthreads) and oneDNN/OpenMP each keep threads that fight when nested
 * (docs/performance.md); one pool for every kernel, with OpenBLAS at one thread, avoids that.  Parts are
 * fixed by the caller from the thread count alone, so results are bit-identical for a given count. */
#define TP_MAX 64

static struct {
  pthread_mutex_t run;          /* held by the one caller whose job is on the workers */
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  TpFn fn;
  void *ctx;
  int nparts;
  unsigned long gen;            /* bumped per job: a worker runs part w of each new generation */
  int pending;                  /* parts still running on workers */
  int started;                  /* workers created so far */
} tp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

static _Atomic int tp_want;          /* the thread count (0: not yet resolved) */
static __thread int tp_inside;       /* > 0 inside a part: nested calls run inline */

static int default_threads(void) {
  const char *e = getenv("TFS_NUM_THREADS");
  if (e && *e) {
    long n = strtol(e, NULL, 10);
    if (n >= 1) return n > TP_MAX ? TP_MAX : (int)n;
  }
  cpu_set_t set;
  int n = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  if (n < 1) n = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  return n > TP_MAX ? TP_MAX : n;
}

int tp_threads(void) {
  int n = atomic_load(&tp_want);
  if (n == 0) {
    n = default_threads();
    atomic_store(&tp_want, n);
  }
  return n;
}

void tp_set_threads(int n) {
  if (n <= 0) n = default_threads();
  atomic_store(&tp_want, n > TP_MAX ? TP_MAX : n);
}

static void *worker(void *arg) {
  int w = (int)(intptr_t)arg;
  unsigned long seen = 0;
  tp_inside = 1;
  pthread_mutex_lock(&tp.mu);
  for (;;) {
    while (tp.gen == seen) pthread_cond_wait(&tp.go, &tp.mu);
    seen = tp.gen;
    if (w >= tp.nparts) continue;
    TpFn fn = tp.fn;
    void *ctx = tp.ctx;
    int np = tp.nparts;
    pthread_mutex_unlock(&tp.mu);
    fn(ctx, w, np);
    pthread_mutex_lock(&tp.mu);
    if (--tp.pending == 0) pthread_cond_signal(&tp.done);
  }
  return NULL;
}

/* Workers 1..n-1, created on first need; false when none could be made. */
static bool ensure_workers(int n) {
  while (tp.started < n - 1) {
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, worker, (void *)(intptr_t)(tp.started + 1));
    pthread_attr_destroy(&a);
    if (rc != 0) return tp.started > 0;
    tp.started++;
  }
  return true;
}

int tp_parts(tfs_i64 work, tfs_i64 min_work) {
  int n = tp_threads();
  if (n <= 1 || tp_inside || work < 2 * min_work) return 1;
  tfs_i64 most = work / (min_work > 0 ? min_work : 1);
  return most < n ? (int)most : n;
}

void tp_run(int nparts, TpFn fn, void *ctx) {
  /* Nested (inside a part), single, or the pool busy with another caller's job: run every part here. */
  if (nparts <= 1 || tp_inside || pthread_mutex_trylock(&tp.run) != 0) {
    tp_inside++;
    for (int i = 0; i < nparts; i++) fn(ctx, i, nparts);
    tp_inside--;
    return;
  }
  pthread_mutex_lock(&tp.mu);
  /* the parts stay as the caller cut them (they decide the results); too few workers: all run here */
  bool inline_all = nparts > TP_MAX || !ensure_workers(nparts) || tp.started + 1 < nparts;
  if (!inline_all) {
    tp.fn = fn, tp.ctx = ctx, tp.nparts = nparts, tp.pending = nparts - 1;
    tp.gen++;
    pthread_cond_broadcast(&tp.go);
  }
  pthread_mutex_unlock(&tp.mu);
  tp_inside++;
  if (inline_all)
    for (int i = 0; i < nparts; i++) fn(ctx, i, nparts);
  else
    fn(ctx, 0, nparts);
  tp_inside--;
  if (!inline_all) {
    pthread_mutex_lock(&tp.mu);
    while (tp.pending > 0) pthread_cond_wait(&tp.done, &tp.mu);
    pthread_mutex_unlock(&tp.mu);
  }
  pthread_mutex_unlock(&tp.run);
}
