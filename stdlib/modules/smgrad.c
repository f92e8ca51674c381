/* smgrad.c — custom gradients in SavedModels: traced into the function library at save, bound to loaded functions.
 *
 * A tf.custom_gradient traced into a saved function leaves a GNF_CUSTOM_GRAD
 * Identity whose aux is the Python grad_fn.  With
 * SaveOptions(experimental_custom_gradients=True), TF's default, the grad_fn is
 * traced as a tf.function of the node's output gradient, written to the
 * library and named in FunctionDefLibrary.registered_gradients under the
 * node's _gradient_op_type.  Loading imports it and puts a callable running it
 * in the loaded node's aux, which the replay under a tape records as the
 * node's gradient (runtime/graph/replay.c). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/graphdef.h"
#include "function/tffunction.h"
#include "graph/trace.h"
#include "graph/replay.h"
#include "modules/modules.h"
#include "modules/smgrad.h"
#include "object/object.h"

/* ---- saving ---- */

static bool smg_wanted(Val options) {
  if (options.tag == VT_NONE) return true;
  Val v = rt_getattr(options, "experimental_custom_gradients");
  bool on = rt_truthy(v);
  val_decref(v);
  return on;
}

/* grad_fn traced on n gradients shaped as the results m[0..n): the ConcreteFunction (owned). */
static Val smg_trace_one(Val gf, int n, const TMeta *const *m) {
  Val sl = tuple_new(n);
  int mark = rt_hold_val(sl);
  for (int i = 0; i < n; i++)
    ((Tuple *)sl.u.o)->items[i] = tffn_spec_new(m[i]->rank, m[i]->shape, (int)m[i]->dtype, val_none());
  Val tffn = tfmod_lookup("function");
  rt_hold_val(tffn);
  Val w = rt_call(tffn, 1, &gf, NULL);
  rt_hold_val(w);
  Val gcf = rt_getattr(w, "get_concrete_function");
  rt_hold_val(gcf);
  Val c = rt_call(gcf, n, ((Tuple *)sl.u.o)->items, NULL);
  rt_unhold(mark);
  val_decref(gcf);
  val_decref(w);
  val_decref(tffn);
  val_decref(sl);
  return c;
}

/* smg_trace_one, a failure given TF's ValueError (save.py's _trace_gradient_functions), the error that stopped the
 * trace after it (TF prints that one to its log).  A grad_fn using the forward function's tensors fails so in tfs. */
static Val smg_trace_guarded(Val gf, int n, const TMeta *const *m, const char *op) {
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val c = smg_trace_one(gf, n, m);
    rt_try_pop(&t);
    return c;
  }
  Val cause = str_from_cstr(t.msg ? t.msg : "");
  rt_hold_val(cause);
  const char *kind = err_kind_name(t.kind);
  rt_try_clear(&t);
  rt_throw(ERR_VALUE,
           "Error when tracing gradients for SavedModel.\n\nCheck the error log to see the error that was raised when "
           "converting a gradient function to a concrete function. You may need to update the custom gradient, or "
           "disable saving gradients with the option tf.saved_model.SaveOptions(experimental_custom_gradients=False)."
           "\n\tProblematic op name: %s\n\tThe error: %s: %s",
           op ? op : "?", kind, str_cstr(cause));
}

/* smg_trace_guarded with the forward graph's tensors captured as arguments (noted in *fc; freed on an error). */
static Val smg_trace_foreign(TraceForeign *fc, Val gf, int n, const TMeta *const *metas, const char *name) {
  trace_set_foreign(fc);
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val c = smg_trace_guarded(gf, n, metas, name);
    rt_try_pop(&t);
    trace_set_foreign(NULL);
    return c;
  }
  trace_set_foreign(NULL);
  free(fc->refs);
  free(fc->ids);
  rt_rethrow(&t);
}

/* The gradient function of custom-gradient node nd of g traced: one gradient per result, the node's own or the
 * results a node of several names (gradtape.c mark_custom_group). */
static Val smg_trace_captures(const Graph *g, const GraphNode *nd, TraceForeign *fc) {
  const Tuple *aux = (const Tuple *)nd->aux.u.o;
  const TMeta *metas[64];
  int n = 1;
  metas[0] = &nd->outm[0];
  if (aux->len == 3 && val_is(aux->items[2], &tuple_type)) {
    const Tuple *rs = (const Tuple *)aux->items[2].u.o;
    n = (int)rs->len;
    for (int i = 0; i < n; i++) {
      const Tuple *pr = (const Tuple *)rs->items[i].u.o;
      metas[i] = graph_meta(g, (GraphRef){(int)pr->items[0].u.i, (int)pr->items[1].u.i});
    }
  }
  return smg_trace_foreign(fc, aux->items[0], n, metas, nd->name);
}

/* The forward tensors a traced grad_fn captured, as the loader finds them in the loaded forward function: "p:K"
 * its K-th argument, "n:NAME:OUT" output OUT of its node NAME (the library keeps node names). */
static char *smg_ref_name(PbArena *a, const Graph *fwd, GraphRef r) {
  const GraphNode *nd = &fwd->nodes[r.node];
  return nd->kind == GN_PLACEHOLDER ? pa_printf(a, "p:%d", nd->param) : pa_printf(a, "n:%s:%d", nd->name, r.out);
}

/* Appends prefix + the names of refs ((node, out) pairs of fwd) to names at *k. */
static void smg_ref_names(PbArena *a, const Graph *fwd, Val refs, const char *prefix, char **names, int *k) {
  const Tuple *t = (const Tuple *)refs.u.o;
  for (tfs_i64 i = 0; i < t->len; i++) {
    const Tuple *pr = (const Tuple *)t->items[i].u.o;
    names[(*k)++] = pa_printf(a, "%s%s", prefix, smg_ref_name(a, fwd, (GraphRef){(int)pr->items[0].u.i, (int)pr->items[1].u.i}));
  }
}

/* The list written with a gradient function: "a:" and f's arguments (the tensors the gradient is for, as TF's
 * IdentityN takes f's arguments after its results; none when one is no tensor of fwd: the gradient then goes to the
 * result's input), "r:" and the results when there are several, then the captures. */
static char **smg_capture_names(PbArena *a, const Graph *fwd, const TraceForeign *f, const Tuple *aux, int *n) {
  tfs_i64 na = val_is(aux->items[1], &tuple_type) ? ((Tuple *)aux->items[1].u.o)->len : 0;
  tfs_i64 nr = aux->len == 3 && val_is(aux->items[2], &tuple_type) ? ((Tuple *)aux->items[2].u.o)->len : 0;
  char **names = pa_alloc(a, sizeof(char *) * (size_t)(f->n + na + nr + 1));
  int k = 0;
  if (na) smg_ref_names(a, fwd, aux->items[1], "a:", names, &k);
  if (nr) smg_ref_names(a, fwd, aux->items[2], "r:", names, &k);
  for (int i = 0; i < f->n; i++) names[k++] = smg_ref_name(a, fwd, f->refs[i]);
  *n = k;
  return names;
}

Val smgrad_trace(PbArena *a, const Graph *const *gs, int n, Val options, int *seq, SmGrads *out) {
  memset(out, 0, sizeof *out);
  Val hold = list_new(0);
  if (!smg_wanted(options)) return hold;
  int mark = rt_hold_val(hold);
  int cap = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < gs[i]->nnodes; k++) cap += (gs[i]->nodes[k].flags & GNF_CUSTOM_GRAD) != 0;
  out->g = pa_alloc(a, sizeof(void *) * (size_t)(cap + 1));
  out->names = pa_alloc(a, sizeof(char *) * (size_t)(cap + 1));
  out->regs = pa_alloc(a, sizeof(void *) * (size_t)(cap + 1));
  out->caps = pa_alloc(a, sizeof(char **) * (size_t)(cap + 1));
  out->ncaps = pa_alloc(a, sizeof(int) * (size_t)(cap + 1));
  for (int i = 0; i < n; i++)
    for (int k = 0; k < gs[i]->nnodes; k++) {
      const GraphNode *nd = &gs[i]->nodes[k];
      /* a grad_fn of several results is not kept at trace (custom_call): its gradient stays TF's LookupError */
      if (!(nd->flags & GNF_CUSTOM_GRAD) || !val_is(nd->aux, &tuple_type) || nd->nout != 1) continue;
      /* the forward function's tensors grad_fn uses become arguments after dy (TF: captures bound at load) */
      TraceForeign fc = {.from = gs[i]};
      Val c = smg_trace_captures(gs[i], nd, &fc);
      list_append(hold, c);
      val_decref(c);
      out->caps[out->n] = smg_capture_names(a, gs[i], &fc, (const Tuple *)nd->aux.u.o, &out->ncaps[out->n]);
      free(fc.refs);
      free(fc.ids);
      TffnConcInfo ci;
      tffn_conc_info(c, &ci);
      Tensorflow__RegisteredGradient *r = pa_alloc(a, sizeof *r);
      tensorflow__registered_gradient__init(r);
      char *name = pa_printf(a, "__inference_internal_grad_fn_%d", (*seq)++);
      r->gradient_func = name;
      r->registered_op_type = graphdef_grad_op_type(a, gs[i], k);
      out->g[out->n] = ci.g;
      out->names[out->n] = name;
      out->regs[out->n++] = r;
    }
  rt_unhold(mark);
  return hold;
}

void smgrad_note_captures(PbArena *a, Tensorflow__FunctionDefLibrary *lib, const SmGrads *sg) {
  for (int k = 0; k < sg->n; k++) {
    if (!sg->ncaps[k]) continue;
    for (size_t j = 0; j < lib->n_function; j++) {
      Tensorflow__FunctionDef *f = lib->function[j];
      if (!f->signature || strcmp(f->signature->name, sg->names[k])) continue;
      Tensorflow__AttrValue *v = pa_alloc(a, sizeof *v);
      tensorflow__attr_value__init(v);
      v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
      v->list = pa_alloc(a, sizeof *v->list);
      tensorflow__attr_value__list_value__init(v->list);
      v->list->n_s = (size_t)sg->ncaps[k];
      v->list->s = pa_alloc(a, sizeof(ProtobufCBinaryData) * (size_t)sg->ncaps[k]);
      for (int c = 0; c < sg->ncaps[k]; c++) {
        v->list->s[c].data = (uint8_t *)sg->caps[k][c];
        v->list->s[c].len = strlen(sg->caps[k][c]);
      }
      Tensorflow__FunctionDef__AttrEntry *e = pa_alloc(a, sizeof *e);
      tensorflow__function_def__attr_entry__init(e);
      e->key = SMG_CAPTURES_ATTR;
      e->value = v;
      Tensorflow__FunctionDef__AttrEntry **at = pa_alloc(a, sizeof(void *) * (f->n_attr + 1));
      if (f->n_attr) memcpy(at, f->attr, sizeof(void *) * f->n_attr);
      at[f->n_attr++] = e;
      f->attr = at;
    }
  }
}

/* ---- loading ---- */

/* A loaded gradient function: the graph it runs (owned). */
typedef struct SmGradFn {
  Obj hdr;
  Graph *g;
} SmGradFn;

static void smg_free(Obj *o) {
  graph_release(((SmGradFn *)o)->g);
  free(o);
}

static const Type smg_type = {.name = "SavedGradient", .free = smg_free};

/* grad_fn(dy): the saved gradient graph replayed op by op (a tape outside records it: higher orders). */
static Val smg_call(Val self, int n, const Val *args, const Kw *kw) {
  const Graph *g = ((SmGradFn *)self.u.o)->g;
  if (n != g->ninputs || (kw && kw->n))
    rt_throw(ERR_TYPE, "saved gradient function '%s' takes %d argument%s but %d were given", g->name, g->ninputs,
             g->ninputs == 1 ? "" : "s", n);
  Val r = graph_replay(g, args);
  if (((Tuple *)r.u.o)->len != 1) return r;
  Val one = val_incref(((Tuple *)r.u.o)->items[0]);
  val_decref(r);
  return one;
}

/* The captured-tensor list a gradient function's FunctionDef carries (smgrad_note_captures), or NULL. */
static const Tensorflow__AttrValue__ListValue *smg_captures_of(const Tensorflow__FunctionDefLibrary *lib, const char *name) {
  for (size_t j = 0; j < lib->n_function; j++) {
    const Tensorflow__FunctionDef *f = lib->function[j];
    if (!f->signature || !f->signature->name || strcmp(f->signature->name, name)) continue;
    for (size_t a = 0; a < f->n_attr; a++)
      if (!strcmp(f->attr[a]->key, SMG_CAPTURES_ATTR) && f->attr[a]->value &&
          f->attr[a]->value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && f->attr[a]->value->list->n_s)
        return f->attr[a]->value->list;
  }
  return NULL;
}

/* One saved tensor reference ("p:K" / "n:NAME:OUT") resolved in the loaded forward graph g before node `at`: (node,
 * out), or an error naming the SavedModel. */
/* (nodes before `upto` may be named: a result list names the node `at` itself) */
static Val smg_resolve(const char *text, const Graph *g, int at, int upto, const char *path) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  int node = -1, out = 0;
  if (buf[0] == 'p' && buf[1] == ':') {
    int k = atoi(buf + 2);
    if (k >= 0 && k < g->ninputs) node = g->inputs[k];
  } else if (buf[0] == 'n' && buf[1] == ':') {
    char *colon = strrchr(buf + 2, ':');
    if (colon) {
      *colon = 0;
      out = atoi(colon + 1);
      for (int k = 0; k < upto && node < 0; k++)
        if (!strcmp(g->nodes[k].name, buf + 2)) node = k;
    }
  }
  if (node < 0 || node >= upto || out < 0 || (g->nodes[node].kind == GN_OP && out >= g->nodes[node].nout))
    /* errindex: SavedModel '…': the custom gradient of … uses '…', which its function does not compute before it */
    rt_throw(ERR_VALUE, "SavedModel '%s': the custom gradient of %s uses '%s', which its function does not compute before it",
             path, g->nodes[at].name, text);
  Val pair = tuple_new(2);
  ((Tuple *)pair.u.o)->items[0] = val_int(node);
  ((Tuple *)pair.u.o)->items[1] = val_int(out);
  return pair;
}

/* A custom-gradient node's aux from its gradient function's list (smg_capture_names): (fn, argument refs, capture
 * refs), refs being (node, out) in the loaded forward graph g; the replay records the gradient for the arguments and
 * passes the captures' values after dy (runtime/graph/replay.c). */
static Val smg_bound_aux(Val fn, const Tensorflow__AttrValue__ListValue *caps, Graph *g, int at, const char *path) {
  int na = 0, nr = 0;
  for (size_t c = 0; c < caps->n_s; c++) {
    na += caps->s[c].len > 2 && !memcmp(caps->s[c].data, "a:", 2);
    nr += caps->s[c].len > 2 && !memcmp(caps->s[c].data, "r:", 2);
  }
  Val args = tuple_new(na), refs = tuple_new((tfs_i64)caps->n_s - na - nr), res = tuple_new(nr);
  int mark = rt_hold_val(args);
  rt_hold_val(refs);
  rt_hold_val(res);
  int ia = 0, ir = 0, is = 0;
  for (size_t c = 0; c < caps->n_s; c++) {
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)caps->s[c].len, (const char *)caps->s[c].data);
    bool arg = !strncmp(buf, "a:", 2), result = !strncmp(buf, "r:", 2);
    /* a result may be the node itself: resolved among the nodes up to it */
    Val pair = smg_resolve(arg || result ? buf + 2 : buf, g, at, result ? at + 1 : at, path);
    if (arg) ((Tuple *)args.u.o)->items[ia++] = pair;
    else if (result) ((Tuple *)res.u.o)->items[is++] = pair;
    else ((Tuple *)refs.u.o)->items[ir++] = pair;
  }
  /* several results: the others only run (their gradient is this node's entry, recorded with all of them) */
  for (int i = 0; i < nr; i++) {
    GraphNode *m = &g->nodes[((Tuple *)((Tuple *)res.u.o)->items[i].u.o)->items[0].u.i];
    if (m == &g->nodes[at] || !(m->flags & GNF_CUSTOM_GRAD)) continue;
    val_decref(m->aux);
    m->aux = val_none();
  }
  Val aux = tuple_new(4);
  ((Tuple *)aux.u.o)->items[0] = val_incref(fn);
  ((Tuple *)aux.u.o)->items[1] = args;
  ((Tuple *)aux.u.o)->items[2] = refs;
  ((Tuple *)aux.u.o)->items[3] = res;
  rt_unhold(mark);
  return aux;
}

void smgrad_bind(const Tensorflow__FunctionDefLibrary *lib, Graph *const *gs, int n, const char *path, GiVarFn var,
                 void *vctx) {
  if (!lib) return;
  for (size_t r = 0; r < lib->n_registered_gradients; r++) {
    const Tensorflow__RegisteredGradient *rg = lib->registered_gradients[r];
    if (!rg->gradient_func || !rg->registered_op_type) continue;
    SmGradFn *h = obj_new(&smg_type, sizeof(SmGradFn));
    h->g = NULL;
    int mark = rt_hold_val(val_obj(h));
    h->g = graphimport_function(lib, rg->gradient_func, rg->gradient_func, path, var, vctx);
    Val fn = builtin_new("tf.custom_gradient.<saved gradient>", smg_call, val_obj(h), NULL);
    rt_hold_val(fn);
    const Tensorflow__AttrValue__ListValue *caps = smg_captures_of(lib, rg->gradient_func);
    for (int i = 0; i < n; i++)
      for (int k = 0; k < gs[i]->nnodes; k++) {
        GraphNode *nd = &gs[i]->nodes[k];
        if (!(nd->flags & GNF_CUSTOM_GRAD) || !val_is(nd->aux, &str_type) || strcmp(str_cstr(nd->aux), rg->registered_op_type))
          continue;
        Val aux = caps ? smg_bound_aux(fn, caps, gs[i], k, path) : val_incref(fn);
        val_decref(nd->aux);
        nd->aux = aux;
      }
    rt_unhold(mark);
    val_decref(fn);
    val_decref(val_obj(h));
  }
}
