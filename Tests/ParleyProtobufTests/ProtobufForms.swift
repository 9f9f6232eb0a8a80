#if Protobuf
    import Forms
    import ParleyProtobuf

    /// The mock backend's `/proto` routes, as a feature module would describe them.
    enum ProtoForm: RequestFormable {
        /// `/proto/forecast`: the forecast message; `answer` switches it (`truncated`, `json`,
        /// `empty`, `empty-message`: the route's `as`).
        case forecast(city: String, answer: String? = nil)
        /// `/proto/envelope`: the forecast in the envelope message; `code` makes the envelope
        /// carry another code.
        case envelope(city: String, code: Int? = nil)
        /// `/weather`: the forecast in the JSON envelope, to compare with.
        case jsonWeather(city: String)

        var path: String {
            switch self {
            case .forecast: "/proto/forecast"
            case .envelope: "/proto/envelope"
            case .jsonWeather: "/weather"
            }
        }

        var parameters: Parameters {
            switch self {
            case .forecast(let city, nil): ["city": city]
            case .forecast(let city, let answer?): ["city": city, "as": answer]
            case .envelope(let city, nil): ["city": city]
            case .envelope(let city, let code?): ["city": city, "code": code]
            case .jsonWeather(let city): ["city": city]
            }
        }

        var headers: [String: String] { ["Accept": ProtobufMediaType.standard] }
    }

    /// `POST /proto/echo` with a report as the body.
    struct ReportForm: MessageFormable {
        var report: Parley_Weather_Report
        var contentType: String = ProtobufMediaType.standard
        var path: String { "/proto/echo" }
        var message: Parley_Weather_Report { report }
    }
#endif
