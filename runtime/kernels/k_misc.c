/* k_misc.c — side-effect ops: debugging asserts and check_numerics, tf.print, timestamp, variable read/assign. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "kernels/nest.h"
#include "kernels/kstr.h"

/* shape: no output (a side effect only). */
void meta_none(OpCall *c) { c->nout = 0; }

/* ---- asserts -------------------------------------------------------------------------- */

static Val flat_prefix(Tensor *t, tfs_i64 n) {
  /* first n elements of t, flattened, as a 1-d tensor value */
  Tensor *c = tensor_contiguous(t);
  tfs_i64 shape = n < c->size ? n : c->size, st = 1;
  Tensor *v = tensor_view(c, 1, &shape, &st, c->offset);
  tensor_release(c);
  return val_obj(v);
}

static void put_np(StrBuf *b, Val tv) {
  ndarray_str_tensor(b, val_tensor(tv));
}

/* TF's _pretty_print of a tensor inside a data list: "['1', '2', '...']". */
static void put_pretty(StrBuf *b, Tensor *t, tfs_i64 summarize) {
  if (t->rank == 0) {
    Val v = ndarray_new(t);
    val_str(b, v);
    TFS_DECREF(v);
    return;
  }
  sb_putc(b, '[');
  tfs_i64 n = t->size < summarize ? t->size : summarize;
  for (tfs_i64 i = 0; i < n; i++) {
    Tensor *c = tensor_contiguous(t);
    tfs_i64 off = c->offset + i;
    Tensor *e = tensor_view(c, 0, NULL, NULL, off);
    tensor_release(c);
    StrBuf s;
    sb_init(&s);
    Val v = ndarray_new(e);
    val_str(&s, v);
    TFS_DECREF(v);
    tensor_release(e);
    sb_printf(b, "%s'%.*s'", i ? ", " : "", (int)s.len, s.data);
    sb_free(&s);
  }
  if (n < t->size) sb_puts(b, n ? ", '...'" : "'...'");
  sb_putc(b, ']');
}

static _Noreturn void assert_fail(OpCall *c, StrBuf *b) {
  char *m = sb_steal(b);
  static char msg[4096];
  snprintf(msg, sizeof msg, "%s", m);
  free(m);
  /* errindex: - (passes on a message indexed where it is made) */
  op_fail(c, ERR_INVALID_ARGUMENT, "%s", msg);
}

static void message_line(OpCall *c, StrBuf *b, int attr) {
  Val m = op_attr(c, attr);
  if (m.tag == VT_UNDEF || m.tag == VT_NONE) return;
  val_str(b, m);
  sb_putc(b, '\n');
}

/* TF's CheckNumerics: "Inf", "NaN" or "Inf and NaN"; CheckNumericsV2 (v2) tells -Inf from +Inf:
 * "-Inf", "+Inf and NaN", "-Inf, +Inf, and NaN". */
static void check_numerics(OpCall *c, Tensor *t, int msg_attr, bool v2) {
  bool nan = false, neg = false, pos = false;
  for (tfs_i64 i = 0; i < t->size; i++) {
    double v = tensor_get_f(t, i);
    if (isnan(v)) nan = true;
    else if (isinf(v)) *(v < 0 ? &neg : &pos) = true;
  }
  if (!nan && !neg && !pos) return;
  StrBuf b;
  sb_init(&b);
  Val m = op_attr(c, msg_attr);
  if (m.tag != VT_UNDEF && m.tag != VT_NONE) val_str(&b, m);
  const char *what;
  if (!v2) what = (neg || pos) && nan ? "Inf and NaN" : nan ? "NaN" : "Inf";
  else if (neg && pos && nan) what = "-Inf, +Inf, and NaN";
  else if (neg && pos) what = "-Inf and +Inf";
  else if (nan) what = neg ? "-Inf and NaN" : pos ? "+Inf and NaN" : "NaN";
  else what = neg ? "-Inf" : "+Inf";
  sb_printf(&b, " : Tensor had %s values", what);
  /* errindex: … : Tensor had … values */
  assert_fail(c, &b);
}

void k_assert(OpCall *c) {
  OpId id = c->op->id;
  if (id == OP_CHECK_NUMERICS || id == OP_ASSERT_FINITE || id == OP_CHECK_NUMERICS_V2) {
    check_numerics(c, c->in[0], 0, id == OP_CHECK_NUMERICS_V2);
    return;
  }
  Tensor *x = c->in[0];
  /* attrs: message then summarize, but assert_none_equal (v2) takes summarize first */
  int msg_attr = id == OP_ASSERT_NONE_EQUAL ? 1 : 0;
  tfs_i64 summarize = op_attr_int(c, 1 - msg_attr, 3);
  if (summarize < 0) summarize = (tfs_i64)1 << 40;
  static const struct { OpId assert_op, cmp; bool zero_left; const char *head; } un[] = {
    {OP_ASSERT_NON_NEGATIVE, OP_LESS_EQUAL, true, "Condition x >= 0 did not hold element-wise:\n"},
    {OP_ASSERT_POSITIVE, OP_LESS, true, "Condition x > 0 did not hold element-wise:\n"},
    /* check_ops.py runs these two strings together (no comma between them) */
    {OP_ASSERT_NON_POSITIVE, OP_LESS_EQUAL, false, "Condition x <= 0 did not hold element-wise:"},
    {OP_ASSERT_NEGATIVE, OP_LESS, false, "Condition x < 0 did not hold element-wise:\n"},
  };
  int u = 0;
  while (u < 4 && un[u].assert_op != id) u++;
  if (u < 4) {
    Tensor *zero = tensor_scalar(x->dtype);
    ew_fill(zero, 0, 0);
    Val cond = un[u].zero_left ? op_apply2(un[u].cmp, val_obj(zero), val_obj(x))
                               : op_apply2(un[u].cmp, val_obj(x), val_obj(zero));
    tensor_release(zero);
    Tensor *ct = val_tensor(cond);
    bool ok = true;
    for (tfs_i64 i = 0; ok && i < ct->size; i++) ok = tensor_get_i(ct, i) != 0;
    TFS_DECREF(cond);
    if (ok) return;
    StrBuf b;
    sb_init(&b);
    message_line(c, &b, 0);
    sb_printf(&b, "%sx (shape=", un[u].head);
    shape_format(&b, x->rank, x->shape);
    sb_printf(&b, " dtype=%s) = \n", dtype_info[x->dtype].name);
    put_pretty(&b, x, summarize);
    /* errindex: …Condition x … 0 did not hold element-wise:… */
    assert_fail(c, &b);
  }
  Tensor *y = c->in[1];
  static const struct { OpId assert_op, cmp; const char *sym; } tab[] = {
    {OP_ASSERT_EQUAL, OP_EQUAL, "=="}, {OP_ASSERT_GREATER, OP_GREATER, ">"},
    {OP_ASSERT_GREATER_EQUAL, OP_GREATER_EQUAL, ">="}, {OP_ASSERT_LESS, OP_LESS, "<"},
    {OP_ASSERT_LESS_EQUAL, OP_LESS_EQUAL, "<="}, {OP_ASSERT_NONE_EQUAL, OP_NOT_EQUAL, "!="},
  };
  int k = 0;
  while (tab[k].assert_op != id) k++;
  Val cond = op_apply2(tab[k].cmp, val_obj(x), val_obj(y));
  Tensor *ct = val_tensor(cond);
  bool ok = true;
  for (tfs_i64 i = 0; ok && i < ct->size; i++) ok = tensor_get_i(ct, i) != 0;
  if (ok) { TFS_DECREF(cond); return; }
  StrBuf b;
  sb_init(&b);
  message_line(c, &b, msg_attr);
  sb_printf(&b, "Condition x %s y did not hold.", tab[k].sym);
  bool same = x->rank == y->rank && x->rank > 0;
  for (int d = 0; same && d < x->rank; d++) same = x->shape[d] == y->shape[d];
  if (summarize > 0 && same) {
    tfs_i64 nbad = 0;
    for (tfs_i64 i = 0; i < ct->size; i++) nbad += tensor_get_i(ct, i) == 0;
    tfs_i64 nv = nbad < summarize ? nbad : summarize;
    tfs_i64 ishape[2] = {nv, x->rank};
    Tensor *idx = tensor_new(DT_INT64, 2, ishape);
    Tensor *xv = tensor_new(x->dtype, 1, &nv), *yv = tensor_new(y->dtype, 1, &nv);
    size_t esz = (size_t)dtype_info[x->dtype].size;
    tfs_i64 j = 0;
    for (tfs_i64 i = 0; i < ct->size && j < nv; i++) {
      if (tensor_get_i(ct, i)) continue;
      tfs_i64 r = i;
      for (int d = x->rank - 1; d >= 0; d--) {
        ((int64_t *)tensor_data(idx))[j * x->rank + d] = r % x->shape[d];
        r /= x->shape[d];
      }
      memcpy((char *)tensor_data(xv) + j * esz, (char *)x->buf->data + tensor_elem_offset(x, i) * esz, esz);
      memcpy((char *)tensor_data(yv) + j * esz, (char *)y->buf->data + tensor_elem_offset(y, i) * esz, esz);
      j++;
    }
    sb_printf(&b, "\nIndices of first %lld different values:\n", (long long)nv);
    ndarray_str_tensor(&b, idx);
    sb_puts(&b, "\nCorresponding x values:\n");
    ndarray_str_tensor(&b, xv);
    sb_puts(&b, "\nCorresponding y values:\n");
    ndarray_str_tensor(&b, yv);
    tensor_release(idx);
    tensor_release(xv);
    tensor_release(yv);
  }
  if (summarize > 0) {
    Val xs = flat_prefix(x, summarize), ys = flat_prefix(y, summarize);
    sb_printf(&b, "\nFirst %lld elements of x:\n", (long long)val_tensor(xs)->size);
    put_np(&b, xs);
    sb_printf(&b, "\nFirst %lld elements of y:\n", (long long)val_tensor(ys)->size);
    put_np(&b, ys);
    TFS_DECREF(xs);
    TFS_DECREF(ys);
  }
  TFS_DECREF(cond);
  /* errindex: …Condition x … y did not hold.… */
  assert_fail(c, &b);
}

/* ---- TF's Assert op ---------------------------------------------------------------------------- */

/* One element as TF's Tensor::SummarizeValue writes it without print_v2: strings C-escaped and unquoted,
 * bools 1/0, numbers in their shortest form. */
static void summ_elem(StrBuf *b, const Tensor *t, tfs_i64 i) {
  if (t->dtype == DT_STRING) {
    const Str *s = s_elem(t, i);
    const unsigned char *p = (const unsigned char *)s_data(s);
    for (tfs_i64 k = 0; k < s_len(s); k++) {
      unsigned char ch = p[k];
      if (ch == '\n') sb_puts(b, "\\n");
      else if (ch == '\r') sb_puts(b, "\\r");
      else if (ch == '\t') sb_puts(b, "\\t");
      else if (ch == '"' || ch == '\'' || ch == '\\') sb_printf(b, "\\%c", ch);
      else if (ch < 0x20 || ch == 0x7f) sb_printf(b, "\\%03o", ch);
      else sb_putc(b, (char)ch);
    }
  } else if (dtype_info[t->dtype].is_float) {
    sb_printf(b, "%.9g", tensor_get_f(t, i));
  } else {
    sb_printf(b, "%lld", (long long)tensor_get_i(t, i));
  }
}

/* TF's PrintOneDim: nested brackets, the first `limit` elements in row-major order. */
static void summ_dim(StrBuf *b, const Tensor *t, int d, tfs_i64 limit, tfs_i64 *at) {
  if (*at >= limit) return;
  if (d == t->rank - 1) {
    for (tfs_i64 i = 0; i < t->shape[d]; i++) {
      if (*at >= limit) {
        if (d != 0) sb_puts(b, "...");
        return;
      }
      if (i > 0) sb_putc(b, ' ');
      summ_elem(b, t, (*at)++);
    }
    return;
  }
  for (tfs_i64 i = 0; i < t->shape[d]; i++) {
    bool open = *at < limit;
    if (open) sb_putc(b, '[');
    summ_dim(b, t, d + 1, limit, at);
    if (*at < limit || open) sb_putc(b, ']');
  }
}

/* TF's Tensor::SummarizeValue(summarize) (print_v2 false): "2 4", "5", "1 2 3...". */
static void summarize_value(StrBuf *b, const Tensor *t, tfs_i64 summarize) {
  tfs_i64 n = t->size, limit = summarize < 0 || summarize > n ? n : summarize;
  if (t->rank == 0) {
    if (limit > 0) summ_elem(b, t, 0);
    return;
  }
  tfs_i64 at = 0;
  summ_dim(b, t, 0, limit, &at);
  if (n > limit) sb_puts(b, "...");
}

/* Assert (data[0] the condition): "assertion failed: " and each datum summarized in brackets. */
void k_assert_data(OpCall *c) {
  Tensor *cond = c->in[0];
  if (cond->rank > 1 || cond->size != 1) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "In[0] should be a scalar: ");
    op_shape_text(&b, cond->rank, cond->shape);
    /* errindex: In[0] should be a scalar: … */
    op_fail_sb(c, ERR_INVALID_ARGUMENT, &b);
  }
  if (tensor_get_i(cond, 0)) return;
  tfs_i64 summarize = op_attr_int(c, 0, 3);
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, "assertion failed: ");
  for (int i = 1; i < c->nin; i++) {
    sb_putc(&b, '[');
    summarize_value(&b, c->in[i], summarize);
    sb_putc(&b, ']');
    if (i < c->nin - 1) sb_putc(&b, ' ');
  }
  /* errindex: assertion failed: … */
  assert_fail(c, &b);
}

/* ---- tf.print --------------------------------------------------------------------------------- */

/* A host argument of tf.print: TF formats it with pprint, tensors nested in
 * lists and tuples printed in place (as tf.print prints them), strings at the
 * top level as themselves. */
static void print_host(StrBuf *b, Val v, bool top, tfs_i64 summarize) {
  Tensor *t = val_as_tensor(v);
  if (t && !val_is_ndarray(v)) { tprint_tfprint_n(b, t, summarize); return; }
  bool is_list = val_is(v, &list_type);
  if (is_list || val_is(v, &tuple_type)) {
    tfs_i64 n = is_list ? ((List *)v.u.o)->len : ((Tuple *)v.u.o)->len;
    Val *it = is_list ? ((List *)v.u.o)->items : ((Tuple *)v.u.o)->items;
    sb_putc(b, is_list ? '[' : '(');
    for (tfs_i64 i = 0; i < n; i++) {
      if (i) sb_puts(b, ", ");
      print_host(b, it[i], false, summarize);
    }
    if (!is_list && n == 1) sb_putc(b, ',');
    sb_putc(b, is_list ? ']' : ')');
    return;
  }
  if (top) val_str(b, v);
  else val_repr(b, v);
}

void k_print(OpCall *c) {
  StrBuf b;
  sb_init(&b);
  Val sep = op_attr(c, 1), end = op_attr(c, 2), stream = op_attr(c, 0);
  tfs_i64 summarize = op_attr_int(c, 3, 3);   /* None: 3 */
  /* traced structures (trace.c): inputs from nargs on are the tensors that
   * the leaf markers of the printed host templates stand for */
  int nargs = (int)op_attr_int(c, 4, c->nin);
  if (nargs < 0 || nargs > c->nin) nargs = c->nin;
  int nleaves = c->nin - nargs;
  Val lbuf[16], *leaves = c->nin <= 16 ? lbuf : malloc(sizeof(Val) * (size_t)c->nin);   /* by input index */
  if (!leaves) rt_throw(ERR_MEMORY, "out of memory");
  for (int k = 0; k < c->nin; k++) leaves[k] = k >= nargs && c->in[k] ? val_obj(c->in[k]) : val_none();
  for (int i = 0; i < nargs; i++) {
    if (i && sep.tag == VT_OBJ) val_str(&b, sep);
    /* a tensor input arrives in in[] (graph execution keeps only host values in args) */
    Val v = c->args ? c->args[i] : val_undef();
    Tensor *t = c->in[i] ? c->in[i] : val_as_tensor(v);
    if (t) {
      tprint_tfprint_n(&b, t, summarize);
    } else if (nleaves) {
      Val full = nest_unflatten(v, leaves);
      print_host(&b, full, true, summarize);
      val_decref(full);
    } else {
      print_host(&b, v, true, summarize);
    }
  }
  if (leaves != lbuf) free(leaves);
  if (end.tag == VT_OBJ) val_str(&b, end);
  const char *dest = val_is(stream, &str_type) ? str_cstr(stream) : "stdout";
  if (!strcmp(dest, "stdout") || !strcmp(dest, "sys.stdout")) {
    rt_write_stdout(b.data ? b.data : "", b.len);
  } else if (!strcmp(dest, "stderr") || !strcmp(dest, "sys.stderr")) {
    rt_flush();
    fwrite(b.data ? b.data : "", 1, b.len, stderr);
    fflush(stderr);
  } else if (!strncmp(dest, "file://", 7)) {
    FILE *f = fopen(dest + 7, "a");
    if (!f) {
      sb_free(&b);
      op_fail(c, ERR_IO, "tf.print: cannot open %s", dest + 7);
    }
    fwrite(b.data ? b.data : "", 1, b.len, f);
    fclose(f);
  } else {
    sb_free(&b);
    op_fail(c, ERR_VALUE, "Unsupported output stream or logging level %s", dest);
  }
  sb_free(&b);
}

/* ---- timestamp -------------------------------------------------------------------------------- */

/* shape: a scalar float64. */
void meta_timestamp(OpCall *c) { meta_set(&c->outm[0], DT_FLOAT64, 0, NULL); }

void k_timestamp(OpCall *c) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  *(double *)tensor_data(c->out[0]) = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* NoOp: what it does is its control inputs running first (tf.no_op, tf.group). */
void k_noop(OpCall *c) { (void)c; }

/* ---- variables ---------------------------------------------------------------------------------- */

/* shape: the variable's shape and dtype. */
void meta_read_var(OpCall *c) {
  Variable *v = variable_storage(c->args[0].u.o);
  tfs_i64 dims[TFS_MAX_RANK];
  int rank = variable_shape(v, dims);
  meta_set(&c->outm[0], v->value->dtype, rank, dims);
}

void k_read_var(OpCall *c) {
  Variable *v = variable_storage(c->args[0].u.o);
  c->out[0] = tensor_retain(v->value);
}

void k_assign_var(OpCall *c) {
  Variable *v = (Variable *)c->args[0].u.o;
  int mode = c->op->id == OP_ASSIGN_VARIABLE ? 0 : c->op->id == OP_ASSIGN_ADD_VARIABLE ? 1 : 2;
  variable_assign(v, c->in[1] ? val_obj(c->in[1]) : c->args[1], mode);
}
