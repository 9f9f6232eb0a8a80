import BenchmarkSupport
import Testing

@Suite struct PercentileTests {
    @Test(arguments: [(50.0, 50.0), (99.0, 99.0), (100.0, 100.0), (0.0, 1.0), (99.5, 100.0)])
    func takesTheNearestRankOfOneToAHundred(percent: Double, expected: Double) {
        // Given the samples 1...100
        let samples = (1...100).map(Double.init)

        // When / Then
        #expect(percentile(percent, ofSorted: samples) == expected)
    }

    @Test func roundsTheRankUpOnSmallSamples() {
        #expect(percentile(50, ofSorted: [1, 2, 3]) == 2)
        #expect(percentile(99, ofSorted: [1, 2, 3]) == 3)
    }

    @Test func answersZeroForNoSamples() {
        #expect(percentile(50, ofSorted: []) == 0)
    }
}
