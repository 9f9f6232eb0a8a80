#!/usr/bin/env bash
#
# Builds the fuzz targets (Tests/Fuzz) with libFuzzer and AddressSanitizer, then runs each in
# turn for a set time. Fails on any crash, broken invariant, hang, out-of-memory or sanitizer
# report.
#
#   Tools/scripts/fuzz.sh                                   # every target, 120 s each
#   FUZZ_SECONDS=5 Tools/scripts/fuzz.sh                    # the short run of `make test`
#   FUZZ_TARGETS='content-range envelope' Tools/scripts/fuzz.sh
#
# FUZZ_SCRATCH (.build/fuzz) is the build's scratch folder, kept apart from the ordinary build
# because every module is instrumented, and FUZZ_CONFIGURATION (release) its configuration.
# Each target starts from its seeds in Tests/Fuzz/Corpus/TARGET and adds what it finds to
# FUZZ_SCRATCH/corpus/TARGET, never to the checkout (copy an input worth keeping into the seeds
# by hand). A failing input is saved as FUZZ_SCRATCH/artifacts/TARGET/crash-… (or timeout-…,
# oom-…); replay it with the ordinary build's `parley-fuzz TARGET FILE`, or under the
# sanitizers with `PARLEY_FUZZ_TARGET=TARGET FUZZ_SCRATCH/release/parley-fuzz FILE`.
# FUZZ_TIMEOUT (10 s) is the most one input may take. The log of each run is
# FUZZ_SCRATCH/logs/TARGET.log; the last line printed lists the executions each target ran
# (libFuzzer's stat::number_of_executed_units).

set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"

swift="${SWIFT:-swift}"
seconds="${FUZZ_SECONDS:-120}"
timeout="${FUZZ_TIMEOUT:-10}"
scratch="${FUZZ_SCRATCH:-.build/fuzz}"
# Optimised by default: the targets run several times as many inputs a second as in a debug
# build, and the sanitizers and libFuzzer's coverage work the same.
configuration="${FUZZ_CONFIGURATION:-release}"
# The gate's flags (see the Makefile), so the fuzz build is as strict as the others.
read -r -a flags <<<"${SWIFT_FLAGS:---explicit-target-dependency-import-check error -Xswiftc -warnings-as-errors}"

# The coverage libFuzzer steers by is asked for by name: SwiftPM passes `-sanitize=fuzzer
# -sanitize=address` as two options, and swiftc 6.3 then instruments for coverage only when the
# last of them names the fuzzer, so without this libFuzzer would mutate blindly ("Is the code
# instrumented for coverage?").
"$swift" build -c "$configuration" --product parley-fuzz "${flags[@]}" --sanitize=fuzzer --sanitize=address \
    -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
    -Xswiftc -DPARLEY_FUZZ --scratch-path "$scratch"
binary="$scratch/$configuration/parley-fuzz"

declare -A lengths=()
all=()
while read -r name length _; do
    lengths[$name]=$length
    all+=("$name")
done < <(PARLEY_FUZZ_TARGET=list "$binary")
read -r -a targets <<<"${FUZZ_TARGETS:-${all[*]}}"

summary=()
for target in "${targets[@]}"; do
    [[ -n "${lengths[$target]:-}" ]] || { echo "fuzz.sh: no target '$target' (targets: ${all[*]})" >&2; exit 2; }
    seeds="Tests/Fuzz/Corpus/$target"
    corpus="$scratch/corpus/$target"
    artifacts="$scratch/artifacts/$target"
    log="$scratch/logs/$target.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    echo "fuzz.sh: $target for ${seconds}s (-max_len=${lengths[$target]})"
    status=0
    # A broken invariant is a `fatalError`: with Swift's backtracer off, it is the plain trap
    # libFuzzer reports as a deadly signal, saving the input.
    PARLEY_FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no "$binary" "$corpus" "$seeds" \
        -max_total_time="$seconds" -max_len="${lengths[$target]}" -timeout="$timeout" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    summary+=("$target ${executions:-?}")
    if ((status != 0)) || grep -qE '^==[0-9]+==ERROR: |^SUMMARY: (Address|Leak)Sanitizer|invariant broken' "$log"; then
        tail -n 40 "$log" >&2
        echo "fuzz.sh: $target failed (exit $status); the input is in $artifacts/, the log in $log" >&2
        exit 1
    fi
done
printf 'fuzz.sh: executions per target:'
printf ' %s' "${summary[@]/ /=}"
printf '\n'
