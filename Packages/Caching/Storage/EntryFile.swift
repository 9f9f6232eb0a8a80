import CZlib
package import Foundation
import HTTPTypes
import Transport

/// The bytes of one ``DiskCacheStorage`` record (one entry in a segment), and their checks.
///
/// ```
/// offset  size  field
///      0     8  magic "PARLEYCE"
///      8     2  format version, 1 (little endian, as every number here)
///     10     2  flags: bit 0 set when the payload is zlib-deflated
///     12     8  payload length on disk, N
///     20     8  payload length once inflated
///     28     N  payload
///   28+N     4  CRC-32 (zlib's) of bytes 0 ..< 28+N
/// ```
///
/// The payload holds, in order: the key; the request and response times (IEEE 754 doubles,
/// seconds since 1970); the status code and reason phrase; the header fields; the varying
/// request fields (with the variant group: `CacheEntry.storedVaryingFields`); the body. Strings are a 32-bit length and UTF-8 bytes, lists a 32-bit
/// count, the body a 64-bit length and its bytes.
///
/// A record whose length is not exactly `32 + N`, whose magic, version or checksum differ, whose
/// payload does not inflate to the length it declares, or whose payload does not parse, is
/// damaged: ``decode(_:)`` says so and never traps.
///
/// `package` rather than internal so that the fuzz target in `Tests/Fuzz` can decode
/// arbitrary records and check that what it encodes decodes back the same; nothing outside this
/// package sees it.
package enum EntryFile {
    /// The format version this code writes and reads.
    package static let version: UInt16 = 1
    /// The first eight bytes of every record.
    package static let magic: [UInt8] = Array("PARLEYCE".utf8)
    /// The bytes before the payload: magic, version, flags and the two lengths.
    package static let headerSize = 28
    /// The bytes after the payload: the CRC-32.
    package static let trailerSize = 4
    /// The largest payload written or read: 1 GiB. Guards the allocation a declared length
    /// asks for.
    package static let maximumPayloadSize = 1 << 30
    private static let deflatedFlag: UInt16 = 1

    /// Why a record could not be read back.
    package enum Damage: Error, Equatable {
        case tooShort
        case wrongLength
        case badMagic
        case unknownVersion(UInt16)
        case checksumMismatch
        case inflateFailed
        case malformedPayload(String)
    }

    /// The record's bytes for `entry`.
    ///
    /// - Parameter compressionLevel: zlib's level, 0 (store) to 9; 1 by default, zlib's fastest,
    ///   which already shrinks JSON and text several times over. The payload is kept
    ///   uncompressed when deflating does not make it smaller, and is not even tried for media
    ///   types that are compressed already (images other than SVG, audio, video, archives).
    /// - Throws: ``CacheError`` when the entry is larger than ``maximumPayloadSize``.
    package static func encode(_ entry: CacheEntry, compressionLevel: Int32 = 1) throws -> [UInt8] {
        // The payload goes straight after room for the header, so that a payload kept as it is
        // becomes the record without a copy.
        var file = try payloadBytes(entry, after: headerSize)
        let payloadLength = file.count - headerSize
        var flags: UInt16 = 0
        if compressionLevel > 0, !isCompressedAlready(contentType(of: entry.receivedHead.headerFields)),
            let deflated = deflate(file, from: headerSize, level: compressionLevel, after: headerSize),
            deflated.count < file.count
        {
            file = deflated
            flags |= deflatedFlag
        }
        var header = ByteWriter(capacity: headerSize)
        header.bytes(magic)
        header.uint16(version)
        header.uint16(flags)
        header.uint64(UInt64(file.count - headerSize))
        header.uint64(UInt64(payloadLength))
        file.withUnsafeMutableBufferPointer { buffer in
            for (offset, byte) in header.data.enumerated() { buffer[offset] = byte }
        }
        let crc = checksum(file)
        withUnsafeBytes(of: crc.littleEndian) { file.append(contentsOf: $0) }
        return file
    }

    /// The length of the record whose first bytes are `header` (at least ``headerSize`` of
    /// them), or `nil` when they are not the start of one: for finding records one after
    /// another in a segment, each of which ``decode(_:)`` then checks whole.
    package static func recordLength(header: some Collection<UInt8>) -> Int? {
        guard header.count >= headerSize, header.prefix(magic.count).elementsEqual(magic) else { return nil }
        var storedLength = 0
        for (shift, byte) in header.dropFirst(12).prefix(8).enumerated() { storedLength |= Int(byte) << (8 * shift) }
        guard storedLength >= 0, storedLength <= maximumPayloadSize else { return nil }
        return headerSize + storedLength + trailerSize
    }

    /// Whether the record `data` says its payload is deflated; `false` for anything shorter
    /// than a header.
    package static func isDeflated(_ data: some Collection<UInt8>) -> Bool {
        guard data.count >= headerSize else { return false }
        let flags = data.dropFirst(10).first ?? 0
        return UInt16(flags) & deflatedFlag != 0
    }

    /// The entry in `data`, or why it is damaged.
    package static func decode(_ data: Data) -> Result<CacheEntry, Damage> {
        guard data.count >= headerSize + trailerSize else { return .failure(.tooShort) }
        var header = ByteReader(data.prefix(headerSize))
        guard let fileMagic = try? header.bytes(magic.count), fileMagic == magic else { return .failure(.badMagic) }
        guard let fileVersion = try? header.uint16(), let flags = try? header.uint16(),
            let storedLength = try? header.uint64(), let payloadLength = try? header.uint64()
        else { return .failure(.tooShort) }
        guard storedLength <= UInt64(maximumPayloadSize), payloadLength <= UInt64(maximumPayloadSize),
            data.count == headerSize + Int(storedLength) + trailerSize
        else { return .failure(.wrongLength) }
        let checked = data.prefix(headerSize + Int(storedLength))
        var trailer = ByteReader(data.suffix(trailerSize))
        guard let recorded = try? trailer.uint32(), recorded == checksum(checked) else {
            return .failure(.checksumMismatch)
        }
        // The version is read only once the checksum proves the header is the one written.
        guard fileVersion == version else { return .failure(.unknownVersion(fileVersion)) }
        let stored = Data(data[(data.startIndex + headerSize)..<(data.startIndex + headerSize + Int(storedLength))])
        let payload: Data
        if flags & deflatedFlag != 0 {
            guard let inflated = inflate(stored, expectedLength: Int(payloadLength)) else {
                return .failure(.inflateFailed)
            }
            payload = inflated
        } else {
            guard stored.count == Int(payloadLength) else { return .failure(.wrongLength) }
            payload = stored
        }
        do {
            return .success(try entry(from: payload))
        } catch let damage as Damage {
            return .failure(damage)
        } catch {
            return .failure(.malformedPayload("\(error)"))
        }
    }

    // MARK: - The payload

    /// The payload of `entry`, after `offset` bytes of room (zeros) for what precedes it.
    private static func payloadBytes(_ entry: CacheEntry, after offset: Int) throws -> [UInt8] {
        guard entry.body.count <= maximumPayloadSize - 1 << 20 else {
            throw CacheError(
                .entryTooLarge,
                message:
                    "The response for \(LogRedaction.redactedURL(entry.key)) has a body of \(entry.body.count) bytes; the disk cache keeps "
                    + "bodies up to 1 GiB.")
        }
        // The fields the stored head leaves out (hop-by-hop fields, the cache's mark) are skipped
        // here rather than removed from a copy of the head.
        let head = entry.receivedHead
        // Room for everything, so that the bytes are written once, and for the checksum after.
        var capacity = offset + entry.key.utf8.count + head.status.reasonPhrase.utf8.count + entry.body.count + 64
        var storedFieldCount = 0
        let connectionNamed = CacheEntry.connectionNamed(head.headerFields)
        for field in head.headerFields where !CacheEntry.isLeftOut(field.name, connectionNamed: connectionNamed) {
            capacity += field.name.rawName.utf8.count + field.value.utf8.count + 8
            storedFieldCount += 1
        }
        let varyingFields = entry.storedVaryingFields
        for field in varyingFields {
            capacity += field.name.utf8.count + (field.value?.utf8.count ?? 0) + 9
        }
        var writer = ByteWriter(capacity: capacity + trailerSize)
        writer.zeros(offset)
        writer.string(entry.key)
        writer.uint64(entry.requestTime.timeIntervalSince1970.bitPattern)
        writer.uint64(entry.responseTime.timeIntervalSince1970.bitPattern)
        writer.uint16(UInt16(clamping: head.status.code))
        writer.string(head.status.reasonPhrase)
        writer.uint32(UInt32(storedFieldCount))
        for field in head.headerFields where !CacheEntry.isLeftOut(field.name, connectionNamed: connectionNamed) {
            writer.string(field.name.rawName)
            writer.string(field.value)
        }
        writer.uint32(UInt32(varyingFields.count))
        for field in varyingFields {
            writer.string(field.name)
            if let value = field.value {
                writer.uint8(1)
                writer.string(value)
            } else {
                writer.uint8(0)
            }
        }
        writer.uint64(UInt64(entry.body.count))
        writer.bytes(entry.body)
        return writer.data
    }

    private static func entry(from payload: Data) throws -> CacheEntry {
        var reader = ByteReader(payload)
        let key = try reader.string()
        let requestTime = Date(timeIntervalSince1970: Double(bitPattern: try reader.uint64()))
        let responseTime = Date(timeIntervalSince1970: Double(bitPattern: try reader.uint64()))
        guard requestTime.timeIntervalSince1970.isFinite, responseTime.timeIntervalSince1970.isFinite else {
            throw Damage.malformedPayload("a time is not a finite number")
        }
        let code = Int(try reader.uint16())
        let reason = try reader.string()
        guard (100...999).contains(code) else { throw Damage.malformedPayload("status \(code)") }
        guard reason.utf8.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }) else {
            throw Damage.malformedPayload("the reason phrase holds a control character")
        }
        var fields = HTTPFields()
        let fieldCount = try reader.count()
        for _ in 0..<fieldCount {
            let rawName = try reader.string()
            let value = try reader.string()
            guard let name = HTTPField.Name(rawName) else { throw Damage.malformedPayload("field name \(rawName)") }
            guard HTTPField.isValidValue(value) else { throw Damage.malformedPayload("the value of \(rawName)") }
            fields.append(HTTPField(name: name, value: value))
        }
        var varying: [CacheEntry.VaryingField] = []
        let varyingCount = try reader.count()
        for _ in 0..<varyingCount {
            let name = try reader.string()
            let present = try reader.uint8()
            guard present <= 1 else { throw Damage.malformedPayload("a varying field's presence flag") }
            varying.append(CacheEntry.VaryingField(name: name, value: present == 1 ? try reader.string() : nil))
        }
        let bodyLength = try reader.uint64()
        guard bodyLength == UInt64(reader.remaining) else { throw Damage.malformedPayload("the body's length") }
        let body = try reader.bytes(Int(bodyLength))
        return CacheEntry(
            key: key, head: HTTPResponse(status: .init(code: code, reasonPhrase: reason), headerFields: fields),
            body: Data(body), varyingFields: varying, requestTime: requestTime, responseTime: responseTime)
    }

    /// Whether a `Content-Type` names a format that is compressed already, so deflating it
    /// again would cost time and save nothing.
    ///
    /// Read from the bytes, without making a string: the media type is the first segment
    /// between semicolons, spaces and tabs trimmed, compared without regard to ASCII case.
    static func isCompressedAlready(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        var type = Substring(contentType).utf8.drop { $0 == UInt8(ascii: ";") }
        type = type.prefix { $0 != UInt8(ascii: ";") }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while let first = type.first, isBlank(first) { type = type.dropFirst() }
        while let last = type.last, isBlank(last) { type = type.dropLast() }
        func startsWith(_ prefix: StaticString) -> Bool {
            let prefix = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            guard type.count >= prefix.count else { return false }
            return zip(type, prefix).allSatisfy { asciiLowercased($0) == $1 }
        }
        func equals(_ other: StaticString) -> Bool { type.count == other.utf8CodeUnitCount && startsWith(other) }
        if startsWith("image/") { return !equals("image/svg+xml") && !equals("image/bmp") }
        if startsWith("audio/") || startsWith("video/") || startsWith("font/woff") { return true }
        return equals("application/zip") || equals("application/gzip") || equals("application/x-gzip")
            || equals("application/zstd") || equals("application/x-bzip2") || equals("application/x-xz")
            || equals("application/x-7z-compressed") || equals("application/pdf")
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// The first `Content-Type` field's value, if any.
    private static func contentType(of fields: HTTPFields) -> String? {
        for index in fields.indices where fields[index].name == .contentType { return fields[index].value }
        return nil
    }

    // MARK: - zlib

    /// zlib's CRC-32 of `data`.
    package static func checksum(_ data: some ContiguousBytes) -> UInt32 {
        data.withUnsafeBytes { raw -> UInt32 in
            let bytes = raw.bindMemory(to: Bytef.self)
            return UInt32(truncatingIfNeeded: crc32_z(0, bytes.baseAddress, z_size_t(bytes.count)))
        }
    }

    /// The bytes of `data` from `start` in the zlib format (RFC 1950), after `offset` bytes of
    /// room, or `nil` when zlib fails or they do not get smaller.
    ///
    /// zlib's window and hash table are sized to the input: `compress2` always takes the
    /// largest (a 32 KiB window, 64 K hash heads, some 270 KiB), and allocating and clearing
    /// them cost seven times what deflating a 4 KiB answer does. The stream records its window
    /// size, so `uncompress2` reads either.
    private static func deflate(_ data: [UInt8], from start: Int, level: Int32, after offset: Int) -> [UInt8]? {
        let inputCount = data.count - start
        // The window must cover the whole input (and zlib's lookahead) to find the same matches.
        var windowBits: Int32 = 9
        while windowBits < 15, (1 << windowBits) < inputCount + 262 { windowBits += 1 }
        let memoryLevel = max(1, min(8, windowBits - 6))
        var stream = z_stream()
        guard
            parley_deflateInit2(&stream, min(9, level), Z_DEFLATED, windowBits, memoryLevel, Z_DEFAULT_STRATEGY) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        // Anything not smaller than the input is of no use, so the output never needs more room.
        let room = inputCount
        var output = [UInt8](unsafeUninitializedCapacity: offset + room + trailerSize) { buffer, count in
            count = 0
            let result = data.withUnsafeBufferPointer { input -> Int32 in
                guard let inputBase = input.baseAddress, let outputBase = buffer.baseAddress else { return Z_BUF_ERROR }
                stream.next_in = UnsafeMutablePointer(mutating: inputBase + start)
                stream.avail_in = uInt(inputCount)
                stream.next_out = outputBase + offset
                stream.avail_out = uInt(room)
                return CZlib.deflate(&stream, Z_FINISH)
            }
            guard result == Z_STREAM_END, let base = buffer.baseAddress else { return }
            base.initialize(repeating: 0, count: offset)
            count = offset + Int(stream.total_out)
        }
        guard output.count > offset else { return nil }
        output.reserveCapacity(output.count + trailerSize)
        return output
    }

    /// The inflated bytes of zlib-format `data`, or `nil` unless they are exactly
    /// `expectedLength` bytes (zlib checks its own Adler-32 on the way).
    private static func inflate(_ data: Data, expectedLength: Int) -> Data? {
        guard expectedLength > 0 else { return nil }
        var length = uLong(expectedLength)
        var output = [UInt8](repeating: 0, count: expectedLength)
        var consumed = uLong(data.count)
        let result = data.withUnsafeBytes { raw -> Int32 in
            let input = raw.bindMemory(to: Bytef.self)
            return output.withUnsafeMutableBufferPointer { buffer in
                uncompress2(buffer.baseAddress, &length, input.baseAddress, &consumed)
            }
        }
        guard result == Z_OK, length == uLong(expectedLength), consumed == uLong(data.count) else { return nil }
        return Data(output)
    }
}

/// Appends little-endian numbers and length-prefixed strings to bytes.
struct ByteWriter {
    private(set) var data: [UInt8] = []

    /// A writer with room for `capacity` bytes before it grows.
    init(capacity: Int) {
        data.reserveCapacity(capacity)
    }

    mutating func zeros(_ count: Int) { data.append(contentsOf: repeatElement(0, count: count)) }
    mutating func bytes(_ bytes: [UInt8]) { data.append(contentsOf: bytes) }
    mutating func bytes(_ bytes: Data) { bytes.withUnsafeBytes { data.append(contentsOf: $0) } }
    mutating func uint8(_ value: UInt8) { data.append(value) }
    mutating func uint16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func uint64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }

    mutating func string(_ text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            uint32(UInt32(utf8.count))
            data.append(contentsOf: utf8)
        }
        guard written == nil else { return }
        var text = text
        text.withUTF8 { utf8 in
            uint32(UInt32(utf8.count))
            data.append(contentsOf: utf8)
        }
    }
}

/// Reads what ``ByteWriter`` wrote, throwing ``EntryFile/Damage`` instead of reading past the end.
struct ByteReader {
    private let data: Data
    private var offset: Int

    init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    var remaining: Int { data.endIndex - offset }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else { throw EntryFile.Damage.malformedPayload("truncated") }
        defer { offset += count }
        return Array(data[offset..<(offset + count)])
    }

    mutating func uint8() throws -> UInt8 { try bytes(1)[0] }

    mutating func uint16() throws -> UInt16 { UInt16(try littleEndian(2)) }
    mutating func uint32() throws -> UInt32 { UInt32(try littleEndian(4)) }
    mutating func uint64() throws -> UInt64 { try littleEndian(8) }

    /// A list's count, refused when even one byte per element would not fit in what is left.
    mutating func count() throws -> Int {
        let count = Int(try uint32())
        guard count <= remaining else { throw EntryFile.Damage.malformedPayload("a count past the end") }
        return count
    }

    mutating func string() throws -> String {
        let length = Int(try uint32())
        let bytes = try bytes(length)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw EntryFile.Damage.malformedPayload("a string that is not UTF-8")
        }
        return text
    }

    private mutating func littleEndian(_ width: Int) throws -> UInt64 {
        let bytes = try bytes(width)
        var value: UInt64 = 0
        for (shift, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * UInt64(shift)) }
        return value
    }
}
