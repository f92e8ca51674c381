/* tensorbundle.h — TF's checkpoint files: PREFIX.index (a LevelDB-layout table of BundleEntryProtos) and PREFIX.data-00000-of-00001. */
#ifndef TFS_TENSORBUNDLE_H
#define TFS_TENSORBUNDLE_H

#include "checkpoint.pb-c.h"
#include "tensor/tensor.h"

/* ---- the table (LevelDB's SSTable layout with TF's options: no compression, 256 KiB blocks,
 * a restart point every 16 keys, an empty meta-index block, a 48-byte footer with the magic) ---- */

/* The table holding n (key, value) pairs, keys strictly increasing; malloc'd, *len bytes. */
unsigned char *tb_table_build(int n, const char *const *keys, const size_t *klens, const unsigned char *const *vals,
                              const size_t *vlens, size_t *len);

typedef struct TbKV { char *key; size_t klen; unsigned char *val; size_t vlen; } TbKV;
/* Every pair of the table file[0..n), every block's CRC checked; NULL with *err (static text) when damaged. */
TbKV *tb_table_read(const unsigned char *file, size_t n, int *count, const char **err);
void tb_kv_free(TbKV *kv, int count);

/* ---- bundles ---- */

/* Write PREFIX.data-00000-of-00001 then PREFIX.index (each through a temporary file renamed into place):
 * the tensors under their keys (unique, any order; stored in key order).  Errors name `what`. */
void tb_write(const char *what, const char *prefix, int n, const char *const *keys, Tensor *const *ts);

typedef struct TbReader {
  char *prefix;
  int n;                                  /* entries in key order, the header excluded */
  char **keys;
  Tensorflow__BundleEntryProto **entries;
  int nshards;                            /* data files PREFIX.data-SSSSS-of-NNNNN (TF writes several when a model's
                                             variables lie on several devices) */
  unsigned char **data;                   /* each data file, mapped on first use */
  tfs_i64 *ndata;
} TbReader;

/* Open a bundle: a missing PREFIX.index raises NotFoundError, a damaged one DataLossError; errors name `what`. */
TbReader *tb_open(const char *what, const char *prefix);
int tb_find(const TbReader *r, const char *key);         /* the entry's index, or -1 */
int tb_entry_dtype(const TbReader *r, int i);             /* entry i's tfs dtype, or -1 for one tfs lacks */
/* Entry i's tensor (owned); a size or checksum that does not match raises DataLossError with TF's text. */
Tensor *tb_tensor(TbReader *r, int i, const char *what);
void tb_close(void *r);

#endif
