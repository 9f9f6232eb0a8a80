import Foundation

// MARK: - Reading

extension ResponseDecoder {
    /// Checks the status, then reads a payload from the body or from its envelope's data.
    func read<Payload>(
        _ input: ResponseInput,
        in root: PayloadRoot,
        _ read: PayloadRead<Payload>
    ) throws -> Payload {
        switch root {
        case .body:
            try checkStatus(of: input)
            try checkNotBlank(input)
            return try run(on: input, read)
        case .envelope:
            return try readEnvelope(input, read).payload
        }
    }

    /// Checks the status and the envelope's code, then reads a payload from its data.
    func readEnvelope<Payload>(
        _ input: ResponseInput,
        _ read: PayloadRead<Payload>
    ) throws -> (head: EnvelopeHead, payload: Payload) {
        try checkEnvelopeAnswer(input)
        let reader = EnvelopeReader(format: envelope)
        var head: EnvelopeHead?
        do {
            let payload = try run(on: input) { decoder, walker, base in
                try reader.read(from: decoder, walker: walker, at: base, head: &head, inner: read)
            }
            // The reader sets the head whenever it returns.
            guard let head else { throw PlanKey.MissingReader() }
            return (head, payload)
        } catch let failure as EnvelopeFailure {
            throw businessError(failure.head, data: failure.data, input: input)
        }
    }

    /// Checks the status and the envelope's code, and reads nothing else.
    func readEnvelopeHead(_ input: ResponseInput) throws -> EnvelopeHead {
        if let reading = try checkEnvelopeAnswer(input), envelope.isSuccess(reading.head.code) {
            return reading.head
        }
        return try readEnvelope(input) { _, _, _ in }.head
    }

    /// Checks what an envelope's body is read after: the status (a refused one with a failure
    /// envelope throws that envelope's business error), a body that is not blank, and the
    /// envelope as a classifier read it already (a retry policy's, judging the answer),
    /// whose failure is thrown at once.
    ///
    /// - Returns: The classifier's reading of this envelope, when there is one.
    @discardableResult
    func checkEnvelopeAnswer(_ input: ResponseInput) throws -> EnvelopeReading? {
        if let status = input.status, !statusPolicy.accepts(status) {
            // Servers that answer 401 with {"code": 401, "message": "token expired"} mean the
            // envelope: its failure is the better error.
            if !input.isBlank, let failure = envelopeFailure(in: input.body) {
                throw businessError(failure.head, data: failure.data, input: input)
            }
            throw unacceptableStatus(input)
        }
        try checkNotBlank(input)
        guard let reading = input.reading, reading.matches(envelope, options: options, body: input.body) else {
            return nil
        }
        if !envelope.isSuccess(reading.head.code), let failure = reading.failure {
            throw businessError(reading.head, data: failure.data, input: input)
        }
        return reading
    }

    /// The failure envelope `body` holds, if it holds one of the format.
    func envelopeFailure(in body: Data) -> EnvelopeFailure? {
        do {
            _ = try EnvelopeReader(format: envelope).readHead(of: body, options: options)
            return nil
        } catch let failure as EnvelopeFailure {
            return failure
        } catch {
            return nil
        }
    }

    /// Parses the body once, runs the read, and turns decoding failures into ``MappingError``s;
    /// an ``EnvelopeFailure`` passes as it is.
    func run<Payload>(on input: ResponseInput, _ read: PayloadRead<Payload>) throws -> Payload {
        do {
            return try PayloadReading.run(on: input.body, options: options, read)
        } catch let failure as EnvelopeFailure {
            throw failure
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
