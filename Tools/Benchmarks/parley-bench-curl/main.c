// parley-bench-curl: the raw libcurl baseline of the Parley benchmarks.
//
// It speaks the benchmark contract of docs/BENCHMARKS.md (the flags of BenchmarkOptions and one RESULT line on
// standard output) with nothing between the measurement and libcurl: one thread, one multi handle, one easy handle
// per worker, reused from request to request with the same options, and a curl_multi_poll loop. Every other peer
// is reported as a ratio to this one, so it takes no shortcut the others could not take and pays no cost libcurl
// does not impose:
//
// - HTTPS asks for HTTP/2 through ALPN (CURL_HTTP_VERSION_2TLS) and waits for a connection it can multiplex on
//   (CURLOPT_PIPEWAIT), so 64 concurrent requests share one connection; cleartext is HTTP/1.1 keep-alive with up
//   to --concurrency connections (CURLMOPT_MAX_HOST_CONNECTIONS).
// - get collects each body in a growable buffer; download writes each chunk to --out as it arrives, through a
//   512 KiB receive buffer (CURLOPT_BUFFERSIZE); upload POSTs --in from disk through a read callback, with a known
//   length and no `Expect: 100-continue` round trip.
// - No content decoding is requested (CURLOPT_ACCEPT_ENCODING is left unset).
//
// With --socket-interface the same transfers are driven the other way libcurl offers, the one an event loop uses:
// an epoll set holds the sockets libcurl names through CURLMOPT_SOCKETFUNCTION, CURLMOPT_TIMERFUNCTION sets a
// one-shot deadline (the epoll_wait timeout), and each ready socket, or the deadline, is handed to
// curl_multi_socket_action. libcurl then visits only the transfers on that socket, not every transfer; with
// thousands in flight its own walks over connections still cost about the same under either driver (see
// docs/BENCHMARKS.md, "Ten thousand requests in flight").
//
// Every request is checked: libcurl's result, a 2xx status, the body stored, and as many body bytes as a
// Content-Length announced.
//
// Timing uses CLOCK_MONOTONIC; CPU time is getrusage(RUSAGE_SELF), user plus system, across the timed phase.
// Percentiles are nearest-rank, as in BenchmarkSupport's `percentile(_:ofSorted:)`.

#define _GNU_SOURCE

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

// MARK: - Options

enum mode { MODE_GET, MODE_DOWNLOAD, MODE_UPLOAD };

static const char *const mode_names[] = {"get", "download", "upload"};

struct options {
    const char *url;
    long requests;         // 1000 by default
    long concurrency;      // 1 by default
    enum mode mode;        // get by default
    const char *out;       // /dev/null by default
    const char *in;        // required for upload
    long warmup;           // 0 by default
    const char *cacert;    // optional
    const char *label;     // "curl" by default, "curl-epoll" with --socket-interface
    bool idle;             // --idle: start the multi handle, send nothing, exit
    bool socket_interface; // --socket-interface: curl_multi_socket_action on an epoll set
};

static void usage(FILE *stream) {
    fputs("USAGE: parley-bench-curl --url <url> [--requests <n>] [--concurrency <c>] [--mode get|download|upload]\n"
          "                         [--out <file>] [--in <file>] [--warmup <n>] [--cacert <file>] [--label <name>]\n"
          "                         [--idle] [--socket-interface]\n",
          stream);
}

static bool parse_count(const char *text, long minimum, long *value) {
    char *end = NULL;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < minimum) {
        return false;
    }
    *value = parsed;
    return true;
}

static bool parse_options(int argc, char **argv, struct options *options) {
    static const struct option long_options[] = {
        {"url", required_argument, NULL, 'u'},   {"requests", required_argument, NULL, 'n'},
        {"concurrency", required_argument, NULL, 'c'}, {"mode", required_argument, NULL, 'm'},
        {"out", required_argument, NULL, 'o'},   {"in", required_argument, NULL, 'i'},
        {"warmup", required_argument, NULL, 'w'}, {"cacert", required_argument, NULL, 'a'},
        {"label", required_argument, NULL, 'l'}, {"idle", no_argument, NULL, 'd'},
        {"socket-interface", no_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *options = (struct options){
        .requests = 1000, .concurrency = 1, .mode = MODE_GET, .out = "/dev/null", .warmup = 0, .label = NULL,
    };
    int option;
    while ((option = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (option) {
        case 'u': options->url = optarg; break;
        case 'n':
            if (!parse_count(optarg, 1, &options->requests)) {
                fprintf(stderr, "Error: --requests must be a positive integer.\n");
                return false;
            }
            break;
        case 'c':
            if (!parse_count(optarg, 1, &options->concurrency)) {
                fprintf(stderr, "Error: --concurrency must be a positive integer.\n");
                return false;
            }
            break;
        case 'w':
            if (!parse_count(optarg, 0, &options->warmup)) {
                fprintf(stderr, "Error: --warmup must be a non-negative integer.\n");
                return false;
            }
            break;
        case 'm':
            if (strcmp(optarg, "get") == 0) {
                options->mode = MODE_GET;
            } else if (strcmp(optarg, "download") == 0) {
                options->mode = MODE_DOWNLOAD;
            } else if (strcmp(optarg, "upload") == 0) {
                options->mode = MODE_UPLOAD;
            } else {
                fprintf(stderr, "Error: --mode must be get, download or upload.\n");
                return false;
            }
            break;
        case 'o': options->out = optarg; break;
        case 'i': options->in = optarg; break;
        case 'a': options->cacert = optarg; break;
        case 'l': options->label = optarg; break;
        case 'd': options->idle = true; break;
        case 's': options->socket_interface = true; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return false;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "Error: unexpected argument '%s'.\n", argv[optind]);
        return false;
    }
    if (options->label == NULL) {
        options->label = options->socket_interface ? "curl-epoll" : "curl";
    }
    if (options->url == NULL) {
        fprintf(stderr, "Error: missing --url.\n");
        return false;
    }
    if (options->mode == MODE_UPLOAD && options->in == NULL) {
        fprintf(stderr, "Error: --mode upload needs --in FILE.\n");
        return false;
    }
    return true;
}

// MARK: - Measurement

static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) {
        return 0;
    }
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
           (double)usage.ru_stime.tv_usec / 1e6;
}

static int compare_doubles(const void *left, const void *right) {
    double a = *(const double *)left;
    double b = *(const double *)right;
    return (a > b) - (a < b);
}

// Nearest rank: the sample at 1-based rank ceil(p / 100 * n), clamped to 1...n; 0 for no samples.
static double percentile(double p, const double *sorted, long count) {
    if (count == 0) {
        return 0;
    }
    double exact = p / 100.0 * (double)count;
    long rank = (long)exact;
    if ((double)rank < exact) {
        rank += 1; // ceil without libm
    }
    if (rank < 1) {
        rank = 1;
    }
    if (rank > count) {
        rank = count;
    }
    return sorted[rank - 1];
}

/// One phase (the warm-up or the timed run).
struct phase {
    const char *name;
    long target;        // requests to issue
    long issued;
    long ok;
    long errors;
    long long bytes;
    bool started;
    double first_start; // the first request's start
    double last_end;    // the last completion
    double *latencies;  // microseconds, one per successful request
};

// MARK: - Transfers

struct slot {
    CURL *easy;
    const struct options *options;
    char *body; // get and upload: the response body, collected
    size_t length;
    size_t capacity;
    int out_fd; // download: the file being written, -1 between requests
    int in_fd;  // upload: the file being sent
    long long received;
    long long sent;
    double start;
    bool write_failed;
};

static size_t on_body(char *data, size_t size, size_t count, void *userdata) {
    struct slot *slot = userdata;
    size_t total = size * count;
    if (slot->options->mode == MODE_DOWNLOAD) {
        size_t offset = 0;
        while (offset < total) {
            ssize_t written = write(slot->out_fd, data + offset, total - offset);
            if (written < 0) {
                if (errno == EINTR) {
                    continue;
                }
                slot->write_failed = true;
                return 0;
            }
            offset += (size_t)written;
        }
    } else {
        if (slot->length + total > slot->capacity) {
            size_t capacity = slot->capacity ? slot->capacity : 16384;
            while (capacity < slot->length + total) {
                capacity *= 2;
            }
            char *grown = realloc(slot->body, capacity);
            if (grown == NULL) {
                slot->write_failed = true;
                return 0;
            }
            slot->body = grown;
            slot->capacity = capacity;
        }
        memcpy(slot->body + slot->length, data, total);
        slot->length += total;
    }
    slot->received += (long long)total;
    return total;
}

static size_t on_read(char *buffer, size_t size, size_t count, void *userdata) {
    struct slot *slot = userdata;
    for (;;) {
        ssize_t n = read(slot->in_fd, buffer, size * count);
        if (n >= 0) {
            slot->sent += n;
            return (size_t)n;
        }
        if (errno != EINTR) {
            return CURL_READFUNC_ABORT;
        }
    }
}

// libcurl rewinds the body when it must resend it, for example on a reused connection the server had closed.
static int on_seek(void *userdata, curl_off_t offset, int origin) {
    struct slot *slot = userdata;
    if (origin != SEEK_SET || lseek(slot->in_fd, (off_t)offset, SEEK_SET) < 0) {
        return CURL_SEEKFUNC_FAIL;
    }
    slot->sent = (long long)offset;
    return CURL_SEEKFUNC_OK;
}

static bool configure_slot(struct slot *slot, const struct options *options, struct curl_slist *headers,
                           curl_off_t upload_size) {
    *slot = (struct slot){.options = options, .out_fd = -1, .in_fd = -1};
    slot->easy = curl_easy_init();
    if (slot->easy == NULL) {
        return false;
    }
    CURL *easy = slot->easy;
    bool secure = strncasecmp(options->url, "https://", 8) == 0;
    CURLcode code = CURLE_OK;
#define SET(option, value)                                                                                          \
    if (code == CURLE_OK) {                                                                                         \
        code = curl_easy_setopt(easy, option, value);                                                               \
    }
    SET(CURLOPT_URL, options->url);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    SET(CURLOPT_PRIVATE, (void *)slot);
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, (void *)slot);
    if (secure) {
        SET(CURLOPT_PIPEWAIT, 1L);
    }
    if (options->cacert != NULL) {
        SET(CURLOPT_CAINFO, options->cacert);
    }
    if (options->mode == MODE_DOWNLOAD) {
        SET(CURLOPT_BUFFERSIZE, 512L * 1024L);
    }
    if (options->mode == MODE_UPLOAD) {
        slot->in_fd = open(options->in, O_RDONLY | O_CLOEXEC);
        if (slot->in_fd < 0) {
            fprintf(stderr, "open %s: %s\n", options->in, strerror(errno));
            return false;
        }
        SET(CURLOPT_UPLOAD, 1L);
        SET(CURLOPT_CUSTOMREQUEST, "POST");
        SET(CURLOPT_INFILESIZE_LARGE, upload_size);
        SET(CURLOPT_READFUNCTION, on_read);
        SET(CURLOPT_READDATA, (void *)slot);
        SET(CURLOPT_SEEKFUNCTION, on_seek);
        SET(CURLOPT_SEEKDATA, (void *)slot);
        SET(CURLOPT_HTTPHEADER, headers);
    }
#undef SET
    if (code != CURLE_OK) {
        fprintf(stderr, "curl_easy_setopt: %s\n", curl_easy_strerror(code));
        return false;
    }
    return true;
}

static bool start_request(CURLM *multi, struct slot *slot, struct phase *phase) {
    const struct options *options = slot->options;
    slot->length = 0;
    slot->received = 0;
    slot->sent = 0;
    slot->write_failed = false;
    if (options->mode == MODE_DOWNLOAD) {
        slot->out_fd = open(options->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (slot->out_fd < 0) {
            fprintf(stderr, "open %s: %s\n", options->out, strerror(errno));
            return false;
        }
    }
    if (options->mode == MODE_UPLOAD && lseek(slot->in_fd, 0, SEEK_SET) < 0) {
        fprintf(stderr, "lseek %s: %s\n", options->in, strerror(errno));
        return false;
    }
    slot->start = monotonic_seconds();
    if (!phase->started) {
        phase->started = true;
        phase->first_start = slot->start;
    }
    phase->issued += 1;
    CURLMcode code = curl_multi_add_handle(multi, slot->easy);
    if (code != CURLM_OK) {
        fprintf(stderr, "curl_multi_add_handle: %s\n", curl_multi_strerror(code));
        return false;
    }
    return true;
}

static void finish_request(struct slot *slot, CURLcode result, struct phase *phase) {
    double end = monotonic_seconds();
    long status = 0;
    curl_easy_getinfo(slot->easy, CURLINFO_RESPONSE_CODE, &status);
    // -1 when the response announced no length (a chunked body, whose end libcurl checks itself).
    curl_off_t announced = -1;
    curl_easy_getinfo(slot->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
    bool complete = announced < 0 || (long long)announced == slot->received;
    if (slot->out_fd >= 0) {
        close(slot->out_fd);
        slot->out_fd = -1;
    }
    phase->last_end = end;
    bool ok = result == CURLE_OK && !slot->write_failed && status >= 200 && status < 300 && complete;
    if (ok) {
        phase->latencies[phase->ok] = (end - slot->start) * 1e6;
        phase->ok += 1;
        phase->bytes += slot->options->mode == MODE_UPLOAD ? slot->sent : slot->received;
        return;
    }
    phase->errors += 1;
    if (phase->errors <= 5) {
        if (result != CURLE_OK) {
            fprintf(stderr, "%s request failed: %s\n", phase->name, curl_easy_strerror(result));
        } else if (slot->write_failed) {
            fprintf(stderr, "%s request failed: could not store the body\n", phase->name);
        } else if (!complete) {
            fprintf(stderr, "%s request failed: %lld body bytes where Content-Length announced %lld\n", phase->name,
                    slot->received, (long long)announced);
        } else {
            fprintf(stderr, "%s request failed: unexpected HTTP status %ld\n", phase->name, status);
        }
    }
}

// Finishes every transfer libcurl reports done, and starts the slot's next request while the phase wants more.
// Returns the number started, or -1 on a local failure that stops the run (not on a failed request, which is
// counted).
static long finish_completed(CURLM *multi, struct phase *phase, long *active) {
    long started = 0;
    CURLMsg *message;
    int queued = 0;
    while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
        if (message->msg != CURLMSG_DONE) {
            continue;
        }
        CURL *easy = message->easy_handle;
        CURLcode result = message->data.result;
        struct slot *slot = NULL;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&slot);
        finish_request(slot, result, phase);
        curl_multi_remove_handle(multi, easy);
        *active -= 1;
        if (phase->issued < phase->target) {
            if (!start_request(multi, slot, phase)) {
                return -1;
            }
            *active += 1;
            started += 1;
        }
    }
    return started;
}

// Starts the first request of every worker. Returns the number started, or -1 on a local failure.
static long start_workers(CURLM *multi, struct slot *slots, long slot_count, struct phase *phase) {
    long active = 0;
    for (long i = 0; i < slot_count && phase->issued < phase->target; i++) {
        if (!start_request(multi, &slots[i], phase)) {
            return -1;
        }
        active += 1;
    }
    return active;
}

// MARK: - curl_multi_perform

// Runs `phase->target` requests, back to back on `slot_count` workers, with curl_multi_perform and
// curl_multi_poll. Returns false on a local failure that stops the run (not on a failed request, which is counted).
static bool run_phase_perform(CURLM *multi, struct slot *slots, long slot_count, struct phase *phase) {
    long active = start_workers(multi, slots, slot_count, phase);
    if (active < 0) {
        return false;
    }
    while (active > 0) {
        int running = 0;
        CURLMcode code = curl_multi_perform(multi, &running);
        if (code != CURLM_OK) {
            fprintf(stderr, "curl_multi_perform: %s\n", curl_multi_strerror(code));
            return false;
        }
        long restarted = finish_completed(multi, phase, &active);
        if (restarted < 0) {
            return false;
        }
        if (active > 0 && restarted == 0) {
            code = curl_multi_poll(multi, NULL, 0, 1000, NULL);
            if (code != CURLM_OK) {
                fprintf(stderr, "curl_multi_poll: %s\n", curl_multi_strerror(code));
                return false;
            }
        }
    }
    return true;
}

// MARK: - curl_multi_socket_action

/// The event loop of --socket-interface: the epoll set of libcurl's sockets and libcurl's one deadline.
struct socket_loop {
    CURLM *multi;
    int epoll_fd;
    bool has_deadline;
    long long deadline_ns; // CLOCK_MONOTONIC, when has_deadline
    bool failed;           // a socket libcurl named could not be watched
};

/// The most events one epoll_wait returns; the others wait for the next turn.
#define SOCKET_EVENTS 1024

static long long monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

// CURLMOPT_SOCKETFUNCTION: what libcurl wants to hear about `socket`. A socket in the set carries a non-NULL
// pointer assigned with curl_multi_assign, so the first call adds it and later ones change its events.
static int on_socket(CURL *easy, curl_socket_t socket, int what, void *userdata, void *socket_data) {
    (void)easy;
    struct socket_loop *loop = userdata;
    if (what == CURL_POLL_REMOVE) {
        // libcurl forgets the socket (and its assigned pointer) itself. A socket already closed has left the set.
        if (socket_data != NULL && epoll_ctl(loop->epoll_fd, EPOLL_CTL_DEL, socket, NULL) != 0 && errno != ENOENT &&
            errno != EBADF) {
            fprintf(stderr, "epoll_ctl(EPOLL_CTL_DEL, %d): %s\n", socket, strerror(errno));
            loop->failed = true;
            return -1;
        }
        return 0;
    }
    struct epoll_event event = {
        .events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u),
        .data.fd = socket,
    };
    int operation = socket_data == NULL ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
    if (epoll_ctl(loop->epoll_fd, operation, socket, &event) != 0) {
        // The set and libcurl's bookkeeping disagree (a descriptor number reused): take the set as it is.
        int retry = errno == EEXIST ? EPOLL_CTL_MOD : errno == ENOENT ? EPOLL_CTL_ADD : -1;
        if (retry < 0 || epoll_ctl(loop->epoll_fd, retry, socket, &event) != 0) {
            fprintf(stderr, "epoll_ctl(%d): %s\n", socket, strerror(errno));
            loop->failed = true;
            return -1;
        }
    }
    if (socket_data == NULL) {
        curl_multi_assign(loop->multi, socket, loop);
    }
    return 0;
}

// CURLMOPT_TIMERFUNCTION: when libcurl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT); -1 for never. The
// deadline is one-shot, as a timerfd's: once it has fired, libcurl sets the next one.
static int on_timer(CURLM *multi, long timeout_ms, void *userdata) {
    (void)multi;
    struct socket_loop *loop = userdata;
    if (timeout_ms < 0) {
        loop->has_deadline = false;
        return 0;
    }
    loop->has_deadline = true;
    loop->deadline_ns = monotonic_nanoseconds() + (long long)timeout_ms * 1000000LL;
    return 0;
}

static bool configure_socket_loop(struct socket_loop *loop, CURLM *multi) {
    *loop = (struct socket_loop){.multi = multi};
    loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (loop->epoll_fd < 0) {
        fprintf(stderr, "epoll_create1: %s\n", strerror(errno));
        return false;
    }
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    if (code == CURLM_OK) {
        code = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, (void *)loop);
    }
    if (code == CURLM_OK) {
        code = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
    }
    if (code == CURLM_OK) {
        code = curl_multi_setopt(multi, CURLMOPT_TIMERDATA, (void *)loop);
    }
    if (code != CURLM_OK) {
        fprintf(stderr, "curl_multi_setopt: %s\n", curl_multi_strerror(code));
        return false;
    }
    return true;
}

// The epoll_wait timeout: until the deadline, rounded up so that the wait does not end just before it, or a
// second without one.
static int socket_loop_timeout_ms(const struct socket_loop *loop) {
    if (!loop->has_deadline) {
        return 1000;
    }
    long long remaining = loop->deadline_ns - monotonic_nanoseconds();
    if (remaining <= 0) {
        return 0;
    }
    long long milliseconds = (remaining + 999999LL) / 1000000LL;
    return milliseconds > 1000 ? 1000 : (int)milliseconds;
}

static bool socket_action(struct socket_loop *loop, curl_socket_t socket, int events) {
    int running = 0;
    CURLMcode code = curl_multi_socket_action(loop->multi, socket, events, &running);
    // A socket libcurl has just let go of may still have an event in this turn's batch.
    if (code != CURLM_OK && code != CURLM_BAD_SOCKET) {
        fprintf(stderr, "curl_multi_socket_action: %s\n", curl_multi_strerror(code));
        return false;
    }
    return !loop->failed;
}

// Runs `phase->target` requests, back to back on `slot_count` workers, with curl_multi_socket_action on the
// sockets epoll reports ready and on libcurl's deadline. Returns false on a local failure that stops the run (not
// on a failed request, which is counted).
static bool run_phase_socket(struct socket_loop *loop, struct slot *slots, long slot_count, struct phase *phase) {
    static struct epoll_event events[SOCKET_EVENTS];
    long active = start_workers(loop->multi, slots, slot_count, phase);
    if (active < 0) {
        return false;
    }
    while (active > 0) {
        int ready = epoll_wait(loop->epoll_fd, events, SOCKET_EVENTS, socket_loop_timeout_ms(loop));
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            fprintf(stderr, "epoll_wait: %s\n", strerror(errno));
            return false;
        }
        for (int i = 0; i < ready; i++) {
            uint32_t what = events[i].events;
            // A hang-up or an error is read as readable, so that libcurl's read finds the end or the error.
            int action = ((what & (EPOLLIN | EPOLLHUP | EPOLLERR)) ? CURL_CSELECT_IN : 0) |
                         ((what & EPOLLOUT) ? CURL_CSELECT_OUT : 0) | ((what & EPOLLERR) ? CURL_CSELECT_ERR : 0);
            if (!socket_action(loop, events[i].data.fd, action)) {
                return false;
            }
        }
        if (loop->has_deadline && loop->deadline_ns <= monotonic_nanoseconds()) {
            loop->has_deadline = false;
            if (!socket_action(loop, CURL_SOCKET_TIMEOUT, 0)) {
                return false;
            }
        }
        // A request started here sets a deadline of now: the next epoll_wait returns at once and its timeout
        // action connects it.
        if (finish_completed(loop->multi, phase, &active) < 0) {
            return false;
        }
    }
    return true;
}

// Runs one phase the way the options ask.
static bool run_phase(CURLM *multi, struct socket_loop *loop, struct slot *slots, long slot_count,
                      struct phase *phase) {
    return loop != NULL ? run_phase_socket(loop, slots, slot_count, phase)
                        : run_phase_perform(multi, slots, slot_count, phase);
}

// MARK: - Main

int main(int argc, char **argv) {
    struct options options;
    if (!parse_options(argc, argv, &options)) {
        usage(stderr);
        return 64;
    }

    curl_off_t upload_size = 0;
    if (options.mode == MODE_UPLOAD) {
        struct stat status;
        if (stat(options.in, &status) != 0) {
            fprintf(stderr, "stat %s: %s\n", options.in, strerror(errno));
            return 1;
        }
        upload_size = (curl_off_t)status.st_size;
    }

    if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
        fprintf(stderr, "curl_global_init failed\n");
        return 1;
    }
    CURLM *multi = curl_multi_init();
    if (multi == NULL) {
        fprintf(stderr, "curl_multi_init failed\n");
        return 1;
    }
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, options.concurrency);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, options.concurrency);
    // Outlives the multi handle's cleanup, which reports the sockets it closes.
    struct socket_loop socket_loop;
    struct socket_loop *loop = NULL;
    if (options.socket_interface) {
        if (!configure_socket_loop(&socket_loop, multi)) {
            return 1;
        }
        loop = &socket_loop;
    }

    // --idle: the multi handle exists and its loop waits once, 0.2 s, with no transfer; the run that measures what
    // the process costs before its first request. The result line reports zero requests.
    if (options.idle) {
        if (loop != NULL) {
            struct epoll_event event;
            epoll_wait(loop->epoll_fd, &event, 1, 200);
        } else {
            curl_multi_poll(multi, NULL, 0, 200, NULL);
        }
        printf("RESULT peer=%s mode=%s requests=0 concurrency=%ld ok=0 errors=0 seconds=0.000000 rps=0.0 "
               "p50_us=0.0 p99_us=0.0 bytes=0 bytes_per_s=0 cpu_s=0.000000\n",
               options.label, mode_names[options.mode], options.concurrency);
        fflush(stdout);
        curl_multi_cleanup(multi);
        if (loop != NULL) {
            close(loop->epoll_fd);
        }
        curl_global_cleanup();
        return 0;
    }

    // An empty `Expect:` stops libcurl from waiting for `100 Continue` before sending a large body.
    struct curl_slist *headers = NULL;
    if (options.mode == MODE_UPLOAD) {
        headers = curl_slist_append(NULL, "Expect:");
    }

    long slot_count = options.concurrency;
    struct slot *slots = calloc((size_t)slot_count, sizeof *slots);
    long longest_phase = options.requests > options.warmup ? options.requests : options.warmup;
    double *latencies = calloc((size_t)longest_phase, sizeof *latencies);
    if (slots == NULL || latencies == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (long i = 0; i < slot_count; i++) {
        if (!configure_slot(&slots[i], &options, headers, upload_size)) {
            return 1;
        }
    }

    long warmup_errors = 0;
    if (options.warmup > 0) {
        struct phase warmup = {.name = "warm-up", .target = options.warmup, .latencies = latencies};
        if (!run_phase(multi, loop, slots, slot_count, &warmup)) {
            return 1;
        }
        warmup_errors = warmup.errors;
    }

    struct phase timed = {.name = "timed", .target = options.requests, .latencies = latencies};
    double cpu_before = cpu_seconds();
    if (!run_phase(multi, loop, slots, slot_count, &timed)) {
        return 1;
    }
    double cpu_after = cpu_seconds();

    qsort(timed.latencies, (size_t)timed.ok, sizeof *timed.latencies, compare_doubles);
    double seconds = timed.started ? timed.last_end - timed.first_start : 0;
    double rps = seconds > 0 ? (double)timed.ok / seconds : 0;
    double bytes_per_second = seconds > 0 ? (double)timed.bytes / seconds : 0;
    printf("RESULT peer=%s mode=%s requests=%ld concurrency=%ld ok=%ld errors=%ld seconds=%.6f rps=%.1f "
           "p50_us=%.1f p99_us=%.1f bytes=%lld bytes_per_s=%.0f cpu_s=%.6f\n",
           options.label, mode_names[options.mode], options.requests, options.concurrency, timed.ok, timed.errors,
           seconds, rps, percentile(50, timed.latencies, timed.ok), percentile(99, timed.latencies, timed.ok),
           timed.bytes, bytes_per_second, cpu_after - cpu_before);
    fflush(stdout);

    for (long i = 0; i < slot_count; i++) {
        curl_multi_remove_handle(multi, slots[i].easy);
        curl_easy_cleanup(slots[i].easy);
        free(slots[i].body);
        if (slots[i].in_fd >= 0) {
            close(slots[i].in_fd);
        }
    }
    curl_multi_cleanup(multi);
    if (loop != NULL) {
        close(loop->epoll_fd);
    }
    curl_slist_free_all(headers);
    free(slots);
    free(latencies);
    curl_global_cleanup();

    bool succeeded = timed.errors == 0 && warmup_errors == 0 && timed.ok == options.requests;
    return succeeded ? 0 : 1;
}
