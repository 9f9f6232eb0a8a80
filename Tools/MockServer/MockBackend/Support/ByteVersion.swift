import HTTPTypes

/// The version of a `/bytes/{n}` body a request gets: its validators and where in the pattern
/// its bytes start.
///
/// The default version of `/bytes/{n}` is ``BytePattern`` itself with the strong ETag
/// `"pattern-{n}"`. `?etag=VALUE` names another version: ETag `"VALUE"`, and bytes shifted
/// along the pattern by a hash of `VALUE` (byte `i` is `(i + shift) % 251`), so a changed
/// validator really means changed content. Every version has a `Last-Modified` derived from
/// the same shift, on 1 January 2024.
struct ByteVersion: Equatable {
    /// The ETag value (quotes included, `W/` for a weak one), or `nil` for none.
    var entityTag: String?
    /// The `Last-Modified` value, or `nil` for none.
    var lastModified: String?
    /// The offset into ``BytePattern`` of the body's first byte, `0..<251`.
    var shift: Int

    /// The version named by `etag` (`nil` for the default) of an `n`-byte body.
    ///
    /// - Parameters:
    ///   - count: The body's length.
    ///   - etag: The opaque tag, without quotes; `nil` for `pattern-{n}`.
    ///   - weak: Whether the ETag is weak (`W/"…"`).
    ///   - validators: Whether to send `ETag` and `Last-Modified` at all.
    ///   - entityTag: Whether to send the `ETag` (else `Last-Modified` alone).
    init(count: Int, etag: String?, weak: Bool, validators: Bool, entityTag sendsEntityTag: Bool = true) {
        shift = etag.map { Int(StableHash.fnv1a($0) % UInt64(BytePattern.period)) } ?? 0
        guard validators else {
            entityTag = nil
            lastModified = nil
            return
        }
        let tag = "\"\(etag ?? "pattern-\(count)")\""
        entityTag = sendsEntityTag ? (weak ? "W/" + tag : tag) : nil
        // One minute per step of the shift: HH:MM < 04:11.
        lastModified = ByteVersion.lastModified(minute: shift)
    }

    /// A version with the validators given as they are, for bodies other than `/bytes/{n}`'s.
    ///
    /// - Parameters:
    ///   - entityTag: The ETag value, quotes included, or `nil` for none.
    ///   - lastModified: The `Last-Modified` value, or `nil` for none.
    ///   - shift: The offset of the first byte in the body's repeating unit.
    init(entityTag: String?, lastModified: String?, shift: Int = 0) {
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.shift = shift
    }

    /// `Mon, 01 Jan 2024 HH:MM:00 GMT` for the `minute`-th minute of that day (modulo a day).
    static func lastModified(minute: Int) -> String {
        let minuteOfDay = minute % (24 * 60)
        let hours = minuteOfDay / 60
        let minutes = minuteOfDay % 60
        return "Mon, 01 Jan 2024 \(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes):00 GMT"
    }

    /// Whether an `If-Range` value names this version (RFC 9110 §13.1.5): the strong ETag,
    /// compared strongly, or the exact `Last-Modified` date. A weak ETag never matches.
    func matches(ifRange value: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: [" ", "\t"])
        if trimmed.hasPrefix("\"") || trimmed.hasPrefix("W/") {
            guard let entityTag, !entityTag.hasPrefix("W/"), !trimmed.hasPrefix("W/") else { return false }
            return trimmed == entityTag
        }
        return lastModified == trimmed
    }
}

extension String {
    /// The text without leading and trailing characters of `set`.
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
