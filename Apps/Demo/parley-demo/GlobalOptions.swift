import ArgumentParser
import Foundation

/// The options every command takes, before or after the command's name.
struct GlobalOptions: ParsableArguments {
    /// The backend; `nil` starts the embedded one.
    @Option(
        help: ArgumentHelp(
            "The backend to talk to. Without it, parley-demo starts its own on 127.0.0.1 and stops it on exit.",
            valueName: "url"))
    var server: String?

    /// One JSON document on standard output instead of text.
    @Flag(help: "Print the result as one JSON document on standard output.")
    var json = false

    /// Automatic retries after the first attempt, as given; ``retryCount`` is the one in force.
    @Option(
        help: ArgumentHelp(
            "Automatic retries after the first attempt, under the retry rules (a POST without an idempotency key "
                + "is never retried); 3 by default.",
            valueName: "n"))
    var retries: Int?

    /// Automatic retries after the first attempt: `--retries`, 3 by default.
    var retryCount: Int { retries ?? 3 }

    /// Every request and response on standard error, each request also as a curl command.
    @Flag(
        help: ArgumentHelp(
            "Log every request (also as the curl command that sends it again, credentials redacted), response "
                + "and retry on standard error (retries and logins are logged anyway)."))
    var verbose = false

    /// The span tree of the command on standard error when it ends.
    @Flag(
        help: ArgumentHelp(
            "Trace the command: when it ends, print its spans (each request and attempt) as a tree on standard "
                + "error, and send their trace context to the server (traceparent)."))
    var trace = false

    /// Never ask.
    @Flag(name: .customLong("no-input"), help: "Never ask whether to try again once the retries are spent.")
    var noInput = false

    /// The deadline of the whole command.
    @Option(
        help: ArgumentHelp("The deadline of the whole command, retries and waits included.", valueName: "seconds"))
    var timeout: Double?

    /// A CA bundle for TLS verification.
    @Option(help: ArgumentHelp("Verify HTTPS servers with this CA certificate file (PEM).", valueName: "file"))
    var cacert: String?

    func validate() throws {
        if let retries, !(0...100).contains(retries) {
            throw ValidationError("--retries must be between 0 and 100, got \(retries).")
        }
        if let timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be a number of seconds above 0 (at most 86400), got \(timeout).")
        }
        if let server {
            _ = try Self.validatedServer(server)
        }
        if let cacert, !FileManager.default.isReadableFile(atPath: cacert) {
            throw ValidationError("--cacert \(cacert): no readable file there.")
        }
    }

    /// The options given that send requests, which a command that sends none (`serve`)
    /// refuses: their names.
    var requestOptionsGiven: [String] {
        var names: [String] = []
        if server != nil { names.append("--server") }
        if retries != nil { names.append("--retries") }
        if noInput { names.append("--no-input") }
        if timeout != nil { names.append("--timeout") }
        if cacert != nil { names.append("--cacert") }
        if trace { names.append("--trace") }
        return names
    }

    /// The global options' lines of help, for the root command's help, where the argument
    /// parser lists none (they are declared by each command).
    static var helpLines: String {
        let help = helpMessage(columns: 80)
        guard let start = help.range(of: "OPTIONS:\n") else { return help }
        return help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("--help") }
            .joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
    }

    /// `server` without a trailing slash, when it is an http or https URL with a host.
    static func validatedServer(_ server: String) throws -> String {
        guard let components = URLComponents(string: server), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else {
            throw ValidationError(
                "--server must be an http or https URL such as http://127.0.0.1:8080, got '\(server)'.")
        }
        return server.hasSuffix("/") ? String(server.dropLast()) : server
    }
}
