/* test_ops.c — kernel conformance: every case of tests/fixtures/ops/<family>.txt (numpy references) run through the tf.* builtins; the tf.io file ops in a private directory. */
#include <check.h>
#include <cpuid.h>
#include <stdint.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isagate.h"
#include "object/object.h"
#include "kernels/ops.h"
#include "kernels/halfconv.h"
#include "kernels/vmath.h"
#include "object/half.h"
#include "modules/tfmod.h"

static char fixture_dir[1024];

static void find_fixtures(void) {
  const char *env = getenv("TFS_OP_FIXTURES");
  if (env) { snprintf(fixture_dir, sizeof fixture_dir, "%s", env); return; }
  /* tests/unit/test_ops.c -> tests/fixtures/ops */
  snprintf(fixture_dir, sizeof fixture_dir, "%s", __FILE__);
  char *slash = strrchr(fixture_dir, '/');
  if (slash) *slash = 0;
  else snprintf(fixture_dir, sizeof fixture_dir, ".");
  strncat(fixture_dir, "/../fixtures/ops", sizeof fixture_dir - strlen(fixture_dir) - 1);
}

/* ---- parsing ------------------------------------------------------------------------- */

static int dtype_by_name(const char *s) {
  for (int d = 0; d < DT__COUNT; d++)
    if (!strcmp(s, dtype_info[d].name)) return d;
  return -1;
}

/* "in float32 2 2 3 : v v v ..." -> tensor */
static Tensor *parse_tensor(char *p) {
  char *save = NULL;
  char *tok = strtok_r(p, " ", &save);
  int dt = dtype_by_name(tok);
  ck_assert_msg(dt >= 0, "bad dtype %s", tok);
  int rank = atoi(strtok_r(NULL, " ", &save));
  tfs_i64 shape[TFS_MAX_RANK];
  for (int i = 0; i < rank; i++) shape[i] = atoll(strtok_r(NULL, " ", &save));
  strtok_r(NULL, " ", &save);   /* ':' */
  Tensor *t = tensor_new((DType)dt, rank, shape);
  for (tfs_i64 i = 0; i < t->size; i++) {
    tok = strtok_r(NULL, " \n", &save);
    ck_assert_msg(tok != NULL, "missing value");
    switch (dt) {
    case DT_FLOAT32: ((float *)tensor_data(t))[i] = (float)strtod(tok, NULL); break;
    case DT_FLOAT64: ((double *)tensor_data(t))[i] = strtod(tok, NULL); break;
    case DT_INT32: ((int32_t *)tensor_data(t))[i] = (int32_t)strtoll(tok, NULL, 10); break;
    case DT_INT64: ((int64_t *)tensor_data(t))[i] = strtoll(tok, NULL, 10); break;
    case DT_BOOL: ((bool *)tensor_data(t))[i] = atoi(tok) != 0; break;
    default: break;
    }
  }
  return t;
}

static Val parse_value(const char **s) {
  while (**s == ' ') (*s)++;
  if (**s == '[') {
    (*s)++;
    Val l = list_new(4);
    while (**s && **s != ']') {
      Val e = parse_value(s);
      list_append(l, e);
      TFS_DECREF(e);
      if (**s == ',') (*s)++;
    }
    if (**s == ']') (*s)++;
    return l;
  }
  if (**s == '\'') {
    const char *e = strchr(*s + 1, '\'');
    Val v = str_new(*s + 1, e - *s - 1);
    *s = e + 1;
    return v;
  }
  char word[64];
  int n = 0;
  while (**s && **s != ',' && **s != ']' && **s != ' ' && **s != '\n' && n < 63) word[n++] = *(*s)++;
  word[n] = 0;
  if (!strcmp(word, "True")) return val_bool(true);
  if (!strcmp(word, "False")) return val_bool(false);
  if (!strcmp(word, "None")) return val_none();
  int dt = dtype_by_name(word);
  if (dt >= 0) return dtype_val((DType)dt);
  if (strpbrk(word, ".eEn")) return val_float(strtod(word, NULL));
  return val_int(strtoll(word, NULL, 10));
}

/* ---- comparison ------------------------------------------------------------------------- */

static int64_t ord32(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i < 0 ? (int64_t)INT32_MIN - i : i;
}
static int64_t ord64(double f) {
  int64_t i;
  memcpy(&i, &f, 8);
  return i < 0 ? INT64_MIN - i : i;
}

/* A case's `cmp abs` line: outputs compare by magnitude, for factors unique only up to sign (svd's u and v,
 * eigh's v, qr's q and r). */
static bool cmp_abs;

static bool same_tensor(const Tensor *got, const Tensor *want, int ulps, char *why, size_t n) {
  if (got->dtype != want->dtype) {
    snprintf(why, n, "dtype %s, want %s", dtype_info[got->dtype].name, dtype_info[want->dtype].name);
    return false;
  }
  if (got->rank != want->rank) { snprintf(why, n, "rank %d, want %d", got->rank, want->rank); return false; }
  for (int d = 0; d < got->rank; d++)
    if (got->shape[d] != want->shape[d]) {
      snprintf(why, n, "dim %d is %lld, want %lld", d, (long long)got->shape[d], (long long)want->shape[d]);
      return false;
    }
  /* ulps > 0: error bound is ulps units of the largest expected magnitude */
  double wmax = 0;
  for (tfs_i64 i = 0; i < want->size; i++) {
    double w = fabs(tensor_get_f(want, i));
    if (isfinite(w) && w > wmax) wmax = w;
  }
  double eps = got->dtype == DT_FLOAT32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  double abs_tol = ulps > 0 ? ulps * eps * wmax : 0;
  for (tfs_i64 i = 0; i < want->size; i++) {
    double g = tensor_get_f(got, i), w = tensor_get_f(want, i);
    if (cmp_abs) g = fabs(g), w = fabs(w);
    bool ok;
    if (got->dtype == DT_FLOAT32 || got->dtype == DT_FLOAT64) {
      if (isnan(w)) ok = isnan(g);
      else if (isinf(w)) ok = g == w;
      else if (w == 0) ok = g == 0 || fabs(g) <= abs_tol;
      else {
        int64_t d = got->dtype == DT_FLOAT32 ? ord32((float)g) - ord32((float)w) : ord64(g) - ord64(w);
        ok = llabs(d) <= 1 || fabs(g - w) <= abs_tol;
      }
    } else {
      ok = tensor_get_i(got, i) == tensor_get_i(want, i);
    }
    if (!ok) {
      snprintf(why, n, "element %lld is %.17g, want %.17g", (long long)i, g, w);
      return false;
    }
  }
  return true;
}

/* ---- running a fixture file ----------------------------------------------------------------- */

typedef struct Case {
  char api[96];
  int ulps;
  int nargs;
  Val args[8];
  int nkw;
  const char *kwnames[8];
  char kwbuf[8][32];
  Val kwvals[8];
  Val list;                   /* VT_UNDEF unless a 'list' line opened one */
  int nout;
  Tensor *out[8];
  char err_kind[48], err_msg[512];
  int line;
} Case;

static void case_free(Case *c) {
  for (int i = 0; i < c->nargs; i++) TFS_DECREF(c->args[i]);
  for (int i = 0; i < c->nkw; i++) TFS_DECREF(c->kwvals[i]);
  for (int i = 0; i < c->nout; i++) tensor_release(c->out[i]);
  if (c->list.tag != VT_UNDEF) TFS_DECREF(c->list);
  memset(c, 0, sizeof *c);
}

static Val tf_attr(Val tf, const char *api) {
  char buf[96];
  snprintf(buf, sizeof buf, "%s", api);
  Val cur = val_incref(tf);
  char *save = NULL;
  for (char *part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
    Val next = rt_getattr(cur, part);
    TFS_DECREF(cur);
    cur = next;
  }
  return cur;
}

/* Returns true when the case passed; prints why not. */
static bool run_case(Val tf, Case *c, const char *file) {
  Val fn = tf_attr(tf, c->api);
  Kw kw = {c->nkw, c->kwnames, c->kwvals};
  Val args[9];
  int n = 0;
  if (c->list.tag != VT_UNDEF) args[n++] = c->list;
  for (int i = 0; i < c->nargs; i++) args[n++] = c->args[i];
  char why[600] = "";
  volatile bool ok = true;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Val r = rt_call(fn, n, args, &kw);
    rt_try_pop(&t);
    if (c->err_kind[0]) {
      snprintf(why, sizeof why, "expected %s, got a result", c->err_kind);
      ok = false;
    } else if (c->nout == 1 && val_is_tensor(r)) {
      ok = same_tensor(val_tensor(r), c->out[0], c->ulps, why, sizeof why);
    } else if ((val_is(r, &list_type) && ((List *)r.u.o)->len == c->nout) || (val_is(r, &tuple_type) && ((Tuple *)r.u.o)->len == c->nout)) {
      for (int i = 0; ok && i < c->nout; i++) {
        Val e = val_is(r, &list_type) ? ((List *)r.u.o)->items[i] : ((Tuple *)r.u.o)->items[i];
        ok = val_is_tensor(e) && same_tensor(val_tensor(e), c->out[i], c->ulps, why, sizeof why);
      }
    } else {
      snprintf(why, sizeof why, "unexpected result type %s", val_type_name(r));
      ok = false;
    }
    TFS_DECREF(r);
  } else {
    const char *kind = err_kind_name(t.kind);
    if (!c->err_kind[0]) {
      snprintf(why, sizeof why, "raised %s: %s", kind, t.msg ? t.msg : "");
      ok = false;
    } else if (strcmp(kind, c->err_kind) || !t.msg || strncmp(t.msg, c->err_msg, strlen(c->err_msg))) {
      snprintf(why, sizeof why, "raised %s: %s; want %s: %s", kind, t.msg ? t.msg : "", c->err_kind, c->err_msg);
      ok = false;
    }
    rt_try_clear(&t);
  }
  TFS_DECREF(fn);
  if (!ok) fprintf(stderr, "%s:%d: %s: %s\n", file, c->line, c->api, why);
  return ok;
}

static int run_file(const char *name) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s (set TFS_OP_FIXTURES)", path);
  Val tf = tf_module();
  static char line[1 << 16];
  Case c;
  memset(&c, 0, sizeof c);
  int failures = 0, cases = 0, lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "case ", 5)) {
      case_free(&c);
      sscanf(line + 5, "%95s %d", c.api, &c.ulps);
      cmp_abs = false;
      c.line = lineno;
      c.list = val_undef();
    } else if (!strncmp(line, "attr ", 5)) {
      char *name = line + 5, *sp = strchr(name, ' ');
      *sp = 0;
      snprintf(c.kwbuf[c.nkw], sizeof c.kwbuf[0], "%.31s", name);
      c.kwnames[c.nkw] = c.kwbuf[c.nkw];
      const char *v = sp + 1;
      c.kwvals[c.nkw++] = parse_value(&v);
    } else if (!strcmp(line, "cmp abs")) {
      cmp_abs = true;
    } else if (!strncmp(line, "list ", 5)) {
      c.list = list_new(4);
    } else if (!strncmp(line, "in ", 3)) {
      Tensor *t = parse_tensor(line + 3);
      if (c.list.tag != VT_UNDEF) {
        Val tv = val_obj(t);
        list_append(c.list, tv);
        TFS_DECREF(tv);
      } else {
        c.args[c.nargs++] = val_obj(t);
      }
    } else if (!strncmp(line, "out ", 4)) {
      c.out[c.nout++] = parse_tensor(line + 4);
    } else if (!strncmp(line, "err ", 4)) {
      char *kind = line + 4, *sp = strchr(kind, ' ');
      *sp = 0;
      snprintf(c.err_kind, sizeof c.err_kind, "%.47s", kind);
      snprintf(c.err_msg, sizeof c.err_msg, "%.511s", sp + 1);
    } else if (!strcmp(line, "end")) {
      cases++;
      if (!run_case(tf, &c, name)) failures++;
      case_free(&c);
    }
  }
  fclose(f);
  TFS_DECREF(tf);
  fprintf(stderr, "%s: %d cases, %d failures\n", name, cases, failures);
  ck_assert_msg(cases > 0, "no cases in %s", name);
  return failures;
}

START_TEST(test_binary) { ck_assert_int_eq(run_file("binary.txt"), 0); }
END_TEST
START_TEST(test_unary) { ck_assert_int_eq(run_file("unary.txt"), 0); }
END_TEST
START_TEST(test_reduce) { ck_assert_int_eq(run_file("reduce.txt"), 0); }
END_TEST
START_TEST(test_matmul) { ck_assert_int_eq(run_file("matmul.txt"), 0); }
END_TEST
START_TEST(test_shape) { ck_assert_int_eq(run_file("shape.txt"), 0); }
END_TEST
START_TEST(test_matmul_transposed) { ck_assert_int_eq(run_file("matmul_transposed.txt"), 0); }
END_TEST
START_TEST(test_linalg) { ck_assert_int_eq(run_file("linalg.txt"), 0); }
END_TEST

/* Every op of the table is reachable from `tf` under each of its API names. */
START_TEST(test_api_names) {
  Val tf = tf_module();
  for (int i = 0; i < OP__COUNT; i++) {
    const char *s = op_defs[i].api;
    while (*s) {
      char name[64];
      int len = 0;
      while (s[len] && s[len] != ' ') len++;
      snprintf(name, sizeof name, "%.*s", len, s);
      Val f = tf_attr(tf, name);
      ck_assert_msg(f.tag == VT_OBJ, "tf.%s missing", name);
      TFS_DECREF(f);
      s += len;
      while (*s == ' ') s++;
    }
  }
  TFS_DECREF(tf);
}
END_TEST

/* ---- the tf.io ops (ReadFile, WriteFile, _WriteNpy, DecodeCSV) applied directly, in a private directory ---- */
static Val str_tensor(const char *s) {
  Val v = str_new(s, (tfs_i64)strlen(s));
  Tensor *t = tensor_from_val(v, DT_STRING);
  TFS_DECREF(v);
  return val_obj(t);
}

START_TEST(test_io_ops) {
  char dir[] = "/tmp/tfs_test_io.XXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char path[128];
  snprintf(path, sizeof path, "%s/f.csv", dir);
  Val in[2] = {str_tensor(path), str_tensor("7,x,2.5")};
  Val r = op_apply(&op_defs[OP_WRITE_FILE], 2, in, NULL);
  ck_assert(r.tag == VT_NONE);
  Val back = op_apply(&op_defs[OP_READ_FILE], 1, in, NULL);
  Tensor *bt = val_tensor(back);
  ck_assert_int_eq(bt->dtype, DT_STRING);
  ck_assert_int_eq(bt->rank, 0);
  Str *bs = *(Str **)tensor_data(bt);
  ck_assert_str_eq(bs->data, "7,x,2.5");
  /* DecodeCSV: one output per record default, typed by it */
  Val defs = list_new(0);
  Val d0 = val_obj(tensor_from_val(val_int(0), DT_INT32)), d1 = str_tensor(""), d2 = val_obj(tensor_from_val(val_float(0), DT_FLOAT32));
  list_append(defs, d0);
  list_append(defs, d1);
  list_append(defs, d2);
  Val delim = str_new(",", 1), na = str_new("", 0);
  OpAttrs at = {4, {defs, delim, val_bool(true), na}};
  Val cols = op_apply(&op_defs[OP_DECODE_CSV], 1, &back, &at);
  ck_assert(val_is(cols, &list_type) && ((List *)cols.u.o)->len == 3);
  Tensor *c0 = val_tensor(((List *)cols.u.o)->items[0]), *c2 = val_tensor(((List *)cols.u.o)->items[2]);
  ck_assert_int_eq(c0->dtype, DT_INT32);
  ck_assert_int_eq(*(int32_t *)tensor_data(c0), 7);
  ck_assert(*(float *)tensor_data(c2) == 2.5f);
  /* _WriteNpy writes numpy's bytes: a 128-byte-aligned v1.0 header, then the data */
  char npy[128];
  snprintf(npy, sizeof npy, "%s/a.npy", dir);
  Val nin[2] = {str_tensor(npy), val_obj(tensor_from_val(val_float(1.5), DT_FLOAT32))};
  TFS_DECREF(op_apply(&op_defs[OP_WRITE_NPY], 2, nin, NULL));
  FILE *f = fopen(npy, "rb");
  ck_assert(f != NULL);
  fseek(f, 0, SEEK_END);
  ck_assert_int_eq(ftell(f), 128 + 4);
  fclose(f);
  /* a missing file: NotFoundError naming it */
  char missing[128];
  snprintf(missing, sizeof missing, "%s/none.txt", dir);
  Val mv = str_tensor(missing);
  RtTry t;
  volatile bool raised = false;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    TFS_DECREF(op_apply(&op_defs[OP_READ_FILE], 1, &mv, NULL));
    rt_try_pop(&t);
  } else {
    raised = true;
    ck_assert_str_eq(err_kind_name(t.kind), "NotFoundError");
    ck_assert(t.msg && strstr(t.msg, "none.txt"));
    rt_try_clear(&t);
  }
  ck_assert(raised);
  Val vals[] = {in[0], in[1], back, defs, d0, d1, d2, delim, na, cols, nin[0], nin[1], mv};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) TFS_DECREF(vals[i]);
  unlink(npy);
  unlink(path);
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* ---- the small-GEMM kernels on every ISA path this CPU runs ---------------------------------------
 * Each element is summed over k in order with a separate multiply and add, on every path, so the
 * result equals this plain loop's bit for bit (floats included) whatever the vector width. */
#define REF_GEMM(T, U)                                                                                   \
  static void ref_##T(T *C, const T *A, const T *B, int M, int N, int K, bool ta, bool tb) {             \
    for (int i = 0; i < M; i++)                                                                          \
      for (int j = 0; j < N; j++) {                                                                      \
        U acc = 0;                                                                                       \
        for (int k = 0; k < K; k++) {                                                                    \
          volatile U prod = (U)A[ta ? k * M + i : i * K + k] * (U)B[tb ? j * K + k : k * N + j];          \
          acc = acc + prod;                                                                              \
        }                                                                                                \
        C[i * N + j] = (T)acc;                                                                           \
      }                                                                                                  \
  }
REF_GEMM(float, float)
REF_GEMM(double, double)
REF_GEMM(int32_t, uint32_t)
REF_GEMM(int64_t, uint64_t)

static void fill(DType dt, void *p, int n, unsigned *seed) {
  for (int i = 0; i < n; i++) {
    *seed = *seed * 1103515245u + 12345u;
    int r = (int)(*seed >> 16 & 0x7fff);
    switch (dt) {
    case DT_FLOAT32: ((float *)p)[i] = (float)(r - 16384) / 977.0f; break; /* inexact: rounding must agree */
    case DT_FLOAT64: ((double *)p)[i] = (double)(r - 16384) / 977.0; break;
    case DT_INT32: ((int32_t *)p)[i] = (r - 16384) * 65599; break;             /* products wrap */
    default: ((int64_t *)p)[i] = (int64_t)(r - 16384) * 2654435761LL; break;
    }
  }
}

/* The vector sigmoid/tanh of vmath.c on every path against the scalar formulas, bit for bit (a sigmoid's
 * last n % 8 elements take Eigen's scalar formula, as TF's): every 65537th float32 bit pattern, a million
 * consecutive floats around 0.5 and -3 (gates' usual range), the special values, and every length up to 19 at
 * odd offsets (the vector tails).  All 2^32 inputs: tests/tools/vmath_all.c (by hand, a minute or two). */
static int vm_check(Isa isa, const float *in, tfs_i64 n) {
  float *got = malloc(sizeof(float) * (size_t)(n + 1));
  int bad = 0;
  for (int fn = 0; fn < 2; fn++) {
    if (fn) vm_tanh_on(isa, got, in, n);
    else vm_sigmoid_on(isa, got, in, n);
    for (tfs_i64 i = 0; i < n; i++) {
      float want = fn ? vm_tanh1(in[i]) : i < n - n % 8 ? vm_sigmoid_vec1(in[i]) : vm_sigmoid_tail1(in[i]);
      if (memcmp(&got[i], &want, 4) != 0) {
        bad++;
        fprintf(stderr, "%s %s(%a) = %a, want %a\n", isa_name(isa), fn ? "tanh" : "sigmoid", (double)in[i], (double)got[i], (double)want);
      }
    }
  }
  free(got);
  return bad;
}

/* the formulas against double precision: Eigen's bounds (a few ulps) where the result is a normal float */
static int vm_accuracy(const float *in, tfs_i64 n) {
  int bad = 0;
  for (tfs_i64 i = 0; i < n; i++) {
    float x = in[i];
    if (x != x) continue;
    double ds = 1.0 / (1.0 + exp(-(double)x)), dt = tanh((double)x);
    float got[3] = {vm_sigmoid_vec1(x), vm_sigmoid_tail1(x), vm_tanh1(x)};
    double want[3] = {ds, ds, dt}, tol[3] = {5, 3, 8};
    for (int k = 0; k < 3; k++) {
      if (fabs(want[k]) < 0x1p-126) continue;
      double ulp = nextafterf((float)fabs(want[k]), INFINITY) - (float)fabs(want[k]);
      if (fabs(got[k] - want[k]) > tol[k] * ulp) {
        bad++;
        fprintf(stderr, "formula %d at %a: %a, want %a\n", k, (double)x, (double)got[k], want[k]);
      }
    }
  }
  return bad;
}

START_TEST(test_vmath_paths) {
  tfs_i64 n = 0, cap = (1 << 16) + 2 * (1 << 20) + 64;
  float *in = malloc(sizeof(float) * (size_t)cap);
  for (uint64_t u = 0; u < (1ULL << 32); u += 65537) { uint32_t b = (uint32_t)u; memcpy(&in[n++], &b, 4); }
  float starts[2] = {0.5f, -3.0f};
  for (int k = 0; k < 2; k++) {
    uint32_t b;
    memcpy(&b, &starts[k], 4);
    for (uint32_t i = 0; i < (1u << 20); i++) { uint32_t v = b + i; memcpy(&in[n++], &v, 4); }
  }
  static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, -1e-45f, 0x1p-126f, 0x1p-125f,
                                  0x1p-5f, -0x1p-5f, 80.0f, -80.0f, 80.00001f, -80.00001f, 40.0f, -40.00001f, 88.7f, -104.0f};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) in[n++] = special[i];
  for (int isa = 0; isa <= (int)isa_cpu_best(); isa++) {
    ck_assert_int_eq(vm_check((Isa)isa, in, n), 0);
    ck_assert_int_eq(vm_check((Isa)isa, in + 1, n - 1), 0);   /* n - 1: a scalar tail of another length */
    for (tfs_i64 len = 0; len < 20; len++)
      for (tfs_i64 off = 0; off < 3; off++) ck_assert_int_eq(vm_check((Isa)isa, in + n - 20 - off, len), 0);
  }
  ck_assert_int_eq(vm_accuracy(in, n), 0);
  /* the limits */
  float lim[] = {0.0f, -0.0f, INFINITY, -INFINITY, -200.0f, 20.0f, 1e-30f}, out[7];
  vm_sigmoid_f32(out, lim, 7);
  ck_assert(out[0] == 0.5f && out[1] == 0.5f && out[2] == 1.0f && out[3] == 0.0f && out[4] == 0.0f && out[5] == 1.0f && out[6] == 0.5f);
  vm_tanh_f32(out, lim, 7);
  ck_assert(out[0] == 0.0f && !signbit(out[0]) && signbit(out[1]) && out[2] == 1.0f && out[3] == -1.0f && out[4] == -1.0f);
  ck_assert(out[5] == 1.0f && out[6] == 1e-30f);
  free(in);
}
END_TEST

/* The F16C conversions of halfconv.c on every path against object/half.h's scalar ones, bit for bit: all
 * 2^16 halves (NaNs with payloads, signalling ones, subnormals), every 4099th float32 bit pattern, each
 * half rounding boundary and its neighbours (ties to even, the subnormal and overflow edges), NaNs among
 * ordinary values, and every length up to 39 at odd offsets (the vector tails). */
static int hc_check(Isa isa, const uint16_t *h, tfs_i64 nh, const float *f, tfs_i64 nf) {
  float *gf = malloc(sizeof(float) * (size_t)(nh + 1));
  uint16_t *gh = malloc(sizeof(uint16_t) * (size_t)(nf + 1));
  int bad = 0;
  hc_f16_to_f32_on(isa, gf, h, nh);
  for (tfs_i64 i = 0; i < nh; i++) {
    float want = f16_to_f32(h[i]);
    if (memcmp(&gf[i], &want, 4) != 0 && bad++ < 5) fprintf(stderr, "%s f16 %04x -> %a, want %a\n", isa_name(isa), h[i], (double)gf[i], (double)want);
  }
  hc_f32_to_f16_on(isa, gh, f, nf);
  for (tfs_i64 i = 0; i < nf; i++)
    if (gh[i] != f32_to_f16(f[i]) && bad++ < 5) fprintf(stderr, "%s f32 %a -> %04x, want %04x\n", isa_name(isa), (double)f[i], gh[i], f32_to_f16(f[i]));
  free(gf);
  free(gh);
  return bad;
}

START_TEST(test_halfconv_paths) {
  tfs_i64 nh = 1 << 16, nf = 0, cap = (1 << 20) + 6 * (1 << 16) + 64;
  uint16_t *h = malloc(sizeof(uint16_t) * (size_t)nh);
  float *f = malloc(sizeof(float) * (size_t)cap);
  for (tfs_i64 i = 0; i < nh; i++) h[i] = (uint16_t)i;
  for (uint64_t u = 0; u < (1ULL << 32); u += 4099) { uint32_t b = (uint32_t)u; memcpy(&f[nf++], &b, 4); }
  for (uint32_t i = 0; i < (1u << 16); i++) {   /* the float halfway between halves i and i+1, and its neighbours */
    float lo = f16_to_f32((uint16_t)i), hi = f16_to_f32((uint16_t)(i + 1)), mid = (lo + hi) / 2;
    uint32_t b;
    memcpy(&b, &mid, 4);
    for (int d = -2; d <= 2; d++) { uint32_t v = b + (uint32_t)d; memcpy(&f[nf++], &v, 4); }
    f[nf++] = lo;
  }
  for (tfs_i64 i = 0; i < 40; i++) f[nf++] = i % 7 == 3 ? NAN : i % 11 == 5 ? -NAN : (float)i * 0.37f - 3;
  for (int isa = 0; isa <= (int)isa_cpu_best(); isa++) {
    ck_assert_int_eq(hc_check((Isa)isa, h, nh, f, nf), 0);
    for (tfs_i64 len = 0; len < 40; len++)
      for (tfs_i64 off = 0; off < 3; off++) ck_assert_int_eq(hc_check((Isa)isa, h + 0x7bf0 - off, len, f + nf - 40 - off, len), 0);
  }
  free(h);
  free(f);
}
END_TEST

START_TEST(test_gemm_paths) {
  /* row tails (M % 4), one and two vectors per panel, partial last panels, several panels, K = 1,
   * and a product big enough to pack on the heap */
  static const int shapes[][3] = {{1, 1, 1}, {3, 5, 2}, {4, 7, 8}, {5, 9, 16}, {10, 10, 10}, {7, 3, 17},
                                  {9, 33, 40}, {13, 1, 31}, {20, 64, 64}, {6, 300, 70},
                                  /* the narrow (unpacked, masked) kernels: N within one or two vectors */
                                  {11, 4, 12}, {2, 6, 9}, {8, 12, 7}, {6, 5, 3}, {5, 2, 15}};
  static const DType dts[] = {DT_FLOAT32, DT_FLOAT64, DT_INT32, DT_INT64};
  unsigned seed = 7;
  int checked = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (size_t d = 0; d < 4; d++)
      for (int t = 0; t < 4; t++) {
        int M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
        bool ta = t & 1, tb = t & 2;
        DType dt = dts[d];
        size_t es = (size_t)dtype_info[dt].size;
        char *A = malloc((size_t)(M * K) * es), *B = malloc((size_t)(K * N) * es);
        char *R = malloc((size_t)(M * N) * es), *C = malloc((size_t)(M * N) * es);
        fill(dt, A, M * K, &seed);
        fill(dt, B, K * N, &seed);
        switch (dt) {
        case DT_FLOAT32: ref_float((float *)R, (float *)A, (float *)B, M, N, K, ta, tb); break;
        case DT_FLOAT64: ref_double((double *)R, (double *)A, (double *)B, M, N, K, ta, tb); break;
        case DT_INT32: ref_int32_t((int32_t *)R, (int32_t *)A, (int32_t *)B, M, N, K, ta, tb); break;
        default: ref_int64_t((int64_t *)R, (int64_t *)A, (int64_t *)B, M, N, K, ta, tb); break;
        }
        for (int isa = 0; isa <= (int)isa_cpu_best(); isa++) {
          memset(C, 0x5a, (size_t)(M * N) * es);
          ck_assert(gemm_small_on((Isa)isa, dt, C, A, B, M, N, K, ta, tb));
          ck_assert_msg(memcmp(C, R, (size_t)(M * N) * es) == 0, "%s path, %s %dx%dx%d ta=%d tb=%d: differs from the plain loop",
                        isa_name((Isa)isa), dtype_info[dt].name, M, K, N, ta, tb);
          checked++;
        }
        free(A);
        free(B);
        free(R);
        free(C);
      }
  ck_assert_int_ge(checked, 10 * 4 * 4);
  ck_assert(!gemm_small_on(ISA_BASELINE, DT_BOOL, NULL, NULL, NULL, 1, 1, 1, false, false));
}
END_TEST

/* XINUSE (XGETBV with ECX = 1): the register-state components not in their initial state; false
 * when the CPU cannot report it. */
static bool xinuse(uint64_t *v) {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(1, 0, &a, &b, &c, &d) || !(c & (1u << 27))) return false; /* OSXSAVE */
  if (!__get_cpuid_count(0xD, 1, &a, &b, &c, &d) || !(a & 4)) return false;      /* XGETBV ECX=1 */
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  *v = (uint64_t)hi << 32 | lo;
  return true;
}

/* A libxsmm product leaves the upper halves of ymm/zmm0-15 clean (XINUSE bits 2 and 6 clear): with
 * them dirty, the SSE epilogue and elementwise loops that follow ran at ~1 ns per element. */
START_TEST(test_xsmm_upper_clean) {
  enum { M = 20, K = 64, N = 64 };
  static float A[M * K], B[K * N], C[M * N];
  for (int i = 0; i < M * K; i++) A[i] = (float)(i % 7) - 3;
  for (int i = 0; i < K * N; i++) B[i] = (float)(i % 5) - 2;
  bool ran = xsmm_gemm(DT_FLOAT32, C, A, B, M, N, K, false, false);
  uint64_t in_use = 0;
  bool known = xinuse(&in_use); /* read right after the product, before other code runs */
  if (isa_active() == ISA_BASELINE) { ck_assert(!ran); return; }
  ck_assert(ran);
  if (!known) { printf("XINUSE not reported by this CPU: upper-state check skipped\n"); return; }
  ck_assert_msg((in_use & ((1u << 2) | (1u << 6))) == 0, "XINUSE %#llx after a libxsmm product: upper vector state dirty",
                (unsigned long long)in_use);
  float ref = 0; /* small integers: exact in any summation order */
  for (int k = 0; k < K; k++) ref += A[k] * B[k * N];
  ck_assert(C[0] == ref);
}
END_TEST

/* libxsmm takes the training step's transposed products (dW = X^T dY straight through its JIT, dX = dY W^T
 * through a transposed copy of W) on the vector paths; the shapes of the Keras bench's MLP, each against
 * a float64 loop (the numpy fixtures matmul_transposed.txt check the same paths through tf.matmul), and a
 * B reused too little (M < 8) is left to the caller. */
START_TEST(test_xsmm_transposes) {
  static const int shapes[][3] = {{784, 100, 100}, {100, 100, 100}, {100, 100, 10}, {100, 10, 100}, {9, 7, 5}};
  unsigned seed = 11;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int t = 1; t < 4; t++) {
      int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
      bool ta = t & 1, tb = t & 2;
      float *A = malloc(sizeof(float) * (size_t)(M * K)), *B = malloc(sizeof(float) * (size_t)(K * N));
      float *C = malloc(sizeof(float) * (size_t)(M * N));
      fill(DT_FLOAT32, A, M * K, &seed);
      fill(DT_FLOAT32, B, K * N, &seed);
      bool ran = xsmm_gemm(DT_FLOAT32, C, A, B, M, N, K, ta, tb);
      if (isa_active() == ISA_BASELINE) {
        ck_assert(!ran);
      } else {
        ck_assert_msg(ran, "%dx%dx%d ta=%d tb=%d: not taken by libxsmm", M, N, K, ta, tb);
        for (int i = 0; i < M; i++)
          for (int j = 0; j < N; j++) {
            double r = 0, mag = 0;
            for (int k = 0; k < K; k++) {
              double p = (double)(ta ? A[k * M + i] : A[i * K + k]) * (double)(tb ? B[j * K + k] : B[k * N + j]);
              r += p;
              mag += p < 0 ? -p : p;
            }
            double d = C[i * N + j] - r;
            ck_assert_msg((d < 0 ? -d : d) <= 1e-6 * mag + 1e-30, "%dx%dx%d ta=%d tb=%d [%d,%d]: %g, expected %g", M, N, K,
                          ta, tb, i, j, (double)C[i * N + j], r);
          }
      }
      free(A);
      free(B);
      free(C);
    }
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4];
  ck_assert(!xsmm_gemm(DT_FLOAT32, c, a, b, 2, 2, 2, false, true));   /* M < 8: the copy would not pay */
}
END_TEST

/* The planned steps' float32 row loops of the AVX2 path (+, -, *, /, sqrt; k_elementwise.c) give the
 * baseline loops' bits: 4,099 elements (vector body and tail), signed values over many magnitudes,
 * zeros of both signs, subnormals, infinities and NaNs, both operands strided and broadcast. */
START_TEST(test_row_kernels_wide) {
  if (isa_cpu_best() < ISA_AVX2) return;
  enum { N = 4099 };
  static float a[N], b[N], o1[N], o2[N];
  static const float special[] = {0.0f, -0.0f, 1e-40f, -1e-45f, INFINITY, -INFINITY, NAN, 1.0f, -3.5f, 3.4e38f};
  unsigned seed = 5;
  for (int i = 0; i < N; i++) {
    seed = seed * 1103515245u + 12345u;
    int e = (int)(seed >> 16) % 60 - 30;
    a[i] = ((float)(seed >> 8 & 0xffff) / 65536.0f - 0.5f) * ldexpf(1.0f, e);
    seed = seed * 1103515245u + 12345u;
    b[i] = ((float)(seed >> 8 & 0xffff) / 65536.0f - 0.3f) * ldexpf(1.0f, (int)(seed >> 16) % 60 - 30);
    if (i % 37 == 0) a[i] = special[(i / 37) % 10];
    if (i % 41 == 0) b[i] = special[(i / 41) % 10];
  }
  static const OpId ids[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_SQRT};
  int saved = isa_cur;
  for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++)
    for (int form = 0; form < 3; form++) {   /* both operands rows; a broadcast; b broadcast */
      OpRow base, wide;
      isa_cur = ISA_BASELINE;
      ck_assert(op_row_kernel(ids[k], DT_FLOAT32, DT_FLOAT32, &base));
      isa_cur = ISA_AVX2;
      ck_assert(op_row_kernel(ids[k], DT_FLOAT32, DT_FLOAT32, &wide));
      isa_cur = saved;
      ck_assert((base.bin != NULL) == (wide.bin != NULL));
      ck_assert(base.bin != wide.bin || base.un != wide.un);   /* the AVX2 path has its own loop */
      tfs_i64 sa = form == 1 ? 0 : 1, sb = form == 2 ? 0 : 1;
      if (base.bin) {
        base.bin((char *)o1, (const char *)a, (const char *)b, N, sa, sb);
        wide.bin((char *)o2, (const char *)a, (const char *)b, N, sa, sb);
      } else {
        if (form) continue;
        base.un((char *)o1, (const char *)a, N, 1, 0);
        wide.un((char *)o2, (const char *)a, N, 1, 0);
      }
      ck_assert_msg(memcmp(o1, o2, sizeof o1) == 0, "op %d form %d: AVX2 row loop differs from baseline", (int)ids[k], form);
    }
}
END_TEST

static Suite *ops_suite(void) {
  Suite *s = suite_create("ops");
  TCase *tc = tcase_create("fixtures");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_binary);
  tcase_add_test(tc, test_unary);
  tcase_add_test(tc, test_reduce);
  tcase_add_test(tc, test_matmul);
  tcase_add_test(tc, test_shape);
  tcase_add_test(tc, test_matmul_transposed);
  tcase_add_test(tc, test_linalg);
  tcase_add_test(tc, test_api_names);
  tcase_add_test(tc, test_io_ops);
  suite_add_tcase(s, tc);
  TCase *tg = tcase_create("gemm");
  tcase_set_timeout(tg, 120);
  tcase_add_test(tg, test_gemm_paths);
  tcase_add_test(tg, test_vmath_paths);
  tcase_add_test(tg, test_halfconv_paths);
  tcase_add_test(tg, test_xsmm_upper_clean);
  tcase_add_test(tg, test_xsmm_transposes);
  tcase_add_test(tg, test_row_kernels_wide);
  suite_add_tcase(s, tg);
  return s;
}

int main(void) {
  int gate = isa_gate();
  if (gate >= 0) return gate;
  find_fixtures();
  SRunner *sr = srunner_create(ops_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
