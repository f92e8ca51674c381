/* conv_onednn.c — oneDNN's convolutions (forward, backward data, backward weights; NHWC float32) timed against tfs's own kernels on the Keras MNIST CNN's and the depthwise bench's shapes, at one thread count, with the bits of every result. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

#include "kernels/conv.h"
#include "kernels/ops.h"
#include "object/object.h"

/* Usage: conv_onednn THREADS [REPS]
 * Prints "time <case> <impl> <ms>" (best of REPS interleaved rounds) and "bits <case> <impl> <hash> <max |diff| vs tfs>".
 * impl: tfs (the runtime's kernels, tp_set_threads(THREADS)); dnnl_nhwc (oneDNN on the plain NHWC / HWIO
 * buffers tfs holds: no conversions); dnnl_wany (NHWC activations, the filter in oneDNN's own layout);
 * dnnl_any (oneDNN's own layouts for everything).  Every conversion (reorder) is inside the timing. */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CK(call)                                                                  \
  do {                                                                            \
    dnnl_status_t st_ = (call);                                                   \
    if (st_ != dnnl_success) {                                                    \
      fprintf(stderr, "conv_onednn: %s failed (%d) at line %d\n", #call, (int)st_, __LINE__); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

enum { FWD, BWD_DATA, BWD_WEIGHTS };
#define NIMPL 4   /* tfs, then oneDNN with md_plain's modes 0, 1, 2 */
static const char *dir_name[] = {"fwd", "bwd_data", "bwd_weights"};

typedef struct {
  const char *name;
  int dir;
  bool depthwise, bias_relu;   /* depthwise: groups = C, multiplier 1; bias_relu: the CNN's fused epilogue */
  ConvGeom g;
} Case;

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static float *rnd(size_t n, unsigned seed) {
  float *p = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  return p;
}

static uint64_t fnv(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* The three tensors of a case, in tfs's layouts: x [N,H,W,C], f [KH,KW,C,O] (depthwise [KH,KW,C,1]), y [N,OH,OW,O]. */
typedef struct {
  size_t nx, nf, ny;
  float *x, *f, *y, *bias;   /* inputs, and dy for the backward cases */
  float *out;                /* the result of the impl being run */
} Bufs;

/* ---- tfs ---------------------------------------------------------------------------------------------- */

void rt_layers_init(void);

static Val dims_list(int n, const tfs_i64 *d) {
  Val l = list_new(n);
  for (int i = 0; i < n; i++) list_append(l, val_int(d[i]));
  return l;
}

static Tensor *wrap(const float *p, int rank, const tfs_i64 *shape) {
  Tensor *t = tensor_new(DT_FLOAT32, rank, shape);
  memcpy(tensor_data(t), p, (size_t)t->size * sizeof(float));
  return t;
}

/* Depthwise through the op table (its kernels are static to k_depthwise.c): tensors made once. */
typedef struct {
  Tensor *in[3];
  OpAttrs attrs;
} DwTfs;

static void dw_tfs_init(DwTfs *d, const Case *cs, const Bufs *b) {
  const ConvGeom *g = &cs->g;
  tfs_i64 xs[4] = {g->N, g->H, g->W, g->C}, fs[4] = {g->KH, g->KW, g->C, 1}, ys[4] = {g->N, g->OH, g->OW, g->O};
  tfs_i64 strides[4] = {1, g->SH, g->SW, 1};
  d->in[0] = wrap(b->x, 4, xs), d->in[1] = wrap(b->f, 4, fs), d->in[2] = wrap(b->y, 4, ys);
  d->attrs.n = 5;
  d->attrs.v[0] = dims_list(4, strides);
  d->attrs.v[1] = str_from_cstr(g->PT || g->PL ? "SAME" : "VALID");
  d->attrs.v[2] = val_none();
  d->attrs.v[3] = str_from_cstr("NHWC");
  d->attrs.v[4] = val_none();
}

static void run_tfs(const Case *cs, Bufs *b, DwTfs *dw) {
  const ConvGeom *g = &cs->g;
  if (cs->depthwise) {
    static const OpId ids[] = {OP_DEPTHWISE, OP_DEPTHWISE_BP_INPUT, OP_DEPTHWISE_BP_FILTER};
    Tensor **res;
    int nin = cs->dir == FWD ? 2 : 3;
    Val raw[3] = {val_obj(dw->in[0]), val_obj(dw->in[1]), val_obj(dw->in[2])};
    int nres = op_run(&op_defs[ids[cs->dir]], nin, dw->in, raw, &dw->attrs, &res);
    size_t n = cs->dir == FWD ? b->ny : cs->dir == BWD_DATA ? b->nx : b->nf;
    memcpy(b->out, tensor_data(res[0]), n * sizeof(float));   /* the copy is tiny next to the op */
    for (int i = 0; i < nres; i++) tensor_release(res[i]);
    free(res);
    return;
  }
  bool ok = cs->dir == FWD        ? conv_forward(g, b->x, b->f, b->out, cs->bias_relu ? b->bias : NULL, cs->bias_relu, NULL)
            : cs->dir == BWD_DATA ? conv_backward_input(g, b->f, b->y, b->out)
                                  : conv_backward_filter(g, b->x, b->y, b->out);
  if (!ok) exit(1);
}

/* ---- oneDNN ------------------------------------------------------------------------------------------- */

typedef struct {
  dnnl_primitive_t prim;
  int nargs;
  dnnl_exec_arg_t args[5];
  /* per arg: a reorder from (input) or to (output) the user's plain buffer, run inside the timing */
  dnnl_primitive_t pre[5], post[5];
  dnnl_memory_t user[5], inner[5];
  const char *impl;
} Dnnl;

static void md_plain(dnnl_memory_desc_t *md, int kind, const Case *cs, int mode) {
  bool any = mode == 2 || (mode == 1 && kind == 'f');
  const ConvGeom *g = &cs->g;
  if (kind == 'x') {
    dnnl_dims_t d = {g->N, g->C, g->H, g->W};
    CK(dnnl_memory_desc_init_by_tag(md, 4, d, dnnl_f32, any ? dnnl_format_tag_any : dnnl_nhwc));
  } else if (kind == 'y') {
    dnnl_dims_t d = {g->N, g->O, g->OH, g->OW};
    CK(dnnl_memory_desc_init_by_tag(md, 4, d, dnnl_f32, any ? dnnl_format_tag_any : dnnl_nhwc));
  } else if (kind == 'b') {
    dnnl_dims_t d = {g->O};
    CK(dnnl_memory_desc_init_by_tag(md, 1, d, dnnl_f32, dnnl_a));
  } else if (cs->depthwise) {   /* [KH,KW,C,1] = hwigo with groups C, o = i = 1 */
    dnnl_dims_t d = {g->C, 1, 1, g->KH, g->KW};
    CK(dnnl_memory_desc_init_by_tag(md, 5, d, dnnl_f32, any ? dnnl_format_tag_any : dnnl_hwigo));
  } else {
    dnnl_dims_t d = {g->O, g->C, g->KH, g->KW};
    CK(dnnl_memory_desc_init_by_tag(md, 4, d, dnnl_f32, any ? dnnl_format_tag_any : dnnl_hwio));
  }
}

/* One argument: the user's buffer in its plain layout, and (when the primitive wants another) the
 * primitive's own buffer with its reorder (constant: run once, here, not timed). */
static void add_arg(Dnnl *d, dnnl_primitive_desc_t pd, dnnl_query_t q, int qi, int argid, int kind, const Case *cs, void *ptr,
                    bool input, bool constant) {
  int i = d->nargs++;
  dnnl_memory_desc_t plain;
  md_plain(&plain, kind, cs, 0);
  const dnnl_memory_desc_t *want = dnnl_primitive_desc_query_md(pd, q, qi);
  CK(dnnl_memory_create(&d->user[i], &plain, eng, ptr));
  d->args[i].arg = argid;
  d->pre[i] = d->post[i] = NULL;
  if (dnnl_memory_desc_equal(&plain, want)) {
    d->inner[i] = NULL;
    d->args[i].memory = d->user[i];
    return;
  }
  CK(dnnl_memory_create(&d->inner[i], want, eng, DNNL_MEMORY_ALLOCATE));
  d->args[i].memory = d->inner[i];
  dnnl_primitive_desc_t rpd;
  dnnl_primitive_t r;
  if (input) CK(dnnl_reorder_primitive_desc_create(&rpd, &plain, eng, want, eng, NULL));
  else CK(dnnl_reorder_primitive_desc_create(&rpd, want, eng, &plain, eng, NULL));
  CK(dnnl_primitive_create(&r, rpd));
  dnnl_primitive_desc_destroy(rpd);
  dnnl_exec_arg_t ra[2] = {{DNNL_ARG_FROM, input ? d->user[i] : d->inner[i]}, {DNNL_ARG_TO, input ? d->inner[i] : d->user[i]}};
  if (constant) {
    CK(dnnl_primitive_execute(r, strm, 2, ra));
    CK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(r);
  } else if (input) d->pre[i] = r;
  else d->post[i] = r;
}

static void dnnl_setup(Dnnl *d, const Case *cs, Bufs *b, int mode) {
  const ConvGeom *g = &cs->g;
  memset(d, 0, sizeof *d);
  dnnl_memory_desc_t xmd, fmd, ymd, bmd;
  md_plain(&xmd, 'x', cs, mode), md_plain(&fmd, 'f', cs, mode), md_plain(&ymd, 'y', cs, mode), md_plain(&bmd, 'b', cs, 0);
  dnnl_dims_t strides = {g->SH, g->SW}, dil = {g->DH - 1, g->DW - 1}, pl = {g->PT, g->PL};
  /* bottom/right padding: whatever makes the output size come out */
  dnnl_dims_t pr = {(g->OH - 1) * g->SH + (g->KH - 1) * g->DH + 1 - g->H - g->PT, (g->OW - 1) * g->SW + (g->KW - 1) * g->DW + 1 - g->W - g->PL};
  bool withb = cs->dir == FWD && cs->bias_relu;
  dnnl_convolution_desc_t fd, cd;
  CK(dnnl_dilated_convolution_forward_desc_init(&fd, cs->dir == FWD ? dnnl_forward_inference : dnnl_forward_training,
                                                dnnl_convolution_direct, &xmd, &fmd, withb ? &bmd : NULL, &ymd, strides, dil, pl, pr));
  dnnl_primitive_attr_t attr = NULL;
  if (withb) {
    dnnl_post_ops_t po;
    CK(dnnl_post_ops_create(&po));
    CK(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
    CK(dnnl_primitive_attr_create(&attr));
    CK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_post_ops_destroy(po);
  }
  dnnl_primitive_desc_t fpd, pd;
  CK(dnnl_primitive_desc_create(&fpd, &fd, attr, eng, NULL));
  if (cs->dir == FWD) {
    pd = fpd;
  } else {
    if (cs->dir == BWD_DATA)
      CK(dnnl_dilated_convolution_backward_data_desc_init(&cd, dnnl_convolution_direct, &xmd, &fmd, &ymd, strides, dil, pl, pr));
    else
      CK(dnnl_dilated_convolution_backward_weights_desc_init(&cd, dnnl_convolution_direct, &xmd, &fmd, NULL, &ymd, strides, dil, pl, pr));
    CK(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, fpd));
  }
  const char *impl;
  CK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
  d->impl = strdup(impl);
  if (cs->dir == FWD) {
    add_arg(d, pd, dnnl_query_src_md, 0, DNNL_ARG_SRC, 'x', cs, b->x, true, false);
    add_arg(d, pd, dnnl_query_weights_md, 0, DNNL_ARG_WEIGHTS, 'f', cs, b->f, true, false);
    if (withb) add_arg(d, pd, dnnl_query_weights_md, 1, DNNL_ARG_BIAS, 'b', cs, b->bias, true, true);
    add_arg(d, pd, dnnl_query_dst_md, 0, DNNL_ARG_DST, 'y', cs, b->out, false, false);
  } else if (cs->dir == BWD_DATA) {
    add_arg(d, pd, dnnl_query_diff_dst_md, 0, DNNL_ARG_DIFF_DST, 'y', cs, b->y, true, false);
    add_arg(d, pd, dnnl_query_weights_md, 0, DNNL_ARG_WEIGHTS, 'f', cs, b->f, true, false);
    add_arg(d, pd, dnnl_query_diff_src_md, 0, DNNL_ARG_DIFF_SRC, 'x', cs, b->out, false, false);
  } else {
    add_arg(d, pd, dnnl_query_src_md, 0, DNNL_ARG_SRC, 'x', cs, b->x, true, false);
    add_arg(d, pd, dnnl_query_diff_dst_md, 0, DNNL_ARG_DIFF_DST, 'y', cs, b->y, true, false);
    add_arg(d, pd, dnnl_query_diff_weights_md, 0, DNNL_ARG_DIFF_WEIGHTS, 'f', cs, b->out, false, false);
  }
  CK(dnnl_primitive_create(&d->prim, pd));
  if (pd != fpd) dnnl_primitive_desc_destroy(pd);
  dnnl_primitive_desc_destroy(fpd);
  if (attr) dnnl_primitive_attr_destroy(attr);
}

static void run_dnnl(Dnnl *d) {
  for (int i = 0; i < d->nargs; i++)
    if (d->pre[i]) {
      dnnl_exec_arg_t ra[2] = {{DNNL_ARG_FROM, d->user[i]}, {DNNL_ARG_TO, d->inner[i]}};
      CK(dnnl_primitive_execute(d->pre[i], strm, 2, ra));
    }
  CK(dnnl_primitive_execute(d->prim, strm, d->nargs, d->args));
  for (int i = 0; i < d->nargs; i++)
    if (d->post[i]) {
      dnnl_exec_arg_t ra[2] = {{DNNL_ARG_FROM, d->inner[i]}, {DNNL_ARG_TO, d->user[i]}};
      CK(dnnl_primitive_execute(d->post[i], strm, 2, ra));
    }
  CK(dnnl_stream_wait(strm));
}

static void dnnl_free(Dnnl *d) {
  dnnl_primitive_destroy(d->prim);
  for (int i = 0; i < d->nargs; i++) {
    if (d->pre[i]) dnnl_primitive_destroy(d->pre[i]);
    if (d->post[i]) dnnl_primitive_destroy(d->post[i]);
    if (d->inner[i]) dnnl_memory_destroy(d->inner[i]);
    dnnl_memory_destroy(d->user[i]);
  }
  free((void *)d->impl);
}

/* ---- the cases ---------------------------------------------------------------------------------------- */

/* VALID 3x3 stride 1 (the CNN) or SAME (the depthwise layer) */
static ConvGeom geom(tfs_i64 N, tfs_i64 H, tfs_i64 C, tfs_i64 O, bool same) {
  ConvGeom g = {DT_FLOAT32, N, H, H, C, 3, 3, O, 1, 1, same, same, same ? H : H - 2, same ? H : H - 2, 1, 1};
  return g;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1, reps = argc > 2 ? atoi(argv[2]) : 5;
  rt_layers_init();
  tp_set_threads(threads);
  omp_set_num_threads(threads);
  CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
  CK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
  Case cases[] = {
    {"cnn_infer256_conv1", FWD, false, true, geom(256, 28, 1, 32, false)},
    {"cnn_infer256_conv2", FWD, false, true, geom(256, 13, 32, 64, false)},
    {"cnn_train64_conv1", FWD, false, true, geom(64, 28, 1, 32, false)},
    {"cnn_train64_conv1", BWD_WEIGHTS, false, false, geom(64, 28, 1, 32, false)},
    {"cnn_train64_conv2", FWD, false, true, geom(64, 13, 32, 64, false)},
    {"cnn_train64_conv2", BWD_DATA, false, false, geom(64, 13, 32, 64, false)},
    {"cnn_train64_conv2", BWD_WEIGHTS, false, false, geom(64, 13, 32, 64, false)},
    {"dw16x56x56x64", FWD, true, false, geom(16, 56, 64, 64, true)},
    {"dw16x56x56x64", BWD_DATA, true, false, geom(16, 56, 64, 64, true)},
    {"dw16x56x56x64", BWD_WEIGHTS, true, false, geom(16, 56, 64, 64, true)},
  };
  printf("threads %d omp_max_threads %d dnnl_max_cpu_isa %d\n", threads, omp_get_max_threads(), (int)dnnl_get_effective_cpu_isa());
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    Case *cs = &cases[k];
    const ConvGeom *g = &cs->g;
    Bufs b;
    b.nx = (size_t)(g->N * g->H * g->W * g->C), b.ny = (size_t)(g->N * g->OH * g->OW * g->O);
    b.nf = (size_t)(g->KH * g->KW * g->C * (cs->depthwise ? 1 : g->O));
    b.x = rnd(b.nx, 1 + (unsigned)k), b.f = rnd(b.nf, 100 + (unsigned)k), b.y = rnd(b.ny, 200 + (unsigned)k), b.bias = rnd((size_t)g->O, 300);
    size_t nout = cs->dir == FWD ? b.ny : cs->dir == BWD_DATA ? b.nx : b.nf;
    float *res[NIMPL];
    for (int i = 0; i < NIMPL; i++) res[i] = calloc(nout, sizeof(float));
    DwTfs dw;
    if (cs->depthwise) dw_tfs_init(&dw, cs, &b);
    Dnnl dn[NIMPL - 1];
    for (int m = 0; m < NIMPL - 1; m++) b.out = res[m + 1], dnnl_setup(&dn[m], cs, &b, m);
    /* about 30 ms of work per timed round, whatever the shape */
    double macs = (double)g->N * g->OH * g->OW * g->KH * g->KW * (cs->depthwise ? g->C : g->C * g->O);
    int iters = (int)(3e8 / (macs + 1)) + 1;
    double best[NIMPL] = {1e30, 1e30, 1e30, 1e30};
    for (int r = -1; r < reps; r++)   /* round -1 warms up (JIT, page faults) */
      for (int impl = 0; impl < NIMPL; impl++) {
        b.out = res[impl];
        double t0 = now();
        for (int it = 0; it < iters; it++) impl == 0 ? run_tfs(cs, &b, &dw) : run_dnnl(&dn[impl - 1]);
        double ms = (now() - t0) * 1e3 / iters;
        if (r >= 0 && ms < best[impl]) best[impl] = ms;
      }
    static const char *names[NIMPL] = {"tfs", "dnnl_nhwc", "dnnl_wany", "dnnl_any"};
    for (int impl = 0; impl < NIMPL; impl++) {
      double md = 0;
      for (size_t i = 0; i < nout; i++) md = fmax(md, fabs((double)res[impl][i] - res[0][i]));
      printf("time %s_%s %s %.3f\n", cs->name, dir_name[cs->dir], names[impl], best[impl]);
      printf("bits %s_%s %s %016llx %.3g %s\n", cs->name, dir_name[cs->dir], names[impl],
             (unsigned long long)fnv(res[impl], nout * sizeof(float)), md, impl ? dn[impl - 1].impl : cs->depthwise ? "direct" : "im2col+gemm");
    }
    for (int m = 0; m < NIMPL - 1; m++) dnnl_free(&dn[m]);
    if (cs->depthwise)
      for (int i = 0; i < 3; i++) tensor_release(dw.in[i]);
    for (int i = 0; i < NIMPL; i++) free(res[i]);
    free(b.x), free(b.f), free(b.y), free(b.bias);
    fflush(stdout);
  }
  return 0;
}
