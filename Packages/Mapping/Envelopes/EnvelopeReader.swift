import Transport

/// An envelope read in one pass: the data decoded, or the failure's head and raw data.
enum EnvelopeOutcome<Payload> {
    case success(EnvelopeHead, Payload)
    case failure(EnvelopeHead, JSONValue?)
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
struct EnvelopeReader<Inner: PayloadReader>: PayloadReader {
    var format: any EnvelopeFormat
    var inner: Inner

    func read(
        from decoder: any Decoder,
        walker: KeyPathWalker,
        at base: JSONKeyPath
    ) throws -> EnvelopeOutcome<Inner.Payload> {
        let codePath = base + format.codePath
        let messagePath = base + format.messagePath
        // Most envelopes keep a whole-number code and a string message at the top: read them
        // through the container's own methods first, and through the general (lenient) path
        // only when that finds nothing or another type.
        let code: BusinessCode?
        if let (members, key) = walker.rootMember(codePath, of: decoder),
            let number = try? members.decodeIfPresent(Int.self, forKey: key)
        {
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
        if let (members, key) = walker.rootMember(messagePath, of: decoder),
            let text = try? members.decodeIfPresent(String.self, forKey: key)
        {
            message = text.isEmpty ? nil : text
        } else {
            message = (try? walker.decodeIfPresent(LenientText.self, from: decoder, at: messagePath))?.text
        }
        let head = EnvelopeHead(code: code, message: message)
        let dataPath = base + format.dataPath
        guard format.isSuccess(code) else {
            let data: JSONValue? = try? walker.decodeIfPresent(JSONValue.self, from: decoder, at: dataPath)
            return .failure(head, data)
        }
        return .success(head, try inner.read(from: decoder, walker: walker, at: dataPath))
    }
}
