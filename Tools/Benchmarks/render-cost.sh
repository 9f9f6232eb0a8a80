#!/usr/bin/env bash
#
# What drawing the progress bar costs a download. `parley-fetch` downloads the same 1 GiB of
# random bytes from a private nginx, in a real pseudo-terminal (under `script`, 100 columns),
# once drawing its bar (redrawn up to 20 times a second) and once with `--quiet`, in alternating
# rounds; the per-round times, the medians and the ratio of throughput with the bar to
# throughput without are printed, with the peak RSS and CPU of both (GNU time -v) and the bytes
# and redraws the bar wrote to the terminal.
#
# Timings on a shared machine move by tens of percent, so the same comparison is then counted
# in instructions, which do not: both runs of a 64 MiB and of the 1 GiB download under
# valgrind's callgrind (skipped with --no-callgrind or when valgrind is missing), with the
# presenter's own share.
#
#   swift build -c release --package-path Tools/Fetch
#   Tools/Benchmarks/render-cost.sh [--no-callgrind] [ROUNDS] [FETCH]
#
# ROUNDS is 7 by default, FETCH Tools/Fetch/.build/release/parley-fetch. Everything lives in
# /dev/shm (the files nginx serves, the downloads, nginx's prefix), so the disk does not dilute
# the difference. nginx is started on a free port and stopped by its process id. Needs nginx,
# curl, script (util-linux), GNU time, python3, and for the instruction counts valgrind and cc.

set -euo pipefail

# shellcheck source=private-nginx.sh
. "$(dirname "${BASH_SOURCE[0]}")/private-nginx.sh"
# shellcheck source=valgrind-shim.sh
. "$(dirname "${BASH_SOURCE[0]}")/valgrind-shim.sh"

callgrind=true
if [[ ${1-} == --no-callgrind ]]; then
    callgrind=false
    shift
fi
rounds=${1:-7}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fetch="$(realpath "${2:-$here/../Fetch/.build/release/parley-fetch}")"
[[ -x $fetch ]] || { echo "$fetch is not built: swift build -c release --package-path Tools/Fetch" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "GNU time is missing: apt-get install time" >&2; exit 2; }
if $callgrind && ! command -v valgrind >/dev/null; then
    echo "valgrind is missing: no instruction counts (apt-get install valgrind)" >&2
    callgrind=false
fi

work="$(mktemp -d /dev/shm/parley-render.XXXXXX)"
cleanup() {
    stop_private_nginx "$work"
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/www"
head -c $((1 << 30)) /dev/urandom >"$work/www/1g.bin"
head -c $((64 << 20)) "$work/www/1g.bin" >"$work/www/64m.bin"
start_private_nginx "$work" /1g.bin "location / { root $work/www; }"

# Runs its arguments in the terminal `script` makes, sized 100 × 30, and records in $1 the
# nanoseconds the command took (the terminal's own start-up left out).
cat >"$work/in-terminal.sh" <<'EOF'
#!/bin/sh
stty cols 100 rows 30
record=$1
shift
start=$(date +%s%N)
"$@"
status=$?
end=$(date +%s%N)
echo $((end - start)) >"$record"
exit $status
EOF
chmod +x "$work/in-terminal.sh"

# in_terminal LOG COMMAND...: runs COMMAND in a new pseudo-terminal; LOG gets what it wrote.
in_terminal() {
    local log=$1
    shift
    script -q -E never --log-out "$log" -c "$(printf '%q ' "$work/in-terminal.sh" "$work/ns" "$@")" \
        </dev/null >/dev/null
}

# terminal_stats LOG: the bytes the program wrote to the terminal (script's header and footer
# lines left out) and the number of redraws (rows written with an erase-to-end-of-line).
terminal_stats() {
    python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
# script adds a newline of its own before its footer line.
body = data[data.index(b"\n") + 1 : data.rindex(b"\nScript done on")]
print(len(body), body.count(b"\x1b[K"))
PY
}

# time_field FILE NAME: a field of GNU time -v's report.
time_field() { sed -n "s/^[[:space:]]*$2: //p" "$1"; }


size=$((1 << 30))
url="http://127.0.0.1:$port/1g.bin"
echo "parley-fetch: $fetch" >&2
echo "machine: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start" >&2
echo "1 GiB of random bytes from nginx on loopback to /dev/shm, $rounds rounds, in a 100-column terminal" >&2
printf '\n| round | mode | seconds | MB/s | CPU s (user+sys) | peak RSS MiB | bytes to terminal | redraws | redraws/s |\n'
printf '|---|---|--:|--:|--:|--:|--:|--:|--:|\n'
# One untimed run of each first: the first download after the files were made is up to three
# times slower than the rest, in either mode.
for mode in bar quiet; do
    arguments=("$url" --output "$work/file")
    [[ $mode == quiet ]] && arguments+=(--quiet)
    in_terminal "$work/tty.log" "$fetch" "${arguments[@]}"
    rm -f "$work/file"
done

declare -A seconds=() rss=() cpu=() bytes=() redraws=()
for ((round = 1; round <= rounds; round++)); do
    # Alternate which runs first, so neither always meets a warmer or colder machine.
    if ((round % 2)); then modes=(bar quiet); else modes=(quiet bar); fi
    for mode in "${modes[@]}"; do
        arguments=("$url" --output "$work/file")
        [[ $mode == quiet ]] && arguments+=(--quiet)
        in_terminal "$work/tty.log" /usr/bin/time -v -o "$work/time.txt" "$fetch" "${arguments[@]}"
        [[ $(stat -c %s "$work/file") == "$size" ]] || { echo "the $mode download is incomplete" >&2; exit 1; }
        rm -f "$work/file"
        run_seconds=$(awk -v ns="$(cat "$work/ns")" 'BEGIN {printf "%.3f", ns / 1e9}')
        run_rss=$(awk -v kb="$(time_field "$work/time.txt" 'Maximum resident set size (kbytes)')" 'BEGIN {printf "%.1f", kb / 1024}')
        run_cpu=$(awk -v u="$(time_field "$work/time.txt" 'User time (seconds)')" \
            -v s="$(time_field "$work/time.txt" 'System time (seconds)')" 'BEGIN {printf "%.2f+%.2f", u, s}')
        read -r run_bytes run_redraws < <(terminal_stats "$work/tty.log")
        seconds[$mode]+="$run_seconds "
        rss[$mode]+="$run_rss "
        cpu[$mode]+="$(awk -v c="$run_cpu" 'BEGIN {split(c, p, "+"); print p[1] + p[2]}') "
        bytes[$mode]+="$run_bytes "
        redraws[$mode]+="$run_redraws "
        awk -v r="$round" -v m="$mode" -v s="$run_seconds" -v size="$size" -v c="$run_cpu" -v rss="$run_rss" \
            -v b="$run_bytes" -v d="$run_redraws" \
            'BEGIN {printf "| %d | %s | %.3f | %.0f | %s | %.1f | %d | %d | %.1f |\n", r, m, s, size / s / 1e6, c, rss, b, d, d / s}'
    done
done

bar=$(echo "${seconds[bar]}" | median)
quiet=$(echo "${seconds[quiet]}" | median)
printf '\n| mode | median s | median MB/s | median CPU s | median peak RSS MiB | median bytes to terminal | median redraws |\n'
printf '|---|--:|--:|--:|--:|--:|--:|\n'
for mode in bar quiet; do
    awk -v m="$mode" -v s="$(echo "${seconds[$mode]}" | median)" -v size="$size" \
        -v c="$(echo "${cpu[$mode]}" | median)" -v rss="$(echo "${rss[$mode]}" | median)" \
        -v b="$(echo "${bytes[$mode]}" | median)" -v d="$(echo "${redraws[$mode]}" | median)" \
        'BEGIN {printf "| %s | %.3f | %.0f | %.2f | %.1f | %d | %d |\n", m, s, size / s / 1e6, c, rss, b, d}'
done
# Throughput is size / time, so the ratio of throughputs is the inverse ratio of times.
awk -v bar="$bar" -v quiet="$quiet" 'BEGIN {printf "\nthroughput with the bar / without: %.3f (target >= 0.97)\n", quiet / bar}'

$callgrind || exit 0

# MARK: - Instructions

# callgrind counts the instructions of every thread in user space (not the kernel's, where most
# of a download's time goes). A download runs several times slower under it, so the timer fires
# more often per byte than at full speed: the counts per second of the run are printed apart,
# and the presenter's functions inclusively. 64 MiB, as a quick check, and the whole 1 GiB.
#
# Valgrind 3.19 (Debian 12's) writes into the signal mask a program passes to sigsuspend, and
# dies when the mask is read-only, as libdispatch's is (a Swift program whose async main suspends
# ends its main thread there): the preloaded sigsuspend of valgrind-shim.c passes a copy.
shim=$(build_valgrind_shim "$work") ||
    { echo "could not build the sigsuspend shim with cc: no instruction counts" >&2; exit 0; }
echo >&2
echo "under valgrind --tool=callgrind (the 1 GiB runs take a minute or two)" >&2
for file in 64m 1g; do
    for mode in bar quiet; do
        arguments=("http://127.0.0.1:$port/$file.bin" --output "$work/file")
        [[ $mode == quiet ]] && arguments+=(--quiet)
        in_terminal "$work/tty.log" env LD_PRELOAD="$shim" \
            valgrind --tool=callgrind --log-file="$work/valgrind.$file.$mode.log" \
            --callgrind-out-file="$work/callgrind.$file.$mode.out" "$fetch" "${arguments[@]}"
        cmp -s "$work/file" "$work/www/$file.bin" || { echo "the $file $mode download is not the file" >&2; exit 1; }
        rm -f "$work/file"
        read -r run_bytes run_redraws < <(terminal_stats "$work/tty.log")
        echo "$file $mode $(cat "$work/ns") $run_redraws $run_bytes" >>"$work/callgrind-runs.txt"
    done
done

# For each run: its total, the part in memcpy and memmove (which copy the body, and whose count
# moves by a few percent from run to run with the sizes of the chunks: valgrind counts a
# `rep movsb` per byte), the rest, and the presenter's own inclusive counts. The timer runs 20
# times a second whatever the speed, so its count per second of the run is what the bar costs
# a download of any size; present(_:) takes the progress events (20 a second too).
demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }
for run in "$work"/callgrind.*.out; do
    callgrind_annotate --threshold=100 "$run" 2>/dev/null | demangle >"${run%.out}.self.txt"
    callgrind_annotate --inclusive=yes --threshold=100 "$run" 2>/dev/null | demangle >"${run%.out}.inclusive.txt"
done
python3 - "$work" <<'PY'
import re, sys
work = sys.argv[1]
line_pattern = re.compile(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)")
presenter = [
    ("ConsolePresenter.timerFired()", "the timer: a redraw, or nothing when no row changed"),
    ("ConsoleLayout.liveLines(for:width:tick:)", "laying out the rows (in the timer)"),
    ("StyledText.truncated(toColumns:)", "cutting a row to the width (in the layout)"),
    ("ConsoleOutput.writeAll(", "writing to the terminal (in the timer)"),
    ("ConsolePresenter.present(", "taking progress events"),
    ("TerminalRestoration.register(", "installing the signal handlers, once"),
]

def counts(path, inclusive):
    found = {}
    for line in open(path):
        match = line_pattern.match(line)
        if not match:
            continue
        count, name = int(match.group(1).replace(",", "")), match.group(2)
        if name.startswith("=>") or "closure" in name:
            continue
        if inclusive:
            for key, _ in presenter:
                if key in name:
                    found[key] = max(found.get(key, 0), count)
        elif "PROGRAM TOTALS" in name:
            found["total"] = count
        elif re.search(r"mem(cpy|move)", name):
            found["copy"] = found.get("copy", 0) + count
    return found

runs = {}
for line in open(f"{work}/callgrind-runs.txt"):
    file, mode, ns, redraws, written = line.split()
    runs[file, mode] = dict(counts(f"{work}/callgrind.{file}.{mode}.self.txt", False),
                            **counts(f"{work}/callgrind.{file}.{mode}.inclusive.txt", True),
                            seconds=int(ns) / 1e9, redraws=int(redraws), written=int(written))

print("\n| file | mode | instructions (Ir) | in memcpy/memmove | the rest | seconds | redraws | bytes to terminal |")
print("|---|---|--:|--:|--:|--:|--:|--:|")
for (file, mode), run in runs.items():
    rest = run["total"] - run.get("copy", 0)
    print(f"| {file} | {mode} | {run['total']:,} | {run.get('copy', 0):,} | {rest:,} | {run['seconds']:.1f} "
          f"| {run['redraws']} | {run['written']} |")
print()
for file in ("64m", "1g"):
    bar, quiet = runs[file, "bar"], runs[file, "quiet"]
    own = sum(bar.get(key, 0) for key in ("ConsolePresenter.timerFired()", "ConsolePresenter.present(",
                                           "TerminalRestoration.register("))
    extra = bar["total"] - quiet["total"]
    extra_rest = extra - (bar.get("copy", 0) - quiet.get("copy", 0))
    print(f"{file}: with the bar {extra:+,} instructions ({100 * extra / quiet['total']:+.2f} %), "
          f"{extra_rest:+,} outside memcpy/memmove; the presenter's own {own:,} "
          f"({100 * own / quiet['total']:.2f} % of the run without the bar), {own / bar['seconds']:,.0f} a second")

bar = runs["1g", "bar"]
print("\nInclusive instructions in the 1 GiB run with the bar (callgrind_annotate --inclusive=yes):\n")
print("| function | what | instructions | per second of the run |")
print("|---|---|--:|--:|")
for key, what in presenter:
    count = bar.get(key, 0)
    print(f"| {key} | {what} | {count:,} | {count / bar['seconds']:,.0f} |")
PY
