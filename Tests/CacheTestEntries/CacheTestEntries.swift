package import Caching
package import Foundation
import HTTPTypes

/// The entries `parley-cache-writer` stores, for the writer and for the tests that read them
/// back: each one's key and body follow from its number alone, so that another process can tell
/// a correct entry from a damaged one.
package enum CacheTestEntries {
    /// Every how many entries one is big, unless the writer is told otherwise: 4.
    package static let defaultBigEvery = 4

    /// Whether entry `index` is big (1 to 3 MiB that do not deflate).
    package static func isBig(_ index: Int, bigEvery: Int = defaultBigEvery) -> Bool {
        bigEvery > 0 && index % bigEvery == 1
    }

    /// Entry `index`'s key, a URL.
    package static func key(_ index: Int) -> String { "https://cache.test/entry/\(index)" }

    /// Entry `index`'s body: every `bigEvery`-th (from the second) 1 to 3 MiB of pseudo-random
    /// bytes, which do not deflate; the others 100 to 20,000 bytes of JSON-like text, which do.
    package static func body(_ index: Int, bigEvery: Int = defaultBigEvery) -> Data {
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func next() -> UInt64 {
            // SplitMix64.
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
        if isBig(index, bigEvery: bigEvery) {
            let length = (1 << 20) + Int(next() % UInt64(2 << 20))
            var bytes = [UInt8](repeating: 0, count: length)
            bytes.withUnsafeMutableBytes { raw in
                for offset in stride(from: 0, to: length - 7, by: 8) {
                    raw.storeBytes(of: next(), toByteOffset: offset, as: UInt64.self)
                }
            }
            return Data(bytes)
        }
        let length = 100 + Int(next() % 19_900)
        var text = "{\"entry\":\(index),\"items\":["
        while text.utf8.count < length { text += "{\"id\":\(next() % 1000),\"name\":\"item\"}," }
        return Data(text.utf8.prefix(length))
    }

    /// Entry `index` as the writer stores it.
    package static func entry(_ index: Int, bigEvery: Int = defaultBigEvery) -> CacheEntry {
        let time = Date(timeIntervalSince1970: 1_795_316_400 + Double(index))
        return CacheEntry(
            key: key(index), head: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
            body: body(index, bigEvery: bigEvery), requestTime: time, responseTime: time)
    }
}
