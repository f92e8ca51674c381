/* strmore.c — str's less common methods: casefold expandtabs isascii isdecimal isdigit isnumeric isprintable isidentifier istitle
 * removeprefix removesuffix translate, and str.maketrans.
 *
 * Character classes beyond ASCII follow Latin-1 (superscript digits, fractions, its non-printables) and the case pairs of
 * strmethods.c; other code points count as printable letters, not digits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/hosttypes.h"
#include "object/object.h"
#include "object/value.h"

static void sx_none(const char *what, int n, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "str.%s() takes no keyword arguments", what);
  if (n) rt_throw(ERR_TYPE, "str.%s() takes no arguments (%d given)", what, n);
}

static void sx_one(const char *what, int n, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "str.%s() takes no keyword arguments", what);
  if (n != 1) rt_throw(ERR_TYPE, "str.%s() takes exactly one argument (%d given)", what, n);
}

/* The code point at s[*i] (advancing *i). */
static uint32_t sx_next(const unsigned char *s, tfs_i64 n, tfs_i64 *i) {
  unsigned char c = s[*i];
  int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if (len > n - *i) len = (int)(n - *i);
  uint32_t cp = len == 1 ? c : (uint32_t)(c & (0x3F >> (len - 1)));
  for (int k = 1; k < len; k++) cp = (cp << 6) | (s[*i + k] & 0x3F);
  *i += len;
  return cp;
}

static void sx_put(StrBuf *b, uint32_t c) {
  char e[4];
  int n = 0;
  if (c < 0x80) e[n++] = (char)c;
  else if (c < 0x800) e[n++] = (char)(0xC0 | c >> 6), e[n++] = (char)(0x80 | (c & 0x3F));
  else if (c < 0x10000)
    e[n++] = (char)(0xE0 | c >> 12), e[n++] = (char)(0x80 | ((c >> 6) & 0x3F)), e[n++] = (char)(0x80 | (c & 0x3F));
  else
    e[n++] = (char)(0xF0 | c >> 18), e[n++] = (char)(0x80 | ((c >> 12) & 0x3F)), e[n++] = (char)(0x80 | ((c >> 6) & 0x3F)),
    e[n++] = (char)(0x80 | (c & 0x3F));
  sb_putn(b, e, (size_t)n);
}

static Val sx_result(StrBuf *b) {
  size_t n = b->len;
  return str_take(sb_steal(b), (tfs_i64)n);
}

/* ---- character classes ----------------------------------------------------------------------------- */

/* The first code points of Unicode's common blocks of ten decimal digits (Arabic-Indic, Devanagari, ..., fullwidth). */
static const uint32_t sx_zeros[] = {'0', 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
                                    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x17E0, 0x1810, 0xFF10};

static bool sx_decimal(uint32_t c) {
  for (size_t i = 0; i < sizeof sx_zeros / sizeof sx_zeros[0]; i++)
    if (c >= sx_zeros[i] && c < sx_zeros[i] + 10) return true;
  return false;
}
static bool sx_digit(uint32_t c) { return sx_decimal(c) || c == 0xB2 || c == 0xB3 || c == 0xB9; }
static bool sx_numeric(uint32_t c) { return sx_digit(c) || (c >= 0xBC && c <= 0xBE); }
static bool sx_printable(uint32_t c) { return c < 0x80 ? c >= 0x20 && c < 0x7F : c > 0xA0 && c != 0xAD; }
static bool sx_letter(uint32_t c) {
  uint32_t o;
  if (c < 0x80) return (c | 32) >= 'a' && (c | 32) <= 'z';
  if (c < 0x100) return c == 0xAA || c == 0xB5 || c == 0xBA || (c >= 0xC0 && c != 0xD7 && c != 0xF7);
  return str_case_of(c, &o) != 0 || (c >= 0x250 && !sx_decimal(c));   /* beyond the case table: count as a letter */
}

/* Whether every code point passes (an empty string: `empty`). */
static Val sx_all(Val self, bool (*f)(uint32_t), bool empty) {
  const unsigned char *s = (const unsigned char *)str_cstr(self);
  tfs_i64 n = str_len(self);
  if (!n) return val_bool(empty);
  for (tfs_i64 i = 0; i < n;)
    if (!f(sx_next(s, n, &i))) return val_bool(false);
  return val_bool(true);
}

static bool sx_ascii_c(uint32_t c) { return c < 0x80; }

static Val sx_isascii(Val self, int n, const Val *args, const Kw *kw) {
  sx_none("isascii", n, kw);
  return sx_all(self, sx_ascii_c, true);
}
static Val sx_isdigit(Val self, int n, const Val *args, const Kw *kw) {
  sx_none("isdigit", n, kw);
  return sx_all(self, sx_digit, false);
}
static Val sx_isdecimal(Val self, int n, const Val *args, const Kw *kw) {
  sx_none("isdecimal", n, kw);
  return sx_all(self, sx_decimal, false);
}
static Val sx_isnumeric(Val self, int n, const Val *args, const Kw *kw) {
  sx_none("isnumeric", n, kw);
  return sx_all(self, sx_numeric, false);
}
static Val sx_isprintable(Val self, int n, const Val *args, const Kw *kw) {
  sx_none("isprintable", n, kw);
  return sx_all(self, sx_printable, true);
}

static Val sx_isidentifier(Val self, int n, const Val *args, const Kw *kw) {
  sx_none("isidentifier", n, kw);
  const unsigned char *s = (const unsigned char *)str_cstr(self);
  tfs_i64 len = str_len(self);
  for (tfs_i64 i = 0; i < len;) {
    bool first = i == 0;
    uint32_t c = sx_next(s, len, &i);
    if (!(c == '_' || sx_letter(c) || (!first && (sx_decimal(c) || c == 0xB7)))) return val_bool(false);
  }
  return val_bool(len > 0);
}

/* istitle: some cased character; upper-case ones only after uncased ones, lower-case ones only after cased ones. */
static Val sx_istitle(Val self, int n, const Val *args, const Kw *kw) {
  sx_none("istitle", n, kw);
  const unsigned char *s = (const unsigned char *)str_cstr(self);
  tfs_i64 len = str_len(self);
  bool cased = false, prev = false;
  for (tfs_i64 i = 0; i < len;) {
    uint32_t o;
    int k = str_case_of(sx_next(s, len, &i), &o);
    if ((k == 'u' && prev) || (k == 'l' && !prev)) return val_bool(false);
    prev = k != 0;
    cased = cased || prev;
  }
  return val_bool(cased);
}

/* ---- rewriting ------------------------------------------------------------------------------------- */

/* casefold: lower(), with 'ß' -> 'ss', final sigma -> 'σ' and micro sign -> 'μ' (the full folds of Latin-1 and Greek). */
static Val sx_casefold(Val self, int n, const Val *args, const Kw *kw) {
  sx_none("casefold", n, kw);
  const unsigned char *s = (const unsigned char *)str_cstr(self);
  tfs_i64 len = str_len(self);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (tfs_i64 i = 0; i < len;) {
    uint32_t c = sx_next(s, len, &i), o;
    if (c == 0xDF) sb_puts(&b, "ss");
    else if (c == 0x3C2) sx_put(&b, 0x3C3);
    else if (c == 0xB5) sx_put(&b, 0x3BC);
    else sx_put(&b, str_case_of(c, &o) == 'u' ? o : c);
  }
  rt_unhold(mark);
  return sx_result(&b);
}

/* expandtabs(tabsize=8): each tab to spaces up to the next multiple of tabsize; newlines restart the column. */
static Val sx_expandtabs(Val self, int n, const Val *args, const Kw *kw) {
  int nkw = kw ? kw->n : 0;
  if (n + nkw > 1) rt_throw(ERR_TYPE, "expandtabs() takes at most 1 argument (%d given)", n + nkw);
  Val ts = n ? args[0] : val_int(8);
  if (nkw && strcmp(kw->names[0], "tabsize")) rt_throw(ERR_TYPE, "'%s' is an invalid keyword argument for expandtabs()", kw->names[0]);
  if (nkw) ts = kw->vals[0];
  tfs_i64 tab = val_to_index(ts, NULL);
  const unsigned char *s = (const unsigned char *)str_cstr(self);
  tfs_i64 len = str_len(self), col = 0;
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (tfs_i64 i = 0; i < len;) {
    tfs_i64 at = i;
    uint32_t c = sx_next(s, len, &i);
    if (c == '\t') {
      if (tab > 0) {
        sb_fill(&b, " ", 1, (size_t)(tab - col % tab));
        col += tab - col % tab;
      }
      continue;
    }
    sb_putn(&b, (const char *)s + at, (size_t)(i - at));
    col = c == '\n' || c == '\r' ? 0 : col + 1;
  }
  rt_unhold(mark);
  return sx_result(&b);
}

static Val sx_fix(const char *what, Val self, int n, const Val *args, const Kw *kw, bool suffix) {
  sx_one(what, n, kw);
  if (!val_is(args[0], &str_type)) rt_throw(ERR_TYPE, "%s() argument must be str, not %s", what, val_type_name(args[0]));
  tfs_i64 ns = str_len(self), na = str_len(args[0]);
  const char *s = str_cstr(self);
  if (na > ns || memcmp(suffix ? s + ns - na : s, str_cstr(args[0]), (size_t)na) || !na) return val_incref(self);
  return str_new(suffix ? s : s + na, ns - na);
}
static Val sx_removeprefix(Val self, int n, const Val *args, const Kw *kw) {
  return sx_fix("removeprefix", self, n, args, kw, false);
}
static Val sx_removesuffix(Val self, int n, const Val *args, const Kw *kw) {
  return sx_fix("removesuffix", self, n, args, kw, true);
}

/* table[c] for translate, or VT_UNDEF when the lookup raises LookupError (the character stays). */
static Val sx_lookup(Val table, uint32_t c) {
  if (val_is(table, &dict_type)) return dict_get(table, val_int(c));
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val r = rt_getitem(table, val_int(c));
    rt_try_pop(&t);
    return r;
  }
  Val e = val_is(t.exc, &exc_type) ? t.exc : val_undef();
  bool miss = val_is_undef(e) ? t.kind == ERR_KEY || t.kind == ERR_INDEX
                              : exc_class_sub(exc_class_of(e), exc_lookup("LookupError", false));
  if (!miss) rt_rethrow(&t);
  rt_try_clear(&t);
  return val_undef();
}

static Val sx_translate(Val self, int n, const Val *args, const Kw *kw) {
  sx_one("translate", n, kw);
  const unsigned char *s = (const unsigned char *)str_cstr(self);
  tfs_i64 len = str_len(self);
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  for (tfs_i64 i = 0; i < len;) {
    tfs_i64 at = i;
    uint32_t c = sx_next(s, len, &i);
    Val r = sx_lookup(args[0], c);
    int64_t k;
    if (val_is_undef(r)) sb_putn(&b, (const char *)s + at, (size_t)(i - at));
    else if (r.tag == VT_NONE) continue;
    else if (val_is(r, &str_type)) sb_putn(&b, str_cstr(r), (size_t)str_len(r));
    else if (r.tag == VT_INT || r.tag == VT_BOOL ? (k = r.u.i, true) : false) {
      if (k < 0 || k >= 0x110000) {
        val_decref(r);
        rt_throw(ERR_VALUE, "character mapping must be in range(0x110000)");
      }
      sx_put(&b, (uint32_t)k);
    } else {
      val_decref(r);
      rt_throw(ERR_TYPE, "character mapping must return integer, None or str");
    }
    val_decref(r);
  }
  rt_unhold(mark);
  return sx_result(&b);
}

/* str.maketrans(x[, y[, z]]): a dict from code points to code points, strings or None. */
static Val sx_maketrans(Val self, int n, const Val *args, const Kw *kw) {
  if (kw && kw->n) rt_throw(ERR_TYPE, "str.maketrans() takes no keyword arguments");
  if (n < 1) rt_throw(ERR_TYPE, "maketrans expected at least 1 argument, got %d", n);
  if (n > 3) rt_throw(ERR_TYPE, "maketrans expected at most 3 arguments, got %d", n);
  for (int k = 1; k < n; k++)
    if (!val_is(args[k], &str_type))
      rt_throw(ERR_TYPE, "maketrans() argument %d must be str, not %s", k + 1, val_type_name(args[k]));
  Val d = dict_new();
  int mark = rt_hold_val(d);
  if (n == 1) {
    if (!val_is(args[0], &dict_type)) rt_throw(ERR_TYPE, "if you give only one argument to maketrans it must be a dict");
    Val keys = dict_keys_list(args[0]);
    int km = rt_hold_val(keys);
    for (tfs_i64 i = 0; i < ((List *)keys.u.o)->len; i++) {
      Val key = ((List *)keys.u.o)->items[i], ck = key;
      if (val_is(key, &str_type)) {
        if (str_nchars(key) != 1) rt_throw(ERR_VALUE, "string keys in translate table must be of length 1");
        tfs_i64 at = 0;
        ck = val_int(sx_next((const unsigned char *)str_cstr(key), str_len(key), &at));
      } else if (key.tag != VT_INT && key.tag != VT_BOOL) {
        rt_throw(ERR_TYPE, "keys in translate table must be strings or integers");
      }
      Val v = dict_get(args[0], key);
      dict_set(d, ck, v);
      val_decref(v);
    }
    rt_unhold(km);
    val_decref(keys);
  } else {
    if (!val_is(args[0], &str_type))
      rt_throw(ERR_TYPE, "first maketrans argument must be a string if there is a second argument");
    if (str_nchars(args[0]) != str_nchars(args[1]))
      rt_throw(ERR_VALUE, "the first two maketrans arguments must have equal length");
    const unsigned char *x = (const unsigned char *)str_cstr(args[0]), *y = (const unsigned char *)str_cstr(args[1]);
    for (tfs_i64 i = 0, j = 0; i < str_len(args[0]);) {
      Val from = val_int(sx_next(x, str_len(args[0]), &i));
      dict_set(d, from, val_int(sx_next(y, str_len(args[1]), &j)));
    }
    if (n == 3)
      for (tfs_i64 i = 0; i < str_len(args[2]);) dict_set(d, val_int(sx_next((const unsigned char *)str_cstr(args[2]), str_len(args[2]), &i)), val_none());
  }
  rt_unhold(mark);
  return d;
}

Val str_maketrans_fn(void) { return builtin_new("str.maketrans", sx_maketrans, val_undef(), NULL); }

typedef struct SxEntry { const char *name; BuiltinFn fn; } SxEntry;
static const SxEntry sx_table[] = {
  {"str.casefold", sx_casefold},       {"str.expandtabs", sx_expandtabs},   {"str.isascii", sx_isascii},
  {"str.isdecimal", sx_isdecimal},     {"str.isdigit", sx_isdigit},     {"str.isidentifier", sx_isidentifier}, {"str.isnumeric", sx_isnumeric},
  {"str.isprintable", sx_isprintable}, {"str.istitle", sx_istitle},         {"str.removeprefix", sx_removeprefix},
  {"str.removesuffix", sx_removesuffix}, {"str.translate", sx_translate},
};

Val strmore_get(Val self, const char *name) {
  if (!strcmp(name, "maketrans")) return str_maketrans_fn();   /* a static method, reachable from values too */
  for (size_t i = 0; i < sizeof sx_table / sizeof sx_table[0]; i++)
    if (!strcmp(sx_table[i].name + 4, name)) return builtin_new(sx_table[i].name, sx_table[i].fn, self, NULL);
  return val_undef();
}
