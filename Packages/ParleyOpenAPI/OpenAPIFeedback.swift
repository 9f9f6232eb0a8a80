#if OpenAPI
    public import Feedback
    public import Foundation
    public import HTTPTypes
    public import OpenAPIRuntime
    import Transport

    /// A `ClientMiddleware` that shows Feedback for a generated client's operations: a mask while
    /// an operation waits for its answer, and a progress bar that follows its request and
    /// response bodies.
    ///
    /// ```swift
    /// let panel = Panel(title: "Weather")
    /// let client = Client(
    ///     serverURL: serverURL,
    ///     transport: OpenAPITransport(engine),
    ///     middlewares: [OpenAPIFeedback(load: LoadType.default(container: panel), progress: ProgressType.bar(label: "Radar"),
    ///                                   operations: ["getRadarImage"])]
    /// )
    /// ```
    ///
    /// The mask goes on when an operation starts and comes off when its response head arrives or
    /// it fails (a cancellation ends it as cancelled). The progress bar counts the bytes of the
    /// request body as the transport reads them and those of the response body as the client
    /// reads them, against their known lengths, and ends with the response body (at once for a
    /// response without one). Operations not in `operations` pass through untouched.
    ///
    /// Put it first in the client's `middlewares` so that it sees the operation as its caller
    /// does. A retry in the transport's chain (`RetryMiddleware`) happens under it: the mask stays
    /// on across the attempts.
    public struct OpenAPIFeedback: ClientMiddleware {
        /// The mask of each operation; ``/Feedback/LoadType/none`` for none.
        public let load: any Loadable
        /// The progress bar of each operation; ``/Feedback/ProgressType/none`` for none.
        public let progress: any Progressable
        /// The operations shown, by `operationId`; `nil` for all.
        public let operations: Set<String>?

        /// Shows `load` and `progress` for the operations named in `operations`, or all.
        ///
        /// - Parameters:
        ///   - load: The mask; ``/Feedback/LoadType/none`` (the default) for none.
        ///   - progress: The progress bar; ``/Feedback/ProgressType/none`` (the default) for none.
        ///   - operations: The `operationId`s shown; `nil` (the default) for every operation.
        public init(
            load: any Loadable = LoadType.none,
            progress: any Progressable = ProgressType.none,
            operations: Set<String>? = nil
        ) {
            self.load = load
            self.progress = progress
            self.operations = operations
        }

        /// Shows the operation's feedback around the rest of the chain.
        ///
        /// - Parameters:
        ///   - request: The operation's request.
        ///   - body: Its body, counted as it is read.
        ///   - baseURL: The server URL.
        ///   - operationID: The operation's identifier, checked against ``operations``.
        ///   - next: The rest of the chain.
        /// - Returns: The response, whose body is counted as the client reads it.
        /// - Throws: What the rest of the chain throws.
        public func intercept(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            if let operations, !operations.contains(operationID) {
                return try await next(request, body, baseURL)
            }
            let maskActivity = ActivityID.next()
            let progressActivity = ActivityID.next()
            load.begin(maskActivity)
            progress.progressBegan(progressActivity)
            let (response, responseBody): (HTTPResponse, HTTPBody?)
            do {
                let countedBody = body.map {
                    CountedBody.wrap($0, direction: .upload, activity: progressActivity, progress: progress, onEnd: nil)
                }
                (response, responseBody) = try await next(request, countedBody, baseURL)
            } catch {
                let outcome = ActivityOutcome(Result<Void, any Error>.failure(error))
                load.end(maskActivity, outcome: outcome)
                progress.progressEnded(progressActivity, outcome: outcome)
                throw error
            }
            load.end(maskActivity, outcome: .succeeded)
            guard let responseBody else {
                progress.progressEnded(progressActivity, outcome: .succeeded)
                return (response, nil)
            }
            let counted = CountedBody.wrap(
                responseBody, direction: .download, activity: progressActivity, progress: progress
            ) { [progress] outcome in
                progress.progressEnded(progressActivity, outcome: outcome)
            }
            return (response, counted)
        }
    }
#endif
