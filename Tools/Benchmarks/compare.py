#!/usr/bin/env python3
"""Compares Parley's CurlTransport with raw libcurl, AsyncHTTPClient and URLSession on loopback.

Builds the benchmark peers in release, starts a private nginx (its own prefix, configuration, test
certificate authority and free ports), runs every scenario over several interleaved rounds and prints one Markdown
table per scenario: medians across rounds, and each peer's same-round ratio to the raw libcurl baseline (the median
of the per-round ratios). Raw libcurl runs twice: driven by curl_multi_perform (`curl`, the baseline) and by
curl_multi_socket_action on an epoll set (`curl-epoll`). docs/BENCHMARKS.md explains the scenarios and the targets.

    python3 Tools/Benchmarks/compare.py             # the full run, about 10 minutes on 2 cores
    python3 Tools/Benchmarks/compare.py --quick     # a smoke run, about a minute
    python3 Tools/Benchmarks/compare.py --scenarios inflight     # 100, 1,000 and 10,000 requests in flight
    python3 Tools/Benchmarks/compare.py --serve     # only start nginx and print the URLs, for runs by hand
    python3 Tools/Benchmarks/compare.py --parley-loops 2         # parley-bench with --loops 2

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
import resource
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
    # The same binary, its requesting tasks (and, in the full stack, its handles' operations) on the engine's own
    # thread through CurlTransport.taskExecutor: what a caller that opts in gets.
    "parley-loop": "parley-bench",
    # The full stack without a handle: Requestable.data(for:) awaited in the calling task, then the envelope decoded
    # by Mapping's ResponseDecoder. In (f) only.
    "parley-direct": "parley-bench",
    "curl": "parley-bench-curl",
    # The same C program driving libcurl the way an event loop does: curl_multi_socket_action on the sockets an
    # epoll set reports ready and on libcurl's timer, where `curl` calls curl_multi_perform and curl_multi_poll.
    "curl-epoll": "parley-bench-curl",
    "ahc": "parley-bench-ahc",
    "urlsession": "parley-bench-urlsession",
    # Another build of parley-bench, copied by hand beside the others as `parley-bench-before` (never built here):
    # an earlier commit measured side by side with this one, in the same rounds.
    "parley-before": "parley-bench-before",
}
# Peers whose binaries are copied in, not built.
UNBUILT = ("parley-before",)
BASELINE = "curl"
# The arguments a peer adds to every run of its binary.
PEER_ARGUMENTS = {"parley-loop": ("--executor", "loop"), "curl-epoll": ("--socket-interface",)}
# The arguments that replace a scenario's envelope arguments (`--stack full`) for a peer in the full stack.
ENVELOPE_ARGUMENTS = {"parley-direct": ("--stack", "direct")}
# Parley's peers, each held to the targets.
PARLEY_PEERS = ("parley", "parley-loop", "parley-direct")
# libcurl driven from C, one way each: Parley's in-flight figures are read against both.
C_PEERS = ("curl", "curl-epoll")

# Scenarios a peer cannot run, with the reason printed in the table.
UNSUPPORTED = {
    ("urlsession", "tls-h2"): "FoundationNetworking on Linux cannot trust a private CA",
    ("urlsession", "full-stack"): "the business layer is Parley's own",
    ("urlsession", "inflight"): "it keeps about six connections busy whatever its limit (see (b))",
    ("parley-loop", "inflight"): "one thread serves every request there; see parley",
    **{("parley-direct", key): "the handle-less call is the business layer's; see parley"
       for key in ("sequential", "h1-64", "tls-h2", "download", "upload", "inflight")},
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
    idle_rss_margin_mib: float | None = None  # the most parley's peak RSS may exceed its idle process's, where set
    ahc_target: float | None = None  # the smallest parley / ahc throughput ratio, where one is set
    # The smallest throughput ratio of a peer through a handle to parley-direct (the same requests without one),
    # where one is set.
    handle_target: float | None = None
    # The full-stack scenario: these peers GET `envelope_path` instead of `path`, with `envelope_arguments`
    # (`--stack full`: Parley's business layer, AsyncHTTPClient with JSONDecoder), while the baseline GETs `path`.
    envelope_peers: tuple[str, ...] = ()
    envelope_path: str | None = None
    envelope_arguments: tuple[str, ...] = ()


SCENARIOS = [
    Scenario("sequential", "(a) Sequential GET, 200 B, HTTP/1.1", "http", "/small.bin", "get",
             concurrency=1, requests=20_000, warmup=200, quick_requests=2_000, quick_warmup=50,
             metric="rps", target=0.80),
    Scenario("h1-64", "(b) 64 concurrent GETs, 200 B, HTTP/1.1", "http", "/small.bin", "get",
             concurrency=64, requests=40_000, warmup=1_280, quick_requests=4_000, quick_warmup=640,
             metric="rps", target=0.90, cpu_target=1.3),
    Scenario("tls-h2", "(c) 64 concurrent GETs, 200 B, TLS + HTTP/2", "https", "/small.bin", "get",
             concurrency=64, requests=40_000, warmup=1_280, quick_requests=4_000, quick_warmup=640,
             metric="rps", target=0.85, cpu_target=1.3),
    Scenario("download", "(d) Download 1 GiB to /dev/null, HTTP/1.1", "http", "/big.bin", "download",
             concurrency=1, requests=3, warmup=1, quick_requests=1, quick_warmup=0,
             metric="bytes_per_s", target=0.95, idle_rss_margin_mib=4),
    Scenario("upload", "(e) Upload 256 MiB from a file, HTTP/1.1", "http", "/upload", "upload",
             concurrency=1, requests=4, warmup=1, quick_requests=1, quick_warmup=0,
             metric="bytes_per_s", target=0.95),
    # Parley through its whole business layer (a form, a Requestable, the envelope check, decoding the
    # weather fixture at key path `data`) and AsyncHTTPClient with Foundation's JSONDecoder (the same envelope,
    # the same checks) against the baseline's plain GETs of 200 bytes.
    Scenario("full-stack", "(f) 64 concurrent: the envelope decoded (Parley's business layer, AsyncHTTPClient + "
             "JSONDecoder) vs plain libcurl GETs, HTTP/1.1", "http", "/small.bin", "get", concurrency=64,
             requests=40_000, warmup=1_280, quick_requests=4_000, quick_warmup=640, metric="rps", target=0.50,
             ahc_target=1.40, handle_target=0.90,
             envelope_peers=("parley", "parley-loop", "parley-direct", "parley-before", "ahc"),
             envelope_path="/envelope.json",
             envelope_arguments=("--stack", "full")),
]

# Many requests in flight from one process: GETs of `/delay`, which nginx answers with 200 bytes after
# INFLIGHT_DELAY_S, at each level of concurrency (the closed loop keeps that many in flight, one HTTP/1.1
# connection each). Each run has a warm-up of one wave and INFLIGHT_WAVES timed waves; an `--idle` run of each
# binary gives the resident size its loaded runs are measured against.
INFLIGHT_KEY = "inflight"
INFLIGHT_TITLE = "(g) Requests in flight: GETs of 200 B answered after 0.5 s, one HTTP/1.1 connection each"
INFLIGHT_LEVELS = (100, 1_000, 10_000)
INFLIGHT_PEERS = ("parley", "parley-before", "ahc", "curl", "curl-epoll")
INFLIGHT_DELAY_S = 0.5
INFLIGHT_WAVES = 3
INFLIGHT_QUICK_WAVES = 1
INFLIGHT_RSS_TARGET_KIB = 24  # the most resident memory per request in flight at the highest level, above idle
INFLIGHT_CPU_TARGET = 1.5  # the most CPU per request at the highest level, relative to the lowest
INFLIGHT_RPS_TARGET = 1.1  # the fewest requests per second at the highest level, relative to AsyncHTTPClient's
INFLIGHT_P99_TARGET = 1.0  # the highest p99 latency at the highest level, relative to AsyncHTTPClient's
# Descriptors a peer needs besides one socket per request in flight: its own files, pipes and event loops.
INFLIGHT_SPARE_DESCRIPTORS = 512
ECHO_MODULE = Path("/usr/lib/nginx/modules/ngx_http_echo_module.so")

# The weather fixture inside the server envelope: the body of the full-stack scenario.
FORECAST_FIXTURE = Path(__file__).resolve().parents[1] / "MockServer" / "MockBackend" / "Resources" / "forecast.json"

# nginx runs 2 worker processes, as many as there are cores. With one worker, nginx saturates one core serving
# 64 HTTP/1.1 keep-alive connections of 200-byte bodies at about the rate the single-threaded libcurl baseline
# issues them, and the server, not the client, sets the pace. Two workers let the server take whatever CPU the
# client leaves, so a faster client shows as a faster result.
NGINX_WORKERS = 2

# worker_connections leaves room for the 10,000 connections of the in-flight scenario on either worker.
NGINX_CONF = """\
{load_modules}{user}worker_processes {workers};
worker_rlimit_nofile 65536;
daemon off;
master_process on;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;

events {{
    worker_connections 16384;
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
        # The OpenAPI benchmark's `getForecast` (GET /weather?city=…, Examples/WeatherOpenAPI's
        # openapi.yaml): the full-stack scenario's envelope, as JSON.
        location = /weather {{
            default_type application/json;
            try_files /envelope.json =404;
        }}
{delay_location}    }}
}}
"""

# The in-flight scenario's endpoint (nginx's echo module): 200 bytes, the echoed line and its newline, sent after
# a timer, so a connection is held without a worker thread.
DELAY_LOCATION = """\
        location = /delay {{
            default_type application/octet-stream;
            echo_sleep {delay};
            echo {body};
        }}
"""


# MARK: - Output


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# MARK: - Building


def build(peers: list[str]) -> Path:
    # Several peers run the same binary (parley, parley-loop, parley-direct): build each once.
    for product in dict.fromkeys(PEERS[peer] for peer in peers if peer not in UNBUILT):
        log(f"building {product} (release)")
        subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=PACKAGE, check=True)
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

    def __init__(self, workers: int, large_files: bool = True, delay: bool = False) -> None:
        self.prefix = Path(tempfile.mkdtemp(prefix="parley-bench-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.workers = workers
        self.large_files = large_files  # the 1 GiB download and the 256 MiB upload input, for (d) and (e)
        self.delay = delay  # /delay, for the in-flight scenario (needs nginx's echo module)
        self.http_port = 0
        self.https_port = 0

    def start(self) -> None:
        prefix = self.prefix
        os.chmod(prefix, 0o755)
        for directory in ("www", "client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (prefix / directory).mkdir()
        files = ", a 1 GiB file, a 256 MiB upload" if self.large_files else ""
        log(f"preparing {prefix}: certificates, a 200 B body{files}")
        make_certificates(prefix)
        (prefix / "www" / "small.bin").write_bytes(os.urandom(SMALL_BODY))
        forecast = json.loads(FORECAST_FIXTURE.read_text())
        envelope = {"code": 200, "message": "ok", "data": forecast}
        (prefix / "www" / "envelope.json").write_text(json.dumps(envelope))
        if self.large_files:
            write_file(prefix / "www" / "big.bin", DOWNLOAD_SIZE)
            write_file(prefix / "upload.bin", UPLOAD_SIZE)

        self.http_port = free_port()
        self.https_port = free_port()
        user = ""
        if os.geteuid() == 0:
            # Workers keep the invoking user rather than dropping to `nobody`, who cannot read the temp dir.
            user = f"user {pwd.getpwuid(os.getuid()).pw_name} {grp.getgrgid(os.getgid()).gr_name};\n"
        conf = prefix / "nginx.conf"
        load_modules = delay_location = ""
        if self.delay:
            load_modules = f"load_module {ECHO_MODULE};\n"
            # `echo` ends its line with a newline: 199 characters make a 200-byte body.
            delay_location = DELAY_LOCATION.format(delay=INFLIGHT_DELAY_S, body="0123456789" * 19 + "012345678")
        conf.write_text(NGINX_CONF.format(
            load_modules=load_modules, user=user, workers=self.workers, prefix=prefix, http_port=self.http_port,
            https_port=self.https_port, upload_buffer=f"{UPLOAD_SIZE // (1 << 20) + 1}m",
            delay_location=delay_location))
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

    @property
    def delay_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/delay"

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


def peer_arguments(peer: str, parley_loops: int | None = None) -> tuple[str, ...]:
    """The arguments `peer` adds to every run of its binary: its own, and `--loops N` to parley-bench's when asked."""
    arguments = PEER_ARGUMENTS.get(peer, ())
    if parley_loops is not None and PEERS[peer] == PEERS["parley"]:
        arguments += ("--loops", str(parley_loops))
    return arguments


def run_peer(binary: Path, peer: str, scenario: Scenario, server: Server, quick: bool, round_index: int,
             own_arguments: tuple[str, ...] = ()) -> Run:
    requests = scenario.quick_requests if quick else scenario.requests
    warmup = scenario.quick_warmup if quick else scenario.warmup
    url = server.url(scenario)
    extra: tuple[str, ...] = ()
    if peer in scenario.envelope_peers and scenario.envelope_path is not None:
        url = url.removesuffix(scenario.path) + scenario.envelope_path
        extra = ENVELOPE_ARGUMENTS.get(peer, scenario.envelope_arguments)
    arguments = [
        str(binary), "--url", url, *extra, *own_arguments, "--requests", str(requests), "--concurrency",
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


@dataclasses.dataclass
class InflightRun:
    """One run of the in-flight scenario: a peer at one level, or its idle run (level 0)."""
    peer: str
    level: int
    round: int
    ok: bool
    requests: int = 0
    rps: float = 0
    p50_us: float = 0
    p99_us: float = 0
    cpu_per_request_us: float = 0
    peak_rss_kib: int = 0
    error: str = ""


def inflight_requests(level: int, quick: bool) -> tuple[int, int]:
    """(timed requests, warm-up requests) of a level: whole waves of `level` requests each."""
    waves = INFLIGHT_QUICK_WAVES if quick else INFLIGHT_WAVES
    return waves * level, (0 if quick else level)


def run_inflight_peer(binary: Path, peer: str, level: int, server: Server, quick: bool, round_index: int,
                      own_arguments: tuple[str, ...] = ()) -> InflightRun:
    """Runs `peer` with `level` requests in flight, or idle when `level` is 0."""
    arguments = [str(binary), "--url", server.delay_url, *own_arguments, "--mode", "get", "--label", peer,
                 "--out", "/dev/null"]
    requests = 0
    if level == 0:
        arguments += ["--idle", "--concurrency", str(INFLIGHT_LEVELS[0])]
    else:
        requests, warmup = inflight_requests(level, quick)
        arguments += ["--requests", str(requests), "--concurrency", str(level), "--warmup", str(warmup)]
    time_report = server.prefix / f"time-{peer}-inflight.txt"
    command = ["/usr/bin/time", "-v", "-o", str(time_report), *arguments]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return InflightRun(peer, level, round_index, ok=False, error="timed out after 600 s")
    result = parse_result(completed.stdout)
    rss_kib = parse_peak_rss_kib(time_report.read_text()) if time_report.exists() else None
    if (result is None or completed.returncode != 0 or int(result.get("errors", "1")) != 0
            or int(result.get("ok", "-1")) != requests or rss_kib is None):
        detail = completed.stderr.strip().splitlines()[-3:]
        counts = f"ok={result.get('ok')} errors={result.get('errors')} of {requests}: " if result else ""
        return InflightRun(peer, level, round_index, ok=False,
                           error=f"exit {completed.returncode}: {counts}" + " | ".join(detail))
    return InflightRun(
        peer, level, round_index, ok=True, requests=requests, rps=float(result["rps"]),
        p50_us=float(result["p50_us"]), p99_us=float(result["p99_us"]),
        cpu_per_request_us=float(result["cpu_s"]) / max(requests, 1) * 1e6, peak_rss_kib=rss_kib,
    )


def idle_rss_mib(binary: Path, server: Server, own_arguments: tuple[str, ...] = (), runs: int = 3) -> float | None:
    """The median peak RSS of `binary` started with `--idle` (its engine running, no request sent), in MiB."""
    values = []
    for index in range(runs):
        time_report = server.prefix / f"time-idle-{index}.txt"
        command = ["/usr/bin/time", "-v", "-o", str(time_report), str(binary), "--idle", *own_arguments, "--url",
                   f"http://127.0.0.1:{server.http_port}/small.bin"]
        completed = subprocess.run(command, capture_output=True, text=True, timeout=120)
        rss_kib = parse_peak_rss_kib(time_report.read_text()) if time_report.exists() else None
        if completed.returncode == 0 and rss_kib is not None:
            values.append(rss_kib / 1024)
    return median(values)


def raise_descriptor_limit() -> int:
    """Raises this process's soft RLIMIT_NOFILE to its hard limit, which the peers inherit; returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return soft if soft != resource.RLIM_INFINITY else 1 << 30


# MARK: - Reporting


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def same_round_ratio(runs: list[Run], peer: str, value, baseline: str = BASELINE) -> float | None:
    """The median over rounds of value(peer) / value(baseline), pairing runs of the same round."""
    by_round = {run.round: run for run in runs if run.peer == baseline and run.ok}
    ratios = []
    for run in runs:
        baseline = by_round.get(run.round)
        if run.peer == peer and run.ok and baseline is not None and value(baseline) > 0:
            ratios.append(value(run) / value(baseline))
    return median(ratios)


def number(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def ratio_text(value: float, target: float) -> str:
    """A ratio to two decimals, or more (up to four) while fewer would make it read as equal to its target."""
    digits = 2
    while digits < 4 and value != target and f"{value:.{digits}f}" == f"{target:.{digits}f}":
        digits += 1
    return f"{value:.{digits}f}"


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


def verdicts(scenario: Scenario, runs: list[Run], idle_rss_mib: float | None = None) -> list[str]:
    """Parley's peers against the targets of docs/BENCHMARKS.md."""
    found = []
    for parley in PARLEY_PEERS:
        found += [f"{parley}: {verdict}" for verdict in peer_verdicts(scenario, runs, parley, idle_rss_mib)]
    return found


def peer_verdicts(scenario: Scenario, runs: list[Run], parley: str, idle_rss_mib: float | None) -> list[str]:
    """One of Parley's peers against the targets."""
    runs = [run for run in runs if run.scenario == scenario.key]
    if not any(run.peer == parley and run.ok for run in runs):
        return []
    throughput = (lambda run: run.rps) if scenario.metric == "rps" else (lambda run: run.bytes_per_s)
    found = []
    versus_curl = same_round_ratio(runs, parley, throughput)
    if versus_curl is not None:
        found.append(f"throughput {ratio_text(versus_curl, scenario.target)}× curl "
                     f"(target ≥ {scenario.target:.2f}): " + ("met" if versus_curl >= scenario.target else "MISSED"))
    if scenario.cpu_target is not None:
        cpu = same_round_ratio(runs, parley, lambda run: run.cpu_per_request_us)
        if cpu is not None:
            found.append(f"CPU per request {ratio_text(cpu, scenario.cpu_target)}× curl "
                         f"(target ≤ {scenario.cpu_target:.2f}): "
                         + ("met" if cpu <= scenario.cpu_target else "MISSED"))
    if scenario.idle_rss_margin_mib is not None and idle_rss_mib is not None:
        rss = median([run.peak_rss_mib for run in runs if run.peer == parley and run.ok])
        if rss is not None:
            limit = idle_rss_mib + scenario.idle_rss_margin_mib
            found.append(f"peak RSS {rss:.1f} MiB, {rss - idle_rss_mib:+.1f} MiB over the idle process's "
                         f"{idle_rss_mib:.1f} (target ≤ +{scenario.idle_rss_margin_mib:.0f} MiB): "
                         + ("met" if rss <= limit else "MISSED"))
    if scenario.ahc_target is not None:
        versus_ahc = same_round_ratio(runs, parley, throughput, baseline="ahc")
        if versus_ahc is not None:
            found.append(f"throughput {ratio_text(versus_ahc, scenario.ahc_target)}× ahc "
                         f"(target ≥ {scenario.ahc_target:.2f}): "
                         + ("met" if versus_ahc >= scenario.ahc_target else "MISSED"))
    # parley-direct runs the requests of `parley` without a handle, on the same executor; parley-loop's
    # tasks run elsewhere, so a ratio of it to parley-direct would mix in the executor's gain.
    if scenario.handle_target is not None and parley == "parley":
        versus_direct = same_round_ratio(runs, parley, throughput, baseline="parley-direct")
        if versus_direct is not None:
            found.append(f"throughput {ratio_text(versus_direct, scenario.handle_target)}× parley-direct, the same "
                         f"requests without a handle (target ≥ {scenario.handle_target:.2f}): "
                         + ("met" if versus_direct >= scenario.handle_target else "MISSED"))
    return found


def inflight_table(runs: list[InflightRun], peers: list[str], levels: tuple[int, ...]) -> str:
    """The in-flight scenario: one row per peer and level, medians over rounds."""
    c_peers = [peer for peer in C_PEERS if peer in peers]
    header = ["peer", "in flight", "requests", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "CPU vs 100",
              *(f"CPU vs {c_peer}" for c_peer in c_peers), "peak RSS MiB", "idle RSS MiB",
              "KiB per request in flight"]
    lines = [f"#### {INFLIGHT_TITLE}", "", "| " + " | ".join(header) + " |", "|---|" + "--:|" * (len(header) - 1)]

    def row(cells: list[str]) -> str:
        return "| " + " | ".join(cells + [""] * (len(header) - len(cells))) + " |"

    for peer in peers:
        if (peer, INFLIGHT_KEY) in UNSUPPORTED or peer not in INFLIGHT_PEERS:
            lines.append(row([peer, f"n/a: {UNSUPPORTED.get((peer, INFLIGHT_KEY), 'not a peer of this scenario')}"]))
            continue
        for level in levels:
            mine = [run for run in runs if run.peer == peer and run.level == level]
            good = [run for run in mine if run.ok]
            if not good:
                lines.append(row([peer, f"{level:,}", f"failed: {mine[0].error if mine else 'not run'}"]))
                continue
            failed = len(mine) - len(good)
            lines.append(row([
                peer if failed == 0 else f"{peer} ({failed} failed)", f"{level:,}", f"{good[0].requests:,}",
                number(median([run.rps for run in good]), 0),
                number(median([run.p50_us / 1e3 for run in good]), 0),
                number(median([run.p99_us / 1e3 for run in good]), 0),
                number(median([run.cpu_per_request_us for run in good]), 1),
                number(inflight_cpu_growth(runs, peer, level, levels[0]), 2),
                *(number(inflight_ratio(runs, peer, c_peer, level, inflight_cpu), 2) for c_peer in c_peers),
                number(median([run.peak_rss_kib / 1024 for run in good]), 1),
                number(median([idle.peak_rss_kib / 1024 for idle in idle_runs(runs, peer)]), 1),
                number(inflight_kib_per_request(runs, peer, level), 1),
            ]))
    return "\n".join(lines)


def idle_runs(runs: list[InflightRun], peer: str) -> list[InflightRun]:
    return [run for run in runs if run.peer == peer and run.level == 0 and run.ok]


def inflight_kib_per_request(runs: list[InflightRun], peer: str, level: int) -> float | None:
    """Median over rounds of (peak RSS − the same round's idle RSS) / requests in flight, in KiB."""
    idle_by_round = {run.round: run for run in idle_runs(runs, peer)}
    values = [(run.peak_rss_kib - idle_by_round[run.round].peak_rss_kib) / level
              for run in runs if run.peer == peer and run.level == level and run.ok and run.round in idle_by_round]
    return median(values)


def inflight_cpu_growth(runs: list[InflightRun], peer: str, level: int, base: int) -> float | None:
    """Median over rounds of CPU per request at `level` / CPU per request at `base`, same peer, same round."""
    base_by_round = {run.round: run for run in runs if run.peer == peer and run.level == base and run.ok}
    values = [run.cpu_per_request_us / base_by_round[run.round].cpu_per_request_us
              for run in runs if run.peer == peer and run.level == level and run.ok and run.round in base_by_round
              and base_by_round[run.round].cpu_per_request_us > 0]
    return median(values)


def inflight_cpu(run: InflightRun) -> float:
    return run.cpu_per_request_us


def inflight_rps(run: InflightRun) -> float:
    return run.rps


def inflight_ratio(runs: list[InflightRun], peer: str, baseline: str, level: int, value) -> float | None:
    """Median over rounds of value(peer) / value(baseline), both with `level` in flight, in the same round."""
    base_by_round = {run.round: run for run in runs if run.peer == baseline and run.level == level and run.ok}
    values = [value(run) / value(base_by_round[run.round])
              for run in runs if run.peer == peer and run.level == level and run.ok and run.round in base_by_round
              and value(base_by_round[run.round]) > 0]
    return median(values)


def inflight_readings(runs: list[InflightRun], peers: list[str], levels: tuple[int, ...]) -> list[str]:
    """Parley's peers, and libcurl on its socket interface, against the C peers: same level, same round."""
    found = []
    for peer in peers:
        baselines = [c_peer for c_peer in C_PEERS if c_peer in peers and c_peer != peer]
        if peer not in PARLEY_PEERS + C_PEERS or peer == BASELINE or not baselines:
            continue
        for level in levels:
            rps = [(baseline, inflight_ratio(runs, peer, baseline, level, inflight_rps)) for baseline in baselines]
            cpu = [(baseline, inflight_ratio(runs, peer, baseline, level, inflight_cpu)) for baseline in baselines]
            if all(ratio is None for _, ratio in rps + cpu):
                continue
            found.append(f"{peer} with {level:,} in flight: req/s "
                         + ", ".join(f"{number(ratio, 2)}× {baseline}" for baseline, ratio in rps)
                         + "; CPU per request "
                         + ", ".join(f"{number(ratio, 2)}× {baseline}" for baseline, ratio in cpu))
    return found


def inflight_verdicts(runs: list[InflightRun], levels: tuple[int, ...]) -> list[str]:
    """Parley against the in-flight targets of docs/BENCHMARKS.md."""
    found = []
    top = levels[-1]
    kib = inflight_kib_per_request(runs, "parley", top)
    if kib is not None:
        found.append(f"{kib:.1f} KiB per request with {top:,} in flight (target ≤ {INFLIGHT_RSS_TARGET_KIB} "
                     "KiB): " + ("met" if kib <= INFLIGHT_RSS_TARGET_KIB else "MISSED"))
    rps = inflight_ratio(runs, "parley", "ahc", top, inflight_rps)
    if rps is not None:
        found.append(f"req/s with {top:,} in flight {ratio_text(rps, INFLIGHT_RPS_TARGET)}× AsyncHTTPClient's "
                     f"(target ≥ {INFLIGHT_RPS_TARGET:.2f}): " + ("met" if rps >= INFLIGHT_RPS_TARGET else "MISSED"))
    p99 = inflight_ratio(runs, "parley", "ahc", top, lambda run: run.p99_us)
    if p99 is not None:
        found.append(f"p99 latency with {top:,} in flight {ratio_text(p99, INFLIGHT_P99_TARGET)}× AsyncHTTPClient's "
                     f"(target ≤ {INFLIGHT_P99_TARGET:.2f}): " + ("met" if p99 <= INFLIGHT_P99_TARGET else "MISSED"))
    if len(levels) > 1:
        growth = inflight_cpu_growth(runs, "parley", levels[-1], levels[0])
        if growth is not None:
            found.append(f"CPU per request with {levels[-1]:,} in flight {ratio_text(growth, INFLIGHT_CPU_TARGET)}× "
                         f"that with {levels[0]:,} "
                         f"(target ≤ {INFLIGHT_CPU_TARGET:.2f}): "
                         + ("met" if growth <= INFLIGHT_CPU_TARGET else "MISSED"))
    return found


# MARK: - Main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (5 by default, 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run: fewer requests, one round")
    parser.add_argument("--peers", default=",".join(PEERS), help="comma-separated peers (default: all)")
    scenario_keys = [s.key for s in SCENARIOS] + [INFLIGHT_KEY]
    parser.add_argument("--scenarios", default=",".join(scenario_keys),
                        help="comma-separated scenarios: " + ", ".join(scenario_keys))
    parser.add_argument("--skip-build", action="store_true", help="use the release binaries as they are")
    parser.add_argument("--json", type=Path, help="also write every run to this file")
    parser.add_argument("--workers", type=int, default=NGINX_WORKERS,
                        help=f"nginx worker processes ({NGINX_WORKERS} by default)")
    parser.add_argument("--serve", action="store_true", help="start nginx, print its URLs, wait for Ctrl-C")
    parser.add_argument("--parley-loops", type=int, metavar="N",
                        help="pass --loops N (the engine's event loops) to every run of parley-bench; "
                             "left out unless given")
    arguments = parser.parse_args()
    if arguments.parley_loops is not None and arguments.parley_loops < 1:
        parser.error("--parley-loops must be a positive integer")

    peers = [peer for peer in arguments.peers.split(",") if peer]
    unknown = [peer for peer in peers if peer not in PEERS]
    requested = arguments.scenarios.split(",")
    scenarios = [s for s in SCENARIOS if s.key in requested]
    inflight = INFLIGHT_KEY in requested
    if unknown or not (scenarios or inflight):
        parser.error(f"unknown peers {unknown} or no known scenario")
    rounds = arguments.rounds or (1 if arguments.quick else 5)
    if not Path("/usr/bin/time").exists():
        log("installing GNU time for peak RSS (apt-get install time)")
        subprocess.run(["apt-get", "install", "-y", "-qq", "time"], check=True)
    if (inflight or arguments.serve) and not ECHO_MODULE.exists():
        log("installing nginx's echo module for /delay (apt-get install libnginx-mod-http-echo)")
        subprocess.run(["apt-get", "install", "-y", "-qq", "libnginx-mod-http-echo"], check=True)

    # The in-flight levels this process's descriptor limit allows: one socket per request, and some spare.
    descriptors = raise_descriptor_limit()
    levels = tuple(level for level in INFLIGHT_LEVELS if level + INFLIGHT_SPARE_DESCRIPTORS <= descriptors)
    if inflight and levels != INFLIGHT_LEVELS:
        log(f"warning: RLIMIT_NOFILE is {descriptors}; skipping {sorted(set(INFLIGHT_LEVELS) - set(levels))} "
            "requests in flight (raise the hard limit, ulimit -Hn, to run them)")
    inflight_peers = [peer for peer in peers if peer in INFLIGHT_PEERS and (peer, INFLIGHT_KEY) not in UNSUPPORTED]
    own_arguments = {peer: peer_arguments(peer, arguments.parley_loops) for peer in PEERS}

    bin_path = None
    if not arguments.serve:
        if arguments.skip_build:
            bin_path = Path(subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=PACKAGE,
                                           check=True, capture_output=True, text=True).stdout.strip())
        else:
            bin_path = build(peers)

    large_files = arguments.serve or any(s.mode in ("download", "upload") for s in scenarios)
    server = Server(arguments.workers, large_files=large_files, delay=inflight or arguments.serve)
    interrupted = False

    def stop_on_signal(number: int, _frame) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop_on_signal)
    runs: list[Run] = []
    inflight_runs: list[InflightRun] = []
    parley_idle_mib: float | None = None
    started = time.monotonic()
    load = os.getloadavg()[0]
    log(f"load average at the start: {' '.join(f'{value:.2f}' for value in os.getloadavg())} (1, 5, 15 minutes)")
    if load > 0.5:
        log(f"warning: the 1-minute load average is {load:.2f}; other work on the machine skews the results")
    try:
        server.start()
        if arguments.serve:
            log(f"CA file: {server.prefix / 'ca.pem'}\nupload input: {server.prefix / 'upload.bin'}\n"
                f"paths: /small.bin ({SMALL_BODY} B), /envelope.json (the full-stack envelope; also at "
                f"/weather?city=…, for parley-bench-openapi), /big.bin (1 GiB), "
                f"/upload (POST), /delay ({SMALL_BODY} B after {INFLIGHT_DELAY_S} s)\nCtrl-C stops nginx.")
            while True:
                time.sleep(3600)
        assert bin_path is not None
        if any(s.idle_rss_margin_mib is not None for s in scenarios) and any(p in PARLEY_PEERS for p in peers):
            parley_idle_mib = idle_rss_mib(bin_path / PEERS["parley"], server, own_arguments["parley"])
            log(f"parley-bench idle: {parley_idle_mib or 0:.1f} MiB peak RSS (median of 3)")
        for round_index in range(rounds):
            for scenario in scenarios:
                # Rotate the order every round, so no peer always runs first or last.
                order = peers[round_index % len(peers):] + peers[:round_index % len(peers)]
                for peer in order:
                    if (peer, scenario.key) in UNSUPPORTED:
                        continue
                    run = run_peer(bin_path / PEERS[peer], peer, scenario, server, arguments.quick, round_index,
                                   own_arguments[peer])
                    runs.append(run)
                    summary = (f"{run.rps:,.0f} req/s, {run.bytes_per_s / 1e6:,.1f} MB/s, "
                               f"{run.peak_rss_mib:.1f} MiB" if run.ok else f"FAILED {run.error}")
                    log(f"round {round_index + 1}/{rounds} {scenario.key:<10} {peer:<10} {summary}")
            if inflight:
                order = inflight_peers[round_index % max(len(inflight_peers), 1):] + \
                    inflight_peers[:round_index % max(len(inflight_peers), 1)]
                # Each binary's idle size first, then every level, the peers' order rotating every round.
                for level in (0, *levels):
                    for peer in order:
                        run = run_inflight_peer(bin_path / PEERS[peer], peer, level, server, arguments.quick,
                                                round_index, own_arguments[peer])
                        inflight_runs.append(run)
                        what = "idle" if level == 0 else f"{level:,} in flight"
                        summary = (f"{run.rps:,.0f} req/s, {run.cpu_per_request_us:,.1f} µs CPU/req, "
                                   f"{run.peak_rss_kib / 1024:.1f} MiB" if run.ok else f"FAILED {run.error}")
                        log(f"round {round_index + 1}/{rounds} {INFLIGHT_KEY} {peer:<10} {what}: {summary}")
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted")
    finally:
        server.stop()

    if arguments.serve:
        return 0
    minutes = (time.monotonic() - started) / 60
    end_load = os.getloadavg()[0]
    print(f"### Results: {rounds} round{'s' if rounds > 1 else ''}{' (quick)' if arguments.quick else ''}, "
          f"{minutes:.1f} minutes, load average {load:.2f} at the start, {end_load:.2f} at the end\n")
    print(f"Medians across rounds; ratios are same-round ratios to `{BASELINE}`, median across rounds. "
          f"Throughput ratios compare req/s (a–c, f) or MB/s (d, e).\n")
    if arguments.parley_loops is not None:
        print(f"parley-bench ran with `--loops {arguments.parley_loops}`.\n")
    for scenario in scenarios:
        print(table(scenario, runs, peers))
        found = verdicts(scenario, runs, parley_idle_mib)
        if found:
            print()
        for verdict in found:
            print(f"- {verdict}")
        print()
    if inflight:
        print(inflight_table(inflight_runs, peers, levels))
        print(f"\nCPU vs {levels[0] if levels else '–'}: same-round ratio of CPU per request to the same peer's with "
              f"{levels[0] if levels else '–'} in flight. KiB per request in flight: (peak RSS − the same round's "
              "idle RSS) / requests in flight. CPU vs a C peer: same-round ratio of CPU per request to that peer's "
              "with as many in flight.\n")
        for verdict in inflight_verdicts(inflight_runs, levels):
            print(f"- parley: {verdict}")
        for reading in inflight_readings(inflight_runs, peers, levels):
            print(f"- {reading}")
        print()
    if arguments.json:
        arguments.json.write_text(json.dumps([dataclasses.asdict(run) for run in runs + inflight_runs], indent=2))
    failed = [run for run in runs if not run.ok]
    for run in failed:
        log(f"failed: {run.peer} {run.scenario} round {run.round + 1}: {run.error}")
    inflight_failed = [run for run in inflight_runs if not run.ok]
    for run in inflight_failed:
        log(f"failed: {run.peer} {INFLIGHT_KEY} {run.level or 'idle'} round {run.round + 1}: {run.error}")
    return 1 if failed or inflight_failed or interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
