/* parexec.h — one traced graph run on several inputs at once, on worker threads (tf.data's parallel map).
 *
 * What may run off the main thread is decided per graph (parexec_graph_ok): only pure ops of the kernels
 * layer on numbers and strings (no OPF_STATEFUL op, no op bound from stdlib, no Variable, no variant value),
 * so a worker never reaches the host interpreter, a tape, a random state, a file or a resource.  Each lane
 * has its own plan with its own copies of the constants (exec_plan_new_private, new strings too); the inputs are
 * the caller's copies (tensor_copy_own).  A batch runs lane 0's jobs on the calling thread and lane i's on pool thread i, and returns when
 * all are done: the caller runs nothing else meanwhile, so the only objects threads could share are the
 * ones this layer copies.  A session (parexec_async_*, deterministic=False) is the exception: its threads
 * run queued jobs while the caller goes on.  The rules this relies on are in runtime/README.md ("Threads").
 */
#ifndef TFS_PAREXEC_H
#define TFS_PAREXEC_H

#include "graph/graph.h"

/* Whether g (and its cond/while bodies) can run on a worker thread; when not, *why names the first
 * node that keeps it on the main thread (static text or the node's name). */
bool parexec_graph_ok(const Graph *g, const char **why);

typedef struct ParExec ParExec;
/* A runner of `lanes` (2..64) concurrent runs of g (retained); the plans are made now. */
ParExec *parexec_new(Graph *g, int lanes);
void parexec_free(ParExec *x);
int parexec_lanes(const ParExec *x);

/* A failed run: the error as exec_run raised it (msg owned; NULL when the run succeeded). */
typedef struct ParErr { ErrKind kind; char *msg; int loc; } ParErr;

/* Run job i < n <= lanes on args[i] (the graph's inputs, borrowed; not shared with another job), filling
 * outs[i] (the graph's outputs, owned) or errs[i].  Job 0 runs here, the others on the pool's threads. */
void parexec_run(ParExec *x, int n, Tensor **const *args, Tensor **const *outs, ParErr *errs);

/* Run njobs jobs (any number) the same way on min(njobs, lanes) lanes.  order NULL: lane l runs jobs l, l + lanes,
 * ... in turn, so which thread runs which job is fixed; else each lane takes the next job not started when it is
 * free and order[k] receives the k-th job to finish (tf.data's deterministic=False).  Returns when all are done. */
void parexec_run_jobs(ParExec *x, int njobs, Tensor **const *args, Tensor **const *outs, ParErr *errs, int *order);

/* Run fn(ctx, i) for i < n <= 64 the same way: i = 0 here, the others on the pool's threads (tf.data's
 * parallel interleave pulls its inputs so).  fn must catch its own errors and follow the rules above. */
void parexec_run_fn(int n, void (*fn)(void *ctx, int i), void *ctx);

/* A session (tf.data's deterministic=False map): x's lanes run on pool threads in the background while the
 * main thread goes on, each taking the next submitted job as it frees up. Job j runs on args[j] into outs[j] /
 * errs[j] (the caller's arrays of cap slots; a slot is the caller's again once parexec_async_next returned it).
 * start: NULL when the threads are taken (another session) or cannot be made; submit: queue job j (at most cap
 * queued or running); next: the id of a finished job, waiting for one, or -1 when none is queued or running;
 * stop: drop the queued jobs, wait for the running ones, free the session (their slots' outputs stay the
 * caller's). Only the main thread calls these. */
typedef struct ParAsync ParAsync;
ParAsync *parexec_async_start(ParExec *x, int cap, Tensor **const *args, Tensor **const *outs, ParErr *errs);
void parexec_async_submit(ParAsync *as, int j);
int parexec_async_next(ParAsync *as);
void parexec_async_stop(ParAsync *as);

/* Runs done on pool threads since the start (tests: proof that work left the calling thread). */
tfs_i64 parexec_offthread_runs(void);

#endif
