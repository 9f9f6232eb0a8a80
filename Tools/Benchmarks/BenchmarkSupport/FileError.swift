#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A system call on a benchmark's input or output file failed.
public struct FileError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The system call that failed, such as `open`.
    public var operation: String
    /// The `errno` it set.
    public var code: Int32

    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}
