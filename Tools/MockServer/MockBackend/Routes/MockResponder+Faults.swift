import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

// Faults on demand for the business routes, and the `/faults` routes that control them from
// another process.
extension MockResponder {
    /// Consults the ``FaultInjector`` for a request of the business route `path`: waits its
    /// delay, then applies its outcome.
    ///
    /// A route that reads its own body has it read to the end before a fault, so an unread
    /// request body never turns a fault into a reset it did not ask for.
    ///
    /// - Returns: The 503 answer of an ``FaultInjector/Outcome/unavailable(retryAfter:)`` or
    ///   ``FaultInjector/Outcome/unavailableWithoutRetryAfter``, the answer cut short of a
    ///   ``FaultInjector/Outcome/reset`` or ``FaultInjector/Outcome/stall``, or `nil` when the
    ///   route answers as usual.
    /// - Throws: ``ConnectionDropped`` once the connection is closed for a
    ///   ``FaultInjector/Outcome/drop``.
    func injectFault(
        path: String,
        route: MockRoute,
        request: Request,
        context: MockRequestContext,
        entry: RequestRecorder.Entry
    ) async throws -> Response? {
        let decision = faults.decide(for: path)
        if decision.delay > .zero {
            try await Task.sleep(for: decision.delay)
        }
        switch decision.outcome {
        case .ok:
            return nil
        case .drop:
            if route.readsBody { try await drainBody(of: request, into: entry) }
            // As `/idempotent` does: Hummingbird finds the channel closed and writes nothing.
            try? await context.channel.close()
            throw ConnectionDropped()
        case .unavailable(let retryAfter):
            if route.readsBody { try await drainBody(of: request, into: entry) }
            return try .envelope(
                code: 503, message: "Service unavailable; try again", data: .null, status: .serviceUnavailable,
                headerFields: [.retryAfter: String(FaultInjector.seconds(retryAfter))])
        case .unavailableWithoutRetryAfter:
            if route.readsBody { try await drainBody(of: request, into: entry) }
            return try .envelope(
                code: 503, message: "Service unavailable; try again", data: .null, status: .serviceUnavailable)
        case .reset:
            if route.readsBody { try await drainBody(of: request, into: entry) }
            return Self.cutShort(context.channel, reset: true)
        case .stall:
            if route.readsBody { try await drainBody(of: request, into: entry) }
            return Self.cutShort(context.channel, reset: false)
        }
    }

    /// A 200 head promising 64 bytes of JSON, the first 16 of them, then a TCP reset
    /// (`SO_LINGER` 0, then close) or, with `reset` false, silence until the client closes the
    /// connection or the server stops (as `/stall` waits).
    private static func cutShort(_ channel: any Channel, reset: Bool) -> Response {
        let body = ResponseBody(contentLength: 64) { writer in
            try await channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: false).get()
            try await writer.write(ByteBuffer(string: #"{"code": 200, ""#))
            if reset {
                // Give the bytes a moment to reach the socket, as `/drop` does, then reset.
                try await Task.sleep(for: .milliseconds(20))
                if let provider = channel as? any SocketOptionProvider {
                    try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
                }
                try await channel.close()
            } else {
                try await withTaskCancellationHandler {
                    try await channel.closeFuture.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            }
            throw ConnectionDropped()
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
    }

    /// The `/faults` routes. Each answers with the injector's state (see ``faultState()``):
    ///
    /// - `GET /faults`: the state;
    /// - `POST /faults/script?path=P&outcomes=O,O…`: replaces the scripted outcomes of route
    ///   `P`, each `O` one of `ok`, `drop`, `503` (`Retry-After: 1`), `503:N`, `503:none`,
    ///   `reset` or `stall`; an empty `outcomes` removes the script;
    /// - `POST /faults/delay?path=P&ms=N`: route `P` waits `N` ms (0…600000) before each answer;
    /// - `POST /faults/pace?path=P&ms=N`: route `P` waits `N` ms (0…10000) after each 64 KiB
    ///   of body (`/weather/radar` only);
    /// - `POST /faults/chaos?rate=R&seed=S&faults=O,O…`: chaos rate `R` (0…1); with `seed`, the
    ///   generator restarts from `S`; with `faults`, chaos picks among those outcomes (as
    ///   `/faults/script` names them; `default` for a drop or a 503);
    /// - `POST /faults/reset`: no scripts, no delays, no paces, rate 0, counters at 0, the start seed.
    ///
    /// `P` is a business route's path without a query (``FaultInjector/paths``); another gets 400.
    func faultControl(_ endpoint: MockRoute.FaultsEndpoint, request: Request, target: RequestTarget) throws
        -> Response
    {
        switch endpoint {
        case .state:
            guard request.method == .get || request.method == .head else {
                throw RouteError(
                    .methodNotAllowed, "/faults accepts GET, not \(request.method.rawValue)",
                    headerFields: [.allow: "GET, HEAD"])
            }
        case .script:
            try Self.requirePost(request, "/faults/script")
            let path = try Self.faultPath(target)
            faults.script(path, try Self.outcomes(target.value("outcomes") ?? ""))
        case .delay:
            try Self.requirePost(request, "/faults/delay")
            let path = try Self.faultPath(target)
            guard let text = target.value("ms") else {
                throw RouteError(.badRequest, "Missing query item: ms")
            }
            let milliseconds = try RequestTarget.integer(text, named: "ms", in: 0...600_000)
            faults.setDelay(.milliseconds(milliseconds), for: path)
        case .pace:
            try Self.requirePost(request, "/faults/pace")
            let path = try Self.faultPath(target)
            guard let text = target.value("ms") else {
                throw RouteError(.badRequest, "Missing query item: ms")
            }
            let milliseconds = try RequestTarget.integer(text, named: "ms", in: 0...10_000)
            faults.setPace(.milliseconds(milliseconds), for: path)
        case .chaos:
            try Self.requirePost(request, "/faults/chaos")
            guard let text = target.value("rate") else {
                throw RouteError(.badRequest, "Missing query item: rate")
            }
            guard let rate = Double(text), rate >= 0, rate <= 1 else {
                throw RouteError(.badRequest, "rate must be a number in 0...1, got '\(text)'")
            }
            if let faultsText = target.value("faults") {
                faults.chaosFaults =
                    faultsText == "default" ? FaultInjector.defaultChaosFaults : try Self.outcomes(faultsText)
            }
            if let seedText = target.value("seed") {
                guard let seed = UInt64(seedText) else {
                    throw RouteError(.badRequest, "seed must be an integer in 0...\(UInt64.max), got '\(seedText)'")
                }
                faults.setChaos(rate: rate, seed: seed)
            } else {
                faults.chaosRate = rate
            }
        case .reset:
            try Self.requirePost(request, "/faults/reset")
            faults.reset()
        }
        return try faultState()
    }

    /// The injector's state: `{"chaos": {"rate", "seed"}, "delays": {path: ms}, "paces": {path:
    /// ms}, "scripts": {path: [outcome]}, "counters": {path: {"requests", "drops",
    /// "unavailable", "delayed"}}, "paths": [business route paths]}`.
    func faultState() throws -> Response {
        try .json(faults.json())
    }

    /// The outcomes of a comma-separated list such as `drop,503:none,reset`.
    ///
    /// - Throws: ``RouteError`` (400) for a name that is not an outcome.
    private static func outcomes(_ list: String) throws -> [FaultInjector.Outcome] {
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return try names.filter { !$0.isEmpty }.map { name in
            guard let outcome = FaultInjector.Outcome(name) else {
                throw RouteError(
                    .badRequest,
                    "outcomes must be a comma-separated list of ok, drop, 503, 503:SECONDS, 503:none, reset and "
                        + "stall, got '\(name)'")
            }
            return outcome
        }
    }

    /// The `path` query item, normalised, when it names a business route.
    ///
    /// - Throws: ``RouteError`` (400) when it is missing or names another route.
    private static func faultPath(_ target: RequestTarget) throws -> String {
        guard let text = target.value("path"), !text.isEmpty else {
            throw RouteError(.badRequest, "Missing query item: path")
        }
        let path = FaultInjector.normalized(text)
        guard FaultInjector.paths.contains(path) else {
            throw RouteError(
                .badRequest,
                "path must be a business route, one of \(FaultInjector.paths.joined(separator: ", ")); got '\(text)'")
        }
        return path
    }
}
