import Foundation
import HTTPTypes

/// Turns what went wrong while reading a body into a ``MappingError`` that says what
/// happened, where, and what to do.
///
/// Everything here runs only after a failure: the body is parsed a second time, as a
/// ``JSONValue`` with no key conversion, to name what was found at the failing place and
/// to spell the path with the keys as the server wrote them.
struct FailureReport {
    var input: ResponseInput
    var options: DecodingOptions
    /// The body as a JSON value with keys as written, or `nil` when it is not JSON.
    private let document: JSONValue?

    init(input: ResponseInput, options: DecodingOptions) {
        self.input = input
        self.options = options
        self.document = input.isBlank ? nil : try? JSONDecoder().decode(JSONValue.self, from: input.body)
    }

    /// The ``MappingError`` for a decoding failure; any other error unchanged.
    func error(for error: any Error) -> any Error {
        switch error {
        case let error as DecodingError: decodingFailure(error)
        case let error as KeyPathError: pathNotFound(error)
        case let error as EnvelopeShapeError: invalidEnvelope(error)
        default: error
        }
    }

    // MARK: - The response as a whole

    func emptyBody() -> MappingError {
        make(
            .emptyBody,
            "The body is empty \(input.origin), where JSON was expected. "
                + "Read an endpoint that answers without a body with `bytes(from:)` or `string(from:)`."
        )
    }

    func unacceptableStatus() -> MappingError {
        let status = input.status.map(ResponseInput.describe) ?? "an unknown status"
        let target = input.url.map { " for \($0)" } ?? ""
        return make(
            .unacceptableStatus,
            "The server answered \(status)\(target), which the decoder's status policy does not accept, "
                + "\(bodyDescription). Check the request, or widen `statusPolicy` if this status carries "
                + "the value you want."
        )
    }

    func invalidJSON() -> MappingError {
        let text = input.head
        let typeNote = input.contentType.map { " (Content-Type: \($0))" } ?? ""
        if MarkupBody.isMarkup(text) {
            return make(
                .invalidJSON,
                "The body \(input.origin) is \(MarkupBody.describe(text)), not JSON\(typeNote). The URL may "
                    + "lead to a web page or to a proxy's error page rather than to the API."
            )
        }
        return make(
            .invalidJSON,
            "The body \(input.origin) is not valid JSON\(typeNote): it may be truncated or in another format."
        )
    }

    private var bodyDescription: String {
        if input.isBlank { return "with an empty body" }
        let text = input.head
        if MarkupBody.isMarkup(text) { return "with \(MarkupBody.describe(text))" }
        if let document { return "with a JSON body (\(document.summary))" }
        return "with a body that is not JSON" + (input.contentType.map { " (\($0))" } ?? "")
    }

    // MARK: - Paths and models

    func pathNotFound(_ error: KeyPathError) -> MappingError {
        let steps = error.path.components.prefix(error.depth + 1).map { (name: $0, index: Int($0)) }
        let place = locate(steps)
        let found = locate(Array(steps.dropLast())).found
        return make(
            .pathNotFound,
            "The key path `\(error.path)` leads nowhere \(input.origin): "
                + "\(error.explanation(found: found ?? "a value")). Check the key path against the body.",
            codingPath: place.path,
            expected: Int(error.path.components[error.depth]).map { "index \($0) or key `\($0)`" }
                ?? "key `\(error.path.components[error.depth])`",
            found: found
        )
    }

    func decodingFailure(_ error: DecodingError) -> any Error {
        switch error {
        case .typeMismatch(let type, let context):
            return unexpectedValue(
                .typeMismatch, expected: type, at: context.codingPath, otherwise: "another kind of value",
                advice: "Make the model's property match what the server sends.")
        case .valueNotFound(let type, let context):
            return unexpectedValue(
                .valueNotFound, expected: type, at: context.codingPath, otherwise: "nothing",
                advice: "Make the property optional if the server may send null.")
        case .keyNotFound(let key, let context):
            let container = locate(context.codingPath)
            let place = locate(context.codingPath + [key])
            let found = container.found ?? "not an object"
            return make(
                .keyNotFound,
                "The key `\(key.stringValue)` is missing at \(container.spelled) \(input.origin), which is "
                    + "\(found). Make the property optional if the server may leave it out, or map it to the "
                    + "server's name in `CodingKeys`.",
                codingPath: place.path,
                expected: "key `\(key.stringValue)`",
                found: found
            )
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty && document == nil { return invalidJSON() }
            let place = locate(context.codingPath)
            let found = place.found ?? "a value"
            // Foundation reports a date that does not parse at the object or array holding it.
            let member = place.isContainer ? " The invalid value is one of its members." : ""
            return make(
                .dataCorrupted,
                "The value at \(place.spelled) \(input.origin) is not valid: \(context.debugDescription) "
                    + "It is \(found).\(member)",
                codingPath: place.path,
                expected: context.debugDescription,
                found: found
            )
        @unknown default:
            return make(.other, "The body could not be decoded \(input.origin): \(error).")
        }
    }

    func invalidEnvelope(_ error: EnvelopeShapeError) -> MappingError {
        let steps = error.codePath.components.map { (name: $0, index: Int($0)) }
        let code = locate(steps)
        guard error.isMissing else {
            let found = code.found ?? "another kind of value"
            return make(
                .invalidEnvelope,
                "The envelope's code at `\(error.codePath)` \(input.origin) is \(found); a code must be a "
                    + "whole number or a string.",
                codingPath: code.path,
                expected: "a whole number or a string",
                found: found
            )
        }
        let found = document?.summary ?? "not JSON"
        return make(
            .invalidEnvelope,
            "The body \(input.origin) is not an envelope: it has no `\(error.codePath)`, and it is \(found). "
                + "Decode it without the envelope, or set the envelope format's `codePath` to where the "
                + "server puts its code.",
            codingPath: code.path,
            expected: "key `\(error.codePath)`",
            found: found
        )
    }

    // MARK: - Helpers

    /// A value of another type than the model's (or none) at `codingPath`.
    private func unexpectedValue(
        _ category: MappingError.Category,
        expected type: Any.Type,
        at codingPath: [any CodingKey],
        otherwise: String,
        advice: String
    ) -> any Error {
        let place = locate(codingPath)
        let expected = Self.name(of: type)
        let found = place.found ?? otherwise
        return make(
            category,
            "Expected \(expected) at \(place.spelled) but found \(found) \(input.origin). \(advice)",
            codingPath: place.path,
            expected: expected,
            found: found
        )
    }

    private func make(
        _ category: MappingError.Category,
        _ message: String,
        codingPath: String? = nil,
        expected: String? = nil,
        found: String? = nil
    ) -> MappingError {
        MappingError(
            category,
            message: message,
            url: input.url,
            status: input.status,
            codingPath: codingPath,
            expected: expected,
            found: found,
            excerpt: BodyExcerpt.make(from: input.body)
        )
    }

    /// A place in the document: its path spelled with the server's keys, and what is there.
    private struct Place {
        /// Such as `data.three_day_forecast[1].temperature`; `nil` for the top level.
        var path: String?
        /// A phrase naming the value there, redacted under a credential key; `nil` when nothing is there.
        var found: String?

        /// Whether the value there is an object or an array.
        var isContainer = false

        /// The path back-quoted for a message, or "the top level".
        var spelled: String { path.map { "`\($0)`" } ?? "the top level" }
    }

    private func locate(_ codingPath: [any CodingKey]) -> Place {
        locate(codingPath.map { (name: $0.stringValue, index: $0.intValue) })
    }

    /// Follows `steps` through the document, spelling array indices as `[i]` and object keys
    /// as the server wrote them (a converted key is matched back to its original).
    private func locate(_ steps: [(name: String, index: Int?)]) -> Place {
        var value = document
        var path = ""
        var sensitive = false
        for step in steps {
            switch value {
            case .array(let elements)? where step.index != nil:
                let index = step.index ?? 0
                path += "[\(index)]"
                value = elements.indices.contains(index) ? elements[index] : nil
            case .object(let members)?:
                let name =
                    members[step.name] != nil
                    ? step.name
                    : members.keys.first { options.convertedKey($0, codingPath: []) == step.name } ?? step.name
                path += path.isEmpty ? name : ".\(name)"
                sensitive = sensitive || BodyExcerpt.isSensitive(name)
                value = members[name]
            default:
                if let index = step.index, step.name.hasPrefix("Index ") {
                    path += "[\(index)]"
                } else {
                    path += path.isEmpty ? step.name : ".\(step.name)"
                    sensitive = sensitive || BodyExcerpt.isSensitive(step.name)
                }
                value = nil
            }
        }
        let found = value.map { sensitive ? "\($0.kind) (value redacted)" : $0.summary }
        var isContainer = false
        if case .object = value { isContainer = true }
        if case .array = value { isContainer = true }
        return Place(path: path.isEmpty ? nil : path, found: found, isContainer: isContainer)
    }

    /// `Int`, `String`, or "an object"/"an array" for the containers `JSONDecoder` names.
    private static func name(of type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Dictionary<") || name == "KeyedDecodingContainer" { return "an object" }
        if name.hasPrefix("Array<") || name == "UnkeyedDecodingContainer" { return "an array" }
        return name
    }
}
