import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeTrace
import NIOCore
import NIOHTTP1
import Synchronization

/// Answers each request with the recording that matches it (Hummingbird's responder: the server under it handles
/// keep-alive, pipelining and malformed requests).
///
/// A miss is answered 404 with the closest recording and why it did not match, unless ``ServeOptions/passthrough``
/// names a server: then, and only then, the request goes out, and its answer is recorded and served from then on.
package final class ServeResponder: HTTPResponder, Sendable {
    package typealias Context = BasicRequestContext

    /// The path that starts every sequence over (`POST`).
    package static let resetPath = "/__loupe/reset"

    let library: ServeLibrary
    let book: Mutex<ServeBook>
    let options: ServeOptions
    /// Called with one line per request (`GET /items → 200 #3`).
    let log: @Sendable (String) -> Void
    let now: @Sendable () -> Date
    /// Writes served exchanges into ``ServeOptions/store`` in batches, in the background.
    let recorder: TraceWriter<TraceExchange>?

    package init(library: ServeLibrary, options: ServeOptions, log: @escaping @Sendable (String) -> Void,
                 now: @escaping @Sendable () -> Date = Date.init) {
        self.library = library
        self.book = Mutex(ServeBook(library.requests, matching: options.matching, repeatPolicy: options.repeatPolicy))
        self.options = options
        self.log = log
        self.now = now
        let defaults = NetworkTraceInspector.Configuration()
        let redaction = options.redaction
        self.recorder = options.store.map { store in
            TraceWriter(store: store, settings: .init(capacity: max(1, options.recordingQueue), batchSize: defaults.batchSize,
                                                      flushInterval: defaults.flushInterval, clock: ContinuousClock()),
                        prepare: { batch in batch.map { redaction.redact(exchange: $0) } })
        }
    }

    /// Served exchanges the store could not take in time (the writer's queue was full), dropped.
    package var droppedRecordings: Int { recorder?.droppedCount ?? 0 }

    /// Writes what is queued for the store and stops the writer.
    package func finishRecording() async {
        await recorder?.shutdown()
    }

    /// Starts every sequence over.
    package func reset() {
        book.withLock { $0.reset() }
    }

    package func respond(to request: Request, context: Context) async throws -> Response {
        let started = now()
        let target = request.head.path ?? "/"
        let shownTarget = ServeMatching.shown(request.method.rawValue) + " " + TerminalText.line(target.prefix(200))
        if request.method == .post, ServeRequest.split(target).path == Self.resetPath {
            reset()
            log("\(shownTarget) → 200 reset: every sequence starts over")
            return Self.text(.ok, "reset\n")
        }
        if let announced = request.headers[.contentLength].flatMap(Int.init), announced > options.maximumRequestBody {
            log("\(shownTarget) → 413 body of \(announced) bytes announced, more than \(options.maximumRequestBody)")
            return Self.text(.contentTooLarge, "loupe serve: request body larger than \(options.maximumRequestBody) bytes\n", close: true)
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: options.maximumRequestBody)
        } catch {
            log("\(shownTarget) → 413 body larger than \(options.maximumRequestBody) bytes")
            return Self.text(.contentTooLarge, "loupe serve: request body larger than \(options.maximumRequestBody) bytes\n", close: true)
        }
        let asked = liveExchange(request, body: Data(body.readableBytesView), at: started)
        var live = ServeRequest(asked)
        // An upgrade the WebSocket handshake did not take (no recorded conversation matched) is still a WebSocket's
        // request: it misses rather than taking a plain recording of the same path.
        live.webSocket = request.headers[.upgrade]?.lowercased().contains("websocket") ?? false
        switch book.withLock({ $0.take(live) }) {
        case .serve(let index):
            guard let recorded = try? library.exchange(at: index), let answer = ServeAnswer(recorded) else {
                log("\(shownTarget) → 500 recording #\(index + 1) could not be read")
                return Self.text(.internalServerError, "loupe serve: recording #\(index + 1) could not be read\n")
            }
            let final = await options.rules?.apply(answer, to: live) ?? answer
            record(asked, answer: final, event: ["recording": "#\(index + 1)"], message: "served recording #\(index + 1)")
            if let stream = final.stream, stream.kind == .eventStream {
                let events = ServeEventStream(stream, start: final.streamStart, pace: options.pace)
                log("\(shownTarget) → \(final.status) #\(index + 1) (\(Quantity.count(events.blocks.count, "event")))")
                return Self.eventStream(final, events)
            }
            log("\(shownTarget) → \(final.status) #\(index + 1)" + (final.truncated ? " (body cut where the recorder capped it)" : "")
                + (final.ruleActed ? " (a rule changed it)" : ""))
            return await paced(final)
        case .miss(let miss):
            if let upstream = options.passthrough {
                return await passThrough(asked, live: live, to: upstream, shownTarget: shownTarget)
            }
            let answer = ServeAnswer(status: 404, headers: [TraceHeader(name: "Content-Type", value: "text/plain; charset=utf-8")],
                                     body: Data(miss.message.utf8))
            let final = await options.rules?.apply(answer, to: live) ?? answer
            record(asked, answer: final, event: ["miss": miss.short], message: "miss: " + miss.short)
            log("\(shownTarget) → \(final.status) miss: \(miss.short)" + (final.ruleActed ? " (a rule changed it)" : ""))
            return Self.response(final)
        }
    }

    /// The request as the recorder would have stored it: redacted as the store's recordings were, so both compare.
    private func liveExchange(_ request: Request, body: Data, at started: Date) -> TraceExchange {
        let headers = request.headers.map { TraceHeader(name: $0.name.rawName, value: $0.value) }
        let authority = request.head.authority ?? "127.0.0.1"
        let exchange = TraceExchange(
            id: UUID(), operation: "", method: request.method.rawValue,
            url: "http://" + authority + (request.head.path ?? "/"), startedAt: started, outcome: .success,
            requestHeaders: headers, requestBody: body.isEmpty ? nil : TraceBody(data: body, size: body.count, isTruncated: false))
        return options.redaction.redact(exchange: exchange)
    }

    /// Sends a miss to `upstream` (the recorded path and query on its scheme, host and port), records its answer as
    /// a new recording and returns it.
    private func passThrough(_ asked: TraceExchange, live: ServeRequest, to upstream: URL, shownTarget: String) async -> Response {
        var outgoing = HTTPClientRequest(url: Self.join(upstream, live.pathAndQuery))
        outgoing.method = .init(rawValue: asked.method)
        for header in asked.requestHeaders where !["host", "content-length", "connection"].contains(header.name.lowercased()) {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        if let body = asked.requestBody?.data, !body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await HTTPClient.shared.execute(outgoing, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 64 << 20)
            var exchange = asked
            exchange.url = Self.join(upstream, live.pathAndQuery)
            exchange.status = Int(response.status.code)
            exchange.endedAt = now()
            exchange.responseHeaders = response.headers.map { TraceHeader(name: $0.name, value: $0.value) }
            exchange.responseBody = TraceBody(data: Data(bytes.readableBytesView), size: bytes.readableBytes, isTruncated: false)
            exchange = options.redaction.redact(exchange: exchange)
            let index = book.withLock { book in
                let index = book.append(ServeRequest(exchange))
                library.append(exchange)
                return index
            }
            guard let recorded = ServeAnswer(exchange) else { throw CancellationError() }
            let answer = await options.rules?.apply(recorded, to: live) ?? recorded
            record(asked, answer: answer, event: ["recording": "#\(index + 1)", "passthrough": upstream.absoluteString],
                   message: "passed through to \(upstream.absoluteString), recorded as #\(index + 1)")
            log("\(shownTarget) → \(answer.status) passthrough, recorded as #\(index + 1)")
            return Self.response(answer)
        } catch {
            let reason = TerminalText.line(String(describing: error))
            let answer = ServeAnswer(status: 502, headers: [TraceHeader(name: "Content-Type", value: "text/plain; charset=utf-8")],
                                     body: Data("loupe serve: passthrough to \(upstream.absoluteString) failed: \(reason)\n".utf8))
            record(asked, answer: answer, event: ["miss": "passthrough failed"], message: "passthrough failed: \(reason)")
            log("\(shownTarget) → 502 passthrough failed: \(reason)")
            return Self.response(answer)
        }
    }

    /// Queues the served exchange for the store, when there is one, with a `served` event saying what answered; the
    /// writer redacts and writes it in the background.
    func record(_ asked: TraceExchange, answer: ServeAnswer, stream: TraceStream? = nil, event attributes: [String: String], message: String) {
        guard let recorder else { return }
        var exchange = asked
        let ended = now()
        exchange.operation = "serve"
        exchange.endedAt = ended
        exchange.status = answer.status
        exchange.outcome = answer.status < 400 ? .success : .httpError
        exchange.responseHeaders = answer.headers
        exchange.responseBody = TraceBody(data: answer.body, size: answer.body.count, isTruncated: answer.truncated)
        exchange.attempts = [TraceAttempt(number: 1, startedAt: asked.startedAt, endedAt: ended, status: answer.status)]
        exchange.stream = stream
        exchange.events = [TraceEvent(kind: .served, at: ended, message: message, attributes: attributes)]
        recorder.enqueue(exchange)
    }

    /// The response, sent after the recorded time to first byte and spread over the recorded transfer time, both
    /// scaled by `--pace` and together at most ``ServeOptions/maximumPace``; at once without `--pace`.
    private func paced(_ answer: ServeAnswer) async -> Response {
        guard let factor = options.pace else { return Self.response(answer) }
        let wait = min((answer.firstByte ?? 0) * factor, ServeOptions.maximumPace)
        if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
        let transfer = min((answer.transfer ?? 0) * factor, ServeOptions.maximumPace - wait)
        var response = Self.response(answer)
        let bodiless = answer.status < 200 || answer.status == 204 || answer.status == 304
        guard transfer > 0, !bodiless, answer.body.count > 1 else { return response }
        let body = answer.body
        // Ten slices, a tenth of the transfer time apart: enough for a client to see a slow body arrive.
        let slices = min(10, body.count)
        let gap = transfer / Double(slices)
        response.body = ResponseBody(contentLength: body.count) { writer in
            let size = (body.count + slices - 1) / slices
            var start = body.startIndex
            while start < body.endIndex {
                let end = min(start + size, body.endIndex)
                try await writer.write(ByteBuffer(bytes: body[start..<end]))
                start = end
                if start < body.endIndex { try await Task.sleep(for: .seconds(gap)) }
            }
            try await writer.finish(nil)
        }
        return response
    }

    /// The recorded head, then each event as its block, after its wait; the body ends after the last one.
    static func eventStream(_ answer: ServeAnswer, _ events: ServeEventStream) -> Response {
        var response = Self.response(answer)
        response.body = ResponseBody { writer in
            for block in events.blocks {
                if block.wait > 0 { try await Task.sleep(for: .seconds(block.wait)) }
                try await writer.write(ByteBuffer(bytes: block.text))
            }
            try await writer.finish(nil)
        }
        return response
    }

    static func join(_ base: URL, _ pathAndQuery: String) -> String {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text + pathAndQuery
    }

    static func response(_ answer: ServeAnswer) -> Response {
        var fields = HTTPFields()
        for header in answer.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        // These statuses carry no body (RFC 9110): a recorded one is dropped rather than corrupting the connection.
        let bodiless = answer.status < 200 || answer.status == 204 || answer.status == 304
        let body = bodiless ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        return Response(status: HTTPResponse.Status(code: answer.status), headers: fields, body: body)
    }

    static func text(_ status: HTTPResponse.Status, _ text: String, close: Bool = false) -> Response {
        var fields: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if close { fields[.connection] = "close" }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
