public import HTTPTypes
public import Transport

/// A response that could not be turned into the value asked for, with where, why, and a
/// glimpse of what the server sent.
///
/// `MappingError` is an extensible struct rather than an enum, like `TransportError`: match
/// on ``category``, with a `default:` case in a `switch`.
///
/// ```swift
/// do {
///     let forecast = try decoder.decode(Forecast.self, from: response, at: "data")
/// } catch let error as MappingError where error.category == .typeMismatch {
///     print(error.message)
///     // Expected Int at `data.three_day_forecast[1].temperature` but found a string "warm"
///     // in the response from https://api.example.com/weather (HTTP 200 OK). …
/// }
/// ```
///
/// The fields say the same things separately, for logs and tests: ``url``, ``status``,
/// ``codingPath`` (such as `data.three_day_forecast[1].temperature`), ``expected``,
/// ``found`` and ``excerpt``, at most 200 characters of the body with the values of keys that
/// look like credentials (``redactedKeyFragments``) replaced by `<redacted>`.
///
/// A message catalog (Feedback's `Warnable`) describes it by its category: it is
/// ``/Transport/MessageDescribable`` (see ``messageKeys``).
public struct MappingError: Error, Hashable, Sendable, CustomStringConvertible, ActionableError,
    MessageDescribable
{
    /// What kind of failure this is.
    public var category: Category
    /// A sentence a person can act on: what happened, where, and what to do.
    ///
    /// Redacted whenever it is set, by Transport's `LogRedaction.redactedText`: the URL and
    /// any text of the body it quotes show no credential.
    public var message: String {
        didSet { message = LogRedaction.redactedText(message) }
    }
    /// The URL of the response, when known: unredacted, as the request had it, for programs;
    /// ``message`` and ``description`` show it redacted.
    public var url: String?
    /// The HTTP status of the response, when known.
    public var status: HTTPResponse.Status?
    /// The place in the document that failed, such as `data.three_day_forecast[1].temperature`;
    /// `nil` when the failure concerns the whole body.
    public var codingPath: String?
    /// What the model or key path needed there, such as `Int` or `key \`temperature\``.
    public var expected: String?
    /// What the body had there, such as `a string "warm"`; only the kind of value when the
    /// path passes through a key that looks like a credential.
    public var found: String?
    /// The start of the body, whitespace collapsed and credentials redacted, at most about
    /// 200 characters; `nil` for an empty body.
    public var excerpt: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - category: What kind of failure this is.
    ///   - message: What happened, where, and what to do; stored redacted.
    ///   - url: The URL of the response, if known; stored as it is.
    ///   - status: The HTTP status, if known.
    ///   - codingPath: The place in the document that failed, if any.
    ///   - expected: What was needed there, if known.
    ///   - found: What was there, if known.
    ///   - excerpt: A redacted excerpt of the body, if any.
    public init(
        _ category: Category,
        message: String,
        url: String? = nil,
        status: HTTPResponse.Status? = nil,
        codingPath: String? = nil,
        expected: String? = nil,
        found: String? = nil,
        excerpt: String? = nil
    ) {
        self.category = category
        self.message = LogRedaction.redactedText(message)
        self.url = url
        self.status = status
        self.codingPath = codingPath
        self.expected = expected
        self.found = found
        self.excerpt = excerpt
    }

    /// `category: message`, followed by the body excerpt when there is one.
    public var description: String {
        var text = "\(category): \(message)"
        if let excerpt { text += " [body: \(excerpt)]" }
        return text
    }

    /// The catalog entries that describe this error: `httpStatus` for an
    /// `.unacceptableStatus` with a ``status`` (its `{status}` is the code), and
    /// otherwise `mapping.` and the category's name, then `mapping`, the sentence for any
    /// answer that could not be read.
    public var messageKeys: [String] {
        if category == .unacceptableStatus, status != nil { return ["httpStatus"] }
        return [category.messageKey, "mapping"]
    }

    /// `{status}`, the HTTP status code, when there is a ``status``.
    public var messageValues: [String: String] {
        status.map { ["status": "\($0.code)"] } ?? [:]
    }

    /// Fragments of key names whose values never appear in an ``excerpt`` or in ``found``:
    /// Transport's `LogRedaction.sensitiveNameFragments`, the one rule every layer redacts by.
    ///
    /// A key matches when, lowercased and with everything but letters and digits removed,
    /// it contains one of these: `access_token`, `X-Api-Key` and `userPassword` all match.
    public static var redactedKeyFragments: [String] { LogRedaction.sensitiveNameFragments }
}

extension MappingError {
    /// The kind of a ``MappingError``: an open set of named values.
    ///
    /// Compare with `==` against the static members; a `switch` needs a `default:` case,
    /// because new categories may be added.
    public typealias Category = ErrorCategory<MappingErrorDomain>
}

/// The domain of ``MappingError``'s categories: `MappingError.Category` is `ErrorCategory<MappingErrorDomain>`.
public enum MappingErrorDomain: ErrorCategoryDomain {
    /// `mapping`.
    public static var messageKeyPrefix: String { "mapping" }
}

/// The categories of ``MappingError``.
extension ErrorCategory where Domain == MappingErrorDomain {
    // MARK: The response as a whole

    /// The HTTP status is not one the ``StatusPolicy`` accepts.
    public static let unacceptableStatus = Self("unacceptableStatus")
    /// The body is empty (or only whitespace) where a value was expected.
    public static let emptyBody = Self("emptyBody")
    /// The body is not JSON: malformed, truncated, or another format such as HTML.
    public static let invalidJSON = Self("invalidJSON")
    /// The body is not an envelope of the configured ``EnvelopeFormat``: no code, or a
    /// code that is neither a number nor a string.
    public static let invalidEnvelope = Self("invalidEnvelope")

    // MARK: Key paths

    /// The key path given to the decoder leads nowhere: a missing key, an index past the
    /// end, a `null`, or a scalar on the way.
    public static let pathNotFound = Self("pathNotFound")

    // MARK: The model

    /// The model needs a key that the object lacks.
    public static let keyNotFound = Self("keyNotFound")
    /// The model needs a value where the body has `null`.
    public static let valueNotFound = Self("valueNotFound")
    /// The value has another type than the model needs (a string for a number, say).
    public static let typeMismatch = Self("typeMismatch")
    /// The value has the right type but is not valid: a date in another format, bad Base64.
    public static let dataCorrupted = Self("dataCorrupted")

    // MARK: Text

    /// The `Content-Type` names a character set this module cannot decode.
    public static let unsupportedCharset = Self("unsupportedCharset")
    /// The body's bytes are not valid in its character set.
    public static let undecodableText = Self("undecodableText")

    /// A failure that fits no other category; ``MappingError/message`` says more.
    public static let other = Self("other")
}
