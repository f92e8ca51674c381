/* gifcodec.c — GIF files (giflib) to 8-bit RGB frames, composited as TF's decoder composites them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>

#include "formats/imagecodec.h"

typedef struct GifSrc { const unsigned char *p; size_t left; } GifSrc;

static int gif_read(GifFileType *g, GifByteType *buf, int size) {
  GifSrc *s = g->UserData;
  size_t k = (size_t)size < s->left ? (size_t)size : s->left;
  memcpy(buf, s->p, k);
  s->p += k;
  s->left -= k;
  return (int)k;
}

static const char *gif_err(int code) {
  const char *m = GifErrorString(code);
  return m ? m : "Unknown error";
}

/* Frame k over the canvas: the canvas is the largest frame's size; each frame starts as a copy of the one
 * before (the first as black), then its own rectangle is painted, pixels of its transparent index left as
 * they were. Disposal methods are not applied (TF does not either). */
static bool gif_paint(GifFileType *g, int k, unsigned char *dst, const unsigned char *prev, int h, int w, char *err) {
  if (prev) memcpy(dst, prev, (size_t)h * (size_t)w * 3);
  SavedImage *im = &g->SavedImages[k];
  GifImageDesc *d = &im->ImageDesc;
  ColorMapObject *cm = d->ColorMap ? d->ColorMap : g->SColorMap;
  if (!cm) {
    snprintf(err, IMG_ERR_LEN, "missing color map for frame %d", k);
    return false;
  }
  GraphicsControlBlock gcb = {.TransparentColor = NO_TRANSPARENT_COLOR};
  DGifSavedExtensionToGCB(g, k, &gcb);
  int top = d->Top > 0 ? d->Top : 0, left = d->Left > 0 ? d->Left : 0;
  int bottom = d->Top + d->Height < h ? d->Top + d->Height : h, right = d->Left + d->Width < w ? d->Left + d->Width : w;
  for (int i = top; i < bottom; i++)
    for (int j = left; j < right; j++) {
      int idx = im->RasterBits[(size_t)(i - d->Top) * (size_t)d->Width + (size_t)(j - d->Left)];
      if (idx >= cm->ColorCount) {
        snprintf(err, IMG_ERR_LEN, "found color index %d outside of color map range %d", idx, cm->ColorCount);
        return false;
      }
      if (idx == gcb.TransparentColor) continue;
      unsigned char *p = dst + ((size_t)i * (size_t)w + (size_t)j) * 3;
      p[0] = cm->Colors[idx].Red, p[1] = cm->Colors[idx].Green, p[2] = cm->Colors[idx].Blue;
    }
  return true;
}

unsigned char *img_gif_decode(const unsigned char *data, size_t n, bool all_frames, int *frames, int *h, int *w, char *err) {
  GifSrc src = {data, n};
  int code = D_GIF_SUCCEEDED;
  unsigned char *px = NULL;
  GifFileType *g = DGifOpen(&src, gif_read, &code);
  if (!g) {
    snprintf(err, IMG_ERR_LEN, "failed to open gif file: %s", gif_err(code));
    return NULL;
  }
  if (DGifSlurp(g) != GIF_OK) {
    snprintf(err, IMG_ERR_LEN, "failed to slurp gif file: %s", gif_err(g->Error));
  } else if (g->ImageCount <= 0) {
    snprintf(err, IMG_ERR_LEN, "gif file does not contain any image");
  } else {
    int nf = all_frames ? g->ImageCount : 1, H = 0, W = 0;
    for (int k = 0; k < g->ImageCount; k++) {   /* as TF: the canvas is the largest frame, not the screen size */
      if (g->SavedImages[k].ImageDesc.Height > H) H = g->SavedImages[k].ImageDesc.Height;
      if (g->SavedImages[k].ImageDesc.Width > W) W = g->SavedImages[k].ImageDesc.Width;
    }
    size_t frame = (size_t)H * (size_t)W * 3;
    if ((uint64_t)frame * (uint64_t)nf >= ((uint64_t)1 << 31)) {
      snprintf(err, IMG_ERR_LEN, "image too large");
    } else if (!(px = calloc(frame * (size_t)nf + 1, 1))) {
      snprintf(err, IMG_ERR_LEN, "out of memory");
    } else {
      for (int k = 0; k < nf; k++)
        if (!gif_paint(g, k, px + frame * (size_t)k, k ? px + frame * (size_t)(k - 1) : NULL, H, W, err)) {
          free(px);
          px = NULL;
          break;
        }
      *frames = nf, *h = H, *w = W;
    }
  }
  DGifCloseFile(g, &code);
  return px;
}
