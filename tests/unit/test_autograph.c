/* test_autograph.c — AutoGraph converters and the to-code printer: the tests/autograph corpus, the seed's exact text, unparse, activity, robustness. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activity.h"
#include "arena.h"
#include "ast.h"
#include "autograph.h"
#include "diag.h"
#include "parse.h"
#include "unparse.h"

/* ---- helpers ---------------------------------------------------------------------------------- */

/* The corpus directory: $TFS_AG_CORPUS, else tests/autograph next to this file's directory. */
static char corpus[4096];

static void find_corpus(void) {
  const char *env = getenv("TFS_AG_CORPUS");
  if (env && *env) {
    snprintf(corpus, sizeof corpus, "%s", env);
    return;
  }
  snprintf(corpus, sizeof corpus, "%s", __FILE__);
  char *slash = strrchr(corpus, '/');
  if (slash) *slash = 0;
  else snprintf(corpus, sizeof corpus, ".");
  size_t n = strlen(corpus);
  snprintf(corpus + n, sizeof corpus - n, "/../autograph");
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *s = malloc(cap);
  size_t got;
  while ((got = fread(s + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (cap - n < 2) s = realloc(s, cap *= 2);
  }
  fclose(f);
  s[n] = 0;
  if (len) *len = n;
  return s;
}

static int diag_order(const void *x, const void *y) {
  const Diag *a = x, *b = y;
  return a->line != b->line ? a->line - b->line : a->col - b->col;
}

/* Diagnostics as "line:col: message" lines, sorted, duplicates dropped. */
static char *errors_text(DiagList *d) {
  if (d->n) qsort(d->items, (size_t)d->n, sizeof *d->items, diag_order);
  size_t cap = 256, len = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (int i = 0; i < d->n; i++) {
    const Diag *g = &d->items[i];
    if (i > 0 && diag_order(g, g - 1) == 0 && !strcmp(g->msg, g[-1].msg)) continue;
    size_t need = strlen(g->msg) + 32;
    while (len + need >= cap) s = realloc(s, cap *= 2);
    len += (size_t)snprintf(s + len, cap - len, "%d:%d: %s\n", g->line, g->col, g->msg);
  }
  return s;
}

/* The first line where a and b differ, for failure messages. */
static char *first_diff(const char *a, const char *b) {
  int line = 1;
  const char *la = a, *lb = b;
  while (*a && *a == *b) {
    if (*a == '\n') {
      line++;
      la = a + 1;
      lb = b + 1;
    }
    a++, b++;
  }
  const char *ea = strchr(la, '\n'), *eb = strchr(lb, '\n');
  int na = ea ? (int)(ea - la) : (int)strlen(la), nb = eb ? (int)(eb - lb) : (int)strlen(lb);
  char *m = malloc((size_t)(na + nb) + 64);
  sprintf(m, "line %d:\n  got:  %.*s\n  want: %.*s", line, na, la, nb, lb);
  return m;
}

#define CHECK_TEXT(name, got, want)                                                                  \
  do {                                                                                               \
    if (strcmp((got), (want)) != 0) {                                                                \
      char *d_ = first_diff((got), (want));                                                          \
      ck_abort_msg("%s: %s", (name), d_);                                                            \
    }                                                                                                \
  } while (0)

/* Parse, convert the module, print it.  Diagnostics of the conversion go to *errors. */
static char *convert_text(const char *name, const char *src, size_t len, char **errors) {
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, name, src, len, &d);
  if (!m) {
    char *e = errors_text(&d);
    ck_abort_msg("%s: does not parse:\n%s", name, e);
  }
  ck_assert_int_eq(d.n, 0);
  Ast *c = ag_convert_module(&a, m, name, src, &d);
  ck_assert_ptr_nonnull(c);
  char *out = unparse_module(c);
  if (errors) *errors = errors_text(&d);
  diag_free(&d);
  arena_free(&a);
  return out;
}

/* Whether printing and re-parsing text gives the same text (print: to_code's printer or the plain one). */
static void check_round_trip_by(const char *name, const char *text, char *(*print)(const Ast *)) {
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, name, text, strlen(text), &d);
  if (!m) ck_abort_msg("%s: printed text does not parse:\n%s\n%s", name, errors_text(&d), text);
  char *again = print(m);
  CHECK_TEXT(name, again, text);
  free(again);
  diag_free(&d);
  arena_free(&a);
}

static void check_printer_round_trip(const char *name, const char *text) {
  check_round_trip_by(name, text, unparse_module);
}

/* One corpus case: NAME.tfs converts to NAME.expected; NAME.errors (optional) lists the diagnostics. */
static void check_case(const char *stem) {
  char path[4200];
  size_t len;
  snprintf(path, sizeof path, "%s/%s.tfs", corpus, stem);
  char *src = read_file(path, &len);
  ck_assert_msg(src != NULL, "cannot read %s", path);
  snprintf(path, sizeof path, "%s/%s.expected", corpus, stem);
  char *want = read_file(path, NULL);
  ck_assert_msg(want != NULL, "missing %s", path);
  snprintf(path, sizeof path, "%s/%s.errors", corpus, stem);
  char *want_errors = read_file(path, NULL);

  char *errors = NULL;
  char *got = convert_text(stem, src, len, &errors);
  if (getenv("TFS_AG_REGEN")) { /* TFS_AG_REGEN=1: rewrite NAME.expected (review the diff before committing) */
    snprintf(path, sizeof path, "%s/%s.expected", corpus, stem);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(got, f);
    fclose(f);
    free(want);
    want = strdup(got);
  }
  CHECK_TEXT(stem, got, want);
  CHECK_TEXT(stem, errors, want_errors ? want_errors : "");

  /* the output is valid .tfs, prints back to itself, and converts to itself */
  check_printer_round_trip(stem, got);
  char *errors2 = NULL;
  char *again = convert_text(stem, got, strlen(got), &errors2);
  CHECK_TEXT(stem, again, got);
  free(again);
  free(errors2);
  free(errors);
  free(got);
  free(want);
  free(want_errors);
  free(src);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The stems of DIR/\*.tfs, sorted; *n gets their count. */
static char **tfs_files(const char *dir, int *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **v = NULL;
  int cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 5 || strcmp(e->d_name + l - 4, ".tfs") != 0) continue;
    if (*n == cap) v = realloc(v, sizeof *v * (size_t)(cap = cap ? cap * 2 : 16));
    v[(*n)++] = strndup(e->d_name, l - 4);
  }
  closedir(d);
  if (*n) qsort(v, (size_t)*n, sizeof *v, cmp_str);
  return v;
}

/* ---- the corpus ------------------------------------------------------------------------------ */

START_TEST(test_corpus) {
  int n;
  char **stems = tfs_files(corpus, &n);
  ck_assert_msg(stems && n >= 20, "corpus not found in %s (set TFS_AG_CORPUS)", corpus);
  for (int i = 0; i < n; i++) {
    check_case(stems[i]);
    free(stems[i]);
  }
  free(stems);
}
END_TEST

/* ---- the contract's to_code text ------------------------------------------------------------- */

static const char seed_src[] = "@tf.function\n"
                               "def my_function(x):\n"
                               "    if tf.reduce_sum(x) <= 1:\n"
                               "        return x * x\n"
                               "    else:\n"
                               "        return x - 1\n";

static const char seed_code[] =
    "def tf__my_function(x):\n"
    "    with ag__.FunctionScope('my_function', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
    "        do_return = False\n"
    "        retval_ = ag__.UndefinedReturnValue()\n"
    "\n"
    "        def get_state():\n"
    "            return (do_return, retval_)\n"
    "\n"
    "        def set_state(vars_):\n"
    "            nonlocal do_return, retval_\n"
    "            (do_return, retval_) = vars_\n"
    "\n"
    "        def if_body():\n"
    "            nonlocal do_return, retval_\n"
    "            try:\n"
    "                do_return = True\n"
    "                retval_ = (ag__.ld(x) * ag__.ld(x))\n"
    "            except:\n"
    "                do_return = False\n"
    "                raise\n"
    "\n"
    "        def else_body():\n"
    "            nonlocal do_return, retval_\n"
    "            try:\n"
    "                do_return = True\n"
    "                retval_ = (ag__.ld(x) - 1)\n"
    "            except:\n"
    "                do_return = False\n"
    "                raise\n"
    "        ag__.if_stmt((ag__.converted_call(ag__.ld(tf).reduce_sum, (ag__.ld(x),), None, fscope) <= 1), if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2)\n"
    "        return fscope.ret(retval_, do_return)\n";

START_TEST(test_seed_to_code) {
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, "seed.tfs", seed_src, strlen(seed_src), &d);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(m->body.n, 1);
  const Ast *fn = m->body.items[0];
  char *before = unparse_module(m);
  Ast *conv = ag_convert_function(&a, fn, "seed.tfs", seed_src, &d);
  ck_assert_int_eq(d.n, 0);
  ck_assert_ptr_nonnull(conv);
  ck_assert_str_eq(conv->name, "my_function");
  ck_assert_int_eq(conv->decorators.n, 1);
  char *code = unparse_function(conv, true);
  CHECK_TEXT("seed", code, seed_code);
  /* the input is not modified */
  char *after = unparse_module(m);
  ck_assert_str_eq(before, after);
  /* converting the converted function changes nothing */
  ck_assert(ag_is_converted(conv));
  Ast *again = ag_convert_function(&a, conv, "seed.tfs", seed_src, &d);
  char *code2 = unparse_function(again, true);
  ck_assert_str_eq(code2, code);
  /* without rename_tf the def keeps its name and decorator */
  char *plain = unparse_function(conv, false);
  static const char head[] = "@tf.function\ndef my_function(x):\n";
  ck_assert(strncmp(plain, head, strlen(head)) == 0);
  free(before), free(after), free(code), free(code2), free(plain);
  diag_free(&d);
  arena_free(&a);
}
END_TEST

/* ---- unparse --------------------------------------------------------------------------------- */

/* Each source statement prints as the expected text (Python's ast.unparse, tuples parenthesized);
 * the plain printer, with the fewest parentheses (to_code's adds astunparse's: see test_tf_parens). */
static const struct {
  const char *src, *want;
} unparse_cases[] = {
    {"x = 1e-05", "x = 1e-05"},
    {"x = 1e16", "x = 1e+16"},
    {"x = 0.1 + 2.", "x = 0.1 + 2.0"},
    {"x = 123456789.0 * 1.5e300", "x = 123456789.0 * 1.5e+300"},
    {"x = 1e400", "x = 1e309"},
    {"x = 0x2A + 1_000", "x = 42 + 1000"},
    {"s = \"it's\"", "s = \"it's\""},
    {"s = 'a\"b'", "s = 'a\"b'"},
    {"s = 'both\\'\"'", "s = 'both\\'\"'"},
    {"s = 'tab\\tnl\\n\\x00\\\\'", "s = 'tab\\tnl\\n\\x00\\\\'"},
    {"s = '\\u00e9\\xa0'", "s = '\xc3\xa9\\xa0'"},
    {"a, b = c", "(a, b) = c"},
    {"x = a, b", "x = (a, b)"},
    {"return_ = (a,)", "return_ = (a,)"},
    {"f((), (a,), [a, b])", "f((), (a,), [a, b])"},
    {"a, b", "(a, b)"},
    {"y = -x ** 2", "y = -x ** 2"},
    {"y = (-x) ** 2", "y = (-x) ** 2"},
    {"y = 2 ** -1", "y = 2 ** (-1)"},
    {"y = a ** b ** c", "y = a ** b ** c"},
    {"y = (a ** b) ** c", "y = (a ** b) ** c"},
    {"y = a - (b - c)", "y = a - (b - c)"},
    {"y = (a - b) - c", "y = a - b - c"},
    {"y = (a + b) * c @ d", "y = (a + b) * c @ d"},
    {"y = a | b ^ c & d << e", "y = a | b ^ c & d << e"},
    {"y = (a | b) & c", "y = (a | b) & c"},
    {"y = not (a < b)", "y = not a < b"},
    {"y = (not a) == b", "y = (not a) == b"},
    {"y = (a < b) < c", "y = (a < b) < c"},
    {"y = a < b <= c is not d", "y = a < b <= c is not d"},
    {"y = x not in l", "y = x not in l"},
    {"y = a and (b or c)", "y = a and (b or c)"},
    {"y = a or b and c", "y = a or b and c"},
    {"y = a and not b and c", "y = a and not b and c"},
    {"y = (a if b else c) if d else e", "y = (a if b else c) if d else e"},
    {"y = a if b else c if d else e", "y = a if b else c if d else e"},
    {"y = (lambda: 1)()", "y = (lambda: 1)()"},
    {"y = lambda x, y=2, *a, **k: x", "y = lambda x, y=2, *a, **k: x"},
    {"y = l[1:2, ::3, ...]", "y = l[1:2, ::3, ...]"},
    {"y = l[(1, 2)]", "y = l[1, 2]"},
    {"y = l[a:b, c]", "y = l[a:b, c]"},
    {"y = x[..., None]", "y = x[..., None]"},
    {"y = {'a': 1, **d}", "y = {'a': 1, **d}"},
    {"f(*args, k=1, **kw)", "f(*args, k=1, **kw)"},
    {"y = (1).real", "y = 1 .real"},
    {"y = f'{x!r:>5} and {{}} {y:.3f}'", "y = f'{x!r:>5} and {{}} {y:.3f}'"},
    {"y = f\"{'a'}\"", "y = f\"{'a'}\""},
    {"x += -1", "x += -1"},
    {"x //= 2", "x //= 2"},
    {"del x, y", "del x, y"},
    {"assert x, 'msg'", "assert x, 'msg'"},
    {"import a.b as c, d", "import a.b as c, d"},
    {"from m import x as y, z", "from m import x as y, z"},
    {"for i, x in enumerate(l): pass", "for i, x in enumerate(l):\n    pass"},
    {"for x in 1, 2: pass", "for x in (1, 2):\n    pass"},
    {"if a: pass\nelif b: pass\nelse:\n    if c: pass",
     "if a:\n    pass\nelif b:\n    pass\nelif c:\n    pass"},
    {"while x:\n    break\nelse:\n    pass", "while x:\n    break\nelse:\n    pass"},
    {"def f(a, b=1, *c, d, **e):\n    global g\n    return", "def f(a, b=1, *c, d, **e):\n    global g\n    return"},
    {"@deco\n@tf.function(jit_compile=True)\ndef f():\n    def g():\n        pass\n    return g",
     "@deco\n@tf.function(jit_compile=True)\ndef f():\n\n    def g():\n        pass\n    return g"},
    {"x = 1\ndef f():\n    pass\ny = 2", "x = 1\n\ndef f():\n    pass\ny = 2"},
};

/* to_code's layout parenthesizes every binary and comparison expression, as TF's astunparse. */
START_TEST(test_tf_parens) {
  static const char src[] = "y = -x ** 2 + a * (b - c) < d\nz = not a == b\n";
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, "p.tfs", src, strlen(src), &d);
  ck_assert_ptr_nonnull(m);
  char *got = unparse_module(m);
  ck_assert_str_eq(got, "y = ((-(x ** 2) + (a * (b - c))) < d)\nz = not (a == b)\n");
  check_printer_round_trip("tf_parens", got);
  free(got);
  diag_free(&d);
  arena_free(&a);
}
END_TEST

START_TEST(test_unparse) {
  for (size_t i = 0; i < sizeof unparse_cases / sizeof *unparse_cases; i++) {
    const char *src = unparse_cases[i].src;
    Arena a;
    arena_init(&a);
    DiagList d;
    diag_init(&d);
    Ast *m = parse_source(&a, "u.tfs", src, strlen(src), &d);
    if (!m) ck_abort_msg("case %zu does not parse: %s\n%s", i, src, errors_text(&d));
    char *got = unparse_module_plain(m);
    size_t n = strlen(got);
    ck_assert(n > 0 && got[n - 1] == '\n');
    got[n - 1] = 0;
    if (strcmp(got, unparse_cases[i].want) != 0)
      ck_abort_msg("case %zu: %s\n  got:  %s\n  want: %s", i, src, got, unparse_cases[i].want);
    got[n - 1] = '\n';
    check_round_trip_by(src, got, unparse_module_plain);
    free(got);
    diag_free(&d);
    arena_free(&a);
  }
}
END_TEST

START_TEST(test_unparse_expr) {
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, "e.tfs", "for (i, x) in l: pass\n", 22, &d);
  ck_assert_ptr_nonnull(m);
  char *t = unparse_expr(m->body.items[0]->target);
  ck_assert_str_eq(t, "(i, x)");
  free(t);
  t = unparse_stmt(m->body.items[0]);
  ck_assert_str_eq(t, "for i, x in l:\n    pass\n");
  free(t);
  t = unparse_module(NULL);
  ck_assert_str_eq(t, "");
  free(t);
  diag_free(&d);
  arena_free(&a);
}
END_TEST

/* ---- activity analysis ----------------------------------------------------------------------- */

static char *set_text(const NameSet *s) {
  static char buf[512];
  buf[0] = 0;
  for (int i = 0; i < s->n; i++) {
    if (i) strcat(buf, " ");
    strcat(buf, s->v[i]);
  }
  return buf;
}

static Arena names_arena;

/* One of a statement's sets as "a b c". */
static char *S(const ActStmt *r, ActSet set) {
  NameSet ns = activity_names(&names_arena, r, set);
  return set_text(&ns);
}

START_TEST(test_activity) {
  static const char src[] = "def f(n, k):\n"
                            "    def g():\n"
                            "        return k\n"
                            "    s = 0\n"
                            "    while n > 0:\n"
                            "        t = n * 2\n"
                            "        if t > 4:\n"
                            "            s = s + t\n"
                            "        n = n - 1\n"
                            "    for i in range(3):\n"
                            "        u = i\n"
                            "    return s\n";
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, "act.tfs", src, strlen(src), &d);
  ck_assert_ptr_nonnull(m);
  const Ast *fn = m->body.items[0];
  Arena scratch;
  arena_init(&scratch);
  Activity *act = activity_new(&scratch, NULL, NULL);
  activity_analyze(act, fn);
  const Ast *wh = fn->body.items[2], *iff = wh->body.items[1], *fr = fn->body.items[3];
  ck_assert_int_eq(wh->kind, A_WHILE);
  ck_assert_int_eq(iff->kind, A_IF);
  ck_assert_int_eq(fr->kind, A_FOR);
  const ActStmt *w = activity_stmt(act, wh), *i = activity_stmt(act, iff), *r = activity_stmt(act, fr);
  ck_assert_ptr_nonnull(w);
  /* only names the function binds are tracked */
  ck_assert_str_eq(S(w, ACT_MODIFIED), "n s t");
  /* k stays live everywhere after g's definition (g's closure) */
  ck_assert_str_eq(S(w, ACT_LIVE_IN), "k n s");
  ck_assert_str_eq(S(w, ACT_LIVE_OUT), "k s");
  ck_assert_str_eq(S(w, ACT_DEFINED_IN), "g k n s");
  ck_assert_str_eq(S(i, ACT_MODIFIED), "s");
  ck_assert_str_eq(S(i, ACT_LIVE_IN), "k n s t");
  ck_assert_str_eq(S(i, ACT_LIVE_OUT), "k n s");
  /* the loop's own back edge does not count; the enclosing one does */
  ck_assert_str_eq(S(i, ACT_DEFINED_IN), "g k n s t");
  ck_assert_str_eq(S(r, ACT_MODIFIED), "i u");
  ck_assert_str_eq(S(r, ACT_LIVE_IN), "k s");
  ck_assert_str_eq(S(r, ACT_DEFINED_IN), "g k n s t");
  ck_assert(activity_has(r, ACT_LIVE_OUT, "s"));
  ck_assert(!activity_has(r, ACT_LIVE_OUT, "i"));
  ck_assert(!activity_has(r, ACT_LIVE_OUT, "range"));
  ck_assert(!activity_has(NULL, ACT_LIVE_OUT, "s"));
  ck_assert_ptr_null(activity_stmt(act, fn));
  ck_assert_ptr_nonnull(activity_func(act, fn));
  NameSet fr_reads = {0};
  activity_free_reads(&scratch, fn->body.items[0], &fr_reads);
  ck_assert_str_eq(set_text(&fr_reads), "k");
  arena_free(&scratch);
  arena_free(&names_arena);
  diag_free(&d);
  arena_free(&a);
}
END_TEST

/* ---- names, errors, robustness --------------------------------------------------------------- */

/* Generated names step around the user's names. */
START_TEST(test_namer) {
  static const char src[] = "def f(get_state, if_body_1):\n"
                            "    if_body = 1\n"
                            "    do_return = 2\n"
                            "    if get_state:\n"
                            "        return if_body\n"
                            "    return if_body_1 + do_return\n";
  char *got = convert_text("namer", src, strlen(src), NULL);
  ck_assert_ptr_nonnull(strstr(got, "        do_return_1 = False\n        retval_ = ag__.UndefinedReturnValue()\n"));
  ck_assert_ptr_nonnull(strstr(got, "def get_state_1():"));
  ck_assert_ptr_nonnull(strstr(got, "def set_state(vars_):"));
  ck_assert_ptr_nonnull(strstr(got, "def if_body_2():"));
  ck_assert_ptr_nonnull(strstr(got, "def else_body():"));
  ck_assert_ptr_nonnull(
      strstr(got, "ag__.if_stmt(ag__.ld(get_state), if_body_2, else_body, get_state_1, set_state, ('do_return_1', 'retval_'), 2)"));
  check_printer_round_trip("namer", got);
  free(got);
}
END_TEST

START_TEST(test_function_errors) {
  /* in ag_convert_function the world outside the function is unknown: its own nonlocals are not errors */
  static const char src[] = "def f():\n    nonlocal q\n    q = 1\n    while q:\n        q = 0\n"
                            "        tf.autograph.experimental.set_loop_options(2, 3, 4, 5, 6)\n";
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, "e.tfs", src, strlen(src), &d);
  ck_assert_ptr_nonnull(m);
  Ast *c = ag_convert_function(&a, m->body.items[0], "e.tfs", src, &d);
  ck_assert_ptr_nonnull(c);
  char *e = errors_text(&d);
  ck_assert_str_eq(e, "6:9: \"set_loop_options\" must be the first statement in the loop block\n");
  free(e);
  /* a bare `*` parameter has no name */
  static const char star[] = "def g(a, *, b):\n    if a:\n        return b\n    return a\n";
  Ast *m2 = parse_source(&a, "s.tfs", star, strlen(star), &d);
  ck_assert_ptr_nonnull(m2);
  Ast *c2 = ag_convert_function(&a, m2->body.items[0], "s.tfs", star, &d);
  char *t = unparse_function(c2, false);
  ck_assert(strncmp(t, "def g(a, *, b):\n", 16) == 0);
  free(t);
  ck_assert_ptr_null(ag_convert_function(&a, NULL, "e.tfs", src, &d));
  ck_assert_ptr_null(ag_convert_function(&a, m, "e.tfs", src, &d)); /* not a function */
  ck_assert_ptr_null(ag_convert_module(&a, NULL, "e.tfs", src, &d));
  diag_free(&d);
  arena_free(&a);
}
END_TEST

/* ag_convert_module_reached: which top-level functions a tf.function can
 * reach (converted: `def NAME` in the output) and which not (`NAME = None`). */
START_TEST(test_reach) {
  static const char src[] =
      "def leaf(x):\n    return x\n"                      /* called from mid: reached */
      "def mid(x):\n    return leaf(x)\n"                 /* called from g */
      "@tf.function\ndef g(x):\n    return mid(x)\n"     /* decorated: root */
      "def valued(x):\n    return x\n"                    /* read as a value below: root */
      "h = tf.function(valued)\n"
      "def outer():\n    def inner(x):\n        return x\n    return inner\n" /* inner read: outer is a root */
      "def in_lambda(x):\n    return x\n"               /* named in a lambda */
      "k = lambda x: in_lambda(x)\n"
      "def from_method(x):\n    return x\n"             /* called from a method */
      "class C:\n    def m(self, x):\n        return from_method(x)\n"
      "def setup():\n    global step\n    def step(x):\n        return x\n" /* defines step, which g2 calls */
      "@tf.function\ndef g2(x):\n    return step(x)\n"
      "def unused(x):\n    return leaf(x)\n"             /* called only from module code */
      "def caller():\n    return unused(1)\n"
      "print(caller())\n";
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, "r.tfs", src, strlen(src), &d);
  ck_assert_ptr_nonnull(m);
  char *out = unparse_module(ag_convert_module_reached(&a, m, "r.tfs", src, &d));
  ck_assert_int_eq(d.n, 0);
  static const char *const conv[] = {"leaf", "mid", "g", "valued", "outer", "in_lambda", "from_method", "setup", "g2"};
  for (size_t i = 0; i < sizeof conv / sizeof *conv; i++) {
    char want[64];
    snprintf(want, sizeof want, "\ndef %s(", conv[i]);
    ck_assert_msg(strstr(out, want) || !strncmp(out, want + 1, strlen(want) - 1), "%s not converted:\n%s", conv[i], out);
  }
  ck_assert_ptr_nonnull(strstr(out, "ag__.converted_call(ag__.ld(leaf)"));
  ck_assert_ptr_nonnull(strstr(out, "    def m(self, x):"));
  ck_assert_ptr_nonnull(strstr(out, "\nunused = None\n"));
  ck_assert_ptr_nonnull(strstr(out, "\ncaller = None\n"));
  ck_assert_ptr_null(ag_convert_module_reached(&a, NULL, "r.tfs", src, &d));
  free(out);
  diag_free(&d);
  arena_free(&a);
}
END_TEST

/* Convert SRC when it parses: the output must parse and convert to itself.  No crash either way. */
static void smoke(const char *name, const char *src, size_t len) {
  Arena a;
  arena_init(&a);
  DiagList d;
  diag_init(&d);
  Ast *m = parse_source(&a, name, src, len, &d);
  if (m) {
    DiagList d2;
    diag_init(&d2);
    Ast *c = ag_convert_module(&a, m, name, src, &d2);
    char *out = unparse_module(c);
    Ast *m2 = parse_source(&a, name, out, strlen(out), &d2);
    if (!m2) ck_abort_msg("%s: converted text does not parse:\n%s\n%s", name, errors_text(&d2), out);
    char *out2 = unparse_module(ag_convert_module(&a, m2, name, out, &d2));
    CHECK_TEXT(name, out2, out);
    free(out), free(out2);
    diag_free(&d2);
  }
  diag_free(&d);
  arena_free(&a);
}

/* Every .tfs program of the repository, and every line prefix of the corpus inputs. */
START_TEST(test_smoke) {
  const char *dirs[] = {"", "/../programs", "/../../examples"};
  for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
    char dir[4300];
    snprintf(dir, sizeof dir, "%s%s", corpus, dirs[k]);
    int n;
    char **stems = tfs_files(dir, &n);
    for (int i = 0; i < n; i++) {
      char path[4400];
      size_t len;
      snprintf(path, sizeof path, "%s/%s.tfs", dir, stems[i]);
      char *src = read_file(path, &len);
      if (src) {
        smoke(path, src, len);
        if (k == 0)
          for (size_t j = 0; j < len; j++)
            if (src[j] == '\n') smoke(path, src, j + 1);
      }
      free(src);
      free(stems[i]);
    }
    free(stems);
  }
}
END_TEST

static Suite *autograph_suite(void) {
  Suite *s = suite_create("autograph");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_seed_to_code);
  tcase_add_test(tc, test_unparse);
  tcase_add_test(tc, test_tf_parens);
  tcase_add_test(tc, test_unparse_expr);
  tcase_add_test(tc, test_activity);
  tcase_add_test(tc, test_namer);
  tcase_add_test(tc, test_function_errors);
  tcase_add_test(tc, test_reach);
  tcase_add_test(tc, test_corpus);
  tcase_add_test(tc, test_smoke);
  suite_add_tcase(s, tc);
  return s;
}

/* `test_autograph` runs the suite; `test_autograph --convert FILE` prints FILE's converted module and
 * its diagnostics (how the corpus expectations are made: read them before committing). */
int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--convert") == 0) {
    size_t len;
    char *src = read_file(argv[2], &len);
    if (!src) {
      fprintf(stderr, "cannot read %s\n", argv[2]);
      return 2;
    }
    Arena a;
    arena_init(&a);
    DiagList d;
    diag_init(&d);
    Ast *m = parse_source(&a, argv[2], src, len, &d);
    int rc = 1;
    if (m) {
      char *out = unparse_module(ag_convert_module(&a, m, argv[2], src, &d));
      fputs(out, stdout);
      free(out);
      rc = 0;
    }
    char *e = errors_text(&d);
    fputs(e, stderr);
    free(e);
    diag_free(&d);
    arena_free(&a);
    free(src);
    return rc;
  }
  find_corpus();
  SRunner *sr = srunner_create(autograph_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
