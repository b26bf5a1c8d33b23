/// When `loupe ws` closes after its standard input ended: once the server has been quiet for `linger` (replies to the
/// last lines still arrive and are printed), but no later than `limit` after the end of input (a server that never
/// goes quiet, a feed, is still closed).
///
/// Sending the close at once, as websocat does, loses replies: a server answers a close frame at once and may drop
/// messages its application had not sent yet (the `websockets` package does, so `printf 'a\nb\n' | loupe ws …/echo`
/// printed nothing). Times are offsets from any fixed start, so the schedule is tested without a clock.
struct WSInputEnd: Sendable, Equatable {
    /// What the caller does now.
    enum Action: Sendable, Equatable {
        /// Input has not ended: nothing to schedule.
        case keepOpen
        /// Ask again at this offset (or sooner, when a message arrives).
        case wait(until: Duration)
        /// Send the close frame now.
        case close
    }

    /// How long the server must be quiet after the end of input.
    let linger: Duration
    /// The longest wait after the end of input, quiet or not.
    let limit: Duration
    private(set) var inputEnded: Duration?
    private(set) var lastMessage: Duration?

    init(linger: Duration, limit: Duration) {
        self.linger = max(.zero, linger)
        self.limit = max(.zero, limit)
    }

    /// Standard input reached its end at `time`.
    mutating func inputEnded(at time: Duration) {
        if inputEnded == nil { inputEnded = time }
    }

    /// A message arrived at `time`: the quiet period starts again.
    mutating func received(at time: Duration) {
        lastMessage = max(lastMessage ?? time, time)
    }

    /// What to do at `now`.
    func action(at now: Duration) -> Action {
        guard let inputEnded else { return .keepOpen }
        let quietFrom = max(inputEnded, lastMessage ?? inputEnded)
        let deadline = min(quietFrom + linger, inputEnded + limit)
        return now >= deadline ? .close : .wait(until: deadline)
    }
}
