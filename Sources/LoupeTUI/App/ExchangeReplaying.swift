import LoupeTrace

/// Sends a recorded exchange again, for the TUI's `r`, `R` and `e` keys.
///
/// The `loupe` tool implements it with a real client that records the replay into the same store (with
/// `replayOf` set), so the new row arrives through polling. Tests pass a fake.
public protocol ExchangeReplaying: Sendable {
    /// Replays `exchange` and returns a one-line status, such as `"replayed → 200 in 12 ms"`.
    func replay(_ exchange: TraceExchange) async throws -> String
    /// Replays `exchange` and says how it went, with the status and time when there was a response (for `R`'s
    /// summary).
    func replayResult(_ exchange: TraceExchange) async throws -> ExchangeReplayResult
    /// The names (lowercased) of `exchange`'s redacted headers this replayer fills in itself, for the confirmation
    /// to say so (``ReplayCredentials``).
    func suppliedHeaderNames(for exchange: TraceExchange) -> Set<String>
    /// The names of `exchange`'s redacted query items this replayer fills in itself (the others are left out).
    func suppliedQueryNames(for exchange: TraceExchange) -> Set<String>
}

extension ExchangeReplaying {
    public func suppliedHeaderNames(for exchange: TraceExchange) -> Set<String> { [] }

    public func suppliedQueryNames(for exchange: TraceExchange) -> Set<String> { [] }

    public func replayResult(_ exchange: TraceExchange) async throws -> ExchangeReplayResult {
        ExchangeReplayResult(message: try await replay(exchange))
    }
}

/// How one replay went.
public struct ExchangeReplayResult: Sendable, Hashable {
    /// The one-line status.
    public var message: String
    /// The response's status, when one came.
    public var status: Int?
    /// How long it took, when a response came.
    public var duration: Duration?

    public init(message: String, status: Int? = nil, duration: Duration? = nil) {
        self.message = message
        self.status = status
        self.duration = duration
    }
}
