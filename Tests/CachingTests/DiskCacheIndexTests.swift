import Testing

@testable import Caching

/// The disk storage's index as tables of operations and the actions they return, without a
/// file: given some operations, when one more happens, then these actions, this order of use,
/// these bytes and counters.
///
/// Checked to fail without each rule: with eviction left out of `installed`, the rows "over the
/// cap …" fail; with the generation check of a damaged or missing read removed, the rows "… of
/// an older write leaves the newer file" fail; with `read` journaling names it does not know,
/// "a read of a name the index does not know does nothing" fails; with the compaction threshold
/// off by one, the journal rows fail.
@Suite struct DiskCacheIndexTests {
    /// What happens to the index.
    enum Operation: Sendable, CustomStringConvertible {
        /// The writer put these files in place: (name, size), generations numbered in order.
        case install([(String, Int)])
        case read(String)
        /// A read of the file the index knew from write `generation` found none.
        case readNoFile(String, generation: UInt64)
        /// A read of the file the index knew from write `generation` found it damaged.
        case readDamage(String, generation: UInt64)
        case writeFailed(String)
        case remove(String)
        case removeAll
        /// `count` reads of the name, one after another.
        case reads(String, count: Int)

        var description: String {
            switch self {
            case .install(let files): "install \(files.map { "\($0.0) (\($0.1) B)" }.joined(separator: ", "))"
            case .read(let name): "read \(name)"
            case .readNoFile(let name, let generation): "read \(name) of write \(generation), no file"
            case .readDamage(let name, let generation): "read \(name) of write \(generation), damaged"
            case .writeFailed(let name): "a write of \(name) failed"
            case .remove(let name): "remove \(name)"
            case .removeAll: "remove all"
            case .reads(let name, let count): "\(count) reads of \(name)"
            }
        }
    }

    /// One row: a cap, what happened before, what happens, and what must follow.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var cap = 100
        var given: [Operation] = []
        var when: Operation
        var then: [DiskCacheIndex.Action]
        /// The names in order of use, least recent first.
        var order: [String]
        var totalBytes: Int
        var evictions = 0
        var corrupt = 0
        var failed = 0

        var testDescription: String { name }
    }

    /// The name of a letter.
    static func n(_ letter: String) -> EntryName { EntryName(value: UInt64(letter.utf8.first ?? 0)) }

    static func clean(_ letters: String...) -> DiskCacheIndex.Action {
        .appendJournal(letters.map { .clean(n($0)) })
    }

    static let rows: [Row] = [
        Row(
            name: "an installed file becomes the most recently used, and the journal says so",
            when: .install([("a", 10)]), then: [clean("a")], order: ["a"], totalBytes: 10),
        Row(
            name: "a batch is journaled in one append, in order",
            when: .install([("a", 10), ("b", 20)]), then: [clean("a", "b")], order: ["a", "b"], totalBytes: 30),
        Row(
            name: "a file installed again counts its new size, once",
            given: [.install([("a", 10), ("b", 10)])], when: .install([("a", 30)]),
            then: [clean("a")], order: ["b", "a"], totalBytes: 40),
        Row(
            name: "over the cap the least recently used goes, after the journal says so",
            cap: 25, given: [.install([("a", 10), ("b", 10)])], when: .install([("c", 10)]),
            then: [.appendJournal([.clean(n("c")), .remove(n("a"))]), .removeFile(n("a"))], order: ["b", "c"],
            totalBytes: 20, evictions: 1),
        Row(
            name: "over the cap a read entry stays and the next least recently used goes",
            cap: 25, given: [.install([("a", 10), ("b", 10)]), .read("a")], when: .install([("c", 10)]),
            then: [.appendJournal([.clean(n("c")), .remove(n("b"))]), .removeFile(n("b"))], order: ["a", "c"],
            totalBytes: 20, evictions: 1),
        Row(
            name: "over the cap several go at once",
            cap: 25, given: [.install([("a", 10), ("b", 10)])], when: .install([("c", 20)]),
            then: [
                .appendJournal([.clean(n("c")), .remove(n("a")), .remove(n("b"))]), .removeFile(n("a")),
                .removeFile(n("b")),
            ], order: ["c"], totalBytes: 20, evictions: 2),
        Row(
            name: "a file larger than the whole cap goes at once",
            cap: 5, when: .install([("a", 10)]),
            then: [.appendJournal([.clean(n("a")), .remove(n("a"))]), .removeFile(n("a"))], order: [],
            totalBytes: 0, evictions: 1),
        Row(
            name: "a read makes the file the most recently used",
            given: [.install([("a", 10), ("b", 10)])], when: .read("a"),
            then: [.appendJournal([.read(n("a"))])], order: ["b", "a"], totalBytes: 20),
        Row(
            name: "a read of a name the index does not know does nothing",
            given: [.install([("a", 10)])], when: .read("z"), then: [], order: ["a"], totalBytes: 10),
        Row(
            name: "a missing file is forgotten when the index knew that write",
            given: [.install([("a", 10)])], when: .readNoFile("a", generation: 1),
            then: [.appendJournal([.remove(n("a"))])], order: [], totalBytes: 0),
        Row(
            name: "a missing file of an older write leaves the newer file",
            given: [.install([("a", 10)]), .install([("a", 12)])], when: .readNoFile("a", generation: 1),
            then: [], order: ["a"], totalBytes: 12),
        Row(
            name: "a damaged file is removed, journaled and counted",
            given: [.install([("a", 10), ("b", 10)])], when: .readDamage("a", generation: 1),
            then: [.removeFile(n("a")), .appendJournal([.remove(n("a"))])], order: ["b"], totalBytes: 10,
            corrupt: 1),
        Row(
            name: "a damaged file of an older write leaves the newer file",
            given: [.install([("a", 10)]), .install([("a", 12)])], when: .readDamage("a", generation: 1),
            then: [], order: ["a"], totalBytes: 12),
        Row(
            name: "a failed write removes the older file and is counted",
            given: [.install([("a", 10)])], when: .writeFailed("a"),
            then: [.removeFile(n("a")), .appendJournal([.remove(n("a"))])], order: [], totalBytes: 0, failed: 1),
        Row(
            name: "a failed write of a name never stored deletes a stray file only",
            when: .writeFailed("z"), then: [.removeFile(n("z"))], order: [], totalBytes: 0, failed: 1),
        Row(
            name: "a known name is removed from the disk and the journal",
            given: [.install([("a", 10), ("b", 5)])], when: .remove("a"),
            then: [.removeFile(n("a")), .appendJournal([.remove(n("a"))])], order: ["b"], totalBytes: 5),
        Row(
            name: "an unknown name still deletes a file that may be there, without a journal line",
            when: .remove("z"), then: [.removeFile(n("z"))], order: [], totalBytes: 0),
        Row(
            name: "removing everything starts the journal again, then deletes each file, least recent first",
            given: [.install([("a", 10), ("b", 10)]), .read("a")], when: .removeAll,
            then: [.compactJournal([]), .removeFile(n("b")), .removeFile(n("a"))], order: [], totalBytes: 0),
        Row(
            name: "the journal is compacted once it holds more than 2,000 lines and twice the entries",
            given: [.install([("a", 10), ("b", 10)]), .reads("a", count: 1998)], when: .read("b"),
            then: [.appendJournal([.read(n("b"))]), .compactJournal([n("a"), n("b")])], order: ["a", "b"],
            totalBytes: 20),
        Row(
            name: "the journal is not compacted at 2,000 lines",
            given: [.install([("a", 10), ("b", 10)]), .reads("a", count: 1996)], when: .read("b"),
            then: [.appendJournal([.read(n("b"))])], order: ["a", "b"], totalBytes: 20),
        Row(
            name: "a compacted journal counts its lines again from the entries",
            given: [.install([("a", 10), ("b", 10)]), .reads("a", count: 1998), .read("b")], when: .read("a"),
            then: [.appendJournal([.read(n("a"))])], order: ["b", "a"], totalBytes: 20),
    ]

    @Test(arguments: rows)
    func anOperationReturnsItsActions(row: Row) {
        var index = DiskCacheIndex(maximumBytes: row.cap)
        var generation: UInt64 = 1
        for operation in row.given { _ = Self.apply(operation, to: &index, generation: &generation) }
        let actions = Self.apply(row.when, to: &index, generation: &generation)
        #expect(actions == row.then)
        #expect(index.namesFromLeastRecent == row.order.map(Self.n))
        #expect(index.count == row.order.count)
        #expect(index.totalBytes == row.totalBytes)
        #expect(index.evictions == row.evictions)
        #expect(index.corruptEntriesRemoved == row.corrupt)
        #expect(index.failedWrites == row.failed)
    }

    /// Applies an operation as the storage does, compaction's report included.
    static func apply(_ operation: Operation, to index: inout DiskCacheIndex, generation: inout UInt64)
        -> [DiskCacheIndex.Action]
    {
        var actions: [DiskCacheIndex.Action]
        switch operation {
        case .install(let files):
            actions = index.installed(
                files.map { file in
                    defer { generation += 1 }
                    return .init(name: n(file.0), size: file.1, generation: generation)
                })
        case .read(let name): actions = index.read(n(name))
        case .readNoFile(let name, let written): actions = index.readFoundNoFile(n(name), generation: written)
        case .readDamage(let name, let written): actions = index.readFoundDamage(n(name), generation: written)
        case .writeFailed(let name): actions = index.writeFailed(n(name))
        case .remove(let name): actions = index.remove(n(name))
        case .removeAll: actions = index.removeAll()
        case .reads(let name, let count):
            actions = []
            for _ in 0..<count { actions += index.read(n(name)) }
        }
        for case .compactJournal(let names) in actions { index.journalCompacted(lineCount: names.count) }
        return actions
    }

    // MARK: - Opening

    /// One directory being opened: its files (name, size, modification time), the order its
    /// journal replays, a cap, and what the index must make of them.
    struct Opening: Sendable, CustomTestStringConvertible {
        var name: String
        var files: [(String, Int, Double)]
        var journal: [String]
        var cap = 100
        var order: [String]
        var then: [DiskCacheIndex.Action]
        var evictions = 0

        var testDescription: String { name }
    }

    static let openings: [Opening] = [
        Opening(
            name: "the journal's order is kept", files: [("a", 10, 1), ("b", 10, 2), ("c", 10, 3)],
            journal: ["c", "a", "b"], order: ["c", "a", "b"], then: [.compactJournal([n("c"), n("a"), n("b")])]),
        Opening(
            name: "files the journal does not name are the least recently used, the oldest first",
            files: [("a", 10, 5), ("b", 10, 1), ("c", 10, 3)], journal: ["a"], order: ["b", "c", "a"],
            then: [.compactJournal([n("b"), n("c"), n("a")])]),
        Opening(
            name: "names without a file are dropped", files: [("a", 10, 1)], journal: ["z", "a", "y"], order: ["a"],
            then: [.compactJournal([n("a")])]),
        Opening(
            name: "an empty directory compacts an empty journal", files: [], journal: ["a"], order: [],
            then: [.compactJournal([])]),
        Opening(
            name: "beyond a lowered cap the least recently used go, after the journal is compacted without them",
            files: [("a", 10, 1), ("b", 10, 2), ("c", 10, 3)], journal: ["a", "b", "c"], cap: 25, order: ["b", "c"],
            then: [.compactJournal([n("b"), n("c")]), .removeFile(n("a"))], evictions: 1),
    ]

    @Test(arguments: openings)
    func anOpenedDirectoryIsOrderedAndTrimmed(opening: Opening) {
        let opened = DiskCacheIndex.opened(
            files: opening.files.map { .init(name: Self.n($0.0), size: $0.1, modified: $0.2) },
            journalOrder: opening.journal.map(Self.n), maximumBytes: opening.cap, firstGeneration: 7)
        #expect(opened.actions == opening.then)
        #expect(opened.index.namesFromLeastRecent == opening.order.map(Self.n))
        #expect(opened.index.totalBytes == opening.order.count * 10)
        #expect(opened.index.evictions == opening.evictions)
        // Every file found took a generation, in the journal's order first.
        #expect(opened.nextGeneration == 7 + UInt64(opening.files.count))
        if let first = opening.order.first, opening.journal.first == first {
            #expect(opened.index.record(Self.n(first))?.generation == 7)
        }
    }
}
