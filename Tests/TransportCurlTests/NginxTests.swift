import Foundation
import HTTPTypes
import Logging
import TestSupport
import Testing
import Transport
import TransportCurl

/// TLS, HTTP/2, large files: against a private nginx on loopback that `make test` starts with
/// a test CA made by openssl.
@Suite(.enabled(if: ExternalServers.nginxAvailable, "nginx is not running: use `make test`"))
struct NginxTests {
    let plainURL: String
    let tlsURL: String
    let caFile: String

    init() throws {
        plainURL = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL")
        tlsURL = try ExternalServers.require(ExternalServers.nginxTLSURL, "PARLEY_NGINX_TLS_URL")
        caFile = try ExternalServers.require(ExternalServers.testCA, "PARLEY_TEST_CA")
    }

    @Test func fetchesOverHTTP11WithKeepAlive() async throws {
        try await withTransport { transport in
            let first = try await transport.data(for: TransportRequest(method: .get, url: plainURL + "/small.bin"))
            let second = try await transport.data(for: TransportRequest(method: .get, url: plainURL + "/small.bin"))
            #expect(first.body.count == 200)
            #expect(second.metrics?.httpVersion == "1.1")
            #expect(second.metrics?.reusedConnection == true)
        }
    }

    @Test func verifiesTheServerWithTheGivenCAAndSpeaksHTTP2() async throws {
        try await withTransport(.with { $0.tls.caFile = caFile }) { transport in
            let response = try await transport.data(for: TransportRequest(method: .get, url: tlsURL + "/small.bin"))
            #expect(response.status == .ok)
            #expect(response.body.count == 200)
            let metrics = try #require(response.metrics)
            #expect(metrics.httpVersion == "2")
            #expect(metrics.tlsHandshake > .zero)
        }
    }

    /// nginx notices plain HTTP on its TLS port and answers it in plain HTTP, so libcurl 7.88.1
    /// reports no failure: the caller gets nginx's own `400`, which names the mistake.
    @Test func plainHTTPToTheTLSPortGetsNginxsOwnAnswer() async throws {
        let plainToTLS = "http://" + tlsURL.dropFirst("https://".count) + "/small.bin"
        try await withTransport { transport in
            let response = try await transport.data(for: TransportRequest(method: .get, url: plainToTLS))
            #expect(response.status == .badRequest)
            #expect(
                String(decoding: response.body, as: UTF8.self).contains("plain HTTP request was sent to HTTPS port"))
        }
    }

    @Test func multiplexesConcurrentRequestsOverOneConnection() async throws {
        try await withTransport(
            .with {
                $0.tls.caFile = caFile
                $0.maximumConnectionsPerHost = 1
            }
        ) { transport in
            let metrics = try await withThrowingTaskGroup(of: TransferMetrics?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await transport.data(for: TransportRequest(method: .get, url: tlsURL + "/small.bin"))
                            .metrics
                    }
                }
                return try await group.reduce(into: [TransferMetrics]()) { if let m = $1 { $0.append(m) } }
            }
            #expect(metrics.count == 50)
            #expect(metrics.allSatisfy { $0.httpVersion == "2" })
            #expect(metrics.filter { !$0.reusedConnection }.count == 1)
        }
    }

    @Test func refusesAnUntrustedCertificateWithAHint() async throws {
        try await withTransport { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.data(for: TransportRequest(method: .get, url: tlsURL + "/small.bin"))
            }
            #expect(error?.category == .tlsFailure)
            #expect(error?.message.contains("TLSConfiguration.caFile") == true)
            #expect(error?.mayHaveReachedServer == false)
        }
    }

    @Test func connectsWithoutVerificationOnlyWhenAskedAndWarnsEachTime() async throws {
        let store = LogCapture()
        try await withTransport(
            .with {
                $0.tls.disablesVerification = true
                $0.securityLogger = store.logger(level: .warning)
            }
        ) { transport in
            for _ in 0..<2 {
                let response = try await transport.data(for: TransportRequest(method: .get, url: tlsURL + "/small.bin"))
                #expect(response.status == .ok)
            }
        }
        let warnings = store.messages(at: .warning).filter { $0.contains("TLS verification is disabled") }
        #expect(warnings.count == 2)
    }

    @Test func acceptsAMatchingPinAndRefusesAnotherKey() async throws {
        let pin = try serverPublicKeyPin()
        try await withTransport(
            .with {
                $0.tls.caFile = caFile
                $0.tls.pinnedPublicKey = pin
            }
        ) { transport in
            let response = try await transport.data(for: TransportRequest(method: .get, url: tlsURL + "/small.bin"))
            #expect(response.status == .ok)
        }
        try await withTransport(
            .with {
                $0.tls.caFile = caFile
                $0.tls.pinnedPublicKey = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
            }
        ) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.data(for: TransportRequest(method: .get, url: tlsURL + "/small.bin"))
            }
            #expect(error?.category == .tlsFailure)
            #expect(error?.message.contains("pinnedPublicKey") == true)
        }
    }

    /// A 128 MiB file reaches a consumer that keeps stopping intact, and never more than the
    /// stream buffer (and one of libcurl's writes) at a time: the engine pauses reading while
    /// the consumer sleeps instead of collecting what nginx sends meanwhile.
    ///
    /// Checked to fail without pausing: with `ResponseStreamBuffer.offer(_:)` made never to
    /// answer `.pause`, the largest chunk was 30,680,409 bytes (nginx sends over 1 GB/s here)
    /// against a bound of 320 KiB.
    @Test func streamsALargeFileIntactToASlowConsumer() async throws {
        let (name, block, blocks) = try makeLargeFile(blocks: 128)
        defer { removeLargeFile(name) }
        let bufferSize = 256 * 1024

        try await withTransport(.with { $0.streamBufferSize = bufferSize }) { transport in
            let response = try await transport.send(TransportRequest(method: .get, url: plainURL + "/" + name))
            var offset = 0
            var matches = true
            var largestChunk = 0
            for try await chunk in response.body {
                largestChunk = max(largestChunk, chunk.count)
                // Compare against the pattern block, which repeats every `block.count` bytes.
                var position = 0
                while position < chunk.count {
                    let inBlock = (offset + position) % block.count
                    let run = min(chunk.count - position, block.count - inBlock)
                    let start = chunk.startIndex + position
                    if chunk[start..<start + run] != block[inBlock..<inBlock + run] { matches = false }
                    position += run
                }
                offset += chunk.count
                if offset % (8 << 20) < chunk.count {
                    try await Task.sleep(for: .milliseconds(20))  // a slow consumer: the engine must pause
                }
            }
            #expect(offset == block.count * blocks)
            #expect(matches)
            #expect(largestChunk <= bufferSize + 64 * 1024, "a chunk of \(largestChunk) bytes")
        }
    }

    @Test func downloadsAQuarterGigabyteInBoundedProcessMemory() async throws {
        // Memory is a property of a whole process: measured on a child (the benchmark peer),
        // so that tests running in parallel in this process cannot disturb it.
        let (name, block, blocks) = try makeLargeFile(blocks: 256)
        defer { removeLargeFile(name) }
        let run = try await ChildProcess.launch(
            ChildProcess.siblingExecutable("parley-bench"),
            arguments: ["--url", plainURL + "/" + name, "--requests", "1", "--mode", "download", "--out", "/dev/null"])
        #expect(run.status == 0, "parley-bench failed: \(run.output)")
        #expect(run.output.contains("ok=1 errors=0"))
        #expect(run.output.contains("bytes=\(block.count * blocks) "))
        if Sanitizer.active == nil {  // under a sanitizer the peak is the sanitizer's
            #expect(run.peakResidentBytes < 48 << 20, "peak RSS \(run.peakResidentBytes >> 20) MiB for a 256 MiB body")
        }
    }

    @Test func uploadsAGigabyteFromAFileInBoundedProcessMemory() async throws {
        // A sparse 1 GiB file: read back as zeros without a gigabyte of disk writes.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-upload-\(UUID()).bin").path
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()

        let run = try await ChildProcess.launch(
            ChildProcess.siblingExecutable("parley-bench"),
            arguments: ["--url", plainURL + "/upload", "--requests", "1", "--mode", "upload", "--in", path])
        #expect(run.status == 0, "parley-bench failed: \(run.output)")
        #expect(run.output.contains("ok=1 errors=0"))
        #expect(run.output.contains("bytes=\(1 << 30) "))
        if Sanitizer.active == nil {  // under a sanitizer the peak is the sanitizer's
            #expect(run.peakResidentBytes < 48 << 20, "peak RSS \(run.peakResidentBytes >> 20) MiB for a 1 GiB upload")
        }
    }

    /// Writes `blocks` repetitions of a pattern block into nginx's root; returns its name.
    private func makeLargeFile(blocks: Int) throws -> (name: String, block: Data, blocks: Int) {
        let root = try ExternalServers.require(ExternalServers.nginxRoot, "PARLEY_NGINX_ROOT")
        let name = "large-\(UUID().uuidString).bin"
        let block = pattern(0..<(251 * 4096))
        let path = root + "/" + name
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for _ in 0..<blocks { try handle.write(contentsOf: block) }
        try handle.close()
        return (name, block, blocks)
    }

    private func removeLargeFile(_ name: String) {
        guard let root = ExternalServers.nginxRoot else { return }
        try? FileManager.default.removeItem(atPath: root + "/" + name)
    }

    /// The server's public-key pin in libcurl's `sha256//BASE64` form, computed with openssl.
    private func serverPublicKeyPin() throws -> String {
        let authority = tlsURL.replacingOccurrences(of: "https://", with: "")
        let script = """
            echo | openssl s_client -connect \(authority) -servername localhost 2>/dev/null \
              | openssl x509 -pubkey -noout | openssl pkey -pubin -outform der \
              | openssl dgst -sha256 -binary | openssl enc -base64
            """
        let child = try SpawnedChild.start("/bin/sh", arguments: ["-c", script], output: .pipe)
        let printed = child.output?.readToEndRetryingInterrupts() ?? Data()
        child.waitForExit()
        let output = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(output.count == 44, "openssl did not print a SHA-256 pin: \(output)")
        return "sha256//" + output
    }
}
