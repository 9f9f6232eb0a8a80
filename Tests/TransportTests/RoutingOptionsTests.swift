import Testing
import Transport

/// The proxy, socket and credential options layer like every other option.
@Suite struct RoutingOptionsTests {
    @Test func defaultsAreTheEnvironmentTCPAndNoCredentials() {
        let options = TransferOptions()
        #expect(options.proxy == .environment)
        #expect(options.unixSocketPath == nil)
        #expect(options.credentials == nil)
    }

    @Test func aRequestsSettingWinsEvenWhenItIsNone() {
        var defaults = TransferOptions()
        defaults.proxy = .proxy(.http(host: "proxy.internal"))
        defaults.unixSocketPath = "/run/app.sock"
        defaults.credentials = .basic(user: "ada", password: "s3cret")
        let inherited = TransferOptions().resolved(over: defaults)
        #expect(inherited.proxy == defaults.proxy)
        #expect(inherited.unixSocketPath == "/run/app.sock")
        #expect(inherited.credentials == defaults.credentials)

        var own = TransferOptions()
        own.proxy = .direct
        own.unixSocketPath = nil
        own.credentials = nil
        let resolved = own.resolved(over: defaults)
        #expect(resolved.proxy == .direct)
        #expect(resolved.unixSocketPath == nil)
        #expect(resolved.credentials == nil)
    }

    @Test func descriptionsNeverShowAPassword() {
        var proxy = Proxy.socks5(host: "::1", port: 1080)
        proxy.credentials = .basic(user: "build", password: "proxy-secret")
        #expect(proxy.url == "socks5h://[::1]:1080")
        #expect(proxy.description == "socks5h://[::1]:1080 (user build)")
        #expect(HTTPCredentials.digest(user: "ada", password: "s3cret").description == "digest ada:<redacted>")
        #expect(!"\(ProxySetting.proxy(proxy))".contains("proxy-secret"))
    }
}
