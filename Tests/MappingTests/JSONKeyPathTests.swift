import Foundation
import Mapping
import Testing

@Suite struct JSONKeyPathTests {
    @Test(arguments: [
        ("", [String]()),
        ("data", ["data"]),
        ("data.three_day_forecast", ["data", "three_day_forecast"]),
        ("items.0.name", ["items", "0", "name"]),
        ("data.", ["data"]),
    ])
    func splitsOnDots(path: String, components: [String]) {
        #expect(JSONKeyPath(path).components == components)
    }

    @Test func theEmptyPathIsTheRoot() {
        let path: JSONKeyPath = ""
        #expect(path.isRoot)
        #expect(path == .root)
        #expect(path.description == "<root>")
    }

    @Test func pathsConcatenate() {
        let path: JSONKeyPath = "data"
        #expect((path + "three_day_forecast.1").description == "data.three_day_forecast.1")
    }
}
