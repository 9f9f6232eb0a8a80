import Caching

/// `CacheJournal`, the disk cache's journal, replayed from any bytes.
///
/// Checks: the entries it gives hold valid names, each once, and equal what a plain list
/// (move to the end on `CLEAN` and `READ`, a new location on `CLEAN` and `MOVE`, drop on
/// `REMOVE`) gives for the same lines, which also checks the least-recently-used dictionary
/// behind it; the compacted journal written for those entries replays to the same entries.
let cacheJournalTarget = FuzzTarget(
    name: "cache-journal",
    maximumLength: 4_096,
    summary: "entries = a plain list's replay; names valid and unique; compacted journal replays the same"
) { buffer in
    let bytes = Array(buffer)
    let replay = CacheJournal.replay(bytes)
    let names = replay.entries.map(\.name)
    check(Set(names).count == names.count, "a name twice in \(names)")
    check(names.allSatisfy { CacheJournal.isValidName($0) }, "an invalid name in \(names)")
    let expected = listReplay(bytes)
    check(
        replay.entries.map(\.name) == expected.map(\.name)
            && replay.entries.map(\.location) == expected.map(\.location),
        "entries \(replay.entries), a plain list's \(expected)")
    check(replay.isUsable || replay.entries.isEmpty, "entries from a journal that is not one")
    let compacted = CacheJournal.replay(Array(CacheJournal.compacted(replay.entries).utf8))
    check(
        compacted.entries.map(\.name) == names && compacted.entries.map(\.location) == replay.entries.map(\.location),
        "the compacted journal replays differently")
}

/// The journal's replay with an array: slow, and obviously right.
private func listReplay(_ bytes: [UInt8]) -> [(name: String, location: RecordLocation)] {
    guard let text = String(validating: bytes, as: UTF8.self) else { return [] }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.first == "parley-http-cache-journal 2" else { return [] }
    lines.removeFirst()
    // What follows the last newline is a line cut short.
    if !lines.isEmpty { lines.removeLast() }
    func isHex16(_ word: Substring) -> Bool {
        word.utf8.count == 16 && word.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    }
    var entries: [(name: String, location: RecordLocation)] = []
    for line in lines {
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count >= 2, isHex16(words[1]) else { continue }
        let name = String(words[1])
        switch (words[0], words.count) {
        case ("CLEAN", 5), ("MOVE", 5):
            guard isHex16(words[2]), let segment = UInt64(words[2], radix: 16), let offset = Int(words[3]),
                let length = Int(words[4]), (0...(1 << 40)).contains(offset), (32...((1 << 30) + 32)).contains(length)
            else { continue }
            let location = RecordLocation(segment: segment, offset: offset, length: length)
            if words[0] == "CLEAN" {
                entries.removeAll { $0.name == name }
                entries.append((name, location))
            } else if let index = entries.firstIndex(where: { $0.name == name }) {
                entries[index].location = location
            }
        case ("READ", 2):
            guard let index = entries.firstIndex(where: { $0.name == name }) else { continue }
            entries.append(entries.remove(at: index))
        case ("REMOVE", 2):
            entries.removeAll { $0.name == name }
        default:
            continue
        }
    }
    return entries
}
