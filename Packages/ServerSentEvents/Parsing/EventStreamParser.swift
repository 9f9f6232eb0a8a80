import Transport

/// Turns the bytes of a `text/event-stream` body into events, by the parsing rules of the
/// WHATWG HTML standard's "server-sent events" (section 9.2.6, "Interpreting an event stream").
///
/// Bytes go in as they arrive, in chunks of any size; a line, a field or a UTF-8 sequence may
/// be split anywhere between two chunks. The rules:
///
/// - Lines end with CR, LF or CR LF; one byte order mark (U+FEFF) at the start of the stream is
///   skipped. Bytes that are not UTF-8 become U+FFFD.
/// - A line starting with `:` is a comment, ignored (servers send them to keep a connection
///   alive). Otherwise the field name runs to the first `:`, and the value follows it, less one
///   leading space; a line without a colon is a field with an empty value.
/// - `event` sets the event's type; `data` appends its value and a line feed to the data;
///   `id` sets the last event ID, unless the value contains NUL; `retry` sets the reconnection
///   time in milliseconds when its value is ASCII digits only, and is ignored otherwise. Any
///   other field is ignored.
/// - A blank line dispatches the event: the last event ID becomes the stream's, and when the
///   data is not empty, the event is returned with its last line feed removed and `message`
///   as its type unless an `event` field named one. An event without data is not dispatched.
/// - At the end of the stream (``finish()``) an event not yet followed by a blank line is
///   discarded. The last event ID and the reconnection time persist into the next connection.
///
/// ```swift
/// var parser = EventStreamParser()
/// for try await chunk in response.body {
///     for event in try parser.parse(chunk) { print(event.type, event.data) }
/// }
/// parser.finish()
/// ```
///
/// The parser is a value without I/O, so it is tested as a table. ``EventStream`` uses one
/// per stream, across its reconnections.
public struct EventStreamParser: Sendable {
    /// The last event ID of the stream: the last `id` field of a dispatched block (an event,
    /// or a block without data), persisting across events and connections. Empty until the
    /// server sends one.
    public private(set) var lastEventID: String
    /// The reconnection time the server last set with a `retry` field, if it did.
    public private(set) var reconnectionTime: Duration?
    /// The most bytes an event's line and data may hold before ``parse(_:)`` throws: 1 MiB by
    /// default. It bounds the memory a server can make the parser hold without ending a line
    /// or an event.
    public var maximumEventSize: Int

    /// The bytes of the line being read, without its terminator.
    private var line: [UInt8] = []
    /// Whether the last byte read was a CR, so that an LF right after it ends no second line.
    private var afterCR = false
    /// Whether the stream's first line is still being read, where a byte order mark is skipped.
    private var atStreamStart = true
    /// The `data` values of the block so far, each followed by LF.
    private var data: [UInt8] = []
    /// Whether the block holds any `data` field (an empty value still adds a line feed).
    private var hasData: Bool { !data.isEmpty }
    /// The block's `event` value.
    private var eventType: String?
    /// The last event ID as the block being read sets it; the stream's when the block is dispatched.
    private var lastEventIDBuffer: String
    /// The reconnection time a `retry` field of the block set.
    private var blockRetry: Duration?

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - lastEventID: The last event ID to start from, such as one an earlier run stored;
    ///     empty by default.
    ///   - maximumEventSize: The most bytes a line and an event's data may hold: 1 MiB by default.
    public init(lastEventID: String = "", maximumEventSize: Int = 1 << 20) {
        self.lastEventID = lastEventID
        self.lastEventIDBuffer = lastEventID
        self.maximumEventSize = max(1, maximumEventSize)
    }

    /// Reads the next bytes of the stream.
    ///
    /// - Parameter bytes: The next bytes, as they arrived.
    /// - Returns: The events the bytes completed, in order; often none.
    /// - Throws: ``/Transport/TransportError`` of category `responseTooLarge` when a line or an
    ///   event's data grows past ``maximumEventSize``. The parser is then at the start of a
    ///   line of an empty block, as after ``finish()``.
    public mutating func parse(_ bytes: some Sequence<UInt8>) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            switch byte {
            case 0x0A where afterCR:
                afterCR = false
            case 0x0A, 0x0D:
                afterCR = byte == 0x0D
                if let event = endLine() { events.append(event) }
            default:
                afterCR = false
                line.append(byte)
                if atStreamStart, line.count == Self.byteOrderMark.count {
                    atStreamStart = false
                    if line.elementsEqual(Self.byteOrderMark) { line.removeAll(keepingCapacity: true) }
                }
                if line.count + data.count > maximumEventSize {
                    let limit = maximumEventSize
                    finish()
                    throw TransportError(
                        .responseTooLarge,
                        message: "An event of the stream grew past \(limit) bytes without ending. Raise "
                            + "maximumEventSize if the server's events are that large.")
                }
            }
        }
        return events
    }

    /// Ends the stream: a line or an event not yet complete is discarded, and the next bytes
    /// start a new stream (a byte order mark is skipped again). The last event ID and the
    /// reconnection time persist.
    public mutating func finish() {
        line.removeAll(keepingCapacity: true)
        afterCR = false
        atStreamStart = true
        resetBlock()
        lastEventIDBuffer = lastEventID
    }

    // MARK: - Lines

    /// The UTF-8 byte order mark, skipped once at the start of a stream.
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Interprets the line read, then starts the next one.
    private mutating func endLine() -> ServerSentEvent? {
        atStreamStart = false
        defer { line.removeAll(keepingCapacity: true) }
        guard let first = line.first else { return dispatch() }
        if first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = line[..<(colon ?? line.endIndex)]
        var valueStart = colon.map { line.index(after: $0) } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            data.append(contentsOf: value)
            data.append(0x0A)
        case "id":
            if !value.contains(0) { lastEventIDBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if let milliseconds = Self.milliseconds(value) {
                reconnectionTime = .milliseconds(milliseconds)
                blockRetry = reconnectionTime
            }
        default:
            break
        }
        return nil
    }

    /// Dispatches the block at a blank line: the event, when it has data.
    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = lastEventIDBuffer
        defer { resetBlock() }
        guard hasData else { return nil }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? ServerSentEvent.defaultType
        return ServerSentEvent(
            type: type, data: String(decoding: data.dropLast(), as: UTF8.self), id: lastEventID, retry: blockRetry)
    }

    private mutating func resetBlock() {
        data.removeAll(keepingCapacity: true)
        eventType = nil
        blockRetry = nil
    }

    /// The value of a `retry` field when it is ASCII digits only (and fits in an `Int64`).
    private static func milliseconds(_ value: ArraySlice<UInt8>) -> Int64? {
        guard !value.isEmpty else { return nil }
        var result: Int64 = 0
        for byte in value {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (times, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - 0x30))
            if overflow || overflowSum { return nil }
            result = sum
        }
        return result
    }
}
