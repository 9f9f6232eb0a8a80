import Caching

/// `CacheControl`, on one field value.
///
/// Checks: every directive has a non-empty, lowercase name without surrounding spaces; a
/// numeric directive's seconds are never negative; and the directives written back (names as
/// they are, every argument as a quoted string) parse to the same directives, whenever every
/// name is an HTTP token.
let cacheControlTarget = FuzzTarget(
    name: "cache-control",
    maximumLength: 512,
    summary: "names lowercase and trimmed, seconds >= 0, round trip through the quoted form"
) { buffer in
    let text = FuzzInput(buffer).text
    let control = CacheControl(parsing: text)
    for directive in control.directives {
        check(!directive.name.isEmpty, "an empty name in \(text.debugDescription)")
        check(directive.name == directive.name.lowercased(), "name \(directive.name.debugDescription) not lowercase")
        check(
            directive.name.unicodeScalars.first != " " && directive.name.unicodeScalars.last != " ",
            "name \(directive.name.debugDescription) not trimmed")
    }
    for name in ["max-age", "s-maxage", "min-fresh", "stale-while-revalidate"] {
        if case .seconds(let value) = control.seconds(name) {
            check(value >= 0, "\(name) = \(value) in \(text.debugDescription)")
        }
    }
    if case .some(.some(let value)) = control.maxStale { check(value >= 0, "max-stale = \(value)") }
    guard control.directives.allSatisfy({ isToken($0.name) }) else { return }
    let written = control.directives.map { directive in
        guard let argument = directive.argument else { return directive.name }
        var quoted = "\""
        for scalar in argument.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(scalar)
        }
        return directive.name + "=" + quoted + "\""
    }.joined(separator: ", ")
    let reparsed = CacheControl(parsing: written)
    check(
        reparsed.directives == control.directives,
        "\(text.debugDescription) gave \(control.directives), written \(written.debugDescription) gives "
            + "\(reparsed.directives)")
}

/// Whether `name` is an HTTP token (RFC 9110 §5.6.2).
private func isToken(_ name: String) -> Bool {
    !name.isEmpty
        && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }
}
