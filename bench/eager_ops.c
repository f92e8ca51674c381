/* eager_ops.c — per-op time of eager tfs ops from C: scalar add (three entry paths) and a 10x10 int32 matmul. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "modules/tfmod.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of 5 runs of n iterations, in ns per iteration. */
#define TIME_NS(n, body)                                         \
  ({                                                             \
    double best = 1e30;                                          \
    for (int rep = 0; rep < 5; rep++) {                          \
      double t0 = now();                                         \
      for (long it = 0; it < (n); it++) { body; }                \
      double dt = (now() - t0) / (double)(n) * 1e9;              \
      if (dt < best) best = dt;                                  \
    }                                                            \
    best;                                                        \
  })

void rt_layers_init(void);   /* stdlib/modules/rtmain.c: the layers' hooks (a constructor, but nothing here pulls its object in) */

int main(int argc, char **argv) {
  rt_layers_init();
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  Tensor *a = tensor_scalar(DT_FLOAT32), *b = tensor_scalar(DT_FLOAT32);
  *(float *)tensor_data(a) = 1.5f;
  *(float *)tensor_data(b) = 2.25f;
  Val va = val_obj(a), vb = val_obj(b);

  double t_apply = TIME_NS(n, {
    Val r = op_apply2(OP_ADD, va, vb);
    TFS_DECREF(r);
  });
  double t_binop = TIME_NS(n, {
    Val r = rt_binop(BIN_ADD, va, vb);
    TFS_DECREF(r);
  });
  Val tf = tf_module();
  Val add = rt_getattr(tf, "add");
  Val args[2] = {va, vb};
  double t_call = TIME_NS(n, {
    Val r = rt_call(add, 2, args, NULL);
    TFS_DECREF(r);
  });
  double t_attr_call = TIME_NS(n, {
    Val f = rt_getattr(tf, "add");
    Val r = rt_call(f, 2, args, NULL);
    TFS_DECREF(r);
    TFS_DECREF(f);
  });

  tfs_i64 shape[2] = {10, 10};
  Tensor *m = tensor_new(DT_INT32, 2, shape);
  for (int i = 0; i < 100; i++) ((int32_t *)tensor_data(m))[i] = (i * 7) % 5 - 2;
  Val vm = val_obj(m);
  long nm = n / 10 > 0 ? n / 10 : 1;
  double t_mm = TIME_NS(nm, {
    Val r = op_apply2(OP_MATMUL, vm, vm);
    TFS_DECREF(r);
  });
  /* power(x, 100): 100 chained matmuls, the seed workload */
  long np = nm / 100 > 0 ? nm / 100 : 1;
  double t_pow = TIME_NS(np, {
    Val acc = val_incref(vm);
    for (int k = 0; k < 100; k++) {
      Val r = op_apply2(OP_MATMUL, acc, vm);
      TFS_DECREF(acc);
      acc = r;
    }
    TFS_DECREF(acc);
  });
  tfs_i64 s64[2] = {64, 64};
  Tensor *f64 = tensor_new(DT_FLOAT32, 2, s64);
  for (int i = 0; i < 64 * 64; i++) ((float *)tensor_data(f64))[i] = (float)(i % 13) * 0.25f;
  Val vf = val_obj(f64);
  double t_mm64 = TIME_NS(nm / 10 + 1, {
    Val r = op_apply2(OP_MATMUL, vf, vf);
    TFS_DECREF(r);
  });

  printf("scalar_add_op_apply_ns %.1f\n", t_apply);
  printf("scalar_add_operator_ns %.1f\n", t_binop);
  printf("scalar_add_tf_add_call_ns %.1f\n", t_call);
  printf("scalar_add_getattr_call_ns %.1f\n", t_attr_call);
  printf("matmul_10x10_int32_ns %.1f\n", t_mm);
  printf("power_100_matmuls_10x10_int32_us %.2f\n", t_pow / 1000);
  printf("matmul_64x64_float32_ns %.1f\n", t_mm64);
  TFS_DECREF(va);
  TFS_DECREF(vb);
  TFS_DECREF(vm);
  TFS_DECREF(vf);
  TFS_DECREF(add);
  TFS_DECREF(tf);
  return 0;
}
