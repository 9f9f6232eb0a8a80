import Feedback
import FeedbackConsole
import Forms
import Foundation
import Logging
import MockBackend
import ParleyObservability
import Retry
import Synchronization
import SystemAPI
import Tracing
import Transport
import TransportCurl
import WeatherAPI

/// What a command runs with: the backend's address, a client on the engine, the console, and
/// where results go.
///
/// The composition root of the demo: the one place that chooses the engine (`CurlTransport`)
/// and the console (`ConsolePresenter`). The feature modules see only the client.
struct DemoSession: Sendable {
    /// The backend's address, without a trailing slash.
    let baseURL: String
    /// The client every screen sends through.
    let client: ClientConfiguration
    /// The console on standard error.
    let console: ConsolePresenter
    /// Where results go.
    let output: ResultOutput
    /// The embedded backend, when parley-demo started one.
    let backend: MockServer?
    /// Notes to print if the command is interrupted, such as where a partial download is kept.
    private let interruptionNotes = NoteList()

    /// A screen that sends through this session's client.
    var screen: DemoScreen { DemoScreen(clientConfiguration: client) }

    /// Remembers a sentence to print should the command be interrupted.
    func noteOnInterruption(_ note: String) {
        interruptionNotes.lines.withLock { $0.append(note) }
    }

    /// The notes to print after an interruption.
    var notesForInterruption: [String] { interruptionNotes.lines.withLock { $0 } }

    /// Warns about a failure on the console, as one alert.
    func warn(_ error: any Error) {
        Alert(title: "parley-demo").warn(error)
    }
}

/// A flag one task raises and another reads.
final class RaisedFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func raise() { value.store(true, ordering: .sequentiallyConsistent) }
    var isRaised: Bool { value.load(ordering: .sequentiallyConsistent) }
}

/// Lines shared by every copy of a session.
final class NoteList: Sendable {
    let lines = Mutex<[String]>([])
}

/// A screen of the demo: it sends the system and weather requests, and asks (in a terminal)
/// whether to try again once the retries are spent.
struct DemoScreen: SystemRequestable, WeatherRequestable, Reloadable, Sendable {
    let clientConfiguration: ClientConfiguration?
}

/// Runs a command's work in a session, and turns its outcome into an exit status.
enum DemoRunner {
    /// Sets up the session, runs `body`, tears everything down, and returns the exit status.
    ///
    /// - Parameters:
    ///   - options: The global options.
    ///   - body: The command's work.
    /// - Returns: The exit status: 0, or the status of the failure.
    static func run(
        _ options: GlobalOptions, _ body: @escaping @Sendable (DemoSession) async throws -> Void
    ) async -> ExitStatus {
        let console = ConsolePresenter()
        defer { console.finish() }
        do {
            // A demo process runs one command, and this is where its systems are installed.
            try FeedbackSystem.bootstrap(
                console, catalog: DemoMessages.adding(to: .preferred(environment: ProcessInfo.processInfo.environment)))
            try ReloadSystem.bootstrap(ConsoleReloadPrompt(presenter: console, allowsInput: !options.noInput))
        } catch {
            standardError("parley-demo: \(error)")
            return .usage
        }

        let backend: EmbeddedBackend?
        let baseURL: String
        let transport: CurlTransport
        do {
            if let server = options.server {
                backend = nil
                baseURL = try GlobalOptions.validatedServer(server)
            } else {
                let embedded = try await EmbeddedBackend.start()
                backend = embedded
                baseURL = embedded.server.baseURL
            }
            var configuration = CurlTransport.Configuration()
            configuration.tls.caFile = options.cacert
            configuration.userAgent = "parley-demo"
            if options.verbose { configuration.logger = logger(console: console, level: .debug) }
            transport = try CurlTransport(configuration: configuration)
        } catch {
            Alert(title: "parley-demo").warn(error)
            return .network
        }

        var client = ClientConfiguration(transport: transport, baseURL: baseURL)
        // Retries and logins are worth a line; every request only with --verbose.
        client.logger = logger(console: console, level: options.verbose ? .debug : .notice)
        client.isLoggingEnabled = options.verbose
        // With --verbose, each request also as the curl command that sends it again.
        if options.verbose { client.plugins.append(CurlCommandPlugin(logger: client.logger)) }
        client.retry.maximumRetries = options.retryCount
        client.retry.deadline = options.timeout.map { .seconds($0) }
        // The client retries outside its middleware, so a link here sees each attempt.
        let tracer = options.trace ? SpanTreeTracer() : nil
        if tracer != nil {
            client.requestMiddleware.append(RequestTelemetry())
            client.middleware.append(AttemptTelemetry())
        }
        let session = DemoSession(
            baseURL: baseURL, client: client, console: console, output: ResultOutput(json: options.json),
            backend: backend?.server)

        let status: ExitStatus
        if let tracer {
            status = await traced(by: tracer, session: session, options: options, body)
        } else {
            status = await runCancellable(session: session, timeout: options.timeout, body)
        }
        await transport.shutdown()
        await backend?.stop()
        // After the console's last lines (a cancelled transfer's summary among them).
        console.finish()
        if let tracer { standardError(tracer.renderedTree()) }
        if let signal = Interruption.signal {
            standardError((["parley-demo: interrupted."] + session.notesForInterruption).joined(separator: " "))
            return Interruption.status(for: signal)
        }
        return status
    }

    /// Runs the command under `tracer`, in a span named for the command line.
    private static func traced(
        by tracer: SpanTreeTracer, session: DemoSession, options: GlobalOptions,
        _ body: @escaping @Sendable (DemoSession) async throws -> Void
    ) async -> ExitStatus {
        let name = (["parley-demo"] + commandWords(CommandLine.arguments.dropFirst()).prefix(2)).joined(separator: " ")
        return await withTracer(tracer) {
            let span = tracer.startSpan(name, context: .topLevel, ofKind: .internal)
            let status = await InstrumentationContext.withValue(span.context) {
                await runCancellable(session: session, timeout: options.timeout, body)
            }
            span.attributes.set("exit.status", value: .int(Int64(status.rawValue)))
            if status != .success { span.setStatus(SpanStatus(code: .error)) }
            span.end()
            return status
        }
    }

    /// The words of a command line that name the command and its arguments: neither options
    /// nor the values of the global options that take one.
    private static func commandWords(_ arguments: ArraySlice<String>) -> [String] {
        let valued: Set = ["--server", "--retries", "--timeout", "--cacert"]
        var words: [String] = []
        var skipsNext = false
        for argument in arguments {
            if skipsNext {
                skipsNext = false
            } else if valued.contains(argument) {
                skipsNext = true
            } else if !argument.hasPrefix("-") {
                words.append(argument)
            }
        }
        return words
    }

    /// A logger that prints above the console's live area.
    private static func logger(console: ConsolePresenter, level: Logger.Level) -> Logger {
        Logger(label: "parley-demo") { _ in ConsoleLogHandler(console: console, logLevel: level) }
    }

    /// Runs `body` in a task that Ctrl-C, SIGTERM and the deadline cancel.
    private static func runCancellable(
        session: DemoSession, timeout: Double?, _ body: @escaping @Sendable (DemoSession) async throws -> Void
    ) async -> ExitStatus {
        let timedOut = RaisedFlag()
        let work = Task { try await body(session) }
        Interruption.install { work.cancel() }
        let watchdog = timeout.map { seconds in
            Task {
                try await Task.sleep(for: .seconds(seconds))
                timedOut.raise()
                work.cancel()
            }
        }
        let result = await work.result
        watchdog?.cancel()

        if Interruption.signal != nil {
            // Said by `run` once everything has stopped.
            return .interrupted
        }
        switch result {
        case .success:
            return .success
        case .failure(let error)
        where timedOut.isRaised
            || (timeout != nil && (error as? TransportError)?.category == .deadlineExceeded):
            // The watchdog, or the retry policy's deadline that the transfers inherit: either
            // way, the command's --timeout.
            let seconds = timeout.map { $0.formatted() } ?? ""
            session.warn(
                TransportError(
                    .deadlineExceeded,
                    message: "The command did not finish within --timeout \(seconds) s, retries and waits "
                        + "included; give it longer.",
                    url: session.baseURL))
            return .network
        case .failure(let error):
            session.warn(error)
            return ExitStatus(for: error)
        }
    }
}

/// Writes a line to standard error, outside the console's live area, with control characters
/// and escape sequences (which a server's text may hold) made harmless by `TerminalText`.
func standardError(_ line: String) {
    StandardStreams.writeError(TerminalText.escaped(line, keepingLineBreaks: true) + "\n")
}
