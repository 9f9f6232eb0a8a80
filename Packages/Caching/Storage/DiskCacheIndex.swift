/// What a ``DiskCacheStorage`` knows of its entry files: each one's size and the write that
/// made it, their order of use, their total size against the cap, and the counters. A value
/// without I/O: each change returns the actions that bring the directory and the journal into
/// line with it, which the storage carries out under the same lock, in order, so that the index
/// changes in the order the files do.
///
/// ```swift
/// var index = DiskCacheIndex(maximumBytes: 100)
/// index.installed([.init(name: a, size: 60, generation: 1), .init(name: b, size: 60, generation: 2)])
/// // [.appendJournal([.clean(a), .clean(b), .remove(a)]), .removeFile(a)]: over the cap, `a` goes
/// ```
///
/// The storage's other state, the writes waiting for its writer, is ``PendingWrites``.
struct DiskCacheIndex: Sendable {
    /// What the storage does to its directory and journal after a change of the index.
    enum Action: Hashable, Sendable, CustomStringConvertible {
        /// Delete the entry's file (one that is already gone is no error).
        case removeFile(EntryName)
        /// Append these lines to the journal, in one write.
        case appendJournal([CacheJournal.Record])
        /// Rewrite the journal as one `CLEAN` line per name, least recently used first; on
        /// success the storage calls ``DiskCacheIndex/journalCompacted(lineCount:)``.
        case compactJournal([EntryName])

        var description: String {
            switch self {
            case .removeFile(let name): "remove \(name)"
            case .appendJournal(let records): "append \(records.map(\.description).joined(separator: ", "))"
            case .compactJournal(let names): "compact to \(names.map(\.description).joined(separator: ", "))"
            }
        }
    }

    /// What the index knows of one entry file.
    struct Record: Hashable, Sendable {
        /// The file's size, counted against the cap.
        var size: Int
        /// Which write produced the file, so that a damaged read never removes a newer file.
        var generation: UInt64
    }

    /// A file the writer put in place.
    struct Installed: Hashable, Sendable {
        var name: EntryName
        var size: Int
        var generation: UInt64
    }

    /// A file found in the directory when the storage opens.
    struct Found: Hashable, Sendable {
        var name: EntryName
        var size: Int
        /// Its modification time, which orders the files the journal does not name.
        var modified: Double
    }

    /// The journal holds more lines than this, and more than twice the entries, before it is
    /// compacted.
    static let compactionThreshold = 2000

    /// The most bytes the entry files may take together.
    let maximumBytes: Int
    /// The entry files, in order of use.
    private var records = LRUDictionary<EntryName, Record>()
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

    /// The number of entry files.
    var count: Int { records.count }

    /// What the index knows of `name`'s file, leaving the order as it is.
    func record(_ name: EntryName) -> Record? { records.peek(name) }

    /// The names, least recently used first.
    var namesFromLeastRecent: [EntryName] { records.keysFromLeastRecent }

    // MARK: - Opening

    /// The index of a directory being opened: the files the journal names in the order it
    /// replays, then those it does not name (a crash between a rename and its line) as the
    /// least recently used, the most recently modified first among them; generations from
    /// `firstGeneration` on.
    ///
    /// - Returns: The index; the first generation it left free; and the actions: the journal
    ///   compacted to the order kept, then the files beyond the cap (it may have been lowered
    ///   since the last run) removed, least recently used first.
    static func opened(
        files: [Found], journalOrder: [EntryName], maximumBytes: Int, firstGeneration: UInt64 = 1
    ) -> (index: DiskCacheIndex, nextGeneration: UInt64, actions: [Action]) {
        var index = DiskCacheIndex(maximumBytes: maximumBytes)
        var generation = firstGeneration
        var found: [EntryName: Found] = [:]
        for file in files { found[file.name] = file }
        for name in journalOrder {
            guard let file = found[name] else { continue }
            index.records.set(Record(size: file.size, generation: generation), forKey: name)
            generation += 1
        }
        let unnamed = found.values.filter { !index.records.contains($0.name) }.sorted {
            ($0.modified, $0.name) > ($1.modified, $1.name)
        }
        for file in unnamed {
            index.records.insertAsLeastRecent(Record(size: file.size, generation: generation), forKey: file.name)
            generation += 1
        }
        index.totalBytes = found.values.reduce(0) { $0 + $1.size }
        var evicted: [Action] = []
        while index.totalBytes > index.maximumBytes, let victim = index.records.removeLeastRecent() {
            index.totalBytes -= victim.value.size
            index.evictions += 1
            evicted.append(.removeFile(victim.key))
        }
        return (index, generation, [.compactJournal(index.namesFromLeastRecent)] + evicted)
    }

    // MARK: - Reading

    /// `name`'s file was read whole: it becomes the most recently used.
    mutating func read(_ name: EntryName) -> [Action] {
        guard records.touch(name) != nil else { return [] }
        return journal([.read(name)])
    }

    /// `name`'s file, read because the index knew it from write `generation`, was missing:
    /// removed behind the storage's back. Forgotten, unless a newer write replaced it.
    mutating func readFoundNoFile(_ name: EntryName, generation: UInt64) -> [Action] {
        guard records.peek(name)?.generation == generation else { return [] }
        forget(name)
        return journal([.remove(name)])
    }

    /// `name`'s file, read because the index knew it from write `generation`, was damaged:
    /// removed and counted, unless a newer write replaced it meanwhile.
    mutating func readFoundDamage(_ name: EntryName, generation: UInt64) -> [Action] {
        guard records.peek(name)?.generation == generation else { return [] }
        corruptEntriesRemoved += 1
        return remove(name)
    }

    // MARK: - Writing

    /// The writer put these files in place (each replacing any older file of its name): they
    /// become the most recently used, in order, and the least recently used go beyond the cap.
    mutating func installed(_ files: [Installed]) -> [Action] {
        guard !files.isEmpty else { return [] }
        var lines: [CacheJournal.Record] = []
        for file in files {
            forget(file.name)
            records.set(Record(size: file.size, generation: file.generation), forKey: file.name)
            totalBytes += file.size
            lines.append(.clean(file.name))
        }
        var removals: [Action] = []
        while totalBytes > maximumBytes, let victim = records.removeLeastRecent() {
            totalBytes -= victim.value.size
            evictions += 1
            lines.append(.remove(victim.key))
            removals.append(.removeFile(victim.key))
        }
        // The journal first: a crash before the removals leaves files it calls removed, which the
        // next open keeps as the least recently used and evicts again.
        return journal(lines) + removals
    }

    /// A write of `name` failed: no older file of it may stay to be served as current, and the
    /// failure is counted.
    mutating func writeFailed(_ name: EntryName) -> [Action] {
        failedWrites += 1
        return remove(name)
    }

    /// A write of `name` failed after the storage closed: counted, nothing else.
    mutating func writeFailedWhileClosed(_ name: EntryName) {
        failedWrites += 1
    }

    // MARK: - Removing

    /// `name` is removed: its file goes (whether the index knew it or not), and the journal
    /// says so when the index knew it.
    mutating func remove(_ name: EntryName) -> [Action] {
        guard forget(name) else { return [.removeFile(name)] }
        return [.removeFile(name)] + journal([.remove(name)])
    }

    /// Every entry is removed: the journal is started again, then every file known goes.
    mutating func removeAll() -> [Action] {
        let names = records.keysFromLeastRecent
        records.removeAll()
        totalBytes = 0
        return [.compactJournal([])] + names.map(Action.removeFile)
    }

    /// The journal was rewritten with `lineCount` lines.
    mutating func journalCompacted(lineCount: Int) {
        journalLines = lineCount
    }

    // MARK: - Helpers

    /// Forgets `name`'s record.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    private mutating func forget(_ name: EntryName) -> Bool {
        guard let record = records.removeValue(forKey: name) else { return false }
        totalBytes -= record.size
        return true
    }

    /// `records` appended, and the journal compacted after them once it holds more than
    /// ``compactionThreshold`` lines and more than twice the entries.
    private mutating func journal(_ lines: [CacheJournal.Record]) -> [Action] {
        guard !lines.isEmpty else { return [] }
        journalLines += lines.count
        guard journalLines > Self.compactionThreshold, journalLines > 2 * records.count else {
            return [.appendJournal(lines)]
        }
        return [.appendJournal(lines), .compactJournal(records.keysFromLeastRecent)]
    }
}
