/* u64int.c — Python ints in [2**63, 2**64): what an integer literal or an int-only constant expression above int64 gives (uint64 tensor values); printed, compared and hashed as int, converted to uint64/float tensors. */
#include <stdlib.h>

#include "object/object.h"
#include "object/value.h"

/* tfs's int is int64 and beyond it GMP (bigint.c); values in [2**63, 2**64) are kept as these so that
 * tf.constant(2**64 - 1, tf.uint64) and uint64 tensor values convert both ways.  Their arithmetic is bigint.c's. */
typedef struct U64Int {
  Obj hdr;
  tfs_u64 v;
} U64Int;

Val u64int_new(tfs_u64 v) {
  if (v <= (tfs_u64)INT64_MAX) return val_int((tfs_i64)v);   /* the same int as an int64 one */
  U64Int *o = obj_new(&u64int_type, sizeof(U64Int));
  o->v = v;
  return val_obj(o);
}

Val rt_u64int(tfs_u64 v) { return u64int_new(v); }

bool u64int_value(Val v, tfs_u64 *out) {
  if (!val_is(v, &u64int_type)) return false;
  *out = ((U64Int *)v.u.o)->v;
  return true;
}

static void ui_free(Obj *o) { free(o); }

static void ui_repr(StrBuf *b, Val v) { sb_printf(b, "%llu", (unsigned long long)((U64Int *)v.u.o)->v); }

/* -1: a < b, 0 equal, 1 a > b; false when b is no int or float (a is always a U64Int). */
static bool ui_order(Val a, Val b, int *r) {
  tfs_u64 x = ((U64Int *)a.u.o)->v, y;
  if (b.tag == VT_INT || b.tag == VT_BOOL) { *r = 1; return true; }   /* every int64 is below 2**63 */
  if (b.tag == VT_FLOAT) {
    double d = (double)x;   /* exact enough: a double above 2**63 is an integer */
    *r = d < b.u.f ? -1 : d > b.u.f ? 1 : 0;
    return b.u.f == b.u.f;
  }
  if (!u64int_value(b, &y)) return false;
  *r = x < y ? -1 : x > y;
  return true;
}

static Val ui_compare(int op, Val a, Val b) {
  bool swap = !val_is(a, &u64int_type);
  int r;
  if (!ui_order(swap ? b : a, swap ? a : b, &r)) {
    if (op == CMP_EQ) return val_bool(false);
    if (op == CMP_NE) return val_bool(true);
    return val_undef();
  }
  return int_cmp_result(op, swap ? -r : r);
}

static bool ui_eq(Val a, Val b) {
  int r;
  return ui_order(a, b, &r) && r == 0;
}

/* CPython's hash of an int: its value modulo 2**61 - 1 */
static tfs_u64 ui_hash(Val v) {
  const tfs_u64 m = ((tfs_u64)1 << 61) - 1;
  tfs_u64 x = ((U64Int *)v.u.o)->v;
  return (x & m) + (x >> 61) >= m ? (x & m) + (x >> 61) - m : (x & m) + (x >> 61);
}

const Type u64int_type = {
  .name = "int",
  .free = ui_free,
  .repr = ui_repr,
  .binop = bigint_binop,   /* arithmetic as Python's unbounded ints (bigint.c) */
  .unop = bigint_unop,
  .compare = ui_compare,
  .eq = ui_eq,
  .hash = ui_hash,
  .getattr = num_getattr,   /* bit_length, to_bytes, ... as small ints (nummethods.c) */
};
