import Foundation
import LoupeTrace

/// Everything that can happen to the TUI: keys, commands, and results of its effects (Elm's `Msg`).
package enum TUIAction: Sendable {
    /// A key press, resolved through the ``Keymap`` (or typed into the open prompt).
    case key(Key)
    /// A click or wheel turn; `double` when it is the second click on one row in quick succession.
    case mouse(MouseEvent, double: Bool)
    /// A command by name, with the `:` prompt's argument.
    case command(Command, argument: String? = nil)
    /// The screen is now `Size`.
    case resized(Size)
    /// Time to look at the store for changes.
    case poll
    /// A frame is about to be drawn: the open prompt checks the text typed since the last frame, once.
    case frame
    /// A frame was drawn: the screens finish what they put off for it (``Screen/hasDeferredWork``).
    case settle
    /// The replay about to be sent needs the user's word (not safe to repeat, a redacted credential): ask, holding
    /// exactly what `y` will send.
    case replayNeedsConfirmation(PendingReplay)
    /// A replay, export or copy ended; the message says how.
    case finished(StatusMessage, replay: Bool)
    /// Work still running in the background (an export) says how far it got.
    case progress(StatusMessage)
    /// An export ended; a curl export also hands its commands over for the clipboard.
    case exported(StatusMessage, clipboard: String?)
    /// A rank counted in the background (``TUIEffect/countRank(_:)``).
    case rankCounted(ExchangeRankCount)
}
