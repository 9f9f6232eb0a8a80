import Downloads
import HTTPTypes
import Testing
import Transport

/// A response head with `status` and `fields`, for the decision tables.
func head(_ status: Int, _ fields: [HTTPField.Name: String] = [:]) -> HTTPResponse {
    var headerFields = HTTPFields()
    for (name, value) in fields.sorted(by: { $0.key.rawName < $1.key.rawName }) {
        headerFields.append(HTTPField(name: name, value: value))
    }
    return HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: headerFields)
}
