import Testing
import Transport

@Suite struct LogRedactionTests {
    @Test func hidesSensitiveQueryValuesAndPasswordsAndKeepsTheRest() {
        #expect(
            LogRedaction.redactedURL("https://u:pw@api.example.com/v1?city=Oslo&access_token=abc&apiKey=k#top")
                == "https://u:<redacted>@api.example.com/v1?city=Oslo&access_token=<redacted>&apiKey=<redacted>#top")
        // Percent-encoded names are recognised; names without a value and plain URLs pass through.
        #expect(
            LogRedaction.redactedURL("http://h/p?%74oken=x&flag&q=a%3Db")
                == "http://h/p?%74oken=<redacted>&flag&q=a%3Db")
        #expect(LogRedaction.redactedURL("http://user@h:8080/a/b") == "http://user@h:8080/a/b")
        #expect(LogRedaction.redactedURL("http://h/path@x:y") == "http://h/path@x:y")
    }

    @Test(arguments: ["password", "X-Api-Key", "session_id", "refreshToken", "client_secret"])
    func namesThatLookLikeCredentialsAreSensitive(name: String) {
        #expect(LogRedaction.isSensitive(name))
    }

    @Test(arguments: ["city", "page", "author", "units"])
    func otherNamesAreNot(name: String) {
        #expect(!LogRedaction.isSensitive(name))
    }
}
