import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeBoard

/// The circuit-breaker board (`3`): one row per breaker key in the store (Hystrix's dashboard, Resilience4j's
/// figures, Envoy's retry counters), aggregated as exchanges arrive. Enter opens the key's history.
package struct CircuitsScreen: Screen {
    package private(set) var board = BreakerBoard()
    private var selected = 0
    /// What the board has read of the store.
    private var feed = BoardFeed()

    package init() {}

    package var hasDeferredWork: Bool { feed.isCatchingUp }

    package var keyContext: KeyContext { .circuits }
    package var title: String { "circuits" }
    package var position: String {
        let keys = board.keyCount == 0 ? "" : "\(min(selected + 1, board.keyCount)) / \(board.keyCount) keys"
        return feed.isCatchingUp ? (keys.isEmpty ? "reading the store…" : "\(keys) · reading the store…") : keys
    }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        let count = board.keyCount
        switch command {
        case .moveUp: selected = max(0, selected - 1)
        case .moveDown: selected = max(0, min(count - 1, selected + 1))
        case .top: selected = 0
        case .bottom: selected = max(0, count - 1)
        case .pageUp: selected = max(0, selected - 10)
        case .pageDown: selected = max(0, min(count - 1, selected + 10))
        case .open:
            let rows = board.rows(now: context.now)
            guard rows.indices.contains(selected) else { return true }
            let key = rows[selected].key
            context.pushed = BreakerHistoryScreen(key: key, entries: board.history(of: key))
        default:
            return false
        }
        return true
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        if feed.restarts(for: context) {
            board = BreakerBoard()
            selected = 0
        }
        // Added in place: a copy taken to add to would copy the board's tables (copy on write) each refresh.
        feed.catchUp(context: &context) { self.board.add($0) }
    }

    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        let rows = board.rows(now: context.now).map { "\($0.key) \(CircuitsView.stateText($0.state))" }
        guard let hit = RowSearch.find(text, in: rows, from: selected, forward: forward, fromCurrent: fromCurrent) else {
            return false
        }
        selected = hit.index
        context.status = RowSearch.message(hit, text)
        return true
    }

    package mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext) {
        switch event.kind {
        case .wheelUp: _ = perform(.moveUp, argument: nil, context: &context)
        case .wheelDown: _ = perform(.moveDown, argument: nil, context: &context)
        case .press:
            let index = event.y - context.area.y - 1
            guard index >= 0, index < board.keyCount else { return }
            selected = index
            if double { _ = perform(.open, argument: nil, context: &context) }
        }
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        CircuitsView(rows: board.rows(now: context.now), selected: selected, now: context.now, search: context.search)
            .render(in: area, into: &buffer)
    }
}
