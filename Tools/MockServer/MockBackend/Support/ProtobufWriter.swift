/// A writer of the Protocol Buffers wire format, for the few messages the `/proto` routes
/// answer (`MockResponder+Protobuf.swift`).
///
/// The mock server writes these bytes itself rather than linking swift-protobuf: the messages
/// are three, their fields strings, integers and nested messages, and the client's tests then
/// check that what swift-protobuf's generated code reads is what another encoder wrote. Fields
/// are written in number order and default values (`0`, empty) left out, as proto3 encoders do.
struct ProtobufWriter {
    /// The message's bytes so far.
    private(set) var bytes: [UInt8] = []

    /// Writes a varint field (`int32`, `int64`): wire type 0, negative numbers as ten bytes of
    /// two's complement. Zero is left out.
    mutating func integer(_ field: Int, _ value: Int64) {
        guard value != 0 else { return }
        key(field, wireType: 0)
        varint(UInt64(bitPattern: value))
    }

    /// Writes a `string` field: wire type 2, the UTF-8 bytes. An empty string is left out.
    mutating func string(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        bytes(field, Array(value.utf8))
    }

    /// Writes a `bytes` field, or a message field whose bytes are `value`: wire type 2.
    mutating func bytes(_ field: Int, _ value: [UInt8]) {
        key(field, wireType: 2)
        varint(UInt64(value.count))
        bytes += value
    }

    /// Writes a message field: wire type 2, the nested message's bytes.
    mutating func message(_ field: Int, _ value: ProtobufWriter) {
        bytes(field, value.bytes)
    }

    private mutating func key(_ field: Int, wireType: UInt64) {
        varint(UInt64(field) << 3 | wireType)
    }

    private mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}
