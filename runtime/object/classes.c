/* classes.c — user classes (class statements), their instances and special methods, super(), property/staticmethod/classmethod. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/hooks.h"
#include "object/value.h"

/* ---- attribute lookup along the class chain ------------------------------------------------ */

/* The attribute `name` defined by c or a base (owned), or VT_UNDEF. */
Val class_find(TypeObj *c, const char *name) {
  for (; c; c = c->base)
    if (!val_is_undef(c->dict)) {
      Val v = dict_get_str(c->dict, name);
      if (!val_is_undef(v)) return v;
    }
  return val_undef();
}

/* property / staticmethod / classmethod objects */
typedef struct Wrap {
  Obj hdr;
  int kind;                   /* WRAP_* */
  Val fn, fset;               /* owned; fset: property setter or VT_UNDEF */
} Wrap;
enum { WRAP_STATIC, WRAP_CLASS, WRAP_PROPERTY };
static const Type wrap_type;

/* The Python function under a @tf.function method (borrowed), else v itself. */
static Val class_unwrap_tffn(Val v) {
  Val fn = rt_obj_hooks.python_fn ? rt_obj_hooks.python_fn(v) : val_undef();
  return val_is_undef(fn) ? v : fn;
}
static const char *const wrap_names[] = {"staticmethod", "classmethod", "property"};

static Val wrap_new(int kind, Val fn, Val fset) {
  Wrap *w = obj_new(&wrap_type, sizeof(Wrap));
  w->kind = kind;
  w->fn = val_incref(fn);
  w->fset = val_incref(fset);
  return val_obj(w);
}

static Wrap *as_wrap(Val v, int kind) { return val_is(v, &wrap_type) && ((Wrap *)v.u.o)->kind == kind ? (Wrap *)v.u.o : NULL; }

/* Builtins made by class_native_method bind like functions: through an
 * instance, the instance becomes their first argument (tf.Module's methods). */
static const char native_method_tag;

Val class_native_method(const char *name, BuiltinFn fn, Val state) { return builtin_new(name, fn, state, &native_method_tag); }

static bool is_method(Val attr) {
  if (attr.tag != VT_OBJ) return false;
  const Type *t = attr.u.o->type;
  return t == &func_type || !strcmp(t->name, "Function") ||
         (t == &builtin_type && ((Builtin *)attr.u.o)->data == &native_method_tag);
}

/* A class attribute as seen through an instance (self) or the class (self undef). Consumes attr. */
static Val class_bind(Val attr, Val self, TypeObj *cls) {
  Val r;
  if (val_is(attr, &wrap_type)) {
    Wrap *w = (Wrap *)attr.u.o;
    if (w->kind == WRAP_STATIC) r = val_incref(w->fn);
    else if (w->kind == WRAP_CLASS) r = bound_new(w->fn, val_obj(cls));
    else if (val_is_undef(self)) r = val_incref(attr);
    else {
      /* a getter that raises must not keep the class's property alive */
      int mark = rt_hold_val(attr);
      r = rt_call(w->fn, 1, &self, NULL);
      rt_unhold(mark);
    }
  } else if (!val_is_undef(self) && is_method(attr)) {
    /* a method; a tf.function method binds that instance's own function object (one trace cache per instance) */
    Val per = rt_obj_hooks.method_fn && val_is(self, &inst_type) ? rt_obj_hooks.method_fn(attr, &((Inst *)self.u.o)->fncache)
                                                                 : val_undef();
    r = bound_new(val_is_undef(per) ? attr : per, self);
    val_decref(per);
  } else {
    return attr;
  }
  val_decref(attr);
  return r;
}

static Val wrap_call(Val self, int n, const Val *args, const Kw *kw);

static Val wrap_setter(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "setter() takes exactly one argument");
  return wrap_new(WRAP_PROPERTY, ((Wrap *)self.u.o)->fn, args[0]);
}

static Val wrap_getattr(Val self, const char *name) {
  Wrap *w = (Wrap *)self.u.o;
  if (w->kind == WRAP_PROPERTY && !strcmp(name, "setter")) return builtin_new("property.setter", wrap_setter, self, NULL);
  if (!strcmp(name, "__func__") || !strcmp(name, "fget")) return val_incref(w->fn);
  return val_undef();
}

static void wrap_free(Obj *o) {
  Wrap *w = (Wrap *)o;
  val_decref(w->fn);
  val_decref(w->fset);
  free(o);
}

static void wrap_repr(StrBuf *b, Val v) { sb_printf(b, "<%s object at %p>", wrap_names[((Wrap *)v.u.o)->kind], (void *)v.u.o); }

static Val wrap_call(Val self, int n, const Val *args, const Kw *kw) {
  Wrap *w = (Wrap *)self.u.o;
  if (w->kind != WRAP_STATIC) rt_throw(ERR_TYPE, "'%s' object is not callable", wrap_names[w->kind]);
  return rt_call(w->fn, n, args, kw);
}

/* The cycle collector's view (gc.c). */
static void wrap_traverse(Obj *o, GcVisit visit, void *arg) {
  visit(((Wrap *)o)->fn, true, arg);
  visit(((Wrap *)o)->fset, true, arg);
}

static const Type wrap_type = {
  .name = "property", .free = wrap_free, .traverse = wrap_traverse, .repr = wrap_repr, .getattr = wrap_getattr, .call = wrap_call,
  .hash = obj_identity_hash,
};

static Val one_arg(const char *what, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", what);
  if (n != 1) rt_throw(ERR_TYPE, "%s expected 1 argument, got %d", what, n);
  return args[0];
}

Val class_staticmethod(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return wrap_new(WRAP_STATIC, one_arg("staticmethod", n, args, kw), val_undef());
}

Val class_classmethod(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return wrap_new(WRAP_CLASS, one_arg("classmethod", n, args, kw), val_undef());
}

Val class_property(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  return wrap_new(WRAP_PROPERTY, one_arg("property", n, args, kw), val_undef());
}

/* ---- instances ---------------------------------------------------------------------------- */

const Type inst_type;

static TypeObj *inst_class(Val v) { return val_is(v, &exc_type) ? ((Exc *)v.u.o)->klass : ((Inst *)v.u.o)->klass; }

/* ---- subclasses of builtin containers: an instance extends a real dict/list/tuple/set/str
 * (Inst.base); what the class does not define acts on that value, and C code that takes
 * the builtin sees it through inst_base (seq_items, dict arguments). */
static bool class_extendable(const TypeObj *b) {
  return b && val_is_undef(b->dict) && b->errkind < 0 && b->ctor &&
         (b->type == &dict_type || b->type == &list_type || b->type == &tuple_type || b->type == &set_type ||
          b->type == &str_type || (!b->type && (b->tag == VT_INT || b->tag == VT_FLOAT)));
}

/* The builtin class c extends (dict, tuple, ...), or NULL. */
static TypeObj *class_builtin_base(TypeObj *c) {
  for (; c; c = c->base)
    if (class_extendable(c)) return c;
  return NULL;
}

static bool builtin_mutable(const TypeObj *b) { return b->type && b->type != &tuple_type && b->type != &str_type; }

Val inst_base(Val v) {
  return val_is(v, &inst_type) && !val_is_undef(((Inst *)v.u.o)->base) ? ((Inst *)v.u.o)->base : v;
}

static Val inst_base_of(Val v) { return val_is(v, &inst_type) ? ((Inst *)v.u.o)->base : val_undef(); }

/* The special methods a builtin value answers through its slots, as callables (B.__getitem__(self, k), super().__setitem__). */
static const char *const base_dunders[] = {
  "__getitem__", "__setitem__", "__delitem__", "__contains__", "__len__", "__iter__", "__repr__", "__str__", "__hash__",
  "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__add__", "__mul__", "__or__", "__and__", "__sub__", "__xor__",
};
enum { BD_GETITEM, BD_SETITEM, BD_DELITEM, BD_CONTAINS, BD_LEN, BD_ITER, BD_REPR, BD_STR, BD_HASH, BD_CMP };
static const int bd_binops[] = {BIN_ADD, BIN_MUL, BIN_BITOR, BIN_BITAND, BIN_SUB, BIN_BITXOR};

static Val base_dunder_call(Val state, int n, const Val *args, const Kw *kw) {
  const Val *st = ((Tuple *)state.u.o)->items;
  Val base = st[0];
  int k = (int)st[1].u.i;
  static const int arity[] = {1, 2, 1, 1, 0, 0, 0, 0, 0};
  int want = k < BD_CMP ? arity[k] : 1;
  if ((kw && kw->n) || n != want)
    rt_throw(ERR_TYPE, "expected %d argument%s, got %d", want, want == 1 ? "" : "s", n);
  switch (k) {
  case BD_GETITEM: return rt_getitem(base, args[0]);
  case BD_SETITEM: rt_setitem(base, args[0], args[1]); return val_none();
  case BD_DELITEM: rt_delitem(base, args[0]); return val_none();
  case BD_CONTAINS: return val_bool(contains(base, args[0]));
  case BD_LEN:
    if (base.tag != VT_OBJ || !base.u.o->type->len) rt_throw(ERR_TYPE, "object of type '%s' has no len()", val_type_name(base));
    return val_int(base.u.o->type->len(base));
  case BD_ITER: return rt_iter(base);
  case BD_REPR: return repr_of(base);
  case BD_STR: return str_of(base);
  case BD_HASH:
    if (base.tag == VT_OBJ && !base.u.o->type->hash) rt_throw(ERR_TYPE, "unhashable type: '%s'", val_type_name(base));
    return val_int(val_pyhash(base));
  default: break;
  }
  if (k < BD_CMP + 6) return rt_compare(CMP_LT + (k - BD_CMP), base, inst_base(args[0]));
  Val r = rt_binop(bd_binops[k - BD_CMP - 6], base, inst_base(args[0]));
  return r;
}

/* Attribute `name` of builtin value base, bound to it (owned), or VT_UNDEF. */
static Val class_base_attr(Val base, const char *name) {
  for (size_t i = 0; i < sizeof base_dunders / sizeof *base_dunders; i++)
    if (!strcmp(name, base_dunders[i])) {
      Val st = tuple_pack(2, base, val_int((int64_t)i));
      Val f = builtin_new(base_dunders[i], base_dunder_call, st, NULL);
      val_decref(st);
      return f;
    }
  if (base.tag != VT_OBJ) return num_getattr(base, name);   /* an int or float subclass: (x).real, .is_integer() */
  return base.u.o->type->getattr ? base.u.o->type->getattr(base, name) : val_undef();
}

/* B.__new__(cls, *args): a new cls (a subclass of B) extending B(*args); object.__new__(cls) for plain classes. */
static Val class_builtin_new(Val state, int n, const Val *args, const Kw *kw) {
  TypeObj *b = (TypeObj *)state.u.o;
  if (n < 1) rt_throw(ERR_TYPE, "%s.__new__(): not enough arguments", b->name);
  if (!val_is(args[0], &type_type))
    rt_throw(ERR_TYPE, "%s.__new__(X): X is not a type object (%s)", b->name, val_type_name(args[0]));
  TypeObj *c = (TypeObj *)args[0].u.o;
  if (c == b && b->ctor) return b->ctor(args[0], n - 1, args + 1, kw);
  TypeObj *cb = class_builtin_base(c);
  if (val_is_undef(c->dict) || c->errkind >= 0 || cb != (b->tag == -1 ? NULL : b))
    rt_throw(ERR_TYPE, "%s.__new__(%s): %s is not a subtype of %s", b->name, c->name, c->name, b->name);
  Val self = inst_new(c);
  if (!cb) return self;
  int mark = rt_hold_val(self);
  bool fill = !builtin_mutable(cb);
  ((Inst *)self.u.o)->base = cb->ctor(val_obj(cb), fill ? n - 1 : 0, args + 1, fill ? kw : NULL);
  rt_unhold(mark);
  return self;
}

/* B.name on a builtin class B that user classes extend: the method taking the instance first (dict.__setitem__(self, k, v)). */
static Val base_unbound_call(Val state, int n, const Val *args, const Kw *kw) {
  const Val *st = ((Tuple *)state.u.o)->items;
  TypeObj *b = (TypeObj *)st[0].u.o;
  const char *name = str_cstr(st[1]);
  if (n < 1) rt_throw(ERR_TYPE, "unbound method %s.%s() needs an argument", b->name, name);
  Val self = inst_base(args[0]);
  if (!val_is(self, b->type))
    rt_throw(ERR_TYPE, "descriptor '%s' for '%s' objects doesn't apply to a '%s' object", name, b->name, val_type_name(args[0]));
  Val m = class_base_attr(self, name);
  if (val_is_undef(m)) rt_throw(ERR_ATTRIBUTE, "type object '%s' has no attribute '%s'", b->name, name);
  int mark = rt_hold_val(m);
  Val r = rt_call(m, n - 1, args + 1, kw);
  rt_unhold(mark);
  val_decref(m);
  return r;
}

static Val object_setattr(Val state, int n, const Val *args, const Kw *kw);

Val class_builtin_attr(TypeObj *b, const char *name) {
  if (b->tag == -1 && (!strcmp(name, "__setattr__") || !strcmp(name, "__delattr__")))
    return builtin_new(name, object_setattr, val_int(name[2] == 'd'), NULL);
  if (!strcmp(name, "__new__") && (b->tag == -1 || class_extendable(b))) return builtin_new("__new__", class_builtin_new, val_obj(b), NULL);
  if (b->tag == VT_FLOAT && !strcmp(name, "fromhex")) return num_fromhex_builtin();   /* a class method: no self */
  if (!class_extendable(b)) return val_undef();
  Val probe = b->ctor(val_obj(b), 0, NULL, NULL);   /* only the names a B value has */
  Val m = class_base_attr(probe, name);
  val_decref(probe);
  if (val_is_undef(m)) return m;
  val_decref(m);
  Val nm = str_from_cstr(name);
  Val st = tuple_pack(2, val_obj(b), nm);
  val_decref(nm);
  Val f = builtin_new(name, base_unbound_call, st, NULL);
  val_decref(st);
  return f;
}

/* Call special method `name` of self's class with self prepended; false when the class has none. */
/* Method m (owned) called through instance self: a @tf.function method is the instance's own function object. */
static Val inst_own_fn(Val self, Val m) {
  if (!rt_obj_hooks.method_fn || !val_is(self, &inst_type)) return m;
  int mark = rt_hold_val(m);
  Val per = rt_obj_hooks.method_fn(m, &((Inst *)self.u.o)->fncache);
  rt_unhold(mark);
  if (val_is_undef(per)) return m;
  val_decref(m);
  return per;
}

static bool inst_special(Val self, const char *name, int n, const Val *args, Val *out) {
  Val m = class_find(inst_class(self), name);
  if (val_is_undef(m)) return false;
  m = inst_own_fn(self, m);
  int mark = rt_hold_val(m);
  Val all[n + 1];
  all[0] = self;
  for (int i = 0; i < n; i++) all[i + 1] = args[i];
  *out = rt_call(m, n + 1, all, NULL);
  rt_unhold(mark);
  val_decref(m);
  return true;
}

Val inst_new(TypeObj *cls) {
  Inst *o = obj_new(&inst_type, sizeof(Inst));
  o->klass = cls;
  cls->hdr.rc++;
  o->dict = val_undef();
  o->fncache = val_undef();
  o->base = val_undef();
  static tfs_u64 next_serial;
  o->serial = __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED);
  return val_obj(o);
}

static void inst_free(Obj *o) {
  Inst *x = (Inst *)o;
  val_decref(x->dict);
  val_decref(x->fncache);
  val_decref(x->base);
  val_decref(val_obj(x->klass));
  free(o);
}

static Val inst_text(Val v, const char *name) {
  Val r;
  if (!inst_special(v, name, 0, NULL, &r)) return val_undef();
  if (!val_is(r, &str_type)) {
    const char *t = val_type_name(r);
    val_decref(r);
    rt_throw(ERR_TYPE, "%s returned non-string (type %s)", name, t);
  }
  return r;
}

/* format(v, spec) through a class's __format__: false when the class has none. */
bool inst_format(StrBuf *b, Val v, const char *spec, size_t n) {
  if (!val_is(v, &inst_type)) return false;
  Val s = str_new(spec, (tfs_i64)n), r;
  int mark = rt_hold_val(s);
  bool has = inst_special(v, "__format__", 1, &s, &r);
  rt_unhold(mark);
  val_decref(s);
  if (!has) return false;
  if (!val_is(r, &str_type)) {
    const char *t = val_type_name(r);
    val_decref(r);
    rt_throw(ERR_TYPE, "__format__ must return a str, not %s", t);
  }
  sb_putn(b, str_cstr(r), (size_t)str_len(r));
  val_decref(r);
  return true;
}

static void inst_repr(StrBuf *b, Val v) {
  Val r = inst_text(v, "__repr__");
  if (val_is_undef(r) && !val_is_undef(inst_base_of(v))) {
    val_repr(b, inst_base_of(v));
    return;
  }
  if (val_is_undef(r)) {
    TypeObj *c = inst_class(v);
    sb_printf(b, "<%s.%s object at %p>", c->module ? c->module : "__main__", c->name, (void *)v.u.o);
    return;
  }
  sb_putn(b, str_cstr(r), (size_t)str_len(r));
  val_decref(r);
}

static void inst_str(StrBuf *b, Val v) {
  Val r = inst_text(v, "__str__");
  if (val_is_undef(r) && val_is(inst_base_of(v), &str_type)) {
    val_str(b, inst_base_of(v));
    return;
  }
  if (val_is_undef(r)) {
    inst_repr(b, v);
    return;
  }
  sb_putn(b, str_cstr(r), (size_t)str_len(r));
  val_decref(r);
}

/* Instance attribute: a property of the class first, then the instance's own, then the class's (bound). */
Val inst_getattr_dict(Val self, Val dict, const char *name) {
  TypeObj *c = inst_class(self);
  if (!strcmp(name, "__class__")) return val_incref(val_obj(c));
  Val a = class_find(c, name);
  if (as_wrap(a, WRAP_PROPERTY)) return class_bind(a, self, c);
  if (!val_is_undef(dict)) {
    Val v = dict_get_str(dict, name);
    if (!val_is_undef(v)) {
      val_decref(a);
      return v;
    }
  }
  if (!val_is_undef(a)) return class_bind(a, self, c);
  Val base = inst_base_of(self);
  if (!val_is_undef(base) && val_is(self, &inst_type)) {
    Val v = class_base_attr(base, name);
    if (!val_is_undef(v)) return v;
  }
  if (!strcmp(name, "__getattr__")) return val_undef();
  Val key = str_from_cstr(name), r;
  int mark = rt_hold_val(key);
  bool has = inst_special(self, "__getattr__", 1, &key, &r);
  rt_unhold(mark);
  val_decref(key);
  return has ? r : val_undef();
}

/* Assigning an attribute: a property's setter, else the instance's own dict. */
bool inst_setattr_dict(Val self, Val *dict, const char *name, Val v) {
  TypeObj *c = inst_class(self);
  Val a = class_find(c, name);
  Wrap *w = as_wrap(a, WRAP_PROPERTY);
  if (w) {
    int mark = rt_hold_val(a);
    if (val_is_undef(w->fset)) rt_throw(ERR_ATTRIBUTE, "property '%s' of '%s' object has no setter", name, c->name);
    Val args[2] = {self, v};
    val_decref(rt_call(w->fset, 2, args, NULL));
    rt_unhold(mark);
    val_decref(a);
    return true;
  }
  val_decref(a);
  dict_set_str(dict, name, v);
  if (rt_obj_hooks.attr_set) rt_obj_hooks.attr_set(self, name, v);
  return true;
}

/* del self.name through a class's own __delattr__: true when it has one (it ran). */
bool class_delattr_check(Val self, const char *name) {
  TypeObj *c = inst_class(self);
  if (val_is(self, &inst_type)) {
    Val key = str_from_cstr(name), r;
    int mark = rt_hold_val(key);
    bool has = inst_special(self, "__delattr__", 1, &key, &r);
    rt_unhold(mark);
    val_decref(key);
    if (has) {
      val_decref(r);
      return true;
    }
  }
  Val a = class_find(c, name);
  bool prop = as_wrap(a, WRAP_PROPERTY) != NULL;
  val_decref(a);
  if (prop) rt_throw(ERR_ATTRIBUTE, "property '%s' of '%s' object has no deleter", name, c->name);
  return false;
}

static Val inst_getattr(Val self, const char *name) {
  if (!strcmp(name, "__dict__")) {
    Inst *x = (Inst *)self.u.o;
    if (val_is_undef(x->dict)) x->dict = dict_new();
    return val_incref(x->dict);
  }
  return inst_getattr_dict(self, ((Inst *)self.u.o)->dict, name);
}

/* self.name = v: the class's own __setattr__ first (a frozen dataclass refuses), else object's. */
static void inst_setattr(Val self, const char *name, Val v) {
  Val m = class_find(inst_class(self), "__setattr__");
  if (val_is_undef(m)) {
    inst_setattr_dict(self, &((Inst *)self.u.o)->dict, name, v);
    return;
  }
  val_decref(m);
  Val r, a[2] = {str_from_cstr(name), v};
  int mark = rt_hold_val(a[0]);
  inst_special(self, "__setattr__", 2, a, &r);
  rt_unhold(mark);
  val_decref(a[0]);
  val_decref(r);
}

/* object.__setattr__(self, name, v) / object.__delattr__(self, name): the default, past the class's own. */
static Val object_setattr(Val state, int n, const Val *args, const Kw *kw) {
  bool del = state.tag == VT_INT && state.u.i;
  if ((kw && kw->n) || n != (del ? 2 : 3))
    rt_throw(ERR_TYPE, "expected %d argument%s, got %d", del ? 2 : 3, "s", n);
  if (!val_is(args[1], &str_type))
    rt_throw(ERR_TYPE, "attribute name must be string, not '%s'", val_type_name(args[1]));
  Val self = args[0];
  const char *name = str_cstr(args[1]);
  if (!val_is(self, &inst_type)) {
    if (del) rt_delattr(self, name);
    else rt_setattr(self, name, args[2]);
    return val_none();
  }
  Inst *x = (Inst *)self.u.o;
  if (!del) {
    inst_setattr_dict(self, &x->dict, name, args[2]);
    return val_none();
  }
  if (!val_is_undef(x->dict) && dict_del(x->dict, args[1])) return val_none();
  rt_throw(ERR_ATTRIBUTE, "'%s' object has no attribute '%s'", x->klass->name, name);
}

static Val inst_call(Val self, int n, const Val *args, const Kw *kw) {
  Val m = class_find(inst_class(self), "__call__");
  if (val_is_undef(m)) rt_throw(ERR_TYPE, "'%s' object is not callable", val_type_name(self));
  m = inst_own_fn(self, m);
  int mark = rt_hold_val(m);
  Val all[n + 1];
  all[0] = self;
  for (int i = 0; i < n; i++) all[i + 1] = args[i];
  Val r = rt_call(m, n + 1, all, kw);
  rt_unhold(mark);
  val_decref(m);
  return r;
}

static Val inst_getitem(Val self, Val key) {
  Val r;
  if (inst_special(self, "__getitem__", 1, &key, &r)) return r;
  Val base = inst_base_of(self);
  if (val_is_undef(base)) rt_throw(ERR_TYPE, "'%s' object is not subscriptable", val_type_name(self));
  if (val_is(base, &dict_type)) {   /* dict's lookup, then the class's __missing__ */
    Val v = dict_get(base, key);
    if (!val_is_undef(v)) return v;
    if (inst_special(self, "__missing__", 1, &key, &r)) return r;
  }
  return rt_getitem(base, key);
}

static void inst_setitem(Val self, Val key, Val v) {
  Val r, a[2] = {key, v};
  if (!inst_special(self, "__setitem__", 2, a, &r)) {
    if (!val_is_undef(inst_base_of(self))) {
      rt_setitem(inst_base_of(self), key, v);
      return;
    }
    rt_throw(ERR_TYPE, "'%s' object does not support item assignment", val_type_name(self));
  }
  val_decref(r);
}

/* del obj[key] through the class's __delitem__: false when it has none. */
bool inst_delitem(Val self, Val key) {
  Val r;
  if (!val_is(self, &inst_type)) return false;
  if (!inst_special(self, "__delitem__", 1, &key, &r)) {
    if (val_is_undef(inst_base_of(self))) return false;
    rt_delitem(inst_base_of(self), key);
    return true;
  }
  val_decref(r);
  return true;
}

static tfs_i64 inst_len(Val self) {
  Val r;
  if (!inst_special(self, "__len__", 0, NULL, &r)) {
    Val base = inst_base_of(self);
    return base.tag != VT_OBJ ? -1 : base.u.o->type->len(base);   /* none, or an int/float: no len() */
  }
  if (r.tag != VT_INT) {
    const char *t = val_type_name(r);
    val_decref(r);
    rt_throw(ERR_TYPE, "'%s' object cannot be interpreted as an integer", t);
  }
  if (r.u.i < 0) rt_throw(ERR_VALUE, "__len__() should return >= 0");
  return r.u.i;
}

static Val inst_iter(Val self) {
  Val r;
  if (inst_special(self, "__iter__", 0, NULL, &r)) return r;
  if (!val_is_undef(inst_base_of(self))) return rt_iter(inst_base_of(self));
  rt_throw(ERR_TYPE, "'%s' object is not iterable", val_type_name(self));
}

/* __next__: StopIteration ends the iteration. */
static bool inst_next(Val it, Val *out) {
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val r;
    bool has = inst_special(it, "__next__", 0, NULL, &r);
    rt_try_pop(&t);
    if (!has) rt_throw(ERR_TYPE, "'%s' object is not an iterator", val_type_name(it));
    *out = r;
    return true;
  }
  Val e = val_is(t.exc, &exc_type) ? t.exc : val_undef();
  bool stop = val_is_undef(e) ? t.kind == ERR_STOPITER
                              : exc_class_sub(exc_class_of(e), exc_lookup("StopIteration", false));
  if (!stop) rt_rethrow(&t);
  rt_try_clear(&t);
  return false;
}

static const char *const bin_names[BIN__COUNT][2] = {
  {"__add__", "__radd__"}, {"__sub__", "__rsub__"}, {"__mul__", "__rmul__"}, {"__truediv__", "__rtruediv__"},
  {"__floordiv__", "__rfloordiv__"}, {"__mod__", "__rmod__"}, {"__pow__", "__rpow__"},
  {"__matmul__", "__rmatmul__"}, {"__lshift__", "__rlshift__"}, {"__rshift__", "__rrshift__"},
  {"__and__", "__rand__"}, {"__or__", "__ror__"}, {"__xor__", "__rxor__"},
};

/* A special method's result, or "not found" when it returned NotImplemented (Python then asks the other operand). */
static bool inst_special_taken(Val self, const char *name, int n, const Val *args, Val *out) {
  if (!inst_special(self, name, n, args, out)) return false;
  if (!val_is(*out, &notimpl_type)) return true;
  val_decref(*out);
  return false;
}

static Val inst_binop(int op, Val a, Val b) {
  Val r;
  if (op < 0 || op >= BIN__COUNT) return val_undef();
  if (val_is(a, &inst_type) && inst_special_taken(a, bin_names[op][0], 1, &b, &r)) return r;
  if (val_is(b, &inst_type) && inst_special_taken(b, bin_names[op][1], 1, &a, &r)) return r;
  if (!val_is_undef(inst_base_of(a)) || !val_is_undef(inst_base_of(b))) return rt_binop(op, inst_base(a), inst_base(b));
  return val_undef();
}

/* a op= b: the class's __iop__ when it has one (and does not return NotImplemented), else a op b as Python */
static Val inst_inplace(int op, Val a, Val b) {
  static const char *const names[BIN__COUNT] = {
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__",
    "__imatmul__", "__ilshift__", "__irshift__", "__iand__", "__ior__", "__ixor__",
  };
  Val r;
  if (op >= 0 && op < BIN__COUNT && inst_special_taken(a, names[op], 1, &b, &r)) return r;
  return val_undef();
}

static Val inst_unop(int op, Val a) {
  static const char *const names[] = {"__neg__", "__pos__", "__invert__"};
  Val r;
  if (op >= 0 && op < 3 && inst_special(a, names[op], 0, NULL, &r)) return r;
  Val base = inst_base_of(a);
  if (op >= 0 && op < 3 && (base.tag == VT_INT || base.tag == VT_FLOAT)) return rt_unop(op, base);   /* -C(2.5) is a float */
  return val_undef();
}

static Val inst_compare(int op, Val a, Val b) {
  static const char *const names[] = {"__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"};
  static const int swapped[] = {CMP_GT, CMP_GE, CMP_LT, CMP_LE, CMP_EQ, CMP_NE};
  if (op < CMP_LT || op > CMP_NE) return val_undef();
  Val r;
  if (val_is(a, &inst_type) && inst_special_taken(a, names[op], 1, &b, &r)) return r;
  if (val_is(b, &inst_type) && inst_special_taken(b, names[swapped[op]], 1, &a, &r)) return r;
  if (op == CMP_NE && val_is(a, &inst_type) && inst_special_taken(a, "__eq__", 1, &b, &r)) {
    bool t = rt_truthy(r);
    val_decref(r);
    return val_bool(!t);
  }
  if (!val_is_undef(inst_base_of(a)) || !val_is_undef(inst_base_of(b))) return rt_compare(op, inst_base(a), inst_base(b));
  if (op == CMP_EQ || op == CMP_NE) return val_bool((a.tag == b.tag && a.u.o == b.u.o) == (op == CMP_EQ));
  return val_undef();
}

static int inst_truthy(Val v) {
  Val r;
  if (inst_special(v, "__bool__", 0, NULL, &r)) {
    if (r.tag != VT_BOOL) {
      const char *t = val_type_name(r);
      val_decref(r);
      rt_throw(ERR_TYPE, "__bool__ should return bool, returned %s", t);
    }
    return (int)r.u.i;
  }
  Val base = inst_base_of(v);
  if (base.tag == VT_INT || base.tag == VT_FLOAT) return rt_truthy(base);   /* Count(0) is false */
  tfs_i64 n = inst_len(v);
  return n != 0;
}

static bool inst_eq(Val a, Val b) {
  Val r = inst_compare(CMP_EQ, a, b);
  int t = rt_truthy(r);
  val_decref(r);
  return t;
}

static tfs_u64 inst_hash(Val v) {
  Val r;
  if (!inst_special(v, "__hash__", 0, NULL, &r)) {
    Val base = inst_base_of(v);
    if (val_is_undef(base)) return obj_identity_hash(v);
    if (base.tag != VT_OBJ) return val_hash(base);   /* an int/float subclass hashes as its number */
    if (!base.u.o->type->hash) rt_throw(ERR_TYPE, "unhashable type: '%s'", val_type_name(v));
    return base.u.o->type->hash(base);
  }
  if (r.tag != VT_INT) {
    val_decref(r);
    rt_throw(ERR_TYPE, "__hash__ method should return an integer");
  }
  return (tfs_u64)r.u.i;
}

/* The cycle collector's view (gc.c): the class and the attributes. */
static void inst_traverse(Obj *o, GcVisit visit, void *arg) {
  Inst *x = (Inst *)o;
  if (x->klass) visit(val_obj(&x->klass->hdr), true, arg);
  visit(x->dict, true, arg);
  visit(x->fncache, true, arg);
  visit(x->base, true, arg);
}

static void inst_clear(Obj *o) {
  Inst *x = (Inst *)o;
  Val d = x->dict, fc = x->fncache, b = x->base;
  x->dict = val_undef();
  x->fncache = val_undef();
  x->base = val_undef();
  val_decref(d);
  val_decref(fc);
  val_decref(b);
}

const Type inst_type = {
  .name = "object",
  .free = inst_free, .traverse = inst_traverse, .clear = inst_clear,
  .repr = inst_repr,
  .str = inst_str,
  .getattr = inst_getattr,
  .setattr = inst_setattr,
  .call = inst_call,
  .getitem = inst_getitem,
  .setitem = inst_setitem,
  .iter = inst_iter,
  .next = inst_next,
  .len = inst_len,
  .binop = inst_binop,
  .inplace = inst_inplace,
  .unop = inst_unop,
  .compare = inst_compare,
  .truthy = inst_truthy,
  .eq = inst_eq,
  .hash = inst_hash,
};

/* __contains__ of an instance: 1/0, or -1 when the class defines none. */
int inst_contains(Val self, Val x) {
  Val r;
  if (!inst_special(self, "__contains__", 1, &x, &r)) return val_is_undef(inst_base_of(self)) ? -1 : contains(inst_base_of(self), x);
  int t = rt_truthy(r);
  val_decref(r);
  return t;
}

/* ---- class objects ---------------------------------------------------------------------------- */

/* A class's module name set at run time (`__module__ = "json.decoder"` in
 * its body, or assigned later): kept once for the program's life, as the
 * names the compiler passes are, so a class never owns or frees it. */
const char *class_module_intern(const char *name) {
  static char **names;
  static int n, cap;
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return names[i];
  if (n == cap) {
    char **g = realloc(names, sizeof *g * (size_t)(cap = cap ? cap * 2 : 8));
    if (!g) rt_throw(ERR_MEMORY, "out of memory");
    names = g;
  }
  if (!(names[n] = strdup(name))) rt_throw(ERR_MEMORY, "out of memory");
  return names[n++];
}

/* A second base tfs takes: a builtin exception class beside an exception class (class
 * AxisError(ValueError, IndexError), as numpy's), which adds no attributes, only subclass relations. */
static TypeObj *class_second_base(int nbases, const Val *bases) {
  if (nbases == 1) return NULL;
  if (nbases == 2 && val_is(bases[0], &type_type) && val_is(bases[1], &type_type)) {
    TypeObj *a = (TypeObj *)bases[0].u.o, *b = (TypeObj *)bases[1].u.o;
    if (a->errkind >= 0 && b->errkind >= 0 && val_is_undef(b->dict) && !a->base2 && !b->base2) return b;
  }
  rt_throw(ERR_TYPE, "multiple inheritance is not supported (tfs: only a second builtin exception base)");
}

/* The class statement: name, at most one base (two for exceptions), the body's namespace. */
Val rt_class_new(const char *name, int nbases, const Val *bases, Val ns, const char *module) {
  TypeObj *base2 = nbases > 1 ? class_second_base(nbases, bases) : NULL;
  TypeObj *base = NULL;
  if (nbases >= 1) {
    if (!val_is(bases[0], &type_type)) rt_throw(ERR_TYPE, "bases must be types");
    base = (TypeObj *)bases[0].u.o;
    if (base->tag == -1) base = NULL;   /* object */
    else if (val_is_undef(base->dict) && base->errkind < 0 && !base->user_ok && !class_extendable(base))
      rt_throw(ERR_TYPE, "type '%s' is not an acceptable base type", base->name);
  }
  TypeObj *c = obj_new(&type_type, sizeof(TypeObj));
  memset((char *)c + sizeof(Obj), 0, sizeof(TypeObj) - sizeof(Obj));
  c->name = strdup(name);
  c->module = module;
  Val modname = dict_get_str(ns, "__module__");   /* the body names its module, as CPython's classes may */
  if (val_is(modname, &str_type)) c->module = class_module_intern(str_cstr(modname));
  val_decref(modname);
  c->type = base && base->errkind >= 0 ? &exc_type : &inst_type;
  if (base && base->type && base->user_ok) c->type = base->type;
  c->tag = VT_OBJ;
  c->ctor = NULL;
  c->errkind = base ? base->errkind : -1;
  c->base = base;
  c->base2 = base2 ? base2 : base ? base->base2 : NULL;   /* subclasses inherit the second base */
  if (base) base->hdr.rc++;
  c->user_ok = base ? base->user_ok : false;
  c->dict = val_incref(ns);
  if (!c->name) rt_throw(ERR_MEMORY, "out of memory");
  /* methods remember their class for super() (borrowed: the class owns them) */
  Dict *d = (Dict *)ns.u.o;
  for (tfs_i64 i = 0; i < d->len; i++) {
    Val v = d->vals[i];
    if (val_is(v, &wrap_type)) v = ((Wrap *)v.u.o)->fn;
    v = class_unwrap_tffn(v);   /* a @tf.function method */
    if (val_is(v, &func_type)) ((Func *)v.u.o)->owner = c;
  }
  return val_obj(c);
}

void class_free(TypeObj *c) {
  if (!val_is_undef(c->dict)) {
    Dict *d = (Dict *)c->dict.u.o;
    for (tfs_i64 i = 0; i < d->len; i++) {
      Val v = d->vals[i];
      if (val_is(v, &wrap_type)) v = ((Wrap *)v.u.o)->fn;
      v = class_unwrap_tffn(v);
      if (val_is(v, &func_type) && ((Func *)v.u.o)->owner == c) ((Func *)v.u.o)->owner = NULL;
    }
  }
  val_decref(c->dict);
  if (c->base) val_decref(val_obj(c->base));
  free((char *)c->name);
}

/* Calling a user class: a new instance, then __init__ with the arguments. */
Val class_instantiate(TypeObj *c, int n, const Val *args, const Kw *kw) {
  Val self;
  Val init = class_find(c, "__init__");
  Val nf = c->errkind >= 0 ? val_undef() : class_find(c, "__new__");
  if (c->errkind >= 0) {
    self = exc_construct(val_obj(c), val_is_undef(init) ? n : 0, args, val_is_undef(init) ? kw : NULL);
  } else if (!val_is_undef(nf)) {
    /* a class's own __new__ (a static method taking the class first); __init__ runs on what it returns, if a c */
    int m = rt_hold_val(nf);
    if (!val_is_undef(init)) rt_hold_val(init);
    Val all[n + 1];
    all[0] = val_obj(c);
    for (int i = 0; i < n; i++) all[i + 1] = args[i];
    self = rt_call(nf, n + 1, all, kw);
    rt_unhold(m);
    val_decref(nf);
    if (!val_is(self, &inst_type) || !exc_class_sub(val_obj(((Inst *)self.u.o)->klass), val_obj(c))) {
      val_decref(init);
      return self;
    }
  } else if (class_builtin_base(c)) {
    TypeObj *b = class_builtin_base(c);
    bool fill = !builtin_mutable(b) || val_is_undef(init);   /* dict/list/set: __init__ fills them */
    self = inst_new(c);
    int m = rt_hold_val(self);
    ((Inst *)self.u.o)->base = b->ctor(val_obj(b), fill ? n : 0, args, fill ? kw : NULL);
    rt_unhold(m);
  } else if (c->ctor) {
    self = c->ctor(val_obj(c), n, args, kw);
  } else {
    self = inst_new(c);
    if (val_is_undef(init) && (n || (kw && kw->n))) {
      val_decref(self);
      rt_throw(ERR_TYPE, "%s() takes no arguments", c->name);
    }
  }
  if (val_is_undef(init)) return self;
  int mark = rt_hold_val(self);
  rt_hold_val(init);
  Val all[n + 1];
  all[0] = self;
  for (int i = 0; i < n; i++) all[i + 1] = args[i];
  Val r = rt_call(init, n + 1, all, kw);
  if (r.tag != VT_NONE) {
    const char *t = val_type_name(r);
    val_decref(r);
    rt_throw(ERR_TYPE, "__init__() should return None, not '%s'", t);
  }
  rt_unhold(mark);
  val_decref(init);
  return self;
}

Val class_getattr(TypeObj *c, const char *name) {
  Val a = class_find(c, name);
  if (val_is_undef(a)) return a;
  return class_bind(a, val_undef(), c);
}

/* ---- super() ------------------------------------------------------------------------------------- */

typedef struct Super { Obj hdr; TypeObj *start; Val self; } Super;   /* start: borrowed via self's class */
static const Type super_type;

/* Builtin __init__ reached through super(): Exception's sets args; object's takes nothing. */
static Val super_init(Val self, int n, const Val *args, const Kw *kw) {
  if (val_is(self, &exc_type)) {
    exc_set_args(self, n, args);
    return val_none();
  }
  Val base = inst_base_of(self);
  if (!val_is_undef(base)) {   /* dict.__init__ updates; list/set.__init__ refill; tuple/str take their value in __new__ */
    TypeObj *b = class_builtin_base(inst_class(self));
    if (!builtin_mutable(b)) return val_none();
    Val fresh = b->ctor(val_obj(b), n, args, kw);
    Inst *x = (Inst *)self.u.o;
    if (val_is(base, &dict_type)) {
      int mark = rt_hold_val(fresh);
      Val up = rt_getattr(base, "update");
      rt_hold_val(up);
      val_decref(rt_call(up, 1, &fresh, NULL));
      rt_unhold(mark);
      val_decref(up);
      val_decref(fresh);
    } else {
      x->base = fresh;
      val_decref(base);
    }
    return val_none();
  }
  (void)args;
  if (n || (kw && kw->n)) rt_throw(ERR_TYPE, "object.__init__() takes exactly one argument (the instance to initialize)");
  return val_none();
}

static Val super_getattr(Val self, const char *name) {
  Super *s = (Super *)self.u.o;
  Val a = class_find(s->start, name);
  /* super() in a classmethod: self is the class (maybe a subclass): a classmethod binds to it, a function stays unbound */
  if (!val_is_undef(a) && val_is(s->self, &type_type)) return class_bind(a, val_undef(), (TypeObj *)s->self.u.o);
  if (!val_is_undef(a)) return class_bind(a, s->self, inst_class(s->self));
  if (!strcmp(name, "__init__")) return builtin_new("__init__", super_init, s->self, NULL);
  if (!strcmp(name, "__new__")) {
    TypeObj *b = class_builtin_base(s->start);
    return class_builtin_attr(b ? b : (TypeObj *)types_lookup("object").u.o, "__new__");
  }
  if (!strcmp(name, "__setattr__") || !strcmp(name, "__delattr__")) {   /* object's, bound to self */
    Val f = class_builtin_attr((TypeObj *)types_lookup("object").u.o, name);
    Val b = bound_new(f, s->self);
    val_decref(f);
    return b;
  }
  if (!val_is_undef(inst_base_of(s->self))) return class_base_attr(inst_base_of(s->self), name);
  if (val_is(s->self, &type_type)) return val_undef();   /* a class is no instance of a builtin base */
  for (TypeObj *c = s->start; c; c = c->base)
    if (c->type && c->type->getattr && val_is_undef(c->dict)) {
      Val v = c->type->getattr(s->self, name);
      if (!val_is_undef(v)) return v;
      break;
    }
  return val_undef();
}

static void super_free(Obj *o) {
  val_decref(((Super *)o)->self);
  free(o);
}

static void super_repr(StrBuf *b, Val v) {
  Super *s = (Super *)v.u.o;
  sb_printf(b, "<super: <class '%s'>, <%s object>>", s->start ? s->start->name : "object", val_type_name(s->self));
}

static const Type super_type = {.name = "super", .free = super_free, .repr = super_repr, .getattr = super_getattr};

static Val super_new(TypeObj *cls, Val self) {
  Super *s = obj_new(&super_type, sizeof(Super));
  s->start = cls->base;
  s->self = val_incref(self);
  return val_obj(s);
}

/* super() in a method: its class (recorded when the class was made) and first argument. */
Val rt_super(struct Func *f, Val self) {
  TypeObj *c = f ? (TypeObj *)f->owner : NULL;
  if (!c) rt_throw(ERR_RUNTIME, "super(): __class__ cell not found");
  return super_new(c, self);
}

Val class_super(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (kw && kw->n) rt_throw(ERR_TYPE, "super() takes no keyword arguments");
  if (n != 2) rt_throw(ERR_RUNTIME, "super(): no arguments");
  if (!val_is(args[0], &type_type)) rt_throw(ERR_TYPE, "super() argument 1 must be a type, not %s", val_type_name(args[0]));
  return super_new((TypeObj *)args[0].u.o, args[1]);
}
