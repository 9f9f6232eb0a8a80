import Coordination
public import Downloads
public import Forms
public import Foundation
public import Mapping
public import Transport

/// The weather service, for any type that adopts it: forecasts, the list of cities, the radar
/// image, weather reports, and a batch of forecasts with a count.
///
/// Adopt it on whatever sends requests; they use that type's
/// ``/Forms/Requestable/clientConfiguration`` (the one ``/Forms/ClientSystem/bootstrap(_:)``
/// installed, by default):
///
/// ```swift
/// struct ForecastScreen: WeatherRequestable {}
///
/// let forecast = try await ForecastScreen().forecast(city: "Toronto").value
/// ForecastScreen().forecast(city: "Paris")
///     .success { print($0.location) }
///     .failure { print($0) }               // "Unknown city: Paris" is a BusinessError
/// ```
///
/// Answers come in the backend's envelope, `{"code", "message", "data"}` with code 200 for
/// success; another code fails the handle with Mapping's `BusinessError` and the server's
/// message (an unknown city is code 404, "Unknown city: NAME"). Bad arguments (an empty city, a
/// page size out of range) fail the handle at once with a `FormError` of category
/// `invalidParameters`, before anything is sent.
public protocol WeatherRequestable: Requestable {}

/// The envelope list layout of `GET /weather/cities`: `{"items": [...], "cursor": next or null}`.
private let cityPageLayout = ListLayout(items: "items", cursor: "cursor", hasMore: nil)

extension WeatherRequestable {
    /// A city's three-day forecast: `GET /weather?city=NAME`, decoded from the envelope's data.
    ///
    /// - Parameters:
    ///   - city: The city's name, such as `Toronto` or `北京`; matched without regard to case.
    ///   - options: What this call decides over the client: a timeout, user information, where
    ///     handlers run. None by default.
    ///   - startImmediately: `true` (the default) sends now; `false` waits for `start()`.
    /// - Returns: A handle for the forecast.
    public func forecast(
        city: String, options: CallOptions = CallOptions(), startImmediately: Bool = true
    ) -> DataRequest<Forecast> {
        guard let city = Self.validCity(city) else { return Self.failed(Self.emptyCity) }
        return request(WeatherForm.forecast(city: city), options: options, startImmediately: startImmediately)
            .decodeEnvelope(Forecast.self)
    }

    /// One day of a city's forecast, read at the key path `data.three_day_forecast.N` after the
    /// envelope's code is checked.
    ///
    /// - Parameters:
    ///   - city: The city's name.
    ///   - index: The day, counting from 0 (today).
    ///   - options: What this call decides over the client; none by default.
    /// - Returns: A handle for the day. A day the forecast does not have fails it with a
    ///   `MappingError` naming the key path.
    public func forecastDay(city: String, index: Int, options: CallOptions = CallOptions()) -> DataRequest<Forecast.Day>
    {
        guard let city = Self.validCity(city) else { return Self.failed(Self.emptyCity) }
        guard index >= 0 else {
            return Self.failed(
                FormError(.invalidParameters, message: "The day \(index) is negative; days count from 0 (today)."))
        }
        return request(WeatherForm.forecast(city: city), options: options)
            .decodeEnvelope(Forecast.Day.self, at: JSONKeyPath("three_day_forecast.\(index)"))
    }

    /// A page of the cities the service knows: `GET /weather/cities?cursor=C&limit=N`.
    ///
    /// ```swift
    /// var page = try await screen.cities().value
    /// while let cursor = page.nextCursor {
    ///     page = try await screen.cities(after: cursor).value
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - cursor: The previous page's ``/Mapping/ListPage/nextCursor``; `nil` (the default)
    ///     for the first page.
    ///   - limit: Cities per page, 1 to 100; 10 by default.
    ///   - options: What this call decides over the client; none by default.
    /// - Returns: A handle for the page; its `nextCursor` is `nil` on the last page.
    public func cities(
        after cursor: String? = nil, limit: Int = 10, options: CallOptions = CallOptions()
    ) -> DataRequest<ListPage<City>> {
        guard (1...100).contains(limit) else {
            return Self.failed(
                FormError(.invalidParameters, message: "The page size \(limit) is out of range; use 1 to 100."))
        }
        return request(WeatherForm.cities(cursor: cursor, limit: limit), options: options)
            .list(City.self, layout: cityPageLayout, in: .envelope)
    }

    /// The radar image of a city, downloaded to a file: `GET /weather/radar?city=NAME&size=N`.
    ///
    /// The download continues from the partial file an earlier one to the same destination left
    /// (cancelled, failed or killed), when the server still has the same image. It retries
    /// under the client's retry policy, as downloads do, and a retry resumes too.
    ///
    /// - Parameters:
    ///   - city: The city's name.
    ///   - size: The image's size in bytes, for a server that makes images to order; `nil` (the
    ///     default) for the server's own.
    ///   - destination: The file to create or replace once the image is complete.
    ///   - options: What this call decides over the client; none by default.
    /// - Returns: The download's handle: its value is the summary of the finished file, its
    ///   events report progress.
    public func radar(
        city: String, size: Int? = nil, to destination: URL, options: CallOptions = CallOptions()
    ) -> DownloadRequest {
        guard let city = Self.validCity(city) else { return DownloadRequest(finished: .failure(Self.emptyCity)) }
        if let size, size < 0 {
            return DownloadRequest(
                finished: .failure(
                    FormError(.invalidParameters, message: "The radar size \(size) is negative; give a byte count.")))
        }
        return download(RadarForm(city: city, size: size, destination: destination), options: options)
    }

    /// Sends a weather report: `POST /weather/report` with the parts `city`, `note` and `photo`
    /// (streamed from its file), reporting upload progress as it goes.
    ///
    /// The server asks for a login token: install ``WeatherLogin`` on the client, and the first
    /// refusal logs in, or an expired token is refreshed, and the report is sent again.
    ///
    /// - Parameters:
    ///   - city: The city the report is about.
    ///   - note: A note; `nil` (the default) for none.
    ///   - photo: The photo's file.
    ///   - options: What this call decides over the client; none by default.
    /// - Returns: A handle for what the server received: compare its `sha256` with the file's.
    ///   A missing photo fails it before anything is sent, naming the path.
    public func report(
        city: String, note: String? = nil, photo: URL, options: CallOptions = CallOptions()
    ) -> UploadRequest<WeatherReport> {
        guard let city = Self.validCity(city) else { return Self.failed(Self.emptyCity) }
        let form: ReportForm
        do {
            form = try ReportForm(city: city, note: note, photoPath: photo.path)
        } catch {
            return Self.failed(error)
        }
        return upload(form, options: options).decodeEnvelope(WeatherReport.self)
    }

    /// Forecasts for many cities at once: at most `maximumConcurrent` requests at a time, a count
    /// of those done as each finishes (Feedback's `progress` draws it as "3/5"), and every
    /// outcome, in the order of `cities`, when all are done.
    ///
    /// - Parameters:
    ///   - cities: The cities' names.
    ///   - maximumConcurrent: The most requests in flight; 3 by default.
    ///   - options: What each call decides over the client; none by default.
    /// - Returns: A handle for one outcome per city: a forecast, or why there is none.
    public func forecasts(
        for cities: [String], maximumConcurrent: Int = 3, options: CallOptions = CallOptions()
    ) -> RequestHandle<[Result<Forecast, any Error>]> {
        let members = cities.map { forecast(city: $0, options: options, startImmediately: false) }
        return RequestBatch.all(members, maximumConcurrent: maximumConcurrent)
    }

    /// A new login token: `POST /auth/login`.
    ///
    /// - Parameter options: What this call decides over the client; none by default.
    /// - Returns: A handle for the token and its lifetime.
    public func login(options: CallOptions = CallOptions()) -> DataRequest<LoginToken> {
        request(LoginForm.login, options: options).decodeEnvelope(LoginToken.self)
    }

    /// A new token for one the server issued: `POST /auth/refresh` with `Authorization: Bearer`.
    ///
    /// - Parameters:
    ///   - token: The token to renew, expired or not.
    ///   - options: What this call decides over the client; none by default.
    /// - Returns: A handle for the new token; an unknown token fails it with a `BusinessError`
    ///   of code 401.
    public func refresh(token: String, options: CallOptions = CallOptions()) -> DataRequest<LoginToken> {
        request(LoginForm.refresh(token: token), options: options).decodeEnvelope(LoginToken.self)
    }

    // MARK: - Validation

    /// `city` without surrounding spaces, or `nil` when nothing is left.
    private static func validCity(_ city: String) -> String? {
        let trimmed = city.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The error of an empty city name.
    private static var emptyCity: FormError {
        FormError(.invalidParameters, message: "The city's name is empty; give one, such as \"Toronto\".")
    }

    /// A handle that has already failed with `error`.
    private static func failed<Value>(_ error: any Error) -> RequestHandle<Value> {
        RequestHandle(finished: .failure(error))
    }
}

extension WeatherRequestable where Self: Sendable {
    /// Every city the service knows, page after page, in the server's order.
    ///
    /// - Parameters:
    ///   - pageSize: Cities per page, 1 to 100; 20 by default.
    ///   - options: What each page's call decides over the client; none by default.
    /// - Returns: A handle for the whole list. Its events are each page's, so a progress bar
    ///   or a mask follows the walk; cancelling it stops at the page in flight.
    public func allCities(pageSize: Int = 20, options: CallOptions = CallOptions()) -> RequestHandle<[City]> {
        RequestHandle { events in
            var collected: [City] = []
            var cursor: String?
            var response: ResponseInfo?
            repeat {
                let page = cities(after: cursor, limit: pageSize, options: options)
                page.observe { event in events.send(event) }
                let value = try await page.value
                response = await page.response
                collected += value.items
                cursor = value.nextCursor
            } while cursor != nil
            return .init(value: collected, response: response)
        }
    }
}
