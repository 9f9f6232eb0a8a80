import Caching
import Foundation
import HTTPTypes
import MockBackend
import Transport
import TransportCurl

/// A wall clock that moves only when a test moves it, starting at the real time (the mock
/// server's `Date` is real).
final class ManualClock: Sendable {
    private let current: PThreadMutex<Date>

    init(_ start: Date = Date()) {
        current = PThreadMutex(start)
    }

    var now: Date { current.withLock { $0 } }

    /// The closure ``HTTPCache/Options/clock`` takes.
    var read: @Sendable () -> Date { { [self] in now } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// An HTTP date (IMF-fixdate), such as `Sun, 06 Nov 1994 08:49:37 GMT`.
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

/// `text` percent-encoded for a query value.
func queryValue(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}

/// A JSON document's object.
func object(_ data: Data) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
}

/// How many full responses `/cache` says it has served for this body.
func servedCount(_ response: DataResponse) throws -> Int? {
    try object(response.body)["served"] as? Int
}

/// A GET request.
func get(_ url: String, headers: KeyValuePairs<String, String> = [:]) throws -> TransportRequest {
    try TransportRequest(method: .get, url: url, headers: headers)
}

extension CacheEntry {
    /// An entry for tests: a 200 with `fields` and `body`, received at `time`.
    static func sample(
        key: String = "https://example.com/a", fields: HTTPFields = [.cacheControl: "max-age=60"],
        body: Data = Data("hello".utf8), time: Date = Date(timeIntervalSince1970: 1_795_316_400)
    ) -> CacheEntry {
        CacheEntry(
            key: key, head: HTTPResponse(status: .ok, headerFields: fields), body: body,
            varyingFields: [CacheEntry.VaryingField(name: "Accept-Language", value: "fr")], requestTime: time,
            responseTime: time.addingTimeInterval(0.25))
    }
}
