import MockBackend
import Testing

/// `BytePattern.bytes(_:)` copies whole periods instead of computing each byte; it must give
/// exactly the bytes `byte(at:)` defines, from any starting phase and for any length.
@Suite struct BytePatternTests {
    @Test(arguments: [0..<0, 0..<1, 7..<8, 0..<251, 250..<252, 3..<1_000, 251..<502, 1_000..<70_001])
    func everyByteIsTheOneAtItsPosition(range: Range<Int>) {
        #expect(BytePattern.bytes(range) == range.map { BytePattern.byte(at: $0) })
    }
}
