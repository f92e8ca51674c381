/* test_parse.c — the front end (parse.c): constructs to AST dumps, locations, literals, f-strings, syntax errors. */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ag_int.h"
#include "ast.h"
#include "astdump.h"
#include "diag.h"
#include "parse.h"

/* ---- helpers ---------------------------------------------------------------------------------- */

typedef struct Case { const char *name, *src, *want; } Case;

static int diag_order(const void *x, const void *y) {
  const Diag *a = x, *b = y;
  return a->line != b->line ? a->line - b->line : a->col - b->col;
}

/* Diagnostics as "line:col: message" lines, in diag_print's order (by position, duplicates dropped). */
static char *errors_text(DiagList *d) {
  qsort(d->items, (size_t)d->n, sizeof *d->items, diag_order);
  size_t cap = 64, len = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (int i = 0; i < d->n; i++) {
    const Diag *g = &d->items[i];
    if (i > 0 && diag_order(g, g - 1) == 0 && !strcmp(g->msg, g[-1].msg)) continue;
    size_t need = strlen(g->msg) + 32;
    if (len + need >= cap) {
      while (len + need >= cap) cap *= 2;
      s = realloc(s, cap);
    }
    len += (size_t)snprintf(s + len, cap - len, "%d:%d: %s\n", g->line, g->col, g->msg);
  }
  return s;
}

/* The dump of src's AST; on errors, "ERRORS\n" and the errors, so a mismatch shows what happened. */
static char *parse_text_n(const char *src, size_t len) {
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, "t.tfs", src, len, &d);
  char *out;
  if (m) {
    ck_assert_int_eq(d.n, 0);
    out = ast_dump(m);
  } else {
    ck_assert_int_gt(d.n, 0);
    char *e = errors_text(&d);
    out = malloc(strlen(e) + 8);
    strcpy(out, "ERRORS\n");
    strcat(out, e);
    free(e);
  }
  diag_free(&d);
  arena_free(&a);
  return out;
}

static char *parse_text(const char *src) { return parse_text_n(src, strlen(src)); }

/* Parse a program that must be valid; the arena keeps the tree alive for the caller. */
static Ast *parse_ok(Arena *a, const char *src) {
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(a, "t.tfs", src, strlen(src), &d);
  if (!m) {
    char *e = errors_text(&d);
    ck_abort_msg("unexpected errors:\n%s", e);
  }
  diag_free(&d);
  return m;
}

#define ASSERT_LOC(node, l, c, el, ec)                                                                 \
  do {                                                                                                 \
    const Ast *n_ = (node);                                                                            \
    ck_assert_msg(n_->line == (l) && n_->col == (c) && n_->end_line == (el) && n_->end_col == (ec),     \
                  "%s at %d:%d-%d:%d, expected %d:%d-%d:%d", ast_kind_name(n_->kind), n_->line, n_->col, \
                  n_->end_line, n_->end_col, (l), (c), (el), (ec));                                     \
  } while (0)

/* ---- every construct: source -> dump (checked against CPython's ast when written) ------------- */

static const Case valid_cases[] = {
    {"listcomp",
     "x = [a * b for a in l if a for b in a]\n",
     "Module(body=[Assign(targets=[Name('x')], value=ListComp(elt=BinOp(left=Name('a'), op=Mult, "
     "right=Name('b')), generators=[comprehension(target=Name('a'), iter=Name('l'), "
     "ifs=[Name('a')]), comprehension(target=Name('b'), iter=Name('a'))]))])"},
    {"genexp_argument",
     "f(x for x in y)\n",
     "Module(body=[Expr(value=Call(func=Name('f'), args=[GeneratorExp(elt=Name('x'), "
     "generators=[comprehension(target=Name('x'), iter=Name('y'))])]))])"},
    {"dictcomp",
     "d = {k: v for k, v in p}\n",
     "Module(body=[Assign(targets=[Name('d')], value=DictComp(key=Name('k'), value=Name('v'), "
     "generators=[comprehension(target=Tuple(elts=[Name('k'), Name('v')]), iter=Name('p'))]))])"},
    {"set_display",
     "s = {1, *t}\n",
     "Module(body=[Assign(targets=[Name('s')], value=Set(elts=[Constant(1), "
     "Starred(value=Name('t'))]))])"},
    {"setcomp",
     "s = {v for v in w}\n",
     "Module(body=[Assign(targets=[Name('s')], value=SetComp(elt=Name('v'), "
     "generators=[comprehension(target=Name('v'), iter=Name('w'))]))])"},
    {"assign",
     "x = 1\n",
     "Module(body=[Assign(targets=[Name('x')], value=Constant(1))])"},
    {"chained_assign",
     "a = b = c\n",
     "Module(body=[Assign(targets=[Name('a'), Name('b')], value=Name('c'))])"},
    {"swap",
     "a, b = b, a\n",
     "Module(body=[Assign(targets=[Tuple(elts=[Name('a'), Name('b')])], value=Tuple(elts=[Name('b'), "
     "Name('a')]))])"},
    {"unpack_targets",
     "(a, b) = [c, *d] = e\n",
     "Module(body=[Assign(targets=[Tuple(elts=[Name('a'), Name('b')]), List(elts=[Name('c'), "
     "Starred(value=Name('d'))])], value=Name('e'))])"},
    {"starred_value",
     "x = *a, b\n",
     "Module(body=[Assign(targets=[Name('x')], value=Tuple(elts=[Starred(value=Name('a')), Name('b')]))])"},
    {"augassign",
     "x += 1\ny //= 2\nz @= w\nq **= 2\nr >>= 1\ns |= t\n",
     "Module(body=[AugAssign(target=Name('x'), op=Add, value=Constant(1)), AugAssign(target=Name('y'), "
     "op=FloorDiv, value=Constant(2)), AugAssign(target=Name('z'), op=MatMult, value=Name('w')), "
     "AugAssign(target=Name('q'), op=Pow, value=Constant(2)), AugAssign(target=Name('r'), op=RShift, "
     "value=Constant(1)), AugAssign(target=Name('s'), op=BitOr, value=Name('t'))])"},
    {"subscript_attr_targets",
     "l[i] = v\nobj.attr = v\n",
     "Module(body=[Assign(targets=[Subscript(value=Name('l'), slice=Name('i'))], value=Name('v')), "
     "Assign(targets=[Attribute(value=Name('obj'), attr='attr')], value=Name('v'))])"},
    {"annotated",
     "x: int = 5\ny: float\n",
     "Module(body=[Assign(targets=[Name('x')], value=Constant(5)), Pass()])"},
    {"if_elif_else",
     "if a:\n    x\nelif b:\n    y\nelif c:\n    z\nelse:\n    w\n",
     "Module(body=[If(test=Name('a'), body=[Expr(value=Name('x'))], orelse=[If(test=Name('b'), "
     "body=[Expr(value=Name('y'))], orelse=[If(test=Name('c'), body=[Expr(value=Name('z'))], "
     "orelse=[Expr(value=Name('w'))])])])])"},
    {"while_else",
     "while x < 10:\n    x += 1\n    if x:\n        break\n    continue\nelse:\n    pass\n",
     "Module(body=[While(test=Compare(left=Name('x'), ops=[Lt], comparators=[Constant(10)]), "
     "body=[AugAssign(target=Name('x'), op=Add, value=Constant(1)), If(test=Name('x'), body=[Break()]), "
     "Continue()], orelse=[Pass()])])"},
    {"for_tuple_target",
     "for i, x in enumerate(l):\n    pass\nelse:\n    pass\n",
     "Module(body=[For(target=Tuple(elts=[Name('i'), Name('x')]), iter=Call(func=Name('enumerate'), "
     "args=[Name('l')]), body=[Pass()], orelse=[Pass()])])"},
    {"for_bare_tuple_iter",
     "for x in 1, 2:\n    pass\n",
     "Module(body=[For(target=Name('x'), iter=Tuple(elts=[Constant(1), Constant(2)]), body=[Pass()])])"},
    {"def_params",
     "def f(a, b=1, *args, c, d=2, **kw):\n    return a\n",
     "Module(body=[FunctionDef(name='f', args=[arg('a'), arg('b', default=Constant(1)), arg('args', "
     "star=True), arg('c'), arg('d', default=Constant(2)), arg('kw', kwstar=True)], "
     "body=[Return(value=Name('a'))])])"},
    {"def_return_none",
     "def g():\n    return\n",
     "Module(body=[FunctionDef(name='g', body=[Return()])])"},
    {"def_bare_star",
     "def h(a, *, k):\n    pass\n",
     "Module(body=[FunctionDef(name='h', args=[arg('a'), arg(star=True), arg('k')], body=[Pass()])])"},
    {"def_return_tuple",
     "def f():\n    return 1, 2\n",
     "Module(body=[FunctionDef(name='f', body=[Return(value=Tuple(elts=[Constant(1), Constant(2)]))])])"},
    {"decorators",
     "@tf.function\n@deco(a=1)\ndef f(x):\n    return x\n",
     "Module(body=[FunctionDef(name='f', args=[arg('x')], body=[Return(value=Name('x'))], "
     "decorators=[Attribute(value=Name('tf'), attr='function'), Call(func=Name('deco'), "
     "keywords=[keyword(arg='a', value=Constant(1))])])])"},
    {"tf_function_args",
     "@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])\ndef f(x):\n"
     "    return x\n",
     "Module(body=[FunctionDef(name='f', args=[arg('x')], body=[Return(value=Name('x'))], "
     "decorators=[Call(func=Attribute(value=Name('tf'), attr='function'), "
     "keywords=[keyword(arg='input_signature', value=List(elts=[Call(func=Attribute(value=Name('tf'), "
     "attr='TensorSpec'), keywords=[keyword(arg='shape', value=List(elts=[Constant(None)])), "
     "keyword(arg='dtype', value=Attribute(value=Name('tf'), attr='float32'))])]))])])])"},
    {"lambda",
     "f = lambda: 0\ng = lambda x, y=2, *a, **k: x + y\n",
     "Module(body=[Assign(targets=[Name('f')], value=Lambda(body=Constant(0))), "
     "Assign(targets=[Name('g')], value=Lambda(args=[arg('x'), arg('y', default=Constant(2)), arg('a', "
     "star=True), arg('k', kwstar=True)], body=BinOp(left=Name('x'), op=Add, right=Name('y'))))])"},
    {"nested_def",
     "def outer():\n    n = 0\n    def inner():\n        nonlocal n\n        n += 1\n    return inner\n",
     "Module(body=[FunctionDef(name='outer', body=[Assign(targets=[Name('n')], value=Constant(0)), "
     "FunctionDef(name='inner', body=[Nonlocal(names=['n']), AugAssign(target=Name('n'), op=Add, "
     "value=Constant(1))]), Return(value=Name('inner'))])])"},
    {"class",
     "class A(B):\n    def __init__(self):\n        super().__init__()\n        self.x = 1\n",
     "Module(body=[ClassDef(name='A', bases=[Name('B')], body=[FunctionDef(name='__init__', "
     "args=[arg('self')], body=[Expr(value=Call(func=Attribute(value=Call(func=Name('super')), "
     "attr='__init__'))), Assign(targets=[Attribute(value=Name('self'), attr='x')], "
     "value=Constant(1))])])])"},
    {"class_plain_and_keywords",
     "class C:\n    pass\n@dec\nclass D(E, metaclass=M):\n    x = 1\n",
     "Module(body=[ClassDef(name='C', body=[Pass()]), ClassDef(name='D', bases=[Name('E')], "
     "keywords=[keyword(arg='metaclass', value=Name('M'))], body=[Assign(targets=[Name('x')], "
     "value=Constant(1))], decorators=[Name('dec')])])"},
    {"try_full",
     "try:\n    f()\nexcept ValueError as e:\n    raise\nexcept (A, B):\n    pass\nexcept:\n"
     "    raise E('m')\nelse:\n    pass\nfinally:\n    g()\n",
     "Module(body=[Try(body=[Expr(value=Call(func=Name('f')))], "
     "handlers=[ExceptHandler(type=Name('ValueError'), name='e', body=[Raise()]), "
     "ExceptHandler(type=Tuple(elts=[Name('A'), Name('B')]), body=[Pass()]), "
     "ExceptHandler(body=[Raise(exc=Call(func=Name('E'), args=[Constant('m')]))])], orelse=[Pass()], "
     "finalbody=[Expr(value=Call(func=Name('g')))])])"},
    {"try_finally",
     "try:\n    pass\nfinally:\n    pass\n",
     "Module(body=[Try(body=[Pass()], finalbody=[Pass()])])"},
    {"with",
     "with tf.GradientTape() as tape:\n    y = x\nwith a, b as (c, d):\n    pass\n",
     "Module(body=[With(items=[withitem(context_expr=Call(func=Attribute(value=Name('tf'), "
     "attr='GradientTape')), optional_vars=Name('tape'))], body=[Assign(targets=[Name('y')], "
     "value=Name('x'))]), With(items=[withitem(context_expr=Name('a')), withitem(context_expr=Name('b'), "
     "optional_vars=Tuple(elts=[Name('c'), Name('d')]))], body=[Pass()])])"},
    {"dict",
     "d = {}\nd = {'a': 1, 2: b, **e}\n",
     "Module(body=[Assign(targets=[Name('d')], value=Dict()), Assign(targets=[Name('d')], "
     "value=Dict(keys=[Constant('a'), Constant(2), None], values=[Constant(1), Name('b'), Name('e')]))])"},
    {"del",
     "del x, y[0], z.w\ndel (a, b)\n",
     "Module(body=[Delete(targets=[Name('x'), Subscript(value=Name('y'), slice=Constant(0)), "
     "Attribute(value=Name('z'), attr='w')]), Delete(targets=[Tuple(elts=[Name('a'), Name('b')])])])"},
    {"raise",
     "raise\nraise ValueError('x')\nraise E from c\n",
     "Module(body=[Raise(), Raise(exc=Call(func=Name('ValueError'), args=[Constant('x')])), "
     "Raise(exc=Name('E'), cause=Name('c'))])"},
    {"global_nonlocal",
     "def f():\n    global g\n    def h():\n        nonlocal x, y\n",
     "Module(body=[FunctionDef(name='f', body=[Global(names=['g']), FunctionDef(name='h', "
     "body=[Nonlocal(names=['x', 'y'])])])])"},
    {"imports",
     "import a\nimport a.b.c as d, e\nfrom m import x\nfrom m.n import (x as y, z)\nfrom m import *\n",
     "Module(body=[Import(names=[alias(name='a')]), Import(names=[alias(name='a.b.c', asname='d'), "
     "alias(name='e')]), ImportFrom(module='m', names=[alias(name='x')]), ImportFrom(module='m.n', "
     "names=[alias(name='x', asname='y'), alias(name='z')]), ImportFrom(module='m', "
     "names=[alias(name='*')])])"},
    {"assert",
     "assert x\nassert x, 'msg'\n",
     "Module(body=[Assert(test=Name('x')), Assert(test=Name('x'), msg=Constant('msg'))])"},
    {"boolops",
     "a and b and c\na or b and c\n(a and b) and c\nnot a\na or b or c\n",
     "Module(body=[Expr(value=BoolOp(op=And, values=[Name('a'), Name('b'), Name('c')])), "
     "Expr(value=BoolOp(op=Or, values=[Name('a'), BoolOp(op=And, values=[Name('b'), Name('c')])])), "
     "Expr(value=BoolOp(op=And, values=[BoolOp(op=And, values=[Name('a'), Name('b')]), Name('c')])), "
     "Expr(value=UnaryOp(op=Not, operand=Name('a'))), Expr(value=BoolOp(op=Or, values=[Name('a'), "
     "Name('b'), Name('c')]))])"},
    {"ifexp",
     "x if c else y\na if b else c if d else e\n",
     "Module(body=[Expr(value=IfExp(test=Name('c'), body=Name('x'), orelse=Name('y'))), "
     "Expr(value=IfExp(test=Name('b'), body=Name('a'), orelse=IfExp(test=Name('d'), body=Name('c'), "
     "orelse=Name('e'))))])"},
    {"compare_chain",
     "a < b < c\na not in b\na is not None\nx == y != z\n0 <= i < n\n",
     "Module(body=[Expr(value=Compare(left=Name('a'), ops=[Lt, Lt], comparators=[Name('b'), Name('c')])), "
     "Expr(value=Compare(left=Name('a'), ops=[NotIn], comparators=[Name('b')])), "
     "Expr(value=Compare(left=Name('a'), ops=[IsNot], comparators=[Constant(None)])), "
     "Expr(value=Compare(left=Name('x'), ops=[Eq, NotEq], comparators=[Name('y'), Name('z')])), "
     "Expr(value=Compare(left=Constant(0), ops=[LtE, Lt], comparators=[Name('i'), Name('n')]))])"},
    {"unary_power",
     "-x\n+x\n~x\n-x ** 2\n2 ** -1\na ** b ** c\n",
     "Module(body=[Expr(value=UnaryOp(op=USub, operand=Name('x'))), Expr(value=UnaryOp(op=UAdd, "
     "operand=Name('x'))), Expr(value=UnaryOp(op=Invert, operand=Name('x'))), Expr(value=UnaryOp(op=USub, "
     "operand=BinOp(left=Name('x'), op=Pow, right=Constant(2)))), Expr(value=BinOp(left=Constant(2), "
     "op=Pow, right=UnaryOp(op=USub, operand=Constant(1)))), Expr(value=BinOp(left=Name('a'), op=Pow, "
     "right=BinOp(left=Name('b'), op=Pow, right=Name('c'))))])"},
    {"binops",
     "a + b * c - d / e // f % g @ h\na | b ^ c & d << e >> f\n",
     "Module(body=[Expr(value=BinOp(left=BinOp(left=Name('a'), op=Add, right=BinOp(left=Name('b'), "
     "op=Mult, right=Name('c'))), op=Sub, right=BinOp(left=BinOp(left=BinOp(left=BinOp(left=Name('d'), "
     "op=Div, right=Name('e')), op=FloorDiv, right=Name('f')), op=Mod, right=Name('g')), op=MatMult, "
     "right=Name('h')))), Expr(value=BinOp(left=Name('a'), op=BitOr, right=BinOp(left=Name('b'), "
     "op=BitXor, right=BinOp(left=Name('c'), op=BitAnd, right=BinOp(left=BinOp(left=Name('d'), op=LShift, "
     "right=Name('e')), op=RShift, right=Name('f'))))))])"},
    {"calls",
     "f(a, *b, c=1, **d)\nf()\nf(x)(y)\nprint(x, end='')\n",
     "Module(body=[Expr(value=Call(func=Name('f'), args=[Name('a'), Starred(value=Name('b'))], "
     "keywords=[keyword(arg='c', value=Constant(1)), keyword(value=Name('d'))])), "
     "Expr(value=Call(func=Name('f'))), Expr(value=Call(func=Call(func=Name('f'), args=[Name('x')]), "
     "args=[Name('y')])), Expr(value=Call(func=Name('print'), args=[Name('x')], "
     "keywords=[keyword(arg='end', value=Constant(''))]))])"},
    {"subscripts",
     "x.y.z\nx[0]\nx[1:2]\nx[::2]\nx[:, 0]\nx[..., None]\nx[1,]\nx[a:b:c, d]\nx[-1]\nx[::-1]\n",
     "Module(body=[Expr(value=Attribute(value=Attribute(value=Name('x'), attr='y'), attr='z')), "
     "Expr(value=Subscript(value=Name('x'), slice=Constant(0))), Expr(value=Subscript(value=Name('x'), "
     "slice=Slice(lower=Constant(1), upper=Constant(2)))), Expr(value=Subscript(value=Name('x'), "
     "slice=Slice(step=Constant(2)))), Expr(value=Subscript(value=Name('x'), slice=Tuple(elts=[Slice(), "
     "Constant(0)]))), Expr(value=Subscript(value=Name('x'), slice=Tuple(elts=[Constant(...), "
     "Constant(None)]))), Expr(value=Subscript(value=Name('x'), slice=Tuple(elts=[Constant(1)]))), "
     "Expr(value=Subscript(value=Name('x'), slice=Tuple(elts=[Slice(lower=Name('a'), upper=Name('b'), "
     "step=Name('c')), Name('d')]))), Expr(value=Subscript(value=Name('x'), slice=UnaryOp(op=USub, "
     "operand=Constant(1)))), Expr(value=Subscript(value=Name('x'), slice=Slice(step=UnaryOp(op=USub, "
     "operand=Constant(1)))))])"},
    {"containers",
     "[]\n[1, 2, *x]\n()\n(1,)\n(1, 2)\n(x)\n[[1, 2], [3, 4]]\n",
     "Module(body=[Expr(value=List()), Expr(value=List(elts=[Constant(1), Constant(2), "
     "Starred(value=Name('x'))])), Expr(value=Tuple()), Expr(value=Tuple(elts=[Constant(1)])), "
     "Expr(value=Tuple(elts=[Constant(1), Constant(2)])), Expr(value=Name('x')), "
     "Expr(value=List(elts=[List(elts=[Constant(1), Constant(2)]), List(elts=[Constant(3), "
     "Constant(4)])]))])"},
    {"bare_tuple_stmt",
     "a, b\na,\n",
     "Module(body=[Expr(value=Tuple(elts=[Name('a'), Name('b')])), Expr(value=Tuple(elts=[Name('a')]))])"},
    {"numbers",
     "1\n0x2A\n0o7\n0b101\n1_000\n1.0\n.5\n1e-3\n2.\n1_0.2_5\n9223372036854775807\n-9223372036854775808\n"
     "1e400\n",
     "Module(body=[Expr(value=Constant(1)), Expr(value=Constant(42)), Expr(value=Constant(7)), "
     "Expr(value=Constant(5)), Expr(value=Constant(1000)), Expr(value=Constant(1.0)), "
     "Expr(value=Constant(0.5)), Expr(value=Constant(0.001)), Expr(value=Constant(2.0)), "
     "Expr(value=Constant(10.25)), Expr(value=Constant(9223372036854775807)), "
     "Expr(value=Constant(-9223372036854775808)), Expr(value=Constant(inf))])"},
    {"constants",
     "True\nFalse\nNone\n...\n",
     "Module(body=[Expr(value=Constant(True)), Expr(value=Constant(False)), Expr(value=Constant(None)), "
     "Expr(value=Constant(...))])"},
    {"strings",
     "'a'\n\"b\"\n'a\\nb\\tc\\\\\\'\\\"'\n'\\x41\\u00e9\\U0001F600'\n'\\0\\101\\7'\n'\\q'\nr'\\n\\x'\n"
     "'''x\ny'''\n\"a\" 'b'\n'a\\\nb'\n'café'\n",
     "Module(body=[Expr(value=Constant('a')), Expr(value=Constant('b')), "
     "Expr(value=Constant('a\\nb\\tc\\\\\\'\"')), Expr(value=Constant('Aé😀')), "
     "Expr(value=Constant('\\x00A\\x07')), Expr(value=Constant('\\\\q')), "
     "Expr(value=Constant('\\\\n\\\\x')), Expr(value=Constant('x\\ny')), Expr(value=Constant('ab')), "
     "Expr(value=Constant('ab')), Expr(value=Constant('café'))])"},
    {"fstrings",
     "f'a{b}c'\nf'{x!r}'\nf'{x:.3f}'\nf'{x!s:>10}'\nf'{{}}{x}'\n'a' f'{b}' 'c'\nf''\nf'{a}{b}'\nf'{x, "
     "y}'\nrf'\\n{x}'\nf'{n:5d}|{s!r:>8}'\nf'\\t{x}\\n'\nf\"{d['k']}\"\n",
     "Module(body=[Expr(value=JoinedStr(values=[Constant('a'), FormattedValue(value=Name('b')), "
     "Constant('c')])), Expr(value=JoinedStr(values=[FormattedValue(value=Name('x'), conversion='r')])), "
     "Expr(value=JoinedStr(values=[FormattedValue(value=Name('x'), "
     "format_spec=JoinedStr(values=[Constant('.3f')]))])), "
     "Expr(value=JoinedStr(values=[FormattedValue(value=Name('x'), conversion='s', "
     "format_spec=JoinedStr(values=[Constant('>10')]))])), Expr(value=JoinedStr(values=[Constant('{}'), "
     "FormattedValue(value=Name('x'))])), Expr(value=JoinedStr(values=[Constant('a'), "
     "FormattedValue(value=Name('b')), Constant('c')])), Expr(value=JoinedStr(values=[])), "
     "Expr(value=JoinedStr(values=[FormattedValue(value=Name('a')), FormattedValue(value=Name('b'))])), "
     "Expr(value=JoinedStr(values=[FormattedValue(value=Tuple(elts=[Name('x'), Name('y')]))])), "
     "Expr(value=JoinedStr(values=[Constant('\\\\n'), FormattedValue(value=Name('x'))])), "
     "Expr(value=JoinedStr(values=[FormattedValue(value=Name('n'), "
     "format_spec=JoinedStr(values=[Constant('5d')])), Constant('|'), FormattedValue(value=Name('s'), "
     "conversion='r', format_spec=JoinedStr(values=[Constant('>8')]))])), "
     "Expr(value=JoinedStr(values=[Constant('\\t'), FormattedValue(value=Name('x')), Constant('\\n')])), "
     "Expr(value=JoinedStr(values=[FormattedValue(value=Subscript(value=Name('d'), "
     "slice=Constant('k')))]))])"},
    {"comments_continuation",
     "x = 1  # one\n# only a comment\n\ny = (1 +\n     2)\nz = 1 + \\\n    2\n",
     "Module(body=[Assign(targets=[Name('x')], value=Constant(1)), Assign(targets=[Name('y')], "
     "value=BinOp(left=Constant(1), op=Add, right=Constant(2))), Assign(targets=[Name('z')], "
     "value=BinOp(left=Constant(1), op=Add, right=Constant(2)))])"},
    {"same_line_suites",
     "if x: pass\nwhile y: x = 1; y = 2\nfor i in l: continue\n",
     "Module(body=[If(test=Name('x'), body=[Pass()]), While(test=Name('y'), "
     "body=[Assign(targets=[Name('x')], value=Constant(1)), Assign(targets=[Name('y')], "
     "value=Constant(2))]), For(target=Name('i'), iter=Name('l'), body=[Continue()])])"},
    {"return_in_nested_loop",
     "def f(l):\n    for x in l:\n        while x:\n            if x:\n                return x\n"
     "            break\n",
     "Module(body=[FunctionDef(name='f', args=[arg('l')], body=[For(target=Name('x'), iter=Name('l'), "
     "body=[While(test=Name('x'), body=[If(test=Name('x'), body=[Return(value=Name('x'))]), "
     "Break()])])])])"},
    {"break_in_loop_in_try",
     "for x in l:\n    try:\n        break\n    finally:\n        continue\n",
     "Module(body=[For(target=Name('x'), iter=Name('l'), body=[Try(body=[Break()], "
     "finalbody=[Continue()])])])"},
    {"autograph_output",
     "def tf__f(x):\n    do_return = False\n    retval_ = ag.UndefinedReturnValue()\n\n"
     "    def get_state():\n        return (do_return, retval_)\n\n    def set_state(vars_):\n"
     "        nonlocal do_return, retval_\n        (do_return, retval_) = vars_\n"
     "    ag.if_stmt(tf.reduce_sum(x) <= 1, if_body, else_body, get_state, set_state, ('do_return', "
     "'retval_'), 2)\n    return ag.ret(retval_, do_return)\n",
     "Module(body=[FunctionDef(name='tf__f', args=[arg('x')], body=[Assign(targets=[Name('do_return')], "
     "value=Constant(False)), Assign(targets=[Name('retval_')], "
     "value=Call(func=Attribute(value=Name('ag'), attr='UndefinedReturnValue'))), "
     "FunctionDef(name='get_state', body=[Return(value=Tuple(elts=[Name('do_return'), "
     "Name('retval_')]))]), FunctionDef(name='set_state', args=[arg('vars_')], "
     "body=[Nonlocal(names=['do_return', 'retval_']), Assign(targets=[Tuple(elts=[Name('do_return'), "
     "Name('retval_')])], value=Name('vars_'))]), Expr(value=Call(func=Attribute(value=Name('ag'), "
     "attr='if_stmt'), args=[Compare(left=Call(func=Attribute(value=Name('tf'), attr='reduce_sum'), "
     "args=[Name('x')]), ops=[LtE], comparators=[Constant(1)]), Name('if_body'), Name('else_body'), "
     "Name('get_state'), Name('set_state'), Tuple(elts=[Constant('do_return'), Constant('retval_')]), "
     "Constant(2)])), Return(value=Call(func=Attribute(value=Name('ag'), attr='ret'), "
     "args=[Name('retval_'), Name('do_return')]))])])"},
    {"tabs_consistent",
     "if x:\n\ty = 1\n\tif y:\n\t\tz = 2\n",
     "Module(body=[If(test=Name('x'), body=[Assign(targets=[Name('y')], value=Constant(1)), "
     "If(test=Name('y'), body=[Assign(targets=[Name('z')], value=Constant(2))])])])"},
    {"crlf",
     "x = 1\r\nif x:\r\n    y = 2\r\n",
     "Module(body=[Assign(targets=[Name('x')], value=Constant(1)), If(test=Name('x'), "
     "body=[Assign(targets=[Name('y')], value=Constant(2))])])"},
};

/* ---- every syntax error: source -> "line:col: message" lines ---------------------------------- */

static const Case error_cases[] = {
    {"missing_colon_if",
     "if x > 0\n    pass\n",
     "1:9: expected ':'\n"},
    {"missing_colon_while",
     "while x\n    pass\n",
     "1:8: expected ':'\n"},
    {"missing_colon_def",
     "def f(x)\n    return x\n",
     "1:9: expected ':'\n"},
    {"missing_colon_for",
     "for x in y\n    pass\n",
     "1:11: expected ':'\n"},
    {"missing_colon_class",
     "class A\n    pass\n",
     "1:8: expected ':'\n"},
    {"missing_colon_else",
     "if x:\n    pass\nelse\n    pass\n",
     "3:5: expected ':'\n"},
    {"missing_in",
     "for x range(3):\n    pass\n",
     "1:7: expected 'in'\n"},
    {"indented_block_if",
     "if x:\npass\n",
     "2:1: expected an indented block after 'if' statement on line 1\n"},
    {"indented_block_def",
     "def f():\nreturn 1\n",
     "2:1: expected an indented block after function definition on line 1\n"},
    {"indented_block_comment_only",
     "for x in y:\n    # nothing\nx = 1\n",
     "3:1: expected an indented block after 'for' statement on line 1\n"},
    {"indented_block_eof",
     "while x:\n",
     "1:9: expected an indented block after 'while' statement on line 1\n"},
    {"indented_block_else",
     "if x:\n    pass\nelse:\npass\n",
     "4:1: expected an indented block after 'else' statement on line 3\n"},
    {"unexpected_indent",
     "x = 1\n    y = 2\n",
     "2:5: unexpected indent\n"},
    {"unexpected_indent_first_line",
     "  x = 1\n",
     "1:3: unexpected indent\n"},
    {"unindent_mismatch",
     "if x:\n    a = 1\n  b = 2\n",
     "3:3: unindent does not match any outer indentation level\n"},
    {"tab_after_spaces",
     "if x:\n        a = 1\n\tb = 2\n",
     "3:2: inconsistent use of tabs and spaces in indentation\n"},
    {"spaces_after_tab",
     "if x:\n\ta = 1\n        b = 2\n",
     "3:9: inconsistent use of tabs and spaces in indentation\n"},
    {"never_closed_paren",
     "f(a, b\nx = 1\n",
     "1:2: '(' was never closed\n"},
    {"never_closed_bracket",
     "x = [1, 2\n",
     "1:5: '[' was never closed\n"},
    {"unmatched_paren",
     "x = 1)\n",
     "1:6: unmatched ')'\n"},
    {"unmatched_brace",
     "x = 1}\n",
     "1:6: unmatched '}'\n"},
    {"mismatched_paren",
     "x = (1, 2]\n",
     "1:10: closing parenthesis ']' does not match opening parenthesis '('\n"},
    {"mismatched_paren_lines",
     "x = (1,\n     2]\n",
     "2:7: closing parenthesis ']' does not match opening parenthesis '(' on line 1\n"},
    {"unterminated_string",
     "x = \"abc\ny = 2\n",
     "1:5: unterminated string literal\n"},
    {"unterminated_single",
     "x = 'abc\n",
     "1:5: unterminated string literal\n"},
    {"unterminated_triple",
     "x = '''abc\ny = 2\n",
     "1:5: unterminated triple-quoted string literal\n"},
    {"unterminated_fstring",
     "x = f\"{x\n",
     "1:5: unterminated string literal\n"},
    {"expected_expression",
     "x = 1 +\n",
     "1:8: expected an expression\n"},
    {"expected_expression_eq",
     "x =\n",
     "1:4: expected an expression\n"},
    {"expected_else",
     "x = a if b\n",
     "1:5: expected 'else' after 'if' expression\n"},
    {"missing_comma",
     "f(a b)\n",
     "1:5: expected ',' or ')'\n"},
    {"missing_comma_list",
     "x = [1 2]\n",
     "1:8: expected ',' or ']'\n"},
    {"line_end_in_expression",
     "x = 1 +\n2\n",
     "1:8: expected an expression\n"},
    {"line_end_in_lambda",
     "f = lambda:\n    1\n",
     "1:12: expected an expression\n"},
    {"unexpected_keyword",
     "x = pass\n",
     "1:5: invalid syntax: unexpected 'pass'\n"},
    {"stray_else",
     "else:\n    pass\n",
     "1:1: invalid syntax: unexpected 'else'\n"},
    {"stray_elif",
     "x = 1\nelif x:\n    pass\n",
     "2:1: invalid syntax: unexpected 'elif'\n"},
    {"stray_except",
     "except E:\n    pass\n",
     "1:1: invalid syntax: unexpected 'except'\n"},
    {"try_without_handler",
     "try:\n    pass\nx = 1\n",
     "3:1: expected 'except' or 'finally' block\n"},
    {"decorator_without_def",
     "@deco\nx = 1\n",
     "2:1: expected 'def' or 'class' after a decorator\n"},
    {"invalid_character",
     "x = $\n",
     "1:5: invalid character '$' (U+0024)\n"},
    {"invalid_character_unicode",
     "x = 1 € 2\n",
     "1:7: invalid character '€' (U+20AC)\n"},
    {"backslash_garbage",
     "x = 1 \\ 2\n",
     "1:7: unexpected character after line continuation character\n"},
    {"print_statement",
     "print \"hello\"\n",
     "1:1: Missing parentheses in call to 'print'. Did you mean print(...)?\n"},
    {"assign_call",
     "f() = 1\n",
     "1:1: cannot assign to function call\n"},
    {"assign_literal",
     "1 = x\n",
     "1:1: cannot assign to literal\n"},
    {"assign_expression",
     "a + b = c\n",
     "1:1: cannot assign to expression\n"},
    {"assign_in_tuple",
     "(a, f()) = x\n",
     "1:5: cannot assign to function call\n"},
    {"assign_none",
     "None = 1\n",
     "1:1: cannot assign to None\n"},
    {"assign_true",
     "True = 1\n",
     "1:1: cannot assign to True\n"},
    {"assign_comparison",
     "a < b = 1\n",
     "1:1: cannot assign to comparison\n"},
    {"assign_ifexp",
     "a if b else c = 1\n",
     "1:1: cannot assign to conditional expression\n"},
    {"assign_lambda",
     "lambda: 1 = x\n",
     "1:1: cannot assign to lambda\n"},
    {"assign_dict",
     "{} = 1\n",
     "1:1: cannot assign to dict literal\n"},
    {"assign_fstring",
     "f'{x}' = 1\n",
     "1:1: cannot assign to f-string expression\n"},
    {"assign_starred_alone",
     "*a = 1\n",
     "1:1: starred assignment target must be in a list or tuple\n"},
    {"assign_two_starred",
     "x, *a, *b = 1\n",
     "1:1: multiple starred expressions in assignment\n"},
    {"for_two_starred_nested",
     "for x, (y, *a, *b) in z:\n    pass\n",
     "1:8: multiple starred expressions in assignment\n"},
    {"assign_chain_second",
     "a = f() = 1\n",
     "1:5: cannot assign to function call\n"},
    {"for_target_call",
     "for f() in x:\n    pass\n",
     "1:5: cannot assign to function call\n"},
    {"with_target_literal",
     "with a as 1:\n    pass\n",
     "1:11: cannot assign to literal\n"},
    {"del_call",
     "del f()\n",
     "1:5: cannot delete function call\n"},
    {"del_literal",
     "del 1\n",
     "1:5: cannot delete literal\n"},
    {"del_starred",
     "del [*a, b]\n",
     "1:6: cannot delete starred\n"},
    {"augassign_call",
     "f() += 1\n",
     "1:1: 'function call' is an illegal expression for augmented assignment\n"},
    {"augassign_tuple",
     "a, b += 1\n",
     "1:1: 'tuple' is an illegal expression for augmented assignment\n"},
    {"augassign_literal",
     "1 += 1\n",
     "1:1: 'literal' is an illegal expression for augmented assignment\n"},
    {"keyword_not_name",
     "f(a.b=1)\n",
     "1:3: expression cannot contain assignment, perhaps you meant \"==\"?\n"},
    {"return_outside",
     "return 1\n",
     "1:1: 'return' outside function\n"},
    {"return_in_class",
     "class A:\n    return 1\n",
     "2:5: 'return' outside function\n"},
    {"break_outside",
     "break\n",
     "1:1: 'break' outside loop\n"},
    {"break_in_def_in_loop",
     "for x in y:\n    def f():\n        break\n",
     "3:9: 'break' outside loop\n"},
    {"break_in_loop_else",
     "while x:\n    pass\nelse:\n    break\n",
     "4:5: 'break' outside loop\n"},
    {"continue_outside",
     "continue\n",
     "1:1: 'continue' not properly in loop\n"},
    {"continue_in_class_in_loop",
     "while x:\n    class A:\n        continue\n",
     "3:9: 'continue' not properly in loop\n"},
    {"nonlocal_module",
     "nonlocal x\n",
     "1:1: nonlocal declaration not allowed at module level\n"},
    {"keyword_repeated",
     "f(a=1, a=2)\n",
     "1:8: keyword argument repeated: a\n"},
    {"positional_after_keyword",
     "f(a=1, b)\n",
     "1:8: positional argument follows keyword argument\n"},
    {"positional_after_kwunpack",
     "f(**k, b)\n",
     "1:8: positional argument follows keyword argument unpacking\n"},
    {"iterable_after_kwunpack",
     "f(**k, *b)\n",
     "1:8: iterable argument unpacking follows keyword argument unpacking\n"},
    {"nondefault_after_default",
     "def f(a=1, b):\n    pass\n",
     "1:12: non-default parameter follows default parameter\n"},
    {"nondefault_after_default_lambda",
     "g = lambda a=1, b: a\n",
     "1:17: non-default parameter follows default parameter\n"},
    {"duplicate_argument",
     "def f(a, a):\n    pass\n",
     "1:10: duplicate argument 'a' in function definition\n"},
    {"bare_star_alone",
     "def f(*):\n    pass\n",
     "1:7: named arguments must follow bare *\n"},
    {"leading_zeros",
     "x = 012\n",
     "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers\n"},
    {"bad_underscore",
     "x = 1__0\n",
     "1:5: invalid decimal literal\n"},
    {"bad_hex",
     "x = 0x\n",
     "1:5: invalid hexadecimal literal\n"},
    {"bad_decimal_suffix",
     "x = 1abc\n",
     "1:5: invalid decimal literal\n"},
    {"complex_literal_bad",
     "x = 1jj\n",
     "1:5: invalid decimal literal\n"},
    {"truncated_x_escape",
     "x = 'a\\x4'\n",
     "1:7: truncated \\xXX escape\n"},
    {"truncated_u_escape",
     "x = '\\u12'\n",
     "1:6: truncated \\uXXXX escape\n"},
    {"bytes_mixed_with_str",
     "x = 'a' b'c'\n",
     "1:13: cannot mix bytes and nonbytes literals\n"},
    {"bytes_non_ascii",
     "x = b'\xc3\xa9'\n",
     "1:10: bytes can only contain ASCII literal characters\n"},
    {"fstring_bad_conversion",
     "x = f'{x!z}'\n",
     "1:9: f-string: invalid conversion character: expected 's', 'r', or 'a'\n"},
    {"fstring_single_brace",
     "x = f'a}b'\n",
     "1:8: f-string: single '}' is not allowed\n"},
    {"comprehension_unpacking",
     "x = [*y for y in z]\n",
     "1:6: iterable unpacking cannot be used in comprehension\n"},
    {"dict_comprehension_unpacking",
     "x = {**y for y in z}\n",
     "1:6: dict unpacking cannot be used in dict comprehension\n"},
    {"generator_not_alone",
     "f(1, y for y in z)\n",
     "1:6: Generator expression must be parenthesized\n"},
    {"comprehension_target",
     "x = [a for a + 1 in b]\n",
     "1:12: cannot assign to expression\n"},
    {"yield_outside_function",
     "yield 1\n",
     "1:1: 'yield' outside function\n"},
    {"yield_in_class",
     "class C:\n    x = yield\n",
     "2:9: 'yield' outside function\n"},
    {"yield_in_comprehension",
     "def f():\n    return [(yield x) for x in y]\n",
     "2:14: 'yield' inside list comprehension\n"},
    {"yield_in_genexp",
     "def f():\n    return list((yield) for x in y)\n",
     "2:18: 'yield' inside generator expression\n"},
    {"walrus",
     "if (n := 10) > 5:\n    pass\n",
     "1:7: assignment expressions (:=) are not supported\n"},
    {"lambda_annotation",
     "f = lambda x: int, y: 0\n",
     "1:21: invalid syntax: unexpected ':'\n"},
    {"trailing_comma_import",
     "from m import a,\n",
     "1:16: trailing comma not allowed without surrounding parentheses\n"},
    {"relative_import",
     "from . import a\n",
     "1:6: relative imports are not supported\n"},
    {"default_except_not_last",
     "try:\n    pass\nexcept:\n    pass\nexcept E:\n    pass\n",
     "3:1: default 'except:' must be last\n"},
    {"statements_glued",
     "x = 1\ny()v\n",
     "2:4: invalid syntax: unexpected 'v'\n"},
    {"number_glued_to_name",
     "x = 1\n1ff\n",
     "2:1: invalid decimal literal\n"},
    {"lone_comma_call",
     "f(,)\n",
     "1:3: invalid syntax: unexpected ','\n"},
    {"lone_comma_dict",
     "d = {,}\n",
     "1:6: invalid syntax: unexpected ','\n"},
    {"trailing_comma_import_stmt",
     "import a,\n",
     "1:9: trailing comma not allowed without surrounding parentheses\n"},
    {"param_after_kwargs",
     "def f(**k, a):\n    pass\n",
     "1:12: arguments cannot follow var-keyword argument\n"},
    {"starred_in_parens",
     "x = (*a)\n",
     "1:6: cannot use starred expression here\n"},
    {"bad_string_prefix",
     "x = ff'a'\n",
     "1:5: invalid string prefix 'ff'\n"},
    {"continuation_at_eof",
     "x = 1 + \\\n",
     "1:9: unexpected EOF while parsing\n"},
    {"keyword_as_attribute",
     "x.pass = 1\n",
     "1:3: invalid syntax: unexpected 'pass'\n"},
    {"keyword_in_return_annotation",
     "def f() -> in:\n    pass\n",
     "1:12: invalid syntax: unexpected 'in'\n"},
    {"keyword_in_annotation",
     "x: in = 3\n",
     "1:4: invalid syntax: unexpected 'in'\n"},
    {"lone_carriage_return",
     "a = 1\r b = 2\n",
     "1:6: invalid non-printable character U+000D\n"},
    {"lone_carriage_return_in_comment",
     "a = 1  # c\rb = 2\n",
     "1:11: invalid non-printable character U+000D\n"},
    {"several_errors",
     "if x > 0\n    print(x)\ny = 1 +\nwhile True:\npass\nz = \"abc\nw = 1)\n",
     "1:9: expected ':'\n3:8: expected an expression\n"
     "5:1: expected an indented block after 'while' statement on line 4\n"
     "6:5: unterminated string literal\n7:6: unmatched ')'\n"},
    {"several_semantic_errors",
     "return 1\ndef f(a=1, b):\n    break\nf(x=1, x=2)\nnonlocal q\n",
     "1:1: 'return' outside function\n2:12: non-default parameter follows default parameter\n"
     "3:5: 'break' outside loop\n4:8: keyword argument repeated: x\n"
     "5:1: nonlocal declaration not allowed at module level\n"},
    {"semantic_and_syntax_errors",
     "return 1\ndef f(a=1, b):\n    break\nf(x=1, x=2)\nnonlocal q\n1 = y\nif y\n    pass\n",
     "2:12: non-default parameter follows default parameter\n3:5: 'break' outside loop\n"
     "4:8: keyword argument repeated: x\n6:1: cannot assign to literal\n7:5: expected ':'\n"},
};

START_TEST(test_valid) {
  const Case *c = &valid_cases[_i];
  char *got = parse_text(c->src);
  ck_assert_msg(!strcmp(got, c->want), "%s:\n  source: %s\n  got:    %s\n  want:   %s", c->name, c->src, got, c->want);
  free(got);
}
END_TEST

START_TEST(test_errors) {
  const Case *c = &error_cases[_i];
  char *got = parse_text(c->src);
  const char *body = strncmp(got, "ERRORS\n", 7) ? NULL : got + 7;
  ck_assert_msg(body && !strcmp(body, c->want), "%s:\n  source: %s\n  got:\n%s\n  want:\n%s", c->name, c->src, got,
                c->want);
  free(got);
}
END_TEST

/* ---- locations -------------------------------------------------------------------------------- */

START_TEST(test_locations) {
  Arena a;
  arena_init(&a);
  Ast *m = parse_ok(&a,
                    "x = foo(1, b=2)\n"
                    "if a:\n"
                    "    y = -x\n"
                    "elif b:\n"
                    "    pass\n"
                    "@deco\n"
                    "def f(p, q=1, *r, **s):\n"
                    "    return p[1:2, 3]\n"
                    "z = 'ab' \\\n"
                    "    'cd'\n"
                    "t = a < b < c and d\n");
  ck_assert_int_eq(m->body.n, 5);
  Ast *as = m->body.items[0];
  ASSERT_LOC(as, 1, 1, 1, 16);
  ASSERT_LOC(as->targets.items[0], 1, 1, 1, 2);
  Ast *call = as->value;
  ASSERT_LOC(call, 1, 5, 1, 16);
  ASSERT_LOC(call->func, 1, 5, 1, 8);
  ASSERT_LOC(call->args.items[0], 1, 9, 1, 10);
  ASSERT_LOC(call->keywords.items[0], 1, 12, 1, 15);
  ASSERT_LOC(call->keywords.items[0]->value, 1, 14, 1, 15);

  Ast *iff = m->body.items[1];
  ASSERT_LOC(iff, 2, 1, 5, 9);
  ASSERT_LOC(iff->body.items[0], 3, 5, 3, 11);
  ASSERT_LOC(iff->body.items[0]->value, 3, 9, 3, 11);
  Ast *elif = iff->orelse.items[0];
  ck_assert_int_eq(elif->kind, A_IF);
  ASSERT_LOC(elif, 4, 1, 5, 9); /* from 'elif' to the end of the whole statement, as in Python */

  Ast *f = m->body.items[2];
  ck_assert_int_eq(f->kind, A_FUNCDEF);
  ASSERT_LOC(f, 7, 1, 8, 21); /* the def line, not the decorator's */
  ASSERT_LOC(f->decorators.items[0], 6, 2, 6, 6);
  ASSERT_LOC(f->args.items[0], 7, 7, 7, 8); /* parameters: their names, as in Python */
  ASSERT_LOC(f->args.items[1], 7, 10, 7, 11);
  ASSERT_LOC(f->args.items[2], 7, 16, 7, 17);
  ASSERT_LOC(f->args.items[3], 7, 21, 7, 22);
  Ast *sub = f->body.items[0]->value;
  ASSERT_LOC(sub, 8, 12, 8, 21);
  ck_assert_int_eq(sub->slice->kind, A_TUPLE);
  ASSERT_LOC(sub->slice, 8, 14, 8, 20); /* an index tuple spans its elements */
  ASSERT_LOC(sub->slice->elts.items[0], 8, 14, 8, 17);

  Ast *z = m->body.items[3];
  ASSERT_LOC(z->value, 9, 5, 10, 9); /* implicit concatenation: one constant over both parts */

  Ast *t = m->body.items[4]->value;
  ck_assert_int_eq(t->kind, A_BOOLOP);
  ASSERT_LOC(t, 11, 5, 11, 20);
  ASSERT_LOC(t->values.items[0], 11, 5, 11, 14);
  arena_free(&a);
}
END_TEST

START_TEST(test_location_bytes_and_tabs) {
  /* columns count bytes: a two-byte character and a tab move the column by their size */
  Arena a;
  arena_init(&a);
  Ast *m = parse_ok(&a, "s = '\xc3\xa9' + x\nif s:\n\ty = 1\n");
  Ast *bin = m->body.items[0]->value;
  ASSERT_LOC(bin->right, 1, 12, 1, 13);
  ASSERT_LOC(m->body.items[1]->body.items[0], 3, 2, 3, 7);
  arena_free(&a);
}
END_TEST

/* ---- literal values --------------------------------------------------------------------------- */

static Ast *only_expr(Arena *a, const char *src) {
  Ast *m = parse_ok(a, src);
  ck_assert_int_eq(m->body.n, 1);
  ck_assert_int_eq(m->body.items[0]->kind, A_EXPR);
  return m->body.items[0]->value;
}

START_TEST(test_int_literals) {
  static const struct { const char *src; int64_t v; } cases[] = {
      {"42", 42},         {"0x2A", 42}, {"0X2a", 42},   {"0o7", 7},        {"0O17", 15},
      {"0b1", 1},         {"0B1010", 10}, {"1_000", 1000}, {"0x_ff_ff", 0xffff}, {"0", 0},
      {"00", 0},          {"9223372036854775807", INT64_MAX}, {"0x7fffffffffffffff", INT64_MAX},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Arena a;
    arena_init(&a);
    Ast *e = only_expr(&a, cases[i].src);
    ck_assert_int_eq(e->kind, A_CONSTANT);
    ck_assert_int_eq(e->const_kind, C_INT);
    ck_assert_msg(e->ival == cases[i].v, "%s -> %lld", cases[i].src, (long long)e->ival);
    arena_free(&a);
  }
  /* the most negative int64 is one constant: its digits alone do not fit */
  Arena a;
  arena_init(&a);
  Ast *e = only_expr(&a, "-9223372036854775808");
  ck_assert_int_eq(e->kind, A_CONSTANT);
  ck_assert(e->ival == INT64_MIN);
  ASSERT_LOC(e, 1, 1, 1, 21);
  arena_free(&a);
}
END_TEST

START_TEST(test_float_literals) {
  static const struct { const char *src; double v; } cases[] = {
      {"1.0", 1.0}, {".5", 0.5}, {"1e-3", 1e-3}, {"2.", 2.0}, {"1_0.2_5", 10.25}, {"1E+2", 100.0}, {"0.1", 0.1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Arena a;
    arena_init(&a);
    Ast *e = only_expr(&a, cases[i].src);
    ck_assert_int_eq(e->const_kind, C_FLOAT);
    ck_assert_msg(e->fval == cases[i].v, "%s -> %.17g", cases[i].src, e->fval);
    arena_free(&a);
  }
}
END_TEST

static void check_str(const char *src, const char *want, size_t wlen) {
  Arena a;
  arena_init(&a);
  Ast *e = only_expr(&a, src);
  ck_assert_int_eq(e->kind, A_CONSTANT);
  ck_assert_int_eq(e->const_kind, C_STR);
  ck_assert_msg(e->slen == wlen && !memcmp(e->str, want, wlen), "%s: got %zu bytes", src, e->slen);
  ck_assert_int_eq(e->str[e->slen], 0); /* NUL-terminated for convenience */
  arena_free(&a);
}

START_TEST(test_string_literals) {
  check_str("'a\\nb\\tc'", "a\nb\tc", 5);
  check_str("'\\\\ \\' \\\"'", "\\ ' \"", 5);
  check_str("'\\x41\\x7e'", "A~", 2);
  check_str("'\\xe9'", "\xc3\xa9", 2); /* \xHH is a code point, stored as UTF-8 */
  check_str("'\\u00e9\\u20ac'", "\xc3\xa9\xe2\x82\xac", 5);
  check_str("'\\U0001F600'", "\xf0\x9f\x98\x80", 4);
  check_str("'a\\0b'", "a\0b", 3); /* an embedded NUL: see slen */
  check_str("'\\101\\7'", "A\a", 2);
  check_str("'\\r\\a\\b\\f\\v'", "\r\a\b\f\v", 5);
  check_str("'\\q'", "\\q", 2); /* unknown escapes keep the backslash */
  check_str("r'\\n\\x'", "\\n\\x", 4);
  check_str("R\"\\t\"", "\\t", 2);
  check_str("'caf\xc3\xa9'", "caf\xc3\xa9", 5);
  check_str("'''a\nb'''", "a\nb", 3);
  check_str("\"\"\"x\"y\"\"\"", "x\"y", 3);
  check_str("'a\\\nb'", "ab", 2); /* backslash-newline joins */
  check_str("'a' \"b\" '''c'''", "abc", 3);
  check_str("''", "", 0);
  check_str("u'x'", "x", 1);
}
END_TEST

/* ---- f-strings -------------------------------------------------------------------------------- */

START_TEST(test_fstring_structure) {
  Arena a;
  arena_init(&a);
  Ast *js = only_expr(&a, "f'x={x!r:>10} y={y:.3f}{{z}}\\n' 'tail'");
  ck_assert_int_eq(js->kind, A_JOINEDSTR);
  ck_assert_int_eq(js->values.n, 5);
  Ast *v0 = js->values.items[0], *v1 = js->values.items[1], *v2 = js->values.items[2];
  Ast *v3 = js->values.items[3], *v4 = js->values.items[4];
  ck_assert_int_eq(v0->kind, A_CONSTANT);
  ck_assert_str_eq(v0->str, "x=");
  ck_assert_int_eq(v1->kind, A_FORMATTEDVALUE);
  ck_assert_int_eq(v1->op, 'r');
  ck_assert_int_eq(v1->value->kind, A_NAME);
  ck_assert_str_eq(v1->value->name, "x");
  ck_assert_int_eq(v1->format_spec->kind, A_JOINEDSTR);
  ck_assert_int_eq(v1->format_spec->values.n, 1);
  ck_assert_str_eq(v1->format_spec->values.items[0]->str, ">10");
  ck_assert_str_eq(v2->str, " y=");
  ck_assert_int_eq(v3->op, 0);
  ck_assert_str_eq(v3->format_spec->values.items[0]->str, ".3f");
  ck_assert_str_eq(v4->str, "{z}\ntail"); /* adjacent text parts merge, across the concatenation */
  ASSERT_LOC(v1, 1, 5, 1, 14);
  ASSERT_LOC(js, 1, 1, 1, 39);
  arena_free(&a);
}
END_TEST

/* ---- the printed form (docs/errors.md) -------------------------------------------------------- */

static char *printed(const char *path, const char *src) {
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  ck_assert_ptr_null(parse_source(&a, path, src, strlen(src), &d));
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  diag_print(&d, f);
  long n = ftell(f);
  rewind(f);
  char *s = calloc((size_t)n + 1, 1);
  ck_assert_int_eq((long)fread(s, 1, (size_t)n, f), n);
  fclose(f);
  diag_free(&d);
  arena_free(&a);
  return s;
}

/* ---- node sizes (ast.c's per-kind field table) ------------------------------------------------ */

/* The table agrees with struct Ast: the per-kind fields tile the struct after
 * the header (none missing from the table, none overlapping), every field a
 * kind uses lies inside its size, and the frequent small kinds stay small. */
START_TEST(test_kind_sizes) {
  size_t header = offsetof(Ast, level) + sizeof(int);
  ck_assert_uint_eq(offsetof(Ast, name), (header + 7) & ~(size_t)7);
  unsigned char cover[sizeof(Ast)] = {0};
  uint64_t used = 0;
  for (int k = 0; k < A__COUNT; k++) used |= ast_kind_fields[k];
  for (int f = 0; f < AF__COUNT; f++) {
    ck_assert_msg(used >> f & 1, "field %s is used by no kind", ast_field_names[f]);
    ck_assert_uint_ge(ast_field_offset[f], offsetof(Ast, name));
    for (size_t b = ast_field_offset[f]; b < (size_t)ast_field_offset[f] + ast_field_size[f]; b++) {
      ck_assert_msg(b < sizeof(Ast) && !cover[b], "field %s overlaps another", ast_field_names[f]);
      cover[b] = 1;
    }
    ck_assert_uint_eq(ast_field_size[f], f < AF_body ? sizeof(Ast *) : f < AF_name ? sizeof(AstList) : ast_field_size[f]);
  }
  for (size_t b = offsetof(Ast, name); b < sizeof(Ast); b++)
    ck_assert_msg(cover[b], "byte %zu of struct Ast belongs to no field of the table", b);
  for (int k = 0; k < A__COUNT; k++) {
    size_t size = ast_size((AstKind)k);
    ck_assert_uint_ge(size, header);
    ck_assert_uint_le(size, sizeof(Ast));
    for (int f = 0; f < AF__COUNT; f++)
      if (ast_kind_fields[k] >> f & 1)
        ck_assert_msg((size_t)ast_field_offset[f] + ast_field_size[f] <= size, "%s.%s lies past its size %zu",
                      ast_kind_name((AstKind)k), ast_field_names[f], size);
  }
  ck_assert_uint_le(ast_size(A_PASS), 48);   /* name: `x: T` in a class body */
  ck_assert_uint_le(ast_size(A_NAME), 48);
  ck_assert_uint_le(ast_size(A_ATTRIBUTE), 64);
  ck_assert_uint_le(ast_size(A_EXPR), 64);
  ck_assert_uint_le(ast_size(A_KEYWORD), 64);
  ck_assert_uint_le(ast_size(A_BINOP), 80);
  ck_assert_uint_le(ast_size(A_ASSIGN), 96);
  ck_assert_uint_le(ast_size(A_CALL), 128);
  ck_assert_uint_le(ast_size(A_CONSTANT), 160);
  ck_assert_uint_ge(sizeof(Ast), 3 * ast_size(A_CONSTANT));
}
END_TEST

static void count_kinds(const Ast *n, int *seen) {
  if (!n) return;
  seen[n->kind]++;
  AST_FOR_FIELDS(f, n, AF_PTR_MASK) count_kinds(*ast_ptr_field(n, f), seen);
  AST_FOR_FIELDS(f, n, AF_LIST_MASK) {
    const AstList *l = ast_list_field(n, f);
    for (int i = 0; i < l->n; i++) count_kinds(l->items[i], seen);
  }
}

/* A program with every kind: a walk over the child fields the table gives
 * each kind reaches all of them, and a deep copy (each node its kind's
 * bytes) dumps as the original does. */
START_TEST(test_kind_fields_reach_all) {
  Arena a;
  arena_init(&a);
  Ast *m = parse_ok(&a,
                    "import os.path as p\n"
                    "from m import x as y\n"
                    "g = 0\n"
                    "@dec\n"
                    "class C(B, metaclass=M):\n"
                    "    def f(self, a, *r, k=1, **kw):\n"
                    "        global g\n"
                    "        def h():\n"
                    "            nonlocal a\n"
                    "            a += 1\n"
                    "        del kw['x']\n"
                    "        for i in r[1:2:1]:\n"
                    "            if not i and a or i:\n"
                    "                continue\n"
                    "            break\n"
                    "        else:\n"
                    "            pass\n"
                    "        while a < 3 < 4:\n"
                    "            a = -a if a else {1: 2}\n"
                    "        with open('f') as fh:\n"
                    "            assert fh, f'{a!r:>5}'\n"
                    "        try:\n"
                    "            raise ValueError('x') from None\n"
                    "        except ValueError as e:\n"
                    "            print(*r, [q for q in r if q], {q for q in r}, (q for q in r), {q: q for q in r})\n"
                    "        finally:\n"
                    "            l = lambda z=1: (z, [z], {z}, o.at)\n"
                    "        g2 = yield a\n"
                    "        yield from r\n"
                    "        return a * 2\n");
  int seen[A__COUNT] = {0};
  count_kinds(m, seen);
  for (int k = 0; k < A__COUNT; k++) ck_assert_msg(seen[k] > 0, "kind %s not reached", ast_kind_name((AstKind)k));
  char *want = ast_dump(m);
  char *got = ast_dump(ag_copy(&a, m));
  ck_assert_str_eq(got, want);
  free(want);
  free(got);
  arena_free(&a);
}
END_TEST

START_TEST(test_printed_format) {
  char *s = printed("prog.tfs", "x = 1\n\nif x > 0\n    pass\n");
  ck_assert_str_eq(s,
                   "prog.tfs:3:9: error: expected ':'\n"
                   "if x > 0\n"
                   "        ^\n");
  free(s);
  /* the caret line copies tabs so it lines up under a tab-indented line */
  s = printed("dir/t.tfs", "if x:\n\tif y > 0\n\t\tpass\n");
  ck_assert_str_eq(s,
                   "dir/t.tfs:2:10: error: expected ':'\n"
                   "\tif y > 0\n"
                   "\t        ^\n");
  free(s);
  /* several errors, in source order */
  s = printed("m.tfs", "x = (1,\n     2]\n\ny = 1\nf(a=1, a=2)\n");
  ck_assert_str_eq(s,
                   "m.tfs:2:7: error: closing parenthesis ']' does not match opening parenthesis '(' on line 1\n"
                   "     2]\n"
                   "      ^\n"
                   "m.tfs:5:8: error: keyword argument repeated: a\n"
                   "f(a=1, a=2)\n"
                   "       ^\n");
  free(s);
}
END_TEST

/* ---- robustness ------------------------------------------------------------------------------- */

/* Parse anything: no crash, NULL exactly when errors were reported, every position 1-based. */
static void parse_any(const char *src, size_t len) {
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  char *copy = malloc(len + 1);
  memcpy(copy, src, len);
  copy[len] = 0;
  Ast *m = parse_source(&a, "fuzz.tfs", copy, len, &d);
  ck_assert_msg((m == NULL) == (d.n > 0), "result and diagnostics disagree");
  if (m) free(ast_dump(m));
  for (int i = 0; i < d.n; i++) ck_assert(d.items[i].line >= 1 && d.items[i].col >= 1);
  diag_free(&d);
  arena_free(&a);
  free(copy);
}

START_TEST(test_edge_inputs) {
  parse_any("", 0);
  parse_any("\n\n", 2);
  parse_any("# only a comment", 16);
  parse_any("x = 1", 5); /* no final newline */
  parse_any("\xef\xbb\xbfx = 1\n", 9); /* UTF-8 signature */
  parse_any("\xff\xfe\x80", 3);
  parse_any("if x:", 5);
  parse_any("'''", 3);
  parse_any("f'{", 3);
  parse_any("f'{x:{y:{z}}}'", 14);
  parse_any("(((((", 5);
  parse_any(")))))", 5);
  parse_any("\\", 1);
  parse_any("\t\t\tx\n  y\n", 9);
  char *s = parse_text_n("x = 1\0y = 2\n", 12); /* a NUL byte is an invalid character */
  ck_assert_str_eq(s, "ERRORS\n1:6: invalid non-printable character U+0000\n");
  free(s);
  s = parse_text("");
  ck_assert_str_eq(s, "Module()");
  free(s);
  /* Python's limits: 200 nested brackets, 100 indentation levels */
  char nest[512] = "x = ";
  for (int i = 0; i < 201; i++) strcat(nest, "(");
  strcat(nest, "1");
  for (int i = 0; i < 201; i++) strcat(nest, ")");
  s = parse_text(nest);
  ck_assert_str_eq(s, "ERRORS\n1:205: too many nested parentheses\n");
  free(s);
  char *ind = calloc(110 * 110, 1);
  for (int i = 0; i < 102; i++) {
    memset(ind + strlen(ind), ' ', (size_t)i);
    strcat(ind, "if x:\n");
  }
  memset(ind + strlen(ind), ' ', 102);
  strcat(ind, "pass\n");
  s = parse_text(ind);
  ck_assert_str_eq(s, "ERRORS\n102:102: too many levels of indentation\n");
  free(s);
  free(ind);
  /* deep nesting is refused, not a stack overflow */
  size_t n = 100000;
  char *deep = calloc(n + 16, 1);
  ck_assert_ptr_nonnull(deep);
  memcpy(deep, "x = ", 4);
  memset(deep + 4, '(', n);
  deep[4 + n] = 0;
  parse_any(deep, strlen(deep));
  memset(deep + 4, '-', n);
  strcpy(deep + 4 + n, "1\n");
  parse_any(deep, strlen(deep));
  free(deep);
  /* a long flat sum is fine */
  size_t terms = 20000;
  char *sum = malloc(terms * 2 + 16);
  strcpy(sum, "x = 1");
  for (size_t i = 0; i < terms; i++) memcpy(sum + 5 + 2 * i, "+1", 2);
  strcpy(sum + 5 + 2 * terms, "\n");
  Arena a;
  arena_init(&a);
  parse_ok(&a, sum);
  arena_free(&a);
  free(sum);
}
END_TEST

START_TEST(test_random_mutations) {
  /* mutate valid programs with a fixed PRNG: every result must be an AST or diagnostics */
  static const char *const seeds[] = {
      "def f(x, y=1, *a, **k):\n    if x > 0:\n        return [x, y][0]\n    elif x:\n        pass\n    else:\n"
      "        return f'{x!r:>4}'\n",
      "class A(B):\n    def __init__(self):\n        self.x = {'a': (1, 2), **d}\n",
      "try:\n    with tf.GradientTape() as t:\n        y = x[1:2, ::3, ...]\nexcept E as e:\n    raise\nfinally:\n"
      "    del y\n",
      "for i, x in enumerate(l):\n    while x < 10:\n        x += 1 if x else -1\n    else:\n        continue\n",
      "@tf.function(input_signature=[None])\ndef g(a):\n    return lambda b=2: a and b or not a\n",
  };
  static const char junk[] = "()[]{}:,.=+-*/%@&|^~<>!'\"\\#\t\n xif0_";
  unsigned r = 12345;
  char buf[512];
  for (int it = 0; it < 3000; it++) {
    const char *s = seeds[it % 5];
    size_t len = strlen(s);
    memcpy(buf, s, len + 1);
    for (int m = 0; m < 1 + it % 4; m++) {
      r = r * 1103515245u + 12345u;
      size_t pos = (r >> 8) % (len + 1);
      int op = (int)((r >> 4) % 3);
      if (op == 0 && pos < len) {
        memmove(buf + pos, buf + pos + 1, len - pos);
        len--;
      } else if (op == 1 && len + 1 < sizeof buf) {
        memmove(buf + pos + 1, buf + pos, len - pos + 1);
        buf[pos] = junk[(r >> 16) % (sizeof junk - 1)];
        len++;
      } else {
        len = pos;
        buf[len] = 0;
      }
    }
    parse_any(buf, len);
  }
}
END_TEST

static Suite *parse_suite(void) {
  Suite *s = suite_create("parse");
  TCase *tc = tcase_create("dumps");
  tcase_add_loop_test(tc, test_valid, 0, (int)(sizeof valid_cases / sizeof *valid_cases));
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_add_loop_test(tc, test_errors, 0, (int)(sizeof error_cases / sizeof *error_cases));
  tcase_add_test(tc, test_printed_format);
  suite_add_tcase(s, tc);
  tc = tcase_create("values");
  tcase_add_test(tc, test_locations);
  tcase_add_test(tc, test_location_bytes_and_tabs);
  tcase_add_test(tc, test_int_literals);
  tcase_add_test(tc, test_float_literals);
  tcase_add_test(tc, test_string_literals);
  tcase_add_test(tc, test_fstring_structure);
  tcase_add_test(tc, test_kind_sizes);
  tcase_add_test(tc, test_kind_fields_reach_all);
  suite_add_tcase(s, tc);
  tc = tcase_create("robustness");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_edge_inputs);
  tcase_add_test(tc, test_random_mutations);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(parse_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed != 0;
}
