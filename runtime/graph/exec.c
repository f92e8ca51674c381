/* exec.c — the executor: planning (pruning, folding, CSE, fusion, slots, lifetimes, scalar fast paths, compiled loops) and running plans. */
#include "graph/exec.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "object/object.h"
#include "graph/tape.h"
#include "graph/trace.h"
#include "kernels/prof.h"

typedef enum ExecKind { ES_OP, ES_COND, ES_WHILE } ExecKind;

typedef struct ExecStep {
  ExecKind kind;
  const OpDef *op;
  const GraphNode *node;      /* for errors (borrowed from the plan's graph) */
  int nin;
  const int *in;              /* slot of each input; -1: host value / variable / absent (raw); then ndyn */
  int ndyn;                   /* dynamic attributes: attrs->v[dyn_attr[k]] is slot in[nin + k] */
  const int *dyn_attr;
  const Val *raw;             /* per input when in[i] < 0 (borrowed); NULL when every input is a slot */
  const OpAttrs *attrs;
  int nout;
  const int *out;             /* slot of each output; -1: unused, released at once */
  int nrel;
  const int *rel;             /* slots whose last use is this step */
  struct ExecPlan *sub[2];    /* ES_COND: then/else; ES_WHILE: cond/body */
  tfs_i64 max_iter;           /* ES_WHILE: maximum_iterations, -1 none */
  /* ES_OP on 0-d operands: the scalar kernel chosen at plan time (NULL: op_run) */
  OpScalarFn sk;
  DType sk_in, sk_out;        /* its operand and result dtypes */
  int donor;                  /* input slot dying here whose 0-d tensor may take the result in place; -1 none */
  struct SLoop *loop;         /* ES_WHILE compiled to a scalar register program, or NULL */
  struct EwPlan *ew;          /* ES_OP: a planned elementwise step (or fused chain ending here), or NULL */
  int oarena;                 /* ES_OP run through op_run: its result's arena slot (offered to the op), -1 none */
  struct MmPlan *mm;          /* ES_OP: a planned 2-D MatMul / _FusedMatMul, or NULL */
  int mmchain;                /* planned products from this step on that run as one row chain (0, or >= 2) */
  struct GpPlan *gp;          /* a planned product whose left operand is gathered table rows (plan_gather_project) */
  bool gpdefer;               /* a step of such an operand: run by the product's step, or just before it */
  int pair;                   /* a planned product run at once with this one (plan_pairs): its step (> this), 0 none */
  bool skip;                  /* absorbed into the next step's fused elementwise chain */
} ExecStep;

/* ---- planned elementwise steps --------------------------------------------------------
 * An elementwise op (op_row_kernel) whose operands and result have static
 * shapes, each operand the result's shape or a single element, is planned
 * beyond the scalar path: no meta function, broadcasting or op_run at run time,
 * only the row loop the generic kernel would call (so the bits are the same).
 * Its result buffer is planned by liveness:
 *   - in place: an operand dying at the step, of the result's dtype and shape,
 *     that nobody else holds, takes the result;
 *   - else an arena slot of the plan: slots are assigned at plan time so that
 *     values alive at the same time never share one, and a slot dead in this
 *     call is reused (the tensor kept in the plan's arena across calls), so a
 *     steady-state call creates no tensor for these steps.
 * Reuse is checked against reference counts at run time (a result a Variable,
 * a view or the caller kept is never written over; the step then takes a new
 * tensor), so planning can only save work, never change results.
 * Consecutive such steps where each result's only reader is the next step fuse
 * into one chain: one pass in blocks, each op's row loop over the block while it
 * is in cache, intermediates written over the result in place, never stored. */
#define EW_PREV (-2)          /* operand: the previous op's result (in a chain) */
#define EW_SIDE (-3)          /* operand: the chain's side op's result (its second block buffer) */
/* A fused chain holds at most EW_CHAIN_MAX ops; a longer run of elementwise ops becomes several chains.
 * Each fusion copies the chain, so unbounded chains made planning a 30,000-op unrolled function
 * quadratic (2.7 s); past a few dozen ops a longer chain saves nothing measurable. */
enum { EW_CHAIN_MAX = 64, EW_LOOK_BACK = 2 * EW_CHAIN_MAX };
typedef struct EwOp {
  OpRow k;
  DType in;                   /* operand dtype */
  int a, b;                   /* operand slots, EW_PREV or EW_SIDE; b == -1 for unary ops */
  tfs_i64 na, nb;             /* operand sizes: n, or 1 (broadcast) */
  ExecStep *orig;             /* its own step (generic fallback, error location) */
  bool to_side;               /* the side op (a chain's first): its result goes to the side buffer */
} EwOp;
typedef struct EwPlan {
  DType dt;                   /* result dtype */
  int rank;
  tfs_i64 shape[TFS_MAX_RANK];
  tfs_i64 n;
  int donor, donor_arena;     /* a dying operand slot of the first op that may take the result, its arena slot */
  int arena;                  /* the result's arena slot; -1: a graph output (always a new tensor) */
  int *rel;                   /* a chain's release list (its ops' lists, owned) */
  int amode;                  /* -1; else the chain feeds the next step's Assign (0) / AssignAdd (1) / AssignSub (2) */
  int nrel_chain;             /* an update: rel[0, nrel_chain) is the chain's own list (released before the assign unfused) */
  OpRow acc;                  /* AssignAdd / AssignSub: the Add / Sub row loop variable_assign's op would run */
  bool side;                  /* ops[0] is a side op (see plan_ew) */
  int nops;
  EwOp ops[];
} EwPlan;

/* ---- planned matrix products ------------------------------------------------------------
 * A MatMul or _FusedMatMul without transposes whose operands have static 2-D
 * shapes (and a [N] bias) skips op_run at run time: no meta function, attribute
 * reading or batch loop, only operand checks and the routine the kernel itself
 * calls for one matrix (matmul_2d), into the step's arena slot.  Operands that
 * are not as planned (a strided view, another shape) take the generic path. */
typedef struct MmPlan {
  DType dt;
  tfs_i64 m, n, k;
  bool bias, relu;
  bool ta, tb;                /* transpose_a / transpose_b known true at plan time (A stored [k, m], B [n, k]) */
} MmPlan;

static __thread tfs_i64 exec_mm_runs;  /* products run through a plan, for tests */
void (*exec_step_hook)(const GraphNode *node);

tfs_i64 exec_mm_count(void) { return exec_mm_runs; }
static __thread tfs_i64 exec_upd_runs;  /* variable updates run as one fused pass, for tests */
tfs_i64 exec_update_count(void) { return exec_upd_runs; }

struct ExecPlan {
  Graph *g;                   /* retained */
  int nslots;
  Tensor **init;              /* per slot: a constant (borrowed from the graph, or folded: owned) */
  unsigned char *init_owned;  /* per slot: init[] is a folded tensor owned by the plan */
  unsigned char *produced;    /* per slot: filled by a step (released on error) */
  int ninputs;
  int *input_slot;            /* per graph input; -1: unused */
  int noutputs;
  int *output_slot;
  unsigned char *output_move; /* per output: hand over the slot's reference (else retain) */
  int nsteps;
  ExecStep *steps;
  int *ints;                  /* storage of the steps' int arrays */
  Val *raws;                  /* storage of the steps' raw arrays */
  unsigned char *runs;        /* per graph node: runs as a step */
  OpAttrs *fattrs;            /* attributes of the fused steps (_FusedMatMul) */
  Tensor **arena;             /* narena tensors kept across calls for planned elementwise results */
  int narena;
  ExecStats stats;
};

/* ---- planning helpers --------------------------------------------------------------- */

static bool exec_same_val(Val a, Val b) {
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case VT_UNDEF:
    case VT_NONE: return true;
    case VT_BOOL:
    case VT_INT: return a.u.i == b.u.i;
    case VT_FLOAT: return memcmp(&a.u.f, &b.u.f, sizeof(double)) == 0;
    case VT_OBJ: {
      if (a.u.o == b.u.o) return true;
      const Type *t = a.u.o->type;
      if (t != b.u.o->type) return false;
      if (t == &str_type) return str_len(a) == str_len(b) && !memcmp(str_cstr(a), str_cstr(b), (size_t)str_len(a));
      if (t == &dtype_type) return val_eq(a, b);
      if (t == &slice_type) {
        Slice *x = (Slice *)a.u.o, *y = (Slice *)b.u.o;
        return exec_same_val(x->lo, y->lo) && exec_same_val(x->hi, y->hi) && exec_same_val(x->step, y->step);
      }
      if (t == &list_type || t == &tuple_type) {
        tfs_i64 na, nb;
        const Val *ia, *ib;
        seq_items(a, &na, &ia);
        seq_items(b, &nb, &ib);
        if (na != nb) return false;
        for (tfs_i64 i = 0; i < na; i++)
          if (!exec_same_val(ia[i], ib[i])) return false;
        return true;
      }
      return false;
    }
    default: return false;
  }
}

static tfs_u64 exec_mix(tfs_u64 h, tfs_u64 x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

typedef struct Planner {
  Graph *g;
  int n;
  int *canon;                 /* node -> the node computing its outputs (CSE) */
  Tensor ***konst;            /* node -> its outputs when constant (const or folded) */
  unsigned char *kowned;      /* konst[] arrays owned by the plan (folded) */
  int *nkonst;
  unsigned char *live;
} Planner;

/* The node and output that really provide value r (through Identity and CSE). */
static GraphRef plan_resolve(const Planner *pl, GraphRef r) {
  for (;;) {
    if (r.node < 0) return r;
    r.node = pl->canon[r.node];
    const GraphNode *n = &pl->g->nodes[r.node];
    if (n->kind == GN_OP && n->op->id == OP_IDENTITY && !(n->flags & GNF_STATEFUL) && n->nin == 1 && n->in[0].node >= 0 &&
        !pl->konst[r.node]) {
      r = n->in[0];
      continue;
    }
    return r;
  }
}

/* Liveness: what outputs and side effects need. */
static void plan_mark(Planner *pl) {
  Graph *g = pl->g;
  memset(pl->live, 0, (size_t)pl->n);
  int *stack = malloc(sizeof(int) * (size_t)(pl->n + 1));
  if (!stack) rt_throw(ERR_MEMORY, "out of memory");
  int sp = 0;
#define PUSH(id) do { int id_ = (id); if (id_ >= 0 && !pl->live[id_]) { pl->live[id_] = 1; stack[sp++] = id_; } } while (0)
  for (int i = 0; i < g->noutputs; i++) PUSH(plan_resolve(pl, g->outputs[i]).node);
  for (int id = 0; id < pl->n; id++)
    if (g->nodes[id].flags & GNF_STATEFUL) PUSH(pl->canon[id]);
  while (sp) {
    int id = stack[--sp];
    const GraphNode *n = &g->nodes[id];
    if (pl->konst[id]) continue;   /* a constant needs nothing */
    for (int i = 0; i < n->nin + n->ndyn; i++)
      if (n->in[i].node >= 0) PUSH(plan_resolve(pl, n->in[i]).node);
    for (int i = 0; i < n->nctrl; i++) PUSH(pl->canon[n->ctrl[i]]);
  }
#undef PUSH
  free(stack);
}

/* Constant folding of one pure node whose inputs are constants. */
static bool plan_fold(Planner *pl, int id) {
  const GraphNode *n = &pl->g->nodes[id];
  for (int i = 0; i < n->nout; i++) {
    const TMeta *m = &n->outm[i];
    if (m->rank < 0) return false;
    tfs_i64 size = 1;
    for (int d = 0; d < m->rank; d++) size *= m->shape[d] < 0 ? 1 : m->shape[d];
    if (size > (1 << 20)) return false;   /* folding would bloat the plan */
  }
  Tensor *inb[16], **in = n->nin <= 16 ? inb : malloc(sizeof(Tensor *) * (size_t)n->nin);
  Val rawb[16], *raw = n->nin <= 16 ? rawb : malloc(sizeof(Val) * (size_t)n->nin);
  if (!in || !raw) rt_throw(ERR_MEMORY, "out of memory");
  bool ok = true;
  for (int i = 0; i < n->nin && ok; i++) {
    GraphRef r = plan_resolve(pl, n->in[i]);
    in[i] = NULL;
    raw[i] = n->raw ? n->raw[i] : val_undef();
    if (r.node < 0) continue;
    if (!pl->konst[r.node]) { ok = false; break; }
    in[i] = pl->konst[r.node][r.out];
    raw[i] = val_obj(in[i]);
  }
  OpAttrs at = n->attrs;
  for (int k = 0; k < n->ndyn && ok; k++) {
    GraphRef r = plan_resolve(pl, n->in[n->nin + k]);
    if (!pl->konst[r.node]) ok = false;
    else at.v[n->dyn_attr[k]] = val_obj(pl->konst[r.node][r.out]);
  }
  if (ok) {
    Tensor **res = op_fold(n->op, n->nin, in, raw, &at, n->nout);   /* NULL: kept as a step */
    if (res) {
      pl->konst[id] = res;
      pl->nkonst[id] = n->nout;
      pl->kowned[id] = 1;
    } else {
      ok = false;
    }
  }
  if (in != inb) free(in);
  if (raw != rawb) free(raw);
  return ok;
}

static tfs_u64 plan_hash(const Planner *pl, const GraphNode *n) {
  tfs_u64 h = exec_mix(0, (tfs_u64)n->op->id);
  h = exec_mix(h, (tfs_u64)n->nin);
  for (int i = 0; i < n->nin + n->ndyn; i++) {
    GraphRef r = plan_resolve(pl, n->in[i]);
    h = exec_mix(h, ((tfs_u64)(unsigned)r.node << 8) ^ (tfs_u64)r.out);
  }
  for (int i = 0; i < n->attrs.n; i++) {
    Val v = n->attrs.v[i];
    h = exec_mix(h, v.tag);
    if (v.tag == VT_INT || v.tag == VT_BOOL) h = exec_mix(h, (tfs_u64)v.u.i);
  }
  return h;
}

static bool plan_same(const Planner *pl, const GraphNode *a, const GraphNode *b) {
  if (a->op != b->op || a->nin != b->nin || a->ndyn != b->ndyn || a->attrs.n != b->attrs.n || a->nout != b->nout)
    return false;
  for (int k = 0; k < a->ndyn; k++) {
    GraphRef ra = plan_resolve(pl, a->in[a->nin + k]), rb = plan_resolve(pl, b->in[b->nin + k]);
    if (a->dyn_attr[k] != b->dyn_attr[k] || ra.node != rb.node || ra.out != rb.out) return false;
  }
  if ((a->flags & GNF_LIST) != (b->flags & GNF_LIST)) return false;
  for (int i = 0; i < a->nin; i++) {
    GraphRef ra = plan_resolve(pl, a->in[i]), rb = plan_resolve(pl, b->in[i]);
    if (ra.node != rb.node || ra.out != rb.out) return false;
    Val va = a->raw ? a->raw[i] : val_undef(), vb = b->raw ? b->raw[i] : val_undef();
    if (!exec_same_val(va, vb)) return false;
  }
  for (int i = 0; i < a->attrs.n; i++)
    if (!exec_same_val(a->attrs.v[i], b->attrs.v[i])) return false;
  return true;
}

/* ---- scalar fast paths (chosen at plan time) ------------------------------------------
 * A step whose operands and result are statically 0-d and whose op has a
 * scalar kernel for their dtypes (op_scalar_kernel: the op table's elementwise
 * rows) skips op_run: no meta, no broadcasting, no result array, and its
 * result reuses a dying operand's tensor when nobody else holds it.
 *
 * A graph while whose cond and body consist only of such steps and of nested
 * cond/while nodes made of them, with 0-d loop variables and captures, is
 * compiled into an SLoop: a register program over unboxed scalars (one 8-byte
 * register per value; conds and loops become jumps), run without any tensor,
 * allocation or reference count per iteration.  Constants are loaded once; the
 * loop variables are boxed into tensors when the loop ends. */

typedef union SReg {
  float f32;
  double f64;
  int32_t i32;
  int64_t i64;
  bool b;
  const Tensor *t;            /* a loop-invariant tensor (a captured vector that is indexed) */
  unsigned char bytes[8];
} SReg;

typedef enum SKind {
  SI_OP,                      /* r[dst] = fn(r[a], r[b]) */
  SI_JMPF,                    /* if r[a] (dtype dt) is false: go to dst */
  SI_JMP,                     /* go to dst */
  SI_MOV,                     /* r[dst] = r[a] */
  SI_ZERO,                    /* r[dst].i64 = 0 (an iteration counter) */
  SI_COUNT,                   /* if r[a].i64 >= max: go to dst; else r[a].i64++ (maximum_iterations) */
  SI_GATHER,                  /* r[dst] = element r[b] (index dtype dt) of the 1-d tensor r[a].t */
  SI_END,                     /* the program's last instruction */
} SKind;

typedef struct SInstr {
  unsigned char kind;         /* SKind */
  unsigned char dt;           /* SI_JMPF: dtype of the condition; SI_GATHER: of the index */
  unsigned char esz;          /* SI_GATHER: element size */
  int dst, a, b;              /* registers, or dst a jump target (b == a for unary ops) */
  OpScalarFn fn;              /* SI_OP */
  const struct ExecStep *step;   /* SI_OP, SI_GATHER: its step (generic fallback, error location) */
  tfs_i64 max;                /* SI_COUNT */
} SInstr;

typedef struct SLoop {
  int nregs;                  /* [0, nin): the while's inputs (and loop variables); then the rest */
  int nin, nv;
  SReg *init;                 /* nregs initial values (constants; zero elsewhere) */
  unsigned char *rdt;         /* dtype of each register (SREG_TENSOR: a tensor pointer) */
  unsigned char *load;        /* per while input: 1 its 0-d value, 2 the tensor itself, read at entry */
  int ncode;
  SInstr *code;
} SLoop;

static bool sreg_meta_ok(const TMeta *m) { return m->rank == 0 && (unsigned)m->dtype < DT_STRING; }   /* registers hold f32 f64 i32 i64 bool */

/* The scalar kernel of an op step, if its operands and result are statically
 * 0-d values of one dtype (sm: the plan's slot metas). */
static OpScalarFn plan_scalar_kernel(const GraphNode *nd, const int *in, const Val *raw, const TMeta *sm, DType *din) {
  if (nd->kind != GN_OP || nd->ndyn || nd->nout != 1 || nd->nin < 1 || nd->nin > 2) return NULL;
  if ((nd->flags & (GNF_STATEFUL | GNF_LIST)) ||
      (nd->op->flags & (OPF_VIEW | OPF_STATEFUL | OPF_VARIADIC | OPF_MULTI | OPF_NOOUT | OPF_PASS0)))
    return NULL;
  if (raw) return NULL;
  for (int i = 0; i < nd->nin; i++) {
    if (in[i] < 0 || !sreg_meta_ok(&sm[in[i]]) || sm[in[i]].dtype != sm[in[0]].dtype) return NULL;
  }
  if (!sreg_meta_ok(&nd->outm[0])) return NULL;
  OpScalarFn f = op_scalar_kernel(nd->op->id, sm[in[0]].dtype, nd->outm[0].dtype);
  /* arity: the table's unary rows belong to one-input ops, binary rows to two-input ones */
  if (f && op_num_inputs(nd->op) != nd->nin) return NULL;
  *din = sm[in[0]].dtype;
  return f;
}

static SLoop *sloop_compile(const ExecStep *st, const TMeta *sm);
static void sloop_free(SLoop *L);

/* ---- fusion: MatMul (Conv2D) -> bias add -> Relu as one _FusedMatMul (_FusedConv2D) step ----
 * As TF's remapper does for graphs: a product whose only consumer adds a [N]
 * bias (AddV2 either way round, or BiasAdd), optionally followed by a Relu
 * that is the add's only consumer, runs as one step.  The bias add and the
 * activation then happen on each product block while it is in cache, and the
 * intermediates are never allocated.  Results are the unfused ones exactly
 * (k_matmul.c's epilogue); the graph text still shows what was traced. */

typedef struct FuseInfo {
  int mm;                     /* the MatMul or Conv2D node (its inputs, attributes and line) */
  GraphRef bias;
  bool relu;
  int pool;                   /* an NHWC MaxPool node consuming a Conv2D chain (its attributes), or -1 */
} FuseInfo;

/* Whether node id is a pure op `op` with all inputs graph values. */
static bool fuse_is(const Planner *pl, int id, OpId op) {
  const GraphNode *n = &pl->g->nodes[id];
  if (n->kind != GN_OP || n->op->id != op || (n->flags & GNF_STATEFUL) || n->ndyn || pl->konst[id] || n->nout != 1)
    return false;
  for (int i = 0; i < n->nin; i++)
    if (n->in[i].node < 0) return false;
  return true;
}

/* Whether no side effect comes between nodes a and b (exclusive): a fused chain runs where it ends, and a
 * failing product must fail before any later effect, as unfused.  A variable read is none (it cannot fail, and
 * a write that could change it is stateful itself); Keras reads the bias right after the product. */
static bool fuse_no_effect_between(const Planner *pl, int a, int b) {
  for (int q = a + 1; q < b; q++) {
    const GraphNode *qn = &pl->g->nodes[q];
    bool read = qn->kind == GN_OP && qn->op->id == OP_READ_VARIABLE;
    if (pl->live[q] && !read && ((qn->flags & GNF_STATEFUL) || qn->kind == GN_COND || qn->kind == GN_WHILE ||
                                 (qn->kind == GN_OP && (qn->op->flags & OPF_STATEFUL))))
      return false;
  }
  return true;
}

/* A float32 convolution chain's only consumer, an NHWC MaxPool, joins it (inference graphs: training reads the
 * Relu's output again for MaxPoolGrad, so that Relu has two uses and stays a step).  The pooling then runs on
 * each few rows of convolution output while they are in cache, and the unpooled output is never allocated. */
static void plan_fuse_pool(const Planner *pl, int *fuse, unsigned char *absorbed, FuseInfo *fi, const int *uses) {
  const Graph *g = pl->g;
  for (int id = 0; id < pl->n; id++) {
    if (!pl->live[id] || pl->canon[id] != id || !fuse_is(pl, id, OP_MAX_POOL) || g->nodes[id].nin != 1 || fuse[id] >= 0)
      continue;
    GraphRef r = plan_resolve(pl, g->nodes[id].in[0]);
    if (r.node < 0 || r.out != 0 || fuse[r.node] < 0 || uses[r.node] != 1) continue;
    FuseInfo *f = &fi[fuse[r.node]];
    const GraphNode *pn = &g->nodes[id];
    Val df = pn->attrs.n > 3 ? pn->attrs.v[3] : val_undef();
    if (g->nodes[f->mm].op->id != OP_CONV2D || g->nodes[f->mm].outm[0].dtype != DT_FLOAT32 || pn->attrs.n < 3) continue;
    if (df.tag == VT_OBJ && !(val_is(df, &str_type) && !strcmp(str_cstr(df), "NHWC"))) continue;
    if (!fuse_no_effect_between(pl, r.node, id)) continue;
    f->pool = id;
    fuse[id] = fuse[r.node];
    fuse[r.node] = -1;
    absorbed[r.node] = 1;
  }
}

/* Find the fusable chains among live nodes: fuse[root] indexes fi[], absorbed
 * nodes (the MatMul and, under a Relu, the add) get no step.  Returns the count. */
static int plan_fuse(const Planner *pl, int *fuse, unsigned char *absorbed, FuseInfo *fi) {
  const Graph *g = pl->g;
  int n = pl->n, nf = 0;
  int *uses = calloc((size_t)n + 1, sizeof(int));
  if (!uses) rt_throw(ERR_MEMORY, "out of memory");
  for (int id = 0; id < n; id++) {
    fuse[id] = -1;
    absorbed[id] = 0;
    const GraphNode *nd = &g->nodes[id];
    if (!pl->live[id] || pl->canon[id] != id || pl->konst[id]) continue;
    for (int i = 0; i < nd->nin + nd->ndyn; i++) {
      GraphRef r = plan_resolve(pl, nd->in[i]);
      if (r.node >= 0) uses[r.node]++;
    }
    for (int i = 0; i < nd->nctrl; i++) uses[pl->canon[nd->ctrl[i]]] += 2;   /* ordering: keep it a step */
  }
  for (int i = 0; i < g->noutputs; i++) {
    GraphRef r = plan_resolve(pl, g->outputs[i]);
    if (r.node >= 0) uses[r.node] += 2;
  }
  /* pass 0: chains ending in a Relu; pass 1: the remaining adds */
  for (int pass = 0; pass < 2; pass++)
  for (int id = 0; id < n; id++) {
    if (!pl->live[id] || pl->canon[id] != id) continue;
    int add = id;
    bool relu = false;
    if (pass == 0) {
      if (!fuse_is(pl, id, OP_RELU) || g->nodes[id].nin != 1) continue;
      GraphRef r = plan_resolve(pl, g->nodes[id].in[0]);
      if (r.node < 0 || uses[r.node] != 1) continue;
      add = r.node;
      relu = true;
    }
    bool is_add = fuse_is(pl, add, OP_ADD), is_bias = fuse_is(pl, add, OP_BIAS_ADD);
    if (!(is_add || is_bias) || g->nodes[add].nin != 2 || absorbed[add] || fuse[add] >= 0) continue;
    const GraphNode *an = &g->nodes[add];
    for (int side = 0; side < (is_add ? 2 : 1); side++) {
      GraphRef mr = plan_resolve(pl, an->in[side]), br = plan_resolve(pl, an->in[1 - side]);
      if (mr.node < 0 || br.node < 0 || mr.out != 0 || uses[mr.node] != 1 ||
          !(fuse_is(pl, mr.node, OP_MATMUL) || fuse_is(pl, mr.node, OP_CONV2D)))
        continue;
      const GraphNode *mn = &g->nodes[mr.node];
      const TMeta *mo = &mn->outm[0], *bm = &g->nodes[br.node].outm[br.out], *ao = &an->outm[0];
      /* a [N] bias of the product's dtype, statically the product's last dim; no broadcast beyond it */
      if (mn->nin != 2 || mo->rank < 2 || bm->rank != 1 || bm->dtype != mo->dtype || !(DTM(mo->dtype) & DTM_NUM)) continue;
      tfs_i64 N = mo->shape[mo->rank - 1];
      if (N < 0 || bm->shape[0] != N || ao->rank != mo->rank || ao->dtype != mo->dtype) continue;
      bool same = true;
      for (int d = 0; d < mo->rank; d++) same = same && ao->shape[d] == mo->shape[d];
      /* the product runs where the chain ends: no side effect may come between */
      if (!same || !fuse_no_effect_between(pl, mr.node, id)) continue;
      fi[nf] = (FuseInfo){mr.node, br, relu, -1};
      fuse[id] = nf++;
      absorbed[mr.node] = 1;
      if (relu) absorbed[add] = 1;
      break;
    }
  }
  plan_fuse_pool(pl, fuse, absorbed, fi, uses);
  free(uses);
  return nf;
}

/* ---- planned elementwise steps: selection, fusion, buffers ---------------------------- */

/* Whether m is a static shape of a numeric or bool dtype; *n: its element count. */
static bool ew_meta_static(const TMeta *m, tfs_i64 *n) {
  if (m->rank < 0 || m->dtype == DT_STRING) return false;
  tfs_i64 k = 1;
  for (int d = 0; d < m->rank; d++) {
    if (m->shape[d] < 0) return false;
    k *= m->shape[d];
  }
  *n = k;
  return true;
}

static bool ew_same_shape(const TMeta *a, const TMeta *b) {
  if (a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d]) return false;
  return true;
}

/* The planned form of one op step, or NULL (sm: the plan's slot metas). */
static EwPlan *ew_single(ExecStep *st, const TMeta *sm) {
  if (st->kind != ES_OP || st->sk || st->raw || st->ndyn || st->nout != 1 || st->nin < 1 || st->nin > 2) return NULL;
  const GraphNode *nd = st->node;
  if (st->op != nd->op || (nd->flags & (GNF_STATEFUL | GNF_LIST)) ||
      (st->op->flags & (OPF_VIEW | OPF_STATEFUL | OPF_VARIADIC | OPF_MULTI | OPF_NOOUT | OPF_PASS0)) ||
      op_num_inputs(st->op) != st->nin)
    return NULL;
  const TMeta *om = &nd->outm[0];
  tfs_i64 n, sz[2] = {0, 0};
  if (!ew_meta_static(om, &n)) return NULL;
  for (int i = 0; i < st->nin; i++) {
    if (st->in[i] < 0) return NULL;
    const TMeta *m = &sm[st->in[i]];
    if (m->dtype != sm[st->in[0]].dtype || !ew_meta_static(m, &sz[i])) return NULL;
    if (!(sz[i] == 1 || (sz[i] == n && ew_same_shape(m, om)))) return NULL;   /* no other broadcasting */
  }
  OpRow r;
  if (!op_row_kernel(st->op->id, sm[st->in[0]].dtype, om->dtype, &r) || (st->nin == 2) != (r.bin != NULL)) return NULL;
  EwPlan *e = calloc(1, sizeof(EwPlan) + sizeof(EwOp));
  if (!e) rt_throw(ERR_MEMORY, "out of memory");
  e->dt = om->dtype;
  e->rank = om->rank;
  for (int d = 0; d < om->rank; d++) e->shape[d] = om->shape[d];
  e->n = n;
  e->donor = e->donor_arena = e->arena = -1;
  e->amode = -1;
  e->nops = 1;
  e->ops[0] = (EwOp){r, sm[st->in[0]].dtype, st->in[0], st->nin > 1 ? st->in[1] : -1, sz[0], sz[1], st};
  return e;
}

static bool ew_in_list(const int *l, int n, int x) {
  for (int i = 0; i < n; i++)
    if (l[i] == x) return true;
  return false;
}

/* Row chains of planned products (after mm_single): step k+1 reads step k's result as its left operand,
 * nothing else reads it, and both have the same rows, as in a stack of Dense layers.  Row r of each result
 * then depends only on row r of the one before, so matmul_chain runs the whole chain as one pool job, each
 * thread on its slice of rows, where each product was a job of its own (docs/performance.md, "One pool
 * job per chain of products"). */
static void plan_mm_chains(ExecPlan *p, const int *lastuse) {
  for (int k = 0; k < p->nsteps;) {
    int n = 1;
    while (k + n < p->nsteps) {
      const ExecStep *A = &p->steps[k + n - 1], *B = &p->steps[k + n];
      int oa = A->out[0];
      if (!A->mm || !B->mm || A->mm->ta || A->mm->tb || B->mm->ta || B->mm->tb || oa < 0 || lastuse[oa] != k + n ||
          B->in[0] != oa || B->in[1] == oa ||
          (B->mm->bias && B->in[2] == oa) || B->mm->dt != A->mm->dt || B->mm->m != A->mm->m || B->mm->k != A->mm->n)
        break;
      n++;
    }
    p->steps[k].mmchain = n >= 2 ? n : 0;
    k += n;
  }
}

/* A planned product (no bias or relu) whose left operand is gathered rows of a table:
 * Reshape([B*T, K]) of GatherV2(E [V, K], ids [B, T]) (axis 0), or of its Transpose to [T, B, K] (an
 * Embedding feeding a recurrent layer's input projection), each result read only by the next.  The
 * gather, transpose and reshape are deferred to the product's step, which runs matmul_gather (V rows
 * multiplied, not B*T); when that declines (other kernels, an id out of range) the deferred steps run
 * there as planned, so errors are the gather's own (docs/performance.md, "Embedding into the projection"). */
typedef struct GpPlan {
  int steps[3];               /* the deferred steps, in order: gather, [transpose,] reshape */
  int nsteps;
  int table, ids;             /* their slots */
  tfs_i64 V, B, T;
  bool tmajor;
} GpPlan;

static bool gp_attr_zero(const OpAttrs *a, int i) {
  Val v = i < a->n ? a->v[i] : val_undef();
  return v.tag == VT_UNDEF || v.tag == VT_NONE || (v.tag == VT_INT && v.u.i == 0);
}

static bool gp_static(const TMeta *m, int rank) {
  if (m->rank != rank) return false;
  for (int d = 0; d < rank; d++)
    if (m->shape[d] <= 0) return false;
  return true;
}

static void plan_gather_project(ExecPlan *p, const TMeta *sm, const int *lastuse) {
  /* per slot: its producing step, and how many steps read it (a deferred result must have one reader) */
  int *prod = malloc(sizeof(int) * (size_t)(2 * p->nslots + 1)), *nread = prod + p->nslots;
  if (!prod) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < p->nslots; i++) prod[i] = -1, nread[i] = 0;
  for (int k = 0; k < p->nsteps; k++) {
    const ExecStep *st = &p->steps[k];
    if (st->kind == ES_OP && st->nout >= 1 && st->out[0] >= 0) prod[st->out[0]] = k;
    for (int i = 0; i < st->nin + st->ndyn; i++)
      if (st->in[i] >= 0) nread[st->in[i]]++;
  }
  for (int k = 0; k < p->nsteps; k++) {
    ExecStep *M = &p->steps[k];
    if (!M->mm || M->mm->bias || M->mm->relu || M->mm->ta || M->mm->tb || M->mmchain) continue;
    int a = M->in[0], kr = a >= 0 ? prod[a] : -1;
    if (kr < 0 || lastuse[a] != k || nread[a] != 1) continue;
    ExecStep *R = &p->steps[kr];
    if (R->op->id != OP_RESHAPE || R->nin < 1 || R->in[0] < 0 || R->ndyn || R->skip || R->ew || R->mm) continue;
    int x = R->in[0], kx = prod[x];
    if (kx < 0 || lastuse[x] != kr || nread[x] != 1) continue;
    ExecStep *X = &p->steps[kx], *T = NULL, *G = X;
    bool tmajor = false;
    if (X->op->id == OP_TRANSPOSE) {
      if (X->nin != 1 || X->in[0] < 0 || X->ndyn || X->skip || X->ew || X->attrs->n < 1) continue;
      tfs_i64 perm[TFS_MAX_RANK];
      Val pv = X->attrs->v[0];
      if (pv.tag == VT_UNDEF || pv.tag == VT_NONE || val_to_dims(pv, perm, false, "tf.transpose perm") != 3 ||
          perm[0] != 1 || perm[1] != 0 || perm[2] != 2)
        continue;
      int g = X->in[0], kg = prod[g];
      if (kg < 0 || lastuse[g] != kx || nread[g] != 1) continue;
      T = X;
      G = &p->steps[kg];
      tmajor = true;
    }
    if (G->op->id != OP_GATHER || G->nin != 2 || G->in[0] < 0 || G->in[1] < 0 || G->raw || G->ndyn || G->skip || G->ew ||
        !gp_attr_zero(G->attrs, 1) || !gp_attr_zero(G->attrs, 2))
      continue;
    const TMeta *e = &sm[G->in[0]], *ix = &sm[G->in[1]], *am = &sm[a];
    if (!gp_static(e, 2) || !gp_static(ix, 2) || (ix->dtype != DT_INT32 && ix->dtype != DT_INT64) || e->dtype != M->mm->dt ||
        !gp_static(am, 2) || am->shape[0] != ix->shape[0] * ix->shape[1] || am->shape[1] != e->shape[1] || e->shape[1] != M->mm->k)
      continue;
    bool calm = true;   /* nothing in between may change the table the deferred gather reads */
    for (int j = (int)(G - p->steps) + 1; j < k && calm; j++) {
      const ExecStep *S = &p->steps[j];
      if (S->kind != ES_OP) calm = false;
      else if (S->op->id != OP_READ_VARIABLE && ((S->op->flags & OPF_STATEFUL) || (S->node->flags & GNF_STATEFUL))) calm = false;
    }
    if (!calm) continue;
    GpPlan *gp = malloc(sizeof *gp);
    if (!gp) rt_throw(ERR_MEMORY, "out of memory");
    *gp = (GpPlan){{(int)(G - p->steps), T ? (int)(T - p->steps) : kr, kr}, T ? 3 : 2, G->in[0], G->in[1],
                   e->shape[0], ix->shape[0], ix->shape[1], tmajor};
    M->gp = gp;
    for (int i = 0; i < gp->nsteps; i++) p->steps[gp->steps[i]].gpdefer = true;
  }
  free(prod);
}

/* Select the planned elementwise steps, fuse consecutive ones, then plan their
 * result buffers by liveness (lastuse: last reading step per slot, nsteps for
 * graph outputs). */
/* Whether an op step run through op_run may get its result from the arena: one static-shape,
 * non-string result of an op that makes a new tensor (no view, pass-through or state). */
static bool oarena_ok(const ExecStep *st) {
  if (st->kind != ES_OP || st->ew || st->sk || st->nout != 1 || st->out[0] < 0) return false;
  if ((st->op->flags & (OPF_VIEW | OPF_STATEFUL | OPF_MULTI | OPF_NOOUT | OPF_PASS0 | OPF_VARIADIC)) ||
      (st->node->flags & (GNF_STATEFUL | GNF_LIST)))
    return false;
  tfs_i64 n;
  return ew_meta_static(&st->node->outm[0], &n);
}

/* A transpose/adjoint attribute known false at plan time. */
static bool mm_flag_off(const OpAttrs *a, int i) {
  Val v = i < a->n ? a->v[i] : val_undef();
  return v.tag == VT_UNDEF || v.tag == VT_NONE || ((v.tag == VT_BOOL || v.tag == VT_INT) && v.u.i == 0);
}
/* One known true at plan time. */
static bool mm_flag_on(const OpAttrs *a, int i) {
  Val v = i < a->n ? a->v[i] : val_undef();
  return (v.tag == VT_BOOL || v.tag == VT_INT) && v.u.i != 0;
}

/* ---- inter-op pairs ---------------------------------------------------------------------
 * Two planned products that do not depend on each other (a Dense layer's gradient products dW = X^T dY and dX = dY
 * W^T, both reading dY) run as one pool job (matmul_prods) when both split over the pool: each is cut into the
 * slices it gets alone, so each result has its own bits for the thread count, and the pair costs one hand-off and
 * one wait instead of two (products too small to split run one after another: at once on two threads they measured
 * no faster, docs/performance.md "Inter-op pairs").  A pair is step k's product and a later one, j <= k +
 * PAIR_LOOK, whose operands are all made before step k; the steps between must be pure ops (no state, no cond or
 * while), so running j's product early changes nothing they see, and j's own position only releases its operands.
 * Neither step may be part of a chain, a deferred gather or carry control dependencies.  Off when the pool has one
 * thread or tf.config.threading.set_inter_op_parallelism_threads(1) (exec_inter_op). */
enum { PAIR_LOOK = 8 };
int exec_inter_op;
static _Atomic tfs_i64 exec_pair_runs;   /* any thread's (tf.data's graph workers run plans too) */
tfs_i64 exec_pair_count(void) { return exec_pair_runs; }

static bool pair_step_ok(const ExecStep *st) {
  return st->mm && !st->mmchain && !st->gp && !st->gpdefer && !st->skip && st->node->nctrl == 0;
}

static void plan_pairs(ExecPlan *p) {
  int *prod = malloc(sizeof(int) * (size_t)(p->nslots + 1));
  unsigned char *inchain = calloc((size_t)p->nsteps + 1, 1);
  if (!prod || !inchain) {
    free(prod), free(inchain);
    rt_throw(ERR_MEMORY, "out of memory");
  }
  for (int i = 0; i < p->nslots; i++) prod[i] = -1;
  for (int k = 0; k < p->nsteps; k++) {
    const ExecStep *st = &p->steps[k];
    for (int o = 0; o < st->nout; o++)
      if (st->out[o] >= 0) prod[st->out[o]] = k;
    for (int l = 1; l < st->mmchain; l++) inchain[k + l] = 1;   /* links run by the chain's first step */
  }
  for (int k = 0; k < p->nsteps; k++) {
    ExecStep *A = &p->steps[k];
    if (inchain[k] || !pair_step_ok(A)) continue;
    for (int j = k + 1; j < p->nsteps && j <= k + PAIR_LOOK; j++) {
      const ExecStep *B = &p->steps[j];
      bool ready = !inchain[j] && pair_step_ok(B) && B->mm->dt == A->mm->dt;
      for (int i = 0; i < B->nin && ready; i++) ready = prod[B->in[i]] < k;
      if (ready) {
        A->pair = j;
        k = j;   /* pairs do not overlap: the run loop keeps one pending partner */
        break;
      }
      if (B->kind != ES_OP || (B->op->flags & OPF_STATEFUL) || (B->node->flags & GNF_STATEFUL) || B->node->nctrl) break;
    }
  }
  free(prod);
  free(inchain);
}

/* The planned form of a MatMul / _FusedMatMul step, or NULL (after plan_ew: the step's arena slot is known). */
static MmPlan *mm_single(const ExecStep *st, const TMeta *sm) {
  if (st->kind != ES_OP || st->ew || st->sk || st->raw || st->ndyn || st->nout != 1) return NULL;
  bool fused = st->op->id == OP_FUSED_MATMUL;
  if (!fused && st->op->id != OP_MATMUL) return NULL;
  if (st->nin != (fused ? 3 : 2) || (fused && st->attrs->n < 5)) return NULL;
  /* transposes known at plan time (a Dense layer's gradient products: X^T dY, dY W^T); adjoints are
   * transposes for these real dtypes but stay on op_run */
  for (int i = 0; i < 4; i++)
    if (!mm_flag_off(st->attrs, i) && (i >= 2 || !mm_flag_on(st->attrs, i))) return NULL;
  bool ta = mm_flag_on(st->attrs, 0), tb = mm_flag_on(st->attrs, 1);
  for (int i = 0; i < st->nin; i++)
    if (st->in[i] < 0) return NULL;
  const TMeta *a = &sm[st->in[0]], *b = &sm[st->in[1]];
  DType dt = a->dtype;
  if ((dt != DT_FLOAT32 && dt != DT_FLOAT64 && dt != DT_INT32 && dt != DT_INT64) || b->dtype != dt) return NULL;
  if (a->rank != 2 || b->rank != 2) return NULL;
  tfs_i64 M = a->shape[ta], K = a->shape[!ta], N = b->shape[!tb];
  if (M <= 0 || K <= 0 || N <= 0 || b->shape[tb] != K) return NULL;
  bool relu = false;
  if (fused) {
    const TMeta *c = &sm[st->in[2]];
    Val act = st->attrs->v[4];
    if (c->dtype != dt || c->rank != 1 || c->shape[0] != N || act.tag != VT_INT) return NULL;
    relu = act.u.i == 1;
  }
  MmPlan *m = malloc(sizeof *m);
  if (!m) rt_throw(ERR_MEMORY, "out of memory");
  *m = (MmPlan){dt, M, N, K, fused, relu, ta, tb};
  return m;
}

/* A side operand of the op fusing at step kb onto the chain held by step k: operand slot x is the
 * result of a single planned op S (step ks < k) that only step kb reads, of the chain's dtype and shape.
 * S then moves into the chain as its first op, computing each block into a second buffer that kb's op
 * reads: Adam's `(m * alpha) / (sqrt(v) + eps)` reads `m * alpha` from there, where it was a pass of
 * its own through an arena tensor (written, then read back from memory).  Moving S later is only
 * allowed past steps that change nothing it reads: variable reads and the chain's own ops.  Returns
 * ks, or -1. */
static int ew_side_step(const ExecPlan *p, int x, int k, int kb, const int *lastuse, const EwPlan *ea) {
  if (x < 0 || lastuse[x] != kb || dtype_holds_refs(ea->dt) || dtype_info[ea->dt].size > 8) return -1;
  /* the look back is bounded (no side op beyond it): fused chains and variable reads are runs of
   * steps passed over, and an unbounded look from every step made planning quadratic in them */
  for (int j = kb - 1; j >= 0 && j >= kb - EW_LOOK_BACK; j--) {
    const ExecStep *S = &p->steps[j];
    if (S->nout >= 1 && S->out[0] == x) {
      const EwPlan *es = S->ew;
      if (S->kind != ES_OP || S->skip || !es || es->nops != 1 || es->amode >= 0 || es->side || es->dt != ea->dt ||
          es->n != ea->n || es->rank != ea->rank || memcmp(es->shape, ea->shape, sizeof(tfs_i64) * (size_t)ea->rank))
        return -1;
      return j;
    }
    if (!(j == k || S->skip || (S->kind == ES_OP && S->op->id == OP_READ_VARIABLE))) return -1;
  }
  return -1;
}

static void plan_ew(ExecPlan *p, const TMeta *sm, const int *lastuse) {
  for (int k = 0; k < p->nsteps; k++) {
    p->steps[k].ew = ew_single(&p->steps[k], sm);
    p->steps[k].oarena = -1;
  }
  /* fusion: step k's result read only by the next planned step, same dtype and shape, and that
   * step's op keeps the dtype.  ReadVariableOp steps in between are passed over (an optimizer's
   * `tf.square(g) - s` reads s between the two ops): they change nothing the moved op reads. */
  for (int k = 0; k + 1 < p->nsteps; k++) {
    ExecStep *A = &p->steps[k];
    int kb = k + 1;
    while (kb + 1 < p->nsteps && p->steps[kb].kind == ES_OP && p->steps[kb].op->id == OP_READ_VARIABLE && !p->steps[kb].skip)
      kb++;
    ExecStep *B = &p->steps[kb];
    if (!A->ew || !B->ew || B->ew->nops != 1 || A->ew->nops >= EW_CHAIN_MAX) continue;
    EwPlan *ea = A->ew, *eb = B->ew;
    int oa = A->out[0];
    if (oa < 0 || lastuse[oa] != kb || eb->dt != ea->dt || eb->ops[0].in != ea->dt || eb->n != ea->n ||
        eb->rank != ea->rank || memcmp(eb->shape, ea->shape, sizeof(tfs_i64) * (size_t)ea->rank))
      continue;
    EwOp ob = eb->ops[0];
    if (ob.a != oa && ob.b != oa) continue;
    if (ob.a == oa) ob.a = EW_PREV;
    if (ob.b == oa) ob.b = EW_PREV;
    int ks = ea->side ? -1 : ew_side_step(p, ob.a == EW_PREV ? ob.b : ob.a, k, kb, lastuse, ea);
    ExecStep *S = ks >= 0 ? &p->steps[ks] : NULL;
    if (S) {
      if (ob.a != EW_PREV) ob.a = EW_SIDE;
      else ob.b = EW_SIDE;
    }
    int off = S != NULL;
    EwPlan *e = calloc(1, sizeof(EwPlan) + sizeof(EwOp) * (size_t)(ea->nops + 1 + off));
    if (!e) rt_throw(ERR_MEMORY, "out of memory");
    *e = *ea;
    if (S) {
      e->ops[0] = S->ew->ops[0];
      e->ops[0].to_side = true;
      e->side = true;
    }
    memcpy(e->ops + off, ea->ops, sizeof(EwOp) * (size_t)ea->nops);
    e->nops += off;
    e->ops[e->nops++] = ob;
    /* the chain's release list: what A's, B's (and the side op's) lists release (they run after B now) */
    e->rel = malloc(sizeof(int) * (size_t)(A->nrel + B->nrel + (S ? S->nrel : 0) + 1));
    if (!e->rel) rt_throw(ERR_MEMORY, "out of memory");
    int nrel = 0;
    for (int i = 0; i < A->nrel; i++) e->rel[nrel++] = A->rel[i];   /* A's own list, or its chain's */
    for (int i = 0; S && i < S->nrel; i++)
      if (!ew_in_list(e->rel, nrel, S->rel[i])) e->rel[nrel++] = S->rel[i];
    for (int i = 0; i < B->nrel; i++)
      if (!ew_in_list(e->rel, nrel, B->rel[i])) e->rel[nrel++] = B->rel[i];
    free(ea->rel);
    free(ea);
    free(eb);
    A->ew = NULL;
    A->skip = true;
    A->nrel = 0;
    if (S) {
      free(S->ew->rel);
      free(S->ew);
      S->ew = NULL;
      S->skip = true;
      S->nrel = 0;
      p->stats.ewside++;
    }
    B->ew = e;
    B->rel = e->rel;
    B->nrel = nrel;
    p->stats.ewfused++;
  }
  /* variable updates: a chain (or single step) whose result only the next step reads, an
   * Assign/AssignAdd/AssignSub of a Variable, becomes that step: at run time it computes the value
   * block by block and writes it (or the sum / difference variable_assign would compute) straight
   * into the variable's buffer.  The chain's ops move to the assign step (their operands' releases
   * too), so the value never exists as a tensor. */
  for (int k = 0; k + 1 < p->nsteps; k++) {
    ExecStep *A = &p->steps[k], *B = &p->steps[k + 1];
    if (!A->ew || A->skip || A->nout != 1 || B->kind != ES_OP || B->skip || B->ew || B->nin != 2 || B->ndyn ||
        B->in[0] >= 0 || !B->raw || B->in[1] < 0 || B->in[1] != A->out[0] || lastuse[A->out[0]] != k + 1)
      continue;
    OpId bid = B->op->id;
    int mode = bid == OP_ASSIGN_VARIABLE ? 0 : bid == OP_ASSIGN_ADD_VARIABLE ? 1 : bid == OP_ASSIGN_SUB_VARIABLE ? 2 : -1;
    Val var = B->raw[0];
    if (mode < 0 || var.tag != VT_OBJ || !val_is(var, &variable_type) || dtype_holds_refs(A->ew->dt) ||
        dtype_info[A->ew->dt].size > 8)   /* the run-time scratch block holds EW_BLOCK elements of up to 8 bytes */
      continue;
    EwPlan *e = A->ew;
    if (mode && (!op_row_kernel(mode == 1 ? OP_ADD : OP_SUB, e->dt, e->dt, &e->acc) || !e->acc.bin)) continue;
    e->amode = mode;
    int *rel = malloc(sizeof(int) * (size_t)(A->nrel + B->nrel + 1)), nrel = 0;
    if (!rel) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < A->nrel; i++) rel[nrel++] = A->rel[i];
    e->nrel_chain = nrel;
    for (int i = 0; i < B->nrel; i++)
      if (!ew_in_list(rel, nrel, B->rel[i])) rel[nrel++] = B->rel[i];
    free(e->rel);
    e->rel = rel;
    /* the chain's last op falls back through its own step, now generic */
    A->ew = NULL;
    A->skip = true;
    A->nrel = 0;
    B->ew = e;
    B->rel = rel;
    B->nrel = nrel;
    p->stats.update++;
  }
  /* buffers: in place over a dying operand, else an arena slot free at this point */
  int *aidx = malloc(sizeof(int) * (size_t)(p->nslots + 1));
  int *freel = malloc(sizeof(int) * (size_t)(p->nsteps + 1)), nfree = 0, cap = 0, narena = 0;
  TMeta *am = NULL;
  if (!aidx || !freel) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < p->nslots; i++) aidx[i] = -1;
  for (int k = 0; k < p->nsteps; k++) {
    ExecStep *st = &p->steps[k];
    if (st->skip) continue;
    EwPlan *e = st->ew, dummy = {.donor = -1, .donor_arena = -1, .arena = -1, .amode = -1};
    if (!e && oarena_ok(st) && lastuse[st->out[0]] < p->nsteps) {   /* as below, without a donor */
      e = &dummy;
      e->dt = st->node->outm[0].dtype;
      e->rank = st->node->outm[0].rank;
      memcpy(e->shape, st->node->outm[0].shape, sizeof(tfs_i64) * (size_t)e->rank);
    }
    if (st->ew && st->ew->amode >= 0) e = NULL;   /* a variable update: no result buffer */
    if (e) {
      if (st->ew) p->stats.ew++;
      TMeta om = {e->dt, e->rank, {0}};
      memcpy(om.shape, e->shape, sizeof(tfs_i64) * (size_t)e->rank);
      /* donor: a first-op operand of the result's dtype and shape dying here, read by no later op of the chain */
      for (int side = 0; side < 2 && e->donor < 0 && st->ew; side++) {
        int x = side ? e->ops[0].b : e->ops[0].a;
        if (x < 0 || !p->produced[x] || !ew_in_list(st->rel, st->nrel, x) || sm[x].dtype != e->dt || !ew_same_shape(&sm[x], &om))
          continue;
        bool later = false;
        for (int j = 1; j < e->nops; j++) later = later || e->ops[j].a == x || e->ops[j].b == x;
        if (!later) e->donor = x;
      }
      int out = st->out[0];
      if (e->donor >= 0) e->donor_arena = aidx[e->donor];
      if (out >= 0 && lastuse[out] < p->nsteps) {   /* graph outputs leave with the caller: no arena slot */
        int idx = -1;
        if (e->donor_arena >= 0) {
          idx = e->donor_arena;
          aidx[e->donor] = -1;   /* passes to the result, not back to the free list */
        }
        for (int j = 0; j < nfree && idx < 0; j++)
          if (am[freel[j]].dtype == om.dtype && ew_same_shape(&am[freel[j]], &om)) {
            idx = freel[j];
            freel[j] = freel[--nfree];
          }
        if (idx < 0) {
          if (narena == cap) {
            cap = cap ? 2 * cap : 16;
            TMeta *n2 = realloc(am, sizeof(TMeta) * (size_t)cap);
            if (!n2) rt_throw(ERR_MEMORY, "out of memory");
            am = n2;
          }
          am[narena] = om;
          idx = narena++;
        }
        e->arena = idx;
        aidx[out] = idx;
        if (!st->ew) st->oarena = idx;
      }
    }
    for (int r = 0; r < st->nrel; r++) {
      int sl = st->rel[r];
      if (aidx[sl] >= 0) {
        freel[nfree++] = aidx[sl];
        aidx[sl] = -1;
      }
    }
  }
  free(aidx);
  free(freel);
  free(am);
  p->narena = narena;
  p->stats.arena = narena;
  p->arena = calloc((size_t)narena + 1, sizeof(Tensor *));
  if (!p->arena) rt_throw(ERR_MEMORY, "out of memory");
}

/* ---- planning ----------------------------------------------------------------------- */

static ExecPlan *exec_plan_build(Graph *g);

static int plan_private;   /* > 0: exec_plan_new_private is planning (main thread only) */
static void plan_private_unwind(void *unused) {
  (void)unused;
  plan_private--;
}

ExecPlan *exec_plan_new_private(Graph *g) {
  plan_private++;
  int mark = rt_hold_fn(plan_private_unwind, NULL);
  ExecPlan *p = exec_plan_new(g);
  rt_unhold(mark);
  plan_private--;
  return p;
}

ExecPlan *exec_plan_new(Graph *g) {
  TraceCtx *saved = trace_suspend();   /* folding runs kernels */
  ExecPlan *p = exec_plan_build(g);
  trace_resume(saved);
  return p;
}

static ExecPlan *exec_plan_build(Graph *g) {
  int n = g->nnodes;
  Planner pl;
  pl.g = g;
  pl.n = n;
  pl.canon = malloc(sizeof(int) * (size_t)(n + 1));
  pl.konst = calloc((size_t)n + 1, sizeof(Tensor **));
  pl.kowned = calloc((size_t)n + 1, 1);
  pl.nkonst = calloc((size_t)n + 1, sizeof(int));
  pl.live = calloc((size_t)n + 1, 1);
  ExecPlan *p = calloc(1, sizeof(ExecPlan));
  if (!pl.canon || !pl.konst || !pl.kowned || !pl.nkonst || !pl.live || !p) rt_throw(ERR_MEMORY, "out of memory");
  p->g = graph_retain(g);
  p->stats.nodes = n;
  for (int id = 0; id < n; id++) {
    pl.canon[id] = id;
    if (g->nodes[id].kind == GN_CONST) {
      pl.konst[id] = &g->nodes[id].value;
      pl.nkonst[id] = 1;
    }
  }

  /* 1. what is needed at all */
  plan_mark(&pl);

  /* 2. fold and merge needed pure ops, in creation order */
  int hcap = 16;
  while (hcap < 2 * n) hcap *= 2;
  int *htab = malloc(sizeof(int) * (size_t)hcap);
  if (!htab) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < hcap; i++) htab[i] = -1;
  for (int id = 0; id < n; id++) {
    GraphNode *nd = &g->nodes[id];
    if (!pl.live[id] || nd->kind != GN_OP || (nd->flags & GNF_STATEFUL) || (nd->op->flags & OPF_STATEFUL)) continue;
    if (nd->op->id == OP_IDENTITY) continue;   /* forwarded by plan_resolve */
    bool all_const = true;
    for (int i = 0; i < nd->nin + nd->ndyn; i++) {
      GraphRef r = plan_resolve(&pl, nd->in[i]);
      if (r.node >= 0 && !pl.konst[r.node]) all_const = false;
    }
    if (all_const && plan_fold(&pl, id)) {
      p->stats.folded++;
      continue;
    }
    tfs_u64 h = plan_hash(&pl, nd);
    int slot = (int)(h & (tfs_u64)(hcap - 1));
    for (;; slot = (slot + 1) & (hcap - 1)) {
      int other = htab[slot];
      if (other < 0) { htab[slot] = id; break; }
      if (plan_same(&pl, &g->nodes[other], nd)) {
        pl.canon[id] = other;
        p->stats.cse++;
        break;
      }
    }
  }
  free(htab);

  /* 3. liveness again: folding and merging made some producers unnecessary */
  plan_mark(&pl);

  /* 4. slots: one per needed output value */
  int *base = malloc(sizeof(int) * (size_t)(n + 1));
  if (!base) rt_throw(ERR_MEMORY, "out of memory");
  int nslots = 0;
  for (int id = 0; id < n; id++) {
    base[id] = -1;
    const GraphNode *nd = &g->nodes[id];
    if (!pl.live[id] || pl.canon[id] != id || nd->kind == GN_VARHANDLE) continue;
    base[id] = nslots;
    nslots += nd->nout;
  }
  p->nslots = nslots;
  p->init = calloc((size_t)nslots + 1, sizeof(Tensor *));
  p->init_owned = calloc((size_t)nslots + 1, 1);
  p->produced = calloc((size_t)nslots + 1, 1);
  p->runs = calloc((size_t)n + 1, 1);
  p->ninputs = g->ninputs;
  p->input_slot = malloc(sizeof(int) * (size_t)(g->ninputs + 1));
  p->noutputs = g->noutputs;
  p->output_slot = malloc(sizeof(int) * (size_t)(g->noutputs + 1));
  p->output_move = calloc((size_t)g->noutputs + 1, 1);
  if (!p->init || !p->init_owned || !p->produced || !p->runs || !p->input_slot || !p->output_slot || !p->output_move)
    rt_throw(ERR_MEMORY, "out of memory");
  for (int id = 0; id < n; id++) {
    if (base[id] < 0 || !pl.konst[id]) continue;
    for (int o = 0; o < g->nodes[id].nout && o < pl.nkonst[id]; o++) {
      p->init[base[id] + o] = pl.konst[id][o];
      if (pl.kowned[id]) {
        p->init_owned[base[id] + o] = 1;
        pl.konst[id][o] = NULL;   /* ownership moves to the plan */
      }
    }
  }
  if (plan_private)   /* a worker's plan: constants of its own, so no reference count is shared between threads */
    for (int i = 0; i < nslots; i++)
      if (p->init[i] && (!p->init_owned[i] || p->init[i]->dtype == DT_STRING)) {
        /* a string constant folded here may still hold the graph's strings (a view of its constant) */
        Tensor *own = tensor_copy_own(p->init[i]);
        if (p->init_owned[i]) tensor_release(p->init[i]);
        p->init[i] = own;
        p->init_owned[i] = 1;
      }
  for (int i = 0; i < g->ninputs; i++) {
    int id = g->inputs[i];
    p->input_slot[i] = base[id] >= 0 && pl.canon[id] == id ? base[id] : -1;
  }
  /* static metas of the slots (constants: their actual values), for the scalar fast paths */
  TMeta *sm = malloc(sizeof(TMeta) * (size_t)(nslots + 1));
  if (!sm) rt_throw(ERR_MEMORY, "out of memory");
  for (int id = 0; id < n; id++) {
    if (base[id] < 0) continue;
    for (int o = 0; o < g->nodes[id].nout; o++) {
      Tensor *t = p->init[base[id] + o];
      if (t) {
        sm[base[id] + o].dtype = t->dtype;
        sm[base[id] + o].rank = t->rank;
        for (int d = 0; d < t->rank; d++) sm[base[id] + o].shape[d] = t->shape[d];
      } else {
        sm[base[id] + o] = g->nodes[id].outm[o];
      }
    }
  }

  /* 5. steps, in creation order (fused chains: one step, at the last node) */
  int *fuse = malloc(sizeof(int) * (size_t)(n + 1));
  unsigned char *absorbed = malloc((size_t)n + 1);
  FuseInfo *fi = malloc(sizeof(FuseInfo) * (size_t)(n + 1));
  if (!fuse || !absorbed || !fi) rt_throw(ERR_MEMORY, "out of memory");
  int nfused = plan_fuse(&pl, fuse, absorbed, fi);
  p->fattrs = calloc((size_t)nfused + 1, sizeof(OpAttrs));
  if (!p->fattrs) rt_throw(ERR_MEMORY, "out of memory");
  int nsteps = 0, nints = 0, nraws = 0;
  for (int id = 0; id < n; id++) {
    const GraphNode *nd = &g->nodes[id];
    if (!pl.live[id] || pl.canon[id] != id || pl.konst[id] || absorbed[id]) continue;
    if (nd->kind != GN_OP && nd->kind != GN_COND && nd->kind != GN_WHILE) continue;
    if (nd->kind == GN_OP && nd->op->id == OP_IDENTITY && plan_resolve(&pl, (GraphRef){id, 0}).node != id) continue;
    int nin = fuse[id] >= 0 ? 3 : nd->nin;
    nsteps++;
    nints += 2 * (nin + nd->ndyn) + 2 * nd->nout;   /* in, out, rel (bounded) */
    nraws += nin;
  }
  p->nsteps = nsteps;
  p->steps = calloc((size_t)nsteps + 1, sizeof(ExecStep));
  p->ints = malloc(sizeof(int) * (size_t)(nints + 1));
  p->raws = malloc(sizeof(Val) * (size_t)(nraws + 1));
  int *lastuse = malloc(sizeof(int) * (size_t)(nslots + 1));
  if (!p->steps || !p->ints || !p->raws || !lastuse) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nslots; i++) lastuse[i] = -1;
  int ip = 0, rp = 0, k = 0;
  for (int id = 0; id < n; id++) {
    const GraphNode *nd = &g->nodes[id];
    if (!pl.live[id] || pl.canon[id] != id || pl.konst[id] || absorbed[id]) continue;
    if (nd->kind != GN_OP && nd->kind != GN_COND && nd->kind != GN_WHILE) continue;
    if (nd->kind == GN_OP && nd->op->id == OP_IDENTITY && plan_resolve(&pl, (GraphRef){id, 0}).node != id) continue;
    ExecStep *st = &p->steps[k];
    const FuseInfo *f = fuse[id] >= 0 ? &fi[fuse[id]] : NULL;
    const GraphNode *src = f ? &g->nodes[f->mm] : nd;   /* inputs, attributes, error location */
    GraphRef fref[3];
    const GraphRef *refs = nd->in;
    int nin = nd->nin, ndyn = nd->ndyn;
    st->kind = nd->kind == GN_OP ? ES_OP : nd->kind == GN_COND ? ES_COND : ES_WHILE;
    st->op = nd->op;
    st->node = nd;
    st->attrs = &nd->attrs;
    if (f) {
      OpAttrs *fa = &p->fattrs[p->stats.fused++];
      fa->n = f->pool >= 0 ? 8 : 5;
      for (int a = 0; a < 4; a++) fa->v[a] = a < src->attrs.n ? src->attrs.v[a] : val_undef();
      fa->v[4] = val_int(f->relu ? 1 : 0);
      for (int a = 0; a < 3 && f->pool >= 0; a++) fa->v[5 + a] = nd->attrs.v[a];   /* MaxPool's ksize, strides, padding */
      st->op = &op_defs[src->op->id == OP_CONV2D ? OP_FUSED_CONV2D : OP_FUSED_MATMUL];
      st->node = src;
      st->attrs = fa;
      fref[0] = src->in[0];
      fref[1] = src->in[1];
      fref[2] = f->bias;
      refs = fref;
      nin = 3;
      ndyn = 0;
    }
    st->nin = nin;
    st->max_iter = -1;
    int *in = p->ints + ip;
    ip += nin + ndyn;
    Val *raw = p->raws + rp;
    rp += nin;
    bool need_raw = false;
    for (int i = 0; i < nin; i++) {
      GraphRef r = plan_resolve(&pl, refs[i]);
      raw[i] = !f && nd->raw ? nd->raw[i] : val_undef();
      in[i] = -1;
      if (r.node >= 0 && g->nodes[r.node].kind == GN_VARHANDLE) {
        raw[i] = val_obj(g->nodes[r.node].var);
        need_raw = true;
      } else if (r.node >= 0) {
        in[i] = base[r.node] + r.out;
        lastuse[in[i]] = k;
      } else if (!val_is_undef(raw[i])) {
        need_raw = true;
      }
    }
    for (int d = 0; d < ndyn; d++) {
      GraphRef r = plan_resolve(&pl, nd->in[nd->nin + d]);
      in[nd->nin + d] = base[r.node] + r.out;
      lastuse[in[nd->nin + d]] = k;
    }
    st->ndyn = ndyn;
    st->dyn_attr = nd->dyn_attr;
    st->in = in;
    st->raw = need_raw ? raw : NULL;
    st->nout = nd->nout;
    int *out = p->ints + ip;
    ip += nd->nout;
    for (int o = 0; o < nd->nout; o++) {
      out[o] = base[id] + o;
      p->produced[out[o]] = 1;
    }
    st->out = out;
    st->donor = -1;
    if (st->kind == ES_OP && !f) st->sk = plan_scalar_kernel(nd, in, st->raw, sm, &st->sk_in);
    if (st->sk) st->sk_out = nd->outm[0].dtype;
    if (nd->kind == GN_COND || nd->kind == GN_WHILE) {
      st->sub[0] = exec_plan_new(nd->sub[0]);
      st->sub[1] = exec_plan_new(nd->sub[1]);
      int64_t mi;
      if (nd->kind == GN_WHILE && val_as_int(nd->aux, &mi)) st->max_iter = mi;
      if (nd->kind == GN_WHILE) st->loop = sloop_compile(st, sm);
    }
    if (st->sk) p->stats.scalar++;
    if (st->loop) p->stats.loops++;
    p->runs[id] = 1;
    k++;
  }
  /* outputs stay alive; a step output nobody reads is released at once */
  for (int i = 0; i < g->noutputs; i++) {
    GraphRef r = plan_resolve(&pl, g->outputs[i]);
    int sl = base[r.node] + r.out;
    p->output_slot[i] = sl;
    lastuse[sl] = nsteps;
    if (p->produced[sl]) {
      bool first = true;
      for (int j = 0; j < i; j++)
        if (p->output_slot[j] == sl) first = false;
      p->output_move[i] = first;
    }
  }
  for (int s = 0; s < k; s++) {
    ExecStep *st = &p->steps[s];
    int *out = (int *)st->out;
    for (int o = 0; o < st->nout; o++)
      if (lastuse[out[o]] < 0) out[o] = -1;
  }
  /* release lists: each produced slot after its last reader */
  for (int s = 0; s < k; s++) {
    ExecStep *st = &p->steps[s];
    int *rel = p->ints + ip;
    int nrel = 0;
    for (int i = 0; i < st->nin + st->ndyn; i++) {
      int sl = st->in[i];
      if (sl < 0 || !p->produced[sl] || lastuse[sl] != s) continue;
      bool dup = false;
      for (int j = 0; j < nrel; j++)
        if (rel[j] == sl) dup = true;
      if (!dup) rel[nrel++] = sl;
    }
    ip += nrel;
    st->rel = rel;
    st->nrel = nrel;
    /* a scalar step's result may take over a dying operand of its own dtype */
    if (st->sk)
      for (int j = 0; j < nrel && st->donor < 0; j++)
        if (sm[rel[j]].dtype == st->sk_out) st->donor = rel[j];
  }
  plan_ew(p, sm, lastuse);
  for (int k = 0; k < nsteps; k++)
    if ((p->steps[k].mm = mm_single(&p->steps[k], sm))) p->stats.mm++;
  plan_mm_chains(p, lastuse);
  plan_gather_project(p, sm, lastuse);
  plan_pairs(p);
  free(sm);
  p->stats.steps = nsteps;
  p->stats.slots = nslots;
  for (int id = 0; id < n; id++)
    if (!pl.live[id] && pl.canon[id] == id && g->nodes[id].kind == GN_OP) p->stats.pruned++;

  for (int id = 0; id < n; id++) {
    if (pl.kowned[id]) {
      for (int o = 0; o < pl.nkonst[id]; o++)
        if (pl.konst[id][o]) tensor_release(pl.konst[id][o]);
      free(pl.konst[id]);
    }
  }
  free(fuse);
  free(absorbed);
  free(fi);
  free(lastuse);
  free(base);
  free(pl.canon);
  free(pl.konst);
  free(pl.kowned);
  free(pl.nkonst);
  free(pl.live);
  return p;
}

void exec_plan_free(ExecPlan *p) {
  if (!p) return;
  for (int i = 0; i < p->nslots; i++)
    if (p->init_owned[i] && p->init[i]) tensor_release(p->init[i]);
  for (int i = 0; i < p->narena; i++)
    if (p->arena[i]) tensor_release(p->arena[i]);
  free(p->arena);
  for (int s = 0; s < p->nsteps; s++) {
    if (p->steps[s].ew) free(p->steps[s].ew->rel);
    free(p->steps[s].ew);
    free(p->steps[s].mm);
    free(p->steps[s].gp);
    exec_plan_free(p->steps[s].sub[0]);
    exec_plan_free(p->steps[s].sub[1]);
    sloop_free(p->steps[s].loop);
  }
  graph_release(p->g);
  free(p->init);
  free(p->init_owned);
  free(p->produced);
  free(p->runs);
  free(p->input_slot);
  free(p->output_slot);
  free(p->output_move);
  free(p->steps);
  free(p->ints);
  free(p->raws);
  free(p->fattrs);
  free(p);
}

/* ---- while loops as scalar register programs ----------------------------------------- */

static void sloop_free(SLoop *L) {
  if (!L) return;
  free(L->init);
  free(L->rdt);
  free(L->load);
  free(L->code);
  free(L);
}

typedef struct SComp {
  SLoop *L;
  int capregs, capcode;
  bool ok;
} SComp;

#define SREG_NONE 0xff        /* rdt of a register that holds no usable value */
#define SREG_TENSOR 0xfe      /* rdt of a register holding a (borrowed) tensor pointer */

static int sc_reg(SComp *c, int dt) {
  SLoop *L = c->L;
  if (L->nregs == c->capregs) {
    int cap = c->capregs ? 2 * c->capregs : 32;
    SReg *ni = realloc(L->init, sizeof(SReg) * (size_t)cap);
    if (ni) L->init = ni;
    unsigned char *nd = realloc(L->rdt, (size_t)cap);
    if (nd) L->rdt = nd;
    if (!ni || !nd) rt_throw(ERR_MEMORY, "out of memory");
    c->capregs = cap;
  }
  memset(&L->init[L->nregs], 0, sizeof(SReg));
  L->rdt[L->nregs] = (unsigned char)dt;
  return L->nregs++;
}

static int sc_emit(SComp *c, SKind kind, int dst, int a, int b) {
  SLoop *L = c->L;
  if (L->ncode == c->capcode) {
    int cap = c->capcode ? 2 * c->capcode : 32;
    SInstr *n = realloc(L->code, sizeof(SInstr) * (size_t)cap);
    if (!n) rt_throw(ERR_MEMORY, "out of memory");
    L->code = n;
    c->capcode = cap;
  }
  SInstr *in = &L->code[L->ncode];
  memset(in, 0, sizeof *in);
  in->kind = (unsigned char)kind;
  in->dst = dst;
  in->a = a;
  in->b = b;
  return L->ncode++;
}

static int sc_dt(const SComp *c, int r) { return r < 0 ? SREG_NONE : c->L->rdt[r]; }

static void sc_while(SComp *c, const ExecStep *st, const int *inreg, int *outreg, bool root);

/* tf.gather(params, i) of one element of a loop-invariant vector (a for loop
 * over a tensor or a tf.range): an instruction of its own. */
static bool sc_gather_ok(const SComp *c, const ExecStep *st, const int *in) {
  if (st->op->id != OP_GATHER || st->sk || st->nin != 2 || st->nout != 1 || st->raw || st->ndyn) return false;
  int it = sc_dt(c, in[1]);
  if (sc_dt(c, in[0]) != SREG_TENSOR || (it != DT_INT32 && it != DT_INT64)) return false;
  if (!sreg_meta_ok(&st->node->outm[0])) return false;
  const OpAttrs *at = st->attrs;
  Val axis = at->n > 1 ? at->v[1] : val_undef(), bd = at->n > 2 ? at->v[2] : val_undef();
  bool axis_ok = axis.tag == VT_UNDEF || axis.tag == VT_NONE || (axis.tag == VT_INT && (axis.u.i == 0 || axis.u.i == -1));
  bool bd_ok = bd.tag == VT_UNDEF || bd.tag == VT_NONE || (bd.tag == VT_INT && bd.u.i == 0);
  return axis_ok && bd_ok;
}

/* Emit a body plan's steps; inreg[i]: register of plan input i (-1: not a 0-d
 * value); outreg receives the register of each output. */
static void sc_plan(SComp *c, const ExecPlan *P, const int *inreg, int *outreg) {
  int *reg = malloc(sizeof(int) * (size_t)(P->nslots + 1));
  if (!reg) rt_throw(ERR_MEMORY, "out of memory");
  for (int sl = 0; sl < P->nslots; sl++) reg[sl] = -1;
  for (int i = 0; i < P->ninputs; i++)
    if (P->input_slot[i] >= 0) reg[P->input_slot[i]] = inreg[i];
  for (int sl = 0; sl < P->nslots; sl++) {
    Tensor *t = P->init[sl];
    if (!t || reg[sl] >= 0 || t->dtype >= DT_STRING) continue;
    if (t->rank == 0) {
      reg[sl] = sc_reg(c, t->dtype);
      memcpy(&c->L->init[reg[sl]], tensor_data(t), (size_t)dtype_info[t->dtype].size);
    } else {
      reg[sl] = sc_reg(c, SREG_TENSOR);   /* the plan owns it as long as the program */
      c->L->init[reg[sl]].t = t;
    }
  }
  for (int k = 0; k < P->nsteps && c->ok; k++) {
    const ExecStep *st = &P->steps[k];
    int ib[8], *in = st->nin <= 8 ? ib : malloc(sizeof(int) * (size_t)st->nin);
    int ob[8], *out = st->nout <= 8 ? ob : malloc(sizeof(int) * (size_t)st->nout);
    if (!in || !out) rt_throw(ERR_MEMORY, "out of memory");
    for (int i = 0; i < st->nin; i++) in[i] = st->in[i] >= 0 ? reg[st->in[i]] : -1;
    switch (st->kind) {
      case ES_OP: {
        if (sc_gather_ok(c, st, in)) {
          int d = sc_reg(c, st->node->outm[0].dtype);
          int at = sc_emit(c, SI_GATHER, d, in[0], in[1]);
          c->L->code[at].dt = (unsigned char)sc_dt(c, in[1]);
          c->L->code[at].esz = (unsigned char)dtype_info[st->node->outm[0].dtype].size;
          c->L->code[at].step = st;
          out[0] = d;
          break;
        }
        if (!st->sk || st->nin < 1 || st->nin > 2 || st->nout != 1 || sc_dt(c, in[0]) != (int)st->sk_in ||
            sc_dt(c, in[st->nin - 1]) != (int)st->sk_in) {
          c->ok = false;
          break;
        }
        int d = sc_reg(c, st->sk_out);
        int at = sc_emit(c, SI_OP, d, in[0], in[st->nin - 1]);
        c->L->code[at].fn = st->sk;
        c->L->code[at].step = st;
        out[0] = d;
        break;
      }
      case ES_COND: {
        int dt = sc_dt(c, in[0]);
        if (dt >= DT_STRING) { c->ok = false; break; }
        int jf = sc_emit(c, SI_JMPF, -1, in[0], in[0]);
        c->L->code[jf].dt = (unsigned char)dt;
        int tb[8], eb[8];
        int *to = st->nout <= 8 ? tb : malloc(sizeof(int) * (size_t)st->nout);
        int *eo = st->nout <= 8 ? eb : malloc(sizeof(int) * (size_t)st->nout);
        if (!to || !eo) rt_throw(ERR_MEMORY, "out of memory");
        if (st->sub[0]->noutputs != st->nout || st->sub[1]->noutputs != st->nout) c->ok = false;
        if (c->ok) sc_plan(c, st->sub[0], in + 1, to);
        for (int o = 0; o < st->nout && c->ok; o++) {
          out[o] = sc_reg(c, sc_dt(c, to[o]));
          if (sc_dt(c, to[o]) == SREG_NONE) c->ok = false;
          else sc_emit(c, SI_MOV, out[o], to[o], to[o]);
        }
        int jend = c->ok ? sc_emit(c, SI_JMP, -1, 0, 0) : -1;
        if (c->ok) c->L->code[jf].dst = c->L->ncode;
        if (c->ok) sc_plan(c, st->sub[1], in + 1, eo);
        for (int o = 0; o < st->nout && c->ok; o++) {
          if (sc_dt(c, eo[o]) != sc_dt(c, out[o])) c->ok = false;
          else sc_emit(c, SI_MOV, out[o], eo[o], eo[o]);
        }
        if (c->ok) c->L->code[jend].dst = c->L->ncode;
        if (to != tb) free(to);
        if (eo != eb) free(eo);
        break;
      }
      case ES_WHILE:
        sc_while(c, st, in, out, false);
        break;
    }
    for (int o = 0; o < st->nout && c->ok; o++)
      if (st->out[o] >= 0) reg[st->out[o]] = out[o];
    if (in != ib) free(in);
    if (out != ob) free(out);
  }
  for (int i = 0; i < P->noutputs && c->ok; i++) {
    int sl = P->output_slot[i];
    outreg[i] = sl >= 0 ? reg[sl] : -1;
    if (sc_dt(c, outreg[i]) == SREG_NONE) c->ok = false;
  }
  free(reg);
}

static bool sc_reads(const SInstr *in, int r) {
  switch (in->kind) {
    case SI_OP: case SI_GATHER: return in->a == r || in->b == r;
    case SI_JMPF: case SI_MOV: case SI_COUNT: return in->a == r;
    default: return false;
  }
}

static bool sc_writes(const SInstr *in, int r) {
  return (in->kind == SI_OP || in->kind == SI_MOV || in->kind == SI_ZERO || in->kind == SI_GATHER) && in->dst == r;
}

/* Let a body instruction write loop variable V[i] directly when its old value
 * is not read after it (by later instructions, or by the end-of-body copies of
 * other variables) and the instruction runs exactly once per iteration (not
 * inside a nested cond or loop): that variable then needs no copy. */
static void sc_in_place(SComp *c, int bs, int nv, const int *V, int *bout) {
  SLoop *L = c->L;
  int be = L->ncode;
  for (int i = 0; i < nv; i++) {
    int R = bout[i];
    bool read_at_end = false, is_var = false;
    for (int j = 0; j < nv; j++) {
      if (j != i && bout[j] == V[i]) read_at_end = true;
      if (R == V[j]) is_var = true;
    }
    if (read_at_end || is_var) continue;
    int k = -1, nw = 0;
    for (int j = 0; j < be; j++)
      if (sc_writes(&L->code[j], R)) { k = j; nw++; }
    if (nw != 1 || k < bs || (L->code[k].kind != SI_OP && L->code[k].kind != SI_GATHER)) continue;
    bool ok = true;
    for (int j = bs; j < be && ok; j++) {
      SKind kd = (SKind)L->code[j].kind;
      if (kd == SI_JMPF || kd == SI_JMP || kd == SI_COUNT) {
        int t = L->code[j].dst, lo = t < j ? t : j, hi = t < j ? j : t;
        if (lo <= k && k <= hi) ok = false;   /* conditional or repeated */
      }
      if (j > k && sc_reads(&L->code[j], V[i])) ok = false;
    }
    if (!ok) continue;
    L->code[k].dst = V[i];
    for (int j = k + 1; j < be; j++) {
      SInstr *in = &L->code[j];
      if ((in->kind == SI_OP || in->kind == SI_GATHER) && in->b == R) in->b = V[i];
      if (sc_reads(in, R)) in->a = in->a == R ? V[i] : in->a;
    }
    for (int j = 0; j < nv; j++)
      if (bout[j] == R) bout[j] = V[i];
  }
}

/* A while loop: loop variables in registers V (the inputs themselves at the
 * root, fresh copies inside another program), then
 *   [ZERO cnt] head: [COUNT cnt] cond... JMPF end; body...; copies; JMP head; end: */
static void sc_while(SComp *c, const ExecStep *st, const int *inreg, int *outreg, bool root) {
  const ExecPlan *pc = st->sub[0], *pb = st->sub[1];
  const GraphNode *nd = st->node;
  int nv = st->nout, nin = st->nin;
  if (st->ndyn || nin < nv || pc->noutputs != 1 || pb->noutputs != nv || pc->ninputs != nin || pb->ninputs != nin) {
    c->ok = false;
    return;
  }
  int *V = malloc(sizeof(int) * (size_t)(nin + 1));
  int *bout = malloc(sizeof(int) * (size_t)(nv + 1));
  int *tmp = malloc(sizeof(int) * (size_t)(nv + 1));
  if (!V || !bout || !tmp) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < nin; i++) V[i] = inreg[i];
  for (int i = 0; i < nv && c->ok; i++) {
    int dt = sc_dt(c, inreg[i]);
    if (dt == SREG_NONE || !sreg_meta_ok(&nd->outm[i]) || nd->outm[i].dtype != (DType)dt) c->ok = false;
    else if (!root) {
      V[i] = sc_reg(c, dt);
      sc_emit(c, SI_MOV, V[i], inreg[i], inreg[i]);
    }
  }
  int cnt = -1, head = 0, jcount = -1, jf = -1, cout = -1;
  if (c->ok && st->max_iter >= 0) {
    cnt = sc_reg(c, DT_INT64);
    sc_emit(c, SI_ZERO, cnt, cnt, cnt);
  }
  head = c->L->ncode;
  if (c->ok && cnt >= 0) {
    jcount = sc_emit(c, SI_COUNT, -1, cnt, cnt);
    c->L->code[jcount].max = st->max_iter;
  }
  if (c->ok) sc_plan(c, pc, V, &cout);
  if (c->ok && sc_dt(c, cout) >= DT_STRING) c->ok = false;
  if (c->ok) {
    jf = sc_emit(c, SI_JMPF, -1, cout, cout);
    c->L->code[jf].dt = (unsigned char)sc_dt(c, cout);
  }
  int bs = c->L->ncode;
  if (c->ok) sc_plan(c, pb, V, bout);
  for (int i = 0; i < nv && c->ok; i++)
    if (sc_dt(c, bout[i]) != sc_dt(c, V[i])) c->ok = false;
  if (c->ok) {
    sc_in_place(c, bs, nv, V, bout);
    /* the remaining copies happen in parallel: through temporaries when several */
    int nc = 0, last = -1;
    for (int i = 0; i < nv; i++)
      if (bout[i] != V[i]) { nc++; last = i; }
    if (nc == 1) {
      sc_emit(c, SI_MOV, V[last], bout[last], bout[last]);
    } else if (nc > 1) {
      for (int i = 0; i < nv; i++)
        if (bout[i] != V[i]) {
          tmp[i] = sc_reg(c, sc_dt(c, V[i]));
          sc_emit(c, SI_MOV, tmp[i], bout[i], bout[i]);
        }
      for (int i = 0; i < nv; i++)
        if (bout[i] != V[i]) sc_emit(c, SI_MOV, V[i], tmp[i], tmp[i]);
    }
    sc_emit(c, SI_JMP, head, 0, 0);
    c->L->code[jf].dst = c->L->ncode;
    if (jcount >= 0) c->L->code[jcount].dst = c->L->ncode;
    for (int i = 0; i < nv; i++) outreg[i] = V[i];
  }
  free(V);
  free(bout);
  free(tmp);
}

/* Compile a while step (its body plans already built) into a register
 * program, or return NULL (the step then runs its plans per iteration).
 * sm: the metas of the enclosing plan's slots. */
static SLoop *sloop_compile(const ExecStep *st, const TMeta *sm) {
  SLoop *L = calloc(1, sizeof(SLoop));
  if (!L) rt_throw(ERR_MEMORY, "out of memory");
  SComp c = {L, 0, 0, true};
  int nin = st->nin, nv = st->nout;
  L->nin = nin;
  L->nv = nv;
  L->load = calloc((size_t)nin + 1, 1);
  int *inreg = malloc(sizeof(int) * (size_t)(nin + 1));
  int *outreg = malloc(sizeof(int) * (size_t)(nv + 1));
  if (!L->load || !inreg || !outreg) rt_throw(ERR_MEMORY, "out of memory");
  /* registers [0, nin): the while's inputs, loaded when they are 0-d values */
  for (int i = 0; i < nin; i++) {
    const TMeta *m = st->in[i] >= 0 ? &sm[st->in[i]] : NULL;
    bool scalar = m && sreg_meta_ok(m);
    bool tensor = m && !scalar && m->rank != 0 && (unsigned)m->dtype < DT_STRING;
    sc_reg(&c, scalar ? (int)m->dtype : tensor ? SREG_TENSOR : SREG_NONE);
    inreg[i] = scalar || tensor ? i : -1;
    L->load[i] = scalar ? 1 : tensor ? 2 : 0;
  }
  sc_while(&c, st, inreg, outreg, true);
  if (c.ok) sc_emit(&c, SI_END, 0, 0, 0);
  free(inreg);
  free(outreg);
  if (!c.ok) {
    sloop_free(L);
    return NULL;
  }
  return L;
}

void exec_plan_stats(const ExecPlan *p, ExecStats *st) { *st = p->stats; }
bool exec_plan_runs(const ExecPlan *p, int id) { return id >= 0 && id < p->stats.nodes && p->runs[id]; }

/* ---- running -------------------------------------------------------------------------- */

enum { EXEC_STACK_IN = 8 };

/* ---- frames ------------------------------------------------------------------------------
 * Each plan run (a function's, or a cond/while body's) has a frame: its slots,
 * the step it is at, and the tensors a while step owns meanwhile (its loop
 * variables).  Only exec_run, the public entry, catches errors: its handler
 * releases what the frames above it hold, innermost first, and names the
 * innermost step.  So a body run per loop iteration costs no setjmp, and its
 * slot array is reused, not allocated.  Frames live in a pool on the heap,
 * not on the C stack, because the handler reads them after the longjmp. */
typedef struct ExecFrame {
  const ExecPlan *p;
  Tensor **s;                 /* p->nslots slots (capacity cap) */
  int cap;
  int k;                      /* the step running */
  Tensor **own;               /* the running while step's loop variables (owned), nown of them */
  int nown, capown;
  Tensor **scratch;           /* the running while step's next values (not owned) */
  int capscratch;
} ExecFrame;

/* Per thread: tf.data's graph workers (parexec.c) run plans beside the main thread. */
static __thread ExecFrame **exec_frames;     /* the pool; [0, exec_nframes) are running */
static __thread int exec_nframes, exec_capframes;
static __thread int exec_depth;              /* exec_run calls in progress (a kernel may call back) */
static __thread tfs_i64 exec_groups;         /* dist_group_mark() when the outermost run began */
static __thread const GraphNode *exec_fail_node;   /* innermost node of the error being unwound */
__thread bool exec_on_worker;                /* this thread is a graph worker: no tape, accumulator or collective state */

static void *exec_grow(void *p, int *cap, int need, size_t elem) {
  if (need <= *cap) return p;
  int c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  void *n = realloc(p, elem * (size_t)c);
  if (!n) rt_throw(ERR_MEMORY, "out of memory");
  *cap = c;
  return n;
}

/* A thread that ran plans (a tf.data worker, a C API caller's thread) gives its frame pool back when it ends;
 * the main thread's stays until exit. */
static pthread_key_t exec_pool_key;
static pthread_once_t exec_pool_once = PTHREAD_ONCE_INIT;

static void exec_pool_free(void *unused) {
  (void)unused;
  for (int i = 0; i < exec_capframes; i++) {
    ExecFrame *f = exec_frames[i];
    if (!f) continue;
    free(f->s);
    free(f->own);
    free(f->scratch);
    free(f);
  }
  free(exec_frames);
  exec_frames = NULL;
  exec_nframes = exec_capframes = 0;
}

static void exec_pool_key_make(void) { pthread_key_create(&exec_pool_key, exec_pool_free); }

static ExecFrame *exec_push(const ExecPlan *p) {
  if (!exec_frames) {   /* this thread's first frame: free the pool when the thread ends */
    pthread_once(&exec_pool_once, exec_pool_key_make);
    pthread_setspecific(exec_pool_key, (void *)1);
  }
  if (exec_nframes == exec_capframes) {
    int old = exec_capframes;
    exec_frames = exec_grow(exec_frames, &exec_capframes, exec_nframes + 1, sizeof(ExecFrame *));
    for (int i = old; i < exec_capframes; i++) exec_frames[i] = NULL;
  }
  ExecFrame *f = exec_frames[exec_nframes];
  if (!f) {
    f = calloc(1, sizeof(ExecFrame));
    if (!f) rt_throw(ERR_MEMORY, "out of memory");
    exec_frames[exec_nframes] = f;
  }
  f->s = exec_grow(f->s, &f->cap, p->nslots, sizeof(Tensor *));
  f->p = p;
  f->k = 0;
  f->nown = 0;
  exec_nframes++;
  return f;
}

/* Release what frames [base, top) hold (an error unwinds them). */
static void exec_unwind(int base) {
  while (exec_nframes > base) {
    ExecFrame *f = exec_frames[--exec_nframes];
    for (int i = 0; i < f->p->nslots; i++)
      if (f->p->produced[i] && f->s[i]) tensor_release(f->s[i]);
    for (int i = 0; i < f->nown; i++)
      if (f->own[i]) tensor_release(f->own[i]);
    f->nown = 0;
  }
}

/* Truthiness of a cond/while condition; `owned` is released before any error. */
static bool exec_truthy(Tensor *t, bool owned) {
  if (t->size != 1) {
    tfs_i64 n = t->size;
    if (owned) tensor_release(t);
    rt_throw(ERR_INVALID_ARGUMENT, "the condition of a graph cond/while must be a scalar, got shape with %lld elements",
             (long long)n);
  }
  bool b = tensor_get_f(t, 0) != 0;
  if (owned) tensor_release(t);
  return b;
}

static void exec_frame_run(const ExecPlan *p, Tensor *const *args, Tensor **outs);

/* A 0-d tensor holding register value r of dtype dt. */
static Tensor *sreg_box(const SReg *r, DType dt) {
  Tensor *t = tensor_scalar(dt);
  memcpy(tensor_data(t), r, (size_t)dtype_info[dt].size);
  return t;
}

/* A scalar kernel declined (the generic kernel raises the op's error, or
 * computes what the fast path does not): run the step's op on boxed operands. */
static void exec_scalar_generic(const ExecStep *st, Tensor *const *in, void *dst, DType out) {
  const GraphNode *saved = exec_fail_node;
  exec_fail_node = st->node;   /* an error here is this step's, even inside a compiled loop */
  Tensor *res[2], **heap;
  Tensor *ins[2] = {in[0], st->nin > 1 ? in[1] : NULL};
  int nr = op_run_into(st->op, st->nin, ins, NULL, st->attrs, res, 2, &heap);
  exec_fail_node = saved;
  Tensor **r = heap ? heap : res;
  bool ok = nr >= 1 && r[0]->rank == 0 && r[0]->dtype == out;
  if (ok) memcpy(dst, tensor_data(r[0]), (size_t)dtype_info[out].size);
  for (int i = 0; i < nr; i++) tensor_release(r[i]);
  free(heap);
  if (!ok) rt_throw(ERR_RUNTIME, "%s: internal: scalar step produced an unexpected result", st->op->graph_name);
}

/* One step through its scalar kernel; false when the operands are not what the
 * plan expected (then the generic path runs). */
static inline bool exec_scalar(const ExecStep *st, Tensor **s) {
  Tensor *a = s[st->in[0]], *b = st->nin > 1 ? s[st->in[1]] : a;
  if (a->rank != 0 || b->rank != 0 || a->dtype != st->sk_in || b->dtype != st->sk_in) return false;
  Tensor *o = NULL;
  int dn = st->donor;
  if (dn >= 0) {
    Tensor *d = s[dn];
    if (d->hdr.rc == 1 && d->buf->rc == 1 && d->rank == 0 && d->dtype == st->sk_out) {
      o = d;
      s[dn] = NULL;   /* moved: the release list skips it */
    }
  }
  if (!o) o = tensor_scalar(st->sk_out);
  if (!st->sk(tensor_data(o), tensor_data(a), tensor_data(b))) {
    int mark = rt_hold_val(val_obj(o));
    Tensor *ab[2] = {a, b};
    exec_scalar_generic(st, ab, tensor_data(o), st->sk_out);
    rt_unhold(mark);
  }
  if (st->out[0] >= 0) s[st->out[0]] = o;
  else tensor_release(o);
  return true;
}

static bool exec_ew(const ExecPlan *p, const ExecStep *st, Tensor **s);
static bool exec_ew_update(const ExecStep *st, Tensor **s);

/* Whether t is the contiguous matrix (or vector) a planned product expects. */
static inline bool mm_operand_ok(const Tensor *t, DType dt, int rank, tfs_i64 d0, tfs_i64 d1) {
  if (!t || t->dtype != dt || t->rank != rank || t->shape[0] != d0) return false;
  if (rank == 1) return d0 == 1 || t->strides[0] == 1;
  return t->shape[1] == d1 && (d1 == 1 || t->strides[1] == 1) && (d0 == 1 || t->strides[0] == d1);
}

/* A planned product's result tensor: last call's arena buffer if nobody kept it, else a new one the arena
 * keeps. */
static Tensor *mm_result(const ExecPlan *p, const ExecStep *st) {
  const MmPlan *m = st->mm;
  tfs_i64 shape[2] = {m->m, m->n};
  if (st->oarena < 0) return tensor_new(m->dt, 2, shape);
  Tensor *t = p->arena[st->oarena];
  if (t && t->hdr.rc == 1 && t->buf->rc == 1) return tensor_retain(t);
  Tensor *o = tensor_new(m->dt, 2, shape);
  p->arena[st->oarena] = tensor_retain(o);
  if (t) tensor_release(t);
  return o;
}

/* Whether a planned product's operands are as planned (its left one only when left is set). */
static bool mm_operands_ok(const ExecStep *st, Tensor **s, bool left) {
  const MmPlan *m = st->mm;
  return (!left || mm_operand_ok(s[st->in[0]], m->dt, 2, m->ta ? m->k : m->m, m->ta ? m->m : m->k)) &&
         mm_operand_ok(s[st->in[1]], m->dt, 2, m->tb ? m->n : m->k, m->tb ? m->k : m->n) &&
         (!m->bias || mm_operand_ok(s[st->in[2]], m->dt, 1, m->n, 0));
}

/* A planned product; false (before doing anything) when an operand is not as planned. */
static bool exec_mm(const ExecPlan *p, const ExecStep *st, Tensor **s) {
  const MmPlan *m = st->mm;
  Tensor *a = s[st->in[0]], *b = s[st->in[1]], *c = m->bias ? s[st->in[2]] : NULL;
  if (!mm_operands_ok(st, s, true)) return false;
  Tensor *o = mm_result(p, st);
  if (!m->ta && !m->tb)
    matmul_2d(m->dt, tensor_data(o), tensor_data(a), tensor_data(b), m->m, m->n, m->k, c ? tensor_data(c) : NULL, m->relu);
  else {
    MmProd q = {tensor_data(o), tensor_data(a), tensor_data(b), c ? tensor_data(c) : NULL, m->m, m->n, m->k, m->ta, m->tb, m->relu};
    matmul_prods(m->dt, &q, 1);
  }
  exec_mm_runs++;
  if (st->out[0] >= 0) s[st->out[0]] = o;
  else tensor_release(o);
  return true;
}

/* A pair's two products (plan_pairs) as one pool job; false (before doing anything) when an operand is not
 * as planned (each then runs at its own step). */
static bool exec_mm_pair(const ExecPlan *p, const ExecStep *A, const ExecStep *B, Tensor **s) {
  if (!mm_operands_ok(A, s, true) || !mm_operands_ok(B, s, true)) return false;
  const ExecStep *st[2] = {A, B};
  MmProd q[2];
  Tensor *o[2];
  for (int i = 0; i < 2; i++) {   /* results made here, so the pool's parts only compute */
    const MmPlan *m = st[i]->mm;
    o[i] = mm_result(p, st[i]);
    q[i] = (MmProd){tensor_data(o[i]), tensor_data(s[st[i]->in[0]]), tensor_data(s[st[i]->in[1]]),
                    m->bias ? tensor_data(s[st[i]->in[2]]) : NULL, m->m, m->n, m->k, m->ta, m->tb, m->relu};
  }
  matmul_prods(A->mm->dt, q, 2);
  exec_mm_runs += 2;
  exec_pair_runs++;
  for (int i = 0; i < 2; i++) {
    if (st[i]->out[0] >= 0) s[st[i]->out[0]] = o[i];
    else tensor_release(o[i]);
  }
  return true;
}

/* Steps k .. k+n-1, a row chain of planned products (plan_mm_chains), as one matmul_chain; their release
 * lists are the caller's.  False (before doing anything) when an operand is not as planned. */
enum { MM_CHAIN_STACK = 128 };
static bool exec_mm_chain(const ExecPlan *p, int k, int n, Tensor **s) {
  for (int l = 0; l < n; l++)
    if (!mm_operands_ok(&p->steps[k + l], s, l == 0)) return false;
  MmLink lb[MM_CHAIN_STACK], *links = n <= MM_CHAIN_STACK ? lb : malloc(sizeof(MmLink) * (size_t)n);
  Tensor *ob[MM_CHAIN_STACK], **outs = n <= MM_CHAIN_STACK ? ob : malloc(sizeof(Tensor *) * (size_t)n);
  if (!links || !outs) rt_throw(ERR_MEMORY, "out of memory");
  /* the links before the last are read by the next link only (plan_mm_chains): matmul_chain keeps them in
   * its scratch, and their slots stay NULL as a deferred step's (exec_release skips them) */
  for (int l = 0; l < n; l++) {
    const ExecStep *st = &p->steps[k + l];
    outs[l] = l + 1 < n ? NULL : mm_result(p, st);
    links[l] = (MmLink){outs[l] ? tensor_data(outs[l]) : NULL, tensor_data(s[st->in[1]]),
                        st->mm->bias ? tensor_data(s[st->in[2]]) : NULL, st->mm->n, st->mm->k, st->mm->relu};
  }
  const ExecStep *st0 = &p->steps[k];
  matmul_chain(st0->mm->dt, tensor_data(s[st0->in[0]]), st0->mm->m, links, n);
  exec_mm_runs += n;
  for (int l = 0; l < n; l++) {
    int o = p->steps[k + l].out[0];
    if (o >= 0) s[o] = outs[l];
    else if (outs[l]) tensor_release(outs[l]);
  }
  if (links != lb) free(links);
  if (outs != ob) free(outs);
  return true;
}

static inline __attribute__((always_inline)) void exec_step(const ExecPlan *p, const ExecStep *st, Tensor **s);

static void exec_release(const ExecStep *st, Tensor **s) {
  for (int r = 0; r < st->nrel; r++) {
    Tensor *t = s[st->rel[r]];
    if (t) tensor_release(t);   /* NULL: handed to a step's result in place, or never made (deferred) */
    s[st->rel[r]] = NULL;
  }
}

/* A product whose deferred operand steps (plan_gather_project) did not run: as one matmul_gather, else
 * those steps (with their releases) and then the product as planned. */
static void exec_op(const ExecPlan *p, const ExecStep *st, Tensor **s);

static void exec_gather_project(const ExecPlan *p, int k, int *fk, Tensor **s) {
  const ExecStep *st = &p->steps[k];
  const GpPlan *gp = st->gp;
  const MmPlan *m = st->mm;
  Tensor *e = s[gp->table], *ix = s[gp->ids];
  DType idt = ix ? ix->dtype : DT_INT32;
  bool ok = mm_operand_ok(e, m->dt, 2, gp->V, m->k) && (idt == DT_INT32 || idt == DT_INT64) &&
            mm_operand_ok(ix, idt, 2, gp->B, gp->T) && mm_operands_ok(st, s, false);
  Tensor *o = NULL;
  if (ok) {
    o = mm_result(p, st);
    ok = matmul_gather(m->dt, tensor_data(o), tensor_data(e), gp->V, tensor_data(ix), idt == DT_INT64, gp->B, gp->T, gp->tmajor,
                       tensor_data(s[st->in[1]]), m->n, m->k, NULL, false);
    if (!ok) tensor_release(o);
  }
  for (int i = 0; i < gp->nsteps; i++) {
    const ExecStep *d = &p->steps[gp->steps[i]];
    if (!ok) {
      *fk = gp->steps[i];   /* an error (an id out of range) is the gather's */
      exec_step(p, d, s);
    }
    exec_release(d, s);
  }
  *fk = k;
  if (!ok) {
    exec_op(p, st, s);
    return;
  }
  exec_mm_runs++;
  if (st->out[0] >= 0) s[st->out[0]] = o;
  else tensor_release(o);
}

static void exec_op(const ExecPlan *p, const ExecStep *st, Tensor **s) {
  if (st->mm && exec_mm(p, st, s)) return;
  if (st->ew && exec_ew(p, st, s)) return;
  if (st->sk && exec_scalar(st, s)) return;
  Tensor *inb[EXEC_STACK_IN], **in = st->nin <= EXEC_STACK_IN ? inb : malloc(sizeof(Tensor *) * (size_t)st->nin);
  Val rawb[EXEC_STACK_IN], *raw = st->nin <= EXEC_STACK_IN ? rawb : malloc(sizeof(Val) * (size_t)st->nin);
  if (!in || !raw) rt_throw(ERR_MEMORY, "out of memory");
  int mark = -1;
  if (in != inb) {   /* a failing op must not leak them */
    mark = rt_hold_mem(in);
    rt_hold_mem(raw);
  }
  for (int i = 0; i < st->nin; i++) {
    int sl = st->in[i];
    if (sl >= 0) {
      in[i] = s[sl];
      raw[i] = val_obj(in[i]);
    } else {
      in[i] = NULL;
      raw[i] = st->raw ? st->raw[i] : val_undef();
    }
  }
  const OpAttrs *attrs = st->attrs;
  OpAttrs dyn;
  if (st->ndyn) {
    dyn = *st->attrs;
    for (int k = 0; k < st->ndyn; k++) dyn.v[st->dyn_attr[k]] = val_obj(s[st->in[st->nin + k]]);
    attrs = &dyn;
  }
  Tensor *resb[EXEC_STACK_IN], **heap, *offered = NULL;
  if (st->oarena >= 0) {   /* last call's result buffer, if nobody kept it */
    Tensor *t = p->arena[st->oarena];
    if (t && t->hdr.rc == 1 && t->buf->rc == 1) op_offer_output(offered = t);
  }
  int nr = op_run_into(st->op, st->nin, in, raw, attrs, resb, EXEC_STACK_IN, &heap);
  Tensor **res = heap ? heap : resb;
  if (st->oarena >= 0 && nr >= 1 && res[0] != offered) {   /* the arena keeps this call's result for the next */
    Tensor *old = p->arena[st->oarena];
    p->arena[st->oarena] = tensor_retain(res[0]);
    if (old) tensor_release(old);
  }
  if (mark >= 0) rt_unhold(mark);
  if (in != inb) free(in);
  if (raw != rawb) free(raw);
  for (int o = 0; o < nr; o++) {
    if (o < st->nout && st->out[o] >= 0) s[st->out[o]] = res[o];
    else tensor_release(res[o]);
  }
  if (heap) free(heap);
  if (nr < st->nout)
    for (int o = nr; o < st->nout; o++)
      if (st->out[o] >= 0)
        rt_throw(ERR_RUNTIME, "%s produced %d outputs, %d expected", st->op->graph_name, nr, st->nout);
}

/* Whether t is what a planned elementwise step expects of an operand. */
static inline bool ew_operand_ok(const Tensor *t, DType dt, tfs_i64 n) {
  if (!t || t->dtype != dt || t->size != n) return false;
  tfs_i64 st = 1;
  for (int d = t->rank - 1; d >= 0; d--) {   /* contiguous (tensor_is_contiguous, inline) */
    if (t->shape[d] != 1 && t->strides[d] != st) return false;
    st *= t->shape[d];
  }
  return true;
}

enum { EW_BLOCK = 2048 };     /* elements per block of a fused chain: its operands' blocks stay in L1 */

/* Whether every operand of a planned step or chain is the contiguous tensor the plan expects. */
static bool ew_operands_ok(const EwPlan *e, Tensor **s) {
  for (int j = 0; j < e->nops; j++) {
    const EwOp *q = &e->ops[j];
    if (q->a >= 0 && !ew_operand_ok(s[q->a], q->in, q->na)) return false;
    if (q->b >= 0 && !ew_operand_ok(s[q->b], q->in, q->nb)) return false;
  }
  return true;
}

/* Operand x of a chain op at elements [i0, ...): the previous op's block, the side block, or the slot's. */
static inline const char *ew_arg(Tensor **s, int x, tfs_i64 nx, size_t isz, tfs_i64 i0, char *ob, char *sb) {
  if (x == EW_PREV) return ob;
  if (x == EW_SIDE) return sb;
  return (const char *)tensor_data(s[x]) + (nx == 1 ? 0 : (size_t)i0 * isz);
}

/* Elements [i0, i0 + len) of a chain's ops, one after the other, into ob (each op's result over the
 * previous one's: the row loops are alias-safe); a side op's into sb. */
static void ew_block(const EwPlan *e, Tensor **s, tfs_i64 i0, tfs_i64 len, char *ob, char *sb) {
  for (int j = 0; j < e->nops; j++) {
    const EwOp *q = &e->ops[j];
    size_t isz = (size_t)dtype_info[q->in].size;
    char *dst = q->to_side ? sb : ob;
    const char *a = ew_arg(s, q->a, q->na, isz, i0, ob, sb);
    if (q->k.bin) {
      const char *b = ew_arg(s, q->b, q->nb, isz, i0, ob, sb);
      q->k.bin(dst, a, b, len, q->a < -1 || q->na != 1, q->b < -1 || q->nb != 1);
    } else {
      q->k.un(dst, a, len, 1, 0);
    }
  }
}

/* Blocks of a chain cut over the thread pool: each part runs whole blocks with a side buffer of its own. */
typedef struct {
  const EwPlan *e;
  Tensor **s;
  char *od;
  size_t osz;
} EwJob;

static void ew_chain_part(void *v, int part, int nparts) {
  const EwJob *j = v;
  tfs_i64 nb = (j->e->n + EW_BLOCK - 1) / EW_BLOCK, b0, b1;
  tp_slice(nb, part, nparts, &b0, &b1);
  _Alignas(64) char side[EW_BLOCK * 8];
  for (tfs_i64 i0 = b0 * EW_BLOCK; i0 < b1 * EW_BLOCK && i0 < j->e->n; i0 += EW_BLOCK)
    ew_block(j->e, j->s, i0, j->e->n - i0 < EW_BLOCK ? j->e->n - i0 : EW_BLOCK, j->od + (size_t)i0 * j->osz, side);
}

/* A planned elementwise step or fused chain; false (before doing anything)
 * when an operand is not the contiguous tensor the plan expects. */
static bool exec_ew_fast(const ExecPlan *p, const ExecStep *st, Tensor **s) {
  const EwPlan *e = st->ew;
  if (!ew_operands_ok(e, s)) return false;
  Tensor *o = NULL;
  bool moved = false;
  if (e->donor >= 0) {   /* in place: nobody else may see the operand change */
    Tensor *d = s[e->donor];
    if (d->buf->rc == 1 && d->offset == 0 && d->dtype == e->dt &&
        (d->hdr.rc == 1 || (d->hdr.rc == 2 && e->arena >= 0 && e->arena == e->donor_arena && p->arena[e->arena] == d))) {
      o = d;
      moved = true;
    }
  }
  if (!o && e->arena >= 0) {
    Tensor *t = p->arena[e->arena];
    if (t && t->hdr.rc == 1 && t->buf->rc == 1) {   /* dead since its last use (this call or the last) */
      o = tensor_retain(t);
    } else {
      o = tensor_new(e->dt, e->rank, e->shape);
      p->arena[e->arena] = tensor_retain(o);
      if (t) tensor_release(t);   /* still used elsewhere: no longer ours */
    }
  }
  if (!o) o = tensor_new(e->dt, e->rank, e->shape);
  size_t osz = (size_t)dtype_info[e->dt].size;
  char *od = tensor_data(o);
  int nparts = tp_parts(e->n, TP_EW_MIN_PART);
  if (nparts > 1) {
    EwJob j = {e, s, od, osz};
    tp_run(nparts, ew_chain_part, &j);
  } else if (e->nops == 1) {
    const EwOp *q = &e->ops[0];
    const char *a = tensor_data(s[q->a]);
    if (q->k.bin) q->k.bin(od, a, tensor_data(s[q->b]), e->n, q->na != 1 || e->n == 1, q->nb != 1 || e->n == 1);
    else q->k.un(od, a, e->n, 1, 0);
  } else {
    _Alignas(64) char side[EW_BLOCK * 8];
    for (tfs_i64 i0 = 0; i0 < e->n; i0 += EW_BLOCK)
      ew_block(e, s, i0, e->n - i0 < EW_BLOCK ? e->n - i0 : EW_BLOCK, od + (size_t)i0 * osz, side);
  }
  if (moved) s[e->donor] = NULL;   /* its reference is the result's now: the release list skips it */
  if (st->out[0] >= 0) s[st->out[0]] = o;
  else tensor_release(o);
  return true;
}

/* Whole blocks of a variable update (below): each element's value, then its store or accumulation into the
 * variable, depends on that element alone, so any cut of the blocks over the pool gives the same bits. */
static void ew_update_part(void *v, int part, int nparts) {
  const EwJob *j = v;
  const EwPlan *e = j->e;
  tfs_i64 nb = (e->n + EW_BLOCK - 1) / EW_BLOCK, b0, b1;
  tp_slice(nb, part, nparts, &b0, &b1);
  _Alignas(64) char tmp[EW_BLOCK * 8], side[EW_BLOCK * 8];
  for (tfs_i64 i0 = b0 * EW_BLOCK; i0 < b1 * EW_BLOCK && i0 < e->n; i0 += EW_BLOCK) {
    tfs_i64 len = e->n - i0 < EW_BLOCK ? e->n - i0 : EW_BLOCK;
    ew_block(e, j->s, i0, len, tmp, side);
    char *vb = j->od + (size_t)i0 * j->osz;
    if (e->amode == 0) memcpy(vb, tmp, (size_t)len * j->osz);
    else e->acc.bin(vb, vb, tmp, len, true, true);
  }
}

/* A variable update (a chain fused into the Assign* step after it); false (before doing anything)
 * unless the operands are as planned and variable_assign would write the variable's buffer in place:
 * contiguous, of the chain's dtype and shape, held by nobody but the variable and slots whose last
 * use is in the chain (they would be released before the assign ran unfused).  Each block of the value
 * is computed into a scratch block, after the chain has read that block of its operands (one may be
 * the variable itself), then stored or added / subtracted with the row loop variable_assign's op
 * runs: the same float operations in the same order as unfused. */
static bool exec_ew_update(const ExecStep *st, Tensor **s) {
  const EwPlan *e = st->ew;
  int dying = 0;
  Tensor *cur = variable_storage(st->raw[0].u.o)->value;
  if (!ew_operands_ok(e, s)) return false;
  for (int r = 0; r < e->nrel_chain; r++) dying += s[st->rel[r]] == cur;
  if (cur->hdr.rc != 1 + dying || cur->buf->rc != 1 || !ew_operand_ok(cur, e->dt, e->n) || cur->rank != e->rank ||
      memcmp(cur->shape, e->shape, sizeof(tfs_i64) * (size_t)e->rank))
    return false;
  EwJob j = {e, s, tensor_data(cur), (size_t)dtype_info[e->dt].size};
  int nparts = tp_parts(e->n, TP_EW_MIN_PART);
  if (nparts > 1) tp_run(nparts, ew_update_part, &j);
  else ew_update_part(&j, 0, 1);
  exec_upd_runs++;
  return true;
}

/* A planned step whose operands are not as planned runs its ops through
 * op_run, one after the other, as it would have unplanned. */
static bool exec_ew(const ExecPlan *p, const ExecStep *st, Tensor **s) {
  const EwPlan *e = st->ew;
  if (e->amode >= 0 ? exec_ew_update(st, s) : exec_ew_fast(p, st, s)) return true;
  for (int j = 0; j + 1 < e->nops + (e->amode >= 0); j++) {   /* an update: the whole chain, then the assign */
    const GraphNode *saved = exec_fail_node;
    exec_fail_node = e->ops[j].orig->node;   /* an error here is this op's */
    exec_op(p, e->ops[j].orig, s);   /* orig->ew is NULL: the generic path */
    exec_fail_node = saved;
  }
  return false;   /* the chain's last op: the caller's generic path */
}

static void exec_cond(const ExecStep *st, Tensor **s) {
  bool b = exec_truthy(s[st->in[0]], false);
  const ExecPlan *sub = st->sub[b ? 0 : 1];
  int na = st->nin - 1, no = st->nout;
  Tensor *ab[EXEC_STACK_IN], **args = na <= EXEC_STACK_IN ? ab : malloc(sizeof(Tensor *) * (size_t)na);
  Tensor *ob[EXEC_STACK_IN], **outs = no <= EXEC_STACK_IN ? ob : malloc(sizeof(Tensor *) * (size_t)no);
  if (!args || !outs) rt_throw(ERR_MEMORY, "out of memory");
  int mark = -1;
  if (args != ab) mark = rt_hold_mem(args);
  if (outs != ob) {
    int m = rt_hold_mem(outs);
    if (mark < 0) mark = m;
  }
  for (int i = 0; i < na; i++) args[i] = st->in[i + 1] >= 0 ? s[st->in[i + 1]] : NULL;
  exec_frame_run(sub, args, outs);
  for (int o = 0; o < no; o++) {
    if (st->out[o] >= 0) s[st->out[o]] = outs[o];
    else tensor_release(outs[o]);
  }
  if (mark >= 0) rt_unhold(mark);
  if (args != ab) free(args);
  if (outs != ob) free(outs);
}

static inline bool sreg_truthy(const SReg *r, int dt) {
  switch (dt) {
    case DT_BOOL: return r->b;
    case DT_INT32: return r->i32 != 0;
    case DT_INT64: return r->i64 != 0;
    case DT_FLOAT32: return r->f32 != 0;
    default: return r->f64 != 0;
  }
}

static void sloop_slow(const SLoop *L, const SInstr *c, SReg *r) {
  const ExecStep *st = c->step;
  Tensor *in[2];
  in[0] = sreg_box(&r[c->a], (DType)L->rdt[c->a]);
  int mark = rt_hold_val(val_obj(in[0]));
  in[1] = st->nin > 1 ? sreg_box(&r[c->b], (DType)L->rdt[c->b]) : NULL;
  if (in[1]) rt_hold_val(val_obj(in[1]));
  exec_scalar_generic(st, in, &r[c->dst], st->sk_out);
  rt_unhold(mark);
  tensor_release(in[0]);
  if (in[1]) tensor_release(in[1]);
}

/* An element the fast path does not take (index out of range: the generic
 * kernel raises TF's error; or a tensor unlike the traced one). */
static void sloop_slow_gather(const SLoop *L, const SInstr *c, SReg *r) {
  Tensor *in[2] = {(Tensor *)r[c->a].t, sreg_box(&r[c->b], (DType)L->rdt[c->b])};
  int mark = rt_hold_val(val_obj(in[1]));
  exec_scalar_generic(c->step, in, &r[c->dst], (DType)L->rdt[c->dst]);
  rt_unhold(mark);
  tensor_release(in[1]);
}

enum { SLOOP_STACK_REGS = 64 };

/* Run a compiled while loop; false (before doing anything) when the inputs
 * are not the 0-d values it was compiled for. */
static bool sloop_run(const ExecStep *st, Tensor **s) {
  const SLoop *L = st->loop;
  for (int i = 0; i < L->nin; i++) {
    if (L->load[i] != 1) continue;
    const Tensor *t = s[st->in[i]];
    if (t->rank != 0 || t->dtype != (DType)L->rdt[i]) return false;
  }
  SReg rb[SLOOP_STACK_REGS], *r = L->nregs <= SLOOP_STACK_REGS ? rb : malloc(sizeof(SReg) * (size_t)L->nregs);
  if (!r) rt_throw(ERR_MEMORY, "out of memory");
  int mark = r != rb ? rt_hold_mem(r) : -1;
  memcpy(r, L->init, sizeof(SReg) * (size_t)L->nregs);
  for (int i = 0; i < L->nin; i++) {
    if (L->load[i] == 1) memcpy(&r[i], tensor_data(s[st->in[i]]), (size_t)dtype_info[L->rdt[i]].size);
    else if (L->load[i] == 2) r[i].t = s[st->in[i]];
  }
  /* threaded dispatch (GCC labels as values): each instruction jumps straight
   * to the next one's handler, so the branch predictor sees each site apart */
  static const void *const disp[] = {[SI_OP] = &&op, [SI_JMPF] = &&jmpf, [SI_JMP] = &&jmp, [SI_MOV] = &&mov,
                                     [SI_ZERO] = &&zero, [SI_COUNT] = &&count, [SI_GATHER] = &&gather,
                                     [SI_END] = &&done};
  const unsigned char *rdt = L->rdt;
  const SInstr *code = L->code, *c = code;
#define SNEXT() goto *disp[c->kind]
  SNEXT();
op:
  if (__builtin_expect(!c->fn(&r[c->dst], &r[c->a], &r[c->b]), 0)) sloop_slow(L, c, r);
  c++;
  SNEXT();
jmpf:
  c = sreg_truthy(&r[c->a], c->dt) ? c + 1 : code + c->dst;
  SNEXT();
jmp:
  /* Ctrl-C: a jump closes each loop; a throw frees r (held) and the frames unwind in exec_run */
  if (__builtin_expect(rt_sigint_pending, 0)) rt_sigint_raise();
  c = code + c->dst;
  SNEXT();
mov:
  r[c->dst] = r[c->a];
  c++;
  SNEXT();
zero:
  r[c->dst].i64 = 0;
  c++;
  SNEXT();
count:
  if (r[c->a].i64 >= c->max) {
    c = code + c->dst;
  } else {
    r[c->a].i64++;
    c++;
  }
  SNEXT();
gather: {
  const Tensor *t = r[c->a].t;
  tfs_i64 k = c->dt == DT_INT32 ? (tfs_i64)r[c->b].i32 : r[c->b].i64;
  if (__builtin_expect(t->rank == 1 && t->dtype == (DType)rdt[c->dst] && k >= 0 && k < t->shape[0], 1))
    memcpy(&r[c->dst], (const char *)t->buf->data + (size_t)(t->offset + k * t->strides[0]) * c->esz, c->esz);
  else
    sloop_slow_gather(L, c, r);
  c++;
  SNEXT();
}
#undef SNEXT
done:
  for (int o = 0; o < L->nv; o++)
    if (st->out[o] >= 0) s[st->out[o]] = sreg_box(&r[o], (DType)L->rdt[o]);
  if (mark >= 0) {
    rt_unhold(mark);
    free(r);
  }
  return true;
}

/* A while step run per iteration through its body plans.  The running frame
 * owns the loop variables meanwhile (released if an iteration fails). */
static void exec_while(const ExecStep *st, Tensor **s) {
  /* the profiler records the body's ops, so it takes the body plans, not the register program */
  if (st->loop && !prof_on && sloop_run(st, s)) return;
  ExecFrame *f = exec_frames[exec_nframes - 1];
  int nv = st->nout, na = st->nin;
  f->own = exec_grow(f->own, &f->capown, na + 1, sizeof(Tensor *));
  f->scratch = exec_grow(f->scratch, &f->capscratch, nv + 1, sizeof(Tensor *));
  Tensor **args = f->own, **next = f->scratch;
  for (int i = 0; i < na; i++) args[i] = st->in[i] >= 0 ? s[st->in[i]] : NULL;
  for (int i = 0; i < nv; i++) tensor_retain(args[i]);   /* the loop owns its current values */
  f->nown = nv;                                          /* captures after them stay borrowed */
  for (tfs_i64 it = 0; st->max_iter < 0 || it < st->max_iter; it++) {
    RT_CHECK_INTERRUPT();   /* an ordinary error: exec_run's handler releases the loop variables */
    Tensor *c;
    exec_frame_run(st->sub[0], args, &c);
    if (!exec_truthy(c, true)) break;
    exec_frame_run(st->sub[1], args, next);
    for (int i = 0; i < nv; i++) {
      tensor_release(args[i]);
      args[i] = next[i];
    }
  }
  f->nown = 0;
  for (int o = 0; o < nv; o++) {
    if (st->out[o] >= 0) s[st->out[o]] = args[o];
    else tensor_release(args[o]);
  }
}

static inline __attribute__((always_inline)) void exec_step(const ExecPlan *p, const ExecStep *st, Tensor **s) {
  switch (st->kind) {
    case ES_OP: exec_op(p, st, s); break;
    case ES_COND: exec_cond(st, s); break;
    case ES_WHILE: exec_while(st, s); break;
  }
}

/* A step while the profiler records: one event per step run (a fused elementwise
 * chain is one event, named after its last node, as TF reports its fused ops). */
static __attribute__((noinline)) void exec_step_profiled(const ExecPlan *p, const ExecStep *st, Tensor **s) {
  Tensor *inb[PROF_MAXIN];
  int n = st->nin;
  for (int i = 0; i < n && i < PROF_MAXIN; i++) inb[i] = st->in[i] >= 0 ? s[st->in[i]] : NULL;
  ProfInputs pin;
  prof_inputs(&pin, n, inb);
  const char *type = st->kind == ES_COND ? "If" : st->kind == ES_WHILE ? "While" : st->op->graph_name;
  tfs_i64 t0 = prof_clock();
  exec_step(p, st, s);
  prof_add(PROF_GRAPH, type, st->node->name, p->g->name, st->node->loc, t0, &pin, -1);
}

/* Run a plan in a new frame, without catching errors (exec_run does). */
static void exec_frame_run(const ExecPlan *p, Tensor *const *args, Tensor **outs) {
  ExecFrame *f = exec_push(p);
  Tensor **s = f->s;
  for (int i = 0; i < p->nslots; i++) s[i] = p->init[i];
  for (int i = 0; i < p->ninputs; i++)
    if (p->input_slot[i] >= 0) s[p->input_slot[i]] = args[i];
  int early = -1;   /* a pair's second step, run with its first */
  bool pairs = exec_inter_op != 1 && !prof_on && !exec_step_hook && tp_threads() > 1;
  for (int k = 0; k < p->nsteps; k++) {
    const ExecStep *st = &p->steps[k];
    if (exec_step_hook) exec_step_hook(st->node);
    if (st->skip) continue;   /* runs inside the next step's chain */
    if (st->gpdefer && !prof_on && !exec_step_hook) continue;   /* runs in (or right before) its product's step */
    f->k = k;
    if (k == early) {   /* its product ran with its pair's first step: only its releases remain */
      exec_release(st, s);
      continue;
    }
    if (st->pair && pairs && exec_mm_pair(p, st, &p->steps[st->pair], s)) {
      early = st->pair;
      exec_release(st, s);
      continue;
    }
    if (st->gp && !s[st->in[0]]) {   /* its operand's steps were deferred to here */
      exec_gather_project(p, k, &f->k, s);
      exec_release(st, s);
      continue;
    }
    if (st->mmchain && !prof_on && !exec_step_hook && exec_mm_chain(p, k, st->mmchain, s)) {
      for (int e = k + st->mmchain; k < e; k++) exec_release(&p->steps[k], s);   /* each link's, in step order */
      k--;
      continue;
    }
    if (__builtin_expect(prof_on, 0)) exec_step_profiled(p, st, s);
    else exec_step(p, st, s);
    if (__builtin_expect(dist_inflight, 0) && !exec_on_worker) dist_progress();   /* gradient buckets move while the backward pass runs */
    for (int r = 0; r < st->nrel; r++) {
      Tensor *t = s[st->rel[r]];
      if (t) tensor_release(t);   /* NULL: handed to this step's result in place */
      s[st->rel[r]] = NULL;
    }
  }
  f->k = p->nsteps;
  for (int i = 0; i < p->noutputs; i++) {
    int sl = p->output_slot[i];
    outs[i] = p->output_move[i] ? s[sl] : tensor_retain(s[sl]);
  }
  exec_nframes--;
}

/* The failing node's first input as TF names it in a graph ('x', 'split:1'): kernels' messages say
 * dummy_input there, as TF's eager nodes do. */
static __thread char exec_fail_input[128];
static void exec_input_name(const Graph *g, const GraphNode *nd) {
  exec_fail_input[0] = 0;
  if (nd->kind != GN_OP || nd->nin < 1 || nd->in[0].node < 0) return;
  const GraphNode *src = &g->nodes[nd->in[0].node];
  if (nd->in[0].out > 0) snprintf(exec_fail_input, sizeof exec_fail_input, "%s:%d", src->name, nd->in[0].out);
  else snprintf(exec_fail_input, sizeof exec_fail_input, "%s", src->name);
}

void (*exec_end_hook)(int depth);
int exec_run_depth(void) { return exec_depth; }

void exec_run(const ExecPlan *p, Tensor *const *args, Tensor **outs) {
  TraceCtx *saved = trace_suspend();   /* kernels applying ops must run them, not record them */
  int base = exec_nframes;
  if (exec_depth++ == 0 && !exec_on_worker) exec_groups = dist_group_mark();
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) != 0) {
    trace_resume(saved);
    op_offer_output(NULL);   /* an offer an op did not take before the error */
    /* the innermost step running, then release what the unwound frames hold */
    const GraphNode *nd = NULL;
    if (exec_nframes > base) {
      const ExecFrame *f = exec_frames[exec_nframes - 1];
      if (f->k < f->p->nsteps) nd = f->p->steps[f->k].node;
      if (nd && !exec_fail_node) exec_input_name(f->p->g, nd);
    }
    exec_unwind(base);
    if (exec_end_hook && !exec_on_worker) exec_end_hook(exec_depth);
    if (--exec_depth == 0 && !exec_on_worker) accstack_clear_all();   /* loop state a failed run pushed */
    if (!exec_fail_node) exec_fail_node = nd;
    /* Ctrl-C names no node: the user stopped the run, no op failed */
    if (exec_depth > 0 || !exec_fail_node || t.kind == ERR_KEYBOARD_INTERRUPT) {
      if (exec_depth == 0) exec_fail_node = NULL;
      rt_rethrow(&t);
    }
    nd = exec_fail_node;
    exec_fail_node = NULL;
    StrBuf b;
    sb_init(&b);
    /* the suffix goes on the message's first line, before any detail lines (at the end of a message that
     * opens with a blank line, as check_numerics' do) */
    const char *m = t.msg ? t.msg : "";
    const char *nl = strchr(m, '\n');
    size_t head = nl && nl != m ? (size_t)(nl - m) : strlen(m);
    const char *dummy = exec_fail_input[0] ? strstr(m, "dummy_input") : NULL;
    if (dummy && (size_t)(dummy - m) < head) {   /* an eager message's input name: the graph's own */
      sb_putn(&b, m, (size_t)(dummy - m));
      sb_puts(&b, exec_fail_input);
      sb_putn(&b, dummy + 11, head - (size_t)(dummy - m) - 11);
    } else sb_putn(&b, m, head);
    exec_fail_input[0] = 0;
    sb_printf(&b, " (node %s in tf.function '%s')", nd->name, p->g->fname);
    sb_puts(&b, m + head);
    int loc = nd->loc > 0 ? nd->loc : t.loc;
    ErrKind kind = t.kind;
    Val exc = t.exc;
    t.exc = val_undef();
    rt_try_clear(&t);
    char *msg = sb_steal(&b);
    /* rt_throw_msg copies the text; keep ours bounded and freed */
    static __thread char last[2048];
    snprintf(last, sizeof last, "%s", msg);
    free(msg);
    rt_throw_msg(loc, kind, last, exc);
  }
  exec_frame_run(p, args, outs);
  rt_try_pop(&t);
  if (exec_end_hook && !exec_on_worker) exec_end_hook(exec_depth);
  if (--exec_depth == 0 && !exec_on_worker) {
    accstack_clear_all();                       /* loop state pushed for a gradient that was not taken */
    if (dist_group_mark() != exec_groups) dist_groups_drain(exec_groups);   /* gradient all-reduces nothing waited for */
  }
  trace_resume(saved);
}
