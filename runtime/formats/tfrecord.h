/* tfrecord.h — TFRecord framing (length, masked CRC-32C of the length, data, masked CRC-32C of the data), as event files use. */
#ifndef TFS_TFRECORD_H
#define TFS_TFRECORD_H

#include <stddef.h>
#include <stdint.h>

#include "object/value.h"

uint32_t tfr_crc32c(const void *data, size_t n);
uint32_t tfr_crc32c_extend(uint32_t crc, const void *data, size_t n);   /* the CRC of (earlier bytes + data) */
uint32_t tfr_crc32c_table(uint32_t crc, const void *data, size_t n);    /* the same without SSE 4.2 (tests compare them) */
uint32_t tfr_mask(uint32_t crc);                 /* TF's rotate-and-add mask of a stored CRC */
/* Append one framed record holding data[0..n) to b. */
void tfr_frame(StrBuf *b, const void *data, size_t n);
/* The record framed at p[*at..len): false at the end; else *rec and *n are its data and *at moves past it.
 * A damaged or cut record raises DataLossError with TF's text and the offset of the bad part. */
bool tfr_next(const unsigned char *p, tfs_i64 len, tfs_i64 *at, const unsigned char **rec, tfs_i64 *n);

#endif
