import Forms
import Foundation

/// `GET /weather/radar?city=NAME&size=N` to a file, continuing from the partial an earlier
/// run left: the radar image is large, and a download cut by the network or by Ctrl-C keeps
/// its bytes.
struct RadarForm: DownloadResumeFormable {
    /// The city.
    var city: String
    /// The image's size in bytes, as the server should make it; `nil` for the server's default.
    var size: Int?
    /// Where the image goes.
    var destination: URL

    var path: String { "/weather/radar" }

    var parameters: Parameters {
        if let size { ["city": city, "size": size] } else { ["city": city] }
    }
}
