/// How byte counts, rates and durations are written for a person.
///
/// Decimal units, as `curl` and most download tools print them: `999 B`, `12.3 kB`,
/// `4.50 MB`, `1.07 GB`; two decimals below 10 of a unit, one below 100, none above.
package enum Quantity {
    /// A byte count: `0 B`, `512 B`, `12.3 kB`, `4.50 MB`, `1.07 GB`.
    package static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB", "PB"]
        var value = Double(max(0, count))
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(Int(value)) B" }
        return "\(decimal(value, places: value < 10 ? 2 : value < 100 ? 1 : 0)) \(units[unit])"
    }

    /// A rate: `bytes(_:)` per second, such as `5.1 MB/s`.
    package static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "0 B/s" }
        return bytes(Int64(bytesPerSecond)) + "/s"
    }

    /// A duration for a person: `0.4 s`, `12 s`, `3 min 05 s`, `1 h 02 min`.
    package static func duration(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return self.duration(seconds: seconds)
    }

    /// A duration in seconds for a person: `0.4 s`, `12 s`, `3 min 05 s`, `1 h 02 min`.
    package static func duration(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        if seconds < 10 { return "\(decimal(seconds, places: 1)) s" }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(twoDigits(whole % 60)) s" }
        return "\(whole / 3600) h \(twoDigits(whole / 60 % 60)) min"
    }

    /// A fraction as a whole percentage: `0.456` is `46%`; clamped to `0%...100%`.
    package static func percent(_ fraction: Double) -> String {
        guard fraction.isFinite else { return "?%" }
        return "\(Int((min(1, max(0, fraction)) * 100).rounded(.down)))%"
    }

    /// The time left at the current rate, or `nil` when it cannot be told (no total, no rate).
    package static func remaining(completed: Int64, total: Int64?, bytesPerSecond: Double) -> Double? {
        guard let total, total >= completed, bytesPerSecond.isFinite, bytesPerSecond > 0 else { return nil }
        return Double(total - completed) / bytesPerSecond
    }

    /// `value` with exactly `places` decimals, without Foundation's locale-dependent formatting.
    static func decimal(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((value * scale).rounded())
        guard places > 0 else { return "\(scaled)" }
        let integer = scaled / Int64(scale)
        var fraction = String(scaled % Int64(scale))
        while fraction.count < places { fraction = "0" + fraction }
        return "\(integer).\(fraction)"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
