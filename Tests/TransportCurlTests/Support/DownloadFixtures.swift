import Downloads
import Foundation
import Glibc
import HTTPTypes
import MockBackend
import Retry
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// The mock server, a transport and a fresh folder: what most download tests start from.
func withDownloadFixture(
    _ body: (MockServer, CurlTransport, String) async throws -> Void
) async throws {
    try await MockServer.withRunning { server in
        try await withTransport { transport in
            try await withTemporaryFolder { folder in try await body(server, transport, folder) }
        }
    }
}

/// Options for tests: quick retries under a budget of their own (tests that run at once must
/// not spend each other's), no flushing (the tests stop processes, not power).
func testOptions(maximumRetries: Int = 3) -> FileDownload.Options {
    var options = FileDownload.Options()
    options.retry.maximumRetries = maximumRetries
    options.retry.baseDelay = .milliseconds(10)
    options.retry.budget = nil
    options.synchronizesToDisk = false
    return options
}

func contents(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: path)
}

/// The JSON of a sidecar, as ``FileDownload`` writes it.
func sidecar(url: String, etag: String, total: Int) -> Data {
    let escapedTag = etag.replacingOccurrences(of: "\"", with: "\\\"")
    return Data(#"{"etag":"\#(escapedTag)","totalLength":\#(total),"url":"\#(url)","version":1}"#.utf8)
}
