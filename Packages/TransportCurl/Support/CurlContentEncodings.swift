import CCurl

/// The `Accept-Encoding` libcurl sends for `CURLOPT_ACCEPT_ENCODING` `""`: every encoding the
/// libcurl of the process decodes.
///
/// The engine puts this line in the header list of a transfer that decodes content itself.
/// libcurl 7.88.1 then skips the `Accept-Encoding` it would have formatted with `aprintf` for
/// every request (it sends its own only when the header list has none), and still decodes the
/// response, since `CURLOPT_ACCEPT_ENCODING` stays set.
enum CurlContentEncodings {
    /// `Accept-Encoding: ` and the encodings, as libcurl lists them.
    static let acceptEncodingLine: String = {
        let features = parley_curl_features()
        return "Accept-Encoding: "
            + names(
                zlib: features & parley_feature_libz != 0, brotli: features & parley_feature_brotli != 0,
                zstd: features & parley_feature_zstd != 0)
    }()

    /// The encodings a libcurl built with these libraries decodes, in the order of its own
    /// list (lib/content_encoding.c): `deflate, gzip` with zlib, `br` with brotli, `zstd` with
    /// zstd; `identity` when it decodes none.
    static func names(zlib: Bool, brotli: Bool, zstd: Bool) -> String {
        var names: [String] = []
        if zlib { names += ["deflate", "gzip"] }
        if brotli { names.append("br") }
        if zstd { names.append("zstd") }
        return names.isEmpty ? "identity" : names.joined(separator: ", ")
    }
}
