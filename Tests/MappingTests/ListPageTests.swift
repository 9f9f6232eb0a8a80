import Foundation
import HTTPTypes
import Mapping
import TestSupport
import Testing

@Suite struct ListPageTests {
    let decoder = ResponseDecoder()
    let days = #"[{"conditions":"Sunny","day":"Monday","temperature":20}]"#

    @Test func readsItemsAndTheNextCursorWithTheDefaultLayout() throws {
        let body = #"{"items":\#(days),"next_cursor":"abc","has_more":true}"#
        let page = try decoder.list(Day.self, from: response(body))
        #expect(page.items.map(\.day) == ["Monday"])
        #expect(page.nextCursor == "abc")
        #expect(page.hasMore)
    }

    @Test(arguments: [
        (#""next_cursor":null"#, nil as String?, false),
        (#""next_cursor":"""#, nil, false),
        (#""next_cursor":3"#, "3", true),
        (#""next_cursor":"abc","has_more":false"#, "abc", false),
        (#""has_more":1"#, nil, true),
        (#""has_more":"true""#, nil, true),
    ])
    func hasMoreFollowsTheFlagOrElseTheCursor(fields: String, cursor: String?, hasMore: Bool) throws {
        let body = #"{"items":\#(days),\#(fields)}"#
        let page = try decoder.list(Day.self, from: response(body))
        #expect(page.nextCursor == cursor)
        #expect(page.hasMore == hasMore)
    }

    @Test func theLayoutIsConfigurable() throws {
        let body = #"{"results":{"days":\#(days)},"paging":{"next":"p2"}}"#
        let layout = ListLayout(items: "results.days", cursor: "paging.next", hasMore: nil)
        let page = try decoder.list(Day.self, from: Data(body.utf8), layout: layout)
        #expect(page == ListPage(items: [Day(conditions: "Sunny", day: "Monday", temperature: 20)], nextCursor: "p2"))
    }

    @Test func aBareArrayIsOneWholePage() throws {
        let page = try decoder.list(Day.self, from: response(try Fixture.array.data()), layout: .init(items: .root))
        #expect(page.items == Forecast.toronto.threeDayForecast)
        #expect(!page.hasMore)
    }

    @Test func readsAListInsideAnEnvelope() throws {
        let body = enveloped(#"{"items":\#(days),"next_cursor":"n"}"#)
        let page = try decoder.list(Day.self, from: response(body), in: .envelope)
        #expect(page.items.count == 1)
        #expect(page.nextCursor == "n")
        #expect(throws: BusinessError.self) {
            try decoder.list(Day.self, from: response(enveloped("null", code: "500")), in: .envelope)
        }
    }

    @Test func missingItemsAreAnError() throws {
        let error = try #require(throws: MappingError.self) {
            try decoder.list(Day.self, from: response(#"{"data":[]}"#))
        }
        #expect(error.category == .pathNotFound)
        #expect(error.codingPath == "items")
    }
}
