/* ast.c — AST node construction and kind names. */
#include "ast.h"

#include <string.h>

static const char *const kind_names[A__COUNT] = {
    "Module",   "FunctionDef", "ClassDef", "Return",   "Delete",         "Assign",   "AugAssign",
    "For",      "While",       "If",       "With",     "Raise",          "Try",      "Assert",
    "Import",   "ImportFrom",  "Global",   "Nonlocal", "Expr",           "Pass",     "Break",
    "Continue", "BoolOp",      "BinOp",    "UnaryOp",  "Lambda",         "IfExp",    "Dict",
    "Compare",  "Call",        "JoinedStr", "FormattedValue", "Constant", "Attribute", "Subscript",
    "Starred",  "Name",        "List",     "Tuple",    "Slice",          "Set",      "ListComp",
    "SetComp",  "GeneratorExp", "DictComp", "Yield", "YieldFrom", "arg",     "keyword",        "alias",    "withitem",
    "ExceptHandler", "comprehension",
};

#define F(f) AF_BIT(f) |
/* The fields each kind uses (ast.h's enum comments; the parser, AutoGraph and
 * code generator agree with it: the ASan tests read no other field). */
const uint64_t ast_kind_fields[A__COUNT] = {
    [A_MODULE] = F(body) 0,
    [A_FUNCDEF] = F(name) F(args) F(body) F(decorators) 0,
    [A_CLASSDEF] = F(name) F(bases) F(keywords) F(body) F(decorators) 0,
    [A_RETURN] = F(value) 0,
    [A_DELETE] = F(targets) 0,
    [A_ASSIGN] = F(targets) F(value) F(name) 0,
    [A_AUGASSIGN] = F(target) F(value) 0,
    [A_FOR] = F(target) F(iter) F(body) F(orelse) 0,
    [A_WHILE] = F(test) F(body) F(orelse) 0,
    [A_IF] = F(test) F(body) F(orelse) 0,
    [A_WITH] = F(items) F(body) 0,
    [A_RAISE] = F(exc) F(value) 0,
    [A_TRY] = F(body) F(handlers) F(orelse) F(finalbody) 0,
    [A_ASSERT] = F(test) F(msg) 0,
    [A_IMPORT] = F(names) 0,
    [A_IMPORTFROM] = F(name) F(names) 0,
    [A_GLOBAL] = F(names) 0,
    [A_NONLOCAL] = F(names) 0,
    [A_EXPR] = F(value) 0,
    [A_PASS] = F(name) 0,
    [A_BREAK] = 0,
    [A_CONTINUE] = 0,
    [A_BOOLOP] = F(values) 0,
    [A_BINOP] = F(left) F(right) 0,
    [A_UNARYOP] = F(operand) 0,
    [A_LAMBDA] = F(args) F(value) 0,
    [A_IFEXP] = F(test) F(left) F(right) 0,
    [A_DICT] = F(keys) F(values) 0,
    [A_COMPARE] = F(left) F(ops) F(comparators) 0,
    [A_CALL] = F(func) F(args) F(keywords) 0,
    [A_JOINEDSTR] = F(values) 0,
    [A_FORMATTEDVALUE] = F(value) F(format_spec) 0,
    [A_CONSTANT] = F(str) F(slen) F(ival) F(fval) 0,
    [A_ATTRIBUTE] = F(value) F(name) 0,
    [A_SUBSCRIPT] = F(value) F(slice) 0,
    [A_STARRED] = F(value) 0,
    [A_NAME] = F(name) 0,
    [A_LIST] = F(elts) 0,
    [A_TUPLE] = F(elts) 0,
    [A_SLICE] = F(lower) F(upper) F(step) 0,
    [A_SET] = F(elts) 0,
    [A_LISTCOMP] = F(value) F(generators) 0,
    [A_SETCOMP] = F(value) F(generators) 0,
    [A_GENEXP] = F(value) F(generators) 0,
    [A_DICTCOMP] = F(key) F(value) F(generators) 0,
    [A_YIELD] = F(value) 0,
    [A_YIELDFROM] = F(value) 0,
    [A_ARG] = F(name) F(deflt) 0,
    [A_KEYWORD] = F(name) F(value) 0,
    [A_ALIAS] = F(name) F(asname) 0,
    [A_WITHITEM] = F(context_expr) F(optional_vars) 0,
    [A_EXCEPTHANDLER] = F(type) F(name) F(body) 0,
    [A_COMPREHENSION] = F(target) F(iter) F(ifs) 0,
};
#undef F

#define OFF(f) [AF_##f] = offsetof(Ast, f),
#define SIZE(f) [AF_##f] = sizeof(((Ast *)0)->f),
#define NAME(f) [AF_##f] = #f,
const uint16_t ast_field_offset[AF__COUNT] = {AST_PTR_FIELDS(OFF) AST_LIST_FIELDS(OFF) AST_DATA_FIELDS(OFF)};
const uint16_t ast_field_size[AF__COUNT] = {AST_PTR_FIELDS(SIZE) AST_LIST_FIELDS(SIZE) AST_DATA_FIELDS(SIZE)};
const char *const ast_field_names[AF__COUNT] = {AST_PTR_FIELDS(NAME) AST_LIST_FIELDS(NAME) AST_DATA_FIELDS(NAME)};
#undef OFF
#undef SIZE
#undef NAME

size_t ast_size(AstKind kind) {
  size_t end = offsetof(Ast, name); /* the header every kind has */
  for (uint64_t m = ast_kind_fields[kind]; m; m &= m - 1) {
    int f = __builtin_ctzll(m);
    size_t e = (size_t)ast_field_offset[f] + ast_field_size[f];
    if (e > end) end = e;
  }
  return end;
}

/* Under ASan the node gets the whole struct with the bytes past its kind's
 * size poisoned, so a read of a field the kind lacks is reported (the arena
 * unpoisons bytes it serves again). */
static Ast *alloc_node(Arena *a, AstKind kind) {
#ifdef ARENA_ASAN
  Ast *n = arena_alloc(a, sizeof *n);
  size_t size = ast_size(kind);
  ASAN_POISON_MEMORY_REGION((char *)n + size, sizeof *n - size);
#else
  Ast *n = arena_alloc(a, ast_size(kind));
#endif
  return n;
}

bool ast_blocks_next(AstBlocks *b) {
  static const AstField own[] = {AF_body, AF_orelse, AF_finalbody};
  while (b->i < 3) {
    AstField f = own[b->i++];
    if (ast_has(b->s, f)) return (b->cur = ast_list_field(b->s, f)), true;
  }
  if (!ast_has(b->s, AF_handlers)) return false;
  while (b->i - 3 < b->s->handlers.n) {
    Ast *h = b->s->handlers.items[b->i++ - 3];
    if (h) return (b->cur = &h->body), true;
  }
  return false;
}

Ast *ast_clone(Arena *a, const Ast *n) {
  Ast *c = alloc_node(a, n->kind);
  memcpy(c, n, ast_size(n->kind));
  return c;
}

Ast ast_whole(const Ast *n) {
  Ast w = {0};
  memcpy(&w, n, ast_size(n->kind));
  return w;
}

Ast *ast_new(Arena *a, AstKind kind, int line, int col) {
  Ast *n = alloc_node(a, kind);
  n->kind = kind;
  n->line = n->end_line = line;
  n->col = n->end_col = col;
  return n;
}

void ast_list_push(Arena *a, AstList *l, Ast *node) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 4;
    Ast **items = arena_alloc(a, sizeof *items * (size_t)cap);
    if (l->n) memcpy(items, l->items, sizeof *items * (size_t)l->n);
    l->items = items;
    l->cap = cap;
  }
  l->items[l->n++] = node;
}

const char *ast_kind_name(AstKind kind) { return kind >= 0 && kind < A__COUNT ? kind_names[kind] : "?"; }
