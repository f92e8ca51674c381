/* vmath_all.c — checks the vector sigmoid/tanh (runtime/kernels/vmath.c) against the glibc formulas on all 2^32 float32 inputs, on every ISA path the CPU has. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/vmath.h"

/* A few minutes on one core: run by hand (build/tests/vmath_all [sigmoid|tanh]) after any change to
 * vmath.c or vmath_tmpl.h, not in the suite; the unit test test_ops checks a sample of the same on every path. */
#define CHUNK (1 << 20)

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  float *in = malloc(sizeof(float) * CHUNK), *ref = malloc(sizeof(float) * CHUNK), *got = malloc(sizeof(float) * CHUNK);
  if (!in || !ref || !got) return 2;
  int best = (int)isa_cpu_best(), bad = 0;
  for (int fn = 0; fn < 2; fn++) {
    const char *name = fn ? "tanh" : "sigmoid";
    if (only && strcmp(only, name) != 0) continue;
    long long diffs[ISA_COUNT] = {0};
    for (unsigned long long base = 0; base < (1ULL << 32); base += CHUNK) {
      for (int i = 0; i < CHUNK; i++) {
        unsigned int u = (unsigned int)(base + (unsigned long long)i);
        memcpy(&in[i], &u, 4);
        ref[i] = fn ? vm_tanh_ref(in[i]) : vm_sigmoid_ref(in[i]);
      }
      for (int isa = 0; isa <= best; isa++) {
        /* odd offsets too: the vector loop's tail and unaligned loads */
        if (fn) vm_tanh_on((Isa)isa, got, in, CHUNK);
        else vm_sigmoid_on((Isa)isa, got, in, CHUNK);
        for (int i = 0; i < CHUNK; i++)
          if (memcmp(&got[i], &ref[i], 4) != 0 && diffs[isa]++ < 5)
            printf("%s %s: x=%a got %a want %a\n", name, isa_name((Isa)isa), (double)in[i], (double)got[i], (double)ref[i]);
      }
    }
    for (int isa = 0; isa <= best; isa++) {
      printf("%s on %s: %lld of 2^32 inputs differ\n", name, isa_name((Isa)isa), diffs[isa]);
      bad |= diffs[isa] != 0;
    }
  }
  free(in);
  free(ref);
  free(got);
  return bad;
}
