import Foundation
import Loupe
import LoupeProtobuf
import LoupeTrace

/// The detail's Messages tab on screen: the stream's summary, a list of its messages with one selected, and the
/// selected message's payload below it, shown like a body (``BodyFormatter``: JSON re-indented, text, hex).
///
/// The rows are the deferred lines of ``DetailTabs/messageLines`` and are never wrapped (a row is clipped at the
/// edge), so opening a stream of 100,000 messages builds only the rows drawn; nothing done per frame or per key
/// grows with the stream, except a search, which reads every row once.
package struct MessagesPane: Sendable {
    /// The stream's counts and close, above the rows.
    package private(set) var summary: StyledLine
    /// One deferred row per kept message.
    package private(set) var rows: [StyledLine]
    /// The kept messages, in the rows' order.
    package private(set) var messages: [TraceMessage]
    /// Which rows of the list are on screen, and the selected message (its place in ``messages``).
    private var viewport: ListViewport
    /// The selected message's place in ``messages``.
    package var selected: Int { viewport.selected }
    /// The first row shown.
    package var scroll: Int { viewport.offset }
    /// Whether a stream still open keeps the selection on its newest message while it sits on the last one
    /// (`tail -f`). On at first, so a live stream is watched from its end.
    package private(set) var follows = true
    /// Whether the stream is still open (the exchange has no end yet).
    package private(set) var isOpen: Bool
    /// The payload's lines, unwrapped, for the selected message and body view they were made for.
    private var payload: [StyledLine] = []
    private var payloadFor: (index: Int, view: BodyView)?
    /// Reads a gRPC call's messages by their types, when known (``DetailTabs/messageTypes``).
    private var decoding: MessageDecoding?

    /// The pane for `tabs`' exchange, or nil when it has no messages to list (the tab's plain lines say why).
    init?(_ tabs: DetailTabs) {
        guard let stream = tabs.exchange.stream, !stream.messages.isEmpty else { return nil }
        let lines = tabs.messageLines
        summary = lines[0]
        rows = Array(lines.dropFirst())
        messages = stream.messages
        decoding = tabs.messageDecoding
        isOpen = tabs.exchange.endedAt == nil
        // A stream still open is watched from its newest message; a finished one read from its first. The list's
        // height is known once laid out (``select(_:rowsHeight:)``): until then it is taken as all rows, so the
        // list stays at its top.
        viewport = ListViewport(count: messages.count, height: messages.count, selects: true)
        if isOpen { viewport.moveToEnd() }
    }

    /// Takes the exchange as read again (a stream still open grows): the selection stays where it was, or moves to
    /// the newest message when it was on the last one and the pane follows.
    mutating func update(_ tabs: DetailTabs) {
        guard let newer = MessagesPane(tabs) else { return }
        let wasOnLast = selected == messages.count - 1
        let keep = (selected: messages[selected].index, follows: follows, viewport: viewport)
        self = newer
        follows = keep.follows
        viewport = keep.viewport
        // Following, the newest; else the same message by its stream index (a capped stream drops the middle, so
        // places can shift).
        let index = follows && wasOnLast ? messages.count - 1
            : messages.firstIndex { $0.index >= keep.selected } ?? messages.count - 1
        viewport.update(count: messages.count, selecting: index)
    }

    // MARK: Keys

    /// Selects message `index` (kept within the stream), with the list `rowsHeight` rows high.
    mutating func select(_ index: Int, rowsHeight: Int) {
        viewport.update(count: messages.count, height: rowsHeight, selecting: index)
    }

    /// Runs a movement command on the list, `rowsHeight` rows high (a page is that many messages).
    /// - Returns: `false` for any other command.
    mutating func perform(_ command: Command, rowsHeight: Int) -> Bool {
        viewport.update(count: messages.count, height: rowsHeight)
        return viewport.perform(command)
    }

    /// Moves the selection for a mouse wheel, with the list `rowsHeight` rows high.
    mutating func wheel(_ kind: MouseEvent.Kind, rowsHeight: Int) {
        viewport.update(count: messages.count, height: rowsHeight)
        viewport.wheel(kind)
    }

    /// Turns following on or off; turning it on moves to the newest message.
    mutating func toggleFollow(rowsHeight: Int) {
        follows.toggle()
        if follows { select(messages.count - 1, rowsHeight: rowsHeight) }
    }

    /// Selects the row a search for `text` lands on: the selection when it holds `text` and `fromCurrent`, else
    /// the next (or previous) one, wrapping around.
    mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, rowsHeight: Int) -> RowSearch.Hit? {
        viewport.update(count: messages.count, height: rowsHeight)
        return viewport.search(text, in: rows.map(\.text), forward: forward, fromCurrent: fromCurrent)
    }

    // MARK: Layout

    /// How many rows the list takes in a pane `height` rows high (below the tab bar): half of what is left after
    /// the summary and the payload's heading, fewer when the stream has fewer messages, at least one.
    func rowsHeight(in height: Int) -> Int {
        max(1, min(messages.count, (height - 2) / 2))
    }

    /// `message 12 of 10,000` (`· following` while a stream still open follows), for the status line.
    package var position: String {
        "message \(Quantity.count(selected + 1)) of \(Quantity.count(messages.count))"
            + (isOpen && follows ? " · following" : "")
    }

    /// The payload's lines for `view`, made again only when the selection or view changed.
    mutating func preparePayload(_ view: BodyView) {
        guard payloadFor?.index != selected || payloadFor?.view != view else { return }
        let message = messages[selected]
        let body = TraceBody(data: message.payload, size: max(message.size, message.payload.count),
                             isTruncated: message.isTruncated)
        payload = Self.payloadLines(message, body: body, view: view, decoding: decoding)
        payloadFor = (selected, view)
    }

    /// The payload as a body, or, for a gRPC message whose type is known and the pretty view, its JSON mapping
    /// (raw and hex still show the bytes).
    static func payloadLines(_ message: TraceMessage, body: TraceBody, view: BodyView, decoding: MessageDecoding?)
        -> [StyledLine] {
        if view == .pretty, let json = decoding?.json(message) {
            let text = Data(json.text().utf8)
            return BodyFormatter.lines(TraceBody(data: text, size: text.count, isTruncated: false),
                                       headers: [TraceHeader(name: "content-type", value: "application/json")], view: view)
        }
        return BodyFormatter.lines(body, headers: [], view: view)
    }

    // MARK: Drawing

    /// Draws the summary, the rows (the selected one highlighted) and the payload into `area`.
    func render(in area: Rect, into buffer: inout Buffer, search: String?, view: BodyView) {
        guard area.height > 0 else { return }
        var y = area.y
        buffer.write(styled: summary, x: area.x, y: y, maxX: area.maxX)
        y += 1
        let height = rowsHeight(in: area.height)
        for (offset, row) in rows[min(scroll, rows.count)...].prefix(height).enumerated() where y < area.maxY {
            let shown = buffer.write(styled: row, x: area.x, y: y, maxX: area.maxX)
            if scroll + offset == selected {
                buffer.setStyle(.selection, in: Rect(x: area.x, y: y, width: area.width, height: 1))
            }
            if let search { RowSearch.highlight(search, in: row.text, x: area.x, y: y, maxX: min(shown, area.maxX), into: &buffer) }
            y += 1
        }
        guard y < area.maxY else { return }
        let message = messages[selected]
        let body = TraceBody(data: message.payload, size: max(message.size, message.payload.count),
                             isTruncated: message.isTruncated)
        let id = message.eventID.map { "  id " + TerminalText.line($0) } ?? ""
        let heading = StyledLine([
            .init("Payload of #\(message.index)", .heading),
            .init("  " + TerminalText.line(message.type) + id + "  " + BodyFormatter.sizeNote(body), .dim),
        ])
        buffer.write(styled: heading, x: area.x, y: y, maxX: area.maxX)
        y += 1
        // Only what fits is wrapped: a payload may be 64 KiB of one line.
        let lines = payloadFor?.index == selected && payloadFor?.view == view ? payload
            : Self.payloadLines(message, body: body, view: view, decoding: decoding)
        var remaining = lines[...]
        while y < area.maxY, let line = remaining.popFirst() {
            for part in line.wrapped(to: area.width) where y < area.maxY {
                buffer.write(styled: part, x: area.x, y: y, maxX: area.maxX)
                if let search { RowSearch.highlight(search, in: part.text, x: area.x, y: y, maxX: area.maxX, into: &buffer) }
                y += 1
            }
        }
    }

    /// The row of the list drawn at screen row `y` of a pane drawn in `area`, if any.
    func row(atY y: Int, in area: Rect) -> Int? {
        let offset = y - area.y - 1
        guard offset >= 0, offset < rowsHeight(in: area.height), scroll + offset < rows.count else { return nil }
        return scroll + offset
    }
}

extension MessagesPane: Equatable {
    package static func == (lhs: MessagesPane, rhs: MessagesPane) -> Bool {
        lhs.selected == rhs.selected && lhs.scroll == rhs.scroll && lhs.follows == rhs.follows
            && lhs.isOpen == rhs.isOpen && lhs.messages.count == rhs.messages.count && lhs.summary == rhs.summary
    }
}
