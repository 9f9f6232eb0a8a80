public import Transport

/// A sentence for a person: a warning after a failure, an information after a success.
///
/// Its ``title``, ``text`` and ``detail`` are redacted whenever they are set, by Transport's
/// one rule (``/Transport/LogRedaction/redactedText(_:)``): a server's message or an error's
/// detail that quotes a credential shows `<redacted>` in its place, whichever presenter draws it.
public struct FeedbackMessage: Sendable, Hashable {
    /// Which of the two it is.
    public enum Severity: String, Sendable, Hashable {
        /// Something failed: ``Warnable``.
        case warning
        /// Something succeeded: ``Informable``.
        case information
    }

    /// Which of the two it is.
    public var severity: Severity
    /// A title for an alert box, when the caller chose one.
    public var title: String? {
        didSet { title = title.map(LogRedaction.redactedText) }
    }
    /// The sentence a person reads.
    public var text: String {
        didSet { text = LogRedaction.redactedText(text) }
    }
    /// What a developer would want too (the transport's own message), when it adds something.
    public var detail: String? {
        didSet { detail = detail.map(LogRedaction.redactedText) }
    }
    /// The business code, when the message is about one.
    public var code: BusinessCode?
    /// The catalog entry the text came from; `nil` when it is the server's own message.
    public var key: MessageKey?

    /// Creates a message.
    public init(
        severity: Severity, title: String? = nil, text: String, detail: String? = nil,
        code: BusinessCode? = nil, key: MessageKey? = nil
    ) {
        self.severity = severity
        self.title = title.map(LogRedaction.redactedText)
        self.text = LogRedaction.redactedText(text)
        self.detail = detail.map(LogRedaction.redactedText)
        self.code = code
        self.key = key
    }
}
