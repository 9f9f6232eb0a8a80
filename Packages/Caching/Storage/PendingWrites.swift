/// The entries a ``DiskCacheStorage`` keeps in memory until its writer has appended their
/// records: at most one version per name (a newer one replaces a version not taken yet), taken
/// by the writer in the order they came, bounded in bytes. A value without I/O; the storage
/// keeps it under its lock, beside the ``DiskCacheIndex``.
///
/// Every store gets a sequence number. A version the writer has taken stays until the writer
/// is done with it, so that reads still find it; when the writer comes back, only the latest
/// version of a name (``claim(_:sequence:)``) is put in place, and an older one is thrown away.
struct PendingWrites: Sendable {
    /// One version of an entry, waiting for the writer or being written.
    struct Write: Sendable {
        var entry: CacheEntry
        /// This version's number.
        var sequence: UInt64
        /// The number of the oldest store this write stands for (the versions it replaced
        /// before they were taken), which a flush waits for.
        var oldestSequence: UInt64
        /// What it holds in memory, counted against the bound.
        var size: Int
        /// Whether the writer has taken it.
        var isTaken = false
    }

    /// A version the writer has taken.
    struct Taken: Sendable {
        var name: EntryName
        var sequence: UInt64
        var entry: CacheEntry
    }

    /// What ``admit(_:as:bounded:)`` did.
    enum Admission: Equatable, Sendable {
        /// The entry waits for the writer; `startsWriter` when the writer was idle and must be
        /// started.
        case admitted(startsWriter: Bool)
        /// The bound is reached: nothing changed.
        case full
    }

    /// The most bytes of entries that wait for the writer (or one entry, whatever its size).
    static let maximumBytes = 8 << 20
    /// The most entries the writer takes at once.
    static let batchLimit = 64

    /// The latest version of each name not yet in place.
    private var writes: [EntryName: Write] = [:]
    /// Names whose version the writer has not taken, oldest first, from `queueStart` (a name may
    /// be there again after its version was taken or dropped; it is skipped then).
    private var queue: [EntryName] = []
    private var queueStart = 0
    /// The bytes of the versions not taken yet.
    private(set) var bytes = 0
    /// The most ``bytes`` has been.
    private(set) var largestBytes = 0
    /// The next store's number.
    private(set) var nextSequence: UInt64
    /// Whether the writer has work, or is finishing it.
    private(set) var isWriterRunning = false

    /// An empty table whose first store is numbered `firstSequence`.
    init(firstSequence: UInt64 = 1) {
        nextSequence = firstSequence
    }

    /// Whether nothing waits and nothing is being written.
    var isEmpty: Bool { writes.isEmpty }

    /// The latest version of `name`, waiting or being written.
    func write(_ name: EntryName) -> Write? { writes[name] }

    /// The number of the oldest store a waiting version stands for, if any.
    var oldestSequence: UInt64? { writes.values.lazy.map(\.oldestSequence).min() }

    /// Whether a version of `size` bytes may wait: always when nothing waits, so that one entry
    /// larger than the bound still goes.
    func hasRoom(for size: Int) -> Bool {
        bytes <= 0 || bytes + size <= Self.maximumBytes
    }

    /// Takes `entry` as the latest version of `name`, replacing a version not taken yet (which
    /// keeps its place in the queue).
    ///
    /// - Parameter bounded: Whether the bound applies; ``Admission/full`` when it is reached.
    mutating func admit(_ entry: CacheEntry, as name: EntryName, bounded: Bool) -> Admission {
        let size = entry.approximateSize
        let replaced = writes[name]
        let replacedSize = replaced.map { $0.isTaken ? 0 : $0.size } ?? 0
        if bounded, !hasRoom(for: size - replacedSize) { return .full }
        let sequence = nextSequence
        nextSequence += 1
        var write = Write(entry: entry, sequence: sequence, oldestSequence: sequence, size: size)
        if let replaced {
            write.oldestSequence = replaced.oldestSequence
            // A version being written is left to finish and found outdated; one not taken yet
            // gives up its place in the queue to this one.
            if replaced.isTaken { queue.append(name) } else { bytes -= replaced.size }
        } else {
            queue.append(name)
        }
        writes[name] = write
        bytes += size
        largestBytes = max(largestBytes, bytes)
        guard !isWriterRunning else { return .admitted(startsWriter: false) }
        isWriterRunning = true
        return .admitted(startsWriter: true)
    }

    /// Takes up to ``batchLimit`` waiting versions for the writer, oldest first; taken, they no
    /// longer count against the bound.
    mutating func takeBatch() -> [Taken] {
        var batch: [Taken] = []
        while batch.count < Self.batchLimit, queueStart < queue.count {
            let name = queue[queueStart]
            queueStart += 1
            guard var write = writes[name], !write.isTaken else { continue }
            write.isTaken = true
            bytes -= write.size
            writes[name] = write
            batch.append(Taken(name: name, sequence: write.sequence, entry: write.entry))
        }
        if queueStart > 1024, queueStart * 2 > queue.count {
            queue.removeFirst(queueStart)
            queueStart = 0
        }
        return batch
    }

    /// After a batch came back empty: the writer stops unless a store came in meanwhile.
    ///
    /// - Returns: Whether the writer stopped.
    mutating func writerFinishes() -> Bool {
        guard queueStart >= queue.count else { return false }
        isWriterRunning = false
        return true
    }

    /// Whether the writer's version `sequence` of `name` is the latest: then it leaves the table
    /// and is to be put in place; otherwise a newer store or a removal came meanwhile, and it
    /// is to be thrown away.
    mutating func claim(_ name: EntryName, sequence: UInt64) -> Bool {
        guard writes[name]?.sequence == sequence else { return false }
        writes[name] = nil
        return true
    }

    /// Forgets `name`'s version; one being written is then found outdated.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    mutating func drop(_ name: EntryName) -> Bool {
        guard let dropped = writes.removeValue(forKey: name) else { return false }
        if !dropped.isTaken { bytes -= dropped.size }
        return true
    }

    /// Forgets every version.
    ///
    /// - Returns: Their names.
    mutating func dropAll() -> [EntryName] {
        let names = Array(writes.keys)
        for name in names { drop(name) }
        return names
    }
}
