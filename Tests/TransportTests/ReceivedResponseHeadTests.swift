import HTTPTypes
import Testing
import Transport

/// A received head read in part: the fields a reader names, made from the lines without
/// building the others, and a field added without building any.
///
/// Checked to fail: with `head(keeping:)` building the whole head, `keepsTheNamedFieldsWithoutBuilding`
/// finds it built; with the added field left out of the built head, `addsAFieldSharingTheLines`
/// misses it; with a folded line joined to any previous field, the kept `Cache-Control` carries
/// the other field's continuation.
@Suite struct ReceivedResponseHeadTests {
    private static func head(_ lines: [String]) -> ReceivedResponseHead {
        ReceivedResponseHead(status: 200, reason: "OK", lines: Array(lines.map { $0 + "\n" }.joined().utf8))
    }

    @Test func keepsTheNamedFieldsWithoutBuilding() throws {
        let received = Self.head([
            "Server: nginx", "cache-control: max-age=60", "X-Long: first", "\tsecond", "ETAG: \"v1\"",
            "Cache-Control:  public ", "\tno-transform", "Content-Length: 5",
        ])
        let part = received.head(keeping: [.cacheControl, .eTag, .vary])
        #expect(!received.isBuilt)
        #expect(part.status == .ok)
        #expect(part.headerFields.map(\.name) == [.cacheControl, .eTag, .cacheControl])
        #expect(part.headerFields.map(\.value) == ["max-age=60", "\"v1\"", "public no-transform"])
        #expect(part.headerFields[.vary] == nil)
        // The whole head, once built, is what any later part is.
        let whole = received.response
        #expect(received.isBuilt)
        #expect(whole.headerFields[try #require(HTTPField.Name("X-Long"))] == "first second")
        #expect(received.head(keeping: [.eTag]) == whole)
        #expect(received.byteCount > 100)
    }

    /// A head's signature covers every name in its lines, in any letter case, and a reader
    /// whose names are not in it gets no field from the lines without one being read (a head
    /// made with an empty signature is not read for a name its lines hold), but still gets a
    /// field added to the head.
    ///
    /// Checked to fail: with an added field looked for only when the signature may hold it,
    /// `X-Mark` is not found in the marked head; with `head(keeping:)` reading the lines
    /// whatever the signature says, the head signed as empty yields its `Cache-Control`.
    @Test func readsOnlyAHeadWhoseSignatureMayHoldTheNames() throws {
        let mark = try #require(HTTPField.Name("X-Mark"))
        let lines = ["CACHE-control: no-cache", "etag: \"v\"", "Vary: *", "\tfolded", "no colon here"]
        let received = Self.head(lines)
        for name: HTTPField.Name in [.cacheControl, .eTag, .vary] {
            #expect(FieldNameSet([name]).mayOccur(in: received.nameSignature))
            #expect(received.head(keeping: [name]).headerFields.count == 1)
        }
        let marked = received.adding(HTTPField(name: mark, value: "miss"))
        #expect(!FieldNameSet([mark]).mayOccur(in: marked.nameSignature))
        #expect(marked.head(keeping: [mark]).headerFields.map(\.value) == ["miss"])
        let unsigned = ReceivedResponseHead(
            status: 200, reason: "OK", lines: Array(lines.map { $0 + "\n" }.joined().utf8), nameSignature: 0)
        #expect(unsigned.head(keeping: [.cacheControl]).headerFields.isEmpty)
        #expect(unsigned.head(keeping: [.cacheControl]).status == .ok)
        #expect(!unsigned.isBuilt)
    }

    @Test func addsAFieldSharingTheLines() throws {
        let mark = try #require(HTTPField.Name("X-Mark"))
        let received = Self.head(["Date: Sun, 06 Nov 1994 08:49:37 GMT", "Connection: close"])
        let marked = received.adding(HTTPField(name: mark, value: "miss"))
        #expect(marked.status == received.status)
        #expect(marked.head(keeping: [mark]).headerFields.map(\.value) == ["miss"])
        #expect(marked.head(keeping: [.date]).headerFields.map(\.name) == [.date])
        #expect(!marked.isBuilt)
        #expect(marked.response.headerFields.map(\.name) == [.date, .connection, mark])
        #expect(received.response.headerFields.map(\.name) == [.date, .connection])
    }

    @Test func aLazyHeadNamesItsReceivedHeadUntilItIsSet() {
        let received = Self.head(["Vary: Accept", "Server: x"])
        var lazy = LazyResponseHead(received: received)
        #expect(lazy.received === received)
        #expect(lazy.head(keeping: [.vary]).headerFields.count == 1)
        lazy.response.headerFields[.age] = "1"
        #expect(lazy.received == nil)
        #expect(lazy.head(keeping: [.vary]).headerFields.count == 3)
    }
}
