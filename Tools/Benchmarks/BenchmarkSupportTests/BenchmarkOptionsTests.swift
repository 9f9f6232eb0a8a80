import ArgumentParser
import BenchmarkSupport
import Testing

@Suite struct BenchmarkOptionsTests {
    @Test func defaultsMatchTheContract() throws {
        let options = try BenchmarkOptions.parse(["--url", "http://127.0.0.1:8080/small.bin"])

        #expect(options.requests == 1000)
        #expect(options.concurrency == 1)
        #expect(options.mode == .get)
        #expect(options.out == "/dev/null")
        #expect(options.input == nil)
        #expect(options.warmup == 0)
        #expect(options.cacert == nil)
        #expect(options.label == nil)
        #expect(!options.idle)
        #expect(!options.isSecure)
    }

    @Test func idleRunsSendNoRequest() throws {
        let options = try BenchmarkOptions.parse(["--url", "http://127.0.0.1/", "--idle", "--concurrency", "8"])
        let report = ClosedLoopReport.idle(options: options)

        #expect(options.idle)
        #expect(report.requests == 0)
        #expect(report.succeeded)
        #expect(report.resultLine(peer: "x").description.contains("requests=0 concurrency=8 ok=0 errors=0"))
    }

    @Test func parsesEveryFlag() throws {
        let options = try BenchmarkOptions.parse([
            "--url", "https://127.0.0.1:8443/upload", "--requests", "4", "--concurrency", "2", "--mode", "upload",
            "--out", "/tmp/out", "--in", "/tmp/in", "--warmup", "1", "--cacert", "/tmp/ca.pem", "--label", "x",
        ])

        #expect(options.requests == 4)
        #expect(options.concurrency == 2)
        #expect(options.mode == .upload)
        #expect(options.out == "/tmp/out")
        #expect(options.input == "/tmp/in")
        #expect(options.warmup == 1)
        #expect(options.cacert == "/tmp/ca.pem")
        #expect(options.label == "x")
        #expect(options.isSecure)
    }

    @Test(arguments: [
        ["--requests", "0"], ["--concurrency", "0"], ["--warmup", "-1"], ["--mode", "upload"], ["--mode", "put"],
    ])
    func rejectsInvalidCombinations(arguments: [String]) {
        #expect(throws: (any Error).self) {
            try BenchmarkOptions.parse(["--url", "http://127.0.0.1/"] + arguments)
        }
    }
}
