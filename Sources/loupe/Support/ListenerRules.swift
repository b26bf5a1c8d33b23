import Foundation
import LoupeLink
import LoupeRules
import LoupeTUI
import Synchronization

/// The rules screen's view of the apps linked to this inspector's listener: their reported rule states, and
/// commands sent to them over the link.
final class ListenerRules: RulesControl {
    private let listener: LinkListener
    private final class Counter: Sendable { let value = Atomic<Int>(0) }
    private let changes = Counter()

    init(_ listener: LinkListener) {
        self.listener = listener
        let changes = changes
        listener.onRulesChange { changes.value.add(1, ordering: .relaxed) }
    }

    var version: Int { changes.value.load(ordering: .relaxed) }

    func apps() -> [RulesAppState] {
        listener.rulesApps.map { app in
            let state = app.state
            // The app sent the rules it holds; they read as a rules file does (a state that does not is shown empty).
            let rules = state.flatMap { try? RulesDocument.parse($0.rules) } ?? []
            let entries = rules.enumerated().map { index, rule in
                RulesAppState.Entry(rule: rule, hits: state?.hits[safe: index] ?? 0, origin: state?.origins[safe: index] ?? "")
            }
            return RulesAppState(id: Self.id(app.id), name: app.app.app, entries: entries, held: state?.held ?? [],
                                 maxHold: state?.maxHold ?? 60)
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
        let target = app.flatMap { wanted in listener.rulesApps.first { Self.id($0.id) == wanted }?.id }
        if app != nil, target == nil { return false }
        return listener.send(command, to: target)
    }

    private static func id(_ identifier: ObjectIdentifier) -> String {
        String(UInt(bitPattern: identifier.hashValue), radix: 16)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
