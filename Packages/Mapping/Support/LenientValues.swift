/// Text as servers send it in codes, messages and cursors: a string or a number.
///
/// `null` and the empty string read as `nil`; a whole number reads as its decimal text.
struct LenientText: Decodable {
    var text: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            text = nil
        } else if let string = try? container.decode(String.self) {
            text = string.isEmpty ? nil : string
        } else if let int = try? container.decode(Int.self) {
            text = String(int)
        } else {
            throw DecodingError.typeMismatch(
                String.self,
                .init(codingPath: decoder.codingPath, debugDescription: "Expected a string or a whole number.")
            )
        }
    }
}

/// A flag as servers send it: a Boolean, a number (non-zero is `true`), or `"true"`/`"false"`.
struct LenientBool: Decodable {
    var value: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            value = bool
        } else if let int = try? container.decode(Int.self) {
            value = int != 0
        } else if let string = try? container.decode(String.self), let bool = Bool(string.lowercased()) {
            value = bool
        } else {
            throw DecodingError.typeMismatch(
                Bool.self,
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: #"Expected a Boolean, a number, or "true"/"false"."#)
            )
        }
    }
}
