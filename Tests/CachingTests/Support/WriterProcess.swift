import Caching
import Foundation
import Glibc
import HTTPTypes
import TestSupport
import Testing

/// `parley-cache-writer` running in the background, its standard output read line by line, to be
/// killed with SIGKILL or waited for. Blocking: use it from ``onOwnThread(_:)``, and record
/// expectations on the test's task with what it returns (an issue needs the test's context).
final class WriterProcess {
    private let child: SpawnedChild
    /// Every line it has printed so far.
    private(set) var lines: [String] = []
    private let output: Int32
    private var pending = Data()
    private var isAtEnd = false

    /// Starts the writer at `path` with `arguments`, its standard output into a pipe this object
    /// reads, its standard input from `/dev/null`, its standard error the test's.
    init(_ path: String, _ arguments: [String]) throws {
        child = try SpawnedChild.start(path, arguments: arguments, output: .pipe, errors: .inherited)
        guard let output = child.output?.fileDescriptor else {
            throw SpawnedChild.StartFailure("\(path) started without a pipe for its output")
        }
        self.output = output
    }

    /// Reads lines until one satisfies `condition`, and returns it; `nil` when the output ends
    /// first (the process exited), or, without `readingMore`, when what has arrived is used up.
    @discardableResult
    func waitForLine(where condition: (String) -> Bool, readingMore: Bool = true) -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                lines.append(line)
                if condition(line) { return line }
                continue
            }
            guard readingMore, !isAtEnd, readChunk() else { return nil }
        }
    }

    /// Reads what the pipe holds, waiting for something; `false` at the end of the output.
    private func readChunk() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(output, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                isAtEnd = true
                return false
            }
            pending.append(contentsOf: buffer[0..<count])
            return true
        }
    }

    /// Whether it has printed `line`, reading only what has arrived without waiting for more.
    func hasPrinted(_ line: String) -> Bool {
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        while !isAtEnd, poll(&descriptor, 1, 0) > 0 {
            guard readChunk() else { break }
        }
        _ = waitForLine(where: { _ in false }, readingMore: false)
        return lines.contains(line)
    }

    /// The numbers `n` of the lines `<word> n` printed so far.
    func numbers(after word: String) -> [Int] {
        lines.compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 2 && parts[0] == word ? Int(parts[1]) : nil
        }
    }

    /// Sends SIGKILL and reaps the process.
    ///
    /// - Returns: `false` when it had already exited by itself.
    @discardableResult
    func kill() -> Bool {
        child.kill()
    }

    /// Reads the rest of the output and waits for the process to exit.
    ///
    /// - Returns: Its exit status (128 + the signal when a signal ended it).
    func waitForExit() -> Int32 {
        waitForLine { _ in false }
        return child.waitForExit().shellStatus
    }
}

/// Whether a file exists at `path`: one `access(2)`, cheap enough to poll every few hundred
/// microseconds.
func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// The size of the file at `path`, or `nil` when there is none: `open`, `lseek` to the end and
/// `close`, cheap enough to poll.
func fileSize(_ path: String) -> Int? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    let end = lseek(descriptor, 0, SEEK_END)
    return end < 0 ? nil : Int(end)
}

/// The names in `folder` that end with `suffix`.
func files(in folder: String, endingWith suffix: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(suffix) }
}
