import ArgumentParser
import FeedbackConsole
import Forms
import Foundation
import Retry
import ServerSentEvents
import Transport

/// `parley-demo events`: follows the backend's server-sent event stream, showing each event as
/// it arrives and each reconnection on standard error.
struct EventsCommand: DemoCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Follow a server-sent event stream (GET /events), reconnecting where it dropped.",
        discussion: """
            The backend's stream numbers its events and closes the connection after --drop-after \
            of them; parley-demo reconnects after the server's retry time with Last-Event-ID, and the \
            backend resumes after it. Events go to standard output as they arrive (one JSON object a \
            line with --json), reconnections to standard error. --path follows another stream of \
            the server instead.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Events the backend sends in all.", valueName: "n"))
    var count = 8

    @Option(help: ArgumentHelp("Events per connection before the backend drops it (0: never).", valueName: "n"))
    var dropAfter = 3

    @Option(help: ArgumentHelp("The reconnection time the backend asks for, in milliseconds.", valueName: "ms"))
    var retry = 500

    @Option(help: ArgumentHelp("The wait between two events, in milliseconds.", valueName: "ms"))
    var interval = 250

    @Option(help: ArgumentHelp("Another event stream of the server to follow, such as /prices.", valueName: "path"))
    var path: String?

    func validate() throws {
        guard count >= 0, dropAfter >= 0, retry >= 0, interval >= 0 else {
            throw ValidationError("--count, --drop-after, --retry and --interval must not be negative.")
        }
        if let path, !path.hasPrefix("/") {
            throw ValidationError("--path must start with '/', got '\(path)'.")
        }
    }

    /// What `--json` prints for an event, one a line.
    struct Line: Encodable {
        var id: String
        var type: String
        var data: String
    }

    func perform(in session: DemoSession) async throws {
        let target =
            path
            ?? "/events?count=\(count)&retry=\(retry)&interval=\(interval)"
            + (dropAfter > 0 ? "&drop-after=\(dropAfter)" : "")
        var options = EventStream.Options(retry: session.client.retry)
        options.reconnectionHandler = { retry, failure in
            let wait = retry.delay.map { " in \($0.formatted(.units(allowed: [.seconds, .milliseconds])))" } ?? ""
            standardError("Reconnecting\(wait) (attempt \(retry.attempt)): \(failure.message)")
        }
        let stream = try EventStream(
            url: session.baseURL + target, transport: session.client.transport, options: options)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var received = 0
        for try await event in stream {
            received += 1
            if session.output.json {
                var line = try encoder.encode(Line(id: event.id, type: event.type, data: event.data))
                line.append(0x0A)
                try StandardStreams.writeOutput(line)
            } else {
                let id = event.id.isEmpty ? "" : "#\(event.id) "
                try session.output.write("\(id)\(event.type): \(event.data)")
            }
        }
        standardError("The stream ended after \(received) events.")
    }
}
