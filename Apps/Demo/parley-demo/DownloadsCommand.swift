import ArgumentParser
import Downloads
import Feedback
import Forms
import Foundation
import HTTPTypes
import Transport

/// `parley-demo downloads`: several downloads at once through a `DownloadManager`, each with a
/// progress bar.
struct DownloadsCommand: DemoCommand {
    static let configuration = CommandConfiguration(
        commandName: "downloads",
        abstract: "Download several files at once through a download manager, with a progress bar each.",
        discussion: """
            Makes --count tasks of the backend's /bytes route in a DownloadManager that runs --parallel \
            of them at a time (the others wait in its queue), each a download form sent through the \
            client (its retries, headers and plugins), and draws a bar for each on standard error while \
            it runs. Each file is a line on standard output once all are done (a JSON array with --json). The \
            files go to --output-dir, or to a temporary folder removed at the end. Ctrl-C suspends the \
            downloads, keeping their partial files; the same command with --output-dir resumes them.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("How many files to download.", valueName: "n"))
    var count = 4

    @Option(help: ArgumentHelp("How many download at once; the others wait for a slot.", valueName: "n"))
    var parallel = 2

    @Option(help: ArgumentHelp("The size of each file, in bytes.", valueName: "bytes"))
    var size = 4 << 20

    @Option(help: ArgumentHelp("The backend's wait after each 64 KiB, in milliseconds.", valueName: "ms"))
    var chunkDelay = 20

    @Option(help: ArgumentHelp("Keep the files in this folder (created if missing).", valueName: "dir"))
    var outputDir: String?

    func validate() throws {
        guard (1...32).contains(count) else { throw ValidationError("--count must be from 1 to 32, got \(count).") }
        guard (1...8).contains(parallel) else {
            throw ValidationError("--parallel must be from 1 to 8, got \(parallel).")
        }
        guard (1...(1 << 30)).contains(size) else {
            throw ValidationError("--size must be from 1 byte to 1 GiB, got \(size).")
        }
        guard (0...1000).contains(chunkDelay) else {
            throw ValidationError("--chunk-delay must be from 0 to 1000 milliseconds, got \(chunkDelay).")
        }
    }

    /// What `--json` prints for a file.
    struct Saved: Encodable {
        var file: String
        var bytes: Int64
        var resumedFrom: Int64
    }

    func perform(in session: DemoSession) async throws {
        let folder: String
        if let outputDir {
            try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
            folder = outputDir
        } else {
            folder = NSTemporaryDirectory() + "parley-demo-downloads-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        defer { if outputDir == nil { try? FileManager.default.removeItem(atPath: folder) } }

        let manager = DownloadManager(transport: session.client.transport, maximumConcurrentDownloads: parallel)
        let outcomes = AsyncStream.makeStream(of: (index: Int, result: Result<FileDownload.Summary, any Error>).self)
        // The screen's download forms go to this manager, as they would to the process's one.
        let tasks = await DownloadSystem.withManager(manager) {
            (1...count).map { index in
                let form = PatternFileForm(
                    size: size, chunkDelay: chunkDelay, index: index,
                    destination: URL(fileURLWithPath: folder).appendingPathComponent("file-\(index).bin"))
                let bar = ProgressBar(label: "file-\(index).bin")
                return session.screen.task(for: form)
                    .state { state in if state == .running { bar.begin() } }
                    .progress { bar.update($0) }
                    .response { result in
                        bar.end(result)
                        outcomes.continuation.yield((index, result))
                    }
            }
        }
        session.noteOnInterruption(
            "The downloads are suspended; their partial files are kept in \(folder) "
                + "(run the same command with --output-dir \(folder) to resume them).")
        for task in tasks { task.download() }

        // Waiting on the handlers, not on the tasks: Ctrl-C cancels this task, which then
        // suspends the downloads (keeping their partials) instead of cancelling them.
        var results: [Int: Result<FileDownload.Summary, any Error>] = [:]
        for await outcome in outcomes.stream {
            results[outcome.index] = outcome.result
            if results.count == count { break }
        }
        if results.count < count {
            await manager.suspendAll()
            throw CancellationError()
        }
        var saved: [Saved] = []
        for index in 1...count {
            guard let result = results[index] else { continue }
            let summary = try result.get()
            saved.append(
                Saved(
                    file: URL(fileURLWithPath: summary.destination).lastPathComponent, bytes: summary.byteCount,
                    resumedFrom: summary.resumedFrom))
        }
        let text = saved.map { file in
            "\(file.file): \(file.bytes) bytes" + (file.resumedFrom > 0 ? ", resumed from \(file.resumedFrom)" : "")
        }
        try session.output.emit(text: text.joined(separator: "\n"), json: saved)
    }
}

/// A file of the backend's `/bytes` route, continuing from a partial an earlier run left.
struct PatternFileForm: DownloadResumeFormable {
    let size: Int
    let chunkDelay: Int
    let index: Int
    let destination: URL

    var path: String { "/bytes/\(size)" }
    var parameters: Parameters { ["chunk-delay": chunkDelay, "n": index] }
}

/// One bar on the console for one download task: shown while it runs, ended by its outcome.
final class ProgressBar: Sendable {
    private let progressable: ProgressType
    private let activity = ActivityID.next()
    private let began = RaisedFlag()

    init(label: String) {
        progressable = .bar(label: label)
    }

    func begin() {
        guard !began.isRaised else { return }
        began.raise()
        progressable.progressBegan(activity)
    }

    func update(_ progress: TransferProgress) {
        begin()
        progressable.progressChanged(activity, direction: .download, progress: progress)
    }

    func end(_ result: Result<FileDownload.Summary, any Error>) {
        guard began.isRaised else { return }
        progressable.progressEnded(activity, outcome: ActivityOutcome(result))
    }
}
