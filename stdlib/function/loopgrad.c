/* loopgrad.c — gradients of graph while loops: a backward loop pops each iteration's state and differentiates the body run again on it.
 *
 * TF's while_v2 accumulates the intermediates of every iteration and its
 * backward loop pops them in reverse.  Here the forward loop (agmod.c), when a
 * tape will differentiate it, pushes only its carried values at the start of
 * each iteration and counts iterations.  The backward loop runs count times;
 * iteration k pops the state the forward iteration k started from, runs the
 * body again on it under a fresh tape (inside the backward body graph, as a
 * cond's gradient reruns its branch) and takes the gradients of the body's
 * results, seeded with the incoming gradients, with respect to that state and
 * to the outer values the body read.  The former become the next incoming
 * gradients; the latter are summed over the iterations.  The state is read,
 * not popped, so each gradient of a persistent tape finds it; it is released
 * when the function's run ends. */
#include <stdlib.h>

#include "object/object.h"
#include "graph/tape.h"
#include "modules/tfmod.h"

static bool float_tensor(Val v) {
  Tensor *t = val_as_tensor(v);
  return t && (dtype_has_grad(t->dtype) || t->dtype == DT_VARIANT);
}

static Val items_tuple(const Val *v, int n) { return rt_tuple(n, v); }

/* cond(i, ...): iterations left */
static Val bw_cond(Val self, int n, const Val *args, const Kw *kw) {
  (void)self; (void)n; (void)kw;
  return op_apply2(OP_GREATER, args[0], val_int(0));
}

/* body(i, dstate..., dext...) with self = (rerun, stacks, ext, fmask, base):
 * fmask[j] says whether leaf j is differentiable (a float tensor). */
static Val bw_body(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  const Val *s = ((Tuple *)self.u.o)->items;
  Tuple *stacks = (Tuple *)s[1].u.o, *ext = (Tuple *)s[2].u.o, *fmask = (Tuple *)s[3].u.o;
  int nl = (int)stacks->len - 1, ne = (int)ext->len, nf = n - 1 - ne;   /* the last stack: random-draw counters */
  Val i1 = op_apply2(OP_SUB, args[0], val_int(1));
  Val at_i = op_apply2(OP_ADD, s[4], i1);
  Val *popped = malloc(sizeof(Val) * (size_t)(nl + 1));
  Val *tg = malloc(sizeof(Val) * (size_t)(nf + 1));
  Val *src = malloc(sizeof(Val) * (size_t)(nf + ne + 1));
  Val *res = calloc((size_t)(nf + ne + 1), sizeof(Val));
  Val *out = malloc(sizeof(Val) * (size_t)(n + 1));
  if (!popped || !tg || !src || !res || !out) rt_throw(ERR_MEMORY, "out of memory");
  for (int j = 0; j < nl; j++) {
    OpAttrs at = {1, {stacks->items[j]}};
    popped[j] = op_apply(&op_defs[OP_STACK_GET], 1, &at_i, &at);
  }
  OpAttrs rat = {1, {stacks->items[nl]}};
  Val rng = op_apply(&op_defs[OP_STACK_GET], 1, &at_i, &rat);
  val_decref(at_i);
  Val leaves = items_tuple(popped, nl);
  Val tp = tape_new(false, false);
  Tape *t = (Tape *)tp.u.o;
  int k = 0;
  for (int j = 0; j < nl; j++)
    if (rt_truthy(fmask->items[j])) src[k++] = popped[j];
  for (int e = 0; e < ne; e++) src[k++] = ext->items[e];
  for (int q = 0; q < k; q++) tape_watch(t, src[q]);
  Val in2[2] = {i1, leaves};
  Val live = op_apply1(OP_RNG_SWAP, rng);   /* the rerun draws what forward iteration k drew */
  Val after = gradtape_rerun(t, s[0], 2, in2);
  val_decref(op_apply1(OP_RNG_SWAP, live));
  val_decref(live);
  val_decref(rng);
  const Val *al = ((Tuple *)after.u.o)->items;
  int f = 0;
  for (int j = 0; j < nl; j++)
    if (rt_truthy(fmask->items[j])) tg[f++] = al[j];
  tape_gradient(t, nf, tg, args + 1, nf + ne, src, true, res);
  out[0] = i1;
  for (int q = 0; q < nf; q++) out[1 + q] = res[q];
  for (int e = 0; e < ne; e++) {
    out[1 + nf + e] = tape_add_grads(args[1 + nf + e], res[nf + e]);
    val_decref(res[nf + e]);
  }
  Val r = items_tuple(out, n);
  for (int q = 0; q < n; q++) val_decref(out[q]);
  for (int j = 0; j < nl; j++) val_decref(popped[j]);
  val_decref(leaves);
  val_decref(after);
  val_decref(tp);
  free(popped); free(tg); free(src); free(res); free(out);
  return r;
}

/* The backward loop's shape invariants (None: none needed): it carries each incoming gradient, shaped as the
 * loop's result, back to the shape of the loop's input; a dimension where the two differ statically (a
 * forward variable with a shape invariant, as tf.concat growing a vector) is unknown in the backward loop. */
static Val loop_grad_invariants(int nl, const Val *dys, Tuple *ins, Val fmask, int nvars) {
  Val inv = tuple_new(nvars);
  Val *iv = ((Tuple *)inv.u.o)->items;
  for (int q = 0; q < nvars; q++) iv[q] = val_none();
  bool any = false;
  for (int j = 0, f = 1; j < nl; j++) {
    if (!rt_truthy(((Tuple *)fmask.u.o)->items[j])) continue;
    Tensor *d = val_as_tensor(dys[j]), *x = ins->items[j].tag == VT_NONE ? NULL : val_as_tensor(ins->items[j]);
    int q = f++;
    if (!d || !x || d->rank < 0 || d->rank != x->rank) continue;
    bool differ = false;
    for (int i = 0; i < d->rank; i++) differ |= d->shape[i] != x->shape[i];
    if (!differ) continue;
    Val dims = list_new(d->rank);
    for (int i = 0; i < d->rank; i++) {
      Val e = d->shape[i] >= 0 && d->shape[i] == x->shape[i] ? val_int(d->shape[i]) : val_none();
      list_append(dims, e);
    }
    iv[q] = dims;
    any = true;
  }
  if (!any) {
    val_decref(inv);
    return val_none();
  }
  return inv;
}

/* The loop entry's gradient: self = (rerun, stacks, count, ins, ext, base); dys: one per final leaf. */
static Val while_grad(Val self, int n, const Val *dys, const Kw *kw) {
  (void)kw;
  const Val *s = ((Tuple *)self.u.o)->items;
  Tuple *ins = (Tuple *)s[3].u.o, *ext = (Tuple *)s[4].u.o;
  int nl = n, ne = (int)ext->len;
  Val *lv = malloc(sizeof(Val) * (size_t)(1 + nl + ne));
  Val fmask = tuple_new(nl);
  if (!lv) rt_throw(ERR_MEMORY, "out of memory");
  int k = 0;
  lv[k++] = val_incref(s[2]);
  for (int j = 0; j < nl; j++) {
    bool fl = float_tensor(dys[j]);
    ((Tuple *)fmask.u.o)->items[j] = val_bool(fl);
    if (fl) lv[k++] = val_incref(dys[j]);
  }
  int nf = k - 1;
  for (int e = 0; e < ne; e++) lv[k++] = op_apply1(OP_ZEROS_LIKE, ext->items[e]);
  Val vars = items_tuple(lv, k);
  for (int q = 0; q < k; q++) val_decref(lv[q]);
  free(lv);
  Val bst = tuple_pack(5, s[0], s[1], s[4], fmask, s[5]);
  Val cond = builtin_new("while_grad.cond", bw_cond, val_undef(), NULL);
  Val body = builtin_new("while_grad.body", bw_body, bst, NULL);
  Val tf = tf_module();
  Val wl = rt_getattr(tf, "while_loop");
  Val a3[3] = {cond, body, vars};
  Val inv = loop_grad_invariants(nl, dys, ins, fmask, k);
  static const char *const inv_name[1] = {"shape_invariants"};
  Kw ikw = {1, inv_name, &inv};
  Val r = rt_call(wl, 3, a3, inv.tag == VT_NONE ? NULL : &ikw);
  val_decref(inv);
  const Val *ri = ((Tuple *)r.u.o)->items;
  Val g = tuple_new(nl + ne);
  Val *gi = ((Tuple *)g.u.o)->items;
  int f = 0;
  for (int j = 0; j < nl; j++) {
    bool fl = rt_truthy(((Tuple *)fmask.u.o)->items[j]);
    gi[j] = fl && ins->items[j].tag != VT_NONE ? val_incref(ri[1 + f]) : val_none();
    if (fl) f++;
  }
  for (int e = 0; e < ne; e++) gi[nl + e] = val_incref(ri[1 + nf + e]);
  val_decref(r); val_decref(wl); val_decref(tf); val_decref(body); val_decref(cond); val_decref(bst);
  val_decref(vars); val_decref(fmask);
  return g;
}

static Val while_grad_unavailable(Val self, int n, const Val *args, const Kw *kw) {
  (void)self; (void)n; (void)args; (void)kw;
  rt_throw(ERR_RUNTIME, "internal error: the gradient of a loop inside a differentiated cond or loop body was taken directly");
}

void loopgrad_region_end(TapeRegion *r, Val ins, Val outs, Val rerun, Val stacks, Val base, Val count) {
  Tuple *it = (Tuple *)ins.u.o;
  for (int i = 0; i < r->n; i++) {
    Val ext;
    tape_region_end(r, i, &ext);
    Tuple *et = (Tuple *)ext.u.o;
    bool any = et->len > 0;
    for (tfs_i64 j = 0; j < it->len && !any; j++) any = tape_tracks(r->t[i], it->items[j]);
    if (any) {
      Val all = tuple_new(it->len + et->len);
      for (tfs_i64 j = 0; j < it->len; j++) ((Tuple *)all.u.o)->items[j] = val_incref(it->items[j]);
      for (tfs_i64 j = 0; j < et->len; j++) ((Tuple *)all.u.o)->items[it->len + j] = val_incref(et->items[j]);
      Val fn;
      if (rerun.tag == VT_NONE) {
        fn = builtin_new("while_grad", while_grad_unavailable, val_undef(), NULL);
      } else {
        Val st = tuple_pack(6, rerun, stacks, count, ins, ext, base);
        fn = builtin_new("while_grad", while_grad, st, NULL);
        val_decref(st);
      }
      tape_record_on(r->t[i], all, outs, fn);
      val_decref(fn);
      val_decref(all);
    }
    val_decref(ext);
  }
}
