/* snappyblk.h — TF's SNAPPY record files: a stream of blocks, each a 4-byte big-endian length and one raw snappy block (tsl/lib/io/snappy). */
#ifndef TFS_SNAPPYBLK_H
#define TFS_SNAPPYBLK_H

#include <stddef.h>

#include "object/value.h"

/* Append the framed TFRecords recs[0..n) (tfr_frame's output) compressed as TF's RecordWriter with
 * compression "SNAPPY" writes them: its 256 KiB input buffer gets each record's header, data and footer in
 * turn, is compressed as one block when the next part does not fit, and a part larger than the buffer is a
 * block of its own; so the blocks are TF's. */
void snb_compress_records(StrBuf *out, const char *recs, size_t n);
/* The bytes the block stream data[0..n) holds, malloc'd with a NUL after *len; a cut or damaged block
 * raises DataLossError with TF's SnappyInputBuffer words, naming `what`. */
char *snb_decompress(const char *data, size_t n, const char *what, size_t *len);

#endif
