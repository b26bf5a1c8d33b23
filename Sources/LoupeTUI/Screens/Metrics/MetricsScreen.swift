import Foundation
import LoupeQuery
import LoupeTrace
import LoupeBoard
import LoupeContract

/// Live metrics (`4`): per operation and per host, rate, error %, retry %, budget denials and p50/p95/p99/max
/// over a window (`w` cycles 1m, 5m, 15m, 1h, all), sortable by any column (`o`, `v`), with sparklines of rate
/// and p95 across the window and the selected row's latency histogram. Aggregated as exchanges arrive.
package struct MetricsScreen: Screen {
    package private(set) var metrics = TrafficMetrics()
    package private(set) var window: MetricsWindow = .fiveMinutes
    package private(set) var sort: MetricsColumn = .name
    package private(set) var descending = false
    private var selected = 0
    /// What the table has read of the store.
    private var feed = BoardFeed()
    /// Whether the window is settled: chosen with `w`, or picked once the store was first read (see
    /// ``pickWindowWithData(now:keymap:)``).
    private var windowSettled = false
    /// The rows as last tabulated, after each refresh (at least once a second) and command: a frame only draws
    /// them, since tabulating merges up to 90 slot histograms per group.
    private var table: [MetricsRow] = []
    /// When ``table`` was last tabulated (wall clock): while reading a big store, at most four times a second.
    private var tabulatedAt: Date?

    package init() {}

    package var hasDeferredWork: Bool { feed.isCatchingUp }

    package var keyContext: KeyContext { .metrics }
    package var title: String { "metrics" }
    package var position: String {
        "window \(window.rawValue) · sort \(sort.title)\(descending ? "↓" : "↑")" + (feed.isCatchingUp ? " · reading the store…" : "")
    }

    /// The rows in display order at `now`.
    package func rows(now: Date) -> [MetricsRow] {
        ordered(metrics.rows(window: window, now: now))
    }

    /// ``rows(now:)`` for the table, keeping the percentiles of groups that got nothing new.
    private mutating func tabulate(now: Date) -> [MetricsRow] {
        ordered(metrics.tabulate(window: window, now: now))
    }

    private func ordered(_ rows: [MetricsRow]) -> [MetricsRow] {
        let sorted = rows.sorted { sort.precedes($0, $1) }
        return descending ? sorted.reversed() : sorted
    }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        let count = table.count
        switch command {
        case .moveUp: selected = max(0, selected - 1)
        case .moveDown: selected = max(0, min(count - 1, selected + 1))
        case .top, .pageUp: selected = 0
        case .bottom, .pageDown: selected = max(0, count - 1)
        case .cycleWindow:
            window = window.next
            windowSettled = true
            context.status = StatusMessage("window \(window.rawValue)")
            table = tabulate(now: context.now)
        case .sortNext:
            sort = sort.next
            // Every column but the name reads worst first: the busiest, the most errors, the slowest.
            descending = sort != .name
            context.status = StatusMessage("sorted by \(sort.title)")
            table = tabulate(now: context.now)
        case .reverse:
            descending.toggle()
            table = tabulate(now: context.now)
        default:
            return false
        }
        return true
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        if feed.restarts(for: context) {
            metrics = TrafficMetrics()
            selected = 0
        }
        // Windows end at this time or later: older exchanges need no time slot.
        let now = context.now
        // Added in place: a copy taken to add to would copy every slot's histogram (copy on write) each refresh.
        // With a contract (`--openapi`), per operation as the contract names them: traffic recorded without the
        // OpenAPI adapter is grouped by `operationId` too.
        let contract = context.contract?.contract
        feed.catchUp(context: &context) { exchange in
            guard let contract, let name = contract.operationName(method: exchange.method, url: exchange.url) else {
                return self.metrics.add(exchange, now: now)
            }
            var named = exchange
            named.operation = name
            self.metrics.add(named, now: now)
        }
        // Catching up, a chunk is read every turn: tabulating each time would double the turn (and a key's wait).
        if !feed.isCatchingUp || tabulatedAt.map({ abs(now.timeIntervalSince($0)) >= 0.25 }) ?? true {
            table = tabulate(now: now)
            tabulatedAt = now
        }
        if !feed.isCatchingUp, !windowSettled {
            windowSettled = true
            if let message = pickWindowWithData(now: now, keymap: context.keymap) { context.status = message }
        }
    }

    /// An older store has nothing in the default five minutes: the first time the screen has read it all, it
    /// opens on the shortest window that holds exchanges and says so (`w` still cycles every window).
    private mutating func pickWindowWithData(now: Date, keymap: Keymap) -> StatusMessage? {
        guard !Self.hasExchanges(table) else { return nil }
        let empty = window
        guard let found = MetricsWindow.allCases.first(where: {
            ($0.seconds ?? .max) > (empty.seconds ?? .max) && Self.hasExchanges(metrics.rows(window: $0, now: now))
        }) else { return nil }
        window = found
        table = tabulate(now: now)
        return StatusMessage("nothing in the last \(empty.rawValue): window \(found.rawValue) (\(keymap.hint(.cycleWindow, in: .metrics)) cycles)")
    }

    /// Whether `rows` count any exchange (the `all` row stays, with zeros, once anything was read).
    static func hasExchanges(_ rows: [MetricsRow]) -> Bool {
        rows.contains { $0.counts.requests > 0 }
    }


    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        guard let hit = RowSearch.find(text, in: table.map { MetricsView.name($0.group) }, from: selected, forward: forward,
                                       fromCurrent: fromCurrent) else { return false }
        selected = hit.index
        context.status = RowSearch.message(hit, text)
        return true
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        var view = MetricsView(rows: table, selected: selected, window: window, sort: sort, descending: descending)
        view.search = context.search
        view.windowKey = context.keymap.hint(.cycleWindow, in: .metrics)
        view.render(in: area, into: &buffer)
    }
}
