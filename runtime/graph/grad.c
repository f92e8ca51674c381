/* grad.c — the gradient of every differentiable op, in one table keyed by op id, written with op_apply (eager and traced alike). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "object/object.h"
#include "graph/tape.h"

/* ---- a small tensor API over op_apply ---------------------------------------------------
 * Each helper returns a borrowed value whose reference lives in a temporary
 * pool, released after the gradient function returns; keep() hands one out. */

static Val tmp[512];
static int ntmp;

static Val T(Val v) {
  if (ntmp == (int)(sizeof tmp / sizeof tmp[0])) rt_throw(ERR_RUNTIME, "gradient: too many temporaries");
  tmp[ntmp++] = v;
  return v;
}
static Val keep(Val v) { return val_incref(v); }

static Val op1(OpId id, Val a) { return T(op_apply1(id, a)); }
static Val op2(OpId id, Val a, Val b) { return T(op_apply2(id, a, b)); }
static Val opat(OpId id, int nin, const Val *in, int nat, const Val *at) {
  OpAttrs a;
  a.n = nat;
  for (int i = 0; i < nat; i++) a.v[i] = at[i];
  return T(op_apply(&op_defs[id], nin, in, &a));
}
static Val add(Val a, Val b) { return op2(OP_ADD, a, b); }
static Val sub(Val a, Val b) { return op2(OP_SUB, a, b); }
static Val mul(Val a, Val b) { return op2(OP_MUL, a, b); }
static Val dv(Val a, Val b) { return op2(OP_DIV, a, b); }
static Val neg(Val a) { return op1(OP_NEG, a); }
static Val fconst(double f) { return val_float(f); }
static Val where(Val c, Val a, Val b) {
  Val in[3] = {c, a, b};
  return opat(OP_SELECT, 3, in, 0, NULL);
}
static Val zeros_like(Val a) { return op1(OP_ZEROS_LIKE, a); }

static Tensor *tn(Val v) { return val_as_tensor(v); }
static int rank_of(Val v) { return tn(v)->rank; }
static bool is_cplx(Val v) { return tn(v) && dtype_is_complex(tn(v)->dtype); }
/* TF's gradients of complex ops take the conjugate of the forward values (math_grad.py: math_ops.conj) */
static Val conj_(Val x) { return is_cplx(x) ? op1(OP_CONJ, x) : x; }
static Val cplx(Val re, Val im) { return op2(OP_COMPLEX, re, im); }

static bool static_shape(Val v) {
  Tensor *t = tn(v);
  if (t->rank < 0) return false;
  for (int i = 0; i < t->rank; i++)
    if (t->shape[i] < 0) return false;
  return true;
}

/* The shape of v as an attribute: a tuple when static, else tf.shape(v). */
static Val shape_val(Val v) {
  Tensor *t = tn(v);
  if (!static_shape(v)) return op1(OP_SHAPE, v);
  Val tu = T(tuple_new(t->rank));
  for (int i = 0; i < t->rank; i++) ((Tuple *)tu.u.o)->items[i] = val_int(t->shape[i]);
  return tu;
}

static Val int_tuple(int n, const tfs_i64 *v) {
  Val tu = T(tuple_new(n));
  for (int i = 0; i < n; i++) ((Tuple *)tu.u.o)->items[i] = val_int(v[i]);
  return tu;
}

static Val reshape(Val x, Val shape) {
  Val at[1] = {shape};
  return opat(OP_RESHAPE, 1, &x, 1, at);
}
static Val reshape_like(Val x, Val like) { return reshape(x, shape_val(like)); }

static Val reduce_sum(Val x, int n, const int *axes, bool keepdims) {
  tfs_i64 ax[TFS_MAX_RANK];
  for (int i = 0; i < n; i++) ax[i] = axes[i];
  Val at[2] = {int_tuple(n, ax), val_bool(keepdims)};
  return opat(OP_SUM, 1, &x, 2, at);
}
static Val sum_axis_keep(Val x, tfs_i64 axis) {
  Val at[2] = {val_int(axis), val_bool(true)};
  return opat(OP_SUM, 1, &x, 2, at);
}

static Val matmul(Val a, Val b, bool ta, bool tb) {
  Val in[2] = {a, b};
  Val at[2] = {val_bool(ta), val_bool(tb)};
  return opat(OP_MATMUL, 2, in, 2, at);
}

static Val cast_to(Val x, DType dt) {
  if (tn(x)->dtype == dt) return x;
  Val at[1] = {dtype_val(dt)};
  return opat(OP_CAST, 1, &x, 1, at);
}

/* dy summed back to x's shape: over leading axes x lacks and over axes where x has size 1 (broadcasting). */
static Val unbroadcast(Val dy, Val x) {
  Tensor *tx = tn(x), *ty = tn(dy);
  if (!tx || tx->rank < 0 || ty->rank < 0) return dy;
  int lead = ty->rank - tx->rank, axes[TFS_MAX_RANK], n = 0;
  for (int i = lead < 0 ? 0 : lead; i < ty->rank; i++)
    if (tx->shape[i - lead] < 0 && ty->shape[i] != 1) {
      /* x's size there is known only at run time (1: broadcast, or dy's): _SumTo reduces then */
      Val in[2] = {dy, x};
      return opat(OP_SUM_TO, 2, in, 0, NULL);
    }
  for (int i = 0; i < ty->rank; i++) {
    if (i < lead) axes[n++] = i;
    else if (tx->shape[i - lead] == 1 && ty->shape[i] != 1) axes[n++] = i;
  }
  if (!n) return dy;
  return reshape_like(reduce_sum(dy, n, axes, false), x);
}

/* Normalised reduction axes of attribute value v for a rank-r input; count (all when None). */
static int norm_axes(Val v, int r, int *axes) {
  bool sel[TFS_MAX_RANK] = {0};
  if (v.tag == VT_NONE || v.tag == VT_UNDEF) {
    for (int i = 0; i < r; i++) sel[i] = true;
  } else if (v.tag == VT_INT || v.tag == VT_BOOL) {
    tfs_i64 a = v.u.i < 0 ? v.u.i + r : v.u.i;
    if (a >= 0 && a < r) sel[a] = true;
  } else if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 n = val_is(v, &list_type) ? ((List *)v.u.o)->len : ((Tuple *)v.u.o)->len;
    const Val *it = val_is(v, &list_type) ? ((List *)v.u.o)->items : ((Tuple *)v.u.o)->items;
    for (tfs_i64 i = 0; i < n; i++) {
      int64_t a;
      if (!val_as_int(it[i], &a)) continue;
      if (a < 0) a += r;
      if (a >= 0 && a < r) sel[a] = true;
    }
  } else if (tn(v) && !tn(v)->sym) {
    Tensor *t = tn(v);
    for (tfs_i64 i = 0; i < t->size; i++) {
      tfs_i64 a = tensor_get_i(t, i);
      if (a < 0) a += r;
      if (a >= 0 && a < r) sel[a] = true;
    }
  } else {
    rt_throw(ERR_UNIMPLEMENTED, "gradient of a reduction over traced axes is not supported");
  }
  int n = 0;
  for (int i = 0; i < r; i++)
    if (sel[i]) axes[n++] = i;
  return n;
}

/* dy of a reduction (attrs: axis, keepdims) given back the reduced axes as size 1. */
static Val reduced_keepdims(const GradCall *g, Val dy, int *axes, int *n) {
  int r = rank_of(g->in[0]);
  if (r < 0) rt_throw(ERR_UNIMPLEMENTED, "gradient of a reduction of unknown rank is not supported");
  *n = norm_axes(g->attrs->n > 0 ? g->attrs->v[0] : val_none(), r, axes);
  bool keep = g->attrs->n > 1 && rt_truthy(g->attrs->v[1]);
  if (keep) return dy;
  for (int i = 0; i < *n; i++) {
    Val at[1] = {val_int(axes[i])};
    dy = opat(OP_EXPAND_DIMS, 1, &dy, 1, at);
  }
  return dy;
}

/* b broadcast to x's shape. */
static Val broadcast_like(Val b, Val x) {
  if (static_shape(x)) {
    Val at[1] = {shape_val(x)};
    return opat(OP_BROADCAST_TO, 1, &b, 1, at);
  }
  return mul(b, op1(OP_ONES_LIKE, x));
}

static bool attr_bool(const GradCall *g, int i) { return g->attrs->n > i && g->attrs->v[i].tag != VT_UNDEF && rt_truthy(g->attrs->v[i]); }
static tfs_i64 attr_int(const GradCall *g, int i, tfs_i64 dflt) {
  int64_t v;
  if (g->attrs->n > i && val_as_int(g->attrs->v[i], &v)) return v;
  return dflt;
}

#define X0 g->in[0]
#define X1 g->in[1]
#define Y0 g->out[0]
#define DY g->dy[0]

/* ---- elementwise binary ---- */
static void g_add(const GradCall *g, Val *dx) {
  dx[0] = keep(unbroadcast(DY, X0));
  dx[1] = keep(unbroadcast(DY, X1));
}
static void g_sub(const GradCall *g, Val *dx) {
  dx[0] = keep(unbroadcast(DY, X0));
  dx[1] = keep(unbroadcast(neg(DY), X1));
}
static void g_mul(const GradCall *g, Val *dx) {
  dx[0] = keep(unbroadcast(mul(DY, conj_(X1)), X0));
  dx[1] = keep(unbroadcast(mul(conj_(X0), DY), X1));
}
static void g_div(const GradCall *g, Val *dx) {
  Val x = conj_(X0), y = conj_(X1);
  dx[0] = keep(unbroadcast(dv(DY, y), X0));
  dx[1] = keep(unbroadcast(mul(DY, dv(dv(neg(x), y), y)), X1));
}
static void g_pow(const GradCall *g, Val *dx) {
  /* d/dx = y * x^(y-1); d/dy = x^y * log(x), taken as 0 where x <= 0 (TF; complex: where x == 0, and
   * on the conjugates of x, y and x^y) */
  Val x = conj_(X0), y = conj_(X1), z = conj_(Y0);
  dx[0] = keep(unbroadcast(mul(DY, mul(y, op2(OP_POW, x, sub(y, fconst(1))))), X0));
  Val pos = is_cplx(X0) ? op2(OP_NOT_EQUAL, x, fconst(0)) : op2(OP_GREATER, x, fconst(0));
  Val safe = where(pos, x, op1(OP_ONES_LIKE, x));
  Val lg = where(pos, op1(OP_LOG, safe), zeros_like(x));
  dx[1] = keep(unbroadcast(mul(DY, mul(z, lg)), X1));
}
static void g_maxmin(const GradCall *g, Val *dx) {
  Val xmask = op2(g->op->id == OP_MAXIMUM ? OP_GREATER_EQUAL : OP_LESS_EQUAL, X0, X1);
  Val z = zeros_like(DY);
  dx[0] = keep(unbroadcast(where(xmask, DY, z), X0));
  dx[1] = keep(unbroadcast(where(xmask, z, DY), X1));
}
static void g_sqdiff(const GradCall *g, Val *dx) {
  Val d = mul(mul(fconst(2), DY), sub(X0, X1));
  dx[0] = keep(unbroadcast(d, X0));
  dx[1] = keep(unbroadcast(neg(d), X1));
}
static void g_mod(const GradCall *g, Val *dx) {
  dx[0] = keep(unbroadcast(DY, X0));
  dx[1] = keep(unbroadcast(mul(DY, neg(op2(OP_FLOORDIV, X0, X1))), X1));
}

/* ---- elementwise unary ---- */
static void g_neg(const GradCall *g, Val *dx) { dx[0] = keep(neg(DY)); }
static void g_abs(const GradCall *g, Val *dx) {
  if (!is_cplx(X0)) { dx[0] = keep(mul(DY, op1(OP_SIGN, X0))); return; }
  /* ComplexAbs: div_no_nan(complex(dy, 0) * x, complex(|x|, 0)) */
  Val z = zeros_like(DY), y = op1(OP_ABS, X0);
  Val q = dv(mul(cplx(DY, z), X0), cplx(y, z));
  dx[0] = keep(where(op2(OP_EQUAL, y, fconst(0)), zeros_like(X0), q));
}
static void g_square(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, mul(fconst(2), conj_(X0)))); }

/* ---- complex parts (math_grad.py's _RealGrad, _ImagGrad, _ComplexGrad, _ConjGrad, _AngleGrad) ---- */
static void g_complex(const GradCall *g, Val *dx) {
  dx[0] = keep(unbroadcast(op1(OP_REAL, DY), X0));
  dx[1] = keep(unbroadcast(op1(OP_IMAG, DY), X1));
}
static void g_complex_part(const GradCall *g, Val *dx) {
  OpId id = g->op->id;
  if (!is_cplx(X0)) {   /* real and conj of a real tensor are the tensor; imag and angle are constants */
    if (id == OP_REAL || id == OP_CONJ) dx[0] = keep(DY);
    return;
  }
  Val z = zeros_like(DY);
  switch (id) {
  case OP_REAL: dx[0] = keep(cplx(DY, z)); break;
  case OP_IMAG: dx[0] = keep(cplx(z, DY)); break;
  case OP_CONJ: dx[0] = keep(op1(OP_CONJ, DY)); break;
  default: {   /* angle: -complex(dy, 0) / complex(imag(x), real(x)) */
    Val w = cplx(op1(OP_IMAG, X0), op1(OP_REAL, X0));
    dx[0] = keep(neg(dv(cplx(DY, z), w)));
    break;
  }
  }
}
static void g_sqrt(const GradCall *g, Val *dx) { dx[0] = keep(dv(mul(DY, fconst(0.5)), conj_(Y0))); }
static void g_rsqrt(const GradCall *g, Val *dx) {
  Val y = conj_(Y0);
  dx[0] = keep(mul(DY, mul(fconst(-0.5), mul(y, mul(y, y)))));
}
static void g_exp(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, conj_(Y0))); }
static void g_log(const GradCall *g, Val *dx) { dx[0] = keep(dv(DY, conj_(X0))); }
static void g_log1p(const GradCall *g, Val *dx) { dx[0] = keep(dv(DY, add(fconst(1), conj_(X0)))); }
static void g_sin(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_COS, conj_(X0)))); }
static void g_cos(const GradCall *g, Val *dx) { dx[0] = keep(neg(mul(DY, op1(OP_SIN, conj_(X0))))); }
static void g_tanh(const GradCall *g, Val *dx) {
  Val y = conj_(Y0);
  dx[0] = keep(mul(DY, sub(fconst(1), mul(y, y))));
}
static void g_sigmoid(const GradCall *g, Val *dx) {
  Val y = conj_(Y0);
  dx[0] = keep(mul(DY, mul(y, sub(fconst(1), y))));
}
static void g_reciprocal(const GradCall *g, Val *dx) {
  Val y = conj_(Y0);
  dx[0] = keep(neg(mul(DY, mul(y, y))));
}
static void g_softplus(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_SIGMOID, X0))); }
static void g_relu(const GradCall *g, Val *dx) { dx[0] = keep(where(op2(OP_GREATER, Y0, fconst(0)), DY, zeros_like(DY))); }
static void g_relu6(const GradCall *g, Val *dx) {
  Val in = op2(OP_LOGICAL_AND, op2(OP_GREATER, X0, fconst(0)), op2(OP_LESS, X0, fconst(6)));
  dx[0] = keep(where(in, DY, zeros_like(DY)));
}
static void g_elu(const GradCall *g, Val *dx) {
  dx[0] = keep(where(op2(OP_GREATER, Y0, fconst(0)), DY, mul(DY, add(Y0, fconst(1)))));
}
static void g_leaky_relu(const GradCall *g, Val *dx) {
  double alpha = 0.2;
  if (g->attrs->n > 0) val_as_float(g->attrs->v[0], &alpha);
  dx[0] = keep(where(op2(OP_GREATER, X0, fconst(0)), DY, mul(DY, fconst(alpha))));
}
static void g_gelu(const GradCall *g, Val *dx) {
  /* exact: cdf(x) + x * pdf(x); approximate: the derivative of the tanh form */
  if (attr_bool(g, 0)) {
    const double k = 0.7978845608028654, c = 0.044715;
    Val x2 = mul(X0, X0);
    Val inner = mul(fconst(k), add(X0, mul(fconst(c), mul(x2, X0))));
    Val th = op1(OP_TANH, inner);
    Val dinner = mul(fconst(k), add(fconst(1), mul(fconst(3 * c), x2)));
    Val d = add(mul(fconst(0.5), add(fconst(1), th)), mul(mul(fconst(0.5), X0), mul(sub(fconst(1), mul(th, th)), dinner)));
    dx[0] = keep(mul(DY, d));
    return;
  }
  /* cdf = gelu(x) / x away from 0 (0.5 at 0); pdf = exp(-x^2/2) / sqrt(2 pi) */
  Val nz = op2(OP_NOT_EQUAL, X0, fconst(0));
  Val safe = where(nz, X0, op1(OP_ONES_LIKE, X0));
  Val cdf = where(nz, dv(Y0, safe), mul(op1(OP_ONES_LIKE, X0), fconst(0.5)));
  Val pdf = mul(op1(OP_EXP, mul(mul(X0, X0), fconst(-0.5))), fconst(0.3989422804014327));
  dx[0] = keep(mul(DY, add(cdf, mul(X0, pdf))));
}
static void g_identity(const GradCall *g, Val *dx) { dx[0] = keep(DY); }
/* TF's _CheckNumericsGrad: the incoming gradient is itself checked, under the forward message prefixed with
 * "Not a number (NaN) or infinity (Inf) values detected in gradient. " (V2 checks with V2). */
static void g_check_numerics(const GradCall *g, Val *dx) {
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, "Not a number (NaN) or infinity (Inf) values detected in gradient. ");
  if (g->attrs->n > 0 && g->attrs->v[0].tag != VT_UNDEF && g->attrs->v[0].tag != VT_NONE) val_str(&b, g->attrs->v[0]);
  Val msg = str_new(b.data, (tfs_i64)b.len);
  sb_free(&b);
  int mark = rt_hold_val(msg);   /* released by the unwinding when the check raises */
  Val at[1] = {msg};
  dx[0] = keep(opat(g->op->id, 1, &DY, 1, at));
  rt_unhold(mark);
  val_decref(msg);
}
static void g_cast(const GradCall *g, Val *dx) {
  Tensor *tx = tn(X0);   /* TF: between float and complex dtypes only (complex to real keeps the real part) */
  DType s = tx ? tx->dtype : DT_STRING, d = tn(DY)->dtype;
  if ((dtype_info[s].is_float || dtype_is_complex(s)) && (dtype_info[d].is_float || dtype_is_complex(d))) dx[0] = keep(cast_to(DY, s));
}
static void g_select(const GradCall *g, Val *dx) {
  if (g->nin < 3 || g->in[1].tag == VT_NONE) return;
  Val z = zeros_like(DY);
  dx[1] = keep(unbroadcast(where(g->in[0], DY, z), g->in[1]));
  dx[2] = keep(unbroadcast(where(g->in[0], z, DY), g->in[2]));
}
static void g_clip(const GradCall *g, Val *dx) {
  Val lo = op2(OP_LESS, X0, X1), hi = op2(OP_GREATER, X0, g->in[2]);
  Val z = zeros_like(DY);
  dx[0] = keep(unbroadcast(where(op2(OP_LOGICAL_OR, lo, hi), z, DY), X0));
  dx[1] = keep(unbroadcast(where(lo, DY, z), X1));
  dx[2] = keep(unbroadcast(where(hi, DY, z), g->in[2]));
}
static void g_add_n(const GradCall *g, Val *dx) {
  for (int i = 0; i < g->nin; i++) dx[i] = keep(DY);
}

/* ---- reductions and the softmax family ---- */
static void g_sum(const GradCall *g, Val *dx) {
  int axes[TFS_MAX_RANK], n;
  dx[0] = keep(broadcast_like(reduced_keepdims(g, DY, axes, &n), X0));
}
static void g_mean(const GradCall *g, Val *dx) {
  int axes[TFS_MAX_RANK], n;
  Val d = broadcast_like(reduced_keepdims(g, DY, axes, &n), X0);
  Tensor *tx = tn(X0);
  Val count;
  if (static_shape(X0)) {
    tfs_i64 c = 1;
    for (int i = 0; i < n; i++) c *= tx->shape[axes[i]];
    count = fconst((double)c);
  } else {
    count = cast_to(dv(cast_to(op1(OP_SIZE, X0), DT_FLOAT64), cast_to(op1(OP_SIZE, Y0), DT_FLOAT64)), tx->dtype);
  }
  dx[0] = keep(dv(d, count));
}
static void g_maxmin_reduce(const GradCall *g, Val *dx) {
  /* the gradient is split evenly among the elements equal to the extremum */
  int axes[TFS_MAX_RANK], n;
  Val yk = reduced_keepdims(g, Y0, axes, &n);
  Val dyk = reduced_keepdims(g, DY, axes, &n);
  Val ind = cast_to(op2(OP_EQUAL, X0, yk), tn(X0)->dtype);
  Val cnt = reduce_sum(ind, n, axes, true);
  dx[0] = keep(mul(dv(ind, cnt), dyk));
}
static void g_prod(const GradCall *g, Val *dx) {
  int axes[TFS_MAX_RANK], n;
  Val yk = reduced_keepdims(g, Y0, axes, &n);
  Val dyk = reduced_keepdims(g, DY, axes, &n);
  dx[0] = keep(mul(dyk, conj_(dv(yk, X0))));   /* y / x: inputs with zeros give inf/nan (TF uses cumulative products) */
}
static void g_logsumexp(const GradCall *g, Val *dx) {
  int axes[TFS_MAX_RANK], n;
  Val yk = reduced_keepdims(g, Y0, axes, &n);
  Val dyk = reduced_keepdims(g, DY, axes, &n);
  dx[0] = keep(mul(dyk, op1(OP_EXP, sub(X0, yk))));
}
static void g_softmax(const GradCall *g, Val *dx) {
  tfs_i64 axis = attr_int(g, 0, -1);
  dx[0] = keep(mul(Y0, sub(DY, sum_axis_keep(mul(DY, Y0), axis))));
}
static void g_log_softmax(const GradCall *g, Val *dx) {
  tfs_i64 axis = attr_int(g, 0, -1);
  dx[0] = keep(sub(DY, mul(op1(OP_EXP, Y0), sum_axis_keep(DY, axis))));
}
static Val expand_last(Val v) {
  Val at[1] = {val_int(-1)};
  return opat(OP_EXPAND_DIMS, 1, &v, 1, at);
}
static void g_sparse_xent(const GradCall *g, Val *dx) {
  /* d logits = (softmax(logits) - one_hot(labels)) * dy[..., None] */
  Tensor *tl = tn(X1);
  Val depth;
  if (tl->rank > 0 && tl->shape[tl->rank - 1] >= 0) depth = val_int(tl->shape[tl->rank - 1]);
  else rt_throw(ERR_UNIMPLEMENTED, "gradient of sparse_softmax_cross_entropy_with_logits needs a known number of classes");
  Val at[6] = {depth, val_none(), val_none(), val_none(), dtype_val(tl->dtype)};
  Val oh = opat(OP_ONE_HOT, 1, &X0, 5, at);
  Val sm = op1(OP_SOFTMAX, X1);
  dx[1] = keep(mul(sub(sm, oh), expand_last(DY)));
}
static void g_xent(const GradCall *g, Val *dx) {
  tfs_i64 axis = attr_int(g, 0, -1);
  Val at[1] = {val_int(axis)};
  Val sm = opat(OP_SOFTMAX, 1, &X1, 1, at);
  Val lsm = opat(OP_LOG_SOFTMAX, 1, &X1, 1, at);
  Val at2[1] = {val_int(axis)};
  Val dyk = opat(OP_EXPAND_DIMS, 1, &DY, 1, at2);
  dx[0] = keep(mul(dyk, neg(lsm)));
  dx[1] = keep(mul(dyk, sub(sm, X0)));
}
static Val transpose_perm(Val x, int r, const tfs_i64 *perm) {
  Val at[1] = {int_tuple(r, perm)};
  return opat(OP_TRANSPOSE, 1, &x, 1, at);
}
static Val svd_uv(Val x);
static Val cols(Val x, tfs_i64 b, tfs_i64 n);
static Val amatmul(Val a, Val b, bool aa, bool ab);
/* d|x|/dx as TF's Abs and ComplexAbs gradients take it: sign(x), or x / |x| (0 where x == 0) for a complex x */
static Val abs_dir(Val x) {
  if (!is_cplx(x)) return op1(OP_SIGN, x);
  Val y = op1(OP_ABS, x), z = zeros_like(y);
  return where(op2(OP_EQUAL, y, fconst(0)), zeros_like(x), dv(x, cplx(y, z)));
}
/* a matrix norm's two axes (Python ints), made non-negative for rank r */
static void norm_matrix_axes(Val axv, int r, int64_t a[2]) {
  const Val *it = val_is(axv, &list_type) ? ((List *)axv.u.o)->items : ((Tuple *)axv.u.o)->items;
  for (int k = 0; k < 2; k++) {
    if (!val_as_int(it[k], &a[k])) rt_throw(ERR_UNIMPLEMENTED, "gradient of tf.norm over traced axes is not supported");
    if (a[k] < 0) a[k] += r;
  }
}
/* TF's norm gradient as its composite's (linalg_ops.norm): through sqrt(sum(x * conj(x))) for 'euclidean'/'fro'/2,
 * through Abs (ComplexAbs) and Sum, Max (ties share) or Pow otherwise, through Svd for a matrix ord 2 */
static void g_norm(const GradCall *g, Val *dx) {
  Val ordv = g->attrs->n > 0 ? g->attrs->v[0] : val_undef(), axv = g->attrs->n > 1 ? g->attrs->v[1] : val_none();
  double p = 2;
  if (!(ordv.tag == VT_UNDEF || ordv.tag == VT_NONE || val_is(ordv, &str_type))) val_as_float(ordv, &p);
  bool matrix = (val_is(axv, &list_type) && ((List *)axv.u.o)->len == 2) || (val_is(axv, &tuple_type) && ((Tuple *)axv.u.o)->len == 2);
  bool mnorm = matrix && !val_is(ordv, &str_type) && ordv.tag != VT_UNDEF && ordv.tag != VT_NONE;   /* ord 1, inf or 2 over two axes */
  DType dt = tn(X0)->dtype;
  /* norm's attrs are (ord, axis, keepdims): the reduction helper reads (axis, keepdims) */
  OpAttrs ra = {2, {axv, g->attrs->n > 2 ? g->attrs->v[2] : val_none()}};
  GradCall rg = *g;
  rg.attrs = &ra;
  int axes[TFS_MAX_RANK], n;
  Val dyk = reduced_keepdims(&rg, DY, axes, &n);
  if (mnorm && p == 2) {   /* d sigma_max = u1 v1^H, with the two axes moved last and back */
    int r = rank_of(X0);
    int64_t a[2];
    norm_matrix_axes(axv, r, a);
    tfs_i64 perm[TFS_MAX_RANK], inv[TFS_MAX_RANK];
    int k = 0;
    for (int d = 0; d < r; d++)
      if (d != a[0] && d != a[1]) perm[k++] = d;
    perm[k++] = a[0], perm[k++] = a[1];
    for (int d = 0; d < r; d++) inv[perm[d]] = d;
    Val suv = svd_uv(transpose_perm(X0, r, perm));
    Val u = ((Tuple *)suv.u.o)->items[1], v = ((Tuple *)suv.u.o)->items[2];
    Val gt = mul(transpose_perm(cast_to(dyk, dt), r, perm), amatmul(cols(u, 0, 1), cols(v, 0, 1), false, true));
    dx[0] = keep(transpose_perm(gt, r, inv));
    return;
  }
  if (p == 2) {   /* x / y; complex: x re(dy) / re(y), y's imaginary part being 0 and Sqrt's gradient conjugating */
    Val yk = reduced_keepdims(&rg, Y0, axes, &n);
    if (is_cplx(X0)) dx[0] = keep(mul(X0, cast_to(dv(op1(OP_REAL, dyk), op1(OP_REAL, yk)), dt)));
    else dx[0] = keep(mul(dyk, dv(X0, yk)));
    return;
  }
  Val ab = op1(OP_ABS, X0), d = abs_dir(X0), w;   /* w: d norm / d|x| */
  if (mnorm) {   /* ord 1: the largest column sum (sum over rows a[0], max over columns a[1]); inf: rows; ties share */
    int64_t a[2];
    norm_matrix_axes(axv, rank_of(X0), a);
    Val yk = reduced_keepdims(&rg, Y0, axes, &n);
    tfs_i64 sax = p == 1 ? a[0] : a[1], max_ax = p == 1 ? a[1] : a[0];
    Val ind = cast_to(op2(OP_EQUAL, sum_axis_keep(ab, sax), yk), tn(ab)->dtype);
    w = dv(ind, sum_axis_keep(ind, max_ax));
  } else if (p == 1) {
    w = op1(OP_ONES_LIKE, ab);
  } else if (isinf(p)) {   /* max |x|: the maxima share dy */
    Val ind = cast_to(op2(OP_EQUAL, ab, reduced_keepdims(&rg, Y0, axes, &n)), tn(ab)->dtype);
    w = dv(ind, reduce_sum(ind, n, axes, true));
  } else {   /* (sum |x|^p)^(1/p): |x|^(p-1) / y^(p-1) */
    Val yk = reduced_keepdims(&rg, Y0, axes, &n);
    w = dv(op2(OP_POW, ab, fconst(p - 1)), op2(OP_POW, yk, fconst(p - 1)));
  }
  dx[0] = keep(mul(cast_to(mul(dyk, w), dt), d));
}

/* ---- linear algebra ---- */
static void g_matmul(const GradCall *g, Val *dx) {
  bool ta = attr_bool(g, 0) || attr_bool(g, 2), tb = attr_bool(g, 1) || attr_bool(g, 3);
  /* complex: TF's formulas on conj(a) and conj(b); an adjoint operand is conj(x) transposed, so it takes x
   * itself there and conjugates its gradient back */
  bool cja = is_cplx(X0) && attr_bool(g, 2), cjb = is_cplx(X1) && attr_bool(g, 3);
  Val a = cja ? X0 : conj_(X0), b = cjb ? X1 : conj_(X1), d = DY, da, db;
  if (!ta && !tb) { da = matmul(d, b, false, true); db = matmul(a, d, true, false); }
  else if (!ta && tb) { da = matmul(d, b, false, false); db = matmul(d, a, true, false); }
  else if (ta && !tb) { da = matmul(b, d, false, true); db = matmul(a, d, false, false); }
  else { da = matmul(b, d, true, true); db = matmul(d, a, true, true); }
  if (cja) da = conj_(da);
  if (cjb) db = conj_(db);
  dx[0] = keep(unbroadcast(da, a));   /* batch dimensions broadcast like elementwise ones */
  dx[1] = keep(unbroadcast(db, b));
}
static bool attr_bool_d(const GradCall *g, int i, bool dflt);
static void g_transpose(const GradCall *g, Val *dx) {
  int r = rank_of(X0);
  if (r < 0) rt_throw(ERR_UNIMPLEMENTED, "gradient of tf.transpose of unknown rank is not supported");
  tfs_i64 perm[TFS_MAX_RANK], inv[TFS_MAX_RANK];
  Val pv = g->attrs->n > 0 ? g->attrs->v[0] : val_none();
  if (pv.tag == VT_NONE || pv.tag == VT_UNDEF) {
    for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
  } else {
    int n = val_to_dims(pv, perm, false, "tf.transpose");
    if (n != r) rt_throw(ERR_INVALID_ARGUMENT, "transpose gradient: bad perm");
  }
  for (int i = 0; i < r; i++) inv[perm[i] < 0 ? perm[i] + r : perm[i]] = i;
  /* a conjugate transpose's gradient is the conjugate transpose of dy by the inverse permutation */
  Val at[2] = {int_tuple(r, inv), val_bool(attr_bool_d(g, 1, false))};
  dx[0] = keep(opat(OP_TRANSPOSE, 1, &DY, 2, at));
}
/* ---- LAPACK-backed linear algebra (TF's linalg_grad.py) ---- */
static bool attr_bool_d(const GradCall *g, int i, bool dflt) {
  if (g->attrs->n <= i || g->attrs->v[i].tag == VT_UNDEF || g->attrs->v[i].tag == VT_NONE) return dflt;
  return rt_truthy(g->attrs->v[i]);
}
/* The matrix transpose of the last two dims (the adjoint of a real matrix). */
static Val adj(Val x) {
  int r = rank_of(x);
  if (r < 2) rt_throw(ERR_UNIMPLEMENTED, "gradient of a linalg op needs inputs of known rank");
  tfs_i64 perm[TFS_MAX_RANK];
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[r - 2] = r - 1, perm[r - 1] = r - 2;
  Val at[1] = {int_tuple(r, perm)};
  return opat(OP_TRANSPOSE, 1, &x, 1, at);
}
static tfs_i64 last_dim(Val x, int from_end) {
  Tensor *t = tn(x);
  tfs_i64 d = t->rank >= from_end ? t->shape[t->rank - from_end] : -1;
  if (d < 0) rt_throw(ERR_UNIMPLEMENTED, "gradient of a linalg op needs static matrix dimensions");
  return d;
}
static Val eye_n(tfs_i64 n, DType dt) {
  bool c = dtype_is_complex(dt);   /* Eye has no complex kernel: the real one cast */
  Val at[4] = {val_int(n), val_none(), val_none(), dtype_val(c ? (dt == DT_COMPLEX64 ? DT_FLOAT32 : DT_FLOAT64) : dt)};
  Val e = opat(OP_EYE, 0, NULL, 4, at);
  return c ? cast_to(e, dt) : e;
}
/* matrix_diag(d): d [..., n] on the diagonal of [..., n, n] */
static Val mdiag(Val d) {
  Val at[1] = {val_int(-1)};
  return mul(opat(OP_EXPAND_DIMS, 1, &d, 1, at), eye_n(last_dim(d, 1), tn(d)->dtype));
}
/* x with its diagonal scaled by k (matrix_set_diag(x, k * diag_part(x))) */
static Val scale_diag(Val x, double k) { return sub(x, mul(fconst(1 - k), mul(x, eye_n(last_dim(x, 1), tn(x)->dtype)))); }
static Val band(Val x, tfs_i64 lo, tfs_i64 up) {
  Val at[2] = {val_int(lo), val_int(up)};
  return opat(OP_BAND_PART, 1, &x, 2, at);
}
static Val expand(Val x, tfs_i64 axis) {
  Val at[1] = {val_int(axis)};
  return opat(OP_EXPAND_DIMS, 1, &x, 1, at);
}
/* x[..., :, b:b+n] */
static Val cols(Val x, tfs_i64 b, tfs_i64 n) {
  int r = rank_of(x);
  tfs_i64 begin[TFS_MAX_RANK], size[TFS_MAX_RANK];
  for (int i = 0; i < r; i++) begin[i] = 0, size[i] = -1;
  begin[r - 1] = b, size[r - 1] = n;
  Val at[2] = {int_tuple(r, begin), int_tuple(r, size)};
  return opat(OP_SLICE, 1, &x, 2, at);
}
static Val trisolve(Val a, Val b, bool lower, bool adjoint) {
  Val in[2] = {a, b}, at[2] = {val_bool(lower), val_bool(adjoint)};
  return opat(OP_TRIANGULAR_SOLVE, 2, in, 2, at);
}
/* the adjoint (conjugate transpose) and products of adjoints, as TF's linalg gradients take them: for real
 * tensors the transpose */
static Val madj(Val x) { return conj_(adj(x)); }
static Val amatmul(Val a, Val b, bool aa, bool ab) {
  Val in[2] = {a, b};
  Val at[4] = {val_bool(false), val_bool(false), val_bool(aa), val_bool(ab)};
  return opat(OP_MATMUL, 2, in, 4, at);
}
static Val inv_adj(Val a) {
  Val at[1] = {val_bool(true)};
  return opat(OP_MATRIX_INVERSE, 1, &a, 1, at);
}
/* x / (x^2 + 1e-20): TF's _SafeReciprocal, finite for degenerate eigen- and singular values */
static Val safe_recip(Val x) { return mul(x, op1(OP_RECIPROCAL, add(mul(x, x), fconst(1e-20)))); }
/* f[i][j] = safe_recip(e[j] - e[i]), 0 on the diagonal */
static Val fmat(Val e) {
  Val f = safe_recip(sub(expand(e, -2), expand(e, -1)));
  return sub(f, mul(f, eye_n(last_dim(e, 1), tn(e)->dtype)));
}

/* (s, u, v) = svd(x) with the vectors, full_matrices False */
static Val svd_uv(Val x) {
  Val at[2] = {val_bool(false), val_bool(true)};
  return opat(OP_SVD, 1, &x, 2, at);
}

static void g_matrix_inverse(const GradCall *g, Val *dx) {
  /* y = inv(A): dA = -y^H dy y^H; with adjoint=True y = inv(A^H), so dA = -y dy^H y (^H: transposed conj_) */
  if (attr_bool(g, 0)) dx[0] = keep(neg(matmul(Y0, matmul(conj_(DY), Y0, true, false), false, false)));
  else dx[0] = keep(neg(matmul(conj_(Y0), matmul(DY, conj_(Y0), false, true), true, false)));
}
static void g_matrix_determinant(const GradCall *g, Val *dx) {
  dx[0] = keep(mul(expand(expand(mul(DY, Y0), -1), -1), inv_adj(X0)));
}
static void g_log_matrix_determinant(const GradCall *g, Val *dx) {
  dx[0] = keep(mul(expand(expand(g->dy[1], -1), -1), inv_adj(X0)));
}
static void g_matrix_solve(const GradCall *g, Val *dx) {
  bool adjoint = attr_bool(g, 0);
  Val in[2] = {X0, DY}, at[1] = {val_bool(!adjoint)};
  Val gb = opat(OP_MATRIX_SOLVE, 2, in, 1, at);
  dx[0] = keep(neg(adjoint ? matmul(Y0, conj_(gb), false, true) : matmul(gb, conj_(Y0), false, true)));   /* TF: adjoint_b */
  dx[1] = keep(gb);
}
static void g_triangular_solve(const GradCall *g, Val *dx) {
  bool lower = attr_bool_d(g, 0, true), adjoint = attr_bool(g, 1);
  Val gb = trisolve(X0, DY, lower, !adjoint);
  Val ga = neg(adjoint ? amatmul(Y0, gb, false, true) : amatmul(gb, Y0, false, true));
  ga = lower ? band(ga, -1, 0) : band(ga, 0, -1);
  dx[0] = keep(unbroadcast(ga, X0));   /* batch dims broadcast */
  dx[1] = keep(unbroadcast(gb, X1));
}
static void g_cholesky(const GradCall *g, Val *dx) {
  Val l = Y0;
  Val linv = trisolve(l, eye_n(last_dim(l, 1), tn(l)->dtype), true, false);
  Val middle = band(scale_diag(amatmul(l, DY, true, false), 0.5), -1, 0);
  Val ga = amatmul(amatmul(linv, middle, true, false), linv, false, false);
  dx[0] = keep(mul(add(ga, madj(ga)), fconst(0.5)));
}
/* x @ inv(r)^H for upper-triangular r */
static Val qr_tsolve(Val x, Val r) { return madj(trisolve(r, madj(x), false, false)); }
static Val qr_grad_deep(Val q, Val r, Val dq, Val dr) {
  Val qdq = amatmul(q, dq, true, false);
  Val rdr = amatmul(r, dr, false, true);
  Val tril = band(add(sub(qdq, madj(qdq)), sub(rdr, madj(rdr))), -1, 0);
  Val ga = amatmul(q, add(dr, qr_tsolve(tril, r)), false, false);
  Val gb = qr_tsolve(sub(dq, amatmul(q, qdq, false, false)), r);
  Val ret = add(ga, gb);
  if (is_cplx(q)) {   /* TF's correction for complex q: the imaginary part of diag(r dr^H - dq^H q) */
    Val m = mul(sub(rdr, madj(qdq)), eye_n(last_dim(r, 2), tn(q)->dtype));
    Val corr = sub(m, cast_to(op1(OP_REAL, m), tn(q)->dtype));
    ret = add(ret, qr_tsolve(amatmul(q, corr, false, true), r));
  }
  return ret;
}
static void g_qr(const GradCall *g, Val *dx) {
  Val q = g->out[0], r = g->out[1], dq = g->dy[0], dr = g->dy[1];
  tfs_i64 m = last_dim(q, 2), qc = last_dim(q, 1), rr = last_dim(r, 2), n = last_dim(r, 1);
  if (rr > n && m == qc) rt_throw(ERR_UNIMPLEMENTED, "QrGrad not implemented when nrows > ncols and full_matrices is true.");
  if (m >= n) {
    dx[0] = keep(qr_grad_deep(q, r, dq, dr));
    return;
  }
  /* a = [x, y], r = [u, v]: the square case for x */
  Val y = cols(X0, m, n - m), u = cols(r, 0, m), dv = cols(dr, m, n - m), du = cols(dr, 0, m);
  Val dy = amatmul(q, dv, false, false);
  Val dxx = qr_grad_deep(q, u, add(dq, amatmul(y, dv, false, true)), du);
  Val l = T(list_new(2));
  list_append(l, dxx);
  list_append(l, dy);
  Val at[1] = {val_int(-1)};
  dx[0] = keep(opat(OP_CONCAT, 1, &l, 1, at));
}
static void g_self_adjoint_eig(const GradCall *g, Val *dx) {
  Val e = g->out[0], v = g->out[1], ge = g->dy[0], gv = g->dy[1];
  Val mid = add(mdiag(ge), mul(fmat(e), amatmul(v, gv, true, false)));
  Val ga = amatmul(v, amatmul(mid, v, false, true), false, false);
  dx[0] = keep(scale_diag(band(add(ga, madj(ga)), -1, 0), 0.5));
}
/* TF's _EigGrad (distinct eigenvalues): with vt = v^H, f[i][j] = conj(1 / (e_j - e_i)) off the diagonal,
 * dA = vt^-1 (diag(ge) + f * (vt gv - vt v diag(re(diag(vt gv))))) vt, its real part for a real input */
static void g_eig(const GradCall *g, Val *dx) {
  Val e = Y0, v, ge = DY;
  bool vecs = attr_bool_d(g, 0, true);
  if (vecs) {
    v = g->out[1];
  } else {   /* eigvals: the vectors again */
    Val at[2] = {val_bool(true), dtype_val(tn(e)->dtype)};
    v = ((Tuple *)opat(OP_EIG, 1, &X0, 2, at).u.o)->items[1];
  }
  Val vt = madj(v), mid = mdiag(ge);
  if (vecs) {
    DType dt = tn(e)->dtype;
    Val vgv = matmul(vt, g->dy[1], false, false);
    Val dgp = mul(cast_to(op1(OP_REAL, vgv), dt), eye_n(last_dim(e, 1), dt));
    mid = add(mid, mul(conj_(fmat(e)), sub(vgv, matmul(matmul(vt, v, false, false), dgp, false, false))));
  }
  Val in[2] = {vt, matmul(mid, vt, false, false)}, at[1] = {val_bool(false)};
  Val ga = opat(OP_MATRIX_SOLVE, 2, in, 1, at);
  dx[0] = keep(is_cplx(X0) ? cast_to(ga, tn(X0)->dtype) : cast_to(op1(OP_REAL, ga), tn(X0)->dtype));
}
/* TF's _SvdGrad, complex included: s (real) and gs taken in the input's dtype, adjoints for transposes, and for a
 * complex input the term 1/2 u s^-1 (l^H - l) v1^H, l the diagonal of v1^H gv1, that fixes the vectors' phases */
static void g_svd(const GradCall *g, Val *dx) {
  Val a = X0;
  DType dt = tn(a)->dtype;
  Val gs = cast_to(g->dy[0], dt);
  if (g->nout == 1) {   /* compute_uv=False: the vectors again */
    Tuple *t = (Tuple *)svd_uv(a).u.o;
    dx[0] = keep(amatmul(t->items[1], amatmul(mdiag(gs), t->items[2], false, true), false, false));
    return;
  }
  bool full = attr_bool(g, 0);
  tfs_i64 m = last_dim(a, 2), n = last_dim(a, 1);
  Val s = g->out[0], u = g->out[1], v = g->out[2], gu = g->dy[1], gv = g->dy[2];
  bool use_adj = m > n;
  if (use_adj) {   /* the gradient of A^H = V S U^H, its adjoint at the end */
    tfs_i64 k = m; m = n; n = k;
    Val w = u; u = v; v = w;
    w = gu; gu = gv; gv = w;
  }
  if (full && n - m > 1)   /* TF's NotImplementedError, its text up to the op's repr */
    rt_throw(ERR_NOTIMPL, "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. Received: m=%lld and n=%lld",
             (long long)m, (long long)n);
  Val s_mat = mdiag(cast_to(s, dt));
  Val f = cast_to(fmat(mul(s, s)), dt);
  Val s_inv_mat = mdiag(cast_to(safe_recip(s), dt));
  Val v1 = cols(v, 0, m), gv1 = cols(gv, 0, m);
  Val v_gv = amatmul(v1, gv1, true, false);
  Val f_u = mul(f, amatmul(u, gu, true, false)), f_v = mul(f, v_gv);
  Val t1 = add(add(mdiag(gs), amatmul(add(f_u, madj(f_u)), s_mat, false, false)), amatmul(s_mat, add(f_v, madj(f_v)), false, false));
  Val ga = amatmul(u, amatmul(t1, v1, false, true), false, false);
  if (m != n) {
    Val gv1t = madj(gv1);
    Val t2 = sub(gv1t, amatmul(amatmul(gv1t, v1, false, false), v1, false, true));
    if (full) {
      Val v2 = cols(v, m, n - m), gv2 = cols(gv, m, n - m);
      t2 = sub(t2, amatmul(amatmul(v1, gv2, true, false), v2, false, true));
    }
    ga = add(ga, amatmul(amatmul(u, s_inv_mat, false, false), t2, false, false));
  }
  if (is_cplx(a)) {
    Val l = mul(eye_n(m, dt), v_gv);
    Val t3 = amatmul(s_inv_mat, sub(madj(l), l), false, false);
    ga = add(ga, mul(fconst(0.5), amatmul(u, amatmul(t3, v1, false, true), false, false)));
  }
  dx[0] = keep(use_adj ? madj(ga) : ga);
}
/* TF's _LuGrad: P A = L U, so dA = P^T L^-H (strictly_lower(L^H dLU) + upper(dLU U^H)) U^-H, P = one_hot(perm) */
static void g_lu(const GradCall *g, Val *dx) {
  Val lu = g->out[0], perm = g->out[1], glu = val_is_undef(g->dy[0]) ? zeros_like(g->out[0]) : g->dy[0];
  tfs_i64 n = last_dim(lu, 1);
  DType dt = tn(lu)->dtype;
  Val eye = eye_n(n, dt);
  Val l = add(sub(band(lu, -1, 0), mul(lu, eye)), eye), u = band(lu, 0, -1);
  Val lg = amatmul(l, glu, true, false);
  Val phi = add(sub(band(lg, -1, 0), mul(lg, eye)), band(amatmul(glu, u, false, true), 0, -1));
  Val y = trisolve(l, phi, true, true);
  Val z = madj(trisolve(u, madj(y), false, false));
  Val at[5] = {val_int(n), fconst(1), fconst(0), val_int(-1), dtype_val(dt)};
  Val p = opat(OP_ONE_HOT, 1, &perm, 5, at);
  dx[0] = keep(amatmul(p, z, true, false));
}
/* x reshaped to r's batch dims followed by the k dims d */
static Val batch_reshape(Val x, Val r, int k, const tfs_i64 *d) {
  if (!static_shape(r)) rt_throw(ERR_UNIMPLEMENTED, "gradient of a linalg op needs static matrix dimensions");
  Tensor *t = tn(r);
  tfs_i64 s[TFS_MAX_RANK + 4];
  int nb = t->rank - 2;
  for (int i = 0; i < nb; i++) s[i] = t->shape[i];
  for (int i = 0; i < k; i++) s[nb + i] = d[i];
  return reshape(x, int_tuple(nb + k, s));
}
/* TF's _MatrixSquareRootGrad: dA = R dR + dR R solved for dR as the Sylvester equation's Kronecker form,
 * (I (x) R^T + R (x) I) vec(dR^T) = vec(dY^T) */
static void g_matrix_sqrt(const GradCall *g, Val *dx) {
  Val r = Y0;
  tfs_i64 n = last_dim(r, 1);
  Val eye = eye_n(n, tn(r)->dtype);
  tfs_i64 left[4] = {n, 1, n, 1}, right[4] = {1, n, 1, n}, sq[2] = {n * n, n * n}, vec[2] = {n * n, 1}, mat[2] = {n, n};
  Val k1 = mul(reshape(eye, int_tuple(4, left)), batch_reshape(adj(r), r, 4, right));
  Val k2 = mul(batch_reshape(r, r, 4, left), reshape(eye, int_tuple(4, right)));
  Val ksum = add(batch_reshape(k1, r, 2, sq), batch_reshape(k2, r, 2, sq));
  Val in[2] = {ksum, batch_reshape(adj(DY), r, 2, vec)}, at[1] = {val_bool(false)};
  Val v = opat(OP_MATRIX_SOLVE, 2, in, 1, at);
  dx[0] = keep(adj(batch_reshape(v, r, 2, mat)));
}
static void g_band_part(const GradCall *g, Val *dx) {
  Val at[2] = {g->attrs->v[0], g->attrs->v[1]};
  dx[0] = keep(opat(OP_BAND_PART, 1, &DY, 2, at));
}
static void g_diag_part(const GradCall *g, Val *dx) {
  tfs_i64 m = last_dim(X0, 2), n = last_dim(X0, 1);
  DiagLayout l;
  linalg_diag_layout(g->attrs->n > 0 ? g->attrs->v[0] : val_undef(), g->attrs->n > 2 ? g->attrs->v[2] : val_undef(),
                     m, n, &l);
  if (l.lo != 0 || l.hi != 0) {
    /* TF's MatrixDiagV3 of dy: each element of the band gathers its place in dy (flattened per matrix, one zero
     * appended for the elements off the band) */
    tfs_i64 nd = l.hi - l.lo + 1, size = m * n, total = nd * l.len;
    Tensor *idx = tensor_new(DT_INT32, 1, &size);
    Val iv = T(val_obj(idx));
    int32_t *ip = tensor_data(idx);
    for (tfs_i64 i = 0; i < m; i++)
      for (tfs_i64 j = 0; j < n; j++) {
        tfs_i64 p = linalg_diag_pos(&l, i, j);
        ip[i * n + j] = (int32_t)(p < 0 ? total : p);
      }
    Val flat = reshape(DY, int_tuple(2, (tfs_i64[]){-1, total}));
    Val parts = T(list_new(2));
    list_append(parts, flat);
    list_append(parts, sum_axis_keep(zeros_like(flat), 1));
    Val cat[1] = {val_int(-1)};
    Val ext = opat(OP_CONCAT, 1, &parts, 1, cat);
    Val gat[3] = {val_none(), val_int(1), val_int(0)};
    dx[0] = keep(reshape_like(opat(OP_GATHER, 2, (Val[]){ext, iv}, 3, gat), X0));
    return;
  }
  /* dy on the diagonal of an [..., m, n] zero matrix: row i (m <= n) or column j (m > n) of eye(m, n) scaled by dy */
  Val at[4] = {val_int(m), val_int(n), val_none(), dtype_val(tn(DY)->dtype)};
  dx[0] = keep(mul(expand(DY, m <= n ? -1 : -2), opat(OP_EYE, 0, NULL, 4, at)));
}

/* Conv2D: both gradients from one helper op each, given the forward input and filters. */
static void g_conv2d(const GradCall *g, Val *dx) {
  Val in[3] = {X0, X1, DY}, at[3] = {g->attrs->v[0], g->attrs->v[1], g->attrs->n > 3 ? g->attrs->v[3] : val_none()};
  dx[0] = keep(opat(OP_CONV2D_BP_INPUT, 3, in, 3, at));
  dx[1] = keep(opat(OP_CONV2D_BP_FILTER, 3, in, 3, at));
}
/* Conv2DBackpropInput / Conv3DBackpropInputV2 (conv2d_transpose, conv3d_transpose): y = BPInput(x, f, d) is
 * linear in f and d; its adjoint in d is the forward convolution of the incoming gradient, in f the filter
 * gradient of (incoming gradient, d).  x only gives the shape. */
static void g_conv_bp_input(const GradCall *g, Val *dx) {
  bool three = g->op->id == OP_CONV3D_BP_INPUT;
  Val at[3] = {g->attrs->v[0], g->attrs->v[1], g->attrs->n > 2 ? g->attrs->v[2] : val_none()};
  Val fin[3] = {DY, X1, g->in[2]};
  dx[1] = keep(opat(three ? OP_CONV3D_BP_FILTER : OP_CONV2D_BP_FILTER, 3, fin, 3, at));
  Val cin[2] = {DY, X1}, cat[4] = {at[0], at[1], val_none(), at[2]};
  dx[2] = keep(opat(three ? OP_CONV3D : OP_CONV2D, 2, cin, 4, cat));
}
/* Conv3D: both gradients from their ops, given the forward input and filters (strides, padding, dilations). */
static void g_conv3d(const GradCall *g, Val *dx) {
  Val in[3] = {X0, X1, DY}, at[3] = {g->attrs->v[0], g->attrs->v[1], g->attrs->n > 3 ? g->attrs->v[3] : val_none()};
  dx[0] = keep(opat(OP_CONV3D_BP_INPUT, 3, in, 3, at));
  dx[1] = keep(opat(OP_CONV3D_BP_FILTER, 3, in, 3, at));
}
/* DepthwiseConv2dNative: both gradients from their ops, given the forward input and filter; same attributes. */
static void g_depthwise(const GradCall *g, Val *dx) {
  Val in[3] = {X0, X1, DY}, at[5];
  for (int i = 0; i < 5; i++) at[i] = i < g->attrs->n ? g->attrs->v[i] : val_none();
  dx[0] = keep(opat(OP_DEPTHWISE_BP_INPUT, 3, in, 5, at));
  dx[1] = keep(opat(OP_DEPTHWISE_BP_FILTER, 3, in, 5, at));
}
/* MaxPool3D / AvgPool3D: their gradient ops, given the forward input (ksize, strides, padding). */
static void g_pool3d(const GradCall *g, Val *dx) {
  Val in[2] = {X0, DY}, at[3] = {g->attrs->v[0], g->attrs->v[1], g->attrs->v[2]};
  dx[0] = keep(opat(g->op->id == OP_MAX_POOL3D ? OP_MAX_POOL3D_GRAD : OP_AVG_POOL3D_GRAD, 2, in, 3, at));
}
static void g_max_pool(const GradCall *g, Val *dx) {
  Val in[2] = {X0, DY}, at[3] = {g->attrs->v[0], g->attrs->v[1], g->attrs->v[2]};
  dx[0] = keep(opat(OP_MAX_POOL_GRAD, 2, in, 3, at));
}

/* ResizeBilinear/Bicubic/NearestNeighbor: the resampling's transpose, with the forward's align_corners and
 * half_pixel_centers (integer images get no gradient, as in TF) */
static void g_resize(const GradCall *g, Val *dx) {
  if (!dtype_info[tn(X0)->dtype].is_float) return;
  Val at[3] = {val_undef(), g->attrs->n > 1 ? g->attrs->v[1] : val_undef(), g->attrs->n > 2 ? g->attrs->v[2] : val_undef()};
  Tensor *x = tn(X0);
  if (g->op->id == OP_RESIZE_NEAREST) {
    tfs_i64 hw[2] = {x->rank == 4 ? x->shape[1] : -1, x->rank == 4 ? x->shape[2] : -1};
    /* the gradient op takes the input's size as an attribute: in a graph it must be known while tracing */
    if (hw[0] < 0 || hw[1] < 0)
      rt_throw(ERR_UNIMPLEMENTED, "the gradient of a nearest-neighbor resize needs the image height and width known while tracing");
    at[0] = int_tuple(2, hw);
    dx[0] = keep(opat(OP_RESIZE_NEAREST_GRAD, 1, &DY, 3, at));
    return;
  }
  Val in[2] = {DY, X0};
  if (g->op->id == OP_SCALE_TRANSLATE) {
    Val st[4] = {g->attrs->v[1], g->attrs->v[2], g->attrs->n > 3 ? g->attrs->v[3] : val_undef(), g->attrs->n > 4 ? g->attrs->v[4] : val_undef()};
    dx[0] = keep(opat(OP_SCALE_TRANSLATE_GRAD, 2, in, 4, st));
    return;
  }
  at[0] = at[1];
  at[1] = at[2];
  dx[0] = keep(opat(g->op->id == OP_RESIZE_BILINEAR ? OP_RESIZE_BILINEAR_GRAD : OP_RESIZE_BICUBIC_GRAD, 2, in, 2, at));
}

static void g_bias_add(const GradCall *g, Val *dx) {
  dx[0] = keep(DY);
  dx[1] = keep(unbroadcast(DY, X1));
}

/* ---- shapes ---- */
static void g_reshape(const GradCall *g, Val *dx) { dx[0] = keep(reshape_like(DY, X0)); }
static void g_broadcast_to(const GradCall *g, Val *dx) { dx[0] = keep(unbroadcast(DY, X0)); }
/* _SumTo's gradient: the incoming gradient broadcast back over dy's shape */
static void g_sum_to(const GradCall *g, Val *dx) {
  Val at[1] = {shape_val(X0)};
  dx[0] = keep(opat(OP_BROADCAST_TO, 1, &DY, 1, at));
}
/* concat's gradient when an input's size along axis is known only at run time (a while_loop variable with a
 * shape invariant): as TF's _ConcatGrad, each input's slice of dy begins at the sum of the earlier inputs'
 * tf.shape along axis and has the input's tf.shape for size (graph values of the Slice). */
static void concat_grad_dynamic(const GradCall *g, Val *dx, int r, tfs_i64 axis) {
  tfs_i64 unit[TFS_MAX_RANK] = {0};
  unit[axis] = 1;
  Val mask = int_tuple(r, unit), off = val_undef();
  for (int i = 0; i < g->nin; i++) {
    Val shp = opat(OP_SHAPE, 1, &g->in[i], 0, NULL);
    Val at[2] = {i == 0 ? mul(shp, val_int(0)) : off, shp};
    dx[i] = keep(opat(OP_SLICE, 1, &DY, 2, at));
    Val step = mul(shp, mask);
    off = i == 0 ? step : add(off, step);
  }
}

static void g_concat(const GradCall *g, Val *dx) {
  int r = rank_of(X0);
  tfs_i64 axis = attr_int(g, 0, 0);
  if (axis < 0) axis += r;
  for (int i = 0; r >= 0 && i < g->nin; i++)
    if (tn(g->in[i])->rank >= 0 && tn(g->in[i])->shape[axis] < 0) {
      concat_grad_dynamic(g, dx, r, axis);
      return;
    }
  tfs_i64 off = 0;
  for (int i = 0; i < g->nin; i++) {
    Tensor *t = tn(g->in[i]);
    if (t->rank < 0 || t->shape[axis] < 0) rt_throw(ERR_UNIMPLEMENTED, "gradient of tf.concat needs known sizes along the axis");
    tfs_i64 begin[TFS_MAX_RANK], size[TFS_MAX_RANK];
    for (int d = 0; d < r; d++) begin[d] = 0, size[d] = -1;
    begin[axis] = off;
    size[axis] = t->shape[axis];
    off += t->shape[axis];
    Val at[2] = {int_tuple(r, begin), int_tuple(r, size)};
    dx[i] = keep(opat(OP_SLICE, 1, &DY, 2, at));
  }
}
static void g_stack(const GradCall *g, Val *dx) {
  Val at[2] = {val_int(g->nin), val_int(attr_int(g, 0, 0))};
  Val parts = opat(OP_UNSTACK, 1, &DY, 2, at);
  List *l = (List *)parts.u.o;
  for (int i = 0; i < g->nin && i < l->len; i++) dx[i] = keep(l->items[i]);
}
/* attribute i, None when not given (the op's default) */
static Val attr_or_none(const GradCall *g, int i) {
  return g->attrs->n > i && g->attrs->v[i].tag != VT_UNDEF ? g->attrs->v[i] : val_none();
}
/* TfsLSTMSequence: its own BPTT op on the saved outputs, from the gradients of hs, h_last and c_last (those of
 * the cells and activations, which the layer reads only for this gradient, are not taken). */
static void g_lstm_seq(const GradCall *g, Val *dx) {
  Val in[11] = {g->in[1], g->in[2], g->in[3], g->out[0], g->out[3], g->out[4], g->dy[0], g->dy[1], g->dy[2],
                g->nin > 5 ? g->in[5] : val_none(), g->nin > 6 ? g->in[6] : val_none()};
  for (int k = 0; k < 3; k++)   /* G_DY_UNDEF: zeros only for the outputs the op reads a gradient of */
    if (in[6 + k].tag == VT_UNDEF) in[6 + k] = T(op_apply1(OP_ZEROS_LIKE, g->out[k]));
  for (int k = 9; k < 11; k++)
    if (in[k].tag == VT_UNDEF) in[k] = val_none();
  bool zero = attr_bool_d(g, 2, false);
  Val act = attr_or_none(g, 3), ract = attr_or_none(g, 4);
  Val at[5] = {val_bool(attr_bool(g, 0)), val_bool(true), val_bool(zero), act, ract};
  if (!attr_bool_d(g, 1, true)) {
    /* an inference run (save=False) kept no cells or activations: the forward op again, keeping them */
    Val f = opat(OP_LSTM_SEQ, g->nin, g->in, 5, at);
    in[4] = ((Tuple *)f.u.o)->items[3];
    in[5] = ((Tuple *)f.u.o)->items[4];
  }
  Val ag[4] = {at[0], val_bool(zero), act, ract};
  Val r = opat(OP_LSTM_SEQ_GRAD, 11, in, 4, ag);
  Tuple *t = (Tuple *)r.u.o;
  for (int i = 0; i < 4; i++) dx[i] = keep(t->items[i]);
  if (g->nin > 4 && g->in[4].tag != VT_NONE && g->in[4].tag != VT_UNDEF) dx[4] = keep(t->items[4]);
}
/* TfsGRUSequence: its BPTT op from the saved activations and the gradients of hs and h_last (an inference run,
 * save=False, runs the forward op again keeping them, as the LSTM's) */
static void g_gru_seq(const GradCall *g, Val *dx) {
  Val in[8] = {g->in[1], g->in[2], g->out[0], g->out[2], g->dy[0], g->dy[1], g->nin > 4 ? g->in[4] : val_none(),
               g->nin > 5 ? g->in[5] : val_none()};
  for (int k = 4; k < 8; k++)   /* G_DY_UNDEF: the op takes None for zeros; no mask, no recurrent mask */
    if (in[k].tag == VT_UNDEF) in[k] = val_none();
  bool zero = attr_bool_d(g, 3, false);
  Val act = attr_or_none(g, 4), ract = attr_or_none(g, 5);
  Val at[6] = {val_bool(attr_bool(g, 0)), val_bool(attr_bool_d(g, 1, true)), val_bool(true), val_bool(zero), act, ract};
  if (!attr_bool_d(g, 2, true)) in[3] = ((Tuple *)opat(OP_GRU_SEQ, g->nin, g->in, 6, at).u.o)->items[2];
  Val ag[5] = {at[0], at[1], val_bool(zero), act, ract};
  Tuple *t = (Tuple *)opat(OP_GRU_SEQ_GRAD, 8, in, 5, ag).u.o;
  for (int i = 0; i < 3; i++) dx[i] = keep(t->items[i]);
  if (g->nin > 3 && g->in[3].tag != VT_NONE && g->in[3].tag != VT_UNDEF) dx[3] = keep(t->items[3]);
}
/* TfsSimpleRNNSequence: its BPTT op from hs, the saved step inputs (a masked inference run, save=False, runs the
 * forward op again keeping them) and the gradients of hs and h_last */
static void g_srnn_seq(const GradCall *g, Val *dx) {
  Val in[8] = {g->in[1], g->in[2], g->out[0], g->out[2], g->dy[0], g->dy[1], g->nin > 4 ? g->in[4] : val_none(),
               g->nin > 5 ? g->in[5] : val_none()};
  for (int k = 4; k < 8; k++)   /* G_DY_UNDEF: the op takes None for zeros; no mask, no recurrent mask */
    if (in[k].tag == VT_UNDEF) in[k] = val_none();
  Val act = attr_or_none(g, 3);
  bool zero = attr_bool_d(g, 2, false), masked = in[6].tag != VT_NONE || in[7].tag != VT_NONE;
  Val at[4] = {val_bool(attr_bool(g, 0)), val_bool(true), val_bool(zero), act};
  if (masked && !attr_bool_d(g, 1, true)) in[3] = ((Tuple *)opat(OP_SRNN_SEQ, g->nin, g->in, 4, at).u.o)->items[2];
  Val ag[3] = {at[0], val_bool(zero), act};
  Tuple *t = (Tuple *)opat(OP_SRNN_SEQ_GRAD, 8, in, 3, ag).u.o;
  for (int i = 0; i < 3; i++) dx[i] = keep(t->items[i]);
  if (g->nin > 3 && g->in[3].tag != VT_NONE && g->in[3].tag != VT_UNDEF) dx[3] = keep(t->items[3]);
}
/* TfsBatchNormTrain: its closed-form gradient op from the saved mean and inv and the gradients of y, mean and
 * variance (that of inv is not taken: the layer reads it only for this gradient) */
static void g_bnorm(const GradCall *g, Val *dx) {
  Val gamma = g->nin > 1 ? g->in[1] : val_none();
  Val in[7] = {g->dy[0], g->in[0], g->out[1], g->out[3], gamma, g->dy[1], g->dy[2]};
  Tuple *t = (Tuple *)opat(OP_BNORM_TRAIN_GRAD, 7, in, 0, NULL).u.o;
  dx[0] = keep(t->items[0]);
  if (g->nin > 1 && g->in[1].tag != VT_NONE && g->in[1].tag != VT_UNDEF) dx[1] = keep(t->items[1]);
  if (g->nin > 2 && g->in[2].tag != VT_NONE && g->in[2].tag != VT_UNDEF) dx[2] = keep(t->items[2]);
}
static void g_unstack(const GradCall *g, Val *dx) {
  Val l = T(list_new(g->nout));
  for (int i = 0; i < g->nout; i++) list_append(l, g->dy[i]);
  Val at[1] = {val_int(attr_int(g, 1, 0))};
  dx[0] = keep(opat(OP_STACK, 1, &l, 1, at));
}
static void g_tile(const GradCall *g, Val *dx) {
  Tensor *t = tn(X0);
  tfs_i64 m[TFS_MAX_RANK];
  Val mv = g->attrs->n > 0 ? g->attrs->v[0] : val_none();
  Tensor *mt = tn(mv);
  int r;
  if (mt && !mt->sym) {
    r = (int)mt->size;
    for (int i = 0; i < r && i < TFS_MAX_RANK; i++) m[i] = tensor_get_i(mt, i);
  } else {
    r = val_to_dims(mv, m, false, "tf.tile");
  }
  if (r != t->rank || 2 * r > TFS_MAX_RANK)
    rt_throw(ERR_UNIMPLEMENTED, "gradient of tf.tile needs static shapes of rank <= %d", TFS_MAX_RANK / 2);
  tfs_i64 split[TFS_MAX_RANK];
  int axes[TFS_MAX_RANK];
  for (int i = 0; i < r; i++) split[2 * i] = m[i], split[2 * i + 1] = t->shape[i], axes[i] = 2 * i;
  Val split_shape = int_tuple(2 * r, split);
  if (!static_shape(X0)) {
    /* x's dims known at run time only: [m0, s0, m1, s1, ...] from tf.shape(x), as TF's _TileGrad */
    Val l = T(list_new(2));
    list_append(l, int_tuple(r, m));
    list_append(l, op1(OP_SHAPE, X0));
    Val at[1] = {val_int(1)};
    split_shape = reshape(opat(OP_STACK, 1, &l, 1, at), int_tuple(1, (tfs_i64[]){-1}));
  }
  dx[0] = keep(reduce_sum(reshape(DY, split_shape), r, axes, false));
}
static void g_scatter(const GradCall *g, Val *dx) {
  /* the op again on element indices says where each gradient value goes */
  Val in[3] = {X0, DY, g->op->id == OP_GATHER || g->op->id == OP_GATHER_ND ? X1 : val_none()};
  Val at[4] = {val_int(g->op->id), val_none(), val_none(), val_none()};
  for (int i = 0; i < g->attrs->n && i < 3; i++) at[i + 1] = g->attrs->v[i];
  int nat = 1 + (g->attrs->n < 3 ? g->attrs->n : 3);
  if (g->op->id == OP_PAD) at[3] = val_int(-1), nat = 4;   /* constant padding: filled with -1, "from no element" */
  dx[0] = keep(opat(OP_SCATTER_GRAD, 3, in, nat, at));
}
/* TF 2.15's tf.linspace is linspace_nd, built from differentiable ops: start, then start + delta * i
 * (i = 1 .. num-2, delta = (stop - start) / max(num - 1, 1)), then stop, concatenated along axis.  So
 * d start = dy[0] + sum(dy[1:-1]) - sum(dy[1:-1] * i) / steps and d stop = dy[-1] + sum(dy[1:-1] * i) / steps
 * (summed over axis, then over the dims start/stop were broadcast along); num 1 leaves stop zeros. */
static tfs_i64 ls_begin[TFS_MAX_RANK], ls_size[TFS_MAX_RANK];
static Val axis_part(Val dy, int ax, tfs_i64 from, tfs_i64 len) {
  Tensor *t = tn(dy);
  for (int d = 0; d < t->rank; d++) ls_begin[d] = 0, ls_size[d] = t->shape[d];
  ls_begin[ax] = from;
  ls_size[ax] = len;
  Val at[2] = {int_tuple(t->rank, ls_begin), int_tuple(t->rank, ls_size)};
  return opat(OP_SLICE, 1, &dy, 2, at);
}
static void g_linspace(const GradCall *g, Val *dx) {
  Tensor *t = tn(DY);
  if (!static_shape(DY)) rt_throw(ERR_UNIMPLEMENTED, "gradient of tf.linspace needs a static shape");
  tfs_i64 axis = attr_int(g, 1, 0);
  int ax = (int)(axis < 0 ? axis + t->rank : axis), one[1] = {ax};
  tfs_i64 n = t->shape[ax], steps = n - 1 > 1 ? n - 1 : 1;
  Val ds = reduce_sum(axis_part(DY, ax, 0, n > 0 ? 1 : 0), 1, one, false);
  Val de = n > 1 ? reduce_sum(axis_part(DY, ax, n - 1, 1), 1, one, false) : zeros_like(ds);
  if (n > 2) {
    Val mid = axis_part(DY, ax, 1, n - 2);
    tfs_i64 rshape[TFS_MAX_RANK];
    for (int d = 0; d < t->rank; d++) rshape[d] = d == ax ? n - 2 : 1;
    Tensor *rt = tensor_new(t->dtype, t->rank, rshape);   /* i = 1 .. num-2 along axis */
    for (tfs_i64 i = 0; i < n - 2; i++) {
      if (t->dtype == DT_FLOAT32) ((float *)tensor_data(rt))[i] = (float)(i + 1);
      else ((double *)tensor_data(rt))[i] = (double)(i + 1);
    }
    Val r = T(val_obj(rt));
    Val dd = dv(reduce_sum(mul(mid, r), 1, one, false), fconst((double)steps));
    ds = sub(add(ds, reduce_sum(mid, 1, one, false)), dd);
    de = add(de, dd);
  }
  dx[0] = keep(unbroadcast(ds, X0));
  dx[1] = keep(unbroadcast(de, X1));
}
/* _ScatterGrad is linear in dy: its gradient is the selecting op again, on the incoming gradient
 * (TF: the gradient of UnsortedSegmentSum/ScatterNd is a gather).  A constant pad's fill came from no
 * element of x, so the forward pad runs with 0 there. */
static void g_scatter_grad(const GradCall *g, Val *dx) {
  OpId fop = (OpId)attr_int(g, 0, OP_STRIDED_SLICE);
  Val in[2] = {DY, g->nin > 2 ? g->in[2] : val_none()};
  int nin = fop == OP_GATHER || fop == OP_GATHER_ND ? 2 : 1;
  Val at[3];
  int nat = g->attrs->n - 1 < 3 ? g->attrs->n - 1 : 3;
  for (int i = 0; i < nat; i++) at[i] = g->attrs->v[i + 1];
  if (fop == OP_PAD && nat == 3) at[2] = val_int(0);
  dx[1] = keep(opat(fop, nin, in, nat, at));
}
/* TF's _SignGrad: zeros, not None. */
static void g_sign(const GradCall *g, Val *dx) { dx[0] = keep(zeros_like(X0)); }
static void g_dropout(const GradCall *g, Val *dx) {
  /* kept elements were scaled by 1 / (1 - rate): y / x where x != 0 */
  double rate = 0;
  if (g->attrs->n > 0) val_as_float(g->attrs->v[0], &rate);
  Val kept = op2(OP_NOT_EQUAL, Y0, fconst(0));
  dx[0] = keep(where(kept, mul(DY, fconst(1.0 / (1.0 - rate))), zeros_like(DY)));
}

/* RandomGamma / StatelessRandomGammaV2 (TF's random_grad.py): alpha, with unit dimensions in front for the sample
 * dimensions, through RandomGammaGrad (the implicit-reparameterization derivative of each draw), times dy, summed over
 * the sample dimensions */
static void g_random_gamma(const GradCall *g, Val *dx) {
  int ai = g->op->id == OP_STATELESS_GAMMA ? 1 : 0;
  Val alpha = g->in[ai];
  int k = rank_of(Y0) - rank_of(alpha);
  if (rank_of(Y0) < 0 || rank_of(alpha) < 0) rt_throw(ERR_UNIMPLEMENTED, "gradient of %s of unknown rank", g->op->graph_name);
  Val ab = alpha;
  for (int i = 0; i < k; i++) {
    Val at[1] = {val_int(0)};
    ab = opat(OP_EXPAND_DIMS, 1, &ab, 1, at);
  }
  Val part = op2(OP_RANDOM_GAMMA_GRAD, ab, Y0);
  int axes[TFS_MAX_RANK];
  for (int i = 0; i < k; i++) axes[i] = i;
  dx[ai] = keep(k ? reduce_sum(mul(DY, part), k, axes, false) : mul(DY, part));
}

/* ---- TensorList ops (k_list.c), as TF's list_grad.py: a list's gradient is a list of its elements' ---- */

/* element_shape and element_dtype attributes for reading elements shaped like x (None when not static). */
static void tl_elem_attrs(Val x, int skip, Val *at) {
  Tensor *t = tn(x);
  bool known = t->rank >= skip;
  for (int d = skip; known && d < t->rank; d++) known = t->shape[d] >= 0;
  at[0] = known ? int_tuple(t->rank - skip, t->shape + skip) : val_none();
  at[1] = dtype_val(t->dtype);
}
static void g_tl_set_item(const GradCall *g, Val *dx) {
  Val at[2];
  tl_elem_attrs(g->in[2], 0, at);
  Val in[2] = {DY, X1};
  dx[2] = keep(opat(OP_TL_GET_ITEM, 2, in, 2, at));
  Val in3[3] = {DY, X1, zeros_like(g->in[2])};
  Val rs[1] = {val_bool(true)};
  Val dl = opat(OP_TL_SET_ITEM, 3, in3, 1, rs);
  if (attr_bool(g, 0)) {   /* the write may have grown the list: the input's gradient has the input's length */
    Val in2[2] = {dl, op1(OP_TL_LENGTH, X0)};
    dl = opat(OP_TL_RESIZE, 2, in2, 0, NULL);
  }
  dx[0] = keep(dl);
}
static void g_tl_get_item(const GradCall *g, Val *dx) {
  Val in[3] = {zeros_like(X0), X1, DY};
  Val rs[1] = {val_bool(false)};
  dx[0] = keep(opat(OP_TL_SET_ITEM, 3, in, 1, rs));
}
static void g_tl_stack(const GradCall *g, Val *dx) {
  Val at[1] = {g->attrs->n > 0 ? g->attrs->v[0] : val_none()};
  dx[0] = keep(opat(OP_TL_FROM_TENSOR, 1, &DY, 1, at));
}
static void g_tl_from_tensor(const GradCall *g, Val *dx) {
  Val at[3];
  tl_elem_attrs(X0, 1, at);
  at[2] = val_int(-1);
  dx[0] = keep(opat(OP_TL_STACK, 1, &DY, 3, at));
}
static void g_tl_gather(const GradCall *g, Val *dx) {
  Val in[3] = {zeros_like(X0), DY, X1};
  dx[0] = keep(opat(OP_TL_SCATTER, 3, in, 0, NULL));
}
static void g_tl_scatter(const GradCall *g, Val *dx) {
  Val at[2];
  tl_elem_attrs(X1, 1, at);
  Val in[2] = {DY, g->in[2]};
  dx[1] = keep(opat(OP_TL_GATHER, 2, in, 2, at));
  Val in3[3] = {DY, zeros_like(X1), g->in[2]};
  dx[0] = keep(opat(OP_TL_SCATTER, 3, in3, 0, NULL));
}
static void g_tl_concat(const GradCall *g, Val *dx) {
  Val in[2] = {X0, DY};
  dx[0] = keep(opat(OP_TL_CONCAT_GRAD, 2, in, 0, NULL));
}
static void g_tl_resize(const GradCall *g, Val *dx) {
  Val in[2] = {DY, op1(OP_TL_LENGTH, X0)};
  dx[0] = keep(opat(OP_TL_RESIZE, 2, in, 0, NULL));
}
static void g_tl_add(const GradCall *g, Val *dx) {
  dx[0] = keep(DY);
  dx[1] = keep(DY);
}

/* ---- core API additions (issue 31) ---- */
#define TWO_OVER_SQRT_PI 1.1283791670955126
static void g_expm1(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_EXP, conj_(X0)))); }
static void g_erf(const GradCall *g, Val *dx) {
  dx[0] = keep(mul(DY, mul(fconst(TWO_OVER_SQRT_PI), op1(OP_EXP, neg(mul(X0, X0))))));
}
static void g_erfc(const GradCall *g, Val *dx) {
  dx[0] = keep(mul(DY, mul(fconst(-TWO_OVER_SQRT_PI), op1(OP_EXP, neg(mul(X0, X0))))));
}
static void g_lgamma(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_DIGAMMA, X0))); }
/* the trigonometric and hyperbolic family as TF's math_grad.py forms them (asinh/acosh from the output) */
static void g_tan(const GradCall *g, Val *dx) {
  Val sec = op1(OP_RECIPROCAL, op1(OP_COS, X0));
  dx[0] = keep(mul(DY, mul(sec, sec)));
}
static Val inv_sqrt_1mx2(Val x) { return op1(OP_RECIPROCAL, op1(OP_SQRT, sub(fconst(1), mul(x, x)))); }
static void g_asin(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, inv_sqrt_1mx2(X0))); }
static void g_acos(const GradCall *g, Val *dx) { dx[0] = keep(neg(mul(DY, inv_sqrt_1mx2(X0)))); }
static void g_atan(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_RECIPROCAL, add(fconst(1), mul(X0, X0))))); }
static void g_sinh(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_COSH, X0))); }
static void g_cosh(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_SINH, X0))); }
static void g_asinh(const GradCall *g, Val *dx) { dx[0] = keep(dv(DY, op1(OP_COSH, Y0))); }
static void g_acosh(const GradCall *g, Val *dx) { dx[0] = keep(dv(DY, op1(OP_SINH, Y0))); }
static void g_atanh(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_RECIPROCAL, sub(fconst(1), mul(X0, X0))))); }
/* numpy's log10, log2, exp2, cbrt (tfs ops of their own): their derivatives, so a tape through them works */
static void g_np_log10(const GradCall *g, Val *dx) { dx[0] = keep(dv(DY, mul(X0, fconst(2.302585092994045684017991454684364)))); }
static void g_np_log2(const GradCall *g, Val *dx) { dx[0] = keep(dv(DY, mul(X0, fconst(0.693147180559945309417232121458177)))); }
static void g_np_exp2(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, mul(Y0, fconst(0.693147180559945309417232121458177)))); }
static void g_np_cbrt(const GradCall *g, Val *dx) { dx[0] = keep(dv(DY, mul(fconst(3), mul(Y0, Y0)))); }
/* atan2(y, x): dy * x / (x^2 + y^2) for y, -dy * y / (x^2 + y^2) for x */
static void g_atan2(const GradCall *g, Val *dx) {
  Val inv = dv(DY, add(mul(X1, X1), mul(X0, X0)));
  dx[0] = keep(unbroadcast(mul(X1, inv), X0));
  dx[1] = keep(unbroadcast(neg(mul(X0, inv)), X1));
}
/* ---- tf.signal's FFTs (TF's fft_ops.py gradients; the RFFT/IRFFT ones for the op's padding/cropping to fft_length:
 * the part of dx beyond what the transform read is zero, missing input is sliced off) ---- */
static tfs_i64 fft_last(Val v, const char *what) {
  Tensor *t = tn(v);
  if (!t || t->rank < 1 || t->shape[t->rank - 1] < 0)
    rt_throw(ERR_UNIMPLEMENTED, "gradient of %s needs the innermost dimension known while tracing", what);
  return t->shape[t->rank - 1];
}
/* x's innermost axis cut or zero-padded to length len */
static Val fit_last(Val x, tfs_i64 len) {
  tfs_i64 have = fft_last(x, "an FFT");
  if (have == len) return x;
  if (have > len) return cols(x, 0, len);
  /* PadV2 takes no complex tensors: pad the parts */
  if (is_cplx(x)) return cplx(fit_last(op1(OP_REAL, x), len), fit_last(op1(OP_IMAG, x), len));
  int r = rank_of(x);
  Val pads = T(tuple_new(r));
  for (int i = 0; i < r; i++) {
    tfs_i64 pr[2] = {0, i == r - 1 ? len - have : 0};
    ((Tuple *)pads.u.o)->items[i] = val_incref(int_tuple(2, pr));
  }
  Val at[3] = {pads, T(str_new("CONSTANT", 8)), val_int(0)};
  return opat(OP_PAD, 1, &x, 3, at);
}
/* the transform length n of an RFFT/IRFFT node: its fft_length, else as the op inferred it */
static tfs_i64 fft_n(const GradCall *g) {
  Val v = g->attrs->n > 0 ? g->attrs->v[0] : val_none();
  tfs_i64 cnt;
  const Val *items;
  int64_t x;
  if (seq_items(v, &cnt, &items) && cnt == 1 && val_as_int(items[0], &x)) return x;
  Tensor *t = v.tag == VT_NONE || val_is_undef(v) ? NULL : val_as_tensor(v);
  if (t && !t->sym && t->size == 1) return tensor_get_i(t, 0);
  tfs_i64 l = fft_last(X0, g->op->graph_name);
  return g->op->id == OP_RFFT ? l : (l > 1 ? 2 * (l - 1) : 0);
}
static Val fft_len_attr(tfs_i64 n) { return int_tuple(1, &n); }
static void g_fft(const GradCall *g, Val *dx) {
  tfs_i64 n = fft_last(DY, g->op->graph_name);
  bool fwd = g->op->id == OP_FFT;
  dx[0] = keep(mul(op1(fwd ? OP_IFFT : OP_FFT, DY), fconst(fwd ? (double)n : 1.0 / (double)(n ? n : 1))));
}
/* RFFT: 0.5 * (irfft(dy, n) * n + real(dy[..., :1] + [n even] * dy[..., -1:] * [1, -1, 1, ...])) */
static void g_rfft(const GradCall *g, Val *dx) {
  tfs_i64 n = fft_n(g), m = fft_last(DY, "RFFT");
  Val at[1] = {fft_len_attr(n)};
  Val irf = mul(opat(OP_IRFFT, 1, &DY, 1, at), fconst((double)n));
  Val extra = op1(OP_REAL, cols(DY, 0, 1));
  if (n % 2 == 0 && m > 0) {
    Val ym = T(tuple_new(n));
    for (tfs_i64 k = 0; k < n; k++) ((Tuple *)ym.u.o)->items[k] = val_float(k % 2 ? -1.0 : 1.0);
    extra = add(extra, mul(op1(OP_REAL, cols(DY, m - 1, 1)), ym));
  }
  dx[0] = keep(fit_last(mul(add(irf, extra), fconst(0.5)), fft_last(X0, "RFFT")));
}
/* IRFFT: rfft(dy, n) * [1, 2, ..., 2, (1 when n is even)] / n */
static void g_irfft(const GradCall *g, Val *dx) {
  tfs_i64 n = fft_n(g), m = n / 2 + 1;
  Val at[1] = {fft_len_attr(n)};
  Val rf = opat(OP_RFFT, 1, &DY, 1, at);
  Val mask = T(tuple_new(m));
  for (tfs_i64 k = 0; k < m; k++)
    ((Tuple *)mask.u.o)->items[k] = val_float((k == 0 || (n % 2 == 0 && k == m - 1) ? 1.0 : 2.0) / (double)n);
  dx[0] = keep(fit_last(mul(rf, cast_to(T(op_apply1(OP_IDENTITY, mask)), DT_COMPLEX64)), fft_last(X0, "IRFFT")));
}
static void g_digamma(const GradCall *g, Val *dx) { dx[0] = keep(mul(DY, op1(OP_TRIGAMMA, X0))); }
static void g_selu(const GradCall *g, Val *dx) {
  /* TF's SeluGrad from the output: scale where y > 0, y + scale * alpha elsewhere */
  Val neg_part = add(Y0, fconst(1.0507009873554804934193349852946 * 1.6732632423543772848170429916717));
  dx[0] = keep(where(op2(OP_GREATER, Y0, fconst(0)), mul(DY, fconst(1.0507009873554804934193349852946)), mul(DY, neg_part)));
}

static void g_cumulative(const GradCall *g, Val *dx) {
  /* TF's _CumsumGrad/_CumprodGrad: the scan of dy run the other way (cumprod: of y * dy, divided by x) */
  bool excl = attr_bool(g, 1), rev = attr_bool(g, 2);
  Val at[3] = {val_int(attr_int(g, 0, 0)), val_bool(excl), val_bool(!rev)};
  if (g->op->id == OP_CUMSUM) {
    dx[0] = keep(opat(OP_CUMSUM, 1, &DY, 3, at));
    return;
  }
  Val s = mul(Y0, DY);
  dx[0] = keep(dv(opat(OP_CUMSUM, 1, &s, 3, at), X0));
}
static Val gather_nd(Val params, Val idx) {
  Val in[2] = {params, idx};
  Val at[1] = {val_int(0)};
  return opat(OP_GATHER_ND, 2, in, 1, at);
}
static Val tscatter(OpId id, Val t, Val idx, Val u) {
  Val in[3] = {t, idx, u};
  return opat(id, 3, in, 0, NULL);
}
static Val reshape_to(Val x, int n, const tfs_i64 *dims) {
  Val at[1] = {int_tuple(n, dims)};
  return opat(OP_RESHAPE, 1, &x, 1, at);
}
static void g_top_k(const GradCall *g, Val *dx) {
  /* TF's _TopKGrad with static shapes: dy scattered into the flattened x at row * n + index (TF's own ops, so a
   * GraphDef of the gradient stays TF's); unknown shapes use the gradient-only kernel */
  Tensor *x = tn(X0), *ix = tn(g->out[1]);
  if (!static_shape(X0) || !static_shape(g->out[1]) || x->rank < 1) {
    Val in[3] = {X0, g->out[1], DY};
    dx[0] = keep(opat(OP_TOP_K_GRAD, 3, in, 0, NULL));
    return;
  }
  tfs_i64 n = x->shape[x->rank - 1], k = ix->shape[ix->rank - 1], rows = n ? x->size / n : 0;
  tfs_i64 rk[2] = {rows, k}, flat[2] = {rows * k, 1}, all[1] = {rows * k}, xs[1] = {x->size}, one[2] = {rows, 1};
  Tensor *off = tensor_new(ix->dtype, 2, one);
  for (tfs_i64 r = 0; r < rows; r++) {
    if (ix->dtype == DT_INT32) ((int32_t *)tensor_data(off))[r] = (int32_t)(r * n);
    else ((int64_t *)tensor_data(off))[r] = r * n;
  }
  Val offv = T(val_obj(off));
  Val idx = reshape_to(add(reshape_to(g->out[1], 2, rk), offv), 2, flat);
  Val zeros = opat(OP_ZEROS, 0, NULL, 2, (Val[]){int_tuple(1, xs), T(dtype_val(tn(DY)->dtype))});
  Val sc = tscatter(OP_TENSOR_SCATTER_ADD, zeros, idx, reshape_to(DY, 1, all));
  dx[0] = keep(reshape_to(sc, x->rank, x->shape));
}
static void g_tensor_scatter(const GradCall *g, Val *dx) {
  Val idx = X1, x = X0, y = g->in[2];
  switch (g->op->id) {
    case OP_TENSOR_SCATTER_UPDATE:
      dx[0] = keep(tscatter(OP_TENSOR_SCATTER_UPDATE, DY, idx, zeros_like(y)));
      dx[2] = keep(gather_nd(DY, idx));
      return;
    case OP_TENSOR_SCATTER_ADD: dx[0] = keep(DY); dx[2] = keep(gather_nd(DY, idx)); return;
    case OP_TENSOR_SCATTER_SUB: dx[0] = keep(DY); dx[2] = keep(neg(gather_nd(DY, idx))); return;
    default: {
      /* TF's _TensorScatterMinOrMaxGrad: dy shared among the entries equal to the result */
      DType dt = tn(x)->dtype;
      Val dtv = T(dtype_val(dt));
      Val xi = opat(OP_CAST, 1, (Val[]){op2(OP_EQUAL, x, Y0)}, 1, &dtv);
      Val yi = opat(OP_CAST, 1, (Val[]){op2(OP_EQUAL, y, gather_nd(Y0, idx))}, 1, &dtv);
      Val count = add(xi, tscatter(OP_TENSOR_SCATTER_ADD, zeros_like(x), idx, yi));
      dx[0] = keep(dv(mul(DY, xi), count));
      dx[2] = keep(mul(gather_nd(dv(DY, count), idx), yi));
      return;
    }
  }
}

/* ---- collectives (§18.3): TF's gradients of ReplicaContext.all_reduce / all_gather and Horovod's broadcast ---- */
static Val coll(OpId id, Val x, tfs_i64 attr) {
  Val at[1] = {val_int(attr)};
  return opat(id, 1, &x, 1, at);
}
/* The gradient of an all-sum is an all-sum of the incoming gradients (an all-mean, likewise), in one fused
 * collective; TF defines none for min, max and product. */
static void g_coll_reduce(const GradCall *g, Val *dx) {
  tfs_i64 op = attr_int(g, 0, DIST_SUM);
  if (op != DIST_SUM && op != DIST_MEAN)
    rt_throw(ERR_NOTIMPL, "the gradient of an all-reduce is defined for Sum and Average only, not %s",
             op == DIST_MIN ? "Min" : op == DIST_MAX ? "Max" : "Product");
  Val l = T(list_new(g->nout));
  for (int i = 0; i < g->nout; i++) list_append(l, g->dy[i]);
  Val r = T(op_apply(&op_defs[OP_COLL_REDUCE], g->nout, ((List *)l.u.o)->items, g->attrs));
  for (int i = 0; i < g->nin; i++) dx[i] = keep(((List *)r.u.o)->items[i]);
}
/* All-gather: the all-summed gradient, this rank's rows of it (TF's all_gather grad). The offset comes from
 * gathering each row's rank, so it works with unknown and uneven sizes along the axis. */
static void g_coll_gather(const GradCall *g, Val *dx) {
  int r = rank_of(X0), axis = (int)attr_int(g, 0, 0), others[TFS_MAX_RANK], n = 0;
  if (axis < 0) axis += r;
  for (int d = 0; d < r; d++)
    if (d != axis) others[n++] = d;
  Val full = coll(OP_COLL_REDUCE, DY, DIST_SUM);
  full = ((List *)full.u.o)->items[0];
  Val rows = n ? reduce_sum(zeros_like(X0), n, others, false) : zeros_like(X0);   /* [n_local] */
  Val me = fconst(dist_rank());
  Val ids = coll(OP_COLL_GATHER, add(rows, me), 0);   /* each gathered row's rank */
  int ax0[1] = {0};
  Val before = reduce_sum(cast_to(op2(OP_LESS, ids, me), tn(rows)->dtype), 1, ax0, false);
  Val at[1] = {val_int(0)};
  Val pos = sub(add(opat(OP_CUMSUM, 1, (Val[]){op1(OP_ONES_LIKE, rows)}, 1, at), before), fconst(1));
  Val gat[3] = {val_none(), val_int(axis), val_int(0)};
  dx[0] = keep(opat(OP_GATHER, 2, (Val[]){full, cast_to(pos, DT_INT32)}, 3, gat));
}
/* ImageProjectiveTransformV3: the incoming gradient sent through the inverse transforms, filling with 0
 * (TF's _image_projective_transform_v3_grad: an approximation of the adjoint, as TF's); the transforms get none. */
static void g_proj_transform(const GradCall *g, Val *dx) {
  if (!dtype_info[tn(X0)->dtype].is_float || rank_of(X0) != 4) return;
  Val t = g->in[1];
  if (rank_of(t) == 1) t = reshape(t, int_tuple(2, (tfs_i64[]){1, 8}));
  Val l = T(list_new(2));
  list_append(l, t);
  list_append(l, op1(OP_ONES_LIKE, cols(t, 0, 1)));
  Val cat[1] = {val_int(1)};
  Val m = reshape(opat(OP_CONCAT, 1, &l, 1, cat), int_tuple(3, (tfs_i64[]){-1, 3, 3}));
  Val noadj[1] = {val_bool(false)};
  Val flat = reshape(opat(OP_MATRIX_INVERSE, 1, &m, 1, noadj), int_tuple(2, (tfs_i64[]){-1, 9}));
  Val inv = cols(dv(flat, cols(flat, 8, 1)), 0, 8);
  Val hw = static_shape(X0) ? int_tuple(2, (tfs_i64[]){tn(X0)->shape[1], tn(X0)->shape[2]}) : g->attrs->v[0];
  Val in[2] = {DY, inv}, at[4] = {hw, fconst(0.0), g->attrs->v[2], g->attrs->v[3]};
  dx[0] = keep(opat(OP_PROJ_TRANSFORM, 2, in, 4, at));
}

/* ---- tf.py_function ----------------------------------------------------------------------
 * TF's _EagerPyFuncGrad replays the tape the host function's first run recorded; here the
 * gradient op (another EagerPyFunc, so it runs in graphs too) runs the function again under a
 * tape of its own: the same values for a function without random draws or side effects. */

static void pyfunc_tape_pop(void *t) { tape_pop(t); }

/* self: (func, input dtypes); args: the forward inputs, then one incoming gradient per output.
 * Returns the gradient of each floating input. */
static Val pyfunc_grad_call(Val self, int n, const Val *args, const Kw *kw) {
  (void)kw;
  Tuple *st = (Tuple *)self.u.o;
  Val func = st->items[0];
  int nin = (int)((Tuple *)st->items[1].u.o)->len;
  Val tv = tape_new(false, false);
  int mark = rt_hold_val(tv);
  Tape *t = (Tape *)tv.u.o;
  Val *src = malloc(sizeof(Val) * (size_t)(nin + 1));
  int nsrc = 0;
  if (!src) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(src);
  for (int i = 0; i < nin; i++) {
    Tensor *x = val_as_tensor(args[i]);
    if (x && dtype_info[x->dtype].is_float) src[nsrc++] = args[i];
  }
  tape_push(t);
  rt_hold_fn(pyfunc_tape_pop, t);   /* the function raising leaves no tape recording */
  for (int i = 0; i < nsrc; i++) tape_watch(t, src[i]);
  Val r = rt_call(func, nin, args, NULL);
  tape_pop(t);
  rt_hold_val(r);
  tfs_i64 nt = 1;
  const Val *targets = &r;
  if (!val_as_tensor(r) && !seq_items(r, &nt, &targets)) nt = 0;
  if (nt > n - nin) nt = n - nin;
  Val *out = calloc((size_t)nsrc + 1, sizeof(Val));
  if (!out) rt_throw(ERR_MEMORY, "out of memory");
  rt_hold_mem(out);
  tape_gradient(t, (int)nt, targets, args + nin, nsrc, src, false, out);
  /* an unconnected input's gradient is a scalar zero (TF's EagerFunc._convert of None in a gradient function) */
  for (int i = 0; i < nsrc; i++)
    if (out[i].tag == VT_NONE) out[i] = val_obj(tensor_from_val(val_int(0), val_as_tensor(src[i])->dtype));
  Val l = list_new(nsrc);
  for (int i = 0; i < nsrc; i++) ((List *)l.u.o)->items[i] = out[i];
  ((List *)l.u.o)->len = nsrc;
  rt_unhold(mark);
  val_decref(r);
  free(out);
  free(src);
  val_decref(tv);
  return l;
}

static void g_py_func(const GradCall *g, Val *dx) {
  /* numpy_function (TF's PyFunc) is not differentiable: no gradient flows, as in TF */
  if (g->attrs->n > 2 && g->attrs->v[2].tag == VT_BOOL && !g->attrs->v[2].u.i) return;
  Val dts = T(tuple_new(g->nin));
  Val fl = T(list_new(0));
  for (int i = 0; i < g->nin; i++) {
    Tensor *x = tn(g->in[i]);
    ((Tuple *)dts.u.o)->items[i] = val_incref(dtype_val(x->dtype));
    if (dtype_info[x->dtype].is_float) list_append(fl, dtype_val(x->dtype));
  }
  if (!((List *)fl.u.o)->len) return;
  Val self = T(tuple_new(2));
  ((Tuple *)self.u.o)->items[0] = val_incref(g->attrs->v[0]);
  ((Tuple *)self.u.o)->items[1] = val_incref(dts);
  Val fn = T(builtin_new("py_function_grad", pyfunc_grad_call, self, NULL));
  Val *in = malloc(sizeof(Val) * (size_t)(g->nin + g->nout));
  if (!in) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < g->nin; i++) in[i] = g->in[i];
  for (int k = 0; k < g->nout; k++) in[g->nin + k] = val_is_undef(g->dy[k]) ? zeros_like(g->out[k]) : g->dy[k];
  Val at[3] = {fn, fl, val_bool(true)};
  Val r = opat(OP_PY_FUNC, g->nin + g->nout, in, 3, at);
  free(in);
  int k = 0;
  for (int i = 0; i < g->nin; i++)
    if (dtype_info[tn(g->in[i])->dtype].is_float) dx[i] = keep(((List *)r.u.o)->items[k++]);
}

/* Broadcast: the all-summed gradient on the root, zero elsewhere (Horovod's broadcast grad). */
static void g_coll_bcast(const GradCall *g, Val *dx) {
  Val full = ((List *)coll(OP_COLL_REDUCE, DY, DIST_SUM).u.o)->items[0];
  dx[0] = keep(dist_rank() == attr_int(g, 0, 0) ? full : zeros_like(full));
}

/* ---- sparse components (k_sparse.c) ---- */
static Val gather_axis(Val params, Val idx, tfs_i64 axis) {
  Val at[3] = {val_none(), val_int(axis), val_int(0)};
  return opat(OP_GATHER, 2, (Val[]){params, idx}, 3, at);
}

/* SparseTensorDenseMatMul (TF's sparse_grad.py): b gets op(A)^H dy (B's adjoint undone); value i, at (m, k) of op(A),
 * gets dy[m] . op(B)[k]; the indices and the shape none. */
static void g_sparse_matmul(const GradCall *g, Val *dx) {
  bool adj_a = attr_bool(g, 0), adj_b = attr_bool(g, 1);
  Val ind = g->in[0], b = g->in[3];
  Val at[2] = {val_bool(!adj_a), val_bool(false)};
  Val bg = opat(OP_SPARSE_DENSE_MATMUL, 4, (Val[]){ind, g->in[1], g->in[2], DY}, 2, at);
  static const tfs_i64 swap[2] = {1, 0};
  dx[3] = keep(adj_b ? transpose_perm(bg, 2, swap) : bg);
  Val rows = gather_axis(ind, val_int(0), 1), cols = gather_axis(ind, val_int(1), 1);
  Val pa = gather_axis(DY, adj_a ? cols : rows, 0);
  Val pb = gather_axis(adj_b ? transpose_perm(b, 2, swap) : b, adj_a ? rows : cols, 0);
  int one = 1;
  dx[1] = keep(reduce_sum(mul(pa, pb), 1, &one, false));
}

/* SparseToDense (TF's sparse_grad.py): the values get dy at their indices, the default value the rest of dy's sum */
static void g_sparse_to_dense(const GradCall *g, Val *dx) {
  if (rank_of(g->in[2]) != 1) rt_throw(ERR_UNIMPLEMENTED, "gradient of SparseToDense with one scalar value");
  Val vg = gather_nd(DY, g->in[0]);
  dx[2] = keep(vg);
  Val all[2] = {val_none(), val_bool(false)};
  dx[3] = keep(sub(opat(OP_SUM, 1, &DY, 2, all), opat(OP_SUM, 1, &vg, 2, all)));
}

/* SparseReorder: the values' gradient put back in the input order (the reorder of 0..n-1 is the permutation) */
static void g_sparse_reorder(const GradCall *g, Val *dx) {
  if (val_is_undef(g->dy[1])) return;
  Val n = gather_axis(op1(OP_SHAPE, g->in[0]), val_int(0), 0);
  Val ra[4] = {val_int(0), n, val_int(1), dtype_val(DT_INT64)};
  Val pos = opat(OP_RANGE, 0, NULL, 4, ra);
  Val r = opat(OP_SPARSE_REORDER, 3, (Val[]){g->in[0], pos, g->in[2]}, 0, NULL);
  Val perm = ((Tuple *)r.u.o)->items[1];
  Val at[1] = {val_int(1)};
  Val where = opat(OP_EXPAND_DIMS, 1, &perm, 1, at);
  dx[1] = keep(tscatter(OP_TENSOR_SCATTER_ADD, zeros_like(g->in[1]), where, g->dy[1]));
}

/* SparseReduceSum (TF's sparse_grad.py): value i gets dy at its coordinates with the reduced ones dropped, read as
 * gather_nd of dy (shaped with 1 at the reduced axes) at indices // (shape // that shape) */
static void g_sparse_reduce_sum(const GradCall *g, Val *dx) {
  Tensor *shp = tn(g->in[2]);
  int r = shp->rank == 1 ? (int)shp->shape[0] : -1, axes[TFS_MAX_RANK];
  if (r < 0) rt_throw(ERR_UNIMPLEMENTED, "gradient of SparseReduceSum of unknown rank");
  int na = norm_axes(g->in[3], r, axes);
  tfs_i64 keepm[TFS_MAX_RANK], redm[TFS_MAX_RANK];
  for (int d = 0; d < r; d++) keepm[d] = 1, redm[d] = 0;
  for (int i = 0; i < na; i++) keepm[axes[i]] = 0, redm[axes[i]] = 1;
  Val kept = add(mul(g->in[2], int_tuple(r, keepm)), int_tuple(r, redm));
  Val scale = op2(OP_FLOORDIV, g->in[2], kept);
  dx[1] = keep(gather_nd(reshape(DY, kept), op2(OP_FLOORDIV, g->in[0], scale)));
}

/* SparseDenseCwiseMul/Div (TF's sparse_grad.py): each entry read the dense operand at its coordinates on the dense
 * dimensions, each divided by (sparse dim // dense dim) (0 on a broadcast one); the values get dy times (over) what
 * they read, the dense operand the sum of dy * values (Div: dy * -values / dense^2) scattered back to those places */
static void g_sparse_cwise(const GradCall *g, Val *dx) {
  Tensor *shp = tn(g->in[2]);
  int r = shp->rank == 1 ? (int)shp->shape[0] : -1, ry = rank_of(g->in[3]);
  if (r < 0 || ry < 0) rt_throw(ERR_UNIMPLEMENTED, "gradient of %s of unknown rank", g->op->graph_name);
  bool is_mul = g->op->id == OP_SPARSE_DENSE_MUL;
  Val y = g->in[3], vals = g->in[1], dense = y, scaled = val_none();
  if (ry > 0) {
    tfs_i64 dims[TFS_MAX_RANK];
    for (int j = 0; j < ry; j++) dims[j] = r - ry + j;
    Val cols = gather_axis(g->in[0], int_tuple(ry, dims), 1), spd = gather_axis(g->in[2], int_tuple(ry, dims), 0);
    scaled = op2(OP_FLOORDIV, cols, op2(OP_FLOORDIV, spd, cast_to(op1(OP_SHAPE, y), DT_INT64)));
    dense = gather_nd(y, scaled);
  }
  dx[1] = keep(is_mul ? mul(DY, dense) : dv(DY, dense));
  Val dyv = is_mul ? mul(DY, vals) : mul(DY, dv(neg(vals), op1(OP_SQUARE, dense)));
  int zero = 0;
  /* indices can repeat after the scaling: summed, as TF's sparse_add onto zeros */
  dx[3] = keep(ry > 0 ? tscatter(OP_TENSOR_SCATTER_ADD, zeros_like(y), scaled, dyv) : reduce_sum(dyv, 1, &zero, false));
}

/* SparseAdd (TF's sparse_grad.py): SparseAddGrad walks a's and b's indices against the sum's */
static void g_sparse_add(const GradCall *g, Val *dx) {
  if (val_is_undef(g->dy[1])) return;
  Val r = opat(OP_SPARSE_ADD_GRAD, 4, (Val[]){g->dy[1], g->in[0], g->in[3], g->out[0]}, 0, NULL);
  dx[1] = keep(((Tuple *)r.u.o)->items[0]);
  dx[4] = keep(((Tuple *)r.u.o)->items[1]);
}

/* SparseSlice: SparseSliceGrad hands each sliced entry's gradient back to the input entry it came from */
static void g_sparse_slice(const GradCall *g, Val *dx) {
  if (val_is_undef(g->dy[1])) return;
  dx[1] = keep(opat(OP_SPARSE_SLICE_GRAD, 4, (Val[]){g->dy[1], g->in[0], g->in[3], g->out[0]}, 0, NULL));
}

/* SparseFillEmptyRows: SparseFillEmptyRowsGrad reads the values' gradients through reverse_index_map */
static void g_sparse_fill_empty_rows(const GradCall *g, Val *dx) {
  if (val_is_undef(g->dy[1])) return;
  Val r = opat(OP_SPARSE_FILL_EMPTY_ROWS_GRAD, 2, (Val[]){g->out[3], g->dy[1]}, 0, NULL);
  dx[1] = keep(((Tuple *)r.u.o)->items[0]);
  dx[3] = keep(((Tuple *)r.u.o)->items[1]);
}

/* SparseSoftmax (TF's sparse_grad.py): (dy - sum over the row of dy * y) * y, the row sums from SparseReduceSum
 * over the last axis read back at each entry's row */
static void g_sparse_softmax(const GradCall *g, Val *dx) {
  Tensor *ind = tn(g->in[0]);
  int r = ind->rank == 2 ? (int)ind->shape[1] : -1;
  if (r < 1 || r > TFS_MAX_RANK) rt_throw(ERR_UNIMPLEMENTED, "gradient of SparseSoftmax of unknown rank");
  Val y = g->out[0], prod = mul(y, DY);
  Val sums = opat(OP_SPARSE_REDUCE_SUM, 4, (Val[]){g->in[0], prod, g->in[2], val_int(-1)}, 1, (Val[]){val_bool(true)});
  tfs_i64 mask[TFS_MAX_RANK];
  for (int d = 0; d < r; d++) mask[d] = d < r - 1;
  Val rows = gather_nd(sums, mul(g->in[0], int_tuple(r, mask)));
  dx[1] = keep(mul(sub(DY, rows), y));
}

/* SparseSparseMaximum/Minimum: TF registers a gradient that raises */
static void g_sparse_maxmin(const GradCall *g, Val *dx) {
  (void)dx;
  rt_throw(ERR_NOTIMPL, "Gradient for %s is not implemented.", g->op->graph_name);
}

/* SparseSegmentSum/Mean/SqrtN: their Grad ops scatter dy's rows back to data's rows (TF's math_grad.py) */
static void g_sparse_segment(const GradCall *g, Val *dx) {
  OpId gid = g->op->id == OP_SPARSE_SEGMENT_SUM ? OP_SPARSE_SEGMENT_SUM_GRAD
           : g->op->id == OP_SPARSE_SEGMENT_MEAN ? OP_SPARSE_SEGMENT_MEAN_GRAD : OP_SPARSE_SEGMENT_SQRTN_GRAD;
  Tensor *x = tn(X0);
  Val dim0 = x->rank >= 1 && x->shape[0] >= 0 ? val_int(x->shape[0]) : gather_axis(op1(OP_SHAPE, X0), val_int(0), 0);
  dx[0] = keep(opat(gid, 4, (Val[]){DY, g->in[1], g->in[2], dim0}, 0, NULL));
}

void grad_none(const GradCall *g, Val *dx) { (void)g; (void)dx; }

/* Each op's gradient and, beside it, what that gradient reads of the forward op (TF's
 * _ops_which_dont_need_inputs/_outputs): an eager tape keeps only that (tape.c). */
static const struct { GradFn fn; unsigned char drops; } grad_table[OP__COUNT] = {
  [OP_ADD] = {g_add, G_NO_OUT | G_IN_SHAPE}, [OP_SUB] = {g_sub, G_NO_OUT | G_IN_SHAPE}, [OP_MUL] = {g_mul, G_NO_OUT}, [OP_DIV] = {g_div, G_NO_OUT}, [OP_FLOORDIV] = {grad_none, 0},
  [OP_MOD] = {g_mod, G_NO_OUT}, [OP_POW] = {g_pow, 0}, [OP_MAXIMUM] = {g_maxmin, G_NO_OUT}, [OP_MINIMUM] = {g_maxmin, G_NO_OUT}, [OP_SQDIFF] = {g_sqdiff, G_NO_OUT},
  [OP_EXPM1] = {g_expm1, G_NO_OUT}, [OP_ERF] = {g_erf, G_NO_OUT}, [OP_ERFC] = {g_erfc, G_NO_OUT}, [OP_LGAMMA] = {g_lgamma, G_NO_OUT},
  [OP_DIGAMMA] = {g_digamma, G_NO_OUT}, [OP_SELU] = {g_selu, G_NO_IN},
  [OP_TAN] = {g_tan, G_NO_OUT}, [OP_ASIN] = {g_asin, G_NO_OUT}, [OP_ACOS] = {g_acos, G_NO_OUT}, [OP_ATAN] = {g_atan, G_NO_OUT},
  [OP_SINH] = {g_sinh, G_NO_OUT}, [OP_COSH] = {g_cosh, G_NO_OUT}, [OP_ASINH] = {g_asinh, G_NO_IN}, [OP_ACOSH] = {g_acosh, G_NO_IN},
  [OP_ATANH] = {g_atanh, G_NO_OUT}, [OP_FFT] = {g_fft, G_NO_IN | G_NO_OUT}, [OP_IFFT] = {g_fft, G_NO_IN | G_NO_OUT},
  [OP_RFFT] = {g_rfft, G_NO_OUT}, [OP_IRFFT] = {g_irfft, G_NO_OUT}, [OP_ATAN2] = {g_atan2, G_NO_OUT}, [OP_RINT] = {grad_none, 0},
  [OP_NP_LOG10] = {g_np_log10, G_NO_OUT}, [OP_NP_LOG2] = {g_np_log2, G_NO_OUT}, [OP_NP_EXP2] = {g_np_exp2, G_NO_IN}, [OP_NP_CBRT] = {g_np_cbrt, G_NO_IN},
  [OP_CUMSUM] = {g_cumulative, G_NO_IN | G_NO_OUT}, [OP_CUMPROD] = {g_cumulative, 0}, [OP_TOP_K] = {g_top_k, 0},
  [OP_TENSOR_SCATTER_UPDATE] = {g_tensor_scatter, G_NO_OUT}, [OP_TENSOR_SCATTER_ADD] = {g_tensor_scatter, G_NO_OUT},
  [OP_TENSOR_SCATTER_SUB] = {g_tensor_scatter, G_NO_OUT}, [OP_TENSOR_SCATTER_MAX] = {g_tensor_scatter, 0},
  [OP_TENSOR_SCATTER_MIN] = {g_tensor_scatter, 0},
  [OP_UNIQUE] = {grad_none, 0}, [OP_UNIQUE_WITH_COUNTS] = {grad_none, 0}, [OP_LOWER_BOUND] = {grad_none, 0}, [OP_UPPER_BOUND] = {grad_none, 0},
  [OP_NEG] = {g_neg, G_NO_OUT | G_IN_SHAPE}, [OP_ABS] = {g_abs, G_NO_OUT}, [OP_SIGN] = {g_sign, G_NO_OUT | G_IN_SHAPE}, [OP_SQUARE] = {g_square, G_NO_OUT}, [OP_SQRT] = {g_sqrt, G_NO_IN},
  [OP_RSQRT] = {g_rsqrt, G_NO_IN}, [OP_EXP] = {g_exp, G_NO_IN}, [OP_LOG] = {g_log, G_NO_OUT}, [OP_LOG1P] = {g_log1p, G_NO_OUT}, [OP_SIN] = {g_sin, G_NO_OUT}, [OP_COS] = {g_cos, G_NO_OUT},
  [OP_TANH] = {g_tanh, G_NO_IN}, [OP_SIGMOID] = {g_sigmoid, G_NO_IN}, [OP_FLOOR] = {grad_none, 0}, [OP_CEIL] = {grad_none, 0}, [OP_ROUND] = {grad_none, 0},
  [OP_RECIPROCAL] = {g_reciprocal, G_NO_IN}, [OP_SOFTPLUS] = {g_softplus, G_NO_OUT}, [OP_RELU] = {g_relu, G_NO_IN}, [OP_RELU6] = {g_relu6, G_NO_OUT},
  [OP_ELU] = {g_elu, G_NO_IN}, [OP_LEAKY_RELU] = {g_leaky_relu, G_NO_OUT}, [OP_GELU] = {g_gelu, 0}, [OP_CAST] = {g_cast, G_NO_OUT | G_IN_SHAPE},
  [OP_COMPLEX] = {g_complex, G_NO_OUT | G_IN_SHAPE}, [OP_REAL] = {g_complex_part, G_NO_OUT}, [OP_IMAG] = {g_complex_part, G_NO_OUT},
  [OP_CONJ] = {g_complex_part, G_NO_OUT}, [OP_ANGLE] = {g_complex_part, G_NO_OUT}, [OP_SELECT] = {g_select, G_NO_OUT},
  [OP_CLIP] = {g_clip, G_NO_OUT}, [OP_ADD_N] = {g_add_n, G_NO_OUT | G_IN_SHAPE},
  [OP_SUM] = {g_sum, G_NO_OUT | G_IN_SHAPE}, [OP_MEAN] = {g_mean, G_NO_OUT | G_IN_SHAPE}, [OP_MAX] = {g_maxmin_reduce, 0}, [OP_MIN] = {g_maxmin_reduce, 0}, [OP_PROD] = {g_prod, 0},
  [OP_LOGSUMEXP] = {g_logsumexp, 0}, [OP_SOFTMAX] = {g_softmax, G_NO_IN}, [OP_LOG_SOFTMAX] = {g_log_softmax, G_NO_IN},
  [OP_SPARSE_XENT] = {g_sparse_xent, G_NO_OUT}, [OP_XENT] = {g_xent, G_NO_OUT}, [OP_NORM] = {g_norm, 0},
  [OP_MATMUL] = {g_matmul, G_NO_OUT},
  [OP_MATRIX_INVERSE] = {g_matrix_inverse, G_NO_IN}, [OP_MATRIX_DETERMINANT] = {g_matrix_determinant, 0}, [OP_LOG_MATRIX_DETERMINANT] = {g_log_matrix_determinant, G_NO_OUT},
  [OP_MATRIX_SOLVE] = {g_matrix_solve, 0}, [OP_TRIANGULAR_SOLVE] = {g_triangular_solve, 0}, [OP_CHOLESKY] = {g_cholesky, G_NO_IN},
  [OP_QR] = {g_qr, 0}, [OP_SELF_ADJOINT_EIG] = {g_self_adjoint_eig, G_NO_IN}, [OP_EIG] = {g_eig, 0}, [OP_SVD] = {g_svd, 0},
  [OP_LU] = {g_lu, G_NO_IN}, [OP_MATRIX_SQRT] = {g_matrix_sqrt, G_NO_IN},
  [OP_BAND_PART] = {g_band_part, G_NO_OUT | G_IN_SHAPE}, [OP_DIAG_PART] = {g_diag_part, G_NO_OUT | G_IN_SHAPE}, [OP_TRANSPOSE] = {g_transpose, G_NO_OUT | G_IN_SHAPE}, [OP_BIAS_ADD] = {g_bias_add, G_NO_OUT | G_IN_SHAPE}, [OP_CONV2D] = {g_conv2d, G_NO_OUT}, [OP_CONV3D] = {g_conv3d, G_NO_OUT}, [OP_MAX_POOL3D] = {g_pool3d, G_NO_OUT}, [OP_AVG_POOL3D] = {g_pool3d, G_NO_OUT}, [OP_CONV2D_BP_INPUT] = {g_conv_bp_input, G_NO_OUT}, [OP_CONV3D_BP_INPUT] = {g_conv_bp_input, G_NO_OUT}, [OP_MAX_POOL] = {g_max_pool, G_NO_OUT}, [OP_DEPTHWISE] = {g_depthwise, G_NO_OUT},
  [OP_RESIZE_BILINEAR] = {g_resize, G_NO_OUT}, [OP_RESIZE_BICUBIC] = {g_resize, G_NO_OUT}, [OP_RESIZE_NEAREST] = {g_resize, G_NO_OUT}, [OP_SCALE_TRANSLATE] = {g_resize, G_NO_OUT},
  [OP_RESHAPE] = {g_reshape, G_NO_OUT | G_IN_SHAPE}, [OP_EXPAND_DIMS] = {g_reshape, G_NO_OUT | G_IN_SHAPE}, [OP_SQUEEZE] = {g_reshape, G_NO_OUT | G_IN_SHAPE}, [OP_IDENTITY] = {g_identity, G_NO_OUT | G_IN_SHAPE}, [OP_ENSURE_SHAPE] = {g_identity, G_NO_OUT | G_IN_SHAPE},
  [OP_CONCAT] = {g_concat, G_NO_OUT | G_IN_SHAPE}, [OP_STACK] = {g_stack, 0}, [OP_UNSTACK] = {g_unstack, 0}, [OP_LSTM_SEQ] = {g_lstm_seq, G_DY_UNDEF}, [OP_GRU_SEQ] = {g_gru_seq, G_DY_UNDEF}, [OP_SRNN_SEQ] = {g_srnn_seq, G_DY_UNDEF}, [OP_BNORM_TRAIN] = {g_bnorm, 0}, [OP_TILE] = {g_tile, 0}, [OP_LINSPACE] = {g_linspace, G_NO_OUT},
  [OP_BROADCAST_TO] = {g_broadcast_to, G_NO_OUT | G_IN_SHAPE}, [OP_SUM_TO] = {g_sum_to, G_NO_OUT}, [OP_STRIDED_SLICE] = {g_scatter, 0}, [OP_SLICE] = {g_scatter, 0}, [OP_GATHER] = {g_scatter, 0}, [OP_GATHER_ND] = {g_scatter, 0}, [OP_PAD] = {g_scatter, 0}, [OP_READ_VARIABLE] = {g_identity, 0}, [OP_STOP_GRADIENT] = {grad_none, 0},
  [OP_ZEROS_LIKE] = {grad_none, 0}, [OP_ONES_LIKE] = {grad_none, 0}, [OP_STACK_PUSH] = {grad_none, 0}, [OP_STACK_SIZE] = {grad_none, 0}, [OP_STACK_GET] = {grad_none, 0}, [OP_RNG_STATE] = {grad_none, 0}, [OP_RNG_SWAP] = {grad_none, 0}, [OP_DROPOUT] = {g_dropout, 0}, [OP_RANDOM_GAMMA] = {g_random_gamma, 0}, [OP_STATELESS_GAMMA] = {g_random_gamma, 0},
  [OP_CHECK_NUMERICS] = {g_check_numerics, G_NO_OUT | G_IN_SHAPE}, [OP_CHECK_NUMERICS_V2] = {g_check_numerics, G_NO_OUT | G_IN_SHAPE}, [OP_ASSERT_FINITE] = {g_identity, G_NO_OUT | G_IN_SHAPE},
  [OP_TL_RESERVE] = {grad_none, 0}, [OP_TL_LENGTH] = {grad_none, 0}, [OP_TL_SET_ITEM] = {g_tl_set_item, 0},
  [OP_TL_GET_ITEM] = {g_tl_get_item, 0}, [OP_TL_STACK] = {g_tl_stack, 0}, [OP_TL_FROM_TENSOR] = {g_tl_from_tensor, 0},
  [OP_TL_GATHER] = {g_tl_gather, 0}, [OP_TL_SCATTER] = {g_tl_scatter, 0}, [OP_TL_ADD] = {g_tl_add, 0},
  [OP_TL_CONCAT] = {g_tl_concat, 0}, [OP_TL_RESIZE] = {g_tl_resize, 0}, [OP_TL_CONCAT_GRAD] = {grad_none, 0},
  [OP_SCATTER_GRAD] = {g_scatter_grad, G_NO_OUT},
  [OP_COLL_REDUCE] = {g_coll_reduce, G_NO_IN | G_NO_OUT}, [OP_COLL_GATHER] = {g_coll_gather, G_NO_OUT | G_IN_SHAPE}, [OP_COLL_BCAST] = {g_coll_bcast, G_NO_IN | G_NO_OUT},
  [OP_SPARSE_DENSE_MATMUL] = {g_sparse_matmul, G_NO_OUT}, [OP_SPARSE_SEGMENT_SUM] = {g_sparse_segment, G_NO_OUT},
  [OP_SPARSE_SEGMENT_MEAN] = {g_sparse_segment, G_NO_OUT}, [OP_SPARSE_SEGMENT_SQRTN] = {g_sparse_segment, G_NO_OUT},
  [OP_SPARSE_TO_DENSE] = {g_sparse_to_dense, G_NO_OUT}, [OP_SPARSE_REORDER] = {g_sparse_reorder, G_NO_OUT},
  [OP_SPARSE_REDUCE_SUM] = {g_sparse_reduce_sum, G_NO_OUT},
  [OP_SPARSE_ADD] = {g_sparse_add, 0}, [OP_SPARSE_SLICE] = {g_sparse_slice, 0}, [OP_SPARSE_SOFTMAX] = {g_sparse_softmax, 0},
  [OP_SPARSE_FILL_EMPTY_ROWS] = {g_sparse_fill_empty_rows, 0}, [OP_SPARSE_MAXIMUM] = {g_sparse_maxmin, G_NO_IN | G_NO_OUT},
  [OP_SPARSE_MINIMUM] = {g_sparse_maxmin, G_NO_IN | G_NO_OUT},
  [OP_SPARSE_DENSE_MUL] = {g_sparse_cwise, G_NO_OUT}, [OP_SPARSE_DENSE_DIV] = {g_sparse_cwise, G_NO_OUT},
  /* TF: SparseConcat and the Grad ops are not differentiable; SparseReshape has no float input */
  [OP_SPARSE_CONCAT] = {grad_none, 0}, [OP_SPARSE_ADD_GRAD] = {grad_none, 0}, [OP_SPARSE_SLICE_GRAD] = {grad_none, 0},
  [OP_SPARSE_FILL_EMPTY_ROWS_GRAD] = {grad_none, 0},
  [OP_SPARSE_SEGMENT_SUM_GRAD] = {grad_none, 0}, [OP_SPARSE_SEGMENT_MEAN_GRAD] = {grad_none, 0}, [OP_SPARSE_SEGMENT_SQRTN_GRAD] = {grad_none, 0},
  [OP_PY_FUNC] = {g_py_func, 0}, [OP_PROJ_TRANSFORM] = {g_proj_transform, G_NO_OUT},
  /* datasets built from traced tensors: not differentiable, as in TF (no gradient through tf.data) */
  [OP_DATASET_SLICES] = {grad_none, 0}, [OP_DATASET_TENSORS] = {grad_none, 0}, [OP_DATASET_RANGE] = {grad_none, 0},
};

GradFn grad_fn_of(OpId id) { return id >= 0 && id < OP__COUNT ? grad_table[id].fn : NULL; }
unsigned grad_drops_of(OpId id) { return id >= 0 && id < OP__COUNT ? grad_table[id].drops : 0; }

/* Run one gradient function with the temporary pool around it. */
void grad_run(GradFn fn, const GradCall *g, Val *dx) {
  int mark = ntmp;
  fn(g, dx);
  while (ntmp > mark) {
    Val v = tmp[--ntmp];
    TFS_DECREF(v);
  }
}
