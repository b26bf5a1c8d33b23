import Foundation

/// Work ``InspectorState/update(_:)`` asks the runner to do; the state itself never does I/O.
public enum InspectorEffect: Hashable, Sendable {
    /// Read the full exchange for the detail view, then send ``InspectorAction/detailLoaded(_:)``.
    case loadDetail(UUID)
    /// Send the exchange again in the background, then send ``InspectorAction/replayFinished(_:)``.
    case replay(UUID)
    /// Leave the inspector.
    case quit
}
