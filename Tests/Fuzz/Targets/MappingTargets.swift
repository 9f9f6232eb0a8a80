import Foundation
import Mapping
import Transport

/// `KeyPathWalker` through `ResponseDecoder.json(from:at:)`: the first line of the input is a
/// `JSONKeyPath`, the rest a JSON document; bit 0 of the first byte of the path line decodes
/// with `.convertFromSnakeCase` instead of the JSON's own keys.
///
/// Checks: with the JSON's own keys, the walk finds a value exactly when `JSONValue`'s
/// `subscript(path:)` on the whole document finds it, and finds the same value, whenever the
/// whole document decodes; `decode(JSONValue?.self)` agrees; the only errors are
/// `MappingError`s.
let keyPathTarget = FuzzTarget(
    name: "key-path",
    maximumLength: 2_048,
    summary: "walk agrees with JSONValue[path:] on the whole document; errors are MappingError"
) { buffer in
    var input = FuzzInput(buffer)
    let pathText = String(decoding: input.field(until: UInt8(ascii: "\n")), as: UTF8.self)
    let path = JSONKeyPath(pathText)
    let body = Data(input.bytes)
    let convertsKeys = pathText.utf8.first.map { $0 & 1 == 1 } ?? false
    var options = DecodingOptions()
    if convertsKeys { options.keyDecodingStrategy = .convertFromSnakeCase }
    let decoder = ResponseDecoder(options: options)
    let whole = mappingResult { try decoder.json(from: body) }
    let walked = mappingResult { try decoder.json(from: body, at: path) }
    let optional = mappingResult { try decoder.decode(JSONValue?.self, from: body, at: path) }
    // Where the whole document does not decode, a walk may still find a value: JSONDecoder
    // checks a string's or a number's text only when it decodes it, and a walk skips what it
    // does not need (see docs/RELIABILITY.md).
    if let value = walked {
        check(optional == .some(.some(value)), "decode(JSONValue?) at \(path) gave \(String(describing: optional))")
    }
    guard !convertsKeys, let whole else { return }
    let expected = whole[path: path]
    check(
        walked == expected,
        "the walk to \(path) gave \(String(describing: walked)), the subscript \(String(describing: expected))")
}

/// `ResponseDecoder.decodeEnvelope` with the standard envelope (`code`, `message`, `data`,
/// success code 200): the first line is the path inside the data, the rest the document.
///
/// Checks: a value comes back only for a `code` that reads as 200, and, when the whole
/// document decodes, it is the value at `data` followed by the path; a failure is a `BusinessError` with the document's
/// (non-200) code, or a `MappingError`, never anything else; `success(from:)` agrees on the
/// code.
let envelopeTarget = FuzzTarget(
    name: "envelope",
    maximumLength: 2_048,
    summary: "value only for code 200 and equal to data.path; BusinessError code matches; typed errors"
) { buffer in
    var input = FuzzInput(buffer)
    let path = JSONKeyPath(String(decoding: input.field(until: UInt8(ascii: "\n")), as: UTF8.self))
    let body = Data(input.bytes)
    let decoder = ResponseDecoder()
    let whole = try? decoder.json(from: body)
    var head: Result<EnvelopeHead, any Error>
    do {
        head = .success(try decoder.success(from: body))
    } catch {
        head = .failure(error)
    }
    do {
        let value = try decoder.decodeEnvelope(JSONValue.self, from: body, at: path)
        // As in the key-path target, a document that does not decode as a whole may still
        // give a value.
        guard let whole else { return }
        check(whole[path: "data" + path] == value, "\(value) is not what data.\(path) holds in \(whole)")
        guard case .success(let envelope) = head else { return check(false, "success(from:) failed: \(head)") }
        check(envelope.code == 200, "success with code \(envelope.code)")
    } catch let error as BusinessError {
        check(error.code != 200, "a BusinessError with the success code")
        guard case .failure(let other as BusinessError) = head else {
            return check(false, "decodeEnvelope threw \(error.code), success(from:) gave \(head)")
        }
        check(other.code == error.code, "codes \(other.code) and \(error.code)")
    } catch is MappingError {
        return
    } catch {
        check(false, "decodeEnvelope threw \(type(of: error)): \(error)")
    }
}

/// The value `read` returns, `nil` for a `MappingError`; any other error breaks the invariant
/// that the decoder's own failures are `MappingError`s.
private func mappingResult<Value>(_ read: () throws -> Value) -> Value? {
    do {
        return try read()
    } catch is MappingError {
        return nil
    } catch {
        check(false, "threw \(type(of: error)): \(error)")
        return nil
    }
}
