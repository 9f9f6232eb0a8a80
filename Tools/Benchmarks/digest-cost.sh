#!/usr/bin/env bash
#
# What verifying a download's SHA-256 costs: one `parley-fetch` binary (or several, to compare
# builds) downloads the same file from the same server with and without `--sha256`, in
# interleaved rounds, and the median throughput of each is printed with the ratio
# digest / no digest.
#
#   Tools/Benchmarks/digest-cost.sh URL ROUNDS FETCH [FETCH...]
#
# URL is a large file (docs/BENCHMARKS.md uses 1 GiB of random bytes from the test nginx).
# The file goes to /dev/shm, so the disk (and the download's fsyncs, no-ops on tmpfs) does not
# dilute the difference. The expected digest is computed once with sha256sum.

set -euo pipefail

(($# >= 3)) || { echo "usage: $0 URL ROUNDS FETCH [FETCH...]" >&2; exit 2; }
url=$1 rounds=$2
shift 2
binaries=("$@")

work="$(mktemp -d /dev/shm/parley-digest.XXXXXX)"
trap 'rm -rf "$work"' EXIT

curl -sf -o "$work/reference" "$url"
size=$(stat -c %s "$work/reference")
digest=$(sha256sum "$work/reference" | cut -c1-64)
rm -f "$work/reference"
echo "file: $url, $size bytes, sha256 $digest; $rounds rounds" >&2

declare -A seconds
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

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
printf '| binary | no digest (MB/s) | with digest (MB/s) | ratio |\n|---|---|---|---|\n'
for index in "${!binaries[@]}"; do
    plain=$(echo "${seconds[$index.plain]}" | median)
    with=$(echo "${seconds[$index.digest]}" | median)
    awk -v name="${binaries[$index]}" -v size="$size" -v plain="$plain" -v with="$with" \
        'BEGIN {printf "| %s | %.0f | %.0f | %.3f |\n", name, size / plain / 1e6, size / with / 1e6, plain / with}'
done
