/* str.c — the immutable UTF-8 str type: Python's repr quoting, code-point indexing and slicing, iteration. */
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

Val str_new(const char *s, tfs_i64 len) {
  Str *o = obj_new(&str_type, sizeof(Str) + (size_t)len + 1);
  o->len = len;
  o->hash = 0;
  if (len) memcpy(o->data, s, (size_t)len);
  o->data[len] = 0;
  return val_obj(o);
}

/* a + b in one allocation (str +, and AddV2 of string tensors). */
Val str_concat(const char *a, tfs_i64 na, const char *b, tfs_i64 nb) {
  Str *o = obj_new(&str_type, sizeof(Str) + (size_t)(na + nb) + 1);
  o->len = na + nb;
  o->hash = 0;
  if (na) memcpy(o->data, a, (size_t)na);
  if (nb) memcpy(o->data + na, b, (size_t)nb);
  o->data[na + nb] = 0;
  return val_obj(o);
}

Val str_from_cstr(const char *s) { return str_new(s, (tfs_i64)strlen(s)); }

Val str_take(char *s, tfs_i64 len) {
  Val v = str_new(s, len);
  free(s);
  return v;
}

static void str_free(Obj *o) { free(o); }

/* ---- UTF-8 ----------------------------------------------------------------------- */

static int str_cplen(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

/* Decode one code point at p (n bytes left); *len gets its byte length. */
static uint32_t str_decode(const unsigned char *p, tfs_i64 n, int *len) {
  int l = str_cplen(p[0]);
  if (l > n) l = (int)n;
  *len = l;
  if (l == 1) return p[0];
  uint32_t c = p[0] & (0x3F >> (l - 1));
  for (int i = 1; i < l; i++) c = (c << 6) | (p[i] & 0x3F);
  return c;
}

static bool str_is_ascii(Val s) {
  const unsigned char *p = (const unsigned char *)str_cstr(s);
  for (tfs_i64 i = 0, n = str_len(s); i < n; i++)
    if (p[i] >= 0x80) return false;
  return true;
}

tfs_i64 str_nchars(Val s) {
  const unsigned char *p = (const unsigned char *)str_cstr(s);
  tfs_i64 n = str_len(s), count = 0;
  for (tfs_i64 i = 0; i < n; i++)
    if ((p[i] & 0xC0) != 0x80) count++;
  return count;
}

/* Byte offset of code point k (0 <= k <= nchars). */
static tfs_i64 str_offset(Val s, tfs_i64 k) {
  const unsigned char *p = (const unsigned char *)str_cstr(s);
  tfs_i64 n = str_len(s), i = 0;
  while (k > 0 && i < n) {
    i += str_cplen(p[i]);
    k--;
  }
  return i < n ? i : n;
}

/* ---- repr ------------------------------------------------------------------------ */

/* Code points Python's str.isprintable() rejects, roughly: controls, separators, format chars. */
static bool str_unprintable(uint32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD || (c >= 0x2000 && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x2064) || c == 0x1680 || c == 0x3000 ||
         c == 0xFEFF || (c >= 0xD800 && c <= 0xDFFF) || (c >= 0xE000 && c <= 0xF8FF);
}

void str_repr_into(StrBuf *b, const char *s, tfs_i64 n) {
  bool sq = memchr(s, '\'', (size_t)n) != NULL, dq = memchr(s, '"', (size_t)n) != NULL;
  char q = sq && !dq ? '"' : '\'';
  sb_putc(b, q);
  const unsigned char *p = (const unsigned char *)s;
  for (tfs_i64 i = 0; i < n;) {
    int len;
    uint32_t c = str_decode(p + i, n - i, &len);
    if (c == (uint32_t)q || c == '\\') {
      sb_putc(b, '\\');
      sb_putc(b, (char)c);
    } else if (c == '\n') {
      sb_puts(b, "\\n");
    } else if (c == '\t') {
      sb_puts(b, "\\t");
    } else if (c == '\r') {
      sb_puts(b, "\\r");
    } else if (str_unprintable(c)) {
      if (c < 0x100) sb_printf(b, "\\x%02x", c);
      else if (c < 0x10000) sb_printf(b, "\\u%04x", c);
      else sb_printf(b, "\\U%08x", c);
    } else {
      sb_putn(b, (const char *)p + i, (size_t)len);
    }
    i += len;
  }
  sb_putc(b, q);
}

static void str_repr(StrBuf *b, Val v) { str_repr_into(b, str_cstr(v), str_len(v)); }
static void str_str(StrBuf *b, Val v) { sb_putn(b, str_cstr(v), (size_t)str_len(v)); }

/* ---- sequence protocol -------------------------------------------------------------- */

static tfs_i64 str_lenf(Val v) { return str_is_ascii(v) ? str_len(v) : str_nchars(v); }

static Val str_getitem(Val s, Val key) {
  bool ascii = str_is_ascii(s);
  tfs_i64 n = ascii ? str_len(s) : str_nchars(s);
  const char *d = str_cstr(s);
  if (val_is(key, &slice_type)) {
    tfs_i64 start, stop, step, cnt = slice_indices(key, n, &start, &stop, &step);
    if (step == 1) {
      tfs_i64 a = ascii ? start : str_offset(s, start), e = ascii ? start + cnt : str_offset(s, start + cnt);
      return str_new(d + a, e - a);
    }
    StrBuf b;
    sb_init(&b);
    for (tfs_i64 k = 0, i = start; k < cnt; k++, i += step) {
      tfs_i64 off = ascii ? i : str_offset(s, i);
      sb_putn(&b, d + off, (size_t)(ascii ? 1 : str_cplen((unsigned char)d[off])));
    }
    size_t len = b.len;
    return str_take(sb_steal(&b), (tfs_i64)len);
  }
  int64_t i;
  if (!val_as_int(key, &i)) rt_throw(ERR_TYPE, "string indices must be integers, not '%s'", val_type_name(key));
  if (i < 0) i += n;
  if (i < 0 || i >= n) rt_throw(ERR_INDEX, "string index out of range");
  if (ascii) return str_new(d + i, 1);
  tfs_i64 off = str_offset(s, i);
  return str_new(d + off, str_cplen((unsigned char)d[off]));
}

static bool str_step(Iter *it, Val *out) {
  tfs_i64 n = str_len(it->src);
  if (it->i >= n) return false;
  const char *d = str_cstr(it->src);
  int len = str_cplen((unsigned char)d[it->i]);
  if (len > n - it->i) len = (int)(n - it->i);
  *out = str_new(d + it->i, len);
  it->i += len;
  return true;
}

static Val str_iter(Val s) { return iter_new("str_ascii_iterator", str_step, s, val_undef(), 0, 0); }

static bool str_eq(Val a, Val b) {
  return str_len(a) == str_len(b) && memcmp(str_cstr(a), str_cstr(b), (size_t)str_len(a)) == 0;
}

static tfs_u64 str_hash(Val v) {
  Str *s = (Str *)v.u.o;
  if (s->hash) return s->hash;
  tfs_u64 h = 0xcbf29ce484222325ULL;   /* FNV-1a */
  for (tfs_i64 i = 0; i < s->len; i++) h = (h ^ (unsigned char)s->data[i]) * 0x100000001b3ULL;
  s->hash = h ? h : 1;
  return s->hash;
}

static Val str_getattr(Val self, const char *name) { return strmethods_get(self, name); }
static int str_truthy(Val v) { return str_len(v) != 0; }

const Type str_type = {
  .name = "str",
  .free = str_free,
  .repr = str_repr,
  .str = str_str,
  .getattr = str_getattr,
  .getitem = str_getitem,
  .iter = str_iter,
  .len = str_lenf,
  .truthy = str_truthy,
  .eq = str_eq,
  .hash = str_hash,
};

size_t utf8_seq(const unsigned char *s, size_t avail, const char **why) {
  unsigned c = s[0];
  size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  const char *w = n ? NULL : "invalid start byte";
  for (size_t k = 1; k < n && !w; k++) {
    if (k >= avail) {
      w = "unexpected end of data";   /* the bytes so far were a valid prefix */
      break;
    }
    unsigned lo = 0x80, hi = 0xBF;   /* the second byte's range excludes overlongs, surrogates, > U+10FFFF */
    if (k == 1 && c == 0xE0) lo = 0xA0;
    if (k == 1 && c == 0xED) hi = 0x9F;
    if (k == 1 && c == 0xF0) lo = 0x90;
    if (k == 1 && c == 0xF4) hi = 0x8F;
    if (s[k] < lo || s[k] > hi) w = "invalid continuation byte";
  }
  if (!w) return n;
  if (why) *why = w;
  return 0;
}
