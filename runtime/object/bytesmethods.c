/* bytesmethods.c — the methods of bytes (hex, fromhex, find, split, join, strip, ...), with CPython's results and errors. */
#define _GNU_SOURCE   /* memmem */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"

static const unsigned char *bm_data(Val v, size_t *n) { return (const unsigned char *)bytes_data(v, n); }

/* A bytes argument. */
static const unsigned char *bm_arg(Val v, size_t *n) {
  if (!val_is(v, &bytes_type)) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(v));
  return bm_data(v, n);
}

/* find/count/index's sub: bytes or a byte value. */
static const unsigned char *bm_sub(Val v, size_t *n, unsigned char *one) {
  if (v.tag == VT_INT || v.tag == VT_BOOL) {
    if (v.u.i < 0 || v.u.i > 255) rt_throw(ERR_VALUE, "byte must be in range(0, 256)");
    *one = (unsigned char)v.u.i;
    *n = 1;
    return one;
  }
  if (!val_is(v, &bytes_type)) rt_throw(ERR_TYPE, "argument should be integer or bytes-like object, not '%s'", val_type_name(v));
  return bm_data(v, n);
}

static Val bm_copy(const unsigned char *d, size_t n) { return bytes_new(d, n); }

/* Offset of sub in d at or after `from`, or -1. */
static tfs_i64 bm_find_at(const unsigned char *d, size_t n, const unsigned char *s, size_t m, size_t from) {
  if (from > n) return -1;
  const unsigned char *p = m ? memmem(d + from, n - from, s, m) : d + from;
  return p ? (tfs_i64)(p - d) : -1;
}

//! bytes.hex()
//!   The bytes as lowercase hexadecimal digits, two a byte: b'\x01\xff'.hex() is '01ff'.
static Val bm_hex(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "hex", .sig = ""};
  args_parse(&spec, n, args, kw, NULL);
  size_t len;
  const unsigned char *d = bm_data(self, &len);
  static const char digits[] = "0123456789abcdef";
  char *s = malloc(2 * len + 1);
  if (!s) rt_throw(ERR_MEMORY, "out of memory");
  for (size_t i = 0; i < len; i++) {
    s[2 * i] = digits[d[i] >> 4];
    s[2 * i + 1] = digits[d[i] & 15];
  }
  s[2 * len] = 0;
  return str_take(s, (tfs_i64)(2 * len));
}

static int bm_hexval(int c) { return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1; }

//! bytes.fromhex(string)
//!   The bytes two hexadecimal digits each give; spaces between the pairs are skipped: bytes.fromhex('01 ff').
static Val bm_fromhex(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "fromhex", .sig = "string"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "fromhex() argument must be str, not %s", val_type_name(a[0]));
  const char *s = str_cstr(a[0]);
  size_t len = (size_t)str_len(a[0]), m = 0;
  for (size_t i = 0; i < len;) {   /* check first: nothing is owned when it raises */
    if (s[i] == ' ') { i++; continue; }
    if (bm_hexval((unsigned char)s[i]) < 0) rt_throw(ERR_VALUE, "non-hexadecimal number found in fromhex() arg at position %zu", i);
    if (i + 1 >= len || bm_hexval((unsigned char)s[i + 1]) < 0)
      rt_throw(ERR_VALUE, "non-hexadecimal number found in fromhex() arg at position %zu", i + 1);
    i += 2;
    m++;
  }
  unsigned char *d;
  Val r = bytes_alloc(m, &d);
  for (size_t i = 0, k = 0; i < len;) {
    if (s[i] == ' ') { i++; continue; }
    d[k++] = (unsigned char)(bm_hexval((unsigned char)s[i]) * 16 + bm_hexval((unsigned char)s[i + 1]));
    i += 2;
  }
  return r;
}

Val bytes_fromhex_fn(void) { return builtin_new("bytes.fromhex", bm_fromhex, val_undef(), NULL); }

/* startswith/endswith: a bytes or a tuple of bytes. */
static Val bm_affix(Val self, int n, const Val *args, const Kw *kw, bool end) {
  static ArgSpec sspec = {.what = "startswith", .sig = "prefix"}, espec = {.what = "endswith", .sig = "suffix"};
  Val a[1];
  args_parse(end ? &espec : &sspec, n, args, kw, a);
  size_t len;
  const unsigned char *d = bm_data(self, &len);
  tfs_i64 cnt = 1;
  const Val *items = a;
  if (val_is(a[0], &tuple_type)) seq_items(a[0], &cnt, &items);
  for (tfs_i64 i = 0; i < cnt; i++) {
    if (!val_is(items[i], &bytes_type))
      rt_throw(ERR_TYPE, "%s first arg must be bytes or a tuple of bytes, not %s", end ? "endswith" : "startswith",
               val_type_name(items[i]));
    size_t m;
    const unsigned char *s = bm_data(items[i], &m);
    if (m <= len && !memcmp(end ? d + len - m : d, s, m)) return val_bool(true);
  }
  return val_bool(false);
}

//! bytes.startswith(prefix)
//!   Whether the bytes begin with prefix (bytes, or a tuple of bytes: any of them).
static Val bm_startswith(Val self, int n, const Val *args, const Kw *kw) { return bm_affix(self, n, args, kw, false); }

//! bytes.endswith(suffix)
//!   Whether the bytes end with suffix (bytes, or a tuple of bytes: any of them).
static Val bm_endswith(Val self, int n, const Val *args, const Kw *kw) { return bm_affix(self, n, args, kw, true); }

static tfs_i64 bm_find_arg(Val self, int n, const Val *args, const Kw *kw, bool index) {
  static ArgSpec fspec = {.what = "find", .sig = "sub"}, ispec = {.what = "index", .sig = "sub"};
  Val a[1];
  args_parse(index ? &ispec : &fspec, n, args, kw, a);
  size_t len, m;
  unsigned char one;
  const unsigned char *d = bm_data(self, &len), *s = bm_sub(a[0], &m, &one);
  return bm_find_at(d, len, s, m, 0);
}

//! bytes.find(sub)
//!   The index where sub (bytes or a byte value) first occurs, or -1.
static Val bm_find(Val self, int n, const Val *args, const Kw *kw) { return val_int(bm_find_arg(self, n, args, kw, false)); }

//! bytes.index(sub)
//!   As find, but ValueError when sub does not occur.
static Val bm_index(Val self, int n, const Val *args, const Kw *kw) {
  tfs_i64 i = bm_find_arg(self, n, args, kw, true);
  if (i < 0) rt_throw(ERR_VALUE, "subsection not found");
  return val_int(i);
}

//! bytes.count(sub)
//!   How many times sub (bytes or a byte value) occurs without overlapping.
static Val bm_count(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "count", .sig = "sub"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  size_t len, m;
  unsigned char one;
  const unsigned char *d = bm_data(self, &len), *s = bm_sub(a[0], &m, &one);
  if (!m) return val_int((tfs_i64)len + 1);
  tfs_i64 c = 0;
  for (tfs_i64 i = bm_find_at(d, len, s, m, 0); i >= 0; i = bm_find_at(d, len, s, m, (size_t)i + m)) c++;
  return val_int(c);
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
    tfs_i64 i = bm_find_at(d, len, o, mo, at);
    if (i < 0) break;
    sb_putn(&b, (const char *)d + at, (size_t)i - at);
    sb_putn(&b, (const char *)w, mn);
    at = (size_t)i + mo;
  }
  if (at < len) sb_putn(&b, (const char *)d + at, len - at);
  Val r = bytes_new(b.len ? b.data : "", b.len);
  sb_free(&b);
  return r;
}

static bool bm_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

//! bytes.split(sep=None, maxsplit=-1)
//!   The list of the parts between occurrences of sep; runs of ASCII whitespace when sep is None.
static Val bm_split(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "split", .sig = "sep=None, maxsplit=-1"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  size_t len, m = 0;
  const unsigned char *d = bm_data(self, &len), *s = NULL;
  if (a[0].tag != VT_NONE) s = bm_arg(a[0], &m);
  if (s && !m) rt_throw(ERR_VALUE, "empty separator");
  int64_t maxsplit = val_to_index(a[1], NULL);
  Val l = list_new(0);
  int mark = rt_hold_val(l);
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
      Val p = bm_copy(d + i, j - i);
      list_append(l, p);
      val_decref(p);
      i = j;
      continue;
    }
    tfs_i64 at = maxsplit >= 0 && k >= maxsplit ? -1 : bm_find_at(d, len, s, m, i);
    size_t e = at < 0 ? len : (size_t)at;
    Val p = bm_copy(d + i, e - i);
    list_append(l, p);
    val_decref(p);
    if (at < 0) break;
    i = e + m;
  }
  rt_unhold(mark);
  return l;
}

//! bytes.join(iterable)
//!   The items (bytes) of iterable joined with these bytes between them.
static Val bm_join(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "join", .sig = "iterable_of_bytes"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Val l = list_from_iterable(a[0]);
  int mark = rt_hold_val(l);
  tfs_i64 cnt;
  const Val *items;
  seq_items(l, &cnt, &items);
  size_t sl, total = 0;
  const unsigned char *sep = bm_data(self, &sl);
  for (tfs_i64 i = 0; i < cnt; i++) {
    if (!val_is(items[i], &bytes_type))
      rt_throw(ERR_TYPE, "sequence item %lld: expected a bytes-like object, %s found", (long long)i, val_type_name(items[i]));
    size_t m;
    bm_data(items[i], &m);
    total += m + (i ? sl : 0);
  }
  unsigned char *d;
  Val r = bytes_alloc(total, &d);
  for (tfs_i64 i = 0; i < cnt; i++) {
    size_t m;
    const unsigned char *p = bm_data(items[i], &m);
    if (i && sl) { memcpy(d, sep, sl); d += sl; }
    if (m) { memcpy(d, p, m); d += m; }
  }
  rt_unhold(mark);
  val_decref(l);
  return r;
}

//! bytes.strip(bytes=None)
//!   A copy without the leading and trailing bytes in `bytes` (ASCII whitespace when None).
static Val bm_strip(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "strip", .sig = "bytes=None"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  size_t len, m = 0;
  const unsigned char *d = bm_data(self, &len), *set = NULL;
  if (a[0].tag != VT_NONE) set = bm_arg(a[0], &m);
  size_t i = 0, j = len;
  while (i < j && (set ? memchr(set, d[i], m) != NULL : bm_space(d[i]))) i++;
  while (j > i && (set ? memchr(set, d[j - 1], m) != NULL : bm_space(d[j - 1]))) j--;
  return bm_copy(d + i, j - i);
}

static Val bm_case(Val self, int n, const Val *args, const Kw *kw, bool up) {
  static ArgSpec uspec = {.what = "upper", .sig = ""}, lspec = {.what = "lower", .sig = ""};
  args_parse(up ? &uspec : &lspec, n, args, kw, NULL);
  size_t len;
  const unsigned char *s = bm_data(self, &len);
  unsigned char *d;
  Val r = bytes_alloc(len, &d);
  for (size_t i = 0; i < len; i++)   /* ASCII letters only, as CPython's bytes */
    d[i] = up ? (s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]) : (s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
  return r;
}

//! bytes.upper()
//!   A copy with the ASCII letters a-z made upper case.
static Val bm_upper(Val self, int n, const Val *args, const Kw *kw) { return bm_case(self, n, args, kw, true); }

//! bytes.lower()
//!   A copy with the ASCII letters A-Z made lower case.
static Val bm_lower(Val self, int n, const Val *args, const Kw *kw) { return bm_case(self, n, args, kw, false); }

typedef struct BmEntry { const char *name; BuiltinFn fn; } BmEntry;
static const BmEntry bm_table[] = {
  {"bytes.count", bm_count},   {"bytes.endswith", bm_endswith}, {"bytes.find", bm_find},       {"bytes.fromhex", bm_fromhex},
  {"bytes.hex", bm_hex},       {"bytes.index", bm_index},       {"bytes.join", bm_join},       {"bytes.lower", bm_lower},
  {"bytes.replace", bm_replace}, {"bytes.split", bm_split},     {"bytes.startswith", bm_startswith},
  {"bytes.strip", bm_strip},   {"bytes.upper", bm_upper},
};

Val bytes_method(Val self, const char *name) {
  for (size_t i = 0; i < sizeof bm_table / sizeof bm_table[0]; i++)
    if (!strcmp(bm_table[i].name + 6, name)) return builtin_new(bm_table[i].name, bm_table[i].fn, self, NULL);
  return val_undef();
}
