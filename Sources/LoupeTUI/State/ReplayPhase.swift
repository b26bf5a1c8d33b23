import Loupe
import Foundation
import LoupeTrace

/// Where the TUI's one replay stands. One at a time: `r` is ignored unless this is ``idle``, so a burst of
/// keys (a paste) can never fire a burst of replays.
package enum ReplayPhase: Hashable, Sendable {
    /// No replay under way.
    case idle
    /// Waiting for `y` (send exactly this) or any other key (cancel). What would be sent lives here and nowhere
    /// else, so leaving this phase, however it is left, drops it: nothing approved for one question can be sent
    /// by the answer to another.
    case confirming(PendingReplay)
    /// Loading, sending, or waiting for the result.
    case running

    /// The replay a confirmation asks about, if one is open.
    package var pending: PendingReplay? {
        if case .confirming(let pending) = self { pending } else { nil }
    }
}

/// A replay the user is asked about: the request exactly as `y` sends it, how many times and how many at once,
/// and why it asks.
package struct PendingReplay: Hashable, Sendable {
    /// The request to send (the recorded one, or the edited one for `e`).
    package var exchange: TraceExchange
    /// `R`'s times and concurrency; `nil` sends it once.
    package var plan: RepeatPlan?
    /// Whether ``exchange`` is the user's edit rather than the recording.
    package var edited: Bool
    /// Why it asks: not safe to repeat, a credential that was redacted.
    package var reasons: [String]

    package init(exchange: TraceExchange, plan: RepeatPlan? = nil, edited: Bool = false, reasons: [String]) {
        self.exchange = exchange
        self.plan = plan
        self.edited = edited
        self.reasons = reasons
    }

    /// `POST https://api.example.com:8443/orders`: the whole URL, scheme and port included, as it is sent.
    package var target: String {
        "\(exchange.method) \(exchange.url)"
    }

    /// What `y` sends, count and concurrency included: `the edited POST https://api.example.com/orders 5× (2 at once)`.
    package var sends: String {
        let count = plan.map { "\(Quantity.count($0.times))× (\($0.concurrency) at once)" } ?? "once"
        return "\(edited ? "the edited " : "")\(target) \(count)"
    }

    /// The status line that asks, saying what `yes` (the key that sends, `y`) sends.
    package func question(yes: String) -> String {
        "Replay? \(yes)/N · sends \(sends)"
    }

    /// The line under it: the answers, then why it asks.
    package func explanation(yes: String) -> String {
        (["\(yes) sends it, any other key cancels"] + reasons).joined(separator: " · ")
    }
}
