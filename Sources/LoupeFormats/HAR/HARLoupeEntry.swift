import Foundation
import LoupeTrace

/// Loupe's extra data in an entry's `_loupe` field: what HAR has no place for, so that export → import → export
/// loses nothing.
///
/// Method, URL, headers and body bytes live in the standard fields; this holds the rest. Times are seconds since
/// 1970 as JSON numbers, to the microsecond (`startedDateTime` has only milliseconds). Other tools ignore `_`
/// fields.
public struct HARLoupeEntry: Sendable, Hashable, Codable {
    /// The layout of this object; readers ignore `_loupe` data of a format they do not know.
    public var format: Int
    public var id: UUID
    public var operation: String
    /// An ``Loupe/ExchangeOutcome`` raw value.
    public var outcome: String
    /// The final status (`nil` when no response arrived).
    public var status: Int?
    public var error: String?
    public var replayOf: UUID?
    public var startedAt: Date
    public var endedAt: Date?
    /// Present when the exchange had a request body: its whole size and whether only a prefix was kept.
    public var requestBody: HARLoupeBody?
    /// Present when the exchange had a response body.
    public var responseBody: HARLoupeBody?
    public var attempts: [TraceAttempt]
    public var events: [TraceEvent]
    /// The linked app that sent it (absent for exchanges recorded in-process, and in files from before the link).
    public var source: TraceSource?
    /// The stream it carried (issue 30): counts, close and every kept message; absent for a request and response.
    public var stream: HARLoupeStream?

    /// The format this version writes.
    public static let currentFormat = 1

    /// Just the format, read before the rest.
    struct FormatProbe: Decodable {
        var format: Int?
    }

    public init(format: Int = Self.currentFormat, id: UUID, operation: String, outcome: String, status: Int?,
                error: String?, replayOf: UUID?, startedAt: Date, endedAt: Date?, requestBody: HARLoupeBody?,
                responseBody: HARLoupeBody?, attempts: [TraceAttempt], events: [TraceEvent],
                source: TraceSource? = nil, stream: HARLoupeStream? = nil) {
        self.stream = stream
        self.format = format
        self.id = id
        self.operation = operation
        self.outcome = outcome
        self.status = status
        self.error = error
        self.replayOf = replayOf
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.requestBody = requestBody
        self.responseBody = responseBody
        self.attempts = attempts
        self.events = events
        self.source = source
    }
}

/// The size and truncation of a recorded body (its bytes are in `postData` or `content`).
public struct HARLoupeBody: Sendable, Hashable, Codable {
    /// The whole body's size in bytes.
    public var size: Int
    /// Whether only the first bytes were recorded.
    public var truncated: Bool

    public init(size: Int, truncated: Bool) {
        self.size = size
        self.truncated = truncated
    }
}
