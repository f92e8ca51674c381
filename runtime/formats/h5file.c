/* h5file.c — HDF5 files through libhdf5: what Keras's .h5 and .weights.h5 files hold (groups, attributes, datasets). */
#include "formats/h5file.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libhdf5 prints its error stack by default; tfs reports its own located errors instead. */
static void h5_quiet(void) {
  static bool done;
  if (!done) H5Eset_auto2(H5E_DEFAULT, NULL, NULL), done = true;
}

H5File h5_open(const char *path) {
  h5_quiet();
  return (H5File)H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
}

H5File h5_create(const char *path) {
  h5_quiet();
  return (H5File)H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
}

H5File h5_create_mem(void) {
  h5_quiet();
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, 1 << 16, 0);   /* grow by 64 KiB, never written to disk */
  hid_t f = H5Fcreate("tfs-memory.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  return (H5File)f;
}

H5File h5_open_mem(const void *data, size_t n) {
  h5_quiet();
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, 1 << 16, 0);
  H5Pset_file_image(fapl, (void *)data, n);   /* copied: the caller keeps its buffer */
  hid_t f = H5Fopen("tfs-memory.h5", H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  return (H5File)f;
}

void *h5_image(H5File f, size_t *n) {
  if (H5Fflush((hid_t)f, H5F_SCOPE_GLOBAL) < 0) return NULL;
  ssize_t size = H5Fget_file_image((hid_t)f, NULL, 0);
  if (size <= 0) return NULL;
  void *buf = malloc((size_t)size);
  if (H5Fget_file_image((hid_t)f, buf, (size_t)size) != size) {
    free(buf);
    return NULL;
  }
  *n = (size_t)size;
  return buf;
}

int h5_close(H5File f) { return H5Fclose((hid_t)f) < 0 ? -1 : 0; }

static int fail(char *err, size_t errn, const char *what, const char *name) {
  snprintf(err, errn, "cannot %s '%s'", what, name);
  return -1;
}

/* Link-creation properties that make missing parent groups, as h5py's create_dataset("a/b") does. */
static hid_t parents_lcpl(void) {
  hid_t p = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(p, 1);
  return p;
}

int h5_group(H5File f, const char *path, char *err, size_t errn) {
  if (!strcmp(path, "/")) return 0;
  hid_t g = H5Lexists((hid_t)f, path, H5P_DEFAULT) > 0 ? H5Gopen2((hid_t)f, path, H5P_DEFAULT) : -1;
  if (g < 0) {
    hid_t lcpl = parents_lcpl();
    g = H5Gcreate2((hid_t)f, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
  }
  if (g < 0) return fail(err, errn, "create the group", path);
  H5Gclose(g);
  return 0;
}

/* The file and memory types of a dtype (little-endian in the file, as numpy writes on x86). */
static bool h5_types(DType dt, hid_t *file, hid_t *mem) {
  switch (dt) {
  case DT_FLOAT32: *file = H5T_IEEE_F32LE, *mem = H5T_NATIVE_FLOAT; return true;
  case DT_FLOAT64: *file = H5T_IEEE_F64LE, *mem = H5T_NATIVE_DOUBLE; return true;
  case DT_INT32: *file = H5T_STD_I32LE, *mem = H5T_NATIVE_INT32; return true;
  case DT_INT64: *file = H5T_STD_I64LE, *mem = H5T_NATIVE_INT64; return true;
  case DT_UINT8: *file = H5T_STD_U8LE, *mem = H5T_NATIVE_UINT8; return true;
  default: return false;
  }
}

static hid_t space_of(int rank, const tfs_i64 *dims) {
  if (rank == 0) return H5Screate(H5S_SCALAR);
  hsize_t d[TFS_MAX_RANK];
  for (int i = 0; i < rank; i++) d[i] = (hsize_t)dims[i];
  return H5Screate_simple(rank, d, NULL);
}

int h5_attr_strings(H5File f, const char *obj, const char *name, const char *const *v, int n, bool scalar, bool vlen,
                    char *err, size_t errn) {
  size_t width = 1;
  for (int i = 0; i < n; i++)
    if (strlen(v[i]) > width) width = strlen(v[i]);
  hid_t o = H5Oopen((hid_t)f, obj, H5P_DEFAULT);
  if (o < 0) return fail(err, errn, "open", obj);
  hid_t type, space;
  char *buf = calloc((size_t)(n ? n : 1), width);
  if (n == 0) {
    /* an empty list: h5py stores numpy's empty float64 array */
    hsize_t zero = 0;
    type = H5Tcopy(H5T_IEEE_F64LE), space = H5Screate_simple(1, &zero, NULL);
  } else if (vlen) {
    type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    space = H5Screate(H5S_SCALAR);
  } else {
    type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, width);
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    hsize_t dn = (hsize_t)n;
    space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dn, NULL);
    for (int i = 0; i < n; i++) memcpy(buf + (size_t)i * width, v[i], strlen(v[i]));
  }
  hid_t a = H5Acreate2(o, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const void *src = vlen && n ? (const void *)v : buf;
  int rc = a >= 0 && H5Awrite(a, type, src) >= 0 ? 0 : fail(err, errn, "write the attribute", name);
  if (a >= 0) H5Aclose(a);
  free(buf);
  H5Sclose(space), H5Tclose(type), H5Oclose(o);
  return rc;
}

int h5_attr_tensor(H5File f, const char *obj, const char *name, const Tensor *t, char *err, size_t errn) {
  hid_t ft, mt;
  if (!h5_types(t->dtype, &ft, &mt)) return fail(err, errn, "store this dtype in the attribute", name);
  hid_t o = H5Oopen((hid_t)f, obj, H5P_DEFAULT);
  if (o < 0) return fail(err, errn, "open", obj);
  hid_t space = space_of(t->rank, t->shape);
  hid_t a = H5Acreate2(o, name, ft, space, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a >= 0 && H5Awrite(a, mt, tensor_data(t)) >= 0 ? 0 : fail(err, errn, "write the attribute", name);
  if (a >= 0) H5Aclose(a);
  H5Sclose(space), H5Oclose(o);
  return rc;
}

int h5_dataset(H5File f, const char *path, const Tensor *t, char *err, size_t errn) {
  hid_t ft, mt;
  if (!h5_types(t->dtype, &ft, &mt)) return fail(err, errn, "store this dtype in the dataset", path);
  hid_t space = space_of(t->rank, t->shape), lcpl = parents_lcpl();
  hid_t d = H5Dcreate2((hid_t)f, path, ft, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  int rc = d >= 0 && H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor_data(t)) >= 0 ? 0
                                                                                          : fail(err, errn, "write the dataset", path);
  if (d >= 0) H5Dclose(d);
  H5Pclose(lcpl), H5Sclose(space);
  return rc;
}

/* ---- reading ------------------------------------------------------------------------------- */

typedef struct {
  const H5Visitor *v;
  void *ctx;
  const char *obj;   /* the object whose attributes are being read */
  char *err;
  size_t errn;
} Walk;

/* The dtype of a numeric HDF5 type, or -1. */
static int dtype_of(hid_t type) {
  H5T_class_t c = H5Tget_class(type);
  size_t sz = H5Tget_size(type);
  if (c == H5T_FLOAT) return sz == 4 ? DT_FLOAT32 : sz == 8 ? DT_FLOAT64 : -1;
  if (c == H5T_INTEGER) {
    bool sign = H5Tget_sign(type) == H5T_SGN_2;
    if (sz == 1 && !sign) return DT_UINT8;
    return sz == 4 && sign ? DT_INT32 : sz == 8 && sign ? DT_INT64 : -1;
  }
  return -1;
}

/* A new tensor shaped like space, or NULL when the rank is too large. */
/* A tensor for a dataset or attribute of `stored` bytes in the file.  A damaged header can claim any
 * extent: more than 64 MiB that is also more than 64 times what the file stores for it is refused
 * (NULL, reported by the caller) before anything is allocated. */
static Tensor *tensor_for(int dt, hid_t space, hsize_t stored) {
  int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0 || rank > TFS_MAX_RANK) return NULL;
  hsize_t d[TFS_MAX_RANK];
  tfs_i64 dims[TFS_MAX_RANK];
  H5Sget_simple_extent_dims(space, d, NULL);
  double bytes = (double)dtype_info[dt].size;
  for (int i = 0; i < rank; i++) {
    dims[i] = (tfs_i64)d[i];
    bytes *= (double)d[i];
  }
  if (bytes > (double)(64 << 20) && bytes > 64.0 * (double)stored) return NULL;
  return tensor_new((DType)dt, rank, dims);
}

/* The strings of a string attribute (fixed-length as h5py writes bytes, or variable-length as it writes str). */
static int read_strings(hid_t a, hid_t type, hid_t space, Walk *w, const char *name) {
  hssize_t n = H5Sget_simple_extent_npoints(space);
  bool scalar = H5Sget_simple_extent_type(space) == H5S_SCALAR;
  char **out = calloc((size_t)(n ? n : 1), sizeof *out);
  int rc = 0;
  if (H5Tis_variable_str(type) > 0) {
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(type));
    if (H5Aread(a, mt, out) < 0) rc = fail(w->err, w->errn, "read the attribute", name);
    for (hssize_t i = 0; i < n && !rc; i++) {
      char *s = strdup(out[i] ? out[i] : "");
      H5free_memory(out[i]);
      out[i] = s;
    }
    H5Tclose(mt);
  } else {
    size_t width = H5Tget_size(type);
    char *buf = calloc((size_t)(n ? n : 1), width);
    if (H5Aread(a, type, buf) < 0) rc = fail(w->err, w->errn, "read the attribute", name);
    for (hssize_t i = 0; i < n && !rc; i++) out[i] = strndup(buf + (size_t)i * width, width);
    free(buf);
  }
  if (!rc) w->v->attr_strings(w->ctx, w->obj, name, out, (int)n, scalar);
  for (hssize_t i = 0; i < n; i++) free(out[i]);
  free(out);
  return rc;
}

static herr_t on_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  Walk *w = data;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a < 0) return fail(w->err, w->errn, "open the attribute", name);
  hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  int rc = 0, dt = dtype_of(type);
  if (H5Tget_class(type) == H5T_STRING) {
    rc = read_strings(a, type, space, w, name);
  } else if (dt >= 0) {
    Tensor *t = tensor_for(dt, space, H5Aget_storage_size(a));
    hid_t ft, mt;
    h5_types((DType)dt, &ft, &mt);
    if (!t || H5Aread(a, mt, tensor_data(t)) < 0) rc = fail(w->err, w->errn, "read the attribute", name);
    else w->v->attr_tensor(w->ctx, w->obj, name, t);
    if (t) tensor_release(t);
  } else {
    rc = fail(w->err, w->errn, "read (unsupported type) the attribute", name);
  }
  H5Sclose(space), H5Tclose(type), H5Aclose(a);
  return rc;
}

static int read_dataset(hid_t d, const char *path, Walk *w) {
  hid_t type = H5Dget_type(d), space = H5Dget_space(d);
  int rc = 0, dt = dtype_of(type);
  Tensor *t = dt >= 0 ? tensor_for(dt, space, H5Dget_storage_size(d)) : NULL;
  hid_t ft, mt;
  if (!t || !h5_types((DType)dt, &ft, &mt) || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor_data(t)) < 0)
    rc = fail(w->err, w->errn, "read (unsupported type or shape) the dataset", path);
  else
    w->v->dataset(w->ctx, path, t);
  if (t) tensor_release(t);
  H5Sclose(space), H5Tclose(type);
  return rc;
}

/* One object: reported, then its attributes. */
static int visit_object(hid_t file, const char *rel, Walk *w) {
  char path[1024];
  snprintf(path, sizeof path, "/%s", strcmp(rel, ".") ? rel : "");
  hid_t o = H5Oopen(file, rel, H5P_DEFAULT);
  if (o < 0) return fail(w->err, w->errn, "open", path);
  H5I_type_t kind = H5Iget_type(o);
  int rc = 0;
  if (kind == H5I_GROUP) w->v->group(w->ctx, path);
  else if (kind == H5I_DATASET) rc = read_dataset(o, path, w);
  w->obj = path;
  if (!rc && H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, NULL, on_attr, w) < 0) rc = -1;
  H5Oclose(o);
  return rc;
}

static herr_t on_link(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  if (info->type != H5L_TYPE_HARD) return 0;
  return visit_object(g, name, data) < 0 ? -1 : 0;
}

int h5_walk(H5File f, const H5Visitor *v, void *ctx, char *err, size_t errn) {
  Walk w = {v, ctx, "/", err, errn};
  err[0] = 0;
  if (visit_object((hid_t)f, ".", &w) < 0) return -1;
  if (H5Lvisit((hid_t)f, H5_INDEX_NAME, H5_ITER_INC, on_link, &w) < 0) {
    if (!err[0]) snprintf(err, errn, "cannot read the file's groups");
    return -1;
  }
  return 0;
}
