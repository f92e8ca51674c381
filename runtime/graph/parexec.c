/* parexec.c — runs one graph on several inputs at once on a pool of worker threads (tf.data's parallel map). */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "graph/parexec.h"
#include "graph/exec.h"
#include "object/object.h"

/* The ops whose code lives above the kernels layer (tf.data, file I/O, summaries): never on a worker. */
static const bool op_is_up[OP__COUNT] = {
#define OP(id, ...) [OP_##id] = false,
#define OP_UP(id, ...) [OP_##id] = true,
#include "kernels/ops.def"
#undef OP
#undef OP_UP
};

/* strings may: a worker's strings are its own (tensor_copy_own of its inputs and constants); variants may not */
static bool plain_dtype(int dt) { return dt != DT_VARIANT; }

bool parexec_graph_ok(const Graph *g, const char **why) {
  for (int id = 0; id < g->nnodes; id++) {
    const GraphNode *nd = &g->nodes[id];
    *why = nd->name;
    switch (nd->kind) {
      case GN_VARHANDLE: return false;   /* a Variable's value is shared with the program */
      case GN_CONST:
        if (!plain_dtype(nd->value->dtype)) return false;
        break;
      case GN_OP:
        /* DecodeCSV (stdlib/modules/tfio.c) only reads its attributes and makes new tensors: worker-safe */
        if ((nd->op->flags & OPF_STATEFUL) || (op_is_up[nd->op->id] && nd->op->id != OP_DECODE_CSV)) return false;
        break;
      case GN_COND:
      case GN_WHILE:
        if (!parexec_graph_ok(nd->sub[0], why) || !parexec_graph_ok(nd->sub[1], why)) return false;
        break;
      case GN_PLACEHOLDER: break;
    }
    for (int o = 0; o < nd->nout; o++)
      if (!plain_dtype(nd->outm[o].dtype)) return false;
  }
  *why = NULL;
  return true;
}

struct ParExec {
  Graph *g;
  int lanes;
  ExecPlan **plans;           /* one per lane: a plan's arena serves one run at a time */
};

ParExec *parexec_new(Graph *g, int lanes) {
  ParExec *x = calloc(1, sizeof(ParExec));
  if (!x) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_fn((void (*)(void *))parexec_free, x);
  x->g = graph_retain(g);
  x->plans = calloc((size_t)lanes, sizeof(ExecPlan *));
  if (!x->plans) rt_throw(ERR_MEMORY, "out of memory");
  x->lanes = lanes;
  for (int i = 0; i < lanes; i++) x->plans[i] = exec_plan_new_private(g);
  rt_unhold(mark);
  return x;
}

void parexec_free(ParExec *x) {
  if (!x) return;
  for (int i = 0; x->plans && i < x->lanes; i++) exec_plan_free(x->plans[i]);
  free(x->plans);
  if (x->g) graph_release(x->g);
  free(x);
}

int parexec_lanes(const ParExec *x) { return x->lanes; }

/* ---- the pool ---------------------------------------------------------------------------------
 * Threads are made on first need and live as long as the program (a thread's per-thread free lists
 * stay reachable, so nothing leaks).  One batch at a time: only the main thread starts batches, and
 * it waits for each one to finish, so nothing runs on a worker once parexec_run has returned — except in a
 * session (below), during which batches run on the main thread alone. */
enum { PAR_MAX = 64 };

typedef struct Batch {
  ParExec *x;
  int n;                      /* lanes */
  int njobs;                  /* graph runs: args[j] -> outs[j] for j < njobs */
  Tensor **const *args;
  Tensor **const *outs;
  ParErr *errs;
  int *order;                 /* NULL: lane l runs jobs l, l + n, ...; else lanes take jobs as they free up and
                               * order[k] is the k-th to finish */
  _Atomic int *next, *ndone;  /* the caller's counters for that (it outlives the batch) */
  void (*fn)(void *ctx, int i);   /* parexec_run_fn's job (x NULL) */
  void *ctx;
  int local;                  /* the caller's tp_local_limit, which its jobs keep on their lanes */
  ParAsync *as;               /* a running session (parexec_async_start): its threads take queued jobs */
} Batch;

/* A session's state, all under pool.mu: the queue of submitted jobs not started, the queue of finished
 * ones not taken, and the count of jobs started but not finished. */
struct ParAsync {
  ParExec *x;
  int cap;                    /* job slots: ids 0..cap-1 */
  Tensor **const *args;
  Tensor **const *outs;
  ParErr *errs;
  int *todo, todo_head, ntodo;    /* ring of submitted ids */
  int *fin, fin_head, nfin;       /* ring of finished ids */
  int running;
  bool closing;
  pthread_cond_t work, finished;
};

static struct {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  unsigned long gen;          /* bumped per batch */
  Batch b;
  int pending;                /* jobs of the batch not finished on workers */
  int started;                /* threads made so far (lane 1..started) */
  bool async;                 /* a session holds the threads: batches run on the caller alone meanwhile */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

static _Atomic tfs_i64 offthread_runs;
tfs_i64 parexec_offthread_runs(void) { return atomic_load(&offthread_runs); }

/* One graph run of job j on lane l's plan, its error caught here (the caller raises it when the element is reached). */
static void run_one(const Batch *b, int l, int j) {
  ParErr *e = &b->errs[j];
  e->msg = NULL;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    exec_run(b->x->plans[l], b->args[j], b->outs[j]);
    rt_try_pop(&t);
    return;
  }
  e->kind = t.kind;
  e->loc = t.loc;
  e->msg = t.msg ? t.msg : strdup("");
  t.msg = NULL;
  rt_try_clear(&t);   /* (an op raises no exception object) */
}

/* A session's thread on plan p: take the next submitted job while the session lasts. */
static int async_loop(const Batch *b, int p) {
  ParAsync *as = b->as;
  Batch one = *b;
  one.args = as->args, one.outs = as->outs, one.errs = as->errs;
  int runs = 0;
  pthread_mutex_lock(&pool.mu);
  for (;;) {
    while (!as->ntodo && !as->closing) pthread_cond_wait(&as->work, &pool.mu);
    if (!as->ntodo) break;   /* closing and nothing queued */
    int j = as->todo[as->todo_head];
    as->todo_head = (as->todo_head + 1) % as->cap;
    as->ntodo--;
    as->running++;
    pthread_mutex_unlock(&pool.mu);
    run_one(&one, p, j);
    runs++;
    pthread_mutex_lock(&pool.mu);
    as->running--;
    as->fin[(as->fin_head + as->nfin++) % as->cap] = j;
    pthread_cond_signal(&as->finished);
  }
  pthread_mutex_unlock(&pool.mu);
  return runs;
}

/* Lane l's share of the batch; returns the runs it did (a plan serves one run at a time, and each lane has its own). */
static int job_run(const Batch *b, int l) {
  if (b->as) return async_loop(b, l - 1);   /* thread l runs on plan l - 1 (the main thread runs none) */
  if (b->fn) { b->fn(b->ctx, l); return 1; }
  int runs = 0;
  if (!b->order) {
    for (int j = l; j < b->njobs; j += b->n, runs++) run_one(b, l, j);
    return runs;
  }
  for (;;) {
    int j = atomic_fetch_add(b->next, 1);
    if (j >= b->njobs) return runs;
    run_one(b, l, j);
    b->order[atomic_fetch_add(b->ndone, 1)] = j;
    runs++;
  }
}

static void *lane_main(void *arg) {
  int lane = (int)(intptr_t)arg;
  exec_on_worker = true;
  unsigned long seen = 0;
  pthread_mutex_lock(&pool.mu);
  for (;;) {
    while (pool.gen == seen) pthread_cond_wait(&pool.go, &pool.mu);
    seen = pool.gen;
    if (lane >= pool.b.n) continue;
    Batch b = pool.b;
    pthread_mutex_unlock(&pool.mu);
    int was = tp_local_limit(b.local);
    int runs = job_run(&b, lane);
    tp_local_limit(was);
    atomic_fetch_add(&offthread_runs, runs);
    pthread_mutex_lock(&pool.mu);
    if (--pool.pending == 0) pthread_cond_signal(&pool.done);
  }
  return NULL;
}

/* Lanes 1..n-1 have threads; false when one could not be made. */
static bool ensure_lanes(int n) {
  while (pool.started < n - 1) {
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, lane_main, (void *)(intptr_t)(pool.started + 1));
    pthread_attr_destroy(&a);
    if (rc != 0) return false;
    pool.started++;
  }
  return true;
}

static void batch_run(Batch b, int n) {
  pthread_mutex_lock(&pool.mu);
  bool threads = n > 1 && n <= PAR_MAX && !pool.async && ensure_lanes(n);
  if (threads) {
    atomic_store(&rt_mt_active, 1);
    pool.b = b;
    pool.pending = n - 1;
    pool.gen++;
    pthread_cond_broadcast(&pool.go);
  }
  pthread_mutex_unlock(&pool.mu);
  if (!threads) {   /* no thread could be made: every job here, in order */
    for (int i = 0; i < n; i++) job_run(&b, i);
    return;
  }
  job_run(&b, 0);
  pthread_mutex_lock(&pool.mu);
  while (pool.pending > 0) pthread_cond_wait(&pool.done, &pool.mu);
  pool.b.n = 0;
  atomic_store(&rt_mt_active, 0);
  pthread_mutex_unlock(&pool.mu);
}

void parexec_run(ParExec *x, int n, Tensor **const *args, Tensor **const *outs, ParErr *errs) {
  parexec_run_jobs(x, n, args, outs, errs, NULL);
}

void parexec_run_jobs(ParExec *x, int njobs, Tensor **const *args, Tensor **const *outs, ParErr *errs, int *order) {
  _Atomic int next = 0, ndone = 0;
  int n = njobs < x->lanes ? njobs : x->lanes;
  batch_run((Batch){x, n, njobs, args, outs, errs, order, &next, &ndone, NULL, NULL, tp_local_limit(-1), NULL}, n);
}

void parexec_run_fn(int n, void (*fn)(void *ctx, int i), void *ctx) {
  batch_run((Batch){NULL, n, n, NULL, NULL, NULL, NULL, NULL, NULL, fn, ctx, tp_local_limit(-1), NULL}, n);
}

/* ---- sessions (deterministic=False map) ----------------------------------------------------------
 * The session's x->lanes threads run queued jobs until it stops, while the main thread goes on with the
 * program; rt_mt_active stays set meanwhile (the shared tables stay locked, the cycle collector waits). */
ParAsync *parexec_async_start(ParExec *x, int cap, Tensor **const *args, Tensor **const *outs, ParErr *errs) {
  int n = x->lanes + 1;
  ParAsync *as = calloc(1, sizeof(ParAsync));
  int *todo = calloc((size_t)cap, sizeof(int)), *fin = calloc((size_t)cap, sizeof(int));
  if (!as || !todo || !fin) {
    free(as), free(todo), free(fin);
    return NULL;
  }
  *as = (ParAsync){.x = x, .cap = cap, .args = args, .outs = outs, .errs = errs, .todo = todo, .fin = fin};
  pthread_cond_init(&as->work, NULL);
  pthread_cond_init(&as->finished, NULL);
  pthread_mutex_lock(&pool.mu);
  if (pool.async || n > PAR_MAX || !ensure_lanes(n)) {   /* one session at a time */
    pthread_mutex_unlock(&pool.mu);
    pthread_cond_destroy(&as->work);
    pthread_cond_destroy(&as->finished);
    free(todo), free(fin), free(as);
    return NULL;
  }
  atomic_store(&rt_mt_active, 1);
  pool.async = true;
  pool.b = (Batch){.x = x, .n = n, .as = as, .local = tp_local_limit(-1)};
  pool.pending = n - 1;
  pool.gen++;
  pthread_cond_broadcast(&pool.go);
  pthread_mutex_unlock(&pool.mu);
  return as;
}

void parexec_async_submit(ParAsync *as, int j) {
  pthread_mutex_lock(&pool.mu);
  as->todo[(as->todo_head + as->ntodo++) % as->cap] = j;
  pthread_cond_signal(&as->work);
  pthread_mutex_unlock(&pool.mu);
}

int parexec_async_next(ParAsync *as) {
  pthread_mutex_lock(&pool.mu);
  while (!as->nfin && (as->ntodo || as->running)) pthread_cond_wait(&as->finished, &pool.mu);
  int j = -1;
  if (as->nfin) {
    j = as->fin[as->fin_head];
    as->fin_head = (as->fin_head + 1) % as->cap;
    as->nfin--;
  }
  pthread_mutex_unlock(&pool.mu);
  return j;
}

void parexec_async_stop(ParAsync *as) {
  if (!as) return;
  pthread_mutex_lock(&pool.mu);
  as->closing = true;
  as->ntodo = 0;   /* queued jobs are dropped; running ones finish */
  pthread_cond_broadcast(&as->work);
  while (pool.pending > 0) pthread_cond_wait(&pool.done, &pool.mu);
  pool.b.n = 0;
  pool.b.as = NULL;
  pool.async = false;
  atomic_store(&rt_mt_active, 0);
  pthread_mutex_unlock(&pool.mu);
  pthread_cond_destroy(&as->work);
  pthread_cond_destroy(&as->finished);
  free(as->todo);
  free(as->fin);
  free(as);
}
