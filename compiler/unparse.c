/* unparse.c — AST -> .tfs source text, laid out like TensorFlow's to_code (Python's ast.unparse conventions).
 *
 * Expressions print with the fewest parentheses their precedence needs:
 * every expression is printed against the precedence its context requires
 * and wraps itself in parentheses when it binds more loosely.  Statements
 * start with a newline plus indentation ("fill", as ast.unparse does); the
 * leading newline of the whole text is dropped at the end.  A `def` or
 * `class` first writes one more newline when anything precedes it, which
 * gives the blank line before each definition and none after its body. */
#include "unparse.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/abi.h"

/* ORDER PREC: Python's _Precedence, loosest first. */
enum {
  P_TUPLE, P_YIELD, P_TEST, P_OR, P_AND, P_NOT, P_CMP, P_BOR, P_BXOR, P_BAND, P_SHIFT, P_ARITH, P_TERM,
  P_FACTOR, P_POWER, P_AWAIT, P_ATOM
};

typedef struct Out {
  char *d;        /* text so far (NUL-terminated) */
  size_t n, cap;
  int indent;     /* current block depth */
  bool tf;        /* TF's astunparse layout: every binary and comparison expression parenthesized */
  int tfopen;     /* layout-only parentheses open now (see TF_MAX_OPEN) */
} Out;

/* The layout's parentheses the precedence does not need stop this many
 * levels deep: a long `a + b + c + ...` chain would otherwise nest past the
 * 200 brackets the parser accepts, and the printed code would not load. */
enum { TF_MAX_OPEN = 32 };

/* Whether a binary or comparison expression of precedence p printed in a
 * context of precedence prec gets parentheses; a layout-only pair counts in
 * o->tfopen until layout_close. */
static bool layout_open(Out *o, int prec, int p, bool *extra) {
  *extra = o->tf && prec <= p && o->tfopen < TF_MAX_OPEN;
  if (*extra) o->tfopen++;
  return *extra || prec > p;
}
static void layout_close(Out *o, bool extra) {
  if (extra) o->tfopen--;
}

static void put(Out *o, const char *s, size_t n) {
  if (o->n + n + 1 > o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 256;
    while (cap < o->n + n + 1) cap *= 2;
    char *d = realloc(o->d, cap);
    if (!d) {
      fputs("tfs: out of memory\n", stderr);
      exit(1);
    }
    o->d = d;
    o->cap = cap;
  }
  memcpy(o->d + o->n, s, n);
  o->n += n;
  o->d[o->n] = 0;
}

static void puts_(Out *o, const char *s) { put(o, s, strlen(s)); }
static void putch(Out *o, char c) { put(o, &c, 1); }

static void putf(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(Out *o, const char *fmt, ...) {
  char buf[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) put(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* fill: a new line at the current indentation, then `s`. */
static void fill(Out *o, const char *s) {
  putch(o, '\n');
  for (int i = 0; i < o->indent; i++) puts_(o, "    ");
  puts_(o, s);
}

static void expr(Out *o, const Ast *e, int prec);

/* --- constants --- */

/* Python's str.isprintable() for the code points that matter in practice:
 * controls, the Latin-1 block's NBSP/SHY, separators, format characters,
 * surrogates, private use and noncharacters print escaped. */
static bool printable_cp(uint32_t c) {
  if (c < 0x20 || (c >= 0x7f && c <= 0xa0) || c == 0xad) return false;
  if (c == 0x1680 || c == 0x180e || (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f)) return false;
  if ((c >= 0x205f && c <= 0x206f) || c == 0x3000 || (c >= 0xd800 && c <= 0xf8ff) || c == 0xfeff) return false;
  if ((c >= 0xfff9 && c <= 0xfffb) || c == 0xfffe || c == 0xffff || (c >= 0xe0000 && c <= 0xe0fff)) return false;
  if (c >= 0xf0000 || (c & 0xfffe) == 0xfffe) return false;
  return true;
}

/* Decode one UTF-8 sequence at s (n bytes left); returns its length, 0 if malformed. */
static int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  int len = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
  if (!len || (size_t)len > n) return 0;
  uint32_t c = s[0] & (0x7f >> len);
  for (int i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    c = c << 6 | (s[i] & 0x3f);
  }
  if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff))) return 0;
  *cp = c;
  return len;
}

/* The body of a string literal (no quotes) as repr() writes it, quoted by q;
 * in_fstring doubles braces. */
static void str_body(Out *o, const char *s, size_t n, char q, bool in_fstring) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    unsigned char c = u[i];
    if (c == '\\' || c == (unsigned char)q) {
      putch(o, '\\');
      putch(o, (char)c);
    } else if (c == '\n') {
      puts_(o, "\\n");
    } else if (c == '\r') {
      puts_(o, "\\r");
    } else if (c == '\t') {
      puts_(o, "\\t");
    } else if (in_fstring && (c == '{' || c == '}')) {
      putch(o, (char)c);
      putch(o, (char)c);
    } else if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) putf(o, "\\x%02x", c);
      else putch(o, (char)c);
    } else {
      uint32_t cp;
      int len = utf8_decode(u + i, n - i, &cp);
      if (!len) { /* not UTF-8: keep the byte's value visible */
        putf(o, "\\x%02x", c);
        i++;
        continue;
      }
      if (printable_cp(cp)) put(o, s + i, (size_t)len);
      else if (cp < 0x100) putf(o, "\\x%02x", (unsigned)cp);
      else if (cp < 0x10000) putf(o, "\\u%04x", (unsigned)cp);
      else putf(o, "\\U%08x", (unsigned)cp);
      i += (size_t)len;
      continue;
    }
    i++;
  }
}

/* repr()'s quote: single, unless the text has a ' and no ". */
static char pick_quote(const char *s, size_t n) {
  return memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
}

static void str_literal(Out *o, const char *s, size_t n) {
  char q = pick_quote(s, n);
  putch(o, q);
  str_body(o, s, n, q, false);
  putch(o, q);
}

/* b'...': bytes outside printable ASCII as \xNN (a bytes literal holds ASCII only). */
static void bytes_literal(Out *o, const char *s, size_t n) {
  char q = pick_quote(s, n);
  putch(o, 'b');
  putch(o, q);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) putf(o, "\\x%02x", c);
    else str_body(o, s + i, 1, q, false);
  }
  putch(o, q);
}

/* repr(float), but inf as 1e309 so that the text reads back (ast.unparse's rule). */
static void float_literal(Out *o, double x) {
  if (isnan(x)) {
    puts_(o, "(1e309 - 1e309)");
    return;
  }
  if (x < 0 || (x == 0 && signbit(x))) {
    putch(o, '-');
    x = -x;
  }
  if (isinf(x)) {
    puts_(o, "1e309");
    return;
  }
  if (x == 0) {
    puts_(o, "0.0");
    return;
  }
  /* shortest %e that reads back as x */
  char buf[40];
  for (int p = 0; p < 17; p++) {
    snprintf(buf, sizeof buf, "%.*e", p, x);
    if (strtod(buf, NULL) == x) break;
  }
  char digits[24];
  int nd = 0;
  const char *c = buf;
  for (; *c && *c != 'e'; c++)
    if (*c >= '0' && *c <= '9') digits[nd++] = *c;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = 0;
  int exp10 = atoi(c + 1);
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) {
      puts_(o, "0.");
      for (int i = -1; i > exp10; i--) putch(o, '0');
      puts_(o, digits);
    } else {
      for (int i = 0; i <= exp10; i++) putch(o, i < nd ? digits[i] : '0');
      putch(o, '.');
      if (nd > exp10 + 1) puts_(o, digits + exp10 + 1);
      else putch(o, '0');
    }
  } else {
    putch(o, digits[0]);
    if (nd > 1) {
      putch(o, '.');
      puts_(o, digits + 1);
    }
    putf(o, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  }
}

static void constant(Out *o, const Ast *e) {
  switch (e->const_kind) {
  case C_NONE: puts_(o, "None"); break;
  case C_TRUE: puts_(o, "True"); break;
  case C_FALSE: puts_(o, "False"); break;
  case C_ELLIPSIS: puts_(o, "..."); break;
  case C_INT: putf(o, "%" PRId64, e->ival); break;
  case C_BIGINT:
    if (e->str) putf(o, "%s", e->str);
    else putf(o, "%llu", (unsigned long long)ast_bigint(e));
    break;
  case C_FLOAT: float_literal(o, e->fval); break;
  case C_IMAG: float_literal(o, e->fval); putch(o, 'j'); break;
  case C_STR: str_literal(o, e->str ? e->str : "", e->str ? e->slen : 0); break;
  case C_BYTES: bytes_literal(o, e->str ? e->str : "", e->str ? e->slen : 0); break;
  }
}

/* --- f-strings --- */

static void fstring_parts(Out *o, const Ast *js, char q);

static char *expr_text(const Ast *e, int prec) {
  Out t = {0};
  expr(&t, e, prec);
  if (!t.d) t.d = calloc(1, 1);
  return t.d;
}

/* Whether any expression inside the f-string's fields contains c. */
static bool fields_contain(const Ast *js, char c) {
  for (int i = 0; i < js->values.n; i++) {
    const Ast *v = js->values.items[i];
    if (!v || v->kind != A_FORMATTEDVALUE) continue;
    char *t = expr_text(v->value, P_TEST + 1);
    bool has = strchr(t, c) != NULL;
    free(t);
    if (has || (v->format_spec && fields_contain(v->format_spec, c))) return true;
  }
  return false;
}

static bool literals_contain(const Ast *js, char c) {
  for (int i = 0; i < js->values.n; i++) {
    const Ast *v = js->values.items[i];
    if (v && v->kind == A_CONSTANT && v->const_kind == C_STR && v->str && memchr(v->str, c, v->slen)) return true;
    if (v && v->kind == A_FORMATTEDVALUE && v->format_spec && literals_contain(v->format_spec, c)) return true;
  }
  return false;
}

static void fstring_parts(Out *o, const Ast *js, char q) {
  for (int i = 0; i < js->values.n; i++) {
    const Ast *v = js->values.items[i];
    if (!v) continue;
    if (v->kind == A_CONSTANT && v->const_kind == C_STR) {
      str_body(o, v->str ? v->str : "", v->str ? v->slen : 0, q, true);
    } else if (v->kind == A_FORMATTEDVALUE) {
      putch(o, '{');
      /* a lambda or conditional expression needs parentheses: its ':' or 'else' would end the field */
      char *t = expr_text(v->value, P_TEST + 1);
      if (t[0] == '{') putch(o, ' '); /* `{ {a: b}}`: not an escaped brace */
      puts_(o, t);
      free(t);
      if (v->op) {
        putch(o, '!');
        putch(o, (char)v->op);
      }
      if (v->format_spec) {
        putch(o, ':');
        fstring_parts(o, v->format_spec, q);
      }
      putch(o, '}');
    } else {
      /* not produced by the parser; print it as a field so nothing is lost */
      putch(o, '{');
      char *t = expr_text(v, P_TEST + 1);
      puts_(o, t);
      free(t);
      putch(o, '}');
    }
  }
}

static void joinedstr(Out *o, const Ast *e) {
  /* Before Python 3.12 a field may not reuse the f-string's quote: pick one
   * the fields do not contain, preferring repr()'s choice for the text. */
  bool fs = fields_contain(e, '\''), fd = fields_contain(e, '"');
  bool ls = literals_contain(e, '\''), ld = literals_contain(e, '"');
  const char *quote = "'";
  if (fs && fd) quote = "'''";
  else if (fs) quote = "\"";
  else if (!fd && ls && !ld) quote = "\"";
  putch(o, 'f');
  puts_(o, quote);
  fstring_parts(o, e, quote[0]);
  puts_(o, quote);
}

/* --- expressions --- */

static const char *const binop_text[BIN__COUNT] = {
    [BIN_ADD] = "+", [BIN_SUB] = "-", [BIN_MUL] = "*", [BIN_DIV] = "/", [BIN_FLOORDIV] = "//", [BIN_MOD] = "%",
    [BIN_POW] = "**", [BIN_MATMUL] = "@", [BIN_LSHIFT] = "<<", [BIN_RSHIFT] = ">>", [BIN_BITAND] = "&",
    [BIN_BITOR] = "|", [BIN_BITXOR] = "^",
};

static int binop_prec(int op) {
  switch (op) {
  case BIN_ADD: case BIN_SUB: return P_ARITH;
  case BIN_MUL: case BIN_DIV: case BIN_FLOORDIV: case BIN_MOD: case BIN_MATMUL: return P_TERM;
  case BIN_POW: return P_POWER;
  case BIN_LSHIFT: case BIN_RSHIFT: return P_SHIFT;
  case BIN_BITAND: return P_BAND;
  case BIN_BITXOR: return P_BXOR;
  default: return P_BOR;
  }
}

static const char *cmpop_text(int op) {
  switch (op) {
  case CMP_LT: return "<";
  case CMP_LE: return "<=";
  case CMP_GT: return ">";
  case CMP_GE: return ">=";
  case CMP_EQ: return "==";
  case CMP_NE: return "!=";
  case CMP_IS: return "is";
  case CMP_ISNOT: return "is not";
  case CMP_IN: return "in";
  default: return "not in";
  }
}

static void open_if(Out *o, bool cond) {
  if (cond) putch(o, '(');
}
static void close_if(Out *o, bool cond) {
  if (cond) putch(o, ')');
}

/* Parameters of a def or lambda: `a, b=1, *args, c, **kw`. */
static void params(Out *o, const AstList *args) {
  for (int i = 0; i < args->n; i++) {
    const Ast *a = args->items[i];
    if (i) puts_(o, ", ");
    if (!a) continue;
    if (a->is_kwstar) puts_(o, "**");
    else if (a->is_star) putch(o, '*');
    if (a->name) puts_(o, a->name);
    if (a->deflt) {
      putch(o, '=');
      expr(o, a->deflt, P_TEST);
    }
    if (a->is_posonly && (i + 1 == args->n || !args->items[i + 1] || !args->items[i + 1]->is_posonly)) puts_(o, ", /");
  }
}

/* Comma-separated expressions at precedence prec. */
static void expr_list(Out *o, const AstList *l, int prec) {
  for (int i = 0; i < l->n; i++) {
    if (i) puts_(o, ", ");
    expr(o, l->items[i], prec);
  }
}

/* A subscript's index: a tuple prints bare (`x[a, 1:2]`), a 1-tuple with its comma. */
static void subscript_index(Out *o, const Ast *s) {
  if (s && s->kind == A_TUPLE && s->elts.n > 0) {
    expr_list(o, &s->elts, P_TEST);
    if (s->elts.n == 1) putch(o, ',');
  } else {
    expr(o, s, P_TEST);
  }
}

static void call_args(Out *o, const Ast *e) {
  bool first = true;

  for (int i = 0; i < e->args.n; i++) {
    if (!first) puts_(o, ", ");
    first = false;
    expr(o, e->args.items[i], P_TEST);
  }
  for (int i = 0; i < e->keywords.n; i++) {
    const Ast *k = e->keywords.items[i];
    if (!first) puts_(o, ", ");
    first = false;
    if (!k) continue;
    if (k->name) {
      puts_(o, k->name);
      putch(o, '=');
    } else {
      puts_(o, "**");
    }
    expr(o, k->value, k->name ? P_TEST : P_BOR);
  }
}

static void expr(Out *o, const Ast *e, int prec) {
  if (!e) {
    puts_(o, "None");
    return;
  }
  switch (e->kind) {
  case A_BOOLOP: {
    int p = e->op == BOOL_OR ? P_OR : P_AND;
    open_if(o, prec > p);
    for (int i = 0; i < e->values.n; i++) {
      if (i) puts_(o, e->op == BOOL_OR ? " or " : " and ");
      expr(o, e->values.items[i], p + 1);
    }
    close_if(o, prec > p);
    break;
  }
  case A_BINOP: {
    int p = binop_prec(e->op);
    bool right_assoc = e->op == BIN_POW, extra;
    bool par = layout_open(o, prec, p, &extra);
    open_if(o, par);
    expr(o, e->left, right_assoc ? p + 1 : p);
    putch(o, ' ');
    puts_(o, e->op >= 0 && e->op < BIN__COUNT ? binop_text[e->op] : "?");
    putch(o, ' ');
    expr(o, e->right, right_assoc ? p : p + 1);
    close_if(o, par);
    layout_close(o, extra);
    break;
  }
  case A_UNARYOP: {
    int p = e->op == UN_NOT ? P_NOT : P_FACTOR;
    open_if(o, prec > p);
    puts_(o, e->op == UN_NOT ? "not " : e->op == UN_NEG ? "-" : e->op == UN_POS ? "+" : "~");
    expr(o, e->operand, p);
    close_if(o, prec > p);
    break;
  }
  case A_YIELD:
  case A_YIELDFROM:
    open_if(o, prec > P_YIELD);
    puts_(o, e->kind == A_YIELD ? "yield" : "yield from");
    if (e->value) {
      putch(o, ' ');
      expr(o, e->value, e->kind == A_YIELD ? P_TUPLE : P_TEST);
    }
    close_if(o, prec > P_YIELD);
    break;
  case A_LAMBDA:
    open_if(o, prec > P_TEST);
    puts_(o, "lambda");
    if (e->args.n) {
      putch(o, ' ');
      params(o, &e->args);
    }
    puts_(o, ": ");
    expr(o, e->value, P_TEST);
    close_if(o, prec > P_TEST);
    break;
  case A_IFEXP:
    open_if(o, prec > P_TEST);
    expr(o, e->left, P_TEST + 1);
    puts_(o, " if ");
    expr(o, e->test, P_TEST + 1);
    puts_(o, " else ");
    expr(o, e->right, P_TEST);
    close_if(o, prec > P_TEST);
    break;
  case A_DICT:
    putch(o, '{');
    for (int i = 0; i < e->values.n; i++) {
      if (i) puts_(o, ", ");
      const Ast *k = i < e->keys.n ? e->keys.items[i] : NULL;
      if (k) {
        expr(o, k, P_TEST);
        puts_(o, ": ");
        expr(o, e->values.items[i], P_TEST);
      } else {
        puts_(o, "**");
        expr(o, e->values.items[i], P_BOR);
      }
    }
    putch(o, '}');
    break;
  case A_COMPARE: {
    bool extra, par = layout_open(o, prec, P_CMP, &extra);
    open_if(o, par);
    expr(o, e->left, P_CMP + 1);
    for (int i = 0; i < e->comparators.n; i++) {
      putch(o, ' ');
      puts_(o, cmpop_text(e->ops ? e->ops[i] : CMP_EQ));
      putch(o, ' ');
      expr(o, e->comparators.items[i], P_CMP + 1);
    }
    close_if(o, par);
    layout_close(o, extra);
    break;
  }
  case A_CALL:
    expr(o, e->func, P_ATOM);
    putch(o, '(');
    call_args(o, e);
    putch(o, ')');
    break;
  case A_JOINEDSTR: joinedstr(o, e); break;
  case A_FORMATTEDVALUE: { /* only inside a JoinedStr; alone, print it as a one-field f-string */
    Ast js = {.kind = A_JOINEDSTR};
    const Ast *one[1] = {e};
    js.values.items = (Ast **)one;
    js.values.n = 1;
    joinedstr(o, &js);
    break;
  }
  case A_CONSTANT: {
    /* a negative number literal (only -2**63 reaches here) binds like unary minus */
    bool neg = (e->const_kind == C_INT && e->ival < 0) || (e->const_kind == C_FLOAT && signbit(e->fval));
    open_if(o, neg && prec > P_FACTOR);
    constant(o, e);
    close_if(o, neg && prec > P_FACTOR);
    break;
  }
  case A_ATTRIBUTE:
    expr(o, e->value, P_ATOM);
    /* `1 .real`: `1.real` would read as a float */
    if (e->value && e->value->kind == A_CONSTANT && e->value->const_kind == C_INT && e->value->ival >= 0) putch(o, ' ');
    putch(o, '.');
    puts_(o, e->name ? e->name : "?");
    break;
  case A_SUBSCRIPT:
    expr(o, e->value, P_ATOM);
    putch(o, '[');
    subscript_index(o, e->slice);
    putch(o, ']');
    break;
  case A_STARRED:
    putch(o, '*');
    expr(o, e->value, P_BOR);
    break;
  case A_NAME: puts_(o, e->name ? e->name : "?"); break;
  case A_LIST:
    putch(o, '[');
    expr_list(o, &e->elts, P_TEST);
    putch(o, ']');
    break;
  case A_TUPLE: {
    bool paren = e->elts.n == 0 || prec > P_TUPLE;
    open_if(o, paren);
    expr_list(o, &e->elts, P_TEST);
    if (e->elts.n == 1) putch(o, ',');
    close_if(o, paren);
    break;
  }
  case A_SET:
    putch(o, '{');
    expr_list(o, &e->elts, P_TEST);
    putch(o, '}');
    break;
  case A_LISTCOMP:
  case A_SETCOMP:
  case A_GENEXP:
  case A_DICTCOMP:
    putch(o, e->kind == A_LISTCOMP ? '[' : e->kind == A_GENEXP ? '(' : '{');
    if (e->kind == A_DICTCOMP) {
      expr(o, e->key, P_TEST);
      puts_(o, ": ");
    }
    expr(o, e->value, P_TEST);
    for (int i = 0; i < e->generators.n; i++) {
      const Ast *g = e->generators.items[i];
      puts_(o, " for ");
      expr(o, g->target, P_TUPLE);
      puts_(o, " in ");
      expr(o, g->iter, P_TEST + 1);
      for (int k = 0; k < g->ifs.n; k++) {
        puts_(o, " if ");
        expr(o, g->ifs.items[k], P_TEST + 1);
      }
    }
    putch(o, e->kind == A_LISTCOMP ? ']' : e->kind == A_GENEXP ? ')' : '}');
    break;
  case A_SLICE:
    if (e->lower) expr(o, e->lower, P_TEST);
    putch(o, ':');
    if (e->upper) expr(o, e->upper, P_TEST);
    if (e->step) {
      putch(o, ':');
      expr(o, e->step, P_TEST);
    }
    break;
  case A_KEYWORD:
    if (e->name) {
      puts_(o, e->name);
      putch(o, '=');
    } else {
      puts_(o, "**");
    }
    expr(o, e->value, P_TEST);
    break;
  case A_ARG: {
    AstList one = {(Ast **)&e, 1, 1};
    params(o, &one);
    break;
  }
  default:
    /* a statement where an expression belongs: not produced by the parser */
    putf(o, "<%s>", ast_kind_name(e->kind));
    break;
  }
}

/* --- statements --- */

/* An optional trailing clause (`else:`, `finally:`): printed only when it has statements. */
static void block(Out *o, const AstList *body);

static void clause(Out *o, const char *head, const AstList *body) {
  if (!body->n) return;
  fill(o, head);
  block(o, body);
}

/* `return`, `return x`, `raise`, `raise E(...)` */
static void keyword_opt(Out *o, const char *kw, const Ast *e) {
  fill(o, kw);
  if (e) {
    putch(o, ' ');
    expr(o, e, P_TEST);
  }
}

static void stmt(Out *o, const Ast *s);

static void block(Out *o, const AstList *body) {
  o->indent++;
  if (body->n == 0) fill(o, "pass"); /* an empty suite cannot be written */
  for (int i = 0; i < body->n; i++) stmt(o, body->items[i]);
  o->indent--;
}

/* The blank line before a definition, unless it opens the text. */
static void maybe_newline(Out *o) {
  if (o->n) putch(o, '\n');
}

static void decorators(Out *o, const Ast *s) {
  for (int i = 0; i < s->decorators.n; i++) {
    fill(o, "@");
    expr(o, s->decorators.items[i], P_TEST);
  }
}

static void funcdef(Out *o, const Ast *s, bool rename_tf) {
  maybe_newline(o);
  if (!rename_tf) decorators(o, s);
  fill(o, "def ");
  if (rename_tf) puts_(o, "tf__");
  puts_(o, s->name ? s->name : "?");
  putch(o, '(');
  params(o, &s->args);
  puts_(o, "):");
  block(o, &s->body);
}

/* `if` and its `elif` chain: an else block holding exactly one `if` prints as elif. */
static void if_chain(Out *o, const Ast *s) {
  fill(o, "if ");
  expr(o, s->test, P_TEST);
  putch(o, ':');
  block(o, &s->body);
  while (s->orelse.n == 1 && s->orelse.items[0] && s->orelse.items[0]->kind == A_IF) {
    s = s->orelse.items[0];
    fill(o, "elif ");
    expr(o, s->test, P_TEST);
    putch(o, ':');
    block(o, &s->body);
  }
  if (s->orelse.n) {
    fill(o, "else:");
    block(o, &s->orelse);
  }
}

static void alias_list(Out *o, const AstList *names) {
  for (int i = 0; i < names->n; i++) {
    const Ast *a = names->items[i];
    if (i) puts_(o, ", ");
    if (!a) continue;
    puts_(o, a->name ? a->name : "*");
    if (a->asname) {
      puts_(o, " as ");
      puts_(o, a->asname);
    }
  }
}

static void stmt(Out *o, const Ast *s) {
  if (!s) return;
  switch (s->kind) {
  case A_FUNCDEF: funcdef(o, s, false); break;
  case A_CLASSDEF:
    maybe_newline(o);
    decorators(o, s);
    fill(o, "class ");
    puts_(o, s->name ? s->name : "?");
    if (s->bases.n || s->keywords.n) {
      putch(o, '(');
      Ast call = {.kind = A_CALL};
      call.args = s->bases;
      call.keywords = s->keywords;
      call_args(o, &call);
      putch(o, ')');
    }
    putch(o, ':');
    block(o, &s->body);
    break;
  case A_RETURN: keyword_opt(o, "return", s->value); break;
  case A_DELETE:
    fill(o, "del ");
    expr_list(o, &s->targets, P_TEST);
    break;
  case A_ASSIGN:
    fill(o, "");
    if (s->name && strchr(s->name, ':') && s->targets.n == 1) {
      /* an annotated assignment keeps its annotation ("x:T" from the parser): x: T = value */
      const char *colon = strchr(s->name, ':');
      expr(o, s->targets.items[0], P_TEST);
      puts_(o, ": ");
      puts_(o, colon + 1);
      puts_(o, " = ");
      expr(o, s->value, P_TEST);
      break;
    }
    for (int i = 0; i < s->targets.n; i++) {
      expr(o, s->targets.items[i], P_TEST);
      puts_(o, " = ");
    }
    expr(o, s->value, P_TEST);
    break;
  case A_AUGASSIGN:
    fill(o, "");
    expr(o, s->target, P_TEST);
    putch(o, ' ');
    puts_(o, s->op >= 0 && s->op < BIN__COUNT ? binop_text[s->op] : "?");
    puts_(o, "= ");
    expr(o, s->value, P_TEST);
    break;
  case A_FOR:
    fill(o, "for ");
    expr(o, s->target, P_TUPLE);
    puts_(o, " in ");
    expr(o, s->iter, P_TEST);
    putch(o, ':');
    block(o, &s->body);
    clause(o, "else:", &s->orelse);
    break;
  case A_WHILE:
    fill(o, "while ");
    expr(o, s->test, P_TEST);
    putch(o, ':');
    block(o, &s->body);
    clause(o, "else:", &s->orelse);
    break;
  case A_IF: if_chain(o, s); break;
  case A_WITH:
    fill(o, "with ");
    for (int i = 0; i < s->items.n; i++) {
      const Ast *it = s->items.items[i];
      if (i) puts_(o, ", ");
      if (!it) continue;
      expr(o, it->context_expr, P_TEST);
      if (it->optional_vars) {
        puts_(o, " as ");
        expr(o, it->optional_vars, P_TEST);
      }
    }
    putch(o, ':');
    block(o, &s->body);
    break;
  case A_RAISE:
    keyword_opt(o, "raise", s->exc);
    if (s->value) {
      puts_(o, " from ");
      expr(o, s->value, P_TEST);
    }
    break;
  case A_TRY:
    fill(o, "try:");
    block(o, &s->body);
    for (int i = 0; i < s->handlers.n; i++) {
      const Ast *h = s->handlers.items[i];
      if (!h) continue;
      fill(o, "except");
      if (h->type) {
        putch(o, ' ');
        expr(o, h->type, P_TEST);
        if (h->name) {
          puts_(o, " as ");
          puts_(o, h->name);
        }
      }
      putch(o, ':');
      block(o, &h->body);
    }
    clause(o, "else:", &s->orelse);
    clause(o, "finally:", &s->finalbody);
    break;
  case A_ASSERT:
    fill(o, "assert ");
    expr(o, s->test, P_TEST);
    if (s->msg) {
      puts_(o, ", ");
      expr(o, s->msg, P_TEST);
    }
    break;
  case A_IMPORT:
    fill(o, "import ");
    alias_list(o, &s->names);
    break;
  case A_IMPORTFROM:
    fill(o, "from ");
    for (int i = 0; i < s->level; i++) putch(o, '.');
    if (s->name) puts_(o, s->name);
    puts_(o, " import ");
    alias_list(o, &s->names);
    break;
  case A_GLOBAL:
  case A_NONLOCAL:
    fill(o, s->kind == A_GLOBAL ? "global " : "nonlocal ");
    for (int i = 0; i < s->names.n; i++) {
      if (i) puts_(o, ", ");
      const Ast *n = s->names.items[i];
      puts_(o, n && n->name ? n->name : "?");
    }
    break;
  case A_EXPR:
    fill(o, "");
    expr(o, s->value, P_YIELD);
    break;
  case A_PASS:
    if (s->name && strchr(s->name, ':')) {   /* a bare annotation (x: T), kept in the name by the parser */
      const char *colon = strchr(s->name, ':');
      fill(o, "");
      for (const char *c = s->name; c < colon; c++) putch(o, *c);
      puts_(o, ": ");
      puts_(o, colon + 1);
    } else {
      fill(o, "pass");
    }
    break;
  case A_BREAK: fill(o, "break"); break;
  case A_CONTINUE: fill(o, "continue"); break;
  case A_MODULE:
    for (int i = 0; i < s->body.n; i++) stmt(o, s->body.items[i]);
    break;
  default: /* an expression where a statement belongs */
    fill(o, "");
    expr(o, s, P_YIELD);
    break;
  }
}

/* Drop the leading newline every statement writes, end with exactly one. */
static char *finish(Out *o) {
  if (!o->d) return strdup("");
  size_t skip = 0;
  while (skip < o->n && o->d[skip] == '\n') skip++;
  memmove(o->d, o->d + skip, o->n - skip);
  o->n -= skip;
  o->d[o->n] = 0;
  if (o->n) putch(o, '\n');
  return o->d;
}

char *unparse_module(const Ast *module) {
  Out o = {.tf = true};
  if (module) stmt(&o, module);
  return finish(&o);
}

char *unparse_module_plain(const Ast *module) {
  Out o = {0};
  if (module) stmt(&o, module);
  return finish(&o);
}

char *unparse_function(const Ast *fn, bool rename_tf) {
  Out o = {.tf = true};
  if (fn && fn->kind == A_FUNCDEF) funcdef(&o, fn, rename_tf);
  else if (fn) stmt(&o, fn);
  return finish(&o);
}

char *unparse_stmt(const Ast *s) {
  Out o = {0};
  stmt(&o, s);
  return finish(&o);
}

char *unparse_expr(const Ast *e) {
  Out o = {0};
  expr(&o, e, P_TEST);
  if (!o.d) return strdup("");
  return o.d;
}
