/// Which of a transport's event loops runs a new transfer: a pure value, with no loop, no lock
/// and no clock, so that every rule can be tested as a table.
///
/// A transport has two kinds of loops. The **base loops** (``baseLoopCount``, the configured
/// ``CurlTransport/Configuration/loopCount``) carry every light load: one per processor, so
/// that a few dozen transfers use the machine's cores and no more threads than that. The
/// **extra loops** exist only when the connection limits allow more connections than the base
/// loops should hold (``CurlLoopGroup/connectionsPerLoop``): libcurl 7.88 walks a loop's whole
/// connection cache for part of each transfer's work, so a loop with thousands of connections
/// spends more per transfer on that walk than on the transfer. They take transfers only when
/// every base loop is full (``spillThreshold``).
///
/// ``CurlLoopGroup`` gathers the facts (the origin's home loop, whether the origin is pinned,
/// the loop the sending task prefers, each loop's transfers in flight) and applies
/// ``loop(for:load:)``, whose rules, first match wins, are:
///
/// 1. **The sender's loop**, unless it has ``largestSpillThreshold`` transfers in flight. A
///    request sent by a task that prefers one of the loops as its executor
///    (``CurlTransport/taskExecutor``) runs on that loop: its thread posts the start without a
///    wakeup, and the response resumes the task where it already runs, with no thread hop
///    either way. It stays even when the loop's connections to the host are all busy (it waits
///    for one there): the sender chose the loop.
/// 2. **A pinned origin's home.** Every request to an HTTPS origin that may speak HTTP/2 goes to
///    the origin's home loop, so that its streams share one connection, as they do with one
///    loop: a second loop would open a second connection (and a second TLS handshake) to the
///    same server.
/// 3. **The origin's home, while it is not busy**: while the home loop has fewer transfers in
///    flight than ``spreadThreshold``. One loop serves a few transfers at a lower cost per
///    request than two: each pass and each wakeup serves more of them (8 in flight spread over
///    2 loops took 13 to 23 % more CPU per request than on one, for the same throughput;
///    docs/BENCHMARKS.md, "Several event loops"). Requests one
///    at a time to one host stay on one loop and reuse its connection.
/// 4. **The least loaded base loop**, by transfers in flight, scanning from the origin's home
///    loop so that a tie keeps the home loop, unless even that one is full.
/// 5. **The least loaded loop of all**, scanning from the home loop: once the base loops are
///    full, transfers spread evenly over every loop.
///
/// The home loop is a hash of the origin (scheme, host and port, default ports left out) over
/// the base loops, the same for every request to it during the process's life.
struct LoopPlacement: Sendable, Equatable {
    /// What the placement knows of one request.
    struct Request: Sendable, Equatable, CustomStringConvertible {
        /// The origin's home loop (``LoopPlacement/home(ofHash:)``).
        var home: Int
        /// Whether every request to the origin goes to its home loop: HTTPS with HTTP/2 offered.
        var pinsOrigin: Bool
        /// The loop whose executor the sending task prefers, `nil` when it prefers none of them.
        var senderLoop: Int?

        /// The request's facts, for test names.
        var description: String {
            "home \(home)\(pinsOrigin ? ", pinned" : "")\(senderLoop.map { ", sent from loop \($0)" } ?? "")"
        }
    }

    /// How many loops there are; at least 1.
    let loopCount: Int
    /// How many of them carry light loads (rules 3 and 4): the first ones; at least 1, at most
    /// ``loopCount``.
    let baseLoopCount: Int
    /// The transfers in flight from which the home loop counts as busy (rule 3); at least 1.
    let spreadThreshold: Int
    /// The transfers in flight from which a base loop counts as full (rule 4), and transfers go
    /// to the extra loops; at least 1.
    let spillThreshold: Int

    /// The most ``spreadThreshold`` can be: 16, below which one loop was measured to serve
    /// transfers at a lower cost than two, as fast.
    static let largestSpreadThreshold = 16

    /// The most ``spillThreshold`` can be: 256 transfers in flight. libcurl's walk of a loop's
    /// connection cache costs about 20 ns per connection for each transfer (docs/BENCHMARKS.md,
    /// "Ten thousand requests in flight"): at 256 connections, about a tenth of a request's own
    /// cost on loopback, which an extra loop's wakeups cost too.
    static let largestSpillThreshold = 256

    /// A placement over `loopCount` loops (at least 1), the first `baseLoopCount` of them base
    /// loops.
    ///
    /// - Parameters:
    ///   - loopCount: The loops, base and extra.
    ///   - baseLoopCount: The loops that carry light loads; all of them when `nil`.
    ///   - connectionsPerHost: The smallest share of the per-host connection limit a loop has.
    ///     The home loop counts as busy from ``largestSpreadThreshold`` transfers in flight, and a
    ///     loop as full from ``largestSpillThreshold``, or from this many when it is fewer: more
    ///     transfers to one host than a loop has connections for would wait there while another
    ///     loop has connections free.
    init(loopCount: Int, baseLoopCount: Int? = nil, connectionsPerHost: Int = .max) {
        self.loopCount = max(1, loopCount)
        self.baseLoopCount = min(max(1, baseLoopCount ?? loopCount), self.loopCount)
        self.spreadThreshold = max(1, min(Self.largestSpreadThreshold, connectionsPerHost))
        self.spillThreshold = max(1, min(Self.largestSpillThreshold, connectionsPerHost))
    }

    /// The loop that runs `request`.
    ///
    /// - Parameters:
    ///   - request: What is known of the request.
    ///   - load: The transfers in flight on a loop, by index.
    /// - Returns: An index below ``loopCount``.
    func loop(for request: Request, load: (Int) -> Int) -> Int {
        if let sender = request.senderLoop, sender >= 0, sender < loopCount,
            loopCount == 1 || load(sender) < Self.largestSpillThreshold
        {
            return sender
        }
        let home = min(max(0, request.home), baseLoopCount - 1)
        if request.pinsOrigin { return home }
        let homeLoad = load(home)
        if homeLoad < spreadThreshold { return home }
        let base = leastLoaded(of: baseLoopCount, from: home, homeLoad: homeLoad, load: load)
        if baseLoopCount == loopCount || base.load < spillThreshold { return base.loop }
        return leastLoaded(of: loopCount, from: home, homeLoad: homeLoad, load: load).loop
    }

    /// The least loaded of the first `count` loops, scanning from `home`, so that a tie keeps
    /// the loop found first.
    private func leastLoaded(of count: Int, from home: Int, homeLoad: Int, load: (Int) -> Int) -> (
        loop: Int, load: Int
    ) {
        var best = home
        var bestLoad = homeLoad
        for offset in 1..<count {
            let index = (home + offset) % count
            let candidate = load(index)
            if candidate < bestLoad {
                best = index
                bestLoad = candidate
            }
        }
        return (best, bestLoad)
    }

    /// The home loop of an origin: `hash` (``origin(of:)``) spread over the base loops.
    func home(ofHash hash: UInt64) -> Int {
        Int(hash % UInt64(baseLoopCount))
    }

    /// Where a URL is sent, as the placement sees it.
    struct Origin: Sendable, Equatable {
        /// A hash of the scheme, the host (ASCII letters in lowercase) and the port, the scheme's
        /// default port counting as none: the same for every URL of one origin.
        var hash: UInt64
        /// Whether the scheme is `https`.
        var isHTTPS: Bool
    }

    /// The origin of an absolute URL, read without allocating: the bytes between `://` and the
    /// first `/`, `?` or `#`, after any user information, are hashed with FNV-1a.
    ///
    /// A URL without `://` (which validation refuses earlier) hashes as an empty origin.
    static func origin(of url: String) -> Origin {
        var url = url
        return url.withUTF8 { origin(ofBytes: $0) }
    }

    /// ``origin(of:)`` over the URL's UTF-8 bytes.
    static func origin(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> Origin {
        let colon = UInt8(ascii: ":")
        let slash = UInt8(ascii: "/")
        // The scheme ends at the first "://".
        var schemeEnd = 0
        while schemeEnd + 2 < bytes.count,
            !(bytes[schemeEnd] == colon && bytes[schemeEnd + 1] == slash && bytes[schemeEnd + 2] == slash)
        {
            schemeEnd += 1
        }
        guard schemeEnd + 2 < bytes.count else { return Origin(hash: fnvOffset, isHTTPS: false) }
        let isHTTP = (schemeEnd == 4 || schemeEnd == 5) && matches(bytes, "http")
        let isHTTPS = isHTTP && schemeEnd == 5 && lowercased(bytes[4]) == UInt8(ascii: "s")

        // The authority runs to the first "/", "?" or "#"; the host starts after its last "@".
        let authorityStart = schemeEnd + 3
        var end = authorityStart
        var hostStart = authorityStart
        while end < bytes.count {
            let byte = bytes[end]
            if byte == slash || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { hostStart = end + 1 }
            end += 1
        }
        // The scheme's default port is the same origin as no port.
        let defaultPort: StaticString? = isHTTPS ? ":443" : isHTTP && schemeEnd == 4 ? ":80" : nil
        if let defaultPort, end - hostStart > defaultPort.utf8CodeUnitCount,
            matches(UnsafeBufferPointer(rebasing: bytes[(end - defaultPort.utf8CodeUnitCount)..<end]), defaultPort)
        {
            end -= defaultPort.utf8CodeUnitCount
        }

        var hash = fnvOffset
        for index in 0..<schemeEnd { hash = (hash ^ UInt64(lowercased(bytes[index]))) &* fnvPrime }
        hash = (hash ^ UInt64(colon)) &* fnvPrime
        for index in hostStart..<end { hash = (hash ^ UInt64(lowercased(bytes[index]))) &* fnvPrime }
        return Origin(hash: hash, isHTTPS: isHTTPS)
    }

    private static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let fnvPrime: UInt64 = 0x100_0000_01b3

    /// A byte with an ASCII capital in lowercase.
    @inline(__always)
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether `bytes` start with `text` (ASCII, in lowercase), ignoring the case of letters.
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count >= text.utf8CodeUnitCount else { return false }
        for index in 0..<text.utf8CodeUnitCount where lowercased(bytes[index]) != text.utf8Start[index] {
            return false
        }
        return true
    }
}
