/// The one line a benchmark peer prints on standard output.
///
/// ```
/// RESULT peer=curl mode=get requests=1000 concurrency=1 ok=1000 errors=0 seconds=0.081234 rps=12310.0
///     p50_us=78.1 p99_us=120.4 bytes=200000 bytes_per_s=2462024 cpu_s=0.052000
/// ```
///
/// (One line in practice.) Rates are derived, never measured: `rps = ok / seconds` and
/// `bytes_per_s = bytes / seconds`, both 0 when `seconds` is 0.
public struct ResultLine: Hashable, Sendable, CustomStringConvertible {
    /// The peer's label.
    public var peer: String
    /// The mode every request ran in.
    public var mode: BenchmarkMode
    /// The number of timed requests.
    public var requests: Int
    /// The number of closed-loop workers.
    public var concurrency: Int
    /// Timed requests that ended with a 2xx response and a complete body.
    public var ok: Int
    /// Timed requests that failed or ended with a status other than 2xx.
    public var errors: Int
    /// From the first timed request's start to the last one's completion.
    public var seconds: Double
    /// The median latency, in microseconds.
    public var p50Microseconds: Double
    /// The 99th-percentile latency, in microseconds.
    public var p99Microseconds: Double
    /// Response body bytes received (`get`, `download`) or request body bytes sent (`upload`).
    public var bytes: Int
    /// User plus system CPU time the process spent in the timed window.
    public var cpuSeconds: Double

    public init(
        peer: String,
        mode: BenchmarkMode,
        requests: Int,
        concurrency: Int,
        ok: Int,
        errors: Int,
        seconds: Double,
        p50Microseconds: Double,
        p99Microseconds: Double,
        bytes: Int,
        cpuSeconds: Double
    ) {
        self.peer = peer
        self.mode = mode
        self.requests = requests
        self.concurrency = concurrency
        self.ok = ok
        self.errors = errors
        self.seconds = seconds
        self.p50Microseconds = p50Microseconds
        self.p99Microseconds = p99Microseconds
        self.bytes = bytes
        self.cpuSeconds = cpuSeconds
    }

    /// Completed requests per second: `ok / seconds`.
    public var requestsPerSecond: Double {
        seconds > 0 ? Double(ok) / seconds : 0
    }

    /// Throughput: `bytes / seconds`.
    public var bytesPerSecond: Double {
        seconds > 0 ? Double(bytes) / seconds : 0
    }

    public var description: String {
        [
            "RESULT",
            "peer=\(peer)",
            "mode=\(mode.rawValue)",
            "requests=\(requests)",
            "concurrency=\(concurrency)",
            "ok=\(ok)",
            "errors=\(errors)",
            "seconds=\(fixed(seconds, decimals: 6))",
            "rps=\(fixed(requestsPerSecond, decimals: 1))",
            "p50_us=\(fixed(p50Microseconds, decimals: 1))",
            "p99_us=\(fixed(p99Microseconds, decimals: 1))",
            "bytes=\(bytes)",
            "bytes_per_s=\(fixed(bytesPerSecond, decimals: 0))",
            "cpu_s=\(fixed(cpuSeconds, decimals: 6))",
        ].joined(separator: " ")
    }
}

/// `value` in fixed-point notation with `decimals` digits after the point, rounded half away from zero, as C's
/// `printf("%.*f")` prints it for the magnitudes a benchmark produces.
///
/// - Parameters:
///   - value: The number to format; not-a-number and infinities print as `nan`, `inf` and `-inf`.
///   - decimals: Digits after the point, in `0...9`.
/// - Returns: For example `fixed(3.14159, decimals: 2) == "3.14"` and `fixed(2.5, decimals: 0) == "3"`.
public func fixed(_ value: Double, decimals: Int) -> String {
    if value.isNaN { return "nan" }
    if value.isInfinite { return value < 0 ? "-inf" : "inf" }
    let places = min(max(decimals, 0), 9)
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
    guard scaled < 9.0e18 else { return String(value) }
    let units = UInt64(scaled)
    let divisor = UInt64(scale)
    let sign = value < 0 && units > 0 ? "-" : ""
    let whole = units / divisor
    guard places > 0 else { return "\(sign)\(whole)" }
    let fraction = String(units % divisor)
    let padding = String(repeating: "0", count: places - fraction.count)
    return "\(sign)\(whole).\(padding)\(fraction)"
}
