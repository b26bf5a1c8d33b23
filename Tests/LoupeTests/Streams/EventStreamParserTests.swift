import Foundation
import Loupe
import Testing

@Suite struct EventStreamParserTests {
    /// Parses `text` fed in chunks of `size` bytes (every chunking must give the same events).
    static func parse(_ text: String, chunk size: Int = .max) -> (events: [ServerSentEvent], parser: EventStreamParser) {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            events += parser.feed(bytes[start..<end])
            start = end
        }
        return (events, parser)
    }

    @Test func multiLineDataIsJoinedWithLineFeeds() {
        let events = Self.parse("data: one\ndata: two\ndata:three\n\n").events
        #expect(events == [ServerSentEvent(type: "message", data: "one\ntwo\nthree")])
    }

    @Test(arguments: [1, 2, 3, 7, Int.max])
    func everyLineEndingAndChunkingGivesTheSameEvents(chunk: Int) {
        let text = "\u{FEFF}event: add\r\ndata: a\r\rid: 7\ndata: b\n\n: a comment\r\nretry: 2500\ndata\r\n\r\n"
        let (events, parser) = Self.parse(text, chunk: chunk)
        #expect(events == [
            ServerSentEvent(type: "add", data: "a"),
            ServerSentEvent(type: "message", data: "b", id: "7"),
            ServerSentEvent(type: "message", data: "", id: "7", retry: 2500),
        ])
        #expect(parser.lastEventID == "7" && parser.retry == 2500)
    }

    @Test func theByteOrderMarkIsSkippedOnlyAtTheStart() {
        #expect(Self.parse("\u{FEFF}data: x\n\n").events.map(\.data) == ["x"])
        // A second BOM is part of the field name, so the line is an unknown field.
        #expect(Self.parse("\u{FEFF}\u{FEFF}data: x\n\n").events.isEmpty)
    }

    @Test func aBlockNotEndedByABlankLineIsDiscardedAndItsIDDoesNotCount() {
        let (events, parser) = Self.parse("id: 1\ndata: kept\n\nid: 2\ndata: cut")
        #expect(events.map(\.data) == ["kept"])
        #expect(parser.lastEventID == "1", "an id in a block cut short must not be sent as Last-Event-ID")
    }

    @Test func invalidRetryAndIDsWithNULAreIgnoredAndOneSpaceIsDropped() {
        let (events, parser) = Self.parse("retry: 12a\nid: a\u{0}b\ndata:  two spaces\n\n")
        #expect(events == [ServerSentEvent(data: " two spaces")])
        #expect(parser.retry == nil && parser.lastEventID == nil)
    }

    @Test func anEmptyIDResetsTheLastEventIDAndBlocksWithoutDataDispatchNothing() {
        let (events, parser) = Self.parse("id: 5\n\nevent: ping\n\nid\ndata: x\n\n")
        #expect(events == [ServerSentEvent(data: "x")])
        #expect(parser.lastEventID == nil)
    }

    @Test func resetDropsThePendingBlockButKeepsTheIDAndRetry() {
        var parser = EventStreamParser()
        _ = parser.feed(Array("id: 3\nretry: 10\ndata: a\n\ndata: half".utf8))
        parser.reset()
        #expect(parser.feed(Array("data: b\n\n".utf8)) == [ServerSentEvent(data: "b", id: "3")])
        #expect(parser.retry == 10)
    }

    @Test("a stream of data lines that never ends its event holds no more than the cap (issue 44, item 9)")
    func endlessDataLinesStayWithinTheCap() {
        var parser = EventStreamParser(maxLineBytes: 1024)
        var held = 0
        _ = parser.feed(Array(("data: " + String(repeating: "x", count: 1000) + "\n").utf8))
        for _ in 0..<200 {
            #expect(parser.feed(Array(String(repeating: "data:\n", count: 100).utf8)).isEmpty)
            held = max(held, parser.bufferedBytes)
        }
        #expect(held <= 1024, "the parser held \(held) bytes for a cap of 1024")
        #expect(parser.feed(Array("\ndata: next\n\n".utf8)) == [ServerSentEvent(data: "next")])
        #expect(parser.droppedEvents == 1)
    }

    @Test("a line past the cap drops its event whole and counts it, never delivers it cut (issue 44, item 10)",
          arguments: [1, 7, 4096])
    func aLinePastTheCapIsDroppedNotCut(chunk: Int) {
        var parser = EventStreamParser(maxLineBytes: 1024)
        let text = "id: 1\ndata: " + String(repeating: "y", count: 5000) + "\n\nid: " + String(repeating: "9", count: 2000)
            + "\nevent: " + String(repeating: "e", count: 3000) + "\ndata: whole\n\n"
        let bytes = Array(text.utf8)
        var events: [ServerSentEvent] = []
        var start = 0
        while start < bytes.count {
            events += parser.feed(bytes[start..<min(bytes.count, start + chunk)])
            start += chunk
        }
        #expect(events == [ServerSentEvent(data: "whole", id: "1")], "a cut id or event type is ignored, not kept cut")
        #expect(parser.droppedEvents == 1)
    }

    @Test("an id longer than 1 KiB is ignored: it would be sent back as a header on every reconnection")
    func aHugeIDIsIgnored() {
        let huge = String(repeating: "7", count: EventStreamParser.maxEventIDBytes + 1)
        let (events, parser) = Self.parse("id: 1\ndata: a\n\nid: \(huge)\ndata: b\n\n")
        #expect(events.map(\.id) == ["1", "1"])
        #expect(parser.lastEventID == "1")
        let (_, fits) = Self.parse("id: \(String(repeating: "8", count: EventStreamParser.maxEventIDBytes))\ndata: c\n\n")
        #expect(fits.lastEventID?.utf8.count == EventStreamParser.maxEventIDBytes)
    }
}
