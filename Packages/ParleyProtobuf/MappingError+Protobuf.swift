#if Protobuf
    public import Mapping
    public import Transport

    /// The category of a body that is not the Protocol Buffers message asked for.
    extension ErrorCategory where Domain == MappingErrorDomain {
        /// The body is not a Protocol Buffers message of the type asked for: truncated, malformed,
        /// or another format, such as JSON or an HTML page, which its `Content-Type` names. The
        /// counterpart of `MappingError.Category.invalidJSON`: a
        /// message catalog without an entry of its own (`mapping.invalidProtobuf`) describes it
        /// with the general `mapping` sentence, as it does an answer that is not JSON.
        public static let invalidProtobuf = Self("invalidProtobuf")
    }
#endif
