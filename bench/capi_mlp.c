/* capi_mlp.c — latency of one call of bench/saved_mlp.tfs's SavedModel through libtfs (tfs.h): input copy, run, output read.
 * Prints "<what> <rows> <microseconds per call>" lines (best of 5) and the output checksum bench/run_capi.sh compares. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tfs.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s EXPORT_DIR\n", argv[0]);
    return 2;
  }
  TfsStatus *st = tfs_status_new();
  TfsModel *m = tfs_model_load(argv[1], st);
  TfsSession *s = m ? tfs_session_new(m, "serving_default", st) : NULL;
  if (!s) {
    fprintf(stderr, "capi_mlp: %s\n", tfs_status_message(st));
    return 1;
  }
  static float x[60 * 784];
  for (int i = 0; i < 60 * 784; i++) x[i] = (float)i / 50000.0f;
  int rows_list[2] = {1, 60};
  for (int r = 0; r < 2; r++) {
    int rows = rows_list[r];
    int64_t dims[2] = {rows, 784};
    double best = 1e30, best_run = 1e30;
    const int n = 2000;
    for (int rep = 0; rep < 6; rep++) {
      double t0 = now();
      for (int i = 0; i < n; i++) {
        tfs_session_set_input(s, 0, TFS_FLOAT32, 2, dims, x, st);
        tfs_session_run(s, st);
        if (!tfs_session_output(s, 0, NULL, NULL, NULL, st)) return 1;
      }
      double dt = (now() - t0) / n;
      t0 = now();
      for (int i = 0; i < n; i++) tfs_session_run(s, st);   /* the graph alone: no copy in or out */
      double dr = (now() - t0) / n;
      if (rep && dt < best) best = dt;   /* rep 0 warms up */
      if (rep && dr < best_run) best_run = dr;
    }
    int rank;
    const int64_t *od;
    const float *y = tfs_session_output(s, 0, NULL, &rank, &od, st);
    double sum = 0;
    for (int64_t i = 0; i < od[0] * od[1]; i++) sum += y[i];
    printf("capi-call %d %.2f\n", rows, best * 1e6);
    printf("capi-run-only %d %.2f\n", rows, best_run * 1e6);
    printf("checksum %d %.6g\n", rows, sum);
  }
  tfs_session_free(s);
  tfs_model_free(m);
  tfs_status_free(st);
  return 0;
}
