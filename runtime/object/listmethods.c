/* listmethods.c — methods of list (append, pop, sort, ...) and tuple (count, index), and the stable sort. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

static void lm_no_kw(const char *what, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", what);
}

static void lm_one(const char *what, int n, const Kw *kw) {
  lm_no_kw(what, kw);
  if (n != 1) rt_throw(ERR_TYPE, "%s() takes exactly one argument (%d given)", what, n);
}

static void lm_none(const char *what, int n, const Kw *kw) {
  lm_no_kw(what, kw);
  if (n) rt_throw(ERR_TYPE, "%s() takes no arguments (%d given)", what, n);
}

static void lm_range(const char *what, int n, const Kw *kw, int lo, int hi) {
  lm_no_kw(what, kw);
  if (n < lo) rt_throw(ERR_TYPE, "%s expected at least %d argument%s, got %d", what, lo, lo == 1 ? "" : "s", n);
  if (n > hi) rt_throw(ERR_TYPE, "%s expected at most %d argument%s, got %d", what, hi, hi == 1 ? "" : "s", n);
}

static List *lm_list(Val v) { return (List *)v.u.o; }

static Val lm_append(Val self, int n, const Val *args, const Kw *kw) {
  lm_one("list.append", n, kw);
  list_append(self, args[0]);
  return val_none();
}

static Val lm_extend(Val self, int n, const Val *args, const Kw *kw) {
  lm_one("list.extend", n, kw);
  list_extend(self, args[0]);
  return val_none();
}

static Val lm_pop(Val self, int n, const Val *args, const Kw *kw) {
  lm_range("pop", n, kw, 0, 1);
  List *l = lm_list(self);
  int64_t i = n ? val_to_index(args[0], NULL) : -1;
  if (l->len == 0) rt_throw(ERR_INDEX, "pop from empty list");
  if (i < 0) i += l->len;
  if (i < 0 || i >= l->len) rt_throw(ERR_INDEX, "pop index out of range");
  Val v = l->items[i];   /* the reference moves to the caller */
  memmove(l->items + i, l->items + i + 1, sizeof(Val) * (size_t)(l->len - i - 1));
  l->len--;
  return v;
}

static Val lm_insert(Val self, int n, const Val *args, const Kw *kw) {
  lm_no_kw("insert", kw);
  if (n != 2) rt_throw(ERR_TYPE, "insert expected 2 arguments, got %d", n);
  int64_t i = val_to_index(args[0], NULL);
  List *l = lm_list(self);
  if (i < 0) i = i + l->len < 0 ? 0 : i + l->len;
  if (i > l->len) i = l->len;
  list_append(self, args[1]);   /* grows; then shift into place */
  Val v = l->items[l->len - 1];
  memmove(l->items + i + 1, l->items + i, sizeof(Val) * (size_t)(l->len - 1 - i));
  l->items[i] = v;
  return val_none();
}

/* Clamp start/stop arguments of index()/count() like slice bounds. */
static void lm_bounds(int n, const Val *args, int first, tfs_i64 len, tfs_i64 *lo, tfs_i64 *hi) {
  *lo = 0;
  *hi = len;
  if (n > first) {
    *lo = val_to_index(args[first], NULL);
    if (*lo < 0) *lo = *lo + len < 0 ? 0 : *lo + len;
  }
  if (n > first + 1) {
    *hi = val_to_index(args[first + 1], NULL);
    if (*hi < 0) *hi = *hi + len < 0 ? 0 : *hi + len;
  }
  if (*hi > len) *hi = len;
}

static Val lm_index(Val self, int n, const Val *args, const Kw *kw) {
  lm_range("index", n, kw, 1, 3);
  tfs_i64 len, lo, hi;
  const Val *items;
  seq_items(self, &len, &items);
  lm_bounds(n, args, 1, len, &lo, &hi);
  for (tfs_i64 i = lo; i < hi && i < len; i++) {
    seq_items(self, &len, &items);   /* == may not change it, but stay safe */
    if (i < len && val_eq(items[i], args[0])) return val_int(i);
  }
  if (val_is(self, &tuple_type)) rt_throw(ERR_VALUE, "tuple.index(x): x not in tuple");
  Val r = repr_of(args[0]);
  char msg[300];
  snprintf(msg, sizeof msg, "%.250s is not in list", str_cstr(r));
  val_decref(r);
  rt_throw(ERR_VALUE, "%s", msg);
}

static Val lm_count(Val self, int n, const Val *args, const Kw *kw) {
  lm_one(val_is(self, &tuple_type) ? "tuple.count" : "list.count", n, kw);
  tfs_i64 len, c = 0;
  const Val *items;
  seq_items(self, &len, &items);
  for (tfs_i64 i = 0; i < len; i++) c += val_eq(items[i], args[0]);
  return val_int(c);
}

static Val lm_remove(Val self, int n, const Val *args, const Kw *kw) {
  lm_one("list.remove", n, kw);
  List *l = lm_list(self);
  for (tfs_i64 i = 0; i < l->len; i++) {
    if (val_eq(l->items[i], args[0])) {
      Val v = l->items[i];
      memmove(l->items + i, l->items + i + 1, sizeof(Val) * (size_t)(l->len - i - 1));
      l->len--;
      val_decref(v);
      return val_none();
    }
  }
  rt_throw(ERR_VALUE, "list.remove(x): x not in list");
}

static Val lm_reverse(Val self, int n, const Val *args, const Kw *kw) {
  lm_none("list.reverse", n, kw);
  List *l = lm_list(self);
  for (tfs_i64 i = 0, j = l->len - 1; i < j; i++, j--) {
    Val t = l->items[i];
    l->items[i] = l->items[j];
    l->items[j] = t;
  }
  return val_none();
}

static Val lm_copy(Val self, int n, const Val *args, const Kw *kw) {
  lm_none("list.copy", n, kw);
  return list_from_iterable(self);
}

static Val lm_clear(Val self, int n, const Val *args, const Kw *kw) {
  lm_none("list.clear", n, kw);
  List *l = lm_list(self);
  tfs_i64 len = l->len;
  Val *old = l->items;
  l->items = NULL;
  l->len = l->cap = 0;
  for (tfs_i64 i = 0; i < len; i++) val_decref(old[i]);
  free(old);
  return val_none();
}

/* ---- sorting: a stable bottom-up merge sort that only asks `<` ------------------------- */

static bool lm_less(Val a, Val b) {
  Val r = rt_compare(CMP_LT, a, b);
  bool t = rt_truthy(r);
  val_decref(r);
  return t;
}

void list_sort(Val list, Val key, bool reverse) {
  List *l = lm_list(list);
  tfs_i64 n = l->len;
  if (n < 2) return;
  size_t sz = (size_t)n;
  Val *items = malloc(sizeof(Val) * sz), *keys = items, *key_arr = NULL;
  tfs_i64 *idx = malloc(sizeof(tfs_i64) * sz), *tmp = malloc(sizeof(tfs_i64) * sz), nkeys = 0;
  if (!items || !idx || !tmp) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < n; i++) items[i] = val_incref(l->items[i]);
  /* a raising key or comparison releases everything held here */
  int mark = rt_hold_vals(&items, &n);
  rt_hold_mem(idx);
  rt_hold_mem(tmp);
  rt_hold_vals(&key_arr, &nkeys);
  bool has_key = key.tag != VT_NONE && !val_is_undef(key);
  if (has_key) {
    keys = key_arr = malloc(sizeof(Val) * sz);
    if (!keys) rt_throw(ERR_MEMORY, "out of memory");
    for (tfs_i64 i = 0; i < n; i++, nkeys++) keys[i] = rt_call(key, 1, &items[i], NULL);
  }
  for (tfs_i64 i = 0; i < n; i++) idx[i] = i;
  for (tfs_i64 w = 1; w < n; w *= 2) {
    for (tfs_i64 lo = 0; lo < n; lo += 2 * w) {
      tfs_i64 mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      tfs_i64 a = lo, b = mid, k = lo;
      while (a < mid && b < hi) {
        /* the right run wins only when strictly first: equal keys keep their order */
        bool right = reverse ? lm_less(keys[idx[a]], keys[idx[b]]) : lm_less(keys[idx[b]], keys[idx[a]]);
        tmp[k++] = right ? idx[b++] : idx[a++];
      }
      while (a < mid) tmp[k++] = idx[a++];
      while (b < hi) tmp[k++] = idx[b++];
    }
    tfs_i64 *t = idx;
    idx = tmp;
    tmp = t;
  }
  rt_unhold(mark);
  Val *sorted = malloc(sizeof(Val) * sz);
  if (!sorted) rt_throw(ERR_MEMORY, "out of memory");
  for (tfs_i64 i = 0; i < n; i++) sorted[i] = items[idx[i]];   /* our references move in */
  Val *old = l->items;
  tfs_i64 oldlen = l->len;
  l->items = sorted;
  l->len = l->cap = n;
  for (tfs_i64 i = 0; i < oldlen; i++) val_decref(old[i]);
  free(old);
  if (has_key) {
    for (tfs_i64 i = 0; i < n; i++) val_decref(keys[i]);
    free(keys);
  }
  free(items);
  free(idx);
  free(tmp);
}

static Val lm_sort(Val self, int n, const Val *args, const Kw *kw) {
  if (n) rt_throw(ERR_TYPE, "sort() takes no positional arguments");
  Val key = val_none(), rev = val_bool(false);
  for (int k = 0; kw && k < kw->n; k++) {
    if (!strcmp(kw->names[k], "key")) key = kw->vals[k];
    else if (!strcmp(kw->names[k], "reverse")) rev = kw->vals[k];
    else rt_throw(ERR_TYPE, "'%s' is an invalid keyword argument for sort()", kw->names[k]);
  }
  list_sort(self, key, rt_truthy(rev));
  return val_none();
}

/* ---- lookup -------------------------------------------------------------------------------------- */

typedef struct LmEntry { const char *name, *qual; BuiltinFn fn; bool tuple_too; } LmEntry;
static const LmEntry lm_table[] = {
  {"append", "list.append", lm_append, false}, {"clear", "list.clear", lm_clear, false},
  {"copy", "list.copy", lm_copy, false},       {"count", "list.count", lm_count, true},
  {"extend", "list.extend", lm_extend, false}, {"index", "list.index", lm_index, true},
  {"insert", "list.insert", lm_insert, false}, {"pop", "list.pop", lm_pop, false},
  {"remove", "list.remove", lm_remove, false}, {"reverse", "list.reverse", lm_reverse, false},
  {"sort", "list.sort", lm_sort, false},
};

Val listmethods_get(Val self, const char *name) {
  bool is_tuple = val_is(self, &tuple_type);
  for (size_t i = 0; i < sizeof lm_table / sizeof lm_table[0]; i++)
    if (!strcmp(lm_table[i].name, name) && (!is_tuple || lm_table[i].tuple_too))
      return builtin_new(is_tuple ? lm_table[i].name : lm_table[i].qual, lm_table[i].fn, self, NULL);
  return val_undef();
}
