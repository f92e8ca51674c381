/* blas.c — readies OpenBLAS before its first call: the core type of the active ISA path (not OpenBLAS's own CPU guess) and one thread. */
#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "kernels/ops.h"

/* Debian's OpenBLAS 0.3.21 (DYNAMIC_ARCH) picks its kernels from CPUID in its load-time constructor and
 * guesses wrong on CPUs newer than it: an Intel "Emerald Rapids" Xeon ran as a Prescott (4-5x slower), an
 * AMD family-26 EPYC as a Haswell (docs/performance.md).  The environment variable it reads is read
 * before main(), so the runtime re-runs its selection instead: gotoblas_dynamic_quit() clears the table
 * pointer and gotoblas_dynamic_init() picks again from OPENBLAS_CORETYPE.  Both are exported by every
 * DYNAMIC_ARCH build; found with dlsym, so another BLAS behind the libblas alternative still links. */
static const char *const core_for_isa[ISA_COUNT] = {"Prescott", "Haswell", "SkylakeX"};

static char core_name[32];

static void blas_pick_core(void) {
  if (getenv("OPENBLAS_CORETYPE")) return;   /* the user's choice, already applied at load */
  void (*quit)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit");
  void (*init)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init");
  if (!quit || !init) return;
  Isa isa = isa_active();
  __builtin_cpu_init();
  /* Prescott's kernels need SSE3, which x86-64 itself does not promise. */
  if (isa == ISA_BASELINE && !__builtin_cpu_supports("sse3")) return;
  const char *want = core_for_isa[isa];
  const char *have = openblas_get_corename();
  if (have && !strcasecmp(have, want)) return;
  /* Cooperlake is SkylakeX plus bf16: the same float kernels, so keep it. */
  if (have && isa == ISA_AVX512 && !strcasecmp(have, "Cooperlake")) return;
  setenv("OPENBLAS_CORETYPE", want, 1);
  quit();
  init();
  unsetenv("OPENBLAS_CORETYPE");   /* the environment stays the user's: child processes detect afresh */
}

/* One BLAS thread unless TFS_BLAS_THREADS says otherwise: the runtime's own thread pool splits large
 * products (threads.c), and OpenBLAS's threads fighting it made 128^3 sgemm 1.8x slower on 2 cores. */
static void blas_setup(void) {
  blas_pick_core();
  const char *e = getenv("TFS_BLAS_THREADS");
  long n = e ? strtol(e, NULL, 10) : 1;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (ncpu > 0 && n > ncpu) n = ncpu;
  openblas_set_num_threads((int)n);
  const char *name = openblas_get_corename();
  snprintf(core_name, sizeof core_name, "%s", name ? name : "?");
}

void blas_ready(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, blas_setup);
}

const char *blas_core(void) {
  blas_ready();
  return core_name;
}
