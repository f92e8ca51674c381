/* test_capi.c — libtfs's C API (capi/tfs.h) on a SavedModel of tests/savedmodel/sm_module_save.tfs: loading, signatures, inputs, runs, errors as statuses, sessions on several threads.
 * tests/capi.py writes the model and passes its directory (TFS_CAPI_MODEL) and a damaged copy (TFS_CAPI_BAD). */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tfs.h"

static const char *model_dir(void) { return getenv("TFS_CAPI_MODEL"); }

/* The model's __call__: y = x @ [[1, 2], [3, 4]]; y * 0.5 when sum(y) > 0, else -y. */
static void expected(const float *x, int rows, float *y) {
  float sum = 0;
  for (int r = 0; r < rows; r++) {
    y[2 * r] = x[2 * r] * 1 + x[2 * r + 1] * 3;
    y[2 * r + 1] = x[2 * r] * 2 + x[2 * r + 1] * 4;
    sum += y[2 * r] + y[2 * r + 1];
  }
  for (int i = 0; i < 2 * rows; i++) y[i] = sum > 0 ? y[i] * 0.5f : -y[i];
}

START_TEST(load_errors) {
  TfsStatus *st = tfs_status_new();
  ck_assert_ptr_null(tfs_model_load("/nonexistent/model", st));
  ck_assert_int_eq(tfs_status_code(st), TFS_IO_ERROR);
  ck_assert_ptr_nonnull(strstr(tfs_status_message(st), "SavedModel file does not exist"));
  ck_assert_ptr_null(tfs_model_load(getenv("TFS_CAPI_BAD"), st));
  ck_assert_int_eq(tfs_status_code(st), TFS_CORRUPT);
  ck_assert_ptr_nonnull(strstr(tfs_status_message(st), "is corrupt"));
  ck_assert_ptr_null(tfs_model_load(NULL, st));
  ck_assert_int_eq(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  tfs_status_free(st);
}
END_TEST

START_TEST(signature_and_run) {
  TfsStatus *st = tfs_status_new();
  TfsModel *m = tfs_model_load(model_dir(), st);
  ck_assert_msg(m != NULL, "%s", tfs_status_message(st));
  ck_assert_int_eq(tfs_status_code(st), TFS_OK);
  ck_assert_int_eq(tfs_model_num_signatures(m), 1);
  ck_assert_str_eq(tfs_model_signature_name(m, 0), "serving_default");
  ck_assert_ptr_null(tfs_session_new(m, "predict", st));
  ck_assert_int_eq(tfs_status_code(st), TFS_NOT_FOUND);
  TfsSession *s = tfs_session_new(m, "serving_default", st);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(tfs_session_num_inputs(s), 1);
  ck_assert_str_eq(tfs_session_input_name(s, 0), "x");
  ck_assert_int_eq(tfs_session_input_index(s, "x"), 0);
  ck_assert_int_eq(tfs_session_input_index(s, "y"), -1);
  ck_assert_int_eq(tfs_session_input_dtype(s, 0), TFS_FLOAT32);
  const int64_t *sd;
  ck_assert_int_eq(tfs_session_input_shape(s, 0, &sd), 2);
  ck_assert_int_eq(sd[0], -1);
  ck_assert_int_eq(sd[1], 2);
  ck_assert_int_eq(tfs_session_num_outputs(s), 1);
  ck_assert_str_eq(tfs_session_output_name(s, 0), "output_0");
  /* not set yet */
  ck_assert_int_eq(tfs_session_run(s, st), TFS_INVALID_ARGUMENT);
  ck_assert_ptr_null(tfs_session_output(s, 0, NULL, NULL, NULL, st));
  float x[4] = {1, 1, -1, -3}, want[4];
  int64_t dims[2] = {2, 2};
  ck_assert_int_eq(tfs_session_set_input(s, 0, TFS_FLOAT32, 2, dims, x, st), TFS_OK);
  ck_assert_int_eq(tfs_session_run(s, st), TFS_OK);
  TfsDType dt;
  int rank;
  const int64_t *od;
  const float *y = tfs_session_output(s, 0, &dt, &rank, &od, st);
  ck_assert_ptr_nonnull(y);
  ck_assert_int_eq(dt, TFS_FLOAT32);
  ck_assert_int_eq(rank, 2);
  ck_assert_int_eq(od[0], 2);
  ck_assert_int_eq(od[1], 2);
  expected(x, 2, want);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(y[i], want[i]);
  /* bad inputs are statuses, and the session stays usable */
  double xd[2] = {1, 2};
  int64_t d1[2] = {1, 2}, d3[2] = {1, 3};
  ck_assert_int_eq(tfs_session_set_input(s, 0, TFS_FLOAT64, 2, d1, xd, st), TFS_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tfs_status_message(st), "must be float32"));
  ck_assert_int_eq(tfs_session_set_input(s, 0, TFS_FLOAT32, 2, d3, x, st), TFS_INVALID_ARGUMENT);
  ck_assert_int_eq(tfs_session_set_input(s, 0, TFS_FLOAT32, 1, d1, x, st), TFS_INVALID_ARGUMENT);
  ck_assert_int_eq(tfs_session_set_input(s, 3, TFS_FLOAT32, 2, d1, x, st), TFS_INVALID_ARGUMENT);
  ck_assert_int_eq(tfs_session_set_input(s, 0, TFS_FLOAT32, 2, d1, NULL, st), TFS_INVALID_ARGUMENT);
  ck_assert_int_eq(tfs_session_set_input(s, 0, TFS_FLOAT32, 2, d1, x, st), TFS_OK);
  ck_assert_int_eq(tfs_session_run(s, st), TFS_OK);
  y = tfs_session_output(s, 0, NULL, &rank, &od, st);
  expected(x, 1, want);
  ck_assert_int_eq(od[0], 1);
  ck_assert_float_eq(y[0], want[0]);
  ck_assert_float_eq(y[1], want[1]);
  ck_assert_int_eq(tfs_session_run(NULL, st), TFS_INVALID_ARGUMENT);
  tfs_session_free(s);
  tfs_model_free(m);
  tfs_status_free(st);
}
END_TEST

typedef struct Job { TfsModel *m; int id, bad; } Job;

/* Each thread: its own session, 300 runs on inputs of its own, every result checked. */
static void *worker(void *arg) {
  Job *j = arg;
  TfsStatus *st = tfs_status_new();
  TfsSession *s = tfs_session_new(j->m, "serving_default", st);
  if (!s) {
    j->bad++;
    tfs_status_free(st);
    return NULL;
  }
  for (int it = 0; it < 300; it++) {
    int rows = 1 + (it + j->id) % 3;
    float x[6], want[6];
    for (int i = 0; i < 2 * rows; i++) x[i] = (float)((j->id * 7 + it * 3 + i) % 11) - 5.0f;
    int64_t dims[2] = {rows, 2};
    if (tfs_session_set_input(s, 0, TFS_FLOAT32, 2, dims, x, st) != TFS_OK || tfs_session_run(s, st) != TFS_OK) {
      j->bad++;
      continue;
    }
    int rank;
    const int64_t *od;
    const float *y = tfs_session_output(s, 0, NULL, &rank, &od, st);
    expected(x, rows, want);
    if (!y || rank != 2 || od[0] != rows) j->bad++;
    else
      for (int i = 0; i < 2 * rows; i++)
        if (y[i] != want[i]) j->bad++;
  }
  tfs_session_free(s);
  tfs_status_free(st);
  return NULL;
}

START_TEST(threads) {
  TfsStatus *st = tfs_status_new();
  TfsModel *m = tfs_model_load(model_dir(), st);
  ck_assert_ptr_nonnull(m);
  pthread_t th[4];
  Job jobs[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (Job){m, i, 0};
    ck_assert_int_eq(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(jobs[i].bad, 0);
  tfs_model_free(m);
  tfs_status_free(st);
}
END_TEST

int main(void) {
  Suite *su = suite_create("capi");
  TCase *tc = tcase_create("capi");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, load_errors);
  tcase_add_test(tc, signature_and_run);
  tcase_add_test(tc, threads);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
