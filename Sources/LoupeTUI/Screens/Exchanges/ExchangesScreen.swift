import Foundation
import Loupe
import LoupeQuery
import LoupeRules
import LoupeTrace

/// The exchanges list (`1`): every exchange in the store, filtered and sorted in SQL, one screen of rows in memory.
package struct ExchangesScreen: Screen {
    package private(set) var window = ExchangeWindow()

    package init() {}

    /// An exchanges screen over an already-filled window (for drawing tests).
    package init(window: ExchangeWindow) {
        self.window = window
    }

    package var keyContext: KeyContext { .exchanges }
    package var title: String { "exchanges" }

    package var position: String { window.positionText }
    package var rankRequest: ExchangeRankRequest? { window.rankRequest }
    package var listsExchanges: Bool { true }
    package var listTotal: Int? { window.hasLoaded ? window.total : nil }

    package var selection: TraceSummary? { window.selectedRow }

    /// The rows the list area holds (the area less its heading).
    /// Requests a linked app's breakpoints hold now (at most ``maxHeldRows``, oldest first), shown live under the
    /// list with how long they have waited: they are not in the store until they end. `5` acts on them.
    package private(set) var held: [HeldRequest] = []
    package private(set) var heldCount = 0
    static let maxHeldRows = 3

    private var heldLines: Int { held.isEmpty ? 0 : held.count + (heldCount > held.count ? 1 : 0) }
    /// Streams open now (not in the store until they end), shown live above the held requests.
    package private(set) var streams: [OpenStream] = []
    package private(set) var streamCount = 0
    private var streamLines: Int { streams.isEmpty ? 0 : streams.count + (streamCount > streams.count ? 1 : 0) }
    static let maxStreamRows = 3

    private func pageHeight(_ area: Rect) -> Int { max(1, area.height - 1 - heldLines - streamLines) }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        if window.navigate(command, page: pageHeight(context.area), context: &context) { return true }
        switch command {
        case .toggleFollow:
            context.session.follow.toggle()
            context.status = StatusMessage(context.session.follow
                ? "follow on: the newest exchange stays selected" : "follow off")
            if context.session.follow { refresh(.storeChanged, context: &context) }
        case .toggleSource:
            context.session.showsSource.toggle()
            context.status = StatusMessage(context.session.showsSource ? "source column on" : "source column off")
        case .mark:
            guard let row = window.selectedRow else { return true }
            if context.session.marks.remove(row.id) == nil { context.session.marks.insert(row.id) }
            move(by: 1, context: &context)
        default:
            return false
        }
        return true
    }

    private mutating func move(by delta: Int, context: inout ScreenContext) {
        window.move(by: delta, context: &context)
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        let allHeld = (context.rules?.apps().flatMap(\.held) ?? []).sorted { $0.since < $1.since }
        heldCount = allHeld.count
        held = Array(allHeld.prefix(Self.maxHeldRows))
        streamCount = context.openStreams.count
        streams = Array(context.openStreams.prefix(Self.maxStreamRows))
        if !window.refresh(reason, height: pageHeight(context.area), context: &context),
           reason == .marksChanged, context.session.showsMarkedOnly {
            refresh(.queryChanged, context: &context)
        }
    }

    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        guard let pattern = ExchangeSearch.filter(for: text) else { return false }
        var searched = context.session.query
        searched.filter = searched.filter.map { .and($0, pattern) } ?? pattern
        let query = context.session.query
        let found: TraceSummary?? = context.read("search hits") { store in
            guard let current = window.selectedRow else {
                return try store.exchangePage(searched, from: .first, limit: 1).first
            }
            let anchor: ExchangeAnchor = fromCurrent ? .at(current) : forward ? .after(current) : .before(current)
            let hit = forward ? try store.exchangePage(searched, from: anchor, limit: 1).first
                : try store.exchangePage(searched, from: anchor, limit: 1).last
            // Past the end, wrap around as less and vim do.
            return try hit ?? store.exchangePage(searched, from: forward ? .first : .last, limit: 1).first
        }
        guard let hit = found ?? nil else { return false }
        context.session.follow = false
        _ = context.read("exchanges") { try window.select(hit, query, store: $0) }
        return true
    }

    package mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext) {
        switch event.kind {
        case .wheelUp: move(by: -3, context: &context)
        case .wheelDown: move(by: 3, context: &context)
        case .press:
            let index = event.y - context.area.y - 1
            guard window.rows.indices.contains(index) else { return }
            window.selectVisible(index)
            if window.selectedRank.map({ $0 + 1 < window.total }) == true { context.session.follow = false }
            if double { _ = perform(.open, argument: nil, context: &context) }
        }
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        let open = min(streamLines, max(0, area.height - 2))
        let lines = min(heldLines, max(0, area.height - 2 - open))
        ExchangesView(window: window, context: context).render(
            in: Rect(x: area.x, y: area.y, width: area.width, height: area.height - lines - open), into: &buffer)
        let top = area.maxY - lines - open
        for (offset, stream) in streams.prefix(open).enumerated() {
            _ = buffer.write(Self.text(of: stream, now: context.now), x: area.x, y: top + offset, maxWidth: area.width,
                             style: .label)
        }
        if streamCount > streams.count, open > streams.count {
            _ = buffer.write("  … \(streamCount - streams.count) more streams open", x: area.x, y: top + open - 1,
                             maxWidth: area.width, style: .dim)
        }
        guard lines > 0 else { return }
        for (offset, request) in held.prefix(lines).enumerated() {
            let text = RulesScreen.text(of: .held(app: "", request), now: context.now)
            _ = buffer.write(text, x: area.x, y: area.maxY - lines + offset, maxWidth: area.width, style: .statusClientError)
        }
        if heldCount > held.count, lines > held.count {
            _ = buffer.write("  … \(heldCount - held.count) more held: \(context.keymap.hint(.rules, in: .exchanges)) shows them all", x: area.x, y: area.maxY - 1,
                             maxWidth: area.width, style: .dim)
        }
    }
}

extension ExchangesScreen {
    /// One live row: `⇅ open 12.3 s  ↑ 2 ↓ 14  WebSocket  ticker  GET http://…/ticker`: what moves first, so a
    /// narrow terminal cuts the URL, not the counts.
    package static func text(of stream: OpenStream, now: Date) -> String {
        let kind = stream.kind == .webSocket ? "WebSocket" : "events"
        let age = Quantity.duration(max(0, now.timeIntervalSince(stream.startedAt)))
        return "  ⇅ open \(age)  ↑ \(Quantity.count(stream.sent)) ↓ \(Quantity.count(stream.received))  \(kind)  "
            + "\(TerminalText.line(stream.operation))  \(TerminalText.line(stream.method)) \(TerminalText.line(stream.url))"
    }
}
