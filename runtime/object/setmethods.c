/* setmethods.c — methods of set: add remove discard pop clear copy, the algebra (union ...) and the inclusion tests. */
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* CPython's METH_NOARGS / METH_O / METH_VARARGS checks and texts (set.add, frozenset.union). */
#define sm_args(what, n, kw, want) sm_args_of(self, what, n, kw, want)
static void sm_args_of(Val self, const char *what, int n, const Kw *kw, int want) {
  const char *t = val_is(self, &frozenset_type) ? "frozenset" : "set";
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s.%s() takes no keyword arguments", t, what);
  if (want == 0 && n) rt_throw(ERR_TYPE, "%s.%s() takes no arguments (%d given)", t, what, n);
  if (want == 1 && n != 1) rt_throw(ERR_TYPE, "%s.%s() takes exactly one argument (%d given)", t, what, n);
}

/* A set made from any iterable argument (borrowed when it is one). */
static Val sm_as_set(Val x) {
  return val_is(x, &set_type) || val_is(x, &frozenset_type) ? val_incref(x) : set_from_iterable(x);
}

static Val sm_add(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("add", n, kw, 1);
  set_add(self, args[0]);
  return val_none();
}

static Val sm_remove(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("remove", n, kw, 1);
  if (!set_discard(self, args[0])) exc_key_error(args[0]);
  return val_none();
}

static Val sm_discard(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("discard", n, kw, 1);
  set_discard(self, args[0]);
  return val_none();
}

static Val sm_pop(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("pop", n, kw, 0);
  return set_pop(self);
}

static Val sm_clear(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("clear", n, kw, 0);
  set_clear(self);
  return val_none();
}

static Val sm_copy(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("copy", n, kw, 0);
  if (val_is(self, &frozenset_type)) return val_incref(self);   /* immutable: its own copy */
  return set_copy(self);
}

static Val sm_update(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("update", n, kw, -1);
  for (int i = 0; i < n; i++) set_update(self, args[i]);
  return val_none();
}

static Val sm_union(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("union", n, kw, -1);
  Val r = set_copy(self);
  int mark = rt_hold_val(r);
  for (int i = 0; i < n; i++) set_update(r, args[i]);   /* a frozenset result is filled before anyone sees it */
  rt_unhold(mark);
  return r;
}

/* Several arguments as CPython takes them: a new intersection per argument;
 * one difference, then the others removed in place. */
static Val sm_intersection(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("intersection", n, kw, -1);
  if (n == 0) return set_copy(self);   /* a new set, a frozenset's too */
  Val r = set_intersection(self, args[0]);
  for (int i = 1; i < n; i++) {
    int mark = rt_hold_val(r);
    Val r2 = set_intersection(r, args[i]);
    rt_unhold(mark);
    val_decref(r);
    r = r2;
  }
  return r;
}

static Val sm_difference(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("difference", n, kw, -1);
  if (n == 0) return set_copy(self);   /* a new set, a frozenset's too */
  Val r = set_difference(self, args[0]);
  int mark = rt_hold_val(r);
  for (int i = 1; i < n; i++) set_difference_update(r, args[i]);
  rt_unhold(mark);
  return r;
}

static Val sm_intersection_update(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("intersection_update", n, kw, -1);
  for (int i = 0; i < n; i++) set_intersection_update(self, args[i]);
  return val_none();
}

static Val sm_difference_update(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("difference_update", n, kw, -1);
  for (int i = 0; i < n; i++) set_difference_update(self, args[i]);
  return val_none();
}

static Val sm_symmetric_difference(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("symmetric_difference", n, kw, 1);
  return set_symmetric_difference(self, args[0]);
}

static Val sm_symmetric_difference_update(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("symmetric_difference_update", n, kw, 1);
  set_symmetric_update(self, args[0]);
  return val_none();
}

/* self <= other (sub) or other <= self, with other any iterable. */
static Val sm_inclusion(Val self, int n, const Val *args, const Kw *kw, const char *what, bool sub) {
  sm_args(what, n, kw, 1);
  Val o = sm_as_set(args[0]);
  bool r = sub ? set_issubset(self, o) : set_issubset(o, self);
  val_decref(o);
  return val_bool(r);
}

static Val sm_issubset(Val self, int n, const Val *args, const Kw *kw) {
  return sm_inclusion(self, n, args, kw, "issubset", true);
}

static Val sm_issuperset(Val self, int n, const Val *args, const Kw *kw) {
  return sm_inclusion(self, n, args, kw, "issuperset", false);
}

static Val sm_isdisjoint(Val self, int n, const Val *args, const Kw *kw) {
  sm_args("isdisjoint", n, kw, 1);
  Val r = set_intersection(self, args[0]);
  bool empty = ((Set *)r.u.o)->used == 0;
  val_decref(r);
  return val_bool(empty);
}

typedef struct SmEntry { const char *name; BuiltinFn fn; } SmEntry;
static const SmEntry sm_table[] = {
  {"set.add", sm_add}, {"set.clear", sm_clear}, {"set.copy", sm_copy}, {"set.difference", sm_difference},
  {"set.difference_update", sm_difference_update}, {"set.discard", sm_discard},
  {"set.intersection", sm_intersection}, {"set.intersection_update", sm_intersection_update},
  {"set.isdisjoint", sm_isdisjoint}, {"set.issubset", sm_issubset}, {"set.issuperset", sm_issuperset},
  {"set.pop", sm_pop}, {"set.remove", sm_remove}, {"set.symmetric_difference", sm_symmetric_difference},
  {"set.symmetric_difference_update", sm_symmetric_difference_update}, {"set.union", sm_union},
  {"set.update", sm_update},
};

/* A frozenset has the methods that make new sets or answer questions. */
static const SmEntry fm_table[] = {
  {"frozenset.copy", sm_copy}, {"frozenset.difference", sm_difference}, {"frozenset.intersection", sm_intersection},
  {"frozenset.isdisjoint", sm_isdisjoint}, {"frozenset.issubset", sm_issubset}, {"frozenset.issuperset", sm_issuperset},
  {"frozenset.symmetric_difference", sm_symmetric_difference}, {"frozenset.union", sm_union},
};

Val setmethods_get(Val self, const char *name) {
  bool frozen = val_is(self, &frozenset_type);
  const SmEntry *t = frozen ? fm_table : sm_table;
  size_t n = frozen ? sizeof fm_table / sizeof *fm_table : sizeof sm_table / sizeof *sm_table, skip = frozen ? 10 : 4;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(t[i].name + skip, name)) return builtin_new(t[i].name, t[i].fn, self, NULL);
  return val_undef();
}
