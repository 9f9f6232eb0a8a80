public import Transport

/// A failure of the forms layer itself: configuration, parameters, or a plugin's veto.
///
/// Network failures stay ``/Transport/TransportError``s; this type covers what goes wrong
/// before a request is sent.
///
/// A message catalog describes it by its category (``messageKeys``): it is
/// ``/Transport/MessageDescribable``.
public struct FormError: Error, Hashable, Sendable, CustomStringConvertible, ActionableError,
    MessageDescribable
{
    /// What kind of failure this is.
    public var category: Category
    /// What happened and what to do. Redacted whenever it is set, by Transport's one rule
    /// (``/Transport/LogRedaction/redactedText(_:)``): a form's path may carry a query.
    public var message: String {
        didSet { message = LogRedaction.redactedText(message) }
    }

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - category: What kind of failure this is.
    ///   - message: What happened and what to do; stored redacted.
    public init(_ category: Category, message: String) {
        self.category = category
        self.message = LogRedaction.redactedText(message)
    }

    /// `category: message`.
    public var description: String { "\(category): \(message)" }

    /// `forms.` and the category's name, then `unknown`, the sentence for any failure.
    public var messageKeys: [String] { [category.messageKey, "unknown"] }

    /// The kind of a ``FormError``: an open set of named values.
    public typealias Category = ErrorCategory<FormErrorDomain>
}

/// The domain of ``FormError``'s categories: `FormError.Category` is `ErrorCategory<FormErrorDomain>`.
public enum FormErrorDomain: ErrorCategoryDomain {
    /// `forms`.
    public static var messageKeyPrefix: String { "forms" }
}

/// The categories of ``FormError``.
extension ErrorCategory where Domain == FormErrorDomain {
    /// No client is configured: call ``ClientSystem/bootstrap(_:)`` at start-up.
    public static let notConfigured = Self("notConfigured")
    /// The base URL and path do not make a valid URL.
    public static let invalidURL = Self("invalidURL")
    /// A parameter cannot be encoded.
    public static let invalidParameters = Self("invalidParameters")
    /// A plugin refused to let the request be sent.
    public static let vetoed = Self("vetoed")
    /// The form asks for what its kind cannot do, such as a download that is not a `GET`.
    public static let invalidForm = Self("invalidForm")
}
