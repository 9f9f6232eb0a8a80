#!/usr/bin/env bash
#
# What verifying a download's SHA-256 costs. Each `parley-fetch` binary given (several, to
# compare builds) downloads the same 1 GiB of random bytes with and without `--sha256`, in
# interleaved rounds, from a private nginx at full loopback speed and limited to 400 MB/s; the
# median throughput of each is printed with the ratio digest / no digest.
#
#   swift build -c release --package-path Tools/Fetch
#   Tools/Benchmarks/digest-cost.sh 9 Tools/Fetch/.build/release/parley-fetch [OTHER-FETCH...]
#
# Everything lives in /dev/shm (the file nginx serves, the download, nginx's prefix), so the
# disk, and the download's fsyncs (no-ops on tmpfs), do not dilute the difference. nginx is
# started on a free port and stopped by its process id. Needs nginx, sha256sum and curl.

set -euo pipefail

# shellcheck source=private-nginx.sh
. "$(dirname "${BASH_SOURCE[0]}")/private-nginx.sh"

(($# >= 2)) || { echo "usage: $0 ROUNDS FETCH [FETCH...]" >&2; exit 2; }
rounds=$1
shift
binaries=("$@")

work="$(mktemp -d /dev/shm/parley-digest.XXXXXX)"
cleanup() {
    stop_private_nginx "$work"
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/www"
head -c $((1 << 30)) /dev/urandom >"$work/www/1g.bin"
digest=$(sha256sum "$work/www/1g.bin" | cut -c1-64)
start_private_nginx "$work" /full/1g.bin "location /full/ { alias $work/www/; } location /limited/ { alias $work/www/; limit_rate 400m; }"
echo "1 GiB of random bytes, sha256 $digest, $rounds rounds" >&2

for speed in full limited; do
    url="http://127.0.0.1:$port/$speed/1g.bin"
    declare -A seconds=()
    for ((round = 1; round <= rounds; round++)); do
        for index in "${!binaries[@]}"; do
            for mode in plain digest; do
                arguments=("$url" --output "$work/file" --quiet)
                [[ $mode == digest ]] && arguments+=(--sha256 "$digest")
                start=$(date +%s.%N)
                "${binaries[$index]}" "${arguments[@]}"
                end=$(date +%s.%N)
                rm -f "$work/file"
                seconds[$index.$mode]+="$(awk -v a="$end" -v b="$start" 'BEGIN {print a - b}') "
            done
        done
    done
    printf '\n%s speed\n\n| binary | no digest (MB/s) | with digest (MB/s) | ratio |\n|---|---|---|---|\n' "$speed"
    for index in "${!binaries[@]}"; do
        plain=$(echo "${seconds[$index.plain]}" | median)
        with=$(echo "${seconds[$index.digest]}" | median)
        awk -v name="${binaries[$index]}" -v size=$((1 << 30)) -v plain="$plain" -v with="$with" \
            'BEGIN {printf "| %s | %.0f | %.0f | %.3f |\n", name, size / plain / 1e6, size / with / 1e6, plain / with}'
    done
    unset seconds
done
