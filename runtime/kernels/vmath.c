/* vmath.c — float32 sigmoid and tanh over arrays, vectorised per ISA path (vmath_tmpl.h), with the scalar glibc formulas' bits. */
#pragma GCC optimize("O3")
#include <math.h>
#include <string.h>

#include "kernels/vmath.h"

/* Why the bits are the reference's: a lane computes y in double with relative error e1 < 2^-48 (exp's few
 * ulps, then 1 + e and the division, or tanh's subtraction losing up to 5 bits); the reference's double has
 * e2 < 2^-51 (glibc: exp under 1 ulp, tanh under 2).  Two doubles that close round to different floats only
 * if a midpoint between floats lies between them, so within (e1 + e2) y < 2^-47 y < 2^6 ulps of y of it; the
 * rounding test sends every lane within 2^12 ulps of a midpoint (one lane in 2^16) to the reference, and
 * every lane outside the fast range (NaN, infinities, results near float's subnormals).  The exhaustive check
 * over all 2^32 floats is tests/tools/vmath_all.c.  So the paths may round differently inside (multiply-adds
 * contract where the ISA has them). */
float vm_sigmoid_ref(float x) { return (float)(1.0 / (1.0 + exp(-(double)x))); }
float vm_tanh_ref(float x) { return (float)tanh((double)x); }

/* the baseline path (SSE2: two doubles a vector, no multiply-add) measured slower than glibc's scalar code */
static void vm_sigmoid__base(float *o, const float *a, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n; i++) o[i] = vm_sigmoid_ref(a[i]);
}
static void vm_tanh__base(float *o, const float *a, tfs_i64 n) {
  for (tfs_i64 i = 0; i < n; i++) o[i] = vm_tanh_ref(a[i]);
}

#pragma GCC push_options
#pragma GCC optimize("fp-contract=fast")
#pragma GCC target("arch=x86-64-v3")
#define VW 4
#define SFX _avx2
#include "kernels/vmath_tmpl.h"
#undef VW
#undef SFX
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC optimize("fp-contract=fast")
#pragma GCC target("arch=x86-64-v4")
#define VW 8
#define SFX _avx512
#include "kernels/vmath_tmpl.h"
#undef VW
#undef SFX
#pragma GCC pop_options

typedef void (*VmFn)(float *o, const float *a, tfs_i64 n);
static const VmFn vm_table[ISA_COUNT][2] = {
  {vm_sigmoid__base, vm_tanh__base},
  {vm_sigmoid__avx2, vm_tanh__avx2},
  {vm_sigmoid__avx512, vm_tanh__avx512},
};

void vm_sigmoid_on(Isa isa, float *o, const float *a, tfs_i64 n) { vm_table[isa][0](o, a, n); }
void vm_tanh_on(Isa isa, float *o, const float *a, tfs_i64 n) { vm_table[isa][1](o, a, n); }
void vm_sigmoid_f32(float *o, const float *a, tfs_i64 n) { vm_table[isa_active()][0](o, a, n); }
void vm_tanh_f32(float *o, const float *a, tfs_i64 n) { vm_table[isa_active()][1](o, a, n); }
