/* hostops.c — Python operators on host values, after the operands' own slots (tensors), like __op__/__rop__. */
#define _GNU_SOURCE   /* memmem */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/bigint.h"
#include "object/bigrange.h"
#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* ORDER BINOP */
static const char *const hop_sym[BIN__COUNT] = {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"};
static const char *const hop_isym[BIN__COUNT] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "<<=", ">>=", "&=", "|=", "^="};
/* ORDER CMP */
static const char *const hop_cmpsym[] = {"<", "<=", ">", ">=", "==", "!="};

/* ---- int -------------------------------------------------------------------- */

/* false: a**b leaves int64 */
static bool hop_ipow(int64_t a, int64_t b, int64_t *out) {
  int64_t r = 1;
  while (b > 0) {
    if (b & 1)
      if (__builtin_mul_overflow(r, a, &r)) return false;
    b >>= 1;
    if (b && __builtin_mul_overflow(a, a, &a)) return false;
  }
  *out = r;
  return true;
}

/* Python's int operators; a result beyond int64 is computed again in GMP (bigint.c) */
static Val hop_int(int op, int64_t a, int64_t b) {
  int64_t r;
#define hop_overflow() return bigint_binop(op, val_int(a), val_int(b))
  switch (op) {
    case BIN_ADD:
      if (__builtin_add_overflow(a, b, &r)) hop_overflow();
      return val_int(r);
    case BIN_SUB:
      if (__builtin_sub_overflow(a, b, &r)) hop_overflow();
      return val_int(r);
    case BIN_MUL:
      if (__builtin_mul_overflow(a, b, &r)) hop_overflow();
      return val_int(r);
    case BIN_DIV:
      if (b == 0) rt_throw(ERR_ZERODIV, "division by zero");
      /* exact operands give Python's one rounding; wider ones take the exact quotient (bigint.c's true_div) */
      if (a >= -(INT64_C(1) << 53) && a <= (INT64_C(1) << 53) && b >= -(INT64_C(1) << 53) && b <= (INT64_C(1) << 53))
        return val_float((double)a / (double)b);
      hop_overflow();
    case BIN_FLOORDIV: {
      if (b == 0) rt_throw(ERR_ZERODIV, "integer division or modulo by zero");
      if (a == INT64_MIN && b == -1) hop_overflow();
      int64_t q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) q--;
      return val_int(q);
    }
    case BIN_MOD: {
      if (b == 0) rt_throw(ERR_ZERODIV, "integer modulo by zero");
      if (b == -1) return val_int(0);
      int64_t m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return val_int(m);
    }
    case BIN_POW:
      if (b < 0) {
        if (a == 0) rt_throw(ERR_ZERODIV, "0.0 cannot be raised to a negative power");
        return val_float(pow((double)a, (double)b));
      }
      if (!hop_ipow(a, b, &r)) hop_overflow();
      return val_int(r);
    case BIN_LSHIFT:
      if (b < 0) rt_throw(ERR_VALUE, "negative shift count");
      if (a == 0) return val_int(0);
      if (b >= 64) hop_overflow();
      r = (int64_t)((uint64_t)a << b);
      if ((r >> b) != a) hop_overflow();
      return val_int(r);
    case BIN_RSHIFT:
      if (b < 0) rt_throw(ERR_VALUE, "negative shift count");
      if (b >= 63) return val_int(a < 0 ? -1 : 0);
      return val_int(a >> b);
    case BIN_BITAND: return val_int(a & b);
    case BIN_BITOR: return val_int(a | b);
    case BIN_BITXOR: return val_int(a ^ b);
    default: return val_undef();
  }
#undef hop_overflow
}

/* ---- float (Python's float_floor_div / float_rem / float_pow) ---------------- */

static Val hop_float(int op, double a, double b) {
  switch (op) {
    case BIN_ADD: return val_float(a + b);
    case BIN_SUB: return val_float(a - b);
    case BIN_MUL: return val_float(a * b);
    case BIN_DIV:
      if (b == 0) rt_throw(ERR_ZERODIV, "float division by zero");
      return val_float(a / b);
    case BIN_FLOORDIV: {
      if (b == 0) rt_throw(ERR_ZERODIV, "float floor division by zero");
      double mod = fmod(a, b), div = (a - mod) / b;
      if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
      double fl;
      if (div != 0) {
        fl = floor(div);
        if (div - fl > 0.5) fl += 1.0;
      } else {
        fl = copysign(0.0, a / b);
      }
      return val_float(fl);
    }
    case BIN_MOD: {
      if (b == 0) rt_throw(ERR_ZERODIV, "float modulo");
      double mod = fmod(a, b);
      if (mod != 0) {
        if ((b < 0) != (mod < 0)) mod += b;
      } else {
        mod = copysign(0.0, b);
      }
      return val_float(mod);
    }
    case BIN_POW: {
      if (a == 0 && b < 0) rt_throw(ERR_ZERODIV, "0.0 cannot be raised to a negative power");
      if (a < 0 && isfinite(a) && isfinite(b) && b != floor(b)) return complex_float_pow(a, b);   /* complex, as Python 3 */
      double r = pow(a, b);
      if (isinf(r) && isfinite(a) && isfinite(b)) rt_throw(ERR_OVERFLOW, "(34, 'Numerical result out of range')");
      return val_float(r);
    }
    default: return val_undef();
  }
}

/* ---- sequences ------------------------------------------------------------------ */

static bool hop_is_intlike(Val v) { return v.tag == VT_INT || v.tag == VT_BOOL; }

static Val hop_concat(Val a, Val b) {
  if (val_is(a, &str_type)) {
    return str_concat(str_cstr(a), str_len(a), str_cstr(b), str_len(b));
  }
  tfs_i64 na, nb;
  const Val *ia, *ib;
  seq_items(a, &na, &ia);
  seq_items(b, &nb, &ib);
  if (val_is(a, &list_type)) {
    Val l = list_new(na + nb);
    for (tfs_i64 i = 0; i < na; i++) list_append(l, ia[i]);
    for (tfs_i64 i = 0; i < nb; i++) list_append(l, ib[i]);
    return l;
  }
  Val t = tuple_new(na + nb);
  Tuple *tp = (Tuple *)t.u.o;
  for (tfs_i64 i = 0; i < na; i++) tp->items[i] = val_incref(ia[i]);
  for (tfs_i64 i = 0; i < nb; i++) tp->items[na + i] = val_incref(ib[i]);
  return t;
}

static Val hop_repeat(Val seq, int64_t n) {
  if (n < 0) n = 0;
  if (val_is(seq, &str_type)) {
    tfs_i64 total;
    if (__builtin_mul_overflow(str_len(seq), n, &total)) rt_throw(ERR_OVERFLOW, "repeated string is too long");
    if (total > ((tfs_i64)1 << 36)) rt_throw(ERR_MEMORY, "%s", "");
    StrBuf b;
    sb_init(&b);
    sb_fill(&b, str_cstr(seq), (size_t)str_len(seq), (size_t)n);
    total = (tfs_i64)b.len;
    return str_take(sb_steal(&b), total);
  }
  tfs_i64 len, total;
  const Val *items;
  seq_items(seq, &len, &items);
  if (__builtin_mul_overflow(len, n, &total) || total > ((tfs_i64)1 << 36)) rt_throw(ERR_MEMORY, "%s", "");
  if (val_is(seq, &list_type)) {
    Val l = list_new(total);
    for (int64_t k = 0; k < n; k++)
      for (tfs_i64 i = 0; i < len; i++) list_append(l, items[i]);
    return l;
  }
  Val t = tuple_new(total);
  Tuple *tp = (Tuple *)t.u.o;
  for (int64_t k = 0; k < n; k++)
    for (tfs_i64 i = 0; i < len; i++) tp->items[k * len + i] = val_incref(items[i]);
  return t;
}

static bool hop_is_seq(Val v) {
  return val_is(v, &str_type) || val_is(v, &list_type) || val_is(v, &tuple_type);
}

/* ---- dispatch ----------------------------------------------------------------------- */

/* Try the operand objects' own slots, left then right. */
static Val hop_slot_binop(int op, Val a, Val b) {
  /* a user object on the right goes first (Tensor + obj: TF's operators
   * return NotImplemented for what they cannot convert) */
  if (val_is(b, &inst_type) && !val_is(a, &inst_type)) {
    Val r = b.u.o->type->binop(op, a, b);
    if (!val_is_undef(r)) return r;
  }
  if (a.tag == VT_OBJ && a.u.o->type->binop) {
    Val r = a.u.o->type->binop(op, a, b);
    if (!val_is_undef(r)) return r;
  }
  if (b.tag == VT_OBJ && b.u.o->type->binop && (a.tag != VT_OBJ || b.u.o->type != a.u.o->type)) {
    Val r = b.u.o->type->binop(op, a, b);
    if (!val_is_undef(r)) return r;
  }
  return val_undef();
}

static Val hop_host_binop(int op, Val a, Val b, const char *sym) {
  bool na = a.tag == VT_INT || a.tag == VT_BOOL || a.tag == VT_FLOAT;
  bool nb = b.tag == VT_INT || b.tag == VT_BOOL || b.tag == VT_FLOAT;
  if (na && nb) {
    if (a.tag == VT_BOOL && b.tag == VT_BOOL && (op == BIN_BITAND || op == BIN_BITOR || op == BIN_BITXOR)) {
      int64_t r = op == BIN_BITAND ? (a.u.i & b.u.i) : op == BIN_BITOR ? (a.u.i | b.u.i) : (a.u.i ^ b.u.i);
      return val_bool(r != 0);
    }
    if (op == BIN_MATMUL) return val_undef();
    if (a.tag != VT_FLOAT && b.tag != VT_FLOAT) return hop_int(op, a.u.i, b.u.i);
    double x = a.tag == VT_FLOAT ? a.u.f : (double)a.u.i;
    double y = b.tag == VT_FLOAT ? b.u.f : (double)b.u.i;
    return hop_float(op, x, y);
  }
  if (op == BIN_ADD && hop_is_seq(a)) {
    if (b.tag == VT_OBJ && b.u.o->type == a.u.o->type) return hop_concat(a, b);
    rt_throw(ERR_TYPE, "can only concatenate %s (not \"%s\") to %s", val_type_name(a), val_type_name(b),
             val_type_name(a));
  }
  if (op == BIN_MUL && (hop_is_seq(a) || hop_is_seq(b))) {
    Val seq = hop_is_seq(a) ? a : b, n = hop_is_seq(a) ? b : a;
    if (hop_is_intlike(n)) return hop_repeat(seq, n.u.i);
    if (bigint_is_wide(n)) rt_throw(ERR_OVERFLOW, "cannot fit 'int' into an index-sized integer");
    if (hop_is_seq(a) || !nb)
      rt_throw(ERR_TYPE, "can't multiply sequence by non-int of type '%s'", val_type_name(n));
  }
  if (op == BIN_MOD && val_is(a, &str_type)) return format_percent(a, b);
  if (op == BIN_POW)
    rt_throw(ERR_TYPE, "unsupported operand type(s) for %s or pow(): '%s' and '%s'", sym, val_type_name(a),
             val_type_name(b));
  rt_throw(ERR_TYPE, "unsupported operand type(s) for %s: '%s' and '%s'", sym, val_type_name(a), val_type_name(b));
}

Val rt_binop(int op, Val a, Val b) {
  if (a.tag == VT_INT && b.tag == VT_INT && op != BIN_MATMUL) return hop_int(op, a.u.i, b.u.i);
  if (a.tag == VT_FLOAT && b.tag == VT_FLOAT) {
    Val r = hop_float(op, a.u.f, b.u.f);
    if (!val_is_undef(r)) return r;
  }
  if (op < 0 || op >= BIN__COUNT) rt_throw(ERR_RUNTIME, "bad binary operator %d", op);
  /* str % x formats whatever x is (a tensor's __rmod__ is not asked first: str is no Tensor subclass) */
  if (op == BIN_MOD && val_is(a, &str_type)) return format_percent(a, b);
  Val r = hop_slot_binop(op, a, b);
  if (!val_is_undef(r)) return r;
  r = hop_host_binop(op, a, b, hop_sym[op]);
  if (val_is_undef(r))
    rt_throw(ERR_TYPE, "unsupported operand type(s) for %s: '%s' and '%s'", hop_sym[op], val_type_name(a),
             val_type_name(b));
  return r;
}

Val rt_inplace(int op, Val a, Val b) {
  if (op < 0 || op >= BIN__COUNT) rt_throw(ERR_RUNTIME, "bad binary operator %d", op);
  if (val_is(a, &list_type)) {
    if (op == BIN_ADD) {
      list_extend(a, b);
      return val_incref(a);
    }
    if (op == BIN_MUL && hop_is_intlike(b)) {
      List *l = (List *)a.u.o;
      tfs_i64 len = l->len, n = b.u.i < 0 ? 0 : b.u.i;
      if (n == 0) {
        for (tfs_i64 i = 0; i < len; i++) val_decref(l->items[i]);
        l->len = 0;
      }
      for (tfs_i64 k = 1; k < n; k++)
        for (tfs_i64 i = 0; i < len; i++) list_append(a, l->items[i]);
      return val_incref(a);
    }
  }
  if (val_is(a, &set_type) && val_is(b, &set_type)) {   /* s |= t mutates s */
    if (op == BIN_BITOR) set_update(a, b);
    else if (op == BIN_BITXOR) set_symmetric_update(a, b);
    else if (op == BIN_BITAND) set_intersection_update(a, b);
    else if (op == BIN_SUB) set_difference_update(a, b);
    if (op == BIN_BITOR || op == BIN_BITXOR || op == BIN_BITAND || op == BIN_SUB) return val_incref(a);
  }
  if (a.tag == VT_INT && b.tag == VT_INT && op != BIN_MATMUL) return hop_int(op, a.u.i, b.u.i);
  if (a.tag == VT_OBJ && a.u.o->type->inplace) {
    Val r = a.u.o->type->inplace(op, a, b);
    if (!val_is_undef(r)) return r;
  }
  Val r = hop_slot_binop(op, a, b);
  if (!val_is_undef(r)) return r;
  r = hop_host_binop(op, a, b, hop_isym[op]);
  if (val_is_undef(r))
    rt_throw(ERR_TYPE, "unsupported operand type(s) for %s: '%s' and '%s'", hop_isym[op], val_type_name(a),
             val_type_name(b));
  return r;
}

Val rt_unop(int op, Val a) {
  if (op == UN_NOT) return val_bool(!rt_truthy(a));
  static const char *const sym[] = {"-", "+", "~"};
  if (op < 0 || op > UN_INVERT) rt_throw(ERR_RUNTIME, "bad unary operator %d", op);
  switch (a.tag) {
    case VT_BOOL:
    case VT_INT:
      if (op == UN_NEG) {
        if (a.u.i == INT64_MIN) return bigint_unop(UN_NEG, a);
        return val_int(-a.u.i);
      }
      if (op == UN_POS) return val_int(a.u.i);
      return val_int(~a.u.i);
    case VT_FLOAT:
      if (op == UN_NEG) return val_float(-a.u.f);
      if (op == UN_POS) return a;
      break;
    case VT_OBJ:
      if (a.u.o->type->unop) {
        Val r = a.u.o->type->unop(op, a);
        if (!val_is_undef(r)) return r;
      }
      break;
    default: break;
  }
  rt_throw(ERR_TYPE, "bad operand type for unary %s: '%s'", sym[op], val_type_name(a));
}

/* ---- comparisons ------------------------------------------------------------------------ */

static bool hop_cmp_result(int op, int c) {
  switch (op) {
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    case CMP_GE: return c >= 0;
    case CMP_EQ: return c == 0;
    default: return c != 0;
  }
}

static int hop_memcmp(const char *a, tfs_i64 na, const char *b, tfs_i64 nb) {
  int c = memcmp(a, b, (size_t)(na < nb ? na : nb));
  if (c) return c < 0 ? -1 : 1;
  return na < nb ? -1 : na > nb;
}

static bool hop_identical(Val a, Val b) {
  if (a.tag != b.tag) return false;
  if (a.tag == VT_OBJ) return a.u.o == b.u.o;
  if (a.tag == VT_FLOAT) return memcmp(&a.u.f, &b.u.f, sizeof(double)) == 0;
  return a.u.i == b.u.i;
}

Val rt_compare(int op, Val a, Val b) {
  switch (op) {
    case CMP_IS: return val_bool(hop_identical(a, b));
    case CMP_ISNOT: return val_bool(!hop_identical(a, b));
    case CMP_IN: return val_bool(contains(b, a));
    case CMP_NOTIN: return val_bool(!contains(b, a));
    default: break;
  }
  if (op < CMP_LT || op > CMP_NE) rt_throw(ERR_RUNTIME, "bad comparison %d", op);
  bool na = a.tag == VT_INT || a.tag == VT_BOOL || a.tag == VT_FLOAT;
  bool nb = b.tag == VT_INT || b.tag == VT_BOOL || b.tag == VT_FLOAT;
  if (na && nb) {
    int c = num_cmp(a, b);
    if (c == 2) return val_bool(op == CMP_NE);
    return val_bool(hop_cmp_result(op, c));
  }
  if (a.tag == VT_OBJ && a.u.o->type->compare) {
    Val r = a.u.o->type->compare(op, a, b);
    if (!val_is_undef(r)) return r;
  }
  if (b.tag == VT_OBJ && b.u.o->type->compare && (a.tag != VT_OBJ || a.u.o->type != b.u.o->type)) {
    Val r = b.u.o->type->compare(op, a, b);
    if (!val_is_undef(r)) return r;
  }
  if (val_is(a, &str_type) && val_is(b, &str_type))
    return val_bool(hop_cmp_result(op, hop_memcmp(str_cstr(a), str_len(a), str_cstr(b), str_len(b))));
  if ((val_is(a, &list_type) || val_is(a, &tuple_type)) && b.tag == VT_OBJ && b.u.o->type == a.u.o->type) {
    tfs_i64 n1, n2;
    const Val *i1, *i2;
    seq_items(a, &n1, &i1);
    seq_items(b, &n2, &i2);
    tfs_i64 i = 0;
    while (i < n1 && i < n2 && val_eq(i1[i], i2[i])) i++;
    if (i >= n1 || i >= n2) return val_bool(hop_cmp_result(op, n1 < n2 ? -1 : n1 > n2));
    if (op == CMP_EQ) return val_bool(false);
    if (op == CMP_NE) return val_bool(true);
    Val x = i1[i], y = i2[i];   /* the items stay alive: the containers hold them */
    rt_rec_enter(" in comparison");
    Val r = rt_compare(op, x, y);
    rt_rec_leave();
    return r;
  }
  if (op == CMP_EQ) return val_bool(val_eq(a, b));
  if (op == CMP_NE) return val_bool(!val_eq(a, b));
  rt_throw(ERR_TYPE, "'%s' not supported between instances of '%s' and '%s'", hop_cmpsym[op], val_type_name(a),
           val_type_name(b));
}

/* ---- membership ---------------------------------------------------------------------------- */

bool contains(Val c, Val x) {
  if (val_is(c, &inst_type)) {
    int r = inst_contains(c, x);
    if (r >= 0) return r;
  }
  if (val_is(c, &bytes_type) || val_is(c, &bytearray_type)) return bytes_contains(c, x);
  if (val_is(c, &str_type)) {
    if (!val_is(x, &str_type))
      rt_throw(ERR_TYPE, "'in <string>' requires string as left operand, not %s", val_type_name(x));
    if (str_len(x) == 0) return true;
    return memmem(str_cstr(c), (size_t)str_len(c), str_cstr(x), (size_t)str_len(x)) != NULL;
  }
  tfs_i64 n;
  const Val *items;
  if (seq_items(c, &n, &items)) {
    for (tfs_i64 i = 0; i < n; i++)
      if (val_eq(items[i], x)) return true;
    return false;
  }
  if (val_is(c, &set_type) || val_is(c, &frozenset_type)) return set_contains(c, x);
  if (val_is(c, &dict_type)) {
    Val v = dict_get(c, x);
    if (val_is_undef(v)) return false;
    val_decref(v);
    return true;
  }
  if (val_is(c, &range_type)) {
    Range *r = (Range *)c.u.o;
    int64_t i;
    if (range_is_big(r) || bigint_is_wide(x)) {
      Val k = range_find(r, x);
      val_decref(k);
      return k.tag != VT_NONE;
    }
    if (x.tag == VT_FLOAT) {
      if (x.u.f != floor(x.u.f) || fabs(x.u.f) >= 9.2e18) return false;
      i = (int64_t)x.u.f;
    } else if (x.tag == VT_INT || x.tag == VT_BOOL) {
      i = x.u.i;
    } else {
      return false;
    }
    if (r->step > 0 ? (i < r->start || i >= r->stop) : (i > r->start || i <= r->stop)) return false;
    return ((__int128)i - r->start) % r->step == 0;
  }
  if (c.tag == VT_OBJ && c.u.o->type->iter) {
    Val it = rt_iter(c), item;
    int mark = rt_hold_val(it);
    bool found = false;
    while (!found && rt_next(it, &item)) {
      found = val_eq(item, x);
      val_decref(item);
    }
    rt_unhold(mark);
    val_decref(it);
    return found;
  }
  rt_throw(ERR_TYPE, "argument of type '%s' is not iterable", val_type_name(c));
}
