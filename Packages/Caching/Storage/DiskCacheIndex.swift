/// What a ``DiskCacheStorage`` knows of its records: where each entry's record lies and the
/// write that made it, their order of use, how much of each segment is still in use, their
/// total size against the cap, and the counters. A value without I/O: each change returns the
/// actions that bring the directory and the journal into line with it, which the storage
/// carries out under the same lock, in order, so that the index changes in the order the files
/// do.
///
/// ```swift
/// var index = DiskCacheIndex(maximumBytes: 100)
/// index.installed([.init(name: a, location: at(1, 0, 60), generation: 1),
///                  .init(name: b, location: at(1, 60, 60), generation: 2)], segmentEnd: (1, 120))
/// // [.appendJournal([.clean(a, …), .clean(b, …), .remove(a)])]: over the cap, `a` goes; its
/// // bytes stay in segment 1, which is still being written
/// ```
///
/// A segment is deleted once none of its records is in use and it is no longer the one being
/// appended to; one that has fallen below half in use is compacted: the storage copies its live
/// records forward and reports them with ``moved(_:from:segmentEnd:)``.
///
/// The storage's other state, the writes waiting for its writer, is ``PendingWrites``.
struct DiskCacheIndex: Sendable {
    /// What the storage does to its directory and journal after a change of the index.
    enum Action: Hashable, Sendable, CustomStringConvertible {
        /// Delete the segment's file (one that is already gone is no error).
        case removeSegment(UInt64)
        /// Append these lines to the journal, in one write.
        case appendJournal([CacheJournal.Record])
        /// Rewrite the journal as one `CLEAN` line per entry, least recently used first; on
        /// success the storage calls ``DiskCacheIndex/journalCompacted(lineCount:)``.
        case compactJournal([Entry])
        /// Copy the segment's records in use forward, then report them with
        /// ``DiskCacheIndex/moved(_:from:segmentEnd:)``.
        case compactSegment(UInt64)

        var description: String {
            switch self {
            case .removeSegment(let number): "remove segment \(number)"
            case .appendJournal(let records): "append \(records.map(\.description).joined(separator: ", "))"
            case .compactJournal(let entries): "compact to \(entries.map(\.description).joined(separator: ", "))"
            case .compactSegment(let number): "compact segment \(number)"
            }
        }
    }

    /// An entry's name and where its record lies.
    struct Entry: Hashable, Sendable, CustomStringConvertible {
        var name: EntryName
        var location: RecordLocation

        var description: String { "\(name) at \(location)" }
    }

    /// What the index knows of one entry's record.
    struct Record: Hashable, Sendable {
        /// Where it lies; its length is counted against the cap.
        var location: RecordLocation
        /// Which write produced it, so that a damaged read never removes a newer record.
        var generation: UInt64
    }

    /// A record the writer appended (or compaction copied).
    struct Installed: Hashable, Sendable {
        var name: EntryName
        var location: RecordLocation
        var generation: UInt64
    }

    /// What is known of one segment.
    struct Segment: Hashable, Sendable {
        /// The bytes of its records in use.
        var liveBytes = 0
        /// The number of its records in use.
        var liveCount = 0
        /// Its length: records in use, records no longer in use, and whatever a crash left.
        var end = 0
        /// Whether its compaction was asked for and has not been reported yet.
        var isCompacting = false
    }

    /// A segment found in the directory when the storage opens.
    struct FoundSegment: Hashable, Sendable {
        var number: UInt64
        var size: Int
    }

    /// The journal holds more lines than this, and more than twice the entries, before it is
    /// compacted.
    static let compactionThreshold = 2000

    /// The most bytes the records in use may take together.
    let maximumBytes: Int
    /// The records, in order of use.
    private var records = LRUDictionary<EntryName, Record>()
    /// The segments holding them, and the one being appended to.
    private(set) var segments: [UInt64: Segment] = [:]
    /// The segment the writer appends to, which is never deleted or compacted.
    private(set) var activeSegment: UInt64?
    /// Their total size.
    private(set) var totalBytes = 0
    /// Entries removed to stay within the cap.
    private(set) var evictions = 0
    /// Entries found damaged and removed.
    private(set) var corruptEntriesRemoved = 0
    /// Writes that failed.
    private(set) var failedWrites = 0
    /// The lines the journal holds, its header excepted.
    private(set) var journalLines = 0

    /// An empty index.
    init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The number of entries.
    var count: Int { records.count }

    /// What the index knows of `name`'s record, leaving the order as it is.
    func record(_ name: EntryName) -> Record? { records.peek(name) }

    /// The entries, least recently used first, as a compacted journal lists them.
    var entriesFromLeastRecent: [Entry] {
        records.entriesFromLeastRecent.map { Entry(name: $0.key, location: $0.value.location) }
    }

    /// The records in use in `segment`, for its compaction: a walk over every record, which a
    /// compaction (after half a segment's records went) pays for.
    func liveRecords(in segment: UInt64) -> [Installed] {
        records.entriesFromLeastRecent.compactMap { entry in
            guard entry.value.location.segment == segment else { return nil }
            return Installed(name: entry.key, location: entry.value.location, generation: entry.value.generation)
        }
    }

    // MARK: - Opening

    /// The index of a directory being opened: the records the journal names, where their
    /// segments are long enough to hold them, in the order it replays; then the records a
    /// scan of the segments found (when the journal was lost), each replacing an older record
    /// of its name or, for a name the journal does not have, as the least recently used;
    /// generations from `firstGeneration` on.
    ///
    /// - Parameters:
    ///   - segments: The segment files found, with their sizes.
    ///   - journal: The journal's entries, least recently used first.
    ///   - found: Records a scan found, in the order they were written.
    /// - Returns: The index; the first generation it left free; and the actions: the journal
    ///   compacted to what is kept, the segments nothing is kept from removed, the records
    ///   beyond the cap (it may have been lowered since the last run) evicted, least recently
    ///   used first, and the segments below half in use compacted.
    static func opened(
        segments: [FoundSegment], journal: [Entry], found: [Entry], maximumBytes: Int, firstGeneration: UInt64 = 1
    ) -> (index: DiskCacheIndex, nextGeneration: UInt64, actions: [Action]) {
        var index = DiskCacheIndex(maximumBytes: maximumBytes)
        var generation = firstGeneration
        var sizes: [UInt64: Int] = [:]
        for segment in segments {
            sizes[segment.number] = segment.size
            index.segments[segment.number] = Segment(end: segment.size)
        }
        func isWhole(_ location: RecordLocation) -> Bool {
            sizes[location.segment].map { location.end <= $0 } ?? false
        }
        for entry in journal where isWhole(entry.location) {
            index.records.set(Record(location: entry.location, generation: generation), forKey: entry.name)
            generation += 1
        }
        for entry in found.reversed() where isWhole(entry.location) {
            let record = Record(location: entry.location, generation: generation)
            generation += 1
            if let known = index.records.peek(entry.name) {
                if known.location < entry.location { index.records.replaceValue(record, forKey: entry.name) }
            } else {
                index.records.insertAsLeastRecent(record, forKey: entry.name)
            }
        }
        for entry in index.records.entriesFromLeastRecent { index.hold(entry.value.location) }
        while index.totalBytes > index.maximumBytes, let victim = index.records.removeLeastRecent() {
            index.evictions += 1
            index.release(victim.value.location)
        }
        var actions: [Action] = [.compactJournal(index.entriesFromLeastRecent)]
        for number in index.segments.keys.sorted() { actions += index.settle(number) }
        return (index, generation, actions)
    }

    // MARK: - Reading

    /// `name`'s record was read whole: it becomes the most recently used.
    mutating func read(_ name: EntryName) -> [Action] {
        guard records.touch(name) != nil else { return [] }
        return journal([.read(name)])
    }

    /// `name`'s segment, read because the index knew `record` of it, was missing: removed
    /// behind the storage's back. Forgotten, unless a newer write replaced the record or
    /// compaction moved it meanwhile (and deleted the segment read).
    mutating func readFoundNoFile(_ name: EntryName, record: Record) -> [Action] {
        guard records.peek(name) == record else { return [] }
        return remove(name)
    }

    /// `name`'s record, read because the index knew `record` of it, was damaged: forgotten and
    /// counted, unless a newer write replaced it or compaction moved it meanwhile.
    mutating func readFoundDamage(_ name: EntryName, record: Record) -> [Action] {
        guard records.peek(name) == record else { return [] }
        corruptEntriesRemoved += 1
        return remove(name)
    }

    // MARK: - Writing

    /// The writer appended these records (each replacing any older record of its name), and
    /// the segment it appends to now ends at `segmentEnd`: they become the most recently used,
    /// in order, and the least recently used go beyond the cap.
    mutating func installed(_ installed: [Installed], segmentEnd: (segment: UInt64, end: Int)?) -> [Action] {
        var actions = segmentEnd.map { appended(to: $0) } ?? []
        guard !installed.isEmpty else { return actions }
        var lines: [CacheJournal.Record] = []
        var touched: Set<UInt64> = []
        for item in installed {
            if let old = records.removeValue(forKey: item.name) {
                release(old.location)
                touched.insert(old.location.segment)
            }
            records.set(Record(location: item.location, generation: item.generation), forKey: item.name)
            hold(item.location)
            lines.append(.clean(item.name, item.location))
        }
        while totalBytes > maximumBytes, let victim = records.removeLeastRecent() {
            evictions += 1
            release(victim.value.location)
            touched.insert(victim.value.location.segment)
            lines.append(.remove(victim.key))
        }
        // The journal first: a crash before a segment goes leaves a segment it names nothing
        // in, which the next open removes.
        actions += journal(lines)
        for number in touched.sorted() { actions += settle(number) }
        return actions
    }

    /// Compaction copied these records out of `source`, and the segment it appends to now
    /// ends at `segmentEnd`. Each copy whose name still has the record it was copied from (the
    /// same write) takes its place, keeping its place in the order; a copy whose name was
    /// written again or removed meanwhile is left unused. Then `source` goes when nothing in it
    /// is in use any more; it is never compacted twice.
    mutating func moved(_ copies: [Installed], from source: UInt64, segmentEnd: (segment: UInt64, end: Int)?)
        -> [Action]
    {
        let actions = segmentEnd.map { appended(to: $0) } ?? []
        var lines: [CacheJournal.Record] = []
        for copy in copies {
            guard let old = records.peek(copy.name), old.generation == copy.generation,
                old.location.segment == source
            else { continue }
            records.replaceValue(Record(location: copy.location, generation: copy.generation), forKey: copy.name)
            release(old.location)
            hold(copy.location)
            lines.append(.moved(copy.name, copy.location))
        }
        // The source stays marked as compacting: a copy that could not be written (a full disk)
        // is not tried again and again; the source goes once its last record does.
        // The lines first: a crash before the source goes leaves both copies, and the journal
        // names the new one.
        return actions + journal(lines) + settle(source)
    }

    /// A write of `name` failed: no older record of it may stay to be served as current, and
    /// the failure is counted.
    mutating func writeFailed(_ name: EntryName) -> [Action] {
        failedWrites += 1
        return remove(name)
    }

    /// A write of `name` failed after the storage closed: counted, nothing else.
    mutating func writeFailedWhileClosed(_ name: EntryName) {
        failedWrites += 1
    }

    // MARK: - Removing

    /// `name` is removed: forgotten, and the journal says so when the index knew it. Its bytes
    /// stay in their segment until the segment is compacted or removed.
    mutating func remove(_ name: EntryName) -> [Action] {
        guard let old = records.removeValue(forKey: name) else { return [] }
        release(old.location)
        return journal([.remove(name)]) + settle(old.location.segment)
    }

    /// Every entry is removed: the journal is started again, then every segment goes, the one
    /// being appended to as well (the storage starts a new one).
    mutating func removeAll() -> [Action] {
        let numbers = Set(segments.keys).union(activeSegment.map { [$0] } ?? []).sorted()
        records.removeAll()
        segments.removeAll()
        activeSegment = nil
        totalBytes = 0
        return [.compactJournal([])] + numbers.map(Action.removeSegment)
    }

    /// The journal was rewritten with `lineCount` lines.
    mutating func journalCompacted(lineCount: Int) {
        journalLines = lineCount
    }

    /// Rewriting the journal failed: it is asked for again only after as many lines as a
    /// rewrite would have left, not on every line.
    mutating func journalCompactionFailed() {
        journalLines = records.count
    }

    // MARK: - Helpers

    /// The writer's segment now ends at `end`; when it is a new one, the one before it is no
    /// longer appended to and is settled.
    private mutating func appended(to segmentEnd: (segment: UInt64, end: Int)) -> [Action] {
        let end = max(segments[segmentEnd.segment]?.end ?? 0, segmentEnd.end)
        segments[segmentEnd.segment, default: Segment()].end = end
        guard activeSegment != segmentEnd.segment else { return [] }
        let sealed = activeSegment
        activeSegment = segmentEnd.segment
        return sealed.map { settle($0) } ?? []
    }

    /// Counts a record in use in its segment and against the cap.
    private mutating func hold(_ location: RecordLocation) {
        var segment = segments[location.segment] ?? Segment()
        segment.liveBytes += location.length
        segment.liveCount += 1
        segment.end = max(segment.end, location.end)
        segments[location.segment] = segment
        totalBytes += location.length
    }

    /// Stops counting a record.
    private mutating func release(_ location: RecordLocation) {
        segments[location.segment]?.liveBytes -= location.length
        segments[location.segment]?.liveCount -= 1
        totalBytes -= location.length
    }

    /// What `number` needs, unless the writer appends to it: removing once nothing in it is in
    /// use, compacting once less than half of it is.
    private mutating func settle(_ number: UInt64) -> [Action] {
        guard number != activeSegment, let segment = segments[number] else { return [] }
        if segment.liveCount <= 0 {
            segments[number] = nil
            return [.removeSegment(number)]
        }
        guard !segment.isCompacting, segment.liveBytes * 2 < segment.end else { return [] }
        segments[number]?.isCompacting = true
        return [.compactSegment(number)]
    }

    /// `lines` appended, and the journal compacted after them once it holds more than
    /// ``compactionThreshold`` lines and more than twice the entries.
    private mutating func journal(_ lines: [CacheJournal.Record]) -> [Action] {
        guard !lines.isEmpty else { return [] }
        journalLines += lines.count
        guard journalLines > Self.compactionThreshold, journalLines > 2 * records.count else {
            return [.appendJournal(lines)]
        }
        return [.appendJournal(lines), .compactJournal(entriesFromLeastRecent)]
    }
}
