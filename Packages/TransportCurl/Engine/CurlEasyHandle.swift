import CCurl
import Transport

/// One libcurl easy handle and its error buffer, reused across transfers by the loop.
///
/// Touched only on the loop thread.
final class CurlEasyHandle {
    /// The `CURL *`.
    let pointer: OpaquePointer
    /// Whether the options that are the same for every request of the transport are set.
    var isPrepared = false
    /// libcurl writes a detailed message here when a transfer fails (`CURLOPT_ERRORBUFFER`).
    let errorBuffer: UnsafeMutablePointer<CChar>

    /// Creates a handle, or `nil` when libcurl cannot.
    init?() {
        guard let pointer = curl_easy_init() else { return nil }
        self.pointer = pointer
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        LiveCounts.easyHandles.increment()
    }

    /// The message libcurl left in the error buffer, or `nil` when empty.
    var errorMessage: String? {
        errorBuffer.pointee == 0 ? nil : String(cString: errorBuffer)
    }

    /// Frees the handle; it must not be used afterwards.
    func cleanup() {
        curl_easy_cleanup(pointer)
        errorBuffer.deallocate()
        LiveCounts.easyHandles.decrement()
    }
}
