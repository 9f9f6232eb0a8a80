import Foundation
import Transport

/// The memory a streamed response's bytes are received into: blocks the loop fills from
/// libcurl's write callback and hands to the consumer as `Data` without a copy, and that come
/// back here when the consumer's `Data` is freed.
///
/// A block of ``largeSize``, which a steady download fills, goes into a small cache shared by
/// every transfer, and the next such block is taken from it: the same pages serve a whole
/// download. Giving each delivery's bytes back to `malloc` instead let the allocator trim its
/// heap after one delivery (`madvise`) and fault the pages in again for the next, about 15,000
/// page faults per GiB received; a fresh buffer per delivery also grew by copying as the bytes
/// of a loop pass were appended. Smaller blocks, which a stream that trickles fills, are freed
/// and left to `malloc` to reuse.
///
/// The cache holds at most ``cachedLimit`` blocks (4 MiB) however many transfers there are; a
/// block given back beyond that is freed.
enum ResponseBlocks {
    /// The largest block, and the only size kept for reuse: 256 KiB.
    static let largeSize = 256 * 1024
    /// The first block of a stream: 4 KiB. Each block a stream fills whole makes its next one
    /// twice as large, up to ``largeSize``.
    static let smallestSize = 4 * 1024
    /// The most large blocks the cache keeps.
    static let cachedLimit = 16

    /// The addresses of the large blocks kept for reuse.
    private static let cache = PThreadMutex<[UInt]>([])

    /// A block of `capacity` bytes: ``largeSize`` from the cache when it has one.
    static func take(capacity: Int) -> UnsafeMutableRawPointer {
        LiveCounts.responseBlocks.increment()
        if capacity == largeSize, let address = cache.withLock({ $0.popLast() }),
            let block = UnsafeMutableRawPointer(bitPattern: address)
        {
            return block
        }
        return UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// Gives back a block of `capacity` bytes: kept for reuse when it is a large one and the
    /// cache has room, freed otherwise.
    static func give(_ block: UnsafeMutableRawPointer, capacity: Int) {
        LiveCounts.responseBlocks.decrement()
        if capacity == largeSize {
            let kept = cache.withLock { cache in
                guard cache.count < cachedLimit else { return false }
                cache.append(UInt(bitPattern: block))
                return true
            }
            if kept { return }
        }
        block.deallocate()
    }

    /// The size of the next block of a stream that needs room for `bytes` more bytes and whose
    /// blocks have grown to `size`: `size`, or the power of two that holds `bytes`, whichever is
    /// larger, at most ``largeSize``.
    static func capacity(for bytes: Int, growingFrom size: Int) -> Int {
        var capacity = max(size, smallestSize)
        while capacity < bytes, capacity < largeSize { capacity *= 2 }
        return min(capacity, largeSize)
    }
}
