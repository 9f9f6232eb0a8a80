import FeedbackConsole
import Testing

@Suite struct ConsoleCapabilitiesTests {
    @Test(
        "who may redraw and colour",
        arguments: [
            (true, ["TERM": "xterm"], true, true),
            (false, ["TERM": "xterm"], false, false),
            (true, ["TERM": "dumb"], false, false),
            (true, ["TERM": "xterm", "CI": "true"], false, false),
            (true, ["TERM": "xterm", "CI": ""], true, true),
            (true, ["TERM": "xterm", "NO_COLOR": "1"], true, false),
            (true, ["TERM": "xterm", "NO_COLOR": ""], true, true),
            (false, ["FORCE_COLOR": "1"], false, true),
            (false, ["FORCE_COLOR": "0"], false, false),
            (true, ["TERM": "dumb", "FORCE_COLOR": "true"], false, true),
            (false, ["FORCE_COLOR": "1", "NO_COLOR": "1"], false, false),
        ])
    func capabilitiesFollowTheTerminalAndTheEnvironment(
        isTerminal: Bool, environment: [String: String], redraws: Bool, usesColor: Bool
    ) {
        let capabilities = ConsoleCapabilities.detect(isTerminal: isTerminal, environment: environment)
        #expect(capabilities == ConsoleCapabilities(redraws: redraws, usesColor: usesColor))
    }
}
