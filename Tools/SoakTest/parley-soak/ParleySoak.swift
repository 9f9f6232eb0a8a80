import ArgumentParser
import Foundation
import Retry
import Transport
import TransportCurl

/// `parley-soak`: a long run of faulted traffic through Parley's business layer, which fails
/// when a request is lost, hangs, ends twice or is applied twice by the server, or when the
/// process's memory, descriptors or threads grow.
///
/// ```sh
/// parley-soak --requests 100000 --in-flight 64 --fault-rate 0.1 --downloads 200 --seed 7
/// ```
///
/// It starts `parley-mock-server` (built beside it) with its chaos on, then drives forms,
/// `Requestable`, the envelope decoding of Mapping and the client's `RetryPolicy` on
/// `CurlTransport`, and finally resumable downloads, some dropped mid-body, some cancelled,
/// some made by a `parley-fetch` child killed with SIGKILL and resumed. It prints a summary
/// and exits 0 when every check passed, 1 naming each one that failed.
@main
struct ParleySoak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-soak",
        abstract:
            "Faulted traffic through forms, retries and downloads; fails on a loss, a hang, a duplicate or growth.",
        discussion: """
            Starts parley-mock-server (beside this program, or --server) with --chaos at --fault-rate: \
            drops before a byte, resets mid-body, 503 with and without Retry-After, and stalls that \
            the client's 1 s stall timeout ends. Requests (forecasts, city pages, the server's time, \
            version checks, and POSTs with an Idempotency-Key to /idempotent, a tenth of which lose \
            their answer after being applied) run --in-flight at a time; one in --cancel-every is \
            cancelled at a random moment. Then --downloads resumable downloads of /bytes, dropped \
            mid-body, cancelled and resumed, or made by parley-fetch killed with SIGKILL and resumed.

            It checks that every request ended exactly once (a watchdog names any that did not \
            within --hang-after seconds), that the server applied every idempotency key at most \
            once, that every download is byte-exact or absent with its partial a prefix of the file, \
            and that resident memory, open descriptors and threads after all the requests are within \
            the bounds of their values after --baseline-after requests, both measured with no request \
            in flight. The same --seed repeats the same requests, cancellations and server faults \
            (the faults in the order the server receives them).
            """
    )

    @Option(help: "Requests to send through the business layer.")
    var requests = 100_000

    @Option(help: "Requests in flight at once.")
    var inFlight = 64

    @Option(help: ArgumentHelp("The share of answers the server faults, 0...1.", valueName: "rate"))
    var faultRate = 0.1

    @Option(help: ArgumentHelp("One request in N is cancelled at a random moment; 0 cancels none.", valueName: "n"))
    var cancelEvery = 20

    @Option(help: ArgumentHelp("The seed of every random choice; a random one when absent.", valueName: "n"))
    var seed: UInt64?

    @Option(
        help: ArgumentHelp(
            "Send requests until this many seconds have passed (at least --baseline-after of them), instead of --requests.",
            valueName: "seconds"))
    var duration: Int?

    @Option(help: "Resumable downloads, after the requests.")
    var downloads = 200

    @Option(help: "Downloads in flight at once.")
    var downloadsInFlight = 8

    @Option(
        help: ArgumentHelp(
            "Where the baseline of memory, descriptors and threads is taken; a tenth of --requests (at most 10000) by default.",
            valueName: "requests"))
    var baselineAfter: Int?

    @Option(help: ArgumentHelp("Sample memory, descriptors and threads every N requests.", valueName: "n"))
    var sampleEvery: Int?

    @Option(help: ArgumentHelp("The most resident memory may grow after the baseline.", valueName: "KiB"))
    var rssBound = 4096

    @Option(
        help: ArgumentHelp(
            "The most open descriptors other than sockets may grow after the baseline.", valueName: "n"))
    var descriptorBound = 0

    @Option(
        help: ArgumentHelp(
            "The most open sockets (the engine's idle connections to the backend) beyond those at the start; the "
                + "engine's connection limit per host by default.", valueName: "n"))
    var socketBound = CurlTransport.Configuration().maximumConnectionsPerHost

    @Option(help: ArgumentHelp("The most threads may grow after the baseline.", valueName: "n"))
    var threadBound = 0

    @Option(help: ArgumentHelp("A request still running after this long is reported as hung.", valueName: "seconds"))
    var hangAfter = 60

    @Option(
        help: ArgumentHelp(
            "The mock server to run; parley-mock-server beside this program by default.", valueName: "path"))
    var server: String?

    @Option(
        help: ArgumentHelp("The downloader to kill; parley-fetch beside this program by default.", valueName: "path"))
    var fetch: String?

    func validate() throws {
        guard requests >= 0, downloads >= 0 else {
            throw ValidationError("--requests and --downloads must be 0 or more.")
        }
        guard inFlight >= 1, downloadsInFlight >= 1 else {
            throw ValidationError("--in-flight and --downloads-in-flight must be 1 or more.")
        }
        guard faultRate.isFinite, (0...1).contains(faultRate) else {
            throw ValidationError("--fault-rate must be in 0...1, got \(faultRate).")
        }
        guard cancelEvery >= 0, hangAfter >= 1, rssBound >= 0, descriptorBound >= 0, socketBound >= 0, threadBound >= 0
        else {
            throw ValidationError("--cancel-every and the bounds must be 0 or more, --hang-after 1 or more.")
        }
        if let duration, duration < 1 { throw ValidationError("--duration must be 1 second or more.") }
    }

    func run() async throws {
        let seed = seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
        let baseline = baselineAfter ?? max(1, min(10_000, requests / 10))
        let plan = SoakPlan(
            requests: requests, inFlight: inFlight, faultRate: faultRate, cancelEvery: cancelEvery, seed: seed,
            duration: duration.map { .seconds($0) }, baselineAfter: baseline,
            sampleEvery: sampleEvery ?? max(1, (duration == nil ? requests : 100_000) / 10),
            downloads: downloads, downloadsInFlight: downloadsInFlight, hangAfter: .seconds(hangAfter),
            bounds: ProcessSample.Bounds(
                residentKiB: rssBound, descriptors: descriptorBound, sockets: socketBound, threads: threadBound))
        say("parley-soak: seed \(seed) (repeat with --seed \(seed))")
        say(
            "parley-soak: \(duration.map { "\($0) s of" } ?? "\(requests)") requests, \(inFlight) in flight, "
                + "\(Int((faultRate * 100).rounded())) % faulted, 1 in \(cancelEvery) cancelled; "
                + "\(downloads) downloads, \(downloadsInFlight) in flight")

        let serverPath = try server ?? Sibling.path("parley-mock-server")
        let fetchPath = try fetch ?? Sibling.path("parley-fetch")
        let mock = try MockServerProcess.start(
            serverPath, chaos: faultRate, seed: seed, faults: ["drop", "reset", "stall", "503", "503:none"])
        defer { mock.stop() }
        say("parley-soak: \(serverPath) listening on \(mock.baseURL), pid \(mock.pid)")

        let transport = try CurlTransport()
        let report = SoakReport()
        let soak = Soak(plan: plan, server: mock, transport: transport, fetchPath: fetchPath, report: report)
        let watchdog = Task { await soak.watch() }
        await soak.runRequests()
        await soak.checkServer()
        await soak.runDownloads()
        watchdog.cancel()
        await soak.finalSample()
        await transport.shutdown()
        report.printSummary(plan: plan)
        let failures = report.failures()
        if failures.isEmpty {
            say("parley-soak: PASS")
        } else {
            for failure in failures { say("parley-soak: FAIL: \(failure)") }
            say(
                "parley-soak: FAIL (\(failures.count) \(failures.count == 1 ? "check" : "checks") failed; seed \(seed))"
            )
            throw ExitCode(1)
        }
    }
}

/// What one run does: counts, rates, bounds and the seed.
struct SoakPlan: Sendable {
    var requests: Int
    var inFlight: Int
    var faultRate: Double
    var cancelEvery: Int
    var seed: UInt64
    var duration: Duration?
    var baselineAfter: Int
    var sampleEvery: Int
    var downloads: Int
    var downloadsInFlight: Int
    var hangAfter: Duration
    var bounds: ProcessSample.Bounds
}

/// Executables built beside this one.
enum Sibling {
    /// The path of `name` in this executable's folder.
    ///
    /// - Throws: `ValidationError` when it is not there.
    static func path(_ name: String) throws -> String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidate = executable.deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw ValidationError(
                "\(name) is not built beside parley-soak (\(candidate)): build it (`make soak` does), or pass its path."
            )
        }
        return candidate
    }
}

/// Writes `line` and a newline to standard output at once, unbuffered, so that a long run can be
/// followed also when its output goes to a file or a pipe (where `print` would hold it back).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
