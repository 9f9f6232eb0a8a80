import Foundation

/// The part of a `Content-Type` value this module reads: its charset.
struct MediaType {
    /// The `charset` parameter, lowercased and unquoted, when there is one.
    var charset: String?

    /// Parses a `Content-Type` value such as `text/plain; charset="ISO-8859-1"`.
    init(_ value: String) {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        charset = nil
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset"
            else { continue }
            let raw = pair[1].trimmingCharacters(in: .whitespaces)
            charset = raw.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
        }
    }

    /// The encoding an IANA charset name stands for, for the charsets servers send.
    ///
    /// - Parameter name: A lowercased charset name such as `utf-8` or `iso-8859-1`.
    /// - Returns: The encoding, or `nil` when the name is not supported.
    static func encoding(forCharset name: String) -> String.Encoding? {
        switch name {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "iso8859-1", "latin1", "l1": .isoLatin1
        case "iso-8859-2", "latin2", "l2": .isoLatin2
        case "windows-1250", "cp1250": .windowsCP1250
        case "windows-1251", "cp1251": .windowsCP1251
        case "windows-1252", "cp1252": .windowsCP1252
        case "windows-1253", "cp1253": .windowsCP1253
        case "windows-1254", "cp1254": .windowsCP1254
        case "utf-16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "utf-32": .utf32
        case "utf-32le": .utf32LittleEndian
        case "utf-32be": .utf32BigEndian
        case "shift_jis", "shift-jis", "sjis": .shiftJIS
        case "euc-jp": .japaneseEUC
        case "iso-2022-jp": .iso2022JP
        default: nil
        }
    }
}

/// What an HTML or XML body is, for messages: its `<title>` when it has one.
enum MarkupBody {
    /// Whether the text looks like HTML or XML: its first non-space character is `<`.
    static func isMarkup(_ text: String) -> Bool {
        text.first(where: { !$0.isWhitespace }) == "<"
    }

    /// A phrase such as `an HTML page titled "502 Bad Gateway"`.
    static func describe(_ text: String) -> String {
        let isHTML =
            text.range(of: "<html", options: .caseInsensitive) != nil
            || text.range(of: "<!doctype html", options: .caseInsensitive) != nil
        let kind = isHTML ? "an HTML page" : "markup (HTML or XML)"
        guard let open = text.range(of: "<title", options: .caseInsensitive),
            let start = text[open.upperBound...].firstIndex(of: ">"),
            let close = text[start...].range(of: "</title", options: .caseInsensitive)
        else { return kind }
        let title = text[text.index(after: start)..<close.lowerBound]
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !title.isEmpty else { return kind }
        return "\(kind) titled \"\(title.count > 80 ? String(title.prefix(80)) + "…" : title)\""
    }
}
