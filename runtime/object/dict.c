/* dict.c — the insertion-ordered dict (dense entries + open-addressing index) and its keys/values/items views. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* Slot of key in the index, or of the empty slot where it would go. */
static tfs_i64 dict_probe(Dict *d, Val key, tfs_u64 h, bool *found) {
  tfs_u64 mask = (tfs_u64)d->index_cap - 1;
  for (tfs_u64 i = h & mask;; i = (i + 1) & mask) {
    tfs_i64 e = d->index[i];
    if (e < 0) {
      *found = false;
      return (tfs_i64)i;
    }
    if (!val_is_undef(d->keys[e]) && val_eq(d->keys[e], key)) {
      *found = true;
      return (tfs_i64)i;
    }
  }
}

/* Rebuild: compact the entries (dropping deleted ones) and size the index for them. */
static void dict_rebuild(Dict *d, tfs_i64 want) {
  tfs_i64 w = 0;
  for (tfs_i64 i = 0; i < d->used; i++) {
    if (val_is_undef(d->keys[i])) continue;
    d->keys[w] = d->keys[i];
    d->vals[w] = d->vals[i];
    w++;
  }
  d->used = w;
  tfs_i64 cap = d->cap < 8 ? 8 : d->cap;
  while (cap < want) cap *= 2;
  if (cap != d->cap) {
    Val *k = realloc(d->keys, sizeof(Val) * (size_t)cap), *v = k ? realloc(d->vals, sizeof(Val) * (size_t)cap) : NULL;
    if (k) d->keys = k;
    if (!k || !v) rt_throw(ERR_MEMORY, "out of memory");
    d->vals = v;
    d->cap = cap;
  }
  tfs_i64 icap = 8;
  while (icap < cap * 3 / 2 + 1) icap *= 2;
  free(d->index);
  d->index = malloc(sizeof(tfs_i64) * (size_t)icap);
  if (!d->index) rt_throw(ERR_MEMORY, "out of memory");
  memset(d->index, 0xff, sizeof(tfs_i64) * (size_t)icap);   /* all -1 */
  d->index_cap = icap;
  for (tfs_i64 e = 0; e < d->used; e++) {
    bool found;
    tfs_i64 slot = dict_probe(d, d->keys[e], val_hash(d->keys[e]), &found);
    d->index[slot] = e;
  }
}

Val dict_new(void) {
  Dict *d = obj_new(&dict_type, sizeof(Dict));
  d->len = d->cap = d->used = d->index_cap = 0;
  d->keys = d->vals = NULL;
  d->index = NULL;
  return val_obj(d);
}

Val dict_get(Val dv, Val key) {
  Dict *d = (Dict *)dv.u.o;
  tfs_u64 h = val_hash(key);   /* raises for unhashable keys even when empty */
  if (!d->index_cap) return val_undef();
  bool found;
  tfs_i64 slot = dict_probe(d, key, h, &found);
  return found ? val_incref(d->vals[d->index[slot]]) : val_undef();
}

void dict_set(Val dv, Val key, Val v) {
  Dict *d = (Dict *)dv.u.o;
  tfs_u64 h = val_hash(key);
  if (d->used + 1 > d->cap) dict_rebuild(d, (d->len + 1) * 2);
  bool found;
  tfs_i64 slot = dict_probe(d, key, h, &found);
  if (found) {
    tfs_i64 e = d->index[slot];
    Val old = d->vals[e];
    d->vals[e] = val_incref(v);
    val_decref(old);
    return;
  }
  tfs_i64 e = d->used++;
  d->keys[e] = val_incref(key);
  d->vals[e] = val_incref(v);
  d->index[slot] = e;
  d->len++;
}

bool dict_del(Val dv, Val key) {
  Dict *d = (Dict *)dv.u.o;
  tfs_u64 h = val_hash(key);
  if (!d->index_cap) return false;
  bool found;
  tfs_i64 slot = dict_probe(d, key, h, &found);
  if (!found) return false;
  tfs_i64 e = d->index[slot];
  Val k = d->keys[e], v = d->vals[e];
  d->keys[e] = val_undef();   /* the index slot keeps pointing here: a tombstone for probing */
  d->vals[e] = val_undef();
  d->len--;
  val_decref(k);
  val_decref(v);
  return true;
}


void dict_delitem(Val d, Val key) {
  if (!dict_del(d, key)) exc_key_error(key);
}

Val dict_keys_list(Val dv) {
  Dict *d = (Dict *)dv.u.o;
  Val l = list_new(d->len);
  for (tfs_i64 i = 0; i < d->used; i++)
    if (!val_is_undef(d->keys[i])) list_append(l, d->keys[i]);
  return l;
}

static void dict_free(Obj *o) {
  Dict *d = (Dict *)o;
  for (tfs_i64 i = 0; i < d->used; i++) {
    val_decref(d->keys[i]);
    val_decref(d->vals[i]);
  }
  free(d->keys);
  free(d->vals);
  free(d->index);
  free(d);
}

static void dict_repr(StrBuf *b, Val v) {
  Dict *d = (Dict *)v.u.o;
  if (!repr_enter(v.u.o)) {
    sb_puts(b, "{...}");
    return;
  }
  sb_putc(b, '{');
  bool first = true;
  for (tfs_i64 i = 0; i < d->used; i++) {
    if (val_is_undef(d->keys[i])) continue;
    if (!first) sb_puts(b, ", ");
    first = false;
    val_repr(b, d->keys[i]);
    sb_puts(b, ": ");
    val_repr(b, d->vals[i]);
  }
  sb_putc(b, '}');
  repr_leave(v.u.o);
}

static Val dict_getitem(Val self, Val key) {
  Val v = dict_get(self, key);
  if (val_is_undef(v) && rt_soft_miss) {
    rt_soft_missed = true;
    return val_none();
  }
  if (val_is_undef(v)) exc_key_error(key);
  return v;
}

static void dict_setitem(Val self, Val key, Val v) { dict_set(self, key, v); }
static tfs_i64 dict_len(Val v) { return ((Dict *)v.u.o)->len; }

static bool dict_eq(Val a, Val b) {
  Dict *x = (Dict *)a.u.o;
  if (x->len != ((Dict *)b.u.o)->len) return false;
  for (tfs_i64 i = 0; i < x->used; i++) {
    if (val_is_undef(x->keys[i])) continue;
    Val v = dict_get(b, x->keys[i]);
    if (val_is_undef(v)) return false;
    bool eq = val_eq(x->vals[i], v);
    val_decref(v);
    if (!eq) return false;
  }
  return true;
}

/* Iterators over a dict: it->i walks the entries, it->n remembers the size
 * to detect mutation; aux's int payload picks keys (0), values (1) or items (2). */
static bool dict_step(Iter *it, Val *out) {
  Dict *d = (Dict *)it->src.u.o;
  if (d->len != it->n) {
    it->n = -1;   /* raise once, then stay exhausted */
    rt_throw(ERR_RUNTIME, "dictionary changed size during iteration");
  }
  while (it->i < d->used && val_is_undef(d->keys[it->i])) it->i++;
  if (it->i >= d->used) return false;
  tfs_i64 e = it->i++;
  switch (it->aux.u.i) {
    case 0: *out = val_incref(d->keys[e]); break;
    case 1: *out = val_incref(d->vals[e]); break;
    default: *out = tuple_pack(2, d->keys[e], d->vals[e]); break;
  }
  return true;
}

static const char *const dict_iter_kinds[] = {"dict_keyiterator", "dict_valueiterator", "dict_itemiterator"};

static Val dict_iter_kind(Val d, int kind) {
  return iter_new(dict_iter_kinds[kind], dict_step, d, val_int(kind), 0, ((Dict *)d.u.o)->len);
}

static Val dict_iter(Val self) { return dict_iter_kind(self, 0); }
static Val dict_getattr(Val self, const char *name) { return dictmethods_get(self, name); }

/* The cycle collector's view (gc.c); deleted entries hold VT_UNDEF. */
static void dict_traverse(Obj *o, GcVisit visit, void *arg) {
  Dict *d = (Dict *)o;
  for (tfs_i64 i = 0; i < d->used; i++) {
    visit(d->keys[i], true, arg);
    visit(d->vals[i], true, arg);
  }
}

static void dict_clear(Obj *o) {
  Dict *d = (Dict *)o;
  tfs_i64 n = d->used;
  d->len = d->used = 0;
  if (d->index) memset(d->index, 0xff, sizeof(tfs_i64) * (size_t)d->index_cap);   /* all -1 */
  for (tfs_i64 i = 0; i < n; i++) {
    val_decref(d->keys[i]);
    val_decref(d->vals[i]);
  }
}

const Type dict_type = {
  .name = "dict",
  .free = dict_free, .traverse = dict_traverse, .clear = dict_clear,
  .repr = dict_repr,
  .getattr = dict_getattr,
  .getitem = dict_getitem,
  .setitem = dict_setitem,
  .iter = dict_iter,
  .len = dict_len,
  .eq = dict_eq,
};

/* ---- views: d.keys(), d.values(), d.items() ------------------------------------------------ */

typedef struct DictView { Obj hdr; Val dict; int kind; } DictView;
static const Type dictview_types[3];

Val dict_view_new(Val d, int kind) {
  DictView *v = obj_new(&dictview_types[kind], sizeof(DictView));
  v->dict = val_incref(d);
  v->kind = kind;
  return val_obj(v);
}

static void dictview_free(Obj *o) {
  val_decref(((DictView *)o)->dict);
  free(o);
}

static void dictview_repr(StrBuf *b, Val v) {
  DictView *dv = (DictView *)v.u.o;
  sb_printf(b, "%s([", dv->hdr.type->name);
  Val it = dict_iter_kind(dv->dict, dv->kind), item;
  bool first = true;
  while (rt_next(it, &item)) {
    if (!first) sb_puts(b, ", ");
    first = false;
    val_repr(b, item);
    val_decref(item);
  }
  val_decref(it);
  sb_puts(b, "])");
}

static Val dictview_iter(Val v) {
  DictView *dv = (DictView *)v.u.o;
  return dict_iter_kind(dv->dict, dv->kind);
}

static tfs_i64 dictview_len(Val v) { return ((Dict *)((DictView *)v.u.o)->dict.u.o)->len; }

static const Type dictview_types[3] = {
  {.name = "dict_keys", .free = dictview_free, .repr = dictview_repr, .iter = dictview_iter, .len = dictview_len},
  {.name = "dict_values", .free = dictview_free, .repr = dictview_repr, .iter = dictview_iter, .len = dictview_len},
  {.name = "dict_items", .free = dictview_free, .repr = dictview_repr, .iter = dictview_iter, .len = dictview_len},
};

/* Attribute dictionaries (functions, instances, classes): lookup by C
 * string (owned result or VT_UNDEF, also when d is VT_UNDEF), and store,
 * creating the dict on first use. */
Val dict_get_str(Val d, const char *name) {
  if (val_is_undef(d)) return d;
  Val key = str_from_cstr(name);
  Val v = dict_get(d, key);
  val_decref(key);
  return v;
}

void dict_set_str(Val *d, const char *name, Val v) {
  if (val_is_undef(*d)) *d = dict_new();
  Val key = str_from_cstr(name);
  dict_set(*d, key, v);
  val_decref(key);
}
