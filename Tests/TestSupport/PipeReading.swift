package import Foundation
import Glibc

extension FileHandle {
    /// Every byte until the writer closes its end, read with `read(2)` and retried on `EINTR`.
    ///
    /// Foundation's `readDataToEndOfFile()` and `availableData` stop the process with a
    /// `try!` when a signal interrupts the read, and the test process receives signals
    /// (children exiting, the console's handlers in other tests): a child's output is read
    /// with this instead.
    package func readToEndRetryingInterrupts() -> Data {
        var data = Data()
        while let chunk = readChunkRetryingInterrupts() { data.append(chunk) }
        return data
    }

    /// The next bytes the writer sent, at most `limit`, blocking until there are some; `nil` at
    /// the end (or on an error other than `EINTR`).
    package func readChunkRetryingInterrupts(upTo limit: Int = 64 * 1024) -> Data? {
        var buffer = [UInt8](repeating: 0, count: max(1, limit))
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Data(buffer[0..<count]) }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }
}
