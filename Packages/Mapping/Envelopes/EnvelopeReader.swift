import Foundation
import Transport

/// A failure envelope, read in full: its head and its data as a ``JSONValue``, for the error.
///
/// ``EnvelopeReader`` throws it, so that a success's payload comes back as it is, in no
/// outcome type generic over it (see ``PayloadRead``).
struct EnvelopeFailure: Error {
    /// The failure's code and message.
    var head: EnvelopeHead
    /// The envelope's data, when it has any.
    var data: JSONValue?
}

/// A body that is not an envelope of the configured format.
struct EnvelopeShapeError: Error {
    /// Where the code was looked for.
    var codePath: JSONKeyPath
    /// `true` when there is no code; `false` when the code is neither a number nor a string.
    var isMissing: Bool
}

/// Reads an envelope's code and message, then, when the code is a success, the inner
/// payload from its data; otherwise the data as a ``JSONValue``, for the error.
struct EnvelopeReader {
    var format: any EnvelopeFormat

    /// Reads the code and message of the envelope `body` holds, and nothing of its data.
    ///
    /// - Returns: The head of a success envelope.
    /// - Throws: ``EnvelopeFailure`` for a failure code; any other error when `body` is not an
    ///   envelope of the format.
    func readHead(of body: Data, options: DecodingOptions) throws -> EnvelopeHead {
        var head: EnvelopeHead?
        try PayloadReading.run(on: body, options: options) { decoder, walker, base in
            try read(from: decoder, walker: walker, at: base, head: &head) { _, _, _ in }
        }
        // The reader sets the head whenever it returns.
        guard let head else { throw PlanKey.MissingReader() }
        return head
    }

    /// Reads the envelope at `base`.
    ///
    /// - Parameters:
    ///   - head: Set to the envelope's code and message when the code is a success.
    ///   - inner: Reads the payload, from the envelope's data.
    /// - Returns: The payload.
    /// - Throws: ``EnvelopeFailure`` for a failure code; ``EnvelopeShapeError`` when there is
    ///   no usable code; whatever `inner` throws.
    func read<Payload>(
        from decoder: any Decoder,
        walker: KeyPathWalker,
        at base: JSONKeyPath,
        head: inout EnvelopeHead?,
        inner: PayloadRead<Payload>
    ) throws -> Payload {
        let codePath = base + format.codePath
        let messagePath = base + format.messagePath
        // Most envelopes keep a whole-number code and a string message at the top: read them
        // as such first, and through the general (lenient) path only when that finds nothing
        // or another type.
        let code: BusinessCode?
        if let number = walker.rootInteger(codePath, of: decoder) {
            code = BusinessCode(number)
        } else {
            do {
                code = try walker.decodeIfPresent(BusinessCode.self, from: decoder, at: codePath)
            } catch is KeyPathError {
                throw EnvelopeShapeError(codePath: codePath, isMissing: true)
            } catch {
                throw EnvelopeShapeError(codePath: codePath, isMissing: false)
            }
        }
        guard let code else { throw EnvelopeShapeError(codePath: codePath, isMissing: true) }
        let message: String?
        if let text = walker.rootString(messagePath, of: decoder) {
            message = text.isEmpty ? nil : text
        } else {
            message = (try? walker.decodeIfPresent(LenientText.self, from: decoder, at: messagePath))?.text
        }
        let envelopeHead = EnvelopeHead(code: code, message: message)
        let dataPath = base + format.dataPath
        guard format.isSuccess(code) else {
            let data: JSONValue? = try? walker.decodeIfPresent(JSONValue.self, from: decoder, at: dataPath)
            throw EnvelopeFailure(head: envelopeHead, data: data)
        }
        head = envelopeHead
        return try inner(decoder, walker, dataPath)
    }
}
