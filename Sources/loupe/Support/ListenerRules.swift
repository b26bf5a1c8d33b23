import Foundation
import LoupeLink
import LoupeRules
import LoupeTUI
import Synchronization

/// The rules screen's view of the apps linked to this TUI's listener: their reported rule states, and
/// commands sent to them over the link.
///
/// The TUI asks for the apps on every draw. An app's rules arrive as TOML and are parsed once per change of
/// that text (an app with a large mock sends the same rules again with every hit count), and the whole answer is
/// kept until the listener says something changed, so a draw costs no parsing and allocates nothing new.
final class ListenerRules: RulesControl {
    /// One linked app as the listener reports it.
    struct Reported: Sendable {
        var id: ObjectIdentifier
        var name: String
        var state: LinkRuleState?
    }

    private struct Cache {
        /// The listener's change count the answer was built at.
        var version: Int?
        var ids: [ObjectIdentifier] = []
        var apps: [RulesAppState] = []
        /// Each app's rules text and what it parsed to.
        var parsed: [ObjectIdentifier: (text: String, rules: [Rule])] = [:]
        /// Texts parsed since the start (for tests).
        var parses = 0
    }

    private let reported: @Sendable () -> [Reported]
    private let target: @Sendable (LinkRuleCommand, ObjectIdentifier?) -> Bool
    private let parse: @Sendable (String) -> [Rule]
    private final class Counter: Sendable { let value = Atomic<Int>(0) }
    private let changes = Counter()
    private let cache = Mutex(Cache())

    convenience init(_ listener: LinkListener) {
        self.init(reported: { listener.rulesApps.map { Reported(id: $0.id, name: $0.app.app, state: $0.state) } },
                  send: { listener.send($0, to: $1) })
        let changes = changes
        listener.onRulesChange { changes.value.add(1, ordering: .relaxed) }
    }

    /// `reported` gives the linked apps, `send` sends a command to one (all when `nil`); `parse` reads an app's
    /// rules (a state that does not read is shown empty).
    init(reported: @escaping @Sendable () -> [Reported], send: @escaping @Sendable (LinkRuleCommand, ObjectIdentifier?) -> Bool,
         parse: @escaping @Sendable (String) -> [Rule] = { (try? RuleFields.rules(json: $0)) ?? [] }) {
        self.reported = reported
        self.target = send
        self.parse = parse
    }

    var version: Int { changes.value.load(ordering: .relaxed) }

    /// Tells the view that the listener's apps changed (the listener's own callback does, in `init(_:)`).
    func changed() { changes.value.add(1, ordering: .relaxed) }

    /// How many rules texts were parsed so far.
    var parses: Int { cache.withLock { $0.parses } }

    func apps() -> [RulesAppState] {
        // Read before the apps: a change that lands while they are built makes the next call build again.
        let version = version
        let reported = reported()
        // An app that links or leaves before it sent a rule state changes the list, not the count.
        let ids = reported.map(\.id)
        if let cached = cache.withLock({ $0.version == version && $0.ids == ids ? $0.apps : nil }) { return cached }
        return cache.withLock { cache in
            var parsed: [ObjectIdentifier: (text: String, rules: [Rule])] = [:]
            let apps = reported.map { app in
                let state = app.state
                let text = state?.rules ?? ""
                let rules: [Rule]
                if let known = cache.parsed[app.id], known.text == text {
                    rules = known.rules
                } else {
                    rules = text.isEmpty ? [] : parse(text)
                    cache.parses += 1
                }
                parsed[app.id] = (text, rules)
                let entries = rules.enumerated().map { index, rule in
                    RulesAppState.Entry(rule: rule, hits: state?.hits[safe: index] ?? 0, origin: state?.origins[safe: index] ?? "")
                }
                return RulesAppState(id: Self.id(app.id), name: app.name, entries: entries, held: state?.held ?? [],
                                     maxHold: state?.maxHold ?? 60)
            }
            // Apps that left take their parsed rules with them.
            cache.parsed = parsed
            cache.version = version
            cache.ids = ids
            cache.apps = apps
            return apps
        }
    }

    func send(_ change: RulesChange, to app: String?) -> Bool {
        let command: LinkRuleCommand = switch change {
        case .put(let rules): .put(rules)
        case .remove(let name): .remove(name)
        case .setEnabled(let name, let enabled): .setEnabled(enabled, name)
        case .decide(let id, let decision): .decide(id, decision)
        case .continueAll: .continueAll
        }
        let target = app.flatMap { wanted in reported().first { Self.id($0.id) == wanted }?.id }
        if app != nil, target == nil { return false }
        return self.target(command, target)
    }

    private static func id(_ identifier: ObjectIdentifier) -> String {
        String(UInt(bitPattern: identifier.hashValue), radix: 16)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
