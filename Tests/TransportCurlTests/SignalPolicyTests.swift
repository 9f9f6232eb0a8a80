import Foundation
import Glibc
import MockBackend
import TestSupport
import Testing

/// The engine's signal policy: it leaves `SIGPIPE`'s disposition to the program, and a peer that
/// closes mid-upload is a transport error, never a signal, over plain HTTP and over TLS.
///
/// Each test runs `parley-bench` as a child with the signal state a shell gives it (`SIGPIPE` at
/// its default: the process ends on it), whatever this test process blocks or ignores. A child
/// killed by the signal reports status 141 (128 + 13).
///
/// How the upload tests were checked to fail: the same children with a preloaded shim that
/// clears `MSG_NOSIGNAL` from `send` and `sendto` die with status 141 on both servers, so each
/// scenario does reach a write to a broken pipe (`strace` shows `sendto … = -1 EPIPE`, plain
/// and TLS records alike); with libcurl's own flags the write fails with `EPIPE` and the
/// request with `connectionReset`.
@Suite struct SignalPolicyTests {
    /// A body far larger than the socket buffers on loopback, so the client is still writing
    /// when the server's reset arrives.
    static let uploadSize = 32 << 20

    @Test(.timeLimit(.minutes(1)))
    func aPeerClosingMidUploadOverPlainHTTPFailsTheRequestWithoutASignal() async throws {
        try await Self.withClosingServer { port in
            let run = try await Self.upload(to: "http://127.0.0.1:\(port)/upload")

            #expect(run.status == 1, "parley-bench should report failed requests, not die: \(run.output)")
            #expect(run.output.contains("connectionReset"), "\(run.output)")
            #expect(run.output.contains("RESULT "), "\(run.output)")
        }
    }

    @Test(
        .timeLimit(.minutes(1)),
        .enabled(
            if: ExternalServers.required || ExternalServers.testCA != nil, "the test CA is missing: use `make test`")
    )
    func aPeerClosingMidUploadOverTLSFailsTheRequestWithoutASignal() async throws {
        let caFile = try ExternalServers.require(ExternalServers.testCA, "PARLEY_TEST_CA")
        let tlsFolder = URL(fileURLWithPath: caFile).deletingLastPathComponent().path
        try await Self.withClosingServer(tls: (tlsFolder + "/server.pem", tlsFolder + "/server.key")) { port in
            let run = try await Self.upload(to: "https://127.0.0.1:\(port)/upload", arguments: ["--cacert", caFile])

            #expect(run.status == 1, "parley-bench should report failed requests, not die: \(run.output)")
            #expect(run.output.contains("connectionReset"), "\(run.output)")
        }
    }

    /// A program that links the engine keeps the `SIGPIPE` disposition it started with: read
    /// from `/proc` while the child's request waits on a server that never answers. (With the
    /// disposition changed on first use, bit 13 of `SigIgn` is set and this fails.)
    @Test(.timeLimit(.minutes(1)))
    func aProgramUsingTheEngineKeepsItsSIGPIPEDisposition() async throws {
        try await ScriptedSocketServer.withRunning(.holdOpen) { server in
            let bench = try ChildProcess.siblingExecutable("parley-bench")
            let child = try SpawnedChild.start(
                bench, arguments: ["--url", server.baseURL + "/held", "--requests", "1"])
            defer { child.kill() }

            try await waitUntil { server.acceptedConnections >= 1 }
            let status = try String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)
            let ignored = try #require(
                status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }.flatMap {
                    UInt64($0.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16)
                }, "no SigIgn line in /proc/\(child.pid)/status")
            #expect(ignored & (1 << (UInt64(SIGPIPE) - 1)) == 0, "SIGPIPE is ignored in the child: SigIgn \(ignored)")
        }
    }

    /// Uploads a file of ``uploadSize`` bytes to `url` three times with `parley-bench`.
    private static func upload(to url: String, arguments: [String] = []) async throws -> ChildProcess {
        try await withTemporaryFolder { folder in
            let file = folder + "/body.bin"
            try Data(count: uploadSize).write(to: URL(fileURLWithPath: file))
            return try await ChildProcess.launch(
                try ChildProcess.siblingExecutable("parley-bench"),
                arguments: ["--url", url, "--mode", "upload", "--in", file, "--requests", "3"] + arguments)
        }
    }

    /// Runs `body` with the port of `Tools/scripts/closing-server.py`, a server that reads each
    /// request's head and closes with the body unread; over TLS with `tls`'s certificate and key
    /// (the test CA signed nginx's for `127.0.0.1`).
    private static func withClosingServer(
        tls: (certificate: String, key: String)? = nil, _ body: (Int) async throws -> Void
    ) async throws {
        try await withTemporaryFolder { folder in
            let script = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Tools/scripts/closing-server.py").path
            let portFile = folder + "/port"
            let tlsArguments = tls.map { [$0.certificate, $0.key] } ?? []
            let server = try SpawnedChild.start(
                "/usr/bin/env", arguments: ["python3", script, portFile] + tlsArguments)
            defer { server.kill() }
            try await waitUntil { FileManager.default.fileExists(atPath: portFile) }
            let text = try String(contentsOfFile: portFile, encoding: .utf8)
            let port = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "port file: \(text)")
            try await body(port)
        }
    }
}
