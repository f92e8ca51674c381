/* k_summary.c — the WriteSummary kernel: a scalar, histogram or text summary as TF 2 and TensorBoard's plugins write it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "kernels/ops.h"
#include "modules/upops.h"
#include "modules/summary.h"

/* TensorBoard's histogram layout: a [k, 3] float64 tensor of (left edge,
 * right edge, count) over k equal buckets from min to max; all values in the
 * last bucket when they are equal; zeros for no data. */
static Tensor *ks_histogram(const Tensor *t, int k) {
  tfs_i64 shape[2] = {k, 3};
  Tensor *h = tensor_new(DT_FLOAT64, 2, shape);
  double *o = h->buf->data;
  memset(o, 0, sizeof(double) * 3 * (size_t)k);
  if (t->size == 0) return h;
  double lo = INFINITY, hi = -INFINITY;
  for (tfs_i64 i = 0; i < t->size; i++) {
    double v = tensor_get_f(t, i);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo == hi) {
    for (int b = 0; b < k; b++) o[3 * b] = o[3 * b + 1] = lo;
    o[3 * (k - 1) + 2] = (double)t->size;
    return h;
  }
  double width = (hi - lo) / k;
  for (int b = 0; b < k; b++) {
    o[3 * b] = lo + (hi - lo) * b / k;
    o[3 * b + 1] = lo + (hi - lo) * (b + 1) / k;
  }
  for (tfs_i64 i = 0; i < t->size; i++) {
    double f = floor((tensor_get_f(t, i) - lo) / width);
    int b = f >= k - 1 ? k - 1 : f >= 0 ? (int)f : 0;   /* NaN: the first bucket */
    o[3 * b + 2] += 1;
  }
  return h;
}

/* in: step, data; attrs: writer, tag, plugin ("scalars" | "histograms" | "text" | "graph_keras_model" |
 * "graph_run_metadata_graph" | "graph_run_metadata"), buckets, description */
void k_write_summary(OpCall *c) {
  Tensor *st = c->in[0], *data = c->in[1];
  if (!dtype_info[st->dtype].is_int || st->size != 1)
    op_fail(c, ERR_INVALID_ARGUMENT, "step must be a scalar integer, got a %s tensor with %lld elements",
            dtype_info[st->dtype].name, (long long)st->size);
  tfs_i64 step = tensor_get_i(st, 0);
  Val tag = op_attr(c, 1), plugin = op_attr(c, 2), desc = op_attr(c, 4);
  const char *pl = str_cstr(plugin);
  PbArena a = {0};
  Tensorflow__SummaryMetadata__PluginData pd = TENSORFLOW__SUMMARY_METADATA__PLUGIN_DATA__INIT;
  pd.plugin_name = (char *)pl;
  Tensorflow__SummaryMetadata md = TENSORFLOW__SUMMARY_METADATA__INIT;
  md.plugin_data = &pd;
  if (val_is(desc, &str_type)) md.summary_description = (char *)str_cstr(desc);
  Tensorflow__Summary__Value v = TENSORFLOW__SUMMARY__VALUE__INIT;
  v.tag = (char *)str_cstr(tag);
  v.metadata = &md;
  v.value_case = TENSORFLOW__SUMMARY__VALUE__VALUE_TENSOR;
  Tensor *owned = NULL;
  if (!strcmp(pl, "scalars")) {
    if (data->size != 1 || data->rank != 0 || data->dtype == DT_STRING)
      op_fail(c, ERR_INVALID_ARGUMENT, "tf.summary.scalar: data for '%s' must be a numeric scalar, got rank %d",
              str_cstr(tag), data->rank);
    md.data_class = TENSORFLOW__DATA_CLASS__DATA_CLASS_SCALAR;
    owned = tensor_new(DT_FLOAT32, 0, NULL);
    *(float *)owned->buf->data = (float)tensor_get_f(data, 0);
  } else if (!strcmp(pl, "histograms")) {
    if (data->dtype == DT_STRING)
      op_fail(c, ERR_INVALID_ARGUMENT, "tf.summary.histogram: data for '%s' must be numeric", str_cstr(tag));
    tfs_i64 k = op_attr_int(c, 3, 30);
    if (k < 1 || k > 100000) op_fail(c, ERR_INVALID_ARGUMENT, "tf.summary.histogram: buckets must be positive, got %lld", (long long)k);
    owned = ks_histogram(data, (int)k);
  } else if (!strncmp(pl, "graph_", 6)) {
    /* Keras's TensorBoard callback: the model's JSON config (summary_ops_v2.keras_model); trace_export: a serialized
     * RunMetadata (summary_ops_v2.run_metadata_graphs / run_metadata); all with plugin content version b"1" */
    if (data->dtype != DT_STRING || data->size != 1)
      op_fail(c, ERR_INVALID_ARGUMENT, "%s summary '%s': data must be a string scalar",
              pl[6] == 'k' ? "keras_model" : "run_metadata", str_cstr(tag));
    static uint8_t version[] = "1";
    pd.content.data = version;
    pd.content.len = 1;
  } else {
    if (data->dtype != DT_STRING)
      op_fail(c, ERR_INVALID_ARGUMENT, "tf.summary.text: data for '%s' must be a string tensor, got %s", str_cstr(tag),
              dtype_info[data->dtype].name);
    md.data_class = TENSORFLOW__DATA_CLASS__DATA_CLASS_TENSOR;
  }
  v.tensor = pb_tensor(&a, owned ? owned : data);
  Tensorflow__Summary__Value *vp = &v;
  Tensorflow__Summary s = TENSORFLOW__SUMMARY__INIT;
  s.n_value = 1;
  s.value = &vp;
  Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
  ev.what_case = TENSORFLOW__EVENT__WHAT_SUMMARY;
  ev.summary = &s;
  summary_emit(op_attr(c, 0), step, &ev);
  if (owned) tensor_release(owned);
  pa_free(&a);
}
