import Feedback
import Testing

@Suite struct QuantityTests {
    @Test(arguments: [
        (Int64(0), "0 B"),
        (512, "512 B"),
        (999, "999 B"),
        (1000, "1.00 kB"),
        (12_345, "12.3 kB"),
        (123_456, "123 kB"),
        (4_500_000, "4.50 MB"),
        (1_070_000_000, "1.07 GB"),
        (-5, "0 B"),
    ])
    func writesByteCountsInDecimalUnits(count: Int64, text: String) {
        #expect(Quantity.bytes(count) == text)
    }

    @Test(arguments: [
        (5_100_000.0, "5.10 MB/s"),
        (800.0, "800 B/s"),
        (0.0, "0 B/s"),
        (-10.0, "0 B/s"),
        (Double.infinity, "0 B/s"),
        (Double.nan, "0 B/s"),
    ])
    func writesRatesPerSecond(bytesPerSecond: Double, text: String) {
        #expect(Quantity.rate(bytesPerSecond) == text)
    }

    @Test(arguments: [
        (0.4, "0.4 s"),
        (2.0, "2.0 s"),
        (12.0, "12 s"),
        (59.4, "59 s"),
        (185.0, "3 min 05 s"),
        (3720.0, "1 h 02 min"),
        (-1.0, "?"),
        (Double.nan, "?"),
    ])
    func writesDurationsForAPerson(seconds: Double, text: String) {
        #expect(Quantity.duration(seconds: seconds) == text)
    }

    @Test func writesDurationValuesLikeSeconds() {
        #expect(Quantity.duration(.milliseconds(400)) == "0.4 s")
        #expect(Quantity.duration(.seconds(185)) == "3 min 05 s")
    }

    @Test func tellsTheTimeLeftAtTheCurrentRate() {
        #expect(Quantity.remaining(completed: 500, total: 1000, bytesPerSecond: 100) == 5)
    }

    @Test(arguments: [
        (Int64(500), Int64?.none, 100.0),
        (500, 1000, 0),
        (500, 1000, Double.infinity),
        (1500, 1000, 100),
    ])
    func cannotTellTheTimeLeftWithoutATotalOrARate(completed: Int64, total: Int64?, bytesPerSecond: Double) {
        #expect(Quantity.remaining(completed: completed, total: total, bytesPerSecond: bytesPerSecond) == nil)
    }
}
