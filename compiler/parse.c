/* parse.c — the front end: .tfs text -> tree-sitter CST -> AST, with Python's syntax diagnostics.
 *
 * parse_source() runs:
 *   1. A lexer in the manner of CPython's tokenizer.  It always runs: it owns
 *      what tree-sitter cannot judge (tab size 8 vs 1, an unindent to no outer
 *      level, an unexpected indent, stray characters), and its tokens
 *      (NEWLINE/INDENT/DEDENT included) serve the other parts.
 *   2. tree-sitter parses.  The regions that need a diagnosis are its ERROR
 *      and MISSING nodes, empty blocks, and statements whose extent disagrees
 *      with the lexer's logical lines (tree-sitter reads a line end as blank
 *      space wherever no NEWLINE may follow).
 *   3. If there are regions, a small recursive-descent checker re-reads the
 *      tokens and says what was expected where, Python-style ("expected ':'",
 *      "'(' was never closed"): one error per logical line, near a region
 *      only.  A region it did not explain gets a message built from the CST.
 *      Statements clear of every region still get the checks of part 4.
 *   4. Else the converter builds the AST (ast.h) and reports what Python
 *      reports at compile time ('return' outside function, cannot assign to
 *      literal, keyword argument repeated, ...).
 * Nothing here prints or aborts; every problem goes to the DiagList.
 */
#include "parse.h"

#include <ctype.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "object/abi.h"
#include "tsmem.h"

const TSLanguage *tree_sitter_tfs(void);

enum {
  MAX_PAREN = 200,   /* nested brackets (CPython's MAXLEVEL) */
  MAX_INDENT = 100,  /* indentation levels (CPython's MAXINDENT) */
  MAX_CHECK_DEPTH = 400,
  MAX_CONV_DEPTH = 1000,       /* every later pass recurses this deep too: keep sanitizer stacks safe */
};

/* ------------------------------------------------------------------------ */
/* Context                                                                   */

typedef enum TokKind { T_NAME, T_NUMBER, T_STRING, T_OP, T_NEWLINE, T_INDENT, T_DEDENT, T_EOF } TokKind;

typedef struct Tok {
  TokKind kind;
  uint32_t off, end;          /* bytes of src */
  int line, col;              /* 1-based start; NEWLINE/EOF: end of the previous token */
  int lline;                  /* index of the logical line the token belongs to */
  bool fstr;                  /* STRING: has an f prefix */
} Tok;

/* Lexer error classes: how much the tree-sitter result may overrule them. */
enum {
  LE_INDENT,                  /* indentation rules: tree-sitter cannot judge them, always reported */
  LE_NUMBER,                  /* malformed number: on a clean tree the converter says it again */
  LE_ALWAYS,                  /* invalid characters, nesting limits: tree-sitter cannot see them, always reported */
  LE_OTHER,                   /* reported only where tree-sitter also found an error */
  LE_STRAY_INDENT,            /* unexpected indent: on an error tree the checker judges it in context */
};

typedef struct LexErr {
  int line, col, lline;
  int cls;                    /* LE_* */
  char msg[160];
} LexErr;

typedef struct P {
  Arena *a;
  Arena scratch;              /* child lists of CST nodes: released after each top-level statement */
  const char *path, *src;
  size_t len;
  DiagList *d;
  int nerr;
  uint32_t *lines; int nlines;  /* byte offset of each line start */
  /* lexer output */
  Tok *toks; int ntok, captok;
  LexErr *lerrs; int nlerrs, caplerrs;
  int nllines;
  bool too_nested;            /* brackets past MAX_PAREN: tree-sitter is not asked (it mishandles such depth) */
  unsigned char *lldone;      /* per logical line: reported there, or not the checker's to judge */
  /* checker */
  int k;                      /* current token */
  jmp_buf *jb;                /* where a failing line unwinds to */
  int cdepth;
  /* converter */
  const TSLanguage *lang;
  unsigned char *nk; uint32_t nsym;
  int depth;
  int scope;                  /* S_MODULE / S_FUNC / S_CLASS */
  int loops;                  /* loops around the current statement, within its scope */
  bool errtree;               /* converting the clean statements of a tree with syntax errors */
  const char *comp;           /* the comprehension being converted ('list comprehension'), for yield; NULL: none */
} P;

/* S_UNKNOWN: outside any def or class on a tree with syntax errors, where the
 * enclosing construct may be the broken part: context checks are skipped. */
enum { S_MODULE, S_FUNC, S_CLASS, S_UNKNOWN };

static void add_diag(P *p, int line, int col, const char *fmt, va_list ap) {
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  /* errindex: - (passes on a message indexed where it is made) */
  diag_add(p->d, p->path, p->src, line, col, "%s", buf);
  p->nerr++;
}

static void perr(P *p, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void perr(P *p, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_diag(p, line, col, fmt, ap);
  va_end(ap);
}

/* 1-based line and column of byte offset `off`. */
static void pos_of(const P *p, size_t off, int *line, int *col) {
  int lo = 0, hi = p->nlines - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (p->lines[mid] <= off) lo = mid; else hi = mid - 1;
  }
  *line = lo + 1;
  *col = (int)(off - p->lines[lo]) + 1;
}

static bool is_id_start(int c) { return isalpha(c) || c == '_'; }
static bool is_id_char(int c) { return isalnum(c) || c == '_'; }

/* A short printable rendering of src[off..off+n) for messages: first line only, at most 24 bytes. */
static const char *snippet(P *p, size_t off, size_t n) {
  size_t m = 0;
  while (m < n && m < 24 && off + m < p->len && p->src[off + m] != '\n' && p->src[off + m] != '\r') m++;
  return arena_printf(p->a, "%.*s%s", (int)m, p->src + off, m < n ? "..." : "");
}

/* ------------------------------------------------------------------------ */
/* Numbers: one validator for the lexer (error trees) and the converter.     */

/* digitpart: digit (['_'] digit)*.  Returns 0 if no digit at *i, -1 on a bad underscore. */
static int digitpart(const char *s, size_t n, size_t *i, int base) {
  int (*ok)(int) = base == 16 ? isxdigit : isdigit;
  if (*i >= n || !ok((unsigned char)s[*i]) || (base == 8 && s[*i] > '7') || (base == 2 && s[*i] > '1')) return 0;
  (*i)++;
  while (*i < n) {
    unsigned char c = (unsigned char)s[*i];
    if (c == '_') {
      if (*i + 1 < n && ok((unsigned char)s[*i + 1])) (*i)++;
      else return -1;
    } else if (!ok(c)) {
      break;
    } else if ((base == 8 && c > '7') || (base == 2 && c > '1')) {
      return -1;
    }
    (*i)++;
  }
  return 1;
}

/* NULL if s[0..n) is a valid number literal, else Python's message for it. */
static const char *number_error(const char *s, size_t n) {
  size_t i = 0;
  if (n >= 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
    int base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
    const char *msg = base == 16  ? "invalid hexadecimal literal"
                      : base == 8 ? "invalid octal literal"
                                  : "invalid binary literal";
    i = 2;
    if (i < n && s[i] == '_') i++;
    if (digitpart(s, n, &i, base) != 1 || i != n) return msg;
    return NULL;
  }
  int ip = digitpart(s, n, &i, 10);
  if (ip < 0) return "invalid decimal literal";
  bool is_float = false;
  if (i < n && s[i] == '.') {
    is_float = true;
    i++;
    size_t save = i;
    int fp = digitpart(s, n, &i, 10);
    if (fp < 0 || (fp == 0 && ip == 0)) return "invalid decimal literal";
    if (fp == 0) i = save;
  } else if (ip == 0) {
    return "invalid decimal literal";
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    is_float = true;
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    if (digitpart(s, n, &i, 10) != 1) return "invalid decimal literal";
  }
  if (i < n && (s[i] == 'j' || s[i] == 'J')) {
    is_float = true;
    i++;
  }
  if (i != n) return "invalid decimal literal";
  if (!is_float && s[0] == '0') {
    for (size_t j = 0; j < n; j++)
      if (s[j] != '0' && s[j] != '_')
        return "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers";
  }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Lexer                                                                     */

typedef struct Lx {
  P *p;
  size_t i;
  int line;
  size_t ls;                  /* offset of the current line's start */
  int lline;
  bool has_tok;               /* the current logical line has tokens */
  int last_line, last_col;    /* end of the last token */
  bool last_colon;            /* the last token is ':' */
  bool colon_line;            /* the last logical line ended with ':' (may be followed by INDENT) */
  int np;                     /* open brackets */
  char pch[MAX_PAREN];
  int pline[MAX_PAREN], pcol[MAX_PAREN];
  int nind;
  int ind8[MAX_INDENT + 2], ind1[MAX_INDENT + 2];
  bool phantom[MAX_INDENT + 2]; /* a level pushed only to recover from a bad unindent */
  bool too_deep;              /* "too many levels of indentation" was reported */
} Lx;

static void lex_err(Lx *L, int line, int col, int cls, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void lex_err(Lx *L, int line, int col, int cls, const char *fmt, ...) {
  P *p = L->p;
  if (p->nlerrs == p->caplerrs) {
    p->caplerrs = p->caplerrs ? p->caplerrs * 2 : 16;
    p->lerrs = realloc(p->lerrs, sizeof *p->lerrs * (size_t)p->caplerrs);
    if (!p->lerrs) abort();
  }
  LexErr *e = &p->lerrs[p->nlerrs++];
  e->line = line;
  e->col = col;
  e->lline = L->lline;
  e->cls = cls;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
}

static Tok *emit(Lx *L, TokKind kind, size_t off, size_t end, int line, int col) {
  P *p = L->p;
  if (p->ntok == p->captok) {
    p->captok = p->captok ? p->captok * 2 : 256;
    p->toks = realloc(p->toks, sizeof *p->toks * (size_t)p->captok);
    if (!p->toks) abort();
  }
  Tok *t = &p->toks[p->ntok++];
  memset(t, 0, sizeof *t);
  t->kind = kind;
  t->off = (uint32_t)off;
  t->end = (uint32_t)end;
  t->line = line;
  t->col = col;
  t->lline = L->lline;
  if (kind != T_NEWLINE && kind != T_INDENT && kind != T_DEDENT && kind != T_EOF) {
    L->has_tok = true;
    int el, ec;
    pos_of(p, end, &el, &ec);
    L->last_line = el;
    L->last_col = ec;
    L->last_colon = kind == T_OP && end == off + 1 && p->src[off] == ':';
  }
  return t;
}

static int lx_col(const Lx *L, size_t i) { return (int)(i - L->ls) + 1; }

static void lx_newline(Lx *L, size_t after) {
  L->line++;
  L->ls = after;
}

/* At the start of a logical line: measure indentation, emit INDENT/DEDENT. */
static void lex_indent(Lx *L) {
  const char *s = L->p->src;
  size_t n = L->p->len, j = L->i;
  int c8 = 0, c1 = 0;
  for (; j < n; j++) {
    if (s[j] == ' ') c8++, c1++;
    else if (s[j] == '\t') c8 = c8 / 8 * 8 + 8, c1++;
    else if (s[j] == '\f') c8 = c1 = 0;
    else break;
  }
  L->i = j;
  if (j >= n || s[j] == '#' || s[j] == '\n' || s[j] == '\r') return; /* blank line: no indentation */
  int col = lx_col(L, j), top = L->nind - 1;
  if (c8 == L->ind8[top]) {
    if (c1 != L->ind1[top]) lex_err(L, L->line, col, LE_INDENT, "inconsistent use of tabs and spaces in indentation");
  } else if (c8 > L->ind8[top]) {
    if (L->nind > MAX_INDENT) {
      /* read the line at the current level: the error is reported once */
      if (!L->too_deep) lex_err(L, L->line, col, LE_INDENT, "too many levels of indentation");
      L->too_deep = true;
      return;
    }
    if (c1 <= L->ind1[top]) lex_err(L, L->line, col, LE_INDENT, "inconsistent use of tabs and spaces in indentation");
    L->phantom[L->nind] = false;
    if (!L->colon_line) lex_err(L, L->line, col, LE_STRAY_INDENT, "unexpected indent");
    emit(L, T_INDENT, j, j, L->line, col);
    L->ind8[L->nind] = c8;
    L->ind1[L->nind] = c1;
    L->nind++;
  } else {
    while (top > 0 && c8 < L->ind8[top]) {
      if (!L->phantom[top]) emit(L, T_DEDENT, j, j, L->line, col);
      L->nind--;
      top--;
    }
    if (c8 != L->ind8[top]) {
      lex_err(L, L->line, col, LE_INDENT, "unindent does not match any outer indentation level");
      /* nind < MAX_INDENT here: this pops at least one level first */
      L->ind8[L->nind] = c8;
      L->ind1[L->nind] = c1;
      L->phantom[L->nind] = true;
      L->nind++;
    } else if (c1 != L->ind1[top]) {
      lex_err(L, L->line, col, LE_INDENT, "inconsistent use of tabs and spaces in indentation");
    }
  }
}

static size_t lex_string_body(Lx *L, size_t q, bool fstr, int sline, int scol);

/* Skip an f-string replacement field starting after its '{'; returns the
 * offset after its '}' (or where the string went wrong). */
static size_t lex_fexpr(Lx *L, size_t i, bool triple) {
  const char *s = L->p->src;
  size_t n = L->p->len;
  int depth = 0;
  bool in_spec = false;
  size_t j = i;
  while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
  if (j < n && s[j] == '}') lex_err(L, L->line, lx_col(L, j), LE_OTHER, "f-string: empty expression not allowed");
  else if (j + 1 < n && (s[j] == ':' || ((s[j] == '!' || s[j] == '=') && s[j + 1] != '=')))
    lex_err(L, L->line, lx_col(L, j), LE_OTHER, "f-string: expression required before '%c'", s[j]);
  while (i < n) {
    char c = s[i];
    if (c == '\r' && (i + 1 >= n || s[i + 1] != '\n'))
      lex_err(L, L->line, lx_col(L, i), LE_ALWAYS, "invalid non-printable character U+000D");
    if (c == '\n') {
      if (!triple) return i;
      lx_newline(L, i + 1);
      i++;
      continue;
    }
    if ((c == '\'' || c == '"') && !in_spec) {
      size_t b = i;
      while (b > 0 && isalpha((unsigned char)s[b - 1])) b--;
      bool f = false;
      for (size_t m = b; m < i; m++) f |= s[m] == 'f' || s[m] == 'F';
      int sl = L->line, sc = lx_col(L, b);
      i = lex_string_body(L, i, f, sl, sc);
      continue;
    }
    if (in_spec && c == '{') {
      i = lex_fexpr(L, i + 1, triple);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') depth++;
    else if ((c == ')' || c == ']') && depth > 0) depth--;
    else if (c == '}') {
      if (depth == 0) return i + 1;
      depth--;
    } else if (c == ':' && depth == 0) {
      in_spec = true;
    }
    i++;
  }
  return i;
}

/* Scan a string whose opening quote is at q (prefix from `start`); returns the
 * offset after it.  Reports an unterminated string at its start. */
static size_t lex_string_body(Lx *L, size_t q, bool fstr, int sline, int scol) {
  const char *s = L->p->src;
  size_t n = L->p->len;
  char quote = s[q];
  bool triple = q + 2 < n && s[q + 1] == quote && s[q + 2] == quote;
  size_t i = q + (triple ? 3 : 1);
  for (;;) {
    if (i >= n) {
      lex_err(L, sline, scol, LE_OTHER, "unterminated %sstring literal", triple ? "triple-quoted " : "");
      return n;
    }
    char c = s[i];
    if (c == '\\') {
      if (i + 1 < n && s[i + 1] == '\n') lx_newline(L, i + 2);
      else if (i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') lx_newline(L, i + 3), i++;
      i += 2;
    } else if (c == '\r' && (i + 1 >= n || s[i + 1] != '\n')) {
      lex_err(L, L->line, lx_col(L, i), LE_ALWAYS, "invalid non-printable character U+000D");
      i++;
    } else if (c == '\n') {
      if (!triple) {
        lex_err(L, sline, scol, LE_OTHER, "unterminated string literal");
        return i;
      }
      lx_newline(L, i + 1);
      i++;
    } else if (c == quote && (!triple || (i + 2 < n && s[i + 1] == quote && s[i + 2] == quote))) {
      return i + (triple ? 3 : 1);
    } else if (fstr && c == '{') {
      if (i + 1 < n && s[i + 1] == '{') {
        i += 2;
      } else {
        i = lex_fexpr(L, i + 1, triple); /* stops at a line end it may not cross: reported above */
      }
    } else if (fstr && c == '}') {
      if (i + 1 < n && s[i + 1] == '}') {
        i += 2;
      } else {
        lex_err(L, L->line, lx_col(L, i), LE_OTHER, "f-string: single '}' is not allowed");
        i++;
      }
    } else {
      i++;
    }
  }
}

static bool string_prefix(const char *s, size_t n, bool *fstr) {
  if (n == 0 || n > 2) return false;
  bool r = false, b = false, u = false, f = false;
  for (size_t i = 0; i < n; i++) {
    switch (tolower((unsigned char)s[i])) {
    case 'r': if (r) return false; r = true; break;
    case 'b': if (b) return false; b = true; break;
    case 'u': if (u) return false; u = true; break;
    case 'f': if (f) return false; f = true; break;
    default: return false;
    }
  }
  if (u && n > 1) return false;
  if (b && f) return false;
  *fstr = f;
  return true;
}

static const char *const ops3[] = {"**=", "//=", ">>=", "<<=", "...", NULL};
static const char *const ops2[] = {"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", "+=", "-=", "*=", "/=",
                                   "%=", "&=", "|=", "^=", "@=", ":=", NULL};
static const char ops1[] = "+-*/%@&|^~<>()[]{},:.;=!";

static size_t op_len(const char *s, size_t avail) {
  for (int i = 0; ops3[i]; i++)
    if (avail >= 3 && !memcmp(s, ops3[i], 3)) return 3;
  for (int i = 0; ops2[i]; i++)
    if (avail >= 2 && !memcmp(s, ops2[i], 2)) return 2;
  return strchr(ops1, s[0]) && s[0] ? 1 : 0;
}

/* Decode one UTF-8 code point for "invalid character" messages. */
static unsigned utf8_decode(const unsigned char *s, size_t n, size_t *len) {
  unsigned c = s[0];
  int k = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if ((size_t)k >= n) k = 0;
  unsigned cp = k == 0 ? c : k == 1 ? (c & 0x1F) : k == 2 ? (c & 0x0F) : (c & 0x07);
  for (int i = 1; i <= k; i++) {
    if ((s[i] & 0xC0) != 0x80) { k = i - 1; break; }
    cp = cp << 6 | (s[i] & 0x3F);
  }
  *len = (size_t)k + 1;
  return cp;
}

static void lex(P *p) {
  Lx *L = calloc(1, sizeof *L); /* large (bracket and indent stacks): not on the stack */
  if (!L) abort();
  L->p = p;
  L->line = 1;
  L->nind = 1;
  L->last_line = 1;
  L->last_col = 1;
  const char *s = p->src;
  size_t n = p->len;
  bool atbol = true;
  if (n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) L->i = 3; /* UTF-8 signature */
  while (L->i < n || atbol) {
    if (atbol) {
      atbol = false;
      if (L->np == 0) lex_indent(L);
      continue;
    }
    size_t i = L->i;
    unsigned char c = (unsigned char)s[i];
    if (c == ' ' || c == '\t' || c == '\f' || (c == '\r' && i + 1 < n && s[i + 1] == '\n')) {
      L->i++;
      continue;
    }
    if (c == '#') {
      while (L->i < n && s[L->i] != '\n' && !(s[L->i] == '\r' && (L->i + 1 >= n || s[L->i + 1] != '\n'))) L->i++;
      continue;
    }
    if (c == '\n') {
      if (L->np == 0 && L->has_tok) {
        emit(L, T_NEWLINE, i, i + 1, L->last_line, L->last_col);
        L->colon_line = L->last_colon;
        L->lline++;
        L->has_tok = false;
      }
      L->i++;
      lx_newline(L, L->i);
      atbol = L->np == 0;
      continue;
    }
    int col = lx_col(L, i);
    if (c == '\\') {
      size_t j = i + 1;
      if (j < n && s[j] == '\r') j++;
      if (j < n && s[j] == '\n') {
        if (j + 1 >= n) lex_err(L, L->line, col, LE_ALWAYS, "unexpected EOF while parsing");
        L->i = j + 1;
        lx_newline(L, L->i);
      } else {
        lex_err(L, L->line, col, LE_OTHER,
                j >= n ? "unexpected EOF while parsing" : "unexpected character after line continuation character");
        L->i++;
      }
      continue;
    }
    if (is_id_start(c)) {
      size_t j = i;
      while (j < n && is_id_char((unsigned char)s[j])) j++;
      bool fstr = false;
      if (j < n && (s[j] == '"' || s[j] == '\'') && string_prefix(s + i, j - i, &fstr)) {
        int line = L->line;
        size_t e = lex_string_body(L, j, fstr, line, col);
        Tok *t = emit(L, T_STRING, i, e, line, col);
        t->fstr = fstr;
        L->i = e;
      } else {
        emit(L, T_NAME, i, j, L->line, col);
        L->i = j;
      }
      continue;
    }
    if (isdigit(c) || (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
      size_t j = i;
      if (c == '0' && i + 1 < n && strchr("xXoObB", s[i + 1]) && s[i + 1]) {
        j = i + 2;
      } else {
        while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '_')) j++;
        if (j < n && s[j] == '.') {
          j++;
          while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '_')) j++;
        }
        if (j < n && (s[j] == 'e' || s[j] == 'E')) {
          size_t e = j + 1;
          if (e < n && (s[e] == '+' || s[e] == '-')) e++;
          if (e < n && isdigit((unsigned char)s[e])) j = e;
        }
      }
      while (j < n && is_id_char((unsigned char)s[j])) j++;
      const char *msg = number_error(s + i, j - i);
      /* errindex: invalid decimal literal */
      /* errindex: invalid hexadecimal literal */
      /* errindex: invalid octal literal */
      /* errindex: invalid binary literal */
      if (msg) lex_err(L, L->line, col, LE_NUMBER, "%s", msg);
      emit(L, T_NUMBER, i, j, L->line, col);
      L->i = j;
      continue;
    }
    if (c == '"' || c == '\'') {
      int line = L->line;
      size_t e = lex_string_body(L, i, false, line, col);
      emit(L, T_STRING, i, e, line, col);
      L->i = e;
      continue;
    }
    size_t ol = c < 0x80 ? op_len(s + i, n - i) : 0;
    if (ol == 0) {
      size_t cl;
      unsigned cp = utf8_decode((const unsigned char *)s + i, n - i, &cl);
      if (cp < 0x20 || cp == 0x7F)
        lex_err(L, L->line, col, LE_ALWAYS, "invalid non-printable character U+%04X", cp);
      else
        lex_err(L, L->line, col, LE_ALWAYS, "invalid character '%.*s' (U+%04X)", (int)cl, s + i, cp);
      L->i += cl;
      continue;
    }
    if (ol == 1 && strchr("([{", c)) {
      if (L->np >= MAX_PAREN) {
        lex_err(L, L->line, col, LE_ALWAYS, "too many nested parentheses");
        p->too_nested = true;
        break; /* nothing after this is parsed */
      } else {
        L->pch[L->np] = (char)c;
        L->pline[L->np] = L->line;
        L->pcol[L->np] = col;
        L->np++;
      }
    } else if (ol == 1 && strchr(")]}", c)) {
      if (L->np == 0) {
        lex_err(L, L->line, col, LE_OTHER, "unmatched '%c'", c);
        L->i++;
        continue; /* dropped: the checker sees the line without it */
      }
      char open = L->pch[L->np - 1];
      char want = open == '(' ? ')' : open == '[' ? ']' : '}';
      if (c != want) {
        if (L->pline[L->np - 1] != L->line)
          lex_err(L, L->line, col, LE_OTHER,
                  "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d", c, open,
                  L->pline[L->np - 1]);
        else
          lex_err(L, L->line, col, LE_OTHER, "closing parenthesis '%c' does not match opening parenthesis '%c'", c,
                  open);
      }
      L->np--;
    }
    emit(L, T_OP, i, i + ol, L->line, col);
    L->i = i + ol;
  }
  if (L->np > 0 && !p->too_nested) {
    int k = L->np - 1;
    lex_err(L, L->pline[k], L->pcol[k], LE_OTHER, "'%c' was never closed", L->pch[k]);
  }
  if (L->has_tok) {
    emit(L, T_NEWLINE, n, n, L->last_line, L->last_col);
    L->lline++;
  }
  int eline, ecol;
  pos_of(p, n, &eline, &ecol);
  for (int k = L->nind - 1; k > 0; k--)
    if (!L->phantom[k]) emit(L, T_DEDENT, n, n, eline, ecol);
  emit(L, T_EOF, n, n, L->last_line, L->last_col);
  p->nllines = L->lline + 1;
  free(L);
}

/* ------------------------------------------------------------------------ */
/* Checker: re-reads an erroneous file token by token to say what was       */
/* expected where.  One error per logical line; a failing line unwinds      */
/* (longjmp) to its statement, which skips to the line's end.              */

static const char *const keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", NULL
};

/* Target classes: what an expression is, for "cannot assign to ...". */
enum { X_NAME, X_ATTR, X_SUB, X_TUPLE, X_LIST, X_STAR, X_LIT, X_CALL, X_OP, X_CMP, X_COND, X_LAMBDA, X_NONE, X_TRUE,
       X_FALSE, X_ELLIPSIS, X_DICT, X_SET, X_FSTR, X_COMP, X_GEN, X_YIELD, X_NAMED };
static const char *const xdesc[] = {
    "name", "attribute", "subscript", "tuple", "list", "starred", "literal", "function call", "expression",
    "comparison", "conditional expression", "lambda", "None", "True", "False", "ellipsis", "dict literal",
    "set display", "f-string expression", "comprehension", "generator expression", "yield expression",
    "named expression"
};

typedef struct Info {
  int cls;                    /* X_* */
  int tok;                    /* first token */
  int bad, badtok;            /* first part that cannot be assigned to (-1: none) */
} Info;

static Info info(int cls, int tok) {
  bool ok = cls == X_NAME || cls == X_ATTR || cls == X_SUB;
  return (Info){cls, tok, ok ? -1 : cls, tok};
}

static const Tok *ck_tok(P *p) { return &p->toks[p->k]; }
static const Tok *ck_peek(P *p, int d) {
  int k = p->k + d;
  return &p->toks[k < p->ntok ? k : p->ntok - 1];
}
static void ck_adv(P *p) {
  if (p->k < p->ntok - 1) p->k++;
}

static bool tok_is(P *p, const Tok *t, const char *s) {
  size_t n = strlen(s);
  return (t->kind == T_NAME || t->kind == T_OP) && t->end - t->off == n && !memcmp(p->src + t->off, s, n);
}
static bool at(P *p, const char *s) { return tok_is(p, ck_tok(p), s); }

static bool is_keyword(P *p, const Tok *t) {
  if (t->kind != T_NAME) return false;
  for (int i = 0; keywords[i]; i++)
    if (tok_is(p, t, keywords[i])) return true;
  return false;
}

/* How a token reads in "unexpected X". */
static const char *tok_desc(P *p, const Tok *t) {
  switch (t->kind) {
  case T_NEWLINE: return "end of line";
  case T_EOF: return "end of file";
  case T_INDENT: return "indent";
  case T_DEDENT: return "unindent";
  default: return arena_printf(p->a, "'%s'", snippet(p, t->off, t->end - t->off));
  }
}

/* Report once per logical line. */
static void ck_report(P *p, int lline, int line, int col, const char *fmt, va_list ap) {
  if (lline >= 0 && lline < p->nllines) {
    if (p->lldone[lline]) return;
    p->lldone[lline] = 1;
  }
  add_diag(p, line, col, fmt, ap);
}

static void ck_note(P *p, const Tok *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ck_note(P *p, const Tok *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ck_report(p, t->lline, t->line, t->col, fmt, ap);
  va_end(ap);
}

static void ck_fail(P *p, const Tok *t, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));
static void ck_fail(P *p, const Tok *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ck_report(p, t->lline, t->line, t->col, fmt, ap);
  va_end(ap);
  longjmp(*p->jb, 1);
}

static void ck_unexpected(P *p) __attribute__((noreturn));
static void ck_unexpected(P *p) { ck_fail(p, ck_tok(p), "invalid syntax: unexpected %s", tok_desc(p, ck_tok(p))); }

static void ck_expect(P *p, const char *s) {
  if (!at(p, s)) ck_fail(p, ck_tok(p), "expected '%s'", s);
  ck_adv(p);
}

static void ck_enter(P *p) {
  if (++p->cdepth > MAX_CHECK_DEPTH) ck_fail(p, ck_tok(p), "too many nested expressions");
}

static bool can_start_expr(P *p, const Tok *t) {
  switch (t->kind) {
  case T_NAME:
    if (!is_keyword(p, t)) return true;
    return tok_is(p, t, "not") || tok_is(p, t, "lambda") || tok_is(p, t, "None") || tok_is(p, t, "True") ||
           tok_is(p, t, "False") || tok_is(p, t, "await") || tok_is(p, t, "yield");
  case T_NUMBER: case T_STRING: return true;
  case T_OP:
    return tok_is(p, t, "(") || tok_is(p, t, "[") || tok_is(p, t, "{") || tok_is(p, t, "-") || tok_is(p, t, "+") ||
           tok_is(p, t, "~") || tok_is(p, t, "*") || tok_is(p, t, "...");
  default: return false;
  }
}

static Info ck_test(P *p);
static Info ck_or(P *p);
static Info ck_bitor(P *p);
static Info ck_factor(P *p);
static Info ck_yield(P *p);
static void ck_stmts(P *p, TokKind stop);
static void ck_simple_line(P *p);

static void ck_name(P *p) {
  const Tok *t = ck_tok(p);
  if (t->kind != T_NAME || is_keyword(p, t)) {
    if (t->kind == T_NAME) ck_unexpected(p);
    ck_fail(p, t, "expected an identifier");
  }
  ck_adv(p);
}

static Info ck_star_or_test(P *p) {
  int start = p->k;
  if (at(p, "*")) {
    ck_adv(p);
    Info e = ck_bitor(p);
    return (Info){X_STAR, start, e.bad, e.badtok};
  }
  return ck_test(p);
}

static Info ck_namedexpr(P *p) {
  int start = p->k;
  Info e = ck_test(p);
  if (at(p, ":=")) {
    if (e.cls != X_NAME) ck_fail(p, &p->toks[start], "cannot use assignment expressions with %s", xdesc[e.cls]);
    ck_fail(p, ck_tok(p), "assignment expressions (:=) are not supported");
    ck_adv(p);
    ck_test(p);
    return info(X_NAMED, start);
  }
  return e;
}

static Info ck_exprlist(P *p, const char *stop);
static void ck_target(P *p, Info e, const char *verb);

/* A comprehension's clauses after its element `elt` (`dict`: a `**x` or
 * `k: v` element): `for targets in or_test`, then more `for` and `if`. */
static void ck_comp_for(P *p, Info elt, bool dict) {
  if (elt.cls == X_STAR)
    ck_fail(p, &p->toks[elt.tok], dict ? "dict unpacking cannot be used in dict comprehension"
                                       : "iterable unpacking cannot be used in comprehension");
  while (at(p, "for") || at(p, "async") || at(p, "if")) {
    if (at(p, "async")) ck_fail(p, ck_tok(p), "asynchronous comprehensions are not supported");
    if (at(p, "if")) {
      ck_adv(p);
      ck_or(p);
      continue;
    }
    ck_adv(p);
    ck_target(p, ck_exprlist(p, "in"), "assign to");
    ck_expect(p, "in");
    ck_or(p);
  }
}

/* After an element of a bracketed list: ',' or the closer. */
static bool ck_list_sep(P *p, const char *close) {
  if (at(p, ",")) {
    ck_adv(p);
    return !at(p, close);
  }
  if (!at(p, close)) ck_fail(p, ck_tok(p), "expected ',' or '%s'", close);
  return false;
}

/* '(' ... ')': parenthesized expression, tuple, or generator. */
static Info ck_paren(P *p) {
  int start = p->k;
  ck_adv(p);
  if (at(p, ")")) {
    ck_adv(p);
    return (Info){X_TUPLE, start, -1, start};
  }
  if (at(p, "yield")) {
    ck_yield(p);
    ck_expect(p, ")");
    return info(X_YIELD, start);
  }
  Info first = at(p, "*") ? ck_star_or_test(p) : ck_namedexpr(p);
  if (at(p, "for") || at(p, "async")) {
    ck_comp_for(p, first, false);
    ck_expect(p, ")");
    return info(X_GEN, start);
  }
  if (!at(p, ",")) {
    ck_expect(p, ")");
    if (first.cls == X_STAR) ck_fail(p, &p->toks[first.tok], "cannot use starred expression here");
    return first;
  }
  Info r = {X_TUPLE, start, first.bad, first.badtok};
  while (ck_list_sep(p, ")")) {
    Info e = ck_star_or_test(p);
    if (r.bad < 0 && e.bad >= 0) r.bad = e.bad, r.badtok = e.badtok;
  }
  ck_adv(p);
  return r;
}

static Info ck_list(P *p) {
  int start = p->k;
  ck_adv(p);
  if (at(p, "]")) {
    ck_adv(p);
    return (Info){X_LIST, start, -1, start};
  }
  Info first = ck_star_or_test(p);
  if (at(p, "for") || at(p, "async")) {
    ck_comp_for(p, first, false);
    ck_expect(p, "]");
    return info(X_COMP, start);
  }
  Info r = {X_LIST, start, first.bad, first.badtok};
  if (at(p, "]")) {
    ck_adv(p);
    return r;
  }
  while (ck_list_sep(p, "]")) {
    Info e = ck_star_or_test(p);
    if (r.bad < 0 && e.bad >= 0) r.bad = e.bad, r.badtok = e.badtok;
  }
  ck_adv(p);
  return r;
}

/* '{' ... '}': dict or set display, or their comprehensions. */
static Info ck_brace(P *p) {
  int start = p->k;
  ck_adv(p);
  if (at(p, "}")) {
    ck_adv(p);
    return info(X_DICT, start);
  }
  bool dict;
  Info first;
  if (at(p, "**")) {
    first = info(X_STAR, p->k);
    ck_adv(p);
    ck_bitor(p);
    dict = true;
  } else {
    first = ck_star_or_test(p);
    dict = at(p, ":");
    if (dict) {
      ck_adv(p);
      ck_test(p);
    }
  }
  if (at(p, "for") || at(p, "async")) {
    ck_comp_for(p, first, dict);
    ck_expect(p, "}");
    return info(X_COMP, start);
  }
  while (ck_list_sep(p, "}")) {
    if (dict && at(p, "**")) {
      ck_adv(p);
      ck_bitor(p);
    } else if (dict) {
      ck_test(p);
      if (!at(p, ":")) ck_fail(p, ck_tok(p), "expected ':' after dictionary key");
      ck_adv(p);
      ck_test(p);
    } else {
      ck_star_or_test(p);
    }
  }
  ck_adv(p);
  return info(dict ? X_DICT : X_SET, start);
}

static Info ck_atom(P *p) {
  const Tok *t = ck_tok(p);
  int start = p->k;
  switch (t->kind) {
  case T_NAME:
    if (!is_keyword(p, t)) {
      ck_adv(p);
      return info(X_NAME, start);
    }
    if (at(p, "None") || at(p, "True") || at(p, "False")) {
      int cls = at(p, "None") ? X_NONE : at(p, "True") ? X_TRUE : X_FALSE;
      ck_adv(p);
      return info(cls, start);
    }
    ck_fail(p, t, "invalid syntax: unexpected %s", tok_desc(p, t));
  case T_NUMBER:
    ck_adv(p);
    return info(X_LIT, start);
  case T_STRING: {
    bool f = false;
    while (ck_tok(p)->kind == T_STRING) {
      f |= ck_tok(p)->fstr;
      ck_adv(p);
    }
    return info(f ? X_FSTR : X_LIT, start);
  }
  case T_OP:
    if (at(p, "(")) return ck_paren(p);
    if (at(p, "[")) return ck_list(p);
    if (at(p, "{")) return ck_brace(p);
    if (at(p, "...")) {
      ck_adv(p);
      return info(X_ELLIPSIS, start);
    }
    /* fallthrough */
  default:
    ck_fail(p, t, "expected an expression");
  }
}

/* call arguments after '(' */
static void ck_call_args(P *p) {
  ck_adv(p);
  bool first_arg = true;
  while (!at(p, ")")) {
    if (at(p, "*") || at(p, "**")) {
      ck_adv(p);
      ck_test(p);
    } else {
      int start = p->k;
      Info e = ck_namedexpr(p);
      if (at(p, "=")) {
        if (e.cls != X_NAME)
          ck_fail(p, &p->toks[start], "expression cannot contain assignment, perhaps you meant \"==\"?");
        ck_adv(p);
        ck_test(p);
      } else if (at(p, "for") || at(p, "async")) {
        ck_comp_for(p, e, false);
        /* only a lone argument may be an unparenthesized generator */
        if (!first_arg || (at(p, ",") && !tok_is(p, ck_peek(p, 1), ")")))
          ck_fail(p, &p->toks[start], "Generator expression must be parenthesized");
      }
      first_arg = false;
    }
    if (!ck_list_sep(p, ")")) break;
  }
  ck_adv(p);
}

static void ck_subscripts(P *p) {
  ck_adv(p);
  do {
    if (at(p, "*")) {
      ck_star_or_test(p);
    } else {
      if (!at(p, ":")) ck_namedexpr(p);
      if (at(p, ":")) {
        ck_adv(p);
        if (!at(p, ":") && !at(p, ",") && !at(p, "]")) ck_test(p);
        if (at(p, ":")) {
          ck_adv(p);
          if (!at(p, ",") && !at(p, "]")) ck_test(p);
        }
      }
    }
  } while (ck_list_sep(p, "]"));
  ck_adv(p);
}

static Info ck_primary(P *p) {
  int start = p->k;
  if (at(p, "await")) {
    ck_fail(p, ck_tok(p), "'await' is not supported");
    ck_adv(p);
    ck_primary(p);
    return info(X_OP, start);
  }
  Info e = ck_atom(p);
  for (;;) {
    if (at(p, "(")) {
      ck_call_args(p);
      e = info(X_CALL, start);
    } else if (at(p, "[")) {
      ck_subscripts(p);
      e = info(X_SUB, start);
    } else if (at(p, ".")) {
      ck_adv(p);
      ck_name(p);
      e = info(X_ATTR, start);
    } else {
      return e;
    }
  }
}

static Info ck_power(P *p) {
  int start = p->k;
  Info e = ck_primary(p);
  if (at(p, "**")) {
    ck_adv(p);
    ck_factor(p);
    return info(X_OP, start);
  }
  return e;
}

static Info ck_factor(P *p) {
  int start = p->k;
  ck_enter(p);
  Info r;
  if (at(p, "-") || at(p, "+") || at(p, "~")) {
    ck_adv(p);
    ck_factor(p);
    r = info(X_OP, start);
  } else {
    r = ck_power(p);
  }
  p->cdepth--;
  return r;
}

/* One loop for every left-associative binary level, tightest last. */
static const char *const binlevels[][5] = {
    {"|", NULL}, {"^", NULL}, {"&", NULL}, {"<<", ">>", NULL}, {"+", "-", NULL}, {"*", "/", "//", "%", "@"},
};

static Info ck_binlevel(P *p, int lvl) {
  if (lvl == 6) return ck_factor(p);
  int start = p->k;
  Info e = ck_binlevel(p, lvl + 1);
  for (;;) {
    bool hit = false;
    for (int i = 0; i < 5 && binlevels[lvl][i]; i++) hit |= at(p, binlevels[lvl][i]);
    if (!hit) return e;
    ck_adv(p);
    ck_binlevel(p, lvl + 1);
    e = info(X_OP, start);
  }
}

static Info ck_bitor(P *p) { return ck_binlevel(p, 0); }

static bool at_compare(P *p) {
  static const char *const cmp[] = {"<", ">", "==", ">=", "<=", "!=", "in", "is", NULL};
  for (int i = 0; cmp[i]; i++)
    if (at(p, cmp[i])) return true;
  return at(p, "not") && tok_is(p, ck_peek(p, 1), "in");
}

static Info ck_comparison(P *p) {
  int start = p->k;
  Info e = ck_bitor(p);
  bool any = false;
  while (at_compare(p)) {
    if (at(p, "not") || (at(p, "is") && tok_is(p, ck_peek(p, 1), "not"))) ck_adv(p);
    ck_adv(p);
    ck_bitor(p);
    any = true;
  }
  if (at(p, "not") && !any) ck_fail(p, ck_peek(p, 1), "expected 'in' after 'not'");
  return any ? info(X_CMP, start) : e;
}

static Info ck_not(P *p) {
  int start = p->k;
  ck_enter(p);
  Info r;
  if (at(p, "not")) {
    ck_adv(p);
    ck_not(p);
    r = info(X_OP, start);
  } else {
    r = ck_comparison(p);
  }
  p->cdepth--;
  return r;
}

static Info ck_and(P *p) {
  int start = p->k;
  Info e = ck_not(p);
  while (at(p, "and")) {
    ck_adv(p);
    ck_not(p);
    e = info(X_OP, start);
  }
  return e;
}

static Info ck_or(P *p) {
  int start = p->k;
  Info e = ck_and(p);
  while (at(p, "or")) {
    ck_adv(p);
    ck_and(p);
    e = info(X_OP, start);
  }
  return e;
}

/* Parameters of def (close ")") or lambda (close ":"). */
static void ck_params(P *p, const char *close, bool annotations) {
  while (!at(p, close)) {
    if (at(p, "/")) {
      ck_adv(p);
    } else {
      bool star = at(p, "*"), dstar = at(p, "**");
      if (star || dstar) ck_adv(p);
      if (star && (at(p, ",") || at(p, close))) {
        /* bare '*' */
      } else {
        ck_name(p);
        if (annotations && at(p, ":")) {   /* checked, then ignored (as Python does at run time) */
          ck_adv(p);
          ck_test(p);
        }
        if (!star && !dstar && at(p, "=")) {
          ck_adv(p);
          ck_test(p);
        }
      }
    }
    if (at(p, ",")) {
      ck_adv(p);
      continue;
    }
    if (!at(p, close)) ck_fail(p, ck_tok(p), "expected ',' or '%s'", close);
  }
  ck_adv(p);
}

static Info ck_lambda(P *p) {
  int start = p->k;
  ck_adv(p);
  ck_params(p, ":", false);
  ck_test(p);
  return info(X_LAMBDA, start);
}

static Info ck_test(P *p) {
  int start = p->k;
  ck_enter(p);
  Info r;
  if (at(p, "lambda")) {
    r = ck_lambda(p);
  } else {
    r = ck_or(p);
    if (at(p, "if")) {
      ck_adv(p);
      ck_or(p);
      if (!at(p, "else")) ck_fail(p, &p->toks[start], "expected 'else' after 'if' expression");
      ck_adv(p);
      ck_test(p);
      r = info(X_COND, start);
    }
  }
  p->cdepth--;
  return r;
}

/* A comma list of (starred) expressions: a tuple when there is a comma. */
static Info ck_testlist(P *p, bool star) {
  int start = p->k;
  Info first = star ? ck_star_or_test(p) : ck_test(p);
  if (!at(p, ",")) return first;
  Info r = {X_TUPLE, start, first.bad, first.badtok};
  while (at(p, ",")) {
    ck_adv(p);
    if (!can_start_expr(p, ck_tok(p))) break;
    Info e = star ? ck_star_or_test(p) : ck_test(p);
    if (r.bad < 0 && e.bad >= 0) r.bad = e.bad, r.badtok = e.badtok;
  }
  return r;
}

static Info ck_yield(P *p) {
  int start = p->k;
  ck_adv(p);
  if (at(p, "from")) {
    ck_adv(p);
    ck_test(p);
  } else if (can_start_expr(p, ck_tok(p))) {
    ck_testlist(p, true);
  }
  return info(X_YIELD, start);
}

static void ck_target(P *p, Info e, const char *verb) {
  if (e.cls == X_STAR && !strcmp(verb, "delete")) ck_fail(p, &p->toks[e.tok], "cannot delete starred");
  if (e.cls == X_STAR) ck_fail(p, &p->toks[e.tok], "starred assignment target must be in a list or tuple");
  if (e.bad >= 0) ck_fail(p, &p->toks[e.badtok], "cannot %s %s", verb, xdesc[e.bad]);
}

/* Targets of for / del: a comma list of or-level expressions. */
static Info ck_exprlist(P *p, const char *stop) {
  int start = p->k;
  Info first = at(p, "*") ? ck_star_or_test(p) : ck_bitor(p);
  if (!at(p, ",")) return first;
  Info r = {X_TUPLE, start, first.bad, first.badtok};
  while (at(p, ",")) {
    ck_adv(p);
    if (at(p, stop) || !can_start_expr(p, ck_tok(p))) break;
    Info e = at(p, "*") ? ck_star_or_test(p) : ck_bitor(p);
    if (r.bad < 0 && e.bad >= 0) r.bad = e.bad, r.badtok = e.badtok;
  }
  return r;
}

static bool at_end_small(P *p) {
  TokKind k = ck_tok(p)->kind;
  return k == T_NEWLINE || k == T_EOF || at(p, ";");
}

static bool at_augassign(P *p) {
  static const char *const aug[] = {"+=", "-=", "*=", "/=",  "//=", "%=",  "**=",
                                    "@=", "&=", "|=", "^=", "<<=", ">>=", NULL};
  for (int i = 0; aug[i]; i++)
    if (at(p, aug[i])) return true;
  return false;
}

static void ck_dotted(P *p) {
  ck_name(p);
  while (at(p, ".")) {
    ck_adv(p);
    ck_name(p);
  }
}

static void ck_small(P *p) {
  const Tok *t = ck_tok(p);
  if (at(p, "pass") || at(p, "break") || at(p, "continue")) {
    ck_adv(p);
  } else if (at(p, "return")) {
    ck_adv(p);
    if (!at_end_small(p)) ck_testlist(p, true);
  } else if (at(p, "raise")) {
    ck_adv(p);
    if (!at_end_small(p)) {
      ck_test(p);
      if (at(p, "from")) {
        ck_adv(p);
        ck_test(p);
      }
    }
  } else if (at(p, "global") || at(p, "nonlocal")) {
    ck_adv(p);
    ck_name(p);
    while (at(p, ",")) {
      ck_adv(p);
      ck_name(p);
    }
  } else if (at(p, "del")) {
    ck_adv(p);
    Info e = ck_exprlist(p, ";");
    ck_target(p, e, "delete");
  } else if (at(p, "import")) {
    ck_adv(p);
    do {
      ck_dotted(p);
      if (at(p, "as")) {
        ck_adv(p);
        ck_name(p);
      }
      if (!at(p, ",")) break;
      ck_adv(p);
    } while (1);
  } else if (at(p, "from")) {
    ck_adv(p);
    bool dots = false;
    while (at(p, ".") || at(p, "...")) {
      ck_adv(p);
      dots = true;
    }
    if (dots) ck_fail(p, &p->toks[p->k - 1], "relative imports are not supported");
    ck_dotted(p);
    if (!at(p, "import")) ck_fail(p, ck_tok(p), "expected 'import'");
    ck_adv(p);
    if (at(p, "*")) {
      ck_adv(p);
    } else {
      bool paren = at(p, "(");
      if (paren) ck_adv(p);
      do {
        ck_name(p);
        if (at(p, "as")) {
          ck_adv(p);
          ck_name(p);
        }
        if (!at(p, ",")) break;
        ck_adv(p);
      } while (!paren || !at(p, ")"));
      if (paren) ck_expect(p, ")");
    }
  } else if (at(p, "assert")) {
    ck_adv(p);
    ck_test(p);
    if (at(p, ",")) {
      ck_adv(p);
      ck_test(p);
    }
  } else if (at(p, "yield")) {
    ck_yield(p);
  } else if (t->kind == T_NAME && is_keyword(p, t) && !can_start_expr(p, t)) {
    ck_unexpected(p);
  } else {
    Info e = ck_testlist(p, true);
    if (at_augassign(p)) {
      if (e.cls != X_NAME && e.cls != X_ATTR && e.cls != X_SUB)
        ck_fail(p, &p->toks[e.tok], "'%s' is an illegal expression for augmented assignment", xdesc[e.cls]);
      ck_adv(p);
      if (at(p, "yield")) ck_yield(p);
      else ck_testlist(p, false);
    } else if (at(p, ":")) {
      if (e.cls == X_TUPLE) ck_fail(p, &p->toks[e.tok], "only single target (not tuple) can be annotated");
      ck_target(p, e, "assign to");
      ck_adv(p);
      ck_test(p);
      if (at(p, "=")) {
        ck_adv(p);
        if (at(p, "yield")) ck_yield(p);
        else ck_testlist(p, true);
      }
    } else {
      while (at(p, "=")) {
        ck_target(p, e, "assign to");
        ck_adv(p);
        e = at(p, "yield") ? ck_yield(p) : ck_testlist(p, true);
      }
    }
  }
}

static void ck_simple_line(P *p) {
  const Tok *first = ck_tok(p);
  ck_small(p);
  if (tok_is(p, first, "print") && ck_tok(p) == first + 1 && can_start_expr(p, ck_tok(p)) && !at(p, "(") && !at(p, "["))
    ck_fail(p, first, "Missing parentheses in call to 'print'. Did you mean print(...)?");
  while (at(p, ";")) {
    ck_adv(p);
    if (ck_tok(p)->kind == T_NEWLINE || ck_tok(p)->kind == T_EOF) break;
    ck_small(p);
  }
  if (ck_tok(p)->kind != T_NEWLINE && ck_tok(p)->kind != T_EOF) ck_unexpected(p);
  ck_adv(p);
}

/* The body after a compound header's ':'. */
static void ck_suite(P *p, const char *what, int line) {
  if (!at(p, ":")) ck_fail(p, ck_tok(p), "expected ':'");
  ck_adv(p);
  if (ck_tok(p)->kind != T_NEWLINE) {
    ck_simple_line(p);
    return;
  }
  ck_adv(p);
  if (ck_tok(p)->kind != T_INDENT) {
    ck_note(p, ck_tok(p), "expected an indented block after %s on line %d", what, line);
    return;
  }
  ck_adv(p);
  ck_stmts(p, T_DEDENT);
  if (ck_tok(p)->kind == T_DEDENT) ck_adv(p);
}

static void ck_else(P *p, const char *kw) {
  if (at(p, kw)) {
    int line = ck_tok(p)->line;
    ck_adv(p);
    ck_suite(p, arena_printf(p->a, "'%s' statement", kw), line);
  }
}

static void ck_compound_or_simple(P *p);

static void ck_def(P *p) {
  int line = ck_tok(p)->line;
  ck_adv(p);
  ck_name(p);
  ck_expect(p, "(");
  ck_params(p, ")", true);
  if (at(p, "->")) {
    ck_adv(p);
    ck_test(p);
  }
  ck_suite(p, "function definition", line);
}

static void ck_class(P *p) {
  int line = ck_tok(p)->line;
  ck_adv(p);
  ck_name(p);
  if (at(p, "(")) ck_call_args(p);
  ck_suite(p, "class definition", line);
}

static void ck_compound_or_simple(P *p) {
  const Tok *t = ck_tok(p);
  int line = t->line;
  if (at(p, "if")) {
    ck_adv(p);
    ck_namedexpr(p);
    ck_suite(p, "'if' statement", line);
    while (at(p, "elif")) {
      int l = ck_tok(p)->line;
      ck_adv(p);
      ck_namedexpr(p);
      ck_suite(p, "'elif' statement", l);
    }
    ck_else(p, "else");
  } else if (at(p, "while")) {
    ck_adv(p);
    ck_namedexpr(p);
    ck_suite(p, "'while' statement", line);
    ck_else(p, "else");
  } else if (at(p, "for")) {
    ck_adv(p);
    Info e = ck_exprlist(p, "in");
    ck_target(p, e, "assign to");
    if (!at(p, "in")) ck_fail(p, ck_tok(p), "expected 'in'");
    ck_adv(p);
    ck_testlist(p, true);
    ck_suite(p, "'for' statement", line);
    ck_else(p, "else");
  } else if (at(p, "try")) {
    ck_adv(p);
    ck_suite(p, "'try' statement", line);
    int handlers = 0;
    while (at(p, "except")) {
      int l = ck_tok(p)->line;
      ck_adv(p);
      if (!at(p, ":")) {
        ck_test(p);
        if (at(p, "as")) {
          ck_adv(p);
          ck_name(p);
        }
      }
      ck_suite(p, "'except' statement", l);
      handlers++;
    }
    if (handlers) ck_else(p, "else");
    if (at(p, "finally")) {
      ck_else(p, "finally");
      handlers++;
    }
    if (!handlers) ck_note(p, ck_tok(p), "expected 'except' or 'finally' block");
  } else if (at(p, "with")) {
    ck_adv(p);
    do {
      ck_test(p);
      if (at(p, "as")) {
        ck_adv(p);
        Info e = ck_exprlist(p, ":");
        ck_target(p, e, "assign to");
      }
      if (!at(p, ",")) break;
      ck_adv(p);
    } while (1);
    ck_suite(p, "'with' statement", line);
  } else if (at(p, "def")) {
    ck_def(p);
  } else if (at(p, "class")) {
    ck_class(p);
  } else if (at(p, "async") && (tok_is(p, ck_peek(p, 1), "def") || tok_is(p, ck_peek(p, 1), "for") ||
                                 tok_is(p, ck_peek(p, 1), "with"))) {
    ck_fail(p, ck_tok(p), "'async' is not supported");
  } else if (at(p, "@")) {
    while (at(p, "@")) {
      ck_adv(p);
      ck_namedexpr(p);
      if (ck_tok(p)->kind != T_NEWLINE) ck_unexpected(p);
      ck_adv(p);
    }
    if (at(p, "def")) ck_def(p);
    else if (at(p, "class")) ck_class(p);
    else ck_fail(p, ck_tok(p), "expected 'def' or 'class' after a decorator");
  } else if (at(p, "elif") || at(p, "else") || at(p, "except") || at(p, "finally")) {
    ck_unexpected(p);
  } else {
    ck_simple_line(p);
  }
}

static void ck_stmt(P *p) {
  jmp_buf jb;
  jmp_buf *outer = p->jb;
  p->jb = &jb;
  if (setjmp(jb) == 0) {
    ck_compound_or_simple(p);
  } else {
    /* Recover: drop the rest of the logical line; an indented block after
     * it is read as that line's body. */
    p->cdepth = 0;
    while (ck_tok(p)->kind != T_NEWLINE && ck_tok(p)->kind != T_EOF) ck_adv(p);
    if (ck_tok(p)->kind == T_NEWLINE) ck_adv(p);
    if (ck_tok(p)->kind == T_INDENT) {
      ck_adv(p);
      ck_stmts(p, T_DEDENT);
      if (ck_tok(p)->kind == T_DEDENT) ck_adv(p);
    }
  }
  p->jb = outer;
}

static void ck_stmts(P *p, TokKind stop) {
  while (ck_tok(p)->kind != T_EOF && ck_tok(p)->kind != stop) {
    const Tok *t = ck_tok(p);
    if (t->kind == T_INDENT) {
      ck_note(p, t, "unexpected indent");
      ck_adv(p);
      ck_stmts(p, T_DEDENT);
      if (ck_tok(p)->kind == T_DEDENT) ck_adv(p);
    } else if (t->kind == T_NEWLINE || t->kind == T_DEDENT) {
      ck_adv(p);
    } else {
      ck_stmt(p);
    }
  }
}

static void check_file(P *p) {
  jmp_buf jb;
  p->k = 0;
  p->jb = &jb;
  if (setjmp(jb) == 0) ck_stmts(p, T_EOF);
  p->jb = NULL;
}

/* ------------------------------------------------------------------------ */
/* Converter: CST -> AST                                                     */

/* Named node types we read.  ORDER NK: nk_names follows this enum. */
enum {
  NK_OTHER, NK_ERROR, NK_MODULE, NK_BLOCK, NK_EXPRESSION_STATEMENT, NK_ASSIGNMENT, NK_AUGMENTED_ASSIGNMENT,
  NK_IF_STATEMENT,
  NK_ELIF_CLAUSE, NK_ELSE_CLAUSE, NK_WHILE_STATEMENT, NK_FOR_STATEMENT, NK_FUNCTION_DEFINITION, NK_PARAMETERS,
  NK_LAMBDA_PARAMETERS, NK_DEFAULT_PARAMETER, NK_TYPED_PARAMETER, NK_TYPED_DEFAULT_PARAMETER, NK_LIST_SPLAT_PATTERN,
  NK_DICTIONARY_SPLAT_PATTERN, NK_KEYWORD_SEPARATOR, NK_POSITIONAL_SEPARATOR, NK_DECORATED_DEFINITION, NK_DECORATOR,
  NK_LAMBDA, NK_CLASS_DEFINITION, NK_CALL, NK_ARGUMENT_LIST, NK_KEYWORD_ARGUMENT, NK_ATTRIBUTE, NK_SUBSCRIPT,
  NK_SLICE, NK_BINARY_OPERATOR, NK_UNARY_OPERATOR, NK_NOT_OPERATOR, NK_BOOLEAN_OPERATOR, NK_COMPARISON_OPERATOR,
  NK_CONDITIONAL_EXPRESSION, NK_PARENTHESIZED_EXPRESSION, NK_TUPLE, NK_LIST, NK_DICTIONARY, NK_PAIR,
  NK_DICTIONARY_SPLAT, NK_LIST_SPLAT, NK_EXPRESSION_LIST, NK_PATTERN_LIST, NK_TUPLE_PATTERN, NK_LIST_PATTERN,
  NK_STRING, NK_CONCATENATED_STRING, NK_INTERPOLATION, NK_FORMAT_EXPRESSION, NK_FORMAT_SPECIFIER, NK_TYPE_CONVERSION,
  NK_INTEGER, NK_FLOAT, NK_TRUE, NK_FALSE, NK_NONE, NK_IDENTIFIER, NK_KEYWORD_IDENTIFIER, NK_ELLIPSIS,
  NK_RETURN_STATEMENT, NK_PASS_STATEMENT, NK_BREAK_STATEMENT, NK_CONTINUE_STATEMENT, NK_DELETE_STATEMENT,
  NK_RAISE_STATEMENT, NK_GLOBAL_STATEMENT, NK_NONLOCAL_STATEMENT, NK_ASSERT_STATEMENT, NK_IMPORT_STATEMENT,
  NK_IMPORT_FROM_STATEMENT, NK_ALIASED_IMPORT, NK_DOTTED_NAME, NK_RELATIVE_IMPORT, NK_WILDCARD_IMPORT,
  NK_TRY_STATEMENT, NK_EXCEPT_CLAUSE, NK_FINALLY_CLAUSE, NK_WITH_STATEMENT, NK_WITH_CLAUSE, NK_WITH_ITEM,
  NK_AS_PATTERN, NK_AS_PATTERN_TARGET, NK_TYPE, NK_COMMENT, NK_PRINT_STATEMENT, NK_SET, NK_LIST_COMPREHENSION,
  NK_DICTIONARY_COMPREHENSION, NK_SET_COMPREHENSION, NK_GENERATOR_EXPRESSION, NK_FOR_IN_CLAUSE, NK_IF_CLAUSE,
  NK_YIELD, NK__COUNT
};

static const char *const nk_names[NK__COUNT] = {
    "", "ERROR", "module", "block", "expression_statement", "assignment", "augmented_assignment", "if_statement",
    "elif_clause", "else_clause", "while_statement", "for_statement", "function_definition", "parameters",
    "lambda_parameters", "default_parameter", "typed_parameter", "typed_default_parameter", "list_splat_pattern",
    "dictionary_splat_pattern", "keyword_separator", "positional_separator", "decorated_definition", "decorator",
    "lambda", "class_definition", "call", "argument_list", "keyword_argument", "attribute", "subscript", "slice",
    "binary_operator", "unary_operator", "not_operator", "boolean_operator", "comparison_operator",
    "conditional_expression", "parenthesized_expression", "tuple", "list", "dictionary", "pair", "dictionary_splat",
    "list_splat", "expression_list", "pattern_list", "tuple_pattern", "list_pattern", "string", "concatenated_string",
    "interpolation", "format_expression", "format_specifier", "type_conversion", "integer", "float", "true", "false",
    "none", "identifier", "keyword_identifier", "ellipsis", "return_statement", "pass_statement", "break_statement",
    "continue_statement", "delete_statement", "raise_statement", "global_statement", "nonlocal_statement",
    "assert_statement", "import_statement", "import_from_statement", "aliased_import", "dotted_name",
    "relative_import", "wildcard_import", "try_statement", "except_clause", "finally_clause", "with_statement",
    "with_clause", "with_item", "as_pattern", "as_pattern_target", "type", "comment", "print_statement", "set",
    "list_comprehension", "dictionary_comprehension", "set_comprehension", "generator_expression", "for_in_clause",
    "if_clause", "yield",
};

/* Constructs a Python grammar may produce that .tfs does not have. */
static const struct { const char *type, *what; } unsupported[] = {
    {"await", "'await' is"},
    {"named_expression", "assignment expressions (:=) are"},
    {"match_statement", "'match' statements are"},
    {"exec_statement", "'exec' statements are"},
    {"future_import_statement", "'from __future__' imports are"},
    {"except_group_clause", "'except*' is"},
    {"type_alias_statement", "'type' statements are"},
    {"parenthesized_list_splat", "parenthesized starred expressions are"},
    {NULL, NULL},
};

static int nk(const P *p, TSNode n) {
  TSSymbol s = ts_node_symbol(n);
  if (s == (TSSymbol)-1) return NK_ERROR;
  return s < p->nsym ? p->nk[s] : NK_OTHER;
}

/* The grammar's field names we read, looked up once: ts_node_child_by_field_name compares the name
 * against every field of the language, a twentieth of parsing a long function. */
#define FIELD_NAMES(X) \
  X(ALIAS, "alias") X(ALTERNATIVE, "alternative") X(ARGUMENT, "argument") X(ARGUMENTS, "arguments") X(ATTRIBUTE, "attribute") \
  X(BODY, "body") X(CAUSE, "cause") X(CONDITION, "condition") X(CONSEQUENCE, "consequence") X(DEFINITION, "definition") \
  X(EXPRESSION, "expression") X(FORMAT_SPECIFIER, "format_specifier") X(FUNCTION, "function") X(KEY, "key") X(LEFT, "left") \
  X(NAME, "name") X(OBJECT, "object") X(OPERATOR, "operator") X(PARAMETERS, "parameters") X(RETURN_TYPE, "return_type") \
  X(RIGHT, "right") X(START, "start") X(STEP, "step") X(STOP, "stop") X(SUPERCLASSES, "superclasses") \
  X(TYPE, "type") X(TYPE_CONVERSION, "type_conversion") X(VALUE, "value")
enum {
#define FIELD_ENUM(e, s) F_##e,
  FIELD_NAMES(FIELD_ENUM)
#undef FIELD_ENUM
  F__COUNT
};
static TSFieldId field_ids[F__COUNT];
static pthread_once_t field_once = PTHREAD_ONCE_INIT;
static void field_init(void) {
  static const char *const names[F__COUNT] = {
#define FIELD_NAME(e, s) s,
      FIELD_NAMES(FIELD_NAME)
#undef FIELD_NAME
  };
  for (int i = 0; i < F__COUNT; i++)
    field_ids[i] = ts_language_field_id_for_name(tree_sitter_tfs(), names[i], (uint32_t)strlen(names[i]));
}
/* (field_ids is filled by nk_init, before any conversion reads a field) */
static TSNode field(TSNode n, int f) { return ts_node_child_by_field_id(n, field_ids[f]); }

static void nk_init(P *p) {
  pthread_once(&field_once, field_init);
  p->nsym = ts_language_symbol_count(p->lang);
  p->nk = calloc(p->nsym ? p->nsym : 1, 1);
  if (!p->nk) abort();
  for (uint32_t s = 0; s < p->nsym; s++) {
    if (ts_language_symbol_type(p->lang, (TSSymbol)s) != TSSymbolTypeRegular) continue;
    const char *name = ts_language_symbol_name(p->lang, (TSSymbol)s);
    for (int k = 2; k < NK__COUNT; k++)
      if (name && !strcmp(name, nk_names[k])) p->nk[s] = (unsigned char)k;
  }
}

/* Children of a node (extras skipped), with their field names, in the arena. */
typedef struct Kids { int n; TSNode *v; const char **f; } Kids;

static Kids kids(P *p, TSNode n) {
  Kids k = {0, NULL, NULL};
  uint32_t cnt = ts_node_child_count(n);
  if (!cnt) return k;
  k.v = arena_alloc(&p->scratch, sizeof *k.v * cnt);
  k.f = arena_alloc(&p->scratch, sizeof *k.f * cnt);
  TSTreeCursor c = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&c)) {
    do {
      TSNode ch = ts_tree_cursor_current_node(&c);
      if (ts_node_is_extra(ch) || nk(p, ch) == NK_COMMENT || (uint32_t)k.n >= cnt) continue;
      k.v[k.n] = ch;
      k.f[k.n] = ts_tree_cursor_current_field_name(&c);
      k.n++;
    } while (ts_tree_cursor_goto_next_sibling(&c));
  }
  ts_tree_cursor_delete(&c);
  return k;
}

/* Named children only. */
static Kids named(P *p, TSNode n) {
  Kids k = kids(p, n);
  int m = 0;
  for (int i = 0; i < k.n; i++)
    if (ts_node_is_named(k.v[i])) k.v[m] = k.v[i], k.f[m] = k.f[i], m++;
  k.n = m;
  return k;
}

static const char *ntext(P *p, TSNode n, size_t *len) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (e > p->len) e = (uint32_t)p->len;
  if (s > e) s = e;
  *len = e - s;
  return p->src + s;
}

static bool ntype_is(TSNode n, const char *t) { return !strcmp(ts_node_type(n), t); }

static void set_loc(Ast *a, TSNode n) {
  TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
  a->line = (int)s.row + 1;
  a->col = (int)s.column + 1;
  a->end_line = (int)e.row + 1;
  a->end_col = (int)e.column + 1;
}

static void set_end(Ast *a, const Ast *last) {
  a->end_line = last->end_line;
  a->end_col = last->end_col;
}

static Ast *mk(P *p, AstKind k, TSNode n) {
  Ast *a = ast_new(p->a, k, 1, 1);
  set_loc(a, n);
  return a;
}

static void cv_err(P *p, TSNode n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cv_err(P *p, TSNode n, const char *fmt, ...) {
  TSPoint s = ts_node_start_point(n);
  va_list ap;
  va_start(ap, fmt);
  add_diag(p, (int)s.row + 1, (int)s.column + 1, fmt, ap);
  va_end(ap);
}

static void ast_err(P *p, const Ast *a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ast_err(P *p, const Ast *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_diag(p, a->line, a->col, fmt, ap);
  va_end(ap);
}

/* An identifier's text; tree-sitter lets a keyword through where the keyword itself cannot stand. */
static char *cv_ident(P *p, TSNode n) {
  size_t len;
  const char *s = ntext(p, n, &len);
  for (int i = 0; keywords[i]; i++)
    if (strlen(keywords[i]) == len && !memcmp(keywords[i], s, len)) {
      if (!strcmp(keywords[i], "yield") || !strcmp(keywords[i], "await") || !strcmp(keywords[i], "async"))
        cv_err(p, n, "'%s' is not supported", keywords[i]);
      else
        cv_err(p, n, "invalid syntax: unexpected '%s'", keywords[i]);
      break;
    }
  return arena_strndup(p->a, s, len);
}

/* A placeholder for what could not be converted (an error was reported). */
static Ast *bad_node(P *p, TSNode n) {
  Ast *a = mk(p, A_CONSTANT, n);
  a->const_kind = C_NONE;
  return a;
}

static Ast *cv_expr(P *p, TSNode n);
static void cv_block(P *p, TSNode blk, AstList *out, TSNode hdr);
static void cv_stmt(P *p, TSNode n, AstList *out);

static const char *unsupported_what(TSNode n) {
  for (int i = 0; unsupported[i].type; i++)
    if (ntype_is(n, unsupported[i].type)) return unsupported[i].what;
  return NULL;
}

static Ast *cv_unsupported(P *p, TSNode n) {
  const char *what = unsupported_what(n);
  if (what) cv_err(p, n, "%s not supported", what);
  else if (ts_node_is_missing(n)) cv_err(p, n, "expected %s", ts_node_type(n));
  else cv_err(p, n, "invalid syntax: unexpected %s", ts_node_type(n));
  return bad_node(p, n);
}

/* --- literals --- */

static Ast *cv_float(P *p, TSNode n);

/* The decimal digits of an int literal's digits s[i..len) in base (underscores skipped), in the arena: a literal
 * beyond 2**64 - 1, made at run time by GMP (runtime/object/bigint.c). */
static const char *big_decimal(P *p, const char *s, size_t i, size_t len, unsigned base) {
  size_t cap = (len - i) + 2, nw = 0;   /* base-1e9 words, low first: enough for any base <= 16 */
  uint32_t *w = calloc(cap, sizeof *w);
  if (!w) return "0";
  for (; i < len; i++) {
    int c = (unsigned char)s[i];
    if (c == '_') continue;
    uint64_t carry = isdigit(c) ? (uint64_t)(c - '0') : (uint64_t)(tolower(c) - 'a' + 10);
    for (size_t k = 0; k < nw; k++) {
      uint64_t x = (uint64_t)w[k] * base + carry;
      w[k] = (uint32_t)(x % 1000000000u);
      carry = x / 1000000000u;
    }
    while (carry) {
      w[nw++] = (uint32_t)(carry % 1000000000u);
      carry /= 1000000000u;
    }
  }
  char *out = arena_alloc(p->a, nw * 9 + 2), *o = out;
  o += sprintf(o, "%u", nw ? w[nw - 1] : 0u);
  for (size_t k = nw - 1; nw && k-- > 0;) o += sprintf(o, "%09u", w[k]);
  free(w);
  return out;
}

static Ast *cv_integer(P *p, TSNode n, bool negated) {
  size_t len;
  const char *s = ntext(p, n, &len);
  if (len && (s[len - 1] == 'j' || s[len - 1] == 'J')) return cv_float(p, n);   /* `3j`: imaginary */
  Ast *a = mk(p, A_CONSTANT, n);
  a->const_kind = C_INT;
  const char *msg = number_error(s, len);
  if (msg) {
    /* errindex: - (passes on a message indexed where it is made) */
    if (!p->errtree) cv_err(p, n, "%s", msg);
    return a;
  }
  unsigned base = 10;
  size_t i = 0;
  if (len >= 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
    base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
    i = 2;
  }
  uint64_t v = 0;
  bool over = false;
  for (; i < len; i++) {
    int c = (unsigned char)s[i];
    if (c == '_') continue;
    unsigned d = isdigit(c) ? (unsigned)(c - '0') : (unsigned)(tolower(c) - 'a' + 10);
    if (v > (UINT64_MAX - d) / base) over = true;
    v = v * base + d;
  }
  uint64_t lim = negated ? (uint64_t)INT64_MAX + 1 : (uint64_t)UINT64_MAX;
  if (over || v > lim) {   /* beyond 2**64 - 1: its decimal text, a Python int made at run time */
    a->const_kind = C_BIGINT;
    a->str = big_decimal(p, s, base == 10 ? 0 : 2, len, base);
    return a;
  }
  if (!negated && v > (uint64_t)INT64_MAX) {   /* above int64: a uint64 value (runtime/object/u64int.c) */
    a->const_kind = C_BIGINT;
    a->ival = (int64_t)v;   /* its bits (ast_bigint) */
    return a;
  }
  a->ival = negated ? (int64_t)(0 - v) : (int64_t)v;
  return a;
}

/* ---- int-only constant expressions beyond int64 ----
 * Python's ints are unbounded, tfs's are int64 (docs/language.md).  An expression of int literals and + - * **
 * is computed here in 128 bits; when it or one of its parts leaves int64 (2**64 - 1) and its value is in
 * [INT64_MIN, 2**64), it becomes a constant (C_INT, or C_BIGINT above int64), so the value Python gives can be
 * written for a uint64 tensor.  One that stays inside int64 all the way runs as written. */

static bool in_i64(__int128 v) { return v >= INT64_MIN && v <= INT64_MAX; }
static bool pow128(__int128 x, __int128 y, __int128 *r);

/* The exact value of e when it is an int literal or + - * ** of such (nested at most `depth` deep, which bounds
 * the work a long chain of literals costs); *wide is set when a part leaves int64. */
static bool cint_eval(const Ast *e, __int128 *v, bool *wide, int depth) {
  if (e->kind == A_CONSTANT && e->const_kind == C_INT) { *v = e->ival; return true; }
  if (e->kind == A_CONSTANT && e->const_kind == C_BIGINT && !e->str) { *v = (__int128)ast_bigint(e); *wide = true; return true; }
  if (e->kind != A_BINOP || depth <= 0) return false;
  __int128 x, y;
  if (!cint_eval(e->left, &x, wide, depth - 1) || !cint_eval(e->right, &y, wide, depth - 1)) return false;
  bool ok;
  switch (e->op) {
  case BIN_ADD: ok = !__builtin_add_overflow(x, y, v); break;
  case BIN_SUB: ok = !__builtin_sub_overflow(x, y, v); break;
  case BIN_MUL: ok = !__builtin_mul_overflow(x, y, v); break;
  case BIN_POW: ok = y >= 0 && pow128(x, y, v); break;
  default: ok = false;
  }
  if (ok && !in_i64(*v)) *wide = true;
  return ok;
}

static bool cint_of(const Ast *e, __int128 *v) {
  bool wide = false;
  return cint_eval(e, v, &wide, 64);
}

static bool pow128(__int128 x, __int128 y, __int128 *r) {
  __int128 acc = 1;
  while (y > 0) {
    if ((y & 1) && __builtin_mul_overflow(acc, x, &acc)) return false;
    y >>= 1;
    if (y && __builtin_mul_overflow(x, x, &x)) return false;
  }
  *r = acc;
  return true;
}

static Ast *fold_int(P *p, Ast *b, TSNode n) {
  __int128 r;
  bool wide = false;
  if (b->op != BIN_ADD && b->op != BIN_SUB && b->op != BIN_MUL && b->op != BIN_POW) return b;
  if (!cint_eval(b, &r, &wide, 64) || !wide || r < INT64_MIN || r > (__int128)UINT64_MAX) return b;
  Ast *c = mk(p, A_CONSTANT, n);
  if (in_i64(r)) {
    c->const_kind = C_INT;
    c->ival = (int64_t)r;
  } else {
    c->const_kind = C_BIGINT;
    c->ival = (int64_t)(uint64_t)r;
  }
  return c;
}

static Ast *cv_float(P *p, TSNode n) {
  size_t len;
  const char *s = ntext(p, n, &len);
  Ast *a = mk(p, A_CONSTANT, n);
  a->const_kind = C_FLOAT;
  const char *msg = number_error(s, len);
  if (len && (s[len - 1] == 'j' || s[len - 1] == 'J')) {   /* an imaginary literal: `2.5j`, `1e3j`, `3j` */
    a->const_kind = C_IMAG;
    len--;
  }
  if (msg) {
    /* errindex: - (passes on a message indexed where it is made) */
    if (!p->errtree) cv_err(p, n, "%s", msg);
    return a;
  }
  char *buf = arena_alloc(p->a, len + 1);
  size_t m = 0;
  for (size_t i = 0; i < len; i++)
    if (s[i] != '_') buf[m++] = s[i];
  buf[m] = 0;
  a->fval = strtod(buf, NULL);
  return a;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  o[2] = (char)(0x80 | (cp >> 6 & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

static int hexval(int c) { return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1; }

/* Decode src[off..off+n) of a string body into `out` (room for n bytes):
 * escapes unless raw, and "{{"/"}}" in f-string text.  A bytes body (`by`)
 * takes \x and octal escapes as raw bytes and has no \u \U \N escapes, as
 * CPython.  Returns the length. */
static size_t decode(P *p, size_t off, size_t n, bool raw, bool fmt, bool by, char *out) {
  const char *s = p->src + off;
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    char c = s[i];
    if (fmt && (c == '{' || c == '}') && i + 1 < n && s[i + 1] == c) {
      out[o++] = c;
      i += 2;
      continue;
    }
    if (fmt && c == '}') {
      int l, col;
      pos_of(p, off + i, &l, &col);
      perr(p, l, col, "f-string: single '}' is not allowed");
      i++;
      continue;
    }
    if (c != '\\' || raw || i + 1 >= n) {
      out[o++] = c;
      i++;
      continue;
    }
    char e = s[i + 1];
    size_t start = i;
    i += 2;
    int digits = 0;
    switch (e) {
    case '\n': break;
    case '\r': if (i < n && s[i] == '\n') i++; break;
    case '\\': out[o++] = '\\'; break;
    case '\'': out[o++] = '\''; break;
    case '"': out[o++] = '"'; break;
    case 'a': out[o++] = '\a'; break;
    case 'b': out[o++] = '\b'; break;
    case 'f': out[o++] = '\f'; break;
    case 'n': out[o++] = '\n'; break;
    case 'r': out[o++] = '\r'; break;
    case 't': out[o++] = '\t'; break;
    case 'v': out[o++] = '\v'; break;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      unsigned v = (unsigned)(e - '0');
      for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++) v = v * 8 + (unsigned)(s[i++] - '0');
      if (by) out[o++] = (char)(v & 0xFF);   /* b'\777' is b'\xff' in CPython 3.11 */
      else o += put_utf8(out + o, v);
      break;
    }
    case 'x': digits = 2; break;
    case 'u': case 'U': case 'N':
      if (!by) {
        digits = e == 'u' ? 4 : e == 'U' ? 8 : 0;
        if (e == 'N') {
          int l, col;
          pos_of(p, off + start, &l, &col);
          perr(p, l, col, "\\N{...} escapes are not supported");
        }
        break;
      }
      out[o++] = '\\';   /* not an escape in bytes */
      out[o++] = e;
      break;
    default:
      out[o++] = '\\';
      out[o++] = e;
      break;
    }
    if (digits) {
      unsigned v = 0;
      int k = 0;
      for (; k < digits && i < n && hexval((unsigned char)s[i]) >= 0; k++)
        v = v * 16 + (unsigned)hexval((unsigned char)s[i++]);
      int l, col;
      pos_of(p, off + start, &l, &col);
      if (k < digits)
        perr(p, l, col, "truncated \\%c%s escape", e, digits == 2 ? "XX" : digits == 4 ? "XXXX" : "XXXXXXXX");
      else if (v > 0x10FFFF)
        perr(p, l, col, "illegal Unicode character in \\U escape");
      else if (by)
        out[o++] = (char)v;
      else
        o += put_utf8(out + o, v);
    }
  }
  return o;
}

/* Prefix and quotes of one string node. */
typedef struct StrLit { bool raw, f, bytes; size_t body, blen; } StrLit;

static StrLit str_parts(P *p, TSNode n) {
  size_t len;
  const char *s = ntext(p, n, &len);
  StrLit r = {false, false, false, 0, 0};
  size_t i = 0;
  while (i < len && isalpha((unsigned char)s[i])) {
    int c = tolower((unsigned char)s[i++]);
    r.raw |= c == 'r';
    r.f |= c == 'f';
    r.bytes |= c == 'b';
  }
  size_t q = 0;
  if (i < len) {
    char qc = s[i];
    q = (len - i >= 6 && s[i + 1] == qc && s[i + 2] == qc) ? 3 : 1;
  }
  r.body = ts_node_start_byte(n) + i + q;
  r.blen = len >= i + 2 * q ? len - i - 2 * q : 0;
  return r;
}

static Ast *str_const(P *p, TSNode loc, const char *s, size_t n) {
  Ast *a = mk(p, A_CONSTANT, loc);
  a->const_kind = C_STR;
  char *c = arena_alloc(p->a, n + 1);
  if (n) memcpy(c, s, n);
  a->str = c;
  a->slen = n;
  return a;
}

/* Append a text part to a JoinedStr's values, merging with a text part before it. */
static void push_text(P *p, AstList *vals, TSNode loc, const char *s, size_t n) {
  if (!n) return;
  if (vals->n && vals->items[vals->n - 1]->kind == A_CONSTANT) {
    Ast *last = vals->items[vals->n - 1];
    char *c = arena_alloc(p->a, last->slen + n + 1);
    memcpy(c, last->str, last->slen);
    memcpy(c + last->slen, s, n);
    last->str = c;
    last->slen += n;
    return;
  }
  ast_list_push(p->a, vals, str_const(p, loc, s, n));
}

static void push_decoded(P *p, AstList *vals, TSNode loc, size_t off, size_t n, bool raw) {
  if (!n) return;
  char *buf = arena_alloc(p->a, n + 1);
  size_t m = decode(p, off, n, raw, true, false, buf);
  push_text(p, vals, loc, buf, m);
}

static Ast *cv_interpolation(P *p, TSNode in, AstList *vals, TSNode loc, bool raw);

/* The parts of [off, end) of an f-string, interpolations at their children. */
static void fstring_parts(P *p, TSNode holder, size_t off, size_t end, AstList *vals, TSNode loc, bool raw) {
  Kids k = kids(p, holder);
  for (int i = 0; i < k.n; i++) {
    int t = nk(p, k.v[i]);
    if (t != NK_INTERPOLATION && t != NK_FORMAT_EXPRESSION) continue;
    size_t s = ts_node_start_byte(k.v[i]), e = ts_node_end_byte(k.v[i]);
    if (s < off || e > end) continue;
    push_decoded(p, vals, loc, off, s - off, raw);
    Ast *fv = cv_interpolation(p, k.v[i], vals, loc, raw);
    ast_list_push(p->a, vals, fv);
    off = e;
  }
  push_decoded(p, vals, loc, off, end - off, raw);
}

static Ast *cv_interpolation(P *p, TSNode in, AstList *vals, TSNode loc, bool raw) {
  Ast *fv = mk(p, A_FORMATTEDVALUE, in);
  Kids k = kids(p, in);
  TSNode expr = field(in, F_EXPRESSION), conv = field(in, F_TYPE_CONVERSION), spec = field(in, F_FORMAT_SPECIFIER);
  if (nk(p, in) == NK_FORMAT_EXPRESSION && !ts_node_is_null(spec)) {   /* Python allows one level: {x:{w}} */
    Kids sk = kids(p, spec);
    for (int i = 0; i < sk.n; i++)
      if (nk(p, sk.v[i]) == NK_FORMAT_EXPRESSION) cv_err(p, sk.v[i], "f-string: expressions nested too deeply");
  }
  bool debug = false;
  for (int i = 0; i < k.n; i++) {
    if (ts_node_is_null(expr) && ts_node_is_named(k.v[i]) && nk(p, k.v[i]) != NK_TYPE_CONVERSION &&
        nk(p, k.v[i]) != NK_FORMAT_SPECIFIER)
      expr = k.v[i];
    if (!ts_node_is_named(k.v[i]) && ntype_is(k.v[i], "=")) {
      debug = true;
      /* f"{x=}" prints the expression text, '=' and the blanks after it first */
      size_t s = ts_node_start_byte(in) + 1, e = i + 1 < k.n ? ts_node_start_byte(k.v[i + 1]) : ts_node_end_byte(k.v[i]);
      if (e > s) push_text(p, vals, loc, p->src + s, e - s);
    }
  }
  fv->value = ts_node_is_null(expr) ? bad_node(p, in) : cv_expr(p, expr);
  if (!ts_node_is_null(conv)) {
    size_t len;
    const char *c = ntext(p, conv, &len);
    char ch = len >= 2 ? c[1] : 0;
    if (ch != 'r' && ch != 's' && ch != 'a')
      cv_err(p, conv, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
    fv->op = ch;
  }
  if (!ts_node_is_null(spec)) {
    Ast *js = mk(p, A_JOINEDSTR, spec);
    size_t s = ts_node_start_byte(spec), e = ts_node_end_byte(spec);
    if (s < e && p->src[s] == ':') s++;
    fstring_parts(p, spec, s, e, &js->values, spec, raw);
    fv->format_spec = js;
  }
  if (debug && !fv->op && !fv->format_spec) fv->op = 'r';
  return fv;
}

/* One string or an implicit concatenation: a Constant, or a JoinedStr when any part is an f-string. */
static Ast *cv_strings(P *p, TSNode whole, TSNode *parts, int n) {
  bool anyf = false;
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    StrLit l = str_parts(p, parts[i]);
    size_t len;
    const char *t = ntext(p, parts[i], &len);
    size_t np = 0;
    bool f;
    while (np < len && isalpha((unsigned char)t[np])) np++;
    if (np && !string_prefix(t, np, &f)) {
      cv_err(p, parts[i], "invalid string prefix '%.*s'", (int)np, t);
      return bad_node(p, whole);
    }
    if (l.bytes != str_parts(p, parts[0]).bytes) {
      /* CPython's tokenizer reports it just past the whole concatenation */
      TSPoint e = ts_node_end_point(whole);
      perr(p, (int)e.row + 1, (int)e.column + 1, "cannot mix bytes and nonbytes literals");
      return bad_node(p, whole);
    }
    for (size_t k = 0; l.bytes && k < l.blen; k++)
      if ((unsigned char)p->src[l.body + k] >= 0x80) {
        TSPoint e = ts_node_end_point(parts[i]);   /* Python 3.11 marks just past the literal */
        perr(p, (int)e.row + 1, (int)e.column + 1, "bytes can only contain ASCII literal characters");
        return bad_node(p, whole);
      }
    anyf |= l.f;
    total += l.blen;
  }
  if (!anyf) {
    char *buf = arena_alloc(p->a, total + 1);
    size_t m = 0;
    for (int i = 0; i < n; i++) {
      StrLit l = str_parts(p, parts[i]);
      m += decode(p, l.body, l.blen, l.raw, false, l.bytes, buf + m);
    }
    Ast *a = mk(p, A_CONSTANT, whole);
    a->const_kind = str_parts(p, parts[0]).bytes ? C_BYTES : C_STR;
    a->str = buf;
    a->slen = m;
    return a;
  }
  Ast *js = mk(p, A_JOINEDSTR, whole);
  for (int i = 0; i < n; i++) {
    StrLit l = str_parts(p, parts[i]);
    if (l.f) {
      fstring_parts(p, parts[i], l.body, l.body + l.blen, &js->values, whole, l.raw);
    } else {
      char *buf = arena_alloc(p->a, l.blen + 1);
      size_t m = decode(p, l.body, l.blen, l.raw, false, false, buf);
      push_text(p, &js->values, whole, buf, m);
    }
  }
  return js;
}

/* --- expressions --- */

static const struct { const char *text; int op; } binops[] = {
    {"+", BIN_ADD},     {"-", BIN_SUB},     {"*", BIN_MUL},      {"/", BIN_DIV},     {"//", BIN_FLOORDIV},
    {"%", BIN_MOD},     {"**", BIN_POW},    {"@", BIN_MATMUL},   {"<<", BIN_LSHIFT}, {">>", BIN_RSHIFT},
    {"&", BIN_BITAND},  {"|", BIN_BITOR},   {"^", BIN_BITXOR},   {NULL, 0},
};

static int binop_of(const char *t, size_t n) {
  for (int i = 0; binops[i].text; i++)
    if (strlen(binops[i].text) == n && !memcmp(binops[i].text, t, n)) return binops[i].op;
  return -1;
}

static Ast *cv_list_like(P *p, TSNode n, AstKind kind) {
  Ast *a = mk(p, kind, n);
  Kids k = named(p, n);
  for (int i = 0; i < k.n; i++) ast_list_push(p->a, &a->elts, cv_expr(p, k.v[i]));
  return a;
}

static Ast *cv_binop_chain(P *p, TSNode n) {
  /* Walk the left spine iteratively: long `a + b + c + ...` chains stay shallow. */
  int cap = 16, m = 0;
  TSNode *spine = malloc(sizeof *spine * (size_t)cap);
  if (!spine) abort();
  TSNode cur = n;
  while (nk(p, cur) == NK_BINARY_OPERATOR) {
    if (m == cap) {
      cap *= 2;
      spine = realloc(spine, sizeof *spine * (size_t)cap);
      if (!spine) abort();
    }
    spine[m++] = cur;
    TSNode l = field(cur, F_LEFT);
    if (ts_node_is_null(l)) break;
    cur = l;
  }
  TSNode first = field(spine[m - 1], F_LEFT);
  Ast *left = ts_node_is_null(first) ? bad_node(p, spine[m - 1]) : cv_expr(p, first);
  for (int i = m - 1; i >= 0; i--) {
    Ast *b = mk(p, A_BINOP, spine[i]);
    TSNode op = field(spine[i], F_OPERATOR), r = field(spine[i], F_RIGHT);
    size_t len = 0;
    const char *t = ts_node_is_null(op) ? "" : ntext(p, op, &len);
    b->op = binop_of(t, len);
    if (b->op < 0) {
      cv_err(p, spine[i], "invalid syntax: unexpected operator '%.*s'", (int)len, t);
      b->op = BIN_ADD;
    }
    b->left = left;
    b->right = ts_node_is_null(r) ? bad_node(p, spine[i]) : cv_expr(p, r);
    left = fold_int(p, b, spine[i]);
  }
  free(spine);
  return left;
}

static Ast *cv_boolop(P *p, TSNode n) {
  Ast *a = mk(p, A_BOOLOP, n);
  TSNode op = field(n, F_OPERATOR);
  a->op = !ts_node_is_null(op) && ntype_is(op, "or") ? BOOL_OR : BOOL_AND;
  const char *opname = a->op == BOOL_OR ? "or" : "and";
  /* Flatten `a and b and c` into one node, as Python does (left spine, iteratively). */
  int cap = 8, m = 0;
  TSNode *rights = malloc(sizeof *rights * (size_t)cap);
  if (!rights) abort();
  TSNode cur = n;
  for (;;) {
    TSNode r = field(cur, F_RIGHT), l = field(cur, F_LEFT);
    if (m == cap) {
      cap *= 2;
      rights = realloc(rights, sizeof *rights * (size_t)cap);
      if (!rights) abort();
    }
    rights[m++] = r;
    TSNode lop = ts_node_is_null(l) ? l : field(l, F_OPERATOR);
    if (!ts_node_is_null(l) && nk(p, l) == NK_BOOLEAN_OPERATOR && !ts_node_is_null(lop) && ntype_is(lop, opname)) {
      cur = l;
      continue;
    }
    ast_list_push(p->a, &a->values, ts_node_is_null(l) ? bad_node(p, cur) : cv_expr(p, l));
    break;
  }
  for (int i = m - 1; i >= 0; i--) {
    TSNode r = rights[i];
    if (!ts_node_is_null(r) && nk(p, r) == NK_BOOLEAN_OPERATOR) {
      TSNode rop = field(r, F_OPERATOR);
      if (!ts_node_is_null(rop) && ntype_is(rop, opname)) {
        Ast *sub = cv_boolop(p, r);
        for (int j = 0; j < sub->values.n; j++) ast_list_push(p->a, &a->values, sub->values.items[j]);
        continue;
      }
    }
    ast_list_push(p->a, &a->values, ts_node_is_null(r) ? bad_node(p, n) : cv_expr(p, r));
  }
  free(rights);
  return a;
}

static int cmp_of(P *p, TSNode op, TSNode next, bool *two) {
  size_t len;
  const char *t = ntext(p, op, &len);
  *two = false;
#define IS(s) (len == strlen(s) && !memcmp(t, s, len))
  if (IS("<")) return CMP_LT;
  if (IS("<=")) return CMP_LE;
  if (IS(">")) return CMP_GT;
  if (IS(">=")) return CMP_GE;
  if (IS("==")) return CMP_EQ;
  if (IS("!=")) return CMP_NE;
  if (IS("in")) return CMP_IN;
  /* `not in` / `is not` come as one token or as two ("not" + "in", both maybe typed "not in") */
  size_t nl = 0;
  const char *nt = ts_node_is_null(next) ? "" : ntext(p, next, &nl);
  if (IS("is")) {
    if (nl == 3 && !memcmp(nt, "not", 3)) { *two = true; return CMP_ISNOT; }
    return CMP_IS;
  }
  if (IS("not") && nl == 2 && !memcmp(nt, "in", 2)) { *two = true; return CMP_NOTIN; }
  if (ntype_is(op, "not in") && len > 3) return CMP_NOTIN;
  if (ntype_is(op, "is not") && len > 3) return CMP_ISNOT;
#undef IS
  return -1;
}

static Ast *cv_compare(P *p, TSNode n) {
  Ast *a = mk(p, A_COMPARE, n);
  Kids k = kids(p, n);
  int *ops = arena_alloc(p->a, sizeof *ops * (size_t)(k.n + 1));
  int nops = 0;
  for (int i = 0; i < k.n; i++) {
    if (ts_node_is_named(k.v[i])) {
      Ast *e = cv_expr(p, k.v[i]);
      if (!a->left) a->left = e;
      else ast_list_push(p->a, &a->comparators, e);
      continue;
    }
    bool two;
    TSNode next;
    memset(&next, 0, sizeof next);
    if (i + 1 < k.n && !ts_node_is_named(k.v[i + 1])) next = k.v[i + 1];
    int op = cmp_of(p, k.v[i], next, &two);
    if (op < 0) {
      cv_err(p, k.v[i], "invalid syntax: unexpected '%s'", ts_node_type(k.v[i]));
      op = CMP_EQ;
    }
    if (two) i++;
    ops[nops++] = op;
  }
  a->ops = ops;
  if (!a->left || a->comparators.n != nops) {
    cv_err(p, n, "invalid syntax: malformed comparison");
    return bad_node(p, n);
  }
  return a;
}

/* Parameters of def or lambda into A_ARG nodes, with Python's checks. */
static void cv_params(P *p, TSNode params, AstList *out) {
  if (ts_node_is_null(params)) return;
  Kids k = named(p, params);
  bool seen_default = false, seen_star = false, bare_star = false, seen_kwstar = false, seen_slash = false;
  TSNode bare = params;
  for (int i = 0; i < k.n; i++) {
    TSNode c = k.v[i];
    int t = nk(p, c);
    Ast *arg = mk(p, A_ARG, c);
    TSNode name = c, dflt = {0};
    memset(&dflt, 0, sizeof dflt);
    bool has_default = false;
    switch (t) {
    case NK_IDENTIFIER: case NK_KEYWORD_IDENTIFIER: break;
    case NK_DEFAULT_PARAMETER: case NK_TYPED_DEFAULT_PARAMETER:
      name = field(c, F_NAME);
      dflt = field(c, F_VALUE);
      has_default = true;
      break;
    case NK_TYPED_PARAMETER: {
      Kids tk = named(p, c);
      name = tk.n ? tk.v[0] : c;
      t = tk.n ? nk(p, name) : NK_OTHER;
      if (t == NK_LIST_SPLAT_PATTERN || t == NK_DICTIONARY_SPLAT_PATTERN) {
        c = name;
        Kids sk = named(p, c);
        name = sk.n ? sk.v[0] : c;
      }
      break;
    }
    case NK_LIST_SPLAT_PATTERN: case NK_DICTIONARY_SPLAT_PATTERN: {
      Kids sk = named(p, c);
      name = sk.n ? sk.v[0] : c;
      break;
    }
    case NK_KEYWORD_SEPARATOR: break;
    case NK_POSITIONAL_SEPARATOR:
      /* Python's checks, in its order */
      if (seen_slash) cv_err(p, c, "/ may appear only once");
      else if (seen_star || seen_kwstar) cv_err(p, c, "/ must be ahead of *");
      else if (!out->n) cv_err(p, c, "at least one argument must precede /");
      seen_slash = true;
      for (int j = 0; j < out->n; j++) out->items[j]->is_posonly = true;
      continue;
    default:
      cv_err(p, c, "invalid syntax: unexpected %s in parameters", ts_node_type(c));
      continue;
    }
    if (seen_kwstar) {
      cv_err(p, c, "arguments cannot follow var-keyword argument");
      break;
    }
    if (t == NK_KEYWORD_SEPARATOR) {
      if (seen_star) cv_err(p, c, "* argument may appear only once");
      seen_star = bare_star = true;
      bare = c;
      arg->is_star = true;
      ast_list_push(p->a, out, arg);
      continue;
    }
    if (ts_node_is_null(name) || (nk(p, name) != NK_IDENTIFIER && nk(p, name) != NK_KEYWORD_IDENTIFIER)) {
      cv_err(p, c, "invalid syntax: expected a parameter name");
      continue;
    }
    arg->name = cv_ident(p, name);
    set_loc(arg, name); /* the name alone, as in Python */
    for (int j = 0; j < out->n; j++)
      if (out->items[j]->name && !strcmp(out->items[j]->name, arg->name))
        cv_err(p, name, "duplicate argument '%s' in function definition", arg->name);
    if (t == NK_LIST_SPLAT_PATTERN) {
      if (seen_star) cv_err(p, c, "* argument may appear only once");
      seen_star = true;
      bare_star = false;
      arg->is_star = true;
    } else if (t == NK_DICTIONARY_SPLAT_PATTERN) {
      arg->is_star = arg->is_kwstar = true;
      seen_kwstar = true;
      if (bare_star) cv_err(p, bare, "named arguments must follow bare *");
      bare_star = false;
    } else {
      bare_star = false;
      if (has_default) {
        seen_default = true;
        if (!ts_node_is_null(dflt)) arg->deflt = cv_expr(p, dflt);
      } else if (seen_default && !seen_star) {
        cv_err(p, c, "non-default parameter follows default parameter");
      }
    }
    ast_list_push(p->a, out, arg);
  }
  if (bare_star) cv_err(p, bare, "named arguments must follow bare *");
}

/* `f(,)`, `{,}`: the grammar lets a comma stand alone in an empty list. */
static void check_lone_comma(P *p, TSNode list) {
  Kids k = kids(p, list);
  bool any = false;
  for (int i = 0; i < k.n; i++) any |= ts_node_is_named(k.v[i]);
  for (int i = 0; i < k.n && !any; i++)
    if (ntype_is(k.v[i], ",")) {
      cv_err(p, k.v[i], "invalid syntax: unexpected ','");
      return;
    }
}

/* Arguments of a call or a class's bases: positional into `args`, keywords
 * (and `**d`, arg NULL) into `kws`, with Python's ordering checks. */
static void cv_arguments(P *p, TSNode list, AstList *args, AstList *kws) {
  check_lone_comma(p, list);
  Kids k = named(p, list);
  bool kw = false, kwstar = false;
  for (int i = 0; i < k.n; i++) {
    TSNode c = k.v[i];
    int t = nk(p, c);
    if (t == NK_KEYWORD_ARGUMENT) {
      Ast *kwn = mk(p, A_KEYWORD, c);
      TSNode name = field(c, F_NAME), val = field(c, F_VALUE);
      kwn->name = ts_node_is_null(name) ? "?" : cv_ident(p, name);
      kwn->value = ts_node_is_null(val) ? bad_node(p, c) : cv_expr(p, val);
      for (int j = 0; j < kws->n; j++)
        if (kws->items[j]->name && !strcmp(kws->items[j]->name, kwn->name))
          cv_err(p, c, "keyword argument repeated: %s", kwn->name);
      ast_list_push(p->a, kws, kwn);
      kw = true;
    } else if (t == NK_DICTIONARY_SPLAT) {
      Ast *kwn = mk(p, A_KEYWORD, c);
      Kids sk = named(p, c);
      kwn->value = sk.n ? cv_expr(p, sk.v[0]) : bad_node(p, c);
      kwn->is_star = true;
      ast_list_push(p->a, kws, kwn);
      kwstar = true;
    } else if (t == NK_LIST_SPLAT) {
      if (kwstar) cv_err(p, c, "iterable argument unpacking follows keyword argument unpacking");
      ast_list_push(p->a, args, cv_expr(p, c));
    } else {
      if (kwstar) cv_err(p, c, "positional argument follows keyword argument unpacking");
      else if (kw) cv_err(p, c, "positional argument follows keyword argument");
      ast_list_push(p->a, args, cv_expr(p, c));
    }
  }
}

static Ast *cv_target(P *p, TSNode n, const char *verb);

/* `[e for x in it if c for y in x]` and its dict, set and generator kin:
 * the body, then one A_COMPREHENSION per `for` with the `if`s after it. */
static Ast *cv_comprehension(P *p, TSNode n, AstKind kind) {
  Ast *a = mk(p, kind, n);
  Kids k = named(p, n);
  Ast *cur = NULL;
  const char *outer = p->comp;
  p->comp = kind == A_LISTCOMP ? "list comprehension" : kind == A_SETCOMP ? "set comprehension"
            : kind == A_DICTCOMP ? "dict comprehension" : "generator expression";
  for (int i = 0; i < k.n; i++) {
    TSNode c = k.v[i];
    switch (nk(p, c)) {
    case NK_FOR_IN_CLAUSE: {
      bool first = !cur;
      cur = mk(p, A_COMPREHENSION, c);
      TSNode l = field(c, F_LEFT), r = field(c, F_RIGHT);
      cur->target = ts_node_is_null(l) ? bad_node(p, c) : cv_target(p, l, "assign to");
      /* the first iterable is evaluated in the enclosing scope */
      const char *inner = p->comp;
      if (first) p->comp = outer;
      cur->iter = ts_node_is_null(r) ? bad_node(p, c) : cv_expr(p, r);
      p->comp = inner;
      ast_list_push(p->a, &a->generators, cur);
      break;
    }
    case NK_IF_CLAUSE: {
      Kids ck = named(p, c);
      Ast *t = ck.n ? cv_expr(p, ck.v[0]) : bad_node(p, c);
      if (cur) ast_list_push(p->a, &cur->ifs, t);
      break;
    }
    case NK_PAIR: {
      TSNode kk = field(c, F_KEY), vv = field(c, F_VALUE);
      a->key = ts_node_is_null(kk) ? bad_node(p, c) : cv_expr(p, kk);
      a->value = ts_node_is_null(vv) ? bad_node(p, c) : cv_expr(p, vv);
      break;
    }
    default:
      if (!a->value) {
        if (nk(p, c) == NK_LIST_SPLAT) {
          cv_err(p, c, kind == A_DICTCOMP ? "dict unpacking cannot be used in dict comprehension"
                                          : "iterable unpacking cannot be used in comprehension");
          a->value = bad_node(p, c);
        } else {
          a->value = cv_expr(p, c);
        }
      }
      break;
    }
  }
  p->comp = outer;
  if (!a->value) a->value = bad_node(p, n);
  if (kind == A_DICTCOMP && !a->key) a->key = bad_node(p, n);
  if (!a->generators.n) return cv_unsupported(p, n);
  return a;
}

static Ast *cv_call(P *p, TSNode n) {
  Ast *a = mk(p, A_CALL, n);
  TSNode fn = field(n, F_FUNCTION), args = field(n, F_ARGUMENTS);
  a->func = ts_node_is_null(fn) ? bad_node(p, n) : cv_expr(p, fn);
  if (ts_node_is_null(args)) return a;
  if (nk(p, args) == NK_GENERATOR_EXPRESSION) ast_list_push(p->a, &a->args, cv_comprehension(p, args, A_GENEXP));
  else if (nk(p, args) != NK_ARGUMENT_LIST) cv_unsupported(p, args);
  else cv_arguments(p, args, &a->args, &a->keywords);
  return a;
}

static Ast *cv_slice(P *p, TSNode n) {
  Ast *a = mk(p, A_SLICE, n);
  TSNode lo = field(n, F_START), hi = field(n, F_STOP), st = field(n, F_STEP);
  if (ts_node_is_null(lo) && ts_node_is_null(hi) && ts_node_is_null(st)) {
    /* a grammar without slice fields: place children by the colons before them */
    Kids k = kids(p, n);
    int part = 0;
    for (int i = 0; i < k.n; i++) {
      if (!ts_node_is_named(k.v[i])) {
        if (ntype_is(k.v[i], ":")) part++;
        continue;
      }
      Ast *e = cv_expr(p, k.v[i]);
      if (part == 0) a->lower = e;
      else if (part == 1) a->upper = e;
      else a->step = e;
    }
    return a;
  }
  if (!ts_node_is_null(lo)) a->lower = cv_expr(p, lo);
  if (!ts_node_is_null(hi)) a->upper = cv_expr(p, hi);
  if (!ts_node_is_null(st)) a->step = cv_expr(p, st);
  return a;
}

static Ast *cv_subscript(P *p, TSNode n) {
  Ast *a = mk(p, A_SUBSCRIPT, n);
  Kids k = kids(p, n);
  AstList idx = {NULL, 0, 0};
  bool comma = false, open = false;
  TSNode last_comma;
  memset(&last_comma, 0, sizeof last_comma);
  for (int i = 0; i < k.n; i++) {
    if (k.f[i] && !strcmp(k.f[i], "value")) {
      a->value = cv_expr(p, k.v[i]);
    } else if (!ts_node_is_named(k.v[i])) {
      if (ntype_is(k.v[i], "[")) open = true;
      else if (open && ntype_is(k.v[i], ",")) comma = true, last_comma = k.v[i];
    } else if (open) {
      ast_list_push(p->a, &idx, nk(p, k.v[i]) == NK_SLICE ? cv_slice(p, k.v[i]) : cv_expr(p, k.v[i]));
    }
  }
  if (!a->value) a->value = bad_node(p, n);
  if (idx.n == 0) {
    cv_err(p, n, "expected an index");
    a->slice = bad_node(p, n);
  } else if (idx.n == 1 && !comma) {
    a->slice = idx.items[0];
  } else {
    Ast *t = ast_new(p->a, A_TUPLE, idx.items[0]->line, idx.items[0]->col);
    t->elts = idx;
    set_end(t, idx.items[idx.n - 1]);
    if (!ts_node_is_null(last_comma)) {
      /* `x[a,]`: the tuple ends at its trailing comma, as in Python */
      TSPoint e = ts_node_end_point(last_comma);
      if ((int)e.row + 1 > t->end_line || ((int)e.row + 1 == t->end_line && (int)e.column + 1 > t->end_col)) {
        t->end_line = (int)e.row + 1;
        t->end_col = (int)e.column + 1;
      }
    }
    a->slice = t;
  }
  return a;
}

static Ast *cv_dict(P *p, TSNode n) {
  Ast *a = mk(p, A_DICT, n);
  check_lone_comma(p, n);
  Kids k = named(p, n);
  for (int i = 0; i < k.n; i++) {
    TSNode c = k.v[i];
    if (nk(p, c) == NK_PAIR) {
      TSNode key = field(c, F_KEY), val = field(c, F_VALUE);
      ast_list_push(p->a, &a->keys, ts_node_is_null(key) ? bad_node(p, c) : cv_expr(p, key));
      ast_list_push(p->a, &a->values, ts_node_is_null(val) ? bad_node(p, c) : cv_expr(p, val));
    } else if (nk(p, c) == NK_DICTIONARY_SPLAT) {
      Kids sk = named(p, c);
      ast_list_push(p->a, &a->keys, NULL); /* `**d`: no key, as in Python's ast */
      ast_list_push(p->a, &a->values, sk.n ? cv_expr(p, sk.v[0]) : bad_node(p, c));
    } else {
      cv_unsupported(p, c);
    }
  }
  return a;
}

static Ast *cv_expr_inner(P *p, TSNode n) {
  int t = nk(p, n);
  switch (t) {
  case NK_IDENTIFIER: case NK_KEYWORD_IDENTIFIER: {
    Ast *a = mk(p, A_NAME, n);
    a->name = cv_ident(p, n);
    return a;
  }
  case NK_INTEGER: return cv_integer(p, n, false);
  case NK_FLOAT: return cv_float(p, n);
  case NK_TRUE: case NK_FALSE: case NK_NONE: case NK_ELLIPSIS: {
    Ast *a = mk(p, A_CONSTANT, n);
    a->const_kind = t == NK_TRUE ? C_TRUE : t == NK_FALSE ? C_FALSE : t == NK_NONE ? C_NONE : C_ELLIPSIS;
    return a;
  }
  case NK_STRING: return cv_strings(p, n, &n, 1);
  case NK_CONCATENATED_STRING: {
    Kids k = named(p, n);
    return k.n ? cv_strings(p, n, k.v, k.n) : bad_node(p, n);
  }
  case NK_PARENTHESIZED_EXPRESSION: {
    Kids k = named(p, n);
    if (k.n != 1) return cv_unsupported(p, n);
    if (nk(p, k.v[0]) == NK_LIST_SPLAT) {
      cv_err(p, k.v[0], "cannot use starred expression here");
      return bad_node(p, n);
    }
    return cv_expr(p, k.v[0]);
  }
  case NK_TUPLE: case NK_TUPLE_PATTERN: {
    Ast *a = cv_list_like(p, n, A_TUPLE);
    bool comma = false;
    Kids all = kids(p, n);
    for (int i = 0; i < all.n; i++) comma |= !ts_node_is_named(all.v[i]) && ntype_is(all.v[i], ",");
    if (a->elts.n == 1 && !comma) {
      /* `(*x)`: a starred expression in parentheses is no tuple */
      ast_err(p, a->elts.items[0], "cannot use starred expression here");
      return bad_node(p, n);
    }
    a->parenthesized = true;
    return a;
  }
  case NK_LIST: case NK_LIST_PATTERN: return cv_list_like(p, n, A_LIST);
  case NK_EXPRESSION_LIST: case NK_PATTERN_LIST: return cv_list_like(p, n, A_TUPLE); /* a bare `a, b` */
  case NK_LIST_SPLAT: case NK_LIST_SPLAT_PATTERN: {
    Ast *a = mk(p, A_STARRED, n);
    Kids k = named(p, n);
    a->value = k.n ? cv_expr(p, k.v[0]) : bad_node(p, n);
    return a;
  }
  case NK_DICTIONARY: return cv_dict(p, n);
  case NK_SET: return cv_list_like(p, n, A_SET);
  case NK_LIST_COMPREHENSION: return cv_comprehension(p, n, A_LISTCOMP);
  case NK_SET_COMPREHENSION: return cv_comprehension(p, n, A_SETCOMP);
  case NK_GENERATOR_EXPRESSION: return cv_comprehension(p, n, A_GENEXP);
  case NK_DICTIONARY_COMPREHENSION: return cv_comprehension(p, n, A_DICTCOMP);
  case NK_BINARY_OPERATOR: return cv_binop_chain(p, n);
  case NK_UNARY_OPERATOR: {
    Ast *a = mk(p, A_UNARYOP, n);
    TSNode op = field(n, F_OPERATOR), arg = field(n, F_ARGUMENT);
    size_t len = 0;
    const char *o = ts_node_is_null(op) ? "" : ntext(p, op, &len);
    a->op = len == 1 && o[0] == '-' ? UN_NEG : len == 1 && o[0] == '+' ? UN_POS : UN_INVERT;
    if (ts_node_is_null(arg)) {
      a->operand = bad_node(p, n);
    } else if (a->op == UN_NEG && nk(p, arg) == NK_INTEGER) {
      /* -9223372036854775808 fits although its digits alone do not */
      size_t tl;
      const char *tx = ntext(p, arg, &tl);
      char buf[32];
      size_t m = 0;
      for (size_t i = 0; i < tl && m < sizeof buf - 1; i++)
        if (tx[i] != '_') buf[m++] = tx[i];
      buf[m] = 0;
      if (!strcmp(buf, "9223372036854775808")) {
        Ast *c = cv_integer(p, arg, true);
        set_loc(c, n);
        return c;
      }
      a->operand = cv_expr(p, arg);
    } else {
      a->operand = cv_expr(p, arg);
    }
    __int128 v;   /* -(2**63): an int-only constant beyond int64 whose negation is an int64 */
    if (a->op == UN_NEG && a->operand->kind != A_UNARYOP && cint_of(a->operand, &v) && !in_i64(v) && in_i64(-v)) {
      Ast *c = mk(p, A_CONSTANT, n);
      c->const_kind = C_INT;
      c->ival = (int64_t)-v;
      return c;
    }
    return a;
  }
  case NK_NOT_OPERATOR: {
    Ast *a = mk(p, A_UNARYOP, n);
    TSNode arg = field(n, F_ARGUMENT);
    a->op = UN_NOT;
    a->operand = ts_node_is_null(arg) ? bad_node(p, n) : cv_expr(p, arg);
    return a;
  }
  case NK_BOOLEAN_OPERATOR: return cv_boolop(p, n);
  case NK_COMPARISON_OPERATOR: return cv_compare(p, n);
  case NK_CONDITIONAL_EXPRESSION: {
    Ast *a = mk(p, A_IFEXP, n);
    TSNode body = field(n, F_BODY), cond = field(n, F_CONDITION), alt = field(n, F_ALTERNATIVE);
    if (ts_node_is_null(body) || ts_node_is_null(cond) || ts_node_is_null(alt)) {
      Kids k = named(p, n);
      if (k.n != 3) return cv_unsupported(p, n);
      body = k.v[0], cond = k.v[1], alt = k.v[2];
    }
    a->left = cv_expr(p, body);
    a->test = cv_expr(p, cond);
    a->right = cv_expr(p, alt);
    return a;
  }
  case NK_LAMBDA: {
    Ast *a = mk(p, A_LAMBDA, n);
    cv_params(p, field(n, F_PARAMETERS), &a->args);
    TSNode body = field(n, F_BODY);
    int scope = p->scope;
    const char *comp = p->comp;
    p->scope = S_FUNC;
    p->comp = NULL;
    a->value = ts_node_is_null(body) ? bad_node(p, n) : cv_expr(p, body);
    p->scope = scope;
    p->comp = comp;
    return a;
  }
  case NK_YIELD: {
    bool from = false;
    for (uint32_t i = 0; i < ts_node_child_count(n); i++)
      if (!ts_node_is_named(ts_node_child(n, i)) && ntype_is(ts_node_child(n, i), "from")) from = true;
    Ast *a = mk(p, from ? A_YIELDFROM : A_YIELD, n);
    TSNode arg = field(n, F_ARGUMENT);
    a->value = ts_node_is_null(arg) ? NULL : cv_expr(p, arg);
    if (from && !a->value) a->value = bad_node(p, n);
    if (p->comp) cv_err(p, n, "'yield' inside %s", p->comp);
    else if (p->scope != S_FUNC && p->scope != S_UNKNOWN) cv_err(p, n, "'yield' outside function");
    return a;
  }
  case NK_CALL: return cv_call(p, n);
  case NK_ATTRIBUTE: {
    Ast *a = mk(p, A_ATTRIBUTE, n);
    TSNode obj = field(n, F_OBJECT), attr = field(n, F_ATTRIBUTE);
    a->value = ts_node_is_null(obj) ? bad_node(p, n) : cv_expr(p, obj);
    a->name = ts_node_is_null(attr) ? "?" : cv_ident(p, attr);
    return a;
  }
  case NK_SUBSCRIPT: return cv_subscript(p, n);
  case NK_SLICE:
    cv_err(p, n, "invalid syntax: a slice is only allowed inside []");
    return bad_node(p, n);
  case NK_AS_PATTERN:
    cv_err(p, n, "invalid syntax: unexpected 'as'");
    return bad_node(p, n);
  default: return cv_unsupported(p, n);
  }
}

static Ast *cv_expr(P *p, TSNode n) {
  if (++p->depth > MAX_CONV_DEPTH) {
    p->depth--;
    cv_err(p, n, "too many nested expressions");
    return bad_node(p, n);
  }
  Ast *a = cv_expr_inner(p, n);
  p->depth--;
  return a;
}

/* --- targets --- */

/* What cannot be assigned to in `e` (NULL if all can), and where. */
/* `star_ok`: a starred element may stand here (in a tuple or list being assigned, not deleted). */
static const char *target_problem(const Ast *e, const Ast **where, bool star_ok, bool del) {
  *where = e;
  switch (e->kind) {
  case A_NAME: case A_ATTRIBUTE: case A_SUBSCRIPT: return NULL;
  case A_STARRED:
    if (!star_ok) return "starred";
    return target_problem(e->value, where, false, del);
  case A_TUPLE: case A_LIST:
    for (int i = 0; i < e->elts.n; i++) {
      const char *w = target_problem(e->elts.items[i], where, !del, del);
      if (w) return w;
    }
    *where = e;
    return NULL;
  case A_CONSTANT:
    switch (e->const_kind) {
    case C_NONE: return "None";
    case C_TRUE: return "True";
    case C_FALSE: return "False";
    case C_ELLIPSIS: return "ellipsis";
    default: return "literal";
    }
  case A_CALL: return "function call";
  case A_COMPARE: return "comparison";
  case A_IFEXP: return "conditional expression";
  case A_LAMBDA: return "lambda";
  case A_DICT: return "dict literal";
  case A_JOINEDSTR: return "f-string expression";
  default: return "expression";
  }
}

/* Validate an assignment (verb "assign to") or del ("delete") target. */
/* A tuple or list target holding two starred elements (CPython's compiler refuses it), or NULL. */
static const Ast *multi_starred(const Ast *e) {
  if (e->kind == A_STARRED) return multi_starred(e->value);
  if (e->kind != A_TUPLE && e->kind != A_LIST) return NULL;
  int stars = 0;
  for (int i = 0; i < e->elts.n; i++) {
    stars += e->elts.items[i]->kind == A_STARRED;
    const Ast *in = multi_starred(e->elts.items[i]);
    if (in) return in;
  }
  return stars > 1 ? e : NULL;
}

static void check_target(P *p, const Ast *e, const char *verb) {
  const Ast *multi = strcmp(verb, "delete") ? multi_starred(e) : NULL;
  if (multi) {
    ast_err(p, multi, "multiple starred expressions in assignment");
    return;
  }
  const Ast *where;
  const char *w = target_problem(e, &where, false, !strcmp(verb, "delete"));
  if (!w) return;
  if (!strcmp(w, "starred")) {
    if (!strcmp(verb, "delete")) ast_err(p, where, "cannot delete starred");
    else ast_err(p, where, "starred assignment target must be in a list or tuple");
    return;
  }
  ast_err(p, where, "cannot %s %s", verb, w);
}

static Ast *cv_target(P *p, TSNode n, const char *verb) {
  Ast *e = cv_expr(p, n);
  check_target(p, e, verb);
  return e;
}

/* --- statements --- */

static Ast *cv_value(P *p, TSNode n) {
  if (ts_node_is_null(n)) return NULL;
  return cv_expr(p, n);
}

static Ast *cv_assignment(P *p, TSNode stmt, TSNode n) {
  TSNode right = field(n, F_RIGHT), type = field(n, F_TYPE);
  const char *ann = NULL;   /* `x: T` as "x:T": a class body records T's text in __annotations__ (cgen.c) */
  if (!ts_node_is_null(type)) {
    /* an annotation is only checked: .tfs gives it no meaning */
    Kids tk = named(p, type);
    for (int i = 0; i < tk.n; i++) cv_expr(p, tk.v[i]);
    TSNode left = field(n, F_LEFT);
    if (!ts_node_is_null(left)) {
      Ast *t = cv_expr(p, left);
      if (t->kind == A_TUPLE || t->kind == A_LIST)
        ast_err(p, t, "only single target (not %s) can be annotated", t->kind == A_TUPLE ? "tuple" : "list");
      else if (t->kind != A_NAME && t->kind != A_ATTRIBUTE && t->kind != A_SUBSCRIPT)
        ast_err(p, t, "illegal target for annotation");
      if (t->kind == A_NAME) {
        size_t len;
        const char *txt = ntext(p, type, &len);
        ann = arena_printf(p->a, "%s:%.*s", t->name, (int)len, txt);
      }
    }
  }
  if (ts_node_is_null(right)) { /* `x: T` declares only: nothing runs */
    Ast *ps = mk(p, A_PASS, stmt);
    ps->name = ann;
    return ps;
  }
  if (!ts_node_is_null(type) && (nk(p, right) == NK_ASSIGNMENT || nk(p, right) == NK_AUGMENTED_ASSIGNMENT)) {
    /* `x: T = y = 1`: an annotated assignment has one target */
    Kids rk = kids(p, right);
    TSNode at = right;
    for (int i = 0; i < rk.n; i++)
      if (!ts_node_is_named(rk.v[i])) {
        at = rk.v[i];
        break;
      }
    cv_err(p, at, "invalid syntax: unexpected '%s'", ts_node_type(at));
    return bad_node(p, stmt);
  }
  Ast *a = mk(p, A_ASSIGN, stmt);
  a->name = ann;
  TSNode cur = n;
  for (;;) {
    TSNode left = field(cur, F_LEFT), r = field(cur, F_RIGHT);
    if (!ts_node_is_null(left)) ast_list_push(p->a, &a->targets, cv_target(p, left, "assign to"));
    if (ts_node_is_null(r)) {
      a->value = bad_node(p, cur);
      break;
    }
    if (nk(p, r) == NK_ASSIGNMENT) {
      if (!ts_node_is_null(field(r, F_TYPE))) cv_err(p, r, "invalid syntax: an annotation is not allowed here");
      cur = r;
      continue;
    }
    if (nk(p, r) == NK_AUGMENTED_ASSIGNMENT) {
      cv_err(p, r, "invalid syntax: augmented assignment inside an assignment");
      a->value = bad_node(p, r);
      break;
    }
    a->value = cv_expr(p, r);
    break;
  }
  return a;
}

static Ast *cv_augassign(P *p, TSNode stmt, TSNode n) {
  Ast *a = mk(p, A_AUGASSIGN, stmt);
  TSNode left = field(n, F_LEFT), op = field(n, F_OPERATOR), right = field(n, F_RIGHT);
  a->target = ts_node_is_null(left) ? bad_node(p, n) : cv_expr(p, left);
  AstKind k = a->target->kind;
  if (k != A_NAME && k != A_ATTRIBUTE && k != A_SUBSCRIPT) {
    const Ast *where;
    const char *w = target_problem(a->target, &where, false, false);
    if (k == A_TUPLE) w = "tuple";
    else if (k == A_LIST) w = "list";
    else if (k == A_STARRED) w = "starred";
    ast_err(p, a->target, "'%s' is an illegal expression for augmented assignment", w ? w : "expression");
  }
  size_t len = 0;
  const char *t = ts_node_is_null(op) ? "" : ntext(p, op, &len);
  a->op = len >= 2 ? binop_of(t, len - 1) : -1;
  if (a->op < 0) {
    cv_err(p, n, "invalid syntax: unexpected operator '%.*s'", (int)len, t);
    a->op = BIN_ADD;
  }
  if (ts_node_is_null(right) || nk(p, right) == NK_ASSIGNMENT || nk(p, right) == NK_AUGMENTED_ASSIGNMENT) {
    cv_err(p, ts_node_is_null(right) ? n : right, "invalid syntax: expected an expression after '%.*s'", (int)len, t);
    a->value = bad_node(p, n);
  } else {
    a->value = cv_expr(p, right);
  }
  return a;
}

/* The statement kind Python names in "expected an indented block after ...". */
static const char *block_owner(P *p, TSNode hdr) {
  switch (nk(p, hdr)) {
  case NK_IF_STATEMENT: return "'if' statement";
  case NK_ELIF_CLAUSE: return "'elif' statement";
  case NK_ELSE_CLAUSE: return "'else' statement";
  case NK_WHILE_STATEMENT: return "'while' statement";
  case NK_FOR_STATEMENT: return "'for' statement";
  case NK_FUNCTION_DEFINITION: return "function definition";
  case NK_CLASS_DEFINITION: return "class definition";
  case NK_TRY_STATEMENT: return "'try' statement";
  case NK_EXCEPT_CLAUSE: return "'except' statement";
  case NK_FINALLY_CLAUSE: return "'finally' statement";
  case NK_WITH_STATEMENT: return "'with' statement";
  default: return "a statement";
  }
}

/* The index of the first token at or after byte `off` (ntok if none). */
static int tok_lower(const P *p, uint32_t off) {
  int lo = 0, hi = p->ntok;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (p->toks[mid].off < off) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* First real token at or after byte `off`. */
static const Tok *tok_at(P *p, uint32_t off) {
  int lo = tok_lower(p, off);
  if (lo > p->ntok - 1) lo = p->ntok - 1;
  while (lo < p->ntok - 1 &&
         (p->toks[lo].kind == T_NEWLINE || p->toks[lo].kind == T_INDENT || p->toks[lo].kind == T_DEDENT))
    lo++;
  return &p->toks[lo];
}

/* The statements of a block; an empty one is Python's "expected an indented block". */
static void cv_block(P *p, TSNode blk, AstList *out, TSNode hdr) {
  if (!ts_node_is_null(blk)) {
    Kids k = named(p, blk);
    for (int i = 0; i < k.n; i++) cv_stmt(p, k.v[i], out);
  }
  /* (collect_regions sends files with empty blocks to the checker first: this is a safety net) */
  if (out->n == 0 && !p->errtree) {
    const Tok *t = tok_at(p, ts_node_is_null(blk) ? ts_node_end_byte(hdr) : ts_node_start_byte(blk));
    perr(p, t->line, t->col, "expected an indented block after %s on line %d", block_owner(p, hdr),
         (int)ts_node_start_point(hdr).row + 1);
  }
}

/* A clause's block: `body` field, else `consequence`, else its block child. */
static TSNode clause_block(P *p, TSNode c) {
  TSNode b = field(c, F_BODY);
  if (ts_node_is_null(b)) b = field(c, F_CONSEQUENCE);
  if (ts_node_is_null(b)) {
    Kids k = named(p, c);
    for (int i = 0; i < k.n; i++)
      if (nk(p, k.v[i]) == NK_BLOCK) b = k.v[i];
  }
  return b;
}

/* A compound statement ends where its last statement ends, as in Python (the
 * CST's range may run on over trailing comments). */
static void fix_end(Ast *a) {
  const AstField ls[] = {AF_finalbody, AF_orelse, AF_handlers, AF_body};
  for (int i = 0; i < 4; i++)
    if (ast_has(a, ls[i]) && ast_list_field(a, ls[i])->n) {
      const AstList *l = ast_list_field(a, ls[i]);
      set_end(a, l->items[l->n - 1]);
      return;
    }
}

static void cv_loop_body(P *p, TSNode blk, AstList *out, TSNode hdr) {
  p->loops++;
  cv_block(p, blk, out, hdr);
  p->loops--;
}

static void cv_else(P *p, TSNode stmt, AstList *out) {
  TSNode alt = field(stmt, F_ALTERNATIVE);
  if (ts_node_is_null(alt)) {
    Kids k = named(p, stmt);
    for (int i = 0; i < k.n; i++)
      if (nk(p, k.v[i]) == NK_ELSE_CLAUSE) alt = k.v[i];
  }
  if (!ts_node_is_null(alt)) cv_block(p, clause_block(p, alt), out, alt);
}

static Ast *cv_if(P *p, TSNode n) {
  Ast *top = mk(p, A_IF, n);
  TSNode cond = field(n, F_CONDITION);
  top->test = ts_node_is_null(cond) ? bad_node(p, n) : cv_expr(p, cond);
  cv_block(p, field(n, F_CONSEQUENCE), &top->body, n);
  Kids k = named(p, n);
  Ast *cur = top;
  Ast **chain = arena_alloc(p->a, sizeof *chain * (size_t)(k.n + 1));
  int nchain = 0;
  chain[nchain++] = top;
  for (int i = 0; i < k.n; i++) {
    int t = nk(p, k.v[i]);
    if (t == NK_ELIF_CLAUSE) {
      Ast *e = mk(p, A_IF, k.v[i]);
      chain[nchain++] = e;
      TSNode c = field(k.v[i], F_CONDITION);
      e->test = ts_node_is_null(c) ? bad_node(p, k.v[i]) : cv_expr(p, c);
      cv_block(p, clause_block(p, k.v[i]), &e->body, k.v[i]);
      ast_list_push(p->a, &cur->orelse, e);
      cur = e;
    } else if (t == NK_ELSE_CLAUSE) {
      cv_block(p, clause_block(p, k.v[i]), &cur->orelse, k.v[i]);
    }
  }
  /* each elif's If runs to the end of the whole statement: innermost first */
  for (int i = nchain - 1; i >= 0; i--) fix_end(chain[i]);
  return top;
}

static Ast *cv_funcdef(P *p, TSNode n, AstList *decorators) {
  Ast *a = mk(p, A_FUNCDEF, n);
  TSNode name = field(n, F_NAME);
  a->name = ts_node_is_null(name) ? "?" : cv_ident(p, name);
  if (decorators) a->decorators = *decorators;
  cv_params(p, field(n, F_PARAMETERS), &a->args);
  TSNode ret = field(n, F_RETURN_TYPE);
  if (!ts_node_is_null(ret)) {
    /* a return annotation is only checked: .tfs gives it no meaning */
    Kids rk = named(p, ret);
    for (int i = 0; i < rk.n; i++) cv_expr(p, rk.v[i]);
  }
  for (uint32_t i = 0; i < ts_node_child_count(n); i++)
    if (ntype_is(ts_node_child(n, i), "async")) cv_err(p, n, "'async' functions are not supported");
  int scope = p->scope, loops = p->loops;
  const char *comp = p->comp;
  p->scope = S_FUNC;
  p->loops = 0;
  p->comp = NULL;
  cv_block(p, field(n, F_BODY), &a->body, n);
  p->scope = scope;
  p->loops = loops;
  p->comp = comp;
  return a;
}

static Ast *cv_classdef(P *p, TSNode n, AstList *decorators) {
  Ast *a = mk(p, A_CLASSDEF, n);
  TSNode name = field(n, F_NAME), sup = field(n, F_SUPERCLASSES);
  a->name = ts_node_is_null(name) ? "?" : cv_ident(p, name);
  if (decorators) a->decorators = *decorators;
  if (!ts_node_is_null(sup)) cv_arguments(p, sup, &a->bases, &a->keywords); /* bases read like call arguments */
  int scope = p->scope, loops = p->loops;
  const char *comp = p->comp;
  p->scope = S_CLASS;
  p->loops = 0;
  p->comp = NULL;
  cv_block(p, field(n, F_BODY), &a->body, n);
  p->scope = scope;
  p->loops = loops;
  p->comp = comp;
  return a;
}

static Ast *cv_try(P *p, TSNode n) {
  Ast *a = mk(p, A_TRY, n);
  cv_block(p, field(n, F_BODY), &a->body, n);
  Kids k = named(p, n);
  for (int i = 0; i < k.n; i++) {
    TSNode c = k.v[i];
    switch (nk(p, c)) {
    case NK_EXCEPT_CLAUSE: {
      Ast *h = mk(p, A_EXCEPTHANDLER, c);
      TSNode v = field(c, F_VALUE);
      if (ts_node_is_null(v)) {
        Kids ck = named(p, c);
        for (int j = 0; j < ck.n; j++)
          if (nk(p, ck.v[j]) != NK_BLOCK) { v = ck.v[j]; break; }
      }
      if (!ts_node_is_null(v)) {
        if (nk(p, v) == NK_AS_PATTERN) {
          TSNode val = field(v, F_VALUE), alias = field(v, F_ALIAS);
          Kids vk = named(p, v);
          if (ts_node_is_null(val) && vk.n) val = vk.v[0];
          h->type = ts_node_is_null(val) ? bad_node(p, v) : cv_expr(p, val);
          if (!ts_node_is_null(alias)) {
            TSNode id = alias;
            if (nk(p, alias) == NK_AS_PATTERN_TARGET) {
              Kids ak = named(p, alias);
              id = ak.n ? ak.v[0] : alias;
            }
            if (nk(p, id) != NK_IDENTIFIER) cv_err(p, id, "invalid syntax: expected a name after 'as'");
            else h->name = cv_ident(p, id);
          }
        } else {
          h->type = cv_expr(p, v);
        }
      }
      cv_block(p, clause_block(p, c), &h->body, c);
      fix_end(h);
      ast_list_push(p->a, &a->handlers, h);
      break;
    }
    case NK_ELSE_CLAUSE: cv_block(p, clause_block(p, c), &a->orelse, c); break;
    case NK_FINALLY_CLAUSE: cv_block(p, clause_block(p, c), &a->finalbody, c); break;
    case NK_BLOCK: break;
    default:
      if (unsupported_what(c)) cv_unsupported(p, c);
      break;
    }
  }
  for (int i = 0; i + 1 < a->handlers.n; i++)
    if (!a->handlers.items[i]->type) ast_err(p, a->handlers.items[i], "default 'except:' must be last");
  if (!a->handlers.n && !a->finalbody.n) cv_err(p, n, "expected 'except' or 'finally' block");
  return a;
}

static Ast *cv_with(P *p, TSNode n) {
  Ast *a = mk(p, A_WITH, n);
  Kids k = named(p, n);
  for (int i = 0; i < k.n; i++) {
    TSNode c = k.v[i];
    if (nk(p, c) != NK_WITH_CLAUSE && nk(p, c) != NK_WITH_ITEM) continue;
    Kids items = nk(p, c) == NK_WITH_ITEM ? (Kids){1, &k.v[i], &k.f[i]} : named(p, c);
    for (int j = 0; j < items.n; j++) {
      TSNode it = items.v[j];
      if (nk(p, it) != NK_WITH_ITEM) continue;
      Ast *wi = mk(p, A_WITHITEM, it);
      TSNode v = field(it, F_VALUE), alias = field(it, F_ALIAS);
      if (ts_node_is_null(v)) {
        Kids ik = named(p, it);
        if (ik.n) v = ik.v[0];
      }
      if (!ts_node_is_null(v) && nk(p, v) == NK_AS_PATTERN) {
        TSNode val = field(v, F_VALUE);
        Kids vk = named(p, v);
        if (ts_node_is_null(val) && vk.n) val = vk.v[0];
        alias = field(v, F_ALIAS);
        v = val;
      }
      wi->context_expr = ts_node_is_null(v) ? bad_node(p, it) : cv_expr(p, v);
      if (!ts_node_is_null(alias)) {
        TSNode t = alias;
        if (nk(p, alias) == NK_AS_PATTERN_TARGET) {
          Kids ak = named(p, alias);
          t = ak.n ? ak.v[0] : alias;
        }
        wi->optional_vars = cv_target(p, t, "assign to");
      }
      ast_list_push(p->a, &a->items, wi);
    }
  }
  cv_block(p, field(n, F_BODY), &a->body, n);
  return a;
}

static char *dotted(P *p, TSNode n) {
  if (nk(p, n) != NK_DOTTED_NAME) return cv_ident(p, n);
  Kids k = named(p, n);
  char *s = "";
  for (int i = 0; i < k.n; i++) {
    char *part = cv_ident(p, k.v[i]);
    s = i ? arena_printf(p->a, "%s.%s", s, part) : part;
  }
  return s;
}

static Ast *cv_alias(P *p, TSNode n) {
  Ast *a = mk(p, A_ALIAS, n);
  if (nk(p, n) == NK_ALIASED_IMPORT) {
    TSNode name = field(n, F_NAME), alias = field(n, F_ALIAS);
    a->name = ts_node_is_null(name) ? "?" : dotted(p, name);
    if (!ts_node_is_null(alias)) a->asname = cv_ident(p, alias);
  } else {
    a->name = dotted(p, n);
  }
  return a;
}

static Ast *cv_import_from(P *p, TSNode n) {
  Ast *a = mk(p, A_IMPORTFROM, n);
  Kids k = kids(p, n);
  for (int i = 0; i < k.n; i++) {
    TSNode c = k.v[i];
    if (k.f[i] && !strcmp(k.f[i], "module_name")) {
      if (nk(p, c) == NK_RELATIVE_IMPORT) cv_err(p, c, "relative imports are not supported");
      else a->name = dotted(p, c);
    } else if (k.f[i] && !strcmp(k.f[i], "name")) {
      Ast *al = cv_alias(p, c);
      if (strchr(al->name, '.')) cv_err(p, c, "invalid syntax: expected a name, not a dotted name");
      ast_list_push(p->a, &a->names, al);
    } else if (nk(p, c) == NK_WILDCARD_IMPORT) {
      Ast *al = mk(p, A_ALIAS, c);
      al->name = "*";
      ast_list_push(p->a, &a->names, al);
    }
  }
  if (!a->name) a->name = "?";
  bool paren = false;
  for (int i = 0; i < k.n; i++) paren |= !ts_node_is_named(k.v[i]) && ntype_is(k.v[i], "(");
  if (k.n && !paren && !ts_node_is_named(k.v[k.n - 1]) && ntype_is(k.v[k.n - 1], ","))
    cv_err(p, k.v[k.n - 1], "trailing comma not allowed without surrounding parentheses");
  return a;
}

static Ast *cv_names_stmt(P *p, TSNode n, AstKind kind) {
  Ast *a = mk(p, kind, n);
  Kids k = named(p, n);
  for (int i = 0; i < k.n; i++) {
    Ast *id = mk(p, A_NAME, k.v[i]);
    id->name = cv_ident(p, k.v[i]);
    ast_list_push(p->a, &a->names, id);
  }
  return a;
}

/* The single child of return/del/raise: expression or bare tuple. */
static TSNode first_named(P *p, TSNode n, const char *skip_field) {
  Kids k = kids(p, n);
  for (int i = 0; i < k.n; i++)
    if (ts_node_is_named(k.v[i]) && !(skip_field && k.f[i] && !strcmp(k.f[i], skip_field))) return k.v[i];
  TSNode z;
  memset(&z, 0, sizeof z);
  return z;
}

static Ast *cv_simple(P *p, TSNode n) {
  switch (nk(p, n)) {
  case NK_EXPRESSION_STATEMENT: {
    Kids k = named(p, n);
    if (k.n == 0) return bad_node(p, n);
    if (k.n == 1 && nk(p, k.v[0]) == NK_ASSIGNMENT) return cv_assignment(p, n, k.v[0]);
    if (k.n == 1 && nk(p, k.v[0]) == NK_AUGMENTED_ASSIGNMENT) return cv_augassign(p, n, k.v[0]);
    Ast *a = mk(p, A_EXPR, n);
    bool comma = false;
    Kids all = kids(p, n);
    for (int i = 0; i < all.n; i++) comma |= !ts_node_is_named(all.v[i]) && ntype_is(all.v[i], ",");
    if (k.n == 1 && !comma) {
      a->value = cv_expr(p, k.v[0]);
    } else {
      Ast *t = mk(p, A_TUPLE, n);
      for (int i = 0; i < k.n; i++) ast_list_push(p->a, &t->elts, cv_expr(p, k.v[i]));
      a->value = t;
    }
    return a;
  }
  case NK_RETURN_STATEMENT: {
    Ast *a = mk(p, A_RETURN, n);
    if (p->scope != S_FUNC && p->scope != S_UNKNOWN) cv_err(p, n, "'return' outside function");
    a->value = cv_value(p, first_named(p, n, NULL));
    return a;
  }
  case NK_PASS_STATEMENT: return mk(p, A_PASS, n);
  case NK_BREAK_STATEMENT:
    if (!p->loops && p->scope != S_UNKNOWN) cv_err(p, n, "'break' outside loop");
    return mk(p, A_BREAK, n);
  case NK_CONTINUE_STATEMENT:
    if (!p->loops && p->scope != S_UNKNOWN) cv_err(p, n, "'continue' not properly in loop");
    return mk(p, A_CONTINUE, n);
  case NK_DELETE_STATEMENT: {
    Ast *a = mk(p, A_DELETE, n);
    TSNode c = first_named(p, n, NULL);
    if (ts_node_is_null(c)) return a;
    if (nk(p, c) == NK_EXPRESSION_LIST) {
      Kids k = named(p, c);
      for (int i = 0; i < k.n; i++) ast_list_push(p->a, &a->targets, cv_target(p, k.v[i], "delete"));
    } else {
      ast_list_push(p->a, &a->targets, cv_target(p, c, "delete"));
    }
    return a;
  }
  case NK_RAISE_STATEMENT: {
    Ast *a = mk(p, A_RAISE, n);
    TSNode cause = field(n, F_CAUSE);
    TSNode e = first_named(p, n, "cause");
    if (!ts_node_is_null(e) && nk(p, e) == NK_EXPRESSION_LIST)
      cv_err(p, e, "invalid syntax: raise takes one exception");
    a->exc = cv_value(p, e);
    if (!ts_node_is_null(cause)) a->value = cv_value(p, cause);
    return a;
  }
  case NK_GLOBAL_STATEMENT: return cv_names_stmt(p, n, A_GLOBAL);
  case NK_NONLOCAL_STATEMENT:
    if (p->scope == S_MODULE) cv_err(p, n, "nonlocal declaration not allowed at module level");
    return cv_names_stmt(p, n, A_NONLOCAL);
  case NK_ASSERT_STATEMENT: {
    Ast *a = mk(p, A_ASSERT, n);
    Kids k = named(p, n);
    a->test = k.n ? cv_expr(p, k.v[0]) : bad_node(p, n);
    if (k.n > 1) a->msg = cv_expr(p, k.v[1]);
    return a;
  }
  case NK_IMPORT_STATEMENT: {
    Ast *a = mk(p, A_IMPORT, n);
    Kids all = kids(p, n);
    if (all.n && ntype_is(all.v[all.n - 1], ","))
      cv_err(p, all.v[all.n - 1], "trailing comma not allowed without surrounding parentheses");
    Kids k = named(p, n);
    for (int i = 0; i < k.n; i++) ast_list_push(p->a, &a->names, cv_alias(p, k.v[i]));
    return a;
  }
  case NK_IMPORT_FROM_STATEMENT: return cv_import_from(p, n);
  case NK_PRINT_STATEMENT:
    cv_err(p, n, "Missing parentheses in call to 'print'. Did you mean print(...)?");
    return bad_node(p, n);
  default: return NULL;
  }
}

static void cv_stmt(P *p, TSNode n, AstList *out) {
  Ast *a = NULL;
  switch (nk(p, n)) {
  case NK_IF_STATEMENT: a = cv_if(p, n); break;
  case NK_WHILE_STATEMENT: {
    a = mk(p, A_WHILE, n);
    TSNode c = field(n, F_CONDITION);
    a->test = ts_node_is_null(c) ? bad_node(p, n) : cv_expr(p, c);
    cv_loop_body(p, field(n, F_BODY), &a->body, n);
    cv_else(p, n, &a->orelse);
    break;
  }
  case NK_FOR_STATEMENT: {
    a = mk(p, A_FOR, n);
    TSNode l = field(n, F_LEFT), r = field(n, F_RIGHT);
    a->target = ts_node_is_null(l) ? bad_node(p, n) : cv_target(p, l, "assign to");
    a->iter = ts_node_is_null(r) ? bad_node(p, n) : cv_expr(p, r);
    for (uint32_t i = 0; i < ts_node_child_count(n); i++)
      if (ntype_is(ts_node_child(n, i), "async")) cv_err(p, n, "'async for' is not supported");
    cv_loop_body(p, field(n, F_BODY), &a->body, n);
    cv_else(p, n, &a->orelse);
    break;
  }
  case NK_FUNCTION_DEFINITION: a = cv_funcdef(p, n, NULL); break;
  case NK_CLASS_DEFINITION: a = cv_classdef(p, n, NULL); break;
  case NK_DECORATED_DEFINITION: {
    AstList decos = {NULL, 0, 0};
    Kids k = named(p, n);
    TSNode def = field(n, F_DEFINITION);
    for (int i = 0; i < k.n; i++) {
      if (nk(p, k.v[i]) == NK_DECORATOR) {
        Kids dk = named(p, k.v[i]);
        ast_list_push(p->a, &decos, dk.n ? cv_expr(p, dk.v[0]) : bad_node(p, k.v[i]));
      } else if (ts_node_is_null(def)) {
        def = k.v[i];
      }
    }
    if (ts_node_is_null(def)) {
      cv_err(p, n, "expected 'def' or 'class' after a decorator");
      return;
    }
    if (nk(p, def) == NK_FUNCTION_DEFINITION) a = cv_funcdef(p, def, &decos);
    else if (nk(p, def) == NK_CLASS_DEFINITION) a = cv_classdef(p, def, &decos);
    else a = cv_unsupported(p, def);
    break;
  }
  case NK_TRY_STATEMENT: a = cv_try(p, n); break;
  case NK_WITH_STATEMENT: a = cv_with(p, n); break;
  default:
    a = cv_simple(p, n);
    if (!a) {
      cv_unsupported(p, n);
      return;
    }
  }
  if (a->kind == A_IF || a->kind == A_WHILE || a->kind == A_FOR || a->kind == A_FUNCDEF || a->kind == A_CLASSDEF ||
      a->kind == A_TRY || a->kind == A_WITH)
    fix_end(a);
  ast_list_push(p->a, out, a);
}

/* ------------------------------------------------------------------------ */
/* tree-sitter's errors: regions the checker must explain, and the message  */
/* for any region it did not.                                               */

typedef struct Region {
  int first, last;            /* 1-based lines */
  TSNode node;
  TSNode hdr;                 /* R_EMPTY: the statement or clause that owns the block */
  int kind;                   /* R_ERROR, R_MISSING, R_EMPTY (an empty block) */
} Region;

enum { R_ERROR, R_MISSING, R_EMPTY };

typedef struct Regions { Region *v; int n, cap; } Regions;

static void region_add(Regions *r, TSNode n, TSNode hdr, int kind, int first, int last) {
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->v = realloc(r->v, sizeof *r->v * (size_t)r->cap);
    if (!r->v) abort();
  }
  r->v[r->n++] = (Region){first, last, n, hdr, kind};
}

/* Does statement `n` begin where Python begins one: at one of the lexer's
 * tokens, after a line end, a ';' or a suite's ':'?  (tree-sitter sometimes
 * splits `1ff` into two statements with nothing between them.) */
static bool stmt_starts_line(P *p, TSNode n) {
  uint32_t off = ts_node_start_byte(n);
  int lo = tok_lower(p, off);
  while (lo < p->ntok && p->toks[lo].off == off && (p->toks[lo].kind == T_INDENT || p->toks[lo].kind == T_DEDENT)) lo++;
  if (lo >= p->ntok || p->toks[lo].off != off || p->toks[lo].kind == T_EOF) return false;
  int k = lo - 1;
  while (k >= 0 && (p->toks[k].kind == T_INDENT || p->toks[k].kind == T_DEDENT)) k--;
  if (k < 0) return true;
  const Tok *prev = &p->toks[k];
  return prev->kind == T_NEWLINE || tok_is(p, prev, ";") || tok_is(p, prev, ":");
}

/* Node kinds that may hold a block (so statements), directly or through a clause. */
static bool holds_blocks(int k) {
  switch (k) {
  case NK_MODULE: case NK_BLOCK: case NK_IF_STATEMENT: case NK_ELIF_CLAUSE: case NK_ELSE_CLAUSE:
  case NK_WHILE_STATEMENT: case NK_FOR_STATEMENT: case NK_FUNCTION_DEFINITION: case NK_CLASS_DEFINITION:
  case NK_DECORATED_DEFINITION: case NK_TRY_STATEMENT: case NK_EXCEPT_CLAUSE: case NK_FINALLY_CLAUSE:
  case NK_WITH_STATEMENT:
    return true;
  default:
    return false;
  }
}

/* ERROR and MISSING nodes, and empty blocks in statements that are otherwise
 * whole (one inside a broken statement is an artifact of error recovery). */
static void collect_regions(P *p, TSNode root, Regions *r) {
  int cap = 64, depth = 0;
  TSNode *stack = malloc(sizeof *stack * (size_t)cap); /* ancestors of the cursor's node */
  if (!stack) abort();
  TSTreeCursor c = ts_tree_cursor_new(root);
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    int first = (int)ts_node_start_point(n).row + 1, last = (int)ts_node_end_point(n).row + 1;
    bool descend = true;
    if (nk(p, n) == NK_ERROR) {
      region_add(r, n, n, R_ERROR, first, last);
      descend = false;
    } else if (ts_node_is_missing(n)) {
      region_add(r, n, n, R_MISSING, first, last);
      descend = false;
    } else if (nk(p, n) == NK_BLOCK && ts_node_named_child_count(n) == 0 && depth > 0 &&
               !ts_node_has_error(stack[depth - 1])) {
      const Tok *t = tok_at(p, ts_node_start_byte(n));
      region_add(r, n, stack[depth - 1], R_EMPTY, first, t->line > last ? t->line : last);
    } else if (depth > 0 && (nk(p, stack[depth - 1]) == NK_MODULE || nk(p, stack[depth - 1]) == NK_BLOCK) &&
               ts_node_is_named(n) && !ts_node_is_extra(n) && !stmt_starts_line(p, n)) {
      region_add(r, n, n, R_ERROR, first, last);
    }
    /* below a simple statement or an expression there is no block and no statement: an error-free
     * one has nothing to report, and not walking its tokens is a fifth of this pass */
    if (descend && depth > 0 && !holds_blocks(nk(p, n)) && !ts_node_has_error(n)) descend = false;
    if (descend && ts_tree_cursor_goto_first_child(&c)) {
      if (depth == cap) {
        cap *= 2;
        stack = realloc(stack, sizeof *stack * (size_t)cap);
        if (!stack) abort();
      }
      stack[depth++] = n;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c)) {
        ts_tree_cursor_delete(&c);
        free(stack);
        return;
      }
      depth--;
    }
  }
}

/* First and last physical line of each logical line. */
static void lline_spans(P *p, int **first, int **last) {
  int n = p->nllines;
  *first = calloc((size_t)n + 1, sizeof **first);
  *last = calloc((size_t)n + 1, sizeof **last);
  if (!*first || !*last) abort();
  for (int i = 0; i < p->ntok; i++) {
    const Tok *t = &p->toks[i];
    if (t->lline < 0 || t->lline >= n || t->kind == T_EOF) continue;
    int l1 = t->line, l2;
    int c2;
    pos_of(p, t->end, &l2, &c2);
    if (t->kind == T_NEWLINE || t->kind == T_INDENT || t->kind == T_DEDENT) l2 = l1;
    if (!(*first)[t->lline] || l1 < (*first)[t->lline]) (*first)[t->lline] = l1;
    if (l2 > (*last)[t->lline]) (*last)[t->lline] = l2;
  }
}

/* The leaf that tree-sitter could not place: the last token of an ERROR. */
static TSNode last_leaf(TSNode n) {
  while (ts_node_child_count(n) > 0) n = ts_node_child(n, ts_node_child_count(n) - 1);
  return n;
}

static bool find_missing(TSNode n, TSNode *out, int depth) {
  if (ts_node_is_missing(n)) {
    *out = n;
    return true;
  }
  if (depth > 64) return false;
  uint32_t c = ts_node_child_count(n);
  for (uint32_t i = 0; i < c; i++)
    if (find_missing(ts_node_child(n, i), out, depth + 1)) return true;
  return false;
}

static void missing_message(P *p, TSNode m) {
  const char *t = ts_node_type(m);
  TSPoint s = ts_node_start_point(m);
  int line = (int)s.row + 1, col = (int)s.column + 1;
  if (!strcmp(t, "identifier")) perr(p, line, col, "expected an identifier");
  else if (!strcmp(t, "_indent") || !strcmp(t, "indent")) perr(p, line, col, "expected an indented block");
  else if (!strcmp(t, "string_end")) perr(p, line, col, "unterminated string literal");
  else if (!strcmp(t, "_newline") || !strcmp(t, "newline")) perr(p, line, col, "invalid syntax: expected end of line");
  else if (!strcmp(t, "_dedent") || !strcmp(t, "dedent")) perr(p, line, col, "invalid syntax: expected an unindent");
  else if (ts_node_is_named(m)) perr(p, line, col, "expected %s", t);
  else perr(p, line, col, "expected '%s'", t);
}

static void fallback(P *p, const Region *r) {
  if (r->kind == R_MISSING) {
    missing_message(p, r->node);
    return;
  }
  if (r->kind == R_EMPTY) {
    TSNode hdr = r->hdr;
    const Tok *t = tok_at(p, ts_node_start_byte(r->node));
    int line = t->line, col = t->col;
    if (ts_node_is_null(hdr)) perr(p, line, col, "expected an indented block");
    else
      perr(p, line, col, "expected an indented block after %s on line %d", block_owner(p, hdr),
           (int)ts_node_start_point(hdr).row + 1);
    return;
  }
  TSNode m;
  if (find_missing(r->node, &m, 0)) {
    missing_message(p, m);
    return;
  }
  TSNode leaf = last_leaf(r->node);
  TSPoint s = ts_node_start_point(leaf);
  size_t len;
  const char *tx = ntext(p, leaf, &len);
  if (len == 0) perr(p, (int)s.row + 1, (int)s.column + 1, "invalid syntax");
  else
    perr(p, (int)s.row + 1, (int)s.column + 1, "invalid syntax: unexpected '%s'",
         snippet(p, (size_t)(tx - p->src), len));
}

/* The nodes from root down to the smallest one spanning [off, off+1), as
 * ts_node_descendant_for_byte_range finds it, kept so that parents are an
 * index away: ts_node_parent walks down from the root on every call, which
 * made a deep expression with line ends in it quadratic (a fuzzed 3,000-term
 * chain took over 20 s).  Returns the path's length (>= 1). */
static int node_path(TSNode root, uint32_t off, TSNode **path, int *cap) {
  int n = 0;
  TSNode cur = root;
  for (;;) {
    if (n == *cap) {
      *cap = *cap ? *cap * 2 : 64;
      TSNode *np = realloc(*path, (size_t)*cap * sizeof **path);
      if (!np) abort();   /* as the other growable arrays here */
      *path = np;
    }
    (*path)[n++] = cur;
    TSNode c = ts_node_first_child_for_byte(cur, off);
    if (ts_node_is_null(c) || ts_node_start_byte(c) > off || ts_node_end_byte(c) < off + 1) return n;
    cur = c;
  }
}

/* tree-sitter treats a line end as blank space wherever a NEWLINE token
 * cannot follow (`x = 1 +` / `2` reads as one statement).  Python ends the
 * logical line there: every NEWLINE of the lexer must fall between
 * statements, or after a compound header's ':'.  Adds each statement that
 * swallows one as a region; returns how many. */
/* Marks the tokens in [lo, hi) that lie between a module's or block's children: a line end there
 * ends a statement, as it should (node_path would stop at the block). */
static void mark_gap(P *p, uint32_t lo, uint32_t hi, unsigned char *gap) {
  for (int a = tok_lower(p, lo); a < p->ntok && p->toks[a].off < hi; a++) gap[a] = 1;
}

/* Walks the nodes that hold blocks (module, blocks, compound statements, clauses) and marks the gaps
 * between each module's or block's children, in one pass over the statements. */
static void mark_gaps(P *p, TSTreeCursor *c, unsigned char *gap) {
  TSNode n = ts_tree_cursor_current_node(c);
  int k = nk(p, n);
  if (!holds_blocks(k) || !ts_tree_cursor_goto_first_child(c)) return;
  bool stmts = k == NK_MODULE || k == NK_BLOCK;
  uint32_t prev = ts_node_start_byte(n);
  do {
    TSNode ch = ts_tree_cursor_current_node(c);
    if (stmts) mark_gap(p, prev, ts_node_start_byte(ch), gap);
    prev = ts_node_end_byte(ch);
    mark_gaps(p, c, gap);
  } while (ts_tree_cursor_goto_next_sibling(c));
  ts_tree_cursor_goto_parent(c);
  if (stmts) mark_gap(p, prev, ts_node_end_byte(n), gap);
}

static int check_line_ends(P *p, TSNode root, Regions *r) {
  int found = 0;
  TSNode *path = NULL;
  int cap = 0;
  /* A line end between statements needs no look: walking down from the root for each of them was a
   * twelfth of parsing a long function (the descent into a block of n statements takes log n steps). */
  unsigned char *gap = calloc((size_t)p->ntok + 1, 1);
  if (!gap) abort();
  if (!ts_node_has_error(root)) {   /* error recovery can leave statements overlapping a line end */
    TSTreeCursor c = ts_tree_cursor_new(root);
    mark_gaps(p, &c, gap);
    ts_tree_cursor_delete(&c);
  }
  for (int i = 0; i < p->ntok; i++) {
    const Tok *t = &p->toks[i];
    if (t->kind != T_NEWLINE || t->off >= p->len || gap[i]) continue;
    int d = node_path(root, t->off, &path, &cap) - 1;
    TSNode n = path[d];
    while (d > 0 && ts_node_start_byte(n) == t->off && ts_node_end_byte(n) <= t->off + 1)
      n = path[--d]; /* a leaf at the newline itself: judge its parent */
    switch (nk(p, n)) {
    case NK_MODULE: case NK_BLOCK: continue;
    case NK_IF_STATEMENT: case NK_ELIF_CLAUSE: case NK_ELSE_CLAUSE: case NK_WHILE_STATEMENT: case NK_FOR_STATEMENT:
    case NK_FUNCTION_DEFINITION: case NK_CLASS_DEFINITION: case NK_TRY_STATEMENT: case NK_EXCEPT_CLAUSE:
    case NK_FINALLY_CLAUSE: case NK_WITH_STATEMENT: case NK_DECORATED_DEFINITION: {
      /* fine after ':' or after a nested block, clause or decorator */
      ArenaMark mark = arena_mark(&p->scratch);
      Kids k = kids(p, n);
      TSNode before;
      memset(&before, 0, sizeof before);
      for (int j = 0; j < k.n; j++)
        if (ts_node_end_byte(k.v[j]) <= t->off) before = k.v[j];
      arena_release(&p->scratch, mark);
      if (!ts_node_is_null(before)) {
        int bk = nk(p, before);
        if ((!ts_node_is_named(before) && ntype_is(before, ":")) || bk == NK_BLOCK || bk == NK_DECORATOR ||
            bk == NK_ELIF_CLAUSE || bk == NK_ELSE_CLAUSE || bk == NK_EXCEPT_CLAUSE || bk == NK_FINALLY_CLAUSE)
          continue;
      }
      break;
    }
    default: break;
    }
    /* the statement that holds the line end */
    while (d > 0 && nk(p, path[d - 1]) != NK_BLOCK && nk(p, path[d - 1]) != NK_MODULE) d--;
    TSNode st = path[d];
    region_add(r, st, st, R_ERROR, (int)ts_node_start_point(st).row + 1, (int)ts_node_end_point(st).row + 1);
    found++;
  }
  free(gap);
  free(path);
  return found;
}

/* ------------------------------------------------------------------------ */
/* Entry                                                                     */

typedef struct ErrCtx { Regions *r; int *first, *last; } ErrCtx;

static bool lline_in_regions(const ErrCtx *e, int ll) {
  if (ll < 0) return true;
  int a = e->first[ll], b = e->last[ll];
  if (!a) return true;
  if (ll > 0 && e->first[ll - 1]) a = e->first[ll - 1]; /* tree-sitter may stumble a line late */
  for (int i = 0; i < e->r->n; i++)
    if (e->r->v[i].first <= b && a <= e->r->v[i].last) return true;
  return false;
}

/* Report the errors of every region: the lexer's, the checker's, else tree-sitter's. */
static void report_syntax_errors(P *p, Regions r) {
  ErrCtx e = {&r, NULL, NULL};
  lline_spans(p, &e.first, &e.last);
  int n0 = p->d->n;
  /* Lines tree-sitter found fine are not the checker's to judge: mark them done. */
  for (int ll = 0; ll < p->nllines; ll++)
    if (!lline_in_regions(&e, ll)) p->lldone[ll] = 1;
  for (int i = 0; i < p->nlerrs; i++) {
    LexErr *le = &p->lerrs[i];
    if (le->cls == LE_STRAY_INDENT) {
      continue;
    } else if (le->cls != LE_OTHER) {
      /* errindex: - (passes on a message indexed where it is made) */
      perr(p, le->line, le->col, "%s", le->msg);
      if (le->lline >= 0 && le->lline < p->nllines) p->lldone[le->lline] = 1;
    } else if (le->lline < 0 || le->lline >= p->nllines || !p->lldone[le->lline]) {
      /* errindex: - (passes on a message indexed where it is made) */
      perr(p, le->line, le->col, "%s", le->msg);
      if (le->lline >= 0 && le->lline < p->nllines) p->lldone[le->lline] = 1;
    }
  }
  check_file(p);
  /* Every region gets a message: the checker's if one fell inside it or in
   * the logical line before or after it (tree-sitter reads past a line end and
   * may stumble a line later or earlier than Python does). */
  for (int i = 0; i < r.n; i++) {
    int lo = r.v[i].first, hi = r.v[i].last;
    const Tok *t0 = tok_at(p, ts_node_start_byte(r.v[i].node));
    int ll = t0->lline;
    if (t0->kind == T_EOF) ll = p->nllines - 1;
    for (int k = ll - 1; k <= ll + 1; k++)
      if (k >= 0 && k < p->nllines && e.first[k]) {
        if (e.first[k] < lo) lo = e.first[k];
        if (e.last[k] > hi) hi = e.last[k];
      }
    bool covered = false;
    for (int j = n0; j < p->d->n && !covered; j++) covered = p->d->items[j].line >= lo && p->d->items[j].line <= hi;
    if (!covered) fallback(p, &r.v[i]);
  }
  free(e.first);
  free(e.last);
}

/* On a tree with syntax errors, the statements clear of every region still get
 * the converter's checks (keyword argument repeated, cannot assign to, ...). */
static void convert_clean_statements(P *p, TSNode root, const Regions *r) {
  p->errtree = true;
  p->scope = S_UNKNOWN;
  AstList scratch = {NULL, 0, 0};
  Kids k = named(p, root);
  for (int i = 0; i < k.n; i++) {
    uint32_t sb = ts_node_start_byte(k.v[i]), eb = ts_node_end_byte(k.v[i]);
    bool clear = !ts_node_has_error(k.v[i]);
    for (int j = 0; j < r->n && clear; j++)
      clear = !(ts_node_start_byte(r->v[j].node) <= eb && sb <= ts_node_end_byte(r->v[j].node));
    if (clear) cv_stmt(p, k.v[i], &scratch);
  }
}

Ast *parse_source(Arena *arena, const char *path, const char *src, size_t len, DiagList *diags) {
  P p;
  memset(&p, 0, sizeof p);
  p.a = arena;
  p.path = path;
  p.src = src;
  p.len = len;
  p.d = diags;
  p.lang = tree_sitter_tfs();
  if (len >= UINT32_MAX) { /* offsets are 32-bit here and in tree-sitter */
    perr(&p, 1, 1, "source file too large");
    return NULL;
  }

  /* line table */
  int cap = 64;
  p.lines = malloc(sizeof *p.lines * (size_t)cap);
  if (!p.lines) abort();
  p.lines[p.nlines++] = 0;
  for (size_t i = 0; i < len; i++) {
    if (src[i] != '\n') continue;
    if (p.nlines == cap) {
      cap *= 2;
      p.lines = realloc(p.lines, sizeof *p.lines * (size_t)cap);
      if (!p.lines) abort();
    }
    p.lines[p.nlines++] = (uint32_t)(i + 1);
  }

  lex(&p);
  p.lldone = calloc((size_t)p.nllines + 1, 1);
  if (!p.lldone) abort();
  nk_init(&p);

  Ast *mod = NULL;
  TsMem tsm;
  tsmem_begin(&tsm, len);
  TSParser *ts = ts_parser_new();
  TSTree *tree = NULL;
  if (p.too_nested) {
    /* errindex: - (passes on a message indexed where it is made) */
    for (int i = 0; i < p.nlerrs; i++) perr(&p, p.lerrs[i].line, p.lerrs[i].col, "%s", p.lerrs[i].msg);
  } else if (!ts_parser_set_language(ts, p.lang)) {
    perr(&p, 1, 1, "internal error: the tfs grammar does not match the tree-sitter library version");
  } else if (!(tree = ts_parser_parse_string(ts, NULL, src, (uint32_t)len))) {
    perr(&p, 1, 1, "internal error: the source could not be parsed");
  } else {
    tsmem_seal(&tsm);
    TSNode root = ts_tree_root_node(tree);
    Regions r = {NULL, 0, 0};
    check_line_ends(&p, root, &r);
    collect_regions(&p, root, &r);
    if (r.n) {
      report_syntax_errors(&p, r);
      if (!p.nerr) perr(&p, 1, 1, "invalid syntax");
      convert_clean_statements(&p, root, &r);
    } else {
      for (int i = 0; i < p.nlerrs; i++)
        if (p.lerrs[i].cls != LE_NUMBER && p.lerrs[i].cls != LE_OTHER)
          /* errindex: - (passes on a message indexed where it is made) */
          perr(&p, p.lerrs[i].line, p.lerrs[i].col, "%s", p.lerrs[i].msg);
      mod = mk(&p, A_MODULE, root);
      mod->line = mod->col = 1;
      p.scope = S_MODULE;
      Kids k = named(&p, root);
      ArenaMark mark = arena_mark(&p.scratch);
      for (int i = 0; i < k.n; i++) {
        cv_stmt(&p, k.v[i], &mod->body);
        arena_release(&p.scratch, mark);
      }
    }
    free(r.v);
  }
  if (tree) ts_tree_delete(tree);
  ts_parser_delete(ts);
  tsmem_end(&tsm);
  arena_free(&p.scratch);
  free(p.lines);
  free(p.toks);
  free(p.lerrs);
  free(p.lldone);
  free(p.nk);
  return p.nerr ? NULL : mod;
}
