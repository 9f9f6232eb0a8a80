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
        guard let date = httpDate(trimmed, now: now) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// An HTTP date in any of its three forms, read strictly: every token must be where the
    /// form puts it.
    private static func httpDate(_ text: String, now: Date) -> Date? {
        // asctime pads a one-digit day with a second space.
        let tokens = text.split(separator: " ").map(String.init)
        switch tokens.count {
        case 6:  // IMF-fixdate: Sun, 22 Nov 2026 03:01:30 GMT
            guard tokens[0].hasSuffix(","), days.contains(String(tokens[0].dropLast())), tokens[5] == "GMT",
                tokens[1].count == 2, tokens[3].count == 4,
                let day = Int(tokens[1]), let month = months.firstIndex(of: tokens[2]), let year = Int(tokens[3])
            else { return nil }
            return date(year: year, month: month + 1, day: day, time: tokens[4])
        case 4:  // RFC 850: Sunday, 22-Nov-26 03:01:30 GMT
            let parts = tokens[1].split(separator: "-").map(String.init)
            guard tokens[0].hasSuffix(","), longDays.contains(String(tokens[0].dropLast())), tokens[3] == "GMT",
                parts.count == 3, parts[0].count == 2, parts[2].count == 2,
                let day = Int(parts[0]), let month = months.firstIndex(of: parts[1]), let shortYear = Int(parts[2])
            else { return nil }
            // The year with these last two digits nearest to now, never more than 50 years
            // ahead (RFC 9110 reads one further ahead as the most recent such year past).
            let currentYear = Calendar.gmt.component(.year, from: now)
            var year = currentYear / 100 * 100 + shortYear
            if year > currentYear + 50 { year -= 100 }
            if year <= currentYear - 50 { year += 100 }
            return date(year: year, month: month + 1, day: day, time: tokens[2])
        case 5:  // asctime: Sun Nov 22 03:01:30 2026
            guard days.contains(tokens[0]), tokens[2].count <= 2, tokens[4].count == 4,
                let month = months.firstIndex(of: tokens[1]), let day = Int(tokens[2]), let year = Int(tokens[4])
            else { return nil }
            return date(year: year, month: month + 1, day: day, time: tokens[3])
        default:
            return nil
        }
    }

    /// The instant of a calendar day at `HH:mm:ss` GMT, or `nil` for a day or time that does not exist.
    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let components = DateComponents(
            calendar: .gmt, timeZone: TimeZone(identifier: "GMT"), year: year, month: month, day: day, hour: hour,
            minute: minute, second: min(second, 59))
        guard components.isValidDate, let date = components.date else { return nil }
        return date
    }
}

extension Calendar {
    /// The Gregorian calendar in GMT, which HTTP dates use.
    fileprivate static let gmt: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT") ?? .current
        return calendar
    }()
}
