/* isa.c — picks the instruction-set path of the ISA-specific kernels from CPUID, or from TFS_ISA for testing. */
#include "kernels/isa.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int isa_cur = -1;

static const char *const names[ISA_COUNT] = {"baseline", "avx2", "avx512"};
static const char *const levels[ISA_COUNT] = {"x86-64", "x86-64-v3", "x86-64-v4"};

const char *isa_name(Isa i) { return (unsigned)i < ISA_COUNT ? names[i] : "?"; }

/* The kernels of a level are compiled with -march=<level>, so the whole level must be there, not
 * just the headline extension (x86-64-v3 also needs FMA, BMI2, MOVBE...). */
Isa isa_cpu_best(void) {
  __builtin_cpu_init();
#ifdef __clang__
  /* clang 14 (the fuzz build) knows no level names, nor f16c and movbe: the headline features of the
   * levels, one by one (every CPU with these has the rest of its level). */
  bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
            __builtin_cpu_supports("bmi2");
  bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
  bool v4 = __builtin_cpu_supports("x86-64-v4"), v3 = __builtin_cpu_supports("x86-64-v3");
#endif
  if (v4) return ISA_AVX512;
  if (v3) return ISA_AVX2;
  return ISA_BASELINE;
}

int isa_from_env(Isa *out, char *msg, size_t n) {
  Isa best = isa_cpu_best();
  *out = best;
  const char *e = getenv("TFS_ISA");
  if (!e || !*e) return 0;
  for (int i = 0; i < ISA_COUNT; i++) {
    if (strcmp(e, names[i]) != 0) continue;
    if ((Isa)i > best) {
      snprintf(msg, n, "TFS_ISA=%s: this CPU cannot run the %s kernels (it supports baseline%s%s)", e, levels[i],
               best >= ISA_AVX2 ? ", avx2" : "", best >= ISA_AVX512 ? ", avx512" : "");
      return 1;
    }
    *out = (Isa)i;
    return 0;
  }
  snprintf(msg, n, "TFS_ISA=%s: unknown path (expected baseline, avx2 or avx512)", e);
  return -1;
}

Isa isa_init(void) {
  Isa i;
  char msg[200];
  if (isa_from_env(&i, msg, sizeof msg) != 0) {
    fflush(stdout);
    fprintf(stderr, "tfs: error: %s\n", msg);
    exit(2);
  }
  __atomic_store_n(&isa_cur, (int)i, __ATOMIC_RELAXED);
  return i;
}
