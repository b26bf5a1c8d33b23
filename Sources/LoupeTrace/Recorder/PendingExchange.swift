import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe

/// What the inspector has gathered about one exchange, still raw (unredacted, uncapped).
///
/// Turning it into a ``TraceExchange`` parses URLs and JSON bodies, so that happens in ``TraceWriter``'s
/// background task, never on the request path. Bodies are kept by reference (`Data` is copy-on-write), so
/// holding them here copies nothing.
struct PendingExchange: Sendable {
    var id: UUID
    var operation: String
    var method: String
    var url: String
    var startedAt: Date
    var appHeaders: HTTPFields
    var requestBody: Data?
    var replayOf: UUID?
    var attempts: [PendingAttempt] = []
    var events: [TraceEvent] = []
    // Set when the exchange finishes.
    var endedAt: Date?
    var outcome: ExchangeOutcome = .clientError
    var finalResponse: HTTPResponse?
    var responseBody: Data?
    var error: String?
    /// Exchanges the recorder dropped just before this one, reported as an event so the gap is visible.
    var droppedBefore = 0

    init(_ started: ExchangeStarted) {
        id = started.exchangeID
        operation = started.operation
        method = started.request.method.rawValue
        // Joined from the request's parts, not `request.url?.absoluteString`: that parses the URL (≈ 2 µs) on the
        // caller's path, and for a request the client built it gives back the same string.
        url = "\(started.request.scheme ?? "https")://\(started.request.authority ?? "")\(started.request.path ?? "/")"
        startedAt = started.startedAt
        appHeaders = started.request.headerFields
        requestBody = started.requestBody
        replayOf = started.replayOf
    }

    /// Stores how attempt `number` ended (adding it if its start was never reported).
    mutating func finishAttempt(_ number: Int, timings: AttemptTimings, status: Int?, error: String?) {
        guard let index = attempts.lastIndex(where: { $0.number == number }) else {
            attempts.append(PendingAttempt(
                number: number, startedAt: timings.start, timings: timings, status: status, error: error))
            return
        }
        attempts[index].timings = timings
        attempts[index].status = status
        attempts[index].error = error
    }

    /// The recorded form: URL, headers and bodies redacted, bodies capped at `bodyCap` bytes.
    func makeTrace(policy: RedactionPolicy, bodyCap: Int) -> TraceExchange {
        // Record the headers that went on the wire (after middleware added auth, tracing and so on) when an
        // attempt was made; a short-circuited exchange only has the app's own.
        let requestFields = attempts.last?.requestHeaders ?? appHeaders
        let redactedURL = policy.redact(url: url)
        let scrub = Scrubber(url: url, redactedURL: redactedURL)
        var events = events.map { event in
            TraceEvent(kind: event.kind, at: event.at, message: scrub(event.message),
                       attributes: event.attributes.mapValues { scrub($0) })
        }
        if droppedBefore > 0 {
            events.insert(TraceEvent(
                kind: ExchangeEventKind.recorderDrop.rawValue, at: startedAt,
                message: "The recorder dropped \(droppedBefore) exchange(s) before this one: it was over capacity.",
                attributes: ["count": String(droppedBefore)]), at: 0)
        }
        return TraceExchange(
            id: id, operation: scrub(operation), method: method, url: redactedURL, startedAt: startedAt,
            endedAt: endedAt, outcome: outcome, status: finalResponse.map { $0.status.code } ?? attempts.last?.status,
            error: error.map { scrub($0) },
            requestHeaders: policy.redact(headers: requestFields),
            requestBody: Self.body(requestBody, contentType: requestFields[.contentType], policy: policy, cap: bodyCap),
            responseHeaders: finalResponse.map { policy.redact(headers: $0.headerFields) } ?? [],
            responseBody: Self.body(
                responseBody, contentType: finalResponse?.headerFields[.contentType], policy: policy, cap: bodyCap),
            attempts: attempts.map { $0.makeTrace(scrub: { scrub($0) }) },
            events: events, replayOf: replayOf)
    }

    /// Redacts the whole body first (a secret must not survive because a cut made the JSON unparsable), then caps.
    static func body(_ data: Data?, contentType: String?, policy: RedactionPolicy, cap: Int) -> TraceBody? {
        guard let data else { return nil }
        let redacted = policy.redact(body: data, contentType: contentType)
        let limit = max(0, cap)
        guard redacted.count > limit else { return TraceBody(data: redacted, size: data.count, isTruncated: false) }
        return TraceBody(data: Data(redacted.prefix(limit)), size: data.count, isTruncated: true)
    }
}

/// Replaces the raw URL, and its path and query, with their redacted forms inside free text.
///
/// Operation names (the client's default is `METHOD /path?query`), error descriptions and event messages often
/// quote the request; a secret query item must not survive there after being redacted from the URL itself.
struct Scrubber {
    private var replacements: [(String, String)] = []

    init(url: String, redactedURL: String) {
        guard url != redactedURL else { return }
        replacements.append((url, redactedURL))
        if let raw = URLComponents(string: url), let redacted = URLComponents(string: redactedURL) {
            let rawTail = Self.pathAndQuery(raw)
            let redactedTail = Self.pathAndQuery(redacted)
            if rawTail != redactedTail { replacements.append((rawTail, redactedTail)) }
        }
    }

    func callAsFunction(_ text: String) -> String {
        replacements.reduce(text) { text, pair in text.replacingOccurrences(of: pair.0, with: pair.1) }
    }

    private static func pathAndQuery(_ components: URLComponents) -> String {
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }
}

/// One attempt as the inspector has gathered it.
struct PendingAttempt: Sendable {
    var number: Int
    var startedAt: Date
    var requestHeaders: HTTPFields?
    var annotations = AttemptAnnotations()
    var timings: AttemptTimings?
    var status: Int?
    var error: String?

    func makeTrace(scrub: (String) -> String) -> TraceAttempt {
        TraceAttempt(
            number: number, startedAt: timings?.start ?? startedAt, requestSentAt: timings?.requestSent,
            firstByteAt: timings?.firstByte, endedAt: timings?.end, status: status, error: error.map(scrub),
            circuitState: annotations.circuitState, retryReason: annotations.retryReason,
            retryDelay: annotations.retryDelay.map(Self.seconds), notes: annotations.extra.mapValues(scrub))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
