import ArgumentParser
import Feedback
import Transport
import WeatherAPI

/// `parley-demo login`: a new token from `POST /auth/login`.
struct LoginCommand: DemoCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in and show the token (POST /auth/login); weather report does this by itself when asked.")

    @OptionGroup var global: GlobalOptions

    func perform(in session: DemoSession) async throws {
        let token = try await session.screen.login().load(LoadType.default(container: Screen()))
            .inform(Alert(successMessage: FeedbackSystem.catalog.text(DemoMessages.loggedIn))).value
        try session.output.emit(text: "Logged in: \(token.token) (expires in \(token.expiresIn) s)", json: token)
    }
}
