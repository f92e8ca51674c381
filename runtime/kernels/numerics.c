/* numerics.c — tf.debugging.enable_check_numerics: every float output of an op checked for Inf and NaN (TF's check_numerics_callback). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"

bool op_check_numerics;

/* Ops TF's callback leaves alone: control flow and function calls (op_callbacks_common's skip list), the frequent
 * ops that only move values (its SAFE_OPS), and ops that pass their input through. */
static bool numerics_skipped(const OpDef *op) {
  static const char *const skip[] = {
      "Identity", "If", "StatelessIf", "While", "StatefulPartitionedCall", "PartitionedCall", "Const",
      "CheckNumerics", "CheckNumericsV2", "ConcatV2", "Concat", "ExpandDims", "Fill", "GatherV2", "Gather",
      "Maximum", "Minimum", "Reshape", "Slice", "Squeeze", "Pack", "StridedSlice", "StridedSliceGrad",
      "TensorListConcatV2", "TensorListGather", "TensorListGetItem", "TensorListPopBack", "TensorListStack",
      "Transpose", "Unpack"};
  if (op->flags & (OPF_PASS0 | OPF_NOOUT)) return true;
  for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
    if (!strcmp(op->graph_name, skip[i])) return true;
  return false;
}

/* A TensorShape's str: (2, 3), (2,), (), (None, 4), <unknown>. */
static void shape_str(StrBuf *b, const Tensor *t) {
  if (t->rank < 0) {
    sb_puts(b, "<unknown>");
    return;
  }
  sb_putc(b, '(');
  for (int d = 0; d < t->rank; d++) {
    if (d) sb_puts(b, ", ");
    if (t->shape[d] < 0) sb_puts(b, "None");
    else sb_printf(b, "%lld", (long long)t->shape[d]);
  }
  sb_puts(b, t->rank == 1 ? ",)" : ")");
}

/* TF's get_check_numerics_error_message: which output of which op, its dtype and shape, (eagerly) how many
 * elements are -Inf, +Inf and NaN, and the op's inputs; graph: the graph's name.  TF's graph form also lists
 * the op's creation stack, which tfs gives as the error's location instead. */
static void numerics_text(StrBuf *b, const OpDef *op, int slot, int nout, const Tensor *t, int nin, const Val *in,
                          const char *graph) {
  sb_printf(b, "\n\n!!! Detected Infinity or NaN in output %d of %s op \"%s\" (# of outputs: %d) !!!\n", slot,
            graph ? "graph" : "eagerly-executing", op->graph_name, nout);
  sb_printf(b, "  dtype: <dtype: '%s'>\n  shape: ", dtype_info[t->dtype].name);
  shape_str(b, t);
  sb_putc(b, '\n');
  if (!graph) {
    tfs_i64 neg = 0, pos = 0, nan = 0;
    for (tfs_i64 i = 0; i < t->size; i++) {
      double v = tensor_get_f(t, i);
      if (isnan(v)) nan++;
      else if (isinf(v)) *(v < 0 ? &neg : &pos) += 1;
    }
    if (neg) sb_printf(b, "  # of -Inf elements: %lld\n", (long long)neg);
    if (pos) sb_printf(b, "  # of +Inf elements: %lld\n", (long long)pos);
    if (nan) sb_printf(b, "  # of +NaN elements: %lld\n", (long long)nan);
  }
  int shown = 0;
  for (int i = 0; i < nin; i++) shown += in[i].tag != VT_UNDEF;
  if (shown > 1) {
    sb_printf(b, "\n  Input tensors (%d):\n", shown);
    for (int i = 0, k = 0; i < nin; i++) {
      if (in[i].tag == VT_UNDEF) continue;
      sb_printf(b, "         %d: ", k++);
      val_str(b, in[i]);
      sb_putc(b, '\n');
    }
  } else if (shown == 1) {
    sb_puts(b, "\n  Input tensor: ");
    for (int i = 0; i < nin; i++)
      if (in[i].tag != VT_UNDEF) val_str(b, in[i]);
    sb_putc(b, '\n');
  }
  if (graph && *graph) sb_printf(b, "  Graph name: \"%s\"\n", graph);
  sb_putc(b, '\n');
}

/* The message as a str (owned), held until the caller unholds *mark. */
static Val numerics_message(const OpDef *op, int slot, int nout, const Tensor *t, int nin, const Val *in,
                            const char *graph, int *mark) {
  StrBuf b;
  sb_init(&b);
  numerics_text(&b, op, slot, nout, t, nin, in, graph);
  size_t len = b.len;
  Val msg = str_take(sb_steal(&b), (tfs_i64)len);
  *mark = rt_hold_val(msg);
  return msg;
}

/* The outputs of an op's result *r (a tensor, or a list or tuple of them) when the op is checked at all. */
static bool numerics_outputs(const OpDef *op, const Val *r, tfs_i64 *nout, const Val **outs) {
  if (numerics_skipped(op)) return false;
  *nout = 1;
  *outs = r;
  return val_as_tensor(*r) || seq_items(*r, nout, outs);
}

/* After an eager op: its float outputs go through CheckNumericsV2 with TF's message. */
void numerics_check_eager(const OpDef *op, int nin, Tensor **in, Val r) {
  tfs_i64 nout;
  const Val *outs;
  if (!numerics_outputs(op, &r, &nout, &outs)) return;
  for (int k = 0; k < nout; k++) {
    Tensor *t = val_as_tensor(outs[k]);
    if (!t || !dtype_info[t->dtype].is_float) continue;
    bool bad = false;
    for (tfs_i64 i = 0; i < t->size && !bad; i++) bad = !isfinite(tensor_get_f(t, i));
    if (!bad) continue;
    Val inv[8];
    int n = nin < 8 ? nin : 8;
    for (int i = 0; i < n; i++) inv[i] = in[i] ? val_obj(in[i]) : val_undef();
    int mark;
    Val msg = numerics_message(op, k, (int)nout, t, n, inv, NULL, &mark);
    OpAttrs at = {1, {msg}};
    Tensor **res;   /* op_run: not recorded on a tape, never traced */
    int nr = op_run(&op_defs[OP_CHECK_NUMERICS_V2], 1, &t, NULL, &at, &res);   /* raises */
    for (int i = 0; i < nr; i++) tensor_release(res[i]);
    free(res);
    rt_unhold(mark);
    TFS_DECREF(msg);
  }
}

/* While a function is traced: a CheckNumericsV2 node on each float output of the op just recorded (stateful,
 * so it runs with the graph although nothing reads it). */
void numerics_check_traced(const OpDef *op, int nin, const Val *in, Val r, const char *graph) {
  tfs_i64 nout;
  const Val *outs;
  if (!numerics_outputs(op, &r, &nout, &outs)) return;
  for (int k = 0; k < nout; k++) {
    Tensor *t = val_as_tensor(outs[k]);
    if (!t || !dtype_info[t->dtype].is_float) continue;
    int mark;
    Val msg = numerics_message(op, k, (int)nout, t, nin, in, graph ? graph : "", &mark);
    OpAttrs at = {1, {msg}};
    Val c = op_apply(&op_defs[OP_CHECK_NUMERICS_V2], 1, &outs[k], &at);
    TFS_DECREF(c);
    rt_unhold(mark);
    TFS_DECREF(msg);
  }
}
