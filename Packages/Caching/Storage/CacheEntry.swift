public import Foundation
public import HTTPTypes
package import Transport

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

    /// What an entry holds, in one allocation shared by its copies: a storage, the cache and
    /// the response it answers pass entries around, and a copy then costs one reference count
    /// rather than one per string, field list and body. Never changed once made; a setter of
    /// the entry makes a new one.
    private final class Parts: Sendable {
        let key: String
        /// The head as handed over: a received head that nobody has read is kept as its lines,
        /// and built on the entry's first read.
        let receivedHead: LazyResponseHead
        let body: Data
        let varyingFields: [VaryingField]
        let variantGroup: String?
        let requestTime: Date
        let responseTime: Date
        let approximateSize: Int

        init(
            key: String, receivedHead: LazyResponseHead, body: Data, varyingFields: [VaryingField],
            variantGroup: String?, requestTime: Date, responseTime: Date
        ) {
            self.key = key
            self.receivedHead = receivedHead
            self.body = body
            self.varyingFields = varyingFields
            self.variantGroup = variantGroup
            self.requestTime = requestTime
            self.responseTime = responseTime
            var size = body.count + key.utf8.count + 64
            if let received = receivedHead.received {
                // The lines' length: counting the fields would build them.
                size += received.byteCount
            } else {
                let fields = receivedHead.response.headerFields
                for index in fields.indices {
                    // A value's `String` is the field's own (no bytes are decoded for one
                    // received as text), and its length is stored with it.
                    size += fields[index].name.canonicalName.utf8.count + fields[index].value.utf8.count + 4
                }
            }
            for field in varyingFields {
                size += field.name.utf8.count + (field.value?.utf8.count ?? 0) + 4
            }
            size += variantGroup?.utf8.count ?? 0
            approximateSize = size
        }

        /// These parts with some replaced.
        func with(
            key: String? = nil, receivedHead: LazyResponseHead? = nil, body: Data? = nil,
            varyingFields: [VaryingField]? = nil, variantGroup: String?? = nil, requestTime: Date? = nil,
            responseTime: Date? = nil
        ) -> Parts {
            Parts(
                key: key ?? self.key, receivedHead: receivedHead ?? self.receivedHead, body: body ?? self.body,
                varyingFields: varyingFields ?? self.varyingFields, variantGroup: variantGroup ?? self.variantGroup,
                requestTime: requestTime ?? self.requestTime, responseTime: responseTime ?? self.responseTime)
        }
    }

    private var parts: Parts

    /// The key the entry is stored under: the request's URL (`scheme://authority/path?query`),
    /// followed, for a variant kept beside the one stored under the URL, by a space and the
    /// variant's name (``HTTPCache`` makes such keys; a URL never holds a space).
    public var key: String {
        get { parts.key }
        set { parts = parts.with(key: newValue) }
    }
    /// The status and header fields as received, without the hop-by-hop fields (those
    /// `Connection` names among them), and updated by
    /// each `304` that revalidated the entry.
    ///
    /// The fields a stored head leaves out (hop-by-hop fields such as `Connection`, and the
    /// cache's own `X-Parley-Cache` mark) are left out when the head is read, not when the entry
    /// is made: an ``HTTPCache`` stores the very head it hands on with a miss (the engine's
    /// received lines, built on the entry's first read), so that storing an answer copies or
    /// builds none of its fields.
    public var head: HTTPResponse {
        get { Self.withoutFieldsLeftOut(parts.receivedHead.response) }
        set { parts = parts.with(receivedHead: LazyResponseHead(newValue)) }
    }
    /// The body, decoded when the engine decoded it.
    public var body: Data {
        get { parts.body }
        set { parts = parts.with(body: newValue) }
    }
    /// The request's values of the fields the response's `Vary` names, in that order.
    public var varyingFields: [VaryingField] {
        get { parts.varyingFields }
        set {
            let (fields, group) = Self.separatingGroup(newValue)
            parts = parts.with(varyingFields: fields, variantGroup: .some(group ?? parts.variantGroup))
        }
    }

    /// The name ``HTTPCache`` gives the variants of one URL, kept in the entry stored under the
    /// URL itself: the variants' keys carry it, and a new entry under the URL after the old one
    /// was removed gets a new one, so that the variants stored before can no longer be found.
    /// `nil` for an entry that names no variants.
    package var variantGroup: String? {
        get { parts.variantGroup }
        set { parts = parts.with(variantGroup: .some(newValue)) }
    }

    /// The varying fields as a storage writes them: ``varyingFields`` and, when the entry has
    /// a ``variantGroup``, one more under the reserved name ``variantGroupFieldName``, which
    /// ``init(key:head:body:varyingFields:requestTime:responseTime:)`` reads back as the group.
    package var storedVaryingFields: [VaryingField] {
        guard let group = parts.variantGroup else { return parts.varyingFields }
        return parts.varyingFields + [VaryingField(name: Self.variantGroupFieldName, value: group)]
    }

    /// The name under which ``storedVaryingFields`` carries the variant group: it starts with a
    /// space, which no header field's name holds, so no request's field is ever taken for it.
    package static let variantGroupFieldName = " parley-variant-group"
    /// When the request that produced (or last revalidated) the entry was sent.
    public var requestTime: Date {
        get { parts.requestTime }
        set { parts = parts.with(requestTime: newValue) }
    }
    /// When its response arrived.
    public var responseTime: Date {
        get { parts.responseTime }
        set { parts = parts.with(responseTime: newValue) }
    }

    /// ``head`` with the cache's `X-Parley-Cache` mark, if the stored head has one: what a hit
    /// answers with once it has set the mark's value (an entry a miss stored has the `miss`
    /// mark, which the hit's replaces in place).
    var headKeepingMark: HTTPResponse {
        Self.withoutFieldsLeftOut(parts.receivedHead.response, keepingMark: true)
    }

    /// The head as it was handed over, which may still hold fields ``head`` leaves out; read
    /// by the cache wherever those fields make no difference (freshness, validators, `Vary`).
    var receivedHead: HTTPResponse { parts.receivedHead.response }

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - key: The request's URL.
    ///   - head: The response head to keep; its hop-by-hop fields and `X-Parley-Cache` are left
    ///     out of ``head``.
    ///   - body: The response body.
    ///   - varyingFields: The request's values of the fields the response varies on, as a
    ///     storage wrote them (with the cache's own record of the URL's variants, if any).
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response arrived.
    public init(
        key: String, head: HTTPResponse, body: Data, varyingFields: [VaryingField] = [], requestTime: Date,
        responseTime: Date
    ) {
        self.init(
            key: key, lazyHead: LazyResponseHead(head), body: body, varyingFields: varyingFields,
            requestTime: requestTime, responseTime: responseTime)
    }

    /// An entry whose head is kept as it came, an engine's received head built only when the
    /// entry is first read; the parameters are those of
    /// ``init(key:head:body:varyingFields:requestTime:responseTime:)``.
    package init(
        key: String, lazyHead: LazyResponseHead, body: Data, varyingFields: [VaryingField] = [], requestTime: Date,
        responseTime: Date
    ) {
        let (fields, group) = Self.separatingGroup(varyingFields)
        parts = Parts(
            key: key, receivedHead: lazyHead, body: body, varyingFields: fields, variantGroup: group,
            requestTime: requestTime, responseTime: responseTime)
    }

    /// `fields` without the one that carries a variant group, and that group.
    ///
    /// The group is the last field of the reserved name with a value, where
    /// ``storedVaryingFields`` puts it: fields given with that name more than once, or without
    /// a value (only a damaged or forged entry has them), then read back as they were written,
    /// the others kept in order among the varying fields.
    private static func separatingGroup(_ fields: [VaryingField]) -> ([VaryingField], String?) {
        guard let index = fields.lastIndex(where: { $0.name == variantGroupFieldName && $0.value != nil }) else {
            return (fields, nil)
        }
        var others = fields
        let group = others.remove(at: index).value
        return (others, group)
    }

    /// An estimate of the memory the entry takes: its body, key and header bytes (those of the
    /// fields ``head`` leaves out too, which the entry holds until it is written elsewhere).
    /// Counted once, when the entry is made.
    public var approximateSize: Int { parts.approximateSize }

    /// The same entry revalidated: `head` replaces the head, the times and varying fields are
    /// the new ones; made at once rather than by four setters.
    func revalidated(head: HTTPResponse, varyingFields: [VaryingField], requestTime: Date, responseTime: Date)
        -> CacheEntry
    {
        var entry = self
        entry.parts = parts.with(
            receivedHead: LazyResponseHead(head), varyingFields: varyingFields, requestTime: requestTime,
            responseTime: responseTime)
        return entry
    }

    // MARK: - Equality

    /// Whether two entries hold the same key, head (as ``head`` reads it), body, varying fields
    /// (with the variant group) and times.
    public static func == (lhs: CacheEntry, rhs: CacheEntry) -> Bool {
        lhs.key == rhs.key && lhs.body == rhs.body && lhs.storedVaryingFields == rhs.storedVaryingFields
            && lhs.requestTime == rhs.requestTime && lhs.responseTime == rhs.responseTime && lhs.head == rhs.head
    }

    /// Hashes what `==` compares: the key, the head as ``head`` reads it, the body, the varying
    /// fields and the times.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(head)
        hasher.combine(body)
        hasher.combine(storedVaryingFields)
        hasher.combine(requestTime)
        hasher.combine(responseTime)
    }

    // MARK: - Fields left out

    /// Whether a field is never part of a stored head: a hop-by-hop field (RFC 9111 §3.1), or
    /// the cache's own mark. The fields a `Connection` field names are left out too
    /// (``isLeftOut(_:connectionNamed:)``).
    ///
    /// Names are told apart by length first: every stored response's fields pass here, and most
    /// have no name of these lengths.
    static func isLeftOut(_ name: HTTPField.Name) -> Bool {
        let name = name.canonicalName
        switch name.utf8.count {
        case 2: return name == "te"
        case 7: return name == "trailer" || name == "upgrade"
        case 10: return name == "connection" || name == "keep-alive"
        case 14: return name == "x-parley-cache"
        case 16: return name == "proxy-connection"
        case 17: return name == "transfer-encoding"
        default: return false
        }
    }

    /// The names, lowercased, that the `Connection` fields of `fields` list: hop-by-hop fields
    /// of that one connection (RFC 9110 §7.6.1), never stored (RFC 9111 §3.1). Empty, with no
    /// allocation, for fields without `Connection`.
    static func connectionNamed(_ fields: HTTPFields) -> Set<String> {
        var names: Set<String> = []
        for value in fields[values: .connection] {
            for member in value.split(separator: ",") {
                let name = String(member).trimmingSpaces().lowercased()
                if !name.isEmpty { names.insert(name) }
            }
        }
        return names
    }

    /// Whether a field of a head whose `Connection` lists `connectionNamed` is never stored:
    /// ``isLeftOut(_:)``, or a field `Connection` names.
    static func isLeftOut(_ name: HTTPField.Name, connectionNamed: Set<String>) -> Bool {
        isLeftOut(name) || (!connectionNamed.isEmpty && connectionNamed.contains(name.canonicalName))
    }

    /// `head` without the fields ``isLeftOut(_:connectionNamed:)`` names: `head` itself,
    /// sharing its fields, when it has none of them.
    ///
    /// - Parameters:
    ///   - head: A stored head.
    ///   - keepingMark: Whether an `X-Parley-Cache` mark stays, for a caller that sets the
    ///     mark's value next (a hit), which then replaces it rather than removes and appends it.
    static func withoutFieldsLeftOut(_ head: HTTPResponse, keepingMark: Bool = false) -> HTTPResponse {
        var stored = head
        let named = connectionNamed(head.headerFields)
        // Removed by name, only those that are there: rebuilding the fields instead goes
        // through `HTTPFields`' generic replacement for each field, several times the cost.
        for field in head.headerFields where isLeftOut(field.name, connectionNamed: named) {
            if keepingMark, field.name == CacheStatus.headerName { continue }
            stored.headerFields[field.name] = nil
        }
        return stored
    }
}
