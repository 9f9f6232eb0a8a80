import ArgumentParser
import Feedback
import FeedbackConsole
import Forms
import Foundation
import HTTPTypes
import Mapping
import Synchronization
import Transport

/// `parley-demo tour`: a short guided tour of the commands, against the embedded backend.
struct TourCommand: DemoCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "A short guided tour: every command once, with a loading mask, progress bars, a count, a "
            + "business error and a retry after a fault.",
        discussion: """
            `make demo` runs it. It sets the backend's faults (delays, a 503) through its /faults \
            routes, so it also works with --server against `parley-demo serve`. Every stop runs \
            whatever the ones before met: a refused fault route, a stop that does not go as planned \
            and the final reset are each a warning naming it. Exit status: 0 when every stop went \
            as planned (the unknown city and the batch with it fail on purpose), otherwise, once the \
            tour is done, the status of the first step that did not (3 against a server that is not \
            the demo's backend); 141 when the reader of standard output goes away. --json does not \
            apply: the tour is written for a person.
            """
    )

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if global.json {
            throw ValidationError(
                "--json does not apply to tour: it is a walk-through written for a person. Use --json with "
                    + "the commands it visits, such as parley-demo weather forecast Toronto --json.")
        }
    }

    /// One stop of the tour.
    struct Stop {
        var title: String
        var explanation: String
        /// The failure the stop shows on purpose: a business error (exit status 1).
        var failsOnPurpose = false
        var run: @Sendable (DemoSession) async throws -> Void
    }

    func perform(in session: DemoSession) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("sky.jpg")
        try Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: photo)
        let radar = folder.appendingPathComponent("radar-toronto.png").path

        let stops = Self.stops(photo: photo.path, radar: radar)
        let unplanned = UnplannedFailures()
        try session.output.write("Parley tour: \(stops.count) stops against \(session.baseURL)\n")
        for (number, stop) in stops.enumerated() {
            try session.output.write("── \(number + 1). \(stop.title)")
            try session.output.write("   \(stop.explanation)")
            do {
                try await Faults.$unplanned.withValue(unplanned) { try await stop.run(session) }
            } catch  where !Task.isCancelled && !(error is StandardOutputError) {
                // The failure is part of the tour: it is shown, and the tour goes on.
                session.warn(error)
                let status = ExitStatus(for: error)
                try session.output.write("   (exit status \(status.rawValue) for this command)")
                if !(stop.failsOnPurpose && status == .business) {
                    unplanned.add(error)
                    session.warn(
                        TourNote(
                            "Stop \(number + 1), \(stop.title), did not go as planned (exit status "
                                + "\(status.rawValue)); the tour goes on."))
                }
            }
            try session.output.write("")
        }
        await Faults.$unplanned.withValue(unplanned) { await Faults.reset(session) }
        try session.output.write(
            "Tour done. Try: parley-demo --help, or parley-demo weather forecast 北京 --mask hud")
        if let failure = unplanned.summary() { throw failure }
    }

    /// The stops, in order.
    static func stops(photo: String, radar: String) -> [Stop] {
        [
            Stop(
                title: "System time and version",
                explanation: "SystemAPI: GET /sysTime and POST /sysVersion, decoded from the server's envelope."
            ) { session in
                try await command(SystemCommand.Time.self, []).perform(in: session)
                try await command(SystemCommand.Version.self, ["--app-version", "1.1.0"]).perform(in: session)
            },
            Stop(
                title: "A forecast with a loading mask",
                explanation: "The backend waits 1.5 s; a HUD mask covers the panel meanwhile."
            ) { session in
                try await Faults.during({ await Faults.delay("/weather", milliseconds: 1500, session) }) {
                    try await command(WeatherCommand.Forecast.self, ["Toronto", "--mask", "hud"]).perform(in: session)
                } undo: {
                    await Faults.delay("/weather", milliseconds: 0, session)
                }
            },
            Stop(
                title: "The cities, page by page",
                explanation: "GET /weather/cities with a cursor, 20 a page, until the server says there is no more."
            ) { session in
                try await command(WeatherCommand.Cities.self, ["--all", "--limit", "20"]).perform(in: session)
            },
            Stop(
                title: "A radar download with a progress bar",
                explanation: "The image streams to a partial file and is renamed when whole; Ctrl-C keeps it."
            ) { session in
                try await Faults.during({ await Faults.pace("/weather/radar", millisecondsPer64KiB: 12, session) }) {
                    try await command(WeatherCommand.Radar.self, ["Toronto", "--output", radar, "--size", "12582912"])
                        .perform(in: session)
                } undo: {
                    await Faults.pace("/weather/radar", millisecondsPer64KiB: 0, session)
                }
            },
            Stop(
                title: "A report upload",
                explanation: "Multipart with a 3 MiB photo; the server asks for a token, the client logs in and "
                    + "sends it again."
            ) { session in
                try await command(WeatherCommand.Report.self, ["Toronto", "--photo", photo, "--note", "Clear skies"])
                    .perform(in: session)
            },
            Stop(
                title: "A batch with a count",
                explanation: "Eight forecasts, three at a time, each taking 400 ms; one city is unknown.",
                failsOnPurpose: true
            ) { session in
                try await Faults.during({ await Faults.delay("/weather", milliseconds: 400, session) }) {
                    try await command(
                        WeatherCommand.Batch.self,
                        ["Toronto", "Paris", "北京", "São Paulo", "Atlantis", "Zürich", "上海", "Sydney"]
                    ).perform(in: session)
                } undo: {
                    await Faults.delay("/weather", milliseconds: 0, session)
                }
            },
            Stop(
                title: "A failure with the server's message",
                explanation: "An unknown city is a business error: exit status 1, and the server's words.",
                failsOnPurpose: true
            ) { session in
                await Faults.delay("/weather", milliseconds: 0, session)
                try await command(WeatherCommand.Forecast.self, ["Atlantis"]).perform(in: session)
            },
            Stop(
                title: "A retry after a fault",
                explanation: "The backend answers 503 with Retry-After: 1 once; the client waits and asks again."
            ) { session in
                await Faults.script("/sysTime", ["503:1", "ok"], session)
                try await command(SystemCommand.Time.self, []).perform(in: session)
            },
        ]
    }

    /// A command parsed from `arguments`, as if typed after its name.
    static func command<Command: DemoCommand>(_ type: Command.Type, _ arguments: [String]) throws -> Command {
        try Command.parse(arguments)
    }
}

/// The backend's fault routes, through the session's client.
///
/// A backend that is not parley-demo's (`--server` naming another server) has no such routes:
/// each refusal is a warning naming the route, counted as a stop that did not go as planned,
/// and the stop goes on without its fault.
enum Faults {
    /// Where the tour counts what did not go as planned.
    @TaskLocal static var unplanned: UnplannedFailures?

    /// A request to one of the `/faults` routes.
    struct Form: RequestFormable {
        var path: String
        var parameters: Parameters
        var method: HTTPRequest.Method { .post }
        var encoding: ParameterEncoding { .urlQuery }
    }

    /// Runs `body` with a fault set, and takes the fault away again whatever `body` does.
    static func during(
        _ set: () async -> Void, _ body: () async throws -> Void, undo: () async -> Void
    ) async throws {
        await set()
        do {
            try await body()
        } catch {
            await undo()
            throw error
        }
        await undo()
    }

    static func delay(_ path: String, milliseconds: Int, _ session: DemoSession) async {
        await send(Form(path: "/faults/delay", parameters: ["path": path, "ms": milliseconds]), session)
    }

    static func pace(_ path: String, millisecondsPer64KiB: Int, _ session: DemoSession) async {
        await send(Form(path: "/faults/pace", parameters: ["path": path, "ms": millisecondsPer64KiB]), session)
    }

    static func script(_ path: String, _ outcomes: [String], _ session: DemoSession) async {
        await send(
            Form(path: "/faults/script", parameters: ["path": path, "outcomes": outcomes.joined(separator: ",")]),
            session)
    }

    static func reset(_ session: DemoSession) async {
        await send(Form(path: "/faults/reset", parameters: [:]), session)
    }

    /// Sends `form`; a failure is warned about, named, and counted, and the tour goes on.
    private static func send(_ form: Form, _ session: DemoSession) async {
        do {
            _ = try await session.screen.request(form).bytes().value
        } catch  where !Task.isCancelled {
            unplanned?.add(error)
            let reason = FeedbackSystem.catalog.warning(for: error)?.text ?? "it failed"
            session.warn(
                TourNote(
                    "The backend did not take POST \(form.path), so the tour goes on without it; is it "
                        + "parley-demo's backend (parley-demo serve)? \(reason)"))
        } catch {
            // Cancelled: the command is ending, and says so itself.
        }
    }
}

/// A line of the tour's own on the console, as a warning.
struct TourNote: Error, Errorable {
    var message: String?
    var isFailure: Bool { true }

    init(_ message: String) { self.message = message }
}

/// The failures of the tour that were not part of its plan, in order.
final class UnplannedFailures: Sendable {
    private let failures = Mutex<[any Error]>([])

    func add(_ error: any Error) {
        failures.withLock { $0.append(error) }
    }

    /// The tour's failure when anything did not go as planned; `nil` otherwise.
    func summary() -> TourIncomplete? {
        let failures = failures.withLock { $0 }
        guard let first = failures.first else { return nil }
        return TourIncomplete(count: failures.count, first: first)
    }
}

/// The tour reached its end, but some stops (or the fault routes, or the final reset) did not
/// go as planned: the exit status is that of the first of them.
struct TourIncomplete: Error, Errorable, CustomStringConvertible {
    var count: Int
    var first: any Error
    var description: String { "\(count) step(s) of the tour did not go as planned; the first: \(first)" }
    var message: String? {
        "The tour reached its end, but \(count) of its steps did not go as planned (each is warned about above)."
    }
    var isFailure: Bool { true }
}
