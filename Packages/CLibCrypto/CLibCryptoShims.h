#ifndef PARLEY_CLIBCRYPTO_SHIMS_H
#define PARLEY_CLIBCRYPTO_SHIMS_H

// OpenSSL's libcrypto: the library libcurl (libcurl4-openssl-dev) already links, so its
// digests cost a Parley user no package and no build time. Only the EVP digest interface is
// used; the low-level SHA256_* functions are deprecated in OpenSSL 3.
#include <openssl/evp.h>

#endif
