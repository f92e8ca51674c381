/* op.c — op dispatch: the op table, input conversion and dtype checks, op_apply, tf.<op> builtins, attribute helpers. */
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "object/object.h"
#include "object/hosttypes.h"
#include "kernels/ops.h"
#include "kernels/prof.h"

OpDef op_defs[OP__COUNT] = {
#define OP(id, gname, api, sig, kinds, dtypes, flags, meta, kernel, ...) \
  {OP_##id, gname, api, sig, kinds, dtypes, flags, meta, kernel},
#define OP_UP(id, gname, api, sig, kinds, dtypes, flags, meta, kernel, ...) \
  {OP_##id, gname, api, sig, kinds, dtypes, flags, NULL, NULL},   /* op_bind fills them */
#include "kernels/ops.def"
#undef OP_UP
#undef OP
};

void op_bind(OpId id, OpMetaFn meta, OpKernelFn kernel) {
  op_defs[id].meta = meta;
  op_defs[id].kernel = kernel;
}

Val (*op_graph_hook)(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs);
int op_host_depth;
bool op_eager_ran;

static void op_host_unwind(void *p) {
  (void)p;
  op_host_depth--;
}

int op_host_begin(void) {
  op_host_depth++;
  return rt_hold_fn(op_host_unwind, NULL);
}

void op_host_end(int mark) {
  rt_unhold(mark);
  op_host_depth--;
}
int op_tape_nactive;
void (*op_tape_record)(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs, Val result);
void (*op_tape_var_accessed)(Val var);
const char *(*op_scope_prefix)(void);
const char *(*op_trace_graph_name)(void);

/* ---- errors -------------------------------------------------------------- */

void op_fail(const OpCall *c, ErrKind k, const char *fmt, ...) {
  StrBuf b;
  sb_init(&b);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&b, fmt, ap);
  va_end(ap);
  (void)c;
  char *msg = sb_steal(&b);
  /* rt_throw copies the message; keep this function's buffer bounded. */
  char last[1024];   /* per call: graph workers may fail at once */
  snprintf(last, sizeof last, "%s", msg);
  free(msg);
  /* errindex: - (passes on a message indexed where it is made) */
  rt_throw(k, "%s", last);
}

void op_fail_sb(const OpCall *c, ErrKind k, StrBuf *msg) {
  char text[2048];
  snprintf(text, sizeof text, "%.*s", (int)msg->len, msg->data ? msg->data : "");
  sb_free(msg);
  /* errindex: - (passes on a message indexed where it is made) */
  op_fail(c, k, "%s", text);
}

void op_shape_text(StrBuf *b, int rank, const tfs_i64 *shape) {
  sb_putc(b, '[');
  for (int i = 0; i < rank; i++) {
    if (i) sb_putc(b, ',');
    if (shape[i] < 0) sb_putc(b, '?');
    else sb_printf(b, "%lld", (long long)shape[i]);
  }
  sb_putc(b, ']');
}

static const char *mask_text(unsigned mask, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  /* TF's attr lists name bfloat16 and half first ({bfloat16, half, float, double, ...}) */
  static const DType order[] = {DT_BFLOAT16, DT_FLOAT16};
  unsigned rest = mask;
  for (int k = 0; k < 2; k++)
    if (mask & DTM(order[k])) {
      len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", dtype_short_name(order[k]));
      rest &= ~DTM(order[k]);
    }
  for (int d = 0; d < DT__COUNT; d++)
    if (rest & DTM(d)) len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", dtype_short_name(d));
  return buf;
}

/* ---- metas --------------------------------------------------------------- */

void meta_set(TMeta *m, DType dt, int rank, const tfs_i64 *shape) {
  m->dtype = dt;
  m->rank = rank;
  for (int i = 0; i < rank; i++) m->shape[i] = shape[i];
}

static inline void meta_of(TMeta *m, const Tensor *t) {
  m->dtype = t->dtype;
  m->rank = t->rank;
  for (int i = 0; i < t->rank; i++) m->shape[i] = t->shape[i];
}

void op_broadcast_meta(const OpCall *c, const TMeta *a, const TMeta *b, TMeta *out) {
  if (a->rank < 0 || b->rank < 0) { out->rank = -1; return; }
  int r = a->rank > b->rank ? a->rank : b->rank;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    tfs_i64 da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1, d;
    if (da == db) d = da;
    else if (da == 1) d = db;
    else if (db == 1) d = da;
    else if (da < 0) d = db;            /* unknown vs n (>1): n, checked at run time */
    else if (db < 0) d = da;
    else {
      StrBuf s;
      sb_init(&s);
      sb_puts(&s, "Incompatible shapes: ");
      op_shape_text(&s, a->rank, a->shape);
      sb_puts(&s, " vs. ");
      op_shape_text(&s, b->rank, b->shape);
      /* errindex: Incompatible shapes: … vs. … */
      op_fail_sb(c, ERR_INVALID_ARGUMENT, &s);
    }
    out->shape[i] = d;
  }
  out->rank = r;
}

static void op_reserved_free(void *p) {
  OpCall *c = p;
  free(c->out);
  free(c->outm);
  c->out = c->out_buf;
  c->outm = c->outm_buf;
}

void op_reserve_outputs(OpCall *c, int nout) {
  c->nout = nout;
  if (nout <= 2) {
    c->outm = c->outm_buf;
    c->out = c->out_buf;
  } else {
    c->outm = malloc(sizeof(TMeta) * (size_t)nout);
    c->out = calloc((size_t)nout, sizeof(Tensor *));
    if (!c->outm || !c->out) rt_throw(ERR_MEMORY, "out of memory");
    c->rmark = rt_hold_fn(op_reserved_free, c);   /* a failing meta or kernel frees them */
  }
}

void op_release_outputs(OpCall *c) {
  if (c->out == c->out_buf) return;
  rt_unhold(c->rmark);
  op_reserved_free(c);
}

/* ---- attribute helpers ---------------------------------------------------- */

static bool attr_as_int(Val v, tfs_i64 *out) {
  if (v.tag == VT_INT || v.tag == VT_BOOL) { *out = v.u.i; return true; }
  Tensor *t = val_as_tensor(v);
  if (t && t->size == 1 && dtype_info[t->dtype].is_int && !t->sym) { *out = tensor_get_i(t, 0); return true; }
  return false;
}

tfs_i64 op_attr_int(const OpCall *c, int i, tfs_i64 dflt) {
  Val v = op_attr(c, i);
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return dflt;
  tfs_i64 x;
  if (!attr_as_int(v, &x))
    op_fail(c, ERR_TYPE, "%s: expected an integer for '%s', got %s", c->op->graph_name, op_attr_name(c->op, i),
            val_type_name(v));
  return x;
}

double op_attr_float(const OpCall *c, int i, double dflt) {
  Val v = op_attr(c, i);
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return dflt;
  if (v.tag == VT_FLOAT) return v.u.f;
  if (v.tag == VT_INT || v.tag == VT_BOOL) return (double)v.u.i;
  Tensor *t = val_as_tensor(v);
  if (t && t->size == 1 && t->dtype != DT_STRING && !t->sym) return tensor_get_f(t, 0);
  op_fail(c, ERR_TYPE, "%s: expected a number for '%s', got %s", c->op->graph_name, op_attr_name(c->op, i),
          val_type_name(v));
}

bool op_attr_bool(const OpCall *c, int i, bool dflt) {
  Val v = op_attr(c, i);
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return dflt;
  if (v.tag == VT_BOOL || v.tag == VT_INT) return v.u.i != 0;
  Tensor *t = val_as_tensor(v);
  if (t && t->size == 1 && !t->sym) return tensor_get_i(t, 0) != 0;
  op_fail(c, ERR_TYPE, "%s: expected a bool for '%s', got %s", c->op->graph_name, op_attr_name(c->op, i),
          val_type_name(v));
}

int op_attr_dtype(const OpCall *c, int i, int dflt) {
  Val v = op_attr(c, i);
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) return dflt;
  DType dt;
  if (!val_as_dtype_arg(v, &dt)) dtype_fail(v);
  return (int)dt;
}

int op_norm_axis(const OpCall *c, tfs_i64 axis, int rank) {
  int r = rank < 1 ? 1 : rank;
  if (axis < -r || axis >= r)
    op_fail(c, ERR_INVALID_ARGUMENT, "Invalid reduction dimension %lld for input with %d dimensions.", (long long)axis,
            rank);
  return (int)(axis < 0 ? axis + r : axis);
}

int op_attr_axes(const OpCall *c, int i, int rank, int *axes) {
  Val v = op_attr(c, i);
  bool seen[TFS_MAX_RANK + 1] = {0};
  if (v.tag == VT_UNDEF || v.tag == VT_NONE) {
    for (int k = 0; k < rank; k++) axes[k] = k;
    return rank;
  }
  tfs_i64 raw[TFS_MAX_RANK * 2];
  int n = 0;
  tfs_i64 x;
  if (attr_as_int(v, &x) && !(val_as_tensor(v) && val_as_tensor(v)->rank > 0)) {
    raw[n++] = x;
  } else if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 len = val_is(v, &list_type) ? ((List *)v.u.o)->len : ((Tuple *)v.u.o)->len;
    Val *items = val_is(v, &list_type) ? ((List *)v.u.o)->items : ((Tuple *)v.u.o)->items;
    if (len > TFS_MAX_RANK * 2) op_fail(c, ERR_INVALID_ARGUMENT, "too many axes");
    for (tfs_i64 k = 0; k < len; k++) {
      if (!attr_as_int(items[k], &x)) op_fail(c, ERR_TYPE, "axis must be an int or a list of ints");
      raw[n++] = x;
    }
  } else if (val_as_tensor(v) && dtype_info[val_as_tensor(v)->dtype].is_int && val_as_tensor(v)->rank == 1) {
    Tensor *t = val_as_tensor(v);
    if (t->size > TFS_MAX_RANK * 2) op_fail(c, ERR_INVALID_ARGUMENT, "too many axes");
    for (tfs_i64 k = 0; k < t->size; k++) raw[n++] = tensor_get_i(t, k);
  } else {
    op_fail(c, ERR_TYPE, "axis must be an int or a list of ints, got %s", val_type_name(v));
  }
  int m = 0;
  for (int k = 0; k < n; k++) {
    int a = op_norm_axis(c, raw[k], rank);
    if (!seen[a]) { seen[a] = true; m++; }
  }
  int o = 0;
  for (int k = 0; k < TFS_MAX_RANK; k++)
    if (seen[k]) axes[o++] = k;
  return m;
}

/* ---- signatures: which parameters are inputs ------------------------------- */

typedef struct OpApi {
  bool ready;
  int nin, nattr;
  signed char pin[OP_MAX_ARGS];      /* signature index of input i */
  signed char pattr[OP_MAX_ATTRS];   /* signature index of attribute i */
  char kin[OP_MAX_ARGS];             /* kind char of input i */
  signed char pnamearg;              /* signature index of `name`, or -1 */
  char pname[OP_MAX_ARGS][32];       /* parameter names */
  char what[48];                     /* 'tf.add' */
  ArgSpec spec;
} OpApi;
static OpApi op_api[OP__COUNT];

static OpApi *api_of(const OpDef *op) {
  OpApi *a = &op_api[op->id];
  if (a->ready) return a;
  const char *s = op->sig;
  int p = 0, k = 0;
  a->pnamearg = -1;
  while (*s) {
    while (*s == ' ' || *s == ',' || *s == '*') s++;
    if (!*s) break;
    int len = 0;
    while (s[len] && s[len] != ',' && s[len] != '=' && s[len] != ' ') len++;
    if (p < OP_MAX_ARGS) {
      snprintf(a->pname[p], sizeof a->pname[p], "%.*s", len, s);
      if (!strcmp(a->pname[p], "name")) a->pnamearg = (signed char)p;
      if (strcmp(a->pname[p], "name") != 0 && op->kinds[k]) {   /* `name` is neither input nor attribute */
        char kc = op->kinds[k++];
        if (kc == '.') a->pattr[a->nattr++] = (signed char)p;
        else { a->kin[a->nin] = kc; a->pin[a->nin++] = (signed char)p; }
      }
    }
    p++;
    s += len;
    while (*s && *s != ',') {  /* skip a default, including quoted commas */
      if (*s == '\'') { s++; while (*s && *s != '\'') s++; if (*s) s++; }
      else s++;
    }
  }
  const char *api = op->api;
  int alen = 0;
  while (api[alen] && api[alen] != ' ') alen++;
  snprintf(a->what, sizeof a->what, "tf.%.*s", alen, api);
  a->spec.what = a->what;
  a->spec.sig = op->sig;
  a->ready = true;
  return a;
}

int op_num_inputs(const OpDef *op) { return api_of(op)->nin; }
const char *op_input_name(const OpDef *op, int i) {
  OpApi *a = api_of(op);
  return i >= 0 && i < a->nin ? a->pname[(int)a->pin[i]] : NULL;
}
int op_num_attrs(const OpDef *op) { return api_of(op)->nattr; }
const char *op_attr_name(const OpDef *op, int i) {
  OpApi *a = api_of(op);
  return i >= 0 && i < a->nattr ? a->pname[(int)a->pattr[i]] : "?";
}

/* ---- op_apply ------------------------------------------------------------- */

static const OpAttrs no_attrs;

static __attribute__((unused)) bool val_is_symbolic(Val v) {
  if (v.tag != VT_OBJ) return false;
  if (v.u.o->type == &tensor_type) return ((Tensor *)v.u.o)->sym != NULL;
  if (v.u.o->type == &variable_type) return variable_storage(v.u.o)->sym != NULL;
  if (v.u.o->type == &list_type || v.u.o->type == &tuple_type) {
    tfs_i64 n = v.u.o->type == &list_type ? ((List *)v.u.o)->len : ((Tuple *)v.u.o)->len;
    Val *it = v.u.o->type == &list_type ? ((List *)v.u.o)->items : ((Tuple *)v.u.o)->items;
    for (tfs_i64 i = 0; i < n; i++)
      if (val_is_symbolic(it[i])) return true;
  }
  return false;
}

/* The name TF gives the op's type attribute (TF's FFT ops name theirs for the complex/real side) */
static const char *type_attr(const OpDef *op) {
  switch (op->id) {
    case OP_FFT: case OP_IFFT: case OP_IRFFT: return "Tcomplex";
    case OP_RFFT: return "Treal";
    default: return "T";
  }
}

static _Noreturn void fail_dtype(const OpDef *op, int i, DType want, DType got) {
  rt_throw(ERR_INVALID_ARGUMENT, "cannot compute %s as input #%d(zero-based) was expected to be a %s tensor but is a %s tensor",
           op->graph_name, i, dtype_short_name(want), dtype_short_name(got));
}

_Noreturn void op_fail_attr_text(const OpDef *op, const char *attr, DType got, const char *allowed) {
  rt_throw(ERR_INVALID_ARGUMENT, "Value for attr '%s' of %s is not in the list of allowed values: %s ; NodeDef: {{node %s}}",
           attr, dtype_short_name(got), allowed, op->graph_name);
}

_Noreturn void op_fail_attr(const OpDef *op, const char *attr, DType got, unsigned mask) {
  char buf[256];
  op_fail_attr_text(op, attr, got, mask_text(mask, buf, sizeof buf));
}

/* Kind of input i for op (variadic ops and list inputs repeat their kind). */
static inline char kind_at(const OpApi *a, const OpDef *op, int i) {
  if (a->kin[0] == 'L') return op->flags & OPF_VARIADIC ? 'A' : 'T';   /* a variadic list: each input its own dtype */
  if (op->flags & OPF_VARIADIC) return a->kin[0];
  return a->kin[i];
}

static __thread Tensor *op_into;   /* op_offer_output's tensor, for the next op_exec only */

void op_offer_output(Tensor *t) { op_into = t; }

/* Whether the offered tensor t can hold a result of meta m (kernels write every element of a
 * result, as a new tensor's memory is uninitialised too; strings start NULL, so never offered). */
static bool op_into_fits(const Tensor *t, const TMeta *m) {
  if (!t || t->dtype != m->dtype || t->dtype == DT_STRING || t->rank != m->rank || t->offset != 0) return false;
  for (int d = 0; d < m->rank; d++)
    if (t->shape[d] != m->shape[d]) return false;
  return tensor_is_contiguous(t);
}

/* Run meta + kernel on resolved inputs.  Returns nout; outputs in c->out. */
static void op_exec(OpCall *c) {
  const OpDef *op = c->op;
  Tensor *into = op_into;   /* taken now: ops a kernel applies inside never see it */
  op_into = NULL;
  c->outm = c->outm_buf;
  c->out = c->out_buf;
  c->nout = 1;
  c->nscr = 0;
  op->meta(c);
  if (!(op->flags & OPF_VIEW)) {
    /* Outputs are held until the kernel returns: a kernel error (integer
     * division by zero, gather out of range) must not leak them. */
    int mark = -1;
    for (int i = 0; i < c->nout; i++) c->out[i] = NULL;
    for (int i = 0; i < c->nout; i++) {
      c->out[i] = i == 0 && c->nout == 1 && op_into_fits(into, &c->outm[0])
                    ? tensor_retain(into)
                    : tensor_new(c->outm[i].dtype, c->outm[i].rank, c->outm[i].shape);
      int m = rt_hold_val(val_obj(c->out[i]));
      if (mark < 0) mark = m;
    }
    op->kernel(c);
    if (mark >= 0) rt_unhold(mark);
    return;
  }
  op->kernel(c);
}

static Val op_result(OpCall *c) {
  const OpDef *op = c->op;
  Val r;
  if (op->flags & OPF_NOOUT) {
    r = val_none();
  } else if (op->flags & OPF_PASS0) {
    Tensor *x = c->in[0];
    /* under a GradientTape the output is a new tensor sharing x's data, so the tape records the op (TF's
     * CheckNumerics has a gradient that checks dy) instead of an op whose output is its own input */
    if (op_tape_nactive && !x->sym) r = val_obj(tensor_view(x, x->rank, x->shape, x->strides, x->offset));
    else r = val_obj(tensor_retain(x));
  } else if ((op->flags & OPF_TUPLE) && c->nout == 1) {
    r = val_obj(c->out[0]);
  } else if (op->flags & OPF_TUPLE) {
    r = tuple_new(c->nout);
    for (int i = 0; i < c->nout; i++) ((Tuple *)r.u.o)->items[i] = val_obj(c->out[i]);
  } else if (op->flags & OPF_MULTI) {
    r = list_new(c->nout);
    for (int i = 0; i < c->nout; i++) {
      Val t = val_obj(c->out[i]);
      list_append(r, t);
      TFS_DECREF(t);
    }
  } else {
    r = val_obj(c->out[0]);
  }
  op_release_outputs(c);
  return r;
}

Val op_apply(const OpDef *op, int nin, const Val *inputs, const OpAttrs *attrs) {
  if (!attrs) attrs = &no_attrs;
  OpApi *a = api_of(op);
  int nin0 = nin;

  /* GRAPH HOOK: while a tf.function is traced every op is recorded into the
   * graph under construction (trace.c); VT_UNDEF means: run it now. */
  if (op_graph_hook && !op_host_depth) {
    Val r = op_graph_hook(op, nin, inputs, attrs);
    if (!val_is_undef(r)) {
      if (op_tape_nactive) op_tape_record(op, nin, inputs, attrs, r);
      if (__builtin_expect(op_check_numerics, 0)) {
        int m = rt_hold_val(r);
        int tok = op_scope_reset_hook ? op_scope_reset_hook() : 0;   /* its check is no part of the op's name scope */
        numerics_check_traced(op, nin, inputs, r, op_trace_graph_name ? op_trace_graph_name() : NULL);
        if (op_scope_reset_hook) op_scope_restore_hook(tok);
        rt_unhold(m);
      }
      return r;
    }
  }

  /* A list input (concat, stack, add_n) expands into its elements. */
  const Val *vin = inputs;
  if (a->nin == 1 && a->kin[0] == 'L') {
    Val l = inputs[0];
    Tensor *lt = val_as_tensor(l);
    if (val_is(l, &list_type)) { nin = (int)((List *)l.u.o)->len; vin = ((List *)l.u.o)->items; }
    else if (val_is(l, &tuple_type)) { nin = (int)((Tuple *)l.u.o)->len; vin = ((Tuple *)l.u.o)->items; }
    else if (lt && op->id == OP_CONCAT) { nin = 1; vin = inputs; }   /* tf.concat(t, axis): [t] */
    else if (lt && lt->rank > 0) {
      /* a tensor acts as the list of its rows: unstack it first */
      Val rows = op_apply1(OP_UNSTACK, l);
      Val r = op_apply(op, 1, &rows, attrs);
      TFS_DECREF(rows);
      return r;
    } else rt_throw(ERR_TYPE, "%s: expected a list of tensors, got %s", a->what, val_type_name(l));
    if (nin == 0) rt_throw(ERR_INVALID_ARGUMENT, "%s: expected a non-empty list of tensors", a->what);
  } else if (!(op->flags & OPF_VARIADIC) && nin != a->nin) {
    rt_throw(ERR_RUNTIME, "%s: internal: %d inputs given, %d expected", op->graph_name, nin, a->nin);
  }

  Tensor *tin_buf[8], **tin = tin_buf;
  TMeta inm_buf[4], *inm = inm_buf;
  unsigned owned_buf[1], *owned = owned_buf;   /* bit i: tin[i] is a converted temporary */
  if (nin > 4) {
    tin = malloc(sizeof(Tensor *) * (size_t)nin);
    inm = malloc(sizeof(TMeta) * (size_t)nin);
    owned = calloc((size_t)(nin + 31) / 32, sizeof(unsigned));
    if (!tin || !inm || !owned) rt_throw(ERR_MEMORY, "out of memory");
  } else {
    owned[0] = 0;
  }

  /* Pass 1: inputs that already are tensors; the group dtype. */
  int gdt = -1;
  for (int i = 0; i < nin; i++) {
    char k = kind_at(a, op, i);
    Val v = vin[i];
    Tensor *t = NULL;
    if (k == 'R') {
      if (!val_is(v, &variable_type)) rt_throw(ERR_TYPE, "%s: expected a tf.Variable, got %s", op->graph_name, val_type_name(v));
    } else if (k >= 'a' && k <= 'z' && (v.tag == VT_NONE || v.tag == VT_UNDEF)) {
      /* absent optional input */
    } else {
      t = val_as_tensor(v);
      if (t && gdt < 0 && !val_is_ndarray(v) && (k == 'T' || k == 't' || k == 'F' || k == 'f')) gdt = t->dtype;
    }
    tin[i] = t;
  }
  /* numpy values (arrays, scalars) convert to the tensors' dtype where TF's eager conversion allows it
   * (args_to_matching_eager: int to int or float, float to float); without tensors they keep theirs. */
  int hold_mark = -1, np_gdt = -1;
  for (int i = 0; i < nin; i++) {
    char k = kind_at(a, op, i);
    if (!tin[i] || !val_is_ndarray(vin[i]) || !(k == 'T' || k == 't' || k == 'F' || k == 'f')) continue;
    DType from = tin[i]->dtype;
    if (gdt < 0) { if (np_gdt < 0) np_gdt = from; continue; }
    bool ok = (dtype_info[gdt].is_int && dtype_info[from].is_int) ||
              (dtype_info[gdt].is_float && (dtype_info[from].is_float || dtype_info[from].is_int));
    if ((int)from == gdt || !ok) continue;
    Val dv = dtype_val((DType)gdt);
    OpAttrs at = {1, {dv}};
    Val c = op_apply(&op_defs[OP_CAST], 1, &vin[i], &at);
    tin[i] = val_tensor(c);
    owned[i / 32] |= 1u << (i % 32);
    int m = rt_hold_val(c);
    if (hold_mark < 0) hold_mark = m;
  }
  if (gdt < 0) gdt = np_gdt;
  /* Pass 2: convert host values. */
  for (int i = 0; i < nin; i++) {
    if (tin[i]) continue;
    char k = kind_at(a, op, i);
    Val v = vin[i];
    if (k == 'R' || k == 'H' || ((k >= 'a' && k <= 'z') && (v.tag == VT_NONE || v.tag == VT_UNDEF))) continue;
    int want = -1;
    if (k == 'T' || k == 't' || k == 'F' || k == 'f') {
      if (gdt >= 0) want = gdt;
      else if ((k == 'F' || k == 'f') && (v.tag == VT_INT)) want = DT_FLOAT64;   /* TF: int / int steps give float64 */
    }
    Tensor *t = tensor_from_val(v, want);
    if ((k == 'T' || k == 't' || k == 'F' || k == 'f') && gdt < 0) gdt = t->dtype;
    tin[i] = t;
    owned[i / 32] |= 1u << (i % 32);
    /* Converted host values are released if the op fails (dtype check, kernel error). */
    int m = rt_hold_val(val_obj(t));
    if (hold_mark < 0) hold_mark = m;
  }
  /* Pass 3: dtype checks. */
  for (int i = 0; i < nin; i++) {
    Tensor *t = tin[i];
    if (!t) {
      inm[i].rank = TMETA_ABSENT;   /* absent optional, or a host value passed through (H/R) */
      inm[i].dtype = DT_FLOAT32;
      continue;
    }
    char k = kind_at(a, op, i);
    switch (k) {
    case 'T': case 't': case 'F': case 'f':
      if ((int)t->dtype != gdt) fail_dtype(op, i, (DType)gdt, t->dtype);
      if (!(op->dtypes & DTM(t->dtype))) op_fail_attr(op, type_attr(op), t->dtype, op->dtypes);
      break;
    case 'A':
      if (!(op->dtypes & DTM(t->dtype))) op_fail_attr(op, "T", t->dtype, op->dtypes);
      break;
    case 'B': case 'b':
      if (t->dtype != DT_BOOL && !op_cond_any_dtype(op, i, nin, tin)) fail_dtype(op, i, DT_BOOL, t->dtype);
      break;
    case 'I': case 'i': {
      const char *attr, *allowed;
      unsigned ok = op_index_dtypes(op, &attr, &allowed);
      if (!(DTM(t->dtype) & ok)) op_fail_attr_text(op, attr, t->dtype, allowed);
      break;
    }
    default:
      break;
    }
    meta_of(&inm[i], t);
  }

  OpCall c;
  c.op = op;
  c.nin = nin;
  c.args = vin;
  c.in = tin;
  c.inm = inm;
  c.attrs = attrs;
  if (__builtin_expect(prof_on, 0)) {   /* the profiler: time the kernel, note the caller's line and the inputs */
    ProfInputs pin;
    prof_inputs(&pin, nin, tin);
    tfs_i64 t0 = prof_clock();
    op_exec(&c);
    prof_add(PROF_EAGER, op->graph_name, NULL, NULL, rt_cur_loc, t0, &pin, -1);
  } else {
    op_exec(&c);
  }

  Val r = op_result(&c);
  if (__builtin_expect(op_check_numerics, 0)) {   /* a failing check releases the result and the inputs' arrays */
    int m = rt_hold_val(r);
    if (tin != tin_buf) rt_hold_mem(tin), rt_hold_mem(inm), rt_hold_mem(owned);
    numerics_check_eager(op, nin, tin, r);
    rt_unhold(m);
  }
  if (hold_mark >= 0) rt_unhold(hold_mark);
  for (int i = 0; i < nin; i++)
    if (owned[i / 32] & (1u << (i % 32))) tensor_release(tin[i]);
  if (tin != tin_buf) { free(tin); free(inm); free(owned); }
  if (__builtin_expect(dist_inflight, 0)) dist_progress();   /* gradient buckets move while an eager backward pass runs */
  /* GRADIENT TAPE: ops on watched values are recorded (tape.c) */
  if (op_tape_nactive) op_tape_record(op, nin0, inputs, attrs, r);
  return r;
}

int op_run_into(const OpDef *op, int nin, Tensor **in, const Val *raw, const OpAttrs *attrs, Tensor **out, int cap,
                Tensor ***heap) {
  TMeta inm_buf[8], *inm = nin > 8 ? malloc(sizeof(TMeta) * (size_t)nin) : inm_buf;
  if (!inm) rt_throw(ERR_MEMORY, "out of memory");
  int mark = inm != inm_buf ? rt_hold_mem(inm) : -1;   /* a failing meta or kernel must not leak it */
  for (int i = 0; i < nin; i++) {
    if (in[i]) meta_of(&inm[i], in[i]);
    else inm[i].rank = TMETA_ABSENT, inm[i].dtype = DT_FLOAT32;
  }
  OpCall c;
  c.op = op;
  c.nin = nin;
  c.args = raw;
  c.in = in;
  c.inm = inm;
  c.attrs = attrs ? attrs : &no_attrs;
  op_exec(&c);
  if (mark >= 0) {
    rt_unhold(mark);
    free(inm);
  }
  int n = c.nout;
  if (op->flags & OPF_NOOUT) n = 0;
  else if (op->flags & OPF_PASS0) n = 1;
  Tensor **res = out;
  *heap = NULL;
  if (n > cap) {
    res = malloc(sizeof(Tensor *) * (size_t)n);
    if (!res) rt_throw(ERR_MEMORY, "out of memory");
    *heap = res;
  }
  if (op->flags & OPF_PASS0) res[0] = tensor_retain(in[0]);
  else for (int i = 0; i < n; i++) res[i] = c.out[i];
  op_release_outputs(&c);
  return n;
}

int op_run(const OpDef *op, int nin, Tensor **in, const Val *raw, const OpAttrs *attrs, Tensor ***out) {
  Tensor *buf[2], **heap;
  int n = op_run_into(op, nin, in, raw, attrs, buf, 2, &heap);
  if (!heap) {
    heap = malloc(sizeof(Tensor *) * 2);
    if (!heap) {
      for (int i = 0; i < n; i++) tensor_release(buf[i]);
      rt_throw(ERR_MEMORY, "out of memory");
    }
    for (int i = 0; i < n; i++) heap[i] = buf[i];
  }
  *out = heap;
  return n;
}

Tensor **op_fold(const OpDef *op, int nin, Tensor **in, const Val *raw, const OpAttrs *attrs, int nout) {
  Tensor **volatile res = NULL;
  volatile int nr = 0;
  RtTry t;
  rt_try_push(&t);
  if (setjmp(t.jb) == 0) {
    Tensor **r;
    nr = op_run(op, nin, in, raw, attrs, &r);
    res = r;
    rt_try_pop(&t);
  } else {
    rt_try_clear(&t);   /* the error belongs to run time, if the op is reached */
  }
  if (res && nr < nout) {
    for (int i = 0; i < nr; i++) tensor_release(res[i]);
    free(res);
    return NULL;
  }
  for (int i = nout; res && i < nr; i++) tensor_release(res[i]);
  return res;
}

Val op_apply1(OpId id, Val a) { return op_apply(&op_defs[id], 1, &a, NULL); }
Val op_apply2(OpId id, Val a, Val b) {
  Val in[2] = {a, b};
  return op_apply(&op_defs[id], 2, in, NULL);
}

/* ---- tf.<op> builtins ----------------------------------------------------- */

/* An instance of a .tfs class with a __tf_dispatch__ method (tf.RaggedTensor, stdlib/tfcore_ragged.tfs), given as
 * an argument or an item of a list/tuple argument (tf.concat's values), or VT_UNDEF.  Borrowed. */
static Val composite_of(Val v) {
  if (val_is(v, &inst_type)) {
    Val f = class_find(((Inst *)v.u.o)->klass, "__tf_dispatch__");
    if (!val_is_undef(f)) {
      val_decref(f);
      return v;
    }
  }
  tfs_i64 m;
  const Val *items;
  if ((val_is(v, &list_type) || val_is(v, &tuple_type)) && seq_items(v, &m, &items))
    for (tfs_i64 i = 0; i < m; i++)
      if (val_is(items[i], &inst_type)) return composite_of(items[i]);
  return val_undef();
}

/* As TF's dispatch for composite tensors: the op called on one is the composite's own
 * __tf_dispatch__(api_name, *args, **kwargs), which computes it from its component tensors. */
static bool composite_dispatch(const OpDef *op, int n, const Val *args, const Kw *kw, Val *res) {
  Val c = val_undef();
  for (int i = 0; i < n && val_is_undef(c); i++) c = composite_of(args[i]);
  for (int i = 0; kw && i < kw->n && val_is_undef(c); i++) c = composite_of(kw->vals[i]);
  if (val_is_undef(c)) return false;
  size_t len = strcspn(op->api, " ");
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), op->api);
  Val f = rt_getattr(c, "__tf_dispatch__");
  int mark = rt_hold_val(f);
  Val stack[9], *all = n < 8 ? stack : malloc(sizeof(Val) * (size_t)(n + 1));
  if (!all) rt_throw(ERR_MEMORY, "out of memory");
  int mmark = all != stack ? rt_hold_mem(all) : -1;
  all[0] = str_from_cstr(name);
  int smark = rt_hold_val(all[0]);
  for (int i = 0; i < n; i++) all[i + 1] = args[i];
  *res = rt_call(f, n + 1, all, kw);
  rt_unhold(smark);
  val_decref(all[0]);
  if (mmark >= 0) {
    rt_unhold(mmark);
    free(all);
  }
  rt_unhold(mark);
  val_decref(f);
  return true;
}

/* tf.nn.leaky_relu's wrapper (nn_ops.py) casts integer features to float32 before the LeakyRelu op, which
 * takes float dtypes only: the cast tensor (a new reference), or VT_UNDEF when x needs none. */
static Val int_features_to_float(Val x) {
  Tensor *t = val_as_tensor(x);
  if (t ? !dtype_info[t->dtype].is_int : !(x.tag == VT_INT || val_is(x, &list_type) || val_is(x, &tuple_type)))
    return val_undef();
  Val tv = t ? val_undef() : val_obj(tensor_from_val(x, -1));
  int m = val_is_undef(tv) ? -1 : rt_hold_val(tv);
  if (!t && !dtype_info[val_tensor(tv)->dtype].is_int) {
    rt_unhold(m);
    val_decref(tv);
    return val_undef();
  }
  Val dv = dtype_val(DT_FLOAT32);
  OpAttrs ca = {1, {dv}};
  Val r = op_apply(&op_defs[OP_CAST], 1, t ? &x : &tv, &ca);
  if (m >= 0) {
    rt_unhold(m);
    val_decref(tv);
  }
  return r;
}

/* tf.nn.dropout's wrapper (nn_ops.py) checks a Python-number rate, then that x is a float tensor, before any
 * op runs: ValueErrors where the Dropout op's dtype check would raise InvalidArgumentError. */
static void dropout_wrapper_checks(Val x, Val rate) {
  Tensor *t = val_as_tensor(x);
  DType dt;
  if (t) {
    dt = t->dtype;
  } else {
    Tensor *h = tensor_from_val(x, -1);
    dt = h->dtype;
    tensor_release(h);
  }
  if (dtype_info[dt].is_float) return;   /* the op checks the rate (meta_dropout) */
  double r = rate.tag == VT_INT ? (double)rate.u.i : rate.tag == VT_FLOAT ? rate.u.f : 0.5;
  if (!(r >= 0 && r < 1)) rt_throw(ERR_VALUE, "rate must be a scalar tensor or a float in the range [0, 1), got %g", r);
  rt_throw(ERR_VALUE, "x has to be a floating point tensor since it's going to be scaled. Got a <dtype: '%s'> tensor instead.",
           dtype_info[dt].name);
}

static Val op_call_builtin(OpId id, int n, const Val *args, const Kw *kw) {
  const OpDef *op = &op_defs[id];
  op_eager_note();   /* a tf.<op> call: TF initializes its eager context to run it */
  Val r;
  if (composite_dispatch(op, n, args, kw, &r)) return r;
  OpApi *a = api_of(op);
  Val pv[OP_MAX_ARGS];
  args_parse(&a->spec, n, args, kw, pv);
  Val in[OP_MAX_ARGS];
  OpAttrs at;
  for (int i = 0; i < a->nin; i++) in[i] = pv[(int)a->pin[i]];
  at.n = a->nattr;
  for (int i = 0; i < a->nattr; i++) at.v[i] = pv[(int)a->pattr[i]];
  if (id == OP_DROPOUT) dropout_wrapper_checks(in[0], at.v[0]);
  Val cast = id == OP_LEAKY_RELU ? int_features_to_float(in[0]) : val_undef();
  int hold = -1;
  if (!val_is_undef(cast)) {
    hold = rt_hold_val(cast);
    in[0] = cast;
  }
  Val res;
  if (a->pnamearg < 0 || !op_tracing()) {
    res = op_apply(op, a->nin, in, &at);
  } else {
    /* while tracing: the node is named as TF's wrapper names it, name= or its default scope ('Add', 'Mul') */
    Val nm = pv[a->pnamearg];
    OpScopeMark m = op_scope_enter(val_is(nm, &str_type) && str_len(nm) ? str_cstr(nm) : op_default_scope(op), op);
    res = op_apply(op, a->nin, in, &at);
    op_scope_exit(m);
  }
  if (hold >= 0) {
    rt_unhold(hold);
    val_decref(cast);
  }
  return res;
}

#define OP(id, gname, api, sig, kinds, dtypes, flags, meta, kernel, ...) \
  static Val opfn_##id(Val self, int n, const Val *args, const Kw *kw) { \
    (void)self; \
    return op_call_builtin(OP_##id, n, args, kw); \
  }
#include "kernels/ops.def"
#undef OP

static const BuiltinFn op_fns[OP__COUNT] = {
#define OP(id, gname, api, sig, kinds, dtypes, flags, meta, kernel, ...) opfn_##id,
#include "kernels/ops.def"
#undef OP
};

Val op_builtin(OpId id, const char *qualname) {
  return builtin_new(qualname, op_fns[id], val_undef(), &op_defs[id]);
}

OpId op_lookup_api(const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < OP__COUNT; i++) {
    const char *s = op_defs[i].api;
    while (*s) {
      size_t len = 0;
      while (s[len] && s[len] != ' ') len++;
      if (len == n && memcmp(s, name, n) == 0) return (OpId)i;
      s += len;
      while (*s == ' ') s++;
    }
  }
  return OP__COUNT;
}
