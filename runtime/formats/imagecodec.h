/* imagecodec.h — PNG (8 or 16 bits) and JPEG to and from [height, width, channels] pixels (libpng, libjpeg-turbo), GIF (giflib) and BMP decoding, and the ops over them. */
#ifndef TFS_IMAGECODEC_H
#define TFS_IMAGECODEC_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/ops.h"

#define IMG_ERR_LEN 256

/* Decoders: malloc'd pixels, *h x *w x *c bytes (want 0: the file's channels, else 1, 3 or 4; PNG with sixteen:
 * uint16 samples in host order, for DecodePng's dtype uint16), or NULL with
 * TF's message in err (IMG_ERR_LEN bytes).  Corrupt input never crashes: the libraries' errors come back here. */
unsigned char *img_png_decode(const unsigned char *data, size_t n, int want, bool sixteen, int *h, int *w, int *c, char *err);
/* ratio 1, 2, 4 or 8 downscales while decoding; accurate: the integer ISLOW DCT (else IFAST, TF's default);
 * recover: a truncated file decodes with the missing part gray (else it fails, as TF's decoder does). */
unsigned char *img_jpeg_decode(const unsigned char *data, size_t n, int want, int ratio, bool fancy, bool accurate,
                               bool recover, int *h, int *w, int *c, char *err);
/* GIF (giflib): all frames (or the first), each [*h, *w, 3], composited over the one before as TF does. */
unsigned char *img_gif_decode(const unsigned char *data, size_t n, bool all_frames, int *frames, int *h, int *w, char *err);
/* BMP: uncompressed 8, 24 or 32 bits per pixel; want 0 (the file's channels), 3 or 4. */
unsigned char *img_bmp_decode(const unsigned char *data, size_t n, int want, int *h, int *w, int *c, char *err);
/* Encoders: malloc'd file bytes (*len), or NULL with the message in err.  c: 1 to 4 (PNG), 1 or 3 (JPEG);
 * PNG depth 8 (bytes) or 16 (uint16 samples in host order). */
unsigned char *img_png_encode(const unsigned char *px, int h, int w, int c, int depth, int level, size_t *len, char *err);
unsigned char *img_jpeg_encode(const unsigned char *px, int h, int w, int c, int quality, bool progressive,
                               bool optimize, bool chroma_down, int density_unit, int xd, int yd, size_t *len, char *err);

/* The ops (OP_UP rows of ops.def, bound by stdlib/modules/upops.c): DecodePng/DecodeJpeg/DecodeGif/DecodeBmp/DecodeImage, EncodePng, EncodeJpeg. */
void meta_decode_image(OpCall *c);
void k_decode_image(OpCall *c);
void meta_encode_image(OpCall *c);
void k_encode_image(OpCall *c);

#endif
