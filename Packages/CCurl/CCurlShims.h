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

static inline CURLMcode parley_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) {
    return curl_multi_setopt(handle, option, value);
}

static inline CURLMcode parley_multi_setopt_socket_callback(CURLM *handle, CURLMoption option,
                                                            curl_socket_callback value) {
    return curl_multi_setopt(handle, option, value);
}

static inline CURLMcode parley_multi_setopt_timer_callback(CURLM *handle, CURLMoption option,
                                                           curl_multi_timer_callback value) {
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
static const long parley_auth_basic = (long)CURLAUTH_BASIC;
static const long parley_auth_digest = (long)CURLAUTH_DIGEST;
static const long parley_auth_any = (long)CURLAUTH_ANY;

static const int parley_socket_timeout = CURL_SOCKET_TIMEOUT;

// MARK: - epoll and eventfd

// The loop waits in epoll. `struct epoll_event` is packed on x86-64, so Swift never touches
// its fields: the shims below read and write them, and Swift sees only counts and plain
// integers.

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

// glibc defines these as enumerators of `enum EPOLL_EVENTS`, which Swift imports as a type
// of its own: plain values are easier to combine.
static const uint32_t parley_epoll_in = EPOLLIN;
static const uint32_t parley_epoll_out = EPOLLOUT;
static const uint32_t parley_epoll_err = EPOLLERR;
static const uint32_t parley_epoll_hup = EPOLLHUP;
static const int parley_epoll_ctl_add = EPOLL_CTL_ADD;
static const int parley_epoll_ctl_mod = EPOLL_CTL_MOD;
static const int parley_epoll_ctl_del = EPOLL_CTL_DEL;

/// A close-on-exec epoll descriptor, or -1 with `errno` set.
static inline int parley_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

/// Adds, modifies or removes `fd` in the set, watching `events` with `fd` as its data; 0, or
/// the `errno` of the failure.
static inline int parley_epoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = 0;
    event.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &event) == 0 ? 0 : errno;
}

/// Room for `count` events, for `parley_epoll_wait`; NULL when out of memory.
static inline void *parley_epoll_events_allocate(int count) {
    return calloc((size_t)count, sizeof(struct epoll_event));
}

static inline void parley_epoll_events_free(void *events) {
    free(events);
}

/// Waits up to `timeout_ms` (-1: no limit) for ready descriptors; the count (0 on a time-out
/// or a signal), or -1 with `errno` set.
static inline int parley_epoll_wait(int epfd, void *events, int count, int timeout_ms) {
    int ready = epoll_wait(epfd, (struct epoll_event *)events, count, timeout_ms);
    return (ready < 0 && errno == EINTR) ? 0 : ready;
}

/// The descriptor of the `index`th ready event.
static inline int parley_epoll_event_fd(const void *events, int index) {
    return ((const struct epoll_event *)events)[index].data.fd;
}

/// What the `index`th ready event reports (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP bits).
static inline uint32_t parley_epoll_event_bits(const void *events, int index) {
    return ((const struct epoll_event *)events)[index].events;
}

/// A non-blocking, close-on-exec eventfd, or -1 with `errno` set.
static inline int parley_eventfd_create(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/// Makes the eventfd readable (adds one to its counter).
static inline void parley_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t written;
    do {
        written = write(fd, &one, sizeof one);
    } while (written < 0 && errno == EINTR);
}

/// Resets the eventfd's counter, so that it is no longer readable.
static inline void parley_eventfd_drain(int fd) {
    uint64_t count;
    ssize_t got;
    do {
        got = read(fd, &count, sizeof count);
    } while (got < 0 && errno == EINTR);
}

// MARK: - The loop's clock

// clock_gettime comes with <time.h>, which <curl/curl.h> includes.

/// CLOCK_MONOTONIC in nanoseconds: one vDSO read, for the loop's deadlines.
static inline int64_t parley_monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + (int64_t)now.tv_nsec;
}

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
