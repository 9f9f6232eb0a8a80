import Foundation
import TestSupport
import Testing

@testable import Mapping

/// The tape decoder against Foundation's `JSONDecoder`: a reading the tape decoder completes
/// gives exactly what `JSONDecoder` gives, a document `JSONDecoder` refuses is always declined,
/// and the documents APIs send are read without declining.
@Suite struct TapeDecoderTests {
    /// What the tape decoder did with a document read as `T`.
    enum Reading<T> {
        case read(T)
        case declined
    }

    func tape<T: Decodable>(_ type: T.Type, _ json: String, options: DecodingOptions = .default) -> Reading<T> {
        do {
            return .read(
                try TapeReading.read(Data(json.utf8), options: options) { try $1.decode(T.self, from: $0, at: $2) })
        } catch {
            return .declined
        }
    }

    func foundation<T: Decodable>(_ type: T.Type, _ json: String, options: DecodingOptions = .default) -> T? {
        try? options.makeDecoder().decode(T.self, from: Data(json.utf8))
    }

    /// Checks the one rule: a completed reading equals Foundation's, and Foundation's refusals
    /// are declined. Returns whether the tape decoder completed.
    @discardableResult
    func agree<T: Decodable & Equatable>(
        _ type: T.Type,
        _ json: String,
        options: DecodingOptions = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let expected = foundation(T.self, json, options: options)
        switch tape(T.self, json, options: options) {
        case .read(let value):
            #expect(expected == value, "\(json)", sourceLocation: sourceLocation)
            return true
        case .declined:
            return false
        }
    }

    // MARK: The documents APIs send are read, not declined

    @Test func readsTheForecastEnvelopeWithoutDeclining() throws {
        let json = try String(decoding: Fixture.keyPath.data(), as: UTF8.self)
        guard
            let forecast = try? TapeReading.read(
                Data(json.utf8), options: .default,
                {
                    try $1.decode(Forecast.self, from: $0, at: $2 + "data")
                })
        else {
            Issue.record("the forecast envelope was declined")
            return
        }
        #expect(forecast == Forecast.toronto)
    }

    @Test(arguments: [
        #"{"a": 1, "b": -2, "c": 0, "d": 9223372036854775807, "e": -9223372036854775808}"#,
        #"{"a": 1.5, "b": -0.25, "c": 1e3, "d": 2.5E-3, "e": 0}"#,
        #"{"s": "plain", "t": "esc\"aped\\ \/ \b\f\n\r\t", "u": "\u00e9\u4e2d\ud83d\ude00", "v": "héllo 中文 😀"}"#,
        #"[true, false, null, [], {}, [[1], {"x": [2]}]]"#,
        #"  {"nested": {"deeper": {"deepest": [1, 2, 3]}}}  "#,
        #""just a string""#,
        "42",
        "null",
    ])
    func readsCommonDocumentsAsJSONValues(json: String) {
        #expect(agree(JSONValue.self, json), "declined \(json)")
    }

    // MARK: Scalars, case by case

    struct Numbers: Decodable, Equatable {
        var int: Int
        var int8: Int8?
        var uint: UInt?
        var double: Double?
        var float: Float?
    }

    @Test(arguments: [
        (#"{"int": 3}"#, true),
        (#"{"int": -0}"#, true),
        (#"{"int": 3.0}"#, true),
        (#"{"int": 1e2}"#, true),
        (#"{"int": 1.5}"#, false),
        (#"{"int": 1e300}"#, false),
        (#"{"int": 9007199254740993}"#, true),
        (#"{"int": 9007199254740993.0}"#, false),
        (#"{"int": 99999999999999999999}"#, false),
        (#"{"int": 1, "int8": 127}"#, true),
        (#"{"int": 1, "int8": 128}"#, false),
        (#"{"int": 1, "uint": -1}"#, false),
        (#"{"int": 1, "uint": -0}"#, false),
        (#"{"int": 1, "double": 0.1}"#, true),
        (#"{"int": 1, "double": 1e400}"#, false),
        (#"{"int": 1, "double": 1e-400}"#, false),
        (#"{"int": 1, "double": 0e5}"#, false),
        (#"{"int": 1, "double": 0.0}"#, true),
        (#"{"int": 0e5, "double": -0.0}"#, true),
        (#"{"int": 1e-400}"#, true),
        (#"{"int": 1, "float": 3.4028235e38}"#, true),
        (#"{"int": 1, "float": 3.5e38}"#, false),
        (#"{"int": 1, "float": 0.1}"#, true),
        (#"{"int": 1, "double": null, "float": null}"#, true),
        (#"{"int": "1"}"#, false),
        (#"{"int": 01}"#, false),
        (#"{"int": 1,}"#, false),
    ])
    func readsNumbersAsFoundationDoes(json: String, completes: Bool) {
        #expect(agree(Numbers.self, json) == completes, "\(json)")
    }

    @Test func declinesWhatOnlyFoundationReads() {
        // A string that is not UTF-8, half a surrogate pair, another encoding, a byte-order mark.
        let documents: [Data] = [
            Data([0x22, 0xFF, 0xFE, 0x22]),
            Data(#""\ud800""#.utf8),
            Data(#""\udc00x""#.utf8),
            Data("\"a\"".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            Data([0xEF, 0xBB, 0xBF] + Array("\"a\"".utf8)),
            Data((String(repeating: "[", count: 600) + String(repeating: "]", count: 600)).utf8),
        ]
        for body in documents {
            let reading = try? TapeReading.read(body, options: .default) {
                try $1.decode(JSONValue.self, from: $0, at: $2)
            }
            guard reading == nil else {
                Issue.record("read \(Array(body.prefix(8)))")
                continue
            }
        }
    }

    // MARK: Objects

    struct Pair: Decodable, Equatable {
        var a: Int
        var b: String?
    }

    @Test func keepsTheFirstOfTwoMembersWithOneName() {
        #expect(agree(Pair.self, #"{"a": 1, "a": 2, "b": "x"}"#))
        #expect(agree([String: Int].self, #"{"a": 1, "a": 2}"#))
    }

    @Test func findsMembersOfLargeObjectsAndEscapedNames() {
        let members = (0..<100).map { "\"key\($0)\": \($0)" }.joined(separator: ", ")
        #expect(agree([String: Int].self, "{\(members)}"))
        #expect(agree(Pair.self, #"{"\u0061": 5, "b": "\u00e9"}"#))
        #expect(agree(Pair.self, "{\(members), \"a\": 7}"))
    }

    @Test func treatsAbsentAndNullMembersAsFoundationDoes() {
        #expect(agree(Pair.self, #"{"a": 1}"#))
        #expect(agree(Pair.self, #"{"a": 1, "b": null}"#))
        #expect(!agree(Pair.self, #"{"b": "x"}"#))
        #expect(!agree(Pair.self, #"{"a": null}"#))
        #expect(!agree(Pair.self, #"[1]"#))
    }

    /// A model that tries one reading and falls back to another: what it catches must not
    /// hide a case the tape decoder leaves to Foundation.
    struct Forgiving: Decodable, Equatable {
        var value: Int?
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyCodingKey.self)
            value = try? container.decode(Int.self, forKey: AnyCodingKey("value"))
        }
        init(value: Int?) { self.value = value }
    }

    @Test func aCaughtDeclineStillDeclines() {
        // 2^53 + 1 written with a fraction: Foundation reads it through Decimal.
        #expect(!agree(Forgiving.self, #"{"value": 9007199254740993.0}"#))
        #expect(agree(Forgiving.self, #"{"value": "text"}"#))
        #expect(foundation(Forgiving.self, #"{"value": "text"}"#) == Forgiving(value: nil))
    }

    // MARK: Foundation's types and the options' strategies

    struct Typed: Decodable, Equatable {
        var date: Date?
        var data: Data?
        var url: URL?
        var decimal: Decimal?
    }

    @Test func readsDatesDataURLsAndDecimalsAsFoundationDoes() {
        #expect(agree(Typed.self, #"{"date": "2024-05-01T12:00:00Z"}"#))
        #expect(!agree(Typed.self, #"{"date": "yesterday"}"#))
        #expect(agree(Typed.self, #"{"data": "aGVsbG8="}"#))
        #expect(agree(Typed.self, #"{"url": "https://example.com/a?b=c"}"#))
        #expect(agree(Typed.self, #"{"decimal": 12.345678901234567890123}"#))

        var seconds = DecodingOptions()
        seconds.dateDecodingStrategy = .secondsSince1970
        #expect(agree(Typed.self, #"{"date": 1714564800.5}"#, options: seconds))
        var custom = DecodingOptions()
        custom.dateDecodingStrategy = .custom { decoder in
            Date(timeIntervalSince1970: try decoder.singleValueContainer().decode(Double.self) * 2)
        }
        #expect(agree(Typed.self, #"{"date": 10}"#, options: custom))
    }

    @Test func readsNonConformingFloatsWhenAsked() {
        var options = DecodingOptions()
        options.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        #expect(agree([Double].self, #"["+inf", "-inf", 1]"#, options: options))
        #expect(!agree([Double].self, #"["+inf"]"#))
    }

    @Test func leavesSnakeCaseKeysToFoundation() {
        var options = DecodingOptions()
        options.keyDecodingStrategy = .convertFromSnakeCase
        guard case .declined = tape(Pair.self, #"{"a": 1}"#, options: options) else {
            Issue.record("read with a key strategy the tape decoder does not apply")
            return
        }
    }

    // MARK: Paths

    @Test func rebuildsCodingPathsFromTheTape() throws {
        struct Probe: Decodable, Equatable {
            var path: String
            init(from decoder: any Decoder) throws {
                path = decoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            }
        }
        let json = #"{"a": [{"x": 1}, {"b": {"c": 0}}]}"#
        let body = Data(json.utf8)
        let tape = try #require(JSONTape([UInt8](body)))
        let document = TapeDocument(tape: tape, options: .default)
        let decoder = TapeDecoder(document: document, index: 0)
        let probe = try decoder.decode(Probe.self, at: 10)
        #expect(probe.path == "a.1.b.c")
    }

    // MARK: Paths of keys, followed on the tape

    /// A path of keys reaches the member the general walk would: the first of two with one
    /// name, a name spelt with an escape, a key that another begins with, a key under a digit
    /// key; and an absent or `null` last member is `nil` for an optional, through the general
    /// walk. The tape reading follows such paths on the tape itself (`KeyPathWalker`'s
    /// `tapeIndex`), without the keyed containers the general walk makes.
    ///
    /// Checked to fail: with the walk on the tape not checking that each step is an object,
    /// `a.b.c` through a string is read as a member of the string.
    @Test(
        arguments: [
            (#"{"data": {"value": 1}, "data2": 2}"#, "data.value", 1),
            (#"{"data2": 2, "data": {"value": 7}}"#, "data.value", 7),
            (#"{"data": 1, "data": 2}"#, "data", 1),
            (#"{"d\u0061ta": {"value": 3}}"#, "data.value", 3),
            (#"{"a": {"b": {"c": 4}}, "c": 5}"#, "a.b.c", 4),
            (#"{"7": {"x": 8}}"#, "7.x", 8),
            (#"{"a": {"b": "c", "c": 9}}"#, "a.b.c", nil),
            (#"{"a": {"b": null}}"#, "a.b", nil),
            (#"{"a": {}}"#, "a.b", nil),
        ] as [(String, JSONKeyPath, Int?)])
    func followsAPathOfKeysToTheMemberTheWalkFinds(json: String, path: JSONKeyPath, expected: Int?) {
        let read = try? TapeReading.read(Data(json.utf8), options: .default) {
            try $1.decodeIfPresent(Int.self, from: $0, at: $2 + path)
        }
        #expect(read == expected, "\(json) at \(path)")
    }

    // MARK: Strings, read eight bytes at a time

    /// Each kind of byte a string's reading stops at (its end, an escape, a raw control byte)
    /// and each that makes it more than its own text (beyond ASCII, or not UTF-8 at all), at
    /// every offset of the first 24: the parser passes over a string's plain bytes eight at a
    /// time, and a byte passed over that way would be taken as plain.
    ///
    /// Checked to fail: with the control bytes left out of the eight-byte test, a raw line feed
    /// after eight plain bytes is read; with the bytes beyond ASCII left out, a lone `0xC3`
    /// after them is read as a replacement character where Foundation refuses the document.
    @Test func readsEveryKindOfByteAtEveryOffsetOfAString() {
        let tail = String(repeating: "b", count: 9)
        for offset in 0..<24 {
            let plain = String(repeating: "a", count: offset)
            #expect(agree(String.self, "\"" + plain + "\""))
            #expect(agree(String.self, "\"" + plain + tail + "\""))
            for special in ["\\\"", "\\\\", "\\n", "\\u00e9", "\\/", "é", "中", "😀"] {
                agree(String.self, "\"" + plain + special + tail + "\"")
            }
            for raw: UInt8 in [0x00, 0x0A, 0x1F, 0x7F, 0xC3, 0xFF] {
                let bytes = Array(("\"" + plain).utf8) + [raw] + Array((tail + "\"").utf8)
                let read = try? TapeReading.read(Data(bytes), options: .default) {
                    try $1.decode(String.self, from: $0, at: $2)
                }
                let expected = try? JSONDecoder().decode(String.self, from: Data(bytes))
                #expect(read == expected, "byte \(raw) after \(offset) plain bytes")
            }
        }
    }

    // MARK: Many documents, drawn at random

    @Test func agreesWithFoundationOnRandomDocuments() {
        var random = SeededRandom(seed: 0x5EED)
        var completed = 0
        for _ in 0..<2_000 {
            let json = random.document(depth: 3)
            if agree(JSONValue.self, json) { completed += 1 }
            agree([String: [Int]].self, json)
            agree([Double].self, json)
        }
        // Nearly every drawn document is valid JSON the tape decoder reads.
        #expect(completed > 1_500)
    }
}

/// Random JSON texts from a seeded generator, so that a failing document can be drawn again.
struct SeededRandom: RandomNumberGenerator {
    private var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }

    /// A JSON text: mostly valid, with numbers, strings and escapes of every kind.
    mutating func document(depth: Int) -> String {
        let pick = Int.random(in: 0..<(depth > 0 ? 10 : 7), using: &self)
        switch pick {
        case 0: return "null"
        case 1: return Bool.random(using: &self) ? "true" : "false"
        case 2: return String(Int.random(in: -1_000_000...1_000_000, using: &self))
        case 3:
            let numbers = [
                "0.5", "-1.25e3", "1E-2", "3.0", "1e400", "-0", "0.000001", "123456789012345678", "7e1", "0e5",
                "1e-400",
            ]
            return numbers[Int.random(in: 0..<numbers.count, using: &self)]
        case 4, 5, 6: return string()
        case 7:
            let count = Int.random(in: 0..<5, using: &self)
            return "[" + (0..<count).map { _ in document(depth: depth - 1) }.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0..<5, using: &self)
            return "{"
                + (0..<count).map { _ in string() + ":" + document(depth: depth - 1) }.joined(separator: ", ")
                + "}"
        }
    }

    private mutating func string() -> String {
        let pieces = ["a", "key", "\\n", "\\\"", "\\u00e9", "é", "中", "\\ud83d\\ude00", "😀", " ", "\\/", "x1"]
        let count = Int.random(in: 0..<4, using: &self)
        return "\"" + (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &self)] }.joined() + "\""
    }
}
