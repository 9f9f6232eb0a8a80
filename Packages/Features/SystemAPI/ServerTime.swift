public import Foundation

/// The server's clock, as `GET /sysTime` reports it: `{"time": <milliseconds since 1970>}`.
public struct ServerTime: Codable, Sendable, Hashable {
    /// Milliseconds since 1970-01-01 00:00:00 UTC, as the server sent them.
    public var millisecondsSince1970: Int64

    /// The same instant as a `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000)
    }

    /// Creates a reading.
    ///
    /// - Parameter millisecondsSince1970: Milliseconds since 1970-01-01 00:00:00 UTC.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    private enum CodingKeys: String, CodingKey {
        case millisecondsSince1970 = "time"
    }
}
