/* vmath_tmpl.h — one ISA path's vector sigmoid/tanh (included by vmath.c with VW lanes of double and SFX set). */
#define VM_CAT2(a, b) a##b
#define VM_CAT(a, b) VM_CAT2(a, b)
#define VD VM_CAT(vd, SFX)
#define VL VM_CAT(vl, SFX)
#define VF VM_CAT(vf, SFX)
#define VI VM_CAT(vi, SFX)
#define VFN(n) VM_CAT(n, SFX)

typedef double VD __attribute__((vector_size(VW * 8)));
typedef long long VL __attribute__((vector_size(VW * 8)));
typedef float VF __attribute__((vector_size(VW * 4)));
typedef int VI __attribute__((vector_size(VW * 8)));

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
  /* on 32-bit halves (SSE2 compares no 64-bit integers): each high half becomes 0 - 2^30, never near */
  VI lo = (VI)y & (VI)((VL){0} + 0x1FFFFFFF);
  VI d = lo - (VI)((VL){0} + 0x4000000010000000LL);
  return (VL)((d < 4096) & (d > -4096));
}

static inline __attribute__((always_inline)) bool VFN(any_)(VL m) {
  long long r = 0;
  for (int l = 0; l < VW; l++) r |= m[l];
  return r != 0;
}

static inline __attribute__((always_inline)) VF VFN(load_)(const float *a) {
  VF v;
  memcpy(&v, a, sizeof v);
  return v;
}

/* one vector of sigmoid: the float results, and the lanes that must take the reference */
static inline __attribute__((always_inline)) VF VFN(sig_)(const float *a, VL *bad) {
  VD x = __builtin_convertvector(VFN(load_)(a), VD);
  VL ok = (x >= -80.0) & (x <= 80.0);   /* false for NaN; the result stays a normal float */
  VD t = (VD)((VL)-x & ok);
  VD y = 1.0 / (1.0 + VFN(vexp_)(t));
  *bad = ~ok | VFN(near_mid_)(y);
  return __builtin_convertvector(y, VF);
}

/* tanh |x| = 1 - 2 / (exp(2|x|) + 1) from 2^-5 up (the subtraction loses at most 5 bits there), its odd
 * Taylor polynomial to x^9 below (truncation under 2^-56 relative); then x's sign (rounding is symmetric) */
static inline __attribute__((always_inline)) VF VFN(tanh_)(const float *a, VL *bad) {
  VD x = __builtin_convertvector(VFN(load_)(a), VD);
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
  *bad = ~ok | VFN(near_mid_)(y);
  y = (VD)((VL)y | ((VL)x & ((VL){0} + (-0x7FFFFFFFFFFFFFFFLL - 1))));
  return __builtin_convertvector(y, VF);
}

/* two vectors per round, so that their polynomials' dependency chains overlap; then one; then scalars */
#define VM_LOOP(VEC, REF)                                                                          \
  tfs_i64 i = 0;                                                                                   \
  for (; i + 2 * VW <= n; i += 2 * VW) {                                                           \
    VL b0, b1;                                                                                     \
    VF f0 = VEC(a + i, &b0), f1 = VEC(a + i + VW, &b1);                                            \
    memcpy(o + i, &f0, sizeof f0);                                                                 \
    memcpy(o + i + VW, &f1, sizeof f1);                                                            \
    if (VFN(any_)(b0 | b1))                                                                        \
      for (int l = 0; l < VW; l++) {                                                               \
        if (b0[l]) o[i + l] = REF(a[i + l]);                                                       \
        if (b1[l]) o[i + VW + l] = REF(a[i + VW + l]);                                             \
      }                                                                                            \
  }                                                                                                \
  for (; i + VW <= n; i += VW) {                                                                   \
    VL b0;                                                                                         \
    VF f0 = VEC(a + i, &b0);                                                                       \
    memcpy(o + i, &f0, sizeof f0);                                                                 \
    if (VFN(any_)(b0))                                                                             \
      for (int l = 0; l < VW; l++)                                                                 \
        if (b0[l]) o[i + l] = REF(a[i + l]);                                                       \
  }                                                                                                \
  for (; i < n; i++) o[i] = REF(a[i]);

static void VFN(vm_sigmoid_)(float *o, const float *a, tfs_i64 n) { VM_LOOP(VFN(sig_), vm_sigmoid_ref) }
static void VFN(vm_tanh_)(float *o, const float *a, tfs_i64 n) { VM_LOOP(VFN(tanh_), vm_tanh_ref) }
#undef VM_LOOP

#undef VD
#undef VI
#undef VL
#undef VF
#undef VFN
