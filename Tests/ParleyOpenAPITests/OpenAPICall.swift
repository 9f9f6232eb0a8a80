#if OpenAPI
    import Foundation
    import HTTPTypes
    @_spi(Generated) import OpenAPIRuntime
    import Testing

    /// One operation sent the way a generated client sends it: through swift-openapi-runtime's
    /// `UniversalClient`, its middleware and the transport, errors wrapped in `ClientError`.
    struct OpenAPICall {
        let client: UniversalClient

        init(serverURL: String, transport: any ClientTransport, middlewares: [any ClientMiddleware] = []) throws {
            let url = try #require(URL(string: serverURL))
            client = UniversalClient(serverURL: url, transport: transport, middlewares: middlewares)
        }

        /// Sends `method path` with `body` as operation `operationID`; returns the head and the body.
        func send(
            _ method: HTTPRequest.Method,
            _ path: String,
            headers: HTTPFields = [:],
            body: HTTPBody? = nil,
            operationID: String = "test"
        ) async throws -> (HTTPResponse, HTTPBody?) {
            try await client.send(
                input: path,
                forOperation: operationID,
                serializer: { path in
                    (HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: headers), body)
                },
                deserializer: { response, body in (response, body) }
            )
        }

        /// Sends `method path` and collects the body (64 MiB at most) as JSON.
        func json(
            _ method: HTTPRequest.Method,
            _ path: String,
            headers: HTTPFields = [:],
            body: HTTPBody? = nil
        ) async throws -> (HTTPResponse, [String: Any]) {
            let (response, responseBody) = try await send(method, path, headers: headers, body: body)
            let data = try await Data(collecting: try #require(responseBody), upTo: 64 << 20)
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return (response, try #require(object, "not a JSON object: \(String(decoding: data, as: UTF8.self))"))
        }
    }
#endif
