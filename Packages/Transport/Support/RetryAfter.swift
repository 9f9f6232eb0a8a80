public import Foundation

/// Reads a `Retry-After` header field (RFC 9110, section 10.2.3): how long a server asks a
/// client to wait before it sends the request again.
///
/// Both forms are understood: a number of seconds (`120`) and an HTTP date
/// (`Sun, 22 Nov 2026 03:01:30 GMT`, also in the two obsolete forms RFC 9110 still asks
/// recipients to accept: `Sunday, 22-Nov-26 03:01:30 GMT` and `Sun Nov 22 03:01:30 2026`).
/// A date in the past means no wait; anything else is not a `Retry-After` and reads as `nil`.
public enum RetryAfter {
    /// The wait a `Retry-After` value asks for.
    ///
    /// - Parameters:
    ///   - value: The field's value.
    ///   - now: The current time, for the date form; the clock's by default.
    /// - Returns: The wait (zero for a date in the past), or `nil` when the value is neither
    ///   a number of seconds nor an HTTP date.
    public static func delay(from value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // More digits than an Int64 holds is a wait no client would honour anyway.
            return .seconds(Int64(trimmed) ?? Int64.max)
        }
        guard let date = HTTPDate.secondsSince1970(trimmed, now: now) else { return nil }
        let seconds = max(0, Double(date) - now.timeIntervalSince1970)
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
