import Foundation
import HTTPTypes
import Testing

@testable import Caching

/// What the entry file format decides on its own: which media types are not deflated again,
/// and that an entry reads back as it was written.
@Suite struct EntryFileTests {
    // Checked to fail: with the comparison made case-sensitive, the upper-case rows fail. The
    // rows give what the earlier reading (split, trim, lowercase) gave for each.
    @Test(arguments: [
        ("image/png", true), ("IMAGE/JPEG", true), ("image/svg+xml", false), ("Image/BMP", false),
        ("audio/ogg", true), ("video/mp4; codecs=avc1", true), ("font/woff2", true), ("font/ttf", false),
        ("application/zip", true), ("  application/gzip ;q=1", true), ("application/x-7z-compressed", true),
        ("application/pdf", true), ("Application/ZSTD", true), ("application/zipper", false),
        ("application/json", false), ("text/html; charset=utf-8", false), ("", false), (";image/png", true),
        ("; ;image/png", false), ("\timage/webp\t", true), ("imagepng", false),
    ])
    func mediaTypesCompressedAlreadyAreNotDeflatedAgain(contentType: String, isCompressed: Bool) {
        #expect(EntryFile.isCompressedAlready(contentType) == isCompressed)
    }

    @Test func noContentTypeIsDeflated() {
        #expect(!EntryFile.isCompressedAlready(nil))
    }

    /// Found by the fuzzer. Checked to fail: with the group taken from the first field of the
    /// reserved name, the two reserved fields swap places on the way back.
    @Test func varyingFieldsGivenTheGroupsReservedNameTwiceReadBackAsWritten() throws {
        let reserved = CacheEntry.variantGroupFieldName
        let entry = CacheEntry(
            key: "http://x/", head: HTTPResponse(status: .ok), body: Data("body".utf8),
            varyingFields: [
                CacheEntry.VaryingField(name: "accept", value: "text/plain"),
                CacheEntry.VaryingField(name: reserved, value: "first"),
                CacheEntry.VaryingField(name: reserved, value: "second"),
            ],
            requestTime: Date(timeIntervalSince1970: 1), responseTime: Date(timeIntervalSince1970: 2))

        let decoded = try EntryFile.decode(Data(EntryFile.encode(entry, compressionLevel: 1))).get()

        #expect(decoded == entry)
        #expect(decoded.variantGroup == "second")
        #expect(decoded.storedVaryingFields == entry.storedVaryingFields)
    }

    /// Found by the fuzzer. Checked to fail: with the group taken from the last field of the
    /// reserved name even when it has no value, two such fields read back as one.
    @Test(arguments: [[nil, nil], ["group", nil, nil], [nil, "group"]] as [[String?]])
    func aFieldOfTheGroupsReservedNameWithoutAValueReadsBackAsWritten(values: [String?]) throws {
        let fields =
            [CacheEntry.VaryingField(name: "accept", value: "text/plain")]
            + values.map { CacheEntry.VaryingField(name: CacheEntry.variantGroupFieldName, value: $0) }
        let entry = CacheEntry(
            key: "http://x/", head: HTTPResponse(status: .ok), body: Data("body".utf8), varyingFields: fields,
            requestTime: Date(timeIntervalSince1970: 1), responseTime: Date(timeIntervalSince1970: 2))

        let decoded = try EntryFile.decode(Data(EntryFile.encode(entry, compressionLevel: 1))).get()

        #expect(decoded == entry)
        #expect(decoded.variantGroup == (values.contains("group") ? "group" : nil))
        #expect(decoded.storedVaryingFields == entry.storedVaryingFields)
    }
}
