import Foundation
import Transport

/// One hook of a client's plugins as a link of the middleware onion: a plugin list compiles
/// into five links, one per hook of a request, each running that hook of every plugin in the
/// list's order.
///
/// The links go outermost, outside the retries, so that the plugins see the logical request
/// once and the response that stands. Their order makes the hooks' documented order:
///
/// | Link (outermost first) | On the way in | On the way out |
/// |---|---|---|
/// | `afterCompletion` | | every `afterCompletion`, with the response or the failure |
/// | `willSend` | every `willSend`; a veto throws | |
/// | `prepare` | every `prepare` | |
/// | `didReceive` | | every `didReceive` |
/// | `process` | | every `process`, each given the last one's response |
struct PluginLink: TransportMiddleware {
    /// The hook a link runs.
    enum Hook: CaseIterable {
        case afterCompletion
        case willSend
        case prepare
        case didReceive
        case process
    }

    let hook: Hook
    let plugins: [any Plugin]
    let form: any Formable
    /// The most bytes a body a middleware streamed may have when a hook needs it in memory.
    let bodyLimit: Int

    /// The links `plugins` compile into, outermost first; none without plugins.
    static func links(for plugins: [any Plugin], form: any Formable, bodyLimit: Int) -> [any TransportMiddleware] {
        guard !plugins.isEmpty else { return [] }
        return Hook.allCases.map { PluginLink(hook: $0, plugins: plugins, form: form, bodyLimit: bodyLimit) }
    }

    func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        switch hook {
        case .afterCompletion:
            let response: DataResponse
            do {
                response = try await next(request).collected(upTo: bodyLimit)
            } catch {
                await plugins.complete(.failure(error), form: form)
                throw error
            }
            await plugins.complete(.success(response), form: form)
            return TransportResponse(response)
        case .willSend:
            try await plugins.permit(request, form: form, action: "request to")
            return try await next(request)
        case .prepare:
            var request = request
            try await plugins.prepare(&request, form: form)
            return try await next(request)
        case .didReceive:
            let response = try await next(request).collected(upTo: bodyLimit)
            for plugin in plugins { await plugin.didReceive(response, form: form) }
            return TransportResponse(response)
        case .process:
            var response = try await next(request).collected(upTo: bodyLimit)
            for plugin in plugins { response = try await plugin.process(response, form: form) }
            return TransportResponse(response)
        }
    }
}

extension [any Plugin] {
    /// Asks each plugin in turn whether `request` may be sent.
    ///
    /// - Throws: A ``FormError`` of category `vetoed` naming the first plugin that refused.
    func permit(_ request: TransportRequest, form: some Formable, action: String) async throws {
        for plugin in self {
            if case .veto(let reason) = await plugin.willSend(request, form: form) {
                throw FormError(
                    .vetoed, message: "The plugin \(plugin.name) stopped the \(action) \(form.path): \(reason)")
            }
        }
    }

    /// Lets each plugin in turn prepare `request`.
    func prepare(_ request: inout TransportRequest, form: some Formable) async throws {
        for plugin in self { try await plugin.prepare(&request, form: form) }
    }

    /// Tells each plugin in turn the request's final result.
    func complete(_ result: Result<DataResponse, any Error>, form: some Formable) async {
        for plugin in self { await plugin.afterCompletion(result, form: form) }
    }
}
