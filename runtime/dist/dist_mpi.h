/* dist_mpi.h — what dist.c shares with overlap.c inside runtime/dist: the job's state, the header every collective exchanges, waiting on a request. */
#ifndef TFS_DIST_MPI_H
#define TFS_DIST_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include "tensor/tensor.h"

extern int dist_rank_, dist_size_;
extern bool dist_joined;           /* the job is joined (MPI initialized, N > 1) */

/* Reads TFS_DIST_OVERLAP and TFS_DIST_BUCKET_KB (overlap.c); from dist_init. */
void dist_overlap_init(void);

#ifdef TFS_HAVE_MPI
#include <mpi.h>

enum { DIST_HDR_DATA = 64 };   /* bytes of an all-reduce's data the header carries */
enum { K_ALL_REDUCE = 1, K_ALL_GATHER, K_BROADCAST, K_BARRIER, K_END };

/* What every rank states before a collective moves data. */
typedef struct Hdr {
  int32_t kind, seq, dtype, rank, nd, op, root, loc;
  int64_t shape[TFS_MAX_RANK];
  uint64_t shapes_hash;             /* fused all-reduce: the list of shapes */
  char data[DIST_HDR_DATA];         /* a small all-reduce's values (dist.c's reduce_buf) */
} Hdr;

/* A header for the next collective instance (t: its dtype and shape; NULL: filled by the caller). */
Hdr dist_hdr(int kind, const Tensor *t, int op, int root);
/* Exchange h with every rank; raises on every rank when they do not match.  Returns the ranks'
 * headers, held (mark in *mark when not NULL): the caller's rt_unhold + free. */
Hdr *dist_begin(Hdr *h, int *mark);
/* What a rank waits for (TFS_DIST_STATS's lines). */
enum { DIST_WAIT_HEADER, DIST_WAIT_DATA, DIST_WAIT_GROUP, DIST_WAIT_SLOTS };
/* Wait for nreq requests (progress, the 60 s warning, TFS_COLLECTIVE_TIMEOUT) on behalf of h's collective; slot: what
 * for. */
void dist_wait(MPI_Request *req, int nreq, const Hdr *h, int slot);
/* What a wait is made of (meet.c waits without MPI requests): the clock, TFS_DIST_SPIN_US in seconds, a wait's
 * TFS_DIST_STATS record, and its checks after `waited` seconds (the 60 s warning; raises at TFS_COLLECTIVE_TIMEOUT). */
double dist_wait_clock(void);
double dist_wait_spin(void);
void dist_wait_stat(int slot, double t, bool slept);
void dist_wait_tick(const Hdr *h, double waited, bool *warned);
/* 2 ranks on one host: the header exchange through two mailboxes in a shared window (meet.c).  init is collective over
 * the host's communicator (from dist_init), free too (from dist_finish); on: the mailboxes exist. */
void dist_meet_init(MPI_Comm shm);
void dist_meet_free(void);
bool dist_meet_on(void);
void dist_meet_exchange(const Hdr *mine, Hdr *peer);
/* An in-place all-reduce in flight: with 2 ranks a swap of the buffers and a local reduction (the cost of
 * MPI_Allreduce), else MPI_Iallreduce (dist.c). */
typedef struct DistAR {
  MPI_Request req[2];
  void *p, *tmp;             /* the buffer; the partner's copy (2 ranks) */
  int n;
  MPI_Datatype type;
  MPI_Op op;
} DistAR;
void dist_ar_start(DistAR *a, void *p, tfs_i64 n, DType dt, MPI_Op op);
bool dist_ar_test(DistAR *a);                               /* complete (and reduced)? */
void dist_ar_wait(DistAR *a, const Hdr *h, int slot);       /* as dist_wait, then reduced */
void dist_ar_free(DistAR *a);                               /* the scratch of one never completed */
/* TFS_DIST_STATS: the clock when stats are on (else 0), and dist_progress's MPI_Test calls and time. */
double dist_now(void);
extern double dist_progress_s;
extern long dist_progress_n;
MPI_Datatype dist_mpi_type(DType dt);   /* TypeError for a dtype no collective takes */
void dist_mean_in_place(void *p, tfs_i64 n, DType dt);   /* a sum divided by the number of ranks */
#endif

#endif
