/// When each request of a paced run may start: the `n`-th at `n / rate` seconds after the first, so a slow
/// response never makes the run burst to catch up beyond the rate, and a fast one never runs ahead of it.
package struct ReplayPacer: Sendable, Equatable {
    /// Time between starts; `nil` starts each request as soon as a slot is free.
    package let interval: Duration?

    /// `rate` requests per second (positive and finite; the CLI bounds it), or `nil` for no pacing.
    package init(rate: Double?) {
        guard let rate, rate.isFinite, rate > 0 else {
            interval = nil
            return
        }
        // The CLI bounds rate to 0.01...100000, so the interval is 10 µs to 100 s.
        interval = .nanoseconds(Int64((1e9 / rate).rounded()))
    }

    /// How long after the run's start request `index` (0-based) may start.
    package func offset(of index: Int) -> Duration {
        guard let interval else { return .zero }
        return interval * index
    }
}
