import Foundation
import Loupe
import LoupeQuery
import LoupeTrace

/// The timeline (`2`): the exchanges list's rows (same filter, same order, the same keyset ``ExchangeWindow``) on a
/// shared time axis, a browser's network waterfall for a whole session. Only the visible rows are read, with
/// their attempts and events; `+`/`-` zoom, `←`/`→` pan, `F` follows the newest.
package struct TimelineScreen: Screen {
    package private(set) var window = ExchangeWindow()
    package private(set) var axis = TimelineAxis()
    /// The visible rows' attempts and breaker refusals, by exchange id; rows that scroll away are dropped.
    private(set) var tracks: [UUID: TimelineTrack] = [:]

    package init() {}

    package var keyContext: KeyContext { .timeline }
    package var title: String { "timeline" }
    package var selection: TraceSummary? { window.selectedRow }
    package var position: String { window.positionText }
    package var rankRequest: ExchangeRankRequest? { window.rankRequest }
    package var listsExchanges: Bool { true }
    package var listTotal: Int? { window.hasLoaded ? window.total : nil }

    /// Rows that fit: the area less the axis heading and the legend.
    private static func pageHeight(_ area: Rect) -> Int { max(1, area.height - 2) }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        if window.navigate(command, page: Self.pageHeight(context.area), context: &context) {
            // Rows that came into view need their attempts; opening one changes no rows.
            if command != .open { loadTracks(context: &context) }
            return true
        }
        switch command {
        case .zoomIn, .zoomOut:
            axis.zoom(in: command == .zoomIn, keepingEnd: context.session.follow, around: window.selectedRow?.startedAt)
            context.status = StatusMessage("span \(Quantity.span(axis.span))")
            return true
        case .panLeft, .panRight:
            context.session.follow = false
            axis.pan(forward: command == .panRight)
            return true
        case .toggleFollow:
            context.session.follow.toggle()
            context.status = StatusMessage(context.session.follow
                ? "follow on: the newest exchanges stay in view" : "follow off")
            if context.session.follow { refresh(.storeChanged, context: &context) }
            return true
        default:
            return false
        }
    }

    private mutating func move(by delta: Int, context: inout ScreenContext) {
        window.move(by: delta, context: &context)
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        guard window.refresh(reason, height: Self.pageHeight(context.area), context: &context), reason != .settle else { return }
        loadTracks(context: &context)
    }

    /// Reads the attempts of rows that came into view (in one read, without headers or bodies), forgets those
    /// that left, and places the axis.
    private mutating func loadTracks(context: inout ScreenContext) {
        let visible = Set(window.rows.map(\.id))
        tracks = tracks.filter { visible.contains($0.key) }
        let missing = window.rows.filter { tracks[$0.id] == nil }.map(\.sequence)
        if !missing.isEmpty, let found = context.read("the exchanges' attempts", { try $0.activity(sequences: missing) }) {
            for exchange in found { tracks[exchange.id] = TimelineTrack(exchange) }
        }
        placeAxis(follow: context.session.follow, now: context.now)
    }

    private mutating func placeAxis(follow: Bool, now: Date) {
        guard let earliest = window.rows.map(\.startedAt).min() else { return }
        let latest = window.rows.map { row in
            row.duration.map { row.startedAt.addingTimeInterval($0) } ?? max(row.startedAt, now)
        }.max() ?? earliest
        if !axis.isManual {
            axis.fit(earliest: earliest, latest: latest)
        } else if follow {
            axis.follow(latest)
        }
    }

    package mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext) {
        switch event.kind {
        case .wheelUp: move(by: -3, context: &context)
        case .wheelDown: move(by: 3, context: &context)
        case .press:
            let index = event.y - context.area.y - 1
            guard window.rows.indices.contains(index) else { return }
            window.selectVisible(index)
            if double { _ = perform(.open, argument: nil, context: &context) }
            return
        }
        loadTracks(context: &context)
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        TimelineView(window: window, axis: axis, tracks: tracks, context: context).render(in: area, into: &buffer)
    }
}
