/// The journal of a ``DiskCacheStorage``: which records its segments hold for which names, and
/// the order in which the entries were used, as text.
///
/// ```
/// parley-http-cache-journal 2
/// CLEAN 0123456789abcdef 0000000000000001 0 4310
/// READ 0123456789abcdef
/// MOVE 0123456789abcdef 0000000000000004 81920 1207
/// REMOVE 0123456789abcdef
/// ```
///
/// After the header line, `CLEAN <name> <location>` says the name's record was appended at that
/// location (its segment, offset and length) and makes the name the most recently used; `READ`
/// makes it the most recently used; `MOVE <name> <location>` says compaction copied its record
/// there, leaving the order as it is; `REMOVE` forgets it. Reading is lenient, because the file
/// may have been cut short by a crash or damaged on disk: text after the last newline (a line
/// a crash cut short) is not read, and a line that is not one of the four with a valid name
/// and location is skipped. A journal that is not UTF-8 or lacks the header
/// is unusable, and recovery reads the segments instead. Recovery checks every location the
/// journal names against the segments found.
///
/// `package` so that the fuzz target in `Tests/Fuzz` can replay arbitrary bytes and check that
/// a compacted journal replays to what it was written from.
package enum CacheJournal {
    /// The first line of every journal; a file without it is not replayed.
    package static let header = "parley-http-cache-journal 2"

    /// One line after the header.
    enum Record: Hashable, Sendable, CustomStringConvertible {
        /// `CLEAN <name> <location>`: the entry's record was appended; it is the most recently used.
        case clean(EntryName, RecordLocation)
        /// `MOVE <name> <location>`: compaction copied the entry's record; its place in the
        /// order stays.
        case moved(EntryName, RecordLocation)
        /// `READ <name>`: the entry was read; it is the most recently used.
        case read(EntryName)
        /// `REMOVE <name>`: the entry is gone.
        case remove(EntryName)

        /// The line, without its newline.
        var description: String {
            switch self {
            case .clean(let name, let location): "CLEAN \(name) \(location)"
            case .moved(let name, let location): "MOVE \(name) \(location)"
            case .read(let name): "READ \(name)"
            case .remove(let name): "REMOVE \(name)"
            }
        }
    }

    /// What a journal says: whether it is one at all, and the entries in use, least recently
    /// used first, each once with the location of its record.
    package struct Replay: Sendable {
        /// Whether the bytes are UTF-8 and start with ``CacheJournal/header``.
        package var isUsable = false
        package var entries: [(name: String, location: RecordLocation)] = []
    }

    /// The text of `records`, each on a line of its own, for one append.
    static func lines(_ records: [Record]) -> String {
        var text = ""
        text.reserveCapacity(records.count * 48)
        for record in records {
            text += record.description
            text += "\n"
        }
        return text
    }

    /// The text of a compacted journal: the header, then one `CLEAN` line per entry.
    ///
    /// - Parameter entries: Entry names with their records' locations, least recently used first.
    /// - Returns: The journal's text, each line ending with a newline.
    package static func compacted(_ entries: [(name: String, location: RecordLocation)]) -> String {
        var text = header + "\n"
        text.reserveCapacity(entries.count * 56)
        for entry in entries { text += "CLEAN \(entry.name) \(entry.location)\n" }
        return text
    }

    /// Replays a journal's bytes.
    ///
    /// - Parameter bytes: The journal file's content.
    /// - Returns: The entries it leaves in use; unusable and empty when the bytes are not UTF-8
    ///   or do not start with ``header``.
    package static func replay(_ bytes: some Sequence<UInt8>) -> Replay {
        var replay = Replay()
        guard let text = String(validating: bytes, as: UTF8.self) else { return replay }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first.map(String.init) == header else { return replay }
        replay.isUsable = true
        var replayed = LRUDictionary<String, RecordLocation>()
        // Every line ends with a newline: what follows the last one is a line a crash cut
        // short (its length, say, a digit short), and is not read.
        for line in lines.dropFirst().dropLast() {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count >= 2, isValidName(parts[1]) else { continue }
            let name = String(parts[1])
            switch (parts[0], parts.count) {
            case ("CLEAN", 5), ("MOVE", 5):
                guard let location = RecordLocation(segment: parts[2], offset: parts[3], length: parts[4]) else {
                    continue
                }
                if parts[0] == "CLEAN" {
                    replayed.set(location, forKey: name)
                } else {
                    replayed.replaceValue(location, forKey: name)
                }
            case ("READ", 2): _ = replayed.touch(name)
            case ("REMOVE", 2): replayed.removeValue(forKey: name)
            default: continue
            }
        }
        replay.entries = replayed.entriesFromLeastRecent.map { ($0.key, $0.value) }
        return replay
    }

    /// Whether `name` is an entry's name: 16 lowercase hexadecimal digits.
    ///
    /// - Parameter name: A name read from the journal or the directory.
    package static func isValidName(_ name: some StringProtocol) -> Bool {
        name.utf8.count == 16 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
