import Foundation
import LoupeTrace

/// Everything that can happen to the inspector: keys, commands, and results of its effects (Elm's `Msg`).
package enum InspectorAction: Hashable, Sendable {
    /// A key press, resolved through the state's ``Keymap``.
    case key(Key)
    /// A command, whatever key (if any) asked for it.
    case command(InspectorCommand)
    /// The screen is now `Size`.
    case resized(Size)
    /// New or updated exchanges from the store, oldest first, the store's newest sequence read, and its count.
    case summariesLoaded([TraceSummary], through: Int64, total: Int?)
    /// The full exchange the detail view asked for.
    case detailLoaded(TraceExchange)
    /// The exchange the detail view asked for could not be loaded.
    case detailFailed(id: UUID, reason: String)
    /// Reading the store failed.
    case storeFailed(String)
    /// The exchange about to be replayed is not safe to repeat (`reason`): ask before sending it.
    case replayNeedsConfirmation(id: UUID, reason: String)
    /// A replay ended (or never started); the message says how.
    case replayFinished(StatusMessage)
}
