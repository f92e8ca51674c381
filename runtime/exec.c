/* exec.c — the executor: planning (pruning, constant folding, CSE, slots and lifetimes) and running plans. */
#include "exec.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "trace.h"

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
} ExecStep;

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
    Tensor **volatile res = NULL;
    volatile int nr = 0;
    RtTry t;
    rt_try_push(&t);
    if (setjmp(t.jb) == 0) {
      Tensor **r;
      nr = op_run(n->op, n->nin, in, raw, &at, &r);
      res = r;
      rt_try_pop(&t);
    } else {
      rt_try_clear(&t);   /* kept as a step: the error belongs to run time, if the op is reached */
    }
    if (res && nr < n->nout) {
      for (int i = 0; i < nr; i++) tensor_release(res[i]);
      free(res);
      res = NULL;
    }
    if (res) {
      for (int i = n->nout; i < nr; i++) tensor_release(res[i]);
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

/* ---- planning ----------------------------------------------------------------------- */

static ExecPlan *exec_plan_build(Graph *g);

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
  for (int i = 0; i < g->ninputs; i++) {
    int id = g->inputs[i];
    p->input_slot[i] = base[id] >= 0 && pl.canon[id] == id ? base[id] : -1;
  }

  /* 5. steps, in creation order */
  int nsteps = 0, nints = 0, nraws = 0;
  for (int id = 0; id < n; id++) {
    const GraphNode *nd = &g->nodes[id];
    if (!pl.live[id] || pl.canon[id] != id || pl.konst[id]) continue;
    if (nd->kind != GN_OP && nd->kind != GN_COND && nd->kind != GN_WHILE) continue;
    if (nd->kind == GN_OP && nd->op->id == OP_IDENTITY && plan_resolve(&pl, (GraphRef){id, 0}).node != id) continue;
    nsteps++;
    nints += 2 * (nd->nin + nd->ndyn) + 2 * nd->nout;   /* in, out, rel (bounded) */
    nraws += nd->nin;
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
    if (!pl.live[id] || pl.canon[id] != id || pl.konst[id]) continue;
    if (nd->kind != GN_OP && nd->kind != GN_COND && nd->kind != GN_WHILE) continue;
    if (nd->kind == GN_OP && nd->op->id == OP_IDENTITY && plan_resolve(&pl, (GraphRef){id, 0}).node != id) continue;
    ExecStep *st = &p->steps[k];
    st->kind = nd->kind == GN_OP ? ES_OP : nd->kind == GN_COND ? ES_COND : ES_WHILE;
    st->op = nd->op;
    st->node = nd;
    st->nin = nd->nin;
    st->attrs = &nd->attrs;
    st->max_iter = -1;
    int *in = p->ints + ip;
    ip += nd->nin + nd->ndyn;
    Val *raw = p->raws + rp;
    rp += nd->nin;
    bool need_raw = false;
    for (int i = 0; i < nd->nin; i++) {
      GraphRef r = plan_resolve(&pl, nd->in[i]);
      raw[i] = nd->raw ? nd->raw[i] : val_undef();
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
    for (int d = 0; d < nd->ndyn; d++) {
      GraphRef r = plan_resolve(&pl, nd->in[nd->nin + d]);
      in[nd->nin + d] = base[r.node] + r.out;
      lastuse[in[nd->nin + d]] = k;
    }
    st->ndyn = nd->ndyn;
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
    if (nd->kind == GN_COND || nd->kind == GN_WHILE) {
      st->sub[0] = exec_plan_new(nd->sub[0]);
      st->sub[1] = exec_plan_new(nd->sub[1]);
      int64_t mi;
      if (nd->kind == GN_WHILE && val_as_int(nd->aux, &mi)) st->max_iter = mi;
    }
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
  }
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
  for (int s = 0; s < p->nsteps; s++) {
    exec_plan_free(p->steps[s].sub[0]);
    exec_plan_free(p->steps[s].sub[1]);
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
  free(p);
}

void exec_plan_stats(const ExecPlan *p, ExecStats *st) { *st = p->stats; }
bool exec_plan_runs(const ExecPlan *p, int id) { return id >= 0 && id < p->stats.nodes && p->runs[id]; }

/* ---- running -------------------------------------------------------------------------- */

enum { EXEC_STACK_SLOTS = 32, EXEC_STACK_IN = 8 };

static int exec_depth;                       /* nested plan runs (cond/while bodies) */
static const GraphNode *exec_fail_node;      /* innermost node of the error being unwound */

static bool exec_truthy(const Tensor *t) {
  if (t->size != 1)
    rt_throw(ERR_INVALID_ARGUMENT, "the condition of a graph cond/while must be a scalar, got shape with %lld elements",
             (long long)t->size);
  return tensor_get_f(t, 0) != 0;
}

static void exec_op(const ExecStep *st, Tensor **s) {
  Tensor *inb[EXEC_STACK_IN], **in = st->nin <= EXEC_STACK_IN ? inb : malloc(sizeof(Tensor *) * (size_t)st->nin);
  Val rawb[EXEC_STACK_IN], *raw = st->nin <= EXEC_STACK_IN ? rawb : malloc(sizeof(Val) * (size_t)st->nin);
  if (!in || !raw) rt_throw(ERR_MEMORY, "out of memory");
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
  Tensor **res;
  int nr = op_run(st->op, st->nin, in, raw, attrs, &res);
  if (in != inb) free(in);
  if (raw != rawb) free(raw);
  for (int o = 0; o < nr; o++) {
    if (o < st->nout && st->out[o] >= 0) s[st->out[o]] = res[o];
    else tensor_release(res[o]);
  }
  free(res);
  if (nr < st->nout)
    for (int o = nr; o < st->nout; o++)
      if (st->out[o] >= 0)
        rt_throw(ERR_RUNTIME, "%s produced %d outputs, %d expected", st->op->graph_name, nr, st->nout);
}

static void exec_cond(const ExecStep *st, Tensor **s) {
  bool b = exec_truthy(s[st->in[0]]);
  const ExecPlan *sub = st->sub[b ? 0 : 1];
  int na = st->nin - 1, no = st->nout;
  Tensor *ab[EXEC_STACK_IN], **args = na <= EXEC_STACK_IN ? ab : malloc(sizeof(Tensor *) * (size_t)na);
  Tensor *ob[EXEC_STACK_IN], **outs = no <= EXEC_STACK_IN ? ob : malloc(sizeof(Tensor *) * (size_t)no);
  if (!args || !outs) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < na; i++) args[i] = st->in[i + 1] >= 0 ? s[st->in[i + 1]] : NULL;
  exec_run(sub, args, outs);
  for (int o = 0; o < no; o++) {
    if (st->out[o] >= 0) s[st->out[o]] = outs[o];
    else tensor_release(outs[o]);
  }
  if (args != ab) free(args);
  if (outs != ob) free(outs);
}

static void exec_while(const ExecStep *st, Tensor **s) {
  int nv = st->nout, na = st->nin;
  Tensor **args = malloc(sizeof(Tensor *) * (size_t)(na + 1));
  Tensor **next = malloc(sizeof(Tensor *) * (size_t)(nv + 1));
  if (!args || !next) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < na; i++) args[i] = st->in[i] >= 0 ? s[st->in[i]] : NULL;
  for (int i = 0; i < nv; i++) tensor_retain(args[i]);   /* the loop owns its current values */
  for (tfs_i64 it = 0; st->max_iter < 0 || it < st->max_iter; it++) {
    Tensor *c;
    exec_run(st->sub[0], args, &c);
    bool go = exec_truthy(c);
    tensor_release(c);
    if (!go) break;
    exec_run(st->sub[1], args, next);
    for (int i = 0; i < nv; i++) {
      tensor_release(args[i]);
      args[i] = next[i];
    }
  }
  for (int o = 0; o < nv; o++) {
    if (st->out[o] >= 0) s[st->out[o]] = args[o];
    else tensor_release(args[o]);
  }
  free(args);
  free(next);
}

void exec_run(const ExecPlan *p, Tensor *const *args, Tensor **outs) {
  Tensor *sbuf[EXEC_STACK_SLOTS];
  Tensor **s = p->nslots <= EXEC_STACK_SLOTS ? sbuf : malloc(sizeof(Tensor *) * (size_t)p->nslots);
  if (!s) rt_throw(ERR_MEMORY, "out of memory");
  if (p->nslots) memcpy(s, p->init, sizeof(Tensor *) * (size_t)p->nslots);
  for (int i = 0; i < p->ninputs; i++)
    if (p->input_slot[i] >= 0) s[p->input_slot[i]] = args[i];
  volatile int k = 0;
  TraceCtx *saved = trace_suspend();   /* kernels applying ops must run them, not record them */
  exec_depth++;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) != 0) {
    trace_resume(saved);
    /* release what this run produced, then re-raise at the failing op's line */
    for (int i = 0; i < p->nslots; i++)
      if (p->produced[i] && s[i]) tensor_release(s[i]);
    if (s != sbuf) free(s);
    exec_depth--;
    const GraphNode *nd = k < p->nsteps ? p->steps[k].node : NULL;
    if (!exec_fail_node) exec_fail_node = nd;
    if (exec_depth > 0 || !exec_fail_node) rt_rethrow(&t);
    nd = exec_fail_node;
    exec_fail_node = NULL;
    StrBuf b;
    sb_init(&b);
    /* the suffix goes on the message's first line, before any detail lines */
    const char *m = t.msg ? t.msg : "";
    const char *nl = strchr(m, '\n');
    size_t head = nl ? (size_t)(nl - m) : strlen(m);
    sb_putn(&b, m, head);
    sb_printf(&b, " (node %s in tf.function '%s')", nd->name, p->g->fname);
    sb_puts(&b, m + head);
    int loc = nd->loc > 0 ? nd->loc : t.loc;
    ErrKind kind = t.kind;
    Val exc = t.exc;
    t.exc = val_undef();
    rt_try_clear(&t);
    char *msg = sb_steal(&b);
    /* rt_throw_msg copies the text; keep ours bounded and freed */
    static char last[2048];
    snprintf(last, sizeof last, "%s", msg);
    free(msg);
    rt_throw_msg(loc, kind, last, exc);
  }
  for (; k < p->nsteps; k++) {
    const ExecStep *st = &p->steps[k];
    switch (st->kind) {
      case ES_OP: exec_op(st, s); break;
      case ES_COND: exec_cond(st, s); break;
      case ES_WHILE: exec_while(st, s); break;
    }
    for (int r = 0; r < st->nrel; r++) {
      tensor_release(s[st->rel[r]]);
      s[st->rel[r]] = NULL;
    }
  }
  rt_try_pop(&t);
  exec_depth--;
  trace_resume(saved);
  for (int i = 0; i < p->noutputs; i++) {
    int sl = p->output_slot[i];
    outs[i] = p->output_move[i] ? s[sl] : tensor_retain(s[sl]);
  }
  if (s != sbuf) free(s);
}
