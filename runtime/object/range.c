/* range.c — the lazy range type (start stop step count index), slice objects (indices) with Python's index clamping, and the Ellipsis singleton. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/bigint.h"
#include "object/bigrange.h"
#include "object/object.h"
#include "object/value.h"

/* ---- range ------------------------------------------------------------------------ */

static tfs_i64 range_count(tfs_i64 start, tfs_i64 stop, tfs_i64 step) {
  __int128 n = 0;
  if (step > 0 && start < stop) n = ((__int128)stop - start - 1) / step + 1;
  else if (step < 0 && start > stop) n = ((__int128)start - stop - 1) / -(__int128)step + 1;
  return (tfs_i64)n;
}

Val range_new(tfs_i64 start, tfs_i64 stop, tfs_i64 step) {
  if (step == 0) rt_throw(ERR_VALUE, "range() arg 3 must not be zero");
  Range *r = obj_new(&range_type, sizeof(Range));
  r->start = start;
  r->stop = stop;
  r->step = step;
  return val_obj(r);
}

static void range_free(Obj *o) {
  if (range_is_big((Range *)o)) bigrange_free((Range *)o);
  free(o);
}

static void range_repr(StrBuf *b, Val v) {
  Range *r = (Range *)v.u.o;
  if (range_is_big(r)) return bigrange_repr(b, r);
  if (r->step == 1) sb_printf(b, "range(%lld, %lld)", (long long)r->start, (long long)r->stop);
  else sb_printf(b, "range(%lld, %lld, %lld)", (long long)r->start, (long long)r->stop, (long long)r->step);
}

static tfs_i64 range_len(Val v) {
  Range *r = (Range *)v.u.o;
  if (range_is_big(r)) return bigrange_len(r);
  return range_count(r->start, r->stop, r->step);
}

static Val range_getitem(Val self, Val key) {
  Range *r = (Range *)self.u.o;
  if (range_is_big(r) || key.tag != VT_INT) return range_item(self, key);
  tfs_i64 n = range_count(r->start, r->stop, r->step);
  int64_t i = val_to_index(key, "range indices");
  if (i < 0) i += n;
  if (i < 0 || i >= n) rt_throw(ERR_INDEX, "range object index out of range");
  return val_int(r->start + i * r->step);
}

static bool range_step(Iter *it, Val *out) {
  if (it->i >= it->n) return false;
  Range *r = (Range *)it->src.u.o;
  *out = val_int(r->start + it->i++ * r->step);
  return true;
}

static Val range_iter(Val self) {
  if (range_is_big((Range *)self.u.o)) return bigrange_iter(self);
  return iter_new("range_iterator", range_step, self, val_undef(), 0, range_len(self));
}

static bool range_eq(Val a, Val b) {
  Range *x = (Range *)a.u.o, *y = (Range *)b.u.o;
  if (range_is_big(x) || range_is_big(y)) return range_eq_any(x, y);
  tfs_i64 n = range_count(x->start, x->stop, x->step);
  if (n != range_count(y->start, y->stop, y->step)) return false;
  if (n == 0) return true;
  if (x->start != y->start) return false;
  return n == 1 || x->step == y->step;
}

static tfs_u64 range_hash(Val v) {
  Range *r = (Range *)v.u.o;
  if (range_is_big(r)) return bigrange_hash(r);
  tfs_i64 n = range_count(r->start, r->stop, r->step);
  return val_hash(val_int(n)) ^ (n ? val_hash(val_int(r->start)) * 31 : 0) ^ (n > 1 ? (tfs_u64)r->step * 1099511628211ULL : 0);
}

/* Position of x in r, or -1 (x no int, bool or integral float: in no range). */
static tfs_i64 range_pos(Range *r, Val x) {
  double f;
  int64_t i;
  if (x.tag == VT_OBJ) return -1;   /* tensors and other objects: never equal here */
  if (x.tag == VT_FLOAT ? (f = x.u.f, f != floor(f) || fabs(f) >= 9.2e18) : !val_as_int(x, &i)) return -1;
  if (x.tag == VT_FLOAT) i = (int64_t)f;
  __int128 d = (__int128)i - r->start;
  if (d % r->step) return -1;
  __int128 k = d / r->step;
  return k >= 0 && k < range_count(r->start, r->stop, r->step) ? (tfs_i64)k : -1;
}

static Val range_count_m(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "range.count() takes no keyword arguments");
  if (n != 1) rt_throw(ERR_TYPE, "range.count() takes exactly one argument (%d given)", n);
  Range *r = (Range *)self.u.o;
  if (range_is_big(r) || bigint_is_wide(args[0])) {
    Val k = range_find(r, args[0]);
    val_decref(k);
    return val_int(k.tag != VT_NONE);
  }
  return val_int(range_pos(r, args[0]) >= 0);
}

static Val range_index_m(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "range.index() takes no keyword arguments");
  if (n != 1) rt_throw(ERR_TYPE, "range.index() takes exactly one argument (%d given)", n);
  Range *r = (Range *)self.u.o;
  if (range_is_big(r) || bigint_is_wide(args[0])) {
    Val k = range_find(r, args[0]);
    if (k.tag != VT_NONE) return k;
    if (bigint_is_wide(args[0])) {
      StrBuf b;
      sb_init(&b);
      val_repr(&b, args[0]);
      char *msg = sb_steal(&b);
      rt_hold_mem(msg);   /* freed when the error reaches its handler */
      rt_throw(ERR_VALUE, "%s is not in range", msg);
    }
  }
  tfs_i64 k = range_is_big(r) ? -1 : range_pos(r, args[0]);
  if (k >= 0) return val_int(k);
  if (args[0].tag == VT_INT) rt_throw(ERR_VALUE, "%lld is not in range", (long long)args[0].u.i);
  rt_throw(ERR_VALUE, "sequence.index(x): x not in sequence");
}

static Val range_getattr(Val self, const char *name) {
  Range *r = (Range *)self.u.o;
  Val big = range_is_big(r) ? bigrange_attr(r, name) : val_undef();
  if (!val_is_undef(big)) return big;
  if (!strcmp(name, "start")) return val_int(r->start);
  if (!strcmp(name, "stop")) return val_int(r->stop);
  if (!strcmp(name, "step")) return val_int(r->step);
  if (!strcmp(name, "count")) return builtin_new("range.count", range_count_m, self, NULL);
  if (!strcmp(name, "index")) return builtin_new("range.index", range_index_m, self, NULL);
  return val_undef();
}

const Type range_type = {
  .name = "range",
  .free = range_free,
  .repr = range_repr,
  .getattr = range_getattr,
  .getitem = range_getitem,
  .iter = range_iter,
  .len = range_len,
  .eq = range_eq,
  .hash = range_hash,
};

/* ---- slice ------------------------------------------------------------------------------ */

Val rt_slice(Val lo, Val hi, Val step) {
  Slice *s = obj_new(&slice_type, sizeof(Slice));
  s->lo = val_is_undef(lo) ? val_none() : val_incref(lo);
  s->hi = val_is_undef(hi) ? val_none() : val_incref(hi);
  s->step = val_is_undef(step) ? val_none() : val_incref(step);
  return val_obj(s);
}

static void slice_free(Obj *o) {
  Slice *s = (Slice *)o;
  val_decref(s->lo);
  val_decref(s->hi);
  val_decref(s->step);
  free(s);
}

static void slice_repr(StrBuf *b, Val v) {
  Slice *s = (Slice *)v.u.o;
  sb_puts(b, "slice(");
  val_repr(b, s->lo);
  sb_puts(b, ", ");
  val_repr(b, s->hi);
  sb_puts(b, ", ");
  val_repr(b, s->step);
  sb_putc(b, ')');
}

static bool slice_eq(Val a, Val b) {
  Slice *x = (Slice *)a.u.o, *y = (Slice *)b.u.o;
  return val_eq(x->lo, y->lo) && val_eq(x->hi, y->hi) && val_eq(x->step, y->step);
}

/* slice.indices(length): (start, stop, step) clamped to a sequence of that length. */
static Val slice_indices_m(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "slice.indices() takes no keyword arguments");
  if (n != 1) rt_throw(ERR_TYPE, "slice.indices() takes exactly one argument (%d given)", n);
  tfs_i64 len = val_to_index(args[0], NULL), a, z, st;
  if (len < 0) rt_throw(ERR_VALUE, "length should not be negative");
  slice_indices(self, len, &a, &z, &st);
  Val t = tuple_new(3);
  ((Tuple *)t.u.o)->items[0] = val_int(a);
  ((Tuple *)t.u.o)->items[1] = val_int(z);
  ((Tuple *)t.u.o)->items[2] = val_int(st);
  return t;
}

static Val slice_getattr(Val self, const char *name) {
  Slice *s = (Slice *)self.u.o;
  if (!strcmp(name, "indices")) return builtin_new("slice.indices", slice_indices_m, self, NULL);
  if (!strcmp(name, "start")) return val_incref(s->lo);
  if (!strcmp(name, "stop")) return val_incref(s->hi);
  if (!strcmp(name, "step")) return val_incref(s->step);
  return val_undef();
}

const Type slice_type = {
  .name = "slice",
  .free = slice_free,
  .repr = slice_repr,
  .getattr = slice_getattr,
  .eq = slice_eq,
};

static tfs_i64 slice_part(Val v, tfs_i64 dflt) {
  if (v.tag == VT_NONE) return dflt;
  int64_t i;
  if (!val_as_int(v, &i)) rt_throw(ERR_TYPE, "slice indices must be integers or None or have an __index__ method");
  return i;
}

tfs_i64 slice_indices(Val slice, tfs_i64 len, tfs_i64 *start, tfs_i64 *stop, tfs_i64 *step) {
  Slice *s = (Slice *)slice.u.o;
  tfs_i64 st = slice_part(s->step, 1);
  if (st == 0) rt_throw(ERR_VALUE, "slice step cannot be zero");
  if (st < -INT64_MAX) st = -INT64_MAX;
  tfs_i64 a = slice_part(s->lo, st < 0 ? INT64_MAX : 0);
  tfs_i64 z = slice_part(s->hi, st < 0 ? INT64_MIN : INT64_MAX);
  if (a < 0) {
    a += len;
    if (a < 0) a = st < 0 ? -1 : 0;
  } else if (a >= len) {
    a = st < 0 ? len - 1 : len;
  }
  if (z < 0) {
    z += len;
    if (z < 0) z = st < 0 ? -1 : 0;
  } else if (z >= len) {
    z = st < 0 ? len - 1 : len;
  }
  *start = a;
  *stop = z;
  *step = st;
  if (st < 0) return z < a ? (a - z - 1) / -st + 1 : 0;
  return a < z ? (z - a - 1) / st + 1 : 0;
}

/* ---- Ellipsis ------------------------------------------------------------------------------ */

static void ellipsis_repr(StrBuf *b, Val v) { sb_puts(b, "Ellipsis"); }
static void ellipsis_free(Obj *o) {}

const Type ellipsis_type = {
  .name = "ellipsis",
  .free = ellipsis_free,
  .repr = ellipsis_repr,
  .hash = obj_identity_hash,
};

static Obj ellipsis_obj = {TFS_IMMORTAL_RC, &ellipsis_type};

Val rt_ellipsis(void) { return val_obj(&ellipsis_obj); }

/* ---- NotImplemented: what a binary special method returns for operands it does not take ---------------------------- */

static void notimpl_repr(StrBuf *b, Val v) { sb_puts(b, "NotImplemented"); }

const Type notimpl_type = {
  .name = "NotImplementedType",
  .free = ellipsis_free,
  .repr = notimpl_repr,
  .hash = obj_identity_hash,
};

static Obj notimpl_obj = {TFS_IMMORTAL_RC, &notimpl_type};

Val rt_notimplemented(void) { return val_obj(&notimpl_obj); }
