/* hashmod.c — `_hashlib`: message digests by OpenSSL's EVP interface (md5, sha1, sha2, sha3, blake2) for stdlib/hashlib.tfs. */
#include <openssl/evp.h>
#include <string.h>

#include "modules/modules.h"
#include "object/object.h"
#include "object/value.h"

static const EVP_MD *hm_md(Val name) {
  if (!val_is(name, &str_type)) rt_throw(ERR_TYPE, "name must be a string");
  const char *n = str_cstr(name);
  /* Python's names for OpenSSL's: blake2b/blake2s are its 512/256-bit forms */
  const char *o = !strcmp(n, "blake2b") ? "BLAKE2B512" : !strcmp(n, "blake2s") ? "BLAKE2S256" : n;
  const EVP_MD *md = EVP_get_digestbyname(o);
  if (!md) rt_throw(ERR_VALUE, "unsupported hash type %s", n);
  return md;
}

/* _hashlib.digest(name, data): the digest of data (bytes) */
static Val hm_digest(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 2 || (kw && kw->n)) rt_throw(ERR_TYPE, "_hashlib.digest(name, data)");
  const EVP_MD *md = hm_md(args[0]);
  if (!val_is(args[1], &bytes_type)) rt_throw(ERR_TYPE, "Strings must be encoded before hashing");
  size_t len;
  const void *d = bytes_data(args[1], &len);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int olen = 0;
  if (!EVP_Digest(d, len, out, &olen, md, NULL)) rt_throw(ERR_VALUE, "digest failed");
  return bytes_new((const char *)out, olen);
}

/* _hashlib.sizes(name): (digest_size, block_size) */
static Val hm_sizes(Val self, int n, const Val *args, const Kw *kw) {
  if (n != 1 || (kw && kw->n)) rt_throw(ERR_TYPE, "_hashlib.sizes(name)");
  const EVP_MD *md = hm_md(args[0]);
  return tuple_pack(2, val_int(EVP_MD_get_size(md)), val_int(EVP_MD_get_block_size(md)));
}

#define HB(nm, fn) {{TFS_IMMORTAL_RC, &builtin_type}, "_hashlib." nm, fn, {VT_UNDEF, {0}}, NULL}
static Builtin hm_fns[] = {HB("digest", hm_digest), HB("sizes", hm_sizes)};

static Val hm_attr(const char *name) {
  for (size_t i = 0; i < sizeof hm_fns / sizeof hm_fns[0]; i++)
    if (!strcmp(hm_fns[i].name + 9, name)) return val_obj(&hm_fns[i]);
  return val_undef();
}

Val hashmod_module(void) {
  static Val mod = {VT_UNDEF, {0}};
  if (val_is_undef(mod)) mod = module_native("_hashlib", hm_attr);
  return val_incref(mod);
}
