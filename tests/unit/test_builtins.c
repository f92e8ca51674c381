/* test_builtins.c — builtins, type objects, str/list/dict methods, print, time/timeit, with CPython's texts. */
#include <check.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"
#include "valtest.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static Val S(const char *s) { return str_from_cstr(s); }




/* Call f with owned arguments (and owned keyword values); everything is
 * released afterwards, also when the call raises. */
static Val call_own(Val f, Val *args, int n, const Kw *kw) {
  int mark = rt_hold_val(f);
  for (int i = 0; i < n; i++) rt_hold_val(args[i]);
  for (int i = 0; kw && i < kw->n; i++) rt_hold_val(kw->vals[i]);
  Val r = rt_call(f, n, args, kw);
  rt_unhold(mark);
  val_decref(f);
  for (int i = 0; i < n; i++) val_decref(args[i]);
  for (int i = 0; kw && i < kw->n; i++) val_decref(kw->vals[i]);
  return r;
}

/* self.name(args...) with self and args owned. */
static Val meth_own(Val self, const char *name, Val *args, int n, const Kw *kw) {
  int mark = rt_hold_val(self);
  Val m = rt_getattr(self, name);
  rt_unhold(mark);
  val_decref(self);
  return call_own(m, args, n, kw);
}

#define NARGS(...) ((int)(sizeof((Val[]){__VA_ARGS__}) / sizeof(Val)))
#define CALL(name, ...) call_own(rt_builtin(name), (Val[]){__VA_ARGS__}, NARGS(__VA_ARGS__), NULL)
#define CALLK(name, kw, ...) call_own(rt_builtin(name), (Val[]){__VA_ARGS__}, NARGS(__VA_ARGS__), kw)
#define CALL0(name) call_own(rt_builtin(name), NULL, 0, NULL)
#define METH(self, name, ...) meth_own(self, name, (Val[]){__VA_ARGS__}, NARGS(__VA_ARGS__), NULL)
#define METHK(self, name, kw, ...) meth_own(self, name, (Val[]){__VA_ARGS__}, NARGS(__VA_ARGS__), kw)
#define METH0(self, name) meth_own(self, name, NULL, 0, NULL)

/* One keyword argument (value owned by the call). */
static Kw *K1(const char *name, Val v) {
  static const char *names[1];
  static Val vals[1];
  static Kw kw;
  names[0] = name;
  vals[0] = v;
  kw = (Kw){1, names, vals};
  return &kw;
}

static Kw *K2(const char *n1, Val v1, const char *n2, Val v2) {
  static const char *names[2];
  static Val vals[2];
  static Kw kw;
  names[0] = n1;
  names[1] = n2;
  vals[0] = v1;
  vals[1] = v2;
  kw = (Kw){2, names, vals};
  return &kw;
}

/* A list of owned values. */
static Val LST(int n, ...) {
  Val l = list_new(n);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    Val v = va_arg(ap, Val);
    list_append(l, v);
    val_decref(v);
  }
  va_end(ap);
  return l;
}


/* ---- numbers and conversions ----------------------------------------------------------------- */

START_TEST(test_int_float_bool_str) {
  EQ(CALL0("int"), "0");
  EQ(CALL("int", S("12")), "12");
  EQ(CALL("int", S("  -12\n")), "-12");
  EQ(CALL("int", S("1_000")), "1000");
  EQ(CALL("int", S("+7")), "7");
  EQ(CALL("int", F(3.7)), "3");
  EQ(CALL("int", F(-3.7)), "-3");
  EQ(CALL("int", B(true)), "1");
  EQ(CALL("int", S("ff"), I(16)), "255");
  EQ(CALL("int", S("0x1F"), I(0)), "31");
  EQ(CALL("int", S("0b101"), I(0)), "5");
  EQ(CALLK("int", K1("base", I(8)), S("17")), "15");
  EQ(CALL("int", S("-9223372036854775808")), "-9223372036854775808");
  ERR(ERR_VALUE, "invalid literal for int() with base 10: 'abc'", CALL("int", S("abc")));
  ERR(ERR_VALUE, "invalid literal for int() with base 10: ''", CALL("int", S("")));
  ERR(ERR_VALUE, "invalid literal for int() with base 10: '1.5'", CALL("int", S("1.5")));
  ERR(ERR_VALUE, "invalid literal for int() with base 10: '1__0'", CALL("int", S("1__0")));
  ERR(ERR_VALUE, "invalid literal for int() with base 0: '010'", CALL("int", S("010"), I(0)));
  ERR(ERR_VALUE, "invalid literal for int() with base 2: '12'", CALL("int", S("12"), I(2)));
  ERR(ERR_VALUE, "cannot convert float NaN to integer", CALL("int", F(NAN)));
  ERR(ERR_OVERFLOW, "cannot convert float infinity to integer", CALL("int", F(INFINITY)));
  EQ(CALL("int", F(1e20)), "100000000000000000000");   /* beyond int64: Python's ints (bigint.c) */
  EQ(CALL("int", S("9223372036854775808")), "9223372036854775808");
  EQ(CALL("int", S("-123456789012345678901234567890")), "-123456789012345678901234567890");
  ERR(ERR_TYPE, "int() argument must be a string, a bytes-like object or a real number, not 'list'",
      CALL("int", LST(0)));
  ERR(ERR_TYPE, "int() can't convert non-string with explicit base", CALL("int", I(1), I(2)));
  ERR(ERR_VALUE, "int() base must be >= 2 and <= 36, or 0", CALL("int", S("12"), I(1)));

  EQ(CALL0("float"), "0.0");
  EQ(CALL("float", S("1.5")), "1.5");
  EQ(CALL("float", S(" -2.5e3 ")), "-2500.0");
  EQ(CALL("float", S("1_000.5")), "1000.5");
  EQ(CALL("float", S(".5")), "0.5");
  EQ(CALL("float", S("5.")), "5.0");
  EQ(CALL("float", S("inf")), "inf");
  EQ(CALL("float", S("-Infinity")), "-inf");
  EQ(CALL("float", S("nan")), "nan");
  EQ(CALL("float", S("1e500")), "inf");
  EQ(CALL("float", I(3)), "3.0");
  EQ(CALL("float", B(true)), "1.0");
  ERR(ERR_VALUE, "could not convert string to float: 'abc'", CALL("float", S("abc")));
  ERR(ERR_VALUE, "could not convert string to float: '0x10'", CALL("float", S("0x10")));
  ERR(ERR_VALUE, "could not convert string to float: ''", CALL("float", S("")));
  ERR(ERR_VALUE, "could not convert string to float: '1_'", CALL("float", S("1_")));
  ERR(ERR_TYPE, "float() argument must be a string or a real number, not 'list'", CALL("float", LST(0)));

  EQ(CALL0("bool"), "False");
  EQ(CALL("bool", S("")), "False");
  EQ(CALL("bool", LST(1, I(0))), "True");
  EQ(CALL("bool", F(0.0)), "False");
  EQ(CALL0("str"), "''");
  EQ(CALL("str", F(0.1)), "'0.1'");
  EQ(CALL("str", LST(2, S("a"), N())), "\"['a', None]\"");
  EQ(CALL("str", S("x")), "'x'");
  EQ(CALL("repr", S("x")), "\"'x'\"");
  EQ(CALL("repr", F(1e16)), "'1e+16'");
  EQ(CALLK("str", K1("object", I(5))), "'5'");
}
END_TEST

START_TEST(test_abs_round_misc) {
  EQ(CALL("abs", I(-5)), "5");
  EQ(CALL("abs", F(-2.5)), "2.5");
  EQ(CALL("abs", B(true)), "1");
  EQ(CALL("abs", I(INT64_MIN)), "9223372036854775808");
  ERR(ERR_TYPE, "bad operand type for abs(): 'str'", CALL("abs", S("a")));
  EQ(CALL("round", F(2.5)), "2");
  EQ(CALL("round", F(3.5)), "4");
  EQ(CALL("round", F(-2.5)), "-2");
  EQ(CALL("round", F(2.675), I(2)), "2.67");
  EQ(CALL("round", F(0.125), I(2)), "0.12");
  EQ(CALL("round", F(0.375), I(2)), "0.38");
  EQ(CALL("round", F(1234.5678), I(-2)), "1200.0");
  EQ(CALL("round", F(1250.0), I(-2)), "1200.0");
  EQ(CALL("round", F(-0.4)), "0");
  EQ(CALL("round", F(-0.4), I(0)), "-0.0");
  EQ(CALL("round", I(1234), I(-2)), "1200");
  EQ(CALL("round", I(1250), I(-2)), "1200");
  EQ(CALL("round", I(1350), I(-2)), "1400");
  EQ(CALL("round", I(-1250), I(-2)), "-1200");
  EQ(CALL("round", I(7), I(3)), "7");
  EQ(CALLK("round", K1("ndigits", I(1)), F(0.25)), "0.2");
  EQ(CALL("round", F(1e300), I(2)), "1e+300");
  ERR(ERR_OVERFLOW, "cannot convert float infinity to integer", CALL("round", F(INFINITY)));
  ERR(ERR_VALUE, "cannot convert float NaN to integer", CALL("round", F(NAN)));
  ERR(ERR_TYPE, "type str doesn't define __round__ method", CALL("round", S("a")));
  EQ(CALL("divmod", I(-7), I(2)), "(-4, 1)");
  EQ(CALL("divmod", F(7.5), I(2)), "(3.0, 1.5)");
  ERR(ERR_ZERODIV, "integer division or modulo by zero", CALL("divmod", I(1), I(0)));
  EQ(CALL("pow", I(2), I(10)), "1024");
  EQ(CALL("pow", I(3), I(4), I(5)), "1");
  EQ(CALL("pow", I(-3), I(3), I(5)), "3");
  EQ(CALL("pow", I(2), I(-1)), "0.5");
  EQ(CALL("chr", I(65)), "'A'");
  EQ(CALL("chr", I(233)), "'\xc3\xa9'");
  EQ(CALL("ord", S("\xc3\xa9")), "233");
  EQ(CALL("ord", S("a")), "97");
  ERR(ERR_VALUE, "chr() arg not in range(0x110000)", CALL("chr", I(-1)));
  ERR(ERR_TYPE, "ord() expected a character, but string of length 2 found", CALL("ord", S("ab")));
  EQ(CALL("hex", I(255)), "'0xff'");
  EQ(CALL("hex", I(-255)), "'-0xff'");
  EQ(CALL("bin", I(5)), "'0b101'");
  EQ(CALL("oct", I(8)), "'0o10'");
  ERR(ERR_TYPE, "'float' object cannot be interpreted as an integer", CALL("hex", F(1.5)));
  EQ(CALL("hash", I(5)), "5");
  EQ(CALL("hash", I(-1)), "-2");
  ERR(ERR_TYPE, "unhashable type: 'list'", CALL("hash", LST(0)));
  EQ(CALL("format", F(3.14159), S(".2f")), "'3.14'");
  EQ(CALL("format", I(5)), "'5'");
  EQ(CALL("callable", rt_builtin("len")), "True");
  EQ(CALL("callable", rt_builtin("int")), "True");
  EQ(CALL("callable", I(1)), "False");
}
END_TEST

START_TEST(test_len_and_errors) {
  EQ(CALL("len", S("h\xc3\xa9llo")), "5");
  EQ(CALL("len", LST(2, I(1), I(2))), "2");
  EQ(CALL("len", TUP(0)), "0");
  EQ(CALL("len", range_new(0, 10, 3)), "4");
  EQ(CALL("len", range_new(10, 0, 1)), "0");
  EQ(CALL("len", dict_new()), "0");
  ERR(ERR_TYPE, "object of type 'int' has no len()", CALL("len", I(5)));
  ERR(ERR_TYPE, "len() takes exactly one argument (0 given)", CALL0("len"));
  ERR(ERR_TYPE, "len() takes exactly one argument (2 given)", CALL("len", I(1), I(2)));
  ERR(ERR_TYPE, "len() takes no keyword arguments", CALLK("len", K1("obj", I(1)), I(1)));
}
END_TEST

/* ---- iteration builtins ------------------------------------------------------------------------ */

START_TEST(test_range) {
  EQ(CALL("range", I(5)), "range(0, 5)");
  EQ(CALL("list", CALL("range", I(2), I(10), I(3))), "[2, 5, 8]");
  EQ(CALL("list", CALL("range", I(5), I(0), I(-2))), "[5, 3, 1]");
  EQ(CALL("list", CALL("range", I(-3))), "[]");
  EQ(CALL("range", B(true)), "range(0, 1)");
  ERR(ERR_TYPE, "'float' object cannot be interpreted as an integer", CALL("range", F(1.5)));
  ERR(ERR_VALUE, "range() arg 3 must not be zero", CALL("range", I(1), I(2), I(0)));
  ERR(ERR_TYPE, "range() takes no keyword arguments", CALLK("range", K1("x", I(2)), I(1)));
  ERR(ERR_TYPE, "range expected at least 1 argument, got 0", CALL0("range"));
  ERR(ERR_TYPE, "range expected at most 3 arguments, got 4", CALL("range", I(1), I(2), I(3), I(4)));
}
END_TEST

START_TEST(test_min_max_sum) {
  EQ(CALL("max", LST(3, I(1), I(5), I(3))), "5");
  EQ(CALL("min", I(4), F(2.5), I(3)), "2.5");
  EQ(CALL("max", S("abc")), "'c'");
  EQ(CALL("max", I(1), B(true)), "1");   /* the first of equal maxima */
  EQ(CALLK("max", K1("key", rt_builtin("len")), LST(3, S("a"), S("ccc"), S("bb"))), "'ccc'");
  EQ(CALLK("min", K1("default", I(7)), LST(0)), "7");
  ERR(ERR_VALUE, "max() arg is an empty sequence", CALL("max", LST(0)));
  ERR(ERR_VALUE, "min() arg is an empty sequence", CALL("min", TUP(0)));
  ERR(ERR_TYPE, "'int' object is not iterable", CALL("max", I(1)));
  ERR(ERR_TYPE, "max expected at least 1 argument, got 0", CALL0("max"));
  ERR(ERR_TYPE, "'<' not supported between instances of 'str' and 'int'", CALL("min", I(1), S("a")));
  ERR(ERR_TYPE, "'int' object is not callable", CALLK("min", K1("key", I(5)), I(1), I(2)));
  ERR(ERR_TYPE, "'foo' is an invalid keyword argument for max()", CALLK("max", K1("foo", I(5)), I(1), I(2)));
  EQ(CALL("sum", LST(3, I(1), I(2), I(3))), "6");
  EQ(CALL("sum", LST(2, I(1), F(0.5))), "1.5");
  EQ(CALL("sum", LST(2, I(1), I(2)), I(10)), "13");
  EQ(CALLK("sum", K1("start", LST(0)), LST(2, LST(1, I(1)), LST(1, I(2)))), "[1, 2]");
  EQ(CALL("sum", CALL("range", I(101))), "5050");
  ERR(ERR_TYPE, "sum() can't sum strings [use ''.join(seq) instead]", CALL("sum", LST(1, S("a")), S("")));
  ERR(ERR_TYPE, "unsupported operand type(s) for +: 'int' and 'str'", CALL("sum", LST(2, I(1), S("a"))));
  EQ(CALL("sum", LST(2, I(INT64_MAX), I(1))), "9223372036854775808");
  EQ(CALL("any", LST(2, I(0), S("x"))), "True");
  EQ(CALL("any", LST(0)), "False");
  EQ(CALL("all", LST(2, I(1), S(""))), "False");
  EQ(CALL("all", TUP(0)), "True");
}
END_TEST

START_TEST(test_iterators) {
  EQ(CALL("list", CALL("enumerate", S("ab"))), "[(0, 'a'), (1, 'b')]");
  EQ(CALL("list", CALL("enumerate", LST(1, N()), I(5))), "[(5, None)]");
  EQ(CALL("list", CALLK("enumerate", K1("start", I(1)), TUP(1, I(9)))), "[(1, 9)]");
  EQ(CALL("list", CALL("zip", LST(3, I(1), I(2), I(3)), S("ab"))), "[(1, 'a'), (2, 'b')]");
  EQ(CALL("list", CALL0("zip")), "[]");
  EQ(CALL("list", CALL("map", rt_builtin("abs"), LST(2, I(-1), I(2)))), "[1, 2]");
  EQ(CALL("list", CALL("map", rt_builtin("pow"), LST(2, I(2), I(3)), LST(2, I(3), I(2)))), "[8, 9]");
  EQ(CALL("list", CALL("filter", N(), LST(3, I(0), I(1), S("")))), "[1]");
  EQ(CALL("list", CALL("reversed", LST(3, I(1), I(2), I(3)))), "[3, 2, 1]");
  EQ(CALL("list", CALL("reversed", S("abc"))), "['c', 'b', 'a']");
  EQ(CALL("list", CALL("reversed", range_new(0, 3, 1))), "[2, 1, 0]");
  EQ(CALL("tuple", LST(2, I(1), I(2))), "(1, 2)");
  EQ(CALL("tuple", S("ab")), "('a', 'b')");
  EQ(CALL("list", TUP(2, I(1), I(2))), "[1, 2]");
  EQ(CALL0("list"), "[]");
  EQ(CALL0("tuple"), "()");
  Val it = CALL("iter", LST(2, I(1), I(2)));
  EQ(CALL("next", val_incref(it)), "1");
  EQ(CALL("next", val_incref(it)), "2");
  EQ(CALL("next", val_incref(it), S("end")), "'end'");
  ERR(ERR_STOPITER, "", CALL("next", val_incref(it)));
  val_decref(it);
  ERR(ERR_TYPE, "'list' object is not an iterator", CALL("next", LST(0)));
  ERR(ERR_TYPE, "'int' object is not iterable", CALL("iter", I(5)));
  ERR(ERR_TYPE, "'int' object is not iterable", CALL("zip", I(5)));
  ERR(ERR_TYPE, "'int' object is not iterable", CALL("enumerate", I(5)));
  ERR(ERR_TYPE, "'int' object is not iterable", CALL("list", I(5)));
  ERR(ERR_TYPE, "'int' object is not iterable", CALL("tuple", I(5)));
  ERR(ERR_TYPE, "'int' object is not reversible", CALL("reversed", I(5)));
}
END_TEST

START_TEST(test_sorted) {
  EQ(CALL("sorted", LST(5, I(3), I(1), F(2.5), B(true), I(-1))), "[-1, 1, True, 2.5, 3]");
  EQ(CALLK("sorted", K1("reverse", B(true)), LST(4, I(1), I(3), I(2), B(true))), "[3, 2, 1, True]");
  EQ(CALLK("sorted", K1("key", rt_builtin("len")), LST(4, S("ccc"), S("a"), S("bb"), S("d"))),
     "['a', 'd', 'bb', 'ccc']");
  EQ(CALLK("sorted", K2("key", rt_builtin("len"), "reverse", B(true)), LST(4, S("ccc"), S("a"), S("bb"), S("d"))),
     "['ccc', 'bb', 'a', 'd']");
  EQ(CALL("sorted", S("cab")), "['a', 'b', 'c']");
  EQ(CALL("sorted", LST(3, TUP(2, I(1), S("b")), TUP(2, I(1), S("a")), TUP(1, I(0)))), "[(0,), (1, 'a'), (1, 'b')]");
  Val big = list_new(0);
  for (int i = 0; i < 1000; i++) list_append(big, I((i * 7919) % 1000));
  Val sorted = CALL("sorted", val_incref(big));
  for (int i = 0; i < 1000; i++) ck_assert_int_eq(((List *)sorted.u.o)->items[i].u.i, i);
  val_decref(sorted);
  val_decref(big);
  ERR(ERR_TYPE, "'<' not supported between instances of 'str' and 'int'", CALL("sorted", LST(2, I(1), S("a"))));
  ERR(ERR_TYPE, "'foo' is an invalid keyword argument for sort()", CALLK("sorted", K1("foo", I(1)), LST(0)));
  ERR(ERR_TYPE, "object of type 'int' has no len()", CALLK("sorted", K1("key", rt_builtin("len")), LST(2, I(1), I(2))));
}
END_TEST

/* ---- types --------------------------------------------------------------------------------------- */

START_TEST(test_types) {
  EQ(CALL("type", I(1)), "<class 'int'>");
  EQ(CALL("type", B(true)), "<class 'bool'>");
  EQ(CALL("type", N()), "<class 'NoneType'>");
  EQ(CALL("type", S("")), "<class 'str'>");
  EQ(CALL("type", dict_new()), "<class 'dict'>");
  EQ(CALL("type", rt_builtin("len")), "<class 'builtin_function_or_method'>");
  EQ(CALL("type", rt_builtin("int")), "<class 'type'>");
  EQ(rt_compare(CMP_IS, CALL("type", I(1)), rt_builtin("int")), "True");
  EQ(CALL("isinstance", I(1), rt_builtin("int")), "True");
  EQ(CALL("isinstance", B(true), rt_builtin("int")), "True");
  EQ(CALL("isinstance", I(1), rt_builtin("bool")), "False");
  EQ(CALL("isinstance", I(1), rt_builtin("float")), "False");
  EQ(CALL("isinstance", F(1), rt_builtin("float")), "True");
  EQ(CALL("isinstance", S("a"), rt_builtin("str")), "True");
  EQ(CALL("isinstance", LST(0), TUP(2, rt_builtin("tuple"), rt_builtin("list"))), "True");
  EQ(CALL("isinstance", range_new(0, 1, 1), rt_builtin("range")), "True");
  EQ(CALL("isinstance", N(), rt_builtin("object")), "True");
  EQ(CALL("isinstance", CALL("ValueError", S("x")), rt_builtin("Exception")), "True");
  EQ(CALL("isinstance", CALL("ValueError", S("x")), rt_builtin("TypeError")), "False");
  ERR(ERR_TYPE, "isinstance() arg 2 must be a type, a tuple of types, or a union", CALL("isinstance", I(1), I(5)));
  EQ(CALL("dict", LST(2, TUP(2, S("a"), I(1)), TUP(2, S("b"), I(2)))), "{'a': 1, 'b': 2}");
  EQ(CALLK("dict", K1("x", I(1))), "{'x': 1}");
  ERR(ERR_VALUE, "dictionary update sequence element #0 has length 1; 2 is required", CALL("dict", LST(1, TUP(1, I(1)))));
  ERR(ERR_TYPE, "cannot convert dictionary update sequence element #0 to a sequence", CALL("dict", LST(1, I(1))));
  EQ(CALL("slice", I(3)), "slice(None, 3, None)");
  EQ(CALL("slice", I(1), I(3), I(2)), "slice(1, 3, 2)");
  EQ(CALL("ValueError", S("bad")), "ValueError('bad')");
  EQ(CALL("str", CALL("KeyError", S("k"))), "\"'k'\"");   /* str(KeyError('k')) is the key's repr */
  EQ(CALL("repr", CALL("KeyError", S("k"))), "\"KeyError('k')\"");
  EQ(CALL("repr", CALL("ValueError", S("a"), I(2))), "\"ValueError('a', 2)\"");
  EQ(CALL("isinstance", CALL("ZeroDivisionError"), rt_builtin("ArithmeticError")), "True");
  EQ(CALL("isinstance", CALL("KeyError"), rt_builtin("LookupError")), "True");
  EQ(CALL("isinstance", CALL("KeyError"), rt_builtin("IndexError")), "False");
  EQ(CALL("isinstance", CALL("KeyboardInterrupt"), rt_builtin("Exception")), "False");
  EQ(CALL("isinstance", CALL("KeyboardInterrupt"), rt_builtin("BaseException")), "True");
  EQ(rt_getattr(rt_builtin("int"), "__name__"), "'int'");
  ERR(ERR_TYPE, "cannot create 'NoneType' instances", call_own(CALL("type", N()), NULL, 0, NULL));
}
END_TEST

START_TEST(test_getattr_family) {
  Val l = LST(0);
  EQ(CALL("getattr", val_incref(l), S("nope"), I(3)), "3");
  EQ(CALL("hasattr", val_incref(l), S("append")), "True");
  EQ(CALL("hasattr", val_incref(l), S("nope")), "False");
  Val app = CALL("getattr", val_incref(l), S("append"));
  val_decref(call_own(app, (Val[]){I(1)}, 1, NULL));
  EQ(val_incref(l), "[1]");
  ERR(ERR_ATTRIBUTE, "'list' object has no attribute 'nope'", CALL("getattr", val_incref(l), S("nope")));
  ERR(ERR_TYPE, "getattr(): attribute name must be string, not 'int'", CALL("getattr", val_incref(l), I(1)));
  ERR(ERR_ATTRIBUTE, "'list' object has no attribute 'x'", CALL("setattr", val_incref(l), S("x"), I(1)));
  val_decref(l);
  Val abc = S("abc"), m = rt_getattr(abc, "upper");
  val_decref(abc);   /* the bound method keeps its receiver */
  ck_assert(!strncmp(R(m), "<built-in method upper of str object at 0x", 42));
}
END_TEST

/* ---- print ---------------------------------------------------------------------------------------- */

/* Run the print builtin with stdout redirected to a file; returns what it wrote. */
static const char *capture_print(int n, Val *args, const Kw *kw) {
  static char buf[4096];
  char path[] = "/tmp/tfs_test_builtins_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  rt_flush();
  int saved = dup(1);
  dup2(fd, 1);
  val_decref(call_own(rt_builtin("print"), args, n, kw));
  rt_flush();
  dup2(saved, 1);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  ssize_t got = read(fd, buf, sizeof buf - 1);
  buf[got > 0 ? got : 0] = 0;
  close(fd);
  unlink(path);
  return buf;
}

START_TEST(test_print) {
  ck_assert_str_eq(capture_print(0, NULL, NULL), "\n");
  ck_assert_str_eq(capture_print(4, (Val[]){I(1), F(2.0), S("a"), N()}, NULL), "1 2.0 a None\n");
  ck_assert_str_eq(capture_print(2, (Val[]){LST(2, S("x"), F(0.1)), TUP(1, B(true))}, NULL), "['x', 0.1] (True,)\n");
  ck_assert_str_eq(capture_print(2, (Val[]){I(1), I(2)}, K2("sep", S(", "), "end", S("!"))), "1, 2!");
  ck_assert_str_eq(capture_print(2, (Val[]){I(1), I(2)}, K2("sep", N(), "end", N())), "1 2\n");
  ck_assert_str_eq(capture_print(1, (Val[]){F(1e-05)}, K1("flush", B(true))), "1e-05\n");
  ERR(ERR_TYPE, "sep must be None or a string, not int", CALLK("print", K1("sep", I(1)), I(1)));
  ERR(ERR_TYPE, "'foo' is an invalid keyword argument for print()", CALLK("print", K1("foo", I(1)), I(1)));
}
END_TEST

/* ---- str methods ------------------------------------------------------------------------------------ */

START_TEST(test_str_methods) {
  EQ(METH(S(", "), "join", LST(3, S("a"), S("b"), S("c"))), "'a, b, c'");
  EQ(METH(S("-"), "join", S("xyz")), "'x-y-z'");
  EQ(METH(S("-"), "join", LST(0)), "''");
  ERR(ERR_TYPE, "sequence item 1: expected str instance, int found", METH(S(""), "join", LST(2, S("a"), I(1))));
  EQ(METH0(S(" a  b\tc\n"), "split"), "['a', 'b', 'c']");
  EQ(METH(S("a,b,,c"), "split", S(",")), "['a', 'b', '', 'c']");
  EQ(METH(S("a,b,,c"), "split", S(","), I(1)), "['a', 'b,,c']");
  EQ(METHK(S(" a b c "), "split", K1("maxsplit", I(1))), "['a', 'b c ']");
  EQ(METH(S(" a b c "), "rsplit", N(), I(1)), "[' a b', 'c']");
  EQ(METH(S("a::b::c"), "rsplit", S("::"), I(1)), "['a::b', 'c']");
  EQ(METH0(S(""), "split"), "[]");
  EQ(METH(S(""), "split", S(",")), "['']");
  ERR(ERR_VALUE, "empty separator", METH(S("a"), "split", S("")));
  EQ(METH0(S("a\nb\r\nc"), "splitlines"), "['a', 'b', 'c']");
  EQ(METH(S("a\nb\n"), "splitlines", B(true)), "['a\\n', 'b\\n']");
  EQ(METH0(S("MiXed \xc3\xa9"), "upper"), "'MIXED \xc3\x89'");
  EQ(METH0(S("\xce\xa3\xcf\x89\xd0\x96"), "lower"), "'\xcf\x83\xcf\x89\xd0\xb6'");
  EQ(METH0(S("\xc3\xa9t\xc3\xa9 x1y"), "title"), "'\xc3\x89t\xc3\xa9 X1Y'");
  EQ(METH0(S("MiXed"), "lower"), "'mixed'");
  EQ(METH0(S("hello world"), "title"), "'Hello World'");
  EQ(METH0(S("hELLO"), "capitalize"), "'Hello'");
  EQ(METH0(S("aBc"), "swapcase"), "'AbC'");
  ERR(ERR_TYPE, "str.upper() takes no arguments (1 given)", METH(S("a"), "upper", I(1)));
  EQ(METH(S("hello"), "startswith", S("he")), "True");
  EQ(METH(S("hello"), "startswith", TUP(2, S("x"), S("hel"))), "True");
  EQ(METH(S("hello"), "startswith", S("l"), I(2)), "True");
  EQ(METH(S("hello"), "endswith", S("lo")), "True");
  EQ(METH(S("hello"), "endswith", S("ll"), I(0), I(4)), "True");
  EQ(METH(S("hello"), "startswith", S(""), I(6)), "False");
  ERR(ERR_TYPE, "startswith first arg must be str or a tuple of str, not int", METH(S("a"), "startswith", I(1)));
  EQ(METH0(S("  pad \n"), "strip"), "'pad'");
  EQ(METH0(S("  pad "), "lstrip"), "'pad '");
  EQ(METH0(S("  pad "), "rstrip"), "'  pad'");
  EQ(METH(S("xxpadyx"), "strip", S("xy")), "'pad'");
  EQ(METH(S("\xc3\xa9" "a\xc3\xa9"), "strip", S("\xc3\xa9")), "'a'");
  EQ(METH(S("aaa"), "replace", S("a"), S("bb")), "'bbbbbb'");
  EQ(METH(S("aaa"), "replace", S("a"), S("b"), I(2)), "'bba'");
  EQ(METH(S("ab"), "replace", S(""), S("-")), "'-a-b-'");
  EQ(METH(S("ab"), "replace", S(""), S("-"), I(2)), "'-a-b'");
  ERR(ERR_TYPE, "replace() argument 1 must be str, not int", METH(S("a"), "replace", I(1), I(2)));
  ERR(ERR_TYPE, "replace expected at least 2 arguments, got 1", METH(S("a"), "replace", S("a")));
  EQ(METH(S("banana"), "count", S("an")), "2");
  EQ(METH(S("banana"), "count", S("a"), I(2)), "2");
  EQ(METH(S("banana"), "count", S("")), "7");
  EQ(METH(S("h\xc3\xa9llo"), "find", S("l")), "2");
  EQ(METH(S("hello"), "find", S("l"), I(3)), "3");
  EQ(METH(S("hello"), "find", S("z")), "-1");
  EQ(METH(S("hello"), "find", S(""), I(9)), "-1");
  EQ(METH(S("hello"), "rfind", S("l")), "3");
  EQ(METH(S("hello"), "index", S("e")), "1");
  ERR(ERR_VALUE, "substring not found", METH(S("abc"), "index", S("z")));
  ERR(ERR_TYPE, "must be str, not int", METH(S("a"), "count", I(1)));
  ERR(ERR_TYPE, "find() takes at least 1 argument (0 given)", METH0(S("x"), "find"));
  EQ(METH(S("ab"), "center", I(6), S("*")), "'**ab**'");
  EQ(METH(S("abc"), "center", I(6)), "' abc  '");
  EQ(METH(S("ab"), "ljust", I(4)), "'ab  '");
  EQ(METH(S("ab"), "rjust", I(4), S("0")), "'00ab'");
  EQ(METH(S("-42"), "zfill", I(6)), "'-00042'");
  EQ(METH(S("a=b=c"), "partition", S("=")), "('a', '=', 'b=c')");
  EQ(METH(S("a=b=c"), "rpartition", S("=")), "('a=b', '=', 'c')");
  EQ(METH(S("abc"), "partition", S("=")), "('abc', '', '')");
  EQ(METH0(S("123"), "isdigit"), "True");
  EQ(METH0(S(""), "isdigit"), "False");
  EQ(METH0(S("ab1"), "isalpha"), "False");
  EQ(METH0(S(" \t"), "isspace"), "True");
  EQ(METH0(S("AB1"), "isupper"), "True");
  ERR(ERR_ATTRIBUTE, "'str' object has no attribute 'nope'", METH0(S("a"), "nope"));
}
END_TEST

START_TEST(test_str_format) {
  EQ(METH(S("{} and {}"), "format", I(1), S("x")), "'1 and x'");
  EQ(METH(S("{1}{0}{1}"), "format", S("a"), S("b")), "'bab'");
  EQ(METHK(S("{x:>5}|{y!r}"), "format", K2("x", I(42), "y", S("s"))), "\"   42|'s'\"");
  EQ(METH(S("{:.2f} {:,}"), "format", F(3.14159), I(1234567)), "'3.14 1,234,567'");
  EQ(METH(S("{{}} {}"), "format", I(1)), "'{} 1'");
  EQ(METH(S("{0[1]} {0[0]}"), "format", LST(2, S("a"), S("b"))), "'b a'");
  EQ(METH(S("{:{}}|"), "format", I(7), I(4)), "'   7|'");
  EQ(METHK(S("{:*^{w}}"), "format", K1("w", I(0)), S("x")), "'x'");
  EQ(METHK(S("{:*^{w}}"), "format", K1("w", I(5)), S("x")), "'**x**'");
  ERR(ERR_INDEX, "Replacement index 1 out of range for positional args tuple", METH(S("{} {}"), "format", I(1)));
  ERR(ERR_VALUE, "cannot switch from manual field specification to automatic field numbering",
      METH(S("{0} {}"), "format", I(1), I(2)));
  ERR(ERR_KEY, "'x'", METH(S("{x}"), "format", I(1)));
  ERR(ERR_VALUE, "Single '}' encountered in format string", METH(S("a}"), "format", I(1)));
  ERR(ERR_VALUE, "expected '}' before end of string", METH(S("{0"), "format", I(1)));
  ERR(ERR_INDEX, "list index out of range", METH(S("{0[5]}"), "format", LST(1, I(1))));
  ERR(ERR_VALUE, "Unknown format code 'd' for object of type 'str'", METH(S("{:d}"), "format", S("a")));
}
END_TEST

/* ---- list, tuple and dict methods ------------------------------------------------------------------------- */

START_TEST(test_list_methods) {
  Val l = LST(0);
  val_decref(METH(val_incref(l), "append", I(1)));
  val_decref(METH(val_incref(l), "extend", TUP(2, I(2), I(3))));
  val_decref(METH(val_incref(l), "insert", I(0), S("a")));
  val_decref(METH(val_incref(l), "insert", I(-1), S("b")));
  val_decref(METH(val_incref(l), "insert", I(99), S("z")));
  EQ(val_incref(l), "['a', 1, 2, 'b', 3, 'z']");
  EQ(METH0(val_incref(l), "pop"), "'z'");
  EQ(METH(val_incref(l), "pop", I(0)), "'a'");
  EQ(METH(val_incref(l), "index", I(2)), "1");
  EQ(METH(val_incref(l), "index", F(3.0)), "3");
  EQ(METH(val_incref(l), "count", I(2)), "1");
  val_decref(METH(val_incref(l), "remove", S("b")));
  EQ(val_incref(l), "[1, 2, 3]");
  val_decref(METH0(val_incref(l), "reverse"));
  EQ(val_incref(l), "[3, 2, 1]");
  Val c = METH0(val_incref(l), "copy");
  val_decref(METH0(val_incref(l), "sort"));
  EQ(val_incref(l), "[1, 2, 3]");
  EQ(c, "[3, 2, 1]");
  val_decref(METHK(val_incref(l), "sort", K1("reverse", B(true))));
  EQ(val_incref(l), "[3, 2, 1]");
  val_decref(METH(val_incref(l), "extend", val_incref(l)));
  EQ(val_incref(l), "[3, 2, 1, 3, 2, 1]");
  ERR(ERR_VALUE, "5 is not in list", METH(val_incref(l), "index", I(5)));
  ERR(ERR_VALUE, "'x' is not in list", METH(val_incref(l), "index", S("x")));
  ERR(ERR_VALUE, "list.remove(x): x not in list", METH(val_incref(l), "remove", I(5)));
  ERR(ERR_INDEX, "pop index out of range", METH(val_incref(l), "pop", I(6)));
  ERR(ERR_TYPE, "list.append() takes exactly one argument (0 given)", METH0(val_incref(l), "append"));
  ERR(ERR_TYPE, "list.append() takes exactly one argument (2 given)", METH(val_incref(l), "append", I(1), I(2)));
  ERR(ERR_TYPE, "insert expected 2 arguments, got 1", METH(val_incref(l), "insert", I(1)));
  ERR(ERR_TYPE, "sort() takes no positional arguments", METH(val_incref(l), "sort", I(1)));
  ERR(ERR_TYPE, "'int' object is not iterable", METH(val_incref(l), "extend", I(1)));
  val_decref(METH0(val_incref(l), "clear"));
  EQ(val_incref(l), "[]");
  ERR(ERR_INDEX, "pop from empty list", METH0(val_incref(l), "pop"));
  val_decref(l);
  EQ(METH(TUP(3, I(1), I(2), I(1)), "count", I(1)), "2");
  EQ(METH(TUP(3, I(1), I(2), I(1)), "index", I(2)), "1");
  ERR(ERR_VALUE, "tuple.index(x): x not in tuple", METH(TUP(1, I(1)), "index", I(2)));
  ERR(ERR_ATTRIBUTE, "'tuple' object has no attribute 'append'", METH(TUP(0), "append", I(1)));
  /* a key that raises midway leaves the list intact and leaks nothing */
  Val m = LST(3, S("a"), I(1), S("b"));
  ERR(ERR_TYPE, "object of type 'int' has no len()", METHK(val_incref(m), "sort", K1("key", rt_builtin("len"))));
  EQ(m, "['a', 1, 'b']");
}
END_TEST

START_TEST(test_dict_methods) {
  Val d = dict_new(), k = S("k");
  dict_set(d, k, I(1));
  Val two = S("two");
  dict_set(d, I(2), two);
  val_decref(two);
  EQ(METH0(val_incref(d), "keys"), "dict_keys(['k', 2])");
  EQ(METH0(val_incref(d), "values"), "dict_values([1, 'two'])");
  EQ(METH0(val_incref(d), "items"), "dict_items([('k', 1), (2, 'two')])");
  EQ(CALL("list", METH0(val_incref(d), "items")), "[('k', 1), (2, 'two')]");
  EQ(CALL("len", METH0(val_incref(d), "keys")), "2");
  Val keys = METH0(val_incref(d), "keys");
  EQ(rt_compare(CMP_IN, k, keys), "True");
  val_decref(keys);
  EQ(METH(val_incref(d), "get", S("k")), "1");
  EQ(METH(val_incref(d), "get", S("zz")), "None");
  EQ(METH(val_incref(d), "get", S("zz"), I(0)), "0");
  EQ(METH(val_incref(d), "setdefault", S("n"), LST(0)), "[]");
  EQ(METH(val_incref(d), "setdefault", S("n"), I(5)), "[]");
  val_decref(METHK(val_incref(d), "update", K1("x", I(9)), LST(1, TUP(2, I(2), S("deux")))));
  EQ(val_incref(d), "{'k': 1, 2: 'deux', 'n': [], 'x': 9}");
  EQ(METH(val_incref(d), "pop", S("n")), "[]");
  EQ(METH(val_incref(d), "pop", S("n"), S("gone")), "'gone'");
  EQ(METH0(val_incref(d), "popitem"), "('x', 9)");
  EQ(METH0(val_incref(d), "copy"), "{'k': 1, 2: 'deux'}");
  EQ(CALL("list", val_incref(d)), "['k', 2]");
  Val it = rt_iter(d), item;
  ck_assert(rt_next(it, &item));
  val_decref(item);
  Val nk = S("new");
  dict_set(d, nk, I(1));
  val_decref(nk);
  ERR(ERR_RUNTIME, "dictionary changed size during iteration", (rt_next(it, &item), val_none()));
  val_decref(it);
  ERR(ERR_KEY, "'n'", METH(val_incref(d), "pop", S("n")));
  Val t12 = TUP(2, I(1), I(2));
  ERR(ERR_KEY, "(1, 2)", rt_getitem(d, t12));
  val_decref(t12);
  ERR(ERR_TYPE, "get expected at least 1 argument, got 0", METH0(val_incref(d), "get"));
  val_decref(METH0(val_incref(d), "clear"));
  EQ(val_incref(d), "{}");
  ERR(ERR_KEY, "'popitem(): dictionary is empty'", METH0(val_incref(d), "popitem"));
  val_decref(d);
  val_decref(k);
}
END_TEST

/* ---- modules: time, timeit -------------------------------------------------------------------------------------------- */

static int counter;
static Val count_fn(Val self, int n, const Val *args, const Kw *kw) {
  counter++;
  return val_none();
}

START_TEST(test_time_modules) {
  Val time = stdlib_native_module("_time"), timeit = stdlib_native_module("timeit");
  Val pc = rt_getattr(time, "perf_counter");
  Val t0 = rt_call(pc, 0, NULL, NULL), t1 = rt_call(pc, 0, NULL, NULL);
  ck_assert(t0.tag == VT_FLOAT && t1.u.f >= t0.u.f);
  Val now = meth_own(val_incref(time), "time", NULL, 0, NULL);
  ck_assert(now.tag == VT_FLOAT && now.u.f > 1.5e9);
  Val fn = builtin_new("count", count_fn, val_undef(), NULL);
  counter = 0;
  Val secs = METHK(val_incref(timeit), "timeit", K1("number", I(1000)), val_incref(fn));
  ck_assert_int_eq(counter, 1000);
  ck_assert(secs.tag == VT_FLOAT && secs.u.f >= 0 && secs.u.f < 5);
  counter = 0;
  val_decref(METHK(val_incref(timeit), "timeit", K1("number", I(3)), val_incref(fn), val_incref(fn)));
  ck_assert_int_eq(counter, 4);   /* setup once, then stmt three times */
  ERR(ERR_ATTRIBUTE, "module 'timeit' has no attribute 'repeat'", rt_getattr(timeit, "repeat"));
  ERR(ERR_TYPE, "'int' object is not callable", METHK(val_incref(timeit), "timeit", K1("number", I(1)), I(5)));
  Val vals[] = {time, timeit, pc, t0, t1, now, fn, secs};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) val_decref(vals[i]);
}
END_TEST

START_TEST(test_argv) {
  char *argv[] = {"prog.tfs", "a b", "3"};
  rt_set_argv(3, argv);
  EQ(rt_builtin("argv"), "['prog.tfs', 'a b', '3']");
  EQ(rt_getitem(rt_builtin("argv"), I(0)) /* the list stays alive: argv holds it */, "'prog.tfs'");
  val_decref(rt_builtin("argv"));
}
END_TEST

static Suite *builtins_suite(void) {
  Suite *s = suite_create("builtins");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_int_float_bool_str);
  tcase_add_test(tc, test_abs_round_misc);
  tcase_add_test(tc, test_len_and_errors);
  tcase_add_test(tc, test_range);
  tcase_add_test(tc, test_min_max_sum);
  tcase_add_test(tc, test_iterators);
  tcase_add_test(tc, test_sorted);
  tcase_add_test(tc, test_types);
  tcase_add_test(tc, test_getattr_family);
  tcase_add_test(tc, test_print);
  tcase_add_test(tc, test_str_methods);
  tcase_add_test(tc, test_str_format);
  tcase_add_test(tc, test_list_methods);
  tcase_add_test(tc, test_dict_methods);
  tcase_add_test(tc, test_time_modules);
  tcase_add_test(tc, test_argv);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(builtins_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
