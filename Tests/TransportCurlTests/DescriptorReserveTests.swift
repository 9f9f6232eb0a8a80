import Testing

@testable import TransportCurl

/// Which sockets the engine keeps, as a table of descriptor numbers and limits.
///
/// Checked to fail: with the reserve's floor of 32 left out, a limit of 64 keeps 2 and lets the
/// engine take descriptor 40; with "never more than half" left out, a limit of 40 keeps all 40.
@Suite struct DescriptorReserveTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let limit: Int
        let reserve: Int
        /// The highest descriptor number the engine keeps.
        let highestKept: Int32
        var testDescription: String { "a limit of \(limit)" }
    }

    static let rows: [Row] = [
        Row(limit: 40, reserve: 20, highestKept: 19),
        Row(limit: 64, reserve: 32, highestKept: 31),
        Row(limit: 1024, reserve: 32, highestKept: 991),
        Row(limit: 4096, reserve: 128, highestKept: 3967),
        Row(limit: 20000, reserve: 625, highestKept: 19374),
        Row(limit: 1_048_576, reserve: 32768, highestKept: 1_015_807),
    ]

    @Test(arguments: rows)
    func keepsTheTopOfTheRangeFree(_ row: Row) {
        #expect(DescriptorReserve.size(forLimit: row.limit) == row.reserve)
        #expect(DescriptorReserve.allows(row.highestKept, limit: row.limit))
        #expect(!DescriptorReserve.allows(row.highestKept + 1, limit: row.limit))
        #expect(!DescriptorReserve.allows(Int32(row.limit - 1), limit: row.limit))
        #expect(DescriptorReserve.allows(3, limit: row.limit))
    }

    @Test func withoutALimitEverySocketIsKept() {
        #expect(DescriptorReserve.allows(1_000_000, limit: nil))
    }
}
