// Counts a process's heap allocations: preload it, and it writes its totals to the file named
// by MALLOC_COUNT_FILE when the process exits.
//
//   cc -shared -fPIC -O2 -o malloc-count.so Tools/Benchmarks/malloc-count.c
//   MALLOC_COUNT_FILE=counts.txt LD_PRELOAD=$PWD/malloc-count.so parley-bench --url ...
//
// Every entry point that hands out heap memory is counted, each on its own line of the file
// (`malloc N`, `calloc N`, ...), then `allocations N`, their sum, and `free N`. A realloc counts
// once whatever it does (grows or shrinks a block, moves it, or allocates when given NULL): each
// is a trip into the allocator. Each call goes on to glibc's own allocator (`__libc_malloc` and
// its siblings), so nothing is looked up with dlsym and no call can recurse. The counters are
// atomic, as every thread allocates; the totals are written by a destructor, which exit() runs
// (returning from main included), so a process that ends in _exit or a signal writes nothing.
// Without MALLOC_COUNT_FILE the library only counts.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

enum counter { MALLOC, CALLOC, REALLOC, POSIX_MEMALIGN, ALIGNED_ALLOC, MEMALIGN, FREE, COUNTERS };

static const char *const names[COUNTERS] = {
    "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "free",
};

static atomic_ulong counts[COUNTERS];

static inline void count(enum counter counter) {
    atomic_fetch_add_explicit(&counts[counter], 1, memory_order_relaxed);
}

void *malloc(size_t size) {
    count(MALLOC);
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count(CALLOC);
    return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
    count(REALLOC);
    return __libc_realloc(pointer, size);
}

static int is_power_of_two(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

int posix_memalign(void **result, size_t alignment, size_t size) {
    count(POSIX_MEMALIGN);
    if (!is_power_of_two(alignment) || alignment % sizeof(void *) != 0) {
        return EINVAL;
    }
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    count(ALIGNED_ALLOC);
    if (!is_power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    count(MEMALIGN);
    return __libc_memalign(alignment, size);
}

void free(void *pointer) {
    if (pointer != NULL) {
        count(FREE);
    }
    __libc_free(pointer);
}

// Formats without stdio, which may allocate: the destructor runs while other threads may still
// be allocating, and a count it caused itself would be noise.
static size_t append(char *buffer, size_t at, const char *text) {
    while (*text != '\0') {
        buffer[at++] = *text++;
    }
    return at;
}

static size_t append_number(char *buffer, size_t at, unsigned long value) {
    char digits[24];
    size_t length = 0;
    do {
        digits[length++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (length > 0) {
        buffer[at++] = digits[--length];
    }
    return at;
}

__attribute__((destructor)) static void write_counts(void) {
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (path == NULL || *path == '\0') {
        return;
    }
    unsigned long values[COUNTERS];
    unsigned long allocations = 0;
    for (int counter = 0; counter < COUNTERS; counter++) {
        values[counter] = atomic_load_explicit(&counts[counter], memory_order_relaxed);
        if (counter != FREE) {
            allocations += values[counter];
        }
    }
    char buffer[512];
    size_t length = 0;
    for (int counter = 0; counter < COUNTERS; counter++) {
        if (counter == FREE) {
            length = append(buffer, length, "allocations ");
            length = append_number(buffer, length, allocations);
            length = append(buffer, length, "\n");
        }
        length = append(buffer, length, names[counter]);
        length = append(buffer, length, " ");
        length = append_number(buffer, length, values[counter]);
        length = append(buffer, length, "\n");
    }
    int file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (file < 0) {
        return;
    }
    size_t written = 0;
    while (written < length) {
        ssize_t result = write(file, buffer + written, length - written);
        if (result < 0 && errno == EINTR) {
            continue;
        }
        if (result <= 0) {
            break;
        }
        written += (size_t)result;
    }
    close(file);
}
