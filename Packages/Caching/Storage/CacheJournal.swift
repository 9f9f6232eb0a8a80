/// The journal of a ``DiskCacheStorage``: the order in which its entries were used, as text.
///
/// ```
/// parley-http-cache-journal 1
/// CLEAN 0123456789abcdef
/// READ 0123456789abcdef
/// REMOVE 0123456789abcdef
/// ```
///
/// After the header line, `CLEAN` (stored) and `READ` (used) make a name the most recently
/// used, and `REMOVE` forgets it. Reading is lenient, because the file may have been cut short
/// by a crash or damaged on disk: a line that is not one of the three with a valid name is
/// skipped, and a journal that is not UTF-8 or lacks the header orders nothing. The journal
/// never decides which entries exist (the directory does), only their order.
///
/// `package` so that the fuzz target in `Tests/Fuzz` can replay arbitrary bytes and check that
/// a compacted journal replays to the order it was written from.
package enum CacheJournal {
    /// The first line of every journal; a file without it is not replayed.
    package static let header = "parley-http-cache-journal 1"

    /// One line after the header.
    enum Record: Hashable, Sendable, CustomStringConvertible {
        /// `CLEAN <name>`: the entry's file was put in place; it is the most recently used.
        case clean(EntryName)
        /// `READ <name>`: the entry was read; it is the most recently used.
        case read(EntryName)
        /// `REMOVE <name>`: the entry is gone.
        case remove(EntryName)

        /// The line, without its newline.
        var description: String {
            switch self {
            case .clean(let name): "CLEAN \(name)"
            case .read(let name): "READ \(name)"
            case .remove(let name): "REMOVE \(name)"
            }
        }
    }

    /// The text of `records`, each on a line of its own, for one append.
    static func lines(_ records: [Record]) -> String {
        var text = ""
        text.reserveCapacity(records.count * 24)
        for record in records {
            text += record.description
            text += "\n"
        }
        return text
    }

    /// The text of a compacted journal: the header, then one `CLEAN` line per name.
    ///
    /// - Parameter names: Entry names, least recently used first.
    /// - Returns: The journal's text, each line ending with a newline.
    package static func compacted(_ names: [String]) -> String {
        var text = header + "\n"
        for name in names { text += "CLEAN \(name)\n" }
        return text
    }

    /// Replays a journal's bytes.
    ///
    /// - Parameter bytes: The journal file's content.
    /// - Returns: The names it leaves in use, least recently used first, each once; empty when
    ///   the bytes are not UTF-8 or do not start with ``header``.
    package static func order(of bytes: some Sequence<UInt8>) -> [String] {
        guard let text = String(validating: bytes, as: UTF8.self) else { return [] }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first.map(String.init) == header else { return [] }
        var replayed = LRUDictionary<String, Void>()
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ")
            guard parts.count == 2, isValidName(parts[1]) else { continue }
            let name = String(parts[1])
            switch parts[0] {
            case "CLEAN", "READ": replayed.set((), forKey: name)
            case "REMOVE": replayed.removeValue(forKey: name)
            default: continue
            }
        }
        return replayed.keysFromLeastRecent
    }

    /// Whether `name` is an entry's name: 16 lowercase hexadecimal digits.
    ///
    /// - Parameter name: A name read from the journal or the directory.
    package static func isValidName(_ name: some StringProtocol) -> Bool {
        name.utf8.count == 16 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
