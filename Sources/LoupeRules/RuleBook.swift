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

    /// The rules, and a count of their changes: an index made from another generation is not asked for
    /// positions.
    private struct Locked {
        var state = RuleBookState()
        var generation = 0
    }

    private let state = Mutex(Locked())
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
    package let logger: Logger
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    /// The longest a breakpoint holds; then the request continues and its trace says so.
    public let maxHold: Duration
    /// How held requests are redacted before they leave the app (the live link), and how a viewer's edit of the
    /// redacted form gets the app's values back (``HeldRedaction``). Give it the recorder's policy.
    public let redaction: RedactionPolicy

    /// A book; `random` draws in `0..<1` for rules with a probability (seed it in tests).
    public init(
        maxHold: Duration = .seconds(60), logger: Logger = Logger(label: "loupe.rules"),
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = Date.init,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        redaction: RedactionPolicy = RedactionPolicy()
    ) {
        self.maxHold = maxHold
        self.redaction = redaction
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
    public var entries: [RuleBookState.Entry] { state.withLock { $0.state.entries } }

    /// Adds `rule` or replaces the one of the same name.
    public func put(_ rule: Rule, origin: RuleOrigin) {
        let changes = mutate { $0.put(rule, origin: origin) }
        log("rule \(rule.name) set by \(origin): \(rule.action.word) on \(rule.match)",
            ["rule": rule.name, "action": rule.action.word, "enabled": "\(rule.limits.enabled)"])
        apply(changes)
    }

    /// Adds `rules`, each replacing the one of its name, as one change: the index is rebuilt once, however many
    /// rules there are (a viewer's command of a thousand rules is one change, not a thousand).
    public func put(_ rules: [Rule], origin: RuleOrigin) {
        guard !rules.isEmpty else { return }
        let changes = mutate { state in rules.flatMap { state.put($0, origin: origin) } }
        logChange(origin, rules)
        apply(changes)
    }

    /// Removes the rule named `name`.
    public func remove(named name: String, by origin: RuleOrigin) {
        let changes = mutate { $0.remove(named: name) }
        log("rule \(name) removed by \(origin)", ["rule": name])
        apply(changes)
    }

    /// Turns a rule on or off; false when there is none of that name.
    @discardableResult
    public func setEnabled(_ enabled: Bool, named name: String, by origin: RuleOrigin) -> Bool {
        guard let changes = mutate({ $0.setEnabled(enabled, named: name) }) else { return false }
        log("rule \(name) \(enabled ? "enabled" : "disabled") by \(origin)", ["rule": name])
        apply(changes)
        return true
    }

    /// Replaces every rule from `origin` with `rules` (a rules file reloaded). `quietly` when the caller logs the
    /// change itself (a rules file that did not read: its one line says so).
    public func replaceAll(from origin: RuleOrigin, with rules: [Rule], quietly: Bool = false) {
        let changes = mutate { state in
            state.removeAll(from: origin) + rules.flatMap { state.put($0, origin: origin) }
        }
        if !quietly { apply(changes); return logChange(origin, rules) }
        apply(changes)
    }

    private func logChange(_ origin: RuleOrigin, _ rules: [Rule]) {
        log("rules from \(origin): \(rules.count) rule\(rules.count == 1 ? "" : "s")",
            ["rules": rules.map(\.name).joined(separator: ",")])
    }

    /// Logs at info level with every control character made visible: rule names, filters and origins come from
    /// rules files and viewers, and a raw escape in them would retitle or clear the terminal the log goes to.
    func log(_ message: String, _ metadata: [String: String]) {
        logger.info("\(TerminalText.line(message))",
                    metadata: metadata.mapValues { .string(TerminalText.line($0)) })
    }

    /// Removes every rule from `origin` and lets its held requests go on at once (a viewer that went away).
    public func forget(_ origin: RuleOrigin) {
        let changes = mutate { $0.removeAll(from: origin) }
        log("rules from \(origin) removed: it went away", ["origin": "\(origin)"])
        apply(changes)
        resumeAll()
    }

    /// Whether any enabled rule may act on a request: one atomic load, so an idle book costs a request nothing more.
    public var isActive: Bool { active.load(ordering: .relaxed) }

    /// What the book decided for a request, with the terminal rule's answer built when the book last changed.
    struct Verdict {
        var decision: RuleBookState.Decision
        var answer: PreparedAnswer?
    }

    /// Decides for one request about to be sent; counts hits. `nil` when no rule acts on it.
    ///
    /// The compiled index finds the live rules whose filters match; only then is the lock taken, to apply
    /// limits, probability and order to those rules and count hits. If the book changed since the index was
    /// made, the decision is made in full with ``RuleSubject`` (the reference matcher) instead, so the outcome is
    /// always that of deciding every request in full.
    func decide(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) -> Verdict? {
        let index = self.index.withLock { $0 }
        let bodyData = body?.bufferedData
        var facts = RequestFacts(request: request, operation: context.operation, body: bodyData,
                                 attempt: index.readsAttempt ? context.attemptsSoFar : 0)
        let positions = index.matching(&facts)
        guard !positions.isEmpty else { return nil }
        let now = index.readsClock ? now() : Date.distantPast
        let verdict = state.withLock { locked -> Verdict in
            guard locked.generation == index.generation else {
                let subject = RuleSubject(request: request, body: bodyData, operation: context.operation,
                                          attempt: context.attemptsSoFar)
                return Verdict(decision: decide(subject, in: &locked), answer: nil)
            }
            let decision = locked.state.decide(positions: positions, now: now, draw: random) { _ in true }
            // A rule that fired its last time leaves the index.
            if decision.spent { reindex(&locked) }
            return Verdict(decision: decision, answer: decision.terminalPosition.flatMap { index.answers[$0] })
        }
        if verdict.decision.isEmpty { return nil }
        notify(.rules(entries))
        return verdict
    }

    /// Decides for one request in full; counts hits.
    func decide(_ subject: RuleSubject) -> RuleBookState.Decision? {
        let decision = state.withLock { decide(subject, in: &$0) }
        if decision.isEmpty { return nil }
        notify(.rules(entries))
        return decision
    }

    private func decide(_ subject: RuleSubject, in locked: inout Locked) -> RuleBookState.Decision {
        let decision = locked.state.decide(subject, now: now(), draw: random)
        if decision.spent { reindex(&locked) }
        return decision
    }

    /// How many times the index was rebuilt (each change of the rules, each rule spent): for tests that a change
    /// of many rules rebuilds it once.
    var indexBuilds: Int { state.withLock { $0.generation } }

    /// Called with `state`'s lock held, so indexes are replaced in the order the states were made.
    private func reindex(_ locked: inout Locked) {
        locked.generation += 1
        let fresh = RuleIndex(locked.state.entries, generation: locked.generation)
        index.withLock { $0 = fresh }
    }

    private func mutate<T>(_ body: (inout RuleBookState) -> T) -> T {
        let (result, entries) = state.withLock { locked -> (T, [RuleBookState.Entry]) in
            let result = body(&locked.state)
            active.store(locked.state.hasRequestRules, ordering: .relaxed)
            reindex(&locked)
            return (result, locked.state.entries)
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
            log("breaker \(change.key): \(change.override.rawValue) by a rule", ["key": change.key])
        }
    }

    /// The change is made only when someone listens: a mock answering every request builds nothing for nobody.
    private func notify(_ change: @autoclosure () -> Change) {
        let listeners = listeners.withLock { $0 }
        if listeners.isEmpty { return }
        let change = change()
        for listener in listeners { listener(change) }
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
        log("held \(waiting.held.phase.rawValue) of \(waiting.held.operation): \(Self.word(decision))",
            ["rule": waiting.held.rule])
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
