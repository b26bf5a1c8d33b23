/// One way an exchange departs from its operation in the contract.
public struct ContractFinding: Sendable, Equatable, Codable {
    /// What drifted: `status`, `content-type`, `response-body`, `request-body`, `parameter`; a body's or a
    /// parameter's finding adds the schema keyword that failed (`response-body.type`, `parameter.required`).
    public var kind: String
    /// The whole finding as one line: `$.items[3].price: expected number, got null`.
    public var message: String

    public init(kind: String, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The kinds `--fail-on` names (each also covers its keyword kinds).
    public static let kinds = ["status", "content-type", "response-body", "request-body", "parameter"]

    /// Whether `selector` (a kind, or a kind with its keyword) covers this finding.
    public func isCovered(by selector: String) -> Bool {
        kind == selector || kind.hasPrefix(selector + ".")
    }
}

/// What checking one exchange found.
public struct ContractVerdict: Sendable, Equatable {
    /// The operation's name (its `operationId`), or nil when nothing in the contract matches the exchange.
    public var operation: String?
    /// Why no operation matched: no template fits the path, or one fits but not with this method.
    public var unmatchedReason: String?
    public var findings: [ContractFinding]

    /// Whether the exchange was matched and departs from its operation.
    public var drifts: Bool { !findings.isEmpty }
}
