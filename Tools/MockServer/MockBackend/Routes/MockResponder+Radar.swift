import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

// The radar image of the weather demo's backend: a download with validators and ranges.
extension MockResponder {
    /// The default size of a radar image: 256 KiB.
    static let radarDefaultSize = 256 << 10
    /// The largest radar image: 256 MiB.
    static let radarMaximumSize = 256 << 20
    /// The length of the unit a radar image repeats: 4093 bytes, a prime, so no power-of-two
    /// buffer lines up with it.
    static let radarPeriod = 4093

    /// `GET /weather/radar?city=NAME&size=N&chunk-delay=MS` (and HEAD): the city's radar
    /// image, `N` bytes (262144 by default, at most 256 MiB), `application/octet-stream`,
    /// streamed with `Content-Length`.
    ///
    /// The bytes repeat 4093 bytes drawn by ``SplitMix64`` from a hash of the city's name, so
    /// they are the same on every request and differ from city to city. The validators are a
    /// strong `ETag: "radar-{16 hex digits of the seed}-{N}"` and a `Last-Modified` on
    /// 1 January 2024; one `Range: bytes=…` is honoured (206 with `Content-Range`, or 416) unless
    /// an `If-Range` names another ETag or date (then 200 with the whole image).
    /// `chunk-delay=MS` (at most 10000) waits after each 64 KiB, so a progress bar is visible;
    /// without it, the route's pace (``FaultInjector/setPace(_:for:)``) applies.
    ///
    /// Not an envelope route: a download must not save an error as an image, so an unknown
    /// city is HTTP 404 with the body `{"code": 404, "message": "Unknown city: NAME", "data":
    /// null}`, and a missing city or a bad number HTTP 400 with the same kind of body.
    func weatherRadar(_ request: Request, target: RequestTarget) throws -> Response {
        try Self.requireGet(request, "/weather/radar")
        let name = (target.value("city") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let count: Int
        let chunkDelay: Int
        do {
            count = try target.integer("size", in: 0...Self.radarMaximumSize, default: Self.radarDefaultSize)
            let pace = FaultInjector.milliseconds(faults.pace(for: "/weather/radar"))
            chunkDelay = try target.integer("chunk-delay", in: 0...10_000, default: pace)
        } catch let error as RouteError {
            return try .envelope(code: 400, message: error.message, data: .null, status: .badRequest)
        }
        guard !name.isEmpty else {
            return try .envelope(code: 400, message: "Missing query item: city", data: .null, status: .badRequest)
        }
        guard let city = CityCatalog.city(named: name) else {
            return try .envelope(code: 404, message: "Unknown city: \(name)", data: .null, status: .notFound)
        }

        let seed = CityCatalog.radarSeed(of: city)
        let version = ByteVersion(
            entityTag: "\"radar-\(StableHash.hex(seed))-\(count)\"",
            lastModified: ByteVersion.lastModified(minute: Int(seed % 1440)))
        var fields: HTTPFields = [.contentType: "application/octet-stream", .acceptRanges: "bytes"]
        fields[.eTag] = version.entityTag
        fields[.lastModified] = version.lastModified
        let (range, status) = try Self.selectRange(of: request, count: count, version: version, fields: &fields)

        let chunk = chunkDelay > 0 ? 64 << 10 : MockResponder.patternChunk
        let source = BytePatternSource(unit: Self.radarUnit(seed: seed), maximumChunk: min(range.count, chunk))
        let body = ResponseBody(contentLength: range.count) { writer in
            try await source.write(from: range.lowerBound, count: range.count, pausingAfterEachChunk: chunkDelay) {
                try await writer.write($0)
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: fields, body: body)
    }

    /// The 4093 bytes a radar image of `seed` repeats.
    static func radarUnit(seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var unit: [UInt8] = []
        unit.reserveCapacity(radarPeriod + 7)
        while unit.count < radarPeriod {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) {
                unit.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Array(unit.prefix(radarPeriod))
    }
}
