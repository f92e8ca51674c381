/* bytesmethods.c — the searching, splitting and joining methods of bytes and bytearray (find, split, join, strip, ...), as CPython. */
#define _GNU_SOURCE   /* memmem */
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"

static const unsigned char *bm_data(Val v, size_t *n) { return byteslike_data(v, n); }

/* A bytes-like argument. */
static const unsigned char *bm_arg(Val v, size_t *n) {
  const unsigned char *d = byteslike_data(v, n);
  if (!d) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(v));
  return d;
}

/* find/count/index's sub: bytes-like or a byte value. */
static const unsigned char *bm_sub(Val v, size_t *n, unsigned char *one) {
  if (v.tag == VT_INT || v.tag == VT_BOOL) {
    if (v.u.i < 0 || v.u.i > 255) rt_throw(ERR_VALUE, "byte must be in range(0, 256)");
    *one = (unsigned char)v.u.i;
    *n = 1;
    return one;
  }
  const unsigned char *d = byteslike_data(v, n);
  if (!d) rt_throw(ERR_TYPE, "argument should be integer or bytes-like object, not '%s'", val_type_name(v));
  return d;
}

/* The start/end arguments of find, count, startswith...: CPython's slice-index rule (None: the default;
 * negatives count from the end, clamped at 0; end clamped at len, start left past it). */
static void bm_bounds(Val s, Val e, size_t len, int64_t *start, int64_t *end) {
  *start = 0;
  *end = (int64_t)len;
  Val v[2] = {s, e};
  int64_t *out[2] = {start, end};
  for (int k = 0; k < 2; k++) {
    if (val_is_undef(v[k]) || v[k].tag == VT_NONE) continue;
    int64_t i;
    if (!val_as_int(v[k], &i)) rt_throw(ERR_TYPE, "slice indices must be integers or None or have an __index__ method");
    if (i < 0) i = i + (int64_t)len < 0 ? 0 : i + (int64_t)len;
    if (k == 1 && i > (int64_t)len) i = (int64_t)len;
    *out[k] = i;
  }
}

/* Offset of sub in d[from..to), or -1 (last: the rightmost). */
static int64_t bm_search(const unsigned char *d, int64_t from, int64_t to, const unsigned char *s, size_t m, bool last) {
  if (from > to || to - from < (int64_t)m) return -1;
  if (!last) {
    const unsigned char *p = m ? memmem(d + from, (size_t)(to - from), s, m) : d + from;
    return p ? (int64_t)(p - d) : -1;
  }
  for (int64_t i = to - (int64_t)m; i >= from; i--)
    if (!m || !memcmp(d + i, s, m)) return i;
  return -1;
}

/* find/rfind/index/rindex/count's arguments: sub[, start[, end]] -> the bytes, the sub, the bounds. */
static const unsigned char *bm_find_args(ArgSpec *spec, Val self, int n, const Val *args, const Kw *kw, size_t *len,
                                         const unsigned char **s, size_t *m, unsigned char *one, int64_t *st, int64_t *en) {
  Val a[3];
  args_parse(spec, n, args, kw, a);
  const unsigned char *d = bm_data(self, len);
  *s = bm_sub(a[0], m, one);
  bm_bounds(a[1], a[2], *len, st, en);
  return d;
}

#define BM_FIND_SPEC(nm) static ArgSpec bm_spec_##nm = {.what = #nm, .sig = "sub, start=None, end=None"};
BM_FIND_SPEC(find)
BM_FIND_SPEC(rfind)
BM_FIND_SPEC(index)
BM_FIND_SPEC(rindex)
BM_FIND_SPEC(count)

static int64_t bm_find_common(ArgSpec *what, bool last, Val self, int n, const Val *args, const Kw *kw) {
  size_t len, m;
  const unsigned char *s;
  unsigned char one;
  int64_t st, en;
  const unsigned char *d = bm_find_args(what, self, n, args, kw, &len, &s, &m, &one, &st, &en);
  return bm_search(d, st, en, s, m, last);
}

//! bytes.find(sub, start=None, end=None)
//!   The lowest index where sub (bytes or a byte value) occurs within [start, end), or -1.
static Val bm_find(Val self, int n, const Val *args, const Kw *kw) { return val_int(bm_find_common(&bm_spec_find, false, self, n, args, kw)); }

//! bytes.rfind(sub, start=None, end=None)
//!   The highest index where sub (bytes or a byte value) occurs within [start, end), or -1.
static Val bm_rfind(Val self, int n, const Val *args, const Kw *kw) { return val_int(bm_find_common(&bm_spec_rfind, true, self, n, args, kw)); }

//! bytes.index(sub, start=None, end=None)
//!   As find, but ValueError when sub does not occur.
static Val bm_index(Val self, int n, const Val *args, const Kw *kw) {
  int64_t i = bm_find_common(&bm_spec_index, false, self, n, args, kw);
  if (i < 0) rt_throw(ERR_VALUE, "subsection not found");
  return val_int(i);
}

//! bytes.rindex(sub, start=None, end=None)
//!   As rfind, but ValueError when sub does not occur.
static Val bm_rindex(Val self, int n, const Val *args, const Kw *kw) {
  int64_t i = bm_find_common(&bm_spec_rindex, true, self, n, args, kw);
  if (i < 0) rt_throw(ERR_VALUE, "subsection not found");
  return val_int(i);
}

//! bytes.count(sub, start=None, end=None)
//!   How many times sub (bytes or a byte value) occurs within [start, end) without overlapping.
static Val bm_count(Val self, int n, const Val *args, const Kw *kw) {
  size_t len, m;
  const unsigned char *s;
  unsigned char one;
  int64_t st, en;
  const unsigned char *d = bm_find_args(&bm_spec_count, self, n, args, kw, &len, &s, &m, &one, &st, &en);
  if (st > en) return val_int(0);
  if (!m) return val_int(en - st + 1);
  int64_t c = 0;
  for (int64_t i = bm_search(d, st, en, s, m, false); i >= 0; i = bm_search(d, i + (int64_t)m, en, s, m, false)) c++;
  return val_int(c);
}

/* startswith/endswith: bytes-like or a tuple of them, within [start, end). */
static Val bm_affix(Val self, int n, const Val *args, const Kw *kw, bool end) {
  static ArgSpec sspec = {.what = "startswith", .sig = "prefix, start=None, end=None"},
                 espec = {.what = "endswith", .sig = "suffix, start=None, end=None"};
  Val a[3];
  args_parse(end ? &espec : &sspec, n, args, kw, a);
  size_t len;
  const unsigned char *d = bm_data(self, &len);
  int64_t st, en;
  bm_bounds(a[1], a[2], len, &st, &en);
  tfs_i64 cnt = 1;
  const Val *items = a;
  if (val_is(a[0], &tuple_type)) seq_items(a[0], &cnt, &items);
  for (tfs_i64 i = 0; i < cnt; i++) {
    size_t m;
    const unsigned char *s = byteslike_data(items[i], &m);
    if (!s)
      rt_throw(ERR_TYPE, "%s first arg must be bytes or a tuple of bytes, not %s", end ? "endswith" : "startswith",
               val_type_name(items[i]));
    if (st > en || en - st < (int64_t)m) continue;
    if (!m || !memcmp(end ? d + en - (int64_t)m : d + st, s, m)) return val_bool(true);
  }
  return val_bool(false);
}

//! bytes.startswith(prefix, start=None, end=None)
//!   Whether the bytes (within [start, end)) begin with prefix (bytes, or a tuple of bytes: any of them).
static Val bm_startswith(Val self, int n, const Val *args, const Kw *kw) { return bm_affix(self, n, args, kw, false); }

//! bytes.endswith(suffix, start=None, end=None)
//!   Whether the bytes (within [start, end)) end with suffix (bytes, or a tuple of bytes: any of them).
static Val bm_endswith(Val self, int n, const Val *args, const Kw *kw) { return bm_affix(self, n, args, kw, true); }

/* The result of building into b: a value of self's kind. */
static Val bm_from_sb(Val self, StrBuf *b) {
  Val r = byteslike_new(self, b->len ? b->data : "", b->len);
  sb_free(b);
  return r;
}

//! bytes.replace(old, new, count=-1)
//!   A copy with the first count occurrences of old replaced by new (all when count is negative).
static Val bm_replace(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "replace", .sig = "old, new, count=-1"};
  Val a[3];
  args_parse(&spec, n, args, kw, a);
  size_t len, mo, mn;
  const unsigned char *d = bm_data(self, &len);
  const unsigned char *o = bm_arg(a[0], &mo);
  const unsigned char *w = bm_arg(a[1], &mn);
  int64_t count = val_to_index(a[2], NULL);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  size_t at = 0;
  int64_t done = 0;
  if (!mo) {   /* b''.replace: new before every byte and at the end, as CPython */
    for (size_t i = 0; i <= len; i++) {
      if (count < 0 || done < count) sb_putn(&b, (const char *)w, mn), done++;
      if (i < len) sb_putc(&b, (char)d[i]);
    }
    at = len;
  }
  for (; mo && (count < 0 || done < count); done++) {
    int64_t i = bm_search(d, (int64_t)at, (int64_t)len, o, mo, false);
    if (i < 0) break;
    sb_putn(&b, (const char *)d + at, (size_t)i - at);
    sb_putn(&b, (const char *)w, mn);
    at = (size_t)i + mo;
  }
  if (at < len) sb_putn(&b, (const char *)d + at, len - at);
  rt_unhold(mark);
  return bm_from_sb(self, &b);
}

static bool bm_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static void bm_push(Val l, Val self, const unsigned char *d, size_t n) {
  Val p = byteslike_new(self, d, n);
  list_append(l, p);
  val_decref(p);
}

/* split and rsplit: parts between occurrences of sep (runs of ASCII whitespace when None), at most maxsplit cuts. */
static Val bm_split_common(Val self, int n, const Val *args, const Kw *kw, bool right) {
  static ArgSpec spec = {.what = "split", .sig = "sep=None, maxsplit=-1"}, rspec = {.what = "rsplit", .sig = "sep=None, maxsplit=-1"};
  Val a[2];
  args_parse(right ? &rspec : &spec, n, args, kw, a);
  size_t len, m = 0;
  const unsigned char *d = bm_data(self, &len), *s = NULL;
  if (a[0].tag != VT_NONE) s = bm_arg(a[0], &m);
  if (s && !m) rt_throw(ERR_VALUE, "empty separator");
  int64_t maxsplit = val_to_index(a[1], NULL);
  Val l = list_new(0);
  int mark = rt_hold_val(l);
  if (!right) {
    size_t i = 0;
    for (int64_t k = 0;; k++) {
      if (!s) {
        while (i < len && bm_space(d[i])) i++;
        if (i >= len) break;
        size_t j = i;
        if (maxsplit >= 0 && k >= maxsplit) {
          j = len;
          while (j > i && bm_space(d[j - 1])) j--;
        } else {
          while (j < len && !bm_space(d[j])) j++;
        }
        bm_push(l, self, d + i, j - i);
        i = j;
        continue;
      }
      int64_t at = maxsplit >= 0 && k >= maxsplit ? -1 : bm_search(d, (int64_t)i, (int64_t)len, s, m, false);
      size_t e = at < 0 ? len : (size_t)at;
      bm_push(l, self, d + i, e - i);
      if (at < 0) break;
      i = e + m;
    }
  } else {   /* from the right; the parts are collected backwards and reversed */
    size_t j = len;
    for (int64_t k = 0;; k++) {
      if (!s) {
        while (j > 0 && bm_space(d[j - 1])) j--;
        if (!j) break;
        size_t i = j;
        if (maxsplit >= 0 && k >= maxsplit) {
          i = 0;   /* the rest, leading whitespace kept (CPython) */
        } else {
          while (i > 0 && !bm_space(d[i - 1])) i--;
        }
        bm_push(l, self, d + i, j - i);
        j = i;
        continue;
      }
      int64_t at = maxsplit >= 0 && k >= maxsplit ? -1 : bm_search(d, 0, (int64_t)j, s, m, true);
      size_t b = at < 0 ? 0 : (size_t)at + m;
      bm_push(l, self, d + b, j - b);
      if (at < 0) break;
      j = (size_t)at;
    }
    tfs_i64 cnt;
    const Val *items;
    seq_items(l, &cnt, &items);
    Val *it = (Val *)items;
    for (tfs_i64 x = 0, y = cnt - 1; x < y; x++, y--) {
      Val t = it[x];
      it[x] = it[y];
      it[y] = t;
    }
  }
  rt_unhold(mark);
  return l;
}

//! bytes.split(sep=None, maxsplit=-1)
//!   The list of the parts between occurrences of sep; runs of ASCII whitespace when sep is None.
static Val bm_split(Val self, int n, const Val *args, const Kw *kw) { return bm_split_common(self, n, args, kw, false); }

//! bytes.rsplit(sep=None, maxsplit=-1)
//!   As split, but the maxsplit cuts are made from the right.
static Val bm_rsplit(Val self, int n, const Val *args, const Kw *kw) { return bm_split_common(self, n, args, kw, true); }

/* partition and rpartition: (before, sep, after) around the first (last) sep; the bytes and two empties when absent. */
static Val bm_partition_common(Val self, int n, const Val *args, const Kw *kw, bool right) {
  static ArgSpec spec = {.what = "partition", .sig = "sep"}, rspec = {.what = "rpartition", .sig = "sep"};
  Val a[1];
  args_parse(right ? &rspec : &spec, n, args, kw, a);
  size_t len, m;
  const unsigned char *d = bm_data(self, &len), *s = bm_arg(a[0], &m);
  if (!m) rt_throw(ERR_VALUE, "empty separator");
  int64_t at = bm_search(d, 0, (int64_t)len, s, m, right);
  Val p[3];
  if (at < 0) {
    p[0] = byteslike_new(self, right ? (const unsigned char *)"" : d, right ? 0 : len);
    p[1] = byteslike_new(self, "", 0);
    p[2] = byteslike_new(self, right ? d : (const unsigned char *)"", right ? len : 0);
  } else {
    p[0] = byteslike_new(self, d, (size_t)at);
    p[1] = byteslike_new(self, s, m);
    p[2] = byteslike_new(self, d + at + (int64_t)m, len - (size_t)at - m);
  }
  Val t = tuple_pack(3, p[0], p[1], p[2]);
  for (int i = 0; i < 3; i++) val_decref(p[i]);
  return t;
}

//! bytes.partition(sep)
//!   (before, sep, after) around the first occurrence of sep; (the bytes, b'', b'') when it does not occur.
static Val bm_partition(Val self, int n, const Val *args, const Kw *kw) { return bm_partition_common(self, n, args, kw, false); }

//! bytes.rpartition(sep)
//!   (before, sep, after) around the last occurrence of sep; (b'', b'', the bytes) when it does not occur.
static Val bm_rpartition(Val self, int n, const Val *args, const Kw *kw) { return bm_partition_common(self, n, args, kw, true); }

//! bytes.join(iterable)
//!   The items (bytes or bytearray) of iterable joined with these bytes between them.
static Val bm_join(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "join", .sig = "iterable_of_bytes"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Val l = list_from_iterable(a[0]);
  int mark = rt_hold_val(l);
  tfs_i64 cnt;
  const Val *items;
  seq_items(l, &cnt, &items);
  size_t sl;
  const unsigned char *sep = bm_data(self, &sl);
  StrBuf b;
  sb_init(&b);
  rt_hold_sb(&b);
  for (tfs_i64 i = 0; i < cnt; i++) {
    size_t m;
    const unsigned char *p = byteslike_data(items[i], &m);
    if (!p) rt_throw(ERR_TYPE, "sequence item %lld: expected a bytes-like object, %s found", (long long)i, val_type_name(items[i]));
    if (i) sb_putn(&b, (const char *)sep, sl);
    sb_putn(&b, (const char *)p, m);
  }
  rt_unhold(mark);
  val_decref(l);
  return bm_from_sb(self, &b);
}

static ArgSpec bm_spec_strip = {.what = "strip", .sig = "bytes=None"}, bm_spec_lstrip = {.what = "lstrip", .sig = "bytes=None"},
               bm_spec_rstrip = {.what = "rstrip", .sig = "bytes=None"};

/* strip/lstrip/rstrip: without the leading (left) and trailing (right) bytes in `bytes` (ASCII whitespace when None). */
static Val bm_strip_common(ArgSpec *spec, Val self, int n, const Val *args, const Kw *kw, bool left, bool right) {
  Val a[1];
  args_parse(spec, n, args, kw, a);
  size_t len, m = 0;
  const unsigned char *d = bm_data(self, &len), *set = NULL;
  if (a[0].tag != VT_NONE) set = bm_arg(a[0], &m);
  size_t i = 0, j = len;
  while (left && i < j && (set ? m && memchr(set, d[i], m) != NULL : bm_space(d[i]))) i++;
  while (right && j > i && (set ? m && memchr(set, d[j - 1], m) != NULL : bm_space(d[j - 1]))) j--;
  return byteslike_new(self, d + i, j - i);
}

//! bytes.strip(bytes=None)
//!   A copy without the leading and trailing bytes in `bytes` (ASCII whitespace when None).
static Val bm_strip(Val self, int n, const Val *args, const Kw *kw) { return bm_strip_common(&bm_spec_strip, self, n, args, kw, true, true); }

//! bytes.lstrip(bytes=None)
//!   A copy without the leading bytes in `bytes` (ASCII whitespace when None).
static Val bm_lstrip(Val self, int n, const Val *args, const Kw *kw) { return bm_strip_common(&bm_spec_lstrip, self, n, args, kw, true, false); }

//! bytes.rstrip(bytes=None)
//!   A copy without the trailing bytes in `bytes` (ASCII whitespace when None).
static Val bm_rstrip(Val self, int n, const Val *args, const Kw *kw) { return bm_strip_common(&bm_spec_rstrip, self, n, args, kw, false, true); }

/* removeprefix/removesuffix: the bytes without the affix when they have it. */
static Val bm_remove_affix(Val self, int n, const Val *args, const Kw *kw, bool suffix) {
  static ArgSpec pspec = {.what = "removeprefix", .sig = "prefix"}, sspec = {.what = "removesuffix", .sig = "suffix"};
  Val a[1];
  args_parse(suffix ? &sspec : &pspec, n, args, kw, a);
  size_t len, m;
  const unsigned char *d = bm_data(self, &len), *s = bm_arg(a[0], &m);
  if (m <= len && (!m || !memcmp(suffix ? d + len - m : d, s, m))) return byteslike_new(self, suffix ? d : d + m, len - m);
  return byteslike_new(self, d, len);
}

//! bytes.removeprefix(prefix)
//!   The bytes without prefix when they begin with it, else a copy.
static Val bm_removeprefix(Val self, int n, const Val *args, const Kw *kw) { return bm_remove_affix(self, n, args, kw, false); }

//! bytes.removesuffix(suffix)
//!   The bytes without suffix when they end with it, else a copy.
static Val bm_removesuffix(Val self, int n, const Val *args, const Kw *kw) { return bm_remove_affix(self, n, args, kw, true); }

//! bytes.splitlines(keepends=False)
//!   The list of the lines, broken at \n, \r and \r\n (kept when keepends is true).
static Val bm_splitlines(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "splitlines", .sig = "keepends=False"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  bool keep = rt_truthy(a[0]);
  size_t len;
  const unsigned char *d = bm_data(self, &len);
  Val l = list_new(0);
  int mark = rt_hold_val(l);
  for (size_t i = 0; i < len;) {
    size_t j = i;
    while (j < len && d[j] != '\n' && d[j] != '\r') j++;
    size_t e = j;
    if (j < len) j += d[j] == '\r' && j + 1 < len && d[j + 1] == '\n' ? 2 : 1;
    bm_push(l, self, d + i, (keep ? j : e) - i);
    i = j;
  }
  rt_unhold(mark);
  return l;
}

typedef struct BmEntry { const char *name; BuiltinFn fn; } BmEntry;
static const BmEntry bm_table[] = {
  {"bytes.count", bm_count},           {"bytes.endswith", bm_endswith},         {"bytes.find", bm_find},
  {"bytes.index", bm_index},           {"bytes.join", bm_join},                 {"bytes.lstrip", bm_lstrip},
  {"bytes.partition", bm_partition},   {"bytes.removeprefix", bm_removeprefix}, {"bytes.removesuffix", bm_removesuffix},
  {"bytes.replace", bm_replace},       {"bytes.rfind", bm_rfind},               {"bytes.rindex", bm_rindex},
  {"bytes.rpartition", bm_rpartition}, {"bytes.rsplit", bm_rsplit},             {"bytes.rstrip", bm_rstrip},
  {"bytes.split", bm_split},           {"bytes.splitlines", bm_splitlines},     {"bytes.startswith", bm_startswith},
  {"bytes.strip", bm_strip},
};

Val bytes_method(Val self, const char *name) {
  for (size_t i = 0; i < sizeof bm_table / sizeof bm_table[0]; i++)
    if (!strcmp(bm_table[i].name + 6, name)) return builtin_new(bm_table[i].name, bm_table[i].fn, self, NULL);
  return bytes_text_method(self, name);
}
