import Foundation
import Mapping

/// `KeyPathWalker` through `ResponseDecoder.json(from:at:)`: the first line of the input is a
/// `JSONKeyPath`, the rest a JSON document; bit 0 of the first byte of the path line decodes
/// with `.convertFromSnakeCase` instead of the JSON's own keys.
///
/// Checks: with the JSON's own keys, the walk finds a value exactly when `JSONValue`'s
/// `subscript(path:)` on the whole document finds it, and finds the same value; the only
/// errors are `MappingError`s, and a document that does not decode never yields a value.
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
    // JSONDecoder checks a string's bytes only when it decodes that string, so a walk that
    // skips a string with invalid UTF-8 or a raw control character finds a value where
    // decoding the whole document fails.
    if let value = walked {
        check(
            !stringsAreChecked(body) || whole != nil,
            "the walk to \(path) read \(value) from a document that does not decode")
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
/// Checks: a value comes back only from a document whose `code` reads as 200, and it is the
/// value at `data` followed by the path; a failure is a `BusinessError` with the document's
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
        guard let whole else {
            // As in the key-path target: a string the walk skips is not checked.
            return check(!stringsAreChecked(body), "a value \(value) from a document that does not decode")
        }
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

/// Whether every string of `body` is as JSON requires whether it is decoded or skipped:
/// valid UTF-8 and no control character but the whitespace between tokens. JSONDecoder checks
/// a string's bytes only when it decodes it.
private func stringsAreChecked(_ body: Data) -> Bool {
    String(validating: body, as: UTF8.self) != nil
        && body.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
}
