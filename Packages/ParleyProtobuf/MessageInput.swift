#if Protobuf
    import Foundation
    import HTTPTypes
    import Mapping
    import Transport

    /// What the decoder knows about a body: the bytes and, for a response, where it came from.
    struct MessageInput {
        var body: Data
        /// The response, for the status check that `ResponseDecoder` makes; `nil` for bare data.
        var response: DataResponse?

        init(_ response: DataResponse) {
            body = response.body
            self.response = response
        }

        init(_ data: Data) {
            body = data
            response = nil
        }

        var url: String? { response?.url }
        var status: HTTPResponse.Status? { response?.status }
        /// The `Content-Type` of the response; `nil` for bare data or when the server sent none.
        var contentType: String? { response?.head.headerFields[.contentType] }

        /// `in the response from URL (HTTP 200 OK)`, or `in the body` when nothing is known: the
        /// words of Mapping's errors.
        var origin: String { ResponseInput.origin(url: url, status: status) }
    }
#endif
