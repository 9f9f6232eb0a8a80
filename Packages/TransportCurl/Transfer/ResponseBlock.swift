import Foundation

/// A block of ``ResponseBlocks`` being filled: its memory, its size and how many bytes it
/// holds.
///
/// It is given back once, by the `Data` that ``data()`` makes when that is freed, or by
/// ``discard()``: the holder lets go of it as it calls either.
struct ResponseBlock {
    /// The block's address (an integer, so that the state holding it is `Sendable`).
    private let address: UInt
    /// The block's size.
    let capacity: Int
    /// The bytes it holds, from its start.
    private(set) var count = 0

    /// A block of `capacity` bytes from ``ResponseBlocks``.
    init(capacity: Int) {
        self.address = UInt(bitPattern: ResponseBlocks.take(capacity: capacity))
        self.capacity = capacity
    }

    /// Whether it is full.
    var isFull: Bool { count == capacity }

    private var pointer: UnsafeMutableRawPointer {
        // swift-format-ignore: NeverForceUnwrap
        UnsafeMutableRawPointer(bitPattern: address)!  // Made from a pointer in `init`.
    }

    /// Copies as many of `bytes` as it has room for after its bytes.
    ///
    /// - Returns: How many it copied.
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let copied = min(bytes.count, capacity - count)
        if copied > 0, let source = bytes.baseAddress {
            (pointer + count).copyMemory(from: source, byteCount: copied)
            count += copied
        }
        return copied
    }

    /// Its bytes as `Data` that shares the block and gives it back when freed.
    consuming func data() -> Data {
        let capacity = capacity
        return Data(
            bytesNoCopy: pointer, count: count,
            deallocator: .custom { block, _ in
                ResponseBlocks.give(block, capacity: capacity)
            })
    }

    /// Gives the block back unread.
    consuming func discard() {
        ResponseBlocks.give(pointer, capacity: capacity)
    }
}
