/* test_print.c — tprint against numpy 1.24 fixtures (tests/fixtures/print) and tf.print rules. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "tensor/tensor.h"
#include "tensor/tprint.h"

static const char *fixture_path;

/* ---- building tensors ---------------------------------------------------- */

static Tensor *make(DType dt, int rank, const tfs_i64 *shape) { return tensor_new(dt, rank, shape); }

static void release(Tensor *t) { TFS_DECREF(val_obj(t)); }

static Tensor *make_f(DType dt, int rank, const tfs_i64 *shape, const double *v) {
  Tensor *t = make(dt, rank, shape);
  for (tfs_i64 i = 0; i < t->size; i++) {
    if (dt == DT_FLOAT32) ((float *)tensor_data(t))[i] = (float)v[i];
    else ((double *)tensor_data(t))[i] = v[i];
  }
  return t;
}

static Tensor *make_i(DType dt, int rank, const tfs_i64 *shape, const long long *v) {
  Tensor *t = make(dt, rank, shape);
  for (tfs_i64 i = 0; i < t->size; i++) {
    if (dt == DT_INT32) ((int32_t *)tensor_data(t))[i] = (int32_t)v[i];
    else if (dt == DT_INT64) ((int64_t *)tensor_data(t))[i] = v[i];
    else ((unsigned char *)tensor_data(t))[i] = v[i] != 0;
  }
  return t;
}

static Tensor *make_s(int rank, const tfs_i64 *shape, const char *const *v) {
  Tensor *t = make(DT_STRING, rank, shape);
  for (tfs_i64 i = 0; i < t->size; i++) ((Str **)tensor_data(t))[i] = (Str *)str_from_cstr(v[i]).u.o;
  return t;
}

static DType parse_dtype(const char *s) {
  static const char *names[] = {"float32", "float64", "int32", "int64", "bool", "string"};
  static const DType dts[] = {DT_FLOAT32, DT_FLOAT64, DT_INT32, DT_INT64, DT_BOOL, DT_STRING};
  for (int i = 0; i < 6; i++)
    if (strcmp(s, names[i]) == 0) return dts[i];
  ck_abort_msg("unknown dtype %s", s);
  return DT_FLOAT32;
}

static int hexval(char c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

/* Fill t's C-order elements from the fixture's value tokens. */
static void fill(Tensor *t, char *vals) {
  char *save = NULL;
  for (tfs_i64 i = 0; i < t->size; i++) {
    char *tok = strtok_r(i == 0 ? vals : NULL, " \n", &save);
    ck_assert_msg(tok != NULL, "too few values");
    void *p = (char *)tensor_data(t) + i * dtype_info[t->dtype].size;
    switch (t->dtype) {
    case DT_FLOAT32: { uint32_t u = (uint32_t)strtoul(tok, NULL, 16); memcpy(p, &u, 4); break; }
    case DT_FLOAT64: { uint64_t u = strtoull(tok, NULL, 16); memcpy(p, &u, 8); break; }
    case DT_INT32: *(int32_t *)p = (int32_t)strtol(tok, NULL, 10); break;
    case DT_INT64: *(int64_t *)p = strtoll(tok, NULL, 10); break;
    case DT_BOOL: *(unsigned char *)p = tok[0] == '1'; break;
    case DT_STRING: {
      size_t n = (strlen(tok) - 1) / 2;
      char *s = malloc(n + 1);
      for (size_t k = 0; k < n; k++) s[k] = (char)(hexval(tok[1 + 2 * k]) * 16 + hexval(tok[2 + 2 * k]));
      s[n] = 0;
      *(Str **)p = (Str *)str_new(s, (tfs_i64)n).u.o;
      free(s);
      break;
    }
    default: break;
    }
  }
}

/* The tensor of a fixture: contiguous, or its axis-reversed view ("view T"). */
static Tensor *fixture_tensor(DType dt, int rank, const tfs_i64 *shape, bool transpose, char *vals) {
  Tensor *t = make(dt, rank, shape);
  fill(t, vals);
  if (!transpose) return t;
  tfs_i64 sh[TFS_MAX_RANK], st[TFS_MAX_RANK];
  for (int k = 0; k < rank; k++) {
    sh[k] = t->shape[rank - 1 - k];
    st[k] = t->strides[rank - 1 - k];
  }
  Tensor *v = tensor_view(t, rank, sh, st, t->offset);
  release(t);
  return v;
}

/* ---- numpy fixtures -------------------------------------------------------- */

static char *read_line(FILE *f, char **buf, size_t *cap) {
  ssize_t n = getline(buf, cap, f);
  if (n < 0) return NULL;
  if (n > 0 && (*buf)[n - 1] == '\n') (*buf)[n - 1] = 0;
  return *buf;
}

START_TEST(test_numpy_fixtures) {
  FILE *f = fopen(fixture_path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", fixture_path);
  char *line = NULL, *vals = NULL;
  size_t cap = 0;
  int ncases = 0, nfail = 0;
  char name[256] = "", dtname[32] = "";
  tfs_i64 shape[TFS_MAX_RANK];
  int rank = 0;
  bool transpose = false;
  while (read_line(f, &line, &cap)) {
    if (strncmp(line, "case ", 5) == 0) {
      snprintf(name, sizeof name, "%s", line + 5);
      transpose = false;
    } else if (strncmp(line, "dtype ", 6) == 0) {
      snprintf(dtname, sizeof dtname, "%s", line + 6);
    } else if (strncmp(line, "shape", 5) == 0) {
      rank = 0;
      char *p = line + 5;
      while (*p == ' ') {
        ck_assert(rank < TFS_MAX_RANK);
        shape[rank++] = strtoll(p, &p, 10);
      }
    } else if (strcmp(line, "view T") == 0) {
      transpose = true;
    } else if (strncmp(line, "values", 6) == 0) {
      free(vals);
      vals = strdup(line + 6);
    } else if (strncmp(line, "expect ", 7) == 0) {
      int nlines = atoi(line + 7);
      StrBuf want;
      sb_init(&want);
      for (int i = 0; i < nlines; i++) {
        ck_assert_msg(read_line(f, &line, &cap) != NULL, "%s: truncated", name);
        if (i > 0) sb_putc(&want, '\n');
        sb_puts(&want, line);
      }
      sb_putc(&want, 0);
      DType dt = parse_dtype(dtname);
      Tensor *t = fixture_tensor(dt, rank, shape, transpose, vals);
      StrBuf got;
      sb_init(&got);
      tprint_numpy(&got, t);
      sb_putc(&got, 0);
      ncases++;
      if (strcmp(got.data, want.data) != 0) {
        nfail++;
        fprintf(stderr, "FAIL %s\n--- numpy\n%s\n--- tprint_numpy\n%s\n", name, want.data, got.data);
      }
      if (rank == 0) {   /* the scalar entry point prints the same */
        got.len = 0;
        tprint_numpy_scalar(&got, dt, tensor_data(t));
        sb_putc(&got, 0);
        if (strcmp(got.data, want.data) != 0) {
          nfail++;
          fprintf(stderr, "FAIL %s (scalar)\n--- numpy\n%s\n--- tprint_numpy_scalar\n%s\n", name, want.data, got.data);
        }
      }
      sb_free(&got);
      sb_free(&want);
      release(t);
    }
  }
  free(line);
  free(vals);
  fclose(f);
  ck_assert_msg(ncases > 200, "only %d fixture cases read from %s", ncases, fixture_path);
  ck_assert_msg(nfail == 0, "%d of %d numpy fixture cases differ", nfail, ncases);
}
END_TEST

/* Text already in the buffer must not shift numpy's line wrapping. */
START_TEST(test_numpy_appends) {
  tfs_i64 shape[1] = {40};
  long long v[40];
  for (int i = 0; i < 40; i++) v[i] = i * 1000;
  Tensor *t = make_i(DT_INT64, 1, shape, v);
  StrBuf alone, after;
  sb_init(&alone);
  sb_init(&after);
  tprint_numpy(&alone, t);
  sb_puts(&after, "tf.Tensor(\n");
  sb_puts(&after, "some text before us");
  tprint_numpy(&after, t);
  sb_putc(&alone, 0);
  sb_putc(&after, 0);
  ck_assert_str_eq(after.data + strlen("tf.Tensor(\nsome text before us"), alone.data);
  ck_assert_ptr_nonnull(strchr(alone.data, '\n'));
  sb_free(&alone);
  sb_free(&after);
  release(t);
}
END_TEST

/* Summarized printing of a huge tensor touches only the shown elements. */
START_TEST(test_numpy_huge) {
  tfs_i64 shape[2] = {100000, 1000};   /* 1e8 elements, stride-0 view of one row */
  tfs_i64 one[1] = {1000};
  long long v[1000];
  for (int i = 0; i < 1000; i++) v[i] = i;
  Tensor *row = make_i(DT_INT32, 1, one, v);
  tfs_i64 strides[2] = {0, 1};
  Tensor *t = tensor_view(row, 2, shape, strides, 0);
  StrBuf b;
  sb_init(&b);
  tprint_numpy(&b, t);
  sb_putc(&b, 0);
  ck_assert_str_eq(b.data, "[[  0   1   2 ... 997 998 999]\n [  0   1   2 ... 997 998 999]\n"
                           " [  0   1   2 ... 997 998 999]\n ...\n [  0   1   2 ... 997 998 999]\n"
                           " [  0   1   2 ... 997 998 999]\n [  0   1   2 ... 997 998 999]]");
  b.len = 0;
  tprint_tfprint(&b, t);
  sb_putc(&b, 0);
  ck_assert_str_eq(b.data, "[[0 1 2 ... 997 998 999]\n [0 1 2 ... 997 998 999]\n [0 1 2 ... 997 998 999]\n"
                           " ...\n [0 1 2 ... 997 998 999]\n [0 1 2 ... 997 998 999]\n [0 1 2 ... 997 998 999]]");
  sb_free(&b);
  release(t);
  release(row);
}
END_TEST

/* ---- tf.print -------------------------------------------------------------- */

static void check_tf(Tensor *t, const char *want) {
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, "x");   /* appends, never resets */
  tprint_tfprint(&b, t);
  sb_putc(&b, 0);
  ck_assert_str_eq(b.data + 1, want);
  ck_assert_int_eq(b.data[0], 'x');
  sb_free(&b);
  release(t);
}

static void tf_f(DType dt, int rank, const tfs_i64 *shape, const double *v, const char *want) {
  check_tf(make_f(dt, rank, shape, v), want);
}

static void tf_i(DType dt, int rank, const tfs_i64 *shape, const long long *v, const char *want) {
  check_tf(make_i(dt, rank, shape, v), want);
}

static long long seq[1000];

START_TEST(test_tfprint_ints) {
  tfs_i64 s2[1] = {2}, s6[1] = {6}, s7[1] = {7}, s10[1] = {10}, s22[2] = {2, 2}, s222[3] = {2, 2, 2};
  tf_i(DT_INT32, 1, s2, (long long[]){4, 4}, "[4 4]");
  tf_i(DT_INT32, 0, NULL, (long long[]){-7}, "-7");
  tf_i(DT_INT64, 0, NULL, (long long[]){INT64_MIN}, "-9223372036854775808");
  tf_i(DT_INT32, 1, s6, seq, "[0 1 2 3 4 5]");
  tf_i(DT_INT32, 1, s7, seq, "[0 1 2 ... 4 5 6]");
  tf_i(DT_INT64, 1, s10, seq, "[0 1 2 ... 7 8 9]");
  tf_i(DT_INT32, 2, s22, (long long[]){1, 2, 3, 4}, "[[1 2]\n [3 4]]");
  tf_i(DT_INT32, 3, s222, seq, "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  tfs_i64 s10x10[2] = {10, 10};
  tf_i(DT_INT32, 2, s10x10, seq,
       "[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n"
       " [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]");
  tfs_i64 s2222[4] = {2, 1, 2, 2};
  tf_i(DT_INT32, 4, s2222, seq, "[[[[0 1]\n   [2 3]]]\n\n\n [[[4 5]\n   [6 7]]]]");
  tfs_i64 s81[2] = {8, 1};
  tf_i(DT_INT32, 2, s81, seq, "[[0]\n [1]\n [2]\n ...\n [5]\n [6]\n [7]]");
}
END_TEST

START_TEST(test_tfprint_bools) {
  tfs_i64 s2[1] = {2}, s22[2] = {2, 2};
  tf_i(DT_BOOL, 1, s2, (long long[]){1, 0}, "[1 0]");
  tf_i(DT_BOOL, 0, NULL, (long long[]){1}, "1");
  tf_i(DT_BOOL, 2, s22, (long long[]){0, 1, 1, 0}, "[[0 1]\n [1 0]]");
}
END_TEST

START_TEST(test_tfprint_floats) {
  tfs_i64 s2[1] = {2}, s3[1] = {3}, s8[1] = {8};
  tf_f(DT_FLOAT32, 1, s2, (double[]){4, 4}, "[4 4]");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){1.5}, "1.5");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){12}, "12");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){0.1}, "0.1");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){1.0 / 3}, "0.333333343");   /* %.6g does not read back: %.9g */
  tf_f(DT_FLOAT32, 1, s3, (double[]){0.1, 0.2, 1.0 / 3}, "[0.1 0.2 0.333333343]");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){1e10}, "1e+10");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){1e-5}, "1e-05");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){123456}, "123456");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){1234567}, "1234567");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){1000000}, "1e+06");
  tf_f(DT_FLOAT32, 0, NULL, (double[]){-0.0}, "-0");
  tf_f(DT_FLOAT64, 0, NULL, (double[]){0.1}, "0.1");
  tf_f(DT_FLOAT64, 0, NULL, (double[]){1.0 / 3}, "0.33333333333333331");
  tf_f(DT_FLOAT64, 0, NULL, (double[]){2.5}, "2.5");
  tf_f(DT_FLOAT64, 1, s3, (double[]){NAN, INFINITY, -INFINITY}, "[nan inf -inf]");
  tf_f(DT_FLOAT32, 1, s3, (double[]){-NAN, 0.5, -2}, "[-nan 0.5 -2]");
  tf_f(DT_FLOAT32, 1, s8, (double[]){0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5}, "[0 0.5 1 ... 2.5 3 3.5]");
}
END_TEST

START_TEST(test_tfprint_strings) {
  tfs_i64 s2[1] = {2};
  check_tf(make_s(1, s2, (const char *[]){"a", "bc"}), "[\"a\" \"bc\"]");
  check_tf(make_s(0, NULL, (const char *[]){"hi"}), "\"hi\"");
  check_tf(make_s(0, NULL, (const char *[]){"q\"'\\\n\t\r\x01\x7f h\xc3\xa9"}),
           "\"q\\\"\\'\\\\\\n\\t\\r\\001\\177 h\xc3\xa9\"");
}
END_TEST

START_TEST(test_tfprint_empty) {
  tfs_i64 s0[1] = {0}, s03[2] = {0, 3}, s20[2] = {2, 0};
  tf_i(DT_INT32, 1, s0, seq, "[]");
  tf_f(DT_FLOAT32, 2, s03, NULL, "[]");
  /* TF passes min(summarize, size) = 0 edge items, so a nonzero axis shows "..." */
  tf_f(DT_FLOAT32, 2, s20, NULL, "[\n ...]");
  tf_i(DT_BOOL, 2, s20, NULL, "");   /* TF special-cases empty bool tensors */
  check_tf(make_s(1, s0, NULL), "[]");
}
END_TEST

START_TEST(test_numpy_scalars_direct) {
  StrBuf b;
  sb_init(&b);
  float f = 12.0f;
  double d = 1e-5;
  int32_t i = -3;
  unsigned char t = 1;
  tprint_numpy_scalar(&b, DT_FLOAT32, &f);
  sb_putc(&b, ' ');
  tprint_numpy_scalar(&b, DT_FLOAT64, &d);
  sb_putc(&b, ' ');
  tprint_numpy_scalar(&b, DT_INT32, &i);
  sb_putc(&b, ' ');
  tprint_numpy_scalar(&b, DT_BOOL, &t);
  sb_putc(&b, 0);
  ck_assert_str_eq(b.data, "12.0 1e-05 -3 True");
  sb_free(&b);
}
END_TEST

static Suite *print_suite(void) {
  Suite *s = suite_create("print");
  TCase *tc = tcase_create("numpy");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_numpy_fixtures);
  tcase_add_test(tc, test_numpy_appends);
  tcase_add_test(tc, test_numpy_huge);
  tcase_add_test(tc, test_numpy_scalars_direct);
  suite_add_tcase(s, tc);
  tc = tcase_create("tfprint");
  tcase_add_test(tc, test_tfprint_ints);
  tcase_add_test(tc, test_tfprint_bools);
  tcase_add_test(tc, test_tfprint_floats);
  tcase_add_test(tc, test_tfprint_strings);
  tcase_add_test(tc, test_tfprint_empty);
  suite_add_tcase(s, tc);
  return s;
}

/* The fixture file: argv[1], $TFS_PRINT_FIXTURES, or found from the source
 * path / the usual working directories (meson runs tests in the build dir). */
static const char *find_fixtures(int argc, char **argv) {
  static char path[4096];
  if (argc > 1) return argv[1];
  if (getenv("TFS_PRINT_FIXTURES")) return getenv("TFS_PRINT_FIXTURES");
  const char *rel = "fixtures/print/numpy_str.txt";
  const char *src = __FILE__;   /* .../tests/unit/test_print.c */
  const char *cut = strstr(src, "unit/test_print.c");
  if (cut) {
    snprintf(path, sizeof path, "%.*s%s", (int)(cut - src), src, rel);
    FILE *f = fopen(path, "r");
    if (f) { fclose(f); return path; }
  }
  const char *tries[] = {"tests/", "../tests/", "../../tests/", "../"};
  for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
    snprintf(path, sizeof path, "%s%s", tries[i], rel);
    FILE *f = fopen(path, "r");
    if (f) { fclose(f); return path; }
  }
  return "tests/fixtures/print/numpy_str.txt";
}

int main(int argc, char **argv) {
  for (int i = 0; i < 1000; i++) seq[i] = i;
  fixture_path = find_fixtures(argc, argv);
  SRunner *sr = srunner_create(print_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
