import Foundation
import HTTPTypes
import Retry
import Transport

/// Turns a form into a request, runs the plugins around sending it, and produces the
/// handle's outcome. One pipeline serves every form kind; it is the operation of the handle a
/// form's request makes (``BoxedOperation``).
///
/// Not generic over the form: a generic pipeline's every copy, capture and call in code that
/// is not specialised for the caller's form (all of it, as forms live in other modules) looked
/// up its type's metadata at run time, several times per request. The form sits in an
/// existential instead, read through its witness table. A class: the handle holds it in an
/// existential's inline buffer, where a struct of its size took a box of its own and a copy.
final class RequestPipeline: BoxedOperation {
    let configuration: ClientConfiguration
    let form: any Formable
    let uploadBody: (RequestBody, String)?
    /// The call's own options, with the client's user information merged under them.
    let options: CallOptions
    /// What the logical request keeps between runs: its `Idempotency-Key`, the server's wait.
    let memory: RetryMemory
    /// Asked before a network failure stands, when the sender is `Reloadable`.
    let reloadPrompt: (any ReloadPrompt)?
    /// The turns of a call that asked for the cached answer first; `nil` otherwise.
    let cachedFirst: CachedFirst?

    init(
        configuration: ClientConfiguration, form: any Formable, uploadBody: (RequestBody, String)?,
        options: CallOptions = CallOptions(), memory: RetryMemory = RetryMemory(),
        reloadPrompt: (any ReloadPrompt)? = nil, cachedFirst: CachedFirst? = nil
    ) {
        self.configuration = configuration
        self.form = form
        self.uploadBody = uploadBody
        self.options = options
        self.memory = memory
        self.reloadPrompt = reloadPrompt
        self.cachedFirst = cachedFirst
    }

    /// Sends the request through the client's onion: the plugins' links, the retries, the
    /// middleware, the transport (see ``ClientConfiguration``).
    ///
    /// - Parameter events: Where the transfer's events and the retries are reported; `nil`
    ///   when nobody can observe them (a direct `data(for:)`), which also spares the transfer
    ///   its progress reports, as does a sink nothing observed as the run began.
    nonisolated(nonsending) func run(events: RequestEventSink?) async throws -> DataRequest<DataResponse>.Outcome {
        let plugins = configuration.activePlugins
        var request: TransportRequest
        do {
            request = try await makeRequest()
            if let key = memory.idempotencyKey {
                // Checked as it is set, so that the engine need not check the whole head again.
                try request.setHeader(IdempotencyKey.fieldName.rawName, key)
            }
            // Nothing observing the handle: the transfer need not report its progress.
            if let events, events.isObserved { request.options.eventHandler = events.transferHandler }
            if let cachedFirst {
                if cachedFirst.takesCacheTurn() {
                    if let cached = try await CachedFirst.cachedResponse(for: request, in: configuration) {
                        cachedFirst.cacheAnswered()
                        return .init(
                            value: cached, response: ResponseInfo(cached))
                    }
                } else {
                    // The network's turn: the cache revalidates what it holds instead of answering.
                    try request.setHeader(HTTPField.Name.cacheControl.rawName, "no-cache")
                }
            }
        } catch {
            await plugins.complete(.failure(error), form: form)
            throw error
        }
        // In flight from here on: the client's registry may cancel it by kind.
        let registration = configuration.requests.register(request)
        defer { configuration.requests.unregister(registration) }
        let retry = retryLink
        let middleware = configuration.middleware
        let transport = configuration.transport
        let response: TransportResponse
        if plugins.isEmpty && configuration.requestMiddleware.isEmpty {
            // No plugin and no link of the logical request: the retries are the outermost link.
            response = try await retry.intercept(request) { request in
                try await sendAttempt(request, through: middleware, to: transport)
            }
        } else {
            // The plugins' links, then the logical request's own, then the retries.
            let links =
                PluginLink.links(for: plugins, form: form, bodyLimit: request.options.maximumBodySize)
                + configuration.requestMiddleware
            response = try await MiddlewareTransport.run(request, through: links[...]) { request in
                try await retry.intercept(request) { request in
                    try await sendAttempt(request, through: middleware, to: transport)
                }
            }
        }
        // A body already in memory is taken as it is, without an `async` call; only one a link
        // streams itself is collected.
        let collected =
            if let inMemory = DataResponse(collected: response) {
                inMemory
            } else {
                try await response.collected(upTo: request.options.maximumBodySize)
            }
        return .init(
            value: collected,
            response: ResponseInfo(collected))
    }

    /// The handle's operation: ``run(events:)``, its response boxed.
    nonisolated(nonsending) func run(_ events: RequestEventSink) async throws
        -> (value: any Sendable, response: ResponseInfo?)
    {
        let outcome = try await run(events: events)
        return (outcome.value, outcome.response)
    }

    /// The retries of the logical request, as a link: the client's policy, with the request's
    /// memory and reload prompt.
    private var retryLink: RetryMiddleware {
        var link = RetryMiddleware(policy: configuration.retry, logger: configuration.logger)
        link.memory = memory
        link.reloadPrompt = reloadPrompt
        return link
    }

    /// The transport request the form describes.
    ///
    /// - Parameter appliesClientTimeout: Whether the client's ``ClientConfiguration/timeout``
    ///   bounds the request when the form sets no timeout; `true` by default.
    func makeRequest(appliesClientTimeout: Bool = true) async throws -> TransportRequest {
        let base = form.baseURL ?? configuration.baseURL
        guard !base.isEmpty else {
            throw FormError(
                .invalidURL, message: "The form for \(form.path) has no base URL and neither has the client.")
        }
        var url = base.hasSuffix("/") ? String(base.dropLast()) : base
        url += form.path.hasPrefix("/") || form.path.isEmpty ? form.path : "/" + form.path

        var parameters = configuration.commonParameters()
        if parameters.isEmpty {
            parameters = form.parameters
        } else {
            parameters.merge(form.parameters) { _, formValue in formValue }
        }

        var body: RequestBody?
        var contentType: String?
        let method = form.method
        if let (uploadBody, uploadType) = uploadBody {
            body = uploadBody
            contentType = uploadType
            url = try Self.appendQuery(parameters, to: url)
        } else if let encodable = form.jsonBody {
            do {
                body = .bytes(try JSONEncoder().encode(encodable))
            } catch {
                throw FormError(
                    .invalidParameters, message: "The JSON body of \(form.path) cannot be encoded: \(error).")
            }
            contentType = "application/json"
            url = try Self.appendQuery(parameters, to: url)
        } else {
            switch form.encoding.resolved(for: method) {
            case .urlQuery, .automatic:
                url = try Self.appendQuery(parameters, to: url)
            case .formURLEncoded:
                body = .string(try ParameterEncoding.queryString(from: parameters))
                contentType = "application/x-www-form-urlencoded; charset=utf-8"
            case .json:
                if !parameters.isEmpty {
                    body = .bytes(try ParameterEncoding.jsonData(from: parameters))
                    contentType = "application/json"
                }
            }
        }

        var request: TransportRequest
        do {
            request = try TransportRequest(method: method, url: url, body: body, options: configuration.transferOptions)
            if let contentType { try request.setHeader("Content-Type", contentType) }
            try Self.setHeaders(configuration.headers, on: &request)
            if configuration.hasDynamicHeaders {
                try Self.setHeaders(await configuration.dynamicHeaders(), on: &request)
            }
            try Self.setHeaders(form.headers, on: &request)
        }
        // Only a timeout that exists is set: an unset deadline leaves the engine's default in force.
        if let timeout = options.timeout ?? form.timeout ?? (appliesClientTimeout ? configuration.timeout : nil) {
            request.options.deadline = timeout
        }
        request.userInfo = options.userInfo
        return request
    }

    /// Sets `headers` in name order, so that the request does not depend on dictionary order.
    private static func setHeaders(_ headers: [String: String], on request: inout TransportRequest) throws {
        switch headers.count {
        case 0:
            return
        case 1:
            for (name, value) in headers { try request.setHeader(name, value) }
        default:
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { try request.setHeader(name, value) }
        }
    }

    private static func appendQuery(_ parameters: Parameters, to url: String) throws -> String {
        guard !parameters.isEmpty else { return url }
        let query = try ParameterEncoding.queryString(from: parameters)
        return url + (url.contains("?") ? "&" : "?") + query
    }
}

/// One attempt of a client's request: through the client's middleware, then the transport's
/// collected path, whose response enters the onion as it is.
private func sendAttempt(
    _ request: TransportRequest, through middleware: [any TransportMiddleware], to transport: any HTTPTransport
) async throws -> TransportResponse {
    guard !middleware.isEmpty else { return TransportResponse(try await transport.data(for: request)) }
    return try await MiddlewareTransport.run(request, through: middleware[...]) { request in
        TransportResponse(try await transport.data(for: request))
    }
}
