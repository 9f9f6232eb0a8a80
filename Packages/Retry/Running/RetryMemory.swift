import Synchronization

/// What one logical request remembers from one run to the next (a reload by hand, or a
/// person's "retry"): its `Idempotency-Key`, and until when the server asked it to wait.
///
/// Make one per logical request and pass it to every ``RetryLoop`` that runs it.
public final class RetryMemory: Sendable {
    /// The key every attempt carries, when the request has one.
    public let idempotencyKey: String?
    /// Attempts made over every run.
    private let attempts = Atomic(0)
    /// The clock reading before which the server asked not to be asked again, as its
    /// `components` (seconds, attoseconds); ``noReading`` when it asked nothing.
    ///
    /// Two atomics rather than a lock: a memory is made for every request, and a lock would be
    /// an allocation and a look-up of its generic type's metadata each time. The reading is one
    /// value, stored and loaded whole as a pair of words.
    private let notBefore = Atomic(noReading)

    /// No reading: attoseconds no `Duration`'s components can have (they stay within ±10¹⁸).
    private static let noReading = WordPair(first: 0, second: UInt(bitPattern: Int.min))

    /// Creates the memory of a new logical request.
    ///
    /// - Parameter idempotencyKey: The key its attempts carry, if any.
    public init(idempotencyKey: String? = nil) {
        self.idempotencyKey = idempotencyKey
    }

    /// The earliest clock reading the next attempt may start at.
    var earliestNextAttempt: Duration? {
        get {
            let pair = notBefore.load(ordering: .acquiring)
            guard pair != Self.noReading else { return nil }
            return Duration(
                secondsComponent: Int64(Int(bitPattern: pair.first)),
                attosecondsComponent: Int64(Int(bitPattern: pair.second)))
        }
        set {
            guard let newValue else { return notBefore.store(Self.noReading, ordering: .releasing) }
            let (seconds, attoseconds) = newValue.components
            notBefore.store(
                WordPair(first: UInt(bitPattern: Int(seconds)), second: UInt(bitPattern: Int(attoseconds))),
                ordering: .releasing)
        }
    }

    /// Counts an attempt; returns the count over every run.
    func countAttempt() -> Int {
        attempts.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Attempts made over every run.
    public var attemptCount: Int { attempts.load(ordering: .relaxed) }
}
