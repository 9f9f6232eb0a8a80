import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few system calls the disk storage makes, retrying interrupted ones, and each failure
/// as a sentence naming the call, the path and the system's reason.
enum FileCalls {
    /// A failed call: what was attempted on which path, and `strerror`.
    struct Failure: Error, CustomStringConvertible {
        let action: String
        let path: String
        let code: Int32

        var description: String { "could not \(action) \(path): \(String(cString: strerror(code)))" }
    }

    static func openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0o600) throws -> Int32 {
        var descriptor: Int32
        repeat { descriptor = open(path, flags | O_CLOEXEC, mode) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw Failure(action: "open", path: path, code: errno) }
        return descriptor
    }

    static func closeFile(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// Writes all of `data` at `offset` (`pwrite`), or at the file's position when `offset` is
    /// `nil` (`write`: the end, for a file opened to append), retrying short and interrupted
    /// writes.
    static func writeAll(_ data: some ContiguousBytes, to descriptor: Int32, at offset: Int? = nil, path: String)
        throws
    {
        try data.withUnsafeBytes { raw in
            guard var base = raw.baseAddress else { return }
            var remaining = raw.count
            var position = offset
            while remaining > 0 {
                let written =
                    position.map { pwrite(descriptor, base, remaining, off_t($0)) }
                    ?? write(descriptor, base, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Failure(action: "write to", path: path, code: errno)
                }
                remaining -= written
                base += written
                position = position.map { $0 + written }
            }
        }
    }

    /// `length` bytes of the file at `path` from `offset` (fewer when the file ends first), or
    /// `nil` when it does not exist.
    static func readRange(_ path: String, offset: Int, length: Int) throws -> Data? {
        guard let descriptor = try openForReading(path) else { return nil }
        defer { closeFile(descriptor) }
        return try read(descriptor, path: path, offset: offset, length: length)
    }

    /// The whole file at `path`, or `nil` when it does not exist.
    static func readFile(_ path: String) throws -> Data? {
        guard let descriptor = try openForReading(path) else { return nil }
        defer { closeFile(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw Failure(action: "read the size of", path: path, code: errno)
        }
        // A file that shrank while it was read keeps the bytes read; the format's length check
        // finds it damaged.
        return try read(descriptor, path: path, offset: 0, length: Int(status.st_size))
    }

    /// The file at `path` opened for reading, or `nil` when it does not exist.
    private static func openForReading(_ path: String) throws -> Int32? {
        do {
            return try openFile(path, O_RDONLY)
        } catch let failure as Failure where failure.code == ENOENT {
            return nil
        }
    }

    /// Up to `length` bytes from `offset` (`pread`), retrying short and interrupted reads;
    /// fewer when the file ends first.
    private static func read(_ descriptor: Int32, path: String, offset: Int, length: Int) throws -> Data {
        var data = Data(count: length)
        var done = 0
        try data.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            while done < length {
                let count = pread(descriptor, base + done, length - done, off_t(offset + done))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw Failure(action: "read", path: path, code: errno)
                }
                if count == 0 { break }
                done += count
            }
        }
        return done == length ? data : data.prefix(done)
    }

    static func flush(_ descriptor: Int32, path: String) throws {
        guard fsync(descriptor) == 0 else { throw Failure(action: "flush", path: path, code: errno) }
    }

    /// Flushes a directory's entries (a rename in it) to the disk.
    static func flushDirectory(_ path: String) throws {
        let descriptor = try openFile(path, O_RDONLY | O_DIRECTORY)
        defer { closeFile(descriptor) }
        try flush(descriptor, path: path)
    }

    static func renameFile(_ from: String, _ to: String) throws {
        guard rename(from, to) == 0 else { throw Failure(action: "rename \(from) to", path: to, code: errno) }
    }

    /// Removes a file; one already gone is not an error.
    static func removeFile(_ path: String) {
        _ = unlink(path)
    }

    /// Takes an exclusive `flock` without waiting; `false` when another descriptor holds it.
    static func lockExclusively(_ descriptor: Int32, path: String) throws -> Bool {
        // A lock just released can still be held for a moment by a child another thread of
        // this process is starting: the child shares the open file until its `exec` closes it
        // (`O_CLOEXEC`). So a busy lock is tried again for a quarter of a second before it
        // counts as another storage's.
        for attempt in 0..<50 {
            var result: Int32
            repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
            if result == 0 { return true }
            guard errno == EWOULDBLOCK else { throw Failure(action: "lock", path: path, code: errno) }
            if attempt < 49 { usleep(5_000) }
        }
        return false
    }

    /// The regular files of a directory with their sizes.
    static func listFiles(_ directory: String) throws -> [(name: String, size: Int)] {
        guard let stream = opendir(directory) else {
            throw Failure(action: "list", path: directory, code: errno)
        }
        defer { closedir(stream) }
        var files: [(name: String, size: Int)] = []
        while let item = readdir(stream) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var status = stat()
            guard lstat(directory + "/" + name, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            files.append((name, Int(status.st_size)))
        }
        return files
    }
}
