import Foundation
import Logging
import Loupe
import LoupeRules
import LoupeTrace
import NIOCore
import Synchronization

/// Viewer → app (`0x44`): one change to the app's rules, or a decision on a held request.
///
/// Rules travel as JSON (protocol 2): an array of rule objects with the rules file's keys (``RuleFields``), so an
/// app that links compiles no TOML parser. The app checks each command with the same reader as a rules file; a bad
/// one is logged and ignored, never applied in part.
package struct LinkRuleCommand: Codable, Sendable, Equatable {
    package enum Op: String, Codable, Sendable {
        /// Set the rules in `rules` (a JSON array of rules), replacing any of the same names.
        case put
        /// Remove the rule `name`.
        case remove
        /// Enable or disable the rule `name` (`enabled`).
        case enable
        /// Decide on the held request `held`: `decision` is `continue`, `abort` or `edit` (with `edit`).
        case decide
        /// Let every held request go on.
        case continueAll = "continue-all"
    }

    package var op: Op
    package var rules: String?
    package var name: String?
    package var enabled: Bool?
    package var held: UUID?
    package var decision: String?
    package var edit: HoldEdit?

    package init(op: Op, rules: String? = nil, name: String? = nil, enabled: Bool? = nil, held: UUID? = nil,
                decision: String? = nil, edit: HoldEdit? = nil) {
        self.op = op
        self.rules = rules
        self.name = name
        self.enabled = enabled
        self.held = held
        self.decision = decision
        self.edit = edit
    }

    package static func put(_ rules: [Rule]) -> Self { Self(op: .put, rules: RuleFields.json(rules)) }
    package static func remove(_ name: String) -> Self { Self(op: .remove, name: name) }
    package static func setEnabled(_ enabled: Bool, _ name: String) -> Self { Self(op: .enable, name: name, enabled: enabled) }
    package static func decide(_ held: UUID, _ decision: HoldDecision) -> Self {
        switch decision {
        case .resume: Self(op: .decide, held: held, decision: "continue")
        case .abort: Self(op: .decide, held: held, decision: "abort")
        case .edit(let edit): Self(op: .decide, held: held, decision: "edit", edit: edit)
        }
    }
    package static let continueAll = Self(op: .continueAll)

    /// Applies the command to `book` on behalf of `origin`; the reason when it is refused.
    package func apply(to book: RuleBook, origin: RuleOrigin) -> String? {
        switch op {
        case .put:
            guard let text = rules else { return "a put without rules" }
            // Bounded as a rules file is: in bytes before reading, and in rules the viewer holds after the put.
            guard text.utf8.count <= RuleFields.maxBytes else {
                return "rules from the viewer: more than \(Quantity.bytes(RuleFields.maxBytes)) of rules"
            }
            let parsed: [Rule]
            do {
                parsed = try RuleFields.rules(json: text)
            } catch {
                return "rules from the viewer: \(error.reason)"
            }
            let names = Set(parsed.map(\.name))
            let kept = book.entries.count { $0.origin == origin && !names.contains($0.rule.name) }
            guard kept + parsed.count <= RuleFields.maxRules else {
                return "rules from the viewer: \(kept + parsed.count) rules, more than the \(RuleFields.maxRules) a viewer may set"
            }
            book.put(parsed, origin: origin)
            return nil
        case .remove:
            guard let name else { return "a remove without a name" }
            book.remove(named: name, by: origin)
            return nil
        case .enable:
            guard let name, let enabled else { return "an enable without a name" }
            return book.setEnabled(enabled, named: name, by: origin) ? nil : "no rule named \(name)"
        case .decide:
            guard let held else { return "a decision without a held request" }
            let decision: HoldDecision
            switch self.decision {
            case "continue": decision = .resume
            case "abort": decision = .abort
            case "edit": decision = .edit(edit ?? HoldEdit())
            default: return "an unknown decision"
            }
            guard book.decide(held: held, decision) else {
                // The viewer decided after the longest hold (or another decision): the request went on as it was.
                return "held request \(held) is no longer held (it went on when the longest hold passed); the decision was not applied"
            }
            return nil
        case .continueAll:
            book.resumeAll()
            return nil
        }
    }
}

/// App → viewer (`0x04`): the app's rules in order with their hit counts, and the requests held now.
package struct LinkRuleState: Codable, Sendable, Equatable {
    /// The rules as a JSON array (``RuleFields``), in the book's order.
    package var rules: String
    /// Hits per rule, in the same order.
    package var hits: [Int]
    /// Where each rule came from (`code`, `rules file PATH`, `viewer …`).
    package var origins: [String]
    package var held: [HeldRequest]
    /// The app's longest hold, in seconds.
    package var maxHold: Double

    package init(rules: String, hits: [Int], origins: [String], held: [HeldRequest], maxHold: Double) {
        self.rules = rules
        self.hits = hits
        self.origins = origins
        self.held = held
        self.maxHold = maxHold
    }

    /// The state of `book` now.
    package init(_ book: RuleBook) {
        let entries = book.entries
        self.init(rules: RuleFields.json(entries.map(\.rule)), hits: entries.map(\.hits),
                  origins: entries.map(\.origin.description),
                  // Redacted as every exchange is before it is linked; the app puts its values back in an edit.
                  held: book.held.map(HeldRedaction(book.redaction).redacted), maxHold: book.maxHold.seconds)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension LoupeLink {
    /// Lets the viewer act on this app through `book`: its rules and held requests are sent to a viewer that takes
    /// them, its commands applied. When the viewer goes away, its held requests continue at once and the rules it
    /// set are removed. Call before the link first connects (the hello says the app takes rules).
    package func attachRules(_ book: RuleBook) {
        core.rules.withLock { $0 = book }
        let core = core
        book.onChange { _ in
            core.ruleStateDirty.withLock { $0 = true }
            core.wake()
        }
    }
}

extension LinkListener {
    /// One linked app that takes rules, with its latest rule state.
    package struct RulesApp: Sendable {
        /// Stable while the app stays linked.
        package var id: ObjectIdentifier
        package var app: LinkHello
        package var state: LinkRuleState?
    }

    /// The linked apps that take rules, oldest link first.
    package var rulesApps: [RulesApp] {
        let states = shared.ruleStates.withLock { $0 }
        let apps = shared.linkedApps.withLock { $0 }
        return apps.filter { $0.value.rules == true }
            .map { RulesApp(id: $0.key, app: $0.value, state: states[$0.key]) }
            .sorted { $0.app.pid < $1.app.pid }
    }

    /// Sends `command` to the app `id` (every app that takes rules when `nil`); false when there is none.
    @discardableResult
    package func send(_ command: LinkRuleCommand, to id: ObjectIdentifier? = nil) -> Bool {
        guard let bytes = try? LinkFrameCodec.encode(.rules(command)) else { return false }
        let targets = rulesApps.filter { id == nil || $0.id == id }.map(\.id)
        let channels = shared.channels.withLock { open in targets.compactMap { open[$0] } }
        for channel in channels { channel.writeAndFlush(bytes, promise: nil) }
        return !channels.isEmpty
    }

    /// Calls `listener` (on an event loop: keep it short) whenever an app's rule state arrives or an app leaves.
    package func onRulesChange(_ listener: @escaping @Sendable () -> Void) {
        shared.ruleListeners.withLock { $0.append(listener) }
    }
}

extension LinkListener.Shared {
    func rulesChanged() {
        for listener in ruleListeners.withLock({ $0 }) { listener() }
    }
}
