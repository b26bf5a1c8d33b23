/// When an event stream connects again, and when it gives up: a value type told how each connection ended, which
/// answers with what to do next (the reconnector only carries it out).
///
/// The server's `retry:` is a number from a peer, so it is held within ``EventStreamOptions/retryRange`` before it is
/// used: `retry: 0` once made a stream reconnect hundreds of times a second (issue 44, item 4). Connections that
/// the server keeps ending within ``quickEnd`` of opening double the wait from the fourth in a row (up to
/// ``EventStreamOptions/maxBackoff``), whether or not they delivered an event; and a stream reconnects at most
/// ``EventStreamOptions/maxTotalReconnects`` times in all, besides the limit on reconnections in a row without an
/// event.
struct EventStreamReconnection: Sendable {
    /// What to do after a connection ended.
    enum Action: Sendable, Equatable {
        /// Wait this long, then connect again.
        case reconnect(after: Duration)
        /// Stop: the stream fails with this reason.
        case giveUp(String)
    }

    /// A connection shorter than this "ended at once".
    static let quickEnd = Duration.seconds(1)
    /// Quick endings in a row allowed at the plain delay before the wait starts doubling.
    static let quickEndsBeforeBackoff = 3

    let options: EventStreamOptions
    /// Connections in a row that delivered no event.
    private(set) var quiet = 0
    /// Connections in a row that ended within ``quickEnd``.
    private(set) var quick = 0
    /// Reconnections so far.
    private(set) var reconnects = 0

    init(options: EventStreamOptions) {
        self.options = options
    }

    /// The wait the server asked for with `retry:` (milliseconds), held within the options' range; the client's own
    /// delay when it asked for none.
    func delay(serverRetry: Int?) -> Duration {
        guard let serverRetry else { return options.reconnectDelay }
        // Held to a million seconds first: a peer's number may be far past what a Duration holds.
        let asked = Duration.milliseconds(min(max(serverRetry, 0), 1_000_000_000))
        return min(max(asked, options.retryRange.lowerBound), options.retryRange.upperBound)
    }

    /// A connection ended after `lasted`, having delivered `delivered` events (`streamed`: it was answered as an
    /// event stream, not refused or failed before its head); `serverRetry` is the stream's last `retry:`; `reason`
    /// says how it ended (for the give-up text).
    mutating func connectionEnded(delivered: Int, lasted: Duration, streamed: Bool, serverRetry: Int?, reason: String) -> Action {
        quiet = delivered > 0 ? 0 : quiet + 1
        // Failures to connect are bounded by the limit in a row; only a stream the server keeps ending is hurried.
        if streamed { quick = lasted < Self.quickEnd ? quick + 1 : 0 }
        if let limit = options.maxReconnects, quiet > limit {
            return .giveUp("the event stream ended \(quiet) times in a row without an event (\(reason))")
        }
        if let limit = options.maxTotalReconnects, reconnects >= limit {
            return .giveUp("the event stream reconnected \(reconnects) times, its limit (\(reason))")
        }
        reconnects += 1
        var wait = delay(serverRetry: serverRetry)
        if quick > Self.quickEndsBeforeBackoff {
            let doublings = min(quick - Self.quickEndsBeforeBackoff, 20)
            wait = min(wait * (1 << doublings), max(wait, options.maxBackoff))
        }
        return .reconnect(after: wait)
    }
}
