import Foundation
import HTTPTypes
import Synchronization

/// How an adapter around another networking stack (a swift-openapi-runtime middleware, an AsyncHTTPClient
/// wrapper, a URLSession protocol) reports an exchange to a ``ClientObserver``, such as the recorder: the same
/// ``ExchangeStarted`` / ``ExchangeFinished`` calls Loupe's client makes, so the recorder treats the exchange like
/// its own (redaction, body cap, live link, filters) with no second encoding (DECISIONS 251).
///
/// The other stack sends the request once as far as the adapter can see, so the exchange has one attempt.
public struct AdapterRecording: Sendable {
    /// Where the exchanges go (a `NetworkTraceInspector`, or any observer).
    public let observer: any ClientObserver
    /// The adapter's name (``RecordingAdapter``), stored with every exchange.
    public let adapter: String
    /// How many leading bytes of a response body are kept for the observer: the recorder's body cap.
    public let bodyCap: Int
    let now: @Sendable () -> Date
    let makeID: @Sendable () -> UUID

    /// An adapter named `adapter` reporting to `observer`, keeping at most `bodyCap` bytes of each body.
    public init(observer: any ClientObserver, adapter: String, bodyCap: Int = 1 << 20,
                now: @escaping @Sendable () -> Date = { Date() },
                makeID: @escaping @Sendable () -> UUID = { ExchangeID.make() }) {
        self.observer = observer
        self.adapter = adapter
        self.bodyCap = max(0, bodyCap)
        self.now = now
        self.makeID = makeID
    }

    /// Reports that `request` (with its body bytes when in memory) is being sent as `operation`; `startedAt` when it
    /// started earlier than this call.
    public func start(operation: String, request: HTTPRequest, requestBody: Data?, startedAt: Date? = nil) -> AdapterExchange {
        let startedAt = startedAt ?? now()
        let id = makeID()
        observer.exchangeStarted(ExchangeStarted(
            exchangeID: id, operation: operation, request: request, requestBody: requestBody.map { $0.prefix(bodyCap) },
            startedAt: startedAt, adapter: adapter))
        return AdapterExchange(id: id, operation: operation, request: request, startedAt: startedAt, recording: self)
    }
}

/// One exchange an adapter is recording; finish it once with ``finish(response:body:bodySize:error:)``, or hand
/// its body to a ``AdapterBodyTee`` that finishes it when the body ends.
public struct AdapterExchange: Sendable {
    public let id: UUID
    let operation: String
    let request: HTTPRequest
    let startedAt: Date
    let recording: AdapterRecording

    /// The body cap of the recording (how many bytes a tee keeps).
    public var bodyCap: Int { recording.bodyCap }

    /// Reports the end: the response head when one arrived, the body (or its first bytes with the whole `bodySize`),
    /// or the error. The outcome is `success` below 400, `httpError` from 400, and for an error `cancelled` or
    /// `transportError`.
    public func finish(response: HTTPResponse?, body: Data?, bodySize: Int? = nil, error: (any Error)? = nil,
                       firstByte: Date? = nil) {
        let endedAt = recording.now()
        let outcome: ExchangeOutcome
        var clientError: ClientError?
        if let error {
            let cancelled = error is CancellationError || (error as? TransportError)?.kind == .cancelled
            outcome = cancelled ? .cancelled : .transportError
            clientError = ClientError(
                operation: operation, request: request, response: nil, stage: cancelled ? .cancelled : .transport,
                underlyingError: error, exchangeID: id)
        } else {
            outcome = (response?.status.code ?? 0) >= 400 ? .httpError : .success
        }
        let attempt = AttemptRecord(
            number: 1, request: request,
            timings: AttemptTimings(start: startedAt, firstByte: firstByte, end: endedAt),
            response: response, error: error.map { String(describing: $0) })
        recording.observer.exchangeFinished(ExchangeFinished(
            exchangeID: id, outcome: outcome, response: response, responseBody: body, responseBodySize: bodySize,
            error: clientError, endedAt: endedAt, attempts: [attempt]))
    }
}

/// Keeps the first bytes of a response body as the app reads it, and finishes the exchange when the body ends,
/// fails, or is dropped unread: the body is streamed to the app once, never collected a second time.
public final class AdapterBodyTee: Sendable {
    private struct State {
        var prefix = Data()
        var size = 0
        var finished = false
    }

    private let exchange: AdapterExchange
    private let response: HTTPResponse
    private let firstByte: Date?
    private let state = Mutex(State())

    public init(exchange: AdapterExchange, response: HTTPResponse, firstByte: Date? = nil) {
        self.exchange = exchange
        self.response = response
        self.firstByte = firstByte
    }

    /// A chunk the app read: its first bytes up to the cap are kept.
    public func consume<Bytes: Collection<UInt8>>(_ chunk: Bytes) {
        let cap = exchange.bodyCap
        state.withLock { state in
            state.size += chunk.count
            let room = cap - state.prefix.count
            if room > 0 { state.prefix.append(contentsOf: chunk.prefix(room)) }
        }
    }

    /// The body ended (with `error` when it broke): reports the exchange, once.
    public func finish(error: (any Error)? = nil) {
        let taken: State? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            return state
        }
        guard let taken else { return }
        exchange.finish(response: response, body: taken.prefix, bodySize: taken.size > taken.prefix.count ? taken.size : nil,
                        error: error, firstByte: firstByte)
    }

    deinit {
        // Dropped before its end (the app did not read the whole body): what was read is still recorded.
        finish()
    }
}
