/* tprint.c — byte-exact numpy 1.24 str() of tensor values, and TF's tf.print format.
 *
 * numpy side (arrayprint.py with default options: precision 8, threshold
 * 1000, edgeitems 3, linewidth 75, floatmode 'maxprec', sign '-'):
 *   - one pass over the elements that will be shown decides a common element
 *     format (int width, float mode and paddings), as numpy's
 *     IntegerFormat/FloatingFormat do;
 *   - a second pass streams the nested brackets, wrapping leaf rows at the
 *     line width the way numpy's _formatArray/_extendLine do.
 * Float digits are the shortest round-trip digits at the element's own
 * precision (numfmt_shortest), rounded exactly (printf) only when they exceed
 * numpy's 8-digit cutoff, which is what Dragon4 with a cutoff produces.
 *
 * tf.print side: TF's Tensor::SummarizeValue(3, print_v2=true) — see
 * docs/printing.md for the rules and why. */
#include "tensor/tprint.h"
#include "object/half.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/numfmt.h"
#include "object/object.h"

enum {
  NP_EDGE = 3,                /* edgeitems */
  TF_SUMMARIZE = 3,           /* tf.print's default summarize */
};

/* np.set_printoptions: precision (max fractional digits of array floats), threshold
 * (summarize when size > threshold), linewidth, suppress (no scientific form for small values) */
NpPrintOpts np_print_opts = {8, 1000, 75, false};

/* ---- element access -------------------------------------------------------- */

static const void *elem_at(const Tensor *t, tfs_i64 off) {
  return (const char *)tensor_data(t) + off * dtype_info[t->dtype].size;
}

static double elem_float(DType dt, const void *p) { return dtype_load_f(dt, p); }

/* A complex element's imaginary part (its real part is elem_float's). */
static double elem_imag(DType dt, const void *p) {
  return dt == DT_COMPLEX64 ? ((const float *)p)[1] : dt == DT_COMPLEX128 ? ((const double *)p)[1] : 0;
}

/* An integer element's digits (uint64 past int64 too). */
static int int_text(char *buf, size_t n, DType dt, const void *p) {
  if (dt == DT_UINT64) return snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)p);
  return snprintf(buf, n, "%lld", (long long)dtype_load_i(dt, p));
}

/* The precision numfmt_shortest reads a float dtype at: 0 double, 1 float32, 2 float16. */
static int float_kind(DType dt) { return dt == DT_FLOAT32 ? 1 : dt == DT_FLOAT16 ? 2 : 0; }

/* bfloat16 is not a numpy float: numpy prints it by its repr, ml_dtypes' `ostream << float` (%g). */
static void bf16_text(StrBuf *b, const void *p) {
  double x = dtype_load_f(DT_BFLOAT16, p);
  if (isnan(x)) sb_puts(b, "nan");
  else sb_printf(b, "%g", x);
}

static bool elem_bool(const void *p) { return *(const unsigned char *)p != 0; }

static const Str *elem_str(const void *p) { return *(const Str *const *)p; }

static void put_spaces(StrBuf *b, int n) {
  for (; n > 0; n--) sb_putc(b, ' ');
}

/* ---- float digits ------------------------------------------------------------ */

/* A finite float split for printing; sign kept apart. */
typedef struct FloatParts {
  bool neg;
  char ip[64];                      /* positional: integer digits ("0" at least) */
  char fp[64];                      /* fractional digits, no trailing zeros */
  int exp;                          /* scientific: power of ten of the one-digit ip */
} FloatParts;

static void trim_zeros(char *s) {
  size_t n = strlen(s);
  while (n > 0 && s[n - 1] == '0') s[--n] = 0;
}

/* Positional digits of x: shortest round-trip digits, or x rounded exactly to
 * maxfrac fractional digits when those need more (maxfrac < 0: no limit).
 * Callers only use this for |x| < 1e16, so the buffers are ample. */
static void float_positional(double x, int f32, int maxfrac, FloatParts *p) {
  char d[NUMFMT_MAXDIGITS];
  int decpt, n = numfmt_shortest(x, f32, d, &decpt);
  p->neg = signbit(x) != 0;
  p->exp = 0;
  if (maxfrac >= 0 && n - decpt > maxfrac) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", maxfrac, fabs(x));
    char *dot = strchr(buf, '.');
    if (dot) *dot = 0;
    snprintf(p->ip, sizeof p->ip, "%s", buf);
    snprintf(p->fp, sizeof p->fp, "%s", dot ? dot + 1 : "");
    trim_zeros(p->fp);
    return;
  }
  int k = 0;
  if (decpt <= 0) p->ip[k++] = '0';
  for (int i = 0; i < decpt && k < (int)sizeof p->ip - 1; i++) p->ip[k++] = i < n ? d[i] : '0';
  p->ip[k] = 0;
  k = 0;
  for (int i = decpt; i < 0 && k < (int)sizeof p->fp - 1; i++) p->fp[k++] = '0';
  for (int i = decpt > 0 ? decpt : 0; i < n && k < (int)sizeof p->fp - 1; i++) p->fp[k++] = d[i];
  p->fp[k] = 0;
}

/* Scientific digits of x: d.ddd x 10^exp, shortest, or rounded exactly to
 * maxfrac digits after the point when longer (maxfrac < 0: no limit). */
static void float_scientific(double x, int f32, int maxfrac, FloatParts *p) {
  char d[NUMFMT_MAXDIGITS];
  int decpt, n = numfmt_shortest(x, f32, d, &decpt);
  p->neg = signbit(x) != 0;
  if (maxfrac >= 0 && n - 1 > maxfrac) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*e", maxfrac, fabs(x));
    char *e = strchr(buf, 'e');
    p->exp = e ? atoi(e + 1) : 0;
    if (e) *e = 0;
    p->ip[0] = buf[0];
    p->ip[1] = 0;
    snprintf(p->fp, sizeof p->fp, "%s", buf[1] == '.' ? buf + 2 : "");
    trim_zeros(p->fp);
    return;
  }
  p->ip[0] = d[0];
  p->ip[1] = 0;
  snprintf(p->fp, sizeof p->fp, "%s", d + 1);
  p->exp = decpt - 1;
}

/* "e+05": sign and at least mindig exponent digits (numpy: 2 by default). */
static void put_exponent(StrBuf *b, int exp, int mindig) {
  sb_printf(b, "e%c%0*d", exp < 0 ? '-' : '+', mindig, exp < 0 ? -exp : exp);
}

/* Digits put_exponent(.., 2) prints for exp. */
static int exponent_digits(int exp) {
  char buf[16];
  return snprintf(buf, sizeof buf, "%02d", exp < 0 ? -exp : exp);
}

/* numpy's str(np.float32(x)) / str(np.float64(x)): positional with at least
 * one fractional digit for 1e-4 <= |x| < 1e16 (and 0), else scientific
 * without a bare point: "12.0", "0.1", "1e-05", "1.5e+20", "nan", "-inf". */
static void np_float_scalar(StrBuf *b, double x, int f32) {
  if (isnan(x)) { sb_puts(b, "nan"); return; }
  if (isinf(x)) { sb_puts(b, x < 0 ? "-inf" : "inf"); return; }
  FloatParts p;
  long double ax = fabsl((long double)x);   /* numpy compares in long double */
  if (x == 0 || (ax < 1e16L && ax >= 1e-4L)) {
    float_positional(x, f32, -1, &p);
    sb_printf(b, "%s%s.%s", p.neg ? "-" : "", p.ip, p.fp[0] ? p.fp : "0");
  } else {
    float_scientific(x, f32, -1, &p);
    sb_printf(b, "%s%s%s%s", p.neg ? "-" : "", p.ip, p.fp[0] ? "." : "", p.fp);
    put_exponent(b, p.exp, 2);
  }
}

/* A part of numpy's str() of a complex scalar: numpy's float str without a bare ".0" (trim mode
 * DptZeros: "1", "1.5", "1e-05"), a sign when `plus` (the imaginary part), nan/inf spelt out. */
static void np_complex_part(StrBuf *b, double x, int f32, bool plus) {
  if (isnan(x)) { sb_puts(b, plus ? "+nan" : "nan"); return; }
  if (isinf(x)) { sb_puts(b, x < 0 ? "-inf" : plus ? "+inf" : "inf"); return; }
  FloatParts p;
  long double ax = fabsl((long double)x);
  const char *sg = signbit(x) ? "-" : plus ? "+" : "";
  if (x == 0 || (ax < 1e16L && ax >= 1e-4L)) {
    float_positional(x, f32, -1, &p);
    sb_printf(b, "%s%s%s%s", sg, p.ip, p.fp[0] ? "." : "", p.fp);
  } else {
    float_scientific(x, f32, -1, &p);
    sb_printf(b, "%s%s%s%s", sg, p.ip, p.fp[0] ? "." : "", p.fp);
    put_exponent(b, p.exp, 2);
  }
}

/* numpy's str(np.complex128(z)): "1j" for a +0 real part, else "(re+imj)", as CPython's complex repr. */
static void np_complex_scalar(StrBuf *b, double re, double im, int f32) {
  if (re == 0 && !signbit(re)) {
    np_complex_part(b, im, f32, false);
    sb_putc(b, 'j');
    return;
  }
  sb_putc(b, '(');
  np_complex_part(b, re, f32, false);
  np_complex_part(b, im, f32, true);
  sb_puts(b, "j)");
}

/* Python's repr(bytes): b'..' (b".." when only ' occurs), \t \n \r \\ and \xNN escapes. */
static void bytes_repr(StrBuf *b, const Str *s) {
  const unsigned char *c = s ? (const unsigned char *)s->data : (const unsigned char *)"";
  tfs_i64 n = s ? s->len : 0;
  bool squote = false, dquote = false;
  for (tfs_i64 i = 0; i < n; i++) {
    squote |= c[i] == '\'';
    dquote |= c[i] == '"';
  }
  char q = squote && !dquote ? '"' : '\'';
  sb_putc(b, 'b');
  sb_putc(b, q);
  for (tfs_i64 i = 0; i < n; i++) {
    unsigned ch = c[i];
    if (ch == (unsigned)q || ch == '\\') { sb_putc(b, '\\'); sb_putc(b, (char)ch); }
    else if (ch == '\t') sb_puts(b, "\\t");
    else if (ch == '\n') sb_puts(b, "\\n");
    else if (ch == '\r') sb_puts(b, "\\r");
    else if (ch < 0x20 || ch >= 0x7f) sb_printf(b, "\\x%02x", ch);
    else sb_putc(b, (char)ch);
  }
  sb_putc(b, q);
}

void tprint_numpy_scalar(StrBuf *b, DType dt, const void *elem) {
  switch (dt) {
  case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: np_float_scalar(b, elem_float(dt, elem), float_kind(dt)); break;
  case DT_BFLOAT16: bf16_text(b, elem); break;
  case DT_INT32: case DT_UINT8: case DT_INT64: case DT_INT8: case DT_INT16: case DT_UINT16: case DT_UINT32: case DT_UINT64: {
    char buf[32];
    int_text(buf, sizeof buf, dt, elem);
    sb_puts(b, buf);
    break;
  }
  case DT_BOOL: sb_puts(b, elem_bool(elem) ? "True" : "False"); break;
  case DT_STRING: bytes_repr(b, elem_str(elem)); break;
  case DT_COMPLEX64: case DT_COMPLEX128: np_complex_scalar(b, elem_float(dt, elem), elem_imag(dt, elem), dt == DT_COMPLEX64); break;
  default: sb_puts(b, "?"); break;
  }
}

/* ---- numpy arrays: the shown elements ------------------------------------------ */

/* Calls fn on every element numpy shows (all, or the edge items of each long
 * axis when summarizing): the same set numpy's _leading_trailing formats. */
typedef void (*ElemFn)(void *ctx, const void *elem);

static void walk_shown(const Tensor *t, bool summ, int axis, tfs_i64 off, ElemFn fn, void *ctx) {
  if (axis == t->rank) { fn(ctx, elem_at(t, off)); return; }
  tfs_i64 n = t->shape[axis];
  bool cut = summ && n > 2 * NP_EDGE;
  for (tfs_i64 i = 0; i < n; i++) {
    if (cut && i == NP_EDGE) i = n - NP_EDGE;
    walk_shown(t, summ, axis + 1, off + i * t->strides[axis], fn, ctx);
  }
}

/* The common element format (numpy's IntegerFormat / FloatingFormat state). */
typedef struct NpFmt {
  DType dt;                   /* a complex array's part formats: the part's float dtype */
  DType cdt;                  /* the array's own dtype */
  bool imag, plus;            /* the imaginary part of complex elements; sign '+' (numpy's imag_format) */
  int int_width;              /* ints: widest of str(max), str(min) */
  /* floats */
  bool exp;                   /* scientific mode */
  bool any_nonzero, any_nonfinite, neg_inf;
  tfs_i64 nfinite;
  double maxv, minv;          /* |x| over finite nonzero elements */
  float maxf, minf;           /* the same at float32 (ratio is a float32 division there) */
  int pad_left, pad_right;    /* widths of integer part and of what follows the point */
  int prec, exp_size;         /* scientific: fractional digits, exponent digits */
} NpFmt;

static void fmt_scan_ints(void *ctx, const void *elem) {
  NpFmt *f = ctx;
  char buf[32];
  int n = int_text(buf, sizeof buf, f->dt, elem);
  if (n > f->int_width) f->int_width = n;
}

/* The value a float format reads from an element: a complex one's real or imaginary part. */
static double fmt_x(const NpFmt *f, const void *elem) { return f->imag ? elem_imag(f->cdt, elem) : elem_float(f->cdt, elem); }

static void fmt_scan_range(void *ctx, const void *elem) {
  NpFmt *f = ctx;
  double x = fmt_x(f, elem);
  if (!isfinite(x)) {
    f->any_nonfinite = true;
    if (isinf(x) && x < 0) f->neg_inf = true;
    return;
  }
  f->nfinite++;
  if (x == 0) return;
  double a = fabs(x);
  if (!f->any_nonzero || a > f->maxv) { f->maxv = a; f->maxf = (float)a; }
  if (!f->any_nonzero || a < f->minv) { f->minv = a; f->minf = (float)a; }
  f->any_nonzero = true;
}

static void fmt_scan_widths(void *ctx, const void *elem) {
  NpFmt *f = ctx;
  double x = fmt_x(f, elem);
  if (!isfinite(x)) return;
  FloatParts p;
  if (f->exp) {
    float_scientific(x, float_kind(f->dt), np_print_opts.precision, &p);
    int el = exponent_digits(p.exp);
    if (el > f->exp_size) f->exp_size = el;
  } else {
    float_positional(x, float_kind(f->dt), np_print_opts.precision, &p);
  }
  int il = (int)strlen(p.ip) + (p.neg || f->plus), fl = (int)strlen(p.fp);
  if (il > f->pad_left) f->pad_left = il;
  int *frac = f->exp ? &f->prec : &f->pad_right;
  if (fl > *frac) *frac = fl;
}

static void np_fmt_init(NpFmt *f, const Tensor *t, bool summ, bool imag) {
  memset(f, 0, sizeof *f);
  f->dt = dtype_real_part(t->dtype);
  f->cdt = t->dtype;
  f->imag = f->plus = imag;
  if (dtype_info[f->dt].is_int) {
    walk_shown(t, summ, 0, 0, fmt_scan_ints, f);
    return;
  }
  if (f->dt != DT_FLOAT32 && f->dt != DT_FLOAT64 && f->dt != DT_FLOAT16) return;
  walk_shown(t, summ, 0, 0, fmt_scan_range, f);
  if (f->any_nonzero) {
    /* numpy divides in the array's dtype: float16's quotient rounds to half (and overflows to inf) */
    float q = f->maxf / f->minf;
    if (f->dt == DT_FLOAT16) q = f16_to_f32(f32_to_f16(q));
    bool big_ratio = f->dt != DT_FLOAT64 ? (double)q > 1000.0 : f->maxv / f->minv > 1000.0;
    f->exp = f->maxv >= 1e8 || (!np_print_opts.suppress && (f->minv < 1e-4 || big_ratio));
  }
  if (f->nfinite > 0) {
    walk_shown(t, summ, 0, 0, fmt_scan_widths, f);
    if (f->exp) f->pad_right = f->exp_size + 2 + f->prec;   /* "e" sign digits, and the point */
  }
  if (f->any_nonfinite) {
    /* nan/inf are right-aligned in the whole width: widen the integer part */
    int offset = f->pad_right + 1;
    int need = 3 + (f->neg_inf || f->plus ? 1 : 0) - offset;
    if (need > f->pad_left) f->pad_left = need;
  }
}

/* One array element in the common format (numpy's FloatingFormat.__call__ etc.). */
static void np_word(StrBuf *w, const NpFmt *f, const void *elem) {
  switch (f->dt) {
  case DT_INT32: case DT_UINT8: case DT_INT64: case DT_INT8: case DT_INT16: case DT_UINT16: case DT_UINT32: case DT_UINT64: {
    char buf[32];
    int_text(buf, sizeof buf, f->dt, elem);
    sb_printf(w, "%*s", f->int_width, buf);
    return;
  }
  case DT_BOOL: sb_puts(w, elem_bool(elem) ? " True" : "False"); return;
  case DT_STRING: bytes_repr(w, elem_str(elem)); return;
  case DT_BFLOAT16: bf16_text(w, elem); return;
  case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: break;   /* also a complex element's part */
  default: sb_puts(w, "?"); return;
  }
  double x = fmt_x(f, elem);
  if (!isfinite(x)) {
    const char *s = isnan(x) ? (f->plus ? "+nan" : "nan") : x < 0 ? "-inf" : f->plus ? "+inf" : "inf";
    put_spaces(w, f->pad_left + f->pad_right + 1 - (int)strlen(s));
    sb_puts(w, s);
    return;
  }
  FloatParts p;
  if (f->exp) {
    /* every element shows prec digits: numpy's min_digits makes Dragon4 go
     * on past the shortest digits, i.e. the exact value rounded to prec */
    char buf[64];
    snprintf(buf, sizeof buf, "%.*e", f->prec, x);
    char *e = strchr(buf, 'e');
    put_spaces(w, f->pad_left - 1 - (buf[0] == '-' || f->plus));
    if (f->plus && buf[0] != '-') sb_putc(w, '+');
    sb_putn(w, buf, (size_t)(e - buf));
    if (f->prec == 0) sb_putc(w, '.');
    put_exponent(w, atoi(e + 1), f->exp_size);
  } else {
    float_positional(x, float_kind(f->dt), np_print_opts.precision, &p);
    /* numpy passes min_digits=0 here, so Dragon4 goes on to the units digit:
     * a float32 above 2^24 shows its exact integer (64796832., not 64796830.) */
    if (!p.fp[0]) snprintf(p.ip, sizeof p.ip, "%.0f", fabs(x));
    put_spaces(w, f->pad_left - (int)strlen(p.ip) - (p.neg || f->plus));
    sb_printf(w, "%s%s.%s", p.neg ? "-" : f->plus ? "+" : "", p.ip, p.fp);
    put_spaces(w, f->pad_right - (int)strlen(p.fp));
  }
}

/* ---- numpy arrays: layout -------------------------------------------------------- */

typedef struct NpOut {
  StrBuf *b;
  const Tensor *t;
  bool summ;
  NpFmt fmt, ifmt;            /* complex: real and imaginary part formats */
  size_t line_start;          /* offset in b of the current output line */
  StrBuf word;                /* scratch for one element */
} NpOut;

/* numpy's _extendLine: start a new line (indented by hang) before a word that
 * would pass width, unless the line holds nothing but its indentation.  The
 * column counts from our own output's start, as numpy formats standalone. */
static void np_extend(NpOut *o, const char *w, size_t wlen, int width, int hang) {
  StrBuf *b = o->b;
  size_t col = b->len - o->line_start;
  if (col + wlen > (size_t)width && col > (size_t)hang) {
    while (b->len > o->line_start && b->data[b->len - 1] == ' ') b->len--;
    sb_putc(b, '\n');
    o->line_start = b->len;
    put_spaces(b, hang);
  }
  sb_putn(b, w, wlen);
}

/* Between blocks of rank k: k-1 newlines, then the hanging indent (blank
 * lines carry no indent). */
static void np_newrow(NpOut *o, int k, int hang) {
  for (int j = 0; j < k - 1; j++) sb_putc(o->b, '\n');
  o->line_start = o->b->len;
  put_spaces(o->b, hang);
}

/* One element's word in o->word: a complex one is its real part, its imaginary part and 'j' before the
 * latter's padding (numpy's ComplexFloatingFormat). */
static void np_elem_word(NpOut *o, const void *elem) {
  o->word.len = 0;
  np_word(&o->word, &o->fmt, elem);
  if (!dtype_is_complex(o->t->dtype)) return;
  size_t at = o->word.len;
  np_word(&o->word, &o->ifmt, elem);
  size_t end = o->word.len;
  while (end > at && o->word.data[end - 1] == ' ') end--;
  size_t pad = o->word.len - end;
  o->word.len = end;
  sb_putc(&o->word, 'j');
  put_spaces(&o->word, (int)pad);
}

/* numpy's _formatArray recurser: axis, element offset, hanging indent width
 * (the column where this level's '[' stands, plus one) and the line width
 * left for it (one less per level, for the closing bracket). */
static void np_block(NpOut *o, int axis, tfs_i64 off, int hang, int width) {
  const Tensor *t = o->t;
  tfs_i64 n = t->shape[axis];
  bool cut = o->summ && n > 2 * NP_EDGE;
  int left = t->rank - axis;
  sb_putc(o->b, '[');
  for (tfs_i64 i = 0; i < n; i++) {
    bool dots = cut && i == NP_EDGE;
    if (left == 1) {
      int elem_width = width - 1;   /* room for ']' */
      if (i > 0) sb_putc(o->b, ' ');
      if (dots) {
        np_extend(o, "...", 3, elem_width, hang);
        sb_putc(o->b, ' ');
      }
    } else {
      if (i > 0) np_newrow(o, left, hang);
      if (dots) {
        sb_puts(o->b, "...");
        np_newrow(o, left, hang);
      }
    }
    if (dots) i = n - NP_EDGE;
    tfs_i64 sub = off + i * t->strides[axis];
    if (left == 1) {
      np_elem_word(o, elem_at(t, sub));
      np_extend(o, o->word.data, o->word.len, width - 1, hang);
    } else {
      np_block(o, axis + 1, sub, hang + 1, width - 1);
    }
  }
  sb_putc(o->b, ']');
}

static void np_out_init(NpOut *o, StrBuf *b, const Tensor *t) {
  o->b = b;
  o->t = t;
  o->summ = t->size > np_print_opts.threshold;
  np_fmt_init(&o->fmt, t, o->summ, false);
  if (dtype_is_complex(t->dtype)) np_fmt_init(&o->ifmt, t, o->summ, true);
  o->line_start = b->len;
  sb_init(&o->word);
}

void tprint_numpy(StrBuf *b, const Tensor *t) {
  if (t->rank == 0) { tprint_numpy_scalar(b, t->dtype, tensor_data(t)); return; }
  if (t->size == 0) { sb_puts(b, "[]"); return; }
  NpOut o;
  np_out_init(&o, b, t);
  np_block(&o, 0, 0, 1, np_print_opts.linewidth);
  sb_free(&o.word);
}

typedef struct WordsCtx { NpOut *o; void (*push)(void *ctx, const char *w, size_t n); void *ctx; } WordsCtx;
static void words_elem(void *ctx, const void *elem) {
  WordsCtx *w = ctx;
  np_elem_word(w->o, elem);
  w->push(w->ctx, w->o->word.data, w->o->word.len);
}

void tprint_numpy_words(const Tensor *t, void (*push)(void *ctx, const char *w, size_t n), void *ctx) {
  if (t->size == 0) return;
  StrBuf none;
  sb_init(&none);
  NpOut o;
  np_out_init(&o, &none, t);
  WordsCtx w = {&o, push, ctx};
  walk_shown(t, o.summ, 0, 0, words_elem, &w);
  sb_free(&o.word);
  sb_free(&none);
}

/* ---- tf.print -------------------------------------------------------------------- */

/* TF's FloatToBuffer / DoubleToBuffer: %.6g (%.15g), or %.9g (%.17g) when
 * that does not read back as the same value. */
static void tf_float(StrBuf *b, double x, bool f32) {
  char buf[64];
  if (isnan(x)) { sb_puts(b, signbit(x) ? "-nan" : "nan"); return; }
  snprintf(buf, sizeof buf, "%.*g", f32 ? 6 : 15, x);
  bool same = f32 ? strtof(buf, NULL) == (float)x : strtod(buf, NULL) == x;
  if (!same) snprintf(buf, sizeof buf, "%.*g", f32 ? 9 : 17, x);
  sb_puts(b, buf);
}

/* absl::Utf8SafeCEscape inside double quotes, as TF prints strings with print_v2. */
static void tf_string(StrBuf *b, const Str *s) {
  const unsigned char *c = s ? (const unsigned char *)s->data : (const unsigned char *)"";
  tfs_i64 n = s ? s->len : 0;
  sb_putc(b, '"');
  for (tfs_i64 i = 0; i < n; i++) {
    unsigned ch = c[i];
    switch (ch) {
    case '\n': sb_puts(b, "\\n"); break;
    case '\r': sb_puts(b, "\\r"); break;
    case '\t': sb_puts(b, "\\t"); break;
    case '"': sb_puts(b, "\\\""); break;
    case '\'': sb_puts(b, "\\'"); break;
    case '\\': sb_puts(b, "\\\\"); break;
    default:
      if (ch < 0x20 || ch == 0x7f) sb_printf(b, "\\%03o", ch);
      else sb_putc(b, (char)ch);   /* UTF-8 bytes pass through */
    }
  }
  sb_putc(b, '"');
}

static void tf_elem(StrBuf *b, DType dt, const void *p) {
  switch (dt) {
  case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: case DT_BFLOAT16:   /* TF prints a half as its float */
    tf_float(b, elem_float(dt, p), dt != DT_FLOAT64);
    break;
  case DT_INT32: case DT_UINT8: case DT_INT64: case DT_INT8: case DT_INT16: case DT_UINT16: case DT_UINT32: case DT_UINT64: {
    char buf[32];
    int_text(buf, sizeof buf, dt, p);
    sb_puts(b, buf);
    break;
  }
  case DT_BOOL: sb_putc(b, elem_bool(p) ? '1' : '0'); break;
  case DT_STRING: tf_string(b, elem_str(p)); break;
  case DT_COMPLEX64: case DT_COMPLEX128:   /* std::complex's ostream form at its default precision: "(re,im)", %g parts */
    sb_printf(b, "(%g,%g)", elem_float(dt, p), elem_imag(dt, p));
    break;
  default: sb_puts(b, "?"); break;
  }
}

/* TF's PrintDimSpacing: a space between leaf elements; between blocks,
 * rank-axis-1 newlines and an indent of axis+1 spaces. */
static void tf_spacing(StrBuf *b, int axis, int rank) {
  if (axis == rank - 1) { sb_putc(b, ' '); return; }
  for (int j = 0; j < rank - axis - 1; j++) sb_putc(b, '\n');
  put_spaces(b, axis + 1);
}

/* TF's PrintOneDimV2: `ends` leading and trailing items per axis, "..."
 * between when the axis is longer than 2*ends. */
static void tf_block(StrBuf *b, const Tensor *t, int axis, tfs_i64 off, tfs_i64 ends) {
  if (axis == t->rank) { tf_elem(b, t->dtype, elem_at(t, off)); return; }
  tfs_i64 n = t->shape[axis];
  tfs_i64 tail = n - ends > ends ? n - ends : ends;
  sb_putc(b, '[');
  for (tfs_i64 i = 0; i < ends && i < n; i++) {
    if (i > 0) tf_spacing(b, axis, t->rank);
    tf_block(b, t, axis + 1, off + i * t->strides[axis], ends);
  }
  if (n > 2 * ends) {
    tf_spacing(b, axis, t->rank);
    sb_puts(b, "...");
  }
  for (tfs_i64 i = tail; i < n; i++) {
    tf_spacing(b, axis, t->rank);
    tf_block(b, t, axis + 1, off + i * t->strides[axis], ends);
  }
  sb_putc(b, ']');
}

void tprint_tfprint_n(StrBuf *b, const Tensor *t, tfs_i64 summarize) {
  if (summarize < 0) summarize = t->size;   /* -1: every element */
  tfs_i64 limit = t->size < summarize ? t->size : summarize;
  if (t->rank == 0) {
    if (limit > 0) tf_elem(b, t->dtype, tensor_data(t));
    return;
  }
  if (t->size == 0 && t->dtype == DT_BOOL) return;   /* TF's SummarizeArray<bool> prints nothing */
  /* TF passes min(summarize, size) as the per-axis edge count, so an empty
   * tensor shows "..." for its nonzero axes, as TF does. */
  tf_block(b, t, 0, 0, limit);
}

void tprint_tfprint(StrBuf *b, const Tensor *t) { tprint_tfprint_n(b, t, TF_SUMMARIZE); }
