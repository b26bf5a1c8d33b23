import Foundation
import HTTPTypes
import Synchronization

// `Client.stream`: the smallest streamed path, added for `LoupeOpenAPI.LoupeTransport` (a generated client's
// streamed `HTTPBody`, issue 31). It hands the body to the caller as an async sequence instead of a
// ``ResponseBodySink``, and finishes the recorded exchange when that sequence ends. A server-sent-events path
// could be built on it (same hand-off: head through the chain, body read after it).

extension Client {
    /// Sends `request` and returns once the response head has arrived; the body arrives as the caller reads
    /// ``StreamedClientResponse/body``, with backpressure, never collected whole.
    ///
    /// The exchange runs through the same middleware and observer as ``execute(_:body:options:)``: a status that
    /// `streaming.streams` leaves out (by default everything but 2xx, so retry policies can retry 5xx) is collected
    /// as usual and handed over in one chunk. For a streamed body the recorder gets its first
    /// ``ResponseStreaming/keptPrefix`` bytes and its whole size when the caller has read it to the end, or drops
    /// it. Any status is returned (not thrown); transport failures before the head throw ``ClientError``; a body
    /// that breaks later ends the sequence with the transport's error.
    public func stream(
        _ request: HTTPRequest,
        body: RequestBody? = nil,
        options: RequestOptions = RequestOptions(),
        streaming: ResponseStreaming = ResponseStreaming(streams: { (200..<300).contains($0.code) })
    ) async throws -> StreamedClientResponse {
        let handoff = BodyHandoff(observer: observer, keptPrefix: streaming.keptPrefix)
        let transport = HandoffTransport(base: self.transport, streams: streaming.streams, handoff: handoff)
        // A client of its own for this exchange, as `performStreaming` makes: the same chain over the hand-off.
        let streamingClient = Client(
            baseURL: baseURL, transport: transport, middlewares: middlewares, observer: handoff, configuration: configuration)
        var options = options
        options.timeout = options.timeout ?? configuration.timeout
        var metadata = RequestMetadata.current
        metadata.streamsResponseBody = true
        let response = try await RequestMetadata.$current.withValue(metadata) {
            try await streamingClient.perform(request, body: body, options: options, validate: false) { $0.body }
        }
        let chunks: AsyncThrowingStream<Data, any Error>
        if let live = handoff.takeLiveBody(for: response.exchangeID) {
            chunks = live
        } else {
            let collected = response.body
            chunks = AsyncThrowingStream { continuation in
                if !collected.isEmpty { continuation.yield(collected) }
                continuation.finish()
            }
        }
        return StreamedClientResponse(
            head: response.head, body: RecordedBodyStream(base: chunks, handoff: handoff), exchangeID: response.exchangeID,
            attempts: response.attempts, httpVersion: response.httpVersion)
    }
}

/// What ``Client/stream(_:body:options:streaming:)`` returns: the head, and the body still to be read.
public struct StreamedClientResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body, chunk by chunk; read it to the end (or drop it) so the exchange is recorded.
    public var body: RecordedBodyStream
    public var exchangeID: UUID
    /// The attempts sent, each finished at its head.
    public var attempts: [AttemptRecord]
    public var httpVersion: String?
}

/// A response body read from the wire as it is iterated; its first bytes are kept for the recorder, and the
/// exchange is reported finished when the iteration ends, fails or the stream is dropped.
public struct RecordedBodyStream: AsyncSequence, Sendable {
    public typealias Element = Data
    let base: AsyncThrowingStream<Data, any Error>
    let handoff: BodyHandoff

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Data, any Error>.AsyncIterator
        let handoff: BodyHandoff

        public mutating func next() async throws -> Data? {
            do {
                guard let chunk = try await base.next() else {
                    handoff.finish(error: nil)
                    return nil
                }
                handoff.consume(chunk)
                return chunk
            } catch {
                handoff.finish(error: error)
                throw error
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), handoff: handoff)
    }
}

/// The bottom of a ``Client/stream(_:body:options:streaming:)`` chain: a status that streams passes up with an
/// empty body while its live body waits in the ``BodyHandoff``; any other is collected as usual.
struct HandoffTransport: ClientTransport {
    let base: any ClientTransport
    let streams: @Sendable (HTTPResponse.Status) -> Bool
    let handoff: BodyHandoff

    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        guard let base = base as? any StreamingClientTransport else {
            return try await base.send(request, body: body, context: context)
        }
        let response = try await base.stream(request, body: body, context: context)
        guard streams(response.head.status) else { return try await response.collect(upTo: 64 << 20) }
        // A later attempt (a middleware retried) replaces this one's body, whose stream is dropped (and releases
        // its connection).
        handoff.offer(response.body, exchangeID: context.exchangeID)
        return RawResponse(head: response.head, httpVersion: response.httpVersion)
    }
}

/// Carries one streamed exchange's live body from the transport to the caller, and holds the exchange's
/// ``ExchangeFinished`` until the body has been read: an observer in front of the client's own.
final class BodyHandoff: ClientObserver {
    private struct State {
        var live: (UUID, AsyncThrowingStream<Data, any Error>)?
        var pending: ExchangeFinished?
        var prefix = Data()
        var size = 0
        var done = false
    }

    private let base: any ClientObserver
    private let keptPrefix: Int
    private let state = Mutex(State())

    init(observer: any ClientObserver, keptPrefix: Int) {
        self.base = observer
        self.keptPrefix = keptPrefix
    }

    func offer(_ body: AsyncThrowingStream<Data, any Error>, exchangeID: UUID) {
        state.withLock { $0.live = (exchangeID, body) }
    }

    func takeLiveBody(for id: UUID) -> AsyncThrowingStream<Data, any Error>? {
        state.withLock { state in
            guard let live = state.live, live.0 == id else { return nil }
            state.live = nil
            return live.1
        }
    }

    func consume(_ chunk: Data) {
        state.withLock { state in
            state.size += chunk.count
            if state.prefix.count < keptPrefix { state.prefix.append(chunk.prefix(keptPrefix - state.prefix.count)) }
        }
    }

    /// The body ended: the held ``ExchangeFinished`` goes on with the body's first bytes and size (and, for a body
    /// that broke, as a transport error).
    func finish(error: (any Error)?) {
        let finished: ExchangeFinished? = state.withLock { state in
            guard !state.done, var finished = state.pending else {
                state.done = true
                return nil
            }
            state.done = true
            state.pending = nil
            if finished.responseBody?.isEmpty ?? true {
                finished.responseBody = state.prefix
                finished.responseBodySize = state.size > state.prefix.count ? state.size : nil
            }
            return finished
        }
        guard var finished else { return }
        finished.endedAt = Date()
        if let error {
            finished.outcome = error is CancellationError ? .cancelled : .transportError
            finished.error = ClientError(
                operation: "", request: nil, stage: finished.outcome == .cancelled ? .cancelled : .transport,
                underlyingError: error, exchangeID: finished.exchangeID)
        }
        base.exchangeFinished(finished)
    }

    deinit {
        // The caller dropped the body before its end: what it read is still recorded, and said to be only that,
        // before the exchange goes on (an unread body is not an empty one).
        let unread = state.withLock { state in state.done ? nil : state.pending.map { ($0.exchangeID, state.size) } }
        if let (id, read) = unread {
            base.eventRecorded(ExchangeEvent(
                exchangeID: id, kind: .bodyNotRead, at: Date(),
                message: "body not read by the app: it dropped the body after \(Quantity.bytes(read)); the rest was not received",
                attributes: ["readBytes": String(read)]))
        }
        finish(error: nil)
    }

    // MARK: ClientObserver: everything passes through, but a streamed exchange's end waits for its body.

    func exchangeStarted(_ exchange: ExchangeStarted) { base.exchangeStarted(exchange) }
    func attemptStarted(_ attempt: AttemptStarted) { base.attemptStarted(attempt) }
    func attemptFinished(_ attempt: AttemptFinished) { base.attemptFinished(attempt) }
    func eventRecorded(_ event: ExchangeEvent) { base.eventRecorded(event) }

    func exchangeFinished(_ exchange: ExchangeFinished) {
        let hold = state.withLock { state in
            guard exchange.error == nil, let live = state.live, live.0 == exchange.exchangeID else { return false }
            state.pending = exchange
            return true
        }
        if !hold { base.exchangeFinished(exchange) }
    }
}
