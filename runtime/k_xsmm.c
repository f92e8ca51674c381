/* k_xsmm.c — small float32/float64 products through libxsmm's JIT, generating code for the active ISA path. */
#include <libxsmm.h>

#include "ops.h"

/* Measured on the development machine (docs/performance.md): libxsmm's JIT kernels, dispatch
 * included, beat both OpenBLAS and our own register kernels from 4x4x4 up to 256x256x256; above
 * that OpenBLAS's cache blocking (and optional threads) takes over. */
#define XSMM_MAX_FLOPS ((tfs_i64)1 << 24)

/* libxsmm targets the path isa.c picked, so TFS_ISA reaches its JIT as well; the baseline path has no
 * JIT (dispatch returns NULL) and falls back to the caller's kernels. */
static int xsmm_isa = -1;

static void xsmm_target(Isa isa) {
  static const int arch[ISA_COUNT] = {LIBXSMM_X86_GENERIC, LIBXSMM_X86_AVX2, LIBXSMM_X86_AVX512_CORE};
  libxsmm_set_target_archid(arch[isa]);
  xsmm_isa = (int)isa;
}

/* libxsmm's JIT kernels return with the upper halves of the vector registers dirty (no
 * vzeroupper).  The runtime's kernels are mostly SSE code, and every legacy-SSE instruction
 * after such a kernel then pays a state-merge penalty: perf showed the fused MatMul+Relu
 * epilogue's SSE loop at ~1 ns per element (42% of the dense stack).  The JIT only runs on the
 * AVX2/AVX-512 paths, so the instruction is always there when this runs. */
static inline void xsmm_clear_upper(void) { __asm__ volatile("vzeroupper" ::: "memory"); }

bool xsmm_gemm(DType dt, void *C, const void *A, const void *B, tfs_i64 M, tfs_i64 N, tfs_i64 K, bool ta, bool tb) {
  if (ta || tb || (dt != DT_FLOAT32 && dt != DT_FLOAT64) || M * N * K > XSMM_MAX_FLOPS || M * N * K == 0) return false;
  Isa isa = isa_active();
  if (isa == ISA_BASELINE) return false;
  if (xsmm_isa != (int)isa) xsmm_target(isa);
  /* libxsmm is column-major: C^T[N,M] = B^T[N,K] A^T[K,M], i.e. row-major C = A B with A and B swapped */
  const libxsmm_blasint m = (libxsmm_blasint)N, n = (libxsmm_blasint)M, k = (libxsmm_blasint)K;
  const int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_PREFETCH_NONE;
  if (dt == DT_FLOAT32) {
    const float alpha = 1, beta = 0;
    libxsmm_smmfunction f = libxsmm_smmdispatch(m, n, k, NULL, NULL, NULL, &alpha, &beta, &flags, &prefetch);
    if (!f) return false;
    f(B, A, C);
  } else {
    const double alpha = 1, beta = 0;
    libxsmm_dmmfunction f = libxsmm_dmmdispatch(m, n, k, NULL, NULL, NULL, &alpha, &beta, &flags, &prefetch);
    if (!f) return false;
    f(B, A, C);
  }
  xsmm_clear_upper();
  return true;
}
