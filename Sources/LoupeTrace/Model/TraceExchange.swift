import Foundation
import Loupe

/// One logical request as recorded: what the app asked for, every attempt under it, and what happened.
///
/// Headers and bodies are stored already redacted and capped; nothing here holds a secret.
///
/// Its optionals are spelled `Optional<…>`, the same types as `T?`: a `T?` stored property is implicitly set to `nil`
/// before an initializer runs, and with such properties assigned again by the initializer the optimizer built the
/// value in a temporary, copied it out (every reference retained) and destroyed the temporary, for every exchange
/// the recorder wrote.
public struct TraceExchange: Sendable, Codable, Hashable, Identifiable {
    public var id: UUID
    /// Order of arrival in the store (assigned by the store; `nil` before it is written).
    public var sequence: Optional<Int64>
    public var operation: String
    public var method: String
    public var url: String
    public var startedAt: Date
    public var endedAt: Optional<Date>
    public var outcome: ExchangeOutcome
    /// Final status, when a response arrived.
    public var status: Optional<Int>
    /// Final error description, when it failed.
    public var error: Optional<String>
    public var requestHeaders: [TraceHeader]
    public var requestBody: Optional<TraceBody>
    public var responseHeaders: [TraceHeader]
    public var responseBody: Optional<TraceBody>
    public var attempts: [TraceAttempt]
    public var events: [TraceEvent]
    /// The exchange this one replays.
    public var replayOf: Optional<UUID>
    /// The linked app that sent it (the live link); nil when recorded in this process.
    public var source: Optional<TraceSource>
    /// The stream it carried after its head (server-sent events, WebSocket) with its messages; nil for a request
    /// and response.
    public var stream: Optional<TraceStream>
    /// What the app asked for, when a rule's rewrite or an edit at a breakpoint changed the request before it went
    /// on the wire: the exchange's method, URL, headers and body are then what was sent. `nil` when nothing changed
    /// it (nearly always), so nothing more is stored.
    public var beforeRule: Optional<TraceRequest>

    public init(
        id: UUID, sequence: Int64? = nil, operation: String, method: String, url: String, startedAt: Date,
        endedAt: Date? = nil, outcome: ExchangeOutcome, status: Int? = nil, error: String? = nil,
        requestHeaders: [TraceHeader] = [], requestBody: TraceBody? = nil, responseHeaders: [TraceHeader] = [],
        responseBody: TraceBody? = nil, attempts: [TraceAttempt] = [], events: [TraceEvent] = [], replayOf: UUID? = nil,
        source: TraceSource? = nil, stream: TraceStream? = nil, beforeRule: TraceRequest? = nil
    ) {
        self.id = id
        self.sequence = sequence
        self.operation = operation
        self.method = method
        self.url = url
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.status = status
        self.error = error
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.attempts = attempts
        self.events = events
        self.replayOf = replayOf
        self.source = source
        self.stream = stream
        self.beforeRule = beforeRule
    }

    /// Start to end in seconds, when ended; within `0...TraceTime.maxDuration` whatever the times hold.
    public var duration: TimeInterval? { endedAt.flatMap { TraceTime.clampedDuration($0.timeIntervalSince(startedAt)) } }
    /// The URL's host (empty when the URL has none).
    public var host: String { URLComponents(string: url)?.host ?? "" }
    /// The URL's path and query.
    public var pathAndQuery: String {
        guard let components = URLComponents(string: url) else { return url }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }

    /// The short form the list views use.
    public var summary: TraceSummary {
        TraceSummary(
            id: id, sequence: sequence ?? 0, operation: operation, method: method, url: url, startedAt: startedAt,
            duration: duration, outcome: outcome, status: status, error: error, attemptCount: attempts.count,
            replayOf: replayOf, responseBodySize: responseBody?.size, sourceApp: source?.app,
            stream: stream.map { TraceStream(kind: $0.kind, sentCount: $0.sentCount, receivedCount: $0.receivedCount,
                                             omittedCount: $0.omittedCount, byteCount: $0.byteCount,
                                             closeCode: $0.closeCode, closeReason: $0.closeReason, closedBy: $0.closedBy) })
    }
}

/// One header field as recorded (names keep their original case; order is kept).
public struct TraceHeader: Sendable, Codable, Hashable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A recorded body: the first bytes up to the cap, and whether more existed.
public struct TraceBody: Sendable, Codable, Hashable {
    /// The stored bytes (at most the recorder's cap).
    public var data: Data
    /// The size of the whole body in bytes, when known.
    public var size: Int
    /// Whether `data` is a prefix of a larger body.
    public var isTruncated: Bool
    public init(data: Data, size: Int, isTruncated: Bool) {
        self.data = data
        self.size = size
        self.isTruncated = isTruncated
    }
}

/// One try on the wire, as stored: the client's ``AttemptRecord`` (see ``init(_:)``) with its texts redacted.
///
/// The request and response heads of the record are not kept per attempt: the exchange keeps the last attempt's
/// (``TraceExchange/requestHeaders``), and earlier attempts' credentials only serve to redact.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct TraceAttempt: Sendable, Codable, Hashable {
    public var number: Int
    public var startedAt: Date
    public var requestSentAt: Optional<Date>
    public var firstByteAt: Optional<Date>
    public var endedAt: Optional<Date>
    public var status: Optional<Int>
    public var error: Optional<String>
    /// The circuit breaker state when this attempt was dispatched.
    public var circuitState: Optional<String>
    /// Why this attempt was a retry.
    public var retryReason: Optional<String>
    /// How long the client waited before it, in seconds (the stored column's unit since the first schema; event
    /// attributes hold milliseconds).
    public var retryDelay: Optional<Double>
    /// What middleware noted about this attempt beyond the fields above (``AttemptAnnotations/extra``): for
    /// example `cache` (`miss`, `revalidate`), `circuit.key`, `auth.generation`, `priority`.
    public var notes: [String: String]

    public init(number: Int, startedAt: Date, requestSentAt: Date? = nil, firstByteAt: Date? = nil, endedAt: Date? = nil,
                status: Int? = nil, error: String? = nil, circuitState: String? = nil, retryReason: String? = nil,
                retryDelay: Double? = nil, notes: [String: String] = [:]) {
        self.number = number
        self.startedAt = startedAt
        self.requestSentAt = requestSentAt
        self.firstByteAt = firstByteAt
        self.endedAt = endedAt
        self.status = status
        self.error = error
        self.circuitState = circuitState
        self.retryReason = retryReason
        self.retryDelay = retryDelay
        self.notes = notes
    }

    /// The attempt as the client recorded it, field for field (before redaction, which scrubs its texts).
    public init(_ record: AttemptRecord) {
        let timings = record.timings
        let notes = record.annotations
        self.init(
            number: record.number, startedAt: timings.start, requestSentAt: timings.requestSent,
            firstByteAt: timings.firstByte, endedAt: timings.end, status: record.status, error: record.error,
            circuitState: notes.circuitState, retryReason: notes.retryReason, retryDelay: notes.retryDelay?.inSeconds,
            notes: notes.extra)
    }

    /// Start to end in seconds, when ended; within `0...TraceTime.maxDuration` whatever the times hold.
    public var duration: TimeInterval? { endedAt.flatMap { TraceTime.clampedDuration($0.timeIntervalSince(startedAt)) } }

    /// When it started and the milestones the transport marked.
    public var timings: AttemptTimings {
        AttemptTimings(start: startedAt, requestSent: requestSentAt, firstByte: firstByteAt, end: endedAt)
    }

    private enum CodingKeys: String, CodingKey {
        case number, startedAt, requestSentAt, firstByteAt, endedAt, status, error, circuitState, retryReason, retryDelay
        case notes
    }

    // Written by hand only so that `notes` may be absent: HAR files and JSON from before it existed still decode,
    // and attempts without notes encode exactly as they did.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        number = try container.decode(Int.self, forKey: .number)
        startedAt = try container.decode(Date.self, forKey: .startedAt)
        requestSentAt = try container.decodeIfPresent(Date.self, forKey: .requestSentAt)
        firstByteAt = try container.decodeIfPresent(Date.self, forKey: .firstByteAt)
        endedAt = try container.decodeIfPresent(Date.self, forKey: .endedAt)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        circuitState = try container.decodeIfPresent(String.self, forKey: .circuitState)
        retryReason = try container.decodeIfPresent(String.self, forKey: .retryReason)
        retryDelay = try container.decodeIfPresent(Double.self, forKey: .retryDelay)
        notes = try container.decodeIfPresent([String: String].self, forKey: .notes) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encodeIfPresent(requestSentAt, forKey: .requestSentAt)
        try container.encodeIfPresent(firstByteAt, forKey: .firstByteAt)
        try container.encodeIfPresent(endedAt, forKey: .endedAt)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(circuitState, forKey: .circuitState)
        try container.encodeIfPresent(retryReason, forKey: .retryReason)
        try container.encodeIfPresent(retryDelay, forKey: .retryDelay)
        if !notes.isEmpty { try container.encode(notes, forKey: .notes) }
    }
}

/// A decision recorded during an exchange (retry scheduled, breaker transition…): the client's ``ExchangeEvent``
/// without its exchange ID, texts redacted.
///
/// Durations in `attributes` are milliseconds in decimal (``Swift/Duration/storedMilliseconds``), under keys that
/// end in `Ms` (`delayMs`, `waitMs`). Stores and HAR files written before that may hold a retry's `delay` in seconds.
public struct TraceEvent: Sendable, Codable, Hashable {
    /// Stored as its raw string; kinds this version does not name still read.
    public var kind: ExchangeEventKind
    public var at: Date
    public var message: String
    public var attributes: [String: String]
    public init(kind: ExchangeEventKind, at: Date, message: String, attributes: [String: String] = [:]) {
        self.kind = kind
        self.at = at
        self.message = message
        self.attributes = attributes
    }

    /// The event as the client reported it.
    public init(_ event: ExchangeEvent) {
        self.init(kind: event.kind, at: event.at, message: event.message, attributes: event.attributes)
    }
}
