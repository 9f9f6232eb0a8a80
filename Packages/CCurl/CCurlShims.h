#ifndef PARLEY_CCURL_SHIMS_H
#define PARLEY_CCURL_SHIMS_H

// libcurl's option setters and info getters are variadic C functions, which Swift cannot
// call. Each shim below fixes the type of the third argument, so a Swift call site passes
// exactly what libcurl reads for that option kind:
//
// - long options (CURLOPTTYPE_LONG) take a C `long`;
// - off_t options (CURLOPTTYPE_OFF_T, the `_LARGE` ones) take a `curl_off_t`;
// - pointer options (strings, slists, callback data) take a `void *` or `const char *`;
// - callback options take a typed function pointer.

// Opaque handle types instead of `void *`, so Swift sees `OpaquePointer` and a multi handle
// cannot be passed where an easy handle is expected by accident in C.
#define CURL_STRICTER
#include <curl/curl.h>

// MARK: - curl_easy_setopt

static inline CURLcode parley_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_write_callback(CURL *handle, CURLoption option,
                                                         curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_read_callback(CURL *handle, CURLoption option,
                                                        curl_read_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_seek_callback(CURL *handle, CURLoption option,
                                                        curl_seek_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_prereq_callback(CURL *handle, CURLoption option,
                                                          curl_prereq_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_xferinfo_callback(CURL *handle, CURLoption option,
                                                            curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_debug_callback(CURL *handle, CURLoption option,
                                                         curl_debug_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode parley_easy_setopt_sockopt_callback(CURL *handle, CURLoption option,
                                                           curl_sockopt_callback value) {
    return curl_easy_setopt(handle, option, value);
}

// MARK: - curl_easy_getinfo

static inline CURLcode parley_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode parley_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode parley_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode parley_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

// MARK: - curl_multi_setopt

static inline CURLMcode parley_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

// MARK: - Constants that Swift imports badly

// Macros built from casts or expressions are not imported into Swift.
static const size_t parley_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const size_t parley_readfunc_pause = CURL_READFUNC_PAUSE;
static const size_t parley_readfunc_abort = CURL_READFUNC_ABORT;
static const int parley_pause_cont = CURLPAUSE_CONT;
static const int parley_pause_recv = CURLPAUSE_RECV;
static const long parley_pipe_multiplex = CURLPIPE_MULTIPLEX;
static const long parley_http_version_2tls = CURL_HTTP_VERSION_2TLS;
static const long parley_http_version_1_1 = CURL_HTTP_VERSION_1_1;
static const long parley_global_all = CURL_GLOBAL_ALL;

// MARK: - Threads

#include <pthread.h>

// glibc declares it only under _GNU_SOURCE; it has had it since 2.12.
extern int pthread_setname_np(pthread_t thread, const char *name);

/// Names the calling thread as `top -H`, `ps -L`, debuggers and /proc show it (at most 15
/// bytes are kept).
static inline void parley_name_current_thread(const char *name) {
    (void)pthread_setname_np(pthread_self(), name);
}

#endif
