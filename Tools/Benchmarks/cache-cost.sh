#!/usr/bin/env bash
#
# What Parley's HTTP cache saves and what it costs: `parley-bench-cache` against a private nginx
# serving one small file over loopback. It prints one Markdown table per round: the latency of a
# plain GET one at a time against a cache hit (memory and disk storage), and the throughput of
# 64 concurrent GETs that all miss, without a cache and through a cache that stores every answer,
# each with the client's CPU time per request.
#
#   swift build -c release --package-path Tools/Benchmarks --product parley-bench-cache
#   Tools/Benchmarks/cache-cost.sh [ROUNDS] [SIZE] [BODY] [BENCH]
#
# ROUNDS is 3 by default, SIZE the file's size in bytes (4096), BODY `json` (an API's answer:
# compressible text, the default) or `random` (bytes that do not deflate), BENCH
# Tools/Benchmarks/.build/release/parley-bench-cache. nginx's files, prefix and the disk cache
# live in /dev/shm when it exists, so the disk does not dilute the comparison (pass a real disk
# folder to the binary with --folder to measure one). Needs nginx, curl and python3.

set -euo pipefail

# shellcheck source=private-nginx.sh
. "$(dirname "${BASH_SOURCE[0]}")/private-nginx.sh"

rounds=${1:-3}
size=${2:-4096}
body=${3:-json}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$(realpath "${4:-$here/.build/release/parley-bench-cache}")"
[[ -x $bench ]] || {
    echo "$bench is not built: swift build -c release --package-path Tools/Benchmarks --product parley-bench-cache" >&2
    exit 2
}

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
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"

for ((round = 1; round <= rounds; round++)); do
    echo
    echo "Round $round of $rounds, $size-byte $body body:"
    echo
    "$bench" --url "http://127.0.0.1:$port/small.bin" --folder "$work/cache-$round"
done
