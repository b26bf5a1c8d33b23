import Foundation
import LoupeTrace

/// One screen on the TUI's stack (exchanges, an exchange's detail, help; the timeline, circuits and metrics
/// screens come the same way): it owns its update, its drawing into a ``Rect``, its key context, its position
/// text and its search.
///
/// Adding a screen takes a folder with a type conforming to this, a ``KeyContext`` case, and its rows in
/// ``Keymap/standard``; the app, the footer, the help and the `:` prompt pick it up from there.
package protocol Screen: Sendable {
    /// The bindings that apply while this screen is on top.
    var keyContext: KeyContext { get }
    /// The screen's name in the title bar's breadcrumbs (`exchanges`, `detail`).
    var title: String { get }
    /// The exchange the screen has selected or shows, for mark, export, copy and replay.
    var selection: TraceSummary? { get }
    /// Where the user is, for the right end of the status line (`12 / 1,000,000`).
    var position: String { get }
    /// Whether the screen is a list of the session's exchanges (exchanges, timeline): the title bar counts the
    /// nearest such list on the stack, and a poll keeps that list read while screens cover it.
    var listsExchanges: Bool { get }
    /// How many exchanges the list holds (filter applied), once counted; the title bar shows it.
    var listTotal: Int? { get }
    /// The count an exchanges window waits for in the background, if any (``ExchangeRankRequest``).
    var rankRequest: ExchangeRankRequest? { get }
    /// Whether the last change left work for after the frame (``RefreshReason/settle``): a board reading the rest
    /// of a big store, a chunk per frame.
    var hasDeferredWork: Bool { get }

    /// Runs `command` (with the `:` prompt's `argument`, if any); `false` when the screen has no use for it, so
    /// the TUI's own handling (help, filter, quit…) can take it.
    mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool
    /// Brings the screen up to date: after a poll found the store changed, or the session's filter, order or
    /// marks changed, or the screen's area changed.
    mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext)
    /// Moves to the next (or previous) place `text` occurs, starting at the current one when `fromCurrent`.
    /// - Returns: Whether it found one.
    mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool
    /// A click or wheel turn inside the screen's area.
    mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext)
    /// Draws the screen into `area` of `buffer`.
    func render(in area: Rect, into buffer: inout Buffer, context: RenderContext)
}

/// Why ``Screen/refresh(_:context:)`` is called.
package enum RefreshReason: Hashable, Sendable {
    /// The store has new, changed or removed exchanges.
    case storeChanged
    /// The filter, order or marks-only switch changed.
    case queryChanged
    /// The screen's area changed size.
    case resized
    /// The marks changed (what is drawn, not which rows).
    case marksChanged
    /// The frame is drawn: do what ``Screen/hasDeferredWork`` says was put off.
    case settle
    /// A rank counted in the background came back (``ExchangeRankRequest``).
    case rankCounted(ExchangeRankCount)
}

extension Screen {
    package var selection: TraceSummary? { nil }
    package var position: String { "" }
    package var hasDeferredWork: Bool { false }
    package var listsExchanges: Bool { false }
    package var listTotal: Int? { nil }
    package var rankRequest: ExchangeRankRequest? { nil }
    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {}
    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool { false }
    package mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext) {}
}
