import Feedback

/// The demo's own sentences, added to the message catalog the console speaks: in English, and
/// in Simplified Chinese when the shipped Chinese catalog is the one chosen.
enum DemoMessages {
    /// After a report was sent: `{city}` is filled in.
    static let reportSent = MessageKey("demo.reportSent")
    /// After a login.
    static let loggedIn = MessageKey("demo.loggedIn")
    /// The refresh header's label while a forecast loads: `{city}` is filled in.
    static let refreshingForecast = MessageKey("demo.refreshingForecast")
    /// The log's line for a forecast asked for: `{city}` is filled in.
    static let askedForForecast = MessageKey("demo.askedForForecast")
    /// The log's line for a forecast received: `{location}` and `{days}` are filled in.
    static let receivedForecast = MessageKey("demo.receivedForecast")

    private static let english: [MessageKey: String] = [
        reportSent: "Your report for {city} was received. Thank you.",
        loggedIn: "Logged in.",
        refreshingForecast: "Refreshing the forecast for {city}…",
        askedForForecast: "→ Asked for the forecast for {city}.",
        receivedForecast: "← {days} days for {location}.",
    ]

    private static let simplifiedChinese: [MessageKey: String] = [
        reportSent: "已收到您关于{city}的天气报告，谢谢。",
        loggedIn: "已登录。",
        refreshingForecast: "正在刷新{city}的天气预报…",
        askedForForecast: "→ 已请求{city}的天气预报。",
        receivedForecast: "← {location}：{days} 天的预报。",
    ]

    /// `catalog` with the demo's sentences in its language (English for a language the demo
    /// does not speak).
    static func adding(to catalog: MessageCatalog) -> MessageCatalog {
        catalog.merging(catalog.languageCode.hasPrefix("zh") ? simplifiedChinese : english)
    }
}
