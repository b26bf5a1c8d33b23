import Foundation
import HTTPTypes
import Logging
import Loupe
import LoupeTrace
import Synchronization

/// The rules of one app, shared by its ``RulesTransport`` and whoever changes them (code, a rules file, the
/// viewer over the live link), and the requests its breakpoints hold.
///
/// Every change is logged through swift-log. A book with no enabled request rule costs a request one atomic load.
public final class RuleBook: Sendable {
    /// What changed, for whoever shows the book (the live link tells its viewer).
    public enum Change: Sendable {
        case rules([RuleBookState.Entry])
        case held([HeldRequest])
    }

    private struct Holds {
        var waiting: [UUID: (held: HeldRequest, resume: CheckedContinuation<HoldDecision, Never>)] = [:]
    }

    private let state = Mutex(RuleBookState())
    /// `RuleBookState.hasRequestRules`, mirrored so the transport's fast path takes no lock.
    private let active = Atomic<Bool>(false)
    /// The live request rules compiled (``RuleIndex``), replaced whole under `state`'s lock whenever the rules
    /// change or one is spent. A request reads it with one short lock (a reference copied out) and, when no rule
    /// can match, never takes `state`'s lock, reads the clock or builds the URL.
    private let index = Mutex(RuleIndex.empty)
    private let holds = Mutex(Holds())
    private let listeners = Mutex<[@Sendable (Change) -> Void]>([])
    private let breakers = Mutex<CircuitBreakerRegistry?>(nil)
    private let random: @Sendable () -> Double
    let logger: Logger
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    /// The longest a breakpoint holds; then the request continues and its trace says so.
    public let maxHold: Duration

    /// A book; `random` draws in `0..<1` for rules with a probability (seed it in tests).
    public init(
        maxHold: Duration = .seconds(60), logger: Logger = Logger(label: "loupe.rules"),
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = Date.init,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.maxHold = maxHold
        self.logger = logger
        self.clock = clock
        self.now = now
        self.random = random
    }

    /// A book holding `set`'s rules (origin `code`).
    public convenience init(_ set: RuleSet, maxHold: Duration = .seconds(60), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.init(maxHold: maxHold, random: random)
        for rule in set.rules { put(rule, origin: .code) }
    }

    /// The breakers that `breaker` rules force; set by whoever builds the client.
    public func attach(breakers registry: CircuitBreakerRegistry) {
        breakers.withLock { $0 = registry }
        // Rules added before the registry existed act now.
        for entry in entries { if entry.rule.limits.enabled, case .breaker(let key, let override) = entry.rule.action {
            apply([RuleBookState.BreakerChange(key: key, override: override)])
        } }
    }

    /// Calls `listener` after every change of the rules or the held requests.
    public func onChange(_ listener: @escaping @Sendable (Change) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    // MARK: The rules

    /// The rules, in order, with their origins and hit counts.
    public var entries: [RuleBookState.Entry] { state.withLock { $0.entries } }

    /// Adds `rule` or replaces the one of the same name.
    public func put(_ rule: Rule, origin: RuleOrigin) {
        let changes = mutate { $0.put(rule, origin: origin) }
        logger.info("rule \(rule.name) set by \(origin): \(rule.action.word) on \(rule.match)",
                    metadata: ["rule": "\(rule.name)", "action": "\(rule.action.word)", "enabled": "\(rule.limits.enabled)"])
        apply(changes)
    }

    /// Removes the rule named `name`.
    public func remove(named name: String, by origin: RuleOrigin) {
        let changes = mutate { $0.remove(named: name) }
        logger.info("rule \(name) removed by \(origin)", metadata: ["rule": "\(name)"])
        apply(changes)
    }

    /// Turns a rule on or off; false when there is none of that name.
    @discardableResult
    public func setEnabled(_ enabled: Bool, named name: String, by origin: RuleOrigin) -> Bool {
        guard let changes = mutate({ $0.setEnabled(enabled, named: name) }) else { return false }
        logger.info("rule \(name) \(enabled ? "enabled" : "disabled") by \(origin)", metadata: ["rule": "\(name)"])
        apply(changes)
        return true
    }

    /// Replaces every rule from `origin` with `rules` (a rules file reloaded). `quietly` when the caller logs the
    /// change itself (a rules file that did not read: its one line says so).
    public func replaceAll(from origin: RuleOrigin, with rules: [Rule], quietly: Bool = false) {
        var changes = mutate { $0.removeAll(from: origin) }
        for rule in rules { changes += mutate { $0.put(rule, origin: origin) } }
        if !quietly { apply(changes); return logChange(origin, rules) }
        apply(changes)
    }

    private func logChange(_ origin: RuleOrigin, _ rules: [Rule]) {
        logger.info("rules from \(origin): \(rules.count) rule\(rules.count == 1 ? "" : "s")",
                    metadata: ["rules": "\(rules.map(\.name).joined(separator: ","))"])
    }

    /// Removes every rule from `origin` and lets its held requests go on at once (a viewer that went away).
    public func forget(_ origin: RuleOrigin) {
        let changes = mutate { $0.removeAll(from: origin) }
        logger.info("rules from \(origin) removed: it went away", metadata: ["origin": "\(origin)"])
        apply(changes)
        resumeAll()
    }

    /// Whether any enabled rule may act on a request: one atomic load, so an idle book costs a request nothing more.
    public var isActive: Bool { active.load(ordering: .relaxed) }

    /// Decides for one request about to be sent; counts hits. `nil` when no rule acts on it.
    ///
    /// The compiled index answers first whether any live rule could match; only then is the full decision made
    /// under the lock with ``RuleSubject`` (the reference matcher), so its outcome is exactly that of deciding
    /// every request in full.
    func decide(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) -> RuleBookState.Decision? {
        let index = self.index.withLock { $0 }
        let bodyData = body?.bufferedData
        var facts = RequestFacts(request: request, operation: context.operation, body: bodyData,
                                 attempt: index.readsAttempt ? context.attemptsSoFar : 0)
        guard index.mayMatch(&facts) else { return nil }
        return decide(RuleSubject(request: request, body: bodyData, operation: context.operation,
                                  attempt: context.attemptsSoFar))
    }

    /// Decides for one request in full; counts hits.
    func decide(_ subject: RuleSubject) -> RuleBookState.Decision? {
        let now = now()
        let decision = state.withLock { state in
            let decision = state.decide(subject, now: now, draw: random)
            // A rule that fired its last time leaves the index.
            if !decision.isEmpty, state.entries.count(where: \.isLive) != index.withLock({ $0.live }) {
                reindex(state)
            }
            return decision
        }
        if decision.isEmpty { return nil }
        notify(.rules(entries))
        return decision
    }

    /// Called with `state`'s lock held, so indexes are replaced in the order the states were made.
    private func reindex(_ state: RuleBookState) {
        let fresh = RuleIndex(state.entries)
        index.withLock { $0 = fresh }
    }

    private func mutate<T>(_ body: (inout RuleBookState) -> T) -> T {
        let (result, entries) = state.withLock { state -> (T, [RuleBookState.Entry]) in
            let result = body(&state)
            active.store(state.hasRequestRules, ordering: .relaxed)
            reindex(state)
            return (result, state.entries)
        }
        notify(.rules(entries))
        return result
    }

    private func apply(_ changes: [RuleBookState.BreakerChange]) {
        guard !changes.isEmpty, let registry = breakers.withLock({ $0 }) else { return }
        for change in changes {
            switch change.override {
            case .open: _ = registry.forceOpen(change.key)
            case .closed: _ = registry.disable(change.key)
            case .release: _ = registry.reset(change.key)
            }
            logger.info("breaker \(change.key): \(change.override.rawValue) by a rule", metadata: ["key": "\(change.key)"])
        }
    }

    private func notify(_ change: Change) {
        for listener in listeners.withLock({ $0 }) { listener(change) }
    }

    // MARK: Held requests

    /// The requests and responses breakpoints hold now, oldest first.
    public var held: [HeldRequest] {
        holds.withLock { $0.waiting.values.map(\.held) }.sorted { $0.since < $1.since }
    }

    /// Decides for the held request `id`; false when it is no longer held.
    @discardableResult
    public func decide(held id: UUID, _ decision: HoldDecision) -> Bool {
        guard let waiting = holds.withLock({ $0.waiting.removeValue(forKey: id) }) else { return false }
        logger.info("held \(waiting.held.phase.rawValue) of \(waiting.held.operation): \(Self.word(decision))",
                    metadata: ["rule": "\(waiting.held.rule)"])
        waiting.resume.resume(returning: decision)
        notify(.held(held))
        return true
    }

    /// Lets every held request go on unchanged.
    public func resumeAll() {
        let all = holds.withLock { holds in
            defer { holds.waiting.removeAll() }
            return Array(holds.waiting.values)
        }
        for waiting in all { waiting.resume.resume(returning: .resume) }
        if !all.isEmpty { notify(.held(held)) }
    }

    /// Holds `request` until a decision, the longest hold (then `nil`: continue, and say so) or cancellation.
    func hold(_ request: HeldRequest) async -> HoldDecision? {
        let timer = Task { [clock, maxHold] in
            try? await clock.sleep(for: maxHold)
            return ()
        }
        defer { timer.cancel() }
        let decision: HoldDecision? = await withTaskCancellationHandler {
            await withTaskGroup(of: HoldDecision?.self) { group in
                group.addTask {
                    await withCheckedContinuation { continuation in
                        self.holds.withLock { $0.waiting[request.id] = (request, continuation) }
                        self.notify(.held(self.held))
                    }
                }
                group.addTask {
                    await timer.value
                    return nil
                }
                let first = await group.next() ?? nil
                timer.cancel()
                if first == nil {
                    // The longest hold passed (or the task was cancelled): whoever is still waiting goes on.
                    _ = self.decide(held: request.id, .resume)
                }
                group.cancelAll()
                return first
            }
        } onCancel: {
            _ = self.decide(held: request.id, .resume)
        }
        return decision
    }

    static func word(_ decision: HoldDecision) -> String {
        switch decision {
        case .resume: "continued"
        case .edit: "edited and continued"
        case .abort: "aborted"
        }
    }
}
