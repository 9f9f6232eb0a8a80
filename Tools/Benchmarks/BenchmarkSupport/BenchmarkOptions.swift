public import ArgumentParser

/// The command-line contract shared by every benchmark peer.
///
/// Each peer (`parley-bench`, `parley-bench-curl`, `parley-bench-ahc`, `parley-bench-urlsession`) takes exactly
/// these flags and prints exactly one ``ResultLine`` on standard output, so `Tools/Benchmarks/compare.py` can drive
/// them interchangeably. `parley-bench-curl` is written in C and mirrors this type with `getopt_long`; keep the two
/// in step.
///
/// ```swift
/// struct ExampleBench: AsyncParsableCommand {
///     @OptionGroup var options: BenchmarkOptions
///
///     func run() async throws {
///         let report = await runClosedLoop(options: options) { _ in try await fetchOnce() }
///         print(report.resultLine(peer: options.label ?? "example"))
///         if !report.succeeded { throw ExitCode.failure }
///     }
/// }
/// ```
public struct BenchmarkOptions: ParsableArguments, Sendable {
    /// The URL every request targets: `http://` (HTTP/1.1 keep-alive) or `https://` (HTTP/2 where the peer can).
    @Option(help: "The URL every request targets.")
    public var url: String

    /// The number of timed requests; 1000 by default.
    @Option(help: "The number of timed requests.")
    public var requests: Int = 1000

    /// The number of closed-loop workers, and the connection limit per host; 1 by default.
    @Option(help: "The number of closed-loop workers, and the connection limit per host.")
    public var concurrency: Int = 1

    /// What each request does; ``BenchmarkMode/get`` by default.
    @Option(help: "What each request does.")
    public var mode: BenchmarkMode = .get

    /// Where `download` mode writes each response body; `/dev/null` by default.
    @Option(help: "Where download mode writes each response body.")
    public var out: String = "/dev/null"

    /// The file `upload` mode sends as each request body; required in that mode.
    @Option(name: .customLong("in"), help: "The file upload mode sends as each request body.")
    public var input: String?

    /// Requests run before timing begins, at the same concurrency; 0 by default.
    @Option(help: "Requests run before timing begins, at the same concurrency.")
    public var warmup: Int = 0

    /// A PEM file of certificate authorities trusted for `https://` URLs. Verification is always on.
    @Option(help: "A PEM file of certificate authorities trusted for https URLs.")
    public var cacert: String?

    /// The `peer=` value of the result line; each peer supplies its own default.
    @Option(help: "The peer= value of the result line.")
    public var label: String?

    /// Start the client (its engine created and its event loop running), send no request, and exit.
    ///
    /// Measures what a peer costs before its first request: `compare.py` subtracts the peak resident size of an
    /// idle run from that of a loaded one. The peer prints a result line with `requests=0` (see
    /// ``ClosedLoopReport/idle(options:)``); `--requests` is ignored.
    @Flag(help: "Start the client, send no request, and exit (for the idle resident size).")
    public var idle = false

    public init() {}

    /// Whether ``url`` uses TLS.
    public var isSecure: Bool {
        url.lowercased().hasPrefix("https://")
    }

    public func validate() throws {
        guard requests > 0 else { throw ValidationError("--requests must be positive.") }
        guard concurrency > 0 else { throw ValidationError("--concurrency must be positive.") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative.") }
        if mode == .upload, input == nil {
            throw ValidationError("--mode upload needs --in FILE.")
        }
    }
}
