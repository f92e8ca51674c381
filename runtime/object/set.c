/* set.c — the set type: CPython's own hash table algorithm (so small ints iterate in CPython's order), operators, CPython hashes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/hooks.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* ---- CPython's hash of numbers and tuples (hash(x), set order) ------------------------ */

enum { PYHASH_BITS = 61 };
#define PYHASH_MODULUS (((tfs_u64)1 << PYHASH_BITS) - 1)

static int64_t pyhash_int(int64_t i) {
  tfs_u64 m = i < 0 ? (tfs_u64)0 - (tfs_u64)i : (tfs_u64)i;
  int64_t h = (int64_t)(m % PYHASH_MODULUS);
  if (i < 0) h = -h;
  return h == -1 ? -2 : h;
}

/* Python's _Py_HashDouble: the value modulo 2**61 - 1, so 2.0 hashes as 2. */
static int64_t pyhash_float(double v) {
  if (isinf(v)) return v > 0 ? 314159 : -314159;
  if (isnan(v)) return 0;
  int e;
  double m = frexp(v, &e);
  int sign = 1;
  if (m < 0) {
    sign = -1;
    m = -m;
  }
  tfs_u64 x = 0;
  while (m) {
    x = ((x << 28) & PYHASH_MODULUS) | x >> (PYHASH_BITS - 28);
    m *= 268435456.0;
    e -= 28;
    tfs_u64 y = (tfs_u64)m;
    m -= (double)y;
    x += y;
    if (x >= PYHASH_MODULUS) x -= PYHASH_MODULUS;
  }
  e = e >= 0 ? e % PYHASH_BITS : PYHASH_BITS - 1 - ((-1 - e) % PYHASH_BITS);
  x = ((x << e) & PYHASH_MODULUS) | x >> (PYHASH_BITS - e);
  int64_t h = (int64_t)x * sign;
  return h == -1 ? -2 : h;
}

/* hash(x) as CPython 3.11 computes it for numbers and tuples of them; other
 * values (str: randomized in CPython anyway) use the runtime's own hash. */
int64_t val_pyhash(Val v) {
  switch (v.tag) {
    case VT_BOOL:
    case VT_INT: return pyhash_int(v.u.i);
    case VT_FLOAT: return pyhash_float(v.u.f);
    default: break;
  }
  bool si;
  int64_t i;
  double f;
  if (v.tag == VT_OBJ && !strncmp(v.u.o->type->name, "numpy.", 6) && rt_obj_hooks.tensor_scalar &&
      rt_obj_hooks.tensor_scalar(v, &si, &i, &f))   /* numpy scalars hash as the number they hold */
    return si ? pyhash_int(i) : pyhash_float(f);
  if (val_is(v, &u64int_type)) return (int64_t)u64int_type.hash(v);   /* an int above int64: its value mod 2**61 - 1 */
  if (val_is(v, &bigint_type)) return (int64_t)bigint_type.hash(v);
  if (val_is(v, &complex_type)) {   /* hash(re) + 1000003 * hash(im) */
    double re, im;
    complex_parts(v, &re, &im);
    tfs_u64 h = (tfs_u64)pyhash_float(re) + 1000003ULL * (tfs_u64)pyhash_float(im);
    return h == (tfs_u64)-1 ? -2 : (int64_t)h;
  }
  if (val_is(v, &frozenset_type)) return frozenset_pyhash(v);
  if (val_is(v, &tuple_type)) {   /* xxHash-based tuplehash */
    const tfs_u64 p1 = 11400714785074694791ULL, p2 = 14029467366897019727ULL, p5 = 2870177450012600261ULL;
    Tuple *t = (Tuple *)v.u.o;
    tfs_u64 acc = p5;
    rt_rec_enter("");   /* nested tuples recurse: Python's RecursionError, not a C stack overflow */
    for (tfs_i64 i = 0; i < t->len; i++) {
      acc += (tfs_u64)val_pyhash(t->items[i]) * p2;
      acc = (acc << 31) | (acc >> 33);
      acc *= p1;
    }
    rt_rec_leave();
    acc += (tfs_u64)t->len ^ (p5 ^ 3527539UL);
    return acc == (tfs_u64)-1 ? 1546275796 : (int64_t)acc;
  }
  if (val_is(v, &inst_type) && (inst_base(v).tag != VT_OBJ || inst_base(v).u.o != v.u.o)) {   /* a tuple/str/int/float subclass without __hash__ of its own */
    Val h = class_find(((Inst *)v.u.o)->klass, "__hash__");
    bool own = !val_is_undef(h);
    val_decref(h);
    if (!own && inst_base(v).tag == VT_OBJ && !inst_base(v).u.o->type->hash) rt_throw(ERR_TYPE, "unhashable type: '%s'", val_type_name(v));
    if (!own) return val_pyhash(inst_base(v));
  }
  if (val_is(v, &inst_type)) {   /* a class's __hash__ is hash()'s answer, as in Python (-1 becomes -2) */
    int64_t h = (int64_t)val_hash(v);
    return h == -1 ? -2 : h;
  }
  int64_t h = (int64_t)(val_hash(v) >> 3);
  return h == -1 ? -2 : h;
}

/* ---- the table (CPython's setobject.c: linear probes, then perturbation) ------------- */

enum { SET_MINSIZE = 8, SET_LINEAR_PROBES = 9, SET_PERTURB_SHIFT = 5 };

/* key VT_UNDEF: unused (u.i == 0) or a deleted entry ("dummy", u.i == 1). */
static bool set_unused(const SetEntry *e) { return e->key.tag == VT_UNDEF && e->key.u.i == 0; }
static bool set_active(const SetEntry *e) { return e->key.tag != VT_UNDEF; }

/* set or frozenset: the algebra and comparisons take either. */
static bool anyset(Val v) { return val_is(v, &set_type) || val_is(v, &frozenset_type); }

/* A result takes the type of the operand it was built for (frozenset | set is a frozenset). */
static Val as_type_of(Val r, Val like) {
  if (val_is(like, &frozenset_type)) r.u.o->type = &frozenset_type;
  return r;
}

Val set_new(void) {
  Set *s = obj_new(&set_type, sizeof(Set));
  s->fill = s->used = 0;
  s->finger = 0;
  s->mask = SET_MINSIZE - 1;
  s->table = calloc(SET_MINSIZE, sizeof(SetEntry));
  if (!s->table) rt_throw(ERR_MEMORY, "out of memory");
  return val_obj(s);
}

/* Place a key known to be absent into a table with no deleted entries. */
static void set_insert_clean(SetEntry *table, tfs_u64 mask, Val key, int64_t hash) {
  tfs_u64 perturb = (tfs_u64)hash, i = (tfs_u64)hash & mask;
  SetEntry *e;
  for (;;) {
    e = &table[i];
    if (set_unused(e)) goto found;
    if (i + SET_LINEAR_PROBES <= mask)
      for (int j = 0; j < SET_LINEAR_PROBES; j++) {
        e++;
        if (set_unused(e)) goto found;
      }
    perturb >>= SET_PERTURB_SHIFT;
    i = (i * 5 + 1 + perturb) & mask;
  }
found:
  e->key = key;
  e->hash = hash;
}

static void set_resize(Set *s, tfs_i64 minused) {
  tfs_u64 size = SET_MINSIZE;
  while (size <= (tfs_u64)minused) size <<= 1;
  SetEntry *old = s->table, *t = calloc(size, sizeof(SetEntry));
  if (!t) rt_throw(ERR_MEMORY, "out of memory");
  tfs_u64 oldn = s->mask + 1;
  for (tfs_u64 i = 0; i < oldn; i++)
    if (set_active(&old[i])) set_insert_clean(t, size - 1, old[i].key, old[i].hash);
  free(old);
  s->table = t;
  s->mask = size - 1;
  s->fill = s->used;
}

/* The entry holding key, or NULL. */
static SetEntry *set_lookup(Set *s, Val key, int64_t hash) {
  tfs_u64 mask = s->mask, perturb = (tfs_u64)hash, i = (tfs_u64)hash & mask;
  for (;;) {
    SetEntry *e = &s->table[i];
    int probes = i + SET_LINEAR_PROBES <= mask ? SET_LINEAR_PROBES : 0;
    do {
      if (set_unused(e)) return NULL;
      if (set_active(e) && e->hash == hash && val_eq(e->key, key)) return e;
      e++;
    } while (probes--);
    perturb >>= SET_PERTURB_SHIFT;
    i = (i * 5 + 1 + perturb) & mask;
  }
}

/* Borrows key.  Returns false when it was there already. */
static bool set_add_hashed(Set *s, Val key, int64_t hash) {
  tfs_u64 mask = s->mask, perturb = (tfs_u64)hash, i = (tfs_u64)hash & mask;
  SetEntry *e, *freeslot = NULL;
  for (;;) {
    e = &s->table[i];
    int probes = i + SET_LINEAR_PROBES <= mask ? SET_LINEAR_PROBES : 0;
    do {
      if (set_unused(e)) goto unused;
      if (set_active(e)) {
        if (e->hash == hash && val_eq(e->key, key)) return false;
      } else if (!freeslot) {
        freeslot = e;   /* a deleted entry: reused as CPython does */
      }
      e++;
    } while (probes--);
    perturb >>= SET_PERTURB_SHIFT;
    i = (i * 5 + 1 + perturb) & mask;
  }
unused:
  if (freeslot) {
    freeslot->key = val_incref(key);
    freeslot->hash = hash;
    s->used++;
    return true;
  }
  e->key = val_incref(key);
  e->hash = hash;
  s->fill++;
  s->used++;
  if ((tfs_u64)s->fill * 5 >= mask * 3) set_resize(s, s->used > 50000 ? s->used * 2 : s->used * 4);
  return true;
}

static int64_t set_hash_of(Val key) {
  if (key.tag == VT_OBJ && !key.u.o->type->hash) rt_throw(ERR_TYPE, "unhashable type: '%s'", val_type_name(key));
  return val_pyhash(key);
}

bool set_add(Val s, Val key) { return set_add_hashed((Set *)s.u.o, key, set_hash_of(key)); }

static int64_t frozen_hash(const Set *s);

/* A set key is looked up as the frozenset it equals ({1} in {frozenset({1})}), as CPython does. */
bool set_contains(Val s, Val key) {
  int64_t h = val_is(key, &set_type) ? frozen_hash((Set *)key.u.o) : set_hash_of(key);
  return set_lookup((Set *)s.u.o, key, h) != NULL;
}

bool set_discard(Val sv, Val key) {
  Set *s = (Set *)sv.u.o;
  SetEntry *e = set_lookup(s, key, set_hash_of(key));
  if (!e) return false;
  Val old = e->key;
  e->key = val_undef();
  e->key.u.i = 1;   /* dummy */
  e->hash = -1;
  s->used--;
  val_decref(old);
  return true;
}

/* set.pop(): CPython's "finger" walk, so repeated pops follow table order. */
Val set_pop(Val sv) {
  Set *s = (Set *)sv.u.o;
  if (!s->used) rt_throw(ERR_KEY, "'pop from an empty set'");
  SetEntry *e = s->table + (s->finger & s->mask), *limit = s->table + s->mask;
  while (!set_active(e)) {
    e++;
    if (e > limit) e = s->table;
  }
  Val key = e->key;
  e->key = val_undef();
  e->key.u.i = 1;
  e->hash = -1;
  s->used--;
  s->finger = (tfs_u64)(e - s->table) + 1;
  return key;
}

void set_clear(Val sv) {
  Set *s = (Set *)sv.u.o;
  SetEntry *old = s->table;
  tfs_u64 n = s->mask + 1;
  s->table = calloc(SET_MINSIZE, sizeof(SetEntry));
  if (!s->table) rt_throw(ERR_MEMORY, "out of memory");
  s->mask = SET_MINSIZE - 1;
  s->fill = s->used = 0;
  for (tfs_u64 i = 0; i < n; i++)
    if (set_active(&old[i])) val_decref(old[i].key);
  free(old);
}

/* Active entries in table order (borrowed keys); false at the end. */
bool set_next(Val sv, tfs_i64 *pos, Val *key) {
  Set *s = (Set *)sv.u.o;
  while ((tfs_u64)*pos <= s->mask) {
    SetEntry *e = &s->table[(*pos)++];
    if (set_active(e)) {
      *key = e->key;
      return true;
    }
  }
  return false;
}

/* CPython's set_merge: s |= other (a set), copying the table when it can. */
static void set_merge(Set *s, Set *o) {
  if (!o->used) return;
  if ((tfs_u64)(s->fill + o->used) * 5 >= s->mask * 3) set_resize(s, (s->used + o->used) * 2);
  if (s->fill == 0 && s->mask == o->mask && o->fill == o->used) {
    for (tfs_u64 i = 0; i <= o->mask; i++)
      if (set_active(&o->table[i])) s->table[i] = (SetEntry){val_incref(o->table[i].key), o->table[i].hash};
    s->fill = s->used = o->used;
    return;
  }
  if (s->fill == 0) {
    for (tfs_u64 i = 0; i <= o->mask; i++)
      if (set_active(&o->table[i])) {
        set_insert_clean(s->table, s->mask, val_incref(o->table[i].key), o->table[i].hash);
        s->fill++;
        s->used++;
      }
    return;
  }
  for (tfs_u64 i = 0; i <= o->mask; i++)
    if (set_active(&o->table[i])) set_add_hashed(s, o->table[i].key, o->table[i].hash);
}

/* fn(s, x, aux) for each item x of any iterable, items held against errors. */
static void set_each(Val it, void (*fn)(Val s, Val x, Val aux), Val s, Val aux) {
  Val iter = rt_iter(it), x;
  int mark = rt_hold_val(iter);
  while (rt_next(iter, &x)) {
    int m2 = rt_hold_val(x);
    fn(s, x, aux);
    rt_unhold(m2);
    val_decref(x);
  }
  rt_unhold(mark);
  val_decref(iter);
}

static void set_add_to(Val s, Val x, Val aux) { set_add(s, x); }
static void set_discard_from(Val s, Val x, Val aux) { set_discard(s, x); }
static void set_add_if_in(Val s, Val x, Val in) {
  if (set_contains(in, x)) set_add(s, x);
}

/* s.update(it): a set merges, anything else is iterated. */
void set_update(Val s, Val it) {
  if (anyset(it)) {
    set_merge((Set *)s.u.o, (Set *)it.u.o);
    return;
  }
  if (val_is(it, &dict_type)) {
    Dict *d = (Dict *)it.u.o;
    for (tfs_i64 i = 0; i < d->used; i++)
      if (!val_is_undef(d->keys[i])) set_add(s, d->keys[i]);
    return;
  }
  set_each(it, set_add_to, s, val_undef());
}

Val set_copy(Val s) {
  Val r = set_new();
  set_merge((Set *)r.u.o, (Set *)s.u.o);
  return as_type_of(r, s);
}

Val set_from_iterable(Val it) {
  Val r = set_new();
  int mark = rt_hold_val(r);
  set_update(r, it);
  rt_unhold(mark);
  return r;
}


/* ---- algebra, as CPython builds each result (which fixes its order) --------------------- */

Val set_intersection(Val a, Val b) {
  Val r = as_type_of(set_new(), a);
  int mark = rt_hold_val(r);
  if (anyset(b)) {
    if (((Set *)b.u.o)->used > ((Set *)a.u.o)->used) {
      Val t = a;
      a = b;
      b = t;
    }
    tfs_i64 pos = 0;
    Val k;
    SetEntry *e;
    while ((pos <= (tfs_i64)((Set *)b.u.o)->mask)) {
      e = &((Set *)b.u.o)->table[pos++];
      if (!set_active(e)) continue;
      k = e->key;
      if (set_lookup((Set *)a.u.o, k, e->hash)) set_add_hashed((Set *)r.u.o, k, e->hash);
    }
  } else {
    set_each(b, set_add_if_in, r, a);
  }
  rt_unhold(mark);
  return r;
}

Val set_difference(Val a, Val b) {
  Val r;
  Set *sa = (Set *)a.u.o;
  tfs_i64 blen = anyset(b) ? ((Set *)b.u.o)->used : val_is(b, &dict_type) ? ((Dict *)b.u.o)->len : -1;
  if (blen < 0 || (sa->used >> 2) > blen) {
    r = set_copy(a);   /* then discard every item of b */
    int mark = rt_hold_val(r);
    set_difference_update(r, b);
    rt_unhold(mark);
    return r;
  }
  r = as_type_of(set_new(), a);
  int mark = rt_hold_val(r);
  for (tfs_u64 i = 0; i <= sa->mask; i++) {
    SetEntry *e = &sa->table[i];
    if (!set_active(e)) continue;
    bool in = anyset(b) ? set_lookup((Set *)b.u.o, e->key, e->hash) != NULL : contains(b, e->key);
    if (!in) set_add_hashed((Set *)r.u.o, e->key, e->hash);
  }
  rt_unhold(mark);
  return r;
}

/* s ^= other: remove what both hold, add the rest of other, in other's order. */
void set_symmetric_update(Val s, Val other) {
  Val o = anyset(other) ? val_incref(other) : set_from_iterable(other);
  int mark = rt_hold_val(o);
  Set *so = (Set *)o.u.o;
  for (tfs_u64 i = 0; i <= so->mask; i++) {
    SetEntry *e = &so->table[i];
    if (!set_active(e)) continue;
    if (!set_discard(s, e->key)) set_add_hashed((Set *)s.u.o, e->key, e->hash);
  }
  rt_unhold(mark);
  val_decref(o);
}

/* s &= other: s takes the table of the intersection (CPython swaps bodies). */
void set_intersection_update(Val sv, Val other) {
  Val r = set_intersection(sv, other);
  Set *s = (Set *)sv.u.o, *t = (Set *)r.u.o, tmp = *s;
  s->fill = t->fill, s->used = t->used, s->mask = t->mask, s->table = t->table;
  t->fill = tmp.fill, t->used = tmp.used, t->mask = tmp.mask, t->table = tmp.table;
  val_decref(r);
}

/* s -= other: discard in place, then drop the deleted entries when they are
 * more than a quarter of the table. */
void set_difference_update(Val sv, Val other) {
  Set *s = (Set *)sv.u.o;
  if (anyset(other)) {
    Val o = ((Set *)other.u.o)->used >> 3 > s->used ? set_intersection(sv, other) : val_incref(other);
    int mark = rt_hold_val(o);
    Set *so = (Set *)o.u.o;
    for (tfs_u64 i = 0; i <= so->mask; i++)
      if (set_active(&so->table[i])) set_discard(sv, so->table[i].key);
    rt_unhold(mark);
    val_decref(o);
  } else {
    set_each(other, set_discard_from, sv, val_undef());
  }
  if ((tfs_u64)(s->fill - s->used) > s->mask / 4) set_resize(s, s->used > 50000 ? s->used * 2 : s->used * 4);
}

/* a ^ b: CPython starts from a set of b and folds a into it. */
Val set_symmetric_difference(Val a, Val b) {
  Val r = set_from_iterable(b);
  int mark = rt_hold_val(r);
  set_symmetric_update(r, a);
  rt_unhold(mark);
  return as_type_of(r, a);
}

bool set_issubset(Val a, Val b) {
  Set *sa = (Set *)a.u.o;
  if (sa->used > ((Set *)b.u.o)->used) return false;
  for (tfs_u64 i = 0; i <= sa->mask; i++)
    if (set_active(&sa->table[i]) && !set_lookup((Set *)b.u.o, sa->table[i].key, sa->table[i].hash)) return false;
  return true;
}

/* ---- the type ------------------------------------------------------------------------ */

static void set_free(Obj *o) {
  Set *s = (Set *)o;
  for (tfs_u64 i = 0; i <= s->mask; i++)
    if (set_active(&s->table[i])) val_decref(s->table[i].key);
  free(s->table);
  free(s);
}

static void set_repr(StrBuf *b, Val v) {
  Set *s = (Set *)v.u.o;
  bool frozen = val_is(v, &frozenset_type);
  if (!s->used) {
    sb_puts(b, frozen ? "frozenset()" : "set()");
    return;
  }
  if (frozen) sb_puts(b, "frozenset(");
  sb_putc(b, '{');
  bool first = true;
  for (tfs_u64 i = 0; i <= s->mask; i++) {
    if (!set_active(&s->table[i])) continue;
    if (!first) sb_puts(b, ", ");
    first = false;
    val_repr(b, s->table[i].key);
  }
  sb_putc(b, '}');
  if (frozen) sb_putc(b, ')');
}

static tfs_i64 set_len(Val v) { return ((Set *)v.u.o)->used; }

static bool set_eq(Val a, Val b) {
  if (!anyset(b) || !anyset(a)) return false;
  return ((Set *)a.u.o)->used == ((Set *)b.u.o)->used && set_issubset(a, b);
}

static bool set_step(Iter *it, Val *out) {
  Set *s = (Set *)it->src.u.o;
  if (s->used != it->n) {
    it->n = -1;   /* raise once, then stay exhausted */
    rt_throw(ERR_RUNTIME, "Set changed size during iteration");
  }
  Val k;
  if (!set_next(it->src, &it->i, &k)) return false;
  *out = val_incref(k);
  return true;
}

static Val set_iter(Val self) { return iter_new("set_iterator", set_step, self, val_undef(), 0, ((Set *)self.u.o)->used); }

/* | & - ^ between two sets; anything else is NotImplemented. */
static Val set_binop(int op, Val a, Val b) {
  if (!anyset(a) || !anyset(b)) return val_undef();
  switch (op) {
    case BIN_BITOR: {
      Val r = set_copy(a);
      set_merge((Set *)r.u.o, (Set *)b.u.o);
      return r;
    }
    case BIN_BITAND: return set_intersection(a, b);
    case BIN_SUB: return set_difference(a, b);
    case BIN_BITXOR: return set_symmetric_difference(a, b);
    default: return val_undef();
  }
}

/* Ordering is inclusion: a <= b when a is a subset of b. */
static Val set_compare(int op, Val a, Val b) {
  if (!anyset(a) || !anyset(b)) return val_undef();
  tfs_i64 na = ((Set *)a.u.o)->used, nb = ((Set *)b.u.o)->used;
  switch (op) {
    case CMP_LT: return val_bool(na < nb && set_issubset(a, b));
    case CMP_LE: return val_bool(set_issubset(a, b));
    case CMP_GT: return val_bool(nb < na && set_issubset(b, a));
    case CMP_GE: return val_bool(set_issubset(b, a));
    case CMP_EQ: return val_bool(set_eq(a, b));
    case CMP_NE: return val_bool(!set_eq(a, b));
    default: return val_undef();
  }
}

static Val set_getattr(Val self, const char *name) { return setmethods_get(self, name); }

/* The cycle collector's view (gc.c). */
static void set_traverse(Obj *o, GcVisit visit, void *arg) {
  Set *s = (Set *)o;
  if (!s->table) return;   /* a constructor that ran out of memory */
  for (tfs_u64 i = 0; i <= s->mask; i++)
    if (set_active(&s->table[i])) visit(s->table[i].key, true, arg);
}

static void set_gc_clear(Obj *o) {
  Set *s = (Set *)o;
  if (!s->table) return;
  for (tfs_u64 i = 0; i <= s->mask; i++) {
    if (!set_active(&s->table[i])) continue;
    Val k = s->table[i].key;
    s->table[i].key = val_undef();   /* unused */
    val_decref(k);
  }
  s->fill = s->used = 0;
}

const Type set_type = {
  .name = "set",
  .free = set_free, .traverse = set_traverse, .clear = set_gc_clear,
  .repr = set_repr,
  .getattr = set_getattr,
  .iter = set_iter,
  .len = set_len,
  .binop = set_binop,
  .compare = set_compare,
  .eq = set_eq,
};

/* CPython 3.11's frozenset_hash: the entries' hashes shuffled and xor-ed (order-free), then
 * the size folded in and the bits dispersed, so hash(frozenset({1, 2})) is CPython's. */
static tfs_u64 shuffle_bits(tfs_u64 h) { return ((h ^ 89869747ULL) ^ (h << 16)) * 3644798167ULL; }

static int64_t frozen_hash(const Set *s) {
  tfs_u64 h = 0;
  for (tfs_u64 i = 0; i <= s->mask; i++)
    if (set_active(&s->table[i])) h ^= shuffle_bits((tfs_u64)s->table[i].hash);
  h ^= ((tfs_u64)s->used + 1) * 1927868237ULL;
  h ^= (h >> 11) ^ (h >> 25);
  h = h * 69069U + 907133923ULL;
  return h == (tfs_u64)-1 ? 590923713 : (int64_t)h;
}

int64_t frozenset_pyhash(Val v) { return frozen_hash((Set *)v.u.o); }

static tfs_u64 frozenset_hash(Val v) { return (tfs_u64)frozen_hash((Set *)v.u.o); }

static Val frozenset_getattr(Val self, const char *name) { return setmethods_get(self, name); }

/* The immutable set: the same table, no mutating method, hashable. */
const Type frozenset_type = {
  .name = "frozenset",
  .free = set_free, .traverse = set_traverse, .clear = set_gc_clear,
  .repr = set_repr,
  .getattr = frozenset_getattr,
  .iter = set_iter,
  .len = set_len,
  .binop = set_binop,
  .compare = set_compare,
  .eq = set_eq,
  .hash = frozenset_hash,
};

/* frozenset(it) (VT_UNDEF: frozenset()): a frozenset is its own copy, as in CPython. */
Val frozenset_from_iterable(Val it) {
  if (val_is(it, &frozenset_type)) return val_incref(it);
  Val r = set_new();
  int mark = rt_hold_val(r);
  if (!val_is_undef(it)) set_update(r, it);
  rt_unhold(mark);
  r.u.o->type = &frozenset_type;
  return r;
}

/* ---- generated code's entry points ------------------------------------------------------ */

Val rt_set(int n, const Val *items) {
  Val s = set_new();
  int mark = rt_hold_val(s);
  for (int i = 0; i < n; i++) set_add(s, items[i]);
  rt_unhold(mark);
  return s;
}

/* One element of a list, set or generator comprehension. */
void rt_comp_add(Val acc, Val v) {
  if (val_is(acc, &set_type)) set_add(acc, v);
  else list_append(acc, v);
}
