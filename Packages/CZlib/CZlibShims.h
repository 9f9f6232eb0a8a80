#ifndef PARLEY_CZLIB_SHIMS_H
#define PARLEY_CZLIB_SHIMS_H

#include <zlib.h>

/// `deflateInit2` is a macro in zlib.h; Swift cannot call macros, so this wraps it.
static inline int parley_deflateInit2(z_streamp stream, int level, int method, int windowBits,
                                      int memLevel, int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

/// `inflateInit2` is a macro in zlib.h; Swift cannot call macros, so this wraps it.
static inline int parley_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
