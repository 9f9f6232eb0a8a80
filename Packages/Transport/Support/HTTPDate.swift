package import Foundation

/// Reads an HTTP date (RFC 9110, section 5.6.7), as `Date`, `Last-Modified` and `Retry-After`
/// carry it: the IMF-fixdate every current server sends (`Sun, 06 Nov 1994 08:49:37 GMT`) and
/// the two obsolete forms recipients must still accept (`Sunday, 06-Nov-94 08:49:37 GMT` and
/// `Sun Nov  6 08:49:37 1994`). Strict: every token must be where its form puts it, one space
/// apart (asctime's second space before a one-digit day aside), and the day must exist. The
/// caller trims the field value's surrounding spaces; a date with spaces inside it that its
/// form does not have is not a date (so an `Expires` spelled so is already expired).
package enum HTTPDate {
    /// The seconds since 1970 of `text`, or `nil` when it is not an HTTP date.
    ///
    /// - Parameters:
    ///   - text: The field's value.
    ///   - obsoleteForms: Whether the two obsolete forms are read; where a date's exactness
    ///     matters (a validator sent back in `If-Range`), only the IMF-fixdate is trusted.
    ///   - now: The current time, for the two-digit year of the RFC 850 form, which is read as
    ///     the nearest such year no more than 50 years ahead.
    package static func secondsSince1970(_ text: String, obsoleteForms: Bool = true, now: Date = Date()) -> Int64? {
        var parts = text.split(separator: " ", omittingEmptySubsequences: false)
        // asctime pads a one-digit day with a second space: the one empty token allowed.
        let padded = parts.count == 6 && parts[2].isEmpty && parts[3].count == 1 && !parts[0].hasSuffix(",")
        if padded { parts.remove(at: 2) }
        guard !parts.contains(where: \.isEmpty) else { return nil }
        guard obsoleteForms || parts.count == 6 else { return nil }
        switch parts.count {
        case 6:  // IMF-fixdate
            guard parts[0].last == ",", shortDays.contains(String(parts[0].dropLast())), parts[5] == "GMT",
                parts[1].count == 2, parts[3].count == 4,
                let day = digits(parts[1]), let month = monthNumber(parts[2]), let year = digits(parts[3])
            else { return nil }
            return seconds(year: year, month: month, day: day, time: parts[4])
        case 4:  // RFC 850
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts[0].last == ",", longDays.contains(String(parts[0].dropLast())), parts[3] == "GMT",
                date.count == 3, date[0].count == 2, date[2].count == 2,
                let day = digits(date[0]), let month = monthNumber(date[1]), let shortYear = digits(date[2])
            else { return nil }
            return seconds(year: fullYear(shortYear, now: now), month: month, day: day, time: parts[2])
        case 5:  // asctime
            guard shortDays.contains(String(parts[0])), parts[2].count == (padded ? 1 : 2), parts[4].count == 4,
                let month = monthNumber(parts[1]), let day = digits(parts[2]), let year = digits(parts[4])
            else { return nil }
            return seconds(year: year, month: month, day: day, time: parts[3])
        default:
            return nil
        }
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// 1 for `Jan` to 12 for `Dec`.
    private static func monthNumber(_ name: Substring) -> Int64? {
        months.firstIndex(of: String(name)).map { Int64($0) + 1 }
    }

    /// A run of ASCII digits (no sign, no spaces) as a number.
    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 4, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// The instant of a day at `HH:mm:ss` GMT, or `nil` for a day or time that does not exist.
    private static func seconds(year: Int64, month: Int64, day: Int64, time: Substring) -> Int64? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = digits(clock[0]), let minute = digits(clock[1]), let second = digits(clock[2]),
            hour < 24, minute < 60, second < 61,
            day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60 + second
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The year ending in `shortYear` nearest to now, no more than 50 years ahead.
    private static func fullYear(_ shortYear: Int64, now: Date) -> Int64 {
        // The mean Gregorian year is close enough for a rule that works in half centuries.
        let currentYear = 1970 + Int64(now.timeIntervalSince1970 / 31_556_952)
        var year = currentYear / 100 * 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        if year <= currentYear - 50 { year += 100 }
        return year
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    package static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
