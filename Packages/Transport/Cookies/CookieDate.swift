package import Foundation

/// The lenient date of a cookie's `Expires` (RFC 6265 §5.1.1): tokens in any order, the
/// first time, day, month and year found win, two-digit years are 1970–2069.
package enum CookieDate {
    /// The date `text` names, or `nil` when it names none (the attribute is then ignored).
    package static func date(_ text: Substring) -> Date? {
        var time: (Int64, Int64, Int64)?
        var day: Int64?
        var month: Int64?
        var year: Int64?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let value = leadingDigits(token, minimum: 1, maximum: 2) {
                day = value
            } else if month == nil, let value = monthNumber(token) {
                month = value
            } else if year == nil, let value = leadingDigits(token, minimum: 2, maximum: 4) {
                year = value
            }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 }
        if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        guard day <= daysIn(month: month, year: year) else { return nil }
        let days = HTTPDate.daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(((days * 24 + hour) * 60 + minute) * 60 + second))
    }

    /// RFC 6265's delimiter: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    /// 1 to `maximum` digits at the start of `token`, followed by anything but a digit.
    private static func leadingDigits(_ token: Substring.UTF8View.SubSequence, minimum: Int, maximum: Int) -> Int64? {
        let digits = token.prefix { (0x30...0x39).contains($0) }
        guard digits.count >= minimum, digits.count <= maximum else { return nil }
        return digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }

    /// `hh:mm:ss`, each one or two digits, optionally followed by non-digits.
    private static func parseTime(_ token: Substring.UTF8View.SubSequence) -> (Int64, Int64, Int64)? {
        let fields = token.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3,
            fields[0].allSatisfy({ (0x30...0x39).contains($0) }), fields[1].allSatisfy({ (0x30...0x39).contains($0) }),
            let hour = leadingDigits(fields[0], minimum: 1, maximum: 2),
            let minute = leadingDigits(fields[1], minimum: 1, maximum: 2),
            let second = leadingDigits(fields[2], minimum: 1, maximum: 2)
        else { return nil }
        return (hour, minute, second)
    }

    /// 1 to 12 for a token that starts with `jan` to `dec`, in any case.
    private static func monthNumber(_ token: Substring.UTF8View.SubSequence) -> Int64? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: prefix).map { Int64($0) + 1 }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
