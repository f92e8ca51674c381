/* dictmethods.c — methods of dict: keys values items get pop popitem setdefault update clear copy fromkeys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

static void dm_range(const char *what, int n, const Kw *kw, int lo, int hi) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", what);
  if (n < lo) rt_throw(ERR_TYPE, "%s expected at least %d argument%s, got %d", what, lo, lo == 1 ? "" : "s", n);
  if (n > hi) {
    if (hi == 0) rt_throw(ERR_TYPE, "dict.%s() takes no arguments (%d given)", what, n);
    rt_throw(ERR_TYPE, "%s expected at most %d argument%s, got %d", what, hi, hi == 1 ? "" : "s", n);
  }
}


static Val dm_keys(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("keys", n, kw, 0, 0);
  return dict_view_new(self, 0);
}

static Val dm_values(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("values", n, kw, 0, 0);
  return dict_view_new(self, 1);
}

static Val dm_items(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("items", n, kw, 0, 0);
  return dict_view_new(self, 2);
}

static Val dm_get(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("get", n, kw, 1, 2);
  Val v = dict_get(self, args[0]);
  if (!val_is_undef(v)) return v;
  return n == 2 ? val_incref(args[1]) : val_none();
}

static Val dm_pop(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("pop", n, kw, 1, 2);
  Val v = dict_get(self, args[0]);
  if (val_is_undef(v)) {
    if (n == 2) return val_incref(args[1]);
    exc_key_error(args[0]);
  }
  dict_del(self, args[0]);
  return v;
}

static Val dm_popitem(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("popitem", n, kw, 0, 0);
  Dict *d = (Dict *)self.u.o;
  for (tfs_i64 i = d->used - 1; i >= 0; i--) {
    if (val_is_undef(d->keys[i])) continue;
    Val t = tuple_pack(2, d->keys[i], d->vals[i]);
    dict_del(self, d->keys[i]);
    return t;
  }
  rt_throw(ERR_KEY, "'popitem(): dictionary is empty'");
}

static Val dm_setdefault(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("setdefault", n, kw, 1, 2);
  Val v = dict_get(self, args[0]);
  if (!val_is_undef(v)) return v;
  Val dflt = n == 2 ? args[1] : val_none();
  dict_set(self, args[0], dflt);
  return val_incref(dflt);
}

static Val dm_update(Val self, int n, const Val *args, const Kw *kw) {
  if (n > 1) rt_throw(ERR_TYPE, "update expected at most 1 argument, got %d", n);
  if (n) types_dict_merge(self, args[0]);
  for (int i = 0; kw && i < kw->n; i++) {
    Val k = str_from_cstr(kw->names[i]);
    dict_set(self, k, kw->vals[i]);
    val_decref(k);
  }
  return val_none();
}

static Val dm_clear(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("clear", n, kw, 0, 0);
  Dict *d = (Dict *)self.u.o;
  Val *keys = d->keys, *vals = d->vals;
  tfs_i64 used = d->used;
  free(d->index);
  d->keys = d->vals = NULL;
  d->index = NULL;
  d->len = d->cap = d->used = d->index_cap = 0;
  for (tfs_i64 i = 0; i < used; i++) {
    val_decref(keys[i]);
    val_decref(vals[i]);
  }
  free(keys);
  free(vals);
  return val_none();
}

static Val dm_copy(Val self, int n, const Val *args, const Kw *kw) {
  dm_range("copy", n, kw, 0, 0);
  Val d = dict_new();
  types_dict_merge(d, self);
  return d;
}

/* dict.fromkeys(iterable, value=None): a class method; every key maps to the one value. */
static Val dm_fromkeys(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "dict.fromkeys() takes no keyword arguments");
  dm_range("fromkeys", n, NULL, 1, 2);
  Val keys = list_from_iterable(args[0]);
  int mark = rt_hold_val(keys);
  Val d = dict_new();
  rt_hold_val(d);
  for (tfs_i64 i = 0; i < ((List *)keys.u.o)->len; i++) dict_set(d, ((List *)keys.u.o)->items[i], n == 2 ? args[1] : val_none());
  rt_unhold(mark);
  val_decref(keys);
  return d;
}

Val dict_fromkeys_fn(void) { return builtin_new("dict.fromkeys", dm_fromkeys, val_undef(), NULL); }

typedef struct DmEntry { const char *name; BuiltinFn fn; } DmEntry;
static const DmEntry dm_table[] = {
  {"dict.clear", dm_clear}, {"dict.copy", dm_copy},       {"dict.fromkeys", dm_fromkeys}, {"dict.get", dm_get},
  {"dict.items", dm_items}, {"dict.keys", dm_keys},       {"dict.pop", dm_pop},
  {"dict.popitem", dm_popitem}, {"dict.setdefault", dm_setdefault}, {"dict.update", dm_update},
  {"dict.values", dm_values},
};

Val dictmethods_get(Val self, const char *name) {
  for (size_t i = 0; i < sizeof dm_table / sizeof dm_table[0]; i++)
    if (!strcmp(dm_table[i].name + 5, name)) return builtin_new(dm_table[i].name, dm_table[i].fn, self, NULL);
  return val_undef();
}
