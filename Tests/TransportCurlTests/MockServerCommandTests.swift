import Foundation
import Glibc
import HTTPTypes
import TestSupport
import Testing
import Transport
import TransportCurl

/// `parley-mock-server`, run as a person runs it: the built binary, its one line on standard
/// output, a request to the port it names, and a clean exit on SIGTERM.
@Suite struct MockServerCommandTests {
    @Test func servesOnTheAnnouncedPortAndExitsCleanlyOnSIGTERM() async throws {
        // Given the server started on a port of the kernel's choosing
        let server = try SpawnedChild.start(
            try ChildProcess.siblingExecutable("parley-mock-server"), arguments: ["--port", "0"], output: .pipe)

        // When it announces its address and is asked for /echo
        let line = try await onOwnThread { () -> String in
            var text = ""
            while !text.contains("\n"), let chunk = server.output?.readChunkRetryingInterrupts() {
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        let prefix = "listening on "
        try #require(line.hasPrefix(prefix), "the first line was \(line.debugDescription)")
        let baseURL = String(line.dropFirst(prefix.count))
        let response = try await withTransport { transport in
            try await transport.data(for: TransportRequest(method: .get, url: baseURL + "/echo?from=command"))
        }

        // Then it answers, and SIGTERM ends it with status 0
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"from\""))
        server.send(SIGTERM)
        let ended = try await onOwnThread { server.waitForExit() }
        #expect(ended.exitStatus == 0, "ended by signal \(ended.signal ?? 0)")
    }

    @Test(arguments: [false, true])
    func endsLikeCatWhenNobodyReadsTheLineItAnnounces(ignoringSIGPIPE: Bool) async throws {
        // The pipe is closed before the server can bind and write its line.
        let run = try await ClosedOutputRun.run(
            ChildProcess.siblingExecutable("parley-mock-server"), arguments: ["--port", "0"], readingBytes: 0,
            ignoringSIGPIPE: ignoringSIGPIPE)

        #expect(run.shellStatus == 141, "\(run.standardError)")
        #expect(run.signal == (ignoringSIGPIPE ? nil : SIGPIPE))
        #expect(!run.trapped, "\(run.standardError)")
    }

    @Test func runsOnAfterItsReaderTookTheLineAndWentAway() async throws {
        // `parley-mock-server | head -c 9`: the line is written whole before the reader goes, and
        // nothing is written after it, so the server serves until SIGTERM, which ends it with 0.
        let run = try await ClosedOutputRun.run(
            ChildProcess.siblingExecutable("parley-mock-server"), arguments: ["--port", "0"], readingBytes: 9,
            stop: SIGTERM)

        #expect(String(decoding: run.read, as: UTF8.self) == "listening")
        #expect(run.exitStatus == 0, "\(run.shellStatus)\n\(run.standardError)")
        #expect(!run.trapped, "\(run.standardError)")
    }
}
