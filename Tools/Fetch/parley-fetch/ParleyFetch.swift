import ArgumentParser
import Downloads
import Feedback
import FeedbackConsole
import Foundation
import Retry
import Transport
import TransportCurl

/// `parley-fetch`: downloads a URL to a file with ``FileDownload`` on ``CurlTransport``, and
/// resumes where an earlier run stopped, even one killed with `kill -9`.
///
/// ```sh
/// parley-fetch https://example.com/big.iso --output big.iso --sha256 9f86d0…
/// ```
///
/// Progress goes to standard error through FeedbackConsole: a bar with rate and time left in a
/// terminal, a plain line every 2 seconds when standard error is a pipe or a file (none with
/// `--quiet`). A network failure is retried `--retries` times in a row (3 by default), each
/// retry resuming; after that, when standard input and standard error are terminals (and
/// without `--no-input`), it asks whether to retry (`r`) or abort (`a`). The exit status is 0
/// once the file is at its destination, and 1 with the error's message otherwise; Ctrl-C leaves
/// the cursor visible and the partial file in place.
@main
struct ParleyFetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-fetch",
        abstract: "Download a URL to a file, resuming where an earlier run stopped.",
        discussion: """
            The body goes to FILE.partial, described by FILE.partial.json, and is renamed to FILE \
            only when complete (and verified, with --sha256). Run the same command again after an \
            interruption, even kill -9, and it continues with a range request if the server still \
            has the same version of the file, or starts again if not.

            A network failure is retried --retries times in a row, each retry resuming. When \
            those are spent and standard input and standard error are terminals, parley-fetch \
            asks whether to retry: r (or y, Enter) retries, a (or n, q, Esc, Ctrl-C) aborts. \
            --no-input never asks.

            Exit status: 0 once the file is at its destination; 1 with the error's message otherwise; \
            Ctrl-C and SIGTERM end it as the signal does (130, 143), the cursor shown and the partial \
            file kept. Nothing goes to standard output, so a closed standard output changes nothing; a \
            closed standard error ends it as cat ends (SIGPIPE, 141), the terminal restored first.
            """
    )

    /// The URL to download.
    @Argument(help: "The http or https URL to download.")
    var url: String

    /// The destination file.
    @Option(name: [.short, .long], help: ArgumentHelp("The file to write.", valueName: "file"))
    var output: String?

    /// A file to upload to the URL instead, resumably.
    @Option(
        help: ArgumentHelp(
            "Upload this file to the URL instead, as a resumable upload (draft-ietf-httpbis-resumable-upload, "
                + "interop version 6): run the same command again after an interruption, even kill -9, and it "
                + "resumes from the server's offset.",
            valueName: "file"))
    var upload: String?

    /// The digest the file must have.
    @Option(help: ArgumentHelp("The SHA-256 the file must have, as sha256sum prints it.", valueName: "hex"))
    var sha256: String?

    /// A CA bundle for TLS verification.
    @Option(help: ArgumentHelp("Verify the server with this CA certificate file (PEM).", valueName: "file"))
    var cacert: String?

    /// Automatic retries in a row after a failure.
    @Option(
        help: ArgumentHelp(
            "Automatic retries in a row after a network failure, each resuming from the bytes on disk; an attempt "
                + "that added bytes starts the count again. Once they are spent, in a terminal, you are asked "
                + "whether to retry.",
            valueName: "n"))
    var retries: Int = 3

    /// Never ask.
    @Flag(
        name: .customLong("no-input"),
        help: "Never ask whether to retry: once the automatic retries are spent, fail (as without a terminal).")
    var noInput = false

    /// Ignores the proxy variables of the environment.
    @Flag(
        name: .customLong("noproxy"),
        help: "Connect directly, ignoring the proxy that http_proxy, https_proxy or ALL_PROXY names.")
    var noProxy = false

    /// No progress or summary lines.
    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if let sha256, sha256.count != 64 || !sha256.allSatisfy(\.isHexDigit) {
            throw ValidationError("--sha256 must be 64 hexadecimal characters, got '\(sha256)'.")
        }
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more, got \(retries).") }
        guard (output == nil) != (upload == nil) else {
            throw ValidationError("Give either --output FILE (a download) or --upload FILE (an upload).")
        }
    }

    func run() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.tls.caFile = cacert
        configuration.userAgent = "parley-fetch"
        if noProxy { configuration.proxy = .direct }
        let transport = try CurlTransport(configuration: configuration)
        guard let output else { return try await runUpload(transport: transport) }

        var options = FileDownload.Options()
        options.expectedSHA256 = sha256
        options.retry.maximumRetries = retries
        let console = ConsolePresenter()
        // Asks only when standard input and standard error are terminals, and never with --no-input.
        options.reloadPrompt = ConsoleReloadPrompt(presenter: console, allowsInput: !noInput)
        let bar = TransferBar(label: URL(fileURLWithPath: output).lastPathComponent, presenter: console)
        let activity = ActivityID.next()
        if !quiet {
            options.progressHandler = { bar.progressChanged(activity, direction: .download, progress: $0) }
            // No "of N": the limit counts failures in a row, and an attempt that added bytes
            // resets it, so the attempt number is not bounded by it.
            options.retryHandler = { retry, _ in bar.progressRetrying(activity, notice: retry) }
            bar.progressBegan(activity)
        }

        let outcome: Result<FileDownload.Summary, any Error>
        do {
            let download = try FileDownload(url: url, to: output, transport: transport, options: options)
            outcome = .success(try await download.run())
        } catch {
            outcome = .failure(error)
        }
        await transport.shutdown()
        if !quiet { bar.progressEnded(activity, outcome: ActivityOutcome(outcome)) }
        console.finish()

        switch outcome {
        case .success(let summary):
            if !quiet {
                var line = "parley-fetch: saved \(summary.destination) (\(summary.byteCount) bytes"
                if summary.resumedFrom > 0 { line += ", resumed from \(summary.resumedFrom)" }
                if let digest = summary.sha256 { line += ", sha256 \(digest)" }
                standardError(line + ")")
            }
        case .failure(let error):
            // Redacted whatever the error's type (RequestFailure), escaped when written.
            var message = RequestFailure(error).message
            if (error as? TransportError)?.category == .tlsFailure {
                message += " (parley-fetch takes the CA file as --cacert FILE.)"
            }
            standardError("parley-fetch: error: \(message)")
            throw ExitCode.failure
        }
    }
}

extension ParleyFetch {
    /// `--upload FILE`: a ``ResumableUpload`` of the file to the URL.
    func runUpload(transport: CurlTransport) async throws {
        let file = upload ?? ""
        var options = ResumableUpload.Options()
        options.retry.maximumRetries = retries
        let console = ConsolePresenter()
        let bar = TransferBar(label: URL(fileURLWithPath: file).lastPathComponent, presenter: console)
        let activity = ActivityID.next()
        if !quiet {
            options.progressHandler = { bar.progressChanged(activity, direction: .upload, progress: $0) }
            options.retryHandler = { retry, _ in bar.progressRetrying(activity, notice: retry) }
            bar.progressBegan(activity)
        }
        let outcome: Result<ResumableUpload.Summary, any Error>
        do {
            let upload = ResumableUpload(file: file, to: url, transport: transport, options: options)
            outcome = .success(try await upload.run())
        } catch {
            outcome = .failure(error)
        }
        await transport.shutdown()
        if !quiet { bar.progressEnded(activity, outcome: ActivityOutcome(outcome)) }
        console.finish()
        switch outcome {
        case .success(let summary):
            if !quiet {
                var line = "parley-fetch: uploaded \(file) (\(summary.byteCount) bytes"
                if summary.resumedFrom > 0 { line += ", resumed from \(summary.resumedFrom)" }
                standardError(line + ")")
            }
        case .failure(let error):
            standardError("parley-fetch: error: \(RequestFailure(error).message)")
            throw ExitCode.failure
        }
    }
}

/// The download's progress bar, drawn by the console presenter.
struct TransferBar: Progressable {
    /// The destination's file name.
    var progressLabel: String
    /// The console.
    var presenter: any FeedbackPresenter

    init(label: String, presenter: any FeedbackPresenter) {
        self.progressLabel = label
        self.presenter = presenter
    }
}

/// Writes a line to standard error, with control characters and escape sequences (which a
/// server's text may hold) made harmless by `TerminalText`, without trapping when it is a
/// closed pipe.
func standardError(_ line: String) {
    StandardStreams.writeError(TerminalText.escaped(line, keepingLineBreaks: true) + "\n")
}
