public import Foundation
public import HTTPTypes

/// One stored response, as a ``CacheStorage`` keeps it: the head and body the server sent,
/// what the request said about the headers the response varies on, and when the exchange
/// happened.
///
/// ``HTTPCache`` builds entries; a storage only keeps them and hands them back unchanged.
public struct CacheEntry: Sendable, Hashable {
    /// A request header field a stored response depends on (named by its `Vary`), and the
    /// value the request that produced it had.
    public struct VaryingField: Sendable, Hashable {
        /// The field's name, lowercased.
        public var name: String
        /// The request's values of that field joined with `", "`; `nil` when it had none.
        public var value: String?

        /// Creates a varying field.
        ///
        /// - Parameters:
        ///   - name: The field's name.
        ///   - value: The request's value, or `nil` when the request did not have the field.
        public init(name: String, value: String?) {
            self.name = name.lowercased()
            self.value = value
        }
    }

    /// The key the entry is stored under: the request's URL (`scheme://authority/path?query`).
    public var key: String
    /// The status and header fields as received, without the hop-by-hop fields, and updated by
    /// each `304` that revalidated the entry.
    public var head: HTTPResponse
    /// The body, decoded when the engine decoded it.
    public var body: Data
    /// The request's values of the fields the response's `Vary` names, in that order.
    public var varyingFields: [VaryingField]
    /// When the request that produced (or last revalidated) the entry was sent.
    public var requestTime: Date
    /// When its response arrived.
    public var responseTime: Date

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - key: The request's URL.
    ///   - head: The response head to keep.
    ///   - body: The response body.
    ///   - varyingFields: The request's values of the fields the response varies on.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response arrived.
    public init(
        key: String, head: HTTPResponse, body: Data, varyingFields: [VaryingField] = [], requestTime: Date,
        responseTime: Date
    ) {
        self.key = key
        self.head = head
        self.body = body
        self.varyingFields = varyingFields
        self.requestTime = requestTime
        self.responseTime = responseTime
    }

    /// An estimate of the memory the entry takes: its body, key and header bytes.
    public var approximateSize: Int {
        var size = body.count + key.utf8.count + 64
        for field in head.headerFields {
            size += field.name.canonicalName.utf8.count + field.withUnsafeBytesOfValue(\.count) + 4
        }
        for field in varyingFields {
            size += field.name.utf8.count + (field.value?.utf8.count ?? 0) + 4
        }
        return size
    }
}
