import NIOConcurrencyHelpers

/// The thread-safe log behind ``MockServer/receivedRequests()``.
///
/// Event-loop threads append to it while a test reads it, so every access takes the lock.
final class RequestRecorder: Sendable {
    private let requests = NIOLockedValueBox<[RecordedRequest]>([])

    /// Appends `request` and returns a handle for reporting its body length later.
    func record(_ request: RecordedRequest) -> Entry {
        let index = requests.withLockedValue { requests in
            requests.append(request)
            return requests.count - 1
        }
        return Entry(recorder: self, index: index)
    }

    /// A copy of every request recorded so far, oldest first.
    func snapshot() -> [RecordedRequest] {
        requests.withLockedValue { $0 }
    }

    fileprivate func setBodyLength(_ length: Int, at index: Int) {
        requests.withLockedValue { requests in
            guard requests.indices.contains(index) else { return }
            requests[index].bodyLength = length
        }
    }

    /// One recorded request, for a route to report how much body it read.
    struct Entry: Sendable {
        fileprivate let recorder: RequestRecorder
        fileprivate let index: Int

        /// Records that the route has read `length` body bytes so far.
        func setBodyLength(_ length: Int) {
            recorder.setBodyLength(length, at: index)
        }
    }
}
