/* ops.h — the op table: one OpDef per op (ops.def), the OpCall record kernels and shape rules see, and op_apply.
 *
 * Every tensor operation, whether reached from `tf.add(...)`, from `a + b`, from
 * `t[1:]` or (later) from a graph node, goes through op_apply() with an OpDef
 * from op_defs[].  An OpDef says:
 *   - graph_name   the TF op name of graph nodes ("AddV2", "MatMul", "Sum");
 *   - api          space-separated names under `tf` ("add math.add");
 *   - sig          the TF keyword signature, parsed by args_parse;
 *   - kinds        one char per parameter (except `name`): an input kind or '.'
 *                  for an attribute (a host value kept as-is):
 *                    T  input of the op's dtype group: all T inputs share one
 *                       dtype; host values convert to it (first by default rules)
 *                    F  like T, but host ints default to float64 (linspace: TF divides ints)
 *                    B  bool tensor          I  int32/int64 tensor (indices)
 *                    A  any dtype, converted alone by default rules
 *                    L  a list/tuple of T inputs (concat, stack, add_n)
 *                       (with OPF_VARIADIC: of A inputs, each its own dtype: StringFormat)
 *                    H  host value or tensor passed through unconverted (print)
 *                    R  a tf.Variable (resource), passed through
 *                  lower case: optional, None means absent (in[i] == NULL);
 *   - dtypes       mask (DTM_*) of dtypes allowed for the T/A inputs;
 *   - meta         the shape/dtype rule: fills the outputs' TMeta from the
 *                  inputs' TMeta and the attributes.  Works with unknown dims
 *                  (-1) and unknown rank (-1) so graph tracing can use it;
 *   - kernel       the eager kernel: reads c->in, writes c->out;
 *   - doc          the user-facing summary, read only by scripts/gendoc.py (the macros here ignore it).
 * Adding an op is one OP() line in ops.def plus its kernel (or a reused one).
 */
#ifndef TFS_OPS_H
#define TFS_OPS_H

#include "kernels/isa.h"
#include "tensor/tensor.h"

/* Op ids, one per ops.def line.  ORDER OPS: op_defs[] follows it. */
typedef enum OpId {
#define OP(id, gname, api, sig, kinds, dtypes, flags, meta, kernel, ...) OP_##id,
#include "kernels/ops.def"
#undef OP
  OP__COUNT
} OpId;

enum {
  OPF_VIEW = 1,        /* the kernel creates its outputs itself (views, data-dependent shapes) */
  OPF_STATEFUL = 2,    /* side effects or randomness: never pruned, never constant-folded */
  OPF_VARIADIC = 4,    /* all inputs have the kind of the first char; op_apply gets nin */
  OPF_MULTI = 8,       /* returns a list of nout tensors (unstack) */
  OPF_NOOUT = 16,      /* returns None (asserts, print) */
  OPF_PASS0 = 32,      /* returns input 0 unchanged after the kernel (check_numerics) */
  OPF_TUPLE = 64,      /* with OPF_MULTI: a tuple of the nout tensors, or the tensor itself when nout is 1 (qr, svd) */
};

#define OP_MAX_ARGS 16
#define OP_MAX_ATTRS 10

/* Static shape and dtype of a value: dims -1 unknown, rank -1 unknown;
 * rank TMETA_ABSENT marks an optional input that was not given (tf.where(c)). */
#define TMETA_ABSENT (-2)
typedef struct TMeta {
  DType dtype;
  int rank;
  tfs_i64 shape[TFS_MAX_RANK];
} TMeta;

/* Attribute values of one call, in signature order of the '.' parameters
 * (borrowed host values; VT_UNDEF when not given and no default). */
typedef struct OpAttrs {
  int n;
  Val v[OP_MAX_ATTRS];
} OpAttrs;

struct OpCall;
typedef void (*OpMetaFn)(struct OpCall *c);
typedef void (*OpKernelFn)(struct OpCall *c);

typedef struct OpDef {
  OpId id;
  const char *graph_name;     /* "AddV2" */
  const char *api;            /* "add math.add" ("" for internal ops) */
  const char *sig;            /* "x, y, name=None" */
  const char *kinds;          /* "TT" — see above */
  unsigned dtypes;            /* DTM_* mask for T/A inputs */
  unsigned flags;             /* OPF_* */
  OpMetaFn meta;
  OpKernelFn kernel;
} OpDef;

extern OpDef op_defs[OP__COUNT];
/* An OP_UP op's meta function and kernel, set at start-up by the layer that owns them (stdlib/modules/upops.c). */
void op_bind(OpId id, OpMetaFn meta, OpKernelFn kernel);

/* One application of an op.  meta() fills nout/outm; the dispatcher allocates
 * out[] (unless OPF_VIEW) and runs kernel().  Scratch fields let meta() hand
 * normalized attributes (axes, perms) to the kernel of the same call. */
typedef struct OpCall {
  const OpDef *op;
  int nin;
  const Val *args;            /* inputs as given (host values for H/R kinds) */
  Tensor **in;                /* eager inputs (NULL: absent optional, H, R) */
  TMeta *inm;                 /* their metas */
  const OpAttrs *attrs;
  int nout;
  TMeta *outm;                /* nout metas (outm_buf or malloc'd by op_reserve_outputs) */
  Tensor **out;               /* nout outputs, owned until returned */
  TMeta outm_buf[2];
  Tensor *out_buf[2];
  int rmark;                  /* the hold that frees heap outm/out if the op raises (op_reserve_outputs) */
  tfs_i64 iscr[4 * TFS_MAX_RANK];   /* meta -> kernel scratch */
  double fscr[4];
  int nscr;
} OpCall;

/* Apply an op to input values (tensors, Variables, ndarrays or host values)
 * with attributes; returns the owned result (tensor, list of tensors, or
 * None).  For ops without OPF_VARIADIC, nin must equal the number of input
 * kinds.  GRAPH HOOK: when an input is symbolic, the call is forwarded to
 * op_graph_hook (set by the graph builder) instead of running eagerly. */
Val op_apply(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs);
extern Val (*op_graph_hook)(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs);
/* TF's name scope around an op call while a function is traced (opscope.c): x * y's 'mul', tf.add(..., name='z')'s
 * 'z'; the first op node made in it takes the scope's unique name, host inputs converted in it are named
 * 'scope/param'.  Nothing eagerly (token -1).  The hooks are the graph builder's (graph/graph.c, set at start-up). */
typedef struct OpScopeMark { int token, hold; } OpScopeMark;
bool op_tracing(void);   /* a tf.function is being traced, outside host (numpy) code */
OpScopeMark op_scope_enter(const char *name, const OpDef *op);   /* op: the one op named so */
void op_scope_exit(OpScopeMark m);
const char *op_default_scope(const OpDef *op);   /* the scope of tf.<api>(...) without name= */
const char *op_input_name(const OpDef *op, int i);   /* the signature's name of input i ('x', 'y') or NULL */
extern int (*op_scope_enter_hook)(const char *name, const OpDef *op);
extern void (*op_scope_exit_hook)(int token);
extern int (*op_scope_reset_hook)(void);          /* graph_scope_reset: no scope until restored */
extern void (*op_scope_restore_hook)(int token);
/* Host computation (numpy's operators on arrays): ops run now even while a function is traced, as numpy
 * runs in Python when TF traces.  op_host_begin returns the mark op_host_end takes (an error unwinding
 * past it ends the host section too). */
extern int op_host_depth;
/* A tf.<op>, tf.constant, tf.convert_to_tensor or tf.Variable ran (numpy's functions do not count): TF's eager
 * context is initialized by then, and tf.config's logical device configuration can no longer change. */
extern bool op_eager_ran;
/* (set from any thread: tf.data's parallel map runs ops too) */
static inline void op_eager_note(void) { __atomic_store_n(&op_eager_ran, true, __ATOMIC_RELAXED); }
int op_host_begin(void);
void op_host_end(int mark);
/* Gradient tapes (graph/tape.c): how many are recording, and the recorder
 * every executed op is handed to while any is (set at start-up). */
extern int op_tape_nactive;
extern void (*op_tape_record)(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs, Val result);
/* A variable was accessed without an op reading it (v.assign()'s lazy read, as TF's variable_accessed):
 * recording tapes that watch accessed variables watch it if it is trainable (set at start-up). */
extern void (*op_tape_var_accessed)(Val var);
/* The current name scope ("outer/inner/") for new variables' names (graph/graph.c; set at start-up). */
extern const char *(*op_scope_prefix)(void);
/* tf.debugging.enable_check_numerics (numerics.c): whether it is on, the check after an eager op and the
 * checks recorded after a traced one; the name of the function being traced (graph/trace.c; set at start-up). */
extern bool op_check_numerics;
void numerics_check_eager(const OpDef *op, int nin, Tensor **in, Val r);
void numerics_check_traced(const OpDef *op, int nin, const Val *in, Val r, const char *graph);
extern const char *(*op_trace_graph_name)(void);
/* tf.Operation (stdlib/modules/tfoperation.c; set at start-up): a symbolic tensor's graph attributes (name, op,
 * graph, value_index; VT_UNDEF for other names), and the Operation of the node the active trace recorded last
 * when it is of op (v.assign(..., read_value=False)), else None. */
extern Val (*op_sym_attr)(Val t, const char *name);
extern Val (*op_traced_operation)(const OpDef *op);

/* Run an op on eager tensors only (graph executor entry): outputs are
 * returned in out[] (owned); returns nout.  `raw` may be NULL unless the op
 * has H/R inputs. */
int op_run(const OpDef *op, int nin, Tensor **in, const Val *raw, const OpAttrs *attrs, Tensor ***out);

/* Constant folding: op_run with any error swallowed (it belongs to run time,
 * if the op is reached); the first nout outputs (malloc'd array, owned), or
 * NULL when the op failed or gave fewer. */
Tensor **op_fold(const OpDef *op, int nin, Tensor **in, const Val *raw, const OpAttrs *attrs, int nout);

/* Like op_run, but outputs go to out[0..cap) when the op has at most `cap`
 * (no allocation; *heap is set to NULL); otherwise *heap receives a malloc'd
 * array (the outputs) that the caller frees. */
int op_run_into(const OpDef *op, int nin, Tensor **in, const Val *raw, const OpAttrs *attrs, Tensor **out, int cap,
                Tensor ***heap);
/* Offer the next op run a tensor for its single result (the graph executor's arena, exec.c): it
 * is used (retained) when the op's meta gives exactly its dtype and shape, else a new tensor is
 * made.  The caller offers only a tensor nobody else holds; the offer lapses at the next op run. */
void op_offer_output(Tensor *t);

/* ---- scalar fast path --------------------------------------------------------
 * A scalar kernel computes the 0-d result of an op from 0-d operands of dtype
 * `in` (one for unary ops, two for binary ones; b is ignored by unary ones),
 * without meta, broadcasting or allocation.  The graph executor selects one per
 * step at plan time, keyed by op id and dtypes (the elementwise ops' tables in
 * k_elementwise.c); NULL: none, use op_run.  A kernel returns false when the
 * generic kernel must run instead: that one raises the op's error (integer
 * division by zero, negative integer powers) with TF's message.  Operands are
 * read before the result is written, so `out` may alias `a` or `b`. */
typedef bool (*OpScalarFn)(void *out, const void *a, const void *b);
OpScalarFn op_scalar_kernel(OpId id, DType in, DType out);

/* ---- row kernels of planned elementwise steps -----------------------------------
 * The loops k_binary / k_unary / cast run on contiguous operands, for the graph
 * executor's elementwise steps planned on static shapes (exec.c): o[i] = a[i*sa]
 * <op> b[i*sb] for i < n.  Same ops and output dtypes as op_scalar_kernel, minus
 * those that can fail (integer FloorDiv, FloorMod, Pow) or read an attribute
 * (LeakyRelu, Gelu).  `o` may be `a` or `b` (in place). */
typedef void (*OpRowFn2)(char *o, const char *a, const char *b, tfs_i64 n, tfs_i64 sa, tfs_i64 sb);
typedef void (*OpRowFn1)(char *o, const char *a, tfs_i64 n, tfs_i64 sa, double prm);
typedef struct OpRow { OpRowFn2 bin; OpRowFn1 un; } OpRow;   /* one of them */
bool op_row_kernel(OpId id, DType in, DType out, OpRow *r);

/* Convenience for C callers: op with 1 or 2 tensor-ish inputs and no attrs. */
Val op_apply1(OpId id, Val a);
Val op_apply2(OpId id, Val a, Val b);

/* The `tf.<api>` builtin for an op (owned), called with Python arguments. */
Val op_builtin(OpId id, const char *qualname);
/* Find an op by API name ("add", "math.add"); OP__COUNT when absent. */
OpId op_lookup_api(const char *name);
/* A 'B' input that takes any dtype but string: tf.where(c) alone is TF's Where
 * op, whose condition may be numeric (non-zero is true); with x and y it is
 * SelectV2's, which must be bool. */
static inline bool op_cond_any_dtype(const OpDef *op, int i, int nin, Tensor *const *tin) {
  return op->id == OP_SELECT && i == 0 && nin >= 3 && !tin[1] && !tin[2] && tin[0]->dtype != DT_STRING;
}

/* The dtypes an 'I' input accepts, the attr TF names in the error and its list
 * in TF's order: OneHot's TI also takes uint8 and int8 (TF 2.15's registration,
 * int8 since TF 2.11), the rest int32/int64. */
static inline unsigned op_index_dtypes(const OpDef *op, const char **attr, const char **allowed) {
  if (op->id == OP_ONE_HOT) {
    *attr = "TI";
    *allowed = "uint8, int8, int32, int64";
    return DTM_INT | DTM(DT_UINT8) | DTM(DT_INT8);
  }
  *attr = "Tindices";
  *allowed = "int32, int64";
  return DTM_INT;
}

/* Number of inputs (non-'.' kinds) and attributes of an op. */
int op_num_inputs(const OpDef *op);
int op_num_attrs(const OpDef *op);
/* Name of the i-th attribute parameter ("axis"), for graph text. */
const char *op_attr_name(const OpDef *op, int i);

/* ---- helpers for meta functions and kernels (op.c) ---------------------- */
void op_reserve_outputs(OpCall *c, int nout);
void op_release_outputs(OpCall *c);   /* frees what op_reserve_outputs allocated (after a normal run) */
static inline Val op_attr(const OpCall *c, int i) { return i < c->attrs->n ? c->attrs->v[i] : val_undef(); }
static inline bool op_attr_given(const OpCall *c, int i) {
  Val v = op_attr(c, i);
  return v.tag != VT_UNDEF && v.tag != VT_NONE;
}
tfs_i64 op_attr_int(const OpCall *c, int i, tfs_i64 dflt);
double op_attr_float(const OpCall *c, int i, double dflt);
bool op_attr_bool(const OpCall *c, int i, bool dflt);
int op_attr_dtype(const OpCall *c, int i, int dflt);        /* -1 when dflt -1 and not given */
/* Axis attribute normalised against `rank` (negative counts from the end);
 * raises the TF error for out-of-range axes. */
int op_norm_axis(const OpCall *c, tfs_i64 axis, int rank);
/* Axis list (int, list/tuple, 1-d tensor, or None = all): sorted, unique,
 * normalised; returns the count (all axes when None). */
int op_attr_axes(const OpCall *c, int i, int rank, int *axes);

/* NumPy broadcast of two metas (unknown dims allowed); raises
 * "Incompatible shapes: [2] vs. [3]". */
void op_broadcast_meta(const OpCall *c, const TMeta *a, const TMeta *b, TMeta *out);
void meta_set(TMeta *m, DType dt, int rank, const tfs_i64 *shape);
static inline tfs_i64 meta_size(const TMeta *m) {
  tfs_i64 n = 1;
  for (int i = 0; i < m->rank; i++) n *= m->shape[i];
  return n;
}
/* "[2,3]" as TF prints shapes in error messages. */
void op_shape_text(StrBuf *b, int rank, const tfs_i64 *shape);
_Noreturn void op_fail(const OpCall *c, ErrKind k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* TF's text for a dtype outside an op's list for its attribute (attr "T" or "type"): InvalidArgumentError. */
_Noreturn void op_fail_attr(const OpDef *op, const char *attr, DType got, unsigned mask);
_Noreturn void op_fail_attr_text(const OpDef *op, const char *attr, DType got, const char *allowed);
_Noreturn void op_fail_sb(const OpCall *c, ErrKind k, StrBuf *msg);   /* frees msg */

/* ---- meta functions and kernels, by file --------------------------------- */
#define OP(id, gname, api, sig, kinds, dtypes, flags, meta, kernel, ...) void meta(OpCall *c); void kernel(OpCall *c);
#define OP_UP(...)   /* declared by their own layer (stdlib/modules/upops.h) */
#include "kernels/ops.def"
#undef OP_UP
#undef OP

/* tf.norm's kinds (the NORM_* mode meta_norm leaves in fscr[1]): a vector norm, or a matrix norm over two
 * axes: Frobenius, max column abs sum (ord 1), max row abs sum (ord inf), largest singular value (ord 2). */
enum { NORM_VECTOR, NORM_FRO, NORM_ONE, NORM_INF, NORM_TWO };
/* complex64/complex128 inv and det, and one complex solve of k_linalg_solve's loop (k_linalg_cplx.c) */
void k_linalg_cplx(OpCall *c);
void k_linalg_solve_cplx(OpCall *c, const void *ap, void *x, tfs_i64 n, tfs_i64 k, bool adj, void *w, void *ipiv);
void k_trisolve_cplx(bool f, const void *ap, void *x, tfs_i64 n, tfs_i64 k, bool lower, bool adj);
/* The matrix norms ord 1, inf and 2 over rows axis a0 and columns axis a1 into c->out[0] (k_linalg.c). */
void linalg_matrix_norm(OpCall *c, int mode, int a0, int a1);
/* diag_part's layout (k_linalg.c): the band lo..hi of an m x n matrix from attributes k and align (checked by the
 * op), its longest diagonal's length len, where diagonal d starts in its row of the [hi - lo + 1, len] output, and
 * where element (i, j) lands there (-1: off the band); the gradient scatters back through it. */
typedef struct DiagLayout { tfs_i64 m, n, lo, hi, len; bool sup_left, sub_left; } DiagLayout;
void linalg_diag_layout(Val k, Val align, tfs_i64 m, tfs_i64 n, DiagLayout *l);
tfs_i64 linalg_diag_offset(const DiagLayout *l, tfs_i64 d);
tfs_i64 linalg_diag_pos(const DiagLayout *l, tfs_i64 i, tfs_i64 j);

/* Random state (k_random.c): tf.random.set_seed. */
void random_set_seed(bool has_seed, tfs_i64 seed);
bool random_global_seed(tfs_i64 *seed);          /* false when tf.random.set_seed has not set one */
tfs_i64 random_op_seed_index(void);              /* the next op-seed counter value (reset by set_seed) */
/* The draw counters as an int64 tensor, and putting such a snapshot back: a
 * gradient that runs a forward pass again replays the forward's draws. */
Tensor *random_state_get(void);
tfs_i64 random_state_size(void);                 /* elements of a snapshot */
void random_state_set(const Tensor *snap);

/* Elementwise helpers reused by other kernels (k_elementwise.c). */
void ew_cast(Tensor *dst, const Tensor *src);                 /* same shape, any dtypes */
/* Dtypes without loops of their own (k_elementwise.c): the dtype they compute in (float32 for halves, int64
 * for the small ints; -1: none), and running kernel k on c's inputs (up to 2) cast to it, the result cast back. */
int ew_wide(DType dt);
void ew_run_wide(OpCall *c, DType w, void (*k)(OpCall *));
bool op_run_half_as_f32(OpCall *c, void (*k)(OpCall *));   /* half inputs through a float32 kernel */
void ew_fill(Tensor *dst, double fv, tfs_i64 iv);             /* fill with a value */
void ew_binary(OpId id, Tensor *out, Tensor *a, Tensor *b);    /* out = a <op> b, broadcasting, no checks */
void ew_unary(OpId id, Tensor *out, Tensor *a);                /* out = <op> a (un_loops), same shape */

/* Register-blocked products of contiguous matrices (k_gemm.c): C[M,N] = op(A) op(B), for float32/64 and
 * int32/64 (wrapping); false for other dtypes.  gemm_small takes the active ISA path (isa.h),
 * gemm_small_on the given one, which the caller must know the CPU runs. */
bool gemm_small(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb);
/* The same through libxsmm's JIT (k_xsmm.c), for float32/64 up to a measured size (transpose_b only for
 * products that reuse a copied B enough);
 * false when it does not apply (the caller then uses gemm_small or BLAS). */
bool xsmm_gemm(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb);
/* Batch-reduce products through libxsmm's JIT (k_xsmm.c), for the direct convolutions of k_conv_gemm.c:
 * C[M,N] (row stride N) = sum over i < count of A_i[M,K] (row stride lda) B_i[K,N] (row stride N), each
 * element one fused multiply-add chain over (i, k) in order from 0 (the order of an im2col product's K).
 * xsmm_br_get readies a kernel (false on the baseline path or for other dtypes than float32/64). */
typedef struct {
  void *fn;
  DType dt;
} XsmmBr;
bool xsmm_br_get(XsmmBr *h, DType dt, tfs_i64 M, tfs_i64 N, tfs_i64 K, tfs_i64 lda);
void xsmm_br_run(const XsmmBr *h, void *C, const void **A, const void **B, tfs_i64 count);
/* The same with A's row stride ldA (K, or M when ta, for a whole matrix): a slice of a wider A. */
bool xsmm_gemm_lda(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb,
                   tfs_i64 ldA);
/* C[M,N] = op(A) op(B) for contiguous float32/64 or int32/64 matrices (M, N, K > 0), A stored [M,K] or
 * [K,M] (ta), B [K,N] or [N,K] (tb): libxsmm, the register kernels or OpenBLAS by size, as MatMul runs. */
void matmul_any(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb);
/* One 2-D product of contiguous matrices without transposes, C[M,N] = A[M,K] B[K,N] (M, N, K > 0), then
 * the optional [N] bias and relu: exactly what MatMul / _FusedMatMul compute for such operands (the graph
 * executor's planned products call it without op_run). */
void matmul_2d(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, const void *bias,
               bool act);
/* One product of matmul_prods: C[M,N] = op(A) op(B) (+ bias[N], relu) for contiguous float32/64 or int32/64
 * matrices (M, N, K > 0), A stored [M,K] or [K,M] (ta), B [K,N] or [N,K] (tb): what MatMul / _FusedMatMul compute. */
typedef struct {
  void *C;
  const void *A, *B, *bias;
  tfs_i64 M, N, K;
  bool ta, tb, act;
} MmProd;
/* n (1..4) independent products of dtype dt, none reading another's C: when every one splits over the pool,
 * as one pool job, each cut into the slices it gets alone; else one after another.  Either way each C has the
 * bits it has alone for the thread count (graph/exec.c's inter-op pairs); n == 1 is the product alone. */
void matmul_prods(DType dt, const MmProd *p, int n);
/* A chain of such products: link l computes links[l].C[M, N_l] = X_l[M, K_l] B_l (+ bias, relu), X_0 = A
 * and X_l = links[l-1].C (K_l = N_{l-1}); each C's rows equal matmul_2d's for the same thread count.  A
 * link before the last may have C NULL: its result is only the next link's operand, kept in the chain's
 * scratch (the last link's C must be given). */
typedef struct {
  void *C;
  const void *B, *bias;
  tfs_i64 N, K;
  bool act;
} MmLink;
void matmul_chain(DType dt, const void *A, tfs_i64 M, const MmLink *links, int n);
/* Whether libxsmm is tried for a product of this many multiply-adds on the active path (else OpenBLAS). */
bool xsmm_takes_size(tfs_i64 macs);
/* C[B*T, N] = gather(E[V, K], ids) W[K, N] (+ bias, relu) for contiguous float32/64 E, W and int32/int64
 * ids [B, T], computed as gather(E W, ids): the rows of C in time-major order (row t*B + b is ids[b, t]'s)
 * when tmajor, else in ids' order.  The same bits as the product of the gathered rows, which it runs only
 * where that product's slices would all go to OpenBLAS; false (nothing written) otherwise, or when an id is
 * outside [0, V) (the caller then runs the gather, which raises TF's error). */
bool matmul_gather(DType dt, void *C, const void *E, tfs_i64 V, const void *ids, bool ids64, tfs_i64 B, tfs_i64 T,
                   bool tmajor, const void *W, tfs_i64 N, tfs_i64 K, const void *bias, bool act);
/* The intra-op thread pool (threads.c).  tp_run(n, fn, ctx) calls fn(ctx, part, n) for every part in
 * [0, n): part 0 on the caller, the others on persistent workers, and returns when all are done; inside a
 * part, or while another thread's job runs, the parts run one after another on the caller.  Parts must not
 * throw.  tp_parts(work, min_work) is how many parts to cut work into (at most the thread count, each at
 * least min_work); tp_set_threads sets the thread count (0: TFS_NUM_THREADS, else every core the process
 * may use) — tf.config.threading.set_intra_op_parallelism_threads is meant to call it. */
typedef void (*TpFn)(void *ctx, int part, int nparts);
/* Fewest elements of an elementwise loop worth a part of their own on another thread (docs/performance.md). */
#define TP_EW_MIN_PART ((tfs_i64)1 << 15)
int tp_threads(void);
void tp_set_threads(int n);
/* The calling thread's limit on the threads of the jobs it starts, returning the previous one: n > 0 lets at
 * most n threads (the caller and n - 1 workers) run a job's parts, 1 runs them all on the caller (the same
 * parts, so the same bits; tf.data's max_intra_op_parallelism), 0 none; n < 0 only reads it (tf.data's
 * parallel lanes keep their caller's). */
int tp_local_limit(int n);
int tp_parts(tfs_i64 work, tfs_i64 min_work);
void tp_run(int nparts, TpFn fn, void *ctx);
/* [*lo, *hi): part `part` of nparts near-equal slices of [0, n). */
static inline void tp_slice(tfs_i64 n, int part, int nparts, tfs_i64 *lo, tfs_i64 *hi) {
  *lo = n * part / nparts;
  *hi = n * (part + 1) / nparts;
}
/* OpenBLAS readied before its first call (blas.c): the core type of the active ISA path unless
 * OPENBLAS_CORETYPE names one, and TFS_BLAS_THREADS threads (default 1).  blas_core names the core. */
void blas_ready(void);
const char *blas_core(void);
/* Just matmul_2d's epilogue on C[M,N]: + bias[N] (when given), then relu (act). */
void matmul_2d_epilogue(DType dt, void *C, const void *bias, tfs_i64 M, tfs_i64 N, bool act);
bool gemm_small_on(Isa isa, DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta,
                   bool tb);

/* Start-up: the operator and method slots of tf.Tensor, tf.Variable (tensorobj.c)
 * and numpy.ndarray (ndarrayobj.c), whose storage the tensor layer defines. */
void tensorobj_register(void);
void ndarrayobj_register(void);
/* The numpy module's methods of numpy.ndarray (sum, reshape, __setitem__ ...): a dict name -> function. */
void ndarray_set_methods(Val methods);
_Noreturn void ndarray_raise_cast_error(const char *msg);   /* numpy's _UFuncOutputCastingError */
/* numpy 1.24's result dtype of a binary ufunc on a and b (value-based casting); false: not numbers or arrays. */
bool ndarray_result_dtype(Val a, Val b, DType *out);
/* numpy's writes (ndassign.c): dst[...] = src broadcast; a[key] = v for a basic key; a op= b in place
 * (binop: the ndarray's operator; VT_UNDEF when a is no array). */
void nd_assign(Tensor *dst, Tensor *src);
void nd_setitem_basic(Val self, Val key, Val v);
Val nd_inplace(int op, Val a, Val b, Val (*binop)(int, Val, Val));

#endif
