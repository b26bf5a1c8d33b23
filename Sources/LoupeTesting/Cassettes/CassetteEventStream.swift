import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import Synchronization

/// Server-sent event streams in a cassette: `client.events` through a ``CassetteTransport``.
///
/// Recorded, a stream is one interaction whatever its connections, as the flight recorder keeps it: its events are
/// the ``TraceStream`` messages (type, data, id), each connection an attempt (status, the `Last-Event-ID` it was
/// opened with, how many events it carried and how it ended, in the attempt's notes), and each `retry:` the server
/// sent a `stream-retry` event. Played, each connection answers with the events it carried, written back as
/// `text/event-stream` for the client's own parser, and ends as it ended: a cut or a close by the server makes
/// the client reconnect (with `Last-Event-ID`, which must be the recorded one), a close by the client leaves the
/// connection open until the client closes it again.
extension CassetteTransport: StreamingClientTransport {
    public func stream(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> StreamedResponse {
        if cassette.mode == .passthrough {
            let upstream = try requireUpstream(for: request.method.rawValue)
            if let streaming = upstream as? any StreamingClientTransport { return try await streaming.stream(request, body: body, context: context) }
            return StreamedResponse(response: try await upstream.send(request, body: body, context: context))
        }
        // A reconnection of a stream this cassette records or plays continues its interaction.
        if let entry = cassette.streamEntry(context.exchangeID) {
            if entry.recording != nil { return try await recordConnection(request, body: nil, context: context) }
            return try cassette.playConnection(of: entry, request: request, context: context)
        }
        let data = try await body?.collect()
        let live = cassette.storedRequest(request, body: data, operation: context.operation)
        switch cassette.plan(for: live) {
        case .play(let index, let exchange) where exchange.stream?.kind == .eventStream:
            return try cassette.playConnection(
                of: CassetteStreamTable.Entry(index: index, connections: 0, recording: nil), request: request, context: context)
        case .play(_, let exchange):
            return StreamedResponse(response: try played(exchange, context: context))
        case .fail(let error):
            throw error
        case .record:
            return try await recordConnection(request, body: data, context: context)
        }
    }

    /// Sends with the upstream; an event stream is recorded event by event as the client reads it, anything else
    /// whole, as ``send(_:body:context:)`` records.
    private func recordConnection(_ request: HTTPRequest, body data: Data?, context: RequestContext) async throws -> StreamedResponse {
        let upstream = try requireUpstream(for: "\(request.method.rawValue) \(TerminalText.line(Cassette.url(of: request)))")
        let startedAt = cassette.now()
        let response: StreamedResponse
        if let streaming = upstream as? any StreamingClientTransport {
            response = try await streaming.stream(request, body: data.map(RequestBody.data), context: context)
        } else {
            response = StreamedResponse(response: try await upstream.send(request, body: data.map(RequestBody.data), context: context))
        }
        let lastEventID = request.headerFields[Self.lastEventID]
        var attempt = TraceAttempt(number: 0, startedAt: startedAt, status: response.head.status.code)
        if let lastEventID { attempt.notes[Cassette.StreamNote.lastEventID] = lastEventID }
        if var recording = cassette.streamEntry(context.exchangeID)?.recording {
            // A reconnection: its connection joins the stream's interaction.
            attempt.number = recording.attempts.count + 1
            recording.attempts.append(attempt)
            recording.events.append(TraceEvent(
                kind: .streamReconnect, at: startedAt, message: "the client reconnected",
                attributes: lastEventID.map { ["lastEventID": $0] } ?? [:]))
            cassette.streams.withLock { table in
                table.entries[context.exchangeID]?.recording = recording
                table.entries[context.exchangeID]?.connections += 1
                table.open += 1
            }
        } else {
            guard Self.isEventStream(response.head) else {
                // Not a stream: recorded whole, as a request and response.
                let whole = try await response.collect()
                try cassette.record(cassette.exchange(request, body: data, response: whole, operation: context.operation, startedAt: startedAt))
                return StreamedResponse(response: whole)
            }
            attempt.number = 1
            var recording = cassette.exchange(
                request, body: data, response: RawResponse(head: response.head), operation: context.operation, startedAt: startedAt)
            recording.responseBody = nil
            recording.attempts = [attempt]
            recording.stream = TraceStream(kind: .eventStream)
            try cassette.beginRecording(recording, exchangeID: context.exchangeID)
        }
        guard Self.isEventStream(response.head) else {
            // A reconnection answered with something else (a 204 that ends the stream, an error): its status is kept.
            let whole = try await response.collect(upTo: 1 << 20)
            cassette.endRecordedConnection(context.exchangeID, end: .server, error: nil)
            return StreamedResponse(response: whole)
        }
        cassette.updateRecording(context.exchangeID) { recording in
            recording.events.append(TraceEvent(kind: .streamOpen, at: startedAt, message: "event stream opened",
                                               attributes: ["attempt": String(recording.attempts.count)]))
        }
        let (chunks, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let cassette = cassette
        let exchangeID = context.exchangeID
        let pump = Task {
            var parser = EventStreamParser(lastEventID: lastEventID)
            var knownRetry: Int?
            var end = CassetteConnectionEnd.server
            var failure: (any Error)?
            do {
                for try await chunk in response.body {
                    let events = parser.feed(chunk)
                    // Kept before the client sees them: once a test has read an event, the cassette holds it.
                    cassette.recordEvents(events, retry: parser.retry, knownRetry: &knownRetry, exchangeID: exchangeID)
                    continuation.yield(chunk)
                }
                if Task.isCancelled { end = .client }
            } catch {
                if Task.isCancelled || error is CancellationError {
                    end = .client
                } else {
                    end = .dropped
                    failure = error
                }
            }
            cassette.endRecordedConnection(exchangeID, end: end, error: failure.map { String(describing: $0) })
            continuation.finish(throwing: failure)
        }
        continuation.onTermination = { _ in pump.cancel() }
        return StreamedResponse(head: response.head, body: chunks, httpVersion: response.httpVersion)
    }

    static func isEventStream(_ head: HTTPResponse) -> Bool {
        head.status == .ok && head.headerFields[.contentType]?.lowercased().split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces) == "text/event-stream"
    }

    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}

extension StreamedResponse {
    /// A whole response as one that streams.
    init(response: RawResponse) {
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        if !response.body.isEmpty { continuation.yield(response.body) }
        continuation.finish()
        self.init(head: response.head, body: body, httpVersion: response.httpVersion)
    }
}

extension ExchangeEventKind {
    /// A server-sent event stream's `retry:` field, recorded by a cassette (attributes `retryMs`, `attempt`, and
    /// `message`, the index of the event it came with, or `beforeMessage` for a block with no data).
    static let streamRetry = Self(rawValue: "stream-retry")
}

// MARK: Recording

extension Cassette {
    /// An exchange for `request` answered by `response` (recorded form, before redaction).
    func exchange(_ request: HTTPRequest, body: Data?, response: RawResponse, operation: String, startedAt: Date) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: operation, method: request.method.rawValue, url: Self.url(of: request),
            startedAt: startedAt, endedAt: now(),
            outcome: response.status.code < 400 ? .success : .httpError, status: response.status.code,
            requestHeaders: Self.headers(request.headerFields),
            requestBody: body.map { TraceBody(data: $0, size: $0.count, isTruncated: false) },
            responseHeaders: Self.headers(response.head.headerFields),
            responseBody: TraceBody(data: response.body, size: response.body.count, isTruncated: false))
    }

    /// Adds a stream's interaction (saved at once, so a test stopped mid-stream leaves it) and opens its connection.
    func beginRecording(_ recording: TraceExchange, exchangeID: UUID) throws(CassetteError) {
        let stored = redactor.stored(recording)
        let index = try playlist.withLock { list throws(CassetteError) -> Int in
            list.append(stored)
            try CassetteFile.save(list.interactions, to: path)
            return list.interactions.count - 1
        }
        openConnection(exchangeID, CassetteStreamTable.Entry(index: index, connections: 1, recording: recording))
    }

    /// Changes the stream being recorded for `exchangeID`.
    func updateRecording(_ exchangeID: UUID, _ change: (inout TraceExchange) -> Void) {
        streams.withLock { table in
            guard var recording = table.entries[exchangeID]?.recording else { return }
            change(&recording)
            table.entries[exchangeID]?.recording = recording
        }
    }

    /// Records the events a chunk completed, and a `retry:` that came without one.
    func recordEvents(_ events: [ServerSentEvent], retry: Int?, knownRetry: inout Int?, exchangeID: UUID) {
        let at = now()
        var standalone: Int?
        // A `retry:` in a block with no data changes the reconnection time without an event to carry it.
        if let retry, retry != knownRetry, events.last(where: { $0.retry != nil })?.retry != retry { standalone = retry }
        knownRetry = retry
        guard !events.isEmpty || standalone != nil else { return }
        updateRecording(exchangeID) { recording in
            var stream = recording.stream ?? TraceStream(kind: .eventStream)
            let attempt = String(recording.attempts.count)
            for event in events {
                let payload = Data(event.data.utf8)
                let index = stream.messages.count
                if stream.messages.count < Self.messageCap {
                    stream.messages.append(TraceMessage(index: index, direction: .received, at: at, type: event.type,
                                                        size: payload.count, payload: payload, eventID: event.id))
                } else {
                    stream.omittedCount += 1
                }
                stream.receivedCount += 1
                stream.byteCount += payload.count
                if let retry = event.retry {
                    recording.events.append(TraceEvent(kind: .streamRetry, at: at, message: "retry: \(retry)",
                                                       attributes: ["retryMs": String(retry), "attempt": attempt, "message": String(index)]))
                }
            }
            if let standalone {
                recording.events.append(TraceEvent(
                    kind: .streamRetry, at: at, message: "retry: \(standalone)",
                    attributes: ["retryMs": String(standalone), "attempt": attempt, "beforeMessage": String(stream.receivedCount)]))
            }
            let connection = recording.attempts.count - 1
            if recording.attempts.indices.contains(connection) {
                let count = Int(recording.attempts[connection].notes[StreamNote.messages] ?? "0") ?? 0
                recording.attempts[connection].notes[StreamNote.messages] = String(count + events.count)
            }
            recording.stream = stream
        }
    }

    /// The current connection of the stream recorded for `exchangeID` ended: noted, and the cassette saved.
    func endRecordedConnection(_ exchangeID: UUID, end: CassetteConnectionEnd, error: String?) {
        var recording: TraceExchange?
        updateRecording(exchangeID) { exchange in
            let at = now()
            let last = exchange.attempts.count - 1
            if exchange.attempts.indices.contains(last) {
                exchange.attempts[last].endedAt = at
                exchange.attempts[last].error = error
                exchange.attempts[last].notes[StreamNote.end] = end.rawValue
                if exchange.attempts[last].status == 200 {
                    exchange.events.append(TraceEvent(
                        kind: .streamClose, at: at,
                        message: end == .client ? "the client closed the event stream"
                            : end == .server ? "the server closed the event stream" : "the event stream dropped: \(error ?? "")",
                        attributes: end == .dropped ? ["by": "server", "reason": error ?? "dropped"]
                            : ["by": end == .client ? "client" : "server"]))
                }
                exchange.status = exchange.attempts[last].status
            }
            exchange.endedAt = at
            exchange.stream?.closedBy = end == .client ? "client" : "server"
            // As the client records a drop: the reason says it was cut.
            exchange.stream?.closeReason = end == .dropped ? error ?? "dropped" : nil
            recording = exchange
        }
        closeConnection(exchangeID, recording: recording)
    }

    /// Messages a cassette keeps of one stream; past it the rest are counted and the recording cannot be played
    /// (``unplayable(_:number:path:)``): a bound on a test that records a stream that never ends.
    static let messageCap = 100_000
}
