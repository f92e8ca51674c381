/* gemm.c — small-matrix product kernels side by side: tfs's own per ISA path, OpenBLAS and libxsmm. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxsmm.h>

#include "kernels/ops.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of 7 runs, in ns per product; each run lasts about 2 ms. */
#define TIME_NS(body)                                              \
  ({                                                               \
    long n = 1;                                                    \
    for (;;) {                                                     \
      double t0 = now();                                           \
      for (long it = 0; it < n; it++) { body; }                    \
      if (now() - t0 > 2e-3) break;                                \
      n *= 2;                                                      \
    }                                                              \
    double best = 1e30;                                            \
    for (int rep = 0; rep < 7; rep++) {                            \
      double t0 = now();                                           \
      for (long it = 0; it < n; it++) { body; }                    \
      double dt = (now() - t0) / (double)n * 1e9;                  \
      if (dt < best) best = dt;                                    \
    }                                                              \
    best;                                                          \
  })

static const char *dtname(DType dt) { return dt == DT_FLOAT32 ? "float32" : dt == DT_FLOAT64 ? "float64" : dt == DT_INT32 ? "int32" : "int64"; }

int main(int argc, char **argv) {
  static const int sizes[][3] = {{4, 4, 4}, {10, 10, 10}, {16, 16, 16}, {20, 64, 64}, {20, 784, 64}, {32, 32, 32},
                                 {60, 784, 128}, {64, 64, 64}, {60, 128, 10}, {128, 128, 128}, {256, 256, 256}};
  Isa best = isa_cpu_best();
  printf("ns per product C[M,N] = A[M,K] B[K,N], best of 7 runs of ~2 ms, one thread; columns: tfs's own kernel per ISA "
         "path this CPU runs (active: %s), OpenBLAS (float only), libxsmm JIT incl. its dispatch (float only)\n",
         isa_name(isa_active()));
  printf("%-8s %-12s", "dtype", "MxKxN");
  for (int i = 0; i <= (int)best; i++) printf(" %12s", isa_name((Isa)i));
  printf(" %12s %12s\n", "openblas", "libxsmm");
  openblas_set_num_threads(1);
  DType dts[] = {DT_FLOAT32, DT_FLOAT64, DT_INT32};
  for (int d = 0; d < 3; d++) {
    DType dt = dts[d];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int M = sizes[s][0], K = sizes[s][1], N = sizes[s][2];
      if (dt == DT_INT32 && M * K * N > 1000000) continue;
      size_t es = dt == DT_FLOAT64 ? 8 : 4;
      char *A = malloc((size_t)M * K * es), *B = malloc((size_t)K * N * es), *C = malloc((size_t)M * N * es);
      for (long i = 0; i < (long)M * K; i++) {
        if (dt == DT_FLOAT32) ((float *)A)[i] = (float)(i % 7) - 3;
        else if (dt == DT_FLOAT64) ((double *)A)[i] = (double)(i % 7) - 3;
        else ((int *)A)[i] = (int)(i % 7) - 3;
      }
      memcpy(B, A, (size_t)(K * N < M * K ? K * N : M * K) * es);
      char name[32];
      snprintf(name, sizeof name, "%dx%dx%d", M, K, N);
      printf("%-8s %-12s", dtname(dt), name);
      for (int i = 0; i <= (int)best; i++) printf(" %12.1f", TIME_NS(gemm_small_on((Isa)i, dt, C, A, B, M, N, K, false, false)));
      if (dt == DT_FLOAT32)
        printf(" %12.1f", TIME_NS(cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, (float *)A, K, (float *)B, N, 0.0f, (float *)C, N)));
      else if (dt == DT_FLOAT64)
        printf(" %12.1f", TIME_NS(cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, (double *)A, K, (double *)B, N, 0.0, (double *)C, N)));
      else
        printf(" %12s", "-");
      /* column-major: C^T[N,M] = B^T[N,K] A^T[K,M] */
      if (dt == DT_FLOAT32) {
        libxsmm_smmfunction f = libxsmm_smmdispatch(N, M, K, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        if (f) printf(" %12.1f", TIME_NS(libxsmm_smmdispatch(N, M, K, NULL, NULL, NULL, NULL, NULL, NULL, NULL)((float *)B, (float *)A, (float *)C)));
        else printf(" %12s", "none");
      } else if (dt == DT_FLOAT64) {
        libxsmm_dmmfunction f = libxsmm_dmmdispatch(N, M, K, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        if (f) printf(" %12.1f", TIME_NS(libxsmm_dmmdispatch(N, M, K, NULL, NULL, NULL, NULL, NULL, NULL, NULL)((double *)B, (double *)A, (double *)C)));
        else printf(" %12s", "none");
      } else
        printf(" %12s", "-");
      printf("\n");
      fflush(stdout);
      free(A);
      free(B);
      free(C);
    }
  }
  (void)argc;
  (void)argv;
  return 0;
}
