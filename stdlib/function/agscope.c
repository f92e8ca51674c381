/* agscope.c — the names TF's converted-code layout uses in `ag__`: FunctionScope, ConversionOptions, STD, ld, converted_call.
 *
 * Converted functions run their body in
 *   with ag__.FunctionScope('f', 'fscope', ag__.ConversionOptions(...)) as fscope:
 * and end with `return fscope.ret(retval_, do_return)`.  tfs converts every
 * function before it runs, so the options only need to be accepted: the
 * scope is a plain context manager whose `ret` is ag.ret, `ld` returns its
 * argument and `converted_call` calls f(*args, **kwargs). */
#include <stdlib.h>
#include <string.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

typedef struct AgScope {
  Obj hdr;
  Val name;                   /* owned: the function's name */
} AgScope;

static Val fs_enter(Val self, int n, const Val *args, const Kw *kw) {
  (void)args;
  (void)kw;
  if (n) rt_throw(ERR_TYPE, "__enter__() takes no arguments (%d given)", n);
  return val_incref(self);
}

static Val fs_exit(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  (void)args;
  (void)kw;
  if (n != 3) rt_throw(ERR_TYPE, "__exit__() takes 3 arguments (%d given)", n);
  return val_bool(false); /* never swallows the exception */
}

static Val fs_getattr(Val self, const char *name) {
  if (!strcmp(name, "__enter__")) return builtin_new("__enter__", fs_enter, self, NULL);
  if (!strcmp(name, "__exit__")) return builtin_new("__exit__", fs_exit, self, NULL);
  if (!strcmp(name, "ret")) return builtin_new("ret", ag_ret, val_undef(), NULL);
  if (!strcmp(name, "name")) return val_incref(((AgScope *)self.u.o)->name);
  return val_undef();
}

static void fs_free(Obj *o) {
  val_decref(((AgScope *)o)->name);
  free(o);
}

static void fs_repr(StrBuf *b, Val v) { sb_printf(b, "<FunctionScope object at %p>", (void *)v.u.o); }

static const Type fscope_type = {.name = "FunctionScope", .free = fs_free, .repr = fs_repr, .getattr = fs_getattr};

Val ag_FunctionScope(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "ag.FunctionScope", .sig = "function_name, scope_name, options"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  AgScope *s = obj_new(&fscope_type, sizeof(AgScope));
  s->name = val_incref(a[0]);
  return val_obj(s);
}

/* The options are recorded by nothing: every function is converted anyway. */
Val ag_ConversionOptions(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "ag.ConversionOptions",
                         .sig = "recursive=False, user_requested=False, optional_features=None, "
                                "internal_convert_user_code=True"};
  Val a[4];
  args_parse(&spec, n, args, kw, a);
  return val_none();
}

/* ag__.autograph_artifact(f): marks a function or lambda the conversion already converted (TF: so that
 * converted_call does not convert it again); here every nested definition is converted with its parent. */
Val ag_autograph_artifact(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "ag.autograph_artifact", .sig = "entity, extras=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  return val_incref(a[0]);
}

Val ag_ld(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "ag.ld", .sig = "v"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  return rt_ag_ld(a[0]);
}

/* ag__.ld(v) in converted code, called directly by the generated C (cgen.c):
 * the attribute lookup and the generic call were most of the C of a
 * converted assignment. */
Val rt_ag_ld(Val v) {
  ag_check_defined(v);
  return val_incref(v);
}

/* ag__.ld(x) of a local the generated C then passes as it is (borrowed). */
void rt_ag_check(Val v) { ag_check_defined(v); }

Val ag_converted_call(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "ag.converted_call", .sig = "f, args, kwargs, caller_fn_scope=None, options=None"};
  Val a[5];
  args_parse(&spec, n, args, kw, a);
  return rt_call_star(a[0], a[1], a[2]);
}
