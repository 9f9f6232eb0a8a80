import NIOConcurrencyHelpers

/// What `/idempotent` has seen, per scope, thread-safely: a server that honours
/// `Idempotency-Key` and remembers which keys it has applied.
final class IdempotencyLedger: Sendable {
    private let scopes = NIOLockedValueBox<[String: Scope]>([:])

    /// One scope's history.
    private struct Scope {
        /// The `Idempotency-Key` of each attempt, in order, `nil` when it had none.
        var keys: [String?] = []
        /// The keys of the requests applied so far.
        var appliedKeys: Set<String> = []
        /// How many requests were applied: once per key, every time for a request without one.
        var applied = 0

        /// The first non-empty key of the scope.
        var firstKey: String? {
            keys.lazy.compactMap { $0 }.first { !$0.isEmpty }
        }

        var summary: Summary {
            let first = keys.first ?? nil
            let sameKey = !keys.isEmpty && first?.isEmpty == false && keys.allSatisfy { $0 == first }
            return Summary(applied: applied, attempts: keys.count, keys: keys, sameKey: sameKey)
        }
    }

    /// A scope's history as `/idempotent` reports it.
    struct Summary: Sendable {
        /// How many requests the scope applied.
        let applied: Int
        /// How many attempts the scope received.
        let attempts: Int
        /// The key of each attempt, `nil` when it had none.
        let keys: [String?]
        /// Whether every attempt carried the same non-empty key (`false` before any attempt).
        let sameKey: Bool

        /// `{"applied", "attempts", "keys", "sameKey"}`, and `error` when given.
        func json(error: String? = nil) -> JSONValue {
            var members: [String: JSONValue] = [
                "applied": .int(applied),
                "attempts": .int(attempts),
                "keys": .array(keys.map(JSONValue.string(orNull:))),
                "sameKey": .bool(sameKey),
            ]
            if let error {
                members["error"] = .string(error)
            }
            return .object(members)
        }
    }

    /// One attempt, as recorded.
    struct Attempt: Sendable {
        /// The attempt's number in its scope, 1 for the first.
        let number: Int
        /// Whether the attempt carried a non-empty key other than the first one the scope saw.
        let keyChanged: Bool
        /// The scope's history, this attempt included.
        let summary: Summary
    }

    /// Records an attempt carrying `key` in `scope`, and applies it unless a request with the
    /// same non-empty key was applied before in that scope.
    ///
    /// - Returns: The attempt's number, whether its key differs from the scope's first key,
    ///   and the scope's history.
    func record(key: String?, in scope: String) -> Attempt {
        scopes.withLockedValue { scopes in
            var history = scopes[scope, default: Scope()]
            let firstKey = history.firstKey
            history.keys.append(key)
            if let key, !key.isEmpty {
                if history.appliedKeys.insert(key).inserted {
                    history.applied += 1
                }
            } else {
                history.applied += 1
            }
            scopes[scope] = history
            let changed = key.map { !$0.isEmpty && firstKey != nil && $0 != firstKey } ?? false
            return Attempt(number: history.keys.count, keyChanged: changed, summary: history.summary)
        }
    }

    /// The history of `scope`, without recording anything.
    func summary(of scope: String) -> Summary {
        scopes.withLockedValue { scopes in (scopes[scope] ?? Scope()).summary }
    }
}
