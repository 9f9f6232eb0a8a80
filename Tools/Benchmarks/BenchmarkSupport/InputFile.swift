#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file an `upload` request streams as its body, read chunk by chunk, never whole.
///
/// Not `Sendable`: one request owns it. Closed on deinit.
public final class InputFile {
    private let path: String
    private let descriptor: Int32

    /// Opens `path` for reading.
    ///
    /// - Parameter path: The file.
    /// - Throws: ``FileError`` if the file cannot be opened.
    public init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FileError(path: path, operation: "open", code: errno)
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The size of the file at `path`, in bytes.
    ///
    /// - Parameter path: The file.
    /// - Throws: ``FileError`` if `stat` fails.
    public static func size(atPath path: String) throws -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw FileError(path: path, operation: "stat", code: errno)
        }
        return Int(status.st_size)
    }

    /// Reads the next bytes of the file into `buffer`.
    ///
    /// - Parameter buffer: Where the bytes go; up to its count are read.
    /// - Returns: The number of bytes read, 0 at the end of the file.
    /// - Throws: ``FileError`` if a read fails.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR {
                throw FileError(path: path, operation: "read", code: errno)
            }
        }
    }
}

@available(*, unavailable)
extension InputFile: Sendable {}

/// `read(2)`, named apart from ``InputFile/read(into:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
