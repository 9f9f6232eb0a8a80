package import Foundation

/// A record kept in a sidecar file beside a download's or an upload's file.
package protocol SidecarRecord: Codable {}

extension SidecarRecord {
    /// The record as one line of JSON with sorted keys.
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
