/// One event of a `text/event-stream` response, as the WHATWG HTML standard's "server-sent
/// events" dispatch it.
///
/// A block of field lines ending with a blank line is one event, when it holds at least one
/// `data` field:
///
/// ```text
/// id: 42
/// event: price
/// data: {"symbol": "ACME",
/// data:  "price": 12.5}
///
/// ```
///
/// gives an event of ``type`` `price`, ``id`` `42` and ``data`` `{"symbol": "ACME",\n "price": 12.5}`.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: the last `event` field of its block, `message` when it has none.
    public var type: String
    /// The values of the block's `data` fields, joined with a line feed (`\n`).
    public var data: String
    /// The last event ID when the event was dispatched: the last `id` field of this block or of
    /// an earlier one (it persists across events and reconnections), empty when the server never
    /// sent one or reset it with an empty `id`.
    ///
    /// ``EventStream`` sends it back as `Last-Event-ID` when it reconnects.
    public var id: String
    /// The reconnection time a `retry` field of this event's block set, if one did.
    ///
    /// The wait applies to the stream from the moment the field is read, whether or not its
    /// block becomes an event; this property only reports it.
    public var retry: Duration?

    /// The type of an event whose block names none.
    public static let defaultType = "message"

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - type: The event's type; ``defaultType`` (`message`) by default.
    ///   - data: The data, its lines joined with `\n`.
    ///   - id: The last event ID; empty by default.
    ///   - retry: The reconnection time its block set; `nil` by default.
    public init(type: String = ServerSentEvent.defaultType, data: String, id: String = "", retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}
