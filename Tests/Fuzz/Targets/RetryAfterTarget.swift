import Foundation
import Transport

/// `RetryAfter` and `HTTPDate`: the first eight bytes set the current time (anywhere from
/// 1970 to 2106), the rest is the field's value.
///
/// Checks: a wait is never negative; a date's wait is the time from now to it, rounded up to
/// the millisecond; a date read in any form, written back as an IMF-fixdate, reads the same
/// in the strict form; digits alone are that many seconds.
let retryAfterTarget = FuzzTarget(
    name: "retry-after",
    maximumLength: 96,
    summary: "wait >= 0 and matches the date; IMF-fixdate round trip"
) { buffer in
    var input = FuzzInput(buffer)
    let now = Date(timeIntervalSince1970: Double(input.uint64() % (1 << 32)))
    let text = input.text
    let delay = RetryAfter.delay(from: text, now: now)
    if let delay { check(delay >= .zero, "negative wait \(delay) for \(text.debugDescription)") }
    for obsoleteForms in [true, false] {
        guard let seconds = HTTPDate.secondsSince1970(text, obsoleteForms: obsoleteForms, now: now) else { continue }
        let written = imfFixdate(seconds)
        check(
            HTTPDate.secondsSince1970(written, obsoleteForms: false, now: now) == seconds,
            "\(text.debugDescription) read as \(seconds), written \(written), which does not read back")
    }
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let seconds = HTTPDate.secondsSince1970(trimmed, now: now) {
        let wait = max(0, Double(seconds) - now.timeIntervalSince1970)
        check(
            delay == .milliseconds(Int64((wait * 1000).rounded(.up))),
            "\(text.debugDescription) waits \(String(describing: delay)), not \(wait) s")
    } else if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
        check(
            delay == .seconds(Int64(trimmed) ?? Int64.max),
            "\(text.debugDescription) waits \(String(describing: delay))")
    } else {
        check(delay == nil, "\(text.debugDescription) is neither form but waits \(String(describing: delay))")
    }
}

/// `seconds` since 1970 as an IMF-fixdate, in the proleptic Gregorian calendar (Howard
/// Hinnant's `civil_from_days`), written independently of the parser.
private func imfFixdate(_ seconds: Int64) -> String {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let time = seconds - days * 86_400
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    let weekday = ((days % 7) + 7 + 4) % 7  // 1970-01-01 was a Thursday.
    let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(weekdays[Int(weekday)]), \(padded(day, 2)) \(months[Int(month - 1)]) \(padded(year, 4)) "
        + "\(padded(time / 3600, 2)):\(padded(time / 60 % 60, 2)):\(padded(time % 60, 2)) GMT"
}
