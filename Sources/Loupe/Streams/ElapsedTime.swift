/// Time since it was made on a client's clock (whatever its concrete type).
struct ElapsedTime {
    let elapsed: () -> Duration

    init(_ clock: any Clock<Duration>) {
        elapsed = Self.since(clock)
    }

    private static func since<C: Clock<Duration>>(_ clock: C) -> () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
