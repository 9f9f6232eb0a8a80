public import Transport

/// An entry of a ``MessageCatalog``: a failure category, a business code, or one of the
/// presenters' own phrases.
///
/// An open set of names, like `TransportError.Category`: feature teams may add their own.
/// A typed error names the entries that describe it
/// (``/Transport/MessageDescribable/messageKeys``): `transport.` and a transport category
/// (``transport(_:)``), `mapping.` and the name of a Mapping error's category, such as
/// `MessageKey("mapping.typeMismatch")`, `forms.` and a form error's.
public struct MessageKey: Sendable, Hashable, CustomStringConvertible {
    /// The stable name, such as `transport.connectionRefused` or `business.404`.
    public let name: String

    /// Creates a key.
    public init(_ name: String) {
        self.name = name
    }

    /// The name.
    public var description: String { name }

    /// The sentence for a transport failure of `category`.
    public static func transport(_ category: TransportError.Category) -> MessageKey {
        MessageKey("transport." + category.name)
    }

    /// The sentence for business code `code`, in place of the server's message.
    public static func business(_ code: BusinessCode) -> MessageKey {
        MessageKey("business." + code.rawValue)
    }

    /// A transport failure with no sentence of its own.
    public static let network = MessageKey("network")
    /// An answer that could not be read, with no sentence of its own.
    public static let unreadableAnswer = MessageKey("mapping")
    /// A refused HTTP status; `{status}` is its code.
    public static let httpStatus = MessageKey("httpStatus")
    /// A business failure without a message from the server; `{code}` is its code.
    public static let businessWithoutMessage = MessageKey("business")
    /// Any other failure.
    public static let unknown = MessageKey("unknown")
    /// A notice of a retry: `{delay}`, `{asked}`, `{attempt}`, `{of}` and `{reason}` are filled in.
    public static let retrying = MessageKey("retrying")
    /// A retry sent at once: `{attempt}`, `{of}` and `{reason}` are filled in.
    public static let retryingNow = MessageKey("retrying.now")
    /// Inserted as `{asked}` when the server chose the wait.
    public static let retryServerAsked = MessageKey("retrying.asked")
    /// Inserted as `{of}` when the number of attempts is known: `{attempts}` is filled in.
    public static let retryOf = MessageKey("retrying.of")
    /// A reload prompt's line on the attempts made: `{attempts}` is filled in.
    public static let reloadAttempts = MessageKey("reload.attempts")
    /// A reload prompt's warning that the request may already have been applied: `{method}`
    /// is filled in.
    public static let reloadMayHaveBeenApplied = MessageKey("reload.mayHaveBeenApplied")
    /// A reload prompt's assurance that sending the request again is safe: `{method}` is
    /// filled in.
    public static let reloadSafe = MessageKey("reload.safe")
    /// A reload prompt's question, naming its keys.
    public static let reloadQuestion = MessageKey("reload.question")
    /// The answer to a reload prompt that sends the request again, echoed after the question.
    public static let reloadRetry = MessageKey("reload.retry")
    /// The answer to a reload prompt that lets the failure stand, echoed after the question.
    public static let reloadAbort = MessageKey("reload.abort")
    /// The default title of a warning box.
    public static let warningTitle = MessageKey("title.warning")
    /// The default title of an information box.
    public static let informationTitle = MessageKey("title.information")
    /// A finished activity in a summary line.
    public static let done = MessageKey("summary.done")
    /// A failed activity in a summary line.
    public static let failed = MessageKey("summary.failed")
    /// A cancelled activity in a summary line.
    public static let cancelled = MessageKey("summary.cancelled")
    /// How many parts of a batch are done: `{completed}` and `{total}` are filled in.
    public static let countDone = MessageKey("count.done")
    /// How many parts of a batch failed: `{failed}` is filled in.
    public static let countFailed = MessageKey("count.failed")
    /// A summary of an activity that ended well: `{outcome}` (``done``'s text, or a batch's
    /// count) and `{duration}` are filled in: `done in 0.4 s`.
    public static let summaryIn = MessageKey("summary.in")
    /// A summary of an activity that failed or was cancelled: `{outcome}` (``failed``'s or
    /// ``cancelled``'s text) and `{duration}` are filled in: `failed after 2.8 s`.
    public static let summaryAfter = MessageKey("summary.after")
    /// A summary of a finished transfer: `{outcome}` (``done``'s text), `{bytes}` and
    /// `{duration}` are filled in: `done, 1.00 MB in 2.5 s`.
    public static let summaryTransferred = MessageKey("summary.transferred")
    /// What joins the parts of a summary or a status line (`, `).
    public static let listSeparator = MessageKey("list.separator")
    /// A plain status line's words for a request still running: `{duration}` is filled in.
    public static let runningFor = MessageKey("status.runningFor")
    /// A plain status line's word for a transfer that has not moved yet.
    public static let waiting = MessageKey("status.waiting")
    /// The bytes of a transfer so far out of its size: `{completed}` and `{total}` are filled in.
    public static let bytesOfTotal = MessageKey("status.bytesOf")
    /// The time a transfer has left: `{duration}` is filled in.
    public static let timeLeft = MessageKey("status.eta")
    /// How many requests share a masked region: `{count}` is filled in.
    public static let requestsInRegion = MessageKey("status.requests")
    /// The last row of a live area taller than the terminal: `{count}` rows are hidden.
    public static let moreRows = MessageKey("status.more")
    /// What a masked request is called in plain lines when neither its mask nor its region
    /// names it.
    public static let request = MessageKey("status.request")
}
