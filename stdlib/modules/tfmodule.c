/* tfmodule.c — tf.Module: the base class that names a module, gives it a name scope and tracks its Variables and sub-modules.
 *
 * The class is a native class object whose dict holds builtin methods and
 * properties, so user classes derive from it with the ordinary class machinery
 * (classes.c) and its instances are ordinary instances.  As in TF, the state
 * lives in the instance's own attributes `_name` and `_name_scope`, and the
 * tracking walks the instance's attributes on every query (TF's
 * `_flatten_module`): attributes in sorted name order, each value flattened
 * as tf.nest does (lists and tuples in order, dicts by sorted key), every
 * object reported once (by identity, the module itself included), the
 * module's own leaves before those of its sub-modules, which are then walked
 * depth first in the order they were found. */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "modules/modules.h"
#include "object/object.h"
#include "tensor/tensor.h"
#include "modules/tfmod.h"
#include "object/value.h"

static TypeObj module_class = {
  .hdr = {TFS_IMMORTAL_RC, &type_type},
  .name = "Module",
  .type = &inst_type,
  .tag = VT_OBJ,
  .errkind = -1,
  .dict = {VT_UNDEF, {0}},
  .module = "tensorflow.python.module.module",
  .user_ok = true,
};

bool tfmodule_is(Val v) {
  if (!val_is(v, &inst_type)) return false;
  for (TypeObj *c = ((Inst *)v.u.o)->klass; c; c = c->base)
    if (c == &module_class) return true;
  return false;
}

static Val self_arg(const char *what, int n, const Val *args) {
  if (n < 1 || !tfmodule_is(args[0]))
    rt_throw(ERR_TYPE, "descriptor '%s' requires a 'Module' object but received a '%s'", what,
             n < 1 ? "NoneType" : val_type_name(args[0]));
  return args[0];
}

/* ---- names --------------------------------------------------------------------------------------- */

/* TF's camel_to_snake: '_' before a capital that follows a lower-case letter
 * or digit, or that starts a capitalised word (not at the start); then lower case. */
static Val camel_to_snake(const char *s) {
  size_t n = strlen(s);
  char *out = malloc(2 * n + 1);
  if (!out) rt_throw(ERR_MEMORY, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    bool up = c >= 'A' && c <= 'Z';
    if (up && i > 0) {
      char p = s[i - 1], q = s[i + 1];
      if ((p >= 'a' && p <= 'z') || (p >= '0' && p <= '9') || (q >= 'a' && q <= 'z')) out[k++] = '_';
    }
    out[k++] = up ? (char)(c - 'A' + 'a') : c;
  }
  out[k] = 0;
  return str_take(out, (tfs_i64)k);
}

static bool valid_identifier(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
  return true;
}

/* Module.__init__(self, name=None) */
static Val mod_init(Val state, int n, const Val *args, const Kw *kw) {
  (void)state;
  static ArgSpec spec = {.what = "Module.__init__", .sig = "self, name=None"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  Val self = self_arg("__init__", 1, a), name;
  if (a[1].tag == VT_NONE) {
    name = camel_to_snake(((Inst *)self.u.o)->klass->name);
  } else {
    if (!val_is(a[1], &str_type)) rt_throw(ERR_TYPE, "expected string or bytes-like object, got '%s'", val_type_name(a[1]));
    if (!valid_identifier(str_cstr(a[1]))) {
      Val r = repr_of(a[1]);
      rt_hold_val(r);
      rt_throw(ERR_VALUE,
               "%s is not a valid module name. Module names must be valid Python identifiers (e.g. a valid class name).",
               str_cstr(r));
    }
    name = val_incref(a[1]);
  }
  int mark = rt_hold_val(name);
  rt_setattr(self, "_name", name);
  /* TF 2 memoizes the scope entered once here: its full name, so the module's
   * scope stays where it was made ('mlp/dense/') whoever enters it later */
  StrBuf b;
  sb_init(&b);
  rt_hold_sb(&b);
  sb_printf(&b, "%s%s/", graph_scope_prefix(), str_cstr(name));
  Val full = str_new(b.data, (tfs_i64)b.len);
  rt_hold_val(full);
  Val scope = tf_name_scope(val_undef(), 1, &full, NULL);
  rt_hold_val(scope);
  rt_setattr(self, "_name_scope", scope);
  rt_unhold(mark);
  val_decref(scope);
  val_decref(full);
  sb_free(&b);
  val_decref(name);
  return val_none();
}

static Val mod_name(Val state, int n, const Val *args, const Kw *kw) {
  (void)state;
  (void)kw;
  return rt_getattr(self_arg("name", n, args), "_name");
}

static Val mod_name_scope(Val state, int n, const Val *args, const Kw *kw) {
  (void)state;
  (void)kw;
  return rt_getattr(self_arg("name_scope", n, args), "_name_scope");
}

/* ---- tracking ------------------------------------------------------------------------------------- */

enum { PICK_VARIABLE, PICK_TRAINABLE, PICK_NON_TRAINABLE, PICK_MODULE };

typedef struct Walk {
  int pick;
  Val out;                    /* list of what was picked */
  Val *seen;                  /* objects met so far (owned references, held) */
  tfs_i64 nseen, capseen;
} Walk;

static bool walk_pick(const Walk *w, Val v) {
  if (w->pick == PICK_MODULE) return tfmodule_is(v);
  if (!val_is(v, &variable_type)) return false;
  if (w->pick == PICK_VARIABLE) return true;
  return ((Variable *)v.u.o)->trainable == (w->pick == PICK_TRAINABLE);
}

/* First meeting of the object v (identity): remember it. */
static bool walk_first(Walk *w, Val v) {
  for (tfs_i64 i = 0; i < w->nseen; i++)
    if (w->seen[i].u.o == v.u.o) return false;
  if (w->nseen == w->capseen) {
    tfs_i64 cap = w->capseen ? 2 * w->capseen : 16;
    Val *p = realloc(w->seen, sizeof(Val) * (size_t)cap);
    if (!p) rt_throw(ERR_MEMORY, "out of memory");
    w->seen = p;
    w->capseen = cap;
  }
  w->seen[w->nseen++] = val_incref(v);
  return true;
}

/* tf.nest.flatten of one attribute value, leaf by leaf; sub-modules found go to subs. */
static void walk_value(Walk *w, Val v, Val subs, int depth, const char *key, Val prop) {
  if (depth > 500) {   /* a list that contains itself: TF's nest gives up too */
    Val r = repr_of(prop);
    rt_hold_val(r);
    rt_throw(ERR_VALUE, "Error processing property '%s' of %s", key, str_cstr(r));
  }
  tfs_i64 n;
  const Val *items;
  if (seq_items(v, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++) walk_value(w, items[i], subs, depth + 1, key, prop);
    return;
  }
  if (val_is(v, &dict_type)) {
    Val keys = dict_keys_list(v);
    int mark = rt_hold_val(keys);
    list_sort(keys, val_none(), false);
    List *kl = (List *)keys.u.o;
    for (tfs_i64 i = 0; i < kl->len; i++) {
      Val item = dict_get(v, kl->items[i]);
      if (val_is_undef(item)) continue;
      int m = rt_hold_val(item);
      walk_value(w, item, subs, depth + 1, key, prop);
      rt_unhold(m);
      val_decref(item);
    }
    rt_unhold(mark);
    val_decref(keys);
    return;
  }
  if (v.tag != VT_OBJ || !walk_first(w, v)) return;   /* immediates are never Variables or modules */
  if (walk_pick(w, v)) list_append(w->out, v);
  if (tfmodule_is(v)) list_append(subs, v);
}

static void walk_module(Walk *w, Val m) {
  Val dict = ((Inst *)m.u.o)->dict;
  if (val_is_undef(dict)) return;
  Val keys = dict_keys_list(dict);
  int mark = rt_hold_val(keys);
  list_sort(keys, val_none(), false);
  Val subs = list_new(0);
  rt_hold_val(subs);
  List *kl = (List *)keys.u.o;
  for (tfs_i64 i = 0; i < kl->len; i++) {
    Val prop = dict_get(dict, kl->items[i]);
    if (val_is_undef(prop)) continue;
    int m = rt_hold_val(prop);
    walk_value(w, prop, subs, 0, val_is(kl->items[i], &str_type) ? str_cstr(kl->items[i]) : "?", prop);
    rt_unhold(m);
    val_decref(prop);
  }
  List *sl = (List *)subs.u.o;
  for (tfs_i64 i = 0; i < sl->len; i++) walk_module(w, sl->items[i]);
  rt_unhold(mark);
  val_decref(subs);
  val_decref(keys);
}

static Val mod_collect(const char *what, int pick, int n, const Val *args) {
  Val self = self_arg(what, n, args);
  Walk w = {.pick = pick, .out = list_new(0)};
  int mark = rt_hold_val(w.out);
  rt_hold_vals(&w.seen, &w.nseen);
  walk_first(&w, self);
  walk_module(&w, self);
  List *l = (List *)w.out.u.o;
  Val t = tuple_new(l->len);
  for (tfs_i64 i = 0; i < l->len; i++) ((Tuple *)t.u.o)->items[i] = val_incref(l->items[i]);
  rt_unhold(mark);
  val_decref(w.out);
  for (tfs_i64 i = 0; i < w.nseen; i++) val_decref(w.seen[i]);
  free(w.seen);
  return t;
}

#define COLLECT(fn, what, pick)                                             \
  static Val fn(Val state, int n, const Val *args, const Kw *kw) {          \
    (void)state;                                                            \
    (void)kw;                                                               \
    return mod_collect(what, pick, n, args);                                \
  }
COLLECT(mod_variables, "variables", PICK_VARIABLE)
COLLECT(mod_trainable, "trainable_variables", PICK_TRAINABLE)
COLLECT(mod_non_trainable, "non_trainable_variables", PICK_NON_TRAINABLE)
COLLECT(mod_submodules, "submodules", PICK_MODULE)
#undef COLLECT

/* ---- tf.Module.with_name_scope --------------------------------------------------------------------- */

/* The decorated method: enter self.name_scope around the call (`method` is the wrapped one). */
static Val mod_scoped_call(Val method, int n, const Val *args, const Kw *kw) {
  if (n < 1) rt_throw(ERR_TYPE, "method_with_name_scope() missing 1 required positional argument: 'self'");
  Val scope = rt_getattr(args[0], "name_scope");
  int mark = rt_hold_val(scope);
  val_decref(rt_with_enter(scope));
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val r = rt_call(method, n, args, kw);
    rt_try_pop(&t);
    rt_with_exit(scope, val_undef());
    rt_unhold(mark);
    val_decref(scope);
    return r;
  }
  rt_with_exit(scope, val_undef());   /* a name scope never swallows the error */
  rt_rethrow(&t);
}

//! Module.with_name_scope(method)
//!   Decorator for a method of a tf.Module subclass: the method runs inside the module's name_scope.
static Val mod_with_name_scope(Val state, int n, const Val *args, const Kw *kw) {
  (void)state;
  if (kw && kw->n) rt_throw(ERR_TYPE, "with_name_scope() takes no keyword arguments");
  if (n != 1) rt_throw(ERR_TYPE, "with_name_scope() takes 1 positional argument but %d were given", n);
  return class_native_method("method_with_name_scope", mod_scoped_call, args[0]);
}

//! Module.name
//!   The module's name, as given or derived from the class name.
//! Module.name_scope
//!   A context manager: Variables created inside `with self.name_scope:` are named `name/var:0`.
//! Module.variables | Module.trainable_variables | Module.non_trainable_variables
//!   The Variables reachable from the module through attributes, lists, tuples and dicts (deduplicated,
//!   in attribute-name order), all of them, the trainable ones, or the others.
//! Module.submodules
//!   Every tf.Module reachable from this one, each module before the modules found inside it.

/* ---- the class -------------------------------------------------------------------------------------- */

//! tf.Module(name=None)
//!   Base class for model code. name defaults to the class name in snake case (MyModel -> my_model) and must
//!   be an identifier. Properties: name, name_scope (entered with `with self.name_scope:`), and variables,
//!   trainable_variables, non_trainable_variables and submodules, collected through the attributes (sorted by
//!   name; lists, tuples and dicts searched too; each object once, a module's own first, depth first).
Val tfmodule_class(void) {
  if (val_is_undef(module_class.dict)) {
    static const struct { const char *name; BuiltinFn fn; } props[] = {
      {"name", mod_name},
      {"name_scope", mod_name_scope},
      {"variables", mod_variables},
      {"trainable_variables", mod_trainable},
      {"non_trainable_variables", mod_non_trainable},
      {"submodules", mod_submodules},
    };
    Val d = dict_new();
    Val init = class_native_method("Module.__init__", mod_init, val_undef());
    dict_set_str(&d, "__init__", init);
    val_decref(init);
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
      Val fn = builtin_new(props[i].name, props[i].fn, val_undef(), NULL);
      Val p = class_property(val_undef(), 1, &fn, NULL);
      dict_set_str(&d, props[i].name, p);
      val_decref(p);
      val_decref(fn);
    }
    Val fn = builtin_new("Module.with_name_scope", mod_with_name_scope, val_undef(), NULL);
    Val sm = class_staticmethod(val_undef(), 1, &fn, NULL);
    dict_set_str(&d, "with_name_scope", sm);
    val_decref(sm);
    val_decref(fn);
    module_class.dict = d;
  }
  return val_obj(&module_class);
}
