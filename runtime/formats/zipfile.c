/* zipfile.c — zip archives through libzip: Keras's .keras files (config.json, metadata.json, model.weights.h5). */
#include "formats/zipfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <zip.h>

static int zerr(char *err, size_t errn, const char *what, zip_error_t *e) {
  snprintf(err, errn, "%s: %s", what, zip_error_strerror(e));
  return -1;
}

int zf_write(const char *path, int n, const char *const *names, const void *const *data, const size_t *lens, char *err,
             size_t errn) {
  int code = 0;
  zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (!z) {
    zip_error_t e;
    zip_error_init_with_code(&e, code);
    int rc = zerr(err, errn, "cannot create the archive", &e);
    zip_error_fini(&e);
    return rc;
  }
  for (int i = 0; i < n; i++) {
    /* the buffers stay the caller's until zip_close has written them */
    zip_source_t *src = zip_source_buffer(z, data[i], lens[i], 0);
    zip_int64_t idx = src ? zip_file_add(z, names[i], src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) : -1;
    if (idx < 0) {
      if (src) zip_source_free(src);
      int rc = zerr(err, errn, names[i], zip_get_error(z));
      zip_discard(z);
      return rc;
    }
    zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
  }
  if (zip_close(z) < 0) {
    int rc = zerr(err, errn, "cannot write the archive", zip_get_error(z));
    zip_discard(z);
    return rc;
  }
  return 0;
}

void *zf_read(const char *path, const char *member, size_t *len, int *missing, char *err, size_t errn) {
  int code = 0;
  *missing = 0;
  zip_t *z = zip_open(path, ZIP_RDONLY, &code);
  if (!z) {
    zip_error_t e;
    zip_error_init_with_code(&e, code);
    zerr(err, errn, "not a zip archive", &e);
    zip_error_fini(&e);
    return NULL;
  }
  zip_stat_t st;
  zip_file_t *f = zip_stat(z, member, 0, &st) == 0 ? zip_fopen(z, member, 0) : NULL;
  if (!f) {
    *missing = 1;
    snprintf(err, errn, "There is no item named '%s' in the archive", member);
    zip_discard(z);
    return NULL;
  }
  char *buf = malloc(st.size ? st.size : 1);
  zip_int64_t got = zip_fread(f, buf, st.size);
  zip_fclose(f);
  if (got < 0 || (zip_uint64_t)got != st.size) {
    free(buf);
    zerr(err, errn, member, zip_get_error(z));
    zip_discard(z);
    return NULL;
  }
  zip_discard(z);
  *len = (size_t)st.size;
  return buf;
}
