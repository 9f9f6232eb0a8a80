import Foundation

/// Reads a body with the tape decoder when it can, so that `JSONDecoder` reads it only when
/// the tape decoder declines.
///
/// Foundation's `JSONDecoder` indexes every object it opens in a dictionary and keeps a
/// stack of values; for the small documents APIs answer, that is most of the cost of
/// decoding them. ``JSONTape`` parses a body into one array in one pass and ``TapeDecoder``
/// finds members by comparing bytes. Either the reading succeeds with the values
/// `JSONDecoder` would give, or it is declined and `JSONDecoder` reads the body again, so
/// errors, their paths and their messages are always `JSONDecoder`'s.
enum TapeReading {
    /// The tape decoder left the body to `JSONDecoder`: options it does not apply, a body it
    /// does not parse, a case where the two decoders might differ, or any error.
    struct Declined: Error {}

    /// Reads `body` with `read` and `options`.
    ///
    /// - Returns: The payload, read by the tape decoder.
    /// - Throws: ``Declined``; or the ``EnvelopeFailure`` that `read` threw for a failure
    ///   envelope the tape decoder read in full, which `JSONDecoder` would read the same.
    static func read<Payload>(_ body: Data, options: DecodingOptions, _ read: PayloadRead<Payload>) throws -> Payload {
        // The bytes copied in one move, not through `Data`'s iterator.
        guard options.isTapeReadable, let tape = JSONTape(body.withUnsafeBytes { [UInt8]($0) }) else {
            throw Declined()
        }
        let document = TapeDocument(tape: tape, options: options)
        let decoder = TapeDecoder(document: document, index: 0)
        let payload: Payload
        do {
            payload = try read(decoder, KeyPathWalker(options: options), .root)
        } catch let failure as EnvelopeFailure where !document.isDeclined {
            throw failure
        } catch {
            throw Declined()
        }
        guard !document.isDeclined else { throw Declined() }
        return payload
    }
}

extension DecodingOptions {
    /// Whether the tape decoder applies these options as `JSONDecoder` does: keys as
    /// written, and the strategies it knows for dates, data and non-finite numbers.
    var isTapeReadable: Bool {
        // `if case` rather than `switch`, as in `convertedKey(_:codingPath:)`.
        guard case .useDefaultKeys = keyDecodingStrategy else { return false }
        let date = dateDecodingStrategy
        let dates: Bool
        if case .iso8601 = date {
            dates = true
        } else if case .custom = date {
            dates = true
        } else if case .secondsSince1970 = date {
            dates = true
        } else if case .millisecondsSince1970 = date {
            dates = true
        } else if case .deferredToDate = date {
            dates = true
        } else {
            dates = false
        }
        guard dates else { return false }
        if case .base64 = dataDecodingStrategy { return true }
        if case .custom = dataDecodingStrategy { return true }
        if case .deferredToData = dataDecodingStrategy { return true }
        return false
    }
}
