import Foundation
import Transport

/// An envelope an ``EnvelopeClassifier`` read, kept with the response as its classification's
/// reading, so that a ``ResponseDecoder`` of the same format checks the envelope from it
/// instead of reading the body again.
struct EnvelopeReading: Sendable {
    /// The failure data of an envelope whose code was not a success for the classifier's format.
    struct Failure: Sendable {
        /// The envelope's data, for the ``BusinessError``.
        var data: JSONValue?
    }

    /// The body it was read from: a response whose body has changed since (a plugin rewrote it)
    /// is read again.
    var body: Data
    /// Where the code was read.
    var codePath: JSONKeyPath
    /// Where the message was read.
    var messagePath: JSONKeyPath
    /// Where the data was read.
    var dataPath: JSONKeyPath
    /// How keys were read.
    var keys: DecodingOptions.KeyReading?
    /// The code and message.
    var head = EnvelopeHead(code: 0)
    /// The data, read when the code was a failure; `nil` for a success code.
    var failure: Failure?

    /// A reading of `body` with `format` and `options`, before its head is known.
    init(body: Data, format: any EnvelopeFormat, options: DecodingOptions) {
        self.body = body
        codePath = format.codePath
        messagePath = format.messagePath
        dataPath = format.dataPath
        keys = options.keyReading
    }

    /// Whether a decoder with `format` and `options` would read `body` as this reading did.
    func matches(_ format: any EnvelopeFormat, options: DecodingOptions, body: Data) -> Bool {
        guard let keys, keys == options.keyReading, codePath == format.codePath, messagePath == format.messagePath,
            dataPath == format.dataPath
        else { return false }
        return self.body == body
    }
}
