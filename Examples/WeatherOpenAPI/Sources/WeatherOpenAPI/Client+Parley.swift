import Foundation
import OpenAPIRuntime
import ParleyOpenAPI
import Transport

extension Client {
    /// A weather client whose operations send through `transport`: Parley's engine, or a chain
    /// around it whose links (retries, authentication, the cache) then apply to every operation.
    ///
    /// - Parameters:
    ///   - serverURL: The mock backend's URL, such as `http://127.0.0.1:8080`.
    ///   - transport: The transport that sends.
    ///   - middlewares: The runtime's middleware, such as `OpenAPIFeedback`, outermost first.
    public init(serverURL: URL, parley transport: any HTTPTransport, middlewares: [any ClientMiddleware] = []) {
        self.init(serverURL: serverURL, transport: OpenAPITransport(transport), middlewares: middlewares)
    }
}
