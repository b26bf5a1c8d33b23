import Foundation
import LoupeRules

/// What the rules screen (`5`) acts through: the linked apps that take rules, and a way to send them changes.
/// `loupe tui --listen` gives one over the live link; tests give an in-memory one. No link, no rules screen data.
package protocol RulesControl: Sendable {
    /// The linked apps that take rules, with their latest rules and held requests.
    func apps() -> [RulesAppState]
    /// Sends `change` to the app `app` (every app when `nil`); false when no app took it.
    @discardableResult func send(_ change: RulesChange, to app: String?) -> Bool
    /// Changes whenever an app's state arrives or an app leaves, so the TUI redraws at once.
    var version: Int { get }
}

/// One linked app's rules and held requests, as it last reported them.
package struct RulesAppState: Sendable, Hashable {
    package struct Entry: Sendable, Hashable {
        package var rule: Rule
        package var hits: Int
        package var origin: String
        package init(rule: Rule, hits: Int, origin: String) {
            self.rule = rule
            self.hits = hits
            self.origin = origin
        }
    }

    /// Opaque and stable while the app stays linked.
    package var id: String
    /// The app's name from its hello.
    package var name: String
    package var entries: [Entry]
    package var held: [HeldRequest]
    package var maxHold: Double

    package init(id: String, name: String, entries: [Entry], held: [HeldRequest], maxHold: Double) {
        self.id = id
        self.name = name
        self.entries = entries
        self.held = held
        self.maxHold = maxHold
    }
}

/// A change the TUI asks of an app.
package enum RulesChange: Sendable, Hashable {
    case put([Rule])
    case remove(String)
    case setEnabled(String, Bool)
    case decide(UUID, HoldDecision)
    case continueAll
}
