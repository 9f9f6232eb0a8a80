/// An application version such as `2.1.0`, compared number by number.
///
/// One to four non-negative integers separated by dots; missing components count as zero, so
/// `2` and `2.0.0` are the same version, and `1.10.0` is newer than `1.9.3`.
struct AppVersion: Comparable, Sendable, CustomStringConvertible {
    /// The numbers, as written.
    let components: [Int]

    /// The components as written, joined with dots.
    var description: String { components.map(String.init).joined(separator: ".") }

    /// Whether `left` is an older version than `right`, component by component.
    static func < (left: AppVersion, right: AppVersion) -> Bool {
        let length = max(left.components.count, right.components.count)
        for index in 0..<length {
            let leftNumber = index < left.components.count ? left.components[index] : 0
            let rightNumber = index < right.components.count ? right.components[index] : 0
            if leftNumber != rightNumber { return leftNumber < rightNumber }
        }
        return false
    }

    /// Whether the two name the same version: `2.0` equals `2.0.0`.
    static func == (left: AppVersion, right: AppVersion) -> Bool {
        !(left < right) && !(right < left)
    }
}

extension AppVersion {
    /// Parses `text`, ignoring white space around it.
    ///
    /// - Returns: The version, or `nil` when `text` is not one to four dot-separated numbers.
    init?(_ text: String) {
        let parts = text.trimmingWhiteSpace.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var components: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCIIDigit), let number = Int(part) else { return nil }
            components.append(number)
        }
        self.init(components: components)
    }
}

extension Character {
    /// Whether the character is one of `0`…`9`.
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    /// The text without leading and trailing spaces, tabs and line breaks.
    fileprivate var trimmingWhiteSpace: Substring {
        let trimmed = drop(while: \.isWhitespace)
        var end = trimmed.endIndex
        while end > trimmed.startIndex, trimmed[trimmed.index(before: end)].isWhitespace {
            end = trimmed.index(before: end)
        }
        return trimmed[..<end]
    }
}
