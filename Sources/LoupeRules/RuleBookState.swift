import Foundation
import Loupe
import LoupeTrace

/// The rules of one app and their counts: a value whose methods say what to do, so it is tested without a
/// transport, a lock or a clock.
public struct RuleBookState: Sendable, Hashable {
    /// One rule with where it came from and how often it acted.
    public struct Entry: Sendable, Hashable {
        public var rule: Rule
        public var origin: RuleOrigin
        public var hits: Int
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    /// Whether any enabled rule might act on a request (breaker rules act on no request).
    public var hasRequestRules: Bool {
        entries.contains { $0.rule.limits.enabled && !$0.rule.action.isBreaker }
    }

    /// What a request gets: rewrites and breakpoints in book order, then at most one mock or fault (the first
    /// that fires). Each rule that fires counts a hit.
    public struct Decision: Sendable, Hashable {
        /// Rewrites, in book order.
        public var rewrites: [NamedRewrite] = []
        /// The first breakpoint that fired.
        public var breakpoint: NamedBreakpoint?
        /// The mock or fault answering the request, with its rule's name.
        public var terminal: Terminal?

        public enum Terminal: Sendable, Hashable {
            case mock(name: String, RuleMock)
            case fault(name: String, TransportFault)
        }

        /// The terminal rule's position in the book.
        var terminalPosition: Int?
        /// Whether a rule fired its last time (it leaves the index).
        var spent = false

        public var isEmpty: Bool { rewrites.isEmpty && breakpoint == nil && terminal == nil }
    }

    public struct NamedRewrite: Sendable, Hashable { public var name: String; public var rewrite: RuleRewrite }
    public struct NamedBreakpoint: Sendable, Hashable { public var name: String; public var breakpoint: RuleBreakpoint }

    /// Decides for `subject` at `now`, drawing from `draw` (numbers in `0..<1`) for rules with a probability
    /// under 1, and counts the hits.
    public mutating func decide(_ subject: RuleSubject, now: Date, draw: () -> Double) -> Decision {
        decide(positions: entries.indices, now: now, draw: draw) { subject.matches($0.filter) }
    }

    /// Decides among the rules at `positions` (in book order) for which `matches` holds: the reference matcher
    /// over every rule, or ``RuleIndex``'s compiled tests, which found the matching positions already.
    mutating func decide(
        positions: some Sequence<Int>, now: Date, draw: () -> Double, matches: (Rule) -> Bool
    ) -> Decision {
        var decision = Decision()
        // Fields are read through `entries[index]` in place: binding the whole `Rule` would copy (retain and
        // release) its name, filter and action for every rule considered.
        for index in positions {
            let limits = entries[index].rule.limits
            guard limits.enabled else { continue }
            let kind = entries[index].rule.action.kind
            if kind == .breaker { continue }
            if let times = limits.times, entries[index].hits >= times { continue }
            if let until = limits.until, now >= until { continue }
            switch kind {
            case .terminal: if decision.terminal != nil { continue }
            case .breakpoint: if decision.breakpoint != nil { continue }
            case .rewrite, .breaker: break
            }
            guard matches(entries[index].rule) else { continue }
            if limits.probability < 1, draw() >= limits.probability { continue }
            entries[index].hits += 1
            if let times = limits.times, entries[index].hits >= times { decision.spent = true }
            switch entries[index].rule.action {
            case .mock(let mock):
                decision.terminal = .mock(name: entries[index].rule.name, mock)
                decision.terminalPosition = index
            case .fault(let fault):
                decision.terminal = .fault(name: entries[index].rule.name, fault)
                decision.terminalPosition = index
            case .rewrite(let rewrite):
                decision.rewrites.append(NamedRewrite(name: entries[index].rule.name, rewrite: rewrite))
            case .breakpoint(let breakpoint):
                decision.breakpoint = NamedBreakpoint(name: entries[index].rule.name, breakpoint: breakpoint)
            case .breaker: break
            }
        }
        return decision
    }

    /// What changing the book asks of the breakers.
    public struct BreakerChange: Sendable, Hashable {
        public var key: String
        public var override: BreakerOverride
    }

    /// Adds `rule`, or replaces the rule of the same name (keeping its hits only when the rule is unchanged).
    @discardableResult
    public mutating func put(_ rule: Rule, origin: RuleOrigin) -> [BreakerChange] {
        var changes = release(named: rule.name)
        if let index = entries.firstIndex(where: { $0.rule.name == rule.name }) {
            let hits = entries[index].rule == rule ? entries[index].hits : 0
            entries[index] = Entry(rule: rule, origin: origin, hits: hits)
        } else {
            entries.append(Entry(rule: rule, origin: origin, hits: 0))
        }
        changes += apply(named: rule.name)
        return changes
    }

    /// Removes the rule named `name`.
    @discardableResult
    public mutating func remove(named name: String) -> [BreakerChange] {
        let changes = release(named: name)
        entries.removeAll { $0.rule.name == name }
        return changes
    }

    /// Removes every rule from `origin` (a viewer that went away, a rules file reloaded).
    @discardableResult
    public mutating func removeAll(from origin: RuleOrigin) -> [BreakerChange] {
        let names = entries.filter { $0.origin == origin }.map(\.rule.name)
        return names.flatMap { remove(named: $0) }
    }

    /// Turns the rule named `name` on or off; `nil` when there is none.
    public mutating func setEnabled(_ enabled: Bool, named name: String) -> [BreakerChange]? {
        guard let index = entries.firstIndex(where: { $0.rule.name == name }) else { return nil }
        var changes = release(named: name)
        entries[index].rule.limits.enabled = enabled
        changes += apply(named: name)
        return changes
    }

    private func apply(named name: String) -> [BreakerChange] {
        guard let entry = entries.first(where: { $0.rule.name == name }), entry.rule.limits.enabled,
              case .breaker(let key, let override) = entry.rule.action else { return [] }
        return [BreakerChange(key: key, override: override)]
    }

    private func release(named name: String) -> [BreakerChange] {
        guard let entry = entries.first(where: { $0.rule.name == name }), entry.rule.limits.enabled,
              case .breaker(let key, let override) = entry.rule.action, override != .release else { return [] }
        return [BreakerChange(key: key, override: .release)]
    }
}

extension RuleAction {
    var isBreaker: Bool { if case .breaker = self { true } else { false } }

    /// Which slot of a decision an action fills, without copying its payload.
    enum Kind { case terminal, rewrite, breakpoint, breaker }

    var kind: Kind {
        switch self {
        case .mock, .fault: .terminal
        case .rewrite: .rewrite
        case .breakpoint: .breakpoint
        case .breaker: .breaker
        }
    }
}

/// Where a rule came from: code, a rules file, or a viewer over the live link.
public enum RuleOrigin: Sendable, Hashable, CustomStringConvertible {
    case code
    case file(String)
    case viewer(String)

    public var description: String {
        switch self {
        case .code: "code"
        case .file(let path): "rules file \(path)"
        case .viewer(let name): "viewer \(name)"
        }
    }
}
