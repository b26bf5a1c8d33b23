import DequeModule
import Foundation
import Loupe
import LoupeTrace

/// What the board knows of one breaker key, updated call by call in the order they happened.
struct BreakerKeyState: Sendable {
    /// One call in the window: failed, slow, when.
    struct Call: Sendable {
        var failed: Bool
        var slow: Bool
        var at: Date
    }

    /// Transitions kept per key; older ones are counted, not kept.
    static let historyLimit = 10_000

    var thresholds = BreakerThresholds.assumed
    var state: CircuitState = .closed
    var window: Deque<Call> = []
    var notPermitted = 0
    var probeAt: Date?
    var seconds = SecondBuckets()
    var history: Deque<BreakerTransitionEntry> = []
    var retries = 0
    var budgetDenied = 0
    var retrySucceeded = 0

    mutating func call(_ attempt: TraceAttempt) {
        let failed = Self.failed(attempt)
        let slow = (attempt.duration ?? 0) >= thresholds.slowCall
        let at = attempt.endedAt ?? attempt.startedAt
        seconds.add(at: attempt.startedAt, failed: failed)
        if attempt.number > 1 { retries += 1 }
        if let state = attempt.circuitState.flatMap(CircuitState.init(rawValue:)), history.isEmpty { self.state = state }
        guard state == .closed || state == .halfOpen else { return }
        window.append(Call(failed: failed, slow: slow, at: at))
        if let calls = thresholds.windowCalls {
            while window.count > calls { window.removeFirst() }
        } else if let seconds = thresholds.windowSeconds {
            while let first = window.first, at.timeIntervalSince(first.at) >= Double(seconds) { window.removeFirst() }
        }
    }

    mutating func rejected(at date: Date) {
        notPermitted += 1
        seconds.add(at: date, failed: true)
    }

    /// Keeps the history in time order: exchanges arrive in store order, and one stored later may carry an
    /// earlier transition (its request started first and ended last). Only the newest transition sets the state.
    mutating func transition(_ entry: BreakerTransitionEntry) {
        var index = history.endIndex
        while index > history.startIndex, history[index - 1].at > entry.at { index -= 1 }
        let isNewest = index == history.endIndex
        history.insert(entry, at: index)
        if history.count > Self.historyLimit { history.removeFirst() }
        guard isNewest else { return }
        state = entry.state ?? state
        window.removeAll()
        probeAt = entry.state == .open ? entry.probeAt : nil
    }

    /// 5xx and transport errors, as the breaker's default classification counts them.
    static func failed(_ attempt: TraceAttempt) -> Bool {
        if let status = attempt.status { return status >= 500 }
        return attempt.error != nil
    }

    func row(key: String, now: Date) -> BreakerRow {
        let calls = window.count
        func rate(_ part: Int) -> Double? { calls == 0 ? nil : Double(part) * 100 / Double(calls) }
        return BreakerRow(
            key: key, state: state, thresholds: thresholds, failureRate: rate(window.count(where: \.failed)),
            slowCallRate: rate(window.count(where: \.slow)), callsInWindow: calls, notPermitted: notPermitted,
            probeIn: state == .open ? probeAt.map { max(0, $0.timeIntervalSince(now)) } : nil,
            series: seconds.series(now: now), lastTransition: history.last, retries: retries,
            budgetDenied: budgetDenied, retrySucceeded: retrySucceeded)
    }
}
