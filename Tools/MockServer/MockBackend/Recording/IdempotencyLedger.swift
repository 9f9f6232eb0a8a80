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

    /// Every scope at once, as `/idempotent/ledger` reports it.
    struct Ledger: Sendable {
        /// Scopes that received an attempt.
        let scopes: Int
        /// Attempts received, in every scope.
        let attempts: Int
        /// Requests applied, in every scope.
        let applied: Int
        /// The scopes that applied more than one request, sorted: a client that changed its key
        /// between the attempts of one request, or sent none.
        let appliedMoreThanOnce: [String]
        /// The non-empty keys applied in more than one scope, sorted.
        let keysInSeveralScopes: [String]

        /// `{"scopes", "attempts", "applied", "appliedMoreThanOnce": [scope],
        /// "keysInSeveralScopes": [key]}`.
        var json: JSONValue {
            .object([
                "scopes": .int(scopes), "attempts": .int(attempts), "applied": .int(applied),
                "appliedMoreThanOnce": .array(appliedMoreThanOnce.map(JSONValue.string)),
                "keysInSeveralScopes": .array(keysInSeveralScopes.map(JSONValue.string)),
            ])
        }
    }

    /// Every scope summed up, without recording anything: with one scope per logical request,
    /// a key applied twice shows as its scope in ``Ledger/appliedMoreThanOnce``.
    func ledger() -> Ledger {
        scopes.withLockedValue { scopes in
            var scopesByKey: [String: Int] = [:]
            for scope in scopes.values {
                for key in scope.appliedKeys { scopesByKey[key, default: 0] += 1 }
            }
            return Ledger(
                scopes: scopes.count,
                attempts: scopes.values.reduce(0) { $0 + $1.keys.count },
                applied: scopes.values.reduce(0) { $0 + $1.applied },
                appliedMoreThanOnce: scopes.filter { $0.value.applied > 1 }.map(\.key).sorted(),
                keysInSeveralScopes: scopesByKey.filter { $0.value > 1 }.map(\.key).sorted())
        }
    }

    /// The history of `scope`, without recording anything.
    func summary(of scope: String) -> Summary {
        scopes.withLockedValue { scopes in (scopes[scope] ?? Scope()).summary }
    }
}
