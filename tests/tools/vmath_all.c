/* vmath_all.c — checks the vector sigmoid/tanh (runtime/kernels/vmath.c) on all 2^32 float32 inputs: every ISA path the CPU has gives the scalar formulas' bits, and their error against double precision. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/vmath.h"

/* A minute on one core: run by hand (build/tests/vmath_all [sigmoid|tanh]) after any change to vmath.c or
 * vmath_tmpl.h, not in the suite; the unit test test_ops checks a sample of the same on every path. */
#define CHUNK (1 << 20)

/* distance in floats between two finite floats of the same sign */
static double ulps(float got, double want) {
  float w = (float)want;
  int a, b;
  memcpy(&a, &got, 4);
  memcpy(&b, &w, 4);
  double frac = fabs(want - (double)w) / (nextafterf(w, INFINITY) - w);   /* the rounding of want itself */
  return fabs((double)a - (double)b) + (a == b ? frac : 0);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  float *in = malloc(sizeof(float) * CHUNK), *got = malloc(sizeof(float) * CHUNK);
  if (!in || !got) return 2;
  int best = (int)isa_cpu_best(), bad = 0;
  for (int fn = 0; fn < 3; fn++) {
    const char *name = fn == 2 ? "tanh" : fn ? "sigmoid-scalar" : "sigmoid";
    if (only && strncmp(name, only, strlen(only)) != 0) continue;
    long long diffs[ISA_COUNT] = {0};
    double worst = 0, worst_x = 0;
    for (unsigned long long base = 0; base < (1ULL << 32); base += CHUNK) {
      for (int i = 0; i < CHUNK; i++) {
        unsigned int u = (unsigned int)(base + (unsigned long long)i);
        memcpy(&in[i], &u, 4);
      }
      for (int i = 0; i < CHUNK; i++) {
        float x = in[i], y = fn == 2 ? vm_tanh1(x) : fn ? vm_sigmoid_tail1(x) : vm_sigmoid_vec1(x);
        double d = fn == 2 ? tanh((double)x) : 1.0 / (1.0 + exp(-(double)x));
        if (x != x || fabs(d) < 0x1p-126) continue;   /* NaN, and results among the subnormals */
        double e = ulps(y, d);
        if (e > worst) worst = e, worst_x = x;
      }
      if (fn == 1) continue;   /* the scalar formula has no vector path */
      for (int isa = 0; isa <= best; isa++) {
        if (fn == 2) vm_tanh_on((Isa)isa, got, in, CHUNK);
        else vm_sigmoid_on((Isa)isa, got, in, CHUNK);   /* CHUNK % 8 == 0: all packet lanes */
        for (int i = 0; i < CHUNK; i++) {
          float want = fn == 2 ? vm_tanh1(in[i]) : vm_sigmoid_vec1(in[i]);
          if (memcmp(&got[i], &want, 4) != 0 && diffs[isa]++ < 5)
            printf("%s %s: x=%a got %a want %a\n", name, isa_name((Isa)isa), (double)in[i], (double)got[i], (double)want);
        }
      }
    }
    printf("%s: worst error %.2f ulps (x = %a)\n", name, worst, worst_x);
    for (int isa = 0; isa <= best && fn != 1; isa++) {
      printf("%s on %s: %lld of 2^32 inputs differ from the scalar formula\n", name, isa_name((Isa)isa), diffs[isa]);
      bad |= diffs[isa] != 0;
    }
  }
  free(in);
  free(got);
  return bad;
}
