/* tape.h — gradient tapes: op applications on watched values are recorded at op dispatch; reverse-mode gradients.
 *
 * A tensor is identified by an id given on first use (an entry keeps only what
 * its op's gradient reads, so a tensor's address may be reused), a Variable by
 * itself (tapes hold them).  Gradients are computed by the per-op gradient functions of
 * grad.c, written with op_apply; while a tf.function is traced those calls are
 * recorded into the graph, so the backward pass lands in the same graph as the
 * forward pass (TF's design). */
#ifndef TFS_TAPE_H
#define TFS_TAPE_H

#include "kernels/ops.h"

/* Open-addressing map from object identity to a value (VT_UNDEF: member only); the reverse sweep's
 * bookkeeping.  Recording an op uses none: see Tensor.tape_bits. */
typedef struct PtrMap {
  Obj **k;
  Val *v;
  int cap, n;
} PtrMap;
int ptrmap_find(const PtrMap *m, const void *k);          /* slot index or -1 */
void ptrmap_put(PtrMap *m, const void *k, Val v);         /* adopts v (replaces and releases an old value) */
void ptrmap_free(PtrMap *m);

/* What an entry holds (eagerly, TF's tape does the same): only what the op's gradient reads,
 * per grad_drops_of.  An output the gradient does not read is held weakly (E_OUT_WEAK: out[0]
 * is VT_UNDEF with u.o the tensor, or NULL once freed; the tensor's tape_loose points there). */
enum { E_OUT_WEAK = 1, E_IN_SHAPE = 2, E_IN_NONE = 4 };

/* An input's shape and dtype, kept instead of the input when the gradient reads only those. */
typedef struct TapeShape {
  DType dtype;
  int rank;                   /* -2: not a tensor, in[i] holds the value (None) */
  tfs_i64 shape[TFS_MAX_RANK];
} TapeShape;

/* 32 bytes: the rest lies in one block after in, where the accessors below find it (recording stores
 * no pointer but in). */
typedef struct TapeEntry {
  const OpDef *op;            /* NULL: a custom gradient, attr[0] the function */
  int nin, nout, nattr;
  unsigned keep;              /* E_* */
  Val *in;                    /* input values (Variables: the value read); VT_UNDEF when not kept */
} TapeEntry;
/* outputs (tensors), the op's attributes (owned copies), the identity of each input then of each output
 * (0: not a tensor; see tape.c), with E_IN_SHAPE the inputs' shapes */
static inline Val *tape_entry_out(const TapeEntry *e) { return e->in + e->nin; }
static inline Val *tape_entry_attr(const TapeEntry *e) { return e->in + e->nin + e->nout; }
static inline uintptr_t *tape_entry_key(const TapeEntry *e) { return (uintptr_t *)(e->in + e->nin + e->nout + e->nattr); }
static inline TapeShape *tape_entry_shp(const TapeEntry *e) { return (TapeShape *)(tape_entry_key(e) + e->nin + e->nout); }

typedef struct Tape {
  Obj hdr;
  bool persistent, watch_vars;
  bool active;                /* inside its `with` block */
  bool used;                  /* a non-persistent tape computed its gradients */
  bool busy;                  /* computing gradients: its own backward ops are not recorded on it */
  bool sync;                  /* the next tape_gradient is GradientTape.gradient's: in replica context it starts the
                               * all-reduce of the Variables' gradients during the sweep (gradsync.h); then cleared */
  int paused;                 /* stop_recording depth */
  int regions;                /* open control-flow regions: entries recorded now will be replaced */
  TapeEntry *e;
  int n, cap;
  /* The values whose gradients this tape can compute: the entries' float outputs, and watched holds
   * the others (watched tensors, Variables; owned, in the order first seen).  While the tape is inside
   * its `with` block it holds slot `bit`, set in each such value's tape_bits, so recording an op tests
   * a bit instead of looking its inputs up; outside, membership uses `tracked`, built on demand. */
  tfs_u64 bit;
  Val *watched;
  int nwatched, capwatched;
  PtrMap tracked;
  bool tracked_ok;            /* tracked covers the entries and watched */
  struct TapeChunk *chunks;   /* storage of the entries' value blocks (and of watched) */
  Val cm;                     /* custom-gradient functions kept alive by entries (list) */
} Tape;

extern Type tape_type;            /* repr and methods: set by stdlib/function/gradtape.c at start-up */
void tape_free(Obj *o);

/* Number of tapes inside their `with` block: op_apply checks it before calling tape_record. */
int tape_nactive_count(void);
Tape *tape_active_at(int i);                    /* i < op_tape_nactive */

Val tape_new(bool persistent, bool watch_vars);
void tape_push(Tape *t);                        /* __enter__ */
void tape_pop(Tape *t);                         /* __exit__ */
void tape_watch(Tape *t, Val v);                /* a tensor, Variable, or a structure of them */
void tape_watch_user(Tape *t, Val v);           /* tape.watch: also TF's warning for a non-float tensor */

/* Record one op application (inputs as given to op_apply, result as returned). */
void tape_record(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs, Val result);

/* Record an application of a user gradient function (tf.custom_gradient):
 * grad_fn(*dys) returns the input gradients. */
void tape_record_custom(int nin, const Val *inputs, Val result, Val grad_fn);

/* ---- graph control flow ------------------------------------------------------
 * Ops traced inside a cond or loop body are recorded with tensors of the body
 * graph, which the backward pass (built in the outer graph) cannot use.  The
 * control-flow builder brackets the body tracing with tape_region_begin/_end:
 * _end drops the body's entries and reports, per tape, the outer values they
 * read (the region's inputs for the gradient). */
typedef struct TapeRegion {
  int n;
  Tape *t[8];
  int mark[8];
} TapeRegion;
void tape_region_begin(TapeRegion *r);
/* Drops the entries recorded since begin on tape r->t[i]; returns in *ext an
 * owned tuple of the outer tracked values they read (empty: none). */
void tape_region_end(TapeRegion *r, int i, Val *ext);
/* Record on tape t one entry: ext -> outs (flat tuple), gradient by grad_fn(*dys). */
void tape_record_on(Tape *t, Val ext, Val outs, Val grad_fn);

/* Whether v's identity is tracked by t (its gradient can be asked for). */
bool tape_tracks(Tape *t, Val v);
/* Counters for tests: identity-map probes (ptrmap_find/ptrmap_put) and allocator calls made by tapes
 * (entry arrays, value chunks) so far.  Recording on a tape whose pools are warm adds to neither. */
void tape_stats(tfs_i64 *map_probes, tfs_i64 *allocs);
/* References to tensors and Variables that tape entries have taken so far (tests: a recorded eager
 * Add takes none, a Mul its two inputs). */
tfs_i64 tape_retained(void);
/* Entries recorded so far by the straight-line path (eager tensors in, one float tensor out): tests check
 * that the frequent ops take it. */
tfs_i64 tape_fast_entries(void);
/* Bytes t's entries take: the entries themselves and the blocks they (and watched) drew from its chunks. */
size_t tape_bytes(const Tape *t);
/* Whether some recording tape is outside every control-flow region: an entry
 * recorded now stays on it (a loop then keeps its per-iteration state). */
bool tape_outermost_recording(void);
/* Whether some tape records now, and whether it would record an application
 * with these inputs (a tf.function call builds its gradient only then). */
bool tape_any_recording(void);
bool tape_would_record(int nin, const Val *in);
/* op_tape_var_accessed (ops.h): TF's variable_accessed for a read no op performs (v.assign()'s result). */
void tape_variable_accessed(Val var);

/* Stacks of a differentiated loop's per-iteration state (k_grad.c): the
 * _StackGet meta is m; accstack_clear_all releases what is left in every
 * stack when the outermost graph run ends (exec.c). */
Val accstack_new(const TMeta *m);
void accstack_clear_all(void);
/* Live stacks, values they hold now, and the most they held since the last call (tests count with it). */
void accstack_stats(tfs_i64 *stacks, tfs_i64 *held, tfs_i64 *peak);

/* stdlib/function/gradtape.c: close a region around a traced cond (rerun_true/false:
 * callables giving each branch's result again); result: the cond's outputs;
 * rng: the random-draw counters before the cond (_RngState), put back while
 * a branch runs again for the gradient. */
void gradtape_region_end(TapeRegion *r, Val pred, Val rerun_true, Val rerun_false, Val result, Val rng);
/* stdlib/function/gradtape.c: fn(*args) with tape t recording and side effects not
 * staged again (trace_quiet): a body run again for its gradient. */
Val gradtape_rerun(Tape *t, Val fn, int n, const Val *args);
/* The same; bound: args are already bound to a compiled function's parameters (func_call_bound). */
Val gradtape_rerun_ex(Tape *t, Val fn, int n, const Val *args, bool bound);

/* stdlib/function/loopgrad.c: close a region around a traced while loop.  ins: the
 * initial leaves (None: not a tensor), outs: the final leaves (tuples);
 * rerun(index, leaves) runs the body again; stacks: the leaves' per-iteration
 * stacks, base: their size before the loop, count: its iteration count (rerun
 * None: not differentiable here, the entry only marks what the loop read for
 * an enclosing region). */
void loopgrad_region_end(TapeRegion *r, Val ins, Val outs, Val rerun, Val stacks, Val base, Val count);
/* stdlib/function/graphgrad.c: registers tf.gradients (called by gradtape's start-up). */
void graphgrad_init(void);

/* Gradients of the sum of targets[] with respect to sources[] (identities);
 * out[i] receives an owned gradient or VT_NONE.  out_grads (may be NULL)
 * seeds each target; zeros: unconnected sources give zeros instead of None. */
void tape_gradient(Tape *t, int ntarget, const Val *targets, const Val *out_grads, int nsrc, const Val *sources,
                   bool zeros, Val *out);

/* ---- per-op gradient functions (grad.c) ------------------------------------
 * A gradient function reads the forward inputs, outputs and attributes and the
 * incoming gradient of each output (dy[k] VT_UNDEF when none flows into it; the
 * caller fills those with zeros when the op has several outputs) and sets
 * dx[i] to the gradient of input i (owned) or leaves it VT_UNDEF. */
typedef struct GradCall {
  const OpDef *op;
  int nin, nout;
  const Val *in, *out, *dy;
  const OpAttrs *attrs;
} GradCall;
typedef void (*GradFn)(const GradCall *g, Val *dx);
/* a + b for two gradients of one value (lists of gradients add element by element). */
Val tape_add_grads(Val a, Val b);
/* NULL: no gradient defined (an error when one is needed); grad_none: zero/None gradient. */
GradFn grad_fn_of(OpId id);
/* What op id's gradient does not read, beside it in grad.c's table: G_NO_OUT its outputs,
 * G_IN_SHAPE its inputs beyond their shapes and dtypes, G_NO_IN its inputs at all; G_DY_UNDEF: it takes
 * VT_UNDEF for an output no gradient reaches (no zeros are made for it: the fused recurrent ops' saved
 * activations are megabytes that only their gradient reads). */
enum { G_NO_OUT = 1, G_IN_SHAPE = 2, G_NO_IN = 4, G_DY_UNDEF = 8 };
unsigned grad_drops_of(OpId id);
void grad_none(const GradCall *g, Val *dx);
/* Call fn, releasing the temporaries it made. */
void grad_run(GradFn fn, const GradCall *g, Val *dx);

#endif
