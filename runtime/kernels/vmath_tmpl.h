/* vmath_tmpl.h — one ISA path's vector float32 sigmoid/tanh (included by vmath.c with VW float lanes and SFX set). */
#define VM_CAT2(a, b) a##b
#define VM_CAT(a, b) VM_CAT2(a, b)
#define VF VM_CAT(vf, SFX)
#define VI VM_CAT(vi, SFX)
#define VFN(n) VM_CAT(n, SFX)

typedef float VF __attribute__((vector_size(VW * 4)));
typedef int VI __attribute__((vector_size(VW * 4)));

/* lanes of a where m is set, of b elsewhere (C's vector extensions have no ?:) */
static inline __attribute__((always_inline)) VF VFN(sel_)(VI m, VF a, VF b) { return (VF)(((VI)a & m) | ((VI)b & ~m)); }

/* Every operation below is one IEEE float operation (no contraction: vmath.c sets fp-contract=off), so each lane
 * gives the scalar formulas' bits of vmath.c on every path. */
static inline __attribute__((always_inline)) VF VFN(sig_)(VF x) {
  VI nan = x != x, zero = x < VM_SIG_LO;
  VF t = VFN(sel_)(nan | zero, (VF){0} + VM_SIG_LO, x);   /* lanes that are replaced at the end compute on -104 */
  t = VFN(sel_)(t > VM_SIG_HI, (VF){0} + VM_SIG_HI, t);
  VF h = t * 0.5f;
  VF k = h * VM_LOG2E + 0.5f;
  VF m = __builtin_convertvector(__builtin_convertvector(k, VI), VF);   /* |k| < 2^7: truncation, then floor */
  m = m + __builtin_convertvector(m > k, VF);                           /* true is -1 */
  VF r = m * VM_LN2_HI + h;
  r = m * VM_LN2_LO + r;
  VF r2 = r * r;
  VF pe = r2 * VM_P4 + VM_P2, po = r2 * VM_P5 + VM_P3, pl = r + 1.0f;
  VF p = r * po + pe;
  p = r2 * p + pl;
  VF s = (VF)((__builtin_convertvector(m, VI) + 127) << 23);
  VF e = p * s;
  e = e * e;
  VF y = e / (1.0f + e);
  y = VFN(sel_)(zero, (VF){0}, y);
  return VFN(sel_)(nan, x + x, y);
}

static inline __attribute__((always_inline)) VF VFN(tanh_)(VF a) {
  VF ax = (VF)((VI)a & 0x7FFFFFFF);
  VI tiny = ax < VM_TANH_TINY;
  VF x = VFN(sel_)(a > VM_TANH_CLAMP, (VF){0} + VM_TANH_CLAMP, a);   /* NaN stays */
  x = VFN(sel_)(x < -VM_TANH_CLAMP, (VF){0} - VM_TANH_CLAMP, x);
  VF x2 = x * x;
  VF p = x2 * VM_A13 + VM_A11;
  p = x2 * p + VM_A9;
  p = x2 * p + VM_A7;
  p = x2 * p + VM_A5;
  p = x2 * p + VM_A3;
  p = x2 * p + VM_A1;
  p = x * p;
  VF q = x2 * VM_B6 + VM_B4;
  q = x2 * q + VM_B2;
  q = x2 * q + VM_B0;
  return VFN(sel_)(tiny, a, p / q);
}

static inline __attribute__((always_inline)) VF VFN(load_)(const float *a) {
  VF v;
  memcpy(&v, a, sizeof v);
  return v;
}

/* o[i] for i < nv by the vector formula, the rest by TAIL (two vectors a round so their chains overlap) */
#define VM_LOOP(VEC, ONE, TAIL)                                                                    \
  tfs_i64 i = 0;                                                                                   \
  for (; i + 2 * VW <= nv; i += 2 * VW) {                                                          \
    VF f0 = VEC(VFN(load_)(a + i)), f1 = VEC(VFN(load_)(a + i + VW));                              \
    memcpy(o + i, &f0, sizeof f0);                                                                 \
    memcpy(o + i + VW, &f1, sizeof f1);                                                            \
  }                                                                                                \
  for (; i + VW <= nv; i += VW) {                                                                  \
    VF f0 = VEC(VFN(load_)(a + i));                                                                \
    memcpy(o + i, &f0, sizeof f0);                                                                 \
  }                                                                                                \
  for (; i < nv; i++) o[i] = ONE(a[i]);                                                            \
  for (; i < n; i++) o[i] = TAIL(a[i]);

static void VFN(vm_sigmoid_)(float *o, const float *a, tfs_i64 n, tfs_i64 nv) { VM_LOOP(VFN(sig_), vm_sigmoid_vec1, vm_sigmoid_tail1) }
static void VFN(vm_tanh_)(float *o, const float *a, tfs_i64 n, tfs_i64 nv) { VM_LOOP(VFN(tanh_), vm_tanh1, vm_tanh1) }
#undef VM_LOOP

#undef VI
#undef VF
#undef VFN
