public import Transport

/// The sentences a person reads, in one place: from failure category and business code to
/// text, with English defaults and a Simplified Chinese example.
///
/// Seed 003 mapped every failure kind to the sentence its product manager agreed on; this is
/// that table. Install one for the process with ``FeedbackSystem/bootstrap(_:catalog:)``, or
/// give a ``Messageable`` type its own. A feature team overrides what it needs and keeps the
/// rest:
///
/// ```swift
/// var catalog = MessageCatalog.english
/// catalog[.business(404)] = "We do not know that city yet."
/// catalog[.transport(.connectionRefused)] = "The weather service is down. Try again in a minute."
/// try FeedbackSystem.bootstrap(ConsolePresenter(), catalog: catalog)
/// ```
///
/// Texts may hold placeholders in braces (`{status}`, `{code}`, `{delay}`), filled in where
/// the entry's ``MessageKey`` says. Errors and values are read through Transport's
/// ``/Transport/MessageDescribable``, so a typed error of any module (Mapping's, a feature's)
/// gets its sentence without Feedback knowing the module. An entry a catalog lacks falls back
/// to the general one the error names last (``MessageKey/network`` for any transport
/// category, ``MessageKey/unreadableAnswer`` for any mapping category), and for a business
/// code to the server's own message.
public struct MessageCatalog: Sendable, Hashable {
    /// The language the texts are in, as a BCP 47 code (`en`, `zh-Hans`).
    public var languageCode: String
    /// The texts.
    public private(set) var entries: [MessageKey: String]

    /// Creates a catalog.
    ///
    /// - Parameters:
    ///   - languageCode: The language of the texts.
    ///   - entries: The texts.
    public init(languageCode: String, entries: [MessageKey: String]) {
        self.languageCode = languageCode
        self.entries = entries
    }

    /// The text of an entry; setting `nil` removes it.
    public subscript(key: MessageKey) -> String? {
        get { entries[key] }
        set { entries[key] = newValue }
    }

    /// This catalog with `overrides` in place of its own entries.
    public func merging(_ overrides: [MessageKey: String]) -> MessageCatalog {
        var copy = self
        copy.entries.merge(overrides) { _, new in new }
        return copy
    }

    /// The text of `key` with its placeholders filled in; the key's name when the catalog has
    /// no such entry (a missing sentence is visible, never silently empty).
    public func text(_ key: MessageKey, _ values: [String: String] = [:]) -> String {
        var text = entries[key] ?? key.name
        for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
        return text
    }

    // MARK: - Choosing a catalog

    /// The catalogs shipped with Parley.
    public static let shipped: [MessageCatalog] = [.english, .simplifiedChinese]

    /// The shipped catalog for a locale name such as `zh_CN.UTF-8`, `zh-Hans` or `en_GB`, or
    /// `nil` when there is none for its language.
    public static func shipped(forLocale locale: String) -> MessageCatalog? {
        let language = locale.split(whereSeparator: { "_-.@".contains($0) }).first.map(String.init) ?? ""
        return shipped.first { $0.languageCode.split(separator: "-").first.map(String.init) == language.lowercased() }
    }

    /// The shipped catalog for the language the environment asks for (`LC_ALL`, then
    /// `LC_MESSAGES`, then `LANG`, as POSIX orders them), English when none matches.
    ///
    /// - Parameter environment: The process environment.
    public static func preferred(environment: [String: String]) -> MessageCatalog {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            // The first variable set decides, as it does for every POSIX program.
            return shipped(forLocale: value) ?? .english
        }
        return .english
    }

    // MARK: - Warnings and information

    /// The warning a person should read after `error`, or `nil` when there is nothing to warn
    /// about (a cancellation, an outcome that is not a failure, or a business code the caller
    /// counts as success).
    ///
    /// An error that is ``/Transport/MessageDescribable`` (`TransportError`, Mapping's
    /// `BusinessError` and `MappingError`, an `Errorable`, a feature's own) is described by its
    /// business code when it has one, then by the first of its message keys this catalog has;
    /// any other error gets ``MessageKey/unknown``, with its message as the detail.
    ///
    /// - Parameters:
    ///   - error: The error a handle failed with; a `RequestFailure` is unwrapped first.
    ///   - successCodes: Business codes that are not failures.
    public func warning(for error: any Error, successCodes: Set<BusinessCode> = [200]) -> FeedbackMessage? {
        let error = (error as? RequestFailure)?.underlying ?? error
        if error is CancellationError { return nil }
        if let transport = error as? TransportError, transport.category == .cancelled { return nil }
        let detail = (error as? any ActionableError)?.message
        guard let outcome = error as? any MessageDescribable else {
            return FeedbackMessage(
                severity: .warning, text: text(.unknown), detail: detail ?? String(describing: error), key: .unknown)
        }
        guard outcome.isFailure, !(outcome.businessCode.map(successCodes.contains) ?? false) else { return nil }
        if let code = outcome.businessCode {
            return businessMessage(severity: .warning, code: code, serverMessage: outcome.businessMessage)
        }
        if let key = described(outcome) {
            return FeedbackMessage(
                severity: .warning, text: text(key, outcome.messageValues), detail: detail, key: key)
        }
        return FeedbackMessage(severity: .warning, text: outcome.businessMessage ?? text(.unknown))
    }

    /// The information a person should read after a success whose value is `value`, or `nil`
    /// when there is none.
    ///
    /// - Parameters:
    ///   - value: The handle's value. When it is ``/Transport/MessageDescribable`` with a
    ///     business code among `successCodes` (Mapping's `EnvelopeHead`, an `Errorable`), its
    ///     message (or this catalog's text for the code) is the information.
    ///   - successCodes: The business codes that mean success.
    ///   - fallback: What to say for any other value; `nil` says nothing.
    public func information(for value: any Sendable, successCodes: Set<BusinessCode> = [200], fallback: String? = nil)
        -> FeedbackMessage?
    {
        if let outcome = value as? any MessageDescribable, let code = outcome.businessCode {
            guard successCodes.contains(code) else { return nil }
            return businessMessage(
                severity: .information, code: code, serverMessage: outcome.businessMessage, orElse: fallback)
        }
        return fallback.map { FeedbackMessage(severity: .information, text: $0) }
    }

    /// The key of the first of `outcome`'s message keys this catalog has, or of its last when it
    /// has none; `nil` when it names none.
    private func described(_ outcome: any MessageDescribable) -> MessageKey? {
        let keys = outcome.messageKeys.map(MessageKey.init)
        return keys.first { entries[$0] != nil } ?? keys.last
    }

    /// The sentence of a retry notice: `Retrying in 2.0 s, the server asked; attempt 2 of 4.`
    public func text(for notice: RetryNotice) -> String {
        let of = notice.maximumAttempts.map { text(.retryOf, ["attempts": "\($0)"]) } ?? ""
        var values = ["attempt": "\(notice.attempt)", "of": of, "reason": notice.reason]
        guard let delay = notice.delay, delay > .zero else { return text(.retryingNow, values) }
        values["delay"] = Quantity.duration(delay)
        values["asked"] = notice.serverAsked ? text(.retryServerAsked) : ""
        return text(.retrying, values)
    }

    /// The words of a batch's count: `7 of 20 done, 1 failed` (the failures only when there
    /// are some), joined by ``MessageKey/listSeparator``'s text.
    public func text(for count: CountProgress) -> String {
        let done = text(.countDone, ["completed": "\(count.completed)", "total": "\(count.total)"])
        guard count.failed > 0 else { return done }
        return done + (entries[.listSeparator] ?? ", ") + text(.countFailed, ["failed": "\(count.failed)"])
    }

    private func businessMessage(
        severity: FeedbackMessage.Severity, code: BusinessCode, serverMessage: String?, orElse fallback: String? = nil
    ) -> FeedbackMessage? {
        if entries[.business(code)] != nil {
            return FeedbackMessage(
                severity: severity, text: text(.business(code), ["code": code.rawValue]),
                detail: serverMessage, code: code, key: .business(code))
        }
        if let serverMessage, !serverMessage.isEmpty {
            return FeedbackMessage(severity: severity, text: serverMessage, code: code)
        }
        if severity == .information {
            return fallback.map { FeedbackMessage(severity: .information, text: $0, code: code) }
        }
        return FeedbackMessage(
            severity: severity, text: text(.businessWithoutMessage, ["code": code.rawValue]), code: code,
            key: .businessWithoutMessage)
    }
}
