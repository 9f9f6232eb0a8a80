#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output failed for another reason than a reader that went away.
public struct StandardOutputError: Error, CustomStringConvertible, Sendable {
    /// The `errno` of the failed write, such as `ENOSPC`.
    public var errorNumber: Int32

    /// Creates the error for `errorNumber`.
    ///
    /// - Parameter errorNumber: The `errno` of the failed write.
    public init(errorNumber: Int32) {
        self.errorNumber = errorNumber
    }

    /// What failed and what to do.
    public var description: String {
        "Could not write to standard output: \(String(cString: strerror(errorNumber))). Check where it goes "
            + "(a full disk, a closed descriptor) and run the command again."
    }
}
