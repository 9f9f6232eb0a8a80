import BenchmarkSupport
import Testing

@Suite struct ResultLineTests {
    @Test func printsEveryFieldOfTheContractInOrder() {
        // Given a run of 1000 requests in half a second
        let line = ResultLine(
            peer: "curl",
            mode: .get,
            requests: 1000,
            concurrency: 64,
            ok: 1000,
            errors: 0,
            seconds: 0.5,
            p50Microseconds: 78.14,
            p99Microseconds: 120.45,
            bytes: 200_000,
            cpuSeconds: 0.052
        )

        // When / Then
        #expect(
            line.description
                == "RESULT peer=curl mode=get requests=1000 concurrency=64 ok=1000 errors=0 seconds=0.500000 "
                + "rps=2000.0 p50_us=78.1 p99_us=120.5 bytes=200000 bytes_per_s=400000 cpu_s=0.052000"
        )
    }

    @Test func reportsZeroRatesForAnEmptyWindow() {
        let line = ResultLine(
            peer: "ahc", mode: .download, requests: 1, concurrency: 1, ok: 0, errors: 1, seconds: 0,
            p50Microseconds: 0, p99Microseconds: 0, bytes: 0, cpuSeconds: 0
        )

        #expect(line.requestsPerSecond == 0)
        #expect(line.bytesPerSecond == 0)
        #expect(line.description.contains("rps=0.0 "))
    }

    @Test(arguments: [
        (3.14159, 2, "3.14"), (2.5, 0, "3"), (0.05, 1, "0.1"), (0, 6, "0.000000"), (-1.25, 1, "-1.3"),
        (1_234_567.891, 0, "1234568"), (0.000001, 6, "0.000001"), (-0.0001, 2, "0.00"),
    ])
    func formatsFixedPointAsPrintfDoes(value: Double, decimals: Int, expected: String) {
        #expect(fixed(value, decimals: decimals) == expected)
    }

    @Test func spellsNonFiniteValuesAsPrintfDoes() {
        #expect(fixed(.nan, decimals: 1) == "nan")
        #expect(fixed(.infinity, decimals: 1) == "inf")
        #expect(fixed(-.infinity, decimals: 1) == "-inf")
    }
}
