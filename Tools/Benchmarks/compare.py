#!/usr/bin/env python3
"""Compares Parley's CurlTransport with raw libcurl, AsyncHTTPClient and URLSession on loopback.

Builds the four benchmark peers in release, starts a private nginx (its own prefix, configuration, test
certificate authority and free ports), runs every scenario over several interleaved rounds and prints one Markdown
table per scenario: medians across rounds, and each peer's same-round ratio to the raw libcurl baseline (the median
of the per-round ratios). docs/BENCHMARKS.md explains the scenarios and the targets.

    python3 Tools/Benchmarks/compare.py             # the full run, about 10 minutes on 2 cores
    python3 Tools/Benchmarks/compare.py --quick     # a smoke run, about a minute
    python3 Tools/Benchmarks/compare.py --serve     # only start nginx and print the URLs, for runs by hand

Exits 1 if any peer failed a request (or did not run), 0 otherwise. Missing a target is reported, not fatal.
"""

from __future__ import annotations

import argparse
import dataclasses
import grp
import json
import os
import pwd
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The benchmarks' own package (Tools/Benchmarks/Package.swift), where the peers are built.
PACKAGE = Path(__file__).resolve().parent

# The peers, in table order; the baseline is the yardstick of every ratio.
PEERS = {
    "parley": "parley-bench",
    "curl": "parley-bench-curl",
    "ahc": "parley-bench-ahc",
    "urlsession": "parley-bench-urlsession",
}
BASELINE = "curl"

# Scenarios a peer cannot run, with the reason printed in the table.
UNSUPPORTED = {
    ("urlsession", "tls-h2"): "FoundationNetworking on Linux cannot trust a private CA",
    ("ahc", "full-stack"): "the business layer is Parley's own",
    ("urlsession", "full-stack"): "the business layer is Parley's own",
}

SMALL_BODY = 200
DOWNLOAD_SIZE = 1 << 30  # 1 GiB
UPLOAD_SIZE = 256 << 20  # 256 MiB


@dataclasses.dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    scheme: str  # "http" (HTTP/1.1 keep-alive) or "https" (TLS, HTTP/2 where the peer can)
    path: str
    mode: str
    concurrency: int
    requests: int
    warmup: int
    quick_requests: int
    quick_warmup: int
    metric: str  # the throughput the ratio compares: "rps" or "bytes_per_s"
    target: float  # the parley / curl ratio docs/BENCHMARKS.md asks for
    cpu_target: float | None = None  # the largest parley / curl CPU-per-request ratio, where one is set
    rss_target_mib: float | None = None  # the largest parley peak RSS, where one is set
    parley_path: str | None = None  # where parley goes instead of `path`, for the full-stack scenario
    parley_arguments: tuple[str, ...] = ()  # extra flags for parley-bench


SCENARIOS = [
    Scenario("sequential", "(a) Sequential GET, 200 B, HTTP/1.1", "http", "/small.bin", "get",
             concurrency=1, requests=20_000, warmup=200, quick_requests=2_000, quick_warmup=50,
             metric="rps", target=0.75),
    Scenario("h1-64", "(b) 64 concurrent GETs, 200 B, HTTP/1.1", "http", "/small.bin", "get",
             concurrency=64, requests=40_000, warmup=1_280, quick_requests=4_000, quick_warmup=640,
             metric="rps", target=0.90, cpu_target=1.3),
    Scenario("tls-h2", "(c) 64 concurrent GETs, 200 B, TLS + HTTP/2", "https", "/small.bin", "get",
             concurrency=64, requests=40_000, warmup=1_280, quick_requests=4_000, quick_warmup=640,
             metric="rps", target=0.85, cpu_target=1.3),
    Scenario("download", "(d) Download 1 GiB to /dev/null, HTTP/1.1", "http", "/big.bin", "download",
             concurrency=1, requests=3, warmup=1, quick_requests=1, quick_warmup=0,
             metric="bytes_per_s", target=0.95, rss_target_mib=16),
    Scenario("upload", "(e) Upload 256 MiB from a file, HTTP/1.1", "http", "/upload", "upload",
             concurrency=1, requests=4, warmup=1, quick_requests=1, quick_warmup=0,
             metric="bytes_per_s", target=0.95),
    # Parley through its whole business layer (a form, a Requestable, the envelope check, decoding the
    # weather fixture at key path `data`) against the baseline's plain GETs of 200 bytes.
    Scenario("full-stack", "(f) 64 concurrent: Parley's business layer vs plain libcurl GETs, HTTP/1.1", "http",
             "/small.bin", "get", concurrency=64, requests=40_000, warmup=1_280, quick_requests=4_000,
             quick_warmup=640, metric="rps", target=0.75, parley_path="/envelope.json",
             parley_arguments=("--stack", "full")),
]

# The weather fixture inside the server envelope: the body of the full-stack scenario.
FORECAST_FIXTURE = Path(__file__).resolve().parents[1] / "MockServer" / "MockBackend" / "Resources" / "forecast.json"

# nginx runs 2 worker processes, as many as there are cores. With one worker, nginx saturates one core serving
# 64 HTTP/1.1 keep-alive connections of 200-byte bodies at about the rate the single-threaded libcurl baseline
# issues them, and the server, not the client, sets the pace. Two workers let the server take whatever CPU the
# client leaves, so a faster client shows as a faster result.
NGINX_WORKERS = 2

NGINX_CONF = """\
{user}worker_processes {workers};
worker_rlimit_nofile 65536;
daemon off;
master_process on;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;

events {{
    worker_connections 4096;
    multi_accept on;
}}

http {{
    access_log off;
    server_tokens off;
    default_type application/octet-stream;
    types {{ }}
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 600s;
    keepalive_requests 100000000;
    http2_max_concurrent_streams 256;
    client_body_temp_path {prefix}/client_body 1 2;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;

    server {{
        listen 127.0.0.1:{http_port} reuseport backlog=4096;
        listen 127.0.0.1:{https_port} ssl http2 reuseport backlog=4096;
        server_name localhost;
        ssl_certificate {prefix}/server.pem;
        ssl_certificate_key {prefix}/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:SSL:1m;
        root {prefix}/www;

        # The upload sink: nginx reads the whole body (the mirror subrequest needs it), keeps it in memory, and
        # only then answers 200, so a client's clock stops after its last byte has been received. (No file
        # named upload exists: the static handler's 404 becomes the 200.)
        location = /upload {{
            client_max_body_size 0;
            client_body_buffer_size {upload_buffer};
            mirror /upload-mirror;
            mirror_request_body on;
            error_page 404 405 =200 @uploaded;
        }}
        location = /upload-mirror {{
            internal;
            return 204;
        }}
        location @uploaded {{
            return 200 "uploaded\\n";
        }}
    }}
}}
"""


# MARK: - Output


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# MARK: - Building


def build(peers: list[str]) -> Path:
    for peer in peers:
        log(f"building {PEERS[peer]} (release)")
        subprocess.run(["swift", "build", "-c", "release", "--product", PEERS[peer]], cwd=PACKAGE, check=True)
    path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=PACKAGE, check=True,
                          capture_output=True, text=True).stdout.strip()
    return Path(path)


# MARK: - The server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_certificates(prefix: Path) -> None:
    """A throwaway CA and a server certificate for 127.0.0.1 and localhost, both P-256."""
    def openssl(*arguments: str) -> None:
        subprocess.run(["openssl", *arguments], cwd=prefix, check=True, capture_output=True)

    (prefix / "ca.ext").write_text(
        "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
        "subjectKeyIdentifier=hash\n")
    (prefix / "server.ext").write_text(
        "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n"
        "authorityKeyIdentifier=keyid\n")
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key")
    openssl("req", "-new", "-key", "ca.key", "-subj", "/CN=Parley Benchmark CA", "-out", "ca.csr")
    openssl("x509", "-req", "-in", "ca.csr", "-signkey", "ca.key", "-days", "2", "-sha256",
            "-extfile", "ca.ext", "-out", "ca.pem")
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "server.key")
    openssl("req", "-new", "-key", "server.key", "-subj", "/CN=localhost", "-out", "server.csr")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-sha256", "-extfile", "server.ext", "-out", "server.pem")


def write_file(path: Path, size: int) -> None:
    """`size` bytes of incompressible data: one random MiB, repeated. Fast, and no sparse-file shortcuts."""
    block = os.urandom(1 << 20)
    with open(path, "wb") as file:
        remaining = size
        while remaining > 0:
            chunk = block[:min(remaining, len(block))]
            file.write(chunk)
            remaining -= len(chunk)


class Server:
    """A private nginx on loopback, stopped by PID and removed with its temporary directory."""

    def __init__(self, workers: int) -> None:
        self.prefix = Path(tempfile.mkdtemp(prefix="parley-bench-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.workers = workers
        self.http_port = 0
        self.https_port = 0

    def start(self) -> None:
        prefix = self.prefix
        os.chmod(prefix, 0o755)
        for directory in ("www", "client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (prefix / directory).mkdir()
        log(f"preparing {prefix}: certificates, a 200 B body, a 1 GiB file, a 256 MiB upload")
        make_certificates(prefix)
        (prefix / "www" / "small.bin").write_bytes(os.urandom(SMALL_BODY))
        forecast = json.loads(FORECAST_FIXTURE.read_text())
        envelope = {"code": 200, "message": "ok", "data": forecast}
        (prefix / "www" / "envelope.json").write_text(json.dumps(envelope))
        write_file(prefix / "www" / "big.bin", DOWNLOAD_SIZE)
        write_file(prefix / "upload.bin", UPLOAD_SIZE)

        self.http_port = free_port()
        self.https_port = free_port()
        user = ""
        if os.geteuid() == 0:
            # Workers keep the invoking user rather than dropping to `nobody`, who cannot read the temp dir.
            user = f"user {pwd.getpwuid(os.getuid()).pw_name} {grp.getgrgid(os.getgid()).gr_name};\n"
        conf = prefix / "nginx.conf"
        conf.write_text(NGINX_CONF.format(
            user=user, workers=self.workers, prefix=prefix, http_port=self.http_port,
            https_port=self.https_port, upload_buffer=f"{UPLOAD_SIZE // (1 << 20) + 1}m"))
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([nginx, "-p", str(prefix), "-e", str(prefix / "error.log"), "-c",
                                         str(conf)], stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        for port in (self.http_port, self.https_port):
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"nginx exited: {(prefix / 'error.log').read_text()}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"nginx is not listening on {port}")
                    time.sleep(0.05)
        log(f"nginx (pid {self.process.pid}, {self.workers} workers): http://127.0.0.1:{self.http_port} "
            f"https://127.0.0.1:{self.https_port}")

    def url(self, scenario: Scenario) -> str:
        port = self.http_port if scenario.scheme == "http" else self.https_port
        return f"{scenario.scheme}://127.0.0.1:{port}{scenario.path}"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: the master stops its workers
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.prefix, ignore_errors=True)


# MARK: - Running


RESULT_FIELD = re.compile(r"(\w+)=(\S+)")


def parse_result(stdout: str) -> dict[str, str] | None:
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(RESULT_FIELD.findall(line))
    return None


def parse_peak_rss_kib(report: str) -> int | None:
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    return int(match.group(1)) if match else None


@dataclasses.dataclass
class Run:
    peer: str
    scenario: str
    round: int
    ok: bool
    rps: float = 0
    bytes_per_s: float = 0
    p50_us: float = 0
    p99_us: float = 0
    cpu_per_request_us: float = 0
    peak_rss_mib: float = 0
    error: str = ""


def run_peer(binary: Path, peer: str, scenario: Scenario, server: Server, quick: bool, round_index: int) -> Run:
    requests = scenario.quick_requests if quick else scenario.requests
    warmup = scenario.quick_warmup if quick else scenario.warmup
    url = server.url(scenario)
    extra: tuple[str, ...] = ()
    if peer == "parley" and scenario.parley_path is not None:
        url = url.removesuffix(scenario.path) + scenario.parley_path
        extra = scenario.parley_arguments
    arguments = [
        str(binary), "--url", url, *extra, "--requests", str(requests), "--concurrency",
        str(scenario.concurrency), "--mode", scenario.mode, "--warmup", str(warmup), "--label", peer,
        "--out", "/dev/null",
    ]
    if scenario.scheme == "https":
        arguments += ["--cacert", str(server.prefix / "ca.pem")]
    if scenario.mode == "upload":
        arguments += ["--in", str(server.prefix / "upload.bin")]
    time_report = server.prefix / f"time-{peer}.txt"
    command = ["/usr/bin/time", "-v", "-o", str(time_report), *arguments]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return Run(peer, scenario.key, round_index, ok=False, error="timed out after 600 s")
    result = parse_result(completed.stdout)
    rss_kib = parse_peak_rss_kib(time_report.read_text()) if time_report.exists() else None
    if result is None or completed.returncode != 0 or int(result.get("errors", "1")) != 0:
        detail = completed.stderr.strip().splitlines()[-3:]
        return Run(peer, scenario.key, round_index, ok=False,
                   error=f"exit {completed.returncode}: " + " | ".join(detail))
    ok = int(result["ok"])
    return Run(
        peer, scenario.key, round_index, ok=True,
        rps=float(result["rps"]), bytes_per_s=float(result["bytes_per_s"]),
        p50_us=float(result["p50_us"]), p99_us=float(result["p99_us"]),
        cpu_per_request_us=float(result["cpu_s"]) / max(ok, 1) * 1e6,
        peak_rss_mib=(rss_kib or 0) / 1024,
    )


# MARK: - Reporting


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def same_round_ratio(runs: list[Run], peer: str, value) -> float | None:
    """The median over rounds of value(peer) / value(baseline), pairing runs of the same round."""
    by_round = {run.round: run for run in runs if run.peer == BASELINE and run.ok}
    ratios = []
    for run in runs:
        baseline = by_round.get(run.round)
        if run.peer == peer and run.ok and baseline is not None and value(baseline) > 0:
            ratios.append(value(run) / value(baseline))
    return median(ratios)


def number(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def table(scenario: Scenario, runs: list[Run], peers: list[str]) -> str:
    runs = [run for run in runs if run.scenario == scenario.key]
    transfers = scenario.metric == "bytes_per_s"
    # Per-request CPU in the scenario's natural unit: µs for small GETs, ms for whole-file transfers.
    cpu_unit, cpu_scale = ("ms", 1e-3) if transfers else ("µs", 1.0)
    header = ["peer", "req/s", "MB/s", "p50 µs", "p99 µs", f"CPU {cpu_unit}/req", "peak RSS MiB", "vs curl",
              "CPU vs curl"]
    lines = [f"#### {scenario.title}", "", "| " + " | ".join(header) + " |",
             "|---|" + "--:|" * (len(header) - 1)]

    def row(cells: list[str]) -> str:
        return "| " + " | ".join(cells + [""] * (len(header) - len(cells))) + " |"

    throughput = (lambda run: run.rps) if scenario.metric == "rps" else (lambda run: run.bytes_per_s)
    for peer in peers:
        if (peer, scenario.key) in UNSUPPORTED:
            lines.append(row([peer, f"n/a: {UNSUPPORTED[(peer, scenario.key)]}"]))
            continue
        mine = [run for run in runs if run.peer == peer]
        good = [run for run in mine if run.ok]
        if not good:
            lines.append(row([peer, f"failed: {mine[0].error if mine else 'not run'}"]))
            continue
        failed = len(mine) - len(good)
        lines.append(row([
            peer if failed == 0 else f"{peer} ({failed} failed)",
            number(median([run.rps for run in good]), 2 if transfers else 0),
            number(median([run.bytes_per_s / 1e6 for run in good]), 1),
            number(median([run.p50_us for run in good]), 0),
            number(median([run.p99_us for run in good]), 0),
            number(median([run.cpu_per_request_us * cpu_scale for run in good]), 1),
            number(median([run.peak_rss_mib for run in good]), 1),
            number(same_round_ratio(runs, peer, throughput), 2),
            number(same_round_ratio(runs, peer, lambda run: run.cpu_per_request_us), 2),
        ]))
    return "\n".join(lines)


def verdicts(scenario: Scenario, runs: list[Run]) -> list[str]:
    """Parley against the targets of docs/BENCHMARKS.md."""
    runs = [run for run in runs if run.scenario == scenario.key]
    if not any(run.peer == "parley" and run.ok for run in runs):
        return []
    throughput = (lambda run: run.rps) if scenario.metric == "rps" else (lambda run: run.bytes_per_s)
    found = []
    ratio = same_round_ratio(runs, "parley", throughput)
    if ratio is not None:
        found.append(f"throughput {ratio:.2f}× curl (target ≥ {scenario.target:.2f}): "
                     + ("met" if ratio >= scenario.target else "MISSED"))
    if scenario.cpu_target is not None:
        cpu = same_round_ratio(runs, "parley", lambda run: run.cpu_per_request_us)
        if cpu is not None:
            found.append(f"CPU per request {cpu:.2f}× curl (target ≤ {scenario.cpu_target:.2f}): "
                         + ("met" if cpu <= scenario.cpu_target else "MISSED"))
    if scenario.rss_target_mib is not None:
        rss = median([run.peak_rss_mib for run in runs if run.peer == "parley" and run.ok])
        if rss is not None:
            found.append(f"peak RSS {rss:.1f} MiB (target ≤ {scenario.rss_target_mib:.0f} MiB): "
                         + ("met" if rss <= scenario.rss_target_mib else "MISSED"))
    return found


# MARK: - Main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (5 by default, 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run: fewer requests, one round")
    parser.add_argument("--peers", default=",".join(PEERS), help="comma-separated peers (default: all)")
    parser.add_argument("--scenarios", default=",".join(s.key for s in SCENARIOS),
                        help="comma-separated scenarios: " + ", ".join(s.key for s in SCENARIOS))
    parser.add_argument("--skip-build", action="store_true", help="use the release binaries as they are")
    parser.add_argument("--json", type=Path, help="also write every run to this file")
    parser.add_argument("--workers", type=int, default=NGINX_WORKERS,
                        help=f"nginx worker processes ({NGINX_WORKERS} by default)")
    parser.add_argument("--serve", action="store_true", help="start nginx, print its URLs, wait for Ctrl-C")
    arguments = parser.parse_args()

    peers = [peer for peer in arguments.peers.split(",") if peer]
    unknown = [peer for peer in peers if peer not in PEERS]
    scenarios = [s for s in SCENARIOS if s.key in arguments.scenarios.split(",")]
    if unknown or not scenarios:
        parser.error(f"unknown peers {unknown} or no known scenario")
    rounds = arguments.rounds or (1 if arguments.quick else 5)
    if not Path("/usr/bin/time").exists():
        log("installing GNU time for peak RSS (apt-get install time)")
        subprocess.run(["apt-get", "install", "-y", "-qq", "time"], check=True)

    bin_path = None
    if not arguments.serve:
        if arguments.skip_build:
            bin_path = Path(subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=PACKAGE,
                                           check=True, capture_output=True, text=True).stdout.strip())
        else:
            bin_path = build(peers)

    server = Server(arguments.workers)
    interrupted = False

    def stop_on_signal(number: int, _frame) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop_on_signal)
    runs: list[Run] = []
    started = time.monotonic()
    load = os.getloadavg()[0]
    if load > 0.5:
        log(f"warning: the 1-minute load average is {load:.2f}; other work on the machine skews the results")
    try:
        server.start()
        if arguments.serve:
            log(f"CA file: {server.prefix / 'ca.pem'}\nupload input: {server.prefix / 'upload.bin'}\n"
                f"paths: /small.bin ({SMALL_BODY} B), /big.bin (1 GiB), /upload (POST)\nCtrl-C stops nginx.")
            while True:
                time.sleep(3600)
        assert bin_path is not None
        for round_index in range(rounds):
            for scenario in scenarios:
                # Rotate the order every round, so no peer always runs first or last.
                order = peers[round_index % len(peers):] + peers[:round_index % len(peers)]
                for peer in order:
                    if (peer, scenario.key) in UNSUPPORTED:
                        continue
                    run = run_peer(bin_path / PEERS[peer], peer, scenario, server, arguments.quick, round_index)
                    runs.append(run)
                    summary = (f"{run.rps:,.0f} req/s, {run.bytes_per_s / 1e6:,.1f} MB/s, "
                               f"{run.peak_rss_mib:.1f} MiB" if run.ok else f"FAILED {run.error}")
                    log(f"round {round_index + 1}/{rounds} {scenario.key:<10} {peer:<10} {summary}")
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted")
    finally:
        server.stop()

    if arguments.serve:
        return 0
    minutes = (time.monotonic() - started) / 60
    print(f"### Results: {rounds} round{'s' if rounds > 1 else ''}{' (quick)' if arguments.quick else ''}, "
          f"{minutes:.1f} minutes, load average {load:.2f} at the start\n")
    print(f"Medians across rounds; ratios are same-round ratios to `{BASELINE}`, median across rounds. "
          f"Throughput ratios compare req/s (a–c) or MB/s (d, e).\n")
    for scenario in scenarios:
        print(table(scenario, runs, peers))
        found = verdicts(scenario, runs)
        if found:
            print()
        for verdict in found:
            print(f"- parley: {verdict}")
        print()
    if arguments.json:
        arguments.json.write_text(json.dumps([dataclasses.asdict(run) for run in runs], indent=2))
    failed = [run for run in runs if not run.ok]
    for run in failed:
        log(f"failed: {run.peer} {run.scenario} round {run.round + 1}: {run.error}")
    return 1 if failed or interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
