/* ctxmgr.c — the built-in context managers tf.name_scope(name), tf.device(name) and tf.init_scope().
 *
 * How a C type takes part in `with` (docs/language.md): the statement looks up
 * `__enter__` and `__exit__` through the type's getattr slot, so the type
 * returns them as builtins bound to the object (builtin_new(name, fn, self,
 * NULL)).  __enter__ gets no arguments and returns the `as` value; __exit__
 * gets (type, value, traceback) — three Nones on a normal exit — and returns
 * a true value to swallow the exception. */
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/trace.h"
#include "modules/modules.h"
#include "object/object.h"
#include "modules/tfmod.h"
#include "object/value.h"

typedef struct CtxMgr {
  Obj hdr;
  bool device;                /* tf.device: accepted, no effect on CPU */
  bool init;                  /* tf.init_scope: the block runs eagerly, outside any trace */
  Val name;                   /* owned str */
  int entered;                /* times entered and not exited: a tf.Module's scope is re-entered by nested calls */
  TraceCtx *saved;            /* tf.init_scope: the trace its outermost __enter__ suspended (NULL: none) */
} CtxMgr;

static const Type ctxmgr_type;

static Val cm_enter(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  (void)kw;
  if (n) rt_throw(ERR_TYPE, "__enter__() takes no arguments (%d given)", n);
  CtxMgr *c = (CtxMgr *)self.u.o;
  if (c->device) return val_none();
  if (c->init) {
    if (c->entered++ == 0) c->saved = trace_suspend();   /* re-entered: already outside the trace */
    return val_none();
  }
  const char *name = str_cstr(c->name);
  size_t len = strlen(name);
  TraceCtx *cx = trace_current();
  const char *full;
  if (cx && cx->g && len && name[len - 1] != '/') {
    /* in a graph, TF's Graph.name_scope takes a unique name ("s", then "s_1") shared with the op names: a scope
     * opened again in one trace does not merge with the first */
    const char *u = graph_reserve_name(cx->g, name);
    StrBuf b;
    sb_init(&b);
    int mark = rt_hold_sb(&b);   /* freed if a push fails */
    sb_printf(&b, "%s/", u);
    full = graph_scope_push(b.data);
    rt_unhold(mark);
    sb_free(&b);
  } else {
    full = graph_scope_push(name);
  }
  c->entered++;
  return str_from_cstr(full);
}

static Val cm_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  (void)kw;
  if (n != 3) rt_throw(ERR_TYPE, "__exit__() takes 3 arguments (%d given)", n);
  CtxMgr *c = (CtxMgr *)self.u.o;
  if (c->init) {
    if (c->entered && --c->entered == 0 && c->saved) {
      trace_resume(c->saved);
      c->saved = NULL;
    }
    return val_bool(false);
  }
  if (c->entered) {
    graph_scope_pop();
    c->entered--;
  }
  return val_bool(false);
}

static Val cm_getattr(Val self, const char *name) {
  if (!strcmp(name, "__enter__")) return builtin_new("__enter__", cm_enter, self, NULL);
  if (!strcmp(name, "__exit__")) return builtin_new("__exit__", cm_exit, self, NULL);
  if (!strcmp(name, "name")) return val_incref(((CtxMgr *)self.u.o)->name);
  return val_undef();
}

static void cm_free(Obj *o) {
  val_decref(((CtxMgr *)o)->name);
  free(o);
}

static void cm_repr(StrBuf *b, Val v) {
  CtxMgr *c = (CtxMgr *)v.u.o;
  sb_printf(b, "<%s object at %p>", c->init ? "tf.init_scope" : c->device ? "tf.device" : "tf.name_scope", (void *)v.u.o);
}

static const Type ctxmgr_type = {
  .name = "name_scope",
  .free = cm_free,
  .repr = cm_repr,
  .getattr = cm_getattr,
};

/* tf.name_scope(name) / tf.device(device_name) */
static Val cm_new(bool device, int n, const Val *args, const Kw *kw) {
  static ArgSpec specs[2] = {{.what = "tf.name_scope", .sig = "name"}, {.what = "tf.device", .sig = "device_name"}};
  Val name;
  args_parse(&specs[device], n, args, kw, &name);
  if (!val_is(name, &str_type))
    rt_throw(ERR_TYPE, "%s: name must be a string, not %s", specs[device].what, val_type_name(name));
  CtxMgr *c = obj_new(&ctxmgr_type, sizeof(CtxMgr));
  c->device = device;
  c->init = false;
  c->name = val_incref(name);
  c->entered = 0;
  c->saved = NULL;
  return val_obj(c);
}

Val tf_name_scope(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return cm_new(false, n, args, kw);
}

Val tf_device(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return cm_new(true, n, args, kw);
}

//! tf.init_scope()
//!   A context manager: inside a tf.function its block runs eagerly, outside the trace (tensors made there are eager
//!   values the graph captures as constants); eagerly it does nothing. TF's clearing of control dependencies and
//!   name scopes for the block is not done.
Val tf_init_scope(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "tf.init_scope", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  CtxMgr *c = obj_new(&ctxmgr_type, sizeof(CtxMgr));
  c->device = false;
  c->init = true;
  c->name = str_from_cstr("init_scope");
  c->entered = 0;
  c->saved = NULL;
  return val_obj(c);
}
