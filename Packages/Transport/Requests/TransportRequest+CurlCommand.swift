import Foundation
import HTTPTypes

extension TransportRequest {
    /// The request as a `curl` command line that a POSIX shell (bash for a binary or partial-file
    /// body) runs to send the same request: its method, URL, header fields and body, and the
    /// options `curl` has a flag for.
    ///
    /// Credentials are redacted by default, by the rule of the logs (``LogRedaction``): the
    /// values of `Authorization`, `Cookie`, `Proxy-Authorization` and other credential fields,
    /// the passwords of ``TransferOptions/credentials`` and of the proxy, credential query values
    /// and URL passwords become `<redacted>`, and so do credential members of a text body. A
    /// redacted command is for logs and bug reports; pass `redactsCredentials: false` for one
    /// that reproduces the request exactly, and treat it as a secret.
    ///
    /// ```swift
    /// var request = try TransportRequest(method: .post, url: "https://api.example.com/items",
    ///                                    headers: ["Content-Type": "application/json"],
    ///                                    body: .string(#"{"name":"it's"}"#))
    /// request.options.credentials = .basic(user: "ada", password: "s3cret")
    /// print(request.curlCommand())
    /// // curl -X POST 'https://api.example.com/items' -H 'Content-Type: application/json' -H 'Expect:'
    /// //   --data-binary '{"name":"it'\''s"}' --user 'ada:<redacted>' --basic --compressed
    /// //   --connect-timeout 10 --location --max-redirs 10
    /// ```
    ///
    /// What the command carries, and how:
    ///
    /// - the method: none for `GET`, `--head` for `HEAD`, `-X` otherwise;
    /// - the URL, with `--globoff` when it holds `[`, `]`, `{` or `}`;
    /// - each header field as `-H 'Name: value'` (`-H 'Name;'` for an empty value), and
    ///   `-H 'Expect:'` for a body, as the engine sends it; `-H 'Content-Type:'` for a body with no
    ///   `Content-Type`, which `curl` would otherwise add;
    /// - a body in memory as `--data-binary 'text'`, or, when it is not UTF-8 text (or starts
    ///   with `@`), as `--data-binary @<(printf '%b' '…')` with octal escapes; a file as
    ///   `--data-binary @path` (a region of it through `tail` and `head`); a stream as
    ///   `--data-binary @-`, to be piped in;
    /// - ``TransferOptions/credentials`` as `--user` with `--basic`, `--digest` or `--anyauth`;
    /// - ``TransferOptions/proxy``: `--proxy`, `--proxy-user`, `--noproxy` and `--proxytunnel` for a
    ///   proxy, `--noproxy '*'` for ``ProxySetting/direct``, nothing for the environment (which
    ///   `curl` reads the same way);
    /// - ``TransferOptions/unixSocketPath`` as `--unix-socket`;
    /// - ``TransferOptions/decodesContent`` as `--compressed`, the connect timeout as
    ///   `--connect-timeout`, the deadline as `--max-time`, and the redirect policy as
    ///   `--location --max-redirs N`.
    ///
    /// What it cannot carry: the options a transport adds (its `User-Agent`, TLS settings, the
    /// default options of its configuration), a gzip-compressed body
    /// (``TransferOptions/compressesRequestBody``: `curl` sends the body as it is), the stall
    /// timeout and the size limits.
    ///
    /// - Parameter redactsCredentials: Whether credentials are replaced by `<redacted>`; `true` by
    ///   default.
    /// - Returns: One line: `curl` and its arguments, each quoted for the shell where needed.
    public func curlCommand(redactsCredentials: Bool = true) -> String {
        var arguments = ["curl"]
        let method = head.method
        let hasBody = body != nil
        if method == .head {
            arguments.append("--head")
        } else if (method != .get || hasBody) && !(method == .post && hasBody) {
            arguments += ["-X", method.rawValue]
        }
        let target = redactsCredentials ? LogRedaction.redactedURL(url) : url
        if target.contains(where: { "[]{}".contains($0) }) { arguments.append("--globoff") }
        arguments.append(Self.shellQuoted(target))

        var hasContentType = false
        for field in head.headerFields {
            if field.name == .contentType { hasContentType = true }
            let hidden = redactsCredentials && Self.isCredentialField(field.name)
            let value = hidden ? "<redacted>" : field.value
            arguments += [
                "-H", Self.shellQuoted(value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(value)"),
            ]
        }
        if let body {
            if head.headerFields[.expect] == nil { arguments += ["-H", "'Expect:'"] }
            if !hasContentType { arguments += ["-H", "'Content-Type:'"] }
            arguments += ["--data-binary", Self.bodyArgument(body, redactsCredentials: redactsCredentials)]
        }

        if let credentials = options.credentials {
            let password = redactsCredentials ? "<redacted>" : credentials.password
            arguments += ["--user", Self.shellQuoted("\(credentials.user):\(password)")]
            switch credentials.scheme {
            case .basic: arguments.append("--basic")
            case .digest: arguments.append("--digest")
            case .any: arguments.append("--anyauth")
            }
        }
        if let path = options.unixSocketPath {
            arguments += ["--unix-socket", Self.shellQuoted(path)]
        }
        switch options.proxy {
        case .environment:
            break
        case .direct:
            arguments += ["--noproxy", "'*'"]
        case .proxy(let proxy):
            arguments += ["--proxy", Self.shellQuoted(proxy.url)]
            if let credentials = proxy.credentials {
                let password = redactsCredentials ? "<redacted>" : credentials.password
                arguments += ["--proxy-user", Self.shellQuoted("\(credentials.user):\(password)")]
                switch credentials.scheme {
                case .basic: arguments.append("--proxy-basic")
                case .digest: arguments.append("--proxy-digest")
                case .any: arguments.append("--proxy-anyauth")
                }
            }
            // An empty list keeps curl from reading no_proxy, as the engine does.
            arguments += ["--noproxy", Self.shellQuoted(proxy.bypass.joined(separator: ","))]
            if proxy.tunnelsEveryRequest { arguments.append("--proxytunnel") }
        }
        if options.decodesContent { arguments.append("--compressed") }
        arguments += ["--connect-timeout", Self.seconds(options.connectTimeout)]
        if let deadline = options.deadline { arguments += ["--max-time", Self.seconds(deadline)] }
        if options.redirects.limit > 0 {
            arguments += ["--location", "--max-redirs", "\(options.redirects.limit)"]
        }
        return arguments.joined(separator: " ")
    }

    /// Whether a field's value is a credential, by the rule of the logs.
    private static func isCredentialField(_ name: HTTPField.Name) -> Bool {
        HTTPFields.credentialFieldNames.contains(name) || LogRedaction.isSensitive(name.canonicalName)
    }

    /// The argument of `--data-binary` for `body`.
    private static func bodyArgument(_ body: RequestBody, redactsCredentials: Bool) -> String {
        switch body.content {
        case .bytes(let data):
            if var text = String(data: data, encoding: .utf8), !text.contains("\0") {
                if redactsCredentials { text = LogRedaction.redactedText(text) }
                // A leading `@` would make curl read a file of that name.
                if !text.hasPrefix("@") { return shellQuoted(text) }
                return printfArgument(Data(text.utf8))
            }
            return printfArgument(data)
        case .file(let path, let offset, let length):
            if offset == 0 && length == nil { return shellQuoted("@" + path) }
            var pipeline = "tail -c +\(offset + 1) \(shellQuoted(path))"
            if let length { pipeline += " | head -c \(length)" }
            return "@<(\(pipeline))"
        case .stream:
            return "@-"
        }
    }

    /// `@<(printf '%b' '…')`: any bytes, NUL included, as octal escapes that bash's `printf` writes back.
    private static func printfArgument(_ data: Data) -> String {
        var escaped = ""
        escaped.reserveCapacity(data.count * 2)
        for byte in data {
            switch byte {
            case UInt8(ascii: " ")...UInt8(ascii: "~") where byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "'"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let octal = String(byte, radix: 8)
                escaped += "\\0" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return "@<(printf '%b' '\(escaped)')"
    }

    /// `text` as one shell word: as it is when it holds only characters no shell treats
    /// specially, otherwise in single quotes (a quote inside becomes `'\''`).
    static func shellQuoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || "-_./:@%+,".unicodeScalars.contains(scalar))
            }
        if plain { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A duration in seconds, as curl's timeout flags take it (`1.5`).
    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        if milliseconds == 0 { return "\(seconds)" }
        let fraction = String(milliseconds + 1000).dropFirst()
        return "\(seconds).\(fraction)"
    }
}
