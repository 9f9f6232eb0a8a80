import Testing

@testable import Caching

/// The disk storage's index as tables of operations and the actions they return, without a
/// file: given some operations, when one more happens, then these actions, this order of use,
/// these bytes and counters.
///
/// Records are appended as the writer appends them: one after another in segment 1, and in the
/// next segment after `.startSegment`.
///
/// Checked to fail without each rule: with eviction left out of `installed`, the rows "over the
/// cap …" fail; with the record check of a damaged or missing read removed, the rows "… of an
/// older write leaves the newer record" fail; with `read` journaling names it does not know,
/// "a read of a name the index does not know does nothing" fails; with the compaction threshold
/// off by one, the journal rows fail; with a segment being written removed or compacted, the
/// rows about segments fail.
@Suite struct DiskCacheIndexTests {
    /// What happens to the index.
    enum Operation: Sendable, CustomStringConvertible {
        /// The writer appended these records: (name, size), generations numbered in order.
        case install([(String, Int)])
        /// The writer starts the next segment; the next install goes there.
        case startSegment
        case read(String)
        /// A read of the record the index knew from write `generation` found no segment.
        case readNoFile(String, generation: UInt64)
        /// A read of the record the index knew from write `generation` found it damaged.
        case readDamage(String, generation: UInt64)
        case writeFailed(String)
        case remove(String)
        case removeAll
        /// `count` reads of the name, one after another.
        case reads(String, count: Int)
        /// Compaction copies the segment's records in use to the segment being written, while
        /// `meanwhile` happens, then reports the copies.
        case compact(UInt64, meanwhile: Meanwhile = .nothing)

        var description: String {
            switch self {
            case .install(let files): "install \(files.map { "\($0.0) (\($0.1) B)" }.joined(separator: ", "))"
            case .startSegment: "start a segment"
            case .read(let name): "read \(name)"
            case .readNoFile(let name, let generation): "read \(name) of write \(generation), no segment"
            case .readDamage(let name, let generation): "read \(name) of write \(generation), damaged"
            case .writeFailed(let name): "a write of \(name) failed"
            case .remove(let name): "remove \(name)"
            case .removeAll: "remove all"
            case .reads(let name, let count): "\(count) reads of \(name)"
            case .compact(let number, .nothing): "compact segment \(number)"
            case .compact(let number, .stored(let name, let size)):
                "compact segment \(number), \(name) (\(size) B) installed meanwhile"
            case .compact(let number, .removed(let name)): "compact segment \(number), \(name) removed meanwhile"
            }
        }
    }

    /// What happens while compaction copies a segment's records (not an `Operation`, so that
    /// the operations need no indirect box).
    enum Meanwhile: Sendable {
        case nothing
        /// One more record of the name is installed.
        case stored(String, Int)
        /// The name is removed.
        case removed(String)
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

    /// A location.
    static func at(_ segment: UInt64, _ offset: Int, _ length: Int) -> RecordLocation {
        RecordLocation(segment: segment, offset: offset, length: length)
    }

    /// The journal lines of records appended, each (letter, segment, offset, length).
    static func clean(_ records: (String, UInt64, Int, Int)...) -> DiskCacheIndex.Action {
        .appendJournal(records.map { .clean(n($0.0), at($0.1, $0.2, $0.3)) })
    }

    static func entry(_ letter: String, _ location: RecordLocation) -> DiskCacheIndex.Entry {
        .init(name: n(letter), location: location)
    }

    /// Three records in segment 1 (a read first of them), then `d` in segment 2.
    static let twoSegments: [Operation] = [
        .install([("a", 10), ("b", 10), ("c", 10)]), .read("a"), .startSegment, .install([("d", 10)]),
    ]

    static let rows: [Row] = [
        Row(
            name: "an installed record becomes the most recently used, and the journal says so",
            when: .install([("a", 10)]), then: [clean(("a", 1, 0, 10))], order: ["a"], totalBytes: 10),
        Row(
            name: "a batch is journaled in one append, in order",
            when: .install([("a", 10), ("b", 20)]), then: [clean(("a", 1, 0, 10), ("b", 1, 10, 20))],
            order: ["a", "b"], totalBytes: 30),
        Row(
            name: "a record installed again counts its new size, once",
            given: [.install([("a", 10), ("b", 10)])], when: .install([("a", 30)]),
            then: [clean(("a", 1, 20, 30))], order: ["b", "a"], totalBytes: 40),
        Row(
            name: "over the cap the least recently used goes, after the journal says so",
            cap: 25, given: [.install([("a", 10), ("b", 10)])], when: .install([("c", 10)]),
            then: [.appendJournal([.clean(n("c"), at(1, 20, 10)), .remove(n("a"))])], order: ["b", "c"],
            totalBytes: 20, evictions: 1),
        Row(
            name: "over the cap a read entry stays and the next least recently used goes",
            cap: 25, given: [.install([("a", 10), ("b", 10)]), .read("a")], when: .install([("c", 10)]),
            then: [.appendJournal([.clean(n("c"), at(1, 20, 10)), .remove(n("b"))])], order: ["a", "c"],
            totalBytes: 20, evictions: 1),
        Row(
            name: "over the cap several go at once",
            cap: 25, given: [.install([("a", 10), ("b", 10)])], when: .install([("c", 20)]),
            then: [.appendJournal([.clean(n("c"), at(1, 20, 20)), .remove(n("a")), .remove(n("b"))])],
            order: ["c"], totalBytes: 20, evictions: 2),
        Row(
            name: "a record larger than the whole cap goes at once",
            cap: 5, when: .install([("a", 10)]),
            then: [.appendJournal([.clean(n("a"), at(1, 0, 10)), .remove(n("a"))])], order: [], totalBytes: 0,
            evictions: 1),
        Row(
            name: "a read makes the record the most recently used",
            given: [.install([("a", 10), ("b", 10)])], when: .read("a"),
            then: [.appendJournal([.read(n("a"))])], order: ["b", "a"], totalBytes: 20),
        Row(
            name: "a read of a name the index does not know does nothing",
            given: [.install([("a", 10)])], when: .read("z"), then: [], order: ["a"], totalBytes: 10),
        Row(
            name: "a missing segment is forgotten when the index knew that record",
            given: [.install([("a", 10)])], when: .readNoFile("a", generation: 1),
            then: [.appendJournal([.remove(n("a"))])], order: [], totalBytes: 0),
        Row(
            name: "a missing segment of an older write leaves the newer record",
            given: [.install([("a", 10)]), .install([("a", 12)])], when: .readNoFile("a", generation: 1),
            then: [], order: ["a"], totalBytes: 12),
        Row(
            name: "a damaged record is forgotten, journaled and counted",
            given: [.install([("a", 10), ("b", 10)])], when: .readDamage("a", generation: 1),
            then: [.appendJournal([.remove(n("a"))])], order: ["b"], totalBytes: 10, corrupt: 1),
        Row(
            name: "a damaged record of an older write leaves the newer record",
            given: [.install([("a", 10)]), .install([("a", 12)])], when: .readDamage("a", generation: 1),
            then: [], order: ["a"], totalBytes: 12),
        Row(
            name: "a damaged record that compaction moved meanwhile is left where it went",
            given: twoSegments + [.remove("b"), .remove("c"), .compact(1)],
            when: .readDamage("a", generation: 1), then: [], order: ["a", "d"], totalBytes: 20),
        Row(
            name: "a failed write removes the older record and is counted",
            given: [.install([("a", 10)])], when: .writeFailed("a"),
            then: [.appendJournal([.remove(n("a"))])], order: [], totalBytes: 0, failed: 1),
        Row(
            name: "a failed write of a name never stored is counted only",
            when: .writeFailed("z"), then: [], order: [], totalBytes: 0, failed: 1),
        Row(
            name: "a known name is removed from the journal; its bytes stay in the segment being written",
            given: [.install([("a", 10), ("b", 5)])], when: .remove("a"),
            then: [.appendJournal([.remove(n("a"))])], order: ["b"], totalBytes: 5),
        Row(
            name: "an unknown name is removed without a journal line",
            when: .remove("z"), then: [], order: [], totalBytes: 0),
        Row(
            name: "removing everything starts the journal again, then deletes every segment",
            given: twoSegments, when: .removeAll,
            then: [.compactJournal([]), .removeSegment(1), .removeSegment(2)], order: [], totalBytes: 0),
        Row(
            name: "a segment no longer written is removed when its last record goes",
            given: [.install([("a", 10)]), .startSegment, .install([("b", 10)])], when: .remove("a"),
            then: [.appendJournal([.remove(n("a"))]), .removeSegment(1)], order: ["b"], totalBytes: 10),
        Row(
            name: "a segment with nothing in use is removed as soon as the writer leaves it",
            given: [.install([("a", 10)]), .remove("a"), .startSegment], when: .install([("b", 10)]),
            then: [.removeSegment(1), clean(("b", 2, 0, 10))], order: ["b"], totalBytes: 10),
        Row(
            name: "a segment no longer written stays while half of it is in use",
            given: twoSegments, when: .remove("b"),
            then: [.appendJournal([.remove(n("b"))])], order: ["c", "a", "d"], totalBytes: 30),
        Row(
            name: "a segment no longer written is compacted below half in use",
            given: twoSegments + [.remove("b")], when: .remove("c"),
            then: [.appendJournal([.remove(n("c"))]), .compactSegment(1)], order: ["a", "d"], totalBytes: 20),
        Row(
            name: "a segment being written is neither removed nor compacted",
            given: [.install([("a", 10), ("b", 10), ("c", 10)]), .remove("a")], when: .remove("b"),
            then: [.appendJournal([.remove(n("b"))])], order: ["c"], totalBytes: 10),
        Row(
            name: "compaction's copies take their records' places in the order, then the segment goes",
            given: twoSegments + [.remove("b"), .remove("c")], when: .compact(1),
            then: [.appendJournal([.moved(n("a"), at(2, 10, 10))]), .removeSegment(1)], order: ["a", "d"],
            totalBytes: 20),
        Row(
            name: "a copy of a name written again meanwhile is left unused",
            given: twoSegments + [.remove("b"), .remove("c")], when: .compact(1, meanwhile: .stored("a", 12)),
            then: [], order: ["d", "a"], totalBytes: 22),
        Row(
            name: "a copy of a name removed meanwhile is left unused",
            given: twoSegments + [.remove("b"), .remove("c")], when: .compact(1, meanwhile: .removed("a")),
            then: [], order: ["d"], totalBytes: 10),
        Row(
            name: "the journal is compacted once it holds more than 2,000 lines and twice the entries",
            given: [.install([("a", 10), ("b", 10)]), .reads("a", count: 1998)], when: .read("b"),
            then: [
                .appendJournal([.read(n("b"))]),
                .compactJournal([entry("a", at(1, 0, 10)), entry("b", at(1, 10, 10))]),
            ], order: ["a", "b"], totalBytes: 20),
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
        var writer = Writer(index: DiskCacheIndex(maximumBytes: row.cap))
        for operation in row.given { _ = writer.apply(operation) }
        let actions = writer.apply(row.when)
        #expect(actions == row.then)
        let index = writer.index
        #expect(index.entriesFromLeastRecent.map(\.name) == row.order.map(Self.n))
        #expect(index.count == row.order.count)
        #expect(index.totalBytes == row.totalBytes)
        #expect(index.evictions == row.evictions)
        #expect(index.corruptEntriesRemoved == row.corrupt)
        #expect(index.failedWrites == row.failed)
        // What the segments count in use matches the records, every record's segment is
        // known, and no segment holding a record is removed.
        let live = Dictionary(grouping: index.entriesFromLeastRecent, by: \.location.segment)
        for (number, segment) in index.segments {
            #expect(segment.liveCount == live[number]?.count ?? 0, "segment \(number)")
            #expect(segment.liveBytes == live[number]?.reduce(0) { $0 + $1.location.length } ?? 0, "segment \(number)")
        }
        for number in live.keys { #expect(index.segments[number] != nil, "segment \(number) is not known") }
        for case .removeSegment(let number) in actions { #expect(live[number] == nil, "segment \(number) in use") }
    }

    /// The index with the writer's appends around it, as the storage applies operations.
    struct Writer {
        var index: DiskCacheIndex
        var generation: UInt64 = 1
        var segment: UInt64 = 1
        var end = 0
        /// Every record installed, by generation.
        var written: [UInt64: DiskCacheIndex.Record] = [:]

        mutating func append(_ length: Int) -> RecordLocation {
            defer { end += length }
            return RecordLocation(segment: segment, offset: end, length: length)
        }

        mutating func apply(_ operation: Operation) -> [DiskCacheIndex.Action] {
            var actions: [DiskCacheIndex.Action]
            switch operation {
            case .install(let files):
                let installed = files.map { file in
                    defer { generation += 1 }
                    let location = append(file.1)
                    written[generation] = .init(location: location, generation: generation)
                    return DiskCacheIndex.Installed(name: n(file.0), location: location, generation: generation)
                }
                actions = index.installed(installed, segmentEnd: (segment, end))
            case .startSegment:
                segment += 1
                end = 0
                actions = []
            case .read(let name): actions = index.read(n(name))
            case .readNoFile(let name, let generation):
                actions = written[generation].map { index.readFoundNoFile(n(name), record: $0) } ?? []
            case .readDamage(let name, let generation):
                actions = written[generation].map { index.readFoundDamage(n(name), record: $0) } ?? []
            case .writeFailed(let name): actions = index.writeFailed(n(name))
            case .remove(let name): actions = index.remove(n(name))
            case .removeAll: actions = index.removeAll()
            case .reads(let name, let count):
                actions = []
                for _ in 0..<count { actions += index.read(n(name)) }
            case .compact(let number, let meanwhile):
                let live = index.liveRecords(in: number)
                switch meanwhile {
                case .nothing: break
                case .stored(let name, let size): _ = apply(.install([(name, size)]))
                case .removed(let name): _ = apply(.remove(name))
                }
                let copies = live.map { record in
                    DiskCacheIndex.Installed(
                        name: record.name, location: append(record.location.length), generation: record.generation)
                }
                actions = index.moved(copies, from: number, segmentEnd: (segment, end))
            }
            for case .compactJournal(let entries) in actions { index.journalCompacted(lineCount: entries.count) }
            return actions
        }
    }

    // MARK: - Opening

    /// One directory being opened: its segments (number, size), what its journal replays and
    /// what a scan of its segments found (letter, segment, offset, length), a cap, and what the index
    /// must make of them.
    struct Opening: Sendable, CustomTestStringConvertible {
        var name: String
        var segments: [(UInt64, Int)]
        var journal: [(String, UInt64, Int, Int)]
        var found: [(String, UInt64, Int, Int)] = []
        var cap = 100
        var order: [String]
        var then: [DiskCacheIndex.Action]
        var evictions = 0
        var totalBytes: Int

        var testDescription: String { name }
    }

    static func entries(_ records: [(String, UInt64, Int, Int)]) -> [DiskCacheIndex.Entry] {
        records.map { entry($0.0, at($0.1, $0.2, $0.3)) }
    }

    static let openings: [Opening] = [
        Opening(
            name: "the journal's records are kept in its order", segments: [(1, 30)],
            journal: [("c", 1, 20, 10), ("a", 1, 0, 10), ("b", 1, 10, 10)], order: ["c", "a", "b"],
            then: [.compactJournal(entries([("c", 1, 20, 10), ("a", 1, 0, 10), ("b", 1, 10, 10)]))], totalBytes: 30),
        Opening(
            name: "records past their segment's end or in a missing segment are dropped, and a segment that keeps "
                + "nothing is removed",
            segments: [(1, 15), (3, 10)], journal: [("a", 1, 0, 10), ("b", 1, 10, 10), ("z", 2, 0, 10)],
            order: ["a"], then: [.compactJournal(entries([("a", 1, 0, 10)])), .removeSegment(3)], totalBytes: 10),
        Opening(
            name: "records a scan found are the least recently used, or replace an older record of "
                + "their name in its place",
            segments: [(1, 40)], journal: [("a", 1, 0, 10), ("b", 1, 10, 10)],
            found: [("c", 1, 20, 10), ("a", 1, 30, 10)], order: ["c", "a", "b"],
            then: [.compactJournal(entries([("c", 1, 20, 10), ("a", 1, 30, 10), ("b", 1, 10, 10)]))],
            totalBytes: 30),
        Opening(
            name: "a record found that is older than the journal's is not taken",
            segments: [(1, 20), (2, 10)], journal: [("a", 2, 0, 10)], found: [("a", 1, 10, 10)], order: ["a"],
            then: [.compactJournal(entries([("a", 2, 0, 10)])), .removeSegment(1)], totalBytes: 10),
        Opening(
            name: "beyond a lowered cap the least recently used go, and a segment left below half in use is "
                + "compacted",
            segments: [(1, 30)], journal: [("a", 1, 0, 10), ("b", 1, 10, 10), ("c", 1, 20, 10)], cap: 15,
            order: ["c"], then: [.compactJournal(entries([("c", 1, 20, 10)])), .compactSegment(1)], evictions: 2,
            totalBytes: 10),
        Opening(
            name: "an empty directory compacts an empty journal", segments: [], journal: [("a", 1, 0, 10)],
            order: [], then: [.compactJournal([])], totalBytes: 0),
    ]

    @Test(arguments: openings)
    func anOpenedDirectoryIsOrderedAndTrimmed(opening: Opening) {
        let opened = DiskCacheIndex.opened(
            segments: opening.segments.map { .init(number: $0.0, size: $0.1) }, journal: Self.entries(opening.journal),
            found: Self.entries(opening.found), maximumBytes: opening.cap, firstGeneration: 7)
        #expect(opened.actions == opening.then)
        #expect(opened.index.entriesFromLeastRecent.map(\.name) == opening.order.map(Self.n))
        #expect(opened.index.totalBytes == opening.totalBytes)
        #expect(opened.index.evictions == opening.evictions)
        // The journal's records took generations first, in its order.
        if let first = opening.journal.first,
            opened.index.record(Self.n(first.0))?.location == Self.at(first.1, first.2, first.3)
        {
            #expect(opened.index.record(Self.n(first.0))?.generation == 7)
        }
        // Nothing the writer appends to yet: every segment kept is settled.
        #expect(opened.index.activeSegment == nil)
    }
}
