#if OpenAPI
    import Feedback
    import Foundation
    import OpenAPIRuntime
    import Transport

    /// An OpenAPI body whose chunks are counted into a progress bar as they are read.
    struct CountedBody: AsyncSequence, Sendable {
        typealias Element = HTTPBody.ByteChunk
        typealias Failure = any Error

        let base: HTTPBody
        let total: Int64?
        let direction: TransferDirection
        let activity: ActivityID
        let progress: any Progressable
        /// Called once, when the body ends or fails.
        let onEnd: (@Sendable (ActivityOutcome) -> Void)?

        /// `body`, counted; the same length and iteration behaviour.
        static func wrap(
            _ body: HTTPBody,
            direction: TransferDirection,
            activity: ActivityID,
            progress: any Progressable,
            onEnd: (@Sendable (ActivityOutcome) -> Void)?
        ) -> HTTPBody {
            let total: Int64? =
                switch body.length {
                case .known(let count): count
                case .unknown: nil
                }
            let counted = CountedBody(
                base: body, total: total, direction: direction, activity: activity, progress: progress, onEnd: onEnd)
            return HTTPBody(counted, length: body.length, iterationBehavior: body.iterationBehavior)
        }

        func makeAsyncIterator() -> Iterator { Iterator(body: self, base: base.makeAsyncIterator()) }

        struct Iterator: AsyncIteratorProtocol {
            let body: CountedBody
            var base: HTTPBody.Iterator
            var completed: Int64 = 0
            var ended = false
            let start = ContinuousClock.now

            mutating func next() async throws -> HTTPBody.ByteChunk? {
                guard !ended else { return nil }
                let chunk: HTTPBody.ByteChunk?
                do {
                    chunk = try await base.next()
                } catch {
                    ended = true
                    body.onEnd?(ActivityOutcome(Result<Void, any Error>.failure(error)))
                    throw error
                }
                if let chunk { completed += Int64(chunk.count) }
                let elapsed = (ContinuousClock.now - start) / .seconds(1)
                let report = TransferProgress(
                    completed: completed,
                    total: body.total,
                    bytesPerSecond: elapsed > 0 ? Double(completed) / elapsed : 0,
                    isFinal: chunk == nil
                )
                body.progress.progressChanged(body.activity, direction: body.direction, progress: report)
                if chunk == nil {
                    ended = true
                    body.onEnd?(.succeeded)
                }
                return chunk
            }
        }
    }
#endif
