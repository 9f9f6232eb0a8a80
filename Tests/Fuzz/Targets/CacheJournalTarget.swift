import Caching

/// `CacheJournal`, the disk cache's journal, replayed from any bytes.
///
/// Checks: the order it gives holds valid names, each once, and equals what a plain list
/// (move to the end on `CLEAN` and `READ`, drop on `REMOVE`) gives for the same lines, which
/// also checks the least-recently-used dictionary behind it; the compacted journal written
/// for that order replays to the same order.
let cacheJournalTarget = FuzzTarget(
    name: "cache-journal",
    maximumLength: 4_096,
    summary: "order = a plain list's replay; names valid and unique; compacted journal replays the same"
) { buffer in
    let bytes = Array(buffer)
    let order = CacheJournal.order(of: bytes)
    check(Set(order).count == order.count, "a name twice in \(order)")
    check(order.allSatisfy { CacheJournal.isValidName($0) }, "an invalid name in \(order)")
    check(order == listReplay(bytes), "order \(order), a plain list's \(listReplay(bytes))")
    let compacted = CacheJournal.compacted(order)
    check(CacheJournal.order(of: Array(compacted.utf8)) == order, "the compacted journal replays differently")
}

/// The journal's replay with an array: slow, and obviously right.
private func listReplay(_ bytes: [UInt8]) -> [String] {
    guard let text = String(validating: bytes, as: UTF8.self) else { return [] }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.first == "parley-http-cache-journal 1" else { return [] }
    lines.removeFirst()
    var names: [String] = []
    for line in lines {
        let words = line.split(separator: " ")
        guard words.count == 2, words[1].utf8.count == 16,
            words[1].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { continue }
        let name = String(words[1])
        switch words[0] {
        case "CLEAN", "READ":
            names.removeAll { $0 == name }
            names.append(name)
        case "REMOVE":
            names.removeAll { $0 == name }
        default:
            continue
        }
    }
    return names
}
