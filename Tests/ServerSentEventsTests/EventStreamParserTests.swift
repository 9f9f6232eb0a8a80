import Foundation
import ServerSentEvents
import Testing
import Transport

/// The parsing rules of the WHATWG HTML standard's "server-sent events", one case each, fed
/// whole, split in two at every byte, and one byte at a time.
@Suite struct EventStreamParserTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let events: [ServerSentEvent]
        var lastEventID = ""
        var reconnectionTime: Duration?
        var testDescription: String { name }

        init(
            _ name: String, _ text: String, _ events: [ServerSentEvent], lastEventID: String = "",
            reconnectionTime: Duration? = nil
        ) {
            self.init(name, Array(text.utf8), events, lastEventID: lastEventID, reconnectionTime: reconnectionTime)
        }

        init(
            _ name: String, _ bytes: [UInt8], _ events: [ServerSentEvent], lastEventID: String = "",
            reconnectionTime: Duration? = nil
        ) {
            self.name = name
            self.bytes = bytes
            self.events = events
            self.lastEventID = lastEventID
            self.reconnectionTime = reconnectionTime
        }
    }

    static let cases: [Case] = [
        Case("LF line ends", "data: one\n\ndata: two\n\n", [.init(data: "one"), .init(data: "two")]),
        Case("CR line ends", "data: one\r\rdata: two\r\r", [.init(data: "one"), .init(data: "two")]),
        Case("CRLF line ends", "data: one\r\n\r\ndata: two\r\n\r\n", [.init(data: "one"), .init(data: "two")]),
        Case("mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", [.init(data: "a\nb\nc")]),
        Case(
            "a leading byte order mark is skipped", [0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8), [.init(data: "x")]),
        Case(
            "only the first byte order mark is skipped",
            [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8),
            []),
        Case("a byte order mark after the start is data", "data: \u{FEFF}x\n\n", [.init(data: "\u{FEFF}x")]),
        Case("comments are ignored", ": keep-alive\n:\ndata: x\n: between\n\n", [.init(data: "x")]),
        Case(
            "multi-line data joined with LF", "data: one\ndata: two\ndata:three\n\n", [.init(data: "one\ntwo\nthree")]),
        Case("one leading space removed, no more", "data:  two spaces\n\n", [.init(data: " two spaces")]),
        Case("an empty data field gives an empty line", "data\ndata\n\n", [.init(data: "\n")]),
        Case("a data field without a colon has an empty value", "data\n\n", [.init(data: "")]),
        Case("the value runs past later colons", "data: a:b: c\n\n", [.init(data: "a:b: c")]),
        Case("event names the type", "event: price\ndata: 1\n\n", [.init(type: "price", data: "1")]),
        Case("an empty event is a message", "event\ndata: 1\n\n", [.init(data: "1")]),
        Case(
            "the type does not carry over", "event: a\ndata: 1\n\ndata: 2\n\n",
            [.init(type: "a", data: "1"), .init(data: "2")]),
        Case("an event without data is not dispatched", "event: ping\n\nid: 3\n\n", [], lastEventID: "3"),
        Case(
            "the last event ID persists across events", "id: 7\ndata: a\n\ndata: b\n\n",
            [.init(data: "a", id: "7"), .init(data: "b", id: "7")], lastEventID: "7"),
        Case(
            "an empty id resets the last event ID", "id: 7\ndata: a\n\nid\ndata: b\n\n",
            [.init(data: "a", id: "7"), .init(data: "b", id: "")]),
        Case(
            "an id containing NUL is ignored", "id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\n",
            [.init(data: "a", id: "1"), .init(data: "b", id: "1")], lastEventID: "1"),
        Case(
            "retry sets the reconnection time", "retry: 2500\ndata: x\n\n",
            [.init(data: "x", retry: .milliseconds(2500))], reconnectionTime: .milliseconds(2500)),
        Case("retry applies without an event", "retry: 10\n\n", [], reconnectionTime: .milliseconds(10)),
        Case(
            "retry with non-digits is ignored",
            "retry: 1.5\nretry: -3\nretry: +3\nretry: 2s\nretry:\nretry:  4\ndata: x\n\n",
            [.init(data: "x")]),
        Case("retry zero is a time", "retry: 0\n\n", [], reconnectionTime: .zero),
        Case("retry too large to count is ignored", "retry: 99999999999999999999999\n\n", []),
        Case("unknown fields are ignored", "foo: bar\nData: x\nDATA: y\n\n", []),
        Case("a field name is the whole line without a colon", "data:x\nid\n\n", [.init(data: "x")]),
        Case("an unfinished event is discarded at the end", "data: done\n\ndata: half", [.init(data: "done")]),
        Case(
            "an event without its blank line is discarded at the end", "data: done\n\ndata: half\n",
            [.init(data: "done")]),
        Case(
            "invalid UTF-8 becomes U+FFFD", [UInt8]("data: ".utf8) + [0xFF, 0x41] + [0x0A, 0x0A],
            [.init(data: "\u{FFFD}A")]),
        Case("UTF-8 is kept", "data: ¥ 中文 🙂\n\n", [.init(data: "¥ 中文 🙂")]),
    ]

    @Test(arguments: cases)
    func parsesWhole(_ test: Case) throws {
        try check(test, chunks: [test.bytes[...]])
    }

    @Test(arguments: cases)
    func parsesSplitAtEveryByte(_ test: Case) throws {
        for split in 0...test.bytes.count {
            try check(test, chunks: [test.bytes[..<split], test.bytes[split...]], split: split)
        }
    }

    @Test(arguments: cases)
    func parsesOneByteAtATime(_ test: Case) throws {
        try check(test, chunks: test.bytes.indices.map { test.bytes[$0...$0] })
    }

    private func check(_ test: Case, chunks: [ArraySlice<UInt8>], split: Int? = nil) throws {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        for chunk in chunks { events += try parser.parse(chunk) }
        parser.finish()
        let at = split.map { " split at \($0)" } ?? ""
        #expect(events == test.events, "\(test.name)\(at)")
        #expect(parser.lastEventID == test.lastEventID, "\(test.name)\(at)")
        #expect(parser.reconnectionTime == test.reconnectionTime, "\(test.name)\(at)")
    }

    @Test func theLastEventIDAndRetryPersistIntoTheNextStream() throws {
        var parser = EventStreamParser(lastEventID: "start")
        #expect(parser.lastEventID == "start")
        _ = try parser.parse(Array("retry: 50\nid: 4\ndata: a\n\nid: 5\ndata: cut".utf8))
        parser.finish()
        // The cut block's id was never dispatched.
        #expect(parser.lastEventID == "4")
        let events = try parser.parse(Array("\u{FEFF}data: b\n\n".utf8))
        #expect(events == [ServerSentEvent(data: "b", id: "4")])
        #expect(parser.reconnectionTime == .milliseconds(50))
    }

    @Test func anEventPastTheLimitThrowsAndLeavesTheParserUsable() throws {
        var parser = EventStreamParser(maximumEventSize: 16)
        #expect(throws: TransportError.self) {
            _ = try parser.parse(Array("data: 0123456789\ndata: 0123456789\n\n".utf8))
        }
        do {
            _ = try parser.parse(Array(repeating: UInt8(ascii: "x"), count: 17))
            Issue.record("a line past the limit was accepted")
        } catch let error as TransportError {
            #expect(error.category == .responseTooLarge)
        }
        #expect(try parser.parse(Array("\ndata: ok\n\n".utf8)) == [ServerSentEvent(data: "ok")])
    }
}
