/* onnx.c — export a traced concrete function as an ONNX model (opset 17): graph ops lowered to ONNX ops, cond -> If, while -> Loop. */
#include "formats/onnx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/atomicfile.h"
#include "object/object.h"
#include "onnx.pb-c.h"
#include "formats/pbutil.h"
#include "graph/trace.h"

#define OX_OPSET 17
#define OX_IR_VERSION 8   /* the IR version of opset 17 (ONNX 1.12) */

/* ONNX TensorProto.DataType codes */
enum { OT_FLOAT = 1, OT_UINT8 = 2, OT_INT32 = 6, OT_INT64 = 7, OT_STRING = 8, OT_BOOL = 9, OT_DOUBLE = 11 };

static int ox_dtype(DType dt) {
  switch (dt) {
    case DT_FLOAT32: return OT_FLOAT;
    case DT_FLOAT64: return OT_DOUBLE;
    case DT_INT32: return OT_INT32;
    case DT_INT64: return OT_INT64;
    case DT_BOOL: return OT_BOOL;
    case DT_UINT8: return OT_UINT8;
    default: return OT_STRING;
  }
}

/* A dtype the export has no form for: complex (ONNX's operators take no complex types, so a model with
 * them would not run) and the dtypes ox_dtype does not map; a located UnimplementedError. */
static void ox_check_dtype(const char *fname, DType dt, int loc) {
  if (dtype_is_complex(dt))
    rt_throw_at(loc, ERR_UNIMPLEMENTED, "tf.function '%s': %s tensors have no ONNX form (ONNX operators take no complex types)",
                fname, dtype_info[dt].name);
  if (dt != DT_STRING && ox_dtype(dt) == OT_STRING)
    rt_throw_at(loc, ERR_UNIMPLEMENTED, "tf.function '%s': %s tensors have no ONNX form in tfs's export", fname, dtype_info[dt].name);
}

typedef struct OxList {       /* the nodes of one ONNX graph being built */
  Onnx__NodeProto **v;
  size_t n, cap;
} OxList;

/* Everything an export allocates (the message tree's arena, folded constants), released at once when
 * the export ends or an error unwinds it (held with rt_hold_val). */
typedef struct OxHold {
  Obj hdr;
  PbArena a;
  Tensor **t;
  size_t nt, capt;
} OxHold;

static void ox_hold_free(Obj *o) {
  OxHold *h = (OxHold *)o;
  pa_free(&h->a);
  for (size_t i = 0; i < h->nt; i++) tensor_release(h->t[i]);
  free(h->t);
  free(h);
}

static void ox_hold_repr(StrBuf *b, Val v) {
  (void)v;
  sb_puts(b, "<onnx export>");
}

static const Type ox_hold_type = {.name = "onnx export", .free = ox_hold_free, .repr = ox_hold_repr};

typedef struct Ox {
  PbArena *a;
  OxHold *hold;
  OxList *cur;
  int seq;                    /* unique value names */
  Onnx__TensorProto **inits;  /* Variables, as initializers of the main graph */
  size_t ninit, capinit;
  const Variable **vars;
  char **varnames;
  const char *fname;
} Ox;

/* The values of one tfs graph while it is lowered: ONNX name of each node output, folded constants. */
typedef struct OxScope {
  const Graph *g;
  char ***names;              /* [node][out] */
  Tensor ***konst;            /* [node][out]: value when constant (folded ones owned by Ox.hold) */
  unsigned char *live;
} OxScope;

static void *ox_grow(Ox *x, void *p, size_t n, size_t *cap, size_t es) {
  if (n < *cap) return p;
  size_t nc = *cap ? 2 * *cap : 16;
  void *q = pa_alloc(x->a, nc * es);
  if (n) memcpy(q, p, n * es);
  *cap = nc;
  return q;
}

static char *ox_fresh(Ox *x, const char *base) { return pa_printf(x->a, "%s__%d", base, x->seq++); }

/* What has no ONNX form: an UnimplementedError at the op's source line. */
#define ox_fail(loc, ...) rt_throw_at(loc, ERR_UNIMPLEMENTED, __VA_ARGS__)

/* Emit a node with nin inputs ("" for an absent optional one) and nout fresh outputs. */
static Onnx__NodeProto *ox_emit(Ox *x, const char *op, int nin, char *const *in, int nout, char **out) {
  Onnx__NodeProto *nd = pa_alloc(x->a, sizeof *nd);
  onnx__node_proto__init(nd);
  nd->op_type = (char *)op;
  nd->n_input = (size_t)nin;
  nd->input = pa_alloc(x->a, sizeof(char *) * (size_t)(nin + 1));
  for (int i = 0; i < nin; i++) nd->input[i] = in[i];
  nd->n_output = (size_t)nout;
  nd->output = pa_alloc(x->a, sizeof(char *) * (size_t)(nout + 1));
  for (int i = 0; i < nout; i++) nd->output[i] = out[i] = ox_fresh(x, op);
  x->cur->v = ox_grow(x, x->cur->v, x->cur->n, &x->cur->cap, sizeof(void *));
  x->cur->v[x->cur->n++] = nd;
  return nd;
}

static Onnx__AttributeProto *ox_attr(Ox *x, Onnx__NodeProto *nd, const char *name, Onnx__AttributeProto__AttributeType t) {
  Onnx__AttributeProto *at = pa_alloc(x->a, sizeof *at);
  onnx__attribute_proto__init(at);
  at->name = (char *)name;
  at->has_type = 1;
  at->type = t;
  Onnx__AttributeProto **v = pa_alloc(x->a, sizeof(void *) * (nd->n_attribute + 1));
  if (nd->n_attribute) memcpy(v, nd->attribute, sizeof(void *) * nd->n_attribute);
  v[nd->n_attribute++] = at;
  nd->attribute = v;
  return at;
}

static void ox_attr_i(Ox *x, Onnx__NodeProto *nd, const char *name, int64_t i) {
  Onnx__AttributeProto *at = ox_attr(x, nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  at->has_i = 1;
  at->i = i;
}

static void ox_attr_f(Ox *x, Onnx__NodeProto *nd, const char *name, float f) {
  Onnx__AttributeProto *at = ox_attr(x, nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  at->has_f = 1;
  at->f = f;
}

static void ox_attr_s(Ox *x, Onnx__NodeProto *nd, const char *name, const char *s) {
  Onnx__AttributeProto *at = ox_attr(x, nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  at->has_s = 1;
  at->s.data = (uint8_t *)pa_strdup(x->a, s);
  at->s.len = strlen(s);
}

static void ox_attr_ints(Ox *x, Onnx__NodeProto *nd, const char *name, int n, const int64_t *v) {
  Onnx__AttributeProto *at = ox_attr(x, nd, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  at->n_ints = (size_t)n;
  at->ints = pa_alloc(x->a, sizeof(int64_t) * (size_t)(n + 1));
  if (n) memcpy(at->ints, v, sizeof(int64_t) * (size_t)n);
}

static char *ox_op(Ox *x, const char *op, int nin, char *const *in) {
  char *o;
  ox_emit(x, op, nin, in, 1, &o);
  return o;
}
static char *ox_op1(Ox *x, const char *op, char *a) { return ox_op(x, op, 1, &a); }
static char *ox_op2(Ox *x, const char *op, char *a, char *b) {
  char *in[2] = {a, b};
  return ox_op(x, op, 2, in);
}

/* A tfs tensor as a TensorProto (raw little-endian data, bools one byte each). */
static Onnx__TensorProto *ox_tensor(Ox *x, Tensor *t, const char *name, int loc) {
  if (t->dtype == DT_STRING) ox_fail(loc, "tf.function '%s': string tensors have no ONNX form in tfs's export", x->fname);
  Onnx__TensorProto *p = pa_alloc(x->a, sizeof *p);
  onnx__tensor_proto__init(p);
  p->name = (char *)name;
  p->has_data_type = 1;
  p->data_type = ox_dtype(t->dtype);
  p->n_dims = (size_t)t->rank;
  p->dims = pa_alloc(x->a, sizeof(int64_t) * (size_t)(t->rank + 1));
  for (int d = 0; d < t->rank; d++) p->dims[d] = t->shape[d];
  size_t es = (size_t)dtype_info[t->dtype].size;
  unsigned char *c = pa_alloc(x->a, es * (size_t)t->size + 1);
  for (tfs_i64 i = 0; i < t->size; i++)
    memcpy(c + es * (size_t)i, (unsigned char *)t->buf->data + es * (size_t)tensor_elem_offset(t, i), es);
  p->has_raw_data = 1;
  p->raw_data.data = c;
  p->raw_data.len = es * (size_t)t->size;
  return p;
}

static char *ox_const(Ox *x, Tensor *t, int loc) {
  char *o;
  Onnx__NodeProto *nd = ox_emit(x, "Constant", 0, NULL, 1, &o);
  Onnx__AttributeProto *at = ox_attr(x, nd, "value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
  at->t = ox_tensor(x, t, NULL, loc);
  return o;
}

/* An int64 constant: rank 0 (a scalar, n 1) or rank 1. */
static char *ox_i64s(Ox *x, int rank, int n, const int64_t *v) {
  tfs_i64 shape[1] = {n};
  Tensor *t = tensor_new(DT_INT64, rank, shape);
  if (n) memcpy(tensor_data(t), v, sizeof(int64_t) * (size_t)n);
  char *o = ox_const(x, t, -1);
  tensor_release(t);
  return o;
}
static char *ox_i64(Ox *x, int64_t v) { return ox_i64s(x, 0, 1, &v); }

static void ox_set(Tensor *t, tfs_i64 i, double v) {
  void *p = (char *)tensor_data(t) + i * dtype_info[t->dtype].size;
  switch (t->dtype) {
    case DT_FLOAT32: *(float *)p = (float)v; break;
    case DT_FLOAT64: *(double *)p = v; break;
    case DT_INT32: *(int32_t *)p = (int32_t)v; break;
    case DT_INT64: *(int64_t *)p = (int64_t)v; break;
    case DT_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    default: *(bool *)p = v != 0; break;
  }
}

/* A scalar of dtype dt. */
static char *ox_scalar(Ox *x, DType dt, double v) {
  Tensor *t = tensor_new(dt, 0, NULL);
  ox_set(t, 0, v);
  char *o = ox_const(x, t, -1);
  tensor_release(t);
  return o;
}

/* A float32 vector of n zeros. */
static char *ox_const_zeros(Ox *x, int64_t n, int loc) {
  tfs_i64 sh[1] = {n};
  Tensor *t = tensor_new(DT_FLOAT32, 1, sh);
  memset(tensor_data(t), 0, sizeof(float) * (size_t)n);
  char *o = ox_const(x, t, loc);
  tensor_release(t);
  return o;
}

static char *ox_cast(Ox *x, char *a, DType to) {
  char *o;
  Onnx__NodeProto *nd = ox_emit(x, "Cast", 1, &a, 1, &o);
  ox_attr_i(x, nd, "to", ox_dtype(to));
  return o;
}

static Onnx__TensorShapeProto *ox_shape(Ox *x, int rank, const tfs_i64 *shape, const char *symbase) {
  Onnx__TensorShapeProto *s = pa_alloc(x->a, sizeof *s);
  onnx__tensor_shape_proto__init(s);
  s->n_dim = (size_t)rank;
  s->dim = pa_alloc(x->a, sizeof(void *) * (size_t)(rank + 1));
  for (int d = 0; d < rank; d++) {
    Onnx__TensorShapeProto__Dimension *dm = pa_alloc(x->a, sizeof *dm);
    onnx__tensor_shape_proto__dimension__init(dm);
    if (shape[d] >= 0) {
      dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      dm->dim_value = shape[d];
    } else if (symbase) {   /* a None dim: a symbolic dim named after the input */
      dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      dm->dim_param = pa_printf(x->a, "%s_dim%d", symbase, d);
    }
    s->dim[d] = dm;
  }
  return s;
}

/* A graph input or output: its dtype, and its shape when `shape` (symbolic dims named after symbase). */
static Onnx__ValueInfoProto *ox_value_info(Ox *x, const char *name, const TMeta *m, bool shape, const char *symbase) {
  Onnx__ValueInfoProto *vi = pa_alloc(x->a, sizeof *vi);
  onnx__value_info_proto__init(vi);
  vi->name = (char *)name;
  vi->type = pa_alloc(x->a, sizeof *vi->type);
  onnx__type_proto__init(vi->type);
  vi->type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  vi->type->tensor_type = pa_alloc(x->a, sizeof *vi->type->tensor_type);
  onnx__type_proto__tensor__init(vi->type->tensor_type);
  vi->type->tensor_type->has_elem_type = 1;
  vi->type->tensor_type->elem_type = ox_dtype(m->dtype);
  if (shape && m->rank >= 0) vi->type->tensor_type->shape = ox_shape(x, m->rank, m->shape, symbase);
  return vi;
}

/* ---- attributes of a graph node ---------------------------------------------------------------------------- */

/* A host int list (an int, list/tuple of ints, or an eager int tensor); false when it is something else. */
static bool ox_host_ints(Val v, int64_t *out, int *n, int cap) {
  if (v.tag == VT_INT) {
    out[0] = v.u.i;
    *n = 1;
    return true;
  }
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 k;
    const Val *it;
    seq_items(v, &k, &it);
    if (k > cap) return false;
    for (tfs_i64 i = 0; i < k; i++) {
      if (it[i].tag != VT_INT) {
        Tensor *t = val_as_tensor(it[i]);
        if (!t || t->sym || t->size != 1 || !dtype_info[t->dtype].is_int) return false;
        out[i] = tensor_get_i(t, 0);
      } else {
        out[i] = it[i].u.i;
      }
    }
    *n = (int)k;
    return true;
  }
  Tensor *t = val_as_tensor(v);
  if (t && !t->sym && dtype_info[t->dtype].is_int && t->rank <= 1 && t->size <= cap) {
    for (tfs_i64 i = 0; i < t->size; i++) out[i] = tensor_get_i(t, i);
    *n = (int)t->size;
    return true;
  }
  return false;
}

static Val ox_attrv(const GraphNode *n, int i) { return i < n->attrs.n ? n->attrs.v[i] : val_undef(); }
static bool ox_given(Val v) { return v.tag != VT_UNDEF && v.tag != VT_NONE; }

/* The graph value standing for attribute ai (a dynamic attribute), or node -1. */
static GraphRef ox_dyn(const GraphNode *n, int ai) {
  for (int k = 0; k < n->ndyn; k++)
    if (n->dyn_attr[k] == ai) return n->in[n->nin + k];
  return (GraphRef){-1, 0};
}

/* ---- lowering -------------------------------------------------------------------------------------------- */

static void ox_body(Ox *x, const Graph *g, char **in_names, char **out_names);

static char *ox_ref(OxScope *s, GraphRef r) { return s->names[r.node][r.out]; }

/* An attribute as int64 values (host or a dynamic value), as a rank-1 ONNX value; NULL when absent. */
static char *ox_ints_value(Ox *x, OxScope *s, const GraphNode *n, int ai, int loc) {
  GraphRef r = ox_dyn(n, ai);
  if (r.node >= 0) {
    char *v = ox_ref(s, r);
    const TMeta *m = graph_meta(s->g, r);
    if (m->dtype != DT_INT64) v = ox_cast(x, v, DT_INT64);
    if (m->rank == 0) v = ox_op2(x, "Reshape", v, ox_i64s(x, 1, 1, (int64_t[]){1}));
    return v;
  }
  Val v = ox_attrv(n, ai);
  if (!ox_given(v)) return NULL;
  int64_t buf[64];
  int k;
  if (!ox_host_ints(v, buf, &k, 64)) ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, op_attr_name(n->op, ai));
  return ox_i64s(x, 1, k, buf);
}

/* Static int attribute (default dflt). */
static int64_t ox_int_attr(const GraphNode *n, int ai, int64_t dflt, int loc) {
  if (ox_dyn(n, ai).node >= 0) ox_fail(loc, "%s: a traced '%s' has no ONNX form", n->op->graph_name, op_attr_name(n->op, ai));
  Val v = ox_attrv(n, ai);
  if (!ox_given(v)) return dflt;
  int64_t b[1];
  int k;
  if (!ox_host_ints(v, b, &k, 1) || k != 1) ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, op_attr_name(n->op, ai));
  return b[0];
}

static bool ox_bool_attr(const GraphNode *n, int ai, bool dflt) {
  Val v = ox_attrv(n, ai);
  if (v.tag == VT_BOOL || v.tag == VT_INT) return v.u.i != 0;
  return dflt;
}

/* A reduction over the axes of attribute 0 of n (all axes when None): opset 17's ReduceSum takes them as an
 * input (which may be a traced value), the other reductions as the `axes` attribute (static only). */
static char *ox_reduce_at(Ox *x, OxScope *s, const GraphNode *n, int ai, const char *op, char *in, bool keep, int loc) {
  char *o;
  if (!strcmp(op, "ReduceSum")) {
    char *ins[2] = {in, ox_ints_value(x, s, n, ai, loc)};
    Onnx__NodeProto *nd = ox_emit(x, op, ins[1] ? 2 : 1, ins, 1, &o);
    ox_attr_i(x, nd, "keepdims", keep);
    return o;
  }
  if (ox_dyn(n, ai).node >= 0) ox_fail(loc, "%s: a traced '%s' has no ONNX form", n->op->graph_name, "axis");
  Onnx__NodeProto *nd = ox_emit(x, op, 1, &in, 1, &o);
  ox_attr_i(x, nd, "keepdims", keep);
  Val v = ox_attrv(n, ai);
  if (ox_given(v)) {
    int64_t axes[TFS_MAX_RANK];
    int k;
    if (!ox_host_ints(v, axes, &k, TFS_MAX_RANK)) ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "axis");
    ox_attr_ints(x, nd, "axes", k, axes);
  }
  return o;
}

static char *ox_reduce(Ox *x, OxScope *s, const GraphNode *n, const char *op, char *in, bool keep, int loc) {
  return ox_reduce_at(x, s, n, 0, op, in, keep, loc);
}

/* Two spatial values (strides, dilations, ksize) from an int, a pair or an NHWC quadruple. */
static void ox_hw(const GraphNode *n, int ai, int64_t dflt, int64_t *out, int loc) {
  Val v = ox_attrv(n, ai);
  int64_t b[4];
  int k = 0;
  out[0] = out[1] = dflt;
  if (!ox_given(v)) return;
  if (ox_dyn(n, ai).node >= 0 || !ox_host_ints(v, b, &k, 4) || k == 3)
    ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, op_attr_name(n->op, ai));
  if (k == 1) out[0] = out[1] = b[0];
  else if (k == 2) out[0] = b[0], out[1] = b[1];
  else if (k == 4) out[0] = b[1], out[1] = b[2];
}

/* NHWC <-> NCHW around ONNX's convolution and pooling; TF's SAME puts the odd padding last (SAME_UPPER). */
static char *ox_perm_n(Ox *x, char *a, int rank, const int64_t *perm) {
  char *o;
  Onnx__NodeProto *nd = ox_emit(x, "Transpose", 1, &a, 1, &o);
  ox_attr_ints(x, nd, "perm", rank, perm);
  return o;
}
static char *ox_perm(Ox *x, char *a, const int64_t *perm) { return ox_perm_n(x, a, 4, perm); }

static const char *ox_auto_pad(const GraphNode *n, int ai, int loc) {
  Val v = ox_attrv(n, ai);
  const char *p = val_is(v, &str_type) ? str_cstr(v) : "";
  if (!strcasecmp(p, "SAME")) return "SAME_UPPER";
  if (!strcasecmp(p, "VALID")) return "VALID";
  ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "padding");
}

static void ox_data_format(const GraphNode *n, int ai, int loc) {
  Val v = ox_attrv(n, ai);
  if (ox_given(v) && (!val_is(v, &str_type) || strcmp(str_cstr(v), "NHWC") != 0))
    ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "data_format");
}

/* A matrix operand transposed in its last two dims. */
static char *ox_t2(Ox *x, char *a, int rank) {
  int64_t perm[TFS_MAX_RANK];
  for (int i = 0; i < rank; i++) perm[i] = i;
  perm[rank - 1] = rank - 2;
  perm[rank - 2] = rank - 1;
  char *o;
  Onnx__NodeProto *nd = ox_emit(x, "Transpose", 1, &a, 1, &o);
  ox_attr_ints(x, nd, "perm", rank, perm);
  return o;
}

static char *ox_unsq(Ox *x, char *a, int64_t axis) { return ox_op2(x, "Unsqueeze", a, ox_i64s(x, 1, 1, &axis)); }
static char *ox_sq(Ox *x, char *a, int n, const int64_t *axes) { return ox_op2(x, "Squeeze", a, ox_i64s(x, 1, n, axes)); }

/* One bound of StridedSlice's key: an int, None, or a leaf marker for element k of `bounds`; as a [1] int64 value. */
static char *ox_ss_bound(Ox *x, OxScope *s, const GraphNode *n, Val v, int64_t none_value, int loc) {
  int k;
  if (nest_is_leaf(v, &k)) {
    GraphRef b = ox_dyn(n, 1);
    if (b.node < 0) ox_fail(loc, "%s: a traced bound without its value", n->op->graph_name);
    char *bv = ox_ref(s, b);
    if (graph_meta(s->g, b)->dtype != DT_INT64) bv = ox_cast(x, bv, DT_INT64);
    char *in[2] = {bv, ox_i64s(x, 1, 1, (int64_t[]){k})};
    return ox_op(x, "Gather", 2, in);
  }
  int64_t i = v.tag == VT_INT ? v.u.i : v.tag == VT_BOOL ? v.u.i : none_value;
  return ox_i64s(x, 1, 1, &i);
}

static char *ox_concat(Ox *x, int n, char **in, int64_t axis) {
  char *o;
  Onnx__NodeProto *nd = ox_emit(x, "Concat", n, in, 1, &o);
  ox_attr_i(x, nd, "axis", axis);
  return o;
}

/* The units of a fused recurrent op (its recurrent kernel, input ki, must be a static matrix); its training form
 * (attribute save, index si) has no ONNX form. */
static int64_t ox_rnn_units(const OxScope *s, const GraphNode *n, int ki, int si, int loc) {
  const TMeta *um = graph_meta(s->g, n->in[ki]);
  if (ox_bool_attr(n, si, true))
    ox_fail(loc, "%s: the training form (save=True) has no ONNX form", n->op->graph_name);
  if (um->rank != 2 || um->shape[0] < 0) ox_fail(loc, "%s: the recurrent kernel's shape must be static", n->op->graph_name);
  return um->shape[0];
}

/* A time-major sequence reversed in time (go_backwards): a Slice of step -1 */
static char *ox_time_reversed(Ox *x, char *xs) {
  int64_t st = -1, en = INT64_MIN, ax = 0;
  char *si[5] = {xs, ox_i64s(x, 1, 1, &st), ox_i64s(x, 1, 1, &en), ox_i64s(x, 1, 1, &ax), ox_i64s(x, 1, 1, &st)};
  return ox_op(x, "Slice", 5, si);
}

/* [0, B, k*H]: the saved outputs of a fused recurrent op's inference form, from its outputs ys [T, B, H] */
static char *ox_no_steps(Ox *x, char *ys, int64_t k) {
  int64_t zero = 0, rep[3] = {1, 1, k};
  char *ei[4] = {ys, ox_i64s(x, 1, 1, &zero), ox_i64s(x, 1, 1, &zero), ox_i64s(x, 1, 1, &zero)};
  char *e = ox_op(x, "Slice", 4, ei);
  return k == 1 ? e : ox_op2(x, "Tile", e, ox_i64s(x, 1, 3, rep));
}

/* The T steps of a time-major [T, B, F] sequence: Split on axis 0, each step Squeezed to [B, F] */
static char **ox_steps(Ox *x, char *xs, int64_t T) {
  char **parts = pa_alloc(x->a, sizeof(char *) * (size_t)(T + 1));
  int64_t zero = 0;
  if (T == 1) parts[0] = xs;
  else ox_attr_i(x, ox_emit(x, "Split", 1, &xs, (int)T, parts), "axis", 0);
  for (int64_t t = 0; t < T; t++) parts[t] = ox_sq(x, parts[t], 1, &zero);
  return parts;
}

/* Split of a [B, k*H] row block on axis 1 in k equal parts */
static void ox_split1(Ox *x, char *a, int k, char **parts) { ox_attr_i(x, ox_emit(x, "Split", 1, &a, k, parts), "axis", 1); }

/* gelu as Mul, Erf and Add (ONNX's Gelu is opset 20): 0.5 x (1 + erf(x / sqrt 2)), or with approximate
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
static char *ox_gelu(Ox *x, DType dt, char *v, bool approximate) {
  char *h = ox_op2(x, "Mul", v, ox_scalar(x, dt, 0.5));
  char *inner;
  if (approximate) {
    char *x3 = ox_op2(x, "Mul", v, ox_op2(x, "Mul", v, v));
    char *t = ox_op2(x, "Add", v, ox_op2(x, "Mul", x3, ox_scalar(x, dt, 0.044715)));
    inner = ox_op1(x, "Tanh", ox_op2(x, "Mul", t, ox_scalar(x, dt, sqrt(2.0 / M_PI))));
  } else {
    inner = ox_op1(x, "Erf", ox_op2(x, "Mul", v, ox_scalar(x, dt, M_SQRT1_2)));
  }
  return ox_op2(x, "Mul", h, ox_op2(x, "Add", inner, ox_scalar(x, dt, 1)));
}

/* A fused recurrent op's activation (attribute i of n; dflt when not given) on z as ONNX ops: Tanh, Sigmoid, Relu,
 * HardSigmoid (ONNX's default alpha 0.2 and beta 0.5 are Keras 2.15's), Elu, Selu (ONNX's default alpha and gamma
 * are Keras'), Softsign, Softplus, swish as z * Sigmoid(z), gelu (ox_gelu) or none (linear) */
static char *ox_rnn_act(Ox *x, const GraphNode *n, int i, const char *dflt, char *z) {
  static const char *const one_op[][2] = {{"tanh", "Tanh"}, {"sigmoid", "Sigmoid"}, {"relu", "Relu"},
                                          {"hard_sigmoid", "HardSigmoid"}, {"elu", "Elu"}, {"selu", "Selu"},
                                          {"softsign", "Softsign"}, {"softplus", "Softplus"}};
  Val av = ox_attrv(n, i);
  const char *act = ox_given(av) && val_is(av, &str_type) ? str_cstr(av) : dflt;
  for (size_t k = 0; k < sizeof one_op / sizeof one_op[0]; k++)
    if (!strcmp(act, one_op[k][0])) return ox_op1(x, one_op[k][1], z);
  if (!strcmp(act, "swish")) return ox_op2(x, "Mul", z, ox_op1(x, "Sigmoid", z));
  if (!strcmp(act, "gelu")) return ox_gelu(x, DT_FLOAT32, z, false);
  return z;
}

/* whether a fused LSTM/GRU has Keras' default activations (tanh, sigmoid recurrent), which ONNX's LSTM and GRU
 * ops apply by default */
static bool ox_rnn_default_acts(const GraphNode *n, int i) {
  for (int k = 0; k < 2; k++) {
    Val av = ox_attrv(n, i + k);
    if (ox_given(av) && (!val_is(av, &str_type) || strcmp(str_cstr(av), k ? "sigmoid" : "tanh"))) return false;
  }
  return true;
}

/* A fused LSTM/GRU with a mask, recurrent dropout or other activations than Keras' defaults as ONNX ops over its
 * static steps (ONNX's LSTM and GRU would take Relu, HardSigmoid, but not linear, and tfs keeps one form for them) (ONNX's LSTM and GRU skip
 * only padding at the end, sequence_lens; Keras' mask may skip any step): per step the state entering it (times
 * the recurrent mask), the gates as the layer computes them (MatMul, Add, the activations), and with a mask Where
 * between the new and the kept state and between the new and the previous output (zeros before the first step
 * and with zero_output_for_mask), as Keras 2.15's backend.rnn.  Inputs: LSTM xp, h0, c0, U, bias, mask,
 * recurrent_mask; GRU and SimpleRNN xp, h0, U, bias, mask, recurrent_mask.  A fused SimpleRNN (inference form)
 * always takes this form, h = act((xp_t + (h * recurrent_mask) @ U) + bias): ONNX's RNN op has no linear
 * activation. */
static void ox_rnn_unrolled(Ox *x, const OxScope *s, const GraphNode *n, char **in, char **out, int loc) {
  bool lstm = n->op->id == OP_LSTM_SEQ, srnn = n->op->id == OP_SRNN_SEQ, gru = !lstm && !srnn;
  bool after = gru && ox_bool_attr(n, 1, true);
  int ui = lstm ? 3 : 2, mi = ui + 2;
  int64_t H = ox_rnn_units(s, n, ui, gru ? 2 : 1, loc), T = graph_meta(s->g, n->in[0])->shape[0];
  /* errindex: TfsSimpleRNNSequence: needs a static number of steps in tfs's ONNX export */
  if (T < 1 && srnn) ox_fail(loc, "%s: needs a static number of steps in tfs's ONNX export", n->op->graph_name);
  if (T < 1) ox_fail(loc, "%s: a mask, recurrent dropout or activation needs a static number of steps in tfs's ONNX export", n->op->graph_name);
  int ai = gru ? 4 : 3;   /* the activation's attribute, the recurrent activation's after it */
  bool back = ox_bool_attr(n, 0, false), zero = ox_bool_attr(n, gru ? 3 : 2, false);
  char *h = in[1], *c = lstm ? in[2] : NULL, *u = in[ui], *bias = in[ui + 1], *mask = in[mi], *rk = in[mi + 1];
  char **xt = ox_steps(x, in[0], T), **mt = NULL, *b0 = bias, *b1 = NULL, *uh = NULL;
  if (mask) {
    int64_t two = 2;
    mt = ox_steps(x, ox_cast(x, ox_op2(x, "Unsqueeze", mask, ox_i64s(x, 1, 1, &two)), DT_BOOL), T);
  }
  if (bias && after) {   /* the GRU's bias rows: input and recurrent */
    char **bb = ox_steps(x, bias, 2);
    b0 = bb[0], b1 = bb[1];
  }
  if (gru && !after) {   /* U's blocks [H, 2H] (z, r) and [H, H] (h) */
    int64_t sz[2] = {2 * H, H};
    char *si[2] = {u, ox_i64s(x, 1, 2, sz)}, *uo[2];
    ox_attr_i(x, ox_emit(x, "Split", 2, si, 2, uo), "axis", 1);
    u = uo[0], uh = uo[1];
  }
  char *zeros = mask ? ox_op1(x, "ConstantOfShape", ox_op1(x, "Shape", h)) : NULL, *prev = zeros, *one = NULL;
  char **ys = pa_alloc(x->a, sizeof(char *) * (size_t)(T + 1));
  if (gru) {   /* the 1 of the GRU's 1 - z */
    Tensor *ot = tensor_new(DT_FLOAT32, 0, NULL);
    *(float *)tensor_data(ot) = 1.0f;
    one = ox_const(x, ot, loc);
    tensor_release(ot);
  }
  for (int64_t st = 0; st < T; st++) {
    int64_t t = back ? T - 1 - st : st;
    char *hin = rk ? ox_op2(x, "Mul", h, rk) : h, *hn, *p[4];
    if (srnn) {
      char *z = ox_op2(x, "Add", xt[t], ox_op2(x, "MatMul", hin, u));
      hn = ox_rnn_act(x, n, ai, "tanh", bias ? ox_op2(x, "Add", z, bias) : z);
    } else if (lstm) {
      char *z = ox_op2(x, "Add", xt[t], ox_op2(x, "MatMul", hin, u));
      if (bias) z = ox_op2(x, "Add", z, bias);
      ox_split1(x, z, 4, p);
      char *i = ox_rnn_act(x, n, ai + 1, "sigmoid", p[0]), *f = ox_rnn_act(x, n, ai + 1, "sigmoid", p[1]);
      char *g = ox_rnn_act(x, n, ai, "tanh", p[2]), *o = ox_rnn_act(x, n, ai + 1, "sigmoid", p[3]);
      char *cn = ox_op2(x, "Add", ox_op2(x, "Mul", f, c), ox_op2(x, "Mul", i, g));
      hn = ox_op2(x, "Mul", o, ox_rnn_act(x, n, ai, "tanh", cn));
      if (mt) {
        char *ci[3] = {mt[t], cn, c};
        cn = ox_op(x, "Where", 3, ci);
      }
      c = cn;
    } else {
      char *xg = b0 ? ox_op2(x, "Add", xt[t], b0) : xt[t], *xs[3], *rs[3];
      ox_split1(x, xg, 3, xs);
      char *rec = ox_op2(x, "MatMul", hin, u);
      if (b1) rec = ox_op2(x, "Add", rec, b1);
      ox_split1(x, rec, after ? 3 : 2, rs);
      char *z = ox_rnn_act(x, n, ai + 1, "sigmoid", ox_op2(x, "Add", xs[0], rs[0]));
      char *r = ox_rnn_act(x, n, ai + 1, "sigmoid", ox_op2(x, "Add", xs[1], rs[1]));
      char *q = after ? ox_op2(x, "Mul", r, rs[2]) : ox_op2(x, "MatMul", ox_op2(x, "Mul", r, hin), uh);
      char *hh = ox_rnn_act(x, n, ai, "tanh", ox_op2(x, "Add", xs[2], q));
      hn = ox_op2(x, "Add", ox_op2(x, "Mul", z, hin), ox_op2(x, "Mul", ox_op2(x, "Sub", one, z), hh));
    }
    if (mt) {
      char *hi[3] = {mt[t], hn, h}, *oi[3] = {mt[t], hn, zero ? zeros : prev};
      h = ox_op(x, "Where", 3, hi);
      prev = ox_op(x, "Where", 3, oi);
    } else h = prev = hn;
    ys[st] = ox_unsq(x, prev, 0);
  }
  static const int64_t t102[3] = {1, 0, 2};
  char *y = T == 1 ? ys[0] : ox_concat(x, (int)T, ys, 0);
  out[0] = ox_perm_n(x, y, 3, t102);
  out[1] = h;
  /* the cells and activations it does not keep: 0 steps (with the state entering each step: one more block) */
  int more = mask || rk ? 1 : 0;
  if (srnn) out[2] = ox_no_steps(x, y, more);   /* the step inputs it does not keep */
  else if (lstm) {
    out[2] = c;
    out[3] = ox_no_steps(x, y, 1);
    out[4] = ox_no_steps(x, y, 5 + more);
  } else out[2] = ox_no_steps(x, y, 4 + more);
}

/* x[key]: one Slice over the indexed dims, then Squeeze of the integer-indexed ones and Unsqueeze of the new axes. */
static char *ox_strided_slice(Ox *x, OxScope *s, const GraphNode *n, char *in, int loc) {
  const TMeta *a = graph_meta(s->g, n->in[0]);
  if (a->rank < 0) ox_fail(loc, "%s: an input of unknown rank has no ONNX form", n->op->graph_name);
  Val key = ox_attrv(n, 0);
  const Val *items = &key;
  tfs_i64 nitems = 1;
  if (val_is(key, &tuple_type)) seq_items(key, &nitems, &items);
  int nreal = 0;
  for (tfs_i64 k = 0; k < nitems; k++)
    if (!val_is(items[k], &ellipsis_type) && items[k].tag != VT_NONE) nreal++;
  char *st[TFS_MAX_RANK], *en[TFS_MAX_RANK], *sp[TFS_MAX_RANK];
  int64_t axes[TFS_MAX_RANK], shrink[TFS_MAX_RANK], newax[TFS_MAX_RANK];
  int ns = 0, nsh = 0, nnew = 0, d = 0, r = 0;
  for (tfs_i64 k = 0; k < nitems; k++) {
    Val it = items[k];
    int leaf;
    int64_t ix;
    if (it.tag == VT_NONE) {
      newax[nnew++] = r++;
    } else if (val_is(it, &ellipsis_type)) {
      int m = a->rank - nreal;
      d += m;
      r += m;
    } else if (val_is(it, &slice_type)) {
      Slice *sl = (Slice *)it.u.o;
      bool neg = sl->step.tag == VT_INT && sl->step.u.i < 0;
      axes[ns] = d;
      st[ns] = ox_ss_bound(x, s, n, sl->lo, neg ? INT64_MAX : 0, loc);
      en[ns] = ox_ss_bound(x, s, n, sl->hi, neg ? INT64_MIN : INT64_MAX, loc);
      sp[ns] = ox_ss_bound(x, s, n, sl->step, 1, loc);
      ns++;
      d++;
      r++;
    } else if (nest_is_leaf(it, &leaf) || it.tag == VT_INT) {
      /* [i, i + 1), where i = -1 ends at the end */
      char *i = ox_ss_bound(x, s, n, it, 0, loc);
      char *i1 = ox_op2(x, "Add", i, ox_i64s(x, 1, 1, (int64_t[]){1}));
      char *w[3] = {ox_op2(x, "Equal", i1, ox_i64s(x, 1, 1, (int64_t[]){0})), ox_i64s(x, 1, 1, (int64_t[]){INT64_MAX}), i1};
      axes[ns] = d;
      st[ns] = i;
      en[ns] = ox_op(x, "Where", 3, w);
      sp[ns] = ox_i64s(x, 1, 1, (int64_t[]){1});
      ns++;
      shrink[nsh++] = d;
      d++;
    } else {
      (void)ix;
      ox_fail(loc, "%s: an index key item has no ONNX form", n->op->graph_name);
    }
  }
  char *v = in;
  if (ns) {
    char *sin[5] = {in, ox_concat(x, ns, st, 0), ox_concat(x, ns, en, 0), ox_i64s(x, 1, ns, axes), ox_concat(x, ns, sp, 0)};
    v = ox_op(x, "Slice", 5, sin);
  }
  if (nsh) v = ox_sq(x, v, nsh, shrink);
  if (nnew) v = ox_op2(x, "Unsqueeze", v, ox_i64s(x, 1, nnew, newax));
  return v;
}

static const char *ox_simple_unary(OpId id) {
  switch (id) {
    case OP_NEG: return "Neg";
    case OP_ABS: return "Abs";
    case OP_SIGN: return "Sign";
    case OP_SQRT: return "Sqrt";
    case OP_EXP: return "Exp";
    case OP_LOG: return "Log";
    case OP_SIN: return "Sin";
    case OP_COS: return "Cos";
    case OP_TAN: return "Tan";
    case OP_ASIN: return "Asin";
    case OP_ACOS: return "Acos";
    case OP_ATAN: return "Atan";
    case OP_SINH: return "Sinh";
    case OP_COSH: return "Cosh";
    case OP_ASINH: return "Asinh";
    case OP_ACOSH: return "Acosh";
    case OP_ATANH: return "Atanh";
    case OP_RINT: return "Round";   /* ONNX's Round rounds halves to even, as Rint */
    case OP_TANH: return "Tanh";
    case OP_SIGMOID: return "Sigmoid";
    case OP_FLOOR: return "Floor";
    case OP_CEIL: return "Ceil";
    case OP_RECIPROCAL: return "Reciprocal";
    case OP_SOFTPLUS: return "Softplus";
    case OP_ELU: return "Elu";
    case OP_ERF: return "Erf";
    case OP_SELU: return "Selu";
    case OP_IS_NAN: return "IsNaN";
    case OP_LOGICAL_NOT: return "Not";
    case OP_IDENTITY: return "Identity";
    case OP_STOP_GRADIENT: return "Identity";
    case OP_ENSURE_SHAPE: return "Identity";
    case OP_READ_VARIABLE: return "Identity";
    default: return NULL;
  }
}

static const char *ox_simple_binary(OpId id) {
  switch (id) {
    case OP_ADD: return "Add";
    case OP_SUB: return "Sub";
    case OP_MUL: return "Mul";
    case OP_POW: return "Pow";
    case OP_MAXIMUM: return "Max";
    case OP_MINIMUM: return "Min";
    case OP_EQUAL: return "Equal";
    case OP_LESS: return "Less";
    case OP_LESS_EQUAL: return "LessOrEqual";
    case OP_GREATER: return "Greater";
    case OP_GREATER_EQUAL: return "GreaterOrEqual";
    case OP_LOGICAL_AND: return "And";
    case OP_LOGICAL_OR: return "Or";
    case OP_LOGICAL_XOR: return "Xor";
    case OP_BIAS_ADD: return "Add";
    default: return NULL;
  }
}

/* Lower one op node; fills out[0..nout). */
static void ox_lower_op(Ox *x, OxScope *s, int id, char **out) {
  const GraphNode *n = &s->g->nodes[id];
  int loc = n->loc;
  OpId op = n->op->id;
  char *in[OP_MAX_ARGS] = {0};
  for (int i = 0; i < n->nin; i++) {
    if (n->in[i].node >= 0) {
      in[i] = ox_ref(s, n->in[i]);
    } else if (n->raw && n->raw[i].tag != VT_UNDEF && n->raw[i].tag != VT_NONE) {
      Tensor *t = val_as_tensor(n->raw[i]);
      if (t && !t->sym) in[i] = ox_const(x, t, loc);
    }
  }
  const TMeta *om = n->nout ? &n->outm[0] : NULL;
  const TMeta *im = n->nin && n->in[0].node >= 0 ? graph_meta(s->g, n->in[0]) : NULL;
  DType dt = im ? im->dtype : om ? om->dtype : DT_FLOAT32;
  bool isint = dtype_info[dt].is_int;
  const char *u = ox_simple_unary(op), *b = ox_simple_binary(op);
  if (n->flags & GNF_LIST && op != OP_ADD_N && op != OP_CONCAT && op != OP_STACK) u = b = NULL;
  if (u && op != OP_READ_VARIABLE) {
    out[0] = ox_op1(x, u, in[0]);
    return;
  }
  if (b) {
    out[0] = ox_op2(x, b, in[0], in[1]);
    return;
  }
  switch (op) {
    case OP_READ_VARIABLE:
      out[0] = ox_op1(x, "Identity", in[0]);
      return;
    case OP_DIV: {
      char *p = in[0], *q = in[1];
      if (om && om->dtype != dt) {
        p = ox_cast(x, p, om->dtype);
        q = ox_cast(x, q, om->dtype);
      }
      out[0] = ox_op2(x, "Div", p, q);
      return;
    }
    case OP_FLOORDIV:
    case OP_MOD: {
      char *m;
      if (isint) {
        char *mo;
        Onnx__NodeProto *nd = ox_emit(x, "Mod", 2, in, 1, &mo);
        ox_attr_i(x, nd, "fmod", 0);   /* floor mod: the sign of the divisor, as TF */
        m = mo;
        out[0] = op == OP_MOD ? m : ox_op2(x, "Div", ox_op2(x, "Sub", in[0], m), in[1]);
      } else {
        char *fq = ox_op1(x, "Floor", ox_op2(x, "Div", in[0], in[1]));
        out[0] = op == OP_FLOORDIV ? fq : ox_op2(x, "Sub", in[0], ox_op2(x, "Mul", fq, in[1]));
      }
      return;
    }
    case OP_SQDIFF: {
      char *d = ox_op2(x, "Sub", in[0], in[1]);
      out[0] = ox_op2(x, "Mul", d, d);
      return;
    }
    case OP_SQUARE:
      out[0] = ox_op2(x, "Mul", in[0], in[0]);
      return;
    case OP_NOT_EQUAL:
      out[0] = ox_op1(x, "Not", ox_op2(x, "Equal", in[0], in[1]));
      return;
    case OP_RSQRT:
      out[0] = ox_op1(x, "Reciprocal", ox_op1(x, "Sqrt", in[0]));
      return;
    case OP_LOG1P:
      out[0] = ox_op1(x, "Log", ox_op2(x, "Add", in[0], ox_scalar(x, dt, 1)));
      return;
    case OP_EXPM1:
      out[0] = ox_op2(x, "Sub", ox_op1(x, "Exp", in[0]), ox_scalar(x, dt, 1));
      return;
    case OP_ERFC:
      out[0] = ox_op2(x, "Sub", ox_scalar(x, dt, 1), ox_op1(x, "Erf", in[0]));
      return;
    case OP_ROUND:
      out[0] = isint ? ox_op1(x, "Identity", in[0]) : ox_op1(x, "Round", in[0]);
      return;
    case OP_RELU:
      out[0] = ox_op2(x, "Max", in[0], ox_scalar(x, dt, 0));
      return;
    case OP_RELU6:
      out[0] = ox_op2(x, "Min", ox_op2(x, "Max", in[0], ox_scalar(x, dt, 0)), ox_scalar(x, dt, 6));
      return;
    case OP_LEAKY_RELU: {
      Val al = ox_attrv(n, 0);
      double alpha = al.tag == VT_FLOAT ? al.u.f : al.tag == VT_INT ? (double)al.u.i : 0.2;
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, "LeakyRelu", 1, in, 1, &o);
      ox_attr_f(x, nd, "alpha", (float)alpha);
      out[0] = o;
      return;
    }
    case OP_GELU:
      out[0] = ox_gelu(x, dt, in[0], ox_bool_attr(n, 0, false));
      return;
    case OP_IS_INF:
      out[0] = ox_op1(x, "IsInf", in[0]);
      return;
    case OP_IS_FINITE:
      out[0] = ox_op1(x, "Not", ox_op2(x, "Or", ox_op1(x, "IsNaN", in[0]), ox_op1(x, "IsInf", in[0])));
      return;
    case OP_CAST:
      out[0] = om->dtype == dt ? ox_op1(x, "Identity", in[0]) : ox_cast(x, in[0], om->dtype);
      return;
    case OP_SELECT:
      if (n->nin >= 3 && in[1] && in[2]) {
        char *w[3] = {in[0], in[1], in[2]};
        out[0] = ox_op(x, "Where", 3, w);
      } else {   /* coordinates of the true elements: [n, rank] */
        char *nz = ox_op1(x, "NonZero", in[0]);
        char *o;
        Onnx__NodeProto *nd = ox_emit(x, "Transpose", 1, &nz, 1, &o);
        ox_attr_ints(x, nd, "perm", 2, (int64_t[]){1, 0});
        out[0] = o;
      }
      return;
    case OP_CLIP:
      out[0] = ox_op2(x, "Min", ox_op2(x, "Max", in[0], in[1]), in[2]);
      return;
    case OP_ADD_N: {
      char *acc = ox_ref(s, n->in[0]);
      for (int i = 1; i < n->nin; i++) acc = ox_op2(x, "Add", acc, ox_ref(s, n->in[i]));
      out[0] = n->nin == 1 ? ox_op1(x, "Identity", acc) : acc;
      return;
    }
    case OP_SUM:
    case OP_MAX:
    case OP_MIN:
    case OP_PROD:
    case OP_LOGSUMEXP: {
      const char *ro = op == OP_SUM ? "ReduceSum" : op == OP_MAX ? "ReduceMax" : op == OP_MIN ? "ReduceMin" : op == OP_PROD ? "ReduceProd" : "ReduceLogSumExp";
      out[0] = ox_reduce(x, s, n, ro, in[0], ox_bool_attr(n, 1, false), loc);
      return;
    }
    case OP_ANY:
    case OP_ALL: {
      const char *ro = op == OP_ANY ? "ReduceMax" : "ReduceMin";
      char *r = ox_reduce(x, s, n, ro, ox_cast(x, in[0], DT_INT32), ox_bool_attr(n, 1, false), loc);
      out[0] = ox_cast(x, r, DT_BOOL);
      return;
    }
    case OP_MEAN: {
      bool keep = ox_bool_attr(n, 1, false);
      if (!isint) {
        out[0] = ox_reduce(x, s, n, "ReduceMean", in[0], keep, loc);
        return;
      }
      /* integer mean truncates as TF: sum / (elements per result) */
      char *sum = ox_reduce(x, s, n, "ReduceSum", in[0], keep, loc);
      char *cnt = ox_op2(x, "Div", ox_op1(x, "Size", in[0]), ox_op1(x, "Size", sum));
      out[0] = ox_op2(x, "Div", sum, ox_cast(x, cnt, dt));
      return;
    }
    case OP_ARGMAX:
    case OP_ARGMIN: {
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, op == OP_ARGMAX ? "ArgMax" : "ArgMin", 1, in, 1, &o);
      ox_attr_i(x, nd, "axis", ox_int_attr(n, 0, 0, loc));
      ox_attr_i(x, nd, "keepdims", 0);
      out[0] = om->dtype == DT_INT64 ? o : ox_cast(x, o, om->dtype);
      return;
    }
    case OP_SOFTMAX:
    case OP_LOG_SOFTMAX: {
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, op == OP_SOFTMAX ? "Softmax" : "LogSoftmax", 1, in, 1, &o);
      ox_attr_i(x, nd, "axis", ox_int_attr(n, 0, -1, loc));
      out[0] = o;
      return;
    }
    case OP_MATMUL: {
      const TMeta *bm = graph_meta(s->g, n->in[1]);
      char *p = in[0], *q = in[1];
      if (ox_bool_attr(n, 0, false) || ox_bool_attr(n, 2, false)) p = ox_t2(x, p, im->rank);
      if (ox_bool_attr(n, 1, false) || ox_bool_attr(n, 3, false)) q = ox_t2(x, q, bm->rank);
      out[0] = ox_op2(x, "MatMul", p, q);
      return;
    }
    case OP_TRANSPOSE: {
      int64_t perm[TFS_MAX_RANK];
      int k = 0;
      if (!ox_given(ox_attrv(n, 0))) {
        for (int i = 0; i < im->rank; i++) perm[i] = im->rank - 1 - i;
        k = im->rank;
      } else if (ox_dyn(n, 0).node >= 0 || !ox_host_ints(ox_attrv(n, 0), perm, &k, TFS_MAX_RANK)) {
        ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "perm");
      }
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, "Transpose", 1, in, 1, &o);
      ox_attr_ints(x, nd, "perm", k, perm);
      out[0] = o;
      return;
    }
    case OP_RESHAPE:
      out[0] = ox_op2(x, "Reshape", in[0], ox_ints_value(x, s, n, 0, loc));
      return;
    case OP_EXPAND_DIMS:
      out[0] = ox_op2(x, "Unsqueeze", in[0], ox_ints_value(x, s, n, 0, loc));
      return;
    case OP_SQUEEZE: {
      char *axes = ox_ints_value(x, s, n, 0, loc);
      out[0] = axes ? ox_op2(x, "Squeeze", in[0], axes) : ox_op1(x, "Squeeze", in[0]);
      return;
    }
    case OP_STRIDED_SLICE:
      out[0] = ox_strided_slice(x, s, n, in[0], loc);
      return;
    case OP_SLICE: {
      char *begin = ox_ints_value(x, s, n, 0, loc), *size = ox_ints_value(x, s, n, 1, loc);
      /* size -1: to the end */
      char *end = ox_op2(x, "Add", begin, size);
      char *neg = ox_op2(x, "Less", size, ox_i64(x, 0));
      char *w[3] = {neg, ox_i64s(x, 1, 1, (int64_t[]){INT64_MAX}), end};
      char *sin[3] = {in[0], begin, ox_op(x, "Where", 3, w)};
      out[0] = ox_op(x, "Slice", 3, sin);
      return;
    }
    case OP_CONCAT:
    case OP_STACK: {
      int64_t axis = ox_int_attr(n, 0, 0, loc);
      char **parts = pa_alloc(x->a, sizeof(char *) * (size_t)(n->nin + 1));
      for (int i = 0; i < n->nin; i++) parts[i] = op == OP_STACK ? ox_unsq(x, ox_ref(s, n->in[i]), axis) : ox_ref(s, n->in[i]);
      out[0] = ox_concat(x, n->nin, parts, axis);
      return;
    }
    case OP_CUMSUM: {   /* CumSum(x, axis) with exclusive/reverse; ONNX has no cumulative product */
      char *ins[2] = {in[0], ox_i64(x, ox_int_attr(n, 0, 0, loc))}, *o;
      Onnx__NodeProto *nd = ox_emit(x, "CumSum", 2, ins, 1, &o);
      ox_attr_i(x, nd, "exclusive", ox_bool_attr(n, 1, false));
      ox_attr_i(x, nd, "reverse", ox_bool_attr(n, 2, false));
      out[0] = o;
      return;
    }
    case OP_RESIZE_BILINEAR:
    case OP_RESIZE_NEAREST:
    case OP_RESIZE_BICUBIC: {
      /* Resize(X, roi "", scales "", sizes [N, h, w, C]) over NHWC: the sizes from X's shape and the size attribute.
       * TF's half-pixel scalers are ONNX's half_pixel (tf_half_pixel_for_nn with floor for nearest); its
       * bicubic is Keys' a = -0.5 with out-of-image taps dropped (exclude_outside) */
      tfs_i64 hw[TFS_MAX_RANK];
      if (val_to_dims(n->attrs.v[0], hw, false, "size") != 2) ox_fail(loc, "%s: the size must be 2 known ints for ONNX", n->op->graph_name);
      bool align = ox_bool_attr(n, 1, false), half = ox_bool_attr(n, 2, false);
      int64_t nhwc_lo[1] = {0}, one[1] = {1}, three[1] = {3}, four[1] = {4}, mid[2] = {hw[0], hw[1]};
      char *shape = ox_op1(x, "Shape", in[0]);
      char *sl0[3] = {shape, ox_i64s(x, 1, 1, nhwc_lo), ox_i64s(x, 1, 1, one)};
      char *sl3[3] = {shape, ox_i64s(x, 1, 1, three), ox_i64s(x, 1, 1, four)};
      char *parts[3] = {ox_op(x, "Slice", 3, sl0), ox_i64s(x, 1, 2, mid), ox_op(x, "Slice", 3, sl3)};
      char *sizes = ox_concat(x, 3, parts, 0);
      bool nearest = op == OP_RESIZE_NEAREST;
      const TMeta *xm = graph_meta(s->g, n->in[0]);
      char *xin = !nearest && xm->dtype != DT_FLOAT32 ? ox_cast(x, in[0], DT_FLOAT32) : in[0];
      char *ins[4] = {xin, "", "", sizes}, *o;
      Onnx__NodeProto *nd = ox_emit(x, "Resize", 4, ins, 1, &o);
      ox_attr_s(x, nd, "mode", nearest ? "nearest" : op == OP_RESIZE_BICUBIC ? "cubic" : "linear");
      ox_attr_s(x, nd, "coordinate_transformation_mode",
                align ? "align_corners" : !half ? "asymmetric" : nearest ? "tf_half_pixel_for_nn" : "half_pixel");
      if (nearest) ox_attr_s(x, nd, "nearest_mode", align ? "round_prefer_ceil" : "floor");
      if (op == OP_RESIZE_BICUBIC) {
        ox_attr_f(x, nd, "cubic_coeff_a", half ? -0.5f : -0.75f);
        ox_attr_i(x, nd, "exclude_outside", half ? 1 : 0);
      }
      out[0] = o;
      return;
    }
    case OP_TOP_K: {   /* TopK(X, K[1]) over the last axis, largest first; its int64 indices cast to the op's */
      int64_t k = ox_int_attr(n, 0, 1, loc);
      char *ins[2] = {in[0], ox_i64s(x, 1, 1, &k)}, *o[2];
      Onnx__NodeProto *nd = ox_emit(x, "TopK", 2, ins, 2, o);
      ox_attr_i(x, nd, "axis", -1);
      ox_attr_i(x, nd, "largest", 1);
      ox_attr_i(x, nd, "sorted", 1);
      out[0] = o[0];
      out[1] = n->outm[1].dtype == DT_INT64 ? o[1] : ox_cast(x, o[1], n->outm[1].dtype);
      return;
    }
    case OP_TENSOR_SCATTER_UPDATE:
    case OP_TENSOR_SCATTER_ADD: {   /* ScatterND (opset 16+: reduction 'add'); its indices are int64 */
      const TMeta *ixm = graph_meta(s->g, n->in[1]);
      char *ins[3] = {in[0], ixm->dtype == DT_INT64 ? in[1] : ox_cast(x, in[1], DT_INT64), in[2]}, *o;
      Onnx__NodeProto *nd = ox_emit(x, "ScatterND", 3, ins, 1, &o);
      if (op == OP_TENSOR_SCATTER_ADD) ox_attr_s(x, nd, "reduction", "add");
      out[0] = o;
      return;
    }
    case OP_UNSTACK: {
      int64_t axis = ox_int_attr(n, 1, 0, loc);
      char **parts = pa_alloc(x->a, sizeof(char *) * (size_t)(n->nout + 1));
      Onnx__NodeProto *nd = ox_emit(x, "Split", 1, in, n->nout, parts);
      ox_attr_i(x, nd, "axis", axis);
      for (int i = 0; i < n->nout; i++) out[i] = ox_sq(x, parts[i], 1, &axis);
      return;
    }
    case OP_LSTM_SEQ: {
      /* ONNX's LSTM on the projected input: X = xp [T, B, 4H] with W the permutation taking Keras' gate blocks
       * (i, f, g, o) to ONNX's (i, o, f, c), so X W^T only reorders (exact); R and B are the recurrent kernel's
       * and the bias's columns in that order.  go_backwards reverses X (a Slice of step -1): hs stays in step order. */
      if (in[5] || in[6] || !ox_rnn_default_acts(n, 3)) {
        ox_rnn_unrolled(x, s, n, in, out, loc);
        return;
      }
      int64_t H = ox_rnn_units(s, n, 3, 1, loc), G = 4 * H;
      static const int blk[4] = {0, 3, 1, 2};
      tfs_i64 wsh[3] = {1, G, G};
      Tensor *w = tensor_new(DT_FLOAT32, 3, wsh), *cols = tensor_new(DT_INT64, 1, &wsh[1]);
      memset(tensor_data(w), 0, sizeof(float) * (size_t)(G * G));
      for (int64_t r = 0; r < G; r++) {
        int64_t col = blk[r / H] * H + r % H;
        ((float *)tensor_data(w))[r * G + col] = 1.0f;
        ((int64_t *)tensor_data(cols))[r] = col;
      }
      char *wn = ox_const(x, w, loc), *cn = ox_const(x, cols, loc);
      tensor_release(w);
      tensor_release(cols);
      char *gi[2] = {in[3], cn}, *o;
      Onnx__NodeProto *nd = ox_emit(x, "Gather", 2, gi, 1, &o);
      ox_attr_i(x, nd, "axis", 1);
      static const int64_t t10[2] = {1, 0}, t102[3] = {1, 0, 2};
      char *rn = ox_unsq(x, ox_perm_n(x, o, 2, t10), 0);
      char *bz = ox_const_zeros(x, G, loc), *bn;
      if (in[4]) {
        char *bi[2] = {in[4], cn}, *bo[2];
        ox_emit(x, "Gather", 2, bi, 1, bo);
        bo[1] = bz;
        bn = ox_unsq(x, ox_concat(x, 2, bo, 0), 0);
      } else {
        char *bo[2] = {bz, bz};
        bn = ox_unsq(x, ox_concat(x, 2, bo, 0), 0);
      }
      char *xs = ox_bool_attr(n, 0, false) ? ox_time_reversed(x, in[0]) : in[0];
      char *li[7] = {xs, wn, rn, bn, "", ox_unsq(x, in[1], 0), ox_unsq(x, in[2], 0)}, *lo[3];
      nd = ox_emit(x, "LSTM", 7, li, 3, lo);
      ox_attr_i(x, nd, "hidden_size", H);
      int64_t one = 1, zero = 0;
      char *ys = ox_sq(x, lo[0], 1, &one);
      out[0] = ox_perm_n(x, ys, 3, t102);
      out[1] = ox_sq(x, lo[1], 1, &zero);
      out[2] = ox_sq(x, lo[2], 1, &zero);
      /* the cells and activations it does not keep: 0 steps */
      out[3] = ox_no_steps(x, ys, 1);
      out[4] = ox_no_steps(x, ys, 5);
      return;
    }
    case OP_GRU_SEQ: {
      /* ONNX's GRU (gates z, r, h: Keras' order) on the projected input: X = xp [T, B, 3H] with W the identity
       * (exact), R = U^T, B = [input bias, recurrent bias] (reset_after, linear_before_reset=1) or [bias, 0]
       * (reset_after=False: Keras' one bias, ONNX's default form); go_backwards reverses X as for the LSTM. */
      if (in[4] || in[5] || !ox_rnn_default_acts(n, 4)) {
        ox_rnn_unrolled(x, s, n, in, out, loc);
        return;
      }
      int64_t H = ox_rnn_units(s, n, 2, 2, loc), G = 3 * H;
      bool after = ox_bool_attr(n, 1, true);
      tfs_i64 wsh[3] = {1, G, G};
      Tensor *w = tensor_new(DT_FLOAT32, 3, wsh);
      memset(tensor_data(w), 0, sizeof(float) * (size_t)(G * G));
      for (int64_t r = 0; r < G; r++) ((float *)tensor_data(w))[r * G + r] = 1.0f;
      char *wn = ox_const(x, w, loc);
      tensor_release(w);
      static const int64_t t10[2] = {1, 0}, t102[3] = {1, 0, 2};
      char *rn = ox_unsq(x, ox_perm_n(x, in[2], 2, t10), 0), *bn;
      int64_t b16[2] = {1, 2 * G};
      if (in[3] && after) bn = ox_op2(x, "Reshape", in[3], ox_i64s(x, 1, 2, b16));
      else {
        char *bz = ox_const_zeros(x, G, loc), *bo[2] = {in[3] ? in[3] : bz, bz};
        bn = ox_unsq(x, ox_concat(x, 2, bo, 0), 0);
      }
      char *xs = ox_bool_attr(n, 0, false) ? ox_time_reversed(x, in[0]) : in[0];
      char *gi[6] = {xs, wn, rn, bn, "", ox_unsq(x, in[1], 0)}, *go[2];
      Onnx__NodeProto *nd = ox_emit(x, "GRU", 6, gi, 2, go);
      ox_attr_i(x, nd, "hidden_size", H);
      ox_attr_i(x, nd, "linear_before_reset", after ? 1 : 0);
      int64_t one = 1, zero = 0;
      char *ys = ox_sq(x, go[0], 1, &one);
      out[0] = ox_perm_n(x, ys, 3, t102);
      out[1] = ox_sq(x, go[1], 1, &zero);
      out[2] = ox_no_steps(x, ys, 4);   /* the activations it does not keep: 0 steps */
      return;
    }
    case OP_SRNN_SEQ:
      ox_rnn_unrolled(x, s, n, in, out, loc);
      return;
    case OP_GATHER: {
      if (ox_int_attr(n, 2, 0, loc) != 0) ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "batch_dims");
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, "Gather", 2, in, 1, &o);
      ox_attr_i(x, nd, "axis", ox_int_attr(n, 1, 0, loc));
      out[0] = o;
      return;
    }
    case OP_GATHER_ND: {
      char *o;
      char *gi[2] = {in[0], ox_cast(x, in[1], DT_INT64)};
      Onnx__NodeProto *nd = ox_emit(x, "GatherND", 2, gi, 1, &o);
      ox_attr_i(x, nd, "batch_dims", ox_int_attr(n, 0, 0, loc));
      out[0] = o;
      return;
    }
    case OP_PAD: {
      Val mode = ox_attrv(n, 1);
      const char *ms = ox_given(mode) && val_is(mode, &str_type) ? str_cstr(mode) : "CONSTANT";
      if (strcasecmp(ms, "CONSTANT") != 0 && strcasecmp(ms, "REFLECT") != 0)
        ox_fail(loc, "%s: mode '%s' has no ONNX form", n->op->graph_name, ms);
      int64_t pb[2 * TFS_MAX_RANK], pads[2 * TFS_MAX_RANK];
      int k;
      if (ox_dyn(n, 0).node >= 0 || !ox_host_ints(ox_attrv(n, 0), pb, &k, 2 * TFS_MAX_RANK)) {
        /* nested [[before, after], ...] lists */
        Val pv = ox_attrv(n, 0);
        tfs_i64 np;
        const Val *rows;
        if (ox_dyn(n, 0).node >= 0 || !seq_items(pv, &np, &rows) || np > TFS_MAX_RANK)
          ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "paddings");
        for (tfs_i64 i = 0; i < np; i++) {
          int kk;
          if (!ox_host_ints(rows[i], pb + 2 * i, &kk, 2) || kk != 2)
            ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "paddings");
        }
        k = (int)(2 * np);
      }
      int rank = k / 2;
      for (int i = 0; i < rank; i++) {
        pads[i] = pb[2 * i];
        pads[rank + i] = pb[2 * i + 1];
      }
      Val cv = ox_attrv(n, 2);
      double c = cv.tag == VT_FLOAT ? cv.u.f : cv.tag == VT_INT || cv.tag == VT_BOOL ? (double)cv.u.i : 0;
      char *pin[3] = {in[0], ox_i64s(x, 1, 2 * rank, pads), ox_scalar(x, dt, c)};
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, "Pad", 3, pin, 1, &o);
      ox_attr_s(x, nd, "mode", strcasecmp(ms, "CONSTANT") == 0 ? "constant" : "reflect");
      out[0] = o;
      return;
    }
    case OP_TILE:
      out[0] = ox_op2(x, "Tile", in[0], ox_ints_value(x, s, n, 0, loc));
      return;
    case OP_BROADCAST_TO:
      out[0] = ox_op2(x, "Expand", in[0], ox_ints_value(x, s, n, 0, loc));
      return;
    case OP_SHAPE:
      out[0] = ox_cast(x, ox_op1(x, "Shape", in[0]), om->dtype);
      return;
    case OP_SIZE:
      out[0] = ox_cast(x, ox_op1(x, "Size", in[0]), om->dtype);
      return;
    case OP_RANK:
      out[0] = ox_cast(x, ox_op1(x, "Size", ox_op1(x, "Shape", in[0])), om->dtype);
      return;
    case OP_ZEROS_LIKE:
    case OP_ONES_LIKE: {
      char *c = ox_scalar(x, om->dtype, op == OP_ONES_LIKE);
      out[0] = ox_op2(x, "Expand", c, ox_op1(x, "Shape", in[0]));
      return;
    }
    case OP_ZEROS:
    case OP_ONES:
      out[0] = ox_op2(x, "Expand", ox_scalar(x, om->dtype, op == OP_ONES), ox_ints_value(x, s, n, 0, loc));
      return;
    case OP_FILL: {
      char *v = in[0] ? in[0] : NULL;
      if (!v) ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "value");
      out[0] = ox_op2(x, "Expand", v, ox_ints_value(x, s, n, 0, loc));
      return;
    }
    case OP_RANGE: {
      char *r[3];
      double dflt[3] = {0, 0, 1};
      Val start = ox_attrv(n, 0), limit = ox_attrv(n, 1);
      for (int i = 0; i < 3; i++) {
        int ai = i;
        if (i == 0 && !ox_given(limit) && ox_dyn(n, 1).node < 0) ai = -1;   /* range(n): start 0, limit n */
        if (i == 1 && !ox_given(limit) && ox_dyn(n, 1).node < 0) ai = 0;
        GraphRef g = ai >= 0 ? ox_dyn(n, ai) : (GraphRef){-1, 0};
        if (g.node >= 0) {
          r[i] = ox_ref(s, g);
          if (graph_meta(s->g, g)->dtype != om->dtype) r[i] = ox_cast(x, r[i], om->dtype);
          if (graph_meta(s->g, g)->rank != 0) r[i] = ox_op1(x, "Squeeze", r[i]);
          continue;
        }
        Val v = ai >= 0 ? ox_attrv(n, ai) : val_undef();
        double d = dflt[i];
        if (v.tag == VT_INT || v.tag == VT_BOOL) d = (double)v.u.i;
        else if (v.tag == VT_FLOAT) d = v.u.f;
        else if (ox_given(v)) {
          Tensor *t = val_as_tensor(v);
          if (!t || t->sym || t->size != 1) ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, op_attr_name(n->op, ai));
          d = tensor_get_f(t, 0);
        }
        (void)start;
        r[i] = ox_scalar(x, om->dtype, d);
      }
      out[0] = ox_op(x, "Range", 3, r);
      return;
    }
    case OP_ONE_HOT: {
      int64_t depth = ox_int_attr(n, 0, 0, loc);
      Val on = ox_attrv(n, 1), off = ox_attrv(n, 2);
      double onv = on.tag == VT_FLOAT ? on.u.f : on.tag == VT_INT ? (double)on.u.i : 1;
      double offv = off.tag == VT_FLOAT ? off.u.f : off.tag == VT_INT ? (double)off.u.i : 0;
      if ((ox_given(on) && on.tag != VT_FLOAT && on.tag != VT_INT) || (ox_given(off) && off.tag != VT_FLOAT && off.tag != VT_INT))
        ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "on_value");
      tfs_i64 two = 2;
      Tensor *vals = tensor_new(om->dtype, 1, &two);
      ox_set(vals, 0, offv);
      ox_set(vals, 1, onv);
      char *vn = ox_const(x, vals, loc);
      tensor_release(vals);
      /* ONNX Runtime's OneHot kernels take int64 indices */
      char *oin[3] = {ox_cast(x, in[0], DT_INT64), ox_i64(x, depth), vn};
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, "OneHot", 3, oin, 1, &o);
      ox_attr_i(x, nd, "axis", ox_int_attr(n, 3, -1, loc));
      out[0] = o;
      return;
    }
    case OP_CONV2D:
    case OP_MAX_POOL: {
      static const int64_t to_nchw[4] = {0, 3, 1, 2}, to_nhwc[4] = {0, 2, 3, 1}, hwio_to_oihw[4] = {3, 2, 0, 1};
      bool conv = op == OP_CONV2D;
      int64_t strides[2], other[2];
      ox_hw(n, conv ? 0 : 1, 1, strides, loc);
      ox_hw(n, conv ? 3 : 0, 1, other, loc);   /* dilations / ksize */
      ox_data_format(n, conv ? 2 : 3, loc);
      const char *pad = ox_auto_pad(n, conv ? 1 : 2, loc);
      char *cin[2] = {ox_perm(x, in[0], to_nchw), conv ? ox_perm(x, in[1], hwio_to_oihw) : NULL};
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, conv ? "Conv" : "MaxPool", conv ? 2 : 1, cin, 1, &o);
      ox_attr_ints(x, nd, "strides", 2, strides);
      ox_attr_ints(x, nd, conv ? "dilations" : "kernel_shape", 2, other);
      ox_attr_s(x, nd, "auto_pad", pad);
      out[0] = ox_perm(x, o, to_nhwc);
      return;
    }
    case OP_CONV3D: {
      /* NDHWC -> NCDHW around ONNX's Conv, filters [KD, KH, KW, C, O] -> weight [O, C, KD, KH, KW]; strides and
       * dilations are TF's 5 ints (1 for the batch and channel dims, which Conv3D's meta checked) */
      static const int64_t to_ncdhw[5] = {0, 4, 1, 2, 3}, to_ndhwc[5] = {0, 2, 3, 4, 1}, dhwio_to_oidhw[5] = {4, 3, 0, 1, 2};
      int64_t sd[2][5] = {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}};
      for (int k = 0; k < 2; k++) {
        int ai = k ? 3 : 0, got = 0;
        Val v = ox_attrv(n, ai);
        if (!ox_given(v)) continue;
        if (ox_dyn(n, ai).node >= 0 || !ox_host_ints(v, sd[k], &got, 5) || got != 5)
          ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, op_attr_name(n->op, ai));
      }
      Val fv = ox_attrv(n, 2);
      if (ox_given(fv) && (!val_is(fv, &str_type) || strcmp(str_cstr(fv), "NDHWC") != 0))
        ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "data_format");
      const char *pad = ox_auto_pad(n, 1, loc);
      char *cin[2] = {ox_perm_n(x, in[0], 5, to_ncdhw), ox_perm_n(x, in[1], 5, dhwio_to_oidhw)};
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, "Conv", 2, cin, 1, &o);
      ox_attr_ints(x, nd, "strides", 3, sd[0] + 1);
      ox_attr_ints(x, nd, "dilations", 3, sd[1] + 1);
      ox_attr_s(x, nd, "auto_pad", pad);
      out[0] = ox_perm_n(x, o, 5, to_ndhwc);
      return;
    }
    case OP_MAX_POOL3D:
    case OP_AVG_POOL3D: {
      /* NDHWC -> NCDHW around ONNX's MaxPool / AveragePool (count_include_pad 0: the average over real cells, as
       * TF's); ksize and strides an int or 1, 3 or 5 ints */
      static const int64_t to_ncdhw[5] = {0, 4, 1, 2, 3}, to_ndhwc[5] = {0, 2, 3, 4, 1};
      int64_t ks[2][3];
      for (int k = 0; k < 2; k++) {
        int64_t b[5];
        int got = 0;
        if (ox_dyn(n, k).node >= 0 || !ox_host_ints(ox_attrv(n, k), b, &got, 5) || (got != 1 && got != 3 && got != 5))
          ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, op_attr_name(n->op, k));
        for (int i = 0; i < 3; i++) ks[k][i] = got == 1 ? b[0] : got == 3 ? b[i] : b[1 + i];
      }
      Val fv = ox_attrv(n, 3);
      if (ox_given(fv) && (!val_is(fv, &str_type) || strcmp(str_cstr(fv), "NDHWC") != 0))
        ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "data_format");
      const char *pad = ox_auto_pad(n, 2, loc);
      char *cin = ox_perm_n(x, in[0], 5, to_ncdhw), *o;
      Onnx__NodeProto *nd = ox_emit(x, op == OP_MAX_POOL3D ? "MaxPool" : "AveragePool", 1, &cin, 1, &o);
      ox_attr_ints(x, nd, "kernel_shape", 3, ks[0]);
      ox_attr_ints(x, nd, "strides", 3, ks[1]);
      ox_attr_s(x, nd, "auto_pad", pad);
      out[0] = ox_perm_n(x, o, 5, to_ndhwc);
      return;
    }
    case OP_DEPTHWISE: {
      /* a grouped Conv (group = in_channels): filter [KH, KW, C, M] -> weight [C * M, 1, KH, KW], output channel
       * c * M + m as TF's; explicit padding as ONNX's pads [top, left, bottom, right] */
      static const int64_t to_nchw[4] = {0, 3, 1, 2}, to_nhwc[4] = {0, 2, 3, 1}, hwio_to_oihw[4] = {3, 2, 0, 1};
      const TMeta *fm = graph_meta(s->g, n->in[1]);
      if (fm->rank != 4 || fm->shape[0] < 0 || fm->shape[1] < 0 || fm->shape[2] < 0 || fm->shape[3] < 0)
        ox_fail(loc, "%s: a filter of unknown shape has no ONNX form", n->op->graph_name);
      int64_t strides[2], dil[2], pads[4] = {0, 0, 0, 0}, e[8];
      int ne = 0;
      ox_hw(n, 0, 1, strides, loc);
      ox_hw(n, 4, 1, dil, loc);
      ox_data_format(n, 3, loc);
      Val pv = ox_attrv(n, 1), ev = ox_attrv(n, 2);
      bool explicit_pad = val_is(pv, &str_type) && !strcmp(str_cstr(pv), "EXPLICIT");
      if (explicit_pad && (ox_dyn(n, 2).node >= 0 || !ox_host_ints(ev, e, &ne, 8) || ne != 8))
        ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "explicit_paddings");
      if (explicit_pad) pads[0] = e[2], pads[2] = e[3], pads[1] = e[4], pads[3] = e[5];
      int64_t hw1o[4] = {fm->shape[0], fm->shape[1], 1, fm->shape[2] * fm->shape[3]};
      char *w = ox_op2(x, "Reshape", in[1], ox_i64s(x, 1, 4, hw1o));
      char *cin[2] = {ox_perm(x, in[0], to_nchw), ox_perm(x, w, hwio_to_oihw)};
      char *o;
      Onnx__NodeProto *nd = ox_emit(x, "Conv", 2, cin, 1, &o);
      ox_attr_ints(x, nd, "strides", 2, strides);
      ox_attr_ints(x, nd, "dilations", 2, dil);
      ox_attr_i(x, nd, "group", fm->shape[2]);
      if (explicit_pad) ox_attr_ints(x, nd, "pads", 4, pads);
      else ox_attr_s(x, nd, "auto_pad", ox_auto_pad(n, 1, loc));
      out[0] = ox_perm(x, o, to_nhwc);
      return;
    }
    case OP_MATRIX_DETERMINANT:
      out[0] = ox_op1(x, "Det", in[0]);
      return;
    case OP_NORM: {
      Val ord = ox_attrv(n, 0), axv = ox_attrv(n, 1);
      bool keep = ox_bool_attr(n, 2, false);
      int64_t ma[TFS_MAX_RANK];
      int na = 0;
      bool matrix = (val_is(axv, &list_type) || val_is(axv, &tuple_type)) && ox_host_ints(axv, ma, &na, TFS_MAX_RANK) && na == 2;
      bool inf = ord.tag == VT_FLOAT && isinf(ord.u.f) && ord.u.f > 0;
      if (matrix && ((ord.tag == VT_INT && ord.u.i == 1) || (ord.tag == VT_FLOAT && ord.u.f == 1) || inf)) {
        /* ord 1: the largest column sum of |x| (Sum over rows a0, Max over columns a1); inf: rows and columns swapped */
        int rank = n->nin > 0 && n->in[0].node >= 0 ? graph_meta(s->g, n->in[0])->rank : -1;
        if (rank < 0) ox_fail(loc, "%s: a matrix norm of unknown rank has no ONNX form", n->op->graph_name);
        for (int k = 0; k < 2; k++)
          if (ma[k] < 0) ma[k] += rank;
        int64_t first = inf ? ma[1] : ma[0], second = inf ? ma[0] : ma[1];
        char *rin[2] = {ox_op1(x, "Abs", in[0]), ox_i64s(x, 1, 1, &first)}, *r1, *r2;
        Onnx__NodeProto *rs = ox_emit(x, "ReduceSum", 2, rin, 1, &r1);
        ox_attr_i(x, rs, "keepdims", 1);
        Onnx__NodeProto *rm = ox_emit(x, "ReduceMax", 1, &r1, 1, &r2);
        ox_attr_ints(x, rm, "axes", 1, &second);
        ox_attr_i(x, rm, "keepdims", 1);
        int64_t both[2] = {ma[0] < ma[1] ? ma[0] : ma[1], ma[0] < ma[1] ? ma[1] : ma[0]};
        out[0] = keep ? r2 : ox_sq(x, r2, 2, both);
        return;
      }
      if (matrix && ox_given(ord) && !val_is(ord, &str_type))
        ox_fail(loc, "%s: the matrix 2-norm (largest singular value) has no ONNX form", n->op->graph_name);
      if (!ox_given(ord) || (val_is(ord, &str_type) && (!strcmp(str_cstr(ord), "euclidean") || (matrix && !strcmp(str_cstr(ord), "fro")))) || (ord.tag == VT_INT && ord.u.i == 2)) {
        out[0] = ox_reduce_at(x, s, n, 1, "ReduceL2", in[0], keep, loc);
      } else if (ord.tag == VT_INT && ord.u.i == 1) {
        out[0] = ox_reduce_at(x, s, n, 1, "ReduceL1", in[0], keep, loc);
      } else if (ord.tag == VT_FLOAT && isinf(ord.u.f) && ord.u.f > 0) {
        out[0] = ox_reduce_at(x, s, n, 1, "ReduceMax", ox_op1(x, "Abs", in[0]), keep, loc);
      } else {
        ox_fail(loc, "%s: attribute '%s' has no ONNX form", n->op->graph_name, "ord");
      }
      return;
    }
    case OP_SPARSE_XENT: {   /* -log_softmax(logits)[label] per row */
      char *ls;
      Onnx__NodeProto *nd = ox_emit(x, "LogSoftmax", 1, &in[1], 1, &ls);
      ox_attr_i(x, nd, "axis", -1);
      char *idx = ox_unsq(x, ox_cast(x, in[0], DT_INT64), -1);
      char *gi[2] = {ls, idx};
      char *g;
      Onnx__NodeProto *ge = ox_emit(x, "GatherElements", 2, gi, 1, &g);
      ox_attr_i(x, ge, "axis", -1);
      out[0] = ox_op1(x, "Neg", ox_sq(x, g, 1, (int64_t[]){-1}));
      return;
    }
    case OP_XENT: {   /* -sum(labels * log_softmax(logits)) along axis */
      int64_t axis = ox_int_attr(n, 0, -1, loc);
      char *ls;
      Onnx__NodeProto *nd = ox_emit(x, "LogSoftmax", 1, &in[1], 1, &ls);
      ox_attr_i(x, nd, "axis", axis);
      char *p = ox_op2(x, "Mul", in[0], ls);
      char *rin[2] = {p, ox_i64s(x, 1, 1, &axis)}, *r;
      Onnx__NodeProto *rn = ox_emit(x, "ReduceSum", 2, rin, 1, &r);
      ox_attr_i(x, rn, "keepdims", 0);
      out[0] = ox_op1(x, "Neg", r);
      return;
    }
    case OP_LEFT_SHIFT:
    case OP_RIGHT_SHIFT:
      /* opset 11's BitShift takes unsigned integers only (uint8 is the one this export maps); TF clamps the
       * shift to [0, bits - 1] first, a Min with 7 for uint8 */
      if (dt == DT_UINT8) {
        char *amt = ox_op2(x, "Min", in[1], ox_scalar(x, DT_UINT8, 7)), *bin[2] = {in[0], amt}, *o;
        Onnx__NodeProto *nd = ox_emit(x, "BitShift", 2, bin, 1, &o);
        ox_attr_s(x, nd, "direction", op == OP_LEFT_SHIFT ? "LEFT" : "RIGHT");
        out[0] = o;
        return;
      }
      ox_fail(loc, "tf.function '%s': op %s of %s has no ONNX form (opset %d's BitShift takes uint8 here, unsigned types only)",
              x->fname, n->op->graph_name, dtype_info[dt].name, OX_OPSET);
    case OP_BITWISE_AND:
    case OP_BITWISE_OR:
    case OP_BITWISE_XOR:
    case OP_INVERT:   /* ONNX's BitwiseAnd/Or/Xor/Not arrived in opset 18; And/Or/Xor/Not before it are bool-only */
      ox_fail(loc, "tf.function '%s': op %s has no ONNX form at opset %d (ONNX's bitwise operators are opset 18)", x->fname,
              n->op->graph_name, OX_OPSET);
    default: break;
  }
  ox_fail(loc, "tf.function '%s': op %s has no ONNX form", x->fname, n->op->graph_name);
}

/* Fold a pure node whose inputs are all constant by running its kernel now. */
static bool ox_fold(Ox *x, OxScope *s, int id) {
  const GraphNode *n = &s->g->nodes[id];
  if (n->kind != GN_OP || (n->flags & GNF_STATEFUL) || (n->op->flags & OPF_STATEFUL) || n->nout < 1) return false;
  Tensor *in[OP_MAX_ARGS];
  Val raw[OP_MAX_ARGS];
  if (n->nin > OP_MAX_ARGS) return false;
  for (int i = 0; i < n->nin; i++) {
    in[i] = NULL;
    raw[i] = n->raw ? n->raw[i] : val_undef();
    if (n->in[i].node < 0) continue;
    if (!s->konst[n->in[i].node]) return false;
    in[i] = s->konst[n->in[i].node][n->in[i].out];
    raw[i] = val_obj(in[i]);
  }
  OpAttrs at = n->attrs;
  for (int k = 0; k < n->ndyn; k++) {
    GraphRef r = n->in[n->nin + k];
    if (!s->konst[r.node]) return false;
    at.v[n->dyn_attr[k]] = val_obj(s->konst[r.node][r.out]);
  }
  Tensor **res = op_fold(n->op, n->nin, in, raw, &at, n->nout);   /* NULL: lowered as an op */
  if (!res) return false;
  OxHold *h = x->hold;
  for (int i = 0; i < n->nout; i++) {
    if (h->nt == h->capt) {
      size_t cap = h->capt ? 2 * h->capt : 16;
      Tensor **t = realloc(h->t, sizeof(Tensor *) * cap);
      if (!t) {
        for (int k = i; k < n->nout; k++) tensor_release(res[k]);
        free(res);
        rt_throw(ERR_MEMORY, "out of memory");
      }
      h->t = t;
      h->capt = cap;
    }
    h->t[h->nt++] = res[i];
  }
  Tensor **kept = pa_alloc(x->a, sizeof(Tensor *) * (size_t)n->nout);
  memcpy(kept, res, sizeof(Tensor *) * (size_t)n->nout);
  free(res);
  s->konst[id] = kept;
  return true;
}

/* Mark what the outputs need; stateful nodes are needed too (and refused, except variable reads). */
static void ox_mark(OxScope *s) {
  const Graph *g = s->g;
  for (int i = 0; i < g->noutputs; i++) s->live[g->outputs[i].node] = 1;
  for (int id = g->nnodes - 1; id >= 0; id--) {
    const GraphNode *n = &g->nodes[id];
    bool eff = (n->flags & GNF_STATEFUL) && !(n->kind == GN_OP && n->op->id == OP_READ_VARIABLE);
    if (n->kind == GN_OP && (n->op->flags & OPF_STATEFUL) && n->op->id != OP_READ_VARIABLE) eff = true;
    if (eff) s->live[id] = 1;
    if (!s->live[id]) continue;
    for (int i = 0; i < n->nin + n->ndyn; i++)
      if (n->in[i].node >= 0) s->live[n->in[i].node] = 1;
    for (int i = 0; i < n->nctrl; i++) s->live[n->ctrl[i]] = 1;
  }
}

static char *ox_var(Ox *x, const Variable *v) {
  for (size_t i = 0; i < x->ninit; i++)
    if (x->vars[i] == v) return x->varnames[i];
  size_t cap = x->capinit;
  x->inits = ox_grow(x, x->inits, x->ninit, &cap, sizeof(void *));
  size_t cap2 = x->capinit;
  x->vars = ox_grow(x, x->vars, x->ninit, &cap2, sizeof(void *));
  size_t cap3 = x->capinit;
  x->varnames = ox_grow(x, x->varnames, x->ninit, &cap3, sizeof(void *));
  x->capinit = cap;
  char *base = pa_strdup(x->a, v->name ? v->name : "Variable");
  for (char *p = base; *p; p++)
    if (*p == ':' || *p == '/' || *p == ' ') *p = '_';
  char *name = ox_fresh(x, base);
  x->vars[x->ninit] = v;
  x->varnames[x->ninit] = name;
  x->inits[x->ninit++] = ox_tensor(x, v->value, name, -1);
  return name;
}

static Onnx__GraphProto *ox_graph(Ox *x, const char *name) {
  Onnx__GraphProto *gp = pa_alloc(x->a, sizeof *gp);
  onnx__graph_proto__init(gp);
  gp->name = (char *)name;
  return gp;
}

static Onnx__ValueInfoProto **ox_vis(Ox *x, int n) { return pa_alloc(x->a, sizeof(void *) * (size_t)(n + 1)); }

/* A branch of an If: no inputs (placeholders are the outer values), one Identity per output. */
static Onnx__GraphProto *ox_branch(Ox *x, const Graph *g, char **args, const TMeta *outm, int nout) {
  OxList l = {0}, *saved = x->cur;
  x->cur = &l;
  char **outs = pa_alloc(x->a, sizeof(char *) * (size_t)(nout + 1));
  ox_body(x, g, args, outs);
  Onnx__GraphProto *gp = ox_graph(x, ox_fresh(x, "branch"));
  gp->n_output = (size_t)nout;
  gp->output = ox_vis(x, nout);
  for (int i = 0; i < nout; i++) {
    char *o = ox_op1(x, "Identity", outs[i]);
    gp->output[i] = ox_value_info(x, o, &outm[i], false, NULL);
  }
  gp->node = l.v;
  gp->n_node = l.n;
  x->cur = saved;
  return gp;
}

static char *ox_truthy(Ox *x, char *v, const TMeta *m) {
  if (m->dtype != DT_BOOL) v = ox_op1(x, "Not", ox_op2(x, "Equal", v, ox_scalar(x, m->dtype, 0)));
  if (m->rank != 0) v = ox_op2(x, "Reshape", v, ox_i64s(x, 1, 0, NULL));
  return v;
}

static void ox_cond(Ox *x, OxScope *s, int id, char **out) {
  const GraphNode *n = &s->g->nodes[id];
  int na = n->nin - 1;
  char **args = pa_alloc(x->a, sizeof(char *) * (size_t)(na + 1));
  for (int i = 0; i < na; i++) args[i] = n->in[i + 1].node >= 0 ? ox_ref(s, n->in[i + 1]) : NULL;
  char *pred = ox_truthy(x, ox_ref(s, n->in[0]), graph_meta(s->g, n->in[0]));
  Onnx__GraphProto *tb = ox_branch(x, n->sub[0], args, n->outm, n->nout);
  Onnx__GraphProto *eb = ox_branch(x, n->sub[1], args, n->outm, n->nout);
  Onnx__NodeProto *nd = ox_emit(x, "If", 1, &pred, n->nout, out);
  Onnx__AttributeProto *at = ox_attr(x, nd, "then_branch", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
  at->g = tb;
  at = ox_attr(x, nd, "else_branch", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
  at->g = eb;
}

/* while -> Loop: the cond graph runs once on the initial values (the Loop's cond input) and at the end of
 * each iteration on the new values (the body's cond output); captures are read from the outer scope. */
static void ox_while(Ox *x, OxScope *s, int id, char **out) {
  const GraphNode *n = &s->g->nodes[id];
  int nv = n->nout, na = n->nin;
  char **args = pa_alloc(x->a, sizeof(char *) * (size_t)(na + 1));
  for (int i = 0; i < na; i++) args[i] = n->in[i].node >= 0 ? ox_ref(s, n->in[i]) : NULL;
  char *c0;
  ox_body(x, n->sub[0], args, &c0);
  c0 = ox_truthy(x, c0, graph_meta(n->sub[0], n->sub[0]->outputs[0]));
  int64_t mi = -1;
  bool has_max = val_as_int(n->aux, &mi) && mi >= 0;

  OxList l = {0}, *saved = x->cur;
  x->cur = &l;
  Onnx__GraphProto *gp = ox_graph(x, ox_fresh(x, "loop_body"));
  gp->n_input = (size_t)(nv + 2);
  gp->input = ox_vis(x, nv + 2);
  TMeta i64 = {DT_INT64, 0, {0}}, b0 = {DT_BOOL, 0, {0}};
  gp->input[0] = ox_value_info(x, ox_fresh(x, "iter"), &i64, true, NULL);
  gp->input[1] = ox_value_info(x, ox_fresh(x, "cond_in"), &b0, true, NULL);
  char **bargs = pa_alloc(x->a, sizeof(char *) * (size_t)(na + 1));
  for (int i = 0; i < nv; i++) {
    bargs[i] = ox_fresh(x, "carried");
    gp->input[i + 2] = ox_value_info(x, bargs[i], &n->outm[i], false, NULL);
  }
  for (int i = nv; i < na; i++) bargs[i] = args[i];
  char **next = pa_alloc(x->a, sizeof(char *) * (size_t)(na + 1));
  ox_body(x, n->sub[1], bargs, next);
  for (int i = nv; i < na; i++) next[i] = args[i];
  char *c1;
  ox_body(x, n->sub[0], next, &c1);
  c1 = ox_truthy(x, c1, graph_meta(n->sub[0], n->sub[0]->outputs[0]));
  gp->n_output = (size_t)(nv + 1);
  gp->output = ox_vis(x, nv + 1);
  gp->output[0] = ox_value_info(x, ox_op1(x, "Identity", c1), &b0, true, NULL);
  for (int i = 0; i < nv; i++) gp->output[i + 1] = ox_value_info(x, ox_op1(x, "Identity", next[i]), &n->outm[i], false, NULL);
  gp->node = l.v;
  gp->n_node = l.n;
  x->cur = saved;

  char **lin = pa_alloc(x->a, sizeof(char *) * (size_t)(nv + 3));
  lin[0] = has_max ? ox_i64(x, mi) : "";
  lin[1] = c0;
  for (int i = 0; i < nv; i++) lin[i + 2] = args[i];
  Onnx__NodeProto *nd = ox_emit(x, "Loop", nv + 2, lin, nv, out);
  Onnx__AttributeProto *at = ox_attr(x, nd, "body", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
  at->g = gp;
}

/* Lower graph g into the current node list: its inputs are named in_names, its outputs' names go to out_names. */
static void ox_body(Ox *x, const Graph *g, char **in_names, char **out_names) {
  OxScope s = {.g = g};
  s.names = calloc((size_t)g->nnodes + 1, sizeof(char **));
  s.konst = calloc((size_t)g->nnodes + 1, sizeof(Tensor **));
  s.live = calloc((size_t)g->nnodes + 1, 1);
  int mark = rt_hold_mem(s.names);
  rt_hold_mem(s.konst);
  rt_hold_mem(s.live);
  if (!s.names || !s.konst || !s.live) rt_throw(ERR_MEMORY, "out of memory");
  ox_mark(&s);
  for (int i = 0; i < g->ninputs; i++) {
    s.names[g->inputs[i]] = pa_alloc(x->a, sizeof(char *));
    s.names[g->inputs[i]][0] = in_names[i];
  }
  for (int id = 0; id < g->nnodes; id++) {
    const GraphNode *n = &g->nodes[id];
    if (n->kind == GN_PLACEHOLDER || !s.live[id]) continue;
    char **o = pa_alloc(x->a, sizeof(char *) * (size_t)(n->nout + 1));
    s.names[id] = o;
    rt_cur_loc = n->loc;
    for (int i = 0; i < n->nout && n->kind != GN_VARHANDLE; i++) ox_check_dtype(x->fname, n->outm[i].dtype, n->loc);
    switch (n->kind) {
      case GN_CONST:
        s.konst[id] = (Tensor **)&n->value;
        o[0] = ox_const(x, n->value, n->loc);
        break;
      case GN_VARHANDLE:
        o[0] = ox_var(x, n->var);
        break;
      case GN_COND: ox_cond(x, &s, id, o); break;
      case GN_WHILE: ox_while(x, &s, id, o); break;
      case GN_OP:
        if ((n->op->flags & OPF_STATEFUL) && n->op->id != OP_READ_VARIABLE)
          rt_throw_at(n->loc, ERR_UNIMPLEMENTED, "tf.function '%s': op %s has no ONNX form (it has side effects)", x->fname,
                      n->op->graph_name);
        if (ox_fold(x, &s, id)) {
          for (int i = 0; i < n->nout; i++) o[i] = ox_const(x, s.konst[id][i], n->loc);
        } else {
          ox_lower_op(x, &s, id, o);
        }
        break;
      default: break;
    }
  }
  for (int i = 0; i < g->noutputs; i++) out_names[i] = ox_ref(&s, g->outputs[i]);
  rt_unhold(mark);
  free(s.names);
  free(s.konst);
  free(s.live);
}

/* A signature's placeholders have no source line: the function's first located node stands for it. */
static int ox_first_loc(const Graph *g) {
  for (int id = 0; id < g->nnodes; id++)
    if (g->nodes[id].loc) return g->nodes[id].loc;
  return 0;
}

unsigned char *onnx_model_pack(const Graph *g, const char *fname, const char *const *in_names, const char *const *out_names,
                               size_t *len) {
  OxHold *hold = obj_new(&ox_hold_type, sizeof *hold);
  memset((char *)hold + sizeof(Obj), 0, sizeof *hold - sizeof(Obj));
  int mark = rt_hold_val(val_obj(&hold->hdr));
  PbArena *ap = &hold->a;
  Ox x = {.a = ap, .hold = hold, .fname = fname};
  OxList top = {0};
  x.cur = &top;
  Onnx__GraphProto *gp = ox_graph(&x, pa_strdup(ap, fname));
  char **in = pa_alloc(ap, sizeof(char *) * (size_t)(g->ninputs + 1));
  gp->n_input = (size_t)g->ninputs;
  gp->input = ox_vis(&x, g->ninputs);
  for (int i = 0; i < g->ninputs; i++) {
    const GraphNode *p = &g->nodes[g->inputs[i]];
    in[i] = pa_strdup(ap, in_names ? in_names[i] : p->name);
    if (p->outm[0].rank < 0)
      rt_throw_at(p->loc, ERR_UNIMPLEMENTED, "tf.function '%s': argument '%s' has unknown rank: an ONNX model input needs one", fname,
                  p->name);
    ox_check_dtype(fname, p->outm[0].dtype, p->loc ? p->loc : ox_first_loc(g));
    gp->input[i] = ox_value_info(&x, in[i], &p->outm[0], true, in[i]);
  }
  char **outs = pa_alloc(ap, sizeof(char *) * (size_t)(g->noutputs + 1));
  ox_body(&x, g, in, outs);
  gp->n_output = (size_t)g->noutputs;
  gp->output = ox_vis(&x, g->noutputs);
  for (int i = 0; i < g->noutputs; i++) {
    char *name = out_names && out_names[i] ? pa_strdup(ap, out_names[i]) : pa_printf(ap, "output_%d", i);
    if (graph_meta(g, g->outputs[i])->rank < 0)
      rt_throw_at(g->nodes[g->outputs[i].node].loc, ERR_UNIMPLEMENTED,
                  "tf.function '%s': result %d has unknown rank: an ONNX model output needs one", fname, i);
    Onnx__NodeProto *nd = ox_emit(&x, "Identity", 1, &outs[i], 1, (char *[1]){0});
    nd->output[0] = name;
    gp->output[i] = ox_value_info(&x, name, graph_meta(g, g->outputs[i]), true, NULL);
  }
  gp->node = top.v;
  gp->n_node = top.n;
  gp->initializer = x.inits;
  gp->n_initializer = x.ninit;

  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1;
  m.ir_version = OX_IR_VERSION;
  m.producer_name = "tfs";
  m.producer_version = "0.1";
  Onnx__OperatorSetIdProto os;
  onnx__operator_set_id_proto__init(&os);
  os.domain = "";
  os.has_version = 1;
  os.version = OX_OPSET;
  Onnx__OperatorSetIdProto *osp = &os;
  m.opset_import = &osp;
  m.n_opset_import = 1;
  m.graph = gp;
  unsigned char *r = pb_pack(&m.base, len);
  rt_unhold(mark);
  val_decref(val_obj(&hold->hdr));
  return r;
}

