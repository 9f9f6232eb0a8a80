// parley-cache-writer: writes and reads entries of a `DiskCacheStorage` in a process of its own,
// for the tests that kill a writer with SIGKILL and that read a cache back in another process.
//
//   parley-cache-writer write DIRECTORY [--first F] [--count N] [--big-every K] [--through-cache] [--sync]
//   parley-cache-writer read DIRECTORY [--first F] --count N
//
// `write` stores entry F, F + 1, F + 2, … (F is 0 by default; key `https://cache.test/entry/<n>`, a body made from n alone,
// see `CacheTestEntries`), printing `writing <n>` before each and `wrote <n>` once
// `DiskCacheStorage.store(_:)` has returned (its file is in place). With `--through-cache` the
// entries go through an `HTTPCache` over a transport that answers at once, so they take the
// background writer's path, and `queued <n>` means only that the cache has the answer. Every
// K-th entry (`--big-every`, 4 by default; 0 for none) is a few MiB of bytes that do not deflate,
// so that a write lasts long enough to be interrupted (longer with `--sync`, which opens the storage
// with `synchronizesToDisk`). After N entries (`--count`; without it, it
// writes until it is killed) it closes the storage, which waits for the pending writes, prints
// `closed` and exits 0.
//
// `read` opens the directory and prints, for entry F ..< F + N, `hit <n>` (the body is the one entry
// n was written with), `miss <n>`, or `wrong <n>` (anything else), then the storage's counters
// as `statistics <entries> <corrupt entries removed>`; it exits 0 when every entry was a hit.
//
// Each line is written with one `write(2)`, so a reader sees it at once.

import CacheTestEntries
import Caching
import Foundation
import HTTPTypes
import Transport

@main
struct CacheWriter {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2, ["write", "read"].contains(arguments[0]) else {
            fail(
                "usage: parley-cache-writer write|read DIRECTORY [--first F] [--count N] [--big-every K] "
                    + "[--through-cache] [--sync]")
        }
        let directory = arguments[1]
        var first = 0
        var count = Int.max
        var bigEvery = CacheTestEntries.defaultBigEvery
        var throughCache = false
        var synchronizesToDisk = false
        var rest = arguments.dropFirst(2).makeIterator()
        while let option = rest.next() {
            switch option {
            case "--first": first = number(rest.next(), for: option)
            case "--count": count = number(rest.next(), for: option)
            case "--big-every": bigEvery = number(rest.next(), for: option)
            case "--through-cache": throughCache = true
            case "--sync": synchronizesToDisk = true
            default: fail("unknown option \(option)")
            }
        }
        let storage: DiskCacheStorage
        do {
            storage = try DiskCacheStorage(
                directory: directory, maximumBytes: 1 << 30, synchronizesToDisk: synchronizesToDisk)
        } catch {
            fail("could not open \(directory): \(error)")
        }
        if arguments[0] == "read" {
            await read(storage, entries: first..<(first + min(count, 1 << 20)), bigEvery: bigEvery)
        } else {
            await write(storage, first: first, count: count, bigEvery: bigEvery, throughCache: throughCache)
        }
    }

    static func write(_ storage: DiskCacheStorage, first: Int, count: Int, bigEvery: Int, throughCache: Bool) async {
        var options = HTTPCache.Options()
        options.forcedLifetime = .seconds(3600)
        options.maximumEntrySize = 64 << 20
        let cache = HTTPCache(storage: storage, options: options)
        let transport = MiddlewareTransport(Answers(bigEvery: bigEvery), middleware: [cache])
        var index = first
        while index - first < count {
            let key = CacheTestEntries.key(index)
            say("writing \(index)")
            do {
                if throughCache {
                    _ = try await transport.data(for: try TransportRequest(method: .get, url: key))
                    say("queued \(index)")
                } else {
                    try await storage.store(CacheTestEntries.entry(index, bigEvery: bigEvery))
                    say("wrote \(index)")
                }
            } catch {
                fail("entry \(index): \(error)")
            }
            index += 1
        }
        await storage.close()
        say("closed")
    }

    static func read(_ storage: DiskCacheStorage, entries: Range<Int>, bigEvery: Int) async {
        var allHits = true
        for index in entries {
            guard let entry = await storage.entry(forKey: CacheTestEntries.key(index)) else {
                say("miss \(index)")
                allHits = false
                continue
            }
            if entry.body == CacheTestEntries.body(index, bigEvery: bigEvery), entry.head.status == .ok {
                say("hit \(index)")
            } else {
                say("wrong \(index)")
                allHits = false
            }
        }
        let statistics = await storage.statistics()
        say("statistics \(statistics.entryCount) \(statistics.corruptEntriesRemoved)")
        await storage.close()
        exit(allHits ? 0 : 1)
    }
}

/// A transport that answers every request at once with the entry its URL names.
struct Answers: HTTPTransport {
    let bigEvery: Int

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let index = Int(request.url.split(separator: "/").last ?? "") ?? 0
        return TransportResponse(
            head: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
            body: ResponseBody(CacheTestEntries.body(index, bigEvery: bigEvery)), url: request.url)
    }
}

/// Writes `line` and a newline to standard output in one call.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `text` as a number, or a failure naming `option`.
func number(_ text: String?, for option: String) -> Int {
    guard let text, let value = Int(text), value >= 0 else { fail("\(option) takes a number") }
    return value
}

/// Writes `message` to standard error and exits with status 2.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("parley-cache-writer: " + message + "\n").utf8))
    exit(2)
}
