/// What a console may do: move the cursor and redraw, and use colour.
///
/// Decided once, from whether standard error is a terminal and from the environment, by the
/// conventions command-line users expect (clig.dev, no-color.org, force-color.org):
///
/// | Condition | Redraws (cursor movement, `\r`) | Colour |
/// |---|---|---|
/// | a terminal, `TERM` not `dumb`, `CI` not set | yes | yes |
/// | not a terminal (a pipe, a file), `TERM=dumb`, or `CI` set (not empty, `0` or `false`) | no: plain lines | no |
/// | `NO_COLOR` set (not empty) | as above | no, whatever else is set |
/// | `FORCE_COLOR` set (not empty, `0` or `false`) | as above | yes |
///
/// Without redraws a presenter writes no escape sequence and no carriage return at all, only
/// whole lines; with `FORCE_COLOR` those lines may carry colour codes, and nothing else.
public struct ConsoleCapabilities: Sendable, Hashable {
    /// Whether the presenter may move the cursor and redraw a live area.
    public var redraws: Bool
    /// Whether the presenter may write colour codes.
    public var usesColor: Bool

    /// Creates capabilities as given.
    public init(redraws: Bool, usesColor: Bool) {
        self.redraws = redraws
        self.usesColor = usesColor
    }

    /// The capabilities for an output that is (or is not) a terminal, in `environment`.
    ///
    /// - Parameters:
    ///   - isTerminal: Whether the output is a terminal (`isatty`).
    ///   - environment: The process environment.
    public static func detect(isTerminal: Bool, environment: [String: String]) -> ConsoleCapabilities {
        let isSet = { (name: String) in !(environment[name] ?? "").isEmpty }
        // `CI=false` and `CI=0` are how some runners say "not CI".
        let isCI = isSet("CI") && !["false", "0"].contains((environment["CI"] ?? "").lowercased())
        let redraws = isTerminal && environment["TERM"] != "dumb" && !isCI
        var usesColor = redraws
        if let force = environment["FORCE_COLOR"], !force.isEmpty, force != "0", force.lowercased() != "false" {
            usesColor = true
        }
        if isSet("NO_COLOR") { usesColor = false }
        return ConsoleCapabilities(redraws: redraws, usesColor: usesColor)
    }
}
