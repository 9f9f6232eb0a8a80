public import Transport

/// A request Coordination refused to run as asked, with what to change.
///
/// Only input that cannot work is refused, such as a concurrency limit below one; a
/// request that fails, or a member of a batch that fails, reports its own error.
///
/// A message catalog describes it by its category (``messageKeys``): it is
/// ``/Transport/MessageDescribable``.
public struct CoordinationError: Error, Hashable, Sendable, CustomStringConvertible, ActionableError,
    MessageDescribable
{
    /// What kind of failure this is.
    public var category: Category
    /// What happened and what to do.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - category: What kind of failure this is.
    ///   - message: What happened and what to do.
    public init(_ category: Category, message: String) {
        self.category = category
        self.message = message
    }

    /// `category: message`.
    public var description: String { "\(category): \(message)" }

    /// `coordination.` and the category's name, then `unknown`, the sentence for any failure.
    public var messageKeys: [String] { [category.messageKey, "unknown"] }

    /// The kind of a ``CoordinationError``: an open set of named values.
    public typealias Category = ErrorCategory<CoordinationErrorDomain>

    /// The error for a concurrency limit of `limit`, below one.
    static func invalidLimit(_ limit: Int, of what: String) -> CoordinationError {
        CoordinationError(
            .invalidLimit,
            message: "\(what) was given a limit of \(limit) concurrent requests, so nothing could ever run. "
                + "Pass 1 or more.")
    }
}

extension TransportError {
    /// The error of a caller that stopped waiting because its task, or its handle, was cancelled.
    static func cancelledWhileWaiting(_ url: String?, for what: String) -> TransportError {
        TransportError(.cancelled, message: "The request was cancelled while it \(what).", url: url)
    }
}

/// The domain of ``CoordinationError``'s categories: `CoordinationError.Category` is `ErrorCategory<CoordinationErrorDomain>`.
public enum CoordinationErrorDomain: ErrorCategoryDomain {
    /// `coordination`.
    public static var messageKeyPrefix: String { "coordination" }
}

/// The categories of ``CoordinationError``.
extension ErrorCategory where Domain == CoordinationErrorDomain {
    /// A limit on concurrent requests below one: nothing could ever run.
    public static let invalidLimit = Self("invalidLimit")
}
