import Foundation

/// At most ``maxRefreshes`` refreshes within any ``window``: a server that keeps answering 401 to fresh tokens
/// must not turn every request into a refresh (Alamofire's default, 5 in 30 s, is the default here too).
public struct TokenRefreshLimit: Sendable, Hashable {
    /// Refreshes allowed within `window`.
    public var maxRefreshes: Int
    /// The sliding window the refreshes are counted in.
    public var window: Duration

    public init(maxRefreshes: Int = 5, window: Duration = .seconds(30)) {
        self.maxRefreshes = maxRefreshes
        self.window = window
    }

    /// The window in seconds, for arithmetic with `Date`.
    var windowInterval: TimeInterval {
        Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
    }
}
