import Foundation

/// Where the inspector's one replay stands. One at a time: `r` is ignored unless this is ``idle``, so a burst of
/// keys (a paste) can never fire a burst of replays.
package enum ReplayPhase: Hashable, Sendable {
    /// No replay under way.
    case idle
    /// The exchange is not safe to repeat; waiting for `y` (send) or any other key (cancel).
    case confirming(UUID)
    /// Loading, sending, or waiting for the result.
    case running
}
