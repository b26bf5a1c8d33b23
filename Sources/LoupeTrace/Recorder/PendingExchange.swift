import Foundation
import HTTPTypes
import Loupe

/// What the recorder has gathered about one exchange, still raw (unredacted, uncapped).
///
/// Turning it into a ``TraceExchange`` parses URLs and JSON bodies, so that happens in ``TraceWriter``'s
/// background task, never on the request path. Bodies are kept by reference (`Data` is copy-on-write), so
/// holding them here copies nothing.
///
/// Its optionals are spelled `Optional<…>` and every property is set once in ``init(_:messageCap:payloadCap:)``: a
/// `T?` property is implicitly set to `nil` before the initializer runs, and with such properties assigned again
/// the optimizer built the value in a temporary, then copied it out (every reference retained) and destroyed the
/// temporary, on the request path of every exchange.
struct PendingExchange: Sendable {
    var id: UUID
    var operation: String
    var method: String
    var url: String
    var startedAt: Date
    var appHeaders: HTTPFields
    var requestBody: Optional<Data>
    var replayOf: Optional<UUID>
    /// The adapter that recorded it, when not Loupe's client (``ExchangeStarted/adapter``).
    var adapter: Optional<String>
    /// The client's records, stored as they came with ``ExchangeFinished/attempts``.
    var attempts: [AttemptRecord]
    var events: [TraceEvent]
    // Set when the exchange finishes.
    var endedAt: Optional<Date>
    var outcome: ExchangeOutcome
    var finalResponse: Optional<HTTPResponse>
    var responseBody: Optional<Data>
    /// The whole body's size when ``responseBody`` is only its first bytes (a streamed body).
    var responseBodySize: Optional<Int>
    var error: Optional<String>
    /// Exchanges the recorder dropped just before this one, reported as an event so the gap is visible.
    var droppedBefore: Int
    /// The stream it carries, with its messages so far (bounded); nil for a request and response.
    var stream: Optional<ExchangeStreamKind>
    var messages: Optional<MessageKeeper>

    init(_ started: borrowing ExchangeStarted, messageCap: Int = 10_000, payloadCap: Int = 64 << 10) {
        // Borrowed, and the fields it keeps copied one by one: taken as it was, the whole record was copied for the call
        // (every reference it holds retained) and destroyed after, on the request path.
        stream = started.stream
        messages = started.stream != nil ? MessageKeeper(cap: messageCap, payloadCap: payloadCap) : nil
        id = started.exchangeID
        operation = started.operation
        method = started.request.method.rawValue
        // Joined from the request's parts, not `request.url?.absoluteString`: that parses the URL again on the
        // caller's path, and for a request the client built it gives back the same string.
        url = Self.joinedURL(
            scheme: started.request.scheme ?? "https", authority: started.request.authority ?? "",
            path: started.request.path ?? "/")
        startedAt = started.startedAt
        appHeaders = started.request.headerFields
        requestBody = started.requestBody
        replayOf = started.replayOf
        adapter = started.adapter
        attempts = []
        events = []
        endedAt = nil
        outcome = .clientError
        finalResponse = nil
        responseBody = nil
        responseBodySize = nil
        error = nil
        droppedBefore = 0
    }

    /// `scheme://authority` and `path` as one string, in one allocation: an interpolation appended four times,
    /// growing its buffer, on the request path of every exchange.
    static func joinedURL(scheme: String, authority: String, path: String) -> String {
        var (scheme, authority, path) = (scheme, authority, path)
        let count = scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count
        return String(unsafeUninitializedCapacity: count) { out in
            var written = 0
            func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
                (out.baseAddress! + written).initialize(from: base, count: bytes.count)
                written += bytes.count
            }
            scheme.withUTF8(copy)
            StaticString("://").withUTF8Buffer(copy)
            authority.withUTF8(copy)
            path.withUTF8(copy)
            return written
        }
    }

    /// The recorded form: redacted by name and by value (``RedactionPolicy/redact(exchange:alsoSent:)``), then
    /// bodies capped at `bodyCap` bytes.
    /// Takes what the client knows at the end of the exchange, and the drops to report with it.
    mutating func finish(with finished: ExchangeFinished, droppedBefore: Int) {
        endedAt = finished.endedAt
        outcome = finished.outcome
        finalResponse = finished.response
        responseBody = finished.responseBody
        responseBodySize = finished.responseBodySize
        error = finished.error.map { String(describing: $0) }
        attempts = finished.attempts
        self.droppedBefore = droppedBefore
    }

    func makeTrace(policy: RedactionPolicy, bodyCap: Int) -> TraceExchange {
        var traces: [TraceExchange] = []
        var exchange = self
        exchange.appendTrace(to: &traces, policy: policy, bodyCap: bodyCap)
        return traces[0]
    }

    /// ``makeTrace(policy:bodyCap:)`` built where it is kept, at the end of the writer's batch: built as a local,
    /// redacted and returned, the exchange (some thirty references) was copied and the copy destroyed twice, after
    /// it was built and when it was returned (retains and releases of each). Appended at once and
    /// changed in place there, it is only moved.
    ///
    /// `mutating`, though it changes nothing, so that the exchange is reached in place inside its box
    /// (``ExchangeBox``): called on a class's `var` without it, the compiler copied the exchange out first (every
    /// reference it holds retained, then released, on every exchange).
    mutating func appendTrace(to traces: inout [TraceExchange], policy: RedactionPolicy, bodyCap: Int) {
        // Record the headers that went on the wire (after middleware added auth, tracing and so on) when an
        // attempt was made; a short-circuited exchange only has the app's own.
        let requestFields = attempts.last?.sentRequest.headerFields ?? appHeaders
        // A rule or an edit changed the last attempt's request below the middleware: the exchange records what
        // was sent, and what was asked for goes beside it. Nearly every exchange skips this (one pointer test).
        var method = method, url = url, requestBody = requestBody, beforeRule: TraceRequest? = nil
        if let last = attempts.last, let wire = last.wire {
            let asked = last.request
            beforeRule = TraceRequest(
                method: asked.method.rawValue,
                url: Self.joinedURL(scheme: asked.scheme ?? "https", authority: asked.authority ?? "", path: asked.path ?? "/"),
                headers: Self.headers(asked.headerFields),
                body: wire.body == nil ? nil : requestBody.map { TraceBody(data: $0, size: $0.count, isTruncated: false) })
            method = wire.head.method.rawValue
            url = Self.joinedURL(
                scheme: wire.head.scheme ?? "https", authority: wire.head.authority ?? "", path: wire.head.path ?? "/")
            if let sent = wire.body { requestBody = sent }
        }
        var events = events
        // Made here, on the writer's task, not by the adapter on the request path (one lock fewer per request). A
        // built-in adapter's event is fixed text made in Loupe's code, with nothing from the traffic or the app, so
        // it is added after redaction (scanning its sentence for credentials and URLs was work for nothing);
        // another adapter's name is the app's text and is redacted with the rest.
        let fixedAdapterEvent = adapter.flatMap { Self.builtInAdapterEvent($0, at: startedAt) }
        if let adapter, fixedAdapterEvent == nil { events.insert(Self.adapterEvent(adapter, at: startedAt), at: 0) }
        if droppedBefore > 0 {
            events.insert(TraceEvent(
                kind: .recorderDrop, at: startedAt,
                message: "The recorder dropped \(Quantity.count(droppedBefore, "exchange")) before this one: it was over capacity.",
                attributes: ["count": String(droppedBefore)]), at: 0)
        }
        // A GraphQL request the app left unnamed takes its operation's name; `errors` in its 200 make it an error.
        let named = Self.graphQLNamed(operation, method: method, url: url, body: requestBody)
        var outcome = self.outcome, error = self.error
        if named != operation, outcome == .success, let message = GraphQLOperation.errorMessage(in: responseBody) {
            outcome = .httpError
            error = "GraphQL error: " + message
        }
        // Redacted in place: nothing else holds this exchange or its lists.
        traces.append(TraceExchange(
            id: id, operation: named, method: method, url: url, startedAt: startedAt,
            endedAt: endedAt, outcome: outcome, status: finalResponse.map { $0.status.code } ?? attempts.last?.status,
            error: error, requestHeaders: Self.headers(requestFields),
            requestBody: requestBody.map { TraceBody(data: $0, size: $0.count, isTruncated: false) },
            responseHeaders: finalResponse.map { Self.headers($0.headerFields) } ?? [],
            responseBody: responseBody.map { Self.body($0, size: responseBodySize) },
            attempts: attempts.map(TraceAttempt.init), events: events, replayOf: replayOf, stream: traceStream(events: events),
            beforeRule: beforeRule))
        // Credentials sent on earlier attempts (a token refreshed since, say) are scrubbed too; only the fields the
        // policy names can hold one, so only those are converted.
        // Gathered field by field: no list is made for a set of fields with none of those (the app's own fields
        // on most requests).
        var alsoSent: [[TraceHeader]] = []
        func gather(_ fields: HTTPFields) {
            var named: [TraceHeader] = []
            for field in fields where policy.headerNames.contains(field.name.rawName) {
                named.append(TraceHeader(name: field.name.rawName, value: field.value))
            }
            if !named.isEmpty { alsoSent.append(named) }
        }
        for attempt in attempts.dropLast() { gather(attempt.request.headerFields) }
        gather(appHeaders)
        Self.finish(&traces[traces.count - 1], policy: policy, alsoSent: alsoSent, fixedAdapterEvent: fixedAdapterEvent,
                    droppedBefore: droppedBefore, bodyCap: bodyCap)
    }

    /// Redaction, the built-in adapter's event and the bodies' cap, on the exchange where it is kept.
    private static func finish(_ trace: inout TraceExchange, policy: RedactionPolicy, alsoSent: [[TraceHeader]],
                               fixedAdapterEvent: TraceEvent?, droppedBefore: Int, bodyCap: Int) {
        policy.redact(&trace, alsoSent: alsoSent)
        if let fixedAdapterEvent { trace.events.insert(fixedAdapterEvent, at: droppedBefore > 0 ? 1 : 0) }
        trace.requestBody = capped(trace.requestBody, cap: bodyCap)
        if let body = trace.beforeRule?.body { trace.beforeRule?.body = capped(body, cap: bodyCap) }
        trace.responseBody = capped(trace.responseBody, cap: bodyCap)
    }

    /// The event saying which adapter recorded the exchange.
    static func adapterEvent(_ adapter: String, at: Date) -> TraceEvent {
        TraceEvent(
            kind: .adapter, at: at,
            message: "Recorded by Loupe's \(adapter) adapter around the app's own networking stack, not sent by Loupe's client.",
            attributes: ["adapter": adapter])
    }

    /// The built-in adapters' events, worded once; `nil` for an adapter of the app's own.
    /// A request the app left with its endpoint's default name (`POST /graphql`) that carries a GraphQL operation
    /// is named by it (`query GetUser`): done here, on the writer's task, so every reader gets the name from the
    /// store without parsing bodies. Requests that cannot be GraphQL cost a comparison or two.
    static func graphQLNamed(_ operation: String, method: String, url: String, body: Data?) -> String {
        guard method == "POST" || (method == "GET" && FilterText.containsBytes(url, "query")),
              operation.isEmpty || isDefaultName(operation, method: method),
              let name = GraphQLOperation.name(method: method, url: url, body: body) else { return operation }
        return name
    }

    /// Whether `operation` is the client's default name for a request, `METHOD /path`, compared byte by byte:
    /// `hasPrefix` and a dropped-prefix view of the UTF-8 cost more than the rest of the check, on every exchange.
    static func isDefaultName(_ operation: String, method: String) -> Bool {
        var bytes = operation.utf8.makeIterator()
        for byte in method.utf8 where bytes.next() != byte { return false }
        return bytes.next() == UInt8(ascii: " ") && bytes.next() == UInt8(ascii: "/")
    }

    static func builtInAdapterEvent(_ adapter: String, at: Date) -> TraceEvent? {
        guard let event = builtInAdapterEvents[adapter] else { return nil }
        var timed = event
        timed.at = at
        return timed
    }

    private static let builtInAdapterEvents: [String: TraceEvent] = Dictionary(uniqueKeysWithValues: [
        RecordingAdapter.openAPIMiddleware, RecordingAdapter.asyncHTTPClient, RecordingAdapter.urlSession,
    ].map { ($0, adapterEvent($0, at: Date(timeIntervalSince1970: 0))) })

    /// The stream as recorded (before redaction): its kept messages, counts, and how it closed, from the last
    /// `stream-close` event.
    func traceStream(events: [TraceEvent]) -> TraceStream? {
        guard let stream, let messages else { return nil }
        let close = events.last { $0.kind == .streamClose }
        let kept = messages.kept.map { raw in
            TraceMessage(index: raw.index, direction: raw.direction, at: raw.at, type: raw.type, size: raw.size,
                         payload: raw.payload, isTruncated: raw.size > raw.payload.count, eventID: raw.eventID)
        }
        return TraceStream(
            kind: stream, messages: kept, sentCount: messages.sent, receivedCount: messages.received,
            omittedCount: messages.omitted, byteCount: messages.bytes,
            closeCode: close?.attributes["code"].flatMap { Int($0) }, closeReason: close?.attributes["reason"],
            closedBy: close?.attributes["by"] ?? (endedAt != nil && outcome == .cancelled ? "client" : nil))
    }

    /// `data` as a recorded body: a prefix of a larger streamed body when `size` says so.
    static func body(_ data: Data, size: Int?) -> TraceBody {
        let size = max(size ?? data.count, data.count)
        return TraceBody(data: data, size: size, isTruncated: size > data.count)
    }

    /// The body cut at `cap` bytes, keeping the size of the whole body (redaction happened before the cut, so a
    /// secret cannot survive because the cut made the JSON unrecognisable).
    static func capped(_ body: TraceBody?, cap: Int) -> TraceBody? {
        body?.capped(at: cap)
    }

    private static func headers(_ fields: HTTPFields) -> [TraceHeader] {
        fields.map { TraceHeader(name: $0.name.rawName, value: $0.value) }
    }
}

/// Replaces the raw URL, and its path and query, with their redacted forms inside free text.
///
/// Operation names (the client's default is `METHOD /path?query`), error descriptions and event messages often
/// quote the request; a secret query item must not survive there after being redacted from the URL itself.
package struct Scrubber {
    private var replacements: [(String, String)] = []

    package init(url: String, redactedURL: String) {
        include(url: url, redactedURL: redactedURL)
    }

    /// Replaces `url` too (the request before a rule changed it, beside the one sent).
    package mutating func include(url: String, redactedURL: String) {
        guard url != redactedURL else { return }
        replacements.append((url, redactedURL))
        if let raw = URLComponents(string: url), let redacted = URLComponents(string: redactedURL) {
            let rawTail = Self.pathAndQuery(raw)
            let redactedTail = Self.pathAndQuery(redacted)
            if rawTail != redactedTail { replacements.append((rawTail, redactedTail)) }
        }
    }

    package func callAsFunction(_ text: String) -> String {
        replacements.reduce(text) { text, pair in text.replacingOccurrences(of: pair.0, with: pair.1) }
    }

    private static func pathAndQuery(_ components: URLComponents) -> String {
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }
}
