/* test_tensor.c — tensors: host conversion rules, broadcasting, views and indexing, printing, errors, refcounts, variables. */
#include <check.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "modules/tfmod.h"

static Val tf;

/* tf.<api>(args..., **kw) */
static Val call(const char *api, int n, const Val *args, int nkw, const char *const *names, const Val *kvals) {
  char buf[96];
  snprintf(buf, sizeof buf, "%s", api);
  Val cur = val_incref(tf);
  char *save = NULL;
  for (char *p = strtok_r(buf, ".", &save); p; p = strtok_r(NULL, ".", &save)) {
    Val nx = rt_getattr(cur, p);
    TFS_DECREF(cur);
    cur = nx;
  }
  Kw kw = {nkw, names, kvals};
  Val r = rt_call(cur, n, args, nkw ? &kw : NULL);
  TFS_DECREF(cur);
  return r;
}
static Val call1(const char *api, Val a) { return call(api, 1, &a, 0, NULL, NULL); }
static Val call2(const char *api, Val a, Val b) {
  Val x[2] = {a, b};
  return call(api, 2, x, 0, NULL, NULL);
}

static char text[4096];
static const char *str_text(Val v) {
  StrBuf b;
  sb_init(&b);
  val_str(&b, v);
  snprintf(text, sizeof text, "%.*s", (int)b.len, b.data ? b.data : "");
  sb_free(&b);
  return text;
}
static const char *repr_text(Val v) {
  StrBuf b;
  sb_init(&b);
  val_repr(&b, v);
  snprintf(text, sizeof text, "%.*s", (int)b.len, b.data ? b.data : "");
  sb_free(&b);
  return text;
}

/* v.name(args...) and str(v.name), releasing the bound method / attribute */
static Val method(Val v, const char *name, int n, const Val *args) {
  Val m = rt_getattr(v, name);
  int mark = rt_hold_val(m); /* released by the unwind if the call raises */
  Val r = rt_call(m, n, args, NULL);
  rt_unhold(mark);
  TFS_DECREF(m);
  return r;
}
static const char *attr_str(Val v, const char *name) {
  Val a = rt_getattr(v, name);
  const char *s = str_text(a);
  TFS_DECREF(a);
  return s;
}

static Val ilist(int n, const long long *v) {
  Val l = list_new(n);
  for (int i = 0; i < n; i++) list_append(l, val_int(v[i]));
  return l;
}
static Val flist(int n, const double *v) {
  Val l = list_new(n);
  for (int i = 0; i < n; i++) list_append(l, val_float(v[i]));
  return l;
}
static Val nested2x3(void) {
  long long r0[3] = {1, 2, 3}, r1[3] = {4, 5, 6};
  Val a = ilist(3, r0), b = ilist(3, r1);
  Val rows[2] = {a, b};
  Val l = rt_list(2, rows);
  TFS_DECREF(a);
  TFS_DECREF(b);
  return l;
}

/* Run `body`; it must raise `kind` with a message starting with `prefix`. */
#define EXPECT_ERR(ekind, eprefix, body)                                                          \
  do {                                                                                          \
    RtTry t_;                                                                                   \
    rt_try_push(&t_);                                                                           \
    if (setjmp(t_.jb) == 0) {                                                                   \
      body;                                                                                     \
      rt_try_pop(&t_);                                                                          \
      ck_abort_msg("no error raised by " #body);                                                \
    } else {                                                                                    \
      ck_assert_str_eq(err_kind_name(t_.kind), ekind);                                           \
      ck_assert_msg(t_.msg && !strncmp(t_.msg, eprefix, strlen(eprefix)), "message '%s' does not start with '%s'", \
                    t_.msg ? t_.msg : "", eprefix);                                             \
      rt_try_clear(&t_);                                                                        \
    }                                                                                           \
  } while (0)

static void setup(void) { tf = tf_module(); }
static void teardown(void) { TFS_DECREF(tf); }

/* ---- conversion (§6) ----------------------------------------------------------------- */

START_TEST(test_conversion_defaults) {
  Val t = call1("constant", val_int(7));
  ck_assert_str_eq(str_text(t), "tf.Tensor(7, shape=(), dtype=int32)");
  TFS_DECREF(t);
  t = call1("constant", val_float(1.5));
  ck_assert_str_eq(str_text(t), "tf.Tensor(1.5, shape=(), dtype=float32)");
  TFS_DECREF(t);
  t = call1("constant", val_bool(true));
  ck_assert_str_eq(str_text(t), "tf.Tensor(True, shape=(), dtype=bool)");
  TFS_DECREF(t);
  Val s = str_from_cstr("a");
  t = call1("constant", s);
  ck_assert_str_eq(str_text(t), "tf.Tensor(b'a', shape=(), dtype=string)");
  TFS_DECREF(t);
  TFS_DECREF(s);
  t = call1("constant", val_int((long long)1 << 40));
  ck_assert_int_eq(val_tensor(t)->dtype, DT_INT64);
  TFS_DECREF(t);
  Val mixed[2] = {val_int(1), val_float(2.5)};
  Val l = rt_list(2, mixed);
  t = call1("constant", l);
  ck_assert_str_eq(str_text(t), "tf.Tensor([1.  2.5], shape=(2,), dtype=float32)");
  TFS_DECREF(t);
  TFS_DECREF(l);
  l = nested2x3();
  t = call1("constant", l);
  ck_assert_str_eq(str_text(t), "tf.Tensor(\n[[1 2 3]\n [4 5 6]], shape=(2, 3), dtype=int32)");
  TFS_DECREF(t);
  TFS_DECREF(l);
  l = list_new(0);
  t = call1("constant", l);
  ck_assert_str_eq(str_text(t), "tf.Tensor([], shape=(0,), dtype=float32)");
  TFS_DECREF(t);
  TFS_DECREF(l);
}
END_TEST

START_TEST(test_conversion_errors) {
  long long r0[2] = {1, 2}, r1[1] = {3};
  Val a = ilist(2, r0), b = ilist(1, r1);
  Val rows[2] = {a, b};
  Val ragged = rt_list(2, rows);
  EXPECT_ERR("ValueError", "Can't convert non-rectangular Python sequence to Tensor.", call1("constant", ragged));
  TFS_DECREF(ragged);
  TFS_DECREF(a);
  TFS_DECREF(b);
  const char *kn[1] = {"dtype"};
  Val kv[1] = {dtype_val(DT_INT32)};
  Val x = val_float(1.5);
  EXPECT_ERR("TypeError", "Cannot convert 1.5 to EagerTensor of dtype int32", call("constant", 1, &x, 1, kn, kv));
  EXPECT_ERR("ValueError", "Attempt to convert a value (None)", call1("constant", val_none()));
  /* explicit dtype converts ints to floats */
  Val one = val_int(1);
  kv[0] = dtype_val(DT_FLOAT64);
  Val t = call("constant", 1, &one, 1, kn, kv);
  ck_assert_str_eq(str_text(t), "tf.Tensor(1.0, shape=(), dtype=float64)");
  TFS_DECREF(t);
  /* shape= broadcasts a scalar */
  const char *kn2[1] = {"shape"};
  long long dims[2] = {2, 2};
  Val sh = ilist(2, dims);
  Val kv2[1] = {sh};
  t = call("constant", 1, &one, 1, kn2, kv2);
  ck_assert_str_eq(str_text(t), "tf.Tensor(\n[[1 1]\n [1 1]], shape=(2, 2), dtype=int32)");
  TFS_DECREF(t);
  TFS_DECREF(sh);
}
END_TEST

/* ---- operators and promotion --------------------------------------------------------------- */

START_TEST(test_host_values_meet_tensors) {
  double v[2] = {1.0, 2.0};
  Val l = flist(2, v);
  Val t = call1("constant", l);
  Val r = rt_binop(BIN_ADD, t, val_int(1));   /* host int -> float32 */
  ck_assert_str_eq(str_text(r), "tf.Tensor([2. 3.], shape=(2,), dtype=float32)");
  TFS_DECREF(r);
  r = rt_binop(BIN_SUB, val_int(10), t);
  ck_assert_str_eq(str_text(r), "tf.Tensor([9. 8.], shape=(2,), dtype=float32)");
  TFS_DECREF(r);
  Val it = call1("constant", val_int(3));
  EXPECT_ERR("TypeError", "Cannot convert 1.5 to EagerTensor of dtype int32", rt_binop(BIN_ADD, it, val_float(1.5)));
  EXPECT_ERR("InvalidArgumentError",
             "cannot compute AddV2 as input #1(zero-based) was expected to be a float tensor but is a int32 tensor",
             rt_binop(BIN_ADD, t, it));
  r = rt_binop(BIN_DIV, it, val_int(2));      /* int / int -> float64 */
  ck_assert_str_eq(str_text(r), "tf.Tensor(1.5, shape=(), dtype=float64)");
  TFS_DECREF(r);
  r = rt_binop(BIN_FLOORDIV, val_int(-7), it);
  ck_assert_str_eq(str_text(r), "tf.Tensor(-3, shape=(), dtype=int32)");
  TFS_DECREF(r);
  EXPECT_ERR("InvalidArgumentError", "Integer division by zero", rt_binop(BIN_MOD, it, val_int(0)));
  /* only host values: the first converts by default rules, the rest to its dtype */
  long long iv[2] = {1, -1};
  Val il = ilist(2, iv);
  r = call2("maximum", val_float(0.0), il);
  ck_assert_str_eq(str_text(r), "tf.Tensor([1. 0.], shape=(2,), dtype=float32)");
  TFS_DECREF(r);
  r = rt_compare(CMP_LT, t, val_float(1.5));
  ck_assert_str_eq(str_text(r), "tf.Tensor([ True False], shape=(2,), dtype=bool)");
  TFS_DECREF(r);
  r = rt_compare(CMP_EQ, t, val_none());      /* TF: == with an unconvertible value is False */
  ck_assert(r.tag == VT_BOOL && !r.u.i);
  TFS_DECREF(il);
  TFS_DECREF(l);
  TFS_DECREF(t);
  TFS_DECREF(it);
}
END_TEST

START_TEST(test_broadcasting) {
  Val l = nested2x3();
  Val a = call1("constant", l);
  long long v[3] = {10, 20, 30};
  Val row = ilist(3, v);
  Val b = call1("constant", row);
  Val r = rt_binop(BIN_ADD, a, b);
  ck_assert_str_eq(str_text(r), "tf.Tensor(\n[[11 22 33]\n [14 25 36]], shape=(2, 3), dtype=int32)");
  TFS_DECREF(r);
  long long w[2] = {1, 2};
  Val l2 = ilist(2, w);
  Val c = call1("constant", l2);
  EXPECT_ERR("InvalidArgumentError", "Incompatible shapes: [2,3] vs. [2]", rt_binop(BIN_MUL, a, c));
  TFS_DECREF(c);
  TFS_DECREF(l2);
  TFS_DECREF(b);
  TFS_DECREF(row);
  TFS_DECREF(a);
  TFS_DECREF(l);
}
END_TEST

/* ---- views and indexing -------------------------------------------------------------------- */

START_TEST(test_indexing_views) {
  Val l = nested2x3();
  Val a = call1("constant", l);
  Tensor *ta = val_tensor(a);
  Val r = rt_getitem(a, val_int(1));
  ck_assert_str_eq(str_text(r), "tf.Tensor([4 5 6], shape=(3,), dtype=int32)");
  ck_assert_ptr_eq(val_tensor(r)->buf, ta->buf);     /* a view, no copy */
  TFS_DECREF(r);
  r = rt_getitem(a, val_int(-1));
  ck_assert_str_eq(str_text(r), "tf.Tensor([4 5 6], shape=(3,), dtype=int32)");
  TFS_DECREF(r);
  Val sl = rt_slice(val_none(), val_none(), val_int(-1));
  Val key[2] = {val_int(0), sl};
  Val tup = rt_tuple(2, key);
  r = rt_getitem(a, tup);
  ck_assert_str_eq(str_text(r), "tf.Tensor([3 2 1], shape=(3,), dtype=int32)");
  ck_assert_ptr_eq(val_tensor(r)->buf, ta->buf);
  TFS_DECREF(r);
  TFS_DECREF(tup);
  Val el = rt_ellipsis();
  Val key2[2] = {el, val_none()};
  tup = rt_tuple(2, key2);
  r = rt_getitem(a, tup);
  ck_assert_str_eq(attr_str(r, "shape"), "(2, 3, 1)");
  TFS_DECREF(r);
  TFS_DECREF(tup);
  TFS_DECREF(el);
  Val key3[2] = {sl, val_int(1)};
  tup = rt_tuple(2, key3);
  r = rt_getitem(a, tup);
  ck_assert_str_eq(str_text(r), "tf.Tensor([5 2], shape=(2,), dtype=int32)");
  /* an op on a strided view */
  Val s2 = rt_binop(BIN_MUL, r, r);
  ck_assert_str_eq(str_text(s2), "tf.Tensor([25  4], shape=(2,), dtype=int32)");
  TFS_DECREF(s2);
  TFS_DECREF(r);
  TFS_DECREF(tup);
  TFS_DECREF(sl);
  EXPECT_ERR("InvalidArgumentError", "slice index 2 of dimension 0 out of bounds (size 2).", rt_getitem(a, val_int(2)));
  Val k4[3] = {val_int(0), val_int(0), val_int(0)};
  tup = rt_tuple(3, k4);
  EXPECT_ERR("InvalidArgumentError", "Index out of range using input dim 2", rt_getitem(a, tup));
  TFS_DECREF(tup);
  ck_assert_int_eq(tensor_type.len(a), 2);
  TFS_DECREF(a);
  TFS_DECREF(l);
}
END_TEST

START_TEST(test_iteration_truthiness) {
  Val l = nested2x3();
  Val a = call1("constant", l);
  Val it = rt_iter(a);
  Val row;
  int n = 0;
  while (rt_next(it, &row)) {
    ck_assert_int_eq(val_tensor(row)->rank, 1);
    TFS_DECREF(row);
    n++;
  }
  ck_assert_int_eq(n, 2);
  TFS_DECREF(it);
  EXPECT_ERR("ValueError", "The truth value of an array with more than one element is ambiguous", rt_truthy(a));
  Val one = call1("constant", val_int(1));
  ck_assert(rt_truthy(one));
  EXPECT_ERR("TypeError", "Cannot iterate over a scalar tensor.", rt_iter(one));
  TFS_DECREF(one);
  TFS_DECREF(a);
  TFS_DECREF(l);
}
END_TEST

/* ---- printing, attributes, numpy --------------------------------------------------------------- */

START_TEST(test_printing_and_attrs) {
  ck_assert_str_eq(attr_str(tf, "float32"), "<dtype: 'float32'>");
  Val dts = rt_getattr(tf, "dtypes");
  Val dt = rt_module_attr(dts, "int64");
  ck_assert_str_eq(str_text(dt), "<dtype: 'int64'>");
  ck_assert_str_eq(repr_text(dt), "tf.int64");   /* TF: repr(tf.int64) */
  TFS_DECREF(dt);
  TFS_DECREF(dts);
  double v[2] = {1.5, -2.25};
  Val l = flist(2, v);
  Val t = call1("constant", l);
  ck_assert_str_eq(repr_text(t), "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([ 1.5 , -2.25], dtype=float32)>");
  Val sh = rt_getattr(t, "shape");
  ck_assert_str_eq(str_text(sh), "(2,)");
  ck_assert_str_eq(repr_text(sh), "TensorShape([2])");
  TFS_DECREF(sh);
  Val nd = rt_getattr(t, "ndim");
  ck_assert(nd.tag == VT_INT && nd.u.i == 1);
  Val np = method(t, "numpy", 0, NULL);
  ck_assert_str_eq(str_text(np), "[ 1.5  -2.25]");
  Val tl = method(np, "tolist", 0, NULL);
  ck_assert_str_eq(str_text(tl), "[1.5, -2.25]");
  TFS_DECREF(tl);
  ck_assert_str_eq(attr_str(np, "dtype"), "float32");
  ck_assert_str_eq(attr_str(np, "shape"), "(2,)");
  Val eq = rt_compare(CMP_EQ, np, np);
  ck_assert_str_eq(str_text(eq), "[ True  True]");
  TFS_DECREF(eq);
  TFS_DECREF(np);
  Val x = call1("constant", val_float(0.1));
  np = method(x, "numpy", 0, NULL);   /* numpy's float32 scalar prints 0.1 */
  ck_assert_str_eq(str_text(np), "0.1");
  TFS_DECREF(np);
  TFS_DECREF(x);
  x = call1("constant", val_float(12.0));
  np = method(x, "numpy", 0, NULL);
  ck_assert_str_eq(str_text(np), "12.0");
  TFS_DECREF(np);
  TFS_DECREF(x);
  TFS_DECREF(t);
  TFS_DECREF(l);
}
END_TEST

/* ---- variables ---------------------------------------------------------------------------------- */

START_TEST(test_variables) {
  Val v = call1("Variable", val_int(0));
  ck_assert_str_eq(str_text(v), "<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=0>");
  Val five = val_int(5);
  Val r = method(v, "assign_add", 1, &five);
  TFS_DECREF(r);
  Val s = rt_binop(BIN_MUL, v, val_int(2));
  ck_assert_str_eq(str_text(s), "tf.Tensor(10, shape=(), dtype=int32)");
  TFS_DECREF(s);
  Val rv = method(v, "read_value", 0, NULL);
  Val three = val_int(3);
  r = method(v, "assign", 1, &three);
  TFS_DECREF(r);
  ck_assert_str_eq(str_text(rv), "tf.Tensor(5, shape=(), dtype=int32)");   /* reads are snapshots */
  ck_assert_str_eq(str_text(v), "<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=3>");
  TFS_DECREF(rv);
  double d[2] = {1, 2};
  Val l = flist(2, d);
  const char *kn[1] = {"name"};
  Val nm = str_from_cstr("w");
  Val kv[1] = {nm};
  Val w = call("Variable", 1, &l, 1, kn, kv);
  ck_assert_str_eq(str_text(w), "<tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>");
  EXPECT_ERR("ValueError", "Cannot assign value to variable ' w:0': Shape mismatch.", method(w, "assign", 1, &three));
  Val mm = rt_binop(BIN_ADD, w, w);
  ck_assert_str_eq(str_text(mm), "tf.Tensor([2. 4.], shape=(2,), dtype=float32)");
  TFS_DECREF(mm);
  TFS_DECREF(w);
  TFS_DECREF(nm);
  TFS_DECREF(l);
  TFS_DECREF(v);
}
END_TEST

/* ---- refcounts and memory ------------------------------------------------------------------------- */

/* A graph worker's copy of a string tensor (tensor_copy_own) shares no string with the original: a worker's
 * reference counts stay its own (graph/parexec.h). */
START_TEST(test_copy_own_strings) {
  tfs_i64 shape[1] = {3};
  Tensor *t = tensor_new(DT_STRING, 1, shape);
  const char *txt[3] = {"alpha", "", "gamma"};
  for (int i = 0; i < 3; i++) ((Str **)tensor_data(t))[i] = (Str *)str_from_cstr(txt[i]).u.o;
  Tensor *c = tensor_copy_own(t), *shared = tensor_copy(t);
  for (int i = 0; i < 3; i++) {
    Str *a = ((Str **)tensor_data(t))[i], *b = ((Str **)tensor_data(c))[i];
    ck_assert_ptr_ne(a, b);
    ck_assert_int_eq(b->hdr.rc, 1);
    ck_assert_str_eq(b->data, txt[i]);
    ck_assert_int_eq(a->hdr.rc, 2);   /* the original and tensor_copy's copy, not tensor_copy_own's */
  }
  tensor_release(shared);
  tensor_release(c);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(((Str **)tensor_data(t))[i]->hdr.rc, 1);
  tensor_release(t);
}
END_TEST

START_TEST(test_refcounts) {
  Val l = nested2x3();
  Val a = call1("constant", l);
  Tensor *ta = val_tensor(a);
  ck_assert_int_eq(ta->hdr.rc, 1);
  for (int i = 0; i < 100000; i++) {
    Val r = rt_binop(BIN_ADD, a, val_int(i));
    Val row = rt_getitem(r, val_int(1));
    Val s = call1("reduce_sum", row);
    TFS_DECREF(s);
    TFS_DECREF(r);
    TFS_DECREF(row);
  }
  ck_assert_int_eq(ta->hdr.rc, 1);
  ck_assert_int_eq(ta->buf->rc, 1);
  /* a view outlives the tensor it came from */
  Val row = rt_getitem(a, val_int(0));
  ck_assert_int_eq(ta->buf->rc, 2);
  TFS_DECREF(a);
  ck_assert_str_eq(str_text(row), "tf.Tensor([1 2 3], shape=(3,), dtype=int32)");
  TFS_DECREF(row);
  TFS_DECREF(l);
}
END_TEST

START_TEST(test_where_forms) {
  Val bl[3] = {val_bool(true), val_bool(false), val_bool(true)};
  Val l = rt_list(3, bl);
  Val c = call1("constant", l);
  Val r = call1("where", c);   /* coordinates of the true elements */
  ck_assert_str_eq(str_text(r), "tf.Tensor(\n[[0]\n [2]], shape=(2, 1), dtype=int64)");
  TFS_DECREF(r);
  Val x[3] = {c, val_int(1), val_int(0)};
  r = call("where", 3, x, 0, NULL, NULL);
  ck_assert_str_eq(str_text(r), "tf.Tensor([1 0 1], shape=(3,), dtype=int32)");
  TFS_DECREF(r);
  TFS_DECREF(c);
  TFS_DECREF(l);
}
END_TEST

START_TEST(test_keyword_errors_and_seeds) {
  const char *kn[1] = {"foo"};
  Val kv[1] = {val_int(1)};
  Val x[2] = {val_int(1), val_int(2)};
  EXPECT_ERR("TypeError", "tf.add() got an unexpected keyword argument 'foo'", call("add", 2, x, 1, kn, kv));
  long long dims[1] = {3};
  Val sh = ilist(1, dims);
  Val seed = val_int(7);
  Val r0 = call1("random.set_seed", seed);
  TFS_DECREF(r0);
  Val a = call1("random.uniform", sh);
  Val b = call1("random.normal", sh);
  r0 = call1("random.set_seed", seed);
  TFS_DECREF(r0);
  Val a2 = call1("random.uniform", sh);
  Val b2 = call1("random.normal", sh);
  char sa[4096];
  snprintf(sa, sizeof sa, "%s", str_text(a));
  ck_assert_str_eq(str_text(a2), sa);
  snprintf(sa, sizeof sa, "%s", str_text(b));
  ck_assert_str_eq(str_text(b2), sa);
  snprintf(sa, sizeof sa, "%s", str_text(a));
  ck_assert_str_ne(str_text(b), sa);    /* uniform and normal draw different streams */
  TFS_DECREF(a);
  TFS_DECREF(b);
  TFS_DECREF(a2);
  TFS_DECREF(b2);
  TFS_DECREF(sh);
}
END_TEST

static Suite *tensor_suite(void) {
  Suite *s = suite_create("tensor");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_conversion_defaults);
  tcase_add_test(tc, test_conversion_errors);
  tcase_add_test(tc, test_host_values_meet_tensors);
  tcase_add_test(tc, test_broadcasting);
  tcase_add_test(tc, test_indexing_views);
  tcase_add_test(tc, test_iteration_truthiness);
  tcase_add_test(tc, test_printing_and_attrs);
  tcase_add_test(tc, test_variables);
  tcase_add_test(tc, test_refcounts);
  tcase_add_test(tc, test_copy_own_strings);
  tcase_add_test(tc, test_where_forms);
  tcase_add_test(tc, test_keyword_errors_and_seeds);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(tensor_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
