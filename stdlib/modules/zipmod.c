/* zipmod.c — `_zip`: zip archives (runtime/formats/zipfile.c over libzip) for the .keras files of stdlib/keras_saving.tfs. */
#include <stdlib.h>
#include <string.h>

#include "formats/zipfile.h"
#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

/* _zip.write(path, [(name, bytes | str)]): the archive, all members stored; replaced whole or not at all. */
static Val zip_write_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 2 || (kw && kw->n) || !val_is(args[0], &str_type) || !val_is(args[1], &list_type))
    rt_throw(ERR_TYPE, "_zip.write(path, members)");
  tfs_i64 count;
  const Val *items;
  seq_items(args[1], &count, &items);
  const char **names = calloc((size_t)count + 1, sizeof *names);
  const void **data = calloc((size_t)count + 1, sizeof *data);
  size_t *lens = calloc((size_t)count + 1, sizeof *lens);
  int mark = rt_hold_mem(names);
  rt_hold_mem(data);
  rt_hold_mem(lens);
  for (tfs_i64 i = 0; i < count; i++) {
    tfs_i64 k;
    const Val *pair;
    if (!seq_items(items[i], &k, &pair) || k != 2 || !val_is(pair[0], &str_type))
      rt_throw(ERR_TYPE, "_zip.write: each member is (name, bytes)");
    names[i] = str_cstr(pair[0]);
    if (val_is(pair[1], &str_type)) {
      data[i] = str_cstr(pair[1]);
      lens[i] = (size_t)str_len(pair[1]);
    } else if (val_is(pair[1], &bytes_type)) {
      data[i] = bytes_data(pair[1], &lens[i]);
    } else {
      rt_throw(ERR_TYPE, "_zip.write: member '%s' must be bytes or str", names[i]);
    }
  }
  char err[512];
  int rc = zf_write(str_cstr(args[0]), (int)count, names, data, lens, err, sizeof err);
  rt_unhold(mark);
  free(names), free(data), free(lens);
  if (rc < 0) rt_throw(ERR_IO, "Unable to write '%s': %s", str_cstr(args[0]), err);
  return val_none();
}

/* _zip.read(path, name): a member's bytes; KeyError (as zipfile's) when the archive has no such member. */
static Val zip_read_fn(Val self, int n, const Val *args, const Kw *kw) {
  (void)self;
  if (n != 2 || (kw && kw->n) || !val_is(args[0], &str_type) || !val_is(args[1], &str_type)) rt_throw(ERR_TYPE, "_zip.read(path, name)");
  size_t len = 0;
  int missing = 0;
  char err[512];
  void *d = zf_read(str_cstr(args[0]), str_cstr(args[1]), &len, &missing, err, sizeof err);
  if (!d && missing) exc_raise_class(builtins_lookup("KeyError"), ERR_KEY, err);
  if (!d) exc_raise_class(builtins_lookup("OSError"), ERR_IO, err);
  Val out = bytes_new(d, len);
  free(d);
  return out;
}

static Val zip_attr(const char *name) {
  if (!strcmp(name, "write")) return builtin_new("_zip.write", zip_write_fn, val_undef(), NULL);
  if (!strcmp(name, "read")) return builtin_new("_zip.read", zip_read_fn, val_undef(), NULL);
  return val_undef();
}

Val zipmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_zip", zip_attr);
  return val_incref(mod);
}
