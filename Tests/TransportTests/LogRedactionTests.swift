import Foundation
import HTTPTypes
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
        #expect(LogRedaction.redactedURL("http://h/path@x:y") == "http://h/path@x:y")
    }

    @Test func hidesAUserNameThatStandsAloneBecauseItIsOftenAToken() {
        #expect(LogRedaction.redactedURL("http://ghp_s3cr3t@h:8080/a/b") == "http://<redacted>@h:8080/a/b")
        #expect(LogRedaction.redactedURL("http://<redacted>@h:8080/a/b") == "http://<redacted>@h:8080/a/b")
    }

    @Test(arguments: ["password", "X-Api-Key", "session_id", "refreshToken", "client_secret"])
    func namesThatLookLikeCredentialsAreSensitive(name: String) {
        #expect(LogRedaction.isSensitive(name))
    }

    @Test(arguments: ["city", "page", "author", "units"])
    func otherNamesAreNot(name: String) {
        #expect(!LogRedaction.isSensitive(name))
    }

    @Test(arguments: [
        (
            "The request to https://user:pa55@h:1/p?token=s3cr3t-1&city=Oslo failed.",
            "The request to https://user:<redacted>@h:1/p?token=<redacted>&city=Oslo failed."
        ),
        ("(see http://h/p?api_key=s3cr3t-2).", "(see http://h/p?api_key=<redacted>)."),
        ("Authorization: Bearer s3cr3t-3\nAccept: */*", "Authorization: <redacted>\nAccept: */*"),
        ("sent Cookie: sid=s3cr3t-4; theme=dark", "sent Cookie: <redacted>"),
        ("Set-Cookie:s3cr3t-5\r\nX-Other: 1", "Set-Cookie: <redacted>\r\nX-Other: 1"),
        ("Proxy-Authorization: Basic czNjcjN0LTY=", "Proxy-Authorization: <redacted>"),
        (#"{"user":"ann","password":"s3cr3t-7","n":1}"#, #"{"user":"ann","password":"<redacted>","n":1}"#),
        ("grant_type=refresh&refresh_token=s3cr3t-8", "grant_type=refresh&refresh_token=<redacted>"),
        ("rejected bearer s3cr3t-9 at the door", "rejected bearer <redacted> at the door"),
        (
            "No connection to h:443 could be made; see https://docs/x.",
            "No connection to h:443 could be made; see https://docs/x."
        ),
        ("The basic plan: 3 requests", "The basic plan: 3 requests"),
    ])
    func redactsEveryCredentialInFreeText(text: String, expected: String) {
        let redacted = LogRedaction.redactedText(text)
        #expect(redacted == expected)
        #expect(!redacted.contains("s3cr3t"))
        // Applying the rule again changes nothing more.
        #expect(LogRedaction.redactedText(redacted) == redacted)
    }

    @Test func requestsAndResponsesDescribeThemselvesWithoutCredentials() throws {
        let url = "https://api.example.com/v1?city=Oslo&token=s3cr3t-a"
        let request = try TransportRequest(
            method: .get, url: url, headers: ["Authorization": "Bearer s3cr3t-b", "Accept": "application/json"])
        var head = HTTPResponse(status: .ok)
        head.headerFields[.setCookie] = "sid=s3cr3t-c"
        let response = DataResponse(head: head, body: Data("{}".utf8), url: url)
        let streamed = TransportResponse(head: head, body: ResponseBody(Data()), url: url)
        let texts = [
            "\(request)", String(reflecting: request), "\(response)", String(reflecting: response), "\(streamed)",
            String(reflecting: streamed),
        ]
        for text in texts {
            #expect(!text.contains("s3cr3t"), "\(text)")
            #expect(text.contains("token=<redacted>"), "\(text)")
        }
        #expect(String(reflecting: request).contains("Authorization: <redacted>"))
        #expect(String(reflecting: response).contains("Set-Cookie: <redacted>"))
    }
}
