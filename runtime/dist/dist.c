/* dist.c — joining an MPI job started by mpirun, the header-checked collectives, and stopping the whole job on a failure. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dist/dist.h"
#include "object/hooks.h"
#include "object/object.h"

#include "dist/dist_mpi.h"

int dist_rank_, dist_size_ = 1;
bool dist_joined;
static bool dist_done;
static int dist_seq;                 /* collective instances so far (TF's instance key) */
static double dist_timeout = -1;     /* TFS_COLLECTIVE_TIMEOUT seconds; < 0: none */
static double dist_spin = 300e-6;    /* TFS_DIST_SPIN_US: how long a wait spins before it sleeps, seconds */
static char dist_dev[96] = "/job:localhost/replica:0/task:0/device:CPU:0";

int dist_rank(void) { return dist_rank_; }
int dist_size(void) { return dist_size_; }
bool dist_launched(void) { return dist_joined; }
const char *dist_device(void) { return dist_dev; }

static int dist_scope_depth;
void dist_mirror_scope(int delta) { dist_scope_depth = dist_scope_depth + delta < 0 ? 0 : dist_scope_depth + delta; }
bool dist_mirroring(void) { return dist_joined && dist_scope_depth > 0; }
bool dist_writes(void) { return !dist_joined || dist_rank_ == 0; }
bool dist_in_scope(void) { return dist_scope_depth > 0; }
static int dist_replica_depth;
int dist_replica(int delta) {
  dist_replica_depth = dist_replica_depth + delta < 0 ? 0 : dist_replica_depth + delta;
  return dist_replica_depth;
}
static int dist_sync_depth;
int dist_grad_sync(int delta) {
  dist_sync_depth = dist_sync_depth + delta < 0 ? 0 : dist_sync_depth + delta;
  return dist_sync_depth;
}

/* The launcher's environment: Open MPI's, else MPICH Hydra's (PMI). */
static int env_int(const char *a, const char *b) {
  const char *s = getenv(a);
  if (!s || !*s) s = getenv(b);
  return s && *s ? atoi(s) : -1;
}

int dist_launch_rank(void) {
  int r = env_int("OMPI_COMM_WORLD_RANK", "PMI_RANK");
  return env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE") > 1 && r > 0 ? r : 0;
}

static const char *const kind_names[] = {"", "all-reduce", "all-gather", "broadcast", "barrier", "end of program"};

#ifdef TFS_HAVE_MPI
static double now_s(void);
static MPI_Comm pair_comm = MPI_COMM_NULL;   /* 2 ranks: the pairwise all-reduce's messages (dist_ar_start) */
static bool stats_on;         /* TFS_DIST_STATS */
static double stat_t0;
static MPI_Comm shm_comm = MPI_COMM_NULL;    /* 2 ranks on one host: the shared window's (shm_init) */
static void shm_init(void);

static void dist_uncaught(void) {
  fprintf(stderr, "tfs: rank %d of %d failed; stopping all ranks\n", dist_rank_, dist_size_);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void dist_atexit(void) {
  if (!dist_done) dist_finish();
}
#endif

void dist_init(void) {
  static bool once;
  if (once) return;
  once = true;
  int size = env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
  if (size <= 1) return;   /* alone: never MPI_Init (it costs 0.4 s and starts a daemon) */
#ifndef TFS_HAVE_MPI
  fprintf(stderr, "tfs: error: started by mpirun with %d processes, but this tfs was built without MPI\n", size);
  exit(1);
#else
  int provided;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "tfs: error: cannot join the MPI job (MPI_Init failed)\n");
    exit(1);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &dist_rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &dist_size_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (dist_size_ == 2) {
    MPI_Comm_dup(MPI_COMM_WORLD, &pair_comm);   /* the pairwise all-reduce's messages */
    shm_init();
  }
  dist_joined = true;
  snprintf(dist_dev, sizeof dist_dev, "/job:worker/replica:0/task:%d/device:CPU:0", dist_rank_);
  const char *t = getenv("TFS_COLLECTIVE_TIMEOUT");
  if (t && *t) dist_timeout = atof(t);
  t = getenv("TFS_DIST_SPIN_US");
  if (t && *t) dist_spin = atof(t) * 1e-6;
  rt_obj_hooks.uncaught = dist_uncaught;
  rt_obj_hooks.exit_ok = dist_finish;
  atexit(dist_atexit);
  const char *st = getenv("TFS_DIST_STATS");
  stats_on = st && *st && strcmp(st, "0");
  stat_t0 = now_s();
#endif
  dist_overlap_init();
#ifdef TFS_HAVE_MPI
  /* 2 ranks on one host: the blocking all-reduce through the shared window is one meeting and the least memory
   * traffic, and on 2 cores no core is free to overlap with (docs/distributed.md): blocking unless asked. */
  const char *ov = getenv("TFS_DIST_OVERLAP");
  if (shm_comm != MPI_COMM_NULL && !(ov && *ov)) dist_overlap(0);
#endif
}

#ifdef TFS_HAVE_MPI
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void loc_text(char *buf, size_t n, int loc) {
  const RtLoc *l = rt_loc_get(loc);
  const RtFile *f = l ? rt_file_get(l->file) : NULL;
  if (f) snprintf(buf, n, "%s:%d", f->path, l->line);
  else snprintf(buf, n, "?");
}

/* TFS_DIST_STATS=1: where a rank's time goes, printed to stderr at the end (docs/distributed.md). */
static double stat_t[DIST_WAIT_SLOTS];
static long stat_n[DIST_WAIT_SLOTS], stat_slept[DIST_WAIT_SLOTS];
static long stat_shm_n;                     /* all-reduces through the shared window (shm_reduce) */
static double stat_shm_pack, stat_shm_sum;
double dist_progress_s;
long dist_progress_n;

static void stats_print(void) {
  static const char *const what[DIST_WAIT_SLOTS] = {"header exchanges", "data of blocking collectives",
                                                    "gradient buckets (overlap)"};
  double wall = now_s() - stat_t0;
  fprintf(stderr, "tfs: rank %d: %.3f s from joining the job to its end\n", dist_rank_, wall);
  for (int i = 0; i < DIST_WAIT_SLOTS; i++)
    fprintf(stderr, "tfs: rank %d: waited %.3f s (%.1f%%) in %ld %s (%ld past the spin)\n", dist_rank_, stat_t[i],
            100 * stat_t[i] / wall, stat_n[i], what[i], stat_slept[i]);
  fprintf(stderr, "tfs: rank %d: %ld MPI_Test calls during backward passes, %.3f s\n", dist_rank_, dist_progress_n,
          dist_progress_s);
  fprintf(stderr, "tfs: rank %d: %ld all-reduces through the shared window: %.3f s copying in, %.3f s summing out\n",
          dist_rank_, stat_shm_n, stat_shm_pack, stat_shm_sum);
}

double dist_now(void) { return stats_on ? now_s() : 0; }

/* Wait for the nreq requests at req.  Open MPI moves a collective only inside MPI calls, so the rank polls: it spins
 * 300 us (the 20000 MPI_Test calls of before, measured on the 2-core EPYC; TFS_DIST_SPIN_US), since a step's
 * collectives take microseconds, then sleeps 100 us between polls, leaving the core to others.  On the loaded 2-core
 * machine a 2 ms spin halved the throughput and 20 us lost a quarter (docs/distributed.md).  Warns after 60 s, raises
 * DeadlineExceededError after the timeout (§18.9).  slot: what is waited for (TFS_DIST_STATS). */
double dist_wait_clock(void) { return now_s(); }
double dist_wait_spin(void) { return dist_spin; }

void dist_wait_stat(int slot, double t, bool slept) {
  if (stats_on) stat_t[slot] += t, stat_n[slot]++, stat_slept[slot] += slept;
}

/* A wait for h's collective has lasted `waited` seconds: the warning after 60 s, DeadlineExceededError after
 * TFS_COLLECTIVE_TIMEOUT. */
void dist_wait_tick(const Hdr *h, double waited, bool *warned) {
  if (!*warned && waited >= 60) {
    char at[300];
    loc_text(at, sizeof at, h->loc);
    fprintf(stderr, "tfs: warning: rank %d has waited 60 s in collective instance %d (%s at %s)\n", dist_rank_, h->seq,
            kind_names[h->kind], at);
    *warned = true;
  }
  if (dist_timeout >= 0 && waited >= dist_timeout)
    rt_throw(ERR_DEADLINE_EXCEEDED, "Collective has timed out waiting for other workers.");
}

void dist_wait(MPI_Request *req, int nreq, const Hdr *h, int slot) {
  int done = 0;
  double t0 = now_s();
  bool warned = false, slept = false;
  for (long spin = 0;; spin++) {
    MPI_Testall(nreq, req, &done, MPI_STATUSES_IGNORE);
    if (done) {
      dist_wait_stat(slot, now_s() - t0, slept);
      return;
    }
    if (!slept && ((spin & 15) || now_s() - t0 < dist_spin)) continue;
    slept = true;
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
    double waited = now_s() - t0;
    if (dist_timeout >= 0 && waited >= dist_timeout)
      for (int i = 0; i < nreq; i++)
        if (req[i] != MPI_REQUEST_NULL) MPI_Cancel(&req[i]);
    dist_wait_tick(h, waited, &warned);
  }
}

/* ---- an in-place all-reduce in flight (dist_mpi.h) ----
 * Two ranks swap their buffers (MPI_Irecv + MPI_Isend on a communicator of their own; Open MPI's shared memory moves
 * each in one copy, CMA) and each adds the other's into its own with MPI_Reduce_local: 1.15 times MPI_Allreduce,
 * where libnbc's MPI_Iallreduce takes 1.5-1.8 times as long on this machine (in place it always reduces to rank 0 and
 * broadcasts back, bench/allreduce_mpi.c).  An op of two operands being commutative, every rank and every bucketing
 * gets the same bits.  More ranks: MPI_Iallreduce, whose in-place binomial tree keeps the bits independent of the
 * bucketing (docs/distributed.md). */
void dist_ar_start(DistAR *a, void *p, tfs_i64 n, DType dt, MPI_Op op) {
  a->p = p;
  a->n = (int)n;
  a->type = dist_mpi_type(dt);
  a->op = op;
  a->tmp = NULL;
  a->req[0] = a->req[1] = MPI_REQUEST_NULL;
  if (dist_size_ == 2) {
    a->tmp = malloc((size_t)dtype_info[dt].size * (size_t)(n ? n : 1));
    if (!a->tmp) rt_throw(ERR_MEMORY, "out of memory");
    if (MPI_Irecv(a->tmp, a->n, a->type, 1 - dist_rank_, 0, pair_comm, &a->req[0]) != MPI_SUCCESS ||
        MPI_Isend(p, a->n, a->type, 1 - dist_rank_, 0, pair_comm, &a->req[1]) != MPI_SUCCESS)
      rt_throw(ERR_INTERNAL, "MPI_Isend failed");
  } else if (MPI_Iallreduce(MPI_IN_PLACE, p, a->n, a->type, op, MPI_COMM_WORLD, &a->req[0]) != MPI_SUCCESS)
    rt_throw(ERR_INTERNAL, "MPI_Iallreduce failed");
}

/* Both requests complete: the partner's buffer added in. */
static void ar_done(DistAR *a) {
  if (!a->tmp) return;
  MPI_Reduce_local(a->tmp, a->p, a->n, a->type, a->op);
  free(a->tmp);
  a->tmp = NULL;
}

bool dist_ar_test(DistAR *a) {
  int done = 0;
  MPI_Testall(2, a->req, &done, MPI_STATUSES_IGNORE);
  if (done) ar_done(a);
  return done;
}

void dist_ar_wait(DistAR *a, const Hdr *h, int slot) {
  dist_wait(a->req, 2, h, slot);
  ar_done(a);
}

void dist_ar_free(DistAR *a) {
  free(a->tmp);
  a->tmp = NULL;
}

static void shape_text(char *buf, size_t n, int nd, const int64_t *shape) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < nd && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "", (long long)shape[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* Exchange headers; raise on every rank when they do not match.  all: dist_size_ headers. */
static void dist_exchange(Hdr *mine, Hdr *all) {
  if (dist_meet_on()) {   /* 2 ranks on one host: the mailboxes (meet.c) */
    all[dist_rank_] = *mine;
    dist_meet_exchange(mine, &all[1 - dist_rank_]);
  } else if (dist_size_ == 2) {   /* a swap of the headers: point-to-point costs less than libnbc's schedule */
    MPI_Request req[2];
    all[dist_rank_] = *mine;
    if (MPI_Irecv(&all[1 - dist_rank_], (int)sizeof *mine, MPI_BYTE, 1 - dist_rank_, 1, pair_comm, &req[0]) !=
            MPI_SUCCESS ||
        MPI_Isend(mine, (int)sizeof *mine, MPI_BYTE, 1 - dist_rank_, 1, pair_comm, &req[1]) != MPI_SUCCESS)
      rt_throw(ERR_INTERNAL, "MPI_Isend failed");
    dist_wait(req, 2, mine, DIST_WAIT_HEADER);
  } else {
    MPI_Request req;
    if (MPI_Iallgather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, MPI_COMM_WORLD, &req) !=
        MPI_SUCCESS)
      rt_throw(ERR_INTERNAL, "MPI_Iallgather failed");
    dist_wait(&req, 1, mine, DIST_WAIT_HEADER);
  }
  char a[300], b[300];
  for (int r = 0; r < dist_size_; r++) {
    const Hdr *o = &all[r];
    if (o->kind == mine->kind) continue;
    if (mine->kind == K_END) {   /* this rank is done while rank r waits: report, let r raise, stop */
      fprintf(stderr,
              "tfs: error: rank %d reached the end of the program while rank %d waits in collective instance %d (%s);"
              " every replica must run the same collectives in the same order\n",
              dist_rank_, r, o->seq, kind_names[o->kind]);
      fflush(stderr);
      sleep(1);   /* the waiting ranks print their error first */
      _exit(1);
    }
    loc_text(a, sizeof a, mine->loc);
    if (o->kind == K_END)
      rt_throw(ERR_UNAVAILABLE,
               "Collective ops is aborted by: rank %d (worker:%d) reached the end of the program while this rank waits "
               "in collective instance %d (%s at %s). Every replica must run the same collectives in the same order: "
               "give every rank the same number of steps.",
               r, r, mine->seq, kind_names[mine->kind], a);
    const Hdr *h0 = &all[0];
    const Hdr *h1 = h0->kind != mine->kind ? mine : o;
    int r1 = h0->kind != mine->kind ? dist_rank_ : r;
    loc_text(a, sizeof a, h0->loc);
    loc_text(b, sizeof b, h1->loc);
    rt_throw(ERR_INVALID_ARGUMENT, "Collective mismatch in the collective instance %d: rank 0 runs %s (%s), rank %d runs %s (%s)",
             mine->seq, kind_names[h0->kind], a, r1, kind_names[h1->kind], b);
  }
  for (int r = 0; r < dist_size_; r++) {
    const Hdr *o = &all[r];
    if (o->dtype != mine->dtype)
      rt_throw(ERR_INVALID_ARGUMENT,
               "Data type mismatch in the collective instance %d. Op at device %s expected data type %s but another "
               "member in the group expected data type %s. This is likely due to different input data types at "
               "different members of the collective op.",
               mine->seq, dist_dev, dtype_info[mine->dtype].name, dtype_info[o->dtype].name);
    bool same = o->nd == mine->nd && o->shapes_hash == mine->shapes_hash;
    for (int i = 0; same && i < mine->nd && i < TFS_MAX_RANK; i++)
      same = o->shape[i] == mine->shape[i] || (mine->kind == K_ALL_GATHER && i == mine->root);
    if (!same) {
      shape_text(a, sizeof a, mine->nd, mine->shape);
      shape_text(b, sizeof b, o->nd, o->shape);
      rt_throw(ERR_INVALID_ARGUMENT,
               "Shape mismatch in the collective instance %d. Op at device %s expected shape %s but another member in "
               "the group expected shape %s. This is likely due to different input shapes at different members of the "
               "collective op.",
               mine->seq, dist_dev, a, b);
    }
    if (o->op != mine->op || (mine->kind == K_BROADCAST && o->root != mine->root))
      rt_throw(ERR_INVALID_ARGUMENT, "Collective mismatch in the collective instance %d: the ranks name different %s",
               mine->seq, mine->kind == K_BROADCAST ? "root ranks" : "reduce operations");
  }
}

Hdr dist_hdr(int kind, const Tensor *t, int op, int root) {
  Hdr h;
  memset(&h, 0, sizeof h);
  h.kind = kind;
  h.seq = ++dist_seq;
  h.rank = dist_rank_;
  h.op = op;
  h.root = root;
  h.loc = rt_user_loc();
  if (t) {
    dist_mpi_type(t->dtype);   /* a dtype no collective takes: TypeError before anything is exchanged */
    h.dtype = t->dtype;
    h.nd = t->rank;
    for (int i = 0; i < t->rank; i++) h.shape[i] = t->shape[i];
  }
  return h;
}

MPI_Datatype dist_mpi_type(DType dt) {
  switch (dt) {
  case DT_FLOAT32: return MPI_FLOAT;
  case DT_FLOAT64: return MPI_DOUBLE;
  case DT_INT32: return MPI_INT32_T;
  case DT_INT64: return MPI_INT64_T;
  default:
    rt_throw(ERR_TYPE, "collectives take float32, float64, int32 or int64 tensors, not %s", dtype_info[dt].name);
  }
}

static MPI_Op mpi_op(DistOp op) {
  switch (op) {
  case DIST_MIN: return MPI_MIN;
  case DIST_MAX: return MPI_MAX;
  case DIST_PROD: return MPI_PROD;
  default: return MPI_SUM;
  }
}

static Hdr *hdrs_alloc(void) {
  Hdr *all = malloc(sizeof(Hdr) * (size_t)dist_size_);
  if (!all) rt_throw(ERR_MEMORY, "out of memory");
  return all;
}

/* Every rank's header for h's collective, after the exchange has checked that they match; held (its
 * mark in *mark when mark is not NULL) so an error frees it, else the caller's rt_unhold + free. */
Hdr *dist_begin(Hdr *h, int *mark) {
  Hdr *all = hdrs_alloc();
  int m = rt_hold_mem(all);
  if (mark) *mark = m;
  dist_exchange(h, all);
  return all;
}

/* Sum -> mean in place: n values of dt divided by the number of replicas. */
void dist_mean_in_place(void *p, tfs_i64 n, DType dt) {
  for (tfs_i64 i = 0; i < n; i++) switch (dt) {
    case DT_FLOAT32: ((float *)p)[i] /= (float)dist_size_; break;
    case DT_FLOAT64: ((double *)p)[i] /= dist_size_; break;
    case DT_INT32: ((int32_t *)p)[i] /= dist_size_; break;
    default: ((int64_t *)p)[i] /= dist_size_; break;
    }
}

/* ---- 2 ranks on one host: the all-reduce through an MPI shared-memory window ----
 * Each rank writes into its own part of a window both ranks can read (MPI_Win_allocate_shared) the half of its data
 * that its partner reduces; the header exchange that checks the collective is also the point after which both parts
 * are written; each rank reduces its half into the results (shm_reduce) and, after a second meeting, copies the
 * partner's half.  Half a pass over the data in, two halves out, where the swap (dist_ar_start) makes whole passes: a
 * CMA copy of the partner's buffer, a reduction in place and, fused, the copies into and out of one buffer: at 2 ranks
 * on 2 cores every copy is compute time taken from the step (docs/distributed.md).  Each element is rank 0's value (op)
 * rank 1's, so both ranks get the same bits (NaN payloads included) and the swap's.  A rank's part has two slots used
 * alternately: a rank writes a slot again two all-reduces later, when the partner has met it since, so it has finished
 * reading it.  TFS_DIST_SHM=0: the swap. */
static MPI_Win shm_win = MPI_WIN_NULL;
static char *shm_mine, *shm_peer;   /* this rank's part and the partner's: two slots each */
static size_t shm_slot;             /* bytes of one slot */
static unsigned shm_uses;

static void shm_init(void) {
  const char *e = getenv("TFS_DIST_SHM");
  if (e && !strcmp(e, "0")) return;
  MPI_Comm c;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c) != MPI_SUCCESS) return;
  int n = 0;
  MPI_Comm_size(c, &n);
  if (n == 2) {
    shm_comm = c;
    dist_meet_init(c);
  } else MPI_Comm_free(&c);
}

/* A window with slots of at least `bytes` (both ranks call it at the same all-reduce: it is collective). */
static void shm_grow(size_t bytes) {
  if (shm_win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(shm_win);
    MPI_Win_free(&shm_win);
  }
  size_t slot = (bytes + 65535) & ~(size_t)65535;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");   /* each part on its own pages */
  char *base = NULL;
  int rc = MPI_Win_allocate_shared((MPI_Aint)(2 * slot), 1, info, shm_comm, &base, &shm_win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) rt_throw(ERR_MEMORY, "cannot allocate the all-reduce's shared window of %zu bytes", 2 * slot);
  int me = 0, du = 1;
  MPI_Aint sz = 0;
  MPI_Comm_rank(shm_comm, &me);
  MPI_Win_shared_query(shm_win, 1 - me, &sz, &du, &shm_peer);
  shm_mine = base;
  shm_slot = slot;
  shm_uses = 0;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, shm_win);   /* a passive epoch for good: MPI_Win_sync needs one */
}

/* Copies the elements [lo, hi) of the fused buffer that in[0..n) make, end to end, to the same offsets of dst. */
static void shm_pack(char *dst, int n, Tensor *const *in, size_t es, tfs_i64 lo, tfs_i64 hi) {
  tfs_i64 off = 0;
  for (int i = 0; i < n && off < hi; off += in[i]->size, i++) {
    tfs_i64 a = lo > off ? lo : off, b = hi < off + in[i]->size ? hi : off + in[i]->size;
    if (a >= b) continue;
    Tensor *c = tensor_contiguous(in[i]);
    memcpy(dst + es * (size_t)a, (char *)tensor_data(c) + es * (size_t)(a - off), es * (size_t)(b - a));
    tensor_release(c);
  }
}

/* o = x + y, element by element (vectorized: -O3 here, as the kernels' loops). */
#pragma GCC push_options
#pragma GCC optimize("O3")
#define ADD2(NAME, T, U)                                                                                              \
  static void NAME(void *o_, const void *x_, const void *y_, tfs_i64 n) {                                              \
    T *restrict o = o_;                                                                                                \
    const T *restrict x = x_, *restrict y = y_;                                                                        \
    for (tfs_i64 i = 0; i < n; i++) o[i] = (T)((U)x[i] + (U)y[i]);                                                     \
  }
ADD2(add_f32, float, float)
ADD2(add_f64, double, double)
ADD2(add_i32, int32_t, uint32_t)   /* wrapping, as MPI_SUM's */
ADD2(add_i64, int64_t, uint64_t)
#pragma GCC pop_options

static MPI_Op mpi_op(DistOp op);

/* out = rank 0's x (op) rank 1's y, n values of dt. */
static void reduce2(void *out, const void *x, const void *y, tfs_i64 n, DType dt, DistOp op) {
  if (op == DIST_SUM || op == DIST_MEAN) {
    (dt == DT_FLOAT32 ? add_f32 : dt == DT_FLOAT64 ? add_f64 : dt == DT_INT32 ? add_i32 : add_i64)(out, x, y, n);
    if (op == DIST_MEAN) dist_mean_in_place(out, n, dt);
  } else {   /* MPI_Reduce_local: inout = in (op) inout */
    memcpy(out, y, (size_t)dtype_info[dt].size * (size_t)n);
    MPI_Reduce_local(x, out, (int)n, dist_mpi_type(dt), mpi_op(op));
  }
}

/* The second meeting of a split all-reduce: both ranks' halves of the sums are written (no header to check: the first
 * meeting did). */
static void shm_sync(const Hdr *h) {
  if (dist_meet_on()) {
    Hdr peer;
    dist_meet_exchange(h, &peer);
    return;
  }
  MPI_Request req;
  MPI_Ibarrier(shm_comm, &req);
  dist_wait(&req, 1, h, DIST_WAIT_DATA);
}

/* out[i] = in[i] reduced over the 2 ranks through the shared window, after h's exchange; `total` elements of dt in
 * all.  The outputs are new tensors.  The fused buffer is split in two halves, rank 0 reducing the first and rank 1
 * the second: a rank copies into its slot only the half its partner reduces, reduces its own half from its tensors
 * and the partner's slot into its outputs and into its slot, and after a second meeting copies the partner's half of
 * the results from the partner's slot.  Against both ranks reducing everything (one meeting) each rank copies in half
 * as much and reads half as much; the data crossing between the cores is the same 1 x the buffer (the partner's half
 * of the inputs, then of the results).  Every result element is reduced once, rank 0's value (op) rank 1's, so the
 * ranks hold the same bits. */
static void shm_reduce(int n, Tensor *const *in, Tensor **out, tfs_i64 total, DType dt, DistOp op, Hdr *h) {
  size_t es = (size_t)dtype_info[dt].size, bytes = es * (size_t)total;
  bool fits = shm_win != MPI_WIN_NULL && bytes <= shm_slot;   /* the same on both ranks when their headers match */
  tfs_i64 half = total / 2, lo = dist_rank_ ? half : 0, hi = dist_rank_ ? total : half;   /* this rank's half */
  tfs_i64 plo = dist_rank_ ? 0 : half, phi = dist_rank_ ? half : total;                  /* the partner's */
  double t0 = dist_now(), tp = 0;
  char *mine = shm_mine + (shm_uses & 1) * shm_slot;
  if (fits) {
    shm_pack(mine, n, in, es, plo, phi);
    tp = dist_now() - t0;
    MPI_Win_sync(shm_win);
  }
  int mark;
  Hdr *all = dist_begin(h, &mark);
  if (!fits) {   /* the first all-reduce this large: a larger window, then a meeting once both parts are written */
    shm_grow(bytes);
    mine = shm_mine;
    double t1 = dist_now();
    shm_pack(mine, n, in, es, plo, phi);
    tp = dist_now() - t1;
    MPI_Win_sync(shm_win);
    MPI_Request req;
    MPI_Ibarrier(shm_comm, &req);
    dist_wait(&req, 1, h, DIST_WAIT_DATA);
  }
  MPI_Win_sync(shm_win);
  double t2 = dist_now();
  const char *peer = shm_peer + (mine - shm_mine);
  tfs_i64 off = 0;
  for (int i = 0; i < n; off += in[i]->size, i++) {
    out[i] = tensor_new(dt, in[i]->rank, in[i]->shape);
    rt_hold_val(val_obj(out[i]));   /* freed if the second meeting raises (TFS_COLLECTIVE_TIMEOUT) */
    tfs_i64 a = lo > off ? lo : off, b = hi < off + in[i]->size ? hi : off + in[i]->size;
    if (a >= b) continue;
    Tensor *c = tensor_contiguous(in[i]);
    const char *own = (char *)tensor_data(c) + es * (size_t)(a - off), *other = peer + es * (size_t)a;
    char *o = (char *)tensor_data(out[i]) + es * (size_t)(a - off);
    reduce2(o, dist_rank_ ? other : own, dist_rank_ ? own : other, b - a, dt, op);
    memcpy(mine + es * (size_t)a, o, es * (size_t)(b - a));   /* one pass storing to both costs more: glibc's copy
                                                                  writes whole lines without reading them first */
    tensor_release(c);
  }
  MPI_Win_sync(shm_win);
  shm_sync(h);
  MPI_Win_sync(shm_win);
  off = 0;
  for (int i = 0; i < n; off += in[i]->size, i++) {
    tfs_i64 a = plo > off ? plo : off, b = phi < off + in[i]->size ? phi : off + in[i]->size;
    if (a < b)
      memcpy((char *)tensor_data(out[i]) + es * (size_t)(a - off), peer + es * (size_t)a, es * (size_t)(b - a));
  }
  shm_uses++;
  if (stats_on) stat_shm_n++, stat_shm_pack += tp, stat_shm_sum += dist_now() - t2;
  rt_unhold(mark);
  free(all);
}

/* The exchange, then the data: the header array is held across both (freed on an error too).  Data of at most
 * DIST_HDR_DATA bytes travels in the header, saving the step a second meeting of the ranks (strategy.reduce of a
 * loss, metrics); every rank then reduces the ranks' values along libnbc's binomial tree, (v0+v1)+(v2+v3), so the
 * bits are those of MPI_Iallreduce. */
static void reduce_buf(void *p, tfs_i64 n, DType dt, DistOp op, Hdr *h) {
  size_t bytes = (size_t)dtype_info[dt].size * (size_t)n;
  bool inline_data = bytes <= sizeof h->data;
  if (inline_data) memcpy(h->data, p, bytes);
  int mark;
  Hdr *all = dist_begin(h, &mark);
  if (inline_data) {
    for (int s = 1; s < dist_size_; s *= 2)
      for (int i = 0; i + s < dist_size_; i += 2 * s)
        MPI_Reduce_local(all[i + s].data, all[i].data, (int)n, dist_mpi_type(dt), mpi_op(op));
    memcpy(p, all[0].data, bytes);
  } else {
    DistAR a;
    dist_ar_start(&a, p, n, dt, mpi_op(op));
    rt_hold_mem(a.tmp);   /* freed by an error; dist_ar_wait frees it */
    dist_ar_wait(&a, h, DIST_WAIT_DATA);
  }
  if (op == DIST_MEAN) dist_mean_in_place(p, n, dt);
  rt_unhold(mark);
  free(all);
}

/* Whether the shared window takes an all-reduce of `bytes` (the header carries up to DIST_HDR_DATA itself). */
static bool shm_takes(size_t bytes) { return shm_comm != MPI_COMM_NULL && bytes > DIST_HDR_DATA; }
#endif

Tensor *dist_all_reduce(const Tensor *t, DistOp op) {
#ifdef TFS_HAVE_MPI
  if (dist_joined && shm_takes((size_t)dtype_info[t->dtype].size * (size_t)t->size)) {
    Hdr h = dist_hdr(K_ALL_REDUCE, t, op, 0);
    Tensor *r;
    shm_reduce(1, (Tensor *const *)&t, &r, t->size, t->dtype, op, &h);
    return r;
  }
#endif
  Tensor *r = tensor_copy((Tensor *)t);
#ifdef TFS_HAVE_MPI
  if (dist_joined) {
    int mark = rt_hold_val(val_obj(r));
    Hdr h = dist_hdr(K_ALL_REDUCE, t, op, 0);
    reduce_buf(tensor_data(r), r->size, r->dtype, op, &h);
    rt_unhold(mark);
  }
#endif
  (void)op;
  return r;
}

void dist_all_reduce_n(int n, Tensor *const *in, Tensor **out, DistOp op) {
  tfs_i64 total = 0;
  for (int i = 0; i < n; i++) {
    if (in[i]->dtype != in[0]->dtype)
      rt_throw(ERR_TYPE, "a fused all-reduce takes tensors of one dtype: %s and %s", dtype_info[in[0]->dtype].name,
               dtype_info[in[i]->dtype].name);
    total += in[i]->size;
  }
  for (int i = 0; i < n; i++) out[i] = NULL;
  if (n == 0) return;
#ifdef TFS_HAVE_MPI
  if (dist_joined) {
    DType dt = in[0]->dtype;
    size_t es = (size_t)dtype_info[dt].size;
    dist_mpi_type(dt);
    Hdr h = dist_hdr(K_ALL_REDUCE, NULL, op, 0);
    h.dtype = dt;
    h.nd = 1;
    h.shape[0] = total;
    uint64_t hash = 1469598103934665603ull;   /* FNV-1a of every shape */
    for (int i = 0; i < n; i++)
      for (int d = 0; d <= in[i]->rank; d++) {
        hash ^= (uint64_t)(d < in[i]->rank ? in[i]->shape[d] : -1);
        hash *= 1099511628211ull;
      }
    h.shapes_hash = hash;
    if (shm_takes(es * (size_t)total)) {
      shm_reduce(n, in, out, total, dt, op, &h);
      return;
    }
    char *buf = malloc(es * (size_t)(total ? total : 1));
    if (!buf) rt_throw(ERR_MEMORY, "out of memory");
    int mark = rt_hold_mem(buf);
    tfs_i64 off = 0;
    for (int i = 0; i < n; i++) {
      Tensor *c = tensor_contiguous(in[i]);
      memcpy(buf + off * es, tensor_data(c), es * (size_t)c->size);
      off += c->size;
      tensor_release(c);
    }
    reduce_buf(buf, total, dt, op, &h);
    off = 0;
    for (int i = 0; i < n; i++) {
      out[i] = tensor_new(dt, in[i]->rank, in[i]->shape);
      memcpy(tensor_data(out[i]), buf + off * es, es * (size_t)in[i]->size);
      off += in[i]->size;
    }
    rt_unhold(mark);
    free(buf);
    return;
  }
#endif
  (void)op;
  for (int i = 0; i < n; i++) out[i] = tensor_copy(in[i]);
}

Tensor *dist_all_gather(const Tensor *t, int axis) {
  if (axis < 0 || axis >= (t->rank ? t->rank : 1) || t->rank == 0)
    rt_throw(ERR_INVALID_ARGUMENT, "all_gather: axis %d is out of range for a tensor of rank %d", axis, t->rank);
#ifdef TFS_HAVE_MPI
  if (dist_joined) {
    Tensor *c = tensor_contiguous((Tensor *)t);
    int mark = rt_hold_val(val_obj(c));
    Hdr h = dist_hdr(K_ALL_GATHER, t, 0, axis);
    Hdr *all = dist_begin(&h, NULL);   /* released with mark */
    size_t es = (size_t)dtype_info[t->dtype].size;
    tfs_i64 outer = 1, inner = 1, total = 0;
    for (int i = 0; i < axis; i++) outer *= t->shape[i];
    for (int i = axis + 1; i < t->rank; i++) inner *= t->shape[i];
    int *counts = malloc(sizeof(int) * 2 * (size_t)dist_size_);
    if (!counts) rt_throw(ERR_MEMORY, "out of memory");
    rt_hold_mem(counts);
    int *displs = counts + dist_size_;
    tfs_i64 off = 0;
    for (int r = 0; r < dist_size_; r++) {
      total += all[r].shape[axis];
      counts[r] = (int)((tfs_i64)es * outer * all[r].shape[axis] * inner);
      displs[r] = (int)off;
      off += counts[r];
    }
    char *flat = malloc((size_t)off + 1);
    if (!flat) rt_throw(ERR_MEMORY, "out of memory");
    rt_hold_mem(flat);
    MPI_Request req;
    if (MPI_Iallgatherv(tensor_data(c), counts[dist_rank_], MPI_BYTE, flat, counts, displs, MPI_BYTE, MPI_COMM_WORLD,
                        &req) != MPI_SUCCESS)
      rt_throw(ERR_INTERNAL, "MPI_Iallgatherv failed");
    dist_wait(&req, 1, &h, DIST_WAIT_DATA);
    tfs_i64 shape[TFS_MAX_RANK];
    memcpy(shape, t->shape, sizeof shape);
    shape[axis] = total;
    Tensor *o = tensor_new(t->dtype, t->rank, shape);
    char *dst = tensor_data(o);
    /* rank r's block of each outer row goes after the blocks of ranks < r */
    tfs_i64 rowbytes = (tfs_i64)es * total * inner, col = 0;
    for (int r = 0; r < dist_size_; r++) {
      tfs_i64 w = (tfs_i64)es * all[r].shape[axis] * inner;
      for (tfs_i64 i = 0; i < outer; i++) memcpy(dst + i * rowbytes + col, flat + displs[r] + i * w, (size_t)w);
      col += w;
    }
    rt_unhold(mark);
    free(flat);
    free(counts);
    free(all);
    tensor_release(c);
    return o;
  }
#endif
  return tensor_copy((Tensor *)t);
}

Tensor *dist_broadcast(const Tensor *t, int root) {
  if (root < 0 || root >= dist_size_)
    rt_throw(ERR_INVALID_ARGUMENT, "broadcast: root rank %d is out of range for %d ranks", root, dist_size_);
  Tensor *r = tensor_copy((Tensor *)t);
#ifdef TFS_HAVE_MPI
  if (dist_joined) {
    int mark = rt_hold_val(val_obj(r));
    Hdr h = dist_hdr(K_BROADCAST, t, 0, root);
    Hdr *all = dist_begin(&h, NULL);   /* released with mark */
    MPI_Request req;
    if (MPI_Ibcast(tensor_data(r), (int)r->size, dist_mpi_type(r->dtype), root, MPI_COMM_WORLD, &req) != MPI_SUCCESS)
      rt_throw(ERR_INTERNAL, "MPI_Ibcast failed");
    dist_wait(&req, 1, &h, DIST_WAIT_DATA);
    rt_unhold(mark);
    free(all);
  }
#endif
  return r;
}

void dist_barrier(void) {
#ifdef TFS_HAVE_MPI
  if (!dist_joined) return;
  Hdr h = dist_hdr(K_BARRIER, NULL, 0, 0);
  int mark;
  Hdr *all = dist_begin(&h, &mark);
  rt_unhold(mark);
  free(all);
#endif
}

void dist_finish(void) {
#ifdef TFS_HAVE_MPI
  if (!dist_joined || dist_done) return;
  dist_done = true;
  rt_flush();
  fflush(stdout);
  Hdr *all = hdrs_alloc();
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    dist_groups_drain(0);   /* gradient all-reduces no optimizer waited for */
    Hdr h = dist_hdr(K_END, NULL, 0, 0);
    dist_exchange(&h, all);   /* every rank ended: leave together */
    rt_try_pop(&t);
  } else {
    rt_report_caught(&t);
    free(all);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(all);
  if (stats_on) stats_print();
  if (shm_win != MPI_WIN_NULL) {   /* collective: every rank is here */
    MPI_Win_unlock_all(shm_win);
    MPI_Win_free(&shm_win);
  }
  dist_meet_free();
  if (shm_comm != MPI_COMM_NULL) MPI_Comm_free(&shm_comm);
  MPI_Finalize();
#endif
}
