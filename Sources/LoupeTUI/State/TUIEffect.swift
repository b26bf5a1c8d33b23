import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeRules

/// Work the TUI's update asks the app to do: anything that writes, waits or talks to the terminal.
package enum TUIEffect: Hashable, Sendable {
    /// Load the exchange and send it again in the background; when it is not safe to repeat
    /// (``ReplaySafety``) or a credential was redacted, ask first (``TUIAction/replayNeedsConfirmation(_:)``).
    case replay(UUID)
    /// The user answered `y`: send exactly what the confirmation showed.
    case sendConfirmed(PendingReplay)
    /// Send the exchange `RepeatPlan.times` times, `concurrency` at once (asking first when it is not safe to
    /// repeat), reporting progress and a summary.
    case repeatReplay(UUID, RepeatPlan)
    /// Start no more sends of the running repeat; those in flight end and are recorded.
    case stopRepeat
    /// Open the request in the user's editor, then send what they saved as a replay of the original.
    case edit(UUID)
    /// Write exchanges to a file.
    case export(ExportRequest)
    /// Stop the exports that are running; each removes its partial file.
    case cancelExports
    /// Copy the exchange as a curl command to the terminal's clipboard (OSC 52).
    case copyCurl(UUID)
    /// Copy this text to the terminal's clipboard (OSC 52).
    case copy(String)
    /// Remember a prompt entry in its history file.
    case recordHistory(String, PromptKind)
    /// Count where a window's rows sit in the list, in the background, and answer with
    /// ``TUIAction/rankCounted(_:)``.
    case countRank(ExchangeRankRequest)
    /// Opens a linked app's rule in the editor as TOML; what is saved is sent back to the app.
    case editRule(app: String, Rule)
    /// Opens a held request in the editor (the document `e` edits); what is saved continues it, edited.
    case editHeld(app: String, HeldRequest)
    /// Record a person's decision on an agent's request (screen 6) beside the store, unless the agent withdrew it
    /// meanwhile; `what` is the request's line, for the status line.
    case decideAgentRequest(id: String, approved: Bool, what: String)
    /// Leave the TUI.
    case quit
    /// Start every sequence of the recordings served (`loupe tui --serve`) over.
    case resetScenarios
}

/// Which exchanges to export, how, and where.
package struct ExportRequest: Hashable, Sendable {
    /// Which exchanges.
    package enum Scope: String, Hashable, Sendable, CaseIterable {
        case selected, marked, filtered
    }

    package var scope: Scope
    /// The exchanges for ``Scope/selected`` and ``Scope/marked``.
    package var ids: [UUID]
    /// The rows for ``Scope/filtered``.
    package var query: ExchangeQuery
    package var format: ExportFormat
    package var path: String

    /// The status line while it runs: `exporting 12,000 exchanges as HAR to /tmp/x.har…`.
    func progress(written: Int) -> StatusMessage {
        StatusMessage(TerminalText.line("exporting \(Quantity.count(written)) exchanges as \(format.title) to \(path)…"))
    }
}
