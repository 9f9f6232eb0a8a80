import Feedback
import FeedbackConsole
import FeedbackTesting
import TestSupport
import Transport

/// A console presenter on a manual clock, writing into a virtual terminal and a byte log.
///
/// Nothing runs on a timer: a test moves the clock with ``advance(_:)`` and asks for the
/// redraw the timer would make with ``refresh()``.
final class ConsoleHarness: Sendable {
    let terminal: VirtualTerminal
    let presenter: ConsolePresenter
    private let written = LockedRecorder<String>()
    private let now = Clock()

    /// A harness whose output is (or is not) a terminal of `columns` × `rows`, in `environment`.
    init(
        isTerminal: Bool = true, environment: [String: String] = ["TERM": "xterm-256color"], columns: Int = 80,
        rows: Int = 24, catalog: MessageCatalog = .english
    ) {
        let terminal = VirtualTerminal(columns: columns, rows: rows)
        self.terminal = terminal
        let written = self.written
        let now = self.now
        var options = ConsolePresenter.Options()
        options.drawsOnTimer = false
        options.catalog = catalog
        options.clock = { now.value }
        let output = ConsoleOutput(
            isTerminal: isTerminal, environment: environment, columns: { terminal.columns }, rows: { terminal.rows },
            write: { text in
                written.append(text)
                terminal.feed(text)
            })
        presenter = ConsolePresenter(output: output, options: options)
    }

    /// Everything written, as one string.
    var bytes: String { written.all.joined() }

    /// How many bytes have been written so far.
    var byteCount: Int { written.all.reduce(0) { $0 + $1.utf8.count } }

    /// Moves the clock on.
    func advance(_ duration: Duration) {
        now.advance(duration)
    }

    /// What the timer would do now.
    func refresh() {
        presenter.refresh()
    }

    /// The terminal's rows that hold something.
    var screenRows: [String] { terminal.lines.filter { !$0.isEmpty } }
}

/// A loader with a chosen container and mask, presenting to a chosen presenter.
struct TestLoader: Loadable {
    var container: any Containable
    var chosenMask: any Maskable = SpinnerMask()
    var presenter: any FeedbackPresenter

    var mask: (any Maskable)? { chosenMask }
    var maskContainer: (any Containable)? { container }
}

/// A progress bar with a chosen label.
struct TestBar: Progressable {
    var progressLabel: String
    var presenter: any FeedbackPresenter
}

/// A warner with a chosen presenter.
struct TestWarner: Warnable, Informable {
    var presenter: any FeedbackPresenter
    var messageTitle: String? { nil }
}

/// The harness's clock: moved only by the test.
final class Clock: Sendable {
    private let now = PThreadMutex<Duration>(.zero)

    /// The time now.
    var value: Duration { now.withLock { $0 } }

    /// Moves the clock on.
    func advance(_ duration: Duration) {
        now.withLock { $0 += duration }
    }
}
