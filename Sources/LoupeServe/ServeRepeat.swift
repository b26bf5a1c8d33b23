/// What answers a request whose matching recordings have all been served once (`--repeat`).
public enum ServeRepeat: String, Sendable, CaseIterable {
    /// The last of them answers again, as often as asked: a client that polls keeps getting the final state.
    case last
    /// They answer again from the first, in recorded order.
    case cycle
    /// None does: the request is a miss ("all N recordings served").
    case miss
}
