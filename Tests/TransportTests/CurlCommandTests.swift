import Foundation
import HTTPTypes
import Testing
import Transport

/// How a request renders as a `curl` command: quoting and redaction. `CurlCommandReplayTests`
/// (TransportCurlTests) runs the commands against a server.
@Suite struct CurlCommandTests {
    @Test func rendersAPlainGET() throws {
        let request = try TransportRequest(method: .get, url: "https://example.com/items?page=2")
        #expect(
            request.curlCommand()
                == "curl 'https://example.com/items?page=2' --compressed --connect-timeout 10 --location --max-redirs 10"
        )
    }

    @Test func quotesSingleQuotesAndKeepsNewlines() throws {
        let request = try TransportRequest(
            method: .put, url: "http://example.com/notes", headers: ["X-Note": "it's"], body: .string("a'b\nc $HOME"))
        let command = request.curlCommand()
        #expect(command.contains("-X PUT"))
        #expect(command.contains(#"-H 'X-Note: it'\''s'"#))
        #expect(command.contains("--data-binary 'a'\\''b\nc $HOME'"))
        #expect(command.contains("-H 'Content-Type:'"))
    }

    @Test func writesBinaryBodiesAndLeadingAtSignsThroughPrintf() throws {
        let binary = try TransportRequest(
            method: .post, url: "http://example.com/", body: .bytes(Data([0, 0x41, 0x27, 0x5C, 0xFF])))
        #expect(binary.curlCommand().contains(#"--data-binary @<(printf '%b' '\0000A\0047\0134\0377')"#))
        let atSign = try TransportRequest(method: .post, url: "http://example.com/", body: .string("@/etc/passwd"))
        #expect(!atSign.curlCommand().contains("--data-binary '@"))
    }

    @Test func readsFilesAndRegionsOfThem() throws {
        let whole = try TransportRequest(method: .post, url: "http://example.com/", body: .file(path: "/tmp/a b.bin"))
        #expect(whole.curlCommand().contains("--data-binary '@/tmp/a b.bin'"))
        let region = try TransportRequest(
            method: .post, url: "http://example.com/", body: .file(path: "/tmp/a.bin", offset: 10, length: 5))
        #expect(region.curlCommand().contains("--data-binary @<(tail -c +11 /tmp/a.bin | head -c 5)"))
    }

    @Test func redactsEveryCredentialByDefault() throws {
        var request = try TransportRequest(
            method: .post, url: "https://example.com/login?access_token=query-secret",
            headers: [
                "Authorization": "Bearer header-secret", "Cookie": "id=cookie-secret", "X-Api-Key": "key-secret",
            ],
            body: .string(#"{"user":"ada","password":"body-secret"}"#))
        request.options.credentials = .digest(user: "ada", password: "auth-secret")
        var proxy = Proxy.http(host: "proxy.internal", port: 3128)
        proxy.credentials = .basic(user: "build", password: "proxy-secret")
        request.options.proxy = .proxy(proxy)
        let redacted = request.curlCommand()
        for secret in [
            "query-secret", "header-secret", "cookie-secret", "key-secret", "body-secret",
            "auth-secret", "proxy-secret",
        ] {
            #expect(!redacted.contains(secret), "\(secret) in \(redacted)")
        }
        #expect(redacted.contains("--user 'ada:<redacted>' --digest"))
        #expect(redacted.contains("--proxy http://proxy.internal:3128 --proxy-user 'build:<redacted>' --proxy-basic"))
        let revealed = request.curlCommand(redactsCredentials: false)
        for secret in ["query-secret", "header-secret", "auth-secret", "proxy-secret", "body-secret"] {
            #expect(revealed.contains(secret), "\(secret) missing from \(revealed)")
        }
    }

    @Test func rendersRoutingAndTimeouts() throws {
        var request = try TransportRequest(method: .head, url: "http://localhost/[v1]/info")
        request.options.unixSocketPath = "/run/app.sock"
        request.options.deadline = .milliseconds(2500)
        request.options.connectTimeout = .seconds(3)
        request.options.redirects = .none
        request.options.decodesContent = false
        #expect(
            request.curlCommand()
                == "curl --head --globoff 'http://localhost/[v1]/info' --unix-socket /run/app.sock --connect-timeout 3 "
                + "--max-time 2.500")
        request.options.unixSocketPath = nil
        request.options.proxy = .direct
        #expect(request.curlCommand().contains("--noproxy '*'"))
    }
}
