/* ast.h — the abstract syntax tree of .tfs (modelled on Python's `ast` module), arena-allocated. */
#ifndef TFS_AST_H
#define TFS_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct Ast Ast;
typedef struct AstList { Ast **items; int n, cap; } AstList;

/* ORDER AST: ast_kind_name() in ast.c follows this enum. */
typedef enum AstKind {
  /* module */
  A_MODULE,          /* body */
  /* statements */
  A_FUNCDEF,         /* name, args (A_ARG list), body, decorators */
  A_CLASSDEF,        /* name, bases, body, decorators */
  A_RETURN,          /* value (may be NULL) */
  A_DELETE,          /* targets */
  A_ASSIGN,          /* targets (chained a = b = v: several), value */
  A_AUGASSIGN,       /* target, op (BIN_*), value */
  A_FOR,             /* target, iter, body, orelse */
  A_WHILE,           /* test, body, orelse */
  A_IF,              /* test, body, orelse (elif: orelse holds one A_IF) */
  A_WITH,            /* items (A_WITHITEM list), body */
  A_RAISE,           /* exc (may be NULL), cause in `value` (may be NULL) */
  A_TRY,             /* body, handlers (A_EXCEPTHANDLER list), orelse, finalbody */
  A_ASSERT,          /* test, msg (may be NULL) */
  A_IMPORT,          /* names (A_ALIAS list) */
  A_IMPORTFROM,      /* module (str), names (A_ALIAS list) */
  A_GLOBAL,          /* names (A_NAME nodes, id in `name`) */
  A_NONLOCAL,        /* names (A_NAME nodes, id in `name`) */
  A_EXPR,            /* value */
  A_PASS, A_BREAK, A_CONTINUE,
  /* expressions */
  A_BOOLOP,          /* op (BOOL_AND/BOOL_OR), values (2 or more) */
  A_BINOP,           /* left, op (BIN_*), right */
  A_UNARYOP,         /* op (UN_*), operand */
  A_LAMBDA,          /* args, body (single expression in `value`) */
  A_IFEXP,           /* test, body (in `left`), orelse (in `right`) */
  A_DICT,            /* keys (NULL item for `**d`), values */
  A_COMPARE,         /* left, ops (CMP_* in `ops`), comparators */
  A_CALL,            /* func, args, keywords (A_KEYWORD list) */
  A_JOINEDSTR,       /* values: A_CONSTANT str parts and A_FORMATTEDVALUE */
  A_FORMATTEDVALUE,  /* value, conversion ('r','s' or 0), format_spec (A_JOINEDSTR or NULL) */
  A_CONSTANT,        /* const_kind + ival/fval/str */
  A_ATTRIBUTE,       /* value, attr */
  A_SUBSCRIPT,       /* value, slice (index expr, A_SLICE, or A_TUPLE of them) */
  A_STARRED,         /* value */
  A_NAME,            /* id */
  A_LIST,            /* elts */
  A_TUPLE,           /* elts */
  A_SLICE,           /* lower, upper, step (each may be NULL) */
  A_SET,             /* elts */
  A_LISTCOMP,        /* value (the element), generators (A_COMPREHENSION list) */
  A_SETCOMP,         /* value, generators */
  A_GENEXP,          /* value, generators */
  A_DICTCOMP,        /* key, value, generators */
  A_YIELD,           /* value (may be NULL) */
  A_YIELDFROM,       /* value */
  /* helpers */
  A_ARG,             /* arg name, default (may be NULL) */
  A_KEYWORD,         /* arg (NULL for **kwargs), value */
  A_ALIAS,           /* name (dotted), asname (may be NULL) */
  A_WITHITEM,        /* context_expr, optional_vars (may be NULL) */
  A_EXCEPTHANDLER,   /* type (may be NULL), name (may be NULL), body */
  A_COMPREHENSION,   /* target, iter, ifs: one `for target in iter if ...` clause */
  A__COUNT
} AstKind;

typedef enum ConstKind { C_NONE, C_TRUE, C_FALSE, C_INT, C_FLOAT, C_STR, C_ELLIPSIS, C_IMAG, C_BYTES, C_BIGINT } ConstKind;   /* C_IMAG: `2.5j`, the imaginary part in fval; C_BYTES: b"..", its bytes in str/slen */
/* C_BIGINT: an int in (INT64_MAX, 2**64): a literal or a folded int-only constant expression, its bits in ival;
 * a literal beyond 2**64 - 1 has its decimal digits in str instead (made by GMP at run time) */
enum { BOOL_AND, BOOL_OR };

/* One struct for every kind, but each node is allocated only as long as its
 * kind needs (ast_size): the fields a kind uses are listed in ast.c's table,
 * and the frequent small kinds' fields come first so their nodes are short
 * (a NAME is 48 bytes, not the whole struct).  Reading a field the kind does
 * not have reads past the node: check the kind first (ASan builds poison
 * those bytes, so the tests catch it).  Field names follow Python's ast so
 * converters read like AutoGraph. */
struct Ast {
  /* every kind */
  AstKind kind;
  int line, col;             /* 1-based start (col in bytes) */
  int end_line, end_col;     /* 1-based, exclusive end column */
  int op;                    /* BIN_*, UN_*, BOOL_*, conversion char */
  ConstKind const_kind;
  int id;                    /* scratch for passes (e.g. scope analysis) */
  bool is_star;              /* ARG: *args; KEYWORD: **kwargs (arg NULL) */
  bool is_kwstar;            /* ARG: **kwargs (is_star is set too).  ARG with is_star and name NULL: a bare '*' */
  bool is_posonly;           /* ARG: before a '/' (positional-only) */
  bool parenthesized;        /* TUPLE written with parentheses */
  int level;                 /* IMPORTFROM: leading dots (unused: always 0) */
  /* per kind, most used first (see ast_size) */
  const char *name;          /* FUNCDEF/CLASSDEF/ARG/ALIAS/EXCEPTHANDLER name, NAME id, ATTRIBUTE attr, KEYWORD arg, IMPORTFROM module */
  Ast *value;
  Ast *left, *right;
  AstList targets;
  Ast *func;
  AstList args, keywords;
  const char *str;           /* C_STR value (may contain NULs: see slen) */
  size_t slen;               /* length of `str` for C_STR */
  int64_t ival;
  double fval;
  AstList elts;
  Ast *deflt;
  int *ops;                  /* COMPARE: comparators.n operators */
  AstList comparators;
  Ast *operand, *target, *iter, *test;
  AstList body, orelse;
  Ast *slice;
  AstList values, keys, generators, ifs;
  const char *asname;        /* ALIAS */
  AstList decorators, bases, names, items, finalbody, handlers;
  Ast *lower, *upper, *step, *msg, *exc, *type, *context_expr, *optional_vars, *format_spec, *key;
};

/* Every pointer and list field of Ast (in the order walkers visit them),
 * then the other per-kind fields. */
#define AST_PTR_FIELDS(X)                                                                                            \
  X(value) X(target) X(test) X(left) X(right) X(iter) X(func) X(slice) X(lower) X(upper) X(step) X(msg) X(exc)       \
  X(deflt) X(type) X(context_expr) X(optional_vars) X(format_spec) X(operand) X(key)
#define AST_LIST_FIELDS(X)                                                                                           \
  X(body) X(orelse) X(finalbody) X(handlers) X(targets) X(args) X(keywords) X(decorators) X(bases) X(values) X(keys) \
  X(elts) X(comparators) X(names) X(items) X(generators) X(ifs)
#define AST_DATA_FIELDS(X) X(name) X(asname) X(str) X(slen) X(ival) X(fval) X(ops)

#define AST_FIELD_ENUM_(f) AF_##f,
typedef enum AstField {
  AST_PTR_FIELDS(AST_FIELD_ENUM_) AST_LIST_FIELDS(AST_FIELD_ENUM_) AST_DATA_FIELDS(AST_FIELD_ENUM_) AF__COUNT
} AstField;
#undef AST_FIELD_ENUM_
#define AF_BIT(f) ((uint64_t)1 << AF_##f)
#define AF_PTR_MASK (((uint64_t)1 << AF_body) - 1)
#define AF_LIST_MASK ((((uint64_t)1 << AF_name) - 1) & ~AF_PTR_MASK)

/* Per kind: the AF_BIT set of the fields it uses (the header, kind to
 * level, belongs to every kind); per field: its offset and size. */
extern const uint64_t ast_kind_fields[A__COUNT];
extern const uint16_t ast_field_offset[AF__COUNT], ast_field_size[AF__COUNT];
extern const char *const ast_field_names[AF__COUNT];
/* Bytes a node of this kind occupies: the end of its last field. */
size_t ast_size(AstKind kind);
/* C_BIGINT's value: ival's 64 bits read unsigned */
static inline uint64_t ast_bigint(const Ast *n) { return (uint64_t)n->ival; }
static inline bool ast_has(const Ast *n, AstField f) { return ast_kind_fields[n->kind] >> f & 1; }
static inline Ast **ast_ptr_field(const Ast *n, int f) { return (Ast **)((char *)n + ast_field_offset[f]); }
static inline AstList *ast_list_field(const Ast *n, int f) { return (AstList *)((char *)n + ast_field_offset[f]); }
/* n's child in field f, or NULL when n's kind has no such field. */
static inline Ast *ast_child(const Ast *n, AstField f) { return ast_has(n, f) ? *ast_ptr_field(n, f) : NULL; }
/* The blocks nested directly in a statement of any kind (body, orelse,
 * finalbody, then each except handler's body; those its kind has):
 *   for (AstBlocks b = ast_blocks(s); ast_blocks_next(&b);) walk(b.cur); */
typedef struct AstBlocks { const Ast *s; int i; AstList *cur; } AstBlocks;
static inline AstBlocks ast_blocks(const Ast *s) { return (AstBlocks){s, 0, NULL}; }
bool ast_blocks_next(AstBlocks *b);
/* A node's child slots, in AST_PTR_FIELDS/AST_LIST_FIELDS order:
 *   AST_FOR_FIELDS(f, n, AF_PTR_MASK) { Ast **p = ast_ptr_field(n, f); ... } */
#define AST_FOR_FIELDS(f, n, mask)                                                                   \
  for (uint64_t f##_m_ = ast_kind_fields[(n)->kind] & (mask); f##_m_; f##_m_ &= f##_m_ - 1)           \
    for (int f = __builtin_ctzll(f##_m_), f##_once_ = 1; f##_once_; f##_once_ = 0)

Ast *ast_new(Arena *a, AstKind kind, int line, int col);
/* A shallow copy of n (its own kind's bytes; children and strings shared). */
Ast *ast_clone(Arena *a, const Ast *n);
/* The same into a whole struct (a stack Ast): the bytes past n's kind are zero. */
Ast ast_whole(const Ast *n);
void ast_list_push(Arena *a, AstList *l, Ast *node);
const char *ast_kind_name(AstKind kind);

#endif
