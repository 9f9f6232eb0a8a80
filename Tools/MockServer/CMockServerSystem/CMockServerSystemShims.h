#ifndef PARLEY_MOCK_SERVER_SYSTEM_SHIMS_H
#define PARLEY_MOCK_SERVER_SYSTEM_SHIMS_H

// The system libraries the mock server uses: zlib, to inflate and compress bodies, and
// OpenSSL's libcrypto, for the SHA-256 digests it reports. The server keeps its own module
// rather than sharing the library's, so that it depends on nothing the client under test
// is made of.
#include <openssl/evp.h>
#include <zlib.h>

/// `deflateInit2` is a macro in zlib.h; Swift cannot call macros, so this wraps it.
static inline int mock_deflateInit2(z_streamp stream, int level, int method, int windowBits,
                                    int memLevel, int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

/// `inflateInit2` is a macro in zlib.h; Swift cannot call macros, so this wraps it.
static inline int mock_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
