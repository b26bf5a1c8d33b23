/// How a recorded stream is played again, by a replay or a cassette: its messages at their recorded times or at
/// once.
public enum StreamPacing: Sendable, Equatable {
    /// Each recorded client message is sent at its recorded offset from the exchange's start.
    case recorded
    /// Each is sent as soon as the previous one was (`loupe replay --fast`).
    case fast
}
