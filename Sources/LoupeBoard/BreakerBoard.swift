import Foundation
import Loupe
import LoupeTrace

/// Every breaker key seen in a store, with its state, window, refusals, two-minute sparkline, transitions and
/// retry figures: fed one exchange at a time (in store order), never rescanning.
///
/// It reads what the recorder writes: attempts carry `circuit.key` and the state at dispatch, `circuit` events
/// the transitions (key, from, to, reason, and for opens `probeAt`), `circuit-config` the key's thresholds at
/// first use, `short-circuit` each refused call. Within an exchange, attempts (at their end) and events (at
/// their time) are applied in time order, so a transition empties the window as the breaker's own does.
public struct BreakerBoard: Sendable {
    private var keys: [String: BreakerKeyState] = [:]
    /// The largest sequence added, so a reader knows where to continue.
    public private(set) var lastSequence: Int64 = .min

    public init() {}

    /// The keys seen so far.
    public var keyCount: Int { keys.count }

    private enum Item {
        case attempt(TraceAttempt, key: String)
        case transition(BreakerTransitionEntry, key: String)
        case rejected(Date, key: String)

        var at: Date {
            switch self {
            case .attempt(let attempt, _): attempt.endedAt ?? attempt.startedAt
            case .transition(let entry, _): entry.at
            case .rejected(let date, _): date
            }
        }
    }

    /// Adds one exchange's attempts and breaker events.
    public mutating func add(_ exchange: TraceExchange) {
        if let sequence = exchange.sequence { lastSequence = max(lastSequence, sequence) }
        var items: [Item] = []
        var lastKey: String?
        for event in exchange.events {
            guard let key = event.attributes["key"] else { continue }
            switch event.kind {
            case .circuitConfigured:
                if keys[key]?.thresholds.isRecorded != true { keys[key, default: .init()].thresholds = BreakerThresholds(attributes: event.attributes) }
            case .circuitTransition:
                items.append(.transition(entry(event, exchange: exchange, key: key), key: key))
            case .shortCircuit:
                items.append(.rejected(event.at, key: key))
                lastKey = key
            default:
                break
            }
        }
        for attempt in exchange.attempts {
            guard let key = attempt.notes["circuit.key"] else { continue }
            items.append(.attempt(attempt, key: key))
            lastKey = key
        }
        // Stable: at equal times events stay ahead of attempts (a half-open move comes before its probe).
        let ordered = items.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
        for item in ordered.map(\.element) {
            switch item {
            case .attempt(let attempt, let key): keys[key, default: .init()].call(attempt)
            case .transition(let entry, let key): keys[key, default: .init()].transition(entry)
            case .rejected(let date, let key): keys[key, default: .init()].rejected(at: date)
            }
        }
        guard let lastKey else { return }
        keys[lastKey, default: .init()].budgetDenied += exchange.events.count(where: ExchangeFacts.isBudgetDenial)
        if exchange.attempts.count > 1, exchange.outcome == .success { keys[lastKey, default: .init()].retrySucceeded += 1 }
    }

    private func entry(_ event: TraceEvent, exchange: TraceExchange, key: String) -> BreakerTransitionEntry {
        let attributes = event.attributes
        func date(_ name: String) -> Date? { attributes[name].flatMap(Double.init).flatMap(TraceTime.instant) }
        var entry = BreakerTransitionEntry(
            at: event.at, from: attributes["from"] ?? "?", to: attributes["to"] ?? "?", reason: attributes["reason"] ?? event.message,
            exchangeID: exchange.id, sequence: exchange.sequence, probeAt: date("probeAt"), timerAt: date("timerAt"))
        if entry.state == .open, entry.probeAt == nil {
            let wait = attributes["waitMs"].flatMap(Double.init).map { $0 / 1000 } ?? keys[key]?.thresholds.waitInOpen
                ?? BreakerThresholds.assumed.waitInOpen
            entry.probeAt = event.at.addingTimeInterval(wait.isFinite ? wait : 0)
        }
        return entry
    }

    /// One row per key, by key, as of `now`.
    public func rows(now: Date) -> [BreakerRow] {
        keys.sorted { $0.key < $1.key }.map { $0.value.row(key: $0.key, now: now) }
    }

    /// Every transition kept for `key`, oldest first (the newest 10,000).
    public func history(of key: String) -> [BreakerTransitionEntry] {
        keys[key].map { Array($0.history) } ?? []
    }
}
