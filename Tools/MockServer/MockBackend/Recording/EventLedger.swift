import NIOConcurrencyHelpers

/// What `/events` has sent, per key, for `/events/stats`.
final class EventLedger: Sendable {
    /// One key's record.
    struct Record: Sendable {
        /// Connections opened.
        var connections = 0
        /// Connections whose body is being written.
        var open = 0
        /// Events written, over every connection.
        var sent = 0
        /// The `Last-Event-ID` of each connection, in order (`nil` where it had none).
        var lastEventIDs: [String?] = []

        var json: JSONValue {
            .object([
                "connections": .int(connections),
                "open": .int(open),
                "sent": .int(sent),
                "lastEventIDs": .array(lastEventIDs.map { $0.map(JSONValue.string) ?? .null }),
            ])
        }
    }

    private let records = NIOLockedValueBox<[String: Record]>([:])

    /// Records a new connection of `key` and the `Last-Event-ID` it carried.
    func connect(_ key: String, lastEventID: String?) {
        records.withLockedValue { records in
            records[key, default: Record()].connections += 1
            records[key, default: Record()].lastEventIDs.append(lastEventID)
        }
    }

    /// Records that a body of `key` started (`1`) or stopped (`-1`) being written.
    func changeOpen(_ key: String, by delta: Int) {
        records.withLockedValue { $0[key, default: Record()].open += delta }
    }

    /// Records one more event written for `key`.
    func recordSent(_ key: String) {
        records.withLockedValue { $0[key, default: Record()].sent += 1 }
    }

    /// The record of `key`; an empty one when it was never used.
    func record(of key: String) -> Record {
        records.withLockedValue { $0[key] ?? Record() }
    }
}
