/* conv.h — the geometry of an NHWC convolution and its GEMM kernels (k_conv_gemm.c), shared with the ops in k_conv.c. */
#ifndef TFS_CONV_H
#define TFS_CONV_H

#include "kernels/ops.h"

/* Input [N,H,W,C], filters [KH,KW,C,O], output [N,OH,OW,O]; strides SH, SW; top/left padding PT, PL; dilations
 * DH, DW (tap ky reads input row oy*SH + ky*DH - PT). */
typedef struct {
  DType dt;   /* float32 or float64 */
  tfs_i64 N, H, W, C, KH, KW, O, SH, SW, PT, PL, OH, OW, DH, DW;
} ConvGeom;

/* A max pooling of the convolution's output [N,OH,OW,O] -> [N,OH,OW,O] (this struct's OH, OW), as MaxPool
 * computes it: window KH x KW, strides SH, SW, top/left padding PT, PL (padded cells never win). */
typedef struct {
  tfs_i64 KH, KW, SH, SW, PT, PL, OH, OW;
} ConvPool;

/* y = conv(x, f) [+ bias[O]] [relu] (the epilogue of matmul_2d, per block), then max pooled when pool is
 * given (y is then the pooled output; the convolution's rows live only in cache-sized scratch).  Each
 * returns false only when its scratch memory cannot be had (nothing written then). */
bool conv_forward(const ConvGeom *g, const void *x, const void *f, void *y, const void *bias, bool relu, const ConvPool *pool);
/* dst[i] += src[i] for n float32 (f32) or float64 elements (also k_conv3d.c's). */
void conv_add_into(bool f32, void *dst, const void *src, tfs_i64 n);
/* dx = d(sum(y * dy)) / dx. */
bool conv_backward_input(const ConvGeom *g, const void *f, const void *dy, void *dx);
/* df = d(sum(y * dy)) / df. */
bool conv_backward_filter(const ConvGeom *g, const void *x, const void *dy, void *df);

#endif
