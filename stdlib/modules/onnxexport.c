/* onnxexport.c — tfsc --onnx: a program's tf.function or a SavedModel's signature, traced or loaded, written as an ONNX model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/onnx.h"
#include "function/tffunction.h"
#include "modules/onnxexport.h"
#include "modules/savedmodel.h"
#include "object/atomicfile.h"
#include "object/object.h"
#include "tensor/tensor.h"

/* ---- tfsc --onnx ------------------------------------------------------------------------------------------ */

static const char *ex_path, *ex_fn, *ex_out, *ex_io;
static StrBuf ex_json;        /* the recorded call, once recorded */
static bool ex_recorded;

static void ex_tensor_json(StrBuf *b, Tensor *t) {
  sb_printf(b, "{\"dtype\": \"%s\", \"shape\": [", dtype_info[t->dtype].name);
  for (int d = 0; d < t->rank; d++) sb_printf(b, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
  sb_puts(b, "], \"data\": [");
  for (tfs_i64 i = 0; i < t->size; i++) {
    if (i) sb_puts(b, ", ");
    if (t->dtype == DT_STRING) {
      sb_puts(b, "null");
    } else if (dtype_info[t->dtype].is_float) {
      double v = tensor_get_f(t, i);
      if (isnan(v)) sb_puts(b, "\"nan\"");
      else if (isinf(v)) sb_puts(b, v > 0 ? "\"inf\"" : "\"-inf\"");
      else sb_printf(b, "%.17g", v);
    } else {
      sb_printf(b, "%lld", (long long)tensor_get_i(t, i));
    }
  }
  sb_puts(b, "]}");
}

/* The result's tensor leaves in order (structures flattened as the graph's outputs are). */
static void ex_result_json(StrBuf *b, Val v, int *k) {
  if (val_is(v, &list_type) || val_is(v, &tuple_type)) {
    tfs_i64 n;
    const Val *it;
    seq_items(v, &n, &it);
    for (tfs_i64 i = 0; i < n; i++) ex_result_json(b, it[i], k);
    return;
  }
  if (val_is(v, &dict_type)) {   /* its values in the order the trace built it, as the graph's outputs are */
    Dict *d = (Dict *)v.u.o;
    for (tfs_i64 i = 0; i < d->used; i++)
      if (!val_is_undef(d->keys[i])) ex_result_json(b, d->vals[i], k);
    return;
  }
  Val comps = tffn_components(v);
  if (!val_is_undef(comps)) {   /* a composite (tf.RaggedTensor): its component tensors, as the graph's outputs are */
    int mark = rt_hold_val(comps);
    ex_result_json(b, comps, k);
    rt_unhold(mark);
    val_decref(comps);
    return;
  }
  Tensor *t = val_as_tensor(v);
  if (!t) return;
  sb_puts(b, (*k)++ ? ",\n  " : "\n  ");
  ex_tensor_json(b, t);
}

static void ex_call_hook(const char *name, int nin, Tensor **in, Val result) {
  if (ex_recorded || strcmp(name, ex_fn) != 0) return;
  ex_recorded = true;
  sb_puts(&ex_json, "{\"inputs\": [");
  for (int i = 0; i < nin; i++) {
    sb_puts(&ex_json, i ? ",\n  " : "\n  ");
    ex_tensor_json(&ex_json, in[i]);
  }
  sb_puts(&ex_json, "],\n\"outputs\": [");
  int k = 0;
  ex_result_json(&ex_json, result, &k);
  sb_puts(&ex_json, "]}\n");
}

void onnx_export_setup(const char *path, const char *function, const char *out, const char *io) {
  ex_path = path;
  ex_fn = function;
  ex_out = out;
  ex_io = io;
  sb_init(&ex_json);
  if (io) tffn_sig_call_hook = ex_call_hook;
}

/* Errors about the command line's choices name the program, as tfsc --to-code does. */
__attribute__((format(printf, 1, 2))) static bool ex_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rt_flush();
  fprintf(stderr, "%s: error: ", ex_path);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  sb_free(&ex_json);
  return false;
}

bool onnx_export_finish(void) {
  tffn_sig_call_hook = NULL;
  Val v = module_global(0, ex_fn);
  const char *name = NULL;
  if (val_is_undef(v)) return ex_error("the program defines no global '%s'", ex_fn);
  Graph *g = tffn_signature_graph(v, &name);
  if (!g) return ex_error("'%s' is not a tf.function with an input_signature", ex_fn);
  size_t n;
  unsigned char *bytes = onnx_model_pack(g, name, NULL, NULL, &n);
  int e = af_write(ex_out, bytes, n);
  free(bytes);
  if (e) return ex_error("cannot write '%s': %s", ex_out, strerror(e));
  if (ex_io) {
    if (!ex_recorded) sb_puts(&ex_json, "{\"inputs\": null, \"outputs\": null}\n");
    e = af_write(ex_io, ex_json.data, ex_json.len);
    if (e) return ex_error("cannot write '%s': %s", ex_io, strerror(e));
  }
  sb_free(&ex_json);
  return true;
}

/* ---- tfsc --onnx SAVED_DIR --signature NAME ------------------------------------------------------------ */

/* Errors about the directory or the signature name the directory, as the
 * program path is named above; the loader's own prefix is dropped. */
static int sx_error(const char *dir, const char *msg) {
  rt_flush();
  const char *pre = "tf.saved_model.load: ";
  if (!strncmp(msg, pre, strlen(pre))) msg += strlen(pre);
  fprintf(stderr, "%s: error: %s\n", dir, msg);
  return 1;
}

/* The signature's graph, its inputs and outputs named by the SignatureDef's keys. */
static int sx_export(SmModel *m, const char *dir, const char *sig, const char *out) {
  SmConc *c = smodel_signature(m, sig);
  if (!c) {
    StrBuf b;
    sb_init(&b);
    int mark = rt_hold_sb(&b);
    int ns = smodel_num_signatures(m);
    const char *last = "";   /* the names in sorted order, whatever order the file keeps them in */
    for (int i = 0; i < ns; i++) {
      const char *next = NULL;
      for (int k = 0; k < ns; k++) {
        const char *nk = smodel_signature_name(m, k);
        if (nk && strcmp(nk, last) > 0 && (!next || strcmp(nk, next) < 0)) next = nk;
      }
      if (!next) break;
      sb_printf(&b, "%s'%s'", i ? ", " : "", next);
      last = next;
    }
    if (!ns) sb_puts(&b, "none");
    rt_flush();
    fprintf(stderr, "%s: error: the SavedModel has no signature '%s' (its signatures: %s)\n", dir, sig, b.data ? b.data : "");
    rt_unhold(mark);
    sb_free(&b);
    return 1;
  }
  const Graph *g = smodel_conc_graph(c);
  const char **in = calloc((size_t)g->ninputs + 1, sizeof(char *));
  const char **outn = calloc((size_t)g->noutputs + 1, sizeof(char *));
  int mark = rt_hold_mem(in);
  rt_hold_mem(outn);
  if (!in || !outn) rt_throw(ERR_MEMORY, "out of memory");
  for (int i = 0; i < g->ninputs; i++) in[i] = smodel_conc_arg(c, i);
  for (int i = 0; i < g->noutputs; i++) outn[i] = smodel_signature_output(m, sig, i);
  size_t n;
  unsigned char *bytes = onnx_model_pack(g, sig, in, outn, &n);
  rt_unhold(mark);
  free(in);
  free(outn);
  int e = af_write(out, bytes, n);
  free(bytes);
  if (e) {
    fprintf(stderr, "tfsc: error: cannot write '%s': %s\n", out, strerror(e));
    return 1;
  }
  return 0;
}

int onnx_export_saved(const char *dir, const char *sig, const char *out) {
  char *argv[] = {(char *)dir, NULL};
  rt_start(1, argv);
  RtTry t;
  rt_try_push(&t);
  int rc;
  if (setjmp(t.jb) == 0) {
    SmModel *m = smodel_read(dir);
    int mark = rt_hold_val(val_obj(m));   /* released by an error's unwinding */
    rc = sx_export(m, dir, sig, out);
    rt_unhold(mark);
    val_decref(val_obj(m));
    rt_try_pop(&t);
  } else {
    rc = sx_error(dir, t.msg ? t.msg : "error");
    rt_try_clear(&t);
  }
  return rc;
}
