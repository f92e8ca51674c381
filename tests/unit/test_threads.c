/* test_threads.c — the intra-op thread pool (runtime/kernels/threads.c): every part runs once, nested and concurrent use, the caller's local limit, thread counts, determinism of threaded kernels (convolution, products), and its cost. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "kernels/conv.h"
#include "kernels/ops.h"
#include "tensor/tensor.h"

typedef struct {
  _Atomic int hits[64];
  _Atomic int nested;
} Count;

static void count_part(void *ctx, int part, int nparts) {
  Count *c = ctx;
  ck_assert_int_lt(part, nparts);
  atomic_fetch_add(&c->hits[part], 1);
}

START_TEST(test_every_part_once) {
  tp_set_threads(4);
  for (int n = 1; n <= 9; n++) {
    Count c;
    memset(&c, 0, sizeof c);
    tp_run(n, count_part, &c);
    for (int i = 0; i < n; i++) ck_assert_int_eq(atomic_load(&c.hits[i]), 1);
    ck_assert_int_eq(atomic_load(&c.hits[n]), 0);
  }
  tp_set_threads(0);
}
END_TEST

/* a part that runs the pool again: the inner job runs inline on the part's thread, no deadlock */
static void outer_part(void *ctx, int part, int nparts) {
  (void)part, (void)nparts;
  Count inner;
  memset(&inner, 0, sizeof inner);
  ck_assert_int_eq(tp_parts(1 << 30, 1), 1);   /* nested: never cut again */
  tp_run(3, count_part, &inner);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(atomic_load(&inner.hits[i]), 1);
  atomic_fetch_add(&((Count *)ctx)->nested, 1);
}

START_TEST(test_nested_runs_inline) {
  tp_set_threads(2);
  Count c;
  memset(&c, 0, sizeof c);
  tp_run(2, outer_part, &c);
  ck_assert_int_eq(atomic_load(&c.nested), 2);
  tp_set_threads(0);
}
END_TEST

/* tf.data's max_intra_op_parallelism = 1: a job started under tp_local_limit(1) runs every part on its caller */
static pthread_t limit_caller;
static _Atomic int limit_elsewhere;
static void where_part(void *ctx, int part, int nparts) {
  (void)part, (void)nparts;
  if (!pthread_equal(pthread_self(), limit_caller)) atomic_fetch_add(&limit_elsewhere, 1);
  atomic_fetch_add((_Atomic int *)ctx, 1);
}

START_TEST(test_local_limit) {
  tp_set_threads(4);
  limit_caller = pthread_self();
  ck_assert_int_eq(tp_local_limit(1), 0);
  ck_assert_int_eq(tp_local_limit(-1), 1);   /* n < 0 only reads */
  for (int r = 0; r < 50; r++) {
    _Atomic int done = 0;
    tp_run(16, where_part, &done);
    ck_assert_int_eq(atomic_load(&done), 16);
  }
  ck_assert_int_eq(atomic_load(&limit_elsewhere), 0);
  ck_assert_int_eq(tp_local_limit(0), 1);
  ck_assert_int_eq(tp_local_limit(-1), 0);
  tp_set_threads(0);
}
END_TEST

static void *hammer(void *arg) {
  (void)arg;
  for (int r = 0; r < 200; r++) {
    Count c;
    memset(&c, 0, sizeof c);
    tp_run(2, count_part, &c);
    if (atomic_load(&c.hits[0]) != 1 || atomic_load(&c.hits[1]) != 1) return (void *)1;
  }
  return NULL;
}

/* two threads sharing the pool: whoever finds it busy runs its parts itself */
START_TEST(test_concurrent_callers) {
  tp_set_threads(2);
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, hammer, NULL);
  for (int i = 0; i < 2; i++) {
    void *r;
    pthread_join(t[i], &r);
    ck_assert_ptr_null(r);
  }
  tp_set_threads(0);
}
END_TEST

START_TEST(test_thread_counts) {
  tp_set_threads(3);
  ck_assert_int_eq(tp_threads(), 3);
  ck_assert_int_eq(tp_parts(1000, 10), 12);   /* 4 parts per thread */
  ck_assert_int_eq(tp_parts(100, 10), 10);
  ck_assert_int_eq(tp_parts(25, 10), 2);    /* each part at least min_work */
  ck_assert_int_eq(tp_parts(15, 10), 1);
  tp_set_threads(1);
  ck_assert_int_eq(tp_parts(1 << 30, 1), 1);
  setenv("TFS_NUM_THREADS", "5", 1);
  tp_set_threads(0);
  ck_assert_int_eq(tp_threads(), 5);
  unsetenv("TFS_NUM_THREADS");
  tp_set_threads(0);
  ck_assert_int_ge(tp_threads(), 1);
}
END_TEST

/* A threaded kernel gives the same bits on every run with the same thread count, and within float
 * tolerance of the one-thread result: the MNIST CNN's second convolution, forward and gradients. */
static void conv_all(float *y, float *dx, float *df, const ConvGeom *g, const float *x, const float *f,
                     const float *dy) {
  ck_assert(conv_forward(g, x, f, y, NULL, false, NULL));
  ck_assert(conv_backward_input(g, f, dy, dx));
  ck_assert(conv_backward_filter(g, x, dy, df));
}

START_TEST(test_conv_deterministic) {
  ConvGeom g = {DT_FLOAT32, 16, 13, 13, 32, 3, 3, 64, 1, 1, 0, 0, 11, 11, 1, 1};
  size_t nx = 16 * 13 * 13 * 32, nf = 3 * 3 * 32 * 64, ny = 16 * 11 * 11 * 64;
  float *x = malloc(nx * 4), *f = malloc(nf * 4), *dy = malloc(ny * 4);
  float *r[2][3];
  for (size_t i = 0; i < nx; i++) x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  for (size_t i = 0; i < nf; i++) f[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
  for (size_t i = 0; i < ny; i++) dy[i] = (float)((i * 15485863) % 1000) / 1000.0f - 0.5f;
  size_t sizes[3] = {ny, nx, nf};
  for (int t = 0; t < 2; t++)
    for (int k = 0; k < 3; k++) r[t][k] = malloc(sizes[k] * 4);
  tp_set_threads(2);
  conv_all(r[0][0], r[0][1], r[0][2], &g, x, f, dy);
  for (int rep = 0; rep < 3; rep++) {
    conv_all(r[1][0], r[1][1], r[1][2], &g, x, f, dy);
    for (int k = 0; k < 3; k++) ck_assert(memcmp(r[0][k], r[1][k], sizes[k] * 4) == 0);
  }
  tp_set_threads(1);
  conv_all(r[1][0], r[1][1], r[1][2], &g, x, f, dy);
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i < sizes[k]; i++) {
      float a = r[0][k][i], b = r[1][k][i];
      ck_assert_msg(fabsf(a - b) <= 1e-4f * (1.0f + fabsf(b)), "result %d[%zu]: %g vs %g", k, i, a, b);
    }
  tp_set_threads(0);
  for (int t = 0; t < 2; t++)
    for (int k = 0; k < 3; k++) free(r[t][k]);
  free(x), free(f), free(dy);
}
END_TEST

/* Products split by rows of C, transpose_a too (slices of the stored A's columns), with the fused bias and
 * relu: the same bits on every run with a thread count, each element within float rounding of a double
 * reference.  Shapes are the Keras MLP step's (784-100-100-10, batch 100) and the 100-layer bench's. */
static void mm_case(float *c, const float *a, const float *b, const float *bias, int M, int N, int K, bool ta) {
  if (bias) matmul_2d(DT_FLOAT32, c, a, b, M, N, K, bias, true);
  else matmul_any(DT_FLOAT32, c, a, b, M, N, K, ta, false);
}

START_TEST(test_matmul_deterministic) {
  static const int shapes[][4] = {{100, 100, 784, 0}, {784, 100, 100, 1}, {100, 10, 100, 1}, {20, 64, 64, 0},
                                  {60, 128, 784, 0}, {7, 33, 5000, 1}};
  for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++) {
    int M = shapes[sh][0], N = shapes[sh][1], K = shapes[sh][2];
    bool ta = shapes[sh][3];
    float *a = malloc((size_t)M * K * 4), *b = malloc((size_t)K * N * 4), *bias = malloc((size_t)N * 4);
    float *first = malloc((size_t)M * N * 4), *again = malloc((size_t)M * N * 4);
    for (size_t i = 0; i < (size_t)M * K; i++) a[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    for (size_t i = 0; i < (size_t)K * N; i++) b[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
    for (int i = 0; i < N; i++) bias[i] = (float)(i % 7) / 7.0f - 0.4f;
    for (int threads = 1; threads <= 3; threads++) {
      tp_set_threads(threads);
      const float *bs = ta ? NULL : bias;
      mm_case(first, a, b, bs, M, N, K, ta);
      for (int rep = 0; rep < 3; rep++) {
        mm_case(again, a, b, bs, M, N, K, ta);
        ck_assert_msg(memcmp(first, again, (size_t)M * N * 4) == 0, "%dx%dx%d, %d threads", M, N, K, threads);
      }
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double ref = bs ? bs[j] : 0, mag = 0;
          for (int k = 0; k < K; k++) {
            double p = (double)(ta ? a[(size_t)k * M + i] : a[(size_t)i * K + k]) * b[(size_t)k * N + j];
            ref += p, mag += fabs(p);
          }
          if (bs && ref < 0) ref = 0;
          float got = first[(size_t)i * N + j];
          ck_assert_msg(fabs(got - ref) <= 1e-5 * (1 + mag), "%dx%dx%d ta=%d, %d threads, [%d,%d]: %g vs %g", M, N, K,
                        ta, threads, i, j, got, ref);
        }
    }
    free(a), free(b), free(bias), free(first), free(again);
  }
  tp_set_threads(0);
}
END_TEST

/* A chain of products run as one pool job (matmul_chain, the graph executor's stacks of Dense layers): at
 * each thread count, every link's result has the bits of the same link run alone (matmul_2d) where both cut
 * the rows alike (the 100-layer bench's 20 rows: halves at 2 threads, whole at 1), and the same bits on
 * repeated runs at 3 threads; with the links before the last left to the chain's scratch (C NULL, as the
 * graph executor runs it), the last link's bits are the same. */
START_TEST(test_matmul_chain) {
  enum { M = 20, L = 6, W = 64, K0 = 784 };
  float *x = malloc(sizeof(float) * M * K0), *w[L], *bias[L], *got[L], *want[L];
  for (size_t i = 0; i < (size_t)M * K0; i++) x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  MmLink links[L];
  for (int l = 0; l < L; l++) {
    int K = l ? W : K0;
    w[l] = malloc(sizeof(float) * K * W), bias[l] = malloc(sizeof(float) * W);
    got[l] = malloc(sizeof(float) * M * W), want[l] = malloc(sizeof(float) * M * W);
    for (size_t i = 0; i < (size_t)K * W; i++) w[l][i] = (float)((i * 104729 + (size_t)l) % 1000) / 10000.0f - 0.05f;
    for (int i = 0; i < W; i++) bias[l][i] = (float)(i % 7) / 70.0f - 0.04f;
    links[l] = (MmLink){got[l], w[l], l % 3 == 2 ? NULL : bias[l], W, K, l % 2 == 0};
  }
  for (int threads = 1; threads <= 3; threads++) {
    tp_set_threads(threads);
    for (int rep = 0; rep < 3; rep++) {
      matmul_chain(DT_FLOAT32, x, M, links, L);
      for (int l = 0; l < L; l++) {
        if (threads == 3 && rep) {
          ck_assert_msg(memcmp(got[l], want[l], sizeof(float) * M * W) == 0, "link %d, 3 threads, run %d", l, rep);
          continue;
        }
        if (threads < 3) matmul_2d(DT_FLOAT32, want[l], l ? got[l - 1] : x, w[l], M, W, links[l].K, links[l].bias, links[l].act);
        else memcpy(want[l], got[l], sizeof(float) * M * W);
        ck_assert_msg(memcmp(got[l], want[l], sizeof(float) * M * W) == 0, "link %d, %d threads", l, threads);
      }
    }
    MmLink last_only[L];
    float *last = malloc(sizeof(float) * M * W);
    for (int l = 0; l < L; l++) last_only[l] = links[l], last_only[l].C = l + 1 < L ? NULL : last;
    matmul_chain(DT_FLOAT32, x, M, last_only, L);
    ck_assert_msg(memcmp(last, got[L - 1], sizeof(float) * M * W) == 0, "scratch links, %d threads", threads);
    free(last);
  }
  tp_set_threads(0);
  for (int l = 0; l < L; l++) free(w[l]), free(bias[l]), free(got[l]), free(want[l]);
  free(x);
}
END_TEST

/* A product of gathered table rows as the gather of the table's product (matmul_gather): where it runs, the
 * bits of the product of the gathered rows (matmul_any) at the same thread count, in time-major and
 * batch-major order; it declines an id outside the table without writing. */
START_TEST(test_matmul_gather) {
  enum { V = 1000, B = 128, T = 80, K = 64, N = 256 };
  float *e = malloc(sizeof(float) * V * K), *w = malloc(sizeof(float) * K * N), *x = malloc(sizeof(float) * B * T * K);
  float *got = malloc(sizeof(float) * B * T * N), *want = malloc(sizeof(float) * B * T * N);
  int32_t *ids = malloc(sizeof(int32_t) * B * T);
  for (size_t i = 0; i < (size_t)V * K; i++) e[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  for (size_t i = 0; i < (size_t)K * N; i++) w[i] = (float)((i * 104729) % 1000) / 10000.0f - 0.05f;
  for (int i = 0; i < B * T; i++) ids[i] = (int32_t)((i * 2654435761u) % V);
  int ran = 0;
  for (int threads = 1; threads <= 2; threads++) {
    tp_set_threads(threads);
    for (int tmajor = 0; tmajor <= 1; tmajor++) {
      for (int r = 0; r < B * T; r++) {
        int i = tmajor ? (r % B) * T + r / B : r;
        memcpy(x + (size_t)r * K, e + (size_t)ids[i] * K, sizeof(float) * K);
      }
      matmul_any(DT_FLOAT32, want, x, w, B * T, N, K, false, false);
      if (!matmul_gather(DT_FLOAT32, got, e, V, ids, false, B, T, tmajor, w, N, K, NULL, false)) continue;
      ran++;
      ck_assert_msg(memcmp(got, want, sizeof(float) * B * T * N) == 0, "%d threads, tmajor %d", threads, tmajor);
    }
  }
  printf("matmul_gather: ran in %d of 4 cases on OpenBLAS core %s\n", ran, blas_core());
  ids[77] = V;
  got[0] = 12345.0f;
  ck_assert(!matmul_gather(DT_FLOAT32, got, e, V, ids, false, B, T, true, w, N, K, NULL, false));
  ck_assert(got[0] == 12345.0f);
  tp_set_threads(0);
  free(e), free(w), free(x), free(got), free(want), free(ids);
}
END_TEST

/* The fused LSTM sequence and its gradient, whose batch rows run as whole sequences on the pool's threads
 * (k_rnn.c): the same bits on repeated runs with a thread count, and the same values (within float
 * rounding: a part's product has fewer rows) at 1, 2 and 3 threads. */
static Tensor *filled(int rank, const tfs_i64 *shape, int seed, float scale) {
  Tensor *t = tensor_new(DT_FLOAT32, rank, shape);
  float *d = tensor_data(t);
  for (tfs_i64 i = 0; i < t->size; i++) d[i] = (float)((i * 7919 + seed * 104729) % 1000) / 1000.0f * scale - scale / 2;
  return t;
}

enum { LB = 24, LT = 9, LH = 16, LOUT = 10 };

/* outs[0..5): hs, h, c, cs, act; outs[5..10): dxp, dh0, dc0, du, db */
static void lstm_case(Tensor **in, Tensor **outs, bool back) {
  OpAttrs fa = {2, {val_bool(back), val_bool(true)}};
  Tensor **r;
  ck_assert_int_eq(op_run(&op_defs[OP_LSTM_SEQ], 5, in, NULL, &fa, &r), 5);
  for (int i = 0; i < 5; i++) outs[i] = r[i];
  free(r);
  /* h0, c0, recurrent_kernel, hs, cs, act, dhs, dh_last, dc_last */
  Tensor *gin[9] = {in[1], in[2], in[3], outs[0], outs[3], outs[4], in[5], in[6], in[7]};
  OpAttrs ba = {1, {val_bool(back)}};
  ck_assert_int_eq(op_run(&op_defs[OP_LSTM_SEQ_GRAD], 9, gin, NULL, &ba, &r), 5);
  for (int i = 0; i < 5; i++) outs[5 + i] = r[i];
  free(r);
}

/* a fused op's case: its outputs and its gradient op's in outs[0..nout) for one flag (go_backwards) and variant */
typedef void (*RnnCase)(Tensor **in, Tensor **outs, bool back, bool variant);

/* the same bits on repeated runs at 1, 2 and 3 threads, the same values within float rounding across them */
static void check_threads(RnnCase run, Tensor **in, int nout, bool variant) {
  for (int back = 0; back < 2; back++) {
    Tensor *one[LOUT];
    for (int threads = 1; threads <= 3; threads++) {
      tp_set_threads(threads);
      Tensor *first[LOUT], *again[LOUT];
      run(in, first, back, variant);
      run(in, again, back, variant);
      for (int i = 0; i < nout; i++) {
        ck_assert_int_eq(first[i]->size, again[i]->size);
        ck_assert_msg(memcmp(tensor_data(first[i]), tensor_data(again[i]), (size_t)first[i]->size * 4) == 0,
                      "output %d, %d threads, go_backwards=%d", i, threads, back);
        tensor_release(again[i]);
        if (threads == 1) {
          one[i] = first[i];
          continue;
        }
        const float *x = tensor_data(first[i]), *y = tensor_data(one[i]);
        for (tfs_i64 k = 0; k < first[i]->size; k++)
          ck_assert_msg(fabsf(x[k] - y[k]) <= 1e-5f * (1 + fabsf(y[k])), "output %d [%lld], %d threads: %g vs %g", i,
                        (long long)k, threads, x[k], y[k]);
        tensor_release(first[i]);
      }
    }
    for (int i = 0; i < nout; i++) tensor_release(one[i]);
  }
  tp_set_threads(0);
}

static void lstm_run(Tensor **in, Tensor **outs, bool back, bool variant) {
  (void)variant;
  lstm_case(in, outs, back);
}

START_TEST(test_lstm_deterministic) {
  tfs_i64 xs[3] = {LT, LB, 4 * LH}, bh[2] = {LB, LH}, us[2] = {LH, 4 * LH}, bs[1] = {4 * LH}, hs[3] = {LB, LT, LH};
  Tensor *in[8] = {filled(3, xs, 1, 2), filled(2, bh, 2, 1), filled(2, bh, 3, 1), filled(2, us, 4, 0.5f),
                   filled(1, bs, 5, 0.2f), filled(3, hs, 6, 1), filled(2, bh, 7, 1), filled(2, bh, 8, 1)};
  check_threads(lstm_run, in, LOUT, false);
  for (int i = 0; i < 8; i++) tensor_release(in[i]);
}
END_TEST

/* The fused GRU (both reset forms) and its gradient: outs[0..3) hs, h, act; outs[3..7) dxp, dh0, du, db.
 * in: xp, h0, recurrent_kernel, bias [2, 3H], bias [3H], dhs, dh_last */
static void gru_run(Tensor **in, Tensor **outs, bool back, bool after) {
  OpAttrs fa = {3, {val_bool(back), val_bool(after), val_bool(true)}};
  Tensor **r, *fin[4] = {in[0], in[1], in[2], after ? in[3] : in[4]};
  ck_assert_int_eq(op_run(&op_defs[OP_GRU_SEQ], 4, fin, NULL, &fa, &r), 3);
  for (int i = 0; i < 3; i++) outs[i] = r[i];
  free(r);
  Tensor *gin[6] = {in[1], in[2], outs[0], outs[2], in[5], in[6]};
  OpAttrs ba = {2, {val_bool(back), val_bool(after)}};
  ck_assert_int_eq(op_run(&op_defs[OP_GRU_SEQ_GRAD], 6, gin, NULL, &ba, &r), 4);
  for (int i = 0; i < 4; i++) outs[3 + i] = r[i];
  free(r);
}

START_TEST(test_gru_deterministic) {
  tfs_i64 xs[3] = {LT, LB, 3 * LH}, bh[2] = {LB, LH}, us[2] = {LH, 3 * LH}, b2[2] = {2, 3 * LH}, b1[1] = {3 * LH};
  tfs_i64 hs[3] = {LB, LT, LH};
  Tensor *in[7] = {filled(3, xs, 1, 2), filled(2, bh, 2, 1), filled(2, us, 4, 0.5f), filled(2, b2, 5, 0.2f),
                   filled(1, b1, 3, 0.2f), filled(3, hs, 6, 1), filled(2, bh, 7, 1)};
  check_threads(gru_run, in, 7, true);
  check_threads(gru_run, in, 7, false);
  for (int i = 0; i < 7; i++) tensor_release(in[i]);
}
END_TEST

/* A part of about a microsecond of arithmetic (the 100-layer bench's half-products are about that long). */
static _Atomic int parts_off_caller;
static __thread int on_caller;
static void busy_part(void *ctx, int part, int nparts) {
  (void)part, (void)nparts;
  volatile double x = 1;
  for (int i = 0; i < *(const int *)ctx; i++) x = x * 1.0000001 + 1e-9;
  if (!on_caller) atomic_fetch_add(&parts_off_caller, 1);
}

static double best_job_us(int threads, int iters) {
  tp_set_threads(threads);
  tp_run(2, busy_part, &iters);
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 1000; i++) tp_run(2, busy_part, &iters);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1000 / 1e3;
    if (us < best) best = us;
  }
  return best;
}

/* The cost of handing a part to a worker (docs/performance.md quotes it): a job of two ~1 us parts at 1 and
 * 2 threads; printed, not asserted, as it moves with the machine's load. */
START_TEST(test_dispatch_cost) {
  on_caller = 1;
  double one = best_job_us(1, 250);
  atomic_store(&parts_off_caller, 0);
  double two = best_job_us(2, 250);
  printf("thread pool: a job of two parts takes %.2f us on 1 thread, %.2f us on 2 (%.2fx; %d of 10,002 parts ran on the "
         "worker; best of 5 x 1000)\n", one, two, one / two, atomic_load(&parts_off_caller));
  tp_set_threads(0);
}
END_TEST

static Suite *threads_suite(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("pool");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_every_part_once);
  tcase_add_test(tc, test_nested_runs_inline);
  tcase_add_test(tc, test_local_limit);
  tcase_add_test(tc, test_concurrent_callers);
  tcase_add_test(tc, test_thread_counts);
  tcase_add_test(tc, test_conv_deterministic);
  tcase_add_test(tc, test_matmul_deterministic);
  tcase_add_test(tc, test_matmul_chain);
  tcase_add_test(tc, test_matmul_gather);
  tcase_add_test(tc, test_lstm_deterministic);
  tcase_add_test(tc, test_gru_deterministic);
  tcase_add_test(tc, test_dispatch_cost);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(threads_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
