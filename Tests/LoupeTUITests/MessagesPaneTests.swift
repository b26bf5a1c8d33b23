import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
@testable import LoupeTUI
import Testing

/// The Messages tab on screen (issue 30, item 5): a selection over the rows, the selected message's payload shown
/// like a body, `/` over the rows, following a stream still open, and rows left unbuilt but for those drawn.
@Suite("Messages pane")
struct MessagesPaneTests {
    static let start = Fixture.epoch.addingTimeInterval(7)

    /// A WebSocket exchange with JSON, text, a control character, binary and a payload cut at the cap.
    static func exchange(messages count: Int? = nil, open: Bool = false) -> TraceExchange {
        var exchange = Fixture.exchange(7, url: "wss://stream.example.com/ticks", status: 101, duration: open ? nil : 3.5,
                                        responseHeaders: [], responseBody: nil)
        exchange.operation = "ticks"
        let payloads: [(MessageDirection, String, Data, Int, Bool)] = [
            (.sent, "text", Data(#"{"subscribe":["BTC","ETH"]}"#.utf8), 27, false),
            (.received, "text", Data(#"{"symbol":"BTC","price":101.25,"bids":[[101.2,3],[101.1,7]]}"#.utf8), 60, false),
            (.received, "text", Data("plain words\u{1B}[31m with an escape".utf8), 34, false),
            (.received, "binary", Data([0x00, 0x01, 0x02, 0xFF, 0x10, 0x41, 0x42, 0x43]), 8, false),
            (.received, "text", Data(#"{"symbol":"ETH","price":3"#.utf8), 70_000, true),
            (.sent, "ping", Data(), 0, false),
        ]
        let kept = count.map { n in (0..<n).map { payloads[$0 % payloads.count] } } ?? payloads
        let messages = kept.enumerated().map { index, message in
            TraceMessage(index: index, direction: message.0, at: start.addingTimeInterval(0.010 + Double(index) * 0.250),
                         type: message.1, size: message.3, payload: message.2, isTruncated: message.4)
        }
        exchange.stream = TraceStream(
            kind: .webSocket, messages: messages, sentCount: messages.filter { $0.direction == .sent }.count,
            receivedCount: messages.filter { $0.direction == .received }.count,
            byteCount: messages.reduce(0) { $0 + $1.size }, closeCode: open ? nil : 1000, closeReason: open ? nil : "bye",
            closedBy: open ? nil : "client")
        return exchange
    }

    /// The app on the exchange's Messages tab.
    private func openMessages(_ store: InMemoryTraceStore, width: Int = 80, height: Int = 24) -> (TUIApp, InMemoryTerminal) {
        let (app, screen) = Fixture.app(store, width: width, height: height)
        screen.press(.enter)
        screen.type(":tab messages")
        screen.press(.enter)
        app.turn(on: screen)
        return (app, screen)
    }

    private func paneOf(_ app: TUIApp) -> MessagesPane? {
        (app.state.top as? DetailScreen)?.messages
    }

    @Test func theTabListsTheMessagesAndShowsTheSelectedPayloadPretty() throws {
        let (app, screen) = openMessages(try Fixture.store([Self.exchange()]))
        #expect((app.state.top as? DetailScreen)?.tab == .messages)
        ScreenSnapshot.check(screen, "detail-messages")
        let row = try #require(screen.row(containing: "#0 "))
        #expect(screen.lastBuffer?[0, row].style == .selection)
        #expect(screen.lastBuffer?[0, row + 1].style != .selection)

        screen.press("j")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "detail-messages-json")
        #expect(screen.lastBuffer?[0, row + 1].style == .selection)
        #expect(screen.text.contains("\"price\": 101.25"), "JSON re-indented, the number as written")

        screen.press("j")
        app.turn(on: screen)
        #expect(screen.text.contains("plain words␛[31m with an escape") || screen.text.contains("plain words\\e"),
                "the escape is made visible, never sent to the terminal")
        #expect(!screen.text.contains("\u{1B}"))

        screen.press("j")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "detail-messages-binary")

        screen.press("j")
        app.turn(on: screen)
        #expect(screen.text.contains("truncated: 25 of 70,000 bytes stored"), "the payload cap as recorded")

        screen.press("G")
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 5)
        #expect(screen.text.contains("(empty)"))
        screen.press("g")
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 0)
    }

    @Test func theBodyViewKeyShowsThePayloadRawOrInHex() throws {
        let (app, screen) = openMessages(try Fixture.store([Self.exchange()]))
        screen.press("j", "b")
        app.turn(on: screen)
        #expect(screen.text.contains(#"{"symbol":"BTC","price":101.25,"#))
        #expect(app.state.status?.text == "body view: raw")
        screen.press("b")
        app.turn(on: screen)
        #expect(screen.text.contains("7b 22 73 79"), "the hex dump of the payload")
    }

    @Test func searchSelectsTheNextMessageHoldingTheText() throws {
        let (app, screen) = openMessages(try Fixture.store([Self.exchange()]))
        screen.type("/symbol")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 1)
        #expect(app.state.status?.text == "/symbol: 1/2 · Messages 2")
        screen.press("n")
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 4)
        screen.press("n")
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 1, "wraps around")
        screen.type("/nowhere")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 1)
    }

    @Test func aClickSelectsARowAndTheWheelMovesTheSelection() throws {
        let (app, screen) = openMessages(try Fixture.store([Self.exchange()]))
        let row = try #require(screen.row(containing: "#3 "))
        screen.press(.mouse(MouseEvent(.press, x: 5, y: row)))
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 3)
        screen.press(.mouse(MouseEvent(.wheelUp, x: 5, y: row)))
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 0)
    }

    @Test func anOpenStreamFollowsItsNewestMessageUntilFollowIsTurnedOff() throws {
        let store = try Fixture.store([Self.exchange(messages: 3, open: true)])
        let (app, screen) = openMessages(store)
        #expect(paneOf(app)?.selected == 2, "an open stream is watched from its newest message")
        #expect((app.state.top as? DetailScreen)?.position == "message 3 of 3 · following")

        try store.write([Self.exchange(messages: 5, open: true)])
        app.refresh()
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 4, "on the last message, new ones keep the selection on the last")
        #expect(screen.text.contains("Payload of #4"))

        screen.press("k")
        app.turn(on: screen)
        try store.write([Self.exchange(messages: 7, open: true)])
        app.refresh()
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 3, "a selection off the last stays on its message")

        screen.press("F")
        app.turn(on: screen)
        #expect(paneOf(app)?.follows == false)
        #expect(app.state.status?.text == "follow: off")
        screen.press("G")
        app.turn(on: screen)
        try store.write([Self.exchange(messages: 9, open: true)])
        app.refresh()
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 6, "not following: the selection stays on the message it was on")
        #expect(!screen.text.contains("· following"))

        screen.press("F")
        app.turn(on: screen)
        #expect(paneOf(app)?.follows == true)
        #expect(paneOf(app)?.selected == 8, "following again jumps to the newest")

        // The stream ends: read once more, then no more.
        try store.write([Self.exchange(messages: 10, open: false)])
        app.refresh()
        app.turn(on: screen)
        #expect(paneOf(app)?.selected == 9)
        #expect(paneOf(app)?.isOpen == false)
        #expect((app.state.top as? DetailScreen)?.position == "message 10 of 10")
    }

    @Test func followOutsideAStreamSaysWhereItApplies() throws {
        let (app, screen) = Fixture.app(try Fixture.store([Fixture.exchange(1)]))
        screen.press(.enter, "F")
        app.turn(on: screen)
        #expect(app.state.status?.text.contains("only a stream's Messages tab") == true)
    }

    @Test func aHundredThousandMessagesOpenWithOnlyTheDrawnRowsBuilt() throws {
        let count = 100_000
        let (app, screen) = openMessages(try Fixture.store([Self.exchange(messages: count)]), width: 120, height: 40)
        let pane = try #require(paneOf(app))
        #expect(pane.rows.count == count)
        #expect(pane.rows.allSatisfy { $0.isDeferred }, "no row was wrapped or built to open the tab")
        #expect(screen.text.contains("Messages 100,000") || screen.text.contains("Messages 100000"))
        #expect((app.state.top as? DetailScreen)?.position == "message 1 of 100,000")
        screen.press("G")
        app.turn(on: screen)
        #expect(screen.text.contains("#99999 "))
        #expect((app.state.top as? DetailScreen)?.position == "message 100,000 of 100,000")
    }
}
