import ArgumentParser
import BenchmarkSupport
import Synchronization
import Testing

@Suite struct ClosedLoopTests {
    @Test func issuesEveryTimedRequestOnceAfterTheWarmUp() async throws {
        // Given 10 timed requests and 4 warm-up requests on 3 workers
        let options = try BenchmarkOptions.parse([
            "--url", "http://127.0.0.1/", "--requests", "10", "--concurrency", "3", "--warmup", "4",
        ])
        // `Mutex`: the library's `PThreadMutex` is `package`, and this package's tests never
        // run under a sanitizer (CONTRIBUTING.md, Locks).
        let calls = Mutex<[Int]>([])

        // When every request reports 200 bytes
        let report = await runClosedLoop(options: options) { index in
            calls.withLock { $0.append(index) }
            return 200
        }

        // Then the warm-up indices come first, and the report covers the timed phase alone
        let indices = calls.withLock { $0 }
        #expect(indices.count == 14)
        #expect(indices.prefix(4).sorted() == [0, 1, 2, 3])
        #expect(indices.dropFirst(4).sorted() == Array(0..<10))
        #expect(report.ok == 10)
        #expect(report.errors == 0)
        #expect(report.bytes == 2000)
        #expect(report.latenciesMicroseconds.count == 10)
        #expect(report.succeeded)
    }

    @Test func countsFailuresAndFailsTheRun() async throws {
        let options = try BenchmarkOptions.parse(["--url", "http://127.0.0.1/", "--requests", "6"])

        let report = await runClosedLoop(options: options) { index in
            if index.isMultiple(of: 3) { throw UnexpectedStatus(code: 503) }
            return 1
        }

        #expect(report.ok == 4)
        #expect(report.errors == 2)
        #expect(report.bytes == 4)
        #expect(!report.succeeded)
        #expect(report.resultLine(peer: "t").description.contains("ok=4 errors=2"))
    }
}
