public import Foundation

/// A release of the app, as `POST /sysVersion` lists them:
/// `{"version": "2.1.0", "notes": "…", "time": <milliseconds since 1970>}`.
public struct AppRelease: Codable, Sendable, Hashable {
    /// The version, such as `2.1.0`.
    public var version: String
    /// What changed, in a sentence or two.
    public var notes: String
    /// When it was published, in milliseconds since 1970-01-01 00:00:00 UTC.
    public var publishedMilliseconds: Int64

    /// When it was published.
    public var publishedAt: Date {
        Date(timeIntervalSince1970: Double(publishedMilliseconds) / 1000)
    }

    /// Creates a release.
    ///
    /// - Parameters:
    ///   - version: The version.
    ///   - notes: What changed.
    ///   - publishedMilliseconds: When it was published, in milliseconds since 1970.
    public init(version: String, notes: String, publishedMilliseconds: Int64) {
        self.version = version
        self.notes = notes
        self.publishedMilliseconds = publishedMilliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case version, notes
        case publishedMilliseconds = "time"
    }
}
