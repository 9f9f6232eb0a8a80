import Forms
import Transport

/// `POST /weather/report`: a `multipart/form-data` body with the parts `city`, `note` (when
/// there is one) and `photo`, the photo streamed from its file. The server asks for a login
/// token (`Authorization: Bearer …`), which ``WeatherLogin`` supplies.
struct ReportForm: UploadMultipartFormable {
    var multipart: MultipartFormData
    var path: String { "/weather/report" }

    /// Builds the parts.
    ///
    /// - Parameters:
    ///   - city: The city the report is about.
    ///   - note: A note, if any.
    ///   - photoPath: The photo's path; it is read while the body is sent.
    /// - Throws: `TransportError` (`invalidBody`) when a part cannot be added.
    init(city: String, note: String?, photoPath: String) throws {
        var multipart = MultipartFormData()
        try multipart.addField(name: "city", value: city)
        if let note { try multipart.addField(name: "note", value: note) }
        try multipart.addFile(path: photoPath, name: "photo")
        self.multipart = multipart
    }
}
