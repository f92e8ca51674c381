/* dist.h — the MPI job a process belongs to (docs/distributed.md): joining it, the checked collectives, stopping it. */
#ifndef TFS_DIST_H
#define TFS_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "tensor/tensor.h"

/* Join the job when a launcher (mpirun) started this process with N > 1: from
 * rt_start, before the program's first line.  Alone, nothing happens (no
 * MPI_Init).  A tfs built without MPI stops when started with N > 1. */
void dist_init(void);
int dist_rank(void);             /* 0 alone */
/* The rank a launcher (mpirun) gave this process when it started N > 1 of them, read from the
 * environment (no MPI needed, so before dist_init); 0 otherwise.  Compile errors are printed
 * by rank 0 only: every rank compiles the same program and finds the same errors. */
int dist_launch_rank(void);
int dist_size(void);             /* 1 alone */
bool dist_launched(void);        /* started by a launcher with N > 1 (the job is joined) */
/* The normal end of the program: tells ranks still waiting in a collective that this one is done
 * (they raise UnavailableError); this rank then reports and exits 1 if any was waiting. */
void dist_finish(void);

/* Reduce ops, in the order of tf.distribute.ReduceOp / hvd's constants. */
typedef enum DistOp { DIST_SUM, DIST_MEAN, DIST_MIN, DIST_MAX, DIST_PROD } DistOp;

/* The collectives (every rank calls them in the same order, §18.3).  Before data moves the ranks
 * exchange a header (kind, sequence number, dtype, shape, op, root, user line); a mismatch raises
 * on every rank with TF's text.  Inputs float32/float64/int32/int64; results are new tensors. */
Tensor *dist_all_reduce(const Tensor *t, DistOp op);
/* Several tensors of one dtype reduced in one fused buffer; out[i] new tensors of in[i]'s shapes. */
void dist_all_reduce_n(int n, Tensor *const *in, Tensor **out, DistOp op);
Tensor *dist_all_gather(const Tensor *t, int axis);   /* concatenated in rank order along axis */
Tensor *dist_broadcast(const Tensor *t, int root);
void dist_barrier(void);

/* ---- overlapping the gradients' all-reduce with the backward pass (overlap.c, docs/distributed.md) ----
 * In replica context a tape computing the gradients of Variables starts their all-reduce bucket by bucket as the
 * backward pass finishes each bucket's gradients (_CollectiveGradStart), and the optimizer's all-reduce of those
 * gradients waits for them (_CollectiveGradWait).  Every rank starts the same buckets in the same order; one
 * header exchange (at bucket 0) checks the whole plan.  The sums are bitwise those of one fused all-reduce: Open
 * MPI's in-place Iallreduce adds each element in an order that depends on the ranks only, not on the count. */
/* Mode: 0 off (the blocking fused all-reduce; the default at 2 ranks on one host, dist.c), 1 on with N > 1 (the
 * default otherwise; TFS_DIST_OVERLAP=0 turns it off),
 * 2 on even alone (tests: the buckets then reduce nothing).  mode < 0 asks; returns the mode in force. */
int dist_overlap(int mode);
tfs_i64 dist_bucket_bytes(void);          /* the bucket cap: TFS_DIST_BUCKET_KB (default 256) KB */
void dist_set_bucket_bytes(tfs_i64 n);    /* n > 0 */
/* Bucket `bucket` of `nbuckets` of a group of `total` elements whose plan (dtype, shapes, bucket bounds) hashes to
 * `plan`: copies in[] into the group's buffer and starts its all-reduce.  Bucket 0 makes the group (id ignored) and
 * exchanges its header; returns the group's id. */
tfs_i64 dist_group_start(tfs_i64 id, int bucket, int nbuckets, tfs_i64 total, uint64_t plan, int n, Tensor *const *in);
/* Waits for every bucket of group id, then out[i] = the reduced element idx[i] (op DIST_SUM or DIST_MEAN);
 * frees the group. */
void dist_group_finish(tfs_i64 id, int n, const int64_t *idx, Tensor **out, DistOp op);
extern int dist_inflight;                 /* buckets started and not known complete */
void dist_progress(void);                 /* lets MPI move the started buckets (between steps) */
/* Groups made from now on have ids >= the mark; drain waits for and frees those with ids >= from (0: all):
 * the ones no optimizer waited for, at the end of a graph run or of a replica context. */
tfs_i64 dist_group_mark(void);
void dist_groups_drain(tfs_i64 from);
tfs_i64 dist_groups_waited(void);         /* groups an optimizer's all-reduce waited for so far (tests) */

/* Variables created while a strategy's scope is entered are mirrored: they take rank 0's initial
 * value (stdlib's tf.Variable broadcasts it).  depth +1 on entering a scope, -1 on leaving. */
void dist_mirror_scope(int delta);
bool dist_mirroring(void);       /* launched and inside a scope */
bool dist_in_scope(void);        /* inside a strategy's scope, launched or not */
/* Replica context (strategy.run, a Keras step under a strategy): depth +1 on entering, -1 on
 * leaving, 0 to ask; returns the depth.  Optimizers sum gradients across ranks there (§18.4). */
int dist_replica(int delta);
/* Horovod's gradient all-reduce (hvd.DistributedGradientTape.gradient, a hvd.DistributedOptimizer's minimize): depth
 * +1 / -1 / 0 as dist_replica.  A tape's gradients are then all-reduced overlapped with its backward pass as in replica
 * context, without the rest of replica context's meaning (losses, apply_gradients' sum). */
int dist_grad_sync(int delta);

/* With N > 1 only the chief writes checkpoints, SavedModels and Keras weights (§18.7): true on
 * rank 0 or alone. */
bool dist_writes(void);

/* The device name of this rank's replica, as TF prints it. */
const char *dist_device(void);

#endif
