#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file a `download` request streams its body into, opened (and truncated) for one response.
///
/// Writes go straight to the descriptor, without buffering, so a chunk is on its way to the kernel before the
/// next one is requested and the process never holds more than the chunk in hand. Not `Sendable`: one request
/// owns it. Closed on deinit.
///
/// ```swift
/// let file = try OutputFile(path: options.out)
/// for try await chunk in response.body {
///     try chunk.withUnsafeBytes { try file.write($0) }
/// }
/// ```
public final class OutputFile {
    private let path: String
    private let descriptor: Int32

    /// Opens `path` for writing, creating it or truncating it.
    ///
    /// - Parameter path: The file, `/dev/null` for a download that only counts bytes.
    /// - Throws: ``FileError`` if the file cannot be opened.
    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw FileError(path: path, operation: "open", code: errno)
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Writes all of `bytes`, retrying short writes.
    ///
    /// - Parameter bytes: The chunk.
    /// - Throws: ``FileError`` if a write fails.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, operation: "write", code: errno)
            }
            offset += written
        }
    }
}

@available(*, unavailable)
extension OutputFile: Sendable {}

/// `write(2)`, named apart from ``OutputFile/write(_:)``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
