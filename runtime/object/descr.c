/* descr.c — a builtin type's methods and data attributes reached through the type object: bytes.decode(b), range.start. */
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* CPython's three descriptor types here: methods (callable with the instance
 * first), members (range.start: a slot) and getsets (int.real: computed). */
typedef struct Descr {
  Obj hdr;
  TypeObj *owner;   /* immortal builtin type object: no reference */
  Val name;         /* str */
} Descr;

static void descr_free(Obj *o) {
  val_decref(((Descr *)o)->name);
  free(o);
}

static void method_repr(StrBuf *b, Val v) {
  Descr *d = (Descr *)v.u.o;
  sb_printf(b, "<method '%s' of '%s' objects>", str_cstr(d->name), d->owner->name);
}

static void member_repr(StrBuf *b, Val v) {
  Descr *d = (Descr *)v.u.o;
  sb_printf(b, "<member '%s' of '%s' objects>", str_cstr(d->name), d->owner->name);
}

static void getset_repr(StrBuf *b, Val v) {
  Descr *d = (Descr *)v.u.o;
  sb_printf(b, "<attribute '%s' of '%s' objects>", str_cstr(d->name), d->owner->name);
}

/* Whether x (or the builtin value a user subclass instance extends) is an owner instance: int's take bools. */
static bool descr_applies(const TypeObj *t, Val x) {
  if (t->type) return val_is(x, t->type);
  if (t->tag == VT_INT) return x.tag == VT_INT || x.tag == VT_BOOL;
  return x.tag == (unsigned)t->tag;
}

static Val attr_of(Val self, const char *name) {
  if (self.tag != VT_OBJ) return num_getattr(self, name);
  return self.u.o->type->getattr ? self.u.o->type->getattr(self, name) : val_undef();
}

/* T.m(x, *args): x.m(*args), with CPython's checks and texts. */
static Val method_call(Val self, int n, const Val *args, const Kw *kw) {
  Descr *d = (Descr *)self.u.o;
  const char *name = str_cstr(d->name), *owner = d->owner->name;
  if (n < 1) rt_throw(ERR_TYPE, "unbound method %s.%s() needs an argument", owner, name);
  Val x = inst_base(args[0]);
  if (!descr_applies(d->owner, x))
    rt_throw(ERR_TYPE, "descriptor '%s' for '%s' objects doesn't apply to a '%s' object", name, owner, val_type_name(args[0]));
  Val m = attr_of(x, name);
  if (val_is_undef(m)) rt_throw(ERR_ATTRIBUTE, "type object '%s' has no attribute '%s'", owner, name);
  int mark = rt_hold_val(m);
  Val r = rt_call(m, n - 1, args + 1, kw);
  rt_unhold(mark);
  val_decref(m);
  return r;
}

static const Type method_descr_type = {
  .name = "method_descriptor", .free = descr_free, .repr = method_repr, .call = method_call, .hash = obj_identity_hash,
};
static const Type member_descr_type = {
  .name = "member_descriptor", .free = descr_free, .repr = member_repr, .hash = obj_identity_hash,
};
static const Type getset_descr_type = {
  .name = "getset_descriptor", .free = descr_free, .repr = getset_repr, .hash = obj_identity_hash,
};

/* A value to ask for the names the type's values have. */
static Val probe_of(TypeObj *t) {
  Val zero = val_int(0), none = val_none();
  if (t->type == &range_type) return t->ctor(val_obj(t), 1, &zero, NULL);
  if (t->type == &slice_type) return t->ctor(val_obj(t), 1, &none, NULL);
  if (t->type == &memoryview_type) {
    Val b = bytes_new("", 0), v = t->ctor(val_obj(t), 1, &b, NULL);
    val_decref(b);
    return v;
  }
  return t->ctor(val_obj(t), 0, NULL, NULL);
}

/* The builtin types whose methods the type object hands out here. */
static bool descr_owner(const TypeObj *t) {
  if (!val_is_undef(t->dict) || t->errkind >= 0 || !t->ctor) return false;
  if (!t->type) return t->tag == VT_INT || t->tag == VT_BOOL || t->tag == VT_FLOAT;
  const Type *ty = t->type;
  return ty == &str_type || ty == &list_type || ty == &tuple_type || ty == &dict_type || ty == &set_type || ty == &frozenset_type ||
         ty == &bytes_type || ty == &bytearray_type || ty == &complex_type || ty == &range_type || ty == &slice_type ||
         ty == &memoryview_type;
}

Val descr_get(TypeObj *t, const char *name) {
  if (name[0] == '_' || !descr_owner(t)) return val_undef();
  static const char *const classmethods[] = {"fromhex", "maketrans", "fromkeys", "from_bytes"};   /* ty_getattr's */
  for (size_t i = 0; i < sizeof classmethods / sizeof *classmethods; i++)
    if (!strcmp(name, classmethods[i])) return val_undef();
  if (t->tag == VT_BOOL) t = (TypeObj *)types_lookup("int").u.o;   /* bool's methods are int's */
  Val probe = probe_of(t);
  Val m = attr_of(probe, name);
  val_decref(probe);
  if (val_is_undef(m)) return m;
  bool callable = m.tag == VT_OBJ && m.u.o->type->call;
  val_decref(m);
  /* range, slice and complex keep their data in slots (members); int and float compute it (getsets) */
  const Type *kind = callable ? &method_descr_type
                     : t->type == &range_type || t->type == &slice_type || t->type == &complex_type ? &member_descr_type
                                                                                                     : &getset_descr_type;
  Descr *d = obj_new(kind, sizeof(Descr));
  d->owner = t;
  d->name = str_from_cstr(name);
  return val_obj(d);
}
