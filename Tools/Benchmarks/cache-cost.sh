#!/usr/bin/env bash
#
# What Parley's HTTP cache saves and what it costs: `parley-bench-cache` against a private nginx
# serving one small file over loopback. It prints one Markdown table per round: the latency of a
# plain GET one at a time against a cache hit (memory and disk storage); the throughput of 64
# concurrent GETs that all miss, without a cache, through a middleware that does nothing, and
# through a cache that stores every answer; the same misses one at a time over the engine; and
# one at a time against an in-process transport, which leaves the cache's own work. Each line has
# the client's CPU time per request.
#
#   swift build -c release --package-path Tools/Benchmarks --product parley-bench-cache
#   Tools/Benchmarks/cache-cost.sh [--counts] [ROUNDS] [SIZE] [BODY] [BENCH] [BASELINE]
#
# ROUNDS is 3 by default, SIZE the file's size in bytes (4096), BODY `json` (an API's answer:
# compressible text, the default) or `random` (bytes that do not deflate), BENCH
# Tools/Benchmarks/.build/release/parley-bench-cache. BASELINE, another build of the benchmark
# (an earlier version of the library), runs in the same rounds, before BENCH in odd rounds and
# after it in even ones, so that the two are compared side by side on the same machine state.
#
# Timings on a shared machine move by tens of percent; with --counts, the misses one at a time
# are then counted in what does not move with load, per request: instructions under valgrind's
# callgrind (user space, every thread) and heap allocations (a preloaded malloc that counts),
# each from two runs (2,000 and 12,000 in-process requests, 1,000 and 6,000 over the engine), so
# that the start-up cancels out.
#
# nginx's files, prefix and the disk cache live in /dev/shm when it exists, so the disk does not
# dilute the comparison (pass a real disk folder to the binary with --folder to measure one).
# Needs nginx, curl and python3; --counts also valgrind and cc.

set -euo pipefail

# shellcheck source=private-nginx.sh
. "$(dirname "${BASH_SOURCE[0]}")/private-nginx.sh"
# shellcheck source=valgrind-shim.sh
. "$(dirname "${BASH_SOURCE[0]}")/valgrind-shim.sh"

counts=false
if [[ ${1-} == --counts ]]; then
    counts=true
    shift
fi
rounds=${1:-3}
size=${2:-4096}
body=${3:-json}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$(realpath "${4:-$here/.build/release/parley-bench-cache}")"
[[ -x $bench ]] || {
    echo "$bench is not built: swift build -c release --package-path Tools/Benchmarks --product parley-bench-cache" >&2
    exit 2
}
baseline=""
if [[ -n ${5-} ]]; then
    baseline="$(realpath "$5")"
    [[ -x $baseline ]] || { echo "$baseline is not an executable" >&2; exit 2; }
fi
if $counts && ! command -v valgrind >/dev/null; then
    echo "valgrind is missing: no counts (apt-get install valgrind)" >&2
    counts=false
fi

base=/dev/shm
[[ -d $base ]] || base=${TMPDIR:-/tmp}
work="$(mktemp -d "$base/parley-cache-cost.XXXXXX")"
cleanup() {
    stop_private_nginx "$work"
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/www"
case $body in
random) head -c "$size" /dev/urandom >"$work/www/small.bin" ;;
json)
    python3 -c '
import json, random, sys
random.seed(7)
items, text = [], "[]"
while len(text) < int(sys.argv[1]):
    items.append({"id": len(items), "city": random.choice(["Paris", "Lyon", "Nice", "Lille"]),
                  "temperature": round(random.uniform(-5, 35), 1), "updated": "2026-11-22T03:00:00Z"})
    text = json.dumps({"code": 200, "message": "ok", "data": items})
sys.stdout.write(text[: int(sys.argv[1])])
' "$size" >"$work/www/small.bin"
    ;;
*) echo "BODY is json or random, not $body" >&2; exit 2 ;;
esac
# 64 workers may open 64 connections, beside the listening socket.
start_private_nginx "$work" /small.bin "location / { root $work/www; }" 256
url="http://127.0.0.1:$port/small.bin"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"

for ((round = 1; round <= rounds; round++)); do
    binaries=("$bench")
    if [[ -n $baseline ]]; then
        if ((round % 2)); then binaries=("$baseline" "$bench"); else binaries=("$bench" "$baseline"); fi
    fi
    for binary in "${binaries[@]}"; do
        echo
        echo "Round $round of $rounds, $size-byte $body body, $binary:"
        echo
        rm -rf "$work/cache-$round"
        "$binary" --url "$url" --folder "$work/cache-$round"
    done
done

$counts || exit 0

# MARK: - Counts

# Valgrind 3.19 (Debian 12's) writes into the signal mask a program passes to sigsuspend, and
# dies when the mask is read-only, as libdispatch's is (a Swift program whose async main suspends
# ends its main thread there): the preloaded sigsuspend of valgrind-shim.c passes a copy. The
# counting malloc calls glibc's own allocator and prints its count when the process exits.
cat >"$work/malloc-count.c" <<'C'
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static atomic_long count;
static void counted(void) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); }
void *malloc(size_t n) { counted(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { counted(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { if (!p) counted(); return __libc_realloc(p, n); }
void *aligned_alloc(size_t a, size_t n) { counted(); return __libc_memalign(a, n); }
void *memalign(size_t a, size_t n) { counted(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    counted();
    void *p = __libc_memalign(a, n);
    if (!p) return 12;
    *out = p;
    return 0;
}
__attribute__((destructor)) static void report(void) {
    char line[64];
    int length = snprintf(line, sizeof line, "mallocs %ld\n", atomic_load(&count));
    write(2, line, length);
}
C
shim=$(build_valgrind_shim "$work")
cc -shared -fPIC -O2 -o "$work/malloc-count.so" "$work/malloc-count.c"

# count BINARY SCENARIO OPTION REQUESTS: "instructions allocations" of one run, with OPTION (the
# number of requests of the scenario's kind) set to REQUESTS.
count() {
    local log="$work/count.log"
    rm -rf "$work/cache-counts"
    LD_PRELOAD="$shim" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$1" --url "$url" --folder "$work/cache-counts" --only "$2" "$3" "$4" >"$log" 2>&1
    local instructions
    instructions=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$log")
    rm -rf "$work/cache-counts"
    LD_PRELOAD="$work/malloc-count.so" \
        "$1" --url "$url" --folder "$work/cache-counts" --only "$2" "$3" "$4" >"$log" 2>&1
    echo "$instructions $(sed -n 's/^mallocs \([0-9]*\)$/\1/p' "$log")"
}

# row LABEL SCENARIO OPTION SMALL LARGE: the table row of one scenario, per request from the
# difference of two runs.
row() {
    local small_instructions small_allocations large_instructions large_allocations
    read -r small_instructions small_allocations < <(count "$binary" "$2" "$3" "$4")
    read -r large_instructions large_allocations < <(count "$binary" "$2" "$3" "$5")
    [[ -n $small_instructions && -n $large_instructions ]] || return 0  # not in this build
    awk -v b="$1" -v s="$2" -v n="$(($5 - $4))" \
        -v i1="$small_instructions" -v i2="$large_instructions" -v a1="$small_allocations" -v a2="$large_allocations" \
        'BEGIN {printf "| %s | %s | %.0f | %.1f |\n", b, s, (i2 - i1) / n, (a2 - a1) / n}'
}

echo
echo "| Build | Misses, one at a time | Instructions/request | Allocations/request |"
echo "|---|---|--:|--:|"
for binary in ${baseline:+"$baseline"} "$bench"; do
    label="this build"
    [[ $binary == "$baseline" ]] && label="baseline"
    for scenario in "no cache" "a middleware that does nothing" "memory at its 10 MiB cap" "memory (each stored)" \
        "disk (each stored)"; do
        row "$label" "in-process misses, $scenario" --in-process-requests 2000 12000
    done
    # Over the engine and nginx: the client's instructions per request, without a cache and
    # through one (nginx's are not counted).
    for scenario in "no cache" "memory at its 10 MiB cap (each stored, one evicted)" "disk (each stored)"; do
        row "$label" "misses, $scenario, one at a time" --sequential-requests 1000 6000
    done
done
