import Foundation
import Glibc
import MockBackend
import TestSupport
import Testing

/// `parley-demo downloads`: several files at once through a download manager, each with a bar.
@Suite struct DemoDownloadsTests {
    static func pattern(_ count: Int) -> Data {
        Data(BytePattern.bytes(0..<count))
    }

    @Test func downloadsEveryFileAndPrintsOneLineEach() async throws {
        try await withTemporaryFolder { folder in
            let run = try await runDemo([
                "downloads", "--count", "3", "--parallel", "2", "--size", "300000", "--chunk-delay", "1",
                "--output-dir", folder,
            ])

            #expect(run.status == 0, "\(run.standardError)")
            #expect(
                run.standardOutput.split(separator: "\n")
                    == ["file-1.bin: 300000 bytes", "file-2.bin: 300000 bytes", "file-3.bin: 300000 bytes"])
            for index in 1...3 {
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: folder + "/file-\(index).bin")) == Self.pattern(300_000))
            }
            // Piped, the console writes each bar's end as a plain line.
            for index in 1...3 { #expect(run.standardError.contains("file-\(index).bin"), "\(run.standardError)") }
        }
    }

    @Test func printsTheFilesAsJSON() async throws {
        try await withTemporaryFolder { folder in
            let run = try await runDemo([
                "--json", "downloads", "--count", "2", "--size", "200000", "--chunk-delay", "0", "--output-dir",
                folder,
            ])

            #expect(run.status == 0, "\(run.standardError)")
            let files = try #require(try run.json() as? [[String: Any]])
            #expect(files.map { $0["file"] as? String } == ["file-1.bin", "file-2.bin"])
            #expect(files.map { $0["bytes"] as? Int } == [200_000, 200_000])
            #expect(files.map { $0["resumedFrom"] as? Int } == [0, 0])
        }
    }

    @Test func refusesCountsOutOfRange() async throws {
        let run = try await runDemo(["downloads", "--parallel", "0"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("--parallel must be from 1 to 8"))
    }
}
