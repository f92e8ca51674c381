/* isa.h — which instruction-set path the ISA-specific kernels take: the CPU's best, or the one TFS_ISA forces. */
#ifndef TFS_ISA_H
#define TFS_ISA_H

#include <stdbool.h>
#include <stddef.h>

/* Ordered: each level includes the ones before it. */
typedef enum { ISA_BASELINE, ISA_AVX2, ISA_AVX512, ISA_COUNT } Isa;

extern int isa_cur; /* -1 until isa_init(); read on every kernel call, by pool workers too: relaxed atomic access
                     * (as cheap as a plain load, and no data race when the first kernels resolve it at once) */

/* Names as TFS_ISA spells them: "baseline" (x86-64), "avx2" (x86-64-v3), "avx512" (x86-64-v4). */
const char *isa_name(Isa i);
/* The best path this CPU runs. */
Isa isa_cpu_best(void);
/* What TFS_ISA asks for: 0 and *out set when unset or usable; -1 for an unknown name, 1 for a path the
 * CPU lacks, with the reason written to msg. */
int isa_from_env(Isa *out, char *msg, size_t n);
/* Resolves the path once; on a bad TFS_ISA prints the reason and exits with status 2. */
Isa isa_init(void);
static inline Isa isa_active(void) {
  int c = __atomic_load_n(&isa_cur, __ATOMIC_RELAXED);
  return c >= 0 ? (Isa)c : isa_init();
}

#endif
