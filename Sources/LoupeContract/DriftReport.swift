import Foundation
import LoupeTrace

/// Checked exchanges folded per operation: how many were checked and drift, each kind of drift with its count,
/// first and last seen and one example; plus the exchanges no operation matches. Memory grows with the operations
/// and kinds, never with the exchanges (unmatched paths are kept up to ``maximumUnmatchedPaths``).
public struct DriftReport: Sendable, Codable {
    /// Distinct unmatched requests (method and path) kept; the rest are only counted.
    public static let maximumUnmatchedPaths = 200

    /// One kind of drift of one operation.
    public struct Kind: Sendable, Codable, Equatable {
        public var kind: String
        public var count: Int
        public var firstSeen: Date
        public var lastSeen: Date
        /// The first drifting exchange's reference (`#12`) and what it found.
        public var example: String
        public var message: String
    }

    /// One operation of the contract: how many exchanges matched it, how many drift, and how.
    public struct Operation: Sendable, Codable, Equatable {
        public var name: String
        public var checked: Int
        public var drifting: Int
        public var kinds: [Kind]
    }

    /// Exchanges with one method and path that no operation matches.
    public struct Unmatched: Sendable, Codable, Equatable {
        /// `GET /nowhere` (the path without its query).
        public var request: String
        public var reason: String
        public var count: Int
        public var example: String
    }

    /// Every operation of the contract, in its order, with those never seen at zero.
    public private(set) var operations: [Operation]
    /// The unmatched requests, in the order first seen, and how many exchanges matched no operation in all.
    public private(set) var unmatched: [Unmatched] = []
    public private(set) var unmatchedCount = 0
    /// Unmatched exchanges whose path was not kept (past ``maximumUnmatchedPaths`` distinct ones).
    public private(set) var unmatchedOthers = 0
    /// Exchanges matched to an operation and checked, and how many of them drift.
    public private(set) var checked = 0
    public private(set) var drifting = 0
    private var operationIndex: [String: Int]

    /// An empty report listing every operation of `contract`.
    public init(contract: Contract) {
        var seen = Set<String>()
        operations = contract.operationNames.filter { seen.insert($0).inserted }.map { Operation(name: $0, checked: 0, drifting: 0, kinds: []) }
        operationIndex = Dictionary(uniqueKeysWithValues: operations.enumerated().map { ($1.name, $0) })
    }

    /// Adds one exchange's verdict; `reference` names it in examples (`#12`).
    public mutating func add(_ verdict: ContractVerdict, exchange: TraceExchange, reference: String) {
        guard let name = verdict.operation, let index = operationIndex[name] else {
            unmatchedCount += 1
            let path = URLComponents(string: exchange.url).map { $0.percentEncodedPath.isEmpty ? "/" : $0.percentEncodedPath } ?? exchange.url
            let request = "\(exchange.method.uppercased()) \(path)"
            if let known = unmatched.firstIndex(where: { $0.request == request }) {
                unmatched[known].count += 1
            } else if unmatched.count < Self.maximumUnmatchedPaths {
                unmatched.append(Unmatched(request: request, reason: verdict.unmatchedReason ?? "", count: 1, example: reference))
            } else {
                unmatchedOthers += 1
            }
            return
        }
        checked += 1
        operations[index].checked += 1
        guard verdict.drifts else { return }
        drifting += 1
        operations[index].drifting += 1
        var counted = Set<String>()
        for finding in verdict.findings where counted.insert(finding.kind).inserted {
            if let known = operations[index].kinds.firstIndex(where: { $0.kind == finding.kind }) {
                operations[index].kinds[known].count += 1
                operations[index].kinds[known].firstSeen = min(operations[index].kinds[known].firstSeen, exchange.startedAt)
                operations[index].kinds[known].lastSeen = max(operations[index].kinds[known].lastSeen, exchange.startedAt)
            } else {
                operations[index].kinds.append(Kind(kind: finding.kind, count: 1, firstSeen: exchange.startedAt,
                                                    lastSeen: exchange.startedAt, example: reference, message: finding.message))
            }
        }
    }

    /// Whether any drift of the kinds `selectors` name was found (every kind when `selectors` is nil).
    public func drifts(ofKinds selectors: [String]?) -> Bool {
        operations.contains { operation in
            operation.kinds.contains { kind in
                selectors.map { $0.contains { selector in kind.kind == selector || kind.kind.hasPrefix(selector + ".") } } ?? true
            }
        }
    }
}
