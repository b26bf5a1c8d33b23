import Foundation
import LoupeTrace

/// Everything the inspector shows, as one value: the model of an Elm-style loop.
///
/// Change it only through ``update(_:)``; draw it with ``InspectorRenderer``. Both are pure, so tests build a
/// state, send actions and compare buffers without a terminal.
package struct InspectorState: Hashable, Sendable {
    /// How the store is named in the title bar (usually its path).
    package var storeName: String
    /// The filter the rows were chosen by, for the title bar.
    package var filterDescription: String?
    /// The screen size everything is laid out for.
    package var size: Size
    /// Whether replay is available (a replayer was given).
    package var canReplay: Bool
    /// The calendar (time zone) the clock column uses.
    package var calendar: Calendar
    /// The key table.
    package var keymap: Keymap
    /// The most rows kept; older rows drop off the top.
    package var rowLimit: Int

    /// The rows, oldest first.
    package var rows: [TraceSummary] = []
    /// The selected row, `nil` only when there are no rows.
    package var selectedIndex: Int?
    /// The first row shown.
    package var listTop = 0
    /// Whether the newest row stays selected as rows arrive.
    package var follow = true
    /// The list or one exchange.
    package var screen: InspectorScreenState = .list
    /// Whether the help overlay is up.
    package var showsHelp = false
    /// The message above the footer.
    package var status: StatusMessage?
    /// The last store read failure, until a read succeeds.
    package var storeProblem: String?
    /// How many exchanges the store holds.
    package var storeCount: Int?
    /// The newest store sequence read.
    package var lastSequence: Int64 = 0
    /// Whether the store has been read at least once.
    package var hasLoaded = false
    /// The replay under way, or the confirmation it waits for.
    package var replay: ReplayPhase = .idle

    /// A fresh state: no rows yet, following, list view.
    package init(storeName: String, size: Size, canReplay: Bool, timeZone: TimeZone = .current,
                keymap: Keymap = .standard, rowLimit: Int = 10_000) {
        self.storeName = storeName
        self.size = size
        self.canReplay = canReplay
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
        self.keymap = keymap
        self.rowLimit = max(1, rowLimit)
    }

    /// The layout for ``size``.
    package var layout: InspectorLayout { InspectorLayout(size: size) }

    /// The selected row.
    package var selectedSummary: TraceSummary? {
        selectedIndex.flatMap { rows.indices.contains($0) ? rows[$0] : nil }
    }

    /// The detail view's model, when it is shown.
    package var detail: DetailState? {
        if case .detail(let detail) = screen { return detail }
        return nil
    }

    /// Which bindings apply now.
    package var keyContext: KeyContext {
        if showsHelp { return .help }
        return detail == nil ? .list : .detail
    }
}
