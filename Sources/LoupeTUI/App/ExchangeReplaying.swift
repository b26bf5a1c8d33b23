import LoupeTrace

/// Sends a recorded exchange again, for the inspector's `r` key.
///
/// The `loupe` tool implements it with a real client that records the replay into the same store (with
/// `replayOf` set), so the new row arrives through polling. Tests pass a fake.
public protocol ExchangeReplaying: Sendable {
    /// Replays `exchange` and returns a one-line status, such as `"replayed → 200 in 12 ms"`.
    func replay(_ exchange: TraceExchange) async throws -> String
}
