/* k_elementwise.c — elementwise kernels: broadcasting iteration, binary/unary/compare/logic/bitwise loops, cast, select, clip, add_n. */
#pragma GCC optimize("O3")   /* vectorized inner loops; set before any function, so inlining stays possible */

#include <complex.h>
#ifndef CMPLX   /* glibc defines CMPLX for gcc only; clang (the fuzz build) has the same builtin */
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif
#undef I         /* complex.h's imaginary unit would clash with the I_ cast macros' prefix */
#undef complex
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/isa.h"
#include "kernels/halfconv.h"
#include "kernels/vmath.h"
#include "object/object.h"
#include "kernels/ops.h"
#include "object/half.h"

/* ---- n-ary strided iteration ---------------------------------------------------
 * Output `out` is contiguous; inputs are broadcast views of any strides.  Dims
 * are coalesced where every operand is linear across them, then the body is
 * called once per innermost row with each operand's pointer and element stride. */

#define EW_MAXOP 4
typedef void (*EwBody)(void *ctx, char *o, char *const *p, tfs_i64 len, const tfs_i64 *st);

/* The coalesced loop nest of one call: q dims, the innermost one handed to the body per row. */
typedef struct {
  int n, q;
  EwBody body;
  void *ctx;
  char *obase;
  size_t oesz;
  tfs_i64 shape[TFS_MAX_RANK], ost[TFS_MAX_RANK], st[EW_MAXOP][TFS_MAX_RANK];
  char *base[EW_MAXOP];
  size_t esz[EW_MAXOP];
} EwPlan;

#define EW_MIN_PART TP_EW_MIN_PART

/* Part `part` of the loop: a slice of the rows, or of the single row when there is one. */
static void ew_part(void *v, int part, int nparts) {
  const EwPlan *pl = v;
  int q = pl->q, n = pl->n;
  tfs_i64 inner = pl->shape[q - 1], ist[EW_MAXOP];
  for (int k = 0; k < n; k++) ist[k] = pl->st[k][q - 1];
  tfs_i64 rows = 1;
  for (int d = 0; d < q - 1; d++) rows *= pl->shape[d];
  if (rows == 1) {
    tfs_i64 lo, hi;
    tp_slice(inner, part, nparts, &lo, &hi);
    char *p[EW_MAXOP];
    for (int k = 0; k < n; k++) p[k] = pl->base[k] + lo * ist[k] * (tfs_i64)pl->esz[k];
    if (hi > lo) pl->body(pl->ctx, pl->obase + lo * pl->ost[q - 1] * (tfs_i64)pl->oesz, p, hi - lo, ist);
    return;
  }
  tfs_i64 r0, r1;
  tp_slice(rows, part, nparts, &r0, &r1);
  tfs_i64 idx[TFS_MAX_RANK] = {0};
  for (tfs_i64 d = q - 2, r = r0; d >= 0; d--) {   /* the first row's index */
    idx[d] = r % pl->shape[d];
    r /= pl->shape[d];
  }
  for (tfs_i64 row = r0; row < r1; row++) {
    char *p[EW_MAXOP];
    tfs_i64 oo = 0;
    for (int k = 0; k < n; k++) {
      tfs_i64 off = 0;
      for (int d = 0; d < q - 1; d++) off += idx[d] * pl->st[k][d];
      p[k] = pl->base[k] + off * (tfs_i64)pl->esz[k];
    }
    for (int d = 0; d < q - 1; d++) oo += idx[d] * pl->ost[d];
    pl->body(pl->ctx, pl->obase + oo * (tfs_i64)pl->oesz, p, inner, ist);
    for (int d = q - 2; d >= 0; d--) {
      if (++idx[d] < pl->shape[d]) break;
      idx[d] = 0;
    }
  }
}

static void ew_iterate(Tensor *out, int n, Tensor *const *ins, EwBody body, void *ctx) {
  if (out->size == 0) return;
  int r = out->rank;
  tfs_i64 shape[TFS_MAX_RANK], st[EW_MAXOP][TFS_MAX_RANK], ost[TFS_MAX_RANK];
  int m = 0;
  for (int d = 0; d < r; d++) {
    if (out->shape[d] == 1) continue;   /* size-1 dims carry no iteration */
    shape[m] = out->shape[d];
    ost[m] = out->strides[d];
    for (int k = 0; k < n; k++) {
      const Tensor *t = ins[k];
      int id = d - (r - t->rank);
      st[k][m] = (id < 0 || t->shape[id] == 1) ? 0 : t->strides[id];
    }
    m++;
  }
  /* coalesce dim j into j+1 when linear for all operands */
  int q = 0;
  for (int j = 0; j < m; j++) {
    if (q > 0) {
      bool lin = ost[q - 1] == ost[j] * shape[j];
      for (int k = 0; k < n && lin; k++) lin = st[k][q - 1] == st[k][j] * shape[j];
      if (lin) {
        shape[q - 1] *= shape[j];
        ost[q - 1] = ost[j];
        for (int k = 0; k < n; k++) st[k][q - 1] = st[k][j];
        continue;
      }
    }
    shape[q] = shape[j];
    ost[q] = ost[j];
    for (int k = 0; k < n; k++) st[k][q] = st[k][j];
    q++;
  }
  char *base[EW_MAXOP];
  size_t esz[EW_MAXOP];
  for (int k = 0; k < n; k++) {
    esz[k] = (size_t)dtype_info[ins[k]->dtype].size;
    base[k] = (char *)ins[k]->buf->data + ins[k]->offset * (tfs_i64)esz[k];
  }
  size_t oesz = (size_t)dtype_info[out->dtype].size;
  char *obase = tensor_data(out);
  if (q == 0) {
    tfs_i64 z[EW_MAXOP] = {0};
    body(ctx, obase, base, 1, z);
    return;
  }
  EwPlan pl = {.n = n, .q = q, .body = body, .ctx = ctx, .obase = obase, .oesz = oesz};
  memcpy(pl.shape, shape, sizeof shape);
  memcpy(pl.ost, ost, sizeof ost);
  for (int k = 0; k < n; k++) {
    pl.base[k] = base[k];
    pl.esz[k] = esz[k];
    memcpy(pl.st[k], st[k], sizeof st[k]);
  }
  /* Large loops over plain numbers go to the thread pool (bodies over strings touch reference counts). */
  bool plain = !dtype_holds_refs(out->dtype);
  for (int k = 0; k < n; k++) plain = plain && !dtype_holds_refs(ins[k]->dtype);
  tfs_i64 rows = out->size / shape[q - 1];
  int nparts = plain ? tp_parts(out->size, EW_MIN_PART) : 1;
  if (nparts > 1 && rows > 1 && rows < nparts) nparts = (int)rows;
  if (nparts <= 1) ew_part(&pl, 0, 1);
  else tp_run(nparts, ew_part, &pl);
}

/* ---- binary loops -------------------------------------------------------------------- */

typedef void (*BinLoop)(char *o, const char *a, const char *b, tfs_i64 n, tfs_i64 sa, tfs_i64 sb);

#define BINLOOP(name, T, TO, EXPR)                                                       \
  static void name(char *o_, const char *a_, const char *b_, tfs_i64 n, tfs_i64 sa, tfs_i64 sb) { \
    TO *o = (TO *)o_;                                                                    \
    const T *a = (const T *)a_, *b = (const T *)b_;                                      \
    if (sa == 1 && sb == 1) {                                                            \
      for (tfs_i64 i = 0; i < n; i++) { T x = a[i], y = b[i]; o[i] = (EXPR); }           \
    } else if (sa == 0 && sb == 1) {                                                     \
      T x = a[0];                                                                        \
      for (tfs_i64 i = 0; i < n; i++) { T y = b[i]; o[i] = (EXPR); }                     \
    } else if (sa == 1 && sb == 0) {                                                     \
      T y = b[0];                                                                        \
      for (tfs_i64 i = 0; i < n; i++) { T x = a[i]; o[i] = (EXPR); }                     \
    } else {                                                                             \
      for (tfs_i64 i = 0; i < n; i++) { T x = a[i * sa], y = b[i * sb]; o[i] = (EXPR); } \
    }                                                                                    \
  }

/* No `restrict`: the graph executor runs these loops in place (o == a or o == b) when an operand
 * dies at the step; each element is read before it is written, and GCC's run-time alias check lets
 * exact aliasing take the vector loop. */

/* Integer arithmetic wraps (as TF does) without undefined behaviour. */
#define WRAP(T, U, e) ((T)(U)(e))

static inline int32_t fdiv_i32(int32_t x, int32_t y) {
  if (y == -1) return (int32_t)(0u - (uint32_t)x);
  int32_t q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}
static inline int64_t fdiv_i64(int64_t x, int64_t y) {
  if (y == -1) return (int64_t)(0ull - (uint64_t)x);
  int64_t q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}
static inline int32_t fmod_i32(int32_t x, int32_t y) {
  if (y == -1) return 0;
  int32_t r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}
static inline int64_t fmod_i64(int64_t x, int64_t y) {
  if (y == -1) return 0;
  int64_t r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}
static inline float fmod_f32(float x, float y) {
  float r = fmodf(x, y);
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}
static inline double fmod_f64(double x, double y) {
  double r = fmod(x, y);
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}
static inline int64_t ipow64(int64_t x, int64_t y) {
  uint64_t r = 1, b = (uint64_t)x;
  while (y > 0) {
    if (y & 1) r *= b;
    b *= b;
    y >>= 1;
  }
  return (int64_t)r;
}
/* TF's Maximum/Minimum propagate NaN. */
static inline float maxf_nan(float x, float y) { return (x != x || y != y) ? NAN : (x > y ? x : y); }
static inline float minf_nan(float x, float y) { return (x != x || y != y) ? NAN : (x < y ? x : y); }
static inline double maxd_nan(double x, double y) { return (x != x || y != y) ? NAN : (x > y ? x : y); }
static inline double mind_nan(double x, double y) { return (x != x || y != y) ? NAN : (x < y ? x : y); }

/* The binary functions once, as an X-list: BINLOOP makes the strided loops,
 * BINSCALAR the 0-d kernels of the graph executor's scalar fast path, so both
 * compute exactly the same expression. */
#define CMPS(X, nm, OPR)                 \
  X(nm##_f32, float, bool, x OPR y)      \
  X(nm##_f64, double, bool, x OPR y)     \
  X(nm##_i32, int32_t, bool, x OPR y)    \
  X(nm##_i64, int64_t, bool, x OPR y)    \
  X(nm##_b, bool, bool, x OPR y)
#define BIN_FNS(X) \
  X(add_f32, float, float, x + y) \
  X(add_f64, double, double, x + y) \
  X(add_i32, int32_t, int32_t, WRAP(int32_t, uint32_t, (uint32_t)x + (uint32_t)y)) \
  X(add_i64, int64_t, int64_t, WRAP(int64_t, uint64_t, (uint64_t)x + (uint64_t)y)) \
  X(sub_f32, float, float, x - y) \
  X(sub_f64, double, double, x - y) \
  X(sub_i32, int32_t, int32_t, WRAP(int32_t, uint32_t, (uint32_t)x - (uint32_t)y)) \
  X(sub_i64, int64_t, int64_t, WRAP(int64_t, uint64_t, (uint64_t)x - (uint64_t)y)) \
  X(mul_f32, float, float, x * y) \
  X(mul_f64, double, double, x * y) \
  X(mul_i32, int32_t, int32_t, WRAP(int32_t, uint32_t, (uint32_t)x * (uint32_t)y)) \
  X(mul_i64, int64_t, int64_t, WRAP(int64_t, uint64_t, (uint64_t)x * (uint64_t)y)) \
  X(div_f32, float, float, x / y) \
  X(div_f64, double, double, x / y) \
  X(div_i32, int32_t, double, (double)x / (double)y) \
  X(div_i64, int64_t, double, (double)x / (double)y) \
  X(fdiv_f32_, float, float, floorf(x / y)) \
  X(fdiv_f64_, double, double, floor(x / y)) \
  X(fdiv_i32_, int32_t, int32_t, fdiv_i32(x, y)) \
  X(fdiv_i64_, int64_t, int64_t, fdiv_i64(x, y)) \
  X(mod_f32, float, float, fmod_f32(x, y)) \
  X(mod_f64, double, double, fmod_f64(x, y)) \
  X(mod_i32, int32_t, int32_t, fmod_i32(x, y)) \
  X(mod_i64, int64_t, int64_t, fmod_i64(x, y)) \
  X(pow_f32, float, float, powf(x, y)) \
  X(pow_f64, double, double, pow(x, y)) \
  X(pow_i32, int32_t, int32_t, (int32_t)ipow64(x, y)) \
  X(pow_i64, int64_t, int64_t, ipow64(x, y)) \
  X(atan2_f32, float, float, (float)atan2((double)x, (double)y)) \
  X(atan2_f64, double, double, atan2(x, y)) \
  X(max_f32, float, float, maxf_nan(x, y)) \
  X(max_f64, double, double, maxd_nan(x, y)) \
  X(max_i32, int32_t, int32_t, x > y ? x : y) \
  X(max_i64, int64_t, int64_t, x > y ? x : y) \
  X(min_f32, float, float, minf_nan(x, y)) \
  X(min_f64, double, double, mind_nan(x, y)) \
  X(min_i32, int32_t, int32_t, x < y ? x : y) \
  X(min_i64, int64_t, int64_t, x < y ? x : y) \
  X(sqd_f32, float, float, (x - y) * (x - y)) \
  X(sqd_f64, double, double, (x - y) * (x - y)) \
  X(sqd_i32, int32_t, int32_t, WRAP(int32_t, uint32_t, ((uint32_t)x - (uint32_t)y) * ((uint32_t)x - (uint32_t)y))) \
  X(sqd_i64, int64_t, int64_t, WRAP(int64_t, uint64_t, ((uint64_t)x - (uint64_t)y) * ((uint64_t)x - (uint64_t)y))) \
  CMPS(X, eq, ==) \
  CMPS(X, ne, !=) \
  CMPS(X, lt, <) \
  CMPS(X, le, <=) \
  CMPS(X, gt, >) \
  CMPS(X, ge, >=) \
  X(div_u64, uint64_t, double, (double)x / (double)y) \
  X(fdiv_u64_, uint64_t, uint64_t, x / y) \
  X(mod_u64, uint64_t, uint64_t, x % y) \
  X(max_u64, uint64_t, uint64_t, x > y ? x : y) \
  X(min_u64, uint64_t, uint64_t, x < y ? x : y) \
  X(lt_u64, uint64_t, bool, x < y) \
  X(le_u64, uint64_t, bool, x <= y) \
  X(gt_u64, uint64_t, bool, x > y) \
  X(ge_u64, uint64_t, bool, x >= y) \
  X(and_b, bool, bool, x && y) \
  X(or_b, bool, bool, x || y) \
  X(xor_b, bool, bool, x != y)
BIN_FNS(BINLOOP)

/* Scalar kernels: one element, operands read before the result is written (so
 * the output may alias an input, as the executor's in-place reuse needs). */
#define BINSCALAR(name, T, TO, EXPR)                                          \
  static __attribute__((unused)) bool s_##name(void *o_, const void *a_, const void *b_) { \
    T x = *(const T *)a_, y = *(const T *)b_;                                 \
    *(TO *)o_ = (EXPR);                                                       \
    return true;                                                              \
  }
BIN_FNS(BINSCALAR)

/* complex64 / complex128 as C's _Complex types (the same (re, im) layout as std::complex): +, -, * and /
 * are gcc's, whose division is Annex G's scaled one (libgcc __divsc3), as std::complex's operator/. */
typedef float _Complex cf32;
typedef double _Complex cf64;
#define CPLX_FNS(X) \
  X(add_c64, cf32, cf32, x + y) \
  X(add_c128, cf64, cf64, x + y) \
  X(sub_c64, cf32, cf32, x - y) \
  X(sub_c128, cf64, cf64, x - y) \
  X(mul_c64, cf32, cf32, x * y) \
  X(mul_c128, cf64, cf64, x * y) \
  X(div_c64, cf32, cf32, x / y) \
  X(div_c128, cf64, cf64, x / y) \
  X(pow_c64, cf32, cf32, cpowf(x, y)) \
  X(pow_c128, cf64, cf64, cpow(x, y)) \
  X(eq_c64, cf32, bool, x == y) \
  X(eq_c128, cf64, bool, x == y) \
  X(ne_c64, cf32, bool, x != y) \
  X(ne_c128, cf64, bool, x != y)
CPLX_FNS(BINLOOP)
CPLX_FNS(BINSCALAR)
BINLOOP(mkc_f32, float, cf32, CMPLXF(x, y))   /* tf.complex(real, imag) */
BINLOOP(mkc_f64, double, cf64, CMPLX(x, y))

static inline bool str_equal(const Str *x, const Str *y) {
  if (x == y) return true;
  tfs_i64 lx = x ? x->len : 0, ly = y ? y->len : 0;
  return lx == ly && (lx == 0 || memcmp(x->data, y->data, (size_t)lx) == 0);
}
typedef Str *StrP;
BINLOOP(eq_s, StrP, bool, str_equal(x, y))
BINLOOP(ne_s, StrP, bool, !str_equal(x, y))
BINLOOP(eq_u8, uint8_t, bool, x == y)
/* AddV2 of strings concatenates (TF's guide: double(tf.constant("a")) is b'aa'); NULL is the empty string. */
static inline Str *str_add(const Str *x, const Str *y) {
  return (Str *)str_concat(x ? x->data : "", x ? x->len : 0, y ? y->data : "", y ? y->len : 0).u.o;
}
BINLOOP(add_s, StrP, StrP, str_add(x, y))
BINLOOP(ne_u8, uint8_t, bool, x != y)

/* Bitwise ops: every integer width has its own loops (a shift depends on the width, so no widening).
 * TF clamps the shift amount to [0, bits - 1] first (cwise_ops.h), shifts left in the unsigned type
 * (no signed overflow) and right in the operand's own type (arithmetic for signed ones). */
#define SHCL_S(y, B) ((y) < 0 ? 0 : (y) > (B) - 1 ? (B) - 1 : (y))
#define SHCL_U(y, B) ((y) > (B) - 1 ? (B) - 1 : (y))
#define BITS_T(X, s, T, U, B, CL)                  \
  X(band_##s, T, T, (T)(x & y))                    \
  X(bor_##s, T, T, (T)(x | y))                     \
  X(bxor_##s, T, T, (T)(x ^ y))                    \
  X(shl_##s, T, T, (T)(U)((U)x << CL(y, B)))       \
  X(shr_##s, T, T, (T)(x >> CL(y, B)))
#define BITS_FNS(X)                                          \
  BITS_T(X, i8, int8_t, uint8_t, 8, SHCL_S)                  \
  BITS_T(X, i16, int16_t, uint16_t, 16, SHCL_S)              \
  BITS_T(X, i32, int32_t, uint32_t, 32, SHCL_S)              \
  BITS_T(X, i64, int64_t, uint64_t, 64, SHCL_S)              \
  BITS_T(X, u8, uint8_t, uint8_t, 8, SHCL_U)                 \
  BITS_T(X, u16, uint16_t, uint16_t, 16, SHCL_U)             \
  BITS_T(X, u32, uint32_t, uint32_t, 32, SHCL_U)             \
  BITS_T(X, u64, uint64_t, uint64_t, 64, SHCL_U)
BITS_FNS(BINLOOP)
BITS_FNS(BINSCALAR)
#define ROW_BITS(p, a)                                                                              \
  {[DT_INT8] = p##a##_i8, [DT_INT16] = p##a##_i16, [DT_INT32] = p##a##_i32, [DT_INT64] = p##a##_i64, \
   [DT_UINT8] = p##a##_u8, [DT_UINT16] = p##a##_u16, [DT_UINT32] = p##a##_u32, [DT_UINT64] = p##a##_u64}

#define ROW_NUM(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64, [DT_INT32] = a##_i32, [DT_INT64] = a##_i64}
#define ROW_NUMC(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64, [DT_INT32] = a##_i32, [DT_INT64] = a##_i64, \
                     [DT_COMPLEX64] = a##_c64, [DT_COMPLEX128] = a##_c128}
#define ROW_CMP(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64, [DT_INT32] = a##_i32, [DT_INT64] = a##_i64, [DT_BOOL] = a##_b}
/* ...U: with uint64's own loop (values above 2**63 would misorder and divide wrongly through int64) */
#define ROW_NUMU(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64, [DT_INT32] = a##_i32, [DT_INT64] = a##_i64, [DT_UINT64] = a##_u64}
#define ROW_CMPU(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64, [DT_INT32] = a##_i32, [DT_INT64] = a##_i64, [DT_BOOL] = a##_b, [DT_UINT64] = a##_u64}
static const BinLoop bin_loops[OP__COUNT][DT__COUNT] = {
  [OP_ADD] = {add_f32, add_f64, add_i32, add_i64, [DT_STRING] = add_s, [DT_COMPLEX64] = add_c64, [DT_COMPLEX128] = add_c128},
  [OP_SUB] = ROW_NUMC(sub), [OP_MUL] = ROW_NUMC(mul),
  [OP_DIV] = {[DT_FLOAT32] = div_f32, [DT_FLOAT64] = div_f64, [DT_INT32] = div_i32, [DT_INT64] = div_i64, [DT_UINT64] = div_u64,
              [DT_COMPLEX64] = div_c64, [DT_COMPLEX128] = div_c128},
  [OP_FLOORDIV] = {fdiv_f32_, fdiv_f64_, fdiv_i32_, fdiv_i64_, [DT_UINT64] = fdiv_u64_}, [OP_MOD] = ROW_NUMU(mod), [OP_POW] = ROW_NUMC(pow),
  [OP_ATAN2] = {[DT_FLOAT32] = atan2_f32, [DT_FLOAT64] = atan2_f64},
  [OP_MAXIMUM] = ROW_NUMU(max), [OP_MINIMUM] = ROW_NUMU(min), [OP_SQDIFF] = ROW_NUM(sqd),
  [OP_EQUAL] = {eq_f32, eq_f64, eq_i32, eq_i64, eq_b, eq_s, eq_u8, [DT_COMPLEX64] = eq_c64, [DT_COMPLEX128] = eq_c128},
  [OP_NOT_EQUAL] = {ne_f32, ne_f64, ne_i32, ne_i64, ne_b, ne_s, ne_u8, [DT_COMPLEX64] = ne_c64, [DT_COMPLEX128] = ne_c128},
  [OP_LESS] = ROW_CMPU(lt), [OP_LESS_EQUAL] = ROW_CMPU(le), [OP_GREATER] = ROW_CMPU(gt), [OP_GREATER_EQUAL] = ROW_CMPU(ge),
  [OP_LOGICAL_AND] = {[DT_BOOL] = and_b}, [OP_LOGICAL_OR] = {[DT_BOOL] = or_b}, [OP_LOGICAL_XOR] = {[DT_BOOL] = xor_b},
  [OP_COMPLEX] = {[DT_FLOAT32] = mkc_f32, [DT_FLOAT64] = mkc_f64},
  [OP_BITWISE_AND] = ROW_BITS(, band), [OP_BITWISE_OR] = ROW_BITS(, bor), [OP_BITWISE_XOR] = ROW_BITS(, bxor),
  [OP_LEFT_SHIFT] = ROW_BITS(, shl), [OP_RIGHT_SHIFT] = ROW_BITS(, shr),
};

/* shape: the NumPy broadcast of x's and y's shapes (dimensions equal, or one of them 1); comparisons give bool, integer true division float64. */
void meta_binary(OpCall *c) {
  op_broadcast_meta(c, &c->inm[0], &c->inm[1], &c->outm[0]);
  DType dt = c->inm[0].dtype;
  switch (c->op->id) {
  case OP_EQUAL: case OP_NOT_EQUAL: case OP_LESS: case OP_LESS_EQUAL: case OP_GREATER: case OP_GREATER_EQUAL:
    dt = DT_BOOL;
    break;
  case OP_DIV:   /* truediv of integers: float32 for 8- and 16-bit ones (TF's _TRUEDIV_TABLE), else float64 */
    if (dtype_info[dt].is_int) dt = dtype_info[dt].size <= 2 ? DT_FLOAT32 : DT_FLOAT64;
    break;
  default:
    break;
  }
  c->outm[0].dtype = dt;
}

static void bin_body(void *ctx, char *o, char *const *p, tfs_i64 len, const tfs_i64 *st) {
  ((BinLoop)ctx)(o, p[0], p[1], len, st[0], st[1]);
}

static bool has_zero(Tensor *t) {
  for (tfs_i64 i = 0; i < t->size; i++)
    if (tensor_get_i(t, i) == 0) return true;
  return false;
}

static bool has_negative(Tensor *t) {
  for (tfs_i64 i = 0; i < t->size; i++)
    if (tensor_get_i(t, i) < 0) return true;
  return false;
}

/* The fast paths' flat loops, cut over the thread pool when large: o[i] = f(a[i*sa], b[i*sb]). */
typedef struct {
  BinLoop f;
  char *o;
  const char *a, *b;
  tfs_i64 n, sa, sb;
  size_t oes, aes, bes;
} FlatBin;

static void flat_bin_part(void *v, int part, int nparts) {
  const FlatBin *j = v;
  tfs_i64 lo, hi;
  tp_slice(j->n, part, nparts, &lo, &hi);
  if (hi > lo)
    j->f(j->o + (size_t)lo * j->oes, j->a + (size_t)(lo * j->sa) * j->aes, j->b + (size_t)(lo * j->sb) * j->bes, hi - lo,
         j->sa, j->sb);
}

static void flat_bin(BinLoop f, Tensor *o, Tensor *a, Tensor *b, tfs_i64 sa, tfs_i64 sb) {
  FlatBin j = {f, tensor_data(o), tensor_data(a), tensor_data(b), o->size, sa, sb, (size_t)dtype_info[o->dtype].size,
               (size_t)dtype_info[a->dtype].size, (size_t)dtype_info[b->dtype].size};
  int np = dtype_holds_refs(a->dtype) ? 1 : tp_parts(o->size, EW_MIN_PART);
  if (np <= 1) f(j.o, j.a, j.b, j.n, sa, sb);
  else tp_run(np, flat_bin_part, &j);
}

/* ---- dtypes without loops of their own ------------------------------------------------------------
 * Halves compute in float32 and round the result per op, as Eigen's half and bfloat16 operators do
 * (float(a) op float(b), then back); the small integers compute in int64 and wrap back on the cast,
 * which gives the low bits their own width's arithmetic gives. */
int ew_wide(DType dt) {
  switch (dt) {
  case DT_FLOAT16: case DT_BFLOAT16: return DT_FLOAT32;
  case DT_UINT8: case DT_INT8: case DT_INT16: case DT_UINT16: case DT_UINT32: case DT_UINT64: return DT_INT64;
  default: return -1;
  }
}

static void ew_cast_real(Tensor *dst, const Tensor *src);   /* ew_cast between real dtypes (no strings) */

static Tensor *ew_cast_new(Tensor *t, DType dt) {
  Tensor *r = tensor_new(dt, t->rank, t->shape);
  ew_cast_real(r, t);
  return r;
}

/* Run kernel k on the inputs cast to w, into the output (or a temporary of w's result dtype, cast back). */
void ew_run_wide(OpCall *c, DType w, void (*k)(OpCall *)) {
  Tensor *o = c->out[0], *in[2] = {NULL, NULL};
  int n = c->nin < 2 ? c->nin : 2, mark = -1;
  for (int i = 0; i < n; i++) {
    in[i] = ew_cast_new(c->in[i], w);
    int m = rt_hold_val(val_obj(in[i]));
    if (mark < 0) mark = m;
  }
  /* the wide op's own result dtype: w for a same-dtype result, bool for comparisons, float64 for int true division */
  DType tdt = o->dtype == c->in[0]->dtype ? w : o->dtype == DT_BOOL ? DT_BOOL : dtype_info[w].is_int ? DT_FLOAT64 : w;
  Tensor *wo = tdt == o->dtype ? tensor_retain(o) : tensor_new(tdt, o->rank, o->shape);
  rt_hold_val(val_obj(wo));
  OpCall wc = *c;
  Tensor *wout[1] = {wo};
  wc.in = in;
  wc.out = wout;
  k(&wc);
  if (wo != o) ew_cast_real(o, wo);
  rt_unhold(mark);
  for (int i = 0; i < n; i++) tensor_release(in[i]);
  tensor_release(wo);
}

/* Kernels with float32/float64 loops only (convolutions, pools, dropout): float16/bfloat16 inputs run
 * through float32 and every half output is rounded once at the end.  Returns false (nothing done) when
 * no input is a half. */
bool op_run_half_as_f32(OpCall *c, void (*k)(OpCall *)) {
  enum { MAXIO = 8 };
  bool any = false;
  for (int i = 0; i < c->nin; i++)
    if (c->in[i] && (c->in[i]->dtype == DT_FLOAT16 || c->in[i]->dtype == DT_BFLOAT16)) any = true;
  if (!any || c->nin > MAXIO || c->nout > MAXIO) return false;
  Tensor *in[MAXIO], *out[MAXIO];
  int mark = -1;
  for (int i = 0; i < c->nin; i++) {
    Tensor *t = c->in[i];
    in[i] = t && (t->dtype == DT_FLOAT16 || t->dtype == DT_BFLOAT16) ? ew_cast_new(t, DT_FLOAT32) : (t ? tensor_retain(t) : NULL);
    if (in[i]) {
      int m = rt_hold_val(val_obj(in[i]));
      if (mark < 0) mark = m;
    }
  }
  for (int j = 0; j < c->nout; j++) {
    Tensor *o = c->out[j];
    out[j] = o->dtype == DT_FLOAT16 || o->dtype == DT_BFLOAT16 ? tensor_new(DT_FLOAT32, o->rank, o->shape) : tensor_retain(o);
    int m = rt_hold_val(val_obj(out[j]));
    if (mark < 0) mark = m;
  }
  OpCall wc = *c;
  wc.in = in;
  wc.out = out;
  k(&wc);
  for (int j = 0; j < c->nout; j++)
    if (out[j] != c->out[j]) ew_cast_real(c->out[j], out[j]);
  rt_unhold(mark);
  for (int i = 0; i < c->nin; i++)
    if (in[i]) tensor_release(in[i]);
  for (int j = 0; j < c->nout; j++) tensor_release(out[j]);
  return true;
}

static BinLoop bin_loop_wide(OpId id, DType dt, BinLoop f);

void k_binary(OpCall *c) {
  Tensor *a = c->in[0], *b = c->in[1], *o = c->out[0];
  OpId id = c->op->id;
  BinLoop f = bin_loop_wide(id, a->dtype, bin_loops[id][a->dtype]);
  if (!f && ew_wide(a->dtype) >= 0) { ew_run_wide(c, (DType)ew_wide(a->dtype), k_binary); return; }
  if (!f) op_fail(c, ERR_INVALID_ARGUMENT, "%s is not supported for %s tensors", c->op->graph_name, dtype_info[a->dtype].name);
  if (dtype_info[a->dtype].is_int) {
    if ((id == OP_FLOORDIV || id == OP_MOD) && has_zero(b)) op_fail(c, ERR_INVALID_ARGUMENT, "Integer division by zero");
    if (id == OP_POW && has_negative(b)) op_fail(c, ERR_INVALID_ARGUMENT, "Integers to negative integer powers are not allowed");
  }
  /* fast paths: contiguous operands of the output's size, or a scalar */
  tfs_i64 n = o->size;
  if (tensor_is_contiguous(a) && tensor_is_contiguous(b)) {
    if (a->size == n && b->size == n) { flat_bin(f, o, a, b, 1, 1); return; }
    if (a->size == 1 && b->size == n) { flat_bin(f, o, a, b, 0, 1); return; }
    if (a->size == n && b->size == 1) { flat_bin(f, o, a, b, 1, 0); return; }
  }
  Tensor *ins[2] = {a, b};
  ew_iterate(o, 2, ins, bin_body, (void *)f);
}

void ew_binary(OpId id, Tensor *o, Tensor *a, Tensor *b) {
  BinLoop f = bin_loops[id][a->dtype];
  if (!f) rt_throw(ERR_INVALID_ARGUMENT, "%s is not supported for %s tensors", op_defs[id].graph_name, dtype_info[a->dtype].name);
  Tensor *ins[2] = {a, b};
  ew_iterate(o, 2, ins, bin_body, (void *)f);
}

/* ---- unary loops --------------------------------------------------------------------------- */

typedef void (*UnLoop)(char *o, const char *a, tfs_i64 n, tfs_i64 sa, double prm);

/* Each unary function also gets its scalar kernel s_<name> (see BINSCALAR);
 * those whose EXPR reads `prm` (an attribute) are left out of the scalar table. */
#define UNLOOP(name, T, TO, EXPR)                                                          \
  static void name(char *o_, const char *a_, tfs_i64 n, tfs_i64 sa, double prm) {          \
    TO *o = (TO *)o_;                                                                      \
    const T *a = (const T *)a_;                                                            \
    (void)prm;                                                                             \
    if (sa == 1) for (tfs_i64 i = 0; i < n; i++) { T x = a[i]; o[i] = (EXPR); }            \
    else for (tfs_i64 i = 0; i < n; i++) { T x = a[i * sa]; o[i] = (EXPR); }               \
  }                                                                                        \
  static __attribute__((unused)) bool s_##name(void *o_, const void *a_, const void *b_) { \
    const double prm = 0;                                                                  \
    (void)prm;                                                                             \
    (void)b_;                                                                              \
    T x = *(const T *)a_;                                                                  \
    *(TO *)o_ = (EXPR);                                                                    \
    return true;                                                                           \
  }

#define UNLOOPS_F(nm, EF, ED) UNLOOP(nm##_f32, float, float, EF) UNLOOP(nm##_f64, double, double, ED)
#define UNLOOPS_I(nm, EI, EL) UNLOOP(nm##_i32, int32_t, int32_t, EI) UNLOOP(nm##_i64, int64_t, int64_t, EL)

static inline double sigmoid_(double x) { return 1.0 / (1.0 + exp(-x)); }
/* softplus as TF's kernel: x above -(log(eps) + 2), exp(x) below log(eps) + 2, else log1p(exp(x)). */
static inline float softplusf_(float x) {
  float e = (float)exp((double)x);
  return x > 13.942385f ? x : x < -13.942385f ? e : (float)log1p((double)e);
}
static inline double softplus_(double x) { return x > 34.04365338911715 ? x : x < -34.04365338911715 ? exp(x) : log1p(exp(x)); }
static inline float signf_(float x) { return x > 0 ? 1.0f : x < 0 ? -1.0f : x; }
static inline double sign_(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }
/* gelu as TF composes it from ops in the dtype: 0.5 * x * (1 + erf(x / sqrt(2))), or
 * 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * pow(x, 3)))); each step rounded. */
static inline float geluf_(float x, double approx) {
  if (approx != 0) {
    float inner = 0.7978845608028654f * (x + 0.044715f * (float)pow((double)x, 3.0));
    return 0.5f * x * (1.0f + (float)tanh((double)inner));
  }
  return 0.5f * x * (1.0f + (float)erf((double)(x / 1.4142135623730951f)));
}
static inline double gelu_(double x, double approx) {
  if (approx != 0) return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * pow(x, 3.0))));
  return 0.5 * x * (1.0 + erf(x / 1.4142135623730951));
}

/* tanh, log1p and expm1 (elu) of float32 go through double and round once: glibc's tanhf,
 * log1pf and expm1f are an ulp off for 4-18% of inputs; expf, logf, sinf, cosf are nearly
 * always correctly rounded already (and faster). */
UNLOOPS_F(neg, -x, -x)
UNLOOPS_I(neg, WRAP(int32_t, uint32_t, 0u - (uint32_t)x), WRAP(int64_t, uint64_t, 0ull - (uint64_t)x))
UNLOOPS_F(abs, fabsf(x), fabs(x))
UNLOOPS_I(abs, x < 0 ? WRAP(int32_t, uint32_t, 0u - (uint32_t)x) : x, x < 0 ? WRAP(int64_t, uint64_t, 0ull - (uint64_t)x) : x)
UNLOOPS_F(sign, signf_(x), sign_(x))
UNLOOPS_I(sign, (x > 0) - (x < 0), (x > 0) - (x < 0))
UNLOOPS_F(square, x * x, x * x)
UNLOOPS_I(square, WRAP(int32_t, uint32_t, (uint32_t)x * (uint32_t)x), WRAP(int64_t, uint64_t, (uint64_t)x * (uint64_t)x))
UNLOOP(inv_i8, int8_t, int8_t, (int8_t)~x) UNLOOP(inv_i16, int16_t, int16_t, (int16_t)~x)   /* bitwise NOT, each width's own */
UNLOOP(inv_i32, int32_t, int32_t, ~x) UNLOOP(inv_i64, int64_t, int64_t, ~x)
UNLOOP(inv_u8, uint8_t, uint8_t, (uint8_t)~x) UNLOOP(inv_u16, uint16_t, uint16_t, (uint16_t)~x)
UNLOOP(inv_u32, uint32_t, uint32_t, ~x) UNLOOP(inv_u64, uint64_t, uint64_t, ~x)
UNLOOPS_F(sqrt, sqrtf(x), sqrt(x))
UNLOOPS_F(rsqrt, 1.0f / sqrtf(x), 1.0 / sqrt(x))
UNLOOPS_F(exp, expf(x), exp(x))
UNLOOPS_F(log, logf(x), log(x))
UNLOOPS_F(log1p, (float)log1p((double)x), log1p(x))
UNLOOPS_F(sin, sinf(x), sin(x))
UNLOOPS_F(cos, cosf(x), cos(x))
/* float32 tanh and sigmoid: TF's Eigen formulas (vmath.c); a one-element sigmoid is Eigen's scalar one */
UNLOOPS_F(tanh, vm_tanh1(x), tanh(x))
UNLOOPS_F(sigmoid, vm_sigmoid_tail1(x), sigmoid_(x))
/* contiguous float32 tanh: the vector loops of vmath.c, with the same bits as the line above (float32 sigmoid,
 * whose elements' formula depends on their place in the tensor, is k_unary's) */
static void tanh_f32_vec(char *o, const char *a, tfs_i64 n, tfs_i64 sa, double prm) {
  if (sa == 1) vm_tanh_f32((float *)o, (const float *)a, n);
  else tanh_f32(o, a, n, sa, prm);
}
UNLOOPS_F(floor, floorf(x), floor(x))
UNLOOPS_F(ceil, ceilf(x), ceil(x))
UNLOOPS_F(round, nearbyintf(x), nearbyint(x))
UNLOOPS_I(round, x, x)
UNLOOPS_F(recip, 1.0f / x, 1.0 / x)
UNLOOPS_F(softplus, softplusf_(x), softplus_(x))
UNLOOPS_F(relu, x > 0 ? x : (x != x ? x : 0.0f), x > 0 ? x : (x != x ? x : 0.0))
UNLOOPS_I(relu, x > 0 ? x : 0, x > 0 ? x : 0)
UNLOOPS_F(relu6, x != x ? x : (x > 6.0f ? 6.0f : x > 0 ? x : 0.0f), x != x ? x : (x > 6.0 ? 6.0 : x > 0 ? x : 0.0))
UNLOOPS_I(relu6, x > 6 ? 6 : x > 0 ? x : 0, x > 6 ? 6 : x > 0 ? x : 0)
UNLOOPS_F(elu, x > 0 ? x : (float)expm1((double)x), x > 0 ? x : expm1(x))
UNLOOPS_F(leaky, x > 0 ? x : (float)prm * x, x > 0 ? x : prm * x)
UNLOOPS_F(gelu, geluf_(x, prm), gelu_(x, prm))
/* digamma and trigamma: raised past 6 by their recurrences, then their asymptotic series; reflection below 0.
 * digamma is +inf at the poles 0, -1, -2, ... as Eigen's kernel (TF). */
static double digamma_(double x) {
  double r = 0;
  if (x <= 0) {
    if (x == floor(x)) return INFINITY;
    return digamma_(1 - x) - M_PI / tan(M_PI * x);
  }
  for (; x < 6; x += 1) r -= 1 / x;
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}
static double trigamma_(double x) {
  double r = 0;
  if (x <= 0) {
    if (x == floor(x)) return INFINITY;
    double s = sin(M_PI * x);
    return -trigamma_(1 - x) + M_PI * M_PI / (s * s);
  }
  for (; x < 6; x += 1) r += 1 / (x * x);
  double f = 1 / (x * x);
  return r + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30))));
}
/* selu's constants as TF's kernel */
#define SELU_SCALE 1.0507009873554804934193349852946
#define SELU_ALPHA 1.6732632423543772848170429916717
static inline double selu_(double x) { return x > 0 ? SELU_SCALE * x : SELU_SCALE * SELU_ALPHA * expm1(x); }
static inline double lgamma_(double x) {
  int sign;
  return lgamma_r(x, &sign);
}
UNLOOPS_F(expm1, (float)expm1((double)x), expm1(x))
/* the trigonometric and hyperbolic family, rint, and numpy's log10/log2/exp2/cbrt: libm's double functions,
 * float32 through double and rounded once (the *f variants are an ulp off for some inputs) */
UNLOOPS_F(tan, (float)tan((double)x), tan(x))
UNLOOPS_F(asin, (float)asin((double)x), asin(x))
UNLOOPS_F(acos, (float)acos((double)x), acos(x))
UNLOOPS_F(atan, (float)atan((double)x), atan(x))
UNLOOPS_F(sinh, (float)sinh((double)x), sinh(x))
UNLOOPS_F(cosh, (float)cosh((double)x), cosh(x))
UNLOOPS_F(asinh, (float)asinh((double)x), asinh(x))
UNLOOPS_F(acosh, (float)acosh((double)x), acosh(x))
UNLOOPS_F(atanh, (float)atanh((double)x), atanh(x))
UNLOOPS_F(rint, rintf(x), rint(x))
UNLOOPS_F(log10, (float)log10((double)x), log10(x))
UNLOOPS_F(log2, (float)log2((double)x), log2(x))
UNLOOPS_F(exp2, (float)exp2((double)x), exp2(x))
UNLOOPS_F(cbrt, (float)cbrt((double)x), cbrt(x))
UNLOOPS_F(erf, (float)erf((double)x), erf(x))
UNLOOPS_F(erfc, (float)erfc((double)x), erfc(x))
UNLOOPS_F(lgamma, (float)lgamma_((double)x), lgamma_(x))
UNLOOPS_F(digamma, (float)digamma_((double)x), digamma_(x))
UNLOOPS_F(trigamma, (float)trigamma_((double)x), trigamma_(x))
UNLOOPS_F(selu, (float)selu_((double)x), selu_(x))
UNLOOP(isnan_f32, float, bool, x != x)
UNLOOP(isnan_f64, double, bool, x != x)
UNLOOP(isinf_f32, float, bool, isinf(x))
UNLOOP(isinf_f64, double, bool, isinf(x))
UNLOOP(isfin_f32, float, bool, isfinite(x))
UNLOOP(isfin_f64, double, bool, isfinite(x))
UNLOOP(not_b, bool, bool, !x)
UNLOOP(neg_c64, cf32, cf32, -x)
UNLOOP(neg_c128, cf64, cf64, -x)
UNLOOP(square_c64, cf32, cf32, x * x)
UNLOOP(square_c128, cf64, cf64, x * x)
UNLOOP(abs_c64, cf32, float, cabsf(x))    /* TF's ComplexAbs: std::abs, a hypot */
UNLOOP(abs_c128, cf64, double, cabs(x))
UNLOOP(real_c64, cf32, float, crealf(x))
UNLOOP(real_c128, cf64, double, creal(x))
UNLOOP(imag_c64, cf32, float, cimagf(x))
UNLOOP(imag_c128, cf64, double, cimag(x))
UNLOOP(conj_c64, cf32, cf32, conjf(x))
UNLOOP(conj_c128, cf64, cf64, conj(x))
UNLOOP(angle_c64, cf32, float, cargf(x))  /* std::arg: atan2(imag, real) */
UNLOOP(angle_c128, cf64, double, carg(x))

/* complex math as TF's kernels (std::exp, std::log, ... of std::complex, which libstdc++ takes from glibc's
 * cexp, clog, csqrt, csin, ccos, ctanh, cpow): the same scalar code on every ISA path.  log1p and expm1
 * split into real functions so small arguments keep their digits (complex64 through double, rounded once,
 * as the float32 kernels); rsqrt is Eigen's complex_rsqrt (w / |z| and y / (2 w |z|), w = sqrt((|x| + |z|) / 2)),
 * which a division 1 / sqrt(z) in float would round twice; sign is x * (1 / |x|) (0 at 0), as Eigen's
 * scalar_sign_op; sigmoid 1 / (1 + exp(-x)). */
static inline cf64 clog1p_d_(cf64 x) {
  double re = creal(x) + 1, im = cimag(x);
  return CMPLX(log(hypot(re, im)), atan2(im, re));
}
static inline cf64 cexpm1_d_(cf64 x) {
  double re = creal(x), im = cimag(x), h = sin(im / 2);
  return CMPLX(expm1(re) * cos(im) - 2 * h * h, exp(re) * sin(im));
}
static inline cf32 clog1p_f_(cf32 x) { return (cf32)clog1p_d_(x); }
static inline cf32 cexpm1_f_(cf32 x) { return (cf32)cexpm1_d_(x); }
#define CRSQRT(name, T, R, SUF, MK)                                                 \
  static inline T name(T z) {                                                       \
    R x = creal##SUF(z), y = cimag##SUF(z), a = hypot##SUF(x, y);                   \
    if (a == 0) return MK((R)INFINITY, (R)NAN);                                     \
    if (isinf(x) || isinf(y)) return 0;                                             \
    R w = sqrt##SUF((R)0.5 * (fabs##SUF(x) + a)), woz = w / a;                      \
    if (x >= 0) return MK(woz, -y / ((R)2 * w * a));                                \
    return MK(fabs##SUF(y) / ((R)2 * w * a), y < 0 ? woz : -woz);                   \
  }
CRSQRT(crsqrt_f_, cf32, float, f, CMPLXF)
CRSQRT(crsqrt_d_, cf64, double, , CMPLX)
static inline cf32 csign_f_(cf32 x) {
  float a = cabsf(x);
  return a == 0 ? 0 : CMPLXF(crealf(x) * (1 / a), cimagf(x) * (1 / a));
}
static inline cf64 csign_d_(cf64 x) {
  double a = cabs(x);
  return a == 0 ? 0 : CMPLX(creal(x) * (1 / a), cimag(x) * (1 / a));
}
#define UNLOOPS_C(name, e64, e128) UNLOOP(name##_c64, cf32, cf32, e64) UNLOOP(name##_c128, cf64, cf64, e128)
UNLOOPS_C(exp, cexpf(x), cexp(x))
UNLOOPS_C(log, clogf(x), clog(x))
UNLOOPS_C(log1p, clog1p_f_(x), clog1p_d_(x))
UNLOOPS_C(expm1, cexpm1_f_(x), cexpm1_d_(x))
UNLOOPS_C(sqrt, csqrtf(x), csqrt(x))
UNLOOPS_C(rsqrt, crsqrt_f_(x), crsqrt_d_(x))
UNLOOPS_C(sin, csinf(x), csin(x))
UNLOOPS_C(cos, ccosf(x), ccos(x))
UNLOOPS_C(tanh, ctanhf(x), ctanh(x))
UNLOOPS_C(sigmoid, 1 / (1 + cexpf(-x)), 1 / (1 + cexp(-x)))
UNLOOPS_C(recip, 1 / x, 1 / x)
UNLOOPS_C(sign, csign_f_(x), csign_d_(x))

#define UROW_F(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64}
#define UROW_N(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64, [DT_INT32] = a##_i32, [DT_INT64] = a##_i64}
#define UROW_C(a) {[DT_COMPLEX64] = a##_c64, [DT_COMPLEX128] = a##_c128}
#define UROW_FC(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64, [DT_COMPLEX64] = a##_c64, [DT_COMPLEX128] = a##_c128}
#define UROW_NC(a) {[DT_FLOAT32] = a##_f32, [DT_FLOAT64] = a##_f64, [DT_INT32] = a##_i32, [DT_INT64] = a##_i64, \
                    [DT_COMPLEX64] = a##_c64, [DT_COMPLEX128] = a##_c128}
static const UnLoop un_loops[OP__COUNT][DT__COUNT] = {
  [OP_NEG] = UROW_NC(neg), [OP_ABS] = UROW_NC(abs), [OP_SIGN] = UROW_NC(sign), [OP_SQUARE] = UROW_NC(square),
  [OP_SQRT] = UROW_FC(sqrt), [OP_RSQRT] = UROW_FC(rsqrt), [OP_EXP] = UROW_FC(exp), [OP_LOG] = UROW_FC(log),
  [OP_LOG1P] = UROW_FC(log1p), [OP_SIN] = UROW_FC(sin), [OP_COS] = UROW_FC(cos), [OP_TANH] = {[DT_FLOAT32] = tanh_f32_vec, [DT_FLOAT64] = tanh_f64, [DT_COMPLEX64] = tanh_c64, [DT_COMPLEX128] = tanh_c128},
  [OP_SIGMOID] = {[DT_FLOAT32] = sigmoid_f32, [DT_FLOAT64] = sigmoid_f64, [DT_COMPLEX64] = sigmoid_c64,
                  [DT_COMPLEX128] = sigmoid_c128}, [OP_FLOOR] = UROW_F(floor), [OP_CEIL] = UROW_F(ceil), [OP_ROUND] = UROW_N(round),
  [OP_RECIPROCAL] = UROW_FC(recip), [OP_SOFTPLUS] = UROW_F(softplus), [OP_RELU] = UROW_N(relu),
  [OP_RELU6] = UROW_N(relu6), [OP_ELU] = UROW_F(elu), [OP_LEAKY_RELU] = UROW_F(leaky), [OP_GELU] = UROW_F(gelu),
  [OP_IS_NAN] = UROW_F(isnan), [OP_IS_INF] = UROW_F(isinf), [OP_IS_FINITE] = UROW_F(isfin),
  [OP_LOGICAL_NOT] = {[DT_BOOL] = not_b},
  [OP_INVERT] = ROW_BITS(, inv),
  [OP_EXPM1] = UROW_FC(expm1), [OP_ERF] = UROW_F(erf), [OP_ERFC] = UROW_F(erfc), [OP_LGAMMA] = UROW_F(lgamma),
  [OP_DIGAMMA] = UROW_F(digamma), [OP_TRIGAMMA] = UROW_F(trigamma), [OP_SELU] = UROW_F(selu),
  [OP_TAN] = UROW_F(tan), [OP_ASIN] = UROW_F(asin), [OP_ACOS] = UROW_F(acos), [OP_ATAN] = UROW_F(atan),
  [OP_SINH] = UROW_F(sinh), [OP_COSH] = UROW_F(cosh), [OP_ASINH] = UROW_F(asinh), [OP_ACOSH] = UROW_F(acosh),
  [OP_ATANH] = UROW_F(atanh), [OP_RINT] = UROW_F(rint), [OP_NP_LOG10] = UROW_F(log10), [OP_NP_LOG2] = UROW_F(log2),
  [OP_NP_EXP2] = UROW_F(exp2), [OP_NP_CBRT] = UROW_F(cbrt),
  [OP_REAL] = UROW_C(real), [OP_IMAG] = UROW_C(imag), [OP_CONJ] = UROW_C(conj), [OP_ANGLE] = UROW_C(angle),
};

/* shape: the input's shape and dtype (abs of a complex tensor: its part dtype). */
void meta_unary(OpCall *c) {
  c->outm[0] = c->inm[0];
  OpId id = c->op->id;
  if (id == OP_IS_NAN || id == OP_IS_INF || id == OP_IS_FINITE) c->outm[0].dtype = DT_BOOL;
  if (id == OP_ABS) c->outm[0].dtype = dtype_real_part(c->inm[0].dtype);
}

typedef struct UnCtx { UnLoop f; double prm; } UnCtx;
static void un_body(void *ctx, char *o, char *const *p, tfs_i64 len, const tfs_i64 *st) {
  UnCtx *u = ctx;
  u->f(o, p[0], len, st[0], u->prm);
}

/* float32 sigmoid over a whole tensor: an element's formula depends on whether it lies in the tensor's last
 * size % 8 (vmath.h), so the kernel sees the tensor packed, cut over the pool at multiples of 8 */
typedef struct { float *o; const float *a; tfs_i64 n; } SigJob;
static void sigmoid_part(void *ctx, int part, int nparts) {
  const SigJob *j = ctx;
  tfs_i64 lo, hi, blocks = (j->n + VM_PACKET - 1) / VM_PACKET;
  tp_slice(blocks, part, nparts, &lo, &hi);
  lo *= VM_PACKET;
  hi = hi * VM_PACKET < j->n ? hi * VM_PACKET : j->n;
  if (hi > lo) vm_sigmoid_part_f32(j->o + lo, j->a + lo, hi - lo, j->n - j->n % VM_PACKET - lo);
}
static bool sigmoid_f32_tensor(Tensor *o, Tensor *a) {
  if (a->dtype != DT_FLOAT32 || o->dtype != DT_FLOAT32 || o->size != a->size || !tensor_is_contiguous(o)) return false;
  Tensor *ac = tensor_contiguous(a);
  SigJob j = {tensor_data(o), tensor_data(ac), o->size};
  int np = tp_parts(o->size * 8, EW_MIN_PART);   /* about 8 elementwise operations an element */
  if (np > 1) tp_run(np, sigmoid_part, &j);
  else sigmoid_part(&j, 0, 1);
  tensor_release(ac);
  return true;
}

void k_unary(OpCall *c) {
  Tensor *a = c->in[0], *o = c->out[0];
  if (c->op->id == OP_SIGMOID && sigmoid_f32_tensor(o, a)) return;
  UnCtx u = {un_loops[c->op->id][a->dtype], 0};
  if (!u.f && ew_wide(a->dtype) >= 0) { ew_run_wide(c, (DType)ew_wide(a->dtype), k_unary); return; }
  if (!u.f) op_fail(c, ERR_INVALID_ARGUMENT, "%s is not supported for %s tensors", c->op->graph_name, dtype_info[a->dtype].name);
  if (c->op->id == OP_LEAKY_RELU) u.prm = op_attr_float(c, 0, 0.2);
  if (c->op->id == OP_GELU) u.prm = op_attr_bool(c, 0, false);
  ew_iterate(o, 1, &a, un_body, &u);   /* a contiguous input coalesces to one row, cut over the threads when large */
}

void ew_unary(OpId id, Tensor *o, Tensor *a) {
  if (id == OP_SIGMOID && sigmoid_f32_tensor(o, a)) return;
  UnCtx u = {un_loops[id][a->dtype], 0};
  if (!u.f) rt_throw(ERR_INVALID_ARGUMENT, "%s is not supported for %s tensors", op_defs[id].graph_name, dtype_info[a->dtype].name);
  ew_iterate(o, 1, &a, un_body, &u);
}

/* ---- cast ------------------------------------------------------------------------------------ */

/* Float -> int conversions saturate to the x86 "indefinite" value instead of
 * being undefined behaviour, matching what TF produces on this hardware. */
static inline int32_t f2i32(double x) { return (x >= -2147483648.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN; }
static inline int64_t f2i64(double x) { return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN; }

/* (uint64_t)x as x86-64 code computes it: values from 2^63 go through x - 2^63, the rest through int64. */
static inline uint64_t f2u64(double x) {
  if (!(x >= 9223372036854775808.0)) return (uint64_t)f2i64(x);
  return x < 18446744073709551616.0 ? (uint64_t)(int64_t)(x - 9223372036854775808.0) ^ (1ull << 63) : 0;
}

/* Every cast is dst(value(src)): a source's value is its C value (a half's is its float); the destination
 * takes a float value (F_) or an integer one (I_).  16-bit floats round once from float, as Eigen's
 * half(float) and bfloat16(float) do (a double first becomes a float, as theirs); integer targets wrap
 * modulo their width, as TF's static_cast does; out-of-range floats give x86's conversion results
 * (to uint8 through int64, as before; to 8- and 16-bit ints through int32, as gcc converts). */
#define V_f32(x) (x)
#define V_f64(x) (x)
#define V_i32(x) (x)
#define V_i64(x) (x)
#define V_b(x) (x)
#define V_u8(x) (x)
#define V_i8(x) (x)
#define V_i16(x) (x)
#define V_u16(x) (x)
#define V_u32(x) (x)
#define V_u64(x) (x)
#define V_f16(x) f16_to_f32(x)
#define V_bf(x) bf16_to_f32(x)
#define V_c64(x) crealf(x)     /* complex to a real dtype: the real part (TF's cast, and to bool too) */
#define V_c128(x) creal(x)
/* The value a complex destination takes: a complex source whole, a real one as its value */
#define Z_f32(x) (x)
#define Z_f64(x) (x)
#define Z_i32(x) (x)
#define Z_i64(x) (x)
#define Z_b(x) (x)
#define Z_u8(x) (x)
#define Z_i8(x) (x)
#define Z_i16(x) (x)
#define Z_u16(x) (x)
#define Z_u32(x) (x)
#define Z_u64(x) (x)
#define Z_f16(x) f16_to_f32(x)
#define Z_bf(x) bf16_to_f32(x)
#define Z_c64(x) (x)
#define Z_c128(x) (x)
#define F_f32(v) ((float)(v))
#define F_f64(v) ((double)(v))
#define F_f16(v) f32_to_f16((float)(v))
#define F_bf(v) f32_to_bf16((float)(v))
#define F_b(v) ((v) != 0)
#define F_i32(v) f2i32(v)
#define F_i64(v) f2i64(v)
#define F_u8(v) ((uint8_t)(uint64_t)f2i64(v))
#define F_i8(v) ((int8_t)(uint8_t)(uint32_t)f2i32(v))
#define F_i16(v) ((int16_t)(uint16_t)(uint32_t)f2i32(v))
#define F_u16(v) ((uint16_t)(uint32_t)f2i32(v))
#define F_u32(v) ((uint32_t)(uint64_t)f2i64(v))
#define F_u64(v) f2u64(v)
#define I_f32(v) ((float)(v))
#define I_f64(v) ((double)(v))
#define I_f16(v) f32_to_f16((float)(v))
#define I_bf(v) f32_to_bf16((float)(v))
#define I_b(v) ((v) != 0)
#define I_i32(v) ((int32_t)(uint32_t)(uint64_t)(v))
#define I_i64(v) ((int64_t)(v))
#define I_u8(v) ((uint8_t)(uint64_t)(v))
#define I_i8(v) ((int8_t)(uint8_t)(uint64_t)(v))
#define I_i16(v) ((int16_t)(uint16_t)(uint64_t)(v))
#define I_u16(v) ((uint16_t)(uint64_t)(v))
#define I_u32(v) ((uint32_t)(uint64_t)(v))
#define I_u64(v) ((uint64_t)(v))
#define CASTS_FROM(s, T, K)                                                                             \
  UNLOOP(cast_##s##_f32, T, float, K##_f32(V_##s(x))) UNLOOP(cast_##s##_f64, T, double, K##_f64(V_##s(x))) \
  UNLOOP(cast_##s##_i32, T, int32_t, K##_i32(V_##s(x))) UNLOOP(cast_##s##_i64, T, int64_t, K##_i64(V_##s(x))) \
  UNLOOP(cast_##s##_b, T, bool, K##_b(V_##s(x))) UNLOOP(cast_##s##_u8, T, uint8_t, K##_u8(V_##s(x)))       \
  UNLOOP(cast_##s##_i8, T, int8_t, K##_i8(V_##s(x))) UNLOOP(cast_##s##_i16, T, int16_t, K##_i16(V_##s(x))) \
  UNLOOP(cast_##s##_u16, T, uint16_t, K##_u16(V_##s(x))) UNLOOP(cast_##s##_u32, T, uint32_t, K##_u32(V_##s(x))) \
  UNLOOP(cast_##s##_u64, T, uint64_t, K##_u64(V_##s(x))) UNLOOP(cast_##s##_f16, T, uint16_t, K##_f16(V_##s(x))) \
  UNLOOP(cast_##s##_bf, T, uint16_t, K##_bf(V_##s(x))) UNLOOP(cast_##s##_c64, T, cf32, (cf32)Z_##s(x)) \
  UNLOOP(cast_##s##_c128, T, cf64, (cf64)Z_##s(x))
CASTS_FROM(f32, float, F)
CASTS_FROM(f64, double, F)
CASTS_FROM(f16, uint16_t, F)
CASTS_FROM(bf, uint16_t, F)
CASTS_FROM(i32, int32_t, I)
CASTS_FROM(i64, int64_t, I)
CASTS_FROM(b, bool, I)
CASTS_FROM(u8, uint8_t, I)
CASTS_FROM(i8, int8_t, I)
CASTS_FROM(i16, int16_t, I)
CASTS_FROM(u16, uint16_t, I)
CASTS_FROM(u32, uint32_t, I)
CASTS_FROM(u64, uint64_t, I)
CASTS_FROM(c64, cf32, F)
CASTS_FROM(c128, cf64, F)

/* ORDER DTYPE: one row and column per number dtype (two lists: a macro cannot expand inside itself) */
#define CAST_DTS(X, p, s)                                                                                \
  X(DT_FLOAT32, p, s, f32) X(DT_FLOAT64, p, s, f64) X(DT_INT32, p, s, i32) X(DT_INT64, p, s, i64)         \
  X(DT_BOOL, p, s, b) X(DT_UINT8, p, s, u8) X(DT_INT8, p, s, i8) X(DT_INT16, p, s, i16)                    \
  X(DT_UINT16, p, s, u16) X(DT_UINT32, p, s, u32) X(DT_UINT64, p, s, u64) X(DT_FLOAT16, p, s, f16)         \
  X(DT_BFLOAT16, p, s, bf) X(DT_COMPLEX64, p, s, c64) X(DT_COMPLEX128, p, s, c128)
#define CAST_COLS(p, s)                                                                                  \
  {[DT_FLOAT32] = p##cast_##s##_f32, [DT_FLOAT64] = p##cast_##s##_f64, [DT_INT32] = p##cast_##s##_i32,    \
   [DT_INT64] = p##cast_##s##_i64, [DT_BOOL] = p##cast_##s##_b, [DT_UINT8] = p##cast_##s##_u8,             \
   [DT_INT8] = p##cast_##s##_i8, [DT_INT16] = p##cast_##s##_i16, [DT_UINT16] = p##cast_##s##_u16,          \
   [DT_UINT32] = p##cast_##s##_u32, [DT_UINT64] = p##cast_##s##_u64, [DT_FLOAT16] = p##cast_##s##_f16,     \
   [DT_BFLOAT16] = p##cast_##s##_bf, [DT_COMPLEX64] = p##cast_##s##_c64, [DT_COMPLEX128] = p##cast_##s##_c128}
#define CAST_ROW(D, p, s_, s) [D] = CAST_COLS(p, s),
static const UnLoop cast_loops[DT__COUNT][DT__COUNT] = {CAST_DTS(CAST_ROW, , 0)};

/* float16 <-> float32 on contiguous rows: whole blocks through F16C (kernels/halfconv.c, the same bits);
 * every float16 op runs through these two casts. */
static void cast_f16_f32_v(char *o, const char *a, tfs_i64 n, tfs_i64 sa, double prm) {
  if (sa == 1) hc_f16_to_f32((float *)o, (const uint16_t *)a, n);
  else cast_f16_f32(o, a, n, sa, prm);
}
static void cast_f32_f16_v(char *o, const char *a, tfs_i64 n, tfs_i64 sa, double prm) {
  if (sa == 1) hc_f32_to_f16((uint16_t *)o, (const float *)a, n);
  else cast_f32_f16(o, a, n, sa, prm);
}
static UnLoop cast_loop(DType s, DType d) {
  if (s == DT_FLOAT16 && d == DT_FLOAT32) return cast_f16_f32_v;
  if (s == DT_FLOAT32 && d == DT_FLOAT16) return cast_f32_f16_v;
  return cast_loops[s][d];
}

/* ---- scalar kernels: the graph executor's 0-d fast path ---------------------------------------
 * Keyed by op id and input dtype, like bin_loops/un_loops; exec.c picks one per
 * graph step at plan time through op_scalar_kernel().  Integer FloorDiv/FloorMod
 * by zero and integer Pow with a negative exponent return false: the executor
 * then runs the generic kernel, which raises TF's error. */
#define SK_CHECKED(name, T, bad)                                        \
  static bool sc_##name(void *o, const void *a, const void *b) {        \
    T y = *(const T *)b;                                                \
    if (bad) return false;                                              \
    return s_##name(o, a, b);                                           \
  }
SK_CHECKED(fdiv_i32_, int32_t, y == 0)
SK_CHECKED(fdiv_i64_, int64_t, y == 0)
SK_CHECKED(mod_i32, int32_t, y == 0)
SK_CHECKED(mod_i64, int64_t, y == 0)
SK_CHECKED(pow_i32, int32_t, y < 0)
SK_CHECKED(pow_i64, int64_t, y < 0)

#define SROW_NUM(a) {[DT_FLOAT32] = s_##a##_f32, [DT_FLOAT64] = s_##a##_f64, [DT_INT32] = s_##a##_i32, [DT_INT64] = s_##a##_i64}
#define SROW_CMP(a) {[DT_FLOAT32] = s_##a##_f32, [DT_FLOAT64] = s_##a##_f64, [DT_INT32] = s_##a##_i32, [DT_INT64] = s_##a##_i64, [DT_BOOL] = s_##a##_b}
#define SROW_F(a) {[DT_FLOAT32] = s_##a##_f32, [DT_FLOAT64] = s_##a##_f64}
static const OpScalarFn scalar_fns[OP__COUNT][DT__COUNT] = {
  [OP_ADD] = SROW_NUM(add), [OP_SUB] = SROW_NUM(sub), [OP_MUL] = SROW_NUM(mul), [OP_DIV] = SROW_NUM(div),
  [OP_FLOORDIV] = {s_fdiv_f32_, s_fdiv_f64_, sc_fdiv_i32_, sc_fdiv_i64_},
  [OP_MOD] = {s_mod_f32, s_mod_f64, sc_mod_i32, sc_mod_i64},
  [OP_POW] = {s_pow_f32, s_pow_f64, sc_pow_i32, sc_pow_i64},
  [OP_MAXIMUM] = SROW_NUM(max), [OP_MINIMUM] = SROW_NUM(min), [OP_SQDIFF] = SROW_NUM(sqd),
  [OP_EQUAL] = SROW_CMP(eq), [OP_NOT_EQUAL] = SROW_CMP(ne), [OP_LESS] = SROW_CMP(lt), [OP_LESS_EQUAL] = SROW_CMP(le),
  [OP_GREATER] = SROW_CMP(gt), [OP_GREATER_EQUAL] = SROW_CMP(ge),
  [OP_LOGICAL_AND] = {[DT_BOOL] = s_and_b}, [OP_LOGICAL_OR] = {[DT_BOOL] = s_or_b}, [OP_LOGICAL_XOR] = {[DT_BOOL] = s_xor_b},
  [OP_NEG] = SROW_NUM(neg), [OP_ABS] = SROW_NUM(abs), [OP_SIGN] = SROW_NUM(sign), [OP_SQUARE] = SROW_NUM(square),
  [OP_SQRT] = SROW_F(sqrt), [OP_RSQRT] = SROW_F(rsqrt), [OP_EXP] = SROW_F(exp), [OP_LOG] = SROW_F(log),
  [OP_LOG1P] = SROW_F(log1p), [OP_SIN] = SROW_F(sin), [OP_COS] = SROW_F(cos), [OP_TANH] = SROW_F(tanh),
  [OP_SIGMOID] = SROW_F(sigmoid), [OP_FLOOR] = SROW_F(floor), [OP_CEIL] = SROW_F(ceil), [OP_ROUND] = SROW_NUM(round),
  [OP_RECIPROCAL] = SROW_F(recip), [OP_SOFTPLUS] = SROW_F(softplus), [OP_RELU] = SROW_NUM(relu),
  [OP_RELU6] = SROW_NUM(relu6), [OP_ELU] = SROW_F(elu),
  [OP_IS_NAN] = SROW_F(isnan), [OP_IS_INF] = SROW_F(isinf), [OP_IS_FINITE] = SROW_F(isfin),
  [OP_LOGICAL_NOT] = {[DT_BOOL] = s_not_b},
  [OP_INVERT] = ROW_BITS(s_, inv), [OP_BITWISE_AND] = ROW_BITS(s_, band), [OP_BITWISE_OR] = ROW_BITS(s_, bor),
  [OP_BITWISE_XOR] = ROW_BITS(s_, bxor), [OP_LEFT_SHIFT] = ROW_BITS(s_, shl), [OP_RIGHT_SHIFT] = ROW_BITS(s_, shr),
  [OP_EXPM1] = SROW_F(expm1), [OP_ERF] = SROW_F(erf), [OP_ERFC] = SROW_F(erfc), [OP_LGAMMA] = SROW_F(lgamma),
  [OP_DIGAMMA] = SROW_F(digamma), [OP_TRIGAMMA] = SROW_F(trigamma), [OP_SELU] = SROW_F(selu),
};
static const OpScalarFn scalar_casts[DT__COUNT][DT__COUNT] = {CAST_DTS(CAST_ROW, s_, 0)};

OpScalarFn op_scalar_kernel(OpId id, DType in, DType out) {
  if ((unsigned)id >= OP__COUNT || (unsigned)in >= DT__COUNT || (unsigned)out >= DT__COUNT) return NULL;
  if (id == OP_CAST) return scalar_casts[in][out];
  OpScalarFn f = scalar_fns[id][in];
  if (!f) return NULL;
  /* the output dtype the generic meta function gives (meta_binary, meta_unary) */
  DType want = in;
  switch (id) {
  case OP_EQUAL: case OP_NOT_EQUAL: case OP_LESS: case OP_LESS_EQUAL: case OP_GREATER: case OP_GREATER_EQUAL:
  case OP_IS_NAN: case OP_IS_INF: case OP_IS_FINITE:
    want = DT_BOOL;
    break;
  case OP_DIV:
    if (dtype_info[in].is_int) want = DT_FLOAT64;
    break;
  default:
    break;
  }
  return want == out ? f : NULL;
}

/* float32 +, -, *, / and sqrt once more for the AVX2 path (x86-64-v3: 8 lanes where the file's own
 * loops have SSE2's 4), for the planned graph steps that run an optimizer's update over every weight
 * (perf of the Keras MLP step: Adam's sqrt and division at SSE width, ~11% of the step).  Each is one
 * IEEE operation per element, correctly rounded at any vector width, so the bits equal the baseline
 * loops'; no multiply-add is there to contract. */
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#pragma GCC optimize("fp-contract=off")
BINLOOP(add_f32_v3, float, float, x + y)
BINLOOP(sub_f32_v3, float, float, x - y)
BINLOOP(mul_f32_v3, float, float, x * y)
BINLOOP(div_f32_v3, float, float, x / y)
UNLOOP(sqrt_f32_v3, float, float, sqrtf(x))
#pragma GCC pop_options

/* the eager and graph kernels' own binary loops take them too (an LSTM step's additions: 5% of it) */
static BinLoop bin_loop_wide(OpId id, DType dt, BinLoop f) {
  if (dt != DT_FLOAT32 || isa_active() < ISA_AVX2) return f;
  switch (id) {
  case OP_ADD: return add_f32_v3;
  case OP_SUB: return sub_f32_v3;
  case OP_MUL: return mul_f32_v3;
  case OP_DIV: return div_f32_v3;
  default: return f;
  }
}

static void row_kernel_wide(OpId id, DType in, OpRow *r) {
  if (in != DT_FLOAT32 || isa_active() < ISA_AVX2) return;
  if (r->bin) r->bin = bin_loop_wide(id, in, r->bin);
  if (id == OP_SQRT) r->un = sqrt_f32_v3;
}

bool op_row_kernel(OpId id, DType in, DType out, OpRow *r) {
  r->bin = NULL;
  r->un = NULL;
  if ((unsigned)id >= OP__COUNT || (unsigned)in >= DT__COUNT || (unsigned)out >= DT__COUNT) return false;
  if (in == DT_STRING || out == DT_STRING) return false;
  if (id == OP_CAST) return (r->un = cast_loop(in, out)) != NULL;
  /* ops that can fail (the generic kernel raises TF's error) or read an attribute stay generic */
  if (dtype_info[in].is_int && (id == OP_FLOORDIV || id == OP_MOD || id == OP_POW)) return false;
  if (id == OP_LEAKY_RELU || id == OP_GELU) return false;
  if (id == OP_SIGMOID && in == DT_FLOAT32) return false;   /* an element's formula depends on its place (k_unary) */
  if (!op_scalar_kernel(id, in, out)) return false;   /* the same ops and output dtypes as the scalar path */
  r->bin = bin_loops[id][in];
  r->un = r->bin ? NULL : un_loops[id][in];
  if (r->bin || r->un) row_kernel_wide(id, in, r);
  return r->bin || r->un;
}

void ew_cast(Tensor *dst, const Tensor *src) {
  if (src->dtype == DT_STRING || dst->dtype == DT_STRING) {
    if (src->dtype != dst->dtype) rt_throw(ERR_UNIMPLEMENTED, "Cast string to %s is not supported", dtype_info[dst->dtype].name);
    Tensor *c = tensor_copy((Tensor *)src);
    Str **s = tensor_data(c), **d = tensor_data(dst);
    for (tfs_i64 i = 0; i < c->size; i++) { d[i] = s[i]; s[i] = NULL; }
    tensor_release(c);
    return;
  }
  ew_cast_real(dst, src);
}

static void ew_cast_real(Tensor *dst, const Tensor *src) {
  UnCtx u = {cast_loop(src->dtype, dst->dtype), 0};
  if (tensor_is_contiguous(src) && src->size == dst->size) { u.f(tensor_data(dst), tensor_data(src), src->size, 1, 0); return; }
  Tensor *s = (Tensor *)src;
  ew_iterate(dst, 1, &s, un_body, &u);
}

void ew_fill(Tensor *dst, double fv, tfs_i64 iv) {
  tfs_i64 n = dst->size;
  void *p = tensor_data(dst);
  switch (dst->dtype) {
  case DT_FLOAT32: { float *o = p, v = (float)fv; for (tfs_i64 i = 0; i < n; i++) o[i] = v; break; }
  case DT_FLOAT64: { double *o = p; for (tfs_i64 i = 0; i < n; i++) o[i] = fv; break; }
  case DT_INT32: { int32_t *o = p, v = (int32_t)iv; for (tfs_i64 i = 0; i < n; i++) o[i] = v; break; }
  case DT_INT64: { int64_t *o = p; for (tfs_i64 i = 0; i < n; i++) o[i] = iv; break; }
  case DT_BOOL: memset(p, iv != 0, (size_t)n); break;
  case DT_UINT8: memset(p, (int)(uint8_t)iv, (size_t)n); break;
  case DT_INT8: case DT_INT16: case DT_UINT16: case DT_UINT32: case DT_UINT64: case DT_FLOAT16: case DT_BFLOAT16:
  case DT_COMPLEX64: case DT_COMPLEX128: {
    size_t esz = (size_t)dtype_info[dst->dtype].size;
    if (dtype_info[dst->dtype].is_float || dtype_is_complex(dst->dtype)) dtype_store_f(dst->dtype, p, fv);
    else dtype_store_i(dst->dtype, p, iv);
    for (tfs_i64 i = 1; i < n; i++) memcpy((char *)p + (size_t)i * esz, p, esz);
    break;
  }
  case DT_STRING: {
    Str **o = p;
    for (tfs_i64 i = 0; i < n; i++) {
      if (o[i]) { Val v = val_obj(o[i]); TFS_DECREF(v); }
      Val e = str_new("", 0);
      o[i] = (Str *)e.u.o;
    }
    break;
  }
  default: break;
  }
}

/* shape: the input's shape, in the requested dtype. */
void meta_cast(OpCall *c) {
  int dt = op_attr_dtype(c, 0, -1);
  if (dt < 0) op_fail(c, ERR_TYPE, "tf.cast: dtype is required");
  if (dt == DT_STRING && c->inm[0].dtype != DT_STRING) op_fail(c, ERR_UNIMPLEMENTED, "Cast %s to string is not supported", dtype_info[c->inm[0].dtype].name);
  c->outm[0] = c->inm[0];
  c->outm[0].dtype = (DType)dt;
}

void k_cast(OpCall *c) { ew_cast(c->out[0], c->in[0]); }

/* ---- select (tf.where) and clip -------------------------------------------------------------------- */

typedef struct SelCtx { size_t esz; } SelCtx;

/* Rows of 4- and 8-byte elements, every operand contiguous or broadcast: a branchless select the
 * compiler vectorizes.  The generic per-element memcpy behind a data-dependent branch mispredicted
 * on about half the elements of a relu gradient's mask (perf: 6% of a Keras training step).  Each
 * element is still a copy of x's or y's, so the bits are the same. */
#define SELROW(T)                                                                                    \
  static bool sel_row_##T(char *o_, char *const *p, tfs_i64 len, const tfs_i64 *st) {               \
    if ((st[0] | st[1] | st[2]) & ~(tfs_i64)1) return false;                                        \
    const bool *c = (const bool *)p[0];                                                              \
    const T *x = (const T *)p[1], *y = (const T *)p[2];                                             \
    T *o = (T *)o_;                                                                                  \
    if (st[0] == 1 && st[1] == 1 && st[2] == 1)                                                      \
      for (tfs_i64 i = 0; i < len; i++) o[i] = c[i] ? x[i] : y[i];                                   \
    else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {                                               \
      T y0 = y[0];                                                                                   \
      for (tfs_i64 i = 0; i < len; i++) o[i] = c[i] ? x[i] : y0;                                     \
    } else                                                                                           \
      for (tfs_i64 i = 0; i < len; i++) o[i] = c[i * st[0]] ? x[i * st[1]] : y[i * st[2]];           \
    return true;                                                                                     \
  }
SELROW(uint32_t)
SELROW(uint64_t)

static void sel_body(void *ctx, char *o, char *const *p, tfs_i64 len, const tfs_i64 *st) {
  size_t esz = ((SelCtx *)ctx)->esz;
  if (esz == 4 && sel_row_uint32_t(o, p, len, st)) return;
  if (esz == 8 && sel_row_uint64_t(o, p, len, st)) return;
  const bool *cond = (const bool *)p[0];
  for (tfs_i64 i = 0; i < len; i++) {
    const char *src = cond[i * st[0]] ? p[1] + (size_t)(i * st[1]) * esz : p[2] + (size_t)(i * st[2]) * esz;
    memcpy(o + (size_t)i * esz, src, esz);
  }
}

/* shape: the broadcast of condition, x and y. */
void meta_select(OpCall *c) {
  bool hx = c->inm[1].rank != TMETA_ABSENT, hy = c->inm[2].rank != TMETA_ABSENT;
  if (hx != hy) op_fail(c, ERR_VALUE, "x and y must both be non-None or both be None.");
  if (!hx) {
    tfs_i64 shape[2] = {-1, c->inm[0].rank};
    meta_set(&c->outm[0], DT_INT64, 2, shape);
    return;
  }
  TMeta t;
  op_broadcast_meta(c, &c->inm[1], &c->inm[2], &t);
  op_broadcast_meta(c, &c->inm[0], &t, &c->outm[0]);
  c->outm[0].dtype = c->inm[1].dtype;
}

void k_select(OpCall *c) {
  Tensor *cond = c->in[0];
  if (c->inm[1].rank == TMETA_ABSENT) {
    /* tf.where(cond): coordinates of true elements, int64 [n, rank] */
    tfs_i64 n = 0;
    bool fl = dtype_info[cond->dtype].is_float;   /* 0.5 is true: compare as floats, not truncated */
#define COND_AT(i) (fl ? tensor_get_f(cond, i) != 0 : tensor_get_i(cond, i) != 0)
    for (tfs_i64 i = 0; i < cond->size; i++) n += COND_AT(i);
    tfs_i64 shape[2] = {n, cond->rank};
    Tensor *o = tensor_new(DT_INT64, 2, shape);
    int64_t *p = tensor_data(o);
    for (tfs_i64 i = 0; i < cond->size; i++) {
      if (!COND_AT(i)) continue;
      tfs_i64 r = i;
      for (int d = cond->rank - 1; d >= 0; d--) {
        p[d] = r % cond->shape[d];
        r /= cond->shape[d];
      }
      p += cond->rank;
    }
#undef COND_AT
    c->out[0] = o;
    return;
  }
  Tensor *o = tensor_new(c->outm[0].dtype, c->outm[0].rank, c->outm[0].shape);
  c->out[0] = o;
  SelCtx s = {(size_t)dtype_info[o->dtype].size};
  Tensor *ins[3] = {cond, c->in[1], c->in[2]};
  ew_iterate(o, 3, ins, sel_body, &s);
  if (o->dtype == DT_STRING) {
    Str **e = tensor_data(o);
    for (tfs_i64 i = 0; i < o->size; i++)
      if (e[i]) e[i]->hdr.rc++;
  }
}

/* shape: the input's shape; the bounds broadcast to it. */
void meta_clip(OpCall *c) {
  TMeta t;
  op_broadcast_meta(c, &c->inm[0], &c->inm[1], &t);
  op_broadcast_meta(c, &t, &c->inm[2], &c->outm[0]);
  c->outm[0].dtype = c->inm[0].dtype;
}

#define CLIPLOOP(T)                                                                        \
  static void clip_##T(void *ctx, char *o_, char *const *p, tfs_i64 len, const tfs_i64 *st) { \
    (void)ctx;                                                                             \
    T *o = (T *)o_;                                                                        \
    const T *x = (const T *)p[0], *lo = (const T *)p[1], *hi = (const T *)p[2];            \
    for (tfs_i64 i = 0; i < len; i++) {                                                    \
      T v = x[i * st[0]], l = lo[i * st[1]], h = hi[i * st[2]];                            \
      v = v < l ? l : v;                                                                   \
      o[i] = v > h ? h : v;                                                                \
    }                                                                                      \
  }
CLIPLOOP(float)
CLIPLOOP(double)
CLIPLOOP(int32_t)
CLIPLOOP(int64_t)

void k_clip(OpCall *c) {
  static const EwBody bodies[4] = {clip_float, clip_double, clip_int32_t, clip_int64_t};
  Tensor *ins[3] = {c->in[0], c->in[1], c->in[2]};
  ew_iterate(c->out[0], 3, ins, bodies[c->in[0]->dtype], NULL);
}

/* ---- add_n ------------------------------------------------------------------------------------------ */

/* shape: every input has the same shape and dtype; the result has it too. */
void meta_add_n(OpCall *c) {
  c->outm[0] = c->inm[0];
  for (int i = 1; i < c->nin; i++) {
    bool same = c->inm[i].rank == c->inm[0].rank;
    for (int d = 0; same && d < c->inm[0].rank; d++) same = c->inm[i].shape[d] == c->inm[0].shape[d] || c->inm[i].shape[d] < 0 || c->inm[0].shape[d] < 0;
    if (!same) {
      StrBuf b;
      sb_init(&b);
      sb_puts(&b, "Shapes must be equal rank, but are ");
      op_shape_text(&b, c->inm[0].rank, c->inm[0].shape);
      sb_puts(&b, " and ");
      op_shape_text(&b, c->inm[i].rank, c->inm[i].shape);
      /* errindex: Shapes must be equal rank, but are … and … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
    }
  }
}

void k_add_n(OpCall *c) {
  Tensor *o = c->out[0];
  ew_cast(o, c->in[0]);
  BinLoop f = bin_loops[OP_ADD][o->dtype];
  for (int i = 1; i < c->nin; i++) {
    Tensor *ins[2] = {o, c->in[i]};
    if (tensor_is_contiguous(c->in[i])) f(tensor_data(o), tensor_data(o), tensor_data(c->in[i]), o->size, 1, 1);
    else ew_iterate(o, 2, ins, bin_body, (void *)f);
  }
}
