import ArgumentParser
import Downloads
import Foundation
import Synchronization
import Transport
import TransportCurl

/// `parley-fetch`: downloads a URL to a file with ``FileDownload`` on ``CurlTransport``, and
/// resumes where an earlier run stopped, even one killed with `kill -9`.
///
/// ```sh
/// parley-fetch https://example.com/big.iso --output big.iso --sha256 9f86d0…
/// ```
///
/// Progress goes to standard error, one line a second (none with `--quiet`); the exit status
/// is 0 once the file is at its destination, and 1 with the error's message otherwise.
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
            """
    )

    /// The URL to download.
    @Argument(help: "The http or https URL to download.")
    var url: String

    /// The destination file.
    @Option(name: [.short, .long], help: ArgumentHelp("The file to write.", valueName: "file"))
    var output: String

    /// The digest the file must have.
    @Option(help: ArgumentHelp("The SHA-256 the file must have, as sha256sum prints it.", valueName: "hex"))
    var sha256: String?

    /// A CA bundle for TLS verification.
    @Option(help: ArgumentHelp("Verify the server with this CA certificate file (PEM).", valueName: "file"))
    var cacert: String?

    /// Retries in a row after a failure.
    @Option(help: "Retries in a row after a network failure (each resumes).")
    var retries: Int = 3

    /// No progress or summary lines.
    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if let sha256, sha256.count != 64 || !sha256.allSatisfy(\.isHexDigit) {
            throw ValidationError("--sha256 must be 64 hexadecimal characters, got '\(sha256)'.")
        }
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more, got \(retries).") }
    }

    func run() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.tls.caFile = cacert
        configuration.userAgent = "parley-fetch"
        let transport = try CurlTransport(configuration: configuration)

        var options = FileDownload.Options()
        options.expectedSHA256 = sha256
        options.retryLimit = retries
        if !quiet {
            let printer = ProgressPrinter()
            options.progressHandler = { printer.report($0) }
        }

        let outcome: Result<FileDownload.Summary, any Error>
        do {
            let download = try FileDownload(url: url, to: output, transport: transport, options: options)
            outcome = .success(try await download.run())
        } catch {
            outcome = .failure(error)
        }
        await transport.shutdown()

        switch outcome {
        case .success(let summary):
            if !quiet {
                var line = "parley-fetch: saved \(summary.destination) (\(summary.byteCount) bytes"
                if summary.resumedFrom > 0 { line += ", resumed from \(summary.resumedFrom)" }
                if let digest = summary.sha256 { line += ", sha256 \(digest)" }
                standardError(line + ")")
            }
        case .failure(let error):
            var message = (error as? TransportError)?.message ?? String(describing: error)
            if (error as? TransportError)?.category == .tlsFailure {
                message += " (parley-fetch takes the CA file as --cacert FILE.)"
            }
            standardError("parley-fetch: error: \(message)")
            throw ExitCode.failure
        }
    }
}

/// Prints a progress line at most once a second, and the final one.
final class ProgressPrinter: Sendable {
    private let lastLine = Mutex<ContinuousClock.Instant?>(nil)

    /// Prints `progress` unless a line was printed less than a second ago.
    func report(_ progress: TransferProgress) {
        let now = ContinuousClock.now
        let due = lastLine.withLock { last in
            guard progress.isFinal || last.map({ now - $0 >= .seconds(1) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        var line = "parley-fetch: \(Self.size(progress.completed))"
        if let total = progress.total {
            let percent = progress.fractionCompleted.map { String(format: " (%.1f%%)", $0 * 100) } ?? ""
            line += " of \(Self.size(total))\(percent)"
        }
        line += ", \(Self.size(Int64(progress.bytesPerSecond)))/s"
        standardError(line)
    }

    /// `bytes` in the largest binary unit that keeps it at 1 or more: `12.3 MiB`.
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}

/// Writes a line to standard error.
func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
