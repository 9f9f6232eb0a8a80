/// The kind of an error of one domain: an open set of named values, such as
/// ``TransportError``'s `.connectTimeout` or Mapping's `.typeMismatch`.
///
/// Every error type of Parley (``TransportError``, and the errors of Forms, Mapping, Caching and
/// Coordination) has a `category` of this one type, each with a domain of its own, so that a
/// category of one error cannot be compared with another's. Each error names it
/// `Category` (`TransportError.Category` is `ErrorCategory<TransportErrorDomain>`), and its
/// domain's categories are static members of a constrained extension, so that they read as
/// they always have:
///
/// ```swift
/// catch let error as TransportError where error.category == .connectTimeout { … }
/// ```
///
/// Categories are values, not enum cases: a module may add its own (`ErrorCategory("quota")`)
/// without breaking a caller, and a `switch` over them needs a `default:` case. Two categories
/// are equal when their names are.
public struct ErrorCategory<Domain: ErrorCategoryDomain>: Hashable, Sendable, CustomStringConvertible {
    /// The stable, machine-readable name of the category, such as `"dnsFailure"`.
    public let name: String

    /// Creates a category. Engines, middleware and modules above may define their own.
    ///
    /// - Parameter name: The category's name.
    public init(_ name: String) { self.name = name }

    /// The category's ``name``.
    public var description: String { name }

    /// The message catalog's key for this category: its domain's
    /// ``ErrorCategoryDomain/messageKeyPrefix``, a dot and its ``name``, such as
    /// `transport.dnsFailure` (see ``MessageDescribable``).
    public var messageKey: String { Domain.messageKeyPrefix + "." + name }
}

/// The domain of an ``ErrorCategory``: a type that only tells one error type's categories
/// from another's, and names them in a message catalog.
public protocol ErrorCategoryDomain: Sendable {
    /// What the catalog keys of the domain's categories start with, such as `transport`
    /// (``ErrorCategory/messageKey``).
    static var messageKeyPrefix: String { get }
}
