/* threads.c — the runtime's intra-op thread pool: a kernel splits its work into parts, which the caller and persistent workers claim and run. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kernels/ops.h"

/* Why a pool of its own: OpenBLAS (pthreads) and oneDNN/OpenMP each keep threads that fight when nested
 * (docs/performance.md); one pool for every kernel, with OpenBLAS at one thread, avoids that.  Parts are
 * fixed by the caller from the thread count alone, so results are bit-identical for a given count. */
#define TP_MAX 64

/* The job's fields are atomics written before its generation is published (release) and read after it
 * (acquire): a worker that reads them late sees a later job's, whose claims name another generation.  The
 * hand-off itself takes no lock: the mutex and condition variables serve only a worker that went to sleep
 * (sleepers) or a caller waiting for a worker's last part (waiting), each side checking the other's flag
 * after writing its own (sequentially consistent), so no wake-up is lost. */
static struct {
  pthread_mutex_t run;          /* held by the one caller whose job is on the workers */
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  int started;                  /* workers created so far (under run) */
  _Atomic(TpFn) fn;
  _Atomic(void *) ctx;
  _Atomic int nparts;
  _Atomic unsigned long gen;    /* bumped per job; the line the spinning workers read */
  _Atomic int sleepers;         /* workers asleep on go, or about to be */
  _Alignas(64) _Atomic uint64_t claim;  /* (job's generation << 32) | next unclaimed part */
  _Atomic uint64_t seats;       /* (job's generation << 32) | workers that may still join it (tp_local_limit) */
  _Atomic int finished;         /* parts of the job done */
  _Atomic int waiting;          /* the caller asleep on done, or about to be */
} tp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

static _Atomic int tp_want;          /* the thread count (0: not yet resolved) */
static __thread int tp_inside;       /* > 0 inside a part: nested calls run inline */
static __thread int tp_local;        /* n > 0: jobs started on this thread use at most n threads (tp_local_limit) */

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
  /* Ranks of an MPI job sharing this host unbound (mpirun --bind-to none, or --oversubscribe, which binds nothing):
   * each takes its share of the cores, or 2 ranks of 2 threads on 2 cores would preempt each other mid-step and
   * every collective would wait for the slowest (docs/distributed.md).  A rank bound to its cores has only those. */
  const char *ls = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!ls || !*ls) ls = getenv("MPI_LOCALNRANKS");
  long local = ls && *ls ? strtol(ls, NULL, 10) : 1;
  if (local > 1 && n >= sysconf(_SC_NPROCESSORS_ONLN)) n = (int)(n / local);
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

int tp_local_limit(int n) {
  int old = tp_local;
  if (n >= 0) tp_local = n;
  return old;
}

void tp_set_threads(int n) {
  if (n <= 0) n = default_threads();
  atomic_store(&tp_want, n > TP_MAX ? TP_MAX : n);
}

/* A kernel's steps come in bursts (a training step is dozens of jobs): a worker, and a caller waiting for
 * its parts, first spin this long before sleeping, because waking a sleeping thread costs tens of
 * microseconds (more than a small product).  The spin reads the flag without PAUSE: in this KVM guest a
 * PAUSE takes ~430 ns (the host's pause-loop exit), so the old count of 20,000 pauses spun ~9 ms and
 * noticed a new job up to half a microsecond late (docs/performance.md, "Splitting products by shape"). */
#define TP_SPIN_NS 2000000L

/* Parts per thread: with several, a thread the OS preempts holds back one small part, not half the job
 * (on the shared 2-core machine, 2 even halves ran 1.5-2x slower than one thread; docs/performance.md). */
#define TP_GRAIN 4

static inline long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* True once a new job is out (the worker's wait: tp.gen != v) or every part is done (the caller's: tp.finished
 * >= v); false after TP_SPIN_NS.  The clock is read once per 256 looks. */
static bool spin_for(bool done, unsigned long v) {
  long end = 0;
  for (unsigned i = 1;; i++) {
    if (done ? (unsigned long)atomic_load_explicit(&tp.finished, memory_order_acquire) >= v
             : atomic_load_explicit(&tp.gen, memory_order_acquire) != v)
      return true;
    if ((i & 255) == 0) {
      long t = now_ns();
      if (!end) end = t + TP_SPIN_NS;
      else if (t > end) return false;
    }
  }
}

/* Parts are claimed, not assigned: whoever is running takes the next one, so a worker the OS has not
 * scheduled yet costs nothing (the caller runs its parts).  A claim names the job's generation, so a
 * worker that wakes late cannot take a part of the next job. */
static int claim_part(uint32_t gen, int nparts) {
  uint64_t c = atomic_load(&tp.claim);
  for (;;) {
    if ((uint32_t)(c >> 32) != gen || (int)(uint32_t)c >= nparts) return -1;
    if (atomic_compare_exchange_weak(&tp.claim, &c, c + 1)) return (int)(uint32_t)c;
  }
}

static void run_claimed(uint32_t gen, TpFn fn, void *ctx, int nparts) {
  for (int p; (p = claim_part(gen, nparts)) >= 0;) {
    fn(ctx, p, nparts);
    /* the last part wakes the caller only when it went to sleep */
    if (atomic_fetch_add(&tp.finished, 1) + 1 == nparts && atomic_load(&tp.waiting)) {
      pthread_mutex_lock(&tp.mu);
      pthread_cond_signal(&tp.done);
      pthread_mutex_unlock(&tp.mu);
    }
  }
}

/* A worker joins job gen only while it has seats left: a caller under tp_local_limit(n) shares its job with at
 * most n - 1 workers (tf.data's max_intra_op_parallelism); the parts, so the bits, stay as the caller cut them. */
#define TP_SEATS_ANY 0xffffffffu   /* no limit: joining takes no seat (no write to the shared line) */
static bool take_seat(uint32_t gen) {
  uint64_t s = atomic_load(&tp.seats);
  for (;;) {
    if ((uint32_t)(s >> 32) != gen || (uint32_t)s == 0) return false;
    if ((uint32_t)s == TP_SEATS_ANY) return true;
    if (atomic_compare_exchange_weak(&tp.seats, &s, s - 1)) return true;
  }
}

static void *worker(void *arg) {
  (void)arg;
  unsigned long seen = 0;
  tp_inside = 1;
  for (;;) {
    if (!spin_for(false, seen)) {
      pthread_mutex_lock(&tp.mu);
      atomic_fetch_add(&tp.sleepers, 1);
      while (atomic_load(&tp.gen) == seen) pthread_cond_wait(&tp.go, &tp.mu);
      atomic_fetch_sub(&tp.sleepers, 1);
      pthread_mutex_unlock(&tp.mu);
    }
    seen = atomic_load_explicit(&tp.gen, memory_order_acquire);
    /* fields of this job or (when late) of a later one, whose claims name another generation */
    TpFn fn = atomic_load_explicit(&tp.fn, memory_order_relaxed);
    void *ctx = atomic_load_explicit(&tp.ctx, memory_order_relaxed);
    int np = atomic_load_explicit(&tp.nparts, memory_order_relaxed);
    if (take_seat((uint32_t)seen)) run_claimed((uint32_t)seen, fn, ctx, np);
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
  tfs_i64 most = work / (min_work > 0 ? min_work : 1), want = (tfs_i64)n * TP_GRAIN;
  return most < want ? (int)most : (int)want;
}

void tp_run(int nparts, TpFn fn, void *ctx) {
  /* Nested (inside a part), single, or the pool busy with another caller's job: run every part here. */
  if (nparts <= 1 || tp_inside || tp_local == 1 || pthread_mutex_trylock(&tp.run) != 0) {
    tp_inside++;
    for (int i = 0; i < nparts; i++) fn(ctx, i, nparts);
    tp_inside--;
    return;
  }
  /* the parts stay as the caller cut them (they decide the results); no workers: all run here */
  int threads = tp_local > 1 && tp_local < tp_threads() ? tp_local : tp_threads();
  bool inline_all = nparts > TP_MAX || !ensure_workers(nparts < threads ? nparts : threads);
  uint32_t gen = 0;
  if (!inline_all) {
    atomic_store_explicit(&tp.fn, fn, memory_order_relaxed);
    atomic_store_explicit(&tp.ctx, ctx, memory_order_relaxed);
    atomic_store_explicit(&tp.nparts, nparts, memory_order_relaxed);
    atomic_store(&tp.finished, 0);
    gen = (uint32_t)(atomic_load(&tp.gen) + 1);
    atomic_store(&tp.claim, (uint64_t)gen << 32);
    atomic_store(&tp.seats, (uint64_t)gen << 32 | (threads < tp_threads() ? (uint32_t)(threads - 1) : TP_SEATS_ANY));
    atomic_fetch_add(&tp.gen, 1);   /* publishes the fields above */
    if (atomic_load(&tp.sleepers) > 0) {
      pthread_mutex_lock(&tp.mu);
      pthread_cond_broadcast(&tp.go);
      pthread_mutex_unlock(&tp.mu);
    }
  }
  tp_inside++;
  if (inline_all)
    for (int i = 0; i < nparts; i++) fn(ctx, i, nparts);
  else
    run_claimed(gen, fn, ctx, nparts);
  tp_inside--;
  if (!inline_all && !spin_for(true, (unsigned long)nparts)) {
    pthread_mutex_lock(&tp.mu);
    atomic_store(&tp.waiting, 1);
    while (atomic_load(&tp.finished) < nparts) pthread_cond_wait(&tp.done, &tp.mu);
    atomic_store(&tp.waiting, 0);
    pthread_mutex_unlock(&tp.mu);
  }
  pthread_mutex_unlock(&tp.run);
}
