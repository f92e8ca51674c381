/* strmethods.c — methods of str (join split format strip replace find ...), by code point.
 *
 * Case mapping covers ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic one-to-one pairs (no 'ß' -> 'SS');
 * character classes (isalpha, ...) cover ASCII only (isdigit and the other digit classes: strmore.c). */
#define _GNU_SOURCE   /* memmem */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

/* ---- helpers -------------------------------------------------------------------------------- */

static void sm_no_kw(const char *what, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "%s() takes no keyword arguments", what);
}

static void sm_range(const char *what, int n, const Kw *kw, int lo, int hi) {
  sm_no_kw(what, kw);
  if (n < lo) rt_throw(ERR_TYPE, "%s() takes at least %d argument%s (%d given)", what, lo, lo == 1 ? "" : "s", n);
  if (n > hi) {
    if (hi == 0) rt_throw(ERR_TYPE, "str.%s() takes no arguments (%d given)", what, n);
    rt_throw(ERR_TYPE, "%s() takes at most %d argument%s (%d given)", what, hi, hi == 1 ? "" : "s", n);
  }
}

static Val sm_arg_str(const char *what, Val v, int argn) {
  if (!val_is(v, &str_type)) {
    if (argn) rt_throw(ERR_TYPE, "%s() argument %d must be str, not %s", what, argn, val_type_name(v));
    rt_throw(ERR_TYPE, "must be str, not %s", val_type_name(v));
  }
  return v;
}

static Val sm_result(StrBuf *b) {
  size_t n = b->len;
  return str_take(sb_steal(b), (tfs_i64)n);
}

static int sm_cplen(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

static bool sm_ascii(const char *s, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n; i++)
    if ((unsigned char)s[i] >= 0x80) return false;
  return true;
}

/* Code point index -> byte offset (cp clamped to the string). */
static tfs_i64 sm_byte(const char *s, tfs_i64 n, bool ascii, tfs_i64 cp) {
  if (ascii) return cp < n ? cp : n;
  tfs_i64 i = 0;
  while (cp > 0 && i < n) i += sm_cplen((unsigned char)s[i]), cp--;
  return i < n ? i : n;
}

static tfs_i64 sm_cp(const char *s, bool ascii, tfs_i64 byte) {
  if (ascii) return byte;
  tfs_i64 c = 0;
  for (tfs_i64 i = 0; i < byte; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) c++;
  return c;
}

/* The [start, end) byte window of optional slice-like arguments args[first], args[first+1].
 * Returns false when start lies beyond the end (Python then finds nothing). */
static bool sm_window(Val self, int n, const Val *args, int first, tfs_i64 *bs, tfs_i64 *be) {
  const char *s = str_cstr(self);
  tfs_i64 nb = str_len(self);
  bool ascii = sm_ascii(s, nb);
  tfs_i64 len = ascii ? nb : str_nchars(self), lo = 0, hi = len;
  if (n > first && args[first].tag != VT_NONE) {
    lo = val_to_index(args[first], "slice indices");
    if (lo < 0) lo = lo + len < 0 ? 0 : lo + len;
  }
  if (n > first + 1 && args[first + 1].tag != VT_NONE) {
    hi = val_to_index(args[first + 1], "slice indices");
    if (hi < 0) hi = hi + len < 0 ? 0 : hi + len;
  }
  if (hi > len) hi = len;
  if (lo > len) return false;
  *bs = sm_byte(s, nb, ascii, lo);
  *be = hi < lo ? *bs : sm_byte(s, nb, ascii, hi);
  return true;
}

static bool sm_is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }

/* ---- case and classes ------------------------------------------------------------------------ */

/* 0: caseless, 'u' upper, 'l' lower; *other gets the opposite case. */
static int sm_case(uint32_t c, uint32_t *other) {
  if (c < 0x80) {
    if (c >= 'a' && c <= 'z') return *other = c - 32, 'l';
    if (c >= 'A' && c <= 'Z') return *other = c + 32, 'u';
    return 0;
  }
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return *other = c - 32, 'l';
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return *other = c + 32, 'u';
  if (c == 0xFF) return *other = 0x178, 'l';
  if (c == 0x178) return *other = 0xFF, 'u';
  if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177))   /* even upper, odd lower */
    return (c & 1) ? (*other = c - 1, 'l') : (*other = c + 1, 'u');
  if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E))   /* odd upper, even lower */
    return (c & 1) ? (*other = c + 1, 'u') : (*other = c - 1, 'l');
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return *other = c - 32, 'l';
  if (c == 0x3C2) return *other = 0x3A3, 'l';
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return *other = c + 32, 'u';
  if (c >= 0x430 && c <= 0x44F) return *other = c - 32, 'l';
  if (c >= 0x410 && c <= 0x42F) return *other = c + 32, 'u';
  if (c >= 0x450 && c <= 0x45F) return *other = c - 80, 'l';
  if (c >= 0x400 && c <= 0x40F) return *other = c + 80, 'u';
  return 0;
}

int str_case_of(uint32_t c, uint32_t *other) { return sm_case(c, other); }

static void sm_put_cp(StrBuf *b, uint32_t c) {
  char e[4];
  int n = 0;
  if (c < 0x80) e[n++] = (char)c;
  else if (c < 0x800) e[n++] = (char)(0xC0 | c >> 6), e[n++] = (char)(0x80 | (c & 0x3F));
  else e[n++] = (char)(0xE0 | c >> 12), e[n++] = (char)(0x80 | ((c >> 6) & 0x3F)), e[n++] = (char)(0x80 | (c & 0x3F));
  sb_putn(b, e, (size_t)n);
}

/* Rewrite each code point: mode 'u' upper, 'l' lower, 's' swap, 't' title, 'c' capitalize. */
static Val sm_map(Val self, int mode) {
  const unsigned char *p = (const unsigned char *)str_cstr(self);
  tfs_i64 n = str_len(self);
  StrBuf b;
  sb_init(&b);
  bool prev_cased = false;
  for (tfs_i64 i = 0; i < n;) {
    int len = sm_cplen(p[i]);
    if (len > n - i) len = (int)(n - i);
    uint32_t c = len == 1 ? p[i] : (uint32_t)(p[i] & (0x3F >> (len - 1)));
    for (int k = 1; k < len; k++) c = (c << 6) | (p[i + k] & 0x3F);
    uint32_t o = 0;
    int cs = sm_case(c, &o);
    bool flip = false;
    switch (mode) {
      case 'u': flip = cs == 'l'; break;
      case 'l': flip = cs == 'u'; break;
      case 's': flip = cs != 0; break;
      case 't': flip = prev_cased ? cs == 'u' : cs == 'l'; break;
      default: flip = i == 0 ? cs == 'l' : cs == 'u'; break;
    }
    prev_cased = cs != 0;
    if (flip) sm_put_cp(&b, o);
    else sb_putn(&b, (const char *)p + i, (size_t)len);
    i += len;
  }
  return sm_result(&b);
}

static Val sm_upper(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("upper", n, kw, 0, 0);
  return sm_map(self, 'u');
}

static Val sm_lower(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("lower", n, kw, 0, 0);
  return sm_map(self, 'l');
}

static Val sm_swapcase(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("swapcase", n, kw, 0, 0);
  return sm_map(self, 's');
}

static Val sm_capitalize(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("capitalize", n, kw, 0, 0);
  return sm_map(self, 'c');
}

static Val sm_title(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("title", n, kw, 0, 0);
  return sm_map(self, 't');
}

/* is*(): true when non-empty and every (ASCII) character passes. */
static Val sm_class(Val self, int (*f)(int)) {
  tfs_i64 n = str_len(self);
  const unsigned char *s = (const unsigned char *)str_cstr(self);
  if (!n) return val_bool(false);
  for (tfs_i64 i = 0; i < n; i++)
    if (s[i] >= 0x80 || !f(s[i])) return val_bool(false);
  return val_bool(true);
}

static int sm_isspace_c(int c) { return sm_is_space((unsigned char)c); }

static Val sm_isalpha(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("isalpha", n, kw, 0, 0);
  return sm_class(self, isalpha);
}
static Val sm_isalnum(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("isalnum", n, kw, 0, 0);
  return sm_class(self, isalnum);
}
static Val sm_isspace(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("isspace", n, kw, 0, 0);
  return sm_class(self, sm_isspace_c);
}

/* isupper/islower: at least one cased character, and none of the other case. */
static Val sm_iscase(Val self, bool upper) {
  const unsigned char *s = (const unsigned char *)str_cstr(self);
  bool cased = false;
  for (tfs_i64 i = 0, n = str_len(self); i < n; i++) {
    if (upper ? islower(s[i]) : isupper(s[i])) return val_bool(false);
    if (isalpha(s[i])) cased = true;
  }
  return val_bool(cased);
}

static Val sm_isupper(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("isupper", n, kw, 0, 0);
  return sm_iscase(self, true);
}
static Val sm_islower(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("islower", n, kw, 0, 0);
  return sm_iscase(self, false);
}

/* ---- searching --------------------------------------------------------------------------------- */

/* Byte offset of the first (last) occurrence of sub in s[bs, be), or -1. */
static tfs_i64 sm_search(const char *s, tfs_i64 bs, tfs_i64 be, const char *sub, tfs_i64 ns, bool last) {
  if (be - bs < ns) return -1;
  if (!last) {
    const char *p = memmem(s + bs, (size_t)(be - bs), sub, (size_t)ns);
    return p ? p - s : -1;
  }
  for (tfs_i64 i = be - ns; i >= bs; i--)
    if (!memcmp(s + i, sub, (size_t)ns)) return i;
  return -1;
}

static tfs_i64 sm_find_impl(const char *what, Val self, int n, const Val *args, const Kw *kw, bool last) {
  sm_range(what, n, kw, 1, 3);
  Val sub = sm_arg_str(what, args[0], 0);
  tfs_i64 bs, be;
  if (!sm_window(self, n, args, 1, &bs, &be)) return -1;
  tfs_i64 at = sm_search(str_cstr(self), bs, be, str_cstr(sub), str_len(sub), last);
  if (at < 0) return -1;
  return sm_cp(str_cstr(self), sm_ascii(str_cstr(self), str_len(self)), at);
}

static Val sm_find(Val self, int n, const Val *args, const Kw *kw) {
  return val_int(sm_find_impl("find", self, n, args, kw, false));
}
static Val sm_rfind(Val self, int n, const Val *args, const Kw *kw) {
  return val_int(sm_find_impl("rfind", self, n, args, kw, true));
}

static Val sm_index(Val self, int n, const Val *args, const Kw *kw) {
  tfs_i64 r = sm_find_impl("index", self, n, args, kw, false);
  if (r < 0) rt_throw(ERR_VALUE, "substring not found");
  return val_int(r);
}

static Val sm_rindex(Val self, int n, const Val *args, const Kw *kw) {
  tfs_i64 r = sm_find_impl("rindex", self, n, args, kw, true);
  if (r < 0) rt_throw(ERR_VALUE, "substring not found");
  return val_int(r);
}

static Val sm_count(Val self, int n, const Val *args, const Kw *kw) {
  sm_range("count", n, kw, 1, 3);
  Val sub = sm_arg_str("count", args[0], 0);
  tfs_i64 bs, be;
  if (!sm_window(self, n, args, 1, &bs, &be)) return val_int(0);
  const char *s = str_cstr(self);
  tfs_i64 ns = str_len(sub), c = 0;
  if (ns == 0) {
    for (tfs_i64 i = bs; i < be; i++)
      if (((unsigned char)s[i] & 0xC0) != 0x80) c++;
    return val_int(c + 1);
  }
  for (tfs_i64 i = bs; (i = sm_search(s, i, be, str_cstr(sub), ns, false)) >= 0; i += ns) c++;
  return val_int(c);
}

static Val sm_fix(const char *what, Val self, int n, const Val *args, const Kw *kw, bool end) {
  sm_range(what, n, kw, 1, 3);
  tfs_i64 bs, be;
  if (!sm_window(self, n, args, 1, &bs, &be)) return val_bool(false);
  const char *s = str_cstr(self);
  tfs_i64 np;
  const Val *alts;
  if (val_is(args[0], &str_type)) {
    np = 1;
    alts = args;
  } else if (!seq_items(args[0], &np, &alts) || !val_is(args[0], &tuple_type)) {
    rt_throw(ERR_TYPE, "%s first arg must be str or a tuple of str, not %s", what, val_type_name(args[0]));
  }
  for (tfs_i64 k = 0; k < np; k++) {
    if (!val_is(alts[k], &str_type))
      rt_throw(ERR_TYPE, "tuple for %s must only contain str, not %s", what, val_type_name(alts[k]));
    tfs_i64 m = str_len(alts[k]);
    if (m > be - bs) continue;
    if (!memcmp(s + (end ? be - m : bs), str_cstr(alts[k]), (size_t)m)) return val_bool(true);
  }
  return val_bool(false);
}

static Val sm_startswith(Val self, int n, const Val *args, const Kw *kw) {
  return sm_fix("startswith", self, n, args, kw, false);
}
static Val sm_endswith(Val self, int n, const Val *args, const Kw *kw) {
  return sm_fix("endswith", self, n, args, kw, true);
}

/* ---- strip / split / join / replace ------------------------------------------------------------- */

static Val sm_strip_impl(const char *what, Val self, int n, const Val *args, const Kw *kw, bool left, bool right) {
  sm_range(what, n, kw, 0, 1);
  const char *s = str_cstr(self);
  tfs_i64 a = 0, b = str_len(self);
  if (n == 0 || args[0].tag == VT_NONE) {
    while (left && a < b && sm_is_space((unsigned char)s[a])) a++;
    while (right && b > a && sm_is_space((unsigned char)s[b - 1])) b--;
  } else {
    if (!val_is(args[0], &str_type))
      rt_throw(ERR_TYPE, "%s arg must be None or str", what);
    const char *chars = str_cstr(args[0]);
    size_t nc = (size_t)str_len(args[0]);
    while (left && a < b) {
      int l = sm_cplen((unsigned char)s[a]);
      if (!memmem(chars, nc, s + a, (size_t)l)) break;
      a += l;
    }
    while (right && b > a) {
      tfs_i64 st = b - 1;
      while (st > a && ((unsigned char)s[st] & 0xC0) == 0x80) st--;
      if (!memmem(chars, nc, s + st, (size_t)(b - st))) break;
      b = st;
    }
  }
  return str_new(s + a, b - a);
}

static Val sm_strip(Val self, int n, const Val *args, const Kw *kw) {
  return sm_strip_impl("strip", self, n, args, kw, true, true);
}
static Val sm_lstrip(Val self, int n, const Val *args, const Kw *kw) {
  return sm_strip_impl("lstrip", self, n, args, kw, true, false);
}
static Val sm_rstrip(Val self, int n, const Val *args, const Kw *kw) {
  return sm_strip_impl("rstrip", self, n, args, kw, false, true);
}

static void sm_push(Val list, const char *s, tfs_i64 n) {
  Val v = str_new(s, n);
  list_append(list, v);
  val_decref(v);
}

static void sm_reverse(Val list) {
  List *l = (List *)list.u.o;
  for (tfs_i64 x = 0, y = l->len - 1; x < y; x++, y--) {
    Val t = l->items[x];
    l->items[x] = l->items[y];
    l->items[y] = t;
  }
}

static Val sm_split_impl(const char *what, Val self, int n, const Val *args, const Kw *kw, bool rev) {
  static ArgSpec spec_l = {.what = "split", .sig = "sep=None, maxsplit=-1"};
  static ArgSpec spec_r = {.what = "rsplit", .sig = "sep=None, maxsplit=-1"};
  Val a[2];
  args_parse(rev ? &spec_r : &spec_l, n, args, kw, a);
  int64_t max = val_to_index(a[1], NULL);
  const char *s = str_cstr(self);
  tfs_i64 len = str_len(self);
  Val out = list_new(0);
  if (a[0].tag == VT_NONE) {
    if (!rev) {
      tfs_i64 i = 0;
      for (;;) {
        while (i < len && sm_is_space((unsigned char)s[i])) i++;
        if (i >= len) break;
        if (max >= 0 && ((List *)out.u.o)->len >= max) {   /* the rest, trailing blanks kept */
          sm_push(out, s + i, len - i);
          break;
        }
        tfs_i64 j = i;
        while (j < len && !sm_is_space((unsigned char)s[j])) j++;
        sm_push(out, s + i, j - i);
        i = j;
      }
    } else {
      tfs_i64 i = len;
      for (;;) {
        while (i > 0 && sm_is_space((unsigned char)s[i - 1])) i--;
        if (i <= 0) break;
        if (max >= 0 && ((List *)out.u.o)->len >= max) {   /* the rest, leading blanks kept */
          sm_push(out, s, i);
          break;
        }
        tfs_i64 j = i;
        while (j > 0 && !sm_is_space((unsigned char)s[j - 1])) j--;
        sm_push(out, s + j, i - j);
        i = j;
      }
      sm_reverse(out);
    }
    return out;
  }
  Val sep = a[0];
  if (!val_is(sep, &str_type)) {
    val_decref(out);
    rt_throw(ERR_TYPE, "must be str or None, not %s", val_type_name(sep));
  }
  tfs_i64 ns = str_len(sep);
  if (ns == 0) {
    val_decref(out);
    rt_throw(ERR_VALUE, "empty separator");
  }
  const char *p = str_cstr(sep);
  if (!rev) {
    tfs_i64 i = 0, k = 0, at;
    while ((max < 0 || k < max) && (at = sm_search(s, i, len, p, ns, false)) >= 0) {
      sm_push(out, s + i, at - i);
      i = at + ns;
      k++;
    }
    sm_push(out, s + i, len - i);
    return out;
  }
  tfs_i64 e = len, k = 0, at;
  while ((max < 0 || k < max) && (at = sm_search(s, 0, e, p, ns, true)) >= 0) {
    sm_push(out, s + at + ns, e - at - ns);
    e = at;
    k++;
  }
  sm_push(out, s, e);
  sm_reverse(out);
  return out;
}

static Val sm_split(Val self, int n, const Val *args, const Kw *kw) { return sm_split_impl("split", self, n, args, kw, false); }
static Val sm_rsplit(Val self, int n, const Val *args, const Kw *kw) { return sm_split_impl("rsplit", self, n, args, kw, true); }

static Val sm_splitlines(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "splitlines", .sig = "keepends=False"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  bool keep = rt_truthy(a[0]);
  const char *s = str_cstr(self);
  tfs_i64 len = str_len(self), i = 0;
  Val out = list_new(0);
  while (i < len) {
    tfs_i64 j = i;
    while (j < len && !strchr("\n\r\v\f\x1c\x1d\x1e", s[j])) j++;
    tfs_i64 eol = j;
    if (j < len) j += (s[j] == '\r' && j + 1 < len && s[j + 1] == '\n') ? 2 : 1;
    sm_push(out, s + i, (keep ? j : eol) - i);
    i = j;
  }
  return out;
}

static Val sm_join(Val self, int n, const Val *args, const Kw *kw) {
  sm_no_kw("join", kw);
  if (n != 1) rt_throw(ERR_TYPE, "str.join() takes exactly one argument (%d given)", n);
  Val it = rt_iter(args[0]), item = val_undef();
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_val(it);
  rt_hold_sb(&b);
  rt_hold_ref(&item);
  for (tfs_i64 k = 0; rt_next(it, &item); k++) {
    Val s = inst_base(item);   /* a str subclass (numpy.str_) joins as its text */
    if (!val_is(s, &str_type))
      rt_throw(ERR_TYPE, "sequence item %lld: expected str instance, %s found", (long long)k, val_type_name(item));
    if (k) sb_putn(&b, str_cstr(self), (size_t)str_len(self));
    sb_putn(&b, str_cstr(s), (size_t)str_len(s));
    val_decref(item);
    item = val_undef();
  }
  rt_unhold(mark);
  val_decref(it);
  return sm_result(&b);
}

static Val sm_replace(Val self, int n, const Val *args, const Kw *kw) {
  sm_no_kw("replace", kw);
  if (n < 2) rt_throw(ERR_TYPE, "replace expected at least 2 arguments, got %d", n);
  if (n > 3) rt_throw(ERR_TYPE, "replace expected at most 3 arguments, got %d", n);
  Val old = sm_arg_str("replace", args[0], 1), new = sm_arg_str("replace", args[1], 2);
  int64_t count = n == 3 ? val_to_index(args[2], NULL) : -1;
  const char *s = str_cstr(self), *o = str_cstr(old), *w = str_cstr(new);
  tfs_i64 len = str_len(self), no = str_len(old), nw = str_len(new), i = 0, k = 0;
  StrBuf b;
  sb_init(&b);
  if (no == 0) {   /* insert before every character and at the end */
    while (i <= len && (count < 0 || k < count)) {
      sb_putn(&b, w, (size_t)nw);
      k++;
      if (i == len) {
        i++;
        break;
      }
      int l = sm_cplen((unsigned char)s[i]);
      sb_putn(&b, s + i, (size_t)l);
      i += l;
    }
    if (i < len) sb_putn(&b, s + i, (size_t)(len - i));
    return sm_result(&b);
  }
  tfs_i64 at;
  while ((count < 0 || k < count) && (at = sm_search(s, i, len, o, no, false)) >= 0) {
    sb_putn(&b, s + i, (size_t)(at - i));
    sb_putn(&b, w, (size_t)nw);
    i = at + no;
    k++;
  }
  sb_putn(&b, s + i, (size_t)(len - i));
  return sm_result(&b);
}

static Val sm_partition_impl(const char *what, Val self, int n, const Val *args, const Kw *kw, bool last) {
  sm_no_kw(what, kw);
  if (n != 1) rt_throw(ERR_TYPE, "str.%s() takes exactly one argument (%d given)", what, n);
  Val sep = sm_arg_str(what, args[0], 0);
  if (!str_len(sep)) rt_throw(ERR_VALUE, "empty separator");
  const char *s = str_cstr(self);
  tfs_i64 len = str_len(self), ns = str_len(sep), at = sm_search(s, 0, len, str_cstr(sep), ns, last);
  Val parts[3];
  if (at < 0) {
    Val e = str_new("", 0);
    parts[0] = last ? val_incref(e) : val_incref(self);
    parts[1] = val_incref(e);
    parts[2] = last ? val_incref(self) : val_incref(e);
    val_decref(e);
  } else {
    parts[0] = str_new(s, at);
    parts[1] = val_incref(sep);
    parts[2] = str_new(s + at + ns, len - at - ns);
  }
  Val t = rt_tuple(3, parts);
  for (int i = 0; i < 3; i++) val_decref(parts[i]);
  return t;
}

static Val sm_partition(Val self, int n, const Val *args, const Kw *kw) {
  return sm_partition_impl("partition", self, n, args, kw, false);
}
static Val sm_rpartition(Val self, int n, const Val *args, const Kw *kw) {
  return sm_partition_impl("rpartition", self, n, args, kw, true);
}

/* ---- padding ------------------------------------------------------------------------------------ */

static Val sm_pad(const char *what, Val self, int n, const Val *args, const Kw *kw, char align) {
  sm_no_kw(what, kw);
  if (n < 1 || n > 2) rt_throw(ERR_TYPE, "%s expected %s argument%s, got %d", what, n < 1 ? "at least 1" : "at most 2", n < 1 ? "" : "s", n);
  int64_t width = val_to_index(args[0], NULL);
  const char *fill = " ";
  tfs_i64 nf = 1;
  if (n == 2) {
    if (!val_is(args[1], &str_type) || str_nchars(args[1]) != 1)
      rt_throw(ERR_TYPE, "The fill character must be exactly one character long");
    fill = str_cstr(args[1]);
    nf = str_len(args[1]);
  }
  tfs_i64 len = str_nchars(self);
  if (width <= len) return val_incref(self);
  tfs_i64 pad = width - len, left = align == '>' ? pad : align == '<' ? 0 : pad / 2 + (pad & width & 1);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  sb_fill(&b, fill, (size_t)nf, (size_t)left);   /* sized at once: MemoryError before any work */
  sb_putn(&b, str_cstr(self), (size_t)str_len(self));
  sb_fill(&b, fill, (size_t)nf, (size_t)(pad - left));
  rt_unhold(mark);
  return sm_result(&b);
}

static Val sm_center(Val self, int n, const Val *args, const Kw *kw) { return sm_pad("center", self, n, args, kw, '^'); }
static Val sm_ljust(Val self, int n, const Val *args, const Kw *kw) { return sm_pad("ljust", self, n, args, kw, '<'); }
static Val sm_rjust(Val self, int n, const Val *args, const Kw *kw) { return sm_pad("rjust", self, n, args, kw, '>'); }

static Val sm_zfill(Val self, int n, const Val *args, const Kw *kw) {
  sm_no_kw("zfill", kw);
  if (n != 1) rt_throw(ERR_TYPE, "str.zfill() takes exactly one argument (%d given)", n);
  int64_t width = val_to_index(args[0], NULL);
  tfs_i64 len = str_nchars(self);
  if (width <= len) return val_incref(self);
  const char *s = str_cstr(self);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  tfs_i64 i = 0;
  if (str_len(self) && (s[0] == '+' || s[0] == '-')) sb_putc(&b, s[i++]);
  sb_fill(&b, "0", 1, (size_t)(width - len));
  sb_putn(&b, s + i, (size_t)(str_len(self) - i));
  rt_unhold(mark);
  return sm_result(&b);
}

/* ---- str.format --------------------------------------------------------------------------------- */

typedef struct SmFmt {
  int n;
  const Val *args;
  const Kw *kw;
  int next;                   /* automatic field numbering */
  int mode;                   /* 0 unknown, 1 automatic, 2 manual */
  Val map;                    /* format_map's mapping (VT_UNDEF: format's keywords) */
} SmFmt;

/* Resolve a field name ("", "0", "name", "0.attr", "x[1]") to an owned value. */
static Val sm_field(SmFmt *st, const char *f, size_t n) {
  size_t i = 0;
  while (i < n && f[i] != '.' && f[i] != '[') i++;
  Val v;
  if (!val_is_undef(st->map) && (i == 0 || isdigit((unsigned char)f[0])))
    rt_throw(ERR_VALUE, "Format string contains positional fields");
  if (!val_is_undef(st->map)) {
    Val key = str_new(f, (tfs_i64)i);
    int km = rt_hold_val(key);
    v = rt_getitem(st->map, key);
    rt_unhold(km);
    val_decref(key);
  } else if (i == 0) {
    if (st->mode == 2) rt_throw(ERR_VALUE, "cannot switch from manual field specification to automatic field numbering");
    st->mode = 1;
    int k = st->next++;
    if (k >= st->n) rt_throw(ERR_INDEX, "Replacement index %d out of range for positional args tuple", k);
    v = val_incref(st->args[k]);
  } else if (isdigit((unsigned char)f[0])) {
    if (st->mode == 1) rt_throw(ERR_VALUE, "cannot switch from automatic field numbering to manual field specification");
    st->mode = 2;
    long k = strtol(f, NULL, 10);
    if (k >= st->n) rt_throw(ERR_INDEX, "Replacement index %ld out of range for positional args tuple", k);
    v = val_incref(st->args[k]);
  } else {
    int k = 0;
    while (st->kw && k < st->kw->n && (strlen(st->kw->names[k]) != i || memcmp(st->kw->names[k], f, i))) k++;
    if (!st->kw || k == st->kw->n) rt_throw(ERR_KEY, "'%.*s'", (int)i, f);
    v = val_incref(st->kw->vals[k]);
  }
  int mark = rt_hold_ref(&v);
  while (i < n) {   /* .attr and [key] chains */
    if (f[i] == '.') {
      size_t a = ++i;
      while (i < n && f[i] != '.' && f[i] != '[') i++;
      char name[128];
      snprintf(name, sizeof name, "%.*s", (int)(i - a), f + a);
      Val r = rt_getattr(v, name);
      val_decref(v);
      v = r;
    } else {
      size_t a = ++i;
      while (i < n && f[i] != ']') i++;
      if (i >= n) rt_throw(ERR_VALUE, "Missing ']' in format string");
      bool digits = i > a;
      for (size_t k = a; k < i; k++) digits = digits && isdigit((unsigned char)f[k]);
      Val key = digits ? val_int(strtoll(f + a, NULL, 10)) : str_new(f + a, (tfs_i64)(i - a));
      int km = rt_hold_val(key);
      Val r = rt_getitem(v, key);
      rt_unhold(km);
      val_decref(key);
      val_decref(v);
      v = r;
      i++;
    }
  }
  rt_unhold(mark);
  return v;
}

static void sm_format_into(StrBuf *b, SmFmt *st, const char *s, size_t n, int depth) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '}') {
      if (i + 1 < n && s[i + 1] == '}') {
        sb_putc(b, '}');
        i++;
        continue;
      }
      rt_throw(ERR_VALUE, "Single '}' encountered in format string");
    }
    if (c != '{') {
      sb_putc(b, c);
      continue;
    }
    if (i + 1 < n && s[i + 1] == '{') {
      sb_putc(b, '{');
      i++;
      continue;
    }
    size_t a = ++i;
    int nest = 0;
    while (i < n && (s[i] != '}' || nest)) {
      if (s[i] == '{') nest++;
      else if (s[i] == '}') nest--;
      i++;
    }
    if (i >= n) rt_throw(ERR_VALUE, "expected '}' before end of string");
    /* field [!conv] [:spec] */
    size_t fe = a;
    while (fe < i && s[fe] != '!' && s[fe] != ':') {
      if (s[fe] == '[')
        while (fe < i && s[fe] != ']') fe++;
      fe++;
    }
    if (fe > i) fe = i;
    char conv = 0;
    size_t p = fe;
    if (p < i && s[p] == '!') {
      if (p + 1 >= i) rt_throw(ERR_VALUE, "end of string while looking for conversion specifier");
      conv = s[p + 1];
      if (conv != 'r' && conv != 's' && conv != 'a') rt_throw(ERR_VALUE, "Unknown conversion specifier %c", conv);
      p += 2;
      if (p < i && s[p] != ':') rt_throw(ERR_VALUE, "expected ':' after conversion specifier");
    }
    Val v = sm_field(st, s + a, fe - a);
    if (conv) {
      Val t = conv == 's' ? str_of(v) : repr_of(v);
      val_decref(v);
      v = t;
    }
    StrBuf spec;
    sb_init(&spec);
    int mark = rt_hold_val(v);
    rt_hold_sb(&spec);
    if (p < i && s[p] == ':') {
      if (depth > 1) rt_throw(ERR_VALUE, "Max string recursion exceeded");
      sm_format_into(&spec, st, s + p + 1, i - p - 1, depth + 1);
    }
    format_into(b, v, spec.data ? spec.data : "", spec.len);
    rt_unhold(mark);
    sb_free(&spec);
    val_decref(v);
  }
}

static Val sm_format_with(Val self, SmFmt *st) {
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  sm_format_into(&b, st, str_cstr(self), (size_t)str_len(self), 0);
  rt_unhold(mark);
  return sm_result(&b);
}

static Val sm_format(Val self, int n, const Val *args, const Kw *kw) {
  SmFmt st = {n, args, kw, 0, 0, val_undef()};
  return sm_format_with(self, &st);
}

/* str.format_map(mapping): format's named fields looked up by mapping[name] (a dict subclass's __missing__ applies). */
static Val sm_format_map(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "str.format_map() takes no keyword arguments");
  if (n != 1) rt_throw(ERR_TYPE, "str.format_map() takes exactly one argument (%d given)", n);
  SmFmt st = {0, NULL, NULL, 0, 0, args[0]};
  return sm_format_with(self, &st);
}

/* str.encode(encoding='utf-8', errors='strict'): the UTF-8 bytes (tfs's strings are UTF-8 already) or ASCII. */
static Val sm_encode(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "encode", .sig = "encoding='utf-8', errors='strict'"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "encode() argument 'encoding' must be str, not %s", val_type_name(a[0]));
  if (!val_is(a[1], &str_type)) rt_throw(ERR_TYPE, "encode() argument 'errors' must be str, not %s", val_type_name(a[1]));
  const char *enc = str_cstr(a[0]);
  const unsigned char *d = (const unsigned char *)str_cstr(self);
  tfs_i64 len = str_len(self);
  bool ascii = !strcasecmp(enc, "ascii") || !strcasecmp(enc, "us-ascii");
  if (!ascii && strcasecmp(enc, "utf-8") && strcasecmp(enc, "utf8") && strcasecmp(enc, "utf_8")) {
    char msg[200];
    snprintf(msg, sizeof msg, "unknown encoding: %.150s", enc);
    exc_raise_class(exc_lookup("LookupError", false), ERR_RUNTIME, msg);
  }
  if (ascii)
    for (tfs_i64 i = 0, ch = 0; i < len; i++, ch += (d[i - 1] & 0xC0) != 0x80)
      if (d[i] >= 0x80) {
        char msg[200];
        snprintf(msg, sizeof msg, "'ascii' codec can't encode character at position %lld: ordinal not in range(128)", (long long)ch);
        exc_raise_class(exc_lookup("UnicodeError", false), ERR_VALUE, msg);
      }
  return bytes_new(d, (size_t)len);
}

/* ---- lookup ----------------------------------------------------------------------------------------- */

typedef struct SmEntry { const char *name; BuiltinFn fn; } SmEntry;
static const SmEntry sm_table[] = {
  {"str.capitalize", sm_capitalize}, {"str.center", sm_center},       {"str.count", sm_count},
  {"str.encode", sm_encode},         {"str.endswith", sm_endswith},     {"str.find", sm_find},           {"str.format", sm_format},       {"str.format_map", sm_format_map},
  {"str.index", sm_index},           {"str.isalnum", sm_isalnum},     {"str.isalpha", sm_isalpha},
  {"str.islower", sm_islower},     {"str.isspace", sm_isspace},
  {"str.isupper", sm_isupper},       {"str.join", sm_join},           {"str.ljust", sm_ljust},
  {"str.lower", sm_lower},           {"str.lstrip", sm_lstrip},       {"str.partition", sm_partition},
  {"str.replace", sm_replace},       {"str.rfind", sm_rfind},         {"str.rindex", sm_rindex},
  {"str.rjust", sm_rjust},           {"str.rpartition", sm_rpartition}, {"str.rsplit", sm_rsplit},
  {"str.rstrip", sm_rstrip},         {"str.split", sm_split},         {"str.splitlines", sm_splitlines},
  {"str.startswith", sm_startswith}, {"str.strip", sm_strip},         {"str.swapcase", sm_swapcase},
  {"str.title", sm_title},           {"str.upper", sm_upper},         {"str.zfill", sm_zfill},
};

Val strmethods_get(Val self, const char *name) {
  for (size_t i = 0; i < sizeof sm_table / sizeof sm_table[0]; i++)
    if (!strcmp(sm_table[i].name + 4, name)) return builtin_new(sm_table[i].name, sm_table[i].fn, self, NULL);
  return strmore_get(self, name);
}
