/* exec.h — the graph executor: plans a traced graph once (prune, fold, CSE, order, lifetimes), then runs it.
 *
 * exec_plan_new() turns an immutable Graph into an ExecPlan:
 *   - pruning: only nodes reaching an output or a side effect are kept (TF's
 *     non-strict semantics: an unused failing op never runs);
 *   - constant folding of pure ops whose inputs are constants (an op that
 *     fails to fold is kept, so its error happens at run time, if reached);
 *   - common subexpression elimination of pure ops;
 *   - fusion of MatMul -> bias add (-> Relu) chains into one _FusedMatMul step
 *     (bias and activation applied to each product block while in cache);
 *   - pairs of independent planned products (a Dense layer's dW and dX) run as one
 *     pool job when both split (inter-op parallelism, plan_pairs);
 *   - a flat step list in creation order (a topological order that keeps the
 *     program order of side effects) with one value slot per live tensor and,
 *     per step, the slots whose last use it is (released right after it);
 *   - per step on statically 0-d operands, a scalar kernel from the op table
 *     (no meta, broadcasting or result array; dying operands reused in place);
 *   - per graph while made only of such steps (and nested conds/whiles, and
 *     element reads of captured vectors), a register program over unboxed
 *     scalars: no tensor, allocation or reference count per iteration;
 *   - per elementwise step on static shapes, the row loop of its kernel, its result
 *     buffer planned by liveness (in place over a dying operand, else a slot of a
 *     per-plan arena reused across calls); chains of them fused into one step.
 * exec_run() then costs one op_run (or scalar kernel, or row loop) per step and nothing
 * else per node; cond/while bodies run in reused frames without a setjmp.
 */
#ifndef TFS_EXEC_H
#define TFS_EXEC_H

#include "graph/graph.h"

typedef struct ExecPlan ExecPlan;

ExecPlan *exec_plan_new(Graph *g);                    /* retains g */
void exec_plan_free(ExecPlan *p);
/* A plan whose constants are copies of its own (graph/parexec.c: one per worker thread, so threads share no
 * tensor; plans also keep per-call arenas, so one plan never runs on two threads at once). */
ExecPlan *exec_plan_new_private(Graph *g);
/* Set on a thread of graph/parexec.c's pool: runs skip the tape's accumulator stacks and collectives. */
extern __thread bool exec_on_worker;

/* Run the plan: args[i] is the tensor for graph input i (borrowed); outs[i]
 * receives graph output i (owned).  Errors raised by an op are re-raised at
 * the op's .tfs location with "(node N in tf.function 'f')" appended. */
void exec_run(const ExecPlan *p, Tensor *const *args, Tensor **outs);
/* The graph runs in progress on this thread (a kernel's nested runs count): 1 inside an outermost run. */
int exec_run_depth(void);
/* Called when a run at depth `depth` (its exec_run_depth()) ends, finished or failed, on a thread that is not a
 * worker, before it returns or its error leaves it: what a kernel made for the rest of the run is freed here
 * (tf.data's iterator slots: TF deletes a function's anonymous iterators when its run ends; a loop over a
 * dataset whose next element failed never reaches its release).  It must not raise. */
extern void (*exec_end_hook)(int depth);

/* Plan statistics (tests, dumps). */
/* scalar: steps with a 0-d scalar kernel; loops: while steps compiled to register programs;
 * fused: MatMul + bias add (+ Relu) chains run as one _FusedMatMul step;
 * ew: planned elementwise steps (static shapes: a row loop, result in place or in the arena);
 * ewfused: elementwise steps absorbed into the next one's fused chain; arena: arena slots;
 * mm: 2-D MatMul / _FusedMatMul steps planned to skip op_run (static shapes, transposes known at plan time);
 * update: Assign* steps fed by a fused chain; ewside: single elementwise steps moved into a later chain
 * as its side op (an operand computed block by block beside the chain). */
typedef struct ExecStats { int nodes, steps, pruned, folded, cse, slots, scalar, loops, fused, ew, ewfused, arena, mm, update, ewside; } ExecStats;
/* Matrix products run through a planned step (no op_run), since the start: for tests. */
tfs_i64 exec_mm_count(void);
/* Inter-op parallelism: 1 runs a plan's independent products one after another (tf.config.threading's
 * inter-op count; 0, the default, or more: pairs of them as one pool job when the pool has threads). */
extern int exec_inter_op;
/* Pairs of products run as one pool job, since the start: for tests. */
tfs_i64 exec_pair_count(void);
/* Variable updates (Assign* fed by a planned elementwise chain) run as one fused pass, since the start: for tests. */
tfs_i64 exec_update_count(void);
/* Tests: called with the node of every step a plan runs (fused-in steps too; not the
 * steps of loops compiled to register programs). */
extern void (*exec_step_hook)(const GraphNode *node);
void exec_plan_stats(const ExecPlan *p, ExecStats *st);
/* Whether graph node `id` runs (false: pruned, folded or merged away). */
bool exec_plan_runs(const ExecPlan *p, int id);

#endif
