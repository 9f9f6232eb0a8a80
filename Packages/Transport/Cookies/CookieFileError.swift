/// Why a ``CookieJar`` could not read or write a cookie file.
///
/// A file that is not a Netscape cookie file, or holds a line the jar cannot read, is this
/// error, with the line's number: the jar is left as it was, never half loaded.
public struct CookieFileError: Error, Sendable, Hashable, CustomStringConvertible, ActionableError {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The file could not be read (missing, unreadable, not UTF-8).
        case unreadable
        /// A line is not a cookie in the Netscape format.
        case malformedLine
        /// The file could not be written.
        case unwritable
    }

    /// What went wrong.
    public let kind: Kind
    /// The file's path.
    public let path: String
    /// The 1-based number of the line at fault, for ``Kind/malformedLine``.
    public let line: Int?
    /// What happened and what to do; never a cookie's value.
    public let message: String

    /// Creates an error.
    package init(_ kind: Kind, path: String, line: Int? = nil, message: String) {
        self.kind = kind
        self.path = path
        self.line = line
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}
