/// What is wrong with a rule's fields, and where: the rule (0-based, in its document) and the key whose line a
/// file reports, when known.
package struct RuleFieldError: Error, Equatable, Sendable {
    package var rule: Int?
    package var key: String?
    package var reason: String

    package init(rule: Int? = nil, key: String? = nil, _ reason: String) {
        self.rule = rule
        self.key = key
        self.reason = reason
    }
}
