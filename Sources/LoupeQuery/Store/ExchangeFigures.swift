import Foundation
import Loupe
import LoupeTrace

/// What a comparison of two recordings reads of one exchange: a few columns, and the response body only when it
/// is whole and could be JSON. Reading these instead of whole exchanges (headers, requests, attempts, events)
/// keeps a million-exchange store within seconds.
package struct ExchangeFigures: Sendable {
    package var sequence: Int64?
    package var id: UUID?
    package var operation: String
    package var host: String
    package var status: Int?
    package var outcome: ExchangeOutcome?
    /// Seconds, for a finished exchange.
    package var duration: TimeInterval?
    package var attempts: Int
    package var responseSize: Int?
    /// The response body when stored whole and its first byte past white space opens an object or an array.
    package var jsonBody: Data?

    package init(sequence: Int64?, id: UUID?, operation: String, host: String, status: Int?, outcome: ExchangeOutcome?,
                 duration: TimeInterval?, attempts: Int, responseSize: Int?, jsonBody: Data?) {
        self.sequence = sequence
        self.id = id
        self.operation = operation
        self.host = host
        self.status = status
        self.outcome = outcome
        self.duration = duration
        self.attempts = attempts
        self.responseSize = responseSize
        self.jsonBody = jsonBody.flatMap(Self.jsonCandidate)
    }

    /// The figures of a whole exchange (a HAR file or cassette read into memory).
    package init(_ exchange: TraceExchange) {
        let body = exchange.responseBody
        self.init(sequence: exchange.sequence, id: exchange.id, operation: exchange.operation, host: exchange.host,
                  status: exchange.status, outcome: exchange.outcome, duration: exchange.duration,
                  attempts: max(1, exchange.attempts.count), responseSize: body?.size,
                  jsonBody: body.flatMap { $0.isTruncated ? nil : $0.data })
    }

    /// `data` when it could be a JSON object or array (a cheap look at the first byte), else nil.
    static func jsonCandidate(_ data: Data) -> Data? {
        guard let first = data.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
              first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        return data
    }
}
