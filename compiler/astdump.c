/* astdump.c — render an AST as Python-ast.dump-like text, for tests and debugging. */
#include "astdump.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/abi.h"

typedef struct Out { char *s; size_t n, cap; } Out;

static void put(Out *o, const char *s, size_t n) {
  if (o->n + n + 1 > o->cap) {
    size_t cap = o->cap ? o->cap : 256;
    while (o->n + n + 1 > cap) cap *= 2;
    char *t = realloc(o->s, cap);
    if (!t) abort();
    o->s = t;
    o->cap = cap;
  }
  memcpy(o->s + o->n, s, n);
  o->n += n;
  o->s[o->n] = 0;
}

static void puts_(Out *o, const char *s) { put(o, s, strlen(s)); }

static void printf_(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(Out *o, const char *fmt, ...) {
  char buf[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  put(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Python-repr-like quoting: single quotes, escapes for control bytes; UTF-8 as is. */
static void quote(Out *o, const char *s, size_t n, bool by) {
  if (by) puts_(o, "b");
  bool sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
  char q = sq && !dq ? '"' : '\'';
  put(o, &q, 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\\') puts_(o, "\\\\");
    else if (c == (unsigned char)q) { puts_(o, "\\"); put(o, &q, 1); }
    else if (c == '\n') puts_(o, "\\n");
    else if (c == '\t') puts_(o, "\\t");
    else if (c == '\r') puts_(o, "\\r");
    else if (c < 0x20 || c == 0x7F || (by && c >= 0x80)) printf_(o, "\\x%02x", c);
    else put(o, (const char *)&c, 1);
  }
  put(o, &q, 1);
}

/* Python's float repr: the shortest digits that read back as the same double,
 * fixed notation for exponents -4..15, else d.ddde+XX. */
static void dump_float(Out *o, double v) {
  if (isnan(v)) { puts_(o, "nan"); return; }
  if (isinf(v)) { puts_(o, v < 0 ? "-inf" : "inf"); return; }
  char buf[64];
  int prec = 1;
  for (; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (strtod(buf, NULL) == v) break;
  }
  snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
  char *e = strchr(buf, 'e');
  int exp = e ? atoi(e + 1) : 0;
  if (exp >= -4 && exp < 16) {
    int decimals = prec - 1 - exp;
    snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, v);
    puts_(o, buf);
    if (!strchr(buf, '.')) puts_(o, ".0");
    return;
  }
  *e = 0;
  printf_(o, "%se%c%02d", buf, exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
}

static const char *const binop_names[BIN__COUNT] = {"Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow",
                                                    "MatMult", "LShift", "RShift", "BitAnd", "BitOr", "BitXor"};
static const char *const cmp_names[] = {"Lt", "LtE", "Gt", "GtE", "Eq", "NotEq", "Is", "IsNot", "In", "NotIn"};
static const char *const unop_names[] = {"USub", "UAdd", "Invert", "Not"};

static void dump(Out *o, const Ast *a);

/* Field writer: commas between the fields a node actually shows. */
typedef struct F { Out *o; int n; } F;

static void key(F *f, const char *k) {
  if (f->n++) puts_(f->o, ", ");
  if (k) {
    puts_(f->o, k);
    puts_(f->o, "=");
  }
}

static void fnode(F *f, const char *k, const Ast *a) {
  if (!a) return;
  key(f, k);
  dump(f->o, a);
}

static void flist(F *f, const char *k, const AstList *l) {
  if (!l->n) return;
  key(f, k);
  puts_(f->o, "[");
  for (int i = 0; i < l->n; i++) {
    if (i) puts_(f->o, ", ");
    dump(f->o, l->items[i]);
  }
  puts_(f->o, "]");
}

static void fstr(F *f, const char *k, const char *s) {
  if (!s) return;
  key(f, k);
  quote(f->o, s, strlen(s), false);
}

static void fraw(F *f, const char *k, const char *text) {
  key(f, k);
  puts_(f->o, text);
}

static void dump_constant(Out *o, const Ast *a) {
  switch (a->const_kind) {
  case C_NONE: puts_(o, "None"); break;
  case C_TRUE: puts_(o, "True"); break;
  case C_FALSE: puts_(o, "False"); break;
  case C_ELLIPSIS: puts_(o, "..."); break;
  case C_INT: printf_(o, "%lld", (long long)a->ival); break;
  case C_BIGINT:
    if (a->str) printf_(o, "%s", a->str);
    else printf_(o, "%llu", (unsigned long long)ast_bigint(a));
    break;
  case C_FLOAT: dump_float(o, a->fval); break;
  case C_IMAG: dump_float(o, a->fval); puts_(o, "j"); break;
  case C_STR: case C_BYTES: quote(o, a->str ? a->str : "", a->str ? a->slen : 0, a->const_kind == C_BYTES); break;
  }
}

static void dump(Out *o, const Ast *a) {
  if (!a) {
    puts_(o, "None");
    return;
  }
  if (a->kind == A_NAME) {
    puts_(o, "Name(");
    quote(o, a->name ? a->name : "?", a->name ? strlen(a->name) : 1, false);
    puts_(o, ")");
    return;
  }
  if (a->kind == A_CONSTANT) {
    puts_(o, "Constant(");
    dump_constant(o, a);
    puts_(o, ")");
    return;
  }
  puts_(o, ast_kind_name(a->kind));
  puts_(o, "(");
  F f = {o, 0};
  switch (a->kind) {
  case A_MODULE: flist(&f, "body", &a->body); break;
  case A_FUNCDEF:
    fstr(&f, "name", a->name);
    flist(&f, "args", &a->args);
    flist(&f, "body", &a->body);
    flist(&f, "decorators", &a->decorators);
    break;
  case A_CLASSDEF:
    fstr(&f, "name", a->name);
    flist(&f, "bases", &a->bases);
    flist(&f, "keywords", &a->keywords);
    flist(&f, "body", &a->body);
    flist(&f, "decorators", &a->decorators);
    break;
  case A_RETURN: fnode(&f, "value", a->value); break;
  case A_DELETE: flist(&f, "targets", &a->targets); break;
  case A_ASSIGN:
    flist(&f, "targets", &a->targets);
    fnode(&f, "value", a->value);
    break;
  case A_AUGASSIGN:
    fnode(&f, "target", a->target);
    fraw(&f, "op", a->op >= 0 && a->op < BIN__COUNT ? binop_names[a->op] : "?");
    fnode(&f, "value", a->value);
    break;
  case A_FOR:
    fnode(&f, "target", a->target);
    fnode(&f, "iter", a->iter);
    flist(&f, "body", &a->body);
    flist(&f, "orelse", &a->orelse);
    break;
  case A_WHILE: case A_IF:
    fnode(&f, "test", a->test);
    flist(&f, "body", &a->body);
    flist(&f, "orelse", &a->orelse);
    break;
  case A_WITH:
    flist(&f, "items", &a->items);
    flist(&f, "body", &a->body);
    break;
  case A_RAISE:
    fnode(&f, "exc", a->exc);
    fnode(&f, "cause", a->value);
    break;
  case A_TRY:
    flist(&f, "body", &a->body);
    flist(&f, "handlers", &a->handlers);
    flist(&f, "orelse", &a->orelse);
    flist(&f, "finalbody", &a->finalbody);
    break;
  case A_ASSERT:
    fnode(&f, "test", a->test);
    fnode(&f, "msg", a->msg);
    break;
  case A_IMPORT: flist(&f, "names", &a->names); break;
  case A_IMPORTFROM:
    fstr(&f, "module", a->name);
    flist(&f, "names", &a->names);
    break;
  case A_GLOBAL: case A_NONLOCAL:
    key(&f, "names");
    puts_(o, "[");
    for (int i = 0; i < a->names.n; i++) {
      const char *n = a->names.items[i]->name ? a->names.items[i]->name : "?";
      if (i) puts_(o, ", ");
      quote(o, n, strlen(n), false);
    }
    puts_(o, "]");
    break;
  case A_EXPR: fnode(&f, "value", a->value); break;
  case A_PASS: case A_BREAK: case A_CONTINUE: break;
  case A_BOOLOP:
    fraw(&f, "op", a->op == BOOL_OR ? "Or" : "And");
    flist(&f, "values", &a->values);
    break;
  case A_BINOP:
    fnode(&f, "left", a->left);
    fraw(&f, "op", a->op >= 0 && a->op < BIN__COUNT ? binop_names[a->op] : "?");
    fnode(&f, "right", a->right);
    break;
  case A_UNARYOP:
    fraw(&f, "op", a->op >= 0 && a->op <= UN_NOT ? unop_names[a->op] : "?");
    fnode(&f, "operand", a->operand);
    break;
  case A_LAMBDA:
    flist(&f, "args", &a->args);
    fnode(&f, "body", a->value);
    break;
  case A_IFEXP:
    fnode(&f, "test", a->test);
    fnode(&f, "body", a->left);
    fnode(&f, "orelse", a->right);
    break;
  case A_DICT:
    flist(&f, "keys", &a->keys);
    flist(&f, "values", &a->values);
    break;
  case A_COMPARE:
    fnode(&f, "left", a->left);
    key(&f, "ops");
    puts_(o, "[");
    for (int i = 0; i < a->comparators.n; i++) {
      int op = a->ops ? a->ops[i] : -1;
      if (i) puts_(o, ", ");
      puts_(o, op >= CMP_LT && op <= CMP_NOTIN ? cmp_names[op] : "?");
    }
    puts_(o, "]");
    flist(&f, "comparators", &a->comparators);
    break;
  case A_CALL:
    fnode(&f, "func", a->func);
    flist(&f, "args", &a->args);
    flist(&f, "keywords", &a->keywords);
    break;
  case A_JOINEDSTR:
    key(&f, "values");
    puts_(o, "[");
    for (int i = 0; i < a->values.n; i++) {
      if (i) puts_(o, ", ");
      dump(o, a->values.items[i]);
    }
    puts_(o, "]");
    break;
  case A_FORMATTEDVALUE: {
    fnode(&f, "value", a->value);
    if (a->op) {
      char c[4] = {'\'', (char)a->op, '\'', 0};
      fraw(&f, "conversion", c);
    }
    fnode(&f, "format_spec", a->format_spec);
    break;
  }
  case A_ATTRIBUTE:
    fnode(&f, "value", a->value);
    fstr(&f, "attr", a->name);
    break;
  case A_SUBSCRIPT:
    fnode(&f, "value", a->value);
    fnode(&f, "slice", a->slice);
    break;
  case A_STARRED: fnode(&f, "value", a->value); break;
  case A_LIST: case A_TUPLE: case A_SET: flist(&f, "elts", &a->elts); break;
  case A_LISTCOMP: case A_SETCOMP: case A_GENEXP:
    fnode(&f, "elt", a->value);
    flist(&f, "generators", &a->generators);
    break;
  case A_DICTCOMP:
    fnode(&f, "key", a->key);
    fnode(&f, "value", a->value);
    flist(&f, "generators", &a->generators);
    break;
  case A_YIELD: case A_YIELDFROM: fnode(&f, "value", a->value); break;
  case A_COMPREHENSION:
    fnode(&f, "target", a->target);
    fnode(&f, "iter", a->iter);
    flist(&f, "ifs", &a->ifs);
    break;
  case A_SLICE:
    fnode(&f, "lower", a->lower);
    fnode(&f, "upper", a->upper);
    fnode(&f, "step", a->step);
    break;
  case A_ARG:
    if (a->name) {
      key(&f, NULL);
      quote(o, a->name, strlen(a->name), false);
    }
    if (a->is_kwstar) fraw(&f, "kwstar", "True");
    else if (a->is_star) fraw(&f, "star", "True");
    fnode(&f, "default", a->deflt);
    break;
  case A_KEYWORD:
    fstr(&f, "arg", a->name);
    fnode(&f, "value", a->value);
    break;
  case A_ALIAS:
    fstr(&f, "name", a->name);
    fstr(&f, "asname", a->asname);
    break;
  case A_WITHITEM:
    fnode(&f, "context_expr", a->context_expr);
    fnode(&f, "optional_vars", a->optional_vars);
    break;
  case A_EXCEPTHANDLER:
    fnode(&f, "type", a->type);
    fstr(&f, "name", a->name);
    flist(&f, "body", &a->body);
    break;
  default: break;
  }
  puts_(o, ")");
}

char *ast_dump(const Ast *node) {
  Out o = {NULL, 0, 0};
  put(&o, "", 0);
  dump(&o, node);
  return o.s;
}
