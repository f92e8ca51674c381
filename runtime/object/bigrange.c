/* bigrange.c — range objects of any size: bounds, length, indexing, slicing, membership on GMP when int64 is not enough. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/bigint.h"
#include "object/bigrange.h"
#include "object/value.h"

typedef struct BigRange {
  Range r;   /* r.step == 0 marks the big form */
  mpz_t start, stop, step, len;
} BigRange;

#define BR(r) ((BigRange *)(r))

/* len = the number of items of range(start, stop, step), step != 0 */
static void br_count(mpz_t len, const mpz_t start, const mpz_t stop, const mpz_t step) {
  if (mpz_sgn(step) > 0 ? mpz_cmp(start, stop) >= 0 : mpz_cmp(start, stop) <= 0) {
    mpz_set_ui(len, 0);
    return;
  }
  /* (stop - start - sign) // step + 1, both differences of step's sign */
  mpz_sub(len, stop, start);
  if (mpz_sgn(step) > 0) mpz_sub_ui(len, len, 1);
  else mpz_add_ui(len, len, 1);
  mpz_tdiv_q(len, len, step);
  mpz_add_ui(len, len, 1);
}

/* the range of z[0..3) = start, stop, step: a plain Range when everything fits int64 (t holds 4 temporaries) */
static Val br_make(BigTmp *t) {
  mpz_t *z = t->z;
  if (mpz_sgn(z[2]) == 0) rt_throw(ERR_VALUE, "range() arg 3 must not be zero");
  br_count(z[3], z[0], z[1], z[2]);
  if (mpz_fits_slong_p(z[0]) && mpz_fits_slong_p(z[1]) && mpz_fits_slong_p(z[2]) && mpz_fits_slong_p(z[3]))
    return range_new(mpz_get_si(z[0]), mpz_get_si(z[1]), mpz_get_si(z[2]));
  BigRange *b = obj_new(&range_type, sizeof(BigRange));
  b->r.start = b->r.stop = b->r.step = 0;
  mpz_init_set(b->start, z[0]);
  mpz_init_set(b->stop, z[1]);
  mpz_init_set(b->step, z[2]);
  mpz_init_set(b->len, z[3]);
  return val_obj(b);
}

/* the bounds of r as mpz values */
static void br_get(Range *r, mpz_t start, mpz_t stop, mpz_t step, mpz_t len) {
  if (range_is_big(r)) {
    mpz_set(start, BR(r)->start), mpz_set(stop, BR(r)->stop), mpz_set(step, BR(r)->step), mpz_set(len, BR(r)->len);
    return;
  }
  mpz_set_si(start, r->start), mpz_set_si(stop, r->stop), mpz_set_si(step, r->step);
  br_count(len, start, stop, step);
}

Val range_from_args(int n, const Val *args) {
  bool wide = false;
  for (int i = 0; i < n; i++) wide |= bigint_is_wide(args[i]);
  if (!wide) {   /* the usual case: int64 bounds, a length that fits */
    int64_t a = val_to_index(args[0], NULL);
    if (n == 1) return range_new(0, a, 1);
    int64_t b = val_to_index(args[1], NULL), c = n == 3 ? val_to_index(args[2], NULL) : 1;
    __int128 len = 0;
    if (c > 0 && a < b) len = ((__int128)b - a - 1) / c + 1;
    else if (c < 0 && a > b) len = ((__int128)a - b - 1) / -(__int128)c + 1;
    if (len <= INT64_MAX) return range_new(a, b, c);
  }
  BigTmp t;
  int mark = bigtmp_init(&t, 4);
  if (n == 1) {
    bigint_index(args[0], t.z[1]);
    mpz_set_ui(t.z[2], 1);
  } else {
    bigint_index(args[0], t.z[0]);
    bigint_index(args[1], t.z[1]);
    if (n == 3) bigint_index(args[2], t.z[2]);
    else mpz_set_ui(t.z[2], 1);
  }
  Val r = br_make(&t);
  bigtmp_done(&t, mark);
  return r;
}

void bigrange_free(Range *r) { mpz_clears(BR(r)->start, BR(r)->stop, BR(r)->step, BR(r)->len, NULL); }

static void br_put(StrBuf *b, const mpz_t z) {
  char *s = mpz_get_str(NULL, 10, z);
  sb_puts(b, s);
  void (*gfree)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &gfree);
  gfree(s, strlen(s) + 1);
}

void bigrange_repr(StrBuf *b, Range *r) {
  sb_puts(b, "range(");
  br_put(b, BR(r)->start);
  sb_puts(b, ", ");
  br_put(b, BR(r)->stop);
  if (mpz_cmp_ui(BR(r)->step, 1) != 0) {
    sb_puts(b, ", ");
    br_put(b, BR(r)->step);
  }
  sb_putc(b, ')');
}

bool bigrange_nonempty(Range *r) { return mpz_sgn(BR(r)->len) != 0; }

tfs_i64 bigrange_len(Range *r) {
  if (!mpz_fits_slong_p(BR(r)->len)) rt_throw(ERR_OVERFLOW, "Python int too large to convert to C ssize_t");
  return mpz_get_si(BR(r)->len);
}

/* z = a clamped slice part (CPython's _PySlice_GetLongIndices): None gives dflt */
static void br_part(Val v, mpz_t z, const mpz_t dflt, const mpz_t len, const mpz_t lower, const mpz_t upper) {
  if (v.tag == VT_NONE) {
    mpz_set(z, dflt);
    return;
  }
  if (!bigint_get(v, z)) {
    int64_t i;
    if (!val_as_int(v, &i)) rt_throw(ERR_TYPE, "slice indices must be integers or None or have an __index__ method");
    mpz_set_si(z, i);
  }
  if (mpz_sgn(z) < 0) {
    mpz_add(z, z, len);
    if (mpz_cmp(z, lower) < 0) mpz_set(z, lower);
  } else if (mpz_cmp(z, upper) > 0) mpz_set(z, upper);
}

static Val br_slice(Range *r, Val key) {
  Slice *s = (Slice *)key.u.o;
  BigTmp t, u;
  int mark = bigtmp_init(&t, 4), mark2 = bigtmp_init(&u, 4);
  mpz_t *rs = &u.z[0], *rst = &u.z[1], *len = &u.z[2], *lower = &u.z[3], *upper = &t.z[3];
  br_get(r, *rs, t.z[1], *rst, *len);
  mpz_t *start = &t.z[0], *stop = &t.z[1], *step = &t.z[2];
  mpz_set_ui(*step, 1);
  if (s->step.tag != VT_NONE) {
    if (!bigint_get(s->step, *step)) {
      int64_t i;
      if (!val_as_int(s->step, &i)) rt_throw(ERR_TYPE, "slice indices must be integers or None or have an __index__ method");
      mpz_set_si(*step, i);
    }
  }
  if (mpz_sgn(*step) == 0) rt_throw(ERR_VALUE, "slice step cannot be zero");
  bool neg = mpz_sgn(*step) < 0;
  mpz_set_si(*lower, neg ? -1 : 0);
  mpz_set(*upper, *len);
  if (neg) mpz_sub_ui(*upper, *upper, 1);
  br_part(s->lo, *start, neg ? *upper : *lower, *len, *lower, *upper);
  br_part(s->hi, *stop, neg ? *lower : *upper, *len, *lower, *upper);
  /* range(r.start + start * r.step, r.start + stop * r.step, r.step * step) */
  mpz_mul(*start, *start, *rst);
  mpz_add(*start, *start, *rs);
  mpz_mul(*stop, *stop, *rst);
  mpz_add(*stop, *stop, *rs);
  mpz_mul(*step, *step, *rst);
  bigtmp_done(&u, mark2);
  Val res = br_make(&t);
  bigtmp_done(&t, mark);
  return res;
}

Val range_item(Val self, Val key) {
  Range *r = (Range *)self.u.o;
  if (val_is(key, &slice_type)) return br_slice(r, key);
  BigTmp t;
  int mark = bigtmp_init(&t, 4);
  if (!bigint_get(key, t.z[0])) mpz_set_si(t.z[0], val_to_index(key, "range indices"));
  br_get(r, t.z[1], t.z[2], t.z[3], t.z[2]);   /* start, len (stop unused), step */
  if (mpz_sgn(t.z[0]) < 0) mpz_add(t.z[0], t.z[0], t.z[2]);
  if (mpz_sgn(t.z[0]) < 0 || mpz_cmp(t.z[0], t.z[2]) >= 0) rt_throw(ERR_INDEX, "range object index out of range");
  mpz_mul(t.z[0], t.z[0], t.z[3]);
  mpz_add(t.z[0], t.z[0], t.z[1]);
  Val res = bigint_from_mpz(t.z[0]);
  bigtmp_done(&t, mark);
  return res;
}

static bool br_step(Iter *it, Val *out) {
  if (it->i >= it->n) return false;
  BigRange *b = (BigRange *)it->src.u.o;
  mpz_t z;
  mpz_init(z);
  mpz_mul_ui(z, b->step, (unsigned long)it->i++);
  mpz_add(z, z, b->start);
  *out = bigint_from_mpz(z);
  mpz_clear(z);
  return true;
}

Val bigrange_iter(Val self) {
  BigRange *b = (BigRange *)self.u.o;
  tfs_i64 n = mpz_fits_slong_p(b->len) ? mpz_get_si(b->len) : INT64_MAX;   /* 2**63 items are never reached */
  return iter_new("longrange_iterator", br_step, self, val_undef(), 0, n);
}

bool range_eq_any(Range *x, Range *y) {
  BigTmp a, b;
  int ma = bigtmp_init(&a, 4), mb = bigtmp_init(&b, 4);
  br_get(x, a.z[0], a.z[1], a.z[2], a.z[3]);
  br_get(y, b.z[0], b.z[1], b.z[2], b.z[3]);
  bool eq = mpz_cmp(a.z[3], b.z[3]) == 0 &&
            (mpz_sgn(a.z[3]) == 0 || (mpz_cmp(a.z[0], b.z[0]) == 0 && (mpz_cmp_ui(a.z[3], 1) == 0 || mpz_cmp(a.z[2], b.z[2]) == 0)));
  bigtmp_done(&b, mb);
  bigtmp_done(&a, ma);
  return eq;
}

tfs_u64 bigrange_hash(Range *r) {
  BigRange *b = BR(r);
  Val n = bigint_from_mpz(b->len), s = bigint_from_mpz(b->start), st = bigint_from_mpz(b->step);
  tfs_u64 h = val_hash(n) ^ val_hash(s) * 31 ^ val_hash(st) * 1099511628211ULL;
  val_decref(n), val_decref(s), val_decref(st);
  return h;
}

Val bigrange_attr(Range *r, const char *name) {
  if (!strcmp(name, "start")) return bigint_from_mpz(BR(r)->start);
  if (!strcmp(name, "stop")) return bigint_from_mpz(BR(r)->stop);
  if (!strcmp(name, "step")) return bigint_from_mpz(BR(r)->step);
  return val_undef();
}

Val range_find(Range *r, Val x) {
  BigTmp t;
  int mark = bigtmp_init(&t, 4);
  mpz_t k;
  mpz_init(k);
  Val res = val_none();
  bool ok = bigint_get(x, k);
  if (!ok && x.tag == VT_FLOAT && isfinite(x.u.f) && x.u.f == floor(x.u.f)) mpz_set_d(k, x.u.f), ok = true;
  if (ok) {
    br_get(r, t.z[0], t.z[1], t.z[2], t.z[3]);
    mpz_sub(k, k, t.z[0]);
    if (mpz_divisible_p(k, t.z[2])) {
      mpz_divexact(k, k, t.z[2]);
      if (mpz_sgn(k) >= 0 && mpz_cmp(k, t.z[3]) < 0) res = bigint_from_mpz(k);
    }
  }
  mpz_clear(k);
  bigtmp_done(&t, mark);
  return res;
}
