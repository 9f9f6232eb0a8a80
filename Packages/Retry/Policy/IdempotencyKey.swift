import Foundation
public import HTTPTypes

/// The `Idempotency-Key` a POST or PATCH carries so that it may be retried: the server applies
/// a request once per key, however many times it arrives.
///
/// A key is made once per logical request and sent unchanged on every attempt, including a
/// reload by hand. Forms name theirs with `idempotencyKey`:
///
/// ```swift
/// var idempotencyKey: IdempotencyKey? { .generated }   // a new UUID per request
/// var idempotencyKey: IdempotencyKey? { .value(orderID) }
/// ```
public enum IdempotencyKey: Sendable, Hashable {
    /// A new random key (a UUID) for each logical request.
    case generated
    /// This key.
    case value(String)

    // swift-format-ignore: NeverForceUnwrap
    /// The header field's name.
    public static let fieldName = HTTPField.Name("Idempotency-Key")!

    /// The key to send for one logical request: a fresh UUID for ``generated``.
    public func resolve() -> String {
        switch self {
        case .generated: UUID().uuidString.lowercased()
        case .value(let key): key
        }
    }
}
