/* bytestext.c — the ASCII-text methods of bytes and bytearray (case, is*, padding, tabs, translate, hex, decode), as CPython. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"

/* CPython's bytes methods read only ASCII: the C locale's classes, never a byte >= 0x80. */
static bool bt_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
static bool bt_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static bool bt_alpha(unsigned char c) { return bt_lower(c) || bt_upper(c); }
static bool bt_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool bt_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static unsigned char bt_up(unsigned char c) { return bt_lower(c) ? c - 32 : c; }
static unsigned char bt_down(unsigned char c) { return bt_upper(c) ? c + 32 : c; }

/* A copy of self (same kind) for the caller to change in place: d gets its bytes. */
static Val bt_copy(Val self, int n, const Val *args, const Kw *kw, ArgSpec *spec, unsigned char **d, size_t *len) {
  args_parse(spec, n, args, kw, NULL);
  const unsigned char *s = byteslike_data(self, len);
  Val r = byteslike_new(self, s, *len);
  *d = (unsigned char *)byteslike_data(r, len);
  return r;
}

enum { BT_UPPER, BT_LOWER, BT_SWAP, BT_CAPITAL, BT_TITLE };

static Val bt_case(Val self, int n, const Val *args, const Kw *kw, ArgSpec *spec, int how) {
  unsigned char *d;
  size_t len;
  Val r = bt_copy(self, n, args, kw, spec, &d, &len);
  bool prev_cased = false;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = d[i];
    switch (how) {
    case BT_UPPER: d[i] = bt_up(c); break;
    case BT_LOWER: d[i] = bt_down(c); break;
    case BT_SWAP: d[i] = bt_upper(c) ? bt_down(c) : bt_up(c); break;
    case BT_CAPITAL: d[i] = i ? bt_down(c) : bt_up(c); break;
    default:   /* title: a letter after a non-letter starts a word */
      d[i] = prev_cased ? bt_down(c) : bt_up(c);
      prev_cased = bt_alpha(c);
    }
  }
  return r;
}

#define BT_CASE(fn, nm, how)                                               \
  static Val fn(Val self, int n, const Val *args, const Kw *kw) {          \
    static ArgSpec spec = {.what = nm, .sig = ""};                         \
    return bt_case(self, n, args, kw, &spec, how);                         \
  }
//! bytes.upper()
//!   A copy with the ASCII letters a-z made upper case.
BT_CASE(bt_upper_m, "upper", BT_UPPER)
//! bytes.lower()
//!   A copy with the ASCII letters A-Z made lower case.
BT_CASE(bt_lower_m, "lower", BT_LOWER)
//! bytes.swapcase()
//!   A copy with the case of the ASCII letters swapped.
BT_CASE(bt_swapcase, "swapcase", BT_SWAP)
//! bytes.capitalize()
//!   A copy with the first byte upper case and the other ASCII letters lower case.
BT_CASE(bt_capitalize, "capitalize", BT_CAPITAL)
//! bytes.title()
//!   A copy where each run of ASCII letters starts upper case and goes on lower case.
BT_CASE(bt_title, "title", BT_TITLE)

enum { BT_ISALNUM, BT_ISALPHA, BT_ISASCII, BT_ISDIGIT, BT_ISLOWER, BT_ISSPACE, BT_ISTITLE, BT_ISUPPER };

static Val bt_is(Val self, int n, const Val *args, const Kw *kw, ArgSpec *spec, int how) {
  args_parse(spec, n, args, kw, NULL);
  size_t len;
  const unsigned char *d = byteslike_data(self, &len);
  if (how == BT_ISLOWER || how == BT_ISUPPER) {   /* some cased byte, none of the other case */
    bool any = false;
    for (size_t i = 0; i < len; i++) {
      if (how == BT_ISLOWER ? bt_upper(d[i]) : bt_lower(d[i])) return val_bool(false);
      any |= how == BT_ISLOWER ? bt_lower(d[i]) : bt_upper(d[i]);
    }
    return val_bool(any);
  }
  if (how == BT_ISTITLE) {   /* upper only after uncased, lower only after cased; at least one cased */
    bool any = false, prev = false;
    for (size_t i = 0; i < len; i++) {
      if (bt_upper(d[i])) {
        if (prev) return val_bool(false);
        prev = any = true;
      } else if (bt_lower(d[i])) {
        if (!prev) return val_bool(false);
        prev = any = true;
      } else {
        prev = false;
      }
    }
    return val_bool(any);
  }
  if (!len) return val_bool(how == BT_ISASCII);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = d[i];
    bool ok = how == BT_ISALNUM ? bt_alpha(c) || bt_digit(c) : how == BT_ISALPHA ? bt_alpha(c) : how == BT_ISASCII ? c < 128
            : how == BT_ISDIGIT ? bt_digit(c) : bt_space(c);
    if (!ok) return val_bool(false);
  }
  return val_bool(true);
}

#define BT_IS(fn, nm, how)                                                 \
  static Val fn(Val self, int n, const Val *args, const Kw *kw) {          \
    static ArgSpec spec = {.what = nm, .sig = ""};                         \
    return bt_is(self, n, args, kw, &spec, how);                           \
  }
//! bytes.isalnum()
//!   Whether the bytes are non-empty and all ASCII letters or digits.
BT_IS(bt_isalnum, "isalnum", BT_ISALNUM)
//! bytes.isalpha()
//!   Whether the bytes are non-empty and all ASCII letters.
BT_IS(bt_isalpha, "isalpha", BT_ISALPHA)
//! bytes.isascii()
//!   Whether every byte is below 0x80 (true when empty).
BT_IS(bt_isascii, "isascii", BT_ISASCII)
//! bytes.isdigit()
//!   Whether the bytes are non-empty and all ASCII digits.
BT_IS(bt_isdigit, "isdigit", BT_ISDIGIT)
//! bytes.islower()
//!   Whether there is an ASCII lower-case letter and no upper-case one.
BT_IS(bt_islower, "islower", BT_ISLOWER)
//! bytes.isspace()
//!   Whether the bytes are non-empty and all ASCII whitespace.
BT_IS(bt_isspace, "isspace", BT_ISSPACE)
//! bytes.istitle()
//!   Whether the bytes are title-cased (see title) and hold a letter.
BT_IS(bt_istitle, "istitle", BT_ISTITLE)
//! bytes.isupper()
//!   Whether there is an ASCII upper-case letter and no lower-case one.
BT_IS(bt_isupper, "isupper", BT_ISUPPER)

/* center/ljust/rjust: width and a fill byte (a bytes or bytearray of length 1). */
static Val bt_pad(Val self, int n, const Val *args, const Kw *kw, ArgSpec *spec, char how) {
  Val a[2];
  args_parse(spec, n, args, kw, a);
  int64_t width = val_to_index(a[0], NULL);
  unsigned char fill = ' ';
  if (!val_is_undef(a[1])) {
    size_t m;
    const unsigned char *f = byteslike_data(a[1], &m);
    if (!f || m != 1) rt_throw(ERR_TYPE, "%s() argument 2 must be a byte string of length 1, not %s", spec->what, val_type_name(a[1]));
    fill = f[0];
  }
  size_t len;
  const unsigned char *d = byteslike_data(self, &len);
  if (width <= (int64_t)len) return byteslike_new(self, d, len);
  if (width > ((int64_t)1 << 36)) rt_throw(ERR_MEMORY, "%s", "");
  size_t pad = (size_t)width - len, left = how == '<' ? 0 : how == '>' || how == '0' ? pad : pad / 2 + (pad & (size_t)width & 1);
  unsigned char *buf;
  Val big = bytes_alloc((size_t)width, &buf);
  memset(buf, fill, (size_t)width);
  if (len) memcpy(buf + left, d, len);
  if (how == '0' && len && (d[0] == '+' || d[0] == '-')) {   /* zfill: the sign stays in front */
    buf[left] = '0';
    buf[0] = d[0];
  }
  if (!val_is(self, &bytearray_type)) return big;
  int mark = rt_hold_val(big);
  Val r = bytearray_new(buf, (size_t)width);
  rt_unhold(mark);
  val_decref(big);
  return r;
}

//! bytes.center(width, fillchar=b' ')
//!   The bytes centred in width bytes of fillchar (unchanged when already as long).
static Val bt_center(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "center", .sig = "width, fillchar="};
  return bt_pad(self, n, args, kw, &spec, '^');
}

//! bytes.ljust(width, fillchar=b' ')
//!   The bytes followed by fillchar up to width bytes.
static Val bt_ljust(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "ljust", .sig = "width, fillchar="};
  return bt_pad(self, n, args, kw, &spec, '<');
}

//! bytes.rjust(width, fillchar=b' ')
//!   The bytes preceded by fillchar up to width bytes.
static Val bt_rjust(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "rjust", .sig = "width, fillchar="};
  return bt_pad(self, n, args, kw, &spec, '>');
}

//! bytes.zfill(width)
//!   The bytes preceded by b'0' up to width bytes, after a leading sign.
static Val bt_zfill(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "zfill", .sig = "width"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  Val z = bytes_new("0", 1);
  int mark = rt_hold_val(z);
  Val pa[2] = {a[0], z};
  static ArgSpec pspec = {.what = "zfill", .sig = "width, fillchar="};
  Val r = bt_pad(self, 2, pa, NULL, &pspec, '0');
  rt_unhold(mark);
  val_decref(z);
  return r;
}

//! bytes.expandtabs(tabsize=8)
//!   A copy with each tab replaced by spaces up to the next multiple of tabsize (columns restart after \n and \r).
static Val bt_expandtabs(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "expandtabs", .sig = "tabsize=8"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  int64_t tab = val_to_index(a[0], NULL);
  size_t len;
  const unsigned char *d = byteslike_data(self, &len);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  int64_t col = 0;
  for (size_t i = 0; i < len; i++) {
    if (d[i] == '\t') {
      if (tab > 0) {
        int64_t k = tab - col % tab;
        if (b.len + (size_t)k > ((size_t)1 << 36)) rt_throw(ERR_OVERFLOW, "result too long");
        for (int64_t j = 0; j < k; j++) sb_putc(&b, ' ');
        col += k;
      }
    } else {
      sb_putc(&b, (char)d[i]);
      col = d[i] == '\n' || d[i] == '\r' ? 0 : col + 1;
    }
  }
  Val r = byteslike_new(self, b.len ? b.data : "", b.len);
  rt_unhold(mark);
  sb_free(&b);
  return r;
}

//! bytes.translate(table, delete=b'')
//!   A copy without the bytes in delete, the others mapped through table (256 bytes; None: unchanged).
static Val bt_translate(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "translate", .sig = "table, delete="};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  size_t tn = 0, dn;
  const unsigned char *table = NULL, *del;
  if (a[0].tag != VT_NONE) {
    table = byteslike_data(a[0], &tn);
    if (!table) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(a[0]));
    if (tn != 256) rt_throw(ERR_VALUE, "translation table must be 256 characters long");
  }
  if (val_is_undef(a[1])) del = (const unsigned char *)"", dn = 0;
  else if (!(del = byteslike_data(a[1], &dn))) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(a[1]));
  size_t len;
  const unsigned char *d = byteslike_data(self, &len);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (size_t i = 0; i < len; i++)
    if (!dn || !memchr(del, d[i], dn)) sb_putc(&b, (char)(table ? table[d[i]] : d[i]));
  Val r = byteslike_new(self, b.len ? b.data : "", b.len);
  rt_unhold(mark);
  sb_free(&b);
  return r;
}

//! bytes.maketrans(frm, to)
//!   The 256-byte table for translate that maps each byte of frm to the byte of to at the same place.
static Val bt_maketrans(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  static ArgSpec spec = {.what = "maketrans", .sig = "frm, to"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  size_t fn, tn;
  const unsigned char *f = byteslike_data(a[0], &fn), *t = byteslike_data(a[1], &tn);
  if (!f) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(a[0]));
  if (!t) rt_throw(ERR_TYPE, "a bytes-like object is required, not '%s'", val_type_name(a[1]));
  if (fn != tn) rt_throw(ERR_VALUE, "maketrans arguments must have same length");
  unsigned char tab[256];
  for (int i = 0; i < 256; i++) tab[i] = (unsigned char)i;
  for (size_t i = 0; i < fn; i++) tab[f[i]] = t[i];
  return bytes_new(tab, 256);
}

Val bytes_maketrans_fn(void) { return builtin_new("bytes.maketrans", bt_maketrans, val_undef(), NULL); }

//! bytes.hex(sep=None, bytes_per_sep=1)
//!   The bytes as lowercase hexadecimal digits, two a byte; sep (one ASCII character) between groups of bytes_per_sep bytes, counted from the right (from the left when negative).
static Val bt_hex(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "hex", .sig = "sep=None, bytes_per_sep=1"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  size_t len;
  const unsigned char *d = byteslike_data(self, &len);
  char sep = 0;
  int64_t per = val_to_index(a[1], NULL);
  if (a[0].tag != VT_NONE) {
    size_t m;
    const unsigned char *s = val_is(a[0], &str_type) ? (const unsigned char *)str_cstr(a[0]) : byteslike_data(a[0], &m);
    if (val_is(a[0], &str_type)) m = (size_t)str_len(a[0]);
    if (!s) rt_throw(ERR_TYPE, "object of type '%s' has no len()", val_type_name(a[0]));
    if (val_is(a[0], &str_type) && m > 1 && m <= 4 && s[0] >= 0xC0 && utf8_seq(s, m, NULL) == m) m = 1;   /* one non-ASCII character */
    if (m != 1) rt_throw(ERR_VALUE, "sep must be length 1.");
    if (s[0] >= 0x80) rt_throw(ERR_VALUE, "sep must be ASCII.");
    sep = (char)s[0];
  }
  static const char digits[] = "0123456789abcdef";
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  uint64_t g = per < 0 ? (uint64_t)-per : (uint64_t)per;
  for (size_t i = 0; i < len; i++) {
    if (sep && g && i) {   /* a group boundary before byte i */
      bool cut = per > 0 ? (len - i) % g == 0 : i % g == 0;
      if (cut) sb_putc(&b, sep);
    }
    sb_putc(&b, digits[d[i] >> 4]);
    sb_putc(&b, digits[d[i] & 15]);
  }
  rt_unhold(mark);
  size_t bl = b.len;
  return str_take(sb_steal(&b), (tfs_i64)bl);
}

static int bt_hexval(int c) { return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1; }

/* fromhex: the bytes two hexadecimal digits each give; ASCII whitespace between the pairs is skipped. */
static Val bt_fromhex(Val self, int n, const Val *args, const Kw *kw, bool mutable_) {
  (void)self;
  static ArgSpec spec = {.what = "fromhex", .sig = "string"};
  Val a[1];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "fromhex() argument must be str, not %s", val_type_name(a[0]));
  const char *s = str_cstr(a[0]);
  size_t len = (size_t)str_len(a[0]), m = 0;
  unsigned char *d = malloc(len / 2 + 1);
  if (!d) rt_throw(ERR_MEMORY, "out of memory");
  /* every pair is checked before anything is owned that an error would leak (d is freed first) */
  for (size_t i = 0; i < len;) {
    if (bt_space((unsigned char)s[i])) { i++; continue; }
    size_t bad = bt_hexval((unsigned char)s[i]) < 0 ? i : i + 1 >= len || bt_hexval((unsigned char)s[i + 1]) < 0 ? i + 1 : len;
    if (bad < len || bad == i + 1) {
      free(d);
      rt_throw(ERR_VALUE, "non-hexadecimal number found in fromhex() arg at position %zu", bad);
    }
    d[m++] = (unsigned char)(bt_hexval((unsigned char)s[i]) * 16 + bt_hexval((unsigned char)s[i + 1]));
    i += 2;
  }
  Val r = mutable_ ? bytearray_new(d, m) : bytes_new(d, m);   /* out of memory here leaks d: as everywhere, fatal */
  free(d);
  return r;
}

//! bytes.fromhex(string)
//!   The bytes two hexadecimal digits each give; whitespace between the pairs is skipped: bytes.fromhex('01 ff').
static Val bt_fromhex_b(Val self, int n, const Val *args, const Kw *kw) { return bt_fromhex(self, n, args, kw, false); }

//! bytearray.fromhex(string)
//!   As bytes.fromhex, giving a bytearray.
static Val bt_fromhex_ba(Val self, int n, const Val *args, const Kw *kw) { return bt_fromhex(self, n, args, kw, true); }

Val bytes_fromhex_fn(bool mutable_) {
  return mutable_ ? builtin_new("bytearray.fromhex", bt_fromhex_ba, val_undef(), NULL)
                  : builtin_new("bytes.fromhex", bt_fromhex_b, val_undef(), NULL);
}

/* ---- decode ---------------------------------------------------------------------------------- */

enum { BT_UTF8, BT_ASCII, BT_LATIN1 };

/* The codec an encoding name means, after CPython's normalization (case, '-' and ' ' as '_'); -1: unknown. */
static int bt_codec(const char *enc) {
  char nm[32];
  size_t k = 0;
  for (; enc[k] && k < sizeof nm - 1; k++) nm[k] = enc[k] == '-' || enc[k] == ' ' ? '_' : (char)tolower((unsigned char)enc[k]);
  if (enc[k]) return -1;
  nm[k] = 0;
  static const char *const names[][8] = {
    {"utf_8", "utf8", "u8", "utf", "cp65001", NULL},
    {"ascii", "us_ascii", "646", "us", NULL},
    {"latin_1", "latin1", "latin", "l1", "iso_8859_1", "iso8859_1", "8859", "cp819"},
  };
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 8 && names[c][i]; i++)
      if (!strcmp(nm, names[c][i])) return c;
  return -1;
}

/* Bytes of the invalid UTF-8 run at s that one error covers: the valid prefix of a sequence, at least one byte. */
static size_t bt_bad_run(const unsigned char *s, size_t avail) {
  unsigned c = s[0];
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  size_t k = 1;
  for (; k < n && k < avail; k++) {
    unsigned lo = 0x80, hi = 0xBF;
    if (k == 1 && c == 0xE0) lo = 0xA0;
    if (k == 1 && c == 0xED) hi = 0x9F;
    if (k == 1 && c == 0xF0) lo = 0x90;
    if (k == 1 && c == 0xF4) hi = 0x8F;
    if (s[k] < lo || s[k] > hi) break;
  }
  return k;
}

static void bt_put_cp(StrBuf *b, unsigned cp) {
  if (cp < 0x80) sb_putc(b, (char)cp);
  else if (cp < 0x800) sb_putc(b, (char)(0xC0 | cp >> 6)), sb_putc(b, (char)(0x80 | (cp & 63)));
  else sb_putc(b, (char)(0xE0 | cp >> 12)), sb_putc(b, (char)(0x80 | (cp >> 6 & 63))), sb_putc(b, (char)(0x80 | (cp & 63)));
}

//! bytes.decode(encoding='utf-8', errors='strict')
//!   The str the bytes encode in UTF-8, ASCII or Latin-1; errors 'strict' (UnicodeDecodeError), 'ignore', 'replace' (U+FFFD) or 'backslashreplace' for the bytes that are not valid.
static Val bt_decode(Val self, int n, const Val *args, const Kw *kw) {
  static ArgSpec spec = {.what = "decode", .sig = "encoding='utf-8', errors='strict'"};
  Val a[2];
  args_parse(&spec, n, args, kw, a);
  if (!val_is(a[0], &str_type)) rt_throw(ERR_TYPE, "decode() argument 'encoding' must be str, not %s", val_type_name(a[0]));
  if (!val_is(a[1], &str_type)) rt_throw(ERR_TYPE, "decode() argument 'errors' must be str, not %s", val_type_name(a[1]));
  const char *enc = str_cstr(a[0]), *errs = str_cstr(a[1]);
  int codec = bt_codec(enc);
  if (codec < 0) {
    char msg[200];
    snprintf(msg, sizeof msg, "unknown encoding: %.150s", enc);
    exc_raise_class(exc_lookup("LookupError", false), ERR_RUNTIME, msg);
  }
  size_t len;
  const unsigned char *d = byteslike_data(self, &len);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (size_t i = 0; i < len;) {
    if (codec == BT_LATIN1) {
      bt_put_cp(&b, d[i++]);
      continue;
    }
    const char *why = NULL;
    size_t k = codec == BT_ASCII ? (d[i] < 0x80 ? 1 : 0) : utf8_seq(d + i, len - i, &why);
    if (k) {
      sb_putn(&b, (const char *)d + i, k);
      i += k;
      continue;
    }
    size_t bad = codec == BT_ASCII ? 1 : bt_bad_run(d + i, len - i);
    if (!strcmp(errs, "strict")) {   /* a truncated sequence at the end is reported whole, as CPython does */
      size_t end = codec == BT_UTF8 && !strcmp(why, "unexpected end of data") ? len : i + 1;
      exc_unicode_decode_error(codec == BT_ASCII ? "ascii" : "utf-8", d[i], i, end, codec == BT_ASCII ? "ordinal not in range(128)" : why);
    } else if (!strcmp(errs, "replace")) {
      bt_put_cp(&b, 0xFFFD);
    } else if (!strcmp(errs, "backslashreplace")) {
      for (size_t j = 0; j < bad; j++) sb_printf(&b, "\\x%02x", d[i + j]);
    } else if (strcmp(errs, "ignore")) {
      char msg[200];
      snprintf(msg, sizeof msg, "unknown error handler name '%.150s'", errs);
      exc_raise_class(exc_lookup("LookupError", false), ERR_RUNTIME, msg);
    }
    i += bad;
  }
  rt_unhold(mark);
  size_t bl = b.len;
  return str_take(sb_steal(&b), (tfs_i64)bl);
}

typedef struct BtEntry { const char *name; BuiltinFn fn; } BtEntry;
static const BtEntry bt_table[] = {
  {"bytes.capitalize", bt_capitalize}, {"bytes.center", bt_center},   {"bytes.decode", bt_decode},
  {"bytes.expandtabs", bt_expandtabs}, {"bytes.hex", bt_hex},         {"bytes.isalnum", bt_isalnum},
  {"bytes.isalpha", bt_isalpha},       {"bytes.isascii", bt_isascii}, {"bytes.isdigit", bt_isdigit},
  {"bytes.islower", bt_islower},       {"bytes.isspace", bt_isspace}, {"bytes.istitle", bt_istitle},
  {"bytes.isupper", bt_isupper},       {"bytes.ljust", bt_ljust},     {"bytes.lower", bt_lower_m},
  {"bytes.rjust", bt_rjust},           {"bytes.swapcase", bt_swapcase}, {"bytes.title", bt_title},
  {"bytes.translate", bt_translate},   {"bytes.upper", bt_upper_m},   {"bytes.zfill", bt_zfill},
};

Val bytes_text_method(Val self, const char *name) {
  if (!strcmp(name, "fromhex")) return bytes_fromhex_fn(val_is(self, &bytearray_type));
  if (!strcmp(name, "maketrans")) return bytes_maketrans_fn();
  for (size_t i = 0; i < sizeof bt_table / sizeof bt_table[0]; i++)
    if (!strcmp(bt_table[i].name + 6, name)) return builtin_new(bt_table[i].name, bt_table[i].fn, self, NULL);
  return val_undef();
}
