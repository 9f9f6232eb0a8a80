import Foundation
import HTTPTypes
import Testing
import Transport

/// The weather fixtures, read from the test bundle.
enum Fixture: String, CaseIterable, Sendable {
    /// The forecast object at the top level.
    case topLevel = "sample_json"
    /// The forecast nested under `data`.
    case keyPath = "sample_keypath_json"
    /// The bare array of days.
    case array = "sample_array_json"

    /// The fixture's bytes.
    func data() throws -> Data {
        let url = try #require(
            Bundle.module.url(forResource: rawValue, withExtension: "json", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    /// The fixture's text.
    func text() throws -> String {
        String(decoding: try data(), as: UTF8.self)
    }
}

/// The URL every test response claims to come from.
let weatherURL = "https://api.example.com/weather?city=Toronto"

/// A collected response as a transport would return it.
func response(
    _ body: String,
    status: HTTPResponse.Status = .ok,
    contentType: String? = "application/json",
    url: String = weatherURL
) -> DataResponse {
    response(Data(body.utf8), status: status, contentType: contentType, url: url)
}

/// A collected response with raw bytes.
func response(
    _ body: Data,
    status: HTTPResponse.Status = .ok,
    contentType: String? = "application/json",
    url: String = weatherURL
) -> DataResponse {
    var fields = HTTPFields()
    if let contentType { fields[.contentType] = contentType }
    return DataResponse(head: HTTPResponse(status: status, headerFields: fields), body: body, url: url)
}

/// `json` wrapped in the standard envelope with the given code and message.
func enveloped(_ json: String, code: String = "200", message: String = "\"ok\"") -> String {
    #"{"code":\#(code),"message":\#(message),"data":\#(json)}"#
}
