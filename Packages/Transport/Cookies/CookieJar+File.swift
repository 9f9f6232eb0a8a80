public import Foundation

// The jar in a Netscape cookie file (`cookies.txt`), the format of curl's `-b`/`-c` and
// libcurl's CURLOPT_COOKIEFILE/CURLOPT_COOKIEJAR.
extension CookieJar {
    /// Creates a jar holding the cookies of a Netscape cookie file.
    ///
    /// - Throws: ``CookieFileError`` when the file cannot be read or a line is malformed.
    public convenience init(contentsOf file: URL) throws(CookieFileError) {
        self.init()
        try read(from: file)
    }

    /// Adds the cookies of a Netscape cookie file (as curl's `-c` writes it), replacing those
    /// with the same name, domain and path; expired ones are skipped.
    ///
    /// All or nothing: a malformed line throws before any cookie is added. Lines are tab
    /// separated: domain, include-subdomains (`TRUE`/`FALSE`), path, secure (`TRUE`/`FALSE`),
    /// expiry (seconds since 1970, `0` for a session cookie), name, value; `#HttpOnly_` before
    /// the domain marks an `HttpOnly` cookie; other lines starting with `#`, and blank lines, are
    /// comments. The file holds no creation time: cookies are created in the order of its lines.
    ///
    /// - Throws: ``CookieFileError`` when the file cannot be read or a line is malformed.
    public func read(from file: URL) throws(CookieFileError) {
        let path = file.path
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw CookieFileError(
                .unreadable, path: path,
                message: "The cookie file \(path) could not be read as UTF-8 text (\(error.localizedDescription)).")
        }
        let cookies = try Self.parseNetscapeFile(text, path: path, now: Date())
        for cookie in cookies { add(cookie) }
    }

    /// Writes the jar's cookies to a Netscape cookie file, atomically (a temporary file renamed
    /// over the old one, readable by its owner alone), so that a crash leaves the old file or
    /// the new one.
    ///
    /// - Parameters:
    ///   - file: Where to write.
    ///   - includingSessionCookies: Whether session cookies are written too (with an expiry of
    ///     `0`, as curl writes them); `false` by default, since they end with the jar.
    /// - Throws: ``CookieFileError`` (``CookieFileError/Kind/unwritable``).
    public func write(to file: URL, includingSessionCookies: Bool = false) throws(CookieFileError) {
        let text = Self.netscapeFile(cookies.filter { includingSessionCookies || $0.isPersistent })
        let path = file.path
        let temporary = "\(path).\(ProcessInfo.processInfo.processIdentifier).tmp"
        let written = FileManager.default.createFile(
            atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        guard written, rename(temporary, path) == 0 else {
            let reason = written ? String(cString: strerror(errno)) : "it could not be created"
            try? FileManager.default.removeItem(atPath: temporary)
            throw CookieFileError(
                .unwritable, path: path,
                message: "The cookie file \(path) could not be written: \(reason). Check that its folder exists "
                    + "and is writable.")
        }
    }

    /// The text of a Netscape cookie file holding `cookies`.
    package static func netscapeFile(_ cookies: [Cookie]) -> String {
        var text = "# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n\n"
        for cookie in cookies {
            let domain = cookie.isHostOnly ? cookie.domain : ".\(cookie.domain)"
            let expiry = cookie.expiresAt.map { max(1, Int64($0.timeIntervalSince1970.rounded(.up))) } ?? 0
            text += [
                (cookie.isHTTPOnly ? "#HttpOnly_" : "") + domain, cookie.isHostOnly ? "FALSE" : "TRUE",
                cookie.path, cookie.isSecure ? "TRUE" : "FALSE", String(expiry), cookie.name, cookie.value,
            ].joined(separator: "\t")
            text += "\n"
        }
        return text
    }

    /// The unexpired cookies of a Netscape cookie file's text, in its order.
    ///
    /// - Throws: ``CookieFileError`` (``CookieFileError/Kind/malformedLine``) naming the first
    ///   malformed line.
    package static func parseNetscapeFile(_ text: String, path: String, now: Date) throws(CookieFileError) -> [Cookie] {
        var cookies: [Cookie] = []
        var created = now
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = rawLine
            if line.last == "\r" { line = line.dropLast() }
            var isHTTPOnly = false
            if line.hasPrefix("#HttpOnly_") {
                isHTTPOnly = true
                line = line.dropFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                continue
            }
            func malformed(_ reason: String) -> CookieFileError {
                CookieFileError(
                    .malformedLine, path: path, line: offset + 1,
                    message: "Line \(offset + 1) of the cookie file \(path) is not a Netscape cookie line: \(reason). "
                        + "Fix or remove the line, or delete the file to start with an empty jar.")
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            // curl writes 7 fields, and 6 for a cookie with an empty value.
            guard fields.count == 7 || fields.count == 6 else {
                throw malformed("it has \(fields.count) tab-separated fields instead of 7")
            }
            let domain = Cookie.canonicalDomain(String(fields[0]))
            guard !domain.isEmpty, !domain.contains(where: { $0 == " " || $0 == "/" }) else {
                throw malformed("its domain is empty or not a host name")
            }
            guard let includesSubdomains = flag(fields[1]), let isSecure = flag(fields[3]) else {
                throw malformed("its second and fourth fields must be TRUE or FALSE")
            }
            guard fields[2].hasPrefix("/") else { throw malformed("its path does not start with \"/\"") }
            guard let expiry = Int64(fields[4]), expiry >= 0 else {
                throw malformed("its expiry is not a number of seconds since 1970")
            }
            let name = String(fields[5])
            let value = fields.count == 7 ? String(fields[6]) : ""
            guard !name.isEmpty, !name.contains("="), !name.contains(";"), !value.contains(";"),
                !Cookie.hasControlCharacters(name), !Cookie.hasControlCharacters(value),
                name.utf8.count + value.utf8.count <= Cookie.maximumSize
            else { throw malformed("its name or value is empty, too long or holds a forbidden character") }
            let expiresAt = expiry == 0 ? nil : Date(timeIntervalSince1970: Double(expiry))
            if let expiresAt, expiresAt <= now { continue }
            cookies.append(
                Cookie(
                    name: name, value: value, domain: domain, isHostOnly: !includesSubdomains, path: String(fields[2]),
                    isSecure: isSecure, isHTTPOnly: isHTTPOnly, expiresAt: expiresAt, createdAt: created))
            created += 0.000_001
        }
        return cookies
    }

    /// `TRUE` or `FALSE`, in any case.
    private static func flag(_ text: Substring) -> Bool? {
        switch text.uppercased() {
        case "TRUE": true
        case "FALSE": false
        default: nil
        }
    }
}
