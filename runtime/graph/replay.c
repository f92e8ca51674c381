/* replay.c — running a graph op by op through op_apply, so that tapes record its ops and a trace takes them in.
 *
 * The executor (exec.c) runs a planned graph as one unit: a gradient tape
 * sees nothing of it and a graph being traced cannot hold it.  A graph read
 * back from a SavedModel is differentiable and callable inside tf.function in
 * TF, so such calls replay the graph here instead: every node in creation
 * (topological) order, each op applied as an eager or traced op would be.
 * Variables stay Variables (ReadVariableOp reads them), so a tape sees their
 * reads and a trace captures them. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/replay.h"
#include "graph/tape.h"
#include "object/hosttypes.h"
#include "object/object.h"

/* The value of r (borrowed from vals), base[node] being the node's first slot. */
static Val rp_ref(const Val *vals, const int *base, GraphRef r) { return vals[base[r.node] + r.out]; }

/* Node nd applied to its inputs' values: an owned result (a tensor, a list of them, or None). */
static Val rp_op(const GraphNode *nd, const Val *vals, const int *base) {
  int nin = nd->nin;
  Val inb[16], *in = nin <= 16 ? inb : malloc(sizeof(Val) * (size_t)nin);
  if (!in) rt_throw(ERR_MEMORY, "out of memory");
  int mark = in != inb ? rt_hold_mem(in) : -1;
  for (int i = 0; i < nin; i++)
    in[i] = nd->in[i].node >= 0 ? rp_ref(vals, base, nd->in[i]) : nd->raw ? nd->raw[i] : val_undef();
  OpAttrs at = nd->attrs;
  for (int k = 0; k < nd->ndyn; k++) at.v[nd->dyn_attr[k]] = rp_ref(vals, base, nd->in[nin + k]);
  Val r;
  if (nd->flags & GNF_LIST) {
    /* the op's one list input (concat's values) was recorded as its elements */
    Val l = list_new(nin);
    int lm = rt_hold_val(l);
    for (int i = 0; i < nin; i++) list_append(l, in[i]);
    r = op_apply(nd->op, 1, &l, &at);
    rt_unhold(lm);
    val_decref(l);
  } else {
    r = op_apply(nd->op, nin, in, &at);
  }
  if (mark >= 0) {
    rt_unhold(mark);
    free(in);
  }
  return r;
}

/* The gradient of a replayed custom-gradient node (self: its name): the grad_fn
 * of the tf.custom_gradient was Python code the saved graph does not hold, so
 * the gradient is missing, as in TF when no gradient function was saved
 * (gradients_util.py's message, TF's op being an IdentityN). */
static Val rp_no_custom_grad(Val self, int n, const Val *args, const Kw *kw) {
  (void)n, (void)args, (void)kw;
  /* TF's node is an IdentityN where tfs's is an Identity: 'Identity_1' is TF's 'IdentityN_1' */
  const char *nm = str_cstr(self);
  bool id = !strncmp(nm, "Identity", 8) && (!nm[8] || nm[8] == '_');
  char msg[1024];
  snprintf(msg, sizeof msg,
           "No gradient defined for operation'%s%s' (op type: IdentityN). In general every operation must have an "
           "associated `@tf.RegisterGradient` for correct autodiff, which this op is lacking. If you want to pretend "
           "this operation is a constant in your program, you may insert `tf.stop_gradient`. This can be useful to "
           "silence the error in cases where you know gradients are not needed, e.g. the forward pass of "
           "tf.custom_gradient. Please see more details in https://www.tensorflow.org/api_docs/python/tf/custom_gradient.",
           id ? "IdentityN" : nm, id ? nm + 8 : "");
  exc_raise_class(exc_lookup("LookupError", false), ERR_RUNTIME, msg);
}

/* A saved gradient function that captured forward tensors (self: (fn, their values)): fn(*dy, *values). */
static Val rp_bound_grad(Val self, int n, const Val *args, const Kw *kw) {
  const Tuple *st = (const Tuple *)self.u.o;
  const Tuple *caps = (const Tuple *)st->items[1].u.o;
  Val *all = malloc(sizeof(Val) * (size_t)(n + caps->len + 1));
  if (!all) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(all);
  for (int i = 0; i < n; i++) all[i] = args[i];
  for (tfs_i64 i = 0; i < caps->len; i++) all[n + i] = caps->items[i];
  Val r = rt_call(st->items[0], n + (int)caps->len, all, kw);
  rt_unhold(mark);
  free(all);
  return r;
}

/* The gradient function of a custom-gradient node: its aux (stdlib/modules/smgrad.c), bound to this run's values
 * of the forward tensors it captured when aux is (fn, refs). */
static Val rp_custom_fn(const GraphNode *nd, const Val *vals, const int *base) {
  if (!val_is(nd->aux, &tuple_type)) return val_incref(nd->aux);
  const Tuple *aux = (const Tuple *)nd->aux.u.o;
  if (aux->len < 4) return val_incref(aux->items[0]);   /* a traced graph's (grad_fn, ...): no saved captures */
  const Tuple *refs = (const Tuple *)aux->items[2].u.o;
  Val caps = tuple_new(refs->len);
  int mark = rt_hold_val(caps);
  for (tfs_i64 i = 0; i < refs->len; i++) {
    const Tuple *pr = (const Tuple *)refs->items[i].u.o;
    GraphRef r = {(int)pr->items[0].u.i, (int)pr->items[1].u.i};
    ((Tuple *)caps.u.o)->items[i] = val_incref(rp_ref(vals, base, r));
  }
  Val st = tuple_new(2);
  ((Tuple *)st.u.o)->items[0] = val_incref(aux->items[0]);
  ((Tuple *)st.u.o)->items[1] = caps;
  rt_unhold(mark);
  int m2 = rt_hold_val(st);
  Val fn = builtin_new("tf.custom_gradient.<saved gradient>", rp_bound_grad, st, NULL);
  rt_unhold(m2);
  val_decref(st);
  return fn;
}

/* A tf.custom_gradient result's node: applied unrecorded, then recorded as one
 * entry whose gradient raises (a silently wrong gradient through the forward
 * ops is what recording the Identity would give). */
static Val rp_custom(const GraphNode *nd, int self, const Val *vals, const int *base) {
  int na = tape_nactive_count();
  for (int i = 0; i < na; i++) tape_active_at(i)->paused++;
  RtTry t;
  rt_try_push(&t);
  Val r;
  if (setjmp(t.jb) == 0) {
    r = rp_op(nd, vals, base);
    rt_try_pop(&t);
  } else {
    for (int i = 0; i < na; i++) tape_active_at(i)->paused--;
    rt_rethrow(&t);
  }
  for (int i = 0; i < na; i++) tape_active_at(i)->paused--;
  if (nd->aux.tag == VT_NONE) return r;   /* one of several results: recorded with the last (smgrad.c) */
  int mark = rt_hold_val(r);
  Val nm = str_from_cstr(nd->name);
  rt_hold_val(nm);
  /* the gradient function saved with the graph (stdlib/modules/smgrad.c), else TF's LookupError */
  Val gf = !val_is_undef(nd->aux) && !val_is(nd->aux, &str_type)
               ? rp_custom_fn(nd, vals, base) : builtin_new("tf.custom_gradient.<saved gradient>", rp_no_custom_grad, nm, NULL);
  rt_hold_val(gf);
  const Tuple *aux = val_is(nd->aux, &tuple_type) ? (const Tuple *)nd->aux.u.o : NULL;
  /* several results: one entry of them all (gradtape.c mark_custom_group) */
  if (aux && aux->len < 4) aux = NULL;   /* only a loaded graph's aux names arguments and results (smgrad.c) */
  const Tuple *res = aux ? (const Tuple *)aux->items[3].u.o : NULL;
  Val ys = val_incref(r);
  rt_hold_val(ys);
  if (res && res->len > 0) {
    val_decref(ys);
    ys = tuple_new(res->len);
    rt_hold_val(ys);
    for (tfs_i64 i = 0; i < res->len; i++) {
      const Tuple *pr = (const Tuple *)res->items[i].u.o;
      GraphRef rr = {(int)pr->items[0].u.i, (int)pr->items[1].u.i};
      ((Tuple *)ys.u.o)->items[i] = val_incref(rr.node == self ? r : rp_ref(vals, base, rr));
    }
  }
  /* the gradient is for f's arguments when the SavedModel names them (TF's IdentityN inputs), else the result's input */
  const Tuple *args = aux && val_is(aux->items[1], &tuple_type) ? (const Tuple *)aux->items[1].u.o : NULL;
  Val inb[16];
  int nin = args && args->len > 0 && args->len <= 16 ? (int)args->len : 1;
  if (args && args->len > 0 && args->len <= 16) {
    for (int i = 0; i < nin; i++) {
      const Tuple *pr = (const Tuple *)args->items[i].u.o;
      inb[i] = rp_ref(vals, base, (GraphRef){(int)pr->items[0].u.i, (int)pr->items[1].u.i});
    }
  } else {
    inb[0] = rp_ref(vals, base, nd->in[0]);
  }
  tape_record_custom(nin, inb, ys, gf);
  rt_unhold(mark);
  val_decref(ys);
  val_decref(gf);
  val_decref(nm);
  return r;
}

bool graph_replayable(const Graph *g) {
  for (int i = 0; i < g->nnodes; i++)
    if (g->nodes[i].kind == GN_COND || g->nodes[i].kind == GN_WHILE) return false;
  return true;
}

Val graph_replay(const Graph *g, const Val *args) {
  int *base = malloc(sizeof(int) * (size_t)(g->nnodes + 1));
  if (!base) rt_throw(ERR_MEMORY, "out of memory");
  int mark = rt_hold_mem(base);
  int nslots = 0;
  for (int i = 0; i < g->nnodes; i++) {
    base[i] = nslots;
    nslots += g->nodes[i].kind == GN_OP || g->nodes[i].kind == GN_COND || g->nodes[i].kind == GN_WHILE ? g->nodes[i].nout : 1;
  }
  Val *vals = calloc((size_t)nslots + 1, sizeof(Val));
  if (!vals) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(vals);
  Val keep = list_new(nslots);   /* owns every value until the end (and on an error) */
  rt_hold_val(keep);
  for (int i = 0; i < g->nnodes; i++) {
    const GraphNode *nd = &g->nodes[i];
    Val v;
    switch (nd->kind) {
      case GN_PLACEHOLDER: v = val_incref(args[nd->param]); break;
      case GN_CONST: v = val_obj(tensor_retain(nd->value)); break;
      case GN_VARHANDLE: v = val_incref(val_obj(nd->var)); break;
      case GN_OP:
        v = (nd->flags & GNF_CUSTOM_GRAD) && nd->nin == 1 && nd->in[0].node >= 0 && tape_any_recording()
                ? rp_custom(nd, i, vals, base) : rp_op(nd, vals, base);
        break;
      default:
        /* errindex: a loaded function with a graph cond or while loop cannot be … */
        rt_throw(ERR_UNIMPLEMENTED,
                 "a loaded function with a graph cond or while loop cannot be differentiated or called inside tf.function "
                 "in tfs (node '%s')", nd->name);
    }
    list_append(keep, v);
    val_decref(v);
    Val owned = ((List *)keep.u.o)->items[((List *)keep.u.o)->len - 1];   /* borrowed from keep */
    tfs_i64 n;
    const Val *items;
    if (nd->kind == GN_OP && nd->nout != 1 && seq_items(owned, &n, &items)) {
      for (int o = 0; o < nd->nout && o < n; o++) vals[base[i] + o] = items[o];
    } else if (!(nd->kind == GN_OP && nd->nout == 0)) {
      vals[base[i]] = owned;
    }
  }
  Val out = tuple_new(g->noutputs);
  for (int i = 0; i < g->noutputs; i++) ((Tuple *)out.u.o)->items[i] = val_incref(rp_ref(vals, base, g->outputs[i]));
  rt_unhold(mark);
  val_decref(keep);
  free(vals);
  free(base);
  return out;
}
