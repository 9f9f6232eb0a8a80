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
    /// A failure to start the process.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    let pid: pid_t
    /// Every line it has printed so far.
    private(set) var lines: [String] = []
    private let output: Int32
    private var pending = Data()
    private var isAtEnd = false
    private var exitStatus: Int32?

    /// Starts the writer at `path` with `arguments`, its standard output into a pipe this object
    /// reads, its standard input from `/dev/null`, its standard error the test's.
    init(_ path: String, _ arguments: [String]) throws {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else {
            throw StartFailure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // Not inherited by other children this process starts (the writer's copy is dup2'ed).
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw StartFailure(description: "could not start \(path): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        output = pipe[0]
    }

    deinit {
        if exitStatus == nil {
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        close(output)
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
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return false
        }
        _ = Glibc.kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exitStatus = status
        return true
    }

    /// Reads the rest of the output and waits for the process to exit.
    ///
    /// - Returns: Its exit status (128 + the signal when a signal ended it).
    func waitForExit() -> Int32 {
        waitForLine { _ in false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exitStatus = status
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
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
