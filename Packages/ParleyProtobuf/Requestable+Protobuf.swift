#if Protobuf
    public import Forms
    import Foundation
    import SwiftProtobuf
    public import Transport

    extension Requestable {
        /// Sends a form whose body is a Protocol Buffers message; the response is collected in
        /// memory.
        ///
        /// The message is serialised in the binary format first, then sent as an upload of its
        /// bytes, through the client's retries, plugins and middleware:
        ///
        /// ```swift
        /// let echoed = try await screen.request(ReportForm(report: report))
        ///     .decodeMessage(Parley_Weather_Report.self).value
        /// ```
        ///
        /// - Parameters:
        ///   - form: The endpoint and its message.
        ///   - options: What this call decides over the form and the client; none by default.
        ///   - startImmediately: `true` (the default) sends now; `false` waits for `start()`.
        /// - Returns: The handle; decode it with `decodeMessage(_:decoder:)`.
        ///   It fails with a `FormError` of category `invalidParameters` when the message cannot
        ///   be serialised.
        public func request(
            _ form: some MessageFormable, options: CallOptions = CallOptions(), startImmediately: Bool = true
        ) -> DataRequest<DataResponse> {
            let data: Data
            do {
                data = try form.message.serializedData()
            } catch {
                return DataRequest(
                    finished: .failure(
                        FormError(
                            .invalidParameters,
                            message: "The Protocol Buffers body of \(form.path) cannot be serialised: \(error). "
                                + "Set every required field of `\(type(of: form.message).protoMessageName)`.")))
            }
            return upload(
                SerializedMessageForm(form: form, data: data), options: options, startImmediately: startImmediately)
        }
    }
#endif
