import HTTPTypes
import Testing
import Transport

/// How a request's options, an engine's defaults and the built-in defaults combine.
@Suite struct TransferOptionsTests {
    /// Engine-wide defaults that change every option from its built-in value.
    private static func engineDefaults(events: EventCounter? = nil) -> TransferOptions {
        var defaults = TransferOptions()
        defaults.connectTimeout = .seconds(3)
        defaults.stallTimeout = .seconds(2)
        defaults.deadline = .seconds(60)
        defaults.maximumBodySize = 1 << 20
        defaults.maximumHeaderSize = 8 << 10
        defaults.redirects = .none
        defaults.decodesContent = false
        defaults.compressesRequestBody = true
        if let events { defaults.eventHandler = events.handler }
        return defaults
    }

    private static let someEvent = TransferEvent.uploadProgress(
        TransferProgress(completed: 1, total: nil, bytesPerSecond: 0, isFinal: true))

    @Test func optionsNeverSetReadAsTheBuiltInDefaults() {
        let options = TransferOptions()
        #expect(options.connectTimeout == .seconds(10))
        #expect(options.stallTimeout == .seconds(30))
        #expect(options.deadline == nil)
        #expect(options.maximumBodySize == 64 << 20)
        #expect(options.maximumHeaderSize == 256 << 10)
        #expect(options.redirects == .follow(limit: 10))
        #expect(options.decodesContent)
        #expect(!options.compressesRequestBody)
        #expect(options.eventHandler == nil)
    }

    @Test func optionsTheRequestNeverSetComeFromTheEngineDefaults() {
        let engineEvents = EventCounter()
        let resolved = TransferOptions().resolved(over: Self.engineDefaults(events: engineEvents))
        #expect(resolved.connectTimeout == .seconds(3))
        #expect(resolved.stallTimeout == .seconds(2))
        #expect(resolved.deadline == .seconds(60))
        #expect(resolved.maximumBodySize == 1 << 20)
        #expect(resolved.maximumHeaderSize == 8 << 10)
        #expect(resolved.redirects == .none)
        #expect(!resolved.decodesContent)
        #expect(resolved.compressesRequestBody)
        resolved.eventHandler?(Self.someEvent)
        #expect(engineEvents.count == 1)
    }

    @Test func optionsTheRequestSetWinEvenWhenTheyEqualTheBuiltInDefaults() {
        let engineEvents = EventCounter()
        let requestEvents = EventCounter()
        var own = TransferOptions()
        own.connectTimeout = .seconds(10)
        own.stallTimeout = .seconds(30)
        own.maximumBodySize = 64 << 20
        own.maximumHeaderSize = 256 << 10
        own.redirects = .follow(limit: 10)
        own.decodesContent = true
        own.compressesRequestBody = false
        own.eventHandler = requestEvents.handler
        let resolved = own.resolved(over: Self.engineDefaults(events: engineEvents))
        #expect(resolved.connectTimeout == .seconds(10))
        #expect(resolved.stallTimeout == .seconds(30))
        #expect(resolved.maximumBodySize == 64 << 20)
        #expect(resolved.maximumHeaderSize == 256 << 10)
        #expect(resolved.redirects == .follow(limit: 10))
        #expect(resolved.decodesContent)
        #expect(!resolved.compressesRequestBody)
        resolved.eventHandler?(Self.someEvent)
        #expect(requestEvents.count == 1)
        #expect(engineEvents.count == 0)
    }

    @Test func aDeadlineSetToNilMeansNoLimitOverAnEngineDeadline() {
        var own = TransferOptions()
        own.deadline = nil
        #expect(own.resolved(over: Self.engineDefaults()).deadline == nil)
        own.deadline = .seconds(5)
        #expect(own.resolved(over: Self.engineDefaults()).deadline == .seconds(5))
    }

    @Test func anEventHandlerSetToNilSilencesTheEngineHandler() {
        let engineEvents = EventCounter()
        var own = TransferOptions()
        own.eventHandler = nil
        #expect(own.resolved(over: Self.engineDefaults(events: engineEvents)).eventHandler == nil)
    }

    @Test func optionsSetNowhereKeepTheBuiltInDefaults() {
        var defaults = TransferOptions()
        defaults.stallTimeout = .seconds(2)
        var own = TransferOptions()
        own.maximumBodySize = 5
        let resolved = own.resolved(over: defaults)
        #expect(resolved.maximumBodySize == 5)
        #expect(resolved.stallTimeout == .seconds(2))
        #expect(resolved.connectTimeout == .seconds(10))
        #expect(resolved.deadline == nil)
        #expect(resolved.maximumHeaderSize == 256 << 10)
        #expect(resolved.redirects == .follow(limit: 10))
    }

    @Test func theFirstResolutionStands() {
        var own = TransferOptions()
        own.maximumBodySize = 5
        let once = own.resolved(over: Self.engineDefaults())
        var other = TransferOptions()
        other.stallTimeout = .seconds(99)
        other.maximumBodySize = 99
        let twice = once.resolved(over: other)
        #expect(twice.maximumBodySize == 5)
        #expect(twice.stallTimeout == .seconds(2))
        #expect(twice.deadline == .seconds(60))
    }

    /// Copies share what is set on them until one sets an option: the other stays as it was,
    /// whether something was set on it before or nothing was.
    @Test func aCopyThatSetsAnOptionLeavesTheOriginalAsItWas() {
        var original = TransferOptions()
        original.maximumBodySize = 5
        var copy = original
        copy.maximumBodySize = 6
        copy.deadline = .seconds(1)
        #expect(original.maximumBodySize == 5)
        #expect(original.deadline == nil)
        #expect(copy.maximumBodySize == 6)
        #expect(copy.deadline == .seconds(1))

        let unset = TransferOptions()
        var changed = unset
        changed.stallTimeout = .seconds(1)
        #expect(unset.stallTimeout == .seconds(30))
        #expect(TransferOptions().stallTimeout == .seconds(30))
        #expect(changed.stallTimeout == .seconds(1))
    }

    /// Options with nothing set, on either side of a resolution, leave the other side's
    /// settings as they are, a setting of none included.
    @Test func nothingSetOnOneSideLeavesTheOtherSidesSettings() {
        var none = TransferOptions()
        none.deadline = nil
        none.eventHandler = nil
        let engineEvents = EventCounter()
        let engine = Self.engineDefaults(events: engineEvents)
        let throughUnset = TransferOptions().resolved(over: none).resolved(over: engine)
        #expect(throughUnset.deadline == nil)
        #expect(throughUnset.eventHandler == nil)
        #expect(throughUnset.maximumBodySize == 1 << 20)
        let overUnset = none.resolved(over: TransferOptions()).resolved(over: engine)
        #expect(overUnset.deadline == nil)
        #expect(overUnset.eventHandler == nil)
        #expect(overUnset.stallTimeout == .seconds(2))
    }

    @Test func aRequestStartsWithNothingSet() throws {
        let request = try TransportRequest(method: .get, url: "https://example.com/")
        let resolved = request.options.resolved(over: Self.engineDefaults())
        #expect(resolved.stallTimeout == .seconds(2))
        #expect(resolved.maximumBodySize == 1 << 20)
        #expect(resolved.deadline == .seconds(60))
    }
}

/// Counts the events a handler receives.
private final class EventCounter: Sendable {
    private let received = PThreadMutex(0)
    var handler: @Sendable (TransferEvent) -> Void { { [self] _ in received.withLock { $0 += 1 } } }
    var count: Int { received.withLock { $0 } }
}
