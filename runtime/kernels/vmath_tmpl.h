/* vmath_tmpl.h — one ISA path's vector sigmoid/tanh (included by vmath.c with VW lanes of double and SFX set). */
#define VM_CAT2(a, b) a##b
#define VM_CAT(a, b) VM_CAT2(a, b)
#define VD VM_CAT(vd, SFX)
#define VL VM_CAT(vl, SFX)
#define VF VM_CAT(vf, SFX)
#define VFN(n) VM_CAT(n, SFX)

typedef double VD __attribute__((vector_size(VW * 8)));
typedef long long VL __attribute__((vector_size(VW * 8)));
typedef float VF __attribute__((vector_size(VW * 4)));

/* exp(t) for |t| <= 81: t = k ln2 + r (Cody-Waite, |r| <= ln2/2, k ln2's high part exact), exp(r) by its
 * Taylor polynomial to degree 12 (truncation below 2^-52), times 2^k built in the exponent bits.  Relative
 * error a few ulps of double, far inside the margin of the rounding test. */
static inline __attribute__((always_inline)) VD VFN(vexp_)(VD t) {
  const VD shifter = (VD){0} + 0x1.8p52;
  VD kd = t * 0x1.71547652b82fep0 + shifter;
  VL kb = (VL)kd;
  kd = kd - shifter;
  VD r = t - kd * 0x1.62e42feep-1;   /* ln2's high 32 bits: k * it is exact for |k| < 2^11 */
  r = r - kd * 0x1.a39ef35793c76p-33;
  VD p = (VD){0} + 1.0 / 479001600.0;
  p = 1.0 / 39916800.0 + r * p;
  p = 1.0 / 3628800.0 + r * p;
  p = 1.0 / 362880.0 + r * p;
  p = 1.0 / 40320.0 + r * p;
  p = 1.0 / 5040.0 + r * p;
  p = 1.0 / 720.0 + r * p;
  p = 1.0 / 120.0 + r * p;
  p = 1.0 / 24.0 + r * p;
  p = 1.0 / 6.0 + r * p;
  p = 0.5 + r * p;
  p = 1.0 + r * p;
  p = 1.0 + r * p;
  VD s = (VD)((kb + 1023) << 52);
  return p * s;
}

/* lanes whose double y (positive, a normal float's range) lies within 2^12 ulps of double of a midpoint
 * between two floats: their rounding could differ from the reference's, whose own error is below 2 ulps */
static inline __attribute__((always_inline)) VL VFN(near_mid_)(VD y) {
  VL d = ((VL)y & 0x1FFFFFFF) - 0x10000000;
  return (d < 4096) & (d > -4096);
}

static inline __attribute__((always_inline)) VF VFN(load_)(const float *a) {
  VF v;
  memcpy(&v, a, sizeof v);
  return v;
}

static void VFN(vm_sigmoid_)(float *o, const float *a, tfs_i64 n) {
  tfs_i64 i = 0;
  for (; i + VW <= n; i += VW) {
    VD x = __builtin_convertvector(VFN(load_)(a + i), VD);
    VL ok = (x >= -80.0) & (x <= 80.0);   /* false for NaN; the result stays a normal float */
    VD t = (VD)((VL)-x & ok);
    VD y = 1.0 / (1.0 + VFN(vexp_)(t));
    VL bad = ~ok | VFN(near_mid_)(y);
    VF f = __builtin_convertvector(y, VF);
    float keep[VW];
    memcpy(keep, &f, sizeof keep);
    for (int l = 0; l < VW; l++)
      if (bad[l]) keep[l] = vm_sigmoid_ref(a[i + l]);
    memcpy(o + i, keep, sizeof keep);
  }
  for (; i < n; i++) o[i] = vm_sigmoid_ref(a[i]);
}

/* tanh |x| = 1 - 2 / (exp(2|x|) + 1) from 2^-5 up (the subtraction loses at most 5 bits there), its odd
 * Taylor polynomial to x^9 below (truncation under 2^-56 relative); the sign is put back on the float. */
static void VFN(vm_tanh_)(float *o, const float *a, tfs_i64 n) {
  tfs_i64 i = 0;
  for (; i + VW <= n; i += VW) {
    VD x = __builtin_convertvector(VFN(load_)(a + i), VD);
    VD ax = (VD)((VL)x & 0x7FFFFFFFFFFFFFFFLL);
    VL ok = (ax >= 0x1p-125) & (ax <= 40.0);
    VD t = (VD)((VL)(ax + ax) & ok);
    VD big = 1.0 - 2.0 / (VFN(vexp_)(t) + 1.0);
    VD x2 = ax * ax;
    VD q = (VD){0} - 1382.0 / 155925.0;
    q = 62.0 / 2835.0 + x2 * q;
    q = -17.0 / 315.0 + x2 * q;
    q = 2.0 / 15.0 + x2 * q;
    q = -1.0 / 3.0 + x2 * q;
    VD small = ax + ax * (x2 * q);
    VL sm = ax < 0x1p-5;
    VD y = (VD)(((VL)small & sm) | ((VL)big & ~sm));
    VL bad = ~ok | VFN(near_mid_)(y);
    VF f = __builtin_convertvector(y, VF);
    float keep[VW];
    memcpy(keep, &f, sizeof keep);
    for (int l = 0; l < VW; l++)
      keep[l] = bad[l] ? vm_tanh_ref(a[i + l]) : (a[i + l] < 0 ? -keep[l] : keep[l]);
    memcpy(o + i, keep, sizeof keep);
  }
  for (; i < n; i++) o[i] = vm_tanh_ref(a[i]);
}

#undef VD
#undef VL
#undef VF
#undef VFN
