import Foundation
import Loupe
import LoupeTrace

/// Turns recorded exchanges into HAR 1.2 entries that other tools read, with Loupe's whole record in `_loupe`.
///
/// Standard fields carry what HAR has words for: method, URL, headers (in order, names as recorded), query
/// items, cookies (from headers that were not redacted), bodies (as text, or base64 when not UTF-8), status,
/// and timings from the final attempt. Phases Loupe did not observe are `-1`, and `time` is the sum of the known
/// ones:
///
/// - `blocked`: from the exchange's start to the final attempt's (earlier attempts, back-off, throttling);
/// - `send`: attempt start → request sent; `wait`: request sent (or attempt start) → first byte;
///   `receive`: first byte → end. When the first byte was not observed but the end was, `wait` covers the whole
///   rest of the attempt and the timings' `comment` says so, so that `time` still adds up to the duration;
/// - `dns`, `connect`, `ssl`: `-1` (transports do not report them).
///
/// An exchange that got no response has status `0` and an empty status text, as browsers write it. Nothing is
/// redacted here: the store holds exchanges already redacted, and nothing removed there is put back.
public struct HARExporter: Sendable {
    /// The `creator` written into the log.
    public var creator: HARCreator

    /// This library's version, written as the creator's version.
    public static let loupeVersion = LoupeVersion.current

    public init(creator: HARCreator = HARCreator(name: "Loupe", version: HARExporter.loupeVersion)) {
        self.creator = creator
    }

    /// A whole document for `exchanges`, in order.
    public func document(for exchanges: some Sequence<TraceExchange>) -> HARDocument {
        HARDocument(log: HARLog(creator: creator, entries: exchanges.map(entry(for:))))
    }

    /// The HAR file's bytes for `exchanges`, as `HARWriter` writes them.
    public func data(for exchanges: some Sequence<TraceExchange>) throws -> Data {
        var output = Data()
        var writer = HARWriter(creator: creator) { output.append($0) }
        try writer.begin()
        for exchange in exchanges { try writer.append(exchange) }
        try writer.finish()
        return output
    }

    /// One entry.
    public func entry(for exchange: TraceExchange) -> HAREntry {
        // Phases are computed from times on the microsecond grid `_loupe` stores, so a re-import exports the same bytes.
        let exchange = HARImporter.onMicrosecondGrid(exchange)
        let timings = Self.timings(for: exchange)
        return HAREntry(
            startedDateTime: HARDate.string(from: exchange.startedAt), time: Self.rounded(timings.knownTotal),
            request: Self.request(for: exchange), response: Self.response(for: exchange), timings: timings,
            loupe: HARLoupeEntry(
                id: exchange.id, operation: exchange.operation, outcome: exchange.outcome.rawValue,
                status: exchange.status, error: exchange.error, replayOf: exchange.replayOf,
                startedAt: exchange.startedAt, endedAt: exchange.endedAt,
                requestBody: exchange.requestBody.map { HARLoupeBody(size: $0.size, truncated: $0.isTruncated) },
                responseBody: exchange.responseBody.map { HARLoupeBody(size: $0.size, truncated: $0.isTruncated) },
                attempts: exchange.attempts, events: exchange.events, source: exchange.source,
                stream: exchange.stream.map(HARLoupeStream.init)),
            resourceType: exchange.stream.map(\.kind.harResourceType),
            webSocketMessages: exchange.stream.flatMap { $0.kind == .webSocket ? $0.messages.map(HARWebSocketMessage.init) : nil })
    }

    // MARK: Parts

    /// HTTP versions are not recorded; HAR has no "unknown", and browsers write an empty string for it.
    static let unknownHTTPVersion = ""

    static func request(for exchange: TraceExchange) -> HARRequest {
        let headers = exchange.requestHeaders
        let contentType = HARHeaders.value(of: "content-type", in: headers)
        let postData = exchange.requestBody.map { body in
            let (text, encoding) = HARBodyText.encode(body.data)
            return HARPostData(mimeType: contentType ?? "application/octet-stream", text: text, encoding: encoding,
                               comment: truncationComment(body))
        }
        return HARRequest(
            method: exchange.method, url: exchange.url, httpVersion: unknownHTTPVersion,
            cookies: HARHeaders.requestCookies(headers), headers: headers.map(HARHeaders.nameValue),
            queryString: HARQueryItems.items(of: exchange.url), postData: postData,
            bodySize: exchange.requestBody?.size ?? 0)
    }

    static func response(for exchange: TraceExchange) -> HARResponse {
        let headers = exchange.responseHeaders
        guard exchange.status != nil || !headers.isEmpty || exchange.responseBody != nil else { return .none }
        let status = exchange.status ?? 0
        let contentType = HARHeaders.value(of: "content-type", in: headers)
        var content = HARContent(size: 0, mimeType: contentType ?? "x-unknown")
        if let body = exchange.responseBody {
            let (text, encoding) = HARBodyText.encode(body.data)
            content = HARContent(size: body.size, mimeType: contentType ?? "application/octet-stream", text: text,
                                 encoding: encoding, comment: truncationComment(body))
        }
        return HARResponse(
            status: status, statusText: HARStatusText.text(for: status), httpVersion: unknownHTTPVersion,
            cookies: HARHeaders.responseCookies(headers), headers: headers.map(HARHeaders.nameValue),
            content: content, redirectURL: HARHeaders.value(of: "location", in: headers) ?? "",
            bodySize: exchange.responseBody?.size ?? 0)
    }

    static func timings(for exchange: TraceExchange) -> HARTimings {
        timings(startedAt: exchange.startedAt, endedAt: exchange.endedAt, lastAttempt: exchange.attempts.last)
    }

    /// The timings of an exchange with these start and end and this final attempt.
    static func timings(startedAt: Date, endedAt: Date?, lastAttempt attempt: TraceAttempt?) -> HARTimings {
        guard let attempt else {
            // Nothing went on the wire (short-circuited): all the time was spent before sending.
            return HARTimings(blocked: span(startedAt, endedAt), send: -1, wait: -1, receive: -1)
        }
        let blocked = span(startedAt, attempt.startedAt)
        let send = span(attempt.startedAt, attempt.requestSentAt)
        let waitStart = attempt.requestSentAt ?? attempt.startedAt
        if attempt.firstByteAt == nil, attempt.endedAt != nil {
            return HARTimings(
                blocked: blocked, send: send, wait: span(waitStart, attempt.endedAt), receive: -1,
                comment: "The first byte was not observed: wait covers waiting and receiving.")
        }
        return HARTimings(
            blocked: blocked, send: send, wait: span(waitStart, attempt.firstByteAt),
            receive: span(attempt.firstByteAt, attempt.endedAt))
    }

    /// Milliseconds from `start` to `end` (to the microsecond); `-1` when either is unknown or they are reversed.
    static func span(_ start: Date?, _ end: Date?) -> Double {
        guard let start, let end else { return -1 }
        let milliseconds = end.timeIntervalSince(start) * 1000
        guard milliseconds >= 0, milliseconds.isFinite else { return -1 }
        return rounded(milliseconds)
    }

    static func rounded(_ milliseconds: Double) -> Double {
        (milliseconds * 1000).rounded() / 1000
    }

    static func truncationComment(_ body: TraceBody) -> String? {
        body.isTruncated ? "Loupe recorded the first \(body.data.count) of \(body.size) bytes." : nil
    }
}
