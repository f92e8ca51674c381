/* overlap.c — gradient groups: a replica's gradients all-reduced bucket by bucket while the backward pass runs, waited for by the optimizer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "dist/dist_mpi.h"
#include "object/object.h"

static int overlap_mode = 1;
static tfs_i64 bucket_bytes = 256 * 1024;

void dist_overlap_init(void) {
  const char *s = getenv("TFS_DIST_OVERLAP");
  if (s && *s) overlap_mode = atoi(s);
  s = getenv("TFS_DIST_BUCKET_KB");
  if (s && atol(s) > 0) bucket_bytes = (tfs_i64)atol(s) * 1024;
}

int dist_overlap(int mode) {
  if (mode >= 0) overlap_mode = mode;
  return overlap_mode;
}

tfs_i64 dist_bucket_bytes(void) { return bucket_bytes; }
void dist_set_bucket_bytes(tfs_i64 n) {
  if (n > 0) bucket_bytes = n;
}

/* One element of a group: where it lies in the buffer and its shape. */
typedef struct GElem {
  tfs_i64 off, size;
  int rank;
  tfs_i64 shape[TFS_MAX_RANK];
} GElem;

typedef struct Group {
  tfs_i64 id;
  DType dt;
  tfs_i64 total, filled;     /* elements */
  int nb, launched;          /* buckets planned, started */
  char *buf;
  GElem *el;
  int n, cap;
#ifdef TFS_HAVE_MPI
  DistAR *ar;                /* one per started bucket; req[] MPI_REQUEST_NULL once complete */
  Hdr h;                     /* for dist_wait's messages */
#endif
} Group;

#ifdef TFS_HAVE_MPI
static bool ar_complete(const DistAR *a) { return a->req[0] == MPI_REQUEST_NULL && a->req[1] == MPI_REQUEST_NULL; }
#endif

static Group **groups;
static int ngroups, capgroups;
static tfs_i64 next_id = 1, nwaited;
int dist_inflight;

tfs_i64 dist_group_mark(void) { return next_id; }
tfs_i64 dist_groups_waited(void) { return nwaited; }

static void group_free(Group *g) {
  if (!g) return;
  free(g->buf);
  free(g->el);
#ifdef TFS_HAVE_MPI
  if (g->ar) {
    for (int b = 0; b < g->launched; b++) dist_ar_free(&g->ar[b]);
    free(g->ar);
  }
#endif
  free(g);
}

static void group_release(void *p) { group_free(p); }

static int group_index(tfs_i64 id) {
  for (int i = 0; i < ngroups; i++)
    if (groups[i]->id == id) return i;
  rt_throw(ERR_INTERNAL, "gradient all-reduce: group %lld is not in progress", (long long)id);
}

static void group_drop(int i) {
  group_free(groups[i]);
  memmove(groups + i, groups + i + 1, sizeof *groups * (size_t)(ngroups - i - 1));
  ngroups--;
}

/* A new group of total elements of dt in nb buckets, registered; the header exchange (joined) comes first, so a
 * mismatch raises before anything is allocated. */
static Group *group_new(DType dt, int nb, tfs_i64 total, uint64_t plan) {
#ifdef TFS_HAVE_MPI
  Hdr h = {0};
  if (dist_joined) {
    h = dist_hdr(K_ALL_REDUCE, NULL, DIST_SUM, 0);
    dist_mpi_type(dt);
    h.dtype = dt;
    h.nd = 1;
    h.shape[0] = total;
    h.shapes_hash = plan;
    h.root = nb;   /* not compared for an all-reduce: the plan's hash covers the buckets */
    int mark;
    Hdr *all = dist_begin(&h, &mark);
    rt_unhold(mark);
    free(all);
  }
#else
  (void)plan;
#endif
  if (ngroups == capgroups) {
    int c = capgroups ? 2 * capgroups : 4;
    Group **ng = realloc(groups, sizeof *groups * (size_t)c);
    if (!ng) rt_throw(ERR_MEMORY, "out of memory");
    groups = ng, capgroups = c;
  }
  Group *g = calloc(1, sizeof *g);
  int mark = rt_hold_fn(group_release, g);
  if (!g) rt_throw(ERR_MEMORY, "out of memory");
  g->dt = dt;
  g->nb = nb;
  g->total = total;
  g->buf = malloc((size_t)dtype_info[dt].size * (size_t)(total ? total : 1));
#ifdef TFS_HAVE_MPI
  g->ar = calloc((size_t)nb, sizeof(DistAR));
  g->h = h;
  if (!g->ar) rt_throw(ERR_MEMORY, "out of memory");
  for (int b = 0; b < nb; b++) g->ar[b].req[0] = g->ar[b].req[1] = MPI_REQUEST_NULL;
#endif
  if (!g->buf) rt_throw(ERR_MEMORY, "out of memory");
  rt_unhold(mark);
  g->id = next_id++;
  groups[ngroups++] = g;
  return g;
}

tfs_i64 dist_group_start(tfs_i64 id, int bucket, int nbuckets, tfs_i64 total, uint64_t plan, int n, Tensor *const *in) {
  if (n < 1 || nbuckets < 1 || bucket < 0 || bucket >= nbuckets)
    rt_throw(ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
  Group *g = bucket == 0 ? group_new(in[0]->dtype, nbuckets, total, plan) : groups[group_index(id)];
  if (bucket != g->launched || g->nb != nbuckets)
    rt_throw(ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
  size_t es = (size_t)dtype_info[g->dt].size;
  tfs_i64 from = g->filled;
  for (int i = 0; i < n; i++) {
    const Tensor *t = in[i];
    if (t->dtype != g->dt || g->filled + t->size > g->total)
      rt_throw(ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
    if (g->n == g->cap) {
      int c = g->cap ? 2 * g->cap : 8;
      GElem *ne = realloc(g->el, sizeof *ne * (size_t)c);
      if (!ne) rt_throw(ERR_MEMORY, "out of memory");
      g->el = ne, g->cap = c;
    }
    GElem *e = &g->el[g->n++];
    e->off = g->filled;
    e->size = t->size;
    e->rank = t->rank;
    memcpy(e->shape, t->shape, sizeof e->shape);
    Tensor *c = tensor_contiguous((Tensor *)t);
    memcpy(g->buf + (size_t)g->filled * es, tensor_data(c), es * (size_t)t->size);
    tensor_release(c);
    g->filled += t->size;
  }
  if (bucket == nbuckets - 1 && g->filled != g->total)
    rt_throw(ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
#ifdef TFS_HAVE_MPI
  if (dist_joined && g->filled > from) {
    /* the same bits per element for any bucketing (dist_ar_start) */
    dist_ar_start(&g->ar[bucket], g->buf + (size_t)from * es, g->filled - from, g->dt, MPI_SUM);
    dist_inflight++;
  }
#else
  (void)from;
#endif
  g->launched++;
  return g->id;
}

/* Buckets of every group still in flight (as far as the last test knew). */
static void recount(void) {
  int left = 0;
#ifdef TFS_HAVE_MPI
  for (int i = 0; i < ngroups; i++)
    for (int b = 0; b < groups[i]->launched; b++) left += !ar_complete(&groups[i]->ar[b]);
#endif
  dist_inflight = left;
}

/* Wait for every started bucket of g. */
static void group_wait(Group *g) {
#ifdef TFS_HAVE_MPI
  for (int b = 0; b < g->launched; b++)
    if (!ar_complete(&g->ar[b])) dist_ar_wait(&g->ar[b], &g->h, DIST_WAIT_GROUP);
#else
  (void)g;
#endif
}

void dist_group_finish(tfs_i64 id, int n, const int64_t *idx, Tensor **out, DistOp op) {
  int gi = group_index(id);
  Group *g = groups[gi];
  if (g->launched != g->nb)
    rt_throw(ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
  for (int i = 0; i < n; i++)
    if (idx[i] < 0 || idx[i] >= g->n) rt_throw(ERR_INTERNAL, "gradient all-reduce: the buckets do not follow the plan every rank agreed on");
  group_wait(g);
  size_t es = (size_t)dtype_info[g->dt].size;
  for (int i = 0; i < n; i++) out[i] = NULL;
  for (int i = 0; i < n; i++) {
    const GElem *e = &g->el[idx[i]];
    out[i] = tensor_new(g->dt, e->rank, e->shape);
    memcpy(tensor_data(out[i]), g->buf + (size_t)e->off * es, es * (size_t)e->size);
#ifdef TFS_HAVE_MPI
    if (op == DIST_MEAN && dist_joined) dist_mean_in_place(tensor_data(out[i]), e->size, g->dt);
#endif
  }
  (void)op;
  group_drop(group_index(id));
  recount();
  nwaited++;
}

void dist_progress(void) {
#ifdef TFS_HAVE_MPI
  double t0 = dist_now();
  for (int i = 0; i < ngroups; i++) {
    Group *g = groups[i];
    for (int b = 0; b < g->launched; b++)
      if (!ar_complete(&g->ar[b])) {
        dist_progress_n++;
        if (!dist_ar_test(&g->ar[b])) break;   /* one test moves every request; the later buckets are behind this one */
      }
  }
  if (t0 > 0) dist_progress_s += dist_now() - t0;
  recount();
#endif
}

void dist_groups_drain(tfs_i64 from) {
  for (int i = ngroups - 1; i >= 0; i--)
    if (groups[i]->id >= from) {
      group_wait(groups[i]);
      group_drop(i);
    }
  recount();
}
