/// A coding key made at run time from a key path component.
struct AnyCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    init(stringValue: String) {
        self.init(stringValue)
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key of an array element, spelled as `JSONDecoder` spells it (`Index 1`).
    init(indexed index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }
}
