import HTTPTypes

extension HTTPCache {
    /// What the cache asks of a request's header fields, read in one pass over them.
    struct RequestFacts {
        /// A field that makes the cache leave the request alone: `Range`, or the caller's own
        /// validation (`If-None-Match`, `If-Modified-Since`, `If-Match`, `If-Unmodified-Since`,
        /// `If-Range`).
        var bypasses = false
        /// Whether the request carries `Authorization`.
        var hasAuthorization = false
        /// The request's `Cache-Control`, with `Pragma: no-cache` read as `no-cache` when it has
        /// none (RFC 9111 §5.4); empty (parsed from nothing) when it has neither field.
        var control = CacheControl()

        init(_ fields: HTTPFields) {
            var hasControl = false
            var saysNoCache = false
            for field in fields {
                switch field.name {
                case .range, .ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange: bypasses = true
                case .authorization: hasAuthorization = true
                case .cacheControl: hasControl = true
                case HTTPCache.pragma: saysNoCache = saysNoCache || field.value.lowercased().contains("no-cache")
                default: continue
                }
            }
            if hasControl { control = CacheControl(fields) }
            if control.directives.isEmpty, saysNoCache {
                control.directives.append(CacheControl.Directive(name: "no-cache"))
            }
        }
    }

    /// What the cache asks of a response's header fields before it stores the response, read in
    /// one pass over them: each lookup by name is a pass of its own, and a miss would otherwise
    /// make several for fields most answers lack.
    struct ResponseFacts {
        /// Whether the response has `Cache-Control`.
        var hasCacheControl = false
        /// Whether it has `Vary`.
        var hasVary = false
        /// Whether it has a validator, `ETag` or `Last-Modified`.
        var hasValidator = false
        /// Whether it has `Expires`.
        var hasExpires = false
        /// Whether it carries an `X-Parley-Cache` mark already (another cache on the way).
        var isMarked = false

        /// The facts of a head without any of these fields.
        init() {}

        init(_ fields: HTTPFields) {
            for index in fields.indices {
                // Told apart by length first: most names have none of these lengths.
                let name = fields[index].name.canonicalName
                switch name.utf8.count {
                case 4:
                    if name == "vary" { hasVary = true } else if name == "etag" { hasValidator = true }
                case 7:
                    if name == "expires" { hasExpires = true }
                case 13:
                    if name == "cache-control" {
                        hasCacheControl = true
                    } else if name == "last-modified" {
                        hasValidator = true
                    }
                case 14:
                    if name == "x-parley-cache" { isMarked = true }
                default:
                    continue
                }
            }
        }
    }
}
