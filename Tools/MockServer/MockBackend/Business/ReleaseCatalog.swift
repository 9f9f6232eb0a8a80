/// The releases of the weather app that `/sysVersion` reports: a fixed list, so clients and
/// tests always see the same answer.
enum ReleaseCatalog {
    /// One release: its version, what changed, when it shipped, and for which platforms.
    struct Release: Sendable {
        /// The version, such as `2.1.0`.
        let version: AppVersion
        /// What changed, in one sentence.
        let notes: String
        /// When the release shipped, in milliseconds since 1970.
        let time: Int
        /// The platforms it shipped for (lowercase), `nil` for every platform, whatever its name.
        let platforms: Set<String>?

        /// Whether the release shipped for `platform` (lowercase).
        func isFor(_ platform: String) -> Bool {
            platforms?.contains(platform) ?? true
        }

        /// `{"version", "notes", "time"}`, an item of `/sysVersion`'s list.
        var json: JSONValue {
            .object(["version": .string(version.description), "notes": .string(notes), "time": .int(time)])
        }
    }

    /// Every release, oldest first.
    static let all: [Release] = [
        release([1, 0, 0], "The first release: forecasts for sixty cities.", time: 1_705_309_200_000),
        release([1, 1, 0], "Radar images, with downloads that resume.", time: 1_709_542_800_000),
        release([1, 2, 0], "Send a weather report with a photo.", time: 1_716_195_600_000),
        release(
            [1, 2, 1], "Fixes a crash when a photo is larger than 10 MB.", time: 1_717_405_200_000,
            platforms: ["android", "ios"]),
        release([2, 0, 0], "A new look, and the cities of China by their Chinese names.", time: 1_725_872_400_000),
        release([2, 1, 0], "Works offline: the last forecast of each city is kept.", time: 1_736_758_800_000),
    ]

    /// The releases for `platform` newer than `version`, newest first.
    ///
    /// - Parameters:
    ///   - version: The version the client runs.
    ///   - platform: The client's platform, lowercase, such as `linux`; one the catalog does
    ///     not name gets the releases made for every platform.
    static func releases(newerThan version: AppVersion, for platform: String) -> [Release] {
        all.filter { $0.isFor(platform) && $0.version > version }.reversed()
    }

    /// A release of the version `components` for `platforms`, every platform by default.
    private static func release(
        _ components: [Int],
        _ notes: String,
        time: Int,
        platforms: Set<String>? = nil
    ) -> Release {
        Release(version: AppVersion(components: components), notes: notes, time: time, platforms: platforms)
    }
}
