/* siphash.c — SipHash-2-4 keyed by two 64-bit words (TF's StrongKeyedHash, the hash of StringToHashBucketStrong),
 * through libcrypto's SIPHASH MAC with an 8-byte output. */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kstr.h"

struct SipKey {
  EVP_MAC *mac;
  EVP_MAC_CTX *ctx;
};

SipKey *siphash_new(uint64_t k0, uint64_t k1) {
  SipKey *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  /* the MAC key is the 16 bytes of k0 then k1, little-endian, as highwayhash's SipHashState loads its two words */
  unsigned char key[16];
  for (int i = 0; i < 8; i++) key[i] = (unsigned char)(k0 >> (8 * i)), key[8 + i] = (unsigned char)(k1 >> (8 * i));
  size_t size = 8;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_construct_end()};
  k->mac = EVP_MAC_fetch(NULL, "SIPHASH", NULL);
  k->ctx = k->mac ? EVP_MAC_CTX_new(k->mac) : NULL;
  if (!k->ctx || !EVP_MAC_init(k->ctx, key, sizeof key, params)) {
    siphash_free(k);
    return NULL;
  }
  return k;
}

uint64_t siphash_of(SipKey *k, const unsigned char *s, size_t len) {
  unsigned char out[8] = {0};
  size_t n = 0;
  /* a NULL key restarts from the keyed state set by siphash_new */
  EVP_MAC_init(k->ctx, NULL, 0, NULL);
  EVP_MAC_update(k->ctx, s, len);
  EVP_MAC_final(k->ctx, out, &n, sizeof out);
  uint64_t h = 0;
  for (int i = 7; i >= 0; i--) h = (h << 8) | out[i];
  return h;
}

void siphash_free(SipKey *k) {
  if (!k) return;
  EVP_MAC_CTX_free(k->ctx);
  EVP_MAC_free(k->mac);
  free(k);
}
