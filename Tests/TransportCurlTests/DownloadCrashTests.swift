import Downloads
import Foundation
import Glibc
import HTTPTypes
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// `parley-fetch` killed with SIGKILL at random moments, against nginx: the strong ETags and
/// byte ranges of a real static-file server, and files made at test time in its root.
///
/// Serialized: each test keeps a core busy with a child process, and both at once on two cores
/// would starve the timing-sensitive tests that run beside them.
@Suite(.serialized, .enabled(if: ExternalServers.nginxAvailable, "nginx is not running: use `make test`"))
struct DownloadCrashTests {
    let plainURL: String
    let root: String

    init() throws {
        plainURL = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL")
        root = try ExternalServers.require(ExternalServers.nginxRoot, "PARLEY_NGINX_ROOT")
    }

    @Test func resumesAfterRepeatedKill9sToAFileIdenticalToTheSource() async throws {
        // Given 128 MiB in nginx's root: a block of random bytes, 1 MiB and 13 bytes long,
        // repeated, so any duplicated, missing or shifted run of bytes changes the digest.
        var generator = SystemRandomNumberGenerator()
        var block = Data(count: (1 << 20) + 13)
        block.withUnsafeMutableBytes { bytes in
            for index in stride(from: 0, to: bytes.count - 7, by: 8) {
                bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: index, as: UInt64.self)
            }
        }
        var repeated = Data()
        while repeated.count < 128 << 20 { repeated.append(block) }
        let source = repeated
        let name = "crash-\(UUID().uuidString).bin"
        let sourcePath = root + "/" + name
        try source.write(to: URL(fileURLWithPath: sourcePath))
        defer { try? FileManager.default.removeItem(atPath: sourcePath) }
        let digest = try await sha256sum(sourcePath)
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        let url = plainURL + "/" + name

        try await withTemporaryFolder { folder in
            let destination = folder + "/copy.bin"
            let arguments = [url, "--output", destination, "--sha256", digest, "--quiet"]
            let clock = ContinuousClock()
            let started = clock.now

            // When parley-fetch is killed at least 10 times in a row
            let kills = try await onOwnThread {
                try killRepeatedly(fetch, arguments: arguments, destination: destination, source: source, times: 12)
            }

            // Then after every kill the partial was a prefix of the source, under a sidecar
            #expect(kills.sizes.count >= 10, "parley-fetch finished after only \(kills.sizes.count) kills")
            #expect(kills.violations.isEmpty, "\(kills.violations)")

            // And a last run completes with the source's digest, leaving no partial or sidecar
            let final = try await ChildProcess.launch(nice, arguments: ["-n", "19", fetch] + arguments.dropLast())
            #expect(final.status == 0, "\(final.output)")
            #expect(try await sha256sum(destination) == digest)
            #expect(try contents(destination) == source)
            #expect(!exists(destination + ".partial"))
            #expect(!exists(destination + ".partial.json"))
            print(
                "kill -9 test: \(kills.sizes.count) kills (partial at \(kills.sizes.map { $0 >> 10 }) KiB), then a "
                    + "complete run, in \(clock.now - started)")
        }
    }

    @Test func downloadsAGigabyteThroughAKillAndAResume() async throws {
        // Given a 1 GiB file in nginx's root: sparse, so all zeros and made at once
        let length = 1 << 30
        let name = "gigabyte-\(UUID().uuidString).bin"
        let sourcePath = root + "/" + name
        try #require(FileManager.default.createFile(atPath: sourcePath, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: sourcePath) }
        try #require(truncate(sourcePath, off_t(length)) == 0)
        // `head -c 1073741824 /dev/zero | sha256sum`
        let digest = "49bc20df15e412a64472421e13fe86ff1c5165e18b2afccf160d4dc19fe68a14"
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")

        try await withTemporaryFolder { folder in
            let destination = folder + "/gigabyte.bin"
            let arguments = [plainURL + "/" + name, "--output", destination, "--sha256", digest]
            let clock = ContinuousClock()
            let started = clock.now

            // When parley-fetch is killed somewhere in the middle
            let target = Int.random(in: (length / 4)...(3 * length / 4))
            let killed = try await onOwnThread {
                let process = try SpawnedChild.start(
                    nice, arguments: ["-n", "19", fetch] + arguments, output: .standardError,
                    errors: .file(folder + "/first.log"))
                while (fileSize(destination + ".partial") ?? 0) < target, process.isRunning { usleep(1000) }
                return process.kill()
            }
            #expect(killed, "parley-fetch finished before it could be killed")
            let kept = try #require(fileSize(destination + ".partial"))
            #expect(kept >= target && kept < length)

            // Then the next run resumes from there and ends with the right size and digest
            let final = try await ChildProcess.launch(nice, arguments: ["-n", "19", fetch] + arguments)
            #expect(final.status == 0, "\(final.output)")
            #expect(final.output.contains("resumed from \(kept)"))
            #expect(final.output.contains("sha256 \(digest)"))
            #expect(fileSize(destination) == length)
            #expect(try await onOwnThread { try isAllZeros(destination) })
            print("1 GiB test: killed at \(kept) bytes, resumed and verified in \(clock.now - started)")
        }
    }

    @Test func parleyFetchVerifiesTheServerWithTheGivenCA() async throws {
        let tlsURL = try ExternalServers.require(ExternalServers.nginxTLSURL, "PARLEY_NGINX_TLS_URL")
        let caFile = try ExternalServers.require(ExternalServers.testCA, "PARLEY_TEST_CA")
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await withTemporaryFolder { folder in
            let destination = folder + "/small.bin"
            let refused = try await ChildProcess.launch(
                fetch, arguments: [tlsURL + "/small.bin", "--output", destination, "--quiet"])
            #expect(refused.status == 1)
            #expect(refused.output.contains("caFile"), "\(refused.output)")

            let run = try await ChildProcess.launch(
                fetch, arguments: [tlsURL + "/small.bin", "--output", destination, "--cacert", caFile])
            #expect(run.status == 0, "\(run.output)")
            #expect(try contents(destination) == contents(root + "/small.bin"))
        }
    }

}

/// Whether every byte of the file is zero, compared 8 MiB at a time with `memcmp`.
private func isAllZeros(_ path: String) throws -> Bool {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let zeros = Data(count: 8 << 20)
    while let chunk = try handle.read(upToCount: 8 << 20), !chunk.isEmpty {
        let same = chunk.withUnsafeBytes { bytes in
            zeros.withUnsafeBytes { zeros in
                guard let chunkBase = bytes.baseAddress, let zerosBase = zeros.baseAddress else { return true }
                return memcmp(chunkBase, zerosBase, bytes.count) == 0
            }
        }
        if !same { return false }
    }
    return true
}

/// The result of ``killRepeatedly(_:arguments:destination:source:times:)``.
private struct Kills: Sendable {
    /// The partial's size after each kill.
    var sizes: [Int] = []
    /// What was wrong with the files after a kill, if anything.
    var violations: [String] = []
}

/// Starts `path` and kills it with SIGKILL, `times` times or until a run finishes by itself;
/// checks after each kill that the partial is a prefix of `source` under its sidecar.
///
/// Half of the kills come after a random delay of up to 60 ms, often before the first byte
/// (while the process starts, connects or reads its sidecar); the others once the partial has
/// grown by a random 1 byte to 6 MiB. Blocking: run it with ``onOwnThread(_:)``.
private func killRepeatedly(
    _ path: String, arguments: [String], destination: String, source: Data, times: Int
) throws -> Kills {
    var generator = SystemRandomNumberGenerator()
    var kills = Kills()
    for run in 1...times {
        let sizeBefore = fileSize(destination + ".partial") ?? 0
        let process = try SpawnedChild.start(
            nice, arguments: ["-n", "19", path] + arguments, output: .standardError,
            errors: .file(destination + "-run-\(run).log"))
        if Bool.random(using: &generator) {
            usleep(UInt32.random(in: 0...60_000, using: &generator))
        } else {
            let target = sizeBefore + Int.random(in: 1...(6 << 20), using: &generator)
            while (fileSize(destination + ".partial") ?? 0) < target, process.isRunning { usleep(1000) }
        }
        guard process.kill() else { break }  // it finished first
        let partial = (try? contents(destination + ".partial")) ?? Data()
        kills.sizes.append(partial.count)
        guard !partial.isEmpty else { continue }
        if partial.count > source.count || partial != source.prefix(partial.count) {
            kills.violations.append("run \(run): the \(partial.count)-byte partial is not a prefix of the source")
        }
        let record = (try? contents(destination + ".partial.json")).flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
        }
        if record?["url"] as? String != arguments.first || record?["totalLength"] as? Int != source.count
            || (record?["etag"] as? String)?.hasPrefix("\"") != true
        {
            kills.violations.append("run \(run): the sidecar does not describe the partial: \(record ?? [:])")
        }
    }
    return kills
}

/// The SHA-256 of a file as coreutils' `sha256sum` computes it: an independent implementation.
private func sha256sum(_ path: String) async throws -> String {
    let run = try await ChildProcess.launch(nice, arguments: ["-n", "19", "/usr/bin/sha256sum", path])
    try #require(run.status == 0, "sha256sum failed: \(run.output)")
    return String(run.output.prefix(64))
}

/// `nice`: the crash tests run their children through it at the lowest priority (`-n 19`), so a child
/// busy downloading or hashing yields the CPU to the timing-sensitive tests running beside it.
/// `nice` executes the program in its own process, so its pid is the program's.
private let nice = "/usr/bin/nice"

/// The size of the file at `path`, or `nil` when there is none.
///
/// Three cheap system calls (`open`, `lseek` to the end, `close`): the crash tests poll it
/// every millisecond, and `FileManager`'s attributes (which look up user and group names) would
/// keep a core busy.
private func fileSize(_ path: String) -> Int? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    let end = lseek(descriptor, 0, SEEK_END)
    return end < 0 ? nil : Int(end)
}
