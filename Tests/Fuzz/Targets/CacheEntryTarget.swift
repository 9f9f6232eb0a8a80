import CZlib
import Caching
import Foundation
import HTTPTypes

/// `EntryFile`, the disk cache's entry format. The low two bits of the first byte pick what
/// the rest of the input is: a whole file as found on disk (0); a payload, wrapped in a header
/// and checksum that are right, stored as it is (1) or deflated (2), so that the payload
/// parser is reached past the checksum; or the parts of an entry to write (3).
///
/// Checks: decoding never traps and reports damage as a value; an entry that decodes, encoded
/// again at any compression level, decodes to the same entry; an entry written from any parts
/// decodes back equal.
let cacheEntryTarget = FuzzTarget(
    name: "cache-entry",
    maximumLength: 4_096,
    summary: "damage is a value; decode -> encode -> decode and write -> read give the same entry"
) { buffer in
    var input = FuzzInput(buffer)
    let mode = input.byte()
    let level = Int32(mode >> 2) % 10
    let file: [UInt8]
    switch mode & 3 {
    case 0:
        file = Array(input.bytes)
    case 1:
        file = wrapped(Array(input.bytes), deflated: false)
    case 2:
        file = wrapped(Array(input.bytes), deflated: true)
    default:
        roundTrip(entry(from: &input), level: level)
        return
    }
    if case .success(let entry) = EntryFile.decode(Data(file)) { roundTrip(entry, level: level) }
}

/// A file around `payload` whose header and checksum are right.
private func wrapped(_ payload: [UInt8], deflated: Bool) -> [UInt8] {
    var stored = payload
    if deflated {
        var length = compressBound(uLong(payload.count))
        stored = [UInt8](repeating: 0, count: Int(length))
        let result = stored.withUnsafeMutableBufferPointer { output in
            payload.withUnsafeBufferPointer { input in
                compress2(output.baseAddress, &length, input.baseAddress, uLong(payload.count), 6)
            }
        }
        check(result == Z_OK, "zlib's compress2 failed: \(result)")
        stored.removeSubrange(Int(length)...)
    }
    var file = EntryFile.magic
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { file += $0 } }
    append(EntryFile.version)
    append(UInt16(deflated ? 1 : 0))
    append(UInt64(stored.count))
    append(UInt64(payload.count))
    file += stored
    append(EntryFile.checksum(file))
    return file
}

/// An entry made of parts read from the input, each as the cache could be given it.
private func entry(from input: inout FuzzInput) -> CacheEntry {
    let code = 100 + Int(input.byte()) * 4 % 900
    let times = (input.uint64(), input.uint64())
    let requestTime = Date(timeIntervalSince1970: Double(Int64(bitPattern: times.0) % (1 << 40)) / 1000)
    let responseTime = Date(timeIntervalSince1970: Double(Int64(bitPattern: times.1) % (1 << 40)) / 1000)
    let key = String(decoding: input.field(until: 0), as: UTF8.self)
    let reason = String(decoding: input.field(until: 0), as: UTF8.self)
    var fields = HTTPFields()
    var varying: [CacheEntry.VaryingField] = []
    for _ in 0..<Int(input.byte() % 8) {
        let name = String(decoding: input.field(until: 0), as: UTF8.self)
        let value = String(decoding: input.field(until: 0), as: UTF8.self)
        if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        varying.append(CacheEntry.VaryingField(name: name, value: value.isEmpty ? nil : value))
    }
    return CacheEntry(
        key: key, head: HTTPResponse(status: .init(code: code, reasonPhrase: reason), headerFields: fields),
        body: Data(input.bytes), varyingFields: varying, requestTime: requestTime, responseTime: responseTime)
}

/// Checks that `entry` decodes back as itself once encoded at `level`.
private func roundTrip(_ entry: CacheEntry, level: Int32) {
    let file: [UInt8]
    do {
        file = try EntryFile.encode(entry, compressionLevel: level)
    } catch {
        return check(false, "an entry of \(entry.body.count) bytes could not be encoded: \(error)")
    }
    switch EntryFile.decode(Data(file)) {
    case .success(let decoded):
        check(decoded == entry, "\(entry) encoded at level \(level) decodes as \(decoded)")
        check(decoded.head.status.reasonPhrase == entry.head.status.reasonPhrase, "the reason phrase changed")
    case .failure(let damage):
        check(false, "\(entry) encoded at level \(level) is damaged: \(damage)")
    }
}
