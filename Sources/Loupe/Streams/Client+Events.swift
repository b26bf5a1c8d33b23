import Foundation
import HTTPTypes
import Synchronization

/// How ``Client/events(_:options:stream:)`` reconnects.
public struct EventStreamOptions: Sendable {
    /// The wait before reconnecting until the server sets its own with `retry:` (WHATWG leaves the default to the
    /// client; browsers use a few seconds).
    public var reconnectDelay: Duration
    /// Reconnections in a row without an event between them before the stream gives up; nil for no limit.
    public var maxReconnects: Int?
    /// The `Last-Event-ID` of the first connection (resuming a stream read before); nil for none.
    public var lastEventID: String?
    /// Reconnections in all before the stream gives up, events or not; nil for no limit.
    public var maxTotalReconnects: Int?
    /// What the server's `retry:` is held within: a `retry: 0` waits the lower bound (default 250 ms), a retry of
    /// days the upper one (default 1 hour).
    public var retryRange: ClosedRange<Duration>
    /// The longest wait when connections keep ending at once and the wait doubles. Default 30 s.
    public var maxBackoff: Duration

    public init(reconnectDelay: Duration = .seconds(3), maxReconnects: Int? = 10, lastEventID: String? = nil,
                maxTotalReconnects: Int? = 1000, retryRange: ClosedRange<Duration> = .milliseconds(250) ... .seconds(3600),
                maxBackoff: Duration = .seconds(30)) {
        self.reconnectDelay = max(.zero, reconnectDelay)
        self.maxReconnects = maxReconnects.map { max(0, $0) }
        self.lastEventID = lastEventID
        self.maxTotalReconnects = maxTotalReconnects.map { max(0, $0) }
        self.retryRange = max(.zero, retryRange.lowerBound) ... max(.zero, retryRange.upperBound)
        self.maxBackoff = max(.zero, maxBackoff)
    }
}

/// The response to an event-stream request was not a `text/event-stream`: the stream fails without reconnecting,
/// as WHATWG's "fail the connection" says.
public struct NotAnEventStreamError: Error, CustomStringConvertible {
    public var contentType: String?
    public var description: String {
        "the response is not an event stream (Content-Type: \(contentType ?? "none"), expected text/event-stream)"
    }
}

extension Client {
    /// Opens the endpoint as a server-sent event stream and returns its events as they arrive.
    ///
    /// The whole stream is one exchange: each connection is one attempt through the middleware chain, so auth
    /// refresh, the breaker, retry (of a connection that fails before its head) and the recorder apply as to any
    /// request. When a stream ends or drops, the client waits the server's `retry:` (held within
    /// ``EventStreamOptions/retryRange``; else ``EventStreamOptions/reconnectDelay``), longer when connections keep
    /// ending at once, on the client's clock and connects again with `Last-Event-ID`, at most
    /// ``EventStreamOptions/maxTotalReconnects`` times; an event larger than 16 MiB is dropped and recorded
    /// (`stream-drop`), never delivered cut; a
    /// `204` ends the stream quietly, another non-2xx status fails it with ``ClientError``, as does a response that
    /// is not `text/event-stream`. Each event is reported to the observer as a received message. Cancelling the
    /// task that iterates, or dropping the sequence, closes the connection.
    public func events<E: Endpoint>(_ endpoint: E, options: RequestOptions = RequestOptions(),
                                    stream: EventStreamOptions = EventStreamOptions()) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        do {
            let (request, body) = try makeRequest(endpoint)
            var options = options
            options.operation = options.operation ?? endpoint.operationName
            options.timeout = options.timeout ?? endpoint.timeout
            return events(request, body: body, options: options, stream: stream)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: ClientError(
                operation: endpoint.operationName, request: nil, stage: .encoding, underlyingError: error)) }
        }
    }

    /// ``events(_:options:stream:)`` for a request built by hand.
    public func events(_ request: HTTPRequest, body: RequestBody? = nil, options: RequestOptions = RequestOptions(),
                       stream: EventStreamOptions = EventStreamOptions()) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        // Unbounded: the connection is read as fast as it comes so the stream (and its recording) never waits on
        // a slow reader; a reader that never reads holds what arrived, as a browser's EventSource does.
        let (events, continuation) = AsyncThrowingStream.makeStream(of: ServerSentEvent.self)
        let session = EventStreamSession(options: stream, continuation: continuation)
        let client = Client(
            baseURL: baseURL, transport: EventStreamTransport(base: transport, session: session),
            middlewares: [EventStreamReconnector(session: session)] + middlewares, observer: observer,
            configuration: configuration)
        var options = options
        options.timeout = options.timeout ?? configuration.timeout
        options.stream = .eventStream
        var metadata = RequestMetadata.current
        metadata.streamsResponseBody = true  // no cache may store or serve a stream
        let task = Task { [metadata, options] in
            do {
                _ = try await RequestMetadata.$current.withValue(metadata) {
                    try await client.perform(request, body: body, options: options, validate: true) { $0.fullBodySize }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return events
    }
}

/// What the connections of one event stream share: the parser's last event ID and retry, and how the last
/// connection ended.
final class EventStreamSession: Sendable {
    struct State {
        var lastEventID: String?
        /// The stream's last `retry:`, in milliseconds as the server sent it (``EventStreamReconnection`` holds it
        /// within range).
        var retry: Int?
        /// Events the current connection delivered.
        var delivered = 0
        /// Whether the current connection was accepted as an event stream (and so may be reconnected).
        var streamed = false
        /// Why it ended: "ended" for a close by the server, else the error.
        var endReason = ""
    }

    let options: EventStreamOptions
    let continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    let state: Mutex<State>

    init(options: EventStreamOptions, continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation) {
        self.options = options
        self.continuation = continuation
        self.state = Mutex(State(lastEventID: options.lastEventID, retry: nil))
    }
}

/// The outermost middleware of an event stream: sets `Accept` and `Last-Event-ID`, and calls the chain again
/// after a connection that streamed ends, after the wait ``EventStreamReconnection`` sets. Each call is one attempt.
struct EventStreamReconnector: ClientMiddleware {
    let session: EventStreamSession

    nonisolated(nonsending) func intercept(_ request: HTTPRequest, body: RequestBody?, context: RequestContext,
                   next: Next) async throws -> RawResponse {
        var schedule = EventStreamReconnection(options: session.options)
        while true {
            let opened = ElapsedTime(context.clock)
            var request = request
            let lastID = session.state.withLock { state in
                state.delivered = 0
                state.streamed = false
                state.endReason = ""
                return state.lastEventID
            }
            if request.headerFields[.accept] == nil { request.headerFields[.accept] = "text/event-stream" }
            request.headerFields[.cacheControl] = "no-store"
            if let lastID { request.headerFields[Self.lastEventID] = lastID } else { request.headerFields[Self.lastEventID] = nil }
            var reason: String
            var streamed = false
            do {
                let response = try await next(request, body, context)
                let ended: String
                (streamed, ended) = session.state.withLock { ($0.streamed, $0.endReason) }
                guard streamed else { return response }  // 204, an error status, a middleware's answer: final
                reason = ended
            } catch {
                if Task.isCancelled || error is CancellationError || (error as? TransportError)?.kind == .cancelled { throw error }
                // Only a network failure reconnects; anything else (not an event stream, a short circuit) is final.
                guard error is TransportError else { throw error }
                reason = String(describing: error)
            }
            let (delivered, retry, id) = session.state.withLock { ($0.delivered, $0.retry, $0.lastEventID) }
            let delay: Duration
            switch schedule.connectionEnded(delivered: delivered, lasted: opened.elapsed(), streamed: streamed,
                                            serverRetry: retry, reason: reason) {
            case .reconnect(let wait): delay = wait
            case .giveUp(let why): throw TransportError(.connectionReset, why)
            }
            var attributes = ["reason": reason, "delayMs": delay.storedMilliseconds, "reconnects": String(schedule.reconnects)]
            if let id { attributes["lastEventID"] = id }
            context.record(.streamReconnect, "the event stream \(reason == "ended" ? "was closed by the server" : "dropped: \(reason)"); reconnecting in \(Quantity.duration(delay))", attributes: attributes)
            try await context.clock.sleep(for: delay)
        }
    }

    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}

/// The bottom of an event stream's chain: streams the response through ``EventStreamParser``, hands each event to
/// the sequence and the observer, and returns when the connection ends (a drop is not thrown: the reconnector
/// decides). A transport that cannot stream has its body collected, then parsed.
struct EventStreamTransport: ClientTransport {
    let base: any ClientTransport
    let session: EventStreamSession

    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        let response: StreamedResponse
        if let streaming = base as? any StreamingClientTransport {
            response = try await streaming.stream(request, body: body, context: context)
        } else {
            let raw = try await base.send(request, body: body, context: context)
            let (chunks, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
            continuation.yield(raw.body)
            continuation.finish()
            response = StreamedResponse(head: raw.head, body: chunks, httpVersion: raw.httpVersion)
        }
        guard response.head.status == .ok else {
            // 204 (stop), redirects the transport did not follow, errors: not a stream, returned whole and bounded.
            return try await response.collect(upTo: 1 << 20)
        }
        let contentType = response.head.headerFields[.contentType]
        guard let contentType, contentType.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "text/event-stream" else {
            throw NotAnEventStreamError(contentType: contentType)
        }
        var parser = EventStreamParser(lastEventID: session.state.withLock { state in
            state.streamed = true
            return state.lastEventID
        })
        context.record(.streamOpen, "event stream opened", attributes: ["attempt": String(context.attempt?.number ?? 0)])
        var prefix = Data()
        var size = 0
        var dropped = 0
        var ending = "ended"
        do {
            for try await chunk in response.body {
                if prefix.count < Self.keptPrefix { prefix.append(chunk.prefix(Self.keptPrefix - prefix.count)) }
                size += chunk.count
                let events = parser.feed(chunk)
                if parser.droppedEvents > dropped {
                    dropped = parser.droppedEvents
                    context.record(.streamEventDropped,
                                   "an event over \(Quantity.bytes(parser.maxLineBytes)) was dropped (\(Quantity.count(dropped, "event")) so far)",
                                   attributes: ["dropped": String(dropped), "maxBytes": String(parser.maxLineBytes)])
                }
                guard !events.isEmpty else { continue }
                let retry = parser.retry
                session.state.withLock { state in
                    state.delivered += events.count
                    state.lastEventID = parser.lastEventID
                    state.retry = retry ?? state.retry
                }
                for event in events {
                    context.recordMessage(.received, type: event.type, payload: Data(event.data.utf8), eventID: event.id)
                    session.continuation.yield(event)
                }
            }
            // A stream also ends quietly when its reader is cancelled.
            try Task.checkCancellation()
        } catch {
            if Task.isCancelled || error is CancellationError {
                context.record(.streamClose, "the client closed the event stream", attributes: ["by": "client"])
                throw CancellationError()
            }
            ending = String(describing: error)
        }
        let retry = parser.retry
        session.state.withLock { state in
            state.endReason = ending
            state.lastEventID = parser.lastEventID
            state.retry = retry ?? state.retry
        }
        // A drop carries its reason, so the record tells a stream cut by the network from one the server ended.
        context.record(.streamClose, ending == "ended" ? "the server closed the event stream" : "the event stream dropped: \(ending)",
                       attributes: ending == "ended" ? ["by": "server"] : ["by": "server", "reason": ending])
        return RawResponse(head: response.head, body: prefix, httpVersion: response.httpVersion, bodySize: size)
    }

    /// How much of the raw stream is kept as the exchange's body (the events are recorded one by one besides).
    static let keptPrefix = 64 << 10
}
