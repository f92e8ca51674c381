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
#include <stdlib.h>
#include <string.h>

#include "formats/graphdef.h"
#include "function/tffunction.h"
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

/* grad_fn traced on one gradient shaped as the node's output: the ConcreteFunction (owned). */
static Val smg_trace_one(Val gf, const TMeta *m) {
  Val spec = tffn_spec_new(m->rank, m->shape, (int)m->dtype, val_none());
  int mark = rt_hold_val(spec);
  Val tffn = tfmod_lookup("function");
  rt_hold_val(tffn);
  Val w = rt_call(tffn, 1, &gf, NULL);
  rt_hold_val(w);
  Val gcf = rt_getattr(w, "get_concrete_function");
  rt_hold_val(gcf);
  Val c = rt_call(gcf, 1, &spec, NULL);
  rt_unhold(mark);
  val_decref(gcf);
  val_decref(w);
  val_decref(tffn);
  val_decref(spec);
  return c;
}

/* smg_trace_one, a failure given TF's ValueError (save.py's _trace_gradient_functions), the error that stopped the
 * trace after it (TF prints that one to its log).  A grad_fn using the forward function's tensors fails so in tfs. */
static Val smg_trace_guarded(Val gf, const TMeta *m, const char *op) {
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val c = smg_trace_one(gf, m);
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
  for (int i = 0; i < n; i++)
    for (int k = 0; k < gs[i]->nnodes; k++) {
      const GraphNode *nd = &gs[i]->nodes[k];
      /* a grad_fn of several results is not kept at trace (custom_call): its gradient stays TF's LookupError */
      if (!(nd->flags & GNF_CUSTOM_GRAD) || val_is_undef(nd->aux) || val_is(nd->aux, &str_type) || nd->nout != 1) continue;
      Val c = smg_trace_guarded(nd->aux, &nd->outm[0], nd->name);
      list_append(hold, c);
      val_decref(c);
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
    for (int i = 0; i < n; i++)
      for (int k = 0; k < gs[i]->nnodes; k++) {
        GraphNode *nd = &gs[i]->nodes[k];
        if (!(nd->flags & GNF_CUSTOM_GRAD) || !val_is(nd->aux, &str_type) || strcmp(str_cstr(nd->aux), rg->registered_op_type))
          continue;
        val_decref(nd->aux);
        nd->aux = val_incref(fn);
      }
    rt_unhold(mark);
    val_decref(fn);
    val_decref(val_obj(h));
  }
}
