/* format.c — format(v, spec) (Python's format-spec mini-language), f-string assembly, and `str % args`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/bigint.h"
#include "object/hosttypes.h"
#include "object/numfmt.h"
#include "object/object.h"
#include "object/hooks.h"
#include "object/value.h"

static bool rt_is_tensor(Val v) { return v.tag == VT_OBJ && rt_obj_hooks.is_tensor && rt_obj_hooks.is_tensor(v); }

/* [[fill]align][sign][z][#][0][width][grouping][.precision][type] */
typedef struct FmtSpec {
  char fill[5];               /* one UTF-8 code point */
  char align;                 /* '<' '>' '^' '=' or 0 (type default) */
  char sign;                  /* '+' '-' ' ' or 0 */
  bool z, alt, zero;
  int64_t width;              /* -1: not given */
  int prec;                   /* -1: not given */
  char group;                 /* ',' '_' or 0 */
  char type;                  /* 0: none */
} FmtSpec;

static _Noreturn void fmt_invalid(const char *spec, size_t n, Val v) {
  rt_throw(ERR_VALUE, "Invalid format specifier '%.*s' for object of type '%s'", (int)n, spec, val_type_name(v));
}

static bool fmt_is_align(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

static int fmt_cplen(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

static void fmt_parse(FmtSpec *f, const char *s, size_t n, Val v) {
  memset(f, 0, sizeof *f);
  f->fill[0] = ' ';
  f->width = f->prec = -1;
  size_t i = 0;
  int fl = n ? fmt_cplen((unsigned char)s[0]) : 1;
  if ((size_t)fl < n && fmt_is_align(s[fl])) {
    memcpy(f->fill, s, (size_t)fl);
    f->fill[fl] = 0;
    f->align = s[fl];
    i = (size_t)fl + 1;
  } else if (n && fmt_is_align(s[0])) {
    f->align = s[0];
    i = 1;
  }
  bool explicit_fill = i == (size_t)fl + 1 && i > 1;
  if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) f->sign = s[i++];
  if (i < n && s[i] == 'z') f->z = true, i++;
  if (i < n && s[i] == '#') f->alt = true, i++;
  if (i < n && s[i] == '0') {
    f->zero = true;
    i++;
    if (!explicit_fill) strcpy(f->fill, "0");
  }
  if (i < n && s[i] >= '0' && s[i] <= '9') {
    f->width = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')   /* any size that fits: padding checks it before allocating */
      if (__builtin_mul_overflow(f->width, 10, &f->width) || __builtin_add_overflow(f->width, s[i++] - '0', &f->width))
        rt_throw(ERR_VALUE, "Too many decimal digits in format string");
  }
  if (i < n && (s[i] == ',' || s[i] == '_')) f->group = s[i++];
  if (i < n && (s[i] == ',' || s[i] == '_')) rt_throw(ERR_VALUE, "Cannot specify both ',' and '_'.");
  if (i < n && s[i] == '.') {
    i++;
    if (i >= n || s[i] < '0' || s[i] > '9') rt_throw(ERR_VALUE, "Format specifier missing precision");
    f->prec = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
      f->prec = f->prec * 10 + (s[i++] - '0');
      if (f->prec > 100000000) rt_throw(ERR_VALUE, "Too many decimal digits in format string");
    }
  }
  if (i + 1 < n) fmt_invalid(s, n, v);
  if (i < n) f->type = s[i];
}

static size_t fmt_nchars(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) c++;
  return c;
}

/* Emit prefix (sign, 0x) and body padded to f->width with f->align. */
static void fmt_pad(StrBuf *b, const FmtSpec *f, char dflt_align, const char *prefix, const char *body, size_t blen) {
  size_t plen = strlen(prefix), used = plen + fmt_nchars(body, blen);
  size_t pad = f->width > 0 && (size_t)f->width > used ? (size_t)f->width - used : 0;
  char align = f->align ? f->align : dflt_align;
  size_t left = align == '>' ? pad : align == '^' ? pad / 2 : 0, right = align == '<' ? pad : align == '^' ? pad - pad / 2 : 0;
  size_t fl = strlen(f->fill);
  sb_fill(b, f->fill, fl, left);
  sb_puts(b, prefix);
  if (align == '=') sb_fill(b, f->fill, fl, pad);
  sb_putn(b, body, blen);
  sb_fill(b, f->fill, fl, right);
}

/* Insert group separators every `every` digits into the leading digit run of s.
 * With zero padding (`minw` > 0), grow the run with zeros to reach that width. */
static void fmt_group(StrBuf *out, const char *s, size_t n, char sep, int every, size_t minw) {
  size_t nd = 0;   /* hex digits only occur in ints (every == 4); floats stop at '.' or 'e' */
  while (nd < n && ((s[nd] >= '0' && s[nd] <= '9') ||
                    (every == 4 && ((s[nd] >= 'a' && s[nd] <= 'f') || (s[nd] >= 'A' && s[nd] <= 'F')))))
    nd++;
  size_t total = nd;
  for (;;) {   /* digits (with zeros) + separators must reach minw; never start with a separator */
    size_t w = total + (total - 1) / (size_t)every + (n - nd);
    if (w >= minw) break;
    total++;
  }
  for (size_t k = 0; k < total; k++) {
    if (k && (total - k) % (size_t)every == 0) sb_putc(out, sep);
    sb_putc(out, k < total - nd ? '0' : s[k - (total - nd)]);
  }
  sb_putn(out, s + nd, n - nd);
}

static void fmt_check_group(const FmtSpec *f, const char *allowed_underscore, const char *allowed_comma) {
  if (!f->group || !f->type) return;
  const char *ok = f->group == '_' ? allowed_underscore : allowed_comma;
  if (!strchr(ok, f->type)) rt_throw(ERR_VALUE, "Cannot specify '%c' with '%c'.", f->group, f->type);
}

/* Assemble sign + prefix + body with grouping and padding. */
static void fmt_number(StrBuf *b, const FmtSpec *f, bool neg, const char *prefix, const char *digits, size_t n,
                       int every) {
  char pre[8];
  snprintf(pre, sizeof pre, "%s%s", neg ? "-" : f->sign == '+' ? "+" : f->sign == ' ' ? " " : "", prefix);
  StrBuf body;
  sb_init(&body);
  bool zero_pad = f->fill[0] == '0' && !f->fill[1] && (f->align == '=' || (!f->align && f->zero));
  if (f->group) {
    size_t minw = zero_pad && f->width > 0 && (size_t)f->width > strlen(pre) ? (size_t)f->width - strlen(pre) : 0;
    fmt_group(&body, digits, n, f->group, every, minw);
  } else {
    sb_putn(&body, digits, n);
  }
  FmtSpec g = *f;
  if (zero_pad) g.align = '=';
  fmt_pad(b, &g, '>', pre, body.data ? body.data : "", body.len);
  sb_free(&body);
}

static void fmt_int(StrBuf *b, int64_t x, const FmtSpec *f, Val v) {
  if (f->prec >= 0) rt_throw(ERR_VALUE, "Precision not allowed in integer format specifier");
  if (f->z) rt_throw(ERR_VALUE, "Negative zero coercion (z) not allowed in integer format specifier");
  fmt_check_group(f, "dboxXn", "d");
  if (f->type == 'n' && f->group) rt_throw(ERR_VALUE, "Cannot specify '%c' with 'n'.", f->group);
  char digits[80];
  uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  const char *prefix = "";
  int every = 3;
  switch (f->type) {
    case 0:
    case 'd':
    case 'n': snprintf(digits, sizeof digits, "%llu", (unsigned long long)u); break;
    case 'x':
    case 'X':
      snprintf(digits, sizeof digits, f->type == 'x' ? "%llx" : "%llX", (unsigned long long)u);
      prefix = f->alt ? (f->type == 'x' ? "0x" : "0X") : "";
      every = 4;
      break;
    case 'o':
      snprintf(digits, sizeof digits, "%llo", (unsigned long long)u);
      prefix = f->alt ? "0o" : "";
      every = 4;
      break;
    case 'b': {
      int k = 0;
      char tmp[70];
      do tmp[k++] = (char)('0' + (u & 1)); while ((u >>= 1));
      for (int j = 0; j < k; j++) digits[j] = tmp[k - 1 - j];
      digits[k] = 0;
      prefix = f->alt ? "0b" : "";
      every = 4;
      break;
    }
    case 'c': {
      if (f->sign) rt_throw(ERR_VALUE, "Sign not allowed with integer format specifier 'c'");
      if (x < 0 || x > 0x10FFFF) rt_throw(ERR_OVERFLOW, "%%c arg not in range(0x110000)");
      char enc[5];
      int n = 0;
      uint32_t c = (uint32_t)x;
      if (c < 0x80) enc[n++] = (char)c;
      else if (c < 0x800) enc[n++] = (char)(0xC0 | c >> 6), enc[n++] = (char)(0x80 | (c & 0x3F));
      else if (c < 0x10000)
        enc[n++] = (char)(0xE0 | c >> 12), enc[n++] = (char)(0x80 | ((c >> 6) & 0x3F)), enc[n++] = (char)(0x80 | (c & 0x3F));
      else
        enc[n++] = (char)(0xF0 | c >> 18), enc[n++] = (char)(0x80 | ((c >> 12) & 0x3F)),
        enc[n++] = (char)(0x80 | ((c >> 6) & 0x3F)), enc[n++] = (char)(0x80 | (c & 0x3F));
      fmt_pad(b, f, '<', "", enc, (size_t)n);
      return;
    }
    default: rt_throw(ERR_VALUE, "Unknown format code '%c' for object of type '%s'", f->type, val_type_name(v));
  }
  fmt_number(b, f, x < 0, prefix, digits, strlen(digits), every);
}

/* No type letter but a precision: like 'g', except that fixed notation keeps a
 * digit after the point and switches to exponents one digit earlier (CPython's
 * Py_DTSF_ADD_DOT_0 rule: exponent when decpt > p - 1). */
static void fmt_float_general(StrBuf *b, double a, int p, bool alt) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%.*e", p - 1, a);
  int decpt = atoi(strchr(tmp, 'e') + 1) + 1;
  StrBuf t;
  sb_init(&t);
  if (decpt <= -4 || decpt > p - 1) {
    sb_puts(&t, tmp);
    char *e = strchr(t.data, 'e');
    size_t m = (size_t)(e - t.data), k = m;
    if (!alt && memchr(t.data, '.', m)) {   /* drop trailing zeros of the mantissa, and a bare point */
      while (k > 0 && t.data[k - 1] == '0') k--;
      if (k > 0 && t.data[k - 1] == '.') k--;
    }
    sb_putn(b, t.data, k);
    sb_puts(b, e);
  } else {
    sb_printf(&t, "%.*f", p - decpt, a);
    size_t k = t.len;
    if (!alt && memchr(t.data, '.', k)) {
      while (k > 0 && t.data[k - 1] == '0') k--;
    }
    sb_putn(b, t.data, k);
    if (!memchr(t.data, '.', k)) sb_puts(b, ".0");
    else if (t.data[k - 1] == '.') sb_putc(b, '0');
  }
  sb_free(&t);
}

static void fmt_float(StrBuf *b, double x, const FmtSpec *f, Val v) {
  char type = f->type;
  if (type && !strchr("eEfFgGn%", type))
    rt_throw(ERR_VALUE, "Unknown format code '%c' for object of type '%s'", type, val_type_name(v));
  fmt_check_group(f, "eEfFgG%", "eEfFgG%");
  if (type == 'n' && f->group) rt_throw(ERR_VALUE, "Cannot specify '%c' with 'n'.", f->group);
  bool upper = type == 'E' || type == 'F' || type == 'G';
  bool neg = signbit(x) && !isnan(x);
  double a = fabs(x);
  StrBuf body;
  sb_init(&body);
  if (isnan(x) || isinf(x)) {
    sb_puts(&body, isnan(x) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
    if (type == '%') sb_putc(&body, '%');
  } else if (!type && f->prec < 0) {
    numfmt_repr_double(&body, a);
  } else if (!type) {
    fmt_float_general(&body, a, f->prec ? f->prec : 1, f->alt);
  } else {
    int p = f->prec < 0 ? 6 : f->prec;
    char c = type;
    if (c == 'n') c = 'g';
    if (c == 'F') c = 'f';
    if (c == '%') {
      a *= 100;
      c = 'f';
    }
    if ((c == 'g' || c == 'G') && p == 0) p = 1;
    char fmt[16];
    snprintf(fmt, sizeof fmt, "%%%s.*%c", f->alt ? "#" : "", c);
    sb_printf(&body, fmt, p, a);
    if (type == '%') sb_putc(&body, '%');
  }
  if (neg && f->z && isfinite(x)) {   /* negative zero after rounding prints unsigned */
    bool allzero = true;
    for (size_t i = 0; i < body.len; i++)
      if (body.data[i] >= '1' && body.data[i] <= '9') allzero = false;
    if (allzero) neg = false;
  }
  fmt_number(b, f, neg, "", body.data, body.len, 3);
  sb_free(&body);
}

static void fmt_str(StrBuf *b, const char *s, size_t n, const FmtSpec *f, Val v) {
  if (f->type && f->type != 's')
    rt_throw(ERR_VALUE, "Unknown format code '%c' for object of type '%s'", f->type, val_type_name(v));
  if (f->sign) rt_throw(ERR_VALUE, "Sign not allowed in string format specifier");
  if (f->alt) rt_throw(ERR_VALUE, "Alternate form (#) not allowed in string format specifier");
  if (f->align == '=') rt_throw(ERR_VALUE, "'=' alignment not allowed in string format specifier");
  if (f->group) rt_throw(ERR_VALUE, "Cannot specify '%c' with 's'.", f->group);
  size_t len = n;
  if (f->prec >= 0) {   /* truncate to prec code points */
    size_t cps = 0;
    len = 0;
    while (len < n && cps < (size_t)f->prec) {
      len += (size_t)fmt_cplen((unsigned char)s[len]);
      cps++;
    }
    if (len > n) len = n;
  }
  fmt_pad(b, f, '<', "", s, len);
}

/* format(x, spec) of an int beyond int64: as fmt_int, with GMP's digits */
static void fmt_wide_int(StrBuf *b, Val v, const FmtSpec *f) {
  if (f->prec >= 0) rt_throw(ERR_VALUE, "Precision not allowed in integer format specifier");
  if (f->z) rt_throw(ERR_VALUE, "Negative zero coercion (z) not allowed in integer format specifier");
  fmt_check_group(f, "dboxXn", "d");
  if (f->type == 'n' && f->group) rt_throw(ERR_VALUE, "Cannot specify '%c' with 'n'.", f->group);
  if (f->type == 'c') {
    if (f->sign) rt_throw(ERR_VALUE, "Sign not allowed with integer format specifier 'c'");
    rt_throw(ERR_OVERFLOW, "Python int too large to convert to C long");
  }
  int base = f->type == 'x' ? 16 : f->type == 'X' ? -16 : f->type == 'o' ? 8 : f->type == 'b' ? 2 : 10;
  const char *prefix = !f->alt || base == 10 ? "" : base == 16 ? "0x" : base == -16 ? "0X" : base == 8 ? "0o" : "0b";
  if (base == 10) {
    Val t = str_of(v);   /* the decimal digits, with CPython's digit limit */
    const char *s = str_cstr(t);
    bool neg = s[0] == '-';
    int mark = rt_hold_val(t);
    fmt_number(b, f, neg, "", s + neg, (size_t)str_len(t) - neg, 3);
    rt_unhold(mark);
    val_decref(t);
    return;
  }
  mpz_t z;
  mpz_init(z);
  bigint_get(v, z);
  bool neg = mpz_sgn(z) < 0;
  mpz_abs(z, z);
  char *s = malloc(mpz_sizeinbase(z, base < 0 ? -base : base) + 2);
  mpz_get_str(s, base, z);
  mpz_clear(z);
  int mark = rt_hold_mem(s);   /* freed by the error machinery if padding throws */
  fmt_number(b, f, neg, prefix, s, strlen(s), 4);
  rt_unhold(mark);
  free(s);
}

void format_into(StrBuf *b, Val v, const char *spec, size_t n) {
  Val x = rt_is_tensor(v) && rt_obj_hooks.tensor_numpy ? rt_obj_hooks.tensor_numpy(v) : val_undef();
  if (!val_is_undef(x)) {
    /* TF's EagerTensor.__format__: self._numpy().__format__(format_spec) */
    int mark = rt_hold_val(x);
    format_into(b, x, spec, n);
    rt_unhold(mark);
    val_decref(x);
    return;
  }
  if (inst_format(b, v, spec, n)) return;
  if (n == 0) {
    val_str(b, v);
    return;
  }
  Val base = inst_base(v);   /* class C(float) / C(str) without a __format__: its value's format */
  if (base.tag != v.tag || (base.tag == VT_OBJ && base.u.o != v.u.o)) {
    format_into(b, base, spec, n);
    return;
  }
  bool sc_int;
  int64_t sc_i;
  double sc_f;
  if (v.tag == VT_OBJ && !strncmp(v.u.o->type->name, "numpy.", 6) && rt_obj_hooks.tensor_scalar &&
      rt_obj_hooks.tensor_scalar(v, &sc_int, &sc_i, &sc_f)) {
    format_into(b, sc_int ? val_int(sc_i) : val_float(sc_f), spec, n);   /* numpy scalars format as Python numbers */
    return;
  }
  FmtSpec f;
  fmt_parse(&f, spec, n, v);
  int64_t i;
  double d;
  if (val_is(v, &str_type)) {
    fmt_str(b, str_cstr(v), (size_t)str_len(v), &f, v);
  } else if (v.tag == VT_INT || v.tag == VT_BOOL || (rt_is_tensor(v) && val_as_int(v, &i))) {
    int64_t x = v.tag == VT_OBJ ? i : v.u.i;
    if (f.type && strchr("eEfFgG%", f.type)) fmt_float(b, (double)x, &f, v);
    else fmt_int(b, x, &f, v);
  } else if (bigint_is_wide(v) && (!f.type || strchr("dnxXobceEfFgG%", f.type))) {
    /* an int beyond int64 (bigint.c): its digits in the type's base, or its float for the float types */
    if (f.type && strchr("eEfFgG%", f.type)) fmt_float(b, bigint_float(v), &f, v);
    else fmt_wide_int(b, v, &f);
  } else if (v.tag == VT_FLOAT || (rt_is_tensor(v) && val_as_float(v, &d))) {
    fmt_float(b, v.tag == VT_FLOAT ? v.u.f : d, &f, v);
  } else if (val_is(v, &complex_type) && (!f.type || strchr("eEfFgG", f.type)) && !f.zero && f.align != '=') {
    /* CPython's complex.__format__: each part formatted, the imaginary one signed; parentheses only without a type */
    double re, im;
    complex_parts(v, &re, &im);
    FmtSpec part = f;
    part.width = -1;
    part.align = 0;
    StrBuf body;
    sb_init(&body);
    if (!f.type && f.prec < 0) {
      val_str(&body, v);
    } else {
      bool bare = !f.type && re == 0 && !signbit(re);
      if (!part.type) part.type = 'g';
      if (!f.type && !bare) sb_putc(&body, '(');
      if (!bare) fmt_float(&body, re, &part, v);
      if (!bare) part.sign = '+';
      fmt_float(&body, im, &part, v);
      sb_putc(&body, 'j');
      if (!f.type && !bare) sb_putc(&body, ')');
    }
    fmt_pad(b, &f, '>', "", body.data, body.len);
    sb_free(&body);
  } else {
    rt_throw(ERR_TYPE, "unsupported format string passed to %s.__format__", val_type_name(v));
  }
}

Val rt_format(Val v, const char *conv, Val spec) {
  const char *s = "";
  size_t n = 0;
  if (val_is(spec, &str_type)) {
    s = str_cstr(spec);
    n = (size_t)str_len(spec);
  } else if (!val_is_undef(spec) && spec.tag != VT_NONE) {
    rt_throw(ERR_TYPE, "format() argument 2 must be str, not %s", val_type_name(spec));
  }
  Val x;
  if (conv && (*conv == 'r' || *conv == 'a')) x = repr_of(v);
  else if (conv && *conv == 's') x = str_of(v);
  else x = val_incref(v);
  if (n == 0 && val_is(x, &str_type)) return x;
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_val(x);
  rt_hold_sb(&b);
  format_into(&b, x, s, n);
  rt_unhold(mark);
  val_decref(x);
  size_t len = b.len;
  return str_take(sb_steal(&b), (tfs_i64)len);
}

Val rt_fstring(int n, const Val *parts) {
  if (n == 1 && val_is(parts[0], &str_type)) return val_incref(parts[0]);
  StrBuf b;
  sb_init(&b);
  for (int i = 0; i < n; i++) val_str(&b, parts[i]);
  size_t len = b.len;
  return str_take(sb_steal(&b), (tfs_i64)len);
}

/* ---- printf-style formatting: fmt % args --------------------------------------------------- */

/* ascii(v): repr(v) with every non-ASCII character escaped (\xNN, \uNNNN, \UNNNNNNNN), as CPython. */
Val ascii_of(Val v) {
  Val r = repr_of(v);
  const unsigned char *p = (const unsigned char *)str_cstr(r);
  size_t n = (size_t)str_len(r);
  size_t k = 0;
  while (k < n && p[k] < 0x80) k++;
  if (k == n) return r;
  StrBuf b;
  sb_init(&b);
  int mark = rt_hold_sb(&b);
  rt_hold_val(r);
  for (size_t i = 0; i < n;) {
    if (p[i] < 0x80) {
      sb_putc(&b, (char)p[i++]);
      continue;
    }
    size_t len = utf8_seq(p + i, n - i, NULL);
    if (!len) len = 1;
    unsigned cp = len == 1 ? p[i] : len == 2 ? (p[i] & 31u) << 6 | (p[i + 1] & 63u)
                : len == 3 ? (p[i] & 15u) << 12 | (p[i + 1] & 63u) << 6 | (p[i + 2] & 63u)
                : (p[i] & 7u) << 18 | (p[i + 1] & 63u) << 12 | (p[i + 2] & 63u) << 6 | (p[i + 3] & 63u);
    if (cp < 0x100) sb_printf(&b, "\\x%02x", cp);
    else if (cp < 0x10000) sb_printf(&b, "\\u%04x", cp);
    else sb_printf(&b, "\\U%08x", cp);
    i += len;
  }
  rt_unhold(mark);
  val_decref(r);
  size_t bl = b.len;
  return str_take(sb_steal(&b), (tfs_i64)bl);
}

/* %s/%b/%r/%a/%c of bytes formatting: raw bytes, cut to prec, padded with spaces to width. */
static void fmt_raw(StrBuf *b, const char *d, size_t m, int64_t width, int prec, char align) {
  if (prec >= 0 && (size_t)prec < m) m = (size_t)prec;
  size_t pad = width > 0 && (uint64_t)width > m ? (size_t)width - m : 0;
  if (align != '<') for (size_t i = 0; i < pad; i++) sb_putc(b, ' ');
  sb_putn(b, d, m);
  if (align == '<') for (size_t i = 0; i < pad; i++) sb_putc(b, ' ');
}

/* fmt % args: fmt is a str, or a bytes/bytearray (CPython's bytes formatting: %s and %b take bytes-like
 * objects, %r and %a give ascii(), %c a byte; the result is of fmt's kind). */
Val format_percent(Val fmt, Val args) {
  bool bytes = !val_is(fmt, &str_type);
  Val args_kind = val_undef();   /* bytes mode: the format's kind (bytes or bytearray) */
  size_t n;
  const char *s;
  if (bytes) {
    const unsigned char *d = byteslike_data(fmt, &n);
    args_kind = fmt;
    fmt = bytes_new(d, n);   /* a private copy: a bytearray format may change while the arguments format */
    s = (const char *)byteslike_data(fmt, &n);
  } else {
    s = str_cstr(fmt);
    n = (size_t)str_len(fmt);
  }
  Val fmt_owned = bytes ? fmt : val_undef();
  tfs_i64 nargs;
  const Val *argv;
  /* an instance of a tuple or dict subclass (a namedtuple, a Counter) formats as its builtin value */
  if (val_is(args, &inst_type) && !val_is_undef(((Inst *)args.u.o)->base) &&
      (val_is(((Inst *)args.u.o)->base, &tuple_type) || val_is(((Inst *)args.u.o)->base, &dict_type)))
    args = ((Inst *)args.u.o)->base;
  bool is_tuple = val_is(args, &tuple_type);
  if (is_tuple) seq_items(args, &nargs, &argv);
  else nargs = 1, argv = &args;
  bool mapping = !is_tuple && val_is(args, &dict_type);
  tfs_i64 next = 0;
  StrBuf b;
  sb_init(&b);
  Val owned = val_undef(), conv = val_undef();
  int mark = rt_hold_sb(&b);
  rt_hold_ref(&owned);
  rt_hold_ref(&conv);
  rt_hold_ref(&fmt_owned);
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '%') {
      sb_putc(&b, s[i]);
      continue;
    }
    size_t start = i++;
    Val arg = val_undef();
    if (i < n && s[i] == '(') {   /* %(name)s */
      size_t k = ++i;
      while (i < n && s[i] != ')') i++;
      if (!mapping) rt_throw(ERR_TYPE, "format requires a mapping");
      Val key = bytes ? bytes_new(s + k, i - k) : str_new(s + k, (tfs_i64)(i - k));
      int km = rt_hold_val(key);
      owned = rt_getitem(args, key);
      rt_unhold(km);
      val_decref(key);
      arg = owned;
      i++;
    }
    char spec[64];
    size_t sl = 0;
    char align = 0, sign = 0;
    bool alt = false, zero = false;
    for (; i < n && strchr("-+ #0", s[i]); i++) {
      if (s[i] == '-') align = '<';
      else if (s[i] == '+') sign = '+';
      else if (s[i] == ' ' && !sign) sign = ' ';
      else if (s[i] == '#') alt = true;
      else zero = true;
    }
    int64_t width = -1;
    int prec = -1;
    if (i < n && s[i] == '*') {
      if (next >= nargs) rt_throw(ERR_TYPE, "not enough arguments for format string");
      width = val_to_index(argv[next++], NULL);   /* 64-bit: a width past 2**32 is not cut short */
      if (width < 0) align = '<', width = width == INT64_MIN ? INT64_MAX : -width;
      i++;
    } else {
      while (i < n && s[i] >= '0' && s[i] <= '9')
        if (__builtin_mul_overflow(width < 0 ? 0 : width, 10, &width) || __builtin_add_overflow(width, s[i++] - '0', &width))
          rt_throw(ERR_VALUE, "width too big");
    }
    if (i < n && s[i] == '.') {
      i++;
      prec = 0;
      if (i < n && s[i] == '*') {
        if (next >= nargs) rt_throw(ERR_TYPE, "not enough arguments for format string");
        int64_t p = val_to_index(argv[next++], NULL);
        if (p > INT32_MAX || p < INT32_MIN) rt_throw(ERR_OVERFLOW, "Python int too large to convert to C int");
        prec = (int)p;
        i++;
      } else {
        while (i < n && s[i] >= '0' && s[i] <= '9') prec = prec * 10 + (s[i++] - '0');
      }
    }
    if (i >= n) rt_throw(ERR_VALUE, "incomplete format");
    char c = s[i];
    if (c == '%') {
      sb_putc(&b, '%');
      continue;
    }
    if (val_is_undef(arg)) {
      if (mapping) arg = args;
      else if (next >= nargs) rt_throw(ERR_TYPE, "not enough arguments for format string");
      else arg = argv[next++];
    }
    if (align) {   /* printf pads on the left unless '-'; '0' pads after the sign */
      spec[sl++] = align;
    } else if (zero && strchr("diouxXeEfFgG", c)) {
      spec[sl++] = '0';
      spec[sl++] = '=';
    } else {
      spec[sl++] = '>';
    }
    if (sign && strchr("diueEfFgG", c)) spec[sl++] = sign;
    if (alt && strchr("oxXeEfFgG", c)) spec[sl++] = '#';
    if (width >= 0) sl += (size_t)snprintf(spec + sl, sizeof spec - sl, "%lld", (long long)width);
    if (prec >= 0 && !strchr("diouxXc", c)) sl += (size_t)snprintf(spec + sl, sizeof spec - sl, ".%d", prec);
    switch (c) {
      case 'd':
      case 'i':
      case 'u': {
        int64_t iv;
        double dv;
        if (val_as_int(arg, &iv)) conv = val_int(iv);
        else if (val_is(arg, &u64int_type) || val_is(arg, &bigint_type)) conv = val_incref(arg);
        else if (val_as_float(arg, &dv)) {
          if (isnan(dv)) rt_throw(ERR_VALUE, "cannot convert float NaN to integer");
          if (isinf(dv)) rt_throw(ERR_OVERFLOW, "cannot convert float infinity to integer");
          conv = val_int((int64_t)dv);
        } else rt_throw(ERR_TYPE, "%%%c format: a real number is required, not %s", c, val_type_name(arg));
        break;
      }
      case 'o':
      case 'x':
      case 'X': {
        int64_t iv;
        if (!val_as_int(arg, &iv))
          rt_throw(ERR_TYPE, "%%%c format: an integer is required, not %s", c, val_type_name(arg));
        conv = val_int(iv);
        spec[sl++] = c;
        break;
      }
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G': {
        double dv;
        if (!val_as_float(arg, &dv)) {
          if (bytes) rt_throw(ERR_TYPE, "float argument required, not %s", val_type_name(arg));
          rt_throw(ERR_TYPE, "must be real number, not %s", val_type_name(arg));
        }
        conv = val_float(dv);
        if (prec < 0) sl += (size_t)snprintf(spec + sl, sizeof spec - sl, ".6");
        spec[sl++] = c;
        break;
      }
      case 'b':
      case 's':
        if (bytes) {
          size_t m;
          const unsigned char *d = byteslike_data(arg, &m);
          if (!d)
            rt_throw(ERR_TYPE, "%%b requires a bytes-like object, or an object that implements __bytes__, not '%s'", val_type_name(arg));
          fmt_raw(&b, (const char *)d, m, width, prec, align);
          val_decref(owned);
          owned = val_undef();
          continue;
        }
        if (c == 'b') rt_throw(ERR_VALUE, "unsupported format character '%c' (0x%x) at index %zu", c, (unsigned char)c, i);
        conv = str_of(arg);
        break;
      case 'r':
      case 'a':
        conv = c == 'a' || bytes ? ascii_of(arg) : repr_of(arg);
        if (bytes) {
          fmt_raw(&b, str_cstr(conv), (size_t)str_len(conv), width, prec, align);
          val_decref(conv);
          val_decref(owned);
          conv = owned = val_undef();
          continue;
        }
        break;
      case 'c':
        if (bytes) {
          int64_t iv;
          size_t m;
          const unsigned char *d = byteslike_data(arg, &m);
          char one;
          if (val_as_int(arg, &iv) && !val_is(arg, &str_type)) {
            if (iv < 0 || iv > 255) rt_throw(ERR_OVERFLOW, "%%c arg not in range(256)");
            one = (char)iv;
          } else if (d && m == 1) {
            one = (char)d[0];
          } else {
            rt_throw(ERR_TYPE, "%%c requires an integer in range(256) or a single byte");
          }
          fmt_raw(&b, &one, 1, width, -1, align);
          val_decref(owned);
          owned = val_undef();
          continue;
        }
        if (val_is(arg, &str_type)) conv = val_incref(arg);
        else {
          int64_t iv;
          if (!val_as_int(arg, &iv)) rt_throw(ERR_TYPE, "%%c requires int or char");
          conv = val_int(iv);
          spec[sl++] = 'c';
        }
        break;
      default:
        rt_throw(ERR_VALUE, "unsupported format character '%c' (0x%x) at index %zu", c, (unsigned char)c, i);
    }
    (void)start;
    format_into(&b, conv, spec, sl);
    val_decref(conv);
    val_decref(owned);
    conv = owned = val_undef();
  }
  if (!mapping && next < nargs)
    rt_throw(ERR_TYPE, "not all arguments converted during %s formatting", bytes ? "bytes" : "string");
  rt_unhold(mark);
  size_t len = b.len;
  if (bytes) {
    Val r = byteslike_new(args_kind, b.len ? b.data : "", len);
    sb_free(&b);
    val_decref(fmt_owned);
    return r;
  }
  return str_take(sb_steal(&b), (tfs_i64)len);
}
