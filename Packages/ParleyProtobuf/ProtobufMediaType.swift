#if Protobuf
    import Foundation

    /// The media types of Protocol Buffers bodies: the one message forms send, and those a
    /// ``MessageDecoder`` reads.
    ///
    /// No media type is registered for Protocol Buffers; servers use three names, and the
    /// product accepts all of them in answers:
    ///
    /// | Media type | Used by |
    /// |---|---|
    /// | `application/x-protobuf` | the most common; what message forms send and ask for |
    /// | `application/protobuf` | the name of the IETF draft, gRPC-gateway and some proxies |
    /// | `application/vnd.google.protobuf` | Google's APIs and Spring's converter |
    ///
    /// Parameters such as `; proto=parley.weather.Forecast` or `; charset=utf-8` are ignored.
    public enum ProtobufMediaType {
        /// `application/x-protobuf`: the `Content-Type` and `Accept` of a ``MessageFormable``
        /// unless it says otherwise.
        public static let standard = "application/x-protobuf"

        /// The three media types above, lowercased: a ``MessageDecoder`` reads a body that has
        /// one of them, or no `Content-Type` at all.
        public static let accepted: Set<String> = [
            "application/x-protobuf", "application/protobuf", "application/vnd.google.protobuf",
        ]

        /// The media type of a `Content-Type` value, lowercased and without its parameters:
        /// `application/x-protobuf` for `Application/X-Protobuf; proto=parley.Envelope`.
        ///
        /// - Parameter contentType: A `Content-Type` value.
        /// - Returns: The media type.
        public static func essence(of contentType: String) -> String {
            let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return type.trimmingCharacters(in: .whitespaces).lowercased()
        }
    }
#endif
