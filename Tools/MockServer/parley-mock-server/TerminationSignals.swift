import Dispatch
import Foundation

/// SIGINT and SIGTERM as an asynchronous sequence, so the scripted server (`--scripted`) can
/// stop cleanly on either; the HTTP server handles them through a `ServiceGroup`.
///
/// Creating it sets both signals' default action to "ignore" and watches them with dispatch
/// sources instead, so the process is no longer killed outright. Keep it alive for as long as
/// the signals should be watched; `deinit` stops watching.
final class TerminationSignals {
    /// The signal numbers, as they arrive.
    let received: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (received, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.received = received
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        for source in sources {
            source.cancel()
        }
    }
}

extension AsyncStream<Int32> {
    /// Returns at the first signal, or when the calling task is cancelled.
    func waitForFirst() async {
        for await _ in self {
            return
        }
    }
}
