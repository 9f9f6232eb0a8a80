#if Protobuf
    public import SwiftProtobuf
    public import Transport

    extension RequestHandle where Value == DataResponse {
        /// A handle for the message decoded from the response body.
        ///
        /// ```swift
        /// request(WeatherForm.forecast(city: "Toronto")).decodeMessage(Parley_Weather_Forecast.self)
        /// ```
        ///
        /// - Parameters:
        ///   - type: The message type.
        ///   - decoder: The status policy, media types and envelope; by default the handle's
        ///     `userInfo.messageDecoder` (a client's default), else `MessageDecoder()`.
        /// - Returns: A handle that fails with Mapping's `MappingError` when the body is not the
        ///   message, in the categories ``MessageDecoder`` lists.
        public func decodeMessage<Body: SwiftProtobuf.Message>(
            _ type: Body.Type = Body.self,
            decoder: MessageDecoder? = nil
        ) -> DataRequest<Body> {
            let decoder = resolved(decoder)
            return map { response, _ in try decoder.decode(Body.self, from: response) }
        }

        /// A handle for the message in an envelope message's data, after the envelope's code was
        /// checked: a non-success code fails the handle with Mapping's `BusinessError` (routed
        /// first, when the envelope routes that code).
        ///
        /// ```swift
        /// request(WeatherForm.forecast(city: "Atlantis")).decodeEnvelopeMessage(Parley_Weather_Forecast.self)
        /// ```
        ///
        /// - Parameters:
        ///   - type: The message type packed in the envelope's data.
        ///   - decoder: The status policy, media types and envelope format.
        /// - Returns: A handle that fails with `BusinessError` or `MappingError`.
        public func decodeEnvelopeMessage<Body: SwiftProtobuf.Message>(
            _ type: Body.Type = Body.self,
            decoder: MessageDecoder? = nil
        ) -> DataRequest<Body> {
            let decoder = resolved(decoder)
            return map { response, _ in try decoder.decodeEnvelope(Body.self, from: response) }
        }

        /// `decoder`, else the handle's default decoder (`RequestUserInfo.messageDecoder`), else
        /// the standard one.
        private func resolved(_ decoder: MessageDecoder?) -> MessageDecoder {
            decoder ?? userInfo.messageDecoder ?? MessageDecoder()
        }
    }

    /// The key of `RequestUserInfo.messageDecoder`.
    private enum MessageDecoderKey: RequestUserInfoKey {
        typealias Value = MessageDecoder
    }

    extension RequestUserInfo {
        /// The decoder `decodeMessage` and `decodeEnvelopeMessage` use when a call names none:
        /// set it on a client's `userInfo` to give the whole client one envelope format and one
        /// set of media types, as Mapping's `responseDecoder` does for JSON.
        ///
        /// ```swift
        /// client.userInfo.messageDecoder = MessageDecoder(envelope: ShopEnvelope())
        /// ```
        public var messageDecoder: MessageDecoder? {
            get { self[MessageDecoderKey.self] }
            set { self[MessageDecoderKey.self] = newValue }
        }
    }
#endif
