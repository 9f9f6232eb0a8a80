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

static inline CURLcode parley_easy_setopt_opensocket_callback(CURL *handle, CURLoption option,
                                                              curl_opensocket_callback value) {
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
static const int parley_socket_bad = CURL_SOCKET_BAD;

// MARK: - Content encodings

// The features of the libcurl the process runs with (`CURL_VERSION_*` bits), for the
// encodings it decodes: the engine sends the `Accept-Encoding` that libcurl itself would.
static inline int parley_curl_features(void) {
    return curl_version_info(CURLVERSION_NOW)->features;
}
static const int parley_feature_libz = CURL_VERSION_LIBZ;
static const int parley_feature_brotli = CURL_VERSION_BROTLI;
static const int parley_feature_zstd = CURL_VERSION_ZSTD;

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

// MARK: - The response head

// libcurl hands its header callback one line at a time: status lines, fields, the blank line
// that ends each head, and trailers. Parsing them in C keeps the engine's Swift code out of
// every line: the callback below consumes each line into a `parley_head` and calls the
// transfer (`on_event`) only when a head is complete, or when a line is refused. The rules are
// `ResponseHeadParser`'s (TransportCurl), which wraps the same state for its tests and its
// fuzz target.

#include <string.h>

enum {
    PARLEY_HEAD_CONTINUE = 0,
    PARLEY_HEAD_COMPLETE = 1,
    PARLEY_HEAD_INTERIM = 2,
    PARLEY_HEAD_TOO_LARGE = 3,
    PARLEY_HEAD_INVALID = 4,
};

enum {
    PARLEY_HEAD_PROBLEM_NONE = 0,
    PARLEY_HEAD_PROBLEM_BLANK_BEFORE_STATUS = 1,
    PARLEY_HEAD_PROBLEM_CONTINUATION_FIRST = 2,
    PARLEY_HEAD_PROBLEM_NO_COLON = 3,
    PARLEY_HEAD_PROBLEM_BAD_NAME = 4,
    PARLEY_HEAD_PROBLEM_BAD_STATUS_LINE = 5,
    PARLEY_HEAD_PROBLEM_OUT_OF_MEMORY = 6,
};

/// A byte buffer that grows and is kept between heads.
typedef struct parley_bytes {
    unsigned char *bytes;
    size_t count;
    size_t capacity;
} parley_bytes;

/// A response head being read, and what it means so far.
typedef struct parley_head {
    /// The most bytes the heads of one hop may take (`TransferOptions.maximumHeaderSize`).
    int64_t limit;
    /// Header bytes received since the transfer started, for the stall check.
    int64_t moved;
    /// Bytes of the hop's heads so far, interim heads included.
    int64_t bytes;
    /// The status of the head being read, 0 before its status line.
    int status;
    /// Whether a final head is complete (the lines after it are trailers), and whether an
    /// interim head just ended (the next line starts a new head).
    unsigned char complete, interim_complete;
    /// Whether the head has a `Content-Encoding` field, and a `Location` field.
    unsigned char has_content_encoding, has_location;
    /// The `Content-Length`, -1 when the head has no valid one.
    int64_t content_length;
    /// One bit per field name received, `parley_field_name_bit` of it: a reader that wants
    /// names whose bits are all clear knows without reading the lines that none is there.
    uint64_t name_signature;
    /// The last `Location` value, trimmed, as an offset and a length in `lines`.
    size_t location_offset, location_length;
    /// The field lines, each without its CRLF and followed by a `\n`.
    parley_bytes lines;
    /// The reason phrase of the status line.
    parley_bytes reason;
    /// Why the last line was refused, and up to 64 bytes of what was refused.
    int problem;
    size_t problem_length;
    unsigned char problem_text[64];
    /// Called when `parley_head_consume` returns anything but `PARLEY_HEAD_CONTINUE`, with the
    /// event; returns 0 to abort the transfer. Set by the engine, NULL in tests.
    size_t (*on_event)(void *owner, int event);
    void *owner;
} parley_head;

/// Starts `head` empty, with no buffer yet.
static inline void parley_head_init(parley_head *head) {
    memset(head, 0, sizeof *head);
    head->content_length = -1;
}

/// Frees the buffers of `head`.
static inline void parley_head_free(parley_head *head) {
    free(head->lines.bytes);
    free(head->reason.bytes);
    head->lines = (parley_bytes){0};
    head->reason = (parley_bytes){0};
}

/// Starts a new head; keeps the buffers (their room) and, when `keep_bytes`, the bytes counted
/// against the limit (a head after an interim one counts with it).
static inline void parley_head_restart(parley_head *head, int keep_bytes) {
    if (!keep_bytes) head->bytes = 0;
    head->status = 0;
    head->complete = 0;
    head->interim_complete = 0;
    head->has_content_encoding = 0;
    head->has_location = 0;
    head->content_length = -1;
    head->name_signature = 0;
    head->lines.count = 0;
    head->reason.count = 0;
    head->problem = PARLEY_HEAD_PROBLEM_NONE;
    // A buffer a very large head grew is not kept for the next transfers of the handle.
    if (head->lines.capacity > 16384) {
        free(head->lines.bytes);
        head->lines = (parley_bytes){0};
    }
}

/// Appends `count` bytes with room for `spare` more after them, allocating `first` bytes the
/// first time (and doubling from there); 0 when out of memory.
static inline int parley_bytes_append(parley_bytes *buffer, const unsigned char *bytes, size_t count, size_t first,
                                      size_t spare) {
    if (buffer->count + count + spare > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity * 2 : first;
        while (capacity < buffer->count + count + spare) capacity *= 2;
        unsigned char *grown = (unsigned char *)realloc(buffer->bytes, capacity);
        if (!grown) return 0;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    if (count) memcpy(buffer->bytes + buffer->count, bytes, count);
    buffer->count += count;
    return 1;
}

static inline int parley_head_refuse(parley_head *head, int problem, const unsigned char *text, size_t count) {
    head->problem = problem;
    head->problem_length = count < sizeof head->problem_text ? count : sizeof head->problem_text;
    if (head->problem_length) memcpy(head->problem_text, text, head->problem_length);
    return PARLEY_HEAD_INVALID;
}

/// The HTTP token characters (RFC 9110 §5.6.2), the bytes a field name is made of: a table, so
/// that each byte of every name received costs one load.
static const unsigned char parley_token_bytes[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1,
    ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
    ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,
    ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

/// Whether `byte` may appear in a field name: an HTTP token character (RFC 9110 §5.6.2).
static inline int parley_is_token_byte(unsigned char byte) {
    return parley_token_bytes[byte];
}

/// Whether `text` starts with `lowercase` (ASCII lowercase) in any letter case.
static inline int parley_starts_ignoring_case(const unsigned char *text, const char *lowercase, size_t count) {
    for (size_t index = 0; index < count; index++) {
        unsigned char byte = text[index];
        if (byte >= 'A' && byte <= 'Z') byte |= 0x20;
        if (byte != (unsigned char)lowercase[index]) return 0;
    }
    return 1;
}

/// The bit of a field name of `count` (at least 1) bytes in a head's `name_signature`: from its
/// length and its first and last bytes, each with bit 5 set (ASCII letters in lowercase), so a
/// name has the same bit in any letter case. Different names may share a bit; a set bit says a
/// name may be there, a clear one that it is not. `FieldNameSet.signatureBit` computes the same
/// bit in Swift.
static inline uint64_t parley_field_name_bit(const unsigned char *name, size_t count) {
    uint64_t mixed = (uint64_t)count * 7 + (uint64_t)(name[0] | 0x20) * 3 + (uint64_t)(name[count - 1] | 0x20);
    return (uint64_t)1 << (mixed & 63);
}

/// Records the fields the engine acts on: `Content-Length` (digits only, at most 18),
/// `Content-Encoding` and `Location`. `offset` is where the line starts in `lines`.
static inline void parley_head_note_field(parley_head *head, const unsigned char *text, size_t count,
                                          size_t colon, size_t offset) {
    if (colon != 14 && colon != 16 && colon != 8) return;
    size_t first = colon + 1, end = count;
    while (first < end && (text[first] == ' ' || text[first] == '\t')) first++;
    while (end > first && (text[end - 1] == ' ' || text[end - 1] == '\t')) end--;
    if (colon == 14 && parley_starts_ignoring_case(text, "content-length", 14)) {
        size_t length = end - first;
        int64_t value = 0;
        int valid = length > 0 && length <= 18;
        for (size_t index = first; valid && index < end; index++) {
            if (text[index] < '0' || text[index] > '9') valid = 0;
            else value = value * 10 + (text[index] - '0');
        }
        head->content_length = valid ? value : -1;
    } else if (colon == 16 && parley_starts_ignoring_case(text, "content-encoding", 16)) {
        head->has_content_encoding = 1;
    } else if (colon == 8 && parley_starts_ignoring_case(text, "location", 8)) {
        head->has_location = 1;
        head->location_offset = offset + first;
        head->location_length = end - first;
    }
}

/// "HTTP/1.1 200 OK" or "HTTP/2 200": the version, one or more spaces, three digits, and after
/// one or more spaces the reason, if any.
static inline int parley_head_status_line(parley_head *head, const unsigned char *text, size_t count) {
    size_t index = 5;
    while (index < count && text[index] != ' ') index++;
    while (index < count && text[index] == ' ') index++;
    int code = 0, digits = 0;
    while (index < count && text[index] != ' ') {
        int digit = (int)text[index] - '0';
        if (digit < 0 || digit > 9 || digits >= 3)
            return parley_head_refuse(head, PARLEY_HEAD_PROBLEM_BAD_STATUS_LINE, text, count);
        code = code * 10 + digit;
        digits++;
        index++;
    }
    if (digits != 3 || code < 100 || code >= 600)
        return parley_head_refuse(head, PARLEY_HEAD_PROBLEM_BAD_STATUS_LINE, text, count);
    while (index < count && text[index] == ' ') index++;
    parley_head_restart(head, 1);
    head->status = code;
    // 32 bytes hold the common reason phrases ("OK", "Not Found", "Internal Server Error"):
    // every easy handle, and so every request in flight, keeps this buffer between its heads.
    if (!parley_bytes_append(&head->reason, text + index, count - index, 32, 0))
        return parley_head_refuse(head, PARLEY_HEAD_PROBLEM_OUT_OF_MEMORY, NULL, 0);
    return PARLEY_HEAD_CONTINUE;
}

/// Consumes one line, CRLF included; what it meant.
static inline int parley_head_consume(parley_head *head, const unsigned char *line, size_t count) {
    if (head->complete) return PARLEY_HEAD_CONTINUE;  // Trailers: not part of the head.
    if (head->interim_complete) parley_head_restart(head, 1);
    head->bytes += (int64_t)count;
    if (head->bytes > head->limit) return PARLEY_HEAD_TOO_LARGE;
    size_t end = count;
    while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r')) end--;
    if (end == 0) {
        if (head->status == 0) return parley_head_refuse(head, PARLEY_HEAD_PROBLEM_BLANK_BEFORE_STATUS, NULL, 0);
        if (head->status >= 100 && head->status < 200) {
            // An interim response (100, 103, 104): the real head follows. It stays readable
            // until the next line.
            head->interim_complete = 1;
            return PARLEY_HEAD_INTERIM;
        }
        head->complete = 1;
        return PARLEY_HEAD_COMPLETE;
    }
    if (end >= 5 && memcmp(line, "HTTP/", 5) == 0) return parley_head_status_line(head, line, end);
    if (line[0] == ' ' || line[0] == '\t') {
        if (head->lines.count == 0)
            return parley_head_refuse(head, PARLEY_HEAD_PROBLEM_CONTINUATION_FIRST, NULL, 0);
    } else {
        const unsigned char *colon = (const unsigned char *)memchr(line, ':', end);
        if (!colon || colon == line) return parley_head_refuse(head, PARLEY_HEAD_PROBLEM_NO_COLON, NULL, 0);
        size_t name_length = (size_t)(colon - line);
        for (size_t index = 0; index < name_length; index++) {
            if (!parley_is_token_byte(line[index]))
                return parley_head_refuse(head, PARLEY_HEAD_PROBLEM_BAD_NAME, line, name_length);
        }
        head->name_signature |= parley_field_name_bit(line, name_length);
        parley_head_note_field(head, line, end, name_length, head->lines.count);
    }
    // The line and its `\n` in one append: room for both, then the byte after the copy.
    if (!parley_bytes_append(&head->lines, line, end, 512, 1))
        return parley_head_refuse(head, PARLEY_HEAD_PROBLEM_OUT_OF_MEMORY, NULL, 0);
    head->lines.bytes[head->lines.count++] = '\n';
    return PARLEY_HEAD_CONTINUE;
}

/// `CURLOPT_HEADERFUNCTION` with a `parley_head` as its data: a line that completes a head or
/// is refused goes to the head's `on_event`, whose 0 aborts the transfer.
static inline size_t parley_head_callback(char *data, size_t size, size_t count, void *context) {
    parley_head *head = (parley_head *)context;
    size_t length = size * count;
    head->moved += (int64_t)length;
    int event = parley_head_consume(head, (const unsigned char *)data, length);
    if (event == PARLEY_HEAD_CONTINUE) return length;
    return head->on_event(head->owner, event) ? length : 0;
}

/// Points the handle's header callback at `head`.
static inline void parley_easy_set_head(CURL *handle, parley_head *head) {
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, parley_head_callback);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, (void *)head);
}

#endif
