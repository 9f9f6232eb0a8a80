import ArgumentParser
import Downloads
import Feedback
import Forms
import Foundation
import HTTPTypes
import Logging
import Mapping
import Retry
import Transport

/// `parley-demo fetch URL …`: a general HTTP client on the whole stack.
struct FetchCommand: DemoCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Send any HTTP request through the whole stack: retries, redirects, progress, resumable downloads.",
        discussion: """
            The body goes to standard output as it arrives (in constant memory, whatever its size), or \
            to --output FILE, byte for byte. A GET to a file resumes where an earlier run stopped. A \
            status of 400 or more writes nothing and exits 3. When a transfer to standard output fails \
            part-way, a GET is resumed from the bytes already written (Range with If-Range) if the \
            server named an ETag or a strong Last-Modified and answers with the rest; otherwise it fails \
            with status 3, saying how many bytes were written (never writing a byte twice). When the \
            reader of standard output goes away (| head -c 10), fetch ends as cat does (SIGPIPE, 141); \
            a download to --output is unaffected. --json does not apply: the body is written as it came. \
            --data sends TEXT as application/x-www-form-urlencoded (like curl -d) unless a \
            Content-Type header says otherwise; --data-file streams the file as application/octet-stream. \
            A POST or PATCH is retried only with --idempotency-key (a key is generated when none is \
            given, and the same key goes with every attempt).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The http or https URL.")
    var url: String

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Write the body to this file; an existing file is replaced once the body is whole.", valueName: "file"))
    var output: String?

    @Option(
        name: [.customShort("X"), .long], help: ArgumentHelp("The method; GET, or POST with data.", valueName: "m"))
    var method: String?

    @Option(name: [.customShort("H"), .long], help: ArgumentHelp("A header, as 'Name: value'.", valueName: "header"))
    var header: [String] = []

    @Option(name: [.short, .long], help: ArgumentHelp("Send TEXT as the body.", valueName: "text"))
    var data: String?

    @Option(help: ArgumentHelp("Send the file as the body, streamed.", valueName: "file"))
    var dataFile: String?

    /// `--idempotency-key KEY`.
    @Option(help: ArgumentHelp("Send an Idempotency-Key (generated when KEY is omitted).", valueName: "key"))
    var idempotencyKey: String?

    /// A bare `--idempotency-key`, as `main.swift` rewrites it.
    @Flag(help: .hidden)
    var generatedIdempotencyKey = false

    func validate() throws {
        if global.json {
            throw ValidationError(
                "--json does not apply to fetch: the body goes to standard output byte for byte, as the server "
                    + "sent it.")
        }
        _ = try target()
        _ = try headers()
        _ = try httpMethod()
        if data != nil && dataFile != nil { throw ValidationError("Give --data or --data-file, not both.") }
        if let dataFile, !FileManager.default.isReadableFile(atPath: dataFile) {
            throw ValidationError("--data-file \(dataFile): no readable file there.")
        }
        if output != nil, data != nil || dataFile != nil {
            throw ValidationError("--output resumes GET downloads; it cannot be combined with --data or --data-file.")
        }
        if output != nil, try httpMethod() != .get {
            throw ValidationError("--output resumes GET downloads; drop --method or use GET.")
        }
        if let idempotencyKey {
            guard !idempotencyKey.isEmpty,
                !idempotencyKey.unicodeScalars.contains(where: TextWidth.isControl)
            else {
                throw ValidationError("--idempotency-key must be a non-empty key without control characters.")
            }
        }
    }

    func perform(in session: DemoSession) async throws {
        let request = FetchRequest(
            target: try target(), method: try httpMethod(), headers: try headers(),
            idempotencyKey: idempotencyKey.map { .value($0) } ?? (generatedIdempotencyKey ? .generated : nil))
        let screen = session.screen
        if let output {
            let destination = URL(fileURLWithPath: output)
            session.noteOnInterruption(
                "The bytes received are kept in \(output).partial; run the same command again to resume.")
            // The download retries under the client's policy, as every download form does.
            let summary = try await screen.download(FetchDownloadForm(request: request, destination: destination))
                .progress(ProgressType.bar(label: destination.lastPathComponent)).value
            var line = "parley-demo: saved \(summary.destination) (\(summary.byteCount) bytes"
            if summary.resumedFrom > 0 { line += ", resumed from \(summary.resumedFrom)" }
            standardError(line + ")")
            return
        }
        var body: RequestBody?
        var contentType: String?
        if let data {
            body = .bytes(Data(data.utf8))
            contentType = "application/x-www-form-urlencoded"
        } else if let dataFile {
            body = .file(path: dataFile)
            contentType = "application/octet-stream"
        }
        var transportRequest = try TransportRequest(
            method: request.method, url: request.target.baseURL + request.target.path, body: body,
            options: session.client.transferOptions)
        if let timeout = session.client.timeout { transportRequest.options.deadline = timeout }
        if let contentType { try transportRequest.setHeader("Content-Type", contentType) }
        // In name order, so that the request does not depend on dictionary order; a Content-Type
        // given with --header wins over the one of --data.
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            try transportRequest.setHeader(name, value)
        }
        // Printed with --verbose only: the client's logger shows debug lines then.
        session.client.logger.debug("\(transportRequest.curlCommand())")
        try await FetchStream(
            request: transportRequest, label: request.target.label, idempotencyKey: request.idempotencyKey?.resolve()
        ).run(in: session)
    }

    // MARK: - Reading the arguments

    /// The URL split into what a form needs.
    /// The engine's own URL rules decide (`RequestValidation.parseURL`), so what passes here is
    /// what the engine sends.
    func target() throws -> FetchTarget {
        let parts: RequestValidation.URLParts
        do {
            parts = try RequestValidation.parseURL(url)
        } catch let error as TransportError {
            throw ValidationError(
                "'\(LogRedaction.redactedURL(url))' is not an http or https URL with a host: \(error.message)")
        }
        let file = parts.path.split(separator: "?", maxSplits: 1).first?.split(separator: "/").last
        let label = file.map { String($0).removingPercentEncoding ?? String($0) } ?? parts.authority
        return FetchTarget(baseURL: "\(parts.scheme)://\(parts.authority)", path: parts.path, label: label)
    }

    /// The headers, each checked.
    func headers() throws -> [String: String] {
        var headers: [String: String] = [:]
        for line in header {
            guard let colon = line.firstIndex(of: ":") else {
                throw ValidationError("--header '\(line)' has no colon; write it as 'Name: value'.")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            // The engine's own header rules decide, as for the URL.
            do {
                _ = try RequestValidation.field(name: name, value: value)
            } catch let error as TransportError {
                let problem = HTTPField.Name(name) == nil ? "'\(name)' is not a valid header name" : "bad value"
                throw ValidationError("--header '\(line)': \(problem): \(error.message)")
            }
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        // A --data body's type is FetchDataForm's; a Content-Type header given here wins over it.
        return headers
    }

    /// The method: `--method`, else POST with a body and GET without.
    func httpMethod() throws -> HTTPRequest.Method {
        guard let method else { return data != nil || dataFile != nil ? .post : .get }
        guard let parsed = HTTPRequest.Method(method.uppercased()) else {
            throw ValidationError("--method '\(method)' is not an HTTP method, such as GET or POST.")
        }
        return parsed
    }
}

/// Where a fetch goes: the scheme and authority as the form's base URL, and the path and
/// query, still percent-encoded, as its path, so the URL is sent as given.
struct FetchTarget: Sendable {
    var baseURL: String
    var path: String
    /// What the progress bar is called: the last path component, or the host.
    var label: String
}

/// What every fetch form shares.
struct FetchRequest: Sendable {
    var target: FetchTarget
    var method: HTTPRequest.Method
    var headers: [String: String]
    var idempotencyKey: IdempotencyKey?
}

/// A fetch described as a form, whatever its kind.
protocol FetchFormable: Formable {
    var request: FetchRequest { get }
}

extension FetchFormable {
    var baseURL: String? { request.target.baseURL }
    var path: String { request.target.path }
    var method: HTTPRequest.Method { request.method }
    var headers: [String: String] { request.headers }
    var idempotencyKey: IdempotencyKey? { request.idempotencyKey }
}

/// A GET to a file, resumed where an earlier run stopped.
struct FetchDownloadForm: FetchFormable, DownloadResumeFormable {
    var request: FetchRequest
    var destination: URL
}
