/* h5file.h — HDF5 files through Debian's libhdf5: groups, string and numeric attributes, numeric datasets, as h5py lays them out. */
#ifndef TFS_H5FILE_H
#define TFS_H5FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "tensor/tensor.h"

/* An open file (libhdf5's hid_t); paths inside it are absolute ("/model_weights/dense"). */
typedef long long H5File;

/* Open for reading (-1 when libhdf5 cannot; errno says why when the OS did). */
H5File h5_open(const char *path);
/* Create (truncate) path for writing; -1 on failure. */
H5File h5_create(const char *path);
/* The same in memory (libhdf5's core driver): a file image to embed in an archive, and one read back. */
H5File h5_create_mem(void);
H5File h5_open_mem(const void *data, size_t n);
/* The bytes of an in-memory file (malloc'd), or NULL. */
void *h5_image(H5File f, size_t *n);
/* 0, or -1 when the data could not be flushed. */
int h5_close(H5File f);

/* Each returns 0, or -1 with a short reason in err. A group is made with its missing parents. */
int h5_group(H5File f, const char *path, char *err, size_t errn);
/* Fixed-length byte strings, as h5py writes a Python bytes object (scalar) or a list of them (1-d); with
 * vlen, one variable-length UTF-8 string, as h5py writes a Python str. */
int h5_attr_strings(H5File f, const char *obj, const char *name, const char *const *v, int n, bool scalar, bool vlen,
                    char *err, size_t errn);
/* A numeric attribute or dataset from a contiguous tensor (float32/64, int32/64, uint8). */
int h5_attr_tensor(H5File f, const char *obj, const char *name, const Tensor *t, char *err, size_t errn);
int h5_dataset(H5File f, const char *path, const Tensor *t, char *err, size_t errn);

/* What h5_walk reports, objects in name order (h5py's order), each object's attributes after it. */
typedef struct {
  void (*group)(void *ctx, const char *path);
  /* strings: n of them (scalar: one, and `scalar` is set) */
  void (*attr_strings)(void *ctx, const char *obj, const char *name, char **v, int n, bool scalar);
  void (*attr_tensor)(void *ctx, const char *obj, const char *name, Tensor *t);   /* t borrowed */
  void (*dataset)(void *ctx, const char *path, Tensor *t);                          /* t borrowed */
} H5Visitor;

/* Visit every group, dataset and attribute; 0, or -1 with the reason in err (an unsupported type names its object). */
int h5_walk(H5File f, const H5Visitor *v, void *ctx, char *err, size_t errn);

#endif
