/* test_compiler.c — Check tests for scope analysis, C generation and the libtcc JIT. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgen.h"
#include "nameidx.h"
#include "jit.h"
#include "parsecache.h"
#include "program.h"

/* Load `src` as prog.tfs; the program must analyse cleanly. */
static void load_ok(Program *p, const char *src) {
  bool ok = program_load_source(p, "prog.tfs", src, strlen(src));
  if (!ok) diag_print(&p->diags, stderr);
  ck_assert(ok);
}

static Sym *sym_in(Program *p, int scope, const char *name) {
  ck_assert_int_lt(scope, p->mods[0]->scopes.n);
  Sym *y = scope_lookup(p->mods[0]->scopes.all[scope], name);
  ck_assert_msg(y != NULL, "no symbol %s in scope %d", name, scope);
  return y;
}

START_TEST(scope_kinds) {
  Program p;
  load_ok(&p, "g = 1\n"
              "def outer(a):\n"
              "    b = a\n"
              "    c = 2\n"
              "    def inner():\n"
              "        nonlocal b\n"
              "        b = b + g\n"
              "        return len([b])\n"
              "    return inner\n");
  /* scope 0: module, 1: outer, 2: inner */
  ck_assert_int_eq(sym_in(&p, 0, "g")->kind, SYM_GLOBAL);
  ck_assert_int_eq(sym_in(&p, 0, "outer")->kind, SYM_GLOBAL);
  ck_assert_int_eq(sym_in(&p, 1, "a")->kind, SYM_LOCAL);
  ck_assert(sym_in(&p, 1, "a")->param);
  ck_assert_int_eq(sym_in(&p, 1, "b")->kind, SYM_CELL);
  ck_assert_int_eq(sym_in(&p, 1, "c")->kind, SYM_LOCAL);
  ck_assert_int_eq(sym_in(&p, 2, "b")->kind, SYM_FREE);
  ck_assert_int_eq(sym_in(&p, 2, "g")->kind, SYM_GLOBAL);
  ck_assert_int_eq(sym_in(&p, 2, "len")->kind, SYM_BUILTIN);
  ck_assert_int_eq(p.mods[0]->scopes.all[2]->nfrees, 1);
  program_free(&p);
}
END_TEST

START_TEST(scope_free_through_intermediate) {
  Program p;
  load_ok(&p, "def a():\n"
              "    x = 1\n"
              "    def b():\n"
              "        def c():\n"
              "            return x\n"
              "        return c\n"
              "    return b\n");
  ck_assert_int_eq(sym_in(&p, 1, "x")->kind, SYM_CELL);
  ck_assert_int_eq(sym_in(&p, 2, "x")->kind, SYM_FREE); /* b passes the cell through */
  ck_assert_int_eq(sym_in(&p, 3, "x")->kind, SYM_FREE);
  program_free(&p);
}
END_TEST

START_TEST(scope_global_decl) {
  Program p;
  load_ok(&p, "def f():\n    global counter\n    counter = 1\nf()\nprint(counter)\n");
  ck_assert_int_eq(sym_in(&p, 1, "counter")->kind, SYM_GLOBAL);
  ck_assert_int_eq(sym_in(&p, 0, "counter")->kind, SYM_GLOBAL);
  ck_assert_int_eq(sym_in(&p, 0, "counter")->index, sym_in(&p, 1, "counter")->index);
  program_free(&p);
}
END_TEST

static void expect_error(const char *src, const char *msg, int line, int col) {
  Program p;
  bool ok = program_load_source(&p, "prog.tfs", src, strlen(src));
  ck_assert(!ok);
  ck_assert_int_ge(p.diags.n, 1);
  bool found = false;
  for (int i = 0; i < p.diags.n; i++)
    if (strcmp(p.diags.items[i].msg, msg) == 0 && p.diags.items[i].line == line && p.diags.items[i].col == col)
      found = true;
  ck_assert_msg(found, "expected '%s' at %d:%d, got '%s' at %d:%d", msg, line, col, p.diags.items[0].msg,
                p.diags.items[0].line, p.diags.items[0].col);
  program_free(&p);
}

START_TEST(scope_errors) {
  expect_error("x = 1\nprint(y)\n", "name 'y' is not defined", 2, 7);
  expect_error("def f():\n    nonlocal q\n    q = 1\n", "no binding for nonlocal 'q' found", 2, 14);
  /* Several unknown names are all reported. */
  Program p;
  const char *src = "print(a)\nprint(b)\n";
  ck_assert(!program_load_source(&p, "prog.tfs", src, strlen(src)));
  ck_assert_int_eq(p.diags.n, 2);
  program_free(&p);
}
END_TEST

/* An unknown module is Python's ModuleNotFoundError at run time (a try can
 * catch it), not a compile error; `import tensorflow as tf` leaves tf the builtin. */
START_TEST(import_errors) {
  Program p;
  load_ok(&p, "import no_such_module_here\nimport tensorflow as tf\nimport keras\nprint(tf, keras)\n");
  ck_assert_int_eq(p.diags.n, 0);
  ck_assert_int_eq(sym_in(&p, 0, "keras")->kind, SYM_GLOBAL);
  Sym *tf = scope_lookup(p.mods[0]->scopes.module, "tf");
  ck_assert(!tf || tf->kind == SYM_BUILTIN);
  program_free(&p);
}
END_TEST

/* Generated C compiles with libtcc and defines the program entry points. */
START_TEST(cgen_jit_compiles) {
  Program p;
  load_ok(&p, "def f(x, y=2):\n"
              "    s = 0\n"
              "    for i in range(x):\n"
              "        if i % 2 == 0 and i > y:\n"
              "            continue\n"
              "        s += i\n"
              "    while s > 100:\n"
              "        s -= 1\n"
              "        break\n"
              "    return (s, [1, 2], {'k': f'{s:3d}'}, lambda q: q + s)\n"
              "a, b = 1, 2\n"
              "print(f(10), a < b <= 3, not a, a if b else 0)\n");
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  ck_assert(cgen_program(&p, &c, false));
  /* the file is named once per function, then lines only */
  ck_assert_ptr_nonnull(strstr(c.data, "#line 2 \"prog.tfs\""));
  ck_assert_ptr_nonnull(strstr(c.data, "#line 4\n"));
  Jit *j = jit_compile(c.data, &err);
  ck_assert_msg(j != NULL, "tcc: %s", err.data ? err.data : "");
  ck_assert_ptr_nonnull(jit_symbol(j, "tfs_program_main"));
  ck_assert_ptr_nonnull(jit_symbol(j, "tfs_program_exit"));
  ck_assert_ptr_null(jit_symbol(j, "main"));
  jit_free(j);
  sb_free(&c);
  sb_free(&err);
  program_free(&p);
}
END_TEST

START_TEST(cgen_with_main) {
  Program p;
  load_ok(&p, "print(1)\n");
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  ck_assert(cgen_program(&p, &c, true));
  Jit *j = jit_compile(c.data, &err);
  ck_assert_ptr_nonnull(j);
  ck_assert_ptr_nonnull(jit_symbol(j, "main"));
  jit_free(j);
  sb_free(&c);
  sb_free(&err);
  program_free(&p);
}
END_TEST

/* tfs run's library units (cgen_program_units): a library module's C is the
 * same whatever else the program holds (its index differs), and reaches the
 * modules it imports through IM_[] only. */
static const CgUnit *unit_named(const CgUnit *us, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(us[i].name, name)) return &us[i];
  return NULL;
}

START_TEST(units_independent) {
  const char *src[2] = {"import json\nprint(json.dumps([1]))\n",
                        "import os\nx = 1\nimport re\nimport json\nprint(json.loads('[2]'), x, re.sub('a', 'b', 'a'))\n"};
  StrBuf c[2], lazy[2];
  CgUnit *us[2];
  int n[2];
  Program p[2];
  for (int i = 0; i < 2; i++) {
    sb_init(&c[i]);
    sb_init(&lazy[i]);
    load_ok(&p[i], src[i]);
    ck_assert(cgen_program_units(&p[i], &c[i], &lazy[i], &us[i], &n[i]));
  }
  const CgUnit *j0 = unit_named(us[0], n[0], "json"), *j1 = unit_named(us[1], n[1], "json"), *r1 = unit_named(us[1], n[1], "os");
  ck_assert(j0 && j1 && r1);
  ck_assert_int_ne(j0->module, j1->module);
  ck_assert_str_eq(j0->text.data, j1->text.data);
  ck_assert_ptr_nonnull(strstr(c[1].data, "tfs_units_main();"));
  ck_assert_ptr_null(strstr(c[1].data, "/* <stdlib>/json.tfs"));   /* the program's unit holds none of it */
  ck_assert_ptr_nonnull(strstr(r1->text.data, "rt_import(IM_[0])"));   /* os imports posixpath */
  for (const char *t = strstr(r1->text.data, "rt_import("); t; t = strstr(t + 1, "rt_import("))
    ck_assert_msg(!strncmp(t, "rt_import(IM_[", 14), "a module index in a library unit: %.40s", t);
  for (int i = 0; i < 2; i++) {
    cgen_units_free(us[i], n[i]);
    sb_free(&c[i]);
    sb_free(&lazy[i]);
    program_free(&p[i]);
  }
}
END_TEST

/* tfs run (cgen_program_lazy + jit_compile_lazy): the original body of a
 * @tf.function with a converted twin is in the second unit only, compiled
 * at the first eager call of one such body, once. */
int rt_main(int argc, char **argv, void (*entry)(void), void (*leave)(void));

static const char lazy_src[] = "def helper(x):\n"
                               "    return x * 2.0\n"
                               "@tf.function\n"
                               "def f(x):\n"
                               "    def inner(y):\n"
                               "        return helper(y) + x\n"
                               "    return inner(x)\n"
                               "class M:\n"
                               "    @tf.function\n"
                               "    def g(self, x):\n"
                               "        return [x + 1.0 for _ in range(2)][0]\n";

/* The two units tfs run makes of `src`. */
static void gen_lazy(const char *src, StrBuf *c, StrBuf *lazy) {
  Program p;
  load_ok(&p, src);
  ck_assert(cgen_program_lazy(&p, c, lazy));
  program_free(&p);
}

/* Run lazy_src and `more` as tfs run does, in a child (the runtime exits on
 * an uncaught error), with `corrupt` appended to the second unit's C.  The
 * child's stdout and stderr go to `out`; its exit status is the program's,
 * or 10 + the second units it compiled when the program succeeds. */
static int run_lazy(const char *more, const char *corrupt, char *out, size_t nout) {
  StrBuf src, c, lazy, err;
  sb_init(&src);
  sb_init(&c);
  sb_init(&lazy);
  sb_init(&err);
  sb_puts(&src, lazy_src);
  sb_puts(&src, more);
  gen_lazy(src.data, &c, &lazy);
  /* the bodies of f and M.g are in the second unit, their stubs in the first;
   * helper, inner and the comprehension stay in the first */
  ck_assert_ptr_nonnull(strstr(lazy.data, "Val FL0_2(struct Func *self, Val *args) { /* f */"));
  ck_assert_ptr_nonnull(strstr(lazy.data, "Val FL0_4(struct Func *self, Val *args) { /* g */"));
  ck_assert_ptr_null(strstr(lazy.data, "/* helper */"));
  ck_assert_ptr_null(strstr(lazy.data, "/* inner */"));
  ck_assert_ptr_null(strstr(lazy.data, "/* <listcomp> */"));
  ck_assert_ptr_null(strstr(c.data, "Val FL0_"));
  ck_assert_ptr_nonnull(strstr(c.data, "if (!LZ0_2) tfs_lazy_load(tfs_lazy_refs);"));
  ck_assert_ptr_nonnull(strstr(c.data, "if (!LZ0_4) tfs_lazy_load(tfs_lazy_refs);"));
  if (corrupt) sb_puts(&lazy, corrupt);
  char path[] = "/tmp/tfs_test_lazy_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    Jit *j = jit_compile_lazy(c.data, &lazy, &err);
    if (!j || lazy.len) _exit(99);   /* the text is taken */
    sb_free(&src);
    sb_free(&c);
    sb_free(&err);
    char *argv[] = {"prog.tfs", NULL};
    int rc = rt_main(1, argv, (void (*)(void))jit_symbol(j, "tfs_program_main"), (void (*)(void))jit_symbol(j, "tfs_program_exit"));
    int n = jit_lazy_compiles();
    jit_free(j);
    exit(rc ? rc : 10 + n);   /* exit: a sanitizer's leak check runs */
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  memset(out, 0, nout);
  lseek(fd, 0, SEEK_SET);
  ck_assert_int_ge(read(fd, out, nout - 1), 0);
  close(fd);
  unlink(path);
  sb_free(&src);
  sb_free(&c);
  sb_free(&lazy);
  sb_free(&err);
  ck_assert_msg(WIFEXITED(status), "the program died: %s", out);
  return WEXITSTATUS(status);
}

START_TEST(lazy_unit_graph_only) {
  /* traced calls and helpers run from unit 1: the second unit is never compiled */
  char out[4096];
  int st = run_lazy("print(f(tf.constant(1.0)), M().g(tf.constant(2.0)), helper(3.0))\n", NULL, out, sizeof out);
  ck_assert_msg(st == 10, "status %d: %s", st, out);
  ck_assert_str_eq(out, "tf.Tensor(3.0, shape=(), dtype=float32) tf.Tensor(3.0, shape=(), dtype=float32) 6.0\n");
}
END_TEST

START_TEST(lazy_unit_eager_once) {
  /* four eager calls of two bodies, and python_function: one compilation */
  char out[4096];
  int st = run_lazy("print(f(tf.constant(1.0)))\n"
                    "tf.config.run_functions_eagerly(True)\n"
                    "print(f(tf.constant(1.0)), f(2.0), M().g(2.0), f.python_function(3.0))\n",
                    NULL, out, sizeof out);
  ck_assert_msg(st == 11, "status %d: %s", st, out);
  ck_assert_str_eq(out, "tf.Tensor(3.0, shape=(), dtype=float32)\n"
                        "tf.Tensor(3.0, shape=(), dtype=float32) 6.0 3.0 9.0\n");
}
END_TEST

/* A second unit that does not compile: an internal error located at the
 * eager call (exit status 1), not a crash; the program ran until then. */
START_TEST(lazy_unit_compile_error) {
  char out[4096];
  int st = run_lazy("print('before')\ntf.config.run_functions_eagerly(True)\nprint(f(1.0))\n",
                    "\nint broken(void) { return undeclared_name; }\n", out, sizeof out);
  ck_assert_msg(st == 1, "status %d: %s", st, out);
  const char *want = "before\nprog.tfs:14:7: error: RuntimeError: internal error: the eager code of the program's "
                     "tf.functions did not compile\n";
  ck_assert_msg(!strncmp(out, want, strlen(want)), "got %s", out);
  ck_assert_ptr_nonnull(strstr(out, "'undeclared_name' undeclared\nprint(f(1.0))\n      ^\n"));
}
END_TEST

/* Threads racing for the second unit: it is compiled once, every pointer set. */
static void *load_lazy_thread(void *j) {
  StrBuf err;
  sb_init(&err);
  bool ok = jit_load_lazy(j, &err);
  sb_free(&err);
  return ok ? j : NULL;
}

START_TEST(lazy_unit_threads) {
  StrBuf c, lazy, err;
  sb_init(&c);
  sb_init(&lazy);
  sb_init(&err);
  gen_lazy(lazy_src, &c, &lazy);
  Jit *j = jit_compile_lazy(c.data, &lazy, &err);
  ck_assert_msg(j != NULL, "tcc: %s", err.data ? err.data : "");
  int before = jit_lazy_compiles();
  pthread_t t[4];
  for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, load_lazy_thread, j), 0);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(t[i], &r);
    ck_assert_ptr_eq(r, j);
  }
  ck_assert_int_eq(jit_lazy_compiles(), before + 1);
  /* the stubs' pointers are set: unit 1's table names them */
  const RtLazyRef *refs = jit_symbol(j, "tfs_lazy_refs");
  int slots = 0;
  for (const RtLazyRef *r = refs; r->name; r++)
    if (r->slot) {
      ck_assert_ptr_nonnull(*(void **)r->addr);
      slots++;
    }
  ck_assert_int_eq(slots, 2);   /* f and M.g */
  jit_free(j);
  sb_free(&c);
  sb_free(&lazy);
  sb_free(&err);
}
END_TEST

/* FuncInfo of `def f(a, *args, b, c=1, **kw)`: params without the bare-star
 * marker, in order, then nkwonly, varargs, varkw, nposonly (the '/' count). */
START_TEST(cgen_star_params) {
  Program p;
  load_ok(&p, "def f(a, *args, b, c=1, **kw):\n    return args\ng = lambda x, *, y: x\n"
              "def h(p, q, /, r):\n    return p\n");
  StrBuf c;
  sb_init(&c);
  ck_assert(cgen_program(&p, &c, false));
  ck_assert_int_eq(p.diags.n, 0);
  ck_assert_ptr_nonnull(strstr(c.data, "{\"a\", \"args\", \"b\", \"c\", \"kw\"}"));
  ck_assert_ptr_nonnull(strstr(c.data, ", 2, 1, 1, 0, 0};"));
  ck_assert_ptr_nonnull(strstr(c.data, "{\"x\", \"y\"}"));
  ck_assert_ptr_nonnull(strstr(c.data, ", 1, 0, 0, 0, 0};"));
  ck_assert_ptr_nonnull(strstr(c.data, "{\"p\", \"q\", \"r\"}"));
  ck_assert_ptr_nonnull(strstr(c.data, ", 0, 0, 0, 2, 0};"));
  sb_free(&c);
  program_free(&p);
}
END_TEST

/* The most temporaries any generated function declares (`Val T_[n]`, or
 * `rt_temps_new(n, ...)` past the stack limit), and how many functions. */
static int max_temps(const char *c, int *nfuncs) {
  int most = 0;
  *nfuncs = 0;
  const char *pats[] = {"Val T_[", "rt_temps_new("};
  for (int k = 0; k < 2; k++)
    for (const char *q = c; (q = strstr(q, pats[k])); q++) {
      int n = atoi(q + strlen(pats[k]));
      if (n > most) most = n;
      (*nfuncs)++;
    }
  return most;
}

/* Temporaries are reused statement by statement (cgen.c tmp()/stmt()): a
 * function of 1,000 statements needs the slots of its largest statement
 * and nesting, not a set per statement (a 100,000-line tf.function once had
 * a million-slot T_).  The converted twin of a tf.function, its original and
 * a host function with try/except/finally and with blocks are all bounded. */
START_TEST(cgen_temps_reused) {
  StrBuf src;
  sb_init(&src);
  sb_puts(&src, "@tf.function\ndef f(x):\n");
  for (int i = 0; i < 1000; i++) sb_puts(&src, "    x = x + 1.0\n");
  sb_puts(&src, "    return x\n\nclass M:\n    def __enter__(self):\n        return self\n"
                "    def __exit__(self, t, v, tb):\n        return False\n\ndef g(n):\n    s = 0\n");
  for (int i = 0; i < 250; i++)
    sb_printf(&src, "    try:\n        with M() as m:\n            s = s + [n, (n, %d)][1][1]\n"
                    "    except ValueError as e:\n        s = -1\n    finally:\n        s = s + 1\n", i);
  sb_puts(&src, "    return s\n\nprint(f(tf.constant(0.0)), g(1))\n");
  Program p;
  load_ok(&p, src.data);
  StrBuf c, err;
  sb_init(&c);
  sb_init(&err);
  ck_assert(cgen_program(&p, &c, false));
  int nfuncs, most = max_temps(c.data, &nfuncs);
  fprintf(stderr, "temps: at most %d in each of %d functions\n", most, nfuncs);
  ck_assert_int_ge(nfuncs, 5);   /* f, its twin, __enter__, __exit__, g, ... */
  ck_assert_int_le(most, 40);
  ck_assert_ptr_null(strstr(c.data, "rt_temps_new("));
  /* the reused slots still compile */
  Jit *j = jit_compile(c.data, &err);
  ck_assert_msg(j != NULL, "tcc: %s", err.data ? err.data : "");
  jit_free(j);
  sb_free(&c);
  sb_free(&err);
  sb_free(&src);
  program_free(&p);
}
END_TEST

/* Linear costs (issue 12): the compiler's work per source line must not grow
 * with the program.  Counters, not timers: arena bytes, bytes of C and name
 * comparisons per line at two sizes ten times apart.  (Module names were once
 * found by scanning every global and their slot array copied for each new
 * one: per line, both grew tenfold here.) */
typedef struct Cost { double arena, c, probes; int twins; } Cost;

/* Converted twins in generated C: their FuncInfos are named FIC<module>_<id>. */
static int count_twins(const char *c) {
  int n = 0;
  for (const char *q = c; (q = strstr(q, "static const FuncInfo FIC")); q++) n++;
  return n;
}

static Cost cost_per_line(int nfuncs, bool traced) {
  StrBuf src;
  sb_init(&src);
  for (int i = 0; i < nfuncs; i++)
    sb_printf(&src, "def f%d(x):\n    if x > %d:\n        return x - 1\n    return x + 1\n\n", i, i);
  /* a tf.function: only what it reaches (f0) is converted with it */
  if (traced) sb_puts(&src, "@tf.function\ndef g(x):\n    return f0(x)\n");
  sb_puts(&src, "print(f0(1))\n");
  int lines = nfuncs * 5 + (traced ? 4 : 1);
  unsigned long probes0 = name_probes;
  Program p;
  load_ok(&p, src.data);
  StrBuf c;
  sb_init(&c);
  ck_assert(cgen_program(&p, &c, false));
  Cost k = {(double)arena_bytes(&p.arena) / lines, (double)c.len / lines, (double)(name_probes - probes0) / lines,
            count_twins(c.data)};
  sb_free(&c);
  program_free(&p);
  sb_free(&src);
  return k;
}

static void check_flat(const char *what, int nfuncs) {
  bool traced = strcmp(what, "traced") == 0;
  Cost s = cost_per_line(nfuncs, traced), b = cost_per_line(nfuncs * 10, traced);
  fprintf(stderr, "%s per line at %d / %d functions: arena %.0f / %.0f bytes, C %.0f / %.0f bytes, name probes %.1f / %.1f\n",
          what, nfuncs, nfuncs * 10, s.arena, b.arena, s.c, b.c, s.probes, b.probes);
  /* flat within 15%; the bounds above also catch a jump in the constant */
  ck_assert_msg(b.arena <= s.arena * 1.15, "arena bytes per line grow: %.0f -> %.0f", s.arena, b.arena);
  ck_assert_msg(b.c <= s.c * 1.15, "C bytes per line grow: %.0f -> %.0f", s.c, b.c);
  ck_assert_msg(b.probes <= s.probes * 1.15 + 1, "name comparisons per line grow: %.1f -> %.1f", s.probes, b.probes);
  /* The same bounds with a tf.function: the functions it cannot reach are
   * not converted (they once cost 17 KB of arena and 3.4 KB of C per line),
   * so the converted twins are as many at both sizes: g's and f0's. */
  ck_assert_msg(b.arena < 3000, "arena bytes per line: %.0f", b.arena);
  ck_assert_msg(b.c < 600, "C bytes per line: %.0f", b.c);
  ck_assert_int_eq(s.twins, b.twins);
  if (traced) ck_assert_int_gt(b.twins, 1);
  else ck_assert_int_eq(b.twins, 0);
}

START_TEST(scaling_flat) { check_flat("plain", 300); }
END_TEST

START_TEST(scaling_flat_traced) { check_flat("traced", 60); }
END_TEST

/* The C generated for `src`, a malloc'd string. */
static char *code_of(const char *src) {
  Program p;
  load_ok(&p, src);
  StrBuf c;
  sb_init(&c);
  ck_assert(cgen_program(&p, &c, false));
  program_free(&p);
  return c.data;
}

/* The fuzz harnesses' parse cache (parsecache.h) changes nothing a load gives: the library
 * modules' trees, cached and then copied, make the same C as fresh ones, also after a program
 * that imports them in another order (other module indices in the trees' import ids). */
START_TEST(parsecache_same_code) {
  const char *prog = "import json\nimport collections\nimport tensorflow as tf\n"
                     "m = tf.keras.Sequential([tf.keras.layers.Dense(2)])\n"
                     "print(json.dumps([1]), collections.Counter('aab'))\n"
                     "@tf.function\ndef f(x):\n    return x + 1\n";
  const char *other = "import collections\nimport json\nprint(json.loads('[2]'), collections.deque())\n";
  char *fresh = code_of(prog);
  parsecache_enable();
  char *filling = code_of(prog), *o1 = code_of(other), *cached = code_of(prog), *o2 = code_of(other);
  ck_assert_str_eq(fresh, filling);
  ck_assert_str_eq(fresh, cached);
  ck_assert_str_eq(o1, o2);
  free(fresh);
  free(filling);
  free(cached);
  free(o1);
  free(o2);
}
END_TEST

int main(void) {
  Suite *s = suite_create("compiler");
  TCase *tc = tcase_create("scope");
  tcase_add_test(tc, scope_kinds);
  tcase_add_test(tc, scope_free_through_intermediate);
  tcase_add_test(tc, scope_global_decl);
  tcase_add_test(tc, scope_errors);
  tcase_add_test(tc, import_errors);
  suite_add_tcase(s, tc);
  tc = tcase_create("cgen");
  tcase_add_test(tc, cgen_jit_compiles);
  tcase_add_test(tc, cgen_with_main);
  tcase_add_test(tc, cgen_star_params);
  tcase_add_test(tc, cgen_temps_reused);
  tcase_add_test(tc, units_independent);
  tcase_add_test(tc, lazy_unit_graph_only);
  tcase_add_test(tc, lazy_unit_eager_once);
  tcase_add_test(tc, lazy_unit_compile_error);
  tcase_add_test(tc, lazy_unit_threads);
  suite_add_tcase(s, tc);
  tc = tcase_create("scaling");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, scaling_flat);
  tcase_add_test(tc, scaling_flat_traced);
  suite_add_tcase(s, tc);
  tc = tcase_create("parsecache");   /* last: the cache stays on for the rest of the process */
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, parsecache_same_code);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
