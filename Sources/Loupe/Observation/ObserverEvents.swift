import Foundation
import HTTPTypes

/// How a logical request ended.
public enum ExchangeOutcome: String, Sendable, Codable, CaseIterable {
    /// An acceptable response arrived and was decoded.
    case success
    /// A response arrived with a status the caller does not accept.
    case httpError
    /// No response: connection, TLS, timeout or another transport failure.
    case transportError
    /// The caller's task was cancelled.
    case cancelled
    /// A policy (such as an open circuit breaker) failed the request without sending it.
    case shortCircuited
    /// Encoding, a middleware or decoding failed.
    case clientError
}

/// A logical request began.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct ExchangeStarted: Sendable {
    public var exchangeID: UUID
    public var operation: String
    /// The request as the app asked for it, before middleware changed it.
    public var request: HTTPRequest
    /// The body bytes when they are in memory (streams are not read just to be recorded).
    public var requestBody: Optional<Data>
    public var startedAt: Date
    /// The exchange this one replays, when it is a replay.
    public var replayOf: Optional<UUID>
    /// The stack that recorded this exchange when it is not Loupe's client: an adapter's name such as
    /// `openapi-middleware`, `async-http-client` or `urlsession` (``RecordingAdapter``). The recorder stores it as an
    /// ``ExchangeEventKind/adapter`` event, so views, exports and replays can say where the exchange came from.
    public var adapter: Optional<String>

    /// The stream it carries (server-sent events, WebSocket), whose messages follow as ``ClientObserver/messageRecorded(_:)``.
    public var stream: Optional<ExchangeStreamKind>

    public init(exchangeID: UUID, operation: String, request: HTTPRequest, requestBody: Data? = nil, startedAt: Date,
                replayOf: UUID? = nil, adapter: String? = nil, stream: ExchangeStreamKind? = nil) {
        self.stream = stream
        self.exchangeID = exchangeID
        self.operation = operation
        self.request = request
        self.requestBody = requestBody
        self.startedAt = startedAt
        self.replayOf = replayOf
        self.adapter = adapter
    }
}

/// One try on the wire is about to start: its ``AttemptRecord`` with only the start time set.
public struct AttemptStarted: Sendable {
    public var exchangeID: UUID
    /// The attempt as the client records it (the same value ``ExchangeFinished/attempts`` later carries, finished).
    public var record: AttemptRecord

    public init(exchangeID: UUID, record: AttemptRecord) {
        self.exchangeID = exchangeID
        self.record = record
    }

    /// An attempt that has just started: numbered, timed from `startedAt`, with the middleware's notes.
    public init(exchangeID: UUID, number: Int, request: HTTPRequest, startedAt: Date, annotations: AttemptAnnotations = AttemptAnnotations()) {
        self.init(exchangeID: exchangeID, record: AttemptRecord(
            number: number, request: request, timings: AttemptTimings(start: startedAt), annotations: annotations))
    }

    /// 1 for the first try.
    public var number: Int { record.number }
    /// The request as the transport will send it, after middleware.
    public var request: HTTPRequest { record.request }
    public var startedAt: Date { record.timings.start }
    /// What middleware said about this attempt (retry reason and delay, breaker state at dispatch).
    public var annotations: AttemptAnnotations { record.annotations }
}

/// One try on the wire ended: its finished ``AttemptRecord``, with what live observers need beyond it (the error
/// itself and the body bytes, which the record leaves out).
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct AttemptFinished: Sendable {
    public var exchangeID: UUID
    /// The attempt as the client records it: the value ``ExchangeFinished/attempts`` carries.
    public var record: AttemptRecord
    /// The body bytes that arrived (with an error, the part that arrived before it); for a body streamed
    /// elsewhere, its first bytes only.
    public var responseBody: Optional<Data>
    /// The size of the whole body when ``responseBody`` holds only its first bytes (``RawResponse/bodySize``).
    public var responseBodySize: Optional<Int>
    /// The error, when the transport failed (``AttemptRecord/error`` holds its description).
    public var error: Optional<any Error>

    public init(exchangeID: UUID, record: AttemptRecord, responseBody: Data? = nil, responseBodySize: Int? = nil,
                error: (any Error)? = nil) {
        self.exchangeID = exchangeID
        self.record = record
        self.responseBody = responseBody
        self.responseBodySize = responseBodySize
        self.error = error
    }

    public var number: Int { record.number }
    /// The response, when one arrived; with an error, the head that arrived before it.
    public var response: HTTPResponse? { record.response }
    public var timings: AttemptTimings { record.timings }
}

/// Wall-clock milestones of one attempt; phases a transport cannot observe stay `nil`.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct AttemptTimings: Sendable, Hashable, Codable {
    public var start: Date
    public var requestSent: Optional<Date>
    public var firstByte: Optional<Date>
    public var end: Optional<Date>

    public init(start: Date, requestSent: Date? = nil, firstByte: Date? = nil, end: Date? = nil) {
        self.start = start
        self.requestSent = requestSent
        self.firstByte = firstByte
        self.end = end
    }

    /// Start to end, in seconds, when ended.
    public var duration: TimeInterval? { end.map { $0.timeIntervalSince(start) } }
}

/// Something a middleware decided about an exchange.
public struct ExchangeEvent: Sendable {
    public var exchangeID: UUID
    public var kind: ExchangeEventKind
    public var at: Date
    /// One human sentence.
    public var message: String
    /// Structured details (for example `from`, `to`, `delay`).
    public var attributes: [String: String]

    public init(exchangeID: UUID, kind: ExchangeEventKind, at: Date, message: String, attributes: [String: String] = [:]) {
        self.exchangeID = exchangeID
        self.kind = kind
        self.at = at
        self.message = message
        self.attributes = attributes
    }
}

/// The kind of an ``ExchangeEvent``; open so middleware of your own can add kinds.
///
/// Stored as its raw string (a kind this version does not know, from an older store or a HAR file, still reads).
public struct ExchangeEventKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral {
    public var rawValue: String
    /// A kind; an old spelling a store or HAR file may hold reads as the kind's word now (`circuit-reject` is
    /// `short-circuit`), so views and boards see one kind.
    public init(rawValue: String) { self.rawValue = Self.renamed[rawValue] ?? rawValue }
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// Old spellings and the kinds they are now (Documentation/Glossary.md).
    static let renamed = ["circuit-reject": "short-circuit"]
    public var description: String { rawValue }

    public static let retryScheduled = Self(rawValue: "retry")
    public static let circuitTransition = Self(rawValue: "circuit")
    public static let tokenRefreshWait = Self(rawValue: "refresh-wait")
    public static let dedupJoin = Self(rawValue: "dedup-join")
    public static let throttleWait = Self(rawValue: "throttle-wait")
    public static let cacheRevalidation = Self(rawValue: "cache-revalidation")
    public static let pinningFailure = Self(rawValue: "pinning-failure")
    public static let recorderDrop = Self(rawValue: "recorder-drop")
    /// The transport followed a redirect: the message names the URL it went on to, which the exchange records
    /// nowhere else (the recorder redacts it, and scrubs the secrets it held from the rest of the exchange).
    public static let redirect = Self(rawValue: "redirect")
    /// The response head arrived but the body did not finish (connection closed, timed out, too large): the
    /// status, headers and bytes recorded with the exchange are only what arrived.
    public static let incompleteResponse = Self(rawValue: "incomplete")
    /// The app dropped a streamed response body before reading it to its end: the body recorded is only what it
    /// read (`readBytes`), and the rest was never received; not an empty body, nor a whole one.
    public static let bodyNotRead = Self(rawValue: "body-not-read")
    /// A rule acted on the exchange (`LoupeRules`): its `rule` attribute names it, `action` says what it did
    /// (`mock`, `fault`, `rewrite`, `hold`, …); a mocked response carries `mocked: true`.
    public static let rule = Self(rawValue: "rule")
    /// The exchange was recorded by an adapter around another networking stack (a swift-openapi-runtime
    /// middleware, an AsyncHTTPClient wrapper, a URLSession protocol), not sent by Loupe's client; its `adapter`
    /// attribute names which (``ExchangeStarted/adapter``).
    public static let adapter = Self(rawValue: "adapter")
    /// `loupe serve` answered the request from a recording (its `recording` attribute names which, `#N`), or
    /// found none (`miss` says why); the filter term `~served` finds these exchanges.
    public static let served = Self(rawValue: "served")
}

/// The names adapters record in ``ExchangeStarted/adapter``: one word per stack (Documentation/Glossary.md).
public enum RecordingAdapter {
    /// `LoupeRecordingMiddleware`, a swift-openapi-runtime `ClientMiddleware` in a generated client.
    public static let openAPIMiddleware = "openapi-middleware"
    /// `RecordingHTTPClient`, around an AsyncHTTPClient `HTTPClient` used directly.
    public static let asyncHTTPClient = "async-http-client"
    /// URLSession: `LoupeURLProtocol` in a `URLSessionConfiguration`'s `protocolClasses`, or `RecordingSessionDelegate`
    /// as the session's delegate in front of the app's own.
    public static let urlSession = "urlsession"
    /// `LoupeGRPCInterceptor`, a grpc-swift 2 `ClientInterceptor`.
    public static let grpcSwift = "grpc-swift"
}

/// The logical request ended.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct ExchangeFinished: Sendable {
    public var exchangeID: UUID
    public var outcome: ExchangeOutcome
    /// The final response, when one arrived. With a transport error it is the part that arrived (see
    /// ``TransportError/partialResponse``).
    public var response: Optional<HTTPResponse>
    /// The body, or for a body streamed elsewhere (a download, `loupe send`) its first bytes.
    public var responseBody: Optional<Data>
    /// The size of the whole body when ``responseBody`` holds only its first bytes, so the recorder stores the
    /// prefix with the true size (``RawResponse/bodySize``); nil when ``responseBody`` is all of it.
    public var responseBodySize: Optional<Int>
    public var error: Optional<ClientError>
    public var endedAt: Date
    /// Every attempt sent, in order, each finished: the records ``AttemptFinished`` carried one by one.
    public var attempts: [AttemptRecord]

    public init(exchangeID: UUID, outcome: ExchangeOutcome, response: HTTPResponse? = nil, responseBody: Data? = nil,
                responseBodySize: Int? = nil, error: ClientError? = nil, endedAt: Date, attempts: [AttemptRecord]) {
        self.exchangeID = exchangeID
        self.outcome = outcome
        self.response = response
        self.responseBody = responseBody
        self.responseBodySize = responseBodySize
        self.error = error
        self.endedAt = endedAt
        self.attempts = attempts
    }

    /// How many attempts were sent.
    public var attemptCount: Int { attempts.count }
}
