/// Reads HTTP/1.1 requests off a raw connection just far enough to know where each ends.
///
/// ``ScriptedSocketServer`` needs the request head (to know the client has finished asking)
/// and the body's extent (so it can skip it before the next request, and so unread bytes do
/// not turn a clean close into a reset). It does not interpret anything else.
struct RequestHeadReader {
    /// The largest head accepted: 1 MiB. A longer one ends the connection.
    static let maximumHeadLength = 1 << 20

    private let descriptor: Int32
    private let wakeDescriptor: Int32
    /// Bytes received but not yet consumed.
    private var pending: [UInt8] = []
    /// The head most recently read, up to and including the blank line.
    private var head: [UInt8] = []

    init(descriptor: Int32, wakeDescriptor: Int32) {
        self.descriptor = descriptor
        self.wakeDescriptor = wakeDescriptor
    }

    /// Reads up to and including the next `\r\n\r\n`.
    ///
    /// - Returns: `true` when a whole head arrived; `false` when the peer closed, the head was
    ///   too long, or the server is stopping.
    mutating func readHead() -> Bool {
        while true {
            if let end = pending.firstRange(of: [13, 10, 13, 10]) {
                head = Array(pending[..<end.upperBound])
                pending.removeSubrange(..<end.upperBound)
                return true
            }
            guard pending.count <= RequestHeadReader.maximumHeadLength else { return false }
            guard Socket.receive(into: &pending, from: descriptor, orWoken: wakeDescriptor) > 0 else { return false }
        }
    }

    /// Reads and discards the body of the last request: `Content-Length` bytes, or a chunked
    /// body up to its last chunk. A body with neither is taken to be empty.
    mutating func skipBody() {
        let headText = String(decoding: head, as: UTF8.self).lowercased()
        if let length = RequestHeadReader.contentLength(in: headText) {
            while pending.count < length {
                guard Socket.receive(into: &pending, from: descriptor, orWoken: wakeDescriptor) > 0 else { return }
            }
            pending.removeSubrange(..<length)
        } else if headText.contains("transfer-encoding: chunked") {
            // The last chunk and an empty trailer: "0\r\n\r\n" at the start of a line.
            let terminator: [UInt8] = [48, 13, 10, 13, 10]
            while true {
                if let end = RequestHeadReader.lastChunkEnd(in: pending, terminator: terminator) {
                    pending.removeSubrange(..<end)
                    return
                }
                guard Socket.receive(into: &pending, from: descriptor, orWoken: wakeDescriptor) > 0 else { return }
            }
        }
    }

    /// Reads and discards until the peer closes, the server stops, or `timeout` passes with
    /// nothing to read.
    ///
    /// - Parameter timeout: Milliseconds of silence to accept; -1 waits indefinitely.
    mutating func discardUntilPeerCloses(timeout: Int32 = -1) {
        while Socket.receive(into: &pending, from: descriptor, orWoken: wakeDescriptor, timeout: timeout) > 0 {
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// The value of the `content-length` header in a lowercased head, if present.
    private static func contentLength(in headText: String) -> Int? {
        for line in headText.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }))
        }
        return nil
    }

    /// The index just past the chunked terminator in `bytes`, if it is there.
    private static func lastChunkEnd(in bytes: [UInt8], terminator: [UInt8]) -> Int? {
        var searchStart = bytes.startIndex
        while let match = bytes[searchStart...].firstRange(of: terminator) {
            let atLineStart =
                match.lowerBound == bytes.startIndex
                || (match.lowerBound >= 2 && bytes[match.lowerBound - 2] == 13 && bytes[match.lowerBound - 1] == 10)
            if atLineStart { return match.upperBound }
            searchStart = match.upperBound
        }
        return nil
    }
}
