import Foundation

// MARK: - Reading

extension ResponseDecoder {
    /// Checks the status, then reads a payload from the body or from its envelope's data.
    func read<Reader: PayloadReader>(
        _ input: ResponseInput,
        in root: PayloadRoot,
        _ reader: Reader
    ) throws -> Reader.Payload {
        switch root {
        case .body:
            try checkStatus(of: input)
            try checkNotBlank(input)
            return try run(reader, on: input)
        case .envelope:
            return try readEnvelope(input, reader).payload
        }
    }

    /// Checks the status and the envelope's code, then reads a payload from its data.
    func readEnvelope<Reader: PayloadReader>(
        _ input: ResponseInput,
        _ reader: Reader
    ) throws -> (head: EnvelopeHead, payload: Reader.Payload) {
        if let status = input.status, !statusPolicy.accepts(status) {
            // Servers that answer 401 with {"code": 401, "message": "token expired"} mean the
            // envelope: its failure is the better error.
            if !input.isBlank,
                let outcome = try? EnvelopeReader(format: envelope, inner: NothingReader())
                    .run(on: input.body, options: options),
                case .failure(let head, let data) = outcome
            {
                throw businessError(head, data: data, input: input)
            }
            throw unacceptableStatus(input)
        }
        try checkNotBlank(input)
        if let reading = input.reading, reading.matches(envelope, options: options, body: input.body) {
            // A classifier read this envelope already (a retry policy's, judging the answer).
            if !envelope.isSuccess(reading.head.code), let failure = reading.failure {
                throw businessError(reading.head, data: failure.data, input: input)
            }
            if envelope.isSuccess(reading.head.code), Reader.self == NothingReader.self,
                let nothing = () as? Reader.Payload
            {
                return (reading.head, nothing)
            }
        }
        switch try run(EnvelopeReader(format: envelope, inner: reader), on: input) {
        case .success(let head, let value):
            return (head, value)
        case .failure(let head, let data):
            throw businessError(head, data: data, input: input)
        }
    }

    /// Parses the body once, runs the reader, and turns decoding failures into ``MappingError``s.
    func run<Reader: PayloadReader>(_ reader: Reader, on input: ResponseInput) throws -> Reader.Payload {
        do {
            return try reader.run(on: input.body, options: options)
        } catch {
            throw FailureReport(input: input, options: options).error(for: error)
        }
    }

    /// Throws ``MappingError`` of category `.unacceptableStatus` when the policy refuses the status.
    func checkStatus(of input: ResponseInput) throws {
        if let status = input.status, !statusPolicy.accepts(status) {
            throw unacceptableStatus(input)
        }
    }

    /// Throws ``MappingError`` of category `.emptyBody` for a body with nothing but whitespace.
    func checkNotBlank(_ input: ResponseInput) throws {
        if input.isBlank {
            throw FailureReport(input: input, options: options).emptyBody()
        }
    }

    func unacceptableStatus(_ input: ResponseInput) -> MappingError {
        FailureReport(input: input, options: options).unacceptableStatus()
    }

    /// The error for the failure envelope: a business error, given to the envelope's router
    /// first, then turned into the app's own error when the envelope format does that.
    func businessError(_ head: EnvelopeHead, data: JSONValue?, input: ResponseInput) -> any Error {
        let error = BusinessError(
            code: head.code,
            serverMessage: head.message,
            url: input.url,
            status: input.status,
            data: data
        )
        envelope.route(error)
        return envelope.error(for: error)
    }
}
