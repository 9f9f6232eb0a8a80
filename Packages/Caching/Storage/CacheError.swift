public import Transport

/// A failure of the cache's storage: opening a directory, writing an entry.
///
/// Requests never fail because of the cache: ``HTTPCache`` logs a storage error and answers
/// from the network. The error reaches you where you call a storage yourself, such as
/// ``DiskCacheStorage/init(directory:maximumBytes:synchronizesToDisk:)``.
public struct CacheError: Error, Hashable, Sendable, CustomStringConvertible, ActionableError {
    /// What kind of failure this is.
    public var category: Category
    /// What happened, where, and what to do.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - category: What kind of failure this is.
    ///   - message: What happened, where, and what to do.
    public init(_ category: Category, message: String) {
        self.category = category
        self.message = message
    }

    /// `category: message`.
    public var description: String { "\(category): \(message)" }

    /// The kind of a ``CacheError``: an open set of named values; a `switch` needs a `default:`.
    public typealias Category = ErrorCategory<CacheErrorDomain>
}

/// The domain of ``CacheError``'s categories: `CacheError.Category` is `ErrorCategory<CacheErrorDomain>`.
public enum CacheErrorDomain: ErrorCategoryDomain {
    /// `cache`.
    public static var messageKeyPrefix: String { "cache" }
}

/// The categories of ``CacheError``.
extension ErrorCategory where Domain == CacheErrorDomain {
    /// The directory could not be created, opened or listed.
    public static let directoryUnusable = Self("directoryUnusable")
    /// Another ``DiskCacheStorage`` (in this process or another) holds the directory's lock.
    public static let directoryInUse = Self("directoryInUse")
    /// The entry is larger than the storage's whole cap, so it is not stored.
    public static let entryTooLarge = Self("entryTooLarge")
    /// Writing the entry failed (a full disk, a permission); nothing was stored.
    public static let writeFailed = Self("writeFailed")
    /// The storage was closed.
    public static let closed = Self("closed")
}
