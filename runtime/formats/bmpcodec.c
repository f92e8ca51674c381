/* bmpcodec.c — uncompressed BMP files (8, 24 or 32 bits per pixel) to 8-bit pixels, with the checks of TF's decoder. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/imagecodec.h"

static int32_t le32(const unsigned char *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* TF reads the pixel data's offset (bytes 10-13), width, height (negative: rows top-down) and bits per pixel
 * from the headers and nothing else (no compression, no palette: 8-bit values are gray levels). */
unsigned char *img_bmp_decode(const unsigned char *data, size_t n, int want, int *h, int *w, int *c, char *err) {
  if (n < 32) {
    snprintf(err, IMG_ERR_LEN, "Incomplete bmp content, requires at least 32 bytes to find the header size, width, height, and bpp, got %zu bytes", n);
    return NULL;
  }
  int32_t offset = le32(data + 10), width = le32(data + 18), height = le32(data + 22);
  int bpp = (int16_t)(data[28] | data[29] << 8), have = bpp / 8;
  if (have != 1 && have != 3 && have != 4) {
    snprintf(err, IMG_ERR_LEN, "Number of channels inherent in the image must be 1, 3 or 4, was %d", have);
    return NULL;
  }
  if (width <= 0) {
    snprintf(err, IMG_ERR_LEN, "Width must be positive");
    return NULL;
  }
  if (height == 0) {
    snprintf(err, IMG_ERR_LEN, "Height must be nonzero");
    return NULL;
  }
  if (offset < 0) {
    snprintf(err, IMG_ERR_LEN, "header size must be nonnegative");
    return NULL;
  }
  int64_t rows = height < 0 ? -(int64_t)height : height;
  if ((int64_t)width * rows >= INT32_MAX / 8) {
    snprintf(err, IMG_ERR_LEN, "Total possible pixel bytes must be less than 2^30");
    return NULL;
  }
  int64_t row_size = ((int64_t)have * width + 3) / 4 * 4;   /* rows are padded to 4 bytes */
  int64_t diff = (int64_t)n - offset - row_size * rows;
  if (diff != 0) {
    snprintf(err, IMG_ERR_LEN, "Input size should match (header_size + row_size * abs_height) but they differ by %lld",
             (long long)diff);
    return NULL;
  }
  int out = want ? want : have;
  unsigned char *px = malloc((size_t)(width * rows * out) + 1);
  if (!px) {
    snprintf(err, IMG_ERR_LEN, "out of memory");
    return NULL;
  }
  for (int64_t i = 0; i < rows; i++) {
    const unsigned char *row = data + offset + (height < 0 ? i : rows - 1 - i) * row_size;
    for (int64_t j = 0; j < width; j++) {
      const unsigned char *s = row + j * have;
      unsigned char *d = px + (i * width + j) * out;
      if (have == 1) {
        d[0] = s[0];
        if (out >= 3) d[1] = d[2] = s[0];
      } else {   /* BGR(A) -> RGB(A) */
        d[0] = s[2], d[1] = s[1], d[2] = s[0];
      }
      if (out == 4) d[3] = have == 4 ? s[3] : 255;
    }
  }
  *h = (int)rows, *w = width, *c = out;
  return px;
}
