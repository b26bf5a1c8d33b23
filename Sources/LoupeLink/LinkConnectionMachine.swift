/// The app's connection loop as a value: what to do after each connection attempt ends. ``LoupeLink`` carries the
/// actions out (dial, log, sleep on its injected clock); tests drive the value alone, and the loop on a manual clock.
///
/// One outage is said once: the first failed attempt after start or after a link that held logs "cannot reach"; the
/// attempts after it are silent until a connection is welcomed and stays linked for ``stableLink``, which ends the
/// outage and resets the backoff. A welcome alone does not: a listener that welcomes and then misbehaves made the
/// app redial at once and warn on every redial, 10 warnings in 4 s (issue 44); its connections now count as failed
/// attempts of one outage. The delay grows with the failures of this outage (``LinkBackoff``, jittered by the
/// `unit` it is given).
struct LinkConnectionMachine: Sendable, Equatable {
    enum Action: Sendable, Equatable {
        /// Say this once through swift-log (warning), then wait.
        case logOutageAndWait(String, Duration)
        /// Wait this long, saying nothing (the outage was already reported).
        case wait(Duration)
    }

    /// How long a welcomed connection must last to end an outage.
    static let stableLink = Duration.seconds(5)

    let backoff: LinkBackoff
    /// Failed attempts in the current outage.
    private(set) var failures = 0
    /// Whether the current outage has been reported.
    private(set) var outageReported = false

    init(backoff: LinkBackoff) {
        self.backoff = backoff
    }

    /// A connection attempt ended. `welcomed`: it had been linked; `lasted`: how long the connection was open (a
    /// welcomed one that lasted ``stableLink`` makes this a new outage); `reason`: why it ended; `unit`: a random
    /// number in `0..<1` for the jitter.
    mutating func ended(welcomed: Bool, lasted: Duration, reason: String, unit: Double) -> Action {
        if welcomed, lasted >= Self.stableLink {
            failures = 0
            outageReported = false
        }
        failures += 1
        let delay = backoff.delay(afterFailures: failures, unit: unit)
        guard !outageReported else { return .wait(delay) }
        outageReported = true
        return .logOutageAndWait(reason, delay)
    }
}
