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
enum TapeReading<Reader: PayloadReader> {
    /// The payload, read by the tape decoder.
    case read(Reader.Payload)
    /// Left to `JSONDecoder`: options the tape decoder does not apply, a body it does not
    /// parse, a case where the two decoders might differ, or any error.
    case declined

    /// Reads `body` with `reader` and `options`.
    init(_ reader: Reader, body: Data, options: DecodingOptions) {
        guard options.isTapeReadable, let tape = JSONTape([UInt8](body)) else {
            self = .declined
            return
        }
        let document = TapeDocument(tape: tape, options: options)
        let decoder = TapeDecoder(document: document, index: 0)
        guard let payload = try? reader.read(from: decoder, walker: KeyPathWalker(options: options), at: .root),
            !document.isDeclined
        else {
            self = .declined
            return
        }
        self = .read(payload)
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
