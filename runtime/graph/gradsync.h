/* gradsync.h — the tape's side of overlapping the gradients' all-reduce with the backward pass: which gradients, in which buckets, started when (docs/distributed.md).
 *
 * GradientTape.gradient in replica context (a strategy's run or Keras step, N > 1) plans, before its reverse
 * sweep, the Variables whose gradients it will produce, in the order the sweep finishes them (the reverse of their
 * first reads: last layers first), cut into buckets of dist_bucket_bytes().  As the sweep passes a bucket's last
 * first read, it stages _CollectiveGradStart on that bucket (eagerly: runs it; traced: records it in the graph, so
 * the executor starts it at that point of the backward pass).  The gradients are then registered; an all-reduce
 * (SUM or MEAN) of some of them in the same context, as optimizers and replica contexts do, becomes a
 * _CollectiveGradWait on their group instead of a new collective. */
#ifndef TFS_GRADSYNC_H
#define TFS_GRADSYNC_H

#include <stdint.h>

#include "graph/tape.h"

typedef struct GradSync GradSync;

/* The plan for one sweep of t (sources and their tape keys; reach: the keys downstream of the sources), or NULL
 * when overlap does not apply.  Owned by the caller: gradsync_free. */
GradSync *gradsync_plan(const Tape *t, int ntarget, const uintptr_t *tkeys, int nsrc, const Val *sources, const uintptr_t *skeys,
                        const PtrMap *reach);
/* After the sweep has handled (or skipped) entry i: the gradients that are final now, and their buckets. */
void gradsync_step(GradSync *s, int i, const PtrMap *grads);
/* After the sweep: the remaining buckets, then the group is registered for gradsync_take. */
void gradsync_end(GradSync *s, const PtrMap *grads);
void gradsync_free(GradSync *s);

/* An all-reduce (op DIST_SUM or DIST_MEAN) of in[0..n-1]: when they all belong to one registered group of this
 * context, *out = the list of their reduced values (the wait staged) and true; else false. */
bool gradsync_take(int n, const Val *in, int op, Val *out);
/* Forget the registered groups (the replica context ends). */
void gradsync_clear(void);

#endif
