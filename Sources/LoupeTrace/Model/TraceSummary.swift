import Foundation
import Loupe

/// The columns of one exchange that lists show, without headers or bodies.
public struct TraceSummary: Sendable, Codable, Hashable, Identifiable {
    public var id: UUID
    /// Order of arrival in the store; larger is newer.
    public var sequence: Int64
    public var operation: String
    public var method: String
    public var url: String
    public var startedAt: Date
    /// Seconds, when ended.
    public var duration: TimeInterval?
    public var outcome: ExchangeOutcome
    public var status: Int?
    public var error: String?
    public var attemptCount: Int
    public var replayOf: UUID?

    public init(id: UUID, sequence: Int64, operation: String, method: String, url: String, startedAt: Date,
                duration: TimeInterval?, outcome: ExchangeOutcome, status: Int?, error: String?, attemptCount: Int,
                replayOf: UUID?) {
        self.id = id
        self.sequence = sequence
        self.operation = operation
        self.method = method
        self.url = url
        self.startedAt = startedAt
        self.duration = duration
        self.outcome = outcome
        self.status = status
        self.error = error
        self.attemptCount = attemptCount
        self.replayOf = replayOf
    }

    /// The URL's host.
    public var host: String { URLComponents(string: url)?.host ?? "" }
    /// The URL's path and query.
    public var pathAndQuery: String {
        guard let components = URLComponents(string: url) else { return url }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }
}
