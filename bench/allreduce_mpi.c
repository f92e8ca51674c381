/* allreduce_mpi.c — §18.11's reference: Open MPI's in-place all-reduce of one float32 buffer (the MLP's gradient, 89,610 floats = 358 KB) per call, blocking MPI_Allreduce and MPI_Iallreduce + MPI_Test, medians of interleaved rounds. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 89610;   /* 784*100+100 + 100*100+100 + 100*10+10 */
  int iters = argc > 2 ? atoi(argv[2]) : 20, rounds = argc > 3 ? atoi(argv[3]) : 51;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  float *buf = malloc(sizeof(float) * (size_t)n);
  double *tb = malloc(sizeof(double) * (size_t)rounds), *tn = malloc(sizeof(double) * (size_t)rounds), *tp = calloc((size_t)rounds, sizeof(double));
  float *tmp = malloc(sizeof(float) * (size_t)n);
  if (!buf || !tb || !tn) return 1;
  for (int i = 0; i < n; i++) buf[i] = (float)((i + rank) % 7) * 0.25f;
  for (int i = 0; i < 20; i++) MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (int r = 0; r < rounds; r++) {
    /* the values stay finite: each call multiplies them by size, so rescale */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    tb[r] = (MPI_Wtime() - t0) / iters;
    for (int i = 0; i < n; i++) buf[i] = (float)((i + rank) % 7) * 0.25f;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      MPI_Request req;
      int done = 0;
      MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
      while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
    tn[r] = (MPI_Wtime() - t0) / iters;
    for (int i = 0; i < n; i++) buf[i] = (float)((i + rank) % 7) * 0.25f;
    if (size == 2) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      for (int i = 0; i < iters; i++) {
        MPI_Request rq[2];
        MPI_Irecv(tmp, n, MPI_FLOAT, 1 - rank, 7, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(buf, n, MPI_FLOAT, 1 - rank, 7, MPI_COMM_WORLD, &rq[1]);
        int done = 0;
        while (!done) MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE);
        for (int k = 0; k < n; k++) buf[k] += tmp[k];
      }
      tp[r] = (MPI_Wtime() - t0) / iters;
      for (int i = 0; i < n; i++) buf[i] = (float)((i + rank) % 7) * 0.25f;
    }
  }
  /* every rank's median; rank 0 prints the slowest rank's (what a step waits for) */
  /* the fastest round (least disturbed by other jobs on a shared machine) and the median, each the slowest rank's */
  double m[6] = {0};
  double *all[3] = {tb, tn, tp};
  for (int k = 0; k < 3; k++) {
    m[2 * k + 1] = median(all[k], rounds);
    m[2 * k] = all[k][0];
  }
  double mx[6];
  MPI_Reduce(m, mx, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("allreduce of %d floats (%d bytes) on %d ranks, us per call (fastest round, median):\n", n, n * (int)sizeof(float), size);
    printf("MPI_Allreduce %.1f %.1f\n", mx[0] * 1e6, mx[1] * 1e6);
    printf("MPI_Iallreduce %.1f %.1f\n", mx[2] * 1e6, mx[3] * 1e6);
    if (size == 2) printf("pairwise %.1f %.1f\n", mx[4] * 1e6, mx[5] * 1e6);
  }
  free(buf), free(tb), free(tn);
  MPI_Finalize();
  return 0;
}
