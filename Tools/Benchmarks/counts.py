#!/usr/bin/env python3
"""Counts what a request costs Parley in numbers that do not move with the machine's load.

For each scenario, heap allocations per request (a preloaded malloc that counts, malloc-count.c) and instructions
per request (valgrind's callgrind, user space, every thread) of parley-bench and of the libcurl baseline
parley-bench-curl, against a private nginx started as compare.py starts it. Each count is the difference between two
runs of different lengths divided by the difference in requests, so start-up, warm-up and shut-down cancel out.
Prints one Markdown table, and exits 1 when a count of parley-bench is above its ceiling in ceilings.json.
docs/BENCHMARKS.md ("Counts per request") explains the method and how to update the ceilings.

    python3 Tools/Benchmarks/counts.py                      # every scenario once, 2 to 3 minutes on 2 cores
    python3 Tools/Benchmarks/counts.py --repeat 3           # each count 3 times: medians and their spread
    python3 Tools/Benchmarks/counts.py --update-ceilings    # measure, then rewrite ceilings.json

Builds nothing: the release binaries must exist (see --bin-path). Needs nginx, openssl, cc and valgrind. Exits 0 when
every count is within its ceiling, 1 when one is above it or a run failed, 2 when something it needs is missing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # importing compare.py leaves no __pycache__ in the tree
import compare  # noqa: E402  (the private nginx: compare.Server)

ROOT = HERE.parents[1]
DEFAULT_BIN_PATH = HERE / ".build" / "release"
DEFAULT_CEILINGS = HERE / "ceilings.json"
PEERS = {"parley": "parley-bench", "curl": "parley-bench-curl"}
#: The counts, in table order.
COUNTS = ("allocations", "instructions")
#: Ceilings are the count measured plus this share, rounded up (--update-ceilings).
HEADROOM = 0.10
#: A run that takes longer than this has hung.
RUN_TIMEOUT_S = 600


@dataclasses.dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    path: str  # on the HTTP/1.1 port; both peers fetch the same body
    concurrency: int
    warmup: int
    parley_arguments: tuple[str, ...] = ()


SCENARIOS = [
    Scenario("sequential", "(a) sequential GET, 200 B", "/small.bin", concurrency=1, warmup=100),
    Scenario("h1-64", "(b) 64 concurrent GETs, 200 B", "/small.bin", concurrency=64, warmup=128),
    Scenario("full-stack-64", "(f) full stack, 64 concurrent", "/envelope.json", concurrency=64, warmup=128,
             parley_arguments=("--stack", "full")),
    Scenario("full-stack-1", "(f) full stack, one at a time", "/envelope.json", concurrency=1, warmup=100,
             parley_arguments=("--stack", "full")),
    Scenario("direct-64", "(f) without a handle, 64 concurrent", "/envelope.json", concurrency=64, warmup=128,
             parley_arguments=("--stack", "direct")),
    Scenario("direct-1", "(f) without a handle, one at a time", "/envelope.json", concurrency=1, warmup=100,
             parley_arguments=("--stack", "direct")),
    # What the telemetry links cost with no metrics or tracing backend, against two links that
    # pass every request on (and against (a), the engine alone).
    Scenario("sequential-chain", "(a) through two pass-through links", "/small.bin", concurrency=1, warmup=100,
             parley_arguments=("--stack", "chain")),
    Scenario("sequential-telemetry", "(a) through the telemetry links, no backend", "/small.bin", concurrency=1,
             warmup=100, parley_arguments=("--stack", "telemetry")),
]

#: What a handle costs: each full-stack scenario beside the same requests without a handle (`Requestable.data(for:)`).
HANDLE_PAIRS = (("full-stack-64", "direct-64"), ("full-stack-1", "direct-1"))

#: The two run lengths (timed requests, after the same warm-up) whose difference each count divides. Natively the
#: runs take a second or two; under callgrind, which runs the process some 50 times slower and one thread at a time,
#: the longer run of the full stack takes about 40 s.
REQUESTS = {"allocations": (2_000, 12_000), "instructions": (1_000, 6_000)}


class Missing(Exception):
    """Something the counts need is not there: exit 2."""


class RunFailed(Exception):
    """A benchmark run did not complete every request: exit 1."""


log = compare.log


# MARK: - Preloaded libraries


def build_preloads(work: Path) -> tuple[Path, Path]:
    """The counting malloc and the sigsuspend shim valgrind needs (valgrind-shim.c), compiled into `work`."""
    if shutil.which("cc") is None:
        raise Missing("cc is missing: it compiles malloc-count.c and valgrind-shim.c (apt-get install gcc)")
    counter = work / "malloc-count.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(counter), str(HERE / "malloc-count.c")], check=True)
    # The shim is built by the same function render-cost.sh and cache-cost.sh use.
    shim = subprocess.run(
        ["bash", "-c", '. "$0" && build_valgrind_shim "$1"', str(HERE / "valgrind-shim.sh"), str(work)],
        check=True, capture_output=True, text=True).stdout.strip()
    return counter, Path(shim)


# MARK: - Runs


def make_server() -> compare.Server:
    """compare.py's nginx, without the 1 GiB and 256 MiB files of its transfer scenarios where it can leave them out."""
    return compare.Server(compare.NGINX_WORKERS, large_files=False)


def arguments(binary: Path, peer: str, scenario: Scenario, url: str, requests: int) -> list[str]:
    extra = scenario.parley_arguments if peer == "parley" else ()
    return [str(binary), "--url", url, *extra, "--requests", str(requests), "--concurrency",
            str(scenario.concurrency), "--warmup", str(scenario.warmup), "--label", peer]


def run(command: list[str], environment: dict[str, str], what: str) -> None:
    """Runs one benchmark process; raises RunFailed unless it completed every request."""
    try:
        completed = subprocess.run(command, env={**os.environ, **environment}, capture_output=True, text=True,
                                   timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise RunFailed(f"{what}: timed out after {RUN_TIMEOUT_S} s") from None
    result = compare.parse_result(completed.stdout)
    if completed.returncode != 0 or result is None or result.get("errors") != "0" \
            or result.get("ok") != result.get("requests"):
        detail = " | ".join(completed.stderr.strip().splitlines()[-3:])
        raise RunFailed(f"{what}: exit {completed.returncode}: {detail}")


def allocations(command: list[str], counter: Path, work: Path, what: str) -> dict[str, int]:
    """Every line of malloc-count.c's report of one native run."""
    report = work / "malloc-count.txt"
    report.unlink(missing_ok=True)
    run(command, {"LD_PRELOAD": str(counter), "MALLOC_COUNT_FILE": str(report)}, what)
    if not report.exists():
        raise RunFailed(f"{what}: the counting malloc wrote no report to {report}")
    return {name: int(value) for name, value in (line.split() for line in report.read_text().splitlines())}


COLLECTED = re.compile(r"^==\d+== Collected : (\d+)$", re.MULTILINE)


def instructions(command: list[str], shim: Path, work: Path, profile: Path | None, what: str) -> int:
    """The instructions callgrind counted in one run (every thread, user space)."""
    log_file = work / "callgrind.log"
    valgrind = ["valgrind", "--tool=callgrind", f"--log-file={log_file}",
                f"--callgrind-out-file={profile or os.devnull}"]
    try:
        run(valgrind + command, {"LD_PRELOAD": str(shim)}, what)
    except RunFailed as error:
        tail = " | ".join(log_file.read_text().strip().splitlines()[-3:]) if log_file.exists() else ""
        raise RunFailed(f"{error}; callgrind's log ends: {tail}") from None
    match = COLLECTED.search(log_file.read_text())
    if match is None:
        raise RunFailed(f"{what}: no instruction count in callgrind's log {log_file}")
    return int(match.group(1))


@dataclasses.dataclass
class Measurement:
    """One count of one peer in one scenario: the per-request values of each repetition."""
    values: list[float] = dataclasses.field(default_factory=list)
    #: For allocations, the per-request count of each allocator function (first repetition).
    detail: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def spread(self) -> float:
        """(largest − smallest) / median, as a fraction."""
        return (max(self.values) - min(self.values)) / self.median if self.median else 0.0


def measure(scenario: Scenario, peer: str, count: str, bin_path: Path, server: compare.Server,
            preloads: tuple[Path, Path], work: Path, keep: Path | None, repetition: int, into: Measurement) -> None:
    """Adds one per-request value of `count` to `into`: two runs, the difference, divided."""
    url = f"http://127.0.0.1:{server.http_port}{scenario.path}"
    short, long = REQUESTS[count]
    readings = {}
    for requests in (short, long):
        command = arguments(bin_path / PEERS[peer], peer, scenario, url, requests)
        what = f"{scenario.key} {peer} {count} ({requests:,} requests)"
        if count == "allocations":
            readings[requests] = allocations(command, preloads[0], work, what)
        else:
            profile = keep / f"callgrind.{scenario.key}.{peer}.{requests}.{repetition + 1}.out" if keep else None
            readings[requests] = {"instructions": instructions(command, preloads[1], work, profile, what)}
    per_request = {name: (readings[long][name] - readings[short][name]) / (long - short) for name in readings[long]}
    into.values.append(per_request[count])
    if count == "allocations" and not into.detail:
        into.detail = per_request
    log(f"{scenario.key:<14} {peer:<7} {count:<12} {per_request[count]:>12,.1f} per request")


# MARK: - Ceilings


def load_ceilings(path: Path, missing_ok: bool = False) -> dict[str, dict[str, float]]:
    if missing_ok and not path.exists():
        return {}
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise Missing(f"no ceilings file at {path}") from None
    except json.JSONDecodeError as error:
        raise Missing(f"{path} is not JSON: {error}") from None
    return document.get("scenarios", {})


def rounded_ceiling(value: float, count: str) -> float:
    """`value` plus HEADROOM, rounded up: to a whole allocation, or to three significant digits of instructions."""
    raised = value * (1 + HEADROOM)
    if count == "allocations":
        return math.ceil(raised)
    step = 10 ** max(0, math.floor(math.log10(raised)) - 2)
    return math.ceil(raised / step) * step


def write_ceilings(path: Path, results: dict, scenarios: list[Scenario]) -> None:
    document = json.loads(path.read_text()) if path.exists() else {}
    ceilings = document.setdefault("scenarios", {})
    for scenario in scenarios:
        for count in COUNTS:
            ceilings.setdefault(scenario.key, {})[count] = rounded_ceiling(
                results[scenario.key, "parley", count].median, count)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


# MARK: - Reporting


number = compare.number


def table(results: dict, scenarios: list[Scenario], ceilings: dict) -> str:
    header = ["scenario", "allocations/req parley", "curl", "ratio", "ceiling",
              "instructions/req parley", "curl", "ratio", "ceiling"]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "--:|" * (len(header) - 1)]
    for scenario in scenarios:
        cells = [scenario.title]
        for count, digits in (("allocations", 1), ("instructions", 0)):
            parley = results[scenario.key, "parley", count].median
            curl = results[scenario.key, "curl", count].median
            cells += [number(parley, digits), number(curl, digits), number(parley / curl if curl else None, 2),
                      number(ceilings.get(scenario.key, {}).get(count))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def handle_lines(results: dict, scenarios: list[Scenario]) -> list[str]:
    """For each full-stack scenario measured beside its counterpart without a handle, what the handle adds."""
    keys = {scenario.key for scenario in scenarios}
    lines = []
    for with_handle, without in HANDLE_PAIRS:
        if with_handle not in keys or without not in keys:
            continue
        parts = []
        for count in COUNTS:
            handle = results[with_handle, "parley", count].median
            direct = results[without, "parley", count].median
            share = 100 * (handle - direct) / direct if direct else math.nan
            parts.append(f"{handle - direct:+,.1f} {count} ({share:+.1f} %)")
        lines.append(f"- the handle in {with_handle} (over {without}): " + ", ".join(parts))
    return lines


def spread_table(results: dict, scenarios: list[Scenario]) -> str:
    lines = ["| scenario | count | peer | per request, each run | spread |", "|---|---|---|---|--:|"]
    for scenario in scenarios:
        for count, digits in (("allocations", 2), ("instructions", 0)):
            for peer in PEERS:
                measurement = results[scenario.key, peer, count]
                values = " · ".join(number(value, digits) for value in measurement.values)
                lines.append(f"| {scenario.title} | {count} | {peer} | {values} | {100 * measurement.spread:.2f} % |")
    return "\n".join(lines)


def over_ceilings(results: dict, scenarios: list[Scenario], ceilings: dict) -> list[str]:
    found = []
    for scenario in scenarios:
        for count in COUNTS:
            ceiling = ceilings.get(scenario.key, {}).get(count)
            value = results[scenario.key, "parley", count].median
            if ceiling is None:
                log(f"warning: no ceiling for {scenario.key} {count}")
            elif value > ceiling:
                found.append(f"{scenario.key} {count}: {value:,.1f} per request, above its ceiling of {ceiling:,}")
    return found


# MARK: - Main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-path", type=Path, default=DEFAULT_BIN_PATH,
                        help="where parley-bench and parley-bench-curl are (default: %(default)s)")
    parser.add_argument("--ceilings", type=Path, default=DEFAULT_CEILINGS, help="default: %(default)s")
    parser.add_argument("--scenarios", default=",".join(s.key for s in SCENARIOS),
                        help="comma-separated: " + ", ".join(s.key for s in SCENARIOS))
    parser.add_argument("--repeat", type=int, default=1, help="measure each count this many times (median, spread)")
    parser.add_argument("--keep-profiles", type=Path, metavar="DIR",
                        help="keep callgrind's profiles in DIR (for callgrind_annotate)")
    parser.add_argument("--json", type=Path, help="also write every per-request value to this file")
    # argparse formats help strings with %: the percent sign the share prints is doubled.
    parser.add_argument("--update-ceilings", action="store_true",
                        help=f"rewrite the ceilings file: each parley count plus {HEADROOM:.0%}%, rounded up")
    options = parser.parse_args()

    scenarios = [s for s in SCENARIOS if s.key in options.scenarios.split(",")]
    unknown = set(options.scenarios.split(",")) - {s.key for s in SCENARIOS}
    if unknown or not scenarios or options.repeat < 1:
        parser.error(f"unknown scenarios {sorted(unknown)}, no scenario, or --repeat below 1")

    work = Path(tempfile.mkdtemp(prefix="parley-counts-"))
    server = make_server()

    def stop_on_signal(number: int, _frame) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop_on_signal)
    results: dict[tuple[str, str, str], Measurement] = {}
    try:
        for peer, binary in PEERS.items():
            if not os.access(options.bin_path / binary, os.X_OK):
                raise Missing(f"{options.bin_path / binary} is not built: swift build -c release --package-path "
                              f"{HERE.relative_to(ROOT)} --product {binary}")
        if shutil.which("valgrind") is None and os.geteuid() == 0 and shutil.which("apt-get"):
            log("installing valgrind for the instruction counts (apt-get install valgrind)")
            subprocess.run(["apt-get", "install", "-y", "-qq", "valgrind"], check=False)
        if shutil.which("valgrind") is None:
            raise Missing("valgrind is missing: it counts the instructions (apt-get install valgrind)")
        if shutil.which("openssl") is None or not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
            raise Missing("nginx or openssl is missing: compare.py's server needs both (apt-get install nginx openssl)")
        ceilings = load_ceilings(options.ceilings, missing_ok=options.update_ceilings)
        if options.keep_profiles:
            options.keep_profiles.mkdir(parents=True, exist_ok=True)
        preloads = build_preloads(work)
        log(f"load average {os.getloadavg()[0]:.2f} (the counts do not depend on it)")
        server.start()
        for repetition in range(options.repeat):
            if options.repeat > 1:
                log(f"repetition {repetition + 1} of {options.repeat}")
            for scenario in scenarios:
                for peer in PEERS:
                    for count in COUNTS:
                        into = results.setdefault((scenario.key, peer, count), Measurement())
                        measure(scenario, peer, count, options.bin_path, server, preloads, work,
                                options.keep_profiles, repetition, into)
    except Missing as error:
        log(f"counts.py: {error}")
        return 2
    except subprocess.CalledProcessError as error:
        log(f"counts.py: {' '.join(error.cmd)} failed with status {error.returncode}")
        return 2
    except RuntimeError as error:  # nginx did not start
        log(f"counts.py: {error}")
        return 2
    except RunFailed as error:
        log(f"counts.py: a run failed: {error}")
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 1
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)

    if options.update_ceilings:
        write_ceilings(options.ceilings, results, scenarios)
        log(f"wrote {options.ceilings}")
        ceilings = load_ceilings(options.ceilings)

    (a1, a2), (i1, i2) = REQUESTS["allocations"], REQUESTS["instructions"]
    runs = f"{options.repeat} runs of each count, medians" if options.repeat > 1 else "one run of each count"
    print(f"### Counts per request ({runs})\n")
    print(f"Per request: the difference between runs of {a2:,} and {a1:,} requests (allocations) or of {i2:,} "
          f"and {i1:,} (instructions, under callgrind), divided by the difference. Ratios are parley / curl; the "
          f"ceilings are parley's, from {options.ceilings.name}.\n")
    print(table(results, scenarios, ceilings))
    handle = handle_lines(results, scenarios)
    if handle:
        print()
        print("\n".join(handle))
    if options.repeat > 1:
        print("\nSpread: (largest − smallest) / median of the runs of each count.\n")
        print(spread_table(results, scenarios))
    if options.json:
        options.json.write_text(json.dumps(
            [{"scenario": scenario, "peer": peer, "count": count, "values": measurement.values,
              "detail": measurement.detail} for (scenario, peer, count), measurement in results.items()], indent=2))

    over = over_ceilings(results, scenarios, ceilings)
    print()
    for line in over:
        print(f"- OVER THE CEILING: parley {line}")
        log(f"counts.py: over the ceiling: parley {line}")
    if not over:
        print("- every count of parley is within its ceiling")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
