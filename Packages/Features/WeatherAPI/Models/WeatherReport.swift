/// What the server received for a weather report (`POST /weather/report`):
/// `{"id", "city", "note", "bytes", "sha256"}`.
public struct WeatherReport: Codable, Sendable, Hashable {
    /// The report's identifier on the server.
    public var id: String
    /// The city the report is about.
    public var city: String
    /// The note, when one was sent.
    public var note: String?
    /// How many bytes of photo the server received.
    public var bytes: Int
    /// The SHA-256 of the photo the server received, as 64 lowercase hexadecimal characters:
    /// compare it with the file's own to know it arrived whole.
    public var sha256: String

    /// Creates a report receipt.
    ///
    /// - Parameters:
    ///   - id: The identifier.
    ///   - city: The city.
    ///   - note: The note, if any.
    ///   - bytes: The photo's length.
    ///   - sha256: The photo's digest.
    public init(id: String, city: String, note: String?, bytes: Int, sha256: String) {
        self.id = id
        self.city = city
        self.note = note
        self.bytes = bytes
        self.sha256 = sha256
    }
}
