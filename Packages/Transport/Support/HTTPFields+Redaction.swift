public import HTTPTypes

extension HTTPFields {
    /// The names whose values are credentials and must never reach a log.
    public static let credentialFieldNames: Set<HTTPField.Name> = Set(
        [.authorization, .proxyAuthorization, .cookie, .setCookie]
            + ["X-API-Key", "X-Auth-Token"].compactMap { HTTPField.Name($0) }
    )

    /// The fields as `name: value` lines for logs, with credential values replaced by `<redacted>`.
    public var redactedForLogging: String {
        map { field in
            let value = Self.credentialFieldNames.contains(field.name) ? "<redacted>" : field.value
            return "\(field.name): \(value)"
        }
        .joined(separator: "\n")
    }
}
