/* list.c — the list and tuple types: indexing, slicing with steps, slice assignment, deletion, repr, iteration. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

bool seq_items(Val v, tfs_i64 *n, const Val **items) {
  v = inst_base(v);   /* a tuple/list subclass instance */
  if (val_is(v, &list_type)) {
    *n = ((List *)v.u.o)->len;
    *items = ((List *)v.u.o)->items;
    return true;
  }
  if (val_is(v, &tuple_type)) {
    *n = ((Tuple *)v.u.o)->len;
    *items = ((Tuple *)v.u.o)->items;
    return true;
  }
  return false;
}

/* ---- list -------------------------------------------------------------------------- */

static void list_grow(List *l, tfs_i64 need) {
  if (need <= l->cap) return;
  tfs_i64 cap = l->cap < 4 ? 4 : l->cap;
  while (cap < need) cap += cap / 2 + 1;
  Val *items = realloc(l->items, sizeof(Val) * (size_t)cap);
  if (!items) rt_throw(ERR_MEMORY, "out of memory");
  l->items = items;
  l->cap = cap;
}

Val list_new(tfs_i64 cap) {
  List *l = obj_new(&list_type, sizeof(List));
  l->len = 0;
  l->cap = 0;
  l->items = NULL;
  if (cap > 0) list_grow(l, cap);
  return val_obj(l);
}

void list_append(Val list, Val item) {
  List *l = (List *)list.u.o;
  if (l->len == l->cap) list_grow(l, l->len + 1);
  l->items[l->len++] = val_incref(item);
}

void list_extend(Val list, Val iterable) {
  tfs_i64 n;
  const Val *items;
  if (seq_items(iterable, &n, &items)) {
    List *l = (List *)list.u.o;
    list_grow(l, l->len + n);
    items = val_is(iterable, &list_type) ? ((List *)iterable.u.o)->items : items;   /* l.extend(l): reread */
    for (tfs_i64 i = 0; i < n; i++) l->items[l->len++] = val_incref(items[i]);
    return;
  }
  Val it = rt_iter(iterable), item;
  int mark = rt_hold_val(it);
  while (rt_next(it, &item)) {
    list_append(list, item);
    val_decref(item);
  }
  rt_unhold(mark);
  val_decref(it);
}

Val list_from_iterable(Val it) {
  Val l = list_new(0);
  int mark = rt_hold_val(l);
  list_extend(l, it);
  rt_unhold(mark);
  return l;
}

static void list_free(Obj *o) {
  List *l = (List *)o;
  for (tfs_i64 i = 0; i < l->len; i++) val_decref(l->items[i]);
  free(l->items);
  free(l);
}

/* Shared repr of list and tuple items between the brackets. */
static void seq_repr_items(StrBuf *b, const Val *items, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n; i++) {
    if (i) sb_puts(b, ", ");
    val_repr(b, items[i]);
  }
}

static void list_repr(StrBuf *b, Val v) {
  List *l = (List *)v.u.o;
  if (!repr_enter(v.u.o)) {
    sb_puts(b, "[...]");
    return;
  }
  sb_putc(b, '[');
  seq_repr_items(b, l->items, l->len);
  sb_putc(b, ']');
  repr_leave(v.u.o);
}

static tfs_i64 list_len(Val v) { return ((List *)v.u.o)->len; }

static tfs_i64 seq_index(Val key, tfs_i64 n, const char *what, const char *range_msg) {
  int64_t i = val_to_index(key, what);
  if (i < 0) i += n;
  /* errindex: list index out of range */
  /* errindex: list assignment index out of range */
  /* errindex: tuple index out of range */
  if (i < 0 || i >= n) rt_throw(ERR_INDEX, "%s", range_msg);
  return i;
}

static Val list_getitem(Val self, Val key) {
  List *l = (List *)self.u.o;
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, cnt = slice_indices(key, l->len, &start, &stop, &step);
    Val r = list_new(cnt);
    for (tfs_i64 k = 0, i = start; k < cnt; k++, i += step) list_append(r, l->items[i]);
    return r;
  }
  return val_incref(l->items[seq_index(key, l->len, "list indices", "list index out of range")]);
}

/* Remove items [lo, hi) and insert n new ones (increfed) at lo. */
static void list_splice(List *l, tfs_i64 lo, tfs_i64 hi, tfs_i64 n, const Val *items) {
  tfs_i64 removed = hi - lo;
  Val *old = malloc(sizeof(Val) * (size_t)(removed > 0 ? removed : 1));
  if (!old) rt_throw(ERR_MEMORY, "out of memory");
  if (removed > 0) memcpy(old, l->items + lo, sizeof(Val) * (size_t)removed);   /* an empty list's items may be NULL */
  for (tfs_i64 i = 0; i < n; i++) val_incref(items[i]);
  list_grow(l, l->len - removed + n);
  if (l->len > hi) memmove(l->items + lo + n, l->items + hi, sizeof(Val) * (size_t)(l->len - hi));
  if (n) memcpy(l->items + lo, items, sizeof(Val) * (size_t)n);
  l->len += n - removed;
  for (tfs_i64 i = 0; i < removed; i++) val_decref(old[i]);   /* last: a decref may run arbitrary frees */
  free(old);
}

static void list_setitem(Val self, Val key, Val v) {
  List *l = (List *)self.u.o;
  if (val_is(key, &slice_type)) {
    Val src = list_from_iterable(v);   /* a copy: v may be l itself */
    List *s = (List *)src.u.o;
    tfs_i64 start, stop, step, cnt = slice_indices(key, l->len, &start, &stop, &step);
    if (step == 1) {
      list_splice(l, start, start + cnt, s->len, s->items);
    } else {
      if (s->len != cnt) {
        tfs_i64 got = s->len;
        val_decref(src);
        rt_throw(ERR_VALUE, "attempt to assign sequence of size %lld to extended slice of size %lld",
                 (long long)got, (long long)cnt);
      }
      for (tfs_i64 k = 0, i = start; k < cnt; k++, i += step) {
        Val old = l->items[i];
        l->items[i] = val_incref(s->items[k]);
        val_decref(old);
      }
    }
    val_decref(src);
    return;
  }
  tfs_i64 i = seq_index(key, l->len, "list indices", "list assignment index out of range");
  Val old = l->items[i];
  l->items[i] = val_incref(v);
  val_decref(old);
}

void list_delitem(Val self, Val key) {
  List *l = (List *)self.u.o;
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, cnt = slice_indices(key, l->len, &start, &stop, &step);
    if (step < 0) {   /* same items, walked upwards */
      start = start + (cnt - 1) * step;
      step = -step;
    }
    if (step == 1) {
      list_splice(l, start, start + cnt, 0, NULL);
      return;
    }
    Val *dead = malloc(sizeof(Val) * (size_t)(cnt > 0 ? cnt : 1));
    if (!dead) rt_throw(ERR_MEMORY, "out of memory");
    tfs_i64 w = 0, nd = 0;
    for (tfs_i64 i = 0; i < l->len; i++) {
      if (nd < cnt && i == start + nd * step) dead[nd++] = l->items[i];
      else l->items[w++] = l->items[i];
    }
    l->len = w;
    for (tfs_i64 i = 0; i < nd; i++) val_decref(dead[i]);
    free(dead);
    return;
  }
  tfs_i64 i = seq_index(key, l->len, "list indices", "list assignment index out of range");
  list_splice(l, i, i + 1, 0, NULL);
}

static bool seq_step(Iter *it, Val *out) {
  tfs_i64 n;
  const Val *items;
  seq_items(it->src, &n, &items);
  if (it->i >= n) return false;
  *out = val_incref(items[it->i++]);
  return true;
}

static Val list_iter(Val self) { return iter_new("list_iterator", seq_step, self, val_undef(), 0, 0); }

static bool seq_eq(Val a, Val b) {
  tfs_i64 n1, n2;
  const Val *i1, *i2;
  seq_items(a, &n1, &i1);
  seq_items(b, &n2, &i2);
  if (n1 != n2) return false;
  for (tfs_i64 i = 0; i < n1; i++)
    if (!val_eq(i1[i], i2[i])) return false;
  return true;
}

static Val list_getattr(Val self, const char *name) { return listmethods_get(self, name); }

/* The cycle collector's view (gc.c). */
static void list_traverse(Obj *o, GcVisit visit, void *arg) {
  List *l = (List *)o;
  for (tfs_i64 i = 0; i < l->len; i++) visit(l->items[i], true, arg);
}

static void list_clear(Obj *o) {
  List *l = (List *)o;
  tfs_i64 n = l->len;
  l->len = 0;
  for (tfs_i64 i = 0; i < n; i++) val_decref(l->items[i]);
}

const Type list_type = {
  .name = "list",
  .free = list_free, .traverse = list_traverse, .clear = list_clear,
  .repr = list_repr,
  .getattr = list_getattr,
  .getitem = list_getitem,
  .setitem = list_setitem,
  .iter = list_iter,
  .len = list_len,
  .eq = seq_eq,
};

/* ---- tuple ------------------------------------------------------------------------------ */

Val tuple_new(tfs_i64 len) {
  Tuple *t = obj_new(&tuple_type, sizeof(Tuple) + sizeof(Val) * (size_t)len);
  t->len = len;
  for (tfs_i64 i = 0; i < len; i++) t->items[i] = val_none();
  return val_obj(t);
}

Val tuple_pack(int n, ...) {
  Val t = tuple_new(n);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) ((Tuple *)t.u.o)->items[i] = val_incref(va_arg(ap, Val));
  va_end(ap);
  return t;
}

static void tuple_free(Obj *o) {
  Tuple *t = (Tuple *)o;
  for (tfs_i64 i = 0; i < t->len; i++) val_decref(t->items[i]);
  free(t);
}

static void tuple_repr(StrBuf *b, Val v) {
  Tuple *t = (Tuple *)v.u.o;
  if (!repr_enter(v.u.o)) {   /* ([(...)],): a tuple reached again through a list */
    sb_puts(b, "(...)");
    return;
  }
  sb_putc(b, '(');
  seq_repr_items(b, t->items, t->len);
  if (t->len == 1) sb_putc(b, ',');
  sb_putc(b, ')');
  repr_leave(v.u.o);
}

static tfs_i64 tuple_len(Val v) { return ((Tuple *)v.u.o)->len; }

static Val tuple_getitem(Val self, Val key) {
  Tuple *t = (Tuple *)self.u.o;
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, cnt = slice_indices(key, t->len, &start, &stop, &step);
    Val r = tuple_new(cnt);
    for (tfs_i64 k = 0, i = start; k < cnt; k++, i += step) ((Tuple *)r.u.o)->items[k] = val_incref(t->items[i]);
    return r;
  }
  return val_incref(t->items[seq_index(key, t->len, "tuple indices", "tuple index out of range")]);
}

static Val tuple_iter(Val self) { return iter_new("tuple_iterator", seq_step, self, val_undef(), 0, 0); }

static tfs_u64 tuple_hash(Val v) {
  Tuple *t = (Tuple *)v.u.o;
  tfs_u64 h = 0x345678ULL + (tfs_u64)t->len;
  for (tfs_i64 i = 0; i < t->len; i++) h = (h ^ val_hash(t->items[i])) * 0x100000001b3ULL + 0x9e3779b9ULL;
  return h;
}

static Val tuple_getattr(Val self, const char *name) { return listmethods_get(self, name); }

static void tuple_traverse(Obj *o, GcVisit visit, void *arg) {
  Tuple *t = (Tuple *)o;
  for (tfs_i64 i = 0; i < t->len; i++) visit(t->items[i], true, arg);
}

const Type tuple_type = {
  .name = "tuple",
  .free = tuple_free, .traverse = tuple_traverse,
  .repr = tuple_repr,
  .getattr = tuple_getattr,
  .getitem = tuple_getitem,
  .iter = tuple_iter,
  .len = tuple_len,
  .eq = seq_eq,
  .hash = tuple_hash,
};
