#if Protobuf
    public import Foundation
    public import Mapping
    public import SwiftProtobuf
    public import Transport

    /// Turns HTTP responses into Protocol Buffers messages, and checks the envelope message a
    /// server wraps them in: Mapping's `ResponseDecoder`, for bodies in the Protocol Buffers
    /// binary format.
    ///
    /// Make one per server (it is `Sendable`) and call it with a `DataResponse`, or with raw
    /// `Data`:
    ///
    /// ```swift
    /// let decoder = MessageDecoder()
    /// let response = try await screen.data(for: WeatherForm.forecast(city: "Oslo"))
    ///
    /// let forecast = try decoder.decode(Parley_Weather_Forecast.self, from: response)
    /// let checked = try decoder.decodeEnvelope(Parley_Weather_Forecast.self, from: response)   // code checked first
    /// ```
    ///
    /// Every method checks the HTTP status first (for a `DataResponse`), then the
    /// `Content-Type`, then reads the body, and fails as `ResponseDecoder` does for JSON, with
    /// the same errors, so that Feedback's `warn` shows them the same way:
    ///
    /// | What went wrong | Error |
    /// |---|---|
    /// | a status the ``statusPolicy`` refuses | ``/Mapping/MappingError`` `.unacceptableStatus`, the same as `ResponseDecoder`'s |
    /// | an empty body without a Protocol Buffers `Content-Type` | `MappingError` `.emptyBody` |
    /// | a `Content-Type` that is not in ``acceptedMediaTypes`` (JSON, an HTML page) | `MappingError` `.invalidProtobuf` |
    /// | bytes that are not the message: truncated, malformed | `MappingError` `.invalidProtobuf` |
    /// | a string field that is not UTF-8 | `MappingError` `.dataCorrupted` |
    /// | a required field (proto2) missing | `MappingError` `.keyNotFound` |
    /// | an envelope whose code is not a success code | ``/Mapping/BusinessError``, routed by ``envelope`` first |
    /// | an envelope without data, or data of another type | `MappingError` `.valueNotFound`, `.typeMismatch` |
    ///
    /// An empty body is a message with every field at its default, in the binary format: it is
    /// read as such when the response's `Content-Type` is a Protocol Buffers media type, and is
    /// `.emptyBody` otherwise (and for raw `Data`), as an empty body is for JSON.
    ///
    /// ## The envelope
    ///
    /// ``ProtobufEnvelope`` (`parley.Envelope`, in `Protos/parley/envelope.proto` of the
    /// product's folder) is the JSON envelope's counterpart: `int64 code = 1`, `string message = 2`
    /// and `google.protobuf.Any data = 3`, the answer packed with its type. A server in another
    /// language compiles the same `.proto` file.
    public struct MessageDecoder: Sendable {
        /// Which HTTP statuses are decoded; `StatusPolicy.successful` (2xx) unless set.
        public var statusPolicy: StatusPolicy
        /// The envelope's success codes and routes: its ``/Mapping/EnvelopeFormat/isSuccess(_:)``,
        /// ``/Mapping/EnvelopeFormat/route(_:)`` and ``/Mapping/EnvelopeFormat/error(for:)`` are
        /// used as `ResponseDecoder` uses them; its key paths are JSON's and not read.
        /// `StandardEnvelope` (success code `200`) unless set.
        public var envelope: any EnvelopeFormat
        /// The media types read, lowercased, without parameters; ``ProtobufMediaType/accepted``
        /// unless set. A response without a `Content-Type` is read too.
        public var acceptedMediaTypes: Set<String>
        /// swift-protobuf's options for the binary format: the nesting limit, unknown fields.
        public var options: BinaryDecodingOptions

        /// Creates a message decoder.
        ///
        /// - Parameters:
        ///   - statusPolicy: Which HTTP statuses are decoded; 2xx by default.
        ///   - envelope: The envelope's success codes and routes; `StandardEnvelope` by default.
        ///   - acceptedMediaTypes: The media types read; ``ProtobufMediaType/accepted`` by default.
        ///   - options: swift-protobuf's decoding options; its defaults by default.
        public init(
            statusPolicy: StatusPolicy = .successful,
            envelope: some EnvelopeFormat = StandardEnvelope(),
            acceptedMediaTypes: Set<String> = ProtobufMediaType.accepted,
            options: BinaryDecodingOptions = BinaryDecodingOptions()
        ) {
            self.statusPolicy = statusPolicy
            self.envelope = envelope
            self.acceptedMediaTypes = acceptedMediaTypes
            self.options = options
        }
    }

    // MARK: - Messages

    extension MessageDecoder {
        /// Decodes a response's body as a message.
        ///
        /// ```swift
        /// let forecast = try decoder.decode(Parley_Weather_Forecast.self, from: response)
        /// ```
        ///
        /// - Parameters:
        ///   - type: The message type.
        ///   - response: The response.
        /// - Returns: The message.
        /// - Throws: ``/Mapping/MappingError`` when the status is refused, the body is empty
        ///   without a Protocol Buffers `Content-Type`, another media type, or not the message.
        public func decode<Body: SwiftProtobuf.Message>(
            _ type: Body.Type = Body.self,
            from response: DataResponse
        ) throws -> Body {
            let input = MessageInput(response)
            try checkStatus(of: input)
            return try read(Body.self, input)
        }

        /// Decodes bytes as a message.
        ///
        /// The same as ``decode(_:from:)-(_,DataResponse)`` without a status, a URL or a
        /// `Content-Type`: empty bytes are `.emptyBody`.
        ///
        /// - Parameters:
        ///   - type: The message type.
        ///   - data: The message's bytes, in the binary format.
        /// - Returns: The message.
        /// - Throws: ``/Mapping/MappingError``.
        public func decode<Body: SwiftProtobuf.Message>(_ type: Body.Type = Body.self, from data: Data) throws -> Body {
            try read(Body.self, MessageInput(data))
        }

        /// Checks a response's envelope message, then unpacks its data.
        ///
        /// With the default envelope, `code` 200 gives the message packed in `data`; any other
        /// code throws a ``/Mapping/BusinessError`` carrying the code and the server's message,
        /// after the envelope's ``/Mapping/EnvelopeFormat/route(_:)`` has seen it:
        ///
        /// ```swift
        /// let forecast = try decoder.decodeEnvelope(Parley_Weather_Forecast.self, from: response)
        /// ```
        ///
        /// A refused HTTP status whose body is a failure envelope also throws the
        /// `BusinessError` (with the status), not a `MappingError`.
        ///
        /// - Parameters:
        ///   - type: The message type packed in the envelope's data.
        ///   - response: The response.
        /// - Returns: The message.
        /// - Throws: ``/Mapping/BusinessError`` for a failure code; ``/Mapping/MappingError`` when
        ///   the status is refused, the body is not an envelope, or its data is missing or of
        ///   another type.
        public func decodeEnvelope<Body: SwiftProtobuf.Message>(
            _ type: Body.Type = Body.self,
            from response: DataResponse
        ) throws -> Body {
            let input = MessageInput(response)
            return try unpack(Body.self, from: readEnvelope(input), input)
        }

        /// Checks an envelope message's code, then unpacks its data.
        ///
        /// The same as ``decodeEnvelope(_:from:)-(_,DataResponse)`` without a status or URL.
        ///
        /// - Parameters:
        ///   - type: The message type packed in the envelope's data.
        ///   - data: The envelope's bytes.
        /// - Returns: The message.
        /// - Throws: ``/Mapping/BusinessError`` for a failure code; ``/Mapping/MappingError`` otherwise.
        public func decodeEnvelope<Body: SwiftProtobuf.Message>(
            _ type: Body.Type = Body.self,
            from data: Data
        ) throws -> Body {
            let input = MessageInput(data)
            return try unpack(Body.self, from: readEnvelope(input), input)
        }

        /// Checks that a response's envelope message reports success, and returns it: its code,
        /// message and data, for an endpoint whose answer is the code alone, or whose data you
        /// unpack yourself.
        ///
        /// - Parameter response: The response.
        /// - Returns: The envelope.
        /// - Throws: ``/Mapping/BusinessError`` for a failure code (after routing);
        ///   ``/Mapping/MappingError`` when the status is refused or the body is not an envelope.
        @discardableResult
        public func success(from response: DataResponse) throws -> ProtobufEnvelope {
            try readEnvelope(MessageInput(response))
        }

        /// Checks that an envelope message reports success, and returns it.
        ///
        /// - Parameter data: The envelope's bytes.
        /// - Returns: The envelope.
        /// - Throws: ``/Mapping/BusinessError`` for a failure code; ``/Mapping/MappingError``
        ///   when the bytes are not an envelope.
        @discardableResult
        public func success(from data: Data) throws -> ProtobufEnvelope {
            try readEnvelope(MessageInput(data))
        }
    }

    // MARK: - Reading

    extension MessageDecoder {
        /// Checks the media type and the emptiness of the body, then decodes it.
        func read<Body: SwiftProtobuf.Message>(_ type: Body.Type, _ input: MessageInput) throws -> Body {
            let report = MessageFailureReport(input: input, messageName: Body.protoMessageName)
            if let contentType = input.contentType,
                !acceptedMediaTypes.contains(ProtobufMediaType.essence(of: contentType))
            {
                throw report.unexpectedMediaType(contentType, accepted: acceptedMediaTypes)
            }
            if input.body.isEmpty, input.contentType == nil {
                throw report.emptyBody()
            }
            do {
                return try Body(serializedBytes: input.body, options: options)
            } catch {
                throw report.error(for: error)
            }
        }

        /// Checks the status, reads the envelope and checks its code.
        func readEnvelope(_ input: MessageInput) throws -> ProtobufEnvelope {
            if let status = input.status, !statusPolicy.accepts(status) {
                // A server that answers 401 with an envelope of code 401 means the envelope.
                if !input.body.isEmpty, let envelope = try? read(ProtobufEnvelope.self, input),
                    !self.envelope.isSuccess(BusinessCode(Int(envelope.code)))
                {
                    throw businessError(envelope, input: input)
                }
                try checkStatus(of: input)
            }
            let envelope = try read(ProtobufEnvelope.self, input)
            guard self.envelope.isSuccess(BusinessCode(Int(envelope.code))) else {
                throw businessError(envelope, input: input)
            }
            return envelope
        }

        /// The message packed in a successful envelope's data.
        func unpack<Body: SwiftProtobuf.Message>(
            _ type: Body.Type, from envelope: ProtobufEnvelope, _ input: MessageInput
        ) throws -> Body {
            let report = MessageFailureReport(input: input, messageName: Body.protoMessageName)
            guard envelope.hasData else { throw report.missingData(code: envelope.code) }
            guard envelope.data.isA(Body.self) else { throw report.dataOfAnotherType(envelope.data.typeURL) }
            do {
                return try Body(unpackingAny: envelope.data, options: options)
            } catch {
                throw report.error(for: error, inData: true)
            }
        }

        /// Throws Mapping's `.unacceptableStatus` error, the one `ResponseDecoder` throws, when
        /// the policy refuses the status.
        func checkStatus(of input: MessageInput) throws {
            guard let response = input.response, !statusPolicy.accepts(response.status) else { return }
            try ResponseDecoder(statusPolicy: statusPolicy).validate(response)
        }

        /// The error for a failure envelope: a business error, given to the envelope's router
        /// first, then turned into the app's own error when the envelope format does that.
        func businessError(_ envelope: ProtobufEnvelope, input: MessageInput) -> any Error {
            let error = BusinessError(
                code: BusinessCode(Int(envelope.code)),
                serverMessage: envelope.message.isEmpty ? nil : envelope.message,
                url: input.url,
                status: input.status
            )
            self.envelope.route(error)
            return self.envelope.error(for: error)
        }
    }
#endif
