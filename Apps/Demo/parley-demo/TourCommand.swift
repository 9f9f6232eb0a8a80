import ArgumentParser
import Feedback
import Forms
import Foundation
import HTTPTypes
import Mapping
import Transport

/// `parley-demo tour`: a short guided tour of the commands, against the embedded backend.
struct TourCommand: DemoCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "A short guided tour: every command once, with a loading mask, progress bars, a count, a "
            + "business error and a retry after a fault.",
        discussion: """
            `make demo` runs it. It sets the backend's faults (delays, a 503) through its /faults \
            routes, so it also works with --server against `parley-demo serve`.
            """
    )

    @OptionGroup var global: GlobalOptions

    /// One stop of the tour.
    struct Stop {
        var title: String
        var explanation: String
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
        session.output.write("Parley tour: \(stops.count) stops against \(session.baseURL)\n")
        for (number, stop) in stops.enumerated() {
            session.output.write("── \(number + 1). \(stop.title)")
            session.output.write("   \(stop.explanation)")
            do {
                try await stop.run(session)
            } catch  where !Task.isCancelled {
                // The failure is part of the tour: it is shown, and the tour goes on.
                session.warn(error)
                session.output.write("   (exit status \(ExitStatus(for: error).rawValue) for this command)")
            }
            session.output.write("")
        }
        try await Faults.reset(session)
        session.output.write("Tour done. Try: parley-demo --help, or parley-demo weather forecast 北京 --mask hud")
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
                try await Faults.delay("/weather", milliseconds: 1500, session)
                try await command(WeatherCommand.Forecast.self, ["Toronto", "--mask", "hud"]).perform(in: session)
                try await Faults.delay("/weather", milliseconds: 0, session)
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
                try await Faults.pace("/weather/radar", millisecondsPer64KiB: 12, session)
                try await command(WeatherCommand.Radar.self, ["Toronto", "--output", radar, "--size", "12582912"])
                    .perform(in: session)
                try await Faults.pace("/weather/radar", millisecondsPer64KiB: 0, session)
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
                explanation: "Eight forecasts, three at a time, each taking 400 ms; one city is unknown."
            ) { session in
                try await Faults.delay("/weather", milliseconds: 400, session)
                defer { Task { try? await Faults.delay("/weather", milliseconds: 0, session) } }
                try await command(
                    WeatherCommand.Batch.self,
                    ["Toronto", "Paris", "北京", "São Paulo", "Atlantis", "Zürich", "上海", "Sydney"]
                ).perform(in: session)
            },
            Stop(
                title: "A failure with the server's message",
                explanation: "An unknown city is a business error: exit status 1, and the server's words."
            ) { session in
                try await Faults.delay("/weather", milliseconds: 0, session)
                try await command(WeatherCommand.Forecast.self, ["Atlantis"]).perform(in: session)
            },
            Stop(
                title: "A retry after a fault",
                explanation: "The backend answers 503 with Retry-After: 1 once; the client waits and asks again."
            ) { session in
                try await Faults.script("/sysTime", ["503:1", "ok"], session)
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
enum Faults {
    /// A request to one of the `/faults` routes.
    struct Form: RequestFormable {
        var path: String
        var parameters: Parameters
        var method: HTTPRequest.Method { .post }
        var encoding: ParameterEncoding { .urlQuery }
    }

    static func delay(_ path: String, milliseconds: Int, _ session: DemoSession) async throws {
        try await send(Form(path: "/faults/delay", parameters: ["path": path, "ms": milliseconds]), session)
    }

    static func pace(_ path: String, millisecondsPer64KiB: Int, _ session: DemoSession) async throws {
        try await send(Form(path: "/faults/pace", parameters: ["path": path, "ms": millisecondsPer64KiB]), session)
    }

    static func script(_ path: String, _ outcomes: [String], _ session: DemoSession) async throws {
        try await send(
            Form(path: "/faults/script", parameters: ["path": path, "outcomes": outcomes.joined(separator: ",")]),
            session)
    }

    static func reset(_ session: DemoSession) async throws {
        try await send(Form(path: "/faults/reset", parameters: [:]), session)
    }

    private static func send(_ form: Form, _ session: DemoSession) async throws {
        _ = try await session.screen.request(form).bytes().value
    }
}
