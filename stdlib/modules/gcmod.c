/* gcmod.c — the native stdlib module `gc` (collect, enable, disable, isenabled) over the cycle collector of runtime/object/gc.c. */
#include <string.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

/* gc.collect(generation=2): the number of unreachable objects found.  Ours
 * counts the containers it freed, which need not equal CPython's count. */
static Val gm_collect(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "collect", .sig = "generation=2"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  int64_t g = val_to_index(a[0], NULL);
  if (g < 0 || g > 2) rt_throw(ERR_VALUE, "invalid generation");
  return val_int((int64_t)rt_gc_collect());
}

static Val gm_enable(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("enable", n, kw);
  rt_gc_enable(true);
  return val_none();
}

static Val gm_disable(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("disable", n, kw);
  rt_gc_enable(false);
  return val_none();
}

static Val gm_isenabled(Val self, int n, const Val *args, const Kw *kw) {
  native_noargs("isenabled", n, kw);
  return val_bool(rt_gc_is_enabled());
}

#define GM(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin gm_fns[] = {
  GM("gc.collect", gm_collect), GM("gc.enable", gm_enable), GM("gc.disable", gm_disable),
  GM("gc.isenabled", gm_isenabled),
};

static Val gm_attr(const char *name) {
  for (size_t i = 0; i < sizeof gm_fns / sizeof gm_fns[0]; i++)
    if (!strcmp(gm_fns[i].name + 3, name)) return val_obj(&gm_fns[i]);
  return val_undef();
}

Val gcmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("gc", gm_attr);
  return val_incref(mod);
}
