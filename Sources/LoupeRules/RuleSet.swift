/// Rules given in code, for tests and for apps that set their own: `RuleBook(RuleSet([...]))`.
public struct RuleSet: Sendable, Hashable {
    public var rules: [Rule]
    public init(_ rules: [Rule]) { self.rules = rules }
}
