import Foundation
import LoupeTrace
import Loupe

/// One linked app as the title bar shows it (`loupe tui --listen`): its name, whether it is linked now or since
/// when it is gone, and how many exchanges it reported dropped. The listener is the source of truth; the TUI
/// reads these through ``TUIApp/sourceStatus`` on each poll and keeps no other state about apps.
package struct SourceStatus: Hashable, Sendable {
    package enum State: Hashable, Sendable {
        case linked
        case gone(since: Date)
    }

    package var app: String
    package var state: State
    package var dropped: Int

    package init(app: String, state: State, dropped: Int = 0) {
        self.app = app
        self.state = state
        self.dropped = dropped
    }

    /// `demo linked`, `demo gone since 12:03:04, dropped 5`: names come from the peer, so control characters are
    /// made visible (the buffer does it too; this text is also measured).
    func text(calendar: Calendar) -> String {
        var text = TerminalText.line(app)
        switch state {
        case .linked: text += " linked"
        case .gone(let since): text += " gone since " + Quantity.clock(since, calendar: calendar).prefix(8)
        }
        if dropped > 0 { text += ", dropped " + Quantity.count(dropped) }
        return text
    }

    /// The title bar's part: every source, or none when nothing is listening.
    static func summary(_ sources: [SourceStatus], calendar: Calendar) -> String? {
        guard !sources.isEmpty else { return nil }
        return "src: " + sources.map { $0.text(calendar: calendar) }.joined(separator: "; ")
    }
}
