/* vmath.c — float32 sigmoid and tanh over arrays as TF 2.15's CPU kernels compute them (Eigen's float algorithms), vectorised per ISA path with the same bits on each. */
#pragma GCC optimize("O3", "fp-contract=off")
#include <math.h>
#include <string.h>

#include "kernels/vmath.h"

/* TF's Sigmoid and Tanh are Eigen's scalar_logistic_op<float> and scalar_tanh_op<float> in the Eigen that
 * TF 2.15 builds (Eigen/src/Core/functors/UnaryFunctors.h, MathFunctionsImpl.h), compiled for x86-64 with AVX
 * and without FMA (TF's pip wheels): each multiply-add below is a multiply and an add, each rounded to float.
 * Eigen evaluates a tensor in packets of 8 floats and the last size % 8 elements one at a time; its tanh is
 * the same rational function either way, its logistic is not (the packets' exp(x/2)^2 with a degree-5
 * polynomial, the scalars' glibc expf).  The constants are Eigen's (its decimal literals, rounded to float). */
#define VM_SIG_LO (-104.0f)           /* below: 0 */
#define VM_SIG_HI 16.6355324f         /* the first x where the formula gives exactly 1 */
#define VM_LOG2E 1.44269504088896341f
#define VM_LN2_HI (-0.693359375f)     /* Cody and Waite's ln 2 in two parts */
#define VM_LN2_LO 2.12194440e-4f
#define VM_P2 0.49999141693115234375f
#define VM_P3 0.16666877269744873046875f
#define VM_P4 4.1898667812347412109375e-2f
#define VM_P5 8.33471305668354034423828125e-3f
#define VM_TANH_CLAMP 7.90531110763549805f   /* without FMA: the first x where the rational function is 1 */
#define VM_TANH_TINY 0.0004f                 /* below: tanh x = x */
#define VM_A1 4.89352455891786e-03f
#define VM_A3 6.37261928875436e-04f
#define VM_A5 1.48572235717979e-05f
#define VM_A7 5.12229709037114e-08f
#define VM_A9 (-8.60467152213735e-11f)
#define VM_A11 2.00018790482477e-13f
#define VM_A13 (-2.76076847742355e-16f)
#define VM_B0 4.89352518554385e-03f
#define VM_B2 2.26843463243900e-03f
#define VM_B4 1.18534705686654e-04f
#define VM_B6 1.19825839466702e-06f

float vm_sigmoid_vec1(float x) {
  if (x != x) return x + x;
  if (x < VM_SIG_LO) return 0.0f;
  float t = x > VM_SIG_HI ? VM_SIG_HI : x;
  float h = t * 0.5f;
  float m = floorf(h * VM_LOG2E + 0.5f);
  float r = m * VM_LN2_HI + h;
  r = m * VM_LN2_LO + r;
  float r2 = r * r;
  float pe = r2 * VM_P4 + VM_P2, po = r2 * VM_P5 + VM_P3, pl = r + 1.0f;
  float p = r * po + pe;
  p = r2 * p + pl;
  int bits = ((int)m + 127) * (1 << 23);   /* 2^m, m in [-75, 12] */
  float s;
  memcpy(&s, &bits, 4);
  float e = p * s;
  e = e * e;
  return e / (1.0f + e);
}

float vm_sigmoid_tail1(float x) {
  float e = expf(VM_SIG_HI < x ? VM_SIG_HI : x);   /* std::min's order: a NaN x stays */
  return e / (1.0f + e);
}

float vm_tanh1(float x) {
  if (fabsf(x) < VM_TANH_TINY) return x;
  float c = x > VM_TANH_CLAMP ? VM_TANH_CLAMP : x;
  c = c < -VM_TANH_CLAMP ? -VM_TANH_CLAMP : c;
  float x2 = c * c;
  float p = x2 * VM_A13 + VM_A11;
  p = x2 * p + VM_A9;
  p = x2 * p + VM_A7;
  p = x2 * p + VM_A5;
  p = x2 * p + VM_A3;
  p = x2 * p + VM_A1;
  p = c * p;
  float q = x2 * VM_B6 + VM_B4;
  q = x2 * q + VM_B2;
  q = x2 * q + VM_B0;
  return p / q;
}

#define VW 4
#define SFX _base
#include "kernels/vmath_tmpl.h"
#undef VW
#undef SFX
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define VW 8
#define SFX _avx2
#include "kernels/vmath_tmpl.h"
#undef VW
#undef SFX
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define VW 16
#define SFX _avx512
#include "kernels/vmath_tmpl.h"
#undef VW
#undef SFX
#pragma GCC pop_options

typedef void (*VmFn)(float *o, const float *a, tfs_i64 n, tfs_i64 nv);
static const VmFn vm_table[ISA_COUNT][2] = {
  {vm_sigmoid__base, vm_tanh__base},
  {vm_sigmoid__avx2, vm_tanh__avx2},
  {vm_sigmoid__avx512, vm_tanh__avx512},
};

static tfs_i64 packets(tfs_i64 n) { return n - n % VM_PACKET; }

void vm_sigmoid_on(Isa isa, float *o, const float *a, tfs_i64 n) { vm_table[isa][0](o, a, n, packets(n)); }
void vm_tanh_on(Isa isa, float *o, const float *a, tfs_i64 n) { vm_table[isa][1](o, a, n, n); }
void vm_sigmoid_f32(float *o, const float *a, tfs_i64 n) { vm_table[isa_active()][0](o, a, n, packets(n)); }
void vm_sigmoid_part_f32(float *o, const float *a, tfs_i64 n, tfs_i64 nv) {
  vm_table[isa_active()][0](o, a, n, nv < 0 ? 0 : nv > n ? n : nv);
}
void vm_tanh_f32(float *o, const float *a, tfs_i64 n) { vm_table[isa_active()][1](o, a, n, n); }
