/* k_pyfunc.c — EagerPyFunc: a host function called with the op's inputs each time it runs (tf.py_function, tf.numpy_function). */
#include <stdlib.h>

#include "object/object.h"
#include "kernels/ops.h"

/* Attributes: func, Tout (a dtype or a list of them), eager (true: tensors in, else numpy arrays). */
static int pyfunc_touts(const OpCall *c, DType *out, int cap) {
  Val t = op_attr(c, 1);
  DType d;
  if (val_as_dtype(t, &d)) {
    out[0] = d;
    return 1;
  }
  tfs_i64 n;
  const Val *items;
  if (!seq_items(t, &n, &items)) op_fail(c, ERR_TYPE, "Tout must be a dtype or a list of dtypes");
  if (n > cap) op_fail(c, ERR_INVALID_ARGUMENT, "Tout: at most %d results", cap);
  for (tfs_i64 i = 0; i < n; i++)
    if (!val_as_dtype(items[i], &out[i])) op_fail(c, ERR_TYPE, "Tout must be a dtype or a list of dtypes");
  return (int)n;
}

/* shape: unknown; one output per Tout dtype (its shape is known when the function has returned). */
void meta_py_func(OpCall *c) {
  DType dts[64];
  int n = pyfunc_touts(c, dts, 64);
  op_reserve_outputs(c, n);
  for (int i = 0; i < n; i++) {
    c->outm[i].dtype = dts[i];
    c->outm[i].rank = -1;
  }
}

void k_py_func(OpCall *c) {
  DType dts[64];
  int nout = pyfunc_touts(c, dts, 64);
  bool eager = op_attr_bool(c, 2, true);
  Val *args = malloc(sizeof(Val) * (size_t)(c->nin ? c->nin : 1));
  if (!args) op_fail(c, ERR_MEMORY, "out of memory");
  tfs_i64 nargs = 0;
  int amark = rt_hold_vals(&args, &nargs);   /* decref'd and freed if the host function raises */
  for (int i = 0; i < c->nin; i++) {
    /* numpy_function hands ndarrays, 0-d ones too (TF's TensorToNdarray), not numpy scalars */
    bool nd0 = c->in[i]->rank == 0 && c->in[i]->dtype != DT_STRING;
    args[i] = eager ? val_obj(tensor_retain(c->in[i])) : nd0 ? ndarray_new_0d(c->in[i]) : ndarray_new(c->in[i]);
    nargs = i + 1;
  }
  Val r = rt_call(op_attr(c, 0), c->nin, args, NULL);
  rt_unhold(amark);
  for (int i = 0; i < c->nin; i++) val_decref(args[i]);
  free(args);
  int mark = rt_hold_val(r);
  tfs_i64 n = 1;
  const Val *items = &r;
  bool list = op_attr(c, 1).tag == VT_OBJ && !val_is(op_attr(c, 1), &dtype_type);
  if (list && !seq_items(r, &n, &items)) n = 1, items = &r;
  if (n != nout)
    op_fail(c, ERR_INVALID_ARGUMENT, "The host function returned %lld values where Tout lists %d", (long long)n, nout);
  for (int i = 0; i < nout; i++) {
    Tensor *t = val_as_tensor(items[i]);
    if (t && t->dtype != dts[i])
      op_fail(c, ERR_INVALID_ARGUMENT, "result %d of the host function is a %s tensor, but Tout says %s", i,
              dtype_info[t->dtype].name, dtype_info[dts[i]].name);
    c->out[i] = t ? tensor_retain(t) : tensor_from_val(items[i], dts[i]);
  }
  rt_unhold(mark);
  val_decref(r);
}
