import Foundation

/// Work ``InspectorState/update(_:)`` asks the runner to do; the state itself never does I/O.
package enum InspectorEffect: Hashable, Sendable {
    /// Read the full exchange for the detail view, then send ``InspectorAction/detailLoaded(_:)``.
    case loadDetail(UUID)
    /// Load the exchange and send it again in the background, then send ``InspectorAction/replayFinished(_:)``;
    /// when it is not safe to repeat (``ReplaySafety``), send ``InspectorAction/replayNeedsConfirmation(id:reason:)``
    /// instead and wait.
    case replay(UUID)
    /// The user confirmed: send the exchange again, then send ``InspectorAction/replayFinished(_:)``.
    case sendReplay(UUID)
    /// Leave the inspector.
    case quit
}
