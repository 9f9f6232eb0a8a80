import Foundation

/// Runs `body` with the path of a new, empty folder under the temporary directory, and removes
/// the folder and everything in it afterwards, whether `body` returns or throws.
package func withTemporaryFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try await body(folder)
}
