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

    /// A reader that asks whether a few fields are there gets `nil` for a head that has none of
    /// them, and nothing is built; a head that has one gives those fields, and a built head all.
    ///
    /// Checked to fail: with `fields(keeping:)` answering an empty `HTTPFields` instead of
    /// `nil`, the first expectation fails; with the added field left out, the marked head's
    /// fields are `nil`.
    @Test func answersNoFieldsWithoutMakingAny() throws {
        let mark = try #require(HTTPField.Name("X-Mark"))
        let received = Self.head(["Server: nginx", "ETag: \"v1\""])
        #expect(received.fields(keeping: [.cacheControl, .vary]) == nil)
        #expect(received.fields(keeping: [.eTag, .vary])?.map(\.value) == ["\"v1\""])
        let marked = received.adding(HTTPField(name: mark, value: "miss"))
        #expect(marked.fields(keeping: [mark])?.map(\.value) == ["miss"])
        #expect(!received.isBuilt && !marked.isBuilt)
        _ = received.response
        #expect(received.fields(keeping: [.vary])?.count == 2)
        #expect(LazyResponseHead(received: marked).fields(keeping: [.vary]) == nil)
        #expect(LazyResponseHead(HTTPResponse(status: .ok)).fields(keeping: [.vary])?.isEmpty == true)
    }

    /// A field appended to a head nobody has read goes into that very head when the lazy head
    /// holds the only reference to it, into a new head sharing the lines when another holder
    /// keeps the old one (which stays as it was), and nowhere into a built head or one that has
    /// a field appended already.
    ///
    /// Checked to fail: with the head changed in place whether or not it is shared, the other
    /// holder's head gains the mark; with a copy made every time, the head's identity changes
    /// when it was the only one.
    @Test func appendsInPlaceOnlyToAHeadItAloneHolds() throws {
        let mark = HTTPField(name: try #require(HTTPField.Name("X-Mark")), value: "miss")
        let lines = ["Date: Sun, 06 Nov 1994 08:49:37 GMT", "Server: x"]

        var alone = LazyResponseHead(received: Self.head(lines))
        let before = try #require(alone.received).byteCount
        let identity = ObjectIdentifier(try #require(alone.received))
        let addedAlone = alone.appendUnbuilt(mark)
        #expect(addedAlone)
        let appended = try #require(alone.received)
        #expect(ObjectIdentifier(appended) == identity)
        #expect(!appended.isBuilt)
        #expect(appended.byteCount == before + "X-Mark".utf8.count + "miss".utf8.count)
        #expect(alone.response.headerFields.map(\.value).last == "miss")
        let addedAgain = alone.appendUnbuilt(mark)
        #expect(!addedAgain)

        let shared = Self.head(lines)
        var other = LazyResponseHead(received: shared)
        let addedShared = other.appendUnbuilt(mark)
        #expect(addedShared)
        #expect(other.received !== shared)
        #expect(other.response.headerFields.count == 3)
        #expect(shared.response.headerFields.count == 2)

        var twice = LazyResponseHead(received: Self.head(lines))
        let addedOnce = twice.appendUnbuilt(mark)
        #expect(addedOnce)
        let addedTwice = twice.appendUnbuilt(mark)
        #expect(!addedTwice)
        #expect(twice.response.headerFields.count == 3)

        let built = Self.head(lines)
        _ = built.response
        var read = LazyResponseHead(received: built)
        let addedToBuilt = read.appendUnbuilt(mark)
        #expect(!addedToBuilt)
        var made = LazyResponseHead(HTTPResponse(status: .ok))
        let addedToMade = made.appendUnbuilt(mark)
        #expect(!addedToMade)
        #expect(made.response.headerFields.isEmpty)
    }
}
