import Foundation
import Synchronization
import Testing
import Transport

@testable import TransportCurl

/// The hand-over of a streamed body between the loop and its consumer, fed directly: the bytes
/// come out as they went in, in blocks that start small and grow, and a paused transfer goes on
/// once the consumer has taken enough.
///
/// Checked to fail: with a block's growth left out (each block only as large as the write that
/// starts it), sixteen-KiB writes come out in sixteen-KiB chunks; with the transfer resumed only when nothing waits (as when the
/// consumer took every byte at once), the consumer's first take after the pause does not resume
/// it.
@Suite struct ResponseStreamBufferTests {
    /// How many times the buffer asked the loop to resume receiving.
    private final class Resumptions: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func add() { count.add(1, ordering: .relaxed) }
    }

    private static func buffer(highWaterMark: Int, resumed: Resumptions? = nil) -> ResponseStreamBuffer {
        ResponseStreamBuffer(highWaterMark: highWaterMark, resumeReceiving: { resumed?.add() }, cancelTransfer: {})
    }

    private static func bytes(_ count: Int, from start: Int) -> [UInt8] {
        (start..<(start + count)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }

    @Test(arguments: [
        [1, 4095, 1, 5000, 300_000, 524_288, 17],
        [16_384, 16_384, 16_384, 16_384, 16_384, 16_384, 16_384, 16_384, 16_384, 16_384],
        [262_144, 262_144, 1],
        [3],
    ])
    func handsOverEveryByteInOrderInBlocksThatGrow(offers: [Int]) async throws {
        let buffer = Self.buffer(highWaterMark: 64 << 20)
        var sent: [UInt8] = []
        for count in offers {
            let chunk = Self.bytes(count, from: sent.count)
            let offer = chunk.withUnsafeBytes { buffer.offer($0) }
            guard case .accepted = offer else {
                Issue.record("offer of \(count) bytes: \(offer)")
                return
            }
            sent += chunk
        }
        buffer.finish(Result<Void, TransportError>.success(()))
        var received = Data()
        var sizes: [Int] = []
        while let chunk = try await buffer.next() {
            received.append(chunk)
            sizes.append(chunk.count)
        }
        #expect(received == Data(sent))
        #expect(sizes.allSatisfy { $0 > 0 && $0 <= ResponseBlocks.largeSize })
        #expect(
            sizes.first.map { $0 <= ResponseBlocks.smallestSize || sent.count > ResponseBlocks.smallestSize } == true)
        // Many writes fill blocks larger than any one of them.
        let largestOffer = offers.max() ?? 0
        if sent.count >= 4 * largestOffer { #expect((sizes.max() ?? 0) > largestOffer) }
    }

    @Test func aPausedTransferGoesOnOnceFewerBytesThanTheMarkWait() async throws {
        let resumed = Resumptions()
        let buffer = Self.buffer(highWaterMark: 64 * 1024, resumed: resumed)
        let chunk = Self.bytes(32 * 1024, from: 0)
        var offers: [String] = []
        for _ in 0..<3 {
            switch chunk.withUnsafeBytes({ buffer.offer($0) }) {
            case .accepted: offers.append("accepted")
            case .pause: offers.append("pause")
            case .abort: offers.append("abort")
            }
        }
        #expect(offers == ["accepted", "accepted", "pause"])
        let first = try #require(try await buffer.next())
        #expect(first.count == 32 * 1024)
        #expect(resumed.value == 1)
        // The paused write comes again and is taken.
        guard case .accepted = chunk.withUnsafeBytes({ buffer.offer($0) }) else {
            Issue.record("the repeated write was not taken")
            return
        }
        buffer.finish(Result<Void, TransportError>.success(()))
        var rest = 0
        while let more = try await buffer.next() { rest += more.count }
        #expect(rest == 64 * 1024)
        #expect(resumed.value == 1)
    }

    @Test func aCancelledBodyDropsWhatWaitsAndRefusesMore() async throws {
        let buffer = Self.buffer(highWaterMark: 1 << 20)
        let chunk = Self.bytes(300_000, from: 0)
        _ = chunk.withUnsafeBytes { buffer.offer($0) }
        buffer.cancel()
        guard case .abort = chunk.withUnsafeBytes({ buffer.offer($0) }) else {
            Issue.record("an offer after cancel was not refused")
            return
        }
        await #expect(throws: TransportError.self) { try await buffer.next() }
    }

    /// Each block is at least the bytes it must hold and the size the stream has grown to, a
    /// power of two from 4 KiB, and never more than 256 KiB.
    @Test(arguments: [
        (1, 4096, 4096), (4097, 4096, 8192), (5000, 16_384, 16_384), (300_000, 4096, 262_144),
        (100, 262_144, 262_144), (70_000, 8192, 131_072),
    ])
    func aBlockHoldsWhatComesUpTo256KiB(bytes: Int, grownTo: Int, capacity: Int) {
        #expect(ResponseBlocks.capacity(for: bytes, growingFrom: grownTo) == capacity)
    }
}
